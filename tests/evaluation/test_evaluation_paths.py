"""Output paths are checked before a game is played: what file_problem / folder_problem say."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.evaluation.arena import ArenaConfig
from tabletop_envs.evaluation.paths import file_problem, folder_problem


def test_file_problems(tmp_path: Path) -> None:
    (tmp_path / "a_file").write_text("x")
    assert file_problem(None) is None
    assert file_problem(str(tmp_path / "new.json")) is None
    assert file_problem(str(tmp_path / "a_file")) is None  # overwritten
    assert "is a folder" in (file_problem(str(tmp_path)) or "")
    assert "does not exist" in (file_problem(str(tmp_path / "no" / "x.json")) or "")
    assert "is a file" in (file_problem(str(tmp_path / "a_file" / "x.json")) or "")
    assert "must name a file" in (file_problem("  ") or "")


def test_folder_problems(tmp_path: Path) -> None:
    (tmp_path / "a_file").write_text("x")
    assert folder_problem(None) is None
    assert folder_problem(str(tmp_path)) is None
    assert folder_problem(str(tmp_path / "new" / "deeper")) is None  # made when written
    assert "is a file, not a folder" in (folder_problem(str(tmp_path / "a_file")) or "")
    assert "cannot be made" in (folder_problem(str(tmp_path / "a_file" / "sub")) or "")


def test_a_config_refuses_an_unwritable_output_when_built(tmp_path: Path) -> None:
    assert ArenaConfig(json=str(tmp_path / "out.json")).json == str(tmp_path / "out.json")
    with pytest.raises(InvalidParameterError, match=r"^json must go into an existing folder"):
        ArenaConfig(json=str(tmp_path / "missing" / "out.json"))
