"""Pebbles through every part of the library, with no edit outside this folder: a new game is
one folder. The envs, the Gymnasium view, the agents (random, greedy, MCTS, AZ, a person), the
arena, ``watch``, the conformance suite and a CI-sized AlphaZero run.
"""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest

import tabletop_envs
import tests.toy_game as toy
from tabletop_envs.agents import Agent, make_agent
from tabletop_envs.agents.human import move_hint, parse_move
from tabletop_envs.envs.registry import env_spec, registered_envs
from tabletop_envs.evaluation import run_arena
from tabletop_envs.render.draw import to_svg
from tabletop_envs.search import PolicyValueNet
from tabletop_envs.testing import CHECKS, check_env
from tabletop_envs.watch import frame, watch
from tests.toy_game.rules import PebblesState

NAME = toy.SPEC.name


def _play(env: Any, agents: list[Agent], seed: int) -> list[float]:
    """Play one AEC game of ``env`` with ``agents`` per seat; return the final rewards."""
    env.reset(seed=seed)
    for seat, agent in enumerate(agents):
        agent.reset(seed + seat)
    for name in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.possible_agents.index(name)
        env.step(agents[seat].act(env.game, seat))
    return [float(r) for r in env.game.returns()]


def test_importing_the_folder_registers_it_once() -> None:
    """Importing the package registers Pebbles; importing (registering) again changes nothing."""
    toy.unregister()
    assert NAME not in registered_envs() and toy.SPEC.gym_id not in gymnasium.registry
    importlib.reload(toy)
    assert NAME in registered_envs() and toy.SPEC.gym_id in gymnasium.registry
    importlib.reload(toy)
    toy.register()
    assert registered_envs().count(NAME) == 1
    assert env_spec(NAME).load_game() is PebblesState


@pytest.mark.parametrize(
    "params",
    toy.SPEC.test_params,
    ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default",
)
def test_check_env_passes(params: dict[str, int]) -> None:
    """The shipped conformance suite passes on every parameter set the spec declares."""
    assert check_env(NAME, **params) == [check.name for check in CHECKS]


def test_make_and_make_parallel() -> None:
    """``tabletop_envs.make``/``make_parallel`` build it; every render mode draws it."""
    env = tabletop_envs.make(NAME, render_mode="ansi")
    rewards = _play(env, [make_agent("random", NAME), make_agent("random", NAME)], seed=1)
    assert sorted(rewards) in ([-1.0, 1.0], [0.0, 0.0])
    assert "pebbles left" in env.render()
    par = tabletop_envs.make_parallel(NAME, num_players=3, pile=9)
    obs, _ = par.reset(seed=2)
    while par.agents:
        legal = {a: np.flatnonzero(o["action_mask"]) for a, o in obs.items()}
        obs, rewards, *_ = par.step({a: int(ids[-1]) for a, ids in legal.items() if len(ids)})
    assert sum(1 for r in rewards.values() if r >= 0) >= 1
    for mode, kind in (("rgb_array", np.ndarray), ("svg", str)):
        env = tabletop_envs.make(NAME, render_mode=mode)
        env.reset(seed=0)
        assert isinstance(env.render(), kind)


def test_gymnasium_make_plays_against_greedy() -> None:
    """``gymnasium.make(<gym id>, opponent="greedy")``: one learning seat, masks, a final reward."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium's checker on a masked discrete space
        env = gymnasium.make(toy.SPEC.gym_id, opponent="greedy", num_players=3)
    obs, info = env.reset(seed=0)
    assert obs.shape == (2 + 2 * 3,) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    done, reward = False, 0.0
    while not done:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        obs, reward, term, trunc, info = env.step(int(rng.choice(legal)))
        done = term or trunc
    assert reward in (-1.0, 0.0, 1.0) and info["scores"].shape == (3,)  # SPEC.results
    assert info["scores"].tolist() == env.unwrapped.result_details()["scores"]
    env.close()


def test_agents_play_legal_moves(tmp_path: Path) -> None:
    """Random, greedy, MCTS and AZ (a random network saved to a file) play whole games."""
    net = PolicyValueNet.initial(PebblesState.new(seed=0), hidden=(16,), seed=0, env=NAME)
    net.save(tmp_path / "pebbles.npz")
    specs = [
        "random",
        "greedy",
        "mcts:iterations=20",
        f"az:{tmp_path / 'pebbles.npz'},simulations=8",
    ]
    env = tabletop_envs.make(NAME, illegal_action="raise")
    for k, spec in enumerate(specs):
        agents = [make_agent(spec, NAME, seed=k), make_agent("greedy", NAME, seed=k)]
        assert len(_play(env, agents, seed=k)) == 2  # an illegal action would have raised


def test_greedy_heuristic_takes_the_last_pebble() -> None:
    """With 3 pebbles left, greedy takes them all; with 5, it leaves 4 (not 1 to 3)."""
    greedy = make_agent("greedy", NAME, seed=0)
    game = PebblesState.new(seed=0, pile=12)
    for action in (2, 2, 2):  # 3 left
        game.apply(action)
    assert greedy.act(game, game.current_player) == 2
    game = PebblesState.new(seed=0, pile=5)
    assert greedy.act(game, 0) == 0


def test_arena_and_watch(tmp_path: Path) -> None:
    """The arena plays seeded games between specs; ``watch`` records one and draws its frames."""
    result = run_arena(NAME, ["greedy", "random"], games=20, seed=0)
    greedy, random_ = result.stats
    assert greedy.results == random_.results == 20
    assert greedy.score > random_.score
    record = watch(NAME, ["greedy", "mcts:iterations=20"], seed=3, env_kwargs={"num_players": 3})
    states = record.positions()
    assert states[-1].is_terminal and record.agents == ("greedy", "mcts:iterations=20", "greedy")
    svg = to_svg(frame(record, states, 0))
    assert svg.startswith("<svg ") and "player 2" in svg


def test_a_person_types_moves() -> None:
    """The human agent's parser reads ``take N``, ``tN`` and ``N``; it names what is wrong."""
    game = PebblesState.new(seed=0, pile=4)
    assert [parse_move(game, text) for text in ("take 1", "t2", " 3 ", "Take 3")] == [0, 1, 2, 2]
    assert parse_move(game, "#0") == 0  # an action id, as in every game
    with pytest.raises(ValueError, match="take 1 to 3"):
        parse_move(game, "take 4")
    with pytest.raises(ValueError, match="cannot read"):
        parse_move(game, "all of them")
    game.apply(2)  # 1 left
    with pytest.raises(ValueError, match="only 1 pebbles are left"):
        parse_move(game, "take 2")
    assert "take N" in move_hint("pebbles")


def test_hidden_tokens_stay_hidden() -> None:
    """A seat sees its own token and not the others'; resampling redraws only the others'."""
    game = PebblesState.new(seed=4, num_players=3)
    tokens = game.tokens.copy()
    for seat in range(3):
        assert game.observation(seat)[1] == tokens[seat]
        drawn = game.resample_hidden(seat, np.random.default_rng(seat))
        assert drawn.tokens[seat] == tokens[seat]
    seen = {tuple(game.resample_hidden(0, np.random.default_rng(k)).tokens) for k in range(30)}
    assert len(seen) > 1 and all(t[0] == tokens[0] for t in seen)


def test_alphazero_training_run(tmp_path: Path) -> None:
    """A CI-sized AlphaZero run (tiny net, 2 games of 2 simulations) writes a playable model
    (skipped without the train extra: torch, matplotlib)."""
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")  # the run draws its win-rate plot
    from tabletop_envs.training.az import AZConfig, train_az

    config = AZConfig(
        env=NAME,
        hidden=(16,),
        games=2,
        simulations=2,
        iterations=1,
        eval_every=1,
        eval_games=2,
        eval_simulations=1,
        final_eval_games=2,
        buffer_size=1000,
        batch_size=16,
        out=str(tmp_path / "run"),
        progress_bar=False,
    )
    train_az(config, log=lambda text: None)
    model = tmp_path / "run" / "model.npz"
    agent = make_agent(f"az:{model},simulations=4", NAME, seed=0)
    game = PebblesState.new(seed=0)
    assert game.legal_mask()[agent.act(game, 0)]


def test_the_folder_moves_into_a_users_package(tmp_path: Path) -> None:
    """docs/adding_a_game.md's promise: copied as ``my_games/pebbles``, the folder still works."""
    import shutil
    import subprocess
    import sys

    package = tmp_path / "my_games"
    shutil.copytree(Path(toy.__file__).parent, package / "pebbles", ignore=_tests_and_caches)
    (package / "__init__.py").write_text("")
    script = (
        "import my_games.pebbles, tabletop_envs\n"
        "from tabletop_envs.agents import make_agent\n"
        "from tabletop_envs.evaluation import run_arena\n"
        "env = tabletop_envs.make('pebbles_v0', num_players=3)\n"
        "env.reset(seed=0)\n"
        "agents = [make_agent(s, 'pebbles_v0', seed=0) for s in ('greedy', 'random')]\n"
        "print(run_arena('pebbles_v0', agents, games=4, seed=0).games)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "4"


def _tests_and_caches(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n.startswith(("test_", "conftest")) or n == "__pycache__"]
