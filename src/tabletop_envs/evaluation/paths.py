"""Checks of output paths, made before any game is played (a run never ends in "cannot write").

Each returns a problem text or None, the form :func:`tabletop_envs.core.config.setting`'s
``check`` takes, so a config field declares its own check: ``setting(None, check=file_problem)``.
"""

from __future__ import annotations

import os
from pathlib import Path


def file_problem(path: str | None) -> str | None:
    """Return why a file cannot be written at ``path`` (None: it can, or no path given)."""
    if path is None:
        return None
    if not path.strip():
        return "must name a file"
    target = Path(path)
    if target.is_dir():
        return "is a folder, not a file"
    parent = target.parent
    if not parent.exists():
        return f"must go into an existing folder ({str(parent)!r} does not exist)"
    if not parent.is_dir():
        return f"must go into a folder ({str(parent)!r} is a file)"
    if not os.access(parent, os.W_OK):
        return f"cannot be written (no permission in {str(parent)!r})"
    return None


def folder_problem(path: str | None) -> str | None:
    """Return why files cannot be written into folder ``path`` (made if missing; None: they can)."""
    if path is None:
        return None
    if not path.strip():
        return "must name a folder"
    target = Path(path)
    if target.exists() and not target.is_dir():
        return "is a file, not a folder"
    existing = target
    while not existing.exists():  # the nearest existing folder, where the missing ones are made
        existing = existing.parent
    if not existing.is_dir():
        return f"cannot be made ({str(existing)!r} is a file)"
    if not os.access(existing, os.W_OK):
        return f"cannot be written (no permission in {str(existing)!r})"
    return None


__all__ = ["file_problem", "folder_problem"]
