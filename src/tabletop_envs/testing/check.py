"""``check_env`` and ``check_game``: every conformance check, in order, on one parameter set.

The checks run the most basic first (a game that ignores its seed would fail the later checks,
which copy and replay games, for that reason alone) and stop at the first failure with a
:class:`ConformanceError` naming the env, its parameters, the check and what went wrong where.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec
from tabletop_envs.testing import api, copies, core_checks, env_checks
from tabletop_envs.testing.play import Case

#: Seeded games each playout check plays by default (``games=``): a few seconds per case.
DEFAULT_GAMES = 2


@dataclass(frozen=True)
class Check:
    """One named check: ``run(case)`` raises AssertionError when the case fails it."""

    name: str
    run: Callable[[Case], None]
    needs_env: bool = False  # needs a registered env (check_game skips it)

    @property
    def description(self) -> str:
        """Return the first sentence of the check's docstring."""
        doc = " ".join((self.run.__doc__ or "").split()).replace("``", "")
        return doc.split(". ")[0].rstrip(".")


#: Every check, in the order :func:`check_env` runs them.
CHECKS: tuple[Check, ...] = (
    Check("spec", core_checks.check_spec),
    Check("seeding", core_checks.check_seeding),
    Check("playouts", core_checks.check_playouts),
    Check("clone", core_checks.check_clone),
    Check("json", core_checks.check_json),
    Check("pickle", core_checks.check_pickle),
    Check("equality", core_checks.check_equality),
    Check("hidden", core_checks.check_hidden),
    Check("seats", core_checks.check_seats),
    Check("observation_params", core_checks.check_observation_params),
    Check("copies", copies.check_copies),
    Check("spaces", env_checks.check_spaces, needs_env=True),
    Check("params", env_checks.check_params, needs_env=True),
    Check("heuristics", env_checks.check_heuristics, needs_env=True),
    Check("env_playouts", env_checks.check_env_playouts, needs_env=True),
    Check("env_seeding", env_checks.check_env_seeding, needs_env=True),
    Check("env_copies", env_checks.check_env_copies, needs_env=True),
    Check("env_illegal", env_checks.check_env_illegal, needs_env=True),
    Check("load_state", env_checks.check_env_load_state, needs_env=True),
    Check("pettingzoo", api.check_pettingzoo, needs_env=True),
    Check("render", api.check_render, needs_env=True),
    Check("parallel", api.check_parallel, needs_env=True),
)


class ConformanceError(AssertionError):
    """A conformance check failed: names the env (or game), its parameters and the check."""

    def __init__(self, label: str, check: Check, problem: str) -> None:
        self.label = label
        self.check = check.name
        self.problem = problem
        super().__init__(
            f"{label} fails the {check.name!r} check: {problem}\n"
            f"(the {check.name!r} check: {check.description}; see docs/testing.md)"
        )


def _select(checks: Iterable[str] | None, with_env: bool) -> list[Check]:
    """Return the checks named (all by default), in run order; the bare core's without env."""
    available = [c for c in CHECKS if with_env or not c.needs_env]
    if checks is None:
        return available
    if isinstance(checks, str):
        checks = [checks]
    wanted = list(checks)
    names = [c.name for c in available]
    unknown = [name for name in wanted if name not in names]
    if unknown:
        raise InvalidParameterError(
            f"unknown check {', '.join(map(repr, unknown))}; checks: {', '.join(names)}"
        )
    return [c for c in available if c.name in wanted]


def _run(case: Case, checks: list[Check]) -> list[str]:
    """Run ``checks`` on ``case``; raise ConformanceError at the first failure."""
    if type(case.games) is not int or case.games < 1:
        raise InvalidParameterError(f"games must be an integer >= 1, got {case.games!r}")
    if type(case.seed) is not int or case.seed < 0:
        raise InvalidParameterError(f"seed must be an integer >= 0, got {case.seed!r}")
    case.game_class.params_class(**case.params)  # a mistake in the parameters is the caller's
    for check in checks:
        try:
            check.run(case)
        except ConformanceError:
            raise
        except AssertionError as err:
            raise ConformanceError(case.label, check, str(err) or "assertion failed") from err
        except Exception as err:  # a crash inside the game is a failed check too
            problem = f"raised {type(err).__name__}: {err}"
            raise ConformanceError(case.label, check, problem) from err
    return [check.name for check in checks]


def check_env(
    name: str,
    /,
    *,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    checks: Iterable[str] | None = None,
    **params: Any,
) -> list[str]:
    """Run the conformance checks on the registered env ``name`` with game parameters ``params``.

    Works on any registered env, a game of your own registered with
    ``tabletop_envs.envs.registry.register(EnvSpec(...))`` included. ``games`` is the depth:
    the seeded random games each playout check plays (from ``seed`` on); ``checks`` runs only
    the named ones (see ``CHECKS``). Returns the names of the checks run; raises
    :class:`ConformanceError` (an AssertionError) naming the env, the parameters and the check
    at the first failure. ``games``, ``seed`` and ``checks`` are this function's: a game
    parameter of one of those names cannot be given here.
    """
    spec = env_spec(name)  # ValueError listing the registered envs
    case = Case(spec.load_game(), dict(params), name, games=games, seed=seed)
    return _run(case, _select(checks, with_env=True))


def check_game(
    game_class: type[GameState],
    params: Mapping[str, Any] | None = None,
    *,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    checks: Iterable[str] | None = None,
) -> list[str]:
    """Run the checks of the rules core alone on ``game_class`` under ``params`` (no env needed).

    The same as :func:`check_env` without the env checks (those that build the PettingZoo
    env): useful while a game is written, before it is registered.
    """
    if not (isinstance(game_class, type) and issubclass(game_class, GameState)):
        raise InvalidParameterError(f"check_game takes a GameState subclass, got {game_class!r}")
    case = Case(game_class, dict(params or {}), None, games=games, seed=seed)
    return _run(case, _select(checks, with_env=False))
