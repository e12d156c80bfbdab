"""Game.roll_outcomes: the exact chance outcomes of an attack in a position."""

from fractions import Fraction

import pytest

from risk_env import Game, IllegalMoveError, Move, Phase, RulesConfig


def attack_position(att: int, dfd: int):
    g = Game(RulesConfig(num_players=2, two_player="none", setup="random"))
    s = g.new_game(0)
    a, b = g.map.id_of("Alaska"), g.map.id_of("Kamchatka")
    s.owner[:] = 0
    s.owner[b] = 1
    s.armies[:] = 1
    s.armies[a], s.armies[b] = att, dfd
    s.player, s.phase, s.to_place = 0, Phase.ATTACK, 0
    return g, s, a, b


def test_three_vs_two_matches_rules_section_9():
    g, s, a, b = attack_position(4, 5)
    out = g.roll_outcomes(s, Move.attack(a, b, 3))
    assert out == {(0, 2): Fraction(2890, 7776), (1, 1): Fraction(2611, 7776), (2, 0): Fraction(2275, 7776)}


def test_defender_with_one_army_rolls_one_die():
    g, s, a, b = attack_position(2, 1)
    out = g.roll_outcomes(s, Move.attack(a, b, 1))
    assert out == {(0, 1): Fraction(15, 36), (1, 0): Fraction(21, 36)}
    with pytest.raises(IllegalMoveError, match="1..1"):
        g.roll_outcomes(s, Move.attack(a, b, 1), defender_dice=2)


def test_illegal_attack_is_rejected():
    g, s, a, b = attack_position(2, 3)
    with pytest.raises(IllegalMoveError, match="roll 1..1 dice"):
        g.roll_outcomes(s, Move.attack(a, b, 2))
    with pytest.raises(IllegalMoveError, match="attack moves"):
        g.roll_outcomes(s, Move.end_attack())
