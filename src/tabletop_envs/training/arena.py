"""The arena: N games between any set of agents on any registered env, seats rotated.

Outcomes come from the game's ``returns()``: in each game the seats with the highest return are
its *winners*. A seat that is the **sole** winner scores a **win**; winners sharing the top (a
tie, or equal highest scores in a 3-4 player game) each score a **draw**; every other seat scores
a **loss**. With the games' default ``win_loss`` rewards this is exactly: return +1 win, 0 draw,
-1 loss. An agent that fills several seats of one game (fewer agents than seats) gets one result
per seat. Rates carry 95% Wilson score intervals.

Seats rotate so every agent plays every seat equally often over each cycle of :func:`lineups`
(exactly so when the number of games is a multiple of the cycle length). With three or more
agents the arena also fits Bradley-Terry strengths to the pairwise results inside each game
(higher return beats lower, equal returns count half a win each) with Hunter's MM algorithm, and
reports them as Elo ratings (400 * log10 strength, mean 0).
Everything is deterministic for a seed: game ``g`` is dealt and every agent reseeded from
``SeedSequence(seed, spawn_key=(g,))``, so a game's result does not depend on the others.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import make

Z95 = 1.959963984540054
#: Virtual draws added between every pair of agents before fitting Bradley-Terry (keeps an
#: unbeaten or winless agent's rating finite).
PRIOR_DRAWS = 1.0


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Return the Wilson score interval of a binomial proportion (``(0, 1)`` for no trials)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    # at no successes (all successes) the bound is exactly 0 (1); rounding would miss it
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return low, high


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


def bradley_terry(
    wins: np.ndarray, games: np.ndarray, iterations: int = 10_000, tol: float = 1e-10
) -> np.ndarray:
    """Return Bradley-Terry strengths (geometric mean 1) by Hunter's MM algorithm.

    ``wins[i, j]`` is how often ``i`` beat ``j`` (draws count half to each), ``games[i, j]``
    how often they met. Every agent must have a win and a loss somewhere (add a prior).
    """
    k = len(wins)
    gamma = np.ones(k)
    total_wins = wins.sum(axis=1)
    for _ in range(iterations):
        denom = (games / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.where(denom > 0, denom, 1), 1.0)
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - gamma)) < tol:
            return new
        gamma = new
    return gamma


@dataclass
class AgentStats:
    """One agent's results over the arena (one result per seat it filled)."""

    name: str
    results: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    return_sum: float = 0.0
    moves: int = 0
    seconds: float = 0.0
    per_seat: dict[int, list[int]] = field(default_factory=dict)  # seat -> [wins, draws, losses]

    def rate(self, what: str) -> float:
        """Return the fraction of results that are ``"wins"``, ``"draws"`` or ``"losses"``."""
        return getattr(self, what) / self.results if self.results else 0.0

    def interval(self, what: str) -> tuple[float, float]:
        """Return the 95% Wilson interval of :meth:`rate`."""
        return wilson(getattr(self, what), self.results)

    @property
    def score(self) -> float:
        """Return (wins + draws / 2) / results."""
        return (self.wins + self.draws / 2) / self.results if self.results else 0.0

    @property
    def mean_return(self) -> float:
        """Return the mean game return of the agent's seats."""
        return self.return_sum / self.results if self.results else 0.0


@dataclass
class ArenaResult:
    """What :func:`run_arena` measured; :meth:`table` prints it, :meth:`to_json` saves it."""

    env_name: str
    env_kwargs: dict[str, Any]
    seed: int
    games: int
    num_players: int
    agents: list[str]
    stats: list[AgentStats]
    elo: list[float] | None
    lineup_cycle: int
    mean_length: float
    outcomes: list[list[float]]  # per game: the returns of its seats
    seating: list[list[int]]  # per game: agent index per seat

    def table(self) -> str:
        """Return a text table: per agent W/D/L, rates with 95% CIs, score, Elo, time per move."""
        kw = ", ".join(f"{k}={v!r}" for k, v in self.env_kwargs.items())
        lines = [
            f"{self.env_name}({kw}): {self.games} games, {self.num_players} seats, seed "
            f"{self.seed}, mean length {self.mean_length:.1f} steps",
        ]
        if self.games % self.lineup_cycle:
            lines.append(f"(seat balance is exact for multiples of {self.lineup_cycle} games)")
        width = max(6, *(len(a) for a in self.agents))
        head = (
            f"{'agent':<{width}}  {'n':>5} {'W':>5} {'D':>5} {'L':>5}  "
            f"{'win% [95% CI]':<19} {'draw% [95% CI]':<19} {'loss% [95% CI]':<19} {'score':>6}"
        )
        if self.elo is not None:
            head += f" {'Elo':>6}"
        head += f" {'ms/move':>8}"
        lines += [head, "-" * len(head)]
        for i, s in enumerate(self.stats):
            row = f"{s.name:<{width}}  {s.results:>5} {s.wins:>5} {s.draws:>5} {s.losses:>5}  "
            for what in ("wins", "draws", "losses"):
                lo, hi = s.interval(what)
                row += f"{100 * s.rate(what):5.1f} [{100 * lo:4.1f},{100 * hi:5.1f}] "
            row += f"{s.score:6.3f}"
            if self.elo is not None:
                row += f" {self.elo[i]:+6.0f}"
            ms = 1000 * s.seconds / s.moves if s.moves else 0.0
            row += f" {ms:8.2f}"
            lines.append(row)
        lines.append("")
        lines.append("score by seat (wins + draws/2 per result):")
        for s in self.stats:
            cells = []
            for seat in range(self.num_players):
                w, d, l_ = s.per_seat.get(seat, [0, 0, 0])
                n = w + d + l_
                cells.append(
                    f"seat {seat}: {((w + d / 2) / n):.3f} ({n})" if n else f"seat {seat}: -"
                )
            lines.append(f"  {s.name:<{width}} " + "  ".join(cells))
        return "\n".join(lines)

    def to_dict(self, timing: bool = True) -> dict[str, Any]:
        """Return the result as JSON-ready data (``timing=False`` drops the clock readings)."""
        agents = []
        for i, s in enumerate(self.stats):
            entry: dict[str, Any] = {
                "name": s.name,
                "results": s.results,
                "wins": s.wins,
                "draws": s.draws,
                "losses": s.losses,
                "win_rate": s.rate("wins"),
                "win_ci95": list(s.interval("wins")),
                "draw_rate": s.rate("draws"),
                "draw_ci95": list(s.interval("draws")),
                "loss_rate": s.rate("losses"),
                "loss_ci95": list(s.interval("losses")),
                "score": s.score,
                "mean_return": s.mean_return,
                "elo": None if self.elo is None else self.elo[i],
                "per_seat": {str(k): v for k, v in sorted(s.per_seat.items())},
                "moves": s.moves,
            }
            if timing:
                entry["seconds_per_move"] = s.seconds / s.moves if s.moves else 0.0
            agents.append(entry)
        return {
            "env": self.env_name,
            "env_kwargs": self.env_kwargs,
            "seed": self.seed,
            "games": self.games,
            "num_players": self.num_players,
            "lineup_cycle": self.lineup_cycle,
            "mean_length": self.mean_length,
            "outcome_rule": "per game, seats with the highest return win; sole winner = win, "
            "shared highest = draw, others = loss",
            "agents": agents,
            "games_played": [
                {"seating": seats, "returns": rets}
                for seats, rets in zip(self.seating, self.outcomes, strict=True)
            ],
        }

    def to_json(self, timing: bool = True, indent: int | None = 2) -> str:
        """Return :meth:`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(timing), indent=indent)


def _names(agents: Sequence[str | Agent]) -> list[str]:
    names = []
    for a in agents:
        base = a if isinstance(a, str) else getattr(a, "spec", None) or a.name
        name, k = base, 2
        while name in names:
            name, k = f"{base}#{k}", k + 1
        names.append(name)
    return names


def game_seeds(seed: int, game: int, num_players: int) -> tuple[int, list[int]]:
    """Return the deal seed of game number ``game`` of an arena run and its agents' seeds."""
    seq = np.random.SeedSequence(seed, spawn_key=(game,))
    seeds = seq.generate_state(num_players + 1, dtype=np.uint64).tolist()
    return int(seeds[0]), [int(s) for s in seeds[1:]]


def play_game(
    game: GameState,
    seat_agents: Sequence[Agent],
    names: Sequence[str],
    label: str = "the game",
    on_move: Callable[[int, float], None] | None = None,
) -> int:
    """Play ``game`` to its end, ``seat_agents[s]`` choosing for seat ``s``; return the steps.

    ``on_move(seat, seconds)`` hears how long each choice took. An illegal action raises
    RuntimeError naming the agent (``names[seat]``), as does a game longer than its declared
    maximum.
    """
    max_steps = game.spec.max_game_length
    steps = 0
    while not game.is_terminal:
        seat = game.current_player
        t0 = time.perf_counter()
        action = seat_agents[seat].act(game, seat)
        if on_move is not None:
            on_move(seat, time.perf_counter() - t0)
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


def run_arena(
    env_name: str,
    agents: Sequence[str | Agent],
    games: int,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    ray_workers: int = 0,
) -> ArenaResult:
    """Play ``games`` games of ``env_name`` between ``agents`` (specs or instances), seats rotated.

    ``env_kwargs`` are the game's parameters (as for :func:`tabletop_envs.make`). A spec string
    gets its own agent instance per seat it fills; an :class:`Agent` instance is shared. Each
    agent is ``reset`` with a per-game seed before every game. An illegal action by an agent
    raises RuntimeError naming it.

    ``ray_workers > 0`` spreads the games over that many Ray tasks (joining the Ray instance
    ``ray.init`` made, or starting a local one); each game depends only on its own seeds, so
    the results equal the local arena's for the same seed (the timings differ).
    """
    if isinstance(agents, (str, Agent)) or not agents:
        raise ValueError("agents must be a non-empty list of agent specs or Agent instances")
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if not isinstance(ray_workers, int) or ray_workers < 0:
        raise ValueError(f"ray_workers must be an integer >= 0, got {ray_workers!r}")
    env_kwargs = dict(env_kwargs or {})
    n = make(env_name, **env_kwargs).game_spec.num_players  # validates env and parameters
    names = _names(agents)
    k = len(agents)
    cycle = lineups(k, n)
    if ray_workers:
        played = _play_on_ray(
            env_name, env_kwargs, list(agents), games, seed, ray_workers, progress
        )
    else:
        played = _play_games(env_name, env_kwargs, list(agents), range(games), seed, progress)
    stats = [AgentStats(name) for name in names]
    pair_wins = np.zeros((k, k))
    pair_games = np.zeros((k, k))
    outcomes: list[list[float]] = []
    seating: list[list[int]] = []
    total_steps = 0
    for game in played:
        for idx, (seconds, moves) in enumerate(zip(game.seconds, game.moves, strict=True)):
            stats[idx].seconds += seconds
            stats[idx].moves += moves
        total_steps += game.steps
        _score_game(game.returns, game.lineup, stats, pair_wins, pair_games)
        outcomes.append(game.returns)
        seating.append(list(game.lineup))
    elo = None
    if k >= 3:
        w = pair_wins + PRIOR_DRAWS / 2 * (1 - np.eye(k))
        m = pair_games + PRIOR_DRAWS * (1 - np.eye(k))
        gamma = bradley_terry(w, m)
        ratings = 400 * np.log10(gamma)
        elo = (ratings - ratings.mean()).tolist()
    return ArenaResult(
        env_name=env_name,
        env_kwargs=env_kwargs,
        seed=seed,
        games=games,
        num_players=n,
        agents=names,
        stats=stats,
        elo=elo,
        lineup_cycle=len(cycle),
        mean_length=total_steps / games,
        outcomes=outcomes,
        seating=seating,
    )


@dataclass
class PlayedGame:
    """One arena game: the seats' returns, who sat where, its length and each agent's clock."""

    returns: list[float]
    lineup: tuple[int, ...]
    steps: int
    seconds: list[float]  # per agent index
    moves: list[int]  # per agent index


def _play_games(
    env_name: str,
    env_kwargs: dict[str, Any],
    agents: list[str | Agent],
    game_ids: Sequence[int],
    seed: int,
    progress: Callable[[int, int], None] | None = None,
) -> list[PlayedGame]:
    """Play the arena games ``game_ids`` (each dealt and seeded from its own id) in order."""
    env = make(env_name, **env_kwargs)
    game_class, params = env.game_class, env.params
    n = env.game_spec.num_players
    names = _names(agents)
    cycle = lineups(len(agents), n)
    instances: dict[tuple[int, int], Agent] = {}  # (agent index, copy) -> agent

    def agent_for(idx: int, copy: int) -> Agent:
        a = agents[idx]
        if not isinstance(a, str):
            return a
        key = (idx, copy)
        if key not in instances:
            instances[key] = make_agent(a, env_name, seed=None)
        return instances[key]

    played = []
    for done, g in enumerate(game_ids, 1):
        deal_seed, agent_seeds = game_seeds(seed, g, n)
        lineup = cycle[g % len(cycle)]
        seat_agents = []
        copies: dict[int, int] = {}
        for seat, idx in enumerate(lineup):
            copy = copies.get(idx, 0)
            copies[idx] = copy + 1
            agent = agent_for(idx, copy)
            agent.reset(agent_seeds[seat])
            seat_agents.append(agent)
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


def _play_on_ray(
    env_name: str,
    env_kwargs: dict[str, Any],
    agents: list[str | Agent],
    games: int,
    seed: int,
    workers: int,
    progress: Callable[[int, int], None] | None,
) -> list[PlayedGame]:
    """Play the games in ``workers`` Ray tasks (interleaved game ids); return them in order."""
    from tabletop_envs.training.rllib import init_ray

    init_ray()  # joins RAY_ADDRESS or starts a local Ray, unless this process has one
    import ray

    task = ray.remote(_play_games)
    chunks = [list(range(w, games, workers)) for w in range(min(workers, games))]
    pending = {task.remote(env_name, env_kwargs, agents, ids, seed): ids for ids in chunks}
    by_id: dict[int, PlayedGame] = {}
    while pending:
        ready, _ = ray.wait(list(pending))
        for ref in ready:
            ids = pending.pop(ref)
            by_id.update(zip(ids, ray.get(ref), strict=True))
            if progress is not None:
                progress(len(by_id), games)
    return [by_id[g] for g in range(games)]


def _score_game(
    returns: list[float],
    lineup: tuple[int, ...],
    stats: list[AgentStats],
    pair_wins: np.ndarray,
    pair_games: np.ndarray,
) -> None:
    """Add one game's per-seat results and pairwise comparisons."""
    top = max(returns)
    winners = [s for s, r in enumerate(returns) if r >= top - 1e-12]
    for seat, idx in enumerate(lineup):
        st = stats[idx]
        row = st.per_seat.setdefault(seat, [0, 0, 0])
        if seat in winners and len(winners) == 1:
            st.wins += 1
            row[0] += 1
        elif seat in winners:
            st.draws += 1
            row[1] += 1
        else:
            st.losses += 1
            row[2] += 1
        st.results += 1
        st.return_sum += returns[seat]
    for s1, s2 in itertools.combinations(range(len(lineup)), 2):
        a, b = lineup[s1], lineup[s2]
        if a == b:
            continue
        pair_games[a, b] += 1
        pair_games[b, a] += 1
        if returns[s1] > returns[s2] + 1e-12:
            pair_wins[a, b] += 1
        elif returns[s2] > returns[s1] + 1e-12:
            pair_wins[b, a] += 1
        else:
            pair_wins[a, b] += 0.5
            pair_wins[b, a] += 0.5


__all__ = [
    "AgentStats",
    "ArenaResult",
    "PlayedGame",
    "bradley_terry",
    "game_seeds",
    "lineups",
    "play_game",
    "run_arena",
    "wilson",
]
