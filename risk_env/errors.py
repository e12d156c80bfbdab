"""Exceptions raised by risk_env. All are ``ValueError`` subclasses, so code
that catches ``ValueError`` for bad input keeps working."""

from __future__ import annotations

__all__ = ["RiskError", "IllegalMoveError", "IllegalActionError", "MapError", "ConfigError", "StateError"]


class RiskError(ValueError):
    """Base class of every error risk_env raises for bad input."""


class IllegalMoveError(RiskError):
    """A move (or move text) that the rules do not allow in this position.

    The game state is unchanged when this is raised.
    """


class IllegalActionError(IllegalMoveError):
    """An action id that is not legal for the acting agent (see the action mask).

    The game state is unchanged when this is raised.
    """


class MapError(RiskError):
    """A map file or map dict that is malformed (the message names the problem)."""


class ConfigError(RiskError):
    """An unknown rules option, preset, or a value out of its allowed range."""


class StateError(RiskError):
    """A serialized state that is inconsistent with the rules or the map."""
