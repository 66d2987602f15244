"""User paths: checks of output paths, made before any game is played (a run never ends in
"cannot write"), and :func:`absolute`, which every path a user gives goes through where a library
needs it absolute (RLlib and pyarrow read a relative path as a URI without a scheme). Both
expand ``~`` (:func:`user_path`), as the code writing the files does.

The checks return a problem text or None, the form :func:`tabletop_envs.core.config.setting`'s
``check`` takes, so a config field declares its own check: ``setting(None, check=file_problem)``.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from tabletop_envs.core.config import quote


def file_problem(path: str | None) -> str | None:
    """Return why a file cannot be written at ``path`` (None: it can, or no path given)."""
    if path is None:
        return None
    if not path.strip():
        return "must name a file"
    return _usable(path) or _file_problem(user_path(path))


def _file_problem(target: Path) -> str | None:
    """The checks of :func:`file_problem` on a path the system takes."""
    if target.is_dir():
        return "is a folder, not a file"
    parent = target.parent
    if not parent.exists():
        return f"must go into an existing folder ({quote(str(parent))} does not exist)"
    if not parent.is_dir():
        return f"must go into a folder ({quote(str(parent))} is a file)"
    if not os.access(parent, os.W_OK):
        return f"cannot be written (no permission in {quote(str(parent))})"
    return None


def folder_problem(path: str | None) -> str | None:
    """Return why files cannot be written into folder ``path`` (made if missing; None: they can)."""
    if path is None:
        return None
    if not path.strip():
        return "must name a folder"
    return _usable(path) or _folder_problem(user_path(path))


def _folder_problem(target: Path) -> str | None:
    """The checks of :func:`folder_problem` on a path the system takes."""
    if target.exists() and not target.is_dir():
        return "is a file, not a folder"
    existing = target
    while not existing.exists():  # the nearest existing folder, where the missing ones are made
        existing = existing.parent
    if not existing.is_dir():
        return f"cannot be made ({quote(str(existing))} is a file)"
    if not os.access(existing, os.W_OK):
        return f"cannot be written (no permission in {quote(str(existing))})"
    return None


def user_path(path: str | os.PathLike[str]) -> Path:
    """Return a path a user gave with ``~`` expanded: where the shell does not (after ``=``, as
    in ``--json=~/r.json``, or inside a spec), the checks and the writes see the same file."""
    return Path(path).expanduser()


def absolute(path: str | os.PathLike[str]) -> Path:
    """Return ``path`` made absolute: a relative one from the current folder, ``~`` expanded.

    The boundary where a user's path enters code that cannot take a relative one (RLlib's
    ``RLModule.from_checkpoint`` and ``Algorithm.save_to_path`` parse paths as pyarrow URIs:
    ``runs/rllib/checkpoint`` fails there with "URI has empty scheme").
    """
    return Path(path).expanduser().resolve()


def _usable(path: str) -> str | None:
    """Return why ``path`` is no path the system takes (a NUL byte, a name too long), or None."""
    if "\0" in path:
        return "must not contain a NUL character"
    try:
        os.stat(os.path.expanduser(path))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        if isinstance(err, OSError) and err.errno in (errno.ENOENT, errno.ENOTDIR):
            return None
        return f"is not a usable path ({getattr(err, 'strerror', None) or err})"
    return None


__all__ = ["absolute", "file_problem", "folder_problem", "user_path"]
