"""What a search asks of a network: the :class:`Evaluator` interface and the input encoding.

An evaluator reads a batch of positions, each as one seat's observation flattened
(:func:`encode`, :func:`encode_batch`) with the legal mask of that seat, and returns a prior over
the actions and a value in [-1, 1] for the seat whose observation each row is. A
:class:`~tabletop_envs.search.network.PolicyValueNet` is one; so is any function alike (a torch
model during training, a uniform prior in tests). :func:`evaluate_checked` is how the searches
call one: once per batch, its output checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from tabletop_envs.core.game import GameState


class Evaluator(Protocol):
    """``evaluate(obs (L, D) float32, mask (L, A) bool) -> (priors (L, A), values (L,))``.

    ``priors[i]`` is a distribution over the legal actions of row ``i`` (zero elsewhere);
    ``values[i]`` the value of row ``i``'s position for the seat whose observation it is, in
    [-1, 1] (values outside are clipped by the search).
    """

    def __call__(self, obs: np.ndarray, mask: np.ndarray, /) -> tuple[np.ndarray, np.ndarray]:
        """Return the priors and values of a batch of positions."""
        ...


def encode(game: GameState, seat: int) -> np.ndarray:
    """Return the network input of ``seat``: ``game.observation(seat)`` flattened, float32."""
    return np.asarray(game.observation(seat), dtype=np.float32).reshape(-1)


def encode_batch(games: Sequence[GameState], seats: Sequence[int]) -> np.ndarray:
    """Return the inputs of ``seats[i]`` in ``games[i]`` stacked: (len(games), D) float32."""
    if not games:
        raise ValueError("encode_batch needs at least one game")
    if len(games) != len(seats):
        raise ValueError(f"encode_batch got {len(games)} games and {len(seats)} seats")
    first = games[0].observation(seats[0])
    obs = np.empty((len(games), first.size), dtype=np.float32)
    obs[0] = first.reshape(-1)
    for i in range(1, len(games)):  # converted row by row: no stacked int copy (~1.6x faster)
        row = games[i].observation(seats[i])
        if row.shape != first.shape:
            raise ValueError(
                f"encode_batch: game {i}'s observation is {row.shape}, game 0's {first.shape}"
            )
        obs[i] = row.reshape(-1)
    return obs


def uniform_evaluator(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An evaluator that knows nothing: a uniform prior over each row's legal actions, value 0.

    What a search is without its network (``network=off`` of the ``az`` and ``expert`` agents):
    the same search, simulations and playouts, with nothing learnt.
    """
    legal = np.asarray(mask, dtype=np.float64)
    total = legal.sum(axis=1, keepdims=True)
    total[total == 0.0] = 1.0
    return legal / total, np.zeros(len(legal))


def evaluate_checked(
    evaluate: Evaluator, obs: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, list[float]]:
    """Call ``evaluate`` once; return its priors (float64 array) and values (a list), checked.

    ValueError when the shapes are not ``mask.shape`` and ``(len(mask),)``; values are clipped
    to [-1, 1].
    """
    priors, values = evaluate(obs, mask)
    priors = np.asarray(priors, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if priors.shape != mask.shape or values.shape != (len(mask),):
        raise ValueError(
            f"evaluate returned priors {priors.shape} and values {values.shape}; expected "
            f"{mask.shape} and ({len(mask)},)"
        )
    return priors, np.clip(values, -1.0, 1.0).tolist()
