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
    allowed_hosts: tuple[str, ...] = setting(
        (),
        flags=("--allowed-host",),
        metavar="NAME",
        repeat=True,
        check=lambda names: None if all(n.strip() for n in names) else "must not be empty",
        help="a host name the server answers to besides 127.0.0.1, localhost and ::1 (behind "
        "a proxy: its public name); only these are answered when the server listens on this "
        "machine, or when any is given",
    )

    def answered_hosts(self) -> tuple[str, ...] | None:
        """Return the Host names the server answers to, lower case (None: any).

        A server listening on this machine answers only to its loopback names, so that a page
        elsewhere whose name a DNS rebinding points at 127.0.0.1 cannot reach it.
        """
        own = self.host.strip("[]").lower()
        if own not in LOOPBACK and not own.startswith("127.") and not self.allowed_hosts:
            return None  # on a network address: whatever names reach it
        names = (*LOOPBACK, own, *(name.strip().lower() for name in self.allowed_hosts))
        return tuple(dict.fromkeys(names))  # each once, in order


#: The names of this machine a server on its loopback address answers to.
LOOPBACK = ("127.0.0.1", "localhost", "::1")


__all__ = ["LOOPBACK", "WEB_EXTRA_HINT", "ServeConfig"]
