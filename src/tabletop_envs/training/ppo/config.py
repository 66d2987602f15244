"""The settings of a MaskablePPO run, declared once: type, default, bounds and help per field.

:class:`TrainConfig` is checked when it is built (a wrong value raises
:class:`~tabletop_envs.core.errors.InvalidParameterError` naming the field and what is valid),
saved with the run's results and turned into the ``tabletop-envs train`` command line
(:mod:`tabletop_envs.training.ppo.cli`). Importing it needs neither torch nor SB3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tabletop_envs.agents.single_agent import REWARD_MODES, SEAT_MODES
from tabletop_envs.core.config import Config, quote, quote_path, setting
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, registered_env
from tabletop_envs.evaluation.paths import check_new_run, folder_problem
from tabletop_envs.training.checks import (
    SEED_HIGH,
    at_least,
    check_agent_specs,
    not_blank,
    positive,
    probe_game,
)
from tabletop_envs.training.sb3 import model_file_problem

#: Policy networks of ``--policy``: an MLP over the flat observation, a CNN over the board
#: planes, or the layout-aware ``cells`` policy (per-cell action head).
POLICIES = ("mlp", "cnn", "cells")
#: What a run writes into its ``out`` folder: a new run refuses a folder holding any of them.
RUN_FILES = ("model.zip", "results.json", "winrate.png")
#: SB3 vectorized env kinds of ``--vec``.
VEC_KINDS = ("dummy", "subproc")


def _seat(value: Any) -> str | None:
    """Problem text unless ``value`` is a seat mode or a seat number."""
    if value in SEAT_MODES and isinstance(value, str):
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return None
    return f"must be {' or '.join(repr(m) for m in SEAT_MODES)} or a seat number >= 0"


@dataclass(frozen=True)
class TrainConfig(Config):
    """Everything a training run depends on (saved with its results)."""

    about = "Train a MaskablePPO agent on any registered env against an opponent, or by self-play."

    env: str = setting("iris_v0", check=registered_env, help="registered env name")
    env_kwargs: dict[str, Any] = setting(
        default_factory=dict,
        flags=("--param", "--env-arg"),
        metavar="K=V",
        help="game parameter, e.g. board_size=7; repeat",
    )
    timesteps: int = setting(100_000, low=0, help="PPO steps (0 with --imitate: imitation only)")
    opponent: str = setting(
        "random",
        check=not_blank,
        help="random | greedy | mcts | any agents.make_agent spec | a model .zip (a pickle: "
        "load only files you trust); a+b+...: a pool, one drawn per episode",
    )
    eval_opponent: str | None = setting(
        None, help="evaluation opponent; none: --opponent (the last one of an a+b pool)"
    )
    self_play_every: int = setting(
        0,
        low=0,
        flags=("--self-play-every", "--snapshot-every"),
        metavar="K",
        help="add a frozen snapshot of the learner to the opponent pool every K steps (0: none)",
    )
    pool_size: int = setting(
        10, low=0, help="most snapshots kept in the pool (plus the base opponent)"
    )
    learner_seat: str | int = setting(
        "alternate", check=_seat, help="alternate | random | a seat number"
    )
    reward: str = setting("own", choices=REWARD_MODES, help="learner's reward (see SingleAgentEnv)")
    reward_scale: float = setting(1.0, help="rewards are multiplied by it")
    n_envs: int = setting(4, low=1, help="parallel training envs")
    vec: str = setting("dummy", choices=VEC_KINDS, help="SB3 vectorized env kind")
    policy: str = setting(
        "mlp",
        choices=POLICIES,
        help="mlp | cnn (PlanesCNN over (H, W, C) planes) | cells (SectionsCNN over the board "
        "planes + MLP over the rest, with a per-cell action head)",
    )
    cnn_channels: int = setting(32, low=1, help="channels per conv layer")
    cnn_layers: int = setting(3, low=1, help="conv layers")
    footprint_head: bool = setting(
        False,
        help="with --policy cells: a placement's logit also reads every cell it covers, with "
        "queries from what is being placed (games that declare a cell_action_footprint: Irk)",
    )
    value_mixtures: int = setting(
        4,
        check=at_least(1),
        help="with --policy cells and a game's per-action values (Irk: --env-arg "
        "action_values=true): the head scores an action by the best of this many learned "
        "weightings of its values (at least 1)",
    )
    # the command line reads "256,256" (ppo.cli); a Python caller gives a tuple
    net_arch: tuple[int, ...] = setting(
        (256, 256), low=1, high=8192, cli=False, help="hidden layer sizes"
    )
    n_steps: int = setting(512, low=1, help="rollout steps per env")
    batch_size: int = setting(256, low=1, help="PPO minibatch size")
    n_epochs: int = setting(4, low=1, help="PPO epochs per rollout")
    learning_rate: float = setting(
        3e-4, low=0.0, flags=("--lr", "--learning-rate"), help="PPO learning rate"
    )
    ent_coef: float = setting(0.01, low=0.0, help="entropy bonus")
    gamma: float = setting(1.0, low=0.0, high=1.0, help="discount factor")
    gae_lambda: float = setting(0.95, low=0.0, high=1.0, help="GAE lambda")
    clip_range: float = setting(0.2, low=0.0, help="PPO clip range")
    eval_every: int = setting(20_000, low=0, help="steps between evaluations; 0: none")
    eval_games: int = setting(100, low=1, help="games per periodic evaluation")
    final_eval_games: int = setting(400, low=1, help="games of the final evaluation")
    final_eval_opponents: tuple[str, ...] | None = setting(
        (), metavar="SPEC", help="also evaluate the final model against these opponents"
    )
    init_model: str | None = setting(
        None,
        help="start from the weights of this saved model (.zip; the same network; a pickle: "
        "load only files you trust)",
    )
    imitate: str | None = setting(
        None,
        metavar="AGENT",
        help="behaviour-clone this agent (e.g. greedy; planner for Irk) before PPO "
        "(docs/training.md)",
    )
    imitate_episodes: int = setting(
        1000,
        check=at_least(1, " (imitation needs at least 1 episode)"),
        help="episodes per round (at least 1)",
    )
    imitate_rounds: int = setting(
        1,
        check=at_least(1, " (imitation needs at least 1 round)"),
        help="DAgger rounds (at least 1): after the first, the cloned policy plays and the expert "
        "labels",
    )
    imitate_epochs: int = setting(10, low=0, help="epochs per imitation round")
    imitate_epsilon: float = setting(
        0.1,
        low=0.0,
        high=1.0,
        help="share of random moves while recording the expert (the labels stay the expert's)",
    )
    imitate_workers: int = setting(
        1,
        check=at_least(1),
        help="processes recording the expert's episodes (first round; at least 1)",
    )
    imitate_lr: float = setting(1e-3, low=0.0, help="imitation learning rate")
    imitate_temperature: float | None = setting(
        None,
        check=positive,
        metavar="T",
        help="fit softmax(expert score / T) over the legal actions instead of the expert's best "
        "actions (an expert that scores every action: greedy); see docs/training.md",
    )
    eval_deterministic: bool = setting(
        True,
        help="evaluate the policy's most likely action (SB3's default); --eval-stochastic "
        "samples it",
    )
    seed: int = setting(0, low=0, high=SEED_HIGH, help="seed of the run")
    threads: int = setting(
        1, low=0, help="torch threads (0: torch's default); 1 is fastest for these small nets"
    )
    out: str = setting(
        "runs/latest",
        check=folder_problem,
        help="output folder (relative to the current folder, or absolute; made if missing)",
    )
    overwrite: bool = setting(
        False, help="replace an earlier run in --out (refused otherwise: nothing is lost)"
    )
    progress_bar: bool = setting(
        True, flags=("--progress", "--progress-bar"), help="show a progress bar"
    )
    verbose: int = setting(0, low=0, high=2, help="SB3 verbosity")

    def check(self) -> None:
        """Checks across fields: imitation-only runs, the footprint head's needs, and every agent
        the run will meet, made once now (an unknown spec or a missing model file is refused
        before training, not when the agent is first needed)."""
        check_new_run(self.out, RUN_FILES, overwrite=self.overwrite)
        if self.timesteps == 0 and not self.imitate:
            raise InvalidParameterError(
                "timesteps must be positive (or 0 with imitate: imitation only), got 0"
            )
        if self.footprint_head:
            if self.policy != "cells":
                raise InvalidParameterError(
                    f"footprint_head needs policy 'cells', got {self.policy!r}"
                )
            cell_footprint(self.env)
        if any(not part.strip() for part in self.opponent.split("+")):
            raise InvalidParameterError(
                f"opponent has an empty part, got {quote(self.opponent)}: give agent specs "
                "joined by + (e.g. random+greedy)"
            )
        if self.init_model:  # empty: none, as the run reads it
            problem = model_file_problem(self.init_model)
            if problem:
                raise InvalidParameterError(
                    f"init_model {problem}, got {quote_path(self.init_model)}"
                )
        game = probe_game(self.env, self.env_kwargs)
        self._check_seat_and_policy(game)
        # the agents as the run makes them: an empty eval_opponent means the last opponent, an
        # empty imitate no imitation
        agents = [("opponent", part) for part in self.opponent.split("+")]
        agents += [("eval_opponent", self.eval_opponent), ("imitate", self.imitate)]
        agents += [("final_eval_opponents", spec) for spec in self.final_eval_opponents or ()]
        named = [(field, agent_spec(spec)) for field, spec in agents if spec]
        check_agent_specs(self.env, game, named)

    def _check_seat_and_policy(self, game: GameState) -> None:
        """Refuse a learner seat the game does not have, and a CNN over a flat observation."""
        num_players = game.num_players
        seat = self.learner_seat
        if isinstance(seat, int) and seat >= num_players:
            raise InvalidParameterError(
                f"learner_seat must be 'alternate', 'random' or a seat 0..{num_players - 1} of "
                f"this {num_players}-player game, got {seat}"
            )
        if self.policy == "cnn":
            shape = tuple(game.spec.observation_shape)  # what the env's observation holds
            if len(shape) != 3:
                raise InvalidParameterError(
                    f"policy 'cnn' reads (H, W, C) board planes; {self.env}'s observation has "
                    f"shape {shape}: use policy 'mlp' or 'cells'"
                )

    def eval_opponent_spec(self) -> str:
        """Return the evaluation opponent: ``eval_opponent``, else the last of ``opponent``."""
        return self.eval_opponent or self.opponent.split("+")[-1]


def agent_spec(spec: str) -> str:
    """Return ``spec`` as a :func:`~tabletop_envs.agents.make_agent` spec: a path ending in
    ``.zip`` is a saved MaskablePPO model (``sb3:PATH``)."""
    if spec.endswith(".zip") and not spec.startswith("sb3:"):
        return f"sb3:{spec}"
    return spec


def cell_footprint(env_name: str) -> Any:
    """Return the game's ``cell_action_footprint`` (the cells each per-cell action covers).

    InvalidParameterError for a game that declares none (only Irk does: its placements cover
    3 cells).
    """
    game_class = env_spec(env_name).load_game()
    footprint = game_class.cell_action_footprint
    if footprint is None:
        raise InvalidParameterError(
            f"footprint_head: {env_name}: the game declares no cell_action_footprint; drop "
            "--footprint-head"
        )
    return footprint
