"""The game state: plain data (numpy arrays, lists, ints), cheap to copy,
comparable, and serializable to a JSON-compatible dict.

The engine (:mod:`risk_env.rules.engine`) reads and writes these fields; users
should treat a state as read-only and change it only through
:meth:`Game.apply <risk_env.rules.engine.Game.apply>` or the action codec.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import numpy as np

__all__ = ["Phase", "GameState"]


class Phase(IntEnum):
    """Decision phases (docs/rules.md §3, §4)."""

    CLAIM = 0
    SETUP_PLACE = 1
    REINFORCE = 2
    ATTACK = 3
    DEFEND = 4
    OCCUPY = 5
    FORTIFY = 6
    GAME_OVER = 7
    CAPITAL = 8


_LIST_FIELDS = (
    "order",
    "alive",
    "setup_left",
    "deck",
    "discard",
    "elim_order",
    "last_roll",
    "missions",
    "capitals",
    "eliminated_by",
)
_OPTIONAL_LISTS = ("missions", "capitals", "eliminated_by")  # absent from dicts of earlier versions
_INT_FIELDS = (
    "phase",
    "player",
    "turn",
    "sets_traded",
    "to_place",
    "setup_step",
    "att_src",
    "att_dst",
    "att_dice",
    "last_dice",
    "winner",
    "dice_pos",
    "steps",
)
_BOOL_FIELDS = ("bonus_used", "conquered", "forced", "resume_attack", "trade_down", "truncated")
# The expert dice rules' bookkeeping (docs/rules.md §8), and a blitz whose defender chooses its dice
# (§4.2): written by to_dict only when one is set, so
# the dicts (and record digests) of games without those rules are unchanged.
_DICE_RULE_FIELDS = ("roll_pending", "reroll_used", "six_used", "blitzing")
# The allied army's bookkeeping (docs/rules.md §7), written by to_dict only in games with it
# (received > 0 from the first turn on), with these defaults when absent.
_ALLIED_FIELDS = (("commander", -1), ("received", 0))


class GameState:
    """One position of a game: the game and nothing else (the action codec's pending
    sub-step is kept apart, in :class:`risk_env.envs.codec.Selection`), so ``==``,
    :meth:`to_dict` and a record's digest all mean the same position.

    Attributes:
        owner: int64 ``(T,)``: owner seat (0..n-1), ``n`` for the 2-player
            neutral, -1 for unclaimed (setup only).
        armies: int32 ``(T,)``.
        phase: a :class:`Phase` value.
        player: seat on turn (in setup: whose setup turn).
        turn: game turns begun (0 during setup).
        order: turn order, a permutation of the seats.
        alive: per seat.
        hands: per seat, a list of card ids.
        deck: draw pile (top is the end); discard: discard pile.
        sets_traded: sets traded in the whole game (the shared counter).
        to_place: reinforcements still to place this phase.
        setup_left: armies still to place in setup, per seat plus the neutral (last).
        setup_step: own armies placed in this 2-player setup turn (2 = the neutral's).
        bonus_used: the +2 territory bonus was taken this turn.
        conquered: the player on turn conquered a territory this turn.
        forced: a trade is forced (hand too large) before anything else.
        resume_attack: the reinforce phase follows an elimination trade-down and returns to attack.
        trade_down: an elimination's forced trade-down waits for the occupation to finish.
        roll_pending: the expert dice rules (docs/rules.md §8): a roll is drawn
            (``last_roll``) and waits for the attacker to re-roll a die, turn one into
            a six, or let it stand, before the losses are taken.
        reroll_used: the re-roll of this battle is spent; six_used: the six of this turn is spent.
        blitzing: under ``defender_dice="choose"``, the pending battle is a blitz: after each
            roll the defender chooses its dice for the next, until it ends (docs/rules.md §4.2).
        commander: under ``two_player="allied"`` (docs/rules.md §7), while the allied army
            acts (its sub-turn: ``player`` is then the allied army's owner id, 2), the seat
            that decides for it (the opponent of the player whose turn it is); -1 otherwise.
        received: under ``two_player="allied"``, the armies the player on turn has received
            this turn (income, set values, +2 bonuses); the allied army gets half, rounded down.
        att_src, att_dst, att_dice: the pending battle (defend phase) or conquest (occupy).
        last_dice: attacker dice of the last roll (the occupation minimum).
        last_roll: ``[attacker faces..., 0, defender faces...]`` of the last roll.
        winner: winning seat or -1; truncated: ended by the turn limit.
        elim_order: seats in the order they were eliminated.
        rng: the game's one seeded generator; dice_buf/dice_pos: dice drawn in batches from it.
        steps: moves applied so far.
        missions: per seat, its secret mission (an index into
            :data:`risk_env.rules.missions.MISSIONS`; hidden from the other
            players), or empty without ``secret_missions`` (docs/rules.md §8).
        capitals: per seat, its capital territory (-1 while not chosen), or
            empty without ``capitals`` (§8).
        eliminated_by: per seat, the seat that eliminated it (-1 if alive), or
            empty without ``secret_missions`` (the missions need it).

    These three lists are left out of :meth:`to_dict` while empty, so the
    dicts (and record digests) of games without those variants stay as they were.
    """

    __slots__ = (
        ("owner", "armies", "hands", "rng", "dice_buf", "_rng_shared")
        + _LIST_FIELDS
        + _INT_FIELDS
        + _BOOL_FIELDS
        + _DICE_RULE_FIELDS
        + tuple(f for f, _ in _ALLIED_FIELDS)
    )

    owner: np.ndarray
    armies: np.ndarray
    hands: list[list[int]]
    rng: np.random.Generator
    dice_buf: list[int]
    order: list[int]
    alive: list[bool]
    setup_left: list[int]
    _rng_shared: bool
    deck: list[int]
    discard: list[int]
    elim_order: list[int]
    last_roll: list[int]
    missions: list[int]
    capitals: list[int]
    eliminated_by: list[int]
    phase: int
    player: int
    turn: int
    sets_traded: int
    to_place: int
    setup_step: int
    att_src: int
    att_dst: int
    att_dice: int
    last_dice: int
    winner: int
    dice_pos: int
    steps: int
    bonus_used: bool
    conquered: bool
    forced: bool
    resume_attack: bool
    trade_down: bool
    truncated: bool
    roll_pending: bool
    reroll_used: bool
    six_used: bool
    blitzing: bool
    commander: int
    received: int

    def copy(self) -> GameState:
        """An independent copy. The generator is shared copy-on-write: each
        side clones it before its next draw, so copies never disturb each other."""
        c = GameState.__new__(GameState)
        c.owner = self.owner.copy()
        c.armies = self.armies.copy()
        c.hands = [h[:] for h in self.hands]
        c.rng = self.rng
        c.dice_buf = self.dice_buf  # never mutated in place
        self._rng_shared = c._rng_shared = True
        for f in _LIST_FIELDS:
            setattr(c, f, getattr(self, f)[:])
        for f in _INT_FIELDS + _BOOL_FIELDS + _DICE_RULE_FIELDS:
            setattr(c, f, getattr(self, f))
        c.commander = self.commander
        c.received = self.received
        return c

    def own_rng(self) -> np.random.Generator:
        """The generator, cloned first if another copy shares it."""
        if self._rng_shared:
            g = np.random.Generator(np.random.PCG64(0))
            g.bit_generator.state = self.rng.bit_generator.state
            self.rng = g
            self._rng_shared = False
        return self.rng

    @property
    def game_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible dict of every field, the generator state included."""
        d: dict[str, Any] = {
            "owner": self.owner.tolist(),
            "armies": self.armies.tolist(),
            "hands": [h[:] for h in self.hands],
            "rng": self.rng.bit_generator.state,
            "dice_buf": self.dice_buf[self.dice_pos :],
        }
        for f in _LIST_FIELDS:
            v = getattr(self, f)
            if v or f not in _OPTIONAL_LISTS:
                d[f] = list(v)
        for f in _INT_FIELDS:
            d[f] = int(getattr(self, f))
        for f in _BOOL_FIELDS:
            d[f] = bool(getattr(self, f))
        if self.roll_pending or self.reroll_used or self.six_used or self.blitzing:
            for f in _DICE_RULE_FIELDS:
                d[f] = bool(getattr(self, f))
        if self.commander >= 0 or self.received:
            for f, _ in _ALLIED_FIELDS:
                d[f] = int(getattr(self, f))
        d["dice_pos"] = 0
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameState:
        """Rebuild a state from :meth:`to_dict` output (structure only; use
        :meth:`Game.state_from_dict <risk_env.rules.engine.Game.state_from_dict>`
        to also check it against the rules and the map).

        Dicts written by earlier versions also carry ``sel_src``, ``sel_dst`` and
        ``sel_trade`` (the action codec's pending selection, which the state no
        longer holds): those keys are ignored, so such a state loads at the top of
        its decision with nothing selected.

        Raises:
            KeyError, TypeError, ValueError: a missing or malformed field.
        """
        s = cls.__new__(cls)
        s.owner = np.array(d["owner"], dtype=np.int64)
        s.armies = np.array(d["armies"], dtype=np.int32)
        s.hands = [[int(c) for c in h] for h in d["hands"]]
        st = d["rng"]
        if not isinstance(st, dict) or st.get("bit_generator") != "PCG64":
            raise ValueError("rng must be a PCG64 bit_generator state dict")
        g = np.random.Generator(np.random.PCG64(0))
        g.bit_generator.state = st
        s.rng = g
        s._rng_shared = False
        s.dice_buf = [int(x) for x in d["dice_buf"]]
        for f in _LIST_FIELDS:
            if f not in d and f in _OPTIONAL_LISTS:
                v = []
            else:
                v = d[f]
            if not isinstance(v, list):
                raise TypeError(f"state field {f!r} must be a list")
            if f == "alive" and not all(isinstance(x, bool) for x in v):
                raise TypeError(f"state field 'alive' must be a list of true/false, got {v!r}")
            setattr(s, f, list(v) if f == "alive" else [int(x) for x in v])
        for f in _INT_FIELDS:
            setattr(s, f, int(d[f]))
        for f in _BOOL_FIELDS:
            if not isinstance(d[f], bool):
                raise TypeError(f"state field {f!r} must be true or false, got {d[f]!r}")
            setattr(s, f, d[f])
        for f in _DICE_RULE_FIELDS:  # absent: false (written only when one is set)
            v = d.get(f, False)
            if not isinstance(v, bool):
                raise TypeError(f"state field {f!r} must be true or false, got {v!r}")
            setattr(s, f, v)
        for f, default in _ALLIED_FIELDS:  # absent: the default (written only in allied-army games)
            v = d.get(f, default)
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"state field {f!r} must be an integer, got {v!r}")
            setattr(s, f, v)
        return s
