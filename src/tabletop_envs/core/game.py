"""The contract every game of the library implements.

A game is a :class:`GameState` subclass plus a frozen parameter dataclass. The state is pure
rules: it imports no gymnasium or pettingzoo, owns its one seeded ``numpy.random.Generator``
(every shuffle, deal and draw comes from it; built on first use, so that copies are cheap), and
changes only through :meth:`GameState.apply`.
The PettingZoo adapter in :mod:`tabletop_envs.envs.aec` works with any subclass.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from abc import ABC, abstractmethod
from collections.abc import Hashable
from dataclasses import dataclass
from dataclasses import fields as _fields
from typing import Any, ClassVar, TypeVar

import numpy as np

from tabletop_envs.core.config import MAX_DEPTH, as_tuples, cut, too_deep
from tabletop_envs.core.errors import IllegalActionError, InvalidParameterError, InvalidStateError
from tabletop_envs.core.params import check_int_range
from tabletop_envs.core.rng import (
    RngState,
    check_pcg64,
    make_rng,
    rng_at,
    rng_state,
    rng_state_from_json,
    rng_state_to_json,
    seed_state,
)
from tabletop_envs.core.slots import SLOTS, Slots
from tabletop_envs.core.state_check import check_int, check_int_list, check_keys

S = TypeVar("S", bound="GameState")

#: Version of the JSON layout written by :meth:`GameState.to_json`.
JSON_FORMAT = 1

#: Top-level keys of a JSON state.
_JSON_KEYS = ("format", "game", "params", "rng", "state")

#: ``current_player`` once the game is over.
TERMINAL = -1


def as_action_id(action: object) -> int | None:
    """Return ``action`` as an int if it is an integer action id, else None.

    An integer id is a Python or NumPy integer, or a 0-d NumPy integer array (what
    ``Discrete.contains`` accepts and vectorised clients pass). Bools, floats, strings and
    arrays of any other shape or dtype are not ids, even when they hold a whole number. The
    one type check of every view (AEC, Parallel, Gymnasium).
    """
    if isinstance(action, (int, np.integer)):
        return None if isinstance(action, bool) else int(action)
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    return None


@dataclass(frozen=True)
class GameSpec:
    """Static facts of a game under one parameter set (declared once, checked by tests)."""

    num_players: int
    num_actions: int
    observation_shape: tuple[int, ...]
    observation_channels: tuple[str, ...]  # names of the last axis of the observation
    max_game_length: int  # upper bound on apply() calls in one game
    reward_range: tuple[float, float]
    observation_dtype: type = np.int8
    observation_low: float = 0
    observation_high: float = 1


class GameState(ABC):
    """A game position: whose move it is, what is legal, and how actions change it.

    Subclasses set ``game_name`` and ``params_class``, implement the abstract methods, and
    keep all mutable state in the attributes that ``_state_dict``/``_load_state_dict`` cover.
    The library's games declare their attributes in ``__slots__``: attribute access is then
    fast, and there is no ``__dict__`` to slow it down (measured in CPython 3.11: once an
    instance's ``__dict__`` has been read, or filled by ``__dict__.update`` as a copy, playing
    a random Iris game on it ran about 60% more interpreter instructions). A subclass without
    ``__slots__`` works too, with a ``__dict__``.
    """

    __slots__ = ("__weakref__", "_rng", "_rng_at", "actions", "params", "seed")

    game_name: ClassVar[str]
    params_class: ClassVar[type]
    #: Per action of a cell, the ``(row, col)`` offsets of the cells it covers (a policy head
    #: that scores actions by cells reads it), or None for a game without such actions.
    cell_action_footprint: ClassVar[Any] = None
    #: The :meth:`observation_section` holding features per action id, or None.
    action_values_section: ClassVar[str | None] = None
    #: Parameters that change only what :meth:`observation` holds, never the rules: a position
    #: can be read under other values of them (:meth:`with_observation`), so an agent made for
    #: other values plays the same game.
    observation_params: ClassVar[frozenset[str]] = frozenset()

    params: Any
    # The chance stream: the Generator once built (``rng``), else its position (``_rng_at``: a
    # seed or an immutable RngState, shared freely between copies). Exactly one is not None.
    _rng: np.random.Generator | None
    _rng_at: int | RngState | None
    #: The seed the game was dealt from, or ``None`` for a position built another way.
    seed: int | None
    #: Every action applied since the deal, in order: with ``seed`` it rebuilds the position.
    actions: list[int]

    # ---- construction -------------------------------------------------------------------
    def __init__(self, params: Any, seed: int | None = None) -> None:
        if not isinstance(params, self.params_class):
            raise TypeError(
                f"{type(self).__name__} needs {self.params_class.__name__}, "
                f"got {type(params).__name__}"
            )
        if seed is None:  # fresh entropy, but a known seed: the game stays replayable
            seed = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]  # an int here
        self.params = params
        self.reseed(seed)
        self._start_log(seed)
        self._setup()
        if self._rng is not None:  # keep only the position: clones of a new game copy no Generator
            self._rng_at = rng_state(self._rng)
            self._rng = None

    def _start_log(self, seed: int | None) -> None:
        """Start an empty action log from ``seed`` (``None``: a position the log cannot rebuild)."""
        self.seed = seed
        self.actions = []

    @classmethod
    def new(cls: type[S], *, seed: int | None = None, **params: Any) -> S:
        """Return the initial state for keyword parameters (validated) and a seed."""
        return cls(cls.params_class(**params), seed)

    @abstractmethod
    def _setup(self) -> None:
        """Deal, shuffle and lay out the initial position using ``self.rng``.

        Draw through ``self.rng`` each time; keep no reference to the Generator (the state keeps
        only its position once set-up is done, and builds a new Generator when it is needed).
        """

    # ---- chance -------------------------------------------------------------------------
    @property
    def rng(self) -> np.random.Generator:
        """Return the state's chance stream, a PCG64 Generator (built here on first use)."""
        rng = self._rng
        if rng is None:
            at = self._rng_at
            rng = make_rng(at) if type(at) is int else rng_at(at)  # type: ignore[arg-type]
            self._rng = rng
            self._rng_at = None
        return rng

    @rng.setter
    def rng(self, rng: np.random.Generator) -> None:
        self._rng = check_pcg64(rng)
        self._rng_at = None

    def reseed(self, seed: int) -> None:
        """Restart the chance stream from ``seed``: the stream of ``make_rng(seed)``.

        The same as ``state.rng = make_rng(seed)`` without building the Generator now: a copy
        that never draws (a search playout of a game whose chance is dealt at set-up) never
        builds one. ``seed`` is an integer from 0 to 2**128 - 1.
        """
        if type(seed) is not int or not 0 <= seed < 2**128:
            seed = check_int_range("seed", seed, 0, 2**128 - 1)
        self._rng = None
        self._rng_at = seed

    def _rng_position(self) -> RngState:
        """Return the position of the chance stream without building a Generator."""
        rng = self._rng
        if rng is not None:
            return rng_state(rng)
        at = self._rng_at
        if type(at) is int:
            at = self._rng_at = seed_state(at)  # the same stream, stated as a position once
        return at  # type: ignore[return-value]

    def _shallow_copy(self: S) -> S:
        """Return a new state of this class whose attributes are bound to this state's values,
        except what this base class keeps: the copy has its own action log and chance stream.

        A game's :meth:`clone` starts from it and copies its own mutable attributes. The
        stream's position is shared when no Generator is built (it is immutable); otherwise the
        copy gets the Generator's position and builds its own Generator when it draws.
        """
        cls = type(self)
        new = object.__new__(cls)
        slots = SLOTS.get(cls)
        if slots is None:
            slots = SLOTS[cls] = Slots(cls)
        try:
            slots.copy(self, new)
        except AttributeError:  # a slot not set (a state still being built): copy the others
            for name in slots.names:
                if hasattr(self, name):
                    setattr(new, name, getattr(self, name))
        extra = getattr(self, "__dict__", None)  # a subclass without __slots__
        if extra:
            new.__dict__.update(extra)
        new.actions = self.actions.copy()
        rng = self._rng
        if rng is not None:
            new._rng = None
            new._rng_at = rng_state(rng)
        return new

    # ---- static facts --------------------------------------------------------------------
    @property
    @abstractmethod
    def spec(self) -> GameSpec:
        """Return the game's static facts under this state's parameters."""

    @property
    def num_players(self) -> int:
        """Return the number of seats."""
        return self.spec.num_players

    # ---- dynamics -----------------------------------------------------------------------
    @property
    @abstractmethod
    def current_player(self) -> int:
        """Return the seat to act, or ``TERMINAL`` (-1) once the game is over."""

    @property
    @abstractmethod
    def is_terminal(self) -> bool:
        """Return whether the game is over."""

    @abstractmethod
    def legal_mask(self) -> np.ndarray:
        """Return a fresh int8 array of ``num_actions``: 1 where the mover may act.

        All zeros at a terminal state. This is the one source of legality: ``apply``
        accepts exactly the actions marked here.
        """

    def legal_actions(self) -> list[int]:
        """Return the legal action ids, ascending (a fresh list: the ids ``legal_mask`` marks)."""
        return self.legal_mask().nonzero()[0].tolist()

    def acting_seats(self) -> tuple[int, ...]:
        """Return the seats that act now, in the order :meth:`apply` takes their actions.

        A turn-based position has one acting seat, the mover; ``()`` once the game is over. A
        game with simultaneous moves lists every seat of the round that has yet to act: each
        one's legal actions (:meth:`legal_mask_of`) and observation must not depend on what
        the others before it in the round choose, so the round may be played as one joint step.
        """
        return () if self.is_terminal else (self.current_player,)

    def legal_mask_of(self, seat: int) -> np.ndarray:
        """Return a fresh mask of ``seat``'s legal actions in the current round.

        For a seat of :meth:`acting_seats`: the :meth:`legal_mask` it will get when its turn
        to act comes, whatever the seats before it play; all zeros for any other seat.
        """
        seat = self._check_seat(seat)
        if seat == self.current_player:
            return self.legal_mask()
        return np.zeros(self.spec.num_actions, dtype=np.int8)

    def apply(self, action: int) -> None:
        """Play ``action`` for the current player and append it to ``actions``.

        Raises :class:`IllegalActionError` (state unchanged, log included) if it is not legal.
        """
        self._apply(action)
        self.actions.append(action if type(action) is int else int(action))

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Play ``action`` (the game's own transition; :meth:`apply` logs it once it succeeded).

        Raises :class:`IllegalActionError` (state unchanged) if the action is not legal.
        """

    @abstractmethod
    def returns(self) -> np.ndarray:
        """Return each seat's final reward (float64); zeros before the end."""

    def result_info(self) -> dict[str, Any]:
        """Return the end-of-game details (scores, winners) shared through env infos."""
        return {}

    # ---- information --------------------------------------------------------------------
    @abstractmethod
    def observation(self, seat: int) -> np.ndarray:
        """Return a fresh egocentric observation tensor of ``seat`` (see ``spec``)."""

    def board_planes(self) -> tuple[int, tuple[int, int, int]] | None:
        """Return ``(start, (H, W, C))`` of the board planes in the flattened observation.

        A game whose observation is ``(H, W, C)`` planes gives all of it; a game with a flat
        observation gives its board section (or None: a CNN over the board cannot be used).
        """
        shape = tuple(int(x) for x in self.spec.observation_shape)
        return (0, (shape[0], shape[1], shape[2])) if len(shape) == 3 else None

    def observation_section(self, name: str) -> tuple[int, int] | None:
        """Return ``(start, length)`` of a named section of a flat observation, or None."""
        return None

    def with_observation(self: S, **changes: Any) -> S:
        """Return a copy of this position whose observations follow other parameter values.

        Only :attr:`observation_params` may change: the copy is the same position under the same
        rules (RNG and action log included) and plays on exactly as this one does; only what
        :meth:`observation` returns differs. Any other parameter raises
        :class:`InvalidParameterError`, and nothing is built.
        """
        others = sorted(set(changes) - self.observation_params)
        if others:
            allowed = ", ".join(sorted(self.observation_params)) or "none"
            raise InvalidParameterError(
                f"with_observation changes only parameters of the observation ({self.game_name}: "
                f"{allowed}), not {', '.join(others)}"
            )
        params = dataclasses.replace(self.params, **changes)  # the parameter checks run here
        if params == self.params:
            return self.clone()
        state = self._build(params, rng_state_to_json(self._rng_position()), self._state_dict())
        state.seed, state.actions = self.seed, self.actions.copy()
        return state

    @abstractmethod
    def render_text(self, seat: int | None = None) -> str:
        """Return a text picture of the position (from ``seat``'s side where it matters)."""

    def action_to_string(self, action: int) -> str:
        """Return a human-readable name of ``action``."""
        return str(action)

    def public_outcome(self) -> Hashable | None:
        """Return what the last action made public beyond the action itself, or None.

        A revealed tile, a chance draw shown to every seat: anything two determinizations of one
        information set may differ in after the same action, which every seat sees from then on.
        A search keys the position after an action by it (the action alone would fuse positions
        every seat can tell apart). Equal outcomes must compare equal; None (the default, for a
        game without such events) means the action alone says what is public.
        """
        return None

    def secret_steps(self) -> int:
        """Return how many of the last steps the mover has not seen (0, the default: none).

        Simultaneous choices made in turn: a search decides the move on one node for them all."""
        return 0

    def resample_hidden(self: S, seat: int, rng: np.random.Generator) -> S:
        """Return a copy whose hidden information is redrawn consistently with ``seat``'s view.

        Perfect-information games return a plain clone.
        """
        self._check_resample(seat, rng)
        return self.clone()

    def _check_resample(self, seat: object, rng: object) -> int:
        """Check the arguments of :meth:`resample_hidden`: return the seat, or raise
        InvalidParameterError (a seat of this game; a ``numpy.random.Generator``)."""
        seat = self._check_seat(seat)
        if not isinstance(rng, np.random.Generator):
            raise InvalidParameterError(
                "rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), "
                f"got {type(rng).__name__}"
            )
        return seat

    def _check_seat(self, seat: object) -> int:
        """Return ``seat`` if it is a seat of this game (an int ``0..n-1``), else raise.

        Every method taking a seat checks it: a negative seat would otherwise index from the
        end and hand out another seat's private view. Raises InvalidParameterError.
        """
        if type(seat) is int and 0 <= seat < self.spec.num_players:
            return seat  # the hot path: observation() runs on every env step
        return check_int_range("seat", seat, 0, self.spec.num_players - 1)

    # ---- errors -------------------------------------------------------------------------
    def _illegal(self, action: object, reason: str) -> IllegalActionError:
        """Build the error for ``action`` by the current player."""
        return IllegalActionError(action, self.current_player, reason)

    def _check_action_type(self, action: object) -> int:
        """Return ``action`` as an int if it is an integer id in range, else raise."""
        n = self.spec.num_actions
        action_id = as_action_id(action)
        if action_id is None:
            raise self._illegal(action, f"an action is an integer id from 0 to {n - 1}")
        if not 0 <= action_id < n:
            raise self._illegal(action, f"action ids run from 0 to {n - 1}")
        if self.is_terminal:
            raise self._illegal(action, "the game is over")
        return action_id

    # ---- copies and persistence -----------------------------------------------------------
    def clone(self: S) -> S:
        """Return an independent copy (RNG and action log included) that plays on identically.

        Subclasses overriding it start from :meth:`_shallow_copy` and copy their own mutable
        attributes.
        """
        return copy.deepcopy(self)

    @abstractmethod
    def _state_dict(self) -> dict[str, Any]:
        """Return the mutable state as JSON-ready data (no params, no RNG)."""

    @abstractmethod
    def _load_state_dict(self, data: Any) -> None:
        """Restore the mutable state from :meth:`_state_dict` output (untrusted data).

        Check every field and every invariant the rules keep before using it, and raise
        :class:`InvalidStateError` naming the field (``core.state_check`` reads the fields):
        a state that loads must play on with no error, to the end.
        """

    def to_json(self) -> str:
        """Serialize the whole state, parameters, RNG position and action log included."""
        return json.dumps(
            {
                "game": self.game_name,
                "format": JSON_FORMAT,
                "params": dataclasses.asdict(self.params),
                "rng": rng_state_to_json(self._rng_position()),
                "state": self._state_dict(),
                "log": {"seed": self.seed, "actions": self.actions},
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls: type[S], text: str | bytes) -> S:
        """Rebuild a state written by :meth:`to_json`; it plays on exactly as the original.

        The text is untrusted input: anything but a state the rules can reach (wrong game,
        bad parameters or RNG, a field out of range, pieces that do not add up) raises
        :class:`InvalidStateError` naming the field, and nothing is built.
        """
        try:
            data = json.loads(text)
        except (TypeError, ValueError, RecursionError) as err:
            raise InvalidStateError("text", f"not a JSON document ({err})") from None
        if too_deep(data, MAX_DEPTH):  # a state nests 4 deep; deeper would exhaust the stack
            raise InvalidStateError("document", f"nests at most {MAX_DEPTH} deep")
        data = check_keys(data, _JSON_KEYS, "document", optional=("log",))
        if data["game"] != cls.game_name:
            raise InvalidStateError(
                "game", f"holds a {data['game']!r} state, not {cls.game_name!r}"
            )
        if type(data["format"]) is not int or data["format"] != JSON_FORMAT:  # true == 1
            raise InvalidStateError(
                "format", f"unsupported format {data['format']!r}; this library reads {JSON_FORMAT}"
            )
        if not isinstance(data["params"], dict):
            raise InvalidStateError("params", "must be an object of game parameters")
        try:
            params = cls.params_class(**as_tuples(data["params"]))
        except (TypeError, ValueError) as err:
            raise InvalidStateError("params", cut(str(err), 240)) from None
        return cls._build(params, data["rng"], data["state"], data.get("log"))

    @classmethod
    def _build(cls: type[S], params: Any, rng: Any, state_data: Any, log: Any = None) -> S:
        """Return a state from checked parameters and untrusted RNG, state and log data."""
        state = cls.__new__(cls)
        state.params = params
        state._rng = None
        state._rng_at = rng_state_from_json(rng)
        try:
            state._load_state_dict(state_data)
        except InvalidStateError:
            raise
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError) as err:
            # A last line of defence: every game checks its fields, so this names no field.
            raise InvalidStateError("state", f"malformed ({type(err).__name__}: {err})") from None
        state._load_log(log)
        return state

    def _load_log(self, log: Any) -> None:
        """Restore the action log written by :meth:`to_json`; ``None`` starts an unseeded one.

        A seeded log must rebuild the loaded position exactly (it is replayed), so a saved game
        with a log is a position the rules reach from its deal.
        """
        if log is None:  # JSON written before the log, or a position no log rebuilds
            self._start_log(None)
            return
        log = check_keys(log, ("actions", "seed"), "log")
        seed = log["seed"]
        if seed is not None:
            check_int(seed, 0, 2**128 - 1, "log.seed")
        actions = check_int_list(log["actions"], 0, self.spec.num_actions - 1, "log.actions")
        if seed is not None:
            replayed = type(self)(self.params, seed)
            for k, action in enumerate(actions):
                try:
                    replayed.apply(action)
                except IllegalActionError as err:
                    raise InvalidStateError(f"log.actions[{k}]", err.reason) from None
            if replayed != self:
                raise InvalidStateError("log", "the deal and actions do not rebuild this position")
        self.seed = seed
        self.actions = actions

    # Pickle and deepcopy go through the same canonical data as JSON, so derived caches (e.g.
    # numpy views into a shared buffer) are rebuilt by ``_load_state_dict``, never detached.
    # Unpickling is loading too: the data is checked exactly as ``from_json`` checks it.
    def __getstate__(self) -> dict[str, Any]:
        return {
            "params": self.params,
            "rng": rng_state_to_json(self._rng_position()),
            "state": self._state_dict(),
            "log": (self.seed, self.actions.copy()),
        }

    def __setstate__(self, raw: dict[str, Any]) -> None:
        data = check_keys(raw, ("params", "rng", "state"), "pickle", optional=("log",))
        params: Any = data["params"]
        if type(params) is not self.params_class:
            raise InvalidStateError(
                "params", f"must be {self.params_class.__name__}, got {type(params).__name__}"
            )
        try:  # an unpickled dataclass skipped its checks: run them again
            params = self.params_class(
                **{f.name: getattr(params, f.name) for f in _fields(self.params_class)}
            )
        except (TypeError, ValueError) as err:
            raise InvalidStateError("params", cut(str(err), 240)) from None
        log = data.get("log")  # pickles made before the log have none
        if log is not None:
            if not isinstance(log, tuple) or len(log) != 2:
                raise InvalidStateError("log", "must be a (seed, actions) pair")
            log = {"seed": log[0], "actions": list(log[1]) if isinstance(log[1], list) else log[1]}
        built = self._build(params, data["rng"], data["state"], log)
        for name in Slots(type(self)).names:
            if hasattr(built, name):
                setattr(self, name, getattr(built, name))
        if hasattr(built, "__dict__"):
            self.__dict__.update(built.__dict__)

    def __eq__(self, other: object) -> bool:
        # the position: parameters, RNG and state; two move orders to one position are equal
        if type(other) is not type(self):
            return NotImplemented
        return (
            self.params == other.params
            and self._rng_position() == other._rng_position()
            and self._state_dict() == other._state_dict()
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.params} to_move={self.current_player}>"


class PhasedGameState(GameState):
    """A state whose ``phase`` field ends the game at ``over_phase`` and ``to_move`` is the mover.

    The three games share this shape, so ``current_player`` and ``is_terminal`` live here once.
    """

    __slots__ = ("phase", "to_move")

    over_phase: ClassVar[int]
    phase: int
    to_move: int

    @property
    def current_player(self) -> int:
        """Return the seat to act, or ``TERMINAL`` (-1) once the game is over."""
        return TERMINAL if self.phase == self.over_phase else self.to_move

    @property
    def is_terminal(self) -> bool:
        """Return whether the game is over."""
        return self.phase == self.over_phase
