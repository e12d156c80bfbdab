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

Rules are cited by docs/rules.md section in each method. The engine is split by
concern: this module holds :class:`Game` (applying moves, the turn flow and the
rule helpers), :mod:`~risk_env.rules.setup` builds a new game and runs the claim
and setup placements, :mod:`~risk_env.rules.battle` rolls the dice and settles
battles and conquests, :mod:`~risk_env.rules.legality` decides which moves are
legal, :mod:`~risk_env.rules.notation` reads and writes move text,
:mod:`~risk_env.rules.outcome` decides how a game ends and what each player
gets, and :mod:`~risk_env.rules.checks` checks whole positions.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from fractions import Fraction
from typing import Any, cast

import numpy as np

from ..errors import ConfigError, IllegalMoveError
from . import battle, checks, legality, notation, setup
from .cards import SYMBOL_STARS, composition_of, set_value, stars_pick, stars_value
from .config import RulesConfig
from .dice import roll_outcomes
from .map import GameMap, load_map
from .missions import capitals_winner, check_map, settle_missions
from .moves import Move, MoveKind
from .outcome import Outcome, outcome
from .state import GameState, Phase

__all__ = ["Game", "Phase", "GameState", "Move", "MoveKind", "Outcome"]


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
        # the allied army of the 1975 two-player rules (docs/rules.md §7): owner id 2, never a player
        self.allied = cfg.num_players if cfg.has_allied else -1
        self.num_seats = cfg.num_players + (1 if cfg.has_neutral or cfg.has_allied else 0)
        m = self.map
        T = m.num_territories
        # territories each player claims under the allied army's rules (14 of 42, §7)
        self.allied_claims = T // 3 if cfg.has_allied else 0
        if cfg.has_allied and (self.allied_claims < 1 or cast(int, cfg.starting_armies) < self.allied_claims):
            raise ConfigError(
                f"two_player='allied' needs a map of at least 3 territories and starting_armies >= {max(1, T // 3)} "
                f"(each player claims a third of the map, docs/rules.md §7); map {m.name!r} has {T} territories, "
                f"starting_armies={cfg.starting_armies}"
            )
        # RulesConfig fills starting_armies from the docs/rules.md §3 table when it is None
        self.starting_armies = cast(int, cfg.starting_armies)
        if self.starting_armies * self.num_seats < T and not cfg.has_allied:
            raise ConfigError(
                f"starting_armies={cfg.starting_armies} is too few: {self.num_seats} seats "
                f"({cfg.num_players} players{' and the neutral' if cfg.has_neutral else ''}) with {cfg.starting_armies} "
                f"arm{'y' if cfg.starting_armies == 1 else 'ies'} each cannot claim the {T} territories of map {m.name!r}; "
                f"raise starting_armies to at least {-(-T // self.num_seats)}"
            )
        if cfg.secret_missions:
            check_map(m)  # the missions name the classic continents (docs/rules.md §8)
        self.T = T
        self.uses_cards = cfg.uses_cards
        self.stars = cfg.card_trade == "stars"
        # cards are traded in sets of three (with the forced trades of §4.1, §4.2), not by stars (§6)
        self.trades_sets = cfg.uses_cards and not self.stars
        # the expert dice rules (§8): a roll may wait for the attacker's re-roll or six
        self.dice_rules = cfg.reroll_with_card or cfg.die_to_six
        self.num_cards = m.num_cards if cfg.uses_cards else 0
        # Precomputed tables (read-only).
        self.neighbors = m.neighbors
        self.adjacency = m.adjacency
        self.edge_src = m.edge_src
        self.edge_dst = m.edge_dst
        self.card_symbol = m.card_symbol.tolist()
        self.card_stars = [SYMBOL_STARS[x] for x in self.card_symbol]
        self.continent_idx = [np.flatnonzero(row) for row in m.continent_members]
        self.continent_bonus = m.continent_bonus.tolist()

    # ------------------------------------------------------------------ setup (risk_env.rules.setup)
    def new_game(self, seed: int | None | np.random.SeedSequence = None) -> GameState:
        """A new game: the turn order drawn, setup done up to the first decision
        (:func:`risk_env.rules.setup.new_game`, docs/rules.md §3, §7).

        Args:
            seed: seeds the game's one generator (``None``: fresh entropy).

        Raises:
            ConfigError: ``seed`` is not ``None``, an integer >= 0 or a numpy ``SeedSequence``.
        """
        return setup.new_game(self, seed)

    def _begin_turn(self, s: GameState) -> None:
        """Turn start: reinforcements and a forced trade at 5+ cards (docs/rules.md §4.1)."""
        s.turn += 1
        s.phase = Phase.REINFORCE
        s.to_place = self.income(s, s.player)
        s.bonus_used = s.conquered = s.resume_attack = s.trade_down = False
        s.reroll_used = s.six_used = False
        s.att_src = s.att_dst = -1
        s.att_dice = 0
        s.forced = self.trades_sets and len(s.hands[s.player]) >= 5
        if self.allied >= 0:
            s.received = s.to_place  # the allied army's half is counted from it (§7)

    # ------------------------------------------------------------------ the allied army (docs/rules.md §7)
    def allied_acting(self, s: GameState) -> bool:
        """Whether the allied army acts now (its sub-turn: placing, attacking, occupying,
        or waiting for a defender's dice), decided by ``s.commander`` (docs/rules.md §7)."""
        return self.allied >= 0 and s.player == self.allied

    def allied_reinforcement(self, s: GameState) -> int:
        """Armies the allied army gets in the current turn: half of what the player on turn
        received this turn (``s.received``: income, set values and +2 bonuses), rounded
        down (9 -> 4), and 0 once the allied army holds no territory (docs/rules.md §7)."""
        if self.allied < 0 or not (s.owner == self.allied).any():
            return 0
        return s.received // 2

    def _start_allied(self, s: GameState) -> None:
        """After the mover's attacks: the opponent places the allied reinforcement, then may
        attack with the allied army; without allied territories, straight to the fortify (§7)."""
        if not (s.owner == self.allied).any():
            s.phase = Phase.FORTIFY
            return
        p = s.player
        s.commander = next(q for q in s.order if q != p and s.alive[q])
        s.to_place = self.allied_reinforcement(s)
        s.player = self.allied
        s.att_src = s.att_dst = -1
        s.att_dice = 0
        s.phase = Phase.REINFORCE
        self._maybe_end_reinforce(s)

    def _end_allied(self, s: GameState) -> None:
        """The allied army's attacks are over: the mover fortifies (docs/rules.md §7)."""
        s.player = next(q for q in s.order if q != s.commander)
        s.commander = -1
        s.att_src = s.att_dst = -1
        s.att_dice = 0
        s.phase = Phase.FORTIFY

    def attackable(self, s: GameState) -> np.ndarray:
        """Bool ``(T,)``: territories the player on turn may attack (borders aside): every
        territory not its own; the allied army attacks only the mover's, never its commander's
        (docs/rules.md §4.2, §7)."""
        return (s.owner != s.player) & (s.owner != s.commander)  # commander is -1 outside the allied sub-turn

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
        """Armies the set ``cards`` would bring now (without the +2 bonus) (docs/rules.md §4.1, §6).
        Under ``card_trade="stars"``: what the cards' stars together bring (§6)."""
        if self.stars:
            return stars_value(sum(self.card_stars[c] for c in cards))
        comp = composition_of([self.card_symbol[c] for c in cards])
        return set_value(self.config.card_trade, s.sets_traded, comp)

    def trade_move_value(self, s: GameState, move: Move) -> int:
        """Armies the ``TRADE`` move ``move`` brings now, without the +2 bonus: its set's value,
        or under ``card_trade="stars"`` its star total's value (docs/rules.md §4.1, §6)."""
        return stars_value(move.count) if self.stars else self.trade_value(s, move.cards)

    def stars_cards(self, s: GameState, stars: int) -> tuple[int, ...] | None:
        """The cards a stars trade of ``stars`` stars by the player on turn gives up now, or
        None if its hand cannot make that total (:func:`risk_env.rules.cards.stars_pick`, docs/rules.md §6)."""
        return stars_pick(s.hands[s.player], self.card_symbol, stars)

    def bonus_candidates(self, s: GameState, cards: Iterable[int]) -> list[int]:
        """Territories that may take the +2 bonus for trading ``cards`` now (docs/rules.md §4.1;
        none under ``card_trade="stars"``, §6)."""
        if self.stars:
            return []
        if self.config.territory_bonus == "once_per_turn" and s.bonus_used:
            return []
        p = s.player
        return sorted(c for c in cards if c < self.T and s.owner[c] == p)

    def can_trade(self, s: GameState) -> bool:
        """Whether trading is allowed now (the hand may still hold no set; the allied army holds no cards)."""
        return (
            self.uses_cards and s.phase == Phase.REINFORCE and (s.forced or not s.resume_attack) and s.player < self.num_players
        )

    def can_place(self, s: GameState) -> bool:
        return s.phase == Phase.REINFORCE and not s.forced and s.to_place > 0

    def attack_targets(self, s: GameState, src: int) -> list[int]:
        """Enemy territories that ``src`` may attack now (docs/rules.md §4.2)."""
        p = s.player
        if s.phase != Phase.ATTACK or s.owner[src] != p or s.armies[src] < 2:
            return []
        ok = self.attackable(s)
        return [t for t in self.neighbors[src] if ok[t]]

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
        ``defender_dice="choose"`` variant). Under the expert dice rules (§8) these are the
        outcomes of the roll as drawn, before any re-roll or six.

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

    def current_player(self, s: GameState) -> int:
        """Seat that decides now (the defender in the defend phase), or -1 when the game is over.

        >>> g = Game(num_players=2, setup="random"); s = g.new_game(0)
        >>> g.current_player(s) == s.order[0]
        True
        """
        if s.phase == Phase.GAME_OVER:
            return -1
        if s.phase == Phase.DEFEND:
            d = int(s.owner[s.att_dst])
            if d == self.allied:  # the player not attacking rolls for the allied army (§7)
                return next(q for q in s.order if q != s.player)
            return d
        if s.player == self.allied:
            return s.commander  # the opponent of the mover commands the allied army (§7)
        return s.player

    def to_act(self, s: GameState) -> int:
        """Deprecated name of :meth:`current_player`."""
        warnings.warn("Game.to_act is deprecated; use Game.current_player", DeprecationWarning, stacklevel=2)
        return self.current_player(s)

    def outcome(self, s: GameState) -> Outcome:
        """How ``s`` stands: ended by a win (terminated) or the turn limit (truncated),
        the winner, and every player's return so far, the rank reward at truncation
        included (:func:`risk_env.rules.outcome.outcome`, docs/rules.md §4.5).

        >>> g = Game(num_players=3, setup="random"); s = g.new_game(0)
        >>> g.outcome(s)
        Outcome(terminated=False, truncated=False, winner=-1, returns=(0.0, 0.0, 0.0), eliminated=())
        """
        return outcome(self, s)

    # ------------------------------------------------------------------ legality (risk_env.rules.legality)
    def check(self, s: GameState, move: Move) -> None:
        """Raise :class:`IllegalMoveError` (saying why and what is allowed now) unless ``move``
        is legal in ``s`` (:func:`risk_env.rules.legality.check`)."""
        legality.check(self, s, move)

    def legal_moves(self, s: GameState) -> list[Move]:
        """Every legal move in ``s`` (complete moves; counts enumerated one by one)
        (:func:`risk_env.rules.legality.legal_moves`)."""
        return legality.legal_moves(self, s)

    def is_legal(self, s: GameState, move: Move) -> bool:
        try:
            self.check(s, move)
        except IllegalMoveError:
            return False
        return True

    def occupy_range(self, s: GameState) -> tuple[int, int]:
        """Total armies that may stand in the conquered territory:
        ``(dice of the last roll, that + source - 1)`` (docs/rules.md §4.2)."""
        lo = int(s.armies[s.att_dst])
        return lo, lo + int(s.armies[s.att_src]) - 1

    # ------------------------------------------------------------------ applying moves
    def apply(self, s: GameState, move: Move) -> None:
        """Apply a legal ``move`` to ``s`` in place.

        Raises:
            IllegalMoveError: the move is not legal; ``s`` is unchanged.
        """
        legality.check(self, s, move)
        self.apply_unchecked(s, move)

    def step(self, s: GameState, move: Move) -> GameState:
        """Pure form of :meth:`apply`: a new state, ``s`` untouched."""
        c = s.copy()
        self.apply(c, move)
        return c

    def apply_unchecked(self, s: GameState, move: Move) -> None:
        """Apply ``move`` to ``s`` in place without checking it.

        For callers that have decided legality already: the action codec, whose
        mask is the oracle for action ids (tested equal to :meth:`legal_moves`).
        An illegal move here leaves ``s`` inconsistent; use :meth:`apply` for
        moves from anywhere else.
        """
        k = move.kind
        p = s.player
        s.steps += 1
        if k == MoveKind.CLAIM:
            setup.claim(self, s, move.src, p)
        elif k == MoveKind.PLACE:
            s.armies[move.src] += move.count
            if s.phase == Phase.SETUP_PLACE:
                s.setup_left[p] -= 1
                setup.after_setup_placement(self, s)
            else:
                s.to_place -= move.count
                self._maybe_end_reinforce(s)
        elif k == MoveKind.PLACE_NEUTRAL:
            s.armies[move.src] += 1
            s.setup_left[-1] -= 1
            setup.next_setup_turn(self, s)
        elif k == MoveKind.TRADE:
            self._trade(s, move)
        elif k == MoveKind.ATTACK:
            if (move.src, move.dst) != (s.att_src, s.att_dst):
                s.reroll_used = False  # a new battle (docs/rules.md §8)
            s.att_src, s.att_dst, s.att_dice = move.src, move.dst, move.count
            defender = int(s.owner[move.dst])
            if self.config.defender_dice == "choose" and defender != self.neutral:
                s.phase = Phase.DEFEND
            elif self.dice_rules and p != self.allied:  # the allied army's rolls stand as drawn (§7, §8)
                battle.roll_or_wait(self, s, min(2, int(s.armies[move.dst])))
            else:
                battle.roll(self, s, move.src, move.dst, move.count, min(2, int(s.armies[move.dst])))
        elif k == MoveKind.BLITZ:
            a, b = move.src, move.dst
            if self.dice_rules:
                s.reroll_used = False  # a blitz is a battle of its own and never uses the expert dice rules
            if self.config.defender_dice == "choose" and int(s.owner[b]) != self.neutral:
                # the defender decides every round of the blitz (docs/rules.md §4.2)
                s.att_src, s.att_dst, s.att_dice = a, b, min(3, int(s.armies[a]) - 1)
                s.blitzing = True
                s.phase = Phase.DEFEND
                return
            armies = s.armies
            while True:
                att = min(3, int(armies[a]) - 1)
                if battle.roll(self, s, a, b, att, min(2, int(armies[b]))) or armies[a] < 2:
                    break
        elif k == MoveKind.END_ATTACK:
            if self.allied < 0:
                s.phase = Phase.FORTIFY
            elif p == self.allied:
                self._end_allied(s)
            else:
                self._start_allied(s)
        elif k == MoveKind.DEFEND:
            s.phase = Phase.ATTACK
            if s.blitzing:  # the next round of a blitz, unless it is over (docs/rules.md §4.2)
                a, b = s.att_src, s.att_dst
                if battle.roll(self, s, a, b, s.att_dice, move.count) or s.armies[a] < 2:
                    s.blitzing = False
                else:
                    s.att_dice = min(3, int(s.armies[a]) - 1)
                    s.phase = Phase.DEFEND
            elif self.dice_rules and p != self.allied:
                battle.roll_or_wait(self, s, move.count)
            else:
                battle.roll(self, s, s.att_src, s.att_dst, s.att_dice, move.count)
        elif k == MoveKind.REROLL:
            att = s.att_dice
            faces = s.last_roll[:att]
            faces[move.count - 1] = self._draw_dice(s, 1)[0]
            s.last_roll = sorted(faces, reverse=True) + s.last_roll[att:]
            s.reroll_used = True
            battle.settle_unless_options(self, s)
        elif k == MoveKind.SIX:
            att = s.att_dice
            faces = s.last_roll[:att]
            faces[move.count - 1] = 6
            s.last_roll = sorted(faces, reverse=True) + s.last_roll[att:]
            s.six_used = True
            battle.settle_unless_options(self, s)
        elif k == MoveKind.KEEP_ROLL:
            battle.settle(self, s)
        elif k == MoveKind.OCCUPY:
            extra = move.count - int(s.armies[s.att_dst])
            s.armies[s.att_src] -= extra
            s.armies[s.att_dst] += extra
            battle.after_occupation(s)
        elif k == MoveKind.FORTIFY:
            s.armies[move.src] -= move.count
            s.armies[move.dst] += move.count
            if not (self._variant_wins and self._variant_win(s)):  # a fortify can complete a mission
                self._end_turn(s)
        elif k == MoveKind.END_TURN:
            self._end_turn(s)
        elif k == MoveKind.CAPITAL:
            s.capitals[p] = move.src
            setup.start_game(self, s)
        if self._variant_wins and s.turn >= 1 and s.phase != Phase.GAME_OVER:
            self._variant_win(s)

    @property
    def _variant_wins(self) -> bool:
        return self.config.secret_missions or self.config.capitals

    def _variant_win(self, s: GameState) -> bool:
        """Instant wins of docs/rules.md §8, checked after every move of the game's turns: a
        completed secret mission (the player on turn first, then the others in turn order), then
        every capital held by one player. Returns whether the game ended."""
        w = settle_missions(self, s) if self.config.secret_missions else -1
        if w < 0 and self.config.capitals:
            w = capitals_winner(self, s)
        if w < 0:
            return False
        s.winner = w
        s.phase = Phase.GAME_OVER
        return True

    def _maybe_end_reinforce(self, s: GameState) -> None:
        if s.to_place == 0 and not s.forced:
            s.phase = Phase.ATTACK
            s.resume_attack = False

    def _trade(self, s: GameState, move: Move) -> None:
        """Trade one set: the shared counter, the +2 territory bonus (docs/rules.md §4.1, §6)."""
        p = s.player
        hand = s.hands[p]
        if self.stars:  # §6: the rules pick the cards; no +2 bonus, no forced trade
            cards = self.stars_cards(s, move.count) or ()
            value = stars_value(move.count)
        else:
            cards = move.cards
            value = self.trade_value(s, cards)
        for c in cards:
            hand.remove(c)
            s.discard.append(c)
        s.sets_traded += 1
        s.to_place += value
        if self.allied >= 0:
            s.received += value + (2 if move.bonus >= 0 else 0)
        if move.bonus >= 0:
            s.armies[move.bonus] += 2
            s.bonus_used = True
        if s.forced and len(hand) <= 4:
            s.forced = False
        self._maybe_end_reinforce(s)

    # ------------------------------------------------------------------ battles (risk_env.rules.battle)
    def _draw_dice(self, s: GameState, k: int) -> list[int]:
        """The next ``k`` die faces (:func:`risk_env.rules.battle.draw_dice`); every roll draws here."""
        return battle.draw_dice(s, k)

    def can_reroll(self, s: GameState) -> bool:
        """Whether the attacker may re-roll one die of the pending roll now
        (:func:`risk_env.rules.battle.can_reroll`, docs/rules.md §8)."""
        return battle.can_reroll(self, s)

    def can_six(self, s: GameState) -> bool:
        """Whether the attacker may turn one die of the pending roll into a six now
        (:func:`risk_env.rules.battle.can_six`, docs/rules.md §8)."""
        return battle.can_six(self, s)

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

    # ------------------------------------------------------------------ notation (risk_env.rules.notation)
    def move_to_text(self, move: Move) -> str:
        """Readable text of ``move`` (:func:`risk_env.rules.notation.move_to_text`)."""
        return notation.move_to_text(self.map, move)

    def parse_move(self, s: GameState | None, text: str) -> Move:
        """The move ``text`` writes (:func:`risk_env.rules.notation.parse_move`). ``s`` is
        accepted for symmetry and future context-dependent forms; reading does not
        decide legality (use :meth:`check`).

        Raises:
            InvalidMoveError: the text is not a str, malformed, or names an unknown territory or card.
        """
        return notation.parse_move(self.map, text)

    # ------------------------------------------------------------------ whole-position checks (risk_env.rules.checks)
    def state_from_dict(self, d: dict[str, Any]) -> GameState:
        """Rebuild a state from :meth:`GameState.to_dict` output and check it
        (:func:`risk_env.rules.checks.state_from_dict`).

        Raises:
            StateError: a missing or malformed field, or a state that breaks the rules' invariants.
        """
        return checks.state_from_dict(self, d)

    def invariant_violations(self, s: GameState) -> list[str]:
        """The invariants of docs/rules.md §5 that ``s`` breaks (empty if none), plus structural checks."""
        return checks.invariant_violations(self, s)
