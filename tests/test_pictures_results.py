"""What a player reads off the pictures: every text inside the picture, Irk's tiles labelled,
and the last frame of every game giving the result with its reasons (issue 23, item 9)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tabletop_envs.games.iris import IrisState
from tabletop_envs.games.iris import image as iris_image
from tabletop_envs.games.irk import image as irk_image
from tabletop_envs.games.irk.deck import GRAY, SQUARE_LABEL, parse_square
from tabletop_envs.games.irk.rules import IrkState
from tabletop_envs.games.isis_osiris import image as isis_image
from tabletop_envs.games.isis_osiris.tables import COLS, NEIGHBORS
from tabletop_envs.render.draw import Drawing, Text, text_width
from tabletop_envs.replay import GameRecord
from tabletop_envs.watch import frame
from tests.conformance.cases import CASES, new_game, random_action

ROOT = Path(__file__).resolve().parents[1]
#: A long lineup: a caption naming it is wider than any picture.
LONG_SPECS = ["mcts:iterations=400,c=1.4,playout=greedy", "expert:simulations=200", "random"]


def _texts(picture: Drawing) -> list[Text]:
    return [s for s in picture.shapes if isinstance(s, Text)]


def _outside(picture: Drawing) -> list[str]:
    """Return the texts running past the left or right edge of ``picture``."""
    out = []
    for t in _texts(picture):
        width = text_width(t.text, t.size)
        left = t.x - {"start": 0.0, "middle": width / 2, "end": width}[t.anchor]
        if left < 0 or left + width > picture.width:
            out.append(t.text)
    return out


def _terminal(name: str, params: dict, seed: int):
    game = new_game(name, params, seed)
    rng = np.random.default_rng(seed)
    while not game.is_terminal:
        game.apply(random_action(game, rng))
    return game


@pytest.mark.parametrize(("name", "params"), CASES)
def test_every_text_and_caption_fits_inside_the_picture(name: str, params: dict) -> None:
    """Statuses, counts and GIF captions (a long lineup too) wrap or fit: nothing is cut."""
    game = _terminal(name, params, seed=5)
    n = game.num_players
    record = GameRecord.of(name, game, [LONG_SPECS[s % len(LONG_SPECS)] for s in range(n)])
    states = record.positions()
    for k in sorted({0, 1, len(states) // 2, len(states) - 1}):
        picture = frame(record, states, k)
        assert _outside(picture) == [], (name, k)
        if k == 0:  # the caption naming the whole lineup: more than one line
            assert len([t for t in _texts(picture) if t.x == 6 and t.size == 8]) >= 2


def test_irk_pile_tiles_carry_their_labels_top_to_bottom() -> None:
    """``G2 R1 .`` and ``R1 G2 .`` hold the same flowers: only labels in order tell them apart."""
    state = IrkState.new(seed=0)
    ids = {state.tile_label(i): i for i in range(state.deck_size)}
    label_size = (irk_image.MINI - 1) * 0.42  # a pile square's label (table cells' are larger)
    for tile, expected in [("G2 R1 .", ["G2", "R1"]), ("R1 G2 .", ["R1", "G2"])]:
        game = state.clone()
        game.piles[0] = [ids[tile]]
        labels = [t for t in _texts(irk_image.drawing(game)) if t.size == label_size]
        assert [t.text for t in sorted(labels, key=lambda t: t.y)] == expected
        assert len({t.x for t in labels}) == 1  # one upright tile, top to bottom


def test_irk_hand_tiles_are_labelled_in_the_own_view() -> None:
    state = IrkState.new(seed=3)
    label_size = (irk_image.MINI - 1) * 0.42
    own = [t.text for t in _texts(irk_image.drawing(state, 0)) if t.size == label_size]
    flowers = [SQUARE_LABEL[code].strip() for tile in state.hands[0] for code in state.tiles[tile]]
    assert sorted(own) == sorted(f for f in flowers if f != ".")
    assert not [t for t in _texts(irk_image.drawing(state)) if t.size == label_size]


def test_the_rules_page_names_the_marks_the_irk_pictures_draw() -> None:
    """docs/rules/irk.md: the kinds table's "drawn in the pictures" column is what is drawn."""
    page = (ROOT / "docs" / "rules" / "irk.md").read_text()
    rows = re.findall(
        r"^\| (numbered 3|numbered 2|starred|plain|gray) \|[^|]*\| `([^`]+)`", page, re.M
    )
    assert [r[0] for r in rows] == ["numbered 3", "numbered 2", "starred", "plain", "gray"]
    assert "dots" not in page.split("## The tiles")[1].split("## Setting up")[0]
    for _, written in rows:
        picture = Drawing(40, 40)
        irk_image._square(picture, 0, 0, 22, parse_square(written), label=True)
        drawn = [t.text for t in _texts(picture)]
        assert drawn == ([] if parse_square(written) == GRAY else [written])


def _stone_groups(state: IrisState) -> dict[int, int]:
    """Each stone's group score (colored cells of its group), by an independent flood fill."""
    t = state.tables
    out: dict[int, int] = {}
    for start, value in enumerate(state.board):
        if not value or start in out:
            continue
        group, stack = {start}, [start]
        while stack:
            for nxt in t.board.neighbors[stack.pop()]:
                if state.board[nxt] == value and nxt not in group:
                    group.add(nxt)
                    stack.append(nxt)
        out.update(dict.fromkeys(group, sum(1 for i in group if t.colored[i])))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_iris_last_picture_shows_who_won_why_and_the_groups(seed: int) -> None:
    state = _terminal("iris_v0", {"board_size": 4}, seed)
    picture = iris_image.drawing(state)
    texts = _texts(picture)
    n = state.params.board_size
    for idx, score in _stone_groups(state).items():
        x, y = iris_image.cell_center(n, *state.tables.board.coord(idx))
        here = [t.text for t in texts if (t.x, t.y) == (x, y)]
        assert here == ([str(score)] if score else []), idx
    status = " ".join(t.text for t in texts if t.anchor == "start")
    black, white = state.group_scores()
    winner = state.result_info()["winner"]
    assert f"game over: {('Black', 'White')[winner]} wins" in status
    assert f"Black groups (rim cells): {black}".replace(" ", "") in status.replace(" ", "")
    assert f"White groups (rim cells): {white}".replace(" ", "") in status.replace(" ", "")


def test_iris_decision_names_the_first_difference() -> None:
    assert iris_image._decision(([6, 5, 1], [6, 3])) == [
        "game over: Black wins",
        "groups equal down to #1, then #2: 5 to 3",
    ]
    assert iris_image._decision(([2], [4])) == ["game over: White wins", "best group: 4 to 2"]
    assert iris_image._decision(([3, 1], [3, 1])) == ["game over: draw", "equal group scores"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_isis_osiris_last_picture_shows_each_stones_worth_and_the_sums(players: int) -> None:
    state = _terminal("isis_osiris_v0", {"num_players": players}, seed=players)
    texts = _texts(isis_image.drawing(state))
    scores = state.scores()
    for sq, owner in enumerate(state.owner):
        if owner < 0:
            continue
        worth = sum(state.tiles[nb] for nb in NEIGHBORS[sq])
        x = isis_image.MARGIN + isis_image.LABEL_ROOM + (sq % COLS + 0.5) * isis_image.CELL
        assert f"{worth:+d}" in [t.text for t in texts if t.x == x], sq
    rows = [t.text for t in texts if re.match(r"[+-]\d+ = ", t.text)]
    assert [int(r.split()[0]) for r in rows] == scores
    for seat, row in enumerate(rows):
        terms = row.split(" = ")[1].split()
        assert sum(int(v) for v in terms if v[0] in "+-") == scores[seat]
        assert ("win" in row) == (scores[seat] == max(scores))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_irk_last_picture_shows_table_values_points_and_the_verdict(players: int) -> None:
    state = _terminal("irk_v0", {"num_players": players}, seed=players)
    res = state._result
    texts = [t.text for t in _texts(irk_image.drawing(state))]
    joined = " ".join(texts)
    values = " ".join(f"{c}{v}" for c, v in zip("GRYPB", res["table_values"], strict=True))
    assert f"table values V(c): {values}" in joined
    for seat in range(players):
        won = " ".join(f"{c}{p}" for c, p in zip("GRYPB", res["points"][seat], strict=True) if p)
        assert f"points {won or '-'} = {res['totals'][seat]}" in texts
    assert "game over: " in joined and any(f"P{w}" in joined for w in res["winners"])
    assert "points " + ", ".join(f"P{s} {p}" for s, p in enumerate(res["totals"])) in joined
