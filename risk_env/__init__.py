"""risk_env: the board game Risk as a reinforcement-learning environment.

``risk_env.env(num_players=4, **rules)`` is the wrapped PettingZoo AEC
environment, ``risk_env.raw_env`` the bare one; :class:`Game` is the rules
engine underneath. See the README and :mod:`risk_env.env`.
"""

from .actions import ActionCodec
from .config import PRESETS, RulesConfig
from .engine import Game, GameState, Move, MoveKind, Phase
from .env import env, raw_env
from .errors import ConfigError, IllegalActionError, IllegalMoveError, MapError, RiskError, StateError
from .map import GameMap, load_map
from .observation import ObservationEncoder

__version__ = "0.1.0"

__all__ = [
    "env", "raw_env", "Game", "GameState", "Move", "MoveKind", "Phase", "RulesConfig", "PRESETS",
    "ActionCodec", "ObservationEncoder", "GameMap", "load_map",
    "RiskError", "IllegalMoveError", "IllegalActionError", "MapError", "ConfigError", "StateError",
]


def _register() -> None:
    try:
        from pettingzoo import register
    except ImportError:  # PettingZoo < 1.27 has no registry
        return
    try:
        register("aec", "risk/risk-v0", entry_point="risk_env.env:env")
    except Exception:  # already registered (module reloaded)
        pass


_register()


def __getattr__(name: str):  # lazy: evaluation pulls in multiprocessing and the agents
    if name == "evaluate":
        from .evaluation import evaluate

        return evaluate
    raise AttributeError(f"module 'risk_env' has no attribute {name!r}")
