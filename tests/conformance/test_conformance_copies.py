"""The copy walk of :mod:`tabletop_envs.testing.copies` can fail: it sees a field a clone
forgets to copy, and it reaches every game's fields (the ``copies`` check itself runs on every
case in ``test_conformance_checks``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tabletop_envs.core.game import GameState
from tabletop_envs.testing.copies import (
    COPIES,
    assert_nothing_mutable_shared,
    configuration_objects,
    mutate_everything,
    positions,
    snapshot,
)
from tabletop_envs.testing.play import Case
from tests.conformance.cases import CASES, game_class


def test_the_walk_sees_a_field_a_clone_forgets() -> None:
    """The checks fail for a clone that shares one list with its original (they can fail)."""
    name, params = CASES[0].values
    cls = game_class(name)

    class ForgetfulClone(cls):  # type: ignore[misc, valid-type]
        def clone(self) -> GameState:
            new = super().clone()
            new.actions = self.actions  # the log list is shared
            return new

    game = ForgetfulClone.new(seed=5, **params)
    play = np.random.default_rng(0)
    legal = np.flatnonzero(game.legal_mask())
    game.apply(int(legal[play.integers(len(legal))]))
    config = configuration_objects(Case.of(name, params))
    with pytest.raises(AssertionError, match="shared mutable objects"):
        assert_nothing_mutable_shared(game, game.clone(), config, "forgetful")
    before = snapshot(game, config)
    assert mutate_everything(game.clone(), config) > 5, "the walk misses fields of the game"
    assert snapshot(game, config) != before


@pytest.mark.parametrize(("name", "params"), CASES)
def test_the_walk_reaches_the_games_fields(name: str, params: dict[str, Any]) -> None:
    """On every case, each way of copying gives a copy whose walk changes more than a handful of
    objects (a walk blind to a game's fields would change only the log and the RNG)."""
    case = Case.of(name, params)
    config = configuration_objects(case)
    for k, build in enumerate(positions(case, seed=11)):
        for how, copy in COPIES.items():
            changed = mutate_everything(copy(build()), config)
            assert changed > 5, f"state {k}, {how}: only {changed} objects changed"
