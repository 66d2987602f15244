"""The replay buffer: the latest training positions, compactly stored, and its size."""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_envs.core.game import GameState
from tabletop_envs.training.az.config import AZConfig

#: Most positions the automatic replay buffer holds, and the memory it may take.
AUTO_BUFFER_POSITIONS = 100_000
AUTO_BUFFER_BYTES = 512 * 2**20


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
        added = np.asarray(data["added"])
        if added.shape != () or added.dtype.kind not in "iu" or not n <= added <= 2**62:
            raise ValueError(
                f"replay buffer added is the count of positions ever added (an integer >= {n}), "
                f"got {added.dtype} {added.shape}"
            )
        if not (np.isfinite(pi).all() and np.isfinite(z).all() and (pi >= 0).all()):
            raise ValueError("replay buffer pi and z must be finite, pi >= 0")
        if n and not (pi.astype(np.float32).sum(axis=1) > 0).all():
            raise ValueError("replay buffer pi rows must each have a positive sum")
        keep = slice(max(0, n - self.capacity), n)
        self.size = self.next = 0
        count = keep.stop - keep.start
        self.obs[:count] = obs[keep]
        self.mask[:count] = mask[keep]
        self.pi[:count] = pi[keep]
        self.z[:count] = z[keep]
        self.size = count
        self.next = count % self.capacity
        self.added = int(added)


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
