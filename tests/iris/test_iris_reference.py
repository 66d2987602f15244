"""The core against the independent reference (tests/iris/reference.py) along random games.

At every step both must offer the same legal moves (cells as axial coordinates, plus pass)
and agree on whose turn it is and whether the game is over; at the end they must agree on the
group-score lists and the winner.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.games.iris import IrisState
from tests.iris.boards import legal_moves
from tests.iris.reference import PASS, RefIris


def _play_both(side: int, auto_forced: bool, seed: int, pass_rate: float) -> tuple[int, int, bool]:
    """Play a random game on both, comparing at every step; return (steps, forfeits, full)."""
    rng = np.random.default_rng(seed)
    core = IrisState.new(board_size=side, auto_forced=auto_forced, seed=seed)
    ref = RefIris(side=side, auto_forced=auto_forced)
    steps = 0
    while True:
        legal = legal_moves(core)
        assert legal == ref.legal(), (side, seed, steps, core.render_text())
        assert core.is_terminal == ref.over
        if ref.over:
            break
        assert core.current_player == ref.to_move
        if PASS in legal and len(legal) > 1 and rng.random() < pass_rate:
            move = PASS
        else:
            options = sorted(legal - {PASS}, key=str) or [PASS]  # pass: forfeit, or by pass_rate
            move = options[rng.integers(len(options))]
        core.apply(core.pass_action if move == PASS else core.coord_to_action(*move))
        ref.play(move)
        steps += 1
    black, white = ref.group_scores()
    info = core.result_info()
    assert info["group_scores"] == [black, white], (side, seed)
    assert info["winner"] == ref.winner(), (side, seed)
    return steps, ref.forfeits, not ref.empty()


# (side, games): a few hundred games in all, both auto_forced settings, several pass rates.
BUDGET = [(3, 60), (4, 40), (5, 30), (6, 16), (7, 10)]
PASS_RATES = (0.0, 0.02, 0.3)


@pytest.mark.parametrize("auto_forced", [False, True])
@pytest.mark.parametrize(("side", "games"), BUDGET)
def test_core_matches_reference_along_random_games(side, games, auto_forced):
    forfeits = full = 0
    for g in range(games):
        seed = 1000 * side + 2 * g + auto_forced
        _, f, is_full = _play_both(side, auto_forced, seed, PASS_RATES[g % len(PASS_RATES)])
        forfeits += f
        full += is_full
    # The sample reaches full boards, double-pass endings and (on small boards) forfeits.
    assert 0 < full < games
    if side <= 4:
        assert forfeits > 0


@pytest.mark.slow
@pytest.mark.parametrize("auto_forced", [False, True])
@pytest.mark.parametrize("side", range(3, 11))
def test_core_matches_reference_along_many_random_games(side, auto_forced):
    for g in range(300):
        _play_both(side, auto_forced, 10**6 + 1000 * side + 2 * g + auto_forced, (g % 7) / 20)


def test_reference_agrees_on_a_forfeit_and_a_double_pass():
    """Pin the two rarest transitions so the random comparison is known to reach them."""
    core = IrisState.new(board_size=3)
    ref = RefIris(side=3)
    moves = [(0, 0), (1, -1), (-1, 0), (-1, 1), (0, -1), (1, 0)]  # gray left: (0, 1) only
    for move in moves:
        assert legal_moves(core) == ref.legal(), move
        core.apply(core.pass_action if move == PASS else core.coord_to_action(*move))
        ref.play(move)
    assert legal_moves(core) == ref.legal() == {PASS}  # (0, 1) touches (1, 0): forfeit
    for move in [PASS, PASS, PASS]:  # forfeit, Black passes, White passes
        core.apply(core.pass_action)
        ref.play(move)
        assert legal_moves(core) == ref.legal()
    assert core.is_terminal and ref.over
    assert core.result_info()["winner"] == ref.winner()
