"""Dice: exact one-roll probabilities (docs/rules.md §4.2, §9) and the engine's own rolls.

The exact tables are checked three ways: against ``risk_env.rules.dice.roll_outcomes``,
against an independent enumeration written here, and against published
figures (the 3-vs-2 numbers of docs/rules.md §9 and the classic 1..3 vs 1..2 table).
The engine's rolls (``Game.apply`` of ATTACK moves on hand-built positions) are
then compared with the exact values within 4 standard errors.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from helpers import build, force_dice, make_game, roll_losses, tid

from risk_env import IllegalMoveError, Move, Phase
from risk_env.rules.dice import ROLL_PROBABILITIES, max_attack_dice, max_defend_dice, resolve_roll, roll_outcomes

PAIRS = [(a, d) for a in (1, 2, 3) for d in (1, 2)]


def independent_table(att: int, dfd: int) -> dict[tuple[int, int], Fraction]:
    """Enumerate all 6**(att+dfd) rolls with this file's own comparison."""
    counts: dict[tuple[int, int], int] = {}
    for faces in itertools.product(range(1, 7), repeat=att + dfd):
        key = roll_losses(list(faces[:att]), list(faces[att:]))
        counts[key] = counts.get(key, 0) + 1
    total = 6 ** (att + dfd)
    return {k: Fraction(v, total) for k, v in counts.items()}


# Published one-roll table: (attacker dice, defender dice) -> {(att losses, def losses): count / 6**n}.
PUBLISHED = {
    (1, 1): {(0, 1): Fraction(15, 36), (1, 0): Fraction(21, 36)},
    (2, 1): {(0, 1): Fraction(125, 216), (1, 0): Fraction(91, 216)},
    (3, 1): {(0, 1): Fraction(855, 1296), (1, 0): Fraction(441, 1296)},
    (1, 2): {(0, 1): Fraction(55, 216), (1, 0): Fraction(161, 216)},
    (2, 2): {(0, 2): Fraction(295, 1296), (1, 1): Fraction(420, 1296), (2, 0): Fraction(581, 1296)},
    (3, 2): {(0, 2): Fraction(2890, 7776), (1, 1): Fraction(2611, 7776), (2, 0): Fraction(2275, 7776)},
}


@pytest.mark.parametrize("att, dfd", PAIRS)
def test_exact_tables(att, dfd):
    got = roll_outcomes(att, dfd)
    assert got == independent_table(att, dfd)
    assert got == PUBLISHED[(att, dfd)]
    assert sum(got.values()) == 1
    assert all(isinstance(p, Fraction) for p in got.values())
    # every outcome removes exactly min(att, dfd) armies
    assert all(al + dl == min(att, dfd) for al, dl in got)
    assert ROLL_PROBABILITIES[(att, dfd)] == got


def test_rules_section_9_figures():
    t = roll_outcomes(3, 2)
    assert t[(0, 2)] == Fraction(2890, 7776)
    assert t[(1, 1)] == Fraction(2611, 7776)
    assert t[(2, 0)] == Fraction(2275, 7776)


def test_resolve_roll_cases():
    assert resolve_roll([6, 3, 1], [5, 5]) == (1, 1)
    assert resolve_roll([4, 4, 4], [4, 4]) == (2, 0)  # the defender wins ties
    assert resolve_roll([1, 6, 2], [5, 1]) == (0, 2)  # sorted before pairing: 6>5, 2>1
    assert resolve_roll([6], [5, 6]) == (1, 0)  # one pair: 6 vs the defender's best 6
    assert resolve_roll([6, 6, 6], [1]) == (0, 1)  # extra dice ignored
    assert resolve_roll([2, 1], [1, 1]) == (1, 1)


def test_dice_limits_helpers():
    assert [max_attack_dice(n) for n in range(1, 7)] == [0, 1, 2, 3, 3, 3]
    assert [max_defend_dice(n) for n in range(1, 5)] == [1, 2, 2, 2]


@pytest.mark.parametrize("bad", [(0, 1), (4, 1), (1, 0), (1, 3), (-1, 2)])
def test_roll_outcomes_rejects_bad_counts(bad):
    with pytest.raises(ValueError, match="must be"):
        roll_outcomes(*bad)


# ---------------------------------------------------------------- forced faces through the engine


def _duel(game, src_armies, dst_armies, seed=0):
    return build(
        game,
        owners={"Alaska": 0, "Kamchatka": 1},
        default_owner=2,
        armies={"Alaska": src_armies, "Kamchatka": dst_armies},
        seed=seed,
    )


def test_dice_buffer_order_attacker_then_defender():
    g = make_game(3)
    a, b = tid(g, "Alaska"), tid(g, "Kamchatka")
    s = _duel(g, 5, 4)
    force_dice(s, [6, 5, 4, 3, 3])  # attacker 6 5 4, defender 3 3
    g.apply(s, Move.attack(a, b, 3))
    assert s.last_roll == [6, 5, 4, 0, 3, 3]
    assert (s.armies[a], s.armies[b]) == (5, 2)
    force_dice(s, [1, 1, 1, 6, 6])
    g.apply(s, Move.attack(a, b, 3))
    assert (s.armies[a], s.armies[b]) == (3, 2)
    force_dice(s, [3, 2, 3, 2])  # ties: the defender wins both
    g.apply(s, Move.attack(a, b, 2))
    assert (s.armies[a], s.armies[b]) == (1, 2)
    assert s.phase == Phase.ATTACK


def test_defender_rolls_max_dice():
    g = make_game(3)
    a, b = tid(g, "Alaska"), tid(g, "Kamchatka")
    s = _duel(g, 4, 1)
    force_dice(s, [2, 2, 2, 3, 6])  # a 1-army defender rolls 1 die: the 3 (the 6 is never drawn)
    g.apply(s, Move.attack(a, b, 3))
    assert s.last_roll == [2, 2, 2, 0, 3]
    assert s.dice_pos == 4
    assert s.armies[a] == 3 and s.armies[b] == 1
    s2 = _duel(g, 4, 7)
    force_dice(s2, [5, 4, 6])  # 1 attacker die vs 2 defender dice (4, 6): the 6 beats the 5
    g.apply(s2, Move.attack(a, b, 1))
    assert s2.last_roll == [5, 0, 6, 4] and s2.dice_pos == 3
    assert s2.armies[a] == 3 and s2.armies[b] == 7


def test_blitz_rolls_until_conquest_or_one_army():
    g = make_game(3)
    a, b = tid(g, "Alaska"), tid(g, "Kamchatka")
    s = _duel(g, 10, 3)
    # roll 1: 3v2, defender loses 2 (b: 1); roll 2: 3v1, attacker wins -> conquest with 3 dice
    force_dice(s, [6, 6, 6, 1, 1, 6, 5, 4, 1])
    g.apply(s, Move.blitz(a, b))
    assert s.owner[b] == 0 and s.phase == Phase.OCCUPY
    assert s.armies[b] == 3 and s.armies[a] == 7 and s.last_dice == 3
    s = _duel(g, 4, 5)
    # 3v2 attacker loses 2 (a: 2); 1v2 attacker loses 1 (a: 1): stops
    force_dice(s, [1, 1, 1, 6, 6, 1, 6, 6])
    g.apply(s, Move.blitz(a, b))
    assert s.armies[a] == 1 and s.armies[b] == 5 and s.owner[b] == 1 and s.phase == Phase.ATTACK


def test_same_seed_same_dice_and_serialization_keeps_the_stream():
    g = make_game(3)
    a, b = tid(g, "Alaska"), tid(g, "Kamchatka")
    rolls = []
    for _ in range(2):
        s = _duel(g, 200, 200, seed=5)
        out = []
        for _ in range(40):
            g.apply(s, Move.attack(a, b, 3))
            out.append(tuple(s.last_roll))
        rolls.append(out)
    assert rolls[0] == rolls[1]
    # a round trip through to_dict continues the same dice stream
    s = _duel(g, 5000, 5000, seed=9)
    for _ in range(7):
        g.apply(s, Move.attack(a, b, 3))
    t = g.state_from_dict(s.to_dict())
    for _ in range(300):  # crosses a refill of the dice batch
        g.apply(s, Move.attack(a, b, 1))
        g.apply(t, Move.attack(a, b, 1))
        assert s.last_roll == t.last_roll
    # a copy does not disturb the original's stream
    u = s.copy()
    g.apply(u, Move.attack(a, b, 1))
    v = s.copy()
    g.apply(v, Move.attack(a, b, 1))
    assert u.last_roll == v.last_roll


def test_attack_with_too_many_dice_is_rejected_unchanged():
    g = make_game(3)
    a, b = tid(g, "Alaska"), tid(g, "Kamchatka")
    s = _duel(g, 3, 2)
    before = s.to_dict()
    with pytest.raises(IllegalMoveError, match="roll 1..2 dice"):
        g.apply(s, Move.attack(a, b, 3))
    assert s.to_dict() == before


# ---------------------------------------------------------------- simulated frequencies


def _simulate(att: int, dfd: int, rolls_per_seed: int, seeds: range, choose: bool) -> dict[tuple[int, int], int]:
    """Attack ``rolls_per_seed`` times per seed with the engine's own dice; count (att, def) losses.

    Default rules (defender rolls the most dice): a 2-dice defence uses a 6-army target and a
    1-dice defence a 1-army target (a conquest counts as (0, 1)). With ``choose`` the
    defender picks ``dfd`` dice in the DEFEND phase against a 6-army target.
    """
    g = make_game(3, defender_dice="choose" if choose else "max")
    a, b = tid(g, "Alaska"), tid(g, "Kamchatka")
    src0 = att + 3
    dst0 = 1 if (dfd == 1 and not choose) else 6
    counts: dict[tuple[int, int], int] = {}
    for seed in seeds:
        s = _duel(g, src0, dst0, seed=seed)
        for _ in range(rolls_per_seed):
            s.armies[a], s.armies[b] = src0, dst0
            s.owner[b] = 1
            s.phase = Phase.ATTACK
            g.apply(s, Move.attack(a, b, att))
            if choose:
                assert s.phase == Phase.DEFEND and g.current_player(s) == 1
                g.apply(s, Move.defend(dfd))
            if s.owner[b] == 0:  # conquered: the attacker moved `att` armies in
                assert s.phase in (Phase.OCCUPY, Phase.ATTACK) and s.armies[b] == att
                key = (src0 - int(s.armies[a]) - att, dst0)
            else:
                key = (src0 - int(s.armies[a]), dst0 - int(s.armies[b]))
            counts[key] = counts.get(key, 0) + 1
    return counts


@pytest.mark.parametrize("att, dfd", PAIRS)
@pytest.mark.parametrize("choose", [False, True], ids=["max", "choose"])
def test_engine_roll_frequencies(att, dfd, choose):
    n_seeds, per = 4, 3000
    counts = _simulate(att, dfd, per, range(100 * att + 10 * dfd, 100 * att + 10 * dfd + n_seeds), choose)
    n = n_seeds * per
    exact = roll_outcomes(att, dfd)
    assert set(counts) <= set(exact)
    for outcome, p in exact.items():
        p = float(p)
        freq = counts.get(outcome, 0) / n
        se = math.sqrt(p * (1 - p) / n)
        assert abs(freq - p) <= 4 * se, f"{att}v{dfd} {outcome}: {freq:.4f} vs exact {p:.4f} (4 se = {4 * se:.4f})"


def test_engine_faces_are_uniform():
    """Faces the engine draws (its dice buffer refilled from the generator) are uniform on 1..6."""
    g = make_game(3)
    a, b = tid(g, "Alaska"), tid(g, "Kamchatka")
    faces = np.zeros(7, dtype=np.int64)
    for seed in range(3):
        s = _duel(g, 10_000, 10_000, seed=seed)
        for _ in range(2000):
            g.apply(s, Move.attack(a, b, 3))
            for f in s.last_roll:
                faces[f] += 1
    faces[0] = 0
    n = faces.sum()
    assert n == 3 * 2000 * 5
    exp = n / 6
    chi2 = float(((faces[1:] - exp) ** 2 / exp).sum())
    assert chi2 < 25.7  # chi-square, 5 degrees of freedom, p = 1e-4
