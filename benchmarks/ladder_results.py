"""A ladder's matches and what they rate: :class:`Pair` (one arena match, read back from JSON
with every field checked) and :func:`rate` (every agent's Elo with its bootstrap interval).

Beside ``benchmarks/ladder.py``, which plays the matches; the fit itself is the arena's
(:mod:`tabletop_envs.evaluation.stats`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from tabletop_envs.evaluation import stats
from tabletop_envs.evaluation.stats import DEFAULT_RESAMPLES, Match, basic_interval, fit_elo


# ---- results ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pair:
    """One arena match between agents ``a`` (listed first) and ``b``."""

    a: str
    b: str
    games: int
    seed: int
    wins_a: int
    draws: int
    wins_b: int
    moves: tuple[int, int] = (0, 0)  # per agent (a, b)
    agent_seconds: tuple[float, float] = (0.0, 0.0)  # CPU time of each agent's moves
    cpu_seconds: float = 0.0  # of the whole match (this process's CPU time; wall with --ray)
    versions: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> frozenset[str]:
        """Return the unordered pair of agent specs."""
        return frozenset((self.a, self.b))

    def score(self, agent: str) -> float:
        """Return ``agent``'s wins plus half the draws in this match."""
        if agent not in (self.a, self.b):
            raise ValueError(f"{agent!r} did not play in {self.a!r} vs {self.b!r}")
        return (self.wins_a if agent == self.a else self.wins_b) + self.draws / 2

    def to_dict(self) -> dict[str, Any]:
        """Return the match as JSON-ready data."""
        out = asdict(self)
        out["moves"], out["agent_seconds"] = list(self.moves), list(self.agent_seconds)
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Pair:
        """Parse a match written by :meth:`to_dict`; ValueError naming what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"a pair is a JSON object, got {data!r}")
        missing = {"a", "b", "games", "seed", "wins_a", "draws", "wins_b"} - set(data)
        if missing:
            raise ValueError(f"pair {data!r} lacks {sorted(missing)}")
        a, b = data["a"], data["b"]
        if not (isinstance(a, str) and isinstance(b, str) and a != b):
            raise ValueError(f"a pair names two different agent specs, got {a!r} and {b!r}")
        counts = [data[k] for k in ("games", "wins_a", "draws", "wins_b")]
        if not all(type(c) is int and c >= 0 for c in counts) or counts[0] != sum(counts[1:]):
            raise ValueError(f"pair {a} vs {b}: games must equal wins + draws + wins, {counts}")
        try:
            moves = [int(m) for m in data.get("moves", (0, 0))]
            spent = [float(t) for t in data.get("agent_seconds", (0.0, 0.0))]
            seed, cpu = int(data["seed"]), float(data.get("cpu_seconds", 0.0))
            versions = {str(k): str(v) for k, v in data.get("versions", {}).items()}
        except (TypeError, ValueError, AttributeError) as err:
            raise ValueError(f"pair {a} vs {b}: malformed field ({err})") from None
        if len(moves) != 2 or len(spent) != 2:
            raise ValueError(f"pair {a} vs {b}: moves and agent_seconds hold 2 numbers each")
        return cls(
            a=a,
            b=b,
            games=counts[0],
            seed=seed,
            wins_a=counts[1],
            draws=counts[2],
            wins_b=counts[3],
            moves=(moves[0], moves[1]),
            agent_seconds=(spent[0], spent[1]),
            cpu_seconds=cpu,
            versions=versions,
        )


# ---- ratings ----------------------------------------------------------------------------------
def matches(agents: Sequence[str], pairs: Sequence[Pair]) -> list[Match]:
    """Return the pairs as :class:`~tabletop_envs.evaluation.stats.Match` counts (agent indices)."""
    index = {a: i for i, a in enumerate(agents)}
    return [Match(index[p.a], index[p.b], p.wins_a, p.draws, p.wins_b) for p in pairs]


def score_matrices(agents: Sequence[str], pairs: Sequence[Pair]) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(wins, games)``: ``wins[i, j]`` is i's score against j (draws half), k x k."""
    return stats.score_matrices(len(agents), matches(agents, pairs))


def bootstrap_elo(
    agents: Sequence[str],
    pairs: Sequence[Pair],
    anchor: int,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> np.ndarray:
    """Return ``resamples`` x k Elo ratings refitted on games replayed from the fitted model.

    :func:`tabletop_envs.evaluation.stats.bootstrap_elo` of the pairs, in their order.
    """
    return stats.bootstrap_elo(len(agents), matches(agents, pairs), anchor, resamples, seed)


@dataclass(frozen=True)
class Rating:
    """One agent's place on the ladder."""

    agent: str
    elo: float
    low: float
    high: float
    games: int
    score: float  # (wins + draws/2) / games over all its matches
    ms_per_move: float
    # Elo above the next agent down the ladder, with its 95% interval (None for the last)
    gap: float | None = None
    gap_low: float | None = None
    gap_high: float | None = None


def rate(
    agents: Sequence[str],
    pairs: Sequence[Pair],
    anchor: str,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> list[Rating]:
    """Return every agent's rating with its 95% bootstrap interval, best first.

    Each rating also carries its gap to the next agent down the ladder with that difference's
    own interval (from the same resamples): the ratings' intervals are distances from the
    anchor and move together, so two overlapping intervals can still hide a clear gap.
    """
    if anchor not in agents:
        raise ValueError(f"the anchor {anchor!r} is not among the agents {list(agents)}")
    a = list(agents).index(anchor)
    wins, games = score_matrices(agents, pairs)
    elo = fit_elo(wins, games, a)
    samples = bootstrap_elo(agents, pairs, a, resamples, seed)
    low, high = basic_interval(elo, samples)
    order = sorted(range(len(agents)), key=lambda i: -elo[i])
    out = []
    for rank, i in enumerate(order):
        name = agents[i]
        moves = sum(p.moves[p.a != name] for p in pairs if name in (p.a, p.b))
        spent = sum(p.agent_seconds[p.a != name] for p in pairs if name in (p.a, p.b))
        n = int(games[i].sum())
        gap = {}
        if rank + 1 < len(order):
            j = order[rank + 1]
            g_low, g_high = basic_interval(elo[i] - elo[j], samples[:, i] - samples[:, j])
            gap = {
                "gap": float(elo[i] - elo[j]),
                "gap_low": float(g_low),
                "gap_high": float(g_high),
            }
        out.append(
            Rating(
                agent=name,
                elo=float(elo[i]),
                low=float(low[i]),
                high=float(high[i]),
                games=n,
                score=float(wins[i].sum() / n) if n else 0.0,
                ms_per_move=1000 * spent / moves if moves else 0.0,
                **gap,
            )
        )
    return out
