"""Packaging promises: --version, defaults in every --help, license, py.typed, a light import."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import tabletop_envs
from tabletop_envs.cli import DefaultsHelpFormatter, build_parser, main

ROOT = Path(__file__).resolve().parent.parent


def test_version_flag_prints_the_package_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"tabletop-envs {tabletop_envs.__version__}"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


def _help_of(action: argparse.Action) -> str:
    return DefaultsHelpFormatter("x")._get_help_string(action) or ""


def _options_with_defaults(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if a.option_strings
        and a.nargs != 0
        and a.default not in (None, argparse.SUPPRESS, [], ())
        and a.help != argparse.SUPPRESS
    ]


@pytest.mark.parametrize("command", sorted(_subparsers(build_parser())))
def test_every_subcommand_help_shows_its_defaults(command):
    parser = _subparsers(build_parser())[command]
    if command in ("bench", "train"):
        return  # passed through to their own parsers (tested below)
    assert issubclass(parser.formatter_class, DefaultsHelpFormatter)
    for action in _options_with_defaults(parser):
        assert "default" in _help_of(action), (command, action.option_strings)


def test_train_help_shows_every_default():
    from tabletop_envs.training.train import build_parser as train_parser

    parser = train_parser()
    assert issubclass(parser.formatter_class, DefaultsHelpFormatter)
    options = _options_with_defaults(parser)
    assert len(options) > 30
    for action in options:
        assert "default" in _help_of(action), action.option_strings


def test_bench_help_shows_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    assert "(default: 7)" in capsys.readouterr().out  # --rounds, whose help did not say it


def test_formatter_adds_the_default_once():
    parser = argparse.ArgumentParser(formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--games", type=int, default=20, help="number of games")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument("--json", help="write JSON here")
    text = " ".join(parser.format_help().split())
    assert "number of games (default: 20)" in text
    assert "seed (default 0) --quiet" in text
    assert "no progress line --json" in text and text.endswith("write JSON here")


def test_metadata_license_and_typing_marker():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^license = "MIT"$', pyproject, re.M)  # SPDX expression, not a table
    assert re.search(r'^dynamic = \["version"\]$', pyproject, re.M)  # from __version__
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert (Path(tabletop_envs.__file__).parent / "py.typed").is_file()


def test_import_loads_no_optional_heavy_dependency():
    code = (
        "import sys, tabletop_envs, tabletop_envs.training; "
        "print(sorted(m for m in ('torch', 'stable_baselines3', 'sb3_contrib', 'matplotlib') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_sdist_and_wheel_carry_the_expert_networks(tmp_path):
    """An ``agents/experts/*.npz`` file reaches the wheel, built from the sdist as CI does, and
    so does the web app's page (``web/static``: HTML, ES modules, CSS)."""
    pytest.importorskip("build")
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        (project / name).write_bytes((ROOT / name).read_bytes())
    shutil.copytree(
        ROOT / "src",
        project / "src",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.npz"),
    )
    experts = project / "src" / "tabletop_envs" / "agents" / "experts"
    experts.mkdir(exist_ok=True)
    (experts / "demo_v0.npz").write_bytes(b"a stand-in: only its presence is checked")
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path / "dist"), "."],
        cwd=project,
        capture_output=True,
        check=True,
    )
    sdist = next((tmp_path / "dist").glob("*.tar.gz"))
    with tarfile.open(sdist) as archive:
        assert any(
            n.endswith("src/tabletop_envs/agents/experts/demo_v0.npz") for n in archive.getnames()
        )
    wheel = next((tmp_path / "dist").glob("*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "tabletop_envs/agents/experts/demo_v0.npz" in names
    for page in sorted((ROOT / "src" / "tabletop_envs" / "web" / "static").iterdir()):
        assert f"tabletop_envs/web/static/{page.name}" in names
