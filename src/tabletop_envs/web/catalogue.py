"""What the page's form offers: every registered env, its parameters and its default seats.

The parameters are read off each game's parameter dataclass (name, type and default); the
game checks the values itself when a game is made (:func:`game_params`), so the form never
repeats a rule: a value out of range comes back as the game's own error message.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from tabletop_envs.agents.registry import agent_names, expert_envs, expert_plays
from tabletop_envs.core.config import cut
from tabletop_envs.core.game import GameState
from tabletop_envs.core.params import make_params
from tabletop_envs.envs.registry import env_spec, heuristic_games, move_syntax, registered_envs

#: The seat kind of a person at the page (every other seat is an agent spec).
HUMAN = "human"


def param_fields(env_name: str) -> list[dict[str, Any]]:
    """Return the env's parameters as form fields: name, kind and default.

    ``kind`` is ``"int"``, ``"float"``, ``"bool"``, ``"str"`` or ``"list"`` (a tuple of
    strings, e.g. Irk's deck: one item per line).
    """
    params_class = env_spec(env_name).load_game().params_class
    hints = typing.get_type_hints(params_class)
    fields = []
    for f in dataclasses.fields(params_class):
        kind = hints[f.name]
        name = {int: "int", float: "float", bool: "bool", str: "str"}.get(kind, "list")
        if f.default is not dataclasses.MISSING:
            default: Any = f.default
        else:
            assert f.default_factory is not dataclasses.MISSING, f"{f.name} has no default"
            default = f.default_factory()
        fields.append({"name": f.name, "kind": name, "default": _plain(default)})
    return fields


def game_params(env_name: str, params: Any) -> Any:
    """Return the env's parameter dataclass built from a JSON object of ``params``.

    ValueError (the game's own message) for a value it refuses, an unknown name or a wrong type.
    """
    game_class = env_spec(env_name).load_game()
    names = [f.name for f in dataclasses.fields(game_class.params_class)]
    if not isinstance(params, dict):
        raise ValueError(f"params is a JSON object of {env_name}'s parameters {names}")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in params.items()}
    if any(k not in names for k in values):
        make_params(game_class.params_class, env_name, values)  # the one wording of an unknown
    try:
        return game_class.params_class(**values)
    except (TypeError, ValueError, ArithmeticError) as err:
        raise ValueError(f"{env_name}: {cut(str(err), 300)}") from None


def probe_game(env_name: str, params: Any) -> GameState:
    """Return a game of ``env_name`` with ``params`` (a dataclass), seed 0: what the page reads
    a table's seats and fitting networks from before the game itself is dealt."""
    return env_spec(env_name).load_game()(params, 0)


def default_seats(env_name: str, game: GameState) -> list[str]:
    """Return the default seats of ``game`` (a game of ``env_name``, e.g. :func:`probe_game`'s):
    a person in seat 0, the env's strongest packaged agent in the others (its expert network if
    one was made for the game's parameters, else its planner, else greedy, else random)."""
    if expert_plays(env_name, game):
        other = "expert"
    else:
        kinds = ("planner", "greedy")
        other = next((k for k in kinds if game.game_name in heuristic_games(k)), "random")
    return [HUMAN] + [other] * (game.num_players - 1)


def catalogue() -> dict[str, Any]:
    """Return what the page's form offers: the envs (parameters, default seats) and agents."""
    envs = []
    for name in registered_envs():
        spec = env_spec(name)
        game_class = spec.load_game()
        syntax = move_syntax(game_class.game_name)
        envs.append(
            {
                "name": name,
                "description": spec.description,
                "params": param_fields(name),
                "seats": default_seats(name, probe_game(name, game_class.params_class())),
                "clickable": spec.targets is not None and spec.image is not None,
                "hint": "" if syntax is None else syntax.hint,
            }
        )
    return {"envs": envs, "agents": agent_names(), "human": HUMAN, "experts": expert_envs()}


def _plain(value: Any) -> Any:
    """Return a default as JSON data (tuples as lists)."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


__all__ = ["HUMAN", "catalogue", "default_seats", "game_params", "param_fields", "probe_game"]
