"""RLlib (new API stack) glue: self-play PPO on any registered env, and checkpoints as agents.

The pieces are RLlib's own: the AEC env goes through RLlib's ``PettingZooEnv`` (only the agent to
move gets an observation; every agent gets its final observation and return at the end; the
episode ends with ``terminateds["__all__"]``), and the policy is RLlib's
``ActionMaskingTorchRLModule``, which adds ``log(mask)`` to the logits so that an illegal action
is never sampled. This module owns only what those pieces need from this library:

- :class:`MaskedObservations`: a PettingZoo wrapper turning the env's
  ``{"observation": int8, "action_mask": int8}`` into the module's
  ``{"observations": float32 (flattened), "action_mask": float32}``;
- :func:`make_multi_agent_env` / :func:`register_rllib_env`: the ``MultiAgentEnv`` of an env name
  and its kwargs, registered with ``ray.tune.registry``;
- :func:`self_play_config`: a ready ``PPOConfig`` for self-play with one shared module
  (``"main"``) or one module per seat (``"seat_0"`` …), plus an optional league of frozen
  snapshots (:class:`LeagueSnapshots`, :class:`SelfPlayMapping`);
- :class:`RLlibAgent`: a checkpoint's module as an :class:`~tabletop_envs.agents.Agent`, made by
  ``make_agent("rllib:CHECKPOINT")``, so the arena compares it with every other agent.

Importing this module imports neither ray nor torch; the functions that need them import them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.registry import (
    observation_mismatch,
    observation_options,
    observation_usage,
)
from tabletop_envs.core.config import cut, quote, quote_path
from tabletop_envs.core.game import GameState
from tabletop_envs.core.params import check_choice
from tabletop_envs.envs.registry import env_spec, make
from tabletop_envs.evaluation.arena import run_arena
from tabletop_envs.evaluation.paths import absolute
from tabletop_envs.evaluation.ray import init_ray as init_ray  # moved there; importable here
from tabletop_envs.training.rllib_config import DEFAULT_HIDDEN, POLICY_MODES, SelfPlaySettings

#: Prefix of the names this module registers with ``ray.tune.registry``.
ENV_PREFIX = "tabletop_envs/"


# ---- Ray ---------------------------------------------------------------------------------
# ---- the env -------------------------------------------------------------------------------
class MaskedObservations(BaseWrapper):
    """Observations in the layout of RLlib's masking module: flat float32 plus a 0/1 mask."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        spec = env.unwrapped.game_spec
        self._space = gymnasium.spaces.Dict(
            {
                "observations": gymnasium.spaces.Box(
                    low=np.float32(spec.observation_low),
                    high=np.float32(spec.observation_high),
                    shape=(int(np.prod(spec.observation_shape)),),
                    dtype=np.float32,
                ),
                "action_mask": gymnasium.spaces.Box(
                    low=0.0, high=1.0, shape=(spec.num_actions,), dtype=np.float32
                ),
            }
        )

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """Return the Dict space ``{"observations", "action_mask"}`` (the same for every agent)."""
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Return ``agent``'s observation in the masking module's layout."""
        return _convert(self.env.observe(agent))

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Return the wrapped env's ``last()`` with the observation converted."""
        obs, reward, terminated, truncated, info = self.env.last(observe)
        return (None if obs is None else _convert(obs)), reward, terminated, truncated, info


def _convert(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {
        "observations": obs["observation"].astype(np.float32).reshape(-1),
        "action_mask": obs["action_mask"].astype(np.float32),
    }


def masked_observation(game: GameState, seat: int) -> dict[str, np.ndarray]:
    """Return ``seat``'s view of ``game`` as :class:`MaskedObservations` gives it to a module."""
    if not game.is_terminal and game.current_player == seat:
        mask = game.legal_mask().astype(np.float32)
    else:
        mask = np.zeros(game.spec.num_actions, dtype=np.float32)
    return {
        "observations": game.observation(seat).astype(np.float32).reshape(-1),
        "action_mask": mask,
    }


def make_multi_agent_env(env_name: str, **env_kwargs: Any) -> Any:
    """Return RLlib's ``PettingZooEnv`` over the masked AEC env ``env_name(**env_kwargs)``.

    The env raises on an illegal action (a masked module never plays one).
    """
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(MaskedObservations(make(env_name, illegal_action="raise", **env_kwargs)))


def register_rllib_env(env_name: str) -> str:
    """Register ``env_name`` with ``ray.tune.registry``; return the name to give RLlib.

    The registered creator takes the game's parameters as RLlib's ``env_config``.
    """
    from ray.tune.registry import register_env

    env_spec(env_name)  # ValueError listing the registered envs
    name = ENV_PREFIX + env_name
    register_env(name, _EnvCreator(env_name))
    return name


@dataclass(frozen=True)
class _EnvCreator:
    """Picklable ``env_config -> MultiAgentEnv`` for one env name."""

    env_name: str

    def __call__(self, env_config: dict[str, Any]) -> Any:
        return make_multi_agent_env(self.env_name, **dict(env_config))


# ---- self-play: modules, mapping, league -----------------------------------------------------
def learner_modules(num_players: int, policies: str) -> list[str]:
    """Return the ids of the trained modules: ``["main"]`` or ``["seat_0", …]``."""
    check_choice("policies", policies, POLICY_MODES)
    return ["main"] if policies == "shared" else [f"seat_{s}" for s in range(num_players)]


def snapshot_id(module_id: str, slot: int) -> str:
    """Return the id of league slot ``slot`` holding frozen copies of ``module_id``."""
    return f"{module_id}_snap{slot}"


def _seat_of(agent_id: str) -> int:
    return int(str(agent_id).rpartition("_")[2])


@dataclass(frozen=True)
class SelfPlayMapping:
    """RLlib's ``policy_mapping_fn``: which module plays which seat in an episode.

    Without a league every seat is played by its learner module (``"main"``, or ``"seat_<i>"``).
    With a league, one seat per episode (drawn from the episode id) is played by its learner;
    each other seat by its learner with probability ``self_play_prob``, else by one of the
    ``league_size`` frozen snapshots of that learner. Draws depend only on the episode id and
    the seat, so every call for one agent of an episode agrees.
    """

    num_players: int
    policies: str = "shared"
    league_size: int = 0
    self_play_prob: float = 0.5

    def __call__(self, agent_id: Any, episode: Any, **kwargs: Any) -> str:
        """Return the module id for ``agent_id`` (``"player_<i>"``) in ``episode``."""
        seat = _seat_of(agent_id)
        own = "main" if self.policies == "shared" else f"seat_{seat}"
        if self.league_size == 0:
            return own
        episode_id = str(getattr(episode, "id_", episode))
        if random.Random(episode_id).randrange(self.num_players) == seat:
            return own
        rng = random.Random(f"{episode_id}/{seat}")
        if rng.random() < self.self_play_prob:
            return own
        return snapshot_id(own, rng.randrange(self.league_size))


@dataclass(frozen=True)
class LeagueSnapshots:
    """Callbacks keeping the league: snapshots of the learners, refreshed as a ring.

    On algorithm init every slot gets the learners' initial weights; every ``every`` training
    iterations the learners' current weights replace the oldest slot. The frozen modules are
    not trained (``policies_to_train`` holds only the learners); their new weights go from the
    learner group to every env runner before the next iteration samples. The slot to refresh follows
    ``algorithm.iteration``, so a restored checkpoint continues the ring where it stopped.
    """

    learners: tuple[str, ...]
    league_size: int
    every: int

    def on_algorithm_init(self, *, algorithm: Any, **kwargs: Any) -> None:
        """Fill every league slot with the learners' initial weights."""
        if algorithm.iteration == 0:
            self._copy(algorithm, range(self.league_size))

    def on_train_result(self, *, algorithm: Any, **kwargs: Any) -> None:
        """Every ``every`` iterations copy the learners into the next slot of the ring."""
        if algorithm.iteration % self.every == 0:
            self._copy(algorithm, [(algorithm.iteration // self.every - 1) % self.league_size])

    def _copy(self, algorithm: Any, slots: Any) -> None:
        group = algorithm.learner_group
        weights = group.get_weights(module_ids=list(self.learners))
        new = {snapshot_id(m, k): weights[m] for m in self.learners for k in slots}
        group.set_weights(new)
        # the env runners hold inference-only modules: send them those weights, and wait
        state = group.get_state(
            components=[f"learner/rl_module/{module_id}" for module_id in new],
            inference_only=True,
        )["learner"]["rl_module"]
        algorithm.env_runner_group.foreach_env_runner(_SetModuleStates(state))


@dataclass(frozen=True)
class _SetModuleStates:
    """Picklable ``env_runner -> None`` loading module states into its MultiRLModule."""

    states: dict[str, Any]

    def __call__(self, env_runner: Any) -> None:
        env_runner.module.set_state(self.states)


def masked_module_spec(
    env_name: str, env_kwargs: dict[str, Any] | None = None, hidden: Sequence[int] = DEFAULT_HIDDEN
) -> Any:
    """Return the ``RLModuleSpec`` of RLlib's masked PPO module (an MLP) for one seat of the env."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    env = MaskedObservations(make(env_name, **dict(env_kwargs or {})))
    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=env.observation_space("player_0"),
        action_space=env.action_space("player_0"),
        model_config={"fcnet_hiddens": [int(h) for h in hidden], "fcnet_activation": "relu"},
    )


def self_play_config(
    env_name: str,
    env_kwargs: dict[str, Any] | None = None,
    *,
    settings: SelfPlaySettings | None = None,
    **options: Any,
) -> Any:
    """Return a ready ``PPOConfig`` for self-play on ``env_name(**env_kwargs)``.

    The settings are :class:`~tabletop_envs.training.rllib_config.SelfPlaySettings` (checked:
    InvalidParameterError naming a wrong one), given whole as ``settings`` and/or one by one as
    keywords (which win):

    - ``policies``: ``"shared"`` (one module ``"main"`` for every seat) or ``"per_seat"``.
    - ``league_size``: frozen snapshots per learner (0: pure self-play); refreshed every
      ``snapshot_every`` iterations; opponents are the learner itself with probability
      ``self_play_prob``, else a snapshot (see :class:`SelfPlayMapping`).
    - ``num_env_runners``: sampling processes (0 samples in the driver).
    - ``gamma`` defaults to 1.0: the only reward is the game's result at the end, which a
      discount would shrink for early moves;
    - the rest are PPO's settings; the module is RLlib's ``ActionMaskingTorchRLModule`` with an
      MLP of ``hidden`` layers.
    """
    values = (settings or SelfPlaySettings()).self_play().to_dict()
    chosen = SelfPlaySettings.from_dict({**values, **options})  # unknown names refused
    env_kwargs = dict(env_kwargs or {})
    num_players = make(env_name, **env_kwargs).game_spec.num_players  # validates the kwargs
    learners = learner_modules(num_players, chosen.policies)
    config = _ppo_config(env_name, env_kwargs, chosen, num_players, learners)
    if chosen.league_size:
        league = LeagueSnapshots(tuple(learners), chosen.league_size, chosen.snapshot_every)
        config.callbacks(
            on_algorithm_init=league.on_algorithm_init, on_train_result=league.on_train_result
        )
    return config


def _ppo_config(
    env_name: str,
    env_kwargs: dict[str, Any],
    settings: SelfPlaySettings,
    num_players: int,
    learners: list[str],
) -> Any:
    """Return the ``PPOConfig``: env, sampling, modules (learners and league) and training."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    s = settings
    modules = list(learners)
    modules += [snapshot_id(m, k) for m in learners for k in range(s.league_size)]
    module_spec = masked_module_spec(env_name, env_kwargs, s.hidden)
    mapping = SelfPlayMapping(num_players, s.policies, s.league_size, s.self_play_prob)
    return (
        PPOConfig()
        .environment(
            register_rllib_env(env_name),
            env_config=env_kwargs,
            # RLlib's checker steps unmasked random actions, which this env rejects
            disable_env_checking=True,
        )
        .env_runners(
            num_env_runners=s.num_env_runners,
            num_envs_per_env_runner=s.envs_per_env_runner,
            num_cpus_per_env_runner=1,
        )
        .multi_agent(policies=set(modules), policy_mapping_fn=mapping, policies_to_train=learners)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(modules, module_spec))
        )
        .training(
            lr=s.lr,
            train_batch_size_per_learner=s.train_batch_size,
            minibatch_size=s.minibatch_size,
            num_epochs=s.num_epochs,
            entropy_coeff=s.entropy_coeff,
            gamma=s.gamma,
        )
        .debugging(seed=s.seed)
    )


# ---- checkpoints as agents -------------------------------------------------------------------
def module_dir(checkpoint: str | Path) -> Path:
    """Return the folder of the trained modules inside an algorithm checkpoint, absolute (RLlib
    reads a relative path as a URI without a scheme); ``checkpoint`` may be relative."""
    path = absolute(checkpoint)
    inner = path / "learner_group" / "learner" / "rl_module"
    if inner.is_dir():
        return inner
    if path.is_dir() and path.name == "rl_module":
        return path
    raise ValueError(
        f"{quote_path(checkpoint)} is not an RLlib algorithm checkpoint (no "
        "learner_group/learner/rl_module inside); give the folder Algorithm.save_to_path() wrote"
    )


class RLlibAgent(Agent):
    """An agent playing a checkpoint's masked PPO module (``"main"``, or ``"seat_<i>"`` per seat).

    It sees what the module saw in training (:func:`masked_observation`) and plays the most
    likely legal action (``deterministic=False``: samples from the masked logits with its own
    seeded Generator), so an arena game is reproducible for a seed in any process.
    ``observation`` names values of the game's ``observation_params`` the modules were trained
    with where the game differs: each position is read through ``game.with_observation``.
    """

    name = "rllib"

    def __init__(
        self,
        modules: dict[str, Any],
        *,
        deterministic: bool = True,
        seed: int | None = None,
        name: str = "rllib",
        observation: Mapping[str, Any] | None = None,
    ) -> None:
        if not modules:
            raise ValueError("an RLlibAgent needs at least one module")
        self.modules = modules
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.name = name
        self.observation = dict(observation or {})

    @classmethod
    def load(
        cls,
        checkpoint: str | Path,
        *,
        deterministic: bool = True,
        seed: int | None = None,
        observation: Mapping[str, Any] | None = None,
    ) -> RLlibAgent:
        """Load the learner modules (not the league's snapshots) of an algorithm checkpoint."""
        from ray.rllib.core.rl_module.rl_module import RLModule

        root = module_dir(checkpoint)
        ids = [p.name for p in sorted(root.iterdir()) if p.is_dir() and "_snap" not in p.name]
        if "main" in ids:
            ids = ["main"]
        elif not ids or not all(i.startswith("seat_") for i in ids):
            raise ValueError(f"{checkpoint}: expected a module 'main' or 'seat_<i>', found {ids}")
        modules = {i: RLModule.from_checkpoint(root / i) for i in ids}
        for module in modules.values():
            module.eval()
        return cls(
            modules,
            deterministic=deterministic,
            seed=seed,
            name=str(checkpoint),
            observation=observation,
        )

    def reset(self, seed: int | None = None) -> None:
        """Reseed the sampling Generator when a seed is given."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def _module(self, seat: int) -> Any:
        module = self.modules.get("main") or self.modules.get(f"seat_{seat}")
        if module is None:
            raise ValueError(f"{self.name} has no module for seat {seat}: {sorted(self.modules)}")
        return module

    def check_game(self, game: GameState) -> None:
        """Raise ValueError if a module reads observations of another shape than ``game``'s."""
        for seat in range(game.num_players):
            self._observation(game, seat)

    def _observation(self, game: GameState, seat: int) -> tuple[Any, dict[str, np.ndarray]]:
        """Return ``seat``'s module and its observation (ValueError if it reads another shape)."""
        view = game.with_observation(**self.observation) if self.observation else game
        obs = masked_observation(view, seat)
        module = self._module(seat)
        spaces = getattr(getattr(module, "observation_space", None), "spaces", None) or {}
        space = spaces.get("observations")
        if space is not None and int(np.prod(space.shape)) != obs["observations"].size:
            raise ValueError(observation_mismatch(self.name, space.shape, view, "rllib"))
        return module, obs

    def act(self, game: GameState, seat: int) -> int:
        """Return the module's action for ``seat``: sampled (or argmax) among legal actions."""
        import torch
        from ray.rllib.core.columns import Columns

        module, obs = self._observation(game, seat)
        batch = {Columns.OBS: {k: torch.from_numpy(v)[None] for k, v in obs.items()}}
        with torch.no_grad():
            out = module.forward_inference(batch)
        logits = out[Columns.ACTION_DIST_INPUTS][0].double().numpy()
        legal = np.flatnonzero(obs["action_mask"])
        scores = logits[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(scores))])
        p = np.exp(scores - scores.max())
        return int(legal[self.rng.choice(len(legal), p=p / p.sum())])


def make_rllib_agent(args: str, env_name: str, seed: int | None) -> RLlibAgent:
    """Agent factory for ``rllib:CHECKPOINT[,sample][,NAME=VALUE...]`` (registered by the agent
    registry).

    The most likely legal action by default, as the SB3 agent and training's evaluations play;
    ``,sample`` samples from the masked logits (``,deterministic`` is accepted, the default);
    ``NAME=VALUE`` names an observation parameter of the env the checkpoint was trained with.
    """
    path, *options = args.split(",")
    usage = (
        f"use rllib:CHECKPOINT or rllib:CHECKPOINT,sample (an RLlib algorithm checkpoint "
        f"folder; 'sample' samples moves instead of playing the most likely one"
        f"{observation_usage(env_name)}), got {quote(f'rllib:{args}')}"
    )
    flags, observation = observation_options([o.strip() for o in options], env_name, usage)
    if not path or len(flags) > 1 or any(f not in ("sample", "deterministic") for f in flags):
        raise ValueError(usage)
    try:
        return RLlibAgent.load(
            path, deterministic=flags != ["sample"], seed=seed, observation=observation
        )
    except ImportError as err:
        raise ValueError(
            f"rllib agents need ray[rllib] (pip install 'tabletop_envs[rllib]'): {err}"
        ) from None
    except ValueError:
        raise  # ours: names the checkpoint and what is missing
    except Exception as err:  # RLlib's loader raises any type on a damaged checkpoint
        raise ValueError(
            f"cannot load the RLlib checkpoint {quote_path(path)} ({type(err).__name__}: "
            f"{cut(str(err), 200)})"
        ) from None


# ---- training loop ---------------------------------------------------------------------------
def train_iterations(
    algo: Any,
    iterations: int,
    *,
    checkpoint_dir: str | Path | None = None,
    checkpoint_every: int = 10,
    time_budget: float | None = None,
    log: Any = None,
    select: Callable[[Any], float] | None = None,
    select_every: int = 10,
    best_dir: str | Path | None = None,
) -> list[dict[str, float]]:
    """Train ``algo`` until its ``iterations``-th iteration or ``time_budget`` seconds; log each.

    Returns one record per iteration run here: ``iteration``, ``env_steps`` (sampled so far),
    ``steps_per_s`` (env steps sampled per wall-clock second in that iteration), ``seconds``
    (wall clock since the call). Saves ``checkpoint_dir`` every ``checkpoint_every`` iterations
    and at the end. ``algo.iteration`` counts on from a restored checkpoint.

    Checkpoint selection: with ``select`` (a score of the algorithm, higher is better, e.g.
    :func:`arena_yardstick`), the algorithm is scored every ``select_every`` iterations and at
    the end, the record gets ``score``, and the best-scored algorithm so far is saved to
    ``best_dir`` (required then). The scoring time counts in ``time_budget``.
    """
    import time

    if select is not None and best_dir is None:
        raise ValueError("checkpoint selection (select=...) needs best_dir to save the best in")
    if select_every < 1:
        raise ValueError(f"select_every must be >= 1, got {select_every}")
    records: list[dict[str, float]] = []
    start = time.perf_counter()
    best = -float("inf")
    while algo.iteration < iterations:
        t0 = time.perf_counter()
        result = algo.train()
        now = time.perf_counter()
        steps = float(result["env_runners"].get("num_env_steps_sampled_lifetime", 0.0))
        record = {
            "iteration": float(algo.iteration),
            "env_steps": steps,
            "steps_per_s": _iteration_steps(result) / (now - t0),
            "sample_s": _sampling_seconds(result),
            "seconds": now - start,
        }
        done = algo.iteration >= iterations or (
            time_budget is not None and now - start >= time_budget
        )
        if select is not None and (done or algo.iteration % select_every == 0):
            record["score"] = select(algo)
            if record["score"] > best:
                best = record["score"]
                algo.save_to_path(str(absolute(best_dir)))
        records.append(record)
        if log is not None:
            log(record, result)
        if checkpoint_dir is not None and (done or algo.iteration % checkpoint_every == 0):
            algo.save_to_path(str(absolute(checkpoint_dir)))
        if done:
            break
    return records


def arena_yardstick(
    env_name: str,
    env_kwargs: dict[str, Any] | None,
    opponent: str,
    games: int,
    seed: int,
    workdir: str | Path,
    *,
    deterministic: bool = True,
) -> Callable[[Any], float]:
    """Return a ``select`` scorer for :func:`train_iterations`: the learners' arena score.

    The score is the win rate (draws count half) of the algorithm's learner modules against
    ``opponent`` over ``games`` seat-alternated arena games, on the same deals (``seed``) every
    time, so checkpoints are compared on equal terms. Use a seed other than the final
    evaluation's, so the final figure is measured on games the selection never saw.
    The modules are saved to ``workdir`` and loaded as an :class:`RLlibAgent`, exactly what
    ``rllib:PATH`` would play.
    """

    if games < 1:
        raise ValueError(f"a yardstick needs games >= 1, got {games}")

    def score(algo: Any) -> float:
        path = absolute(workdir)
        algo.save_to_path(str(path))
        agent = RLlibAgent.load(path, deterministic=deterministic, seed=seed)
        stats = run_arena(env_name, [agent, opponent], games, seed=seed, env_kwargs=env_kwargs)
        first = stats.stats[0]
        return (first.wins + 0.5 * first.draws) / games

    return score


def _iteration_steps(result: dict[str, Any]) -> float:
    return float(result["env_runners"].get("num_env_steps_sampled", 0.0))


def _sampling_seconds(result: dict[str, Any]) -> float:
    """Return the seconds the iteration spent sampling (RLlib's env-runner sampling timer)."""
    return float(result.get("timers", {}).get("env_runner_sampling_timer", float("nan")))
