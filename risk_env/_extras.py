"""Optional dependencies: one clear error naming the extra that provides a missing module.

>>> require("numpy", "core", "the engine").__name__
'numpy'
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import MissingExtraError

__all__ = ["require"]


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
