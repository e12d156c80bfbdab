"""The card and dice variants of docs/rules.md §6 and §8 on hand-built positions: trades by
stars, blitz under ``defender_dice="choose"``, the ``tournament`` and ``expert`` presets, and
rules files."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import begin_turn_of, build, force_dice, give_cards, make_game, tid

import risk_env
from risk_env import ActionCodec, ConfigError, Game, IllegalActionError, IllegalMoveError, Move, MoveKind, Phase, RulesConfig
from risk_env.envs.codec import Selection
from risk_env.rules.cards import STARS_VALUES, stars_pick, stars_value
from risk_env.rules.config import PRESETS, load_rules_file, resolve_rules, rules_files

INF, CAV, ART, WILD = 0, 1, 2, 3
STARS = {2: 2, 3: 4, 4: 7, 5: 10, 6: 13, 7: 17, 8: 21, 9: 25, 10: 30}  # docs/rules.md §6, restated


def rejected(g: Game, s, move: Move, match: str = "") -> None:
    before = s.to_dict()
    with pytest.raises(IllegalMoveError, match=match):
        g.apply(s, move)
    assert s.to_dict() == before


def cards_of(g: Game, s, symbols: list[int]) -> list[int]:
    """Cards with these symbols from the draw pile, lowest ids first."""
    out: list[int] = []
    for sym in symbols:
        out.append(next(c for c in sorted(s.deck) if c not in out and g.card_symbol[c] == sym))
    return out


# ---------------------------------------------------------------- stars (§6)


def test_stars_table_and_card_stars():
    assert STARS_VALUES == STARS
    assert [stars_value(k) for k in range(2, 11)] == [2, 4, 7, 10, 13, 17, 21, 25, 30]
    for bad in (0, 1, 11):
        with pytest.raises(ValueError, match="2..10 stars"):
            stars_value(bad)
    g = make_game(3, card_trade="stars")
    # infantry and cavalry 1 star, artillery and wild 2 (the project's documented choice)
    assert all(g.card_stars[c] == (1, 1, 2, 2)[g.card_symbol[c]] for c in range(g.num_cards))
    assert sum(g.card_stars) == 14 + 14 + 2 * 14 + 2 * 2  # 42 territory cards, 14 of each symbol, 2 wilds


@pytest.mark.parametrize("k", range(2, 11))
def test_stars_trade_value_for_every_total(k):
    g = make_game(3, card_trade="stars")
    s = build(g, default_owner=1, owners={"Alaska": 0, "Peru": 0}, phase=Phase.REINFORCE, to_place=3)
    # a hand of 5 one-star and 3 two-star cards (11 stars): every total 2..10 can be made
    hand = cards_of(g, s, [INF, INF, INF, CAV, CAV, ART, ART, WILD])
    give_cards(s, 0, hand)
    move = Move.trade_stars(k)
    assert move in g.legal_moves(s)
    twos = min(3, k // 2)
    ones, two_star = sorted(hand[:5]), sorted(hand[5:])
    expect = tuple(sorted(two_star[:twos] + ones[: k - 2 * twos]))  # 2-star cards first, lowest ids
    assert g.stars_cards(s, k) == expect
    g.apply(s, move)
    assert s.to_place == 3 + STARS[k]
    assert sorted(s.hands[0]) == sorted(set(hand) - set(expect)) and s.discard[-len(expect) :] == list(expect)
    assert s.sets_traded == 1 and not s.bonus_used
    assert g.invariant_violations(s) == []


def test_stars_no_territory_bonus_and_totals_the_hand_cannot_make():
    g = make_game(3, card_trade="stars")
    s = build(g, default_owner=0, phase=Phase.REINFORCE, to_place=3)  # every territory card shows an own territory
    hand = cards_of(g, s, [ART, ART])
    give_cards(s, 0, hand)
    armies = s.armies.copy()
    assert [m for m in g.legal_moves(s) if m.kind == MoveKind.TRADE] == [Move.trade_stars(k) for k in (2, 4)]
    rejected(g, s, Move.trade_stars(3), "cannot make 3 stars")
    rejected(g, s, Move.trade_stars(1), r"2\.\.10 stars")
    rejected(g, s, Move.trade(hand), "takes no 'cards'")
    g.apply(s, Move.trade_stars(4))
    assert s.to_place == 3 + 7 and np.array_equal(s.armies, armies)  # no +2 on the shown territories
    assert stars_pick([0, 1], [INF, CAV], 3) is None


def test_stars_never_forces_a_trade():
    g = make_game(3, card_trade="stars")
    s = build(g, default_owner=1, owners={"Alaska": 0, "Peru": 0})
    give_cards(s, 0, cards_of(g, s, [INF, INF, INF, CAV, CAV, CAV, ART, WILD]))
    begin_turn_of(g, s, 0)
    assert not s.forced and s.to_place == 3
    g.apply(s, Move.place(tid(g, "Alaska"), 3))  # eight cards and no trade: allowed
    assert s.phase == Phase.ATTACK and len(s.hands[0]) == 8


def test_stars_no_trade_down_after_an_elimination():
    g = make_game(3, card_trade="stars")
    a, b = tid(g, "Alaska"), tid(g, "Kamchatka")
    s = build(g, owners={"Alaska": 0, "Kamchatka": 2, "Peru": 0}, armies={"Alaska": 8})
    give_cards(s, 0, cards_of(g, s, [INF, INF, INF]))
    give_cards(s, 2, cards_of(g, s, [CAV, CAV, CAV, ART]))
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(a, b, 3))
    assert not s.alive[2] and len(s.hands[0]) == 7
    assert s.phase == Phase.OCCUPY and not s.trade_down
    g.apply(s, Move.occupy(3))
    assert s.phase == Phase.ATTACK and not s.forced


def test_stars_action_ids_and_text():
    g = make_game(3, card_trade="stars")
    codec = ActionCodec(g)
    assert codec.end - codec.trade == 9 and codec.n == g.T + 10 + 4 + 9 + 1
    s = build(g, default_owner=1, owners={"Alaska": 0}, phase=Phase.REINFORCE, to_place=3)
    give_cards(s, 0, cards_of(g, s, [INF, ART, WILD]))  # 5 stars: totals 2..5
    mask = codec.mask(s)
    assert mask[codec.trade : codec.end].tolist() == [1, 1, 1, 1, 0, 0, 0, 0, 0]
    assert codec.action_to_string(s, codec.trade + 3) == "trade stars=5"
    with pytest.raises(IllegalActionError, match="cannot make 6 stars"):
        codec.step(s, codec.trade + 4, Selection())
    assert codec.move_to_actions(s, Move.trade_stars(4)) == [codec.trade + 2]
    assert codec.step(s, codec.trade + 3, Selection()) == Move.trade_stars(5)
    assert s.to_place == 13 and s.hands[0] == []
    assert g.move_to_text(Move.trade_stars(5)) == "trade stars=5"
    assert g.parse_move(s, "trade STARS=7") == Move.trade_stars(7)


def test_stars_random_games_keep_the_invariants():
    g = Game(RulesConfig(num_players=4, map="small", setup="random", card_trade="stars", turn_limit=150))
    codec = ActionCodec(g)
    trades = 0
    for seed in range(6):
        s, sel = g.new_game(seed), Selection()
        rng = np.random.default_rng(seed)
        while s.phase != Phase.GAME_OVER:
            legal = np.flatnonzero(codec.mask(s, sel))
            before = sum(len(h) for h in s.hands)
            m = codec.step(s, int(legal[rng.integers(len(legal))]), sel)
            if m is not None and m.kind == MoveKind.TRADE:
                trades += 1
                assert sum(len(h) for h in s.hands) < before
            assert not s.forced
            assert g.invariant_violations(s) == []
    assert trades > 20


# ---------------------------------------------------------------- blitz under defender_dice="choose" (§4.2)


def test_blitz_is_not_offered_when_the_defender_chooses():
    g = make_game(3, defender_dice="choose")
    codec = ActionCodec(g)
    a, b = tid(g, "Alaska"), tid(g, "Kamchatka")
    s = build(g, owners={"Alaska": 0, "Kamchatka": 2}, armies={"Alaska": 6, "Kamchatka": 3})
    assert Move.blitz(a, b) not in g.legal_moves(s) and Move.attack(a, b, 3) in g.legal_moves(s)
    rejected(g, s, Move.blitz(a, b), "blitz is not offered")
    sel = Selection(src=a, dst=b)
    assert codec.mask(s, sel)[codec.blitz] == 0 and codec.mask(s, sel)[codec.dice + 2] == 1
    with pytest.raises(IllegalActionError, match="blitz is not offered"):
        codec.step(s, codec.blitz, sel)
    force_dice(s, [1, 1, 1, 6, 6])
    g.apply(s, Move.attack(a, b, 3))
    g.apply(s, Move.defend(2))
    assert codec.can_continue(s) and codec.mask(s)[codec.blitz] == 0  # nor to continue a battle
    # with the default, blitz is offered
    g2 = make_game(3)
    s2 = build(g2, owners={"Alaska": 0, "Kamchatka": 2}, armies={"Alaska": 6, "Kamchatka": 3})
    assert Move.blitz(a, b) in g2.legal_moves(s2)


# ---------------------------------------------------------------- presets and rules files


def test_tournament_preset_follows_the_tournament_rules():
    cfg = RulesConfig.from_preset("tournament", num_players=5)
    assert (cfg.setup, cfg.fortify, cfg.elimination_trade_at, cfg.territory_bonus) == ("deal", "connected", 5, "once_per_turn")
    assert cfg.card_trade == "escalating" and cfg.defender_dice == "max"
    g = Game(cfg)
    s = g.new_game(3)
    assert s.phase == Phase.SETUP_PLACE and (s.owner >= 0).all()  # territories dealt, no claims
    counts = np.bincount(s.owner, minlength=5)
    assert counts.max() - counts.min() <= 1 and counts.sum() == 42


def test_tournament_trade_down_from_five_cards():
    g = Game(RulesConfig.from_preset("tournament", num_players=3, setup="random"))
    a, b = tid(g, "Alaska"), tid(g, "Kamchatka")
    s = build(g, owners={"Alaska": 0, "Kamchatka": 2, "Peru": 0}, armies={"Alaska": 8})
    give_cards(s, 0, cards_of(g, s, [INF, INF, CAV]))
    give_cards(s, 2, cards_of(g, s, [ART, ART]))
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(a, b, 3))
    g.apply(s, Move.occupy(3))
    assert s.phase == Phase.REINFORCE and s.forced and s.resume_attack  # 5 cards: trade down to 4 or fewer


def test_rules_files_load_by_name_and_path(tmp_path):
    assert {"stars", "tournament_stars"} <= set(rules_files())
    assert RulesConfig.from_file("stars").card_trade == "stars"
    ts = RulesConfig.from_file("tournament_stars", num_players=3)
    assert ts == RulesConfig.from_preset("tournament", num_players=3, card_trade="stars")
    assert resolve_rules("stars", num_players=2).card_trade == "stars"
    assert resolve_rules(rules="tournament_stars").fortify == "connected"
    f = tmp_path / "mine.yaml"
    f.write_text("preset: fast\nfortify: connected\nturn_limit: 77\n", encoding="utf-8")
    assert resolve_rules(str(f), num_players=3) == RulesConfig.from_preset(
        "fast", num_players=3, fortify="connected", turn_limit=77
    )
    assert RulesConfig.from_file(f).turn_limit == 77
    e = risk_env.env(preset="stars", num_players=3)
    e.reset(seed=0)
    assert e.unwrapped.game.config.card_trade == "stars"


def test_rules_file_errors(tmp_path):
    with pytest.raises(ConfigError, match="unknown rules preset 'nope'; presets: classic.*rules files: stars"):
        resolve_rules("nope")
    bad = tmp_path / "bad.yaml"
    bad.write_text("card_trade: [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid YAML"):
        RulesConfig.from_file(bad)
    listy = tmp_path / "list.yaml"
    listy.write_text("- card_trade\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="must hold a mapping"):
        load_rules_file(listy)
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("card_trades: stars\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown rules option.*card_trades"):
        RulesConfig.from_file(unknown)
    value = tmp_path / "value.yaml"
    value.write_text("card_trade: moons\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="card_trade='moons' is not allowed.*stars"):
        RulesConfig.from_file(value)
    assert "stars" not in PRESETS  # rules files are not presets
