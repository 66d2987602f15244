"""Agent specs are untrusted: random names, options and values (nan, inf, huge, empty, commas).

``make_agent(spec, env, seed)`` either refuses with a ``ValueError`` (``InvalidParameterError``
for a bad option; ``FileNotFoundError`` for a model file that is not there, Python's convention)
whose message stays short, or builds an agent that then plays a legal move. The slow run tries a
few thousand specs (``python -m pytest -q -m slow tests/trust/test_trust_agent_specs.py``).
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.envs.registry import registered_envs
from tests.conformance.cases import new_game, random_action
from tests.trust.hostile_inputs import (
    CI_EXAMPLES,
    NUMBERS,
    SLOW_EXAMPLES,
    TRICKY_TEXT,
    check_message,
    run_settings,
    time_limit,
)

#: Agents that load no torch model (sb3 and rllib specs name missing files only: loading a real
#: model needs the train extra and is tested with the training layer).
NAMES = ["random", "greedy", "planner", "mcts", "az", "expert", "sb3", "rllib"]
OPTIONS = [
    "iterations",
    "exploration",
    "c",
    "playout",
    "rollout",
    "simulations",
    "playout_weight",
    "threads",
    "sample",
    "deterministic",
]
EXPERT_FILE = str(files("tabletop_envs.agents") / "experts" / "iris_v0.npz")
BOOLS = st.booleans()
#: Largest search budget played for a move (a bigger valid one is built, not played).
PLAYED_BUDGET = 64


def _value_text(value: Any) -> str:
    """Return ``value`` as it would be typed (an int past the text limit as digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**4000:
        return "9" * 5000
    return str(value) if not isinstance(value, str) else value


VALUES = st.one_of(
    NUMBERS.map(_value_text),
    st.integers(0, 80).map(str),
    st.sampled_from(["random", "greedy", "planner", "nope", "0.5", "1", "0", "-0.0", "1e-300"]),
    TRICKY_TEXT,
)


#: The options of each agent, and values they may well take (budgets small enough to play).
AGENT_OPTIONS = {
    "mcts": ["iterations", "exploration", "c", "playout"],
    "az": ["simulations", "c", "playout", "playout_weight"],
    "expert": ["simulations", "c", "playout", "playout_weight"],
}
PLAUSIBLE = {
    "iterations": ["1", "2", "8", "0"],
    "simulations": ["0", "1", "4"],
    "exploration": ["0", "0.5", "1.4", "1e-3"],
    "c": ["0", "0.5", "2"],
    "playout": ["random", "greedy", "planner"],
    "playout_weight": ["0", "0.5", "1"],
}


@st.composite
def specs(draw: st.DrawFn, plausible: bool) -> str:
    """An agent spec: a name (known or not), maybe a path, then options (known or not).

    A plausible spec has a known name and its own options with ordinary values.
    """
    names = st.sampled_from(NAMES)
    name = draw(names if plausible else st.one_of(names, st.text(max_size=6), TRICKY_TEXT))
    items = []
    if plausible and name == "az":
        items.append(EXPERT_FILE)
    elif name in ("az", "sb3", "rllib") or (name == "expert" and not plausible and draw(BOOLS)):
        paths = [EXPERT_FILE, "/missing/model.zip", "missing.npz", "", " ", "a=b"]
        items.append(draw(st.one_of(st.sampled_from(paths), st.text(max_size=8))))
    options = AGENT_OPTIONS.get(name, []) if plausible else OPTIONS
    for _ in range(draw(st.integers(0, 3)) if options else 0):
        if plausible:
            key, form = draw(st.sampled_from(options)), "k=v"
            value = draw(st.sampled_from(PLAUSIBLE[key]))
        else:
            key = draw(st.one_of(st.sampled_from(OPTIONS), st.text(max_size=5), TRICKY_TEXT))
            form = draw(st.sampled_from(["k=v", "k=v", "k", "=v", "k==v"]))
            value = draw(VALUES)
        items.append(form.replace("k", key, 1).replace("v", value, 1))
    if plausible:
        return name + (":" + ",".join(items) if items else "")
    separator = draw(st.sampled_from([":", ":", "", "::", ": "]))
    return name + (separator + ",".join(items) if items or draw(st.booleans()) else "")


ENV_NAMES = st.one_of(
    st.sampled_from(registered_envs()),
    st.sampled_from([*registered_envs(), None, "", "nope", "iris"]),
    TRICKY_TEXT,
    NUMBERS,
)
SEEDS = st.one_of(st.none(), st.integers(0, 2**64), st.integers(0, 2**64), NUMBERS)


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, Any, Any]:
    """A spec, an env name and a seed: half plausible (a registered env, a seed), half anything."""
    if draw(st.booleans()):
        env = draw(st.sampled_from(registered_envs()))
        return draw(specs(True)), env, draw(st.one_of(st.none(), st.integers(0, 2**64)))
    return draw(specs(False)), draw(ENV_NAMES), draw(SEEDS)


def _check_spec(spec: str, env_name: Any, seed: Any) -> str:
    """Make the agent; return "refused" or "played" (or "built" when its budget is large)."""
    try:
        with time_limit():
            agent = make_agent(spec, env_name, seed)
    except (ValueError, FileNotFoundError) as err:
        check_message(err)
        return "refused"
    assert isinstance(agent, Agent)
    budget = max(getattr(agent, "iterations", 0), getattr(agent, "simulations", 0))
    if budget > PLAYED_BUDGET or not isinstance(env_name, str) or env_name not in registered_envs():
        return "built"
    game = new_game(env_name, {}, 1)
    rng = np.random.default_rng(0)
    for _ in range(3):  # a position a few moves in, where more than one move is legal
        game.apply(random_action(game, rng))
    with time_limit():
        action = agent.act(game, game.current_player)
    assert game.legal_mask()[action] == 1, f"{spec} played illegal {action}"
    return "played"


def _run(examples: int) -> None:
    counts = {"refused": 0, "built": 0, "played": 0}

    @run_settings(examples)
    @given(cases())
    def check(case: tuple[str, Any, Any]) -> None:
        counts[_check_spec(*case)] += 1

    check()
    print(counts)


@pytest.mark.parametrize(
    ("spec", "env_name", "seed"),
    [
        ("mcts:c=nan", "iris_v0", 1),
        ("mcts:c=inf", "iris_v0", 1),
        ("mcts:exploration=-inf", "iris_v0", 1),
        ("mcts:iterations=" + "9" * 5000, "iris_v0", 1),
        ("mcts:c=" + "[" * 100_000, "iris_v0", 1),
        ("mcts:playout=" + "x" * 2_000_000, "iris_v0", 1),
        ("x" * 2_000_000, "iris_v0", 1),
        ("random", "x" * 2_000_000, 1),
        ("random", "nope", 1),
        ("random", 5, 1),
        ("random", "iris_v0", -1),
        ("random", "iris_v0", 1.5),
        ("random", "iris_v0", True),
        ("expert:simulations=nan", "iris_v0", 1),
        ("expert:playout_weight=inf", "iris_v0", 1),
        ("expert", None, 1),
        ("sb3:/missing.zip", "iris_v0", 1),
        ("sb3:" + "x" * 100_000, "iris_v0", 1),
        ("rllib:/missing", "iris_v0", 1),
    ],
)
def test_named_bad_specs_are_refused_briefly(spec: str, env_name: Any, seed: Any) -> None:
    assert _check_spec(spec, env_name, seed) == "refused"


def test_generated_specs_are_refused_or_play() -> None:
    _run(CI_EXAMPLES * 2)


@pytest.mark.slow
def test_generated_specs_slow() -> None:
    _run(SLOW_EXAMPLES)
