"""The search-speed benchmarks run and report what they claim (tiny settings, no timing checked)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """Import ``benchmarks/<name>.py`` as its run from the repository root would."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # the scripts import bench.py beside them
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_core_costs_times_every_operation_of_every_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    core_costs = load("core_costs", monkeypatch)
    out = tmp_path / "costs.json"
    assert core_costs.main(["--games", "1", "--rounds", "1", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    figures = data["microseconds_per_call"]
    assert set(figures) == {"iris_v0", "isis_osiris_v0", "irk_v0"}
    for name, ops in figures.items():
        assert set(ops) == set(core_costs.OPERATIONS), name
        assert all(value > 0 for value in ops.values()), name
    assert "iris_v0" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        core_costs.main(["--env", "no_such_env"])


def test_mcts_openspiel_counts_the_simulations_of_both_searchers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("pyspiel")
    bench = load("mcts_openspiel", monkeypatch)
    out = tmp_path / "mcts.json"
    args = ["--simulations", "20", "--plies", "0", "6", "--seeds", "1", "--rounds", "1"]
    code = bench.main([*args, "--json", str(out)])
    data = json.loads(out.read_text())
    assert code == (0 if data["ratio"] >= 1 else 1)
    # every search ran exactly the asked simulations, on every position
    assert data["simulations_run"] == {bench.OURS: [40], bench.THEIRS: [40]}
    assert data["ratio"] == pytest.approx(
        data["sims_per_second"][bench.OURS] / data["sims_per_second"][bench.THEIRS]
    )
    with pytest.raises(SystemExit):
        bench.main(["--simulations", "0"])


def test_positions_are_the_same_steps_of_the_same_procedure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("pyspiel")
    bench = load("mcts_openspiel", monkeypatch)
    ours = bench.iris_positions([0, 5], 2)
    _, theirs = bench.havannah_positions([0, 5], 2)
    assert [len(g.actions) for g in ours] == [0, 5, 0, 5]
    assert [len(s.history()) for s in theirs] == [0, 5, 0, 5]


def test_the_ceiling_agent_peeks_and_only_while_it_acts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import numpy as np

    from tabletop_envs.agents.az import AZAgent, PolicyValueNet
    from tabletop_envs.games.isis_osiris.rules import IsisOsirisState
    from tests.agents.helpers import choice_positions

    ceiling = load("az_ceiling", monkeypatch)
    game = IsisOsirisState.new(seed=0)
    net = PolicyValueNet.initial(game, hidden=(16,), seed=1)
    honest = IsisOsirisState.resample_hidden
    differs = 0
    positions = [p for seed in range(1, 5) for p in choice_positions("isis_osiris_v0", {}, seed)]
    for k, position in enumerate(positions):
        seat = position.current_player
        other = position.resample_hidden(seat, np.random.default_rng(k))
        peeking = [ceiling.PeekingAgent(AZAgent(net, 24, seed=k)) for _ in range(2)]
        differs += peeking[0].act(position, seat) != peeking[1].act(other, seat)
        assert IsisOsirisState.resample_hidden is honest  # restored after every act
    assert differs > 0  # it reads what the honest agent cannot (which never differs: test_az)
    path = tmp_path / "net.npz"
    net.save(path)
    assert ceiling.main(["--agent", f"az:{path},simulations=2", "--games", "2"]) == 0
    text = capsys.readouterr().out
    assert "as shipped vs greedy" in text and "peeking vs greedy" in text and "over 2 games" in text


def test_az_search_times_the_packaged_experts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    az_search = load("az_search", monkeypatch)
    assert az_search.main(["--expert", "--games", "1", "--env", "iris_v0"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("iris_v0 (2 players): expert (simulations=") and "ms/move mean" in text
    assert "(1 games against greedy)" in text


def test_az_search_times_the_experts_at_each_player_count_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    az_search = load("az_search", monkeypatch)
    argv = ["--expert", "--games", "1", "--env", "iris_v0", "--env", "isis_osiris_v0"]
    assert az_search.main([*argv, "--players", "2", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "iris_v0 (2 players)",
        "iris_v0",
        "isis_osiris_v0 (2 players)",
        "isis_osiris_v0 (4 players)",
    ]
    assert lines[1].startswith("iris_v0: no 4-player game, skipped (")
    assert all("ms/move mean" in line for line in lines if "players)" in line)


def test_value_check_scores_values_against_the_games_own_outcomes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tabletop_envs.agents.az import PolicyValueNet
    from tabletop_envs.games.irk.rules import IrkState

    check = load("value_check", monkeypatch)
    assert check.correlation([1.0, 2.0, 3.0], [2.0, 4.0, 7.0]) == pytest.approx(0.9934, abs=1e-4)
    assert check.correlation([1.0, 1.0], [0.0, 1.0]) != check.correlation([1.0, 1.0], [0.0, 1.0])
    net = PolicyValueNet.initial(IrkState.new(seed=0), hidden=(8,), seed=1)
    path = tmp_path / "net.npz"
    net.save(path)
    draws = []
    honest = IrkState.resample_hidden

    def counted(self: IrkState, seat: int, rng: object) -> IrkState:
        draws.append(seat)
        return honest(self, seat, rng)  # type: ignore[arg-type]

    monkeypatch.setattr(IrkState, "resample_hidden", counted)
    args = check.ValueCheckConfig(
        env="irk_v0", agent=f"az:{path}", players=("random",), games=2, epsilon=0.0, seed=5
    )
    rows = check.record(args)
    # every position with a choice: Irk's 22 steps less the forced last bets (one tile each)
    assert 30 <= len(rows) <= 44 and len(draws) == len(rows)  # every playout on a redraw
    assert {stage for stage, *_ in rows} == set(range(check.STAGES))
    # each game's positions share its outcome; a 2-player result is +1/-1 or 0 for both
    outcomes = {round(r[3], 6) for r in rows}
    assert outcomes <= {-1.0, 0.0, 1.0}
    assert all(-1.0 <= r[1] <= 1.0 and -1.0 <= r[2] <= 1.0 for r in rows)
    assert check.main(["--env", "irk_v0", "--agent", f"az:{path}", "--games", "1"]) == 0
    text = capsys.readouterr().out
    assert "positions of 1 games" in text and "5/5" in text


def test_the_split_agent_asks_the_chooser_to_choose_and_the_placer_to_place(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tabletop_envs.games.irk.rules import CHOOSE, IrkState

    split_module = load("irk_split", monkeypatch)
    split = split_module.SplitAgent("random", "greedy", seed=1)
    asked: list[tuple[str, int]] = []
    for role in ("chooser", "placer"):
        inner = getattr(split, role)
        act = inner.act
        monkeypatch.setattr(
            inner,
            "act",
            lambda g, s, act=act, role=role: asked.append((role, g.phase)) or act(g, s),
        )
    game = IrkState.new(seed=3)
    while not game.is_terminal:
        game.apply(split.act(game, game.current_player))
    assert {phase for role, phase in asked if role == "chooser"} == {CHOOSE}
    assert asked and CHOOSE not in {phase for role, phase in asked if role == "placer"}
    assert any(role == "placer" for role, _ in asked)
    assert split_module.main(["--chooser", "random", "--placer", "random", "--games", "2"]) == 0
    assert "choose=random+place=random" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--agent", "az:{tmp}/missing.npz"], "--agent: no network file at"),
        (["--agent", "nobody"], "--agent: unknown agent 'nobody'"),
        (["--agent", "greedy"], "--agent 'greedy' is not an az:PATH or expert spec"),
        (["--players", "7"], "--players: unknown agent '7'"),
        (["--games", "0"], "--games must be an integer >= 1, got 0"),
        (["--epsilon", "2"], "--epsilon must be a number from 0 to 1, got 2.0"),
        (["--seed", "-1"], "--seed must be an integer >= 0, got -1"),
        (["--param", "bad=1"], "--param: irk_v0 has no parameter 'bad'; its parameters"),
        (["--param", "num_players=3"], "--agent: this irk network was made for other parameters"),
    ],
)
def test_value_check_refuses_a_bad_command_line_in_one_line_before_any_game(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    from tabletop_envs.agents.az import PolicyValueNet
    from tabletop_envs.games.irk.rules import IrkState

    check = load("value_check", monkeypatch)
    PolicyValueNet.initial(IrkState.new(seed=0), hidden=(8,), seed=1).save(tmp_path / "net.npz")
    monkeypatch.setattr(check, "record", lambda *a: pytest.fail("a game was played"))
    argv = ["--env", "irk_v0", "--agent", f"az:{tmp_path / 'net.npz'}", "--games", "1"]
    with pytest.raises(SystemExit) as info:
        check.main([*argv, *(arg.format(tmp=tmp_path) for arg in extra)])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("value_check.py: error: ") and err.count("\n") == 1
    assert message in err


def test_value_check_plays_a_network_of_other_parameters_named_by_param(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tabletop_envs.agents.az import PolicyValueNet
    from tabletop_envs.games.irk.rules import IrkState

    check = load("value_check", monkeypatch)
    net = PolicyValueNet.initial(IrkState.new(seed=0, num_players=3), hidden=(8,), seed=1)
    net.save(tmp_path / "net.npz")
    argv = ["--env", "irk_v0", "--agent", f"az:{tmp_path / 'net.npz'}", "--games", "1"]
    assert check.main([*argv, "--param", "num_players=3"]) == 0
    assert "positions of 1 games" in capsys.readouterr().out
    assert check._mean_size([]) != check._mean_size([])  # a stage without positions: nan


@pytest.mark.parametrize(
    ("name", "argv", "message"),
    [
        ("core_costs", ["--json", "{tmp}/no/x.json"], "--json must go into an existing folder"),
        ("core_costs", ["--seed", "-1"], "--seed must be an integer >= 0, got -1"),
        ("mcts_openspiel", ["--json", "{tmp}"], "--json is a folder, not a file"),
        ("irk_table_size", ["--json", "{tmp}/no/x.json"], "--json must go into an existing"),
        ("irk_table_size", ["--games", "0"], "--games must be an integer >= 1, got 0"),
        ("irk_table_size", ["--players", "9"], "--players: num_players must be from 2 to 4"),
        ("bench", ["--seed", "-1"], "--seed must be an integer >= 0, got -1"),
        ("bench", ["--seconds", "x"], "argument --seconds: expected a number, got 'x'"),
        ("bench", ["--env", "iris", "--env", "nope"], "--env names an unknown env 'nope'"),
        ("core_costs", ["--games", "0"], "--games must be an integer >= 1, got 0"),
        ("mcts_openspiel", ["--plies", "-1"], "--plies[0] must be an integer >= 0, got -1"),
        ("irk_table_size", ["--sizes", "0"], "--sizes[0] must be an integer >= 1, got 0"),
    ],
)
def test_benchmarks_refuse_a_bad_option_in_one_line_before_measuring(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    argv: list[str],
    message: str,
) -> None:
    """An unwritable --json was found only after the whole measurement (FileNotFoundError)."""
    script = load(name, monkeypatch)
    for slow in ("measure", "play"):  # nothing may be measured or played
        if hasattr(script, slow):
            monkeypatch.setattr(script, slow, lambda *a, **k: pytest.fail("measured"))
    with pytest.raises(SystemExit) as info:
        script.main([arg.format(tmp=tmp_path) for arg in argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("name", "argv", "message"),
    [
        ("az_ceiling", ["--games", "0"], "--games must be an integer >= 1, got 0"),
        ("az_ceiling", ["--agent", "az:{tmp}/none.npz"], "--agent: no network file at"),
        ("az_ceiling", ["--opponent", "nobody"], "--opponent: unknown agent 'nobody'"),
        ("az_ceiling", ["--agent", "greedy"], "--agent 'greedy' is not an az:PATH or expert"),
        ("irk_split", ["--games", "0"], "--games must be an integer >= 1, got 0"),
        ("irk_split", ["--chooser", "nobody"], "--chooser: unknown agent 'nobody'"),
        ("irk_split", ["--opponent", "az:{tmp}/none.npz"], "--opponent: no network file at"),
    ],
)
def test_match_benchmarks_refuse_a_bad_agent_or_count_in_one_line_before_any_game(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    argv: list[str],
    message: str,
) -> None:
    """These were tracebacks (ValueError, NetworkFileError) from inside the first match."""
    script = load(name, monkeypatch)
    monkeypatch.setattr(script, "run_arena", lambda *a, **k: pytest.fail("a game was played"))
    with pytest.raises(SystemExit) as info:
        script.main([arg.format(tmp=tmp_path) for arg in argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("name", "argv", "message"),
    [
        ("az_search", ["--expert", "--games", "0"], "--games must be an integer >= 1, got 0"),
        ("az_search", ["--hidden", "-1"], "--hidden[0] must be an integer from 1 to 8192, got -1"),
        ("az_search", ["--simulations", "-1"], "--simulations[0] must be an integer from 0 to"),
        ("az_selfplay", ["--env", "nope"], "argument --env: invalid choice: 'nope'"),
        ("az_selfplay", ["--games", "0"], "--games must be an integer >= 1, got 0"),
        ("az_selfplay", ["--hidden", "0"], "--hidden[0] must be an integer from 1 to 8192"),
        ("az_selfplay", ["--rounds", "0"], "--rounds must be an integer >= 1, got 0"),
        ("ladder_coverage", ["--trials", "0"], "--trials must be an integer >= 1, got 0"),
        ("ladder_coverage", ["--draws", "2"], "--draws must be a number from 0 to 1, got 2.0"),
        ("ladder_coverage", ["--draws", "-0.1"], "--draws must be a number from 0 to 1"),
        ("ladder_coverage", ["--resamples", "0"], "--resamples must be an integer >= 1"),
        ("rllib_sampling", ["--env", "nope"], "--env must be a registered env (iris_v0"),
        ("rllib_sampling", ["--num-env-runners", "0"], "--num-env-runners[0] must be an integer"),
        ("rllib_sampling", ["--steps", "0"], "--steps must be an integer >= 1, got 0"),
    ],
)
def test_speed_benchmarks_refuse_a_bad_option_in_one_line_before_measuring(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    argv: list[str],
    message: str,
) -> None:
    """These were tracebacks (or a table of nan) after, or instead of, the measurement."""
    script = load(name, monkeypatch)
    for slow in ("bench_env", "bench_expert", "run_env", "bootstrap_elo", "measure"):
        if hasattr(script, slow):  # nothing may be measured
            monkeypatch.setattr(script, slow, lambda *a, **k: pytest.fail("measured"))
    monkeypatch.setitem(sys.modules, "ray", None)  # nor Ray imported (ImportError) or started
    with pytest.raises(SystemExit) as info:
        script.main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{name}.py: error: ") and err.count("\n") == 1
    assert message in err


def test_the_hands_peek_redraws_only_the_choices_not_yet_revealed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``az_ceiling.py --peeks hands`` sees the hands and the unused tiles as they are; of the
    others' secret choices it knows only that each came from its owner's hand."""
    import numpy as np

    from tabletop_envs.games.irk.rules import CHOOSE, IrkState

    ceiling = load("az_ceiling", monkeypatch)
    game = IrkState.new(seed=5, num_players=3)
    game.apply(game.legal_actions()[0])  # seat 0 chooses; seat 1 is to choose
    assert game.phase == CHOOSE and game.to_move == 1 and game.chosen[0] >= 0
    rng = np.random.default_rng(0)
    drawn = {ceiling.known_hands(game, 1, rng).chosen[0] for _ in range(60)}
    assert drawn == {*game.hands[0], game.chosen[0]}  # any tile of seat 0's, none other
    view = ceiling.known_hands(game, 1, rng)
    assert sorted([*view.hands[0], view.chosen[0]]) == sorted([*game.hands[0], game.chosen[0]])
    assert view.hands[1:] == game.hands[1:] and view.unused == game.unused
    assert view.legal_actions() == game.legal_actions()
    with pytest.raises(SystemExit):
        ceiling.main(["--env", "iris_v0", "--peeks", "hands"])
    assert "--peeks 'hands' reads Irk's hands, not iris_v0's" in capsys.readouterr().err


def test_irk_belief_weighs_a_hand_by_what_its_owner_chose(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hand that held a tile the model scores above the one chosen explains the choice less
    well than a hand without it; the script prints one line per round played."""
    belief = load("irk_belief", monkeypatch)
    choices = [(1, 7, {7: 3.0, 8: 5.0, 9: 0.0})]  # round 1: chose 7 where 8 scores more
    with_8 = belief.log_likelihood({8}, choices, 1.0)
    with_9 = belief.log_likelihood({9}, choices, 1.0)
    assert with_9 > with_8 and with_9 == pytest.approx(3 - np.log(np.exp(3) + np.exp(0)))
    chosen_later = [(1, 7, {7: 3.0, 8: 5.0}), (2, 8, {8: 1.0})]  # 8, chosen later, was held
    assert belief.log_likelihood(set(), chosen_later, 1.0) == pytest.approx(
        3 - np.log(np.exp(3) + np.exp(5))
    )
    assert belief.main(["--games", "1", "--draws", "5", "--temperatures", "1"]) == 0
    out = capsys.readouterr().out
    assert "true hand tiles in a determinization" in out and "effective sample size" in out
    with pytest.raises(SystemExit):
        belief.main(["--players", "greedy"])
    assert "--players names the 2 seats' agents, got 1" in capsys.readouterr().err
