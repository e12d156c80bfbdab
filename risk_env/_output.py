"""Output files: one check, before any work is done, that a file can be written where it is asked for.

>>> check_output_file(None, "--json")  # no file asked for: nothing to check
"""

from __future__ import annotations

import os

from .errors import ConfigError

__all__ = ["check_output_file"]


def check_output_file(path: str | os.PathLike[str] | None, option: str) -> None:
    """Make sure ``path`` can be written (its folder created if missing), before any game is played or
    timed: the file is opened for appending, as the write will open it, and a file that was not there is
    removed again.

    Args:
        path: the file to be written; None or ``""``: none asked for.
        option: how the caller names it, for the message (``"--json"``).

    Raises:
        ConfigError: the folder cannot be created, ``path`` is a folder, or the file cannot be written there
            (a name too long, no permission, a read-only file system); the message names ``option``, the path
            and the system's reason.
    """
    if not path:
        return
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ConfigError(f"{option} {path!r} is a folder; give a file name")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"{option} {path!r}: cannot create the folder {folder!r}: {e.strerror or e}") from None
    existed = os.path.exists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise ConfigError(f"{option} {path!r}: cannot write the file: {e.strerror or e}") from None
    if not existed:
        os.remove(path)
