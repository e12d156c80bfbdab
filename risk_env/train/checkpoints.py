"""sb3-contrib ``MaskablePPO`` checkpoint files (``.zip``): their one reader, :func:`load_checkpoint`, for the
agent that plays one (:class:`risk_env.agents.MaskablePPOAgent`) and the batched engine's
(:func:`risk_env.vector.network.load_maskable_ppo`). It imports neither: both import it (SB3 when called)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..envs.opponents import preserve_global_rng
from ..errors import RiskError

__all__ = ["load_checkpoint"]


def load_checkpoint(path: str | os.PathLike[str], device: Any = "cpu") -> Any:
    """The sb3-contrib ``MaskablePPO`` model saved at ``path`` (a ``.zip`` the trainer wrote), on ``device``: the one
    reader of such files (:class:`risk_env.agents.MaskablePPOAgent`, the batched
    :func:`~risk_env.vector.network.load_maskable_ppo`). The process's random generators are left as they were (SB3's
    load re-seeds and draws from them).

    Raises:
        RiskError: sb3-contrib is not installed; ``path`` is a graph policy file (``.pt``), or a file that is not a
            MaskablePPO checkpoint that loads here (the message names the file and the loader's reason).
    """
    import pickle
    import zipfile

    p = Path(path)
    if p.suffix == ".pt":
        raise RiskError(
            f"{str(p)!r} is a graph policy file (.pt) of the on-device trainer, not a MaskablePPO checkpoint (.zip): "
            "load it with load_agent (or risk_env.train.graph_net.load_policy)"
        )
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:  # pragma: no cover - depends on the install
        raise RiskError("loading a MaskablePPO checkpoint needs sb3-contrib: pip install 'risk_env[train]'") from None
    with preserve_global_rng():  # SB3's load re-seeds (and draws from) the process's generators
        try:
            return MaskablePPO.load(str(p), device=device)
        except (ValueError, AssertionError, KeyError, EOFError, RuntimeError, zipfile.BadZipFile, pickle.PickleError) as e:
            raise RiskError(
                f"{str(p)!r} is not a MaskablePPO checkpoint that loads here ({type(e).__name__}: {e}); "
                "give a model.zip saved by the trainer, or a .pt policy file"
            ) from None
