"""Seeded text traces of env play, shared by the golden-trace test, the regenerate script and
the cross-process determinism check.

A trace drives the PettingZoo AEC env with a seeded random policy
(``numpy.random.default_rng(seed)`` choosing uniformly among the masked actions) and records one
line per step::

    <step> <agent> a=<action> obs=<sha256 prefix>:<shape>:<dtype> mask=<legal ids>
        r=<rewards> t=<terminations>     (one line in the file)

``obs`` hashes every agent's observation (seat order) *before* the action, ``mask`` is the
acting agent's legal ids before the action (``3-7,9`` style), ``r`` and ``t`` are every agent's
``env.rewards`` and ``env.terminations`` after it. Run as a module to print digests as JSON::

    python -m tests.golden.tracing iris_v0 [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.envs.registry import env_spec, make, registered_envs

GOLDEN_DIR = Path(__file__).resolve().parent
#: Version of the trace text layout (bump if the line format changes; regenerate every file).
TRACE_FORMAT = 1
#: Seeds of the golden games of every (env, params) case.
GOLDEN_SEEDS = (0, 1, 2)
#: Hard stop for a runaway env (far above any declared ``max_game_length``).
STEP_LIMIT = 100_000


def params_slug(params: dict[str, Any]) -> str:
    """Return ``"board_size=8,auto_forced=True"`` (``"default"`` for no parameters)."""
    if not params:
        return "default"
    return ",".join(f"{k}={v}" for k, v in params.items())


def case_id(name: str, params: dict[str, Any]) -> str:
    """Return the test id of a case: ``iris_v0`` or ``iris_v0[board_size=8]``."""
    return name if not params else f"{name}[{params_slug(params)}]"


def all_cases() -> list[tuple[str, dict[str, Any]]]:
    """Return every (registered env, parameter set of its ``test_params``)."""
    return [(name, dict(p)) for name in registered_envs() for p in env_spec(name).test_params]


def golden_path(name: str, params: dict[str, Any]) -> Path:
    """Return the golden trace file of a case."""
    return GOLDEN_DIR / f"{name}__{params_slug(params)}.txt"


def compact_ids(ids: Iterable[int]) -> str:
    """Return ascending ids as ranges: ``[3, 4, 5, 9]`` -> ``"3-5,9"`` (``"-"`` if empty)."""
    parts: list[str] = []
    ids = list(ids)
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return ",".join(parts) or "-"


def obs_digest(observations: Sequence[np.ndarray]) -> str:
    """Return a sha256 prefix of the arrays' bytes plus the first one's shape and dtype."""
    h = hashlib.sha256()
    for obs in observations:
        arr = np.ascontiguousarray(obs)
        h.update(f"{arr.shape}{arr.dtype.str}".encode())
        h.update(arr.tobytes())
    first = np.asarray(observations[0])
    shape = "x".join(str(d) for d in first.shape)
    return f"{h.hexdigest()[:16]}:{shape}:{first.dtype}"


def _num(x: float) -> str:
    return repr(float(x))


def trace_game(env: Any, seed: int, *, env_seed: int | None = None) -> list[str]:
    """Play one game of ``env`` (reset with ``env_seed``, default ``seed``); return its lines."""
    policy = np.random.default_rng(seed)
    env.reset(seed=seed if env_seed is None else env_seed)
    agents = list(env.possible_agents)
    lines = [f"# game seed={seed}"]
    step = 0
    while not all(env.terminations[a] or env.truncations[a] for a in env.agents):
        agent = env.agent_selection
        obs = [env.observe(a) for a in agents]
        mask = obs[agents.index(agent)]["action_mask"]
        legal = np.flatnonzero(mask)
        action = int(legal[policy.integers(len(legal))])
        env.step(action)
        rewards = ",".join(_num(env.rewards.get(a, 0.0)) for a in agents)
        terms = "".join("1" if env.terminations.get(a, False) else "0" for a in agents)
        lines.append(
            f"{step} {agent} a={action} obs={obs_digest([o['observation'] for o in obs])} "
            f"mask={compact_ids(legal.tolist())} r={rewards} t={terms}"
        )
        step += 1
        if step > STEP_LIMIT:
            raise RuntimeError(f"{env}: game of seed {seed} did not end in {STEP_LIMIT} steps")
    final = [env.observe(a)["observation"] for a in agents]
    lines.append(f"end steps={step} obs={obs_digest(final)}")
    return lines


def trace_lines(
    name: str, params: dict[str, Any], seeds: Sequence[int] = GOLDEN_SEEDS
) -> list[str]:
    """Return the full trace text (header + one block per seed) of a case."""
    env = make(name, **params)
    lines = [
        f"# golden trace of {case_id(name, params)}, format {TRACE_FORMAT}",
        f"# regenerate: python tests/golden/regenerate.py --env {name}",
        "# step agent action obs-digest(all agents, before) mask(before) rewards terminations",
    ]
    for seed in seeds:
        lines.extend(trace_game(env, seed))
    return lines


def digest(lines: Iterable[str]) -> str:
    """Return the sha256 of trace lines."""
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def case_digests(name: str, seeds: Sequence[int]) -> dict[str, list[str]]:
    """Return ``{case id: [digest of each seed's game]}`` for every parameter set of ``name``."""
    out = {}
    for params in env_spec(name).test_params:
        env = make(name, **params)
        out[case_id(name, params)] = [digest(trace_game(env, s)) for s in seeds]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print the trace digests of one env's cases as JSON (used across processes)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(GOLDEN_SEEDS))
    args = parser.parse_args(argv)
    json.dump(case_digests(args.env, args.seeds), sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
