"""Shared helpers of the web tests: games played to their end through the API."""

from __future__ import annotations

from typing import Any

#: Small games that play fast: (env, params).
SMALL = {
    "iris_v0": {"board_size": 3},
    "isis_osiris_v0": {},
    "irk_v0": {"table_size": 9},
}


def play_out(client: Any, view: dict[str, Any], seat: int | None, token: str | None) -> dict:
    """Play ``view``'s game to its end: the first legal move for the seat, agents for others."""
    auth = {} if seat is None else {"seat": seat, "token": token}
    for _ in range(2000):
        if view["over"]:
            return view
        if view["your_turn"]:
            action = view["moves"][0]["action"]
            answer = client.post(f"/api/games/{view['id']}/move", json={**auth, "action": action})
        else:
            answer = client.post(f"/api/games/{view['id']}/step", json=auth)
        assert answer.status_code == 200, answer.json()
        view = answer.json()
    raise AssertionError("the game did not end")
