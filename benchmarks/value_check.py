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
that mixes playouts in.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Sequence

import numpy as np

import tabletop_envs
from tabletop_envs.agents import make_agent
from tabletop_envs.agents.expert import az_agent_of
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import registered_envs
from tabletop_envs.search.evaluator import encode
from tabletop_envs.search.values import value_targets

#: Stages of a game the positions are grouped by (fifths of its length).
STAGES = 5


def playout_value(
    game: GameState, seat: int, target: str, scale: float, rnd: random.Random
) -> float:
    """Return ``seat``'s result of one random playout from a determinization of ``game``."""
    state = game.resample_hidden(seat, np.random.default_rng(rnd.getrandbits(63)))
    while not state.is_terminal:
        legal = state.legal_actions()
        state.apply(legal[int(rnd.random() * len(legal))])
    return float(value_targets(state, target, scale)[seat])


def record(args: argparse.Namespace) -> list[tuple[int, float, float, float]]:
    """Play the games; return ``(stage, net, playout, outcome)`` of every recorded position."""
    env = tabletop_envs.make(args.env)
    agent = az_agent_of(make_agent(args.agent, args.env, seed=0), env.game_class(env.params, 0))
    if agent is None:
        raise SystemExit(f"{args.agent} is not an az agent")
    net, target, scale = agent.net, agent.value_target or "result", agent.score_scale
    specs = args.players or ["greedy"]
    players = [make_agent(specs[s % len(specs)], args.env) for s in range(len(env.possible_agents))]
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


def main(argv: list[str] | None = None) -> int:
    """Record the positions and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", choices=registered_envs(), default="irk_v0")
    parser.add_argument("--agent", default="expert", help="an az:PATH or expert spec")
    parser.add_argument("--players", nargs="*", help="agent specs playing the seats (cycled)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--epsilon", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=31337)
    args = parser.parse_args(argv)
    rows = record(args)
    print(f"{args.env}, {args.agent}: {len(rows)} positions of {args.games} games")
    print(f"{'stage':>7} {'positions':>9} {'net r':>7} {'playout r':>9} {'net mean |v|':>12}")
    for stage in range(STAGES):
        part = [r for r in rows if r[0] == stage]
        nets, plays, outs = ([r[i] for r in part] for i in (1, 2, 3))
        print(
            f"{stage + 1:>5}/{STAGES} {len(part):>9} {correlation(nets, outs):>7.3f} "
            f"{correlation(plays, outs):>9.3f} {statistics.fmean(abs(v) for v in nets):>12.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
