"""A ladder per game: every pair of agents plays an arena match, and all games are rated by Elo.

Run from the repository root::

    python benchmarks/ladder.py --env iris_v0 --agents random greedy mcts:iterations=200 \\
        --games-per-pair 100 --seed 2024 --out benchmarks/ladders --doc docs/agents.md
    # later, with more agents: only the new pairs are played
    python benchmarks/ladder.py ... --agents random greedy mcts:iterations=200 sb3:best.zip \\
        expert --resume

Method.

* **Matches.** Every unordered pair of agent specs (``A`` before ``B`` in ``--agents`` order)
  plays :func:`tabletop_envs.evaluation.arena.run_arena` with ``[A, B]``, ``--games-per-pair``
  games and the ladder's ``--seed``, so a pair's result is exactly that of
  ``tabletop-envs evaluate --env ENV --agents A B --games N --seed S`` (seats alternate, game
  ``g`` is dealt from ``SeedSequence(S, spawn_key=(g,))``). Two-player games only.
* **Ratings.** A Bradley-Terry model, P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400)), fitted by
  maximum likelihood to every game of every pair (a draw counts half a win to each side) with
  the arena's own fit (:func:`~tabletop_envs.evaluation.stats.fit_elo`, Hunter's MM
  algorithm) and its prior of one virtual draw between every pair of agents, which keeps the
  rating of an agent that never lost or never won finite. Ratings are shifted so the anchor
  (``random`` when it plays, else the first agent; ``--anchor``) is 0.
* **Intervals.** 95% intervals from a seeded parametric bootstrap, as Ordo rates engine
  lists: each resample replays every pair's games from the fitted model (the same number of
  games, the pair's observed draw rate, capped so the expected score stays the fitted one),
  refits and re-anchors. The interval is the *basic* bootstrap one, ``[2 R - q97.5, 2 R -
  q2.5]`` from the resamples' percentiles ``q``: every refit is pulled towards 0 by the virtual
  draws once more, and this reflection undoes that pull where plain percentiles would count it
  twice. On synthetic ladders (``benchmarks/ladder_coverage.py``: 3-4 agents 0-900 Elo apart,
  100 games per pair, 10% draws) it held the true rating 91-94% of the time, plain percentiles
  81-92%; where most pairs with the anchor are sweeps (900 and 1300 Elo) 69-79% (percentiles
  0-15%). The anchor's interval is [0, 0] by definition; every other interval is that agent's
  distance from the anchor, so each rating also gives its gap to the next agent down the
  ladder with that difference's own interval.
* **Sweeps.** When one agent wins every game of a pair, the data bound their gap from below
  only: the estimate is what the virtual draw allows, the interval then lies mostly above it,
  and the Markdown says which pairs were swept.
* **Pairwise table.** The score of the row agent against the column agent, (wins + draws/2) /
  games, with its 95% Wilson interval (:func:`~tabletop_envs.evaluation.stats.wilson`).

Outputs in ``--out`` (default ``runs/ladder``): ``ENV.json`` (every pair's result, the
ratings and intervals, the command, versions and seeds; written after every pair, so an
interrupted run loses at most one pair), ``ENV.md`` (the tables) and ``ENV.png`` (Elo with its
interval per agent). ``--resume`` keeps the pairs of ``ENV.json`` played with the same env,
parameters, games per pair and seed, and plays only the missing ones. ``--doc FILE`` rewrites
the text between ``<!-- ladder:ENV -->`` and ``<!-- /ladder:ENV -->`` in FILE with the tables,
the exact command and the picture, which it saves as ``img/ladder_ENV.png`` beside FILE.

Files. This script plays the matches and holds the command line and the ladder's JSON;
``ladder_results.py`` beside it holds a match's record (:class:`Pair`) and the ratings,
``ladder_report.py`` the Markdown, the picture and the doc block.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import tabletop_envs
from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.expert import check_agents
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.core.config import (
    CommandParser,
    Config,
    add_options,
    from_args,
    one_line,
    setting,
)
from tabletop_envs.envs.registry import registered_env
from tabletop_envs.evaluation.arena import run_arena
from tabletop_envs.evaluation.paths import folder_problem
from tabletop_envs.evaluation.stats import (
    DEFAULT_RESAMPLES,
    ELO_SCALE,
    PRIOR_DRAWS,
    expected_score,
    fit_elo,
)

# The modules beside this script: it runs as benchmarks/ladder.py or is loaded from its path.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from ladder_report import (
    TICK_WIDTH,
    check_doc,
    draw_picture,
    markdown,
    rewrite_block,
    tick_label,
    update_doc,
)
from ladder_results import Pair, Rating, bootstrap_elo, rate, score_matrices

ROOT = Path(__file__).resolve().parent.parent
PROG = "benchmarks/ladder.py"
FORMAT = "tabletop_envs ladder 1"

#: The ladder's pieces, those of the modules beside it too (its tests read them from here; the
#: model the ratings fit is the arena's ``expected_score``).
__all__ = [
    "TICK_WIDTH",
    "Ladder",
    "Pair",
    "Rating",
    "bootstrap_elo",
    "check_doc",
    "draw_picture",
    "expected_score",
    "fit_elo",
    "main",
    "markdown",
    "play_pair",
    "rate",
    "rewrite_block",
    "run",
    "score_matrices",
    "tick_label",
    "update_doc",
]


# ---- a match ----------------------------------------------------------------------------------
def play_pair(
    env_name: str,
    a: str,
    b: str,
    games: int,
    seed: int,
    env_kwargs: dict[str, Any] | None = None,
    ray_workers: int = 0,
    progress: Callable[[int, int], None] | None = None,
    made: Mapping[str, Agent] | None = None,
) -> Pair:
    """Play ``games`` arena games of ``a`` against ``b`` (seats alternate) and count them.

    The games are :func:`run_arena`'s with the specs ``[a, b]`` (a spec in ``made`` plays as
    the agent made for it, as ``tabletop-envs evaluate`` plays an ``sb3:`` model it loaded),
    and each agent's time per move is the arena's: the CPU time of its decisions, in whichever
    process played them.
    """
    made = made or {}
    cpu0, wall0 = time.process_time(), time.perf_counter()
    result = run_arena(
        env_name,
        [made.get(a, a), made.get(b, b)],
        games,
        seed=seed,
        env_kwargs=env_kwargs,
        progress=progress,
        ray_workers=ray_workers,
    )
    sa, sb = result.stats
    spent = time.perf_counter() - wall0 if ray_workers else time.process_time() - cpu0
    return Pair(
        a=a,
        b=b,
        games=games,
        seed=seed,
        wins_a=sa.wins,
        draws=sa.draws,
        wins_b=sb.wins,
        moves=(sa.moves, sb.moves),
        agent_seconds=(sa.seconds, sb.seconds),
        cpu_seconds=spent,
        versions=versions(),
    )


# ---- the ladder -------------------------------------------------------------------------------
@dataclass
class Ladder:
    """A round robin's settings, its matches and (once rated) the ratings."""

    env: str
    env_kwargs: dict[str, Any]
    agents: list[str]
    games_per_pair: int
    seed: int
    anchor: str
    resamples: int = DEFAULT_RESAMPLES
    command: str = ""
    pairs: list[Pair] = field(default_factory=list)
    ratings: list[Rating] = field(default_factory=list)
    #: the agents the matches play, made once by spec: the ``sb3:`` models, loaded when checked
    made: dict[str, Agent] = field(default_factory=dict, repr=False, compare=False)

    def schedule(self) -> list[tuple[str, str]]:
        """Return every unordered pair of agents, in ``agents`` order, not yet played."""
        done = {p.key for p in self.pairs}
        return [
            (a, b)
            for i, a in enumerate(self.agents)
            for b in self.agents[i + 1 :]
            if frozenset((a, b)) not in done
        ]

    def pair(self, a: str, b: str) -> Pair:
        """Return the match between ``a`` and ``b`` (either order)."""
        for p in self.pairs:
            if p.key == frozenset((a, b)):
                return p
        raise ValueError(f"{a!r} and {b!r} have not played")

    @property
    def cpu_seconds(self) -> float:
        """Return the time the matches took (CPU; wall for matches played on Ray)."""
        return sum(p.cpu_seconds for p in self.pairs)

    def to_dict(self) -> dict[str, Any]:
        """Return the ladder as JSON-ready data."""
        return {
            "format": FORMAT,
            "env": self.env,
            "env_kwargs": self.env_kwargs,
            "agents": self.agents,
            "games_per_pair": self.games_per_pair,
            "seed": self.seed,
            "anchor": self.anchor,
            "rating": {
                "model": "Bradley-Terry, maximum likelihood (Hunter's MM), draws half a win",
                "prior_draws_per_pair": PRIOR_DRAWS,
                "elo_scale": ELO_SCALE,
                "interval": "95% percentile, parametric bootstrap",
                "resamples": self.resamples,
                "bootstrap_seed": self.seed,
            },
            "command": self.command,
            "versions": versions(),
            "cpu_seconds": self.cpu_seconds,
            "pairs": [p.to_dict() for p in self.pairs],
            "ratings": [asdict(r) for r in self.ratings],
        }


def load_pairs(path: Path, ladder: Ladder) -> list[Pair]:
    """Return the matches of the ladder JSON at ``path`` that ``ladder`` can reuse.

    Its env, parameters, games per pair and seed must equal ``ladder``'s (ValueError naming the
    difference otherwise); matches of agents no longer listed are left out.
    """
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"--resume: cannot read {path}: {err}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"--resume: {path} is not a ladder file ({FORMAT!r})")
    wanted = {
        "env": ladder.env,
        "env_kwargs": json.loads(json.dumps(ladder.env_kwargs)),
        "games_per_pair": ladder.games_per_pair,
        "seed": ladder.seed,
    }
    for key, value in wanted.items():
        if data.get(key) != value:
            raise ValueError(
                f"--resume: {path} was played with {key}={data.get(key)!r}, this ladder has "
                f"{value!r}; use the same settings or another --out"
            )
    pairs = [Pair.from_dict(p) for p in data.get("pairs", [])]
    for p in pairs:
        if (p.games, p.seed) != (ladder.games_per_pair, ladder.seed):
            raise ValueError(f"--resume: {path}: {p.a} vs {p.b} has {p.games} games, seed {p.seed}")
    return [p for p in pairs if p.a in ladder.agents and p.b in ladder.agents]


def versions() -> dict[str, str]:
    """Return the versions the results depend on (package, commit, Python, numpy, machine)."""
    out = {
        "tabletop_envs": tabletop_envs.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
    }
    try:
        commit = _git("rev-parse", "--short", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=no")
        out["commit"] = commit + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        pass
    return out


def _git(*args: str) -> str:
    """Return what ``git ARGS`` prints about the repository (its output stripped)."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


# ---- command line -----------------------------------------------------------------------------
@dataclass
class LadderConfig(Config):
    """The command line of the ladder script."""

    env: str = setting(check=registered_env, help="registered env (2 players)")
    agents: tuple[str, ...] = setting(help="agent specs (at least 2), e.g. random mcts")
    games_per_pair: int = setting(low=1, help="games of each match")
    param: dict[str, Any] = setting(
        default_factory=dict, flags=("--param",), metavar="KEY=VALUE", help="game parameter"
    )
    seed: int = setting(0, low=0, help="arena seed of every match, and bootstrap")
    anchor: str | None = setting(
        None, help="agent rated 0 (none given: random if listed, else the first)"
    )
    resamples: int = setting(DEFAULT_RESAMPLES, low=1, help="bootstrap resamples")
    out: str = setting(
        "runs/ladder", check=folder_problem, help="folder of ENV.json, ENV.md, ENV.png"
    )
    resume: bool = setting(False, help="keep the matches of OUT/ENV.json")
    doc: str | None = setting(None, metavar="FILE", help="rewrite FILE's <!-- ladder:ENV --> block")
    ray: int = setting(
        0,
        low=0,
        metavar="WORKERS",
        help="play each match's games on WORKERS Ray tasks (same results; needs the rllib extra)",
    )
    quiet: bool = setting(False, help="no progress lines")


def canonical_command(args: LadderConfig) -> str:
    """Return the command that regenerates the ladder's results and outputs."""
    words = ["python", "benchmarks/ladder.py", "--env", args.env]
    for key, value in args.param.items():
        words += ["--param", f"{key}={json.dumps(value) if not isinstance(value, str) else value}"]
    words += ["--agents", *args.agents, "--games-per-pair", str(args.games_per_pair)]
    words += ["--seed", str(args.seed)]
    if args.anchor is not None:
        words += ["--anchor", args.anchor]
    if args.resamples != DEFAULT_RESAMPLES:
        words += ["--resamples", str(args.resamples)]
    words += ["--out", args.out]
    if args.doc:
        words += ["--doc", args.doc]
    return shlex.join(words)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ladder script."""
    p = CommandParser(
        prog=PROG,
        description="Round robin of 2-player arena matches between agents, rated by Elo.",
    )
    add_options(p, LadderConfig)
    return p


def parse(argv: list[str] | None = None) -> LadderConfig:
    """Return the checked command line (ValueError naming the option for a bad value)."""
    return from_args(LadderConfig, build_parser().parse_args(argv))


def ladder_from_args(args: LadderConfig) -> Ladder:
    """Check what the command line names and return the (unplayed) ladder it describes.

    Everything that would stop the run is refused here (ValueError naming the option), before
    any game: the agents are made and checked against the game, ``--doc`` (its markers
    included) checked, matplotlib (for the pictures) looked for.
    """
    env_kwargs = dict(args.param)
    try:
        env = tabletop_envs.make(args.env, **env_kwargs)
    except ValueError as err:
        raise ValueError(f"--param: {one_line(err)}" if env_kwargs else one_line(err)) from None
    players = env.game_spec.num_players
    if players != 2:
        raise ValueError(f"a ladder is of 2-player games; {args.env} has {players} players here")
    env.reset(seed=0)
    agents = list(args.agents)
    if len(agents) < 2 or len(set(agents)) != len(agents):
        raise ValueError(f"--agents needs at least 2 different specs, got {agents}")
    made = {}
    for spec in agents:
        try:  # an unknown spec, a missing model, a network made for other parameters
            agent = make_agent(spec, args.env, seed=0)
            check_agents([(repr(spec), agent)], env.game)
        except (ValueError, OSError) as err:
            raise ValueError(f"--agents: {one_line(err)}") from None
        if spec.startswith("sb3:"):  # its model is loaded once, for every match
            made[spec] = agent
    if args.doc is not None:
        check_doc(args.doc, args.env)
    if importlib.util.find_spec("matplotlib") is None:
        raise ValueError("the ladder's pictures need matplotlib (pip install matplotlib)")
    anchor = args.anchor or ("random" if "random" in agents else agents[0])
    if anchor not in agents:
        raise ValueError(f"--anchor {anchor!r} is not among --agents {agents}")
    return Ladder(
        env=args.env,
        env_kwargs=env_kwargs,
        agents=agents,
        games_per_pair=args.games_per_pair,
        seed=args.seed,
        anchor=anchor,
        resamples=args.resamples,
        command=canonical_command(args),
        made=made,
    )


def run(args: LadderConfig) -> Ladder:
    """Play the missing matches, rate, and write the JSON, Markdown, picture (and doc block)."""
    ladder = ladder_from_args(args)
    out = Path(args.out)
    json_path = out / f"{ladder.env}.json"
    if args.resume and json_path.exists():
        ladder.pairs = load_pairs(json_path, ladder)
    todo = ladder.schedule()
    say: Callable[[str], None] = (lambda _m: None) if args.quiet else _stderr
    say(f"{ladder.env}: {len(ladder.pairs)} matches kept, {len(todo)} to play")
    out.mkdir(parents=True, exist_ok=True)
    for n, (a, b) in enumerate(todo, 1):
        pair = play_pair(
            ladder.env,
            a,
            b,
            ladder.games_per_pair,
            ladder.seed,
            ladder.env_kwargs,
            ray_workers=args.ray,
            progress=None if args.quiet else _progress(f"[{n}/{len(todo)}] {a} vs {b}"),
            made=ladder.made,
        )
        ladder.pairs.append(pair)
        json_path.write_text(json.dumps(ladder.to_dict(), indent=2) + "\n")
        say(f"  {a} {pair.wins_a} - {pair.draws} - {pair.wins_b} {b} ({pair.cpu_seconds:.0f} s)")
    if args.ray:
        import ray

        ray.shutdown()
    ladder.ratings = rate(ladder.agents, ladder.pairs, ladder.anchor, ladder.resamples, ladder.seed)
    json_path.write_text(json.dumps(ladder.to_dict(), indent=2) + "\n")
    draw_picture(ladder, out / f"{ladder.env}.png")
    (out / f"{ladder.env}.md").write_text(
        f"# {ladder.env} ladder\n\n" + markdown(ladder, f"{ladder.env}.png")
    )
    if args.doc:
        picture = update_doc(ladder, Path(args.doc))
        say(f"rewrote the {ladder.env} block of {args.doc} and {picture}")
    say(f"wrote {json_path}, {out / f'{ladder.env}.md'}, {out / f'{ladder.env}.png'}")
    return ladder


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def _progress(label: str) -> Callable[[int, int], None]:
    def show(done: int, total: int) -> None:
        end = "\n" if done == total else ""
        print(f"\r{label}: {done}/{total} games", end=end, file=sys.stderr)

    return show


def main(argv: list[str] | None = None) -> int:
    """Run the ladder script; return the exit code (2 for bad input)."""
    try:
        ladder = run(parse(argv))
    except (ValueError, ImportError, OSError) as err:  # the command line's: before any game
        print(f"{PROG}: error: {one_line(err)}", file=sys.stderr)
        return 2
    print(markdown(ladder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
