"""The observations of the batched engine: :func:`observe`, the same vectors as
:class:`risk_env.ObservationEncoder` for a batch of games, and :func:`observe_graph`, the
same dicts as the AEC env's ``observation="graph"``
(:class:`risk_env.envs.graph.GraphObservationEncoder`), built from the same layout
(:mod:`risk_env.envs.layout`).

Plain functions of a :class:`~risk_env.vector.engine.VectorGame` and a
:class:`~risk_env.vector.state.BatchState`; :meth:`VectorGame.observe` and
:meth:`VectorGame.observe_graph` call them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch

from ..envs.graph import GLOBAL_FEATURES, static_node_features
from ..envs.layout import GRAPH_GLOBALS_FROM_FLAT, GRAPH_NODE_LAYOUT, MAX_PLAYERS, graph_layout
from .masks import take
from .state import ATTACK, CAPITAL, CLAIM, DEFEND, GAME_OVER, OCCUPY, SETUP_PLACE, BatchState

if TYPE_CHECKING:
    from .engine import VectorGame

__all__ = ["GraphTables", "hand_symbols", "observe", "observe_graph"]


def hand_symbols(game: VectorGame, s: BatchState, seat: torch.Tensor) -> torch.Tensor:
    """int64 ``(B, 5)``: cards of ``seat`` (int64 ``(B,)``) per symbol (columns 0-3), and the
    ones showing a territory that ``seat`` owns (column 4). Needs cards in the rules."""
    T = game.T
    Tc = min(T, game.NC)
    held = s.card_loc == seat[:, None]  # (B, NC)
    # per symbol: held cards times the symbols' one-hot rows (counts up to NC, exact in float32)
    per_symbol = held.view(torch.uint8).to(torch.float32) @ game.tab.card_sym_1h
    shown = (held[:, :Tc] & (s.owner[:, :Tc] == seat[:, None])).sum(1, keepdim=True)
    return torch.cat([per_symbol.long(), shown], 1)


def observe(game: VectorGame, s: BatchState, seat: torch.Tensor | None = None, hand: torch.Tensor | None = None) -> torch.Tensor:
    """float32 ``(B, D)``: ``ObservationEncoder.encode`` of each game for ``seat`` (default: the
    seat to act, :meth:`VectorGame.current_player`).

    ``hand``: optional :func:`hand_symbols` of ``seat`` (computed here if omitted).

    Scaled entries are integer counts divided by an integer in float32 (a correctly
    rounded quotient), which equals the reference encoder's float64 product rounded
    to float32 for every count below 2**24; divisors are device tensors so that no
    device turns the division into a multiplication by a rounded reciprocal.
    """
    tab = game.tab
    B, n = s.batch_size, game.n
    S = n + 1
    C = tab.C
    ph = s.phase
    p = s.player
    actor = game.current_player(s) if (game.choose or game.allied >= 0 or seat is None) else p
    me = actor if seat is None else seat
    L = game.obs_layout
    o = game.obs_offsets
    # slot of each owner as seen from `me`: the rotation table row of `me`, owner -1 reads column 0
    rot_row = game.rot_tab.index_select(0, me)
    rel = rot_row.gather(1, s.owner + 1)  # (B, T); S marks unclaimed
    claimed = rel < S
    relc = rel.clamp(max=S - 1)
    # continent x slot counts, territories and armies per slot, side by side in one flat row
    CS = C * S
    ones = claimed.long()
    cnt = torch.zeros(B, CS + 2 * S, dtype=torch.int64, device=game.device)
    cnt.scatter_add_(1, game.cont_col[None, :] + relc, ones)
    cnt.scatter_add_(1, CS + relc, ones)
    cnt.scatter_add_(1, CS + S + relc, s.armies)  # (unclaimed territories hold no armies)
    # (the output is allocated after the temporaries above: in the other order glibc's allocator
    # hands back fresh pages every call at large batches, measured as ~1,000 page faults a step)
    with torch.inference_mode(False):  # a normal tensor, also in the env's inference mode: callers may train on it
        out = torch.empty(B, game.obs_size, dtype=torch.float32, device=game.device)
    # owner one-hot: ones added into zeros (an unclaimed territory adds a zero)
    head = out[:, : L.stop("selected")]
    head.zero_()
    head.scatter_add_(1, game.owner_base[None, :] + relc, claimed.view(torch.uint8).to(out.dtype))
    torch.div(s.armies, game.c10, out=out[:, L.slice("armies")])
    # the selection: a pending one, or the last battle's pair
    P_DEF, P_OCC, P_SETUP = ph == DEFEND, ph == OCCUPY, ph == SETUP_PLACE
    last = P_DEF | P_OCC | ((ph == ATTACK) & (s.sel_src < 0))
    src = torch.where(last, s.att_src, s.sel_src)
    dst = torch.where(last, s.att_dst, s.sel_dst)
    pick = torch.stack([src, dst], dim=1)  # (a missing one adds a zero where its clamped index points)
    head.scatter_add_(1, game.sel_col + 2 * pick.clamp(min=0), (pick >= 0).view(torch.uint8).to(out.dtype))
    torch.div(cnt[:, :CS], game.cont_size_cs, out=out[:, L.slice("continent_share")])
    torch.div(cnt[:, CS : CS + S], game.cT, out=out[:, L.slice("territories")])
    torch.div(cnt[:, CS + S :], game.c10T, out=out[:, L.slice("army_total")])
    # the turn: phase, acting, the seat on turn, armies to place, flags, a pending trade
    over = ph == GAME_OVER
    torch.eq(ph[:, None], game.ar_phase, out=out[:, L.slice("phase")])
    mine = p == me
    out[:, o["acting"]] = ~over & (actor == me)
    rel_p = rot_row.gather(1, (p + 1)[:, None])[:, 0]
    torch.eq(game.ar_S[None, :], torch.where(over, -1, rel_p)[:, None], out=out[:, L.slice("on_turn")])
    setup = (ph == CLAIM) | P_SETUP
    shown = mine
    if game.allied >= 0:  # the allied army's sub-turn: its armies to place, for the seat commanding it (§7)
        assert s.commander is not None
        shown = mine | (s.commander == me)
    to_place = torch.where(setup, take(s.setup_left, me), torch.where(shown, s.to_place, 0))
    torch.div(to_place, game.c10, out=out[:, o["to_place"]])
    playing = ~setup & mine
    if game.allied >= 0:
        playing &= s.commander != me
    w = o["flags"]
    out[:, w : w + 4] = torch.stack([s.forced, s.bonus_used, s.conquered, s.resume_attack], dim=1) & playing[:, None]
    out[:, w + 4] = P_SETUP & (s.setup_step == 2)
    torch.eq(game.ar_trade[None, :], torch.where(playing, s.sel_trade, -1)[:, None], out=out[:, L.slice("trade_pending")])
    # cards and seats, rotated to `me`
    rot = game.rot_seats.index_select(0, me)  # (B, n) seat at each rotated position
    alive_r = s.alive.gather(1, rot)
    out[:, L.slice("alive")] = alive_r
    if game.NC:
        mc = hand if hand is not None else hand_symbols(game, s, me)
        torch.div(mc, game.c5, out=out[:, L.slice("my_cards")])
        per_loc = torch.zeros(B, game.num_seats + 2, dtype=torch.int64, device=game.device)
        per_loc.scatter_add_(1, s.card_loc + 2, torch.ones_like(s.card_loc))  # cards per location (-2..seats)
        torch.div(per_loc.gather(1, rot + 2) * alive_r, game.c5, out=out[:, L.slice("cards")])
        out[:, o["trade_value"]] = tab.tv_obs[s.sets_traded.clamp(max=tab.tv_obs.numel() - 1)]
    else:
        out[:, L.slice("my_cards")] = 0.0
        out[:, L.slice("cards")] = 0.0
        out[:, o["trade_value"]] = 0.0
    battle = torch.stack(
        [
            s.last_dice,
            torch.where(P_DEF, s.att_dice, 0),
            torch.where(P_OCC, take(s.armies, s.att_dst), 0),
        ],
        dim=1,
    )
    torch.div(battle, game.c3, out=out[:, L.slice("battle")])
    torch.div(s.turn, game.c_limit, out=out[:, o["turn"]])
    if game.dice_rules:
        _dice_rules_block(game, s, me, out)
    if game.config.secret_missions:
        _missions_block(game, s, me, alive_r, out)
    if game.config.capitals:
        _capitals_block(game, s, me, out)
    if game.allied >= 0:
        _allied_block(game, s, me, out)
    if game.choose:
        out[:, o["blitz_defence"]] = s.blitzing & P_DEF
    return out


def _dice_rules_block(game: VectorGame, s: BatchState, me: torch.Tensor, out: torch.Tensor) -> None:
    """The ``dice_rules`` block (docs/rules.md §8): for the player on turn in the attack phase."""
    assert s.last_roll is not None
    cfg = game.config
    here = (s.player == me) & (s.phase == ATTACK)
    pend = here & s.roll_pending
    att = game.ar_dice[None, :] < s.att_dice[:, None]
    dfd = s.last_roll[:, 3:5] > 0
    faces = torch.where(torch.cat([att, dfd], 1) & pend[:, None], s.last_roll, 0)
    block = torch.zeros(s.batch_size, game.obs_layout.width("dice_rules"), dtype=torch.float32, device=game.device)
    block[:, 0] = pend
    if cfg.reroll_with_card:
        block[:, 1] = here & ~s.reroll_used
    if cfg.die_to_six:
        block[:, 2] = here & ~s.six_used
    block[:, 3:] = faces / game.c6
    out[:, game.obs_layout.slice("dice_rules")] = block


def _missions_block(game: VectorGame, s: BatchState, me: torch.Tensor, alive_r: torch.Tensor, out: torch.Tensor) -> None:
    """The ``mission`` and ``mission_held`` blocks (docs/rules.md §8): the observer's own mission only."""
    assert s.missions is not None
    L = game.obs_layout
    mine = take(s.missions, me)
    code = torch.where(
        mine >= game.destroy_first,
        game.destroy_first + (game.mission_target.index_select(0, mine.clamp(min=0)) - me) % game.n,
        mine,
    )
    block = out[:, L.slice("mission")]
    block.zero_()
    block.scatter_(1, code.clamp(min=0)[:, None], (mine >= 0).to(out.dtype)[:, None])
    out[:, L.slice("mission_held")] = alive_r


def _capitals_block(game: VectorGame, s: BatchState, me: torch.Tensor, out: torch.Tensor) -> None:
    """The ``capital`` and ``capital_phase`` blocks (docs/rules.md §8): capitals are public."""
    assert s.capitals is not None
    L, n = game.obs_layout, game.n
    block = out[:, L.slice("capital")]
    block.zero_()
    caps = s.capitals  # (B, n) territory per seat, -1 while not chosen
    slot = (game.ar_n[None, :] - me[:, None]) % n
    block.scatter_add_(1, caps.clamp(min=0) * n + slot, (caps >= 0).to(out.dtype))
    out[:, game.obs_offsets["capital_phase"]] = s.phase == CAPITAL


def _allied_block(game: VectorGame, s: BatchState, me: torch.Tensor, out: torch.Tensor) -> None:
    """The ``allied`` block (docs/rules.md §7)."""
    assert s.commander is not None
    live = s.phase != GAME_OVER
    acts = live & (s.player == game.allied)
    w = game.obs_offsets["allied"]
    out[:, w] = acts
    out[:, w + 1] = acts & (s.commander == me)
    reinf = torch.where(live & (s.turn >= 1), game.allied_reinforcement(s), 0)
    out[:, w + 2] = reinf / game.c10


class GraphTables:
    """What the batched graph observation needs of one game, on its device: the edge index,
    the static node features, the column and index maps from the flat observation's blocks
    to the graph's (all from :mod:`risk_env.envs.layout`), and float32 divisors."""

    def __init__(self, game: VectorGame) -> None:
        ref, dev = game.game, game.device
        T, n = game.T, game.n
        S = n + 1
        node = {b.name: GRAPH_NODE_LAYOUT.start(b.name) for b in GRAPH_NODE_LAYOUT}
        self.node = node
        self.layout = graph_layout(game.obs_layout, T, n)  # (the core blocks, then those the rule switches add)
        self.F = self.layout.nodes.size
        self.G = self.layout.globals.size
        src = np.asarray(ref.edge_src, dtype=np.int64)
        dst = np.asarray(ref.edge_dst, dtype=np.int64)
        self.edges = torch.as_tensor(np.stack([src, dst]), device=dev)
        self.src, self.dst = self.edges[0], self.edges[1]
        static = static_node_features(ref)  # cont_bonus, cont_size, degree
        self.static = torch.as_tensor(static, device=dev)
        cont = np.array(ref.map.territory_continent, dtype=np.int64)
        self.cont = torch.as_tensor(cont, device=dev)
        sizes = np.asarray(ref.map.continent_members, dtype=bool).sum(axis=1)
        self.cont_size_t = torch.as_tensor(sizes[cont].astype(np.float32), device=dev)
        degree = np.bincount(src, minlength=T)
        self.degree = torch.as_tensor(np.maximum(degree, 1).astype(np.float32), device=dev)
        self.W = ref.num_seats + 1  # owner ids 0..num_seats-1, and num_seats for unclaimed
        self.C = len(ref.map.continent_names)
        self.Tc = min(T, game.NC)
        # globals: flat entries -> graph entries (GRAPH_GLOBALS_FROM_FLAT), as runs of consecutive columns
        flat = game.obs_layout
        slot_map = [*range(n), MAX_PLAYERS]
        src_i: list[int] = []
        dst_i: list[int] = []
        for name, how in GRAPH_GLOBALS_FROM_FLAT.items():
            f0, g0, w = flat.start(name), GLOBAL_FEATURES[name].start, flat.width(name)
            cols = slot_map if how == "slots" else range(w)
            src_i += [f0 + k for k in range(w)]
            dst_i += [g0 + c for c in cols]
        for f0, g0, w in self.layout.extra_globals:
            src_i += [f0 + k for k in range(w)]
            dst_i += [g0 + k for k in range(w)]
        self.global_runs = _runs(src_i, dst_i)  # (flat start, graph start, width): slice copies, no index kernels
        self.static_cols = [node["cont_bonus"], node["cont_size"], node["degree"]]  # the columns of `static`
        self.turn_flat = flat.start("turn")
        self.turn_global = GLOBAL_FEATURES["turn"].start
        const = np.zeros(self.G, dtype=np.float32)
        const[GLOBAL_FEATURES["num_players"].start] = n / MAX_PLAYERS
        const[GLOBAL_FEATURES["bias"].start] = 1.0
        self.const = torch.as_tensor(const, device=dev)
        self.S = S
        self.c10 = torch.tensor(10.0, dtype=torch.float32, device=dev)


def observe_graph(
    game: VectorGame,
    s: BatchState,
    seat: torch.Tensor | None = None,
    mask: torch.Tensor | None = None,
    turn_feature: bool = False,
    flat: torch.Tensor | None = None,
) -> dict[str, torch.Tensor]:
    """The graph observation of each game for ``seat`` (default: the seat to act), bit for bit
    what the AEC env's ``observation="graph"`` gives (``GraphObservationEncoder.from_flat``).

    Args:
        seat: int64 ``(B,)`` observers.
        mask: bool or int8 ``(B, N)``: each observer's action mask (its territory block fills
            the ``legal`` node feature); the AEC env gives the acting seat its mask and every
            other seat zeros. None: zeros.
        turn_feature: write ``turn / turn_limit`` into the globals (as the AEC env's
            ``turn_feature``; default False, the graph observation's default).
        flat: :func:`observe` of the same games and seats, if already computed.

    Returns:
        ``{"nodes": float32 (B, T, F), "edges": int64 (B, 2, E) (one edge index expanded,
        not copied), "globals": float32 (B, G), "action_mask": int8 (B, N)}``.
    """
    gt = game.graph_tables
    B, T = s.batch_size, game.T
    me = game.current_player(s) if seat is None else seat
    if flat is None:
        flat = observe(game, s, me)
    o = game.obs_offsets
    S, node = gt.S, gt.node
    with torch.inference_mode(False):  # normal tensors, also in the env's inference mode: callers may train on them
        nodes = torch.zeros(B, T, gt.F, dtype=torch.float32, device=game.device)
        glob = gt.const.expand(B, -1).clone()
        m8 = mask.to(torch.int8) if mask is not None else torch.zeros(B, game.num_actions, dtype=torch.int8, device=game.device)
    owner = flat[:, o["owner"] : o["owner"] + T * S].view(B, T, S)
    r0 = node["owner_rel"]  # the flat owner slots: n relative seats, then the neutral one
    nodes[:, :, r0 : r0 + S - 1] = owner[:, :, : S - 1]
    nodes[:, :, node["owner_neutral"]] = owner[:, :, S - 1]
    nodes[:, :, node["owner_none"]] = (s.owner < 0).to(nodes.dtype)
    nodes[:, :, node["armies"]] = flat[:, o["armies"] : o["armies"] + T]
    w = node["selected_src"]
    nodes[:, :, w : w + 2] = flat[:, o["selected"] : o["selected"] + 2 * T].view(B, T, 2)
    if game.NC:
        held = (s.card_loc[:, : gt.Tc] == me[:, None]).to(nodes.dtype)
        nodes[:, : gt.Tc, node["my_card"]] = held
    if mask is not None:
        nodes[:, :, node["legal"]] = mask[:, :T].to(nodes.dtype)
    for k, col in enumerate(gt.static_cols):
        nodes[:, :, col] = gt.static[:, k]
    own = s.owner
    # continent shares: mine, and each territory's owner's
    mine = (own == me[:, None]).long()
    per_cont = torch.zeros(B, gt.C, dtype=torch.int64, device=game.device)
    per_cont.scatter_add_(1, gt.cont.expand(B, T), mine)
    nodes[:, :, node["cont_mine"]] = per_cont.gather(1, gt.cont.expand(B, T)) / gt.cont_size_t
    key = gt.cont * gt.W + torch.where(own >= 0, own, gt.W - 1)
    cnt = torch.zeros(B, gt.C * gt.W, dtype=torch.int64, device=game.device)
    cnt.scatter_add_(1, key, torch.ones_like(own))
    share = cnt.gather(1, key) / gt.cont_size_t
    nodes[:, :, node["cont_owner"]] = torch.where(own >= 0, share, 0.0)
    # neighbours owned by another owner, and their armies: per edge, summed per source territory
    # (territory-major, so the edge gathers and sums move whole rows of games). Owners as int8 (ids
    # below 8; -1 unclaimed): a pair is foreign when the owners differ and neither is -1, i.e. their
    # bitwise OR is >= 0. The sums are integers in float32, exact below 2**24 (float32 index_add
    # runs some seven times faster than int64's on the CPU), so the quotients are the reference's.
    own_t = own.to(torch.int8).t().contiguous()  # (T, B)
    os_, od = own_t.index_select(0, gt.src), own_t.index_select(0, gt.dst)  # (E, B)
    foreign = ((os_ != od) & ((os_ | od) >= 0)).to(torch.float32)
    arm_dst = s.armies.to(torch.float32).t().contiguous().index_select(0, gt.dst)
    fn = torch.zeros(T, B, dtype=torch.float32, device=game.device).index_add_(0, gt.src, foreign)
    fa = torch.zeros(T, B, dtype=torch.float32, device=game.device).index_add_(0, gt.src, foreign * arm_dst)
    nodes[:, :, node["foreign_nbrs"]] = fn.t() / gt.degree
    nodes[:, :, node["foreign_armies"]] = fa.t() / gt.c10
    for f0, g0, w in gt.global_runs:
        glob[:, g0 : g0 + w] = flat[:, f0 : f0 + w]
    if turn_feature:
        glob[:, gt.turn_global] = flat[:, gt.turn_flat]
    for f0, c0, w in gt.layout.extra_nodes:  # node blocks the rule switches add (capitals)
        nodes[:, :, c0 : c0 + w] = flat[:, f0 : f0 + T * w].view(B, T, w)
    return {"nodes": nodes, "edges": gt.edges.expand(B, -1, -1), "globals": glob, "action_mask": m8}


def _runs(src: list[int], dst: list[int]) -> list[tuple[int, int, int]]:
    """``(src_start, dst_start, width)`` runs of consecutive columns of the map ``dst[i] <- src[i]``."""
    runs: list[list[int]] = []
    for a, b in zip(src, dst, strict=True):
        if runs and runs[-1][0] + runs[-1][2] == a and runs[-1][1] + runs[-1][2] == b:
            runs[-1][2] += 1
        else:
            runs.append([a, b, 1])
    return [(a, b, w) for a, b, w in runs]
