"""Hidden information: nothing about any stack order or the box reaches an observation.

The check resamples everything a seat cannot know (every unrevealed tile in every stack and
the box) consistently with what it knows and asserts its observation and mask are unchanged;
deliberately leaking encodings show the check can fail.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tabletop_envs.games.isis_osiris import IsisOsirisState
from tabletop_envs.games.isis_osiris.image import draw
from tabletop_envs.games.isis_osiris.observation import layout
from tabletop_envs.games.isis_osiris.rules import PLACE
from tabletop_envs.games.isis_osiris.tables import REVEAL, TILE_VALUES, VALUE_INDEX

CONFIGS = [(n, m) for n in (2, 3, 4) for m in (False, True)]


def trajectory(cls: type[IsisOsirisState], seed: int, **params: object) -> list[IsisOsirisState]:
    """Return clones of every state of a seeded random game that mixes both kinds of turn."""
    game = cls.new(seed=seed, **params)
    rng = np.random.default_rng(seed + 50)
    states = [game.clone()]
    while not game.is_terminal:
        legal = game.legal_actions()
        action = REVEAL if REVEAL in legal and rng.random() < 0.5 else int(rng.choice(legal))
        game.apply(action)
        states.append(game.clone())
    return states


def views_survive_resampling(game: IsisOsirisState, draws: int = 4) -> bool:
    """Return whether every seat's observation (and the mover's mask) survive its resamples."""
    for seat in range(game.num_players):
        obs = game.observation(seat)
        for k in range(draws):
            other = game.resample_hidden(seat, np.random.default_rng([seat, k]))
            if not np.array_equal(other.observation(seat), obs):
                return False
            if not np.array_equal(other.legal_mask(), game.legal_mask()):
                return False
    return True


@pytest.mark.parametrize(("num_players", "memory"), CONFIGS)
def test_resampling_keeps_every_seats_observation_and_mask(num_players: int, memory: bool) -> None:
    """Along random games, resampled states look the same to the seat they were drawn for."""
    for seed in range(3):
        for game in trajectory(IsisOsirisState, seed, num_players=num_players, memory=memory):
            assert views_survive_resampling(game)


@pytest.mark.parametrize(("num_players", "memory"), CONFIGS)
def test_resampling_redraws_stacks_and_box_only(num_players: int, memory: bool) -> None:
    """Board, tile in hand, counts and pile sizes stay; the hidden tiles are really redrawn."""
    game = trajectory(IsisOsirisState, 4, num_players=num_players, memory=memory)[10]
    hidden = Counter([v for s in game.stacks for v in s] + game.unused)
    orders = set()
    for k in range(20):
        other = game.resample_hidden(k % num_players, np.random.default_rng(k))
        assert Counter([v for s in other.stacks for v in s] + other.unused) == hidden
        assert [len(s) for s in other.stacks] == [len(s) for s in game.stacks]
        assert len(other.unused) == len(game.unused)
        assert (other.owner, other.tiles, other.in_hand) == (game.owner, game.tiles, game.in_hand)
        assert (other.stones_left, other.to_move, other.phase) == (
            game.stones_left,
            game.to_move,
            game.phase,
        )
        orders.add((tuple(map(tuple, other.stacks)), tuple(other.unused)))
    assert len(orders) > 15


def test_resampling_depends_only_on_the_seats_information() -> None:
    """Two states the seat cannot tell apart give identical samples for the same rng."""
    for n in (2, 3, 4):
        game = trajectory(IsisOsirisState, 9, num_players=n)[7]
        twin = game.resample_hidden(0, np.random.default_rng(123))
        assert twin.stacks != game.stacks  # the hidden part differs ...
        for seat in range(n):
            assert np.array_equal(twin.observation(seat), game.observation(seat))  # ... unseen
            a = game.resample_hidden(seat, np.random.default_rng(5))
            b = twin.resample_hidden(seat, np.random.default_rng(5))
            assert (a.stacks, a.unused) == (b.stacks, b.unused)


def test_resampling_leaves_the_original_untouched() -> None:
    """``resample_hidden`` returns a copy."""
    game = trajectory(IsisOsirisState, 2)[5]
    before = game.to_json()
    game.resample_hidden(1, np.random.default_rng(0))
    assert game.to_json() == before


def test_every_seat_shares_one_information_set() -> None:
    """Nobody knows its own stack: all seats see the same facts (egocentric order aside)."""
    game = trajectory(IsisOsirisState, 1, num_players=3)[9]
    rng = np.random.default_rng(0)
    draws = [game.resample_hidden(seat, np.random.default_rng(7)) for seat in range(3)]
    assert all((d.stacks, d.unused) == (draws[0].stacks, draws[0].unused) for d in draws)
    assert IsisOsirisState.hidden_information is True
    with pytest.raises(ValueError, match="seat"):
        game.resample_hidden(3, rng)


# ---- the check can fail -----------------------------------------------------------------------
class LeaksTopOfStack(IsisOsirisState):
    """Broken on purpose: the mover's next tile shows up in the 'placing' planes."""

    def observation(self, seat: int) -> np.ndarray:
        out = super().observation(seat)
        stack = self.stacks[seat]
        if stack and self.phase != PLACE:
            out[:, :, layout(self.num_players).placing + VALUE_INDEX[stack[-1] + 4]] = 1
        return out


class LeaksTheBox(IsisOsirisState):
    """Broken on purpose: 'unseen' counts only the tiles in the stacks (the box leaks)."""

    def observation(self, seat: int) -> np.ndarray:
        out = super().observation(seat)
        lay = layout(self.num_players)
        counts = Counter(v for s in self.stacks for v in s)
        out = out.reshape(36, -1)
        out[:, lay.unseen : lay.unseen + 8] = 0
        for k, v in enumerate(TILE_VALUES):
            out[: counts[v], lay.unseen + k] = 1
        return out.reshape(6, 6, -1)


@pytest.mark.parametrize(("leaky", "num_players"), [(LeaksTopOfStack, 2), (LeaksTheBox, 3)])
def test_the_check_catches_a_leaking_encoding(leaky: type, num_players: int) -> None:
    """The same check fails on an observation that reveals hidden tiles."""
    states = trajectory(leaky, 0, num_players=num_players)
    assert not all(views_survive_resampling(game) for game in states)


# ---- memory mode ----------------------------------------------------------------------------
def hidden_from(game: IsisOsirisState, seat: int) -> list[int]:
    """Return the board squares whose tile ``seat`` has not witnessed: placed at or before its
    last step (the memory-mode rule, computed from the fields whatever the mode)."""
    return [sq for sq in range(36) if game.tiles[sq] and game.placed_at[sq] <= game.acted_at[seat]]


def shuffle_board_values(
    game: IsisOsirisState, rng: np.random.Generator, squares: list[int]
) -> IsisOsirisState:
    """Return a copy whose tiles on ``squares`` hold other values (swapped with hidden ones)."""
    other = game.clone()
    pool = [other.tiles[sq] for sq in squares] + [v for s in other.stacks for v in s]
    pool += other.unused
    order = rng.permutation(len(pool))
    pool = [pool[i] for i in order]
    for sq in squares:
        other.tiles[sq] = pool.pop()
    sizes = [len(s) for s in other.stacks]
    other.stacks = [[pool.pop() for _ in range(k)] for k in sizes]
    other.unused = pool
    other.seed = None  # a redrawn position: no deal and actions lead to it
    return type(game).from_json(other.to_json())  # rebuild every cache


def board_values_stay_hidden(states: list[IsisOsirisState], renders: bool = False) -> bool:
    """Return whether, for every seat, other values under the tiles it has not witnessed
    change none of its observation, the mask (and, with ``renders``, its text render and
    image) along ``states`` before the end."""
    for game in states:
        if game.is_terminal:
            continue
        for seat in range(game.num_players):
            squares = hidden_from(game, seat)
            if not squares:
                continue
            other = shuffle_board_values(game, np.random.default_rng(game.steps), squares)
            if not np.array_equal(other.legal_mask(), game.legal_mask()):
                return False
            if not np.array_equal(other.observation(seat), game.observation(seat)):
                return False
            if renders and other.render_text(seat) != game.render_text(seat):
                return False
            if renders and not np.array_equal(draw(other, seat), draw(game, seat)):
                return False
    return True


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_memory_mode_observation_holds_no_board_values(num_players: int) -> None:
    """In memory mode other values under the tiles a seat has not witnessed (its own, and the
    others' once it has acted) change none of its observation (every channel: board, placing,
    counts, unseen multiset) and no mask before the end; with perfect recall they do (the
    check can fail)."""
    memory = trajectory(IsisOsirisState, 3, num_players=num_players, memory=True)
    recall = trajectory(IsisOsirisState, 3, num_players=num_players, memory=False)
    assert board_values_stay_hidden(memory)
    assert not board_values_stay_hidden(recall)


class LeaksOwnTile(IsisOsirisState):
    """Broken on purpose (an off-by-one): a seat keeps seeing the tile it placed at its own
    last step, i.e. a tile shows face up while ``placed_at >= acted_at`` instead of ``>``."""

    def observation(self, seat: int) -> np.ndarray:
        out = super().observation(seat).reshape(36, -1)
        lay = layout(self.num_players)
        if self.params.memory and not self.is_terminal:
            for sq, value in enumerate(self.tiles):
                if value and self.placed_at[sq] == self.acted_at[seat]:
                    out[sq, lay.face_down] = 0
                    out[sq, lay.tile_value + VALUE_INDEX[value + 4]] = 1
        return out.reshape(6, 6, -1)


class KeepsTilesTooLong(IsisOsirisState):
    """Broken on purpose: a tile stays face up for two rounds after it is placed, whoever has
    acted since (a memory the variant must not hand out)."""

    def observation(self, seat: int) -> np.ndarray:
        out = super().observation(seat).reshape(36, -1)
        lay = layout(self.num_players)
        if self.params.memory and not self.is_terminal:
            for sq, value in enumerate(self.tiles):
                if value and self.steps - self.placed_at[sq] < 2 * self.num_players:
                    out[sq, lay.face_down] = 0
                    out[sq, lay.tile_value + VALUE_INDEX[value + 4]] = 1
        return out.reshape(6, 6, -1)


@pytest.mark.parametrize("leaky", [LeaksOwnTile, KeepsTilesTooLong])
def test_the_memory_check_catches_tiles_shown_too_long(leaky: type) -> None:
    """Showing a seat its own placed tile, or a witnessed tile after it has acted, is caught."""
    states = trajectory(leaky, 3, num_players=3, memory=True)
    assert not board_values_stay_hidden(states)


class LeaksInTheRender(IsisOsirisState):
    """Broken on purpose: the players' text render shows the values of face-down tiles."""

    def render_text(self, seat: int | None = None, *, show_values: bool = False) -> str:
        return super().render_text(seat, show_values=True)


def test_memory_mode_renders_hold_no_board_values() -> None:
    """The ansi text and the RGB image of a memory-mode game show no face-down value; a
    render that does is caught."""
    states = trajectory(IsisOsirisState, 6, num_players=3, memory=True)
    assert board_values_stay_hidden(states[::6], renders=True)
    for game in states[:-1]:  # render() and draw() without a seat: the seat to move
        mover = game.current_player
        assert game.render_text() == game.render_text(mover)
        assert np.array_equal(draw(game), draw(game, mover))
    leaky = trajectory(LeaksInTheRender, 6, num_players=3, memory=True)
    assert board_values_stay_hidden(leaky[::6])
    assert not board_values_stay_hidden(leaky[::6], renders=True)


class LeaksBoardMultiset(IsisOsirisState):
    """Broken on purpose: in memory mode 'unseen' counts the values still in the stacks and the
    box (the perfect-recall count), which gives away the multiset of the face-down tiles."""

    def observation(self, seat: int) -> np.ndarray:
        out = super().observation(seat).reshape(36, -1)
        lay = layout(self.num_players)
        counts = Counter([v for s in self.stacks for v in s] + self.unused)
        out[:, lay.unseen : lay.unseen + 8] = 0
        for k, v in enumerate(TILE_VALUES):
            out[: counts[v], lay.unseen + k] = 1
        return out.reshape(6, 6, -1)


def test_the_memory_check_catches_a_leaking_unseen_count() -> None:
    """Counting 'not yet seen' as 'still in the stacks and box' leaks board values in memory
    mode (mix minus that count minus the tile in hand is the multiset of the board tiles)."""
    states = trajectory(LeaksBoardMultiset, 3, num_players=2, memory=True)
    assert all(views_survive_resampling(game, draws=1) for game in states[::5])
    assert not board_values_stay_hidden(states)


def test_memory_mode_shows_the_tile_being_placed_to_everybody() -> None:
    """The revealed tile is visible to all seats while it is being placed; once placed it is
    face down for its owner and face up for the others until each of them acts."""
    game = IsisOsirisState.new(seed=2, num_players=3, memory=True)
    game.apply(REVEAL)
    lay = layout(3)
    value = game.in_hand
    k = VALUE_INDEX[value + 4]
    for seat in range(3):
        obs = game.observation(seat)
        assert obs[:, :, lay.placing + k].all()
        assert obs[:, :, lay.placing : lay.placing + 8].sum() == 36
    game.apply(36 + 14)  # seat 0 puts it on c3
    for seat in range(3):
        obs = game.observation(seat)
        assert obs[:, :, lay.placing : lay.placing + 8].sum() == 0
        assert obs[2, 2, lay.face_down] == (seat == 0)
        assert obs[:, :, lay.tile_value : lay.tile_value + 8].sum() == (seat != 0)
        assert obs[2, 2, lay.tile_value + k] == (seat != 0)
    game.apply(0)  # seat 1 acts: c3 turns face down for it, seat 2 still sees it
    assert [game.observation(s)[2, 2, lay.tile_value + k] for s in range(3)] == [0, 0, 1]
    game.apply(REVEAL)  # seat 2 acts (a reveal is a step too): face down for everybody
    assert [game.observation(s)[2, 2, lay.face_down] for s in range(3)] == [1, 1, 1]
    assert "()" in game.render_text(2) and f"{value:+d}" not in game.render_text(2).split("\n")[3]


def test_memory_mode_turns_every_tile_face_up_at_the_end() -> None:
    """At the end all tiles are turned face up, in the observation and the text render."""
    game = trajectory(IsisOsirisState, 0, num_players=2, memory=True)[-1]
    recall = trajectory(IsisOsirisState, 0, num_players=2, memory=False)[-1]
    assert game.is_terminal and game.tiles == recall.tiles
    for seat in range(2):
        assert np.array_equal(game.observation(seat), recall.observation(seat))
    assert "()" not in game.render_text()
