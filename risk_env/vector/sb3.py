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
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..train.config import TrainConfig
from .agents import BATCHED_HEURISTICS, make_policy
from .env import VectorEnv, VectorStep

__all__ = ["VectorSB3Env", "build_train_env", "random_legal", "random_opponent"]

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
        shaping: the coefficient of the potential-based territory shaping, as
            :class:`risk_env.envs.single_agent.RiskSingleAgentEnv` (``shaping * (gamma * phi' - phi)``
            per learner step, ``phi = (own - other players' territories) / T``, ``phi' = 0`` at the
            episode's end); 0 turns it off.
        shaping_gamma: the ``gamma`` of that term.
        turn_feature: show turn / turn limit in the observation (False zeroes that entry).
        **rules: ``preset=`` / ``rules=`` / rule switches, as :class:`VectorEnv`.

    Raises:
        ConfigError: a bad seat, opponent or shaping, or unsupported rules.
    """

    def __init__(
        self,
        num_envs: int,
        device: str = "cpu",
        seed: int = 0,
        learner_seat: int = 0,
        opponent: str | Opponent | Sequence[str | Opponent] = "random",
        max_opponent_steps: int = 100_000,
        shaping: float = 0.0,
        shaping_gamma: float = 1.0,
        turn_feature: bool = True,
        **rules: Any,
    ) -> None:
        if not (isinstance(shaping, (int, float)) and shaping >= 0.0):
            raise ConfigError(f"shaping must be a number >= 0, got {shaping!r}")
        if not (isinstance(shaping_gamma, (int, float)) and 0.0 < shaping_gamma <= 1.0):
            raise ConfigError(f"shaping_gamma must be a number in (0, 1] (the learner's discount), got {shaping_gamma!r}")
        self.shaping = float(shaping)
        self.shaping_gamma = float(shaping_gamma)
        self.turn_feature = bool(turn_feature)
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
        # one opponent per distinct entry, playing the slots i with entries[i % len(entries)] == it
        keys = [e if isinstance(e, str) else id(e) for e in entries]
        distinct = list(dict.fromkeys(keys))
        fns = [self._make_opponent(entries[keys.index(k)], gen) for k in distinct]
        if len(fns) == 1:
            self.opponent: Opponent = fns[0]
        else:
            which = torch.tensor([distinct.index(keys[i % len(keys)]) for i in range(num_envs)], device=self.venv.device)
            self.opponent = _mixed([which == k for k in range(len(fns))], fns)
        self.max_opponent_steps = max_opponent_steps
        D, N = self.venv.observation_size, self.venv.num_actions
        self.render_mode = None
        super().__init__(num_envs, spaces.Box(0.0, np.inf, (D,), np.float32), spaces.Discrete(N))
        self._out: VectorStep | None = None
        self._actions: torch.Tensor | None = None
        self._seat = torch.full((num_envs,), learner_seat, dtype=torch.int64, device=self.venv.device)
        self._phi = torch.zeros(num_envs, dtype=torch.float64, device=self.venv.device)
        self._waiting: torch.Tensor | None = None  # slots whose opponents are to move (for the opponents)
        self._turn_col = self.venv.game._obs_off["turn"]

    def _potential(self) -> torch.Tensor:
        """float64 ``(B,)``: the shaping potential, (own territories - other players' territories) / T."""
        s = self.venv.state
        assert s is not None
        own = (s.owner == self.learner).sum(1)
        players = ((s.owner >= 0) & (s.owner < self.venv.num_players)).sum(1)
        return (2 * own - players).double() / self.venv.game.T

    def _obs(self, obs: torch.Tensor) -> np.ndarray:
        if not self.turn_feature:
            obs = obs.clone()
            obs[:, self._turn_col] = 0.0
        return obs.cpu().numpy()

    def _make_opponent(self, entry: str | Opponent, gen: torch.Generator) -> Opponent:
        if isinstance(entry, str):
            if entry == "random":
                return random_opponent(gen)
            if entry in BATCHED_HEURISTICS:
                policy = make_policy(entry, self.venv.game)
                venv = self.venv

                def act(obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
                    assert venv.state is not None
                    return policy(venv.state, mask, self._waiting)  # the slots waiting for an opponent only

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
            self._waiting = waiting
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
        if self.shaping:
            self._phi = self._potential()
        return self._obs(out.observation)

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
        if self.shaping:
            # potential-based: gamma * phi(next decision) - phi(this decision), phi = 0 once the episode ends;
            # a slot whose episode ended starts the next one from the new game's potential
            phi = self._potential()
            shaped = self.shaping * (self.shaping_gamma * torch.where(done, 0.0, phi) - self._phi)
            reward += shaped.to(reward.dtype)
            self._phi = phi
        obs = self._obs(out.observation)
        done_np = done.cpu().numpy()
        trunc_np = trunc.cpu().numpy()
        term_obs = self._obs(self._terminal)
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


def build_train_env(cfg: TrainConfig) -> VecEnv:
    """The training envs of a :class:`~risk_env.train.config.TrainConfig` with ``env.backend: vector``:
    one :class:`VectorSB3Env` of ``env.n_envs`` slots on ``env.vector_device`` (wrapped in SB3's
    ``VecMonitor`` for the episode statistics), the opponents of ``opponents.baselines`` given to
    the slots by ``opponents.weights`` (drawn once, seeded by ``seed``), the env's shaping and
    turn feature.

    Raises:
        ConfigError: what the batched backend does not do: the graph policy (the batched
            engine gives the flat observation: use ``ppo.policy: mlp``), self-play, baselines
            other than ``random`` and the batched heuristics, ``env.max_turn_steps``, or rules
            the batched engine does not support.
    """
    from stable_baselines3.common.vec_env import VecMonitor

    problems = []
    if cfg.ppo.policy != "mlp":
        problems.append("ppo.policy: mlp (the batched engine gives the flat observation, not the graph one)")
    if cfg.opponents.self_play.enabled:
        problems.append("opponents.self_play.enabled: false (no snapshot opponents in the batched engine)")
    known = ("random", *BATCHED_HEURISTICS)
    bad = [b for b in cfg.opponents.baselines if b not in known]
    if bad:
        problems.append(f"opponents.baselines among {list(known)} (not {bad})")
    if cfg.env.max_turn_steps is not None:
        problems.append("env.max_turn_steps: null")
    if problems:
        raise ConfigError("env.backend 'vector' needs " + "; ".join(problems))
    names = list(cfg.opponents.baselines)
    w = np.asarray(cfg.opponents.weights if cfg.opponents.weights is not None else [1.0] * len(names), dtype=np.float64)
    picks = np.random.default_rng(cfg.seed).choice(len(names), size=cfg.env.n_envs, p=w / w.sum())
    venv = VectorSB3Env(
        cfg.env.n_envs,
        device=cfg.env.vector_device,
        seed=cfg.seed,
        opponent=[names[k] for k in picks],
        shaping=cfg.env.shaping,
        shaping_gamma=cfg.env.shaping_gamma if cfg.env.shaping_gamma is not None else cfg.ppo.gamma,
        turn_feature=cfg.env.turn_feature if cfg.env.turn_feature is not None else True,
        rules=cfg.rules_config,
    )
    venv.seed(cfg.seed)
    return VecMonitor(venv)
