"""What a ladder writes for people: the Markdown tables, the picture, a page's ladder block.

Beside ``benchmarks/ladder.py``, which plays and rates the ladder these read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tabletop_envs.core.config import one_line, quote_path
from tabletop_envs.evaluation.paths import folder_problem
from tabletop_envs.evaluation.stats import wilson

if TYPE_CHECKING:
    from ladder import Ladder

#: Characters per line of an agent's label in the picture (longer specs wrap after commas).
TICK_WIDTH = 38


def _elo(x: float) -> str:
    """Return a rating as signed whole Elo (``0`` unsigned)."""
    v = round(x)
    return f"{v:+d}" if v else "0"


def markdown(ladder: Ladder, picture: str | None = None) -> str:
    """Return the ladder as Markdown: command, Elo table, picture link, pairwise scores."""
    n = ladder.games_per_pair
    lines = [
        "```console",
        f"$ {ladder.command}",
        "```",
        "",
        "| rank | agent | Elo | 95% interval | above the next | games | score | ms/move |",
        "|---:|---|---:|---|---|---:|---:|---:|",
    ]
    for rank, r in enumerate(ladder.ratings, 1):
        interval = "anchor" if r.agent == ladder.anchor else f"[{_elo(r.low)}, {_elo(r.high)}]"
        gap = ""
        if r.gap is not None and r.gap_low is not None and r.gap_high is not None:
            gap = f"{_elo(r.gap)} [{_elo(r.gap_low)}, {_elo(r.gap_high)}]"
        lines.append(
            f"| {rank} | `{r.agent}` | {_elo(r.elo)} | {interval} | {gap} | {r.games} | "
            f"{r.score:.3f} | {r.ms_per_move:.2f} |"
        )
    lines.append("")
    if picture is not None:
        alt = f"{ladder.env} ladder: Elo with 95% intervals"
        lines += [f"![{alt}]({picture})", ""]
    order = [r.agent for r in ladder.ratings]
    lines += [
        f"Score of the row agent against the column agent ((wins + draws/2) / {n} games, 95% "
        "Wilson interval):",
        "",
        "| | " + " | ".join(f"`{a}`" for a in order) + " |",
        "|---|" + "---|" * len(order),
    ]
    for a in order:
        cells = []
        for b in order:
            if a == b:
                cells.append("")
                continue
            p = ladder.pair(a, b)
            s = p.score(a)
            lo, hi = wilson(s, p.games)
            cells.append(f"{s / p.games:.2f} [{lo:.2f}, {hi:.2f}]")
        lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    sweeps = [
        f"`{w}` won all {p.games} games against `{l_}`"
        for p in ladder.pairs
        for w, l_ in ((p.a, p.b), (p.b, p.a))
        if p.score(w) == p.games
    ]
    if sweeps:
        lines += [
            "",
            "Sweeps: " + "; ".join(sweeps) + ". Such a gap is bounded from below only: its "
            "estimate is what the virtual draw allows, and its interval lies mostly above it, "
            "as do the distances from the anchor that rest on it; the gaps above the next agent "
            "and the pairwise scores are measured.",
        ]
    draws = sum(p.draws for p in ladder.pairs)
    total = sum(p.games for p in ladder.pairs)
    commits: dict[str, set[str]] = {}
    for p in ladder.pairs:
        seen = commits.setdefault(p.versions.get("tabletop_envs", "?"), set())
        if p.versions.get("commit"):
            seen.add(p.versions["commit"])
    played = ", ".join(
        f"tabletop_envs {v}" + (f" (commit {', '.join(sorted(c))})" if c else "")
        for v, c in sorted(commits.items())
    )
    lines += [
        "",
        f"{total} games ({n} per pair, {draws} drawn), seed {ladder.seed}; Bradley-Terry Elo "
        f"anchored at `{ladder.anchor}` = 0, basic intervals from {ladder.resamples} "
        f"parametric bootstrap resamples; {ladder.cpu_seconds / 60:.1f} CPU minutes of play "
        f"with {played}.",
    ]
    return "\n".join(lines) + "\n"


def tick_label(agent: str, width: int = TICK_WIDTH) -> str:
    """Return ``agent``'s spec wrapped after commas into lines of about ``width`` characters.

    A long spec (a model path with options) would otherwise squeeze the plot off the picture.
    """
    lines = [""]
    for part in (p + "," for p in agent.split(",")):
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append("")
        lines[-1] += part
    return "\n".join(lines)[:-1]  # no comma after the last part


def draw_picture(ladder: Ladder, path: Path) -> None:
    """Save a PNG of every agent's Elo with its 95% interval (needs matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ValueError(f"the picture needs matplotlib (the train extra): {err}") from None
    ratings = ladder.ratings[::-1]  # best at the top
    y = np.arange(len(ratings))
    elo = np.array([r.elo for r in ratings])
    low, high = [r.low for r in ratings], [r.high for r in ratings]
    labels = [tick_label(r.agent) for r in ratings]
    extra = sum(label.count("\n") for label in labels)  # a wrapped label's lines need room
    fig, ax = plt.subplots(figsize=(7.5, 1.2 + 0.55 * len(ratings) + 0.18 * extra), dpi=110)
    # the interval as a bar of its own: after a sweep it need not contain the estimate
    bars = [i for i, r in enumerate(ratings) if r.agent != ladder.anchor]  # the anchor's: [0, 0]
    ax.hlines(y[bars], np.take(low, bars), np.take(high, bars), color="#3949ab", lw=1.6)
    ends = np.take(low, bars).tolist() + np.take(high, bars).tolist()
    ax.plot(ends, np.concatenate([y[bars], y[bars]]), "|", color="#3949ab", ms=10, mew=1.6)
    ax.plot(elo, y, "o", color="#3949ab")
    for yi, r in zip(y, ratings, strict=True):
        label = f"{_elo(r.elo)}" + ("  (anchor)" if r.agent == ladder.anchor else "")
        ax.annotate(label, (r.high, yi), xytext=(6, 0), textcoords="offset points", va="center")
    ax.set_yticks(y, labels, family="monospace")
    ax.axvline(0, color="0.75", lw=0.8, zorder=0)
    ax.set_xlabel(f"Elo (Bradley-Terry, {ladder.anchor} = 0); bars: 95% bootstrap intervals")
    ax.set_title(
        f"{ladder.env} ladder: Elo from {ladder.games_per_pair} games per pair, seed {ladder.seed}"
    )
    span = max(max(high) - min(low), 100.0)
    ax.set_xlim(min(low) - 0.05 * span, max(high) + 0.22 * span)
    ax.set_ylim(-0.6, len(ratings) - 0.4)
    ax.grid(axis="x", color="0.9")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def markers(env: str) -> tuple[str, str]:
    """Return the comment lines that open and close ``env``'s ladder block in a page."""
    return f"<!-- ladder:{env} -->", f"<!-- /ladder:{env} -->"


def rewrite_block(text: str, env: str, block: str) -> str:
    """Return ``text`` with what stands between ``env``'s ladder markers replaced by ``block``.

    Each marker must appear exactly once, the opening one first (ValueError otherwise); the
    text outside the markers is kept byte for byte.
    """
    start, end = markers(env)
    for marker in (start, end):
        if text.count(marker) != 1:
            raise ValueError(
                f"the page must hold {marker!r} exactly once (found {text.count(marker)}); "
                f"put {start} and {end} where the {env} ladder goes"
            )
    i, j = text.index(start) + len(start), text.index(end)
    if j < i:
        raise ValueError(f"{end!r} comes before {start!r}")
    return text[:i] + "\n" + block.strip("\n") + "\n" + text[j:]


def update_doc(ladder: Ladder, doc: Path) -> Path:
    """Write the picture to ``img/ladder_ENV.png`` beside ``doc`` and rewrite its block."""
    text = doc.read_text()
    rewrite_block(text, ladder.env, "")  # markers checked before anything is written
    picture = doc.parent / "img" / f"ladder_{ladder.env}.png"
    draw_picture(ladder, picture)
    link = os.path.relpath(picture, doc.parent).replace(os.sep, "/")
    doc.write_text(rewrite_block(text, ladder.env, markdown(ladder, link)))
    return picture


def check_doc(doc: str, env: str) -> None:
    """Raise ValueError, naming ``--doc``, unless the page ``doc`` can be rewritten at the end:
    it exists, holds ``env``'s markers once each in order, and it and its ``img/`` can be
    written."""
    start, end = markers(env)
    try:
        text = Path(doc).read_text()
    except (OSError, UnicodeDecodeError) as err:
        why = "does not exist" if isinstance(err, FileNotFoundError) else f"cannot be read ({err})"
        raise ValueError(
            f"--doc {quote_path(doc)} {why}; it names a page holding the {start} and {end} "
            "markers, between which the ladder goes"
        ) from None
    try:
        rewrite_block(text, env, "")
    except ValueError as err:
        raise ValueError(f"--doc {quote_path(doc)}: {one_line(err)}") from None
    if not os.access(doc, os.W_OK):
        raise ValueError(f"--doc {quote_path(doc)} cannot be written (no permission)")
    img = Path(doc).parent / "img"
    problem = folder_problem(str(img))
    if problem:
        raise ValueError(f"--doc's picture folder {quote_path(img)} {problem}")
