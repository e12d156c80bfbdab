"""Agents (installed as ``risk_env.agents``): the interface, the baselines, and loaders.

>>> from risk_env.agents import load_agent
>>> load_agent("balanced", seed=0).name
'balanced'

See :mod:`risk_env.agents.base` for the interface (``act(observation, info) -> int``,
``reset(seed)``, ``name``) and how scripted agents get their
:class:`~risk_env.envs.view.GameView` (``info["view"]``).
"""

from .aggressive import AggressiveAgent
from .balanced import BalancedAgent
from .base import Agent, AgentLike, CallableAgent, ScriptedAgent, amount_action, move_to_action, view_from_info
from .continent import ContinentAgent
from .heuristic import HeuristicAgent
from .policy import MaskablePPOAgent
from .random_agent import RandomAgent
from .registry import (
    BASELINES,
    HEURISTICS,
    PRETRAINED,
    agent_label,
    check_spec,
    load_agent,
    pretrained_path,
    pretrained_rules,
    spec_forms,
)
from .rllib_policy import RLlibPolicyAgent

__all__ = [
    "Agent",
    "AgentLike",
    "ScriptedAgent",
    "CallableAgent",
    "HeuristicAgent",
    "RandomAgent",
    "AggressiveAgent",
    "ContinentAgent",
    "BalancedAgent",
    "MaskablePPOAgent",
    "RLlibPolicyAgent",
    "BASELINES",
    "HEURISTICS",
    "PRETRAINED",
    "pretrained_path",
    "pretrained_rules",
    "check_spec",
    "load_agent",
    "agent_label",
    "spec_forms",
    "move_to_action",
    "amount_action",
    "view_from_info",
]
