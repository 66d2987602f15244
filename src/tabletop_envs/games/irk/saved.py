"""Loading a saved Irk state: every field and every invariant of the rules checked first.

A saved state (JSON, pickle, ``env.load_state``) is untrusted. :func:`read_saved_state` reads
the fields of ``IrkState._state_dict`` output and refuses, with ``InvalidStateError`` naming the
field, anything play cannot reach (``docs/irk.md``, *Saved states*):

- every field has its type, length and range (tile ids of the deck, seats, placements of the
  table, round 0-7, phase 0-2);
- the phase fits the round (``place`` only in a table round, ``over`` exactly after round 7);
  the box sits where the table rounds played so far passed it; at the end ``to_move`` is the
  box holder;
- who has chosen fits the phase and the mover (choose phase: the seats from the box holder up
  to the mover; place phase: the mover and the seats after it; none at the end); hand sizes
  fit the round and the choices, pile sizes the bet rounds played, the unused tiles the deal;
- every tile of the deck is in exactly one place;
- the opening tiles lie where the set-up lays them, and replaying the placements and discards
  in play order (rounds, then seats from that round's box holder) with the real placement
  rules is legal: each placement legal on the table it met, each discard a tile with no legal
  placement there, every seat of every table round played accounted for, nothing left over;
- in the place phase the mover's revealed tile has a legal placement;
- ``steps`` is the number of choices and placements made.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_envs.core.errors import InvalidStateError
from tabletop_envs.core.seats import relative_seats
from tabletop_envs.core.state_check import (
    check_int,
    check_int_list,
    check_keys,
    check_list,
    read_int,
)
from tabletop_envs.games.irk.deck import EMPTY, deck_tiles, tile_text
from tabletop_envs.games.irk.observation import NUM_ROUNDS
from tabletop_envs.games.irk.params import (
    CHOOSE,
    HAND_SIZE,
    OVER,
    PHASE_NAMES,
    PLACE,
    ROUND_KINDS,
    IrkParams,
    opening_count,
    opening_placement,
)
from tabletop_envs.games.irk.placement import legal_placements, why_illegal

#: The fields of a saved Irk state.
STATE_KEYS = (
    "hands",
    "chosen",
    "piles",
    "unused",
    "discards",
    "placements",
    "round",
    "phase",
    "box",
    "to_move",
    "steps",
)


def read_saved_state(params: IrkParams, data: Any) -> dict[str, Any]:
    """Return the checked fields of a saved state of ``params``; InvalidStateError otherwise."""
    data = check_keys(data, STATE_KEYS, "state")
    n, d, t = params.num_players, len(params.deck), params.table_size
    rnd = read_int(data, "round", 0, NUM_ROUNDS)
    phase = read_int(data, "phase", CHOOSE, OVER)
    box = read_int(data, "box", 0, n - 1)
    to_move = read_int(data, "to_move", 0, n - 1)
    steps = read_int(data, "steps", 0, (NUM_ROUNDS + 4) * n)
    hands = [
        sorted(check_int_list(h, 0, d - 1, f"state.hands[{s}]"))
        for s, h in enumerate(check_list(data["hands"], "state.hands", n))
    ]
    chosen = check_int_list(data["chosen"], -1, d - 1, "state.chosen", n)
    piles = [
        check_int_list(p, 0, d - 1, f"state.piles[{s}]")
        for s, p in enumerate(check_list(data["piles"], "state.piles", n))
    ]
    unused = sorted(check_int_list(data["unused"], 0, d - 1, "state.unused"))
    discards = _entries(data, "discards", [(0, n - 1), (0, d - 1), (0, NUM_ROUNDS - 1)])
    placements = _entries(data, "placements", [(-1, n - 1), (0, d - 1), (0, t * t * 4 - 1)])

    _check_turn(n, rnd, phase, box, to_move, chosen)
    _check_counts(params, rnd, phase, chosen, hands, piles, unused)
    _check_every_tile_once(d, hands, chosen, piles, unused, discards, placements)
    _replay_table(params, rnd, phase, box, to_move, chosen, discards, placements)
    played = HAND_SIZE * n - sum(len(h) for h in hands) + len(placements) - opening_count(n)
    if steps != played:
        raise InvalidStateError(
            "state.steps",
            f"must count the choices and placements made ({played}), got {steps}",
        )
    return {
        "hands": hands,
        "chosen": chosen,
        "piles": piles,
        "unused": unused,
        "discards": discards,
        "placements": placements,
        "round": rnd,
        "phase": phase,
        "box": box,
        "to_move": to_move,
        "steps": steps,
    }


def _entries(data: Any, key: str, ranges: list[tuple[int, int]]) -> list[list[int]]:
    """Return a list of ``[seat, tile, x]`` entries, each value in its range."""
    field = f"state.{key}"
    out = []
    for i, entry in enumerate(check_list(data[key], field)):
        where = f"{field}[{i}]"
        items = check_list(entry, where, len(ranges))
        out.append(
            [
                check_int(v, lo, hi, f"{where}[{k}]")
                for k, (v, (lo, hi)) in enumerate(zip(items, ranges, strict=True))
            ]
        )
    return out


def _tables_before(rnd: int) -> int:
    """Return how many table rounds come before round index ``rnd`` (0-7)."""
    return ROUND_KINDS[:rnd].count("table")


def _check_turn(n: int, rnd: int, phase: int, box: int, to_move: int, chosen: list[int]) -> None:
    """Check the round against the phase, the box holder, the mover and who has chosen."""
    name = PHASE_NAMES[phase]
    if (phase == OVER) != (rnd == NUM_ROUNDS):
        raise InvalidStateError(
            "state.round",
            f"the game is over exactly after round {NUM_ROUNDS}: round index {rnd} in the "
            f"{name} phase",
        )
    if phase == PLACE and ROUND_KINDS[rnd] != "table":
        raise InvalidStateError(
            "state.phase", f"round {rnd + 1} is a bet round: it has no place phase"
        )
    want_box = _tables_before(rnd) % n
    if box != want_box:
        raise InvalidStateError(
            "state.box",
            f"the box passes after each table round: after {_tables_before(rnd)} it is at "
            f"seat {want_box}, got {box}",
        )
    if phase == OVER:
        if to_move != box:
            raise InvalidStateError(
                "state.to_move", f"at the end it is the box holder {box}, got {to_move}"
            )
        done = n  # nobody holds a choice
    else:
        done = (to_move - box) % n  # seats from the box holder that chose (or placed) already
    for j, seat in enumerate(relative_seats(box, n)):
        holds = chosen[seat] >= 0
        if phase == CHOOSE and holds != (j < done):
            raise InvalidStateError(
                f"state.chosen[{seat}]",
                f"in the choose phase the seats from the box holder {box} up to the mover "
                f"{to_move} (excluded) hold a chosen tile and no other: seat {seat} "
                + ("holds one" if holds else "holds none"),
            )
        if phase == PLACE and holds != (j >= done):
            raise InvalidStateError(
                f"state.chosen[{seat}]",
                f"in the place phase the mover {to_move} and the seats after it (before the "
                f"box holder {box}) hold a chosen tile and no other: seat {seat} "
                + ("holds one" if holds else "holds none"),
            )
        if phase == OVER and holds:
            raise InvalidStateError(f"state.chosen[{seat}]", "nobody holds a choice at the end")


def _check_counts(
    params: IrkParams,
    rnd: int,
    phase: int,
    chosen: list[int],
    hands: list[list[int]],
    piles: list[list[int]],
    unused: list[int],
) -> None:
    """Check the sizes of the hands, the score piles and the unused tiles."""
    n = params.num_players
    bets = ROUND_KINDS[:rnd].count("bet")
    for seat in range(n):
        this_round = 1 if phase == PLACE or (phase == CHOOSE and chosen[seat] >= 0) else 0
        want = HAND_SIZE - rnd - this_round
        if len(hands[seat]) != want:
            raise InvalidStateError(
                f"state.hands[{seat}]",
                f"must hold {want} tiles in round index {rnd} ({PHASE_NAMES[phase]} phase"
                + (", tile chosen" if this_round else "")
                + f"), got {len(hands[seat])}",
            )
        if len(piles[seat]) != bets:
            raise InvalidStateError(
                f"state.piles[{seat}]",
                f"must hold one tile per bet round played ({bets}), got {len(piles[seat])}",
            )
    want = len(params.deck) - HAND_SIZE * n - opening_count(n)
    if len(unused) != want:
        raise InvalidStateError(
            "state.unused", f"the deal leaves {want} tiles unused, got {len(unused)}"
        )


def _check_every_tile_once(
    d: int,
    hands: list[list[int]],
    chosen: list[int],
    piles: list[list[int]],
    unused: list[int],
    discards: list[list[int]],
    placements: list[list[int]],
) -> None:
    """Check that every tile id of the deck is in exactly one place."""
    places: list[tuple[str, int]] = []
    for s, hand in enumerate(hands):
        places += [(f"hands[{s}]", tile) for tile in hand]
    places += [(f"chosen[{s}]", tile) for s, tile in enumerate(chosen) if tile >= 0]
    for s, pile in enumerate(piles):
        places += [(f"piles[{s}]", tile) for tile in pile]
    places += [("unused", tile) for tile in unused]
    places += [(f"discards[{i}]", x[1]) for i, x in enumerate(discards)]
    places += [(f"placements[{i}]", x[1]) for i, x in enumerate(placements)]
    where: dict[int, str] = {}
    for field, tile in places:
        if tile in where:
            raise InvalidStateError(
                f"state.{field}",
                f"tile {tile} is also in {where[tile]}: every tile of the deck is in exactly "
                "one place",
            )
        where[tile] = field
    missing = sorted(set(range(d)) - set(where))
    if missing:
        raise InvalidStateError(
            "state", f"tiles {missing} are nowhere: every tile of the deck is in exactly one place"
        )


def _replay_table(
    params: IrkParams,
    rnd: int,
    phase: int,
    box: int,
    to_move: int,
    chosen: list[int],
    discards: list[list[int]],
    placements: list[list[int]],
) -> None:
    """Replay the opening, placements and discards in play order with the placement rules."""
    n, t = params.num_players, params.table_size
    tiles = deck_tiles(params.deck)
    k = opening_count(n)
    if len(placements) < k:
        raise InvalidStateError(
            "state.placements", f"must start with the {k} opening tiles, got {len(placements)}"
        )
    grid = np.full(t * t, EMPTY, dtype=np.intp)

    def lay(tile: int, placement: int) -> None:
        cell, orientation = divmod(placement, 4)
        step = (t, 1, -t, -1)[orientation]
        for j, code in enumerate(tiles[tile]):
            grid[cell + j * step] = code

    for j in range(k):
        _check_opening(placements[j], j, t, k)
        lay(placements[j][1], placements[j][2])
    at_p, at_d = k, 0
    for r in range(min(rnd + 1, NUM_ROUNDS)):
        if ROUND_KINDS[r] != "table" or (r == rnd and phase != PLACE):
            continue
        for seat in relative_seats(_tables_before(r) % n, n):
            if r == rnd and seat == to_move:
                break
            if at_d < len(discards) and discards[at_d][0] == seat and discards[at_d][2] == r:
                tile = discards[at_d][1]
                if len(legal_placements(grid, tiles[tile], t)):
                    raise InvalidStateError(
                        f"state.discards[{at_d}]",
                        f"tile {tile} ({tile_text(tiles[tile])}) of seat {seat} had a legal "
                        f"placement in round {r + 1}: only a tile with none is discarded",
                    )
                at_d += 1
            elif at_p < len(placements) and placements[at_p][0] == seat:
                _, tile, placement = placements[at_p]
                why = why_illegal(grid, tiles[tile], t, placement)
                if why is not None:
                    raise InvalidStateError(
                        f"state.placements[{at_p}]",
                        f"seat {seat} cannot lay tile {tile} ({tile_text(tiles[tile])}) there in "
                        f"round {r + 1}: {why}",
                    )
                lay(tile, placement)
                at_p += 1
            else:
                raise InvalidStateError(
                    "state.placements",
                    f"seat {seat} neither placed nor discarded a tile in round {r + 1} (the "
                    "placements and discards list play order: rounds, then seats from the box "
                    "holder)",
                )
    _check_all_replayed(at_p, len(placements), at_d, len(discards))
    if phase == PLACE:
        tile = chosen[to_move]
        if not len(legal_placements(grid, tiles[tile], t)):
            raise InvalidStateError(
                f"state.chosen[{to_move}]",
                f"the mover's revealed tile {tile} ({tile_text(tiles[tile])}) has no legal "
                "placement: a tile with none is discarded before its turn",
            )


def _check_opening(entry: list[int], j: int, t: int, k: int) -> None:
    """Refuse opening tile ``j`` of ``k`` unless it lies upright where the set-up puts it."""
    seat, _tile, placement = entry
    want = opening_placement(t, k, j)
    if seat != -1 or placement != want:
        raise InvalidStateError(
            f"state.placements[{j}]",
            f"opening tile {j} lies upright at placement {want} with seat -1, got "
            f"seat {seat} at {placement}",
        )


def _check_all_replayed(at_p: int, placements: int, at_d: int, discards: int) -> None:
    """Refuse placements or discards left over once the rounds played are replayed."""
    if at_p < placements:
        raise InvalidStateError(
            f"state.placements[{at_p}]",
            "is no placement of the table rounds played, in play order (rounds, then seats "
            "from the box holder)",
        )
    if at_d < discards:
        raise InvalidStateError(
            f"state.discards[{at_d}]",
            "is no discard of the table rounds played, in play order",
        )
