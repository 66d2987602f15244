"""``tabletop-envs watch`` / ``replay``: agents' games as text, GIF, SVG frames and records."""

from __future__ import annotations

import io
import json
import re
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tabletop_envs import cli
from tabletop_envs.evaluation.arena import run_arena
from tabletop_envs.replay import GameRecord
from tabletop_envs.watch import browse, split_agents, watch, write_gif

PIL = pytest.importorskip("PIL.Image")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_split_agents_keeps_option_lists_together() -> None:
    assert split_agents(["greedy,mcts:iterations=50,c=2", "random"]) == [
        "greedy",
        "mcts:iterations=50,c=2",
        "random",
    ]
    with pytest.raises(ValueError, match="at least one agent"):
        split_agents([])
    with pytest.raises(ValueError, match="empty agent spec in ','"):
        split_agents([","])


def test_watch_plays_game_zero_of_the_arena() -> None:
    record = watch("isis_osiris_v0", ["greedy", "random"], seed=5)
    arena = run_arena("isis_osiris_v0", ["greedy", "random"], games=1, seed=5)
    assert record.result["returns"] == arena.outcomes[0]
    assert record.agents == ("greedy", "random")
    assert record.positions()[-1].is_terminal
    with pytest.raises(ValueError, match="has 2 seats: name 1 to 2 agents"):
        watch("iris_v0", ["random"] * 3)


def test_watch_writes_a_gif_svg_frames_and_a_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gif, svgs, rec = tmp_path / "g.gif", tmp_path / "frames", tmp_path / "g.json"
    argv = ["watch", "--env", "irk_v0", "--agents", "greedy,random", "--seed", "1"]
    code, out, _ = run([*argv, "--gif", str(gif), "--svg", str(svgs), "--record", str(rec)], capsys)
    assert code == 0
    record = GameRecord.load(rec)
    frames = len(record.actions) + 1
    assert f"wrote {gif}: {frames} frames" in out and "result: P0 greedy" in out
    with PIL.open(gif) as img:
        assert img.n_frames == frames
        width, height = img.size
        assert f"{width}x{height}" in out
        sizes = set()
        for k in range(img.n_frames):
            img.seek(k)
            sizes.add(img.size)
        assert sizes == {(width, height)}  # Irk's growing table padded to one size
    files = sorted(svgs.glob("*.svg"))
    assert [f.name for f in files[:2]] == ["000.svg", "001.svg"] and len(files) == frames
    root = ET.parse(files[-1]).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = [el.text for el in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts[-1].startswith(f"move {frames - 1}: P")  # the caption names the last move


def test_replay_prints_every_position_and_steps_back_and_forth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = tmp_path / "g.json"
    code, _, _ = run(
        ["watch", "--agents", "random", "--param", "board_size=3", "--record", str(rec)], capsys
    )
    assert code == 0
    record = GameRecord.load(rec)
    code, out, _ = run(["replay", str(rec)], capsys)
    assert code == 0
    assert out.count("\n-- move ") == len(record.actions) and "game over" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\nn\nb\n0\nx\nq\n"))
    code, out, _ = run(["replay", str(rec), "--step"], capsys)
    assert code == 0
    shown = [line.split("]")[0] for line in out.splitlines() if line.startswith("[")]
    assert [s.split("/")[0] for s in shown][:5] == ["[0", "[1", "[2", "[1", "[0"]
    assert "unknown command 'x'" in out


def test_browse_stops_at_the_end_of_input() -> None:
    record = watch("iris_v0", ["random"], env_kwargs={"board_size": 3})
    states = record.positions()
    last = len(states) - 1
    out = io.StringIO()
    browse(record, states, io.StringIO(f"{last + 1}\n{last}\nn\n"), out)
    text = out.getvalue()
    assert f"positions run from 0 to {last}" in text
    assert text.count(f"[{last}/{last}]") == 2  # the jump, then "next" stays at the end


def test_replay_of_a_bad_record_says_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "g.json"
    record = watch("iris_v0", ["random"], env_kwargs={"board_size": 3})
    data = json.loads(record.to_json())
    data["actions"][2] = data["actions"][1]
    rec.write_text(json.dumps(data))
    code, _, err = run(["replay", str(rec)], capsys)
    assert code == 2 and "step 2: illegal action" in err
    code, _, err = run(["replay", str(tmp_path / "missing.json")], capsys)
    assert code == 2 and f"cannot read '{tmp_path / 'missing.json'}': No such file" in err
    code, _, err = run(["replay", ""], capsys)  # not "'': Is a directory" (the current folder)
    assert code == 2 and "record must name a record file (written by 'watch --record')" in err


def test_write_gif_checks_its_delays(tmp_path: Path) -> None:
    record = watch("iris_v0", ["random"], env_kwargs={"board_size": 3})
    states = record.positions()
    assert write_gif(record, states, tmp_path / "a.gif", delay_ms=50)[0] == len(states)
    for delay in (0, 655_351, 10**20):  # a GIF frame lasts at most 65535 hundredths of a second
        with pytest.raises(ValueError, match="milliseconds from 1 to 655350"):
            write_gif(record, states, tmp_path / "b.gif", delay_ms=delay)


def test_the_readme_watch_command_works_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = Path(__file__).resolve().parent.parent
    section = (root / "README.md").read_text().split("## Watch a game", 1)[1].split("\n## ")[0]
    [command] = re.findall(r"```bash\n(.*?)\n```", section, re.S)
    assert 'pip install -e ".[render]"' in command
    assert re.search(r'^render = \["pillow>=', (root / "pyproject.toml").read_text(), re.M)
    argv = shlex.split(command.split(" && ")[-1])
    assert argv[:2] == ["tabletop-envs", "watch"]
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(argv[1:], capsys)
    gif = tmp_path / argv[argv.index("--gif") + 1]
    assert code == 0 and gif.is_file() and "frames of" in out
    with PIL.open(gif) as img:
        assert img.n_frames > 10


@pytest.mark.parametrize("command", ["watch", "replay"])
def test_help_describes_the_spectator_view(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--gif" in text and "--svg" in text
    assert ("spectator" in text) == (command == "watch")
