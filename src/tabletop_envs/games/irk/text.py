"""Irk as text: the table (visible squares, as the rules write them), score piles and status."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabletop_envs.games.irk.deck import COLOR_LETTERS, GRAY, SQUARE_COLOR, SQUARE_LABEL

if TYPE_CHECKING:
    from tabletop_envs.games.irk.rules import IrkState

#: How an empty cell of the table is drawn.
EMPTY_CELL = "  "
#: ANSI foreground colors of the flowers (green, red, yellow, purple, blue) for ``colors=True``.
ANSI_COLORS = ("\x1b[32m", "\x1b[31m", "\x1b[33m", "\x1b[35m", "\x1b[34m")
ANSI_GRAY = "\x1b[90m"
ANSI_RESET = "\x1b[0m"


def table_lines(state: IrkState, colors: bool = False) -> list[str]:
    """Return the occupied part of the table (one cell of margin) with row/col numbers.

    Each cell shows its visible square: ``G3`` ``R2`` ``Y*`` ``P1`` (color letter + mark),
    ``.`` gray, blank empty; rows and columns are numbered as in placement ids. ``colors``
    adds ANSI color codes around the squares.
    """
    t = state.params.table_size
    occupied = [i for i in range(t * t) if state.height[i] > 0]
    rows = [i // t for i in occupied]
    cols = [i % t for i in occupied]
    r0, r1 = max(min(rows) - 1, 0), min(max(rows) + 1, t - 1)
    c0, c1 = max(min(cols) - 1, 0), min(max(cols) + 1, t - 1)
    lines = ["    " + " ".join(f"{c:>2}" for c in range(c0, c1 + 1))]
    for r in range(r0, r1 + 1):
        cells = []
        for c in range(c0, c1 + 1):
            code = int(state.visible[r * t + c])
            label = SQUARE_LABEL[code] if code else EMPTY_CELL
            if colors and code:
                tint = ANSI_GRAY if code == GRAY else ANSI_COLORS[SQUARE_COLOR[code]]
                text = label.rstrip()
                label = f"{tint}{text}{ANSI_RESET}" + " " * (len(label) - len(text))
            cells.append(label)
        lines.append(f"{r:>3} " + " ".join(cells).rstrip())
    return lines


def pile_line(state: IrkState, seat: int) -> str:
    """Return ``seat``'s score pile: its tiles and per-color count/stars."""
    tiles = " | ".join(state.tile_label(t) for t in state.piles[seat]) or "-"
    counts, stars = state.pile_totals(seat)
    summary = " ".join(
        f"{COLOR_LETTERS[c]}{counts[c]}" + "*" * stars[c]
        for c in range(len(COLOR_LETTERS))
        if counts[c]
    )
    hand = f"hand {len(state.hands[seat])}" + (", chose" if state.chosen[seat] >= 0 else "")
    return f"player_{seat}: pile [{tiles}] {summary or '(empty)'}; {hand}"


def render(state: IrkState, seat: int | None = None, colors: bool = False) -> str:
    """Return the text picture of ``state`` (``seat``'s hand and choice shown if given).

    ``colors=True`` tints the table's squares with ANSI codes for a color terminal.
    """
    from tabletop_envs.games.irk.observation import NUM_ROUNDS
    from tabletop_envs.games.irk.params import OVER, PHASE_NAMES

    lines = table_lines(state, colors)
    for s in range(state.params.num_players):
        lines.append(pile_line(state, s))
    if state.discards:
        gone = ", ".join(f"{state.tile_label(t)} (player_{s})" for s, t, _ in state.discards)
        lines.append(f"discarded: {gone}")
    if seat is not None:
        hand = " | ".join(f"#{t} {state.tile_label(t)}" for t in state.hands[seat]) or "-"
        lines.append(f"player_{seat} hand: {hand}")
        if state.chosen[seat] >= 0:
            t = state.chosen[seat]
            lines.append(f"player_{seat} chose: #{t} {state.tile_label(t)}")
    if state.phase == OVER:
        res = state._result
        lines.append(
            "game over: points "
            + ", ".join(f"player_{i} {p}" for i, p in enumerate(res["totals"]))
            + "; winners "
            + ", ".join(f"player_{i}" for i in res["winners"])
        )
    else:
        lines.append(
            f"round {state.round + 1}/{NUM_ROUNDS} ({state.round_kind}), "
            f"{PHASE_NAMES[state.phase]} phase: player_{state.to_move} to move; "
            f"box: player_{state.box}"
        )
    return "\n".join(lines)
