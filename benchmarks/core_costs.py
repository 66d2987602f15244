"""Per-call cost of the core operations search leans on: clone, apply, resample_hidden.

Run from the repository root::

    python benchmarks/core_costs.py                      # every registered game
    python benchmarks/core_costs.py --env iris_v0 --json out.json

The targets of ``TARGETS`` (Irk against Iris) are printed after the table when both ran.

For every registered env (the parameters of ``bench.py``: defaults, two players for Isis & Osiris
and Irk) the script records ``--games`` seeded random games, then times, in microseconds per call:

* ``clone``: ``state.clone()`` of every non-final state of those games, as play leaves them;
* ``clone, Generator built``: the same after ``state.rng`` has been read (a state whose chance
  stream is in use: the library builds the ``numpy`` Generator only when it is needed);
* ``resample_hidden``: ``state.resample_hidden(mover, rng)`` of the same states (a plain clone
  plus a seat check for a perfect-information game: the per-iteration copy of MCTS);
* ``apply``: ``state.apply(action)`` replaying the recorded games from new states built with
  their seeds (building them is not timed; the end-of-game scoring is);
* ``apply, on clones``: the same on clones of those new states (what a search plays on).

The operations run round-robin in ``--rounds`` rounds (order reversed every other round); a
figure is the median of the per-round averages, timed by this process's CPU time (``--clock
wall`` for elapsed time), as in ``bench.py``.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from bench import CLOCKS, ENV_PARAMS, machine_info

import tabletop_envs
from tabletop_envs.core.config import Config, parse_command, setting
from tabletop_envs.core.game import GameState
from tabletop_envs.evaluation.paths import file_problem

#: The timed operations, in table order.
OPERATIONS = ("clone", "clone, Generator built", "resample_hidden", "apply", "apply, on clones")

#: Targets (issue 22): ``(env, operation, reference env, reference operation, most times the
#: reference's cost)``, checked when both envs ran.
TARGETS = (
    ("irk_v0", "apply", "iris_v0", "apply", 3.0),
    ("irk_v0", "clone", "iris_v0", "clone", 2.5),
    ("irk_v0", "resample_hidden", "iris_v0", "clone", 2.5),
)


def record_games(name: str, games: int, seed: int) -> tuple[list[GameState], list[tuple]]:
    """Return every non-final state of ``games`` seeded random games, and each game's
    ``(game class, params, seed, actions)``. States are reached by replay, never copied."""
    params = ENV_PARAMS.get(name, {})
    probe = tabletop_envs.make(name, **params)
    cls, game_params = probe.game_class, probe.params
    rng = np.random.default_rng(seed)
    states: list[GameState] = []
    recorded = []
    for k in range(games):
        game_seed = seed * 1000 + k
        game = cls(game_params, game_seed)
        actions = []
        while not game.is_terminal:
            legal = game.legal_mask().nonzero()[0]
            actions.append(int(legal[rng.integers(len(legal))]))
            game.apply(actions[-1])
        recorded.append((cls, game_params, game_seed, actions))
        for k_steps in range(len(actions)):
            state = cls(game_params, game_seed)
            for action in actions[:k_steps]:
                state.apply(action)
            states.append(state)
    return states, recorded


def timed_clone(states: list[GameState], clock: Callable[[], float]) -> float:
    """Return the seconds ``clone()`` of every state takes."""
    start = clock()
    for state in states:
        state.clone()
    return clock() - start


def timed_resample(states: list[GameState], clock: Callable[[], float]) -> float:
    """Return the seconds ``resample_hidden(mover, rng)`` of every state takes."""
    rng = np.random.default_rng(0)
    movers = [s.current_player for s in states]
    start = clock()
    for state, mover in zip(states, movers, strict=True):
        state.resample_hidden(mover, rng)
    return clock() - start


def timed_apply(recorded: list[tuple], clock: Callable[[], float], cloned: bool = False) -> float:
    """Return the seconds replaying the recorded games takes (new states, or clones of new
    states, built untimed)."""
    fresh = [(cls(params, seed), actions) for cls, params, seed, actions in recorded]
    if cloned:
        fresh = [(game.clone(), actions) for game, actions in fresh]
    start = clock()
    for game, actions in fresh:
        apply = game.apply
        for action in actions:
            apply(action)
    return clock() - start


def measure(
    names: list[str], games: int, rounds: int, clock_name: str, seed: int
) -> dict[str, dict[str, list[float]]]:
    """Return, per env and operation, the microseconds per call of every round."""
    clock = CLOCKS[clock_name]
    jobs: list[tuple[str, str, Callable[[], float], int]] = []
    for name in names:
        states, recorded = record_games(name, games, seed)
        built = [s.clone() for s in states]
        for s in built:
            s.rng  # noqa: B018  # build the Generator: a state whose chance stream is in use
        calls = sum(len(r[3]) for r in recorded)
        jobs += [
            (name, "clone", lambda s=states: timed_clone(s, clock), len(states)),
            (name, "clone, Generator built", lambda s=built: timed_clone(s, clock), len(built)),
            (name, "resample_hidden", lambda s=states: timed_resample(s, clock), len(states)),
            (name, "apply", lambda r=recorded: timed_apply(r, clock), calls),
            (name, "apply, on clones", lambda r=recorded: timed_apply(r, clock, True), calls),
        ]
    out: dict[str, dict[str, list[float]]] = {name: {op: [] for op in OPERATIONS} for name in names}
    for r in range(rounds):
        for name, op, run, count in jobs if r % 2 == 0 else reversed(jobs):
            out[name][op].append(run() / count * 1e6)
    return out


def report(costs: dict[str, dict[str, list[float]]], info: dict[str, Any]) -> dict[str, Any]:
    """Print the table (median µs per call, min-max of the rounds); return JSON-ready data."""
    print(
        f"python {info['python']}, numpy {info['numpy']}, {info['cpus']} cpus, load average "
        f"{' '.join(f'{x:.1f}' for x in info.get('load_average', ()))}"
    )
    print()
    print(f"{'env':<16} {'operation':<24} {'us/call':>8} {'min':>8} {'max':>8}")
    medians: dict[str, dict[str, float]] = {}
    for name, ops in costs.items():
        medians[name] = {}
        for op, values in ops.items():
            medians[name][op] = statistics.median(values)
            print(
                f"{name:<16} {op:<24} {medians[name][op]:>8.2f} "
                f"{min(values):>8.2f} {max(values):>8.2f}"
            )
    print()
    targets = []
    for env, op, ref_env, ref_op, factor in TARGETS:
        if env not in medians or ref_env not in medians:
            continue
        ratio = medians[env][op] / medians[ref_env][ref_op]
        status = "PASS" if ratio <= factor else "FAIL"
        print(f"{status}  {env} {op} / {ref_env} {ref_op} = {ratio:.2f}x (target <= {factor:g}x)")
        targets.append(
            {
                "subject": f"{env} {op}",
                "reference": f"{ref_env} {ref_op}",
                "factor": factor,
                "ratio": ratio,
                "status": status,
            }
        )
    return {"machine": info, "microseconds_per_call": medians, "rounds": costs, "targets": targets}


@dataclass
class CostsConfig(Config):
    """The command line of this script."""

    games: int = setting(20, low=1, help="seeded random games per env")
    rounds: int = setting(11, low=1, help="round-robin rounds")
    env: tuple[str, ...] | None = setting(
        None, repeat=True, choices=tabletop_envs.registered_envs(), help="only this env"
    )
    clock: str = setting("cpu", choices=sorted(CLOCKS), help="cpu or wall")
    seed: int = setting(0, low=0, help="seed of the recorded games")
    json: str | None = setting(
        None, check=file_problem, metavar="PATH", help="also write the results as JSON"
    )


def main(argv: list[str] | None = None) -> int:
    """Parse the options, time the operations and print them."""
    # before the measuring, not after it
    args, _ = parse_command(
        CostsConfig, argv, prog="core_costs.py", description=__doc__.split("\n")[0]
    )
    names = [n for n in tabletop_envs.registered_envs() if not args.env or n in args.env]
    costs = measure(names, args.games, args.rounds, args.clock, args.seed)
    data = report(costs, machine_info())
    data["command"] = " ".join(
        ["python benchmarks/core_costs.py", *(sys.argv[1:] if argv is None else argv)]
    )
    data["options"] = args.to_dict()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
