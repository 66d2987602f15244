"""Speed of the AlphaZero-style search: PUCT simulations per second and AZAgent time per move.

Run from the repository root::

    python benchmarks/az_search.py                        # every env, random [128, 128] nets
    python benchmarks/az_search.py --env iris_v0 --hidden 64 64 --simulations 64 200
    python benchmarks/az_search.py --expert          # the packaged experts at their defaults
    python benchmarks/az_search.py --expert --players 2 3 4   # each at every player count

Method: a network with random weights (:meth:`PolicyValueNet.initial`, the shape of a small
trained one: speed does not depend on the weights) for each env's default parameters. *Search*:
:func:`run_puct` from one mid-game position (6 random moves in), with 1 root and with 16 roots
searched together (the self-play batch), best of 3 runs; a simulation is one root's descent,
evaluation and backup. *Agent*: :class:`AZAgent` plays whole games against itself (4 games,
at most 40 moves each) and every ``act`` is timed, forced moves included (they cost nothing).
``--expert``: the packaged expert of each env (``make_agent("expert", env)``, its own
simulations and playout weight) plays ``--games`` whole games against ``greedy`` and every
expert ``act`` is timed. ``--clock cpu`` (the default) counts the process's CPU time, which a
busy machine disturbs less than ``wall`` does. numpy is asked for one thread (as in self-play
workers).

A mistake (a count or width out of range) is one line ``az_search.py: error: ...`` naming the
option, before anything is timed.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one BLAS thread: before numpy is imported
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tabletop_envs.agents import make_agent
from tabletop_envs.agents.az import MAX_SIMULATIONS, AZAgent, PolicyValueNet, run_puct
from tabletop_envs.agents.expert import az_agent_of
from tabletop_envs.core.config import Config, parse_command, setting
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import make, registered_envs
from tabletop_envs.training.az.config import MAX_WIDTH


def _position(env_name: str, moves: int, seed: int) -> GameState:
    """Return the default-parameter game of ``env_name`` after ``moves`` random moves."""
    env = make(env_name)
    game: GameState = env.game_class(env.params, seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if game.is_terminal:
            break
        game.apply(int(rng.choice(np.flatnonzero(game.legal_mask()))))
    return game


def bench_env(
    env_name: str, hidden: list[int], simulations: list[int], clock: Callable[[], float]
) -> None:
    """Print the search and agent figures of one env."""
    env = make(env_name)
    game = _position(env_name, 6, seed=1)
    net = PolicyValueNet.initial(game, hidden=hidden, seed=1)
    rng = np.random.default_rng(0)
    seat = game.current_player
    for roots, sims in ((1, 400), (16, 100)):
        best = 0.0
        for _ in range(3):
            start = clock()
            run_puct([game] * roots, [seat] * roots, net, sims, rng)
            best = max(best, roots * sims / (clock() - start))
        print(f"{env_name}: run_puct with {roots:2d} root(s): {best:7.0f} simulations/s")
    for sims in simulations:
        agent = AZAgent(net, simulations=sims, seed=0)
        times = []
        for seed in range(4):
            g = env.game_class(env.params, seed)
            for _ in range(40):
                if g.is_terminal:
                    break
                start = clock()
                action = agent.act(g, g.current_player)
                times.append(clock() - start)
                g.apply(action)
        ms = np.array(times) * 1000
        print(
            f"{env_name}: AZAgent(simulations={sims}): {ms.mean():.1f} ms/move mean, "
            f"{np.median(ms):.1f} median, {ms.max():.1f} max over {len(ms)} moves"
        )


def bench_expert(
    env_name: str, games: int, clock: Callable[[], float], players: int | None = None
) -> None:
    """Print the time per move of ``env_name``'s packaged expert, playing against greedy
    (``players`` seats: the env's default when None, the expert in one of them)."""
    env = make(env_name)
    if players is not None and players != len(env.possible_agents):
        env = make(env_name, num_players=players)
    expert = az_agent_of(make_agent("expert", env_name, seed=0), env.game_class(env.params, 0))
    assert expert is not None
    greedy = make_agent("greedy", env_name, seed=0)
    times = []
    for seed in range(games):
        g = env.game_class(env.params, seed)
        seat_of_expert = seed % g.num_players
        while not g.is_terminal:
            seat = g.current_player
            if seat == seat_of_expert:
                start = clock()
                action = expert.act(g, seat)
                times.append(clock() - start)
            else:
                action = greedy.act(g, seat)
            g.apply(action)
    ms = np.array(times) * 1000
    n = len(env.possible_agents)
    print(
        f"{env_name} ({n} players): expert (simulations={expert.simulations}, playout_weight="
        f"{expert.playout_weight:g}): {ms.mean():.1f} ms/move mean, {np.median(ms):.1f} median, "
        f"{np.percentile(ms, 99):.1f} 99th percentile, {ms.max():.1f} max over {len(ms)} moves "
        f"({games} games against greedy)"
    )


@dataclass
class SearchConfig(Config):
    """The command line of this script."""

    env: tuple[str, ...] | None = setting(
        None, repeat=True, choices=registered_envs(), help="registered env (none given: every one)"
    )
    hidden: tuple[int, ...] = setting((128, 128), low=1, high=MAX_WIDTH, help="layer widths")
    simulations: tuple[int, ...] = setting(
        (64, 0), low=0, high=MAX_SIMULATIONS, help="simulations per move"
    )
    clock: str = setting("cpu", choices=("cpu", "wall"), help="CPU time or elapsed time")
    expert: bool = setting(False, help="time the packaged experts")
    games: int = setting(20, low=1, help="--expert: games per env")
    players: tuple[int, ...] | None = setting(
        None,
        low=1,
        help="--expert: time the expert at these player counts (none: the env's default); "
        "an env that has no such game is skipped with a line saying so",
    )


def main(argv: list[str] | None = None) -> int:
    """Parse the options and run the benchmark."""
    args, _ = parse_command(
        SearchConfig, argv, prog="az_search.py", description=__doc__.splitlines()[0]
    )
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    for env_name in args.env or registered_envs():
        if args.expert:
            for players in args.players or [None]:
                try:
                    bench_expert(env_name, args.games, clock, players)
                except InvalidParameterError as err:
                    print(f"{env_name}: no {players}-player game, skipped ({err})")
        else:
            bench_env(env_name, args.hidden, args.simulations, clock)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
