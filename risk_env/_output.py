"""Output files and folders: one check, before any work is done, that a file (or a folder of results) can be
written where it is asked for; the check leaves nothing behind. The missing folders are made by
:func:`make_output_folder`, once every argument is checked (right before the work, or the write).

>>> check_output_file(None, "--json")  # no file asked for: nothing to check
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from pathlib import Path

from .errors import ConfigError

__all__ = ["check_output_file", "file_name_text", "folder_problem", "make_output_folder", "write_json"]


def _path_text(path: object, what: str) -> str:
    """``path`` (text or an ``os.PathLike`` of text) as text.

    Raises:
        ConfigError: anything else (bytes, a number, None): the message names what was given.
    """
    if isinstance(path, str):
        return path
    if isinstance(path, os.PathLike):
        text = os.fspath(path)
        if isinstance(text, str):
            return text
    raise ConfigError(f"give {what} as text or a pathlib.Path, got {type(path).__name__} {path!r:.60}")


def file_name_text(path: object, option: str) -> str:
    """``path`` as text, for an output file that must be given: None is refused here, where :func:`check_output_file`
    reads it as no file asked for.

    Raises:
        ConfigError: ``path`` is not text or an ``os.PathLike`` of text; the message names ``option`` and what was given.
    """
    try:
        return _path_text(path, "a file name")
    except ConfigError as e:
        raise ConfigError(f"{option}: {e}") from None


def folder_problem(folder: str | os.PathLike[str]) -> str | None:
    """Why the folder ``folder`` could not be made or written into, or None where it can, leaving nothing behind.

    The one check of a folder for the whole library (``--out``, ``--json``, ``--record``, ``out_dir=``). The plain
    cases are read first: where ``folder`` is missing, its nearest existing ancestor must be a folder this user may
    write and each missing name must fit the file system's limit. Then the system itself is asked: the missing
    folders are made and an empty file is written into ``folder``, and all of it is removed again. That is what
    catches a place where the system refuses new folders or files although the permissions allow them (``/proc``,
    ``/sys``, a read-only file system).

    Returns:
        the system's reason (``"Not a directory"``, ``"File name too long"``, ``"Permission denied"``,
        ``"Read-only file system"``...), naming the path in the way where it is another than ``folder``.

    Raises:
        ConfigError: ``folder`` is not text or an ``os.PathLike`` of text (bytes, a number, None).
    """
    folder = _path_text(folder, "a folder")
    if not folder.strip():  # ("" was read as the current folder, " " made a folder named by a space)
        return "an empty folder name"
    if "\0" in folder:
        return "a path cannot hold a NUL character"
    near, missing = _existing_part(folder)
    if not os.path.isdir(near):
        what = _not_folder_kind(near)
        return f"{os.strerror(errno.ENOTDIR)} ({near!r} is {what})" if missing else f"{os.strerror(errno.ENOTDIR)} (it is {what})"
    name_max = _name_max(near)
    for name in missing:
        if name_max and len(os.fsencode(name)) > name_max:
            shown = name[:20] + "..."
            return f"{os.strerror(errno.ENAMETOOLONG)} ({shown!r} is {len(os.fsencode(name))} bytes; at most {name_max})"
    if not os.access(near, os.W_OK | os.X_OK):
        return f"{os.strerror(errno.EACCES)} (in {near!r})"
    return _probe(near, missing)


def _not_folder_kind(path: str) -> str:
    """What the existing path ``path``, which is not a folder, is: ``"a file"``, ``"a device"`` (``/dev/null``),
    ``"a named pipe"``, ``"a socket"`` or ``"a link to nothing"``."""
    if os.path.islink(path) and not os.path.exists(path):
        return "a link to nothing"
    try:
        mode = os.stat(path).st_mode
    except OSError:  # pragma: no cover - removed meanwhile
        return "not a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a file"


def _probe(near: str, missing: list[str]) -> str | None:
    """Make the ``missing`` folders under the existing folder ``near`` and an empty file in the last, then remove
    them all and put back ``near``'s times (best effort: the check never fails on its own clean-up): the system's
    reason where it refuses. So a run refused after the check leaves its folder as it was, its times included."""
    made: list[str] = []
    probe: str | None = None
    try:
        times: os.stat_result | None = os.stat(near)
    except OSError:
        times = None
    try:
        path = near
        for name in missing:
            path = os.path.join(path, name)
            try:
                os.mkdir(path)
            except FileExistsError:  # made meanwhile: not ours to remove
                continue
            made.append(path)
        fd, probe = tempfile.mkstemp(prefix=".risk_env-probe-", dir=path)
        os.close(fd)
    except OSError as e:
        return (e.strerror or str(e)) + (f" (in {near!r})" if missing else "")
    finally:
        if probe is not None:
            with contextlib.suppress(OSError):
                os.remove(probe)
        for path in reversed(made):
            with contextlib.suppress(OSError):
                os.rmdir(path)
        if times is not None:
            with contextlib.suppress(OSError):  # (a folder this user may write but does not own)
                os.utime(near, ns=(times.st_atime_ns, times.st_mtime_ns))
    return None


def check_output_file(path: str | os.PathLike[str] | None, option: str) -> None:
    """Make sure ``path`` can be written (its folder made if missing), before any game is played or timed,
    leaving nothing behind: an existing file is opened for appending, as the write will open it; a new file's name is
    checked in its folder (an empty file written there and removed again) or, where the folder is missing, against
    the nearest folder that is there (:func:`folder_problem`). Call :func:`make_output_folder` before the write.

    Args:
        path: the file to be written; None: none asked for.
        option: how the caller names it, for the message (``"--json"``).

    Raises:
        ConfigError: ``path`` is empty or a folder, its folder could not be made (a file in the way, a name too long, no
            permission, a read-only file system), or the file cannot be written there; the message names ``option``,
            the path and the system's reason.
    """
    if path is None:
        return
    path = file_name_text(path, option)
    if not path.strip():
        raise ConfigError(f"{option} {path!r}: an empty file name; give a file name, or leave {option} out")
    if "\0" in path:
        raise ConfigError(f"{option} {path!r}: a file name cannot hold a NUL character")
    if os.path.isdir(path) or path.endswith(tuple(filter(None, (os.sep, os.altsep)))):  # ("x.json/" names a folder)
        raise ConfigError(f"{option} {path!r} is a folder; give a file name")
    folder = os.path.dirname(path) or os.curdir  # (as written: the system resolves "..", not the text)
    if not os.path.isdir(folder):
        why = folder_problem(folder)
        if why is not None:
            raise ConfigError(f"{option} {path!r}: cannot create the folder {folder!r}: {why}")
        name_max = _name_max(folder)
        if name_max and len(os.fsencode(os.path.basename(path))) > name_max:
            raise ConfigError(f"{option} {path!r}: cannot write the file: {os.strerror(errno.ENAMETOOLONG)}")
        return
    target = path
    if os.path.islink(path) and not os.path.exists(path):  # (a link to a file yet to be made: the write makes it)
        target = os.path.realpath(path)
        if not os.path.isdir(os.path.dirname(target)):
            raise ConfigError(f"{option} {path!r}: cannot write the file: it is a link to nothing ({os.readlink(path)!r})")
    existed = os.path.exists(target)
    try:
        if existed and stat.S_ISFIFO(os.stat(target).st_mode):  # (opened as usual, it would wait for a reader)
            os.close(os.open(target, os.O_WRONLY | os.O_NONBLOCK))
        else:
            with open(target, "a", encoding="utf-8"):
                pass
    except OSError as e:
        why = "a named pipe that nothing reads" if e.errno == errno.ENXIO else (e.strerror or str(e))
        raise ConfigError(f"{option} {path!r}: cannot write the file: {why}") from None
    if not existed:
        os.remove(target)  # (the file made, not a link to it)


def _existing_part(path: str) -> tuple[str, list[str]]:
    """The longest part of ``path`` that is there (a dangling link is there: it is in the way), and the names after
    it, as the system walks the path: ``".."`` is not read as text (``new/sub/..`` needs ``new/sub``, and ``link/..``
    is the parent of the link's target)."""
    missing: list[str] = []
    while not os.path.lexists(path):
        head, tail = os.path.split(path)
        if tail:
            missing.insert(0, tail)
        if not head:
            return os.curdir, missing
        if head == path:  # pragma: no cover - a root that is not there
            break
        path = head
    return path, missing


def _name_max(folder: str) -> int | None:
    """The longest file name the file system of ``folder``'s nearest existing ancestor takes (None: not said)."""
    try:
        return os.pathconf(_existing_part(folder)[0], "PC_NAME_MAX")
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
    folder = os.path.dirname(path) or os.curdir  # (as written: "new/sub/../x.json" needs new/sub)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"{option} {path!r}: cannot create the folder {folder!r}: {e.strerror or e}") from None


def check_suffix(path: str | os.PathLike[str], option: str, suffix: str, what: str) -> None:
    """Refuse an output file ``path`` whose name does not end in ``suffix`` (any case): ``what`` says what the writer
    writes and which one writes the other form.

    Raises:
        ConfigError: the message names ``option``, the path, the suffix and ``what``; or ``path`` is not text or an
            ``os.PathLike`` of text (None, bytes, a number), named as :func:`check_output_file` names it.
    """
    if Path(file_name_text(path, option)).suffix.lower() != suffix:
        raise ConfigError(f"{option} {os.fspath(path)!r}: give a file name ending in {suffix} ({what})")


def write_text_file(path: str | os.PathLike[str], text: str, option: str) -> Path:
    """Write ``text`` (UTF-8) to the output file ``path`` (checked by :func:`check_output_file` before the work),
    making its missing folders first (:func:`make_output_folder`). Returns the path.

    Raises:
        ConfigError: the folder or the file cannot be written after all (changed since the check, the disk full);
            the message names ``option``, the path and the system's reason; or ``path`` is not text or an
            ``os.PathLike`` of text (None, bytes, a number), refused before anything is made.
    """
    path = file_name_text(path, option)
    make_output_folder(path, option)
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise ConfigError(f"{option} {os.fspath(path)!r}: cannot write the file: {e.strerror or e}") from None
    return Path(path)


def write_json(path: str | os.PathLike[str], data: object, option: str) -> None:
    """Write ``data`` as indented JSON to the output file ``path`` (checked by :func:`check_output_file`), making its
    missing folders first (:func:`make_output_folder`).

    Raises:
        ConfigError: the folder or the file cannot be written after all (the disk full, the folder changed since the
            check); the message names ``option``, the path and the system's reason.
    """
    write_text_file(path, json.dumps(data, indent=1), option)
