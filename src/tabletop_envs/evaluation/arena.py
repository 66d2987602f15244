"""The arena: N games between any set of agents on any registered env, seats rotated.

Outcomes come from the game's ``returns()``: in each game the seats with the highest return are
its *winners*. A seat that is the **sole** winner scores a **win**; winners sharing the top (a
tie, or equal highest scores in a 3-4 player game) each score a **draw**; every other seat scores
a **loss**. With the games' default ``win_loss`` rewards this is exactly: return +1 win, 0 draw,
-1 loss. An agent that fills several seats of one game (fewer agents than seats) gets one result
per seat. Rates carry 95% Wilson score intervals.

Seats rotate so every agent plays every seat equally often over each cycle of
:func:`~.play.lineups` (exactly so when the number of games is a multiple of the cycle length).
With three or more agents the arena also fits Bradley-Terry strengths to the pairwise results
inside each game (higher return beats lower, equal returns count half a win each) with Hunter's
MM algorithm, and reports them as Elo ratings (400 * log10 strength, mean 0).
Everything is deterministic for a seed: game ``g`` is dealt and every agent reseeded from
``SeedSequence(seed, spawn_key=(g,))``, so a game's result does not depend on the others.

:class:`ArenaConfig` declares a run (``tabletop-envs evaluate``'s options); :func:`evaluate`
runs one.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.core.config import quote, setting
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.envs.registry import make
from tabletop_envs.evaluation.paths import file_problem
from tabletop_envs.evaluation.play import (
    GameConfig,
    PlayedGame,
    Progress,
    agent_names,
    agents_help,
    lineups,
    play_games,
    split_agents,
)
from tabletop_envs.evaluation.stats import fit_elo, wilson


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
    seconds: float = 0.0  # CPU time of its decisions (time.process_time of the playing process)
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

    def to_dict(self, timing: bool = True, elo: float | None = None) -> dict[str, Any]:
        """Return the agent's results (and its arena ``elo``) as JSON-ready data."""
        entry: dict[str, Any] = {
            "name": self.name,
            "results": self.results,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
        }
        for what, key in (("wins", "win"), ("draws", "draw"), ("losses", "loss")):
            entry[f"{key}_rate"] = self.rate(what)
            entry[f"{key}_ci95"] = list(self.interval(what))
        entry["score"] = self.score
        entry["mean_return"] = self.mean_return
        entry["elo"] = elo
        entry["per_seat"] = {str(k): v for k, v in sorted(self.per_seat.items())}
        entry["moves"] = self.moves
        if timing:
            entry["seconds_per_move"] = self.seconds / self.moves if self.moves else 0.0
        return entry


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
        name = f"{self.env_name}({kw})" if kw else self.env_name
        lines = [
            f"{name}: {self.games} games, {self.num_players} seats, seed {self.seed}, "
            f"mean length {self.mean_length:.1f} steps",
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
        lines += ["", "score by seat (wins + draws/2 per result):"]
        lines += [f"  {s.name:<{width}} " + self._seat_cells(s) for s in self.stats]
        return "\n".join(lines)

    def _seat_cells(self, s: AgentStats) -> str:
        cells = []
        for seat in range(self.num_players):
            w, d, l_ = s.per_seat.get(seat, [0, 0, 0])
            n = w + d + l_
            cells.append(f"seat {seat}: {((w + d / 2) / n):.3f} ({n})" if n else f"seat {seat}: -")
        return "  ".join(cells)

    def to_dict(self, timing: bool = True) -> dict[str, Any]:
        """Return the result as JSON-ready data (``timing=False`` drops the clock readings)."""
        elos = self.elo if self.elo is not None else [None] * len(self.stats)
        agents = [s.to_dict(timing, elo) for s, elo in zip(self.stats, elos, strict=True)]
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


def run_arena(
    env_name: str,
    agents: Sequence[str | Agent],
    games: int,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    progress: Progress | None = None,
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
    if ray_workers:
        from tabletop_envs.evaluation.ray import play_on_ray

        played = play_on_ray(env_name, env_kwargs, list(agents), games, seed, ray_workers, progress)
    else:
        played = play_games(env_name, env_kwargs, list(agents), range(games), seed, progress)
    stats, elo = tally(played, agent_names(agents))
    return ArenaResult(
        env_name=env_name,
        env_kwargs=env_kwargs,
        seed=seed,
        games=games,
        num_players=n,
        agents=agent_names(agents),
        stats=stats,
        elo=elo,
        lineup_cycle=len(lineups(len(agents), n)),
        mean_length=sum(game.steps for game in played) / games,
        outcomes=[game.returns for game in played],
        seating=[list(game.lineup) for game in played],
    )


def tally(
    played: Sequence[PlayedGame], names: Sequence[str]
) -> tuple[list[AgentStats], list[float] | None]:
    """Return every agent's :class:`AgentStats` over ``played``, and Elo for 3+ agents."""
    k = len(names)
    stats = [AgentStats(name) for name in names]
    pair_wins = np.zeros((k, k))
    pair_games = np.zeros((k, k))
    for game in played:
        for idx, (seconds, moves) in enumerate(zip(game.seconds, game.moves, strict=True)):
            stats[idx].seconds += seconds
            stats[idx].moves += moves
        score_game(game.returns, game.lineup, stats, pair_wins, pair_games)
    elo = fit_elo(pair_wins, pair_games, anchor=None).tolist() if k >= 3 else None
    return stats, elo


def score_game(
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


# ---- a run as declared on the command line ---------------------------------------------------
def _no_negative_threads(threads: int) -> str | None:
    return "must be 0 (torch's default) or more" if threads < 0 else None


@dataclass
class ArenaConfig(GameConfig):
    """An arena run: ``tabletop-envs evaluate``'s options."""

    about = (
        "Play N games between agents with seats rotated; print win/draw/loss rates with 95% "
        "Wilson intervals (and Elo for 3+ agents)."
    )

    agents: tuple[str, ...] = setting(("random", "greedy"), help=agents_help("agent specs"))
    threads: int = setting(
        1,
        help="torch threads for sb3: agents that name none (1: the fastest for these small "
        "networks; 0: torch's default)",
        check=_no_negative_threads,
    )
    games: int = setting(20, low=1, help="number of games")
    json: str | None = setting(
        None, help="also write the results as JSON to PATH", metavar="PATH", check=file_problem
    )
    quiet: bool = setting(False, help="no progress line")
    ray: int = setting(
        0,
        low=0,
        metavar="WORKERS",
        help="spread the games over WORKERS Ray tasks (--ray alone: 2; 0: none; same results "
        "as without; needs the rllib extra)",
    )
    address: str | None = setting(
        None,
        help="with --ray: the Ray cluster to join (default: RAY_ADDRESS, else a local instance)",
    )

    def check(self) -> None:
        """Read the agents as :func:`~.play.split_agents` does (spaces or commas); refuse an
        address without Ray workers (it would be ignored)."""
        super().check()
        object.__setattr__(self, "agents", tuple(split_agents(self.agents)))
        if self.address is not None and not self.ray:
            raise InvalidParameterError(
                "address needs --ray N: the Ray cluster it names runs the --ray workers"
            )


def evaluate(config: ArenaConfig, progress: Progress | None = None) -> ArenaResult:
    """Run the arena ``config`` declares (on Ray with ``config.ray`` workers); return it."""
    if config.ray:
        from tabletop_envs.evaluation.ray import init_ray, shutdown_ray

        init_ray(config.address, log_to_driver=False)
    try:
        return run_arena(
            config.env,
            build_agents(config.agents, config.env, config.threads),
            config.games,
            seed=config.seed,
            env_kwargs=config.params,
            progress=None if config.quiet else progress,
            ray_workers=config.ray,
        )
    finally:
        if config.ray:
            shutdown_ray()


def build_agents(specs: Sequence[str], env_name: str, threads: int) -> list[str | Agent]:
    """Return ``specs`` with each ``sb3:`` spec built, torch pinned to ``threads`` unless it says.

    The models are loaded here with ``threads=`` added to a spec that names none (torch's thread
    count is per process); each keeps the spec as typed as its name in the report.
    """
    if threads < 0:
        raise ValueError(f"threads must be 0 (torch's default) or more, got {threads}")
    out: list[str | Agent] = []
    for spec in specs:
        if not spec.startswith("sb3:"):
            out.append(spec)
            continue
        options = spec.split(",")[1:]
        named = any(o.strip().startswith("threads=") for o in options)
        made = spec if named else f"{spec},threads={threads}"
        try:
            agent = make_agent(made, env_name)
        except (ValueError, OSError) as err:  # in the user's words: the spec as typed
            message = str(err).replace(quote(made), quote(spec)).replace(made, spec)
            raise type(err)(message) from None
        agent.spec = spec  # type: ignore[attr-defined]  # the name the report shows
        out.append(agent)
    return out


__all__ = [
    "AgentStats",
    "ArenaConfig",
    "ArenaResult",
    "build_agents",
    "evaluate",
    "run_arena",
    "score_game",
    "tally",
]
