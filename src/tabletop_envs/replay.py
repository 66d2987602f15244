"""Rebuild positions from action logs, and the game record file ``tabletop-envs watch`` writes.

Every core state keeps the seed it was dealt from (``state.seed``) and the actions applied
since (``state.actions``); :func:`replay` deals again from the seed and applies the actions, so
it rebuilds the position exactly. A :class:`GameRecord` is that log plus the env, the agents
and the result, saved as JSON::

    {"format": "tabletop_envs.game_record", "version": 1, "env": "iris_v0",
     "params": {"board_size": 5, "auto_forced": false}, "seed": 123, "actions": [12, 40, ...],
     "agents": ["greedy", "mcts"], "result": {"returns": [1.0, -1.0], "info": {...}}}

Record files are untrusted input: :meth:`GameRecord.from_json` bounds the text's size and
nesting, checks every field, replays the actions and compares the stored result with the
replayed game's, raising :class:`ReplayError` that says what was wrong (and at which step).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabletop_envs.core.config import as_tuples, cut, quote, too_deep
from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, registered_envs

RECORD_FORMAT = "tabletop_envs.game_record"
RECORD_VERSION = 1
_FIELDS = ("format", "version", "env", "params", "seed", "actions", "agents", "result")
_RESULT_FIELDS = ("returns", "info")

#: Largest record file read, in bytes (a record of the longest built-in game is about 20 kB).
MAX_RECORD_BYTES = 8 * 2**20
#: Deepest nesting of lists and objects in a record (records written today nest 4 deep).
MAX_RECORD_DEPTH = 32
#: Longest agent spec in a record.
MAX_SPEC_LENGTH = 1000
#: Seeds are integers from 0 to ``2**128 - 1`` (a PCG64 seed).
SEED_LIMIT = 2**128


class ReplayError(ValueError):
    """An action log or game record that does not rebuild a game (says what and where)."""


def game_class(game_name: str) -> type[GameState]:
    """Return the core state class of ``game_name`` (``"iris"``) or of a registered env name."""
    if not isinstance(game_name, str):
        raise ReplayError(f"a game is named by a string, got {quote(game_name)}")
    names = registered_envs()
    if game_name in names:
        return env_spec(game_name).load_game()
    classes = [env_spec(name).load_game() for name in names]
    for cls in classes:
        if cls.game_name == game_name:
            return cls
    known = sorted({cls.game_name for cls in classes})
    raise ReplayError(f"unknown game {quote(game_name)}; games: {known}; envs: {names}")


def positions(
    game: str | type[GameState], params: Any, seed: int, actions: Sequence[int]
) -> Iterator[GameState]:
    """Yield the position dealt from ``seed``, then a fresh copy after each action.

    ``game`` is a game name, a registered env name or a :class:`GameState` subclass;
    ``params`` the game's parameter dataclass or a mapping of its keyword parameters; ``seed``
    an integer from 0 to 2**128 - 1; ``actions`` a list (or tuple) of integer action ids.
    Raises :class:`ReplayError` for any of them that is wrong (at the call), or an illegal action
    (when the iteration reaches it, naming the step, counted from 0).
    """
    cls = _game_class(game)
    params = _params(cls, params)
    if type(seed) is not int or not 0 <= seed < SEED_LIMIT:
        raise ReplayError(f"seed must be an integer from 0 to 2**128 - 1, got {quote(seed)}")
    if not isinstance(actions, Sequence) or isinstance(actions, (str, bytes, bytearray)):
        raise ReplayError(f"actions must be a list of integer action ids, got {quote(actions)}")
    state = cls(params, seed)
    spec = state.spec
    if len(actions) > spec.max_game_length:
        raise ReplayError(
            f"{len(actions)} actions, but a {cls.game_name} game with these parameters lasts "
            f"at most {spec.max_game_length}"
        )
    return _walk(state, actions)


def _walk(state: GameState, actions: Sequence[int]) -> Iterator[GameState]:
    """Yield a copy of ``state``, then one after each action applied to it."""
    spec = state.spec
    yield state.clone()
    for step, action in enumerate(actions):
        if type(action) is not int:
            raise ReplayError(f"step {step}: an action is an integer id, got {quote(action)}")
        if not 0 <= action < spec.num_actions:
            raise ReplayError(
                f"step {step}: action ids run from 0 to {spec.num_actions - 1}, got {quote(action)}"
            )
        try:
            state.apply(action)
        except IllegalActionError as err:
            raise ReplayError(f"step {step}: {err}") from None
        yield state.clone()


def _game_class(game: Any) -> type[GameState]:
    """Return the state class ``game`` names (a name or a GameState subclass itself)."""
    if isinstance(game, type) and issubclass(game, GameState):
        return game
    if isinstance(game, str):
        return game_class(game)
    raise ReplayError(
        f"game must be a game or env name, or a GameState subclass, got {quote(game)}"
    )


def _params(cls: type[GameState], params: Any) -> Any:
    """Return ``params`` as ``cls``'s parameter dataclass (ReplayError naming what is wrong)."""
    if isinstance(params, cls.params_class):
        return params
    if not isinstance(params, Mapping):
        raise ReplayError(f"params must be a mapping of keyword parameters, got {quote(params)}")
    names = [f.name for f in dataclasses.fields(cls.params_class)]
    if too_deep(params, MAX_RECORD_DEPTH):
        raise ReplayError(f"params nest at most {MAX_RECORD_DEPTH} deep")
    if not all(isinstance(key, str) for key in params):
        raise ReplayError(f"params are named by strings ({names}), got {quote(params)}")
    try:
        return cls.params_class(**as_tuples(dict(params)))
    except (TypeError, ValueError, ArithmeticError) as err:
        raise ReplayError(
            f"bad {cls.game_name} params {quote(params)}: {cut(str(err), 240)}; keywords: {names}"
        ) from None


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
        return cls(
            env=env,
            params=dataclasses.asdict(game.params),
            seed=game.seed,
            actions=tuple(game.actions),
            agents=tuple(agents),
            result=result_of(game),
        )

    def positions(self) -> list[GameState]:
        """Return every position of the game, from the deal to the last action."""
        _check_env(self.env)
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
    def from_json(cls, text: str | bytes) -> GameRecord:
        """Parse and check a record; ReplayError names the field or step that is wrong."""
        data = _parse(text)
        record = cls(
            env=data["env"],
            params=data["params"],
            seed=data["seed"],
            actions=tuple(data["actions"]),
            agents=tuple(data["agents"]),
            result=data["result"],
        )
        states = record.positions()  # checks params, seed and every action
        seats = states[0].num_players
        if len(record.agents) != seats:
            raise ReplayError(
                f"'agents' names one agent per seat ({seats}), got {len(record.agents)}"
            )
        _check_result(record.result, result_of(states[-1]))
        return record

    def save(self, path: str | Path) -> None:
        """Write the record to ``path``."""
        Path(path).write_text(self.to_json())

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """Read and check the record at ``path`` (OSError if it cannot be read, as ``open``)."""
        with open(path, "rb") as file:
            raw = file.read(MAX_RECORD_BYTES + 1)
        if len(raw) > MAX_RECORD_BYTES:
            raise ReplayError(f"a game record is at most {MAX_RECORD_BYTES} bytes; this is more")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ReplayError(f"a game record is UTF-8 text: byte {err.start} is not") from None
        return cls.from_json(text)


def result_of(game: GameState) -> dict[str, Any]:
    """Return the ``result`` entry of ``game``'s record: its returns and its result info."""
    result = {"returns": [float(r) for r in game.returns()], "info": game.result_info()}
    plain: dict[str, Any] = json.loads(json.dumps(result, default=_plain))
    return plain


# ---- reading a record ----------------------------------------------------------------------
def _parse(text: Any) -> dict[str, Any]:
    """Return the record's fields from JSON ``text``, every one of the right type."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise ReplayError(f"a game record is JSON text, got {type(text).__name__}")
    if len(text) > MAX_RECORD_BYTES:
        raise ReplayError(
            f"a game record is at most {MAX_RECORD_BYTES} characters, got {len(text)}"
        )
    try:
        data = json.loads(text)
    except RecursionError:
        raise ReplayError(f"a game record nests at most {MAX_RECORD_DEPTH} deep") from None
    except ValueError as err:  # not JSON, not UTF-8, a number too long to read
        raise ReplayError(f"a game record is JSON: {cut(str(err), 240)}") from None
    if too_deep(data, MAX_RECORD_DEPTH):
        raise ReplayError(f"a game record nests at most {MAX_RECORD_DEPTH} deep")
    if not isinstance(data, dict):
        raise ReplayError(f"a game record is a JSON object with keys {list(_FIELDS)}")
    missing = [k for k in _FIELDS if k not in data]
    extra = sorted(set(data) - set(_FIELDS))
    if missing or extra:
        raise ReplayError(
            f"a game record has exactly the keys {list(_FIELDS)}; missing {missing}, "
            f"unknown {quote(extra)}"
        )
    _check_fields(data)
    return data


def _check_fields(data: dict[str, Any]) -> None:
    """Check the type of every field of a parsed record (the values are checked by replaying)."""
    form, version = data["format"], data["version"]
    if form != RECORD_FORMAT or type(version) is not int or version != RECORD_VERSION:
        raise ReplayError(
            f"not a {RECORD_FORMAT} version {RECORD_VERSION} file: format {quote(form)}, "
            f"version {quote(version)}"
        )
    _check_env(data["env"])
    if not isinstance(data["params"], dict):
        raise ReplayError(f"'params' is an object, got {quote(data['params'])}")
    if type(data["seed"]) is not int or not 0 <= data["seed"] < SEED_LIMIT:
        raise ReplayError(
            f"'seed': seed must be an integer from 0 to 2**128 - 1, got {quote(data['seed'])}"
        )
    actions, agents = data["actions"], data["agents"]
    if not isinstance(actions, list):
        raise ReplayError(f"'actions' is a list of action ids, got {type(actions).__name__}")
    if not isinstance(agents, list) or not all(_is_spec(a) for a in agents):
        raise ReplayError(
            f"'agents' is a list of agent specs (printable one-line strings of 1 to "
            f"{MAX_SPEC_LENGTH} characters), got {quote(agents)}"
        )
    result = data["result"]
    if not isinstance(result, dict) or sorted(result) != sorted(_RESULT_FIELDS):
        raise ReplayError(
            f"'result' is an object with the keys {list(_RESULT_FIELDS)}, got {quote(result)}"
        )


def _is_spec(value: Any) -> bool:
    """Return whether ``value`` can be an agent spec of a record (shown on a terminal as is)."""
    return isinstance(value, str) and 0 < len(value) <= MAX_SPEC_LENGTH and value.isprintable()


def _check_env(name: Any) -> None:
    """Raise ReplayError unless ``name`` is a registered env (listing them)."""
    if not isinstance(name, str) or name not in registered_envs():
        raise ReplayError(f"unknown env {quote(name)}; registered envs: {registered_envs()}")


def _check_result(stored: dict[str, Any], replayed: dict[str, Any]) -> None:
    """Raise ReplayError naming the first entry of ``stored`` that the replayed game disagrees
    with."""
    for key in _RESULT_FIELDS:
        if not _same(stored[key], replayed[key]):
            raise ReplayError(
                f"'result.{key}' {quote(stored[key])} disagrees with the replayed game's "
                f"{quote(replayed[key])}"
            )


def _same(a: Any, b: Any) -> bool:
    """Return whether two JSON values are equal (``1 == 1.0``, but ``true`` is no number)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _plain(value: Any) -> Any:
    """JSON fallback for numpy scalars and arrays in result infos."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


__all__ = ["GameRecord", "ReplayError", "game_class", "positions", "replay", "result_of"]
