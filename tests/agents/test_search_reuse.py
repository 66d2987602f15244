"""Tree reuse (``reuse=on``): a seat's next decision goes on in the subtree its search grew."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tabletop_envs.agents import make_agent
from tabletop_envs.agents.az import AZAgent
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.games.iris.rules import IrisState
from tabletop_envs.search.evaluator import uniform_evaluator
from tabletop_envs.search.network_file import NetworkFileError, check_meta
from tabletop_envs.search.node import Node
from tabletop_envs.search.puct import SearchOptions, puct_select, search_trees, visit_counts
from tabletop_envs.search.reuse import KeptTree
from tests.agents.helpers import advance, new_game

OPTIONS = SearchOptions(1.5, (None, 0.0), (0.5, "w"), ("random", "p"), (None, 10.0))


def _search(game: GameState, simulations: int, kept: Node | None = None) -> Node:
    rng = np.random.default_rng(0)
    trees, _ = search_trees(
        [game], [game.current_player], uniform_evaluator, simulations, rng, OPTIONS,
        [puct_select], [kept],
    )  # fmt: skip
    return trees[0]


def _first_stone(seed: int) -> IrisState:
    """An Iris position at a turn's first stone."""
    game = advance(new_game("iris_v0", {}, seed), 9, seed)
    while game.phase != 1:  # FIRST
        game.apply(game.legal_actions()[0])
    return game


def _gray_first_stone(seed: int) -> tuple[IrisState, int]:
    """An Iris position at a turn's first stone and a gray cell with a second stone after it."""
    game = _first_stone(seed)
    gray = [a for a in game.legal_actions()[:-1] if not game.tables.colored[a]]
    return game, gray[len(gray) // 2]


def test_the_second_stone_is_searched_on_in_the_first_stone_s_subtree():
    game = _first_stone(3)
    tree = _search(game, 300)
    gray = [a for a in tree.children if a != game.pass_action and not game.tables.colored[a]]
    stone = max(gray, key=lambda a: tree.children[a].n)
    kept = KeptTree()
    kept.keep(game, tree)
    child = tree.children[stone]
    visits = {a: c.n for a, c in child.children.items()}
    game.apply(stone)
    node = kept.take(game)
    assert node is child and node.n > 1 and visits
    # the search counts on from there: old visits plus the new simulations
    again = _search(game, 50, node)
    assert again is child and again.player == -1 and again.n == sum(visits.values()) + 1 + 50
    counts = visit_counts([again], (1, game.spec.num_actions))[0]
    assert all(counts[a] >= n for a, n in visits.items())
    assert kept.take(game) is None  # taken once


def test_a_kept_tree_is_never_walked_through_another_seat_s_move_or_another_deal():
    game, stone = _gray_first_stone(4)
    kept = KeptTree()
    # another seat's moves in between, along the tree's most visited path (every step a child
    # in the tree): the seat's stones, the other seat's turn, then the seat to move again
    tree = _search(game, 2000)
    kept.keep(game, tree)
    after, node, moved = game.clone(), tree, False
    while not (moved and after.current_player == game.current_player):
        action = max(node.children, key=lambda a: node.children[a].n)
        moved |= after.current_player != game.current_player
        after.apply(action)
        node = node.children[action]
    assert moved and node.n > 0
    assert kept.take(after) is None
    # the seat's own last stone, then the other seat to move: never handed to another seat
    second = game.clone()
    second.apply(stone)
    kept.keep(second, _search(second, 100))
    second.apply(second.legal_actions()[0])
    assert second.current_player != game.current_player
    assert kept.take(second) is None
    # another deal, the same position again (nothing played), a laid-out position, a forgotten tree
    for other in (advance(new_game("iris_v0", {}, 5), 9, 4), game):
        kept.keep(game, _search(game, 20))
        assert kept.take(other) is None
    laid = IrisState.from_position(black=[(0, 0)], to_move=1)
    kept.keep(laid, _search(laid, 20))
    laid.apply(laid.legal_actions()[0])
    assert kept.take(laid) is None
    kept.keep(game, _search(game, 20))
    kept.clear()
    step = game.clone()
    step.apply(stone)
    assert kept.take(step) is None


def test_a_reveal_goes_on_in_the_node_of_the_tile_it_showed():
    found = 0
    for seed in range(6):
        game = advance(new_game("isis_osiris_v0", {}, seed), 6, seed)
        while game.reveal_action not in game.legal_actions():
            game.apply(game.legal_actions()[0])
        tree = _search(game, 300)
        kept = KeptTree()
        kept.keep(game, tree)
        reveal = game.reveal_action
        game.apply(reveal)
        outcomes = tree.children[reveal].outcomes or {}
        shown = outcomes.get(game.public_outcome())  # None: no walk drew that tile
        assert kept.take(game) is shown
        found += shown is not None
    assert found


@pytest.mark.parametrize("env", ["iris_v0", "isis_osiris_v0", "irk_v0"])
def test_an_agent_with_reuse_plays_legal_games_and_forgets_its_tree_on_reset(env):
    agent: Any = make_agent("expert:reuse=on,simulations=8", env, seed=1)
    assert isinstance(agent, AZAgent) and agent.reuse
    game = new_game(env, {}, 7)
    taken = []
    take = agent._kept.take
    agent._kept.take = lambda g: taken.append(take(g)) or taken[-1]
    while not game.is_terminal:
        seat = game.current_player
        game.apply(agent.act(game.clone(), seat))
    if env != "irk_v0":  # seats decide twice in a row: the second decision reused the tree
        assert any(node is not None for node in taken)
    agent.reset(3)
    assert agent._kept.take(game) is None


def test_reuse_is_an_option_of_az_agents_checked_like_the_others():
    assert not make_agent("expert", "iris_v0").reuse  # type: ignore[attr-defined]
    with pytest.raises(InvalidParameterError, match=r"option reuse .* is on or off .*got 'yes'"):
        make_agent("expert:reuse=yes", "iris_v0")
    with pytest.raises(InvalidParameterError, match="reuse=True needs root=puct"):
        make_agent("expert:reuse=on,root=gumbel", "iris_v0")
    net = make_agent("expert", "iris_v0").net  # type: ignore[attr-defined]
    meta = dict(net.meta, reuse=True)
    assert AZAgent(type(net)(meta, net.arrays)).reuse
    assert not AZAgent(type(net)(meta, net.arrays), root="gumbel").reuse
    with pytest.raises(NetworkFileError, match="reuse must be true or false, got 'yes'"):
        check_meta(dict(net.meta, reuse="yes"))


def test_search_trees_wants_one_kept_node_or_none_per_root():
    game = _first_stone(1)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="search_trees got 2 kept nodes for 1 roots"):
        search_trees([game], [game.current_player], uniform_evaluator, 4, rng, OPTIONS,
                     [puct_select], [None, None])  # fmt: skip
