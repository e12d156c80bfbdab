"""Optional dependencies: one clear error naming the extra that provides a missing module.

>>> require("numpy", "core", "the engine").__name__
'numpy'
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import MissingExtraError

__all__ = ["require", "missing_extra_message"]


def require(module: str, extra: str, feature: str) -> ModuleType:
    """Import ``module`` for ``feature``, or say which extra installs it.

    Args:
        module: the module to import (``"imageio.v3"``).
        extra: the ``risk_env`` extra that provides it (``"render"``).
        feature: what needs it, for the message (``"writing an animation"``).

    Returns:
        the imported module.

    Raises:
        MissingExtraError: the module cannot be imported; the one-line message reads
            ``<feature> needs <package> (extra '<extra>'): pip install 'risk_env[<extra>]'``.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.split(".")[0]
        raise MissingExtraError(
            f"{feature} needs {package} (extra '{extra}'): pip install 'risk_env[{extra}]'", extra=extra, module=package
        ) from None


def missing_extra_message(error: ImportError, extra: str, feature: str) -> str | None:
    """The one-line message for ``error`` if it is a missing optional package, else None.

    Args:
        error: the ImportError raised while importing or running ``feature``.
        extra: the ``risk_env`` extra that provides the packages ``feature`` needs.
        feature: what needs them, for the message (``"training"``).

    Returns:
        a :class:`MissingExtraError`'s own message; for another ImportError naming a module outside
        ``risk_env``, ``<feature> needs <package> (extra '<extra>'): pip install 'risk_env[<extra>]'``;
        None when the missing module is ``risk_env``'s own or unnamed (a fault, not an installation matter).

    >>> missing_extra_message(ModuleNotFoundError("No module named 'yaml'", name="yaml"), "train", "training")
    "training needs yaml (extra 'train'): pip install 'risk_env[train]'"
    """
    if isinstance(error, MissingExtraError):
        return str(error)
    package = (error.name or "").split(".")[0]
    if not package or package == "risk_env":
        return None
    return f"{feature} needs {package} (extra '{extra}'): pip install 'risk_env[{extra}]'"
