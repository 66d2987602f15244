"""The registry: every env of the library, collected from what each game declares.

Each package under :mod:`tabletop_envs.games` declares its :class:`EnvSpec` as ``SPEC`` in its
``__init__.py``; the registry finds them at import, so a new built-in game is one folder. A
game of your own is one :func:`register` call. The registry also answers what a game knows
about itself (heuristics, move syntax, score key), looked up by the core game name.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import gymnasium

import tabletop_envs.games
from tabletop_envs.core.config import quote
from tabletop_envs.core.game import GameState
from tabletop_envs.core.params import make_params
from tabletop_envs.core.registration import EnvSpec, MoveSyntax, load
from tabletop_envs.envs.aec import TabletopEnv
from tabletop_envs.envs.parallel import TabletopParallelEnv

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    from tabletop_envs.core.game import GameState

    #: ``heuristic(game, seat, actions, rng) -> scores``: one float per action of ``actions``.
    Heuristic = Callable[[GameState, int, list[int], np.random.Generator], list[float]]

__all__ = [
    "EnvSpec",
    "MoveSyntax",
    "env_spec",
    "game_spec",
    "get_heuristic",
    "heuristic_games",
    "make",
    "make_parallel",
    "new_game",
    "register",
    "register_heuristic",
    "registered_env",
    "registered_envs",
    "unregister",
]

#: Where the Gymnasium ids of the single-agent view point (imported only by ``gymnasium.make``).
GYM_ENTRY_POINT = "tabletop_envs.agents.single_agent:make_single_agent_env"

_SPECS: dict[str, EnvSpec] = {}
_BY_GAME: dict[str, EnvSpec] = {}  # core game name -> the first spec playing it, once loaded
_HEURISTICS: dict[str, dict[str, Any]] = {}  # kind -> game name -> registered heuristic


def register(spec: EnvSpec) -> None:
    """Add an env to the registry (and its Gymnasium id, if any); its name must be new."""
    if not isinstance(spec, EnvSpec):
        raise TypeError(f"register takes an EnvSpec, got {type(spec).__name__}")
    if spec.name in _SPECS:
        raise ValueError(f"env {spec.name!r} is already registered")
    _SPECS[spec.name] = spec
    _BY_GAME.clear()
    if spec.gym_id is not None and spec.gym_id not in gymnasium.registry:
        gymnasium.register(
            id=spec.gym_id, entry_point=GYM_ENTRY_POINT, kwargs={"env_name": spec.name}
        )


def unregister(name: str) -> EnvSpec:
    """Remove a registered env (and its Gymnasium id); return its spec. ValueError if unknown.

    For tests and notebooks that register a game of their own and want the registry back as it
    was; a name can then be registered again.
    """
    spec = env_spec(name)
    del _SPECS[name]
    _BY_GAME.clear()
    gym = gymnasium.registry.get(spec.gym_id) if spec.gym_id is not None else None
    if gym is not None and gym.kwargs.get("env_name") == name:
        del gymnasium.registry[gym.id]
    return spec


def registered_envs() -> list[str]:
    """Return the names of all registered envs, sorted."""
    return sorted(_SPECS)


def registered_env(name: str) -> str | None:
    """Problem text unless ``name`` is a registered env (a config field's ``check``; looked up
    when checked, so envs users register count)."""
    if name in _SPECS:
        return None
    return f"must be a registered env ({', '.join(registered_envs())})"


def env_spec(name: str) -> EnvSpec:
    """Return the spec of a registered env; ValueError listing the names otherwise."""
    try:
        return _SPECS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown env {quote(name)}; registered envs: {', '.join(registered_envs())}"
        ) from None


def gym_ids() -> dict[str, str]:
    """Return every registered Gymnasium id with the env it views."""
    return {s.gym_id: s.name for s in _SPECS.values() if s.gym_id is not None}


def make(name: str, **kwargs: Any) -> TabletopEnv:
    """Create a registered env: ``make("iris_v0", board_size=7, render_mode="ansi")``.

    Keyword arguments are the game's parameters plus ``render_mode`` and ``illegal_action``
    (``"penalize"`` by default, as PettingZoo classic's ``env()``; ``"raise"`` for ``raw_env()``).
    """
    return TabletopEnv(env_spec(name), **kwargs)


def new_game(name: str, params: Mapping[str, Any], seed: int = 0) -> GameState:
    """Return the first position of a game of env ``name`` with the game parameters ``params``.

    ValueError for an unknown env; InvalidParameterError for a parameter the game does not have
    (:func:`~tabletop_envs.core.params.make_params`'s wording, naming those it has) or refuses.
    """
    game_class = env_spec(name).load_game()
    return game_class(make_params(game_class.params_class, name, params), seed)


def make_parallel(name: str, **kwargs: Any) -> TabletopParallelEnv:
    """Create the PettingZoo Parallel view of a registered env (same keywords as :func:`make`).

    Each step plays every acting agent at once: the mover of a turn-based position, every seat
    of a simultaneous round (Irk's choose phase); see ``docs/conventions.md``.
    """
    return TabletopParallelEnv(env_spec(name), **kwargs)


# ---- what a game knows about itself, by core game name ---------------------------------------
def game_spec(game_name: str) -> EnvSpec | None:
    """Return the first registered spec whose game is ``game_name`` (None if none is)."""
    if not _BY_GAME:
        for spec in _SPECS.values():
            _BY_GAME.setdefault(spec.load_game().game_name, spec)
    return _BY_GAME.get(game_name)


def register_heuristic(game_name: str, heuristic: str | Heuristic, kind: str = "greedy") -> None:
    """Set the ``kind`` heuristic of ``game_name`` (a function or a ``"module:function"`` path).

    This overrides what the game's spec declares; a new kind is allowed.
    """
    _HEURISTICS.setdefault(kind, {})[game_name] = heuristic


def _declared(kind: str) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for spec in _SPECS.values():
        if kind in spec.heuristics:
            table.setdefault(spec.load_game().game_name, spec.heuristics[kind])
    table.update(_HEURISTICS.get(kind, {}))
    return table


def heuristic_kinds() -> list[str]:
    """Return the heuristic kinds some game declares or registers, sorted."""
    kinds = {k for s in _SPECS.values() for k in s.heuristics} | set(_HEURISTICS)
    return sorted(kinds)


def heuristic_games(kind: str = "greedy") -> list[str]:
    """Return the game names that have a ``kind`` heuristic, sorted."""
    _check_kind(kind)
    return sorted(_declared(kind))


def _check_kind(kind: str) -> None:
    if kind not in heuristic_kinds():
        raise ValueError(f"unknown heuristic kind {kind!r}; kinds: {', '.join(heuristic_kinds())}")


def get_heuristic(game_name: str, kind: str = "greedy") -> Heuristic:
    """Return the ``kind`` heuristic of ``game_name``; ValueError naming the games with one."""
    _check_kind(kind)
    table = _declared(kind)
    try:
        entry = table[game_name]
    except KeyError:
        raise ValueError(
            f"no {kind} heuristic for game {game_name!r}; games with one: "
            f"{', '.join(sorted(table))}"
        ) from None
    return load(entry) if isinstance(entry, str) else entry


def move_syntax(game_name: str) -> MoveSyntax | None:
    """Return how a person types ``game_name``'s moves (None when it declares nothing)."""
    spec = game_spec(game_name)
    return None if spec is None else spec.load_moves()


def score_key(game_name: str) -> str | None:
    """Return the ``result_info()`` key of ``game_name``'s per-seat scores, or None."""
    spec = game_spec(game_name)
    return None if spec is None else spec.score_key


def _register_builtin_games() -> None:
    """Register the ``SPEC`` of every package under :mod:`tabletop_envs.games`."""
    for info in sorted(pkgutil.iter_modules(tabletop_envs.games.__path__), key=lambda i: i.name):
        if info.ispkg:
            spec = importlib.import_module(f"tabletop_envs.games.{info.name}").SPEC
            register(spec)


_register_builtin_games()
