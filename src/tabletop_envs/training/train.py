"""Train a MaskablePPO agent on any registered env against an opponent, or by self-play.

Command line (also ``tabletop-envs train``)::

    python -m tabletop_envs.training.train --env iris_v0 --timesteps 200000 --opponent random

writes ``model.zip``, ``results.json`` and ``winrate.png`` into ``--out`` and prints the
final win rate (seat-alternated, with a 95% Wilson interval). ``--algo az`` runs the
AlphaZero-style trainer instead (:mod:`tabletop_envs.training.az`). Needs the ``train`` extra
(torch, stable-baselines3, sb3-contrib, tqdm, rich, matplotlib); torch and SB3 are imported
only when training runs, so :func:`evaluate` and :func:`parse_env_args` work without them.

The PPO trainer lives in :mod:`tabletop_envs.training.ppo` (``config``, ``run``, ``policies``,
``opponents``, ``evaluation``, ``pretrain``, ``cli``); its names stay importable from here.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from tabletop_envs.agents.single_agent import OpponentPool, SingleAgentEnv
from tabletop_envs.core.config import CommandParser, one_line, parse_assignment
from tabletop_envs.training.plots import plot_curves
from tabletop_envs.training.ppo.cli import ALGOS, add_algo_option, build_parser, config_from_args
from tabletop_envs.training.ppo.cli import main as ppo_main
from tabletop_envs.training.ppo.config import TrainConfig, cell_footprint
from tabletop_envs.training.ppo.evaluation import evaluate, format_result, plot_history
from tabletop_envs.training.ppo.opponents import env_factory, make_opponent, single_opponent
from tabletop_envs.training.ppo.policies import action_values_section, planes_section
from tabletop_envs.training.ppo.run import build_model, rollout_total, sb3_logger, train
from tabletop_envs.training.sb3 import PolicyAgent


def parse_env_args(items: Sequence[str] | None) -> dict[str, Any]:
    """Turn ``["board_size=7", "auto_forced=true"]`` into game keyword arguments.

    Each item is read by :func:`tabletop_envs.core.config.parse_assignment`, the project's one
    ``key=value`` reader (``none``/``null`` are None, lists are tuples); ValueError otherwise.
    """
    return dict(parse_assignment(item) for item in items or ())


def main(
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> int:
    """Command-line entry point: parse ``argv``, train, print the final win rate.

    ``--algo az`` hands the other arguments to :func:`tabletop_envs.training.az.main`; the
    default ``--algo ppo`` to :func:`tabletop_envs.training.ppo.cli.main`, with ``defaults``
    (PPO settings' defaults a script changes, by field name).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    algo = CommandParser(add_help=False, prog=prog)
    add_algo_option(algo)
    known, rest = algo.parse_known_args(argv)
    if known.algo == "az":
        from tabletop_envs.training import az

        return int(az.main(rest, prog=f"{prog or 'train.py'} --algo az"))
    return ppo_main(argv, prog=prog, defaults=defaults)


def run_command(
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> int:
    """Run :func:`main` for a terminal: a user's mistake is one line, exit status 2.

    A ValueError (a setting outside its valid values, an unknown env or agent spec) or an
    OSError (a file that cannot be read or written: the output folder, say) prints ``PROG:
    error: MESSAGE`` on stderr instead of a traceback; :func:`main` itself raises it.
    """
    try:
        return main(argv, prog=prog, defaults=defaults)
    except (ValueError, OSError) as err:
        print(f"{prog or 'train.py'}: error: {one_line(err)}", file=sys.stderr)
        return 2


__all__ = [
    "ALGOS",
    "OpponentPool",
    "PolicyAgent",
    "SingleAgentEnv",
    "TrainConfig",
    "action_values_section",
    "build_model",
    "build_parser",
    "cell_footprint",
    "config_from_args",
    "env_factory",
    "evaluate",
    "format_result",
    "main",
    "make_opponent",
    "parse_env_args",
    "planes_section",
    "plot_curves",
    "plot_history",
    "rollout_total",
    "run_command",
    "sb3_logger",
    "single_opponent",
    "train",
]

if __name__ == "__main__":
    raise SystemExit(run_command())
