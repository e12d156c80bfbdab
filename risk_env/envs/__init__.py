"""Reinforcement-learning front ends over the rules engine.

:mod:`~risk_env.envs.aec` is the PettingZoo AEC environment, built on the action
codec (:mod:`~risk_env.envs.codec`: action ids, masks, sub-steps, complete moves
played as ids and ids written as text) and the observation encoder
(:mod:`~risk_env.envs.observation`), both laid out by :mod:`~risk_env.envs.layout`;
:mod:`~risk_env.envs.wrappers` holds the classic-game wrapper,
:mod:`~risk_env.envs.view` the read-only view scripted agents read, and
:mod:`~risk_env.envs.single_agent` the Gymnasium single-agent env with embedded
opponents (:mod:`~risk_env.envs.opponents`). :mod:`~risk_env.envs.graph` encodes the
graph observation (per-territory features and the edge index), and
:mod:`~risk_env.envs.action_input` reads an action
value the way the action space defines it.
"""
