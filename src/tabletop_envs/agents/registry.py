"""Agents by name: ``make_agent("mcts:iterations=400,rollout=greedy", "iris_v0", seed=1)``.

A spec string is ``NAME`` or ``NAME:ARGS``. Built-in names:

- ``random`` — uniform legal moves;
- ``greedy`` — the game's one-ply heuristic;
- ``planner`` — the game's planner heuristic (Irk: greedy's margin counting the hand tiles that
  will become bets);
- ``mcts`` — UCT; ``ARGS`` are comma-separated ``key=value`` among ``iterations`` (int),
  ``exploration`` (float, alias ``c``) and ``rollout`` (``random``/``greedy``);
- ``az`` — PUCT search guided by a policy-value network file (:mod:`tabletop_envs.agents.az`,
  numpy only): ``az:PATH`` with comma-separated ``key=value`` options after the path,
  ``simulations`` (int; default: the file's own ``simulations`` entry, else 64; 0 plays the
  network's most likely move without search)
  ``c`` (float, the PUCT constant, default 1.5) and ``rollout`` (float in [0, 1], the weight of
  a playout's result in each leaf's value; default: the file's ``rollout_weight``, else 0)
  and ``playout`` (``random`` or ``greedy``, how playouts move; default: the file's
  ``rollout_policy``, else random), e.g. ``az:iris.npz,simulations=200,c=2``;
- ``expert`` — the network packaged for the env (``tabletop_envs/agents/experts/<env>.npz``)
  played as ``az`` is, same options: ``expert``, ``expert:simulations=200``; an env without a
  packaged network is refused, naming the envs that have one;
- ``sb3`` — a saved MaskablePPO model: ``sb3:PATH`` plays its most likely action, as training's
  evaluations do (``sb3:PATH,sample`` samples from the policy instead); ``threads=N`` sets torch's
  intra-op threads (default 1, the fastest for these small networks; 0: torch's default), e.g.
  ``sb3:model.zip,sample,threads=2``; needs the ``train`` extra (built by
  ``tabletop_envs.training.sb3:make_sb3_agent``, imported only when such an agent is made);
- ``rllib`` — an RLlib self-play checkpoint: ``rllib:PATH`` plays the most likely action
  (``rllib:PATH,sample`` samples from the policy); needs the ``rllib`` extra (built by
  ``tabletop_envs.training.rllib:make_rllib_agent``, imported only when such an agent is made).

Spec syntax: after ``NAME:``, a file-backed agent (``az``, ``sb3``, ``rllib``) takes its path
first, then comma-separated options; the others take ``key=value`` options only. Paths cannot
hold commas. Factories given as ``"module:function"`` strings are imported on first use, so
this module (and ``tabletop_envs.agents``) never imports the training layer.

:func:`register_agent` plugs in more names.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from tabletop_envs.agents.base import Agent, RandomAgent

if TYPE_CHECKING:
    from tabletop_envs.agents.az import PolicyValueNet
    from tabletop_envs.agents.greedy import GreedyAgent
    from tabletop_envs.envs.registry import EnvSpec

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


def _az(args: str, env_name: str, seed: int | None) -> Agent:
    from tabletop_envs.agents.az import PolicyValueNet

    path, _, options = args.partition(",")
    if not path.strip() or "=" in path:
        raise ValueError(
            "use az:PATH[,simulations=N][,c=F][,rollout=W][,playout=random|greedy] (a "
            "policy-value network .npz; simulations per move, 0 plays the network's most likely "
            "move; c the PUCT constant; rollout the weight of playouts in leaf values, 0-1; "
            f"playout how they move), got az:{args}"
        )
    net = PolicyValueNet.load(path.strip())
    return _az_agent(net, options, f"az:{args}", env_name, seed, source=path.strip())


def _expert(args: str, env_name: str, seed: int | None) -> Agent:
    from importlib.resources import files

    from tabletop_envs.agents.az import PolicyValueNet

    spec = f"expert:{args}" if args else "expert"
    if not env_name:
        raise ValueError(f"agent {spec!r} needs an env name: it plays that env's packaged network")
    _env_spec(env_name)  # an unknown env is named as such
    folder = files("tabletop_envs.agents") / "experts"
    resource = folder / f"{env_name}.npz"
    if not resource.is_file():
        have = (
            sorted(r.name[: -len(".npz")] for r in folder.iterdir() if r.name.endswith(".npz"))
            if folder.is_dir()
            else []
        )
        raise ValueError(
            f"no expert network is packaged for {env_name}; packaged experts: "
            f"{', '.join(have) if have else 'none yet'}. Play a network file of your own with "
            f"az:PATH instead"
        )
    with resource.open("rb") as file:
        net = PolicyValueNet.load(file)
    return _az_agent(net, args, spec, env_name, seed, source=f"the {env_name} expert")


def _az_agent(
    net: PolicyValueNet, options: str, spec: str, env_name: str, seed: int | None, *, source: str
) -> Agent:
    """Return an AZAgent playing ``net`` with the spec's ``simulations``/``c`` options."""
    from tabletop_envs.agents.az import AZAgent

    kwargs = parse_kwargs(
        options, {"simulations": int, "c": float, "rollout": float, "playout": str}, spec
    )
    if env_name:
        game_name = _env_spec(env_name).load_game().game_name
        if net.meta["game"] != game_name:
            raise ValueError(
                f"{source} plays {net.meta['game']!r}, not {game_name!r} (the game of {env_name})"
            )
    if "c" in kwargs:
        kwargs["c_puct"] = kwargs.pop("c")
    if "rollout" in kwargs:
        kwargs["rollout_weight"] = kwargs.pop("rollout")
    if "playout" in kwargs:
        kwargs["rollout_policy"] = kwargs.pop("playout")
    return AZAgent(net, seed=seed, **kwargs)  # type: ignore[arg-type]


def _env_spec(env_name: str) -> EnvSpec:
    """Return the registered spec of ``env_name`` (ValueError listing the envs otherwise)."""
    from tabletop_envs.envs.registry import env_spec

    return env_spec(env_name)


register_agent("random", _random)
register_agent("greedy", _greedy)
register_agent("planner", _planner)
register_agent("mcts", _mcts)
register_agent("az", _az)
register_agent("expert", _expert)
register_agent("sb3", "tabletop_envs.training.sb3:make_sb3_agent")
register_agent("rllib", "tabletop_envs.training.rllib:make_rllib_agent")
