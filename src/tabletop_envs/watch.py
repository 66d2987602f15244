"""Watch agents play: play a recorded game, show its positions as text, SVG frames or a GIF.

``tabletop-envs watch`` and ``tabletop-envs replay`` are thin commands over this module. The
view is a spectator looking over the shoulder of the seat to move: each position is drawn as
that seat sees it (its own hand in Irk, its memory in Isis & Osiris), the final position as the
public view. Writing a GIF needs Pillow (``pip install "tabletop_envs[render]"``); text and SVG
need nothing beyond the core.

:class:`WatchConfig` and :class:`ReplayConfig` declare the two commands' options (the command
line is generated from them); building one checks every value, output paths included, so a
mistake stops before a game is played. Games are played by :mod:`tabletop_envs.evaluation.play`
with the arena's seeds.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from tabletop_envs.core.config import Config, setting
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, new_game
from tabletop_envs.evaluation.paths import file_problem, folder_problem, user_path
from tabletop_envs.evaluation.play import GameConfig, agents_help, play_seated, split_agents
from tabletop_envs.render.draw import Drawing, Text, to_rgb, to_svg, wrap
from tabletop_envs.replay import GameRecord

CAPTION_HEIGHT = 18  # the room of a one-line caption; each further line adds CAPTION_LINE
CAPTION_LINE = 12
CAPTION_SIZE = 8
CAPTION_MARGIN = 6
CAPTION: tuple[int, int, int] = (20, 20, 20)
#: Longest frame a GIF holds: 65535 hundredths of a second.
MAX_DELAY_MS = 655_350
PILLOW_HINT = 'pip install "tabletop_envs[render]" (or pillow)'


# ---- what the commands declare ----------------------------------------------------------------
def gif_problem(path: str | None) -> str | None:
    """Return why a GIF cannot be written at ``path`` (:func:`file_problem`, and the name must
    end in ``.gif``: Pillow picks the format from it, so ``x.png`` would be a PNG and ``x.jpg``
    fails after the game is played), or None."""
    problem = file_problem(path)
    if problem or path is None:
        return problem
    return None if path.lower().endswith(".gif") else "must end in .gif"


@dataclass
class ShowConfig(Config):
    """How a game is shown: text unless a GIF or SVG frames are asked for."""

    gif: str | None = setting(
        None,
        help="write an animated GIF to PATH, a name ending in .gif (needs Pillow)",
        metavar="PATH",
        check=gif_problem,
    )
    svg: str | None = setting(
        None, help="write one SVG frame per position into DIR", metavar="DIR", check=folder_problem
    )
    delay: int = setting(600, low=1, high=60_000, help="GIF milliseconds per move")

    def check(self) -> None:
        """Refuse a GIF without Pillow before anything is played."""
        super().check()
        if self.gif is not None and importlib.util.find_spec("PIL") is None:
            raise InvalidParameterError(f"gif: writing a GIF needs Pillow: {PILLOW_HINT}")


@dataclass
class SeatedConfig(GameConfig):
    """A game and the agents in its seats."""

    agents: tuple[str, ...] = setting(
        ("greedy",), help=agents_help("agent specs in seat order; fewer than the seats repeat")
    )

    def check_seats(self, seats: int) -> None:
        """Read the agents as :func:`~.play.split_agents` does (spaces or commas): 1 to a
        seat each."""
        object.__setattr__(self, "agents", tuple(split_agents(self.agents)))
        problem = seats_problem(self.env, seats, self.agents)
        if problem:
            raise InvalidParameterError(f"agents: {problem}")


@dataclass
class WatchConfig(ShowConfig, SeatedConfig):
    """``tabletop-envs watch``: play one game between agents and show it."""

    about = (
        "Play one game between agents and show every position. The view is a spectator's over "
        "the shoulder of the seat to move (its own hand in Irk, its memory in Isis & Osiris); "
        "the last position is the public view. Without --gif or --svg the positions are printed "
        "as text. The deal and agent seeds are those of game 0 of 'evaluate --seed S'."
    )

    record: str | None = setting(
        None, help="write the game record (JSON) to PATH", metavar="PATH", check=file_problem
    )


@dataclass
class ReplayConfig(ShowConfig):
    """``tabletop-envs replay``: show a recorded game."""

    about = (
        "Rebuild a recorded game from its seed and actions and show it as watch does. --step "
        "browses it: Enter next, b back, a number jumps, q quits."
    )

    record: str = setting("", help="game record file written by 'watch --record'", cli=False)
    step: bool = setting(False, help="step forward and back interactively")


def watch(
    env_name: str, agents: Sequence[str], seed: int = 0, env_kwargs: dict[str, Any] | None = None
) -> GameRecord:
    """Play one game of ``env_name`` between ``agents`` (specs, seat order) and return its record.

    Fewer agents than seats repeat in order. The deal and the agents' seeds are those of game 0
    of ``tabletop-envs evaluate --seed SEED`` with the same lineup.
    """
    probe = new_game(env_name, env_kwargs or {})
    n = probe.num_players
    agents = list(agents)
    problem = seats_problem(env_name, n, agents)
    if problem:
        raise ValueError(problem)
    seat_specs = [agents[s % len(agents)] for s in range(n)]
    label = f"{env_name} seed {seed}"
    game = play_seated(env_name, type(probe), probe.params, seat_specs, seed, label)
    return GameRecord.of(env_name, game, seat_specs)


def seats_problem(env_name: str, seats: int, agents: Sequence[str]) -> str | None:
    """Return why ``agents`` cannot fill the ``seats`` of one game (1 to ``seats`` of them)."""
    if 1 <= len(agents) <= seats:
        return None
    return f"one game of {env_name} has {seats} seats: name 1 to {seats} agents, got {len(agents)}"


def viewer(state: GameState) -> int | None:
    """Return the seat whose view shows ``state`` (the seat to move; ``None`` once over)."""
    return None if state.is_terminal else state.current_player


def caption(record: GameRecord, states: Sequence[GameState], k: int) -> str:
    """Return the line under position ``k``: the move that led to it and who played it."""
    if k == 0:
        return f"{record.env} seed {record.seed}: " + " vs ".join(record.agents)
    before = states[k - 1]
    seat = before.current_player
    move = before.action_to_string(record.actions[k - 1])
    return f"move {k}: P{seat} {record.agents[seat]}: {move}"


def position_text(record: GameRecord, states: Sequence[GameState], k: int) -> str:
    """Return position ``k`` as text: its caption, then the game's text render."""
    state = states[k]
    return f"-- {caption(record, states, k)}\n{state.render_text(viewer(state))}"


def result_line(record: GameRecord) -> str:
    """Return the game's result in one line."""
    returns = record.result["returns"]
    parts = [
        f"P{s} {a}: {r:+g}" for s, (a, r) in enumerate(zip(record.agents, returns, strict=True))
    ]
    return "result: " + ", ".join(parts)


def frame(record: GameRecord, states: Sequence[GameState], k: int) -> Drawing:
    """Return position ``k``'s picture with its caption underneath, wrapped to the picture's
    width (a long agent spec or move takes more lines, never runs past the right edge)."""
    state = states[k]
    picture = env_spec(record.env).load_image()(state, viewer(state))
    lines = wrap(caption(record, states, k), CAPTION_SIZE, picture.width - 2 * CAPTION_MARGIN)
    height = picture.height + CAPTION_HEIGHT + CAPTION_LINE * (len(lines) - 1)
    out = Drawing(picture.width, height, picture.background)
    out.add(*picture.shapes)
    for i, line in enumerate(lines):
        y = picture.height + CAPTION_HEIGHT / 2 - 2 + i * CAPTION_LINE
        out.add(Text(CAPTION_MARGIN, y, line, CAPTION_SIZE, CAPTION, "start"))
    return out


def write_svgs(record: GameRecord, states: Sequence[GameState], folder: str | Path) -> list[Path]:
    """Write one SVG file per position (``000.svg``, ``001.svg``, ...) into ``folder``."""
    folder = user_path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(len(states)):
        path = folder / f"{k:03d}.svg"
        path.write_text(to_svg(frame(record, states, k)))
        paths.append(path)
    return paths


def write_gif(
    record: GameRecord,
    states: Sequence[GameState],
    path: str | Path,
    delay_ms: int = 600,
    last_ms: int = 3000,
) -> tuple[int, int, int]:
    """Write an animated GIF of every position; return ``(frames, width, height)``.

    Frames of different sizes (Irk's table grows) are padded to the largest. Needs Pillow.
    """
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f"writing a GIF needs Pillow: {PILLOW_HINT}") from None
    if not (1 <= delay_ms <= MAX_DELAY_MS and 1 <= last_ms <= MAX_DELAY_MS):
        raise ValueError(
            f"frame delays are milliseconds from 1 to {MAX_DELAY_MS}, got {delay_ms}, {last_ms}"
        )
    pictures = [frame(record, states, k) for k in range(len(states))]
    width = max(p.width for p in pictures)
    height = max(p.height for p in pictures)
    images = []
    for picture in pictures:
        img = np.empty((height, width, 3), dtype=np.uint8)
        img[:] = picture.background
        rgb = to_rgb(picture)
        img[: rgb.shape[0], : rgb.shape[1]] = rgb
        images.append(Image.fromarray(img))
    durations = [delay_ms] * (len(images) - 1) + [last_ms]
    images[0].save(
        user_path(path),
        save_all=True,
        append_images=images[1:],
        duration=durations,
        loop=0,
        optimize=False,
        format="GIF",  # whatever the name says: a GIF is what the caller asked for
    )
    return len(images), width, height


def browse(record: GameRecord, states: Sequence[GameState], stdin: TextIO, stdout: TextIO) -> None:
    """Step through the positions interactively: Enter/n next, b back, a number jumps, q quits."""
    k, last = 0, len(states) - 1
    while True:
        print(position_text(record, states, k), file=stdout)
        print(f"[{k}/{last}] Enter/n next, b back, NUMBER jump, q quit: ", end="", file=stdout)
        stdout.flush()
        line = stdin.readline()
        if not line:
            print(file=stdout)
            return
        command = line.strip().lower()
        if command in ("q", "quit"):
            return
        if command in ("", "n", "next"):
            k = min(k + 1, last)
        elif command in ("b", "back"):
            k = max(k - 1, 0)
        elif command.isdecimal() and len(command) < 10 and int(command) <= last:
            k = int(command)
        else:
            print(f"unknown command {command!r}; positions run from 0 to {last}", file=stdout)


def show(
    record: GameRecord,
    config: ShowConfig,
    step: bool = False,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> None:
    """Show ``record`` as ``config`` says: text (or ``step`` through it), GIF, SVG frames."""
    out = sys.stdout if stdout is None else stdout
    states = record.positions()
    if step:
        browse(record, states, sys.stdin if stdin is None else stdin, out)
    elif not (config.gif or config.svg):
        for k in range(len(states)):
            print(position_text(record, states, k), file=out)
    if config.gif:
        frames, width, height = write_gif(record, states, config.gif, delay_ms=config.delay)
        print(f"wrote {config.gif}: {frames} frames of {width}x{height}", file=out)
    if config.svg:
        paths = write_svgs(record, states, config.svg)
        print(f"wrote {len(paths)} SVG frames into {config.svg}", file=out)
    print(result_line(record), file=out)


__all__ = [
    "ReplayConfig",
    "ShowConfig",
    "WatchConfig",
    "browse",
    "caption",
    "frame",
    "position_text",
    "result_line",
    "show",
    "split_agents",
    "watch",
    "write_gif",
    "write_svgs",
]
