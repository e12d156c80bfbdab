"""Dice combat: one roll, its exact chance outcomes, and the seeded dice stream.

Source: docs/rules.md §4.2 (sorting, pairing, defender wins ties) and §9 (the
3-vs-2 check figures).

>>> from fractions import Fraction
>>> roll_outcomes(3, 2)[(0, 2)] == Fraction(2890, 7776)
True
>>> resolve_roll([6, 3, 1], [5, 5])
(1, 1)
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache

from ..errors import ConfigError

__all__ = ["roll_outcomes", "resolve_roll", "max_attack_dice", "max_defend_dice", "ROLL_PROBABILITIES"]


def max_attack_dice(source_armies: int) -> int:
    """Most dice an attack from a territory with ``source_armies`` may roll (0 if it cannot attack)."""
    return min(3, source_armies - 1) if source_armies > 1 else 0


def max_defend_dice(target_armies: int) -> int:
    """Most dice a territory with ``target_armies`` (>= 1) defends with: 1 or 2."""
    return 2 if target_armies >= 2 else 1


def resolve_roll(attack: list[int] | tuple[int, ...], defend: list[int] | tuple[int, ...]) -> tuple[int, int]:
    """Compare one roll and return ``(attacker_losses, defender_losses)``.

    Both sides are sorted descending and paired highest with highest; the
    defender wins ties; extra dice are ignored (docs/rules.md §4.2).
    """
    a = sorted(attack, reverse=True)
    d = sorted(defend, reverse=True)
    att_loss = def_loss = 0
    for x, y in zip(a, d, strict=False):
        if x > y:
            def_loss += 1
        else:
            att_loss += 1
    return att_loss, def_loss


@cache
def _outcomes(attacker_dice: int, defender_dice: int) -> tuple[tuple[tuple[int, int], Fraction], ...]:
    counts: dict[tuple[int, int], int] = {}
    for faces in itertools.product(range(1, 7), repeat=attacker_dice + defender_dice):
        key = resolve_roll(faces[:attacker_dice], faces[attacker_dice:])
        counts[key] = counts.get(key, 0) + 1
    total = 6 ** (attacker_dice + defender_dice)
    return tuple(sorted((k, Fraction(v, total)) for k, v in counts.items()))


def roll_outcomes(attacker_dice: int, defender_dice: int) -> dict[tuple[int, int], Fraction]:
    """Exact chance outcomes of one roll, by enumeration of all ``6**(a+d)`` faces.

    Returns a dict ``(attacker_losses, defender_losses) -> probability`` (a
    :class:`fractions.Fraction`; the values sum to 1).

    Raises:
        ConfigError: ``attacker_dice`` not in 1..3 or ``defender_dice`` not in 1..2.
    """
    if attacker_dice not in (1, 2, 3):
        raise ConfigError(f"attacker_dice must be 1, 2 or 3, got {attacker_dice!r}")
    if defender_dice not in (1, 2):
        raise ConfigError(f"defender_dice must be 1 or 2, got {defender_dice!r}")
    return dict(_outcomes(attacker_dice, defender_dice))


ROLL_PROBABILITIES: dict[tuple[int, int], dict[tuple[int, int], Fraction]] = {
    (a, d): roll_outcomes(a, d) for a in (1, 2, 3) for d in (1, 2)
}
"""All six one-roll outcome tables, keyed ``(attacker_dice, defender_dice)``."""
