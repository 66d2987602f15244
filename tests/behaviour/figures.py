"""The figures of ``baseline.json``: how each is computed, shared by the recorder and the test.

Only the stable public entry points are used, so that these figures can be recomputed after the
search / evaluation / training layers move:

- ``tabletop_envs.envs.registry.env_spec(name).load_game().new(seed=..., **params)`` for core
  states (``legal_actions``, ``apply``, ``clone``, ``current_player``, ``is_terminal``);
- ``tabletop_envs.agents.make_agent(spec, env_name, seed=...)`` and the agent's ``.act``;
- ``tabletop_envs.cli.main([...])`` for ``evaluate ... --json`` and ``train ...``.

Every figure is plain JSON (ints, floats, strings, lists, dicts), so the baseline compares with
``==`` after a ``json`` round trip.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import tempfile
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

BASELINE = Path(__file__).with_name("baseline.json")

#: The commit whose behaviour the baseline records.
BASELINE_COMMIT = "52f5a9c"

# ---- a. the moves of each agent on seeded positions ------------------------------------------

#: (env, game parameters) of the move figures.
ENV_CASES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("iris_v0", {}),
    ("isis_osiris_v0", {}),
    ("irk_v0", {}),
    ("isis_osiris_v0", {"num_players": 3}),
    ("irk_v0", {"num_players": 3}),
)

#: Where the positions are taken, as fractions of the length of the seeded random game.
POSITION_FRACTIONS = (0.0, 0.15, 0.3, 0.5, 0.7, 0.85)

#: The ``az:`` spec, ``{net}`` standing for the env's packaged network file (the key recorded).
AZ_SPEC = "az:{net},rollout=0.5,playout=greedy,simulations=8"


def case_key(env_name: str, params: dict[str, Any]) -> str:
    """Return ``iris_v0`` or ``irk_v0:num_players=3``: the key of a case in the baseline."""
    if not params:
        return env_name
    return env_name + ":" + ",".join(f"{k}={v}" for k, v in sorted(params.items()))


def agent_specs(env_name: str, params: dict[str, Any]) -> list[str]:
    """Return the agent specs whose moves are recorded for this case (``AZ_SPEC`` unexpanded).

    The packaged networks (``expert``, ``az:``) are made for 2 players and refuse 3-player
    positions (ValueError: "made for other parameters"), so they play the 2-player cases only.
    """
    specs = ["greedy"]
    if env_name == "irk_v0":
        specs.append("planner")
    specs += ["mcts:iterations=60", "mcts:iterations=30,rollout=greedy"]
    if params.get("num_players", 2) == 2:
        specs += ["expert", "expert:simulations=16", AZ_SPEC]
    return specs


def _game_class(env_name: str) -> Any:
    from tabletop_envs.envs.registry import env_spec

    return env_spec(env_name).load_game()


def _random_moves(game: Any, rng: np.random.Generator, count: int | None) -> None:
    """Apply ``count`` uniformly drawn legal moves (``None``: until the game ends)."""
    done = 0
    while not game.is_terminal and (count is None or done < count):
        legal = game.legal_actions()
        game.apply(int(legal[int(rng.integers(len(legal)))]))
        done += 1


def position(env_name: str, params: dict[str, Any], index: int) -> tuple[int, Any]:
    """Return ``(seed, state)``: position ``index`` of a case.

    The game dealt from ``seed`` is played by uniform random moves from
    ``numpy.random.default_rng(seed)``; the position is taken at ``POSITION_FRACTIONS[index]`` of
    that game's length, moved on (same random stream) past positions with a single legal move.
    """
    cls = _game_class(env_name)
    seed = 1000 * ENV_CASES.index((env_name, params)) + index
    full = cls.new(seed=seed, **params)
    _random_moves(full, np.random.default_rng(seed), None)
    plies = int(POSITION_FRACTIONS[index] * len(full.actions))
    game = cls.new(seed=seed, **params)
    rng = np.random.default_rng(seed)
    _random_moves(game, rng, plies)
    while not game.is_terminal and len(game.legal_actions()) < 2:
        _random_moves(game, rng, 1)
    if game.is_terminal:
        raise AssertionError(f"{case_key(env_name, params)} position {index} is terminal")
    return seed, game


def packaged_network(env_name: str) -> Path:
    """Return the path of the network packaged for ``env_name`` (what ``expert`` plays).

    Looked up where the package keeps it today (``tabletop_envs/agents/experts/``), else
    anywhere under the package's folder: the file is the same network if its arrays hash the
    same (``network_hashes``, recorded in the baseline).
    """
    import tabletop_envs

    name = f"{env_name}.npz"
    with contextlib.suppress(ModuleNotFoundError):
        today = files("tabletop_envs.agents") / "experts" / name
        if today.is_file():
            return Path(str(today))
    root = Path(tabletop_envs.__file__).parent
    found = sorted(root.rglob(name))
    if not found:
        raise FileNotFoundError(f"no packaged network {name} under {root}")
    return found[0]


def npz_hashes(path: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Return ``{name: "dtype shape sha256"}`` of the arrays of an ``.npz`` (not its zip bytes)."""
    out = {}
    with np.load(path, allow_pickle=False) as data:
        for name in sorted(data.files):
            if name in skip:
                continue
            array = np.ascontiguousarray(data[name])
            digest = hashlib.sha256(array.tobytes()).hexdigest()
            out[name] = f"{array.dtype.str} {list(array.shape)} {digest}"
    return out


def array_summary(array: np.ndarray) -> list[Any]:
    """Return ``["dtype shape", sum, sum |x|, sum x^2, sum i*x]`` of an array, as floats.

    Computed arrays (trained weights, a replay buffer) are summarised rather than hashed: the
    last bits of float32 arithmetic depend on the CPU (BLAS kernels for AVX2 and AVX-512 round
    differently), so they are compared within a tolerance (:func:`compare`). The index-weighted
    sum catches values that move between positions.
    """
    flat = np.asarray(array, dtype=np.float64).reshape(-1)
    index = np.arange(flat.size, dtype=np.float64) / max(flat.size, 1)
    return [
        f"{array.dtype.str} {list(array.shape)}",
        float(flat.sum()),
        float(np.abs(flat).sum()),
        float((flat * flat).sum()),
        float((flat * index).sum()),
    ]


def npz_summaries(path: Path, skip: tuple[str, ...] = ()) -> dict[str, list[Any]]:
    """Return ``{name: array_summary(array)}`` of the arrays of an ``.npz``."""
    with np.load(path, allow_pickle=False) as data:
        return {name: array_summary(data[name]) for name in sorted(data.files) if name not in skip}


#: Tolerances of :func:`compare` for floats: numbers computed in float32 on another CPU.
REL_TOL, ABS_TOL = 1e-4, 1e-6


def compare(new: Any, old: Any, path: str = "", limit: int = 12) -> list[str]:
    """Return up to ``limit`` lines ``path: recorded -> now`` where ``new`` and ``old`` differ.

    Everything compares exactly (keys, strings, ints, bools, list lengths, hashes) except two
    floats, which agree when ``math.isclose(new, old, rel_tol=REL_TOL, abs_tol=ABS_TOL)``.
    """
    out: list[str] = []

    def walk(n: Any, o: Any, at: str) -> None:
        if len(out) >= limit or n == o:
            return
        if isinstance(n, dict) and isinstance(o, dict):
            for key in list(o) + [k for k in n if k not in o]:
                walk(n.get(key, "<missing>"), o.get(key, "<missing>"), f"{at}.{key}")
        elif isinstance(n, list) and isinstance(o, list) and len(n) == len(o):
            for i, (a, b) in enumerate(zip(n, o, strict=True)):
                walk(a, b, f"{at}[{i}]")
        elif (
            isinstance(n, float)
            and isinstance(o, float)
            and math.isclose(n, o, rel_tol=REL_TOL, abs_tol=ABS_TOL)
        ):
            return
        else:
            out.append(f"{at or '.'}: recorded {o!r} -> now {n!r}")

    walk(new, old, path)
    return out


def network_hashes() -> dict[str, dict[str, str]]:
    """Return the weight hashes of the packaged networks the ``az:`` and ``expert`` moves use.

    The ``meta`` entry is left out: it echoes the training command, which names modules; the
    defaults it sets (simulations, playouts) show in the ``expert`` moves.
    """
    envs = sorted({env for env, params in ENV_CASES if params.get("num_players", 2) == 2})
    return {env: npz_hashes(packaged_network(env), skip=("meta",)) for env in envs}


def position_moves(env_name: str, params: dict[str, Any], index: int) -> dict[str, Any]:
    """Return the figures of one position: how it was reached and each agent's move there.

    Each agent is built fresh by ``make_agent(spec, env_name, seed=seed + 17)`` and acts on its
    own copy of the position.
    """
    from tabletop_envs.agents import make_agent

    seed, game = position(env_name, params, index)
    seat = game.current_player
    moves: dict[str, int] = {}
    for key in agent_specs(env_name, params):
        spec = key.format(net=packaged_network(env_name)) if key == AZ_SPEC else key
        agent = make_agent(spec, env_name, seed=seed + 17)
        moves[key] = int(agent.act(game.clone(), seat))
    return {
        "seed": seed,
        "actions": [int(a) for a in game.actions],
        "seat": int(seat),
        "legal": len(game.legal_actions()),
        "moves": moves,
    }


def case_moves(env_name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Return :func:`position_moves` of every position of a case."""
    return [position_moves(env_name, params, i) for i in range(len(POSITION_FRACTIONS))]


# ---- b. arena tables through the command line ------------------------------------------------

#: name -> ``evaluate`` arguments (``--json`` and ``--quiet`` are added).
ARENAS: dict[str, list[str]] = {
    "iris_greedy_vs_mcts20": [
        "--env", "iris_v0",
        "--agents", "greedy", "mcts:iterations=20", "--games", "20", "--seed", "5",
    ],
    "iris3_random_vs_mcts20_greedy_rollouts": [
        "--env", "iris_v0", "--param", "board_size=3",
        "--agents", "random", "mcts:iterations=20,rollout=greedy", "--games", "10",
        "--seed", "2",
    ],
    "isis_osiris3p_random_greedy_random": [
        "--env", "isis_osiris_v0", "--param", "num_players=3",
        "--agents", "random", "greedy", "random", "--games", "12", "--seed", "3",
    ],
    "irk_planner_vs_greedy": [
        "--env", "irk_v0", "--agents", "planner", "greedy", "--games", "10", "--seed", "4",
    ],
    "isis_osiris_expert4_vs_greedy": [
        "--env", "isis_osiris_v0",
        "--agents", "expert:simulations=4", "greedy", "--games", "4", "--seed", "6",
    ],
}  # fmt: skip

#: Keys of the arena JSON that are clock readings, not results.
TIMING_KEYS = ("seconds_per_move",)


def drop_keys(value: Any, drop: Any) -> Any:
    """Return ``value`` without the dict entries whose key ``drop(key)`` is true, recursively."""
    if isinstance(value, dict):
        return {k: drop_keys(v, drop) for k, v in value.items() if not drop(k)}
    if isinstance(value, list):
        return [drop_keys(v, drop) for v in value]
    return value


def cli(argv: list[str]) -> str:
    """Run ``tabletop_envs.cli.main(argv)``; return its stdout, raise if its exit code is not 0."""
    from tabletop_envs.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    if code != 0:
        raise RuntimeError(f"{argv} exited with {code}:\n{out.getvalue()}\n{err.getvalue()}")
    return out.getvalue()


@contextlib.contextmanager
def _folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="tabletop_behaviour_") as name:
        yield Path(name)


def arena(name: str) -> dict[str, Any]:
    """Return the ``evaluate --json`` result of arena ``name`` without its timing fields."""
    with _folder() as folder:
        path = folder / "arena.json"
        cli(["evaluate", *ARENAS[name], "--quiet", "--json", str(path)])
        result = json.loads(path.read_text())
    return drop_keys(result, lambda key: key in TIMING_KEYS)


# ---- c. a CI-sized AlphaZero-style training run ----------------------------------------------

AZ_TRAIN = [
    "train", "--algo", "az", "--env", "iris_v0", "--env-arg", "board_size=3",
    "--hidden", "16,16", "--games", "4", "--simulations", "4", "--iterations", "2",
    "--batch-size", "32", "--eval-every", "1", "--eval-games", "4", "--eval-simulations", "2",
    "--final-eval-games", "4", "--rollout-weight", "0.25", "--opponent", "greedy",
    "--warm-start", "greedy", "--warm-games", "6", "--warm-epochs", "1", "--keep-best",
    "--seed", "3", "--threads", "1", "--no-progress",
]  # fmt: skip


def _is_run_detail(key: str) -> bool:
    """Keys of a results file that are not results: clock readings, paths, the echoed config."""
    return (
        "seconds" in key
        or key.endswith(("_per_s", "_per_cpu_s"))
        or key in ("config", "model", "checkpoint", "out", "path")
    )


def az_training() -> dict[str, Any]:
    """Run :data:`AZ_TRAIN` into a temporary folder; return its array summaries and results.

    ``model`` summarises the exported network's arrays (:func:`array_summary`; its ``meta``
    entry is recorded as data, without ``trained``, which echoes the command and output
    folder), ``buffer`` the replay buffer's arrays, ``results`` is ``results.json`` without
    timing, paths and config.
    """
    with _folder() as folder:
        cli([*AZ_TRAIN, "--out", str(folder)])
        with np.load(folder / "model.npz", allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
        meta.pop("trained", None)
        figures = {
            "model": npz_summaries(folder / "model.npz", skip=("meta",)),
            "model_meta": meta,
            "buffer": npz_summaries(folder / "buffer.npz"),
            "results": drop_keys(json.loads((folder / "results.json").read_text()), _is_run_detail),
        }
        if (folder / "best.npz").is_file():
            figures["best"] = npz_summaries(folder / "best.npz", skip=("meta",))
    return figures


# ---- d. a CI-sized MaskablePPO run ------------------------------------------------------------

PPO_TRAIN = [
    "train", "--env", "iris_v0", "--env-arg", "board_size=3", "--timesteps", "1024",
    "--n-envs", "2", "--n-steps", "256", "--batch-size", "64", "--n-epochs", "2",
    "--net-arch", "32,32", "--eval-every", "512", "--eval-games", "4", "--final-eval-games", "8",
    "--final-eval-opponents", "greedy", "--imitate", "greedy", "--imitate-episodes", "4",
    "--imitate-epochs", "1", "--seed", "7", "--threads", "1", "--no-progress",
]  # fmt: skip


def ppo_training() -> dict[str, Any]:
    """Run :data:`PPO_TRAIN` into a temporary folder; return its summaries and evaluation figures.

    ``policy`` summarises the saved model's ``policy.state_dict()`` tensors in order, ``results`` is
    ``results.json`` without timing, paths and config.
    """
    from sb3_contrib import MaskablePPO

    with _folder() as folder:
        cli([*PPO_TRAIN, "--out", str(folder)])
        model = MaskablePPO.load(folder / "model.zip", device="cpu")
        policy = {}
        for name, tensor in model.policy.state_dict().items():
            policy[name] = array_summary(tensor.detach().cpu().numpy())
        results = drop_keys(json.loads((folder / "results.json").read_text()), _is_run_detail)
    return {"policy": policy, "results": results}


# ---- everything ----------------------------------------------------------------------------


def record() -> dict[str, Any]:
    """Return every figure of the baseline (what ``record_baseline.py`` writes)."""
    return {
        "commit": BASELINE_COMMIT,
        "recorded_with": versions(),
        "networks": network_hashes(),
        "moves": {case_key(env, params): case_moves(env, params) for env, params in ENV_CASES},
        "arenas": {name: arena(name) for name in ARENAS},
        "az_training": az_training(),
        "ppo_training": ppo_training(),
    }


def versions() -> dict[str, str]:
    """Return the versions of Python and the libraries the figures depend on (for reports)."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in ("numpy", "torch", "stable-baselines3", "sb3-contrib"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def load_baseline() -> dict[str, Any]:
    """Return the recorded figures."""
    return json.loads(BASELINE.read_text())


def as_json(value: Any) -> Any:
    """Return ``value`` after a JSON round trip (tuples become lists, as in the baseline)."""
    return json.loads(json.dumps(value))


#: Keys of results files renamed since the baseline (issue 20, one word for one thing: a
#: playout's policy and weight were both called "rollout"). Only the name changed: the value
#: under the new key is compared with the recorded one.
RENAMED_KEYS = {"rollout_weight": "playout_weight", "rollout_policy": "playout"}


def comparable(section: str, new: Any, old: Any) -> Any:
    """Return the figures of ``section`` as the test compares them with the recorded ``old``.

    The results files (each arena's, the training runs' ``results``) may gain entries
    (:func:`like`); every other figure is compared whole.
    """
    if section == "arenas" and isinstance(new, dict) and isinstance(old, dict):
        return {
            name: like(value, old[name]) if name in old else value for name, value in new.items()
        }
    if section in ("az_training", "ppo_training") and isinstance(old, dict) and "results" in old:
        return {**new, "results": like(new["results"], old["results"])}
    return new


def like(new: Any, old: Any) -> Any:
    """Return ``new`` restricted to the dict keys ``old`` has, recursively (results files).

    A results file may gain entries without changing a recorded figure; an entry the baseline
    has stays compared (a missing one shows as missing; a key of :data:`RENAMED_KEYS` is looked
    up under its new name).
    """
    if isinstance(new, dict) and isinstance(old, dict):
        out = {}
        for k in old:
            key = k if k in new else RENAMED_KEYS.get(k, k)
            out[k] = like(new[key], old[k]) if key in new else "<missing>"
        return out
    if isinstance(new, list) and isinstance(old, list) and len(new) == len(old):
        return [like(n, o) for n, o in zip(new, old, strict=True)]
    return new
