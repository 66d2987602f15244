"""Simultaneous choices played one seat after another are searched as simultaneous (issue 21).

Irk's choose phase is one step per seat, and no seat sees another's choice before the reveal.
A search keying every node by the actions above it let the second chooser's statistics depend
on the first chooser's choice: it best-responded to a choice it could not see, and the first
chooser's search was pessimistic. :meth:`GameState.secret_steps` says how many of the steps
just taken the mover has not seen; the searches decide its move on one node shared by all of
them (its information set), while the tree below still follows the true sequence.

Hideout, the toy game below, is the smallest case: seat 0 hides in one of ``H`` places or stays
home (a draw); then each other seat guesses a place, secretly. A hider found loses, else wins.
Seen as sequential moves, every guess finds the hider, and staying home looks best; played
simultaneously, hiding wins (``1 - 2/H`` against one uniform guess). Names new with the fix are
imported inside the tests, so that this file runs (and fails where it should) on the old code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from tabletop_envs.core.game import GameSpec, PhasedGameState
from tabletop_envs.core.params import check_int_range
from tabletop_envs.games.irk.rules import CHOOSE, PLACE, IrkState
from tabletop_envs.search.puct import run_puct
from tabletop_envs.search.uct import uct_search

HIDE, FINAL, OVER = 0, 1, 2


@dataclass(frozen=True)
class HideoutParams:
    """Seats (2-4), hiding places, and whether the hider then claims its win or passes."""

    num_players: int = 2
    places: int = 3
    final: bool = False

    def __post_init__(self) -> None:
        check_int_range("num_players", self.num_players, 2, 4)
        check_int_range("places", self.places, 2, 9)


class Hideout(PhasedGameState):
    """Seat 0 hides (``0..H-1``) or stays home (``H``); seats 1.. guess ``0..H-1``, secretly.

    With ``final``, a hider then claims (``H + 1``: the result stands) or passes (``H + 2``: a
    draw) without having seen the guesses.
    """

    __slots__ = ("choice", "passed")
    game_name = "hideout"
    params_class = HideoutParams
    over_phase = OVER

    def _setup(self) -> None:
        self.phase, self.to_move = HIDE, 0
        self.choice = [-1] * self.params.num_players
        self.passed = False

    @property
    def spec(self) -> GameSpec:
        n, h = self.params.num_players, self.params.places
        return GameSpec(n, h + 3, (h + 3 + n,), ("x",), n + 1, (-1.0, 1.0))

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.spec.num_actions, dtype=np.int8)
        h = self.params.places
        if self.phase == HIDE:
            mask[: h + 1 if self.to_move == 0 else h] = 1
        elif self.phase == FINAL:
            mask[h + 1 :] = 1
        return mask

    def _apply(self, action: int) -> None:
        if not self.legal_mask()[action]:
            raise self._illegal(action, "not legal")
        if self.phase == FINAL:
            self.passed, self.phase = action == self.params.places + 2, OVER
            return
        self.choice[self.to_move] = action
        self.to_move += 1
        if self.to_move == self.params.num_players:
            hid = self.choice[0] < self.params.places
            self.phase, self.to_move = (FINAL, 0) if hid and self.params.final else (OVER, 0)

    def secret_steps(self) -> int:
        if self.phase == HIDE:
            return self.to_move  # every choice before this one
        return self.params.num_players - 1 if self.phase == FINAL else 0  # the guesses

    def returns(self) -> np.ndarray:
        out = np.zeros(self.params.num_players)
        if self.phase != OVER or self.choice[0] == self.params.places or self.passed:
            return out
        found = self.choice[0] in self.choice[1:]
        out[:] = 1.0 if found else -1.0
        out[0] = -out[1]
        return out

    def observation(self, seat: int) -> np.ndarray:
        """Own choice one-hot, phase (hide, final), the seat to move one-hot."""
        h = self.params.places
        obs = np.zeros(self.spec.observation_shape, dtype=np.int8)
        if self.choice[seat] >= 0:
            obs[self.choice[seat]] = 1
        obs[h + 1 + min(self.phase, 1)] = 1
        obs[h + 3 + self.to_move] = 1
        return obs

    def render_text(self, seat: int | None = None) -> str:
        return str(self.choice)

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> Hideout:
        new = self.clone()
        for s in range(self.params.num_players):
            if s != seat and new.choice[s] >= 0:
                new.choice[s] = int(rng.integers(self.params.places + (s == 0)))
        return new

    def clone(self) -> Hideout:
        new = self._shallow_copy()
        new.choice = self.choice.copy()
        return new

    def _state_dict(self) -> dict[str, Any]:
        return {"phase": self.phase, "to_move": self.to_move, "choice": self.choice}

    def _load_state_dict(self, data: Any) -> None:
        self.phase, self.to_move, self.choice = data["phase"], data["to_move"], data["choice"]
        self.passed = False


def _uniform(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return mask / mask.sum(axis=1, keepdims=True), np.zeros(len(obs))


def _hide_share(counts: np.ndarray, places: int) -> float:
    return float(counts[:places].sum() / counts.sum())


# ---- the hider's search ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("num_players", "places", "simulations"), [(2, 3, 400), (3, 6, 400), (4, 6, 2000)]
)
def test_the_first_chooser_is_not_searched_against_guesses_that_saw_its_choice(
    num_players, places, simulations
):
    """Hiding is worth ``+1/3`` (2 players, 3 places), ``+0.39`` (3, 6), ``+0.16`` (4, 6)
    against uniform guesses: the search hides (96% of the visits). Before, each guess saw where
    the hider was (a node per hiding place): every place lost, and staying home got 91%, 78%
    and 83% of the visits."""
    game = Hideout.new(seed=0, num_players=num_players, places=places)
    counts = run_puct([game], [0], _uniform, simulations, np.random.default_rng(0))
    assert _hide_share(counts[0], places) > 0.75, counts


def test_uct_searches_simultaneous_choices_alike():
    game = Hideout.new(seed=0, num_players=2, places=3)
    root = uct_search(game, 0, 2000, seed=0)
    visits = np.array([root.children[a].n for a in range(4)])
    assert _hide_share(visits, 3) > 0.75, visits


class _Asked:
    """A uniform evaluator noting, per seat to move, the observations it is asked about."""

    def __init__(self, game: Hideout) -> None:
        self.start = game.params.places + 3
        self.asked: dict[int, list[bytes]] = {}

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        for row in obs:
            seat = int(np.flatnonzero(row[self.start :])[0])
            self.asked.setdefault(seat, []).append(row.tobytes())
        return _uniform(obs, mask)


@pytest.mark.parametrize("num_players", [3, 4])
def test_every_guess_is_one_node_whatever_the_choices_before_it(num_players):
    """A guesser's decision is evaluated once: before, once per sequence of earlier choices."""
    game = Hideout.new(seed=0, num_players=num_players, places=4)
    asked = _Asked(game)
    run_puct([game], [0], asked, 300, np.random.default_rng(1))
    assert [len(asked.asked[s]) for s in range(1, num_players)] == [1] * (num_players - 1)


def test_a_second_chooser_at_the_root_shares_the_later_guesses_too():
    """The hider's choice lies above the root (redrawn per simulation): the third seat's guess
    hangs off the root, one node for every guess of the root's seat."""
    game = Hideout.new(seed=0, num_players=3, places=4)
    game.apply(2)
    asked = _Asked(game)
    seen = {game.resample_hidden(1, np.random.default_rng(k)).choice[0] for k in range(50)}
    assert seen == set(range(5))  # the hider's choice is redrawn, staying home included
    counts = run_puct([game], [1], asked, 200, np.random.default_rng(2))
    assert counts[0, :4].sum() == 200 and len(asked.asked[2]) == 1


def test_the_tree_below_follows_the_true_choices():
    """The hider knows where it hid when it claims: that decision is one node per hiding place
    (shared by the guesses it has not seen), so the evaluator is asked once per place tried."""
    game = Hideout.new(seed=0, num_players=2, places=3, final=True)
    asked = _Asked(game)
    counts = run_puct([game], [0], asked, 300, np.random.default_rng(3))
    hider = asked.asked[0][1:]  # the root's evaluation first
    tried = int((counts[0, :3] > 1).sum())
    assert len(hider) == len(set(hider)) == tried >= 2, (counts, len(hider))


# ---- Irk's hook --------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_irk_counts_the_choices_the_mover_has_not_seen(num_players):
    game = IrkState.new(seed=5, num_players=num_players)
    game.apply(game.legal_actions()[0])  # round 1 (a bet round): the others' choices stay secret
    redrawn = {game.resample_hidden(1, np.random.default_rng(k)).chosen[0] for k in range(20)}
    assert len(redrawn) > 1  # a second chooser at the root searches every first choice
    for seen in range(1, num_players):
        assert game.phase == CHOOSE and game.secret_steps() == seen
        game.apply(game.legal_actions()[0])
    assert game.secret_steps() == 0  # the bet tiles are public: a new round
    while game.phase == CHOOSE:
        game.apply(game.legal_actions()[0])
    assert game.phase == PLACE
    pending = sum(tile >= 0 for tile in game.chosen)
    assert game.secret_steps() == pending - 1  # the choices after the placer's own
    game.apply(game.legal_actions()[0])
    if game.phase == PLACE:
        assert game.secret_steps() == 0  # after a public placement: not shared (see the docs)
    assert Hideout.new(seed=0).secret_steps() == 0
    assert IrkState.new(seed=0).secret_steps() == 0


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_irk_secret_steps_are_the_last_choices_of_others_still_secret(num_players):
    """Over random games (discards included): the last steps that are other seats' choices not
    revealed yet, counted from the end back to the first step that is not one."""
    rng = np.random.default_rng(num_players)
    discards = 0
    for seed in range(6):
        game = IrkState.new(seed=seed, num_players=num_players, table_size=5)  # discards too
        movers: list[int] = []
        while not game.is_terminal:
            mover, count = game.current_player, 0
            for seat, action in zip(reversed(movers), reversed(game.actions), strict=True):
                if action >= game.deck_size or seat == mover or game.chosen[seat] != action:
                    break
                count += 1
            assert game.secret_steps() == count
            movers.append(mover)
            game.apply(int(rng.choice(game.legal_actions())))
        discards += len(game.discards)
    assert discards  # the small table makes some tiles unplaceable
