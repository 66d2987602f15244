"""Hidden information: others' hands, others' unrevealed choices and unused tiles stay hidden.

At every step of random games each seat's information is resampled (``resample_hidden``) and its
observation and mask must not change. A leaky observer shows the check can fail.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from tabletop_envs.games.irk.rules import CHOOSE, PLACE, IrkState
from tests.irk.helpers import random_states

Observer = Callable[[IrkState, int], np.ndarray]


def honest(game: IrkState, seat: int) -> np.ndarray:
    """The env's observation."""
    return game.observation(seat)


def leaky(game: IrkState, seat: int) -> np.ndarray:
    """A broken observation that also shows the next seat's hand."""
    other = np.zeros(game.deck_size, dtype=np.int8)
    other[game.hands[(seat + 1) % game.num_players]] = 1
    return np.concatenate([game.observation(seat), other])


def violations(game: IrkState, observe: Observer, draws: int, rng: np.random.Generator) -> list:
    """Return (seat, what) for every resample that changed what a seat sees."""
    found = []
    for seat in range(game.num_players):
        obs = observe(game, seat)
        mask = game.legal_mask() if seat == game.current_player else None
        for _ in range(draws):
            other = game.resample_hidden(seat, rng)
            if not np.array_equal(observe(other, seat), obs):
                found.append((seat, "observation"))
            if mask is not None and not np.array_equal(other.legal_mask(), mask):
                found.append((seat, "mask"))
    return found


def hidden_tiles(game: IrkState, seat: int) -> list:
    """Return what ``seat`` may not know, per place."""
    placer = game.to_move if game.phase == PLACE else -1
    return [
        [sorted(h) for s, h in enumerate(game.hands) if s != seat],
        [c for s, c in enumerate(game.chosen) if s not in (seat, placer)],
        sorted(game.unused),
    ]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_resampling_never_changes_a_seats_observation_or_mask(n):
    rng = np.random.default_rng(n)
    checked_after_secret_choice = 0
    for seed, size in ((0, 15), (1, 31)):
        states = random_states(100 + seed, num_players=n, table_size=size)
        for game in states:
            assert violations(game, honest, 2, rng) == []
            if game.phase == CHOOSE and any(c >= 0 for c in game.chosen):
                checked_after_secret_choice += 1
    assert checked_after_secret_choice > 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_resampling_keeps_counts_and_redraws_the_hidden_tiles(n):
    rng = np.random.default_rng(7)
    changed = 0
    for game in random_states(200, num_players=n, table_size=15)[:-1]:
        for seat in range(n):
            other = game.resample_hidden(seat, rng)
            # still a consistent state: every tile once (checked by the JSON loader)
            IrkState.from_json(other.to_json())
            assert [len(h) for h in other.hands] == [len(h) for h in game.hands]
            assert [c >= 0 for c in other.chosen] == [c >= 0 for c in game.chosen]
            assert other.hands[seat] == game.hands[seat]
            assert other.chosen[seat] == game.chosen[seat]
            assert other.piles == game.piles and other.placements == game.placements
            assert other.discards == game.discards
            if game.phase == PLACE:  # the tile being placed is revealed: kept
                assert other.chosen[game.to_move] == game.chosen[game.to_move]
            changed += hidden_tiles(other, seat) != hidden_tiles(game, seat)
    assert changed > 0


def test_the_check_can_fail():
    rng = np.random.default_rng(0)
    game = random_states(300, num_players=3, table_size=15)[0]
    assert violations(game, honest, 3, rng) == []
    found = violations(game, leaky, 3, rng)
    assert found and all(what == "observation" for _, what in found)


def test_the_check_catches_a_resample_that_redraws_the_seats_own_tiles(monkeypatch):
    rng = np.random.default_rng(0)
    game = random_states(301, num_players=2, table_size=15)[0]

    def wrong(self, seat, rng):  # redraws the seat's own hand as well
        new = self.clone()
        pool = sorted(new.hands[0] + new.hands[1] + new.unused)
        drawn = [pool[i] for i in rng.permutation(len(pool))]
        new.hands = [sorted(drawn[:7]), sorted(drawn[7:14])]
        new.unused = sorted(drawn[14:])
        new._mask = None
        return new

    monkeypatch.setattr(IrkState, "resample_hidden", wrong)
    assert violations(game, honest, 2, rng) != []


def test_a_secret_choice_is_invisible_to_the_others():
    game = IrkState.new(seed=21, num_players=3)
    a, b = game.clone(), game.clone()
    a.apply(a.hands[0][0])
    b.apply(b.hands[0][1])
    for seat in (1, 2):
        assert np.array_equal(a.observation(seat), b.observation(seat))
    assert not np.array_equal(a.observation(0), b.observation(0))


def test_indistinguishable_states_give_identical_samples():
    """A sample depends on the seat's information and the rng only (MCTS relies on it)."""
    for n in (2, 3, 4):
        states = random_states(400 + n, num_players=n, table_size=15)
        for game in states[:: max(len(states) // 6, 1)]:
            for seat in range(n):
                twin = game.resample_hidden(seat, np.random.default_rng(99))
                x = game.resample_hidden(seat, np.random.default_rng(5))
                y = twin.resample_hidden(seat, np.random.default_rng(5))
                assert x == y
