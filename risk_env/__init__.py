"""risk_env: the board game Risk as a reinforcement-learning environment."""

from .config import PRESETS, RulesConfig
from .engine import Game, GameState, Move, MoveKind, Phase
from .errors import ConfigError, IllegalActionError, IllegalMoveError, MapError, RiskError, StateError
from .map import GameMap, load_map

__version__ = "0.1.0"
