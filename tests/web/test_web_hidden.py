"""Hidden information stays on the server: what a seat's page is sent does not change when the
other seats' hidden information is redrawn (``resample_hidden``, the games' own determinizer),
and the moves are sent as announced to that seat (another seat's secret choice stays secret).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_envs.web.views import position_view
from tests.conformance.cases import new_game, random_action

HIDDEN = [
    ("irk_v0", {"table_size": 9}),
    ("irk_v0", {"num_players": 3, "table_size": 9}),
    ("isis_osiris_v0", {}),
    ("isis_osiris_v0", {"num_players": 3, "memory": True}),
]


def _sent(view) -> str:
    return json.dumps(view, sort_keys=True)


@pytest.mark.parametrize(("env", "params"), HIDDEN)
def test_a_seats_view_is_unchanged_when_the_others_hidden_information_is_redrawn(env, params):
    game = new_game(env, params, seed=11)
    rng = np.random.default_rng(0)
    checked = 0
    while not game.is_terminal:
        if len(game.actions) % 2 == 0:
            for seat in range(game.num_players):
                sent = _sent(position_view(env, game, seat, may_move=True))
                for _ in range(3):
                    other = game.resample_hidden(seat, rng)
                    assert _sent(position_view(env, other, seat, may_move=True)) == sent
                checked += 1
        game.apply(random_action(game, rng))
    assert checked > 10


def test_the_view_does_depend_on_what_the_seat_itself_holds():
    """The check above can fail: redrawing what the seat holds (its own hand) changes its view."""
    game = new_game("irk_v0", {"table_size": 9}, seed=11)
    sent = _sent(position_view("irk_v0", game, 0, may_move=True))
    other = game.resample_hidden(1, np.random.default_rng(0))  # player_1's draw redeals hand 0
    assert other.hands[0] != game.hands[0]
    assert _sent(position_view("irk_v0", other, 0, may_move=True)) != sent


def _irk_against_random(client):
    """Start a small Irk game, ``random`` in seat 0 and a person in seat 1; return its view."""
    return client.post(
        "/api/games",
        json={
            "env": "irk_v0",
            "params": {"table_size": 9},
            "seats": ["random", "human"],
            "seed": 4,
        },
    ).json()


def test_a_page_gets_the_same_answer_when_the_server_redraws_the_others_tiles(client, store):
    view = _irk_against_random(client)
    auth = {"seat": 1, "token": view["tokens"]["1"]}
    gid = view["id"]
    session = store.game(gid)
    rng = np.random.default_rng(1)
    for _ in range(12):
        before = client.get(f"/api/games/{gid}", params=auth).json()
        session.env.game = session.game.resample_hidden(1, rng)
        assert client.get(f"/api/games/{gid}", params=auth).json() == before
        if before["your_turn"]:
            client.post(
                f"/api/games/{gid}/move", json={**auth, "action": before["moves"][0]["action"]}
            )
        else:
            client.post(f"/api/games/{gid}/step", json=auth)


def test_another_seats_secret_choice_is_announced_as_a_choice(client):
    view = _irk_against_random(client)
    auth = {"seat": 1, "token": view["tokens"]["1"]}
    stepped = client.post(f"/api/games/{view['id']}/step", json=auth).json()
    assert stepped["history"] == [{"number": 1, "seat": 0, "text": "chose a tile"}]
    assert "#" not in json.dumps(stepped["history"])
