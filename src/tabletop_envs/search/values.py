"""What a search backs up: one value per seat, on the scale the network learnt.

A PUCT search backs up a value per seat from three sources: finished games, playouts and the
network. All three must be on one scale, or one of them outweighs the others by construction
(issue 21, defect 3). :class:`ValueScale` is that scale: a network file's ``"value_target"``
(``"result"`` or ``"score"``) and ``"score_scale"`` (:func:`value_targets`, what training
fits the network to), or, for a file that records neither, the game's returns scaled from its
reward range to [-1, 1] (what the searches backed up before files recorded their target).

:func:`value_vector` spreads a network's value for the seat to move to every seat.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tabletop_envs.core.config import quote
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import score_key

# the value targets a network can be trained on (and a search can back up), by name: the ones
# a network file may record
from tabletop_envs.search.network_file import VALUE_TARGETS as VALUE_TARGETS

#: ``score_scale`` of :func:`value_targets` unless told otherwise.
DEFAULT_SCORE_SCALE = 10.0


def value_targets(
    game: GameState, mode: str = "result", score_scale: float = DEFAULT_SCORE_SCALE
) -> np.ndarray:
    """Return each seat's value target (float32, in [-1, 1]) at the end of ``game``.

    ``"result"``: +1 for the sole highest return, 0 for a shared highest, -1 otherwise (the
    arena's rule, so a 2-player game's win/draw/loss). ``"score"``: ``tanh(margin /
    score_scale)`` with ``margin`` the seat's final score minus the best other seat's (games
    whose spec names a ``score_key``).
    """
    if not game.is_terminal:
        raise ValueError("value targets exist only once the game is over")
    n = game.num_players
    if mode == "score":
        key = score_key(game.game_name)
        if key is None:
            raise ValueError(f"{game.game_name} has no final scores; use the 'result' target")
        scores = [float(x) for x in game.result_info()[key]]
        best_other = [max(scores[:s] + scores[s + 1 :]) for s in range(n)]  # 2-4 seats: no numpy
        margins = np.subtract(scores, best_other)
        return np.tanh(margins / score_scale).astype(np.float32)
    if mode != "result":
        raise ValueError(f"mode must be one of {', '.join(VALUE_TARGETS)}, got {mode!r}")
    returns = game.returns()
    top = returns.max()
    winners = returns >= top - 1e-12
    z = np.where(winners, 1.0 if winners.sum() == 1 else 0.0, -1.0)
    return z.astype(np.float32)


@dataclass(frozen=True)
class ValueScale:
    """How a finished game is valued per seat: a value target, or the scaled returns.

    ``target`` None (a network file that records no ``"value_target"``): ``returns()`` scaled
    from the reward range (``low``, ``span``) to [-1, 1]. ``target`` ``"result"`` or
    ``"score"``: :func:`value_targets` with ``score_scale``.
    """

    low: float
    span: float
    players: int
    target: str | None = None
    score_scale: float = DEFAULT_SCORE_SCALE

    @classmethod
    def of(
        cls, game: GameState, target: str | None = None, score_scale: float = DEFAULT_SCORE_SCALE
    ) -> ValueScale:
        """Return the scale of ``game``'s searches with this value target."""
        low, high = game.spec.reward_range
        span = max(float(high) - float(low), 1e-12)
        return cls(float(low), span, game.num_players, target, float(score_scale))

    def values(self, returns: Sequence[float]) -> list[float]:
        """Return ``returns`` scaled from the reward range to [-1, 1]."""
        low, span = self.low, self.span
        return [2.0 * (r - low) / span - 1.0 for r in returns]

    def final(self, game: GameState) -> list[float]:
        """Return each seat's value of the finished ``game`` on this scale."""
        if self.target is None:
            return self.values(game.returns().tolist())
        return [float(z) for z in value_targets(game, self.target, self.score_scale)]


def value_vector(value: float, mover: int, num_players: int) -> list[float]:
    """Spread a network value for ``mover`` to every seat: ``value`` to it, the rest shared.

    Two seats: the other gets ``-value``. More: the targets are not zero-sum (a sole winner
    +1, every other seat -1, so they sum to ``2 - n``), and each other seat gets
    ``(2 - n - value) / (n - 1)``: an uninformed network that outputs the mean target
    ``(2 - n) / n`` gives that same mean to every seat, and moving again scores a seat as much
    as handing the move on (issue 21, defect 1; ``-value / (n - 1)`` did not). Score targets
    (``tanh`` of margins) keep no constant sum at 3-4 players; they are spread alike.
    """
    if num_players == 1:
        return [value]
    n = num_players
    other = -value if n == 2 else (2.0 - n - value) / (n - 1)
    vec = [other] * num_players
    vec[mover] = value
    return vec


def check_value_target(value: object, name: str = "value_target") -> str | None:
    """Return ``value`` if it is None or one of :data:`VALUE_TARGETS`, else ValueError."""
    if value is not None and (not isinstance(value, str) or value not in VALUE_TARGETS):
        raise InvalidParameterError(
            f"{name} must be None or one of {', '.join(VALUE_TARGETS)}, got {value!r}"
        )
    return value


def check_score_scale(value: object) -> float:
    """Return ``value`` as a float if it is a finite number > 0, else InvalidParameterError."""
    return check_positive(value, "score_scale")


def check_positive(value: object, name: str) -> float:
    """Return ``value`` as a float if it is a finite number > 0, else InvalidParameterError
    naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise InvalidParameterError(f"{name} must be a finite number > 0, got {quote(value)}")
    return float(value)
