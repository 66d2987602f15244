"""PettingZoo's own tests on every env and player count, both observation types: ``api_test``
(``env()`` and ``raw_env()``), ``seed_test``, ``parallel_api_test``, ``parallel_seed_test`` and
``render_test`` over every render mode (``human`` included)."""

from __future__ import annotations

import contextlib
import io
import warnings
from typing import Any

import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from tabletop_envs.envs.registry import make, make_parallel
from tabletop_envs.testing.api import check_parallel_api, check_pettingzoo, check_render
from tabletop_envs.testing.play import Case
from tests.clients.configs import CONFIGS


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_api_seed_and_parallel_tests_pass(name: str, params: dict[str, Any]) -> None:
    """The library's wrappers of PettingZoo's tests: a warning other than PettingZoo's notes
    on Dict observations and all-zeros end masks fails them."""
    case = Case.of(name, params)
    check_pettingzoo(case)
    check_parallel_api(case, "penalize")
    check_parallel_api(case, "raise")


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_render_test_passes_over_every_mode(name: str, params: dict[str, Any]) -> None:
    check_render(Case.of(name, params))


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_the_box_views_pass_the_api_seed_and_parallel_tests(
    name: str, params: dict[str, Any]
) -> None:
    """``obs_type="box"``: PettingZoo's tests warn about nothing."""
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test(make(name, obs_type="box", **params), num_cycles=1000)
        seed_test(lambda: make(name, obs_type="box", **params), num_cycles=1000)
        parallel_api_test(make_parallel(name, obs_type="box", **params), num_cycles=1000)
        parallel_seed_test(lambda: make_parallel(name, obs_type="box", **params))
