"""The policy network of a run: an MLP, a CNN over the board planes, or the ``cells`` policy.

:func:`policy_spec` returns what ``MaskablePPO`` is built with; :func:`planes_section` and
:func:`action_values_section` find the parts of a game's flat observation the ``cells`` policy
reads. The torch modules (:mod:`tabletop_envs.training.cnn`) are imported only when chosen.
"""

from __future__ import annotations

from typing import Any

from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec
from tabletop_envs.training.ppo.config import TrainConfig, cell_footprint


def _initial_state(env_name: str, env_kwargs: dict[str, Any] | None) -> GameState:
    """Return the initial core state of ``env_name`` with these game parameters (seed 0)."""
    return env_spec(env_name).load_game().new(seed=0, **(env_kwargs or {}))


def planes_section(env_name: str, env_kwargs: dict[str, Any] | None = None) -> tuple[int, Any]:
    """Return ``(start, (H, W, C))`` of the board planes in an env's flat observation.

    A game whose observation is ``(H, W, C)`` planes gives the whole of it; a flat one (Irk)
    gives the ``table`` section of its ``layout`` (``observation_layout``).
    """
    game = _initial_state(env_name, env_kwargs)
    shape = tuple(int(x) for x in game.spec.observation_shape)
    if len(shape) == 3:
        return 0, shape
    layout = getattr(game, "layout", None)
    if layout is None or "table" not in getattr(layout, "start", {}):
        raise ValueError(
            f"{env_name}: observation {shape} has neither (H, W, C) planes nor a 'table' "
            "section in a layout; use --policy mlp"
        )
    part = layout.slice("table")
    t = int(layout.table_size)
    return int(part.start), (t, t, (part.stop - part.start) // (t * t))


def action_values_section(
    env_name: str, env_kwargs: dict[str, Any] | None = None
) -> tuple[int, int] | None:
    """Return ``(start, length)`` of the game's per-action values section, or None.

    A game names that section in ``action_values_section`` (Irk: ``"action_values"``, present
    with the game argument ``action_values=True``); None when this configuration has none.
    """
    game = _initial_state(env_name, env_kwargs)
    name = getattr(game, "action_values_section", None)
    layout = getattr(game, "layout", None)
    if name is None or layout is None or name not in layout.start:
        return None
    part = layout.slice(name)
    return int(part.start), int(part.stop - part.start)


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
