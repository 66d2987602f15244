"""``python -m tabletop_envs.training.az``: AlphaZero-style training from the command line."""

from tabletop_envs.training.az.cli import main

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m tabletop_envs.training.az"))
