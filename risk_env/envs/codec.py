"""The action codec: one fixed ``Discrete(N)`` action space for every phase,
exact action masks, and the sub-step protocol that turns action ids into
complete :class:`~risk_env.rules.moves.Move` values.

Action layout (``T`` territories, ``K = 10`` amount levels; the blocks are those of
:func:`risk_env.envs.layout.action_layout`, the decisions those of
:data:`risk_env.envs.layout.PROTOCOL`, and :attr:`ActionCodec.layout` holds them):

=========================  ===========  ===============================================
ids                        block        meaning (by phase)
=========================  ===========  ===============================================
``0 .. T-1``               territory    claim / setup place / neutral place / capital /
                                        reinforce: pick the territory (then an amount) /
                                        +2 bonus territory / attack source, then target /
                                        fortify source, then destination
``T .. T+K-1``             amount       level ``j``: ``lo + round_half_up(j * (hi - lo) / (K - 1))``
                                        armies, ``j = 0`` is the minimum, ``K - 1`` the maximum
``T+K .. T+K+2``           dice         attack with 1, 2, 3 dice; defend with 1, 2 dice
``T+K+3``                  blitz        roll until conquest or the source is down to 1
``T+K+4 .. T+K+16``        trade        trade a set of composition ``COMPOSITION_NAMES[i]``
                                        (absent when ``card_trade="no_cards"``);
                                        under ``card_trade="stars"`` 9 ids
                                        ``T+K+4 .. T+K+12``: trade cards worth
                                        ``2 + i`` stars (the rules pick the cards)
then, under the expert     dice rule    ``reroll_with_card``: 3 ids, re-roll the ``j``-th
dice rules only                         highest attack die of the pending roll; ``die_to_six``:
                                        3 ids, turn the ``j``-th highest into a six; then
                                        1 id: let the roll stand (``keep roll``)
last id                    end          end attack (also with a source or pair selected) /
                                        end turn (skip the fortify; also mid-selection)
=========================  ===========  ===============================================

Amount levels that would repeat the previous level's count are illegal, so
every legal amount id is a distinct count; when ``hi - lo + 1 <= K`` every
count is reachable. A sub-step whose only possible count is forced is skipped
(placing the last army, fortifying with 2 armies, occupying when nothing more
can move).

Under ``card_trade="stars"`` (docs/rules.md §6) a trade id names a star total
2..10 and is legal when the hand can make exactly that total; the cards go by
:func:`risk_env.rules.cards.stars_pick` (the value depends on the total alone, and
there is no +2 bonus). Otherwise a trade id names a composition. When the +2 bonus is on offer and the hand
holds several cards of that composition's symbols showing owned territories,
the next decision picks the bonus territory (territory block); that card goes
into the set. The codec picks the other cards: those *not* showing an owned
territory first (keeping them for a later bonus), then the lowest card id. If the bonus has several candidate
territories the next decision picks one (territory block).

The pending selection (a chosen source, a source-target pair, or a trade
waiting for its bonus territory) is codec state, not game state: it lives in a
:class:`Selection` that the caller keeps beside the
:class:`~risk_env.rules.state.GameState` (the AEC env keeps one per game, as
``env.selection``) and passes to :meth:`ActionCodec.mask` and
:meth:`ActionCodec.step`. A new game, and every completed move, starts with an
empty selection.

Legality of an id is decided once, by the mask: :meth:`ActionCodec.step`
rejects an id the mask does not mark (:class:`~risk_env.errors.IllegalActionError`,
naming the reason and the legal ids) and otherwise only translates it; the
completed move is applied without a second check (the mask is tested equal to
:meth:`Game.legal_moves <risk_env.rules.engine.Game.legal_moves>`).

Continuing a battle takes one step: at the top of the attack phase the dice
and blitz ids also mean "roll again in the last battle" (``att_src -> att_dst``,
shown in the observation's ``selected`` block) while that attack is still
legal. There is no cancel: a selected source must get a target, and a pair
must roll, unless ``end`` ends the phase. So every turn ends after finitely many
decisions (each cycle rolls dice, places, or ends a phase), and the turn limit
always ends the game.

Under the expert dice rules (``reroll_with_card``, ``die_to_six``; docs/rules.md
§8) a roll may wait (``GameState.roll_pending``): then only the re-roll ids (of
the dice the roll has, while the battle's re-roll is available), the six ids (of
the dice below six, while the turn's six is available) and the keep id are
legal. Each re-roll or six spends its rule, so a waiting roll settles after at
most three decisions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import IllegalActionError, IllegalMoveError, RiskError
from ..rules.cards import COMPOSITION_NAMES, COMPOSITIONS, MAX_STARS, MIN_STARS, composition_of
from ..rules.engine import Game
from ..rules.moves import Move, MoveKind
from ..rules.state import GameState, Phase
from .layout import AMOUNT_LEVELS, ATTACK_DICE, DEFEND_DICE, EXPERT_DIE_IDS, action_layout, amount_of, legal_levels

__all__ = ["ActionCodec", "AMOUNT_LEVELS", "Selection", "amount_of"]


@dataclass(slots=True)
class Selection:
    """The codec's pending sub-step selection for one game (-1 where none).

    Attributes:
        src: the selected source territory (reinforce amount, attack or fortify source).
        dst: the selected target territory (attack pair, fortify pair).
        trade: the set composition (index into ``COMPOSITION_NAMES``) whose +2 bonus
            territory is asked next.
    """

    src: int = -1
    dst: int = -1
    trade: int = -1

    def clear(self) -> None:
        """Forget the selection (after a completed move, or for a new game)."""
        self.src = self.dst = self.trade = -1

    def choose(self, kind: str, value: int) -> None:
        """Record a sub-step that :meth:`ActionCodec.decode` returned as ``(kind, value)``:
        ``"src"``, ``"dst"`` or ``"trade"``."""
        if kind == "src":
            self.src = value
        elif kind == "dst":
            self.dst = value
        else:
            self.trade = value

    @property
    def empty(self) -> bool:
        return self.src < 0 and self.dst < 0 and self.trade < 0

    def copy(self) -> Selection:
        return Selection(self.src, self.dst, self.trade)

    def as_tuple(self) -> tuple[int, int, int]:
        """``(src, dst, trade)``."""
        return self.src, self.dst, self.trade


_NONE = Selection()  # the empty selection, read-only by convention


class ActionCodec:
    """Maps action ids to moves for one :class:`~risk_env.rules.engine.Game`.

    Attributes:
        layout: the :class:`~risk_env.envs.layout.ActionLayout` of the game's ids.
        n: the action space size ``N``.
        territory, amount, dice, blitz, trade, reroll, six, keep, end: first id of each block
            (``trade`` is -1 without cards; ``reroll``, ``six``, ``keep`` are -1 without the
            expert dice rules that use them).
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.layout = L = action_layout(game)
        self.K = K = L.K
        self.territory, self.amount, self.dice, self.blitz = L.territory, L.amount, L.dice, L.blitz
        self.trade, self.trade_end = L.trade, L.trade_end
        self.reroll, self.six, self.keep, self.end = L.reroll, L.six, L.keep, L.end
        self.n = L.n
        n_trade = L.width("trade")
        self._zeros = np.zeros(self.n, dtype=np.int8)
        self._edge_src = game.edge_src
        self._edge_dst = game.edge_dst
        self._symbols = np.array(game.card_symbol, dtype=np.int64) if game.uses_cards else np.zeros(0, np.int64)
        self._comp = np.array(COMPOSITIONS, dtype=np.int64) if n_trade else np.zeros((0, 4), np.int64)
        # Which amount levels are legal for a span hi-lo (levels whose count differs from the previous level).
        self._span_levels = {span: np.array(legal_levels(span, K), dtype=np.int8) for span in range(64)}
        self._span_full = np.ones(K, dtype=np.int8)

    # ------------------------------------------------------------------ text of action ids (for people: it decides nothing)
    def action_to_string(self, s: GameState, action: int, sel: Selection | None = None) -> str:
        """What ``action`` means in ``s`` with the pending selection ``sel`` (None: no selection).

        An id outside ``0..n - 1`` gives ``"invalid action ..."`` rather than an error.

        >>> import risk_env
        >>> game = risk_env.Game(num_players=3, setup="random")
        >>> codec = risk_env.ActionCodec(game)
        >>> codec.action_to_string(game.new_game(0), codec.end)
        'end'
        """
        if sel is None:
            sel = _NONE
        g = self.game
        a = int(action)
        if not 0 <= a < self.n:
            return f"invalid action {a} (ids are 0..{self.n - 1})"
        if a < self.amount:
            name = g.map.name_of(a)
            ph = s.phase
            if ph == Phase.CLAIM:
                return f"claim {name}"
            if ph == Phase.CAPITAL:
                return f"capital {name}"
            if ph == Phase.SETUP_PLACE:
                return f"neutral {name}" if s.setup_step == 2 else f"place {name} 1"
            if ph == Phase.REINFORCE:
                return f"bonus {name}" if sel.trade >= 0 else f"place on {name}"
            if ph in (Phase.ATTACK, Phase.FORTIFY):
                verb = "attack" if ph == Phase.ATTACK else "fortify"
                if sel.src >= 0:
                    return f"{verb} {g.map.name_of(sel.src)}->{name}"
                return f"{verb} from {name}"
            return f"territory {name}"
        if a < self.dice:
            span = self._amount_span(s, sel)
            level = a - self.amount
            return f"amount {amount_of(level, *span)}" if span else f"amount level {level}"
        if a < self.blitz:
            if s.phase == Phase.DEFEND:
                return f"defend dice={a - self.dice + 1}"
            pair = self._battle_text(s, sel)
            return f"attack {pair} dice={a - self.dice + 1}" if pair else f"roll dice={a - self.dice + 1}"
        if a == self.blitz:
            pair = self._battle_text(s, sel)
            return f"blitz {pair}" if pair else "blitz"
        mod = self._dice_rule_move(a)
        if mod is not None:
            return g.move_to_text(mod)
        if self.trade >= 0 and self.trade <= a < self.trade_end:
            if g.stars:
                return f"trade stars={a - self.trade + MIN_STARS}"
            return f"trade {COMPOSITION_NAMES[a - self.trade]}"
        if s.phase == Phase.ATTACK:
            return "end attack"
        if s.phase == Phase.FORTIFY:
            return "end turn"
        return "end"

    def _battle_text(self, s: GameState, sel: Selection) -> str:
        """``"Src->Dst"`` of the battle a dice or blitz id would roll, or "" if none is set."""
        if s.phase != Phase.ATTACK:
            return ""
        if sel.dst >= 0:
            a, b = sel.src, sel.dst
        elif sel.src < 0 and self.can_continue(s):
            a, b = s.att_src, s.att_dst
        else:
            return ""
        name = self.game.map.name_of
        return f"{name(a)}->{name(b)}"

    def _amount_span(self, s: GameState, sel: Selection) -> tuple[int, int] | None:
        """The army range ``(lo, hi)`` that the amount ids cover now, or None outside an amount sub-step."""
        ph = s.phase
        if ph == Phase.REINFORCE and sel.src >= 0:
            return 1, s.to_place
        if ph == Phase.OCCUPY:
            return self.game.occupy_range(s)
        if ph == Phase.FORTIFY and sel.dst >= 0:
            return 1, int(s.armies[sel.src]) - 1
        return None

    def _dice_rule_move(self, a: int) -> Move | None:
        """The expert dice rule move of id ``a`` (docs/rules.md §8), or None if ``a`` is not one."""
        if self.reroll >= 0 and self.reroll <= a < self.reroll + EXPERT_DIE_IDS:
            return Move.reroll(a - self.reroll + 1)
        if self.six >= 0 and self.six <= a < self.six + EXPERT_DIE_IDS:
            return Move.six(a - self.six + 1)
        if self.keep >= 0 and a == self.keep:
            return Move.keep_roll()
        return None

    def can_continue(self, s: GameState) -> bool:
        """Whether the last battle (``att_src -> att_dst``) may roll again from the top of the attack phase."""
        a, b = s.att_src, s.att_dst
        # not its own, and under the allied army's rules not its commander's either (docs/rules.md §7)
        return a >= 0 and s.owner[a] == s.player and s.armies[a] >= 2 and s.owner[b] != s.player and s.owner[b] != s.commander

    # ------------------------------------------------------------------ cards
    def bonus_options(self, s: GameState, comp: int) -> list[int]:
        """Owned territories whose card could be in a ``comp`` trade and take the +2 bonus now."""
        g = self.game
        if not g.trades_sets or (g.config.territory_bonus == "once_per_turn" and s.bonus_used):
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
        if self.game.stars:
            g = self.game
            return np.array([g.stars_cards(s, k) is not None for k in range(MIN_STARS, MAX_STARS + 1)], dtype=np.int8)
        if len(hand) < 3:
            return np.zeros(len(COMPOSITIONS), dtype=np.int8)
        counts = np.bincount(self._symbols[hand], minlength=4)
        return np.asarray((self._comp <= counts).all(axis=1), dtype=np.int8)

    # ------------------------------------------------------------------ mask
    def mask(self, s: GameState, sel: Selection | None = None) -> np.ndarray:
        """int8 ``(N,)``: 1 where the action id is legal in ``s`` with the pending selection
        ``sel`` (None: no selection), for the seat :meth:`Game.current_player` names.

        This is the one judge of action ids: :meth:`step` accepts exactly the ids marked here.
        """
        if sel is None:
            sel = _NONE
        g = self.game
        m = self._zeros.copy()
        ph = s.phase
        T = g.T
        owner = s.owner
        p = s.player
        if ph == Phase.ATTACK and s.roll_pending:
            att = s.att_dice
            if g.can_reroll(s):
                m[self.reroll : self.reroll + att] = 1
            if g.can_six(s):
                for j in range(att):
                    m[self.six + j] = s.last_roll[j] < 6
            m[self.keep] = 1
        elif ph == Phase.ATTACK:
            if sel.src < 0:
                es, ed = self._edge_src, self._edge_dst
                ok = (owner[es] == p) & (s.armies[es] >= 2) & g.attackable(s)[ed]
                m[es[ok]] = 1
                m[self.end] = 1
                if self.can_continue(s):
                    m[self.dice : self.dice + min(ATTACK_DICE, int(s.armies[s.att_src]) - 1)] = 1
                    m[self.blitz] = 1
            elif sel.dst < 0:
                m[:T] = g.adjacency[sel.src] & g.attackable(s)
                m[self.end] = 1
            else:
                m[self.dice : self.dice + min(ATTACK_DICE, int(s.armies[sel.src]) - 1)] = 1
                m[self.blitz] = 1
                m[self.end] = 1
        elif ph == Phase.REINFORCE:
            if sel.trade >= 0:
                for t in self.bonus_options(s, sel.trade):
                    m[t] = 1
            elif sel.src >= 0:
                m[self.amount : self.dice] = self._levels(1, s.to_place)
            else:
                if g.can_trade(s):
                    m[self.trade : self.trade_end] = self._hand_comps(s)
                if g.can_place(s):
                    m[:T] = owner == p
        elif ph == Phase.FORTIFY:
            if sel.src < 0:
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
            elif sel.dst < 0:
                m[:T] = g.fortify_reach(s, sel.src)
                m[self.end] = 1
            else:
                m[self.amount : self.dice] = self._levels(1, int(s.armies[sel.src]) - 1)
                m[self.end] = 1
        elif ph == Phase.CLAIM:
            m[:T] = owner == -1
        elif ph == Phase.CAPITAL:
            m[:T] = owner == p
        elif ph == Phase.SETUP_PLACE:
            m[:T] = owner == (g.neutral if s.setup_step == 2 else p)
        elif ph == Phase.OCCUPY:
            m[self.amount : self.dice] = self._levels(*g.occupy_range(s))
        elif ph == Phase.DEFEND:
            m[self.dice : self.dice + min(DEFEND_DICE, int(s.armies[s.att_dst]))] = 1
        return m

    def _levels(self, lo: int, hi: int) -> np.ndarray:
        span = hi - lo
        if span < 0:
            return np.zeros(self.K, dtype=np.int8)
        return self._span_levels.get(span, self._span_full)

    # ------------------------------------------------------------------ step
    def _check_id(self, action: object) -> int:
        if type(action) is int and 0 <= action < self.n:  # the env's validated ids
            return action
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"an action must be an integer id in 0..{self.n - 1}, got {action!r}")
        a = int(action)
        if not 0 <= a < self.n:
            raise IllegalActionError(f"action id {a} is out of range: ids are 0..{self.n - 1}")
        return a

    def decode(
        self, s: GameState, action: int, sel: Selection | None = None, mask: np.ndarray | None = None
    ) -> Move | tuple[str, int]:
        """Interpret ``action`` in ``s`` with the pending selection ``sel``, changing neither:
        a complete :class:`Move`, or a selection ``("src" | "dst" | "trade", value)``.

        Args:
            mask: ``self.mask(s, sel)`` if the caller has it already (saves recomputing it).

        Raises:
            IllegalActionError: the id is out of range, not an int, or not marked by the mask
                (the message says why and lists the legal ids).
        """
        a = self._check_id(action)
        if sel is None:
            sel = _NONE
        if mask is None:
            mask = self.mask(s, sel)
        if not mask[a]:
            raise self._reject(s, a, sel, mask)
        res = self._translate(s, a, sel)
        if res is None:  # pragma: no cover (every masked id has a meaning; see tests/test_mask_exact.py)
            raise self._reject(s, a, sel, mask)
        return res

    def _translate(self, s: GameState, a: int, sel: Selection) -> Move | tuple[str, int] | None:
        """What id ``a`` does, assuming the mask allows it (no legality checks); None: no meaning here."""
        g = self.game
        ph = s.phase
        is_terr = a < g.T
        if ph == Phase.ATTACK and s.roll_pending:
            return self._dice_rule_move(a)
        if ph == Phase.ATTACK:
            if a == self.end:
                return Move.end_attack()
            if sel.src < 0:
                if is_terr:
                    return ("src", a)
                if self.dice <= a <= self.blitz:  # roll again in the last battle
                    src, dst = s.att_src, s.att_dst
                    return Move.blitz(src, dst) if a == self.blitz else Move.attack(src, dst, a - self.dice + 1)
            elif sel.dst < 0:
                if is_terr:
                    return ("dst", a)
            elif self.dice <= a < self.blitz:
                return Move.attack(sel.src, sel.dst, a - self.dice + 1)
            elif a == self.blitz:
                return Move.blitz(sel.src, sel.dst)
            return None
        if ph == Phase.REINFORCE:
            if sel.trade >= 0:
                return Move.trade(self.pick_cards(s, sel.trade, a) or (), a) if is_terr else None
            if sel.src >= 0:
                if self.amount <= a < self.dice:
                    return Move.place(sel.src, amount_of(a - self.amount, 1, s.to_place, self.K))
                return None
            if is_terr:
                return Move.place(a, 1) if s.to_place == 1 else ("src", a)
            if self.trade >= 0 and self.trade <= a < self.trade_end and g.stars:
                return Move.trade_stars(a - self.trade + MIN_STARS)
            if self.trade >= 0 and self.trade <= a < self.trade_end:
                comp = a - self.trade
                opts = self.bonus_options(s, comp)
                if len(opts) > 1:
                    return ("trade", comp)
                return Move.trade(self.pick_cards(s, comp) or (), opts[0] if opts else -1)
            return None
        if ph == Phase.FORTIFY:
            if a == self.end:
                return Move.end_turn()
            if sel.src < 0:
                return ("src", a) if is_terr else None
            if sel.dst < 0:
                if not is_terr:
                    return None
                return Move.fortify(sel.src, a, 1) if s.armies[sel.src] == 2 else ("dst", a)
            if self.amount <= a < self.dice:
                return Move.fortify(sel.src, sel.dst, amount_of(a - self.amount, 1, int(s.armies[sel.src]) - 1, self.K))
            return None
        if ph == Phase.CLAIM:
            return Move.claim(a) if is_terr else None
        if ph == Phase.CAPITAL:
            return Move.capital(a) if is_terr else None
        if ph == Phase.SETUP_PLACE:
            if not is_terr:
                return None
            return Move.place_neutral(a) if s.setup_step == 2 else Move.place(a, 1)
        if ph == Phase.DEFEND:
            return Move.defend(a - self.dice + 1) if self.dice <= a < self.dice + DEFEND_DICE else None
        if ph == Phase.OCCUPY:
            if self.amount <= a < self.dice:
                lo, hi = g.occupy_range(s)
                return Move.occupy(amount_of(a - self.amount, lo, hi, self.K))
        return None

    def _reject(self, s: GameState, action: int, sel: Selection, mask: np.ndarray) -> IllegalActionError:
        """The error for an id the mask refuses: why (the rules' reason when the id names a
        complete move), and the legal ids. Only built on the error path."""
        ph = Phase(s.phase)
        if ph == Phase.GAME_OVER:
            return IllegalActionError("the game is over; no action is legal")
        why = self._why(s, action, sel)
        legal = np.flatnonzero(mask)
        shown = ", ".join(f"{int(i)} ({self.action_to_string(s, int(i), sel)})" for i in legal[:12])
        more = f" and {len(legal) - 12} more" if len(legal) > 12 else ""
        return IllegalActionError(
            f"action {action} ({self.action_to_string(s, action, sel)}) is illegal in phase {ph.name.lower()}: {why}. "
            f"Legal ids: {shown}{more}"
        )

    def _why(self, s: GameState, a: int, sel: Selection) -> str:
        g = self.game
        name = g.map.name_of
        ph = s.phase
        T = g.T
        try:
            res = self._translate(s, a, sel)
        except (IndexError, ValueError):
            res = None
        if isinstance(res, Move):
            try:
                g.check(s, res)
            except IllegalMoveError as e:
                return str(e).split(": ", 1)[-1].split(". Allowed now:")[0]
            if self.amount <= a < self.dice:
                return f"amount level {a - self.amount} repeats a lower level's count"
            return "this id is not offered at this decision"
        if res is not None and a < T:
            if ph == Phase.REINFORCE:
                return "reinforcements go on your own territories, and only when no trade is forced"
            verb = "attack" if ph == Phase.ATTACK else "fortify"
            if sel.src >= 0:
                return f"{name(sel.src)} cannot {verb} {name(a)}"
            if ph == Phase.ATTACK:
                return f"{name(a)} cannot attack (needs 2+ armies and an enemy neighbour)"
            return f"{name(a)} cannot fortify (needs 2+ armies and a reachable own territory)"
        if res is not None and self.trade >= 0 and self.trade <= a < self.trade_end and g.stars:
            return f"your cards cannot make {a - self.trade + MIN_STARS} stars now"
        if res is not None and self.trade >= 0 and self.trade <= a < self.trade_end:
            return f"no {COMPOSITION_NAMES[a - self.trade]} set can be traded now"
        if self._dice_rule_move(a) is not None:
            return "no roll waits for a re-roll or a six" if not s.roll_pending else "that die cannot be changed now"
        if ph == Phase.ATTACK and s.roll_pending:
            return "your roll waits: re-roll a die, turn one into a six, or keep the roll"
        if ph == Phase.ATTACK and sel.src < 0 and self.dice <= a <= self.blitz:
            return "there is no battle to continue; select a source territory first"
        return "this id has no meaning at this decision"

    def step(self, s: GameState, action: int, sel: Selection | None = None, mask: np.ndarray | None = None) -> Move | None:
        """Apply ``action`` to ``s`` in place with the pending selection ``sel`` (updated in
        place); return the completed :class:`Move` (``sel`` is then cleared), or None for a
        sub-step (``sel`` now holds it).

        Args:
            sel: the game's :class:`Selection`; None only for ids that complete a move
                (a sub-step without a Selection to keep it raises).
            mask: ``self.mask(s, sel)`` if the caller has it already.

        Raises:
            IllegalActionError: the id is illegal; ``s`` and ``sel`` are unchanged.
            RiskError: the id starts a sub-step but no ``sel`` was given to hold it.
        """
        res = self.decode(s, action, sel, mask)
        if isinstance(res, Move):
            self.game.apply_unchecked(s, res)
            if sel is not None:
                sel.clear()
            return res
        if sel is None:
            raise RiskError(
                f"action {int(action)} ({self.action_to_string(s, int(action))}) is a sub-step; "
                "pass the game's Selection to keep it: codec.step(state, action, selection)"
            )
        sel.choose(*res)
        return None

    # ------------------------------------------------------------------ moves -> action ids (scripted agents play through these)
    def amount_action(self, lo: int, hi: int, desired: int) -> int:
        """The legal amount id for the range ``lo..hi`` whose count is closest to ``desired``
        (ties go to the smaller count). See :func:`amount_of`.

        >>> import risk_env
        >>> codec = risk_env.ActionCodec(risk_env.Game(num_players=3))
        >>> codec.amount_action(1, 30, 12) - codec.amount, amount_of(3, 1, 30)
        (3, 11)
        """
        desired = min(max(int(desired), lo), hi)
        best, best_d, prev = 0, None, None
        for j in range(self.K):
            c = amount_of(j, lo, hi, self.K)
            if c == prev:
                continue  # repeated counts are illegal levels
            prev = c
            d = abs(c - desired)
            if best_d is None or d < best_d:
                best, best_d = j, d
        return self.amount + best

    def move_to_action(self, s: GameState, move: Move, sel: Selection | None = None) -> int:
        """The next action id that plays ``move`` in ``s`` from the pending selection ``sel``.

        Call it once per decision with the same move until the move completes. It handles:

        * a battle to continue: the dice or blitz id at the top of the attack
          phase when ``move`` attacks the last battle's pair again;
        * pending selections that do not match ``move`` (the codec has no cancel):
          the pending decision is completed as close to ``move`` as it can (a
          mismatched attack source attacks its first target with one die);
        * amounts (placing, occupying, fortifying): the legal level whose count is
          closest to ``move.count`` (:func:`amount_action`), so the count played
          may differ from ``move.count`` when the range is wider than the 10 levels;
        * trades: the id of ``move``'s set composition; when the codec then asks for
          the +2 bonus territory, ``move.bonus`` if it is an option
          (:meth:`ActionCodec.bonus_options`), else the first option. The codec picks the other
          cards itself, so the traded cards may differ from ``move.cards`` (same
          composition, same value). Under ``card_trade="stars"`` the id of the trade's star total.

        Returns:
            an action id that is legal under ``self.mask(s, sel)`` when ``move`` is legal in ``s``.

        Raises:
            RiskError: ``move`` cannot be played in this phase (e.g. an attack in the fortify phase),
                or the trade's cards are not a set.
        """
        src, dst, trade = (sel.src, sel.dst, sel.trade) if sel is not None else (-1, -1, -1)
        g = self.game
        ph = s.phase
        k = move.kind
        if (ph == Phase.CLAIM and k == MoveKind.CLAIM) or (ph == Phase.CAPITAL and k == MoveKind.CAPITAL):
            return int(move.src)
        if ph == Phase.SETUP_PLACE and k in (MoveKind.PLACE, MoveKind.PLACE_NEUTRAL):
            return int(move.src)
        if ph == Phase.REINFORCE and k in (MoveKind.TRADE, MoveKind.PLACE):
            if trade >= 0:
                cands = self.bonus_options(s, trade)
                if k == MoveKind.TRADE and move.bonus in cands:
                    return int(move.bonus)
                return int(cands[0])
            if src >= 0:
                want = move.count if (k == MoveKind.PLACE and move.src == src) else s.to_place
                return self.amount_action(1, s.to_place, want)
            if k == MoveKind.TRADE and g.stars:
                return self.trade + int(move.count) - MIN_STARS
            if k == MoveKind.TRADE:
                comp = composition_of([g.card_symbol[c] for c in move.cards])
                if comp < 0:
                    raise RiskError(f"{g.move_to_text(move)!r}: those cards are not a set")
                return self.trade + comp
            return int(move.src)
        if ph == Phase.ATTACK and s.roll_pending and k in (MoveKind.REROLL, MoveKind.SIX, MoveKind.KEEP_ROLL):
            if k == MoveKind.KEEP_ROLL:
                return self.keep
            return (self.reroll if k == MoveKind.REROLL else self.six) + int(move.count) - 1
        if ph == Phase.ATTACK and k in (MoveKind.ATTACK, MoveKind.BLITZ, MoveKind.END_ATTACK):
            roll = self.blitz if k == MoveKind.BLITZ else self.dice + int(move.count) - 1
            if k == MoveKind.END_ATTACK:
                return self.end
            if src < 0:
                if (s.att_src, s.att_dst) == (move.src, move.dst) and self.can_continue(s):
                    return roll  # roll again in the last battle
                return int(move.src)
            if src != move.src:  # no cancel: attack from the selected source instead
                return int(g.attack_targets(s, src)[0]) if dst < 0 else self.dice
            if dst < 0:
                return int(move.dst)
            if dst != move.dst:
                return self.dice
            return roll
        if ph == Phase.DEFEND and k == MoveKind.DEFEND:
            return self.dice + int(move.count) - 1
        if ph == Phase.OCCUPY and k == MoveKind.OCCUPY:
            lo, hi = g.occupy_range(s)
            return self.amount_action(lo, hi, move.count)
        if ph == Phase.FORTIFY and k in (MoveKind.FORTIFY, MoveKind.END_TURN):
            if dst >= 0:  # only an amount is accepted now
                same = k == MoveKind.FORTIFY and (move.src, move.dst) == (src, dst)
                return self.amount_action(1, int(s.armies[src]) - 1, move.count if same else 1)
            if k == MoveKind.END_TURN:
                return self.end
            if src < 0:
                return int(move.src)
            if src != move.src:  # no cancel: fortify from the selected source instead
                return int(np.flatnonzero(g.fortify_reach(s, src))[0])
            return int(move.dst)
        raise RiskError(f"{g.move_to_text(move)!r} cannot be played in the {Phase(ph).name.lower()} phase")

    def move_to_actions(self, s: GameState, move: Move, sel: Selection | None = None) -> list[int]:
        """Every action id, in order, that plays ``move`` in ``s`` from the selection ``sel``
        (None: none); neither ``s`` nor ``sel`` changes. The last id completes a move
        (``move`` itself, up to the amount and card choices :func:`move_to_action` describes).

        >>> import risk_env
        >>> g = risk_env.Game(num_players=3, setup="random"); s = g.new_game(3)
        >>> codec = risk_env.ActionCodec(g)
        >>> t = g.map.id_of("Alaska"); s.owner[t] = s.player; s.to_place = 5
        >>> ids = codec.move_to_actions(s, risk_env.Move.place(t, 3))
        >>> ids[0] == t, amount_of(ids[1] - codec.amount, 1, 5)  # the territory, then the amount
        (True, 3)

        Raises:
            RiskError: ``move`` cannot be played in this phase; IllegalActionError: it is not legal here.
        """
        work = sel.copy() if sel is not None else Selection()
        out: list[int] = []
        while True:
            a = self.move_to_action(s, move, work)
            out.append(a)
            res = self.decode(s, a, work)
            if isinstance(res, Move):
                return out
            work.choose(*res)
