"""Win-rate curves of a training run as a PNG (matplotlib, imported when drawing).

Shared by the PPO and the AlphaZero trainers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def plot_curves(
    curves: dict[str, Sequence[tuple[float, float, float, float]]],
    path: str | Path,
    *,
    xlabel: str,
    title: str,
) -> None:
    """Draw win-rate curves into a PNG: per label, points ``(x, rate, ci_low, ci_high)``.

    Each curve is a line with markers over its shaded 95% interval; the y axis is 0-1.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    for label, points in curves.items():
        x = [p[0] for p in points]
        line = ax.plot(x, [p[1] for p in points], marker="o", label=label)[0]
        ax.fill_between(
            x, [p[2] for p in points], [p[3] for p in points], alpha=0.25, color=line.get_color()
        )
    ax.set_ylim(0, 1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win rate")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
