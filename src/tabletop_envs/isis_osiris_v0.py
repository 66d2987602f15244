"""Isis & Osiris, version 0: ``env()``, ``raw_env()`` and ``parallel_env()``.

Keyword arguments: ``num_players`` (2-4, default 2), ``memory`` (default False: perfect recall,
every revealed value stays visible; True: board tiles are shown face down), ``reward``
(``"win_loss"`` default, or ``"score"``: each player's final score), ``render_mode`` (``"human"``,
``"ansi"``, ``"rgb_array"`` or ``"svg"``), ``illegal_action`` (``"penalize"`` for ``env()`` and
``parallel_env()``, ``"raise"`` for ``raw_env()``). See ``docs/isis_osiris.md``.
"""

from tabletop_envs.envs.make_entry import entry_points

env, raw_env, parallel_env = entry_points("isis_osiris_v0")

__all__ = ["env", "parallel_env", "raw_env"]
