"""What a network's value knows: how well it predicts the final result, stage by stage.

Run from the repository root::

    python benchmarks/value_check.py --env irk_v0 --agent expert --games 200
    python benchmarks/value_check.py --env isis_osiris_v0 --agent az:runs/isis/best.npz

The ``--players`` (default: ``greedy`` in every seat) play ``--games`` seeded games, each move
replaced by a uniformly random legal one with probability ``--epsilon`` (so that the positions
vary). At every position with more than one legal action the script records, for the seat to
move:

* ``net``: the value the agent's network gives the seat's observation;
* ``playout``: the result of one random playout from a determinization of the position (drawn
  with ``resample_hidden`` for that seat: what a search's playout sees);
* ``outcome``: the seat's final result in the game actually played.

Results (``playout`` and ``outcome``) are on the scale the network learnt (the file's
``value_target``: win/draw/loss, or ``tanh(margin / score_scale)``; see
:func:`tabletop_envs.search.values.value_targets`). The table gives, per fifth of each game
(positions grouped by how far into their game they lie), the correlation of ``net`` and of
``playout`` with ``outcome``. Use a ``--seed`` no training run used: the deals are then new to
the network. A value that correlates no better than one random playout adds little to a search
that mixes playouts in. A network made for other game parameters than the defaults (three
players, say) is checked with them: ``--param num_players=3``.

A mistake (an unknown agent, a missing network file, a network made for other parameters, a
count out of range) is one line ``value_check.py: error: ...`` naming the option, before any
game.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import tabletop_envs
from tabletop_envs.agents import make_agent
from tabletop_envs.agents.az import AZAgent
from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.expert import az_agent_of
from tabletop_envs.core.config import Config, one_line, parse_command, quote, setting
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import registered_env
from tabletop_envs.search.evaluator import encode
from tabletop_envs.search.values import value_targets

#: Stages of a game the positions are grouped by (fifths of its length).
STAGES = 5
PROG = "value_check.py"


@dataclass
class ValueCheckConfig(Config):
    """The command line of this script."""

    env: str = setting("irk_v0", check=registered_env, help="registered env")
    params: dict[str, Any] = setting(
        default_factory=dict,
        flags=("--param",),
        metavar="KEY=VALUE",
        help="game parameter the network was made for, repeatable (e.g. num_players=3)",
    )
    agent: str = setting("expert", help="the network's agent: an az:PATH or expert spec")
    players: tuple[str, ...] | None = setting(
        None, help="agent specs playing the seats, cycled (none: greedy)"
    )
    games: int = setting(200, low=1, help="games played")
    epsilon: float = setting(
        0.1, low=0, high=1, help="chance that a move is replaced by a random legal one"
    )
    seed: int = setting(31337, low=0, help="seed of the first game (one no training used)")


def make_agents(args: Any) -> tuple[AZAgent, list[Agent]]:
    """Return the network's search agent and the seats' players, each checked on the game
    ``args`` describes (ValueError naming the option otherwise): before any game."""
    try:
        env = tabletop_envs.make(args.env, **args.params)
    except ValueError as err:
        raise ValueError(f"--param: {one_line(err)}") from None
    game = env.game_class(env.params, 0)
    try:
        agent = az_agent_of(make_agent(args.agent, args.env, seed=0), game)
    except (ValueError, OSError) as err:
        raise ValueError(f"--agent: {one_line(err)}") from None
    if agent is None:
        raise ValueError(f"--agent {quote(args.agent)} is not an az:PATH or expert spec")
    try:
        agent.net.check_game(game)
    except ValueError as err:
        raise ValueError(
            f"--agent: {one_line(err)}; --param KEY=VALUE gives the game parameters it was made for"
        ) from None
    specs = args.players or ["greedy"]
    try:
        players = [make_agent(specs[s % len(specs)], args.env) for s in range(game.num_players)]
    except (ValueError, OSError) as err:
        raise ValueError(f"--players: {one_line(err)}") from None
    return agent, players


def playout_value(
    game: GameState, seat: int, target: str, scale: float, rnd: random.Random
) -> float:
    """Return ``seat``'s result of one random playout from a determinization of ``game``."""
    state = game.resample_hidden(seat, np.random.default_rng(rnd.getrandbits(63)))
    while not state.is_terminal:
        legal = state.legal_actions()
        state.apply(legal[int(rnd.random() * len(legal))])
    return float(value_targets(state, target, scale)[seat])


def record(
    args: Any, made: tuple[AZAgent, list[Agent]] | None = None
) -> list[tuple[int, float, float, float]]:
    """Play the games ``args`` (a :class:`ValueCheckConfig`) describe with the agents ``made``
    (default: :func:`make_agents`); return ``(stage, net, playout, outcome)`` of every recorded
    position."""
    agent, players = made or make_agents(args)
    env = tabletop_envs.make(args.env, **args.params)
    net, target, scale = agent.net, agent.value_target or "result", agent.score_scale
    rows = []
    for k in range(args.games):
        env_game = env.game_class(env.params, args.seed + k)
        for player in players:
            player.reset(args.seed + k)
        rnd = random.Random(args.seed * 1_000_003 + k)
        seen: list[tuple[int, int, float, float]] = []  # (step, seat, net, playout)
        step = 0
        while not env_game.is_terminal:
            seat = env_game.current_player
            legal = env_game.legal_actions()
            if len(legal) > 1:
                obs = encode(env_game, seat)[None]
                _, values = net(obs, env_game.legal_mask()[None].astype(bool))
                seen.append(
                    (
                        step,
                        seat,
                        float(values[0]),
                        playout_value(env_game, seat, target, scale, rnd),
                    )
                )
            if rnd.random() < args.epsilon:
                action = legal[int(rnd.random() * len(legal))]
            else:
                action = players[seat].act(env_game, seat)
            env_game.apply(action)
            step += 1
        final = value_targets(env_game, target, scale)
        for at, seat, v, p in seen:
            rows.append((min(STAGES - 1, at * STAGES // step), v, p, float(final[seat])))
    return rows


def correlation(a: Sequence[float], b: Sequence[float]) -> float:
    """Return Pearson's r of ``a`` and ``b`` (nan when either is constant)."""
    if len(a) < 2 or statistics.pstdev(a) == 0 or statistics.pstdev(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def _mean_size(values: Sequence[float]) -> float:
    """Return the mean of ``|v|`` (nan for no values: a stage without positions)."""
    return statistics.fmean(abs(v) for v in values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    """Record the positions and print the table."""
    args, parser = parse_command(
        ValueCheckConfig, argv, prog=PROG, description=__doc__.splitlines()[0]
    )
    try:
        made = make_agents(args)
    except ValueError as err:  # all before the first game
        parser.error(str(err))
    rows = record(args, made)
    print(f"{args.env}, {args.agent}: {len(rows)} positions of {args.games} games")
    print(f"{'stage':>7} {'positions':>9} {'net r':>7} {'playout r':>9} {'net mean |v|':>12}")
    for stage in range(STAGES):
        part = [r for r in rows if r[0] == stage]
        nets, plays, outs = ([r[i] for r in part] for i in (1, 2, 3))
        print(
            f"{stage + 1:>5}/{STAGES} {len(part):>9} {correlation(nets, outs):>7.3f} "
            f"{correlation(plays, outs):>9.3f} {_mean_size(nets):>12.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
