"""Irk, version 0: ``env()``, ``raw_env()`` and ``parallel_env()``.

Keyword arguments: ``num_players`` (2-4, default 2), ``table_size`` (5-64, default in
``tabletop_envs.games.irk.rules.DEFAULT_TABLE_SIZE``), ``deck`` (tile strings such as ``"G2 R1
."``; default the standard 30-tile deck), ``reward`` (``"win_loss"``: +1 / 0 / -1, or ``"score"``:
final points), ``render_mode`` (``"human"``, ``"ansi"``, ``"rgb_array"`` or ``"svg"``),
``illegal_action`` (``"penalize"`` for ``env()`` and ``parallel_env()``, ``"raise"`` for
``raw_env()``). See ``docs/irk.md``.
"""

from tabletop_envs.envs.make_entry import entry_points

env, raw_env, parallel_env = entry_points("irk_v0")

__all__ = ["env", "parallel_env", "raw_env"]
