"""Irk's squares, tiles and the standard deck (pure data; rules: ``docs/rules/irk.md``).

A *square* is a small int code: ``EMPTY`` (0, a table cell with no tile), ``GRAY`` (1), or a
flower ``2 + 4 * color + kind`` with colors green, red, yellow, purple, blue (0-4) and kinds
plain, star, numbered 2, numbered 3 (0-3). A *tile* is three square codes, top / middle /
bottom. Tiles are written as text the way the rules write them: ``"G2 R1 ."`` (``.`` gray,
``*`` star, ``1`` plain, ``2``/``3`` numbered).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from tabletop_envs.core.errors import InvalidParameterError

COLORS = ("green", "red", "yellow", "purple", "blue")
COLOR_LETTERS = "GRYPB"
KINDS = ("plain", "star", "two", "three")
KIND_MARKS = "1*23"
PLAIN, STAR, TWO, THREE = 0, 1, 2, 3
KIND_VALUES = (1, 1, 2, 3)

EMPTY, GRAY = 0, 1
NUM_CODES = 2 + 4 * len(COLORS)

#: How many distinct decks the per-deck caches (tiles, static facts) keep, most recent first.
DECK_CACHE_SIZE = 64

Tile = tuple[int, int, int]


def flower(color: int, kind: int) -> int:
    """Return the square code of a flower of ``color`` (0-4) and ``kind`` (0-3)."""
    return 2 + 4 * color + kind


#: Per square code: flower color (-1 for empty / gray), kind (-1), value (0), text label.
SQUARE_COLOR = (-1, -1, *(c for c in range(5) for _ in range(4)))
SQUARE_KIND = (-1, -1, *(k for _ in range(5) for k in range(4)))
SQUARE_VALUE = (0, 0, *(KIND_VALUES[k] for _ in range(5) for k in range(4)))
SQUARE_LABEL = (
    "  ",
    ". ",
    *(COLOR_LETTERS[c] + KIND_MARKS[k] for c in range(5) for k in range(4)),
)

#: The library's standard deck (revised 2026-12 so that the rule book's worked example can be
#: dealt from it), top / middle / bottom
#: (``docs/rules/irk.md``); tile id = index: 0-9 the single flowers, 10-19 the
#: doubles, 20-29 the triples, each column of the rules' picture top to bottom.
STANDARD_DECK: tuple[str, ...] = (
    # one flower, marked 3
    "G3 . .", "R3 . .", "Y3 . .", ". P3 .", ". B3 .",
    ". G3 .", ". R3 .", ". Y3 .", ". . P3", ". . B3",
    # two flowers: one marked 2, one plain, one gray square
    "G2 R1 .", "R2 Y1 .", "Y2 P1 .", "P2 B1 .", "G1 B2 .",
    "R1 G2 .", "Y1 R2 .", "Y2 . P1", "B1 . P2", ". G1 B2",
    # three flowers: the middle one starred
    "G1 Y* P1", "B1 P* G1", "Y1 B* R1", "P1 G* Y1", "B1 R* G1",
    "G1 P* R1", "R1 B* Y1", "Y1 G* B1", "P1 R* B1", "R1 Y* P1",
)  # fmt: skip


def parse_square(text: str) -> int:
    """Return the code of a square written ``"."`` (gray) or color letter + mark (``"Y*"``)."""
    t = text.strip().upper()
    if t == ".":
        return GRAY
    if len(t) == 2 and t[0] in COLOR_LETTERS and t[1] in KIND_MARKS:
        return flower(COLOR_LETTERS.index(t[0]), KIND_MARKS.index(t[1]))
    raise ValueError(
        f"bad square {text!r}: write '.' for gray or a color letter of {COLOR_LETTERS} "
        f"followed by a mark of '1' (plain), '*' (star), '2' or '3' (numbered), e.g. 'G3'"
    )


def parse_tile(tile: str | Sequence[str]) -> Tile:
    """Return the three square codes of a tile written ``"G2 R1 ."`` (or three square strings)."""
    parts = tile.split() if isinstance(tile, str) else list(tile)
    if len(parts) != 3:
        raise ValueError(f"a tile has 3 squares (top middle bottom), got {tile!r}")
    try:
        top, middle, bottom = (parse_square(p) for p in parts)
    except (ValueError, AttributeError) as err:
        raise ValueError(f"bad tile {tile!r}: {err}") from None
    return top, middle, bottom


def tile_text(tile: Sequence[int]) -> str:
    """Return the canonical text of a tile, e.g. ``"G2 R1 ."``."""
    return " ".join(SQUARE_LABEL[c].strip() for c in tile)


def as_tile(tile: str | Sequence[Any]) -> Tile:
    """Return square codes for a tile given as text, three square strings or three codes."""
    if isinstance(tile, str) or any(isinstance(s, str) for s in tile):
        return parse_tile(tile)
    codes = tuple(int(c) for c in tile)
    if len(codes) != 3 or not all(GRAY <= c < NUM_CODES for c in codes):
        raise ValueError(f"a tile is 3 square codes from {GRAY} to {NUM_CODES - 1}, got {tile!r}")
    return codes


def normalize_deck(deck: Sequence[str | Sequence[str]]) -> tuple[str, ...]:
    """Return ``deck`` as canonical tile strings; InvalidParameterError names a bad tile."""
    if isinstance(deck, (str, bytes)) or not isinstance(deck, Sequence):
        raise InvalidParameterError(
            "deck must be a sequence (tuple or list) of 3-square tile strings such as "
            f"('G3 . .', 'G2 R1 .', ...), got {type(deck).__name__} {deck!r:.60}"
        )
    out = []
    for i, tile in enumerate(deck):
        if not isinstance(tile, (str, Sequence)):
            raise InvalidParameterError(
                f"deck tile {i}: a tile is a string of 3 squares such as 'G2 R1 .', "
                f"got {type(tile).__name__} {tile!r:.40}"
            )
        try:
            out.append(tile_text(parse_tile(tile)))
        except (ValueError, AttributeError, TypeError) as err:
            raise InvalidParameterError(f"deck tile {i}: {err}") from None
    return tuple(out)


@lru_cache(maxsize=DECK_CACHE_SIZE)
def deck_tiles(deck: tuple[str, ...]) -> tuple[Tile, ...]:
    """Return the square codes of every tile of a (canonical) deck, by tile id."""
    return tuple(parse_tile(t) for t in deck)


def tile_value(tile: Sequence[int]) -> int:
    """Return the summed values of a tile's squares."""
    return sum(SQUARE_VALUE[c] for c in tile)
