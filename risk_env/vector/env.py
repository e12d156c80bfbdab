"""``VectorEnv``: ``B`` games in lockstep behind a Pgx-like interface.

>>> from risk_env.vector import VectorEnv
>>> env = VectorEnv(8, seed=0, preset="fast")
>>> out = env.reset()
>>> out.observation.shape, out.action_mask.shape, out.rewards.shape
(torch.Size([8, 427]), torch.Size([8, 70]), torch.Size([8, 4]))
>>> a = torch.multinomial(out.action_mask.float(), 1).squeeze(1)
>>> out = env.step(a)

Each slot holds one game. ``step(actions)`` applies one action id per slot
for the seat to act there (``current_player``), with the ids and masks of
:class:`risk_env.ActionCodec`; observations are
:class:`risk_env.ObservationEncoder` vectors from that seat. Rewards
``(B, num_players)`` follow the AEC env: -1 to a seat in the step that
eliminates it, +1 to the winner; a turn-limit truncation scores 0 (the
``"draw"`` rule).

Auto-reset: when a slot's game ends in a step, that step's ``rewards``,
``terminated`` and ``truncated`` describe the finished game, ``autoreset`` is
True there, and ``observation``, ``action_mask`` and ``current_player`` are
already those of a new game in the slot. The finished game's last
observation (from the seat that made the final move, as
``ObservationEncoder.encode`` would give it) is in ``final_observation`` when
the env was made with ``final_observation=True`` (else that field is None).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import torch

from ..errors import ConfigError, IllegalActionError
from ..rules.config import RulesConfig
from .engine import BatchState, VectorGame
from .observe import hand_symbols

__all__ = ["VectorEnv", "VectorStep"]


class VectorStep(NamedTuple):
    """One batched transition (``B`` slots, ``D`` observation size, ``N`` actions, ``n`` players).

    Attributes:
        observation: float32 ``(B, D)`` for ``current_player``.
        action_mask: bool ``(B, N)``.
        current_player: int64 ``(B,)`` the seat to act.
        rewards: float32 ``(B, n)`` this step's rewards per seat.
        terminated: bool ``(B,)`` the game was won in this step.
        truncated: bool ``(B,)`` the turn limit ended the game in this step.
        autoreset: bool ``(B,)`` the slot now holds a new game (``terminated | truncated``).
        final_observation: float32 ``(B, D)`` or None (see the module docstring).
    """

    observation: torch.Tensor
    action_mask: torch.Tensor
    current_player: torch.Tensor
    rewards: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    autoreset: torch.Tensor
    final_observation: torch.Tensor | None = None


class VectorEnv:
    """``num_envs`` games of the board game Risk on one torch device.

    Args:
        num_envs: batch size ``B`` (>= 1).
        device: a torch device (``"cpu"``, ``"cuda"``, ...).
        seed: seeds the env's one ``torch.Generator`` (setup, dice, reshuffles).
        preset: a rules preset name (``"classic"``, ``"fast"``).
        rules: a :class:`RulesConfig` (alternative to ``preset`` and keywords).
        check_actions: raise :class:`IllegalActionError` on an illegal id (one mask
            lookup and a device sync per step); False skips the check.
        final_observation: also return the last observation of finished games.
        **overrides: rule switches (``num_players=3``, ``turn_limit=300``...).

    Raises:
        ConfigError: bad arguments, or rules the batched engine does not support.
    """

    def __init__(
        self,
        num_envs: int,
        device: str | torch.device = "cpu",
        seed: int = 0,
        preset: str | None = None,
        rules: RulesConfig | None = None,
        check_actions: bool = True,
        final_observation: bool = False,
        **overrides: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ConfigError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        if rules is not None and preset is not None:
            raise ConfigError("give either rules= or preset=, not both")
        if preset is not None:
            cfg = RulesConfig.from_preset(preset, **overrides)
        elif rules is not None:
            cfg = rules.replace(**overrides) if overrides else rules
        else:
            cfg = RulesConfig.from_dict(overrides)
        self.game = VectorGame(cfg, device=device, seed=seed)
        self.rules = cfg
        self.num_envs = num_envs
        self.num_players = cfg.num_players
        self.num_actions = self.game.num_actions
        self.observation_size = self.game.obs_size
        self.device = self.game.device
        self.check_actions = check_actions
        self.keep_final = final_observation
        self.state: BatchState | None = None
        self._mask: torch.Tensor | None = None
        self._obs: torch.Tensor | None = None
        # a step with at most this share of the slots active runs on those slots only (0: never)
        self.compact_share = 0.25
        # new games for auto-reset come from a pool generated in batches (fewer small calls)
        self._pool: BatchState | None = None
        self._pool_pos = 0
        self._pool_size = max(8, min(256, num_envs // 4))

    def reset(self, seed: int | None = None) -> VectorStep:
        """New games in every slot (``seed`` re-seeds the generator first)."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise ConfigError(f"seed must be an integer >= 0, got {seed!r}")
            self.game.generator.manual_seed(seed)
        self.state = self.game.new_games(self.num_envs)
        self._pool = None
        B, dev = self.num_envs, self.device
        zeros = torch.zeros(B, dtype=torch.bool, device=dev)
        return self._output(torch.zeros(B, self.num_players, device=dev), zeros, zeros, zeros, None)

    def step(
        self, actions: torch.Tensor, active: torch.Tensor | None = None, final_seat: torch.Tensor | None = None
    ) -> VectorStep:
        """Apply one action id per slot (int ``(B,)``, any device) and auto-reset finished games.

        Args:
            actions: the ids, one per slot.
            active: optional bool ``(B,)``; slots where it is False are left as they are
                (their action is ignored, their rewards are 0).
            final_seat: optional int64 ``(B,)``; ``final_observation`` is then given, from these seats.

        Raises:
            IllegalActionError: before ``reset()``, a wrong shape or dtype, or (with
                ``check_actions``) an id the mask forbids in an active slot; nothing is changed then.
        """
        if self.state is None or self._mask is None:
            raise IllegalActionError("no games in progress: call reset() before step()")
        a = torch.as_tensor(actions, device=self.device)
        if a.shape != (self.num_envs,) or a.dtype not in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
            raise IllegalActionError(
                f"actions must be an integer tensor of shape ({self.num_envs},), got {tuple(a.shape)} {a.dtype}"
            )
        a = a.long()
        if self.check_actions:
            bad = (a < 0) | (a >= self.num_actions)
            ok = self._mask.gather(1, a.clamp(0, self.num_actions - 1)[:, None])[:, 0] & ~bad
            if active is not None:
                ok = ok | ~active.to(self.device)
            if not bool(ok.all()):
                b = int((~ok).nonzero()[0, 0])
                legal = self._mask[b].nonzero()[:, 0].tolist()
                raise IllegalActionError(
                    f"action {int(a[b])} is illegal in slot {b} (phase {int(self.state.phase[b])}, "
                    f"seat {int(self.state.player[b])}); legal ids there: {legal}"
                )
        g = self.game
        s = self.state
        if active is not None and self._obs is not None:
            act = active.to(self.device)
            idx = act.nonzero()[:, 0]
            if 0 < idx.numel() <= self.compact_share * self.num_envs:
                return self._step_rows(idx, a, final_seat)
        info = g.step(s, a, active=active)
        rewards = info.eliminated.float().neg()
        wi = info.won.nonzero()[:, 0]
        if wi.numel():
            rewards[wi, s.winner[wi]] = 1.0
        done = info.won | info.truncated
        final = g.observe(s, final_seat.to(self.device)) if final_seat is not None else g.observe(s) if self.keep_final else None
        if bool(done.any()):
            idx = done.nonzero()[:, 0]
            s.put(idx, self._fresh(int(idx.numel())))
        return self._output(rewards, info.won, info.truncated, done, final)

    def _step_rows(self, idx: torch.Tensor, a: torch.Tensor, final_seat: torch.Tensor | None) -> VectorStep:
        """:meth:`step` of the few active slots ``idx`` only: their games are gathered into a small
        batch, stepped (auto-reset included), observed and put back; the other slots' outputs are
        the previous step's. (Same rules and outputs; the generator's draws come in another order.)"""
        g, s = self.game, self.state
        assert s is not None and self._obs is not None and self._mask is not None
        B, dev = self.num_envs, self.device
        sub = BatchState(**{k: v[idx] for k, v in s.fields().items()})
        info = g.step(sub, a[idx])
        rew = info.eliminated.float().neg()
        wi = info.won.nonzero()[:, 0]
        if wi.numel():
            rew[wi, sub.winner[wi]] = 1.0
        done = info.won | info.truncated
        final = None
        if final_seat is not None or self.keep_final:
            final = torch.zeros(B, self.observation_size, device=dev)
            final[idx] = g.observe(sub, final_seat.to(dev)[idx]) if final_seat is not None else g.observe(sub)
        if bool(done.any()):
            di = done.nonzero()[:, 0]
            sub.put(di, self._fresh(int(di.numel())))
        s.put(idx, sub)
        hand = hand_symbols(g, sub, sub.player) if g.NC else None
        obs = self._obs.clone()
        obs[idx] = g.observe(sub, hand=hand)
        mask = self._mask.clone()
        mask[idx] = g.action_mask(sub, hand)
        self._obs, self._mask = obs, mask
        rewards = torch.zeros(B, self.num_players, device=dev)
        rewards[idx] = rew
        zeros = torch.zeros(B, dtype=torch.bool, device=dev)
        won, trunc, reset = zeros.clone(), zeros.clone(), zeros.clone()
        won[idx], trunc[idx], reset[idx] = info.won, info.truncated, done
        return VectorStep(
            observation=obs,
            action_mask=mask,
            current_player=s.player.clone(),
            rewards=rewards,
            terminated=won,
            truncated=trunc,
            autoreset=reset,
            final_observation=final,
        )

    def reset_slots(self, slots: torch.Tensor) -> VectorStep:
        """Start new games in the slots where bool ``slots`` ``(B,)`` is True (others unchanged);
        the returned step has zero rewards and ``autoreset`` equal to ``slots``."""
        if self.state is None:
            raise IllegalActionError("no games in progress: call reset() first")
        m = slots.to(self.device)
        if bool(m.any()):
            idx = m.nonzero()[:, 0]
            self.state.put(idx, self._fresh(int(idx.numel())))
        B, dev = self.num_envs, self.device
        zeros = torch.zeros(B, dtype=torch.bool, device=dev)
        return self._output(torch.zeros(B, self.num_players, device=dev), zeros, zeros, m.clone(), None)

    def _fresh(self, k: int) -> BatchState:
        """``k`` new games, taken from the pool (refilled from the generator when it runs out)."""
        pool = self._pool
        if pool is None or self._pool_pos + k > pool.batch_size:
            pool = self._pool = self.game.new_games(max(k, self._pool_size))
            self._pool_pos = 0
        lo = self._pool_pos
        self._pool_pos += k
        return BatchState(**{name: t[lo : lo + k] for name, t in pool.fields().items()})

    def observe(self, seat: torch.Tensor) -> torch.Tensor:
        """float32 ``(B, D)``: each slot's observation from ``seat`` (int64 ``(B,)``), as ``ObservationEncoder.encode``."""
        if self.state is None:
            raise IllegalActionError("no games in progress: call reset() first")
        return self.game.observe(self.state, seat.to(self.device))

    def _output(
        self,
        rewards: torch.Tensor,
        terminated: torch.Tensor,
        truncated: torch.Tensor,
        autoreset: torch.Tensor,
        final: torch.Tensor | None,
    ) -> VectorStep:
        s = self.state
        assert s is not None
        hand = hand_symbols(self.game, s, s.player) if self.game.NC else None
        self._mask = self.game.action_mask(s, hand)
        self._obs = self.game.observe(s, hand=hand)
        return VectorStep(
            observation=self._obs,
            action_mask=self._mask,
            current_player=s.player.clone(),
            rewards=rewards,
            terminated=terminated,
            truncated=truncated,
            autoreset=autoreset,
            final_observation=final,
        )

    def memory_per_game(self) -> int:
        """Bytes of game state per slot (the state tensors only, not observations or masks)."""
        if self.state is None:
            return self.game.new_games(1).nbytes()
        return self.state.nbytes() // self.num_envs
