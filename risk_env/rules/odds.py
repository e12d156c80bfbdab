"""Exact battle odds: a battle as an absorbing Markov chain, solved by dynamic programming.

A *battle* is one attacker repeatedly attacking one territory until either
the attacker has no army left that may roll, or the territory is emptied.
The state is ``(a, d)``: ``a`` armies that may still roll for the attacker
(the army that must stay behind in the source territory is **not** counted)
and ``d`` defending armies.  Every roll uses the most dice allowed,
``min(3, a)`` against ``min(2, d)``, and moves the chain from ``(a, d)`` to
``(a - attacker_losses, d - defender_losses)`` with the exact one-roll
probabilities of :func:`risk_env.rules.dice.roll_outcomes`.  Each roll removes at
least one army, so the chain always reaches an absorbing state: ``(s, 0)``
(attacker conquers with ``s >= 1`` survivors) or ``(0, t)`` (attack fails,
``t >= 1`` defenders remain).

Two arithmetic modes are offered everywhere a probability is returned:

* ``exact=False`` (default): IEEE ``float`` / ``numpy.float64`` arithmetic,
  the fast path;
* ``exact=True``: :class:`fractions.Fraction` arithmetic, no rounding at all.

Nothing here samples dice: results are deterministic.  Nothing is cached at
module level either; reuse an :class:`OddsTable` when many queries are made.

Conventions (checked against the published tables of docs/rules.md §9,
whose figures the tests reproduce):

* *Whole battle* ("probabilities of attacker winning a whole battle"): the
  attacker count excludes the army left behind, e.g. a territory holding 10
  armies attacks with 9.  With this reading the exact values round to every
  cell of the source's 10 x 10 table (``"<1%"`` / ``">99%"`` there are the
  values that round to 0 % / 100 %).
* *Chain of conquests* ("average number of countries that can be
  defeated"): after a won battle the ``s`` surviving attackers all move into
  the conquered territory; one of them must stay there, so the next battle
  is fought with ``s - 1`` attackers, and the chain ends when that is 0 or
  a battle is lost.  In other words the army left in each conquered
  territory is paid out of the attacking armies.  (Not paying it, i.e.
  continuing with all ``s``, gives averages far above the source, e.g. 0.71
  instead of 0.42 for one attacker against one defender per territory.)
  This reproduces both rows of averages and both rows of the 90 % figures
  for attackers 1..20, with one exception: for 18 attackers against one
  defender per territory the exact average is 11.5509..., printed 11.5 in
  the source where 11.6 would be the rounded value.

Examples:

>>> win_probability(1, 1, exact=True)
Fraction(5, 12)
>>> round(win_probability(3, 2), 4)
0.656
>>> outcome_distribution(1, 1, exact=True)
{(1, 0): Fraction(5, 12), (0, 1): Fraction(7, 12)}
>>> attacker_survivors(2, 1).round(4).tolist()
[0.0, 0.1755, 0.5787]
>>> round(expected_conquests(5, 1), 4)
2.9745
>>> expected_conquests(1, [1, 1], exact=True)
Fraction(5, 12)
>>> table = OddsTable(10, 10)
>>> round(100 * table.win_probability(10, 10))
57
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import ConfigError
from .dice import roll_outcomes

__all__ = [
    "BATTLE_LIMIT",
    "EXACT_BATTLE_LIMIT",
    "TABLE_LIMIT",
    "EXACT_TABLE_LIMIT",
    "OddsTable",
    "attacker_survivors",
    "conquest_distribution",
    "conquests_with_confidence",
    "expected_conquests",
    "outcome_distribution",
    "win_probability",
]

Probability = float | Fraction
DefenderSpec = int | Iterable[int]

BATTLE_LIMIT = 1000
"""Most armies a side of one battle (:func:`win_probability`, :func:`outcome_distribution`,
:func:`attacker_survivors`): its DP solves ``(attackers + 1) * (defenders + 1)`` states, under a second and
8 MB at 1000 against 1000. A bigger battle is a ConfigError (3000 against 3000 took 5 s, a million a side
asked for terabytes)."""

EXACT_BATTLE_LIMIT = 200
"""Most armies a side of one battle with ``exact=True``: the fractions grow with every roll (about half a
second at 200 against 200)."""

TABLE_LIMIT = 200
"""Most armies a side of an :class:`OddsTable`, and of the chains of :func:`expected_conquests`,
:func:`conquest_distribution` and :func:`conquests_with_confidence` (a table of the attackers and the most
defenders of a territory): a table holds ``(A + 1) * (D + 1) * (A + D + 2)`` values, 130 MB and under half a
second at 200 a side. The heuristic agents use one of 100 a side."""

EXACT_TABLE_LIMIT = 30
"""Most armies a side of an :class:`OddsTable` (or a chain) with ``exact=True`` (under half a second at 30)."""


# --------------------------------------------------------------------------- helpers


def _count(value: object, name: str, minimum: int) -> int:
    """Return ``value`` as a Python int, checking its type and lower bound."""
    if isinstance(value, (bool, np.bool_)) or not hasattr(type(value), "__index__"):
        raise ConfigError(f"{name} must be an integer, got {value!r}")
    number = operator.index(value)  # type: ignore[arg-type]
    if number < minimum:
        raise ConfigError(f"{name} must be >= {minimum}, got {number}")
    return number


def _check_battle(a: int, d: int, exact: bool) -> None:
    limit = EXACT_BATTLE_LIMIT if exact else BATTLE_LIMIT
    if a > limit or d > limit:
        raise ConfigError(
            f"a battle is at most {BATTLE_LIMIT} armies a side ({EXACT_BATTLE_LIMIT} with exact=True), which keeps the "
            f"call under a second, got attackers={a}, defenders={d}{' with exact=True' if exact else ''}"
        )


def _check_table(a: int, d: int, exact: bool, chain: bool = False) -> None:
    limit = EXACT_TABLE_LIMIT if exact else TABLE_LIMIT
    if a > limit or d > limit:
        what = "a chain of conquests (an odds table of it)" if chain else "an odds table"
        got = f"attackers={a} and up to {d} defenders a territory" if chain else f"max_attackers={a}, max_defenders={d}"
        raise ConfigError(
            f"{what} is at most {TABLE_LIMIT} armies a side ({EXACT_TABLE_LIMIT} with exact=True), which keeps it under "
            f"half a second and 130 MB, got {got}{' with exact=True' if exact else ''}"
        )


def _defender_chain(defenders_per_territory: DefenderSpec) -> tuple[list[int] | None, int]:
    """Normalise the defender spec: ``(None, d)`` for a fixed count, ``(list, max)`` for a chain."""
    if hasattr(type(defenders_per_territory), "__index__") and not isinstance(defenders_per_territory, np.ndarray):
        return None, _count(defenders_per_territory, "defenders_per_territory", 1)
    if isinstance(defenders_per_territory, (str, bytes)) or not isinstance(defenders_per_territory, Iterable):
        raise ConfigError(f"defenders_per_territory must be an int or a sequence of ints, got {defenders_per_territory!r}")
    chain = [
        _count(d, f"defenders_per_territory[{i}]", 1)
        for i, d in enumerate(np.asarray(defenders_per_territory, dtype=object).ravel().tolist())
    ]
    return chain, max(chain, default=1)


def _transitions(exact: bool) -> dict[tuple[int, int], list[tuple[int, int, Probability]]]:
    """One-roll moves ``(attacker_loss, defender_loss, p)`` keyed by ``(attacker_dice, defender_dice)``."""
    table = {}
    for a_dice in (1, 2, 3):
        for d_dice in (1, 2):
            outcomes = roll_outcomes(a_dice, d_dice)
            table[(a_dice, d_dice)] = [(al, dl, p if exact else float(p)) for (al, dl), p in sorted(outcomes.items())]
    return table


def _zeros(shape: tuple[int, ...], exact: bool) -> np.ndarray:
    if exact:
        return np.full(shape, Fraction(0), dtype=object)
    return np.zeros(shape, dtype=np.float64)


def _scalar(value: Any, exact: bool) -> Probability:
    return Fraction(value) if exact else float(value)


def _battle_mass(attackers: int, defenders: int, exact: bool) -> np.ndarray:
    """Forward DP for a single start state.

    Returns the array ``M`` of shape ``(attackers + 1, defenders + 1)`` whose
    absorbing entries ``M[s, 0]`` (``s >= 1``) and ``M[0, t]`` (``t >= 1``)
    are the probabilities of ending there.  States are visited in decreasing
    ``a`` then decreasing ``d``, so every state's incoming mass is complete
    before it is passed on.  Cost: O(attackers * defenders).
    """
    moves = _transitions(exact)
    mass = _zeros((attackers + 1, defenders + 1), exact)
    mass[attackers, defenders] = Fraction(1) if exact else 1.0
    for a in range(attackers, 0, -1):
        for d in range(defenders, 0, -1):
            m = mass[a, d]
            if m == 0:
                continue
            for al, dl, p in moves[(min(3, a), min(2, d))]:
                mass[a - al, d - dl] += m * p
    return mass


def _distribution_from_mass(mass: np.ndarray, exact: bool) -> dict[tuple[int, int], Probability]:
    attackers, defenders = mass.shape[0] - 1, mass.shape[1] - 1
    out: dict[tuple[int, int], Probability] = {}
    for s in range(attackers, 0, -1):
        out[(s, 0)] = _scalar(mass[s, 0], exact)
    for t in range(1, defenders + 1):
        out[(0, t)] = _scalar(mass[0, t], exact)
    return out


# --------------------------------------------------------------------------- table


class OddsTable:
    """Precomputed battle outcomes for every ``(a, d)`` with ``0 <= a <= max_attackers``, ``0 <= d <= max_defenders``.

    The table is filled eagerly in the constructor by the backward (first
    step) recursion ``V(a, d) = sum_roll p * V(a - attacker_loss, d - defender_loss)``
    and then only read.  Storage is two arrays:

    * ``attacker_wins``: shape ``(A + 1, D + 1, A + 1)``; ``[a, d, s]`` is the
      probability that ``a`` attackers beat ``d`` defenders with ``s``
      survivors (zero unless ``1 <= s <= a`` and ``d >= 1``, except the
      degenerate ``[s, 0, s] = 1``);
    * ``defender_wins``: shape ``(A + 1, D + 1, D + 1)``; ``[a, d, t]`` is the
      probability that the attack fails with ``t`` defenders left.

    where ``A = max_attackers`` and ``D = max_defenders``.  The dtype is
    ``float64`` when ``exact`` is false and ``object`` (holding
    :class:`~fractions.Fraction`) when it is true.  Time and memory are
    O(A * D * (A + D)); exact mode is much slower and meant for small tables.

    Args:
        max_attackers: largest attacker count (armies that may roll), >= 0.
        max_defenders: largest defender count, >= 1.
        exact: store Fractions instead of floats.

    Raises:
        ConfigError: a size is not an integer, ``max_attackers < 0`` or ``max_defenders < 1``, or a size above
            :data:`TABLE_LIMIT` (200; :data:`EXACT_TABLE_LIMIT`, 30, with ``exact=True``).
    """

    def __init__(self, max_attackers: int, max_defenders: int, exact: bool = False) -> None:
        self.max_attackers = _count(max_attackers, "max_attackers", 0)
        self.max_defenders = _count(max_defenders, "max_defenders", 1)
        self.exact = bool(exact)
        _check_table(self.max_attackers, self.max_defenders, self.exact)
        A, D = self.max_attackers, self.max_defenders
        moves = _transitions(self.exact)
        win = _zeros((A + 1, D + 1, A + 1), self.exact)
        lose = _zeros((A + 1, D + 1, D + 1), self.exact)
        one = Fraction(1) if self.exact else 1.0
        for s in range(1, A + 1):
            win[s, 0, s] = one
        for t in range(1, D + 1):
            lose[0, t, t] = one
        # Every move lowers a or d and raises neither, so (a, d) only needs
        # states already filled when a and d both run upwards.
        for a in range(1, A + 1):
            for d in range(1, D + 1):
                for al, dl, p in moves[(min(3, a), min(2, d))]:
                    win[a, d] += p * win[a - al, d - dl]
                    lose[a, d] += p * lose[a - al, d - dl]
        self.attacker_wins = win
        self.defender_wins = lose

    def __repr__(self) -> str:
        return f"OddsTable(max_attackers={self.max_attackers}, max_defenders={self.max_defenders}, exact={self.exact})"

    def _check(self, attackers: int, defenders: int) -> tuple[int, int]:
        a = _count(attackers, "attackers", 0)
        d = _count(defenders, "defenders", 1)
        if a > self.max_attackers or d > self.max_defenders:
            raise ConfigError(
                f"({a}, {d}) is outside this table (max_attackers={self.max_attackers}, max_defenders={self.max_defenders})"
            )
        return a, d

    def win_probability(self, attackers: int, defenders: int) -> Probability:
        """Probability that ``attackers`` (rolling armies) conquer ``defenders``; see :func:`win_probability`.

        Raises:
            ConfigError: arguments that are not integers, out of range or beyond the table's sizes.
        """
        a, d = self._check(attackers, defenders)
        return _scalar(self.attacker_wins[a, d].sum(), self.exact)

    def win_matrix(self) -> np.ndarray:
        """All win probabilities: array ``W`` of shape ``(A + 1, D + 1)``, ``W[a, d]``.

        Column ``d = 0`` is 1 for ``a >= 1`` (nothing to conquer) and
        ``W[0, 0] = 0``.  Dtype follows the table (``float64`` or ``object``).
        """
        return self.attacker_wins.sum(axis=2)

    def outcome_distribution(self, attackers: int, defenders: int) -> dict[tuple[int, int], Probability]:
        """Distribution over absorbing states; same contract as :func:`outcome_distribution`."""
        a, d = self._check(attackers, defenders)
        out: dict[tuple[int, int], Probability] = {}
        for s in range(a, 0, -1):
            out[(s, 0)] = _scalar(self.attacker_wins[a, d, s], self.exact)
        for t in range(1, d + 1):
            out[(0, t)] = _scalar(self.defender_wins[a, d, t], self.exact)
        return out

    def attacker_survivors(self, attackers: int, defenders: int, conditional: bool = False) -> np.ndarray:
        """Float64 array of shape ``(attackers + 1,)``; same contract as :func:`attacker_survivors`."""
        a, d = self._check(attackers, defenders)
        row = np.array([float(x) for x in self.attacker_wins[a, d, : a + 1]], dtype=np.float64)
        return _condition(row, conditional)

    def _conquest_tail(self, attackers: int, defenders_per_territory: DefenderSpec) -> list[Probability]:
        """``tail[k - 1] = P(at least k territories conquered)``, for k = 1 .. max possible."""
        n = _count(attackers, "attackers", 0)
        chain, d_max = _defender_chain(defenders_per_territory)
        if n > self.max_attackers or d_max > self.max_defenders:
            raise ConfigError(
                f"attackers={n} / defenders up to {d_max} exceed this table "
                f"(max_attackers={self.max_attackers}, max_defenders={self.max_defenders})"
            )
        # Each conquest leaves one army behind, so at most n conquests.
        steps = n if chain is None else min(n, len(chain))
        current = _zeros((n + 1,), self.exact)  # distribution of armies able to roll
        current[n] = Fraction(1) if self.exact else 1.0
        tail: list[Probability] = []
        for k in range(steps):
            d = d_max if chain is None else chain[k]
            # wins[x, s]: start with x attackers, conquer with s survivors.
            wins = self.attacker_wins[: n + 1, d, : n + 1]
            after = current @ wins if not self.exact else _object_matvec(current, wins)
            tail.append(_scalar(after.sum(), self.exact))
            nxt = _zeros((n + 1,), self.exact)
            nxt[:-1] = after[1:]  # s survivors move in, s - 1 may attack next
            current = nxt
        return tail

    def expected_conquests(self, attackers: int, defenders_per_territory: DefenderSpec) -> Probability:
        """Expected territories conquered in a chain; see :func:`expected_conquests`."""
        tail = self._conquest_tail(attackers, defenders_per_territory)
        total = sum(tail, Fraction(0) if self.exact else 0.0)
        return _scalar(total, self.exact)

    def conquest_distribution(self, attackers: int, defenders_per_territory: DefenderSpec) -> np.ndarray:
        """``P(exactly k conquered)``; see :func:`conquest_distribution`."""
        tail = [float(x) for x in self._conquest_tail(attackers, defenders_per_territory)]
        at_least = np.array([1.0, *tail, 0.0], dtype=np.float64)
        return at_least[:-1] - at_least[1:]


def _object_matvec(vector: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    out = _zeros((matrix.shape[1],), True)
    for i, v in enumerate(vector):
        if v != 0:
            out += v * matrix[i]
    return out


def _condition(row: np.ndarray, conditional: bool) -> np.ndarray:
    if not conditional:
        return row
    total = row.sum()
    if total == 0:
        raise ConfigError("the attacker cannot win (attackers == 0); the conditional distribution is undefined")
    return row / total


def _table_for_chain(attackers: int, defenders_per_territory: DefenderSpec, exact: bool) -> OddsTable:
    n = _count(attackers, "attackers", 0)
    _, d_max = _defender_chain(defenders_per_territory)
    _check_table(n, d_max, exact, chain=True)
    return OddsTable(n, d_max, exact=exact)


# --------------------------------------------------------------------------- functions


def win_probability(attackers: int, defenders: int, exact: bool = False) -> Probability:
    """Probability that the attacker conquers the territory.

    Args:
        attackers: armies that may roll (the one that must stay behind is
            not counted), >= 0; 0 gives probability 0.
        defenders: armies in the attacked territory, >= 1.
        exact: return a :class:`~fractions.Fraction` instead of a ``float``.

    The attacker rolls ``min(3, a)`` dice and the defender ``min(2, d)``
    every time, until one side has no army left.  Computed per call by a
    forward DP over the ``attackers * defenders`` transient states.

    Raises:
        ConfigError: an argument is not an integer, ``attackers < 0`` or ``defenders < 1``, or a side above
            :data:`BATTLE_LIMIT` (1000 armies; :data:`EXACT_BATTLE_LIMIT`, 200, with ``exact=True``).
    """
    a = _count(attackers, "attackers", 0)
    d = _count(defenders, "defenders", 1)
    _check_battle(a, d, exact)
    mass = _battle_mass(a, d, exact)
    return _scalar(mass[1:, 0].sum(), exact)


def outcome_distribution(attackers: int, defenders: int, exact: bool = False) -> dict[tuple[int, int], Probability]:
    """Distribution of how the battle ends.

    Returns a dict ``(attackers_left, defenders_left) -> probability`` whose
    keys are exactly the absorbing states ``(s, 0)`` for ``s = attackers .. 1``
    and ``(0, t)`` for ``t = 1 .. defenders`` (in that order; states that
    cannot occur are present with probability 0).  Values are ``float`` or,
    with ``exact=True``, :class:`~fractions.Fraction` summing to exactly 1.

    Raises:
        ConfigError: an argument is not an integer, ``attackers < 0`` or ``defenders < 1``, or a side above
            :data:`BATTLE_LIMIT` (1000 armies; :data:`EXACT_BATTLE_LIMIT`, 200, with ``exact=True``).
    """
    a = _count(attackers, "attackers", 0)
    d = _count(defenders, "defenders", 1)
    _check_battle(a, d, exact)
    return _distribution_from_mass(_battle_mass(a, d, exact), exact)


def attacker_survivors(attackers: int, defenders: int, conditional: bool = False) -> np.ndarray:
    """Attacker survivors when the attacker wins, as a numpy array.

    Returns a ``float64`` array ``p`` of shape ``(attackers + 1,)`` where
    ``p[s]`` is the probability of conquering with exactly ``s`` rolling
    armies left (``p[0] == 0``; ``p.sum()`` is the win probability).  With
    ``conditional=True`` it is divided by the win probability, i.e. the
    survivor distribution *given* a win (sums to 1).

    Raises:
        ConfigError: an argument is not an integer, ``attackers < 0`` or ``defenders < 1``, or a side above
            :data:`BATTLE_LIMIT` (1000 armies); or ``conditional=True`` with ``attackers == 0`` (no win possible).
    """
    a = _count(attackers, "attackers", 0)
    d = _count(defenders, "defenders", 1)
    _check_battle(a, d, False)
    row = np.ascontiguousarray(_battle_mass(a, d, False)[:, 0], dtype=np.float64)
    row[0] = 0.0
    return _condition(row, conditional)


def expected_conquests(attackers: int, defenders_per_territory: DefenderSpec, exact: bool = False) -> Probability:
    """Expected number of territories conquered by a chain of battles.

    The attacker starts with ``attackers`` rolling armies and attacks the
    territories of the chain one after another.  After a won battle with
    ``s`` survivors one army stays in the conquered territory and ``s - 1``
    go on; the chain stops at the first lost battle, when no army may roll,
    or at the end of the chain (see the module docstring for why this is
    the source's convention).

    Args:
        attackers: rolling armies for the first battle, >= 0.
        defenders_per_territory: an int ``d >= 1`` for an unbounded chain of
            territories each held by ``d`` armies, or a sequence of ints
            (each >= 1), one per territory in attack order.
        exact: return a :class:`~fractions.Fraction` instead of a ``float``.

    Raises:
        ConfigError: non-integer attackers or defender counts, ``attackers < 0`` or a defender count < 1, or
            attackers or a defender count above :data:`TABLE_LIMIT` (200; :data:`EXACT_TABLE_LIMIT`, 30, with
            ``exact=True``).
    """
    table = _table_for_chain(attackers, defenders_per_territory, exact)
    return table.expected_conquests(attackers, defenders_per_territory)


def conquest_distribution(attackers: int, defenders_per_territory: DefenderSpec) -> np.ndarray:
    """Distribution of the number of territories conquered by a chain.

    Same chain as :func:`expected_conquests`.  Returns a ``float64`` array
    ``p`` of shape ``(K + 1,)``, ``p[k] = P(exactly k conquered)``, where
    ``K = attackers`` for an int ``defenders_per_territory`` (each conquest
    costs at least the army left behind) and ``K = min(attackers, len(chain))``
    for a sequence.

    Raises:
        ConfigError: as :func:`expected_conquests`.
    """
    table = _table_for_chain(attackers, defenders_per_territory, False)
    return table.conquest_distribution(attackers, defenders_per_territory)


def conquests_with_confidence(attackers: int, defenders_per_territory: DefenderSpec, confidence: float = 0.9) -> int:
    """Largest ``k`` with ``P(at least k territories conquered) >= confidence``.

    This is the source's "number of countries that can be defeated with 90%
    confidence" for ``confidence=0.9``.  Same chain as
    :func:`expected_conquests`.

    Raises:
        ConfigError: as :func:`expected_conquests`; also unless ``0 < confidence <= 1``.
    """
    if not 0.0 < confidence <= 1.0:
        raise ConfigError(f"confidence must be in (0, 1], got {confidence!r}")
    table = _table_for_chain(attackers, defenders_per_territory, False)
    tail = table._conquest_tail(attackers, defenders_per_territory)
    return sum(1 for p in tail if p >= confidence)
