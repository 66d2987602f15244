"""Checks shared by the training configs.

The ``setting(check=...)`` functions return None for a valid value, else the problem as text
("must be ..."), which :mod:`tabletop_envs.core.config` turns into an InvalidParameterError
naming the field. :func:`probe_game` and :func:`check_agent_specs` are checks across fields
(a config's ``check``): the game its parameters make, and the agents it names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tabletop_envs.agents.expert import check_agents
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.core.config import one_line
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, new_game

#: Largest seed a PPO or RLlib run takes: SB3's ``set_random_seed`` and RLlib's seeding call
#: ``numpy.random.seed``, which refuses more than ``2**32 - 1`` (after the run was built).
SEED_HIGH = 2**32 - 1
#: Largest seed an AlphaZero-style run takes: ``torch.manual_seed`` refuses more.
TORCH_SEED_HIGH = 2**64 - 1


def at_least(low: int, why: str = "") -> Callable[[Any], str | None]:
    """Return a check refusing numbers below ``low`` ("must be at least LOW[ why]")."""

    def check(value: Any) -> str | None:
        return None if value >= low else f"must be at least {low}{why}"

    return check


def positive(value: float) -> str | None:
    """Problem text unless ``value`` is above 0."""
    return None if value > 0 else "must be positive"


def not_blank(value: str) -> str | None:
    """Problem text for an empty name."""
    return None if value.strip() else "must not be empty"


def probe_game(env: str, env_kwargs: Mapping[str, Any]) -> GameState:
    """Return a new game of ``env`` with the parameters ``env_kwargs`` (seed 0).

    InvalidParameterError for an unknown env or a parameter it does not have (naming those it
    has) or refuses.
    """
    try:
        env_spec(env)
    except ValueError as err:
        raise InvalidParameterError(str(err)) from None
    return new_game(env, env_kwargs)


def check_agent_specs(env: str, game: GameState, named: Iterable[tuple[str, str | None]]) -> None:
    """Raise InvalidParameterError, naming the field, unless each ``(field, spec)`` of ``named``
    (None: not set) makes an agent of ``env`` that can play ``game``'s parameters.

    So a run refuses, before it starts, what would otherwise stop it when it first needs the
    agent (a final evaluation's only after the training): an unknown spec, a model or network
    file that is missing (OSError) or unreadable, a network made for other parameters.
    """
    for field, spec in named:
        if spec is None:
            continue
        try:
            check_agents([(repr(spec), make_agent(spec, env))], game)
        except (ValueError, OSError) as err:
            raise InvalidParameterError(f"{field}: {one_line(err)}") from None
