"""Evaluate a saved MaskablePPO model in the arena against baseline agents.

    python examples/evaluate.py runs/latest/model.zip --env iris_v0 --opponents random greedy \
        --games 400 [--sample] [--threads 1] [--json eval.json]

For each opponent the model plays ``--games`` games with seats alternated (the arena rotates
seats), and the win rate is printed with its 95% Wilson interval. The model plays its most
likely action, as training's evaluations do (``--sample`` samples from the policy instead), with
torch pinned to ``--threads`` threads (1: the fastest for these small networks). The model
is loaded as an ``sb3:PATH`` agent (:class:`tabletop_envs.training.PolicyAgent`), so any arena
or CLI command takes it too:
``tabletop-envs evaluate --env iris_v0 --agents sb3:runs/latest/model.zip greedy``.

A mistake (a missing model file, an unknown env, game parameter or opponent, a model trained
for other game parameters, a ``--json`` path that cannot be written) ends in one line
``evaluate.py: error: ...`` and exit status 2, before any game is played.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.expert import check_agents
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.core.config import (
    CommandParser,
    Config,
    add_options,
    from_args,
    one_line,
    setting,
)
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import make, registered_env
from tabletop_envs.evaluation.arena import build_agents, run_arena
from tabletop_envs.evaluation.paths import file_problem

PROG = "evaluate.py"


@dataclass
class EvaluateConfig(Config):
    """What to evaluate: the model, the game, the opponents and the games."""

    model: str = setting(
        "",
        cli=False,
        help="a MaskablePPO .zip saved by train_maskable_ppo.py (a pickle: "
        "load only files you trust)",
    )
    env: str = setting("iris_v0", check=registered_env, help="the env the model was trained on")
    env_args: dict[str, Any] = setting(
        default_factory=dict,
        flags=("--param", "--env-arg"),
        metavar="K=V",
        help="game parameter the model was trained with, repeatable (e.g. --param board_size=7)",
    )
    opponents: tuple[str, ...] = setting(
        ("random",), help="agent specs, one per argument (e.g. random greedy mcts:iterations=400)"
    )
    games: int = setting(400, low=1, help="games against each opponent")
    seed: int = setting(0, low=0, help="seed of the first game")
    sample: bool = setting(
        False, help="sample moves from the policy instead of playing the most likely action"
    )
    threads: int = setting(1, low=0, high=4096, help="torch threads (0: torch's default)")
    json: str | None = setting(
        None, metavar="PATH", check=file_problem, help="write the summaries to this file"
    )

    def check(self) -> None:
        """Make the game the parameters describe (an unknown or refused parameter is named)."""
        try:
            make(self.env, **self.env_args)
        except ValueError as err:
            raise InvalidParameterError(f"env_args: {one_line(err)}") from None


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of this script, generated from :class:`EvaluateConfig`."""
    p = CommandParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="a MaskablePPO .zip saved by train_maskable_ppo.py")
    p.add_argument("--env", required=True, help="the env the model was trained on")
    add_options(p, EvaluateConfig, skip={"env"})
    p.add_argument(
        "--deterministic", action="store_true", help="play the most likely action (the default)"
    )
    return p


def _probe_game(env: str, env_kwargs: dict[str, Any]) -> GameState:
    """Return the first position of a game of ``env`` (seed 0) with the parameters given."""
    game_env = make(env, **env_kwargs)
    game_env.reset(seed=0)
    return game_env.game.clone()


def make_agents(
    model: str,
    env: str,
    opponents: list[str],
    deterministic: bool = True,
    env_kwargs: dict[str, Any] | None = None,
    threads: int = 1,
) -> tuple[Agent, list[str | Agent]]:
    """Return the model's agent and the opponents (specs, ``sb3:`` ones made), each checked.

    ValueError, naming the model or ``--opponents``, for a model or network file that is
    missing or unreadable, an unknown agent, or an agent that cannot play this game (made for
    other game parameters): before any game, not at its first move.
    """
    game = _probe_game(env, dict(env_kwargs or {}))
    spec = f"sb3:{model}" + ("" if deterministic else ",sample")
    try:
        [agent] = build_agents([spec], env, threads)
    except (ValueError, OSError) as err:
        raise ValueError(f"model: {one_line(err)}") from None
    try:
        _check(agent, spec, game)
    except ValueError as err:
        raise ValueError(
            f"model: {one_line(err)}; --param KEY=VALUE gives the game parameters it was "
            "trained with"
        ) from None
    try:
        built = build_agents(opponents, env, threads)
        for opponent, made in zip(opponents, built, strict=True):
            _check(made if isinstance(made, Agent) else make_agent(opponent, env), opponent, game)
    except (ValueError, OSError) as err:
        raise ValueError(f"--opponents: {one_line(err)}") from None
    return agent, built


def _check(agent: Agent, spec: str, game: GameState) -> None:
    """Raise ValueError if ``agent`` cannot play ``game``: a network or model made for other
    game parameters (a model reads the first position as the run will)."""
    check_agents([(repr(spec), agent)], game)
    if spec.startswith(("sb3:", "rllib:")):
        agent.act(game.clone(), game.acting_seats()[0])


def evaluate_model(
    model: str,
    env: str,
    opponents: list[str],
    games: int,
    seed: int = 0,
    deterministic: bool = True,
    env_kwargs: dict | None = None,
    threads: int = 1,
) -> dict[str, dict]:
    """Play the model against each opponent in the arena; return each opponent's summary."""
    agent, built = make_agents(model, env, opponents, deterministic, env_kwargs, threads)
    return play(env, agent, dict(zip(opponents, built, strict=True)), games, seed, env_kwargs)


def play(
    env: str,
    agent: Agent,
    opponents: dict[str, str | Agent],
    games: int,
    seed: int = 0,
    env_kwargs: dict | None = None,
) -> dict[str, dict]:
    """Play ``agent`` against each of ``opponents`` (by name) in the arena; return the summaries."""
    out = {}
    for name, opponent in opponents.items():
        result = run_arena(env, [agent, opponent], games, seed=seed, env_kwargs=env_kwargs)
        print(result.table(), "\n", flush=True)
        out[name] = result.to_dict(timing=False)["agents"][0]
    return out


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, evaluate, print a one-line summary per opponent."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.sample and args.deterministic:
        parser.error("--sample and --deterministic exclude each other")
    try:
        config = from_args(EvaluateConfig, args)
        agent, built = make_agents(
            config.model,
            config.env,
            list(config.opponents),
            not config.sample,
            config.env_args,
            config.threads,
        )
    except (ValueError, ImportError, OSError) as err:  # all before the first game
        parser.error(str(err))
    opponents = dict(zip(config.opponents, built, strict=True))
    summaries = play(config.env, agent, opponents, config.games, config.seed, config.env_args)
    for opponent, s in summaries.items():
        low, high = s["win_ci95"]
        print(
            f"win rate vs {opponent}: {s['win_rate']:.3f} (95% CI {low:.3f}-{high:.3f}; "
            f"{s['wins']}W {s['draws']}D {s['losses']}L over {s['results']} games)"
        )
    if config.json:
        try:
            with open(config.json, "w") as fh:
                json.dump(summaries, fh, indent=2)
        except OSError as err:  # checked before the games; changed since
            print(f"{PROG}: error: cannot write --json {config.json!r}: {err}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
