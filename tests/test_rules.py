"""Hand-built positions for every rule of docs/rules.md §3, §4 and §7 (and the §6 set-value variants).

Positions are built on a real ``new_game`` state (``helpers.build``) whose fields are then
overwritten; dice are forced through the engine's dice buffer (``helpers.force_dice``).
Every rejected move must leave the state exactly as it was.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    START_ARMIES,
    begin_turn_of,
    build,
    expected_income,
    force_dice,
    give_cards,
    make_game,
    tid,
)

from risk_env import ActionCodec, Game, IllegalMoveError, Move, MoveKind, Phase, RulesConfig

INF, CAV, ART, WILD = 0, 1, 2, 3


def rejected(g: Game, s, move: Move, match: str = "") -> None:
    """``move`` raises IllegalMoveError (matching ``match``) and leaves ``s`` unchanged."""
    before = s.to_dict()
    with pytest.raises(IllegalMoveError, match=match):
        g.apply(s, move)
    assert s.to_dict() == before


def ids(g: Game, *names: str) -> list[int]:
    return [tid(g, n) for n in names]


def continent(g: Game, name: str) -> list[int]:
    c = g.map.continent_names.index(name)
    return [int(t) for t in np.flatnonzero(g.map.continent_members[c])]


def spread(g: Game, k: int) -> list[int]:
    """``k`` territories that complete no continent (all but one of each continent, in turn)."""
    pools = [continent(g, c)[:-1] for c in g.map.continent_names]
    out: list[int] = []
    while len(out) < k:
        for pool in pools:
            if pool and len(out) < k:
                out.append(pool.pop(0))
    return out


def own(s, seat: int) -> list[int]:
    return [int(t) for t in np.flatnonzero(s.owner == seat)]


def set_cards(g: Game, s, seat: int, symbols: list[int], owned_by_seat: bool = False) -> list[int]:
    """Pick cards with these symbols from the draw pile (territory owned / not owned by ``seat``)."""
    out = []
    for sym in symbols:
        for c in sorted(s.deck):
            if c in out or g.card_symbol[c] != sym:
                continue
            if sym != WILD and (int(s.owner[c]) == seat) != owned_by_seat:
                continue
            out.append(c)
            break
        else:
            raise AssertionError(f"no card with symbol {sym} available")
    return out


def finish_turn(g: Game, s) -> None:
    """Place what is left on the first own territory, end the attack, skip the fortify."""
    if s.phase == Phase.REINFORCE:
        g.apply(s, Move.place(own(s, s.player)[0], s.to_place))
    if s.phase == Phase.ATTACK:
        g.apply(s, Move.end_attack())
    g.apply(s, Move.end_turn())


# ================================================================ §3 setup


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_starting_armies_per_player_count(n):
    g = make_game(n)  # random setup: everything placed at once
    s = g.new_game(seed=n)
    seats = g.num_seats
    totals = [int(s.armies[s.owner == p].sum()) for p in range(seats)]
    assert totals == [START_ARMIES[n]] * seats
    assert g.config.starting_armies == START_ARMIES[n]
    if n == 2:
        assert seats == 3 and g.neutral == 2  # 40 each plus a 40-army neutral (§7)
    assert s.phase == Phase.REINFORCE and s.turn == 1 and s.player == s.order[0]


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_claim_mode_order_and_setup_placement(n):
    g = Game(RulesConfig(num_players=n))  # claim is the default setup for 3+ players
    assert g.config.setup == "claim"
    s = g.new_game(seed=11 * n)
    rng = np.random.default_rng(n)
    assert sorted(s.order) == list(range(n))
    # claims: one territory at a time, in turn order, until all 42 are claimed
    for k in range(42):
        assert s.phase == Phase.CLAIM and g.current_player(s) == s.order[k % n]
        taken = own(s, s.player)[:1]
        if taken:
            rejected(g, s, Move.claim(taken[0]), "already claimed")
        free = np.flatnonzero(s.owner == -1)
        assert len(free) == 42 - k
        g.apply(s, Move.claim(int(rng.choice(free))))
    assert s.phase == Phase.SETUP_PLACE
    counts = [int((s.owner == p).sum()) for p in s.order]
    assert counts == [42 // n + (1 if i < 42 % n else 0) for i in range(n)]
    assert (s.armies == 1).all()
    # then one army at a time on an own territory, in turn order, skipping seats with nothing left
    left = {p: START_ARMIES[n] - int((s.owner == p).sum()) for p in range(n)}
    i = 0
    while s.phase == Phase.SETUP_PLACE:
        while left[s.order[i % n]] == 0:
            i += 1
        p = s.order[i % n]
        assert g.current_player(s) == p
        other = next(t for t in range(42) if s.owner[t] != p)
        rejected(g, s, Move.place(other, 1), "not yours")
        mine = own(s, p)
        rejected(g, s, Move.place(mine[0], 2), "one army at a time")
        g.apply(s, Move.place(int(rng.choice(mine)), 1))
        left[p] -= 1
        i += 1
    assert all(v == 0 for v in left.values())
    assert [int(s.armies[s.owner == p].sum()) for p in range(n)] == [START_ARMIES[n]] * n
    # the first player claims first and takes the first turn
    assert s.phase == Phase.REINFORCE and s.player == s.order[0] and s.turn == 1


@pytest.mark.parametrize("n, expected", [(3, [14, 14, 14]), (4, [11, 11, 10, 10]), (5, [9, 9, 8, 8, 8]), (6, [7] * 6)])
def test_deal_mode(n, expected):
    g = make_game(n, setup="deal")
    s = g.new_game(seed=3)
    assert s.phase == Phase.SETUP_PLACE and (s.owner >= 0).all() and (s.armies == 1).all()
    assert [int((s.owner == p).sum()) for p in s.order] == expected
    assert s.player == s.order[0]


def test_random_mode_has_no_setup_decisions():
    g = make_game(4, setup="random")
    s = g.new_game(seed=1)
    assert s.phase == Phase.REINFORCE and (s.armies >= 1).all() and (s.owner >= 0).all()
    assert sum(s.setup_left) == 0


# ================================================================ §7 two players with a neutral


def test_two_player_neutral_deal_and_setup_turns():
    g = Game(RulesConfig(num_players=2))
    assert g.config.setup == "deal" and g.neutral == 2 and g.num_seats == 3
    s = g.new_game(seed=5)
    assert [int((s.owner == p).sum()) for p in range(3)] == [14, 14, 14]
    assert (s.armies == 1).all() and s.setup_left == [26, 26, 26]
    rng = np.random.default_rng(0)
    turns = []
    while s.phase == Phase.SETUP_PLACE:
        p = s.player
        assert g.current_player(s) == p and p in (0, 1)
        turns.append(p)
        neutral_t = own(s, 2)[0]
        for _ in range(2):  # two of its own armies...
            assert s.setup_step < 2
            rejected(g, s, Move.place_neutral(neutral_t), "neutral army is placed only at the end")
            assert all(m.kind == MoveKind.PLACE and s.owner[m.src] == p for m in g.legal_moves(s))
            g.apply(s, Move.place(int(rng.choice(own(s, p))), 1))
        # ...then one neutral army on a neutral territory of its choice
        assert s.setup_step == 2 and g.current_player(s) == p
        rejected(g, s, Move.place(own(s, p)[0], 1), "neutral army next")
        rejected(g, s, Move.place_neutral(own(s, 1 - p)[0]), "not neutral")
        moves = g.legal_moves(s)
        assert {m.src for m in moves} == set(own(s, 2)) and all(m.kind == MoveKind.PLACE_NEUTRAL for m in moves)
        g.apply(s, Move.place_neutral(int(rng.choice(own(s, 2)))))
    # 13 setup turns each, alternating, first player first
    assert turns == [s.order[0], s.order[1]] * 13
    assert [int(s.armies[s.owner == p].sum()) for p in range(3)] == [40, 40, 40]
    assert s.phase == Phase.REINFORCE and s.player == s.order[0] and s.hands == [[], []]


def test_two_player_neutral_claim_mode():
    g = Game(RulesConfig(num_players=2, setup="claim"))
    s = g.new_game(seed=8)
    rng = np.random.default_rng(1)
    k = 0
    while s.phase == Phase.CLAIM:
        # the two players claim in turn; the neutral's claim follows each round automatically
        assert g.current_player(s) == s.order[k % 2]
        before = int((s.owner == 2).sum())
        g.apply(s, Move.claim(int(rng.choice(np.flatnonzero(s.owner == -1)))))
        after = int((s.owner == 2).sum())
        assert after == before + (1 if k % 2 == 1 else 0)
        k += 1
    assert [int((s.owner == p).sum()) for p in range(3)] == [14, 14, 14]
    assert s.phase == Phase.SETUP_PLACE and s.player == s.order[0] and s.setup_left == [26, 26, 26]


def test_neutral_never_acts_only_defends_with_max_dice():
    g = make_game(2, defender_dice="choose")
    a, b, c = ids(g, "Alaska", "Kamchatka", "Alberta")
    s = build(
        g, owners={"Alaska": 0, "Alberta": 1, "Peru": 1}, default_owner=2, armies={"Alaska": 6, "Kamchatka": 3, "Alberta": 5}
    )
    # attacking the neutral: it never chooses; it rolls 2 dice at once
    force_dice(s, [6, 6, 6, 5, 5])
    g.apply(s, Move.attack(a, b, 3))
    assert s.phase == Phase.ATTACK and s.last_roll == [6, 6, 6, 0, 5, 5] and s.armies[b] == 1
    # attacking the other player: the defender chooses
    g.apply(s, Move.attack(a, c, 3))
    assert s.phase == Phase.DEFEND and g.current_player(s) == 1
    g.apply(s, Move.defend(1))
    # the neutral holds no cards and takes no turn: the turn passes 0 -> 1 -> 0
    g.apply(s, Move.end_attack())
    g.apply(s, Move.end_turn())
    assert s.player == 1 and len(s.hands) == 2
    finish_turn(g, s)
    assert s.player == 0


def test_two_player_win_with_the_neutral_remaining():
    g = make_game(2)
    a, b = ids(g, "Alaska", "Kamchatka")
    s = build(g, owners={"Alaska": 0, "Kamchatka": 1, "Alberta": 0}, default_owner=2, armies={"Alaska": 5})
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(a, b, 3))
    assert s.phase == Phase.GAME_OVER and s.winner == 0 and (s.owner == 2).sum() == 39
    assert s.alive == [True, False]


# ================================================================ §4.1 income and continents


@pytest.mark.parametrize("k, expected", [(13, 4), (5, 3), (1, 3), (8, 3), (9, 3), (12, 4), (14, 4), (15, 5), (17, 5), (18, 6)])
def test_income_by_territory_count(k, expected):
    g = make_game(3)
    s = build(g, default_owner=1, owners={g.map.name_of(t): 2 for t in spread(g, k)})
    begin_turn_of(g, s, 2)
    assert s.to_place == expected
    assert g.income(s, 2) == expected == expected_income(g, s, 2)


@pytest.mark.parametrize(
    "name, size, bonus",
    [("Asia", 12, 7), ("North America", 9, 5), ("Europe", 7, 5), ("Africa", 6, 3), ("South America", 4, 2), ("Australia", 4, 2)],
)
def test_each_continent_bonus(name, size, bonus):
    g = make_game(3)
    terr = continent(g, name)
    assert len(terr) == size
    s = build(g, default_owner=1, owners={g.map.name_of(t): 2 for t in terr})
    begin_turn_of(g, s, 2)
    assert s.to_place == max(3, size // 3) + bonus
    # one territory short of the continent: no bonus
    s2 = build(g, default_owner=1, owners={g.map.name_of(t): 2 for t in terr[1:]})
    begin_turn_of(g, s2, 2)
    assert s2.to_place == max(3, (size - 1) // 3)


def test_continent_bonuses_add_up():
    g = make_game(3)
    terr = continent(g, "South America") + continent(g, "Australia") + continent(g, "Africa")
    s = build(g, default_owner=1, owners={g.map.name_of(t): 2 for t in terr})
    begin_turn_of(g, s, 2)
    assert s.to_place == 14 // 3 + 2 + 2 + 3
    # everything but one territory: 41 // 3 + every bonus except the broken continent's
    s = build(g, default_owner=2, owners={"Japan": 1})
    s.alive = [False, True, True]
    begin_turn_of(g, s, 2)
    assert s.to_place == 13 + (5 + 2 + 5 + 3 + 2)


def test_small_map_income():
    g = make_game(2, map="small", two_player="none")
    s = build(g, owners={"Ash": 0, "Birch": 0, "Cedar": 0, "Dune": 0}, default_owner=1)
    begin_turn_of(g, s, 0)
    assert s.to_place == 3 + 2  # West (3 territories, bonus 2)
    begin_turn_of(g, s, 1)
    assert s.to_place == 3 + 2  # 5 territories: East only (Dune breaks Middle)


# ================================================================ §4.1 card trades


def _trade_turns(g: Game, s, schedule_values: list[int], symbols=(INF, CAV, ART)) -> list[int]:
    """Each player in turn trades one set (of territories it does not own) at its turn start."""
    got, traders = [], []
    for expected in schedule_values:
        p = s.player
        traders.append(p)
        cards = set_cards(g, s, p, list(symbols))
        give_cards(s, p, cards)
        assert g.trade_value(s, cards) == expected
        before = s.to_place
        g.apply(s, Move.trade(cards))
        got.append(s.to_place - before)
        assert sorted(s.discard[-3:]) == sorted(cards)
        finish_turn(g, s)
        # put the cards back in the draw pile for the next trades
        s.deck.extend(s.discard)
        s.discard = []
    assert len(set(traders)) == g.num_players  # the counter is shared by every player
    return got


@pytest.mark.parametrize(
    "schedule, values",
    [
        ("escalating", [4, 6, 8, 10, 12, 15, 20, 25]),
        ("escalating_reset", [4, 6, 8, 10, 12, 15, 4, 6, 8]),
        ("slow_escalation", [4, 5, 6, 7, 8, 9, 10, 11]),
        ("fixed_by_symbol", [10] * 7),
    ],
)
def test_trade_values_shared_counter(schedule, values):
    g = make_game(3, card_trade=schedule)
    s = build(g, default_owner=1, owners={n: 0 for n in ("Alaska", "Peru", "Egypt", "Japan")} | {"Siam": 2, "Congo": 2})
    s.player = s.order[0]
    s.phase = Phase.REINFORCE
    s.to_place = 3
    assert _trade_turns(g, s, values) == values
    assert s.sets_traded == len(values)


@pytest.mark.parametrize(
    "comp, value",
    [
        ("III", 4),
        ("CCC", 6),
        ("AAA", 8),
        ("ICA", 10),
        ("IIW", 4),
        ("CCW", 6),
        ("AAW", 8),
        ("ICW", 10),
        ("IAW", 10),
        ("CAW", 10),
        ("IWW", 10),
        ("CWW", 10),
        ("AWW", 10),
    ],
)
def test_fixed_by_symbol_values(comp, value):
    g = make_game(3, card_trade="fixed_by_symbol")
    s = build(g, default_owner=1, owners={"Alaska": 0}, phase=Phase.REINFORCE, to_place=3)
    sym = ["ICAW".index(ch) for ch in comp]
    for k in range(3):  # the value does not depend on how many sets were traded before
        s.sets_traded = 5 * k
        cards = set_cards(g, s, 0, sym)
        give_cards(s, 0, cards)
        before = s.to_place
        g.apply(s, Move.trade(cards))
        assert s.to_place - before == value
        s.deck.extend(s.discard)
        s.discard = []


@pytest.mark.parametrize("symbols", [[INF, INF, CAV], [INF, CAV, CAV], [ART, ART, INF]])
def test_non_sets_are_rejected(symbols):
    g = make_game(3)
    s = build(g, default_owner=1, owners={"Alaska": 0}, phase=Phase.REINFORCE, to_place=3)
    cards = set_cards(g, s, 0, symbols)
    give_cards(s, 0, cards)
    rejected(g, s, Move.trade(cards), "not a set")
    assert not any(m.kind == MoveKind.TRADE for m in g.legal_moves(s))


def test_trade_needs_cards_in_hand_and_reinforce_phase():
    g = make_game(3)
    s = build(g, default_owner=1, owners={"Alaska": 0}, phase=Phase.REINFORCE, to_place=3)
    cards = set_cards(g, s, 0, [INF, CAV, ART])
    rejected(g, s, Move.trade(cards), "from your hand")
    give_cards(s, 0, cards)
    s.phase = Phase.ATTACK
    s.to_place = 0
    rejected(g, s, Move.trade(cards), "only in the reinforce phase")


def test_trade_with_placements_but_not_after_all_are_placed():
    g = make_game(3)
    s = build(g, default_owner=1, owners={"Alaska": 0, "Peru": 0})
    begin_turn_of(g, s, 0)
    give_cards(s, 0, set_cards(g, s, 0, [INF, CAV, ART]))
    assert not s.forced
    g.apply(s, Move.place(tid(g, "Alaska"), 1))  # placing first is fine; trading stays possible
    assert any(m.kind == MoveKind.TRADE for m in g.legal_moves(s))
    g.apply(s, Move.place(tid(g, "Alaska"), s.to_place))
    assert s.phase == Phase.ATTACK
    rejected(g, s, Move.trade(tuple(s.hands[0])), "reinforce phase")


# ---------------------------------------------------------------- the +2 territory bonus


def _bonus_position(rule: str):
    g = make_game(3, territory_bonus=rule)
    mine = ("Alaska", "Northwest Territory", "Greenland", "Alberta", "Ontario", "Quebec")  # symbols I C A I C A
    s = build(g, default_owner=1, owners={n: 0 for n in mine})
    begin_turn_of(g, s, 0)
    give_cards(s, 0, ids(g, *mine))
    return g, s


def test_bonus_once_per_turn():
    g, s = _bonus_position("once_per_turn")
    first = tuple(ids(g, "Alaska", "Northwest Territory", "Greenland"))
    second = tuple(ids(g, "Alberta", "Ontario", "Quebec"))
    assert g.bonus_candidates(s, first) == sorted(first)
    # a bonus territory must be chosen, among the owned territories shown on the traded cards
    rejected(g, s, Move.trade(first), "choose the \\+2 bonus territory")
    rejected(g, s, Move.trade(first, tid(g, "Alberta")), "choose the \\+2 bonus territory")  # owned, not on a card
    rejected(g, s, Move.trade(first, tid(g, "Peru")), "choose the \\+2 bonus territory")
    armies = s.armies.copy()
    place = s.to_place
    g.apply(s, Move.trade(first, tid(g, "Greenland")))
    assert s.armies[tid(g, "Greenland")] == armies[tid(g, "Greenland")] + 2  # placed at once, there
    assert (np.delete(s.armies, tid(g, "Greenland")) == np.delete(armies, tid(g, "Greenland"))).all()
    assert s.to_place == place + 4 and s.bonus_used
    # the second set of the turn: no bonus any more, though its cards show owned territories
    assert g.bonus_candidates(s, second) == []
    rejected(g, s, Move.trade(second, tid(g, "Alberta")), "no \\+2 territory bonus")
    g.apply(s, Move.trade(second))
    assert s.to_place == place + 4 + 6
    assert (np.delete(s.armies, tid(g, "Greenland")) == np.delete(armies, tid(g, "Greenland"))).all()
    # next turn of the same player: available again
    finish_turn(g, s)
    while s.player != 0:
        finish_turn(g, s)
    assert not s.bonus_used
    give_cards(s, 0, ids(g, "Alaska", "Northwest Territory", "Greenland"))
    assert g.bonus_candidates(s, first) == sorted(first)


def test_bonus_once_per_trade_variant():
    g, s = _bonus_position("once_per_trade")
    first = tuple(ids(g, "Alaska", "Northwest Territory", "Greenland"))
    second = tuple(ids(g, "Alberta", "Ontario", "Quebec"))
    g.apply(s, Move.trade(first, tid(g, "Alaska")))
    assert g.bonus_candidates(s, second) == sorted(second)
    before = int(s.armies[tid(g, "Quebec")])
    g.apply(s, Move.trade(second, tid(g, "Quebec")))
    assert s.armies[tid(g, "Quebec")] == before + 2


def test_bonus_only_for_owned_territories():
    g = make_game(3)
    s = build(g, default_owner=1, owners={"Alaska": 0, "Peru": 0})
    begin_turn_of(g, s, 0)
    cards = set_cards(g, s, 0, [INF, CAV, WILD])  # territories of player 1, and a wild
    give_cards(s, 0, cards)
    assert g.bonus_candidates(s, cards) == []
    enemy = next(c for c in cards if c < g.T)
    rejected(g, s, Move.trade(cards, enemy), "no \\+2 territory bonus")
    trades = [m for m in g.legal_moves(s) if m.kind == MoveKind.TRADE]
    assert trades == [Move.trade(cards)]
    armies = s.armies.copy()
    g.apply(s, Move.trade(cards))
    assert (s.armies == armies).all() and not s.bonus_used


# ---------------------------------------------------------------- forced trades at turn start


def test_forced_trade_at_five_cards():
    g = make_game(3)
    s = build(g, default_owner=1, owners={"Alaska": 0, "Peru": 0})
    give_cards(s, 0, set_cards(g, s, 0, [INF, INF, INF, CAV, ART]))
    begin_turn_of(g, s, 0)
    assert s.forced and s.to_place == 3
    rejected(g, s, Move.place(tid(g, "Alaska"), 1), "must trade first")
    moves = g.legal_moves(s)
    assert moves and all(m.kind == MoveKind.TRADE for m in moves)
    codec = ActionCodec(g)
    mask = codec.mask(s)
    assert not mask[: g.T].any() and mask[codec.trade : codec.end].any()
    g.apply(s, moves[0])
    assert not s.forced and len(s.hands[0]) == 2
    g.apply(s, Move.place(tid(g, "Alaska"), 1))


def test_four_cards_not_forced_and_trade_optional():
    g = make_game(3)
    s = build(g, default_owner=1, owners={"Alaska": 0, "Peru": 0})
    give_cards(s, 0, set_cards(g, s, 0, [INF, INF, INF, CAV]))
    begin_turn_of(g, s, 0)
    assert not s.forced
    kinds = {m.kind for m in g.legal_moves(s)}
    assert kinds == {MoveKind.TRADE, MoveKind.PLACE}
    g.apply(s, Move.place(tid(g, "Alaska"), s.to_place))  # skipping the trade is allowed
    assert s.phase == Phase.ATTACK and len(s.hands[0]) == 4


def test_forced_trade_until_four_or_fewer():
    g = make_game(3)
    s = build(g, default_owner=1, owners={"Alaska": 0, "Peru": 0})
    give_cards(s, 0, set_cards(g, s, 0, [INF, INF, INF, CAV, CAV, CAV, ART, ART]))
    begin_turn_of(g, s, 0)
    assert s.forced
    g.apply(s, Move.trade(tuple(c for c in s.hands[0] if g.card_symbol[c] == INF)))
    assert s.forced and len(s.hands[0]) == 5  # still 5: trade again
    rejected(g, s, Move.place(tid(g, "Alaska"), 1), "must trade first")
    g.apply(s, Move.trade(tuple(c for c in s.hands[0] if g.card_symbol[c] == CAV)))
    assert not s.forced and len(s.hands[0]) == 2
    assert s.to_place == 3 + 4 + 6


# ================================================================ §4.2 attacks


def test_attack_dice_limits():
    g = make_game(3)
    a, b = ids(g, "Alaska", "Kamchatka")
    for armies, most in [(2, 1), (3, 2), (4, 3), (9, 3)]:
        s = build(g, owners={"Alaska": 0}, armies={"Alaska": armies, "Kamchatka": 5})
        legal = sorted(m.count for m in g.legal_moves(s) if m.kind == MoveKind.ATTACK and (m.src, m.dst) == (a, b))
        assert legal == list(range(1, most + 1))
        rejected(g, s, Move.attack(a, b, most + 1), f"roll 1..{most} dice")
        rejected(g, s, Move.attack(a, b, 0), f"roll 1..{most} dice")
        g.apply(s, Move.attack(a, b, most))
        assert s.last_dice == most and s.last_roll.index(0) == most
    s = build(g, owners={"Alaska": 0}, armies={"Alaska": 1})
    rejected(g, s, Move.attack(a, b, 1), "has 1 army")
    rejected(g, s, Move.blitz(a, b), "has 1 army")


def test_attack_targets():
    g = make_game(3)
    a, alb, kam, peru = ids(g, "Alaska", "Alberta", "Kamchatka", "Peru")
    s = build(g, owners={"Alaska": 0, "Alberta": 0}, armies={"Alaska": 5})
    rejected(g, s, Move.attack(a, alb, 1), "is yours")
    rejected(g, s, Move.attack(a, peru, 1), "do not share a border")
    rejected(g, s, Move.attack(kam, a, 1), "not yours")
    targets = {m.dst for m in g.legal_moves(s) if m.kind == MoveKind.ATTACK}
    assert targets == {kam, tid(g, "Northwest Territory")}


def test_defender_chooses_dice_variant():
    g = make_game(3, defender_dice="choose")
    a, b = ids(g, "Alaska", "Kamchatka")
    s = build(g, owners={"Alaska": 0, "Kamchatka": 2}, armies={"Alaska": 5, "Kamchatka": 2})
    g.apply(s, Move.attack(a, b, 3))
    assert s.phase == Phase.DEFEND and g.current_player(s) == 2 and s.player == 0
    assert g.legal_moves(s) == [Move.defend(1), Move.defend(2)]
    rejected(g, s, Move.defend(3), "defend with 1..2 dice")
    rejected(g, s, Move.end_attack(), "not attacking")
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.defend(1))
    assert s.last_roll == [6, 6, 6, 0, 1] and s.armies[b] == 1 and s.phase == Phase.ATTACK
    g.apply(s, Move.attack(a, b, 3))
    assert g.legal_moves(s) == [Move.defend(1)]  # one army: one die
    rejected(g, s, Move.defend(2), "defend with 1..1 dice")


# ---------------------------------------------------------------- occupation


@pytest.mark.parametrize("dice", [1, 2, 3])
def test_occupation_minimum_is_dice_and_maximum_source_minus_one(dice):
    g = make_game(3)
    a, b = ids(g, "Alaska", "Kamchatka")
    s = build(g, owners={"Alaska": 0}, armies={"Alaska": 10, "Kamchatka": 1})
    force_dice(s, [6] * dice + [1])
    g.apply(s, Move.attack(a, b, dice))
    assert s.phase == Phase.OCCUPY and s.owner[b] == 0
    assert g.occupy_range(s) == (dice, 9)
    assert [m.count for m in g.legal_moves(s)] == list(range(dice, 10))
    if dice > 1:
        rejected(g, s, Move.occupy(dice - 1), f"move {dice}..9 armies")
    rejected(g, s, Move.occupy(10), f"move {dice}..9 armies")
    rejected(g, s, Move.end_attack(), "not attacking")
    g.apply(s, Move.occupy(9))
    assert (s.armies[a], s.armies[b]) == (1, 9) and s.phase == Phase.ATTACK
    assert s.conquered


def test_occupation_with_no_choice_is_automatic_and_new_territory_attacks():
    g = make_game(3)
    a, b, c = ids(g, "Alaska", "Kamchatka", "Japan")
    s = build(g, owners={"Alaska": 0}, armies={"Alaska": 4, "Kamchatka": 1})
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(a, b, 3))
    # 3 dice from 4 armies: exactly 3 move in, nothing to decide
    assert s.phase == Phase.ATTACK and (s.armies[a], s.armies[b]) == (1, 3)
    # the conquered territory may attack in the same turn
    assert any(m.src == b and m.dst == c for m in g.legal_moves(s) if m.kind == MoveKind.ATTACK)
    g.apply(s, Move.attack(b, c, 2))


def test_blitz_occupation_minimum_is_last_roll():
    g = make_game(3)
    a, b = ids(g, "Alaska", "Kamchatka")
    s = build(g, owners={"Alaska": 0}, armies={"Alaska": 5, "Kamchatka": 2})
    # 3v2: attacker loses 2 (a: 3); 2v2: defender loses 2 -> conquest with 2 dice
    force_dice(s, [1, 1, 1, 6, 6, 6, 6, 1, 1])
    g.apply(s, Move.blitz(a, b))
    assert s.owner[b] == 0 and s.last_dice == 2 and s.armies[b] == 2 and s.armies[a] == 1
    assert s.phase == Phase.ATTACK  # 3 armies - 2 moved = 1 left: nothing to choose


# ---------------------------------------------------------------- elimination


def _elimination_position(g, attacker_cards: int, victim_cards: int, src_armies: int = 10):
    s = build(g, owners={"Alaska": 0, "Kamchatka": 2}, armies={"Alaska": src_armies})
    # symbols chosen so that any trade-down order works; no card shows a territory of player 0
    sym_a = [INF, CAV, ART, INF, CAV, ART][:attacker_cards]
    sym_v = [INF, INF, CAV, CAV, ART, ART, INF][:victim_cards]
    ca = set_cards(g, s, 0, sym_a)
    give_cards(s, 0, ca)
    cv = set_cards(g, s, 0, sym_v)
    give_cards(s, 2, cv)
    return s, ca, cv


def test_elimination_takes_cards_and_trades_down_from_eight():
    g = make_game(3)
    a, b = ids(g, "Alaska", "Kamchatka")
    s, ca, cv = _elimination_position(g, 3, 5)
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(a, b, 3))
    assert not s.alive[2] and s.hands[2] == [] and s.elim_order == [2]
    assert sorted(s.hands[0]) == sorted(ca + cv) and len(s.hands[0]) == 8
    assert s.phase == Phase.OCCUPY
    g.apply(s, Move.occupy(3))
    # trade down at once: 8 -> 5 (still forced) -> 2, placing the armies, then back to attacking
    assert s.phase == Phase.REINFORCE and s.forced and s.to_place == 0 and g.current_player(s) == 0
    rejected(g, s, Move.place(a, 1), "must trade first")
    rejected(g, s, Move.end_attack(), "not legal in the reinforce phase")
    assert all(m.kind == MoveKind.TRADE for m in g.legal_moves(s))
    g.apply(s, g.legal_moves(s)[0])
    assert s.forced and len(s.hands[0]) == 5 and s.to_place == 4
    g.apply(s, g.legal_moves(s)[0])
    assert not s.forced and len(s.hands[0]) == 2 and s.to_place == 4 + 6
    # no further (voluntary) trade now; placement goes on at once
    assert {m.kind for m in g.legal_moves(s)} == {MoveKind.PLACE}
    g.apply(s, Move.place(b, 10))
    assert s.phase == Phase.ATTACK and s.armies[b] == 13
    assert any(m.kind == MoveKind.ATTACK for m in g.legal_moves(s))
    # the eliminated player never acts again: the turn passes 0 -> 1 -> 0
    g.apply(s, Move.end_attack())
    g.apply(s, Move.end_turn())
    assert len(s.hands[0]) == 3  # the card for the conquest
    assert s.player == 1
    finish_turn(g, s)
    assert s.player == 0


def test_elimination_below_threshold_no_trade_down():
    g = make_game(3)
    a, b = ids(g, "Alaska", "Kamchatka")
    s, _, _ = _elimination_position(g, 2, 3)  # 5 cards after the transfer: default threshold is 6
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(a, b, 3))
    g.apply(s, Move.occupy(3))
    assert s.phase == Phase.ATTACK and len(s.hands[0]) == 5 and not s.forced
    g5 = make_game(3, elimination_trade_at=5)  # variant: 5 or more
    s, _ca, _cv = _elimination_position(g5, 2, 3)
    force_dice(s, [6, 6, 6, 1])
    g5.apply(s, Move.attack(a, b, 3))
    g5.apply(s, Move.occupy(3))
    assert s.phase == Phase.REINFORCE and s.forced
    g5.apply(s, g5.legal_moves(s)[0])
    assert len(s.hands[0]) == 2 and not s.forced and s.to_place == 4


def test_elimination_trade_down_without_occupation_choice():
    g = make_game(3)
    a, b = ids(g, "Alaska", "Kamchatka")
    s, _ca, _cv = _elimination_position(g, 3, 3, src_armies=4)
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(a, b, 3))
    assert (s.armies[a], s.armies[b]) == (1, 3)
    assert s.phase == Phase.REINFORCE and s.forced and len(s.hands[0]) == 6


def test_win_by_elimination_ends_the_game():
    g = make_game(3)
    a, b = ids(g, "Alaska", "Kamchatka")
    s = build(g, owners={"Kamchatka": 2}, default_owner=0, armies={"Alaska": 5})
    s.alive[1] = False
    s.elim_order = [1]
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(a, b, 3))
    assert s.phase == Phase.GAME_OVER and s.winner == 0 and not s.truncated
    assert g.current_player(s) == -1 and g.legal_moves(s) == []
    rejected(g, s, Move.end_attack(), "the game is over")
    assert g.invariant_violations(s) == []


# ================================================================ §4.3 fortify


def test_fortify_adjacent_leaves_one_and_passes_the_turn():
    g = make_game(3)
    a, nwt, ont, kam = ids(g, "Alaska", "Northwest Territory", "Ontario", "Kamchatka")
    s = build(g, owners={"Alaska": 0, "Northwest Territory": 0, "Ontario": 0}, armies={"Alaska": 5}, phase=Phase.FORTIFY)
    rejected(g, s, Move.fortify(a, nwt, 5), "one must stay")
    rejected(g, s, Move.fortify(a, nwt, 0), "one must stay")
    rejected(g, s, Move.fortify(a, ont, 1), "must share a border")  # connected through NWT, not adjacent
    rejected(g, s, Move.fortify(a, kam, 1), "must be yours")
    rejected(g, s, Move.fortify(nwt, a, 1), "has 1 army")
    legal = {(m.src, m.dst, m.count) for m in g.legal_moves(s) if m.kind == MoveKind.FORTIFY}
    assert legal == {(a, nwt, k) for k in range(1, 5)}
    nxt = [p for p in s.order if s.alive[p]]
    nxt = nxt[(nxt.index(0) + 1) % len(nxt)]
    g.apply(s, Move.fortify(a, nwt, 4))
    assert (s.armies[a], s.armies[nwt]) == (1, 5)
    # fortify once: the turn passes at once
    assert s.player == nxt and s.phase == Phase.REINFORCE and s.turn == 2


def test_fortify_only_in_the_fortify_phase_and_skippable():
    g = make_game(3)
    a, nwt = ids(g, "Alaska", "Northwest Territory")
    s = build(g, owners={"Alaska": 0, "Northwest Territory": 0}, armies={"Alaska": 5})
    rejected(g, s, Move.fortify(a, nwt, 1), "only in the fortify phase")
    rejected(g, s, Move.end_turn(), "'end attack' first")
    g.apply(s, Move.end_attack())
    g.apply(s, Move.end_turn())
    assert s.player != 0 and s.armies[a] == 5


def test_fortify_connected_variant():
    g = make_game(3, fortify="connected")
    a, _ont, quebec, peru = ids(g, "Alaska", "Ontario", "Quebec", "Peru")
    s = build(
        g,
        owners={"Alaska": 0, "Northwest Territory": 0, "Ontario": 0, "Quebec": 0, "Peru": 0},
        armies={"Alaska": 5},
        phase=Phase.FORTIFY,
    )
    reach = {m.dst for m in g.legal_moves(s) if m.kind == MoveKind.FORTIFY and m.src == a}
    assert reach == set(ids(g, "Northwest Territory", "Ontario", "Quebec"))  # not Peru: cut off by enemies
    rejected(g, s, Move.fortify(a, peru, 1), "joined through your territories")
    g.apply(s, Move.fortify(a, quebec, 4))
    assert s.armies[quebec] == 5 and s.armies[a] == 1 and s.player != 0


# ================================================================ §4.4 cards after a conquest


def _conquest_turn(g, conquests: int, seed: int = 0):
    names = ["Kamchatka", "Japan", "Mongolia"][:conquests]
    s = build(g, owners={"Alaska": 0}, armies={"Alaska": 20}, seed=seed)
    src = tid(g, "Alaska")
    for n in names:
        force_dice(s, [6, 6, 6, 1])
        g.apply(s, Move.attack(src, tid(g, n), 3))
        g.apply(s, Move.occupy(g.occupy_range(s)[1]))
        src = tid(g, n)
    g.apply(s, Move.end_attack())
    return s


@pytest.mark.parametrize("conquests", [0, 1, 3])
def test_one_card_only_after_a_conquest(conquests):
    g = make_game(3)
    s = _conquest_turn(g, conquests)
    assert s.conquered == (conquests > 0)
    top = s.deck[-1]
    g.apply(s, Move.end_turn())
    assert s.hands[0] == ([top] if conquests else [])


def test_deck_reshuffled_from_discards_when_empty():
    g = make_game(3)
    s = _conquest_turn(g, 1)
    # every card but 5 in player 1's hand, 5 in the discards, draw pile empty
    discards = s.deck[:5]
    s.hands[1] = s.deck[5:]
    s.deck = []
    s.discard = discards[:]
    assert g.invariant_violations(s) == []
    g.apply(s, Move.end_turn())
    assert len(s.hands[0]) == 1 and s.hands[0][0] in discards
    assert s.discard == [] and sorted(s.deck + s.hands[0]) == sorted(discards)


def test_no_card_when_draw_pile_and_discards_are_empty():
    g = make_game(3)
    s = _conquest_turn(g, 1)
    s.hands[1] = s.deck[:]
    s.deck = []
    g.apply(s, Move.end_turn())
    assert s.hands[0] == [] and g.invariant_violations(s) == []


def test_no_cards_variant():
    g = make_game(3, card_trade="no_cards")
    s = _conquest_turn(g, 1)
    assert s.deck == [] and g.num_cards == 0
    g.apply(s, Move.end_turn())
    assert s.hands == [[], [], []]
    codec = ActionCodec(g)
    assert codec.trade == -1 and codec.n == g.T + 15


# ================================================================ §4.5 turn limit


def test_turn_limit_truncates():
    g = make_game(3, turn_limit=4)
    s = g.new_game(seed=2)
    for turn in range(1, 5):
        assert s.turn == turn and s.phase == Phase.REINFORCE
        finish_turn(g, s)
    assert s.phase == Phase.GAME_OVER and s.truncated and s.winner == -1
    assert g.current_player(s) == -1 and g.invariant_violations(s) == []


def test_turns_follow_order_and_income_each_turn():
    g = make_game(4, setup="random")
    s = g.new_game(seed=4)
    seen = []
    for _ in range(8):
        seen.append(s.player)
        assert s.to_place == expected_income(g, s, s.player)
        finish_turn(g, s)
    assert seen == s.order * 2
