"""Pebbles: the rules (pure: numpy only, no env, no agents).

Players take 1, 2 or 3 pebbles in turn from one pile until it is empty. Each pebble is worth a
point, the last pebble 3 more, and each player was dealt a secret bonus token worth 0, 1 or 2
points, shown only at the end. The highest total wins (+1, the others -1; tied winners get 0).

The deal (the tokens) is the game's chance and its hidden information: a seat sees its own
token, never the others', so ``resample_hidden`` redraws the others' tokens.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_envs.core.errors import InvalidStateError
from tabletop_envs.core.game import TERMINAL, GameSpec, GameState
from tabletop_envs.core.params import check_int_range
from tabletop_envs.core.state_check import check_int, check_int_list, check_keys

MAX_PILE = 30
MIN_PLAYERS, MAX_PLAYERS = 2, 3
TOKENS = 3  # bonus tokens are worth 0, 1 or 2 points
LAST_PEBBLE = 3  # extra points for taking the last pebble
#: Action ``k`` takes ``k + 1`` pebbles.
NUM_ACTIONS = 3


@dataclass(frozen=True)
class PebblesParams:
    """Parameters of Pebbles: the number of players and the pile's size."""

    num_players: int = 2
    pile: int = 12

    def __post_init__(self) -> None:
        check_int_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_int_range("pile", self.pile, NUM_ACTIONS, MAX_PILE)


def channels(num_players: int) -> tuple[str, ...]:
    """Return the observation's channel names (egocentric: ``*_0`` is the observing seat)."""
    return (
        "left",
        "my_token",
        *(f"taken_{k}" for k in range(num_players)),
        *(f"to_move_{k}" for k in range(num_players)),
    )


@functools.cache
def game_spec(params: PebblesParams) -> GameSpec:
    """Return the static facts of a parameter set (computed once per parameter set)."""
    names = channels(params.num_players)
    return GameSpec(
        num_players=params.num_players,
        num_actions=NUM_ACTIONS,
        observation_shape=(len(names),),
        observation_channels=names,
        max_game_length=params.pile,  # every action takes at least one pebble
        reward_range=(-1.0, 1.0),
        observation_high=MAX_PILE,  # counts of pebbles, not one-hot planes
    )


class PebblesState(GameState):
    """A Pebbles position."""

    __slots__ = ("last", "left", "taken", "to_move", "tokens")

    game_name = "pebbles"
    params_class = PebblesParams

    params: PebblesParams
    left: int  # pebbles left in the pile
    taken: list[int]  # pebbles each seat has taken
    tokens: list[int]  # each seat's secret bonus token
    to_move: int
    last: int  # the seat that took the last pebble; -1 before the end

    def _setup(self) -> None:
        n = self.params.num_players
        self.left = self.params.pile
        self.taken = [0] * n
        self.tokens = [int(self.rng.integers(TOKENS)) for _ in range(n)]
        self.to_move = 0
        self.last = -1

    # ---- static facts and dynamics --------------------------------------------------------
    @property
    def spec(self) -> GameSpec:
        """Return the static facts."""
        return game_spec(self.params)

    @property
    def current_player(self) -> int:
        """Return the seat to move, or ``TERMINAL`` once the pile is empty."""
        return TERMINAL if self.left == 0 else self.to_move

    @property
    def is_terminal(self) -> bool:
        """Return whether the pile is empty."""
        return self.left == 0

    def legal_mask(self) -> np.ndarray:
        """Return a fresh mask: action ``k`` (take ``k + 1``) while that many are left."""
        return np.array([k + 1 <= self.left for k in range(NUM_ACTIONS)], dtype=np.int8)

    def _apply(self, action: int) -> None:
        """Take ``action + 1`` pebbles for the seat to move."""
        action = self._check_action_type(action)
        if action + 1 > self.left:
            raise self._illegal(action, f"only {self.left} pebbles are left")
        self.left -= action + 1
        self.taken[self.to_move] += action + 1
        if self.left == 0:
            self.last = self.to_move
        self.to_move = (self.to_move + 1) % self.params.num_players

    def scores(self) -> list[int]:
        """Return each seat's points: pebbles taken, its token, 3 more for the last pebble."""
        return [
            taken + token + (LAST_PEBBLE if seat == self.last else 0)
            for seat, (taken, token) in enumerate(zip(self.taken, self.tokens, strict=True))
        ]

    def returns(self) -> np.ndarray:
        """Return +1 for the winner and -1 for the others (0 for tied winners); zeros before."""
        out = np.zeros(self.params.num_players)
        if self.is_terminal:
            scores = self.scores()
            winners = [s for s, score in enumerate(scores) if score == max(scores)]
            out[:] = -1.0
            out[winners] = 1.0 if len(winners) == 1 else 0.0
        return out

    def result_info(self) -> dict[str, Any]:
        """Return the scores, the tokens (shown at the end) and the winners."""
        if not self.is_terminal:
            return {}
        scores = self.scores()
        winners = [s for s, score in enumerate(scores) if score == max(scores)]
        return {"scores": scores, "tokens": list(self.tokens), "winners": winners}

    # ---- information ------------------------------------------------------------------------
    def observation(self, seat: int) -> np.ndarray:
        """Return ``seat``'s view: pebbles left, its own token, what each seat took and who
        moves, seats listed from ``seat`` on."""
        seat = self._check_seat(seat)
        n = self.params.num_players
        out = np.zeros(2 + 2 * n, dtype=np.int8)
        out[0] = self.left
        out[1] = self.tokens[seat]
        for k in range(n):
            other = (seat + k) % n
            out[2 + k] = self.taken[other]
            out[2 + n + k] = other == self.current_player
        return out

    def render_text(self, seat: int | None = None) -> str:
        """Return the pile, the takes, the mover, and ``seat``'s token (every token at the end)."""
        if seat is not None:
            seat = self._check_seat(seat)
        lines = [f"{self.left} pebbles left; taken {self.taken}"]
        if self.is_terminal:
            lines.append(f"tokens {self.tokens}; scores {self.scores()}")
        else:
            lines.append(f"player {self.to_move} to move")
            if seat is not None:
                lines.append(f"player {seat}'s token: {self.tokens[seat]}")
        return "\n".join(lines)

    def action_to_string(self, action: int) -> str:
        """Return ``take N``."""
        return f"take {action + 1}"

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> PebblesState:
        """Return a copy with the other seats' tokens redrawn (all shown once the game is over)."""
        seat = self._check_seat(seat)
        new = self.clone()
        if not self.is_terminal:
            for other in range(self.params.num_players):
                if other != seat:
                    new.tokens[other] = int(rng.integers(TOKENS))
            new.seed = None  # a redrawn position: the action log no longer rebuilds it
        return new

    # ---- copies and persistence -----------------------------------------------------------
    def clone(self) -> PebblesState:
        """Return an independent copy (the lists copied, the rest immutable)."""
        new = self._shallow_copy()
        new.taken = self.taken.copy()
        new.tokens = self.tokens.copy()
        return new

    def _state_dict(self) -> dict[str, Any]:
        return {
            "left": self.left,
            "taken": list(self.taken),
            "tokens": list(self.tokens),
            "to_move": self.to_move,
            "last": self.last,
        }

    def _load_state_dict(self, data: Any) -> None:
        """Restore a saved state after checking every field and invariant (untrusted data)."""
        n, pile = self.params.num_players, self.params.pile
        data = check_keys(data, ("last", "left", "taken", "to_move", "tokens"))
        left = check_int(data["left"], 0, pile, "state.left")
        taken = check_int_list(data["taken"], 0, pile, "state.taken", length=n)
        tokens = check_int_list(data["tokens"], 0, TOKENS - 1, "state.tokens", length=n)
        to_move = check_int(data["to_move"], 0, n - 1, "state.to_move")
        last = check_int(data["last"], -1, n - 1, "state.last")
        if left + sum(taken) != pile:
            raise _invalid("taken", f"{sum(taken)} taken and {left} left is not a pile of {pile}")
        if (left == 0) != (last >= 0):
            raise _invalid("last", "names the seat that emptied the pile, -1 before that")
        if last >= 0 and to_move != (last + 1) % n:
            raise _invalid("to_move", "after the last pebble, the seat after its taker")
        self.left, self.taken, self.tokens = left, taken, tokens
        self.to_move, self.last = to_move, last


def _invalid(field: str, problem: str) -> InvalidStateError:
    return InvalidStateError(f"state.{field}", problem)
