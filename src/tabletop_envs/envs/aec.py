"""One PettingZoo AEC adapter for every game core of the library.

The adapter knows nothing about any game: it maps seats to agent names, builds the spaces from
the game's :class:`~tabletop_envs.core.GameSpec`, and keeps PettingZoo's bookkeeping.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from tabletop_envs.core.errors import IllegalActionError, InvalidParameterError
from tabletop_envs.core.game import TERMINAL, GameState
from tabletop_envs.core.params import check_choice
from tabletop_envs.envs.registry import EnvSpec

RENDER_MODES = ("ansi", "rgb_array")
ILLEGAL_ACTION_POLICIES = ("raise", "penalize")
#: Reward of the mover whose illegal action ends the game under ``illegal_action="penalize"``.
ILLEGAL_ACTION_REWARD = -1.0


class TabletopEnv(AECEnv):
    """A PettingZoo AEC env over any :class:`GameState` subclass.

    Agents are ``player_0 … player_{n-1}`` (seat order). Each observation is
    ``{"observation": Box, "action_mask": Box(0, 1, (num_actions,), int8)}``; the mask is all
    zeros for every agent that is not to move, and for everybody once the game is over.
    """

    def __init__(
        self,
        env_spec: EnvSpec,
        *,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        **params: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None:
            check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_POLICIES)
        self.env_spec = env_spec
        _offer_helpers(env_spec)
        self.game_class: type[GameState] = env_spec.load_game()
        try:
            self.params = self.game_class.params_class(**params)
        except TypeError as err:  # unknown keyword
            names = [f.name for f in dataclasses.fields(self.game_class.params_class)]
            valid = ", ".join(["render_mode", "illegal_action", *names])
            raise InvalidParameterError(
                f"{env_spec.name}: {err}; valid keywords: {valid}"
            ) from None
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.metadata = {
            "name": env_spec.name,
            "render_modes": list(RENDER_MODES),
            "is_parallelizable": False,
            "render_fps": 1,
        }
        self._probe = self.game_class(self.params, 0)
        spec = self._probe.spec
        self.game_spec = spec
        self.possible_agents = [f"player_{i}" for i in range(spec.num_players)]
        self._agent_names = tuple(self.possible_agents)  # seat -> name, never mutated
        self._seat_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        obs_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(
                    low=spec.observation_low,
                    high=spec.observation_high,
                    shape=spec.observation_shape,
                    dtype=spec.observation_dtype,
                ),
                "action_mask": gymnasium.spaces.Box(
                    low=0, high=1, shape=(spec.num_actions,), dtype=np.int8
                ),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(spec.num_actions) for a in self.possible_agents
        }
        self._zero_mask = np.zeros(spec.num_actions, dtype=np.int8)
        self._seeds: np.random.Generator | None = None
        self.game: GameState | None = None
        self._done = True

    # ---- spaces -------------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """Return the observation space of ``agent`` (the same for every agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """Return the action space of ``agent`` (the same for every agent)."""
        return self.action_spaces[agent]

    # ---- PettingZoo API -----------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. A seed makes this and every later unseeded reset reproducible."""
        if seed is not None or self._seeds is None:
            self._seeds = np.random.default_rng(seed)
        game_seed = int(self._seeds.integers(2**63))
        self.game = self.game_class(self.params, game_seed)
        self._start()

    def _start(self) -> None:
        """Reset the PettingZoo bookkeeping around ``self.game``."""
        game = self._game()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._done = game.is_terminal
        self.agent_selection = self.possible_agents[max(game.current_player, 0)]
        if self._done:
            self._finish(game.returns(), game.result_info())

    def load_state(self, game: GameState) -> None:
        """Continue from a copy of ``game`` (a core state of this env's game and parameters)."""
        if type(game) is not self.game_class or game.params != self.params:
            raise ValueError(
                f"{self.env_spec.name} with {self.params} cannot load a "
                f"{type(game).__name__} with {getattr(game, 'params', None)}"
            )
        self.game = game.clone()
        self._start()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Return ``agent``'s observation and action mask (zeros unless it is to move)."""
        game = self.game
        if game is None:
            game = self._game()  # raises the "call reset()" error
        seat = self._seat_of[agent]
        if not self._done and seat == game.current_player:
            mask = game.legal_mask()  # fresh by the GameState contract
        else:
            mask = self._zero_mask.copy()
        return {"observation": game.observation(seat), "action_mask": mask}

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """Return (observation, cumulative reward, terminated, truncated, info) of the mover."""
        # Same as AECEnv.last, with observe() inlined: the hot path of every AEC loop.
        game = self.game
        if game is None:
            game = self._game()  # raises the "call reset()" error
        agent = self.agent_selection
        if observe:
            seat = self._seat_of[agent]
            if not self._done and seat == game.current_player:
                mask = game.legal_mask()
            else:
                mask = self._zero_mask.copy()
            obs = {"observation": game.observation(seat), "action_mask": mask}
        else:
            obs = None
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection`` (``None`` for an agent whose game is over)."""
        game = self.game
        if game is None:
            game = self._game()  # raises the "call reset()" error
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            game.apply(action)
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise
            self._penalize(agent, err)
            return
        self._cumulative_rewards[agent] = 0.0
        seat = game.current_player
        if seat == TERMINAL:
            self._finish(game.returns(), game.result_info())
            self._select_after(agent)
            self._accumulate_rewards()
        else:
            self.agent_selection = self._agent_names[seat]

    def _finish(self, returns: np.ndarray, result: dict[str, Any]) -> None:
        self._done = True
        for agent, seat in self._seat_of.items():
            self.rewards[agent] = float(returns[seat])
            self.terminations[agent] = True
            self.infos[agent] = dict(result)

    def _penalize(self, agent: str, err: IllegalActionError) -> None:
        self._cumulative_rewards[agent] = 0.0
        self._done = True
        for other in self.agents:
            self.rewards[other] = ILLEGAL_ACTION_REWARD if other == agent else 0.0
            self.terminations[other] = True
        self.infos[agent] = {"illegal_action": str(err)}
        self._select_after(agent)
        self._accumulate_rewards()

    def _select_after(self, agent: str) -> None:
        agents = self.agents
        self.agent_selection = agents[(agents.index(agent) + 1) % len(agents)]

    def _game(self) -> GameState:
        if self.game is None:
            raise RuntimeError(f"{self.env_spec.name}: call reset() before using the env")
        return self.game

    def render(self) -> str | np.ndarray | None:
        """Return the ansi text or the RGB image of the position (per ``render_mode``)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without render_mode; create the env with "
                f"render_mode in {RENDER_MODES}"
            )
            return None
        game = self._game()
        if self.render_mode == "ansi":
            return game.render_text()
        return self.env_spec.load_image()(game)

    def state(self) -> np.ndarray:
        """Not offered: the games have hidden information or egocentric views only."""
        raise NotImplementedError(
            "state() is not offered; use env.game (the core state) or observe(agent)"
        )

    def close(self) -> None:
        """Nothing to release."""

    def __str__(self) -> str:
        return self.env_spec.name

    def __setstate__(self, state: dict[str, Any]) -> None:
        # pickle / deepcopy: an env unpickled in a fresh process offers its helpers too.
        _offer_helpers(state["env_spec"])
        self.__dict__.update(state)


class _GameHelper:
    """Class attribute forwarding one registry-declared game helper to the env's game.

    The helpers (e.g. ``action_to_coord``) are forwarded by descriptors rather than by a
    ``__getattr__`` method: a class with ``__getattr__`` loses CPython's fast attribute
    lookups on every ``self.x`` of the hot ``last()`` / ``step()`` path (~10% of a step).
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, env: Any, owner: type | None = None) -> Any:
        if env is None:
            return self
        attrs = env.__dict__
        spec = attrs.get("env_spec")
        if spec is None or self.name not in spec.helpers:  # another game's helper
            raise AttributeError(f"{type(env).__name__!r} object has no attribute {self.name!r}")
        return getattr(attrs.get("game") or attrs["_probe"], self.name)


def _offer_helpers(spec: EnvSpec) -> None:
    """Install the forwarding descriptors of ``spec.helpers`` on TabletopEnv (once per name)."""
    for name in spec.helpers:
        if not hasattr(TabletopEnv, name):  # never shadow a real env attribute
            setattr(TabletopEnv, name, _GameHelper(name))
