"""A teacher's view of the learner's decisions in :class:`~risk_env.envs.single_agent.RiskSingleAgentEnv`.

The imitation warm start (:mod:`risk_env.train.imitation`) and kickstarting
(:mod:`risk_env.train.kickstart`) both need the action a baseline agent (the
*teacher*, e.g. ``balanced``) would take at the learner's own decision points.
:func:`teacher_action` asks it, through the same observation and ``info`` the env
gives its opponents, without changing the game.

:func:`decision_kind` names the decision (attack target, reinforce territory,
fortify destination, other) so that agreement with the teacher can be reported per kind.

:class:`TrainingEnvWrapper` is the wrapper the trainer puts around every training
env: it adds ``info["teacher_action"]`` (kickstarting) and, on the step that ends
an episode, ``info["episode_score"]`` and ``info["episode_opponents"]`` (the
opponent pool's keys of that episode's opponents, for prioritized fictitious self-play).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from ..envs.codec import Selection
from ..envs.opponents import agent_inputs, resolve_agent
from ..envs.single_agent import RiskSingleAgentEnv
from ..errors import ConfigError
from ..rules.state import GameState, Phase

__all__ = ["DECISION_KINDS", "TrainingEnvWrapper", "decision_kind", "episode_score", "teacher_action"]

DECISION_KINDS = ("attack_target", "reinforce_territory", "fortify_destination", "other")
"""Decision kinds reported by :func:`decision_kind` (index = kind id)."""


def decision_kind(state: GameState, selection: Selection) -> int:
    """The kind of the pending decision, an index into :data:`DECISION_KINDS`:

    * 0 ``attack_target``: attack phase, a source is selected, the target is asked (docs/rules.md §4.2);
    * 1 ``reinforce_territory``: reinforcement phase, the territory to place on is asked (§4.1);
    * 2 ``fortify_destination``: fortify phase, a source is selected, the destination is asked (§4.3);
    * 3 ``other``: everything else (sources, amounts, dice, trades, claims, ends).
    """
    ph = state.phase
    if ph == Phase.ATTACK and not state.roll_pending and selection.src >= 0 and selection.dst < 0:
        return 0
    if ph == Phase.REINFORCE and selection.src < 0 and selection.trade < 0:
        return 1
    if ph == Phase.FORTIFY and selection.src >= 0 and selection.dst < 0:
        return 2
    return 3


def teacher_action(env: RiskSingleAgentEnv, teacher: Any) -> int:
    """The teacher's action id for the learner's pending decision in ``env`` (an unwrapped
    :class:`RiskSingleAgentEnv` between ``reset``/``step`` calls, episode not over).

    The teacher sees what an opponent in the learner's seat would see: the lazy flat
    observation and an ``info`` with the action mask and the seat's
    :class:`~risk_env.envs.view.GameView`.
    When the learner's own earlier sub-steps differ from the teacher's plan, a scripted
    teacher completes the pending selection as close to its plan as it can
    (:meth:`risk_env.envs.codec.ActionCodec.move_to_action`).

    Returns:
        an action id, legal under ``env.action_masks()``.
    """
    view = env.view()
    mask = env.action_masks().astype(np.int8)
    obs, info = agent_inputs(env.encoder, view, mask)
    return int(teacher.act(obs, info))


def episode_score(env: RiskSingleAgentEnv) -> float:
    """The learner's score of a finished episode: 1 won, 0.5 turn limit, 0 lost (eliminated,
    another player won, a stall or an illegal-action penalty)."""
    s = env.game_state
    out = env.game.outcome(s)
    if out.over and out.winner == env.seat:
        return 1.0
    if out.truncated and s.alive[env.seat]:
        return 0.5
    return 0.0


class TrainingEnvWrapper(gymnasium.Wrapper):
    """Adds the trainer's side channels to a :class:`RiskSingleAgentEnv`'s ``info`` (module docstring).

    Args:
        env: a :class:`RiskSingleAgentEnv` (possibly wrapped).
        teacher: an agent spec (:func:`risk_env.envs.opponents.resolve_agent`) whose action at
            every learner decision goes to ``info["teacher_action"]`` (int; -1 once the episode
            is over); ``None``: no teacher.
        seed: seeds the teacher (its tie-breaking jitter).
    """

    def __init__(self, env: gymnasium.Env, teacher: Any = None, seed: int | None = None) -> None:
        super().__init__(env)
        self.teacher = resolve_agent(teacher, seed=seed) if teacher is not None else None

    @property
    def risk_env(self) -> RiskSingleAgentEnv:
        base = self.env.unwrapped
        if not isinstance(base, RiskSingleAgentEnv):  # pragma: no cover
            raise ConfigError(f"TrainingEnvWrapper needs a RiskSingleAgentEnv, got {type(base).__name__}")
        return base

    def set_opponent_priorities(self, priorities: dict[str, float]) -> None:
        """Pass PFSP priorities to the env's opponent pool (:meth:`OpponentPool.set_priorities
        <risk_env.envs.opponents.OpponentPool.set_priorities>`); nothing for fixed opponents."""
        pool = self.risk_env.opponent_pool
        if pool is not None:
            pool.set_priorities(priorities)

    def _label(self, info: dict[str, Any], done: bool) -> None:
        if self.teacher is not None:
            info["teacher_action"] = -1 if done else teacher_action(self.risk_env, self.teacher)

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self._label(info, False)
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        done = bool(terminated or truncated)
        self._label(info, done)
        if done:
            env = self.risk_env
            info["episode_score"] = episode_score(env)
            pool = env.opponent_pool
            info["episode_opponents"] = list(pool.last_drawn) if pool is not None else []
        return obs, reward, terminated, truncated, info
