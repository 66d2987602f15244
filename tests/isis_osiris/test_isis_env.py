"""The PettingZoo env of Isis & Osiris: entry points, arguments, infos, rewards, renders."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs import InvalidParameterError, isis_osiris_v0, make
from tabletop_envs.games.isis_osiris.observation import layout
from tabletop_envs.games.isis_osiris.tables import TILE_VALUES
from tabletop_envs.testing.play import info_key


def play(env, seed: int) -> dict[str, tuple[float, dict]]:
    """Play a seeded random game through the AEC loop; return each agent's final (reward, info)."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            final[agent] = (reward, info)
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return final


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_entry_module_builds_registered_envs(num_players: int) -> None:
    """``env()`` and ``raw_env()`` take the game's keyword arguments."""
    env = isis_osiris_v0.env(num_players=num_players)
    assert env.possible_agents == [f"player_{i}" for i in range(num_players)]
    assert env.observation_space("player_0")["observation"].shape == (6, 6, 26 + 3 * num_players)
    assert env.action_space("player_0").n == 73
    assert isis_osiris_v0.raw_env().illegal_action == "raise"
    assert str(env) == "isis_osiris_v0"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 5}, "num_players must be from 2 to 4"),
        ({"memory": "yes"}, "memory must be True or False"),
        ({"reward": "points"}, "'win_loss', 'score'"),
        ({"render_mode": "bogus"}, "'human', 'ansi', 'rgb_array'"),
        ({"board_size": 6}, "board_size"),
    ],
)
def test_bad_arguments_list_valid_values(kwargs: dict, message: str) -> None:
    """Arguments are validated once, at construction, with the valid values in the error."""
    with pytest.raises(InvalidParameterError, match=message):
        isis_osiris_v0.env(**kwargs)


@pytest.mark.parametrize("reward", ["win_loss", "score"])
def test_infos_at_the_end_hold_scores_and_winners(reward: str) -> None:
    """Every agent's infos hold the scores and the winners, one entry per seat (fixed
    shapes: the lists are in ``result_details()``); rewards follow the mode."""
    env = isis_osiris_v0.env(num_players=3, reward=reward)
    final = play(env, 4)
    info = final["player_0"][1]
    assert set(info) == {"action_mask", "illegal_action", "scores", "winners"}
    for agent in env.possible_agents:
        assert info_key(final[agent][1]) == info_key(info)
    details = env.result_details()
    assert details == env.game.result_info()
    scores, winners = details["scores"], details["winners"]
    assert info["scores"].tolist() == scores and info["scores"].shape == (3,)
    assert info["winners"].tolist() == [int(s in winners) for s in range(3)]
    assert winners == [s for s in range(3) if scores[s] == max(scores)]
    rewards = [final[a][0] for a in env.possible_agents]
    if reward == "score":
        assert rewards == [float(s) for s in scores]
    else:
        sole = len(winners) == 1
        assert rewards == [(1.0 if sole else 0.0) if s in winners else -1.0 for s in range(3)]


def test_ansi_render_marks_stones_values_and_eyes() -> None:
    """Stones by seat letter, tile values with perfect recall; in memory mode the render is the
    viewer's side: the tile just placed shows its value to the others until they act, and the
    eye to its owner (``render()`` is the view of the agent to move)."""
    for memory in (False, True):
        env = make("isis_osiris_v0", render_mode="ansi", memory=memory)
        env.reset(seed=0)
        env.step(0)  # seat 0: stone on a1
        env.step(72)  # seat 1: reveal
        value = env.game.in_hand
        assert f"placing a {value:+d} tile" in env.render()
        env.step(36 + 1)  # ... and place it on b1
        text = env.render()  # seat 0 to move: it witnessed the reveal
        assert text.splitlines()[1].split()[:3] == ["1", "A", f"{value:+d}"]
        assert "player_0: stones 7, tiles 11  <- to move" in text
        owner = env.game.render_text(1).splitlines()[1].split()
        assert owner[:3] == ["1", "A", "()" if memory else f"{value:+d}"]
        env.step(2)  # seat 0: stone on c1; now it has acted since the reveal
        after = env.game.render_text(0).splitlines()[1].split()
        assert after[:4] == ["1", "A", "()" if memory else f"{value:+d}", "A"]
        assert env.render() == env.game.render_text(1)  # seat 1 to move
        assert f"{value:+d}" in env.game.render_text(show_values=True).splitlines()[1]


def test_rgb_array_render_draws_the_board() -> None:
    """An RGB uint8 image whose size depends on the player count only."""
    env = make("isis_osiris_v0", render_mode="rgb_array", num_players=4)
    env.reset(seed=1)
    empty = env.render()
    for action in (5, 72):
        env.step(action)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape == empty.shape
    assert not np.array_equal(img, empty)


def test_square_helpers_are_offered_by_the_env() -> None:
    """The public id <-> (row, col) helpers are forwarded by the env."""
    env = isis_osiris_v0.env()
    assert env.square_to_coord(7) == (1, 1) and env.coord_to_square(1, 1) == 7
    assert env.stone_action(2, 3) == 15 and env.tile_action(2, 3) == 51
    assert env.reveal_action == 72 and env.action_to_coord(51) == (2, 3)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_memory_mode_reveals_reach_every_agent_only_through_observe(num_players: int) -> None:
    """Memory mode in a plain AEC loop reading only ``last()`` (the Decision *Memory mode:
    every reveal is seen by every agent once*): an agent sees its own reveals in the
    ``placing_<v>`` planes while placing them, and every other agent's tile face up on the
    board exactly once, at its next turn; its own tiles never show face up before the end."""
    env = isis_osiris_v0.env(num_players=num_players, memory=True)
    env.reset(seed=3)
    lay = layout(num_players)
    rng = np.random.default_rng(3)
    agents = env.possible_agents
    placed_by: dict[int, str] = {}  # square -> agent that placed the tile there
    placed_value: dict[int, int] = {}
    own_reveals: dict[str, list[int]] = {a: [] for a in agents}
    seen_placing: dict[str, list[int]] = {a: [] for a in agents}
    seen_board: dict[str, list[tuple[int, int]]] = {a: [] for a in agents}
    due: dict[str, set[int]] = {a: set() for a in agents}  # others' tiles placed since my turn
    checked = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        planes = obs["observation"].reshape(36, -1)
        placing = planes[0, lay.placing : lay.placing + 8]
        if placing.any():
            seen_placing[agent].append(TILE_VALUES[int(np.flatnonzero(placing)[0])])
        shown = planes[:, lay.tile_value : lay.tile_value + 8]
        face_up = {
            int(sq): TILE_VALUES[int(np.flatnonzero(shown[sq])[0])]
            for sq in np.flatnonzero(shown.any(axis=1))
        }
        assert set(face_up) == due[agent], "exactly the tiles placed since this agent's last step"
        assert all(placed_by[sq] != agent for sq in face_up)
        seen_board[agent] += [(sq, v) for sq, v in face_up.items()]
        checked += len(face_up)
        due[agent] = set()
        legal = np.flatnonzero(obs["action_mask"])
        action = 72 if 72 in legal and rng.random() < 0.6 else int(rng.choice(legal))
        env.step(action)
        if action == 72:
            own_reveals[agent].append(env.game.in_hand)
        elif 36 <= action < 72:
            sq = action - 36
            placed_by[sq], placed_value[sq] = agent, env.game.tiles[sq]
            for other in agents:
                if other != agent:
                    due[other].add(sq)
    assert checked > 5
    for agent in agents:
        assert seen_placing[agent] == own_reveals[agent]
        sightings = [sq for sq, _ in seen_board[agent]]
        assert len(sightings) == len(set(sightings)), "a reveal was shown twice"
        assert all(placed_value[sq] == v for sq, v in seen_board[agent])
        # every other agent's tile was seen, except those placed after this agent's last turn
        assert set(sightings) | due[agent] == {sq for sq, a in placed_by.items() if a != agent}
