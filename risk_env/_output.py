"""Output files and folders: one check, before any work is done, that a file (or a folder of results) can be
written where it is asked for; the check creates nothing. The missing folders are made by
:func:`make_output_folder`, once every argument is checked (right before the work, or the write).

>>> check_output_file(None, "--json")  # no file asked for: nothing to check
"""

from __future__ import annotations

import errno
import os

from .errors import ConfigError

__all__ = ["check_output_file", "folder_problem", "make_output_folder"]


def folder_problem(folder: str | os.PathLike[str]) -> str | None:
    """Why the folder ``folder`` could not be made or written into, or None where it can, without creating anything:
    where it is missing, its nearest existing ancestor must be a folder that can be written (not a file, nor on a
    read-only file system), and each missing name must fit the file system's limit; where it is there, an empty file
    is written into it and removed again.

    Returns:
        the system's reason (``"Not a directory"``, ``"File name too long"``, ``"Permission denied"``...), naming the
        path in the way where it is another than ``folder``.
    """
    folder = os.path.abspath(os.fspath(folder))
    if "\0" in folder:
        return "a path cannot hold a NUL character"
    near = _nearest_existing(folder)
    missing = os.path.relpath(folder, near).split(os.sep) if near != folder else []
    if not os.path.isdir(near):
        return f"{os.strerror(errno.ENOTDIR)} ({near!r} is a file)" if near != folder else os.strerror(errno.ENOTDIR)
    if not missing:
        return _probe(folder)
    name_max: int | None
    path_max: int | None
    try:
        name_max = os.pathconf(near, "PC_NAME_MAX")
        path_max = os.pathconf(near, "PC_PATH_MAX")
    except (OSError, ValueError):  # pragma: no cover - a file system that names no limits
        name_max = path_max = None
    if (name_max and any(len(os.fsencode(m)) > name_max for m in missing)) or (path_max and len(os.fsencode(folder)) >= path_max):
        return os.strerror(errno.ENAMETOOLONG)
    if hasattr(os, "statvfs") and os.statvfs(near).f_flag & getattr(os, "ST_RDONLY", 1):
        return os.strerror(errno.EROFS)
    if not os.access(near, os.W_OK | os.X_OK):
        return f"{os.strerror(errno.EACCES)} (in {near!r})"
    return None


def _probe(folder: str) -> str | None:
    """Write an empty file into the existing ``folder`` and remove it: the system's reason if that fails."""
    probe = os.path.join(folder, f".risk_env_write_check_{os.getpid()}")
    try:
        with open(probe, "x", encoding="utf-8"):
            pass
    except FileExistsError:  # pragma: no cover - left by a process of the same id
        return None
    except OSError as e:
        return e.strerror or str(e)
    os.remove(probe)
    return None


def check_output_file(path: str | os.PathLike[str] | None, option: str) -> None:
    """Make sure ``path`` can be written (its folder made if missing), before any game is played or timed,
    creating nothing: an existing file is opened for appending, as the write will open it; a new file's name is
    checked in its folder (an empty file written there and removed again) or, where the folder is missing, against
    the nearest folder that is there (:func:`folder_problem`). Call :func:`make_output_folder` before the write.

    Args:
        path: the file to be written; None or ``""``: none asked for.
        option: how the caller names it, for the message (``"--json"``).

    Raises:
        ConfigError: ``path`` is a folder, its folder could not be made (a file in the way, a name too long, no
            permission, a read-only file system), or the file cannot be written there; the message names ``option``,
            the path and the system's reason.
    """
    if not path:
        return
    path = os.fspath(path)
    if "\0" in path:
        raise ConfigError(f"{option} {path!r}: a file name cannot hold a NUL character")
    if os.path.isdir(path):
        raise ConfigError(f"{option} {path!r} is a folder; give a file name")
    target = os.path.abspath(path)
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        why = folder_problem(folder)
        if why is not None:
            raise ConfigError(f"{option} {path!r}: cannot create the folder {folder!r}: {why}")
        name_max = _name_max(folder)
        if name_max and len(os.fsencode(os.path.basename(target))) > name_max:
            raise ConfigError(f"{option} {path!r}: cannot write the file: {os.strerror(errno.ENAMETOOLONG)}")
        return
    existed = os.path.exists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise ConfigError(f"{option} {path!r}: cannot write the file: {e.strerror or e}") from None
    if not existed:
        os.remove(path)


def _nearest_existing(path: str) -> str:
    """``path`` (absolute) or its nearest ancestor that is there (a dangling link is there: it is in the way)."""
    while not os.path.lexists(path):
        path = os.path.dirname(path)
    return path


def _name_max(folder: str) -> int | None:
    """The longest file name the file system of ``folder``'s nearest existing ancestor takes (None: not said)."""
    try:
        return os.pathconf(_nearest_existing(folder), "PC_NAME_MAX")
    except (OSError, ValueError):  # pragma: no cover - a file system that names no limits
        return None


def make_output_folder(path: str | os.PathLike[str] | None, option: str) -> None:
    """Make the missing folders of the output file ``path`` (checked by :func:`check_output_file`): call it once every
    argument is checked, right before the work or the write.

    Raises:
        ConfigError: the folder cannot be made after all (changed since the check); the message names ``option``,
            the path and the system's reason.
    """
    if not path:
        return
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"{option} {path!r}: cannot create the folder {folder!r}: {e.strerror or e}") from None
