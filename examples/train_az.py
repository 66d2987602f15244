"""Train an AlphaZero-style agent by self-play on any registered env; evaluate the shipped file.

    python examples/train_az.py --env iris_v0 --iterations 20 --out runs/az_iris
    python examples/train_az.py --env isis_osiris_v0 --env-arg num_players=3 --value-target score
    python examples/train_az.py --env iris_v0 --iterations 40 --resume runs/az_iris \
        --out runs/az_iris

Each iteration plays ``--games`` self-play games in lockstep with PUCT search (one batched
network evaluation per simulation round for all of them), trains the network on the replay
buffer, and exports it to ``model.npz``, the file ``AZAgent`` plays with numpy only. Writes
``model.npz``, ``checkpoint.pt``, ``buffer.npz``, ``results.json`` and ``winrate.png`` into
``--out``, with a progress bar; ``--help`` lists every option with its default. The same
entry point as ``tabletop-envs train --algo az``. Needs the ``train`` extra:
``pip install torch==2.13.0`` then ``pip install -e ".[train]"``.

The shipped file in an arena, afterwards::

    from tabletop_envs.agents.az import AZAgent, PolicyValueNet
    from tabletop_envs.evaluation import run_arena

    agent = AZAgent(PolicyValueNet.load("runs/az_iris/model.npz"), simulations=64)
    print(run_arena("iris_v0", [agent, "greedy"], games=200).table())
"""

from __future__ import annotations

import sys

from tabletop_envs.training.az import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], prog="train_az.py"))
