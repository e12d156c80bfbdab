"""risk_env: the board game Risk as a reinforcement-learning environment.

``risk_env.env(num_players=4, **rules)`` is the wrapped PettingZoo AEC
environment, ``risk_env.raw_env`` the bare one; :class:`Game` is the rules
engine underneath. See the README and :mod:`risk_env.envs.aec`.
"""

from typing import Any

from . import _compat
from .envs import opponents as _opponents
from .envs.aec import env, raw_env
from .envs.codec import ActionCodec
from .envs.observation import ObservationEncoder
from .errors import (
    ActionSpaceError,
    AgentError,
    AgentRulesError,
    ConfigError,
    IllegalActionError,
    IllegalMoveError,
    InvalidMoveError,
    MapError,
    MissingExtraError,
    RecordError,
    ResetNeededError,
    RiskError,
    StateError,
    UnknownAgentError,
)
from .rules import odds
from .rules.config import PRESETS, RulesConfig
from .rules.engine import Game, GameState, Move, MoveKind, Outcome, Phase
from .rules.map import GameMap, load_map

__version__ = "0.2.0.dev0"
"""The package version (also the distribution's: ``pyproject.toml`` reads it from here)."""

__all__ = [
    "env",
    "raw_env",
    "Game",
    "GameState",
    "Move",
    "MoveKind",
    "Phase",
    "Outcome",
    "RulesConfig",
    "PRESETS",
    "ActionCodec",
    "ObservationEncoder",
    "GameMap",
    "load_map",
    "odds",
    "RiskError",
    "IllegalMoveError",
    "InvalidMoveError",
    "IllegalActionError",
    "MapError",
    "ConfigError",
    "AgentRulesError",
    "StateError",
    "RecordError",
    "UnknownAgentError",
    "AgentError",
    "ActionSpaceError",
    "ResetNeededError",
    "MissingExtraError",
    "__version__",
]


SINGLE_AGENT_ENV_ID = "risk_env/RiskSingleAgent-v0"


def _register() -> None:
    # the Gymnasium id of the single-agent env; the entry point is a string, so the
    # module (and its opponents' machinery) is imported only by gymnasium.make
    import gymnasium

    if SINGLE_AGENT_ENV_ID not in gymnasium.registry:
        # order_enforce=False: the env refuses step() and render() before reset() itself, with ResetNeededError
        # (Gymnasium's OrderEnforcing wrapper would raise its own ResetNeeded first)
        gymnasium.register(
            id=SINGLE_AGENT_ENV_ID, entry_point="risk_env.envs.single_agent:RiskSingleAgentEnv", order_enforce=False
        )
    try:
        from pettingzoo import register
    except ImportError:  # PettingZoo < 1.27 has no registry
        return
    try:
        register("aec", "risk/risk-v0", entry_point="risk_env.envs.aec:env")
    except Exception:  # already registered (module reloaded)
        pass


def _load_agent(spec: Any, seed: int | None = None) -> Any:
    # the agent registry, imported on first use (the envs themselves never import the agents)
    from .agents import load_agent

    return load_agent(spec, seed=seed)


def _load_snapshot(path: str, deterministic: bool = False) -> Any:
    from .agents import MaskablePPOAgent

    return MaskablePPOAgent(path, deterministic=deterministic)


_register()
_opponents.set_agent_resolver(_load_agent, _load_snapshot)
_compat.install()  # the 0.1.0 module paths, with a DeprecationWarning (risk_env._compat.MOVED)


def __getattr__(name: str):  # lazy: evaluation pulls in multiprocessing and the agents
    if name == "evaluate":
        from .tools.evaluation import evaluate

        return evaluate
    raise AttributeError(f"module 'risk_env' has no attribute {name!r}")
