"""The packaged experts of one env, one network per parameter set: the ``expert`` agent.

An env's experts are the files ``agents/experts/<env>.npz`` (the env's default parameters) and
``agents/experts/<env>.<tag>.npz`` (other parameters, e.g. ``irk_v0.3p.npz`` for 3 players),
each a :class:`~tabletop_envs.search.network.PolicyValueNet` recording in its meta the
parameters it was trained with. ``expert`` is an :class:`ExpertAgent`: the default file's
:class:`AZAgent`, which plays each game with the network made for the game's parameters (the
observation parameters aside, which a network reads its own way,
:meth:`~tabletop_envs.search.network.PolicyValueNet.check_game`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tabletop_envs.agents.az import AZAgent
from tabletop_envs.agents.base import Agent
from tabletop_envs.core.game import GameState
from tabletop_envs.search.network import PolicyValueNet, game_meta


def expert_file_env(name: str) -> str | None:
    """Return the env a packaged file name belongs to (None: not an expert file).

    ``irk_v0.npz`` and ``irk_v0.3p.npz`` both belong to ``irk_v0``.
    """
    if not name.endswith(".npz") or name.startswith("."):
        return None
    return name[: -len(".npz")].split(".", 1)[0] or None


def file_order(name: str) -> tuple[bool, str]:
    """Sort key of an env's expert files: the default-parameter file first, then by name."""
    return (name.count(".") > 1, name)


class ExpertAgent(AZAgent):
    """The env's default-parameter network's :class:`AZAgent`, which hands a game of other
    parameters to the agent of the network made for them (``others``).

    It is an :class:`AZAgent` (its settings and ``net`` are the default-parameter file's, as
    before other files could ship); at each new parameter set it checks its own network, then
    each of ``others`` in order, and keeps the first that accepts the game. A game none of them
    fits raises ValueError naming the parameters each was made for.
    """

    def __init__(
        self, net: PolicyValueNet, *, env_name: str, others: Sequence[AZAgent] = (), **kwargs: Any
    ) -> None:
        self.env_name = env_name
        self.others = list(others)
        self._chosen: dict[tuple[type, object], AZAgent] = {}
        super().__init__(net, **kwargs)

    @property
    def agents(self) -> list[AZAgent]:
        """Every network's agent, this one (the default parameters') first."""
        return [self, *self.others]

    def reset(self, seed: int | None = None) -> None:
        """Reset every network's agent (their kept trees, their streams)."""
        super().reset(seed)
        for agent in self.others:
            agent.reset(seed)

    def act(self, game: GameState, seat: int) -> int:
        """Return the action of the agent whose network was made for this game's parameters."""
        chosen = self.agent_for(game)
        return super().act(game, seat) if chosen is self else chosen.act(game, seat)

    def agent_for(self, game: GameState) -> AZAgent:
        """Return the agent that plays ``game`` (ValueError if no packaged network fits it)."""
        key = (type(game), game.params)
        agent = self._chosen.get(key)
        if agent is None:
            agent = self._chosen[key] = self._fitting(game)
        return agent

    def _fitting(self, game: GameState) -> AZAgent:
        for agent in self.agents:
            try:
                agent.net.check_game(game)
            except ValueError:
                continue
            return agent
        skip = type(game).observation_params
        made = [f"({made_for(a.net.meta['params'], skip)})" for a in self.agents]
        mine = made_for(game_meta(game)["params"], skip)
        raise ValueError(
            f"no packaged {self.env_name} expert plays this game ({mine}): "
            f"{'they are' if self.others else 'it is'} made for {_listed(made)}. Train a "
            f"network for these parameters and play it as az:PATH"
        )


def _listed(items: list[str]) -> str:
    """Return ``a``, ``a and b``, ``a, b and c`` ..."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def made_for(params: dict[str, Any], skip: frozenset[str]) -> str:
    """Return a network's (or a game's) JSON parameters as ``key=value`` text, without those in
    ``skip`` (the observation parameters) and the deck, which is long."""
    shown = [f"{k}={v}" for k, v in sorted(params.items()) if k not in skip and k != "deck"]
    return ", ".join(shown)


def az_agent_of(agent: Agent, game: GameState) -> AZAgent | None:
    """Return the :class:`AZAgent` that plays ``game`` for ``agent`` (None: not a search agent
    over a network): ``agent`` itself, or an :class:`ExpertAgent`'s choice for the game."""
    if isinstance(agent, ExpertAgent):
        return agent.agent_for(game)
    return agent if isinstance(agent, AZAgent) else None


def check_plays(agent: Agent, game: GameState) -> None:
    """Raise ValueError, saying why, if ``agent`` plays over a network that cannot play
    ``game`` (made for other parameters); other agents say so by :meth:`Agent.check_game`
    (a plugin's trained model, say)."""
    if isinstance(agent, ExpertAgent):
        agent.agent_for(game)  # checks its networks in turn
    elif isinstance(agent, AZAgent):
        agent.net.check_game(game)
    else:
        agent.check_game(game)


def check_agents(named: Iterable[tuple[str, Agent]], game: GameState) -> None:
    """Raise ValueError, naming the agent (``"seat 1 (az:net.npz)"``, say), for the first of
    ``named`` whose network cannot play ``game``: before a game starts, not at its first move."""
    for name, agent in named:
        try:
            check_plays(agent, game)
        except ValueError as err:
            raise ValueError(f"{name} cannot play this game: {err}") from None
