"""Move notation: the readable text form of a :class:`~risk_env.rules.moves.Move`.

The forms are the text templates of :data:`risk_env.rules.moves.MOVES`. Text names
territories and cards, so both directions need a :class:`~risk_env.rules.map.GameMap`.
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

from collections.abc import Callable

from ..errors import InvalidMoveError
from .map import GameMap
from .moves import MOVES, STARS_TRADE, VERBS, Move, MoveKind, MoveSpec

__all__ = ["move_to_text", "parse_move", "VERBS"]


def move_to_text(game_map: GameMap, move: Move) -> str:
    """Readable text of ``move`` on ``game_map`` (:func:`parse_move` reads it back), by its kind's
    text form (:attr:`MoveSpec.text <risk_env.rules.moves.MoveSpec.text>`).

    Raises:
        InvalidMoveError: ``move.kind`` is not a :class:`MoveKind`.
    """
    spec = MOVES.get(move.kind)
    if spec is None:
        raise InvalidMoveError(f"unknown move kind {move.kind!r}; kinds: {', '.join(m.name for m in MoveKind)}")
    if spec.kind == MoveKind.TRADE and not move.cards and move.count:
        spec = STARS_TRADE
    name = game_map.name_of
    values: dict[str, object] = {"count": move.count}
    if "src" in spec.fields:
        values["src"] = name(move.src)
    if "dst" in spec.fields:
        values["dst"] = name(move.dst)
    if "cards" in spec.fields:
        values["cards"] = ", ".join(game_map.card_name(c) for c in move.cards)
        values["bonus"] = f" bonus={name(move.bonus)}" if move.bonus >= 0 else ""
    return spec.text.format(**values)


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
    word, _, rest = t.partition(" ")
    word = word.lower()
    spec = _BY_VERB.get(word)
    if spec is None:  # a two-word verb: 'end attack', 'keep roll'
        second, _, tail = rest.partition(" ")
        spec = _BY_VERB.get(f"{word} {second.lower()}")
        rest = tail if spec is not None else rest
    if spec is None:
        raise InvalidMoveError(f"cannot read move {text!r}: it must start with one of {_VERB_LIST}")
    if spec is MOVES[MoveKind.TRADE] and rest.lower().startswith("stars="):
        spec = STARS_TRADE
    try:
        if spec.form == "" and rest:
            raise ValueError(f"{spec.verb!r} takes nothing after it, got {rest!r}")
        return _READERS[spec.form](game_map, spec, rest)
    except ValueError as e:
        raise InvalidMoveError(f"cannot read move {text!r}: {e}") from None


_BY_VERB: dict[str, MoveSpec] = {s.verb: s for s in MOVES.values()}
_VERB_LIST = ", ".join(v if " " not in v else repr(v) for v in sorted(VERBS, key=lambda v: (" " in v, VERBS.index(v))))


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


def _territory(m: GameMap, spec: MoveSpec, rest: str) -> Move:
    t = m.id_of(rest)
    return Move(spec.kind, t, count=1) if "count" in spec.fields else Move(spec.kind, t)


def _territory_count(m: GameMap, spec: MoveSpec, rest: str) -> Move:
    where, _, num = rest.rpartition(" ")
    if not where:
        return Move(spec.kind, m.id_of(rest), count=1)
    return Move(spec.kind, m.id_of(where), count=_int(num, "armies"))


def _cards(m: GameMap, spec: MoveSpec, rest: str) -> Move:
    body, _, bonus = rest.partition(" bonus=")
    cards = [m.card_of(c) for c in body.split(",")]
    if len(cards) != 3:
        raise ValueError(f"a trade names 3 cards, got {len(cards)}")
    return Move.trade(cards, m.id_of(bonus) if bonus else -1)


def _stars(m: GameMap, spec: MoveSpec, rest: str) -> Move:
    return Move.trade_stars(_int(rest[6:], "stars"))


def _pair_dice(m: GameMap, spec: MoveSpec, rest: str) -> Move:
    pair, _, dice = rest.partition(" dice=")
    a, b = _pair(m, pair)
    return Move(spec.kind, a, b, _int(dice, "dice"))


def _pair_only(m: GameMap, spec: MoveSpec, rest: str) -> Move:
    pair, _, dice = rest.partition(" dice=")
    a, b = _pair(m, pair)
    if dice:
        raise ValueError(f"{spec.verb} takes no dice count")
    return Move(spec.kind, a, b)


def _pair_count(m: GameMap, spec: MoveSpec, rest: str) -> Move:
    pair, _, num = rest.rpartition(" ")
    a, b = _pair(m, pair)
    return Move(spec.kind, a, b, _int(num, "armies"))


def _dice(m: GameMap, spec: MoveSpec, rest: str) -> Move:
    if not rest.startswith("dice="):
        raise ValueError(f"write '{spec.verb} dice=1' or '{spec.verb} dice=2'")
    return Move(spec.kind, count=_int(rest[5:], "dice"))


def _count(m: GameMap, spec: MoveSpec, rest: str) -> Move:
    return Move(spec.kind, count=_int(rest, "armies"))


def _die(m: GameMap, spec: MoveSpec, rest: str) -> Move:
    if not rest.lower().startswith("die="):
        raise ValueError(f"write '{spec.verb} die=<1..3>'")
    return Move(spec.kind, count=_int(rest[4:], "die"))


def _nothing(m: GameMap, spec: MoveSpec, rest: str) -> Move:
    return Move(spec.kind)


_READERS: dict[str, Callable[[GameMap, MoveSpec, str], Move]] = {
    "territory": _territory,
    "territory count": _territory_count,
    "cards": _cards,
    "stars": _stars,
    "pair dice": _pair_dice,
    "pair": _pair_only,
    "pair count": _pair_count,
    "dice": _dice,
    "count": _count,
    "die": _die,
    "": _nothing,
}
"""How the text after a verb is read, by :attr:`MoveSpec.form <risk_env.rules.moves.MoveSpec.form>`."""
