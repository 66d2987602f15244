"""Greedy heuristic of Iris: grow and join scoring groups, take what the opponent wants.

Iris is perfect information, so the heuristic reads the public board. A group's *strength* is
the square of its score (colored cells in it); squaring favours one big group, as the
lexicographic scoring does. For each candidate stone the heuristic places it (with its forced
opposite when the cell is colored) and measures

``own gain + 0.5 * opponent's gain had it played there + 0.3 * own scoring groups it touches``

where a gain is the rise of the player's summed strength. Passing scores -1 (never chosen while
another action exists).
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.games.iris.rules import IrisState
from tabletop_envs.games.iris.tables import FIRST

DENIAL = 0.5  # weight of the opponent's gain on the same cells
TOUCH = 0.3  # bonus per own scoring group a stone touches (builds towards a join)
PASS = -1.0


def _labels(board: list[int], value: int, state: IrisState) -> tuple[dict[int, int], list[int]]:
    """Return ``cell -> group id`` for ``value``'s stones and each group's score."""
    t = state.tables
    neighbors = t.board.neighbors
    colored = t.colored
    label: dict[int, int] = {}
    scores: list[int] = []
    for start in t.board.cells:
        if board[start] != value or start in label:
            continue
        gid = len(scores)
        label[start] = gid
        stack = [start]
        score = 0
        while stack:
            cell = stack.pop()
            score += colored[cell]
            for nb in neighbors[cell]:
                if board[nb] == value and nb not in label:
                    label[nb] = gid
                    stack.append(nb)
        scores.append(score)
    return label, scores


def _gain(
    cells: tuple[int, ...], label: dict[int, int], scores: list[int], state: IrisState
) -> tuple[float, int]:
    """Return (strength gain, scoring groups touched) of adding ``cells`` to a player's stones."""
    t = state.tables
    neighbors = t.board.neighbors
    colored = t.colored
    comps: list[tuple[set[int], int]] = []  # (group ids, colored new cells) per merged component
    for cell in cells:
        gids = {label[nb] for nb in neighbors[cell] if nb in label}
        added = int(colored[cell])
        for other in [c for c in comps if c[0] & gids]:
            comps.remove(other)
            gids |= other[0]
            added += other[1]
        comps.append((gids, added))
    gain = 0.0
    touched = 0
    for gids, added in comps:
        old = [scores[g] for g in gids]
        gain += (sum(old) + added) ** 2 - sum(s * s for s in old)
        touched += sum(1 for s in old if s > 0)
    return gain, touched


def score_actions(
    game: IrisState, seat: int, actions: list[int], rng: np.random.Generator
) -> list[float]:
    """Score each legal action of ``seat`` (see the module docstring)."""
    t = game.tables
    board = game.board
    own_label, own_scores = _labels(board, seat + 1, game)
    opp_label, opp_scores = _labels(board, 2 - seat, game)
    out = []
    for action in actions:
        if action == t.pass_action:
            out.append(PASS)
            continue
        cells: tuple[int, ...] = (action,)
        if game.phase == FIRST and t.colored[action]:
            cells = (action, t.opposite[action])
        own, touched = _gain(cells, own_label, own_scores, game)
        opp, _ = _gain(cells, opp_label, opp_scores, game)
        out.append(own + DENIAL * opp + TOUCH * touched)
    return out
