"""The ``tabletop-envs`` command: play, evaluate, watch, replay, bench, train, list.

Examples::

    tabletop-envs list
    tabletop-envs play --env iris_v0 --agent greedy --seat 0
    tabletop-envs evaluate --env iris_v0 --agents random greedy mcts --games 20 --json out.json
    tabletop-envs evaluate --env iris_v0 --param board_size=3 --agents greedy "mcts:iterations=100"
    tabletop-envs watch --env iris_v0 --agents greedy,mcts --seed 3 --gif g.gif --record g.json
    tabletop-envs replay g.json --step
    tabletop-envs bench --seconds 2 --env iris_v0
    tabletop-envs train --help
    tabletop-envs train --algo az --env iris_v0 --iterations 20 --out runs/az_iris
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import runpy
import sys
from pathlib import Path
from typing import Any, TextIO

from tabletop_envs import __version__
from tabletop_envs.core.config import DefaultsHelpFormatter
from tabletop_envs.envs.registry import registered_envs

TRAIN_ENTRY = "tabletop_envs.training.train"


def parse_param(text: str) -> tuple[str, Any]:
    """Parse ``key=value``: a JSON value (``3``, ``true``, ``[1, 2]``), True/False, or text."""
    key, eq, raw = text.partition("=")
    if not eq or not key.strip():
        raise argparse.ArgumentTypeError(f"a parameter is key=value, got {text!r}")
    raw = raw.strip()
    if raw in ("True", "False"):
        return key.strip(), raw == "True"
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    if isinstance(value, list):
        value = _tuples(value)
    return key.strip(), value


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _env_kwargs(params: list[tuple[str, Any]] | None) -> dict[str, Any]:
    return dict(params or [])


class _SubcommandParser(argparse.ArgumentParser):
    """A subcommand's parser: its help shows the defaults (:class:`DefaultsHelpFormatter`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsHelpFormatter)
        super().__init__(*args, **kwargs)


def _add_env_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--env",
        default="iris_v0",
        help=f"registered env (default iris_v0; one of: {', '.join(registered_envs())})",
    )
    p.add_argument(
        "--param",
        action="append",
        type=parse_param,
        metavar="KEY=VALUE",
        help="game parameter, repeatable (e.g. --param board_size=7 --param num_players=3)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``tabletop-envs``."""
    parser = argparse.ArgumentParser(
        prog="tabletop-envs",
        description="Tabletop games as PettingZoo envs: play, evaluate agents, benchmark, train.",
        formatter_class=DefaultsHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    # every subcommand's help shows its defaults (DefaultsHelpFormatter)
    sub = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        parser_class=_SubcommandParser,
    )
    sub.required = True

    p = sub.add_parser(
        "play",
        help="play a game in the terminal against agents",
        description="Play any registered env against agents. The board is drawn with the ansi "
        "render from your seat's view. Type moves in the game's syntax (Iris: 'q r' or "
        "'pass'), a move's listed name, or a raw id '#17'; 'legal' lists the legal moves, "
        "'quit' or end of input stops. Steps with one legal move are played for you.",
    )
    _add_env_args(p)
    p.add_argument(
        "--agent",
        default="greedy",
        help="agent spec for every other seat (default greedy; e.g. random, mcts:iterations=400)",
    )
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 = first player (default 0)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser(
        "evaluate",
        help="play an arena between agents and report win rates (95%% CIs) and Elo",
        description="Play N games between agents with seats rotated; print win/draw/loss rates "
        "with 95% Wilson intervals (and Elo for 3+ agents).",
    )
    _add_env_args(p)
    p.add_argument(
        "--agents",
        nargs="+",
        default=["random", "greedy"],
        help="agent specs: random, greedy, mcts[:iterations=N,c=X,rollout=random|greedy], "
        "sb3:PATH[,sample] (most likely move unless ',sample'), rllib:CHECKPOINT "
        "(default: random greedy)",
    )
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads for sb3: agents that name none (default 1, the fastest for these "
        "small networks; 0: torch's default)",
    )
    p.add_argument("--games", type=int, default=20, help="number of games (default 20)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.add_argument(
        "--ray",
        type=int,
        nargs="?",
        const=2,
        default=0,
        metavar="WORKERS",
        help="spread the games over WORKERS Ray tasks (default 2; same results as without; "
        "needs the rllib extra)",
    )
    p.add_argument(
        "--address",
        help="with --ray: the Ray cluster to join (default: RAY_ADDRESS, else a local instance)",
    )
    p.set_defaults(func=cmd_evaluate)

    sub.add_parser(
        "bench",
        help="random-play throughput (runs benchmarks/bench.py of a repository checkout)",
        description="Runs benchmarks/bench.py; every argument is passed on (try bench --help).",
        add_help=False,
    )
    sub.add_parser(
        "train",
        help="train an agent: --algo ppo (MaskablePPO, the default) or az (AlphaZero-style "
        "self-play); needs the train extra",
        description="Runs tabletop_envs.training.train; every argument is passed on "
        "(train --help: PPO's options; train --algo az --help: AlphaZero's).",
        add_help=False,
    )
    p = sub.add_parser(
        "watch",
        help="watch agents play one game: text, an animated GIF, SVG frames, a record file",
        description="Play one game between agents and show every position. The view is a "
        "spectator's over the shoulder of the seat to move (its own hand in Irk, its memory in "
        "Isis & Osiris); the last position is the public view. Without --gif or --svg the "
        "positions are printed as text. The deal and agent seeds are those of game 0 of "
        "'evaluate --seed S'.",
    )
    _add_env_args(p)
    p.add_argument(
        "--agents",
        nargs="+",
        default=["greedy"],
        help="agent specs in seat order, comma-separated (e.g. greedy,mcts:iterations=50); "
        "fewer than the seats repeat (default greedy)",
    )
    _add_output_args(p)
    p.add_argument("--record", metavar="PATH", help="write the game record (JSON) to PATH")
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser(
        "replay",
        help="show a recorded game (from watch --record): text, stepping, GIF, SVG frames",
        description="Rebuild a recorded game from its seed and actions and show it as watch "
        "does. --step browses it: Enter next, b back, a number jumps, q quits.",
    )
    p.add_argument("record", help="game record file written by 'watch --record'")
    _add_output_args(p)
    p.add_argument("--step", action="store_true", help="step forward and back interactively")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("list", help="list registered envs and agents")
    p.set_defaults(func=cmd_list)
    return parser


def _add_output_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gif", metavar="PATH", help="write an animated GIF (needs Pillow)")
    p.add_argument("--svg", metavar="DIR", help="write one SVG frame per position into DIR")
    p.add_argument("--delay", type=int, default=600, help="GIF milliseconds per move (default 600)")


def main(argv: list[str] | None = None) -> int:
    """Run ``tabletop-envs`` with ``argv`` (default: the command line); return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "bench":
        return cmd_bench(argv[1:])
    if argv and argv[0] == "train":
        return cmd_train(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as err:  # bad env, parameter or agent spec: say what and stop
        print(f"tabletop-envs {args.command}: error: {err}", file=sys.stderr)
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
    return play(
        args.env,
        _env_kwargs(args.param),
        agent=args.agent,
        seat=args.seat,
        seed=args.seed,
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
    from tabletop_envs.agents.human import HumanAgent, QuitGame, announce_move, move_hint
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
    game = env.game
    say(f"{env_name}: you are player_{seat}; the other seats are {agent!r}.")
    hint = move_hint(game.game_name)
    say((hint + " " if hint else "") + "Type 'legal' to list moves, 'quit' to stop.")
    shown = False
    for name in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        game = env.game
        mover = game.current_player
        legal = game.legal_actions()
        if mover == seat:
            if not shown:
                say("")
                say(game.render_text(seat))
                shown = True
            if len(legal) == 1:
                action = legal[0]
                say(f"{name} (you) must play {game.action_to_string(action)}: played for you")
            else:
                try:
                    action = human.act(game, seat)
                except QuitGame:
                    say("quit: game abandoned.")
                    return 0
                say(f"{name} (you) play {game.action_to_string(action)}")
        else:
            action = others[mover].act(game, mover)
            say(f"{name} ({agent}) {announce_move(game, action, seat)}")  # only what seat sees
        env.step(action)
        if env.game.current_player == seat or env.game.is_terminal:
            shown = False
    game = env.game
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
    return 0


# ---- evaluate --------------------------------------------------------------------------------
def cmd_evaluate(args: argparse.Namespace) -> int:
    """Run the arena and print its table (and write JSON with ``--json``)."""
    from tabletop_envs.training.arena import run_arena

    def progress(done: int, total: int) -> None:
        print(f"\r{done}/{total} games", end="" if done < total else "\n", file=sys.stderr)

    if args.ray < 0:
        raise ValueError(f"--ray needs a number of workers >= 1, got {args.ray}")
    if args.ray:
        from tabletop_envs.training.rllib import init_ray

        init_ray(args.address, log_to_driver=False)
    try:
        result = run_arena(
            args.env,
            _with_threads(args.agents, args.env, args.threads),
            args.games,
            seed=args.seed,
            env_kwargs=_env_kwargs(args.param),
            progress=None if args.quiet else progress,
            ray_workers=args.ray,
        )
    finally:
        if args.ray:
            import ray

            ray.shutdown()
    print(result.table())
    if args.json:
        Path(args.json).write_text(result.to_json() + "\n")
        print(f"wrote {args.json}")
    return 0


def _with_threads(specs: list[str], env_name: str, threads: int) -> list[Any]:
    """Return ``specs`` with each ``sb3:`` spec built, torch pinned to ``threads`` unless it says.

    The models are loaded here with ``threads=`` added to a spec that names none (torch's thread
    count is per process); each keeps the spec as typed as its name in the report.
    """
    from tabletop_envs.agents.registry import make_agent

    if threads < 0:
        raise ValueError(f"--threads must be 0 (torch's default) or more, got {threads}")
    out: list[Any] = []
    for spec in specs:
        if not spec.startswith("sb3:"):
            out.append(spec)
            continue
        options = spec.split(",")[1:]
        named = any(o.strip().startswith("threads=") for o in options)
        agent = make_agent(spec if named else f"{spec},threads={threads}", env_name)
        agent.spec = spec  # type: ignore[attr-defined]  # the name the report shows
        out.append(agent)
    return out


# ---- watch / replay ---------------------------------------------------------------------------
def cmd_watch(args: argparse.Namespace) -> int:
    """Play one game between ``--agents`` and show it (text, GIF, SVG frames, record)."""
    from tabletop_envs.watch import split_agents, watch

    record = watch(args.env, split_agents(args.agents), args.seed, _env_kwargs(args.param))
    if args.record:
        record.save(args.record)
        print(f"wrote {args.record}")
    return _show(record, args)


def cmd_replay(args: argparse.Namespace, stdin: TextIO | None = None) -> int:
    """Show the game of a record file (text, stepping, GIF, SVG frames)."""
    from tabletop_envs.replay import GameRecord

    try:
        record = GameRecord.load(args.record)
    except OSError as err:
        raise ValueError(f"cannot read {args.record}: {err.strerror}") from None
    return _show(record, args, stdin)


def _show(record: Any, args: argparse.Namespace, stdin: TextIO | None = None) -> int:
    from tabletop_envs.watch import browse, position_text, result_line, write_gif, write_svgs

    states = record.positions()
    if getattr(args, "step", False):
        browse(record, states, stdin if stdin is not None else sys.stdin, sys.stdout)
    elif not (args.gif or args.svg):
        for k in range(len(states)):
            print(position_text(record, states, k))
    if args.gif:
        frames, width, height = write_gif(record, states, args.gif, delay_ms=args.delay)
        print(f"wrote {args.gif}: {frames} frames of {width}x{height}")
    if args.svg:
        paths = write_svgs(record, states, args.svg)
        print(f"wrote {len(paths)} SVG frames into {args.svg}")
    print(result_line(record))
    return 0


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
    if "prog" in inspect.signature(entry.main).parameters:
        return int(entry.main(argv, prog="tabletop-envs train") or 0)
    return int(entry.main(argv) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
