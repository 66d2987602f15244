"""Zip bombs and huge declarations: network files that would take gigabytes if read naively.

Each builder takes ``n``, the bytes the bomb expands to (or declares), and returns a file of a
few kilobytes to a few megabytes. Run as a script, this module loads every bomb and prints the
growth of the process's peak RSS per case, as JSON (the tests run it in a fresh process).
"""

from __future__ import annotations

import dataclasses
import io
import json
import resource
import struct
import sys
from typing import Any

from tabletop_envs.search.network import NetworkFileError, PolicyValueNet
from tests.trust import netfiles as nf


def _small_file(**replaced: nf.Entry) -> bytes:
    """The iris test network's file (stored) with some members replaced."""
    members = nf.net_members(nf.small_net(0))
    entries = {name: nf.entry(name, content) for name, content in members.items()}
    entries.update(replaced)
    return nf.build_zip(entries.values())


def _header_of(name: str) -> bytes:
    content = nf.net_members(nf.small_net(0))[name]
    return content[: nf.header_length(content)]


def _zeros_member(name: str, header: bytes, count: int, **declared: Any) -> nf.Entry:
    """A member whose deflated data is ``header`` and ``count`` zero bytes (a few KB per MiB)."""
    made = nf.Entry(name, nf.deflated_zeros(count, header), nf.DEFLATED, 0, len(header) + count)
    return dataclasses.replace(made, **declared)


def _meta_with(**changes: Any) -> bytes:
    return nf.meta_npy({**nf.small_net(0).meta, **changes})


def _bomb_member(n: int) -> bytes:
    return _small_file(
        **{"trunk_0_w.npy": _zeros_member("trunk_0_w.npy", _header_of("trunk_0_w.npy"), n)}
    )


def _bomb_meta(n: int) -> bytes:
    header = nf.npy_header(f"<U{n // 4}", ())
    return _small_file(**{"meta.npy": _zeros_member("meta.npy", header, n)})


def _lying_sizes(n: int, crc_right: bool) -> bytes:
    name = "trunk_0_w.npy"
    header, true = _header_of(name), len(nf.net_members(nf.small_net(0))[name])
    nbytes = true - len(header)
    crc = nf.crc_of_zeros(nbytes, header) if crc_right else 0
    return _small_file(**{name: _zeros_member(name, header, n, size=true, crc=crc)})


def _huge_header(n: int) -> bytes:
    content = nf.npy_header("<f4", (10**12,)) + bytes(200)
    return _small_file(**{"trunk_0_w.npy": nf.entry("trunk_0_w.npy", content)})


def _huge_meta_shapes(n: int) -> bytes:
    meta = _meta_with(obs_dim=2**20, hidden=[2**20], num_actions=2**20)
    return _small_file(**{"meta.npy": nf.entry("meta.npy", meta)})


def _honest_zero_layer(n: int) -> bytes:
    """A meta declaring a layer of ``n`` bytes, and that layer: zeros, honestly deflated."""
    width = max(1, n // (4 * 2**20))
    meta = _meta_with(obs_dim=2**20, hidden=[width])
    header = nf.npy_header("<f4", (2**20, width))
    member = _zeros_member("trunk_0_w.npy", header, 4 * 2**20 * width)
    return _small_file(**{"meta.npy": nf.entry("meta.npy", meta), "trunk_0_w.npy": member})


def _declared_layer(n: int) -> bytes:
    """A meta declaring a layer of ``n`` bytes, whose member declares it from a few bytes."""
    width = max(1, n // (4 * 2**20))
    header = nf.npy_header("<f4", (2**20, width))
    member = nf.entry("trunk_0_w.npy", header, nf.DEFLATED, size=len(header) + 4 * 2**20 * width)
    meta = nf.entry("meta.npy", _meta_with(obs_dim=2**20, hidden=[width]))
    return _small_file(**{"meta.npy": meta, "trunk_0_w.npy": member})


def _declared_directory(n: int) -> bytes:
    members = nf.net_members(nf.small_net(0))
    return nf.build_zip((nf.entry(k, v) for k, v in members.items()), directory_size=n)


def _many_members(n: int) -> bytes:
    extra = (nf.entry(f"x{i:05d}.npy", b"") for i in range(25_000))
    members = nf.net_members(nf.small_net(0))
    return nf.build_zip([*(nf.entry(k, v) for k, v in members.items()), *extra])


def _many_layers(n: int) -> bytes:
    return _small_file(**{"meta.npy": nf.entry("meta.npy", _meta_with(hidden=[1] * 60_000))})


def _overlapping(n: int) -> bytes:
    """Every member's data runs on to the end of one kernel, ``n`` zeros deflated (overlaps)."""
    names = [name.encode() for name in nf.net_members(nf.small_net(0))]
    kernel = nf.deflated_zeros(n)
    headers = [
        struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0x21, 0, 0, n, len(name), 0) + name
        for name in names
    ]
    body = b"".join(headers) + kernel
    directory, offset = b"", 0
    for name, header in zip(names, headers, strict=True):
        compressed = len(body) - offset - len(header)
        directory += struct.pack(
            "<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0x21, 0, compressed, n, len(name),
            0, 0, 0, 0, 0, offset,
        )  # fmt: skip
        directory += name
        offset += len(header)
    count = len(names)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, len(directory), len(body), 0)
    return body + directory + end


def _zip64_directory(n: int) -> bytes:
    """A zip64 end record (which zipfile prefers) declaring a directory of ``n`` bytes."""
    return nf.with_zip64_end(nf.net_file(nf.net_members(nf.small_net(0))), n)


BOMBS = {
    "a member of N zeros": _bomb_member,
    "a meta of N zeros": _bomb_meta,
    "sizes that lie, CRC wrong": lambda n: _lying_sizes(n, crc_right=False),
    "sizes that lie, CRC right": lambda n: _lying_sizes(n, crc_right=True),
    "a header declaring 10**12 floats": _huge_header,
    "a meta declaring a 4 TiB layer": _huge_meta_shapes,
    "a meta declaring an N-byte layer of deflated zeros": _honest_zero_layer,
    "an N-byte layer declared from a few bytes": _declared_layer,
    "a directory declaring N bytes": _declared_directory,
    "25,000 members": _many_members,
    "60,000 layers": _many_layers,
    "members overlapping one kernel of N zeros": _overlapping,
    "a zip64 directory declaring N bytes": _zip64_directory,
}


def main(n: int) -> None:
    """Load every bomb of ``n`` bytes; print the outcomes and how much the peak RSS grew.

    Prints ``{"cases": {case: outcome}, "grown": MiB}``: the growth of the process's peak RSS
    from just before the first load to after the last (the bombs are built before).
    """
    files = {case: build(n) for case, build in BOMBS.items()}
    PolicyValueNet.load(io.BytesIO(nf.net_file(nf.net_members(nf.small_net(0)))))  # warm up
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cases = {}
    for case, data in files.items():
        try:
            PolicyValueNet.load(io.BytesIO(data))
            cases[case] = "loaded"
        except NetworkFileError:
            cases[case] = "refused"
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # KiB on Linux
    print(json.dumps({"cases": cases, "grown": grown / 2**10}))


if __name__ == "__main__":
    main(int(sys.argv[1]))
