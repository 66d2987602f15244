"""Agents by name: ``make_agent("mcts:iterations=400,playout=greedy", "iris_v0", seed=1)``.

A spec string is ``NAME`` or ``NAME:ARGS``. Built-in names:

- ``random`` — uniform legal moves;
- ``greedy`` — the game's one-ply heuristic;
- ``planner`` — the game's planner heuristic (Irk: greedy's margin counting the hand tiles that
  will become bets);
- ``mcts`` — UCT; ``ARGS`` are comma-separated ``key=value`` among ``iterations`` (int),
  ``exploration`` (float, alias ``c``) and ``playout`` (``random``/``greedy``/``planner``; its
  former name ``rollout`` is still read, with a DeprecationWarning);
- ``az`` — PUCT search guided by a policy-value network file (:mod:`tabletop_envs.agents.az`,
  numpy only): ``az:PATH`` with comma-separated ``key=value`` options after the path,
  ``simulations`` (int; default: the file's own ``simulations`` entry, else 64; 0 plays the
  network's most likely move without search), ``c`` (float, the PUCT constant, default 1.5),
  ``playout`` (``random``, ``greedy`` or ``planner``, how playouts move; default: the file's
  ``rollout_policy``, else random) and ``playout_weight`` (float in [0, 1], the weight of a
  playout's result in each leaf's value; default: the file's ``rollout_weight``, else 0; its
  former name ``rollout`` is still read, with a DeprecationWarning) and ``network`` (``on``,
  the default, or ``off``: the same search, simulations and playouts with a uniform prior and
  value 0 in place of the network, to measure what it adds), ``root`` (``puct`` or ``gumbel``),
  ``considered`` (int, a Gumbel root's candidates), ``reuse`` (``on``/``off``: go on in the
  subtree the last search grew) and ``guide`` (``greedy`` or ``planner``: the heuristic whose
  scores, a softmax at ``guide_temperature``, float > 0, make ``guide_weight``, float in [0, 1],
  of the root's priors; defaults: the file's, else no guide, 1 and 1), e.g.
  ``az:iris.npz,simulations=200,c=2``;
- ``expert`` — the network packaged for the env (``tabletop_envs/agents/experts/<env>.npz``)
  played as ``az`` is, same options: ``expert``, ``expert:simulations=200``,
  ``expert:network=off``; an env without a
  packaged network is refused, naming the envs that have one. Networks for other parameters
  (``<env>.<tag>.npz``, e.g. ``irk_v0.3p.npz``) play the games of theirs: the agent is an
  :class:`~tabletop_envs.agents.expert.ExpertAgent`, the default file's ``AZAgent`` handing
  such a game to the network made for it.

Agents that need more than numpy come from packages, through the entry-point group
``tabletop_envs.agents`` (:data:`ENTRY_POINT_GROUP`): each entry is ``NAME = "module:factory"``
and is imported only when such an agent is made. This package declares two, both in its
training layer: ``sb3`` (a saved MaskablePPO model:
``sb3:PATH[,sample][,threads=N][,NAME=VALUE]``, ``NAME`` an observation parameter of the env,
the ``train`` extra) and ``rllib`` (an RLlib self-play checkpoint:
``rllib:PATH[,sample][,NAME=VALUE]``, the ``rllib`` extra). Another package adds agents the
same way; :func:`register_agent` plugs one in at run time (it wins over an entry point of the
same name).

Spec syntax: after ``NAME:``, a file-backed agent (``az``, ``sb3``, ``rllib``) takes its path
first, then comma-separated options; the others take ``key=value`` options only, each read by
:func:`tabletop_envs.core.config.parse_assignment` (:func:`parse_kwargs`). Paths cannot hold
commas. An env name given to :func:`make_agent` must be a registered env.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

import numpy as np

from tabletop_envs.agents.base import Agent, RandomAgent
from tabletop_envs.core.config import parse_assignment, quote
from tabletop_envs.core.errors import InvalidParameterError

if TYPE_CHECKING:
    from tabletop_envs.agents.az import AZAgent
    from tabletop_envs.agents.greedy import GreedyAgent
    from tabletop_envs.core.game import GameState
    from tabletop_envs.envs.registry import EnvSpec
    from tabletop_envs.search.network import PolicyValueNet

#: ``factory(args, env_name, seed) -> Agent``; ``args`` is the text after ``NAME:`` or ``""``.
AgentFactory = Callable[[str, str, "int | None"], Agent]

#: The entry-point group where installed packages declare agent factories.
ENTRY_POINT_GROUP = "tabletop_envs.agents"

_FACTORIES: dict[str, str | AgentFactory] = {}


def register_agent(name: str, factory: str | AgentFactory) -> None:
    """Register ``factory`` (a function or ``"module:function"`` path) under ``name``."""
    if not name or ":" in name or "," in name:
        raise ValueError(f"an agent name is non-empty without ':' or ',', got {quote(name)}")
    _FACTORIES[name] = factory


def _plugins() -> dict[str, importlib.metadata.EntryPoint]:
    """Return the agent factories installed packages declare, by name (none is imported)."""
    entries = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return {entry.name: entry for entry in entries}


def agent_names() -> list[str]:
    """Return the agent names: registered ones and installed packages' entry points, sorted."""
    return sorted(set(_FACTORIES) | set(_plugins()))


def make_agent(spec: str, env_name: str | None = None, seed: int | None = None) -> Agent:
    """Build the agent described by ``spec`` for the env ``env_name``, seeded with ``seed``."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(
            f"an agent spec is a non-empty string like 'mcts:iterations=100', got {quote(spec)}"
        )
    if seed is not None and (isinstance(seed, (bool, np.bool_)) or not _is_natural(seed)):
        raise InvalidParameterError(f"seed must be None or an integer >= 0, got {quote(seed)}")
    name, _, args = spec.partition(":")
    factory = _factory(name, spec)
    if env_name is not None and not isinstance(env_name, str):
        raise ValueError(f"an env name is a string, got {quote(env_name)}")
    if env_name:
        _env_spec(env_name)  # an unknown env is refused, listing the registered ones
    agent = factory(args, env_name or "", seed)
    agent.spec = spec  # type: ignore[attr-defined]  # how it was made, for reports
    return agent


def _is_natural(value: object) -> bool:
    """Return whether ``value`` is an integer (numpy's too) >= 0."""
    return isinstance(value, (int, np.integer)) and bool(value >= 0)


def _factory(name: str, spec: str) -> AgentFactory:
    """Return the factory of ``name``: registered, else an installed package's entry point."""
    factory = _FACTORIES.get(name)
    if factory is None:
        entry = _plugins().get(name)
        if entry is None:
            raise ValueError(
                f"unknown agent {quote(name)} in {quote(spec)}; registered agents: "
                f"{', '.join(agent_names())}"
            )
        return _imported(name, entry.value, entry.load)
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        return _imported(name, factory, lambda: getattr(importlib.import_module(module), attr))
    return factory


def _imported(name: str, path: str, load: Callable[[], AgentFactory]) -> AgentFactory:
    """Return ``load()``, the factory at ``path``; ValueError naming it if it fails to import."""
    try:
        return load()
    except ImportError as err:
        raise ValueError(
            f"agent {quote(name)} is made by {path}, which fails to import: {err}"
        ) from err


def _stacklevel() -> int:
    """Return the ``stacklevel`` of a warning raised by the caller that names the first frame
    outside this module (the user's call of :func:`make_agent`)."""
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
        level += 1
    return level


def parse_kwargs(
    args: str,
    types: Mapping[str, type],
    spec: str,
    *,
    renamed: Mapping[str, str] | None = None,
) -> dict[str, object]:
    """Parse ``"k=v,k2=v2"`` into typed keyword arguments.

    Items are split at commas, each read by :func:`~tabletop_envs.core.config.parse_assignment`
    (the project's one ``key=value`` reader); a value must then be of its option's type in
    ``types``: an ``int`` option takes an integer, a ``float`` option any number (``nan`` and
    ``inf`` too: the agent judges them), a ``str`` option text. ``renamed`` maps former option
    names to their new ones (read with a DeprecationWarning). A bad item raises
    InvalidParameterError (a ValueError) naming the option and what is valid.
    """
    renamed = renamed or {}
    out: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in args.split(","))):
        try:
            key, value = parse_assignment(item)
        except ValueError:
            key, value = "", None  # no '=' or no key
        if key in renamed:
            new = renamed[key]
            warnings.warn(
                f"option {key} of agent spec {quote(spec)} is deprecated, use {new} (removed "
                f"in 0.3)",
                DeprecationWarning,
                stacklevel=_stacklevel(),
            )
            key = new
        if key not in types:
            raise InvalidParameterError(
                f"bad option {quote(item)} in agent spec {quote(spec)}; options are "
                f"{', '.join(f'{k}=<{t.__name__}>' for k, t in types.items())}"
            )
        out[key] = _typed(key, value, types[key], spec)
    return out


def _typed(key: str, value: object, kind: type, spec: str) -> object:
    """Return ``value`` (read by ``parse_value``) as option ``key``'s ``kind``, else raise."""
    if kind is float and isinstance(value, str):
        with suppress(ValueError):
            value = float(value)  # "nan", "inf": read, and refused by the agent's own check
    if kind is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if type(value) is kind:
        return value
    what = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}.get(
        kind, f"a {kind.__name__}"
    )
    raise InvalidParameterError(
        f"{key} must be {what}, got {quote(value)} (agent spec {quote(spec)})"
    )


def _no_args(name: str, args: str) -> None:
    if args:
        raise InvalidParameterError(
            f"agent {quote(name)} takes no options, got {quote(f'{name}:{args}')}"
        )


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
    _no_args(cls.name, args)
    _check_heuristic(env_name, cls.kind)
    return cls(seed)


def _check_heuristic(env_name: str, kind: str) -> None:
    """Raise ValueError early when the env's game has no ``kind`` heuristic (``random``: none)."""
    if env_name and kind != "random":
        from tabletop_envs.envs.registry import get_heuristic

        get_heuristic(_env_spec(env_name).load_game().game_name, kind)


def _mcts(args: str, env_name: str, seed: int | None) -> Agent:
    from tabletop_envs.agents.mcts import MCTSAgent

    spec = f"mcts:{args}"
    types = {"iterations": int, "exploration": float, "c": float, "playout": str}
    kwargs = parse_kwargs(args, types, spec, renamed={"rollout": "playout"})
    if "c" in kwargs:
        kwargs["exploration"] = kwargs.pop("c")
    with _in_spec(spec):
        agent = MCTSAgent(seed=seed, **kwargs)  # type: ignore[arg-type]
    _check_heuristic(env_name, agent.playout)
    return agent


def _az(args: str, env_name: str, seed: int | None) -> Agent:
    from tabletop_envs.search.network import PolicyValueNet

    path, _, options = args.partition(",")
    if not path.strip() or "=" in path:
        raise InvalidParameterError(
            "use az:PATH[,simulations=N][,c=F][,playout=random|greedy|planner]"
            "[,playout_weight=W][,network=on|off][,root=puct|gumbel][,considered=K]"
            "[,reuse=on|off][,guide=greedy|planner][,guide_weight=W][,guide_temperature=T] "
            "(a policy-value network .npz; simulations per move, 0 plays the "
            "network's most likely move; c the PUCT constant; playout how playouts move; "
            "playout_weight their weight in leaf values, 0-1; network=off the same search "
            "without the network; root=gumbel a Gumbel root over the K likeliest actions; "
            "reuse=on each search goes on in the subtree the last one grew; guide a heuristic "
            "whose scores, a softmax at temperature T, make W of the root's priors), got "
            f"{quote(f'az:{args}')}"
        )
    net = PolicyValueNet.load(path.strip())
    return _az_agent(net, options, f"az:{args}", env_name, seed, source=path.strip())


def _expert(args: str, env_name: str, seed: int | None) -> Agent:
    from tabletop_envs.agents.expert import ExpertAgent

    spec = f"expert:{args}" if args else "expert"
    if not env_name:
        raise ValueError(
            f"agent {quote(spec)} needs an env name: it plays that env's packaged network"
        )
    resources = _expert_files().get(env_name)
    if not resources:
        have = expert_envs()
        raise ValueError(
            f"no expert network is packaged for {env_name}; packaged experts: "
            f"{', '.join(have) if have else 'none yet'}. Play a network file of your own with "
            f"az:PATH instead"
        )
    nets = [(_packaged_net(r), f"the {env_name} expert ({r.name})") for r in resources]
    others = [_az_agent(net, args, spec, env_name, seed, source=src) for net, src in nets[1:]]
    make = functools.partial(ExpertAgent, env_name=env_name, others=others)
    net, source = nets[0]
    return _az_agent(net, args, spec, env_name, seed, source=source, make=make)


#: The packaged networks loaded so far, by file (see :func:`_packaged_net`).
_LOADED: dict[str, PolicyValueNet] = {}


def _packaged_net(resource: Any) -> PolicyValueNet:
    """Return the packaged network in ``resource``, loaded once: every expert agent plays the
    same arrays (a network's arrays are read only), so a server's hundred games against the
    Irk expert hold one 11 MB copy, not a hundred."""
    from tabletop_envs.search.network import PolicyValueNet

    net = _LOADED.get(str(resource))
    if net is None:
        with resource.open("rb") as file:
            net = _LOADED[str(resource)] = PolicyValueNet.load(file)
    return net


def _expert_files() -> dict[str, list[Any]]:
    """Return each env's packaged network files (resources), the default-parameter one first."""
    from importlib.resources import files

    from tabletop_envs.agents.expert import expert_file_env, file_order

    folder = files("tabletop_envs.agents") / "experts"
    if not folder.is_dir():
        return {}
    found: dict[str, list[Any]] = {}
    for resource in sorted(folder.iterdir(), key=lambda r: file_order(r.name)):
        env = expert_file_env(resource.name)
        if env is not None:
            found.setdefault(env, []).append(resource)
    return found


def expert_envs() -> list[str]:
    """Return the envs with a packaged expert network (what ``expert`` plays), sorted."""
    return sorted(_expert_files())


def expert_plays(env_name: str, game: GameState) -> bool:
    """Return whether ``env_name``'s packaged expert has a network for ``game``'s parameters
    (its 3-4 player games, say), the experts loaded once per env."""
    from tabletop_envs.agents.expert import check_plays

    if env_name not in expert_envs():
        return False
    try:
        check_plays(_packaged_expert(env_name), game)
    except ValueError:
        return False
    return True


@functools.cache
def _packaged_expert(env_name: str) -> Agent:
    return _expert("", env_name, 0)


def _az_agent(
    net: PolicyValueNet,
    options: str,
    spec: str,
    env_name: str,
    seed: int | None,
    *,
    source: str,
    make: Callable[..., AZAgent] | None = None,
) -> AZAgent:
    """Return an AZAgent playing ``net`` with the spec's options (made by ``make``, AZAgent
    by default)."""
    from tabletop_envs.agents.az import AZAgent

    types = {
        "simulations": int,
        "c": float,
        "playout": str,
        "playout_weight": float,
        "network": str,
        "root": str,
        "considered": int,
        "reuse": str,
        "guide": str,
        "guide_weight": float,
        "guide_temperature": float,
    }
    kwargs = parse_kwargs(options, types, spec, renamed={"rollout": "playout_weight"})
    for name, meaning in (
        ("network", "off: the same search with a uniform prior and value 0"),
        ("reuse", "on: each search goes on in the subtree the last one grew"),
    ):
        if name in kwargs:
            if kwargs[name] not in ("on", "off"):
                raise InvalidParameterError(
                    f"option {name} in agent spec {quote(spec)} is on or off ({meaning}), got "
                    f"{quote(kwargs[name])}"
                )
            kwargs[name] = kwargs[name] == "on"
    if env_name:
        game_name = _env_spec(env_name).load_game().game_name
        if net.meta["game"] != game_name:
            raise ValueError(
                f"{source} plays {net.meta['game']!r}, not {game_name!r} (the game of {env_name})"
            )
    if "c" in kwargs:
        kwargs["c_puct"] = kwargs.pop("c")
    with _in_spec(spec):
        agent = (make or AZAgent)(net, seed=seed, **kwargs)  # type: ignore[arg-type]
    if agent.playout_weight > 0:
        _check_heuristic(env_name, agent.playout)
    if agent.guided and agent.guide is not None:
        _check_heuristic(env_name, agent.guide)
    return agent


@contextmanager
def _in_spec(spec: str) -> Iterator[None]:
    """Add the agent spec to an InvalidParameterError raised inside (the user's own words)."""
    try:
        yield
    except InvalidParameterError as err:
        raise InvalidParameterError(f"{err} (agent spec {quote(spec)})") from None


def observation_usage(env_name: str) -> str:
    """Return the usage of a model spec's ``NAME=VALUE`` options for ``env_name`` ("" if none).

    A model trained with other values of the env's observation parameters (Irk's
    ``group_planes``, ``action_values``; Isis & Osiris' ``memory``) names them so, and reads
    every position with them.
    """
    game = _game_class(env_name)
    names = sorted(game.observation_params) if game is not None else []
    if not names:
        return ""
    return (
        "; NAME=VALUE the observation parameters the model was trained with, NAME one of "
        + ", ".join(names)
    )


def observation_options(
    options: Sequence[str], env_name: str, usage: str
) -> tuple[list[str], dict[str, Any]]:
    """Split a model spec's options into the others and its observation parameters' values.

    ``NAME=VALUE`` options naming an observation parameter of ``env_name``'s game are read by
    :func:`~tabletop_envs.core.config.parse_assignment` and checked as the game checks its
    parameters (InvalidParameterError ending with ``usage`` otherwise); for
    ``GameState.with_observation``.
    """
    game = _game_class(env_name)
    names = game.observation_params if game is not None else frozenset()
    rest: list[str] = []
    values: dict[str, Any] = {}
    for option in options:
        if option.partition("=")[0].strip() in names:
            values.update([parse_assignment(option)])
        else:
            rest.append(option)
    if game is not None and values:
        try:
            game.params_class(**values)
        except (TypeError, ValueError) as err:
            raise InvalidParameterError(f"{err}; {usage}") from None
    return rest, values


def observation_mismatch(name: str, shape: Sequence[int], game: GameState, kind: str) -> str:
    """Say that model ``name`` (a ``kind:PATH`` agent) reads observations of another ``shape``
    than ``game`` gives, and, for a game with observation parameters, how to name them."""
    message = (
        f"{name} reads observations of shape {tuple(shape)}; this {game.game_name} game gives "
        f"{tuple(game.spec.observation_shape)}"
    )
    if game.observation_params:
        names = ", ".join(sorted(game.observation_params))
        message += (
            f" (a model trained with other values of the observation parameters {names} "
            f"takes them as options: {kind}:PATH,NAME=VALUE)"
        )
    return message


def _game_class(env_name: str) -> type[GameState] | None:
    """Return the game class of ``env_name``, or None for no env (``""``)."""
    return _env_spec(env_name).load_game() if env_name else None


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
