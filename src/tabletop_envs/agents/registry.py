"""Agents by name: ``make_agent("mcts:iterations=400,rollout=greedy", "iris_v0", seed=1)``.

A spec string is ``NAME`` or ``NAME:ARGS``. Built-in names:

- ``random`` — uniform legal moves;
- ``greedy`` — the game's one-ply heuristic;
- ``planner`` — the game's planner heuristic (Irk: greedy's margin counting the hand tiles that
  will become bets);
- ``mcts`` — UCT; ``ARGS`` are comma-separated ``key=value`` among ``iterations`` (int),
  ``exploration`` (float, alias ``c``) and ``rollout`` (``random``/``greedy``);
- ``sb3`` — a saved MaskablePPO model: ``sb3:PATH`` plays its most likely action, as training's
  evaluations do (``sb3:PATH,sample`` samples from the policy instead); ``threads=N`` sets torch's
  intra-op threads (default 1, the fastest for these small networks; 0: torch's default), e.g.
  ``sb3:model.zip,sample,threads=2``; needs the ``train`` extra;
- ``rllib`` — an RLlib self-play checkpoint: ``rllib:PATH`` plays the most likely action
  (``rllib:PATH,sample`` samples from the policy); needs the ``rllib`` extra (built by
  ``tabletop_envs.training.rllib:make_rllib_agent``, imported only when such an agent is made).

:func:`register_agent` plugs in more names.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from tabletop_envs.agents.base import Agent, RandomAgent

if TYPE_CHECKING:
    from tabletop_envs.agents.greedy import GreedyAgent

#: ``factory(args, env_name, seed) -> Agent``; ``args`` is the text after ``NAME:`` or ``""``.
AgentFactory = Callable[[str, str, "int | None"], Agent]

_FACTORIES: dict[str, str | AgentFactory] = {}


def register_agent(name: str, factory: str | AgentFactory) -> None:
    """Register ``factory`` (a function or ``"module:function"`` path) under ``name``."""
    if not name or ":" in name or "," in name:
        raise ValueError(f"an agent name is non-empty without ':' or ',', got {name!r}")
    _FACTORIES[name] = factory


def agent_names() -> list[str]:
    """Return the registered agent names, sorted."""
    return sorted(_FACTORIES)


def make_agent(spec: str, env_name: str | None = None, seed: int | None = None) -> Agent:
    """Build the agent described by ``spec`` for the env ``env_name``, seeded with ``seed``."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(
            f"an agent spec is a non-empty string like 'mcts:iterations=100', got {spec!r}"
        )
    name, _, args = spec.partition(":")
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(
            f"unknown agent {name!r} in {spec!r}; registered agents: {', '.join(agent_names())}"
        ) from None
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        factory = getattr(importlib.import_module(module), attr)
    agent = factory(args, env_name or "", seed)
    agent.spec = spec  # type: ignore[union-attr]  # how it was made, for reports
    return agent


def parse_kwargs(args: str, types: dict[str, type], spec: str) -> dict[str, object]:
    """Parse ``"k=v,k2=v2"`` into typed keyword arguments; ValueError naming the valid keys."""
    out: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in args.split(","))):
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or key not in types:
            raise ValueError(
                f"bad option {item!r} in agent spec {spec!r}; options are "
                f"{', '.join(f'{k}=<{t.__name__}>' for k, t in types.items())}"
            )
        try:
            out[key] = types[key](text.strip())
        except ValueError:
            raise ValueError(
                f"option {key} in agent spec {spec!r} needs a {types[key].__name__}, got {text!r}"
            ) from None
    return out


def _no_args(name: str, args: str) -> None:
    if args:
        raise ValueError(f"agent {name!r} takes no options, got {name}:{args}")


def _random(args: str, env_name: str, seed: int | None) -> Agent:
    _no_args("random", args)
    return RandomAgent(seed)


def _greedy(args: str, env_name: str, seed: int | None) -> Agent:
    from tabletop_envs.agents.greedy import GreedyAgent

    return _heuristic_agent(GreedyAgent, args, env_name, seed)


def _planner(args: str, env_name: str, seed: int | None) -> Agent:
    from tabletop_envs.agents.greedy import PlannerAgent

    return _heuristic_agent(PlannerAgent, args, env_name, seed)


def _heuristic_agent(cls: type[GreedyAgent], args: str, env_name: str, seed: int | None) -> Agent:
    from tabletop_envs.agents.greedy import get_heuristic

    _no_args(cls.name, args)
    if env_name:
        from tabletop_envs.envs.registry import env_spec

        get_heuristic(env_spec(env_name).load_game().game_name, cls.kind)  # fail early if none
    return cls(seed)


def _mcts(args: str, env_name: str, seed: int | None) -> Agent:
    from tabletop_envs.agents.mcts import MCTSAgent

    types = {"iterations": int, "exploration": float, "c": float, "rollout": str}
    kwargs = parse_kwargs(args, types, f"mcts:{args}")
    if "c" in kwargs:
        kwargs["exploration"] = kwargs.pop("c")
    return MCTSAgent(seed=seed, **kwargs)  # type: ignore[arg-type]


def _sb3(args: str, env_name: str, seed: int | None) -> Agent:
    path, *options = args.split(",")
    usage = (
        "use sb3:PATH[,sample][,threads=N] (a MaskablePPO zip; 'sample' samples moves instead "
        "of playing the most likely one, 'deterministic' is the default; threads=N torch "
        f"threads, default 1), got sb3:{args}"
    )
    deterministic = True
    threads_args = []
    for option in (o.strip() for o in options):
        if option in ("sample", "deterministic"):
            deterministic = option == "deterministic"
        elif option.startswith("threads="):
            threads_args.append(option)
        else:
            raise ValueError(usage)
    if not path or len(threads_args) > 1:
        raise ValueError(usage)
    threads = parse_kwargs(",".join(threads_args), {"threads": int}, f"sb3:{args}")
    try:
        from tabletop_envs.training.sb3 import DEFAULT_THREADS, PolicyAgent
    except ImportError as err:  # pragma: no cover - depends on the installed extras
        raise ValueError(f"sb3 agents need the training module: {err}") from None
    try:
        return PolicyAgent.load(
            path,
            deterministic=deterministic,
            threads=threads.get("threads", DEFAULT_THREADS),  # type: ignore[arg-type]
        )
    except ImportError as err:
        raise ValueError(
            f"sb3 agents need sb3-contrib, the train extra (pip install -e '.[train]'): {err}"
        ) from None


register_agent("random", _random)
register_agent("greedy", _greedy)
register_agent("planner", _planner)
register_agent("mcts", _mcts)
register_agent("sb3", _sb3)
register_agent("rllib", "tabletop_envs.training.rllib:make_rllib_agent")
