"""The suite tests itself: on a tiny correct game every check passes, and each broken variant
of it (``toy_game.BROKEN``) fails the check meant to catch it.

The toy env is registered only inside these tests (monkeypatched registry), so the rest of the
suite never sees it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import tests.conformance.test_conformance_core as core
import tests.conformance.test_conformance_determinism as determinism
import tests.conformance.test_conformance_env as env_tests
import tests.conformance.test_conformance_golden as golden
import tests.conformance.test_conformance_pettingzoo as pz
import tests.conformance.test_conformance_playouts as playouts
from tabletop_envs.envs import registry
from tabletop_envs.envs.registry import EnvSpec
from tests.conformance import toy_game
from tests.golden import tracing

NAME = "toy_v0"
PARAM_SETS = ({}, {"pile": 5})


def _register(monkeypatch: pytest.MonkeyPatch, cls: type) -> None:
    spec = EnvSpec(
        name=NAME,
        game=f"tests.conformance.toy_game:{cls.__name__}",
        image="tests.conformance.toy_game:drawing",
        test_params=PARAM_SETS,
    )
    monkeypatch.setitem(registry._SPECS, NAME, spec)


#: Every per-case check of the suite except the cross-process one (a fresh interpreter does not
#: see the monkeypatched registry) and the golden trace (tested below with a temporary file).
CASE_CHECKS: tuple[Callable[..., None], ...] = (
    pz.test_api_test_env,
    pz.test_api_test_raw_env,
    pz.test_seed_test,
    pz.test_render_test,
    playouts.test_env_random_playouts,
    playouts.test_core_mask_is_legality,
    core.test_clone_equal_independent_and_plays_on,
    core.test_json_round_trip_plays_on_identically,
    core.test_from_json_rejects_foreign_text,
    core.test_state_equality,
    core.test_resample_hidden_keeps_every_view,
    core.test_seat_arguments_are_checked,
    env_tests.test_copies_of_a_fresh_env,
    env_tests.test_load_state,
    env_tests.test_load_state_rejects_other_games,
    env_tests.test_spaces_agents_and_metadata,
    env_tests.test_unseeded_resets_follow_the_seed,
    determinism.test_same_seed_same_trajectory_in_process,
    determinism.test_different_seeds_differ_only_by_chance,
)
STEP_CHECKS = (
    env_tests.test_deepcopy_and_pickle_keep_the_game,
    env_tests.test_raw_env_rejects_without_change,
    env_tests.test_env_penalizes_illegal_action,
)
ENV_CHECKS = (
    env_tests.test_use_before_reset_is_a_clear_error,
    env_tests.test_make_errors_list_valid_values,
)


@pytest.mark.parametrize("params", PARAM_SETS, ids=tracing.params_slug)
def test_correct_toy_game_passes_every_check(
    monkeypatch: pytest.MonkeyPatch, params: dict[str, Any]
) -> None:
    """The suite's checks pass on a correct game it has never seen (nothing is Iris-specific)."""
    _register(monkeypatch, toy_game.ToyState)
    for check in CASE_CHECKS:
        check(NAME, params)
    for check in STEP_CHECKS:
        for steps in env_tests.MID_GAME_STEPS:
            check(NAME, params, steps)
    for check in ENV_CHECKS:
        check(NAME)


#: Broken variant -> a check that must fail on it.
CAUGHT_BY = {
    toy_game.MaskAllowsTooMuch: playouts.test_core_mask_is_legality,
    toy_game.ApplyAcceptsTooMuch: playouts.test_core_mask_is_legality,
    toy_game.SharedClone: core.test_clone_equal_independent_and_plays_on,
    toy_game.JsonForgetsMover: core.test_json_round_trip_plays_on_identically,
    # the env shows returns only at the end; the core check sees them early
    toy_game.EarlyReward: playouts.test_core_mask_is_legality,
    toy_game.TooLong: playouts.test_env_random_playouts,
    toy_game.ObservationOutOfBounds: playouts.test_env_random_playouts,
    toy_game.IgnoresSeed: determinism.test_same_seed_same_trajectory_in_process,
    toy_game.ResampleLeaks: core.test_resample_hidden_keeps_every_view,
    toy_game.SeatNotChecked: core.test_seat_arguments_are_checked,
}


def test_every_broken_variant_has_a_catcher() -> None:
    """The table below covers every broken variant."""
    assert set(CAUGHT_BY) == set(toy_game.BROKEN)


@pytest.mark.parametrize("broken", list(CAUGHT_BY), ids=lambda cls: cls.__name__)
def test_broken_variant_is_caught(monkeypatch: pytest.MonkeyPatch, broken: type) -> None:
    """Each broken variant fails the check meant for it."""
    _register(monkeypatch, broken)
    with pytest.raises((AssertionError, pytest.fail.Exception)):
        CAUGHT_BY[broken](NAME, {})


def test_golden_trace_fails_when_missing_or_changed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A missing golden file fails with the command to create it; a changed line fails too."""
    _register(monkeypatch, toy_game.ToyState)
    monkeypatch.setattr(tracing, "GOLDEN_DIR", tmp_path)
    with pytest.raises(pytest.fail.Exception, match=r"regenerate\.py --env toy_v0"):
        golden.test_golden_trace(NAME, {})
    path = tracing.golden_path(NAME, {})
    lines = tracing.trace_lines(NAME, {})
    path.write_text("\n".join(lines) + "\n")
    golden.test_golden_trace(NAME, {})
    lines[5] = lines[5].replace(" a=", " a=1")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(pytest.fail.Exception, match="bump the env version"):
        golden.test_golden_trace(NAME, {})
