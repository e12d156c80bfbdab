"""The rules engine: a :class:`Game` (static facts: map, rules, tables, the variants its
rules turn on) that creates, validates and advances
:class:`~risk_env.rules.state.GameState` positions.

Pure Python and numpy; no Gymnasium or PettingZoo import. All chance (dice,
shuffles, random setup, the turn order) comes from the state's one seeded
``numpy.random.Generator``; every die is drawn through :meth:`Game.draw_dice`.

>>> game = Game(RulesConfig(num_players=3, setup="random"))
>>> s = game.new_game(seed=7)
>>> s.phase == Phase.REINFORCE, len(game.legal_moves(s)) > 0
(True, True)
>>> game.apply(s, game.parse_move(s, "end attack"))
Traceback (most recent call last):
...
risk_env.errors.IllegalMoveError: 'end attack' is not legal in the reinforce phase: ...

Rules are cited by docs/rules.md section in each method. This module holds the game:
setup (§3), the turn flow and its rule helpers (§4), battles and conquest (§4.2) and
applying moves, one method per move kind (:data:`risk_env.rules.moves.MOVES`). Around it,
each a concern of its own that takes the game's public tables and plain state:
:mod:`~risk_env.rules.legality` decides which moves are legal,
:mod:`~risk_env.rules.notation` reads and writes move text,
:mod:`~risk_env.rules.outcome` decides how a game ends and what each player gets,
:mod:`~risk_env.rules.checks` checks whole positions, and each rules variant is a module of
its own (:mod:`~risk_env.rules.variants`) whose hooks the game calls
(:mod:`~risk_env.rules.variant`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any, cast

import numpy as np

from ..errors import ConfigError, IllegalMoveError, check_seed
from . import checks, legality, notation
from .cards import composition_of, set_value, value_by_set
from .config import RulesConfig
from .dice import resolve_roll, roll_outcomes
from .map import GameMap, load_map
from .moves import MOVES, Move, MoveKind, MoveSpec
from .outcome import Outcome, outcome
from .state import GameState, Phase
from .variant import Variant
from .variants import variants_of

__all__ = ["Game", "Phase", "GameState", "Move", "MoveKind", "Outcome", "DICE_BATCH"]

_HOOKS = tuple(
    name for name, value in vars(Variant).items() if callable(value) and not name.startswith("_") and name != "applies"
)

DICE_BATCH = 600
"""Die faces drawn from a state's generator at a time (:meth:`Game.draw_dice`)."""


class Game:
    """Static facts of a game (map, rules, precomputed tables, the variants its rules turn
    on) and the rules as methods.

    Args:
        config: the rules; keyword overrides are applied on top (``Game(num_players=3)``).
        game_map: a loaded map, overriding ``config.map``.

    Attributes:
        variants: one :class:`~risk_env.rules.variant.Variant` per variant the rules turn on,
            in the order of :data:`risk_env.rules.variants.VARIANTS`; ``hooks`` maps each hook
            name to the bound hooks of the variants that override it.
        neutral: the 2-player neutral's owner id, else -1 (docs/rules.md §7).
        army: the owner id of a variant's own army (the allied army, §7), else -1.
        claims: territories each player claims in setup when a variant limits it (the allied
            army's rules, §7), else 0 (all of them, in turn).
        num_seats: owner ids that hold territories: the players, and one more when the
            2-player neutral or a variant's army is in the game.
        trade_variant: the variant that trades cards its own way (stars, §6), or None.
        trades_sets: cards are traded in sets of three (docs/rules.md §4.1).
        set_value_escalates: the next set's value depends only on the sets traded so far (an
            escalating ``card_trade`` schedule), the same for every set; False under
            ``fixed_by_symbol`` (valued by the set's symbols) and when no sets are traded
            (:meth:`next_set_value`).
        move_specs: the move kinds these rules have (:data:`risk_env.rules.moves.MOVES`, less the
            kinds of variants they do not play, plus their variants' forms).

    Raises:
        ConfigError: bad or inconsistent rules (e.g. too few armies to claim the map).
        MapError: the map cannot be loaded.
    """

    def __init__(self, config: RulesConfig | None = None, game_map: GameMap | None = None, **overrides: Any) -> None:
        if config is not None and not isinstance(config, RulesConfig):  # (Game("expert") was an AttributeError)
            hint = f" (a preset: Game(RulesConfig.from_preset({config!r})))" if isinstance(config, str) else ""
            raise ConfigError(f"Game takes a RulesConfig or None, got {type(config).__name__}{hint}")
        cfg = config or RulesConfig()
        if overrides:
            cfg = cfg.replace(**overrides)
        self.config = cfg
        self.map = game_map if game_map is not None else load_map(cfg.map)
        self.num_players = cfg.num_players
        self.neutral = cfg.num_players if cfg.has_neutral else -1
        m = self.map
        T = m.num_territories
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
        # RulesConfig fills starting_armies from the docs/rules.md §3 table when it is None
        self.starting_armies = cast(int, cfg.starting_armies)
        self.variants: tuple[Variant, ...] = tuple(cls(self) for cls in variants_of(cfg))
        # a variant's own army (the allied army, §7) is an owner beside the players, as the neutral is
        self.claims = max((v.claims() for v in self.variants), default=0)
        self.army = cfg.num_players if self.claims else -1
        self.num_seats = cfg.num_players + (1 if self.neutral >= 0 or self.army >= 0 else 0)
        # a variant that trades cards its own way (stars, §6); else cards go in sets of three, with
        # the forced trades of §4.1, §4.2
        self.trade_variant = next((v for v in self.variants if v.trade_spec() is not None), None)
        self.trades_sets = cfg.uses_cards and self.trade_variant is None
        self.set_value_escalates = self.trades_sets and not value_by_set(cfg.card_trade)
        self.move_specs: dict[MoveKind, MoveSpec] = {k: s for k, s in MOVES.items() if not s.variant}
        if not cfg.uses_cards:
            del self.move_specs[MoveKind.TRADE]
        elif self.trade_variant is not None:
            self.move_specs[MoveKind.TRADE] = cast(MoveSpec, self.trade_variant.trade_spec())
        self._kind_variant = {s.kind: v for v in self.variants for s in v.moves}
        self.move_specs.update({s.kind: s for v in self.variants for s in v.moves})
        if T < self.num_seats:  # (a seat with no territory has no legal move at its first decision)
            others = " and the neutral" if cfg.has_neutral else " and the allied army" if self.army >= 0 else ""
            raise ConfigError(
                f"map {m.name!r} has {T} territor{'y' if T == 1 else 'ies'}, too few for {self.num_seats} seats "
                f"({cfg.num_players} players{others}): "
                f"each seat starts with a territory, so the map needs at least {self.num_seats} (or play fewer players)"
            )
        if not self.claims and self.starting_armies * self.num_seats < T:
            raise ConfigError(
                f"starting_armies={cfg.starting_armies} is too few: {self.num_seats} seats "
                f"({cfg.num_players} players{' and the neutral' if cfg.has_neutral else ''}) with {cfg.starting_armies} "
                f"arm{'y' if cfg.starting_armies == 1 else 'ies'} each cannot claim the {T} territories of map {m.name!r}; "
                f"raise starting_armies to at least {-(-T // self.num_seats)}"
            )
        for v in self.variants:
            v.check()
        # for each hook, the variants that override it (a loop over nothing under the core rules)
        self.hooks: dict[str, tuple[Callable[..., Any], ...]] = {name: self.hooked(name) for name in _HOOKS}
        self._begin_turn_hooks = self.hooks["begin_turn"]
        self._winner_hooks = self.hooks["winner"]
        self._decider_hooks = self.hooks["decider"]
        self._attackable_hooks = self.hooks["attackable"]
        self._received_hooks = self.hooks["received"]
        self._roll_hooks = self.hooks["draws_roll"]
        self._takes_cards_hooks = self.hooks["takes_cards"]
        self._commander_hooks = self.hooks["commander"]
        self._new_battle_hooks = self.hooks["new_battle"]
        self._apply: dict[MoveKind, Callable[[GameState, Move], None]] = {
            MoveKind.CLAIM: self._claim_move,
            MoveKind.PLACE: self._place,
            MoveKind.PLACE_NEUTRAL: self._place_neutral,
            MoveKind.TRADE: self._trade,
            MoveKind.ATTACK: self._attack,
            MoveKind.BLITZ: self._blitz,
            MoveKind.END_ATTACK: self._end_attack,
            MoveKind.DEFEND: self._defend,
            MoveKind.OCCUPY: self._occupy,
            MoveKind.FORTIFY: self._fortify,
            MoveKind.END_TURN: self._end_turn_move,
        }
        for kind, v in self._kind_variant.items():
            self._apply[kind] = v.apply

    def overriding(self, hook: str) -> tuple[Variant, ...]:
        """The variants of this game that override ``hook`` (see :class:`~risk_env.rules.variant.Variant`),
        in variant order."""
        base = getattr(Variant, hook)
        return tuple(v for v in self.variants if getattr(type(v), hook) is not base)

    def hooked(self, hook: str) -> tuple[Callable[..., Any], ...]:
        """The bound hook ``hook`` of every variant of this game that overrides it, in variant order."""
        return tuple(getattr(v, hook) for v in self.overriding(hook))

    def kind_owner(self, kind: MoveKind) -> Variant | None:
        """The variant that adds move kind ``kind`` to these rules, or None for a core kind."""
        return self._kind_variant.get(kind)

    def variant(self, name: str) -> Variant | None:
        """The variant named ``name`` if this game plays with it (``game.variant("allied")``), else None."""
        return next((v for v in self.variants if v.name == name), None)

    def move_spec(self, kind: MoveKind) -> MoveSpec | None:
        """The :class:`~risk_env.rules.moves.MoveSpec` of ``kind`` under these rules (a variant may
        give a kind another form: ``TRADE`` by stars), or None for a kind these rules do not have."""
        return self.move_specs.get(kind)

    # ------------------------------------------------------------------ setup (docs/rules.md §3)
    def new_game(self, seed: int | None | np.random.SeedSequence = None) -> GameState:
        """A new game: the turn order drawn, setup done up to the first decision (docs/rules.md §3, §7).

        Args:
            seed: seeds the game's one generator (``None``: fresh entropy).

        Raises:
            ConfigError: ``seed`` is not ``None``, an integer >= 0 or a numpy ``SeedSequence``.
        """
        cfg = self.config
        n = self.num_players
        T = self.T
        check_seed(seed, allow_none=True, allow_sequence=True)
        rng = np.random.default_rng(seed)
        order = [int(x) for x in rng.permutation(n)]
        start = self.starting_armies
        s = GameState(  # the other fields start at their declared defaults (risk_env.rules.state)
            rng=rng,
            owner=np.full(T, -1, dtype=np.int64),
            armies=np.zeros(T, dtype=np.int32),
            order=order,
            alive=[True] * n,
            hands=[[] for _ in range(n)],
            setup_left=[start] * n + [start if self.neutral >= 0 else 0],
            player=order[0],
        )
        for v in self.variants:
            v.setup(s)
        if cfg.setup != "claim":  # deal (or draw at random) the territories; a claim game starts claiming
            cycle = self.claim_cycle(s)
            terr = s.rng.permutation(T)
            dealt = terr if not self.claims else terr[: n * self.claims]
            for k, t in enumerate(dealt):
                seat = cycle[k % len(cycle)]
                s.owner[t] = seat
                s.armies[t] = 1
                s.setup_left[seat] -= 1
            if self.claims:
                self._after_claims(s)
            if cfg.setup == "random":
                for seat in range(self.num_seats):
                    left = s.setup_left[seat]
                    if left > 0:
                        own = np.flatnonzero(s.owner == seat)
                        picks = s.rng.integers(0, len(own), size=left)
                        np.add.at(s.armies, own[picks], 1)
                        s.setup_left[seat] = 0
                self.finish_setup(s)
            else:
                self._start_setup_placement(s)
        if self.uses_cards:
            s.deck = [int(c) for c in s.rng.permutation(self.num_cards)]
        for v in self.variants:
            v.after_new_game(s)
        return s

    def claim_cycle(self, s: GameState) -> list[int]:
        """The seats in claiming order: the turn order, then the neutral if there is one (docs/rules.md §3, §7)."""
        return s.order + ([self.neutral] if self.neutral >= 0 else [])

    def _after_claims(self, s: GameState) -> None:
        for v in self.variants:
            v.after_claims(s)

    def _start_setup_placement(self, s: GameState) -> None:
        """After the last claim: the setup placements, from the first seat in turn order (docs/rules.md §3)."""
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
        self.finish_setup(s)

    def finish_setup(self, s: GameState) -> None:
        """After setup: a variant's decisions before the first turn, if any, then the first turn (§3, §8);
        a variant calls it again once its decisions are made."""
        s.turn = 0
        for v in self.variants:
            if v.before_first_turn(s):
                return
        self.begin_first_turn(s)

    def begin_first_turn(self, s: GameState) -> None:
        """The first turn of the game, by the first seat in turn order (docs/rules.md §3)."""
        s.player = s.order[0]
        self._begin_turn(s)

    def _claim(self, s: GameState, t: int, seat: int) -> None:
        """``seat`` claims territory ``t`` (docs/rules.md §3; the 2-player neutral claims at random in the rotation, §7)."""
        s.owner[t] = seat
        s.armies[t] = 1
        s.setup_left[seat] -= 1
        cycle = self.claim_cycle(s)
        nxt = cycle[(cycle.index(seat) + 1) % len(cycle)]
        if self.claims and int((s.owner >= 0).sum()) == self.num_players * self.claims:
            self._after_claims(s)  # each player has claimed its share
        if not (s.owner == -1).any():
            self._start_setup_placement(s)
        elif nxt == self.neutral:
            free = np.flatnonzero(s.owner == -1)
            self._claim(s, int(free[s.own_rng().integers(len(free))]), nxt)
        else:
            s.player = nxt

    def _after_setup_placement(self, s: GameState) -> None:
        """After one setup army: one army at a time in turn order; in a 2-player neutral game 2 own + 1 neutral
        per setup turn (docs/rules.md §3, §7)."""
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

    # ------------------------------------------------------------------ the turn (docs/rules.md §4)
    def _begin_turn(self, s: GameState) -> None:
        """Turn start: reinforcements and a forced trade at 5+ cards (docs/rules.md §4.1)."""
        s.turn += 1
        s.phase = Phase.REINFORCE
        s.to_place = self.income(s, s.player)
        s.bonus_used = s.conquered = s.resume_attack = s.trade_down = False
        s.att_src = s.att_dst = -1
        s.att_dice = 0
        s.forced = self.trades_sets and len(s.hands[s.player]) >= 5
        for hook in self._begin_turn_hooks:
            hook(s)

    def end_reinforce_if_done(self, s: GameState) -> None:
        """The attack phase begins once every reinforcement is placed and no trade is forced (§4.1)."""
        if s.to_place == 0 and not s.forced:
            s.phase = Phase.ATTACK
            s.resume_attack = False

    def pass_turn(self, s: GameState) -> None:
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

    def attackable(self, s: GameState) -> np.ndarray:
        """Bool ``(T,)``: territories the player on turn may attack (borders aside): every
        territory not its own, unless a variant says otherwise (docs/rules.md §4.2, §7)."""
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        ok = s.owner != s.player
        for hook in self._attackable_hooks:
            ok = hook(s, ok)
        return ok

    def income(self, s: GameState, seat: int) -> int:
        """Reinforcements at turn start: max(3, territories // 3) + owned continents' bonuses (docs/rules.md §4.1).

        >>> g = Game(num_players=2, setup="random"); s = g.new_game(0)
        >>> s.owner[:] = 0; s.owner[:5] = 1
        >>> g.income(s, 1)
        3
        """
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        owned = s.owner == seat
        n = int(owned.sum())
        total = max(3, n // 3)
        for idx, bonus in zip(self.continent_idx, self.continent_bonus, strict=False):
            if owned[idx].all():
                total += bonus
        return total

    def current_player(self, s: GameState) -> int:
        """Seat that decides now (the defender in the defend phase), or -1 when the game is over.

        >>> g = Game(num_players=2, setup="random"); s = g.new_game(0)
        >>> g.current_player(s) == s.order[0]
        True

        Raises:
            StateError: ``s`` is no :class:`GameState` (:func:`~risk_env.rules.legality.check_fits`).
        """
        if not isinstance(s, GameState):
            legality.check_fits(self, s)
        if s.phase == Phase.GAME_OVER:
            return -1
        for hook in self._decider_hooks:
            seat = hook(s)
            if seat is not None:
                return seat
        if s.phase == Phase.DEFEND:
            return int(s.owner[s.att_dst])
        return s.player

    def commanding(self, s: GameState) -> int:
        """The seat commanding a variant's army in its sub-turn now (the allied army, docs/rules.md §7:
        the opponent of the player on turn), or -1."""
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        for hook in self._commander_hooks:
            seat = hook(s)
            if seat >= 0:
                return seat
        return -1

    def army_name(self) -> str:
        """What text calls a variant's army (``"allied"``), or ``""`` without one."""
        for hook in self.hooks["owner_label"]:
            label = hook(self.army)
            if label is not None:
                return str(label)
        return ""

    def decision_text(self, s: GameState, short: bool = False) -> str | None:
        """What a variant's own decision in ``s`` asks of the one deciding (the capital phase, a roll that waits,
        docs/rules.md §8), in the variant's words, or None when the decision is not a variant's (see
        :meth:`Variant.decision_text <risk_env.rules.variant.Variant.decision_text>`; ``short``: for a picture)."""
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        for hook in self.hooks["decision_text"]:
            text = hook(s, short)
            if text is not None:
                return str(text)
        return None

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

        Raises:
            StateError: ``s`` is no :class:`GameState`, or a position of another map or player count.
        """
        legality.check_fits(self, s)
        return outcome(self, s)

    # ------------------------------------------------------------------ cards (docs/rules.md §4.1, §6)
    def next_set_value(self, sets_traded: int, comp: int = 3) -> int:
        """Armies a set of composition ``comp`` (an index of :data:`~risk_env.rules.cards.COMPOSITIONS`;
        default one of each kind) brings when ``sets_traded`` sets have been traded before it in the game,
        without the +2 bonus (docs/rules.md §4.1, §6); ``comp`` matters only under ``fixed_by_symbol``
        (:attr:`set_value_escalates`). 0 when cards are not traded in sets (no cards, or ``stars``, whose
        trades are valued by stars: :func:`~risk_env.rules.cards.stars_value`).

        Raises:
            ConfigError: ``sets_traded`` < 0 or ``comp`` not a composition.

        >>> g = Game(num_players=3); g.next_set_value(0), g.next_set_value(6)
        (4, 20)
        >>> Game(num_players=3, card_trade="fixed_by_symbol").next_set_value(0, 0)  # three infantry
        4
        """
        if isinstance(sets_traded, bool) or not isinstance(sets_traded, (int, np.integer)) or sets_traded < 0:
            raise ConfigError(f"sets_traded must be an integer >= 0, got {sets_traded!r}")
        if not self.trades_sets:
            return 0
        return set_value(self.config.card_trade, int(sets_traded), comp)

    def trade_value(self, s: GameState, cards: Iterable[int]) -> int:
        """Armies the set ``cards`` would bring now (without the +2 bonus) (docs/rules.md §4.1)."""
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        comp = composition_of([self.card_symbol[c] for c in cards])
        return self.next_set_value(s.sets_traded, comp)

    def trade_move_value(self, s: GameState, move: Move) -> int:
        """Armies the ``TRADE`` move ``move`` brings now, without the +2 bonus: its set's value, or
        what a variant that trades otherwise counts (stars, docs/rules.md §6)."""
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        if self.trade_variant is not None:
            return self.trade_variant.trade_value(s, move)
        return self.trade_value(s, move.cards)

    def bonus_candidates(self, s: GameState, cards: Iterable[int]) -> list[int]:
        """Territories that may take the +2 bonus for trading ``cards`` now (docs/rules.md §4.1;
        none when cards are not traded in sets)."""
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        if not self.trades_sets:
            return []
        if self.config.territory_bonus == "once_per_turn" and s.bonus_used:
            return []
        p = s.player
        return sorted(c for c in cards if c < self.T and s.owner[c] == p)

    def can_trade(self, s: GameState) -> bool:
        """Whether trading is allowed now (the hand may still hold no set; only players hold cards)."""
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        return (
            self.uses_cards and s.phase == Phase.REINFORCE and (s.forced or not s.resume_attack) and s.player < self.num_players
        )

    def can_place(self, s: GameState) -> bool:
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        return s.phase == Phase.REINFORCE and not s.forced and s.to_place > 0

    # ------------------------------------------------------------------ battles (docs/rules.md §4.2)
    def attack_targets(self, s: GameState, src: int) -> list[int]:
        """Enemy territories that ``src`` may attack now (docs/rules.md §4.2)."""
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        p = s.player
        if s.phase != Phase.ATTACK or s.owner[src] != p or s.armies[src] < 2:
            return []
        ok = self.attackable(s)
        return [t for t in self.neighbors[src] if ok[t]]

    def fortify_reach(self, s: GameState, src: int) -> np.ndarray:
        """Bool ``(T,)``: own territories that ``src`` may fortify to (docs/rules.md §4.3)."""
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
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
        ``defender_dice="choose"`` variant). Under a variant that changes rolls (the expert
        dice rules, §8) these are the outcomes of the roll as drawn.

        Raises:
            IllegalMoveError: ``move`` is not a legal attack in ``s``.
        """
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        if move.kind != MoveKind.ATTACK:
            raise IllegalMoveError(f"chance outcomes exist for attack moves, not {self.move_to_text(move)!r}")
        self.check(s, move)
        most = min(2, int(s.armies[move.dst]))
        d = most if defender_dice is None else defender_dice
        if not 1 <= d <= most:
            raise IllegalMoveError(f"the defender can roll 1..{most} dice, not {d}")
        return roll_outcomes(move.count, d)

    def occupy_range(self, s: GameState) -> tuple[int, int]:
        """Total armies that may stand in the conquered territory:
        ``(dice of the last roll, that + source - 1)`` (docs/rules.md §4.2)."""
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        lo = int(s.armies[s.att_dst])
        return lo, lo + int(s.armies[s.att_src]) - 1

    def draw_dice(self, s: GameState, k: int) -> list[int]:
        """The next ``k`` die faces (ints 1-6) of ``s``: every roll draws here. The faces come from
        a buffer of :data:`DICE_BATCH` faces refilled from the state's generator; a subclass may
        override this to watch or choose the dice (the differential tests do)."""
        pos = s.dice_pos
        if pos + k > len(s.dice_buf):
            s.dice_buf = s.own_rng().integers(1, 7, size=DICE_BATCH, dtype=np.int8).tolist()
            pos = 0
        s.dice_pos = pos + k
        return s.dice_buf[pos : pos + k]

    def roll(self, s: GameState, a: int, b: int, att: int, dfd: int) -> bool:
        """One roll of ``att`` attacking dice from ``a`` against ``dfd`` defending dice on ``b``
        (docs/rules.md §4.2), losses taken at once. Returns True if it conquered ``b``."""
        faces = self.draw_dice(s, att + dfd)
        ad = sorted(faces[:att], reverse=True)
        dd = sorted(faces[att:], reverse=True)
        al, dl = resolve_roll(ad, dd)
        s.armies[a] -= al
        s.armies[b] -= dl
        s.last_roll = ad + [0] + dd
        s.last_dice = att
        if s.armies[b] == 0:
            self.conquer(s, a, b, att)
            return True
        return False

    def _roll_battle(self, s: GameState, dfd: int) -> None:
        """The roll of the pending battle ``att_src -> att_dst``, by a variant's rules if one draws it."""
        for hook in self._roll_hooks:
            if hook(s, dfd):
                return
        self.roll(s, s.att_src, s.att_dst, s.att_dice, dfd)

    def take_losses(self, s: GameState) -> None:
        """Take the losses of the roll in ``s.last_roll`` for the pending battle (as :meth:`roll` does, §4.2)."""
        a, b, att = s.att_src, s.att_dst, s.att_dice
        al, dl = resolve_roll(s.last_roll[:att], s.last_roll[att + 1 :])
        s.armies[a] -= al
        s.armies[b] -= dl
        if s.armies[b] == 0:
            self.conquer(s, a, b, att)

    def conquer(self, s: GameState, a: int, b: int, dice: int) -> None:
        """Conquest of ``b`` from ``a`` with ``dice`` dice: elimination, card transfer and the win
        (docs/rules.md §4.2, §4.5)."""
        p = s.player
        takes = all(hook(s) for hook in self._takes_cards_hooks)  # a variant's army conquers for no one (§7)
        loser = int(s.owner[b])
        s.owner[b] = p
        s.armies[a] -= dice
        s.armies[b] = dice
        if takes:
            s.conquered = True
        s.att_src, s.att_dst = a, b
        # the neutral and a variant's army are never eliminated
        eliminated = loser < self.num_players and not (s.owner == loser).any()
        s.trade_down = False
        if eliminated:
            s.alive[loser] = False
            s.elim_order.append(loser)
            for v in self.variants:
                v.eliminated(s, loser, p)
            if self.uses_cards and not takes:
                s.discard.extend(s.hands[loser])
                s.hands[loser] = []
            elif self.uses_cards:
                s.hands[p].extend(s.hands[loser])
                s.hands[loser] = []
                s.trade_down = self.trades_sets and len(s.hands[p]) >= self.config.elimination_trade_at
            if sum(s.alive) == 1:
                s.winner = s.alive.index(True)  # the last player with territories (§4.5, §7)
                s.phase = Phase.GAME_OVER
                return
        if s.armies[a] > 1:
            s.phase = Phase.OCCUPY
        else:
            self._after_occupation(s)

    def _after_occupation(self, s: GameState) -> None:
        """Back to the attack phase, or to a forced trade-down after taking an eliminated
        player's cards (docs/rules.md §4.2)."""
        if s.trade_down:
            s.trade_down = False
            s.phase = Phase.REINFORCE
            s.forced = True
            s.resume_attack = True
            s.to_place = 0
        else:
            s.phase = Phase.ATTACK

    # ------------------------------------------------------------------ legality (risk_env.rules.legality)
    def check(self, s: GameState, move: Move) -> None:
        """Raise :class:`IllegalMoveError` (saying why and what is allowed now) unless ``move``
        is legal in ``s`` (:func:`risk_env.rules.legality.check`).

        Raises:
            IllegalMoveError: ``move`` is not a :class:`Move`, or not legal in ``s``.
            StateError: ``s`` is a position of another map or player count (another Game's).
        """
        legality.check(self, s, move)

    def legal_moves(self, s: GameState) -> list[Move]:
        """Every legal move in ``s`` (complete moves; counts enumerated one by one)
        (:func:`risk_env.rules.legality.legal_moves`).

        Raises:
            StateError: ``s`` is a position of another map or player count (another Game's).
        """
        return legality.legal_moves(self, s)

    def is_legal(self, s: GameState, move: Move) -> bool:
        """Whether ``move`` is legal in ``s`` (:meth:`check` raises nothing).

        Raises:
            StateError: ``s`` is a position of another map or player count (another Game's).
        """
        try:
            self.check(s, move)
        except IllegalMoveError:
            return False
        return True

    # ------------------------------------------------------------------ applying moves
    def apply(self, s: GameState, move: Move) -> None:
        """Apply a legal ``move`` to ``s`` in place.

        Raises:
            IllegalMoveError: the move is not legal; ``s`` is unchanged.
            StateError: ``s`` is a position of another map or player count (another Game's); ``s`` is unchanged.
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
        s.steps += 1
        self._apply[move.kind](s, move)
        if self._winner_hooks and s.turn >= 1 and s.phase != Phase.GAME_OVER:
            self.settle_winner(s)

    def settle_winner(self, s: GameState) -> bool:
        """Instant wins by a variant's rules (docs/rules.md §8), checked after every move of the
        game's turns: the first variant that names a winner ends the game. Returns whether it ended."""
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        for hook in self._winner_hooks:
            w = hook(s)
            if w >= 0:
                s.winner = w
                s.phase = Phase.GAME_OVER
                return True
        return False

    # one method per core move kind (MOVES); a variant applies the kinds it adds
    def _claim_move(self, s: GameState, move: Move) -> None:
        self._claim(s, move.src, s.player)

    def _place(self, s: GameState, move: Move) -> None:
        s.armies[move.src] += move.count
        if s.phase == Phase.SETUP_PLACE:
            s.setup_left[s.player] -= 1
            self._after_setup_placement(s)
        else:
            s.to_place -= move.count
            self.end_reinforce_if_done(s)

    def _place_neutral(self, s: GameState, move: Move) -> None:
        s.armies[move.src] += 1
        s.setup_left[-1] -= 1
        self._next_setup_turn(s)

    def _trade(self, s: GameState, move: Move) -> None:
        """Trade one set: the shared counter, the +2 territory bonus (docs/rules.md §4.1, §6)."""
        p = s.player
        hand = s.hands[p]
        trade = self.trade_variant
        if trade is not None:  # the variant picks the cards and counts their value (no +2 bonus, no forced trade)
            cards = trade.trade_cards(s, move)
            value = trade.trade_value(s, move)
        else:
            cards = move.cards
            value = self.trade_value(s, cards)
        for c in cards:
            hand.remove(c)
            s.discard.append(c)
        s.sets_traded += 1
        s.to_place += value
        for hook in self._received_hooks:
            hook(s, value + (2 if move.bonus >= 0 else 0))
        if move.bonus >= 0:
            s.armies[move.bonus] += 2
            s.bonus_used = True
        if s.forced and len(hand) <= 4:
            s.forced = False
        self.end_reinforce_if_done(s)

    def _attack(self, s: GameState, move: Move) -> None:
        for hook in self._new_battle_hooks:
            hook(s, move)
        s.att_src, s.att_dst, s.att_dice = move.src, move.dst, move.count
        if self.config.defender_dice == "choose" and int(s.owner[move.dst]) != self.neutral:
            s.phase = Phase.DEFEND
        else:
            self._roll_battle(s, min(2, int(s.armies[move.dst])))

    def _blitz(self, s: GameState, move: Move) -> None:
        a, b = move.src, move.dst
        for hook in self._new_battle_hooks:  # a blitz is a battle of its own; no variant changes its rolls
            hook(s, move)
        if self.config.defender_dice == "choose" and int(s.owner[b]) != self.neutral:
            # the defender decides every round of the blitz (docs/rules.md §4.2)
            s.att_src, s.att_dst, s.att_dice = a, b, min(3, int(s.armies[a]) - 1)
            s.blitzing = True
            s.phase = Phase.DEFEND
            return
        armies = s.armies
        while True:
            att = min(3, int(armies[a]) - 1)
            if self.roll(s, a, b, att, min(2, int(armies[b]))) or armies[a] < 2:
                break

    def _end_attack(self, s: GameState, move: Move) -> None:
        for v in self.variants:
            if v.end_attack(s):
                return
        s.phase = Phase.FORTIFY

    def _defend(self, s: GameState, move: Move) -> None:
        s.phase = Phase.ATTACK
        if s.blitzing:  # the next round of a blitz, unless it is over (docs/rules.md §4.2)
            a, b = s.att_src, s.att_dst
            if self.roll(s, a, b, s.att_dice, move.count) or s.armies[a] < 2:
                s.blitzing = False
            else:
                s.att_dice = min(3, int(s.armies[a]) - 1)
                s.phase = Phase.DEFEND
        else:
            self._roll_battle(s, move.count)

    def _occupy(self, s: GameState, move: Move) -> None:
        extra = move.count - int(s.armies[s.att_dst])
        s.armies[s.att_src] -= extra
        s.armies[s.att_dst] += extra
        self._after_occupation(s)

    def _fortify(self, s: GameState, move: Move) -> None:
        s.armies[move.src] -= move.count
        s.armies[move.dst] += move.count
        if not (self._winner_hooks and self.settle_winner(s)):  # a fortify can complete a mission
            self.pass_turn(s)

    def _end_turn_move(self, s: GameState, move: Move) -> None:
        self.pass_turn(s)

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
        if s is not None and not isinstance(s, GameState):  # (a dict form: StateError)
            legality.check_fits(self, s)
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
        if not isinstance(s, GameState):  # (a dict form, None: StateError)
            legality.check_fits(self, s)
        return checks.invariant_violations(self, s)
