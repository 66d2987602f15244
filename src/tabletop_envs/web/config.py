"""The options of ``tabletop-envs serve``, declared once (the command line comes from them).

Standard library only: the command line reads them whether or not the ``web`` extra
(Starlette, uvicorn) is installed.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletop_envs.core.config import Config, setting

#: How to install what ``serve`` needs.
WEB_EXTRA_HINT = "pip install 'tabletop_envs[web]' (Starlette and uvicorn)"


@dataclass
class ServeConfig(Config):
    """``tabletop-envs serve``: the web app on one address."""

    about = (
        "Serve the web app: pick a game, its parameters and its seats (you, or any agent spec), "
        "play by clicking on the board, watch agents play, step through a record file and "
        "download the record of any game. Open http://HOST:PORT/ (or /?env=NAME for a new game "
        "of NAME against its expert). Agent specs name files on this machine (az:, sb3:, "
        "rllib:): keep the default host unless you trust everyone who can reach the port."
    )

    host: str = setting("127.0.0.1", help="address to listen on (127.0.0.1: this machine only)")
    port: int = setting(8000, low=1, high=65535, help="port to listen on")
    idle_minutes: float = setting(
        60.0, low=1, high=7 * 24 * 60, help="a game or record nobody has used this long is dropped"
    )
    max_games: int = setting(
        100, low=1, high=10_000, help="games and records kept at once; more are refused"
    )


__all__ = ["WEB_EXTRA_HINT", "ServeConfig"]
