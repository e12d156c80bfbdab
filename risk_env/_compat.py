"""Import paths of release 0.1.0 that moved in 0.2.0, kept with a ``DeprecationWarning``.

``import risk_env.dice`` (0.1.0) still works: it warns once, naming the new home, and gives
the module at that home (the same module object, so ``risk_env.dice is risk_env.rules.dice``).
:data:`MOVED` is the table of every moved module; CHANGELOG.md lists the same moves.

``risk_env.env`` is not among them: in 0.1.0 it was both a module and the function
``risk_env.env()``, and the function keeps that name.

For example ``import risk_env.odds`` warns ``risk_env.odds moved to risk_env.rules.odds in
risk_env 0.2.0; import it from there``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

__all__ = ["MOVED", "install"]

MOVED: dict[str, str] = {
    "risk_env.actions": "risk_env.envs.codec",
    "risk_env.observation": "risk_env.envs.observation",
    "risk_env.sb3_env": "risk_env.envs.single_agent",
    "risk_env.view": "risk_env.envs.view",
    "risk_env.wrappers": "risk_env.envs.wrappers",
    "risk_env.render": "risk_env.records.ansi",
    "risk_env.draw": "risk_env.records.draw",
    "risk_env.record": "risk_env.records.record",
    "risk_env.replay": "risk_env.records.replay",
    "risk_env.cards": "risk_env.rules.cards",
    "risk_env.config": "risk_env.rules.config",
    "risk_env.dice": "risk_env.rules.dice",
    "risk_env.engine": "risk_env.rules.engine",
    "risk_env.map": "risk_env.rules.map",
    "risk_env.maps": "risk_env.rules.maps",
    "risk_env.moves": "risk_env.rules.moves",
    "risk_env.odds": "risk_env.rules.odds",
    "risk_env.state": "risk_env.rules.state",
    "risk_env.benchmark": "risk_env.tools.benchmark",
    "risk_env.cli": "risk_env.tools.cli",
    "risk_env.evaluation": "risk_env.tools.evaluation",
    "risk_env.soak": "risk_env.tools.soak",
    "risk_env.rllib": "risk_env.train.rllib",
    "risk_env.training": "risk_env.train.sb3",
}
"""0.1.0 module path -> its 0.2.0 home."""


class _Alias(importlib.abc.Loader):
    """Loads an old path as the module at its new home (imported, not copied)."""

    def __init__(self, new: str) -> None:
        self.new = new
        self.spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        # stacklevel 2 is the importing code: warnings skips the import machinery's frames
        warnings.warn(
            f"{spec.name} moved to {self.new} in risk_env 0.2.0; import it from there", DeprecationWarning, stacklevel=2
        )
        module = importlib.import_module(self.new)
        self.spec = module.__spec__  # the import system sets __spec__ to the old path's: put it back after
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self.spec  # already executed at its new home


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))


def install() -> None:
    """Put the finder of :data:`MOVED` on ``sys.meta_path`` (once; ``import risk_env`` does it)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
