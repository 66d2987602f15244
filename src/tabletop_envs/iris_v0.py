"""Iris, version 0: ``env()``, ``raw_env()`` and ``parallel_env()``.

Keyword arguments: ``board_size`` (3-16, default 5), ``auto_forced`` (default False: forced
opposite stones and forfeits are steps with one legal action), ``render_mode`` (``"human"``,
``"ansi"``, ``"rgb_array"`` or ``"svg"``), ``illegal_action`` (``"penalize"`` for ``env()`` and
``parallel_env()``, ``"raise"`` for ``raw_env()``). See ``docs/iris.md``.
"""

from tabletop_envs.envs.make_entry import entry_points

env, raw_env, parallel_env = entry_points("iris_v0")

__all__ = ["env", "parallel_env", "raw_env"]
