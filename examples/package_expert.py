"""Package a trained network as the ``expert`` of an env, with the settings it plays at.

    python examples/package_expert.py runs/expert_iris/best.npz --env iris_v0 \\
        --simulations 128 --playout-weight 0.5
    python examples/package_expert.py runs/expert_irk/best.npz --env irk_v0 --dtype float16 \\
        --simulations 32 --playout-weight 0.5 --out my_irk_expert.npz
    python examples/package_expert.py runs/irk3/best.npz --env irk_v0 --param num_players=3 \\
        --dtype float16 --simulations 48 --playout-weight 0.75

Reads a network file written by AlphaZero-style training (``model.npz`` or ``best.npz``),
checks that it plays ``--env`` with its default parameters (or those given with ``--param
KEY=VALUE``, repeatable, e.g. ``--param num_players=3``), sets the agent's defaults in its meta
(``--simulations``, ``--playout-weight``, ``--playout``, ``--root``, ``--value-target``,
``--reuse`` and the root guide ``--guide``, ``--guide-weight``, ``--guide-temperature``, stored
under the file format's names ``simulations``, ``rollout_weight``, ``rollout_policy``, ``root``,
``value_target``, ``reuse``, ``guide``, ``guide_weight`` and ``guide_temperature``; an option
left out keeps the file's own; ``--rollout-weight`` and ``--rollout-policy`` are the old
spellings) and writes it to ``--out``. Without ``--out`` it replaces the packaged expert of the
source checkout the script is in (for maintainers): ``src/tabletop_envs/agents/experts/<env>.npz``,
the file ``make_agent("expert", env)`` loads (shipped in the wheel), or ``<env>.<N>p.npz`` for a
network of ``N`` players: the expert plays each game with the file made for its parameters. A
copy of the script outside a checkout needs ``--out``. Prints the file's size: a packaged expert
must stay within 2 MB. Numpy only.

A mistake (a network file that is missing or made for another game, a game parameter the game
does not have, a setting out of range, an ``--out`` that cannot be written) ends in one line
``package_expert.py: error: ...`` naming the option, and nothing is written.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import tabletop_envs
from tabletop_envs.agents.az import ROLLOUT_POLICIES, PolicyValueNet
from tabletop_envs.core.config import CommandParser, one_line, param_option, quote_path
from tabletop_envs.envs.registry import registered_envs
from tabletop_envs.evaluation.paths import folder_problem
from tabletop_envs.search.network_file import GUIDES, ROOTS, VALUE_TARGETS
from tabletop_envs.training.checks import probe_game

PROG = "package_expert.py"
#: The packaged experts of the source checkout this script is in (the default ``--out``).
EXPERTS = Path(__file__).resolve().parents[1] / "src" / "tabletop_envs" / "agents" / "experts"

#: The option that sets each meta key (a file format's name in an error becomes the option).
OPTION_OF = {
    "simulations": "--simulations",
    "rollout_weight": "--playout-weight",
    "rollout_policy": "--playout",
    "root": "--root",
    "value_target": "--value-target",
    "reuse": "--reuse",
    "guide": "--guide",
    "guide_weight": "--guide-weight",
    "guide_temperature": "--guide-temperature",
}
#: The old spellings of options, still taken.
OLD_SPELLINGS = {"rollout_weight": ("--rollout-weight",), "rollout_policy": ("--rollout-policy",)}


def main(argv: list[str] | None = None) -> int:
    """Parse the options, package the network, print where it went."""
    parser = CommandParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("network", help="a network file (.npz) of AlphaZero-style training")
    parser.add_argument("--env", required=True, choices=registered_envs())
    parser.add_argument("--simulations", type=int, help="default simulations per move")
    parser.add_argument(
        "--playout-weight",
        "--rollout-weight",
        dest="rollout_weight",  # the file's meta key
        type=float,
        metavar="WEIGHT",
        help="default weight of playouts in the leaf values, 0-1",
    )
    parser.add_argument(
        "--playout",
        "--rollout-policy",
        dest="rollout_policy",  # the file's meta key
        choices=ROLLOUT_POLICIES,
        help="how playouts move",
    )
    parser.add_argument(
        "--root", choices=ROOTS, help="the search's root rule: puct (most visited) or gumbel"
    )
    parser.add_argument(
        "--value-target",
        choices=VALUE_TARGETS,
        help="the scale the search backs up finished games and playouts on: result (win/loss) "
        "or score (score margins); a network trained on margins may play stronger on results",
    )
    parser.add_argument(
        "--reuse",
        choices=("on", "off"),
        help="on: a seat's decision right after its own move searches on in the subtree the "
        "last search grew (Iris's second stone)",
    )
    parser.add_argument(
        "--guide",
        choices=GUIDES,
        help="the heuristic whose scores of the legal actions guide the root's priors",
    )
    parser.add_argument(
        "--guide-weight",
        type=float,
        metavar="WEIGHT",
        help="the guide's share of the root's priors, 0-1",
    )
    parser.add_argument(
        "--guide-temperature",
        type=float,
        metavar="T",
        help="the temperature of the guide's softmax, in the heuristic's score units",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        type=param_option,
        metavar="KEY=VALUE",
        help="a game parameter the network was trained with, repeatable (num_players=3)",
    )
    parser.add_argument("--dtype", choices=("float32", "float16"), default="float32")
    parser.add_argument(
        "--out",
        help="the file to write (folders made as needed); default, for maintainers: replace the "
        "packaged expert of the source checkout this script is in, "
        "src/tabletop_envs/agents/experts/<env>.npz (<env>.<N>p.npz for N players)",
    )
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    try:
        out, meta, packaged = _package(args, argv)
    except ValueError as err:  # all before anything is written
        parser.error(str(err))
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        packaged.save(out, dtype=args.dtype)
    except OSError as err:  # checked before; changed since
        parser.error(f"cannot write --out {quote_path(out)}: {err}")
    size = out.stat().st_size
    print(
        f"wrote {out}: {size / 1e6:.2f} MB, simulations={meta.get('simulations', 'default')}, "
        f"playout_weight={meta.get('rollout_weight', 0)}, "
        f"playout={meta.get('rollout_policy', 'random')}, root={meta.get('root', 'puct')}, "
        f"value_target={meta.get('value_target', 'the returns')}, "
        f"reuse={'on' if meta.get('reuse') else 'off'}, guide={meta.get('guide', 'none')}"
        + (
            f" (weight {meta.get('guide_weight', 1.0)}, temperature "
            f"{meta.get('guide_temperature', 1.0)})"
            if "guide" in meta
            else ""
        )
    )
    installed = Path(tabletop_envs.__file__).resolve().parent / "agents" / "experts"
    if args.out is None and installed != EXPERTS:
        print(
            f"note: the tabletop_envs imported here loads its experts from {installed}, not "
            "this checkout: install the checkout (pip install -e .) to play the new file"
        )
    return 0


def _package(
    args: argparse.Namespace, argv: list[str]
) -> tuple[Path, dict[str, Any], PolicyValueNet]:
    """Return where the packaged network goes, its meta and the network (ValueError, naming
    the option typed in ``argv``, for anything that would stop it: nothing is written yet)."""
    try:
        game = probe_game(args.env, dict(args.param))
    except ValueError as err:
        raise ValueError(f"--param: {one_line(err)}") from None
    if args.out is not None:
        problem = _out_problem(args.out)
        if problem:
            raise ValueError(f"--out {problem}, got {quote_path(args.out)}")
    elif not EXPERTS.is_dir():
        raise ValueError(
            "give --out: the default replaces the packaged expert of the source checkout the "
            f"script is in ({EXPERTS}), and this copy is in none"
        )
    net = PolicyValueNet.load(args.network)
    try:
        net.check_game(game)
    except ValueError as err:
        raise ValueError(
            f"{one_line(err)}; --env and --param KEY=VALUE name the game it was trained for"
        ) from None
    defaults = type(game).params_class()
    changed = {k: v for k, v in args.param if getattr(defaults, k) != getattr(game.params, k)}
    out = Path(args.out) if args.out is not None else EXPERTS / _default_name(args.env, changed)
    meta = dict(net.meta, env=args.env)
    for key in OPTION_OF:
        if key != "reuse" and getattr(args, key) is not None:
            meta[key] = getattr(args, key)
    if args.reuse is not None:
        meta["reuse"] = args.reuse == "on"
    try:
        packaged = PolicyValueNet(meta, net.arrays)  # checks the new meta
    except ValueError as err:  # name the option, not the file format's key
        raise ValueError(_option_named(str(err), args, argv)) from None
    return out, meta, packaged


def _out_problem(path: str) -> str | None:
    """Return why the packaged file cannot be written at ``path`` (folders are made), or None."""
    if not path.strip():
        return "must name a file"
    if Path(path).is_dir():
        return "is a folder, not a file"
    problem = folder_problem(str(Path(path).parent))
    return None if problem is None else f"cannot be written: its folder {problem}"


def _option_named(message: str, args: argparse.Namespace, argv: list[str]) -> str:
    """Return ``message`` with ``network meta KEY`` spelt as the option that set KEY, as typed
    in ``argv`` (``--rollout-weight`` is the old spelling of ``--playout-weight``)."""
    match = re.match(r"network meta (\w+)\b", message)
    if not (match and match.group(1) in OPTION_OF and getattr(args, match.group(1)) is not None):
        return message
    typed = [a.partition("=")[0] for a in argv]
    spellings = [OPTION_OF[match.group(1)], *OLD_SPELLINGS.get(match.group(1), ())]
    option = max(
        spellings, key=lambda o: max((i for i, t in enumerate(typed) if t == o), default=-1)
    )
    return option + message[match.end() :]


def _default_name(env: str, params: dict[str, Any]) -> str:
    """Return the packaged file name of a network for ``params`` (those that differ from the
    defaults; ValueError: there is none, give one)."""
    if not params:
        return f"{env}.npz"
    if set(params) == {"num_players"}:
        return f"{env}.{params['num_players']}p.npz"
    raise ValueError(
        f"give --out for a network of parameters {params}: the default names are "
        f"experts/{env}.npz (default parameters) and experts/{env}.<N>p.npz (num_players=N)"
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
