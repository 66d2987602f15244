"""The irk_v0 env: entry points, infos at the end, reward modes, renders, forwarded helpers."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from tabletop_envs import IllegalActionError, InvalidParameterError, irk_v0, make
from tabletop_envs.games.irk.image import draw, frame_size
from tabletop_envs.games.irk.rules import DEFAULT_TABLE_SIZE
from tabletop_envs.testing.play import info_key


def play(env, seed: int = 0) -> tuple[dict, dict]:
    """Play a random game; return each agent's final (reward, info) as seen by ``last()``."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards, infos = {}, {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            rewards[agent], infos[agent] = reward, info
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
    return rewards, infos


@pytest.mark.parametrize("n", [2, 3, 4])
def test_infos_at_the_end_carry_the_result_and_details_the_json_friendly_one(n):
    """The infos hold the score as fixed-shape arrays; ``result_details()`` the full
    JSON-friendly result that the infos held before."""
    env = irk_v0.env(num_players=n, table_size=13)
    final_rewards, infos = play(env, seed=n)
    info = infos["player_0"]
    assert all(info_key(i) == info_key(info) for i in infos.values())
    details = env.result_details()
    assert json.loads(json.dumps(details)) == details
    for key in ("table_values", "counts", "stars", "points", "totals", "star_totals"):
        assert info[key].tolist() == details[key], key
    assert info["counts"].shape == (n, 5) and info["totals"].shape == (n,)
    rewards = [final_rewards[a] for a in env.possible_agents]
    winners = details["winners"]
    assert info["winners"].tolist() == [int(s in winners) for s in range(n)]
    expected = [(1.0 if len(winners) == 1 else 0.0) if s in winners else -1.0 for s in range(n)]
    assert rewards == expected
    assert details == env.game.score() | {"discards": details["discards"]}


def test_score_reward_mode_pays_points():
    env = irk_v0.env(num_players=3, reward="score", table_size=13)
    rewards, infos = play(env, seed=1)
    info = infos["player_1"]
    assert [rewards[a] for a in env.possible_agents] == [float(t) for t in info["totals"]]
    assert env.game.spec.reward_range == (0.0, 90.0)


def test_defaults_and_entry_points():
    env = irk_v0.env()
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1"]
    assert env.game.params.table_size == DEFAULT_TABLE_SIZE
    assert env.action_space("player_0").n == 30 + DEFAULT_TABLE_SIZE**2 * 4
    raw = irk_v0.raw_env()
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not in your hand"):
        raw.step(next(t for t in range(30) if t not in raw.game.hands[0]))
    with pytest.raises(InvalidParameterError, match="num_players"):
        make("irk_v0", num_players=5)


def test_non_movers_get_a_zero_mask():
    env = irk_v0.env(num_players=3)
    env.reset(seed=2)
    assert env.observe("player_0")["action_mask"].sum() == 7
    assert not env.observe("player_1")["action_mask"].any()


def test_helpers_are_forwarded():
    env = irk_v0.env(table_size=11)
    env.reset(seed=0)
    assert env.placement_to_action(1, 2, 3) == 30 + (1 * 11 + 2) * 4 + 3
    assert env.action_to_placement(30 + 7) == (0, 1, 3)
    assert env.action_to_tile(4) == env.tile_to_action(4) == 4
    assert env.score()["winners"] == [0, 1]  # empty piles: everybody ties


def test_ansi_render_shows_table_piles_and_status():
    env = irk_v0.env(render_mode="ansi", table_size=13)
    play(env, seed=3)
    text = env.render()
    assert "player_0: pile [" in text and "player_1: pile [" in text
    assert "game over: points" in text
    assert "hand:" not in text  # the env's render is the public view
    assert any(mark in text for mark in ("G3", "R3", "Y3", "P3", "B3", "G2", "Y*"))


def test_rgb_render_draws_the_table():
    env = irk_v0.env(render_mode="rgb_array", table_size=9)
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.shape == (*frame_size(env.game.params), 3)
    picture = draw(env.game)  # the public view, no hand, at the top of the env's frame
    assert picture.shape[1] == img.shape[1] and np.array_equal(img[: len(picture)], picture)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 4  # flowers in several colors


def test_text_render_can_tint_squares_for_a_color_terminal():
    from tabletop_envs.games.irk.text import render

    env = irk_v0.env()
    env.reset(seed=0)
    game = env.game
    tinted = render(game, 0, colors=True)
    assert "\x1b[32m" in tinted and "\x1b[0m" in tinted
    assert re.sub(r"\x1b\[\d+m", "", tinted) == game.render_text(0)


def test_the_real_position_of_the_docs_is_reproduced():
    """docs/irk.md shows a position of ``IrkState.new(seed=0)``: replaying it gives that text."""
    from pathlib import Path

    from tabletop_envs.games.irk.rules import IrkState

    page = (Path(__file__).resolve().parents[2] / "docs" / "irk.md").read_text()
    shown = page.split("A real position", 1)[1].split("```\n", 2)[1]
    game = IrkState.new(seed=0)
    tile = {game.tile_label(t): t for t in range(game.deck_size)}
    for action in (
        tile["R1 B* Y1"],  # round 1 (bet): player_0
        tile[". R3 ."],  # player_1
        tile["Y3 . ."],  # round 2 (table): player_0 chooses
        tile["Y1 R2 ."],  # player_1 chooses
        game.placement_to_action(14, 18, "up"),  # player_0 places
        game.placement_to_action(17, 13, "up"),  # player_1 places; the box passes
    ):
        game.apply(action)
    game.apply(game.hands[1][0])  # round 3: player_1 (box holder) chooses in secret
    lines = [line.rstrip() for line in game.render_text().splitlines()]
    assert lines == shown.rstrip("\n").splitlines()
