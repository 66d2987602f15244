"""What a game declares about itself, in its own folder: :class:`EnvSpec` and :class:`MoveSyntax`.

Each game package (``tabletop_envs/games/<game>/__init__.py``, or a user's own package) holds
an ``EnvSpec`` naming its rules, picture, heuristics, move syntax, score key and Gymnasium id;
the env registry (:mod:`tabletop_envs.envs.registry`) collects them. Everything is named by
``"module:attribute"`` paths, imported on first use, so declaring or listing envs imports no
game code.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tabletop_envs.core.game import GameState

#: ``parser(game, text) -> action id``, ``None`` when the text is not in the game's syntax;
#: ValueError with a message when it is, but names no valid move (e.g. off the board).
MoveParser = Callable[["GameState", str], "int | None"]

#: ``announcer(game, action, viewer) -> text``: the move ``action`` of the seat to move in
#: ``game`` (before it is played) as seat ``viewer`` may see it, e.g. ``"plays c2"``.
MoveAnnouncer = Callable[["GameState", int, int], str]


@dataclass(frozen=True)
class MoveSyntax:
    """How a person types a game's moves: a parser, a one-line hint, an optional announcer."""

    parser: MoveParser
    hint: str = ""
    announcer: MoveAnnouncer | None = None


@dataclass(frozen=True)
class EnvSpec:
    """How to build one registered env, and what its game knows about itself.

    ``game`` and ``image`` are ``"module:attribute"`` paths, imported on first use; ``image``
    builds a state's :class:`~tabletop_envs.render.draw.Drawing` (the ``rgb_array`` and
    ``svg`` pictures). ``test_params`` are the parameter sets the conformance suite runs (the
    defaults first). ``heuristics`` maps a heuristic kind (``"greedy"``, ``"planner"``) to the
    ``"module:function"`` scoring the legal actions (see :mod:`tabletop_envs.agents.greedy`);
    ``moves`` names the game's :class:`MoveSyntax`; ``score_key`` is the ``result_info()`` key
    holding each seat's final score, for games that have scores beyond win/loss;
    ``gym_id`` is the Gymnasium id of the single-agent view (registered with the env).
    ``results`` names ``result_arrays(game) -> {key: array}``: the end of the game as arrays
    whose keys, shapes and dtypes depend only on the parameters (zeros before the end), which
    the envs put in every agent's infos at every step; None puts no result in the infos.
    ``targets`` names ``targets(state, seat)``, where the picture's moves can be clicked (a list
    of :class:`~tabletop_envs.render.targets.Target`; the web app plays by them). ``frame``
    names ``frame_size(params) -> (height, width)``: the one size of the env's ``rgb_array``
    and ``svg`` frames for those parameters (a picture drawn larger is scaled down to fit, a
    smaller one padded), so a video or a window gets frames of one shape; None: each frame has
    its drawing's size.
    """

    name: str
    game: str
    image: str | None = None
    description: str = ""
    test_params: tuple[dict[str, Any], ...] = field(default_factory=lambda: ({},))
    helpers: tuple[str, ...] = ()  # core methods the env offers too (e.g. action_to_coord)
    heuristics: Mapping[str, str] = field(default_factory=dict)
    moves: str | None = None
    score_key: str | None = None
    gym_id: str | None = None
    results: str | None = None
    targets: str | None = None
    frame: str | None = None

    def load_game(self) -> type[GameState]:
        """Return the game's :class:`~tabletop_envs.core.GameState` subclass."""
        return load(self.game)

    def load_image(self) -> Any:
        """Return the function describing a state's picture (a ``Drawing``)."""
        if self.image is None:
            raise ValueError(f"{self.name} has no picture (rgb_array and svg renderer)")
        return load(self.image)

    def load_results(self) -> Callable[[GameState], dict[str, Any]] | None:
        """Return the game's ``result_arrays`` function, or None when it declares none."""
        return None if self.results is None else load(self.results)

    def load_targets(self) -> Any:
        """Return the function listing where the picture's moves are (None when not declared)."""
        return None if self.targets is None else load(self.targets)

    def load_frame(self) -> Callable[[Any], tuple[int, int]] | None:
        """Return the game's ``frame_size(params)``, or None when it declares none."""
        return None if self.frame is None else load(self.frame)

    def load_moves(self) -> MoveSyntax | None:
        """Return the game's move syntax, or None when it declares none."""
        return None if self.moves is None else load(self.moves)


def load(path: str) -> Any:
    """Import ``"module:attribute"`` and return the attribute."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)
