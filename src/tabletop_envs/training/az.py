"""AlphaZero-style self-play training of a policy-value network (torch), shipped as a numpy file.

Command line (also ``tabletop-envs train --algo az``)::

    python -m tabletop_envs.training.az --env iris_v0 --iterations 20 --out runs/az_iris

Each iteration plays ``--games`` games against itself in lockstep: at every move, one
:func:`~tabletop_envs.agents.az.run_puct` call searches all the unfinished games' positions
together, so each simulation round evaluates the new leaves of every game's tree in one batched
forward pass. Moves follow the root visit counts (sampled for the first ``--temperature-moves``
moves of a game, the most visited after), with Dirichlet noise at the roots. Every searched
position becomes a training example (the seat's encoded observation, its legal mask, the visit
distribution and the game's final result from that seat's view); a bounded replay buffer keeps
the latest ones, and Adam minimizes cross-entropy to the visit distribution plus the squared
value error (plus L2 weight decay).

The network is a torch twin of :class:`~tabletop_envs.agents.az.PolicyValueNet` (same MLP),
exported after every iteration to ``model.npz`` in that class's format, so ``AZAgent`` plays
with numpy only; the periodic and final arena evaluations load that very file. ``--out`` also
gets ``checkpoint.pt`` (weights, optimizer, counters; ``--resume``), ``buffer.npz`` (the replay
buffer, unless ``--no-save-buffer``), ``results.json`` and ``winrate.png``. Needs the ``train``
extra (torch, tqdm, matplotlib); torch is imported only when a network is built.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.agents.az import (
    FORMAT,
    ROLLOUT_POLICIES,
    VERSION,
    AZAgent,
    PolicyValueNet,
    encode,
    encode_batch,
    game_meta,
    run_puct,
)
from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, registered_envs, score_key
from tabletop_envs.training.arena import run_arena

#: What the value head learns: the game's result (win +1, shared win 0, loss -1, from the
#: seat's view) or ``tanh(score margin / score_scale)`` for games with scores.
VALUE_TARGETS = ("result", "score")
#: ``format`` and ``version`` of ``checkpoint.pt``.
CHECKPOINT_FORMAT = "tabletop_envs-az-checkpoint"
CHECKPOINT_VERSION = 1
#: Iterations of a run given neither ``iterations`` nor a time budget.
DEFAULT_ITERATIONS = 10
#: Most positions the automatic replay buffer holds, and the memory it may take.
AUTO_BUFFER_POSITIONS = 100_000
AUTO_BUFFER_BYTES = 512 * 2**20


# ---- configuration ----------------------------------------------------------------------------
@dataclass
class AZConfig:
    """Everything an AlphaZero-style run depends on (saved with its results); checked on init."""

    env: str = "iris_v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    hidden: tuple[int, ...] = (256, 256)
    games: int = 64  # games played in lockstep per iteration (one batched search per move)
    simulations: int = 64  # PUCT simulations per move
    c_puct: float = 1.5
    dirichlet_alpha: float | None = None  # None: 10 / mean legal moves (random playouts)
    dirichlet_fraction: float = 0.25
    temperature_moves: int = 10  # moves of a game sampled from the visits; argmax after
    target_temperature: float = 1.0  # policy target visits ** (1 / T), normalized
    value_target: str = "result"  # result | score
    score_scale: float = 10.0  # points: value target tanh(margin / score_scale)
    iterations: int | None = None  # in all, resumed ones included; None: 10, or 0 with a
    # time budget; 0: until the time budget
    time_budget: float | None = None  # minutes of this run; no iteration starts past it
    buffer_size: int = 0  # positions; 0: min(100_000, what fits in 512 MB)
    batch_size: int = 256
    sample_reuse: float = 4.0  # minibatch rows drawn per new position (sets the steps)
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    eval_every: int = 5  # iterations between arena evaluations; 0: none
    eval_games: int = 40
    eval_opponents: tuple[str, ...] = ("greedy", "random")
    eval_simulations: int | None = None  # None: simulations
    rollout_weight: float = 0.0  # weight of random playouts in self-play's leaf values
    eval_rollout_weight: float | None = None  # None: rollout_weight
    rollout_policy: str = "random"  # how playouts move: random | greedy
    eval_rollout_policy: str | None = None  # None: rollout_policy
    final_eval_games: int = 200
    keep_best: bool = False  # keep best.npz, the periodic evaluations' best; it is what ships
    save_buffer: bool = True
    resume: str | None = None  # a run directory or its checkpoint.pt
    opponent: str | None = None  # agent spec seated in a share of the games (e.g. "greedy")
    opponent_share: float = 0.5  # share of each iteration's games with the opponent in them
    model_dtype: str = "float32"  # of model.npz's weights: float32 | float16 (half the size)
    warm_start: str | None = None  # agent spec imitated before self-play (e.g. "greedy")
    warm_games: int = 2000  # games the warm-start agent plays against itself
    warm_epochs: float = 4.0  # passes over the warm-start rows
    warm_epsilon: float = 0.15  # share of random moves in those games
    warm_temperature: float | None = None  # None: uniform over the tied-best actions
    warm_learning_rate: float | None = None  # None: learning_rate
    seed: int = 0
    threads: int = 1  # torch threads (0: torch's default); 1 is fastest for these small nets
    out: str = "runs/az"
    progress_bar: bool = True

    def __post_init__(self) -> None:
        self.env_kwargs = dict(self.env_kwargs)
        self.hidden = tuple(self.hidden)
        self.eval_opponents = tuple(self.eval_opponents)
        if self.iterations is None:
            self.iterations = 0 if self.time_budget is not None else DEFAULT_ITERATIONS
        game_class = env_spec(self.env).load_game()  # ValueError naming the registered envs
        try:
            game_class.params_class(**self.env_kwargs)
        except TypeError as err:
            names = [f.name for f in dataclasses.fields(game_class.params_class)]
            raise ValueError(
                f"{self.env} has no such game parameter ({err}); its parameters are "
                f"{', '.join(names)}"
            ) from None
        if not self.hidden or any(type(h) is not int or h < 1 for h in self.hidden):
            raise ValueError(f"hidden must be one or more layer widths >= 1, got {self.hidden}")
        for name, low in (
            ("games", 1),
            ("simulations", 1),
            ("temperature_moves", 0),
            ("iterations", 0),
            ("buffer_size", 0),
            ("batch_size", 1),
            ("eval_every", 0),
            ("eval_games", 1),
            ("final_eval_games", 0),
            ("threads", 0),
            ("warm_games", 1),
        ):
            value = getattr(self, name)
            if type(value) is not int or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        if self.eval_simulations is not None and (
            type(self.eval_simulations) is not int or self.eval_simulations < 0
        ):
            raise ValueError(
                f"eval_simulations must be an integer >= 0, got {self.eval_simulations}"
            )
        for name in ("rollout_weight", "eval_rollout_weight"):
            value = getattr(self, name)
            if value is not None and (not _number(value) or not 0 <= value <= 1):
                raise ValueError(f"{name} must be in [0, 1], got {value!r}")
        for name in ("rollout_policy", "eval_rollout_policy"):
            value = getattr(self, name)
            if value is not None and value not in ROLLOUT_POLICIES:
                raise ValueError(
                    f"{name} must be one of {', '.join(ROLLOUT_POLICIES)}, got {value!r}"
                )
        for name in (
            "c_puct",
            "score_scale",
            "sample_reuse",
            "learning_rate",
            "target_temperature",
        ):
            if not _number(getattr(self, name)) or not getattr(self, name) > 0:
                raise ValueError(f"{name} must be a number > 0, got {getattr(self, name)!r}")
        if not _number(self.weight_decay) or self.weight_decay < 0:
            raise ValueError(f"weight_decay must be a number >= 0, got {self.weight_decay!r}")
        if not _number(self.dirichlet_fraction) or not 0 <= self.dirichlet_fraction <= 1:
            raise ValueError(
                f"dirichlet_fraction must be in [0, 1], got {self.dirichlet_fraction!r}"
            )
        if self.dirichlet_alpha is not None and (
            not _number(self.dirichlet_alpha) or not self.dirichlet_alpha > 0
        ):
            raise ValueError(
                f"dirichlet_alpha must be a number > 0 (or None: automatic), got "
                f"{self.dirichlet_alpha!r}"
            )
        if self.value_target not in VALUE_TARGETS:
            raise ValueError(
                f"value_target must be one of {', '.join(VALUE_TARGETS)}, got {self.value_target!r}"
            )
        if self.value_target == "score" and score_key(game_class.game_name) is None:
            with_scores = [n for n in registered_envs() if env_spec(n).score_key is not None]
            raise ValueError(
                f"value_target 'score' needs a game with final scores ({', '.join(with_scores)}); "
                f"{self.env} has none: use value_target 'result'"
            )
        if self.time_budget is not None and (
            not _number(self.time_budget) or not self.time_budget > 0
        ):
            raise ValueError(
                f"time_budget must be a number of minutes > 0, got {self.time_budget!r}"
            )
        if self.iterations == 0 and self.time_budget is None:
            raise ValueError("iterations 0 runs until the time budget: give a time_budget too")
        if self.keep_best and not self.eval_every:
            raise ValueError("keep_best chooses by the periodic evaluations: give eval_every > 0")
        if self.eval_every and not self.eval_opponents:
            raise ValueError(
                "periodic evaluations need at least one eval opponent (or eval_every 0)"
            )
        for spec in self.eval_opponents:
            make_agent(spec, self.env)  # ValueError naming the registered agents
        if self.opponent is not None:
            make_agent(self.opponent, self.env)
        if not _number(self.opponent_share) or not 0 <= self.opponent_share <= 1:
            raise ValueError(f"opponent_share must be in [0, 1], got {self.opponent_share!r}")
        if self.model_dtype not in ("float32", "float16"):
            raise ValueError(f"model_dtype must be float32 or float16, got {self.model_dtype!r}")
        if self.warm_start is not None:
            make_agent(self.warm_start, self.env)
        if not _number(self.warm_epochs) or not self.warm_epochs > 0:
            raise ValueError(f"warm_epochs must be a number > 0, got {self.warm_epochs!r}")
        if not _number(self.warm_epsilon) or not 0 <= self.warm_epsilon <= 1:
            raise ValueError(f"warm_epsilon must be in [0, 1], got {self.warm_epsilon!r}")
        if self.warm_learning_rate is not None and (
            not _number(self.warm_learning_rate) or not self.warm_learning_rate > 0
        ):
            raise ValueError(
                f"warm_learning_rate must be a number > 0 (or None: learning_rate), got "
                f"{self.warm_learning_rate!r}"
            )
        if self.warm_temperature is not None and (
            not _number(self.warm_temperature) or not self.warm_temperature > 0
        ):
            raise ValueError(
                f"warm_temperature must be a number > 0 (or None: the tied-best actions), got "
                f"{self.warm_temperature!r}"
            )


def _number(value: object) -> bool:
    """Return whether ``value`` is a finite real number (bools are not numbers here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def build_torch_net(obs_dim: int, num_actions: int, hidden: Sequence[int], seed: int = 0) -> Any:
    """Return the torch twin of a :class:`PolicyValueNet`: ``trunk`` / ``policy`` / ``value``.

    A ``torch.nn.ModuleDict``: ``trunk`` is Linear+ReLU per hidden layer, ``policy`` and
    ``value`` are Linear layers over the last hidden layer (see :func:`torch_forward`).
    Weights start from torch's default initialization under ``torch.manual_seed(seed)``.
    """
    import torch
    from torch import nn

    torch.manual_seed(seed)
    layers: list[Any] = []
    sizes = [int(obs_dim), *(int(h) for h in hidden)]
    for i in range(len(hidden)):
        layers += [nn.Linear(sizes[i], sizes[i + 1]), nn.ReLU()]
    return nn.ModuleDict(
        {
            "trunk": nn.Sequential(*layers),
            "policy": nn.Linear(sizes[-1], int(num_actions)),
            "value": nn.Linear(sizes[-1], 1),
        }
    )


def torch_forward(net: Any, obs: Any) -> tuple[Any, Any]:
    """Return ``(logits (B, A), values (B,))`` of the torch net for ``obs`` (B, D) float32."""
    import torch

    x = net["trunk"](obs)
    return net["policy"](x), torch.tanh(net["value"](x)).squeeze(-1)


def masked_priors(logits: Any, mask: Any) -> Any:
    """Return the softmax of ``logits`` over each row's legal ``mask`` (zero elsewhere)."""
    import torch

    masked = logits.masked_fill(~mask, -math.inf)
    return torch.nan_to_num(torch.softmax(masked, dim=-1), nan=0.0)


def _linear_layers(net: Any) -> list[Any]:
    from torch import nn

    return [m for m in net["trunk"] if isinstance(m, nn.Linear)]


def to_numpy_net(net: Any, game: GameState, **extra_meta: Any) -> PolicyValueNet:
    """Return the torch net's weights as a :class:`PolicyValueNet` for ``game``'s parameters.

    ``extra_meta`` adds keys to the file's meta (e.g. ``env="iris_v0"``). Raises ValueError
    if the net's sizes do not fit the game.
    """
    arrays: dict[str, np.ndarray] = {}

    def put(prefix: str, layer: Any) -> None:
        arrays[f"{prefix}_w"] = layer.weight.detach().cpu().numpy().T.astype(np.float32).copy()
        arrays[f"{prefix}_b"] = layer.bias.detach().cpu().numpy().astype(np.float32).copy()

    trunk = _linear_layers(net)
    for i, layer in enumerate(trunk):
        put(f"trunk_{i}", layer)
    put("policy", net["policy"])
    put("value", net["value"])
    meta = {
        "format": FORMAT,
        "version": VERSION,
        **game_meta(game),
        "hidden": [int(layer.out_features) for layer in trunk],
        **extra_meta,
    }
    return PolicyValueNet(meta, arrays)


def export_npz(
    net: Any, path: str | Path, game: GameState, dtype: str = "float32", **extra_meta: Any
) -> PolicyValueNet:
    """Write the torch net as a network file ``path`` (replaced atomically); return it.

    The file is :class:`PolicyValueNet`'s format, for ``game``'s parameters; ``AZAgent`` plays
    with it (``PolicyValueNet.load(path)``). ``dtype="float16"`` stores half-size weights.
    """
    numpy_net = to_numpy_net(net, game, **extra_meta)
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    numpy_net.save(partial, dtype=dtype)
    os.replace(partial, path)
    return numpy_net


def torch_evaluator(net: Any) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Return ``evaluate(obs, mask) -> (priors, values)`` of the torch net, for ``run_puct``."""
    import torch

    def evaluate(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            logits, values = torch_forward(net, torch.from_numpy(obs))
            priors = masked_priors(logits, torch.from_numpy(mask))
        return priors.numpy(), values.numpy()

    return evaluate


# ---- value targets ---------------------------------------------------------------------------
def value_targets(game: GameState, mode: str = "result", score_scale: float = 10.0) -> np.ndarray:
    """Return each seat's value target (float32, in [-1, 1]) at the end of ``game``.

    ``"result"``: +1 for the sole highest return, 0 for a shared highest, -1 otherwise (the
    arena's rule, so a 2-player game's win/draw/loss). ``"score"``: ``tanh(margin /
    score_scale)`` with ``margin`` the seat's final score minus the best other seat's (games
    whose spec names a ``score_key``).
    """
    if not game.is_terminal:
        raise ValueError("value targets exist only once the game is over")
    n = game.num_players
    if mode == "score":
        key = score_key(game.game_name)
        if key is None:
            raise ValueError(f"{game.game_name} has no final scores; use the 'result' target")
        scores = np.asarray(game.result_info()[key], dtype=np.float64)
        best_other = np.array([np.delete(scores, s).max() for s in range(n)])
        return np.tanh((scores - best_other) / score_scale).astype(np.float32)
    if mode != "result":
        raise ValueError(f"mode must be one of {', '.join(VALUE_TARGETS)}, got {mode!r}")
    returns = game.returns()
    top = returns.max()
    winners = returns >= top - 1e-12
    z = np.where(winners, 1.0 if winners.sum() == 1 else 0.0, -1.0)
    return z.astype(np.float32)


def auto_dirichlet_alpha(
    game_class: type[GameState], params: Any, games: int = 8, seed: int = 0
) -> float:
    """Return ``10 / mean legal moves`` over random playouts, clipped to [0.03, 1].

    AlphaZero's alphas (0.3 for chess, 0.03 for Go) are about 10 over the typical number of
    legal moves, so the noise spreads over a similar share of the moves in every game.
    """
    rng = np.random.default_rng(seed)
    counts = []
    for _ in range(games):
        game = game_class(params, int(rng.integers(2**63)))
        while not game.is_terminal:
            legal = np.flatnonzero(game.legal_mask())
            counts.append(len(legal))
            game.apply(int(legal[rng.integers(len(legal))]))
    return float(np.clip(10.0 / max(float(np.mean(counts)), 1.0), 0.03, 1.0))


# ---- replay buffer -----------------------------------------------------------------------------
class ReplayBuffer:
    """The latest ``capacity`` training positions: observation, legal mask, visits pi, target z.

    Observations are kept in ``obs_dtype`` (the game's integer dtype: checked lossless on every
    add), masks as packed bits and pi as float16, so an Irk position takes about 19 KB.
    """

    def __init__(self, capacity: int, obs_dim: int, num_actions: int, obs_dtype: Any) -> None:
        self.capacity = int(capacity)
        self.num_actions = int(num_actions)
        self.obs = np.zeros((self.capacity, obs_dim), dtype=obs_dtype)
        self.mask = np.zeros((self.capacity, (num_actions + 7) // 8), dtype=np.uint8)
        self.pi = np.zeros((self.capacity, num_actions), dtype=np.float16)
        self.z = np.zeros(self.capacity, dtype=np.float32)
        self.size = 0
        self.next = 0  # where the next row goes (the oldest row once full)
        self.added = 0  # rows ever added

    @staticmethod
    def bytes_per_position(obs_dim: int, num_actions: int, obs_dtype: Any) -> int:
        """Return the memory one stored position takes."""
        return obs_dim * np.dtype(obs_dtype).itemsize + (num_actions + 7) // 8 + 2 * num_actions + 4

    def __len__(self) -> int:
        return self.size

    def add(self, obs: np.ndarray, mask: np.ndarray, pi: np.ndarray, z: np.ndarray) -> None:
        """Append rows (float32 obs (B, D), bool mask (B, A), pi (B, A), z (B,)), oldest out."""
        stored = obs.astype(self.obs.dtype)
        if not np.array_equal(stored, obs):
            raise ValueError(f"observations do not fit the buffer's {self.obs.dtype} losslessly")
        packed = np.packbits(mask.astype(bool), axis=1)
        for start in range(0, len(obs), self.capacity):  # more rows than capacity: keep the last
            rows = slice(start, start + self.capacity)
            count = len(stored[rows])
            at = (self.next + np.arange(count)) % self.capacity
            self.obs[at] = stored[rows]
            self.mask[at] = packed[rows]
            self.pi[at] = pi[rows]
            self.z[at] = z[rows]
            self.next = int((self.next + count) % self.capacity)
            self.size = min(self.capacity, self.size + count)
        self.added += len(obs)

    def rows(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return float32 obs, bool mask, float32 pi (rows summing to 1) and z of ``index``."""
        mask = np.unpackbits(self.mask[index], axis=1, count=self.num_actions).astype(bool)
        pi = self.pi[index].astype(np.float32)
        pi /= pi.sum(axis=1, keepdims=True)
        return self.obs[index].astype(np.float32), mask, pi, self.z[index]

    def state(self) -> dict[str, Any]:
        """Return the stored rows, oldest first, as arrays for ``np.savez``."""
        order = (self.next - self.size + np.arange(self.size)) % self.capacity
        return {
            "obs": self.obs[order],
            "mask": self.mask[order],
            "pi": self.pi[order],
            "z": self.z[order],
            "added": np.array(self.added, dtype=np.int64),
        }

    def load_state(self, data: Any) -> None:
        """Refill from :meth:`state` arrays (a saved ``buffer.npz``); ValueError if malformed."""
        keys = ("obs", "mask", "pi", "z", "added")
        missing = [k for k in keys if k not in data]
        if missing:
            raise ValueError(f"replay buffer file misses {', '.join(missing)}")
        obs, mask, pi, z = (np.asarray(data[k]) for k in keys[:4])
        n = len(z)
        expected = {
            "obs": (obs, (n, self.obs.shape[1]), self.obs.dtype),
            "mask": (mask, (n, self.mask.shape[1]), np.uint8),
            "pi": (pi, (n, self.num_actions), np.float16),
            "z": (z, (n,), np.float32),
        }
        for key, (value, shape, dtype) in expected.items():
            if value.shape != shape or value.dtype != dtype:
                raise ValueError(
                    f"replay buffer {key} is {value.dtype} {value.shape}, expected {dtype} {shape}"
                )
        keep = slice(max(0, n - self.capacity), n)
        self.size = self.next = 0
        count = keep.stop - keep.start
        self.obs[:count] = obs[keep]
        self.mask[:count] = mask[keep]
        self.pi[:count] = pi[keep]
        self.z[:count] = z[keep]
        self.size = count
        self.next = count % self.capacity
        self.added = int(np.asarray(data["added"]))


def buffer_capacity(config: AZConfig, obs_dim: int, num_actions: int, obs_dtype: Any) -> int:
    """Return ``config.buffer_size``, or for 0 the automatic size (:data:`AUTO_BUFFER_BYTES`)."""
    if config.buffer_size:
        return config.buffer_size
    per = ReplayBuffer.bytes_per_position(obs_dim, num_actions, obs_dtype)
    return max(1, min(AUTO_BUFFER_POSITIONS, AUTO_BUFFER_BYTES // per))


def storage_dtype(game: GameState) -> Any:
    """Return the dtype the buffer keeps observations in: the game's own if it is an integer."""
    dtype = np.dtype(game.spec.observation_dtype)
    return dtype if dtype.kind in "iu" else np.dtype(np.float32)


# ---- self-play ---------------------------------------------------------------------------------
@dataclass
class SelfPlayBatch:
    """Training rows from one round of lockstep self-play games, with how they were made."""

    obs: np.ndarray  # (N, D) float32
    mask: np.ndarray  # (N, A) bool
    pi: np.ndarray  # (N, A) float32, the root visit distribution
    z: np.ndarray  # (N,) float32, the value target of the row's seat
    games: int
    moves: int  # moves played (= rows)
    searches: int  # positions searched (rows with more than one legal action)
    seconds: float  # wall clock
    cpu_seconds: float  # this process's CPU time (the honest figure on a shared machine)
    mean_length: float
    results: list[list[float]]  # the games' returns


def self_play(
    evaluate: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    game_class: type[GameState],
    params: Any,
    config: AZConfig,
    rng: np.random.Generator,
    dirichlet_alpha: float,
    on_move: Callable[[int, int], None] | None = None,
    opponent: Agent | None = None,
    opponent_games: int = 0,
) -> SelfPlayBatch:
    """Play ``config.games`` games in lockstep with PUCT and return their training rows.

    At every step one :func:`run_puct` call searches the positions of all unfinished games (a
    position with one legal action is played without search), so the network runs once per
    simulation round on all their leaves. ``on_move(step, active_games)`` hears each step.

    With an ``opponent``, the first ``opponent_games`` games seat it in one seat (game ``i``:
    seat ``i % players``, so every seat takes its turn); it plays there with its own ``act``,
    and only the searching seats' positions become rows. The value targets of those rows are
    the results against that opponent.
    """
    start, cpu_start = time.perf_counter(), time.process_time()
    games = [game_class(params, int(rng.integers(2**63))) for _ in range(config.games)]
    n_players = games[0].num_players
    fixed = [i % n_players if opponent and i < opponent_games else -1 for i in range(len(games))]
    if opponent is not None:
        opponent.reset(int(rng.integers(2**63)))
    rows: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]] = [[] for _ in games]
    plies = [0] * len(games)
    active = list(range(len(games)))
    searches = step = 0
    while active:
        if on_move is not None:
            on_move(step, len(active))
        if opponent is not None:  # the opponent's moves first, then search the rest
            for i in active:
                while not games[i].is_terminal and games[i].current_player == fixed[i]:
                    games[i].apply(opponent.act(games[i], fixed[i]))
                    plies[i] += 1
            active = [i for i in active if not games[i].is_terminal]
            if not active:
                break
        roots = [games[i] for i in active]
        seats = [g.current_player for g in roots]
        obs = encode_batch(roots, seats)
        masks = np.stack([g.legal_mask() for g in roots]).astype(bool)
        counts = np.zeros(masks.shape, dtype=np.float64)
        searched = [j for j in range(len(roots)) if masks[j].sum() > 1]
        forced = [j for j in range(len(roots)) if masks[j].sum() == 1]
        counts[forced] = masks[forced]
        if searched:
            counts[searched] = run_puct(
                [roots[j] for j in searched],
                [seats[j] for j in searched],
                evaluate,
                config.simulations,
                rng,
                c_puct=config.c_puct,
                dirichlet_alpha=dirichlet_alpha,
                dirichlet_fraction=config.dirichlet_fraction,
                rollout_weight=config.rollout_weight,
                rollout_policy=config.rollout_policy,
            )
            searches += len(searched)
        for j, i in enumerate(active):
            visits = counts[j] * masks[j]
            if visits.sum() <= 0:  # no visit reached a legal action: uniform over the legal
                visits = masks[j].astype(np.float64)
            pi = visits / visits.sum()
            if plies[i] < config.temperature_moves:
                action = int(rng.choice(len(pi), p=pi))
            else:
                best = np.flatnonzero(visits == visits.max())
                action = int(best[rng.integers(len(best))])
            target = pi
            if config.target_temperature != 1.0:  # sharpen (T < 1) or flatten the target
                target = visits ** (1.0 / config.target_temperature)
                target = target / target.sum()
            rows[i].append((obs[j], masks[j], target.astype(np.float32), seats[j]))
            games[i].apply(action)
            plies[i] += 1
        active = [i for i in active if not games[i].is_terminal]
        step += 1
    out_obs, out_mask, out_pi, out_z = [], [], [], []
    for game, game_rows in zip(games, rows, strict=True):
        z = value_targets(game, config.value_target, config.score_scale)
        for o, m, p, seat in game_rows:
            out_obs.append(o)
            out_mask.append(m)
            out_pi.append(p)
            out_z.append(z[seat])
    return SelfPlayBatch(
        obs=np.stack(out_obs),
        mask=np.stack(out_mask),
        pi=np.stack(out_pi),
        z=np.asarray(out_z, dtype=np.float32),
        games=len(games),
        moves=len(out_z),
        searches=searches,
        seconds=time.perf_counter() - start,
        cpu_seconds=time.process_time() - cpu_start,
        mean_length=float(np.mean(plies)),
        results=[[float(r) for r in g.returns()] for g in games],
    )


def expert_games(
    expert: Agent,
    game_class: type[GameState],
    params: Any,
    games: int,
    rng: np.random.Generator,
    epsilon: float = 0.1,
    temperature: float | None = None,
    value_target: str = "result",
    score_scale: float = 10.0,
) -> SelfPlayBatch:
    """Play ``games`` games with ``expert`` in every seat and return its decisions as rows.

    The warm start of a run: the network first learns to play like a heuristic (the policy
    target) and how such games end (the value target), then self-play improves on it. A row's
    policy target is uniform over the expert's tied-best actions
    (:meth:`~tabletop_envs.agents.Agent.best_actions`), or with ``temperature`` the softmax of
    its :meth:`~tabletop_envs.agents.Agent.action_scores` over the legal actions divided by
    ``temperature`` (so near-best moves keep some weight). With ``epsilon``, that share of the
    moves actually played is a uniformly random legal one (the row still holds the expert's
    target), so the games also cover positions the expert alone would not reach.
    """
    start, cpu_start = time.perf_counter(), time.process_time()
    expert.reset(int(rng.integers(2**63)))
    out_obs: list[np.ndarray] = []
    out_mask: list[np.ndarray] = []
    out_pi: list[np.ndarray] = []
    out_z: list[float] = []
    lengths, results = [], []
    for _ in range(games):
        game = game_class(params, int(rng.integers(2**63)))
        rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = []
        plies = 0
        while not game.is_terminal:
            seat = game.current_player
            mask = game.legal_mask().astype(bool)
            legal = np.flatnonzero(mask)
            pi = np.zeros(mask.shape, dtype=np.float32)
            if len(legal) == 1:
                pi[legal[0]] = 1.0
                action = int(legal[0])
            else:
                scored = expert.action_scores(game, seat) if temperature is not None else None
                if scored is not None:
                    actions, scores = scored
                    values = np.asarray(scores, dtype=np.float64) / float(temperature)
                    weights = np.exp(values - values.max())
                    pi[actions] = weights / weights.sum()
                    best = np.flatnonzero(pi == pi.max())
                else:
                    best = np.asarray(expert.best_actions(game, seat))
                    pi[best] = 1.0 / len(best)
                if epsilon and rng.random() < epsilon:
                    action = int(legal[rng.integers(len(legal))])
                else:
                    action = int(best[rng.integers(len(best))])
            rows.append((encode(game, seat), mask, pi, seat))
            game.apply(action)
            plies += 1
        z = value_targets(game, value_target, score_scale)
        for o, m, p, seat in rows:
            out_obs.append(o)
            out_mask.append(m)
            out_pi.append(p)
            out_z.append(float(z[seat]))
        lengths.append(plies)
        results.append([float(r) for r in game.returns()])
    return SelfPlayBatch(
        obs=np.stack(out_obs),
        mask=np.stack(out_mask),
        pi=np.stack(out_pi),
        z=np.asarray(out_z, dtype=np.float32),
        games=games,
        moves=len(out_z),
        searches=0,
        seconds=time.perf_counter() - start,
        cpu_seconds=time.process_time() - cpu_start,
        mean_length=float(np.mean(lengths)),
        results=results,
    )


# ---- learning ---------------------------------------------------------------------------------
def train_steps(
    net: Any,
    optimizer: Any,
    buffer: ReplayBuffer,
    steps: int,
    batch_size: int,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Run ``steps`` Adam steps on minibatches drawn uniformly from ``buffer``; return mean losses.

    The loss is the cross-entropy of the masked policy to the visit distribution pi plus the
    squared error of the value to z (the optimizer's weight decay adds the L2 term).
    """
    import torch

    totals = {"loss": 0.0, "policy_loss": 0.0, "value_loss": 0.0}
    net.train()
    for _ in range(steps):
        index = rng.integers(len(buffer), size=min(batch_size, len(buffer)))
        obs, mask, pi, z = (torch.from_numpy(a) for a in buffer.rows(index))
        logits, values = torch_forward(net, obs)
        logp = torch.log_softmax(logits.masked_fill(~mask, torch.finfo(logits.dtype).min), -1)
        policy_loss = -(pi * logp).sum(dim=1).mean()
        value_loss = torch.mean((values - z) ** 2)
        loss = policy_loss + value_loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        totals["loss"] += loss.item()
        totals["policy_loss"] += policy_loss.item()
        totals["value_loss"] += value_loss.item()
    net.eval()
    return {k: v / steps for k, v in totals.items()} if steps else totals


# ---- evaluation --------------------------------------------------------------------------------
def play_settings(config: AZConfig) -> tuple[int, float, str]:
    """Return the simulations, rollout weight and policy the evaluations (and the file) use."""
    simulations = config.simulations if config.eval_simulations is None else config.eval_simulations
    weight = (
        config.rollout_weight if config.eval_rollout_weight is None else config.eval_rollout_weight
    )
    policy = (
        config.rollout_policy if config.eval_rollout_policy is None else config.eval_rollout_policy
    )
    return simulations, float(weight), policy


def evaluate_file(
    path: str | Path,
    config: AZConfig,
    opponent: str,
    games: int,
    seed: int,
) -> dict[str, Any]:
    """Play the network file ``path`` (an ``AZAgent``) against ``opponent`` in the arena.

    The agent takes one seat and ``opponent`` every other, seats rotated game by game
    (:func:`~tabletop_envs.training.arena.run_arena`). Returns its wins, draws, losses, win
    rate with 95% Wilson interval, score and the arena's seconds.
    """
    simulations, rollout_weight, rollout_policy = play_settings(config)
    agent = AZAgent(
        PolicyValueNet.load(path),
        simulations=simulations,
        c_puct=config.c_puct,
        rollout_weight=rollout_weight,
        rollout_policy=rollout_policy,
    )
    n = env_spec(config.env).load_game().new(seed=0, **config.env_kwargs).num_players
    start = time.perf_counter()
    result = run_arena(config.env, [agent] + [opponent] * (n - 1), games, seed, config.env_kwargs)
    stats = result.stats[0]
    return {
        "opponent": opponent,
        "games": games,
        "results": stats.results,
        "wins": stats.wins,
        "draws": stats.draws,
        "losses": stats.losses,
        "win_rate": stats.rate("wins"),
        "ci95": list(stats.interval("wins")),
        "score": stats.score,
        "simulations": simulations,
        "rollout_weight": rollout_weight,
        "rollout_policy": rollout_policy,
        "seconds": time.perf_counter() - start,
    }


def selection_score(vs: dict[str, dict[str, Any]]) -> float:
    """Return the mean over opponents of (wins + draws / 2) / games: what ``keep_best`` ranks."""
    return float(np.mean([(r["wins"] + r["draws"] / 2) / r["games"] for r in vs.values()]))


def format_eval(result: dict[str, Any]) -> str:
    """Return a one-line summary of an :func:`evaluate_file` result."""
    low, high = result["ci95"]
    return (
        f"vs {result['opponent']}: win rate {result['win_rate']:.3f} (95% CI {low:.3f}-"
        f"{high:.3f}; {result['wins']}W {result['draws']}D {result['losses']}L)"
    )


# ---- checkpoints -------------------------------------------------------------------------------
@dataclass
class RunState:
    """The counters of a run that a checkpoint carries on."""

    iteration: int = 0
    positions: int = 0
    games: int = 0
    train_steps: int = 0
    selfplay_seconds: float = 0.0
    selfplay_cpu_seconds: float = 0.0
    train_seconds: float = 0.0
    eval_seconds: float = 0.0
    warm_start: dict[str, Any] = field(default_factory=dict)  # what the warm start did
    best: dict[str, Any] = field(default_factory=dict)  # keep_best: iteration, score of best.npz
    iterations: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)


#: Config fields a resumed run must share with its checkpoint (the network and its game).
RESUME_FIXED = ("env", "env_kwargs", "hidden")


def save_checkpoint(out: Path, net: Any, optimizer: Any, config: AZConfig, run: RunState) -> None:
    """Write ``checkpoint.pt`` (and ``buffer.npz`` is written by the caller), atomically."""
    import torch

    data = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "config": _jsonable(asdict(config)),
        "model": net.state_dict(),
        "optimizer": optimizer.state_dict(),
        "run": _jsonable(asdict(run)),
    }
    partial = out / "checkpoint.pt.partial"
    torch.save(data, partial)
    os.replace(partial, out / "checkpoint.pt")


def save_buffer(out: Path, buffer: ReplayBuffer) -> None:
    """Write the replay buffer to ``buffer.npz`` (replaced atomically)."""
    partial = out / "buffer.npz.partial"
    with open(partial, "wb") as file:
        np.savez(file, **buffer.state())
    os.replace(partial, out / "buffer.npz")


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read a ``checkpoint.pt`` (or the run directory holding one); ValueError if it is not one.

    Read with ``weights_only=True``: tensors and plain data only, no pickled code.
    """
    import torch

    path = Path(path)
    if path.is_dir():
        path = path / "checkpoint.pt"
    if not path.is_file():
        raise ValueError(f"no checkpoint at {path} (resume takes a run directory or checkpoint.pt)")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many kinds on a file that is not its own
        raise ValueError(f"{path} is not a readable checkpoint: {err}") from None
    if (
        not isinstance(data, dict)
        or data.get("format") != CHECKPOINT_FORMAT
        or data.get("version") != CHECKPOINT_VERSION
    ):
        raise ValueError(
            f"{path} is not a {CHECKPOINT_FORMAT} version {CHECKPOINT_VERSION} checkpoint"
        )
    missing = [k for k in ("config", "model", "optimizer", "run") if k not in data]
    if missing:
        raise ValueError(f"{path} misses {', '.join(missing)}")
    data["path"] = path
    return data


def _check_resume(config: AZConfig, saved: dict[str, Any]) -> None:
    """Raise ValueError if ``config`` changes what the checkpoint's network was made for."""
    theirs = saved["config"]
    ours = _jsonable(asdict(config))
    for key in RESUME_FIXED:
        if ours[key] != theirs.get(key):
            raise ValueError(
                f"cannot resume {saved['path']} with {key}={ours[key]!r}: the checkpoint's is "
                f"{theirs.get(key)!r} (the network and its game stay fixed)"
            )


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


# ---- the run ----------------------------------------------------------------------------------
def train_az(
    config: AZConfig,
    *,
    log: Callable[[str], None] | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Run AlphaZero-style training; write model, checkpoint, results JSON and plot; return results.

    Stops after ``config.iterations`` iterations in all (a resumed run counts on from its
    checkpoint) or before an iteration that would end past ``config.time_budget`` minutes (the
    last iteration's duration is the estimate), then plays the final evaluations.
    """
    import torch

    from tabletop_envs.training.sb3 import pin_torch_threads

    say = log or _print
    pin_torch_threads(config.threads)
    start = time.perf_counter()
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    game_class = env_spec(config.env).load_game()
    params = game_class.params_class(**config.env_kwargs)
    proto = game_class(params, 0)
    spec = proto.spec
    obs_dim, num_actions = int(np.prod(spec.observation_shape)), int(spec.num_actions)
    net = build_torch_net(obs_dim, num_actions, config.hidden, seed=config.seed)
    net.eval()
    optimizer = torch.optim.Adam(
        net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    dtype = storage_dtype(proto)
    buffer = ReplayBuffer(
        buffer_capacity(config, obs_dim, num_actions, dtype), obs_dim, num_actions, dtype
    )
    run = RunState()
    if config.resume:
        saved = load_checkpoint(config.resume)
        _check_resume(config, saved)
        net.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        for group in optimizer.param_groups:  # this run's settings, the saved moments
            group["lr"] = config.learning_rate
            group["weight_decay"] = config.weight_decay
        try:
            run = RunState(**saved["run"])
        except TypeError as err:
            raise ValueError(f"{saved['path']}: malformed run counters ({err})") from None
        buffer_file = saved["path"].parent / "buffer.npz"
        if buffer_file.is_file():
            with np.load(buffer_file, allow_pickle=False) as data:
                buffer.load_state(data)
        say(
            f"resumed {saved['path']} at iteration {run.iteration} ({run.positions} positions; "
            f"buffer {len(buffer)} positions{'' if buffer_file.is_file() else ', none saved'})"
        )
    alpha = config.dirichlet_alpha
    if alpha is None:
        alpha = auto_dirichlet_alpha(game_class, params, seed=config.seed)
    if config.warm_start is not None and not config.resume:
        run.warm_start = _warm_start(config, net, optimizer, buffer, game_class, params, say)
    model_path = out / "model.npz"
    # the file's defaults: what its evaluations play with
    play_simulations, play_rollout, play_policy = play_settings(config)
    extra = {
        "env": config.env,
        "simulations": play_simulations,
        "rollout_weight": play_rollout,
        "rollout_policy": play_policy,
    }
    made = {"command": command} if command else {}
    if not model_path.exists() or not config.resume:
        export_npz(
            net,
            model_path,
            proto,
            config.model_dtype,
            **extra,
            trained={"iteration": run.iteration, **made},
        )
    budget = None if config.time_budget is None else 60.0 * config.time_budget
    bar = _progress(config, run.iteration)
    last_seconds = 0.0
    try:
        while not config.iterations or run.iteration < config.iterations:
            elapsed = time.perf_counter() - start
            if budget is not None and elapsed + last_seconds > budget:
                say(
                    f"time budget: stopping after {elapsed / 60:.1f} of {config.time_budget:g} "
                    f"minutes (an iteration takes {last_seconds:.0f} s)"
                )
                break
            t0 = time.perf_counter()
            record = _iteration(config, run, net, optimizer, buffer, game_class, params, alpha, bar)
            export_npz(
                net,
                model_path,
                proto,
                config.model_dtype,
                **extra,
                trained={"iteration": run.iteration, **made},
            )
            if config.save_buffer:
                save_buffer(out, buffer)
            if config.eval_every and run.iteration % config.eval_every == 0:
                t_eval = time.perf_counter()
                point = {k: record[k] for k in ("iteration", "positions", "games")}
                point["vs"] = {
                    opp: evaluate_file(
                        model_path, config, opp, config.eval_games, 10_000 + run.iteration
                    )
                    for opp in config.eval_opponents
                }
                run.eval_seconds += time.perf_counter() - t_eval
                point["seconds"] = time.perf_counter() - start
                run.history.append(point)
                for result in point["vs"].values():
                    _write(bar, say, f"[iteration {run.iteration}] {format_eval(result)}")
                if config.keep_best:
                    score = selection_score(point["vs"])
                    if not run.best or score >= run.best["score"]:
                        shutil.copyfile(model_path, out / "best.npz")
                        run.best = {"iteration": run.iteration, "score": score}
                        _write(bar, say, f"[iteration {run.iteration}] best so far: {score:.3f}")
                record["vs"] = {k: v["win_rate"] for k, v in point["vs"].items()}
            save_checkpoint(out, net, optimizer, config, run)
            last_seconds = time.perf_counter() - t0
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(_postfix(record))
            else:
                say(f"[iteration {run.iteration}] {_postfix(record)}")
    finally:
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - start
    finals = {}
    shipped = out / "best.npz" if config.keep_best and run.best else model_path
    if config.final_eval_games:
        for k, opp in enumerate(config.eval_opponents):
            finals[opp] = evaluate_file(
                shipped, config, opp, config.final_eval_games, config.seed + 1_000_003 + k
            )
    selfplay_rate = run.positions / run.selfplay_seconds if run.selfplay_seconds else 0.0
    cpu_rate = run.positions / run.selfplay_cpu_seconds if run.selfplay_cpu_seconds else 0.0
    results = {
        "algo": "az",
        "config": _jsonable(asdict(config)),
        "env": config.env,
        "dirichlet_alpha": alpha,
        "iterations_done": run.iteration,
        "positions": run.positions,
        "games": run.games,
        "train_steps": run.train_steps,
        "wall_seconds": wall,  # this invocation, before the final evaluations
        "selfplay_seconds": run.selfplay_seconds,  # every iteration so far, resumed ones too
        "train_seconds": run.train_seconds,
        "eval_seconds": run.eval_seconds,
        "warm_start": run.warm_start,
        "selfplay_cpu_seconds": run.selfplay_cpu_seconds,
        "selfplay_positions_per_s": selfplay_rate,
        "selfplay_positions_per_cpu_s": cpu_rate,
        "iterations": run.iterations,
        "history": run.history,
        "final": finals,
        "model": str(model_path),
        "best": {**run.best, "model": str(shipped)} if run.best else {},
        "checkpoint": str(out / "checkpoint.pt"),
    }
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    if run.history or finals:
        plot_az(results, out / "winrate.png")
    say(
        f"{run.iteration} iterations: {run.positions} self-play positions from {run.games} games "
        f"({selfplay_rate:.0f} positions/s in self-play, {cpu_rate:.0f} per CPU second); model "
        f"{model_path}"
    )
    for result in finals.values():
        say(f"final {format_eval(result)} over {result['games']} games")
    return results


def _warm_start(
    config: AZConfig,
    net: Any,
    optimizer: Any,
    buffer: ReplayBuffer,
    game_class: type[GameState],
    params: Any,
    say: Callable[[str], None],
) -> dict[str, Any]:
    """Fit the net to ``config.warm_start``'s games (:func:`expert_games`); return the record.

    The rows train the net for ``warm_epochs`` passes, then join the replay buffer, where
    self-play's rows replace them as it goes.
    """
    assert config.warm_start is not None
    expert = make_agent(config.warm_start, config.env)
    batch = expert_games(
        expert,
        game_class,
        params,
        config.warm_games,
        np.random.default_rng([config.seed, 2**32 - 1]),
        epsilon=config.warm_epsilon,
        temperature=config.warm_temperature,
        value_target=config.value_target,
        score_scale=config.score_scale,
    )
    rows = ReplayBuffer(batch.moves, buffer.obs.shape[1], buffer.num_actions, buffer.obs.dtype)
    rows.add(batch.obs, batch.mask, batch.pi, batch.z)
    steps = max(1, math.ceil(config.warm_epochs * batch.moves / config.batch_size))
    t0 = time.perf_counter()
    if config.warm_learning_rate is not None:
        for group in optimizer.param_groups:
            group["lr"] = config.warm_learning_rate
    losses = train_steps(
        net, optimizer, rows, steps, config.batch_size, np.random.default_rng([config.seed, 2])
    )
    for group in optimizer.param_groups:
        group["lr"] = config.learning_rate
    train_seconds = time.perf_counter() - t0
    buffer.add(batch.obs, batch.mask, batch.pi, batch.z)
    say(
        f"warm start: {batch.games} games of {config.warm_start} ({batch.moves} positions, "
        f"{batch.seconds:.0f} s), {steps} training steps ({train_seconds:.0f} s), loss "
        f"{losses['loss']:.3f} (policy {losses['policy_loss']:.3f}, value "
        f"{losses['value_loss']:.3f})"
    )
    return {
        "agent": config.warm_start,
        "games": batch.games,
        "positions": batch.moves,
        "play_seconds": batch.seconds,
        "train_steps": steps,
        "train_seconds": train_seconds,
        **losses,
    }


def _iteration(
    config: AZConfig,
    run: RunState,
    net: Any,
    optimizer: Any,
    buffer: ReplayBuffer,
    game_class: type[GameState],
    params: Any,
    alpha: float,
    bar: Any,
) -> dict[str, Any]:
    """Play one round of self-play games, add them to the buffer, train; return its record."""
    k = run.iteration
    rng = np.random.default_rng([config.seed, k, 0])  # resumed runs draw as uninterrupted ones

    def on_move(step: int, active: int) -> None:
        if bar is not None:
            bar.set_description_str(f"iteration {k + 1}: move {step + 1}, {active} games")

    opponent = None if config.opponent is None else make_agent(config.opponent, config.env)
    batch = self_play(
        torch_evaluator(net),
        game_class,
        params,
        config,
        rng,
        alpha,
        on_move,
        opponent=opponent,
        opponent_games=round(config.opponent_share * config.games),
    )
    buffer.add(batch.obs, batch.mask, batch.pi, batch.z)
    steps = max(1, math.ceil(config.sample_reuse * batch.moves / config.batch_size))
    t0 = time.perf_counter()
    losses = train_steps(
        net, optimizer, buffer, steps, config.batch_size, np.random.default_rng([config.seed, k, 1])
    )
    train_seconds = time.perf_counter() - t0
    run.iteration += 1
    run.positions += batch.moves
    run.games += batch.games
    run.train_steps += steps
    run.selfplay_seconds += batch.seconds
    run.selfplay_cpu_seconds += batch.cpu_seconds
    run.train_seconds += train_seconds
    record = {
        "iteration": run.iteration,
        "positions": run.positions,
        "games": run.games,
        "new_positions": batch.moves,
        "searched_positions": batch.searches,
        "mean_game_length": batch.mean_length,
        "selfplay_seconds": batch.seconds,
        "selfplay_cpu_seconds": batch.cpu_seconds,
        "positions_per_s": batch.moves / batch.seconds if batch.seconds else 0.0,
        "positions_per_cpu_s": batch.moves / batch.cpu_seconds if batch.cpu_seconds else 0.0,
        "train_steps": steps,
        "train_seconds": train_seconds,
        "buffer": len(buffer),
        **losses,
    }
    run.iterations.append(record)
    return record


def _postfix(record: dict[str, Any]) -> str:
    text = (
        f"{record['positions_per_s']:.0f} pos/s, loss {record['loss']:.3f} "
        f"(pi {record['policy_loss']:.3f}, v {record['value_loss']:.3f})"
    )
    for opp, rate in record.get("vs", {}).items():
        text += f", vs {opp} {rate:.2f}"
    return text


def _progress(config: AZConfig, done: int) -> Any:
    if not config.progress_bar:
        return None
    from tqdm.auto import tqdm

    total = config.iterations or None
    return tqdm(total=total, initial=done, unit="it", dynamic_ncols=True, file=sys.stderr)


def _write(bar: Any, say: Callable[[str], None], text: str) -> None:
    if bar is not None:
        bar.write(text)
    else:
        say(text)


def _print(text: str) -> None:
    print(text, flush=True)


def plot_az(results: dict[str, Any], path: str | Path) -> None:
    """Draw the win rates (95% intervals) against each eval opponent over the iterations."""
    from tabletop_envs.training.train import plot_curves

    curves: dict[str, list[tuple[float, float, float, float]]] = {}
    for point in results["history"]:
        for opp, r in point["vs"].items():
            curves.setdefault(opp, []).append((point["iteration"], r["win_rate"], *r["ci95"]))
    for opp, r in results["final"].items():
        curves.setdefault(opp, []).append((results["iterations_done"], r["win_rate"], *r["ci95"]))
    plot_curves(
        {f"vs {opp}": points for opp, points in curves.items()},
        path,
        xlabel="iteration",
        title=f"{results['env']}: AlphaZero-style self-play",
    )


# ---- command line -----------------------------------------------------------------------------
def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """Return the argument parser of :func:`main` (every default shown in ``--help``)."""
    from tabletop_envs.cli import DefaultsHelpFormatter

    d = AZConfig.__dataclass_fields__
    default = {name: f.default for name, f in d.items() if f.default is not dataclasses.MISSING}
    p = argparse.ArgumentParser(
        prog=prog, description=__doc__.splitlines()[0], formatter_class=DefaultsHelpFormatter
    )
    p.add_argument(
        "--env", default=default["env"], help=f"registered env ({', '.join(registered_envs())})"
    )
    p.add_argument(
        "--env-arg",
        "--param",
        dest="env_arg",
        action="append",
        default=[],
        metavar="K=V",
        help="game parameter, e.g. num_players=3; repeat",
    )
    p.add_argument(
        "--hidden",
        default=",".join(map(str, default["hidden"])),
        help="hidden layer widths of the MLP, comma-separated",
    )
    p.add_argument(
        "--games",
        type=int,
        default=default["games"],
        help="self-play games per iteration, played in lockstep (one batched search per move)",
    )
    p.add_argument(
        "--simulations", type=int, default=default["simulations"], help="PUCT simulations per move"
    )
    p.add_argument("--c-puct", type=float, default=default["c_puct"], help="PUCT exploration")
    p.add_argument(
        "--dirichlet-alpha",
        type=float,
        default=None,
        help="root noise concentration (default: 10 / the mean number of legal moves in "
        "random playouts, clipped to [0.03, 1])",
    )
    p.add_argument(
        "--dirichlet-fraction",
        type=float,
        default=default["dirichlet_fraction"],
        help="share of root noise in the priors",
    )
    p.add_argument(
        "--temperature-moves",
        type=int,
        default=default["temperature_moves"],
        help="moves of each game sampled from the visit counts; the most visited after",
    )
    p.add_argument(
        "--target-temperature",
        type=float,
        default=default["target_temperature"],
        help="policy target: the root visits raised to 1/T, normalized (T < 1 sharpens: with "
        "few simulations the visits are flatter than the play they lead to)",
    )
    p.add_argument(
        "--value-target",
        choices=VALUE_TARGETS,
        default=default["value_target"],
        help="result: +1 win, 0 shared win, -1 loss; score: tanh(score margin / --score-scale) "
        "(isis_osiris_v0, irk_v0)",
    )
    p.add_argument(
        "--score-scale",
        type=float,
        default=default["score_scale"],
        help="points of margin for --value-target score",
    )
    p.add_argument(
        "--iterations",
        type=int,
        default=None,
        help=f"iterations in all, a resumed run's included (default: {DEFAULT_ITERATIONS}, or "
        "until --time-budget when one is given; 0: until --time-budget)",
    )
    p.add_argument(
        "--time-budget",
        type=float,
        default=None,
        metavar="MINUTES",
        help="wall clock of this run: no iteration starts that would end past it (default: none)",
    )
    p.add_argument(
        "--buffer-size",
        type=int,
        default=default["buffer_size"],
        help="replay buffer positions (0: up to 100000, at most 512 MB)",
    )
    p.add_argument("--batch-size", type=int, default=default["batch_size"], help="minibatch rows")
    p.add_argument(
        "--sample-reuse",
        type=float,
        default=default["sample_reuse"],
        help="minibatch rows drawn per new position: steps = ceil(reuse * new / batch size)",
    )
    p.add_argument("--lr", type=float, default=default["learning_rate"], help="Adam learning rate")
    p.add_argument(
        "--weight-decay", type=float, default=default["weight_decay"], help="L2 weight decay"
    )
    p.add_argument(
        "--eval-every",
        type=int,
        default=default["eval_every"],
        help="iterations between arena evaluations of model.npz (0: none)",
    )
    p.add_argument(
        "--eval-games",
        type=int,
        default=default["eval_games"],
        help="games per periodic evaluation",
    )
    p.add_argument(
        "--eval-opponents",
        nargs="+",
        default=list(default["eval_opponents"]),
        metavar="SPEC",
        help="agent specs the network is evaluated against, seats rotated",
    )
    p.add_argument(
        "--eval-simulations",
        type=int,
        default=None,
        help="simulations per move of the evaluated AZAgent (default: --simulations)",
    )
    p.add_argument(
        "--rollout-weight",
        type=float,
        default=default["rollout_weight"],
        help="weight of a random playout's result in self-play's leaf values (0: network only)",
    )
    p.add_argument(
        "--eval-rollout-weight",
        type=float,
        default=None,
        help="the same for the evaluated agent and the file's default (default: --rollout-weight)",
    )
    p.add_argument(
        "--rollout-policy",
        choices=ROLLOUT_POLICIES,
        default=default["rollout_policy"],
        help="how self-play's playouts move: random, or greedy for every seat",
    )
    p.add_argument(
        "--eval-rollout-policy",
        choices=ROLLOUT_POLICIES,
        default=None,
        help="the same for the evaluated agent and the file's default (default: --rollout-policy)",
    )
    p.add_argument(
        "--final-eval-games",
        type=int,
        default=default["final_eval_games"],
        help="games per opponent in the final evaluation (0: none)",
    )
    p.add_argument(
        "--keep-best",
        action="store_true",
        help="keep best.npz, the model the periodic evaluations score highest (mean of wins + "
        "draws/2 over --eval-opponents; later iterations win ties); the final evaluation plays it",
    )
    p.add_argument(
        "--no-save-buffer",
        dest="save_buffer",
        action="store_false",
        help="do not write buffer.npz (a resumed run then starts with an empty buffer)",
    )
    p.add_argument(
        "--resume", metavar="PATH", help="continue a run: its directory or checkpoint.pt"
    )
    p.add_argument(
        "--opponent",
        metavar="SPEC",
        help="an agent seated in --opponent-share of the games (seats rotated), e.g. greedy; "
        "the network learns from its own moves there (default: none, pure self-play)",
    )
    p.add_argument(
        "--opponent-share",
        type=float,
        default=default["opponent_share"],
        help="share of each iteration's games with --opponent in them",
    )
    p.add_argument(
        "--model-dtype",
        choices=("float32", "float16"),
        default=default["model_dtype"],
        help="weights of model.npz; float16 halves the file (outputs move by about 1e-3)",
    )
    p.add_argument(
        "--warm-start",
        metavar="SPEC",
        help="before self-play, fit the net to this agent's games against itself, e.g. greedy "
        "(default: none, self-play from random weights)",
    )
    p.add_argument(
        "--warm-games",
        type=int,
        default=default["warm_games"],
        help="games the --warm-start agent plays",
    )
    p.add_argument(
        "--warm-epochs",
        type=float,
        default=default["warm_epochs"],
        help="passes over the warm-start positions",
    )
    p.add_argument(
        "--warm-epsilon",
        type=float,
        default=default["warm_epsilon"],
        help="share of uniformly random moves in the warm-start games (the targets stay the "
        "agent's)",
    )
    p.add_argument(
        "--warm-lr",
        type=float,
        default=None,
        help="Adam learning rate of the warm start (default: --lr)",
    )
    p.add_argument(
        "--warm-temperature",
        type=float,
        default=None,
        help="policy target softmax(score / T) of the agent's action scores (default: uniform "
        "over its tied-best actions)",
    )
    p.add_argument("--seed", type=int, default=default["seed"], help="seed of the run")
    p.add_argument(
        "--threads", type=int, default=default["threads"], help="torch threads (0: torch's default)"
    )
    p.add_argument("--out", default=default["out"], help="output directory")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def config_from_args(args: argparse.Namespace) -> AZConfig:
    """Build an :class:`AZConfig` from parsed arguments (ValueError on a bad value)."""
    from tabletop_envs.training.train import parse_env_args

    try:
        hidden = tuple(int(x) for x in args.hidden.split(",") if x.strip())
    except ValueError:
        raise ValueError(
            f"hidden must be comma-separated layer widths like 256,256, got {args.hidden!r}"
        ) from None
    return AZConfig(
        env=args.env,
        env_kwargs=parse_env_args(args.env_arg),
        hidden=hidden,
        games=args.games,
        simulations=args.simulations,
        c_puct=args.c_puct,
        dirichlet_alpha=args.dirichlet_alpha,
        dirichlet_fraction=args.dirichlet_fraction,
        temperature_moves=args.temperature_moves,
        target_temperature=args.target_temperature,
        value_target=args.value_target,
        score_scale=args.score_scale,
        iterations=args.iterations,
        time_budget=args.time_budget,
        buffer_size=args.buffer_size,
        batch_size=args.batch_size,
        sample_reuse=args.sample_reuse,
        learning_rate=args.lr,
        weight_decay=args.weight_decay,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        eval_opponents=tuple(args.eval_opponents),
        eval_simulations=args.eval_simulations,
        rollout_weight=args.rollout_weight,
        eval_rollout_weight=args.eval_rollout_weight,
        rollout_policy=args.rollout_policy,
        eval_rollout_policy=args.eval_rollout_policy,
        final_eval_games=args.final_eval_games,
        keep_best=args.keep_best,
        save_buffer=args.save_buffer,
        resume=args.resume,
        opponent=args.opponent,
        opponent_share=args.opponent_share,
        model_dtype=args.model_dtype,
        warm_start=args.warm_start,
        warm_games=args.warm_games,
        warm_epochs=args.warm_epochs,
        warm_epsilon=args.warm_epsilon,
        warm_temperature=args.warm_temperature,
        warm_learning_rate=args.warm_lr,
        seed=args.seed,
        threads=args.threads,
        out=args.out,
        progress_bar=not args.no_progress,
    )


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Command-line entry point: parse ``argv``, train, print the final win rates."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        config = config_from_args(args)
    except ValueError as err:
        parser.error(str(err))  # exits 2 with the usage line
    try:
        import torch  # noqa: F401
        import tqdm  # noqa: F401
    except ImportError as err:
        print(
            f"AlphaZero training needs the train extra ({err}): pip install torch==2.13.0 "
            "&& pip install -e '.[train]' (in a clone)",
            file=sys.stderr,
        )
        return 2
    try:
        given = sys.argv[1:] if argv is None else list(argv)
        shown = ["python", "-m", "tabletop_envs.training.az", *given]
        train_az(config, command=shlex.join(shown))
    except ValueError as err:  # a checkpoint that does not fit, an unreadable file
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
