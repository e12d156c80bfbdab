"""The action mask of the batched engine, and the card choices of a trade.

Plain functions of a :class:`~risk_env.vector.engine.VectorGame` and a
:class:`~risk_env.vector.state.BatchState`; :meth:`VectorGame.action_mask`
calls :func:`action_mask`. Same ids and masks as :class:`risk_env.ActionCodec`
(docs/rules.md §4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .state import ATTACK, CLAIM, FORTIFY, OCCUPY, REINFORCE, SETUP_PLACE, BatchState

if TYPE_CHECKING:
    from .engine import VectorGame

__all__ = ["action_mask", "bonus_options", "pick_cards"]

_NEVER = 1 << 30  # a threshold or owner id no game reaches


def action_mask(game: VectorGame, s: BatchState, hand: torch.Tensor | None = None) -> torch.Tensor:
    """bool ``(B, N)``: the ids ``ActionCodec.mask`` allows for the seat to act (all False after the game).

    ``hand``: optional :func:`risk_env.vector.observe.hand_symbols` of the seat to act (saves counting it twice).
    """
    tab = game.tab
    T = game.T
    ph = s.phase
    p = s.player
    own = s.owner == p[:, None]
    ss, sd, st = s.sel_src, s.sel_dst, s.sel_trade
    src_a = game._g(s.armies, ss)
    no_src = ss < 0
    # territory block; each game is in one phase, so the parts are gated per game and OR-ed
    # (gates are folded into thresholds and indices: no (B, 1) -> (B, T) broadcasts of bools)
    is_att = ph == ATTACK
    war = is_att | (ph == FORTIFY)
    # the other side of a border: enemies when attacking, own territories when fortifying
    other = own ^ is_att.repeat_interleave(T).view(-1, T)
    # neighbour counts (at most T, exact in bfloat16, which multiplies fastest here)
    near = (other.view(torch.uint8).to(torch.bfloat16) @ game._adj_bf16).bool()  # borders one
    thr = torch.where(war & no_src, 2, _NEVER)  # a source needs 2+ armies (no source here: no game)
    terr = near & own & (s.armies >= thr[:, None])
    # a target: next to the source; games not choosing one read the all-False row T
    row = torch.where(war & ~no_src & (sd < 0), ss, T)
    terr |= game._adj_x.index_select(0, row) & other
    # claims, setup placements and reinforcements: territories of one owner (-1: unclaimed)
    can_place = (ph == REINFORCE) & no_src & (st < 0) & ~s.forced & (s.to_place > 0)
    tgt = torch.where(ph == CLAIM, -1, torch.where((ph == SETUP_PLACE) & (s.setup_step == 2), game.neutral, p))
    tgt = torch.where(can_place | (ph == CLAIM) | (ph == SETUP_PLACE), tgt, _NEVER)
    terr |= s.owner == tgt[:, None]
    if game.NC:
        # the +2 bonus territory after a trade id (a rare state: computed for those games only)
        bi = ((ph == REINFORCE) & (st >= 0)).nonzero()[:, 0]
        if bi.numel():
            terr[bi] |= bonus_options(game, s, st.clamp(min=0), bi)[:, :T]
    # amount block: a span per phase
    occ_span = game._g(s.armies, s.att_src) - 1
    span = torch.where(
        (ph == REINFORCE) & (ss >= 0) & (st < 0),
        s.to_place - 1,
        torch.where((ph == FORTIFY) & (sd >= 0), src_a - 2, torch.where(ph == OCCUPY, occ_span, -1)),
    )
    amount = tab.span_levels[(span + 1).clamp(0, game.K)]
    # dice and blitz: attack with a pair selected, or continuing the last battle
    cont = (
        no_src
        & (s.att_src >= 0)
        & (game._g(s.owner, s.att_src) == p)
        & (game._g(s.armies, s.att_src) >= 2)
        & (game._g(s.owner, s.att_dst) != p)
    )
    roll_src_a = torch.where(sd >= 0, src_a, game._g(s.armies, s.att_src))
    rolling = (ph == ATTACK) & ((sd >= 0) | cont)
    ndice = torch.where(rolling, torch.clamp(roll_src_a - 1, max=3), 0)
    dice = game._ar3[None, :] < ndice[:, None]
    blitz = rolling[:, None]
    parts = {"territory": terr, "amount": amount, "dice": dice, "blitz": blitz}
    if game.NC:
        can_trade = (ph == REINFORCE) & no_src & (st < 0) & (s.forced | ~s.resume_attack)
        if hand is None:
            trade = game._false13.expand(s.batch_size, -1).clone()
            ti = can_trade.nonzero()[:, 0]
            if ti.numel():
                trade[ti] = game._comp_lut[(_hand_sym_counts(game, s, ti).clamp(max=3) * game._base4).sum(-1)]
        else:  # the hand's symbol counts are known: one table row per game (row 256: no trade)
            code = torch.where(can_trade, (hand[:, :4].clamp(max=3) * game._base4).sum(-1), 256)
            trade = game._comp_lut.index_select(0, code)
        parts["trade"] = trade
    end = (ph == ATTACK) | (ph == FORTIFY)
    parts["end"] = end[:, None]
    return torch.cat([parts[b.name] for b in game.actions.blocks], dim=1)  # in the layout's order


def _hand_sym_counts(game: VectorGame, s: BatchState, idx: torch.Tensor) -> torch.Tensor:
    """int64 ``(len(idx), 4)``: cards per symbol of the player on turn in games ``idx``."""
    M = idx.numel()
    key = torch.where(s.card_loc[idx] == s.player[idx, None], game.tab.card_sym[None, :], 4)
    cnt = torch.zeros(M, 5, dtype=torch.int64, device=game.device)
    cnt.scatter_add_(1, key, game._ones_NC(M))
    return cnt[:, :4]


def bonus_options(game: VectorGame, s: BatchState, comp: torch.Tensor, idx: torch.Tensor | None = None) -> torch.Tensor:
    """bool ``(B, NC)`` (or ``(len(idx), NC)`` for games ``idx``): cards in hand showing an owned
    territory whose symbol ``comp`` needs, if the bonus is unused this turn."""
    T, NC = game.T, game.NC
    p, loc, owner, used = s.player, s.card_loc, s.owner, s.bonus_used
    if idx is not None:
        p, loc, owner, used, comp = p[idx], loc[idx], owner[idx], used[idx], comp[idx]
    in_hand = loc == p[:, None]
    shows_own = torch.zeros_like(in_hand)
    shows_own[:, :T] = owner[:, :T] == p[:, None]
    need = game.tab.comp[comp]  # (M, 4)
    needed = need.gather(1, game.tab.card_sym[None, :].expand(p.shape[0], NC)) > 0
    return in_hand & shows_own & needed & (~used)[:, None]


def pick_cards(game: VectorGame, s: BatchState, comp: torch.Tensor, bonus: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """bool ``(len(idx), NC)``: the cards ``ActionCodec.pick_cards`` trades in games ``idx``
    for composition ``comp`` with the bonus card ``bonus`` (-1: none) (``(B,)`` both)."""
    T, NC = game.T, game.NC
    B = idx.numel()
    p = s.player[idx]
    comp, bonus = comp[idx], bonus[idx]
    ar = game._ar_NC
    in_hand = s.card_loc[idx] == p[:, None]
    shows_own = torch.zeros_like(in_hand)
    shows_own[:, :T] = s.owner[idx, :T] == p[:, None]
    prio = shows_own.long() * NC + ar[None, :]
    prio = torch.where(ar[None, :] == bonus[:, None], -1, prio)
    sym = game.tab.card_sym[None, :].expand(B, NC)
    key = torch.where(in_hand, sym * (4 * NC) + prio + NC, 10**6)
    order = torch.argsort(key, dim=1)
    sym_sorted = sym.gather(1, order)
    hand_sorted = in_hand.gather(1, order)
    onehot = torch.nn.functional.one_hot(sym_sorted, 4) * hand_sorted[:, :, None]
    rank = (onehot.cumsum(1) * onehot).sum(2) - 1  # rank within its symbol among hand cards
    need = game.tab.comp[comp].gather(1, sym_sorted)
    chosen_sorted = hand_sorted & (rank < need)
    return torch.zeros_like(in_hand).scatter(1, order, chosen_sorted)
