"""How much Irk's choices say about the hands: determinizations weighed by an opponent model.

Run from the repository root::

    python benchmarks/irk_belief.py --games 100 --temperatures 0.5 1 2

A search draws the other seat's hidden tiles uniformly from what it has not seen
(``resample_hidden``). A belief that reads the other seat's choices would weigh each draw by how
likely its hand makes the tiles that seat chose in the rounds before, under a model of the
seat: here greedy's score of each tile it might have held (``score_actions``, the seat's own
view of that round), as a softmax at ``--temperatures`` (points). In ``--games`` games of
``--players`` (``planner`` in both seats by default, seeded from ``--seed``), at each choice of
``player_0`` from round 2 on, ``--draws`` uniform determinizations are drawn and weighed; the
script prints, per round, how many of the other seat's true hand tiles a determinization holds
on average, uniform and weighed, with the hand's size, and the weights' effective sample size.
A diagnostic: nothing here is an agent.
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from tabletop_envs.agents import make_agent
from tabletop_envs.core.config import Config, parse_command, setting
from tabletop_envs.games.irk.heuristics import score_actions
from tabletop_envs.games.irk.rules import CHOOSE, IrkState

#: What one earlier choice says: (round, the tile chosen, greedy's score of each tile it could be).
Choice = tuple[int, int, dict[int, float]]


@dataclass
class BeliefConfig(Config):
    """The command line of this script."""

    games: int = setting(100, low=1, help="games played")
    players: tuple[str, ...] = setting(("planner", "planner"), help="the two seats' agent specs")
    temperatures: tuple[float, ...] = setting(
        (0.5, 1.0, 2.0), low=0.01, help="softmax temperatures of the model, in points"
    )
    draws: int = setting(200, low=1, help="uniform determinizations weighed at each choice")
    seed: int = setting(20261207, low=0, help="seed of the first game (game g: seed + g)")


def public(state: IrkState) -> set[int]:
    """Return the tiles every seat has seen: the score piles, the table and the discards."""
    seen = {tile for pile in state.piles for tile in pile}
    seen |= {tile for _seat, tile, _at in state.placements}
    return seen | {tile for _seat, tile, _round in state.discards}


def choice_facts(before: IrkState, seat: int, tile: int, rng: np.random.Generator) -> Choice:
    """Return what seat ``before.to_move``'s choice of ``tile`` says, as ``seat`` sees it."""
    other = before.to_move
    mine = {*before.hands[seat], before.chosen[seat]}
    could = [t for t in range(before.deck_size) if t not in mine and t not in public(before)]
    return (
        before.round,
        tile,
        dict(zip(could, score_actions(before, other, could, rng), strict=True)),
    )


def log_likelihood(hand: set[int], choices: list[Choice], temperature: float) -> float:
    """Return log P(the choices | the other seat's hand now is ``hand``) under the model."""
    total = 0.0
    for k, (_round, tile, scores) in enumerate(choices):
        held = hand | {t for _r, t, _s in choices[k:]}  # its hand then: now's, and what it chose
        values = np.array([scores.get(t, -1e6) for t in held]) / temperature
        top = values.max()
        total += scores[tile] / temperature - (top + math.log(np.exp(values - top).sum()))
    return total


def measure(args: BeliefConfig) -> dict[int, dict[str, list[float]]]:
    """Play the games; return per round the overlaps (uniform, per temperature) and sizes."""
    rows: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    rng = np.random.default_rng(args.seed)
    for g in range(args.games):
        game = IrkState.new(seed=args.seed + g)
        agents = [
            make_agent(spec, "irk_v0", seed=args.seed + g + s)
            for s, spec in enumerate(args.players)
        ]
        choices: list[Choice] = []
        while not game.is_terminal:
            seat = game.to_move
            if game.phase == CHOOSE and seat == 0 and choices:
                _record(game, choices, args, rng, rows[game.round + 1])
            action = agents[seat].act(game, seat)
            if game.phase == CHOOSE and seat == 1:
                choices.append(choice_facts(game, 0, action, rng))
            game.apply(action)
    return rows


def _record(
    game: IrkState, choices: list[Choice], args: BeliefConfig, rng: np.random.Generator, row: dict
) -> None:
    """Add one choice's figures to ``row``: only the finished rounds' choices are known."""
    known = [c for c in choices if c[0] < game.round]
    true = {*game.hands[1], *([game.chosen[1]] if game.chosen[1] >= 0 else [])}
    draws = [game.resample_hidden(0, rng) for _ in range(args.draws)]
    hands = [{*d.hands[1], *([d.chosen[1]] if d.chosen[1] >= 0 else [])} for d in draws]
    overlap = np.array([len(h & true) for h in hands], dtype=float)
    row["size"].append(len(true))
    row["uniform"].append(float(overlap.mean()))
    for t in args.temperatures:
        logw = np.array([log_likelihood(h, known, t) for h in hands])
        w = np.exp(logw - logw.max())
        w /= w.sum()
        row[f"T={t:g}"].append(float(w @ overlap))
        row[f"ess T={t:g}"].append(float(1 / np.sum(w**2)))


def main(argv: list[str] | None = None) -> int:
    """Parse the options, play, print the table."""
    args, parser = parse_command(
        BeliefConfig, argv, prog="irk_belief.py", description=__doc__.splitlines()[0]
    )
    try:
        for spec in args.players:
            make_agent(spec, "irk_v0")
    except (ValueError, OSError) as err:  # before any game
        parser.error(str(err))
    if len(args.players) != 2:
        parser.error(f"--players names the 2 seats' agents, got {len(args.players)}")
    rows = measure(args)
    temps = [f"T={t:g}" for t in args.temperatures]
    print(f"{args.games} games {' vs '.join(args.players)}, seed {args.seed}, {args.draws} draws:")
    print("true hand tiles in a determinization (of the hand's size), uniform and weighed:")
    print(f"{'round':>5} {'n':>5} {'size':>5} {'uniform':>8} " + " ".join(f"{t:>8}" for t in temps))
    for rnd in sorted(rows):
        r = rows[rnd]
        cells = " ".join(f"{np.mean(r[t]):>8.2f}" for t in temps)
        size, uniform = np.mean(r["size"]), np.mean(r["uniform"])
        print(f"{rnd:>5} {len(r['size']):>5} {size:>5.2f} {uniform:>8.2f} {cells}")
    ess = ", ".join(
        f"{t} {np.mean([x for r in rows.values() for x in r['ess ' + t]]):.0f}" for t in temps
    )
    print(f"mean effective sample size of the weights (of {args.draws}): {ess}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
