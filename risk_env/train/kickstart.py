"""Kickstarting: PPO with an annealed imitation term toward a teacher (Schmitt et al., 2018).

:class:`KickstartPPO` is sb3-contrib's ``MaskablePPO`` with one more loss term,

    loss = PPO loss + c(t) * mean_i [ -log pi(a_teacher_i | s_i) ],
    c(t) = kl_coef * max(0, 1 - t / anneal_steps),

where ``s_i`` are the learner's own rollout states, ``a_teacher_i`` the teacher's
action there (a baseline agent such as ``balanced``; its policy is one-hot, so the
cross-entropy equals the KL divergence from the teacher's distribution to the
learner's, up to the teacher's entropy, which is 0) and ``t`` the learner's
decisions so far at the start of the update. ``c`` is exactly 0 from
``t = anneal_steps`` on, and the update is then MaskablePPO's own.

Where the labels come from: :class:`risk_env.train.teacher.TrainingEnvWrapper`
puts the teacher's action for the learner's next decision in ``info["teacher_action"]``
(``-1`` when none); :class:`TeacherLabelCallback` copies them into the rollout
buffer (the extra field ``teacher_actions``, ``int64 (n_steps, n_envs)``) at the
position where MaskablePPO stores the observation they belong to. Samples whose
label is ``-1`` or masked out are left out of the term.

Saved files are plain ``MaskablePPO`` files: the kickstart settings and the buffer
class are not saved, so ``MaskablePPO.load`` and ``risk_env.agents.load_agent`` read them.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, NamedTuple

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableDictRolloutBuffer, MaskableRolloutBuffer
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import explained_variance
from torch.nn import functional as F

from ..errors import ConfigError

__all__ = ["KickstartPPO", "TeacherLabelCallback", "kickstart_coef"]


def kickstart_coef(kl_coef: float, anneal_steps: int, timesteps: int) -> float:
    """``kl_coef * max(0, 1 - timesteps / anneal_steps)``: linear from ``kl_coef`` at step 0
    to exactly 0 at ``anneal_steps`` and after.

    Raises:
        ConfigError: ``kl_coef < 0`` or ``anneal_steps < 1``.
    """
    if not kl_coef >= 0.0:
        raise ConfigError(f"kl_coef must be >= 0, got {kl_coef!r}")
    if anneal_steps < 1:
        raise ConfigError(f"anneal_steps must be >= 1, got {anneal_steps!r}")
    if timesteps >= anneal_steps:
        return 0.0
    return float(kl_coef) * (1.0 - timesteps / anneal_steps)


class KickstartSamples(NamedTuple):
    """A minibatch: MaskablePPO's sample fields plus ``teacher_actions`` (int64 ``(B,)``, -1: none)."""

    observations: Any
    actions: th.Tensor
    old_values: th.Tensor
    old_log_prob: th.Tensor
    advantages: th.Tensor
    returns: th.Tensor
    action_masks: th.Tensor
    teacher_actions: th.Tensor


class _TeacherLabels:
    """Mixin for sb3-contrib's maskable rollout buffers: the ``teacher_actions`` field."""

    buffer_size: int
    n_envs: int
    generator_ready: bool
    teacher_actions: np.ndarray

    def reset(self) -> None:
        super().reset()  # type: ignore[misc]
        self.teacher_actions = np.full((self.buffer_size, self.n_envs), -1, dtype=np.int64)

    def get(self, batch_size: int | None = None) -> Generator[Any, None, None]:
        if not self.generator_ready:
            self.teacher_actions = self.swap_and_flatten(self.teacher_actions).reshape(-1)  # type: ignore[attr-defined]
        yield from super().get(batch_size)  # type: ignore[misc]

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> Any:
        base = super()._get_samples(batch_inds, env)  # type: ignore[misc]
        teacher = th.as_tensor(self.teacher_actions[batch_inds], device=self.device)  # type: ignore[attr-defined]
        return KickstartSamples(*base, teacher)  # type: ignore[call-arg]


class KickstartRolloutBuffer(_TeacherLabels, MaskableRolloutBuffer):  # type: ignore[misc]
    """``MaskableRolloutBuffer`` with teacher labels (flat observations)."""


class KickstartDictRolloutBuffer(_TeacherLabels, MaskableDictRolloutBuffer):  # type: ignore[misc]
    """``MaskableDictRolloutBuffer`` with teacher labels (dict observations, e.g. the graph one)."""


class KickstartPPO(MaskablePPO):
    """``MaskablePPO`` plus the annealed teacher term (module docstring).

    Args:
        *args: ``MaskablePPO``'s positional arguments (policy, env...).
        **kwargs: ``MaskablePPO``'s keyword arguments.
        kl_coef: the term's weight at step 0 (>= 0).
        anneal_steps: learner decisions over which the weight falls linearly to 0 (>= 1).

    Train it with :class:`TeacherLabelCallback` in the callback list and envs wrapped in
    :class:`~risk_env.train.teacher.TrainingEnvWrapper` with a teacher; without labels
    (all ``-1``) the term is 0.
    """

    def __init__(self, *args: Any, kl_coef: float = 1.0, anneal_steps: int = 1_000_000, **kwargs: Any) -> None:
        kickstart_coef(kl_coef, anneal_steps, 0)  # validates
        self.kl_coef = float(kl_coef)
        self.anneal_steps = int(anneal_steps)
        super().__init__(*args, **kwargs)

    def _setup_model(self) -> None:
        # always the labelled buffers (also when loading a plain MaskablePPO file, which names its own)
        dict_obs = isinstance(self.observation_space, spaces.Dict)
        self.rollout_buffer_class = KickstartDictRolloutBuffer if dict_obs else KickstartRolloutBuffer
        super()._setup_model()

    def _excluded_save_params(self) -> list[str]:
        # a saved kickstart run is a plain MaskablePPO file
        return [*super()._excluded_save_params(), "rollout_buffer_class", "kl_coef", "anneal_steps"]

    def current_kickstart_coef(self) -> float:
        """The term's weight for the next update (``kickstart_coef`` at ``num_timesteps``)."""
        return kickstart_coef(self.kl_coef, self.anneal_steps, int(self.num_timesteps))

    def _dist_and_values(self, obs: Any, masks: th.Tensor) -> tuple[Any, th.Tensor]:
        pol: Any = self.policy
        if hasattr(pol, "logits_and_value"):  # GraphPolicy: one forward pass
            logits, values = pol.logits_and_value(obs)
            return pol.masked_distribution(logits, masks), values
        return pol.get_distribution(obs, action_masks=masks), pol.predict_values(obs)

    @staticmethod
    def _teacher_loss(dist: Any, teacher: th.Tensor, masks: th.Tensor, agree: list[float]) -> th.Tensor:
        """``mean -log pi(teacher | s)`` over the samples whose label is set and legal (0 if none);
        appends the argmax agreement on them to ``agree``."""
        teach = teacher.long().flatten()
        legal = teach >= 0
        rows = th.arange(len(teach), device=teach.device)
        legal &= masks.reshape(len(teach), -1)[rows, teach.clamp_min(0)].bool()
        if not bool(legal.any()):
            return th.zeros((), device=teach.device)
        lp = dist.log_prob(teach.clamp_min(0))[legal]
        with th.no_grad():
            agree.append(float((dist.distribution.probs[legal].argmax(dim=1) == teach[legal]).float().mean()))
        return -lp.mean()

    def train(self) -> None:
        """One PPO update; with a positive coefficient, each minibatch's loss adds the teacher term."""
        coef = self.current_kickstart_coef()
        self.logger.record("train/kickstart_coef", coef)
        if coef <= 0.0:
            super().train()
            return
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        clip = float(self.clip_range(self._current_progress_remaining))  # type: ignore[operator]
        clip_vf = (
            float(self.clip_range_vf(self._current_progress_remaining))  # type: ignore[operator]
            if self.clip_range_vf is not None
            else None
        )
        logs: dict[str, list[float]] = {k: [] for k in ("pg", "vf", "ent", "ks", "clip", "kl", "agree", "loss")}
        stop = False
        buf: Any = self.rollout_buffer  # a Kickstart*RolloutBuffer (_setup_model): yields KickstartSamples
        for _ in range(self.n_epochs):
            for batch in buf.get(self.batch_size):
                actions = batch.actions.long().flatten()
                masks = batch.action_masks
                dist, values = self._dist_and_values(batch.observations, masks)
                log_prob = dist.log_prob(actions)
                values = values.flatten()
                adv = batch.advantages
                if self.normalize_advantage:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                ratio = th.exp(log_prob - batch.old_log_prob)
                pg_loss = -th.min(adv * ratio, adv * th.clamp(ratio, 1 - clip, 1 + clip)).mean()
                v_pred = values if clip_vf is None else batch.old_values + th.clamp(values - batch.old_values, -clip_vf, clip_vf)
                vf_loss = F.mse_loss(batch.returns, v_pred)
                ent_loss = -th.mean(dist.entropy())
                # the teacher term, on the samples with a legal label
                ks_loss = self._teacher_loss(dist, batch.teacher_actions, masks, logs["agree"])
                loss = pg_loss + self.ent_coef * ent_loss + self.vf_coef * vf_loss + coef * ks_loss
                with th.no_grad():
                    log_ratio = log_prob - batch.old_log_prob
                    approx_kl = float(th.mean((th.exp(log_ratio) - 1) - log_ratio))
                logs["pg"].append(pg_loss.item())
                logs["vf"].append(vf_loss.item())
                logs["ent"].append(ent_loss.item())
                logs["ks"].append(ks_loss.item())
                logs["clip"].append(float(th.mean((th.abs(ratio - 1) > clip).float())))
                logs["kl"].append(approx_kl)
                logs["loss"].append(loss.item())
                if self.target_kl is not None and approx_kl > 1.5 * self.target_kl:
                    stop = True
                    break
                self.policy.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
            self._n_updates += 1
            if stop:
                break
        for key, name in (
            ("pg", "policy_gradient_loss"),
            ("vf", "value_loss"),
            ("ent", "entropy_loss"),
            ("ks", "kickstart_loss"),
            ("clip", "clip_fraction"),
            ("kl", "approx_kl"),
            ("agree", "kickstart_agreement"),
        ):
            if logs[key]:
                self.logger.record(f"train/{name}", float(np.mean(logs[key])))
        if logs["loss"]:
            self.logger.record("train/loss", logs["loss"][-1])  # the last minibatch's, as MaskablePPO logs it
        self.logger.record("train/explained_variance", explained_variance(buf.values.flatten(), buf.returns.flatten()))
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip)


class TeacherLabelCallback(BaseCallback):
    """Copies ``info["teacher_action"]`` of the training envs into a :class:`KickstartPPO`
    rollout buffer, aligned with the observations MaskablePPO stores (module docstring)."""

    def __init__(self) -> None:
        super().__init__(verbose=0)
        self._pending: np.ndarray | None = None

    @staticmethod
    def _labels(infos: Any) -> np.ndarray:
        return np.array([int(i.get("teacher_action", -1)) if i else -1 for i in infos], dtype=np.int64)

    def _on_training_start(self) -> None:
        # the envs were just reset: the labels of the first observations are in the reset infos
        venv: Any = self.training_env
        self._pending = self._labels(getattr(venv, "reset_infos", [{}] * venv.num_envs))

    def _on_step(self) -> bool:
        buf: Any = getattr(self.model, "rollout_buffer", None)
        venv: Any = self.training_env
        if self._pending is not None and hasattr(buf, "teacher_actions") and buf.pos < buf.buffer_size:
            buf.teacher_actions[buf.pos] = self._pending  # the observation MaskablePPO adds next
        infos = self.locals["infos"]
        dones = self.locals["dones"]
        nxt = self._labels(infos)
        resets = getattr(venv, "reset_infos", None)
        for i, done in enumerate(dones):
            if done:  # the next observation is the reset one
                nxt[i] = self._labels([resets[i]])[0] if resets is not None else -1
        self._pending = nxt
        return True
