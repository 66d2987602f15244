"""Network files are untrusted input: a file that loads plays; anything else is refused.

Hypothesis mutates valid files (the packaged experts and small networks, stored and deflated,
float32 and float16) byte by byte, rebuilds them member by member with wrong names, compression
methods, flags, declared sizes, dtypes, shapes, ``.npy`` headers and metas, and asserts the
loader's promise (:func:`_outcome`): either a valid network that plays, or
:class:`NetworkFileError` naming the member, with a short message; no other exception, no hang.
Zip bombs and huge declared shapes are refused within a memory bound, and pickle payloads never
run. The CI-sized run tries a few hundred files in a few seconds; the slow run thousands
(``python -m pytest -q -m slow tests/trust/test_trust_network_files.py``).
"""

from __future__ import annotations

import dataclasses
import gc
import io
import json
import os
import pickle
import resource
import subprocess
import sys
import threading
import time
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop_envs.agents.az import AZAgent
from tabletop_envs.agents.az import NetworkFileError as ReExported
from tabletop_envs.search.network import NetworkFileError, PolicyValueNet
from tabletop_envs.search.network_file import MAX_META_BYTES
from tests.agents.helpers import new_game
from tests.trust import netfiles as nf
from tests.trust.bombs import BOMBS

#: Longest a refusal's message may be (an error never echoes a whole file).
MESSAGE_LIMIT = 1000
#: Longest one load may take, in CPU seconds (a hang fails the test; CPU time, so other programs
#: on a shared machine do not count).
TIME_LIMIT = 10.0


# ---- the promise -------------------------------------------------------------------------------
def _outcome(data: bytes) -> str:
    """Load ``data``: a network that plays ("loaded") or NetworkFileError ("refused")."""
    start = time.process_time()
    try:
        net = PolicyValueNet.load(io.BytesIO(data))
    except NetworkFileError as err:
        _check_refusal(err)
        return "refused"
    finally:
        assert time.process_time() - start < TIME_LIMIT, "the loader took too long"
    _check_plays(net)
    return "loaded"


def _check_refusal(err: NetworkFileError) -> None:
    message = str(err)
    assert len(message) <= MESSAGE_LIMIT, message[:200]
    assert isinstance(err, ValueError) and isinstance(err, ReExported)
    member = err.member
    if member is not None and member.isprintable() and len(member) <= 60:
        stem = member.removesuffix(".npy")
        assert stem in message, f"{message!r} does not name {member!r}"


def _games() -> dict[tuple[str, str], tuple[str, dict[str, Any]]]:
    """Map a meta's (game, params) to the env and params of the networks the tests start from."""
    out = {}
    nets = [(nf.small_net(i), nf.SMALL_NETS[i][:2]) for i in range(len(nf.SMALL_NETS))]
    for index in range(len(nf.SMALL_NETS)):
        net, (env_name, params) = nets[index]
        out[(net.meta["game"], json.dumps(net.meta["params"], sort_keys=True))] = (env_name, params)
    for env_name in nf.EXPERTS:
        meta = PolicyValueNet.load(io.BytesIO(nf.expert_bytes(env_name))).meta
        out[(meta["game"], json.dumps(meta["params"], sort_keys=True))] = (env_name, {})
    return out


GAMES = _games()


def _check_plays(net: PolicyValueNet) -> None:
    """A loaded network is well formed, evaluates sanely and plays its game (if we know it)."""
    for key, value in net.arrays.items():
        assert value.dtype == np.float32 and not value.flags.writeable, key
        assert np.isfinite(value).all(), key
    rng = np.random.default_rng(0)
    obs = rng.integers(0, 2, size=(2, net.obs_dim)).astype(np.float32)
    mask = np.ones((2, net.num_actions), dtype=bool)
    priors, values = net(obs, mask)
    assert np.all(np.abs(priors.sum(axis=1) - 1.0) < 1e-4) and np.all(np.abs(values) <= 1.0)
    known = GAMES.get((net.meta["game"], json.dumps(net.meta["params"], sort_keys=True)))
    if known is not None and net.obs_dim == _obs_dim(*known):
        game = new_game(*known, 0)
        action = AZAgent(net, simulations=3, seed=0).act(game, game.current_player)
        assert game.legal_mask()[action]


def _obs_dim(env_name: str, params: dict[str, Any]) -> int:
    return int(new_game(env_name, params, 0).observation(0).size)


def _run(strategy: st.SearchStrategy[bytes], examples: int) -> dict[str, int]:
    counts = {"refused": 0, "loaded": 0}

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=strategy)
    def check(data: bytes) -> None:
        counts[_outcome(data)] += 1

    check()
    print(counts)
    return counts


# ---- byte mutations ----------------------------------------------------------------------------
def _hotspots(data: bytes) -> list[int]:
    """Offsets worth hitting: local headers, the start of every member's data, the directory."""
    import zipfile

    spots = []
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            name_length, extra_length = np.frombuffer(
                data, "<u2", 2, info.header_offset + 26
            ).tolist()
            spots += [info.header_offset, info.header_offset + 30 + name_length + extra_length]
        spots.append(archive.start_dir)
    return [*spots, max(0, len(data) - 22)]


HOTSPOTS = {label: _hotspots(data) for label, data in nf.base_files()}


@st.composite
def mutated_files(draw: st.DrawFn, bases: tuple[tuple[str, bytes], ...]) -> bytes:
    """A valid file with one to three bit flips, byte changes, cuts, deletions or insertions."""
    label, original = draw(st.sampled_from(bases))
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 3))):
        if not data:
            break
        spot = draw(st.sampled_from(HOTSPOTS[label]))
        at = draw(st.integers(0, len(data) - 1) | st.integers(spot, spot + 120))
        at = min(at, len(data) - 1)
        op = draw(st.sampled_from(["flip", "set", "cut", "delete", "insert"]))
        if op == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "set":
            data[at] = draw(st.sampled_from([0, 0xFF, 0x7F, 0x80]) | st.integers(0, 255))
        elif op == "cut":
            del data[at:]
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        else:
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
    return bytes(data)


SMALL_BASES = tuple(base for base in nf.base_files() if not base[0].startswith("expert"))
EXPERT_BASES = tuple(base for base in nf.base_files() if base[0].startswith("expert"))


def test_the_files_mutations_start_from_load_and_play() -> None:
    assert {_outcome(data) for _, data in nf.base_files()} == {"loaded"}


def test_mutated_small_files_are_refused_or_play() -> None:
    _run(mutated_files(SMALL_BASES), 80)


def test_mutated_experts_are_refused_or_play() -> None:
    _run(mutated_files(EXPERT_BASES), 30)


@pytest.mark.slow
def test_mutated_files_slow() -> None:
    _run(mutated_files(SMALL_BASES), 1500)
    _run(mutated_files(EXPERT_BASES), 500)


# ---- rebuilt files -----------------------------------------------------------------------------
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
EDGE_VALUES = [0, -1, 1, 2, 8, 2**20, 2**20 + 1, 10**30, True, 1.0, 0.5, "", "random", [], [1]]
DTYPES = [
    "<f8", ">f4", ">f2", "<i4", "|u1", "|b1", "<c8", "<U4", "|S4", "|V4", "<M8[s]", "O",
    [("a", "<f4")], "(2,)<f4",
]  # fmt: skip
NAMES = ["meta", "meta.npy", "policy_w", "trunk_9_w.npy", "x/", "../up.npy", "META.NPY", "é.npy"]
HEADER_TEXTS = [
    "{'descr': '<f4', 'fortran_order': False, 'shape': (10**12,)}",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,)}",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
    "{'descr': '<f4', 'fortran_order': 1, 'shape': ()}",
    "{'descr': 'O', 'fortran_order': False, 'shape': (1,)}",
    "{'descr': '<f4', 'shape': (1,)}",
    "[" * 300 + "]" * 300,
    "-" * 9000 + "1",
    "-" * 4000 + "1",
    "+" * 4000 + "1",
    "{" * 100 + "}" * 100,
    "{'descr': '<f4', 'fortran_order': False, 'shape': (" + "-" * 4000 + "1,)}",
    "{'descr': [('a', '<f4', (10**9,))], 'fortran_order': False, 'shape': (1,)}",
    "{'descr': '(100000,100000)<f4', 'fortran_order': False, 'shape': (1,)}",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (" + "9" * 5000 + ",)}",
    "__import__('os').system('false')",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}",
]


@st.composite
def rebuilt_files(draw: st.DrawFn) -> bytes:
    """A small network's file rebuilt member by member, with one to three things changed."""
    index = draw(st.integers(0, len(nf.SMALL_NETS) - 1))
    dtype = draw(st.sampled_from(["float32", "float16"]))
    members = [list(item) for item in nf.net_members(nf.small_net(index), dtype).items()]
    entries = [nf.entry(name, content, draw(st.sampled_from([0, 8]))) for name, content in members]
    directory_size = None
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(entries) - 1)) if entries else 0
        op = draw(st.sampled_from([*sorted(_REBUILD_OPS), "directory"]))
        if op == "directory":
            directory_size = draw(st.integers(0, 2**32 - 1))
        elif entries or op == "extra":
            _REBUILD_OPS[op](draw, entries, i)
    return nf.build_zip(entries, directory_size)


def _content(entry: nf.Entry) -> bytes:
    import zlib

    return entry.data if entry.method != 8 else zlib.decompress(entry.data, -15)


def _parsed(content: bytes) -> dict[str, Any] | None:
    """Return the header dict of an ``.npy`` member, None if an earlier change spoiled it."""
    try:
        header = nf.header_dict(content) if content.startswith(b"\x93NUMPY") else None
    except Exception:  # a header the change made unparsable (even MemoryError, TypeError)
        return None
    return header if isinstance(header, dict) and "descr" in header else None


def _reencode(entry: nf.Entry, content: bytes) -> nf.Entry:
    return nf.entry(entry.name, content, entry.method if entry.method in (0, 8) else 0)


def _op_drop(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    del entries[i]


def _op_extra(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    name = draw(st.sampled_from(NAMES) | st.text(max_size=12))
    content = draw(
        st.sampled_from([b"", nf.npy(np.zeros(3, np.float32))])
        | st.binary(max_size=64)
        | st.just(_content(entries[i]) if entries else b"")
    )
    entries.insert(draw(st.integers(0, len(entries))), nf.entry(name, content))


def _op_rename(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    entries[i].name = draw(st.sampled_from(NAMES) | st.text(max_size=12))


def _op_duplicate(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    entries.insert(draw(st.integers(0, len(entries))), dataclasses.replace(entries[i]))


def _op_reorder(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    entries[:] = draw(st.permutations(entries))


def _op_method(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    entries[i].method = draw(st.sampled_from([1, 9, 12, 14, 93, 99, 65535]))


def _op_flags(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    entries[i].flags = draw(st.sampled_from([0x1, 0x8, 0x20, 0x40, 0x800]) | st.integers(0, 0xFFFF))


def _op_declared(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    field = draw(st.sampled_from(["crc", "size"]))
    value = getattr(entries[i], field)
    new = draw(st.integers(0, 2**32 - 1) | st.integers(max(0, value - 16), value + 16))
    setattr(entries[i], field, new)


def _small_array(content: bytes) -> np.ndarray | None:
    """Return the array of an ``.npy`` member, None if an earlier change made it unreadable."""
    header = _parsed(content)
    shape = header.get("shape") if header else None
    if not isinstance(shape, tuple) or not all(type(d) is int and 0 <= d < 10**6 for d in shape):
        return None
    if np.prod(shape) > 10**6:
        return None
    try:
        return np.lib.format.read_array(io.BytesIO(content), allow_pickle=False)
    except Exception:  # spoiled by an earlier change (numpy even raises SystemError)
        return None


def _op_dtype(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    array = _small_array(_content(entries[i]))
    if array is None:
        return
    new = draw(st.sampled_from(DTYPES))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # complex to real and the like: not the point here
            changed = array.astype(np.dtype(new))
    except (TypeError, ValueError):
        changed = np.zeros(array.shape, np.dtype(new))
    entries[i] = _reencode(entries[i], nf.npy(changed))


def _op_shape(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    content = _content(entries[i])
    header = _parsed(content)
    if header is None:
        return
    dims = st.sampled_from([0, 1, 2, 3, 10**12, 2**31, 2**63, -1]) | st.integers(0, 40)
    shape = draw(st.lists(dims, max_size=3).map(tuple))
    new = nf.npy_header(header["descr"], shape, header["fortran_order"])
    entries[i] = _reencode(entries[i], new + content[nf.header_length(content) :])


def _op_header(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    content = _content(entries[i])
    header = _parsed(content)
    if header is None:
        return
    version = draw(st.sampled_from([(1, 0), (2, 0), (3, 0), (1, 1), (0, 0), (255, 255)]))
    text = draw(st.sampled_from([repr(header), *HEADER_TEXTS]) | st.text(max_size=60) | _nested())
    try:
        new = nf.raw_npy_header(text, version)
    except UnicodeEncodeError:
        return
    entries[i] = _reencode(entries[i], new + content[nf.header_length(content) :])


def _nested() -> st.SearchStrategy[str]:
    """Deeply nested or chained text: what breaks a parser that recurses."""
    return st.builds(
        lambda opener, count, closer: opener * count + "1" + closer * count,
        st.sampled_from(["(", "[", "{", "-", "+", "~", "not ", "{'a': "]),
        st.integers(1, 9000),
        st.sampled_from(["", ")", "]", "}"]),
    )


def _op_data(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    content = bytearray(_content(entries[i]))
    header = _parsed(bytes(content))
    if header is None:
        return
    start = nf.header_length(bytes(content))
    how = draw(st.sampled_from(["cut", "extend", "nan", "inf", "fortran"]))
    if how == "cut":
        del content[draw(st.integers(start, max(start, len(content) - 1))) :]
    elif how == "extend":
        content += draw(st.binary(min_size=1, max_size=32))
    elif how == "fortran":
        array = _small_array(bytes(content))
        if array is None:
            return
        content = bytearray(nf.npy(np.asfortranarray(array)))
    elif header["descr"] in ("<f4", "<f2"):
        itemsize = np.dtype(header["descr"]).itemsize
        count = (len(content) - start) // itemsize
        if count:
            at = start + itemsize * draw(st.integers(0, count - 1))
            bad = np.array(np.nan if how == "nan" else -np.inf, header["descr"]).tobytes()
            content[at : at + itemsize] = bad
    entries[i] = _reencode(entries[i], bytes(content))


def _op_meta(draw: st.DrawFn, entries: list[nf.Entry], i: int) -> None:
    where = [k for k, e in enumerate(entries) if e.name == "meta.npy"]
    if not where:
        return
    at = where[0]
    array = _small_array(_content(entries[at]))
    try:
        meta = json.loads(array[()].item()) if array is not None and array.ndim == 0 else {}
    except Exception:  # spoiled by an earlier change
        meta = {}
    if not isinstance(meta, dict):
        meta = {}
    entries[at] = _reencode(entries[at], draw(meta_variants(meta)))


@st.composite
def meta_variants(draw: st.DrawFn, meta: dict[str, Any]) -> bytes:
    """A ``meta.npy`` member: the meta with keys changed, or stored in some other way."""
    meta = dict(meta)
    for _ in range(draw(st.integers(0, 2))):
        key = draw(st.sampled_from([*sorted(meta), "simulations", "rollout_weight", "extra"]))
        if draw(st.booleans()):
            meta[key] = draw(st.sampled_from(EDGE_VALUES) | JSON)
        else:
            meta.pop(key, None)
    text = json.dumps(meta)
    how = draw(
        st.sampled_from(
            ["json", "json", "bytes", "S", "1-d", "object", "text", "big-endian", "huge", "bad"]
        )
    )
    if how == "json":
        return nf.meta_npy(meta)
    if how == "bytes":
        return text.encode()
    if how == "S":
        return nf.npy(np.array(text.encode()))
    if how == "1-d":
        return nf.npy(np.array([text]))
    if how == "object":
        return nf.npy(np.array(meta, dtype=object))
    if how == "text":
        return nf.npy(np.array(draw(st.text(max_size=40))))
    if how == "big-endian":
        return nf.npy(np.array(text).astype(f">U{max(1, len(text))}"))
    if how == "huge":
        return nf.npy(np.array(" " * (MAX_META_BYTES // 4) + text))
    raw = draw(st.binary(min_size=4, max_size=16).filter(lambda b: len(b) % 4 == 0))
    return nf.npy_header(f"<U{len(raw) // 4}", ()) + raw


_REBUILD_OPS = {
    "drop": _op_drop,
    "extra": _op_extra,
    "rename": _op_rename,
    "duplicate": _op_duplicate,
    "reorder": _op_reorder,
    "method": _op_method,
    "flags": _op_flags,
    "declared": _op_declared,
    "dtype": _op_dtype,
    "shape": _op_shape,
    "header": _op_header,
    "data": _op_data,
    "meta": _op_meta,
}


def test_rebuilt_files_are_refused_or_play() -> None:
    counts = _run(rebuilt_files(), 100)
    assert counts["refused"] and counts["loaded"]


@pytest.mark.slow
def test_rebuilt_files_slow() -> None:
    _run(rebuilt_files(), 3000)


# ---- zip bombs and huge declarations -----------------------------------------------------------
#: Most memory one load of a bomb may take, in MiB (a valid network of the bomb's shape: < 1).
BOMB_LIMIT_MIB = 50
#: Bytes a bomb expands to: CI-sized, and the slow run's (the issue's 1.5 GiB).
CI_BOMB, SLOW_BOMB = 256 << 20, 1536 << 20


def _measured(data: bytes) -> tuple[str, float, float]:
    """Return the outcome of loading ``data``, the growth of the peak RSS and the traced peak.

    The RSS is read around a plain load (tracemalloc's own bookkeeping would inflate it), then
    a second load is traced.
    """
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    outcome = _outcome(data)
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # KiB on Linux
    tracemalloc.start()
    try:
        assert _outcome(data) == outcome
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return outcome, grown / 2**10, peak / 2**20


def _check_bomb(case: str, size: int) -> None:
    data = BOMBS[case](size)
    outcome, grown, peak = _measured(data)
    print(f"{case}: {len(data)} bytes, {outcome}, peak RSS +{grown:.1f} MiB, traced {peak:.1f} MiB")
    assert peak < BOMB_LIMIT_MIB and grown < BOMB_LIMIT_MIB, (peak, grown)
    if case != "sizes that lie, CRC right":  # that one holds a valid network: zeros
        assert outcome == "refused"


@pytest.mark.parametrize("case", sorted(BOMBS))
def test_bombs_are_refused_in_bounded_memory(case: str) -> None:
    _check_bomb(case, CI_BOMB)


def _fresh_process(size: int) -> dict[str, Any]:
    """Load every bomb in a fresh process; return the outcomes and the peak RSS growth (MiB)."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root)])}
    done = subprocess.run(
        [sys.executable, "-m", "tests.trust.bombs", str(size)],
        capture_output=True, text=True, check=True, cwd=root, env=env, timeout=600,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _check_fresh_process(size: int) -> None:
    result = _fresh_process(size)
    print(json.dumps(result))
    assert sorted(result["cases"]) == sorted(BOMBS)
    for case, outcome in result["cases"].items():
        assert outcome == "refused" or case == "sizes that lie, CRC right", case
    grown = result["grown"]
    assert grown < BOMB_LIMIT_MIB, f"the peak RSS grew by {grown:.1f} MiB loading the bombs"


def test_bombs_stay_under_the_memory_limit_in_a_fresh_process() -> None:
    """The RSS of a process that loads nothing else: its peak grows by less than the limit."""
    _check_fresh_process(CI_BOMB)


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(BOMBS))
def test_bombs_of_gigabytes_are_refused_in_bounded_memory(case: str) -> None:
    _check_bomb(case, SLOW_BOMB)


@pytest.mark.slow
def test_bombs_of_gigabytes_stay_under_the_memory_limit_in_a_fresh_process() -> None:
    _check_fresh_process(SLOW_BOMB)


# ---- pickle ------------------------------------------------------------------------------------
RAN: list[str] = []


def _ran(tag: str) -> str:
    """What a payload calls when it is unpickled: it leaves a trace."""
    RAN.append(tag)
    return tag


class _Payload:
    def __init__(self, tag: str) -> None:
        self.tag = tag

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (_ran, (self.tag,))


def _object_npy(value: object, protocol: int, shape: tuple[int, ...] = (1,)) -> bytes:
    array = np.empty(shape, dtype=object)
    array[()] = value if shape == () else None
    if shape != ():
        array[0] = value
    return nf.npy_header("|O", shape) + pickle.dumps(array, protocol=protocol)


def _pickle_cases() -> dict[str, bytes]:
    members = nf.net_members(nf.small_net(0))
    cases = {}
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        payload = _Payload(f"protocol {protocol}")
        raw = pickle.dumps(payload, protocol=protocol)
        array, scalar = _object_npy(payload, protocol), _object_npy(payload, protocol, ())
        placed = {
            "the whole file": raw,
            "a whole .npy file": array,
            "an array member": nf.net_file({**members, "policy_b.npy": array}),
            "the meta member": nf.net_file({**members, "meta.npy": scalar}),
            "a raw array member": nf.net_file({**members, "value_b.npy": raw}),
            "a raw meta member": nf.net_file({**members, "meta.npy": raw}),
            "an extra member": nf.net_file({**members, "x.npy": array}),
        }
        cases.update({f"{where}, protocol {protocol}": data for where, data in placed.items()})
    whole = {"meta": nf.small_net(0).meta, "arrays": _Payload("a whole network")}
    cases["a pickled network"] = pickle.dumps(whole)
    return cases


PICKLES = _pickle_cases()


def test_the_payloads_would_run_if_unpickled() -> None:
    """The payloads are live: pickle (or numpy with allow_pickle=True) runs them."""
    pickle.loads(PICKLES["the whole file, protocol 2"])
    np.load(io.BytesIO(PICKLES["a whole .npy file, protocol 4"]), allow_pickle=True)
    with np.load(io.BytesIO(PICKLES["an array member, protocol 5"]), allow_pickle=True) as data:
        data["policy_b"]
    assert RAN == ["protocol 2", "protocol 4", "protocol 5"]
    RAN.clear()


@pytest.mark.parametrize("case", sorted(PICKLES))
def test_pickle_payloads_never_run(case: str) -> None:
    assert _outcome(PICKLES[case]) == "refused"
    assert RAN == [], f"a payload ran: {RAN}"


# ---- valid files written another way -----------------------------------------------------------
def _variants() -> dict[str, bytes]:
    net = nf.small_net(0)
    members = nf.net_members(net)
    arrays = {f"{k}.npy": v for k, v in net.arrays.items()}
    fortran = {k: nf.npy(np.asfortranarray(v)) for k, v in arrays.items()}
    version_2 = {}
    for name, content in members.items():
        header = nf.header_dict(content)
        new = nf.npy_header(header["descr"], header["shape"], header["fortran_order"], (2, 0))
        version_2[name] = new + content[nf.header_length(content) :]
    text = json.dumps(net.meta)
    big_endian = nf.npy(np.array(text).astype(f">U{len(text)}"))
    return {
        "fortran order": nf.net_file({**members, **fortran}),
        ".npy format 2.0": nf.net_file(version_2),
        "a big-endian meta": nf.net_file({**members, "meta.npy": big_endian}),
        "members in another order": nf.net_file(dict(reversed(members.items()))),
        "deflated members": nf.net_file(members, nf.DEFLATED),
        "zip64 end records": nf.with_zip64_end(nf.net_file(members)),
        "a file from np.savez_compressed": _savez_compressed(net),
    }


def _savez_compressed(net: PolicyValueNet) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, meta=np.array(json.dumps(net.meta)), **net.arrays)
    return buffer.getvalue()


@pytest.mark.parametrize("case", sorted(_variants()))
def test_valid_files_written_another_way_load_the_same_network(case: str) -> None:
    net = nf.small_net(0)
    loaded = PolicyValueNet.load(io.BytesIO(_variants()[case]))
    assert loaded.meta == net.meta
    for key, value in net.arrays.items():
        np.testing.assert_array_equal(loaded.arrays[key], value)


# ---- what a refusal says -----------------------------------------------------------------------
def _spoiled(name: str, **declared: Any) -> bytes:
    members = nf.net_members(nf.small_net(0))
    entries = [nf.entry(k, v, **(declared if k == name else {})) for k, v in members.items()]
    return nf.build_zip(entries)


def _replaced(name: str, content: bytes) -> bytes:
    return nf.net_file({**nf.net_members(nf.small_net(0)), name: content})


def _half(data: bytes) -> bytes:
    """The first half of a file: its zip directory, at the end, is gone whatever its size."""
    return data[: len(data) // 2]


# each case: (the file, the member named, what the message says)
REFUSALS = {
    "encrypted": (lambda: _spoiled("trunk_0_b.npy", flags=0x1), "trunk_0_b.npy", "encrypted"),
    "bzip2": (
        lambda: _spoiled("policy_w.npy", method=12),
        "policy_w.npy",
        r"compression method 12; network file members are stored \(0\) or deflated \(8\)",
    ),
    "too big": (
        lambda: _replaced("value_b.npy", nf.npy(np.zeros(5000, np.float32))),
        "value_b.npy",
        r"declares 20128 bytes; a float32 array of shape \(1,\) takes at most 4100",
    ),
    "stored sizes differ": (
        lambda: _spoiled("value_w.npy", size=10),
        "value_w.npy",
        "stored with 160 bytes for 10 bytes of content",
    ),
    "deflate cannot": (
        lambda: nf.build_zip(
            nf.entry(k, b"", nf.DEFLATED, size=100_000) if k == "trunk_0_w.npy" else nf.entry(k, v)
            for k, v in nf.net_members(nf.small_net(2)).items()
        ),
        "trunk_0_w.npy",
        "declares 100000 bytes from 2 compressed bytes; deflate expands at most 1032 times",
    ),
    "duplicate": (
        lambda: nf.build_zip([nf.entry("meta.npy", b"x"), nf.entry("meta.npy", b"y")]),
        "meta.npy",
        "appears twice",
    ),
    "huge shape": (
        lambda: _replaced("trunk_0_w.npy", nf.npy_header("<f4", (10**12,)) + bytes(64)),
        "trunk_0_w.npy",
        r"network array trunk_0_w must have shape \(250, 8\), got \(1000000000000,\)",
    ),
    "int32": (
        lambda: _replaced("trunk_0_b.npy", nf.npy(np.zeros(8, np.int32))),
        "trunk_0_b.npy",
        r"trunk_0_b must be a float32 \(or float16\) numpy array, got int32",
    ),
    "meta as bytes": (
        lambda: _replaced("meta.npy", json.dumps(nf.small_net(0).meta).encode()),
        "meta.npy",
        "the magic string is not correct",
    ),
    "meta not JSON": (
        lambda: _replaced("meta.npy", nf.npy(np.array("{nope"))),
        "meta.npy",
        "'meta' is not valid JSON",
    ),
    "meta too big": (
        lambda: _replaced("meta.npy", nf.npy(np.array(" " * (MAX_META_BYTES // 4)))),
        "meta.npy",
        "the meta takes at most 1048576",
    ),
    "cut": (lambda: _half(nf.expert_bytes("iris_v0")), None, "not a zip archive"),
    "npy format 3.0": (
        lambda: _replaced("value_b.npy", nf.npy_header("<f4", (1,), version=(3, 0)) + bytes(4)),
        "value_b.npy",
        r"\.npy format version 3\.0; network files use 1\.0 or 2\.0",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refusals_name_the_member_and_what_is_valid(case: str) -> None:
    build, member, message = REFUSALS[case]
    with pytest.raises(NetworkFileError, match=message) as info:
        PolicyValueNet.load(io.BytesIO(build()))
    assert info.value.member == member
    _check_refusal(info.value)


def test_a_source_that_is_no_file_is_refused() -> None:
    with pytest.raises(TypeError, match=r"a path or a binary file object \(read, .*\), got int"):
        PolicyValueNet.load(5)  # type: ignore[arg-type]

    class Pipe(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def seekable(self) -> bool:
            return False

    with pytest.raises(NetworkFileError, match="seekable binary file"):
        PolicyValueNet.load(Pipe())  # type: ignore[arg-type]
    with pytest.raises(NetworkFileError, match="a text stream"):
        PolicyValueNet.load(io.StringIO("PK"))  # type: ignore[arg-type]


# ---- the command line --------------------------------------------------------------------------
CLI_FILES = {
    "cut.npz": lambda: _half(nf.expert_bytes("iris_v0")),
    "bomb.npz": lambda: BOMBS["a meta of N zeros"](CI_BOMB),
    "encrypted.npz": REFUSALS["encrypted"][0],
    "meta-bytes.npz": REFUSALS["meta as bytes"][0],
    "pickle.npz": lambda: PICKLES["the whole file, protocol 5"],
    "text.npz": lambda: b"hello",
}


@pytest.mark.parametrize("name", [*sorted(CLI_FILES), "missing.npz", "folder"])
@pytest.mark.parametrize("command", ["evaluate", "watch"])
def test_the_command_line_prints_one_line_for_a_bad_network_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, command: str
) -> None:
    from tabletop_envs.cli import main

    path = tmp_path / name
    if name in CLI_FILES:
        path.write_bytes(CLI_FILES[name]())
    elif name == "folder":
        path.mkdir()
    assert main([command, "--agents", f"az:{path}", "random"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"tabletop-envs {command}: error: "), err
    assert len(err) < MESSAGE_LIMIT and RAN == []


@pytest.mark.parametrize("text", HEADER_TEXTS, ids=lambda t: t[:40])
@pytest.mark.parametrize("member", ["value_b.npy", "meta.npy"])
def test_npy_headers_that_break_parsers_are_refused(text: str, member: str) -> None:
    """Deep nesting once reached numpy's literal_eval: MemoryError, RecursionError, TypeError."""
    data = _replaced(member, nf.raw_npy_header(text) + bytes(8))
    with pytest.raises(NetworkFileError) as info:
        PolicyValueNet.load(io.BytesIO(data))
    assert info.value.member == member
    _check_refusal(info.value)


def test_a_pipe_a_device_or_a_folder_is_refused_at_once(tmp_path: Path) -> None:
    """Opening a named pipe would wait for a writer: the loader refuses it without opening."""
    pipe = tmp_path / "net.npz"
    os.mkfifo(pipe)
    errors: list[BaseException] = []

    def load() -> None:
        try:
            PolicyValueNet.load(pipe)
        except BaseException as err:  # handed to the test's thread
            errors.append(err)

    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    reader.join(TIME_LIMIT)
    if reader.is_alive():
        with open(pipe, "wb"):  # let the stuck reader go
            pass
    assert not reader.is_alive() and len(errors) == 1
    assert isinstance(errors[0], NetworkFileError) and "not a regular file" in str(errors[0])
    for path in (tmp_path, Path("/dev/zero")):
        with pytest.raises(NetworkFileError, match="not a regular file"):
            PolicyValueNet.load(path)
