"""Uniform random play over the action mask."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from risk_env.errors import RiskError

from .base import Agent

__all__ = ["RandomAgent"]


class RandomAgent(Agent):
    """Picks uniformly among the legal action ids (of the current sub-step).

    Args:
        seed: seeds the agent's own generator (independent of the game's).
    """

    name = "random"

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        """A legal action id, given ``{"observation", "action_mask"}``.

        Raises:
            RiskError: the mask has no legal action (an all-zero mask).
        """
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) == 0:
            raise RiskError("the random agent was asked to act with no legal action (an all-zero mask)")
        return int(legal[self.rng.integers(len(legal))])
