"""A Gymnasium single-agent view of any registered env: one learning seat, agents at the others.

:class:`SingleAgentEnv` plays one *learning seat*; every other seat is played inside the env
by an opponent :class:`~tabletop_envs.agents.Agent` (a baseline, a frozen policy wrapped in an
agent, or an :class:`OpponentPool` sampled per episode). It returns the learner's own
observation (as float32) and the learner's own reward, and implements ``action_masks()``
itself, so ``MaskablePPO`` works under ``DummyVecEnv`` and ``SubprocVecEnv`` without
``ActionMasker``. ``gymnasium.make("tabletop_envs/Iris-v0", opponent="greedy")`` builds one
through :func:`make_single_agent_env`.

It sits beside the envs, at the agents' level (its opponents are agents): importing it, or
``gymnasium.make``, never loads the training layer, torch or Stable-Baselines3.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from tabletop_envs.agents.base import Agent, RandomAgent
from tabletop_envs.agents.expert import check_agents
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.core.config import quote
from tabletop_envs.core.errors import InvalidParameterError, ResetNeededError
from tabletop_envs.core.game import GameState
from tabletop_envs.core.params import check_bool, check_choice
from tabletop_envs.envs.aec import RENDER_MODES
from tabletop_envs.envs.registry import env_spec, make

#: How the learner's seat is chosen at each reset.
SEAT_MODES = ("alternate", "random")
#: ``"own"``: the learner's return; ``"margin"``: its return minus the best opponent's.
REWARD_MODES = ("own", "margin")
#: Attempts to deal a game in which the learner gets to move before the end.
_MAX_DEALS = 100
_OPPONENT_HELP = (
    "opponent must be None (random), an Agent, an agent spec string such as 'greedy', an "
    "OpponentPool, or a non-empty list of agents and specs"
)


def _check_scale(value: object) -> float:
    """Return ``reward_scale`` as a float; InvalidParameterError unless a finite number."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise InvalidParameterError(f"reward_scale must be a finite number, got {quote(value)}")
    if not np.isfinite(value):
        raise InvalidParameterError(f"reward_scale must be a finite number, got {value!r}")
    return float(value)


def _check_env_kwargs(env_kwargs: object) -> dict[str, Any]:
    """Return the game parameters as a dict; the adapter's own keywords are refused there."""
    if env_kwargs is None:
        return {}
    if not isinstance(env_kwargs, dict) or not all(isinstance(k, str) for k in env_kwargs):
        raise InvalidParameterError(
            f"env_kwargs must be a dict of game parameters, got {quote(env_kwargs)}"
        )
    if "obs_type" in env_kwargs:
        raise InvalidParameterError(
            "env_kwargs holds game parameters; obs_type is not one: the single-agent view's "
            "observation is always a Box (flatten=True or False chooses its shape) and its mask "
            "is info['action_mask'] and action_masks()"
        )
    mixed = sorted(set(env_kwargs) & {"render_mode", "illegal_action"})
    if mixed:
        raise InvalidParameterError(
            f"env_kwargs holds game parameters; {', '.join(mixed)} is the adapter's own keyword: "
            f"pass it as {mixed[0]}=... instead"
        )
    return dict(env_kwargs)


class OpponentPool:
    """Opponents drawn per episode (uniformly, or with ``weights``) from a growing list."""

    def __init__(
        self,
        agents: Sequence[Agent],
        *,
        weights: Sequence[float] | None = None,
        max_size: int | None = None,
    ) -> None:
        if not agents:
            raise ValueError("an OpponentPool needs at least one agent")
        self.agents: list[Agent] = list(agents)
        self.weights = None if weights is None else [float(w) for w in weights]
        if self.weights is not None and len(self.weights) != len(self.agents):
            raise ValueError(f"{len(self.weights)} weights for {len(self.agents)} agents")
        self.max_size = max_size

    def add(self, agent: Agent, weight: float = 1.0) -> None:
        """Add an agent; beyond ``max_size`` the oldest agent after the first one is dropped."""
        self.agents.append(agent)
        if self.weights is not None:
            self.weights.append(float(weight))
        if self.max_size is not None and len(self.agents) > self.max_size:
            del self.agents[1]  # keep the first (e.g. a fixed baseline) in the pool
            if self.weights is not None:
                del self.weights[1]

    def sample(self, rng: np.random.Generator) -> Agent:
        """Return one agent drawn with ``rng``."""
        if self.weights is None:
            return self.agents[int(rng.integers(len(self.agents)))]
        p = np.asarray(self.weights, dtype=float)
        return self.agents[int(rng.choice(len(self.agents), p=p / p.sum()))]

    def __len__(self) -> int:
        return len(self.agents)


OpponentSpec = Agent | str | OpponentPool | Sequence[Agent | str] | None


class SingleAgentEnv(gymnasium.Env[Any, Any]):
    """One learning seat of a registered env; the other seats are played by opponents inside.

    - ``env_name`` / ``env_kwargs``: as :func:`tabletop_envs.make` (game parameters).
    - ``opponent``: an :class:`Agent` or an agent spec string (``"greedy"``,
      ``"mcts:iterations=200"``: see :func:`~tabletop_envs.agents.make_agent`), a list of them
      or an :class:`OpponentPool` (one drawn per opponent seat per episode), or ``None`` for
      :class:`RandomAgent`.
    - ``learner_seat``: a seat number, ``"alternate"`` (0, 1, …, n-1, 0, … per episode) or
      ``"random"`` (drawn per episode).
    - ``illegal_action``: ``"penalize"`` (the default: an action of the action space that the
      rules refuse ends the episode with the env's illegal-action reward -1 for the learner, as
      Gymnasium's ``check_env`` and unmasked algorithms expect; a masked learner never plays
      one) or ``"raise"`` (``IllegalActionError``, the state unchanged).
    - ``reward``: ``"own"`` (default) pays the learner's own return; ``"margin"`` pays its
      return minus the best opponent's (with a game's ``reward="score"`` parameter: the score
      margin, a richer training signal that still ranks games as wins do), times
      ``reward_scale``.

    The observation is the learner's own egocentric tensor cast to float32 and, by default,
    flattened to 1-D for ``MlpPolicy`` (``flatten=False`` keeps the ``planes_shape`` tensor for a
    custom CNN features extractor; SB3's default ``CnnPolicy`` wants uint8 images of at least
    36x36, which these boards are not). The reward is the learner's own
    return, paid at the end of the game (0 on every other step). Episodes never truncate:
    every game has a finite ``max_game_length``. ``info`` has the same keys, shapes and dtypes
    at every step: the learner's ``action_mask`` (int8, all zeros once the game is over),
    ``illegal_action``, the game's result arrays (zeros until the end; see the AEC env),
    ``learner_seat`` and ``learner_return`` (0.0 until the end). :meth:`result_details` returns
    the readable result.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(
        self,
        env_name: str,
        *,
        opponent: OpponentSpec = None,
        learner_seat: int | str = "alternate",
        illegal_action: str = "penalize",
        render_mode: str | None = None,
        flatten: bool = True,
        reward: str = "own",
        reward_scale: float = 1.0,
        env_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        check_choice("reward", reward, REWARD_MODES)
        self.reward_mode = reward
        self.reward_scale = _check_scale(reward_scale)
        self.flatten = check_bool("flatten", flatten)
        self.env_name = env_spec(env_name).name  # ValueError listing the registered envs
        self.env_kwargs = _check_env_kwargs(env_kwargs)
        self.aec = make(
            env_name, illegal_action=illegal_action, render_mode=render_mode, **self.env_kwargs
        )
        self.render_mode = render_mode
        spec = self.aec.game_spec
        self.num_players = spec.num_players
        if isinstance(learner_seat, str):
            check_choice("learner_seat", learner_seat, SEAT_MODES)
        elif (
            isinstance(learner_seat, (bool, np.bool_))
            or not isinstance(learner_seat, (int, np.integer))
            or not (0 <= learner_seat < self.num_players)
        ):
            raise InvalidParameterError(
                f"learner_seat must be one of {SEAT_MODES} or a seat 0..{self.num_players - 1}, "
                f"got {learner_seat!r}"
            )
        self.learner_seat_mode = learner_seat
        self.set_opponent(opponent)
        #: shape of the game's observation tensor (the planes, before any flattening)
        self.planes_shape = tuple(spec.observation_shape)
        self.observation_space: gymnasium.spaces.Box = gymnasium.spaces.Box(
            low=np.float32(spec.observation_low),
            high=np.float32(spec.observation_high),
            shape=(int(np.prod(self.planes_shape)),) if self.flatten else self.planes_shape,
            dtype=np.float32,
        )
        self.action_space = gymnasium.spaces.Discrete(spec.num_actions)
        self.learner_seat = 0
        self._episodes = 0
        self._seat_opponents: dict[int, Agent] = {}
        self._done = True

    # ---- opponents ----------------------------------------------------------------------
    def set_opponent(self, opponent: OpponentSpec) -> None:
        """Replace the opponent(s) from the next episode on (agent spec strings are built).

        InvalidParameterError unless ``opponent`` is None, an :class:`Agent`, an agent spec
        string, an :class:`OpponentPool` or a non-empty list or tuple of agents and specs.
        """
        if opponent is None:
            opponent = RandomAgent()
        if isinstance(opponent, (Agent, str)):
            opponent = OpponentPool([self._agent(opponent)])
        elif isinstance(opponent, (list, tuple)) and opponent:
            opponent = OpponentPool([self._agent(a) for a in opponent])
        elif not isinstance(opponent, OpponentPool):
            raise InvalidParameterError(_OPPONENT_HELP + f", got {quote(opponent)}")
        self._check_plays(opponent.agents)
        self.pool = opponent

    def _agent(self, agent: object) -> Agent:
        """Return ``agent``, building it first if it is an agent spec string."""
        if isinstance(agent, str):
            try:
                return make_agent(agent, self.env_name)
            except ValueError as err:  # an unknown agent or a bad option: name the keyword
                raise InvalidParameterError(f"opponent: {err}") from None
        if not isinstance(agent, Agent):
            raise InvalidParameterError(_OPPONENT_HELP + f"; the list holds {quote(agent)}")
        return agent

    def add_opponent(self, agent: Agent, weight: float = 1.0) -> None:
        """Add an agent to the opponent pool (e.g. a snapshot of the learner, for self-play)."""
        self._check_plays([agent])
        self.pool.add(agent, weight)

    def _check_plays(self, agents: Sequence[Agent]) -> None:
        """Refuse an opponent whose network was made for other parameters (an ``az:`` file of 2
        players in a 3-player env) now, not at its first move inside a training run."""
        probe = self.aec.game_class(self.aec.params, 0)
        try:
            check_agents(((f"opponent {getattr(a, 'spec', a.name)!r}", a) for a in agents), probe)
        except ValueError as err:
            raise InvalidParameterError(str(err)) from None

    def set_max_pool(self, max_size: int | None) -> None:
        """Cap the opponent pool (the first agent is always kept; the oldest others go)."""
        self.pool.max_size = max_size

    def pool_size(self) -> int:
        """Return the number of agents in the opponent pool."""
        return len(self.pool)

    # ---- gymnasium API ------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game, play the opponents up to the learner's first move, return its view."""
        super().reset(seed=seed)
        rng = self.np_random
        if seed is not None:
            self._episodes = 0
        for _ in range(_MAX_DEALS):
            self.aec.reset(seed=int(rng.integers(2**63)))
            self._choose_seats(rng)
            self._play_opponents()
            if not self._state().is_terminal:
                self._done = False
                return self._obs(), self._info(0.0)
        raise RuntimeError(
            f"{self.env_name}: the learner (seat mode {self.learner_seat_mode!r}) never got to "
            f"move in {_MAX_DEALS} games"
        )

    def _choose_seats(self, rng: np.random.Generator) -> None:
        mode = self.learner_seat_mode
        if mode == "alternate":
            self.learner_seat = self._episodes % self.num_players
        elif mode == "random":
            self.learner_seat = int(rng.integers(self.num_players))
        else:
            self.learner_seat = int(mode)
        self._episodes += 1
        self._seat_opponents = {}
        for seat in range(self.num_players):
            if seat != self.learner_seat:
                agent = self.pool.sample(rng)
                agent.reset(int(rng.integers(2**63)))
                self._seat_opponents[seat] = agent

    def _play_opponents(self) -> None:
        """Let the opponents move until the learner is to move or the game is over."""
        aec = self.aec
        game = self._state()
        while not game.is_terminal and game.current_player != self.learner_seat:
            seat = game.current_player
            aec.step(self._seat_opponents[seat].act(game, seat))

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the opponents; return the learner's view."""
        aec = self.aec
        if self._done:
            raise RuntimeError(f"{self.env_name}: call reset() before step() (episode over)")
        aec.step(action)  # checked by the core as in the AEC env: refused per illegal_action
        if aec.terminations[aec.possible_agents[self.learner_seat]]:  # illegal, penalized
            return self._end()
        self._play_opponents()
        if self._state().is_terminal:
            return self._end()
        return self._obs(), 0.0, False, False, self._info(0.0)

    def _end(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self._done = True
        aec = self.aec
        agent = aec.possible_agents[self.learner_seat]
        own = float(aec.rewards[agent])
        reward = own
        if self.reward_mode == "margin":
            reward -= max(float(aec.rewards[a]) for a in aec.possible_agents if a != agent)
        return self._obs(), reward * self.reward_scale, True, False, self._info(own)

    def _info(self, learner_return: float) -> dict[str, Any]:
        """Return the learner's infos: the AEC env's (its mask, the result arrays) and more.

        New arrays at every call: the AEC env keeps one info dict per agent for a whole game,
        and a user (or Gymnasium's ``check_env`` since 1.3) may keep what a call returned.
        """
        kept = self.aec.infos[self.aec.possible_agents[self.learner_seat]]
        info = {
            k: v.copy() if isinstance(v, np.ndarray) else copy.deepcopy(v) for k, v in kept.items()
        }
        info.update(learner_seat=self.learner_seat, learner_return=learner_return)
        return info

    def result_details(self) -> dict[str, Any]:
        """Return the readable end of the game (the AEC env's ``result_details()``)."""
        return self.aec.result_details()

    def _obs(self) -> np.ndarray:
        obs = self._state().observation(self.learner_seat).astype(np.float32)
        return obs.reshape(-1) if self.flatten else obs

    def action_masks(self) -> np.ndarray:
        """Return the learner's legal actions as booleans (all False once the game is over)."""
        game = self._state()
        if self._done or game.current_player != self.learner_seat:
            return np.zeros(game.spec.num_actions, dtype=bool)
        return game.legal_mask().astype(bool)

    def render(self) -> Any:
        """Render the position with the wrapped env's ``render_mode`` (text, array or SVG;
        ``"human"`` prints the text and returns None)."""
        return self.aec.render()

    def _state(self) -> GameState:
        """Return the game being played; ResetNeededError before the first reset."""
        game = self.aec.game
        if game is None:
            raise ResetNeededError(f"{self.env_name}: call reset() before using the env")
        return game

    @property
    def game(self) -> GameState | None:
        """Return the core state of the current game (read it; do not modify it)."""
        return self.aec.game


#: Keywords of :func:`make_single_agent_env` that go to the adapter, not to the game.
ADAPTER_KEYWORDS = (
    "opponent",
    "learner_seat",
    "illegal_action",
    "render_mode",
    "flatten",
    "reward",
    "reward_scale",
)


def make_single_agent_env(
    env_name: str, *, env_kwargs: dict[str, Any] | None = None, **kwargs: Any
) -> SingleAgentEnv:
    """Build a :class:`SingleAgentEnv` from flat keywords: the entry point of ``gymnasium.make``.

    The adapter's keywords (``ADAPTER_KEYWORDS``) configure the adapter; every other keyword is a
    game parameter (``board_size=7``, ``num_players=3``), merged into ``env_kwargs``. ``reward``
    is the adapter's (``"own"`` or ``"margin"``): a game's own ``reward`` parameter goes in
    ``env_kwargs``.
    """
    adapter = {k: kwargs.pop(k) for k in ADAPTER_KEYWORDS if k in kwargs}
    reward = adapter.get("reward", "own")
    if reward not in REWARD_MODES:
        raise InvalidParameterError(
            f"reward is the adapter's reward mode, one of {', '.join(REWARD_MODES)}; got "
            f"{reward!r} (a game's reward parameter goes in env_kwargs={{'reward': {reward!r}}})"
        )
    params = [f.name for f in dataclasses.fields(env_spec(env_name).load_game().params_class)]
    unknown = sorted(set(kwargs) - set(params))
    if unknown:
        raise InvalidParameterError(
            f"{env_name}: unknown keywords {unknown}; the adapter's are "
            f"{', '.join(ADAPTER_KEYWORDS)} and env_kwargs, the game's {', '.join(params)}"
        )
    game_kwargs = {**_check_env_kwargs(env_kwargs), **kwargs}
    return SingleAgentEnv(env_name, env_kwargs=game_kwargs, **adapter)
