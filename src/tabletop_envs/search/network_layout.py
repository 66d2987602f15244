"""A network's architecture as its meta declares it: the checks and the arrays it holds.

Two architectures (``meta["arch"]``, :data:`ARCHS`):

- ``"mlp"`` (files of version 1, which have no ``arch`` key): ``hidden`` dense ReLU layers over
  the flat observation, then the policy and value heads;
- ``"conv"`` (version 2): a convolutional trunk over the board planes, declared by
  ``meta["conv"] = {"board": [start, H, W, C], "channels": F, "blocks": N, "head_channels":
  K}``: the game's :meth:`~tabletop_envs.core.GameState.board_planes`, the observation's
  ``H*W*C`` entries from ``start`` read as an ``(H, W, C)`` grid, row by row. A 3x3 convolution
  (zero padding) to ``F`` channels, ReLU; ``N`` residual blocks (two 3x3 convolutions, ReLU
  after the first, the block's input added before the second ReLU); a 1x1 convolution to ``K``
  channels, ReLU; that map, flattened cell by cell (each cell's ``K`` channels together),
  followed by the observation's entries outside the board (in their order) are the input of the
  ``hidden`` dense layers and the heads, as in the MLP.

Arrays of a ``conv`` network, beyond the MLP's (``trunk_<i>_*``, ``policy_*``, ``value_*``):
``conv_<j>_w`` ``(3, 3, in, F)`` and ``conv_<j>_b`` ``(F,)`` for ``j`` in ``0..2N`` (``conv_0``
the first, ``conv_<2b+1>`` and ``conv_<2b+2>`` block ``b``'s; ``w[dy, dx, c, f]`` weighs input
channel ``c`` at row offset ``dy - 1`` and column offset ``dx - 1``), ``reduce_w`` ``(F, K)``
and ``reduce_b`` ``(K,)``.

Numpy and the standard library only; the checks return the problem as text (None when well
formed), which :mod:`tabletop_envs.search.network_file` raises as its error.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tabletop_envs.core.config import quote

#: ``meta["arch"]`` values: a dense MLP, or a convolutional trunk over the board planes.
ARCHS = ("mlp", "conv")
#: ``meta["version"]`` of each architecture's files (an MLP file written today is version 1,
#: as every file before; a library that reads version 1 only refuses a conv file by its version).
ARCH_VERSIONS = {"mlp": 1, "conv": 2}
#: The keys of ``meta["conv"]``, all required.
CONV_KEYS = ("board", "channels", "blocks", "head_channels")
#: A conv trunk's default channels, residual blocks and reduction channels (16 channels keep
#: Iris's convolutions below the size at which OpenBLAS starts threads).
DEFAULT_CONV = {"channels": 16, "blocks": 2, "head_channels": 4}
#: Most channels of a convolution, residual blocks and board cells a file may declare.
MAX_CHANNELS = 1024
MAX_BLOCKS = 64
MAX_CELLS = 1 << 16


def arch_of(meta: Mapping[str, Any]) -> str:
    """Return a (checked) meta's architecture: its ``arch``, ``"mlp"`` when it has none."""
    return str(meta.get("arch", "mlp"))


def check_version(meta: Mapping[str, Any]) -> str | None:
    """Return what is wrong with a meta's ``version`` (None: one this library reads)."""
    version = meta["version"]
    if type(version) is not int or version not in ARCH_VERSIONS.values():
        return (
            f"network meta version {quote(version)} is not supported; this library reads "
            f"versions {', '.join(f'{v} ({a})' for a, v in ARCH_VERSIONS.items())}"
        )
    return None


def check_arch(meta: Mapping[str, Any], size_limit: int) -> str | None:
    """Return what is wrong with a meta's ``arch`` and ``conv`` (None: well formed).

    ``version``, ``obs_dim`` and ``hidden`` are checked before this is called; ``size_limit``
    bounds the dense input a conv trunk may produce.
    """
    if "arch" not in meta and meta["version"] != ARCH_VERSIONS["mlp"]:
        return f"network meta version {meta['version']} needs an arch ({', '.join(ARCHS)})"
    arch = meta.get("arch", "mlp")
    if arch not in ARCHS:
        return f"network meta arch must be one of {', '.join(ARCHS)}, got {quote(arch)}"
    if meta["version"] != ARCH_VERSIONS[arch]:
        return (
            f"network meta arch {arch!r} is written as version {ARCH_VERSIONS[arch]}, got "
            f"version {meta['version']}"
        )
    if arch != "conv":
        return None if "conv" not in meta else "network meta conv is only for arch 'conv'"
    return _check_conv(meta, size_limit)


def _check_conv(meta: Mapping[str, Any], size_limit: int) -> str | None:
    conv = meta.get("conv")
    if not isinstance(conv, dict) or sorted(conv) != sorted(CONV_KEYS):
        return (
            "network meta conv must be a JSON object with exactly the keys "
            f"{', '.join(CONV_KEYS)}, got {quote(conv, 200)}"
        )
    board = conv["board"]
    if (
        not isinstance(board, list)
        or len(board) != 4
        or not all(type(v) is int for v in board)
        or board[0] < 0
        or not all(1 <= v <= MAX_CELLS for v in board[1:])
    ):
        return (
            "network meta conv board must be [start, H, W, C]: an int >= 0 and three ints in "
            f"1..{MAX_CELLS}, got {quote(board, 200)}"
        )
    start, h, w, c = board
    if h * w > MAX_CELLS or start + h * w * c > meta["obs_dim"]:
        return (
            f"network meta conv board {board} does not fit: its {h}x{w} cells (at most "
            f"{MAX_CELLS}) of {c} planes from entry {start} must lie within obs_dim "
            f"{meta['obs_dim']}"
        )
    for key, low, high in (("channels", 1, MAX_CHANNELS), ("blocks", 0, MAX_BLOCKS)):
        if type(conv[key]) is not int or not low <= conv[key] <= high:
            return (
                f"network meta conv {key} must be an int in {low}..{high}, got {quote(conv[key])}"
            )
    head = conv["head_channels"]
    if type(head) is not int or not 1 <= head <= MAX_CHANNELS:
        return (
            f"network meta conv head_channels must be an int in 1..{MAX_CHANNELS}, got "
            f"{quote(head)}"
        )
    if dense_input(meta) > size_limit:
        return (
            f"network meta conv gives {dense_input(meta)} dense inputs (H*W*head_channels plus "
            f"the entries outside the board); at most {size_limit}"
        )
    return None


def dense_input(meta: Mapping[str, Any]) -> int:
    """Return the input size of the dense layers: ``obs_dim``, or a conv trunk's output size."""
    if arch_of(meta) != "conv":
        return int(meta["obs_dim"])
    _, h, w, c = meta["conv"]["board"]
    return int(h * w * meta["conv"]["head_channels"] + meta["obs_dim"] - h * w * c)


def array_names(meta: Mapping[str, Any]) -> Iterator[str]:
    """Yield the array names of a network with this (checked) meta, in file order."""
    if arch_of(meta) == "conv":
        for j in range(1 + 2 * meta["conv"]["blocks"]):
            yield f"conv_{j}_w"
            yield f"conv_{j}_b"
        yield from ("reduce_w", "reduce_b")
    for i in range(len(meta["hidden"])):
        yield f"trunk_{i}_w"
        yield f"trunk_{i}_b"
    yield from ("policy_w", "policy_b", "value_w", "value_b")


def array_count(meta: Mapping[str, Any]) -> int:
    """Return how many arrays a network with this (checked) meta holds."""
    count = 2 * len(meta["hidden"]) + 4
    if arch_of(meta) == "conv":
        count += 2 * (1 + 2 * meta["conv"]["blocks"]) + 2  # the 3x3 convolutions and reduce
    return count


def array_shapes(meta: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """Return the name and shape of every array a network with this (checked) meta holds."""
    shapes: dict[str, tuple[int, ...]] = {}
    if arch_of(meta) == "conv":
        conv = meta["conv"]
        planes, channels = conv["board"][3], conv["channels"]
        for j in range(1 + 2 * conv["blocks"]):
            shapes[f"conv_{j}_w"] = (3, 3, planes if j == 0 else channels, channels)
            shapes[f"conv_{j}_b"] = (channels,)
        shapes["reduce_w"] = (channels, conv["head_channels"])
        shapes["reduce_b"] = (conv["head_channels"],)
    sizes = [dense_input(meta), *meta["hidden"]]
    for i in range(len(meta["hidden"])):
        shapes[f"trunk_{i}_w"] = (sizes[i], sizes[i + 1])
        shapes[f"trunk_{i}_b"] = (sizes[i + 1],)
    shapes["policy_w"] = (sizes[-1], meta["num_actions"])
    shapes["policy_b"] = (meta["num_actions"],)
    shapes["value_w"] = (sizes[-1], 1)
    shapes["value_b"] = (1,)
    return shapes
