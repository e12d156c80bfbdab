"""What every risk_env environment accepts as an action id.

An action is accepted when ``Discrete(N).contains`` says it belongs to the
action space: a Python ``int``, a numpy integer scalar (``np.int64(9)``) or a
0-d integer array (``np.array(9)``, what ``MaskablePPO.predict`` returns for
one observation), in ``0..N-1``. Booleans are refused although Python counts
them as ints (``True`` is almost always a bug, never a deliberate id); floats,
strings, ``None`` for an agent that must act, arrays of another shape and
ids out of range are refused too. Each env raises its own error class for a
refused value (see :mod:`risk_env.envs.aec` and
:mod:`risk_env.envs.single_agent`).

>>> import numpy as np
>>> as_action_id(np.array(9), 70), as_action_id(np.int32(3), 70), as_action_id(5, 70)
(9, 3, 5)
>>> as_action_id(True, 70), as_action_id(2.0, 70), as_action_id(70, 70), as_action_id(np.array([1]), 70)
(None, None, None, None)
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["as_action_id", "as_integer", "describe_action"]

_NUMPY_INTS = frozenset({np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.intp})


def as_action_id(action: Any, n: int) -> int | None:
    """``action`` as a Python ``int`` in ``0..n-1``, or ``None`` when it is not an action id.

    Args:
        action: the value given to ``step``.
        n: the size of the ``Discrete`` action space.

    Returns:
        the id, or ``None`` for a bool, a non-integer, an array that is not 0-d, or a value out of range.
    """
    a = as_integer(action)
    return a if a is not None and 0 <= a < n else None


def as_integer(action: Any) -> int | None:
    """``action`` as a Python ``int`` when it is an integer in one of the accepted forms (of any value),
    else ``None`` (a bool, a float, a string, ``None``, an array that is not 0-d)."""
    if type(action) is int:  # the common cases first
        return action
    if type(action) in _NUMPY_INTS:  # np.flatnonzero / rng.choice give these
        return int(action)
    if isinstance(action, (bool, np.bool_)):
        return None
    if isinstance(action, int):  # an int subclass (IntEnum...)
        return int(action)
    if isinstance(action, (np.generic, np.ndarray)) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        return int(action)
    return None


def describe_action(action: Any) -> str:
    """A short description of a refused action value for error messages
    (an integer says that it is out of range; a bool, a float, a str or an array says its type; a list or another
    object says its type and size, not its items, which may be what only its holder may know)."""
    if action is None:
        return "None"
    if isinstance(action, (bool, np.bool_)):
        return f"{action!r} (a bool)"
    if isinstance(action, np.ndarray) and action.shape != ():
        return f"an array of shape {action.shape} and dtype {action.dtype}"
    if isinstance(action, (int, np.integer)) or (isinstance(action, np.ndarray) and np.issubdtype(action.dtype, np.integer)):
        return f"{int(action)}, which is out of range"
    if isinstance(action, (str, bytes, float, np.floating, np.generic, np.ndarray)):  # (a 0-d array: its value)
        return f"{action!r:.40} ({type(action).__name__})"
    if getattr(action, "shape", None) == () or getattr(action, "ndim", None) == 0:  # a 0-d tensor of another library
        return f"a 0-d {type(action).__name__} (give int(action), a Python int)"
    # a container or another object: its type and size, not its items (a list of ids would be its holder's legal ones)
    try:
        n = len(action)
    except TypeError:  # (no length, or one that refuses: an object)
        return f"an object of type {type(action).__name__}"
    return f"a {type(action).__name__} of {n} item{'' if n == 1 else 's'}"
