"""The standard deck's shape, tile parsing and parameter validation."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from tabletop_envs import InvalidParameterError
from tabletop_envs.games.irk.deck import (
    COLORS,
    GRAY,
    SQUARE_COLOR,
    SQUARE_KIND,
    SQUARE_VALUE,
    STANDARD_DECK,
    STAR,
    THREE,
    TWO,
    deck_tiles,
    parse_square,
    parse_tile,
    tile_text,
    tile_value,
)
from tabletop_envs.games.irk.rules import IrkParams, IrkState
from tests.irk.helpers import random_action

TILES = deck_tiles(STANDARD_DECK)


def flowers(tile):
    return [k for k, c in enumerate(tile) if c != GRAY]


#: The standard deck exactly as ``shared/rules/irk.md`` draws it (three columns of ten tiles).
RULES_PICTURE = """
G3 .  .     G2 R1 .      G1 Y* P1
R3 .  .     R2 Y1 .      B1 P* G1
Y3 .  .     Y2 P1 .      Y1 B* R1
.  P3 .     P2 B1 .      P1 G* Y1
.  B3 .     G1 B2 .      B1 R* G1
.  G3 .     R1 G2 .      G1 P* R1
.  R3 .     Y1 R2 .      R1 B* Y1
.  Y3 .     Y2 .  P1     Y1 G* B1
.  .  P3    B1 .  P2     P1 R* B1
.  .  B3    .  G1 B2     R1 Y* P1
"""


def test_standard_deck_is_the_rules_picture_string_for_string():
    rows = [line.split() for line in RULES_PICTURE.strip().splitlines()]
    assert all(len(r) == 9 for r in rows)
    columns = [[" ".join(r[3 * k : 3 * k + 3]) for r in rows] for k in range(3)]
    assert tuple(columns[0] + columns[1] + columns[2]) == STANDARD_DECK


def test_standard_deck_has_30_tiles_each_worth_3():
    assert len(TILES) == 30
    assert all(tile_value(t) == 3 for t in TILES)


def test_standard_deck_colors_have_12_flowers_value_18_and_2_stars():
    count, value, stars = Counter(), Counter(), Counter()
    for tile in TILES:
        for c in tile:
            if c != GRAY:
                count[SQUARE_COLOR[c]] += 1
                value[SQUARE_COLOR[c]] += SQUARE_VALUE[c]
                stars[SQUARE_COLOR[c]] += SQUARE_KIND[c] == STAR
    for color in range(len(COLORS)):
        assert (count[color], value[color], stars[color]) == (12, 18, 2), COLORS[color]


def test_standard_deck_shape_matches_the_sources():
    single = [t for t in TILES if len(flowers(t)) == 1]
    double = [t for t in TILES if len(flowers(t)) == 2]
    triple = [t for t in TILES if len(flowers(t)) == 3]
    assert len(single) == len(double) == len(triple) == 10
    # single: a 3, on top 3, middle 5, bottom 2
    assert all(SQUARE_KIND[t[flowers(t)[0]]] == THREE for t in single)
    assert Counter(flowers(t)[0] for t in single) == {0: 3, 1: 5, 2: 2}
    # double: gray at bottom 7, middle 2, top 1; the 2 on top 5, middle 3, bottom 2
    assert Counter(t.index(GRAY) for t in double) == {2: 7, 1: 2, 0: 1}
    twos = [[k for k in range(3) if SQUARE_KIND[t[k]] == TWO] for t in double]
    assert all(len(k) == 1 for k in twos)
    assert Counter(k[0] for k in twos) == {0: 5, 1: 3, 2: 2}
    # triple: middle starred, top and bottom plain; 30 flowers, six of each color
    assert all(SQUARE_KIND[t[1]] == STAR for t in triple)
    assert all(SQUARE_KIND[t[0]] == SQUARE_KIND[t[2]] == 0 for t in triple)
    assert Counter(SQUARE_COLOR[c] for t in triple for c in t) == {c: 6 for c in range(5)}


def test_each_color_is_the_single_3_of_exactly_two_tiles():
    threes = Counter(SQUARE_COLOR[c] for t in TILES for c in t if SQUARE_KIND[c] == THREE)
    assert threes == {color: 2 for color in range(len(COLORS))}


#: The score piles of the rule book's worked example: per pile, the counts of colors
#: G R Y P B and the colors of its stars (three tiles each).
WORKED_EXAMPLE_PILES = {
    "A": ((4, 0, 3, 1, 1), ("purple",)),
    "B": ((2, 1, 1, 3, 2), ("green", "red")),
    "C": ((1, 3, 3, 1, 1), ("green",)),
    "D": ((1, 2, 1, 4, 1), ("purple", "blue")),
}


def _pile_of(tiles):
    """Return the color counts and the sorted star colors of a pile of tiles (square codes)."""
    counts, stars = [0] * len(COLORS), []
    for tile in tiles:
        for c in tile:
            if c != GRAY:
                counts[SQUARE_COLOR[c]] += SQUARE_VALUE[c]
                if SQUARE_KIND[c] == STAR:
                    stars.append(COLORS[SQUARE_COLOR[c]])
    return tuple(counts), tuple(sorted(stars))


def _disjoint_choice(options, used=frozenset()):
    """Return one pairwise disjoint pick of a tile set per pile (in order), or None."""
    if not options:
        return []
    for pick in options[0]:
        if used.isdisjoint(pick):
            rest = _disjoint_choice(options[1:], used | set(pick))
            if rest is not None:
                return [pick, *rest]
    return None


def test_the_worked_example_piles_can_be_dealt_from_the_standard_deck():
    options = []
    for counts, stars in WORKED_EXAMPLE_PILES.values():
        want = (counts, tuple(sorted(stars)))
        options.append(
            [c for c in combinations(range(len(TILES)), 3) if _pile_of(TILES[t] for t in c) == want]
        )
        assert options[-1], f"no three standard tiles make a pile {want}"
    choice = _disjoint_choice(options)
    assert choice is not None, "the four piles cannot be dealt from one standard deck"
    assert len({t for pick in choice for t in pick}) == 12


def test_the_first_standard_deck_could_not_deal_pile_a():
    # why the deck was revised: the triples of the first deck; pile A needs a purple-star
    # triple without red
    first_triples = ("G1 Y* B1", "R1 P* G1", "Y1 B* R1", "P1 G* Y1", "B1 R* P1",
                     "G1 P* R1", "R1 B* Y1", "Y1 G* P1", "P1 R* B1", "B1 Y* G1")  # fmt: skip
    first = deck_tiles((*STANDARD_DECK[:20], *first_triples))
    counts, stars = WORKED_EXAMPLE_PILES["A"]
    want = (counts, tuple(sorted(stars)))
    assert not any(_pile_of(combo) == want for combo in combinations(first, 3))


def test_tile_text_round_trips():
    for text in STANDARD_DECK:
        assert tile_text(parse_tile(text)) == text
    assert parse_square("y*") == parse_square("Y*")


@pytest.mark.parametrize("bad", ["G4 . .", "G3 .", "X1 . .", "G3 . . .", "G . ."])
def test_bad_tile_text_is_refused(bad):
    with pytest.raises(ValueError, match="tile"):
        parse_tile(bad)


def test_custom_deck_is_validated_and_normalized():
    deck = [t.lower() for t in STANDARD_DECK]
    params = IrkParams(deck=deck)
    assert params.deck == STANDARD_DECK
    bad = list(STANDARD_DECK)
    bad[4] = "Q3 . ."
    with pytest.raises(InvalidParameterError, match="deck tile 4"):
        IrkParams(deck=bad)
    with pytest.raises(InvalidParameterError, match=r"from 30 tiles.*got 29"):
        IrkParams(num_players=4, deck=STANDARD_DECK[:29])
    with pytest.raises(InvalidParameterError, match="deck must be a sequence"):
        IrkParams(deck="G3 . .")


def test_custom_deck_plays():
    deck = (*STANDARD_DECK, "G3 G3 G3", "B* B* B*")
    game = IrkState.new(seed=3, num_players=4, deck=deck)
    assert game.spec.num_actions == 32 + game.params.table_size**2 * 4
    assert len(game.unused) == 2  # 4 players: 28 dealt, 2 opening, the rest unused
    rng = np.random.default_rng(0)
    while not game.is_terminal:
        game.apply(random_action(game, rng))
    assert IrkState.from_json(game.to_json()) == game


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 5}, "num_players"),
        ({"table_size": 4}, "table_size"),
        ({"table_size": 65}, "table_size"),
        ({"reward": "points"}, "reward"),
    ],
)
def test_bad_parameters_are_refused(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        IrkParams(**kwargs)
