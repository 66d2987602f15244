"""Connected components over adjacency lists, and the group scores built on them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence


def connected_components(
    nodes: Iterable[int],
    neighbors: Sequence[Sequence[int]],
    joined: Callable[[int], bool] | None = None,
) -> list[list[int]]:
    """Split ``nodes`` into maximal groups connected through ``neighbors``.

    Only nodes of ``nodes`` take part; ``joined``, if given, further restricts which nodes
    may be entered. Groups come out in order of their smallest-index seed, each sorted.
    """
    members = set(nodes)
    if joined is not None:
        members = {n for n in members if joined(n)}
    seen: set[int] = set()
    groups: list[list[int]] = []
    for start in sorted(members):
        if start in seen:
            continue
        seen.add(start)
        stack = [start]
        group = []
        while stack:
            node = stack.pop()
            group.append(node)
            for nxt in neighbors[node]:
                if nxt in members and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        group.sort()
        groups.append(group)
    return groups


def group_scores(
    nodes: Iterable[int],
    neighbors: Sequence[Sequence[int]],
    value: Callable[[int], float],
) -> list[float]:
    """Return the summed ``value`` of each connected group of ``nodes``, highest first."""
    scores = [sum(value(n) for n in g) for g in connected_components(nodes, neighbors)]
    scores.sort(reverse=True)
    return scores
