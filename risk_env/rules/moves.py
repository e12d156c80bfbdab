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
    REROLL = 11
    SIX = 12
    KEEP_ROLL = 13
    CAPITAL = 14


@dataclass(frozen=True, slots=True)
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
