"""The web app's JSON API under Starlette's test client: every endpoint and every error.

A refused request gets a 4xx status and ``{"error": message}`` saying what was wrong, and
changes nothing (the game's view is the same before and after).
"""

from __future__ import annotations

import json

import pytest

from tabletop_envs.replay import MAX_RECORD_BYTES, GameRecord
from tabletop_envs.watch import watch
from tabletop_envs.web.app import MAX_JSON_BYTES
from tabletop_envs.web.config import ServeConfig
from tabletop_envs.web.sessions import KEPT_EVERY
from tabletop_envs.web.views import record_view
from tests.web.helpers import SMALL, play_out


def error(answer, status: int) -> str:
    assert answer.status_code == status, (answer.status_code, answer.text)
    message = answer.json()["error"]
    assert isinstance(message, str) and message
    return message


def new(client, env="iris_v0", params=None, seats=("human", "random"), seed=1):
    body = {"env": env, "params": SMALL[env] if params is None else params, "seed": seed}
    if seats is not None:
        body["seats"] = list(seats)
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def seat_view(client, view, seat=0):
    token = view["tokens"][str(seat)]
    answer = client.get(f"/api/games/{view['id']}", params={"seat": seat, "token": token})
    assert answer.status_code == 200, answer.text
    return answer.json()


# ---- the page and the catalogue ------------------------------------------------------------
def test_the_page_and_its_modules_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and 'src="/static/main.js"' in page.text
    for name in ("main.js", "api.js", "board.js", "game.js", "setup.js", "replay.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200, name
    assert client.get("/static/nope.js").status_code == 404


def test_envs_lists_each_env_with_its_parameters_and_default_seats(client):
    data = client.get("/api/envs").json()
    envs = {e["name"]: e for e in data["envs"] if e["name"] in SMALL}
    assert sorted(envs) == ["iris_v0", "irk_v0", "isis_osiris_v0"]
    assert envs["iris_v0"]["params"] == [
        {"name": "board_size", "kind": "int", "default": 5},
        {"name": "auto_forced", "kind": "bool", "default": False},
    ]
    deck = next(p for p in envs["irk_v0"]["params"] if p["name"] == "deck")
    assert deck["kind"] == "list" and len(deck["default"]) == 30
    for env in envs.values():  # a person against the packaged expert
        assert env["seats"] == ["human", "expert"] and env["clickable"]
    assert {"random", "greedy", "mcts", "expert"} <= set(data["agents"])


def test_setup_counts_the_seats_of_the_parameters(client):
    answer = client.post("/api/setup", json={"env": "irk_v0", "params": {"num_players": 3}})
    assert answer.json()["seats"] == ["human", "expert", "expert"]  # a 3-player network
    answer = client.post("/api/setup", json={"env": "isis_osiris_v0", "params": {"num_players": 4}})
    assert answer.json()["seats"] == ["human", "expert", "expert", "expert"]  # and a 4-player one
    answer = client.post("/api/setup", json={"env": "iris_v0", "params": {"board_size": 4}})
    # no packaged expert plays side 4: the strongest agent that does is greedy
    assert answer.json()["seats"] == ["human", "greedy"]
    answer = client.post("/api/setup", json={"env": "irk_v0", "params": {"table_size": 9}})
    assert answer.json()["seats"] == ["human", "planner"]  # Irk's strongest heuristic
    message = error(
        client.post("/api/setup", json={"env": "isis_osiris_v0", "params": {"num_players": 9}}), 400
    )
    assert "num_players" in message and "2" in message and "4" in message
    assert "unknown env" in error(client.post("/api/setup", json={"env": "chess"}), 400)
    assert "env is the name" in error(client.post("/api/setup", json={"env": 3}), 400)


# ---- making a game ---------------------------------------------------------------------------
def test_an_agent_whose_network_cannot_play_the_game_is_refused_at_once(client):
    body = {"env": "iris_v0", "params": {"board_size": 4}}
    view = new(client, **body, seats=None)  # default seats: agents that play side 4
    assert [s["agent"] for s in view["seats"]] == ["human", "greedy"]
    message = error(client.post("/api/games", json={**body, "seats": ["expert", "human"]}), 400)
    assert "seat 0 (expert) cannot play this game" in message and "board_size" in message


def test_a_new_game_answers_with_the_first_human_seat_and_its_token(client):
    view = new(client, "irk_v0")
    assert view["viewer"] == 0 and set(view["tokens"]) == {"0"}
    assert view["seats"][1] == {"seat": 1, "agent": "random", "human": False}
    assert view["picture"]["svg"].startswith("<svg") and view["your_turn"]
    assert view["params"]["table_size"] == 9 and view["move_number"] == 0
    assert {t["group"] for t in view["targets"]} == {"a tile of your hand"}
    assert all(t["legal"] for t in view["targets"]) and len(view["targets"]) == 7


def test_default_seats_are_a_person_against_the_expert(client):
    answer = client.post("/api/games", json={"env": "isis_osiris_v0"})
    assert answer.status_code == 201
    assert [s["agent"] for s in answer.json()["seats"]] == ["human", "expert"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"env": "chess_v0"}, "unknown env 'chess_v0'; registered envs: iris_v0"),
        ({"env": None}, "env is the name of a registered env"),
        ({"env": "iris_v0", "params": {"board_size": 2}}, "board_size"),
        ({"env": "iris_v0", "params": {"board_size": "big"}}, "board_size"),
        (
            {"env": "iris_v0", "params": {"size": 5}},
            "iris_v0 has no parameter 'size'; its parameters",
        ),
        ({"env": "iris_v0", "params": [5]}, "params is a JSON object"),
        ({"env": "irk_v0", "params": {"deck": ["G3 . ."]}}, "deck"),
        ({"env": "iris_v0", "seats": ["human"]}, "one entry per seat (2)"),
        ({"env": "iris_v0", "seats": ["human", "wizard"]}, "unknown agent 'wizard'"),
        ({"env": "iris_v0", "seats": ["human", "mcts:depth=3"]}, "bad option"),
        ({"env": "iris_v0", "seats": ["human", 7]}, "a seat is 'human' or an agent spec"),
        ({"env": "iris_v0", "seats": ["human", "x" * 1001]}, "at most 1000 characters"),
        ({"env": "iris_v0", "seed": -1}, "seed is an integer"),
        ({"env": "iris_v0", "seed": "one"}, "seed is an integer"),
        ({"env": "iris_v0", "seed": str(2**63)}, "seed is an integer from 0 to 2**63 - 1"),
        ({"env": "iris_v0", "seed": " 7"}, "(or its decimal text), got ' 7'"),
        ({"env": "iris_v0", "colour": "red"}, "unknown field(s) ['colour']"),
    ],
)
def test_a_bad_new_game_is_refused_saying_why(client, store, body, words):
    assert words in error(client.post("/api/games", json=body), 400)
    assert store.sessions == {}


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"{not json", "the request body is not JSON"),
        (b"[1, 2]", "the request body is a JSON object"),
        (
            b'{"env": {"a": {"b": {"c": {"d": {"e": {"f": {"g": {}}}}}}}}}',
            "the request body nests deeper than 8 levels",
        ),
        (b"\xff\xfe", "not JSON"),
        (b"", "not JSON"),
    ],
)
def test_malformed_json_is_refused(client, store, raw, words):
    answer = client.post("/api/games", content=raw, headers={"Content-Type": "application/json"})
    assert words in error(answer, 400)
    assert store.sessions == {}


@pytest.mark.parametrize(
    "kind", [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)
def test_a_body_posted_as_a_form_or_text_is_refused(client, store, kind):
    # what a page of another site can post here without a CORS preflight: a game whose seats
    # load files of this machine (az:, sb3:, rllib:) must not start from it
    body = json.dumps({"env": "iris_v0", "seats": ["random", "random"]})
    headers = {} if kind is None else {"Content-Type": kind}
    answer = client.post("/api/games", content=body, headers=headers)
    assert "Content-Type: application/json" in error(answer, 415)
    assert store.sessions == {}
    json_kind = {"Content-Type": "application/json; charset=utf-8"}
    assert client.post("/api/games", content=body, headers=json_kind).status_code == 201


@pytest.mark.parametrize("kind", [None, "text/plain", "multipart/form-data"])
def test_a_record_posted_as_a_form_or_text_is_refused(client, store, kind):
    record = watch("iris_v0", ["greedy", "random"], seed=2, env_kwargs={"board_size": 3})
    headers = {} if kind is None else {"Content-Type": kind}
    answer = client.post("/api/replays", content=record.to_json(), headers=headers)
    assert "a game record is JSON sent with Content-Type: application/json" in error(answer, 415)
    assert store.sessions == {}


def test_an_oversized_body_is_refused_unread(client, store):
    body = json.dumps({"env": "iris_v0", "pad": "x" * MAX_JSON_BYTES})
    assert "at most 65536 bytes" in error(client.post("/api/games", content=body), 413)
    assert store.sessions == {}


def test_the_store_refuses_games_past_its_limit(client, store):
    store.limit = 1
    new(client)
    assert "1 games and records are open" in error(
        client.post("/api/games", json={"env": "iris_v0"}), 503
    )


# ---- seeing a game ---------------------------------------------------------------------------
def test_a_seat_sees_its_game_with_its_token_only(client):
    view = new(client, "irk_v0")
    gid, token = view["id"], view["tokens"]["0"]
    assert seat_view(client, view)["viewer"] == 0
    assert "wrong or missing token" in error(
        client.get(f"/api/games/{gid}", params={"seat": 0, "token": "guess"}), 403
    )
    assert "wrong or missing token" in error(client.get(f"/api/games/{gid}?seat=0"), 403)
    assert "played by the agent 'random'" in error(
        client.get(f"/api/games/{gid}", params={"seat": 1, "token": token}), 403
    )
    assert "only games between agents have spectators" in error(
        client.get(f"/api/games/{gid}"), 403
    )
    assert "seat is a seat number" in error(client.get(f"/api/games/{gid}?seat=x"), 400)
    assert "seat must be an integer from 0 to 1" in error(
        client.get(f"/api/games/{gid}?seat=5&token={token}"), 400
    )


def test_an_unknown_or_expired_game_is_404(client, clock):
    assert "no game with id 'nope'" in error(client.get("/api/games/nope?seat=0"), 404)
    view = new(client)
    clock.now += 601  # idle for longer than the store keeps games
    message = error(client.get(f"/api/games/{view['id']}", params={"seat": 0, "token": "t"}), 404)
    assert "unused for 10 minutes" in message


def test_using_a_game_keeps_it(client, clock):
    view = new(client)
    for _ in range(3):
        clock.now += 500
        seat_view(client, view)


def test_unknown_routes_and_methods_answer_json(client):
    assert "Not Found" in error(client.get("/api/nothing"), 404)
    assert "Method Not Allowed" in error(client.get("/api/games"), 405)
    assert client.get("/nothing").status_code == 404


# ---- moves ----------------------------------------------------------------------------------
def test_a_person_moves_by_action_id_or_by_the_games_move_syntax(client):
    view = new(client, seats=("human", "human"))
    gid, tokens = view["id"], view["tokens"]
    answer = client.post(
        f"/api/games/{gid}/move", json={"seat": 0, "token": tokens["0"], "move": "0 0"}
    )
    assert answer.status_code == 200
    moved = answer.json()
    assert moved["move_number"] == 1 and moved["history"] == [
        {"number": 1, "seat": 0, "text": "plays (0, 0)"}
    ]
    assert not moved["your_turn"] and moved["to_move"] == 1
    one = seat_view(client, view, 1)
    assert one["your_turn"] and one["history"][0]["text"] == "plays (0, 0)"


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"action": 0}, 400, "illegal move"),  # off the board
        ({"action": 10**6}, 400, "action is an action id from 0 to"),
        ({"action": "3"}, 400, "action is an action id"),
        ({"action": True}, 400, "action is an action id"),
        ({}, 400, "action is an action id"),
        ({"move": "pass"}, 400, "Black may not pass on the opening turn"),
        ({"move": "9 9"}, 400, "cell (q=9, r=9) is off a board of side 3"),
        ({"move": "hello"}, 400, "cannot read 'hello' as a move"),
        ({"move": "legal"}, 400, "; the seat's view lists the legal moves ('moves', on its turn)"),
        ({"move": " "}, 400, "no move given; the seat's view lists the legal moves"),
        ({"move": 12}, 400, "move is a text"),
    ],
)
def test_a_bad_move_is_refused_and_changes_nothing(client, body, status, words):
    view = new(client)
    before = seat_view(client, view)
    auth = {"seat": 0, "token": view["tokens"]["0"]}
    assert words in error(
        client.post(f"/api/games/{view['id']}/move", json={**auth, **body}), status
    )
    assert seat_view(client, view) == before


def test_a_move_chosen_on_a_position_the_game_has_moved_past_is_refused(client):
    """Two pages of one game: the one left behind sends the move number it showed."""
    view = new(client, "isis_osiris_v0", seats=("human", "human"))
    gid, tokens = view["id"], view["tokens"]
    for seat, square in ((0, "stone f6"), (1, "stone f5")):  # the other page plays
        body = {"seat": seat, "token": tokens[str(seat)], "move": square, "move_number": seat}
        assert client.post(f"/api/games/{gid}/move", json=body).status_code == 200
    before = seat_view(client, view)
    stale = {"seat": 0, "token": tokens["0"], "move": "stone a1", "move_number": 0}
    message = error(client.post(f"/api/games/{gid}/move", json=stale), 409)
    assert message == (
        "the game has moved on since move 0 (another page played; it is at move 2): "
        "nothing was played, look again"
    )
    assert "move_number is the view's move_number, got '2'" in error(
        client.post(f"/api/games/{gid}/move", json={**stale, "move_number": "2"}), 400
    )
    assert seat_view(client, view) == before
    played = client.post(f"/api/games/{gid}/move", json={**stale, "move_number": 2})
    assert played.status_code == 200 and played.json()["move_number"] == 3


def test_an_illegal_click_is_explained_in_the_rules_words(client):
    view = new(client)
    colored = next(t for t in view["targets"] if not t["legal"])
    auth = {"seat": 0, "token": view["tokens"]["0"]}
    message = error(
        client.post(f"/api/games/{view['id']}/move", json={**auth, "action": colored["action"]}),
        400,
    )
    assert message == (
        f"illegal move {colored['label']}: Black's opening stone must go on a gray cell; "
        f"{colored['label']} is colored"
    )


def test_moves_out_of_turn_by_agents_or_while_thinking_are_refused(client, store):
    view = new(client, seats=("human", "human"))
    gid, tokens = view["id"], view["tokens"]
    one = {"seat": 1, "token": tokens["1"]}
    assert "it is player_0's move, not player_1's" in error(
        client.post(f"/api/games/{gid}/move", json={**one, "action": 12}), 409
    )
    assert "player_0 is a human seat" in error(client.post(f"/api/games/{gid}/step", json=one), 409)
    store.game(gid).thinking = True
    zero = {"seat": 0, "token": tokens["0"]}
    assert "an agent is thinking" in error(
        client.post(f"/api/games/{gid}/move", json={**zero, "action": 12}), 409
    )
    assert "ask as a seat with its token" in error(
        client.post(f"/api/games/{gid}/move", json={"action": 12}), 403
    )


def test_an_agent_moves_when_asked_and_a_finished_game_refuses_moves(client):
    view = new(client, "isis_osiris_v0", seats=("random", "human"))
    auth = {"seat": 1, "token": view["tokens"]["1"]}
    assert view["agent_to_move"] and not view["your_turn"]
    stepped = client.post(f"/api/games/{view['id']}/step", json=auth).json()
    assert stepped["move_number"] == 1 and stepped["history"][0]["seat"] == 0
    end = play_out(client, stepped, 1, auth["token"])
    assert end["result"]["summary"].startswith("game over: scores")
    assert "the game is over" in error(client.post(f"/api/games/{view['id']}/step", json=auth), 409)
    assert "the game is over" in error(
        client.post(f"/api/games/{view['id']}/move", json={**auth, "action": 0}), 409
    )


@pytest.mark.parametrize("env", sorted(SMALL))
def test_every_env_plays_to_its_end_with_a_result_and_why(client, env):
    view = new(client, env)
    end = play_out(client, view, 0, view["tokens"]["0"])
    result = end["result"]
    assert len(result["returns"]) == 2 and result["summary"].startswith("game over")
    assert result["info"] and end["over"] and not end["your_turn"] and "targets" not in end


def test_a_game_between_agents_has_a_spectator(client):
    view = new(client, seats=("random", "greedy"))
    assert view["viewer"] is None and view["tokens"] == {} and view["agent_to_move"]
    end = play_out(client, view, None, None)
    assert end["over"] and end["history"][0]["text"].startswith("plays (")


# ---- records ------------------------------------------------------------------------------
def test_the_record_is_sent_once_a_game_with_a_person_is_over(client):
    view = new(client, "irk_v0")
    gid, token = view["id"], view["tokens"]["0"]
    assert not view["record"]
    assert "once the game is over" in error(
        client.get(f"/api/games/{gid}/record", params={"seat": 0, "token": token}), 409
    )
    assert "once the game is over" in error(
        client.post(f"/api/games/{gid}/replay", json={"seat": 0, "token": token}), 409
    )
    end = play_out(client, view, 0, token)
    assert end["record"]
    answer = client.get(f"/api/games/{gid}/record", params={"seat": 0, "token": token})
    assert answer.status_code == 200
    assert f'filename="irk_v0-{gid}.json"' in answer.headers["content-disposition"]
    record = GameRecord.from_json(answer.text)
    assert record.agents == ("human", "random") and len(record.actions) == end["move_number"]
    assert "wrong or missing token" in error(client.get(f"/api/games/{gid}/record?seat=0"), 403)


def test_a_game_between_agents_sends_its_record_at_any_time(client):
    view = new(client, "isis_osiris_v0", seats=("random", "random"))
    client.post(f"/api/games/{view['id']}/step")
    record = GameRecord.from_json(client.get(f"/api/games/{view['id']}/record").text)
    assert len(record.actions) == 1
    replay = client.post(f"/api/games/{view['id']}/replay")
    assert replay.status_code == 201 and replay.json()["last"] == 1


def post_record(client, text):
    """POST a record file as the page does (``application/json``)."""
    return client.post("/api/replays", content=text, headers={"Content-Type": "application/json"})


def test_a_record_file_is_stepped_through(client):
    record = watch("iris_v0", ["greedy", "random"], seed=2, env_kwargs={"board_size": 3})
    answer = post_record(client, record.to_json())
    assert answer.status_code == 201
    first = answer.json()
    last = len(record.actions)
    assert first["position"] == 0 and first["last"] == last and first["result"] is None
    assert first["caption"] == f"iris_v0 seed {record.seed}: greedy vs random"
    rid = first["id"]
    one = client.get(f"/api/replays/{rid}/1").json()
    assert one["caption"].startswith("move 1: P0 greedy:")
    end = client.get(f"/api/replays/{rid}/{last}").json()
    assert end["result"]["returns"] == record.result["returns"]
    for bad in (str(last + 1), "-1", "x"):
        assert "positions run from 0 to" in error(client.get(f"/api/replays/{rid}/{bad}"), 404)
    assert "no record with id 'nope'" in error(client.get("/api/replays/nope/0"), 404)


def test_games_against_the_expert_share_its_network(client, store):
    """The store holds up to --max-games games: each must not hold its own copy of the
    expert's network (11 MB for Irk's)."""
    import tracemalloc

    new(client, "irk_v0", params={}, seats=None)  # the network is loaded once, here
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        views = [new(client, "irk_v0", params={}, seats=None, seed=s) for s in range(3)]
        kept = (tracemalloc.get_traced_memory()[0] - before) / 3
    finally:
        tracemalloc.stop()
    assert all(v["seats"][1]["agent"] == "expert" for v in views)
    assert kept < 2**20, f"a game against the Irk expert keeps {kept / 2**20:.1f} MB"


def test_a_record_being_stepped_through_keeps_little_memory(client, store):
    """A long game's positions are not all kept: 100 open records must not fill the memory."""
    import tracemalloc

    record = watch("iris_v0", ["random", "random"], seed=1, env_kwargs={"board_size": 16})
    assert len(record.actions) > 500
    text = record.to_json()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        answer = post_record(client, text)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert answer.status_code == 201
    assert kept < 3 * 2**20, f"one record being stepped through keeps {kept / 2**20:.1f} MB"


def test_every_position_of_a_record_is_the_game_replayed_to_it(client, store):
    record = watch(
        "isis_osiris_v0", ["random", "greedy", "random"], seed=4, env_kwargs={"num_players": 3}
    )
    rid = post_record(client, record.to_json()).json()["id"]
    states = record.positions()
    assert len(states) > KEPT_EVERY * 1.5  # some positions are rebuilt from a kept one
    for k in (0, 1, KEPT_EVERY - 1, KEPT_EVERY, KEPT_EVERY + 5, len(states) - 1):
        want = record_view(record, states, k)
        assert client.get(f"/api/replays/{rid}/{k}").json() == {**want, "id": rid}
    positions = store.replay(rid).states
    assert [s.actions for s in positions[-3:]] == [s.actions for s in states[-3:]]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("garbage", "not a valid game record: a game record is JSON"),
        ("[]", "a game record is a JSON object"),
        ('{"format": "x"}', "a game record has exactly the keys"),
        ("\udcff".encode("utf-8", "surrogatepass"), "a game record is JSON"),
    ],
)
def test_a_bad_record_file_is_refused(client, store, text, words):
    assert words in error(post_record(client, text), 400)
    assert store.sessions == {}


def test_a_tampered_record_is_refused(client):
    record = watch("iris_v0", ["greedy", "random"], seed=2, env_kwargs={"board_size": 3})
    data = json.loads(record.to_json())
    data["result"]["returns"] = [0.0, 0.0]
    message = error(post_record(client, json.dumps(data)), 400)
    assert "disagrees with the replayed game" in message
    data = json.loads(record.to_json())
    data["actions"][0] = 10**9
    assert "step 0" in error(post_record(client, json.dumps(data)), 400)


def test_an_oversized_record_is_refused_unread(client, store):
    body = b" " * (MAX_RECORD_BYTES + 1)
    assert "a game record is at most" in error(post_record(client, body), 413)

    def chunks():  # no Content-Length: counted as it arrives
        for _ in range(MAX_RECORD_BYTES // 2**20 + 1):
            yield b" " * 2**20

    assert "a game record is at most" in error(post_record(client, chunks()), 413)
    assert store.sessions == {}


def test_a_game_without_hidden_information_sends_its_record_at_any_time(client):
    view = new(client, "iris_v0")
    assert view["record"]
    auth = {"seat": 0, "token": view["tokens"]["0"]}
    answer = client.get(f"/api/games/{view['id']}/record", params=auth)
    assert GameRecord.from_json(answer.text).actions == ()


def test_an_agent_whose_file_cannot_be_read_is_refused(client, store):
    from tabletop_envs.agents.registry import _FACTORIES, register_agent

    def missing(args, env, seed):
        raise FileNotFoundError(f"no model file {args!r}")

    register_agent("filed", missing)
    try:
        body = {"env": "iris_v0", "seats": ["human", "filed:/nowhere.zip"]}
        assert "no model file '/nowhere.zip'" in error(client.post("/api/games", json=body), 400)
        body["seats"][1] = "az:/nowhere.npz"
        assert "no network file at /nowhere.npz" in error(client.post("/api/games", json=body), 400)
    finally:
        del _FACTORIES["filed"]
    assert store.sessions == {}


def test_a_fault_of_the_server_is_a_json_500(store, monkeypatch):
    from starlette.testclient import TestClient

    from tabletop_envs.web import app as web_app

    def broken():
        raise RuntimeError("a bug")

    monkeypatch.setattr(web_app, "catalogue", broken)
    app = web_app.create_app(store=store)
    with TestClient(app, raise_server_exceptions=False, base_url="http://localhost") as client:
        assert error(client.get("/api/envs"), 500) == "the server failed: RuntimeError: a bug"


@pytest.mark.parametrize(
    ("host", "allowed", "host_header", "answered"),
    [
        ("127.0.0.1", (), "127.0.0.1:8000", True),
        ("127.0.0.1", (), "localhost:8000", True),
        ("127.0.0.1", (), "[::1]:8000", True),
        ("127.0.0.1", (), "LOCALHOST", True),
        ("127.0.0.1", (), "rebound.example:8000", False),  # a DNS rebinding page's name
        ("127.0.0.1", (), "127.0.0.1.rebound.example", False),
        ("127.0.0.1", (), "", False),
        ("127.0.0.1", ("games.example",), "games.example", True),  # behind a proxy
        ("::1", (), "[::1]:8000", True),
        ("::1", (), "rebound.example", False),
        ("0.0.0.0", (), "192.168.1.20:8000", True),  # on the network: any name reaching it
        ("0.0.0.0", ("games.example",), "192.168.1.20:8000", False),
        ("0.0.0.0", ("games.example",), "games.example:8000", True),
    ],
)
def test_a_server_on_this_machine_answers_only_to_its_own_names(
    store, host, allowed, host_header, answered
):
    """A page of another site whose name a DNS rebinding points at 127.0.0.1 is same-origin
    for the browser: without this check it could start games whose seats load files here."""
    from starlette.testclient import TestClient

    from tabletop_envs.web import app as web_app

    config = ServeConfig(host=host, allowed_hosts=allowed)
    with TestClient(web_app.create_app(config, store)) as client:
        got = client.get("/api/envs", headers={"host": host_header})
        page = client.get("/", headers={"host": host_header})
    if answered:
        assert got.status_code == 200 and page.status_code == 200
    else:
        assert page.status_code == 400
        message = error(got, 400)
        assert message.startswith("this server answers requests for 127.0.0.1, localhost, ::1")
        assert "--allowed-host NAME adds a name" in message


def test_allowed_hosts_are_names():
    with pytest.raises(ValueError, match="allowed_hosts must not be empty"):
        ServeConfig(allowed_hosts=(" ",))


@pytest.fixture
def own_registry(monkeypatch):
    """Let a test register envs of its own: the registry is restored afterwards."""
    from tabletop_envs.envs import registry

    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))
    monkeypatch.setattr(registry, "_BY_GAME", {})
    return registry


@pytest.mark.parametrize("image", [None, "tests.conformance.toy_game:drawing"])
def test_a_game_of_your_own_is_played_from_its_list_of_moves(client, own_registry, image):
    """No targets declared: every legal move is a button; no picture: the text render."""
    from tabletop_envs.core.registration import EnvSpec

    own_registry.register(
        EnvSpec(name="my_nim_v0", game="tests.conformance.toy_game:ToyState", image=image)
    )
    envs = {e["name"]: e for e in client.get("/api/envs").json()["envs"]}
    assert envs["my_nim_v0"]["seats"] == ["human", "random"] and not envs["my_nim_v0"]["clickable"]
    view = client.post("/api/games", json={"env": "my_nim_v0", "seats": ["human", "random"]})
    view = view.json()
    assert view["targets"] == [] and view["buttons"] == view["moves"] and view["buttons"]
    assert (view["picture"]["svg"] is None) == (image is None)
    if image is None:
        assert view["picture"]["text"]
    end = play_out(client, view, 0, view["tokens"]["0"])
    replay = client.post(
        f"/api/games/{view['id']}/replay", json={"seat": 0, "token": view["tokens"]["0"]}
    )
    assert replay.status_code == 201 and end["over"]
