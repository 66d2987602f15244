"""Stable-Baselines3 models as agents: :class:`PolicyAgent` and the ``sb3:PATH`` agent spec.

The single-agent view learners train on (:class:`SingleAgentEnv`, :class:`OpponentPool`) lives
in :mod:`tabletop_envs.agents.single_agent`; its names stay importable from here.

This module imports neither torch nor stable-baselines3 at import time: :class:`PolicyAgent`
plays with the ``predict`` method of whatever model or policy it is given, and rates actions
through the policy's distribution (loading a saved model, :meth:`PolicyAgent.action_scores` and
:func:`pin_torch_threads` import them when called).
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Mapping
from typing import Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.registry import (
    observation_mismatch,
    observation_options,
    observation_usage,
    parse_kwargs,
)
from tabletop_envs.agents.single_agent import (
    ADAPTER_KEYWORDS,
    REWARD_MODES,
    SEAT_MODES,
    OpponentPool,
    SingleAgentEnv,
    make_single_agent_env,
)
from tabletop_envs.core.config import cut, quote, quote_path
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.core.params import check_bool, check_int_range

#: Torch intra-op threads a loaded model plays with: one is fastest for these small networks
#: (0.45 ms a move against 26-34 ms with torch's default on a busy 2-core machine).
DEFAULT_THREADS = 1
#: Most torch threads a loaded model may ask for.
MAX_THREADS = 4096


def pin_torch_threads(threads: int) -> None:
    """Set torch's intra-op thread count for the process (``0`` leaves torch's default)."""
    threads = check_int_range("threads", threads, 0, MAX_THREADS)
    if threads:
        import torch

        torch.set_num_threads(threads)


class PolicyAgent(Agent):
    """An agent acting with a trained SB3 model or policy (frozen: it never learns here).

    ``model`` is anything with ``predict(obs, action_masks=..., deterministic=...)``: a
    ``MaskablePPO`` model or its ``.policy``. It sees exactly what the learner sees: the
    seat's observation (float32, reshaped to the model's observation space) and legal mask.
    ``deterministic=True`` (the default, as training's evaluations) plays the policy's most
    likely action; ``False`` samples from the policy's distribution (torch's global RNG).
    ``observation`` names values of the game's ``observation_params`` the model was trained
    with where the game it plays differs (e.g. ``{"action_values": True}`` for an Irk model
    that read that section): it reads each position through ``game.with_observation``.
    """

    name = "policy"

    def __init__(
        self,
        model: Any,
        *,
        deterministic: bool = True,
        name: str = "policy",
        observation: Mapping[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.deterministic = check_bool("deterministic", deterministic)
        self.name = name
        self.observation = dict(observation or {})

    @classmethod
    def load(
        cls,
        path: str,
        *,
        deterministic: bool = True,
        threads: int = DEFAULT_THREADS,
        observation: Mapping[str, Any] | None = None,
    ) -> PolicyAgent:
        """Load a saved ``MaskablePPO`` zip (CPU) as a frozen agent, torch pinned to ``threads``.

        ``threads`` sets torch's intra-op threads for the whole process, as training's
        ``--threads`` does (``0`` leaves torch's setting alone).
        """
        pin_torch_threads(threads)
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(path, device="cpu")
        return cls(model, deterministic=deterministic, name=path, observation=observation)

    @classmethod
    def snapshot(
        cls, model: Any, *, deterministic: bool = False, name: str = "snapshot"
    ) -> PolicyAgent:
        """Return a frozen copy of ``model``'s current policy (for self-play pools).

        Unlike :meth:`load`, a snapshot samples its moves by default: self-play opponents vary.
        The copy is a pickle round trip (``copy.deepcopy`` refuses a policy whose last action
        distribution still holds autograd tensors after ``learn``).
        """
        policy = pickle.loads(pickle.dumps(getattr(model, "policy", model)))  # our own bytes
        if hasattr(policy, "set_training_mode"):
            policy.set_training_mode(False)
        return cls(policy, deterministic=deterministic, name=name)

    def __getstate__(self) -> dict[str, Any]:
        # Plain-pickle the policy into bytes: multiprocessing's pickler (used by
        # SubprocVecEnv.env_method) refuses torch parameters, and a whole model drags its env.
        state = self.__dict__.copy()
        state["model"] = pickle.dumps(getattr(self.model, "policy", self.model))
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if isinstance(state["model"], bytes):
            state["model"] = pickle.loads(state["model"])  # our own bytes, from __getstate__
        self.__dict__.update(state)

    def _inputs(self, game: GameState, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """Return the seat's observation as the model reads it, and the legal mask (bool)."""
        view = game.with_observation(**self.observation) if self.observation else game
        obs = view.observation(seat).astype(np.float32)
        space = getattr(self.model, "observation_space", None)
        if space is not None and space.shape != obs.shape:
            if int(np.prod(space.shape)) != obs.size:
                raise ValueError(observation_mismatch(self.name, space.shape, view, "sb3"))
            obs = obs.reshape(space.shape)  # e.g. a model trained on flattened observations
        return obs, game.legal_mask().astype(bool)

    def check_game(self, game: GameState) -> None:
        """Raise ValueError if the model reads observations of another shape than ``game``'s."""
        self._inputs(game, 0)

    def act(self, game: GameState, seat: int) -> int:
        """Return the model's action for ``seat`` (always legal: the mask is applied)."""
        obs, mask = self._inputs(game, seat)
        action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        action = int(np.asarray(action).reshape(-1)[0])
        if not mask[action]:  # cannot happen with a maskable policy; never play illegal moves
            raise RuntimeError(f"{self.name} chose illegal action {action}; is it maskable?")
        return action

    def action_scores(self, game: GameState, seat: int) -> tuple[list[int], list[float]] | None:
        """Return the legal actions and the policy's log-probability of each, or None.

        The scores of a maskable SB3 policy (one with ``obs_to_tensor`` and
        ``get_distribution``): their softmax is the distribution ``sample`` draws from, so an
        imitation or warm start with ``temperature`` 1 learns that distribution, not only its
        most likely move. None for a model with only ``predict``.
        """
        policy = getattr(self.model, "policy", self.model)
        if not (hasattr(policy, "obs_to_tensor") and hasattr(policy, "get_distribution")):
            return None
        import torch

        obs, mask = self._inputs(game, seat)
        with torch.no_grad():
            tensor, _ = policy.obs_to_tensor(obs)
            dist = policy.get_distribution(tensor, action_masks=mask)
            log_probs = torch.log_softmax(dist.distribution.logits, dim=-1)
        legal = np.flatnonzero(mask)
        scores = log_probs.reshape(-1).cpu().numpy().astype(np.float64)[legal]
        return [int(a) for a in legal], [float(v) for v in scores]


def model_file_problem(path: str) -> str | None:
    """Problem text unless ``path`` names a saved SB3 model file (``.zip`` may be left off, as
    SB3 allows; ``~`` is the home folder; a name the system refuses is no file either)."""
    target = os.path.expanduser(path)
    if os.path.isdir(target):
        return "is a folder, not a saved model (.zip)"
    if not (os.path.isfile(target) or os.path.isfile(f"{target}.zip")):
        return "names no saved model file"
    return None


def make_sb3_agent(args: str, env_name: str, seed: int | None) -> PolicyAgent:
    """Agent factory for ``sb3:PATH[,sample][,threads=N][,NAME=VALUE...]`` (registered by the
    agent registry); ``NAME`` is one of the env's observation parameters."""
    path, *options = args.split(",")
    usage = (
        "use sb3:PATH[,sample][,threads=N] (a MaskablePPO zip; 'sample' samples moves instead "
        "of playing the most likely one, 'deterministic' is the default; threads=N torch "
        f"threads, default 1{observation_usage(env_name)}), got {quote(f'sb3:{args}')}"
    )
    options, observation = observation_options([o.strip() for o in options], env_name, usage)
    deterministic = True
    threads_args = []
    for option in options:
        if option in ("sample", "deterministic"):
            deterministic = option == "deterministic"
        elif option.startswith("threads="):
            threads_args.append(option)
        else:
            raise ValueError(usage)
    if not path or len(threads_args) > 1:
        raise ValueError(usage)
    threads = parse_kwargs(",".join(threads_args), {"threads": int}, f"sb3:{args}")
    if "threads" in threads:  # the option's own error, not "cannot load the SB3 model"
        try:
            check_int_range("threads", threads["threads"], 0, MAX_THREADS)
        except InvalidParameterError as err:
            raise InvalidParameterError(f"{err} (agent spec {quote(f'sb3:{args}')})") from None
    typed, path = path, os.path.expanduser(path)  # the shell leaves 'sb3:~/p.zip' alone
    if model_file_problem(path):
        raise FileNotFoundError(
            f"no SB3 model file {quote_path(typed)} (sb3:PATH names a MaskablePPO zip)"
        )
    try:
        return PolicyAgent.load(
            path,
            deterministic=deterministic,
            threads=threads.get("threads", DEFAULT_THREADS),  # type: ignore[arg-type]
            observation=observation,
        )
    except ImportError as err:
        raise ValueError(
            f"sb3 agents need sb3-contrib, the train extra (pip install -e '.[train]'): {err}"
        ) from None
    except Exception as err:  # SB3's loader raises any type on a damaged file
        raise ValueError(
            f"cannot load the SB3 model {quote_path(typed)} ({type(err).__name__}: "
            f"{cut(str(err), 200)}); sb3:PATH names a MaskablePPO zip saved by model.save()"
        ) from None


# The single-agent view moved to tabletop_envs.agents.single_agent (it needs no training code);
# these names stay importable from here.
__all__ = [
    "ADAPTER_KEYWORDS",
    "REWARD_MODES",
    "SEAT_MODES",
    "OpponentPool",
    "PolicyAgent",
    "SingleAgentEnv",
    "make_sb3_agent",
    "make_single_agent_env",
    "pin_torch_threads",
]
