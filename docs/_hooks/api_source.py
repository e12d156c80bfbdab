"""MkDocs hook: the source tree the API reference is read from.

The package installs ``agents/`` as ``risk_env.agents`` and ``configs/`` as ``risk_env.configs``
(``[tool.setuptools.package-dir]``), which a static reader of the checkout (griffe, under
mkdocstrings) cannot see. Before the pages are built this hook lays out the package as it is
installed, in ``build/api-src/risk_env`` (copies of the ``.py`` files only), and mkdocs.yml points
mkdocstrings there, so the reference names every object by its import path.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

_LAYOUT = {"risk_env": "risk_env", "risk_env/agents": "agents", "risk_env/configs": "configs"}
"""Folder in the installed package -> folder in the checkout."""


@event_priority(100)  # before mkdocstrings sets up its handler with these paths
def on_config(config: Any) -> Any:
    root = Path(config.config_file_path).resolve().parent
    out = root / "build" / "api-src"
    if out.exists():
        shutil.rmtree(out)
    for target, source in _LAYOUT.items():
        shutil.copytree(
            root / source,
            out / target,
            ignore=lambda folder, names: (
                [n for n in names if not (n.endswith(".py") or (Path(folder) / n).is_dir())]
                + [n for n in names if n == "__pycache__"]
            ),
            dirs_exist_ok=True,
        )
    return config
