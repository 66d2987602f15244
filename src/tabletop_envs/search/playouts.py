"""Playouts: a position played to its end with cheap moves, for both searches.

A *playout* policy (:data:`PLAYOUTS`) chooses every seat's moves until the game ends:

- ``"random"``: uniformly random legal moves (cheap);
- ``"greedy"``: the game's one-ply heuristic (``greedy`` kind), a highest-scoring move with a
  seeded tie-break, exactly as :class:`~tabletop_envs.agents.greedy.GreedyAgent` plays (both
  use :class:`HeuristicChoice`);
- ``"planner"``: the same with the game's ``planner`` heuristic (Irk only so far).

UCT (:mod:`.uct`) plays one from every new node and backs up its returns; PUCT (:mod:`.puct`)
mixes one into each leaf's value with a *playout weight* in [0, 1]. A playout moves on the
search's determinization, so the heuristics read each seat's view of a redrawn position, never
the true hidden state.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from tabletop_envs.core.config import quote
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import get_heuristic

if TYPE_CHECKING:
    from tabletop_envs.envs.registry import Heuristic

#: The playout policies, by name.
PLAYOUTS = ("random", "greedy", "planner")

#: ``move(state) -> action``: a playout's move for the seat to move in ``state``.
Mover = Callable[[GameState], int]

T = TypeVar("T")


# ---- the heuristic move choice ----------------------------------------------------------------
def top_actions(actions: list[int], scores: list[float]) -> list[int]:
    """Return the actions whose score ties the highest (within 1e-9)."""
    best = max(scores)
    return [a for a, s in zip(actions, scores, strict=True) if s >= best - 1e-9]


class HeuristicChoice:
    """A game's ``kind`` heuristic as a move choice: a top-scoring legal action, seeded tie-break.

    The heuristic is looked up by the game's name on first use
    (:func:`tabletop_envs.envs.registry.get_heuristic`) and kept. A forced move (one legal
    action) is not scored and draws nothing from ``rng``; otherwise the heuristic may draw from
    ``rng`` and the tie-break draws one integer from it.
    """

    def __init__(self, kind: str = "greedy") -> None:
        self.kind = kind
        self._cache: dict[str, Heuristic] = {}

    def scores(
        self, game: GameState, seat: int, rng: np.random.Generator
    ) -> tuple[list[int], list[float] | None]:
        """Return the legal actions and their scores (None, unscored, when only one is legal)."""
        actions = game.legal_actions()  # ascending, as the mask's ids (no mask built)
        if not actions:
            raise ValueError(f"seat {seat} has no legal action (is the game over?)")
        if len(actions) == 1:
            return actions, None
        name = game.game_name
        heuristic = self._cache.get(name)
        if heuristic is None:
            heuristic = self._cache[name] = get_heuristic(name, self.kind)
        return actions, heuristic(game, seat, actions, rng)

    def top(self, game: GameState, seat: int, rng: np.random.Generator) -> tuple[list[int], bool]:
        """Return the best-scoring actions, and whether the move was forced (one legal)."""
        actions, scores = self.scores(game, seat, rng)
        if scores is None:
            return actions, True
        return top_actions(actions, scores), False

    def choose(self, game: GameState, seat: int, rng: np.random.Generator) -> int:
        """Return a best-scoring legal action of ``seat``, ties broken with ``rng``."""
        top, forced = self.top(game, seat, rng)
        if forced:
            return top[0]
        return int(top[int(rng.integers(len(top)))])


# ---- movers and playouts ----------------------------------------------------------------------
def random_mover(rnd: random.Random) -> Mover:
    """Return a mover playing uniformly random legal moves, one ``rnd.random()`` per move."""
    draw = rnd.random

    def move(state: GameState) -> int:
        legal = state.legal_actions()
        return legal[int(draw() * len(legal))]

    return move


def heuristic_mover(kind: str, rng: np.random.Generator) -> Mover:
    """Return a mover playing the ``kind`` heuristic's choice (:class:`HeuristicChoice`)."""
    choice = HeuristicChoice(kind)

    def move(state: GameState) -> int:
        return choice.choose(state, state.current_player, rng)

    return move


def play_out(state: GameState, move: Mover) -> list[float]:
    """Play ``move`` for every seat on ``state`` (changed) to the end; return its returns."""
    while not state.is_terminal:
        state.apply(move(state))
    return state.returns().tolist()


def seeded_playout(playout: str, rng: np.random.Generator) -> Callable[[GameState], list[float]]:
    """Return ``play(state) -> returns`` for ``playout``, on its own stream seeded from ``rng``.

    Draws one integer from ``rng`` (the seed of the playouts' stream).
    """
    if playout == "random":
        move = random_mover(random.Random(int(rng.integers(2**63))))
    else:
        move = heuristic_mover(playout, np.random.default_rng(int(rng.integers(2**63))))

    def play(state: GameState) -> list[float]:
        return play_out(state, move)

    return play


# ---- settings ---------------------------------------------------------------------------------
def check_playout(value: object, name: str = "playout") -> str:
    """Return ``value`` if it is one of :data:`PLAYOUTS`, else raise InvalidParameterError."""
    if value not in PLAYOUTS or not isinstance(value, str):
        raise InvalidParameterError(
            f"{name} must be one of {', '.join(PLAYOUTS)}, got {quote(value)}"
        )
    return value


def check_playout_weight(value: object, name: str = "playout_weight") -> float:
    """Return ``value`` as a float if it is a number in [0, 1], else raise InvalidParameterError."""
    if not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InvalidParameterError(f"{name} must be in [0, 1], got {quote(value)}")
    return float(value)


def renamed(
    where: str, new: str, value: T, default: T, old: str, old_value: T | None
) -> tuple[T, str]:
    """Return the value of keyword ``new`` of ``where`` and the name it was given under.

    ``old`` is the keyword's former name: given (not None), it is used with a
    DeprecationWarning pointing at the caller of ``where``; given with ``new`` too, TypeError.
    """
    if old_value is None:
        return value, new
    if value != default:
        raise TypeError(f"{where} got both {new} and its former name {old}")
    warnings.warn(
        f"{where}: {old} is deprecated, use {new} (removed in 0.3)",
        DeprecationWarning,
        stacklevel=3,
    )
    return old_value, old
