"""AlphaZero-style self-play training of a policy-value network (torch), shipped as a numpy file.

Command line (also ``tabletop-envs train --algo az``)::

    python -m tabletop_envs.training.az --env iris_v0 --iterations 20 --out runs/az_iris

Each iteration plays ``--games`` games against itself in lockstep: at every move, one
:func:`~tabletop_envs.agents.az.run_puct` call searches all the unfinished games' positions
together, so each simulation round evaluates the new leaves of every game's tree in one batched
forward pass. Moves follow the root visit counts (sampled for the first ``--temperature-moves``
moves of a game, the most visited after), with Dirichlet noise at the roots. Every searched
position becomes a training example (the seat's encoded observation, its legal mask, the visit
distribution and the game's final result from that seat's view); a bounded replay buffer keeps
the latest ones, and Adam minimizes cross-entropy to the visit distribution plus the squared
value error (plus L2 weight decay).

The network is a torch twin of :class:`~tabletop_envs.agents.az.PolicyValueNet` (same MLP),
exported after every iteration to ``model.npz`` in that class's format, so ``AZAgent`` plays
with numpy only; the periodic and final arena evaluations load that very file. ``--out`` also
gets ``checkpoint.pt`` (weights, optimizer, counters; ``--resume``), ``buffer.npz`` (the replay
buffer, unless ``--no-save-buffer``), ``results.json`` and ``winrate.png``. Needs the ``train``
extra (torch, tqdm, matplotlib); torch is imported only when a network is built.

The package, one concern a module (every name below is importable from here):

- ``config``: :class:`AZConfig`, every setting declared once (default, bounds, help, checks);
- ``cli``: the command line generated from it (:func:`build_parser`, :func:`main`);
- ``model``: the torch twin, its loss and Adam steps, the export to ``.npz``;
- ``buffer``: :class:`ReplayBuffer`; ``self_play``: lockstep self-play and value targets;
- ``warm_start``: a heuristic agent's games (:func:`expert_games`) fitted before self-play;
- ``checkpoint``: ``checkpoint.pt`` and ``buffer.npz``, resuming;
- ``evaluation``: the exported file in the arena, ``keep_best``, the plot;
- ``loop``: :func:`train_az`, the run in named steps.
"""

from __future__ import annotations

from tabletop_envs.search.values import VALUE_TARGETS, value_targets
from tabletop_envs.training.az.buffer import (
    AUTO_BUFFER_BYTES,
    AUTO_BUFFER_POSITIONS,
    ReplayBuffer,
    buffer_capacity,
    storage_dtype,
)
from tabletop_envs.training.az.checkpoint import (
    CHECKPOINT_FORMAT,
    CHECKPOINT_VERSION,
    RESUME_FIXED,
    RunState,
    load_checkpoint,
    save_buffer,
    save_checkpoint,
)
from tabletop_envs.training.az.cli import build_parser, config_from_args, main
from tabletop_envs.training.az.config import (
    DEFAULT_ITERATIONS,
    MODEL_DTYPES,
    OLD_NAMES,
    AZConfig,
    new_names,
)
from tabletop_envs.training.az.evaluation import (
    evaluate_file,
    format_eval,
    play_settings,
    plot_az,
    selection_score,
)
from tabletop_envs.training.az.loop import train_az
from tabletop_envs.training.az.model import (
    build_torch_net,
    export_npz,
    masked_priors,
    to_numpy_net,
    torch_evaluator,
    torch_forward,
    train_steps,
)
from tabletop_envs.training.az.self_play import (
    SelfPlayBatch,
    auto_dirichlet_alpha,
    self_play,
)
from tabletop_envs.training.az.warm_start import expert_games

__all__ = [
    "AUTO_BUFFER_BYTES",
    "AUTO_BUFFER_POSITIONS",
    "CHECKPOINT_FORMAT",
    "CHECKPOINT_VERSION",
    "DEFAULT_ITERATIONS",
    "MODEL_DTYPES",
    "OLD_NAMES",
    "RESUME_FIXED",
    "VALUE_TARGETS",
    "AZConfig",
    "ReplayBuffer",
    "RunState",
    "SelfPlayBatch",
    "auto_dirichlet_alpha",
    "buffer_capacity",
    "build_parser",
    "build_torch_net",
    "config_from_args",
    "evaluate_file",
    "expert_games",
    "export_npz",
    "format_eval",
    "load_checkpoint",
    "main",
    "masked_priors",
    "new_names",
    "play_settings",
    "plot_az",
    "save_buffer",
    "save_checkpoint",
    "selection_score",
    "self_play",
    "storage_dtype",
    "to_numpy_net",
    "torch_evaluator",
    "torch_forward",
    "train_az",
    "train_steps",
    "value_targets",
]
