"""A batched engine: ``B`` games of the board game Risk in lockstep as torch tensors.

:class:`VectorEnv` is the Pgx-like interface (``reset()``, ``step(actions)``,
auto-reset), :class:`~risk_env.vector.engine.VectorGame` the batched rules.
Same action ids and masks as :class:`risk_env.ActionCodec`, same observations
as :class:`risk_env.ObservationEncoder`. See ``docs/vector.md``.

Needs torch (the ``train`` extra).
"""

from .._extras import require

require("torch", "train", "the batched engine (risk_env.vector)")

from .engine import SUPPORTED_RULES, BatchState, Chance, VectorGame  # noqa: E402
from .env import VectorEnv, VectorStep  # noqa: E402

__all__ = ["SUPPORTED_RULES", "BatchState", "Chance", "VectorEnv", "VectorGame", "VectorStep"]
