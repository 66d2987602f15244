"""AlphaZero-style search: a policy-value network (numpy inference) guiding PUCT tree search.

The network is a plain MLP stored in an ``.npz`` file (:class:`PolicyValueNet`); its input is
:func:`encode`, the seat's observation flattened to float32, and it outputs a prior over the
legal actions and a value in [-1, 1] for the seat whose observation it read. Training lives in
:mod:`tabletop_envs.training` (torch); this module needs numpy only.

File format (``meta`` plus float32 or float16 arrays, read with ``allow_pickle=False``; float16
halves the file and is widened to float32 on load, which is what the forward pass uses):

- ``meta``: a 0-d unicode array holding a JSON object ``{"format": "tabletop_envs-az",
  "version": 1, "game": <core game name>, "params": <the game's parameters as JSON>,
  "obs_dim": D, "num_actions": A, "hidden": [h1, ...]}``; optional ``"simulations"`` (an int
  >= 0), ``"rollout_weight"`` (a number in [0, 1]) and ``"rollout_policy"`` (``"random"`` or
  ``"greedy"``) are the agent's defaults with this network; other keys
  (``"env"``, ``"trained"``...) are kept and ignored;
- ``trunk_<i>_w`` (in, h_i) and ``trunk_<i>_b`` (h_i,) for each hidden layer, ReLU after each;
- ``policy_w`` (h_last, A), ``policy_b`` (A,): the logits, softmaxed over the legal actions;
- ``value_w`` (h_last, 1), ``value_b`` (1,): the value, through tanh.

With ``"hidden": []`` both heads read the input directly (h_last = D).
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.greedy import GreedyAgent
from tabletop_envs.core.game import GameState
from tabletop_envs.core.params import check_int_range
from tabletop_envs.core.rng import make_rng

#: ``meta["format"]`` of a network file.
FORMAT = "tabletop_envs-az"
#: ``meta["version"]`` this module writes and reads.
VERSION = 1
#: Keys ``meta`` must hold (more are allowed).
META_KEYS = ("format", "version", "game", "params", "obs_dim", "num_actions", "hidden")
#: Largest layer width or input/output size a file may declare (a guard against absurd files).
MAX_SIZE = 1 << 20
#: How playouts choose their moves: uniformly at random, or as the ``greedy`` agent does.
ROLLOUT_POLICIES = ("random", "greedy")
#: Most simulations per move an agent (or a file's default) may ask for.
MAX_SIMULATIONS = 10**7

#: ``evaluate(obs (L, D) float32, mask (L, A) bool) -> (priors (L, A), values (L,))``.
Evaluator = Callable[[np.ndarray, np.ndarray], "tuple[np.ndarray, np.ndarray]"]


# ---- input encoding ---------------------------------------------------------------------------
def encode(game: GameState, seat: int) -> np.ndarray:
    """Return the network input of ``seat``: ``game.observation(seat)`` flattened, float32."""
    return np.asarray(game.observation(seat), dtype=np.float32).reshape(-1)


def encode_batch(games: Sequence[GameState], seats: Sequence[int]) -> np.ndarray:
    """Return the inputs of ``seats[i]`` in ``games[i]`` stacked: (len(games), D) float32."""
    if not games:
        raise ValueError("encode_batch needs at least one game")
    obs = np.stack([g.observation(s) for g, s in zip(games, seats, strict=True)])
    return obs.reshape(len(games), -1).astype(np.float32)


def params_json(params: Any) -> dict[str, Any]:
    """Return a game's parameter dataclass as JSON data (tuples become lists)."""
    data: dict[str, Any] = json.loads(json.dumps(dataclasses.asdict(params)))
    return data


def game_meta(game: GameState | type[GameState], params: Any = None) -> dict[str, Any]:
    """Return the ``game``/``params``/``obs_dim``/``num_actions`` part of a network's meta.

    ``game`` is a state, or a :class:`GameState` subclass with ``params`` given.
    """
    if isinstance(game, GameState):
        params = game.params
        spec = game.spec
    else:
        spec = game(params, 0).spec
    return {
        "game": game.game_name,
        "params": params_json(params),
        "obs_dim": int(np.prod(spec.observation_shape)),
        "num_actions": int(spec.num_actions),
    }


# ---- the network ------------------------------------------------------------------------------
def array_shapes(meta: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """Return the name and shape of every array a network with this (checked) meta holds."""
    sizes = [meta["obs_dim"], *meta["hidden"]]
    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(len(meta["hidden"])):
        shapes[f"trunk_{i}_w"] = (sizes[i], sizes[i + 1])
        shapes[f"trunk_{i}_b"] = (sizes[i + 1],)
    shapes["policy_w"] = (sizes[-1], meta["num_actions"])
    shapes["policy_b"] = (meta["num_actions"],)
    shapes["value_w"] = (sizes[-1], 1)
    shapes["value_b"] = (1,)
    return shapes


def check_meta(meta: object) -> dict[str, Any]:
    """Return ``meta`` (a network file's JSON object) if well formed, else raise ValueError."""
    if not isinstance(meta, dict):
        raise ValueError(f"network meta must be a JSON object, got {type(meta).__name__}")
    missing = [k for k in META_KEYS if k not in meta]
    if missing:
        raise ValueError(f"network meta misses {', '.join(missing)} (needs {', '.join(META_KEYS)})")
    if meta["format"] != FORMAT:
        raise ValueError(f"network meta format must be {FORMAT!r}, got {meta['format']!r}")
    if meta["version"] != VERSION or type(meta["version"]) is not int:
        raise ValueError(
            f"network meta version {meta['version']!r} is not supported; this library reads "
            f"version {VERSION}"
        )
    if not isinstance(meta["game"], str) or not meta["game"]:
        raise ValueError(f"network meta game must be a game name, got {meta['game']!r}")
    if not isinstance(meta["params"], dict):
        raise ValueError(f"network meta params must be a JSON object, got {meta['params']!r}")
    for key in ("obs_dim", "num_actions"):
        value = meta[key]
        if type(value) is not int or not 1 <= value <= MAX_SIZE:
            raise ValueError(f"network meta {key} must be an int in 1..{MAX_SIZE}, got {value!r}")
    hidden = meta["hidden"]
    if not isinstance(hidden, list) or not all(
        type(h) is int and 1 <= h <= MAX_SIZE for h in hidden
    ):
        raise ValueError(
            f"network meta hidden must be a list of layer widths (ints in 1..{MAX_SIZE}), "
            f"got {hidden!r}"
        )
    if "simulations" in meta and (
        type(meta["simulations"]) is not int or not 0 <= meta["simulations"] <= MAX_SIMULATIONS
    ):
        raise ValueError(
            f"network meta simulations must be an int in 0..{MAX_SIMULATIONS}, got "
            f"{meta['simulations']!r}"
        )
    if "rollout_weight" in meta:
        w = meta["rollout_weight"]
        if type(w) not in (int, float) or not 0 <= w <= 1:
            raise ValueError(f"network meta rollout_weight must be a number in [0, 1], got {w!r}")
    if "rollout_policy" in meta and meta["rollout_policy"] not in ROLLOUT_POLICIES:
        raise ValueError(
            f"network meta rollout_policy must be one of {', '.join(ROLLOUT_POLICIES)}, got "
            f"{meta['rollout_policy']!r}"
        )
    return meta


def _sparse_matmul(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Return ``x @ w``, reading only the rows of ``w`` where some input is nonzero.

    Observations are mostly zeros (one-hot planes): Irk's 10726 inputs hold about a hundred
    ones, so the first layer costs a hundredth of the dense product.
    """
    cols = np.flatnonzero(x.any(axis=0))
    if 3 * len(cols) >= x.shape[1]:
        return x @ w
    return x[:, cols] @ w[cols]


class PolicyValueNet:
    """A policy-value MLP evaluated with numpy: ``net(obs, mask) -> (priors, values)``.

    Build one from a file (:meth:`load`), from ``meta`` and its arrays (the trainer exports
    this way), or with random weights (:meth:`initial`). Everything is checked on construction:
    a malformed network raises ValueError naming the key or shape that is wrong.
    """

    def __init__(self, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        self.meta = check_meta(json.loads(json.dumps(dict(meta))))  # a private JSON copy
        shapes = array_shapes(self.meta)
        missing = [k for k in shapes if k not in arrays]
        if missing:
            raise ValueError(f"network misses arrays {', '.join(missing)}")
        extra = sorted(set(arrays) - set(shapes))
        if extra:
            raise ValueError(
                f"network has unexpected arrays {', '.join(extra)}; a network with hidden="
                f"{self.meta['hidden']} holds {', '.join(shapes)}"
            )
        self.arrays: dict[str, np.ndarray] = {}
        for key, shape in shapes.items():
            value = arrays[key]
            if not isinstance(value, np.ndarray) or value.dtype not in (np.float32, np.float16):
                kind = value.dtype if isinstance(value, np.ndarray) else type(value).__name__
                raise ValueError(
                    f"network array {key} must be a float32 (or float16) numpy array, got {kind}"
                )
            if value.shape != shape:
                raise ValueError(f"network array {key} must have shape {shape}, got {value.shape}")
            if not np.isfinite(value).all():
                raise ValueError(f"network array {key} holds non-finite values (nan or inf)")
            copy = value.astype(np.float32)  # always a copy
            copy.setflags(write=False)
            self.arrays[key] = copy
        depth = len(self.meta["hidden"])
        self._trunk = [
            (self.arrays[f"trunk_{i}_w"], self.arrays[f"trunk_{i}_b"]) for i in range(depth)
        ]
        self._policy = (self.arrays["policy_w"], self.arrays["policy_b"])
        self._value = (self.arrays["value_w"], self.arrays["value_b"])

    # ---- facts -------------------------------------------------------------------------------
    @property
    def obs_dim(self) -> int:
        """Return the input size D."""
        return int(self.meta["obs_dim"])

    @property
    def num_actions(self) -> int:
        """Return the number of actions A (the policy's width)."""
        return int(self.meta["num_actions"])

    @property
    def hidden(self) -> list[int]:
        """Return the trunk's layer widths."""
        return list(self.meta["hidden"])

    def check_game(self, game: GameState) -> None:
        """Raise ValueError unless ``game`` is the game and parameters this network was made for."""
        meta = self.meta
        expected = game_meta(game)
        if expected["game"] != meta["game"]:
            raise ValueError(f"this network plays {meta['game']!r}, not {expected['game']!r}")
        if expected["params"] != meta["params"]:
            diff = sorted(
                k
                for k in set(expected["params"]) | set(meta["params"])
                if expected["params"].get(k) != meta["params"].get(k)
            )
            raise ValueError(
                f"this {meta['game']} network was made for other parameters (differing: "
                f"{', '.join(diff)}; network: "
                f"{ {k: meta['params'].get(k) for k in diff} }, game: "
                f"{ {k: expected['params'].get(k) for k in diff} })"
            )
        for key in ("obs_dim", "num_actions"):
            if expected[key] != meta[key]:
                raise ValueError(
                    f"this network's {key} is {meta[key]}, the game's is {expected[key]}"
                )

    # ---- inference ---------------------------------------------------------------------------
    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(priors (B, A), values (B,))`` for ``obs`` (B, D) and legal ``mask`` (B, A).

        ``priors`` is the softmax of the policy logits over each row's legal actions, zero
        elsewhere (an all-zero row where nothing is legal); ``values`` is in [-1, 1], for the
        seat whose observation each row is.
        """
        x = np.asarray(obs, dtype=np.float32)
        legal = np.asarray(mask, dtype=bool)
        if x.ndim != 2 or x.shape[1] != self.obs_dim:
            raise ValueError(f"obs must have shape (B, {self.obs_dim}), got {x.shape}")
        if legal.shape != (x.shape[0], self.num_actions):
            raise ValueError(
                f"mask must have shape ({x.shape[0]}, {self.num_actions}), got {legal.shape}"
            )
        for k, (w, b) in enumerate(self._trunk):
            x = _sparse_matmul(x, w) if k == 0 else x @ w
            x += b
            np.maximum(x, 0.0, out=x)
        priors = np.zeros(legal.shape, dtype=np.float32)
        cols = np.flatnonzero(legal.any(axis=0))  # the actions legal in some row
        if len(cols):
            logits = x @ self._policy[0][:, cols]
            logits += self._policy[1][cols]
            row_legal = legal[:, cols]
            logits[~row_legal] = -np.inf
            top = logits.max(axis=1, keepdims=True)
            top[~np.isfinite(top)] = 0.0  # rows without a legal action
            exp = np.exp(logits - top)
            total = exp.sum(axis=1, keepdims=True)
            total[total == 0.0] = 1.0
            priors[:, cols] = exp / total
        values = np.tanh(x @ self._value[0] + self._value[1])[:, 0]
        return priors, values.astype(np.float32, copy=False)

    def evaluate_game(self, game: GameState, seat: int) -> tuple[np.ndarray, float]:
        """Return ``(priors (A,), value)`` of ``seat`` (the mover) in ``game``."""
        priors, values = self(encode(game, seat)[None], game.legal_mask().astype(bool)[None])
        return priors[0], float(values[0])

    # ---- construction and files ----------------------------------------------------------------
    @classmethod
    def initial(
        cls,
        game: GameState,
        hidden: Sequence[int] = (128, 128),
        seed: int | None = None,
        **extra_meta: Any,
    ) -> PolicyValueNet:
        """Return a network for ``game`` (its parameters) with random weights (He init).

        ``extra_meta`` adds keys to the meta (e.g. ``env="iris_v0"``).
        """
        meta = {
            "format": FORMAT,
            "version": VERSION,
            **game_meta(game),
            "hidden": [int(h) for h in hidden],
            **extra_meta,
        }
        check_meta(meta)
        rng = np.random.default_rng(seed)
        arrays: dict[str, np.ndarray] = {}
        for key, shape in array_shapes(meta).items():
            if key.endswith("_w"):
                scale = math.sqrt(2.0 / shape[0])
                arrays[key] = (rng.standard_normal(shape) * scale).astype(np.float32)
            else:
                arrays[key] = np.zeros(shape, dtype=np.float32)
        return cls(meta, arrays)

    @classmethod
    def load(cls, source: str | Path | IO[bytes]) -> PolicyValueNet:
        """Read a network file (a path or a binary file object); ValueError if malformed.

        The file is untrusted: it is read without pickle and every key, shape and value is
        checked before the network is built.
        """
        name = str(source) if isinstance(source, (str, Path)) else "network file"
        try:
            data = np.load(source, allow_pickle=False)
        except FileNotFoundError:
            raise ValueError(f"no network file at {name}") from None
        except (ValueError, OSError, EOFError) as err:
            raise ValueError(f"{name} is not a readable network file (.npz): {err}") from None
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError(f"{name} is not a network file: a single .npy array, not an .npz")
        try:
            with data:
                raw = {key: data[key] for key in data.files}
        except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError) as err:
            raise ValueError(f"{name} is not a readable network file (.npz): {err}") from None
        if "meta" not in raw:
            raise ValueError(f"{name} has no 'meta' entry: not a {FORMAT} network file")
        meta_array = raw.pop("meta")
        if meta_array.ndim != 0 or meta_array.dtype.kind != "U":
            raise ValueError(
                f"{name}: 'meta' must be a 0-d unicode array holding JSON, got "
                f"dtype {meta_array.dtype} shape {meta_array.shape}"
            )
        try:
            meta = json.loads(str(meta_array[()]))
        except (ValueError, RecursionError) as err:
            raise ValueError(f"{name}: 'meta' is not valid JSON ({err})") from None
        try:
            return cls(check_meta(meta), raw)
        except ValueError as err:
            raise ValueError(f"{name}: {err}") from None

    def save(self, target: str | Path | IO[bytes], dtype: str = "float32") -> None:
        """Write the network as an ``.npz`` file that :meth:`load` reads back.

        ``dtype="float32"`` reads back identically; ``"float16"`` halves the file, and what
        :meth:`load` reads back is each weight rounded to the nearest float16 (the network's
        outputs then move by about 1e-3; weights beyond float16's range are refused).
        """
        if dtype not in ("float32", "float16"):
            raise ValueError(f"dtype must be 'float32' or 'float16', got {dtype!r}")
        entries: dict[str, Any] = {"meta": np.array(json.dumps(self.meta, sort_keys=True))}
        for key, value in self.arrays.items():
            with np.errstate(over="ignore"):  # an overflow becomes inf, refused just below
                stored = value.astype(dtype)
            if not np.isfinite(stored).all():
                raise ValueError(f"network array {key} does not fit float16 (|w| > 65504)")
            entries[key] = stored
        if isinstance(target, (str, Path)):  # np.savez would append ".npz" to another suffix
            with open(target, "wb") as file:
                np.savez(file, **entries)
        else:
            np.savez(target, **entries)


# ---- PUCT search ------------------------------------------------------------------------------
class _Node:
    """A search node: the seat whose action led here, visits, value sum, priors, children.

    ``legal``, ``legal_set``, ``p``, ``inv`` and ``order`` cache the last legal action list seen
    here, the priors (``p[a] * inv`` renormalized over it) and its actions by decreasing prior
    (then increasing id);
    ``order[first:]`` starts with the unvisited action of highest prior.
    """

    __slots__ = (
        "children",
        "first",
        "inv",
        "legal",
        "legal_set",
        "n",
        "order",
        "p",
        "player",
        "prior",
        "w",
    )

    def __init__(self, player: int) -> None:
        self.player = player  # seat that chose the action leading to this node (-1: the root)
        self.n = 0
        self.w = 0.0
        self.children: dict[int, _Node] = {}
        self.prior: dict[int, float] | None = None  # action -> prior, once evaluated
        self.legal: list[int] | None = None
        self.legal_set: set[int] = set()
        self.p: dict[int, float] = {}  # priors (unnormalized over the cached legal actions)
        self.inv = 1.0  # 1 / the sum of p over the cached legal actions
        self.order: list[int] = []
        self.first = 0

    def use_legal(self, actions: list[int]) -> bool:
        """Cache the priors of ``actions``; False if one of them has none (evaluate again)."""
        prior = self.prior
        legal_set = set(actions)
        if prior is None or not legal_set <= prior.keys():
            return False
        total = sum(map(prior.__getitem__, actions))
        if total > 0.0:
            self.p = prior
            self.inv = 1.0 / total
        else:  # every legal prior underflowed to 0: uniform
            self.p = dict.fromkeys(actions, 1.0)
            self.inv = 1.0 / len(actions)
        self.legal = actions
        self.legal_set = legal_set
        # by decreasing prior; a stable sort keeps ascending ids on ties, reverse=True too
        self.order = sorted(actions, key=self.p.__getitem__, reverse=True)
        self.first = 0
        return True


def _check_search_args(
    roots: Sequence[GameState],
    seats: Sequence[int],
    simulations: int,
    c_puct: float,
    dirichlet_alpha: float | None,
    dirichlet_fraction: float,
) -> None:
    """Raise ValueError on a bad argument of :func:`run_puct`."""
    if not roots or len(roots) != len(seats):
        raise ValueError(
            f"run_puct needs one seat per root and at least one root, got {len(roots)} roots "
            f"and {len(seats)} seats"
        )
    for i, (game, seat) in enumerate(zip(roots, seats, strict=True)):
        if game.is_terminal:
            raise ValueError(f"root {i} is a finished game: there is nothing to search")
        if seat != game.current_player:
            raise ValueError(
                f"root {i}: seat {seat!r} is not the seat to move ({game.current_player})"
            )
    if type(simulations) is not int or simulations < 0:
        raise ValueError(f"simulations must be an int >= 0, got {simulations!r}")
    if not isinstance(c_puct, (int, float)) or not 0 <= c_puct < math.inf:
        raise ValueError(f"c_puct must be a finite number >= 0, got {c_puct!r}")
    if dirichlet_alpha is not None and (
        not isinstance(dirichlet_alpha, (int, float)) or not 0 < dirichlet_alpha < math.inf
    ):
        raise ValueError(f"dirichlet_alpha must be None or a number > 0, got {dirichlet_alpha!r}")
    if not isinstance(dirichlet_fraction, (int, float)) or not 0 <= dirichlet_fraction <= 1:
        raise ValueError(f"dirichlet_fraction must be in [0, 1], got {dirichlet_fraction!r}")


def _evaluate(
    evaluate: Evaluator, obs: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, list[float]]:
    """Call ``evaluate`` once; return its priors (float64 array) and values (a list), checked."""
    priors, values = evaluate(obs, mask)
    priors = np.asarray(priors, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if priors.shape != mask.shape or values.shape != (len(mask),):
        raise ValueError(
            f"evaluate returned priors {priors.shape} and values {values.shape}; expected "
            f"{mask.shape} and ({len(mask)},)"
        )
    return priors, np.clip(values, -1.0, 1.0).tolist()


def _check_playouts(weight: object, policy: object) -> float:
    """Return the playout ``weight`` as a float; ValueError unless it is in [0, 1] and
    ``policy`` one of :data:`ROLLOUT_POLICIES`."""
    if not isinstance(weight, (int, float)) or not 0 <= weight <= 1:
        raise ValueError(f"rollout_weight must be in [0, 1], got {weight!r}")
    if policy not in ROLLOUT_POLICIES:
        raise ValueError(
            f"rollout_policy must be one of {', '.join(ROLLOUT_POLICIES)}, got {policy!r}"
        )
    return float(weight)


def _random_playout(state: GameState, rnd: random.Random) -> list[float]:
    """Play uniformly random legal moves on ``state`` (changed) to the end; return its returns."""
    draw = rnd.random
    while not state.is_terminal:
        legal = state.legal_actions()
        state.apply(legal[int(draw() * len(legal))])
    return state.returns().tolist()


def _greedy_playout(state: GameState, greedy: Agent) -> list[float]:
    """Play ``greedy``'s moves for every seat on ``state`` (changed) to the end; return returns."""
    while not state.is_terminal:
        seat = state.current_player
        state.apply(greedy.act(state, seat))
    return state.returns().tolist()


def _playout(policy: str, rng: np.random.Generator) -> Callable[[GameState], list[float]]:
    """Return ``playout(state) -> returns`` for ``policy``, with its own stream from ``rng``."""
    if policy == "greedy":
        greedy = GreedyAgent(int(rng.integers(2**63)))

        def greedy_playout(state: GameState) -> list[float]:
            return _greedy_playout(state, greedy)

        return greedy_playout
    rnd = random.Random(int(rng.integers(2**63)))

    def random_playout(state: GameState) -> list[float]:
        return _random_playout(state, rnd)

    return random_playout


def _value_vector(value: float, mover: int, num_players: int) -> list[float]:
    """Spread a value for ``mover`` to every seat: ``value`` to it, ``-value/(n-1)`` to others."""
    if num_players == 1:
        return [value]
    vec = [-value / (num_players - 1)] * num_players
    vec[mover] = value
    return vec


def puct_search(
    roots: Sequence[GameState],
    seats: Sequence[int],
    evaluate: Evaluator,
    simulations: int,
    rng: np.random.Generator,
    *,
    c_puct: float = 1.5,
    dirichlet_alpha: float | None = None,
    dirichlet_fraction: float = 0.25,
    rollout_weight: float = 0.0,
    rollout_policy: str = "random",
) -> tuple[np.ndarray, np.ndarray]:
    """Run :func:`run_puct` and return ``(visit counts, root priors)``, both (len(roots), A).

    The root priors are the evaluator's (with the Dirichlet noise mixed in when it is asked
    for), zero on illegal actions.
    """
    _check_search_args(roots, seats, simulations, c_puct, dirichlet_alpha, dirichlet_fraction)
    mix = _check_playouts(rollout_weight, rollout_policy)
    playout = _playout(rollout_policy, rng) if mix > 0 else None
    num_roots = len(roots)
    num_actions = roots[0].spec.num_actions
    if any(g.spec.num_actions != num_actions for g in roots):
        raise ValueError("run_puct's roots must share one action space (one game and parameters)")
    # the determinizations' chance stream: one for the whole search (a state draws only while
    # it is walked, and the walks are sequential), seeded from rng, never the true one
    chance = make_rng(int(rng.integers(2**63)))
    scales = []
    for game in roots:
        low, high = game.spec.reward_range
        scales.append((float(low), max(float(high) - float(low), 1e-12), game.num_players))

    # expand every root once, from what its seat sees (this costs no simulation)
    masks = np.stack([g.legal_mask() for g in roots]).astype(bool)
    priors, _ = _evaluate(evaluate, encode_batch(roots, seats), masks)
    trees = []
    root_priors = np.zeros((num_roots, num_actions))
    for i in range(num_roots):
        legal = np.flatnonzero(masks[i])
        root_p = priors[i, legal]
        if dirichlet_alpha is not None and dirichlet_fraction > 0:
            noise = rng.dirichlet(np.full(len(legal), float(dirichlet_alpha)))
            root_p = (1.0 - dirichlet_fraction) * root_p + dirichlet_fraction * noise
        root_priors[i, legal] = root_p
        tree = _Node(-1)
        tree.prior = dict(zip(legal.tolist(), root_p.tolist(), strict=True))
        tree.use_legal(legal.tolist())
        tree.n = 1
        trees.append(tree)

    sqrt = math.sqrt
    for _ in range(simulations):
        leaves: list[tuple[int, GameState, np.ndarray, list[int], list[_Node]]] = []
        for i in range(num_roots):
            state = roots[i].resample_hidden(seats[i], rng)
            state.rng = chance  # no peeking at the true chance stream
            node = trees[i]
            path = [node]
            while True:
                if state.is_terminal:
                    low, span, _ = scales[i]
                    returns = [2.0 * (r - low) / span - 1.0 for r in state.returns().tolist()]
                    for nd in path:
                        nd.n += 1
                        if nd.player >= 0:
                            nd.w += returns[nd.player]
                    break
                mask = state.legal_mask()
                actions = mask.nonzero()[0].tolist()
                if actions != node.legal and not node.use_legal(actions):
                    leaves.append((i, state, mask, actions, path))
                    break
                # PUCT: the best visited child, against the unvisited one of highest prior
                scale = c_puct * sqrt(node.n) * node.inv
                p = node.p
                legal_set = node.legal_set
                children = node.children
                best = -math.inf
                best_action = -1
                for a, child in children.items():
                    if a in legal_set:
                        score = child.w / child.n + p[a] * scale / (1 + child.n)
                        if score > best or (score == best and a < best_action):
                            best = score
                            best_action = a
                order = node.order
                first = node.first
                while first < len(order) and order[first] in children:
                    first += 1  # children are never removed: skip the visited once and for all
                node.first = first
                if first < len(order):
                    a = order[first]
                    score = p[a] * scale  # an unvisited action's value counts as 0
                    if score > best or (score == best and a < best_action):
                        best_action = a
                mover = state.current_player
                state.apply(best_action)
                nxt = children.get(best_action)
                if nxt is None:
                    nxt = children[best_action] = _Node(mover)
                node = nxt
                path.append(node)
        if not leaves:
            continue
        states = [leaf[1] for leaf in leaves]
        movers = [s.current_player for s in states]
        leaf_masks = np.stack([leaf[2] for leaf in leaves]).astype(bool)
        priors, values = _evaluate(evaluate, encode_batch(states, movers), leaf_masks)
        for (i, leaf_state, _mask, actions, path), leaf_p, v, mover in zip(
            leaves, priors, values, movers, strict=True
        ):
            node = path[-1]
            new = dict(zip(actions, leaf_p[actions].tolist(), strict=True))
            if node.prior is None:
                node.prior = new
            else:
                for a, prior in new.items():
                    node.prior.setdefault(a, prior)
            node.legal = None  # renormalize on the next visit
            vec = _value_vector(v, mover, scales[i][2])
            if playout is not None:  # mix in a playout's result
                low, span, _ = scales[i]
                played = playout(leaf_state)
                vec = [
                    (1.0 - mix) * x + mix * (2.0 * (r - low) / span - 1.0)
                    for x, r in zip(vec, played, strict=True)
                ]
            for nd in path:
                nd.n += 1
                if nd.player >= 0:
                    nd.w += vec[nd.player]

    counts = np.zeros((num_roots, num_actions), dtype=np.int64)
    for i, tree in enumerate(trees):
        for a, child in tree.children.items():
            counts[i, a] = child.n
    return counts, root_priors


def run_puct(
    roots: Sequence[GameState],
    seats: Sequence[int],
    evaluate: Evaluator,
    simulations: int,
    rng: np.random.Generator,
    *,
    c_puct: float = 1.5,
    dirichlet_alpha: float | None = None,
    dirichlet_fraction: float = 0.25,
    rollout_weight: float = 0.0,
    rollout_policy: str = "random",
) -> np.ndarray:
    """Search every root with PUCT and return the root visit counts, (len(roots), A) int64.

    ``seats[i]`` is the seat to move in ``roots[i]`` (the searching seat); the roots are not
    changed. ``evaluate(obs (L, D) float32, mask (L, A) bool) -> (priors (L, A), values (L,))``
    is a :class:`PolicyValueNet` or any callable alike (values for the seat whose observation
    each row is, in [-1, 1]). It is called once to expand the roots, then once per simulation
    round for all the new leaves of every tree together: a round descends one path in each
    root's tree. Each root gets ``simulations`` visits, shared by its children.

    Hidden information and chance: each simulation of root ``i`` walks a fresh determinization
    ``roots[i].resample_hidden(seats[i], rng)`` whose chance events come from a stream seeded
    from ``rng`` (not the root's own), so the search never reads what the seat cannot know. One
    tree per root is shared by all its determinizations and keyed by action ids: a node's
    children are the actions seen legal in some determinization, and a node is evaluated again
    when a determinization makes legal an action it has no prior for (that simulation ends
    there). Priors are renormalized over the actions legal in the current determinization.

    Selection maximizes ``Q + c_puct * P * sqrt(N_node) / (1 + N_child)`` (the lowest action
    id on ties), with ``Q`` the child's mean value for the seat that chooses it, 0 for
    an unvisited child. Values are per seat (max^n, for 2-4 players): a terminal leaf's
    ``returns()`` scaled from the game's reward range to [-1, 1]; a network value ``v`` for the
    leaf's mover gives ``v`` to it and ``-v / (n - 1)`` to each other seat. With
    ``dirichlet_alpha`` set (self-play), each root's priors are mixed with Dirichlet noise:
    ``(1 - dirichlet_fraction) * P + dirichlet_fraction * Dir(alpha)``.

    ``rollout_weight`` ``w`` > 0 (AlphaGo's mixing) plays a playout from each new leaf (its
    determinization, the search's chance stream) to the end and backs up ``(1 - w) * network
    value + w * the playout's scaled returns``, per seat. ``rollout_policy`` chooses the
    playout's moves: ``"random"`` (uniform, cheap) or ``"greedy"`` (the game's one-ply
    heuristic for every seat, reading each seat's view of the determinization: costlier, far
    better where random play says little). Playouts cost time but help where the network's
    values are weak.
    """
    counts, _ = puct_search(
        roots,
        seats,
        evaluate,
        simulations,
        rng,
        c_puct=c_puct,
        dirichlet_alpha=dirichlet_alpha,
        dirichlet_fraction=dirichlet_fraction,
        rollout_weight=rollout_weight,
        rollout_policy=rollout_policy,
    )
    return counts


# ---- the agent --------------------------------------------------------------------------------
#: Simulations per move of :class:`AZAgent` unless told otherwise.
DEFAULT_SIMULATIONS = 64


class AZAgent(Agent):
    """Plays the most visited action of a PUCT search guided by a :class:`PolicyValueNet`.

    ``simulations=None`` takes the network file's ``"simulations"`` (the number its maker
    measured it with), else :data:`DEFAULT_SIMULATIONS`; ``rollout_weight=None`` the file's
    ``"rollout_weight"``, else 0 (no playouts; see :func:`run_puct`), and
    ``rollout_policy=None`` the file's ``"rollout_policy"``, else ``"random"``.
    Ties go to the higher prior, then the lower action id. ``simulations=0`` plays the
    network's most likely legal action without search. A decision with a single legal action
    is returned at once. The search reads only what the seat may know (see :func:`run_puct`).
    """

    name = "az"

    def __init__(
        self,
        net: PolicyValueNet,
        simulations: int | None = None,
        c_puct: float = 1.5,
        seed: int | None = None,
        rollout_weight: float | None = None,
        rollout_policy: str | None = None,
    ) -> None:
        if not isinstance(net, PolicyValueNet):
            raise ValueError(
                f"AZAgent needs a PolicyValueNet (PolicyValueNet.load(path)), got "
                f"{type(net).__name__}"
            )
        self.net = net
        if simulations is None:
            simulations = int(net.meta.get("simulations", DEFAULT_SIMULATIONS))
        self.simulations = check_int_range("simulations", simulations, 0, MAX_SIMULATIONS)
        if rollout_weight is None:
            rollout_weight = float(net.meta.get("rollout_weight", 0.0))
        if rollout_policy is None:
            rollout_policy = str(net.meta.get("rollout_policy", "random"))
        self.rollout_weight = _check_playouts(rollout_weight, rollout_policy)
        self.rollout_policy = rollout_policy
        if not isinstance(c_puct, (int, float)) or not 0 <= c_puct < math.inf:
            raise ValueError(f"c_puct must be a finite number >= 0, got {c_puct!r}")
        self.c_puct = float(c_puct)
        self._checked: tuple[type, Any] | None = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's stream (``None``: fresh entropy on first use, else continue)."""
        if seed is not None or not hasattr(self, "rng"):
            self.rng = np.random.default_rng(seed)

    def act(self, game: GameState, seat: int) -> int:
        """Return the most visited root action after ``simulations`` PUCT simulations."""
        mask = game.legal_mask()
        legal = mask.nonzero()[0].tolist()
        if not legal:
            raise ValueError(f"seat {seat} has no legal action (is the game over?)")
        if len(legal) == 1:
            return int(legal[0])
        key = (type(game), game.params)
        if self._checked != key:
            self.net.check_game(game)
            self._checked = key
        if self.simulations == 0:
            priors, _ = self.net.evaluate_game(game, seat)
            return int(max(legal, key=lambda a: (priors[a], -a)))
        counts, root_priors = puct_search(
            [game],
            [seat],
            self.net,
            self.simulations,
            self.rng,
            c_puct=self.c_puct,
            rollout_weight=self.rollout_weight,
            rollout_policy=self.rollout_policy,
        )
        visits, prior = counts[0].tolist(), root_priors[0].tolist()
        return int(max(legal, key=lambda a: (visits[a], prior[a], -a)))
