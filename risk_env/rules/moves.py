"""Moves: complete decisions of the rules, as small immutable values.

A :class:`Move` holds territory/card ids; its text form needs a map's names,
so it is written and read by :mod:`risk_env.rules.notation` (also as
:meth:`Game.move_to_text <risk_env.rules.engine.Game.move_to_text>` and
:meth:`Game.parse_move <risk_env.rules.engine.Game.parse_move>`). The text forms (docs/rules.md section in
brackets):

=================  ==============================================  =========
kind               text                                            rule
=================  ==============================================  =========
``CLAIM``          ``claim Alaska``                                §3
``PLACE``          ``place Alaska 3``                              §3, §4.1
``PLACE_NEUTRAL``  ``neutral Peru``                                §7
``TRADE``          ``trade Alaska, Peru, Wild 1 bonus=Alaska``     §4.1
``ATTACK``         ``attack Alaska->Kamchatka dice=3``             §4.2
``BLITZ``          ``blitz Alaska->Kamchatka``                     §4.2
``END_ATTACK``     ``end attack``                                  §4.2
``DEFEND``         ``defend dice=2``                               §4.2
``OCCUPY``         ``occupy 5``  (armies in the conquered territory) §4.2
``FORTIFY``        ``fortify Alaska->Alberta 4``                   §4.3
``END_TURN``       ``end turn``  (skip the fortify)                §4.3
``CAPITAL``        ``capital Alaska``  (``capitals=True``)         §8
=================  ==============================================  =========

``BLITZ`` rolls the most dice on both sides again and again until the target
is conquered or the source is down to 1 army.

>>> Move.attack(0, 30, 3)
Move(kind=<MoveKind.ATTACK: 4>, src=0, dst=30, count=3, cards=(), bonus=-1)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

__all__ = ["Move", "MoveKind"]


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
    CAPITAL = 11


@dataclass(frozen=True, slots=True)
class Move:
    """One complete decision.

    Attributes:
        kind: what the move does.
        src: territory id (claim/place target, attack or fortify source), or -1.
        dst: attack or fortify target territory id, or -1.
        count: armies (place, occupy, fortify) or dice (attack, defend); 0 if unused.
        cards: the three card ids of a trade (sorted), else ``()``.
        bonus: territory id receiving the +2 trade bonus, or -1.
    """

    kind: MoveKind
    src: int = -1
    dst: int = -1
    count: int = 0
    cards: tuple[int, ...] = ()
    bonus: int = -1

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
        return Move(MoveKind.TRADE, cards=tuple(sorted(int(c) for c in cards)), bonus=bonus)

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
    def capital(t: int) -> Move:
        return Move(MoveKind.CAPITAL, t)
