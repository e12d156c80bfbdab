"""A fused wrapper with the semantics of PettingZoo's classic-game stack.

PettingZoo's classic games wrap their raw env as
``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(env, -1)))``.
Each layer forwards attribute reads through ``__getattr__``, which costs more
per step than Risk's own rules. :class:`ClassicWrapper` does what the three do,
in one layer, and is a subclass of ``OrderEnforcingWrapper`` so code that
checks for it still works:

* before ``reset()``: reading ``agents``, ``rewards``, ``terminations``,
  ``truncations``, ``infos``, ``agent_selection`` or ``num_agents`` raises
  ``AttributeError``; ``step``/``observe``/``state``/``render``/``agent_iter``
  raise PettingZoo's order errors;
* an action outside ``action_space(agent)`` raises ``AssertionError`` (as
  ``AssertOutOfBoundsWrapper`` does);
* an in-range action the mask forbids ends the game: every agent is terminated
  *and* truncated, the offender gets ``illegal_reward`` (-1), the others 0, and
  PettingZoo's illegal-move warning is logged (as ``TerminateIllegalWrapper`` does).

``tests/test_wrappers.py`` checks that it and the standard stack produce the
same trajectories, rewards and errors.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

__all__ = ["ClassicWrapper"]

_BEFORE_RESET = "{} cannot be accessed before reset"


class ClassicWrapper(OrderEnforcingWrapper):
    """Order enforcing + out-of-bounds assertion + terminate-on-illegal, in one layer.

    Args:
        env: a :class:`risk_env.env.raw_env`.
        illegal_reward: reward of an agent that plays an illegal action (default -1).
    """

    def __init__(self, env: Any, illegal_reward: float = -1.0) -> None:
        super().__init__(env)
        self._illegal_value = float(illegal_reward)
        self._terminated = False

    # Hot attributes read straight from the raw env (no __getattr__ chain).
    def _raw(self, name: str) -> Any:
        if not self._has_reset:
            raise AttributeError(_BEFORE_RESET.format(name))
        return getattr(self.env, name)

    agents = property(lambda self: self._raw("agents"))
    agent_selection = property(lambda self: self._raw("agent_selection"))
    rewards = property(lambda self: self._raw("rewards"))
    terminations = property(lambda self: self._raw("terminations"))
    truncations = property(lambda self: self._raw("truncations"))
    infos = property(lambda self: self._raw("infos"))
    _cumulative_rewards = property(lambda self: self.env._cumulative_rewards)

    @property
    def num_agents(self) -> int:
        return len(self._raw("agents"))

    def reset(self, seed: "int | None" = None, options: "dict[str, Any] | None" = None) -> None:
        self._terminated = False
        super().reset(seed=seed, options=options)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self.env
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        assert (action is None and dead) or raw.action_space(agent).contains(action), "action is not in action space"
        if dead:
            raw._was_dead_step(action) if self._terminated else raw.step(action)
            return
        mask = raw._mask if raw.game.to_act(raw.game_state) == raw.agent_name_mapping[agent] else raw._zero_mask
        if not mask[action]:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[agent] = self._illegal_value
            raw._accumulate_rewards()
            raw._deads_step_first()
            raw._rewards_dirty = True
            self._terminated = True
            return
        raw.step(action)
