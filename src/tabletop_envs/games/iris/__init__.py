"""Iris (Craig Duncan): hexhex connection game for two players."""

from tabletop_envs.games.iris.rules import CHANNELS, IrisParams, IrisState

__all__ = ["CHANNELS", "IrisParams", "IrisState"]
