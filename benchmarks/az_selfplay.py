"""AlphaZero self-play speed: positions per CPU second of ``training.az.self_play``.

Run from the repository root::

    python benchmarks/az_selfplay.py                      # irk_v0 and iris_v0, 2 rounds each
    python benchmarks/az_selfplay.py --env irk_v0 --rounds 3 --games 16

Method: the training defaults of ``python -m tabletop_envs.training.az`` (64 simulations,
``--hidden 256,256``, automatic Dirichlet alpha, random playouts weight 0, one torch thread)
except the number of games played in lockstep (``--games``, default 16 instead of 64, so a
round is short); ``--simulations``, ``--hidden`` and ``--root`` change those (the Irk expert
was trained with ``--simulations 32 --hidden 64,64``, where the network's share of the time is
smaller).
The network is the untrained torch net of seed 0 (speed does not depend on the weights). Each
round plays one :func:`~tabletop_envs.training.az.self_play` batch with the
rng of seed ``[0, round]``, so every round of every run plays the same games; the figure is the
batch's positions (moves, rows) over its CPU seconds (``SelfPlayBatch.cpu_seconds``), the
median of the rounds, and each round is printed. Envs take the parameters of ``bench.py``.
A mistake (an unknown env, a count out of range) is one line ``az_selfplay.py: error: ...``
naming the option, before any round.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one BLAS thread: before numpy is imported
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import statistics

import numpy as np
from bench import ENV_PARAMS

from tabletop_envs.core.config import CommandParser, options_named
from tabletop_envs.envs.registry import new_game, registered_envs
from tabletop_envs.training.az import (
    AZConfig,
    auto_dirichlet_alpha,
    build_torch_net,
    self_play,
    torch_evaluator,
)
from tabletop_envs.training.az.cli import layer_widths


def make_config(
    name: str,
    games: int,
    simulations: int,
    hidden: tuple[int, ...] = (256, 256),
    root: str = "puct",
) -> AZConfig:
    """Return the checked training config of the rounds on ``name`` (InvalidParameterError)."""
    return AZConfig(
        env=name,
        env_kwargs=ENV_PARAMS.get(name, {}),
        games=games,
        simulations=simulations,
        hidden=hidden,
        root=root,
        eval_every=0,
        progress_bar=False,
    )


def run_env(config: AZConfig, rounds: int) -> list[float]:
    """Print and return the positions per CPU second of each self-play round of ``config``."""
    import torch

    torch.set_num_threads(1)
    name = config.env
    proto = new_game(name, config.env_kwargs)
    game_class, params = type(proto), proto.params
    obs_dim = int(np.prod(proto.spec.observation_shape))
    net = build_torch_net(obs_dim, proto.spec.num_actions, config.hidden, seed=0)
    net.eval()
    alpha = auto_dirichlet_alpha(game_class, params, seed=0)
    evaluate = torch_evaluator(net)
    rates = []
    for r in range(rounds):
        rng = np.random.default_rng([0, r])
        batch = self_play(evaluate, game_class, params, config, rng, alpha)
        rate = batch.moves / batch.cpu_seconds
        rates.append(rate)
        print(
            f"{name} round {r + 1}: {batch.moves} positions ({batch.searches} searched) in "
            f"{batch.cpu_seconds:.2f} CPU s: {rate:.1f} positions per CPU s",
            flush=True,
        )
    print(f"{name}: median {statistics.median(rates):.1f} positions per CPU s")
    return rates


def main(argv: list[str] | None = None) -> int:
    """Parse the options and run the self-play rounds."""
    parser = CommandParser(prog="az_selfplay.py", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--env", action="append", choices=registered_envs(), help="registered env (repeatable)"
    )
    parser.add_argument("--games", type=int, default=16, help="games played in lockstep")
    parser.add_argument("--simulations", type=int, default=64, help="PUCT simulations per move")
    parser.add_argument("--rounds", type=int, default=2, help="self-play batches per env")
    parser.add_argument(
        "--hidden",
        type=layer_widths,
        default="256,256",
        help="hidden layer widths, comma-separated (training's)",
    )
    parser.add_argument(
        "--root", default="puct", choices=("puct", "gumbel"), help="self-play's root rule"
    )
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be an integer >= 1, got {args.rounds}")
    try:  # every env's config checked before the first round
        configs = [
            make_config(name, args.games, args.simulations, args.hidden, args.root)
            for name in args.env or ["irk_v0", "iris_v0"]
        ]
    except ValueError as err:
        parser.error(options_named(AZConfig, str(err)))
    for config in configs:
        run_env(config, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
