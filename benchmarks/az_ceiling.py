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

``--peeks all hands`` (Irk) adds a second peeking match that splits what the first one sees:
*hands* sees the other seats' hands and the tiles out of play, but not the tiles they chose
this round and have not revealed (each is redrawn from its owner's hand). ``all`` less ``hands``
is the worth of seeing a simultaneous choice, which no inference gives; ``hands`` bounds what a
better belief about the hands could give.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_envs.agents import make_agent
from tabletop_envs.agents.az import AZAgent
from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.expert import az_agent_of
from tabletop_envs.core.config import Config, parse_command, setting
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, new_game, registered_env
from tabletop_envs.evaluation import run_arena
from tabletop_envs.games.irk.params import CHOOSE, PLACE

#: ``view(state, seat, rng)``: the copy a peeking search runs on.
View = Callable[[GameState, int, np.random.Generator], GameState]


def true_position(state: GameState, seat: int, rng: np.random.Generator) -> GameState:
    """The peek ``all``: a copy of the position as it is."""
    return state.clone()


def known_hands(state: GameState, seat: int, rng: np.random.Generator) -> GameState:
    """The peek ``hands`` (Irk): a copy in which every other seat's unrevealed choice of this
    round is redrawn from its hand (that choice included), the hands otherwise as they are."""
    new: Any = state.clone()
    placer = new.to_move if new.phase == PLACE else -1  # the tile being placed is public
    for other, tile in enumerate(new.chosen):
        if other in (seat, placer) or tile < 0:
            continue
        both = sorted([*new.hands[other], tile])
        new.chosen[other] = both.pop(int(rng.integers(len(both))))
        new.hands[other] = both
    if new.phase == CHOOSE and new.to_move != seat:  # the mover's hand may have changed
        new._mask = None  # as IrkState.resample_hidden does: its cached legal mask
    new.seed = None  # as there: the action log no longer rebuilds this position
    return new


PEEKS = {"all": true_position, "hands": known_hands}


class PeekingAgent(Agent):
    """Wraps an :class:`AZAgent` so that its searches see more than its seat may (a diagnostic
    only): ``view(state, seat, rng)`` stands in for ``resample_hidden`` while it acts."""

    name = "peeking"

    def __init__(self, inner: AZAgent, view: View = true_position) -> None:
        self.inner = inner
        self.view = view

    def reset(self, seed: int | None = None) -> None:
        """Reset the wrapped agent."""
        self.inner.reset(seed)

    def act(self, game: GameState, seat: int) -> int:
        """Search the copies ``view`` makes: it replaces ``resample_hidden`` meanwhile."""
        cls = type(game)
        honest = cls.resample_hidden
        cls.resample_hidden = self.view  # type: ignore[method-assign, assignment]
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
    peeks: tuple[str, ...] = setting(
        ("all",),
        choices=tuple(PEEKS),
        help="what each peeking match sees: all (the true position) or hands (Irk: the "
        "others' hands, not their unrevealed choices)",
    )

    def check(self) -> None:
        """Refuse the peek ``hands`` outside Irk (it reads Irk's hands and choices)."""
        if "hands" in self.peeks and env_spec(self.env).load_game().game_name != "irk":
            raise InvalidParameterError(f"peeks 'hands' reads Irk's hands, not {self.env}'s")


def main(argv: list[str] | None = None) -> int:
    """Play both matches and print them."""
    args, parser = parse_command(
        CeilingConfig, argv, prog="az_ceiling.py", description=__doc__.splitlines()[0]
    )
    for option, spec in (("--agent", args.agent), ("--opponent", args.opponent)):
        try:  # an unknown spec, a missing file: before any game
            make_agent(spec, args.env, seed=0)
        except (ValueError, OSError) as err:
            parser.error(f"{option}: {err}")
    matches = [("as shipped", None)]
    matches += [("peeking" if peek == "all" else f"peeking at {peek}", peek) for peek in args.peeks]
    for label, peek in matches:
        agent = az_agent_of(make_agent(args.agent, args.env, seed=0), new_game(args.env, {}))
        if agent is None:
            parser.error(f"--agent {args.agent!r} is not an az:PATH or expert spec")
        player: Agent = agent if peek is None else PeekingAgent(agent, PEEKS[peek])
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
