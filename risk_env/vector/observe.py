"""The observation of the batched engine: :func:`observe`, the same vectors as
:class:`risk_env.ObservationEncoder` for a batch of games.

A plain function of a :class:`~risk_env.vector.engine.VectorGame` and a
:class:`~risk_env.vector.state.BatchState`; :meth:`VectorGame.observe` calls it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..envs.layout import PHASE_SLOTS
from .state import ATTACK, CLAIM, DEFEND, GAME_OVER, OCCUPY, SETUP_PLACE, BatchState

if TYPE_CHECKING:
    from .engine import VectorGame

__all__ = ["hand_symbols", "observe"]


def hand_symbols(game: VectorGame, s: BatchState, seat: torch.Tensor) -> torch.Tensor:
    """int64 ``(B, 5)``: cards of ``seat`` (int64 ``(B,)``) per symbol (columns 0-3), and the
    ones showing a territory that ``seat`` owns (column 4). Needs cards in the rules."""
    T = game.T
    Tc = min(T, game.NC)
    held = s.card_loc == seat[:, None]  # (B, NC)
    key = torch.where(held, game.tab.card_sym[None, :], 5)
    cnt = torch.zeros(s.batch_size, 6, dtype=torch.int64, device=game.device)
    cnt.scatter_add_(1, key, game._ones_NC(s.batch_size))
    cnt[:, 4] = (held[:, :Tc] & (s.owner[:, :Tc] == seat[:, None])).sum(1)
    return cnt[:, :5]


def observe(game: VectorGame, s: BatchState, seat: torch.Tensor | None = None, hand: torch.Tensor | None = None) -> torch.Tensor:
    """float32 ``(B, D)``: ``ObservationEncoder.encode`` of each game for ``seat`` (default: the seat to act).

    ``hand``: optional :func:`hand_symbols` of ``seat`` (computed here if omitted).

    Scaled entries are integer counts divided by an integer in float32 (a correctly
    rounded quotient), which equals the reference encoder's float64 product rounded
    to float32 for every count below 2**24; divisors are device tensors so that no
    device turns the division into a multiplication by a rounded reciprocal.
    """
    tab = game.tab
    B, T, n = s.batch_size, game.T, game.n
    S = n + 1
    C = tab.C
    ph = s.phase
    p = s.player
    me = p if seat is None else seat
    o = game._obs_off
    # slot of each owner as seen from `me`: the rotation table row of `me`, owner -1 reads column 0
    rel = game._rot_tab.index_select(0, me).gather(1, s.owner + 1)  # (B, T); S marks unclaimed
    claimed = rel < S
    relc = rel.clamp(max=S - 1)
    # continent x slot counts, territories and armies per slot, side by side in one flat row
    CS = C * S
    ones = claimed.long()
    cnt = torch.zeros(B, CS + 2 * S, dtype=torch.int64, device=game.device)
    cnt.scatter_add_(1, game._cont_col[None, :] + relc, ones)
    cnt.scatter_add_(1, CS + relc, ones)
    cnt.scatter_add_(1, CS + S + relc, s.armies)  # (unclaimed territories hold no armies)
    # (the output is allocated after the temporaries above: in the other order glibc's allocator
    # hands back fresh pages every call at large batches, measured as ~1,000 page faults a step)
    out = torch.empty(B, game.obs_size, device=game.device)
    # owner one-hot: ones added into zeros (an unclaimed territory adds a zero)
    head = out[:, : o["selected"] + 2 * T]
    head.zero_()
    head.scatter_add_(1, game._owner_base[None, :] + relc, claimed.view(torch.uint8).to(out.dtype))
    torch.div(s.armies, game._c10, out=out[:, o["armies"] : o["armies"] + T])
    # the selection: a pending one, or the last battle's pair
    last = (ph == DEFEND) | (ph == OCCUPY) | ((ph == ATTACK) & (s.sel_src < 0))
    src = torch.where(last, s.att_src, s.sel_src)
    dst = torch.where(last, s.att_dst, s.sel_dst)
    pick = torch.stack([src, dst], dim=1)  # (a missing one adds a zero where its clamped index points)
    head.scatter_add_(1, game._sel_col + 2 * pick.clamp(min=0), (pick >= 0).view(torch.uint8).to(out.dtype))
    w = o["continent_share"]
    torch.div(cnt[:, :CS], game._cont_size_cs, out=out[:, w : w + CS])
    torch.div(cnt[:, CS : CS + S], game._cT, out=out[:, o["territories"] : o["territories"] + S])
    torch.div(cnt[:, CS + S :], game._c10T, out=out[:, o["army_total"] : o["army_total"] + S])
    # the turn: phase, acting, the seat on turn, armies to place, flags, a pending trade
    over = ph == GAME_OVER
    torch.eq(ph[:, None], game._ar_8, out=out[:, o["phase"] : o["phase"] + PHASE_SLOTS])
    mine = p == me
    out[:, o["acting"]] = ~over & mine
    rel_p = (p - me) % n
    w = o["on_turn"]
    torch.eq(game._ar_S[None, :], torch.where(over, -1, rel_p)[:, None], out=out[:, w : w + S])
    setup = (ph == CLAIM) | (ph == SETUP_PLACE)
    to_place = torch.where(setup, game._g(s.setup_left, me), torch.where(mine, s.to_place, 0))
    torch.div(to_place, game._c10, out=out[:, o["to_place"]])
    playing = ~setup & mine
    w = o["flags"]
    out[:, w : w + 4] = torch.stack([s.forced, s.bonus_used, s.conquered, s.resume_attack], dim=1) & playing[:, None]
    out[:, w + 4] = (ph == SETUP_PLACE) & (s.setup_step == 2)
    w = o["trade_pending"]
    torch.eq(game._ar_13[None, :], torch.where(playing, s.sel_trade, -1)[:, None], out=out[:, w : w + game._ar_13.numel()])
    # cards and seats, rotated to `me`
    rot = game._rot_seats.index_select(0, me)  # (B, n) seat at each rotated position
    alive_r = s.alive.gather(1, rot)
    out[:, o["alive"] : o["alive"] + n] = alive_r
    if game.NC:
        mc = hand if hand is not None else hand_symbols(game, s, me)
        torch.div(mc, game._c5, out=out[:, o["my_cards"] : o["my_cards"] + 5])
        per_loc = torch.zeros(B, game.num_seats + 2, dtype=torch.int64, device=game.device)
        per_loc.scatter_add_(1, s.card_loc + 2, game._ones_NC(B))  # cards per location (-2..seats)
        torch.div(per_loc.gather(1, rot + 2) * alive_r, game._c5, out=out[:, o["cards"] : o["cards"] + n])
        out[:, o["trade_value"]] = tab.tv_obs[s.sets_traded.clamp(max=400)]
    else:
        out[:, o["my_cards"] : o["my_cards"] + 5] = 0.0
        out[:, o["cards"] : o["cards"] + n] = 0.0
        out[:, o["trade_value"]] = 0.0
    w = o["battle"]
    battle = torch.stack(
        [
            s.last_dice,
            torch.where(ph == DEFEND, s.att_dice, 0),
            torch.where(ph == OCCUPY, game._g(s.armies, s.att_dst), 0),
        ],
        dim=1,
    )
    torch.div(battle, game._c3, out=out[:, w : w + 3])
    torch.div(s.turn, game._c_limit, out=out[:, o["turn"]])
    return out
