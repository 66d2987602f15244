"""Self-play: games played in lockstep with one batched PUCT search per move, as training rows.

A row is one searched position: the mover's encoded observation, its legal mask, the policy
target (the root's visit distribution, or a Gumbel root's improved policy) and, once the game
is over, the value target of the mover's seat (:func:`value_targets`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.game import GameState
from tabletop_envs.search.evaluator import encode_batch
from tabletop_envs.search.gumbel import gumbel_search
from tabletop_envs.search.puct import run_puct
from tabletop_envs.search.values import value_targets
from tabletop_envs.training.az.config import AZConfig

#: One row before its game ends: observation, legal mask, policy target and the mover's seat.
Row = tuple[np.ndarray, np.ndarray, np.ndarray, int]


def auto_dirichlet_alpha(
    game_class: type[GameState], params: Any, games: int = 8, seed: int = 0
) -> float:
    """Return ``10 / mean legal moves`` over random playouts, clipped to [0.03, 1].

    AlphaZero's alphas (0.3 for chess, 0.03 for Go) are about 10 over the typical number of
    legal moves, so the noise spreads over a similar share of the moves in every game.
    """
    rng = np.random.default_rng(seed)
    counts = []
    for _ in range(games):
        game = game_class(params, int(rng.integers(2**63)))
        while not game.is_terminal:
            legal = np.flatnonzero(game.legal_mask())
            counts.append(len(legal))
            game.apply(int(legal[rng.integers(len(legal))]))
    return float(np.clip(10.0 / max(float(np.mean(counts)), 1.0), 0.03, 1.0))


@dataclass
class SelfPlayBatch:
    """Training rows from one round of lockstep self-play games, with how they were made."""

    obs: np.ndarray  # (N, D) float32
    mask: np.ndarray  # (N, A) bool
    pi: np.ndarray  # (N, A) float32, the policy target (visits, or the improved policy)
    z: np.ndarray  # (N,) float32, the value target of the row's seat
    games: int
    moves: int  # moves played (= rows)
    searches: int  # positions searched (rows with more than one legal action)
    seconds: float  # wall clock
    cpu_seconds: float  # this process's CPU time (the honest figure on a shared machine)
    mean_length: float
    results: list[list[float]]  # the games' returns


def make_batch(
    games: Sequence[GameState],
    rows: Sequence[Sequence[Row]],
    lengths: Sequence[int],
    clocks: tuple[float, float],
    *,
    value_target: str,
    score_scale: float,
    searches: int = 0,
) -> SelfPlayBatch:
    """Return the finished ``games``' rows, with their seats' value targets, as a batch.

    ``clocks`` are the ``time.perf_counter()`` and ``time.process_time()`` of the start.
    """
    out_obs, out_mask, out_pi, out_z = [], [], [], []
    for game, game_rows in zip(games, rows, strict=True):
        z = value_targets(game, value_target, score_scale)
        for o, m, p, seat in game_rows:
            out_obs.append(o)
            out_mask.append(m)
            out_pi.append(p)
            out_z.append(z[seat])
    return SelfPlayBatch(
        obs=np.stack(out_obs),
        mask=np.stack(out_mask),
        pi=np.stack(out_pi),
        z=np.asarray(out_z, dtype=np.float32),
        games=len(games),
        moves=len(out_z),
        searches=searches,
        seconds=time.perf_counter() - clocks[0],
        cpu_seconds=time.process_time() - clocks[1],
        mean_length=float(np.mean(lengths)),
        results=[[float(r) for r in g.returns()] for g in games],
    )


def self_play(
    evaluate: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    game_class: type[GameState],
    params: Any,
    config: AZConfig,
    rng: np.random.Generator,
    dirichlet_alpha: float,
    on_move: Callable[[int, int], None] | None = None,
    opponent: Agent | None = None,
    opponent_games: int = 0,
) -> SelfPlayBatch:
    """Play ``config.games`` games in lockstep with PUCT and return their training rows.

    At every step one :func:`run_puct` call searches the positions of all unfinished games (a
    position with one legal action is played without search), so the network runs once per
    simulation round on all their leaves. ``on_move(step, active_games)`` hears each step.

    With an ``opponent``, the first ``opponent_games`` games seat it in one seat (game ``i``:
    seat ``i % players``, so every seat takes its turn); it plays there with its own ``act``,
    and only the searching seats' positions become rows. The value targets of those rows are
    the results against that opponent.
    """
    clocks = time.perf_counter(), time.process_time()
    games = [game_class(params, int(rng.integers(2**63))) for _ in range(config.games)]
    n_players = games[0].num_players
    fixed = [i % n_players if opponent and i < opponent_games else -1 for i in range(len(games))]
    if opponent is not None:
        opponent.reset(int(rng.integers(2**63)))
    rows: list[list[Row]] = [[] for _ in games]
    plies = [0] * len(games)
    active = list(range(len(games)))
    searches = step = 0
    while active:
        if on_move is not None:
            on_move(step, len(active))
        if opponent is not None:  # the opponent's moves first, then search the rest
            active = _opponent_moves(games, active, fixed, opponent, plies)
            if not active:
                break
        roots = [games[i] for i in active]
        seats = [g.current_player for g in roots]
        obs = encode_batch(roots, seats)
        masks = np.stack([g.legal_mask() for g in roots]).astype(bool)
        found, moves, searched = _search(
            roots, seats, masks, evaluate, config, rng, dirichlet_alpha
        )
        searches += searched
        for j, i in enumerate(active):
            if moves is None:
                action, target = _choose(found[j], masks[j], plies[i], config, rng)
            else:  # a Gumbel root chose the move, and its improved policy is the target
                action, target = moves[j], found[j].astype(np.float32)
            rows[i].append((obs[j], masks[j], target, seats[j]))
            games[i].apply(action)
            plies[i] += 1
        active = [i for i in active if not games[i].is_terminal]
        step += 1
    return make_batch(
        games,
        rows,
        plies,
        clocks,
        value_target=config.value_target,
        score_scale=config.score_scale,
        searches=searches,
    )


def _opponent_moves(
    games: list[GameState], active: list[int], fixed: list[int], opponent: Agent, plies: list[int]
) -> list[int]:
    """Play the opponent's moves in the ``active`` games; return the games still going."""
    for i in active:
        while not games[i].is_terminal and games[i].current_player == fixed[i]:
            games[i].apply(opponent.act(games[i], fixed[i]))
            plies[i] += 1
    return [i for i in active if not games[i].is_terminal]


def _search(
    roots: list[GameState],
    seats: list[int],
    masks: np.ndarray,
    evaluate: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    config: AZConfig,
    rng: np.random.Generator,
    dirichlet_alpha: float,
) -> tuple[np.ndarray, list[int] | None, int]:
    """Search every position (one call); return its targets, moves and how many searched.

    With ``config.root`` ``"puct"``: the root visit counts, no moves (:func:`_choose` picks
    them). With ``"gumbel"``: the improved policies and the moves the Gumbel root chose. A
    position with a single legal action is not searched: its one visit is that action.
    """
    found = np.zeros(masks.shape, dtype=np.float64)
    searched = [j for j in range(len(roots)) if masks[j].sum() > 1]
    forced = [j for j in range(len(roots)) if masks[j].sum() == 1]
    found[forced] = masks[forced]
    moves: list[int] | None = None
    if config.root == "gumbel":
        moves = [int(np.flatnonzero(masks[j])[0]) for j in range(len(roots))]
    if searched:
        sub_roots = [roots[j] for j in searched]
        sub_seats = [seats[j] for j in searched]
        common: dict[str, Any] = {
            "c_puct": config.c_puct,
            "playout_weight": config.playout_weight,
            "playout": config.playout,
            "value_target": config.value_target,
            "score_scale": config.score_scale,
        }
        if moves is None:
            found[searched] = run_puct(
                sub_roots,
                sub_seats,
                evaluate,
                config.simulations,
                rng,
                dirichlet_alpha=dirichlet_alpha,
                dirichlet_fraction=config.dirichlet_fraction,
                **common,
            )
        else:
            result = gumbel_search(
                sub_roots,
                sub_seats,
                evaluate,
                config.simulations,
                rng,
                considered=config.considered,
                **common,
            )
            found[searched] = result.policies
            for j, action in zip(searched, result.actions, strict=True):
                moves[j] = action
    return found, moves, len(searched)


def _choose(
    counts: np.ndarray, mask: np.ndarray, ply: int, config: AZConfig, rng: np.random.Generator
) -> tuple[int, np.ndarray]:
    """Return the move to play after a search and the row's policy target (float32).

    The move is sampled from the visits for the game's first ``temperature_moves`` plies,
    then the most visited (ties at random); the target is the visits to the power
    ``1 / target_temperature``, normalized.
    """
    visits = counts * mask
    if visits.sum() <= 0:  # no visit reached a legal action: uniform over the legal
        visits = mask.astype(np.float64)
    pi = visits / visits.sum()
    if ply < config.temperature_moves:
        action = int(rng.choice(len(pi), p=pi))
    else:
        best = np.flatnonzero(visits == visits.max())
        action = int(best[rng.integers(len(best))])
    target = pi
    if config.target_temperature != 1.0:  # sharpen (T < 1) or flatten the target
        target = visits ** (1.0 / config.target_temperature)
        target = target / target.sum()
    return action, target.astype(np.float32)
