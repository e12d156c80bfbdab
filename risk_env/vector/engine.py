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

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ..envs.codec import Selection
from ..errors import ConfigError
from ..rules.config import RulesConfig
from ..rules.engine import Game
from ..rules.state import GameState
from .tables import MapTables

__all__ = ["SUPPORTED_RULES", "BatchState", "Chance", "VectorGame"]

# Phase ids (risk_env.Phase)
CLAIM, SETUP_PLACE, REINFORCE, ATTACK, DEFEND, OCCUPY, FORTIFY, GAME_OVER = range(8)
DECK, DISCARD = -1, -2

SUPPORTED_RULES = {
    "num_players": "2..6 (2 players with the neutral)",
    "map": "any map",
    "setup": "'claim' (3-6 players), 'deal', 'random'",
    "two_player": "'neutral'",
    "starting_armies": "any",
    "card_trade": "'escalating'",
    "territory_bonus": "'once_per_turn'",
    "elimination_trade_at": "any",
    "defender_dice": "'max'",
    "fortify": "'adjacent'",
    "turn_limit": "any",
    "truncation_reward": "'draw'",
}
"""Rule switches the batched engine supports, and their supported values."""


def check_rules(cfg: RulesConfig) -> None:
    """Raise :class:`ConfigError` unless the batched engine supports ``cfg``."""
    bad = []
    fixed = {
        "card_trade": "escalating",
        "territory_bonus": "once_per_turn",
        "defender_dice": "max",
        "fortify": "adjacent",
        "truncation_reward": "draw",
    }
    for key, want in fixed.items():
        if getattr(cfg, key) != want:
            bad.append(f"{key}={getattr(cfg, key)!r}")
    if cfg.num_players == 2 and cfg.two_player != "neutral":
        bad.append("two_player='none'")
    if cfg.has_neutral and cfg.setup == "claim":
        bad.append("setup='claim' with the 2-player neutral")
    if bad:
        allowed = "; ".join(f"{k}: {v}" for k, v in SUPPORTED_RULES.items())
        raise ConfigError(
            f"the batched engine does not support {', '.join(bad)}; supported: {allowed} "
            "(the classic and fast presets); use risk_env.env for the other variants"
        )


@dataclass
class BatchState:
    """Positions of ``B`` games (``T`` territories, ``n`` players, ``NC`` cards), fields as in
    :class:`risk_env.GameState`. All int64 unless said otherwise.

    Attributes:
        owner, armies: ``(B, T)``; owner -1 while unclaimed, ``n`` for the neutral.
        phase, player, turn, sets_traded, to_place, setup_step, att_src, att_dst, att_dice,
        last_dice, winner, sel_src, sel_dst, sel_trade, steps: ``(B,)``.
        bonus_used, conquered, forced, resume_attack, trade_down, truncated: bool ``(B,)``.
        order: ``(B, n)`` turn order; order_pos: ``(B, n)`` each seat's index in it.
        alive: bool ``(B, n)``. setup_left: ``(B, n + 1)`` (the neutral last).
        card_loc: ``(B, NC)``: -1 in the draw pile, -2 discarded, else the holding seat.
        deck_key: float32 ``(B, NC)``: draw-pile order, the highest key on top.
    """

    owner: torch.Tensor
    armies: torch.Tensor
    phase: torch.Tensor
    player: torch.Tensor
    turn: torch.Tensor
    sets_traded: torch.Tensor
    to_place: torch.Tensor
    setup_step: torch.Tensor
    att_src: torch.Tensor
    att_dst: torch.Tensor
    att_dice: torch.Tensor
    last_dice: torch.Tensor
    winner: torch.Tensor
    sel_src: torch.Tensor
    sel_dst: torch.Tensor
    sel_trade: torch.Tensor
    steps: torch.Tensor
    bonus_used: torch.Tensor
    conquered: torch.Tensor
    forced: torch.Tensor
    resume_attack: torch.Tensor
    trade_down: torch.Tensor
    truncated: torch.Tensor
    order: torch.Tensor
    order_pos: torch.Tensor
    alive: torch.Tensor
    setup_left: torch.Tensor
    card_loc: torch.Tensor
    deck_key: torch.Tensor

    @property
    def batch_size(self) -> int:
        return int(self.owner.shape[0])

    def fields(self) -> dict[str, torch.Tensor]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def put(self, idx: torch.Tensor, other: BatchState) -> None:
        """Overwrite the games at int64 indices ``idx`` with ``other``'s games (same order)."""
        for name, t in self.fields().items():
            t[idx] = getattr(other, name)

    def clone(self) -> BatchState:
        return BatchState(**{k: v.clone() for k, v in self.fields().items()})

    def nbytes(self) -> int:
        """Bytes held by the state tensors."""
        return sum(t.element_size() * t.numel() for t in self.fields().values())


@dataclass
class Chance:
    """Injected chance for one :meth:`VectorGame.step` (tests and replays).

    Attributes:
        dice: int64 ``(B, L)`` faces 1..6 per game, consumed in order (per roll the
            attacker's faces, then the defender's), padded with anything.
        card: int64 ``(B,)`` the card drawn at a turn end with a conquest (-1: none
            injected); it must be in the draw pile, or in the discards when the pile is empty.
    """

    dice: torch.Tensor
    card: torch.Tensor | None = None


@dataclass
class StepInfo:
    """What a step did, per game: bool ``eliminated (B, n)`` seats eliminated by this step,
    bool ``won (B,)`` a winner was decided, bool ``truncated (B,)`` the turn limit ended it."""

    eliminated: torch.Tensor
    won: torch.Tensor
    truncated: torch.Tensor


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
        self.A_AMOUNT = T
        self.A_DICE = T + K
        self.A_BLITZ = T + K + 3
        self.A_TRADE = T + K + 4 if g.uses_cards else -1
        self.A_END = T + K + 4 + (13 if g.uses_cards else 0)
        self.num_actions = self.A_END + 1
        S = self.n + 1
        C = self.tab.C
        n = self.n
        self.obs_blocks = [
            ("owner", T * S), ("armies", T), ("selected", 2 * T), ("continent_share", C * S), ("phase", 8),
            ("acting", 1), ("on_turn", S), ("to_place", 1), ("flags", 5), ("my_cards", 5), ("trade_pending", 13),
            ("cards", n), ("alive", n), ("territories", S), ("army_total", S), ("trade_value", 1), ("battle", 3),
            ("turn", 1),
        ]  # fmt: skip
        self.obs_size = sum(s for _, s in self.obs_blocks)
        dev = self.device
        self._ar_n = torch.arange(n, device=dev)
        self._ar_T = torch.arange(T, device=dev)
        self._ar_K = torch.arange(K, device=dev)
        self._eye8 = torch.eye(8, device=dev)
        self._ar_S = torch.arange(S, device=dev)
        self._ar_13 = torch.arange(13, device=dev)
        self._false13 = torch.zeros((1, 13), dtype=torch.bool, device=dev)
        self._ar3 = torch.arange(3, device=dev)
        self._deg = self.tab.adj_f.sum(0)
        self._ar2 = torch.arange(2, device=dev)
        self._ar5 = torch.arange(5, device=dev)
        self._ar_NC = torch.arange(max(self.NC, 1), device=dev)
        # compositions a hand holds, by its symbol counts capped at 3 (base-4 code)
        self._base4 = torch.tensor([1, 4, 16, 64], device=dev)
        codes = np.array([[(c // 4**k) % 4 for k in range(4)] for c in range(256)])
        comp = self.tab.comp.cpu().numpy()
        self._comp_lut = torch.as_tensor((comp[None, :, :] <= codes[:, None, :]).all(2), device=dev)
        self._owner_base = torch.arange(T, device=dev) * S
        self._cont_base = torch.as_tensor(self.game.map.territory_continent * (S + 1), device=dev)
        self._ones_cache: dict[int, torch.Tensor] = {}
        self._zeros_f = torch.zeros((1, 1), device=dev)
        # rotation table: row `me`, column owner + 1 -> observation slot (S: unclaimed)
        W = self.num_seats + 1
        rot_tab = np.full((n, W), S, dtype=np.int64)
        for me in range(n):
            for seat in range(n):
                rot_tab[me, seat + 1] = (seat - me) % n
            if self.neutral >= 0:
                rot_tab[me, self.neutral + 1] = n
        self._rot_tab = torch.as_tensor(rot_tab, device=dev)
        # card location (-2..seats, shifted by 2) x symbol -> one counter per game
        self._loc_sym = 10 + self.tab.card_sym

        def c(x: float) -> torch.Tensor:
            return torch.tensor(x, dtype=torch.float32, device=dev)

        self._c3, self._c5, self._c10 = c(3.0), c(5.0), c(10.0)
        self._cT, self._c10T, self._c_limit = c(float(T)), c(10.0 * T), c(float(cfg.turn_limit))
        self._cont_size_f = self.tab.cont_size.float()

    # ------------------------------------------------------------------ creation
    def _blank(self, B: int) -> BatchState:
        dev, T, n, NC = self.device, self.T, self.n, max(self.NC, 1)

        def z(*shape: int, dtype: torch.dtype = torch.int64, fill: float = 0) -> torch.Tensor:
            return torch.full(shape, fill, dtype=dtype, device=dev)

        return BatchState(
            owner=z(B, T, fill=-1), armies=z(B, T), phase=z(B), player=z(B), turn=z(B), sets_traded=z(B),
            to_place=z(B), setup_step=z(B), att_src=z(B, fill=-1), att_dst=z(B, fill=-1), att_dice=z(B),
            last_dice=z(B), winner=z(B, fill=-1), sel_src=z(B, fill=-1), sel_dst=z(B, fill=-1),
            sel_trade=z(B, fill=-1), steps=z(B), bonus_used=z(B, dtype=torch.bool), conquered=z(B, dtype=torch.bool),
            forced=z(B, dtype=torch.bool), resume_attack=z(B, dtype=torch.bool), trade_down=z(B, dtype=torch.bool),
            truncated=z(B, dtype=torch.bool), order=z(B, n), order_pos=z(B, n), alive=z(B, n, dtype=torch.bool),
            setup_left=z(B, n + 1), card_loc=z(B, NC, fill=DECK), deck_key=z(B, NC, dtype=torch.float32),
        )  # fmt: skip

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

    def from_states(self, states: list[GameState], selections: list[Selection] | None = None) -> BatchState:
        """Tensors of reference positions (the draw pile order kept; the generator is not), with
        each game's pending codec selection (``selections``, one per state; none pending if omitted)."""
        B, dev = len(states), self.device
        s = self._blank(B)
        n = self.n
        sels = selections if selections is not None else [Selection() for _ in states]
        if len(sels) != B:
            raise ValueError(f"need one selection per state: {B} states, {len(sels)} selections")
        ints = [f.name for f in dataclasses.fields(BatchState) if getattr(s, f.name).dim() == 1]
        for name in ints:
            if name.startswith("sel_"):
                vals = [int(getattr(sel, name[4:])) for sel in sels]
            else:
                vals = [int(getattr(st, name)) for st in states]
            getattr(s, name).copy_(torch.tensor(vals, dtype=getattr(s, name).dtype))
        s.owner.copy_(torch.as_tensor(np.stack([st.owner for st in states]), dtype=torch.int64))
        s.armies.copy_(torch.as_tensor(np.stack([st.armies for st in states]).astype(np.int64)))
        s.order.copy_(torch.tensor([st.order for st in states], dtype=torch.int64))
        s.order_pos = torch.argsort(s.order, dim=1)
        s.alive.copy_(torch.tensor([st.alive for st in states], dtype=torch.bool))
        s.setup_left.copy_(torch.tensor([st.setup_left for st in states], dtype=torch.int64))
        if self.NC:
            loc = np.full((B, self.NC), DECK, dtype=np.int64)
            key = np.zeros((B, self.NC), dtype=np.float32)
            for b, st in enumerate(states):
                for i, c in enumerate(st.deck):
                    key[b, c] = i + 1
                for c in st.discard:
                    loc[b, c] = DISCARD
                for p in range(n):
                    for c in st.hands[p]:
                        loc[b, c] = p
            s.card_loc.copy_(torch.as_tensor(loc))
            s.deck_key.copy_(torch.as_tensor(key))
        return s.__class__(**{k: v.to(dev) for k, v in s.fields().items()})

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
        if self.NC:
            s.forced = torch.where(m, self._hand_count(s, s.player) >= 5, s.forced)
        else:
            s.forced &= keep

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

    # ------------------------------------------------------------------ masks
    def action_mask(self, s: BatchState) -> torch.Tensor:
        """bool ``(B, N)``: the ids ``ActionCodec.mask`` allows for the seat to act (all False after the game)."""
        tab = self.tab
        T = self.T
        ph = s.phase
        p = s.player
        own = s.owner == p[:, None]
        ss, sd, st = s.sel_src, s.sel_dst, s.sel_trade
        src_a = self._g(s.armies, ss)
        no_src = ss < 0
        # territory block; each game is in one phase, so the parts are gated per game and OR-ed
        is_att = ph == ATTACK
        war = is_att | (ph == FORTIFY)
        own_nb = own.float() @ tab.adj_f  # own neighbours per territory
        nb = torch.where(is_att[:, None], own_nb < self._deg[None, :], own_nb > 0)  # an enemy / own neighbour
        terr = nb & own & (s.armies >= 2) & (war & no_src)[:, None]  # a source
        adj_src = tab.adj.index_select(0, ss.clamp(min=0))  # (B, T)
        terr |= adj_src & (own ^ is_att[:, None]) & (war & ~no_src & (sd < 0))[:, None]  # a target
        # claims, setup placements and reinforcements: territories of one owner
        can_place = (ph == REINFORCE) & no_src & (st < 0) & ~s.forced & (s.to_place > 0)
        placing = can_place | (ph == CLAIM) | (ph == SETUP_PLACE)
        tgt = torch.where(ph == CLAIM, -1, torch.where((ph == SETUP_PLACE) & (s.setup_step == 2), self.neutral, p))
        terr |= (s.owner == tgt[:, None]) & placing[:, None]
        if self.NC:
            # the +2 bonus territory after a trade id (a rare state: computed for those games only)
            bi = ((ph == REINFORCE) & (st >= 0)).nonzero()[:, 0]
            if bi.numel():
                terr[bi] |= self._bonus_options(s, st.clamp(min=0), bi)[:, :T]
        # amount block: a span per phase
        occ_span = self._g(s.armies, s.att_src) - 1
        span = torch.where(
            (ph == REINFORCE) & (ss >= 0) & (st < 0),
            s.to_place - 1,
            torch.where((ph == FORTIFY) & (sd >= 0), src_a - 2, torch.where(ph == OCCUPY, occ_span, -1)),
        )
        amount = tab.span_levels[(span + 1).clamp(0, 10)]
        # dice and blitz: attack with a pair selected, or continuing the last battle
        cont = (
            no_src
            & (s.att_src >= 0)
            & (self._g(s.owner, s.att_src) == p)
            & (self._g(s.armies, s.att_src) >= 2)
            & (self._g(s.owner, s.att_dst) != p)
        )
        roll_src_a = torch.where(sd >= 0, src_a, self._g(s.armies, s.att_src))
        rolling = (ph == ATTACK) & ((sd >= 0) | cont)
        ndice = torch.where(rolling, torch.clamp(roll_src_a - 1, max=3), 0)
        dice = self._ar3[None, :] < ndice[:, None]
        blitz = rolling[:, None]
        parts = [terr, amount, dice, blitz]
        if self.NC:
            can_trade = (ph == REINFORCE) & no_src & (st < 0) & (s.forced | ~s.resume_attack)
            trade = self._false13.expand(s.batch_size, 13).clone()
            ti = can_trade.nonzero()[:, 0]
            if ti.numel():
                trade[ti] = self._comp_lut[self._hand_sym_counts(s, ti).clamp(max=3) @ self._base4]
            parts.append(trade)
        end = (ph == ATTACK) | (ph == FORTIFY)
        parts.append(end[:, None])
        return torch.cat(parts, dim=1)

    def _hand_sym_counts(self, s: BatchState, idx: torch.Tensor) -> torch.Tensor:
        """int64 ``(len(idx), 4)``: cards per symbol of the player on turn in games ``idx``."""
        M = idx.numel()
        key = torch.where(s.card_loc[idx] == s.player[idx, None], self.tab.card_sym[None, :], 4)
        cnt = torch.zeros(M, 5, dtype=torch.int64, device=self.device)
        cnt.scatter_add_(1, key, self._ones_NC(M))
        return cnt[:, :4]

    def _bonus_options(self, s: BatchState, comp: torch.Tensor, idx: torch.Tensor | None = None) -> torch.Tensor:
        """bool ``(B, NC)`` (or ``(len(idx), NC)`` for games ``idx``): cards in hand showing an owned
        territory whose symbol ``comp`` needs, if the bonus is unused this turn."""
        T, NC = self.T, self.NC
        p, loc, owner, used = s.player, s.card_loc, s.owner, s.bonus_used
        if idx is not None:
            p, loc, owner, used, comp = p[idx], loc[idx], owner[idx], used[idx], comp[idx]
        in_hand = loc == p[:, None]
        shows_own = torch.zeros_like(in_hand)
        shows_own[:, :T] = owner[:, :T] == p[:, None]
        need = self.tab.comp[comp]  # (M, 4)
        needed = need.gather(1, self.tab.card_sym[None, :].expand(p.shape[0], NC)) > 0
        return in_hand & shows_own & needed & (~used)[:, None]

    def _pick_cards(self, s: BatchState, comp: torch.Tensor, bonus: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        """bool ``(len(idx), NC)``: the cards ``ActionCodec.pick_cards`` trades in games ``idx``
        for composition ``comp`` with the bonus card ``bonus`` (-1: none) (``(B,)`` both)."""
        T, NC = self.T, self.NC
        B = idx.numel()
        p = s.player[idx]
        comp, bonus = comp[idx], bonus[idx]
        ar = self._ar_NC
        in_hand = s.card_loc[idx] == p[:, None]
        shows_own = torch.zeros_like(in_hand)
        shows_own[:, :T] = s.owner[idx, :T] == p[:, None]
        prio = shows_own.long() * NC + ar[None, :]
        prio = torch.where(ar[None, :] == bonus[:, None], -1, prio)
        sym = self.tab.card_sym[None, :].expand(B, NC)
        key = torch.where(in_hand, sym * (4 * NC) + prio + NC, 10**6)
        order = torch.argsort(key, dim=1)
        sym_sorted = sym.gather(1, order)
        hand_sorted = in_hand.gather(1, order)
        onehot = torch.nn.functional.one_hot(sym_sorted, 4) * hand_sorted[:, :, None]
        rank = (onehot.cumsum(1) * onehot).sum(2) - 1  # rank within its symbol among hand cards
        need = self.tab.comp[comp].gather(1, sym_sorted)
        chosen_sorted = hand_sorted & (rank < need)
        return torch.zeros_like(in_hand).scatter(1, order, chosen_sorted)

    # ------------------------------------------------------------------ observation
    def observe(self, s: BatchState, seat: torch.Tensor | None = None) -> torch.Tensor:
        """float32 ``(B, D)``: ``ObservationEncoder.encode`` of each game for ``seat`` (default: the seat to act).

        Scaled entries are integer counts divided by an integer in float32 (a correctly
        rounded quotient), which equals the reference encoder's float64 product rounded
        to float32 for every count below 2**24; divisors are device tensors so that no
        device turns the division into a multiplication by a rounded reciprocal.
        """
        tab = self.tab
        B, T, n = s.batch_size, self.T, self.n
        S = n + 1
        ph = s.phase
        p = s.player
        me = p if seat is None else seat
        over = ph == GAME_OVER
        # slot of each owner as seen from `me`: the rotation table row of `me`, owner -1 reads column 0
        rel = self._rot_tab.index_select(0, me).gather(1, s.owner + 1)  # (B, T); S marks unclaimed
        last = (ph == DEFEND) | (ph == OCCUPY) | ((ph == ATTACK) & (s.sel_src < 0))
        src = torch.where(last, s.att_src, s.sel_src)
        dst = torch.where(last, s.att_dst, s.sel_dst)
        S1 = S + 1
        C = self.tab.C
        cnt = torch.zeros(B, (C + 2) * S1, dtype=torch.int64, device=self.device)
        ones = self._ones_BT(B)
        cnt.scatter_add_(1, self._cont_base[None, :] + rel, ones)  # continent x slot counts
        cnt.scatter_add_(1, C * S1 + rel, s.armies)  # army totals per slot (a spare row)
        cnt.scatter_add_(1, (C + 1) * S1 + rel, ones)  # territories per slot (another)
        cnt = cnt.view(B, C + 2, S1)[:, :, :S]
        cont = cnt[:, :C] / self._cont_size_f[None, :, None]
        phase_1h = self._eye8[ph]
        mine = p == me
        acting = (~over & mine)[:, None]
        rel_p = (p - me) % n
        on_turn = (self._ar_S[None, :] == rel_p[:, None]) & ~over[:, None]
        setup = (ph == CLAIM) | (ph == SETUP_PLACE)
        to_place = torch.where(setup, self._g(s.setup_left, me), torch.where(mine, s.to_place, 0))
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
        tp = (self._ar_13[None, :] == s.sel_trade[:, None]) & playing[:, None]
        rot = (me[:, None] + self._ar_n[None, :]) % n  # seat at each rotated position
        alive_r = s.alive.gather(1, rot)
        if self.NC:
            # cards per (location, column): columns 0-3 count symbols, column 4 the cards showing a
            # territory that their holder owns; `me`'s row is my_cards, rows summed give the hand sizes
            L2 = self.num_seats + 2
            cnt_ls = torch.zeros(B, L2 * 5, dtype=torch.int64, device=self.device)
            cnt_ls.scatter_add_(1, s.card_loc * 5 + self._loc_sym, self._ones_NC(B))
            terr_cards = s.card_loc[:, :T]
            cnt_ls.scatter_add_(1, terr_cards * 5 + 14, (terr_cards == s.owner).long())
            cnt_ls = cnt_ls.view(B, L2, 5)
            my_cards = cnt_ls.gather(1, (me + 2)[:, None, None].expand(B, 1, 5))[:, 0] / self._c5
            per_loc = cnt_ls[:, :, :4].sum(2)
            cards = (per_loc.gather(1, rot + 2) * alive_r) / self._c5
            tv = tab.tv_obs[s.sets_traded.clamp(max=400)][:, None]
        else:
            my_cards = self._zeros_f.expand(B, 5)
            cards = self._zeros_f.expand(B, n)
            tv = self._zeros_f.expand(B, 1)
        terr = cnt[:, C + 1] / self._cT
        army_tot = cnt[:, C] / self._c10T
        battle = (
            torch.stack(
                [
                    s.last_dice,
                    torch.where(ph == DEFEND, s.att_dice, 0),
                    torch.where(ph == OCCUPY, self._g(s.armies, s.att_dst), 0),
                ],
                dim=1,
            ).float()
            / self._c3
        )
        out = torch.empty(B, self.obs_size, device=self.device)
        # owner one-hot and the selection: zeroed, then ones added in (an unclaimed territory adds 0)
        TS = T * S
        head = out[:, : TS + T + 2 * T]
        head.zero_()
        claimed = rel < S
        head.scatter_add_(1, self._owner_base[None, :] + rel.clamp(max=S - 1), claimed.float())
        head[:, TS : TS + T].copy_(s.armies / self._c10)
        pick = torch.stack([2 * src, 2 * dst + 1], dim=1)
        # (adding: a missing source or target adds a zero wherever its clamped index points)
        head.scatter_add_(1, TS + T + pick.clamp(min=0), torch.stack([src >= 0, dst >= 0], dim=1).float())
        blocks = [
            cont,
            phase_1h,
            acting,
            on_turn,
            to_place[:, None] / self._c10,
            flags,
            my_cards,
            tp,
            cards,
            alive_r,
            terr,
            army_tot,
            tv,
            battle,
            s.turn[:, None] / self._c_limit,
        ]
        off = TS + 3 * T
        for x in blocks:  # a fixed list of blocks: each is converted while copied into place
            w = x[0].numel()
            out[:, off : off + w].copy_(x.reshape(B, w))
            off += w
        return out

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
        is_dice = (dn >= 1) & (dn <= 3)
        is_blitz = a == self.A_BLITZ
        is_end = a == self.A_END
        if self.NC:
            comp = (a - self.A_TRADE).clamp(0, 12)
            is_trade = (a >= self.A_TRADE) & (a < self.A_END)
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
                opts = self._bonus_options(s, comp, ti)
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
            cards = self._pick_cards(s, t_comp, t_bonus, mi)
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
        ndice = torch.where(is_blitz, torch.clamp(A - 1, max=3), dn.clamp(1, 3))
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

    # ------------------------------------------------------------------ dice
    def _faces(self, B: int, chance: Chance | None, pos: torch.Tensor, m: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """int64 ``(B, 5)`` faces of one roll: injected (advancing ``pos`` by ``k`` where ``m``) or drawn."""
        if chance is None:
            return torch.randint(1, 7, (B, 5), generator=self.generator, device=self.device)
        tape = chance.dice.to(self.device)
        idx = (pos[:, None] + self._ar5[None, :]).clamp(max=tape.shape[1] - 1)
        faces = tape.gather(1, idx)
        pos += torch.where(m, k, 0)
        return faces

    def _roll(self, faces: torch.Tensor, att: torch.Tensor, dfd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Losses ``(attacker, defender)`` of one roll with ``att`` and ``dfd`` dice; faces as the reference
        draws them (the first ``att`` the attacker's, the next ``dfd`` the defender's)."""
        ar5 = self._ar5[None, :]
        is_att = ar5 < att[:, None]
        is_def = (ar5 >= att[:, None]) & (ar5 < (att + dfd)[:, None])
        ad = torch.where(is_att, faces, 0).sort(1, descending=True).values[:, :2]
        dd = torch.where(is_def, faces, 0).sort(1, descending=True).values[:, :2]
        pairs = self._ar2[None, :] < torch.minimum(att, dfd)[:, None]
        att_wins = (ad > dd) & pairs
        def_loss = att_wins.sum(1)
        att_loss = (pairs & ~att_wins).sum(1)
        return att_loss, def_loss

    def _battle(
        self,
        m_roll: torch.Tensor,
        m_blitz: torch.Tensor,
        A: torch.Tensor,
        D: torch.Tensor,
        ndice: torch.Tensor,
        chance: Chance | None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Total losses and the last roll's attacker dice of each game's attack or blitz."""
        B = A.shape[0]
        zero = torch.zeros(B, dtype=torch.int64, device=self.device)
        if not bool(m_roll.any()):
            return zero, zero, ndice
        if chance is None:
            return self._battle_sampled(m_roll, m_blitz, A, D, ndice)
        pos = zero.clone()
        single = m_roll & ~m_blitz
        dfd = torch.clamp(D, max=2)
        faces = self._faces(B, chance, pos, single, ndice + dfd)
        al, dl = self._roll(faces, ndice, dfd)
        att_loss = torch.where(single, al, 0)
        def_loss = torch.where(single, dl, 0)
        last = ndice
        # blitz with injected dice: roll by roll, as the reference engine does
        a, d = A.clone(), D.clone()
        active = m_blitz & (a >= 2) & (d >= 1)
        while bool(active.any()):
            k = torch.clamp(a - 1, min=1, max=3)
            j = torch.clamp(d, min=1, max=2)
            faces = self._faces(B, chance, pos, active, k + j)
            al, dl = self._roll(faces, k, j)
            a -= torch.where(active, al, 0)
            d -= torch.where(active, dl, 0)
            last = torch.where(active, k, last)
            active = active & (a >= 2) & (d >= 1)
        att_loss = torch.where(m_blitz, A - a, att_loss)
        def_loss = torch.where(m_blitz, D - d, def_loss)
        return att_loss, def_loss, last

    def _battle_sampled(
        self, m_roll: torch.Tensor, m_blitz: torch.Tensor, A: torch.Tensor, D: torch.Tensor, ndice: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:meth:`_battle` with the generator, on the sub-batch of games that roll: one roll for an
        attack; for a blitz, single rolls while a side exceeds the blitz table, then one draw from it."""
        gen, dev = self.generator, self.device
        idx = m_roll.nonzero()[:, 0]
        a, d, k = A[idx], D[idx], ndice[idx]
        blitz = m_blitz[idx]
        M = idx.numel()
        faces = torch.randint(1, 7, (M, 5), generator=gen, device=dev)
        dfd = torch.clamp(d, max=2)
        al, dl = self._roll(faces, k, dfd)
        single = ~blitz
        a2 = torch.where(single, a - al, a)
        d2 = torch.where(single, d - dl, d)
        last = k.clone()
        bi = blitz.nonzero()[:, 0]
        if bi.numel():
            cap = self.tab.blitz_cap
            ba, bd = a[bi], d[bi]
            blast = last[bi]
            active = (ba >= 2) & (bd >= 1)
            while True:  # battles bigger than the table: one roll at a time down to it
                need = active & ((ba - 1 > cap) | (bd > cap))
                if not bool(need.any()):
                    break
                kk = torch.clamp(ba - 1, min=1, max=3)
                jj = torch.clamp(bd, min=1, max=2)
                f = torch.randint(1, 7, (bi.numel(), 5), generator=gen, device=dev)
                xl, yl = self._roll(f, kk, jj)
                ba = ba - torch.where(need, xl, 0)
                bd = bd - torch.where(need, yl, 0)
                blast = torch.where(need, kk, blast)
                active = active & (ba >= 2) & (bd >= 1)
            rows = self.tab.blitz_cdf[(ba - 1).clamp(0, cap), bd.clamp(0, cap)]  # (b, 3 cap)
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
