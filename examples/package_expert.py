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
spellings) and writes it to ``--out``, by default
``src/tabletop_envs/agents/experts/<env>.npz``, the file ``make_agent("expert", env)`` loads
(shipped in the wheel), or ``<env>.<N>p.npz`` for a network of ``N`` players: the expert plays
each game with the file made for its parameters. Prints the file's size: a packaged expert must
stay within 2 MB. Numpy only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tabletop_envs.agents.az import ROLLOUT_POLICIES, PolicyValueNet
from tabletop_envs.core.config import param_option
from tabletop_envs.envs.registry import env_spec, registered_envs
from tabletop_envs.search.network_file import GUIDES, ROOTS, VALUE_TARGETS

EXPERTS = Path(__file__).resolve().parents[1] / "src" / "tabletop_envs" / "agents" / "experts"


def main(argv: list[str] | None = None) -> int:
    """Parse the options, package the network, print where it went."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
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
        "--out", help="default: the package's experts/<env>.npz (<env>.<N>p.npz for N players)"
    )
    args = parser.parse_args(argv)
    try:
        net = PolicyValueNet.load(args.network)
        game = env_spec(args.env).load_game().new(seed=0, **dict(args.param))
        net.check_game(game)
        defaults = type(game).params_class()
        changed = {k: v for k, v in args.param if getattr(defaults, k) != getattr(game.params, k)}
        out = Path(args.out) if args.out else EXPERTS / _default_name(args.env, changed)
        meta = dict(net.meta, env=args.env)
        for key in (
            "simulations",
            "rollout_weight",
            "rollout_policy",
            "root",
            "value_target",
            "guide",
            "guide_weight",
            "guide_temperature",
        ):
            if getattr(args, key) is not None:
                meta[key] = getattr(args, key)
        if args.reuse is not None:
            meta["reuse"] = args.reuse == "on"
        packaged = PolicyValueNet(meta, net.arrays)  # checks the new meta
    except ValueError as err:
        parser.error(str(err))
    out.parent.mkdir(parents=True, exist_ok=True)
    packaged.save(out, dtype=args.dtype)
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
    return 0


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
