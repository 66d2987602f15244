"""What every check stands on: a :class:`Case` (a game under one parameter set), seeded random
play, and comparisons that say where two states or envs part.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop_envs.core.game import GameState
from tabletop_envs.envs.aec import TabletopEnv
from tabletop_envs.envs.parallel import TabletopParallelEnv
from tabletop_envs.envs.registry import env_spec, make, make_parallel


@dataclass(frozen=True)
class Case:
    """One game under one parameter set, checked with ``games`` seeded games from ``seed`` on.

    ``env_name`` is the registered env (``None`` for a game class checked on its own, with
    :func:`~tabletop_envs.testing.check_game`: the env checks need a registered env).
    """

    game_class: type[GameState]
    params: Mapping[str, Any] = field(default_factory=dict)
    env_name: str | None = None
    games: int = 2
    seed: int = 0

    @classmethod
    def of(cls, env_name: str, params: Mapping[str, Any] | None = None, **depth: int) -> Case:
        """Return the case of a registered env (``depth``: ``games`` and ``seed``)."""
        game_class = env_spec(env_name).load_game()
        return cls(game_class, dict(params or {}), env_name, **depth)

    @property
    def label(self) -> str:
        """Return ``toy_v0(pile=5)``: the env (or game class) and its parameters."""
        what = self.env_name or self.game_class.__name__
        return f"{what}({', '.join(f'{k}={v!r}' for k, v in self.params.items())})"

    @property
    def seeds(self) -> range:
        """Return the seeds of the case's games."""
        return range(self.seed, self.seed + self.games)

    def new_game(self, seed: int) -> GameState:
        """Return the initial core state dealt from ``seed``."""
        return self.game_class.new(seed=seed, **self.params)

    @property
    def name(self) -> str:
        """Return the registered env's name (AssertionError for a bare game class)."""
        assert self.env_name is not None, f"{self.label}: env checks need a registered env"
        return self.env_name

    def make(self, **kwargs: Any) -> TabletopEnv:
        """Return the case's AEC env (``kwargs``: ``render_mode``, ``illegal_action``)."""
        return make(self.name, **self.params, **kwargs)

    def make_parallel(self, **kwargs: Any) -> TabletopParallelEnv:
        """Return the case's Parallel view."""
        return make_parallel(self.name, **self.params, **kwargs)


def random_action(game: GameState, rng: np.random.Generator) -> int:
    """Return a uniformly drawn legal action of ``game``."""
    legal = np.flatnonzero(game.legal_mask())
    assert len(legal), f"no legal action in a non-terminal state:\n{game.render_text()}"
    return int(legal[rng.integers(len(legal))])


def play_out(game: GameState, rng: np.random.Generator) -> int:
    """Play ``game`` to the end with random legal actions; return the number of steps."""
    limit = game.spec.max_game_length
    steps = 0
    while not game.is_terminal:
        game.apply(random_action(game, rng))
        steps += 1
        assert steps <= limit, f"game longer than max_game_length={limit}"
    return steps


def random_actions(case: Case, seed: int) -> list[int]:
    """Return the actions of one seeded random game (deal ``seed``, policy ``seed + 1000``)."""
    game = case.new_game(seed)
    rng = np.random.default_rng(seed + 1000)
    actions = []
    while not game.is_terminal:
        actions.append(random_action(game, rng))
        game.apply(actions[-1])
        assert len(actions) <= game.spec.max_game_length, "game longer than max_game_length"
    return actions


def replay(case: Case, seed: int, actions: list[int]) -> GameState:
    """Return the state reached by ``actions`` from the deal of ``seed`` (never a copy)."""
    game = case.new_game(seed)
    for action in actions:
        game.apply(action)
    return game


def random_trajectory(case: Case, seed: int) -> list[GameState]:
    """Return clones of every state of the seeded random game of :func:`random_actions`."""
    game = case.new_game(seed)
    rng = np.random.default_rng(seed + 1000)
    states = [game.clone()]
    while not game.is_terminal:
        game.apply(random_action(game, rng))
        states.append(game.clone())
        assert len(states) <= game.spec.max_game_length + 1, "game longer than max_game_length"
    return states


def mid_game_states(case: Case, seed: int) -> list[GameState]:
    """Return the states at 0, 1/3, 2/3 of a seeded random game and its last non-final state.

    Each is reached by replaying the actions on a new game, never by copying one, so it is a
    reference for the clone and JSON checks (a default ``clone`` goes through the state dict).
    """
    actions = random_actions(case, seed)
    n = len(actions)  # non-final states
    ends = sorted({0, n // 3, (2 * n) // 3, max(n - 1, 0)})
    return [replay(case, seed, actions[:k]) for k in ends]


def mid_game_env(case: Case, seed: int, steps: int, **kwargs: Any) -> Any:
    """Return an env reset with ``seed`` and played up to ``steps`` random legal steps.

    It stops early rather than play the step that would end the game: the game is never over.
    """
    env: Any = case.make(**kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        action = random_action(env.game, rng)
        probe = env.game.clone()
        probe.apply(action)
        if probe.is_terminal:
            break
        env.step(action)
    return env


def assert_same_obs(a: Mapping[str, np.ndarray], b: Mapping[str, np.ndarray], where: str) -> None:
    """Assert two env observation dicts are identical (values, shapes and dtypes)."""
    assert a.keys() == b.keys(), where
    for key in a:
        assert a[key].dtype == b[key].dtype and a[key].shape == b[key].shape, f"{where}: {key}"
        assert np.array_equal(a[key], b[key]), f"{where}: {key} differs"


def info_key(info: Mapping[str, Any], skip: tuple[str, ...] = ()) -> tuple[Any, ...]:
    """Return one agent's infos in a comparable, hashable form (an array by dtype, shape and
    bytes), without the keys in ``skip``."""
    return tuple(
        (k, (v.dtype.str, v.shape, v.tobytes()) if isinstance(v, np.ndarray) else v)
        for k, v in info.items()
        if k not in skip
    )


def info_layout(info: Mapping[str, Any]) -> dict[str, Any]:
    """Return what must not change between steps in an agent's infos: per key, the dtype and
    shape of an array, the type of anything else."""
    return {
        k: (v.dtype.str, v.shape) if isinstance(v, np.ndarray) else type(v) for k, v in info.items()
    }


def assert_same_game_view(a: GameState, b: GameState, where: str) -> None:
    """Assert two core states are equal and show every seat the same thing."""
    assert a == b, f"{where}: states differ"
    assert a.current_player == b.current_player and a.is_terminal == b.is_terminal, where
    assert np.array_equal(a.legal_mask(), b.legal_mask()), f"{where}: masks differ"
    for seat in range(a.num_players):
        assert np.array_equal(a.observation(seat), b.observation(seat)), (
            f"{where}: observation of seat {seat} differs"
        )


def play_both(
    a: GameState,
    b: GameState,
    seed: int,
    what: str,
    every_step: bool = True,
    same: Callable[[GameState, GameState, str], None] = assert_same_game_view,
) -> None:
    """Play ``a`` and ``b`` on with the same random actions, asserting they stay identical
    (what every seat sees, by default; ``same`` says what else must agree) at every step, or
    only at the end."""
    rng = np.random.default_rng(seed)
    step = 0
    while not a.is_terminal:
        if every_step:
            same(a, b, f"{what}, step {step}")
        action = random_action(a, rng)
        a.apply(action)
        b.apply(action)
        step += 1
    same(a, b, f"{what}, end")
    assert np.array_equal(a.returns(), b.returns()), f"{what}: returns differ"
    assert a.result_info() == b.result_info(), f"{what}: result_info differs"


@contextlib.contextmanager
def expect_raises(
    kind: type[BaseException] | tuple[type[BaseException], ...], what: str, match: str = ""
) -> Iterator[None]:
    """Assert the block raises ``kind`` whose message matches the regex ``match``."""
    try:
        yield
    except kind as err:
        assert re.search(match, str(err)), f"{what}: the error {err!r} does not match {match!r}"
    else:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise AssertionError(f"{what}: no {names} was raised")
