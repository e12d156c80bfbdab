"""The batched rules engine: ``B`` games in lockstep as torch tensors.

:class:`VectorGame` holds the static facts (rules, map tensors, device) and
:class:`BatchState` the positions. :meth:`VectorGame.step` applies one action
id per game with the same meaning as :class:`risk_env.ActionCodec` (sub-steps
included), :meth:`VectorGame.action_mask` and :meth:`VectorGame.observe` give
the same masks and observations as ``ActionCodec.mask`` and
``ObservationEncoder.encode``. Every phase is computed for the whole batch
with masked updates (``torch.where``, scatters): there is no Python loop over
games or territories; the only loop is over the rolls of a blitz whose
armies exceed the blitz table (or when dice are injected).

Modules: :mod:`~risk_env.vector.state` (positions, injected chance, the
supported rules), :mod:`~risk_env.vector.masks` (the action mask),
:mod:`~risk_env.vector.observe` (the observation), :mod:`~risk_env.vector.dice`
(rolls and blitzes) and :mod:`~risk_env.vector.tables` (map and blitz tables);
this one holds :class:`VectorGame`, the setup, the turn flow and the step.

Rules covered (docs/rules.md): the classic rules for 2-6 players (2 players
with the neutral), ``setup`` ``"claim"`` (3-6 players), ``"deal"`` and
``"random"``, any ``starting_armies``, ``elimination_trade_at`` and
``turn_limit``, the escalating card schedule, the +2 bonus once per turn,
the defender rolling its maximum, adjacent fortification, truncation scored
as a draw; so the ``classic`` and ``fast`` presets. Anything else raises
:class:`risk_env.ConfigError` naming what is supported.

Chance: one seeded ``torch.Generator`` per :class:`VectorGame`. Setup,
dice and reshuffles draw from it. A blitz samples its end at once from the
exact blitz distribution (:mod:`risk_env.vector.tables`) when both sides fit
in the table, otherwise rolls one roll at a time until they do. For tests,
:meth:`VectorGame.step` takes injected dice and drawn cards instead
(:class:`Chance`), and then rolls every blitz roll by roll, consuming faces
in the reference engine's order (attacker faces, then defender faces, per roll).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ..envs.layout import ATTACK_DICE, DEFEND_DICE, PHASE_SLOTS, action_layout, observation_layout
from ..errors import ConfigError
from ..rules.cards import COMPOSITIONS
from ..rules.config import RulesConfig
from ..rules.engine import Game
from .dice import battle as _battle_fn
from .dice import roll as _roll_fn
from .masks import action_mask as _action_mask_fn
from .masks import bonus_options, pick_cards
from .observe import observe as _observe_fn
from .state import (
    ATTACK,
    CLAIM,
    DECK,
    DISCARD,
    FORTIFY,
    GAME_OVER,
    OCCUPY,
    REINFORCE,
    SETUP_PLACE,
    SUPPORTED_RULES,
    BatchState,
    Chance,
    StepInfo,
    check_rules,
)
from .state import blank_state as _blank_fn
from .state import from_states as _from_states_fn
from .tables import MapTables

__all__ = ["SUPPORTED_RULES", "BatchState", "Chance", "StepInfo", "VectorGame", "check_rules"]


def _amount(level: torch.Tensor, lo: torch.Tensor, hi: torch.Tensor, K: int) -> torch.Tensor:
    return lo + torch.div(2 * level * (hi - lo) + (K - 1), 2 * (K - 1), rounding_mode="floor")


class VectorGame:
    """The rules for ``B`` games at once on one device.

    Args:
        rules: a :class:`RulesConfig` (keyword overrides applied on top).
        device: torch device of every tensor.
        seed: seeds the one ``torch.Generator``.

    Raises:
        ConfigError: rules the batched engine does not support (see :data:`SUPPORTED_RULES`).
    """

    def __init__(
        self, rules: RulesConfig | None = None, device: str | torch.device = "cpu", seed: int = 0, **overrides: Any
    ) -> None:
        cfg = rules or RulesConfig()
        if overrides:
            cfg = cfg.replace(**overrides)
        check_rules(cfg)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ConfigError(f"seed must be an integer >= 0, got {seed!r}")
        self.config = cfg
        self.game = Game(cfg)  # the reference game: validates the rules and the map
        self.device = torch.device(device)
        self.generator = torch.Generator(device=self.device)
        self.generator.manual_seed(int(seed))
        g = self.game
        self.n = cfg.num_players
        self.neutral = g.neutral
        self.num_seats = g.num_seats
        self.T = g.T
        self.tab = MapTables.build(g, self.device)
        self.NC = self.tab.NC if g.uses_cards else 0
        self.K = self.tab.K
        T, K = self.T, self.K
        # the action ids and observation blocks of the reference codec and encoder (one description)
        self.actions = action_layout(g)
        self.obs_layout = observation_layout(g)
        self.num_actions = self.actions.n
        self.obs_size = self.obs_layout.size
        self._obs_off = {b.name: self.obs_layout.start(b.name) for b in self.obs_layout}
        S = self.n + 1
        n = self.n
        dev = self.device
        self._ar_n = torch.arange(n, device=dev)
        self._ar_T = torch.arange(T, device=dev)
        self._ar_K = torch.arange(K, device=dev)
        self._ar_S = torch.arange(S, device=dev)
        NT = len(COMPOSITIONS)
        self._ar_13 = torch.arange(NT, device=dev)
        self._false13 = torch.zeros((1, NT), dtype=torch.bool, device=dev)
        self._ar3 = torch.arange(ATTACK_DICE, device=dev)
        self._adj_bf16 = self.tab.adj_f.to(torch.bfloat16)
        # adjacency rows with an all-False row T (for games not choosing a target)
        self._adj_x = torch.cat([self.tab.adj, torch.zeros((1, T), dtype=torch.bool, device=dev)])
        self._ar2 = torch.arange(DEFEND_DICE, device=dev)
        self._ar5 = torch.arange(ATTACK_DICE + DEFEND_DICE, device=dev)
        self._ar_NC = torch.arange(max(self.NC, 1), device=dev)
        # compositions a hand holds, by its symbol counts capped at 3 (base-4 code)
        self._base4 = torch.tensor([1, 4, 16, 64], device=dev)
        codes = np.array([[(c // 4**k) % 4 for k in range(4)] for c in range(256)])
        comp = self.tab.comp.cpu().numpy()
        lut = (comp[None, :, :] <= codes[:, None, :]).all(2)
        self._comp_lut = torch.as_tensor(np.concatenate([lut, np.zeros((1, NT), dtype=bool)]), device=dev)  # row 256: none
        self._owner_base = torch.arange(T, device=dev) * S
        self._ones_cache: dict[int, torch.Tensor] = {}
        # rotation table: row `me`, column owner + 1 -> observation slot (S: unclaimed)
        W = self.num_seats + 1
        rot_tab = np.full((n, W), S, dtype=np.int64)
        for me in range(n):
            for seat in range(n):
                rot_tab[me, seat + 1] = (seat - me) % n
            if self.neutral >= 0:
                rot_tab[me, self.neutral + 1] = n
        self._rot_tab = torch.as_tensor(rot_tab, device=dev)
        # observation: each territory's continent row in the (continent, slot) counts, continent sizes per column
        self._cont_col = torch.as_tensor(self.game.map.territory_continent * S, device=dev)
        self._cont_size_cs = self.tab.cont_size.float().repeat_interleave(S)
        sel = self.obs_layout.start("selected")
        self._sel_col = torch.tensor([[sel, sel + 1]], device=dev)
        self._rot_seats = torch.as_tensor(np.array([[(me + k) % n for k in range(n)] for me in range(n)]), device=dev)
        self._ar_8 = torch.arange(PHASE_SLOTS, device=dev)

        def c(x: float) -> torch.Tensor:
            return torch.tensor(x, dtype=torch.float32, device=dev)

        self._c3, self._c5, self._c10 = c(3.0), c(5.0), c(10.0)
        self._cT, self._c10T, self._c_limit = c(float(T)), c(10.0 * T), c(float(cfg.turn_limit))

    # ------------------------------------------------------------------ action ids (from the layout)
    @property
    def A_AMOUNT(self) -> int:
        """First id of the amount block (:attr:`actions`)."""
        return self.actions.amount

    @property
    def A_DICE(self) -> int:
        """First id of the dice block."""
        return self.actions.dice

    @property
    def A_BLITZ(self) -> int:
        """The blitz id."""
        return self.actions.blitz

    @property
    def A_TRADE(self) -> int:
        """First id of the trade block (-1 without cards)."""
        return self.actions.trade

    @property
    def A_END(self) -> int:
        """The end id (the last id)."""
        return self.actions.end

    # ------------------------------------------------------------------ creation
    # (functions of other modules bound as methods: no wrapper call per use)
    _blank = _blank_fn
    from_states = _from_states_fn

    def new_games(self, B: int) -> BatchState:
        """``B`` new games: turn order drawn, setup done up to the first decision (docs/rules.md §3, §7)."""
        cfg, dev, gen = self.config, self.device, self.generator
        T, n, L = self.T, self.n, self.num_seats
        s = self._blank(B)
        s.order = torch.argsort(torch.rand(B, n, generator=gen, device=dev), dim=1)
        s.order_pos = torch.argsort(s.order, dim=1)
        s.alive[:] = True
        start = int(cfg.starting_armies or 0)
        s.setup_left[:, :n] = start
        if self.neutral >= 0:
            s.setup_left[:, n] = start
        if self.NC:
            s.deck_key = torch.rand(B, self.NC, generator=gen, device=dev)
        if cfg.setup == "claim":
            s.phase[:] = CLAIM
            s.player = s.order[:, 0].clone()
            return s
        cycle = s.order
        if self.neutral >= 0:
            cycle = torch.cat([s.order, torch.full((B, 1), self.neutral, device=dev, dtype=torch.int64)], dim=1)
        perm = torch.argsort(torch.rand(B, T, generator=gen, device=dev), dim=1)
        seat_of_k = cycle[:, self._ar_T % L]
        s.owner.scatter_(1, perm, seat_of_k)
        s.armies[:] = 1
        counts = torch.zeros(B, n + 1, dtype=torch.int64, device=dev)
        counts.scatter_add_(1, torch.where(s.owner == self.neutral, n, s.owner), torch.ones_like(s.owner))
        s.setup_left -= counts
        if self.neutral < 0:
            s.setup_left[:, n] = 0
        if cfg.setup == "random":
            left = s.setup_left[:, :L]  # (B, L)
            most = int(left.max()) if left.numel() else 0
            if most > 0:
                seat_ids = torch.arange(L, device=dev)
                seat_owner = torch.where(s.owner == self.neutral, n, s.owner) if self.neutral >= 0 else s.owner
                own = (seat_owner[:, None, :] == seat_ids[None, :, None]).float().reshape(B * L, T)
                picks = torch.multinomial(own, most, replacement=True, generator=gen).reshape(B, L, most)
                keep = (torch.arange(most, device=dev)[None, None, :] < left[:, :, None]).long()
                s.armies.scatter_add_(1, picks.reshape(B, L * most), keep.reshape(B, L * most))
            s.setup_left[:] = 0
            self._start_game(s, torch.ones(B, dtype=torch.bool, device=dev))
        else:
            s.phase[:] = SETUP_PLACE
            self._next_setup_turn(s, torch.ones(B, dtype=torch.bool, device=dev), first=True)
        return s

    # ------------------------------------------------------------------ helpers
    def _ones_NC(self, B: int) -> torch.Tensor:
        t = self._ones_cache.get(-B)
        if t is None:
            t = self._ones_cache[-B] = torch.ones(B, max(self.NC, 1), dtype=torch.int64, device=self.device)
        return t

    def _ones_BT(self, B: int) -> torch.Tensor:
        t = self._ones_cache.get(B)
        if t is None:
            t = self._ones_cache[B] = torch.ones(B, self.T, dtype=torch.int64, device=self.device)
        return t

    @staticmethod
    def _g(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        """``x[b, idx[b]]`` for ``(B, M)`` x and ``(B,)`` idx (idx -1 reads entry 0)."""
        return x.gather(1, idx.clamp(min=0)[:, None])[:, 0]

    def _hand_count(self, s: BatchState, seat: torch.Tensor) -> torch.Tensor:
        if not self.NC:
            return torch.zeros_like(seat)
        return (s.card_loc == seat[:, None]).sum(1)

    def _income(self, owner: torch.Tensor, seat: torch.Tensor) -> torch.Tensor:
        own = (owner == seat[:, None]).float()
        n_own = own.sum(1).long()
        per_cont = (own @ self.tab.members_f).long()  # (B, C)
        bonus = ((per_cont == self.tab.cont_size) * self.tab.cont_bonus).sum(1)
        return torch.clamp(torch.div(n_own, 3, rounding_mode="floor"), min=3) + bonus

    def _begin_turn(self, s: BatchState, m: torch.Tensor) -> None:
        """Turn start for games ``m``: reinforcements and a forced trade at 5+ cards (docs/rules.md §4.1)."""
        if not bool(m.any()):
            return
        s.turn += m.long()
        s.phase[m] = REINFORCE
        idx = m.nonzero()[:, 0]  # the few games starting a turn
        s.to_place[idx] = self._income(s.owner[idx], s.player[idx])
        keep = ~m
        s.bonus_used &= keep
        s.conquered &= keep
        s.resume_attack &= keep
        s.trade_down &= keep
        s.att_src = torch.where(m, -1, s.att_src)
        s.att_dst = torch.where(m, -1, s.att_dst)
        s.att_dice = torch.where(m, 0, s.att_dice)
        s.forced &= keep
        if self.NC:  # a forced trade at 5+ cards, for the games starting a turn
            s.forced[idx] = (s.card_loc[idx] == s.player[idx, None]).sum(1) >= 5

    def _start_game(self, s: BatchState, m: torch.Tensor) -> None:
        s.turn = torch.where(m, 0, s.turn)
        s.player = torch.where(m, s.order[:, 0], s.player)
        self._begin_turn(s, m)

    def _next_setup_turn(self, s: BatchState, m: torch.Tensor, first: bool | torch.Tensor = False) -> None:
        """The next seat in order with setup armies to place (or the neutral's), else start the game."""
        n = self.n
        if isinstance(first, bool):
            start = torch.zeros_like(s.player) if first else self._g(s.order_pos, s.player) + 1
        else:
            start = torch.where(first, 0, self._g(s.order_pos, s.player) + 1)
        cand = s.order.gather(1, (start[:, None] + self._ar_n[None, :]) % n)  # (B, n)
        neutral_left = s.setup_left[:, n] > 0
        own_left = s.setup_left.gather(1, cand) > 0
        ok = own_left | neutral_left[:, None]
        has = ok.any(1)
        k = ok.long().argmax(1)
        seat = cand.gather(1, k[:, None])[:, 0]
        go = m & has
        s.player = torch.where(go, seat, s.player)
        s.setup_step = torch.where(go, torch.where(own_left.gather(1, k[:, None])[:, 0], 0, 2), s.setup_step)
        s.phase = torch.where(go, SETUP_PLACE, s.phase)
        self._start_game(s, m & ~has)

    # ------------------------------------------------------------------ masks, observation, dice
    action_mask = _action_mask_fn
    observe = _observe_fn
    _battle = _battle_fn
    _roll = _roll_fn

    # ------------------------------------------------------------------ step
    def step(
        self, s: BatchState, action: torch.Tensor, chance: Chance | None = None, active: torch.Tensor | None = None
    ) -> StepInfo:
        """Apply action ids ``action`` (int64 ``(B,)``) to ``s`` in place, like ``ActionCodec.step``
        on each game. Games already over, and games where bool ``active`` is False, are
        left unchanged. The ids must be legal (see :meth:`action_mask`); illegal ids
        give undefined positions (the :class:`~risk_env.vector.VectorEnv` checks them).
        """
        tab = self.tab
        B, T, K = s.batch_size, self.T, self.K
        dev = self.device
        a = action.to(device=dev, dtype=torch.int64)
        # every update below is gated by the phase masks: a game read as over is not touched
        ph = s.phase if active is None else torch.where(active.to(dev), s.phase, GAME_OVER)
        p = s.player.clone()
        ss, sd, st = s.sel_src, s.sel_dst, s.sel_trade
        live = ph != GAME_OVER
        is_terr = a < T
        at = a.clamp(0, T - 1)
        lvl = a - T
        is_amt = (lvl >= 0) & (lvl < K)
        lvl = lvl.clamp(0, K - 1)
        dn = a - self.A_DICE + 1
        is_dice = (dn >= 1) & (dn <= ATTACK_DICE)
        is_blitz = a == self.A_BLITZ
        is_end = a == self.A_END
        if self.NC:
            comp = (a - self.A_TRADE).clamp(0, self.actions.width("trade") - 1)
            is_trade = (a >= self.A_TRADE) & (a < self.actions.trade_end)
        else:
            comp = torch.zeros_like(a)
            is_trade = torch.zeros_like(is_terr)
        P_CLAIM, P_SETUP, P_REINF = ph == CLAIM, ph == SETUP_PLACE, ph == REINFORCE
        P_ATT, P_OCC, P_FORT = ph == ATTACK, ph == OCCUPY, ph == FORTIFY
        no_src = ss < 0
        src_a = self._g(s.armies, ss)

        # ---- sub-steps (pending selections)
        trade_opts = torch.zeros(B, dtype=torch.int64, device=dev)
        first_opt = torch.full((B,), -1, dtype=torch.int64, device=dev)
        # (branches that no game takes are skipped: one device sync each, far cheaper than the work)
        if self.NC:
            ti = (P_REINF & is_trade & (st < 0)).nonzero()[:, 0]  # trade ids: how many bonus options
            if ti.numel():
                opts = bonus_options(self, s, comp, ti)
                n_opts = opts.sum(1)
                trade_opts[ti] = n_opts
                first_opt[ti] = torch.where(n_opts > 0, opts.long().argmax(1), -1)
        r_free = P_REINF & no_src & (st < 0)
        sel_src_new = (r_free & is_terr & (s.to_place > 1)) | ((P_ATT | P_FORT) & no_src & is_terr)
        sel_trade_new = r_free & is_trade & (trade_opts > 1)
        sel_dst_new = (P_ATT & ~no_src & (sd < 0) & is_terr) | (P_FORT & ~no_src & (sd < 0) & is_terr & (src_a != 2))
        substep = sel_src_new | sel_trade_new | sel_dst_new
        # ---- complete moves
        m_claim = P_CLAIM
        m_setup_own = P_SETUP & (s.setup_step < 2)
        m_setup_neu = P_SETUP & (s.setup_step == 2)
        m_place = P_REINF & (st < 0) & ((~no_src & is_amt) | (no_src & is_terr & (s.to_place == 1)))
        m_trade = P_REINF & (((st >= 0) & is_terr) | (r_free & is_trade & (trade_opts <= 1)))
        m_endatt = P_ATT & is_end
        m_roll = P_ATT & (is_dice | is_blitz)
        m_blitz = m_roll & is_blitz
        m_occ = P_OCC
        m_fort = P_FORT & ((~no_src & (sd < 0) & is_terr & (src_a == 2)) | ((sd >= 0) & is_amt))
        m_end_turn = (P_FORT & is_end) | m_fort
        complete = live & ~substep

        # selections
        s.sel_src = torch.where(complete, -1, torch.where(sel_src_new, at, s.sel_src))
        s.sel_dst = torch.where(complete, -1, torch.where(sel_dst_new, at, s.sel_dst))
        s.sel_trade = torch.where(complete, -1, torch.where(sel_trade_new, comp, s.sel_trade))
        s.steps += complete.long()

        # ---- army deltas: at most two territories per game
        i1 = torch.zeros(B, dtype=torch.int64, device=dev)
        d1 = torch.zeros(B, dtype=torch.int64, device=dev)
        i2 = torch.zeros(B, dtype=torch.int64, device=dev)
        d2 = torch.zeros(B, dtype=torch.int64, device=dev)
        one_place = m_claim | P_SETUP
        i1 = torch.where(one_place, at, i1)
        d1 = torch.where(one_place, 1, d1)
        place_t = torch.where(no_src, at, ss)
        place_n = torch.where(no_src, 1, _amount(lvl, torch.ones_like(lvl), s.to_place, K))
        i1 = torch.where(m_place, place_t, i1)
        d1 = torch.where(m_place, place_n, d1)
        # reinforce placement
        s.to_place -= torch.where(m_place, place_n, 0)
        # trade
        if self.NC and bool(m_trade.any()):
            t_comp = torch.where(st >= 0, st, comp)
            t_bonus = torch.where(st >= 0, at, first_opt)
            mi = m_trade.nonzero()[:, 0]
            cards = pick_cards(self, s, t_comp, t_bonus, mi)
            s.card_loc[mi] = torch.where(cards, DISCARD, s.card_loc[mi])
            value = tab.set_values[s.sets_traded.clamp(max=tab.set_values.numel() - 1)]
            s.sets_traded += m_trade.long()
            s.to_place += torch.where(m_trade, value, 0)
            has_bonus = m_trade & (t_bonus >= 0)
            i2 = torch.where(has_bonus, t_bonus.clamp(min=0), i2)
            d2 = torch.where(has_bonus, 2, d2)
            s.bonus_used |= has_bonus
            s.forced &= ~(m_trade & (self._hand_count(s, p) <= 4))
        # end of the reinforce phase
        to_att = (m_place | m_trade) & (s.to_place == 0) & ~s.forced
        s.phase = torch.where(to_att, ATTACK, s.phase)
        s.resume_attack &= ~to_att
        s.phase = torch.where(m_endatt, FORTIFY, s.phase)

        # ---- battle
        r_src = torch.where(~no_src, ss, s.att_src).clamp(min=0)
        r_dst = torch.where(~no_src, sd, s.att_dst).clamp(min=0)
        A = self._g(s.armies, r_src)
        D = self._g(s.armies, r_dst)
        ndice = torch.where(is_blitz, torch.clamp(A - 1, max=ATTACK_DICE), dn.clamp(1, ATTACK_DICE))
        att_loss, def_loss, last = self._battle(m_roll, m_blitz, A, D, ndice, chance)
        A2 = A - att_loss
        conq = m_roll & (D - def_loss == 0)
        # an attack records its battle; a blitz only a conquest (the reference engine's _conquer)
        sets_battle = (m_roll & ~m_blitz) | conq
        s.att_src = torch.where(sets_battle, r_src, s.att_src)
        s.att_dst = torch.where(sets_battle, r_dst, s.att_dst)
        s.att_dice = torch.where(m_roll & ~m_blitz, ndice, s.att_dice)
        s.last_dice = torch.where(m_roll, last, s.last_dice)
        mv = torch.where(conq, last, 0)
        i1 = torch.where(m_roll, r_src, i1)
        d1 = torch.where(m_roll, -att_loss - mv, d1)
        i2 = torch.where(m_roll, r_dst, i2)
        d2 = torch.where(m_roll, -def_loss + mv, d2)
        # occupy
        occ_lo = self._g(s.armies, s.att_dst)
        occ_hi = occ_lo + self._g(s.armies, s.att_src) - 1
        extra = _amount(lvl, occ_lo, occ_hi, K) - occ_lo
        i1 = torch.where(m_occ, s.att_src.clamp(min=0), i1)
        d1 = torch.where(m_occ, -extra, d1)
        i2 = torch.where(m_occ, s.att_dst.clamp(min=0), i2)
        d2 = torch.where(m_occ, extra, d2)
        # fortify
        f_dst = torch.where(sd >= 0, sd, at)
        f_n = torch.where(sd >= 0, _amount(lvl, torch.ones_like(lvl), src_a - 1, K), 1)
        i1 = torch.where(m_fort, ss.clamp(min=0), i1)
        d1 = torch.where(m_fort, -f_n, d1)
        i2 = torch.where(m_fort, f_dst.clamp(min=0), i2)
        d2 = torch.where(m_fort, f_n, d2)
        s.armies.scatter_add_(1, torch.stack([i1, i2], 1), torch.stack([d1, d2], 1))

        # owners: claims and conquests
        new_own = m_claim | conq
        own_t = torch.where(m_claim, at, r_dst)
        loser = self._g(s.owner, r_dst)
        s.owner.scatter_(1, own_t[:, None], torch.where(new_own, p, self._g(s.owner, own_t))[:, None])

        # conquest: elimination, cards, the win (docs/rules.md §4.2, §4.5)
        s.conquered |= conq
        s.trade_down &= ~conq
        eliminated_now = torch.zeros_like(conq)
        ci = (conq & (loser != self.neutral)).nonzero()[:, 0]  # conquests: was that the loser's last territory?
        if ci.numel():
            eliminated_now[ci] = ~(s.owner[ci] == loser[ci, None]).any(1)
        if bool(eliminated_now.any()):
            elim = eliminated_now[:, None] & (self._ar_n[None, :] == loser[:, None])
            s.alive &= ~elim
            if self.NC:
                s.card_loc = torch.where(eliminated_now[:, None] & (s.card_loc == loser[:, None]), p[:, None], s.card_loc)
                s.trade_down |= eliminated_now & (self._hand_count(s, p) >= self.config.elimination_trade_at)
            won = eliminated_now & (s.alive.sum(1) == 1)
            s.winner = torch.where(won, p, s.winner)
        else:
            elim = torch.zeros_like(s.alive)
            won = eliminated_now
        conq_go = conq & ~won
        to_occ = conq_go & (A2 - mv > 1)
        after_occ = (conq_go & ~to_occ) | m_occ
        s.phase = torch.where(won, GAME_OVER, torch.where(to_occ, OCCUPY, s.phase))
        td = after_occ & s.trade_down
        s.phase = torch.where(after_occ, torch.where(td, REINFORCE, ATTACK), s.phase)
        s.trade_down &= ~td
        s.forced |= td
        s.resume_attack |= td
        s.to_place = torch.where(td, 0, s.to_place)

        # ---- setup flow
        if self.config.setup != "random" and bool((m_claim | P_SETUP).any()):
            self._setup_flow(s, m_claim, m_setup_own, m_setup_neu, p)

        # ---- turn end (docs/rules.md §4.4, §4.5)
        if bool(m_end_turn.any()):
            trunc = self._end_turn(s, m_end_turn, p, chance)
        else:
            trunc = torch.zeros_like(m_end_turn)
        return StepInfo(eliminated=elim, won=won, truncated=trunc)

    def _setup_flow(
        self, s: BatchState, m_claim: torch.Tensor, m_own: torch.Tensor, m_neu: torch.Tensor, p: torch.Tensor
    ) -> None:
        n = self.n
        setup_seat = torch.where(m_neu, n, p)
        s.setup_left.scatter_add_(1, setup_seat[:, None], -(m_claim | m_own | m_neu).long()[:, None])
        # claims: the next seat in order, or the setup placement when the map is claimed
        all_claimed = ~(s.owner < 0).any(1)
        nxt = s.order.gather(1, ((self._g(s.order_pos, p) + 1) % n)[:, None])[:, 0]
        s.player = torch.where(m_claim & ~all_claimed, nxt, s.player)
        start_place = m_claim & all_claimed
        s.phase = torch.where(start_place, SETUP_PLACE, s.phase)
        s.setup_step = torch.where(start_place, 0, s.setup_step)
        # own setup army placed: with the neutral, two own then one neutral per setup turn
        nxt_turn = m_neu | start_place
        if self.neutral < 0:
            nxt_turn = nxt_turn | m_own
        else:
            step2 = s.setup_step + 1
            own_left = self._g(s.setup_left, p) > 0
            stay = m_own & (step2 < 2) & own_left
            neu = m_own & ~stay & (s.setup_left[:, n] > 0)
            # (the reference engine leaves the incremented step behind when the game starts)
            s.setup_step = torch.where(neu, 2, torch.where(m_own, step2, s.setup_step))
            nxt_turn = nxt_turn | (m_own & ~stay & ~neu)
        self._next_setup_turn(s, nxt_turn, first=start_place)

    def _end_turn(self, s: BatchState, m: torch.Tensor, p: torch.Tensor, chance: Chance | None) -> torch.Tensor:
        n = self.n
        di = (m & s.conquered).nonzero()[:, 0] if self.NC else m.new_zeros(0, dtype=torch.int64)
        if di.numel():  # a card for a conquest this turn, in those games only
            loc, key = s.card_loc[di], s.deck_key[di]
            deck = loc == DECK
            discard = loc == DISCARD
            reshuffle = ~deck.any(1) & discard.any(1)
            if bool(reshuffle.any()):
                fresh = torch.rand(key.shape, generator=self.generator, device=self.device)
                moved = reshuffle[:, None] & discard
                loc = torch.where(moved, DECK, loc)
                key = torch.where(moved, fresh, key)
                deck = loc == DECK
            top = torch.where(deck, key, -1.0).argmax(1)
            if chance is not None and chance.card is not None:
                inj = chance.card.to(self.device)[di]
                top = torch.where(inj >= 0, inj, top)
            got = deck.any(1)
            cur = loc.gather(1, top[:, None])[:, 0]
            loc.scatter_(1, top[:, None], torch.where(got, p[di], cur)[:, None])
            s.card_loc[di] = loc
            s.deck_key[di] = key
        trunc = m & (s.turn >= self.config.turn_limit)
        s.truncated |= trunc
        s.phase = torch.where(trunc, GAME_OVER, s.phase)
        go = m & ~trunc
        cand = s.order.gather(1, (self._g(s.order_pos, p)[:, None] + 1 + self._ar_n[None, :]) % n)
        ok = s.alive.gather(1, cand)
        nxt = cand.gather(1, ok.long().argmax(1)[:, None])[:, 0]
        s.player = torch.where(go, nxt, s.player)
        self._begin_turn(s, go)
        return trunc
