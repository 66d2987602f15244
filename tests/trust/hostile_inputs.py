"""Shared pieces of the trust suite: a time limit, run sizes, hostile values, message checks.

Every test of this folder feeds one way in (records, agent specs, command lines) generated input
and sorts each outcome into *refused* (the documented exception) or *accepted* (and then usable);
any other exception, a traceback on the command line or a hang fails the test.
"""

from __future__ import annotations

import math
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

#: Examples per surface: the CI-sized run (a few seconds) and the slow run.
CI_EXAMPLES = 40
SLOW_EXAMPLES = 3000
#: CPU seconds one example may take before it counts as a hang (process CPU time, so a shared,
#: busy machine does not turn a slow example into a hang; a loop that never ends spends CPU).
HANG_SECONDS = 20
#: Wall-clock seconds after which an example counts as a hang even without spending CPU (one
#: that waits for input that never comes), generous for a machine other programs load.
HANG_WALL_SECONDS = 10 * HANG_SECONDS
#: Longest error message accepted (messages quote at most a short prefix of the input).
MESSAGE_LIMIT = 2500


class Hang(BaseException):
    """An example ran past its time limit (a BaseException: no handler swallows it)."""


@contextmanager
def time_limit(
    seconds: float = HANG_SECONDS, wall_seconds: float = HANG_WALL_SECONDS
) -> Iterator[None]:
    """Raise :class:`Hang` in the main thread if the block spends more than ``seconds`` of CPU
    time, or more than ``wall_seconds`` of wall-clock time."""

    def cpu_alarm(signum: int, frame: Any) -> None:
        raise Hang(f"no answer after {seconds} s of CPU time")

    def wall_alarm(signum: int, frame: Any) -> None:
        raise Hang(f"no answer after {wall_seconds} s")

    previous = signal.signal(signal.SIGPROF, cpu_alarm), signal.signal(signal.SIGALRM, wall_alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, wall_seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, previous[0])
        signal.signal(signal.SIGALRM, previous[1])


def run_settings(examples: int) -> Callable[[Any], Any]:
    """Return hypothesis settings for ``examples`` derandomized examples, no deadline."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def check_message(err: BaseException) -> None:
    """Assert an error message is short and says something."""
    text = str(err)
    assert text.strip(), f"{type(err).__name__} without a message"
    assert len(text) <= MESSAGE_LIMIT, f"{len(text)}-character message: {text[:200]}..."


#: Numbers at the edges: huge, negative, not finite, bool, past Python's int-to-text limit.
HUGE_INTS = st.sampled_from([2**31, 2**63, 2**64, 2**127, 2**128, 2**128 - 1, 10**30, 10**4000])
NUMBERS = st.one_of(
    st.integers(-3, 50),
    HUGE_INTS,
    HUGE_INTS.map(lambda n: -n),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -0.0, 0.5]),
    st.booleans(),
)
#: Text that often breaks parsers: separators, brackets, quotes, control and non-ASCII characters.
TRICKY_TEXT = st.one_of(
    st.text(max_size=12),
    st.text(alphabet=",=:[]{}()\"'\\ \n\t\x00nNaIf-+.e0129", max_size=16),
    st.sampled_from(["nan", "inf", "-inf", "1e400", "", " ", "none", "null", "true", "[", "{"]),
    st.integers(1, 300).map(lambda n: "[" * n + "]" * n),
    st.integers(10_000, 100_000).map(lambda n: "[" * n),
    st.integers(100_000, 2_000_000).map(lambda n: "x" * n),
)
