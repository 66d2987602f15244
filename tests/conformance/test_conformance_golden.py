"""Golden traces: every case replays its recorded seeded games line by line.

A difference means the env's behaviour changed. If that is intended, bump the env's version
(``iris_v0`` -> ``iris_v1``, with a line of version history) and rewrite the traces with
``python tests/golden/regenerate.py --env NAME``.
"""

from __future__ import annotations

import difflib
from typing import Any

import pytest

from tests.conformance.cases import CASES
from tests.golden.tracing import GOLDEN_DIR, all_cases, case_id, golden_path, trace_lines

MAX_DIFF_LINES = 30


@pytest.mark.parametrize(("name", "params"), CASES)
def test_golden_trace(name: str, params: dict[str, Any]) -> None:
    """The seeded games of a case replay exactly as recorded in ``tests/golden``."""
    path = golden_path(name, params)
    command = f"python tests/golden/regenerate.py --env {name}"
    if not path.exists():
        pytest.fail(
            f"no golden trace {path.name} for {case_id(name, params)}; create it: {command}"
        )
    expected = path.read_text().splitlines()
    actual = trace_lines(name, params)
    if actual == expected:
        return
    first = next(
        (i for i, (a, b) in enumerate(zip(actual, expected, strict=False)) if a != b),
        min(len(actual), len(expected)),
    )
    diff = list(difflib.unified_diff(expected, actual, "recorded", "now", n=2, lineterm=""))[
        : MAX_DIFF_LINES + 2
    ]
    pytest.fail(
        f"{case_id(name, params)} no longer replays {path.name} (first difference at line "
        f"{first + 1}).\nIf the change is intended, bump the env version and run: {command}\n"
        + "\n".join(diff),
        pytrace=False,
    )


def test_no_stale_golden_files() -> None:
    """Every trace file belongs to a registered case (old versions' files are removed)."""
    known = {golden_path(name, params).name for name, params in all_cases()}
    stale = sorted(p.name for p in GOLDEN_DIR.glob("*.txt") if p.name not in known)
    assert not stale, f"golden traces of no registered case (delete them): {stale}"
