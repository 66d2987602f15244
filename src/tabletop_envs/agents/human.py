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
from collections.abc import Callable
from typing import TextIO, cast

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.core.game import GameState

#: ``parser(game, text) -> action id``, ``None`` when the text is not in the game's syntax;
#: ValueError with a message when it is, but names no valid move (e.g. off the board).
MoveParser = Callable[[GameState, str], "int | None"]

#: ``announcer(game, action, viewer) -> text``: the move ``action`` of the seat to move in
#: ``game`` (before it is played) as seat ``viewer`` may see it, e.g. ``"plays c2"``.
MoveAnnouncer = Callable[[GameState, int, int], str]

_PARSERS: dict[str, MoveParser] = {}
_HINTS: dict[str, str] = {}
_ANNOUNCERS: dict[str, MoveAnnouncer] = {}


class QuitGame(Exception):  # noqa: N818 - a request, not an error
    """The human asked to stop (``quit`` or end of input)."""


def register_move_parser(game_name: str, parser: MoveParser, hint: str = "") -> None:
    """Add the move syntax of ``game_name`` (``hint`` is shown once at the start of play)."""
    _PARSERS[game_name] = parser
    if hint:
        _HINTS[game_name] = hint


def move_hint(game_name: str) -> str:
    """Return the one-line description of the game's move syntax ("" if none)."""
    return _HINTS.get(game_name, "")


def register_move_announcer(game_name: str, announcer: MoveAnnouncer) -> None:
    """Set how ``game_name`` announces a move to a seat that may not see all of it."""
    _ANNOUNCERS[game_name] = announcer


def announce_move(game: GameState, action: int, viewer: int) -> str:
    """Return the move ``action`` of the seat to move as ``viewer`` sees it (before it is played).

    Games whose moves are all public announce ``"plays <action_to_string>"``; a game with secret
    moves registers an announcer that hides what ``viewer`` may not see.
    """
    announcer = _ANNOUNCERS.get(game.game_name)
    if announcer is not None:
        return announcer(game, action, viewer)
    return f"plays {game.action_to_string(action)}"


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def parse_move(game: GameState, text: str) -> int:
    """Return the action id ``text`` names for the player to move; ValueError says why not.

    The id is legal: an understood but illegal move raises ValueError with the rules' reason.
    """
    text = text.strip()
    if not text:
        raise ValueError("type a move, 'legal' for the list of legal moves, or 'quit'")
    legal = np.flatnonzero(game.legal_mask()).tolist()
    action: int | None = None
    parser = _PARSERS.get(game.game_name)
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
        raise ValueError(f"cannot read {text!r} as a move; type 'legal' to list the legal moves")
    if action not in legal:
        probe = game.clone()
        try:
            probe.apply(action)
        except IllegalActionError as err:
            raise ValueError(f"illegal move {text!r}: {err.reason}") from None
        raise ValueError(f"illegal move {text!r}")  # pragma: no cover - mask == apply
    return action


def legal_moves_text(game: GameState) -> str:
    """Return the legal moves as ``name (#id)`` items."""
    legal = np.flatnonzero(game.legal_mask()).tolist()
    return "legal moves: " + ", ".join(f"{game.action_to_string(a)} (#{a})" for a in legal)


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


# ---- per-game move syntax ------------------------------------------------------------------
_PAIR = re.compile(r"\(?\s*(-?\d+)\s*[,\s]\s*(-?\d+)\s*\)?")


def _iris(game: GameState, text: str) -> int | None:
    """Iris: ``q r`` / ``q,r`` / ``(q, r)`` axial cells, ``pass``."""
    low = text.strip().lower()
    if low in ("pass", "p", "forfeit"):
        return game.pass_action  # type: ignore[attr-defined]
    match = _PAIR.fullmatch(low)
    if not match:
        return None
    q, r = int(match.group(1)), int(match.group(2))
    return game.coord_to_action(q, r)  # type: ignore[attr-defined]  # ValueError off-board


register_move_parser(
    "iris",
    _iris,
    "Iris moves: a cell as 'q r' or '(q, r)' (axial: (0, 0) is the centre, q grows to the "
    "right, r downwards), or 'pass'.",
)


_SQUARE = re.compile(r"(?:(stone|tile|s|t)\s*)?([a-f])\s*([1-6])")


def _isis_osiris(game: GameState, text: str) -> int | None:
    """Isis & Osiris: ``reveal``; ``c2`` (a stone, or the revealed tile while placing one)."""
    low = text.strip().lower()
    if low in ("reveal", "r"):
        return game.reveal_action  # type: ignore[attr-defined]
    match = _SQUARE.fullmatch(low)
    if not match:
        return None
    from tabletop_envs.games.isis_osiris.tables import PLACE, TILE_BASE, coord_to_square

    kind, col, row = match.groups()
    square = coord_to_square(int(row) - 1, "abcdef".index(col))
    placing = game.phase == PLACE  # type: ignore[attr-defined]
    if kind in ("tile", "t") or (kind is None and placing):
        return TILE_BASE + square
    return square


register_move_parser(
    "isis_osiris",
    _isis_osiris,
    "Isis & Osiris moves: a square like 'c2' (column a-f, row 1-6) for a stone, or for the "
    "tile just revealed; 'reveal' to turn over your top tile.",
)

_ORIENT = {"down": 0, "d": 0, "right": 1, "r": 1, "up": 2, "u": 2, "left": 3, "l": 3}
_PLACE = re.compile(r"(?:place\s*)?(?:at\s*)?\(?\s*(\d+)\s*[,\s]\s*(\d+)\s*\)?\s*([a-z]+)")
_CHOOSE = re.compile(r"(?:choose\s*)?#?\s*(\d+)")


def _irk(game: GameState, text: str) -> int | None:
    """Irk: ``choose 12`` / ``12`` (a tile id); ``place 9 7 right`` (row, col, orientation)."""
    from tabletop_envs.games.irk.rules import CHOOSE

    low = text.strip().lower()
    if game.phase == CHOOSE:  # type: ignore[attr-defined]
        match = _CHOOSE.fullmatch(low)
        return int(match.group(1)) if match else None
    match = _PLACE.fullmatch(low)
    if not match or match.group(3) not in _ORIENT:
        return None
    row, col = int(match.group(1)), int(match.group(2))
    return game.placement_to_action(row, col, _ORIENT[match.group(3)])  # type: ignore[attr-defined]


def _irk_announce(state: GameState, action: int, viewer: int) -> str:
    """Irk: another seat's choice is secret until the bets are revealed or the tile is placed."""
    from tabletop_envs.core.seats import next_seat
    from tabletop_envs.games.irk.rules import CHOOSE, ROUND_KINDS, IrkState

    game = cast(IrkState, state)  # registered for Irk only
    mover = game.current_player
    if game.phase != CHOOSE:  # the tile being placed is revealed as it is placed
        tile = game.chosen[mover]
        return f"places #{tile} {game.tile_label(tile)}: {game.action_to_string(action)}"
    text = f"plays {game.action_to_string(action)}" if mover == viewer else "chose a tile"
    if next_seat(mover, game.num_players) == game.box and ROUND_KINDS[game.round] == "bet":
        chosen = [action if s == mover else t for s, t in enumerate(game.chosen)]
        bets = ", ".join(f"player_{s} #{t} {game.tile_label(t)}" for s, t in enumerate(chosen))
        text += f"; the bets are revealed: {bets}"
    return text


register_move_announcer("irk", _irk_announce)

register_move_parser(
    "irk",
    _irk,
    "Irk moves: 'choose 12' (or '12') picks hand tile #12; 'place 9 7 right' puts the top "
    "square on row 9, column 7, running down/right/up/left.",
)
