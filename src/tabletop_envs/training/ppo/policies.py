"""The policy network of a run: an MLP, a CNN over the board planes, or the ``cells`` policy.

:func:`policy_spec` returns what ``MaskablePPO`` is built with; :func:`planes_section` and
:func:`action_values_section` find the parts of a game's flat observation the ``cells`` policy
reads. The torch modules (:mod:`tabletop_envs.training.cnn`) are imported only when chosen.
"""

from __future__ import annotations

from typing import Any

from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import new_game
from tabletop_envs.training.ppo.config import TrainConfig, cell_footprint


def _initial_state(env_name: str, env_kwargs: dict[str, Any] | None) -> GameState:
    """Return the initial core state of ``env_name`` with these game parameters (seed 0)."""
    return new_game(env_name, env_kwargs or {})


def planes_section(env_name: str, env_kwargs: dict[str, Any] | None = None) -> tuple[int, Any]:
    """Return ``(start, (H, W, C))`` of the board planes in an env's flat observation.

    The game declares them (:meth:`~tabletop_envs.core.GameState.board_planes`): all of an
    ``(H, W, C)`` observation, or the board section of a flat one (Irk's table).
    """
    game = _initial_state(env_name, env_kwargs)
    planes = game.board_planes()
    if planes is None:
        raise ValueError(
            f"{env_name}: observation {game.spec.observation_shape} declares no board planes; "
            "use --policy mlp"
        )
    return planes


def action_values_section(
    env_name: str, env_kwargs: dict[str, Any] | None = None
) -> tuple[int, int] | None:
    """Return ``(start, length)`` of the game's per-action values section, or None.

    A game names that section in ``action_values_section`` (Irk: ``"action_values"``, present
    with the game argument ``action_values=True``); None when this configuration has none.
    """
    game = _initial_state(env_name, env_kwargs)
    name = game.action_values_section
    return None if name is None else game.observation_section(name)


def policy_spec(config: TrainConfig, vec_env: Any) -> tuple[Any, dict[str, Any]]:
    """Return ``(policy, policy_kwargs)`` for ``MaskablePPO`` as ``config.policy`` says.

    ``vec_env`` tells the CNN the planes' shape (its first env's ``planes_shape``).
    """
    policy_kwargs: dict[str, Any] = {"net_arch": list(config.net_arch)}
    if config.policy == "cnn":
        from tabletop_envs.training.cnn import PlanesCNN

        policy_kwargs["features_extractor_class"] = PlanesCNN
        policy_kwargs["features_extractor_kwargs"] = {
            "planes_shape": vec_env.get_attr("planes_shape", indices=[0])[0],
            "channels": config.cnn_channels,
            "layers": config.cnn_layers,
        }
    elif config.policy == "cells":
        return _cells_policy(config)
    return "MlpPolicy", policy_kwargs


def _cells_policy(config: TrainConfig) -> tuple[Any, dict[str, Any]]:
    """The ``cells`` policy: SectionsCNN features, a per-cell head, optional values mixtures."""
    from tabletop_envs.training.cnn import CellsPolicy, SectionsCNN

    table_start, table_shape = planes_section(config.env, config.env_kwargs)
    policy_kwargs: dict[str, Any] = {
        "net_arch": [],
        "features_extractor_class": SectionsCNN,
        "features_extractor_kwargs": {
            "table_start": table_start,
            "table_shape": table_shape,
            "channels": config.cnn_channels,
            "layers": config.cnn_layers,
            "global_dim": config.net_arch[0] if config.net_arch else 128,
        },
    }
    if config.footprint_head:
        policy_kwargs["footprint"] = cell_footprint(config.env)
    values = action_values_section(config.env, config.env_kwargs)
    if values is not None:
        kwargs = policy_kwargs["features_extractor_kwargs"]
        kwargs["values_start"], kwargs["values_length"] = values
        policy_kwargs["value_mixtures"] = config.value_mixtures
    return CellsPolicy, policy_kwargs
