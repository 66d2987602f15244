"""Rewrite the golden trace files: ``python tests/golden/regenerate.py [--env NAME]``.

Run it only for an intended change of an env's behaviour, and bump that env's version
(``iris_v0`` -> ``iris_v1``) with a line of version history. ``--check`` compares instead of
writing (exit status 1 on any difference or missing file).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Run as a script: make ``tests.golden.tracing`` importable from the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tabletop_envs.envs.registry import registered_envs
from tests.golden.tracing import all_cases, golden_path, trace_lines


def main(argv: list[str] | None = None) -> int:
    """Regenerate (or ``--check``) the golden traces of every env or of ``--env``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", action="append", help="env name (repeatable); default: all")
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    names = args.env or registered_envs()
    unknown = sorted(set(names) - set(registered_envs()))
    if unknown:
        parser.error(f"unknown env {unknown}; registered: {', '.join(registered_envs())}")
    status = 0
    for name, params in all_cases():
        if name not in names:
            continue
        path = golden_path(name, params)
        text = "\n".join(trace_lines(name, params)) + "\n"
        if args.check:
            same = path.exists() and path.read_text() == text
            print(f"{'ok' if same else 'DIFFERS'} {path.name}")
            status |= not same
        else:
            old = path.read_text() if path.exists() else None
            path.write_text(text)
            what = "created" if old is None else "unchanged" if old == text else "rewritten"
            print(f"{what} {path.name} ({text.count(chr(10))} lines)")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
