"""Game records are untrusted: mutated, truncated, deep, mistyped or undecodable records.

Each generated record (text, bytes or file) is either refused with ``ReplayError`` (a short
message) or loaded; a loaded record's result is the replayed game's, it has one agent per seat
and it shows as ``tabletop-envs replay`` shows it. ``replay()`` and ``positions()`` get the same
treatment for their arguments. The slow run tries a few thousand cases per way in
(``python -m pytest -q -m slow tests/trust/test_trust_records.py``).
"""

from __future__ import annotations

import copy
import io
import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop_envs.replay import GameRecord, ReplayError, positions, result_of
from tabletop_envs.watch import ReplayConfig, show
from tests.conformance.cases import json_paths, json_set, new_game, random_action
from tests.trust.hostile_inputs import (
    CI_EXAMPLES,
    NUMBERS,
    SLOW_EXAMPLES,
    TRICKY_TEXT,
    check_message,
    run_settings,
    time_limit,
)

#: Real games whose records are mutated: (env, parameters, seed, moves played; None: to the end).
GAMES = [
    ("iris_v0", {}, 1, None),
    ("iris_v0", {"board_size": 3}, 2, None),
    ("irk_v0", {"num_players": 3}, 3, None),
    ("isis_osiris_v0", {"num_players": 4}, 4, None),
    ("irk_v0", {}, 5, 7),
]
FIELDS = ["format", "version", "env", "params", "seed", "actions", "agents", "result"]


@cache
def record_data(index: int) -> dict[str, Any]:
    """Return the JSON data of the record of game ``index`` of :data:`GAMES`."""
    env, params, seed, moves = GAMES[index]
    game = new_game(env, params, seed)
    rng = np.random.default_rng(seed)
    while not game.is_terminal and (moves is None or len(game.actions) < moves):
        game.apply(random_action(game, rng))
    agents = ["random"] * game.num_players
    data: dict[str, Any] = json.loads(GameRecord.of(env, game, agents).to_json())
    return data


def load(text: str | bytes) -> GameRecord | None:
    """Return the record of ``text``, or None if it was refused with ReplayError."""
    try:
        with time_limit():
            record = GameRecord.from_json(text)
    except ReplayError as err:
        check_message(err)
        return None
    check_loaded(record)
    return record


def check_loaded(record: GameRecord) -> None:
    """A loaded record is consistent and shows without an error."""
    states = record.positions()
    assert len(record.agents) == states[0].num_players
    assert json.dumps(record.result, sort_keys=True) == json.dumps(
        result_of(states[-1]), sort_keys=True
    ) or _same_numbers(record.result, result_of(states[-1]))
    out = io.StringIO()
    show(record, ReplayConfig(record="x.json"), stdout=out)
    assert "\nresult: " in out.getvalue()


def _same_numbers(a: Any, b: Any) -> bool:
    """Return whether two JSON values are equal with 1 == 1.0 (the record's own rule)."""
    return json.dumps(a, sort_keys=True).replace(".0", "") == json.dumps(b, sort_keys=True).replace(
        ".0", ""
    )


# ---- generated records -------------------------------------------------------------------------
LEAVES = st.one_of(
    NUMBERS,
    st.none(),
    st.text(max_size=6),
    st.lists(st.integers(-2, 100), max_size=5),
    st.dictionaries(st.text(max_size=4), st.integers(-2, 5), max_size=3),
    st.integers(20, 3000).map(lambda n: json.loads("[" * n + "]" * n) if n < 500 else [[]]),
    st.sampled_from(["iris_v0", "tabletop_envs.game_record", {"returns": [], "info": {}}]),
)


def _list_of(data: dict[str, Any], key: str, length: int) -> bool:
    """Return whether ``data[key]`` is a list of at least ``length`` items."""
    return isinstance(data.get(key), list) and len(data[key]) >= length


@st.composite
def mutated_records(draw: st.DrawFn) -> str:
    """A record of a real game with up to three changes, as JSON text."""
    data = copy.deepcopy(record_data(draw(st.integers(0, len(GAMES) - 1))))
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["set", "set", "delete", "add", "actions", "swap", "agent"]))
        paths = json_paths(data)
        if kind == "set":
            data = json_set(data, draw(st.sampled_from(paths)), copy.deepcopy(draw(LEAVES)))
        elif kind == "delete" and isinstance(data, dict) and data:
            del data[draw(st.sampled_from(sorted(data)))]
        elif kind == "add" and isinstance(data, dict):
            data[draw(st.text(max_size=8))] = copy.deepcopy(draw(LEAVES))
        elif kind == "actions" and isinstance(data, dict) and _list_of(data, "actions", 0):
            actions = data["actions"]
            cut = draw(st.integers(0, len(actions)))
            data["actions"] = draw(
                st.sampled_from(
                    [
                        actions[:cut],
                        actions[:cut] + actions[cut + 1 :],
                        [*actions[:cut], draw(st.integers(-5, 5000)), *actions[cut:]],
                        actions + actions[-1:],
                    ]
                )
            )
        elif kind == "agent" and isinstance(data, dict) and _list_of(data, "agents", 1):
            data["agents"][0] = draw(st.one_of(st.text(max_size=8), TRICKY_TEXT))
        elif kind == "swap" and isinstance(data, dict) and _list_of(data, "actions", 2):
            i = draw(st.integers(0, len(data["actions"]) - 2))
            acts = data["actions"]
            acts[i], acts[i + 1] = acts[i + 1], acts[i]
    return json.dumps(data, indent=draw(st.sampled_from([None, 1])))


@st.composite
def damaged_texts(draw: st.DrawFn) -> str | bytes:
    """Valid record text cut short, with bytes changed, or wrapped in deep nesting."""
    text = json.dumps(record_data(draw(st.integers(0, len(GAMES) - 1))))
    kind = draw(st.sampled_from(["cut", "bytes", "deep", "tricky", "number"]))
    if kind == "cut":
        return text[: draw(st.integers(0, len(text)))]
    if kind == "bytes":
        raw = bytearray(text.encode())
        for _ in range(draw(st.integers(1, 4))):
            raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
        return bytes(raw)
    if kind == "deep":
        n = draw(st.sampled_from([33, 100, 999, 1000, 5000, 100_000]))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        inner = draw(st.sampled_from(["", "1", text]))
        return opener * n + inner + closer * draw(st.sampled_from([0, n]))
    if kind == "number":
        field = draw(st.sampled_from(["seed", "version", "actions"]))
        value = draw(st.sampled_from(["1e400", "-0", "1.0", "9" * 5000, "NaN", "Infinity", "true"]))
        data = json.loads(text)
        data[field] = "@@"
        return json.dumps(data).replace('"@@"', value if field != "actions" else f"[{value}]")
    return draw(TRICKY_TEXT)


def _run_texts(strategy: st.SearchStrategy[Any], examples: int) -> None:
    counts = {"refused": 0, "loaded": 0}

    @run_settings(examples)
    @given(strategy)
    def check(text: str | bytes) -> None:
        counts["refused" if load(text) is None else "loaded"] += 1

    check()
    print(counts)


def test_valid_records_of_real_games_load() -> None:
    for index in range(len(GAMES)):
        record = load(json.dumps(record_data(index)))
        assert record is not None, GAMES[index]


def test_mutated_records_are_refused_or_consistent() -> None:
    _run_texts(mutated_records(), CI_EXAMPLES)


def test_damaged_record_texts_are_refused_or_consistent() -> None:
    _run_texts(damaged_texts(), CI_EXAMPLES)


@pytest.mark.slow
def test_mutated_records_slow() -> None:
    _run_texts(mutated_records(), SLOW_EXAMPLES)


@pytest.mark.slow
def test_damaged_record_texts_slow() -> None:
    _run_texts(damaged_texts(), SLOW_EXAMPLES)


# ---- record files --------------------------------------------------------------------------
def _run_files(folder: Path, examples: int) -> None:
    @run_settings(examples)
    @given(
        st.one_of(damaged_texts(), mutated_records()),
        st.sampled_from(["utf-8", "utf-16", "latin-1"]),
    )
    def check(text: str | bytes, encoding: str) -> None:
        path = folder / "record.json"
        path.write_bytes(text if isinstance(text, bytes) else text.encode(encoding, "replace"))
        try:
            with time_limit():
                record = GameRecord.load(path)
        except ReplayError as err:
            check_message(err)
            return
        check_loaded(record)

    check()


def test_record_files_are_refused_or_consistent(tmp_path: Path) -> None:
    _run_files(tmp_path, CI_EXAMPLES)


@pytest.mark.slow
def test_record_files_slow(tmp_path: Path) -> None:
    _run_files(tmp_path, SLOW_EXAMPLES)


# ---- replay() and positions() ------------------------------------------------------------------
GAME_ARGS = st.one_of(
    st.sampled_from(["iris", "iris_v0", "irk", "isis_osiris_v0", "chess", "", "IRIS"]),
    NUMBERS,
    st.none(),
    st.sampled_from([int, object, GameRecord, type(new_game("iris_v0", {}, 1))]),
)
PARAM_ARGS = st.one_of(
    st.just({}),
    st.dictionaries(
        st.one_of(st.sampled_from(["board_size", "num_players", "auto_forced", "memory"]), NUMBERS),
        st.one_of(NUMBERS, st.text(max_size=4), st.none(), st.lists(st.integers(), max_size=3)),
        max_size=3,
    ),
    NUMBERS,
    st.none(),
    st.lists(st.integers(), max_size=3),
)
ACTION_ARGS = st.one_of(
    st.lists(st.one_of(st.integers(-3, 200), NUMBERS), max_size=20),
    st.tuples(st.integers(0, 100), st.integers(0, 100)),
    NUMBERS,
    st.none(),
    st.text(max_size=5),
    st.just(range(3)),
    st.just(np.arange(3)),
)


def _run_calls(examples: int) -> None:
    @run_settings(examples)
    @given(GAME_ARGS, PARAM_ARGS, st.one_of(NUMBERS, st.none(), st.text(max_size=3)), ACTION_ARGS)
    def check(game: Any, params: Any, seed: Any, actions: Any) -> None:
        try:
            with time_limit():
                states = list(positions(game, params, seed, actions))
        except ReplayError as err:
            check_message(err)
            return
        assert len(states) == len(actions) + 1 and states[-1].actions == list(actions)

    check()


def test_replay_arguments_are_refused_or_replayed() -> None:
    _run_calls(CI_EXAMPLES * 3)


@pytest.mark.slow
def test_replay_arguments_slow() -> None:
    _run_calls(SLOW_EXAMPLES)
