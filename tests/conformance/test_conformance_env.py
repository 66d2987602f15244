"""The env adapter's clear errors before ``reset`` and for bad names and adapter keywords.

(Copies, ``load_state``, rejected actions, spaces and seeding of every case: the ``env_*``,
``load_state``, ``spaces`` and ``params`` checks of ``tabletop_envs.testing``, run on every case
by ``test_conformance_checks``.)
"""

from __future__ import annotations

import pytest

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.envs.registry import make, registered_envs
from tests.conformance.cases import ENVS


@pytest.mark.parametrize("name", ENVS)
def test_use_before_reset_is_a_clear_error(name: str) -> None:
    """``step``/``observe``/``render`` before ``reset`` say to call reset."""
    env = make(name, render_mode="ansi")
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(0)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.observe(env.possible_agents[0])
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.render()


@pytest.mark.parametrize("name", ENVS)
def test_make_errors_list_valid_values(name: str) -> None:
    """Unknown env names and the adapter's bad values give errors that list what is valid.

    (A game's own parameters: the ``params`` check of ``tabletop_envs.testing``.)"""
    with pytest.raises(ValueError) as info:
        make(name.replace("_v", "_nosuch_v"))
    assert all(n in str(info.value) for n in registered_envs()), info.value
    with pytest.raises(InvalidParameterError, match="'ansi'"):
        make(name, render_mode="window")
    with pytest.raises(InvalidParameterError, match="'penalize'"):
        make(name, illegal_action="ignore")
