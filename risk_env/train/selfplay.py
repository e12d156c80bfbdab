"""Self-play on the batched engine: every seat of every game is the learner.

:class:`SelfPlayEnv` wraps :class:`risk_env.vector.VectorEnv` (whose every decision is
made by the seat to act) and adds what a trainer needs to credit each seat with its own
returns: every call's rewards per seat, the seats whose episode ended in it, and the
potential-based territory shaping of
:class:`risk_env.envs.single_agent.RiskSingleAgentEnv` per seat.
:func:`seat_credit` turns a rollout of calls into per-decision rewards and ends.

>>> import torch
>>> env = SelfPlayEnv(4, seed=0, preset="fast")
>>> out = env.reset()
>>> out = env.step(torch.multinomial(out.action_mask.float(), 1).squeeze(1))
>>> tuple(out.rewards.shape), tuple(out.ended.shape)
((4, 2), (4, 2))
"""

from __future__ import annotations

from typing import Any, NamedTuple

import torch

from ..errors import ConfigError
from ..vector import VectorEnv

__all__ = ["SelfPlayEnv", "SelfPlayStep", "seat_credit"]


class SelfPlayStep(NamedTuple):
    """One call of :class:`SelfPlayEnv` (``B`` slots, ``D`` flat observation size, ``N`` actions, ``n`` seats).

    Attributes:
        observation: float32 ``(B, D)``: the flat observation of ``current_player``.
        action_mask: bool ``(B, N)``.
        current_player: int64 ``(B,)``: the seat to decide now.
        rewards: float32 ``(B, n)``: each seat's rewards in this call (+1 win, -1 eliminated, the shaping).
        ended: bool ``(B, n)``: the seats whose episode ended in this call (eliminated, or the game ended).
        autoreset: bool ``(B,)``: the slot holds a new game (its observation is the new game's).
    """

    observation: torch.Tensor
    action_mask: torch.Tensor
    current_player: torch.Tensor
    rewards: torch.Tensor
    ended: torch.Tensor
    autoreset: torch.Tensor


class SelfPlayEnv:
    """``num_envs`` games in which every seat is the learner.

    Args:
        num_envs: slots ``B``.
        device: torch device of the games.
        seed: seeds the engine.
        shaping: coefficient of the potential-based shaping ``shaping * (gamma * phi' - phi)``
            given to a seat at each of its decisions (``phi`` at its previous decision, ``phi'``
            now) and at its episode's end (``phi' = 0``), ``phi = (own - other players'
            territories) / T``; 0 turns it off.
        shaping_gamma: ``gamma`` of the shaping, in (0, 1].
        **rules: ``preset=`` / ``rules=`` / rule switches, as :class:`~risk_env.vector.VectorEnv`.

    Raises:
        ConfigError: a bad shaping value, or rules the batched engine does not support.
    """

    def __init__(
        self,
        num_envs: int,
        device: str | torch.device = "cpu",
        seed: int = 0,
        shaping: float = 0.0,
        shaping_gamma: float = 1.0,
        **rules: Any,
    ) -> None:
        if isinstance(shaping, bool) or not isinstance(shaping, (int, float)) or shaping < 0:
            raise ConfigError(f"shaping must be a number >= 0, got {shaping!r}")
        if isinstance(shaping_gamma, bool) or not isinstance(shaping_gamma, (int, float)) or not 0 < shaping_gamma <= 1:
            raise ConfigError(f"shaping_gamma must be a number in (0, 1], got {shaping_gamma!r}")
        self.venv = VectorEnv(num_envs, device=device, seed=seed, check_actions=False, **rules)
        self.game = self.venv.game
        self.num_envs = num_envs
        self.num_players = self.venv.num_players
        self.device = self.venv.device
        self.shaping = float(shaping)
        self.shaping_gamma = float(shaping_gamma)
        B, n = num_envs, self.num_players
        self._phi = torch.zeros(B, n, dtype=torch.float64, device=self.device)
        self._has_phi = torch.zeros(B, n, dtype=torch.bool, device=self.device)
        self._rows = torch.arange(B, device=self.device)

    @property
    def state(self) -> Any:
        """The games' :class:`~risk_env.vector.state.BatchState`."""
        return self.venv.state

    def reset(self, seed: int | None = None) -> SelfPlayStep:
        """New games in every slot."""
        out = self.venv.reset(seed)
        self._has_phi.zero_()
        ended = torch.zeros(self.num_envs, self.num_players, dtype=torch.bool, device=self.device)
        return self._finish(out.observation, out.action_mask, out.current_player, out.rewards, ended, out.autoreset)

    def step(self, actions: torch.Tensor) -> SelfPlayStep:
        """Apply one action id per slot (int64 ``(B,)``, legal for the seat to act) and auto-reset finished games."""
        out = self.venv.step(actions)
        ended = out.autoreset[:, None] | (out.rewards < 0)
        return self._finish(out.observation, out.action_mask, out.current_player, out.rewards, ended, out.autoreset)

    def _potential(self, seat: torch.Tensor) -> torch.Tensor:
        s = self.venv.state
        if s is None:
            raise ConfigError("no games in progress: call reset() first")
        own = (s.owner == seat[:, None]).sum(1)
        players = ((s.owner >= 0) & (s.owner < self.num_players)).sum(1)
        return (2 * own - players).double() / self.game.T

    def _finish(
        self,
        obs: torch.Tensor,
        mask: torch.Tensor,
        player: torch.Tensor,
        rewards: torch.Tensor,
        ended: torch.Tensor,
        reset: torch.Tensor,
    ) -> SelfPlayStep:
        if self.shaping:
            k, g = self.shaping, self.shaping_gamma
            rewards = rewards.clone()
            # a seat whose episode ended gets the last term (phi' = 0) and starts afresh
            last = ended & self._has_phi
            rewards -= torch.where(last, k * self._phi, 0.0).to(rewards.dtype)
            self._has_phi &= ~ended
            # the seat to decide: gamma * phi(now) - phi(its previous decision)
            phi = self._potential(player)
            prev = self._phi[self._rows, player]
            had = self._has_phi[self._rows, player]
            rewards[self._rows, player] += torch.where(had, k * (g * phi - prev), 0.0).to(rewards.dtype)
            self._phi[self._rows, player] = phi
            self._has_phi[self._rows, player] = True
        return SelfPlayStep(obs, mask, player, rewards, ended, reset)


def seat_credit(
    seat: torch.Tensor, rewards: torch.Tensor, ended: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per-decision credit of a self-play rollout: each decision's reward runs to its seat's next decision.

    Args:
        seat: int64 ``(L, B)``: the seat that decided at each of ``L`` calls.
        rewards: float ``(L, B, n)``: each call's rewards per seat.
        ended: bool ``(L, B, n)``: each call's ended seats.

    Returns:
        ``(reward, done, next_index)``: float ``(L, B)`` the deciding seat's rewards from its decision up
        to its next decision in the same episode; bool ``(L, B)`` its episode ended before that; int64
        ``(L, B)`` the call index of that next decision (``L`` where the rollout ends first).
    """
    L, B, n = rewards.shape
    dev = rewards.device
    acc_r = torch.zeros(B, n, dtype=rewards.dtype, device=dev)
    acc_d = torch.zeros(B, n, dtype=torch.bool, device=dev)
    nxt = torch.full((B, n), L, dtype=torch.int64, device=dev)
    out_r = torch.empty(L, B, dtype=rewards.dtype, device=dev)
    out_d = torch.empty(L, B, dtype=torch.bool, device=dev)
    out_n = torch.empty(L, B, dtype=torch.int64, device=dev)
    for t in range(L - 1, -1, -1):
        # what came after an episode's end belongs to the next episode: forget it, then add this call's
        e = ended[t]
        acc_r = torch.where(e, 0.0, acc_r).to(rewards.dtype) + rewards[t]
        acc_d = acc_d | e
        col = seat[t][:, None]
        out_r[t] = acc_r.gather(1, col)[:, 0]
        out_d[t] = acc_d.gather(1, col)[:, 0]
        out_n[t] = nxt.gather(1, col)[:, 0]
        acc_r = acc_r.scatter(1, col, 0.0)
        acc_d = acc_d.scatter(1, col, False)
        nxt = torch.where(e, L, nxt).scatter(1, col, t)
    return out_r, out_d, out_n
