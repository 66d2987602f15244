"""How often does Irk's table edge prevent a placement under random play?

Run from the repository root::

    python benchmarks/irk_table_size.py --games 5000            # 2, 3 and 4 players
    python benchmarks/irk_table_size.py --games 500 --players 4 --sizes 15 17 19 21

Method: random games (uniform choice among hand tiles and among legal placements) are played on
a table far larger than any game reaches (``BIG``, checked: the occupied cells stay at least 3
cells from its edge, so no placement there is ever limited by the edge: this is the unbounded
table). At every placement step the footprints of *all* legal placements are measured relative
to the opening block. A table of side ``T`` (opening centred as the rules lay it out) prevents a
placement in that game iff one of those footprints would leave it. Up to the first such step a
game on the ``T`` table is the same game, so the per-game figure is exact for random play.
Reported: the share of games in which the ``T`` table prevented at least one placement, and the
share of placement steps with an unbounded-legal placement that leaves the ``T`` table.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass

import numpy as np

from tabletop_envs.core.config import Config, parse_command, setting
from tabletop_envs.evaluation.paths import file_problem
from tabletop_envs.games.irk.rules import PLACE, IrkParams, IrkState, opening_count

BIG = 61
MARGIN = 3


def extents(game: IrkState) -> tuple[int, int, int, int] | None:
    """Return (min row, max row, min col, max col) of all legal footprints, opening-relative."""
    legal = game.placements_of(game.chosen[game.to_move])
    if len(legal) == 0:
        return None
    cells = game.tables.cells[legal]
    rows, cols = cells // BIG, cells % BIG
    k = opening_count(game.params.num_players)
    r0, c0 = (BIG - 3) // 2, (BIG - k) // 2
    return (
        int(rows.min()) - r0,
        int(rows.max()) - r0,
        int(cols.min()) - c0,
        int(cols.max()) - c0,
    )


def fits(ext: tuple[int, int, int, int], size: int, k: int) -> bool:
    """Return whether footprints with these extents all lie on a ``size`` table."""
    r0, c0 = (size - 3) // 2, (size - k) // 2
    lo_r, hi_r, lo_c, hi_c = ext
    return lo_r + r0 >= 0 and hi_r + r0 < size and lo_c + c0 >= 0 and hi_c + c0 < size


def play(num_players: int, seed: int) -> list[tuple[int, int, int, int]]:
    """Play one random game on the big table; return the extents at every placement step."""
    game = IrkState.new(seed=seed, num_players=num_players, table_size=BIG)
    rng = np.random.default_rng(seed + 1_000_003)
    out = []
    while not game.is_terminal:
        if game.phase == PLACE:
            occ = np.flatnonzero(game.height)
            rows, cols = occ // BIG, occ % BIG
            if min(rows.min(), cols.min()) < MARGIN or max(rows.max(), cols.max()) >= BIG - MARGIN:
                raise RuntimeError(f"game {seed} came within {MARGIN} cells of the big table edge")
            ext = extents(game)
            if ext is not None:
                out.append(ext)
        legal = np.flatnonzero(game.legal_mask())
        game.apply(int(legal[rng.integers(len(legal))]))
    return out


@dataclass
class TableSizeConfig(Config):
    """The command line of this script."""

    games: int = setting(5000, low=1, help="random games per player count")
    players: tuple[int, ...] = setting((2, 3, 4), help="player counts")
    sizes: tuple[int, ...] = setting(tuple(range(9, 32)), low=1, help="table sizes")
    json: str | None = setting(None, check=file_problem, help="also write the figures to this file")


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table (and JSON with ``--json``)."""
    # before the games, not after them
    args, parser = parse_command(
        TableSizeConfig, argv, prog="irk_table_size.py", description=__doc__.splitlines()[0]
    )
    for n in args.players:
        try:
            IrkParams(num_players=n)
        except ValueError as err:
            parser.error(f"--players: {err}")
    report: dict[str, dict[str, dict[str, float]]] = {}
    for n in args.players:
        start = time.perf_counter()
        games = [play(n, seed) for seed in range(args.games)]
        k = opening_count(n)
        steps = sum(len(g) for g in games)
        rows = {}
        for size in args.sizes:
            bad_games = sum(any(not fits(e, size, k) for e in g) for g in games)
            bad_steps = sum(not fits(e, size, k) for g in games for e in g)
            rows[str(size)] = {"games": bad_games / len(games), "steps": bad_steps / steps}
        report[str(n)] = rows
        took = time.perf_counter() - start
        print(f"{n} players: {args.games} games, {steps} placement steps ({took:.0f} s)")
        print("  size  games with an edge-prevented placement   placement steps affected")
        for size, r in rows.items():
            print(f"  {size:>4}  {100 * r['games']:>8.2f} %{'':>29}{100 * r['steps']:>8.3f} %")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"games": args.games, "results": report}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
