"""Copies share nothing mutable: every field of a clone (or a resampled copy) can change in place
without the original noticing, and the other way round.

A game's ``clone()`` is often hand-written for speed (it copies only the fields that change),
so a field added to a game without its copy in ``clone`` would leak changes between copies.
This check walks every object a state reaches, so it sees such a field whatever its name.
Objects that two independently dealt states share are the configuration's cached tables,
shared by design; everything else reachable from a copy must be its own.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterator, Set
from typing import Any

import numpy as np

from tabletop_envs.core.game import GameState
from tabletop_envs.testing.play import Case, play_out, random_actions, replay

#: A value appended to every list of a copy, set in every dict, written in no game.
SENTINEL = "mutated"
#: Values that cannot change in place and hold nothing that can.
_LEAVES = (
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    np.generic,
    np.dtype,
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
)


def _children(obj: Any) -> Iterator[tuple[str, Any]]:
    """Yield ``(path step, object)`` for what ``obj`` holds: items, attributes, an array's base."""
    if isinstance(obj, np.ndarray):
        if obj.base is not None:
            yield ".base", obj.base
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield f"[{key!r}] key", key
            yield f"[{key!r}]", value
    elif isinstance(obj, (list, tuple)):
        for k, value in enumerate(obj):
            yield f"[{k}]", value
    elif isinstance(obj, (set, frozenset)):
        for value in obj:
            yield "{}", value
    elif isinstance(obj, np.random.Generator):
        yield ".bit_generator", obj.bit_generator
    elif not isinstance(obj, type):
        yield from _attributes(obj)


def _attributes(obj: Any) -> Iterator[tuple[str, Any]]:
    """Yield ``(".name", value)`` of every attribute of ``obj``: its slots and its ``__dict__``."""
    for klass in type(obj).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                yield f".{name}", getattr(obj, name)
    for name, value in getattr(obj, "__dict__", {}).items():
        yield f".{name}", value


def _is_leaf(obj: Any) -> bool:
    """Return whether ``obj`` is an immutable scalar or code (nothing to share, nothing to walk)."""
    return obj is None or isinstance(obj, _LEAVES)


def reachable(root: Any, skip: Set[int] = frozenset()) -> dict[int, tuple[Any, str]]:
    """Return ``{id: (object, path from root)}`` of every non-scalar object ``root`` reaches."""
    out: dict[int, tuple[Any, str]] = {}
    stack: list[tuple[Any, str]] = [(root, "state")]
    while stack:
        obj, path = stack.pop()
        if _is_leaf(obj) or id(obj) in out or id(obj) in skip:
            continue
        out[id(obj)] = (obj, path)
        stack.extend((child, path + step) for step, child in _children(obj))
    return out


def _mutable(obj: Any) -> bool:
    """Return whether ``obj`` can change in place (tuples and frozen dataclasses cannot)."""
    if isinstance(obj, np.ndarray):
        return bool(obj.flags.writeable)
    if isinstance(obj, (list, dict, set, bytearray, np.random.Generator, np.random.BitGenerator)):
        return True
    if isinstance(obj, (tuple, frozenset)):
        return False
    params = getattr(type(obj), "__dataclass_params__", None)
    if params is not None:
        return not params.frozen
    return hasattr(obj, "__dict__") or next(_attributes(obj), None) is not None  # slots


def _writable_array(obj: Any) -> bool:
    return isinstance(obj, np.ndarray) and bool(obj.flags.writeable)


def configuration_objects(case: Case) -> set[int]:
    """Return the ids of the objects two independently dealt states share: cached tables."""
    a = reachable(case.new_game(101))
    b = reachable(case.new_game(202))
    return set(a) & set(b)


def assert_nothing_mutable_shared(a: GameState, b: GameState, config: set[int], what: str) -> None:
    """Assert ``a`` and ``b`` share no mutable object and no writable array memory."""
    objects_a = reachable(a, config)
    objects_b = reachable(b, config)
    shared = sorted(
        f"{path} ({type(obj).__name__})"
        for i, (obj, path) in objects_a.items()
        if i in objects_b and _mutable(obj)
    )
    assert not shared, f"{what}: shared mutable objects {shared}"
    arrays_a = [(x, p) for x, p in objects_a.values() if _writable_array(x)]
    arrays_b = [(y, q) for y, q in objects_b.values() if _writable_array(y)]
    for x, p in arrays_a:
        for y, q in arrays_b:
            assert not np.shares_memory(x, y), f"{what}: {p} shares memory with the copy's {q}"


def snapshot(root: Any, skip: set[int]) -> Any:
    """Return a comparable deep picture of every value reachable from ``root``."""
    seen: set[int] = set()

    def snap(obj: Any) -> Any:
        if _is_leaf(obj):
            return obj
        if id(obj) in skip:
            return ("configuration", id(obj))
        if id(obj) in seen:  # a second path to the same object: its content is pictured once
            return ("again", id(obj))
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            return ("array", obj.dtype.str, obj.shape, obj.tobytes())
        if isinstance(obj, GameState):  # the stream's position, however it is kept
            fields = [(k, snap(v)) for k, v in _attributes(obj) if k not in ("._rng", "._rng_at")]
            return ("state", obj._rng_position(), tuple(fields))
        if isinstance(obj, np.random.Generator):
            return ("rng", repr(obj.bit_generator.state))
        if isinstance(obj, dict):
            return ("dict", tuple((snap(k), snap(v)) for k, v in obj.items()))
        if isinstance(obj, (list, tuple)):
            return (type(obj).__name__, tuple(snap(v) for v in obj))
        if isinstance(obj, (set, frozenset)):
            return (type(obj).__name__, tuple(sorted(map(repr, obj))))
        return (type(obj).__name__, tuple((step, snap(c)) for step, c in _children(obj)))

    return snap(root)


def mutate_everything(state: GameState, config: set[int]) -> int:
    """Change in place every mutable object ``state`` reaches (not the configuration's tables);
    draw from its chance stream. Return how many objects were changed."""
    count = 0
    for obj, _path in reachable(state, config).values():
        if obj is state:
            continue
        if isinstance(obj, np.ndarray) and obj.flags.writeable and obj.size:
            if obj.dtype == bool:
                np.logical_not(obj, out=obj)
            else:
                obj += 1
        elif isinstance(obj, list):
            obj.append(SENTINEL)
        elif isinstance(obj, dict):
            obj[SENTINEL] = SENTINEL
        elif isinstance(obj, set):
            obj.add(SENTINEL)
        elif isinstance(obj, bytearray):
            obj.append(1)
        elif isinstance(obj, np.random.Generator):
            obj.integers(2**32, size=5)
        elif _mutable(obj) and hasattr(obj, "__dict__"):
            obj.__dict__[SENTINEL] = SENTINEL
        else:
            continue
        count += 1
    state.rng.integers(2**32, size=5)  # builds the Generator if the copy had none yet
    return count + 1


def positions(case: Case, seed: int) -> list[Callable[[], GameState]]:
    """Return builders of states of a seeded random game: the start, a third, two thirds, the
    last non-final state and the end, each replayed from the deal (never copied)."""
    actions = random_actions(case, seed)
    n = len(actions)
    ends = sorted({0, n // 3, (2 * n) // 3, max(n - 1, 0), n})
    return [functools.partial(replay, case, seed, actions[:k]) for k in ends]


def _built_then_cloned(game: GameState) -> GameState:
    """Return a clone of ``game`` after building its Generator (the clone copies its position)."""
    game.rng  # noqa: B018  # builds the Generator
    return game.clone()


#: The ways of copying a state under test, by name.
COPIES: dict[str, Callable[[GameState], GameState]] = {
    "clone": lambda game: game.clone(),
    "clone of a clone": lambda game: game.clone().clone(),
    "clone with the Generator built": _built_then_cloned,
    "resample_hidden": lambda game: game.resample_hidden(
        max(game.current_player, 0), np.random.default_rng(3)
    ),
}


def check_copies_share_nothing(case: Case) -> None:
    """No list, dict, writable array, Generator or mutable object is shared by a copy."""
    config = configuration_objects(case)
    for seed in case.seeds:
        for k, build in enumerate(positions(case, seed)):
            game = build()
            for how, copy in COPIES.items():
                where = f"seed {seed} state {k}, {how}"
                assert_nothing_mutable_shared(game, copy(game), config, where)


def _check_mutated_copy(
    case: Case, build: Callable[[], GameState], k: int, how: str, config: set[int], where: str
) -> None:
    """Change every field of a copy: the original must not notice and must play on alike."""
    copy = COPIES[how]
    game = build()
    before = snapshot(game, config)
    reference = case.game_class.from_json(game.to_json())
    changed = mutate_everything(copy(game), config)
    assert changed >= 2, f"{where}: the walk changed no field of the copy (is it blind?)"
    assert snapshot(game, config) == before, f"{where}: changing a copy changed the original"
    assert game == reference, where
    seed = int(np.random.default_rng(k).integers(2**32))
    play_out(game, np.random.default_rng(seed))
    play_out(reference, np.random.default_rng(seed))
    assert game == reference, f"{where}: the original played on differently"
    assert np.array_equal(game.returns(), reference.returns()), where
    assert game.rng.integers(2**62) == reference.rng.integers(2**62), where

    game = build()
    follower = copy(game)
    kept = snapshot(follower, config)
    mutate_everything(game, config)
    assert snapshot(follower, config) == kept, f"{where}: changing the original changed a copy"


def check_mutated_copies(case: Case) -> None:
    """Changing every field of a copy in place (and drawing from its RNG) changes nothing in the
    original, which plays on exactly as a JSON copy taken before; and the other way round."""
    config = configuration_objects(case)
    for seed in case.seeds:
        for k, build in enumerate(positions(case, seed)):
            for how in COPIES:
                where = f"seed {seed} state {k}, {how}"
                _check_mutated_copy(case, build, k, how, config, where)


def check_copies(case: Case) -> None:
    """Copies (clones, resampled copies) share no mutable object with their original."""
    check_copies_share_nothing(case)
    check_mutated_copies(case)
