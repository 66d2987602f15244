"""Exceptions shared by every game of the library."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state.

    The state that refused it is unchanged.
    """

    def __init__(self, action: object, player: int, reason: str) -> None:
        self.action = action
        self.player = player
        self.reason = reason
        super().__init__(f"illegal action {action!r} for player {player}: {reason}")


class InvalidParameterError(ValueError):
    """A game or environment parameter outside its valid values."""


class InvalidStateError(ValueError):
    """A saved state (JSON, pickle or a state given to ``load_state``) the rules cannot reach.

    ``field`` names the part of the saved data that is wrong (``"state.board"``, ``"rng"``,
    ``"params"``, ...); the message says what is wrong with it. Nothing is built from a
    refused state.
    """

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"invalid saved state: {field}: {problem}")


class ResetNeededError(RuntimeError):
    """An env used before its first ``reset()``; the message names the env and says to reset it."""
