"""The network file: its meta, its arrays' shapes and its reader (numpy and the standard library).

A network file is an ``.npz`` archive (the format is described in
:mod:`tabletop_envs.search.network`): a zip of ``.npy`` members, ``meta.npy`` (a 0-d unicode
array holding the JSON meta, checked by :func:`check_meta`) and one member per array of
:func:`array_shapes`.

A file is untrusted input. :func:`read_network` checks it in this order, reads no array data
before everything above it has passed, and raises :class:`NetworkFileError` (a ``ValueError``)
naming the member and what is valid at the first problem:

1. the file is a zip archive (not a single ``.npy`` array) whose directory takes at most
   :data:`MAX_DIRECTORY` bytes;
2. every member has a name of its own, is stored or deflated (no other compression method, no
   encryption), and its compressed bytes fit in the file; all members together expand at most
   :data:`MAX_EXPANSION` times (plus 1 MiB): weights hardly compress, and
   :meth:`~tabletop_envs.search.network.PolicyValueNet.save` stores them uncompressed, so a file
   of mostly zeros that would expand more is a zip bomb;
3. ``meta.npy`` takes at most :data:`MAX_META_BYTES` and is a 0-d unicode ``.npy`` array holding
   a JSON object that :func:`check_meta` accepts;
4. the member names are exactly ``meta.npy`` and ``<array>.npy`` for the arrays the meta needs;
5. every array member's declared size fits its shape (and a deflated member's size is one its
   compressed bytes can hold: deflate expands at most 1032 times); its ``.npy`` header (format
   1.0 or 2.0), read with a bounded read, must be the flat dict numpy writes before numpy
   parses it (never pickle), and declare float32 or float16, the meta's shape and exactly the
   member's size;
6. only then is each array read, with one read of exactly that size (zipfile checks its CRC).

So nothing is decompressed beyond a member's declared size, a declared size needs compressed
bytes that are in the file, and the memory a file takes is what a valid network of its
declared shape takes. Values (finite) are checked when the network is built
(:class:`~tabletop_envs.search.network.PolicyValueNet`).
"""

from __future__ import annotations

import io
import itertools
import json
import math
import os
import re
import stat
import struct
import sys
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import IO, Any

import numpy as np
from numpy.lib import format as npy

from tabletop_envs.core.config import quote
from tabletop_envs.search.network_layout import (
    ARCH_VERSIONS,
    arch_of,
    array_count,
    array_names,
    array_shapes,
    check_arch,
    check_version,
)

#: ``meta["format"]`` of a network file.
FORMAT = "tabletop_envs-az"
#: ``meta["version"]`` of an MLP file (what this module writes for one; a conv network is
#: version 2: :data:`~tabletop_envs.search.network_layout.ARCH_VERSIONS`).
VERSION = ARCH_VERSIONS["mlp"]
#: Keys ``meta`` must hold (more are allowed).
META_KEYS = ("format", "version", "game", "params", "obs_dim", "num_actions", "hidden")
#: Largest layer width or input/output size a file may declare (a guard against absurd files).
MAX_SIZE = 1 << 20
#: Values a file's ``"rollout_policy"`` may hold: the playout an agent plays this network with by
#: default (the file format's key and values, unchanged; a search takes every one of
#: :data:`tabletop_envs.search.playouts.PLAYOUTS`).
ROLLOUT_POLICIES = ("random", "greedy")
#: Values a file's ``"guide"`` may hold: the heuristic an agent guides its root with by default
#: (:mod:`tabletop_envs.search.guide`).
GUIDES = ("greedy", "planner")
#: Values a file's ``"value_target"`` may hold: what its value head learnt, the scale a search
#: backs up finished games and playouts on (:data:`tabletop_envs.search.values.VALUE_TARGETS`).
VALUE_TARGETS = ("result", "score")
#: Values a file's ``"root"`` may hold: the root rule an agent searches this network with by
#: default (``"puct"``: the most visited action; ``"gumbel"``: :mod:`tabletop_envs.search.gumbel`).
ROOTS = ("puct", "gumbel")
#: Most simulations per move an agent (or a file's default) may ask for.
MAX_SIMULATIONS = 10**7
#: Largest ``meta.npy`` member, in bytes (its JSON is read whole, before anything else).
MAX_META_BYTES = 1 << 20
#: Largest zip directory a network file may have, in bytes (thousands of members).
MAX_DIRECTORY = 1 << 20
#: Largest ``.npy`` header, in bytes, so that the magic, the length and the header fit in the
#: 4 KiB zipfile reads at least (numpy writes about 120 bytes for a network's arrays).
MAX_HEADER = 4096 - 12
#: Most bytes one compressed byte of deflate data can become (the format's limit is 1032:1).
DEFLATE_RATIO = 1032
#: Most times a file's members together may expand their compressed bytes (plus 1 MiB).
MAX_EXPANSION = 64
#: The dtypes a network array may be stored in.
ARRAY_DTYPES = (np.dtype(np.float32), np.dtype(np.float16))

_EOCD = b"PK\x05\x06"  # the zip end record, 22 bytes, possibly followed by a comment
_EOCD64_LOCATOR = b"PK\x06\x07"  # 20 bytes just before the end record of a zip64 archive
_EOCD64 = b"PK\x06\x06"  # 56 bytes just before that locator
#: An ``.npy`` header as numpy writes it: a flat dict of strings, bools and tuples of ints.
_NPY_VALUE = r"(?:'[^'\\\n]*'|True|False|\(\s*(?:\d+\s*,\s*)*(?:\d+\s*)?\))"
_NPY_ITEM = rf"'\w+'\s*:\s*{_NPY_VALUE}"
_NPY_HEADER = re.compile(rf"\{{\s*(?:{_NPY_ITEM}\s*,\s*)*(?:{_NPY_ITEM}\s*)?\}}\s*", re.ASCII)
_NOT_PLAIN = 0x1 | 0x20 | 0x40  # flag bits: encrypted, compressed patched data, strong encryption
#: What zipfile, zlib and numpy raise on a damaged archive, member or header.
_DAMAGE = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    OSError,
    ValueError,
    struct.error,
    NotImplementedError,
    RuntimeError,
)


class NetworkFileError(ValueError):
    """A network file, or a network's meta or arrays, that is not a valid network.

    ``member`` names the file's member at fault (``"meta.npy"``, ``"trunk_0_w.npy"``), or is
    None when the problem is the file as a whole; the message says what is wrong and what is
    valid.
    """

    def __init__(self, message: str, member: str | None = None) -> None:
        super().__init__(message)
        self.member = member


# ---- the meta ----------------------------------------------------------------------------------
def check_meta(meta: object) -> dict[str, Any]:
    """Return ``meta`` (a network file's JSON object) if well formed; NetworkFileError if not."""
    if not isinstance(meta, dict):
        raise _meta_error(f"network meta must be a JSON object, got {type(meta).__name__}")
    missing = [k for k in META_KEYS if k not in meta]
    if missing:
        raise _meta_error(
            f"network meta misses {', '.join(missing)} (needs {', '.join(META_KEYS)})"
        )
    if meta["format"] != FORMAT:
        raise _meta_error(f"network meta format must be {FORMAT!r}, got {quote(meta['format'])}")
    problem = check_version(meta)
    if problem:
        raise _meta_error(problem)
    if not isinstance(meta["game"], str) or not meta["game"]:
        raise _meta_error(f"network meta game must be a game name, got {quote(meta['game'])}")
    if not isinstance(meta["params"], dict):
        raise _meta_error(f"network meta params must be a JSON object, got {quote(meta['params'])}")
    for key in ("obs_dim", "num_actions"):
        value = meta[key]
        if type(value) is not int or not 1 <= value <= MAX_SIZE:
            raise _meta_error(
                f"network meta {key} must be an int in 1..{MAX_SIZE}, got {quote(value)}"
            )
    hidden = meta["hidden"]
    if not isinstance(hidden, list) or not all(
        type(h) is int and 1 <= h <= MAX_SIZE for h in hidden
    ):
        raise _meta_error(
            f"network meta hidden must be a list of layer widths (ints in 1..{MAX_SIZE}), "
            f"got {quote(hidden)}"
        )
    problem = check_arch(meta, MAX_SIZE)  # the arch fits the version; a conv trunk's shape
    if problem:
        raise _meta_error(problem)
    _check_defaults(meta)
    return meta


def _check_defaults(meta: dict[str, Any]) -> None:
    """Check the meta's optional agent defaults (simulations, playouts, value scale, root)."""
    if "simulations" in meta and (
        type(meta["simulations"]) is not int or not 0 <= meta["simulations"] <= MAX_SIMULATIONS
    ):
        raise _meta_error(
            f"network meta simulations must be an int in 0..{MAX_SIMULATIONS}, got "
            f"{quote(meta['simulations'])}"
        )
    _check_number(meta, "rollout_weight", within_unit=True)
    if "value_target" in meta and meta["value_target"] not in VALUE_TARGETS:
        raise _meta_error(
            f"network meta value_target must be one of {', '.join(VALUE_TARGETS)}, got "
            f"{quote(meta['value_target'])}"
        )
    _check_number(meta, "score_scale", within_unit=False)
    if "root" in meta and meta["root"] not in ROOTS:
        raise _meta_error(
            f"network meta root must be one of {', '.join(ROOTS)}, got {quote(meta['root'])}"
        )
    if "reuse" in meta and type(meta["reuse"]) is not bool:
        raise _meta_error(f"network meta reuse must be true or false, got {quote(meta['reuse'])}")
    if "guide" in meta and meta["guide"] not in GUIDES:
        raise _meta_error(
            f"network meta guide must be one of {', '.join(GUIDES)}, got {quote(meta['guide'])}"
        )
    _check_number(meta, "guide_weight", within_unit=True)
    _check_number(meta, "guide_temperature", within_unit=False)
    if "rollout_policy" in meta and meta["rollout_policy"] not in ROLLOUT_POLICIES:
        raise _meta_error(
            f"network meta rollout_policy must be one of {', '.join(ROLLOUT_POLICIES)}, got "
            f"{quote(meta['rollout_policy'])}"
        )


def _check_number(meta: dict[str, Any], key: str, *, within_unit: bool) -> None:
    """Check the meta's optional number ``key``: in [0, 1] (``within_unit``), else finite > 0."""
    if key not in meta:
        return
    x = meta[key]
    if within_unit:
        if type(x) not in (int, float) or not 0 <= x <= 1:
            raise _meta_error(f"network meta {key} must be a number in [0, 1], got {quote(x)}")
    elif type(x) not in (int, float) or not 0 < x < math.inf:
        raise _meta_error(f"network meta {key} must be a finite number > 0, got {quote(x)}")


def _meta_error(message: str) -> NetworkFileError:
    return NetworkFileError(message, "meta.npy")


# ---- the reader --------------------------------------------------------------------------------
def read_network(
    source: str | os.PathLike[str] | IO[bytes],
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Return a network file's checked meta and its arrays (float32 or float16, read-only).

    ``source`` is a path (``~`` expanded) or a seekable binary file object. A file that is not a
    valid network raises :class:`NetworkFileError`, a missing one too (``"no network file at
    ..."``).
    """
    name = shown_name(source)
    with _opened(source, name) as file:
        return _Reader(file, name).read()


def shown_name(source: object) -> str:
    """Return how messages name ``source``: its path (cut if long), else ``"network file"``."""
    if not isinstance(source, (str, os.PathLike)):
        return "network file"
    text = os.fsdecode(source) if not isinstance(source, str) else source
    return text if len(text) <= 200 and text.isprintable() else quote(text, 200)


@contextmanager
def _opened(source: str | os.PathLike[str] | IO[bytes], name: str) -> Iterator[IO[bytes]]:
    """Yield ``source`` opened for binary reading (a path is opened and closed here)."""
    if not isinstance(source, (str, os.PathLike)):
        methods = ("read", "seek", "tell", "seekable")
        if not all(callable(getattr(source, method, None)) for method in methods):
            raise TypeError(
                "a network file is a path or a binary file object (read, seek, tell, seekable), "
                f"got {type(source).__name__}"
            )
        yield source
        return
    path = os.path.expanduser(source)  # a shell leaves 'az:~/m.npz' alone; messages say '~'
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # opening a pipe would wait for a writer
            raise NetworkFileError(
                f"cannot read network file {name}: not a regular file (a folder, a device or "
                "a pipe)"
            )
        file = open(path, "rb")  # noqa: SIM115 (closed by the with block below)
    except FileNotFoundError:
        raise NetworkFileError(f"no network file at {name}") from None
    except NetworkFileError:
        raise
    except (OSError, ValueError) as err:  # no permission, a NUL in the path, a name too long
        why = err.strerror if isinstance(err, OSError) and err.strerror else _cut(err)
        raise NetworkFileError(f"cannot read network file {name}: {why}") from None
    with file:
        yield file


class _Reader:
    """One reading of one network file: the steps of the module's docstring, in order."""

    def __init__(self, file: IO[bytes], name: str) -> None:
        self.file = file
        self.name = name
        self.size = 0
        self.members: dict[str, zipfile.ZipInfo] = {}

    def read(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Check and read the whole file."""
        self._check_container()
        with self._damage(None):
            archive = zipfile.ZipFile(self.file)
        with archive:
            self._check_members(archive)
            meta = self._read_meta(archive)
            self._check_names(meta)  # before the shapes: a meta may declare 100,000 layers
            shapes = array_shapes(meta)
            for key, shape in shapes.items():
                most = 12 + MAX_HEADER + 4 * math.prod(shape)
                self._check_size(f"{key}.npy", most, f"a float32 array of shape {shape}")
            arrays = {key: self._read_array(archive, key, shape) for key, shape in shapes.items()}
        return meta, arrays

    # ---- the archive -----------------------------------------------------------------------
    def _unreadable(self, problem: str, member: str | None = None) -> NetworkFileError:
        where = f" (member {_shown_member(member)})" if member else ""
        return NetworkFileError(
            f"{self.name} is not a readable network file (.npz){where}: {problem}", member
        )

    @contextmanager
    def _damage(self, member: str | None) -> Iterator[None]:
        """Turn what zipfile, zlib and numpy raise on damaged bytes into a NetworkFileError."""
        try:
            yield
        except NetworkFileError:
            raise
        except _DAMAGE as err:
            raise self._unreadable(_cut(err) or type(err).__name__, member) from None

    def _check_container(self) -> None:
        with self._damage(None):
            if not self.file.seekable():
                raise self._unreadable("a network file must be a seekable binary file")
            head = self.file.read(len(npy.MAGIC_PREFIX))
            self.size = self.file.seek(0, os.SEEK_END)
            if not isinstance(head, bytes):
                raise self._unreadable("a text stream, not bytes")
            if head == npy.MAGIC_PREFIX:
                raise self._unreadable("a single .npy array, not an .npz archive")
            directory = _directory_size(self.file, self.size)
        if directory is None:
            raise self._unreadable("not a zip archive (no end of directory record)")
        if directory > MAX_DIRECTORY:
            raise self._unreadable(
                f"its zip directory takes {directory} bytes; a network file's takes at most "
                f"{MAX_DIRECTORY}"
            )

    def _check_members(self, archive: zipfile.ZipFile) -> None:
        total = declared = 0
        for info in archive.infolist():
            member = info.filename
            if member in self.members:
                raise self._unreadable("it appears twice; each member is stored once", member)
            self.members[member] = info
            if info.flag_bits & _NOT_PLAIN:
                raise self._unreadable(
                    f"it is encrypted or patched (flag bits {info.flag_bits:#06x}); network "
                    "files store their members plainly",
                    member,
                )
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise self._unreadable(
                    f"compression method {info.compress_type}; network file members are "
                    f"stored ({zipfile.ZIP_STORED}) or deflated ({zipfile.ZIP_DEFLATED})",
                    member,
                )
            total += info.compress_size
            declared += info.file_size
            if total > self.size:
                raise self._unreadable(
                    f"the members declare more compressed bytes ({total} so far) than the "
                    f"file holds ({self.size})",
                    member,
                )
        if declared > MAX_EXPANSION * total + (1 << 20):
            raise self._unreadable(
                f"its members declare {declared} bytes from {total} compressed bytes; a network "
                f"file expands at most {MAX_EXPANSION} times (plus 1 MiB), more is a zip bomb"
            )

    def _check_size(self, member: str, most: int, what: str) -> None:
        """Refuse a member larger than ``what`` needs (``most`` bytes) or than its data allows."""
        info = self.members[member]
        if info.file_size > most:
            raise self._unreadable(
                f"it declares {info.file_size} bytes; {what} takes at most {most}", member
            )
        if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
            raise self._unreadable(
                f"stored with {info.compress_size} bytes for {info.file_size} bytes of content",
                member,
            )
        if info.file_size > DEFLATE_RATIO * (info.compress_size + 16):
            raise self._unreadable(
                f"it declares {info.file_size} bytes from {info.compress_size} compressed "
                f"bytes; deflate expands at most {DEFLATE_RATIO} times",
                member,
            )

    def _check_names(self, meta: dict[str, Any]) -> None:
        """Refuse members other than ``meta.npy`` and the arrays the meta needs (any depth)."""
        total = array_count(meta) + 1
        expected = itertools.chain(["meta.npy"], (f"{key}.npy" for key in array_names(meta)))
        holds = (
            f"a network with {_described(meta)} holds "
            f"{_listed(itertools.islice(expected, 13), total)}"
        )
        missing = [key for key in array_names(meta) if f"{key}.npy" not in self.members]
        if missing:
            raise NetworkFileError(
                f"{self.name}: network misses arrays {_listed(missing)} ({holds})",
                f"{missing[0]}.npy",
            )
        names = {"meta.npy", *(f"{key}.npy" for key in array_names(meta))}
        extra = sorted(set(self.members) - names)
        if extra:
            raise NetworkFileError(
                f"{self.name}: network has unexpected arrays {_listed(extra)}; {holds}", extra[0]
            )

    # ---- the members -----------------------------------------------------------------------
    def _header(
        self, archive: zipfile.ZipFile, member: str
    ) -> tuple[np.dtype[Any], Any, bool, int, bytes]:
        """Return a member's ``.npy`` dtype, shape, Fortran order, header length and first bytes.

        Only the member's first bytes are read (at most the longest header allowed: the whole
        member when it is that small), and the header must be the flat dict numpy writes before
        numpy parses it (so ``ast.literal_eval`` never sees deeply nested text).
        """
        info = self.members[member]
        with archive.open(info) as opened:
            head = opened.read(min(info.file_size, 12 + MAX_HEADER))
        stream = io.BytesIO(head)
        version = npy.read_magic(stream)
        if version not in ((1, 0), (2, 0)):
            raise self._unreadable(
                f".npy format version {version[0]}.{version[1]}; network files use 1.0 or 2.0",
                member,
            )
        size_format = "<H" if version == (1, 0) else "<I"
        size_bytes = stream.read(struct.calcsize(size_format))
        (size,) = struct.unpack(size_format, size_bytes)
        if size > MAX_HEADER:
            raise self._unreadable(f"an .npy header of {size} bytes; at most {MAX_HEADER}", member)
        header = stream.read(size)
        text = header.decode("latin-1")
        if len(header) != size or not _NPY_HEADER.fullmatch(text):
            raise self._unreadable(
                f"its .npy header {quote(text, 80)} is not the flat dict numpy writes "
                "(descr, fortran_order, shape)",
                member,
            )
        read = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
        shape, fortran, dtype = read(io.BytesIO(size_bytes + header), MAX_HEADER)
        return dtype, shape, fortran, stream.tell(), head

    def _content(
        self,
        archive: zipfile.ZipFile,
        member: str,
        head: bytes,
        header: int,
        nbytes: int,
        what: str,
    ) -> bytes:
        """Return a member's whole content, once its declared size is ``header`` + ``nbytes``.

        ``head`` is what :meth:`_header` read: the whole member if it is small, else the member
        is read again in one read of exactly its size (a small read followed by a large one
        would make zipfile copy the array).
        """
        info = self.members[member]
        if info.file_size != header + nbytes:
            raise self._unreadable(
                f"it declares {info.file_size} bytes; its .npy header ({header} bytes) and "
                f"{what} ({nbytes} bytes) take {header + nbytes}",
                member,
            )
        if len(head) == info.file_size:
            return head
        with archive.open(info) as stream:
            content = stream.read(info.file_size)
        if len(content) != info.file_size:
            raise self._unreadable(f"cut short: {len(content)} of {info.file_size} bytes", member)
        return content

    def _read_meta(self, archive: zipfile.ZipFile) -> dict[str, Any]:
        if "meta.npy" not in self.members:
            raise NetworkFileError(
                f"{self.name} has no 'meta' entry (member meta.npy): not a {FORMAT} network file",
                "meta.npy",
            )
        self._check_size("meta.npy", MAX_META_BYTES, "the meta")
        with self._damage("meta.npy"):
            dtype, shape, _, header, head = self._header(archive, "meta.npy")
            if dtype.kind != "U" or shape != ():
                raise NetworkFileError(
                    f"{self.name}: 'meta' must be a 0-d unicode array holding JSON, got dtype "
                    f"{_cut(dtype, 80)} shape {quote(shape)}",
                    "meta.npy",
                )
            size = dtype.itemsize
            content = self._content(archive, "meta.npy", head, header, size, "its text")
        big_endian = dtype.byteorder == ">" or (dtype.byteorder == "=" and sys.byteorder == "big")
        try:
            text = content[header:].decode("utf-32-be" if big_endian else "utf-32-le")
            meta = json.loads(text.rstrip("\0"))
        except (ValueError, RecursionError) as err:
            raise NetworkFileError(
                f"{self.name}: 'meta' is not valid JSON ({_cut(err)})", "meta.npy"
            ) from None
        try:
            return check_meta(meta)
        except NetworkFileError as err:
            raise NetworkFileError(f"{self.name}: {err}", err.member) from None

    def _read_array(self, archive: zipfile.ZipFile, key: str, shape: tuple[int, ...]) -> np.ndarray:
        member = f"{key}.npy"
        with self._damage(member):
            dtype, got, fortran, header, head = self._header(archive, member)
            if dtype.hasobject:
                raise self._unreadable(
                    "it holds Object arrays, which only pickle reads (never done here); "
                    "network arrays are float32 or float16",
                    member,
                )
            if dtype not in ARRAY_DTYPES:
                raise NetworkFileError(
                    f"{self.name}: network array {key} must be a float32 (or float16) numpy "
                    f"array, got {_cut(dtype, 80)}",
                    member,
                )
            if got != shape:
                raise NetworkFileError(
                    f"{self.name}: network array {key} must have shape {shape}, got {quote(got)}",
                    member,
                )
            count = math.prod(shape)
            nbytes = count * dtype.itemsize
            content = self._content(archive, member, head, header, nbytes, f"{dtype} {shape}")
        array = np.frombuffer(content, dtype, count, offset=header)
        return array.reshape(shape[::-1]).T if fortran else array.reshape(shape)


def _directory_size(file: IO[bytes], size: int) -> int | None:
    """Return how many bytes of zip directory zipfile will read from ``file`` (None: no zip).

    The end record is found as zipfile finds it: at the very end, else the last one in the
    final 64 KiB (after an archive comment); a zip64 record just before it then has the say.
    """
    tail_size = min(size, 22)  # the record alone, else the record and the longest comment
    file.seek(size - tail_size)
    tail = file.read(tail_size)
    at = len(tail) - 22
    if not (at >= 0 and tail[at : at + 4] == _EOCD and tail[-2:] == b"\0\0"):
        tail_size = min(size, 22 + (1 << 16))
        file.seek(size - tail_size)
        tail = file.read(tail_size)
        at = tail.rfind(_EOCD)
        if at < 0 or len(tail) - at < 22:
            return None
    (directory,) = struct.unpack_from("<L", tail, at + 12)
    location = size - tail_size + at
    if location >= 76:
        file.seek(location - 76)
        zip64 = file.read(76)
        if zip64[:4] == _EOCD64 and zip64[56:60] == _EOCD64_LOCATOR:
            (directory,) = struct.unpack_from("<Q", zip64, 40)
    return int(directory)


def _described(meta: Mapping[str, Any]) -> str:
    """Return how messages name a network's shape: its hidden widths, and its conv trunk."""
    hidden = f"hidden={quote(meta['hidden'])}"
    return hidden if arch_of(meta) == "mlp" else f"arch conv, conv={quote(meta['conv'])}, {hidden}"


def _shown_member(member: str) -> str:
    return member if member.isprintable() and len(member) <= 60 else quote(member, 60)


def _listed(names: Iterable[str], total: int | None = None, most: int = 12) -> str:
    """Return ``names`` joined with commas, at most ``most`` of them (an error stays short).

    ``total`` is how many there are when ``names`` holds only the first ones.
    """
    names = list(names)
    total = len(names) if total is None else total
    shown = ", ".join(_shown_member(n) for n in names[:most])
    return shown if total <= most else f"{shown} and {total - most} more"


def _cut(err: object, limit: int = 300) -> str:
    text = str(err)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."
