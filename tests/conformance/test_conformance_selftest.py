"""The suite tests itself: on a tiny correct game every check passes, and each broken variant
of it (``toy_game.BROKEN``) fails ``check_env`` at the check meant to catch it.

The toy env is registered only inside these tests (monkeypatched registry), so the rest of the
suite never sees it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import tests.conformance.test_conformance_env as env_tests
import tests.conformance.test_conformance_golden as golden
from tabletop_envs.envs import registry
from tabletop_envs.envs.registry import EnvSpec
from tabletop_envs.testing import CHECKS, ConformanceError, check_env, check_game
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


#: The suite's own per-env checks of the adapter (the per-case ones are check_env's).
ENV_CHECKS: tuple[Callable[[str], None], ...] = (
    env_tests.test_use_before_reset_is_a_clear_error,
    env_tests.test_make_errors_list_valid_values,
)


@pytest.mark.parametrize("params", PARAM_SETS, ids=tracing.params_slug)
def test_correct_toy_game_passes_every_check(
    monkeypatch: pytest.MonkeyPatch, params: dict[str, Any]
) -> None:
    """Every check passes on a correct game it has never seen (nothing is Iris-specific)."""
    _register(monkeypatch, toy_game.ToyState)
    assert check_env(NAME, **params) == [check.name for check in CHECKS]
    for check in ENV_CHECKS:
        check(NAME)


#: Broken variant -> the check that must stop ``check_env`` on it.
CAUGHT_BY = {
    toy_game.MaskAllowsTooMuch: "playouts",
    toy_game.ApplyAcceptsTooMuch: "playouts",
    toy_game.SharedClone: "clone",
    toy_game.JsonForgetsMover: "json",
    # the env shows returns only at the end; the core playouts see them early
    toy_game.EarlyReward: "playouts",
    toy_game.TooLong: "playouts",
    toy_game.ObservationOutOfBounds: "playouts",
    toy_game.IgnoresSeed: "seeding",
    toy_game.ResampleLeaks: "hidden",
    toy_game.SeatNotChecked: "seats",
}


def test_every_broken_variant_has_a_catcher() -> None:
    """The table below covers every broken variant."""
    assert set(CAUGHT_BY) == set(toy_game.BROKEN)


@pytest.mark.parametrize("broken", list(CAUGHT_BY), ids=lambda cls: cls.__name__)
def test_broken_variant_is_caught(monkeypatch: pytest.MonkeyPatch, broken: type) -> None:
    """``check_env`` (and ``check_game`` on the class alone) stops at the check meant for it,
    with a message naming the env, the parameters and the check."""
    _register(monkeypatch, broken)
    with pytest.raises(ConformanceError) as info:
        check_env(NAME, pile=5)
    assert info.value.check == CAUGHT_BY[broken], info.value
    assert str(info.value).startswith(f"toy_v0(pile=5) fails the {CAUGHT_BY[broken]!r} check")
    with pytest.raises(ConformanceError) as info:
        check_game(broken, {"pile": 5})
    assert info.value.check == CAUGHT_BY[broken], info.value
    assert str(info.value).startswith(f"{broken.__name__}(pile=5) fails")


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
