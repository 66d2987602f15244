"""Random-play throughput of every registered env, side by side with PettingZoo and OpenSpiel.

Run from the repository root::

    python benchmarks/bench.py                     # every registered env + references
    python benchmarks/bench.py --seconds 10 --env iris_v0 --json out.json

Every subject plays uniformly random legal moves with the SAME procedure: a seeded
``random.Random`` picks an index into the array of legal action ids and the chosen id is passed
on as a Python ``int``. The legal ids are ``mask.nonzero()[0]`` for mask-based envs (the same
array as ``np.flatnonzero(mask)`` without that function's Python-level wrapper; ``--chooser
flatnonzero`` uses the wrapper) and ``legal_actions()`` for OpenSpiel. Subjects run round-robin
in short timed slices (the machine is shared and noisy); each subject's figure is the median of
its per-round steps/s, timed by this process's CPU time (``--clock wall`` for elapsed time). A
*step* is one ``step()`` call (dead steps of finished agents included) or one ``apply`` call on a
bare core; resets and game set-ups are timed too.

Subjects:

* ``NAME env()``: ``tabletop_envs.make(NAME)``, the usual ``agent_iter()`` / ``last()`` /
  ``step()`` loop, reading the observation and the mask at every step;
* ``NAME raw_env()``: the same through ``make(NAME, illegal_action="raise")``;
* ``NAME core``: the bare rules core, ``legal_mask()`` + choice + ``apply``;
* ``connect_four_v3 env()``, ``go_v5(9) env()`` (PettingZoo classic, needs pygame),
  ``havannah(5) core`` (OpenSpiel ``legal_actions()`` + ``apply_action``, needs pyspiel) and
  ``go(9) core + obs`` (OpenSpiel ``go(board_size=9)``: ``observation_tensor()`` of the player
  to move, then ``legal_actions()`` + ``apply_action``, at every step) and ``go(9) core + obs
  array`` (the same, the observation converted with ``np.asarray(..., dtype=np.float32)``:
  OpenSpiel returns a Python list of floats, the library's envs a numpy array).

The targets (ratios between two subjects) are data below; one whose subjects did not run is
reported as skipped.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

import tabletop_envs
from tabletop_envs.core.config import Config, parse_command, quote, setting
from tabletop_envs.evaluation.paths import file_problem

#: Steps played between two looks at the clock.
CHUNK = 32


@dataclass(frozen=True)
class Target:
    """``subject`` must reach ``factor`` times the steps/s of ``reference``."""

    subject: str
    reference: str
    factor: float


TARGETS = (
    Target("iris_v0 env()", "connect_four_v3 env()", 10.0),
    Target("iris_v0 core", "havannah(5) core", 0.25),
    Target("isis_osiris_v0 env()", "connect_four_v3 env()", 10.0),
    Target("isis_osiris_v0 core", "havannah(5) core", 0.25),
    Target("irk_v0 env()", "go_v5(9) env()", 1.0),
    Target("irk_v0 env()", "go(9) core + obs", 1.0),
    # the same reference with its observation as a numpy array, as the envs return theirs
    Target("irk_v0 env()", "go(9) core + obs array", 1.0),
)

#: Parameters of the registered envs in the benchmark (default parameters otherwise).
ENV_PARAMS: dict[str, dict[str, Any]] = {
    "isis_osiris_v0": {"num_players": 2},
    "irk_v0": {"num_players": 2},
}


# ---- the random player, one procedure for everyone -----------------------------------------
def aec_steps(make_env: Callable[[], Any], seed: int, flat: bool) -> Iterator[int]:
    """Play random legal moves through the AEC loop forever, yielding every CHUNK steps."""
    env = make_env()
    rnd = random.Random(seed)
    flatnonzero = np.flatnonzero
    randrange = rnd.randrange
    env.reset(seed=seed)
    n = 0
    while True:
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                action = None
            else:
                mask = obs["action_mask"]
                legal = flatnonzero(mask) if flat else mask.nonzero()[0]
                action = int(legal[randrange(len(legal))])
            env.step(action)
            n += 1
            if n == CHUNK:
                yield n
                n = 0
        env.reset()


def core_steps(name: str, params: dict[str, Any], seed: int, flat: bool) -> Iterator[int]:
    """Play random legal moves on the bare core of a registered env, yielding every CHUNK."""
    probe = tabletop_envs.make(name, **params)
    game_class, game_params = probe.game_class, probe.params
    rnd = random.Random(seed)
    seeds = np.random.default_rng(seed)
    flatnonzero = np.flatnonzero
    randrange = rnd.randrange
    n = 0
    while True:
        game = game_class(game_params, int(seeds.integers(2**63)))
        while not game.is_terminal:
            mask = game.legal_mask()
            legal = flatnonzero(mask) if flat else mask.nonzero()[0]
            game.apply(int(legal[randrange(len(legal))]))
            n += 1
            if n == CHUNK:
                yield n
                n = 0


def openspiel_steps(
    game_string: str, seed: int, observe: bool = False, as_array: bool = False
) -> Iterator[int]:
    """Play random legal moves on an OpenSpiel game, yielding every CHUNK steps (with
    ``observe``, reading the mover's ``observation_tensor()`` before every move; with
    ``as_array`` too, converting it to a float32 numpy array)."""
    import pyspiel

    game = pyspiel.load_game(game_string)
    rnd = random.Random(seed)
    randrange = rnd.randrange
    asarray, float32 = np.asarray, np.float32
    n = 0
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if as_array:
                asarray(state.observation_tensor(), dtype=float32)
            elif observe:
                state.observation_tensor()
            legal = state.legal_actions()
            state.apply_action(int(legal[randrange(len(legal))]))
            n += 1
            if n == CHUNK:
                yield n
                n = 0


# ---- subjects --------------------------------------------------------------------------------
def build_subjects(env_filter: list[str] | None, seed: int, flat: bool) -> tuple[dict, list[str]]:
    """Return ``{label: steps iterator}`` and the messages about skipped subjects."""
    subjects: dict[str, Iterator[int]] = {}
    skipped: list[str] = []
    for name in tabletop_envs.registered_envs():
        if env_filter and not any(f in (name, name.rsplit("_v", 1)[0]) for f in env_filter):
            continue
        params = ENV_PARAMS.get(name, {})

        def env_factory(name: str = name, params: dict = params) -> Any:
            return tabletop_envs.make(name, **params)

        def raw_factory(name: str = name, params: dict = params) -> Any:
            return tabletop_envs.make(name, illegal_action="raise", **params)

        subjects[f"{name} env()"] = aec_steps(env_factory, seed, flat)
        subjects[f"{name} raw_env()"] = aec_steps(raw_factory, seed, flat)
        subjects[f"{name} core"] = core_steps(name, params, seed, flat)
    try:
        from pettingzoo.classic import connect_four_v3, go_v5

        subjects["connect_four_v3 env()"] = aec_steps(connect_four_v3.env, seed, flat)
        subjects["go_v5(9) env()"] = aec_steps(lambda: go_v5.env(board_size=9), seed, flat)
    except ImportError as err:  # pygame missing
        skipped.append(f"PettingZoo classic references skipped ({err})")
    try:
        import pyspiel  # noqa: F401

        subjects["havannah(5) core"] = openspiel_steps("havannah(board_size=5)", seed)
        subjects["go(9) core + obs"] = openspiel_steps("go(board_size=9)", seed, observe=True)
        subjects["go(9) core + obs array"] = openspiel_steps(
            "go(board_size=9)", seed, observe=True, as_array=True
        )
    except ImportError as err:
        skipped.append(f"OpenSpiel reference skipped ({err})")
    # Start every subject now (imports, first reset) so that set-up is not timed.
    for it in subjects.values():
        next(it)
    return subjects, skipped


def measure(
    subjects: dict[str, Iterator[int]], seconds: float, rounds: int, clock_name: str
) -> dict[str, list]:
    """Run the subjects round-robin; return each one's steps/s per round."""
    per_round = seconds / rounds
    rates: dict[str, list[float]] = {label: [] for label in subjects}
    clock = CLOCKS[clock_name]
    for r in range(rounds):
        order = list(subjects.items())
        if r % 2:  # alternate the order so no subject always follows the same neighbour
            order.reverse()
        for label, it in order:
            steps = 0
            start = clock()
            deadline = start + per_round
            while True:
                steps += next(it)
                now = clock()
                if now >= deadline:
                    break
            rates[label].append(steps / (now - start))
    return rates


#: ``cpu``: this process's CPU time, which a shared machine's other loads disturb much less than
#: the wall clock (time spent descheduled is not counted); ``wall``: elapsed time.
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


# ---- machine facts ----------------------------------------------------------------------------
def machine_info() -> dict[str, Any]:
    """Return the facts of the machine and the numpy build that the figures depend on."""
    info: dict[str, Any] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "OPENBLAS_L2_SIZE": os.environ.get("OPENBLAS_L2_SIZE"),
        "blas": blas_kernel(),
        "numpy_simd": numpy_simd(),
    }
    for module in ("pettingzoo", "gymnasium", "pyspiel"):
        try:
            mod = __import__(module)
            info[module] = getattr(mod, "__version__", "?")
        except ImportError:
            info[module] = None
    with contextlib.suppress(OSError):
        info["load_average"] = os.getloadavg()
    return info


def numpy_simd() -> str:
    """Return numpy's compiled-in SIMD baseline and the dispatch targets this CPU runs."""
    try:
        from numpy._core._multiarray_umath import (
            __cpu_baseline__,
            __cpu_dispatch__,
            __cpu_features__,
        )
    except ImportError:
        return "unknown"
    running = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    return f"baseline {' '.join(__cpu_baseline__)}; dispatched {' '.join(running) or 'none'}"


def blas_kernel() -> str:
    """Return which BLAS library and kernel numpy runs (threadpoolctl if installed)."""
    try:
        from threadpoolctl import threadpool_info

        found = [
            f"{d.get('internal_api')} {d.get('version')} {d.get('architecture')} "
            f"({d.get('num_threads')} threads)"
            for d in threadpool_info()
            if d.get("user_api") == "blas"
        ]
        if found:
            return "; ".join(found)
    except ImportError:
        pass
    try:  # numpy wheels ship scipy-openblas: ask it directly
        import ctypes
        import glob

        for path in glob.glob(os.path.join(os.path.dirname(np.__path__[0]), "numpy.libs", "*")):
            if "openblas" in os.path.basename(path):
                lib = ctypes.CDLL(path)
                for symbol in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename"):
                    fn = getattr(lib, symbol, None)
                    if fn is not None:
                        fn.restype = ctypes.c_char_p
                        return f"openblas {fn().decode()}"
    except OSError:
        pass
    return "unknown (install threadpoolctl to see it)"


# ---- report -----------------------------------------------------------------------------------
def report(rates: dict[str, list[float]], info: dict[str, Any], skipped: list[str]) -> dict:
    """Print the table and the targets; return everything as JSON-ready data."""
    median = {label: statistics.median(r) for label, r in rates.items()}
    print(f"python {info['python']}, numpy {info['numpy']} ({info['numpy_simd']})")
    print(f"BLAS {info['blas']} (reported for completeness: no measured loop calls BLAS)")
    print(
        f"OPENBLAS_CORETYPE={info['OPENBLAS_CORETYPE']} "
        f"OPENBLAS_L2_SIZE={info['OPENBLAS_L2_SIZE']}, {info['cpus']} cpus, "
        f"load average {' '.join(f'{x:.1f}' for x in info.get('load_average', ()))}"
    )
    for message in skipped:
        print(message)
    print()
    print(f"{'subject':<28} {'steps/s':>10} {'min':>10} {'max':>10}")
    for label, r in rates.items():
        print(f"{label:<28} {median[label]:>10,.0f} {min(r):>10,.0f} {max(r):>10,.0f}")
    print()
    results = []
    for t in TARGETS:
        if t.subject not in median or t.reference not in median:
            print(f"skip  {t.subject} / {t.reference} (not measured)")
            results.append({**t.__dict__, "ratio": None, "status": "skip"})
            continue
        ratio = median[t.subject] / median[t.reference]
        status = "PASS" if ratio >= t.factor else "FAIL"
        print(f"{status}  {t.subject} / {t.reference} = {ratio:.2f}x (target >= {t.factor:g}x)")
        results.append({**t.__dict__, "ratio": ratio, "status": status})
    return {
        "machine": info,
        "steps_per_second": median,
        "rounds": rates,
        "targets": results,
        "skipped": skipped,
    }


def known_envs(names: tuple[str, ...] | None) -> str | None:
    """Problem text unless every name is a registered env, in full or short (``iris``)."""
    registered = tabletop_envs.registered_envs()
    known = {*registered, *(name.rsplit("_v", 1)[0] for name in registered)}
    unknown = [name for name in names or () if name not in known]
    if unknown:
        return f"names an unknown env {quote(unknown[0])}; registered: {', '.join(registered)}"
    return None


@dataclass
class BenchConfig(Config):
    """The command line of ``bench.py`` and ``tabletop-envs bench``."""

    seconds: float = setting(
        5.0,
        high=3600,
        check=lambda s: None if s > 0 else "must be above 0",
        help="timed seconds per subject",
    )
    rounds: int = setting(7, low=1, high=1000, help="round-robin rounds the time is split into")
    env: tuple[str, ...] | None = setting(
        None,
        repeat=True,
        check=known_envs,
        help="only this registered env (e.g. iris_v0 or iris); references always run",
    )
    clock: str = setting(
        "cpu",
        choices=sorted(CLOCKS),
        help="cpu: process CPU time (steadier on a shared machine); wall: elapsed time",
    )
    chooser: str = setting(
        "nonzero",
        choices=("nonzero", "flatnonzero"),
        help="legal ids of a mask: mask.nonzero()[0] or np.flatnonzero(mask)",
    )
    seed: int = setting(0, low=0, help="seed of every random player")
    json: str | None = setting(
        None, check=file_problem, metavar="PATH", help="also write the results as JSON"
    )


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Parse the options, run the benchmark, print it; exit 1 if a target failed."""
    # before anything is measured
    args, _ = parse_command(BenchConfig, argv, prog=prog, description=__doc__.split("\n")[0])
    subjects, skipped = build_subjects(args.env, args.seed, args.chooser == "flatnonzero")
    rates = measure(subjects, args.seconds, args.rounds, args.clock)
    data = report(rates, machine_info(), skipped)
    data["command"] = " ".join(
        ["python benchmarks/bench.py", *(sys.argv[1:] if argv is None else argv)]
    )
    data["options"] = args.to_dict()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=2)
    return 1 if any(t["status"] == "FAIL" for t in data["targets"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
