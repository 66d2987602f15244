"""Playing games between agents: one game, the arena's seeded series, the seat rotation.

Everything is deterministic for a seed: game ``g`` of a series is dealt and every agent
reseeded from ``SeedSequence(seed, spawn_key=(g,))`` (:func:`game_seeds`), so a game's result
does not depend on the others, on their order or on the process that plays it. Seats rotate
through the cycle of :func:`lineups`. :class:`GameConfig` declares the game a command plays.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.expert import check_agents
from tabletop_envs.agents.registry import agent_names as registered_agents
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.core.config import Config, quote, setting
from tabletop_envs.core.errors import IllegalActionError, InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, make, new_game

#: Hears the progress of a series: ``progress(games done, games in all)``.
Progress = Callable[[int, int], None]


@dataclass
class GameConfig(Config):
    """Which game a command plays: the registered env, its parameters and the seed."""

    env: str = setting("iris_v0", help="registered env ('tabletop-envs list' shows them)")
    params: dict[str, Any] = setting(
        default_factory=dict,
        help="game parameter, repeatable (e.g. --param board_size=7 --param num_players=3)",
        flags=("--param",),
        metavar="KEY=VALUE",
    )
    seed: int = setting(0, low=0, help="seed of the deals and the agents")

    def check(self) -> None:
        """Refuse an unknown env or a game parameter it refuses before anything is played."""
        super().check()
        self.check_seats(self.seats())

    def check_seats(self, seats: int) -> None:
        """Checks against the game's number of ``seats`` (its probe game dealt once, by
        :meth:`check`); none here."""

    def seats(self) -> int:
        """Return the number of seats of the game; InvalidParameterError naming ``env`` or
        ``params`` (``--env``, ``--param``) if there is no such game."""
        try:
            env_spec(self.env)
        except ValueError as err:
            raise InvalidParameterError(f"env: {err}") from None
        try:
            return int(new_game(self.env, self.params).num_players)
        except (TypeError, ValueError) as err:
            raise InvalidParameterError(f"params: {err}") from None


#: How ``--agents`` is read, for the help of every command that takes it.
AGENTS_RULE = (
    "separate agents by spaces or commas: 'greedy mcts' = 'greedy,mcts'; a comma-separated "
    "piece without ':' that is not an agent name (c=2, sample) continues the previous "
    "agent's options: 'greedy,mcts:iterations=50,c=2' is two agents"
)

#: The spec syntax of the agents people use most (the rest: docs/agents.md).
COMMON_SPECS = (
    "mcts[:iterations=N,c=X,playout=random|greedy|planner]",
    "expert[:simulations=N,network=off,root=gumbel]",
    "az:PATH[,simulations=N,c=X]",
    "sb3:PATH[,sample][,NAME=VALUE] (most likely move unless ',sample'; NAME=VALUE: the "
    "observation parameters the model was trained with, e.g. Irk's action_values=true)",
    "rllib:CHECKPOINT[,sample]",
)


def agents_help(what: str) -> str:
    """Return the help of an ``--agents`` option: ``what`` it is, the rule, the registry's names."""
    return (
        f"{what}; {AGENTS_RULE}. Agents: {', '.join(registered_agents())}; e.g. "
        f"{', '.join(COMMON_SPECS)}. sb3 models and rllib checkpoints are pickles, which run "
        "code when loaded: load only files you trust"
    )


def split_agents(specs: Sequence[str]) -> list[str]:
    """Return agent specs from ``["greedy,mcts:iterations=50,c=2", "random"]``-style arguments.

    Spaces (separate arguments) and commas both separate agents, except that a comma-separated
    piece without ``:`` that is not an agent name (``c=2``, ``sample``) continues the previous
    agent's options (:data:`AGENTS_RULE`).
    """
    names = set(registered_agents())
    agents: list[str] = []
    for spec in specs:
        start = len(agents)
        for piece in (p.strip() for p in spec.split(",")):
            if not piece:  # 'random,,' or '': a typo, not an agent to leave out quietly
                raise InvalidParameterError(
                    f"agents: empty agent spec in {quote(spec)} (a doubled or trailing comma, "
                    "or an empty argument): name an agent between commas"
                )
            option = ":" not in piece and "=" in piece  # continues even the previous argument
            flag = ":" not in piece and piece not in names and len(agents) > start
            if (option or flag) and agents:
                agents[-1] += "," + piece
            else:
                agents.append(piece)
    if not agents:
        raise InvalidParameterError("agents: name at least one agent, e.g. --agents greedy mcts")
    return agents


def game_seeds(seed: int, game: int, num_players: int) -> tuple[int, list[int]]:
    """Return the deal seed of game number ``game`` of an arena run and its agents' seeds."""
    seq = np.random.SeedSequence(seed, spawn_key=(game,))
    seeds = seq.generate_state(num_players + 1, dtype=np.uint64).tolist()
    return int(seeds[0]), [int(s) for s in seeds[1:]]


def lineups(num_agents: int, num_seats: int) -> list[tuple[int, ...]]:
    """Return the cycle of seat assignments (agent index per seat) games go through.

    With ``k <= n`` agents, game ``g`` puts agent ``(seat + g) mod k`` in each seat (cycle of
    ``k``). With more agents than seats, every ordered choice of ``n`` distinct agents is one
    lineup. Over a whole cycle every agent fills every seat equally often.
    """
    if num_agents < 1:
        raise ValueError("the arena needs at least one agent")
    if num_agents <= num_seats:
        return [
            tuple((seat + g) % num_agents for seat in range(num_seats)) for g in range(num_agents)
        ]
    return list(itertools.permutations(range(num_agents), num_seats))


def agent_names(agents: Sequence[str | Agent]) -> list[str]:
    """Return a distinct name per agent: its spec (or name), ``#2``, ``#3``... for repeats."""
    names: list[str] = []
    for a in agents:
        base = a if isinstance(a, str) else getattr(a, "spec", None) or a.name
        name, k = base, 2
        while name in names:
            name, k = f"{base}#{k}", k + 1
        names.append(name)
    return names


def play_game(
    game: GameState,
    seat_agents: Sequence[Agent],
    names: Sequence[str],
    label: str = "the game",
    on_move: Callable[[int, float], None] | None = None,
) -> int:
    """Play ``game`` to its end, ``seat_agents[s]`` choosing for seat ``s``; return the steps.

    ``on_move(seat, seconds)`` hears the CPU time each choice took (this process's,
    ``time.process_time``: other programs on a busy machine do not count). An illegal action raises
    RuntimeError naming the agent (``names[seat]``), as does a game longer than its declared
    maximum.
    """
    max_steps = game.spec.max_game_length
    steps = 0
    while not game.is_terminal:
        seat = game.current_player
        t0 = time.process_time()
        action = seat_agents[seat].act(game, seat)
        if on_move is not None:
            on_move(seat, time.process_time() - t0)
        try:
            game.apply(action)
        except IllegalActionError as err:
            raise RuntimeError(
                f"agent {names[seat]!r} played an illegal action in {label} (seat {seat}): {err}"
            ) from err
        steps += 1
        if steps > max_steps:
            raise RuntimeError(f"{label} exceeded the declared max length {max_steps}")
    return steps


def play_seated(
    env_name: str,
    game_class: type[GameState],
    params: Any,
    seat_specs: Sequence[str],
    seed: int,
    label: str,
) -> GameState:
    """Play game 0 of an arena run with ``seed``, ``seat_specs[s]`` in seat ``s``; return it.

    The deal and the agents' seeds are those :func:`play_games` gives game 0 (so an arena run
    whose first lineup seats the same specs plays the same game).
    """
    deal, agent_seeds = game_seeds(seed, 0, len(seat_specs))
    players = []
    for s, agent_spec in enumerate(seat_specs):
        agent = make_agent(agent_spec, env_name, seed=None)
        agent.reset(agent_seeds[s])
        players.append(agent)
    game = game_class(params, deal)
    check_agents(((f"seat {s} ({seat_specs[s]})", a) for s, a in enumerate(players)), game)
    play_game(game, players, seat_specs, label)
    return game


@dataclass
class PlayedGame:
    """One arena game: the seats' returns, who sat where, its length and each agent's clock."""

    returns: list[float]
    lineup: tuple[int, ...]
    steps: int
    seconds: list[float]  # per agent index
    moves: list[int]  # per agent index


class _Seating:
    """The agents of a series: a spec gets one instance per copy of it in a game's lineup."""

    def __init__(self, agents: Sequence[str | Agent], env_name: str) -> None:
        self.agents = agents
        self.env_name = env_name
        self.instances: dict[tuple[int, int], Agent] = {}  # (agent index, copy) -> agent

    def seat(self, lineup: tuple[int, ...], seeds: Sequence[int]) -> list[Agent]:
        """Return the agent of each seat of ``lineup``, each reset with its seat's seed."""
        seat_agents = []
        copies: dict[int, int] = {}
        for seat, idx in enumerate(lineup):
            copy = copies.get(idx, 0)
            copies[idx] = copy + 1
            agent = self.agent(idx, copy)
            agent.reset(seeds[seat])
            seat_agents.append(agent)
        return seat_agents

    def agent(self, idx: int, copy: int) -> Agent:
        """Return agent ``idx``'s instance for its ``copy``-th seat in a game (built once)."""
        a = self.agents[idx]
        if not isinstance(a, str):
            return a
        key = (idx, copy)
        if key not in self.instances:
            self.instances[key] = make_agent(a, self.env_name, seed=None)
        return self.instances[key]


def play_games(
    env_name: str,
    env_kwargs: dict[str, Any],
    agents: list[str | Agent],
    game_ids: Sequence[int],
    seed: int,
    progress: Progress | None = None,
) -> list[PlayedGame]:
    """Play the arena games ``game_ids`` (each dealt and seeded from its own id) in order."""
    env = make(env_name, **env_kwargs)
    game_class, params = env.game_class, env.params
    n = env.game_spec.num_players
    names = agent_names(agents)
    cycle = lineups(len(agents), n)
    seating = _Seating(agents, env_name)
    if game_ids:  # an agent whose network cannot play these games is named before the first
        probe = game_class(params, game_seeds(seed, game_ids[0], n)[0])
        check_agents(
            ((f"agent {names[i]!r}", seating.agent(i, 0)) for i in range(len(agents))), probe
        )
    played = []
    for done, g in enumerate(game_ids, 1):
        deal_seed, agent_seeds = game_seeds(seed, g, n)
        lineup = cycle[g % len(cycle)]
        seat_agents = seating.seat(lineup, agent_seeds)
        game = game_class(params, deal_seed)
        seconds = [0.0] * len(agents)
        moves = [0] * len(agents)

        def timed(
            seat: int,
            spent: float,
            lineup: tuple[int, ...] = lineup,
            seconds: list[float] = seconds,
            moves: list[int] = moves,
        ) -> None:
            seconds[lineup[seat]] += spent
            moves[lineup[seat]] += 1

        seat_names = [names[idx] for idx in lineup]
        steps = play_game(game, seat_agents, seat_names, f"game {g}", on_move=timed)
        returns = [float(r) for r in game.returns()]
        played.append(PlayedGame(returns, lineup, steps, seconds, moves))
        if progress is not None:
            progress(done, len(game_ids))
    return played


__all__ = [
    "AGENTS_RULE",
    "GameConfig",
    "PlayedGame",
    "Progress",
    "agent_names",
    "agents_help",
    "game_seeds",
    "lineups",
    "play_game",
    "play_games",
    "play_seated",
    "split_agents",
]
