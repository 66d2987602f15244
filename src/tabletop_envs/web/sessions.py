"""The games being played and the records being stepped through, each under its own id.

A :class:`GameSession` holds one PettingZoo env (``illegal_action="raise"``), the agents of
its agent seats, a secret token per human seat and the moves as each seat saw them announced
(``announce_move``: another seat's secret choice is "chose a tile"). Its state changes only
through :meth:`GameSession.play`, on the server's event loop; agents think on a copy of the
game in a worker thread (:meth:`GameSession.agent_move`), so a thinking agent blocks neither
its own game's pages nor any other game. :class:`Store` keeps the sessions and drops the idle
ones.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.expert import check_agents
from tabletop_envs.agents.human import announce_move, parse_move
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.core.config import quote
from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.aec import TabletopEnv
from tabletop_envs.envs.registry import env_spec, make
from tabletop_envs.replay import GameRecord, positions
from tabletop_envs.watch import viewer as spectator_seat
from tabletop_envs.web.catalogue import HUMAN, default_seats, game_params, probe_game
from tabletop_envs.web.views import position_view, record_view

#: Longest agent spec accepted for a seat.
MAX_SPEC = 1000
#: A record being stepped through keeps every this many positions and replays the others from
#: the one kept before (kept whole, an Iris game of side 16 took 23 MB: 100 such were 2.3 GB).
KEPT_EVERY = 32
#: Where a move's sender finds the legal moves (a text that is no move says it).
LISTED = "the seat's view lists the legal moves ('moves', on its turn)"


class WebError(Exception):
    """A request that cannot be served: its HTTP status and a message saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Move:
    """One move of a game: who played it and how each seat (and a spectator) saw it."""

    seat: int
    action: int
    seen: list[str]  # per seat, announce_move's words for that seat
    public: str  # a spectator's words (games between agents): as the mover saw its move


@dataclass
class GameSession:
    """One game in play: its env, seats, agents, the human seats' tokens and its moves."""

    id: str
    env_name: str
    env: TabletopEnv
    seats: list[str]
    agents: dict[int, Agent]
    tokens: dict[int, str]
    moves: list[Move] = field(default_factory=list)
    thinking: bool = False
    used: float = field(default_factory=time.monotonic)

    @property
    def game(self) -> GameState:
        """Return the env's core state (dealt at creation)."""
        game = self.env.game
        assert game is not None  # reset() at creation
        return game

    def viewer(self, seat: Any, token: Any) -> int | None:
        """Return the seat a request may see (None: the spectator of an agent-only game).

        A human seat is seen only with its token; a game with a human seat has no spectator.
        """
        if seat is None:
            if self.tokens:
                raise WebError(
                    403,
                    "this game has a human seat: ask as a seat with its token (given when the "
                    "game was made); only games between agents have spectators",
                )
            return None
        n = len(self.seats)
        if type(seat) is not int or not 0 <= seat < n:
            raise WebError(400, f"seat must be an integer from 0 to {n - 1}, got {quote(seat)}")
        if seat not in self.tokens:
            raise WebError(403, f"seat {seat} is played by the agent {quote(self.seats[seat])}")
        if not isinstance(token, str) or not secrets.compare_digest(token, self.tokens[seat]):
            raise WebError(403, f"wrong or missing token for seat {seat}")
        return seat

    def view(self, viewer: int | None) -> dict[str, Any]:
        """Return what ``viewer`` is sent (see :func:`~.views.position_view`) and the game's
        seats and moves as ``viewer`` saw them."""
        game = self.game
        shown = spectator_seat(game) if viewer is None else viewer
        out = position_view(self.env_name, game, shown, may_move=viewer is not None)
        out.update(
            id=self.id,
            env=self.env_name,
            params=_plain(dataclasses.asdict(game.params)),
            seats=[{"seat": s, "agent": a, "human": a == HUMAN} for s, a in enumerate(self.seats)],
            viewer=viewer,
            thinking=self.thinking,
            agent_to_move=not game.is_terminal and game.current_player in self.agents,
            record=self.record_allowed(),
            history=[
                {
                    "number": k + 1,
                    "seat": m.seat,
                    "text": m.public if viewer is None else m.seen[viewer],
                }
                for k, m in enumerate(self.moves)
            ],
        )
        return out

    def record_allowed(self) -> bool:
        """Return whether the record may be sent: it holds the deal and every secret move, so a
        game of hidden information with a human seat sends it once it is over."""
        game = self.game
        perfect = type(game).resample_hidden is GameState.resample_hidden  # nothing to redraw
        return not self.tokens or game.is_terminal or perfect

    def record(self) -> GameRecord:
        """Return the game's record (409 while it would show a person hidden information)."""
        if not self.record_allowed():
            raise WebError(
                409,
                "the record holds the deal and every seat's secret moves: it can be downloaded "
                "once the game is over",
            )
        return GameRecord.of(self.env_name, self.game, self.seats)

    def human_action(self, seat: int, body: dict[str, Any]) -> int:
        """Return the action ``body`` names for ``seat``: ``{"action": id}`` or ``{"move":
        text}`` in the game's move syntax, optionally with the ``move_number`` of the position
        the move was chosen on. 400/409 saying why it cannot be played."""
        game = self._ready()
        _check_move_number(body.get("move_number"), len(game.actions))
        if game.current_player != seat:
            raise WebError(409, f"it is player_{game.current_player}'s move, not player_{seat}'s")
        if "move" in body:
            text = body["move"]
            if not isinstance(text, str) or len(text) > 200:
                raise WebError(400, f"move is a text in the game's syntax, got {quote(text)}")
            try:
                return parse_move(game, text, listed=LISTED)
            except ValueError as err:
                raise WebError(400, str(err)) from None
        action = body.get("action")
        n = game.spec.num_actions
        if type(action) is not int or not 0 <= action < n:
            raise WebError(400, f"action is an action id from 0 to {n - 1}, got {quote(action)}")
        return action

    def play(self, action: int) -> None:
        """Play ``action`` for the seat to move; 400 with the rules' reason if it is illegal."""
        game = self._ready()
        seat = game.current_player
        try:
            public = game.action_to_string(action)
        except ValueError:  # an id that names no move (off the board)
            public = f"#{action}"
        if not game.legal_mask()[action]:  # the game says why, on a copy: nothing changes
            try:
                game.clone().apply(action)
            except IllegalActionError as err:
                raise WebError(400, f"illegal move {public}: {err.reason}") from None
        seen = [announce_move(game, action, v) for v in range(len(self.seats))]
        self.env.step(action)
        self.moves.append(Move(seat, action, seen, seen[seat]))

    def agent_move(self) -> tuple[Agent, GameState, int]:
        """Return the agent to move, a copy of the game for it to think on, and the seat."""
        game = self._ready()
        seat = game.current_player
        if seat not in self.agents:
            raise WebError(409, f"player_{seat} is a human seat: its page plays its moves")
        return self.agents[seat], game.clone(), seat

    def _ready(self) -> GameState:
        """Return the game if a move may be played now (409 otherwise)."""
        game = self.game
        if game.is_terminal:
            raise WebError(409, "the game is over")
        if self.thinking:
            raise WebError(409, "an agent is thinking about its move; wait for it")
        return game


def _check_move_number(seen: Any, now: int) -> None:
    """Refuse a move chosen on an earlier position (409: another page played since)."""
    if seen is None:
        return
    if type(seen) is not int:
        raise WebError(400, f"move_number is the view's move_number, got {quote(seen)}")
    if seen != now:
        raise WebError(
            409,
            f"the game has moved on since move {seen} (another page played; it is at move "
            f"{now}): nothing was played, look again",
        )


def new_game(game_id: str, env_name: Any, params: Any, seats: Any, seed: Any) -> GameSession:
    """Return a new game of ``env_name`` (400 naming what is wrong with any argument)."""
    if not isinstance(env_name, str):
        raise WebError(400, f"env is the name of a registered env, got {quote(env_name)}")
    try:
        built = game_params(env_name, {} if params is None else params)
        probe = probe_game(env_name, built)
        if seats is None:
            specs = default_seats(env_name, probe)
        else:
            specs = _seat_specs(seats, probe.num_players)
        seed = _seed(seed)
        env = make(env_name, illegal_action="raise", **dataclasses.asdict(built))
        agents = {
            s: make_agent(spec, env_name, seed=(seed + 7919 * (s + 1)) % 2**63)
            for s, spec in enumerate(specs)
            if spec != HUMAN
        }
        # a network made for other parameters (an ``az:`` file, or the expert of 2 players at a
        # 3-player table) is refused, naming its seat, before the game starts
        check_agents(((f"seat {s} ({specs[s]})", a) for s, a in agents.items()), probe)
    # an unknown env, a parameter, a seat, an agent spec, the seed; an agent's file that cannot
    # be read, or a package it needs (what the command line reports the same way)
    except (ValueError, OSError, ImportError) as err:
        raise WebError(400, str(err)) from None
    env.reset(seed=seed)
    tokens = {s: secrets.token_urlsafe(16) for s, spec in enumerate(specs) if spec == HUMAN}
    return GameSession(game_id, env_name, env, specs, agents, tokens)


def _seed(seed: Any) -> int:
    """Return the game's seed: ``seed`` (an integer, or its decimal text: a page's numbers are
    exact only up to 2**53), or a random one if None. ValueError if it is neither."""
    if seed is None:
        return secrets.randbits(63)
    if isinstance(seed, str) and seed.isascii() and seed.isdecimal() and len(seed) < 30:
        seed = int(seed)
    if type(seed) is not int or not 0 <= seed < 2**63:
        raise ValueError(
            f"seed is an integer from 0 to 2**63 - 1 (or its decimal text), got {quote(seed)}"
        )
    return seed


def _seat_specs(seats: Any, n: int) -> list[str]:
    """Return the seats' specs (``"human"`` or an agent spec), one per seat."""
    if not isinstance(seats, list) or len(seats) != n:
        raise ValueError(f"seats lists one entry per seat ({n}): 'human' or an agent spec")
    for spec in seats:
        if not isinstance(spec, str) or not 0 < len(spec) <= MAX_SPEC or not spec.isprintable():
            raise ValueError(
                f"a seat is 'human' or an agent spec (a line of at most {MAX_SPEC} characters), "
                f"got {quote(spec)}"
            )
    return [s.strip() for s in seats]


class Positions(Sequence[GameState]):
    """Every position of a record's game, from the deal to its last action: one in
    :data:`KEPT_EVERY` kept, the others replayed from the one kept before when asked."""

    def __init__(self, record: GameRecord) -> None:
        game = env_spec(record.env).load_game()
        self.actions = list(record.actions)
        every = positions(game, record.params, record.seed, self.actions)
        self.kept = [state for k, state in enumerate(every) if k % KEPT_EVERY == 0]

    def __len__(self) -> int:
        return len(self.actions) + 1

    @overload
    def __getitem__(self, k: int) -> GameState: ...
    @overload
    def __getitem__(self, k: slice) -> list[GameState]: ...
    def __getitem__(self, k: int | slice) -> GameState | list[GameState]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if not -len(self) <= k < len(self):
            raise IndexError(f"positions run from 0 to {len(self) - 1}, got {k}")
        k %= len(self)
        state = self.kept[k // KEPT_EVERY].clone()
        for action in self.actions[k - k % KEPT_EVERY : k]:
            state.apply(action)
        return state


@dataclass
class ReplaySession:
    """A record being stepped through: the record and the positions of its game."""

    id: str
    record: GameRecord
    states: Sequence[GameState]
    used: float = field(default_factory=time.monotonic)

    def view(self, k: Any) -> dict[str, Any]:
        """Return position ``k`` (404 naming the positions if there is none)."""
        last = len(self.states) - 1
        if type(k) is not int or not 0 <= k <= last:
            raise WebError(404, f"positions run from 0 to {last}, got {quote(k)}")
        out = record_view(self.record, self.states, k)
        out["id"] = self.id
        return out


_S = TypeVar("_S", GameSession, ReplaySession)


class Store:
    """The sessions by id; one unused for ``idle_seconds`` is dropped, at most ``limit`` kept."""

    def __init__(
        self, idle_seconds: float, limit: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.idle_seconds = idle_seconds
        self.limit = limit
        self.clock = clock
        self.sessions: dict[str, GameSession | ReplaySession] = {}

    def new_id(self) -> str:
        """Return a fresh id, after dropping idle sessions (503 when the store is full)."""
        self.expire()
        if len(self.sessions) >= self.limit:
            raise WebError(
                503,
                f"{self.limit} games and records are open, the most this server keeps; "
                "try again when idle ones have expired",
            )
        return secrets.token_urlsafe(9)

    def add(self, session: GameSession | ReplaySession) -> None:
        """Keep ``session`` under its id."""
        session.used = self.clock()
        self.sessions[session.id] = session

    def game(self, game_id: str) -> GameSession:
        """Return the game ``game_id`` (404 if there is none: unknown or expired)."""
        return self._get(game_id, GameSession, "game")

    def replay(self, replay_id: str) -> ReplaySession:
        """Return the record ``replay_id`` being stepped through (404 if there is none)."""
        return self._get(replay_id, ReplaySession, "record")

    def _get(self, key: str, kind: type[_S], what: str) -> _S:
        self.expire()
        session = self.sessions.get(key)
        if not isinstance(session, kind):
            minutes = f"{self.idle_seconds / 60:g}"
            raise WebError(
                404, f"no {what} with id {quote(key)}: unknown, or unused for {minutes} minutes"
            )
        session.used = self.clock()
        return session

    def expire(self) -> None:
        """Drop every session unused for ``idle_seconds`` (a game whose agent thinks stays)."""
        cutoff = self.clock() - self.idle_seconds
        for key, session in list(self.sessions.items()):
            if session.used < cutoff and not getattr(session, "thinking", False):
                del self.sessions[key]


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


__all__ = ["GameSession", "Move", "Positions", "ReplaySession", "Store", "WebError", "new_game"]
