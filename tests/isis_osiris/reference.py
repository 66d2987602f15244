"""A deliberately simple, slow reference of the Isis & Osiris rules (``rules/isis_osiris.md``).

It shares nothing with the core but the rules text: boards are 6 strings of 6 tokens indexed
by ``(row, col)``, material comes from its own table, legality is worked out from the action
history, and scoring walks the four orthogonal directions itself. Tile values are chance
events: the caller tells the reference which value each reveal showed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SIZE = 6
MATERIAL = {2: (8, 11), 3: (6, 7), 4: (5, 5)}  # stones, tiles per player (rules table)
MIX = {1: 2, 2: 6, 3: 2, 4: 1, -1: 2, -2: 6, -3: 2, -4: 1}

STONE, REVEAL, TILE = "stone", "reveal", "tile"


def score_grid(grid: list[list[object]], num_players: int) -> list[int]:
    """Return each seat's score: ``grid[r][c]`` is ``("S", seat)``, ``("T", value)`` or None."""
    scores = [0] * num_players
    for r in range(SIZE):
        for c in range(SIZE):
            cell = grid[r][c]
            if cell is None or cell[0] != "S":
                continue
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < SIZE and 0 <= cc < SIZE:
                    other = grid[rr][cc]
                    if other is not None and other[0] == "T":
                        scores[cell[1]] += other[1]
    return scores


def winners_and_rewards(scores: list[int]) -> tuple[list[int], list[float]]:
    """Return the seats with the top score and the win/tie/loss rewards."""
    top = max(scores)
    winners = [s for s in range(len(scores)) if scores[s] == top]
    rewards = []
    for s in range(len(scores)):
        if s not in winners:
            rewards.append(-1.0)
        else:
            rewards.append(1.0 if len(winners) == 1 else 0.0)
    return winners, rewards


@dataclass
class ReferenceGame:
    """The game as a referee with a notebook would keep it."""

    num_players: int
    grid: list[list[object]] = field(default_factory=list)
    stones_used: list[int] = field(default_factory=list)
    tiles_used: list[int] = field(default_factory=list)
    seen: list[int] = field(default_factory=list)
    player: int = 0
    revealed: int | None = None

    def __post_init__(self) -> None:
        self.grid = [[None] * SIZE for _ in range(SIZE)]
        self.stones_used = [0] * self.num_players
        self.tiles_used = [0] * self.num_players

    def empty_squares(self) -> list[tuple[int, int]]:
        """Return the empty ``(row, col)`` squares."""
        return [(r, c) for r in range(SIZE) for c in range(SIZE) if self.grid[r][c] is None]

    def over(self) -> bool:
        """Return whether the board is full."""
        return not self.empty_squares()

    def legal(self) -> set[tuple]:
        """Return the legal moves: ``("stone", r, c)``, ``("reveal",)``, ``("tile", r, c)``."""
        if self.over():
            return set()
        if self.revealed is not None:
            return {(TILE, r, c) for r, c in self.empty_squares()}
        stones, tiles = MATERIAL[self.num_players]
        moves: set[tuple] = set()
        if self.stones_used[self.player] < stones:
            moves |= {(STONE, r, c) for r, c in self.empty_squares()}
        if self.tiles_used[self.player] < tiles:
            moves.add((REVEAL,))
        return moves

    def play(self, move: tuple, revealed_value: int | None = None) -> None:
        """Play a legal move; a reveal needs the value it showed."""
        assert move in self.legal(), f"reference: illegal {move}"
        if move[0] == REVEAL:
            assert revealed_value in MIX
            self.revealed = revealed_value
            self.tiles_used[self.player] += 1
            self.seen.append(revealed_value)
            return
        _, r, c = move
        if move[0] == STONE:
            self.grid[r][c] = ("S", self.player)
            self.stones_used[self.player] += 1
        else:
            self.grid[r][c] = ("T", self.revealed)
            self.revealed = None
        self.player = (self.player + 1) % self.num_players

    def scores(self) -> list[int]:
        """Return each seat's score on the board as it stands."""
        return score_grid(self.grid, self.num_players)
