"""One PettingZoo AEC adapter for every game core of the library.

The adapter knows nothing about any game: it maps seats to agent names, builds the spaces from
the game's :class:`~tabletop_envs.core.GameSpec`, and keeps PettingZoo's bookkeeping.
"""

from __future__ import annotations

import copy
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from tabletop_envs.core.errors import (
    IllegalActionError,
    InvalidParameterError,
    InvalidStateError,
    ResetNeededError,
)
from tabletop_envs.core.game import TERMINAL, GameSpec, GameState
from tabletop_envs.core.params import check_choice, make_params
from tabletop_envs.core.registration import EnvSpec

#: ``"human"`` prints the ``"ansi"`` text to stdout after every reset and move, and from
#: ``render()``, which returns None, as PettingZoo and Gymnasium envs do.
RENDER_MODES = ("human", "ansi", "rgb_array", "svg")
ILLEGAL_ACTION_POLICIES = ("raise", "penalize")
#: ``"dict"``: ``{"observation": Box, "action_mask": Box}``; ``"box"``: the plain Box (the mask
#: is in the infos only), for tools that refuse a Dict space (SuperSuit's observation wrappers).
OBS_TYPES = ("dict", "box")
#: Reward of the mover whose illegal action ends the game under ``illegal_action="penalize"``.
ILLEGAL_ACTION_REWARD = -1.0


#: PettingZoo fields that ``reset()`` sets; before it each holds a :class:`_BeforeReset`.
BEFORE_RESET_FIELDS = (
    "agents",
    "agent_selection",
    "rewards",
    "terminations",
    "truncations",
    "infos",
)


class _BeforeReset:
    """The value of a PettingZoo field until the first ``reset()``: every use says to call it.

    A plain instance attribute that ``reset()`` replaces, rather than a class-level property
    raising the error: a class attribute named ``agent_selection`` would cost every
    ``self.agent_selection`` of ``last()`` / ``step()`` CPython's fast attribute path.
    """

    __slots__ = ("_message",)

    def __init__(self, message: str) -> None:
        self._message = message

    def _refuse(self, *args: Any) -> Any:
        raise ResetNeededError(self._message)

    __iter__ = __len__ = __bool__ = __getitem__ = __contains__ = __hash__ = _refuse
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __index__ = _refuse

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # copy / pickle probes, unset slots
            raise AttributeError(name)
        raise ResetNeededError(self._message)

    def __repr__(self) -> str:
        return f"<{self._message}>"


def _observation_space(spec: GameSpec, obs_type: str) -> gymnasium.spaces.Space[Any]:
    """Return every agent's observation space: the game's planes and the action mask in a Dict,
    or (``obs_type="box"``) the planes' Box alone."""
    planes = gymnasium.spaces.Box(
        low=spec.observation_low,
        high=spec.observation_high,
        shape=spec.observation_shape,
        dtype=spec.observation_dtype,
    )
    if obs_type != "dict":
        return planes
    mask_space = gymnasium.spaces.Box(low=0, high=1, shape=(spec.num_actions,), dtype=np.int8)
    return gymnasium.spaces.Dict({"observation": planes, "action_mask": mask_space})


class TabletopEnv(AECEnv):
    """A PettingZoo AEC env over any :class:`GameState` subclass.

    Agents are ``player_0 … player_{n-1}`` (seat order). Each observation is
    ``{"observation": Box, "action_mask": Box(0, 1, (num_actions,), int8)}`` (``obs_type="box"``:
    the Box alone); the mask is all zeros for every agent that is not to move, and for everybody
    once the game is over.

    Every agent's infos have the same keys, shapes and dtypes at every step: ``action_mask``
    (the very array of its observation), ``illegal_action`` (True for an agent whose illegal
    action ended the game) and the game's declared result arrays (``EnvSpec.results``, zeros
    until the end). :meth:`result_details` returns the readable result.
    """

    def __init__(
        self,
        env_spec: EnvSpec,
        *,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        obs_type: str = "dict",
        **params: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None:
            check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_POLICIES)
        check_choice("obs_type", obs_type, OBS_TYPES)
        self.env_spec = env_spec
        _offer_helpers(env_spec)
        self.game_class: type[GameState] = env_spec.load_game()
        self.params = make_params(
            self.game_class.params_class,
            env_spec.name,
            params,
            also=" (and the env's keywords render_mode, illegal_action, obs_type)",
        )
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.obs_type = obs_type
        self._results = env_spec.load_results()
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
        obs_space = _observation_space(spec, obs_type)
        self._box = obs_type == "box"
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces: dict[str, gymnasium.spaces.Space[Any]] = {
            a: gymnasium.spaces.Discrete(spec.num_actions) for a in self.possible_agents
        }
        self._zero_mask = np.zeros(spec.num_actions, dtype=np.int8)
        self._seeds: np.random.Generator | None = None
        self.game: GameState | None = None
        self._illegal: dict[str, str] = {}  # agent -> why its action was refused (penalized)
        for field in BEFORE_RESET_FIELDS:  # placeholders until reset() sets the real values
            placeholder = _BeforeReset(f"{env_spec.name}: call reset() before using env.{field}")
            setattr(self, field, placeholder)

    # ---- spaces -------------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """Return the observation space of ``agent`` (the same for every agent)."""
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """Return the action space of ``agent`` (the same for every agent)."""
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def _unknown_agent(self, agent: object) -> InvalidParameterError:
        valid = ", ".join(self.possible_agents)
        return InvalidParameterError(f"{self}: unknown agent {agent!r}; the agents are {valid}")

    # ---- PettingZoo API -----------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. A seed makes this and every later unseeded reset reproducible.

        ``seed`` is None or a non-negative integer (InvalidParameterError otherwise).
        """
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
                raise InvalidParameterError(
                    f"{self}: seed must be None or a non-negative integer, got {seed!r}"
                )
            if seed < 0:
                raise InvalidParameterError(
                    f"{self}: seed must be None or a non-negative integer, got {seed}"
                )
        if seed is not None or self._seeds is None:
            self._seeds = np.random.default_rng(seed)
        game_seed = int(self._seeds.integers(2**63))
        self.game = self.game_class(self.params, game_seed)
        self._start()
        if self.render_mode == "human":  # "human" shows every position on its own
            self.render()

    def _start(self) -> None:
        """Reset the PettingZoo bookkeeping around ``self.game``."""
        game = self._game()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._illegal = {}
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[max(game.current_player, 0)]
        self.infos = {a: self._new_info(game) for a in self.agents}
        if game.is_terminal:
            self._finish(game.returns())
        else:
            self.infos[self.agent_selection]["action_mask"] = game.legal_mask()

    def _new_info(self, game: GameState) -> dict[str, Any]:
        """Return an agent's infos at ``game`` with an all-zeros mask: the keys of every step."""
        info: dict[str, Any] = {"action_mask": self._zero_mask.copy(), "illegal_action": False}
        if self._results is not None:
            info.update(self._results(game))
        return info

    def result_details(self) -> dict[str, Any]:
        """Return the readable end of the game, ``{}`` while it runs.

        That is ``game.result_info()`` (the game's own lists and names, e.g. Iris's
        ``group_scores`` lists and ``winner``) and, when an illegal action ended the game under
        ``illegal_action="penalize"``, ``"illegal_action": {agent: why it was refused}``.
        """
        details = self._game().result_info()
        if self._illegal:
            details["illegal_action"] = dict(self._illegal)
        return details

    def load_state(self, game: GameState) -> None:
        """Continue from a copy of ``game`` (a core state of this env's game and parameters).

        The state is checked as a saved game is: one the rules cannot reach raises
        :class:`~tabletop_envs.core.errors.InvalidStateError` and the env is unchanged.
        """
        if type(game) is not self.game_class or game.params != self.params:
            raise InvalidStateError(
                "state",
                f"{self.env_spec.name} with {self.params} cannot load a "
                f"{type(game).__name__} with {getattr(game, 'params', None)}",
            )
        try:
            text = game.to_json()
        except (TypeError, ValueError) as err:  # e.g. a field set to a non-JSON value
            raise InvalidStateError("state", f"cannot be saved ({err})") from None
        self.game = self.game_class.from_json(text)
        self._start()

    def observe(self, agent: str) -> Any:
        """Return ``agent``'s observation and action mask (zeros unless it is to move); with
        ``obs_type="box"`` the observation alone (the mask is ``infos[agent]["action_mask"]``)."""
        game = self.game
        if game is None:
            game = self._game()  # raises the "call reset()" error
        try:
            seat = self._seat_of[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None
        if self._box:
            return game.observation(seat)
        info = self.infos.get(agent)
        mask = self._zero_mask.copy() if info is None else info["action_mask"]  # None: left
        return {"observation": game.observation(seat), "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Return (observation, cumulative reward, terminated, truncated, info) of the mover."""
        # Same as AECEnv.last, with observe() inlined: the hot path of every AEC loop. The
        # mover's mask was computed by step() into its infos; the observation shares it.
        game = self.game
        if game is None:
            game = self._game()  # raises the "call reset()" error
        agent = self.agent_selection
        try:
            info = self.infos[agent]
            reward = self._cumulative_rewards[agent]
            terminated, truncated = self.terminations[agent], self.truncations[agent]
        except KeyError:  # every agent has stepped out of the finished game
            raise self._over_error("last()") from None
        obs: Any = None
        if observe:
            planes = game.observation(self._seat_of[agent])
            obs = (
                planes if self._box else {"observation": planes, "action_mask": info["action_mask"]}
            )
        return obs, reward, terminated, truncated, info

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection`` (``None`` for an agent whose game is over)."""
        game = self.game
        if game is None:
            game = self._game()  # raises the "call reset()" error
        agent = self.agent_selection
        try:
            done = self.terminations[agent] or self.truncations[agent]
        except KeyError:  # every agent has stepped out of the finished game
            raise self._over_error("step()") from None
        if done:
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
            self._finish(game.returns())
            self._select_after(agent)
            self._accumulate_rewards()
        else:
            mover = self._agent_names[seat]
            infos = self.infos
            if mover != agent:
                infos[agent]["action_mask"] = self._zero_mask.copy()
            infos[mover]["action_mask"] = game.legal_mask()  # fresh: never written in place
            self.agent_selection = mover
        if self.render_mode == "human":
            self.render()

    def _finish(self, returns: np.ndarray) -> None:
        game = self._game()
        info = self._new_info(game)  # the game's result read once; each agent its own copies
        for agent, seat in self._seat_of.items():
            self.rewards[agent] = float(returns[seat])
            self.terminations[agent] = True
            self.infos[agent] = {
                key: value.copy() if type(value) is np.ndarray else copy.deepcopy(value)
                for key, value in info.items()
            }

    def _penalize(self, agent: str, err: IllegalActionError) -> None:
        self._cumulative_rewards[agent] = 0.0
        for other in self.agents:
            self.rewards[other] = ILLEGAL_ACTION_REWARD if other == agent else 0.0
            self.terminations[other] = True
        self.infos[agent]["action_mask"] = self._zero_mask.copy()
        self.infos[agent]["illegal_action"] = True
        self._illegal = {agent: str(err)}
        self._select_after(agent)
        self._accumulate_rewards()

    def _select_after(self, agent: str) -> None:
        agents = self.agents
        self.agent_selection = agents[(agents.index(agent) + 1) % len(agents)]

    def _game(self) -> GameState:
        if self.game is None:
            raise ResetNeededError(f"{self.env_spec.name}: call reset() before using the env")
        return self.game

    def _over_error(self, call: str) -> RuntimeError:
        return RuntimeError(
            f"{self}: {call} after the game is over and every agent has stepped out of it; "
            "call reset() to start a new game"
        )

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """Return PettingZoo's iterator over the agent to act (call ``reset()`` first)."""
        self._game()  # raises the "call reset()" error
        return super().agent_iter(max_iter)

    def render(self) -> str | np.ndarray | None:
        """Return the position as ansi text, an RGB array or an SVG string (``render_mode``);
        ``"human"`` prints the ansi text to stdout and returns None. RGB arrays and SVG frames
        have one size for the env's parameters where the game declares it (its spec's
        ``frame``; the three games do): a larger picture is scaled down to fit.

        Where the game hides information, every mode shows what ``game.render_text()`` shows
        (the public position; Isis & Osiris: the seat to move's view). See each game's page.
        """
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without render_mode; create the env with "
                f"render_mode in {RENDER_MODES}"
            )
            return None
        game = self._game()
        if self.render_mode == "ansi":
            return game.render_text()
        if self.render_mode == "human":
            print(game.render_text(), flush=True)
            return None
        from tabletop_envs.render.draw import fit, to_rgb, to_svg

        picture = self.env_spec.load_image()(game)
        frame_size = self.env_spec.load_frame()
        if frame_size is not None:  # one frame shape for the whole env: videos, windows
            picture = fit(picture, *frame_size(game.params))
        return to_svg(picture) if self.render_mode == "svg" else to_rgb(picture)

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
