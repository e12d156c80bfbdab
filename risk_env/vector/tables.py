"""Per-map and per-rules tensors of the batched engine, and the exact blitz table.

Everything here is computed once per :class:`~risk_env.vector.engine.VectorGame`
on the CPU in numpy (float64 for the probabilities) and moved to the
engine's device.

The blitz table (docs/rules.md §4.2): a blitz rolls the most dice allowed,
``min(3, a)`` attacking against ``min(2, d)`` defending, until the target is
emptied or the source is down to one army. With ``a`` armies that may roll
(the source holds ``a + 1``) and ``d`` defenders, its end is one of

* a conquest with ``s`` rollers left (``1 <= s <= a``); the last roll used
  ``min(3, s)`` dice (a conquering roll costs the attacker nothing);
* a stop with ``t`` defenders left (``1 <= t <= d``), the last roll having
  used ``k`` attacker dice: ``k = 1`` from one roller, ``k = 2`` from two
  rollers losing both.

:func:`blitz_table` gives the exact probability of each end for every
``(a, d)`` up to a cap, by dynamic programming over the one-roll outcomes of
:func:`roll_outcomes` (the same numbers as
:func:`risk_env.odds.outcome_distribution`, which the tests check, with the
last roll's dice count kept apart).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import torch

from ..envs.layout import AMOUNT_LEVELS, legal_levels
from ..rules import cards, dice
from ..rules.cards import COMPOSITIONS
from ..rules.engine import Game

__all__ = [
    "BLITZ_CAP",
    "COMPOSITIONS",
    "MapTables",
    "blitz_outcome_index",
    "blitz_table",
    "escalating_value",
    "roll_cdf",
    "roll_outcomes",
]

BLITZ_CAP = 64
"""Largest rollers ``a`` and defenders ``d`` the blitz table covers; bigger battles roll one by one down to it."""


def escalating_value(sets_traded_before: int) -> int:
    """Armies for the next set under the escalating schedule, given the sets traded before it
    (:func:`risk_env.rules.cards.escalating_value` of the next set number; docs/rules.md §4.1)."""
    return cards.escalating_value(sets_traded_before + 1)


@functools.lru_cache(maxsize=1)
def roll_outcomes() -> dict[tuple[int, int], list[tuple[int, int, float]]]:
    """``(attacker dice, defender dice) -> [(attacker losses, defender losses, probability)]`` of one
    roll, as floats, from the engine's exact table (:func:`risk_env.rules.dice.roll_outcomes`)."""
    return {
        (ad, dd): [(al, dl, float(p)) for (al, dl), p in sorted(dice.roll_outcomes(ad, dd).items())]
        for ad in (1, 2, 3)
        for dd in (1, 2)
    }


def blitz_outcome_index(cap: int, conquest: bool, left: int, last_dice: int = 0) -> int:
    """Column of :func:`blitz_table` for an end: ``conquest`` with ``left`` rollers, or a stop
    with ``left`` defenders and ``last_dice`` (1 or 2) attacker dice in the last roll."""
    if conquest:
        return left - 1
    return cap + 2 * (left - 1) + (last_dice - 1)


def roll_cdf() -> np.ndarray:
    """float64 ``(12, 3)``: the cumulative one-roll table of :attr:`MapTables.roll_cdf`.

    A roll with ``k`` attacker dice against ``j`` defender dice compares ``p = min(k, j)``
    pairs; the attacker loses ``o`` armies and the defender ``p - o`` (docs/rules.md §4.2).
    Row ``3 k + j``, column ``o < p``: ``P(attacker loses <= o)``; columns ``o >= p``: 2.0.
    """
    out = np.full((12, 3), 2.0)
    for (k, j), rows in roll_outcomes().items():
        p = min(k, j)
        probs = np.zeros(p + 1)
        for al, _dl, q in rows:
            probs[al] += q
        out[3 * k + j, :p] = np.cumsum(probs)[:p]
    return out


@functools.lru_cache(maxsize=4)
def blitz_table(cap: int = BLITZ_CAP) -> np.ndarray:
    """float64 ``(cap + 1, cap + 1, 3 * cap)``: ``P[a, d, j]``, the probability that a blitz
    with ``a`` rollers against ``d`` defenders ends in column ``j`` (see
    :func:`blitz_outcome_index`); rows with ``a == 0`` or ``d == 0`` are zero.
    """
    moves = roll_outcomes()
    M = 3 * cap
    P = np.zeros((cap + 1, cap + 1, M), dtype=np.float64)
    # P[a, d] depends on states with fewer armies in total: sweep by a + d
    for total in range(2, 2 * cap + 1):
        for a in range(max(1, total - cap), min(cap, total - 1) + 1):
            d = total - a
            row = P[a, d]
            for al, dl, p in moves[(min(3, a), min(2, d))]:
                a2, d2 = a - al, d - dl
                if d2 == 0:
                    row[blitz_outcome_index(cap, True, a2)] += p
                elif a2 == 0:
                    row[blitz_outcome_index(cap, False, d2, min(3, a))] += p
                else:
                    row += p * P[a2, d2]
    return P


@dataclass(frozen=True)
class MapTables:
    """Tensors of one map and rule set on one device (read-only; built once per
    :class:`~risk_env.vector.engine.VectorGame`).

    Attributes (``T`` territories, ``C`` continents, ``NC`` cards, ``K`` amount levels, ``n`` players):
        T, C, NC, K, n: sizes (``NC`` is 0 without cards).
        adj: bool ``(T, T)``; adj_f: float32 ``(T, T)`` (neighbour counts, exact in float32);
            adj_x: bool ``(T + 1, T)``, ``adj`` with an all-False row ``T``.
        edge_src, edge_dst: int64 ``(E,)`` every border in both directions.
        members_f: float32 ``(T, C)`` continent membership; cont_size: int64 ``(C,)``;
        cont_bonus: int64 ``(C,)``; territory_continent: int64 ``(T,)``.
        card_sym: int64 ``(NC,)``; card_sym_1h: float32 ``(NC, 4)``; card_stars: int64 ``(NC,)`` (§6).
        comp: int64 ``(13, 4)`` set compositions (symbol counts); comp_lut: bool ``(257, 13)``: the sets
            a hand holds by its symbol counts capped at 3 (row ``sum(count_k * 4**k)``; row 256: none).
        span_levels: bool ``(K + 1, K)``: legal amount levels for spans ``-1..K-1`` (row ``span + 1``;
            :func:`risk_env.envs.layout.legal_levels`); spans >= K - 1 allow all.
        set_values: int64 ``(L,)`` the next set's value by sets traded before (the escalating
            schedules; the last entry repeats for more); comp_values: int64 ``(13,)`` a set's value
            by composition (``fixed_by_symbol``); stars_values: int64 ``(9,)`` a stars trade's value
            by its star total 2..10 (§4.1, §6).
        tv_obs: float32 ``(401,)`` the observation's next-set value / 20.
        blitz_cdf: float32 ``(cap + 1, cap + 1, 3 cap)`` cumulative blitz table.
        roll_cdf: float32 ``(12, 3)``: row ``3 k + j`` (``k`` attacker dice 1..3, ``j`` defender
            dice 1..2) holds ``P(attacker loses <= o)`` for ``o = 0, 1, 2``; entries at and past
            the most it can lose (``min(k, j)``) are 2.0, so a uniform ``u`` in ``[0, 1)`` gives
            the loss ``o = #{entries <= u}`` (see :func:`roll_cdf`).
        blitz_cap: the blitz table's cap.
    """

    T: int
    C: int
    NC: int
    K: int
    n: int
    adj: torch.Tensor
    adj_f: torch.Tensor
    adj_x: torch.Tensor
    edge_src: torch.Tensor
    edge_dst: torch.Tensor
    members_f: torch.Tensor
    cont_size: torch.Tensor
    cont_bonus: torch.Tensor
    territory_continent: torch.Tensor
    card_sym: torch.Tensor
    card_sym_1h: torch.Tensor
    card_stars: torch.Tensor
    comp: torch.Tensor
    comp_lut: torch.Tensor
    span_levels: torch.Tensor
    set_values: torch.Tensor
    comp_values: torch.Tensor
    stars_values: torch.Tensor
    tv_obs: torch.Tensor
    blitz_cdf: torch.Tensor
    roll_cdf: torch.Tensor
    blitz_cap: int

    @classmethod
    def build(cls, game: Game, device: torch.device, blitz_cap: int = BLITZ_CAP) -> MapTables:
        m = game.map
        T = m.num_territories
        NC = m.num_cards if game.uses_cards else 0
        K = AMOUNT_LEVELS
        members = m.continent_members.T.astype(np.float32)  # (T, C)
        sizes = m.continent_members.sum(axis=1)
        spans = np.zeros((K + 1, K), dtype=bool)
        for span in range(K):
            spans[span + 1] = legal_levels(span, K)
        escalates = game.set_value_escalates  # else valued by the set's symbols (fixed_by_symbol), or no sets
        set_values = np.array([game.next_set_value(k) for k in range(1000)] if escalates else [0], dtype=np.int64)
        comp_values = np.array([0 if escalates else game.next_set_value(0, c) for c in range(len(COMPOSITIONS))], dtype=np.int64)
        stars_values = np.array([cards.stars_value(k) for k in range(cards.MIN_STARS, cards.MAX_STARS + 1)], dtype=np.int64)
        # the observation's trade value: the escalating schedules only (the encoder's table, docs/rules.md §4.1)
        tv = [game.next_set_value(k) / 20.0 for k in range(401)] if escalates else [0.0] * 401
        sym = np.asarray(m.card_symbol, dtype=np.int64)[: max(NC, 1)] if NC else np.zeros(1, dtype=np.int64)
        cdf = np.cumsum(blitz_table(blitz_cap), axis=-1).astype(np.float32)
        codes = np.array([[(c // 4**k) % 4 for k in range(4)] for c in range(256)])
        comp = np.array(COMPOSITIONS, dtype=np.int64)
        lut = (comp[None, :, :] <= codes[:, None, :]).all(2)
        lut = np.concatenate([lut, np.zeros((1, len(COMPOSITIONS)), dtype=bool)])  # row 256: none
        adj = np.asarray(m.adjacency, dtype=bool)

        def t(x: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
            return torch.as_tensor(np.array(x)).to(device=device, dtype=dtype)

        return cls(
            T=T,
            C=len(m.continent_names),
            NC=NC,
            K=K,
            n=game.num_players,
            adj=t(adj, torch.bool),
            adj_f=t(adj.astype(np.float32), torch.float32),
            adj_x=t(np.concatenate([adj, np.zeros((1, T), dtype=bool)]), torch.bool),
            edge_src=t(np.asarray(m.edge_src, dtype=np.int64), torch.int64),
            edge_dst=t(np.asarray(m.edge_dst, dtype=np.int64), torch.int64),
            members_f=t(members, torch.float32),
            cont_size=t(sizes, torch.int64),
            cont_bonus=t(m.continent_bonus, torch.int64),
            territory_continent=t(np.asarray(m.territory_continent, dtype=np.int64), torch.int64),
            card_sym=t(sym, torch.int64),
            card_sym_1h=t(np.eye(4, dtype=np.float32)[sym], torch.float32),
            card_stars=t(np.array(cards.SYMBOL_STARS, dtype=np.int64)[sym], torch.int64),
            comp=t(comp, torch.int64),
            comp_lut=t(lut, torch.bool),
            span_levels=t(spans, torch.bool),
            set_values=t(set_values, torch.int64),
            comp_values=t(comp_values, torch.int64),
            stars_values=t(stars_values, torch.int64),
            tv_obs=t(np.array(tv, dtype=np.float32), torch.float32),
            blitz_cdf=t(cdf, torch.float32),
            roll_cdf=t(roll_cdf(), torch.float32),
            blitz_cap=blitz_cap,
        )
