"""The action log every core state keeps, replay() and the game record file."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tabletop_envs.core.errors import IllegalActionError, InvalidStateError
from tabletop_envs.replay import GameRecord, ReplayError, positions, replay
from tests.conformance.cases import CASES, new_game, random_action

#: Random games replayed per case (14 cases: about 2,100 games in all).
GAMES_PER_CASE = 150
#: A legal first action of Iris (playing it twice is illegal).
_FIRST = new_game("iris_v0", {}, seed=1).legal_actions()[0]


@pytest.mark.parametrize(("name", "params"), CASES)
def test_replaying_the_log_of_random_games_rebuilds_them(name: str, params: dict) -> None:
    rng = np.random.default_rng(7)
    for g in range(GAMES_PER_CASE):
        game = new_game(name, params, seed=1000 + g)
        stop = int(rng.integers(1, 10_000))  # a position part way, or the end
        middle = None
        while not game.is_terminal:
            game.apply(random_action(game, rng))
            if len(game.actions) == stop:
                middle = game.clone()
        again = replay(name, params, game.seed, game.actions)
        assert again == game and again.actions == game.actions
        assert again.render_text() == game.render_text()
        if middle is not None:
            assert replay(game.game_name, params, middle.seed, middle.actions) == middle


@pytest.mark.parametrize(("name", "params"), CASES)
def test_clone_json_and_pickle_keep_an_independent_log(name: str, params: dict) -> None:
    rng = np.random.default_rng(3)
    game = new_game(name, params, seed=5)
    for _ in range(4):
        game.apply(random_action(game, rng))
    assert game.seed == 5 and len(game.actions) == 4
    for copy in (
        game.clone(),
        type(game).from_json(game.to_json()),
        pickle.loads(pickle.dumps(game)),
    ):
        assert copy.seed == 5 and copy.actions == game.actions
        copy.apply(random_action(copy, rng))
        assert len(copy.actions) == 5 and len(game.actions) == 4


def test_a_rejected_action_leaves_the_log_unchanged() -> None:
    game = new_game("iris_v0", {}, seed=1)
    game.apply(int(game.legal_actions()[0]))
    taken = game.actions[0]
    with pytest.raises(IllegalActionError):
        game.apply(taken)  # the cell is occupied now
    assert game.actions == [taken]


def test_numpy_actions_are_logged_as_ints() -> None:
    game = new_game("iris_v0", {}, seed=1)
    game.apply(np.int64(game.legal_actions()[0]))
    assert type(game.actions[0]) is int
    json.dumps(game.actions)


def test_an_unseeded_game_still_gets_a_seed_that_replays_it() -> None:
    game = new_game("isis_osiris_v0", {}, seed=None)
    rng = np.random.default_rng(0)
    for _ in range(6):
        game.apply(random_action(game, rng))
    assert isinstance(game.seed, int)
    assert replay("isis_osiris", {}, game.seed, game.actions) == game


def test_json_without_a_log_loads_unseeded_and_a_bad_log_is_rejected() -> None:
    game = new_game("iris_v0", {}, seed=1)
    data = json.loads(game.to_json())
    assert data["log"] == {"seed": 1, "actions": []}
    del data["log"]
    old = type(game).from_json(json.dumps(data))
    assert old == game and old.seed is None and old.actions == []
    for log, match in [
        ({"seed": -1, "actions": []}, "log.seed"),
        ({"seed": 1, "actions": [10_000]}, "log.actions"),
        ({"seed": 1}, r"log: missing keys \['actions'\]"),
        ({"seed": 2, "actions": []}, "log: the deal and actions do not rebuild this position"),
        ({"seed": 1, "actions": [_FIRST, _FIRST]}, r"log.actions\[1\]"),
    ]:
        data["log"] = log
        with pytest.raises(InvalidStateError, match=match):
            type(game).from_json(json.dumps(data))


def test_positions_yield_every_position_and_resampled_states_forget_their_seed() -> None:
    game = new_game("irk_v0", {}, seed=2)
    rng = np.random.default_rng(0)
    for _ in range(5):
        game.apply(random_action(game, rng))
    states = list(positions("irk", {}, 2, game.actions))
    assert len(states) == 6 and states[-1] == game and states[0].actions == []
    assert game.resample_hidden(0, rng).seed is None


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("chess", {}, 1, []), "unknown game 'chess'"),
        (("iris", {"board_size": 99}, 1, []), "bad iris params"),
        (("iris", {"size": 5}, 1, []), "keywords: \\['board_size', 'auto_forced'\\]"),
        (("iris", {}, -3, []), r"seed must be an integer from 0 to 2\*\*128 - 1"),
        (("iris", {}, 1, [_FIRST, _FIRST]), f"step 1: illegal action {_FIRST}"),
        (("iris", {}, 1, [1.5]), "step 0: an action is an integer id"),
    ],
)
def test_replay_names_what_is_wrong(args: tuple, match: str) -> None:
    with pytest.raises(ReplayError, match=match):
        replay(*args)


def _record(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    game = new_game("isis_osiris_v0", {"num_players": 3}, seed=11)
    rng = np.random.default_rng(1)
    while not game.is_terminal:
        game.apply(random_action(game, rng))
    record = GameRecord.of("isis_osiris_v0", game, ["random", "greedy", "random"])
    path = tmp_path / "game.json"
    record.save(path)
    loaded = GameRecord.load(path)
    assert loaded.positions()[-1] == game
    assert loaded.result["returns"] == [float(r) for r in game.returns()]
    return path, json.loads(path.read_text())


def test_a_record_round_trips_and_rebuilds_the_game(tmp_path: Path) -> None:
    _, data = _record(tmp_path)
    assert set(data) == {
        "format", "version", "env", "params", "seed", "actions", "agents", "result"
    }  # fmt: skip
    assert data["params"] == {"num_players": 3, "memory": False, "reward": "win_loss"}


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"env": "chess_v0"}, "unknown env 'chess_v0'; registered envs"),
        ({"params": {"num_players": 9}}, "bad isis_osiris params"),
        ({"params": [3]}, "'params' is an object"),
        ({"seed": "x"}, r"seed must be an integer from 0 to 2\*\*128 - 1"),
        ({"agents": ["random"]}, "one agent per seat \\(3\\), got 1"),
        ({"version": 2}, "version 1"),
        ({"actions": "1 2 3"}, "'actions' is a list"),
        ({"agents": ["random", "\x1b[2J", "random"]}, "printable one-line strings"),
        ({"agents": ["random", "", "random"]}, "printable one-line strings"),
        ({"agents": ["random", "x" * 1001, "random"]}, "of 1 to 1000 characters"),
        ({"extra": 1}, "unknown \\['extra'\\]"),
        (
            {"result": {"returns": [1, 1, 1]}},
            r"'result' is an object with the keys \['returns', 'info'\]",
        ),
        ({"version": True}, "version True"),
        ({"version": 1.0}, "version 1.0"),
        ({"seed": 2**128}, r"'seed': seed must be an integer from 0 to 2\*\*128 - 1"),
        ({"seed": True}, "got True"),
        ({"env": ["iris_v0"]}, r"unknown env \['iris_v0'\]"),
    ],
)
def test_a_bad_record_is_rejected_with_what_is_wrong(
    tmp_path: Path, change: dict[str, Any], match: str
) -> None:
    _, data = _record(tmp_path)
    data.update(change)
    with pytest.raises(ReplayError, match=match):
        GameRecord.from_json(json.dumps(data))


def test_a_record_with_an_illegal_action_names_its_step(tmp_path: Path) -> None:
    _, data = _record(tmp_path)
    data["actions"][5] = data["actions"][4]  # the same square twice
    with pytest.raises(ReplayError, match="step 5: illegal action"):
        GameRecord.from_json(json.dumps(data))
    with pytest.raises(ReplayError, match="a game record is JSON"):
        GameRecord.from_json("{not json")
    del data["result"]
    with pytest.raises(ReplayError, match="missing \\['result'\\]"):
        GameRecord.from_json(json.dumps(data))


def test_a_pickle_made_before_the_log_loads_unseeded() -> None:
    game = new_game("iris_v0", {}, seed=1)
    data = game.__getstate__()
    del data["log"]
    old = object.__new__(type(game))
    old.__setstate__(data)
    assert old == game and old.seed is None and old.actions == []


# ---- hostile inputs of issue 24: every one a ReplayError that says what is wrong ---------------
@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((5, {}, 1, []), "game must be a game or env name, or a GameState subclass, got 5"),
        (("iris", {}, 1, None), "actions must be a list of integer action ids, got None"),
        (("iris", {}, 1, 5), "actions must be a list"),
        (("iris", {}, 1, "12"), "actions must be a list"),
        (("iris", {}, 2**128, []), r"seed must be an integer from 0 to 2\*\*128 - 1"),
        (("iris", {}, True, []), "got True"),
        (("iris", {}, 10**5000, []), "<int: 16610 bits>"),
        (("iris", {}, 1, [10**5000]), "step 0: action ids run from 0 to 81, got <int: 16610 bits>"),
        (("iris", {}, 1, [-1]), "step 0: action ids run from 0 to 81, got -1"),
        (("iris", None, 1, []), "params must be a mapping"),
        (("iris", {1: 2}, 1, []), "params are named by strings"),
        (("iris", {"board_size": "x" * 10**6}, 1, []), r"\.\.\. \(1000002 characters\)"),
        (("iris", {}, 1, [_FIRST] * 10**5), "100000 actions, but a iris game"),
    ],
)
def test_replay_refuses_hostile_arguments(args: tuple, match: str) -> None:
    with pytest.raises(ReplayError, match=match) as info:
        walk = positions(*args)  # a bad argument is refused here, an action once reached
        list(walk)
    assert match.startswith("step") or "walk" not in locals()
    assert len(str(info.value)) < 1000


def test_a_deeply_nested_record_is_refused_without_recursion_error(tmp_path: Path) -> None:
    for text in ("[" * 100000 + "]" * 100000, '{"a":' * 50000 + "1" + "}" * 50000):
        with pytest.raises(ReplayError, match="nests at most 32 deep"):
            GameRecord.from_json(text)
    _, data = _record(tmp_path)
    data["result"]["info"]["deep"] = json.loads("[" * 40 + "]" * 40)
    with pytest.raises(ReplayError, match="nests at most 32 deep"):
        GameRecord.from_json(json.dumps(data))
    with pytest.raises(ReplayError, match="params nest at most 32 deep"):
        replay("iris", {"board_size": json.loads("[" * 40 + "]" * 40)}, 1, [])


def test_a_record_file_that_is_not_utf8_or_too_large_is_refused(tmp_path: Path) -> None:
    path, _ = _record(tmp_path)
    raw = path.read_bytes()
    path.write_bytes(raw[:20] + b"\xff\xfe" + raw[20:])
    with pytest.raises(ReplayError, match="a game record is UTF-8 text: byte 20 is not"):
        GameRecord.load(path)
    path.write_bytes(b" " * (9 * 2**20))
    with pytest.raises(ReplayError, match="at most 8388608 bytes"):
        GameRecord.load(path)
    with pytest.raises(ReplayError, match="a game record is JSON text, got NoneType"):
        GameRecord.from_json(None)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        GameRecord.load(tmp_path / "missing.json")


def test_a_record_whose_result_disagrees_with_its_actions_is_refused(tmp_path: Path) -> None:
    _, data = _record(tmp_path)
    cut = dict(data, actions=data["actions"][:5])  # cut short: returns and info are stale
    with pytest.raises(ReplayError, match=r"'result.returns' \[.*\] disagrees"):
        GameRecord.from_json(json.dumps(cut))
    cut["result"] = dict(data["result"], returns=[0.0, 0.0, 0.0])  # the info still has winners
    with pytest.raises(
        ReplayError, match=r"'result.info' .* disagrees with the replayed game's {}"
    ):
        GameRecord.from_json(json.dumps(cut))
    cut["result"] = {"returns": [0.0, 0.0, 0.0], "info": {}}  # an unfinished game, honestly told
    assert len(GameRecord.from_json(json.dumps(cut)).actions) == 5
    winners = data["result"]["info"]["winners"]
    data["result"]["info"]["winners"] = [True] * len(winners)  # true is not the seat 1
    with pytest.raises(ReplayError, match=r"'result\.info'"):
        GameRecord.from_json(json.dumps(data))
