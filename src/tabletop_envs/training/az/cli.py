"""The command line of AlphaZero-style training, generated from :class:`AZConfig`.

``python -m tabletop_envs.training.az``, ``tabletop-envs train --algo az`` and
``examples/train_az.py`` all land in :func:`main`. Every option is a field of
:class:`~tabletop_envs.training.az.config.AZConfig` (its flags, default, bounds and help are
declared there); only ``--hidden``, given comma-separated, is added by hand.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import cast

from tabletop_envs.core.config import (
    CommandParser,
    add_options,
    from_args,
    one_line,
    options_named,
    quote,
)
from tabletop_envs.training.az.config import AZConfig
from tabletop_envs.training.az.loop import train_az


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """Return the argument parser of :func:`main` (every default shown in ``--help``)."""
    parser = CommandParser(prog=prog, description=AZConfig.about)
    add_options(parser, AZConfig)
    hidden = AZConfig.__dataclass_fields__["hidden"]  # declared with cli=False
    widths = cast(tuple[int, ...], hidden.default)
    parser.add_argument(
        "--hidden",
        type=layer_widths,
        default=",".join(map(str, widths)),
        help=hidden.metadata["setting"].help,
    )
    return parser


def layer_widths(text: str) -> tuple[int, ...]:
    """Read ``--hidden``: comma-separated layer widths such as ``256,256``."""
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"hidden must be comma-separated layer widths like 256,256, got {quote(text)}"
        ) from None


def config_from_args(args: argparse.Namespace) -> AZConfig:
    """Build an :class:`AZConfig` from parsed arguments (InvalidParameterError on a bad value,
    naming its options: ``--eval-games``, not ``eval_games``)."""
    return from_args(AZConfig, args)


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Command-line entry point: parse ``argv``, train, print the final win rates."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        config = config_from_args(args)
    except ValueError as err:
        parser.error(str(err))  # one line, exit status 2
    try:
        import torch  # noqa: F401
        import tqdm  # noqa: F401
    except ImportError as err:
        print(
            f"AlphaZero training needs the train extra ({err}): pip install torch==2.13.0 "
            "&& pip install -e '.[train]' (in a clone)",
            file=sys.stderr,
        )
        return 2
    given = sys.argv[1:] if argv is None else list(argv)
    command = shlex.join(["python", "-m", "tabletop_envs.training.az", *given])
    try:
        train_az(config, command=command)
    except ValueError as err:  # a checkpoint that does not fit, an unreadable file
        message = options_named(AZConfig, str(err))  # this run's --param, not env_kwargs
        print(f"{parser.prog}: error: {one_line(message)}", file=sys.stderr)
        return 2
    return 0
