"""Text boards and move strings for readable Iris scenario tests.

A board is the hexagon drawn by ``IrisState.render_text()``: one line per row ``r`` from
``-(n-1)`` to ``n-1``, cells ``q`` ascending, ``X`` Black, ``O`` White, a letter for an empty
colored (perimeter) cell and ``.`` for an empty gray cell; ``*`` marks an empty cell of
either kind (to draw expected sets of legal cells, see :func:`marks`). Indentation and spacing
are free; the render's coordinates (numbers), its legend and status lines (anything that is
not a row of single-character cells) are ignored. The parser
checks the picture's shape and that letters sit exactly on the perimeter.
"""

from __future__ import annotations

from tabletop_envs.games.iris import IrisState
from tabletop_envs.games.iris.rules import WHITE

Coord = tuple[int, int]


def _is_label(token: str) -> bool:
    """Return whether ``token`` is a coordinate of the rendered board (``-4``, ``0``, ``12``)."""
    return token.lstrip("-").isdecimal()


def cell_marks(text: str) -> tuple[int, list[tuple[int, int, str]]]:
    """Return ``(side, [(q, r, mark), ...])`` of a text hexagon, checking its shape."""
    lines = [[tok for tok in line.split() if not _is_label(tok)] for line in text.splitlines()]
    rows = [row for row in lines if row and all(len(tok) == 1 for tok in row)]
    if len(rows) % 2 == 0:
        raise ValueError(f"a hexagon has an odd number of rows, got {len(rows)}")
    m = len(rows) // 2
    cells = []
    for i, row in enumerate(rows):
        r = i - m
        q0, q1 = max(-m, -m - r), min(m, m - r)
        if len(row) != q1 - q0 + 1:
            raise ValueError(f"row r={r} needs {q1 - q0 + 1} cells, got {len(row)}: {row}")
        cells.extend((q, r, tok) for q, tok in zip(range(q0, q1 + 1), row, strict=True))
    return m + 1, cells


def parse_board(text: str) -> tuple[int, list[Coord], list[Coord]]:
    """Return ``(side, black, white)`` axial stones of a text hexagon."""
    side, cells = cell_marks(text)
    m = side - 1
    black: list[Coord] = []
    white: list[Coord] = []
    for q, r, tok in cells:
        perimeter = max(abs(q), abs(r), abs(q + r)) == m
        if tok == "X":
            black.append((q, r))
        elif tok == "O":
            white.append((q, r))
        elif tok == "." and perimeter:
            raise ValueError(f"({q}, {r}) is a colored cell: write a letter, not '.'")
        elif tok.isalpha() and not perimeter:
            raise ValueError(f"({q}, {r}) is a gray cell: write '.', not {tok!r}")
        elif tok not in ".*" and not tok.isalpha():
            raise ValueError(f"unknown cell mark {tok!r} at ({q}, {r})")
    return side, black, white


def marks(text: str) -> set[Coord]:
    """Return the cells marked ``*`` in a text hexagon."""
    parse_board(text)  # checks the picture
    return {(q, r) for q, r, tok in cell_marks(text)[1] if tok == "*"}


def position(
    text: str, *, to_move: int = WHITE, passed_last: bool = False, auto_forced: bool = False
) -> IrisState:
    """Return the Iris position drawn in ``text`` at the start of ``to_move``'s turn."""
    side, black, white = parse_board(text)
    return IrisState.from_position(
        board_size=side,
        black=black,
        white=white,
        to_move=to_move,
        passed_last=passed_last,
        auto_forced=auto_forced,
    )


def action(state: IrisState, move: str | Coord) -> int:
    """Return the action id of ``"pass"``, ``"(q, r)"`` or a ``(q, r)`` tuple."""
    if isinstance(move, tuple):
        return state.coord_to_action(*move)
    if move.strip() == "pass":
        return state.pass_action
    q, r = (int(x) for x in move.strip().strip("()").split(","))
    return state.coord_to_action(q, r)


def play(state: IrisState, *moves: str | Coord) -> IrisState:
    """Play ``moves`` (``"pass"``, ``"(q, r)"`` or tuples) on ``state`` in place; return it."""
    for move in moves:
        state.apply(action(state, move))
    return state


def stones(state: IrisState) -> tuple[list[Coord], list[Coord]]:
    """Return the Black and White stones of ``state`` as sorted axial coordinates."""
    _, black, white = parse_board(state.render_text())
    return sorted(black), sorted(white)


def legal_moves(state: IrisState) -> set:
    """Return the legal actions of ``state`` as axial coordinates and ``"pass"``."""
    return {
        "pass" if a == state.pass_action else state.action_to_coord(a)
        for a in state.legal_actions()
    }
