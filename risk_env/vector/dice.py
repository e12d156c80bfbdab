"""Chance of the batched engine: one step's draws, single rolls, faces, and blitzes
(docs/rules.md §4.2, §8).

:class:`Draws` holds one step's chance for every game: drawn from the game's generator
(one block of random integers per step, the same for every game whatever it does, so
that a step computed on the whole batch or on the games that need each part draws the
same numbers), or injected from a :class:`~risk_env.vector.state.Chance` (the reference
engine's faces, then every blitz is rolled roll by roll in its order).

Drawn from the generator, a single roll takes its losses from the exact one-roll
distribution (one uniform per game, :func:`sample_roll`), and a blitz draws its end at once
from the exact blitz distribution (:mod:`risk_env.vector.tables`) when both sides fit in the
table; under the expert dice rules a roll that may wait draws its faces.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..envs.layout import ATTACK_DICE, DEFEND_DICE
from .state import Chance

if TYPE_CHECKING:
    from .engine import VectorGame

__all__ = ["Draws", "blitz", "resolve", "sample_roll", "sorted_faces"]

# columns of a step's block of random integers
_ROLL, _BLITZ, _CARD, _CLAIM, _FACES = 0, 1, 2, 3, 4
_REROLL = _FACES + ATTACK_DICE + DEFEND_DICE
_TOP = 1 << 62
_BITS24 = 1 << 24


def columns(game: VectorGame) -> int:
    """Random integers per game per step: a single roll, a blitz, a card, a neutral claim, and
    under the expert dice rules the 5 faces of a roll that may wait and a re-rolled face."""
    return _REROLL + 1 if game.dice_rules else _FACES


def _uniform(r: torch.Tensor) -> torch.Tensor:
    """float32 uniforms in ``[0, 1)`` (24 random bits, as ``torch.rand``) from random int64s."""
    return torch.bitwise_right_shift(r, 38).to(torch.float32) / _BITS24


class Draws:
    """One step's chance for ``B`` games (see the module docstring).

    Attributes:
        injected: whether the chance comes from a :class:`Chance` (else from the generator).
    """

    def __init__(self, game: VectorGame, B: int, chance: Chance | None, draw: bool = True) -> None:
        self.game = game
        self.B = B
        self.injected = chance is not None
        dev = game.device
        if chance is None:
            self.r = torch.empty(B, columns(game), dtype=torch.int64, device=dev)
            if draw:  # (False: the block is drawn later, by redraw)
                self.redraw()
            self.card = self.claim = None
        else:
            self.tape = chance.dice.to(dev)
            self.pos = torch.zeros(B, dtype=torch.int64, device=dev)
            self.card = None if chance.card is None else chance.card.to(dev)
            self.claim = None if chance.claim is None else chance.claim.to(dev)

    def redraw(self) -> None:
        """Draw this step's block again from the generator, into the same tensor (for a step whose
        tensors stay in place, as in a CUDA graph)."""
        self.r.random_(0, _TOP, generator=self.game.generator)

    def roll_uniform(self) -> torch.Tensor:
        return _uniform(self.r[:, _ROLL])

    def blitz_uniform(self) -> torch.Tensor:
        return _uniform(self.r[:, _BLITZ])

    def choice(self, count: torch.Tensor, which: str, rows: torch.Tensor | None) -> torch.Tensor:
        """int64: a uniform index in ``0..count-1`` (``count`` >= 1 where it matters) for the card
        drawn (``"card"``) or the territory the neutral claims (``"claim"``), for the games ``rows``
        (``count`` has one entry per row; None: every game)."""
        if self.injected:  # (the injected card or claim replaces it; one not injected is the first candidate)
            return torch.zeros_like(count)
        r = self.r[:, _CARD if which == "card" else _CLAIM]
        return (r if rows is None else r[rows]) % count.clamp(min=1)

    def faces(self, m: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """int64 ``(B, 5)`` faces of one roll of ``k`` dice in all (attacker's, then defender's):
        injected (advancing each game's position by ``k`` where ``m``), or drawn."""
        if not self.injected:
            return self.r[:, _FACES:_REROLL] % 6 + 1
        idx = (self.pos[:, None] + self.game.ar_faces[None, :]).clamp(max=self.tape.shape[1] - 1)
        faces = self.tape.gather(1, idx)
        self.pos += torch.where(m, k, 0)
        return faces

    def reroll_face(self, m: torch.Tensor) -> torch.Tensor:
        """int64 ``(B,)``: the face of a re-rolled die (docs/rules.md §8)."""
        if not self.injected:
            return self.r[:, _REROLL] % 6 + 1
        return self.faces(m, torch.ones_like(self.pos))[:, 0]


def sorted_faces(faces: torch.Tensor, att: torch.Tensor, dfd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The attacker's ``(B, 3)`` and defender's ``(B, 2)`` faces of a roll, each highest first and
    0 past its count, from faces as the reference draws them (the first ``att`` the attacker's,
    the next ``dfd`` the defender's)."""
    ar5 = torch.arange(faces.shape[1], device=faces.device)[None, :]
    is_att = ar5 < att[:, None]
    is_def = (ar5 >= att[:, None]) & (ar5 < (att + dfd)[:, None])
    ad = torch.where(is_att, faces, 0).sort(1, descending=True).values[:, :ATTACK_DICE]
    dd = torch.where(is_def, faces, 0).sort(1, descending=True).values[:, :DEFEND_DICE]
    return ad, dd


def resolve(ad: torch.Tensor, dd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Losses ``(attacker, defender)`` of sorted faces (0 past each side's count): the highest
    dice paired, the defender winning ties (docs/rules.md §4.2)."""
    both = (ad[:, :DEFEND_DICE] > 0) & (dd > 0)
    att_wins = (ad[:, :DEFEND_DICE] > dd) & both
    def_loss = att_wins.sum(1)
    att_loss = (both & ~att_wins).sum(1)
    return att_loss, def_loss


def sample_roll(game: VectorGame, u: torch.Tensor, k: torch.Tensor, j: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Losses ``(attacker, defender)`` of one roll with ``k`` (1..3) against ``j`` (1..2) dice,
    from uniforms ``u`` ``(B,)`` and the exact one-roll distribution (:attr:`MapTables.roll_cdf`):
    the same distribution as :func:`resolve` of random faces."""
    att_loss = (game.tab.roll_cdf[3 * k + j] <= u[:, None]).sum(1)
    return att_loss, torch.minimum(k, j) - att_loss


def blitz(
    game: VectorGame, draws: Draws, m: torch.Tensor, A: torch.Tensor, D: torch.Tensor, last_roll: torch.Tensor | None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Total losses ``(attacker, defender)`` and the last roll's attacker dice of the blitzes ``m``
    (``A`` source armies, ``D`` target armies, ``(B,)`` each); other games lose nothing.

    Injected: roll by roll, as the reference engine rolls (``last_roll``, if given, gets the
    last roll's faces). Drawn: single rolls while a side exceeds the blitz table (one host check
    per round), then one draw of the end from the table.
    """
    if draws.injected:
        a, d = A.clone(), D.clone()
        last = torch.zeros_like(A)
        live = m & (a >= 2) & (d >= 1)
        while bool(live.any()):  # (a host check per round: injected chance is for tests and replays)
            k = torch.clamp(a - 1, min=1, max=ATTACK_DICE)
            j = torch.clamp(d, min=1, max=DEFEND_DICE)
            ad, dd = sorted_faces(draws.faces(live, k + j), k, j)
            al, dl = resolve(ad, dd)
            a = a - torch.where(live, al, 0)
            d = d - torch.where(live, dl, 0)
            last = torch.where(live, k, last)
            if last_roll is not None:
                last_roll.copy_(torch.where(live[:, None], torch.cat([ad, dd], 1), last_roll))
            live = live & (a >= 2) & (d >= 1)
        return torch.where(m, A - a, 0), torch.where(m, D - d, 0), last
    cap = game.tab.blitz_cap
    B = A.shape[0]
    rows = game.rows_of(m)  # the blitzing games (every game with static)
    A0, D0, mr = A[rows], D[rows], m[rows]
    a, d = A0, D0
    live = mr & (a >= 2) & (d >= 1)
    last = torch.zeros_like(a)
    big = live & ((a - 1 > cap) | (d > cap))
    if game.capturing:  # (a CUDA graph cannot check on the host: it records that a battle exceeds the table)
        game.beyond_table |= big.any()
        big = big & False
    while not game.capturing and bool(big.any()):  # battles bigger than the table: one roll at a time (a host check)
        kk = torch.clamp(a - 1, min=1, max=ATTACK_DICE)
        jj = torch.clamp(d, min=1, max=DEFEND_DICE)
        u = _uniform(torch.randint(0, _TOP, (B,), generator=game.generator, device=game.device))[rows]
        xl, yl = sample_roll(game, u, kk, jj)
        a = a - torch.where(big, xl, 0)
        d = d - torch.where(big, yl, 0)
        last = torch.where(big, kk, last)
        live = live & (a >= 2) & (d >= 1)
        big = live & ((a - 1 > cap) | (d > cap))
    cdf = game.tab.blitz_cdf[(a - 1).clamp(0, cap), d.clamp(0, cap)]  # (M, 3 cap), nondecreasing
    u = draws.blitz_uniform()[rows] * cdf[:, -1]
    j = torch.searchsorted(cdf, u[:, None], right=True)[:, 0].clamp(max=3 * cap - 1)  # entries <= u
    conq = j < cap
    left = j + 1  # rollers left at a conquest
    t = torch.div(j - cap, 2, rounding_mode="floor") + 1
    kk = (j - cap) % 2 + 1
    a2 = torch.where(live, torch.where(conq, left + 1, 1), a)
    d2 = torch.where(live, torch.where(conq, 0, t), d)
    last = torch.where(live, torch.where(conq, torch.clamp(left, max=ATTACK_DICE), kk), last)
    zero = torch.zeros_like(A)
    att_loss = zero.index_copy(0, rows, torch.where(mr, A0 - a2, 0))
    def_loss = zero.index_copy(0, rows, torch.where(mr, D0 - d2, 0))
    return att_loss, def_loss, zero.index_copy(0, rows, last)
