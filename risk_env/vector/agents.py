"""Batched heuristic opponents: baselines of :mod:`risk_env.agents` as torch policies over a
:class:`~risk_env.vector.state.BatchState`.

:class:`AggressivePolicy` plays the ``aggressive`` baseline
(:class:`risk_env.agents.aggressive.AggressiveAgent`) for every game of a batch at once:
the same scores, the same complete moves, and the same action ids for each of the
codec's sub-steps (source, target, then dice or an amount; docs/rules.md §4). The
scalar agent breaks exact ties between scores with a small random jitter; this one
breaks them deterministically (the lowest territory, edge or set composition), so the
two choose the same id wherever the best score is unique; the tests check it on
thousands of positions of every phase against the scalar agent with its jitter off.

>>> import torch
>>> from risk_env.vector import VectorEnv
>>> from risk_env.vector.agents import AggressivePolicy
>>> env = VectorEnv(8, seed=0, preset="fast")
>>> out = env.reset()
>>> policy = AggressivePolicy(env.game)
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
from .engine import VectorGame
from .masks import bonus_options
from .state import ATTACK, CLAIM, FORTIFY, OCCUPY, REINFORCE, SETUP_PLACE, BatchState

__all__ = [
    "BATCHED_HEURISTICS",
    "AggressivePolicy",
    "BatchedPolicy",
    "RandomPolicy",
    "amount_ids",
    "make_policy",
    "random_legal",
]

BATCHED_HEURISTICS = ("aggressive",)
"""Baselines of :mod:`risk_env.agents` that have a batched version here."""

_NEG = float("-inf")


@runtime_checkable
class BatchedPolicy(Protocol):
    """What plays seats of the batched engine: ``policy(state, mask, active) -> ids``.

    ``state`` is the :class:`BatchState` of ``B`` games, ``mask`` their bool action mask
    ``(B, N)`` for the seat to act, ``active`` an optional bool ``(B,)`` (the games this policy
    decides now; None: all). It returns int64 ``(B,)`` ids on the state's device, legal under
    ``mask`` in the active games (anything in the others). A policy reads only what the seat
    to act may know (its own cards, the board, the card counts): the batched heuristics and
    the network policies here keep to that.
    """

    name: str

    def __call__(self, state: BatchState, mask: torch.Tensor, active: torch.Tensor | None = None, /) -> torch.Tensor: ...


def random_legal(mask: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """int64 ``(B,)``: a uniformly random legal id per row of bool ``mask`` ``(B, N)`` (a row with
    no legal id gets 0; ``N < 256``): the ``k``-th legal id for a uniform ``k``."""
    counts = mask.to(torch.uint8).cumsum(1, dtype=torch.uint8)
    total = counts[:, -1]
    k = (torch.rand(mask.shape[0], generator=generator, device=mask.device) * total).to(torch.uint8)
    k = torch.minimum(k, (total.clamp(min=1) - 1).to(torch.uint8))
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
    j = game._ar_K[None, :]
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


class AggressivePolicy:
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

    Args:
        game: the batched engine whose positions it plays (classic rules it supports).

    Call ``policy(state, mask)`` with a :class:`BatchState` and its bool action mask
    ``(B, N)``; it returns int64 ``(B,)`` ids for the seat to act in each game, each legal
    under ``mask`` (games over get their first legal id, or 0).
    """

    name = "aggressive"

    def __init__(self, game: VectorGame) -> None:
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
        cont = np.asarray(m.territory_continent, dtype=np.int64)
        members = [np.flatnonzero(cont == c) for c in range(len(m.continent_names))]
        entries = [sum(1 for t in idx if any(cont[u] != c for u in np.flatnonzero(adj[t]))) for c, idx in enumerate(members)]
        bonus = np.asarray(m.continent_bonus, dtype=np.float64)
        size = np.array([len(i) for i in members], dtype=np.float64)
        appeal = bonus / (size * np.maximum(1, np.array(entries, dtype=np.float64)))
        self.claim_bonus = torch.as_tensor(4.0 * appeal[cont], device=dev)
        # breadth-first distances reach every territory within the map's diameter
        self.diameter = self._diameter(adj)
        if game.NC:
            need = game.tab.comp  # (13, 4)
            self.need_any = (need > 0).double().T.contiguous()  # (4, 13)
            self.wild_cost = 0.5 * need[:, 3].double()
            self.sym_1h = game.tab.card_sym_1h.double()
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
            (CLAIM, self._claim),
            (SETUP_PLACE, self._setup),
            (REINFORCE, self._reinforce),
            (ATTACK, self._attack),
            (OCCUPY, self._occupy),
            (FORTIFY, self._fortify),
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

    def _base(self, sit: _Sit, extra: torch.Tensor) -> torch.Tensor:
        """strongest_base: the frontier source of the best attack margin (else the first own territory)."""
        e = sit.edges()
        ok = e.mine_src & e.enemy_dst
        margin = e.arm_src + extra[None, :] - 1.0 - e.arm_dst + e.hostile_dst  # (E, M)
        j = _argmax0(margin, ok)
        return torch.where(ok.any(0), self.e_src[j], sit.mine.long().argmax(1))

    def _claim(self, s: BatchState, mask: torch.Tensor, sit: _Sit) -> torch.Tensor:
        """Next to own territories, in an appealing continent, few enemies around."""
        score = sit.own_nb() - 0.5 * sit.enemy_adj + self.claim_bonus[None, :]
        return _argmax(score, s.owner < 0)

    def _setup(self, s: BatchState, mask: torch.Tensor, sit: _Sit) -> torch.Tensor:
        """One army on the strongest base; the neutral's between the opponent and us."""
        g = self.game
        own = self._base(sit, torch.ones(s.batch_size, dtype=sit.arm.dtype, device=g.device))
        if g.neutral < 0:
            return own
        score = sit.hostile.to(sit.arm.dtype) @ self.adj_t + 0.5 * sit.own_nb()
        return torch.where(s.setup_step == 2, _argmax(score, s.owner == g.neutral), own)

    def _reinforce(self, s: BatchState, mask: torch.Tensor, sit: _Sit) -> torch.Tensor:
        """Trade at once, else everything on the strongest base."""
        g = self.game
        ss, st = s.sel_src, s.sel_trade
        place = torch.where(
            ss >= 0,
            amount_ids(g, torch.ones_like(s.to_place), s.to_place, s.to_place),
            self._base(sit, s.to_place.to(sit.arm.dtype)),
        )
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
        out = torch.where(trades.any(1) & (ss < 0), g.A_TRADE + comp, place)
        return torch.where(st >= 0, bonus, out)

    def _attack(self, s: BatchState, mask: torch.Tensor, sit: _Sit) -> torch.Tensor:
        """Most dice where the rolling armies outnumber the defenders by the largest margin."""
        g = self.game
        es, ed = self.e_src, self.e_dst
        ss, sd = s.sel_src, s.sel_dst
        e = sit.edges()
        # players close to elimination are worth more: 3 / their territories, per target territory
        owner = s.owner
        n_terr = torch.zeros(s.batch_size, g.num_seats + 1, dtype=sit.arm.dtype, device=g.device)
        n_terr.scatter_add_(1, torch.where(owner >= 0, owner, g.num_seats), torch.ones_like(sit.arm))
        weak3 = 3.0 * torch.where(sit.hostile, 1.0 / n_terr.gather(1, owner.clamp(min=0)).clamp(min=1.0), 0.0)
        att = e.arm_src - 1.0  # (E, M) edge-major
        ok = e.mine_src & (e.arm_src >= 2) & e.enemy_dst & (att > e.arm_dst)
        ok &= (ss < 0)[None, :] | (es[:, None] == ss[None, :])  # a pending source: its own targets
        # (a - d) + 0.5 hostile is exact; the one rounding is adding the fraction, as the scalar agent does
        score = (att - e.arm_dst) + 0.5 * e.hostile_dst + weak3.T.contiguous().index_select(0, ed)
        j = _argmax0(score, ok)
        any_ok = ok.any(0)
        src, dst = es[j], ed[j]
        dice = torch.clamp(g._g(s.armies, torch.where(ss >= 0, ss, src)) - 1, max=3)
        roll = g.A_DICE + dice - 1
        again = mask[:, g.A_DICE] & (s.att_src == src) & (s.att_dst == dst)
        top = torch.where(any_ok, torch.where(again, roll, src), g.A_END)
        return torch.where(ss < 0, top, torch.where(sd < 0, dst, roll))

    def _occupy(self, s: BatchState, mask: torch.Tensor, sit: _Sit) -> torch.Tensor:
        """The whole stack forward if the conquest borders enemies (or the source borders none)."""
        g = self.game
        lo = g._g(s.armies, s.att_dst)
        hi = lo + g._g(s.armies, s.att_src) - 1
        fwd = g._g(sit.enemy_adj, s.att_dst) > 0
        back = g._g(sit.enemy_adj, s.att_src) > 0
        return amount_ids(g, lo, hi, torch.where(fwd | ~back, hi, lo))

    def _fortify(self, s: BatchState, mask: torch.Tensor, sit: _Sit) -> torch.Tensor:
        """The largest idle stack towards the front, else a rebalance between frontier territories."""
        g = self.game
        T = g.T
        M = s.batch_size
        dev = g.device
        armies, arm = s.armies, sit.arm
        mine, frontier, threat = sit.mine, sit.frontier, sit.threat
        ss, sd = s.sel_src, s.sel_dst
        # distance to the nearest enemy territory (0 there; T when none is reachable)
        dist = torch.where(sit.enemy, 0, T)
        for k in range(self.diameter):
            near = ((dist == k).to(arm.dtype) @ self.adj_t) > 0
            dist = torch.where(near & (dist == T), k + 1, dist)
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
            take = ~found & ok_t & closer.any(1)
            src = torch.where(take, t, src)
            dst = torch.where(take, _argmax(score, closer), dst)
            found |= take
        count = g._g(armies, src) - 1
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
        moving = found | rebalance
        # the sub-steps: source, target, then the amount (1 army for a plan that does not match)
        top = torch.where(moving, src, g.A_END)
        same = moving & (src == ss) & (dst == sd)
        src_armies = g._g(armies, ss)
        amount = amount_ids(g, torch.ones_like(src_armies), src_armies - 1, torch.where(same, count, 1))
        return torch.where(ss < 0, top, torch.where(sd < 0, dst, amount))


class _Edges:
    """Per-edge facts of a sub-batch, edge-major (``(E, M)``: each row one border, copied whole):
    the source's and target's sides and armies."""

    def __init__(self, policy: AggressivePolicy, sit: _Sit) -> None:
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
    simple fractions, exact or rounded alike), so both break no tie differently.
    """

    def __init__(self, policy: AggressivePolicy, s: BatchState) -> None:
        g = policy.game
        self.policy = policy
        owner = s.owner
        self.arm = s.armies.double()
        self.mine = owner == s.player[:, None]
        self.enemy = (owner >= 0) & ~self.mine
        self.hostile = self.enemy & (owner != g.neutral) if g.neutral >= 0 else self.enemy
        self.threat = (self.arm * self.hostile) @ policy.adj_t  # hostile armies next to each territory
        self.enemy_adj = self.enemy.double() @ policy.adj_t  # enemy territories next to each
        self.frontier = self.mine & (self.enemy_adj > 0)
        self._edges: _Edges | None = None

    def edges(self) -> _Edges:
        if self._edges is None:
            self._edges = _Edges(self.policy, self)
        return self._edges

    def own_nb(self) -> torch.Tensor:
        return self.mine.double() @ self.policy.adj_t


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
    if name == "aggressive":
        return AggressivePolicy(game)
    raise ConfigError(f"no batched policy named {name!r}; batched policies: 'random', {', '.join(map(repr, BATCHED_HEURISTICS))}")
