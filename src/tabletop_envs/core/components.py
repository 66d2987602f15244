"""Connected components over adjacency lists, and the group scores built on them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence


def _walk(
    members: set[int], neighbors: Sequence[Sequence[int]], seeds: Iterable[int]
) -> Iterator[list[int]]:
    """Yield each group of ``members`` (unsorted), in the order ``seeds`` first reach them."""
    seen: set[int] = set()
    for start in seeds:
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
        yield group


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
    return [sorted(group) for group in _walk(members, neighbors, sorted(members))]


def group_scores(
    nodes: Iterable[int],
    neighbors: Sequence[Sequence[int]],
    value: Callable[[int], float],
) -> list[float]:
    """Return the summed ``value`` of each connected group of ``nodes``, highest first."""
    members = set(nodes)
    # the order groups are found in does not matter: the scores are sorted
    scores = [sum(map(value, group)) for group in _walk(members, neighbors, members)]
    scores.sort(reverse=True)
    return scores
