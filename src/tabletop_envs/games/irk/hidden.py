"""What a seat in Irk has not seen: the secret steps and a redraw of the hidden tiles.

A mixin of :class:`~tabletop_envs.games.irk.rules.IrkState`, kept apart so that the rules file
stays within its size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tabletop_envs.games.irk.facts import OTHERS, draw_seed
from tabletop_envs.games.irk.params import CHOOSE, PLACE, IrkParams

if TYPE_CHECKING:
    from tabletop_envs.games.irk.rules import IrkState

_GENERATOR = np.random.Generator


class SecretChoices:
    """:meth:`secret_steps` and :meth:`resample_hidden` of Irk."""

    __slots__ = ()

    params: IrkParams
    phase: int
    to_move: int
    chosen: list[int]
    hands: list[list[int]]
    unused: list[int]
    discards: list[tuple[int, int, int]]
    round: int

    if TYPE_CHECKING:  # provided by IrkState and its base

        def clone(self, *, copy_hands: bool = True) -> IrkState: ...
        def _check_resample(self, seat: Any, rng: Any) -> int: ...

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

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> IrkState:
        """Return a copy with others' hands, others' unrevealed choices and unused tiles redrawn.

        The tile being placed is revealed and kept. The hidden tiles are gathered in ascending id
        order, shuffled with ``rng`` and dealt back with the same counts (other seats in seat
        order: hand, then chosen tile; then the unused tiles): the draw reads what ``seat`` knows.
        """
        n = self.params.num_players
        if type(seat) is not int or not 0 <= seat < n or type(rng) is not _GENERATOR:
            seat = self._check_resample(seat, rng)
        hands = self.hands
        chosen = self.chosen
        others = OTHERS[n][seat]
        # the tile being placed is revealed: public, kept
        placer = self.to_move if self.phase == PLACE else -1
        pool = self.unused.copy()  # every hidden tile; sorted below, so the order is free
        for s in others:
            pool += hands[s]
            if chosen[s] >= 0 and s != placer:  # a secret choice
                pool.append(chosen[s])
        pool.sort()
        # the permutation rng.permutation(len(pool)) would give, applied: the same draws
        rng.shuffle(pool)
        new_hands = hands.copy()  # the others' hands are redealt below
        new_hands[seat] = hands[seat].copy()  # own seat's hand kept
        new_chosen = chosen.copy()
        k = 0
        for s in others:
            end = k + len(hands[s])
            dealt = new_hands[s] = pool[k:end]
            dealt.sort()
            k = end
            if chosen[s] >= 0 and s != placer:
                new_chosen[s] = pool[k]
                k += 1
        new = self.clone(copy_hands=False)
        new.hands = new_hands
        new.chosen = new_chosen
        del pool[:k]
        pool.sort()
        new.unused = pool
        # new.reseed(draw_seed(rng)) without its check: a seed in [0, 2**63), drawn as
        # int(rng.integers(2**63)) draws it
        new._rng = None
        new._rng_at = draw_seed(rng)
        if self.phase == CHOOSE and self.to_move != seat:  # the mover's hand was redealt
            new._mask = None
        new.seed = None  # a redrawn position: the action log no longer rebuilds it
        return new
