"""What a page is sent about a position: one seat's picture, its moves and the result.

:func:`position_view` is a function of the position and the viewing seat only, built from
what the game offers that seat: its picture (``drawing(state, seat)``: its own hand in Irk, its
memory in Isis & Osiris), where its moves can be clicked (the picture's ``targets``) and which
are legal (the action mask, the one source of legality), with each move's name. Nothing else of
the state is sent, so nothing hidden can leak: a test redraws the other seats' hidden
information (``resample_hidden``) and finds the same view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec
from tabletop_envs.render.draw import to_svg
from tabletop_envs.replay import GameRecord
from tabletop_envs.watch import caption, frame, position_text


def picture(env_name: str, game: GameState, viewer: int | None) -> dict[str, Any]:
    """Return ``viewer``'s picture of ``game`` as SVG text with its size (an env without a
    picture: its text render, ``svg`` None)."""
    if env_spec(env_name).image is None:
        return {"svg": None, "text": game.render_text(viewer), "width": 0, "height": 0}
    drawing = env_spec(env_name).load_image()(game, viewer)
    return {"svg": to_svg(drawing), "width": drawing.width, "height": drawing.height}


def moves_view(env_name: str, game: GameState, seat: int) -> dict[str, Any]:
    """Return the moves of ``seat``, the seat to move: where to click and what is legal.

    ``targets``: every place of the picture where an action can be clicked, legal or not (an
    illegal one is sent when clicked, and the game says why); ``buttons``: the legal actions
    with no place on the picture (pass, reveal); ``moves``: every legal action with its name.
    """
    mask = game.legal_mask()
    legal = mask.nonzero()[0].tolist()
    find_targets = env_spec(env_name).load_targets()
    targets = [] if find_targets is None else find_targets(game, seat)
    placed = set()
    out_targets = []
    for target in targets:
        placed.add(target.action)
        data = target.to_dict()
        data["legal"] = bool(mask[target.action])
        data["label"] = game.action_to_string(target.action)
        out_targets.append(data)
    named = [{"action": a, "label": game.action_to_string(a)} for a in legal]
    return {
        "targets": out_targets,
        "buttons": [m for m in named if m["action"] not in placed],
        "moves": named,
    }


def result_view(game: GameState, viewer: int | None) -> dict[str, Any] | None:
    """Return the result of a finished game: returns, the game's result details and its
    closing line (who won and why, in the game's words), or None while it goes on."""
    if not game.is_terminal:
        return None
    lines = game.render_text(viewer).splitlines()
    return {
        "returns": [float(r) for r in game.returns()],
        "info": _plain(game.result_info()),
        "summary": lines[-1] if lines else "",
    }


def position_view(
    env_name: str, game: GameState, viewer: int | None, may_move: bool
) -> dict[str, Any]:
    """Return what ``viewer`` (a seat, or None for a spectator) is sent about ``game``.

    ``may_move``: the viewer plays its seat from the page, so its moves are sent when it is to
    move.
    """
    to_move = None if game.is_terminal else game.current_player
    view: dict[str, Any] = {
        "picture": picture(env_name, game, viewer),
        "move_number": len(game.actions),
        "to_move": to_move,
        "over": game.is_terminal,
        "result": result_view(game, viewer),
        "your_turn": bool(may_move and viewer is not None and viewer == to_move),
    }
    if view["your_turn"]:
        view.update(moves_view(env_name, game, game.current_player))
    return view


def record_view(record: GameRecord, states: Sequence[GameState], k: int) -> dict[str, Any]:
    """Return position ``k`` of a record as ``watch`` draws it: the frame with its caption."""
    state = states[k]
    last = len(states) - 1
    if env_spec(record.env).image is None:
        shown = {"svg": None, "text": position_text(record, states, k), "width": 0, "height": 0}
    else:
        drawing = frame(record, states, k)
        shown = {"svg": to_svg(drawing), "width": drawing.width, "height": drawing.height}
    return {
        "env": record.env,
        "agents": list(record.agents),
        "position": k,
        "last": last,
        "caption": caption(record, states, k),
        "picture": shown,
        "result": result_view(state, None) if k == last and state.is_terminal else None,
    }


def _plain(value: Any) -> Any:
    """Return ``value`` as JSON data (numpy scalars and arrays as numbers and lists)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


__all__ = ["moves_view", "picture", "position_view", "record_view", "result_view"]
