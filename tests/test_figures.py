"""The pictures of the rules pages are the library's current renderings of the positions."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "docs" / "make_figures.py"


@pytest.fixture(scope="module")
def figures():
    spec = importlib.util.spec_from_file_location("make_figures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rules_pictures_are_current(figures, capsys):
    assert figures.main(["--check"]) == 0, capsys.readouterr().err


def test_every_picture_is_shown_on_a_rules_page(figures):
    pages = "".join(p.read_text() for p in (ROOT / "docs" / "rules").glob("*.md"))
    for name in figures.FIGURES:
        assert f"../img/rules/{name}.png" in pages, name


def test_check_reports_a_stale_picture(figures, tmp_path, capsys):
    assert figures.main(["--out", str(tmp_path)]) == 0
    (tmp_path / "iris_opening.png").write_bytes(b"not a picture")
    assert figures.main(["--check", "--out", str(tmp_path)]) == 1
    assert "iris_opening.png" in capsys.readouterr().err


def test_png_writer_round_trips_through_zlib(figures):
    import struct
    import zlib

    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    data = figures.png_bytes(img)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (3, 2)
    idat = data.index(b"IDAT")
    length = struct.unpack(">I", data[idat - 4 : idat])[0]
    raw = zlib.decompress(data[idat + 4 : idat + 4 + length])
    rows = [raw[k * 10 + 1 : (k + 1) * 10] for k in range(2)]  # filter byte + 9 bytes a row
    assert b"".join(rows) == img.tobytes()


def test_the_irk_figures_use_the_rules_pages_deck(figures):
    page = (ROOT / "docs" / "rules" / "irk.md").read_text()
    table = page.split("This is the **standard deck**", 1)[1].split("\n\n", 2)[1]
    lines = table.splitlines()
    rows = [[cell.strip(" `") for cell in line.strip("|").split("|")] for line in lines]
    columns = list(zip(*rows[2:], strict=True))  # skip the header and the rule
    assert tuple(tile for column in columns for tile in column) == figures.IRK_DECK


def test_the_irk_scoring_text_is_the_replayed_games_render(figures):
    from tabletop_envs.games.irk.rules import IrkState

    page = (ROOT / "docs" / "rules" / "irk.md").read_text()
    shown = page.split("The same position as the library's text render", 1)[1]
    shown = shown.split("```text\n", 1)[1].split("```", 1)[0]
    state = IrkState.new(seed=2, deck=figures.IRK_DECK)
    label = {state.tile_label(t): t for t in range(state.deck_size)}
    for move in figures.IRK_GAME:
        state.apply(label[move] if isinstance(move, str) else state.placement_to_action(*move))
    lines = [line.rstrip() for line in state.render_text().splitlines()]
    assert lines == shown.rstrip("\n").splitlines()
