"""The policy-value network: its file format and its numpy forward pass.

The network is an MLP, or a convolutional trunk over the board planes followed by the MLP
(``meta["arch"]``: :mod:`tabletop_envs.search.network_layout`; the trunk's forward pass is
:mod:`tabletop_envs.search.conv`), stored in an ``.npz`` file (:class:`PolicyValueNet`); its
input is
:func:`~tabletop_envs.search.evaluator.encode`, the seat's observation flattened to float32, and
it outputs a prior over the legal actions and a value in [-1, 1] for the seat whose observation
it read: an :class:`~tabletop_envs.search.evaluator.Evaluator` for the PUCT search
(:mod:`tabletop_envs.search.puct`). Training lives in :mod:`tabletop_envs.training` (torch);
this module needs numpy only.

File format (an ``.npz`` archive: ``meta`` plus float32 or float16 arrays, never pickle;
float16 halves the file and is widened to float32 on load, which is what the forward pass
uses). :mod:`tabletop_envs.search.network_file` reads it and checks everything before any array
is read; a bad file raises :class:`NetworkFileError` (a ValueError, re-exported here):

- ``meta``: a 0-d unicode array holding a JSON object ``{"format": "tabletop_envs-az",
  "version": 1, "game": <core game name>, "params": <the game's parameters as JSON>,
  "obs_dim": D, "num_actions": A, "hidden": [h1, ...]}``; optional ``"simulations"`` (an int
  >= 0), ``"rollout_weight"`` (a number in [0, 1]) and ``"rollout_policy"`` (``"random"`` or
  ``"greedy"``) are the agent's defaults with this network; optional ``"value_target"``
  (``"result"`` or ``"score"``) and ``"score_scale"`` (a number > 0) say what the value head
  learnt (:func:`tabletop_envs.search.values.value_targets`), so that a search backs up finished
  games and playouts on that scale (a file without them: the returns scaled to [-1, 1]); other
  keys (``"env"``, ``"trained"``...) are kept and ignored;
- ``trunk_<i>_w`` (in, h_i) and ``trunk_<i>_b`` (h_i,) for each hidden layer, ReLU after each;
- ``policy_w`` (h_last, A), ``policy_b`` (A,): the logits, softmaxed over the legal actions;
- ``value_w`` (h_last, 1), ``value_b`` (1,): the value, through tanh.

With ``"hidden": []`` both heads read the input directly (h_last = D).

A conv network's meta has ``"version": 2``, ``"arch": "conv"`` and ``"conv"`` (the board
planes it reads, its channels and blocks), and its file holds the trunk's arrays too; its
dense layers read the trunk's output in place of the observation
(:mod:`tabletop_envs.search.network_layout` describes both).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from tabletop_envs.core.game import GameState
from tabletop_envs.search.conv import ConvTrunk
from tabletop_envs.search.evaluator import encode
from tabletop_envs.search.network_file import (
    ARRAY_DTYPES,
    FORMAT,
    MAX_SIMULATIONS,
    MAX_SIZE,
    META_KEYS,
    ROLLOUT_POLICIES,
    VERSION,
    NetworkFileError,
    check_meta,
    read_network,
    shown_name,
)
from tabletop_envs.search.network_layout import (
    ARCH_VERSIONS,
    ARCHS,
    DEFAULT_CONV,
    arch_of,
    array_shapes,
)

__all__ = [
    "ARCHS",
    "FORMAT",
    "MAX_SIMULATIONS",
    "MAX_SIZE",
    "META_KEYS",
    "ROLLOUT_POLICIES",
    "VERSION",
    "NetworkFileError",
    "PolicyValueNet",
    "array_shapes",
    "check_meta",
    "conv_meta",
    "game_meta",
    "params_json",
]


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


def conv_meta(
    game: GameState,
    channels: int = DEFAULT_CONV["channels"],
    blocks: int = DEFAULT_CONV["blocks"],
    head_channels: int = DEFAULT_CONV["head_channels"],
) -> dict[str, Any]:
    """Return the ``conv`` entry of a conv network's meta for ``game``'s board planes.

    ValueError if the game declares no board planes (:meth:`GameState.board_planes`).
    """
    planes = game.board_planes()
    if planes is None:
        raise ValueError(
            f"{game.game_name} declares no board planes (observation "
            f"{game.spec.observation_shape}): a conv network cannot read it; use arch 'mlp'"
        )
    start, (height, width, depth) = planes
    return {
        "board": [int(start), int(height), int(width), int(depth)],
        "channels": int(channels),
        "blocks": int(blocks),
        "head_channels": int(head_channels),
    }


# ---- the network ------------------------------------------------------------------------------
def _checked_array(key: str, value: object, shape: tuple[int, ...]) -> np.ndarray:
    """Return a read-only float32 copy of network array ``key``; NetworkFileError if malformed."""
    if not isinstance(value, np.ndarray) or value.dtype not in ARRAY_DTYPES:
        kind = value.dtype if isinstance(value, np.ndarray) else type(value).__name__
        raise NetworkFileError(
            f"network array {key} must be a float32 (or float16) numpy array, got {kind}",
            f"{key}.npy",
        )
    if value.shape != shape:
        raise NetworkFileError(
            f"network array {key} must have shape {shape}, got {value.shape}", f"{key}.npy"
        )
    if not np.isfinite(value).all():
        raise NetworkFileError(
            f"network array {key} holds non-finite values (nan or inf)", f"{key}.npy"
        )
    copy = value.astype(np.float32)  # always a copy
    copy.setflags(write=False)
    return copy


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
    a malformed network raises NetworkFileError (a ValueError) naming the key or shape that is
    wrong.
    """

    def __init__(self, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        self.meta = check_meta(json.loads(json.dumps(dict(meta))))  # a private JSON copy
        shapes = array_shapes(self.meta)
        missing = [k for k in shapes if k not in arrays]
        if missing:
            raise NetworkFileError(
                f"network misses arrays {', '.join(missing)}", f"{missing[0]}.npy"
            )
        extra = sorted(set(arrays) - set(shapes))
        if extra:
            raise NetworkFileError(
                f"network has unexpected arrays {', '.join(extra)}; a network of arch "
                f"{self.arch} with hidden={self.meta['hidden']} holds {', '.join(shapes)}",
                f"{extra[0]}.npy",
            )
        self.arrays: dict[str, np.ndarray] = {}
        for key, shape in shapes.items():
            self.arrays[key] = _checked_array(key, arrays[key], shape)
        depth = len(self.meta["hidden"])
        self._trunk = [
            (self.arrays[f"trunk_{i}_w"], self.arrays[f"trunk_{i}_b"]) for i in range(depth)
        ]
        self._policy = (self.arrays["policy_w"], self.arrays["policy_b"])
        self._value = (self.arrays["value_w"], self.arrays["value_b"])
        self._conv = ConvTrunk(self.meta["conv"], self.arrays) if self.arch == "conv" else None

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
    def arch(self) -> str:
        """Return the architecture: ``"mlp"`` or ``"conv"``."""
        return arch_of(self.meta)

    @property
    def conv(self) -> dict[str, Any] | None:
        """Return a conv network's trunk (board, channels, blocks, head_channels), else None."""
        return dict(self.meta["conv"]) if self.arch == "conv" else None

    @property
    def hidden(self) -> list[int]:
        """Return the trunk's layer widths."""
        return list(self.meta["hidden"])

    def check_game(self, game: GameState) -> dict[str, Any]:
        """Check that this network plays ``game``; return the observation changes it needs.

        The game and every parameter must match the network's, except the game's
        ``observation_params`` (what the observation holds, not the rules): those that differ
        are returned, for :meth:`~tabletop_envs.core.game.GameState.with_observation` to read
        positions the way the network learnt them (``{}`` when nothing differs). Anything else
        raises ValueError saying what differs.
        """
        meta = self.meta
        expected = game_meta(game)
        if expected["game"] != meta["game"]:
            raise ValueError(f"this network plays {meta['game']!r}, not {expected['game']!r}")
        params = meta["params"]
        diff = sorted(
            k
            for k in set(expected["params"]) | set(params)
            if expected["params"].get(k) != params.get(k)
        )
        rules = [k for k in diff if k not in game.observation_params or k not in params]
        if rules:
            raise ValueError(
                f"this {meta['game']} network was made for other parameters (differing: "
                f"{', '.join(rules)}; network: "
                f"{ {k: params.get(k) for k in rules} }, game: "
                f"{ {k: expected['params'].get(k) for k in rules} })"
            )
        changes = {k: params[k] for k in diff}
        if changes:
            try:
                game = game.with_observation(**changes)
            except ValueError as err:  # the file's values of them are untrusted
                raise ValueError(f"this network's game parameters are not valid: {err}") from None
            expected = game_meta(game)
        for key in ("obs_dim", "num_actions"):
            if expected[key] != meta[key]:
                raise ValueError(
                    f"this network's {key} is {meta[key]}, the game's is {expected[key]}"
                )
        if self.arch == "conv":
            planes = game.board_planes()
            board = None if planes is None else [planes[0], *planes[1]]
            if board != meta["conv"]["board"]:
                raise ValueError(
                    f"this network reads the board planes {meta['conv']['board']} ([start, H, W, "
                    f"C]), the game's are {board}"
                )
        return changes

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
        if self._conv is not None:
            x = self._conv(x)
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
        *,
        arch: str = "mlp",
        conv: Mapping[str, Any] | None = None,
        **extra_meta: Any,
    ) -> PolicyValueNet:
        """Return a network for ``game`` (its parameters) with random weights (He init).

        ``arch="conv"`` puts a convolutional trunk before the ``hidden`` layers: ``conv`` is
        its meta entry (default :func:`conv_meta` of ``game``). ``extra_meta`` adds keys to the
        meta (e.g. ``env="iris_v0"``).
        """
        if arch not in ARCHS:
            raise ValueError(f"arch must be one of {', '.join(ARCHS)}, got {arch!r}")
        trunk = {} if arch == "mlp" else {"arch": arch, "conv": dict(conv or conv_meta(game))}
        meta = {
            "format": FORMAT,
            "version": ARCH_VERSIONS[arch],
            **game_meta(game),
            "hidden": [int(h) for h in hidden],
            **trunk,
            **extra_meta,
        }
        check_meta(meta)
        rng = np.random.default_rng(seed)
        arrays: dict[str, np.ndarray] = {}
        for key, shape in array_shapes(meta).items():
            if key.endswith("_w"):
                scale = math.sqrt(2.0 / math.prod(shape[:-1]))  # the fan-in
                arrays[key] = (rng.standard_normal(shape) * scale).astype(np.float32)
            else:
                arrays[key] = np.zeros(shape, dtype=np.float32)
        return cls(meta, arrays)

    @classmethod
    def load(cls, source: str | os.PathLike[str] | IO[bytes]) -> PolicyValueNet:
        """Read a network file (a path or a seekable binary file object).

        The file is untrusted: it is read without pickle, and its names, sizes, dtypes and
        shapes are checked from the zip directory and the array headers before any array is
        read (:func:`~tabletop_envs.search.network_file.read_network`), its values when the
        network is built. Anything wrong, a missing file included, raises
        :class:`NetworkFileError` (a ValueError) naming the member and what is valid.
        """
        meta, arrays = read_network(source)
        try:
            return cls(meta, arrays)
        except NetworkFileError as err:
            raise NetworkFileError(f"{shown_name(source)}: {err}", err.member) from None

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
