"""The command line of AlphaZero-style training (``tabletop-envs train --algo az``)."""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
from collections.abc import Sequence

from tabletop_envs.agents.az import ROLLOUT_POLICIES
from tabletop_envs.envs.registry import registered_envs
from tabletop_envs.training.az.config import DEFAULT_ITERATIONS, VALUE_TARGETS, AZConfig
from tabletop_envs.training.az.loop import train_az

#: The first line of ``--help``.
DESCRIPTION = (
    "AlphaZero-style self-play training of a policy-value network (torch), shipped as a numpy file."
)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """Return the argument parser of :func:`main` (every default shown in ``--help``)."""
    from tabletop_envs.cli import DefaultsHelpFormatter

    d = AZConfig.__dataclass_fields__
    default = {name: f.default for name, f in d.items() if f.default is not dataclasses.MISSING}
    p = argparse.ArgumentParser(
        prog=prog, description=DESCRIPTION, formatter_class=DefaultsHelpFormatter
    )
    p.add_argument(
        "--env", default=default["env"], help=f"registered env ({', '.join(registered_envs())})"
    )
    p.add_argument(
        "--env-arg",
        "--param",
        dest="env_arg",
        action="append",
        default=[],
        metavar="K=V",
        help="game parameter, e.g. num_players=3; repeat",
    )
    p.add_argument(
        "--hidden",
        default=",".join(map(str, default["hidden"])),
        help="hidden layer widths of the MLP, comma-separated",
    )
    p.add_argument(
        "--games",
        type=int,
        default=default["games"],
        help="self-play games per iteration, played in lockstep (one batched search per move)",
    )
    p.add_argument(
        "--simulations", type=int, default=default["simulations"], help="PUCT simulations per move"
    )
    p.add_argument("--c-puct", type=float, default=default["c_puct"], help="PUCT exploration")
    p.add_argument(
        "--dirichlet-alpha",
        type=float,
        default=None,
        help="root noise concentration (default: 10 / the mean number of legal moves in "
        "random playouts, clipped to [0.03, 1])",
    )
    p.add_argument(
        "--dirichlet-fraction",
        type=float,
        default=default["dirichlet_fraction"],
        help="share of root noise in the priors",
    )
    p.add_argument(
        "--temperature-moves",
        type=int,
        default=default["temperature_moves"],
        help="moves of each game sampled from the visit counts; the most visited after",
    )
    p.add_argument(
        "--target-temperature",
        type=float,
        default=default["target_temperature"],
        help="policy target: the root visits raised to 1/T, normalized (T < 1 sharpens: with "
        "few simulations the visits are flatter than the play they lead to)",
    )
    p.add_argument(
        "--value-target",
        choices=VALUE_TARGETS,
        default=default["value_target"],
        help="result: +1 win, 0 shared win, -1 loss; score: tanh(score margin / --score-scale) "
        "(isis_osiris_v0, irk_v0)",
    )
    p.add_argument(
        "--score-scale",
        type=float,
        default=default["score_scale"],
        help="points of margin for --value-target score",
    )
    p.add_argument(
        "--iterations",
        type=int,
        default=None,
        help=f"iterations in all, a resumed run's included (default: {DEFAULT_ITERATIONS}, or "
        "until --time-budget when one is given; 0: until --time-budget)",
    )
    p.add_argument(
        "--time-budget",
        type=float,
        default=None,
        metavar="MINUTES",
        help="wall clock of this run: no iteration starts that would end past it (default: none)",
    )
    p.add_argument(
        "--buffer-size",
        type=int,
        default=default["buffer_size"],
        help="replay buffer positions (0: up to 100000, at most 512 MB)",
    )
    p.add_argument("--batch-size", type=int, default=default["batch_size"], help="minibatch rows")
    p.add_argument(
        "--sample-reuse",
        type=float,
        default=default["sample_reuse"],
        help="minibatch rows drawn per new position: steps = ceil(reuse * new / batch size)",
    )
    p.add_argument("--lr", type=float, default=default["learning_rate"], help="Adam learning rate")
    p.add_argument(
        "--weight-decay", type=float, default=default["weight_decay"], help="L2 weight decay"
    )
    p.add_argument(
        "--eval-every",
        type=int,
        default=default["eval_every"],
        help="iterations between arena evaluations of model.npz (0: none)",
    )
    p.add_argument(
        "--eval-games",
        type=int,
        default=default["eval_games"],
        help="games per periodic evaluation",
    )
    p.add_argument(
        "--eval-opponents",
        nargs="+",
        default=list(default["eval_opponents"]),
        metavar="SPEC",
        help="agent specs the network is evaluated against, seats rotated",
    )
    p.add_argument(
        "--eval-simulations",
        type=int,
        default=None,
        help="simulations per move of the evaluated AZAgent (default: --simulations)",
    )
    p.add_argument(
        "--rollout-weight",
        type=float,
        default=default["rollout_weight"],
        help="weight of a random playout's result in self-play's leaf values (0: network only)",
    )
    p.add_argument(
        "--eval-rollout-weight",
        type=float,
        default=None,
        help="the same for the evaluated agent and the file's default (default: --rollout-weight)",
    )
    p.add_argument(
        "--rollout-policy",
        choices=ROLLOUT_POLICIES,
        default=default["rollout_policy"],
        help="how self-play's playouts move: random, or greedy for every seat",
    )
    p.add_argument(
        "--eval-rollout-policy",
        choices=ROLLOUT_POLICIES,
        default=None,
        help="the same for the evaluated agent and the file's default (default: --rollout-policy)",
    )
    p.add_argument(
        "--final-eval-games",
        type=int,
        default=default["final_eval_games"],
        help="games per opponent in the final evaluation (0: none)",
    )
    p.add_argument(
        "--keep-best",
        action="store_true",
        help="keep best.npz, the model the periodic evaluations score highest (mean of wins + "
        "draws/2 over --eval-opponents; later iterations win ties); the final evaluation plays it",
    )
    p.add_argument(
        "--no-save-buffer",
        dest="save_buffer",
        action="store_false",
        help="do not write buffer.npz (a resumed run then starts with an empty buffer)",
    )
    p.add_argument(
        "--resume", metavar="PATH", help="continue a run: its directory or checkpoint.pt"
    )
    p.add_argument(
        "--opponent",
        metavar="SPEC",
        help="an agent seated in --opponent-share of the games (seats rotated), e.g. greedy; "
        "the network learns from its own moves there (default: none, pure self-play)",
    )
    p.add_argument(
        "--opponent-share",
        type=float,
        default=default["opponent_share"],
        help="share of each iteration's games with --opponent in them",
    )
    p.add_argument(
        "--model-dtype",
        choices=("float32", "float16"),
        default=default["model_dtype"],
        help="weights of model.npz; float16 halves the file (outputs move by about 1e-3)",
    )
    p.add_argument(
        "--warm-start",
        metavar="SPEC",
        help="before self-play, fit the net to this agent's games against itself, e.g. greedy "
        "(default: none, self-play from random weights)",
    )
    p.add_argument(
        "--warm-games",
        type=int,
        default=default["warm_games"],
        help="games the --warm-start agent plays",
    )
    p.add_argument(
        "--warm-epochs",
        type=float,
        default=default["warm_epochs"],
        help="passes over the warm-start positions",
    )
    p.add_argument(
        "--warm-epsilon",
        type=float,
        default=default["warm_epsilon"],
        help="share of uniformly random moves in the warm-start games (the targets stay the "
        "agent's)",
    )
    p.add_argument(
        "--warm-lr",
        type=float,
        default=None,
        help="Adam learning rate of the warm start (default: --lr)",
    )
    p.add_argument(
        "--warm-temperature",
        type=float,
        default=None,
        help="policy target softmax(score / T) of the agent's action scores (default: uniform "
        "over its tied-best actions)",
    )
    p.add_argument("--seed", type=int, default=default["seed"], help="seed of the run")
    p.add_argument(
        "--threads", type=int, default=default["threads"], help="torch threads (0: torch's default)"
    )
    p.add_argument("--out", default=default["out"], help="output directory")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def config_from_args(args: argparse.Namespace) -> AZConfig:
    """Build an :class:`AZConfig` from parsed arguments (ValueError on a bad value)."""
    from tabletop_envs.training.train import parse_env_args

    try:
        hidden = tuple(int(x) for x in args.hidden.split(",") if x.strip())
    except ValueError:
        raise ValueError(
            f"hidden must be comma-separated layer widths like 256,256, got {args.hidden!r}"
        ) from None
    return AZConfig(
        env=args.env,
        env_kwargs=parse_env_args(args.env_arg),
        hidden=hidden,
        games=args.games,
        simulations=args.simulations,
        c_puct=args.c_puct,
        dirichlet_alpha=args.dirichlet_alpha,
        dirichlet_fraction=args.dirichlet_fraction,
        temperature_moves=args.temperature_moves,
        target_temperature=args.target_temperature,
        value_target=args.value_target,
        score_scale=args.score_scale,
        iterations=args.iterations,
        time_budget=args.time_budget,
        buffer_size=args.buffer_size,
        batch_size=args.batch_size,
        sample_reuse=args.sample_reuse,
        learning_rate=args.lr,
        weight_decay=args.weight_decay,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        eval_opponents=tuple(args.eval_opponents),
        eval_simulations=args.eval_simulations,
        rollout_weight=args.rollout_weight,
        eval_rollout_weight=args.eval_rollout_weight,
        rollout_policy=args.rollout_policy,
        eval_rollout_policy=args.eval_rollout_policy,
        final_eval_games=args.final_eval_games,
        keep_best=args.keep_best,
        save_buffer=args.save_buffer,
        resume=args.resume,
        opponent=args.opponent,
        opponent_share=args.opponent_share,
        model_dtype=args.model_dtype,
        warm_start=args.warm_start,
        warm_games=args.warm_games,
        warm_epochs=args.warm_epochs,
        warm_epsilon=args.warm_epsilon,
        warm_temperature=args.warm_temperature,
        warm_learning_rate=args.warm_lr,
        seed=args.seed,
        threads=args.threads,
        out=args.out,
        progress_bar=not args.no_progress,
    )


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Command-line entry point: parse ``argv``, train, print the final win rates."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        config = config_from_args(args)
    except ValueError as err:
        parser.error(str(err))  # exits 2 with the usage line
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
    try:
        given = sys.argv[1:] if argv is None else list(argv)
        shown = ["python", "-m", "tabletop_envs.training.az", *given]
        train_az(config, command=shlex.join(shown))
    except ValueError as err:  # a checkpoint that does not fit, an unreadable file
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 2
    return 0
