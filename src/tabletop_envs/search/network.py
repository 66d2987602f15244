"""The policy-value network: its file format and its numpy forward pass.

The network is a plain MLP stored in an ``.npz`` file (:class:`PolicyValueNet`); its input is
:func:`~tabletop_envs.search.evaluator.encode`, the seat's observation flattened to float32, and
it outputs a prior over the legal actions and a value in [-1, 1] for the seat whose observation
it read: an :class:`~tabletop_envs.search.evaluator.Evaluator` for the PUCT search
(:mod:`tabletop_envs.search.puct`). Training lives in :mod:`tabletop_envs.training` (torch);
this module needs numpy only.

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
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from tabletop_envs.core.game import GameState
from tabletop_envs.search.evaluator import encode

#: ``meta["format"]`` of a network file.
FORMAT = "tabletop_envs-az"
#: ``meta["version"]`` this module writes and reads.
VERSION = 1
#: Keys ``meta`` must hold (more are allowed).
META_KEYS = ("format", "version", "game", "params", "obs_dim", "num_actions", "hidden")
#: Largest layer width or input/output size a file may declare (a guard against absurd files).
MAX_SIZE = 1 << 20
#: Values a file's ``"rollout_policy"`` may hold: the playout an agent plays this network with by
#: default (the file format's key and values, unchanged; a search takes every one of
#: :data:`tabletop_envs.search.playouts.PLAYOUTS`).
ROLLOUT_POLICIES = ("random", "greedy")
#: Most simulations per move an agent (or a file's default) may ask for.
MAX_SIMULATIONS = 10**7


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
