"""The ``expert`` agent with networks for several parameter sets of one env (ExpertAgent)."""

from __future__ import annotations

import importlib.resources
import re
from pathlib import Path
from typing import Any

import pytest

from tabletop_envs.agents import make_agent
from tabletop_envs.agents.az import AZAgent
from tabletop_envs.agents.expert import ExpertAgent, expert_file_env, file_order
from tabletop_envs.agents.registry import expert_envs
from tabletop_envs.evaluation import run_arena
from tabletop_envs.search.network import PolicyValueNet
from tests.agents.helpers import new_game

ENV = "isis_osiris_v0"


def _folder(tmp_path: Path, monkeypatch: Any, players: dict[str, int]) -> Path:
    """A stand-in for the package's experts folder: one small network per ``name: players``."""
    folder = tmp_path / "experts"
    folder.mkdir()
    for i, (name, n) in enumerate(players.items()):
        game = new_game(ENV, {"num_players": n}, 0)
        PolicyValueNet.initial(game, hidden=(8,), seed=i).save(folder / name)
    monkeypatch.setattr(importlib.resources, "files", lambda package: tmp_path)
    return folder


def test_file_names_say_the_env_and_the_default_file_comes_first():
    assert expert_file_env("irk_v0.npz") == "irk_v0"
    assert expert_file_env("irk_v0.3p.npz") == "irk_v0"
    assert expert_file_env("irk_v0.json") is None
    assert expert_file_env(".npz") is None
    names = ["irk_v0.4p.npz", "irk_v0.npz", "irk_v0.3p.npz"]
    assert sorted(names, key=file_order) == ["irk_v0.npz", "irk_v0.3p.npz", "irk_v0.4p.npz"]


def test_the_expert_is_the_default_files_az_agent_handing_other_games_on(tmp_path, monkeypatch):
    _folder(tmp_path, monkeypatch, {f"{ENV}.npz": 2, "iris_v0.npz": 2})
    one: Any = make_agent("expert", ENV, seed=0)
    assert isinstance(one, ExpertAgent) and isinstance(one, AZAgent) and one.others == []
    (tmp_path / "experts" / "iris_v0.npz").unlink()
    game = new_game(ENV, {"num_players": 3}, 0)
    PolicyValueNet.initial(game, hidden=(8,), seed=5).save(tmp_path / "experts" / f"{ENV}.3p.npz")
    assert expert_envs() == [ENV]  # one env, two files
    agent: Any = make_agent("expert:simulations=4", ENV, seed=0)
    assert isinstance(agent, ExpertAgent) and agent.net.meta["params"]["num_players"] == 2
    assert [a.simulations for a in agent.agents] == [4, 4]  # the options reach every network
    assert [a.net.meta["params"]["num_players"] for a in agent.agents] == [2, 3]


@pytest.mark.parametrize("players", [2, 3])
def test_each_game_is_played_by_the_network_made_for_its_players(tmp_path, monkeypatch, players):
    _folder(tmp_path, monkeypatch, {f"{ENV}.npz": 2, f"{ENV}.3p.npz": 3})
    agent: Any = make_agent("expert:simulations=4", ENV, seed=0)
    game = new_game(ENV, {"num_players": players}, 0)
    chosen = agent.agent_for(game)
    assert chosen.net.meta["params"]["num_players"] == players
    alone = AZAgent(chosen.net, simulations=4, seed=0)
    assert agent.act(game, game.current_player) == alone.act(game, game.current_player)
    result = run_arena(
        ENV, [agent] + ["random"] * (players - 1), 2, seed=1, env_kwargs={"num_players": players}
    )
    assert result.games == 2


def test_a_game_no_network_fits_is_refused_naming_what_each_was_made_for(tmp_path, monkeypatch):
    _folder(tmp_path, monkeypatch, {f"{ENV}.npz": 2, f"{ENV}.3p.npz": 3})
    agent: Any = make_agent("expert", ENV, seed=0)
    game = new_game(ENV, {"num_players": 4}, 0)
    before = game.to_json()
    with pytest.raises(
        ValueError,
        match=r"no packaged isis_osiris_v0 expert plays this game "
        r"\(num_players=4, reward=win_loss\): they are made for \(num_players=2, "
        r"reward=win_loss\) and \(num_players=3, reward=win_loss\)",
    ):
        agent.act(game, game.current_player)
    assert game.to_json() == before  # the refused game is untouched


def test_three_networks_are_named_in_one_sentence(tmp_path, monkeypatch):
    _folder(tmp_path, monkeypatch, {f"{ENV}.npz": 2, f"{ENV}.3p.npz": 3, f"{ENV}.4p.npz": 4})
    agent: Any = make_agent("expert", ENV, seed=0)
    game = new_game(ENV, {"reward": "score"}, 0)
    made = (
        "(num_players=2, reward=win_loss), (num_players=3, reward=win_loss) "
        "and (num_players=4, reward=win_loss)"
    )
    with pytest.raises(ValueError, match=re.escape(f"they are made for {made}. Train a network")):
        agent.act(game, game.current_player)


def test_reset_reaches_every_network(tmp_path, monkeypatch):
    _folder(tmp_path, monkeypatch, {f"{ENV}.npz": 2, f"{ENV}.3p.npz": 3})
    agent: Any = make_agent("expert:simulations=4", ENV, seed=0)
    game = new_game(ENV, {"num_players": 3}, 0)
    first = [agent.act(game, game.current_player) for _ in range(3)]
    agent.reset(0)
    assert [agent.act(game, game.current_player) for _ in range(3)] == first


def test_the_packaged_files_record_their_commands_with_the_documented_paths():
    """A packaged file's ``meta["trained"]`` is shipped to every user: it records the command
    that trained it as docs/results.md gives it (``runs/...``), never a path of the machine it
    ran on (the Isis & Osiris file said ``sb3:/work/runs_s17/...`` until 2026-12-07)."""
    folder = importlib.resources.files("tabletop_envs") / "agents" / "experts"
    files = sorted(p for p in folder.iterdir() if p.name.endswith(".npz"))
    assert len(files) >= 3
    for path in files:
        command = PolicyValueNet.load(str(path)).meta["trained"]["command"]
        absolute = re.findall(r"(?:^|[\s:=])([/~][^\s]*)", command)
        assert not absolute, f"{path.name}: {absolute}"
        assert "--out runs/" in command, path.name
