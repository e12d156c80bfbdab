"""Shared machinery of the scripted (heuristic) agents.

:class:`HeuristicAgent` splits a decision by phase (claim, setup placement,
neutral placement, trade, placement, attack, defence, occupation, fortify)
and gives each a reasonable default; the shipped agents
(:mod:`.aggressive`, :mod:`.continent`, :mod:`.balanced`) override the parts
that make their strategy. Every decision starts from a :class:`Situation`
(numpy arrays of the position from the agent's seat) built from the
:class:`~risk_env.envs.view.GameView`; no hidden information is read (own hand,
card counts of others, the board).

Ties are broken by a small random jitter from the agent's seeded generator,
so two agents with different seeds play different games and the same seed
replays the same game.
"""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np

from risk_env.envs.view import GameView
from risk_env.rules.cards import MAX_STARS, composition_of
from risk_env.rules.dice import resolve_roll
from risk_env.rules.engine import Game
from risk_env.rules.missions import MISSIONS
from risk_env.rules.moves import Move, MoveKind
from risk_env.rules.odds import OddsTable
from risk_env.rules.state import Phase

from .base import ScriptedAgent

__all__ = ["Board", "Situation", "HeuristicAgent", "win_probability", "win_probabilities", "variant_values"]

_ODDS_MAX = 100
_W: np.ndarray | None = None


def _table() -> np.ndarray:
    global _W
    if _W is None:
        _W = np.asarray(OddsTable(_ODDS_MAX, _ODDS_MAX).win_matrix(), dtype=np.float64)
    return _W


def win_probabilities(attackers: np.ndarray, defenders: np.ndarray) -> np.ndarray:
    """Exact probability (:mod:`risk_env.rules.odds`) that ``attackers`` armies that may roll
    (the source's armies minus the one left behind) conquer ``defenders``, elementwise.

    Counts above 100 are scaled down together to fit the precomputed 100 x 100 table
    (an approximation that keeps their ratio; such battles are one-sided anyway).
    Returns float64 of the broadcast shape.
    """
    a = np.asarray(attackers, dtype=np.float64)
    d = np.asarray(defenders, dtype=np.float64)
    a, d = np.broadcast_arrays(a, d)
    big = np.maximum(np.maximum(a, d), 1.0)
    f = np.where(big > _ODDS_MAX, _ODDS_MAX / big, 1.0)
    ai = np.clip(np.rint(a * f), 0, _ODDS_MAX).astype(np.int64)
    di = np.clip(np.rint(d * f), 0, _ODDS_MAX).astype(np.int64)
    di = np.where((d > 0) & (di == 0), 1, di)
    return _table()[ai, di]


def win_probability(attackers: int, defenders: int) -> float:
    """Scalar form of :func:`win_probabilities`."""
    return float(win_probabilities(np.array(attackers), np.array(defenders)))


class Board:
    """Static facts of a map that the heuristics use (computed once per :class:`Game`).

    Attributes:
        T: territories; C: continents.
        adj: float64 ``(T, T)`` adjacency (for matrix products).
        cont_of: int64 ``(T,)`` continent of each territory.
        members: list of int64 arrays, territories per continent.
        bonus, size: int64 ``(C,)``.
        entries: per continent, its territories that border another continent.
        appeal: float64 ``(C,)``: bonus / (territories x entry territories): how
            cheaply a continent's bonus is taken and held (on the classic map
            Australia 0.5, South America 0.25, North America 0.19, Europe 0.18,
            Africa 0.17, Asia 0.12).
    """

    def __init__(self, game: Game) -> None:
        m = game.map
        self.game = game
        self.T = game.T
        self.neighbors = game.neighbors
        self.adj = game.adjacency.astype(np.float64)
        self.edge_src = game.edge_src
        self.edge_dst = game.edge_dst
        self.cont_of = np.asarray(m.territory_continent, dtype=np.int64)
        self.members = [np.asarray(i, dtype=np.int64) for i in game.continent_idx]
        self.C = len(self.members)
        self.bonus = np.asarray(game.continent_bonus, dtype=np.int64)
        self.size = np.array([len(i) for i in self.members], dtype=np.int64)
        self.entries = [
            np.array([t for t in idx if any(self.cont_of[u] != c for u in self.neighbors[t])], dtype=np.int64)
            for c, idx in enumerate(self.members)
        ]
        n_entries = np.array([max(1, len(e)) for e in self.entries], dtype=np.float64)
        self.appeal = self.bonus / (self.size * n_entries)
        self.is_entry = np.zeros(self.T, dtype=bool)
        for e in self.entries:
            self.is_entry[e] = True


class Situation:
    """The position from one seat, as arrays (built once per decision).

    Attributes:
        me: the seat; owner (int8 ``(T,)``), armies (int64 ``(T,)``).
        mine: bool ``(T,)``; enemy: not mine (neutral included); hostile: owned by
            another *player* (the 2-player neutral never attacks).
        threat: float64 ``(T,)``: hostile armies adjacent to each territory.
        enemy_adj: float64 ``(T,)``: enemy territories adjacent.
        frontier: bool ``(T,)``: mine with an enemy neighbour.
        dist: int64 ``(T,)``: graph distance to the nearest enemy territory
            (0 for enemy territories; ``T`` if none is reachable).
        territories: territories per owner id (players, then the neutral slot).
        armies_of: armies per owner id.
        held: continents ``me`` owns entirely; their_held: continent -> owner for
            continents another player owns entirely.
    """

    def __init__(self, board: Board, view: GameView) -> None:
        s = view.state
        game = view.game
        self.board = board
        self.view = view
        self.me = me = view.seat
        self.owner = owner = s.owner
        self.armies = armies = s.armies.astype(np.int64)
        self.mine = mine = owner == me
        claimed = owner >= 0
        self.enemy = enemy = claimed & ~mine
        neutral = game.neutral
        self.hostile = hostile = enemy & (owner != neutral) if neutral >= 0 else enemy
        self.threat = board.adj @ (armies * hostile)
        self.enemy_adj = board.adj @ enemy.astype(np.float64)
        self.frontier = mine & (self.enemy_adj > 0)
        slots = game.num_seats
        own_idx = np.where(claimed, owner, slots).astype(np.int64)
        self.territories = np.bincount(own_idx, minlength=slots + 1)[:slots]
        self.armies_of = np.bincount(own_idx, weights=armies, minlength=slots + 1)[:slots]
        self.held: list[int] = []
        self.their_held: dict[int, int] = {}
        for c, idx in enumerate(board.members):
            o = owner[idx]
            if o[0] >= 0 and (o == o[0]).all():
                if o[0] == me:
                    self.held.append(c)
                elif o[0] != neutral:
                    self.their_held[c] = int(o[0])
        self._dist: np.ndarray | None = None

    @property
    def dist(self) -> np.ndarray:
        if self._dist is None:
            b = self.board
            dist = np.full(b.T, b.T, dtype=np.int64)
            q: deque[int] = deque()
            for t in np.flatnonzero(self.enemy):
                dist[t] = 0
                q.append(int(t))
            nb = b.neighbors
            while q:
                u = q.popleft()
                du = dist[u] + 1
                for v in nb[u]:
                    if dist[v] > du:
                        dist[v] = du
                        q.append(v)
            self._dist = dist
        return self._dist

    def attack_pairs(self, min_armies: int = 2) -> tuple[np.ndarray, np.ndarray]:
        """``(src, dst)`` int64 arrays of every border from an own territory with at least
        ``min_armies`` armies to an enemy territory."""
        b = self.board
        es, ed = b.edge_src, b.edge_dst
        ok = self.mine[es] & (self.armies[es] >= min_armies) & self.enemy[ed]
        return es[ok], ed[ok]


class HeuristicAgent(ScriptedAgent):
    """Base of the shipped heuristic agents: one method per kind of decision.

    Override :meth:`claim`, :meth:`place_target`, :meth:`place_neutral`,
    :meth:`want_trade`, :meth:`place`, :meth:`attack`, :meth:`occupy` and
    :meth:`fortify` (each documented below); :meth:`choose_move` dispatches.
    """

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._board: Board | None = None

    # ------------------------------------------------------------------ dispatch
    def board(self, game: Game) -> Board:
        if self._board is None or self._board.game is not game:
            self._board = Board(game)
        return self._board

    def jitter(self, n: int, scale: float = 1e-3) -> np.ndarray:
        """Small random tie-breakers from the agent's generator."""
        return self.rng.random(n) * scale

    def choose_move(self, view: GameView) -> Move:
        sit = Situation(self.board(view.game), view)
        ph = view.phase
        if ph == Phase.CLAIM:
            return Move.claim(self.claim(sit))
        if ph == Phase.SETUP_PLACE:
            if view.placing_neutral:
                return Move.place_neutral(self.place_neutral(sit))
            return Move.place(self.place_target(sit, 1), 1)
        if ph == Phase.REINFORCE:
            s = view.state
            if view.game.can_trade(s):
                trade = self.best_trade(sit)
                if trade is not None and (s.forced or not view.game.can_place(s) or self.want_trade(sit, trade)):
                    return trade
            t, n = self.place(sit)
            return Move.place(t, n)
        if ph == Phase.ATTACK and view.state.roll_pending:
            return self.change_roll(sit)
        if ph == Phase.ATTACK:
            return self.attack(sit) or Move.end_attack()
        if ph == Phase.DEFEND:
            return Move.defend(self.defend(sit))
        if ph == Phase.OCCUPY:
            lo, hi = view.occupy_range()
            return Move.occupy(min(max(int(self.occupy(sit, lo, hi)), lo), hi))
        if ph == Phase.FORTIFY:
            return self.fortify(sit) or Move.end_turn()
        if ph == Phase.CAPITAL:
            return Move.capital(self.capital(sit))
        raise RuntimeError(f"no decision in phase {ph!r}")

    # ------------------------------------------------------------------ the expert dice rules
    def change_roll(self, sit: Situation) -> Move:
        """A roll waits under the expert dice rules (docs/rules.md §8): the re-roll or six that
        most raises the expected (defender losses - attacker losses) of the roll, counting a
        re-roll's six equally likely faces; ``keep roll`` unless one improves it."""
        view = sit.view
        s = view.state
        att = s.att_dice
        mine, theirs = list(s.last_roll[:att]), list(s.last_roll[att + 1 :])

        def margin(faces: list[int]) -> float:
            al, dl = resolve_roll(faces, theirs)
            return float(dl - al)

        best, best_gain = Move.keep_roll(), 1e-9
        base = margin(mine)
        for m in view.game.legal_moves(s):
            j = m.count - 1
            if m.kind == MoveKind.SIX:
                gain = margin(mine[:j] + [6] + mine[j + 1 :]) - base
            elif m.kind == MoveKind.REROLL:
                gain = sum(margin(mine[:j] + [f] + mine[j + 1 :]) for f in range(1, 7)) / 6.0 - base
            else:
                continue
            if gain > best_gain:
                best, best_gain = m, gain
        return best

    # ------------------------------------------------------------------ setup
    def claim(self, sit: Situation) -> int:
        """Territory to claim: next to own territories, in an appealing continent, few enemies around."""
        b = sit.board
        free = np.flatnonzero(sit.owner == -1)
        own_nb = b.adj[free] @ sit.mine.astype(np.float64)
        foe_nb = b.adj[free] @ sit.enemy.astype(np.float64)
        score = own_nb - 0.5 * foe_nb + 4.0 * b.appeal[b.cont_of[free]] + self.jitter(len(free))
        return int(free[np.argmax(score)])

    def place_target(self, sit: Situation, n: int) -> int:
        """Own territory to receive ``n`` armies (setup placement; default placement)."""
        return self.strongest_base(sit)

    def place_neutral(self, sit: Situation) -> int:
        """Neutral territory to receive the neutral's setup army (2-player game, docs/rules.md §7):
        one that stands between the opponent and us, next to many opponent territories."""
        b = sit.board
        cand = np.flatnonzero(sit.owner == sit.view.neutral)
        foe = b.adj[cand] @ sit.hostile.astype(np.float64)
        own = b.adj[cand] @ sit.mine.astype(np.float64)
        score = foe + 0.5 * own + self.jitter(len(cand))
        return int(cand[np.argmax(score)])

    def capital(self, sit: Situation) -> int:
        """Own territory to make the capital (``capitals=True``, docs/rules.md §8): the one
        hardest to reach: farthest from enemy territories, then most armies, then least threat."""
        own = np.flatnonzero(sit.mine)
        score = 10.0 * sit.dist[own] + sit.armies[own] - 0.5 * sit.threat[own] + self.jitter(len(own))
        return int(own[np.argmax(score)])

    # ------------------------------------------------------------------ cards
    def best_trade(self, sit: Situation) -> Move | None:
        """The most valuable set in hand (value, +2 if the +2 bonus is on offer for it, fewer
        wilds used), with the bonus on the most threatened option; None if no set. The cards are
        the ones the action codec would trade (:meth:`ActionCodec.pick_cards`)."""
        view = sit.view
        game = view.game
        codec = view.codec
        s = view.state
        hand = view.hand
        if game.trade_variant is not None:  # cards traded another way: by stars (docs/rules.md §6)
            return self.best_stars_trade(sit)
        if len(hand) < 3:
            return None
        sym = game.card_symbol
        comps = sorted({composition_of([sym[c] for c in trio]) for trio in itertools.combinations(hand, 3)} - {-1})
        best, best_score = None, -1.0
        for comp in comps:
            opts = codec.bonus_options(s, comp)
            bonus = max(opts, key=lambda t: (sit.threat[t] + 5 * sit.frontier[t], -t)) if opts else -1
            cards = codec.pick_cards(s, comp, bonus)
            if cards is None:
                continue
            value = view.next_trade_value(comp)
            wilds = sum(1 for c in cards if sym[c] == 3)
            score = value + (2.0 if opts else 0.0) - 0.5 * wilds
            if score > best_score:
                best, best_score = Move.trade(cards, bonus), score
        return best

    def best_stars_trade(self, sit: Situation) -> Move | None:
        """Under ``card_trade="stars"`` (docs/rules.md §6; no trade is ever forced): the largest
        star total the hand can make, once it is the full 10 stars or the hand holds 6 or more
        cards (the value per star grows with the total, so small trades waste cards); else None."""
        view = sit.view
        trades = view.game.trade_variant
        feasible = [m.count for m in trades.trade_moves(view.state)] if trades is not None else []
        if not feasible or (max(feasible) < MAX_STARS and len(view.hand) < 6):
            return None
        return Move.trade_stars(max(feasible))

    def want_trade(self, sit: Situation, trade: Move) -> bool:
        """Trade now when not forced? Default: yes, at once."""
        return True

    # ------------------------------------------------------------------ reinforce
    def place(self, sit: Situation) -> tuple[int, int]:
        """``(territory, armies)`` for the next placement of the reinforce phase; default: all on
        :meth:`place_target`."""
        n = sit.view.to_place
        return self.place_target(sit, n), n

    def strongest_base(self, sit: Situation, extra: int = 0, prefer_players: float = 1.0) -> int:
        """The frontier territory from which the best attack starts: largest
        ``armies + extra - 1 - weakest enemy neighbour`` (an own territory if there is no frontier)."""
        src, dst = sit.attack_pairs(min_armies=1)
        if len(src) == 0:
            return int(np.flatnonzero(sit.mine)[0])
        margin = sit.armies[src] + extra - 1 - sit.armies[dst] + prefer_players * sit.hostile[dst]
        margin = margin + self.jitter(len(src))
        return int(src[np.argmax(margin)])

    # ------------------------------------------------------------------ battle
    def attack(self, sit: Situation) -> Move | None:
        """The next attack roll, or None to stop attacking. Default: never attack."""
        return None

    def defend(self, sit: Situation) -> int:
        """Dice to defend with (``defender_dice="choose"``): the most allowed."""
        s = sit.view.state
        return int(min(2, s.armies[s.att_dst]))

    def occupy(self, sit: Situation, lo: int, hi: int) -> int:
        """Armies to stand in the conquered territory (``lo..hi``). Default: split by threat:
        all forward if the source no longer borders an enemy, the minimum if the new
        territory borders none, else in proportion to the enemies each faces."""
        s = sit.view.state
        a, b = s.att_src, s.att_dst
        total = hi + 1  # armies in source + target that can be split (one stays in the source)
        src_exposed = sit.enemy_adj[a] > 0
        dst_exposed = sit.enemy_adj[b] > 0
        if not src_exposed:
            return hi
        if not dst_exposed:
            return lo
        wa = sit.threat[a] + 1.0
        wb = sit.threat[b] + 1.0 + 2.0 * sit.enemy_adj[b]
        return int(round(total * wb / (wa + wb)))

    def attack_move(self, sit: Situation, src: int, dst: int) -> Move:
        """Roll the most dice from ``src`` at ``dst``."""
        return Move.attack(int(src), int(dst), int(min(3, sit.armies[src] - 1)))

    # ------------------------------------------------------------------ fortify
    def fortify(self, sit: Situation) -> Move | None:
        """Default: move the largest stack that faces no enemy towards the front
        (to the reachable own territory nearest an enemy, most threatened first)."""
        view = sit.view
        game = view.game
        s = view.state
        dist = sit.dist
        cand = np.flatnonzero(sit.mine & (sit.armies >= 2) & ~sit.frontier)
        if len(cand) == 0:
            return self.rebalance(sit)
        order = cand[np.argsort(-(sit.armies[cand] + self.jitter(len(cand))), kind="stable")]
        for src in order[:4].tolist():
            reach = np.flatnonzero(game.fortify_reach(s, src))
            if len(reach) == 0:
                continue
            closer = reach[dist[reach] < dist[src]]
            if len(closer) == 0:
                continue
            score = -dist[closer] * 100.0 + sit.threat[closer] - sit.armies[closer] * 0.1 + self.jitter(len(closer))
            dst = int(closer[np.argmax(score)])
            return Move.fortify(src, dst, int(sit.armies[src]) - 1)
        return self.rebalance(sit)

    def rebalance(self, sit: Situation) -> Move | None:
        """Move surplus between two frontier territories: from the one with most armies
        beyond its threat to a reachable one short of its threat."""
        view = sit.view
        game = view.game
        s = view.state
        front = np.flatnonzero(sit.frontier & (sit.armies >= 3))
        if len(front) == 0:
            return None
        surplus = sit.armies - sit.threat
        best = None
        best_gain = 2.0
        for src in front.tolist():
            give = int(min(sit.armies[src] - 1, np.floor(surplus[src] / 2)))
            if give < 1:
                continue
            reach = np.flatnonzero(game.fortify_reach(s, src) & sit.frontier)
            if len(reach) == 0:
                continue
            need = sit.threat[reach] - sit.armies[reach]
            j = int(np.argmax(need))
            gain = min(give, need[j])
            if gain > best_gain:
                best_gain = gain
                best = Move.fortify(src, int(reach[j]), int(max(1, min(give, np.ceil(need[j])))))
        return best

    # ------------------------------------------------------------------ shared strategy bits
    def continent_scores(self, sit: Situation) -> np.ndarray:
        """float64 ``(C,)``: how attractive each continent is to take now: its
        :attr:`Board.appeal` scaled by the share already owned and by our armies
        against the enemies' inside; 0 for continents held."""
        b = sit.board
        score = np.zeros(b.C)
        for c, idx in enumerate(b.members):
            if c in sit.held:
                continue
            mine = sit.mine[idx]
            share = mine.mean()
            foes = float(sit.armies[idx][~mine].sum())
            ours = float(sit.armies[idx][mine].sum())
            # reachability: our armies next to the continent count too
            near = float((b.adj[idx] @ (sit.armies * sit.mine)).sum()) * 0.25
            score[c] = b.appeal[c] * (0.3 + share) ** 2 * (ours + near + 1.0) / (foes + 1.0)
        return score

    def held_border_deficits(self, sit: Situation) -> tuple[np.ndarray, np.ndarray]:
        """Entry territories of held continents that face enemies, and how many armies each
        lacks to match the hostile armies next to it (may be <= 0)."""
        b = sit.board
        found = {int(t) for c in sit.held for t in b.entries[c] if sit.frontier[t]}
        caps = sit.view.capitals
        if caps and caps[sit.me] >= 0 and sit.frontier[caps[sit.me]]:
            found.add(caps[sit.me])  # the own capital is guarded like a continent entrance (§8)
        ts = np.array(sorted(found), dtype=np.int64)
        if len(ts) == 0:
            return ts, np.zeros(0)
        return ts, sit.threat[ts] + 2.0 - sit.armies[ts]


def hunting_values(sit: Situation) -> np.ndarray:
    """float64 ``(num_seats,)``: how much each opponent is worth hunting: players near
    elimination, more so when their cards would pass to us (docs/rules.md §4.2)."""
    view = sit.view
    n = view.num_players
    out = np.zeros(view.game.num_seats)
    cards = view.card_counts
    for p in range(n):
        if p == sit.me or not view.alive[p]:
            continue
        terr = sit.territories[p]
        if terr == 0:
            continue
        weak = max(0.0, 6.0 - terr) / 6.0  # 1 territory: 0.83, 6+: 0
        out[p] = weak * (1.0 + 0.6 * cards[p]) * 4.0
    return out


def variant_values(sit: Situation, dst: np.ndarray) -> np.ndarray:
    """float64 ``(len(dst),)``: extra value of conquering each territory in ``dst`` under the
    variants of docs/rules.md §8 (0 without them).

    * Secret missions (only the agent's own, :attr:`GameView.my_mission`): +2 for a
      territory of a continent the mission names (+1 for the other continent of a
      "plus one" mission: the one with most of our territories), +4 when the conquest
      completes such a continent; +0.6 for any conquest under a territory-count
      mission (+0.4 more when it keeps 2 armies behind under "18 with 2 armies");
      +2.5 for a territory of the player to destroy, +6 for its last one.
    * Capitals: +3 for another player's capital, +8 when it is the last capital we lack.
    """
    view = sit.view
    b = sit.board
    out = np.zeros(len(dst))
    if len(dst) == 0:
        return out
    m = view.my_mission
    if m >= 0:
        mission = MISSIONS[m]
        if mission.kind == "continents":
            names = view.game.map.continent_names
            need = [names.index(c) for c in mission.continents]
            weight = {c: 2.0 for c in need}
            if mission.plus_one:
                others = [c for c in range(b.C) if c not in need]
                best = max(others, key=lambda c: (sit.mine[b.members[c]].mean(), -b.size[c]))
                weight[best] = 1.0
            for i, t in enumerate(dst.tolist()):
                c = int(b.cont_of[t])
                if c in weight:
                    out[i] += weight[c]
                    idx = b.members[c]
                    if sit.mine[idx[idx != t]].all():
                        out[i] += 4.0
        elif mission.kind == "territories":
            out += 0.6
            if mission.min_armies > 1:
                out += 0.4
        elif mission.kind == "destroy":
            x = mission.target
            hit = sit.owner[dst] == x
            out += np.where(hit, 2.5, 0.0)
            if sit.territories[x] == 1:
                out += np.where(hit, 6.0, 0.0)
    caps = view.capitals
    if caps and min(caps) >= 0:
        lacking = [c for c in caps if not sit.mine[c]]
        for i, t in enumerate(dst.tolist()):
            if t in caps and not sit.mine[t]:
                out[i] += 8.0 if len(lacking) == 1 else 3.0
    return out
