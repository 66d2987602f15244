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


def self_play_main(argv: list[str]) -> int:
    """Run :func:`tabletop_envs.training.train.main` with self-play defaults (errors: one line)."""
    argv = list(argv)
    defaults = {
        "--snapshot-every": "20000",
        "--eval-opponent": "greedy",
        "--out": "runs/self_play",
    }
    aliases = {"--snapshot-every": ("--self-play-every",)}
    for flag, value in defaults.items():
        names = (flag, *aliases.get(flag, ()))
        if not any(a == n or a.startswith(n + "=") for a in argv for n in names):
            argv += [flag, value]
    return run_command(argv, prog="self_play.py")


if __name__ == "__main__":
    sys.exit(self_play_main(sys.argv[1:]))
