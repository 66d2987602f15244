"""``tabletop-envs serve``: its options come from ServeConfig; without the web extra it says
what to install; with it, uvicorn serves the app on the given address."""

from __future__ import annotations

import socket
import sys

import pytest

from tabletop_envs import cli


def test_serve_help_shows_the_declared_options(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["serve", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for option in ("--host", "--port", "--idle-minutes", "--max-games", "127.0.0.1", "8000"):
        assert option in text


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--port", "0"], "--port must be an integer from 1 to 65535, got 0"),
        (["--port", "70000"], "--port must be an integer from 1 to 65535"),
        (["--idle-minutes", "0"], "--idle-minutes must be a number from 1 to 10080"),
    ],
)
def test_serve_refuses_bad_options_in_one_line(capsys, argv, words):
    assert cli.main(["serve", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tabletop-envs serve: error: ") and words in err


def test_serve_without_the_web_extra_says_what_to_install(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tabletop_envs.web.app", None)  # import fails
    assert cli.main(["serve"]) == 2
    err = capsys.readouterr().err
    assert "serve needs the web extra: pip install 'tabletop_envs[web]'" in err


def test_serve_runs_uvicorn_on_the_address(capsys, monkeypatch):
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    seen = {}

    def run(app, host, port, log_level):
        seen.update(app=app, host=host, port=port)

    monkeypatch.setattr(uvicorn, "run", run)
    monkeypatch.setattr(cli, "listen_problem", lambda host, port: None)  # 8123 may be taken
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", "8123", "--max-games", "3"]) == 0
    assert seen["host"] == "0.0.0.0" and seen["port"] == 8123
    assert seen["app"].state.store.limit == 3
    assert "open http://0.0.0.0:8123/" in capsys.readouterr().out


def test_serve_refuses_a_port_in_use_before_saying_open(capsys, monkeypatch):
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("uvicorn was started"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert cli.main(["serve", "--host", "127.0.0.1", "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"tabletop-envs serve: error: --port {port} is in use (")


def test_serve_refuses_a_host_it_cannot_resolve(capsys, monkeypatch):
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")

    def unknown(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    assert cli.main(["serve", "--host", "nowhere.invalid"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--host 'nowhere.invalid' is no address of this machine" in err
