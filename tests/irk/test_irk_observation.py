"""The observation: declared layout, egocentric sections, table planes, fresh copies."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.games.irk.deck import (
    GRAY,
    SQUARE_COLOR,
    SQUARE_KIND,
    STANDARD_DECK,
    STAR,
    THREE,
    TWO,
)
from tabletop_envs.games.irk.observation import SECTION_DOCS, TABLE_CHANNELS, observation_layout
from tabletop_envs.games.irk.rules import PLACE, IrkState
from tests.irk.helpers import random_states


@pytest.mark.parametrize(("t", "n", "d"), [(19, 2, 30), (9, 4, 32)])
def test_layout_is_declared_once_and_matches_the_spec(t, n, d):
    layout = observation_layout(t, n, d)
    assert [s[0] for s in layout.sections] == [k for k in SECTION_DOCS if k != "action_values"]
    full = observation_layout(t, n, d, action_values=True)
    assert [s[0] for s in full.sections] == list(SECTION_DOCS)  # the optional one last
    assert layout.size == t * t * 11 + 4 * d + 10 * n + 3 * n + 7 + 2
    assert len(layout.names) == layout.size == len(set(layout.names))
    starts = [s[1] for s in layout.sections]
    assert starts == sorted(starts) and starts[0] == 0
    deck = (*STANDARD_DECK, *(("G3 G3 G3",) * (d - 30)))
    game = IrkState.new(seed=0, num_players=n, table_size=t, deck=deck)
    assert game.spec.observation_shape == (layout.size,)
    assert game.spec.observation_channels == layout.names
    assert layout.names[:2] == ("table[0,0].green", "table[0,0].red")


def test_table_planes_show_the_visible_square_and_height():
    game = random_states(3, num_players=3, table_size=13)[-1]
    t = 13
    planes = game.layout.split(game.observation(0))["table"]
    assert planes.shape == (t, t, len(TABLE_CHANNELS))
    for i in range(t * t):
        r, c = divmod(i, t)
        code = int(game.visible[i])
        cell = planes[r, c]
        assert cell[10] == game.height[i]
        if code == 0:
            assert not cell.any()
        elif code == GRAY:
            assert cell[:10].tolist() == [0, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        else:
            assert cell[:5].argmax() == SQUARE_COLOR[code] and cell[:5].sum() == 1
            kind = {THREE: 6, TWO: 7, STAR: 8}.get(SQUARE_KIND[code], 9)
            assert cell[6:10].argmax() + 6 == kind and cell[6:10].sum() == 1


def test_vector_sections_are_egocentric():
    states = random_states(4, num_players=3, table_size=13)
    for game in states:
        for seat in range(3):
            obs = game.layout.split(game.observation(seat))
            assert np.flatnonzero(obs["hand"]).tolist() == game.hands[seat]
            assert obs["chosen"].sum() == (game.chosen[seat] >= 0)
            for k in range(3):
                other = (seat + k) % 3
                assert obs["hand_size"][k] == len(game.hands[other])
                assert obs["waiting"][k] == (game.chosen[other] >= 0)
                score = game.score()
                assert obs["pile_count"][k].tolist() == score["counts"][other]
                assert obs["pile_stars"][k].tolist() == score["stars"][other]
            assert obs["box_holder"].tolist() == [int((seat + k) % 3 == game.box) for k in range(3)]
            if not game.is_terminal:
                assert obs["round"].argmax() == game.round and obs["round"].sum() == 1
                assert obs["table_round"][0] == (game.round_kind == "table")
            else:
                assert not obs["round"].any()
            assert obs["place_phase"][0] == (game.phase == PLACE)
            if game.phase == PLACE:
                assert np.flatnonzero(obs["placing"]).tolist() == [game.chosen[game.to_move]]
            else:
                assert not obs["placing"].any()


def test_revealed_tiles_are_the_public_ones():
    game = random_states(5, num_players=2, table_size=13)[-1]
    obs = game.layout.split(game.observation(1))
    public = {x[1] for x in game.placements} | {t for p in game.piles for t in p}
    public |= {x[1] for x in game.discards}
    assert set(np.flatnonzero(obs["revealed"]).tolist()) == public
    assert not (set(game.unused) & public)


def test_observations_are_fresh_copies_and_in_the_space_bounds():
    for game in random_states(6, num_players=4, table_size=11):
        obs = game.observation(0)
        assert obs.dtype == np.int8
        assert obs.min() >= game.spec.observation_low and obs.max() <= game.spec.observation_high
        obs[:] = 99
        assert game.observation(0).max() < 99
        mask = game.legal_mask()
        before = mask.copy()
        mask[:] = 1
        assert np.array_equal(game.legal_mask(), before)
