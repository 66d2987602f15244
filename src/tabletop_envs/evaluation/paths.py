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
import shutil
from collections.abc import Sequence
from pathlib import Path

from tabletop_envs.core.config import quote_path
from tabletop_envs.core.errors import InvalidParameterError


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
        return f"must go into an existing folder ({quote_path(parent)} does not exist)"
    if not parent.is_dir():
        return f"must go into a folder ({quote_path(parent)} is a file)"
    if not os.access(parent, os.W_OK):
        return f"cannot be written (no permission in {quote_path(parent)})"
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
        return f"cannot be made ({quote_path(existing)} is a file)"
    if not os.access(existing, os.W_OK):
        return f"cannot be written (no permission in {quote_path(existing)})"
    return None


def earlier_run(folder: str | os.PathLike[str], names: Sequence[str]) -> list[str]:
    """Return which of ``names`` (the files and folders a run writes) ``folder`` already holds."""
    target = user_path(folder)
    return [name for name in names if (target / name).exists()]


def check_new_run(
    out: str | None, names: Sequence[str], *, overwrite: bool, resumed_from: str | None = None
) -> None:
    """Refuse to start a run in ``out`` over an earlier run's files, which it would replace.

    A run resumed from folder ``resumed_from`` goes on there (``out`` the same folder: nothing
    refused); ``overwrite`` allows the replacing, and :func:`prepare_out` then removes what the
    earlier run left, so no file of it stays beside the new run's. InvalidParameterError names
    the files found and both ways out.
    """
    if out is None or overwrite or _same_folder(out, resumed_from):
        return
    found = earlier_run(out, names)
    if found:
        raise InvalidParameterError(
            f"out {quote_path(out)} holds an earlier run ({', '.join(found)}): choose another "
            "folder, or overwrite (--overwrite on a command line) to replace that run"
        )


def _same_folder(out: str | os.PathLike[str], other: str | os.PathLike[str] | None) -> bool:
    """Return whether ``other`` (None: no folder) is the folder ``out``."""
    return other is not None and user_path(other).resolve() == user_path(out).resolve()


def clear_run(out: str | os.PathLike[str], names: Sequence[str]) -> None:
    """Remove the files and folders ``names`` of an earlier run from folder ``out``."""
    target = user_path(out)
    for name in names:
        path = target / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


def prepare_out(
    out: str | os.PathLike[str],
    names: Sequence[str],
    *,
    overwrite: bool,
    resumed_from: str | None = None,
) -> None:
    """Make a run's folder ``out`` as it starts: checked again (the folder may have changed since
    its config was made), and cleared of an earlier run's ``names`` when ``overwrite`` allows it
    (never the folder a resumed run goes on in)."""
    check_new_run(str(out), names, overwrite=overwrite, resumed_from=resumed_from)
    if overwrite and not _same_folder(out, resumed_from):
        clear_run(out, names)
    user_path(out).mkdir(parents=True, exist_ok=True)


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


__all__ = [
    "absolute",
    "check_new_run",
    "clear_run",
    "earlier_run",
    "file_problem",
    "folder_problem",
    "prepare_out",
    "user_path",
]
