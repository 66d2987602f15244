"""The web app: a Starlette application serving the page and its JSON API.

Every answer of ``/api`` is JSON; a request that cannot be served gets a 4xx status and
``{"error": message}`` saying what was wrong and what is valid, and changes nothing. A JSON body
(a record file's too) comes with ``Content-Type: application/json``: a browser sends no such
request from another site's page without asking the server first (a CORS preflight this app
never grants), so a page elsewhere cannot start games here, whose agent specs load files of this
machine, nor open records.

=========================================  ====================================================
``GET /api/envs``                          the envs, their parameters and default seats, agents
``POST /api/setup``                        ``{env, params}``: the seats of that game
``POST /api/games``                        ``{env, params?, seats?, seed?}``: a new game
``GET /api/games/{id}?seat=S&token=T``     seat S's view (no seat: the spectator of agents)
``POST /api/games/{id}/move``              ``{seat, token, action | move, move_number?}``
``POST /api/games/{id}/step``              ``{seat?, token?}``: the agent to move plays
``GET /api/games/{id}/record?seat&token``  the game's record file
``POST /api/games/{id}/replay``            ``{seat?, token?}``: step through the game's record
``POST /api/replays``                      a record file (the body): step through it
``GET /api/replays/{id}/{k}``              position ``k`` of a record
=========================================  ====================================================
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from tabletop_envs.core.config import cut, quote, too_deep
from tabletop_envs.replay import MAX_RECORD_BYTES, GameRecord, ReplayError
from tabletop_envs.web.catalogue import catalogue, default_seats, game_params, probe_game
from tabletop_envs.web.config import ServeConfig
from tabletop_envs.web.sessions import Positions, ReplaySession, Store, WebError, new_game

STATIC = Path(__file__).resolve().parent / "static"
#: Largest JSON request body (an Irk deck of 200 tiles is under 3 kB).
MAX_JSON_BYTES = 64 * 1024
MAX_JSON_DEPTH = 8


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


async def _body(request: Request, limit: int, what: str) -> bytes:
    """Return the request's body, refused (413) past ``limit`` bytes without reading it all."""
    declared = request.headers.get("content-length", "")
    if declared.isdecimal() and int(declared) > limit:
        raise WebError(413, f"{what} is at most {limit} bytes; this one is {declared}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise WebError(413, f"{what} is at most {limit} bytes; this one is more")
        chunks.append(chunk)
    return b"".join(chunks)


async def _json(request: Request, optional: bool = False) -> dict[str, Any]:
    """Return the request's JSON object (400 for anything else; ``{}`` if optional and empty)."""
    raw = await _body(request, MAX_JSON_BYTES, "a request body")
    if optional and not raw.strip():
        return {}
    _check_json_type(request, "the request body")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as err:
        raise WebError(400, f"the request body is not JSON: {cut(str(err), 120)}") from None
    if not isinstance(data, dict):
        raise WebError(400, f"the request body is a JSON object, got {quote(data)}")
    if too_deep(data, MAX_JSON_DEPTH):
        raise WebError(400, f"the request body nests deeper than {MAX_JSON_DEPTH} levels")
    return data


def _check_json_type(request: Request, what: str) -> None:
    """415 unless the body is sent as ``application/json``: a form or text is what another
    site's page may post here unasked (a CORS-safelisted type, sent without a preflight)."""
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind != "application/json":
        raise WebError(
            415,
            f"{what} is JSON sent with Content-Type: application/json, got "
            f"{quote(kind or 'no Content-Type')}",
        )


def _seat_query(request: Request) -> tuple[Any, Any]:
    """Return the ``seat`` and ``token`` of the query (seat read as an integer)."""
    seat: Any = request.query_params.get("seat")
    if seat is not None:
        if not (seat.isdecimal() and len(seat) < 6):
            raise WebError(400, f"seat is a seat number, got {quote(seat)}")
        seat = int(seat)
    return seat, request.query_params.get("token")


async def envs(request: Request) -> Response:
    return JSONResponse(catalogue())


async def setup(request: Request) -> Response:
    body = await _json(request)
    env = body.get("env")
    if not isinstance(env, str):
        raise WebError(400, f"env is the name of a registered env, got {quote(env)}")
    try:
        seats = default_seats(env, probe_game(env, game_params(env, body.get("params", {}))))
    except ValueError as err:
        raise WebError(400, str(err)) from None
    return JSONResponse({"env": env, "seats": seats})


async def create_game(request: Request) -> Response:
    body = await _json(request)
    unknown = sorted(set(body) - {"env", "params", "seats", "seed"})
    if unknown:
        raise WebError(400, f"unknown field(s) {quote(unknown)}; fields: env, params, seats, seed")
    store = _store(request)
    session = new_game(
        store.new_id(), body.get("env"), body.get("params"), body.get("seats"), body.get("seed")
    )
    store.add(session)
    first = min(session.tokens, default=None)
    view = session.view(first)
    view["tokens"] = {str(s): t for s, t in session.tokens.items()}
    return JSONResponse(view, status_code=201)


async def game_view(request: Request) -> Response:
    session = _store(request).game(request.path_params["game_id"])
    return JSONResponse(session.view(session.viewer(*_seat_query(request))))


async def move(request: Request) -> Response:
    session = _store(request).game(request.path_params["game_id"])
    body = await _json(request)
    seat = session.viewer(body.get("seat"), body.get("token"))
    if seat is None:  # pragma: no cover - viewer() refuses a seatless request of a human game
        raise WebError(403, "a move is played by a seat")
    session.play(session.human_action(seat, body))
    return JSONResponse(session.view(seat))


async def step(request: Request) -> Response:
    session = _store(request).game(request.path_params["game_id"])
    body = await _json(request, optional=True)
    viewer = session.viewer(body.get("seat"), body.get("token"))
    agent, game, seat = session.agent_move()
    session.thinking = True
    try:  # in a worker thread: the server answers every other request meanwhile
        action = await anyio.to_thread.run_sync(agent.act, game, seat)
    except Exception as err:
        raise WebError(500, f"agent {quote(session.seats[seat])} failed: {cut(str(err))}") from err
    finally:
        session.thinking = False
    try:
        session.play(int(action))
    except WebError as err:
        raise WebError(500, f"agent {quote(session.seats[seat])}: {err.message}") from None
    return JSONResponse(session.view(viewer))


async def record(request: Request) -> Response:
    session = _store(request).game(request.path_params["game_id"])
    session.viewer(*_seat_query(request))
    text = session.record().to_json()
    name = f"{session.env_name}-{session.id}.json"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(text, media_type="application/json", headers=headers)


async def game_replay(request: Request) -> Response:
    store = _store(request)
    session = store.game(request.path_params["game_id"])
    body = await _json(request, optional=True)
    session.viewer(body.get("seat"), body.get("token"))
    return _new_replay(store, session.record())


async def upload_replay(request: Request) -> Response:
    raw = await _body(request, MAX_RECORD_BYTES, "a game record")
    _check_json_type(request, "a game record")
    try:
        loaded = GameRecord.from_json(raw)  # the library's checks of an untrusted record
    except ReplayError as err:
        raise WebError(400, f"not a valid game record: {cut(str(err), 300)}") from None
    return _new_replay(_store(request), loaded)


def _new_replay(store: Store, loaded: GameRecord) -> Response:
    session = ReplaySession(store.new_id(), loaded, Positions(loaded))
    store.add(session)
    return JSONResponse(session.view(0), status_code=201)


async def replay_view(request: Request) -> Response:
    session = _store(request).replay(request.path_params["replay_id"])
    k = request.path_params["position"]
    return JSONResponse(session.view(int(k) if k.isdecimal() and len(k) < 9 else k))


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def _web_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, WebError)
    return JSONResponse({"error": exc.message}, status_code=exc.status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith("/api"):
        message = f"{exc.detail}: {request.method} {request.url.path}"
        return JSONResponse({"error": message}, status_code=exc.status_code)
    return Response(str(exc.detail), status_code=exc.status_code, media_type="text/plain")


async def _server_error(request: Request, exc: Exception) -> Response:
    """A fault of the server, not of the request: JSON all the same (and logged by uvicorn)."""
    message = f"the server failed: {type(exc).__name__}: {cut(str(exc), 200)}"
    return JSONResponse({"error": message}, status_code=500)


class HostCheck:
    """ASGI middleware: a request whose ``Host`` is not one of ``names`` gets 400 and nothing
    else happens (``names`` None: every request passes)."""

    def __init__(self, app: Any, names: tuple[str, ...] | None) -> None:
        self.app = app
        self.names = names

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and self.names is not None:
            host = Headers(scope=scope).get("host", "")
            if _host_name(host) not in self.names:
                message = (
                    f"this server answers requests for {', '.join(self.names)} only, got Host "
                    f"{quote(host)} (tabletop-envs serve --allowed-host NAME adds a name)"
                )
                await JSONResponse({"error": message}, status_code=400)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _host_name(host: str) -> str:
    """Return a ``Host`` header's name, lower case, without its port (``[::1]:80``: ``::1``)."""
    if host.startswith("["):
        return host[1:].partition("]")[0].lower()
    return host.partition(":")[0].lower()


def create_app(config: ServeConfig | None = None, store: Store | None = None) -> Starlette:
    """Return the web app (its games kept in ``store``, else one made from ``config``)."""
    config = config or ServeConfig()
    game = "/api/games/{game_id}"
    routes = [
        Route("/", index),
        Route("/api/envs", envs),
        Route("/api/setup", setup, methods=["POST"]),
        Route("/api/games", create_game, methods=["POST"]),
        Route(game, game_view),
        Route(game + "/move", move, methods=["POST"]),
        Route(game + "/step", step, methods=["POST"]),
        Route(game + "/record", record),
        Route(game + "/replay", game_replay, methods=["POST"]),
        Route("/api/replays", upload_replay, methods=["POST"]),
        Route("/api/replays/{replay_id}/{position}", replay_view),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {WebError: _web_error, HTTPException: _http_error, Exception: _server_error}
    hosts = [Middleware(HostCheck, names=config.answered_hosts())]
    app = Starlette(routes=routes, exception_handlers=handlers, middleware=hosts)
    app.state.store = store or Store(config.idle_minutes * 60, config.max_games)
    return app


def serve(config: ServeConfig) -> None:
    """Serve the app on ``config.host:config.port`` until interrupted (uvicorn)."""
    import uvicorn

    print(f"tabletop-envs serve: open http://{config.host}:{config.port}/ (Ctrl-C stops)")
    uvicorn.run(create_app(config), host=config.host, port=config.port, log_level="warning")


__all__ = ["MAX_JSON_BYTES", "create_app", "serve"]
