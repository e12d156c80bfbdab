"""Move notation: the readable text form of a :class:`~risk_env.rules.moves.Move`.

The forms are listed in :mod:`risk_env.rules.moves`. Text names territories and
cards, so both directions need a :class:`~risk_env.rules.map.GameMap`.
:func:`parse_move` only reads text: it raises :class:`~risk_env.errors.InvalidMoveError`
for text it cannot read, and never decides legality (a readable move that the
rules forbid now is an :class:`~risk_env.errors.IllegalMoveError`, raised by
:meth:`Game.check <risk_env.rules.engine.Game.check>`).

>>> from risk_env.rules.map import load_map
>>> m = load_map("classic")
>>> move_to_text(m, parse_move(m, "attack  alaska -> kamchatka dice=3"))
'attack Alaska->Kamchatka dice=3'
>>> parse_move(m, "attack Alaska")
Traceback (most recent call last):
...
risk_env.errors.InvalidMoveError: cannot read move 'attack Alaska': expected '<territory>-><territory>', got 'Alaska'
"""

from __future__ import annotations

from ..errors import InvalidMoveError
from .map import GameMap
from .moves import Move, MoveKind

__all__ = ["move_to_text", "parse_move", "VERBS"]

VERBS = (
    "claim",
    "place",
    "neutral",
    "trade",
    "attack",
    "blitz",
    "defend",
    "occupy",
    "fortify",
    "end attack",
    "end turn",
    "reroll",
    "six",
    "keep roll",
    "capital",
)
"""The words a move's text starts with."""


def move_to_text(game_map: GameMap, move: Move) -> str:
    """Readable text of ``move`` on ``game_map`` (:func:`parse_move` reads it back).

    Raises:
        InvalidMoveError: ``move.kind`` is not a :class:`MoveKind`.
    """
    name = game_map.name_of
    k = move.kind
    if k == MoveKind.CLAIM:
        return f"claim {name(move.src)}"
    if k == MoveKind.PLACE:
        return f"place {name(move.src)} {move.count}"
    if k == MoveKind.PLACE_NEUTRAL:
        return f"neutral {name(move.src)}"
    if k == MoveKind.TRADE:
        if not move.cards and move.count:
            return f"trade stars={move.count}"
        text = "trade " + ", ".join(game_map.card_name(c) for c in move.cards)
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
    if k == MoveKind.REROLL:
        return f"reroll die={move.count}"
    if k == MoveKind.SIX:
        return f"six die={move.count}"
    if k == MoveKind.KEEP_ROLL:
        return "keep roll"
    if k == MoveKind.CAPITAL:
        return f"capital {name(move.src)}"
    raise InvalidMoveError(f"unknown move kind {k!r}; kinds: {', '.join(m.name for m in MoveKind)}")


def parse_move(game_map: GameMap, text: str) -> Move:
    """The :class:`Move` that ``text`` writes (case and spacing are free; names as
    :meth:`GameMap.id_of <risk_env.rules.map.GameMap.id_of>` reads them).

    Raises:
        InvalidMoveError: ``text`` is not a str, is malformed, or names an unknown
            territory or card (the message says which and suggests close names).
    """
    if not isinstance(text, str):
        raise InvalidMoveError(f"a move text must be a str, got {type(text).__name__}")
    t = " ".join(text.strip().split())
    verb, _, rest = t.partition(" ")
    verb = verb.lower()
    try:
        move = _parse(game_map, verb, rest)
    except ValueError as e:
        raise InvalidMoveError(f"cannot read move {text!r}: {e}") from None
    if move is None:
        raise InvalidMoveError(
            f"cannot read move {text!r}: it must start with one of claim, place, neutral, trade, attack, blitz, "
            "defend, occupy, fortify, capital, 'end attack', 'end turn', reroll, six, 'keep roll'"
        )
    return move


def _parse(m: GameMap, verb: str, rest: str) -> Move | None:
    if verb == "claim":
        return Move.claim(m.id_of(rest))
    if verb == "capital":
        return Move.capital(m.id_of(rest))
    if verb == "neutral":
        return Move.place_neutral(m.id_of(rest))
    if verb == "place":
        where, _, num = rest.rpartition(" ")
        if not where:
            return Move.place(m.id_of(rest), 1)
        return Move.place(m.id_of(where), _int(num, "armies"))
    if verb == "trade":
        if rest.lower().startswith("stars="):
            return Move.trade_stars(_int(rest[6:], "stars"))
        body, _, bonus = rest.partition(" bonus=")
        cards = [m.card_of(c) for c in body.split(",")]
        if len(cards) != 3:
            raise ValueError(f"a trade names 3 cards, got {len(cards)}")
        return Move.trade(cards, m.id_of(bonus) if bonus else -1)
    if verb in ("attack", "blitz"):
        pair, _, dice = rest.partition(" dice=")
        a, b = _pair(m, pair)
        if verb == "blitz":
            if dice:
                raise ValueError("blitz takes no dice count")
            return Move.blitz(a, b)
        return Move.attack(a, b, _int(dice, "dice"))
    if verb == "fortify":
        pair, _, num = rest.rpartition(" ")
        a, b = _pair(m, pair)
        return Move.fortify(a, b, _int(num, "armies"))
    if verb == "defend":
        if not rest.startswith("dice="):
            raise ValueError("write 'defend dice=1' or 'defend dice=2'")
        return Move.defend(_int(rest[5:], "dice"))
    if verb == "occupy":
        return Move.occupy(_int(rest, "armies"))
    if verb in ("reroll", "six"):
        if not rest.lower().startswith("die="):
            raise ValueError(f"write '{verb} die=<1..3>'")
        die = _int(rest[4:], "die")
        return Move.reroll(die) if verb == "reroll" else Move.six(die)
    if verb == "keep" and rest.lower() == "roll":
        return Move.keep_roll()
    if verb == "end" and rest.lower() in ("attack", "turn"):
        return Move.end_attack() if rest.lower() == "attack" else Move.end_turn()
    return None


def _pair(m: GameMap, text: str) -> tuple[int, int]:
    a, sep, b = text.partition("->")
    if not sep:
        raise ValueError(f"expected '<territory>-><territory>', got {text!r}")
    return m.id_of(a.strip()), m.id_of(b.strip())


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{what} must be a whole number, got {text!r}") from None
