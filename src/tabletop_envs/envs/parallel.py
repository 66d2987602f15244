"""One PettingZoo Parallel view for every game of the library.

A step plays every seat of the core's :meth:`~tabletop_envs.core.GameState.acting_seats` at
once: the mover alone in a turn-based position, every seat still to choose in a simultaneous
round (Irk's choose phase). Agents that do not act have an all-zeros ``action_mask`` and their
actions are ignored. The games, spaces, seeding and rendering are those of the AEC env
(:class:`~tabletop_envs.envs.aec.TabletopEnv`) built with the same arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import ParallelEnv

from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.core.game import GameState, as_action_id
from tabletop_envs.core.registration import EnvSpec
from tabletop_envs.envs.aec import ILLEGAL_ACTION_REWARD, TabletopEnv

Obs = Any  # {"observation": ..., "action_mask": ...}, or the Box alone with obs_type="box"


class TabletopParallelEnv(ParallelEnv):
    """A PettingZoo ``ParallelEnv`` over any :class:`GameState` subclass.

    Keyword arguments are those of the AEC env (the game's parameters, ``render_mode``,
    ``illegal_action``, ``obs_type``). ``step(actions)`` needs an entry for every acting agent
    (those with a non-zero ``action_mask``); entries of the other live agents are ignored. The
    infos have the AEC env's fixed keys at every step, ``action_mask`` being the array of the
    observation (:meth:`result_details`: the readable result). Under
    ``illegal_action="penalize"`` an illegal action ends the game with -1 for each agent that
    played one and 0 for the others; under ``"raise"`` it raises
    :class:`~tabletop_envs.IllegalActionError` and the game is unchanged.
    """

    def __init__(self, env_spec: EnvSpec, **kwargs: Any) -> None:
        # The AEC env validates the arguments, builds the spaces and deals the games; this
        # view plays its core state directly and never uses its turn bookkeeping.
        self._aec = TabletopEnv(env_spec, **kwargs)
        self.env_spec = env_spec
        self.params = self._aec.params
        self.game_spec = self._aec.game_spec
        self.render_mode = self._aec.render_mode
        self.illegal_action = self._aec.illegal_action
        self.obs_type = self._aec.obs_type
        self._illegal: dict[str, str] = {}
        self.metadata = {**self._aec.metadata, "is_parallelizable": True}
        self.possible_agents = self._aec.possible_agents[:]
        self.agents: list[str] = []
        self.observation_spaces = self._aec.observation_spaces
        self.action_spaces = self._aec.action_spaces
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._zero_mask = np.zeros(self.game_spec.num_actions, dtype=np.int8)
        self._acting: tuple[int, ...] = ()

    # ---- spaces -------------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """Return the observation space of ``agent`` (the same for every agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """Return the action space of ``agent`` (the same for every agent)."""
        return self.action_spaces[agent]

    @property
    def game(self) -> GameState | None:
        """Return the core state of the current game (read it; do not modify it)."""
        return self._aec.game

    # ---- PettingZoo API -----------------------------------------------------------------
    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        """Start a new game (the AEC env's game for the same seed); return observations, infos."""
        self._aec.reset(seed=seed, options=options)
        return self._start()

    def load_state(self, game: GameState) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        """Continue from a copy of ``game``; return the observations and infos there."""
        self._aec.load_state(game)
        return self._start()

    def _start(self) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        game = self._aec._game()
        self._acting = game.acting_seats()
        self._illegal = {}
        self.agents = [] if game.is_terminal else self.possible_agents[:]
        return self._observed(self.possible_agents, {})

    def result_details(self) -> dict[str, Any]:
        """Return the readable end of the game, ``{}`` while it runs: ``game.result_info()``
        and, when illegal actions ended it (penalized), ``"illegal_action": {agent: why}``."""
        details = self._aec._game().result_info()
        if self._illegal:
            details["illegal_action"] = dict(self._illegal)
        return details

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, Obs],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Play the acting agents' actions at once; return the five per-agent dicts."""
        game = self._aec.game
        if game is None:
            raise RuntimeError(f"{self.env_spec.name}: call reset() before step()")
        if not self.agents:
            raise RuntimeError(f"{self.env_spec.name}: the game is over; call reset()")
        if not isinstance(actions, Mapping):
            raise TypeError(
                f"actions must be a dict {{agent: action}}, got {type(actions).__name__}"
            )
        names = self.possible_agents
        unknown = sorted(set(actions) - set(names), key=str)
        if unknown:
            raise ValueError(f"unknown agents {unknown} in actions; agents are {names}")
        missing = [names[s] for s in self._acting if names[s] not in actions]
        if missing:
            raise ValueError(
                f"actions lacks {missing}: every acting agent (non-zero action_mask) must act; "
                f"acting now: {[names[s] for s in self._acting]}"
            )
        live = self.agents
        errors = self._play(game, [(seat, actions[names[seat]]) for seat in self._acting])
        rewards = dict.fromkeys(live, 0.0)
        if errors:  # penalized: the game ends, the core state is as before the step
            for seat, err in errors.items():
                rewards[names[seat]] = ILLEGAL_ACTION_REWARD
                self._illegal[names[seat]] = str(err)
            self._acting = ()
        else:
            self._acting = game.acting_seats()
            if game.is_terminal:
                returns = game.returns()
                rewards = {a: float(returns[self._seat_of[a]]) for a in live}
        over = not self._acting
        terminations = dict.fromkeys(live, over)
        truncations = dict.fromkeys(live, False)
        observations, infos = self._observed(live, self._illegal)
        if over:
            self.agents = []
        if self.render_mode == "human":  # as the AEC env: every position shows on its own
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _play(self, game: GameState, moves: list[tuple[int, Any]]) -> dict[int, IllegalActionError]:
        """Apply ``moves`` in order, all or none; return the illegal ones when penalized."""
        if len(moves) == 1:  # one mover: the core checks it and stays unchanged if illegal
            try:
                game.apply(moves[0][1])
            except IllegalActionError as err:
                if self.illegal_action == "raise":
                    raise
                return {moves[0][0]: err}
            return {}
        errors: dict[int, IllegalActionError] = {}
        for seat, action in moves:  # check every choice before applying any
            refused = _check_choice(game, seat, action)
            if refused is not None:
                if self.illegal_action == "raise":
                    raise refused
                errors[seat] = refused
        if errors:
            return errors
        for seat, action in moves:
            if game.current_player != seat:
                raise RuntimeError(
                    f"{game.game_name}: acting_seats() listed seat {seat} but seat "
                    f"{game.current_player} is to move"
                )
            game.apply(int(action))  # an id: _check_choice passed it
        return {}

    def _observed(
        self, agents: list[str], illegal: dict[str, str]
    ) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        """Return the observations and infos of ``agents``; each mask is in both, one array."""
        game = self._aec._game()
        acting = self._acting
        box = self.obs_type == "box"
        observations, infos = {}, {}
        for agent in agents:
            seat = self._seat_of[agent]
            info = self._aec._new_info(game)
            if seat in acting:
                info["action_mask"] = game.legal_mask_of(seat)
            info["illegal_action"] = agent in illegal
            planes = game.observation(seat)
            observations[agent] = (
                planes if box else {"observation": planes, "action_mask": info["action_mask"]}
            )
            infos[agent] = info
        return observations, infos

    def render(self) -> str | np.ndarray | None:
        """Return the ansi text, RGB image or SVG of the position (per ``render_mode``);
        ``"human"`` prints the text and returns None."""
        return self._aec.render()

    def state(self) -> np.ndarray:
        """Not offered: the games have hidden information or egocentric views only."""
        return self._aec.state()

    def close(self) -> None:
        """Nothing to release."""

    def __str__(self) -> str:
        return self.env_spec.name


def _check_choice(game: GameState, seat: int, action: Any) -> IllegalActionError | None:
    """Return the error for ``seat``'s ``action`` of a joint step, or None if it is legal."""
    n = game.spec.num_actions
    action_id = as_action_id(action)
    if action_id is None:
        return IllegalActionError(action, seat, f"an action is an integer id from 0 to {n - 1}")
    if not 0 <= action_id < n:
        return IllegalActionError(action, seat, f"action ids run from 0 to {n - 1}")
    mask = game.legal_mask_of(seat)
    if not mask[action_id]:
        legal = np.flatnonzero(mask).tolist()
        return IllegalActionError(
            action, seat, f"not among this seat's legal actions this round {legal}"
        )
    return None
