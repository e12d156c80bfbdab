"""Uniform random play over the action mask."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .base import Agent, observation_mask

__all__ = ["RandomAgent"]


class RandomAgent(Agent):
    """Picks uniformly among the legal action ids (of the current sub-step).

    Args:
        seed: seeds the agent's own generator (independent of the game's).
    """

    name = "random"

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        """A legal action id, given ``{"observation", "action_mask"}`` (only the mask is read).

        Raises:
            RiskError: ``observation`` is not a dict with ``"action_mask"``; the mask is not a 1-d array of 0/1
                (:func:`~risk_env.agents.base.observation_mask`), not one entry per action id (where ``info["view"]``
                tells the game's count), or has no legal action (an all-zero mask). The generator is not drawn from then.
        """
        legal = np.flatnonzero(observation_mask(observation, "the random agent", info=info))
        return int(legal[self.rng.integers(len(legal))])
