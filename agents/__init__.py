"""Baseline agents (installed as ``risk_env.agents``)."""

from .random_agent import RandomAgent

__all__ = ["RandomAgent"]
