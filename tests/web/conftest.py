"""Fixtures of the web tests: the app under Starlette's test client."""

from __future__ import annotations

import os
import warnings

import pytest

if os.environ.get("CI") != "true":  # CI installs the webtest extra: there, missing is a failure
    pytest.importorskip("starlette", reason="the web extra is not installed")
    pytest.importorskip("httpx", reason="Starlette's test client needs httpx")

with warnings.catch_warnings():  # Starlette 1.x prefers httpx2 for its client; httpx works
    warnings.filterwarnings("ignore", "Using `httpx`", UserWarning)
    from starlette.testclient import TestClient

from tabletop_envs.web.app import create_app
from tabletop_envs.web.config import ServeConfig
from tabletop_envs.web.sessions import Store


class Clock:
    """A clock the tests move by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(clock: Clock) -> Store:
    return Store(idle_seconds=600, limit=20, clock=clock)


@pytest.fixture
def client(store: Store):
    # the address the server listens on by default: it answers to no other Host name
    with TestClient(create_app(ServeConfig(), store), base_url="http://127.0.0.1") as test_client:
        yield test_client


def pytest_collection_modifyitems(items):
    for item in items:  # Starlette 1.x prefers httpx2 for its test client; httpx still works
        item.add_marker(pytest.mark.filterwarnings("ignore:Using `httpx`:UserWarning"))
