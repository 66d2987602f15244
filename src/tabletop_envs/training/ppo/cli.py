"""The PPO command line (``tabletop-envs train``), generated from :class:`TrainConfig`.

Every field of the config is an option with its type, bounds, choices, default and help; three
options are written here: ``--algo`` (which trainer), ``--net-arch`` (read as ``256,256``) and
``--eval-stochastic`` (the other spelling of ``--no-eval-deterministic``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from tabletop_envs.core.config import CommandParser, add_options, from_args, options_named
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.training.ppo.config import TrainConfig

#: Training algorithms of ``--algo``.
ALGOS = ("ppo", "az")


def add_algo_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--algo`` (ppo | az) to ``parser``."""
    parser.add_argument(
        "--algo",
        choices=ALGOS,
        default="ppo",
        help="ppo: MaskablePPO against opponents (the options below); az: AlphaZero-style "
        "self-play with PUCT search (its own options: --algo az --help)",
    )


def layer_sizes(text: str) -> tuple[int, ...]:
    """argparse type of ``--net-arch``: ``"256,256"`` -> ``(256, 256)`` (empty pieces skipped)."""
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"layer sizes are integers separated by commas (e.g. 256,256), got {text!r}"
        ) from None


def build_parser(
    prog: str | None = None, defaults: Mapping[str, Any] | None = None
) -> argparse.ArgumentParser:
    """Return the argument parser of the PPO trainer (:func:`main`); ``defaults`` overrides
    fields' defaults (a script's own, such as ``examples/self_play.py``'s), shown in ``--help``."""
    p = CommandParser(prog=prog, description=TrainConfig.about)
    add_algo_option(p)
    add_options(p, TrainConfig, defaults=defaults)
    p.add_argument(
        "--net-arch",
        dest="net_arch",
        type=layer_sizes,
        default=",".join(map(str, TrainConfig().net_arch)),
        metavar="N,N",
        help="hidden layer sizes, comma-separated (empty: none)",
    )
    p.add_argument(
        "--eval-stochastic",
        dest="eval_deterministic",
        action="store_false",
        help="sample the policy's actions in evaluations (default: its most likely action)",
    )
    return p


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """Build a :class:`TrainConfig` from parsed arguments (a seat number read as an int); a bad
    value's InvalidParameterError names its options (``--eval-opponent``, not ``eval_opponent``)."""
    seat = args.learner_seat
    if isinstance(seat, str) and seat.isdigit():
        seat = int(seat)
    return from_args(TrainConfig, args, learner_seat=seat)


def main(
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> int:
    """Parse ``argv``, train with MaskablePPO, print the final win rate; return the exit code.

    A setting outside its valid values raises
    :class:`~tabletop_envs.core.errors.InvalidParameterError` (a ValueError) naming it.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(prog, defaults).parse_args(argv)
    try:
        import sb3_contrib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as err:
        print(
            f"training needs the train extra ({err}): pip install torch==2.13.0 "
            "&& pip install -e '.[train]' (in a clone)",
            file=sys.stderr,
        )
        return 2
    from tabletop_envs.training.ppo.run import train

    config = config_from_args(args)
    try:
        train(config)
    except InvalidParameterError as err:  # found when the run starts: --init-model's weights
        raise InvalidParameterError(options_named(TrainConfig, str(err))) from None
    return 0
