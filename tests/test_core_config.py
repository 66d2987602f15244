"""The declared-once run configuration (core/config.py) and the one key=value reader."""

from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass

import pytest

from tabletop_envs.core.config import (
    Config,
    add_options,
    from_args,
    from_namespace,
    options_named,
    parse_assignment,
    parse_value,
    quote,
    setting,
)
from tabletop_envs.core.errors import InvalidParameterError


@dataclass(frozen=True)
class Demo(Config):
    games: int = setting(10, low=1, high=1000, help="games to play")
    rate: float = setting(0.5, low=0.0, high=1.0, help="a rate")
    mode: str = setting("a", choices=("a", "b"), help="a mode")
    hidden: tuple[int, ...] = setting((8, 8), low=1, high=64, help="widths")
    opponent: str | None = setting(None, help="an opponent")
    seed: int | None = setting(None, help="a seed")
    fast: bool = setting(False, help="go fast")
    params: dict = setting(default_factory=dict, flags=("--param",), help="game parameters")
    budget: float = setting(1.0, low=0.0, flags=("--budget", "-b"), help="a budget")
    eval_games: int = setting(4, low=0, help="games per check")

    def check(self) -> None:
        if self.mode == "b" and self.opponent is None:
            raise InvalidParameterError("mode 'b' needs an opponent")
        if self.eval_games == 0 and self.games > 100:
            raise InvalidParameterError("games above 100 need checks: give eval_games >= 1")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(exit_on_error=False)
    add_options(p, Demo)
    return p


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", 3),
        ("1.5", 1.5),
        ("true", True),
        ("True", True),
        ("FALSE", False),
        ("None", None),
        ("null", None),
        ("[1, 2]", (1, 2)),
        ("(1, 2)", (1, 2)),
        ("[[1, 2], [3]]", ((1, 2), (3,))),
        ('"x"', "x"),
        ("score", "score"),
        ("", ""),
    ],
)
def test_parse_value(text: str, value: object) -> None:
    assert parse_value(text) == value
    assert type(parse_value(text)) is type(value)


def test_parse_assignment() -> None:
    assert parse_assignment("board_size=7") == ("board_size", 7)
    assert parse_assignment(" deck = [1,2] ") == ("deck", (1, 2))
    for bad in ("board_size", "=3", ""):
        with pytest.raises(ValueError, match="key=value"):
            parse_assignment(bad)


def test_defaults_and_conversion() -> None:
    d = Demo()
    assert d.games == 10 and d.hidden == (8, 8) and d.params == {}
    assert Demo(hidden=[4, 5]).hidden == (4, 5)
    assert Demo(rate=1).rate == 1.0 and type(Demo(rate=1).rate) is float


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("games", 0, "games must be an integer from 1 to 1000, got 0"),
        ("games", 2.0, "games must be an integer"),
        ("games", True, "games must be an integer"),
        ("rate", float("nan"), "rate must be a number from 0 to 1"),
        ("rate", "0.5", "rate must be a number"),
        ("mode", "c", "mode must be one of 'a', 'b', got 'c'"),
        ("hidden", [4, 0], r"hidden\[1\] must be an integer from 1 to 64"),
        ("hidden", "8", "hidden must be a list"),
        ("fast", 1, "fast must be True or False"),
        ("params", [1], "params must be a mapping"),
        ("budget", float("inf"), "budget must be a number >= 0"),
    ],
)
def test_invalid_values_name_the_field(field: str, value: object, message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        Demo(**{field: value})


def test_cross_field_check_and_replace() -> None:
    with pytest.raises(InvalidParameterError, match="needs an opponent"):
        Demo(mode="b")
    d = Demo(mode="b", opponent="x")
    with pytest.raises(InvalidParameterError, match="games"):
        d.replace(games=-1)
    assert d.replace(games=5).games == 5


def test_from_dict_refuses_unknown_keys() -> None:
    assert Demo.from_dict({"games": 3}).games == 3
    with pytest.raises(InvalidParameterError, match=r"unknown Demo field.*'nope'"):
        Demo.from_dict({"nope": 1})
    assert Demo.from_dict(Demo(games=4).to_dict()) == Demo(games=4)


def test_command_line_from_the_declaration() -> None:
    p = parser()
    d = from_namespace(Demo, p.parse_args([]))
    assert d == Demo()
    args = p.parse_args(
        shlex.split(
            "--games 5 --rate 0.25 --mode b --opponent x --hidden 3 4 --fast --seed 7 "
            "--param board_size=7 --param memory=true -b 2"
        )
    )
    d = from_namespace(Demo, args)
    assert d == Demo(
        games=5,
        rate=0.25,
        mode="b",
        opponent="x",
        hidden=(3, 4),
        fast=True,
        seed=7,
        params={"board_size": 7, "memory": True},
        budget=2.0,
    )
    assert from_namespace(Demo, p.parse_args(["--no-fast"])).fast is False
    assert from_namespace(Demo, p.parse_args(["--opponent", "none"])).opponent is None
    with pytest.raises(InvalidParameterError, match="games must be an integer from 1"):
        from_namespace(Demo, p.parse_args(["--games", "0"]))


def test_help_shows_defaults_bounds_and_choices() -> None:
    text = parser().format_help()
    for piece in (
        "games to play; an integer from 1 to 1000 (default: 10)",
        "{a,b}",
        "(default: 8 8)",
        "KEY=VALUE",
        "--no-fast",
        "-b BUDGET",
    ):
        assert piece in " ".join(text.split()), piece


def test_quote_cuts_long_input() -> None:
    assert quote("x" * 10) == repr("x" * 10)
    cut = quote("y" * 10**6)
    assert len(cut) < 120 and "1000002 characters" in cut


def test_a_command_lines_errors_name_options_not_fields() -> None:
    args = parser().parse_args(["--games", "0"])
    with pytest.raises(InvalidParameterError) as err:
        from_args(Demo, args)
    assert str(err.value) == "--games must be an integer from 1 to 1000, got 0"
    with pytest.raises(InvalidParameterError, match=r"^games must be"):
        from_namespace(Demo, args)  # Python callers keep the field names
    args = parser().parse_args(["--games", "200", "--eval-games", "0"])
    with pytest.raises(InvalidParameterError) as err:
        from_args(Demo, args)
    assert str(err.value) == "--games above 100 need checks: give --eval-games >= 1"
    assert options_named(Demo, "budget and eval_games") == "--budget and --eval-games"
    # quoted input, paths and other words stay as typed
    kept = "opponent: no file 'eval_games' in runs/eval_games/x.npz (num_players=2, irk_v0)"
    assert (
        options_named(Demo, kept)
        == "--opponent: no file 'eval_games' in runs/eval_games/x.npz (num_players=2, irk_v0)"
    )


@dataclass(frozen=True)
class Repeated(Config):
    env: tuple[str, ...] | None = setting(None, repeat=True, help="an env")
    sizes: tuple[int, ...] = setting((3, 5), repeat=True, low=1, help="sizes")


def test_a_repeat_option_takes_one_value_each_time_and_keeps_its_default_when_absent() -> None:
    """``--env a --env b`` is two envs (with ``nargs`` the second would replace the first);
    given nowhere, the declared default stays (argparse's ``append`` would add to it)."""
    p = argparse.ArgumentParser(exit_on_error=False)
    add_options(p, Repeated)
    assert from_namespace(Repeated, p.parse_args([])) == Repeated(env=None, sizes=(3, 5))
    args = p.parse_args(["--env", "a", "--env", "b", "--sizes", "7"])
    assert from_namespace(Repeated, args) == Repeated(env=("a", "b"), sizes=(7,))
    with pytest.raises(InvalidParameterError, match=r"sizes\[1\] must be an integer >= 1, got 0"):
        from_namespace(Repeated, p.parse_args(["--sizes", "2", "--sizes", "0"]))
    assert "sizes; an integer >= 1; repeat (default: 3 5)" in " ".join(p.format_help().split())


@dataclass(frozen=True)
class Needs(Config):
    env: str = setting(help="the env")
    games: int = setting(3, low=1, help="games")


def test_a_field_declared_without_a_default_is_a_required_option() -> None:
    p = argparse.ArgumentParser(exit_on_error=False)
    add_options(p, Needs)
    with pytest.raises(SystemExit):  # argparse: "the following arguments are required: --env"
        p.parse_args(["--games", "2"])
    assert from_namespace(Needs, p.parse_args(["--env", "x"])) == Needs(env="x", games=3)
    assert "--env ENV the env --games" in " ".join(p.format_help().split())  # no default shown
    q = argparse.ArgumentParser(exit_on_error=False)
    add_options(q, Needs, defaults={"env": "y"})  # a command's default makes it optional
    assert from_namespace(Needs, q.parse_args([])).env == "y"


def test_parse_command_reads_a_config_or_says_the_mistake_in_one_line(capsys) -> None:
    from tabletop_envs.core.config import parse_command

    config, parser = parse_command(Needs, ["--env", "x"], prog="demo.py", description="A demo.")
    assert config == Needs(env="x", games=3) and parser.prog == "demo.py"
    with pytest.raises(SystemExit) as info:
        parse_command(Needs, ["--env", "x", "--games", "0"], prog="demo.py", description="")
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err == "demo.py: error: --games must be an integer >= 1, got 0 (see demo.py --help)\n"
