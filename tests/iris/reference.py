"""A deliberately simple, slow reference implementation of the Iris rules (``rules/iris.md``).

It shares nothing with the core but the rules text: its own cube-coordinate geometry, its own
ring walk and coloring, its own legality per phase and its own scoring. Moves are axial
``(q, r)`` tuples or the string ``"pass"`` (which also ends a turn whose second stone is
forfeited). Tests compare it with :class:`tabletop_envs.games.iris.IrisState` move by move.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PASS = "pass"
BLACK, WHITE = 0, 1

# The six unit cube directions (dq, dr, ds), in the order that walks around a ring.
CUBE_DIRECTIONS = ((1, 0, -1), (1, -1, 0), (0, -1, 1), (-1, 0, 1), (-1, 1, 0), (0, 1, -1))


def cube_cells(side: int) -> list[tuple[int, int, int]]:
    """Return every cube cell ``(q, r, s)`` of the hexhex board of side ``side``."""
    m = side - 1
    return [
        (q, r, -q - r)
        for q in range(-m, m + 1)
        for r in range(-m, m + 1)
        if max(abs(q), abs(r), abs(q + r)) <= m
    ]


def ring_walk(side: int) -> list[tuple[int, int, int]]:
    """Return the outer ring walked once: start at a corner, take six sides of ``m`` steps."""
    m = side - 1
    cell = (-m, m, 0)  # a corner; the first side runs to the corner (0, m, -m)
    walk = []
    for dq, dr, ds in CUBE_DIRECTIONS:
        for _ in range(m):
            walk.append(cell)
            cell = (cell[0] + dq, cell[1] + dr, cell[2] + ds)
    assert cell == (-m, m, 0), "the walk must close"
    return walk


def adjacent(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Return whether two cube cells differ by one unit cube direction."""
    return tuple(y - x for x, y in zip(a, b, strict=True)) in CUBE_DIRECTIONS


@dataclass
class RefIris:
    """A reference Iris game; cells are axial ``(q, r)``; owners 0 Black, 1 White, None."""

    side: int = 5
    auto_forced: bool = False
    board: dict[tuple[int, int], int | None] = field(default_factory=dict)
    to_move: int = BLACK
    opening: bool = True
    first: tuple[int, int] | None = None  # first stone of the turn in progress
    forfeit: bool = False  # the second stone of the turn in progress is forfeited
    passed_last: bool = False  # the previous turn was a pass
    over: bool = False
    forfeits: int = 0  # statistics for tests: second stones forfeited so far

    def __post_init__(self) -> None:
        self.m = self.side - 1
        self.cells = [(q, r) for q, r, _ in cube_cells(self.side)]
        self.ring = [(q, r) for q, r, _ in ring_walk(self.side)]
        ncolors = 3 * self.m
        self.color = {c: k % ncolors for k, c in enumerate(self.ring)}
        if not self.board:
            self.board = {c: None for c in self.cells}

    # ---- geometry -----------------------------------------------------------------------
    def colored(self, c: tuple[int, int]) -> bool:
        """Return whether ``c`` is on the outer ring."""
        q, r = c
        return max(abs(q), abs(r), abs(q + r)) == self.m

    @staticmethod
    def opposite(c: tuple[int, int]) -> tuple[int, int]:
        """Return the point reflection of ``c`` through the centre."""
        return (-c[0], -c[1])

    def neighbours(self, c: tuple[int, int]) -> list[tuple[int, int]]:
        """Return the on-board cells adjacent to ``c``."""
        q, r = c
        out = []
        for dq, dr, _ in CUBE_DIRECTIONS:
            n = (q + dq, r + dr)
            if n in self.board:
                out.append(n)
        return out

    # ---- legality -----------------------------------------------------------------------
    def empty(self) -> list[tuple[int, int]]:
        """Return the empty cells."""
        return [c for c in self.cells if self.board[c] is None]

    def far_gray(self, first: tuple[int, int]) -> list[tuple[int, int]]:
        """Return the empty gray cells that are not ``first`` and not adjacent to it."""
        f3 = (first[0], first[1], -first[0] - first[1])
        return [
            c
            for c in self.empty()
            if not self.colored(c) and c != first and not adjacent(f3, (c[0], c[1], -c[0] - c[1]))
        ]

    def legal(self) -> set:
        """Return the set of legal moves of the player to move (empty once over)."""
        if self.over:
            return set()
        if self.opening:
            return {c for c in self.empty() if not self.colored(c)}
        if self.forfeit:
            return {PASS}
        if self.first is not None:
            if self.colored(self.first):
                return {self.opposite(self.first)}
            return set(self.far_gray(self.first))
        return {*self.empty(), PASS}

    # ---- dynamics -----------------------------------------------------------------------
    def play(self, move) -> None:
        """Play ``move``; AssertionError if it is not legal."""
        assert move in self.legal(), f"illegal reference move {move!r}"
        if move == PASS:
            if self.forfeit:
                self._end_turn()
            elif self.passed_last:
                self.over = True
            else:
                self.passed_last = True
                self.to_move = 1 - self.to_move
            return
        self.board[move] = self.to_move
        if not self.empty():
            self.over = True
            return
        if self.opening:
            self.opening = False
            self._end_turn()
        elif self.first is None:
            self.first = move
            if self.colored(move):
                if self.auto_forced:
                    self.play(self.opposite(move))
            elif not self.far_gray(move):
                self.forfeit = True
                self.forfeits += 1
                if self.auto_forced:
                    self._end_turn()
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        self.first = None
        self.forfeit = False
        self.passed_last = False
        self.to_move = 1 - self.to_move

    # ---- scoring ------------------------------------------------------------------------
    def group_scores(self) -> tuple[list[int], list[int]]:
        """Return each player's nonzero group scores (colored cells per group), highest first."""
        out = []
        for player in (BLACK, WHITE):
            seen = set()
            scores = []
            for start in self.cells:
                if self.board[start] != player or start in seen:
                    continue
                seen.add(start)
                todo = [start]
                score = 0
                while todo:
                    c = todo.pop()
                    score += self.colored(c)
                    for n in self.neighbours(c):
                        if self.board[n] == player and n not in seen:
                            seen.add(n)
                            todo.append(n)
                if score:
                    scores.append(score)
            out.append(sorted(scores, reverse=True))
        return out[0], out[1]

    def winner(self) -> int | None:
        """Return the winner by the sorted-list comparison (missing elements are 0), or None."""
        black, white = self.group_scores()
        length = max(len(black), len(white))
        black = black + [0] * (length - len(black))
        white = white + [0] * (length - len(white))
        for b, w in zip(black, white, strict=True):
            if b != w:
                return BLACK if b > w else WHITE
        return None
