"""An SB3 ``VecEnv`` over :class:`~risk_env.vector.VectorEnv`: one learner seat per slot,
the other seats played by embedded batched opponents.

>>> from risk_env.vector.sb3 import VectorSB3Env
>>> venv = VectorSB3Env(4, seed=0, preset="fast", num_players=3)
>>> obs = venv.reset()
>>> obs.shape, venv.action_masks().shape
((4, 374), (4, 70))

Works with ``sb3_contrib.MaskablePPO`` (it calls ``env_method("action_masks")``).
Episodes are the learner's: one ends when its game ends or the learner is
eliminated (reward -1; the slot then starts a new game at once). The
learner's reward is the AEC env's (+1 win, -1 eliminated, 0 at a truncation,
``TimeLimit.truncated`` set in ``infos``); ``infos[i]["terminal_observation"]``
holds the last observation of a finished episode, as SB3 expects.

The learner sits in seat ``learner_seat`` (default 0); the turn order is drawn
per game, so it does not always move first. Opponents: ``"random"`` (a
uniformly random legal id), ``"aggressive"`` (the batched ``aggressive`` baseline,
:class:`~risk_env.vector.agents.AggressivePolicy`), a callable ``(observation (B, D),
mask (B, N)) -> ids (B,)`` run on the whole batch, or a list of those: slot ``i``
then plays against entry ``i % len(list)`` (a fixed mix of opponents).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from ..errors import ConfigError
from .agents import BATCHED_HEURISTICS, make_policy
from .env import VectorEnv, VectorStep

__all__ = ["VectorSB3Env", "random_legal", "random_opponent"]

Opponent = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def random_legal(mask: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """int64 ``(B,)``: a uniformly random legal id per row of bool ``mask`` ``(B, N)`` (each row
    needs one legal id; ``N < 256``): the ``k``-th legal id for a uniform ``k``."""
    counts = mask.to(torch.uint8).cumsum(1, dtype=torch.uint8)
    total = counts[:, -1]
    k = (torch.rand(mask.shape[0], generator=generator, device=mask.device) * total).to(torch.uint8)
    k = torch.minimum(k, total - 1)
    return (counts > k[:, None]).to(torch.uint8).argmax(1)


def _mixed(slots: list[torch.Tensor], fns: list[Opponent]) -> Opponent:
    """An opponent playing ``fns[k]`` in the slots where ``slots[k]`` is True."""

    def act(obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        ids = fns[0](obs, mask)
        for where, fn in zip(slots[1:], fns[1:], strict=True):
            ids = torch.where(where, fn(obs, mask), ids)
        return ids

    return act


def random_opponent(generator: torch.Generator) -> Opponent:
    """A batched opponent choosing a uniformly random legal id in every slot."""

    def act(obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return random_legal(mask, generator)

    return act


class VectorSB3Env(VecEnv):
    """``num_envs`` games; the learner plays ``learner_seat`` in each, ``opponent`` the rest.

    Args:
        num_envs: slots.
        device: the batched engine's device (observations go to SB3 as numpy on the CPU).
        seed: seeds the engine and the random opponent.
        learner_seat: 0..num_players-1.
        opponent: ``"random"``, ``"aggressive"``, a batched callable, or a list of those
            (one per slot, cycling; see the module docstring).
        max_opponent_steps: bound on opponent decisions between two learner decisions
            (a safety net; the turn limit ends every game long before).
        **rules: ``preset=`` / ``rules=`` / rule switches, as :class:`VectorEnv`.

    Raises:
        ConfigError: a bad seat or opponent, or unsupported rules.
    """

    def __init__(
        self,
        num_envs: int,
        device: str = "cpu",
        seed: int = 0,
        learner_seat: int = 0,
        opponent: str | Opponent | Sequence[str | Opponent] = "random",
        max_opponent_steps: int = 100_000,
        **rules: Any,
    ) -> None:
        self.venv = VectorEnv(num_envs, device=device, seed=seed, check_actions=False, **rules)
        n = self.venv.num_players
        if isinstance(learner_seat, bool) or not isinstance(learner_seat, int) or not 0 <= learner_seat < n:
            raise ConfigError(f"learner_seat must be a seat in 0..{n - 1}, got {learner_seat!r}")
        self.learner = learner_seat
        gen = torch.Generator(device=self.venv.device)
        gen.manual_seed(seed + 7919)
        entries: list[str | Opponent] = [opponent] if isinstance(opponent, str) or callable(opponent) else list(opponent)
        if not entries:
            raise ConfigError("opponent list is empty; give 'random', 'aggressive', a callable or a list of those")
        fns = [self._make_opponent(e, gen) for e in entries]
        if len(fns) == 1:
            self.opponent: Opponent = fns[0]
        else:
            slot = torch.arange(num_envs, device=self.venv.device) % len(fns)
            self.opponent = _mixed([slot == k for k in range(len(fns))], fns)
        self.max_opponent_steps = max_opponent_steps
        D, N = self.venv.observation_size, self.venv.num_actions
        self.render_mode = None
        super().__init__(num_envs, spaces.Box(0.0, np.inf, (D,), np.float32), spaces.Discrete(N))
        self._out: VectorStep | None = None
        self._actions: torch.Tensor | None = None
        self._seat = torch.full((num_envs,), learner_seat, dtype=torch.int64, device=self.venv.device)

    def _make_opponent(self, entry: str | Opponent, gen: torch.Generator) -> Opponent:
        if isinstance(entry, str):
            if entry == "random":
                return random_opponent(gen)
            if entry in BATCHED_HEURISTICS:
                policy = make_policy(entry, self.venv.game)
                venv = self.venv

                def act(obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
                    assert venv.state is not None
                    return policy(venv.state, mask)

                return act
        elif callable(entry):
            return entry
        raise ConfigError(
            f"opponent must be 'random', one of the batched heuristics {sorted(BATCHED_HEURISTICS)}, "
            f"a callable (obs, mask) -> ids, or a list of those; got {entry!r}"
        )

    # ------------------------------------------------------------------ play
    def _play(
        self, actions: torch.Tensor, where: torch.Tensor, reward: torch.Tensor, done: torch.Tensor, trunc: torch.Tensor
    ) -> VectorStep:
        """One batched step in the slots ``where``; the learner's rewards and episode ends are collected."""
        venv = self.venv
        out = venv.step(actions, active=where, final_seat=self._seat)
        assert out.final_observation is not None
        r = out.rewards[:, self.learner]
        fresh = where & ~done
        reward += torch.where(fresh, r, 0.0)
        over = fresh & out.autoreset
        trunc |= fresh & out.truncated
        s = venv.state
        assert s is not None
        dead = ~out.autoreset & ~s.alive[:, self.learner]  # eliminated; the others play on without it
        if bool(over.any()):
            self._terminal[over] = out.final_observation[over]
        if bool(dead.any()):
            elim = fresh & dead
            self._terminal[elim] = venv.observe(self._seat)[elim]
            done |= elim
            out = venv.reset_slots(dead)
        done |= over
        return out

    def _advance(self, out: VectorStep, reward: torch.Tensor, done: torch.Tensor, trunc: torch.Tensor) -> VectorStep:
        """Let the opponents move until the learner is to act in every slot."""
        for _ in range(self.max_opponent_steps):
            waiting = out.current_player != self.learner
            if not bool(waiting.any()):
                return out
            out = self._play(self.opponent(out.observation, out.action_mask), waiting, reward, done, trunc)
        raise RuntimeError(f"opponents made {self.max_opponent_steps} decisions without the learner's turn coming")

    def reset(self) -> VecEnvObs:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        self._seeds = []
        out = self.venv.reset(seed=seed)
        B, dev = self.num_envs, self.venv.device
        self._terminal = torch.zeros(B, self.venv.observation_size, device=dev)
        done = torch.zeros(B, dtype=torch.bool, device=dev)
        out = self._advance(out, torch.zeros(B, device=dev), done, done.clone())
        self._out = out
        return out.observation.cpu().numpy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = torch.as_tensor(np.asarray(actions), dtype=torch.int64, device=self.venv.device).reshape(-1)

    def step_wait(self) -> VecEnvStepReturn:
        if self._out is None or self._actions is None:
            raise ConfigError("call reset() and step_async() before step_wait()")
        B, dev = self.num_envs, self.venv.device
        acts = self._actions
        if acts.shape != (B,) or bool(((acts < 0) | (acts >= self.venv.num_actions)).any()):
            raise ConfigError(f"step_async needs {B} action ids in 0..{self.venv.num_actions - 1}")
        legal = self._out.action_mask.gather(1, acts[:, None])[:, 0]
        if not bool(legal.all()):
            b = int((~legal).nonzero()[0, 0])
            raise ConfigError(f"the learner's action {int(acts[b])} is masked out in env {b}")
        reward = torch.zeros(B, device=dev)
        done = torch.zeros(B, dtype=torch.bool, device=dev)
        trunc = torch.zeros(B, dtype=torch.bool, device=dev)
        self._terminal.zero_()
        out = self._play(acts, torch.ones(B, dtype=torch.bool, device=dev), reward, done, trunc)
        out = self._advance(out, reward, done, trunc)
        self._out = out
        self._actions = None
        obs = out.observation.cpu().numpy()
        done_np = done.cpu().numpy()
        trunc_np = trunc.cpu().numpy()
        term_obs = self._terminal.cpu().numpy()
        infos: list[dict[str, Any]] = [{} for _ in range(B)]
        for i in np.flatnonzero(done_np):
            infos[i]["terminal_observation"] = term_obs[i]
            infos[i]["TimeLimit.truncated"] = bool(trunc_np[i])
        return obs, reward.cpu().numpy().astype(np.float32), done_np, infos

    # ------------------------------------------------------------------ masks and the VecEnv plumbing
    def action_masks(self) -> np.ndarray:
        """bool ``(num_envs, N)``: the learner's legal ids in every slot."""
        if self._out is None:
            raise ConfigError("call reset() before action_masks()")
        return self._out.action_mask.cpu().numpy()

    def close(self) -> None:
        return None

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any) -> list[Any]:
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)
