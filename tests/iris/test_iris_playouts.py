"""Random Iris playouts on sides 3, 5 and 8, checking invariants at every step.

- colored cells are owned in opposite pairs (same owner or both empty) after every complete
  turn (Decision: "colored cells are always filled in opposite pairs");
- a colored first stone is legal whenever its cell is empty;
- the mask is the core's legality (every masked-out id raises, every masked-in id applies);
- game length <= ``spec.max_game_length``; rewards in ``spec.reward_range``, zero before the
  end; no draw on a full board (the designer's claim).

Stones are read from the public observation planes, so the test does not depend on how the
core stores its board.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.games.iris import CHANNELS, IrisState

CH = {name: k for k, name in enumerate(CHANNELS)}


def _reflect(plane: np.ndarray) -> np.ndarray:
    """Point reflection through the centre: axial (q, r) -> (-q, -r) is a flip of both axes."""
    return plane[::-1, ::-1]


def _check_pairs(state: IrisState) -> None:
    obs = state.observation(0)
    colored = obs[..., CH["colored_cell"]].astype(bool)
    forced = obs[..., CH["forced_cell"]].astype(bool)
    pending = obs[..., CH["pending_first_stone"]].astype(bool)
    for k in ("own_stones", "opponent_stones"):
        own = obs[..., CH[k]].astype(bool) & colored
        unpaired = own != _reflect(own)
        if forced.any():  # mid-turn: only the pending colored stone and its empty opposite
            assert not state.is_terminal
            allowed = pending | forced
            assert not (unpaired & ~allowed).any()
        else:
            assert not unpaired.any(), state.render_text()


def _check_colored_first_stones(state: IrisState, mask: np.ndarray) -> None:
    """At the start of a turn every empty colored cell is legal (its opposite is empty too)."""
    obs = state.observation(0)
    w = obs.shape[0]
    colored = obs[..., CH["colored_cell"]].astype(bool)
    empty = (
        obs[..., CH["on_board"]] - obs[..., CH["own_stones"]] - obs[..., CH["opponent_stones"]]
    ).astype(bool)
    cells = mask[:-1].reshape(w, w).astype(bool)
    assert (cells[colored & empty]).all()
    assert (empty & colored == _reflect(empty & colored)).all()


def _check_mask_is_legality(state: IrisState, mask: np.ndarray) -> None:
    before = state.to_json()
    obs_before = state.observation(state.current_player)
    for a in range(state.spec.num_actions):
        if mask[a]:
            state.clone().apply(a)
        else:
            try:
                state.apply(a)
            except IllegalActionError:
                continue
            raise AssertionError(f"masked-out action {a} was accepted")
    # Neither the refusals nor the moves played on clones touched the original.
    assert state.to_json() == before
    assert np.array_equal(state.legal_mask(), mask)
    assert np.array_equal(state.observation(state.current_player), obs_before)


def _check_json_round_trip(state: IrisState, mask: np.ndarray) -> None:
    copy = IrisState.from_json(state.to_json())
    assert np.array_equal(copy.legal_mask(), mask)
    for seat in (0, 1):
        assert np.array_equal(copy.observation(seat), state.observation(seat))
    assert copy.render_text() == state.render_text()


def _playout(side: int, auto_forced: bool, seed: int, pass_rate: float, check_every: int):
    """Play one random game with invariant checks; return (steps, winner, board_full)."""
    rng = np.random.default_rng(seed)
    state = IrisState.new(board_size=side, auto_forced=auto_forced, seed=seed)
    spec = state.spec
    pass_id = state.pass_action
    steps = 0
    while not state.is_terminal:
        _check_pairs(state)
        mask = state.legal_mask()
        assert mask.dtype == np.int8 and mask.shape == (spec.num_actions,)
        assert mask.any()
        if mask[pass_id] and mask.sum() > 1:  # start of a turn (not a forfeit step)
            _check_colored_first_stones(state, mask)
        if check_every and steps % check_every == 0:
            _check_mask_is_legality(state, mask)
            _check_json_round_trip(state, mask)
        legal = np.flatnonzero(mask)
        cells = legal[legal != pass_id]
        if mask[pass_id] and (len(cells) == 0 or rng.random() < pass_rate):
            action = pass_id
        else:
            action = int(cells[rng.integers(len(cells))])
        assert state.returns().tolist() == [0.0, 0.0]
        state.apply(action)
        steps += 1
        assert steps <= spec.max_game_length
    _check_pairs(state)
    assert not state.legal_mask().any()
    assert state.current_player == -1
    returns = state.returns()
    lo, hi = spec.reward_range
    assert ((lo <= returns) & (returns <= hi)).all()
    assert returns.sum() == 0
    obs = state.observation(0)
    full = bool(
        (
            obs[..., CH["own_stones"]] + obs[..., CH["opponent_stones"]] == obs[..., CH["on_board"]]
        ).all()
    )
    winner = state.result_info()["winner"]
    if full:
        assert winner is not None, (
            f"draw on a full board (designer says impossible):\n{state.render_text()}"
        )
    if winner is None:
        assert returns.tolist() == [0.0, 0.0]
    else:
        assert returns[winner] == 1.0 and returns[1 - winner] == -1.0
    return steps, winner, full


PASS_RATES = (0.0, 0.05, 0.4)
# (side, games, every how many steps the mask is checked against apply, 0 never): a few seconds.
BUDGET = [(3, 150, 1), (5, 60, 7), (8, 16, 40)]


@pytest.mark.parametrize("auto_forced", [False, True])
@pytest.mark.parametrize(("side", "games", "check_every"), BUDGET)
def test_random_playouts_keep_every_invariant(side, games, check_every, auto_forced):
    results = [
        _playout(
            side,
            auto_forced,
            7919 * side + 2 * g + auto_forced,
            PASS_RATES[g % 3],
            check_every * (g < 20),
        )
        for g in range(games)
    ]
    winners = {w for _, w, _ in results}
    assert {0, 1} <= winners  # both colors win sometimes
    assert any(full for *_, full in results)
    assert any(not full for *_, full in results)


@pytest.mark.slow
@pytest.mark.parametrize("auto_forced", [False, True])
@pytest.mark.parametrize("side", [3, 4, 5, 6, 8, 10])
def test_many_random_playouts_keep_every_invariant(side, auto_forced):
    for g in range(2000 // side):
        seed = 10**7 + 7919 * side + 2 * g + auto_forced
        _playout(side, auto_forced, seed, (g % 5) / 10, int(g < 20))


@pytest.mark.parametrize("side", [3, 4])
def test_max_game_length_bound_holds_for_a_stalling_game(side):
    """Pass whenever allowed without ending the game, and prefer stones that forfeit."""
    state = IrisState.new(board_size=side, seed=0)
    steps = 0
    while not state.is_terminal:
        legal = state.legal_actions()
        passed = state.observation(state.current_player)[0, 0, CH["opponent_passed"]]
        if state.pass_action in legal and not passed and steps > 0:
            action = state.pass_action
        elif state.pass_action in legal and len(legal) > 1:  # a stone: forfeit if possible
            cells = legal[:-1]
            forfeits = [a for a in cells if _forfeits(state, a)]
            action = (forfeits or cells)[0]
        else:
            action = legal[0]
        state.apply(action)
        steps += 1
    assert 3 * side * (side - 1) + 1 < steps <= state.spec.max_game_length


def _forfeits(state: IrisState, action: int) -> bool:
    probe = state.clone()
    probe.apply(action)
    return probe.legal_actions() == [probe.pass_action]
