"""Agents think in a worker thread: while one game's agent thinks, the server answers every
other request, that game's own pages included (which say it is thinking)."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.registry import _FACTORIES, register_agent
from tabletop_envs.web.app import create_app
from tabletop_envs.web.config import ServeConfig


class GatedAgent(Agent):
    """Plays its first legal move once the test opens the gate."""

    name = "gated"
    gate = threading.Event()
    started = threading.Event()

    def act(self, game, seat):
        self.started.set()
        assert self.gate.wait(10), "the test never opened the gate"
        return game.legal_actions()[0]


@pytest.fixture
def gated():
    register_agent("gated", lambda args, env, seed: GatedAgent())
    GatedAgent.gate.clear()
    GatedAgent.started.clear()
    yield
    GatedAgent.gate.set()
    del _FACTORIES["gated"]


def test_a_thinking_agent_blocks_no_other_request(gated):
    async def scenario():
        app = create_app(ServeConfig())
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            slow = await client.post(
                "/api/games", json={"env": "iris_v0", "seats": ["gated", "random"], "seed": 1}
            )
            other = await client.post(
                "/api/games", json={"env": "iris_v0", "seats": ["random", "random"], "seed": 2}
            )
            slow_id, other_id = slow.json()["id"], other.json()["id"]
            thinking = asyncio.create_task(client.post(f"/api/games/{slow_id}/step"))
            while not GatedAgent.started.is_set():
                await asyncio.sleep(0.01)
            # the agent is thinking: everything else is answered meanwhile
            assert (await client.post(f"/api/games/{other_id}/step")).status_code == 200
            seen = (await client.get(f"/api/games/{slow_id}")).json()
            assert seen["thinking"] and seen["move_number"] == 0
            again = await client.post(f"/api/games/{slow_id}/step")
            assert again.status_code == 409 and "thinking" in again.json()["error"]
            assert not thinking.done()
            GatedAgent.gate.set()
            done = await thinking
            assert done.status_code == 200 and done.json()["move_number"] == 1
            assert not done.json()["thinking"]

    asyncio.run(scenario())
