"""How much hidden information costs the AZ search: the agent as shipped against one that peeks.

Run from the repository root::

    python benchmarks/az_ceiling.py --env isis_osiris_v0 --agent expert --games 200

The agent (an ``az`` or ``expert`` spec) plays ``--opponent`` (default ``greedy``) twice over the
same ``--games`` deals of the arena (seats alternated, ``--seed``): once as shipped, searching
determinizations drawn with ``resample_hidden`` (what its seat may know), and once *peeking*:
every search runs on copies of the true position (the hidden tiles and hands as they are; the
chance events still come from the search's own stream). Where the hidden information is a
seat's secret (Irk's hands, which their owners' choices say something about), the peeking
result is a ceiling for what better inference could give this network and search. Where nobody
knows it (Isis & Osiris's stacks: the uniform redraw is already every seat's exact belief) it is
the worth of foreseeing chance (each reveal to come), which no agent can have. Either way it is
not a legal agent: it is never registered. For perfect-information games (Iris) both are the
same.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from tabletop_envs.agents import make_agent
from tabletop_envs.agents.az import AZAgent
from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.expert import az_agent_of
from tabletop_envs.core.config import CommandParser, Config, add_options, from_args, setting
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import new_game, registered_env
from tabletop_envs.evaluation import run_arena


class PeekingAgent(Agent):
    """Wraps an :class:`AZAgent` so that its searches see the true state (a diagnostic only)."""

    name = "peeking"

    def __init__(self, inner: AZAgent) -> None:
        self.inner = inner

    def reset(self, seed: int | None = None) -> None:
        """Reset the wrapped agent."""
        self.inner.reset(seed)

    def act(self, game: GameState, seat: int) -> int:
        """Search copies of the true state: ``resample_hidden`` becomes a plain clone meanwhile."""
        cls = type(game)
        honest = cls.resample_hidden

        def peek(state: GameState, seat: int, rng: object) -> GameState:
            return state.clone()

        cls.resample_hidden = peek  # type: ignore[method-assign]
        try:
            return self.inner.act(game, seat)
        finally:
            cls.resample_hidden = honest  # type: ignore[method-assign]


@dataclass
class CeilingConfig(Config):
    """The command line of this script."""

    env: str = setting("isis_osiris_v0", check=registered_env, help="registered env")
    agent: str = setting("expert", help="the agent: an az:PATH or expert spec")
    opponent: str = setting("greedy", help="the opponent's agent spec")
    games: int = setting(200, low=1, help="games of each match")
    seed: int = setting(12345, low=0, help="seed of the arena's deals")


def main(argv: list[str] | None = None) -> int:
    """Play both matches and print them."""
    parser = CommandParser(prog="az_ceiling.py", description=__doc__.splitlines()[0])
    add_options(parser, CeilingConfig)
    try:
        args = from_args(CeilingConfig, parser.parse_args(argv))
    except ValueError as err:
        parser.error(str(err))
    for option, spec in (("--agent", args.agent), ("--opponent", args.opponent)):
        try:  # an unknown spec, a missing file: before any game
            make_agent(spec, args.env, seed=0)
        except (ValueError, OSError) as err:
            parser.error(f"{option}: {err}")
    for label, peeking in (("as shipped", False), ("peeking", True)):
        agent = az_agent_of(make_agent(args.agent, args.env, seed=0), new_game(args.env, {}))
        if agent is None:
            parser.error(f"--agent {args.agent!r} is not an az:PATH or expert spec")
        player: Agent = PeekingAgent(agent) if peeking else agent
        start = time.perf_counter()
        result = run_arena(args.env, [player, args.opponent], args.games, args.seed)
        stats = result.stats[0]
        low, high = stats.interval("wins")
        print(
            f"{args.env}: {args.agent} {label} vs {args.opponent}: win rate "
            f"{stats.rate('wins'):.3f} [{low:.3f}, {high:.3f}] ({stats.wins}W {stats.draws}D "
            f"{stats.losses}L over {args.games} games, {time.perf_counter() - start:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
