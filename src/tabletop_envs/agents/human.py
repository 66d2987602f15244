"""A human at a terminal as an :class:`Agent`: typed moves, per-game move syntax, clear errors.

A typed move is understood, in order, as: a command (``help``/``legal``/``?`` lists the legal
moves, ``quit``/``exit`` leaves); the game's own syntax from :func:`register_move_parser` (Iris:
``q r``, ``q,r`` or ``(q, r)``, and ``pass``); the exact name the game gives a legal move
(``action_to_string``, spaces and case ignored); a raw action id as ``#17`` or ``17``.

Other seats' moves are announced to the human with :func:`announce_move`, which shows only what
the human's seat may see (an Irk choice is "chose a tile" until it is revealed).
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.core.game import GameState
from tabletop_envs.core.registration import MoveAnnouncer, MoveParser
from tabletop_envs.envs.registry import move_syntax

_PARSERS: dict[str, MoveParser] = {}
_HINTS: dict[str, str] = {}
_ANNOUNCERS: dict[str, MoveAnnouncer] = {}


class QuitGame(Exception):  # noqa: N818 - a request, not an error
    """The human asked to stop (``quit`` or end of input)."""


def register_move_parser(game_name: str, parser: MoveParser, hint: str = "") -> None:
    """Set the move syntax of ``game_name`` (``hint`` is shown once at the start of play).

    A game declares its own syntax in its folder (``moves`` of its ``EnvSpec``); this
    overrides it.
    """
    _PARSERS[game_name] = parser
    if hint:
        _HINTS[game_name] = hint


def move_hint(game_name: str) -> str:
    """Return the one-line description of the game's move syntax ("" if none)."""
    if game_name in _HINTS:
        return _HINTS[game_name]
    syntax = move_syntax(game_name)
    return "" if syntax is None else syntax.hint


def register_move_announcer(game_name: str, announcer: MoveAnnouncer) -> None:
    """Set how ``game_name`` announces a move to a seat that may not see all of it."""
    _ANNOUNCERS[game_name] = announcer


def announce_move(game: GameState, action: int, viewer: int) -> str:
    """Return the move ``action`` of the seat to move as ``viewer`` sees it (before it is played).

    Games whose moves are all public announce ``"plays <action_to_string>"``; a game with secret
    moves registers an announcer that hides what ``viewer`` may not see.
    """
    announcer = _ANNOUNCERS.get(game.game_name)
    if announcer is None:
        syntax = move_syntax(game.game_name)
        announcer = None if syntax is None else syntax.announcer
    if announcer is not None:
        return announcer(game, action, viewer)
    return f"plays {game.action_to_string(action)}"


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


#: Where the command line's player finds the legal moves (``parse_move``'s default ``listed``).
LISTED = "type 'legal' to list the legal moves"


def parse_move(game: GameState, text: str, listed: str = LISTED) -> int:
    """Return the action id ``text`` names for the player to move; ValueError says why not.

    The id is legal: an understood but illegal move raises ValueError with the rules' reason.
    ``listed``: where the player finds the legal moves (a text that is no move says it).
    """
    text = text.strip()
    if not text:
        raise ValueError(f"no move given; {listed}")
    legal = np.flatnonzero(game.legal_mask()).tolist()
    action: int | None = None
    parser = _PARSERS.get(game.game_name)
    if parser is None:
        syntax = move_syntax(game.game_name)
        parser = None if syntax is None else syntax.parser
    if parser is not None:
        action = parser(game, text)
    if action is None:
        wanted = _norm(text)
        for a in legal:
            if _norm(game.action_to_string(a)) == wanted:
                action = a
                break
    if action is None:
        match = re.fullmatch(r"#?\s*(\d+)", text)
        if match:
            action = int(match.group(1))
    if action is None:
        raise ValueError(f"cannot read {text!r} as a move; {listed}")
    if action not in legal:
        probe = game.clone()
        try:
            probe.apply(action)
        except IllegalActionError as err:
            raise ValueError(f"illegal move {text!r}: {err.reason}") from None
        raise ValueError(f"illegal move {text!r}")  # pragma: no cover - mask == apply
    return action


#: Up to this many legal moves are listed on one line; more are grouped and wrapped.
ONE_LINE_MOVES = 12
#: The width the grouped list of legal moves is wrapped at.
MOVES_WIDTH = 100


def _group(name: str) -> str:
    """Return the group of a move's name: its words up to its first number (Irk: the row)."""
    match = re.match(r"\D*-?\d+", name)
    return match.group(0) if match else name


def legal_moves_text(game: GameState, width: int = MOVES_WIDTH) -> str:
    """Return every legal move as a ``name (#id)`` item.

    A few fit on one line; more are grouped by the start of their names up to its first number
    (Irk: the row of a placement, Iris: the first coordinate), one group per line, wrapped at
    ``width`` columns.
    """
    legal = np.flatnonzero(game.legal_mask()).tolist()
    items = [(game.action_to_string(a), f"{game.action_to_string(a)} (#{a})") for a in legal]
    if len(items) <= ONE_LINE_MOVES:
        return "legal moves: " + ", ".join(item for _, item in items)
    groups: dict[str, list[str]] = {}
    for name, item in items:
        groups.setdefault(_group(name), []).append(item)
    lines = [f"legal moves ({len(items)}):"]
    for group in groups.values():
        line = "  " + group[0]
        for item in group[1:]:
            if len(line) + 2 + len(item) > width:
                lines.append(line)
                line = "    " + item
            else:
                line += "  " + item
        lines.append(line)
    return "\n".join(lines)


class HumanAgent(Agent):
    """Reads moves from ``stdin`` and answers on ``stdout`` until it gets a legal one."""

    name = "human"

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout

    def _say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def act(self, game: GameState, seat: int) -> int:
        """Prompt until a legal move is typed; raise :class:`QuitGame` on ``quit`` or EOF."""
        while True:
            self.stdout.write(f"player_{seat}> ")
            self.stdout.flush()
            try:
                line = self.stdin.readline()
            except KeyboardInterrupt:
                line = ""
            if not line:
                self._say("")
                raise QuitGame("end of input")
            text = line.strip()
            low = text.lower()
            if low in ("quit", "exit", "q"):
                raise QuitGame(low)
            if low in ("help", "legal", "?", "h"):
                hint = move_hint(game.game_name)
                if hint:
                    self._say(hint)
                self._say(legal_moves_text(game))
                continue
            try:
                return parse_move(game, text)
            except ValueError as err:
                self._say(str(err))
