"""A 3x5 pixel font for raster text (capitals, digits and a little punctuation; no Pillow).

Lower-case letters are drawn with the capital's glyph. Each glyph is five rows of three
columns, ``#`` for ink.
"""

from __future__ import annotations

from functools import cache

import numpy as np

#: Glyph width and height in font pixels (plus one column of spacing between glyphs).
GLYPH_WIDTH = 3
GLYPH_HEIGHT = 5

_GLYPHS = {
    "A": ".#. #.# ### #.# #.#",
    "B": "##. #.# ##. #.# ##.",
    "C": ".## #.. #.. #.. .##",
    "D": "##. #.# #.# #.# ##.",
    "E": "### #.. ##. #.. ###",
    "F": "### #.. ##. #.. #..",
    "G": ".## #.. #.# #.# .##",
    "H": "#.# #.# ### #.# #.#",
    "I": "### .#. .#. .#. ###",
    "J": "..# ..# ..# #.# .#.",
    "K": "#.# #.# ##. #.# #.#",
    "L": "#.. #.. #.. #.. ###",
    "M": "#.# ### ### #.# #.#",
    "N": "##. #.# #.# #.# #.#",
    "O": ".#. #.# #.# #.# .#.",
    "P": "##. #.# ##. #.. #..",
    "Q": ".#. #.# #.# ##. .##",
    "R": "##. #.# ##. #.# #.#",
    "S": ".## #.. .#. ..# ##.",
    "T": "### .#. .#. .#. .#.",
    "U": "#.# #.# #.# #.# ###",
    "V": "#.# #.# #.# #.# .#.",
    "W": "#.# #.# ### ### #.#",
    "X": "#.# #.# .#. #.# #.#",
    "Y": "#.# #.# .#. .#. .#.",
    "Z": "### ..# .#. #.. ###",
    "0": "### #.# #.# #.# ###",
    "1": ".#. ##. .#. .#. ###",
    "2": "##. ..# .#. #.. ###",
    "3": "##. ..# .#. ..# ##.",
    "4": "#.# #.# ### ..# ..#",
    "5": "### #.. ##. ..# ##.",
    "6": ".## #.. ### #.# ###",
    "7": "### ..# .#. .#. .#.",
    "8": "### #.# ### #.# ###",
    "9": "### #.# ### ..# ##.",
    " ": "... ... ... ... ...",
    "-": "... ... ### ... ...",
    "+": "... .#. ### .#. ...",
    "*": "#.# .#. ### .#. #.#",
    "/": "..# ..# .#. #.. #..",
    ":": "... .#. ... .#. ...",
    ";": "... .#. ... .#. #..",
    ".": "... ... ... ... .#.",
    ",": "... ... ... .#. #..",
    "(": ".#. #.. #.. #.. .#.",
    ")": ".#. ..# ..# ..# .#.",
    "[": "##. #.. #.. #.. ##.",
    "]": ".## ..# ..# ..# .##",
    "#": "#.# ### #.# ### #.#",
    "=": "... ### ... ### ...",
    "<": "..# .#. #.. .#. ..#",
    ">": "#.. .#. ..# .#. #..",
    "?": "##. ..# .#. ... .#.",
    "!": ".#. .#. .#. ... .#.",
    "_": "... ... ... ... ###",
    "'": ".#. .#. ... ... ...",
}


@cache
def glyph(char: str) -> np.ndarray:
    """Return the ``(5, 3)`` bool ink of ``char`` (``?`` for a character the font lacks)."""
    rows = _GLYPHS.get(char.upper(), _GLYPHS["?"]).split()
    ink = np.array([[c == "#" for c in row] for row in rows], dtype=bool)
    ink.setflags(write=False)
    return ink


def text_mask(text: str, scale: int) -> np.ndarray:
    """Return the bool ink of ``text`` in one line, each font pixel ``scale`` pixels wide."""
    if not text:
        return np.zeros((GLYPH_HEIGHT * scale, 0), dtype=bool)
    cols = []
    for k, char in enumerate(text):
        if k:
            cols.append(np.zeros((GLYPH_HEIGHT, 1), dtype=bool))
        cols.append(glyph(char))
    ink = np.concatenate(cols, axis=1)
    return ink.repeat(scale, axis=0).repeat(scale, axis=1)


def text_width(text: str, scale: int) -> int:
    """Return the width in pixels of ``text`` drawn at ``scale``."""
    return max(0, (len(text) * (GLYPH_WIDTH + 1) - 1) * scale)
