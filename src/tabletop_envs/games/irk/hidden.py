"""What the seat to move in Irk has not seen of the steps just taken, for the searches.

A mixin of :class:`~tabletop_envs.games.irk.rules.IrkState`, kept apart so that the rules file
stays within its size.
"""

from __future__ import annotations

from tabletop_envs.games.irk.params import CHOOSE, PLACE


class SecretChoices:
    """:meth:`secret_steps` of Irk: the round's choices the mover has not seen."""

    __slots__ = ()

    phase: int
    chosen: list[int]
    discards: list[tuple[int, int, int]]
    round: int

    def secret_steps(self) -> int:
        """Return how many of the last steps the mover has not seen: others' secret choices.

        Choose phase: every choice made this round. Place phase, before the round's first
        placement: the choices after the placer's own (the placer's tile is revealed, the later
        placers' are not; the tiles discarded before it are public). After a placement: 0. At 3-4
        players the later placers' choices are still secret then, but a public step follows
        them, so they are no longer the last steps (:meth:`GameState.secret_steps` counts only
        those).
        """
        pending = sum(tile >= 0 for tile in self.chosen)  # chosen this round, not yet revealed
        if self.phase == CHOOSE:
            return pending
        if self.phase == PLACE:
            discarded = sum(1 for _seat, _tile, at in self.discards if at == self.round)
            if pending + discarded == len(self.chosen):  # nobody has placed this round
                return pending - 1
        return 0
