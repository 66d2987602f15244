"""The shared core helpers that more than one game stands on: seats and connected groups."""

from __future__ import annotations

from tabletop_envs.core.components import connected_components, group_scores
from tabletop_envs.core.seats import next_seat, relative_seats
from tabletop_envs.core.squaregrid import square_neighbors


def test_seats_go_round_in_increasing_order_and_wrap() -> None:
    assert [next_seat(s, 3) for s in range(3)] == [1, 2, 0]
    assert relative_seats(0, 4) == (0, 1, 2, 3)
    assert relative_seats(2, 4) == (2, 3, 0, 1)
    assert relative_seats(1, 2) == (1, 0)


def test_connected_components_on_a_square_grid() -> None:
    # 3x3 grid, nodes marked X:   X X .
    #                             . . X
    #                             X . X
    neighbors = square_neighbors(3, 3)
    nodes = [0, 1, 5, 6, 8]
    assert connected_components(nodes, neighbors) == [[0, 1], [5, 8], [6]]
    # ``joined`` keeps only some of the nodes: without 8, 5 stands alone
    assert connected_components(nodes, neighbors, joined=lambda n: n != 8) == [[0, 1], [5], [6]]


def test_group_scores_sum_values_per_group_highest_first() -> None:
    neighbors = square_neighbors(3, 3)
    value = {0: 1, 1: 2, 5: 4, 6: 0, 8: 3}.__getitem__
    assert group_scores([0, 1, 5, 6, 8], neighbors, value) == [7, 3, 0]
    assert group_scores([], neighbors, value) == []
