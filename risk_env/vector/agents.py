"""Batched opponents: baselines of :mod:`risk_env.agents` as torch policies over a
:class:`~risk_env.vector.state.BatchState`.

:class:`AggressivePolicy`, :class:`BalancedPolicy` and :class:`ContinentPolicy` play the
``aggressive``, ``balanced`` and ``continent`` baselines
(:mod:`risk_env.agents.aggressive`, :mod:`~risk_env.agents.balanced`,
:mod:`~risk_env.agents.continent`) for every game of a batch at once: the same scores
(float64, in the scalar agents' order of operations, the exact battle odds of their
table), the same complete moves, and the same action ids for each of the codec's
sub-steps (source, target, then dice or an amount; docs/rules.md §4). Like the scalar
agents they read only what the seat to act may know (the board, its own cards, the card
counts). The scalar agents break exact ties between scores with a small random jitter;
these break them deterministically (the lowest territory, edge, continent or set
composition), so the two choose the same id wherever the best score is unique; the
tests check it on thousands of positions of every phase against the scalar agents with
their jitter off. :class:`RandomPolicy` is the ``random`` baseline. All of them follow
the :class:`BatchedPolicy` protocol; :func:`make_policy` builds one by name.

>>> import torch
>>> from risk_env.vector import VectorEnv
>>> from risk_env.vector.agents import make_policy
>>> env = VectorEnv(8, seed=0, preset="fast")
>>> out = env.reset()
>>> policy = make_policy("balanced", env.game)
>>> ids = policy(env.state, out.action_mask)  # one legal id per game, for the seat to act
>>> bool(out.action_mask.gather(1, ids[:, None]).all())
True
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np
import torch

from ..errors import ConfigError
from ..rules.config import RulesConfig
from .engine import VectorGame
from .masks import bonus_options, take
from .state import ATTACK, CLAIM, FORTIFY, OCCUPY, REINFORCE, SETUP_PLACE, BatchState

__all__ = [
    "BATCHED_HEURISTICS",
    "AggressivePolicy",
    "BalancedPolicy",
    "BatchedPolicy",
    "ContinentPolicy",
    "HeuristicPolicy",
    "RandomPolicy",
    "HEURISTIC_RULES",
    "amount_ids",
    "check_heuristic_rules",
    "make_policy",
    "random_legal",
]

BATCHED_HEURISTICS = ("aggressive", "balanced", "continent")
"""Heuristic baselines of :mod:`risk_env.agents` that have a batched version here (``random`` has one too)."""

HEURISTIC_RULES: dict[str, tuple[object, ...]] = {
    "card_trade": ("escalating",),
    "territory_bonus": ("once_per_turn",),
    "defender_dice": ("max",),
    "fortify": ("adjacent",),
    "two_player": ("neutral",),
    "reroll_with_card": (False,),
    "die_to_six": (False,),
    "secret_missions": (False,),
    "capitals": (False,),
}
"""The rule switches the batched heuristics play, and their values (any value of the others: players,
map, setup, starting armies, elimination trades, turn limit, truncation reward): the classic rules,
so the ``classic`` and ``fast`` presets. The scalar agents play every variant; these refuse the rest."""


def check_heuristic_rules(rules: RulesConfig) -> None:
    """Raise :class:`ConfigError` unless the batched heuristics play ``rules`` (:data:`HEURISTIC_RULES`)."""
    bad = [
        f"{k}={getattr(rules, k)!r}"
        for k, ok in HEURISTIC_RULES.items()
        if getattr(rules, k) not in ok and not (k == "two_player" and rules.num_players > 2)  # (2 players only)
    ]
    if bad:
        allowed = "; ".join(f"{k}: {', '.join(map(repr, v))}" for k, v in HEURISTIC_RULES.items())
        raise ConfigError(
            f"the batched heuristics do not play {', '.join(bad)}; they play the classic rules ({allowed}), "
            "so the classic and fast presets; use the scalar agents (risk_env.agents) for the other variants"
        )


_NEG = float("-inf")
_ODDS_MAX = 100  # the scalar heuristics' odds table: 0..100 armies a side


@runtime_checkable
class BatchedPolicy(Protocol):
    """What plays seats of the batched engine: ``policy(state, mask, active) -> ids``.

    ``state`` is the :class:`BatchState` of ``B`` games, ``mask`` their bool action mask
    ``(B, N)`` for the seat to act, ``active`` an optional bool ``(B,)`` (the games this policy
    decides now; None: all). It returns int64 ``(B,)`` ids on the state's device, legal under
    ``mask`` in the active games (anything in the others).

    What a policy may read (docs/rules.md §2, §8): the board (``owner``, ``armies``), the phase
    and every counter and flag, the turn order, ``alive``, the codec's pending selection
    (``sel_*``), the last roll, the capitals, the allied army's fields, ``eliminated_by``; of the
    cards, where the seat to act's own cards are, which are discarded, and how many each seat
    holds (``card_loc``, counted); of the missions, the seat to act's own. Not which cards
    another seat holds or which are in the draw pile, nor another seat's mission. The batched
    evaluation (:func:`risk_env.tools.evaluation.evaluate` with ``backend="vector"``) enforces it:
    each policy gets only the games where its seat acts, ``active=None``, as a copy that its seat
    knows (:meth:`BatchState.known_to`: those parts filled in a fixed way) and a copy of their
    mask, so nothing it reads or writes reaches the game. The batched heuristics and the network
    policies here read only those parts, so they play the same on the live state; the learner env
    (:mod:`risk_env.vector.learner`) hands them the live state, and any other opponent policy the
    view of the seat to act (:data:`~risk_env.vector.learner.SEAT_SAFE_POLICIES`).
    """

    name: str

    def __call__(self, state: BatchState, mask: torch.Tensor, active: torch.Tensor | None = None, /) -> torch.Tensor: ...


def random_legal(mask: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """int64 ``(B,)``: a uniformly random legal id per row of bool ``mask`` ``(B, N)`` (a row with
    no legal id gets 0): the ``k``-th legal id for a uniform ``k``.

    The legal ids are counted in uint8 where ``N < 256`` (the cheapest cumulative sum), in int32 on
    larger action spaces (a big map), where uint8 counts would wrap at 256."""
    dtype = torch.uint8 if mask.shape[1] < 256 else torch.int32
    counts = mask.to(dtype).cumsum(1, dtype=dtype)
    total = counts[:, -1]
    k = (torch.rand(mask.shape[0], generator=generator, dtype=torch.float32, device=mask.device) * total).to(dtype)
    k = torch.minimum(k, (total.clamp(min=1) - 1).to(dtype))
    return (counts > k[:, None]).to(torch.uint8).argmax(1)


class RandomPolicy:
    """The ``random`` baseline for a batch: a uniformly random legal id in every game, drawn
    from ``generator`` (a ``torch.Generator`` on the engine's device)."""

    name = "random"

    def __init__(self, generator: torch.Generator) -> None:
        self.generator = generator

    def __call__(self, state: BatchState, mask: torch.Tensor, active: torch.Tensor | None = None) -> torch.Tensor:
        return random_legal(mask, self.generator)


def amount_ids(game: VectorGame, lo: torch.Tensor, hi: torch.Tensor, desired: torch.Tensor) -> torch.Tensor:
    """int64 ``(B,)``: the amount id for ``lo..hi`` whose count is closest to ``desired``
    (ties to the smaller count), as :meth:`risk_env.ActionCodec.amount_action`: levels
    repeating the previous level's count are skipped (they are illegal)."""
    K = game.K
    j = game.ar_K[None, :]
    span = (hi - lo)[:, None]
    counts = lo[:, None] + torch.div(2 * j * span + (K - 1), 2 * (K - 1), rounding_mode="floor")  # (B, K)
    legal = torch.ones_like(counts, dtype=torch.bool)
    legal[:, 1:] = counts[:, 1:] != counts[:, :-1]
    want = torch.minimum(torch.maximum(desired, lo), hi)
    d = torch.where(legal, (counts - want[:, None]).abs(), 1 << 40)
    return game.A_AMOUNT + d.argmin(1)


def _argmax(score: torch.Tensor, ok: torch.Tensor) -> torch.Tensor:
    """First index of the largest ``score`` among ``ok`` per row (0 where none is ok)."""
    return torch.where(ok, score, _NEG).argmax(1)


def _argmax0(score: torch.Tensor, ok: torch.Tensor) -> torch.Tensor:
    """:func:`_argmax` down the columns of edge-major ``(E, M)`` tensors."""
    return torch.where(ok, score, _NEG).argmax(0)


class HeuristicPolicy:
    """Base of the batched heuristics (the batched :class:`risk_env.agents.heuristic.HeuristicAgent`).

    :meth:`__call__` splits the batch by phase and turns each game's complete move into the id
    of the codec's next sub-step (source, target, then dice or an amount; docs/rules.md §4);
    the subclasses override the hooks that make their strategy, each on a sub-batch of ``M``
    games in one phase, from the seat to act (a :class:`_Sit`):

    * :meth:`claim` (claim phase), :meth:`setup_target` (own setup army),
      :meth:`neutral_target` (the 2-player neutral's setup army): a territory ``(M,)``;
    * :meth:`want_trade`: bool ``(M,)``, trade a set now when not forced;
    * :meth:`place`: ``(territory, armies)`` of the next reinforcement;
    * :meth:`attack`: ``(go, src, dst)``, whether to roll, with the most dice, from ``src`` at ``dst``;
    * :meth:`occupy`: armies to stand in the conquered territory (clamped to the allowed range);
    * :meth:`fortify`: ``(go, src, dst, armies)``.

    The defaults are those of the scalar base class: claims next to own territories in
    appealing continents, everything on the strongest base, trades at once, no attack,
    occupation by threat, the largest idle stack towards the front (else a rebalance between
    frontier territories). Set trades are the scalar agents' :meth:`best_trade` (the +2 bonus on
    offer, fewest wilds; the bonus on the most threatened option).

    Args:
        game: the batched engine whose positions it plays (rules it supports).

    Call ``policy(state, mask, active=None)`` with a :class:`BatchState` and its bool action
    mask ``(B, N)``; it returns int64 ``(B,)`` ids for the seat to act in each game, each legal
    under ``mask`` (games not decided get their first legal id, or 0).
    """

    name = "heuristic"

    def __init__(self, game: VectorGame) -> None:
        check_heuristic_rules(game.config)
        self.game = game
        ref = game.game
        m = ref.map
        dev = game.device
        T = game.T
        adj = np.asarray(ref.adjacency, dtype=bool)
        self.adj = torch.as_tensor(adj.copy(), device=dev)
        self.adj_t = torch.as_tensor(adj.T.astype(np.float64), device=dev)  # x @ adj_t = adj @ x per row
        self.e_src = torch.as_tensor(np.array(ref.edge_src, dtype=np.int64), device=dev)
        self.e_dst = torch.as_tensor(np.array(ref.edge_dst, dtype=np.int64), device=dev)
        cont = np.array(m.territory_continent, dtype=np.int64)  # (a writable copy)
        C = len(m.continent_names)
        members = [np.flatnonzero(cont == c) for c in range(C)]
        entries = [[t for t in idx if any(cont[u] != c for u in np.flatnonzero(adj[t]))] for c, idx in enumerate(members)]
        bonus = np.asarray(m.continent_bonus, dtype=np.float64)
        size = np.array([len(i) for i in members], dtype=np.float64)
        appeal = bonus / (size * np.maximum(1, np.array([len(e) for e in entries], dtype=np.float64)))
        self.C = C
        self.appeal = torch.as_tensor(appeal, device=dev)
        self.claim_bonus = torch.as_tensor(4.0 * appeal[cont], device=dev)
        self.cont_of = torch.as_tensor(cont, device=dev)
        self.cont_bonus = torch.as_tensor(bonus, device=dev)
        self.cont_size = torch.as_tensor(size.astype(np.int64), device=dev)
        member = np.zeros((T, C))
        member[np.arange(T), cont] = 1.0
        self.member = torch.as_tensor(member, device=dev)  # float64 (T, C)
        self.member_b = torch.as_tensor(member.T > 0, device=dev)  # bool (C, T)
        is_entry = np.zeros(T, dtype=bool)
        for e in entries:
            is_entry[e] = True
        self.is_entry = torch.as_tensor(is_entry, device=dev)
        # breadth-first distances reach every territory within the map's diameter
        self.diameter = self._diameter(adj)
        if game.NC:
            need = game.tab.comp  # (13, 4)
            self.need_any = (need > 0).double().T.contiguous()  # (4, 13)
            self.wild_cost = 0.5 * need[:, 3].double()
            self.sym_1h = game.tab.card_sym_1h.double()
            self.set_values = game.tab.set_values
        self._ar_T = torch.arange(T, device=dev)

    @staticmethod
    def _diameter(adj: np.ndarray) -> int:
        T = adj.shape[0]
        best = 0
        for s in range(T):
            dist = np.full(T, -1)
            dist[s] = 0
            q = deque([s])
            while q:
                u = q.popleft()
                for v in np.flatnonzero(adj[u]):
                    if dist[v] < 0:
                        dist[v] = dist[u] + 1
                        q.append(int(v))
            best = max(best, int(dist.max()))
        return best

    # ------------------------------------------------------------------ the decision
    def __call__(self, s: BatchState, mask: torch.Tensor, active: torch.Tensor | None = None) -> torch.Tensor:
        """int64 ``(B,)`` ids; with bool ``active`` ``(B,)``, only those games are decided (the others get
        their first legal id, or 0)."""
        g = self.game
        ids = torch.zeros(s.batch_size, dtype=torch.int64, device=g.device)
        parts: tuple[tuple[int, Callable[[BatchState, torch.Tensor, _Sit], torch.Tensor]], ...] = (
            (CLAIM, self._claim_ids),
            (SETUP_PLACE, self._setup_ids),
            (REINFORCE, self._reinforce_ids),
            (ATTACK, self._attack_ids),
            (OCCUPY, self._occupy_ids),
            (FORTIFY, self._fortify_ids),
        )
        for phase, decide in parts:  # each phase on the sub-batch of games in it
            here = s.phase == phase
            idx = (here if active is None else here & active).nonzero()[:, 0]
            if idx.numel():
                sub = BatchState(**{k: v[idx] for k, v in s.fields().items()})
                ids[idx] = decide(sub, mask[idx], _Sit(self, sub))
        # a plan that no longer fits the pending selection (never on positions the policy made): the first legal id
        legal = mask.gather(1, ids[:, None])[:, 0]
        return torch.where(legal, ids, mask.long().argmax(1))

    # ------------------------------------------------------------------ moves to the codec's ids
    def _claim_ids(self, s: BatchState, mask: torch.Tensor, sit: _Sit) -> torch.Tensor:
        return self.claim(s, sit)

    def _setup_ids(self, s: BatchState, mask: torch.Tensor, sit: _Sit) -> torch.Tensor:
        own = self.setup_target(s, sit)
        if self.game.neutral < 0:
            return own
        return torch.where(s.setup_step == 2, self.neutral_target(s, sit), own)

    def _reinforce_ids(self, s: BatchState, mask: torch.Tensor, sit: _Sit) -> torch.Tensor:
        g = self.game
        ss, st = s.sel_src, s.sel_trade
        t, count = self.place(s, sit)
        place = torch.where(ss >= 0, amount_ids(g, torch.ones_like(s.to_place), s.to_place, count), t)
        if not g.NC:
            return place
        # a pending trade asks for the +2 bonus territory: the most threatened option (then the frontier)
        T = g.T
        opts = bonus_options(g, s, st.clamp(min=0))[:, :T]
        bonus = _argmax(sit.threat + 5.0 * sit.frontier.to(sit.arm.dtype), opts)
        # the set: 2 more for a +2 bonus on offer, 0.5 less per wild (every set has the same value)
        Tc = min(T, g.NC)
        shown = torch.zeros_like(s.card_loc, dtype=sit.arm.dtype)
        shown[:, :Tc] = ((s.card_loc[:, :Tc] == s.player[:, None]) & sit.mine[:, :Tc]).to(sit.arm.dtype)
        has_opt = ((shown @ self.sym_1h) > 0).to(sit.arm.dtype) @ self.need_any > 0  # (M, 13)
        has_opt &= ~s.bonus_used[:, None]
        trades = mask[:, g.A_TRADE : g.A_TRADE + 13]
        score = 2.0 * has_opt.to(sit.arm.dtype) - self.wild_cost[None, :]
        comp = _argmax(score, trades)
        # a set is traded when forced, when nothing is left to place, or when the strategy wants it
        now = s.forced | (s.to_place <= 0) | self.want_trade(s, sit)
        out = torch.where(trades.any(1) & (ss < 0) & now, g.A_TRADE + comp, place)
        return torch.where(st >= 0, bonus, out)

    def _attack_ids(self, s: BatchState, mask: torch.Tensor, sit: _Sit) -> torch.Tensor:
        g = self.game
        ss, sd = s.sel_src, s.sel_dst
        go, src, dst = self.attack(s, sit)
        dice = torch.clamp(take(s.armies, torch.where(ss >= 0, ss, src)) - 1, max=3)
        roll = g.A_DICE + dice - 1
        again = mask[:, g.A_DICE] & (s.att_src == src) & (s.att_dst == dst)
        top = torch.where(go, torch.where(again, roll, src), g.A_END)
        return torch.where(ss < 0, top, torch.where(sd < 0, dst, roll))

    def _occupy_ids(self, s: BatchState, mask: torch.Tensor, sit: _Sit) -> torch.Tensor:
        g = self.game
        lo = take(s.armies, s.att_dst)
        hi = lo + take(s.armies, s.att_src) - 1
        want = self.occupy(s, sit, lo, hi)
        return amount_ids(g, lo, hi, torch.minimum(torch.maximum(want, lo), hi))

    def _fortify_ids(self, s: BatchState, mask: torch.Tensor, sit: _Sit) -> torch.Tensor:
        g = self.game
        ss, sd = s.sel_src, s.sel_dst
        moving, src, dst, count = self.fortify(s, sit)
        # the sub-steps: source, target, then the amount (1 army for a plan that does not match)
        top = torch.where(moving, src, g.A_END)
        same = moving & (src == ss) & (dst == sd)
        src_armies = take(s.armies, ss)
        amount = amount_ids(g, torch.ones_like(src_armies), src_armies - 1, torch.where(same, count, 1))
        return torch.where(ss < 0, top, torch.where(sd < 0, dst, amount))

    # ------------------------------------------------------------------ hooks (the scalar defaults)
    def claim(self, s: BatchState, sit: _Sit) -> torch.Tensor:
        """Next to own territories, in an appealing continent, few enemies around."""
        score = sit.own_nb() - 0.5 * sit.enemy_adj + self.claim_bonus[None, :]
        return _argmax(score, s.owner < 0)

    def setup_target(self, s: BatchState, sit: _Sit) -> torch.Tensor:
        """One setup army on the strongest base."""
        return self.strongest_base(sit, torch.ones(s.batch_size, dtype=sit.arm.dtype, device=self.game.device))

    def neutral_target(self, s: BatchState, sit: _Sit) -> torch.Tensor:
        """The neutral's setup army between the opponent and us."""
        score = sit.hostile.to(sit.arm.dtype) @ self.adj_t + 0.5 * sit.own_nb()
        return _argmax(score, s.owner == self.game.neutral)

    def want_trade(self, s: BatchState, sit: _Sit) -> torch.Tensor:
        """Trade a set now when not forced: yes, at once."""
        return torch.ones(s.batch_size, dtype=torch.bool, device=self.game.device)

    def place(self, s: BatchState, sit: _Sit) -> tuple[torch.Tensor, torch.Tensor]:
        """Every army to place on the strongest base."""
        return self.strongest_base(sit, s.to_place.to(sit.arm.dtype)), s.to_place

    def attack(self, s: BatchState, sit: _Sit) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Never attack."""
        zero = torch.zeros(s.batch_size, dtype=torch.int64, device=self.game.device)
        return zero.bool(), zero, zero

    def occupy(self, s: BatchState, sit: _Sit, lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
        """Split by threat: all forward if the source no longer borders an enemy, the minimum if the
        conquest borders none, else in proportion to the enemies each faces."""
        a, b = s.att_src, s.att_dst
        ea_a, ea_b = take(sit.enemy_adj, a), take(sit.enemy_adj, b)
        wa = take(sit.threat, a) + 1.0
        wb = take(sit.threat, b) + 1.0 + 2.0 * ea_b
        split = torch.round((hi + 1).to(wa.dtype) * wb / (wa + wb)).long()
        return torch.where(ea_a <= 0, hi, torch.where(ea_b <= 0, lo, split))

    def fortify(self, s: BatchState, sit: _Sit) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """The largest idle stack towards the front, else a rebalance between frontier territories."""
        g = self.game
        M = s.batch_size
        dev = g.device
        armies, arm = s.armies, sit.arm
        mine, frontier, threat = sit.mine, sit.frontier, sit.threat
        dist = sit.dist()
        # the largest idle stacks (4 at most), each towards a reachable own territory nearer the front
        idle = mine & (armies >= 2) & ~frontier
        key = torch.where(idle, armies, -1)
        order = torch.sort(key, dim=1, descending=True, stable=True).indices[:, :4]
        found = torch.zeros(M, dtype=torch.bool, device=dev)
        src = torch.zeros(M, dtype=torch.int64, device=dev)
        dst = torch.zeros(M, dtype=torch.int64, device=dev)
        score = -dist.to(arm.dtype) * 100.0 + threat - arm * 0.1
        for k in range(order.shape[1]):
            t = order[:, k]
            ok_t = key.gather(1, t[:, None])[:, 0] >= 0
            d_t = dist.gather(1, t[:, None])
            closer = self.adj.index_select(0, t) & mine & (dist < d_t)
            pick = ~found & ok_t & closer.any(1)
            src = torch.where(pick, t, src)
            dst = torch.where(pick, _argmax(score, closer), dst)
            found |= pick
        count = take(armies, src) - 1
        # else rebalance between frontier territories: from the largest surplus over its threat
        # to a reachable frontier territory short of its threat, when that moves more than 2
        give = torch.minimum(arm - 1.0, torch.floor((arm - threat) / 2.0))
        can_give = frontier & (armies >= 3) & (give >= 1)
        reach = self.adj[None, :, :] & frontier[:, None, :]  # (M, T source, T target)
        need = threat - arm  # (M, T)
        needs = torch.where(reach, need[:, None, :], _NEG)
        best_need, best_j = needs.max(2)  # first maximum per source
        gain = torch.minimum(give, best_need)
        ok_r = can_give & reach.any(2) & (gain > 2.0)
        rs = _argmax(gain, ok_r)
        rebalance = ~found & ok_r.any(1)
        r_dst = best_j.gather(1, rs[:, None])[:, 0]
        r_give = give.gather(1, rs[:, None])[:, 0]
        r_need = best_need.gather(1, rs[:, None])[:, 0]
        r_count = torch.clamp(torch.minimum(r_give, torch.ceil(r_need)), min=1.0).long()
        src = torch.where(rebalance, rs, src)
        dst = torch.where(rebalance, r_dst, dst)
        count = torch.where(rebalance, r_count, count)
        return found | rebalance, src, dst, count

    # ------------------------------------------------------------------ shared strategy bits
    def strongest_base(self, sit: _Sit, extra: torch.Tensor) -> torch.Tensor:
        """The frontier source of the best attack margin ``armies + extra - 1 - defenders + hostile``
        (else the first own territory)."""
        e = sit.edges()
        ok = e.mine_src & e.enemy_dst
        margin = e.arm_src + extra[None, :] - 1.0 - e.arm_dst + e.hostile_dst  # (E, M)
        j = _argmax0(margin, ok)
        return torch.where(ok.any(0), self.e_src[j], sit.mine.long().argmax(1))

    def held_border_deficits(self, sit: _Sit) -> tuple[torch.Tensor, torch.Tensor]:
        """bool ``(M, T)`` the entry territories of held continents that face enemies, and float64
        ``(M, T)`` the armies each lacks to match the hostile armies next to it, plus 2 (may be <= 0)."""
        held_t = sit.held().gather(1, self.cont_of[None, :].expand(sit.arm.shape[0], -1))
        return sit.frontier & self.is_entry[None, :] & held_t, sit.threat + 2.0 - sit.arm

    def win_probability(self, attackers: torch.Tensor, defenders: torch.Tensor) -> torch.Tensor:
        """:func:`risk_env.agents.heuristic.win_probabilities` (exact odds from its 100 x 100 table,
        larger battles scaled down together) for float64 tensors of any shape."""
        W = self._odds()
        big = torch.clamp(torch.maximum(attackers, defenders), min=1.0)
        f = torch.where(big > _ODDS_MAX, _ODDS_MAX / big, 1.0)
        ai = torch.clamp(torch.round(attackers * f), 0, _ODDS_MAX).long()
        di = torch.clamp(torch.round(defenders * f), 0, _ODDS_MAX).long()
        di = torch.where((defenders > 0) & (di == 0), 1, di)
        return W[ai, di]

    def _odds(self) -> torch.Tensor:
        W = getattr(self, "_W", None)
        if W is None:
            from ..agents.heuristic import win_probabilities

            i = np.arange(_ODDS_MAX + 1)
            W = torch.as_tensor(win_probabilities(i[:, None], i[None, :]), device=self.game.device)
            self._W = W
        return W


class AggressivePolicy(HeuristicPolicy):
    """The ``aggressive`` baseline for a batch (see the module docstring).

    * Claims territories next to its own in appealing continents; places every army on the
      frontier territory with the best attack margin (one stack).
    * Trades a set as soon as it holds one (the most valuable: the +2 bonus on offer, fewest
      wilds), with the +2 bonus on the most threatened option.
    * Attacks with the most dice where its rolling armies outnumber the defenders by the
      largest margin (real players before the 2-player neutral, players near elimination first),
      while they outnumber them; moves the whole stack into a conquest that borders enemies.
    * Fortifies its largest idle stack towards the front, else rebalances between frontier
      territories (the shared heuristic defaults).
    """

    name = "aggressive"

    def attack(self, s: BatchState, sit: _Sit) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Most dice where the rolling armies outnumber the defenders by the largest margin."""
        es, ed = self.e_src, self.e_dst
        ss = s.sel_src
        e = sit.edges()
        # players close to elimination are worth more: 3 / their territories, per target territory
        owner = s.owner
        weak3 = 3.0 * torch.where(sit.hostile, 1.0 / sit.territories().gather(1, owner.clamp(min=0)).clamp(min=1.0), 0.0)
        att = e.arm_src - 1.0  # (E, M) edge-major
        ok = e.mine_src & (e.arm_src >= 2) & e.enemy_dst & (att > e.arm_dst)
        ok &= (ss < 0)[None, :] | (es[:, None] == ss[None, :])  # a pending source: its own targets
        # (a - d) + 0.5 hostile is exact; the one rounding is adding the fraction, as the scalar agent does
        score = (att - e.arm_dst) + 0.5 * e.hostile_dst + weak3.T.contiguous().index_select(0, ed)
        j = _argmax0(score, ok)
        return ok.any(0), es[j], ed[j]

    def occupy(self, s: BatchState, sit: _Sit, lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
        """The whole stack forward if the conquest borders enemies (or the source borders none)."""
        fwd = take(sit.enemy_adj, s.att_dst) > 0
        back = take(sit.enemy_adj, s.att_src) > 0
        return torch.where(fwd | ~back, hi, lo)


class BalancedPolicy(HeuristicPolicy):
    """The ``balanced`` baseline for a batch (:class:`risk_env.agents.balanced.BalancedAgent`).

    * Every attackable enemy territory has a value: 1, plus 1.5 x the bonus of a continent it
      would complete, plus the bonus of an enemy continent it would break, plus a hunting value
      for players close to elimination (more when they hold many cards), plus 1.5 while no
      conquest was made this turn; the 2-player neutral is worth half.
    * Attacks the target with the best ``p * value`` (``p`` the exact probability that the rolling
      armies take it) while ``p`` clears a bar falling with the value (0.65 down to 0.4), and once
      the turn's card is earned only for a value of 2 or more or at ``p >= 0.85``.
    * Trades when forced, holding 4 or more cards, for a set worth 10 or more, under pressure
      (the hostile armies facing its frontier outnumber its own there 1.5 to 1), or when a player
      worth hunting is on the board.
    * Places half its reinforcements on held-continent entrances short of their threat, the rest
      where they raise the best ``p * value``; occupies forward unless it guards a held continent.
    """

    name = "balanced"

    def target_values(self, s: BatchState, sit: _Sit) -> torch.Tensor:
        """float64 ``(M, T)``: the value of conquering each territory (enemy territories; the rest is unused)."""
        g = self.game
        n = g.n
        c = self.cont_of[None, :].expand(s.batch_size, -1)
        mine_c = sit.mine.to(sit.arm.dtype) @ self.member  # (M, C) own territories per continent
        others_mine = mine_c.gather(1, c) == (self.cont_size[c] - 1).to(sit.arm.dtype)
        bonus = self.cont_bonus[c]
        v = torch.ones_like(sit.arm)
        v = torch.where(others_mine, v + 1.5 * bonus, v)
        v = torch.where(sit.their_held().gather(1, c), v + bonus, v)
        owner = s.owner.clamp(min=0)
        hunt = sit.hunting_values().gather(1, owner)
        v = torch.where(s.owner < n, v + hunt, v * 0.5)
        return torch.where(s.conquered[:, None], v, v + 1.5)

    def attack(self, s: BatchState, sit: _Sit) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The best ``p * value`` above its bar (class docstring)."""
        es, ed = self.e_src, self.e_dst
        ss = s.sel_src
        e = sit.edges()
        ok = e.mine_src & (e.arm_src >= 2) & e.enemy_dst
        p = self.win_probability(e.arm_src - 1.0, e.arm_dst)  # (E, M)
        v = self.target_values(s, sit).T.contiguous().index_select(0, ed)
        ok &= p >= torch.clamp(0.75 - 0.05 * v, 0.4, 0.65)
        ok &= ~s.conquered[None, :] | (v >= 2.0) | (p >= 0.85)
        ok &= (ss < 0)[None, :] | (es[:, None] == ss[None, :])  # a pending source: its own targets
        j = _argmax0(p * v, ok)
        return ok.any(0), es[j], ed[j]

    def want_trade(self, s: BatchState, sit: _Sit) -> torch.Tensor:
        """With 4+ cards, for a set worth 10+, under pressure at the frontier, or with a player worth hunting."""
        hand = (s.card_loc == s.player[:, None]).sum(1)
        value = self.set_values[s.sets_traded.clamp(max=self.set_values.numel() - 1)]
        front = sit.frontier.to(sit.arm.dtype)
        pressure = (sit.threat * front).sum(1) > 1.5 * (sit.arm * front).sum(1)
        hunt = (sit.hunting_values() > 2.0).any(1)
        return (hand >= 4) | (value >= 10) | pressure | hunt

    def place(self, s: BatchState, sit: _Sit) -> tuple[torch.Tensor, torch.Tensor]:
        """Half on a held-continent entrance short of its threat, else where ``p * value`` rises most."""
        n = s.to_place
        ts, deficit = self.held_border_deficits(sit)
        short = torch.where(ts, deficit, _NEG)
        j = short.argmax(1)
        d_j = short.gather(1, j[:, None])[:, 0]
        guard = ts.any(1) & (d_j > 0) & (n > 1)
        count = torch.minimum(torch.clamp(n // 2, min=1), torch.clamp(torch.ceil(d_j), min=1.0).long())
        t = torch.where(guard, j, self.place_target(s, sit, n))
        return t, torch.where(guard, count, n)

    def place_target(self, s: BatchState, sit: _Sit, n: torch.Tensor) -> torch.Tensor:
        """The source whose ``n`` more armies give the best ``p * value`` (plus a small threat term)."""
        e = sit.edges()
        ok = e.mine_src & e.enemy_dst
        nn = n.to(sit.arm.dtype)[None, :]
        p = self.win_probability(e.arm_src - 1.0 + nn, e.arm_dst)
        v = self.target_values(s, sit).T.contiguous().index_select(0, self.e_dst)
        threat_src = sit.threat.T.contiguous().index_select(0, self.e_src)
        score = p * v + 0.01 * threat_src / (e.arm_src + nn)
        j = _argmax0(score, ok)
        return torch.where(ok.any(0), self.e_src[j], sit.mine.long().argmax(1))

    def occupy(self, s: BatchState, sit: _Sit, lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
        """The whole stack forward into a conquest that borders enemies, unless the source guards a held continent."""
        a = s.att_src
        ca = self.cont_of[a.clamp(min=0)]
        guard = self.is_entry[a.clamp(min=0)] & sit.held().gather(1, ca[:, None])[:, 0] & (take(sit.threat, a) > 0)
        fwd = (take(sit.enemy_adj, s.att_dst) > 0) & ~guard
        return torch.where(fwd, hi, super().occupy(s, sit, lo, hi))


class ContinentPolicy(HeuristicPolicy):
    """The ``continent`` baseline for a batch (:class:`risk_env.agents.continent.ContinentAgent`).

    * A target continent: the best :meth:`continent_scores` (bonus per territory and entrance,
      share owned, own armies inside and next to it against the enemies'); claims go there first.
    * Reinforcements cover the entrances of held continents first (up to their threat plus 2),
      then go next to the target continent's weakest enemy territory.
    * Attacks into the target continent at odds of 50 % or more; elsewhere at 80 %, or 60 % to
      break an enemy continent or to earn the turn's card; never strips a held continent's
      entrance below its threat.
    * Occupies leaving an entrance's guard behind, fortifies idle stacks to the most threatened
      entrance, trades a set at once.
    """

    name = "continent"

    def __init__(self, game: VectorGame) -> None:
        super().__init__(game)
        # appeal x (0.3 + share) ** 2 for each continent and own count, computed as the scalar agent does
        # (numpy's scalar power, which a tensor's ** 2 does not always reproduce)
        appeal = self.appeal.cpu().numpy()
        size = self.cont_size.cpu().numpy()
        width = int(size.max()) + 1
        tab = np.zeros((self.C, width))
        for c in range(self.C):
            for k in range(int(size[c]) + 1):
                share = np.mean(np.arange(size[c]) < k)
                tab[c, k] = appeal[c] * (0.3 + share) ** 2
        self.share_factor = torch.as_tensor(tab, device=game.device)

    def continent_scores(self, s: BatchState, sit: _Sit) -> torch.Tensor:
        """float64 ``(M, C)``: how attractive each continent is to take now (0 for continents held)."""
        mine_f = sit.mine.to(sit.arm.dtype)
        k = (mine_f @ self.member).long()  # own territories per continent
        ours = (sit.arm * mine_f) @ self.member
        foes = (sit.arm * (1.0 - mine_f)) @ self.member
        near = (((sit.arm * mine_f) @ self.adj_t) @ self.member) * 0.25
        factor = self.share_factor.gather(1, k.T.contiguous()).T  # (M, C)
        score = factor * (ours + near + 1.0) / (foes + 1.0)
        return torch.where(sit.held(), 0.0, score)

    def target(self, s: BatchState, sit: _Sit) -> torch.Tensor:
        """int64 ``(M,)``: the target continent."""
        return self.continent_scores(s, sit).argmax(1)

    def claim(self, s: BatchState, sit: _Sit) -> torch.Tensor:
        """A free territory of the continent it can still hold most of (then next to own territories)."""
        owner = s.owner
        free = owner == -1
        member = self.member
        left = free.to(sit.arm.dtype) @ member
        mine = sit.mine.to(sit.arm.dtype) @ member
        foes = ((owner >= 0) & ~sit.mine).to(sit.arm.dtype) @ member
        score = torch.where(left > 0, self.appeal[None, :] * (1.0 + mine) / (1.0 + 2.0 * foes), 0.0)
        per_t = score.gather(1, self.cont_of[None, :].expand(s.batch_size, -1))
        return _argmax(per_t * 10.0 + 0.2 * sit.own_nb(), free)

    def setup_target(self, s: BatchState, sit: _Sit) -> torch.Tensor:
        ts, deficit = self.held_border_deficits(sit)
        short = torch.where(ts, deficit, _NEG)
        j = short.argmax(1)
        guard = ts.any(1) & (short.gather(1, j[:, None])[:, 0] > 0)
        return torch.where(guard, j, self.expansion_base(s, sit, torch.ones_like(s.to_place)))

    def place(self, s: BatchState, sit: _Sit) -> tuple[torch.Tensor, torch.Tensor]:
        n = s.to_place
        ts, deficit = self.held_border_deficits(sit)
        short = torch.where(ts, deficit, _NEG)
        j = short.argmax(1)
        d_j = short.gather(1, j[:, None])[:, 0]
        guard = ts.any(1) & (d_j > 0)
        count = torch.minimum(n, torch.clamp(torch.ceil(d_j), min=1.0).long())
        t = torch.where(guard, j, self.expansion_base(s, sit, n))
        return t, torch.where(guard, count, n)

    def expansion_base(self, s: BatchState, sit: _Sit, n: torch.Tensor) -> torch.Tensor:
        """The own territory next to the target continent's weakest enemy territory (else the
        frontier territory nearest to it)."""
        c = self.target(s, sit)
        in_c = self.cont_of[None, :] == c[:, None]  # (M, T)
        e = sit.edges()
        ok = e.mine_src & e.enemy_dst
        in_c_e = in_c.T.contiguous()
        into = ok & in_c_e.index_select(0, self.e_dst)
        nn = n.to(sit.arm.dtype)[None, :]
        score_in = (e.arm_src + nn - 1.0) - e.arm_dst + 2.0 * in_c_e.index_select(0, self.e_src).to(sit.arm.dtype)
        closeness = (in_c.to(sit.arm.dtype) @ self.adj_t).T.contiguous().index_select(0, self.e_src)
        score_near = 3.0 * closeness + 0.1 * e.arm_src - 0.05 * e.arm_dst
        has_into = into.any(0)
        j = torch.where(has_into, _argmax0(score_in, into), _argmax0(score_near, ok))
        return torch.where(ok.any(0), self.e_src[j], sit.mine.long().argmax(1))

    def reserve(self, s: BatchState, sit: _Sit) -> torch.Tensor:
        """float64 ``(M, T)``: armies to keep besides the one that must stay: the threat of a held continent's entrance."""
        held_t = sit.held().gather(1, self.cont_of[None, :].expand(s.batch_size, -1))
        return torch.where(self.is_entry[None, :] & held_t, sit.threat, 0.0)

    def attack(self, s: BatchState, sit: _Sit) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        es, ed = self.e_src, self.e_dst
        ss = s.sel_src
        e = sit.edges()
        c = self.target(s, sit)
        reserve = self.reserve(s, sit).T.contiguous().index_select(0, es)
        avail = e.arm_src - 1.0 - reserve
        ok = e.mine_src & (e.arm_src >= 2) & e.enemy_dst & (avail >= 1)
        p = self.win_probability(avail, e.arm_dst)
        in_target = self.cont_of[ed][:, None] == c[None, :]  # (E, M)
        breaks = sit.their_held().T.contiguous().index_select(0, self.cont_of[ed])
        need = torch.where(in_target, 0.5, 0.8)
        need = torch.where(breaks, torch.clamp(need, max=0.6), need)
        need = torch.where(s.conquered[None, :], need, torch.clamp(need, max=0.6))
        ok &= p >= need
        ok &= (ss < 0)[None, :] | (es[:, None] == ss[None, :])  # a pending source: its own targets
        score = p + 0.3 * in_target.to(p.dtype) + 0.2 * breaks.to(p.dtype)
        j = _argmax0(score, ok)
        return ok.any(0), es[j], ed[j]

    def occupy(self, s: BatchState, sit: _Sit, lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
        keep = take(self.reserve(s, sit), s.att_src)
        leave = (hi.to(keep.dtype) + 1.0 - (keep + 1.0)).long()
        return torch.where(keep > 0, leave, super().occupy(s, sit, lo, hi))

    def fortify(self, s: BatchState, sit: _Sit) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Armies to the held-continent entrance that lacks most, from the donor with most to spare;
        else the shared default."""
        ts, deficit = self.held_border_deficits(sit)
        arm = sit.arm
        reserve = self.reserve(s, sit)
        spare = torch.where(sit.frontier, arm - 1.0 - reserve, arm - 1.0)
        spare = torch.where(sit.frontier & ~self.is_entry[None, :], torch.minimum(spare, arm - 1.0 - sit.threat), spare)
        spare = torch.trunc(spare)
        donor = sit.mine & (s.armies >= 2)
        # (M, a, dst): what donor a can give to dst (its neighbour); the first donor with the most per dst
        can = donor[:, :, None] & self.adj[None, :, :]
        gives = torch.where(can, spare[:, :, None], _NEG)
        give, best = gives.max(1)  # (M, T dst)
        valid = ts & (give >= 1.0)
        go = (ts & (deficit > 0)).any(1) & valid.any(1)
        dst = _argmax(deficit, valid)
        src = best.gather(1, dst[:, None])[:, 0]
        g_dst = give.gather(1, dst[:, None])[:, 0]
        d_dst = deficit.gather(1, dst[:, None])[:, 0]
        count = torch.minimum(g_dst, torch.clamp(torch.ceil(d_dst), min=1.0) + 2.0).long()
        moving, f_src, f_dst, f_count = super().fortify(s, sit)
        return (
            go | moving,
            torch.where(go, src, f_src),
            torch.where(go, dst, f_dst),
            torch.where(go, count, f_count),
        )


class _Edges:
    """Per-edge facts of a sub-batch, edge-major (``(E, M)``: each row one border, copied whole):
    the source's and target's sides and armies."""

    def __init__(self, policy: HeuristicPolicy, sit: _Sit) -> None:
        es, ed = policy.e_src, policy.e_dst
        mine, enemy, arm = sit.mine.T.contiguous(), sit.enemy.T.contiguous(), sit.arm.T.contiguous()
        self.mine_src = mine.index_select(0, es)
        self.enemy_dst = enemy.index_select(0, ed)
        self.arm_src = arm.index_select(0, es)
        self.arm_dst = arm.index_select(0, ed)
        self.hostile_dst = sit.hostile.T.contiguous().index_select(0, ed).to(sit.arm.dtype)


class _Sit:
    """The position from the seat to act, per game of a sub-batch (the scalar agents' ``Situation``).

    Scores are float64, as the scalar agents compute them (sums of small integers and
    simple fractions, exact or rounded alike), so both break no tie differently. The
    parts only some strategies read are computed on first use.
    """

    def __init__(self, policy: HeuristicPolicy, s: BatchState) -> None:
        g = policy.game
        self.policy = policy
        self.state = s
        owner = s.owner
        self.arm = s.armies.double()
        self.mine = owner == s.player[:, None]
        self.enemy = (owner >= 0) & ~self.mine
        self.hostile = self.enemy & (owner != g.neutral) if g.neutral >= 0 else self.enemy
        self.threat = (self.arm * self.hostile) @ policy.adj_t  # hostile armies next to each territory
        self.enemy_adj = self.enemy.double() @ policy.adj_t  # enemy territories next to each
        self.frontier = self.mine & (self.enemy_adj > 0)
        self._edges: _Edges | None = None
        self._cache: dict[str, torch.Tensor] = {}

    def edges(self) -> _Edges:
        if self._edges is None:
            self._edges = _Edges(self.policy, self)
        return self._edges

    def own_nb(self) -> torch.Tensor:
        """float64 ``(M, T)``: own territories next to each territory."""
        return self.mine.double() @ self.policy.adj_t

    def territories(self) -> torch.Tensor:
        """float64 ``(M, seats + 1)``: territories per owner id (players, the neutral), unclaimed last."""
        t = self._cache.get("territories")
        if t is None:
            g = self.policy.game
            owner = self.state.owner
            t = torch.zeros(owner.shape[0], g.num_seats + 1, dtype=self.arm.dtype, device=g.device)
            t.scatter_add_(1, torch.where(owner >= 0, owner, g.num_seats), torch.ones_like(self.arm))
            self._cache["territories"] = t
        return t

    def held(self) -> torch.Tensor:
        """bool ``(M, C)``: the continents the seat owns entirely."""
        h = self._cache.get("held")
        if h is None:
            pol = self.policy
            h = (self.mine.double() @ pol.member) == pol.cont_size[None, :].double()
            self._cache["held"] = h
        return h

    def their_held(self) -> torch.Tensor:
        """bool ``(M, C)``: the continents another player (not the neutral) owns entirely."""
        h = self._cache.get("their_held")
        if h is None:
            pol = self.policy
            g = pol.game
            owner = self.state.owner[:, None, :]  # (M, 1, T)
            inside = pol.member_b[None, :, :]  # (1, C, T)
            lo = torch.where(inside, owner, 1 << 30).amin(2)
            hi = torch.where(inside, owner, -(1 << 30)).amax(2)
            me = self.state.player[:, None]
            h = (lo == hi) & (lo >= 0) & (lo != me)
            if g.neutral >= 0:
                h &= lo != g.neutral
            self._cache["their_held"] = h
        return h

    def hunting_values(self) -> torch.Tensor:
        """float64 ``(M, seats + 1)``: how much each player is worth hunting (0 for the neutral, the seat itself,
        and players out): ``max(0, 6 - territories) / 6 x (1 + 0.6 cards) x 4``."""
        h = self._cache.get("hunt")
        if h is None:
            g = self.policy.game
            s = self.state
            n = g.n
            M = s.batch_size
            terr = self.territories()[:, :n]
            ar = torch.arange(n, device=g.device)
            if g.NC:
                cards = (s.card_loc[:, None, :] == ar[None, :, None]).sum(2).double()
            else:
                cards = torch.zeros(M, n, dtype=self.arm.dtype, device=g.device)
            weak = torch.clamp(6.0 - terr, min=0.0) / 6.0
            val = weak * (1.0 + 0.6 * cards) * 4.0
            ok = s.alive & (ar[None, :] != s.player[:, None]) & (terr > 0)
            h = torch.zeros(M, g.num_seats + 1, dtype=self.arm.dtype, device=g.device)
            h[:, :n] = torch.where(ok, val, 0.0)
            self._cache["hunt"] = h
        return h

    def dist(self) -> torch.Tensor:
        """int64 ``(M, T)``: the graph distance to the nearest enemy territory (0 there; ``T`` when none is reachable)."""
        d = self._cache.get("dist")
        if d is None:
            pol = self.policy
            T = pol.game.T
            d = torch.where(self.enemy, 0, T)
            for k in range(pol.diameter):
                near = ((d == k).to(self.arm.dtype) @ pol.adj_t) > 0
                d = torch.where(near & (d == T), k + 1, d)
            self._cache["dist"] = d
        return d


def make_policy(name: str, game: VectorGame, generator: torch.Generator | None = None) -> BatchedPolicy:
    """A batched policy by its baseline name: ``"random"`` (drawing from ``generator``, by default a new
    one on the engine's device seeded 0) or a batched heuristic of :data:`BATCHED_HEURISTICS`.

    Raises:
        ConfigError: an unknown name (the message lists the batched policies).
    """
    if name == "random":
        if generator is None:
            generator = torch.Generator(device=game.device)
            generator.manual_seed(0)
        return RandomPolicy(generator)
    policies: dict[str, type[HeuristicPolicy]] = {
        "aggressive": AggressivePolicy,
        "balanced": BalancedPolicy,
        "continent": ContinentPolicy,
    }
    if name in policies:
        return policies[name](game)
    raise ConfigError(f"no batched policy named {name!r}; batched policies: 'random', {', '.join(map(repr, BATCHED_HEURISTICS))}")
