"""Card sets and their values (docs/rules.md §2, §4.1, §6).

Symbols are ints: 0 infantry, 1 cavalry, 2 artillery, 3 wild. A *set* is
three of a kind, one of each, or any two plus a wild (two wilds and any card
too). Sets are also named by their symbol *composition*: the 13 multisets
listed in :data:`COMPOSITIONS` (``"IIW"`` is two infantry and a wild).

>>> is_set([0, 1, 2]), is_set([0, 0, 1]), is_set([2, 3, 3])
(True, False, True)
>>> [escalating_value(k) for k in range(1, 10)]
[4, 6, 8, 10, 12, 15, 20, 25, 30]

Under ``card_trade="stars"`` (§6) a card carries :data:`SYMBOL_STARS` stars and any
cards worth 2..10 stars together are traded for :func:`stars_value` armies:

>>> [stars_value(k) for k in range(2, 11)]
[2, 4, 7, 10, 13, 17, 21, 25, 30]
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ConfigError

__all__ = [
    "COMPOSITIONS",
    "COMPOSITION_NAMES",
    "is_set",
    "composition_of",
    "escalating_value",
    "set_value",
    "value_by_set",
    "SYMBOL_STARS",
    "STARS_VALUES",
    "MIN_STARS",
    "MAX_STARS",
    "stars_value",
    "stars_pick",
]

_LETTER = "ICAW"

COMPOSITION_NAMES: tuple[str, ...] = (
    "III",
    "CCC",
    "AAA",
    "ICA",
    "IIW",
    "CCW",
    "AAW",
    "ICW",
    "IAW",
    "CAW",
    "IWW",
    "CWW",
    "AWW",
)
"""The 13 possible sets by symbol (I infantry, C cavalry, A artillery, W wild)."""

COMPOSITIONS: tuple[tuple[int, int, int, int], ...] = tuple(
    (name.count(_LETTER[0]), name.count(_LETTER[1]), name.count(_LETTER[2]), name.count(_LETTER[3])) for name in COMPOSITION_NAMES
)
"""Each composition as counts ``(infantry, cavalry, artillery, wild)``."""

_COMP_INDEX = {c: i for i, c in enumerate(COMPOSITIONS)}


def _counts(symbols: Sequence[int]) -> tuple[int, int, int, int]:
    c = [0, 0, 0, 0]
    for s in symbols:
        c[s] += 1
    return (c[0], c[1], c[2], c[3])


def composition_of(symbols: Sequence[int]) -> int:
    """Index in :data:`COMPOSITIONS` of three cards' symbols, or -1 if they are not a set."""
    if len(symbols) != 3:
        return -1
    return _COMP_INDEX.get(_counts(symbols), -1)


def is_set(symbols: Sequence[int]) -> bool:
    """True if three cards with these symbols form a set (docs/rules.md §2)."""
    return composition_of(symbols) >= 0


def escalating_value(k: int) -> int:
    """Armies for the ``k``-th set traded in the game (1-based): 4, 6, 8, 10, 12, 15, then +5."""
    if k < 1:
        raise ConfigError(f"set number must be >= 1, got {k}")
    return (4, 6, 8, 10, 12, 15)[k - 1] if k <= 6 else 15 + 5 * (k - 6)


_FIXED = (4, 6, 8, 10)  # three infantry, three cavalry, three artillery, one of each


def _fixed_value(comp: int) -> int:
    i, c, a, w = COMPOSITIONS[comp]
    best = 0
    # A wild may stand for any symbol: try every completion.
    for fill in range(3**w):
        cnt = [i, c, a]
        f = fill
        for _ in range(w):
            cnt[f % 3] += 1
            f //= 3
        if cnt == [1, 1, 1]:
            best = max(best, _FIXED[3])
        for s in range(3):
            if cnt[s] == 3:
                best = max(best, _FIXED[s])
    return best


def value_by_set(schedule: str) -> bool:
    """Whether a set's value under the ``card_trade`` schedule ``schedule`` depends on the set itself
    (``fixed_by_symbol``: by its symbols) rather than only on the sets traded before it (the
    escalating schedules) (docs/rules.md §4.1, §6).

    >>> value_by_set("fixed_by_symbol"), value_by_set("escalating")
    (True, False)
    """
    return schedule == "fixed_by_symbol"


def set_value(schedule: str, sets_traded_before: int, comp: int) -> int:
    """Armies a set is worth.

    Args:
        schedule: the ``card_trade`` switch (``escalating``, ``escalating_reset``,
            ``slow_escalation``, ``fixed_by_symbol``).
        sets_traded_before: sets already traded in the whole game (the shared counter).
        comp: the set's index in :data:`COMPOSITIONS` (only ``fixed_by_symbol`` uses it).

    Raises:
        ConfigError: unknown schedule or composition.
    """
    k = sets_traded_before + 1
    if schedule == "escalating":
        return escalating_value(k)
    if schedule == "escalating_reset":
        return (4, 6, 8, 10, 12, 15)[(k - 1) % 6]
    if schedule == "slow_escalation":
        return 3 + k
    if value_by_set(schedule):
        if not 0 <= comp < len(COMPOSITIONS):
            raise ConfigError(f"composition index {comp} out of range 0..{len(COMPOSITIONS) - 1}")
        return _fixed_value(comp)
    raise ConfigError(f"no set values for card_trade={schedule!r}")


SYMBOL_STARS: tuple[int, int, int, int] = (1, 1, 2, 2)
"""Stars a card carries under ``card_trade="stars"``, by symbol (infantry, cavalry,
artillery, wild) (docs/rules.md §6). The sources give wilds 2 stars and other cards 1
or 2 without saying which; this project gives the artillery cards 2 and the infantry
and cavalry cards 1, so a hand's stars follow from its symbols."""

MIN_STARS, MAX_STARS = 2, 10
"""The smallest and largest star total of one stars trade (docs/rules.md §6)."""

STARS_VALUES: dict[int, int] = dict(zip(range(2, 11), (2, 4, 7, 10, 13, 17, 21, 25, 30), strict=True))
"""Armies for a stars trade by its star total 2..10 (docs/rules.md §6)."""


def stars_value(stars: int) -> int:
    """Armies a stars trade of ``stars`` stars (2..10) brings (docs/rules.md §6).

    Raises:
        ConfigError: ``stars`` outside 2..10.
    """
    if stars not in STARS_VALUES:
        raise ConfigError(f"a stars trade is worth {MIN_STARS}..{MAX_STARS} stars, got {stars!r}")
    return STARS_VALUES[stars]


def stars_pick(hand: Sequence[int], symbols: Sequence[int], stars: int) -> tuple[int, ...] | None:
    """The cards of ``hand`` a stars trade of exactly ``stars`` stars gives up, or None if the
    hand cannot make that total (docs/rules.md §6).

    The rule (the trade's value depends on the total alone): as many 2-star cards as fit,
    then 1-star cards for the rest, each kind by lowest card id, so the fewest cards go.

    Args:
        hand: card ids; symbols: the symbol of every card id (``Game.card_symbol``); stars: 2..10.

    >>> stars_pick([0, 1, 2, 5], [0, 1, 2, 0, 0, 3], 5)  # cards 2 and 5 carry 2 stars
    (0, 2, 5)
    >>> stars_pick([0, 1], [0, 1], 3) is None
    True
    """
    ones = sorted(c for c in hand if SYMBOL_STARS[symbols[c]] == 1)
    twos = sorted(c for c in hand if SYMBOL_STARS[symbols[c]] == 2)
    y = min(len(twos), stars // 2)
    x = stars - 2 * y
    if x > len(ones):
        return None
    return tuple(sorted(twos[:y] + ones[:x]))
