"""The README and docs/ tell the truth: their snippets run, links resolve, tables match the code.

Every ```python block of README.md and docs/**/*.md is executed; write non-runnable examples as
```text or ```pycon.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from tabletop_envs import registered_envs
from tabletop_envs.games.iris import CHANNELS
from tests.clients.configs import HEAVY_CLIENTS
from tests.extras import TRAIN, need_extra

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]


def _blocks(path: Path, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", path.read_text(), re.S | re.M)


SNIPPETS = [
    pytest.param(code, id=f"{path.relative_to(ROOT)}-{k}")
    for path in PAGES
    for k, code in enumerate(_blocks(path, "python"))
]


def test_readme_has_python_snippets() -> None:
    assert len(_blocks(README, "python")) >= 2


#: What a snippet may import beyond the test extra, by module: the extra that brings it.
EXTRA_OF = {
    **{client: "clients" for client in HEAVY_CLIENTS},
    "torch": "train",
    "sb3_contrib": "train",
    "stable_baselines3": "train",
    "ray": "rllib",
}


def _missing_modules(code: str) -> list[str]:
    """Return the modules of other extras that a snippet needs and that are missing
    (``tabletop_envs.training`` needs the train extra's torch and SB3)."""
    imported = set(re.findall(r"^(?:from|import) ([\w.]+)", code, re.M))
    needed = {name.split(".")[0] for name in imported}
    if any(name.startswith("tabletop_envs.training") for name in imported):
        needed |= set(TRAIN)
    return sorted(m for m in needed & set(EXTRA_OF) if importlib.util.find_spec(m) is None)


@pytest.mark.parametrize("code", SNIPPETS)
def test_python_snippet_runs(
    code: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = _missing_modules(code)
    if missing:  # skipped like the tests of that extra (the CI has them all: it fails there)
        need_extra(EXTRA_OF[missing[0]], missing[0])
    # Snippets may write files (results, models): keep them out of the repository.
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "<snippet>", "exec"), {"__name__": "__main__"})


def _fresh_machine_commands() -> list[str]:
    section = README.read_text().split("## On a fresh machine", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.S)]


def test_readme_gives_two_single_line_fresh_machine_commands() -> None:
    main, tests = _fresh_machine_commands()
    for command in (main, tests):
        assert "\n" not in command
        prefix = "python3 -m venv .venv && . .venv/bin/activate && pip install torch==2.13.0 && "
        assert command.startswith(prefix)
    assert 'pip install -e ".[train]"' in main
    assert main.endswith("tabletop-envs train --env iris_v0 --timesteps 100000 --out runs/iris")
    assert 'pip install -e ".[train,rllib,clients,webtest,test]"' in tests
    assert (ROOT / "examples" / "random_game.py").is_file()


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = _fresh_machine_commands()[1].split(" && ")[-1]
    assert test_command == "python -m pytest -q"
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(rf"^{re.escape(test_command)}$", ci, re.M)
    # torch (the local CPU build) before the train and rllib extras, as in the README
    torch_at = ci.index("pip install torch==2.13.0")
    assert torch_at < ci.index('pip install -e ".[train,rllib,clients,webtest,test]"')
    assert "set -euo pipefail" in ci


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text()):
        if "://" not in target:
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_points_outside_the_repository(page: Path) -> None:
    text = page.read_text()
    assert "shared/rules" not in text, f"{page.name} points at the internal specifications"
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            resolved = (page.parent / target).resolve()
            assert resolved.is_relative_to(ROOT), f"{page.name} links outside: {target}"


def test_every_registered_env_is_documented() -> None:
    readme = README.read_text()
    index = (ROOT / "docs" / "index.md").read_text()
    for name in registered_envs():
        assert f"`{name}`" in readme, f"README.md's env table lacks {name}"
        assert f"`{name}`" in index, f"docs/index.md's env table lacks {name}"


def test_iris_observation_table_matches_channels() -> None:
    text = (ROOT / "docs" / "iris.md").read_text()
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \|", text, re.M)
    assert [(int(k), name) for k, name in rows] == list(enumerate(CHANNELS))
