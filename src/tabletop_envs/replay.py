"""Rebuild positions from action logs, and the game record file ``tabletop-envs watch`` writes.

Every core state keeps the seed it was dealt from (``state.seed``) and the actions applied
since (``state.actions``); :func:`replay` deals again from the seed and applies the actions, so
it rebuilds the position exactly. A :class:`GameRecord` is that log plus the env, the agents
and the result, saved as JSON::

    {"format": "tabletop_envs.game_record", "version": 1, "env": "iris_v0",
     "params": {"board_size": 5, "auto_forced": false}, "seed": 123, "actions": [12, 40, ...],
     "agents": ["greedy", "mcts"], "result": {"returns": [1.0, -1.0], "info": {...}}}

Record files are untrusted input: :meth:`GameRecord.from_json` checks every field and replays
the actions, raising :class:`ReplayError` that says what was wrong (and at which step).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, registered_envs

RECORD_FORMAT = "tabletop_envs.game_record"
RECORD_VERSION = 1
_FIELDS = ("format", "version", "env", "params", "seed", "actions", "agents", "result")


class ReplayError(ValueError):
    """An action log or game record that does not rebuild a game (says what and where)."""


def game_class(game_name: str) -> type[GameState]:
    """Return the core state class of ``game_name`` (``"iris"``) or of a registered env name."""
    names = registered_envs()
    if game_name in names:
        return env_spec(game_name).load_game()
    classes = [env_spec(name).load_game() for name in names]
    for cls in classes:
        if cls.game_name == game_name:
            return cls
    known = sorted({cls.game_name for cls in classes})
    raise ReplayError(f"unknown game {game_name!r}; games: {known}; envs: {names}")


def positions(
    game: str | type[GameState], params: Any, seed: int, actions: Sequence[int]
) -> Iterator[GameState]:
    """Yield the position dealt from ``seed``, then a fresh copy after each action.

    ``params`` is the game's parameter dataclass or a mapping of its keyword parameters.
    Raises :class:`ReplayError` for bad parameters or seed, or an illegal action (naming the
    step, counted from 0).
    """
    cls = game_class(game) if isinstance(game, str) else game
    if not isinstance(params, cls.params_class):
        if not isinstance(params, Mapping):
            raise ReplayError(f"params must be a mapping of keyword parameters, got {params!r}")
        try:
            params = cls.params_class(**_tuples(dict(params)))
        except (TypeError, ValueError) as err:
            names = [f.name for f in dataclasses.fields(cls.params_class)]
            raise ReplayError(
                f"bad {cls.game_name} params {params!r}: {err}; keywords: {names}"
            ) from None
    if type(seed) is not int or seed < 0:
        raise ReplayError(f"seed must be a non-negative integer, got {seed!r}")
    state = cls(params, seed)
    yield state.clone()
    for step, action in enumerate(actions):
        if type(action) is not int:
            raise ReplayError(f"step {step}: an action is an integer id, got {action!r}")
        try:
            state.apply(action)
        except IllegalActionError as err:
            raise ReplayError(f"step {step}: {err}") from None
        yield state.clone()


def replay(
    game_name: str | type[GameState], params: Any, seed: int, actions: Sequence[int]
) -> GameState:
    """Return the position reached by dealing from ``seed`` and applying ``actions``."""
    *_, last = positions(game_name, params, seed, actions)
    return last


@dataclass(frozen=True)
class GameRecord:
    """One played game: env, parameters, seed, actions, agents (one per seat) and result."""

    env: str
    params: dict[str, Any]
    seed: int
    actions: tuple[int, ...]
    agents: tuple[str, ...]
    result: dict[str, Any]

    @classmethod
    def of(cls, env: str, game: GameState, agents: Sequence[str]) -> GameRecord:
        """Return the record of ``game`` (a core state of ``env``) played by ``agents``."""
        if game.seed is None:
            raise ReplayError("this state was not dealt from a seed; its log cannot rebuild it")
        result = {"returns": [float(r) for r in game.returns()], "info": game.result_info()}
        return cls(
            env=env,
            params=dataclasses.asdict(game.params),
            seed=game.seed,
            actions=tuple(game.actions),
            agents=tuple(agents),
            result=json.loads(json.dumps(result, default=_plain)),
        )

    def positions(self) -> list[GameState]:
        """Return every position of the game, from the deal to the last action."""
        return list(positions(env_spec(self.env).load_game(), self.params, self.seed, self.actions))

    def to_json(self) -> str:
        """Return the record as JSON text (the file format)."""
        data = {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "env": self.env,
            "params": self.params,
            "seed": self.seed,
            "actions": list(self.actions),
            "agents": list(self.agents),
            "result": self.result,
        }
        return json.dumps(data, indent=1, default=_plain) + "\n"

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Parse and check a record; ReplayError names the field or step that is wrong."""
        try:
            data = json.loads(text)
        except ValueError as err:
            raise ReplayError(f"a game record is JSON: {err}") from None
        if not isinstance(data, dict):
            raise ReplayError(f"a game record is a JSON object with keys {list(_FIELDS)}")
        missing = [k for k in _FIELDS if k not in data]
        extra = sorted(set(data) - set(_FIELDS))
        if missing or extra:
            raise ReplayError(
                f"a game record has exactly the keys {list(_FIELDS)}; missing {missing}, "
                f"unknown {extra}"
            )
        if data["format"] != RECORD_FORMAT or data["version"] != RECORD_VERSION:
            raise ReplayError(
                f"not a {RECORD_FORMAT} version {RECORD_VERSION} file: format "
                f"{data['format']!r}, version {data['version']!r}"
            )
        name = data["env"]
        if name not in registered_envs():
            raise ReplayError(f"unknown env {name!r}; registered envs: {registered_envs()}")
        if not isinstance(data["params"], dict):
            raise ReplayError(f"'params' is an object, got {data['params']!r}")
        actions, agents = data["actions"], data["agents"]
        if not isinstance(actions, list):
            raise ReplayError(f"'actions' is a list of action ids, got {type(actions).__name__}")
        if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
            raise ReplayError(f"'agents' is a list of agent specs (strings), got {agents!r}")
        if not isinstance(data["result"], dict):
            raise ReplayError(f"'result' is an object, got {data['result']!r}")
        record = cls(
            env=name,
            params=data["params"],
            seed=data["seed"],
            actions=tuple(actions),
            agents=tuple(agents),
            result=data["result"],
        )
        states = record.positions()  # checks params, seed and every action
        seats = states[0].num_players
        if len(agents) != seats:
            raise ReplayError(f"'agents' names one agent per seat ({seats}), got {len(agents)}")
        returns = [float(r) for r in states[-1].returns()]
        if data["result"].get("returns") != returns:
            raise ReplayError(
                f"'result.returns' {data['result'].get('returns')!r} disagrees with the "
                f"replayed game's returns {returns}"
            )
        return record

    def save(self, path: str | Path) -> None:
        """Write the record to ``path``."""
        Path(path).write_text(self.to_json())

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """Read and check the record at ``path``."""
        return cls.from_json(Path(path).read_text())


def _tuples(value: Any) -> Any:
    """Turn JSON lists back into tuples (parameter dataclasses hold tuples)."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return value


def _plain(value: Any) -> Any:
    """JSON fallback for numpy scalars and arrays in result infos."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


__all__ = ["GameRecord", "ReplayError", "game_class", "positions", "replay"]
