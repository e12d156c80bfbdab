"""A ``gymnasium.vector.VectorEnv`` over the learner-seat batched env.

>>> import numpy as np
>>> from risk_env.vector.gym_vector import GymnasiumVectorEnv
>>> envs = GymnasiumVectorEnv(4, seed=0, opponents="aggressive", preset="fast", num_players=2)
>>> obs, info = envs.reset(seed=0)
>>> obs.shape, info["action_mask"].shape, envs.single_action_space
((4, 321), (4, 70), Discrete(70))
>>> actions = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
>>> obs, reward, terminated, truncated, info = envs.step(actions)
>>> envs.close()

Gymnasium's vector API on :class:`~risk_env.vector.learner.LearnerEnv`: each slot is one
sub-environment whose agent is the learner seat (the opponents play inside ``step``), so
every ``step`` is one learner decision per slot. Spaces: ``single_observation_space =
Box(0, inf, (D,), float32)`` (the flat :class:`risk_env.ObservationEncoder` vector, as the
single-agent env), ``single_action_space = Discrete(N)``, and their batched forms
(``Box`` ``(B, D)``, ``MultiDiscrete([N] * B)``). Observations, rewards and flags are
numpy arrays (for tensors on the device use the learner env itself or the TorchRL env); the legal
ids are ``info["action_mask"]`` (int8 ``(B, N)``, with Gymnasium's ``info["_action_mask"]``)
and :meth:`GymnasiumVectorEnv.action_masks` (bool). ``step`` takes an integer array ``(B,)`` of any signed or
unsigned integer dtype; anything else (None, text, a ragged list, floats, bools, another shape, a numpy masked
array), an id out of range and an id the mask forbids raise :class:`risk_env.IllegalActionError`, with nothing
changed.

Episodes and rewards are the learner's (+1 win, -1 eliminated or another player won,
0 at the turn limit, which is a truncation; shaping if asked). ``metadata["autoreset_mode"]``
says how finished episodes restart (https://farama.org/Vector-Autoreset-Mode):

* ``"next_step"`` (default, Gymnasium's own): the step that ends an episode returns its
  last observation (its mask all ones); the next ``step`` ignores that slot's action and
  returns the new episode's first observation with reward 0.
* ``"same_step"``: the step that ends an episode already returns the new episode's first
  observation; the last one is in ``info["final_obs"]`` (an object array, None where no
  episode ended, with ``info["_final_obs"]``), as ``SyncVectorEnv`` gives it. (Gymnasium
  1.2's ``RecordEpisodeStatistics`` counts every episode as next-step: under same-step an
  episode that follows another in its slot is counted one step short.)
* ``"disabled"``: as next-step, but a finished slot waits for ``reset(options={"reset_mask":
  mask})``; stepping it before raises :class:`risk_env.ResetNeededError`.

Partial resets: ``reset(options={"reset_mask": mask})`` (a bool numpy array ``(B,)``, Gymnasium's
option) starts new episodes in those slots alone and returns every slot's observation (the others
unchanged). A slot whose episode goes on gets a new game (the episode is dropped:
:meth:`~risk_env.vector.learner.LearnerEnv.reset_slots`); one whose episode has ended already holds
its next game, whose first observation is returned. ``seed`` re-seeds the whole batch, so it is
refused with a mask.

Self-play is not offered here (a Gymnasium sub-environment has one agent); use
:class:`~risk_env.vector.learner.LearnerEnv` directly.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..errors import ConfigError, IllegalActionError, ResetNeededError, check_seed
from .env import ID_DTYPES, as_tensor
from .learner import LearnerEnv, LearnerStep, refuse_out_of_range

__all__ = ["GymnasiumVectorEnv"]

_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP, "disabled": AutoresetMode.DISABLED}


class GymnasiumVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` learner-seat games as a Gymnasium vector env (module docstring).

    Args:
        num_envs: sub-environments (slots).
        device: the batched engine's torch device (outputs cross to numpy on the CPU).
        seed: seeds the engine (``reset(seed=...)`` re-seeds it).
        autoreset_mode: ``"next_step"``, ``"same_step"`` or ``"disabled"`` (or the ``AutoresetMode`` member).
        **kwargs: :class:`~risk_env.vector.learner.LearnerEnv`'s other arguments (``opponents``,
            ``learner_seat``, ``shaping``, ``turn_feature``, ``preset``, rule switches, ...).

    Raises:
        ConfigError: an unknown autoreset mode, ``self_play``, the graph observation, ``final_observation`` (this
            env gives the last observation as its autoreset mode says), or a bad LearnerEnv argument.
    """

    def __init__(
        self,
        num_envs: int,
        device: str | torch.device = "cpu",
        seed: int = 0,
        autoreset_mode: str | AutoresetMode = "next_step",
        **kwargs: Any,
    ) -> None:
        mode = _MODES.get(autoreset_mode, None) if isinstance(autoreset_mode, str) else autoreset_mode
        if mode not in tuple(_MODES.values()):
            raise ConfigError(f"autoreset_mode must be one of {list(_MODES)}, got {autoreset_mode!r}")
        if kwargs.get("self_play"):
            raise ConfigError("a Gymnasium vector env has one agent per sub-environment: use LearnerEnv for self-play")
        if kwargs.get("observation", "flat") != "flat":
            raise ConfigError("a Gymnasium vector env gives the flat observation; use LearnerEnv for observation='graph'")
        if kwargs.get("render_mode") is not None:
            raise ConfigError(
                f"render_mode={kwargs['render_mode']!r}: the batched env draws no frames (render_mode is None); draw a "
                "game with risk_env.env(render_mode=...) or watch one with risk-env watch"
            )
        kwargs.pop("render_mode", None)
        if "final_observation" in kwargs:
            raise ConfigError(
                "a Gymnasium vector env gives the last observation as its autoreset_mode says "
                "(next-step: in the step's observation; same-step: info['final_obs']): drop final_observation"
            )
        self.learner_env = LearnerEnv(num_envs, device=device, seed=seed, final_observation=True, **kwargs)
        env = self.learner_env
        self.num_envs = num_envs
        self.metadata = {"autoreset_mode": mode}
        self.render_mode = None
        self.single_observation_space = spaces.Box(0.0, np.inf, (env.observation_size,), np.float32)
        self.single_action_space = spaces.Discrete(env.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        # next_step / disabled: slots whose episode ended in the last step (the next step, or a reset, starts the next)
        self._pending = np.zeros(num_envs, dtype=bool)
        self._mask: np.ndarray | None = None
        self._obs: np.ndarray | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """New games in every slot, up to the learner's first decision (``seed`` re-seeds the engine), or with
        ``options={"reset_mask": mask}`` in the slots of that bool array ``(B,)`` alone (module docstring).

        Raises:
            ConfigError: ``options`` that is neither a dict nor None, an option other than ``reset_mask``, a mask that
                is not a bool array ``(B,)`` with a True, or a seed with a mask. ResetNeededError: a mask before the
                first full reset. Nothing is changed then.
        """
        if options is not None and not isinstance(options, dict):
            raise ConfigError(
                f"options must be a dict or None (this env takes options={{'reset_mask': mask}}), "
                f"got {type(options).__name__} {options!r}"
            )
        opts = dict(options or {})
        reset_mask = opts.pop("reset_mask", None)
        if opts:
            raise ConfigError(f"unknown reset option(s) {sorted(opts)}; this env takes options={{'reset_mask': mask}}")
        if reset_mask is not None:
            return self._reset_some(reset_mask, seed)
        check_seed(seed, allow_none=True, torch_seed=True)
        seed = None if seed is None else int(seed)  # (Gymnasium takes a Python int)
        super().reset(seed=seed)
        out = self.learner_env.reset(seed=seed)
        self._pending[:] = False
        mask = out.action_mask.cpu().numpy()
        self._mask = mask
        self._obs = out.observation.cpu().numpy()
        return self._obs.copy(), self._info(mask)

    def _reset_some(self, reset_mask: Any, seed: int | None) -> tuple[np.ndarray, dict[str, Any]]:
        B = self.num_envs
        m = np.asarray(reset_mask)
        if m.shape != (B,) or m.dtype != np.bool_ or not m.any():
            raise ConfigError(
                f"options['reset_mask'] must be a bool numpy array of shape ({B},) with at least one True, "
                f"got {m.dtype} {m.shape}"
            )
        if seed is not None:
            raise ConfigError("a seed re-seeds every slot: give it to a full reset (without reset_mask)")
        if self._mask is None or self._obs is None:
            raise ResetNeededError("no games in progress: call reset() (without reset_mask) first")
        env = self.learner_env
        fresh = m & ~self._pending  # episodes that go on: new games now (a finished one's next game is there)
        if fresh.any():
            env.reset_slots(torch.as_tensor(fresh, device=env.device))
        out = env.last
        assert out is not None
        self._obs = np.where(m[:, None], out.observation.cpu().numpy(), self._obs)
        self._mask = np.where(m[:, None], out.action_mask.cpu().numpy(), self._mask)
        self._pending &= ~m
        return self._obs.copy(), self._info(self._mask)

    def _info(self, mask: np.ndarray) -> dict[str, Any]:
        return {"action_mask": mask.astype(np.int8), "_action_mask": np.ones(self.num_envs, dtype=bool)}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner decision per slot.

        Args:
            actions: ``B`` ids, an integer array of shape ``(B,)``: a numpy array, a torch tensor or a list, of any
                signed or unsigned integer dtype (int8 to int64, uint8 to uint64; the ids are 0..N-1 whatever the
                dtype, so an unsigned id too large for int64 is refused as out of range, not wrapped).

        Raises:
            ResetNeededError: before :meth:`reset`, or (``autoreset_mode="disabled"``) a finished slot not reset yet.
            IllegalActionError: no integer array of shape ``(B,)`` (None, text, a ragged list, floats, bools, another
                shape, a numpy masked array, whose mask would be dropped), an id out of range, or an id the mask
                forbids. Nothing is changed then.
        """
        if self._mask is None:
            raise ResetNeededError("no games in progress: call reset() before step()")
        env = self.learner_env
        B = self.num_envs
        want = f"actions must be an integer array of shape ({B},), one id in 0..{env.num_actions - 1} per sub-environment"
        a = as_tensor(_signed(actions, B, env.num_actions), want, IllegalActionError)
        if a.shape != (B,) or a.dtype not in ID_DTYPES:
            raise IllegalActionError(f"{want}, got shape {tuple(a.shape)} dtype {str(a.dtype).removeprefix('torch.')}")
        a = a.to(env.device)
        refuse_out_of_range(a, env.num_actions)  # (in every slot, also one whose action is ignored below)
        mode = self.metadata["autoreset_mode"]
        if mode == AutoresetMode.DISABLED and self._pending.any():
            raise ResetNeededError(
                f"the episodes of slots {np.flatnonzero(self._pending).tolist()} have ended: "
                "reset them (reset(options={'reset_mask': mask})) before the next step"
            )
        next_step = mode != AutoresetMode.SAME_STEP  # next-step and disabled return the last observation itself
        waiting = self._pending.copy() if mode == AutoresetMode.NEXT_STEP else np.zeros(self.num_envs, dtype=bool)
        active = torch.as_tensor(~waiting, device=env.device) if waiting.any() else None
        if active is not None:
            a = torch.where(active, a, 0)  # (the action of a slot starting its new episode is ignored)
        out: LearnerStep = env.step(a, active=active)
        obs = out.observation.cpu().numpy()
        mask = out.action_mask.cpu().numpy()
        reward = out.reward.cpu().numpy().astype(np.float32)
        terminated = out.terminated.cpu().numpy()
        truncated = out.truncated.cpu().numpy()
        done = terminated | truncated
        info: dict[str, Any]
        if next_step:
            self._pending = done.copy()
            if done.any():
                assert out.final_observation is not None
                final = out.final_observation.cpu().numpy()
                obs = np.where(done[:, None], final, obs)
                mask = np.where(done[:, None], True, mask)  # the last observation's mask: any id (it is ignored)
            info = self._info(mask)
        else:
            info = self._info(mask)
            if done.any():
                assert out.final_observation is not None
                final = out.final_observation.cpu().numpy()
                final_obs = np.full(self.num_envs, None, dtype=object)
                for i in np.flatnonzero(done):
                    final_obs[i] = final[i]
                info["final_obs"] = final_obs
                info["_final_obs"] = done.copy()
        self._mask = mask
        self._obs = obs
        return obs.copy(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """bool ``(B, N)``: the legal ids of the observations last returned.

        Raises:
            ResetNeededError: before :meth:`reset`.
        """
        if self._mask is None:
            raise ResetNeededError("no games in progress: call reset() before action_masks()")
        return self._mask.astype(bool)

    def close(self, **kwargs: Any) -> None:
        """Release the games (:meth:`LearnerEnv.close <risk_env.vector.learner.LearnerEnv.close>`) and mark the env
        closed; :meth:`step` then raises :class:`~risk_env.errors.ResetNeededError` until :meth:`reset`."""
        env = getattr(self, "learner_env", None)  # (None: called by __del__ after a refused construction)
        if env is not None:
            env.close()
        self._obs = self._mask = None
        self.closed = True


_WIDE_UNSIGNED = (torch.uint16, torch.uint32, torch.uint64)
"""Unsigned torch dtypes that the engine's id dtypes (:data:`~risk_env.vector.env.ID_DTYPES`) leave out."""


def _signed(actions: Any, B: int, N: int) -> Any:
    """``actions`` with an unsigned integer array ``(B,)`` (numpy, or a torch uint16/32/64 tensor) as int64 ids, after
    refusing an id above int64's range (it would wrap to a negative id; the ids are 0..N-1); anything else unchanged,
    for :meth:`GymnasiumVectorEnv.step`'s own checks (an id of N or more is refused there as any other)."""
    if isinstance(actions, torch.Tensor) and actions.dtype in _WIDE_UNSIGNED:
        actions = actions.cpu().numpy()
    if type(actions) is not np.ndarray or actions.dtype.kind != "u" or actions.shape != (B,):
        return actions
    high = actions > np.iinfo(np.int64).max
    if high.any():
        b = int(np.flatnonzero(high)[0])
        raise IllegalActionError(f"action {int(actions[b])} is out of range in slot {b}: ids are 0..{N - 1}")
    return actions.astype(np.int64)
