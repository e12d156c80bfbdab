"""The rules engine: a :class:`Game` (static facts: map, rules, tables) that
creates, validates and advances :class:`~risk_env.rules.state.GameState` positions.

Pure Python and numpy; no Gymnasium or PettingZoo import. All chance (dice,
shuffles, random setup, the turn order) comes from the state's one seeded
``numpy.random.Generator``.

>>> game = Game(RulesConfig(num_players=3, setup="random"))
>>> s = game.new_game(seed=7)
>>> s.phase == Phase.REINFORCE, len(game.legal_moves(s)) > 0
(True, True)
>>> game.apply(s, game.parse_move(s, "end attack"))
Traceback (most recent call last):
...
risk_env.errors.IllegalMoveError: 'end attack' is not legal in the reinforce phase: ...

Rules are cited by docs/rules.md section in each method.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import ConfigError, IllegalMoveError, StateError
from .cards import COMPOSITIONS, composition_of, set_value
from .config import RulesConfig
from .dice import roll_outcomes
from .map import GameMap, load_map
from .moves import Move, MoveKind
from .state import GameState, Phase

__all__ = ["Game", "Phase", "GameState", "Move", "MoveKind"]

_DICE_BATCH = 600
_PHASE_NAME = {p: p.name.lower().replace("_", " ") for p in Phase}
_PHASE_ALLOWED = {
    Phase.CLAIM: "'claim <territory>' of an unclaimed territory",
    Phase.SETUP_PLACE: "'place <own territory> 1' (or, for the neutral's army in a 2-player setup, 'neutral <neutral territory>')",
    Phase.REINFORCE: "'trade <card>, <card>, <card> [bonus=<territory>]' of a set in hand, or 'place <own territory> <armies>'",
    Phase.ATTACK: "'attack <own>-><adjacent enemy> dice=<1..3>', 'blitz <own>-><adjacent enemy>', or 'end attack'",
    Phase.DEFEND: "'defend dice=<1..2>'",
    Phase.OCCUPY: "'occupy <armies>'",
    Phase.FORTIFY: "'fortify <own>-><own> <armies>' or 'end turn'",
    Phase.GAME_OVER: "nothing: the game is over",
}


_FIELD_DEFAULTS = (("src", -1), ("dst", -1), ("count", 0), ("cards", ()), ("bonus", -1))
_USED_FIELDS = {
    MoveKind.CLAIM: {"src"},
    MoveKind.PLACE: {"src", "count"},
    MoveKind.PLACE_NEUTRAL: {"src", "count"},
    MoveKind.TRADE: {"cards", "bonus"},
    MoveKind.ATTACK: {"src", "dst", "count"},
    MoveKind.BLITZ: {"src", "dst"},
    MoveKind.END_ATTACK: set(),
    MoveKind.DEFEND: {"count"},
    MoveKind.OCCUPY: {"count"},
    MoveKind.FORTIFY: {"src", "dst", "count"},
    MoveKind.END_TURN: set(),
}


class Game:
    """Static facts of a game (map, rules, precomputed tables) and the rules as methods.

    Args:
        config: the rules; keyword overrides are applied on top (``Game(num_players=3)``).
        game_map: a loaded map, overriding ``config.map``.

    Raises:
        ConfigError: bad or inconsistent rules (e.g. too few armies to claim the map).
        MapError: the map cannot be loaded.
    """

    def __init__(self, config: RulesConfig | None = None, game_map: GameMap | None = None, **overrides: Any) -> None:
        cfg = config or RulesConfig()
        if overrides:
            cfg = cfg.replace(**overrides)
        self.config = cfg
        self.map = game_map if game_map is not None else load_map(cfg.map)
        self.num_players = cfg.num_players
        self.neutral = cfg.num_players if cfg.has_neutral else -1
        self.num_seats = cfg.num_players + (1 if cfg.has_neutral else 0)
        m = self.map
        T = m.num_territories
        if cfg.starting_armies * self.num_seats < T:
            raise ConfigError(
                f"{self.num_seats} armies pools of {cfg.starting_armies} cannot claim the {T} territories of map {m.name!r}; "
                f"raise starting_armies to at least {-(-T // self.num_seats)}"
            )
        self.T = T
        self.uses_cards = cfg.uses_cards
        self.num_cards = m.num_cards if cfg.uses_cards else 0
        # Precomputed tables (read-only).
        self.neighbors = m.neighbors
        self.adjacency = m.adjacency
        self.edge_src = m.edge_src
        self.edge_dst = m.edge_dst
        self.card_symbol = m.card_symbol.tolist()
        self.continent_idx = [np.flatnonzero(row) for row in m.continent_members]
        self.continent_bonus = m.continent_bonus.tolist()

    # ------------------------------------------------------------------ setup
    def new_game(self, seed: int | None | np.random.SeedSequence = None) -> GameState:
        """A new game: the turn order drawn, setup done up to the first decision (docs/rules.md §3, §7).

        Args:
            seed: seeds the game's one generator (``None``: fresh entropy).
        """
        cfg = self.config
        n = self.num_players
        T = self.T
        if not (
            seed is None
            or isinstance(seed, np.random.SeedSequence)
            or (isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)) and seed >= 0)
        ):
            raise ConfigError(f"seed must be None, an integer >= 0 or a numpy SeedSequence, got {seed!r}")
        s = GameState.__new__(GameState)
        s.rng = np.random.default_rng(seed)
        s._rng_shared = False
        s.dice_buf = []
        s.dice_pos = 0
        s.owner = np.full(T, -1, dtype=np.int64)
        s.armies = np.zeros(T, dtype=np.int32)
        s.order = [int(x) for x in s.rng.permutation(n)]
        s.alive = [True] * n
        s.hands = [[] for _ in range(n)]
        s.setup_left = [cfg.starting_armies] * n + [cfg.starting_armies if self.neutral >= 0 else 0]
        s.deck = []
        s.discard = []
        s.elim_order = []
        s.last_roll = []
        s.phase = Phase.CLAIM
        s.player = s.order[0]
        s.turn = 0
        s.sets_traded = 0
        s.to_place = 0
        s.setup_step = 0
        s.att_src = s.att_dst = -1
        s.att_dice = 0
        s.last_dice = 0
        s.winner = -1
        s.sel_src = s.sel_dst = s.sel_trade = -1
        s.steps = 0
        s.bonus_used = s.conquered = s.forced = s.resume_attack = s.trade_down = s.truncated = False
        if cfg.setup == "claim":
            s.phase = Phase.CLAIM
            s.player = s.order[0]
        else:
            cycle = self._claim_cycle(s)
            terr = s.rng.permutation(T)
            for k, t in enumerate(terr):
                seat = cycle[k % len(cycle)]
                s.owner[t] = seat
                s.armies[t] = 1
                s.setup_left[seat] -= 1
            if cfg.setup == "random":
                for seat in range(self.num_seats):
                    left = s.setup_left[seat]
                    if left > 0:
                        own = np.flatnonzero(s.owner == seat)
                        picks = s.rng.integers(0, len(own), size=left)
                        np.add.at(s.armies, own[picks], 1)
                        s.setup_left[seat] = 0
                self._start_game(s)
            else:
                self._start_setup_placement(s)
        if self.uses_cards:
            s.deck = [int(c) for c in s.rng.permutation(self.num_cards)]
        return s

    def _claim_cycle(self, s: GameState) -> list[int]:
        return s.order + ([self.neutral] if self.neutral >= 0 else [])

    def _start_setup_placement(self, s: GameState) -> None:
        s.phase = Phase.SETUP_PLACE
        s.player = s.order[-1]
        s.setup_step = 0
        self._next_setup_turn(s, first=True)

    def _next_setup_turn(self, s: GameState, first: bool = False) -> None:
        """Hand the setup turn to the next seat in order with armies to place, or start the game."""
        order = s.order
        start = 0 if first else order.index(s.player) + 1
        neutral_left = s.setup_left[-1] if self.neutral >= 0 else 0
        for k in range(len(order)):
            seat = order[(start + k) % len(order)]
            if s.setup_left[seat] > 0 or neutral_left > 0:
                s.player = seat
                s.setup_step = 0 if s.setup_left[seat] > 0 else 2
                return
        self._start_game(s)

    def _start_game(self, s: GameState) -> None:
        s.turn = 0
        s.player = s.order[0]
        self._begin_turn(s)

    def _begin_turn(self, s: GameState) -> None:
        """Turn start: reinforcements and a forced trade at 5+ cards (docs/rules.md §4.1)."""
        s.turn += 1
        s.phase = Phase.REINFORCE
        s.to_place = self.income(s, s.player)
        s.bonus_used = s.conquered = s.resume_attack = s.trade_down = False
        s.att_src = s.att_dst = -1
        s.att_dice = 0
        s.forced = self.uses_cards and len(s.hands[s.player]) >= 5

    # ------------------------------------------------------------------ rule helpers
    def income(self, s: GameState, seat: int) -> int:
        """Reinforcements at turn start: max(3, territories // 3) + owned continents' bonuses (docs/rules.md §4.1).

        >>> g = Game(num_players=2, setup="random"); s = g.new_game(0)
        >>> s.owner[:] = 0; s.owner[:5] = 1
        >>> g.income(s, 1)
        3
        """
        owned = s.owner == seat
        n = int(owned.sum())
        total = max(3, n // 3)
        for idx, bonus in zip(self.continent_idx, self.continent_bonus, strict=False):
            if owned[idx].all():
                total += bonus
        return total

    def trade_value(self, s: GameState, cards: Iterable[int]) -> int:
        """Armies the set ``cards`` would bring now (without the +2 bonus) (docs/rules.md §4.1, §6)."""
        comp = composition_of([self.card_symbol[c] for c in cards])
        return set_value(self.config.card_trade, s.sets_traded, comp)

    def bonus_candidates(self, s: GameState, cards: Iterable[int]) -> list[int]:
        """Territories that may take the +2 bonus for trading ``cards`` now (docs/rules.md §4.1)."""
        if self.config.territory_bonus == "once_per_turn" and s.bonus_used:
            return []
        p = s.player
        return sorted(c for c in cards if c < self.T and s.owner[c] == p)

    def can_trade(self, s: GameState) -> bool:
        """Whether trading is allowed now (the hand may still hold no set)."""
        return self.uses_cards and s.phase == Phase.REINFORCE and (s.forced or not s.resume_attack)

    def can_place(self, s: GameState) -> bool:
        return s.phase == Phase.REINFORCE and not s.forced and s.to_place > 0

    def attack_targets(self, s: GameState, src: int) -> list[int]:
        """Enemy territories that ``src`` may attack now (docs/rules.md §4.2)."""
        p = s.player
        if s.phase != Phase.ATTACK or s.owner[src] != p or s.armies[src] < 2:
            return []
        owner = s.owner
        return [t for t in self.neighbors[src] if owner[t] != p]

    def fortify_reach(self, s: GameState, src: int) -> np.ndarray:
        """Bool ``(T,)``: own territories that ``src`` may fortify to (docs/rules.md §4.3)."""
        p = s.player
        own = s.owner == p
        if self.config.fortify == "adjacent":
            reach = self.adjacency[src] & own
        else:
            reach = np.zeros(self.T, dtype=bool)
            reach[src] = True
            frontier = [src]
            nb = self.neighbors
            while frontier:
                u = frontier.pop()
                for v in nb[u]:
                    if own[v] and not reach[v]:
                        reach[v] = True
                        frontier.append(v)
            reach[src] = False
        return reach

    def roll_outcomes(self, s: GameState, move: Move, defender_dice: int | None = None) -> dict[tuple[int, int], Fraction]:
        """Exact chance outcomes of the roll an ``ATTACK`` move makes in ``s`` (docs/rules.md §4.2).

        Returns ``(attacker_losses, defender_losses) -> probability`` (Fractions summing to 1).
        The defender rolls its maximum unless ``defender_dice`` is given (the
        ``defender_dice="choose"`` variant).

        Raises:
            IllegalMoveError: ``move`` is not a legal attack in ``s``.
        """
        if move.kind != MoveKind.ATTACK:
            raise IllegalMoveError(f"chance outcomes exist for attack moves, not {self.move_to_text(move)!r}")
        self.check(s, move)
        most = min(2, int(s.armies[move.dst]))
        d = most if defender_dice is None else defender_dice
        if not 1 <= d <= most:
            raise IllegalMoveError(f"the defender can roll 1..{most} dice, not {d}")
        return roll_outcomes(move.count, d)

    def to_act(self, s: GameState) -> int:
        """Seat that decides next (the defender in the defend phase), or -1 when the game is over."""
        if s.phase == Phase.GAME_OVER:
            return -1
        if s.phase == Phase.DEFEND:
            return int(s.owner[s.att_dst])
        return s.player

    # ------------------------------------------------------------------ validation
    def _illegal(self, s: GameState, move: Move, why: str) -> IllegalMoveError:
        try:
            text = self.move_to_text(move)
        except ValueError:
            text = repr(move)
        ph = Phase(s.phase)
        return IllegalMoveError(f"{text!r} is not legal in the {_PHASE_NAME[ph]} phase: {why}. Allowed now: {_PHASE_ALLOWED[ph]}")

    def _check_territory(self, s: GameState, move: Move, t: int) -> None:
        if not isinstance(t, (int, np.integer)) or not 0 <= t < self.T:
            raise self._illegal(s, move, f"territory id {t!r} is not in 0..{self.T - 1}")

    def check(self, s: GameState, move: Move) -> None:
        """Raise :class:`IllegalMoveError` (saying why and what is allowed) unless ``move`` is legal in ``s``."""
        if not isinstance(move, Move):
            raise IllegalMoveError(f"expected a Move, got {type(move).__name__}: {move!r}")
        ph = s.phase
        k = move.kind
        used = _USED_FIELDS.get(k)
        if used is None:
            raise IllegalMoveError(f"unknown move kind {k!r}; kinds: {', '.join(m.name for m in MoveKind)}")
        for f, default in _FIELD_DEFAULTS:
            if f not in used and getattr(move, f) != default:
                raise IllegalMoveError(f"a {MoveKind(k).name} move takes no {f!r} (got {getattr(move, f)!r}): {move!r}")
        p = s.player
        if ph == Phase.GAME_OVER:
            raise self._illegal(s, move, "the game is over")
        if k == MoveKind.CLAIM:
            if ph != Phase.CLAIM:
                raise self._illegal(s, move, "claims happen only in the claim phase")
            self._check_territory(s, move, move.src)
            if s.owner[move.src] != -1:
                raise self._illegal(s, move, f"{self.map.name_of(move.src)} is already claimed")
            return
        if k == MoveKind.PLACE:
            if ph == Phase.SETUP_PLACE:
                if s.setup_step >= 2:
                    raise self._illegal(s, move, "this setup turn places a neutral army next")
                self._check_territory(s, move, move.src)
                if s.owner[move.src] != p:
                    raise self._illegal(s, move, f"{self.map.name_of(move.src)} is not yours")
                if move.count != 1:
                    raise self._illegal(s, move, "setup places one army at a time")
                return
            if ph != Phase.REINFORCE:
                raise self._illegal(s, move, "armies are placed only in setup and in the reinforce phase")
            if s.forced:
                raise self._illegal(s, move, f"you hold {len(s.hands[p])} cards and must trade first")
            self._check_territory(s, move, move.src)
            if s.owner[move.src] != p:
                raise self._illegal(s, move, f"{self.map.name_of(move.src)} is not yours")
            if not 1 <= move.count <= s.to_place:
                raise self._illegal(s, move, f"you have {s.to_place} armies to place; place 1..{s.to_place}")
            return
        if k == MoveKind.PLACE_NEUTRAL:
            if ph != Phase.SETUP_PLACE or s.setup_step != 2:
                raise self._illegal(s, move, "a neutral army is placed only at the end of a 2-player setup turn")
            self._check_territory(s, move, move.src)
            if s.owner[move.src] != self.neutral:
                raise self._illegal(s, move, f"{self.map.name_of(move.src)} is not neutral")
            if move.count != 1:
                raise self._illegal(s, move, "the neutral gets one army at a time")
            return
        if k == MoveKind.TRADE:
            if not self.uses_cards:
                raise self._illegal(s, move, "these rules have no cards")
            if not self.can_trade(s):
                raise self._illegal(
                    s, move, "sets are traded only in the reinforce phase (after an elimination: only while forced)"
                )
            cards = move.cards
            hand = s.hands[p]
            if len(cards) != 3 or len(set(cards)) != 3 or any(c not in hand for c in cards):
                raise self._illegal(s, move, f"a trade names three different cards from your hand ({self._hand_text(hand)})")
            if composition_of([self.card_symbol[c] for c in cards]) < 0:
                raise self._illegal(s, move, "those cards are not a set (three of a kind, one of each, or two plus a wild)")
            cands = self.bonus_candidates(s, cards)
            if cands and move.bonus not in cands:
                names = ", ".join(self.map.name_of(c) for c in cands)
                raise self._illegal(s, move, f"choose the +2 bonus territory: bonus= one of {names}")
            if not cands and move.bonus != -1:
                raise self._illegal(s, move, "no +2 territory bonus is available for this trade")
            return
        if k in (MoveKind.ATTACK, MoveKind.BLITZ):
            if ph != Phase.ATTACK:
                raise self._illegal(s, move, "attacks happen only in the attack phase")
            self._check_territory(s, move, move.src)
            self._check_territory(s, move, move.dst)
            a, b = move.src, move.dst
            if s.owner[a] != p:
                raise self._illegal(s, move, f"{self.map.name_of(a)} is not yours")
            if s.armies[a] < 2:
                raise self._illegal(s, move, f"{self.map.name_of(a)} has 1 army; attacking needs at least 2")
            if not self.adjacency[a, b]:
                raise self._illegal(s, move, f"{self.map.name_of(a)} and {self.map.name_of(b)} do not share a border")
            if s.owner[b] == p:
                raise self._illegal(s, move, f"{self.map.name_of(b)} is yours")
            if k == MoveKind.ATTACK:
                most = min(3, int(s.armies[a]) - 1)
                if not 1 <= move.count <= most:
                    raise self._illegal(s, move, f"roll 1..{most} dice from {self.map.name_of(a)} ({s.armies[a]} armies)")
            return
        if k == MoveKind.END_ATTACK:
            if ph != Phase.ATTACK:
                raise self._illegal(s, move, "not attacking")
            return
        if k == MoveKind.DEFEND:
            if ph != Phase.DEFEND:
                raise self._illegal(s, move, "no attack awaits a defence")
            most = min(2, int(s.armies[s.att_dst]))
            if not 1 <= move.count <= most:
                raise self._illegal(s, move, f"defend with 1..{most} dice")
            return
        if k == MoveKind.OCCUPY:
            if ph != Phase.OCCUPY:
                raise self._illegal(s, move, "no conquest awaits an occupation")
            lo, hi = self.occupy_range(s)
            if not lo <= move.count <= hi:
                raise self._illegal(s, move, f"move {lo}..{hi} armies into {self.map.name_of(s.att_dst)}")
            return
        if k == MoveKind.FORTIFY:
            if ph != Phase.FORTIFY:
                raise self._illegal(s, move, "fortifying happens only in the fortify phase")
            self._check_territory(s, move, move.src)
            self._check_territory(s, move, move.dst)
            a, b = move.src, move.dst
            if s.owner[a] != p or s.owner[b] != p:
                raise self._illegal(s, move, "both territories must be yours")
            if not self.fortify_reach(s, a)[b]:
                how = "share a border" if self.config.fortify == "adjacent" else "be joined through your territories"
                raise self._illegal(s, move, f"{self.map.name_of(a)} and {self.map.name_of(b)} must {how}")
            most = int(s.armies[a]) - 1
            if not 1 <= move.count <= most:
                raise self._illegal(
                    s, move, f"move 1..{most} armies (one must stay)" if most else f"{self.map.name_of(a)} has 1 army"
                )
            return
        if k == MoveKind.END_TURN:
            if ph != Phase.FORTIFY:
                raise self._illegal(s, move, "the turn ends from the fortify phase ('end attack' first)")
            return
        raise self._illegal(s, move, f"unknown move kind {k!r}")

    def is_legal(self, s: GameState, move: Move) -> bool:
        try:
            self.check(s, move)
        except IllegalMoveError:
            return False
        return True

    def occupy_range(self, s: GameState) -> tuple[int, int]:
        """Total armies that may stand in the conquered territory: ``(dice of the last roll, that + source - 1)`` (docs/rules.md §4.2)."""
        lo = int(s.armies[s.att_dst])
        return lo, lo + int(s.armies[s.att_src]) - 1

    # ------------------------------------------------------------------ applying moves
    def apply(self, s: GameState, move: Move) -> None:
        """Apply a legal ``move`` to ``s`` in place.

        Raises:
            IllegalMoveError: the move is not legal; ``s`` is unchanged.
        """
        self.check(s, move)
        self._apply_unchecked(s, move)

    def step(self, s: GameState, move: Move) -> GameState:
        """Pure form of :meth:`apply`: a new state, ``s`` untouched."""
        c = s.copy()
        self.apply(c, move)
        return c

    def _apply_unchecked(self, s: GameState, move: Move) -> None:
        k = move.kind
        p = s.player
        s.steps += 1
        s.sel_src = s.sel_dst = s.sel_trade = -1
        if k == MoveKind.CLAIM:
            self._claim(s, move.src, p)
        elif k == MoveKind.PLACE:
            s.armies[move.src] += move.count
            if s.phase == Phase.SETUP_PLACE:
                s.setup_left[p] -= 1
                self._after_setup_placement(s)
            else:
                s.to_place -= move.count
                self._maybe_end_reinforce(s)
        elif k == MoveKind.PLACE_NEUTRAL:
            s.armies[move.src] += 1
            s.setup_left[-1] -= 1
            self._next_setup_turn(s)
        elif k == MoveKind.TRADE:
            self._trade(s, move)
        elif k == MoveKind.ATTACK:
            s.att_src, s.att_dst, s.att_dice = move.src, move.dst, move.count
            defender = int(s.owner[move.dst])
            if self.config.defender_dice == "choose" and defender != self.neutral:
                s.phase = Phase.DEFEND
            else:
                self._roll(s, move.src, move.dst, move.count, min(2, int(s.armies[move.dst])))
        elif k == MoveKind.BLITZ:
            a, b = move.src, move.dst
            armies = s.armies
            while True:
                att = min(3, int(armies[a]) - 1)
                if self._roll(s, a, b, att, min(2, int(armies[b]))) or armies[a] < 2:
                    break
        elif k == MoveKind.END_ATTACK:
            s.phase = Phase.FORTIFY
        elif k == MoveKind.DEFEND:
            s.phase = Phase.ATTACK
            self._roll(s, s.att_src, s.att_dst, s.att_dice, move.count)
        elif k == MoveKind.OCCUPY:
            extra = move.count - int(s.armies[s.att_dst])
            s.armies[s.att_src] -= extra
            s.armies[s.att_dst] += extra
            self._after_occupation(s)
        elif k == MoveKind.FORTIFY:
            s.armies[move.src] -= move.count
            s.armies[move.dst] += move.count
            self._end_turn(s)
        elif k == MoveKind.END_TURN:
            self._end_turn(s)

    def _claim(self, s: GameState, t: int, seat: int) -> None:
        """Claim phase (docs/rules.md §3; the 2-player neutral claims at random in the rotation, §7)."""
        s.owner[t] = seat
        s.armies[t] = 1
        s.setup_left[seat] -= 1
        cycle = self._claim_cycle(s)
        nxt = cycle[(cycle.index(seat) + 1) % len(cycle)]
        if not (s.owner == -1).any():
            self._start_setup_placement(s)
        elif nxt == self.neutral:
            free = np.flatnonzero(s.owner == -1)
            self._claim(s, int(free[s.own_rng().integers(len(free))]), nxt)
        else:
            s.player = nxt

    def _after_setup_placement(self, s: GameState) -> None:
        """One army at a time in turn order; in a 2-player neutral game 2 own + 1 neutral per setup turn (docs/rules.md §3, §7)."""
        p = s.player
        if self.neutral < 0:
            self._next_setup_turn(s)
            return
        s.setup_step += 1
        if s.setup_step < 2 and s.setup_left[p] > 0:
            return
        if s.setup_left[-1] > 0:
            s.setup_step = 2
        else:
            self._next_setup_turn(s)

    def _maybe_end_reinforce(self, s: GameState) -> None:
        if s.to_place == 0 and not s.forced:
            s.phase = Phase.ATTACK
            s.resume_attack = False

    def _trade(self, s: GameState, move: Move) -> None:
        """Trade one set: the shared counter, the +2 territory bonus (docs/rules.md §4.1, §6)."""
        p = s.player
        hand = s.hands[p]
        value = self.trade_value(s, move.cards)
        for c in move.cards:
            hand.remove(c)
            s.discard.append(c)
        s.sets_traded += 1
        s.to_place += value
        if move.bonus >= 0:
            s.armies[move.bonus] += 2
            s.bonus_used = True
        if s.forced and len(hand) <= 4:
            s.forced = False
        self._maybe_end_reinforce(s)

    def _draw_dice(self, s: GameState, k: int) -> list[int]:
        pos = s.dice_pos
        if pos + k > len(s.dice_buf):
            s.dice_buf = s.own_rng().integers(1, 7, size=_DICE_BATCH, dtype=np.int8).tolist()
            pos = 0
        s.dice_pos = pos + k
        return s.dice_buf[pos : pos + k]

    def _roll(self, s: GameState, a: int, b: int, att: int, dfd: int) -> bool:
        """One roll (docs/rules.md §4.2). Returns True if it conquered ``b``."""
        faces = self._draw_dice(s, att + dfd)
        ad = sorted(faces[:att], reverse=True)
        dd = sorted(faces[att:], reverse=True)
        al = dl = 0
        for x, y in zip(ad, dd, strict=False):
            if x > y:
                dl += 1
            else:
                al += 1
        s.armies[a] -= al
        s.armies[b] -= dl
        s.last_roll = ad + [0] + dd
        s.last_dice = att
        if s.armies[b] == 0:
            self._conquer(s, a, b, att)
            return True
        return False

    def _conquer(self, s: GameState, a: int, b: int, dice: int) -> None:
        """Conquest, elimination, card transfer and the win (docs/rules.md §4.2, §4.5)."""
        p = s.player
        loser = int(s.owner[b])
        s.owner[b] = p
        s.armies[a] -= dice
        s.armies[b] = dice
        s.conquered = True
        s.att_src, s.att_dst = a, b
        eliminated = loser != self.neutral and not (s.owner == loser).any()
        s.trade_down = False
        if eliminated:
            s.alive[loser] = False
            s.elim_order.append(loser)
            if self.uses_cards:
                s.hands[p].extend(s.hands[loser])
                s.hands[loser] = []
                s.trade_down = len(s.hands[p]) >= self.config.elimination_trade_at
            if sum(s.alive) == 1:
                s.winner = p
                s.phase = Phase.GAME_OVER
                return
        if s.armies[a] > 1:
            s.phase = Phase.OCCUPY
        else:
            self._after_occupation(s)

    def _after_occupation(self, s: GameState) -> None:
        if s.trade_down:
            s.trade_down = False
            s.phase = Phase.REINFORCE
            s.forced = True
            s.resume_attack = True
            s.to_place = 0
        else:
            s.phase = Phase.ATTACK

    def _end_turn(self, s: GameState) -> None:
        """Draw one card after a conquest, pass the turn, apply the turn limit (docs/rules.md §4.4, §4.5)."""
        p = s.player
        if s.conquered and self.uses_cards:
            if not s.deck and s.discard:
                s.deck = [s.discard[i] for i in s.own_rng().permutation(len(s.discard))]
                s.discard = []
            if s.deck:
                s.hands[p].append(s.deck.pop())
        if s.turn >= self.config.turn_limit:
            s.truncated = True
            s.phase = Phase.GAME_OVER
            return
        order = s.order
        i = order.index(p)
        for k in range(1, len(order) + 1):
            nxt = order[(i + k) % len(order)]
            if s.alive[nxt]:
                s.player = nxt
                break
        self._begin_turn(s)

    # ------------------------------------------------------------------ enumeration
    def legal_moves(self, s: GameState) -> list[Move]:
        """Every legal move in ``s`` (complete moves; counts enumerated one by one)."""
        ph = s.phase
        p = s.player
        owner = s.owner
        out: list[Move] = []
        if ph == Phase.CLAIM:
            return [Move.claim(int(t)) for t in np.flatnonzero(owner == -1)]
        if ph == Phase.SETUP_PLACE:
            if s.setup_step == 2:
                return [Move.place_neutral(int(t)) for t in np.flatnonzero(owner == self.neutral)]
            return [Move.place(int(t), 1) for t in np.flatnonzero(owner == p)]
        if ph == Phase.REINFORCE:
            if self.can_trade(s):
                for trio in itertools.combinations(sorted(s.hands[p]), 3):
                    if composition_of([self.card_symbol[c] for c in trio]) >= 0:
                        cands = self.bonus_candidates(s, trio)
                        out.extend(Move.trade(trio, b) for b in (cands or [-1]))
            if self.can_place(s):
                for t in np.flatnonzero(owner == p):
                    out.extend(Move.place(int(t), n) for n in range(1, s.to_place + 1))
            return out
        if ph == Phase.ATTACK:
            for a in np.flatnonzero((owner == p) & (s.armies >= 2)):
                a = int(a)
                for b in self.attack_targets(s, a):
                    out.extend(Move.attack(a, b, d) for d in range(1, min(3, int(s.armies[a]) - 1) + 1))
                    out.append(Move.blitz(a, b))
            out.append(Move.end_attack())
            return out
        if ph == Phase.DEFEND:
            return [Move.defend(d) for d in range(1, min(2, int(s.armies[s.att_dst])) + 1)]
        if ph == Phase.OCCUPY:
            lo, hi = self.occupy_range(s)
            return [Move.occupy(n) for n in range(lo, hi + 1)]
        if ph == Phase.FORTIFY:
            for a in np.flatnonzero((owner == p) & (s.armies >= 2)):
                a = int(a)
                for b in np.flatnonzero(self.fortify_reach(s, a)):
                    out.extend(Move.fortify(a, int(b), n) for n in range(1, int(s.armies[a])))
            out.append(Move.end_turn())
            return out
        return out

    # ------------------------------------------------------------------ text forms
    def _hand_text(self, hand: Iterable[int]) -> str:
        return ", ".join(self.map.card_name(c) for c in sorted(hand)) or "no cards"

    def move_to_text(self, move: Move) -> str:
        """Readable text form of a move (see :mod:`risk_env.rules.moves`); :meth:`parse_move` reads it back."""
        name = self.map.name_of
        k = move.kind
        if k == MoveKind.CLAIM:
            return f"claim {name(move.src)}"
        if k == MoveKind.PLACE:
            return f"place {name(move.src)} {move.count}"
        if k == MoveKind.PLACE_NEUTRAL:
            return f"neutral {name(move.src)}"
        if k == MoveKind.TRADE:
            text = "trade " + ", ".join(self.map.card_name(c) for c in move.cards)
            return text + (f" bonus={name(move.bonus)}" if move.bonus >= 0 else "")
        if k == MoveKind.ATTACK:
            return f"attack {name(move.src)}->{name(move.dst)} dice={move.count}"
        if k == MoveKind.BLITZ:
            return f"blitz {name(move.src)}->{name(move.dst)}"
        if k == MoveKind.END_ATTACK:
            return "end attack"
        if k == MoveKind.DEFEND:
            return f"defend dice={move.count}"
        if k == MoveKind.OCCUPY:
            return f"occupy {move.count}"
        if k == MoveKind.FORTIFY:
            return f"fortify {name(move.src)}->{name(move.dst)} {move.count}"
        if k == MoveKind.END_TURN:
            return "end turn"
        raise ValueError(f"unknown move kind {k!r}")

    def parse_move(self, s: GameState | None, text: str) -> Move:
        """Parse a move's text form. ``s`` is accepted for symmetry and future
        context-dependent forms; parsing does not check legality (use :meth:`check`).

        Raises:
            IllegalMoveError: the text is malformed or names an unknown territory or card.
        """
        if not isinstance(text, str):
            raise IllegalMoveError(f"a move text must be a str, got {type(text).__name__}")
        t = " ".join(text.strip().split())
        verb, _, rest = t.partition(" ")
        verb = verb.lower()
        try:
            if verb == "claim":
                return Move.claim(self.map.id_of(rest))
            if verb == "neutral":
                return Move.place_neutral(self.map.id_of(rest))
            if verb == "place":
                where, _, num = rest.rpartition(" ")
                if not where:
                    return Move.place(self.map.id_of(rest), 1)
                return Move.place(self.map.id_of(where), _int(num, "armies"))
            if verb == "trade":
                body, _, bonus = rest.partition(" bonus=")
                cards = [self.map.card_of(c) for c in body.split(",")]
                if len(cards) != 3:
                    raise ValueError(f"a trade names 3 cards, got {len(cards)}")
                return Move.trade(cards, self.map.id_of(bonus) if bonus else -1)
            if verb in ("attack", "blitz"):
                pair, _, dice = rest.partition(" dice=")
                a, b = self._pair(pair)
                if verb == "blitz":
                    if dice:
                        raise ValueError("blitz takes no dice count")
                    return Move.blitz(a, b)
                return Move.attack(a, b, _int(dice, "dice"))
            if verb == "fortify":
                pair, _, num = rest.rpartition(" ")
                a, b = self._pair(pair)
                return Move.fortify(a, b, _int(num, "armies"))
            if verb == "defend":
                if not rest.startswith("dice="):
                    raise ValueError("write 'defend dice=1' or 'defend dice=2'")
                return Move.defend(_int(rest[5:], "dice"))
            if verb == "occupy":
                return Move.occupy(_int(rest, "armies"))
            if verb == "end" and rest.lower() in ("attack", "turn"):
                return Move.end_attack() if rest.lower() == "attack" else Move.end_turn()
        except ValueError as e:
            raise IllegalMoveError(f"cannot read move {text!r}: {e}") from None
        raise IllegalMoveError(
            f"cannot read move {text!r}: it must start with one of claim, place, neutral, trade, attack, blitz, "
            "defend, occupy, fortify, 'end attack', 'end turn'"
        )

    def _pair(self, text: str) -> tuple[int, int]:
        a, sep, b = text.partition("->")
        if not sep:
            raise ValueError(f"expected '<territory>-><territory>', got {text!r}")
        return self.map.id_of(a.strip()), self.map.id_of(b.strip())

    # ------------------------------------------------------------------ serialization & checks
    def state_from_dict(self, d: dict[str, Any]) -> GameState:
        """Rebuild a state from :meth:`GameState.to_dict` output and check it.

        Raises:
            StateError: a missing or malformed field, or a state that breaks the rules' invariants.
        """
        try:
            s = GameState.from_dict(d)
        except (KeyError, TypeError, ValueError, OverflowError) as e:
            raise StateError(f"malformed state dict: {type(e).__name__}: {e}") from None
        problems = self.invariant_violations(s) or self._field_problems(s)
        if problems:
            raise StateError("inconsistent state: " + "; ".join(problems))
        return s

    def _field_problems(self, s: GameState) -> list[str]:
        """Ranges of the bookkeeping fields a restored state must respect (not re-checked every step)."""
        T, n = self.T, self.num_players
        out: list[str] = []
        for f in ("att_src", "att_dst", "sel_src", "sel_dst"):
            v = getattr(s, f)
            if not -1 <= v < T:
                out.append(f"{f}={v} is not a territory id in 0..{T - 1} (or -1 for none)")
        if not -1 <= s.sel_trade < len(COMPOSITIONS):
            out.append(f"sel_trade={s.sel_trade} is not a set composition in 0..{len(COMPOSITIONS) - 1} (or -1 for none)")
        if s.phase in (Phase.DEFEND, Phase.OCCUPY) and (s.att_src < 0 or s.att_dst < 0):
            out.append(f"the {_PHASE_NAME[Phase(s.phase)]} phase needs a pending battle (att_src and att_dst)")
        if any(not 1 <= x <= 6 for x in s.dice_buf) or any(not 0 <= x <= 6 for x in s.last_roll):
            out.append("dice faces must be 1..6")
        if len(s.setup_left) != n + 1 or any(x < 0 for x in s.setup_left):
            out.append(f"setup_left must hold {n + 1} counts >= 0 (one per seat and the neutral)")
        for f in ("turn", "sets_traded", "to_place", "steps", "att_dice", "last_dice", "setup_step", "dice_pos"):
            v = getattr(s, f)
            if not 0 <= v <= 10**9:
                out.append(f"{f}={v} must be in 0..{10**9}")
        if s.dice_pos > len(s.dice_buf):
            out.append(f"dice_pos={s.dice_pos} is past the {len(s.dice_buf)} buffered dice")
        if not -1 <= s.winner < n or any(not 0 <= p < n for p in s.elim_order):
            out.append(f"winner and eliminated players must be seats 0..{n - 1}")
        return out

    def invariant_violations(self, s: GameState) -> list[str]:
        """The invariants of docs/rules.md §5 that ``s`` breaks (empty if none), plus structural checks."""
        T, n = self.T, self.num_players
        out: list[str] = []
        if s.owner.shape != (T,) or s.armies.shape != (T,):
            return [f"owner and armies must have {T} entries"]
        if len(s.alive) != n or len(s.hands) != n or sorted(s.order) != list(range(n)):
            return [f"alive, hands and order must describe {n} players"]
        if not 0 <= s.phase <= Phase.GAME_OVER:
            out.append(f"unknown phase {s.phase}")
        setup = s.phase in (Phase.CLAIM, Phase.SETUP_PLACE)
        unclaimed = s.owner == -1
        if ((s.owner < -1) | (s.owner >= self.num_seats)).any():
            out.append(
                f"an owner is not a seat: owners are 0..{self.num_seats - 1} (-1 only for unclaimed territories in the claim phase)"
            )
        if unclaimed.any() and s.phase != Phase.CLAIM:
            out.append("unclaimed territories after the claim phase")
        if (s.armies[unclaimed] != 0).any():
            out.append("an unclaimed territory holds armies")
        bad = np.flatnonzero(~unclaimed & (s.armies < 1))
        if len(bad):
            out.append(f"territories with fewer than 1 army: {', '.join(self.map.name_of(int(t)) for t in bad)}")
        if self.uses_cards:
            allc = s.deck + s.discard + [c for h in s.hands for c in h]
            if sorted(allc) != list(range(self.num_cards)):
                out.append(
                    f"cards not accounted for: draw pile + discards + hands must be each of the {self.num_cards} cards once"
                )
        elif any(s.hands) or s.deck or s.discard:
            out.append("cards present though these rules have no cards")
        for seat in range(n):
            has = bool((s.owner == seat).any())
            if not setup and s.alive[seat] != has:
                out.append(
                    f"player {seat} is {'alive' if s.alive[seat] else 'dead'} but holds {'some' if has else 'no'} territories"
                )
            if not s.alive[seat] and s.hands[seat]:
                out.append(f"eliminated player {seat} holds cards")
        if s.phase not in (Phase.GAME_OVER,) and not (0 <= s.player < n and s.alive[s.player]):
            out.append(f"player on turn {s.player} is not a live seat")
        if s.phase == Phase.GAME_OVER and not s.truncated and not 0 <= s.winner < n:
            out.append("game over without a winner or a truncation")
        return out


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{what} must be a whole number, got {text!r}") from None
