"""Which Irk decisions an agent plays well: one agent chooses the tiles, another places them.

Run from the repository root::

    python benchmarks/irk_split.py --chooser expert --placer planner --games 200
    python benchmarks/irk_split.py --chooser planner --placer expert --opponent planner

An Irk turn is two kinds of decision: *choosing* a tile of the hand (for a bet or for the table)
and *placing* the revealed tile on the table. The split agent plays every choose step with
``--chooser`` and every place step with ``--placer`` (agent specs, as ``tabletop-envs evaluate``
takes them), and plays ``--opponent`` in the arena (seats alternated, ``--seed``). Against the
two agents played whole on the same deals, it shows where one agent's strength or weakness lies.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletop_envs.agents import make_agent
from tabletop_envs.agents.base import Agent
from tabletop_envs.core.config import Config, parse_command, setting
from tabletop_envs.core.game import GameState
from tabletop_envs.evaluation import run_arena
from tabletop_envs.games.irk.rules import CHOOSE

ENV = "irk_v0"


class SplitAgent(Agent):
    """Plays Irk's choose steps with one agent and its place steps with another."""

    def __init__(self, chooser: str, placer: str, seed: int | None = None) -> None:
        self.chooser = make_agent(chooser, ENV, seed=seed)
        self.placer = make_agent(placer, ENV, seed=seed)
        self.name = f"choose={chooser}+place={placer}"

    def reset(self, seed: int | None = None) -> None:
        """Reset both agents."""
        self.chooser.reset(seed)
        self.placer.reset(seed)

    def act(self, game: GameState, seat: int) -> int:
        """Ask the chooser in the choose phase, the placer otherwise."""
        agent = self.chooser if game.phase == CHOOSE else self.placer  # type: ignore[attr-defined]
        return agent.act(game, seat)


@dataclass
class SplitConfig(Config):
    """The command line of this script."""

    chooser: str = setting("expert", help="agent spec of the choose steps")
    placer: str = setting("planner", help="agent spec of the place steps")
    opponent: str = setting("greedy", help="the opponent's agent spec")
    games: int = setting(200, low=1, help="games played")
    seed: int = setting(4242, low=0, help="seed of the arena's deals")


def main(argv: list[str] | None = None) -> int:
    """Play the split agent against the opponent and print the table."""
    args, parser = parse_command(
        SplitConfig, argv, prog="irk_split.py", description=__doc__.splitlines()[0]
    )
    for option in ("chooser", "placer", "opponent"):
        try:  # an unknown spec, a missing file: before any game
            make_agent(getattr(args, option), ENV)
        except (ValueError, OSError) as err:
            parser.error(f"--{option}: {err}")
    split = SplitAgent(args.chooser, args.placer)
    print(run_arena(ENV, [split, args.opponent], args.games, args.seed).table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
