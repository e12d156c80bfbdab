"""A TorchRL ``EnvBase`` over the learner-seat batched env: ``batch_size=[B]``, specs, the action mask.

>>> from torchrl.envs import ActionMask, TransformedEnv
>>> from torchrl.envs.utils import check_env_specs
>>> from risk_env.vector.torchrl_env import TorchRLVectorEnv
>>> env = TransformedEnv(TorchRLVectorEnv(4, seed=0, preset="fast", num_players=2), ActionMask())
>>> check_env_specs(env, seed=0)
>>> td = env.rollout(5)
>>> td["observation"].shape, td["action_mask"].shape, td["next", "reward"].shape
(torch.Size([4, 5, 321]), torch.Size([4, 5, 70]), torch.Size([4, 5, 1]))

Each batch element is one slot of :class:`~risk_env.vector.learner.LearnerEnv`: the learner
seat's decisions, the opponents played inside ``step``. Keys and specs (``B`` slots, ``D``
observation size, ``N`` actions), all on the env's device:

==========================  ======================================  =========================================
key                         spec                                    content
==========================  ======================================  =========================================
``"observation"``           ``Unbounded((B, D))`` float32           the flat :class:`risk_env.ObservationEncoder` vector
``"action_mask"``           ``Binary((B, N))`` bool                 the legal ids (TorchRL's ``ActionMask`` transform
                                                                    and masked categorical policies read this key)
``"action"``                ``Categorical(N, (B,))`` int64          one id per slot
``"reward"``                ``Unbounded((B, 1))`` float32           the learner's reward (+1 win, -1 lost, 0 at the turn limit)
``"done"``, ``"terminated"``,  ``Categorical(2, (B, 1))`` bool      the learner's episode ended / by a win or its
``"truncated"``                                                     elimination / at the turn limit
==========================  ======================================  =========================================

Wrap it in ``TransformedEnv(env, ActionMask())`` so that random actions (``rollout`` without a
policy, ``check_env_specs``, ``RandomPolicy``) respect the mask; an id the mask forbids raises
:class:`risk_env.IllegalActionError`. Auto-reset: the step that ends an episode returns its last
observation under ``"next"`` (as TorchRL expects); the slot already holds a new game, whose first
observation the following partial ``reset`` (the ``"_reset"`` entry TorchRL's collectors and
``step_and_maybe_reset`` send) returns without playing anything. A partial reset of a slot whose
episode goes on (a client's own time limit, such as TorchRL's ``StepCounter(max_steps=...)``)
starts a new game there (:meth:`~risk_env.vector.learner.LearnerEnv.reset_slots`; the episode is
dropped). Seeding: ``set_seed(s)`` seeds the engine for the next full reset; ``reset(seed=s)`` (as
Gymnasium's) is that full reset. Any other keyword of ``reset`` is refused (:class:`~risk_env.errors.ConfigError`;
TorchRL itself refuses ``set_state=True``: the games are not reset to a given state).
"""

from __future__ import annotations

from typing import Any

import torch

from .._extras import require
from ..errors import ConfigError, check_seed
from .learner import LearnerEnv, LearnerStep

_FEATURE = "the TorchRL env over the batched engine (risk_env.vector.torchrl_env)"
require("tensordict", "train", _FEATURE)  # (first: torchrl imports it, and the message names the one missing)
require("torchrl", "train", _FEATURE)

from tensordict import TensorDict, TensorDictBase  # noqa: E402
from torchrl.data import Binary, Categorical, Composite, Unbounded  # noqa: E402
from torchrl.envs import EnvBase  # noqa: E402

__all__ = ["TorchRLVectorEnv"]


class TorchRLVectorEnv(EnvBase):
    """``num_envs`` learner-seat games as a TorchRL environment with ``batch_size=[num_envs]`` (module docstring).

    Args:
        num_envs: slots ``B``.
        device: the torch device of the engine and of every tensor.
        seed: the engine's seed until :meth:`set_seed` gives another.
        **kwargs: :class:`~risk_env.vector.learner.LearnerEnv`'s other arguments (``opponents``,
            ``learner_seat``, ``shaping``, ``turn_feature``, ``preset``, rule switches, ...).

    Raises:
        ConfigError: ``self_play`` (one agent per batch element), the graph observation, ``final_observation`` (the
            last observation is under ``"next"``), or a bad LearnerEnv argument.
    """

    def __init__(self, num_envs: int, device: str | torch.device = "cpu", seed: int = 0, **kwargs: Any) -> None:
        if kwargs.get("self_play"):
            raise ConfigError("a TorchRL env of this kind has one agent per batch element: use LearnerEnv for self-play")
        if kwargs.get("observation", "flat") != "flat":
            raise ConfigError("this TorchRL env gives the flat observation; use LearnerEnv for observation='graph'")
        if "final_observation" in kwargs:
            raise ConfigError("this TorchRL env gives an episode's last observation under 'next': drop final_observation")
        learner = LearnerEnv(num_envs, device=device, seed=seed, final_observation=True, **kwargs)
        super().__init__(device=learner.device, batch_size=torch.Size([num_envs]))
        self.learner_env = learner
        B, D, N = num_envs, learner.observation_size, learner.num_actions
        dev = learner.device
        self.observation_spec = Composite(
            observation=Unbounded(shape=(B, D), dtype=torch.float32, device=dev),
            action_mask=Binary(n=N, shape=(B, N), dtype=torch.bool, device=dev),
            shape=(B,),
            device=dev,
        )
        self.action_spec = Categorical(n=N, shape=(B,), dtype=torch.int64, device=dev)
        self.reward_spec = Unbounded(shape=(B, 1), dtype=torch.float32, device=dev)
        flag = Categorical(n=2, shape=(B, 1), dtype=torch.bool, device=dev)
        self.done_spec = Composite(done=flag.clone(), terminated=flag.clone(), truncated=flag.clone(), shape=(B,), device=dev)
        self._seed: int | None = int(seed)
        self._started = False
        self._ended = torch.zeros(num_envs, dtype=torch.bool, device=dev)  # episode ended in the last step: a new game waits

    def _observation(self, obs: torch.Tensor, mask: torch.Tensor) -> TensorDict:
        return TensorDict({"observation": obs, "action_mask": mask}, batch_size=self.batch_size, device=self.device)

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        env = self.learner_env
        seed = kwargs.pop("seed", None)
        if kwargs:
            raise ConfigError(
                f"TorchRLVectorEnv.reset takes a tensordict (with '_reset' for some slots) and seed=, got "
                f"{', '.join(f'{k}=' for k in kwargs)}"
            )
        partial = tensordict is not None and "_reset" in tensordict.keys()
        if seed is not None:  # (as Gymnasium's reset(seed=...): set_seed's seed, then every slot anew; None: no new seed)
            if partial:
                raise ConfigError(
                    "TorchRLVectorEnv.reset: seed= starts every slot anew; give it without a '_reset' entry (a partial "
                    "reset goes on from the seeded games)"
                )
            self._set_seed(seed)
        if partial and self._started and env.last is not None:
            assert tensordict is not None
            want = tensordict.get("_reset").reshape(self.batch_size[0]).to(device=self.device, dtype=torch.bool)
            # finished slots already hold their new game: its first observation, nothing played; a slot whose
            # episode goes on gets a new game now
            fresh = want & ~self._ended
            if bool(fresh.any()):
                env.reset_slots(fresh)
            self._ended &= ~want
            out = env.last
            assert out is not None
        else:
            out = env.reset(seed=self._seed)
            self._seed = None
            self._started = True
            self._ended.zero_()
        td = self._observation(out.observation, out.action_mask)
        zeros = torch.zeros(self.batch_size[0], 1, dtype=torch.bool, device=self.device)
        td.set("done", zeros)
        td.set("terminated", zeros.clone())
        td.set("truncated", zeros.clone())
        return td

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        out: LearnerStep = self.learner_env.step(tensordict.get("action"))
        done = (out.terminated | out.truncated)[:, None]
        self._ended = done[:, 0].clone()
        obs, mask = out.observation, out.action_mask
        if bool(done.any()):
            assert out.final_observation is not None
            # the finished episode's last observation; its mask allows any id (no decision follows it)
            obs = torch.where(done, out.final_observation, obs)
            mask = mask | done
        td = self._observation(obs, mask)
        td.set("reward", out.reward[:, None])
        td.set("done", done)
        td.set("terminated", out.terminated[:, None])
        td.set("truncated", out.truncated[:, None])
        return td

    def close(self, *, raise_if_closed: bool = True) -> None:
        """Release the games (:meth:`LearnerEnv.close <risk_env.vector.learner.LearnerEnv.close>`) and close as
        TorchRL's ``EnvBase.close`` does; a step then raises :class:`~risk_env.errors.ResetNeededError` until a
        reset."""
        env = getattr(self, "learner_env", None)  # (None: called by __del__ after a refused construction)
        if env is not None:
            env.close()
        self._started = False
        super().close(raise_if_closed=raise_if_closed)

    def _set_seed(self, seed: int | None) -> None:
        check_seed(seed, allow_none=True, torch_seed=True)
        self._seed = seed
        self._started = False
