"""Worker processes that start from any kind of main program: a script with or without an
``if __name__ == "__main__":`` guard, code fed on standard input, a notebook, ``python -m``.

:func:`risk_env.evaluate` and the soak test play games in a process pool of the ``spawn``
start method (a fresh interpreter per worker: safe with torch and CUDA, the same on every
operating system). By default such a worker first imports the main program again (as
``__mp_main__``), so that objects defined there can be unpickled in it. For a script without
a main guard that re-runs the evaluation inside every worker, which multiprocessing refuses
(about 140 lines of tracebacks ending in ``BrokenProcessPool``); code read from standard input
cannot be imported again at all (``FileNotFoundError: '<stdin>'``).

The games need nothing from the main program when every agent is a spec string (``"balanced"``,
``"runs/x/model.zip"``) or an object whose class lives in an importable module. Then
:func:`worker_context` starts the workers without importing the main program (the spawn
start method's preparation data loses its main-module entry while the workers start), and
any main program works. When an agent object is defined in the main program itself, the workers
need it: the main program is imported as usual when that is safe, and otherwise
:func:`worker_context` stops at once with one :class:`~risk_env.errors.ConfigError` line
saying what to do (a main guard, ``workers=1``, or a module).
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import multiprocessing
import multiprocessing.spawn
import os
import pickle
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import ConfigError

__all__ = ["worker_context", "needs_main_module"]


def needs_main_module(obj: Any) -> bool:
    """Whether sending ``obj`` to a worker process needs the main program there: a ``"__main__:..."``
    spec, or an object whose pickle refers to the ``__main__`` module (a class or function defined
    in the script). Spec strings otherwise never do.

    Raises:
        ConfigError: ``obj`` cannot be pickled at all (so it cannot reach a worker process).

    >>> needs_main_module("balanced"), needs_main_module("__main__:MyAgent")
    (False, True)
    """
    if isinstance(obj, str):
        return obj.strip().startswith("__main__:")
    if isinstance(obj, os.PathLike):
        return False
    try:
        data = pickle.dumps(obj)
    except Exception as e:  # pickling raises many types (PicklingError, TypeError, AttributeError)
        raise ConfigError(
            f"{obj!r} cannot be sent to worker processes ({type(e).__name__}: {e}): pass workers=1 to play in this "
            "process, or give the agent as a spec string ('module:callable')"
        ) from None
    return b"__main__" in data


def _is_main_test(node: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
        return False
    sides = [node.left, node.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    texts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(texts) == 1


def _unguarded_top_level_line(main: Any) -> int | None:
    """The line of the main program's top-level statement running now, if that statement is not
    under ``if __name__ == "__main__":`` (None: guarded, not running at top level, or unknown)."""
    path = getattr(main, "__file__", None)
    frame = inspect.currentframe()
    while frame is not None and not (frame.f_globals is main.__dict__ and frame.f_code.co_name == "<module>"):
        frame = frame.f_back
    if frame is None or not path:
        return None
    line = frame.f_lineno
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return None
    for stmt in tree.body:
        if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
            return None if isinstance(stmt, ast.If) and _is_main_test(stmt.test) else line
    return None


def _check_main_importable(what: str) -> None:
    """Refuse, before any process starts, a worker that would need a main program it cannot import safely.

    Raises:
        ConfigError: the main program is no file (standard input, ``-c``, a notebook), or this call runs at
            its top level outside a main guard (every worker would run it again).
    """
    main = sys.modules["__main__"]
    path = getattr(main, "__file__", None)
    as_module = getattr(getattr(main, "__spec__", None), "name", None)
    if as_module is None and not (path and os.path.isfile(path)):
        raise ConfigError(
            f"{what} is defined in code that worker processes cannot import (standard input, -c, a notebook): "
            "pass workers=1 to play in this process, or define it in a module and give it as 'module:name'"
        )
    line = _unguarded_top_level_line(main)
    if line is not None:
        raise ConfigError(
            f"{what} is defined in {path}, which every worker process imports again, and the call on its line {line} "
            "is not under 'if __name__ == \"__main__\":': put it there, or pass workers=1 to play in this process"
        )


@contextlib.contextmanager
def _main_left_out() -> Iterator[None]:
    """While active, spawned processes do not import the main program (its entries are dropped from
    the preparation data multiprocessing sends a new process)."""
    original = multiprocessing.spawn.get_preparation_data

    def preparation_data(name: str) -> dict[str, Any]:
        data = original(name)
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
        return data

    multiprocessing.spawn.get_preparation_data = preparation_data  # type: ignore[assignment]
    try:
        yield
    finally:
        multiprocessing.spawn.get_preparation_data = original  # type: ignore[assignment]


@contextlib.contextmanager
def worker_context(objects: Sequence[Any] = ()) -> Iterator[Any]:
    """The ``spawn`` multiprocessing context to start worker processes with, inside a ``with``
    block; start the processes (a ``ProcessPoolExecutor``'s submits, a ``Pool``) inside it.

    Args:
        objects: what will be sent to the workers (agent specs or objects), to tell whether they
            need the main program (:func:`needs_main_module`).

    Yields:
        ``multiprocessing.get_context("spawn")``. When nothing in ``objects`` needs the main program,
        processes started inside the block do not import it (so a script without a main guard, or code
        read from standard input, works); otherwise they import it as usual.

    Raises:
        ConfigError: an object cannot be pickled, or needs a main program that the workers cannot
            import safely (see the module docstring); raised before any process starts.
    """
    needing = [o for o in objects if needs_main_module(o)]
    ctx = multiprocessing.get_context("spawn")
    if needing:
        _check_main_importable(f"agent {needing[0]!r}")
        yield ctx
        return
    with _main_left_out():
        yield ctx
