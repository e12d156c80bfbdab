"""A fused wrapper with the semantics of PettingZoo's classic-game stack.

PettingZoo's classic games wrap their raw env as
``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(env, -1)))``.
Each layer forwards attribute reads through ``__getattr__``, which costs more
per step than Risk's own rules. :class:`ClassicWrapper` does what the three do,
in one layer, and is a subclass of ``OrderEnforcingWrapper`` so code that
checks for it still works:

* before ``reset()``: reading ``agents``, ``rewards``, ``terminations``,
  ``truncations``, ``infos``, ``agent_selection`` or ``num_agents`` raises
  ``AttributeError``; ``step``/``observe``/``last``/``state``/``render``/``agent_iter``
  raise :class:`~risk_env.errors.ResetNeededError` (an ``AssertionError``, as
  PettingZoo's order errors are), as under :class:`StrictWrapper`;
* an action outside ``action_space(agent)`` (or a bool, or ``None`` for an
  agent that must act) raises :class:`~risk_env.errors.ActionSpaceError`, an
  ``AssertionError`` as ``AssertOutOfBoundsWrapper`` raises, and a
  ``ValueError`` saying which ids are allowed; a non-``None`` action for a
  terminated or truncated agent raises ``IllegalActionError``;
* an in-range action the mask forbids ends the game: every agent is terminated
  *and* truncated, the offender gets ``illegal_reward`` (-1), the others 0, and
  PettingZoo's illegal-move warning is logged (as ``TerminateIllegalWrapper`` does).

``tests/test_wrappers.py`` checks that it and the standard stack produce the
same trajectories, rewards and errors.
"""

from __future__ import annotations

from typing import Any, NoReturn

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from ..errors import ActionSpaceError, IllegalActionError, ResetNeededError
from .action_input import as_action_id, describe_action

__all__ = ["ClassicWrapper", "StrictWrapper"]

_BEFORE_RESET = "{} cannot be accessed before reset"


class _ResetChecked(OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` whose calls before ``reset()`` raise the library's
    :class:`~risk_env.errors.ResetNeededError` (an ``AssertionError`` too, as PettingZoo's are) instead of
    PettingZoo's bare ``AssertionError`` (``step``, ``observe``, ``state``, ``render``, ``agent_iter``) or
    ``AttributeError`` (``last``); after ``reset()`` they are PettingZoo's, and ``last``, ``observe``,
    ``state`` and ``render`` are the raw env's (``last`` after every agent has left a finished game raises
    ``ResetNeededError``). It also shows the board in Jupyter (PettingZoo's wrappers do not pass on
    underscore names such as ``_repr_svg_``)."""

    @staticmethod
    def _refuse(what: str) -> NoReturn:
        """The refusal of a call before ``reset()`` (``what`` names the call; callers check ``_has_reset``,
        which keeps the hot ``step`` and ``last`` to one attribute test)."""
        raise ResetNeededError(f"no game in progress: call reset() before {what}()")

    def _repr_svg_(self) -> str | None:
        """The board as SVG, for Jupyter (:meth:`risk_env.envs.aec.raw_env.position`)."""
        return self.env._repr_svg_()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Raises: ResetNeededError: before ``reset()``, or after every agent has left the finished game."""
        if not self._has_reset:
            self._refuse("last")
        return self.env.last(observe)

    def observe(self, agent: Any) -> Any:
        """Raises: ResetNeededError: before ``reset()``; UnknownAgentError: ``agent`` is not one of the agents."""
        if not self._has_reset:
            self._refuse("observe")
        return self.env.observe(agent)

    def state(self) -> Any:
        """Raises: ResetNeededError: before ``reset()``."""
        if not self._has_reset:
            self._refuse("state")
        return self.env.state()

    def render(self) -> Any:
        """Raises: ResetNeededError: before ``reset()`` (whatever the ``render_mode``)."""
        if not self._has_reset:
            self._refuse("render")
        return self.env.render()

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """PettingZoo's order-enforcing iterator. Raises: ResetNeededError: before ``reset()``."""
        if not self._has_reset:
            self._refuse("agent_iter")
        return super().agent_iter(max_iter)


class StrictWrapper(_ResetChecked):
    """PettingZoo's ``OrderEnforcingWrapper`` alone (``risk_env.env(strict=True)``: illegal actions raise
    :class:`~risk_env.errors.IllegalActionError`), with the library's
    :class:`~risk_env.errors.ResetNeededError` for every call before ``reset()``, and the board in Jupyter."""

    def step(self, action: Any) -> None:
        """PettingZoo's (a warning and no change after every agent has left the game).

        Raises:
            ResetNeededError: before ``reset()``; IllegalActionError: as :meth:`risk_env.envs.aec.raw_env.step`.
        """
        if not self._has_reset:
            self._refuse("step")
        super().step(action)


class ClassicWrapper(_ResetChecked):
    """Order enforcing + out-of-bounds assertion + terminate-on-illegal, in one layer.

    Args:
        env: a :class:`risk_env.envs.aec.raw_env`.
        illegal_reward: reward of an agent that plays an illegal action (default -1).
    """

    def __init__(self, env: Any, illegal_reward: float = -1.0) -> None:
        super().__init__(env)
        self._illegal_value = float(illegal_reward)

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
    _cumulative_rewards = property(lambda self: self.env._cumulative_rewards)  # PettingZoo's AECEnv attribute

    @property
    def num_agents(self) -> int:
        return len(self._raw("agents"))

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        """One step with PettingZoo's classic-game semantics (module docstring).

        Raises:
            ResetNeededError: before ``reset()``.
            ActionSpaceError: not an action id.
            IllegalActionError: an action other than ``None`` for a terminated or truncated agent.
        """
        if not self._has_reset:
            self._refuse("step")
        raw = self.env
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        if dead:
            if action is not None:
                how = "terminated" if raw.terminations[agent] else "truncated"
                raise IllegalActionError(f"{agent} is {how}: step it with None (PettingZoo's dead step), got {action!r}")
            raw.step(None)  # the dead step (also after an illegal action ended the game)
            return
        n = raw.codec.n
        a = action if (type(action) is int and 0 <= action < n) else as_action_id(action, n)
        if a is None:
            what = "None (only a terminated or truncated agent steps with None)" if action is None else describe_action(action)
            raise ActionSpaceError(
                f"action is not in action space: {agent} must act with an integer id in 0..{n - 1} (a Python int, "
                f"a numpy integer or a 0-d integer array), got {what}"
            )
        if not raw.is_legal_action(a):
            EnvLogger.warn_on_illegal_move()
            raw.end_for_illegal_action(agent, self._illegal_value)
            return
        raw.step(a)
