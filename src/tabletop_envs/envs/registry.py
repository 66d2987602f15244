"""The registry: every env of the library is declared here once and created by :func:`make`."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tabletop_envs.core.game import GameState


@dataclass(frozen=True)
class EnvSpec:
    """How to build one registered env.

    ``game`` and ``image`` are ``"module:attribute"`` paths, imported on first use so that
    listing envs imports no game; ``image`` builds a state's
    :class:`~tabletop_envs.render.draw.Drawing` (the ``rgb_array`` and ``svg`` pictures).
    ``test_params`` are the parameter sets the conformance suite runs (the defaults first).
    """

    name: str
    game: str
    image: str | None = None
    description: str = ""
    test_params: tuple[dict[str, Any], ...] = field(default_factory=lambda: ({},))
    helpers: tuple[str, ...] = ()  # core methods the env offers too (e.g. action_to_coord)

    def load_game(self) -> type[GameState]:
        """Return the game's :class:`~tabletop_envs.core.GameState` subclass."""
        return _load(self.game)

    def load_image(self) -> Any:
        """Return the function describing a state's picture (a ``Drawing``)."""
        if self.image is None:
            raise ValueError(f"{self.name} has no picture (rgb_array and svg renderer)")
        return _load(self.image)


def _load(path: str) -> Any:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


_SPECS: dict[str, EnvSpec] = {}


def register(spec: EnvSpec) -> None:
    """Add an env to the registry; its name must be new."""
    if spec.name in _SPECS:
        raise ValueError(f"env {spec.name!r} is already registered")
    _SPECS[spec.name] = spec


def registered_envs() -> list[str]:
    """Return the names of all registered envs, sorted."""
    return sorted(_SPECS)


def env_spec(name: str) -> EnvSpec:
    """Return the spec of a registered env; ValueError listing the names otherwise."""
    try:
        return _SPECS[name]
    except KeyError:
        raise ValueError(
            f"unknown env {name!r}; registered envs: {', '.join(registered_envs())}"
        ) from None


def make(name: str, **kwargs: Any) -> Any:
    """Create a registered env: ``make("iris_v0", board_size=7, render_mode="ansi")``.

    Keyword arguments are the game's parameters plus ``render_mode`` and ``illegal_action``
    (``"penalize"`` by default, as PettingZoo classic's ``env()``; ``"raise"`` for ``raw_env()``).
    """
    from tabletop_envs.envs.aec import TabletopEnv

    return TabletopEnv(env_spec(name), **kwargs)


def make_parallel(name: str, **kwargs: Any) -> Any:
    """Create the PettingZoo Parallel view of a registered env (same keywords as :func:`make`).

    Each step plays every acting agent at once: the mover of a turn-based position, every seat
    of a simultaneous round (Irk's choose phase); see ``docs/conventions.md``.
    """
    from tabletop_envs.envs.parallel import TabletopParallelEnv

    return TabletopParallelEnv(env_spec(name), **kwargs)


register(
    EnvSpec(
        name="iris_v0",
        game="tabletop_envs.games.iris.rules:IrisState",
        image="tabletop_envs.games.iris.image:drawing",
        description="Iris: hexhex connection game, 2 players",
        test_params=({}, {"board_size": 8}, {"board_size": 3, "auto_forced": True}),
        helpers=("action_to_coord", "coord_to_action", "pass_action"),
    )
)

register(
    EnvSpec(
        name="isis_osiris_v0",
        game="tabletop_envs.games.isis_osiris.rules:IsisOsirisState",
        image="tabletop_envs.games.isis_osiris.image:drawing",
        description="Isis & Osiris: stones and hidden-value tiles on a 6x6 board, 2-4 players",
        test_params=(
            {},
            {"num_players": 3},
            {"num_players": 4, "memory": True},
            {"num_players": 2, "memory": True, "reward": "score"},
            {"num_players": 4, "reward": "score"},
        ),
        helpers=(
            "square_to_coord",
            "coord_to_square",
            "stone_action",
            "tile_action",
            "reveal_action",
            "action_to_coord",
        ),
    )
)

register(
    EnvSpec(
        name="irk_v0",
        game="tabletop_envs.games.irk.rules:IrkState",
        image="tabletop_envs.games.irk.image:drawing",
        description="Irk: secret simultaneous choices, tile stacking and majorities, 2-4 players",
        test_params=(
            {},
            {"num_players": 3},
            {"num_players": 4, "reward": "score"},
            {"num_players": 2, "table_size": 9},
            {"num_players": 3, "group_planes": True},
            {"num_players": 2, "table_size": 9, "action_values": True},
        ),
        helpers=(
            "action_to_tile",
            "tile_to_action",
            "action_to_placement",
            "placement_to_action",
            "score",
        ),
    )
)
