"""The ladder script (``benchmarks/ladder.py``): its Elo fit, intervals, resume and doc blocks."""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop_envs.evaluation.arena import run_arena
from tests.extras import need_extra

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "ladder.py"


@pytest.fixture(scope="module")
def ladder():
    spec = importlib.util.spec_from_file_location("ladder_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ladder_script"] = module  # dataclasses look their module up while defined
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules["ladder_script"]


def synthetic_pairs(ladder, agents, elo, games, seed, draw_rate=0.0):
    """Matches between every pair, drawn from Bradley-Terry with ratings ``elo``."""
    rng = np.random.default_rng(seed)
    pairs = []
    for i, a in enumerate(agents):
        for j in range(i + 1, len(agents)):
            p = 1 / (1 + 10 ** ((elo[j] - elo[i]) / 400))
            probs = [p - draw_rate / 2, draw_rate, 1 - p - draw_rate / 2]
            w, d, l_ = rng.multinomial(games, probs)
            pairs.append(ladder.Pair(a, agents[j], games, 0, int(w), int(d), int(l_)))
    return pairs


# ---- the fit -----------------------------------------------------------------------------------
def test_fit_recovers_known_ratings(ladder):
    agents = ["random", "b", "c", "d"]
    truth = np.array([0.0, 150.0, 400.0, -200.0])
    pairs = synthetic_pairs(ladder, agents, truth, games=4000, seed=7)
    elo = ladder.fit_elo(*ladder.score_matrices(agents, pairs), anchor=0)
    assert elo == pytest.approx(truth, abs=30)


def test_fit_of_two_agents_is_the_closed_form_with_one_virtual_draw(ladder):
    # maximum likelihood with one virtual draw: odds (w + 1/2) / (n - w + 1/2)
    pairs = [ladder.Pair("a", "b", 20, 0, 15, 0, 5)]
    elo = ladder.fit_elo(*ladder.score_matrices(["a", "b"], pairs), anchor=0)
    assert elo[0] == 0.0
    assert elo[1] == pytest.approx(-400 * math.log10(15.5 / 5.5), abs=1e-6)


def test_every_anchor_is_rated_zero_and_differences_do_not_move(ladder):
    agents = ["random", "greedy", "mcts"]
    pairs = synthetic_pairs(ladder, agents, [0.0, 300.0, 500.0], games=50, seed=3)
    wins, games = ladder.score_matrices(agents, pairs)
    fits = [ladder.fit_elo(wins, games, anchor=a) for a in range(3)]
    for a, elo in enumerate(fits):
        assert elo[a] == 0.0
        assert elo - elo[0] == pytest.approx(fits[0], abs=1e-6)
    ratings = ladder.rate(agents, pairs, anchor="greedy", resamples=20, seed=0)
    greedy = next(r for r in ratings if r.agent == "greedy")
    assert (greedy.elo, greedy.low, greedy.high) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="anchor 'expert' is not among"):
        ladder.rate(agents, pairs, anchor="expert")


def test_draws_count_half_a_win(ladder):
    pair = ladder.Pair("a", "b", 8, 0, 3, 4, 1)
    assert (pair.score("a"), pair.score("b")) == (5.0, 3.0)
    with pytest.raises(ValueError, match="did not play"):
        pair.score("c")
    with_draws = ladder.fit_elo(*ladder.score_matrices(["a", "b"], [pair]))
    no_draws = ladder.fit_elo(
        *ladder.score_matrices(["a", "b"], [ladder.Pair("a", "b", 8, 0, 5, 0, 3)])
    )
    assert with_draws == pytest.approx(no_draws)
    all_drawn = ladder.fit_elo(
        *ladder.score_matrices(["a", "b"], [ladder.Pair("a", "b", 10, 0, 0, 10, 0)])
    )
    assert all_drawn == pytest.approx([0.0, 0.0])


def test_intervals_contain_the_truth_about_95_percent_of_the_time(ladder):
    agents = ["random", "greedy", "mcts"]
    truth = {"random": 0.0, "greedy": 200.0, "mcts": 450.0}
    covered, widths, gaps_covered = dict.fromkeys(agents, 0), [], 0
    trials = 16
    for trial in range(trials):
        pairs = synthetic_pairs(ladder, agents, list(truth.values()), 100, trial, draw_rate=0.1)
        ratings = ladder.rate(agents, pairs, anchor="random", resamples=100, seed=trial)
        if trial == 0:
            assert [r.agent for r in ratings] == ["mcts", "greedy", "random"]  # best first
            assert ratings == ladder.rate(agents, pairs, "random", resamples=100, seed=0)  # seeded
        for r, below in itertools.pairwise(ratings):
            gap = truth[r.agent] - truth[below.agent]
            assert r.gap == pytest.approx(r.elo - below.elo)
            gaps_covered += r.gap_low <= gap <= r.gap_high
        assert ratings[-1].gap is None
        for r in ratings:
            covered[r.agent] += r.low <= truth[r.agent] <= r.high
            if r.agent != "random":
                widths.append(r.high - r.low)
    assert covered["random"] == trials  # the anchor's [0, 0]
    assert min(covered.values()) >= trials - 2, covered  # about 95%: 15.2 of 16 expected
    assert gaps_covered >= 2 * trials - 3, gaps_covered
    assert 80 < np.mean(widths) < 300, widths  # a real interval, not everything


def test_bootstrap_keeps_the_fitted_expected_score(ladder):
    agents = ["a", "b"]
    pairs = [ladder.Pair("a", "b", 100, 0, 60, 20, 20)]
    wins, games = ladder.score_matrices(agents, pairs)
    samples = ladder.bootstrap_elo(agents, pairs, anchor=0, resamples=400, seed=1)
    mean_score = ladder.expected_score(samples[:, 0], samples[:, 1]).mean()
    fitted = ladder.expected_score(*ladder.fit_elo(wins, games))
    assert mean_score == pytest.approx(fitted, abs=0.02)


# ---- the doc block -----------------------------------------------------------------------------
PAGE = """# Agents

Intro.

<!-- ladder:iris_v0 -->
old table
<!-- /ladder:iris_v0 -->

Between.

<!-- ladder:irk_v0 -->
irk stays
<!-- /ladder:irk_v0 -->
"""


def test_doc_block_rewrites_only_between_its_markers_and_is_idempotent(ladder):
    once = ladder.rewrite_block(PAGE, "iris_v0", "| new | table |\n")
    assert once == PAGE.replace("old table", "| new | table |")
    assert ladder.rewrite_block(once, "iris_v0", "| new | table |\n") == once
    assert "irk stays" in once


@pytest.mark.parametrize(
    ("page", "message"),
    [
        (PAGE.replace("<!-- ladder:iris_v0 -->\n", ""), "exactly once"),
        (PAGE.replace("<!-- /ladder:iris_v0 -->\n", ""), "exactly once"),
        (PAGE + "<!-- ladder:iris_v0 -->\n", "exactly once"),
        ("<!-- /ladder:iris_v0 -->\n<!-- ladder:iris_v0 -->\n", "comes before"),
    ],
)
def test_doc_block_markers_missing_or_misplaced_raise(ladder, page, message):
    with pytest.raises(ValueError, match=message):
        ladder.rewrite_block(page, "iris_v0", "x")


# ---- command line ------------------------------------------------------------------------------
def run(ladder, tmp_path, *extra):
    need_extra("train", "matplotlib")  # a ladder draws its picture
    args = ["--env", "iris_v0", "--param", "board_size=3", "--seed", "4", "--quiet"]
    args += ["--games-per-pair", "2", "--out", str(tmp_path / "out"), "--resamples", "50"]
    return ladder.run(ladder.parse([*args, *extra]))


def test_resume_plays_only_the_missing_pairs(ladder, tmp_path, monkeypatch):
    first = run(ladder, tmp_path, "--agents", "random", "greedy")
    assert [(p.a, p.b) for p in first.pairs] == [("random", "greedy")]
    played = []
    real = ladder.play_pair

    def spy(env, a, b, *args, **kwargs):
        played.append((a, b))
        return real(env, a, b, *args, **kwargs)

    monkeypatch.setattr(ladder, "play_pair", spy)
    second = run(ladder, tmp_path, "--agents", "random", "greedy", "mcts:iterations=3", "--resume")
    assert played == [("random", "mcts:iterations=3"), ("greedy", "mcts:iterations=3")]
    assert second.pairs[0] == first.pairs[0]
    played.clear()
    run(ladder, tmp_path, "--agents", "random", "greedy", "mcts:iterations=3", "--resume")
    assert played == []
    data = json.loads((tmp_path / "out" / "iris_v0.json").read_text())
    assert len(data["pairs"]) == 3
    with pytest.raises(ValueError, match="played with seed=4"):
        run(ladder, tmp_path, "--agents", "random", "greedy", "--resume", "--seed", "5")


GOOD = {"a": "random", "b": "greedy", "games": 4, "seed": 1, "wins_a": 1, "draws": 1, "wins_b": 2}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"wins_b": 3}, "games must equal"),
        ({"draws": -1, "wins_b": 4}, "games must equal"),
        ({"games": 4.0}, "games must equal"),
        ({"b": "random"}, "two different agent specs"),
        ({"seed": "x"}, "malformed field"),
        ({"moves": [1, 2, 3]}, "2 numbers each"),
        ({"wins_a": None}, "games must equal"),
    ],
)
def test_a_malformed_stored_pair_is_refused(ladder, change, message):
    assert ladder.Pair.from_dict(GOOD).score("greedy") == 2.5
    with pytest.raises(ValueError, match=message):
        ladder.Pair.from_dict({**GOOD, **change})


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--agents", "random"], "at least 2 different"),
        (["--agents", "random", "random"], "at least 2 different"),
        (["--agents", "random", "nobody"], "unknown agent 'nobody'"),
        (["--agents", "random", "greedy", "--anchor", "mcts"], "--anchor 'mcts' is not among"),
        (["--agents", "random", "greedy", "--games-per-pair", "0"], "--games-per-pair"),
    ],
)
def test_bad_command_lines_say_what_is_wrong(ladder, tmp_path, extra, message):
    with pytest.raises(ValueError, match=message):
        run(ladder, tmp_path, *extra)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--doc", "{tmp}/missing.md"], "--doc '{tmp}/missing.md' does not exist; it names a page"),
        (["--doc", "{tmp}/plain.md"], "the page must hold '<!-- ladder:iris_v0 -->' exactly once"),
        (["--out", "{tmp}/plain.md"], "--out is a file, not a folder, got '{tmp}/plain.md'"),
        (["--agents", "random", "sb3:{tmp}/none.zip"], "--agents: no SB3 model file"),
        (["--agents", "random", "az:{tmp}/none.npz"], "--agents: no network file at"),
        (["--seed", "-1"], "--seed must be an integer >= 0, got -1"),
        (["--param", "bord=3"], "--param: iris_v0 has no parameter 'bord'; its parameters"),
    ],
)
def test_a_bad_command_line_is_one_line_before_any_game_or_file(
    ladder, tmp_path, capsys, monkeypatch, extra, message
):
    (tmp_path / "plain.md").write_text("no markers\n")
    monkeypatch.setattr(ladder, "play_pair", lambda *a, **k: pytest.fail("a game was played"))
    argv = ["--env", "iris_v0", "--agents", "random", "greedy", "--games-per-pair", "2"]
    argv += ["--out", str(tmp_path / "out"), "--quiet"]
    argv += [arg.format(tmp=tmp_path) for arg in extra]
    assert ladder.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("benchmarks/ladder.py: error: ") and err.count("\n") == 1
    assert message.format(tmp=tmp_path) in err
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.md"]


def test_a_network_for_other_parameters_is_refused_before_any_game(ladder, tmp_path, capsys):
    from tabletop_envs.agents.az import PolicyValueNet
    from tabletop_envs.games.iris.rules import IrisState

    PolicyValueNet.initial(IrisState.new(seed=0), hidden=(8,)).save(tmp_path / "net.npz")
    argv = ["--env", "iris_v0", "--param", "board_size=3", "--games-per-pair", "2"]
    argv += ["--agents", "random", f"az:{tmp_path / 'net.npz'}", "--out", str(tmp_path / "out")]
    assert ladder.main(argv) == 2
    assert "cannot play this game: this iris network was made for other parameters" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "out").exists()


def test_more_than_two_players_is_refused(ladder, capsys):
    argv = ["--env", "irk_v0", "--param", "num_players=3", "--agents", "random", "greedy"]
    assert ladder.main([*argv, "--games-per-pair", "2"]) == 2
    assert "2-player games; irk_v0 has 3 players" in capsys.readouterr().err


def test_long_agent_specs_wrap_after_commas_in_the_picture(ladder):
    spec = "sb3:runs/irk_action_values/model.zip,group_planes=true,action_values=true"
    lines = ladder.tick_label(spec).split("\n")
    assert lines == [
        "sb3:runs/irk_action_values/model.zip,",
        "group_planes=true,action_values=true",
    ]
    assert all(len(line) <= ladder.TICK_WIDTH for line in lines)
    assert "".join(lines) == spec  # nothing lost, nothing added
    for short in ("expert", "mcts:iterations=200", "a,b", "x" * 60):
        assert ladder.tick_label(short) == short  # short specs, and unbreakable ones, stay


def test_tiny_real_ladder_end_to_end(ladder, tmp_path):
    pytest.importorskip("matplotlib")
    doc = tmp_path / "agents.md"
    doc.write_text(PAGE)
    out = tmp_path / "out"
    argv = ["--env", "iris_v0", "--agents", "random", "greedy", "mcts:iterations=5"]
    argv += ["--games-per-pair", "2", "--seed", "9", "--out", str(out), "--doc", str(doc)]
    assert ladder.main([*argv, "--quiet", "--resamples", "100"]) == 0

    data = json.loads((out / "iris_v0.json").read_text())
    assert data["anchor"] == "random" and data["seed"] == 9 and data["games_per_pair"] == 2
    assert "benchmarks/ladder.py --env iris_v0 --agents random greedy" in data["command"]
    assert data["versions"]["tabletop_envs"]
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [
        ("random", "greedy"),
        ("random", "mcts:iterations=5"),
        ("greedy", "mcts:iterations=5"),
    ]
    for p in data["pairs"]:  # each pair is the arena's (tabletop-envs evaluate's) match
        arena = run_arena("iris_v0", [p["a"], p["b"]], 2, seed=9)
        assert [p["wins_a"], p["draws"], p["wins_b"]] == [
            arena.stats[0].wins,
            arena.stats[0].draws,
            arena.stats[1].wins,
        ]
    ratings = {r["agent"]: r for r in data["ratings"]}
    assert set(ratings) == {"random", "greedy", "mcts:iterations=5"}
    assert ratings["mcts:iterations=5"]["ms_per_move"] > ratings["random"]["ms_per_move"] > 0

    table = (out / "iris_v0.md").read_text()
    assert "| rank | agent | Elo | 95% interval |" in table
    assert "![iris_v0 ladder" in table
    for png in (out / "iris_v0.png", tmp_path / "img" / "ladder_iris_v0.png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = doc.read_text()
    assert "old table" not in page and "irk stays" in page
    assert "](img/ladder_iris_v0.png)" in page
    assert "$ python benchmarks/ladder.py --env iris_v0" in page
