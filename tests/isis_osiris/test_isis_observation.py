"""The observation: declared layout, egocentric planes, count bars, incremental == scratch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tabletop_envs.games.isis_osiris import IsisOsirisState, channel_names
from tabletop_envs.games.isis_osiris.observation import CHANNEL_GROUPS, encode, layout
from tabletop_envs.games.isis_osiris.tables import REVEAL, TILE_MIX, TILE_VALUES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "isis_osiris.md"


def random_states(num_players: int, memory: bool, seed: int) -> list[IsisOsirisState]:
    """Return clones of every state of a seeded random game with both kinds of turn."""
    game = IsisOsirisState.new(seed=seed, num_players=num_players, memory=memory)
    rng = np.random.default_rng(seed)
    states = [game.clone()]
    while not game.is_terminal:
        legal = game.legal_actions()
        game.apply(REVEAL if REVEAL in legal and rng.random() < 0.4 else int(rng.choice(legal)))
        states.append(game.clone())
    return states


def bar(plane: np.ndarray) -> int:
    """Return the count a count bar encodes, checking it is a prefix of row-major squares."""
    flat = plane.reshape(-1)
    count = int(flat.sum())
    assert flat[:count].all() and not flat[count:].any(), "not a count bar"
    return count


def test_channel_names_are_declared_once_for_every_player_count() -> None:
    """The spec, the layout and the docs use the same names."""
    assert channel_names(2)[:4] == ("stones_self", "stones_next_1", "tile_m4", "tile_m3")
    assert channel_names(4)[-1] == "unseen_p4"
    for n in (2, 3, 4):
        spec = IsisOsirisState.new(seed=0, num_players=n).spec
        assert spec.observation_channels == channel_names(n) == layout(n).channels
        assert len(set(channel_names(n))) == len(channel_names(n))
    text = DOCS.read_text()
    for group, _ in CHANNEL_GROUPS:
        assert f"`{group}`" in text, f"docs/isis_osiris.md does not describe {group}"


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("memory", [False, True])
def test_incremental_planes_equal_a_fresh_encoding(num_players: int, memory: bool) -> None:
    """The planes kept step by step equal the ones built from the position."""
    for seed in range(4):
        for game in random_states(num_players, memory, seed):
            for seat in range(num_players):
                expected = encode(game, seat).reshape(6, 6, -1)
                assert np.array_equal(game.observation(seat), expected), (seed, game.steps)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_planes_are_egocentric_and_squares_exclusive(num_players: int) -> None:
    """Own stones first, then the seats after me in order; a square is in one board plane."""
    lay = layout(num_players)
    game = random_states(num_players, False, 5)[30]
    for seat in range(num_players):
        obs = game.observation(seat).reshape(36, -1)
        for rel in range(num_players):
            owner = (seat + rel) % num_players
            expected = [int(o == owner) for o in game.owner]
            assert obs[:, lay.stones + rel].tolist() == expected
            assert bar(obs[:, lay.stones_left + rel]) == game.stones_left[owner]
            assert bar(obs[:, lay.tiles_left + rel]) == len(game.stacks[owner])
        board = obs[:, : lay.empty + 1]
        assert board.sum(axis=1).tolist() == [1] * 36
        for sq, value in enumerate(game.tiles):
            if value:
                assert obs[sq, lay.tile_value + TILE_VALUES.index(value)] == 1


@pytest.mark.parametrize("memory", [False, True])
def test_unseen_counts_per_memory_mode(memory: bool) -> None:
    """For every seat: the mix minus the board tiles its observation shows face up minus the
    tile in hand. Perfect recall: that is every board tile (= the stacks + the box)."""
    lay = layout(3)
    for game in random_states(3, memory, 2)[:-1]:
        for seat in range(3):
            obs = game.observation(seat).reshape(36, -1)
            counts = [bar(obs[:, lay.unseen + k]) for k in range(8)]
            expected = dict(TILE_MIX)
            for sq, v in enumerate(game.tiles):
                if v and obs[sq, lay.tile_value + TILE_VALUES.index(v)]:
                    expected[v] -= 1
            if game.in_hand:
                expected[game.in_hand] -= 1
            assert counts == [expected[v] for v in TILE_VALUES]
            assert game.unseen_counts(seat) == {v: expected[v] for v in sorted(TILE_MIX)}
            if not memory:
                hidden = [v for s in game.stacks for v in s] + game.unused
                assert counts == [hidden.count(v) for v in TILE_VALUES]
        mover = max(game.current_player, 0)
        assert game.unseen_counts() == game.unseen_counts(mover)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_memory_mode_face_up_tiles_are_those_placed_since_the_seats_last_step(
    num_players: int,
) -> None:
    """Decision *Memory mode: every reveal is seen by every agent once*, against an independent
    book-keeping of the play: each seat's observation shows face up exactly the tiles the other
    seats placed since its own last step (none after it acts), and every tile at the end."""
    lay = layout(num_players)
    for seed in range(3):
        game = IsisOsirisState.new(seed=seed, num_players=num_players, memory=True)
        rng = np.random.default_rng(seed)
        due: list[set[int]] = [set() for _ in range(num_players)]
        while not game.is_terminal:
            seat = game.current_player
            legal = game.legal_actions()
            action = REVEAL if REVEAL in legal and rng.random() < 0.5 else int(rng.choice(legal))
            game.apply(action)
            due[seat] = set()
            if 36 <= action < REVEAL:
                for other in range(num_players):
                    if other != seat:
                        due[other].add(action - 36)
            for viewer in range(num_players):
                obs = game.observation(viewer).reshape(36, -1)
                shown = obs[:, lay.tile_value : lay.tile_value + 8]
                if game.is_terminal:
                    assert shown.sum() == sum(1 for v in game.tiles if v)
                    continue
                assert set(np.flatnonzero(shown.any(axis=1)).tolist()) == due[viewer]
                for sq in due[viewer]:
                    assert shown[sq, TILE_VALUES.index(game.tiles[sq])] == 1


def test_placing_planes_show_the_revealed_value_to_every_seat() -> None:
    """After reveal every seat sees the value in hand as a constant plane."""
    game = IsisOsirisState.new(seed=1, num_players=4)
    lay = layout(4)
    game.apply(REVEAL)
    k = TILE_VALUES.index(game.in_hand)
    for seat in range(4):
        planes = game.observation(seat)[:, :, lay.placing : lay.placing + 8]
        assert planes[:, :, k].all() and planes.sum() == 36


def test_observations_and_masks_are_fresh_arrays() -> None:
    """Writing into a returned array changes nothing in the game."""
    game = IsisOsirisState.new(seed=0)
    obs, mask = game.observation(0), game.legal_mask()
    obs[:] = 1
    mask[:] = 0
    assert not np.array_equal(game.observation(0), obs)
    assert game.legal_mask().sum() == 37
    assert game.observation(0).dtype == np.int8 and game.observation(0).shape == (6, 6, 32)
