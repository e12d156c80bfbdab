"""The allied army of the 1975 two-player rules (``two_player="allied"``, docs/rules.md §7):
the switch and its validation, the setup counts, the allied reinforcement (half of what the
player on turn received, rounded down) and its turn order, who decides when (the opponent
commands the allied army, the player not attacking rolls for allied defenders), the allied
army wiped out, the wins, the env's agent selection and observation blocks, rendering, and
random games. Also the defender's view of a blitz round under ``defender_dice="choose"``
(§4.2) and the stars rule "no card after completing a mission" (§6)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import begin_turn_of, build, check_random_game, force_dice, give_cards, tid

import risk_env
from risk_env import ConfigError, Game, IllegalMoveError, Move, MoveKind, Phase, RulesConfig
from risk_env.envs.codec import ActionCodec, Selection
from risk_env.envs.observation import ObservationEncoder
from risk_env.records.ansi import render_ansi, render_compact
from risk_env.rules.config import resolve_rules
from risk_env.rules.missions import EIGHTEEN_TWO, TWENTY_FOUR

ALLIED = 2  # the allied army's owner id in a 2-player game

# player 0: Asia without Siam, and four others: 15 territories, no whole continent (income 5)
P0 = [
    "Ural",
    "Siberia",
    "Yakutsk",
    "Kamchatka",
    "Irkutsk",
    "Mongolia",
    "Japan",
    "Afghanistan",
    "China",
    "Middle East",
    "India",
    "Alaska",
    "Iceland",
    "Peru",
    "Congo",
]
AL = ["Siam", "Egypt", "Indonesia", "New Guinea", "Western Australia", "Eastern Australia"]


def allied_game(**rules) -> Game:
    return Game(RulesConfig.from_preset("allied", **{"setup": "random", **rules}))


def position(g: Game, armies: dict[str, int] | None = None, **kw):
    """P0 for player 0, AL for the allied army (2 armies each), the rest player 1; ``kw`` as :func:`build`."""
    owners = {**{t: 0 for t in P0}, **{t: ALLIED for t in AL}}
    return build(g, owners=owners, default_owner=1, armies={**{t: 2 for t in AL}, **(armies or {})}, **kw)


def set_of_theirs(g: Game, s) -> list[int]:
    """Three cards of player 1's territories, one of each symbol: a set with no +2 bonus for player 0."""
    pick: dict[int, int] = {}
    for c in range(g.T):
        if s.owner[c] == 1 and g.card_symbol[c] not in pick:
            pick[g.card_symbol[c]] = c
    return [pick[0], pick[1], pick[2]]


# ================================================================ the switch


def test_switch_preset_and_validation():
    cfg = RulesConfig.from_preset("allied")
    assert (cfg.num_players, cfg.two_player, cfg.setup) == (2, "allied", "claim")
    assert cfg.has_allied and not cfg.has_neutral
    assert RulesConfig(num_players=2, two_player="allied").setup == "claim"  # the 1975 rules claim (§7)
    g = Game(cfg)
    assert (g.allied, g.neutral, g.num_seats, g.allied_claims) == (2, -1, 3, 14)
    with pytest.raises(
        ConfigError, match=r"two_player='allied' \(the 1975 two-player rules.*is for 2 players, got num_players=3"
    ):
        RulesConfig(num_players=3, two_player="allied")
    for key in ("secret_missions", "capitals"):
        with pytest.raises(ConfigError, match=f"two_player='allied' cannot be combined with {key}=True"):
            RulesConfig(num_players=2, two_player="allied", **{key: True})
    with pytest.raises(ConfigError, match="preset 'allied' is meant for 2 players"):
        resolve_rules("allied", num_players=4)
    with pytest.raises(ConfigError, match="two_player='allied' needs .* starting_armies >= 14"):
        Game(RulesConfig(num_players=2, two_player="allied", starting_armies=13))
    with pytest.raises(ConfigError, match="two_player='weird' is not allowed; choose one of: neutral, none, allied"):
        RulesConfig(num_players=2, two_player="weird")


# ================================================================ setup


def test_claim_setup_alternates_14_each_then_allied_then_one_army_at_a_time():
    g = Game(RulesConfig.from_preset("allied"))
    s = g.new_game(3)
    claimers = []
    while s.phase == Phase.CLAIM:
        claimers.append(s.player)
        g.apply(s, g.legal_moves(s)[0])
    assert claimers == s.order * 14  # the two players alternate, 14 claims each
    counts = [int((s.owner == k).sum()) for k in range(3)]
    assert counts == [14, 14, 14]
    assert (s.armies[s.owner == ALLIED] == 2).all() and int(s.armies.sum()) == 28 + 28  # 28 allied armies
    assert s.phase == Phase.SETUP_PLACE and s.setup_left == [26, 26, 0]
    placers = []
    while s.phase == Phase.SETUP_PLACE:
        placers.append(s.player)
        moves = g.legal_moves(s)
        assert {m.kind for m in moves} == {MoveKind.PLACE} and all(m.count == 1 for m in moves)
        assert all(s.owner[m.src] == s.player for m in moves)  # never on allied territories
        g.apply(s, moves[-1])
    assert placers == s.order * 26
    assert [int(s.armies[s.owner == k].sum()) for k in range(3)] == [40, 40, 28]
    assert s.phase == Phase.REINFORCE and s.turn == 1 and s.player == s.order[0]


@pytest.mark.parametrize("setup", ["deal", "random"])
def test_dealt_setups_give_a_third_each(setup):
    g = allied_game(setup=setup)
    for seed in range(5):
        s = g.new_game(seed)
        assert [int((s.owner == k).sum()) for k in range(3)] == [14, 14, 14]
        assert (s.armies[s.owner == ALLIED] == 2).all()
        if setup == "deal":
            assert s.phase == Phase.SETUP_PLACE and s.setup_left == [26, 26, 0] and s.player == s.order[0]
            assert (s.armies[s.owner < ALLIED] == 1).all()
        else:
            assert s.phase == Phase.REINFORCE and [int(s.armies[s.owner == k].sum()) for k in range(3)] == [40, 40, 28]


def test_small_map_gives_a_third_each():
    g = allied_game(map="small")
    s = g.new_game(0)
    assert [int((s.owner == k).sum()) for k in range(3)] == [3, 3, 3]


# ================================================================ the allied sub-turn


def test_allied_reinforcement_is_half_of_what_the_mover_received_and_the_opponent_places_and_attacks():
    g = allied_game()
    s = position(g, phase=Phase.FORTIFY, player=1)
    begin_turn_of(g, s, 0)
    assert s.to_place == 5 and s.received == 5  # 15 territories, no continent (§4.1)
    trio = set_of_theirs(g, s)
    give_cards(s, 0, trio)
    g.apply(s, Move.trade(trio))  # the game's first set: 4 armies, no +2 bonus
    assert s.to_place == 9 and s.received == 9
    g.apply(s, Move.place(tid(g, "China"), 9))
    assert s.phase == Phase.ATTACK and g.current_player(s) == 0
    g.apply(s, Move.end_attack())  # after the mover's attacks, before its fortify (§7)
    # the source's example: a player who gets nine armies gives the allied army four
    assert (s.phase, s.player, s.commander, s.to_place) == (Phase.REINFORCE, ALLIED, 1, 4)
    assert g.current_player(s) == 1 and g.allied_reinforcement(s) == 4
    moves = g.legal_moves(s)
    assert {m.kind for m in moves} == {MoveKind.PLACE}  # no trade: the allied army has no cards
    assert {m.src for m in moves} == {tid(g, t) for t in AL}
    with pytest.raises(IllegalMoveError, match="Alberta is not an allied territory"):
        g.apply(s, Move.place(tid(g, "Alberta"), 4))  # not on the commander's own territories
    g.apply(s, Move.place(tid(g, "Siam"), 4))
    assert s.phase == Phase.ATTACK and s.player == ALLIED and g.current_player(s) == 1
    targets = {(m.src, m.dst) for m in g.legal_moves(s) if m.kind == MoveKind.BLITZ}
    name = g.map.name_of
    assert {(name(a), name(b)) for a, b in targets} == {("Siam", "China"), ("Siam", "India"), ("Egypt", "Middle East")}
    with pytest.raises(IllegalMoveError, match="the allied army attacks only the territories of the player on turn"):
        g.apply(s, Move.attack(tid(g, "Egypt"), tid(g, "North Africa"), 1))  # player 1's: its commander's
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(tid(g, "Siam"), tid(g, "India"), 3))  # India: 1 army
    assert s.owner[tid(g, "India")] == ALLIED and s.phase == Phase.OCCUPY and g.current_player(s) == 1
    assert not s.conquered  # the allied army's conquest earns the mover no card (§7)
    assert g.occupy_range(s) == (3, 5)
    g.apply(s, Move.occupy(5))
    g.apply(s, Move.end_attack())
    assert (s.phase, s.player, s.commander) == (Phase.FORTIFY, 0, -1)  # the mover fortifies now
    assert g.invariant_violations(s) == []
    turn = s.turn
    g.apply(s, Move.end_turn())
    assert s.hands[0] == [] and s.player == 1 and s.turn == turn + 1  # no conquest by player 0: no card
    assert s.received == g.income(s, 1) == s.to_place


def test_rounding_down_and_the_turn_order_through_a_whole_round():
    g = allied_game(card_trade="no_cards")
    s = position(g, phase=Phase.FORTIFY, player=0)
    g.apply(s, Move.end_turn())  # player 1 on turn: 21 territories (income 7)
    assert s.player == 1 and s.to_place == 7
    g.apply(s, Move.place(tid(g, "Alberta"), 7))
    g.apply(s, Move.end_attack())
    assert (s.player, s.commander, s.to_place) == (ALLIED, 0, 3)  # 7 // 2 (§7)
    seen = []
    while s.player == ALLIED:
        seen.append(g.current_player(s))
        g.apply(s, g.legal_moves(s)[-1] if s.phase == Phase.ATTACK else g.legal_moves(s)[0])  # end attack
    assert set(seen) == {0} and s.player == 1 and s.phase == Phase.FORTIFY


@pytest.mark.parametrize("dice", ["max", "choose"])
def test_the_player_not_attacking_rolls_for_allied_defenders(dice):
    g = allied_game(defender_dice=dice)
    s = position(g, armies={"China": 8}, phase=Phase.ATTACK, player=0)
    force_dice(s, [6, 6, 6, 1, 1])
    g.apply(s, Move.attack(tid(g, "China"), tid(g, "Siam"), 3))
    if dice == "max":  # no decision: the allied army defends with its most dice, as the neutral (§4.2)
        assert s.last_roll == [6, 6, 6, 0, 1, 1] and s.phase == Phase.OCCUPY
        return
    assert s.phase == Phase.DEFEND and g.current_player(s) == 1  # player 1 rolls for the allied army
    assert g.legal_moves(s) == [Move.defend(1), Move.defend(2)]
    env_view = risk_env.envs.view.GameView(g, s, 1)
    assert env_view.is_my_decision and not env_view.commanding_allied
    g.apply(s, Move.defend(1))
    assert s.last_roll == [6, 6, 6, 0, 1] and s.owner[tid(g, "Siam")] == ALLIED and s.armies[tid(g, "Siam")] == 1


def test_the_mover_defends_its_own_territories_against_the_allied_army():
    g = allied_game(defender_dice="choose")
    s = position(g, armies={"Siam": 6}, phase=Phase.ATTACK, player=0)
    g.apply(s, Move.end_attack())
    s.to_place = 0  # hand-built: no reinforcement to place
    s.phase = Phase.ATTACK
    g.apply(s, Move.blitz(tid(g, "Siam"), tid(g, "China")))
    assert s.phase == Phase.DEFEND and s.blitzing and g.current_player(s) == 0
    enc = ObservationEncoder(g)
    sl = enc.layout["blitz_defence"][0]
    assert enc.encode(s, 0)[sl].tolist() == [1.0] and enc.encode(s, 0)[enc.layout["acting"][0]].tolist() == [1.0]


def test_the_allied_army_never_uses_the_expert_dice_rules():
    g = allied_game(die_to_six=True)
    s = position(g, armies={"Siam": 6, "China": 6}, phase=Phase.ATTACK, player=0)
    force_dice(s, [1, 1, 1, 6, 6])
    g.apply(s, Move.attack(tid(g, "China"), tid(g, "Siam"), 3))
    assert s.roll_pending  # the mover may turn a die into a six (§8)
    g.apply(s, Move.keep_roll())
    assert s.armies[tid(g, "China")] == 4
    s.received = 2
    g.apply(s, Move.end_attack())
    g.apply(s, Move.place(tid(g, "Siam"), 1))
    force_dice(s, [1, 1, 1, 6])
    g.apply(s, Move.attack(tid(g, "Siam"), tid(g, "India"), 3))
    assert not s.roll_pending and s.armies[tid(g, "Siam")] == 6  # settled at once: lost 1 of 7
    assert MoveKind.SIX not in {m.kind for m in g.legal_moves(s)}


def test_allied_army_wiped_out_gets_nothing_more_and_nobody_is_eliminated():
    g = allied_game()
    owners = {**{t: 0 for t in P0}, "Siam": ALLIED}
    s = build(g, owners=owners, default_owner=1, armies={"China": 5}, phase=Phase.ATTACK, player=0)
    s.received = 5
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(tid(g, "China"), tid(g, "Siam"), 3))
    assert not (s.owner == ALLIED).any() and s.elim_order == [] and s.alive == [True, True]
    assert s.phase == Phase.OCCUPY and s.winner == -1
    g.apply(s, Move.occupy(3))
    assert g.allied_reinforcement(s) == 0
    g.apply(s, Move.end_attack())
    assert (s.phase, s.player, s.commander) == (Phase.FORTIFY, 0, -1)  # no allied sub-turn any more (§7)
    g.apply(s, Move.end_turn())
    g.apply(s, Move.place(tid(g, "Alberta"), s.to_place))
    g.apply(s, Move.end_attack())
    assert (s.phase, s.player) == (Phase.FORTIFY, 1)


def test_the_allied_army_eliminating_the_mover_makes_the_commander_win():
    g = allied_game()
    s = build(g, owners={"India": 0, "Siam": ALLIED}, default_owner=1, armies={"Siam": 2}, phase=Phase.ATTACK, player=0)
    give_cards(s, 0, [0, 1])
    s.received = 6
    g.apply(s, Move.end_attack())
    assert s.to_place == 3 and g.current_player(s) == 1
    g.apply(s, Move.place(tid(g, "Siam"), 3))
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(tid(g, "Siam"), tid(g, "India"), 3))
    assert s.phase == Phase.GAME_OVER and s.winner == 1 and s.elim_order == [0]
    assert s.hands == [[], []] and {0, 1} <= set(s.discard)  # the allied army takes no cards (§7)
    out = g.outcome(s)
    assert out.terminated and out.returns == (-1.0, 1.0)
    assert g.invariant_violations(s) == []


def test_the_mover_wins_by_eliminating_the_other_player_while_allied_territories_remain():
    g = allied_game()
    s = position(g, armies={"Kamchatka": 4}, phase=Phase.ATTACK, player=0)
    s.owner[:] = np.where(s.owner == 1, 0, s.owner)
    s.owner[tid(g, "Alaska")] = 1  # player 1's last territory
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(tid(g, "Kamchatka"), tid(g, "Alaska"), 3))
    assert s.phase == Phase.GAME_OVER and s.winner == 0 and (s.owner == ALLIED).sum() == len(AL)
    assert g.outcome(s).returns == (1.0, -1.0)


def test_state_round_trips_in_the_allied_sub_turn():
    g = allied_game()
    s = position(g, phase=Phase.ATTACK, player=0)
    s.received = 9
    g.apply(s, Move.end_attack())
    d = s.to_dict()
    assert d["commander"] == 1 and d["received"] == 9
    assert g.state_from_dict(d) == s
    plain = Game(RulesConfig(num_players=2, setup="random")).new_game(0).to_dict()
    assert "commander" not in plain and "received" not in plain  # other games' dicts are unchanged


# ================================================================ the env


def test_env_hands_the_allied_decisions_to_the_opponent_and_marks_them():
    env = risk_env.raw_env(preset="allied", setup="random")
    env.reset(seed=4)
    raw_s = env.game_state
    rng = np.random.default_rng(0)
    for _ in range(5000):
        if raw_s.commander >= 0 and raw_s.phase == Phase.REINFORCE:
            break
        obs, *_ = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[-1]) if raw_s.phase == Phase.ATTACK else int(rng.choice(legal)))  # end attack soon
        raw_s = env.game_state
    s = env.game_state
    commander = s.commander
    mover = 1 - commander
    assert env.agent_selection == f"player_{commander}"
    L = env.observation_layout
    T = env.game.T
    for seat, me in ((commander, 1.0), (mover, 0.0)):
        o = env.observe(f"player_{seat}")["observation"]
        assert o[L["allied"][0]].tolist() == pytest.approx([1.0, me, (s.received // 2) / 10])
        assert o[L["acting"][0]].tolist() == [me]
        owner = o[L["owner"][0]].reshape(T, 3)
        assert owner[:, 2].tolist() == (s.owner == ALLIED).astype(float).tolist()  # slot n: allied territories
        assert o[L["on_turn"][0]].tolist() == [0.0, 0.0, 1.0]
    o = env.observe(f"player_{commander}")
    assert o["observation"][L["to_place"][0]].tolist() == pytest.approx([s.to_place / 10])
    mask = o["action_mask"]
    assert set(np.flatnonzero(mask[:T]).tolist()) == set(np.flatnonzero(s.owner == ALLIED).tolist())
    assert not env.observe(f"player_{mover}")["action_mask"].any()
    text = render_ansi(env.game, s)
    assert "allied" in text and "(commanded by player_" in text
    assert " a " in render_compact(env.game, s)


def test_observation_layout_blocks_only_under_their_switches():
    plain = risk_env.raw_env(num_players=2).observation_layout
    assert "allied" not in plain and "blitz_defence" not in plain
    allied = risk_env.raw_env(preset="allied").observation_layout
    assert allied["allied"][1] == (3,) and "blitz_defence" not in allied
    choose = risk_env.raw_env(num_players=3, defender_dice="choose").observation_layout
    assert choose["blitz_defence"][1] == (1,)


def test_blitz_round_is_marked_for_the_choosing_defender():
    """The defender's observation shows that the round it chooses for is part
    of a blitz (docs/rules.md §4.2), and not for a single attack."""
    g = Game(RulesConfig(num_players=3, setup="random", defender_dice="choose"))
    enc = ObservationEncoder(g)
    sl = enc.layout["blitz_defence"][0]
    s = build(g, owners={"Alaska": 0, "Kamchatka": 2}, armies={"Alaska": 9, "Kamchatka": 4})
    c = s.copy()
    g.apply(c, Move.attack(tid(g, "Alaska"), tid(g, "Kamchatka"), 3))
    assert c.phase == Phase.DEFEND and enc.encode(c, 2)[sl].tolist() == [0.0]
    g.apply(s, Move.blitz(tid(g, "Alaska"), tid(g, "Kamchatka")))
    assert s.phase == Phase.DEFEND and enc.encode(s, 2)[sl].tolist() == [1.0]
    force_dice(s, [1, 1, 1, 6, 6])
    g.apply(s, Move.defend(2))  # the attacker loses 2; the blitz goes on: the next round is asked
    assert s.phase == Phase.DEFEND and s.blitzing and enc.encode(s, 2)[sl].tolist() == [1.0]
    assert enc.encode(s, 0)[sl].tolist() == [1.0]  # public: the attacker sees it too


# ================================================================ random games and agents


@pytest.mark.parametrize(
    "rules",
    [
        {"preset": "allied", "turn_limit": 80},
        {"preset": "allied", "setup": "deal", "defender_dice": "choose", "map": "small"},
        {"preset": "allied", "setup": "random", "card_trade": "stars", "die_to_six": True, "map": "small"},
        {"preset": "allied", "setup": "random", "card_trade": "no_cards", "fortify": "connected", "turn_limit": 60},
    ],
    ids=["claim", "deal-choose-small", "stars-six-small", "no-cards-connected"],
)
def test_random_games_keep_the_rules_and_end(rules):
    g = Game(resolve_rules(rules=rules))
    codec = ActionCodec(g)
    ends = set()
    for seed in range(4):
        s, chk = check_random_game(g, seed, codec=codec, use_moves=bool(seed % 2))
        assert (s.winner >= 0) != s.truncated
        ends.add("win" if s.winner >= 0 else "truncated")
    assert ends


def test_baseline_agents_play_it_legally():
    from risk_env.agents import HEURISTICS, load_agent
    from risk_env.tools.match import play_match

    allied_moves = 0
    for i, name in enumerate(["random", *HEURISTICS]):
        env = risk_env.raw_env(preset="allied", defender_dice="choose" if i % 2 else "max", turn_limit=80)
        seen = []

        def before(agent, action, obs, info, env=env, seen=seen):
            s = env.game_state
            assert obs["action_mask"][action] == 1
            if s.commander >= 0 and s.phase != Phase.DEFEND:
                seen.append(action)

        res = play_match(env, [load_agent(name), load_agent("aggressive")], seed=i, agent_seeds=[i, i + 1], before_step=before)
        assert res.winner >= 0 or env.game_state.truncated
        allied_moves += len(seen)
    assert allied_moves > 50


def test_scripted_allied_move_is_sensible():
    from risk_env.agents.base import allied_move
    from risk_env.envs.view import GameView

    g = allied_game()
    s = position(g, armies={"Siam": 5, "India": 1, "China": 9}, phase=Phase.ATTACK, player=0)
    s.received = 8
    g.apply(s, Move.end_attack())
    v = GameView(g, s, 1)
    assert v.commanding_allied and v.allied == ALLIED
    assert allied_move(v) == Move.place(tid(g, "Siam"), 4)  # next to India's single army
    g.apply(s, Move.place(tid(g, "Siam"), 4))
    assert allied_move(v) == Move.place(tid(g, "Siam"), 4)  # a view is taken at its decision: it does not follow the game
    assert allied_move(GameView(g, s, 1)) == Move.attack(tid(g, "Siam"), tid(g, "India"), 3)
    with pytest.raises(risk_env.RiskError, match="the allied army does not act now"):
        allied_move(GameView(g, s, 0))


def test_codec_steps_the_allied_sub_turn():
    g = allied_game()
    codec = ActionCodec(g)
    s = position(g, phase=Phase.ATTACK, player=0)
    s.received = 4
    sel = Selection()
    codec.step(s, codec.end, sel)  # end attack: the allied sub-turn
    assert s.player == ALLIED and s.to_place == 2
    codec.step(s, tid(g, "Siam"), sel)  # a territory, then an amount
    assert sel.src == tid(g, "Siam")
    m = codec.step(s, codec.amount_action(1, 2, 2), sel)
    assert m == Move.place(tid(g, "Siam"), 2) and s.phase == Phase.ATTACK
    mask = codec.mask(s, sel)
    assert mask[tid(g, "Siam")] and mask[tid(g, "Egypt")] and not mask[tid(g, "Indonesia")]
    assert codec.step(s, codec.end, sel) == Move.end_attack() and s.phase == Phase.FORTIFY and s.player == 0


# ================================================================ stars: no card after a completed mission (§6)


def test_stars_a_completed_mission_draws_no_card():
    """docs/rules.md §6 (stars): a player who completes a mission that turn does not draw a
    card. A completed mission wins at once (§8), so the game ends before any card is drawn."""
    g = Game(RulesConfig(num_players=3, setup="random", secret_missions=True, card_trade="stars"))
    names = g.map.territory_names
    owners = {names[t]: 0 for t in range(23)}
    owners[names[41]] = 2
    s = build(g, owners=owners, default_owner=1, armies={names[0]: 5})
    s.missions = [TWENTY_FOUR, EIGHTEEN_TWO, EIGHTEEN_TWO]
    dst = next(b for b in g.neighbors[0] if s.owner[b] == 1)
    deck = len(s.deck)
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(0, dst, 3))
    assert s.phase == Phase.GAME_OVER and s.winner == 0
    assert s.hands[0] == [] and len(s.deck) == deck


# ================================================================ the human game and pictures


def test_a_human_commands_the_allied_army_in_risk_env_play():
    pytest.importorskip("typer")
    import io

    from risk_env.agents import load_agent
    from risk_env.tools.play import play_game

    out = io.StringIO()
    lines = iter(["1"] * 3000)
    rules = RulesConfig.from_preset("allied", map="small", turn_limit=6)
    s = play_game(rules, 0, {1: load_agent("aggressive", seed=0)}, seed=2, read_line=lambda: next(lines, ""), out=out)
    text = out.getvalue()
    assert s.phase == Phase.GAME_OVER
    assert "Allied army (a): after each player's attacks" in text
    assert "of the allied army, which you command" in text  # the human's allied decisions
    assert "player_0 for the allied army: place" in text and "player_1 for the allied army: place" in text
    assert "the allied army gets" in text


def test_the_picture_names_the_allied_army():
    pytest.importorskip("matplotlib")
    env = risk_env.raw_env(preset="allied", setup="random", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape[2] == 3
    assert env._renderer.names[-1] == "allied" and len(env._renderer.colors) == 3
