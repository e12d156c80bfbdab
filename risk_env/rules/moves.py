"""Moves: complete decisions of the rules, as small immutable values, and the one table
of move kinds (:data:`MOVES`) that notation, legality, the engine and the action codec read.

A :class:`Move` holds territory/card ids; its text form needs a map's names, so it is
written and read by :mod:`risk_env.rules.notation` (also as
:meth:`Game.move_to_text <risk_env.rules.engine.Game.move_to_text>` and
:meth:`Game.parse_move <risk_env.rules.engine.Game.parse_move>`). Each kind's text form,
fields, phases, action-id blocks and rules section are one :class:`MoveSpec` in
:data:`MOVES` (the docs/rules.md section in brackets):

=================  ==============================================  =========
kind               text                                            rule
=================  ==============================================  =========
``CLAIM``          ``claim Alaska``                                §3
``PLACE``          ``place Alaska 3``                              §3, §4.1
``PLACE_NEUTRAL``  ``neutral Peru``                                §7
``TRADE``          ``trade Alaska, Peru, Wild 1 bonus=Alaska``     §4.1
                   ``trade stars=7`` (``card_trade="stars"``)      §6
``ATTACK``         ``attack Alaska->Kamchatka dice=3``             §4.2
``BLITZ``          ``blitz Alaska->Kamchatka``                     §4.2
``END_ATTACK``     ``end attack``                                  §4.2
``DEFEND``         ``defend dice=2``                               §4.2
``OCCUPY``         ``occupy 5``  (armies in the conquered territory) §4.2
``FORTIFY``        ``fortify Alaska->Alberta 4``                   §4.3
``END_TURN``       ``end turn``  (skip the fortify)                §4.3
``REROLL``         ``reroll die=1``  (expert rules: re-roll the    §8
                   highest attack die, before the losses)
``SIX``            ``six die=3``  (expert rules: turn the third    §8
                   highest attack die into a six)
``KEEP_ROLL``      ``keep roll``  (let the roll stand)             §8
``CAPITAL``        ``capital Alaska``  (``capitals=True``)         §8
=================  ==============================================  =========

``REROLL``, ``SIX`` and ``KEEP_ROLL`` exist only under the ``reroll_with_card``
and ``die_to_six`` switches: after a roll that may still be changed, the
attacker's dice are shown sorted from highest to lowest, and ``die=j`` names the
``j``-th of them.

``BLITZ`` rolls the most dice on both sides again and again until the target
is conquered or the source is down to 1 army.

>>> Move.attack(0, 30, 3)
Move(kind=<MoveKind.ATTACK: 4>, src=0, dst=30, count=3, cards=(), bonus=-1)
>>> MOVES[MoveKind.ATTACK].text, MOVES[MoveKind.ATTACK].blocks
('attack {src}->{dst} dice={count}', ('territory', 'territory', 'dice', 'blitz'))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from ..errors import InvalidMoveError
from .state import Phase

__all__ = ["Move", "MoveKind", "MoveSpec", "MOVES", "STARS_TRADE", "VERBS", "FIELD_DEFAULTS"]


_set = object.__setattr__


class MoveKind(IntEnum):
    CLAIM = 0
    PLACE = 1
    PLACE_NEUTRAL = 2
    TRADE = 3
    ATTACK = 4
    BLITZ = 5
    END_ATTACK = 6
    DEFEND = 7
    OCCUPY = 8
    FORTIFY = 9
    END_TURN = 10
    REROLL = 11
    SIX = 12
    KEEP_ROLL = 13
    CAPITAL = 14


@dataclass(frozen=True, slots=True, init=False)
class Move:
    """One complete decision.

    Attributes:
        kind: what the move does.
        src: territory id (claim/place target, attack or fortify source), or -1.
        dst: attack or fortify target territory id, or -1.
        count: armies (place, occupy, fortify), dice (attack, defend) or the star total
            of a stars trade (``card_trade="stars"``; its cards are then picked by the
            rules, :func:`risk_env.rules.cards.stars_pick`); 0 if unused.
        cards: the three card ids of a set trade (sorted), else ``()``.
        bonus: territory id receiving the +2 trade bonus, or -1.

    Every field is checked when the move is built (a type check, nothing more: whether the ids and
    numbers fit a position is the rules' question, :meth:`Game.check <risk_env.rules.engine.Game.check>`):
    ``kind`` is a :class:`MoveKind` (or its integer value), ``src``, ``dst``, ``count`` and ``bonus`` are
    integers, ``cards`` a tuple or list of integers; a Python or numpy integer (kept as ``int``), never a
    bool. A field the kind does not use may also be None (its default then).

    Raises:
        InvalidMoveError: a field of another type (a float, a str, a bool, None where the kind uses
            the field); the message names the field and what it must be.

    >>> try:
    ...     Move.place(0, 1.5)
    ... except InvalidMoveError as e:
    ...     print(e)  # doctest: +ELLIPSIS
    Move.count of a PLACE move (armies) must be an integer (a Python or numpy int, ...), got 1.5 (float)
    >>> Move.attack(np.int64(0), 30, 3) == Move.attack(0, 30, 3), type(Move.attack(np.int64(0), 30, 3).src)
    (True, <class 'int'>)
    """

    kind: MoveKind
    src: int = -1
    dst: int = -1
    count: int = 0
    cards: tuple[int, ...] = ()
    bonus: int = -1

    def __init__(
        self, kind: MoveKind, src: int = -1, dst: int = -1, count: int = 0, cards: tuple[int, ...] = (), bonus: int = -1
    ) -> None:
        # the one check of every move built (legal_moves builds many): plain ints pass on their type alone, at the cost
        # of the dataclass's own __init__
        if not (
            type(src) is int
            and type(dst) is int
            and type(count) is int
            and type(bonus) is int
            and type(kind) is MoveKind
            and type(cards) is tuple
            and (not cards or all(type(c) is int for c in cards))
        ):
            kind, src, dst, count, cards, bonus = _normalise(kind, src, dst, count, cards, bonus)
        _set(self, "kind", kind)
        _set(self, "src", src)
        _set(self, "dst", dst)
        _set(self, "count", count)
        _set(self, "cards", cards)
        _set(self, "bonus", bonus)

    @staticmethod
    def claim(t: int) -> Move:
        return Move(MoveKind.CLAIM, t)

    @staticmethod
    def place(t: int, armies: int = 1) -> Move:
        return Move(MoveKind.PLACE, t, count=armies)

    @staticmethod
    def place_neutral(t: int) -> Move:
        return Move(MoveKind.PLACE_NEUTRAL, t, count=1)

    @staticmethod
    def trade(cards: tuple[int, ...] | list[int], bonus: int = -1) -> Move:
        return Move(MoveKind.TRADE, cards=tuple(sorted(_card_ids(cards, MoveKind.TRADE))), bonus=bonus)

    @staticmethod
    def trade_stars(stars: int) -> Move:
        """A stars trade of cards worth ``stars`` stars together (docs/rules.md §6)."""
        return Move(MoveKind.TRADE, count=stars)

    @staticmethod
    def attack(src: int, dst: int, dice: int) -> Move:
        return Move(MoveKind.ATTACK, src, dst, dice)

    @staticmethod
    def blitz(src: int, dst: int) -> Move:
        return Move(MoveKind.BLITZ, src, dst)

    @staticmethod
    def end_attack() -> Move:
        return Move(MoveKind.END_ATTACK)

    @staticmethod
    def defend(dice: int) -> Move:
        return Move(MoveKind.DEFEND, count=dice)

    @staticmethod
    def occupy(armies: int) -> Move:
        return Move(MoveKind.OCCUPY, count=armies)

    @staticmethod
    def fortify(src: int, dst: int, armies: int) -> Move:
        return Move(MoveKind.FORTIFY, src, dst, armies)

    @staticmethod
    def end_turn() -> Move:
        return Move(MoveKind.END_TURN)

    @staticmethod
    def reroll(die: int) -> Move:
        """Re-roll the ``die``-th highest attack die of the pending roll (1-based; docs/rules.md §8)."""
        return Move(MoveKind.REROLL, count=die)

    @staticmethod
    def six(die: int) -> Move:
        """Turn the ``die``-th highest attack die of the pending roll into a six (1-based; docs/rules.md §8)."""
        return Move(MoveKind.SIX, count=die)

    @staticmethod
    def keep_roll() -> Move:
        """Let the pending roll stand (docs/rules.md §8)."""
        return Move(MoveKind.KEEP_ROLL)

    @staticmethod
    def capital(t: int) -> Move:
        return Move(MoveKind.CAPITAL, t)


def _is_int(v: object) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


_INT_RULE = "must be an integer (a Python or numpy int, not a bool)"

_COUNT_MEANING = {
    MoveKind.PLACE: "armies",
    MoveKind.PLACE_NEUTRAL: "armies",
    MoveKind.TRADE: "the star total of a stars trade",
    MoveKind.ATTACK: "dice",
    MoveKind.DEFEND: "dice",
    MoveKind.OCCUPY: "armies",
    MoveKind.FORTIFY: "armies",
    MoveKind.REROLL: "the die's place, 1 for the highest",
    MoveKind.SIX: "the die's place, 1 for the highest",
}
_MEANING = {"src": "a territory id", "dst": "a territory id", "bonus": "a territory id, or -1 for none"}


def _a(name: str) -> str:
    return f"an {name}" if name[0] in "AEIOU" else f"a {name}"


def _refuse(kind: MoveKind, field: str, value: object, unused: bool) -> InvalidMoveError:
    meaning = _COUNT_MEANING.get(kind, "unused") if field == "count" else _MEANING[field]
    rule = f"{_INT_RULE}, or None ({_a(kind.name)} move does not use it)" if unused else _INT_RULE
    return InvalidMoveError(f"Move.{field} of {_a(kind.name)} move ({meaning}) {rule}, got {value!r} ({type(value).__name__})")


def _card_ids(cards: Any, kind: MoveKind) -> tuple[int, ...]:
    """``cards`` as a tuple of ints, or :class:`InvalidMoveError` naming what is wrong."""
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Iterable):
        raise InvalidMoveError(
            f"Move.cards of {_a(kind.name)} move must be a tuple or list of card ids (integers), got {cards!r} "
            f"({type(cards).__name__})"
        )
    out = tuple(cards)
    for c in out:
        if not _is_int(c):
            raise InvalidMoveError(
                f"Move.cards of {_a(kind.name)} move holds {c!r} ({type(c).__name__}): each card id {_INT_RULE}"
            )
    return tuple(int(c) for c in out)


def _normalise(kind: Any, *values: Any) -> tuple[Any, ...]:
    """A move's fields, checked (the slow path of :class:`Move`'s constructor): numpy integers become ints, None in
    a field the kind does not use becomes its default; anything else is refused with :class:`InvalidMoveError`."""
    if isinstance(kind, MoveKind):
        k = kind
    elif _is_int(kind) and int(kind) in _KIND_VALUES:
        k = MoveKind(int(kind))
    else:
        raise InvalidMoveError(
            f"Move.kind must be a MoveKind ({', '.join(m.name for m in MoveKind)}) or its integer value "
            f"0..{len(MoveKind) - 1}, got {kind!r} ({type(kind).__name__})"
        )
    used = MOVES[k].fields | STARS_TRADE.fields if k == MoveKind.TRADE else MOVES[k].fields  # (a stars trade: count)
    out: list[Any] = [k]
    for (name, default), v in zip(FIELD_DEFAULTS, values, strict=True):
        if v is None and name not in used:
            out.append(default)
        elif name == "cards":
            out.append(_card_ids(v, k))
        elif _is_int(v):
            out.append(int(v))
        else:
            raise _refuse(k, name, v, name not in used)
    return tuple(out)


_KIND_VALUES = frozenset(int(k) for k in MoveKind)


# ---------------------------------------------------------------------- the table of move kinds
FIELD_DEFAULTS: tuple[tuple[str, object], ...] = (("src", -1), ("dst", -1), ("count", 0), ("cards", ()), ("bonus", -1))
"""Every :class:`Move` field and its value in a move that does not use it."""


@dataclass(frozen=True)
class MoveSpec:
    """Everything the package reads about one kind of move (one row of :data:`MOVES`).

    Attributes:
        kind: the :class:`MoveKind`.
        verb: the words its text starts with (``"end attack"``).
        text: its text form, a template of the :class:`Move` fields (``{src}``, ``{dst}`` by
            territory name, ``{count}``, ``{cards}`` by card names, ``{bonus}`` as
            `` bonus=<territory>`` when there is one): :func:`risk_env.rules.notation.move_to_text`.
        form: how :func:`risk_env.rules.notation.parse_move` reads what follows the verb:
            ``"territory"``, ``"territory count"`` (the count may be left out: 1), ``"cards"``
            (three card names, an optional ``bonus=``), ``"stars"``, ``"pair dice"``, ``"pair"``,
            ``"pair count"``, ``"dice"``, ``"count"``, ``"die"`` or ``""`` (nothing).
        fields: the :class:`Move` fields it uses (the others keep :data:`FIELD_DEFAULTS`).
        phases: the phases it may be played in.
        wrong_phase: why it is illegal in any other phase (the reason of the
            :class:`~risk_env.errors.IllegalMoveError`).
        blocks: the action-id blocks (:mod:`risk_env.envs.layout`) whose ids play it, in the
            order of its sub-steps (a block may stand for the choices of one sub-step).
        rule: the docs/rules.md section.
        variant: the rules variant that adds it (:mod:`risk_env.rules.variants`), ``""`` for the core rules.
        absent: why it is illegal under rules that do not have it (a variant's kind without the
            variant; a trade without cards).
        rolls: the move may roll dice or settle a roll (its losses are the dice's).
    """

    kind: MoveKind
    verb: str
    text: str
    form: str
    fields: frozenset[str]
    phases: tuple[Phase, ...]
    wrong_phase: str
    blocks: tuple[str, ...]
    rule: str
    variant: str = ""
    absent: str = ""
    rolls: bool = False


def _spec(kind: MoveKind, verb: str, text: str, form: str, fields: str, phases: tuple[Phase, ...], wrong_phase: str,
          blocks: str, rule: str, variant: str = "", absent: str = "") -> MoveSpec:  # fmt: skip
    rolls = kind in (MoveKind.ATTACK, MoveKind.BLITZ, MoveKind.DEFEND, MoveKind.REROLL, MoveKind.SIX, MoveKind.KEEP_ROLL)
    return MoveSpec(kind, verb, text, form, frozenset(fields.split()), phases, wrong_phase, tuple(blocks.split()), rule,
                    variant, absent or wrong_phase, rolls)  # fmt: skip


_ = Phase
MOVES: dict[MoveKind, MoveSpec] = {
    s.kind: s
    for s in (
        _spec(MoveKind.CLAIM, "claim", "claim {src}", "territory", "src", (_.CLAIM,),
              "claims happen only in the claim phase", "territory", "§3"),
        _spec(MoveKind.PLACE, "place", "place {src} {count}", "territory count", "src count", (_.SETUP_PLACE, _.REINFORCE),
              "armies are placed only in setup and in the reinforce phase", "territory amount", "§3, §4.1"),
        _spec(MoveKind.PLACE_NEUTRAL, "neutral", "neutral {src}", "territory", "src count", (_.SETUP_PLACE,),
              "a neutral army is placed only at the end of a 2-player setup turn", "territory", "§7"),
        _spec(MoveKind.TRADE, "trade", "trade {cards}{bonus}", "cards", "cards bonus", (_.REINFORCE,),
              "sets are traded only in the reinforce phase (after an elimination: only while forced)", "trade territory", "§4.1",
              absent="these rules have no cards"),
        _spec(MoveKind.ATTACK, "attack", "attack {src}->{dst} dice={count}", "pair dice", "src dst count", (_.ATTACK,),
              "attacks happen only in the attack phase", "territory territory dice blitz", "§4.2"),
        _spec(MoveKind.BLITZ, "blitz", "blitz {src}->{dst}", "pair", "src dst", (_.ATTACK,),
              "attacks happen only in the attack phase", "territory territory blitz", "§4.2"),
        _spec(MoveKind.END_ATTACK, "end attack", "end attack", "", "", (_.ATTACK,), "not attacking", "end", "§4.2"),
        _spec(MoveKind.DEFEND, "defend", "defend dice={count}", "dice", "count", (_.DEFEND,),
              "no attack awaits a defence", "dice", "§4.2"),
        _spec(MoveKind.OCCUPY, "occupy", "occupy {count}", "count", "count", (_.OCCUPY,),
              "no conquest awaits an occupation", "amount", "§4.2"),
        _spec(MoveKind.FORTIFY, "fortify", "fortify {src}->{dst} {count}", "pair count", "src dst count", (_.FORTIFY,),
              "fortifying happens only in the fortify phase", "territory territory amount", "§4.3"),
        _spec(MoveKind.END_TURN, "end turn", "end turn", "", "", (_.FORTIFY,),
              "the turn ends from the fortify phase ('end attack' first)", "end", "§4.3"),
        _spec(MoveKind.REROLL, "reroll", "reroll die={count}", "die", "count", (_.ATTACK,),
              "no roll waits for a re-roll or a six (expert dice rules)", "reroll", "§8", "expert_dice"),
        _spec(MoveKind.SIX, "six", "six die={count}", "die", "count", (_.ATTACK,),
              "no roll waits for a re-roll or a six (expert dice rules)", "six", "§8", "expert_dice"),
        _spec(MoveKind.KEEP_ROLL, "keep roll", "keep roll", "", "", (_.ATTACK,),
              "no roll waits for a re-roll or a six (expert dice rules)", "keep", "§8", "expert_dice"),
        _spec(MoveKind.CAPITAL, "capital", "capital {src}", "territory", "src", (_.CAPITAL,),
              "capitals are chosen only after setup, with capitals=True (docs/rules.md §8)", "territory", "§8", "capitals"),
    )
}  # fmt: skip
"""Every kind of move, by :class:`MoveKind` (see :class:`MoveSpec`); those of a variant are played only
with it (:attr:`Game.move_specs <risk_env.rules.engine.Game.move_specs>`)."""

STARS_TRADE = _spec(MoveKind.TRADE, "trade", "trade stars={count}", "stars", "count", (Phase.REINFORCE,),
                    MOVES[MoveKind.TRADE].wrong_phase, "trade", "§6", "stars", MOVES[MoveKind.TRADE].absent)  # fmt: skip
"""The ``TRADE`` kind's other form under ``card_trade="stars"`` (docs/rules.md §6): a star total, the
rules picking the cards (:func:`risk_env.rules.cards.stars_pick`)."""

VERBS: tuple[str, ...] = tuple(dict.fromkeys(s.verb for s in MOVES.values()))
"""The words a move's text starts with."""
