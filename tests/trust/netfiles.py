"""Builders of network files, good and bad, for the trust tests.

Zips are laid out byte by byte here (not by :mod:`zipfile`'s writer) so that a test can declare
whatever it likes: sizes that lie, duplicate names, unknown compression methods, encryption
flags, members of gigabytes deflated into a few kilobytes.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import json
import struct
import zlib
from collections.abc import Iterable
from functools import cache
from typing import Any

import numpy as np

from tabletop_envs.search.network import PolicyValueNet
from tests.agents.helpers import new_game

STORED, DEFLATED = 0, 8
#: (env, params, hidden) of the small networks every test starts from.
SMALL_NETS = (
    ("iris_v0", {"board_size": 3}, (8,)),
    ("isis_osiris_v0", {}, ()),
    ("irk_v0", {}, (4,)),
)
EXPERTS = ("iris_v0", "irk_v0", "isis_osiris_v0")


# ---- .npy members ------------------------------------------------------------------------------
def npy(array: np.ndarray) -> bytes:
    """Return ``array`` as numpy writes an ``.npy`` file (pickling object arrays, as it would)."""
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def npy_header(
    descr: object, shape: object, fortran: object = False, version: tuple[int, int] = (1, 0)
) -> bytes:
    """Return an ``.npy`` header declaring anything (no data follows)."""
    text = repr({"descr": descr, "fortran_order": fortran, "shape": shape})
    return raw_npy_header(text, version)


def raw_npy_header(text: str, version: tuple[int, int] = (1, 0)) -> bytes:
    """Return an ``.npy`` header whose dict is the literal ``text`` (padded as numpy pads)."""
    size_format = "<H" if version[0] == 1 else "<I"
    start = 8 + struct.calcsize(size_format)
    body = text.encode("utf-8" if version[0] >= 3 else "latin-1")
    body += b" " * (-(start + len(body) + 1) % 64) + b"\n"
    return b"\x93NUMPY" + bytes(version) + struct.pack(size_format, len(body)) + body


def meta_npy(meta: object) -> bytes:
    """Return a ``meta.npy`` member holding ``meta`` as JSON."""
    return npy(np.array(json.dumps(meta)))


def header_length(member: bytes) -> int:
    """Return where the data of an ``.npy`` member starts."""
    if member[6] == 1:
        return 10 + int(struct.unpack_from("<H", member, 8)[0])
    return 12 + int(struct.unpack_from("<I", member, 8)[0])


def header_dict(member: bytes) -> dict[str, Any]:
    """Return the header dict of an ``.npy`` member."""
    start = 10 if member[6] == 1 else 12
    value: dict[str, Any] = ast.literal_eval(member[start : header_length(member)].decode())
    return value


# ---- zips --------------------------------------------------------------------------------------
@dataclasses.dataclass
class Entry:
    """One zip member as the directory declares it; ``data`` is what the archive stores."""

    name: str
    data: bytes
    method: int = STORED
    crc: int = 0
    size: int = 0
    flags: int = 0
    name_bytes: bytes | None = None  # raw name bytes, for names no str encodes


def entry(name: str, content: bytes, method: int = STORED, **declared: Any) -> Entry:
    """Return an honest member holding ``content`` (deflated if ``method`` is 8), then
    override what its directory entry declares (``crc``, ``size``, ``flags``, ``method``)."""
    data = deflate(content) if method == DEFLATED else content
    made = Entry(name, data, method, zlib.crc32(content), len(content))
    return dataclasses.replace(made, **declared)


def deflate(content: bytes) -> bytes:
    """Return raw deflate data (as in a zip) of ``content``."""
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    return packer.compress(content) + packer.flush()


@cache
def deflated_zeros(count: int, prefix: bytes = b"") -> bytes:
    """Return raw deflate data of ``prefix`` and ``count`` zero bytes, cheaply (about 1000:1).

    Each MiB of zeros is its own full-flushed block, so one compressed block is repeated.
    """
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    out = [packer.compress(prefix), packer.flush(zlib.Z_FULL_FLUSH)]
    mib = bytes(1 << 20)
    block = packer.compress(mib) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(mib) + packer.flush(zlib.Z_FULL_FLUSH)
    assert block == again
    whole, rest = divmod(count, 1 << 20)
    if whole:
        out += [block, again * (whole - 1)]
    out += [packer.compress(bytes(rest)), packer.flush()]
    return b"".join(out)


def crc_of_zeros(count: int, prefix: bytes = b"") -> int:
    """Return the CRC-32 of ``prefix`` followed by ``count`` zero bytes."""
    crc = zlib.crc32(prefix)
    mib = bytes(1 << 20)
    whole, rest = divmod(count, 1 << 20)
    for _ in range(whole):
        crc = zlib.crc32(mib, crc)
    return zlib.crc32(bytes(rest), crc)


def build_zip(entries: Iterable[Entry], directory_size: int | None = None) -> bytes:
    """Return a zip of ``entries`` (local headers, data, directory, end record), no zip64.

    ``directory_size`` overrides the size the end record declares for the directory.
    """
    out, directory, count = bytearray(), bytearray(), 0
    for item in entries:
        name = item.name_bytes if item.name_bytes is not None else item.name.encode("utf-8")
        flags = item.flags | (0 if name.isascii() else 0x800)
        sizes = (item.crc, len(item.data), item.size)
        offset = len(out)
        out += struct.pack(
            "<4s5H3L2H", b"PK\x03\x04", 20, flags, item.method, 0, 0x21, *sizes, len(name), 0
        )
        out += name + item.data
        directory += struct.pack(
            "<4s6H3L5H2L", b"PK\x01\x02", 20, 20, flags, item.method, 0, 0x21, *sizes,
            len(name), 0, 0, 0, 0, 0, offset,
        )  # fmt: skip
        directory += name
        count += 1
    declared = len(directory) if directory_size is None else directory_size
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, declared, len(out), 0)
    return bytes(out + directory + end)


def with_zip64_end(data: bytes, directory_size: int | None = None) -> bytes:
    """Return the zip ``data`` with zip64 end records before its end record (as a big file has).

    ``directory_size`` overrides the size the zip64 record declares for the directory.
    """
    body, end = data[:-22], data[-22:]
    count, size, offset = struct.unpack_from("<HLL", end, 10)
    size = size if directory_size is None else directory_size
    record = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size, offset)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, len(body), 1)
    return body + record + locator + end


# ---- networks ----------------------------------------------------------------------------------
@cache
def small_net(index: int) -> PolicyValueNet:
    """Return small network ``index`` of :data:`SMALL_NETS` (random weights, seeded)."""
    env_name, params, hidden = SMALL_NETS[index]
    return PolicyValueNet.initial(new_game(env_name, params, 0), hidden=hidden, seed=index)


def net_members(net: PolicyValueNet, dtype: str = "float32") -> dict[str, bytes]:
    """Return the members of ``net``'s file: ``meta.npy`` then one ``.npy`` per array."""
    members = {"meta.npy": meta_npy(net.meta)}
    for key, value in net.arrays.items():
        members[f"{key}.npy"] = npy(value.astype(dtype))
    return members


def net_file(members: dict[str, bytes], method: int = STORED) -> bytes:
    """Return an honest network file of ``members``."""
    return build_zip(entry(name, content, method) for name, content in members.items())


@cache
def expert_bytes(env_name: str) -> bytes:
    """Return the bytes of the packaged expert of ``env_name``."""
    from importlib.resources import files

    return (files("tabletop_envs.agents") / "experts" / f"{env_name}.npz").read_bytes()


@cache
def base_files() -> tuple[tuple[str, bytes], ...]:
    """Return the valid files mutations start from: (label, bytes)."""
    out = []
    for index in range(len(SMALL_NETS)):
        net = small_net(index)
        for dtype in ("float32", "float16"):
            for method in (STORED, DEFLATED):
                label = f"{SMALL_NETS[index][0]} {dtype} method {method}"
                out.append((label, net_file(net_members(net, dtype), method)))
        saved = io.BytesIO()
        net.save(saved)  # as the library writes it (np.savez: zip64 extras in local headers)
        out.append((f"{SMALL_NETS[index][0]} saved", saved.getvalue()))
    out += [(f"expert {name}", expert_bytes(name)) for name in EXPERTS]
    return tuple(out)
