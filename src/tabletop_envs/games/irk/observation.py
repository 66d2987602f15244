"""Irk's egocentric observation: one flat int8 vector, its layout declared once here.

The vector is the concatenation of the sections of :func:`observation_layout`, in order. The
``table`` section is ``table_size x table_size x C`` in row-major order (``row``, then ``col``,
then channel; ``C = len(table_channels(group_planes))``: 11, or 16 with the group planes), so
``obs[:T*T*C].reshape(T, T, C)`` gives planes that line up with placement ids. With
``action_values`` a last section holds, per action id and color, a table value
(``reshape(num_actions, 5)``, row = action id; see ``SECTION_DOCS``). Per-seat
sections list seats *relative to the observer*: entry 0 is the observer, entry ``k`` the seat
``k`` places after it in seat order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from tabletop_envs.games.irk.deck import COLORS, GRAY, NUM_CODES, SQUARE_COLOR, SQUARE_KIND

NUM_ROUNDS = 7

#: Channels of a table cell: the visible square's color (one-hot; all zero for gray / empty),
#: ``gray``, its kind (one-hot: 3 / 2 / star / plain), and the stack ``height`` (0 = empty).
TABLE_CHANNELS = (*COLORS, "gray", "three", "two", "star", "plain", "height")
_KIND_CHANNEL = {3: 6, 2: 7, 1: 8, 0: 9}  # kind code -> channel

#: ``CODE_FEATURES[code]``: the first 10 table channels of a visible square code.
CODE_FEATURES = np.zeros((NUM_CODES, len(TABLE_CHANNELS) - 1), dtype=np.int8)
CODE_FEATURES[GRAY, 5] = 1
for _code in range(2, NUM_CODES):
    CODE_FEATURES[_code, SQUARE_COLOR[_code]] = 1
    CODE_FEATURES[_code, _KIND_CHANNEL[SQUARE_KIND[_code]]] = 1
CODE_FEATURES.setflags(write=False)

#: Extra table channels with ``group_planes=True``: per color ``c``, the value of the ``c``
#: group (``c`` flowers and gray, joined through shared edges) the cell belongs to, 0 where the
#: cell is empty or shows another color. ``V(c)`` is the largest entry of its plane.
GROUP_CHANNELS = tuple(f"group_{color}" for color in COLORS)


def table_channels(group_planes: bool = False) -> tuple[str, ...]:
    """Return the channel names of a table cell (``TABLE_CHANNELS``, then the group planes)."""
    return TABLE_CHANNELS + GROUP_CHANNELS if group_planes else TABLE_CHANNELS


#: What each section holds (``D`` deck size, ``n`` players, ``T`` table size).
SECTION_DOCS: dict[str, tuple[str, str]] = {
    "table": (
        "T*T*C",
        "per cell: visible square (color one-hot, gray, kind one-hot), height; C = 11, or 16 "
        "with group_planes (+ the value of each color's group holding the cell)",
    ),
    "hand": ("D", "1 for each tile id in my hand"),
    "chosen": ("D", "1 for my chosen tile while it waits (not yet revealed/placed)"),
    "placing": ("D", "1 for the tile being placed now (revealed to all), in the place phase"),
    "revealed": ("D", "1 for each tile seen by all: table, score piles, discards, being placed"),
    "pile_count": ("n*5", "per relative seat, per color: summed flower values in its score pile"),
    "pile_stars": ("n*5", "per relative seat, per color: starred flowers in its score pile"),
    "hand_size": ("n", "per relative seat: tiles in hand"),
    "waiting": ("n", "per relative seat: 1 if it holds a chosen, unrevealed tile"),
    "round": ("7", "one-hot round number (1-7); all zero once the game is over"),
    "table_round": ("1", "1 in a table round, 0 in a bet round"),
    "place_phase": ("1", "1 while tiles are being placed, 0 while choosing"),
    "box_holder": ("n", "one-hot relative seat holding the box"),
    "action_values": (
        "(D+T*T*4)*5",
        "with action_values: per action id, per color: for a place id, V(c) after that placement "
        "of the tile being placed; for a choose id in a table round, the largest V(c) any legal "
        "placement of that tile of my hand reaches; 0 otherwise",
    ),
}


@dataclass(frozen=True, eq=False)
class ObservationLayout:
    """Where each section sits in the flat observation of one configuration."""

    table_size: int
    num_players: int
    deck_size: int
    channels: tuple[str, ...]  # table channels per cell
    sections: tuple[tuple[str, int, int], ...]  # (name, start, length)
    size: int
    names: tuple[str, ...]  # one name per entry
    start: dict[str, int]  # section name -> first index

    def slice(self, name: str) -> slice:
        """Return the slice of section ``name``."""
        for sec, start, length in self.sections:
            if sec == name:
                return slice(start, start + length)
        raise KeyError(f"no section {name!r}; sections: {[s[0] for s in self.sections]}")

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Return each section of an observation (the table reshaped to ``(T, T, C)``)."""
        out: dict[str, Any] = {}
        for name, start, length in self.sections:
            part = obs[start : start + length]
            if name == "table":
                part = part.reshape(self.table_size, self.table_size, len(self.channels))
            elif name in ("pile_count", "pile_stars"):
                part = part.reshape(self.num_players, len(COLORS))
            out[name] = part
        return out


@lru_cache(maxsize=32)  # a layout names every entry: large tables make big ones
def observation_layout(
    table_size: int,
    num_players: int,
    deck_size: int,
    group_planes: bool = False,
    action_values: bool = False,
) -> ObservationLayout:
    """Return the layout of the observation for one configuration."""
    t, n, d = table_size, num_players, deck_size
    channels = table_channels(group_planes)
    lengths = {
        "table": t * t * len(channels),
        "hand": d,
        "chosen": d,
        "placing": d,
        "revealed": d,
        "pile_count": n * len(COLORS),
        "pile_stars": n * len(COLORS),
        "hand_size": n,
        "waiting": n,
        "round": NUM_ROUNDS,
        "table_round": 1,
        "place_phase": 1,
        "box_holder": n,
    }
    if action_values:
        lengths["action_values"] = (d + t * t * 4) * len(COLORS)
    sections = []
    names: list[str] = []
    start = 0
    for name, length in lengths.items():
        sections.append((name, start, length))
        start += length
        if name == "table":
            names += [f"table[{r},{c}].{ch}" for r in range(t) for c in range(t) for ch in channels]
        elif name in ("pile_count", "pile_stars"):
            names += [f"{name}[+{k}].{color}" for k in range(n) for color in COLORS]
        elif name in ("hand_size", "waiting", "box_holder"):
            names += [f"{name}[+{k}]" for k in range(n)]
        elif name in ("table_round", "place_phase"):
            names.append(name)
        elif name == "action_values":
            names += [f"action_values[#{i}].{color}" for i in range(d) for color in COLORS]
            names += [
                f"action_values[{r},{c},{o}].{color}"
                for r in range(t)
                for c in range(t)
                for o in range(4)
                for color in COLORS
            ]
        elif name == "round":
            names += [f"round[{k + 1}]" for k in range(NUM_ROUNDS)]
        else:
            names += [f"{name}[{i}]" for i in range(length)]
    starts = {name: begin for name, begin, _ in sections}
    return ObservationLayout(t, n, d, channels, tuple(sections), start, tuple(names), starts)
