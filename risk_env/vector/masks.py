"""The action mask of the batched engine, and the card choices of a trade.

Plain functions of a :class:`~risk_env.vector.engine.VectorGame` (its public tables and
rules) and a :class:`~risk_env.vector.state.BatchState`; :meth:`VectorGame.action_mask`
calls :func:`action_mask`. The same ids and masks as :class:`risk_env.ActionCodec`
(docs/rules.md §4, §6, §7, §8), block by block in the order of the game's
:class:`~risk_env.envs.layout.ActionLayout`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..envs.layout import ATTACK_DICE, DEFEND_DICE
from .state import ATTACK, CAPITAL, CLAIM, DEFEND, FORTIFY, OCCUPY, REINFORCE, SETUP_PLACE, BatchState

if TYPE_CHECKING:
    from .engine import VectorGame

__all__ = ["action_mask", "bonus_options", "fortify_reach", "pick_cards", "stars_options", "take", "take_many"]

_NEVER = 1 << 30  # a threshold or owner id no game reaches


def take(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """``x[b, idx[b]]`` for ``(B, M)`` x and ``(B,)`` idx (an index outside ``0..M-1``, such as -1 for
    none, reads the nearest entry: callers gate such games out)."""
    return x.gather(1, idx.clamp(0, x.shape[1] - 1)[:, None])[:, 0]


def take_many(x: torch.Tensor, *idx: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """``take(x, i)`` for each ``(B,)`` index ``i`` of ``idx``, read in one gather (a step costs its
    number of torch operations: four per ``take``, four for all of these together)."""
    return x.gather(1, torch.stack(idx, 1).clamp(0, x.shape[1] - 1)).unbind(1)


def action_mask(game: VectorGame, s: BatchState, hand: torch.Tensor | None = None) -> torch.Tensor:
    """bool ``(B, N)``: the ids ``ActionCodec.mask`` allows for the seat to act (all False after the game).

    ``hand``: optional :func:`risk_env.vector.observe.hand_symbols` of the player on turn (saves counting it twice).
    """
    tab = game.tab
    T = game.T
    ph = s.phase
    p = s.player
    own = s.owner == p[:, None]
    ss, sd, st = s.sel_src, s.sel_dst, s.sel_trade
    src_a, att_a, def_a = take_many(s.armies, ss, s.att_src, s.att_dst)  # the selected source, the last battle's pair
    # the phase and selection tests the blocks share (each computed once)
    P_ATT, P_FORT, P_REINF = ph == ATTACK, ph == FORTIFY, ph == REINFORCE
    P_CLAIM, P_SETUP = ph == CLAIM, ph == SETUP_PLACE
    no_src = ss < 0
    has_src, has_dst, no_trade = ~no_src, sd >= 0, st < 0
    reinf_free = P_REINF & no_src & no_trade  # the reinforce phase, nothing selected
    pending = s.roll_pending & P_ATT if game.dice_rules else None
    # territory block; each game is in one phase, so the parts are gated per game and OR-ed
    # (gates are folded into thresholds and indices: no (B, 1) -> (B, T) broadcasts of bools)
    is_att = P_ATT if pending is None else P_ATT & ~pending
    war = is_att | P_FORT
    # the other side of a border: territories to attack, or own territories when fortifying
    if game.allied >= 0:  # the allied army attacks the mover's territories only, never its commander's (§7)
        assert s.commander is not None
        attackable = ~own & (s.owner != s.commander[:, None])
        other = torch.where(is_att[:, None], attackable, own)
    else:
        other = own ^ is_att.repeat_interleave(T).view(-1, T)
    # neighbour counts (at most T, exact in float32; CPUs without bfloat16 units multiply
    # bfloat16 some 20 times slower)
    near = (other.view(torch.uint8).to(torch.float32) @ tab.adj_f).bool()  # borders one
    thr = torch.where(war & no_src, 2, _NEVER)  # a source needs 2+ armies (no source here: no game)
    terr = near & own & (s.armies >= thr[:, None])
    # a target: next to the source; games not choosing one read the all-False row T
    picks_dst = has_src & ~has_dst
    row = torch.where(war & picks_dst, ss, T)
    if game.connected:  # a fortify destination: any own territory connected through own ones (§4.3)
        row = torch.where(P_FORT, T, row)
        terr |= tab.adj_x.index_select(0, row) & other
        fi = (P_FORT & picks_dst).nonzero()[:, 0] if not game.static else None
        if fi is None or fi.numel():
            reach = fortify_reach(game, s, ss, fi)
            if fi is None:
                terr |= reach & (P_FORT & picks_dst)[:, None]
            else:
                terr[fi] |= reach
    else:
        terr |= tab.adj_x.index_select(0, row) & other
    # claims, setup placements, capitals and reinforcements: territories of one owner (-1: unclaimed)
    can_place = reinf_free & ~s.forced & (s.to_place > 0)
    tgt = torch.where(P_CLAIM, -1, torch.where(P_SETUP & (s.setup_step == 2), game.neutral, p))
    tgt = torch.where(can_place | P_CLAIM | P_SETUP | (ph == CAPITAL), tgt, _NEVER)
    terr |= s.owner == tgt[:, None]
    if game.trades_sets:
        # the +2 bonus territory after a trade id (a rare state: computed for those games only)
        bm = P_REINF & ~no_trade
        bi = bm.nonzero()[:, 0] if not game.static else None
        if bi is None:
            terr |= bonus_options(game, s, st.clamp(min=0))[:, :T] & bm[:, None]
        elif bi.numel():
            terr[bi] |= bonus_options(game, s, st.clamp(min=0), bi)[:, :T]
    # amount block: a span per phase
    occ_span = att_a - 1
    span = torch.where(
        P_REINF & has_src & no_trade,
        s.to_place - 1,
        torch.where(P_FORT & has_dst, src_a - 2, torch.where(ph == OCCUPY, occ_span, -1)),
    )
    parts = {"territory": terr, "amount": tab.span_levels[(span + 1).clamp(0, game.K)]}
    # dice and blitz: attack with a pair selected, or continuing the last battle; the defender's dice
    att_o, def_o = take_many(s.owner, s.att_src, s.att_dst)
    cont = no_src & (s.att_src >= 0) & (att_o == p) & (att_a >= 2) & (def_o != p)
    if game.allied >= 0:
        assert s.commander is not None
        cont &= def_o != s.commander
    roll_src_a = torch.where(has_dst, src_a, att_a)
    rolling = is_att & (has_dst | cont)
    ndice = torch.where(rolling, torch.clamp(roll_src_a - 1, 0, ATTACK_DICE), 0)
    if game.choose:
        ndice = torch.where(ph == DEFEND, torch.clamp(def_a, 0, DEFEND_DICE), ndice)
    parts["dice"] = game.dice_rows.index_select(0, ndice)
    parts["blitz"] = rolling[:, None]
    if game.NC:
        can_trade = reinf_free & (s.forced | ~s.resume_attack)
        if game.allied >= 0:
            can_trade &= p < game.n  # the allied army holds no cards (§7)
        if game.stars:
            parts["trade"] = stars_options(game, s, hand) & can_trade[:, None]
        else:
            if hand is None:
                hand = _hand_sym_counts(game, s)
            code = torch.where(can_trade, (hand[:, :4].clamp(max=3) * game.base4).sum(-1), 256)
            parts["trade"] = tab.comp_lut.index_select(0, code)  # one table row per game (row 256: no trade)
    if pending is not None:
        assert s.last_roll is not None
        opt_reroll, opt_six = expert_options(game, s, pending)
        if game.config.reroll_with_card:
            parts["reroll"] = opt_reroll[:, None] & (game.ar_dice[None, :] < s.att_dice[:, None])
        if game.config.die_to_six:
            parts["six"] = opt_six[:, None] & (s.last_roll[:, :ATTACK_DICE] < 6) & (game.ar_dice[None, :] < s.att_dice[:, None])
        parts["keep"] = pending[:, None]
    parts["end"] = war[:, None]
    with torch.inference_mode(False):  # a normal tensor, also in the env's inference mode
        out = torch.empty(s.batch_size, game.num_actions, dtype=torch.bool, device=game.device)
    return torch.cat([parts[b.name] for b in game.actions.blocks], dim=1, out=out)  # in the layout's order


def expert_options(game: VectorGame, s: BatchState, pending: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """bool ``(B,)`` twice: the pending roll may be re-rolled now (``reroll_with_card``: once per
    battle, holding the card of the source or the target), and may have a die turned into a six
    (``die_to_six``: once per turn, a die below six) (docs/rules.md §8)."""
    cfg = game.config
    zeros = torch.zeros_like(pending)
    reroll = zeros
    six = zeros
    if cfg.reroll_with_card:
        src_held = take(s.card_loc, s.att_src) == s.player
        dst_held = take(s.card_loc, s.att_dst) == s.player
        reroll = pending & ~s.reroll_used & (src_held | dst_held)
    if cfg.die_to_six:
        assert s.last_roll is not None
        below = ((s.last_roll[:, :ATTACK_DICE] < 6) & (game.ar_dice[None, :] < s.att_dice[:, None])).any(1)
        six = pending & ~s.six_used & below
    return reroll, six


def fortify_reach(game: VectorGame, s: BatchState, src: torch.Tensor, idx: torch.Tensor | None = None) -> torch.Tensor:
    """bool ``(B, T)`` (or ``(len(idx), T)`` for games ``idx``): own territories that ``src``
    reaches through own territories under ``fortify="connected"`` (``Game.fortify_reach``, §4.3)."""
    owner, p, src = s.owner, s.player, src
    if idx is not None:
        owner, p, src = owner[idx], p[idx], src[idx]
    own = owner == p[:, None]
    T = game.T
    reach = (game.ar_T[None, :] == src.clamp(min=0)[:, None]) & own
    adj = game.tab.adj_f
    # flood fill: at most T - 1 rounds; stop when no game grows (dynamic), or run them all (static)
    for _ in range(T - 1):
        grown = ((reach.view(torch.uint8).to(torch.float32) @ adj).bool() & own) | reach
        if not game.static and bool((grown == reach).all()):
            break
        reach = grown
    return reach & (game.ar_T[None, :] != src[:, None])


def _hand_sym_counts(game: VectorGame, s: BatchState) -> torch.Tensor:
    """int64 ``(B, 4)``: cards per symbol of the player on turn."""
    key = torch.where(s.card_loc == s.player[:, None], game.tab.card_sym[None, :], 4)
    cnt = torch.zeros(s.batch_size, 5, dtype=torch.int64, device=game.device)
    cnt.scatter_add_(1, key, torch.ones_like(key))
    return cnt[:, :4]


def stars_options(game: VectorGame, s: BatchState, hand: torch.Tensor | None = None) -> torch.Tensor:
    """bool ``(B, 9)``: star totals 2..10 the hand of the player on turn can make exactly
    (``card_trade="stars"``, docs/rules.md §6; as ``StarsTrades.stars_cards``: as many 2-star cards as
    fit, then 1-star cards)."""
    if hand is None:
        hand = _hand_sym_counts(game, s)
    ones = hand[:, 0] + hand[:, 1]  # infantry and cavalry: 1 star
    twos = hand[:, 2] + hand[:, 3]  # artillery and wild: 2 stars
    k = game.ar_stars[None, :]  # 2..10
    y = torch.minimum(twos[:, None], torch.div(k, 2, rounding_mode="floor"))
    return k - 2 * y <= ones[:, None]


def bonus_options(game: VectorGame, s: BatchState, comp: torch.Tensor, idx: torch.Tensor | None = None) -> torch.Tensor:
    """bool ``(B, NC)`` (or ``(len(idx), NC)`` for games ``idx``): cards in hand showing an owned
    territory whose symbol ``comp`` needs, if the +2 bonus is on offer (docs/rules.md §4.1)."""
    T, NC = game.T, game.NC
    p, loc, owner, used = s.player, s.card_loc, s.owner, s.bonus_used
    if idx is not None:
        p, loc, owner, used, comp = p[idx], loc[idx], owner[idx], used[idx], comp[idx]
    in_hand = loc == p[:, None]
    shows_own = torch.zeros_like(in_hand)
    Tc = min(T, NC)
    shows_own[:, :Tc] = owner[:, :Tc] == p[:, None]
    need = game.tab.comp[comp]  # (M, 4)
    needed = need.gather(1, game.tab.card_sym[None, :].expand(p.shape[0], NC)) > 0
    out = in_hand & shows_own & needed
    if game.config.territory_bonus == "once_per_turn":
        out &= (~used)[:, None]
    return out


def pick_cards(game: VectorGame, s: BatchState, comp: torch.Tensor, bonus: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """bool ``(len(idx), NC)``: the cards ``ActionCodec.pick_cards`` trades in games ``idx``
    for composition ``comp`` with the bonus card ``bonus`` (-1: none) (``(B,)`` both)."""
    T, NC = game.T, game.NC
    B = idx.numel()
    p = s.player[idx]
    comp, bonus = comp[idx], bonus[idx]
    ar = game.ar_NC
    in_hand = s.card_loc[idx] == p[:, None]
    shows_own = torch.zeros_like(in_hand)
    Tc = min(T, NC)
    shows_own[:, :Tc] = s.owner[idx, :Tc] == p[:, None]
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


def pick_stars(game: VectorGame, s: BatchState, stars: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """bool ``(len(idx), NC)``: the cards a stars trade of ``stars`` ``(B,)`` stars gives up in games
    ``idx`` (:func:`risk_env.rules.cards.stars_pick`: as many 2-star cards as fit, then 1-star
    cards, each kind by lowest card id; docs/rules.md §6)."""
    p = s.player[idx]
    k = stars[idx]
    in_hand = s.card_loc[idx] == p[:, None]
    two = game.tab.card_stars[None, :] == 2
    is2 = in_hand & two
    is1 = in_hand & ~two
    n2 = is2.long().cumsum(1)  # rank (1-based) among the 2-star cards in hand, by card id
    n1 = is1.long().cumsum(1)
    y = torch.minimum(is2.sum(1), torch.div(k, 2, rounding_mode="floor"))
    x = k - 2 * y
    return (is2 & (n2 <= y[:, None])) | (is1 & (n1 <= x[:, None]))
