"""Record the behaviour figures: ``python tests/behaviour/record_baseline.py``.

Writes ``tests/behaviour/baseline.json`` (see ``README.md`` there). The baseline is the
behaviour of commit 52f5a9c: never rewrite it to make a refactor pass. An existing baseline is
only overwritten with ``--overwrite``, for an intended change of behaviour, with a line of
version history in the README. ``--out PATH`` writes elsewhere (to compare two recordings);
``--check`` compares a fresh recording with the baseline instead of writing (exit status 1 on
any difference).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

# Run as a script: make ``tests.behaviour.figures`` importable from the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.behaviour import figures


def main(argv: list[str] | None = None) -> int:
    """Record the figures into ``--out`` (default: the baseline), or ``--check`` them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=figures.BASELINE, help="file to write")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing baseline")
    parser.add_argument("--check", action="store_true", help="compare with the baseline")
    args = parser.parse_args(argv)
    if (
        not args.check
        and args.out.resolve() == figures.BASELINE.resolve()
        and figures.BASELINE.exists()
        and not args.overwrite
    ):
        parser.error(
            f"{figures.BASELINE} exists: it records the behaviour before the refactor and is "
            "not rewritten to make a change pass (--overwrite for an intended change, with a "
            "line of version history in tests/behaviour/README.md; --out PATH to write elsewhere)"
        )
    start, cpu = time.perf_counter(), time.process_time()
    data = figures.as_json(figures.record())
    print(
        f"recorded in {time.perf_counter() - start:.1f} s ({time.process_time() - cpu:.1f} s CPU)",
        file=sys.stderr,
    )
    if args.check:
        old = figures.load_baseline()
        # as the test compares: results files may gain entries, floats agree within float32
        # noise of another CPU (an exact comparison failed on a machine the test passes on)
        differ = [
            k
            for k in data
            if k != "recorded_with"
            and figures.compare(figures.comparable(k, data[k], old.get(k)), old.get(k))
        ]
        print("same as the baseline" if not differ else f"DIFFERS: {', '.join(differ)}")
        return 1 if differ else 0
    args.out.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
