"""The ``tabletop-envs`` command: play, evaluate, watch, replay, serve, bench, train, list.

Examples::

    tabletop-envs list
    tabletop-envs play --env iris_v0 --agent greedy --seat 0
    tabletop-envs evaluate --env iris_v0 --agents random greedy mcts --games 20 --json out.json
    tabletop-envs evaluate --env iris_v0 --param board_size=3 --agents greedy "mcts:iterations=100"
    tabletop-envs watch --env iris_v0 --agents greedy,mcts --seed 3 --gif g.gif --record g.json
    tabletop-envs replay g.json --step
    tabletop-envs serve --port 8000
    tabletop-envs bench --seconds 2 --env iris_v0
    tabletop-envs train --help
    tabletop-envs train --algo az --env iris_v0 --iterations 20 --out runs/az_iris

Every subcommand's options are declared once, as a :class:`~tabletop_envs.core.config.Config`
beside the code they configure (:class:`PlayConfig` here,
:class:`~tabletop_envs.evaluation.arena.ArenaConfig`, :class:`~tabletop_envs.watch.WatchConfig`,
:class:`~tabletop_envs.watch.ReplayConfig`, :class:`~tabletop_envs.web.config.ServeConfig`); the
parsers are generated from them. ``bench`` and
``train`` pass their arguments on to their own parsers. A user's mistake ends in one line
``tabletop-envs COMMAND: error: ...`` and exit status 2, before any game is played.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import importlib.util
import inspect
import json
import runpy
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tabletop_envs import __version__
from tabletop_envs.core.config import (
    CommandParser,
    Config,
    add_options,
    from_args,
    one_line,
    options_named,
    parse_assignment,
    quote,
    quote_path,
    setting,
    settings_of,
)
from tabletop_envs.core.config import (
    DefaultsHelpFormatter as DefaultsHelpFormatter,  # benchmarks import it from here
)
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import registered_envs
from tabletop_envs.evaluation.arena import ArenaConfig
from tabletop_envs.evaluation.paths import user_path
from tabletop_envs.evaluation.play import GameConfig, split_agents
from tabletop_envs.watch import ReplayConfig, WatchConfig
from tabletop_envs.web.config import WEB_EXTRA_HINT, ServeConfig

if TYPE_CHECKING:
    from tabletop_envs.agents.human import HumanAgent

TRAIN_ENTRY = "tabletop_envs.training.train"


def parse_param(text: str) -> tuple[str, Any]:
    """Parse ``key=value`` (:func:`~tabletop_envs.core.config.parse_assignment`) for argparse."""
    try:
        return parse_assignment(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"a parameter is key=value: {err}") from None


@dataclass
class PlayConfig(GameConfig):
    """``tabletop-envs play``: a human against agents in the terminal."""

    about = (
        "Play any registered env against agents. The board is drawn with the ansi render from "
        "your seat's view. Type moves in the game's syntax (Iris: 'q r' or 'pass'), a move's "
        "listed name, or a raw id '#17'; 'legal' lists the legal moves, 'quit' or end of input "
        "stops. Steps with one legal move are played for you."
    )

    agent: str = setting(
        "greedy",
        help="agent spec for every other seat (e.g. random, mcts:iterations=400); sb3: and "
        "rllib: files are pickles: load only files you trust",
    )
    seat: int = setting(0, help="your seat, 0 = first player")

    def check(self) -> None:
        """Refuse several agents in ``--agent`` (``--agents`` of other commands split commas)."""
        super().check()
        try:
            specs = split_agents([self.agent])
        except InvalidParameterError as err:  # it names --agents; play's option is --agent
            raise InvalidParameterError(f"agent{str(err).removeprefix('agents')}") from None
        if len(specs) > 1:
            raise InvalidParameterError(
                f"agent takes one agent spec, played in every other seat; got {len(specs)} "
                f"({', '.join(specs)}); commas inside one spec carry its options "
                "(mcts:iterations=50,c=2)"
            )


# ---- the parsers -------------------------------------------------------------------------------
_Parser = CommandParser  # help with defaults, errors in one line (exit status 2)


#: Options that may be given without their value, and the value they then take.
BARE_VALUE = {"ray": 2}


@dataclass(frozen=True)
class Command:
    """A subcommand: its help, its declared options (None: passed through) and what runs it."""

    name: str
    help: str
    config: type[Config] | None = None
    run: Callable[[argparse.Namespace], int] | None = None
    description: str = ""
    positional: tuple[str, ...] = ()  # fields (declared cli=False) given without a flag


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``tabletop-envs``."""
    parser = _Parser(
        prog="tabletop-envs",
        description="Tabletop games as PettingZoo envs: play, evaluate agents, benchmark, train.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for command in COMMANDS:
        about = command.config.about if command.config else command.description
        p = sub.add_parser(
            command.name,
            help=command.help,
            description=about or None,
            add_help=command.run is not None,
        )
        if command.config is not None:
            for name in command.positional:
                _positional(p, command.config, name)
            add_options(p, command.config)
            _bare_values(p)
        p.set_defaults(func=command.run)
    return parser


def _positional(p: argparse.ArgumentParser, cls: type[Config], name: str) -> None:
    """Add the field ``name`` of ``cls`` (declared ``cli=False``) as a positional argument."""
    [meta] = [meta for f, meta in settings_of(cls) if f.name == name]
    p.add_argument(name, help=meta.help)


def _bare_values(p: argparse.ArgumentParser) -> None:
    """Let the options of :data:`BARE_VALUE` be given alone (``--ray`` = ``--ray 2``)."""
    for action in p._actions:
        if action.dest in BARE_VALUE:
            action.nargs, action.const = "?", BARE_VALUE[action.dest]


def _config(cls: type[Config], args: argparse.Namespace) -> Any:
    """Return ``cls`` built from ``args``; a bad value's error names its option (``--games``)."""
    return from_args(cls, args)


def main(argv: list[str] | None = None) -> int:
    """Run ``tabletop-envs`` with ``argv`` (default: the command line); return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "bench":
        return cmd_bench(argv[1:])
    if argv and argv[0] == "train":
        return cmd_train(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    # a bad env, parameter or agent spec, a missing extra, a file that cannot be written after all
    except (ValueError, ImportError, OSError) as err:
        print(f"tabletop-envs {args.command}: error: {one_line(err)}", file=sys.stderr)
        return 2


# ---- list ------------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    """Print the registered envs and agent names."""
    from tabletop_envs.agents.registry import agent_names
    from tabletop_envs.envs.registry import env_spec

    print("envs:")
    for name in registered_envs():
        print(f"  {name:<16} {env_spec(name).description}")
    print("agents: " + ", ".join(agent_names()))
    return 0


# ---- play ------------------------------------------------------------------------------------
def cmd_play(args: argparse.Namespace, stdin: TextIO | None = None) -> int:
    """Play one game: the human at ``--seat``, ``--agent`` everywhere else."""
    config: PlayConfig = _config(PlayConfig, args)
    return play(
        config.env,
        config.params,
        agent=config.agent,
        seat=config.seat,
        seed=config.seed,
        stdin=stdin if stdin is not None else sys.stdin,
        stdout=sys.stdout,
    )


def play(
    env_name: str,
    env_kwargs: dict[str, Any],
    *,
    agent: str,
    seat: int,
    seed: int,
    stdin: TextIO,
    stdout: TextIO,
) -> int:
    """Run a terminal game through the PettingZoo env; return 0 (finished or quit)."""
    from tabletop_envs.agents.expert import check_agents
    from tabletop_envs.agents.human import HumanAgent, announce_move, move_hint
    from tabletop_envs.agents.registry import make_agent
    from tabletop_envs.envs.registry import make

    env = make(env_name, render_mode="ansi", illegal_action="raise", **env_kwargs)
    n = len(env.possible_agents)
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be from 0 to {n - 1} for {env_name} with {n} players")
    others = {s: make_agent(agent, env_name, seed=seed * 1000 + s) for s in range(n) if s != seat}
    human = HumanAgent(stdin, stdout)

    def say(text: str) -> None:
        stdout.write(text + "\n")
        stdout.flush()

    env.reset(seed=seed)
    game = _game_of(env)
    check_agents(((f"--agent {agent!r}", a) for a in others.values()), game)  # before any move
    say(f"{env_name}: you are player_{seat}; the other seats are {agent!r}.")
    hint = move_hint(game.game_name)
    say((hint + " " if hint else "") + "Type 'legal' to list moves, 'quit' to stop.")
    shown = False
    for name in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        game = _game_of(env)
        mover = game.current_player
        if mover == seat:
            if not shown:
                say("")
                say(game.render_text(seat))
                shown = True
            action = _your_move(game, seat, name, human, say)
            if action is None:
                return 0
        else:
            action = others[mover].act(game, mover)
            say(f"{name} ({agent}) {announce_move(game, action, seat)}")  # only what seat sees
        env.step(action)
        after = _game_of(env)
        if after.current_player == seat or after.is_terminal:
            shown = False
    _say_result(_game_of(env), seat, say)
    return 0


def _your_move(
    game: GameState, seat: int, name: str, human: HumanAgent, say: Callable[[str], None]
) -> int | None:
    """Return the person's move in ``seat`` (a single legal move is played for them), said as
    played; None if they quit."""
    from tabletop_envs.agents.human import QuitGame

    legal = game.legal_actions()
    if len(legal) == 1:
        say(f"{name} (you) must play {game.action_to_string(legal[0])}: played for you")
        return legal[0]
    try:
        action = human.act(game, seat)
    except QuitGame:
        say("quit: game abandoned.")
        return None
    say(f"{name} (you) play {game.action_to_string(action)}")
    return action


def _game_of(env: Any) -> GameState:
    """Return the env's current game (it has one from ``reset`` on)."""
    game: GameState | None = env.game
    if game is None:  # pragma: no cover - reset() deals a game
        raise RuntimeError("the env has no game before reset()")
    return game


def _say_result(game: GameState, seat: int, say: Callable[[str], None]) -> None:
    """Say the final position from ``seat``'s view, the returns and the result's details."""
    say("")
    say(game.render_text(seat))
    returns = game.returns()
    say(
        "final returns: "
        + ", ".join(
            f"player_{s}{' (you)' if s == seat else ''} {r:+g}" for s, r in enumerate(returns)
        )
    )
    info = game.result_info()
    if info:
        say(f"result: {json.dumps(info, default=str)}")


# ---- evaluate --------------------------------------------------------------------------------
def cmd_evaluate(args: argparse.Namespace) -> int:
    """Run the arena and print its table (and write JSON with ``--json``)."""
    from tabletop_envs.evaluation.arena import evaluate
    from tabletop_envs.evaluation.ray import RayAddressError

    config: ArenaConfig = _config(ArenaConfig, args)
    try:
        result = evaluate(config, progress_printer(sys.stderr))
    except RayAddressError as err:  # named as the field: the user typed --address
        raise InvalidParameterError(options_named(ArenaConfig, str(err))) from None
    print(result.table())
    if config.json:
        user_path(config.json).write_text(result.to_json() + "\n")
        print(f"wrote {config.json}")
    return 0


def progress_printer(stream: TextIO, lines: int = 10) -> Callable[[int, int], None]:
    """Return a progress callback writing to ``stream``.

    On a terminal one line is rewritten in place (``\\r``); elsewhere (a pipe, a file, a log)
    about ``lines`` whole lines are written, each ending with a newline, the last at the end.
    """
    tty = stream.isatty()

    def progress(done: int, total: int) -> None:
        if tty:
            print(f"\r{done}/{total} games", end="" if done < total else "\n", file=stream)
        elif done == total or done % max(1, total // lines) == 0:
            print(f"{done}/{total} games", file=stream)
        stream.flush()

    return progress


# ---- watch / replay ---------------------------------------------------------------------------
def cmd_watch(args: argparse.Namespace) -> int:
    """Play one game between ``--agents`` and show it (text, GIF, SVG frames, record)."""
    from tabletop_envs.watch import show, watch

    config: WatchConfig = _config(WatchConfig, args)
    record = watch(config.env, config.agents, config.seed, config.params)
    if config.record:
        record.save(user_path(config.record))
        print(f"wrote {config.record}")
    show(record, config)
    return 0


def cmd_replay(args: argparse.Namespace, stdin: TextIO | None = None) -> int:
    """Show the game of a record file (text, stepping, GIF, SVG frames)."""
    from tabletop_envs.replay import GameRecord
    from tabletop_envs.watch import show

    config: ReplayConfig = _config(ReplayConfig, args)
    if not config.record.strip():  # Path("") is the current folder: "Is a directory" misleads
        raise ValueError("record must name a record file (written by 'watch --record'), got ''")
    try:
        record = GameRecord.load(user_path(config.record))
    except OSError as err:
        raise ValueError(f"cannot read {quote_path(config.record)}: {err.strerror}") from None
    show(record, config, step=config.step, stdin=stdin)
    return 0


# ---- serve ----------------------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the web app (the ``web`` extra) until interrupted."""
    config: ServeConfig = _config(ServeConfig, args)
    try:
        from tabletop_envs.web.app import serve
    except ImportError as err:
        raise ImportError(f"serve needs the web extra: {WEB_EXTRA_HINT}; {err}") from None
    problem = listen_problem(config.host, config.port)
    if problem:  # before the "open http://..." line, not uvicorn's ERROR after it
        raise ValueError(problem)
    serve(config)
    return 0


def listen_problem(host: str, port: int) -> str | None:
    """Return why the server cannot listen on ``host:port`` (naming --host or --port), or None.

    Binds and closes a socket as uvicorn will (SO_REUSEADDR), so what is refused is what
    uvicorn would fail on; a program taking the port in between is still uvicorn's to report.
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as err:
        return (
            f"--host {quote(host)} is no address of this machine ({getattr(err, 'strerror', err)})"
        )
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                return f"--port {port} is in use ({err.strerror}): choose another --port"
            return f"cannot listen on --host {quote(host)} --port {port} ({err.strerror})"
    return None


# ---- bench / train ----------------------------------------------------------------------------
def find_bench() -> Path | None:
    """Return ``benchmarks/bench.py`` of the working directory or of the package's checkout."""
    candidates = [Path.cwd() / "benchmarks" / "bench.py"]
    candidates.append(Path(__file__).resolve().parents[2] / "benchmarks" / "bench.py")
    for path in candidates:
        if path.is_file():
            return path
    return None


def cmd_bench(argv: list[str]) -> int:
    """Run ``benchmarks/bench.py`` with ``argv``; exit 2 with a message if it is not present."""
    path = find_bench()
    if path is None:
        print(
            "tabletop-envs bench: benchmarks/bench.py not found; it ships with the source "
            "repository, not the wheel: run this from a checkout (or python benchmarks/bench.py)",
            file=sys.stderr,
        )
        return 2
    module = runpy.run_path(str(path), run_name="tabletop_envs_bench")
    if "prog" in inspect.signature(module["main"]).parameters:
        return int(module["main"](argv, prog="tabletop-envs bench") or 0)
    return int(module["main"](argv) or 0)


def cmd_train(argv: list[str]) -> int:
    """Run the training entry point with ``argv``; exit 2 with a message if it is missing."""
    try:
        found = importlib.util.find_spec(TRAIN_ENTRY) is not None
    except ImportError:
        found = False
    if not found:
        print(
            f"tabletop-envs train: the training entry point {TRAIN_ENTRY} is not available "
            "in this installation",
            file=sys.stderr,
        )
        return 2
    try:
        entry = importlib.import_module(TRAIN_ENTRY)
    except ImportError as err:
        print(
            f"tabletop-envs train: {err}; install the train extra "
            "(in a clone: pip install -e '.[train]')",
            file=sys.stderr,
        )
        return 2
    run = getattr(entry, "run_command", None)  # a user's mistake: one line, exit status 2
    if run is not None:
        return int(run(argv, prog="tabletop-envs train") or 0)
    if "prog" in inspect.signature(entry.main).parameters:
        return int(entry.main(argv, prog="tabletop-envs train") or 0)
    return int(entry.main(argv) or 0)


# ---- the subcommands, in the order the help lists them ----------------------------------------
COMMANDS = (
    Command("play", "play a game in the terminal against agents", PlayConfig, cmd_play),
    Command(
        "evaluate",
        "play an arena between agents and report win rates (95%% CIs) and Elo",
        ArenaConfig,
        cmd_evaluate,
    ),
    Command(
        "bench",
        "random-play throughput (runs benchmarks/bench.py of a repository checkout)",
        description="Runs benchmarks/bench.py; every argument is passed on (try bench --help).",
    ),
    Command(
        "train",
        "train an agent: --algo ppo (MaskablePPO, the default) or az (AlphaZero-style "
        "self-play); needs the train extra",
        description="Runs tabletop_envs.training.train; every argument is passed on "
        "(train --help: PPO's options; train --algo az --help: AlphaZero's).",
    ),
    Command(
        "watch",
        "watch agents play one game: text, an animated GIF, SVG frames, a record file",
        WatchConfig,
        cmd_watch,
    ),
    Command(
        "replay",
        "show a recorded game (from watch --record): text, stepping, GIF, SVG frames",
        ReplayConfig,
        cmd_replay,
        positional=("record",),
    ),
    Command(
        "serve",
        "play and watch in a web browser: a local web app (needs the web extra)",
        ServeConfig,
        cmd_serve,
    ),
    Command("list", "list registered envs and agents", run=cmd_list),
)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
