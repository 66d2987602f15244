"""A tiny correct game, and broken variants of it, for the suite's self-test.

Toy Nim: a pile of ``pile + (0..2 drawn at set-up)`` stones; players take 1-3 in turn; who takes
the last stone wins. Each broken variant breaks one promise of the contract; the self-test
(``test_conformance_selftest.py``) shows the suite catches each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_envs.core.game import TERMINAL, GameSpec, GameState
from tabletop_envs.core.params import check_int_range
from tabletop_envs.render.draw import Drawing, Rect

MAX_PILE = 30
SIZE = MAX_PILE + 3  # one-hot of the stones left, 0 .. MAX_PILE + 2
CHANNELS = (*(f"left_{k}" for k in range(SIZE)), "to_move")


@dataclass(frozen=True)
class ToyParams:
    """Parameters of toy Nim."""

    pile: int = 10

    def __post_init__(self) -> None:
        check_int_range("pile", self.pile, 3, MAX_PILE)


class ToyState(GameState):
    """A correct toy Nim position."""

    game_name = "toy"
    params_class = ToyParams

    def _setup(self) -> None:
        self.left = self.params.pile + int(self.rng.integers(3))
        self.to_move = 0
        self.winner = -1
        self.history: list[int] = []

    @property
    def spec(self) -> GameSpec:
        """Return the static facts."""
        return GameSpec(
            num_players=2,
            num_actions=3,
            observation_shape=(len(CHANNELS),),
            observation_channels=CHANNELS,
            max_game_length=self.params.pile + 2,
            reward_range=(-1.0, 1.0),
        )

    @property
    def current_player(self) -> int:
        """Return the seat to move."""
        return TERMINAL if self.is_terminal else self.to_move

    @property
    def is_terminal(self) -> bool:
        """Return whether the pile is empty."""
        return self.left == 0

    def legal_mask(self) -> np.ndarray:
        """Return the fresh mask: take k + 1 stones for action k."""
        return np.array([k + 1 <= self.left for k in range(3)], dtype=np.int8)

    def _apply(self, action: int) -> None:
        """Take ``action + 1`` stones."""
        action = self._check_action_type(action)
        if not self.legal_mask()[action]:
            raise self._illegal(action, f"only {self.left} stones are left")
        self.left -= action + 1
        self.history.append(action)
        if self.left == 0:
            self.winner = self.to_move
        self.to_move ^= 1

    def returns(self) -> np.ndarray:
        """Return +1 for who took the last stone, -1 for the other."""
        out = np.zeros(2)
        if self.winner >= 0:
            out[self.winner], out[1 - self.winner] = 1.0, -1.0
        return out

    def result_info(self) -> dict[str, Any]:
        """Return the winner once the game is over."""
        return {"winner": self.winner} if self.is_terminal else {}

    def observation(self, seat: int) -> np.ndarray:
        """Return the one-hot pile size and whether ``seat`` is to move."""
        seat = self._check_seat(seat)
        out = np.zeros(len(CHANNELS), dtype=np.int8)
        out[self.left] = 1
        out[-1] = int(seat == self.current_player)
        return out

    def render_text(self, seat: int | None = None) -> str:
        """Return the pile size and the mover."""
        if seat is not None:
            self._check_seat(seat)
        return f"{self.left} stones left; player {self.to_move} to move"

    def _state_dict(self) -> dict[str, Any]:
        return {
            "left": self.left,
            "to_move": self.to_move,
            "winner": self.winner,
            "history": list(self.history),
        }

    def _load_state_dict(self, data: dict[str, Any]) -> None:
        self.left = data["left"]
        self.to_move = data["to_move"]
        self.winner = data["winner"]
        self.history = list(data["history"])


def drawing(game: ToyState, seat: int | None = None) -> Drawing:
    """Return a small picture of the pile: a gray column per stone, the table edge in blue."""
    picture = Drawing(MAX_PILE + 3, 4, (0, 0, 0))
    if game.left:
        picture.add(Rect(0, 0, game.left, 4, (200, 200, 200)))
    picture.add(Rect(MAX_PILE + 2, 0, 1, 4, (0, 0, 255)))  # the table edge
    return picture


# ---- broken variants (each breaks one promise) -------------------------------------------
class MaskAllowsTooMuch(ToyState):
    """The mask offers "take 3" even when fewer stones are left."""

    def legal_mask(self) -> np.ndarray:
        """Return a mask that is too generous."""
        mask = super().legal_mask()
        mask[2] = 1 if self.left > 0 else 0
        return mask


class ApplyAcceptsTooMuch(ToyState):
    """``apply`` accepts an action off the mask (and mangles the state doing so)."""

    def _apply(self, action: int) -> None:
        """Accept anything in range."""
        if 0 <= action < 3 and not self.is_terminal and not self.legal_mask()[action]:
            self.left = 0
            self.winner = self.to_move
            return
        super()._apply(action)


class SharedClone(ToyState):
    """``clone`` shares the history list with the original."""

    def clone(self) -> SharedClone:
        """Return a copy sharing mutable state (its history list)."""
        return self._shallow_copy()


class JsonForgetsMover(ToyState):
    """The JSON state does not restore whose turn it is."""

    @classmethod
    def from_json(cls, text: str | bytes) -> JsonForgetsMover:
        """Load the state, then lose whose turn it is (after the loader's own checks)."""
        state = super().from_json(text)
        state.to_move = 0
        return state


class EarlyReward(ToyState):
    """Returns are nonzero before the end."""

    def returns(self) -> np.ndarray:
        """Return a reward every step."""
        return super().returns() if self.is_terminal else np.array([0.5, -0.5])


class TooLong(ToyState):
    """The declared maximum game length is too small."""

    @property
    def spec(self) -> GameSpec:
        """Return a spec with a wrong max_game_length."""
        spec = super().spec
        return GameSpec(**{**spec.__dict__, "max_game_length": 2})


class ObservationOutOfBounds(ToyState):
    """The observation holds a 2 where the space says at most 1."""

    def observation(self, seat: int) -> np.ndarray:
        """Return an out-of-bounds observation."""
        out = super().observation(seat)
        out[self.left] = 2
        return out


class IgnoresSeed(ToyState):
    """Set-up draws from fresh entropy instead of the state's seeded RNG."""

    def _setup(self) -> None:
        super()._setup()
        self.left = int(np.random.default_rng().integers(3, MAX_PILE + 3))


class ResampleLeaks(ToyState):
    """``resample_hidden`` changes what the seat sees."""

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> ResampleLeaks:
        """Return a copy with a different pile."""
        new = self.clone()
        if new.left > 3:
            new.left -= 1
        return new


class SeatNotChecked(ToyState):
    """``observation`` accepts any seat (a negative one would read from the end)."""

    def observation(self, seat: int) -> np.ndarray:
        """Return the view without checking ``seat``."""
        out = np.zeros(len(CHANNELS), dtype=np.int8)
        out[self.left] = 1
        out[-1] = int(seat == self.current_player)
        return out


BROKEN = (
    MaskAllowsTooMuch,
    ApplyAcceptsTooMuch,
    SharedClone,
    JsonForgetsMover,
    EarlyReward,
    TooLong,
    ObservationOutOfBounds,
    IgnoresSeed,
    ResampleLeaks,
    SeatNotChecked,
)
