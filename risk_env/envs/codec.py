"""The action codec: one fixed ``Discrete(N)`` action space for every phase,
exact action masks, and the sub-step protocol that turns action ids into
complete :class:`~risk_env.rules.moves.Move` values.

Action layout (``T`` territories, ``K = 10`` amount levels):

=========================  ===========  ===============================================
ids                        block        meaning (by phase)
=========================  ===========  ===============================================
``0 .. T-1``               territory    claim / setup place / neutral place /
                                        reinforce: pick the territory (then an amount) /
                                        +2 bonus territory / attack source, then target /
                                        fortify source, then destination
``T .. T+K-1``             amount       level ``j``: ``lo + round_half_up(j * (hi - lo) / (K - 1))``
                                        armies, ``j = 0`` is the minimum, ``K - 1`` the maximum
``T+K .. T+K+2``           dice         attack with 1, 2, 3 dice; defend with 1, 2 dice
``T+K+3``                  blitz        roll until conquest or the source is down to 1
``T+K+4 .. T+K+16``        trade        trade a set of composition ``COMPOSITION_NAMES[i]``
                                        (absent when ``card_trade="no_cards"``)
last id                    end          end attack (also with a source or pair selected) /
                                        end turn (skip the fortify; also mid-selection)
=========================  ===========  ===============================================

Amount levels that would repeat the previous level's count are illegal, so
every legal amount id is a distinct count; when ``hi - lo + 1 <= K`` every
count is reachable. A sub-step whose only possible count is forced is skipped
(placing the last army, fortifying with 2 armies, occupying when nothing more
can move).

A trade id names a composition. When the +2 bonus is on offer and the hand
holds several cards of that composition's symbols showing owned territories,
the next decision picks the bonus territory (territory block); that card goes
into the set. The codec picks the other cards: those *not* showing an owned
territory first (keeping them for a later bonus), then the lowest card id. If the bonus has several candidate
territories the next decision picks one (territory block).

Continuing a battle takes one step: at the top of the attack phase the dice
and blitz ids also mean "roll again in the last battle" (``att_src -> att_dst``,
shown in the observation's ``selected`` block) while that attack is still
legal. There is no cancel: a selected source must get a target, and a pair
must roll, unless ``end`` ends the phase. So every turn ends after finitely many
decisions (each cycle rolls dice, places, or ends a phase), and the turn limit
always ends the game.
"""

from __future__ import annotations

import numpy as np

from ..errors import IllegalActionError, IllegalMoveError
from ..rules.cards import COMPOSITION_NAMES, COMPOSITIONS
from ..rules.engine import Game
from ..rules.moves import Move
from ..rules.state import GameState, Phase

__all__ = ["ActionCodec", "AMOUNT_LEVELS"]

AMOUNT_LEVELS = 10


def amount_of(level: int, lo: int, hi: int, levels: int = AMOUNT_LEVELS) -> int:
    """Armies meant by amount level ``level`` in ``[lo, hi]`` (half rounds up).

    >>> [amount_of(j, 1, 30) for j in range(10)]
    [1, 4, 7, 11, 14, 17, 20, 24, 27, 30]
    >>> [amount_of(j, 2, 4) for j in range(10)]
    [2, 2, 2, 3, 3, 3, 3, 4, 4, 4]
    """
    return lo + (2 * level * (hi - lo) + (levels - 1)) // (2 * (levels - 1))


class ActionCodec:
    """Maps action ids to moves for one :class:`~risk_env.rules.engine.Game`.

    Attributes:
        n: the action space size ``N``.
        territory, amount, dice, blitz, trade, end: first id of each block (``trade`` is -1 without cards).
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        T = game.T
        K = AMOUNT_LEVELS
        self.K = K
        self.territory = 0
        self.amount = T
        self.dice = T + K
        self.blitz = T + K + 3
        n_trade = len(COMPOSITIONS) if game.uses_cards else 0
        self.trade = T + K + 4 if n_trade else -1
        self.end = T + K + 4 + n_trade
        self.n = self.end + 1
        self._zeros = np.zeros(self.n, dtype=np.int8)
        self._edge_src = game.edge_src
        self._edge_dst = game.edge_dst
        self._symbols = np.array(game.card_symbol, dtype=np.int64) if game.uses_cards else np.zeros(0, np.int64)
        self._comp = np.array(COMPOSITIONS, dtype=np.int64) if n_trade else np.zeros((0, 4), np.int64)
        # Which amount levels are legal for a span hi-lo (levels whose count differs from the previous level).
        self._span_levels: dict[int, np.ndarray] = {}
        for span in range(0, 64):
            counts = [amount_of(j, 0, span, K) for j in range(K)]
            self._span_levels[span] = np.array([j == 0 or counts[j] != counts[j - 1] for j in range(K)], dtype=np.int8)
        self._span_full = np.ones(K, dtype=np.int8)

    # ------------------------------------------------------------------ text
    def action_to_string(self, s: GameState, action: int) -> str:
        """What ``action`` means in ``s`` (e.g. ``"select source Alaska"``, ``"amount 7"``)."""
        g = self.game
        a = int(action)
        if not 0 <= a < self.n:
            return f"invalid action {a} (ids are 0..{self.n - 1})"
        if a < self.amount:
            name = g.map.name_of(a)
            ph = s.phase
            if ph == Phase.CLAIM:
                return f"claim {name}"
            if ph == Phase.SETUP_PLACE:
                return f"neutral {name}" if s.setup_step == 2 else f"place {name} 1"
            if ph == Phase.REINFORCE:
                return f"bonus {name}" if s.sel_trade >= 0 else f"place on {name}"
            if ph in (Phase.ATTACK, Phase.FORTIFY):
                verb = "attack" if ph == Phase.ATTACK else "fortify"
                if s.sel_src >= 0:
                    return f"{verb} {g.map.name_of(s.sel_src)}->{name}"
                return f"{verb} from {name}"
            return f"territory {name}"
        if a < self.dice:
            span = self._span(s)
            level = a - self.amount
            return f"amount {amount_of(level, *span)}" if span else f"amount level {level}"
        if a < self.blitz:
            if s.phase == Phase.DEFEND:
                return f"defend dice={a - self.dice + 1}"
            pair = self._battle(s)
            return f"attack {pair} dice={a - self.dice + 1}" if pair else f"roll dice={a - self.dice + 1}"
        if a == self.blitz:
            pair = self._battle(s)
            return f"blitz {pair}" if pair else "blitz"
        if self.trade >= 0 and self.trade <= a < self.end:
            return f"trade {COMPOSITION_NAMES[a - self.trade]}"
        if s.phase == Phase.ATTACK:
            return "end attack"
        if s.phase == Phase.FORTIFY:
            return "end turn"
        return "end"

    def _battle(self, s: GameState) -> str:
        if s.phase != Phase.ATTACK:
            return ""
        if s.sel_dst >= 0:
            a, b = s.sel_src, s.sel_dst
        elif s.sel_src < 0 and self.can_continue(s):
            a, b = s.att_src, s.att_dst
        else:
            return ""
        name = self.game.map.name_of
        return f"{name(a)}->{name(b)}"

    def can_continue(self, s: GameState) -> bool:
        """Whether the last battle (``att_src -> att_dst``) may roll again from the top of the attack phase."""
        a, b = s.att_src, s.att_dst
        return a >= 0 and s.owner[a] == s.player and s.armies[a] >= 2 and s.owner[b] != s.player

    def _span(self, s: GameState) -> tuple[int, int] | None:
        ph = s.phase
        if ph == Phase.REINFORCE and s.sel_src >= 0:
            return 1, s.to_place
        if ph == Phase.OCCUPY:
            return self.game.occupy_range(s)
        if ph == Phase.FORTIFY and s.sel_dst >= 0:
            return 1, int(s.armies[s.sel_src]) - 1
        return None

    # ------------------------------------------------------------------ cards
    def bonus_options(self, s: GameState, comp: int) -> list[int]:
        """Owned territories whose card could be in a ``comp`` trade and take the +2 bonus now."""
        g = self.game
        if not g.uses_cards or (g.config.territory_bonus == "once_per_turn" and s.bonus_used):
            return []
        p, T, sym = s.player, g.T, g.card_symbol
        need = COMPOSITIONS[comp]
        return sorted(c for c in s.hands[p] if c < T and s.owner[c] == p and need[sym[c]] > 0)

    def pick_cards(self, s: GameState, comp: int, bonus: int = -1) -> tuple[int, ...] | None:
        """The cards the codec trades for composition ``comp``, or None if the hand lacks it.

        The card of the +2 bonus territory ``bonus`` goes in first (by default
        the lowest of :meth:`bonus_options`, if any); the other cards are
        chosen among those *not* showing an owned territory first (keeping
        them for a later bonus), then by lowest card id.
        """
        g = self.game
        p = s.player
        need = list(COMPOSITIONS[comp])
        owner, T, sym = s.owner, g.T, g.card_symbol
        hand = sorted(s.hands[p])
        chosen: list[int] = []
        if bonus < 0:
            opts = self.bonus_options(s, comp)
            bonus = opts[0] if opts else -1
        if bonus >= 0:
            if bonus not in hand or need[sym[bonus]] == 0:
                return None
            need[sym[bonus]] -= 1
            chosen.append(bonus)
        for c in sorted(hand, key=lambda c: (c < T and owner[c] == p, c)):
            if need[sym[c]] > 0 and c not in chosen:
                need[sym[c]] -= 1
                chosen.append(c)
        if any(need):
            return None
        return tuple(sorted(chosen))

    def _hand_comps(self, s: GameState) -> np.ndarray:
        hand = s.hands[s.player]
        if len(hand) < 3:
            return np.zeros(len(COMPOSITIONS), dtype=np.int8)
        counts = np.bincount(self._symbols[hand], minlength=4)
        return (self._comp <= counts).all(axis=1).astype(np.int8)

    # ------------------------------------------------------------------ mask
    def mask(self, s: GameState) -> np.ndarray:
        """int8 ``(N,)``: 1 where stepping the action id is accepted in ``s`` (for the seat :meth:`Game.current_player` names)."""
        g = self.game
        m = self._zeros.copy()
        ph = s.phase
        T = g.T
        owner = s.owner
        p = s.player
        if ph == Phase.ATTACK:
            if s.sel_src < 0:
                es, ed = self._edge_src, self._edge_dst
                ok = (owner[es] == p) & (s.armies[es] >= 2) & (owner[ed] != p)
                m[es[ok]] = 1
                m[self.end] = 1
                if self.can_continue(s):
                    m[self.dice : self.dice + min(3, int(s.armies[s.att_src]) - 1)] = 1
                    m[self.blitz] = 1
            elif s.sel_dst < 0:
                m[:T] = g.adjacency[s.sel_src] & (owner != p)
                m[self.end] = 1
            else:
                m[self.dice : self.dice + min(3, int(s.armies[s.sel_src]) - 1)] = 1
                m[self.blitz] = 1
                m[self.end] = 1
        elif ph == Phase.REINFORCE:
            if s.sel_trade >= 0:
                for t in self.bonus_options(s, s.sel_trade):
                    m[t] = 1
            elif s.sel_src >= 0:
                m[self.amount : self.dice] = self._levels(1, s.to_place)
            else:
                if g.can_trade(s):
                    m[self.trade : self.end] = self._hand_comps(s)
                if g.can_place(s):
                    m[:T] = owner == p
        elif ph == Phase.FORTIFY:
            if s.sel_src < 0:
                own = owner == p
                if g.config.fortify == "adjacent":
                    es, ed = self._edge_src, self._edge_dst
                    ok = own[es] & (s.armies[es] >= 2) & own[ed]
                    m[es[ok]] = 1
                else:
                    for a in np.flatnonzero(own & (s.armies >= 2)):
                        if g.neighbors and any(own[v] for v in g.neighbors[a]):
                            m[a] = 1
                m[self.end] = 1
            elif s.sel_dst < 0:
                m[:T] = g.fortify_reach(s, s.sel_src)
                m[self.end] = 1
            else:
                m[self.amount : self.dice] = self._levels(1, int(s.armies[s.sel_src]) - 1)
                m[self.end] = 1
        elif ph == Phase.CLAIM:
            m[:T] = owner == -1
        elif ph == Phase.SETUP_PLACE:
            m[:T] = owner == (g.neutral if s.setup_step == 2 else p)
        elif ph == Phase.OCCUPY:
            m[self.amount : self.dice] = self._levels(*g.occupy_range(s))
        elif ph == Phase.DEFEND:
            m[self.dice : self.dice + min(2, int(s.armies[s.att_dst]))] = 1
        return m

    def _levels(self, lo: int, hi: int) -> np.ndarray:
        span = hi - lo
        if span < 0:
            return np.zeros(self.K, dtype=np.int8)
        return self._span_levels.get(span, self._span_full)

    # ------------------------------------------------------------------ step
    def _reject(self, s: GameState, action: int, why: str) -> IllegalActionError:
        legal = np.flatnonzero(self.mask(s))
        shown = ", ".join(f"{int(i)} ({self.action_to_string(s, int(i))})" for i in legal[:12])
        more = f" and {len(legal) - 12} more" if len(legal) > 12 else ""
        ph = Phase(s.phase).name.lower()
        return IllegalActionError(
            f"action {action} ({self.action_to_string(s, action)}) is illegal in phase {ph}: {why}. Legal ids: {shown}{more}"
        )

    def decode(self, s: GameState, action: int) -> Move | tuple[str, int]:
        """Interpret ``action`` in ``s`` without changing it: a complete :class:`Move`, or a
        pending selection ``("src" | "dst" | "trade", value)``.

        Raises:
            IllegalActionError: the id is out of range, not an int, or structurally illegal here.
        """
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"an action must be an integer id in 0..{self.n - 1}, got {action!r}")
        a = int(action)
        if not 0 <= a < self.n:
            raise IllegalActionError(f"action id {a} is out of range: ids are 0..{self.n - 1}")
        g = self.game
        T = g.T
        ph = s.phase
        is_terr = a < T
        if ph == Phase.GAME_OVER:
            raise IllegalActionError("the game is over; no action is legal")
        if ph == Phase.CLAIM and is_terr:
            return Move.claim(a)
        if ph == Phase.SETUP_PLACE and is_terr:
            return Move.place_neutral(a) if s.setup_step == 2 else Move.place(a, 1)
        if ph == Phase.REINFORCE:
            if s.sel_trade >= 0:
                if is_terr:
                    if a not in self.bonus_options(s, s.sel_trade):
                        raise self._reject(s, a, f"{g.map.name_of(a)} cannot take the +2 bonus of this trade")
                    return Move.trade(self.pick_cards(s, s.sel_trade, a) or (), a)
            elif s.sel_src >= 0:
                if self.amount <= a < self.dice:
                    return self._amount_move(s, a, 1, s.to_place, lambda n: Move.place(s.sel_src, n))
            elif is_terr:
                if not g.can_place(s) or s.owner[a] != s.player:
                    raise self._reject(s, a, "reinforcements go on your own territories, and only when no trade is forced")
                return Move.place(a, 1) if s.to_place == 1 else ("src", a)
            elif self.trade >= 0 and self.trade <= a < self.end:
                comp = a - self.trade
                cards = self.pick_cards(s, comp)
                if cards is None or not g.can_trade(s):
                    raise self._reject(s, a, f"no {COMPOSITION_NAMES[comp]} set can be traded now")
                opts = self.bonus_options(s, comp)
                if len(opts) > 1:
                    return ("trade", comp)
                return Move.trade(cards, opts[0] if opts else -1)
        elif ph == Phase.ATTACK:
            if a == self.end:
                return Move.end_attack()
            if s.sel_src < 0:
                if is_terr:
                    if not g.attack_targets(s, a):
                        raise self._reject(s, a, f"{g.map.name_of(a)} cannot attack (needs 2+ armies and an enemy neighbour)")
                    return ("src", a)
                if self.dice <= a <= self.blitz:
                    if not self.can_continue(s):
                        raise self._reject(s, a, "there is no battle to continue; select a source territory first")
                    src, dst = s.att_src, s.att_dst
                    return Move.blitz(src, dst) if a == self.blitz else Move.attack(src, dst, a - self.dice + 1)
            elif s.sel_dst < 0:
                if is_terr:
                    if a not in g.attack_targets(s, s.sel_src):
                        raise self._reject(s, a, f"{g.map.name_of(s.sel_src)} cannot attack {g.map.name_of(a)}")
                    return ("dst", a)
            else:
                if self.dice <= a < self.blitz:
                    return Move.attack(s.sel_src, s.sel_dst, a - self.dice + 1)
                if a == self.blitz:
                    return Move.blitz(s.sel_src, s.sel_dst)
        elif ph == Phase.DEFEND:
            if self.dice <= a < self.dice + 2:
                return Move.defend(a - self.dice + 1)
        elif ph == Phase.OCCUPY:
            if self.amount <= a < self.dice:
                lo, hi = g.occupy_range(s)
                return self._amount_move(s, a, lo, hi, Move.occupy)
        elif ph == Phase.FORTIFY:
            if a == self.end:
                return Move.end_turn()
            if s.sel_src < 0:
                if is_terr:
                    if s.owner[a] != s.player or s.armies[a] < 2 or not g.fortify_reach(s, a).any():
                        raise self._reject(
                            s, a, f"{g.map.name_of(a)} cannot fortify (needs 2+ armies and a reachable own territory)"
                        )
                    return ("src", a)
            elif s.sel_dst < 0:
                if is_terr:
                    if s.owner[a] != s.player or not g.fortify_reach(s, s.sel_src)[a]:
                        raise self._reject(s, a, f"{g.map.name_of(s.sel_src)} cannot fortify {g.map.name_of(a)}")
                    if s.armies[s.sel_src] == 2:
                        return Move.fortify(s.sel_src, a, 1)
                    return ("dst", a)
            elif self.amount <= a < self.dice:
                src, dst = s.sel_src, s.sel_dst
                return self._amount_move(s, a, 1, int(s.armies[src]) - 1, lambda n: Move.fortify(src, dst, n))
        raise self._reject(s, a, "this id has no meaning at this decision")

    def _amount_move(self, s: GameState, a: int, lo: int, hi: int, make) -> Move:  # type: ignore[no-untyped-def]
        level = a - self.amount
        if not self._levels(lo, hi)[level]:
            raise self._reject(s, a, f"amount level {level} repeats a lower level's count in {lo}..{hi}")
        return make(amount_of(level, lo, hi, self.K))

    def step(self, s: GameState, action: int) -> Move | None:
        """Apply ``action`` to ``s`` in place; return the completed :class:`Move`, or None for a sub-step.

        Raises:
            IllegalActionError: the action is illegal; ``s`` is unchanged.
        """
        res = self.decode(s, action)
        if isinstance(res, Move):
            try:
                self.game.apply(s, res)
            except IllegalMoveError as e:
                raise IllegalActionError(f"action {int(action)} ({self.action_to_string(s, int(action))}): {e}") from None
            return res
        kind, value = res
        if kind == "src":
            s.sel_src = value
        elif kind == "dst":
            s.sel_dst = value
        else:
            s.sel_trade = value
        return None
