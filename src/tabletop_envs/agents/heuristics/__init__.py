"""One-ply heuristics of the greedy agent, one module per game (see ``docs/agents.md``)."""
