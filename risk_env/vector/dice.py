"""Dice of the batched engine: single rolls, attacks and blitzes (docs/rules.md §4.2).

Plain functions of a :class:`~risk_env.vector.engine.VectorGame`, which
:meth:`VectorGame.step` calls. Faces come from the game's generator, or from an
injected :class:`~risk_env.vector.state.Chance` (then every blitz is rolled roll
by roll, in the reference engine's order). Drawn from the generator, a single
roll takes its losses from the exact one-roll distribution (one uniform per
game, :func:`sample_roll`), and a blitz draws its end at once from the exact
blitz distribution (:mod:`risk_env.vector.tables`) when both sides fit in the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .state import Chance

if TYPE_CHECKING:
    from .engine import VectorGame

__all__ = ["battle", "roll", "sample_roll"]


def _faces(game: VectorGame, B: int, chance: Chance | None, pos: torch.Tensor, m: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """int64 ``(B, 5)`` faces of one roll: injected (advancing ``pos`` by ``k`` where ``m``) or drawn."""
    if chance is None:
        return torch.randint(1, 7, (B, 5), generator=game.generator, device=game.device)
    tape = chance.dice.to(game.device)
    idx = (pos[:, None] + game._ar5[None, :]).clamp(max=tape.shape[1] - 1)
    faces = tape.gather(1, idx)
    pos += torch.where(m, k, 0)
    return faces


def roll(game: VectorGame, faces: torch.Tensor, att: torch.Tensor, dfd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Losses ``(attacker, defender)`` of one roll with ``att`` and ``dfd`` dice; faces as the reference
    draws them (the first ``att`` the attacker's, the next ``dfd`` the defender's)."""
    ar5 = game._ar5[None, :]
    is_att = ar5 < att[:, None]
    is_def = (ar5 >= att[:, None]) & (ar5 < (att + dfd)[:, None])
    ad = torch.where(is_att, faces, 0).sort(1, descending=True).values[:, :2]
    dd = torch.where(is_def, faces, 0).sort(1, descending=True).values[:, :2]
    pairs = game._ar2[None, :] < torch.minimum(att, dfd)[:, None]
    att_wins = (ad > dd) & pairs
    def_loss = att_wins.sum(1)
    att_loss = (pairs & ~att_wins).sum(1)
    return att_loss, def_loss


def battle(
    game: VectorGame,
    m_roll: torch.Tensor,
    m_blitz: torch.Tensor,
    A: torch.Tensor,
    D: torch.Tensor,
    ndice: torch.Tensor,
    chance: Chance | None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Total losses and the last roll's attacker dice of each game's attack or blitz."""
    B = A.shape[0]
    zero = torch.zeros(B, dtype=torch.int64, device=game.device)
    if not bool(m_roll.any()):
        return zero, zero, ndice
    if chance is None:
        return _battle_sampled(game, m_roll, m_blitz, A, D, ndice)
    pos = zero.clone()
    single = m_roll & ~m_blitz
    dfd = torch.clamp(D, max=2)
    faces = _faces(game, B, chance, pos, single, ndice + dfd)
    al, dl = roll(game, faces, ndice, dfd)
    att_loss = torch.where(single, al, 0)
    def_loss = torch.where(single, dl, 0)
    last = ndice
    # blitz with injected dice: roll by roll, as the reference engine does
    a, d = A.clone(), D.clone()
    active = m_blitz & (a >= 2) & (d >= 1)
    while bool(active.any()):
        k = torch.clamp(a - 1, min=1, max=3)
        j = torch.clamp(d, min=1, max=2)
        faces = _faces(game, B, chance, pos, active, k + j)
        al, dl = roll(game, faces, k, j)
        a -= torch.where(active, al, 0)
        d -= torch.where(active, dl, 0)
        last = torch.where(active, k, last)
        active = active & (a >= 2) & (d >= 1)
    att_loss = torch.where(m_blitz, A - a, att_loss)
    def_loss = torch.where(m_blitz, D - d, def_loss)
    return att_loss, def_loss, last


def sample_roll(game: VectorGame, k: torch.Tensor, j: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Losses ``(attacker, defender)`` of one roll with ``k`` (1..3) against ``j`` (1..2) dice,
    drawn from the exact one-roll distribution (:attr:`MapTables.roll_cdf`) with one uniform
    per game instead of five faces: the same distribution as :func:`roll` of random faces."""
    u = torch.rand(k.shape[0], generator=game.generator, device=game.device)
    att_loss = (game.tab.roll_cdf[3 * k + j] <= u[:, None]).sum(1)
    return att_loss, torch.minimum(k, j) - att_loss


def _battle_sampled(
    game: VectorGame, m_roll: torch.Tensor, m_blitz: torch.Tensor, A: torch.Tensor, D: torch.Tensor, ndice: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """:func:`battle` with the generator, on the sub-batch of games that roll: one roll for an
    attack; for a blitz, single rolls while a side exceeds the blitz table, then one draw from it."""
    gen, dev = game.generator, game.device
    idx = m_roll.nonzero()[:, 0]
    a, d, k = A[idx], D[idx], ndice[idx]
    blitz = m_blitz[idx]
    al, dl = sample_roll(game, k, torch.clamp(d, max=2))
    single = ~blitz
    a2 = torch.where(single, a - al, a)
    d2 = torch.where(single, d - dl, d)
    last = k.clone()
    bi = blitz.nonzero()[:, 0]
    if bi.numel():
        cap = game.tab.blitz_cap
        ba, bd = a[bi], d[bi]
        blast = last[bi]
        active = (ba >= 2) & (bd >= 1)
        while True:  # battles bigger than the table: one roll at a time down to it
            need = active & ((ba - 1 > cap) | (bd > cap))
            if not bool(need.any()):
                break
            kk = torch.clamp(ba - 1, min=1, max=3)
            jj = torch.clamp(bd, min=1, max=2)
            xl, yl = sample_roll(game, kk, jj)
            ba = ba - torch.where(need, xl, 0)
            bd = bd - torch.where(need, yl, 0)
            blast = torch.where(need, kk, blast)
            active = active & (ba >= 2) & (bd >= 1)
        rows = game.tab.blitz_cdf[(ba - 1).clamp(0, cap), bd.clamp(0, cap)]  # (b, 3 cap)
        u = torch.rand(bi.numel(), generator=gen, device=dev) * rows[:, -1]
        j = (rows <= u[:, None]).sum(1).clamp(max=3 * cap - 1)
        conq = j < cap
        left_a = j + 1  # rollers left at a conquest
        t = torch.div(j - cap, 2, rounding_mode="floor") + 1
        kk = (j - cap) % 2 + 1
        ba = torch.where(active, torch.where(conq, left_a + 1, 1), ba)
        bd = torch.where(active, torch.where(conq, 0, t), bd)
        blast = torch.where(active, torch.where(conq, torch.clamp(left_a, max=3), kk), blast)
        a2[bi] = ba
        d2[bi] = bd
        last[bi] = blast
    B = A.shape[0]
    att_loss = torch.zeros(B, dtype=torch.int64, device=dev)
    def_loss = torch.zeros(B, dtype=torch.int64, device=dev)
    out_last = ndice.clone()
    att_loss[idx] = a - a2
    def_loss[idx] = d - d2
    out_last[idx] = last
    return att_loss, def_loss, out_last
