"""Pebbles, a toy game in one folder: the worked example of ``docs/adding_a_game.md``.

Everything the library needs to know about the game is the ``SPEC`` below; importing this
package registers it (``tabletop_envs.make("pebbles_v0")``, the agents, the arena, ``watch``,
``gymnasium.make("toy_game/Pebbles-v0")`` and ``tabletop_envs.testing.check_env`` all find it
there). The folder holds:

- ``rules.py``: the game (a :class:`~tabletop_envs.core.game.GameState` subclass, pure rules);
- ``heuristics.py``: the greedy heuristic (``make_agent("greedy", "pebbles_v0")``);
- ``moves.py``: how a person types a move (``tabletop-envs play``, the human agent);
- ``picture.py``: the picture (``render_mode="rgb_array"`` or ``"svg"``, ``watch``'s frames);
- ``test_toy_game.py``: the game through every part of the library.

The names in ``SPEC`` are ``"module:attribute"`` paths under this package's own name, imported
on first use: registering imports none of the game's code.
"""

from __future__ import annotations

from tabletop_envs.core.registration import EnvSpec
from tabletop_envs.envs import registry

SPEC = EnvSpec(
    name="pebbles_v0",
    game=f"{__name__}.rules:PebblesState",
    image=f"{__name__}.picture:drawing",
    description="Pebbles: take 1-3 pebbles in turn, secret bonus tokens; 2-3 players (a toy)",
    test_params=({}, {"num_players": 3, "pile": 9}),
    heuristics={"greedy": f"{__name__}.heuristics:score_actions"},
    moves=f"{__name__}.moves:SYNTAX",
    score_key="scores",
    gym_id="toy_game/Pebbles-v0",
    results=f"{__name__}.results:result_arrays",
)


def register() -> None:
    """Register Pebbles (and its Gymnasium id) unless this very spec already is."""
    if SPEC.name not in registry.registered_envs() or registry.env_spec(SPEC.name) != SPEC:
        registry.register(SPEC)  # ValueError if another env holds the name


def unregister() -> None:
    """Take Pebbles out of the registry (and Gymnasium's) again, if this spec is registered."""
    if SPEC.name in registry.registered_envs() and registry.env_spec(SPEC.name) == SPEC:
        registry.unregister(SPEC.name)


register()
