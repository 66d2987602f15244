"""Simulations per second of the library's MCTS on Iris against OpenSpiel's Python MCTS on Havannah.

Run from the repository root (OpenSpiel comes with the ``bench`` extra)::

    python benchmarks/mcts_openspiel.py
    python benchmarks/mcts_openspiel.py --simulations 800 --rounds 7 --json out.json

Subjects, with the same number of simulations per search and one random rollout per simulation:

* ``mcts iris_v0``: :class:`tabletop_envs.agents.MCTSAgent` (``playout="random"``, exploration
  1.4), ``search`` on ``iris_v0`` positions (board side 5, the default);
* ``MCTSBot havannah(5)``: ``open_spiel.python.algorithms.mcts.MCTSBot`` with
  ``RandomRolloutEvaluator(n_rollouts=1)``, ``uct_c=1.4``, ``mcts_search`` on positions of
  ``pyspiel.load_game("havannah(board_size=5)")`` (the C++ game through pybind). ``solve=False``
  by default, so both run plain UCT; ``--solve`` turns OpenSpiel's MCTS-Solver back on (its
  default).

Both games are played on a hexagon of 61 cells, one stone per step. The positions are those after
``--plies`` seeded random legal steps from the start (the same procedure for both games: a seeded
``random.Random`` picks an index into the legal ids), ``--seeds`` games each. The rounds run every
position of both subjects, alternating which subject goes first; a subject's figure per round is
its simulations (root visits) over the CPU time of its searches, and the reported figure is the
median over ``--rounds`` rounds.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from bench import CLOCKS, machine_info

from tabletop_envs.agents.mcts import MCTSAgent
from tabletop_envs.core.config import Config, parse_command, setting
from tabletop_envs.evaluation.paths import file_problem
from tabletop_envs.games.iris.rules import IrisState

OURS = "mcts iris_v0"
THEIRS = "MCTSBot havannah(5)"
#: The exploration constant of both searchers (ours is scaled by the reward range: 1.4 here).
UCT_C = 1.4


def _play(legal: Callable[[], list[int]], apply: Callable[[int], None], plies: int, seed: int):
    """Play ``plies`` seeded random legal steps through ``legal`` and ``apply``."""
    rnd = random.Random(seed)
    for _ in range(plies):
        ids = legal()
        apply(ids[rnd.randrange(len(ids))])


def iris_positions(plies: list[int], seeds: int) -> list[IrisState]:
    """Return the Iris positions (side 5) after each ply count of each seeded random game."""
    out = []
    for seed in range(seeds):
        for n in plies:
            game = IrisState.new(seed=seed, board_size=5)
            _play(game.legal_actions, game.apply, n, seed)
            if game.is_terminal:
                raise ValueError(f"the seed-{seed} Iris game is over before {n} plies")
            out.append(game)
    return out


def havannah_positions(plies: list[int], seeds: int) -> tuple[Any, list[Any]]:
    """Return the OpenSpiel game and its positions after each ply count of each random game."""
    import pyspiel

    game = pyspiel.load_game("havannah(board_size=5)")
    out = []
    for seed in range(seeds):
        for n in plies:
            state = game.new_initial_state()
            _play(state.legal_actions, state.apply_action, n, seed)
            if state.is_terminal():
                raise ValueError(f"the seed-{seed} Havannah game is over before {n} plies")
            out.append(state)
    return game, out


def run_ours(positions: list[IrisState], simulations: int, seed: int, clock) -> tuple:
    """Search every position once; return (simulations run, CPU seconds, per-position rates)."""
    total_sims, total_time, rates = 0, 0.0, []
    for k, game in enumerate(positions):
        agent = MCTSAgent(iterations=simulations, exploration=UCT_C, seed=seed * 1000 + k)
        start = clock()
        root = agent.search(game, game.current_player)
        elapsed = clock() - start
        total_sims += root.n
        total_time += elapsed
        rates.append(root.n / elapsed)
    return total_sims, total_time, rates


def run_theirs(game: Any, positions: list[Any], simulations: int, seed: int, solve: bool, clock):
    """Search every position once with OpenSpiel's MCTSBot; same return as :func:`run_ours`."""
    from open_spiel.python.algorithms import mcts

    total_sims, total_time, rates = 0, 0.0, []
    for k, state in enumerate(positions):
        rs = np.random.RandomState(seed * 1000 + k)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
        bot = mcts.MCTSBot(game, UCT_C, simulations, evaluator, solve=solve, random_state=rs)
        start = clock()
        root = bot.mcts_search(state)
        elapsed = clock() - start
        total_sims += root.explore_count
        total_time += elapsed
        rates.append(root.explore_count / elapsed)
    return total_sims, total_time, rates


def measure(args: MCTSBenchConfig) -> dict[str, Any]:
    """Run the rounds; return per subject the sims/s of every round and of every position."""
    clock = CLOCKS[args.clock]
    ours = iris_positions(args.plies, args.seeds)
    game, theirs = havannah_positions(args.plies, args.seeds)
    subjects = {
        OURS: lambda r: run_ours(ours, args.simulations, r, clock),
        THEIRS: lambda r: run_theirs(game, theirs, args.simulations, r, args.solve, clock),
    }
    rounds: dict[str, list[float]] = {label: [] for label in subjects}
    per_position: dict[str, list[list[float]]] = {label: [] for label in subjects}
    sims: dict[str, list[int]] = {label: [] for label in subjects}
    for r in range(args.rounds):
        order = list(subjects.items())
        if r % 2:
            order.reverse()
        for label, run in order:
            count, seconds, rates = run(r)
            rounds[label].append(count / seconds)
            per_position[label].append(rates)
            sims[label].append(count)
    return {"rounds": rounds, "per_position": per_position, "simulations_run": sims}


def report(data: dict[str, Any], args: MCTSBenchConfig, info: dict[str, Any]) -> dict:
    """Print the figures and the ratio; return everything as JSON-ready data."""
    print(
        f"python {info['python']}, numpy {info['numpy']}, pyspiel {info['pyspiel']}, "
        f"{info['cpus']} cpus, load average "
        f"{' '.join(f'{x:.1f}' for x in info.get('load_average', ()))}"
    )
    print(
        f"{args.simulations} simulations per search, {len(args.plies) * args.seeds} positions "
        f"(plies {args.plies}, {args.seeds} games), {args.rounds} rounds, {args.clock} clock, "
        f"OpenSpiel solve={args.solve}"
    )
    print()
    median = {label: statistics.median(r) for label, r in data["rounds"].items()}
    print(f"{'subject':<22} {'sims/s':>8} {'min':>8} {'max':>8}")
    for label, r in data["rounds"].items():
        print(f"{label:<22} {median[label]:>8,.0f} {min(r):>8,.0f} {max(r):>8,.0f}")
    print()
    labels = [f"{p} plies" for _ in range(args.seeds) for p in args.plies]
    print(f"{'position (median sims/s)':<26} {'ours':>8} {'theirs':>8} {'ratio':>6}")
    position_medians = {}
    for label, per_round in data["per_position"].items():
        position_medians[label] = [statistics.median(col) for col in zip(*per_round, strict=True)]
    for k, where in enumerate(labels):
        a, b = position_medians[OURS][k], position_medians[THEIRS][k]
        print(f"game {k // len(args.plies)}, {where:<17} {a:>8,.0f} {b:>8,.0f} {a / b:>5.2f}x")
    ratio = median[OURS] / median[THEIRS]
    status = "PASS" if ratio >= 1.0 else "FAIL"
    print()
    print(f"{status}  {OURS} / {THEIRS} = {ratio:.2f}x (target >= 1x)")
    return {
        "machine": info,
        "sims_per_second": median,
        "ratio": ratio,
        "status": status,
        "position_sims_per_second": position_medians,
        **data,
    }


@dataclass
class MCTSBenchConfig(Config):
    """The command line of this script."""

    simulations: int = setting(400, low=1, help="simulations per search")
    plies: tuple[int, ...] = setting(
        (0, 8, 16, 24, 32), low=0, help="random steps from the start to each position"
    )
    seeds: int = setting(2, low=1, help="random games the positions come from")
    rounds: int = setting(5, low=1, help="rounds over every position")
    clock: str = setting("cpu", choices=sorted(CLOCKS), help="cpu or wall")
    solve: bool = setting(False, help="OpenSpiel's MCTS-Solver on (its default)")
    json: str | None = setting(
        None, check=file_problem, metavar="PATH", help="also write the results as JSON"
    )


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run both searchers, print the figures; exit 1 below the target."""
    # before the measuring, not after it
    args, _ = parse_command(
        MCTSBenchConfig, argv, prog="mcts_openspiel.py", description=__doc__.split("\n")[0]
    )
    try:
        import pyspiel  # noqa: F401
    except ImportError as err:
        print(f"OpenSpiel is needed (pip install -e '.[bench]'): {err}", file=sys.stderr)
        return 2
    data = report(measure(args), args, machine_info())
    data["command"] = " ".join(
        ["python benchmarks/mcts_openspiel.py", *(sys.argv[1:] if argv is None else argv)]
    )
    data["options"] = args.to_dict()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=2)
    return 0 if data["status"] == "PASS" else 1


if __name__ == "__main__":
    raise SystemExit(main())
