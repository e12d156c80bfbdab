"""The observation of the batched engine: :func:`observe`, the same vectors as
:class:`risk_env.ObservationEncoder` for a batch of games.

A plain function of a :class:`~risk_env.vector.engine.VectorGame` and a
:class:`~risk_env.vector.state.BatchState`; :meth:`VectorGame.observe` calls it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .state import ATTACK, CLAIM, DEFEND, GAME_OVER, OCCUPY, SETUP_PLACE, BatchState

if TYPE_CHECKING:
    from .engine import VectorGame

__all__ = ["observe"]


def observe(game: VectorGame, s: BatchState, seat: torch.Tensor | None = None) -> torch.Tensor:
    """float32 ``(B, D)``: ``ObservationEncoder.encode`` of each game for ``seat`` (default: the seat to act).

    Scaled entries are integer counts divided by an integer in float32 (a correctly
    rounded quotient), which equals the reference encoder's float64 product rounded
    to float32 for every count below 2**24; divisors are device tensors so that no
    device turns the division into a multiplication by a rounded reciprocal.
    """
    tab = game.tab
    B, T, n = s.batch_size, game.T, game.n
    S = n + 1
    ph = s.phase
    p = s.player
    me = p if seat is None else seat
    over = ph == GAME_OVER
    # slot of each owner as seen from `me`: the rotation table row of `me`, owner -1 reads column 0
    rel = game._rot_tab.index_select(0, me).gather(1, s.owner + 1)  # (B, T); S marks unclaimed
    last = (ph == DEFEND) | (ph == OCCUPY) | ((ph == ATTACK) & (s.sel_src < 0))
    src = torch.where(last, s.att_src, s.sel_src)
    dst = torch.where(last, s.att_dst, s.sel_dst)
    S1 = S + 1
    C = game.tab.C
    cnt = torch.zeros(B, (C + 2) * S1, dtype=torch.int64, device=game.device)
    ones = game._ones_BT(B)
    cnt.scatter_add_(1, game._cont_base[None, :] + rel, ones)  # continent x slot counts
    cnt.scatter_add_(1, C * S1 + rel, s.armies)  # army totals per slot (a spare row)
    cnt.scatter_add_(1, (C + 1) * S1 + rel, ones)  # territories per slot (another)
    cnt = cnt.view(B, C + 2, S1)[:, :, :S]
    cont = cnt[:, :C] / game._cont_size_f[None, :, None]
    phase_1h = game._eye8[ph]
    mine = p == me
    acting = (~over & mine)[:, None]
    rel_p = (p - me) % n
    on_turn = (game._ar_S[None, :] == rel_p[:, None]) & ~over[:, None]
    setup = (ph == CLAIM) | (ph == SETUP_PLACE)
    to_place = torch.where(setup, game._g(s.setup_left, me), torch.where(mine, s.to_place, 0))
    playing = ~setup & mine
    flags = torch.stack(
        [
            playing & s.forced,
            playing & s.bonus_used,
            playing & s.conquered,
            playing & s.resume_attack,
            (ph == SETUP_PLACE) & (s.setup_step == 2),
        ],
        dim=1,
    )
    tp = (game._ar_13[None, :] == s.sel_trade[:, None]) & playing[:, None]
    rot = (me[:, None] + game._ar_n[None, :]) % n  # seat at each rotated position
    alive_r = s.alive.gather(1, rot)
    if game.NC:
        # cards per (location, column): columns 0-3 count symbols, column 4 the cards showing a
        # territory that their holder owns; `me`'s row is my_cards, rows summed give the hand sizes
        L2 = game.num_seats + 2
        cnt_ls = torch.zeros(B, L2 * 5, dtype=torch.int64, device=game.device)
        cnt_ls.scatter_add_(1, s.card_loc * 5 + game._loc_sym, game._ones_NC(B))
        terr_cards = s.card_loc[:, :T]
        cnt_ls.scatter_add_(1, terr_cards * 5 + 14, (terr_cards == s.owner).long())
        cnt_ls = cnt_ls.view(B, L2, 5)
        my_cards = cnt_ls.gather(1, (me + 2)[:, None, None].expand(B, 1, 5))[:, 0] / game._c5
        per_loc = cnt_ls[:, :, :4].sum(2)
        cards = (per_loc.gather(1, rot + 2) * alive_r) / game._c5
        tv = tab.tv_obs[s.sets_traded.clamp(max=400)][:, None]
    else:
        my_cards = game._zeros_f.expand(B, 5)
        cards = game._zeros_f.expand(B, n)
        tv = game._zeros_f.expand(B, 1)
    terr = cnt[:, C + 1] / game._cT
    army_tot = cnt[:, C] / game._c10T
    battle = (
        torch.stack(
            [
                s.last_dice,
                torch.where(ph == DEFEND, s.att_dice, 0),
                torch.where(ph == OCCUPY, game._g(s.armies, s.att_dst), 0),
            ],
            dim=1,
        ).float()
        / game._c3
    )
    out = torch.empty(B, game.obs_size, device=game.device)
    # owner one-hot and the selection: zeroed, then ones added in (an unclaimed territory adds 0)
    TS = T * S
    head = out[:, : TS + T + 2 * T]
    head.zero_()
    claimed = rel < S
    head.scatter_add_(1, game._owner_base[None, :] + rel.clamp(max=S - 1), claimed.float())
    head[:, TS : TS + T].copy_(s.armies / game._c10)
    pick = torch.stack([2 * src, 2 * dst + 1], dim=1)
    # (adding: a missing source or target adds a zero wherever its clamped index points)
    head.scatter_add_(1, TS + T + pick.clamp(min=0), torch.stack([src >= 0, dst >= 0], dim=1).float())
    blocks = [
        cont,
        phase_1h,
        acting,
        on_turn,
        to_place[:, None] / game._c10,
        flags,
        my_cards,
        tp,
        cards,
        alive_r,
        terr,
        army_tot,
        tv,
        battle,
        s.turn[:, None] / game._c_limit,
    ]
    off = TS + 3 * T
    for x in blocks:  # a fixed list of blocks: each is converted while copied into place
        w = x[0].numel()
        out[:, off : off + w].copy_(x.reshape(B, w))
        off += w
    return out
