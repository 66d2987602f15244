"""Self-play: MaskablePPO against a pool of frozen snapshots of itself.

    python examples/self_play.py --env iris_v0 --timesteps 300000 --snapshot-every 20000

The opponent pool starts with ``--opponent`` (default ``random``); every ``--snapshot-every``
steps a frozen copy of the learner's policy joins it (at most ``--pool-size`` snapshots are
kept, oldest dropped first; the starting opponent always stays). Each episode draws its
opponent from the pool, and the learner's seat alternates. Progress is measured against
``--eval-opponent`` (default ``greedy``), a fixed yardstick the learner never trains against.
Outputs are those of ``train_maskable_ppo.py``.

The mechanism, by hand::

    from tabletop_envs.training import PolicyAgent

    snapshot = PolicyAgent.snapshot(model)          # frozen: never trained again
    vec_env.env_method("add_opponent", snapshot)
"""

from __future__ import annotations

import sys

from tabletop_envs.training.train import run_command

#: The settings whose defaults self-play changes (``--help`` shows these).
SELF_PLAY_DEFAULTS = {"self_play_every": 20_000, "eval_opponent": "greedy", "out": "runs/self_play"}


def self_play_main(argv: list[str]) -> int:
    """Run :func:`tabletop_envs.training.train.main` with self-play defaults (errors: one line)."""
    return run_command(argv, prog="self_play.py", defaults=SELF_PLAY_DEFAULTS)


if __name__ == "__main__":
    sys.exit(self_play_main(sys.argv[1:]))
