"""Checks of the rules core (a :class:`~tabletop_envs.core.game.GameState` subclass): declared
facts, seeding, mask == legality, copies and saved states, equality, hidden information, seats.

Each check takes a :class:`~tabletop_envs.testing.play.Case` and raises AssertionError saying
what is wrong and where (seed, step, seat).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import pickle
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_envs.core.errors import IllegalActionError, InvalidParameterError
from tabletop_envs.core.game import TERMINAL, GameSpec, GameState
from tabletop_envs.testing.play import (
    Case,
    assert_same_game_view,
    expect_raises,
    mid_game_states,
    play_both,
    play_out,
    random_action,
    random_trajectory,
)

SAMPLED_LEGAL = 6  # legal actions applied (each on a clone) per step, beyond the exhaustive games
ILLEGAL_TRIES = 3  # masked-out actions tried per step
SEEDING_GAMES = 5  # fewest deals compared by the seeding check (it is cheap)
RESAMPLE_PLAYOUTS = 4  # resampled states per game and seat played to the end


def check_spec(case: Case) -> None:
    """The declared static facts are consistent, and the same for every deal."""
    spec = case.new_game(case.seed).spec
    assert isinstance(spec, GameSpec), f"spec is a {type(spec).__name__}, not a GameSpec"
    assert type(spec.num_players) is int and spec.num_players >= 1, "num_players"
    assert type(spec.num_actions) is int and spec.num_actions >= 1, "num_actions"
    assert type(spec.max_game_length) is int and spec.max_game_length > 0, "max_game_length"
    low, high = spec.reward_range
    assert low < high and low <= 0 <= high, f"reward_range {spec.reward_range} must hold 0"
    shape = spec.observation_shape
    assert shape and all(type(d) is int and d > 0 for d in shape), f"observation_shape {shape}"
    assert len(spec.observation_channels) == shape[-1], (
        f"{len(spec.observation_channels)} observation_channels for a last axis of {shape[-1]}"
    )
    assert np.issubdtype(np.dtype(spec.observation_dtype), np.number), "observation_dtype"
    assert spec.observation_low <= spec.observation_high, "observation_low > observation_high"
    for seed in case.seeds:
        assert case.new_game(seed).spec == spec, f"seed {seed}: the spec depends on the deal"


def check_seeding(case: Case) -> None:
    """One seed deals one game: two deals of a seed are equal, chance stream included.

    (That equal states play on alike is the clone and JSON checks'; the env's seeded games are
    the ``env_seeding`` check's.)
    """
    for seed in range(case.seed, case.seed + max(case.games, SEEDING_GAMES)):
        a, b = case.new_game(seed), case.new_game(seed)
        assert a == b and a.to_json() == b.to_json(), (
            f"seed {seed}: two deals of one seed differ (draw chance from the state's rng only)"
        )
        draws = [game.rng.integers(2**62, size=4).tolist() for game in (a, b)]
        assert draws[0] == draws[1], f"seed {seed}: the two deals' chance streams differ"


def _check_rejected(game: GameState, action: Any, where: str) -> None:
    before = game.clone()
    with expect_raises(IllegalActionError, f"{where}: action {action!r}"):
        game.apply(action)
    assert game == before, f"{where}: a rejected action {action!r} changed the state"


def _check_observation(obs: np.ndarray, spec: GameSpec, where: str) -> None:
    assert isinstance(obs, np.ndarray), f"{where}: the observation is a {type(obs).__name__}"
    assert obs.shape == spec.observation_shape, f"{where}: observation shape {obs.shape}"
    assert obs.dtype == np.dtype(spec.observation_dtype), f"{where}: dtype {obs.dtype}"
    assert obs.min() >= spec.observation_low and obs.max() <= spec.observation_high, (
        f"{where}: observation values outside [{spec.observation_low}, {spec.observation_high}]"
    )


def _check_step(
    game: GameState, spec: GameSpec, rng: np.random.Generator, every: bool, where: str
) -> None:
    """Check one non-terminal position: its mask, its legality, its fresh arrays."""
    assert game.spec == spec, f"{where}: the spec changed during the game"
    mask = game.legal_mask()
    assert mask.shape == (spec.num_actions,) and mask.dtype == np.int8, f"{where}: mask"
    assert set(np.unique(mask).tolist()) <= {0, 1}, f"{where}: mask values"
    legal = np.flatnonzero(mask)
    assert len(legal), f"{where}: no legal action"
    assert game.legal_actions() == legal.tolist(), where
    assert 0 <= game.current_player < spec.num_players, f"{where}: current_player"
    assert not game.returns().any(), f"{where}: nonzero returns before the end"
    mask[:] = 1 - mask  # a fresh array: changing it changes nothing
    assert np.array_equal(game.legal_mask(), 1 - mask), f"{where}: mask not a fresh array"
    obs = game.observation(game.current_player)
    _check_observation(obs, spec, f"{where} (mover)")
    saved = obs.copy()
    obs[...] = 0 if saved.any() else 1
    assert np.array_equal(game.observation(game.current_player), saved), (
        f"{where}: observation not a fresh array"
    )
    tried = legal if every else rng.permutation(legal)[:SAMPLED_LEGAL]
    for action in tried:
        probe = game.clone()
        probe.apply(int(action))
        assert probe.is_terminal or probe.legal_mask().any(), (
            f"{where}: after the legal action {action}, a live position with no legal action"
        )
    illegal = np.flatnonzero(mask)  # mask now holds the complement
    for action in rng.permutation(illegal)[:ILLEGAL_TRIES]:
        _check_rejected(game, int(action), where)
    for action in (-1, spec.num_actions, np.int64(spec.num_actions + 5)):
        _check_rejected(game, action, where)


def _check_end(game: GameState, spec: GameSpec, where: str) -> None:
    """Check a terminal position: no mover, no legal action, returns in the reward range."""
    assert game.current_player == TERMINAL, f"{where}: current_player is not TERMINAL"
    assert not game.legal_mask().any() and game.legal_actions() == [], f"{where}: legal actions"
    returns = game.returns()
    assert returns.dtype == np.float64 and returns.shape == (spec.num_players,), (
        f"{where}: returns {returns!r} must be float64, one per seat"
    )
    low, high = spec.reward_range
    assert ((returns >= low) & (returns <= high)).all(), (
        f"{where}: returns {returns} outside reward_range {spec.reward_range}"
    )
    for seat in range(spec.num_players):
        _check_observation(game.observation(seat), spec, f"{where} seat {seat}")
    for action in (0, spec.num_actions - 1):
        _check_rejected(game, action, where)


def check_playouts(case: Case) -> None:
    """Random playouts: every masked action applies (on a clone), masked-out and out-of-range
    ones raise IllegalActionError and change nothing; lengths, returns and observations keep
    the declared facts; masks and observations are fresh arrays.

    Every legal action is tried at every step of the first ``max(1, games // 6)`` games, a
    sample of them in the others.
    """
    exhaustive = max(1, case.games // 6)
    for k, seed in enumerate(case.seeds):
        game = case.new_game(seed)
        spec = game.spec
        rng = np.random.default_rng(seed)
        steps = 0
        while not game.is_terminal:
            _check_step(game, spec, rng, k < exhaustive, f"seed {seed} step {steps}")
            legal = np.flatnonzero(game.legal_mask())
            game.apply(int(legal[rng.integers(len(legal))]))
            steps += 1
            assert steps <= spec.max_game_length, (
                f"seed {seed}: longer than max_game_length={spec.max_game_length}"
            )
        _check_end(game, spec, f"seed {seed} end")


def check_clone(case: Case) -> None:
    """A mid-game clone equals the original, is independent, keeps a subclass, plays on alike."""
    for seed in case.seeds:
        for k, game in enumerate(mid_game_states(case, seed)):
            where = f"seed {seed} state {k}"
            clone = game.clone()
            assert clone is not game and type(clone) is type(game), where
            assert_same_game_view(game, clone, where)
            before = game.to_json()
            mutated = game.clone()
            mutated.rng.integers(2**32, size=3)  # drawing from the clone's RNG ...
            if not mutated.is_terminal:
                mutated.apply(random_action(mutated, np.random.default_rng(k)))  # ... and playing
            assert game.to_json() == before, f"{where}: changing a clone changed the original"
            assert game == clone, where
            play_both(game, clone, seed=k, what=f"{where} clone")
    # Users subclass game states (instrumentation, variants): clone() must keep their class.
    sub: type[GameState] = type("InstrumentedState", (case.game_class,), {})
    game = sub.new(seed=case.seed, **case.params)
    game.apply(random_action(game, np.random.default_rng(case.seed)))
    assert type(game.clone()) is sub, "clone() of a subclass returned another class"


def check_json_round_trip(case: Case) -> None:
    """``from_json(to_json())`` mid-game restores an equal state, RNG position included."""
    cls = case.game_class
    for seed in case.seeds:
        for k, game in enumerate(mid_game_states(case, seed)):
            where = f"seed {seed} state {k}"
            text = game.to_json()
            assert json.loads(text)["game"] == cls.game_name, where
            restored = cls.from_json(text)
            assert type(restored) is cls, where
            assert restored.params == game.params, where
            assert restored.to_json() == text, f"{where}: JSON not stable through a round trip"
            assert_same_game_view(game, restored, where)
            draws = [s.clone().rng.integers(2**62, size=8).tolist() for s in (game, restored)]
            assert draws[0] == draws[1], f"{where}: the restored RNG draws differently"
            play_both(game, restored, seed=k, what=f"{where} JSON")


def check_json_foreign(case: Case) -> None:
    """``from_json`` names the problem for another game's or another format's JSON."""
    cls = case.game_class
    data = json.loads(case.new_game(case.seed).to_json())
    with expect_raises(ValueError, "another game's JSON", match="no_such_game"):
        cls.from_json(json.dumps({**data, "game": "no_such_game"}))
    with expect_raises(ValueError, "another format's JSON", match="format"):
        cls.from_json(json.dumps({**data, "format": -1}))
    with expect_raises(ValueError, "a format that is no integer", match="format"):
        cls.from_json(json.dumps({**data, "format": True}))
    deep: object = 0
    for _ in range(600):  # under json's own limit, past what a recursive reader survives
        deep = [deep]
    for part in ("params", "state", "log"):
        with expect_raises(ValueError, f"JSON nested 600 deep in {part}", match="deep"):
            cls.from_json(json.dumps({**data, part: {"x": deep}}))


def check_json(case: Case) -> None:
    """JSON round trips mid-game (equal state, same continuation); foreign JSON is refused."""
    check_json_round_trip(case)
    check_json_foreign(case)


def check_pickle(case: Case) -> None:
    """A pickled or deep-copied mid-game state is equal and plays on identically."""
    for seed in case.seeds:
        for k, game in enumerate(mid_game_states(case, seed)):
            for how, copied in (
                ("pickle", pickle.loads(pickle.dumps(game))),
                ("deepcopy", copy.deepcopy(game)),
            ):
                where = f"seed {seed} state {k} {how}"
                assert type(copied) is type(game) and copied is not game, where
                assert_same_game_view(game.clone(), copied, where)
                play_both(game.clone(), copied, seed=k, what=where, every_step=False)


def check_equality(case: Case) -> None:
    """``__eq__`` compares parameters, RNG position and state; states are unhashable."""
    seed = case.seed + 5
    a = case.new_game(seed)
    assert a == case.new_game(seed), "two deals of one seed compare unequal"
    assert a != case.new_game(seed + 1), "deals of two seeds compare equal (the RNG differs)"
    assert a != "a state" and a.__eq__(object()) is NotImplemented, "comparing with another type"
    with expect_raises(TypeError, "hash(state) (states are mutable)"):
        hash(a)
    b = a.clone()
    b.rng.integers(10)
    assert a != b, "states with different RNG positions compare equal"
    for step, (s, t) in enumerate(itertools.pairwise(random_trajectory(case, seed))):
        assert s != t, f"step {step}: an action left the state equal"


def _check_resampled(
    game: GameState, seat: int, rng_key: list[int], playout: bool, where: str
) -> None:
    """Check one ``resample_hidden(seat)`` of ``game``."""
    drawn = game.resample_hidden(seat, np.random.default_rng(rng_key))
    assert type(drawn) is type(game) and drawn is not game, where
    assert drawn.params == game.params, where
    assert np.array_equal(drawn.observation(seat), game.observation(seat)), (
        f"{where}: resampling changed the seat's own observation"
    )
    assert drawn.current_player == game.current_player, where
    assert drawn.is_terminal == game.is_terminal, where
    if seat == game.current_player:
        assert np.array_equal(drawn.legal_mask(), game.legal_mask()), (
            f"{where}: resampling changed the mover's legal actions"
        )
    again = game.resample_hidden(seat, np.random.default_rng(rng_key))
    assert again == drawn, f"{where}: resampling with equal RNGs differs"
    if playout:
        assert type(drawn).from_json(drawn.to_json()) == drawn, f"{where}: JSON of a resample"
        play_out(drawn, np.random.default_rng(rng_key[1]))
        low, high = drawn.spec.reward_range
        assert ((drawn.returns() >= low) & (drawn.returns() <= high)).all(), where


def check_hidden(case: Case) -> None:
    """``resample_hidden(seat)`` keeps the seat's observation (and its mask if it moves), is
    reproducible, leaves the original alone, and gives states that play on to the end."""
    for seed in case.seeds:
        states = random_trajectory(case, seed)
        n = len(states)
        playout_steps = {round(i * (n - 1) / RESAMPLE_PLAYOUTS) for i in range(RESAMPLE_PLAYOUTS)}
        for step, game in enumerate(states):
            before = game.clone()
            for seat in range(game.num_players):
                where = f"seed {seed} step {step} seat {seat}"
                _check_resampled(game, seat, [seed, step, seat], step in playout_steps, where)
            assert game == before, f"seed {seed} step {step}: resample_hidden changed the state"


def check_seats(case: Case) -> None:
    """A seat outside ``0..n-1``, or not an integer, is refused, never read as another seat.

    A negative seat would otherwise index from the end (the last seat's private view).
    """
    game = mid_game_states(case, case.seed)[-1]
    before = game.clone()
    n = game.num_players
    calls: dict[str, Callable[[Any], object]] = {
        "observation": lambda seat: game.observation(seat),
        "resample_hidden": lambda seat: game.resample_hidden(seat, np.random.default_rng(0)),
        "render_text": lambda seat: game.render_text(seat),
    }
    for method, call in calls.items():
        for bad in (-1, n, 1.0, True, "0"):
            try:
                call(bad)
            except InvalidParameterError as err:
                assert re.search(rf"seat must be .*\b{n - 1}\b", str(err)), f"{method}: {err}"
            else:
                raise AssertionError(
                    f"{method}({bad!r}) was accepted; seats are the ints 0..{n - 1}"
                )
        for seat in (0, np.int64(n - 1)):
            call(seat)  # accepted, numpy integers included
    assert game == before, "a refused seat changed the state"


def check_observation_params(case: Case) -> None:
    """Each ``observation_params`` entry changes the observation only; nothing else may change.

    Every boolean one, flipped mid-game with ``with_observation``, keeps the seed and log, the
    same mover, masks, chance and end, and flipped back gives the very state; every other
    parameter is refused and changes nothing. (A parameter of another type is checked only for
    being a parameter: the check cannot know its other valid values.)
    """
    game = case.new_game(case.seed)
    fields = set(dataclasses.asdict(game.params))
    names = sorted(game.observation_params)
    assert set(names) <= fields, f"observation_params {names} are not all parameters {fields}"
    before = game.to_json()
    for other in sorted(fields - set(names)):
        with expect_raises(InvalidParameterError, f"with_observation({other}=...)"):
            game.with_observation(**{other: getattr(game.params, other)})
    assert game.to_json() == before, "a refused with_observation changed the state"
    flips = [name for name in names if isinstance(getattr(game.params, name), bool)]
    for seed, name in itertools.product(case.seeds, flips):
        for k, state in enumerate(mid_game_states(case, seed)):
            where = f"seed {seed} state {k} {name}"
            value = getattr(state.params, name)
            read = state.with_observation(**{name: not value})
            assert getattr(read.params, name) is (not value), where
            assert (read.seed, read.actions) == (state.seed, state.actions), f"{where}: the log"
            assert_same_game_view(state, read.with_observation(**{name: value}), f"{where} back")
            play_both(state.clone(), read, k, f"{where} read with it flipped", same=_same_rules)


def _same_rules(a: GameState, b: GameState, where: str) -> None:
    """Assert ``a`` and ``b`` are one game, whatever they show: mover, masks, and the end."""
    assert a.current_player == b.current_player, (
        f"{where}: the mover differs ({a.current_player} and {b.current_player}): a rule changed"
    )
    assert np.array_equal(a.legal_mask(), b.legal_mask()), f"{where}: the legal masks differ"
    if a.is_terminal:
        assert np.array_equal(a.returns(), b.returns()), f"{where}: the returns differ"
        assert a.result_info() == b.result_info(), f"{where}: the results differ"
