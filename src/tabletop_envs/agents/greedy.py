"""The greedy baseline: a documented one-ply heuristic per game, looked up by game name.

A heuristic scores every legal action of the seat to move from what that seat may know; the
agent plays a highest-scoring action, breaking ties uniformly with its own seeded Generator.
Heuristics live in :mod:`tabletop_envs.agents.heuristics` (one module per game, described in
``docs/agents.md``); :func:`register_heuristic` adds one for a new game.

Heuristics come in kinds: ``greedy`` (every game) and ``planner`` (Irk: greedy's margin counting
the hand tiles that will become bets), played by :class:`GreedyAgent` and :class:`PlannerAgent`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.game import GameState

#: ``heuristic(game, seat, actions, rng) -> scores``: one float per action of ``actions``.
Heuristic = Callable[[GameState, int, list[int], np.random.Generator], list[float]]

_HEURISTICS: dict[str, dict[str, str | Heuristic]] = {
    "greedy": {
        "iris": "tabletop_envs.agents.heuristics.iris:score_actions",
        "isis_osiris": "tabletop_envs.agents.heuristics.isis_osiris:score_actions",
        "irk": "tabletop_envs.agents.heuristics.irk:score_actions",
    },
    "planner": {
        "irk": "tabletop_envs.agents.heuristics.irk:plan_scores",
    },
}


def _kind_table(kind: str) -> dict[str, str | Heuristic]:
    try:
        return _HEURISTICS[kind]
    except KeyError:
        raise ValueError(
            f"unknown heuristic kind {kind!r}; kinds: {', '.join(sorted(_HEURISTICS))}"
        ) from None


def register_heuristic(game_name: str, heuristic: str | Heuristic, kind: str = "greedy") -> None:
    """Set the ``kind`` heuristic of ``game_name`` (a function or a ``"module:function"`` path)."""
    _kind_table(kind)[game_name] = heuristic


def heuristic_games(kind: str = "greedy") -> list[str]:
    """Return the game names that have a ``kind`` heuristic, sorted."""
    return sorted(_kind_table(kind))


def get_heuristic(game_name: str, kind: str = "greedy") -> Heuristic:
    """Return the ``kind`` heuristic of ``game_name``; ValueError naming the games with one."""
    try:
        entry = _kind_table(kind)[game_name]
    except KeyError:
        raise ValueError(
            f"no {kind} heuristic for game {game_name!r}; games with one: "
            f"{', '.join(heuristic_games(kind))}"
        ) from None
    if isinstance(entry, str):
        module, _, attr = entry.partition(":")
        return getattr(importlib.import_module(module), attr)
    return entry


class GreedyAgent(Agent):
    """Plays the legal action its game's one-ply heuristic scores highest (seeded tie-break)."""

    name = "greedy"
    #: which heuristic table the agent plays (see :func:`get_heuristic`)
    kind = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._cache: dict[str, Heuristic] = {}

    def reset(self, seed: int | None = None) -> None:
        """Reseed when a seed is given; otherwise continue the stream."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, game: GameState, seat: int) -> int:
        """Return a best-scoring legal action of ``seat`` under the game's heuristic."""
        top, forced = self._top(game, seat)
        if forced:
            return top[0]
        return int(top[int(self.rng.integers(len(top)))])

    def best_actions(self, game: GameState, seat: int) -> list[int]:
        """Return every legal action of ``seat`` that the heuristic scores highest."""
        return self._top(game, seat)[0]

    def action_scores(self, game: GameState, seat: int) -> tuple[list[int], list[float]]:
        """Return the legal actions of ``seat`` and their heuristic scores (0.0 if forced)."""
        actions, scores = self._scores(game, seat)
        return actions, [0.0] if scores is None else scores

    def _top(self, game: GameState, seat: int) -> tuple[list[int], bool]:
        """Return the best-scoring actions, and whether the move was forced (one legal)."""
        actions, scores = self._scores(game, seat)
        if scores is None:
            return actions, True
        return top_actions(actions, scores), False

    def _scores(self, game: GameState, seat: int) -> tuple[list[int], list[float] | None]:
        """Return the legal actions and their scores (None, unscored, when only one is legal)."""
        actions = np.flatnonzero(game.legal_mask()).tolist()
        if not actions:
            raise ValueError(f"seat {seat} has no legal action (is the game over?)")
        if len(actions) == 1:
            return actions, None
        name = game.game_name
        heuristic = self._cache.get(name)
        if heuristic is None:
            heuristic = self._cache[name] = get_heuristic(name, self.kind)
        return actions, heuristic(game, seat, actions, self.rng)


class PlannerAgent(GreedyAgent):
    """Plays the legal action its game's planner heuristic scores highest (Irk only so far)."""

    name = "planner"
    kind = "planner"


def top_actions(actions: list[int], scores: list[float]) -> list[int]:
    """Return the actions whose score ties the highest (within 1e-9)."""
    best = max(scores)
    return [a for a, s in zip(actions, scores, strict=True) if s >= best - 1e-9]
