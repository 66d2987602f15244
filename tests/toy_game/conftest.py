"""Pebbles is registered only while this folder's tests run.

Importing ``tests.toy_game`` registers Pebbles, as importing a game package should. The rest of
this repository's tests check that the registry holds exactly the library's own envs (the README
lists each, the Gymnasium ids are the library's), and pytest imports this folder while it
collects them; so Pebbles leaves the registry again right after that import, and comes back for
this folder's tests only.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import tests.toy_game as toy

toy.unregister()


@pytest.fixture(autouse=True, scope="package")
def _pebbles_registered() -> Iterator[None]:
    toy.register()
    yield
    toy.unregister()
