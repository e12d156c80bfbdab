"""Secret missions and capitals (docs/rules.md §8): hand-built positions for each mission's
completion and the "destroy colour X" fallback under both switch values, a capital falling
and the capitals win, the capital phase, hidden missions in observations, and random games."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import build, check_random_game, force_dice, tid

import risk_env
from risk_env import ConfigError, Game, Move, Phase, RulesConfig
from risk_env.envs.codec import ActionCodec
from risk_env.rules.missions import (
    CLASSIC_CONTINENTS,
    DESTROY_FIRST,
    EIGHTEEN_TWO,
    MISSIONS,
    TWENTY_FOUR,
    deal_missions,
    mission_complete,
)


def missions_game(n: int = 3, **rules) -> Game:
    return Game(RulesConfig(num_players=n, setup="random", secret_missions=True, **rules))


def with_missions(s, missions: list[int]) -> None:
    s.missions = list(missions)


def conquer(g: Game, s, src: str, dst: str) -> None:
    """Attack ``dst`` (1 army) from ``src`` with three sixes against a one: a sure conquest."""
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(tid(g, src), tid(g, dst), 3))


def members(g: Game, continent: str) -> list[str]:
    c = g.map.continent_names.index(continent)
    return [g.map.name_of(int(t)) for t in g.continent_idx[c]]


# ================================================================ config


def test_switches_validated_and_presets():
    assert RulesConfig.from_preset("secret_missions").secret_missions
    assert RulesConfig.from_preset("capitals").capitals
    assert RulesConfig().mission_target_taken == "holder_wins"  # docs/rules.md §8
    with pytest.raises(ConfigError, match="mission_target_taken='both'.*24_territories, holder_wins"):
        RulesConfig(mission_target_taken="both")
    with pytest.raises(ConfigError, match="secret_missions must be true or false"):
        RulesConfig(secret_missions="yes")
    with pytest.raises(ConfigError, match="capitals must be true or false"):
        RulesConfig(capitals=1)


def test_missions_need_the_classic_continents():
    with pytest.raises(ConfigError, match="secret_missions=True needs a map with the classic continents.*'small'"):
        Game(RulesConfig(num_players=3, map="small", secret_missions=True))
    Game(RulesConfig(num_players=3, map="small", capitals=True))  # capitals work on any map


def test_the_1993_list():
    assert len(MISSIONS) == 14
    kinds = [m.kind for m in MISSIONS]
    assert kinds == ["continents"] * 6 + ["territories"] * 2 + ["destroy"] * 6
    assert {m.target for m in MISSIONS if m.kind == "destroy"} == set(range(6))
    assert MISSIONS[TWENTY_FOUR].territories == 24 and MISSIONS[TWENTY_FOUR].min_armies == 1
    assert MISSIONS[EIGHTEEN_TWO].territories == 18 and MISSIONS[EIGHTEEN_TWO].min_armies == 2
    assert [m.plus_one for m in MISSIONS[:6]] == [True, True, False, False, False, False]
    for m in MISSIONS[:6]:
        assert set(m.continents) <= set(CLASSIC_CONTINENTS)


# ================================================================ dealing


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_deal_is_private_distinct_and_falls_back_for_self_or_absent_colours(n):
    seen = set()
    for seed in range(300):
        dealt = deal_missions(np.random.default_rng(seed), n)
        assert len(dealt) == n
        for seat, m in enumerate(dealt):
            assert 0 <= m < len(MISSIONS)
            if m >= DESTROY_FIRST:
                assert MISSIONS[m].target != seat and MISSIONS[m].target < n
            seen.add(m)
        plain = [m for m in dealt if m != TWENTY_FOUR]
        assert len(plain) == len(set(plain))  # one card per mission, without replacement
    assert seen == {m for m in range(len(MISSIONS)) if m < DESTROY_FIRST or MISSIONS[m].target < n}


def test_deal_comes_from_the_seed_and_leaves_the_rest_of_the_game_unchanged():
    g = missions_game(4)
    plain = Game(RulesConfig(num_players=4, setup="random"))
    a, b, c = g.new_game(5), g.new_game(5), plain.new_game(5)
    assert a.missions == b.missions and len(a.missions) == 4
    assert a.owner.tolist() == c.owner.tolist() and a.deck == c.deck and a.order == c.order
    assert "missions" not in c.to_dict() and "missions" in a.to_dict()
    assert g.state_from_dict(a.to_dict()) == a


# ================================================================ completion, one per mission

CONTINENT_CASES = [
    # mission, continents held by player 0 beforehand (the last territory of the first is conquered)
    (0, ["Europe", "Australia", "South America"]),
    (1, ["Europe", "South America", "Africa"]),
    (2, ["North America", "Africa"]),
    (3, ["North America", "Australia"]),
    (4, ["Asia", "South America"]),
    (5, ["Asia", "Africa"]),
]


def _continent_position(g: Game, conts: list[str]):
    owned = [t for c in conts for t in members(g, c)]
    first = members(g, conts[0])
    # the territory to conquer: one of the first continent with a neighbour in it
    dst = next(t for t in first if any(g.map.name_of(v) in first for v in g.neighbors[tid(g, t)]))
    src = next(g.map.name_of(v) for v in g.neighbors[tid(g, dst)] if g.map.name_of(v) in first)
    owners = {t: 0 for t in owned}
    owners[dst] = 1
    owners["Alaska" if "North America" not in conts else "Kamchatka"] = 2
    s = build(g, owners=owners, default_owner=1, armies={src: 5})
    return s, src, dst


@pytest.mark.parametrize("mission,conts", CONTINENT_CASES)
def test_continent_missions_win_at_once(mission, conts):
    g = missions_game(3)
    s, src, dst = _continent_position(g, conts)
    with_missions(s, [mission, EIGHTEEN_TWO, EIGHTEEN_TWO])
    assert not mission_complete(g, s, 0)
    conquer(g, s, src, dst)
    assert s.phase == Phase.GAME_OVER and s.winner == 0 and not s.truncated
    assert s.alive == [True, True, True]
    out = g.outcome(s)
    assert out.terminated and out.winner == 0 and out.returns == (1.0, -1.0, -1.0)
    assert g.invariant_violations(s) == []


@pytest.mark.parametrize("mission", [0, 1])
def test_plus_one_needs_a_third_continent(mission):
    g = missions_game(3)
    conts = ["Europe", "Australia"] if mission == 0 else ["Europe", "South America"]
    s, src, dst = _continent_position(g, conts)
    with_missions(s, [mission, EIGHTEEN_TWO, EIGHTEEN_TWO])
    conquer(g, s, src, dst)
    assert s.phase == Phase.OCCUPY and s.winner == -1  # both named continents held, no third


def test_24_territories_wins_on_the_24th():
    g = missions_game(3)
    names = g.map.territory_names
    owners = {names[t]: 0 for t in range(23)}
    owners[names[41]] = 2
    s = build(g, owners=owners, default_owner=1, armies={names[0]: 5})
    with_missions(s, [TWENTY_FOUR, EIGHTEEN_TWO, EIGHTEEN_TWO])
    src, dst = next((a, b) for a in range(23) for b in g.neighbors[a] if s.owner[b] == 1 and a == 0)
    assert int(np.count_nonzero(s.owner == 0)) == 23 and not mission_complete(g, s, 0)
    conquer(g, s, names[src], names[dst])
    assert s.phase == Phase.GAME_OVER and s.winner == 0


def _eighteen_position(g: Game, phase: Phase):
    names = g.map.territory_names
    owners = {names[t]: 0 for t in range(20)}
    owners[names[41]] = 2
    armies = {names[t]: 2 for t in range(17)}
    return build(g, owners=owners, default_owner=1, armies=armies, phase=phase, to_place=3), names


def test_18_territories_with_2_armies_completed_by_a_placement():
    g = missions_game(3)
    s, names = _eighteen_position(g, Phase.REINFORCE)
    with_missions(s, [EIGHTEEN_TWO, EIGHTEEN_TWO, EIGHTEEN_TWO])
    assert not mission_complete(g, s, 0)
    g.apply(s, Move.place(tid(g, names[19]), 1))  # 18 territories with 2+ armies
    assert s.phase == Phase.GAME_OVER and s.winner == 0 and s.to_place == 2


def test_18_territories_completed_by_a_fortify_before_the_turn_passes():
    g = missions_game(3)
    s, names = _eighteen_position(g, Phase.FORTIFY)
    with_missions(s, [EIGHTEEN_TWO, EIGHTEEN_TWO, EIGHTEEN_TWO])
    a = next(t for t in range(17) if any(v in (17, 18, 19) for v in g.neighbors[t]))
    b = next(v for v in g.neighbors[a] if v in (17, 18, 19))
    s.armies[a] = 3
    g.apply(s, Move.fortify(a, b, 1))
    assert s.phase == Phase.GAME_OVER and s.winner == 0 and s.player == 0 and s.turn == 1


def test_18_territories_not_by_one_army_territories():
    g = missions_game(3)
    s, names = _eighteen_position(g, Phase.REINFORCE)
    with_missions(s, [EIGHTEEN_TWO, EIGHTEEN_TWO, EIGHTEEN_TWO])
    assert int(np.count_nonzero(s.owner == 0)) == 20  # 20 held, only 17 with 2 armies
    g.apply(s, Move.place(tid(g, names[0]), 1))
    assert s.phase == Phase.REINFORCE and s.winner == -1


def _destroy_position(g: Game, killer: int, bulk: int | None = None):
    # player 1 holds only Kamchatka; ``killer`` attacks it from Alaska; player 2 holds Peru, player 0
    # Brazil, and ``bulk`` (default: the one of 0 and 2 that is not the killer) every other territory
    owners = {"Kamchatka": 1, "Alaska": killer, "Peru": 2, "Brazil": 0}
    if bulk is None:
        bulk = 2 if killer == 0 else 0
    return build(g, owners=owners, default_owner=bulk, armies={"Alaska": 5}, player=killer)


def test_destroy_mission_wins_when_the_holder_eliminates_the_target():
    g = missions_game(3)
    s = _destroy_position(g, killer=0)
    with_missions(s, [DESTROY_FIRST + 1, TWENTY_FOUR, EIGHTEEN_TWO])
    conquer(g, s, "Alaska", "Kamchatka")
    assert s.winner == 0 and s.phase == Phase.GAME_OVER and s.elim_order == [1] and s.eliminated_by[1] == 0
    assert g.outcome(s).returns == (1.0, -1.0, -1.0)


def test_destroy_target_taken_by_someone_else_becomes_24_territories():
    g = missions_game(3, mission_target_taken="24_territories")
    s = _destroy_position(g, killer=0, bulk=0)  # player 0 eliminates player 1; player 2 holds "destroy 1"
    with_missions(s, [EIGHTEEN_TWO, TWENTY_FOUR, DESTROY_FIRST + 1])
    assert int(np.count_nonzero(s.owner == 2)) == 1
    conquer(g, s, "Alaska", "Kamchatka")
    assert s.winner == -1 and s.phase == Phase.OCCUPY
    assert s.missions[2] == TWENTY_FOUR and s.eliminated_by[1] == 0


def test_fallback_to_24_wins_at_once_for_a_holder_already_at_24():
    g = missions_game(3, mission_target_taken="24_territories")
    s = _destroy_position(g, killer=2)  # player 2 eliminates player 1; player 0 holds "destroy 1"
    with_missions(s, [DESTROY_FIRST + 1, TWENTY_FOUR, EIGHTEEN_TWO])
    assert int(np.count_nonzero(s.owner == 0)) == 39 and s.player == 2
    conquer(g, s, "Alaska", "Kamchatka")
    # not the mover's win: player 0's mission became 24 territories, which it holds already
    assert s.winner == 0 and s.phase == Phase.GAME_OVER and s.missions[0] == TWENTY_FOUR


def test_holder_wins_when_someone_else_eliminates_the_target():
    g = missions_game(3, mission_target_taken="holder_wins")
    s = _destroy_position(g, killer=0)
    with_missions(s, [EIGHTEEN_TWO, TWENTY_FOUR, DESTROY_FIRST + 1])
    conquer(g, s, "Alaska", "Kamchatka")
    assert s.winner == 2 and s.phase == Phase.GAME_OVER and s.missions[2] == DESTROY_FIRST + 1
    assert g.outcome(s).returns == (-1.0, -1.0, 1.0)


def test_mover_first_when_two_missions_complete_at_once():
    g = missions_game(3, mission_target_taken="holder_wins")
    s = _destroy_position(g, killer=0)
    with_missions(s, [DESTROY_FIRST + 1, TWENTY_FOUR, DESTROY_FIRST + 1])  # a hand-built double
    conquer(g, s, "Alaska", "Kamchatka")
    assert s.winner == 0


def test_missions_are_not_checked_in_setup():
    g = Game(RulesConfig(num_players=3, secret_missions=True))  # claim setup
    s = g.new_game(0)
    s.missions = [EIGHTEEN_TWO] * 3
    rng = np.random.default_rng(0)
    while s.turn == 0:
        assert s.winner == -1
        moves = g.legal_moves(s)
        g.apply(s, moves[rng.integers(len(moves))])


# ================================================================ capitals


def capitals_game(n: int = 3, **rules) -> Game:
    return Game(RulesConfig(num_players=n, setup="random", capitals=True, **rules))


def test_capital_phase_after_setup_in_turn_order_with_an_exact_mask():
    g = capitals_game(3)
    codec = ActionCodec(g)
    s = g.new_game(4)
    assert s.phase == Phase.CAPITAL and s.turn == 0 and s.capitals == [-1, -1, -1]
    for k, seat in enumerate(s.order):
        assert s.player == seat and g.current_player(s) == seat
        mask = codec.mask(s)
        assert mask[: g.T].tolist() == (s.owner == seat).astype(int).tolist() and mask[g.T :].sum() == 0
        assert g.legal_moves(s) == [Move.capital(int(t)) for t in np.flatnonzero(s.owner == seat)]
        t = int(np.flatnonzero(s.owner == seat)[-1])
        assert codec.action_to_string(s, t) == f"capital {g.map.name_of(t)}"
        codec.step(s, t)
        assert s.capitals[seat] == t
        if k < 2:
            assert s.phase == Phase.CAPITAL
    assert s.phase == Phase.REINFORCE and s.turn == 1 and s.player == s.order[0]
    assert s.to_place == g.income(s, s.player)


def test_capital_choice_must_be_own_and_only_in_its_phase():
    g = capitals_game(3)
    s = g.new_game(1)
    foreign = int(np.flatnonzero(s.owner != s.player)[0])
    with pytest.raises(risk_env.IllegalMoveError, match="is not yours"):
        g.apply(s, Move.capital(foreign))
    own = int(np.flatnonzero(s.owner == s.player)[0])
    before = s.to_dict()
    with pytest.raises(risk_env.IllegalMoveError, match="'place .*' is not legal in the capital phase"):
        g.apply(s, Move.place(own, 1))
    assert s.to_dict() == before
    while s.phase == Phase.CAPITAL:
        g.apply(s, Move.capital(int(np.flatnonzero(s.owner == s.player)[0])))
    with pytest.raises(risk_env.IllegalMoveError, match="capitals are chosen only after setup"):
        g.apply(s, Move.capital(int(np.flatnonzero(s.owner == s.player)[0])))


def test_capital_text_round_trips():
    g = capitals_game(3)
    m = g.parse_move(None, "capital  alaska")
    assert m == Move.capital(tid(g, "Alaska")) and g.move_to_text(m) == "capital Alaska"


def test_two_player_neutral_has_no_capital():
    g = Game(RulesConfig(num_players=2, capitals=True, setup="random"))
    s = g.new_game(0)
    assert g.neutral == 2 and s.capitals == [-1, -1]
    while s.phase == Phase.CAPITAL:
        g.apply(s, Move.capital(int(np.flatnonzero(s.owner == s.player)[0])))
    assert s.phase == Phase.REINFORCE and len(s.capitals) == 2


def _capitals_position(g: Game, caps: dict[int, str], owners: dict[str, int], **kw):
    s = build(g, owners=owners, **kw)
    for seat, name in caps.items():
        s.capitals[seat] = tid(g, name)
    assert g.invariant_violations(s) == []
    return s


def test_losing_a_capital_does_not_eliminate():
    g = capitals_game(3)
    owners = {"Alaska": 0, "Kamchatka": 1, "Peru": 2, "Siam": 1}
    s = _capitals_position(g, {0: "Alaska", 1: "Kamchatka", 2: "Peru"}, owners, default_owner=0, armies={"Alaska": 5})
    conquer(g, s, "Alaska", "Kamchatka")
    assert s.alive == [True, True, True] and s.winner == -1 and s.phase == Phase.OCCUPY
    assert s.owner[tid(g, "Kamchatka")] == 0 and s.capitals[1] == tid(g, "Kamchatka")  # a capital stays where it is


def test_holding_every_capital_wins():
    g = capitals_game(3)
    owners = {"Alaska": 0, "Kamchatka": 1, "Peru": 0, "Siam": 1, "Congo": 2}
    s = _capitals_position(g, {0: "Alaska", 1: "Kamchatka", 2: "Peru"}, owners, default_owner=0, armies={"Alaska": 5})
    conquer(g, s, "Alaska", "Kamchatka")  # player 0 now holds all three capitals; 1 and 2 still live
    assert s.winner == 0 and s.phase == Phase.GAME_OVER and s.alive == [True, True, True]
    assert g.outcome(s).returns == (1.0, -1.0, -1.0)


def test_every_capital_includes_ones_own():
    g = capitals_game(3)
    owners = {"Alaska": 0, "Kamchatka": 1, "Peru": 1, "Siam": 1, "Congo": 2, "Brazil": 2}
    # player 0 takes 1's capital (Kamchatka) and holds 2's (Alaska), but its own (Brazil) is 2's
    s = _capitals_position(g, {0: "Brazil", 1: "Kamchatka", 2: "Alaska"}, owners, default_owner=0, armies={"Alaska": 5})
    conquer(g, s, "Alaska", "Kamchatka")
    assert s.winner == -1


# ================================================================ hidden information


def test_an_opponents_observation_is_the_same_whatever_the_mission():
    env = risk_env.raw_env(num_players=3, preset="secret_missions", setup="random")
    env.reset(seed=2)
    s = env.game_state
    holder = s.player
    other = (holder + 1) % 3
    obs_other, obs_holder, states = set(), set(), set()
    for m in range(len(MISSIONS)):
        if MISSIONS[m].kind == "destroy" and (MISSIONS[m].target == holder or MISSIONS[m].target >= 3):
            continue
        s.missions[holder] = m
        obs_other.add(env.observe(f"player_{other}")["observation"].tobytes())
        obs_holder.add(env.observe(f"player_{holder}")["observation"].tobytes())
        states.add(env.state().tobytes())
    assert len(obs_other) == 1  # nothing of the holder's mission reaches another seat
    assert len(obs_holder) == len(states) == 10  # 8 non-destroy missions + 2 targets: all distinct
    lay = env.observation_layout
    o = env.observe(f"player_{other}")["observation"]
    assert o[lay["mission_held"][0]].tolist() == [1.0, 1.0, 1.0]
    assert o[lay["mission"][0]].sum() == 1.0
    assert env.state().shape == env.state_space.shape == (env.encoder.size + 4 * 3 + 3 * 11,)


def test_default_layout_is_unchanged_and_variant_blocks_are_appended():
    base = risk_env.raw_env(num_players=4)
    both = risk_env.raw_env(num_players=4, secret_missions=True, capitals=True)
    lay, lay2 = base.observation_layout, both.observation_layout
    assert base.encoder.size == 42 * 5 + 42 + 84 + 6 * 5 + 8 + 1 + 5 + 1 + 5 + 5 + 13 + 4 + 4 + 5 + 5 + 1 + 3 + 1
    assert list(lay2)[: len(lay)] == list(lay) and all(lay2[k] == lay[k] for k in lay)
    assert [k for k in lay2 if k not in lay] == ["mission", "mission_held", "capital", "capital_phase"]
    assert lay2["mission"][1] == (12,) and lay2["capital"][1] == (42, 4)
    assert both.encoder.size == base.encoder.size + 12 + 4 + 168 + 1


def test_capitals_are_public_in_the_observation():
    env = risk_env.raw_env(num_players=3, preset="capitals", setup="random")
    env.reset(seed=0)
    lay = env.observation_layout
    s = env.game_state
    first = s.player
    assert env.observe(env.agent_selection)["observation"][lay["capital_phase"][0]].tolist() == [1.0]
    t = int(np.flatnonzero(s.owner == first)[0])
    env.step(t)
    for seat in range(3):
        cap = env.observe(f"player_{seat}")["observation"][lay["capital"][0]].reshape(42, 3)
        assert cap.sum() == 1.0 and cap[t, (first - seat) % 3] == 1.0


# ================================================================ random games


@pytest.mark.parametrize("preset", ["secret_missions", "capitals"])
@pytest.mark.parametrize("n", [2, 3, 5])
def test_random_games_end_with_a_winner_or_truncation(preset, n):
    g = Game(RulesConfig.from_preset(preset, num_players=n, setup="random", turn_limit=60))
    codec = ActionCodec(g)
    from risk_env.envs.codec import Selection

    for seed in range(3):
        s = g.new_game(seed)
        sel = Selection()
        rng = np.random.default_rng(seed)
        while s.phase != Phase.GAME_OVER:
            legal = np.flatnonzero(codec.mask(s, sel))
            codec.step(s, int(legal[rng.integers(len(legal))]), sel)
            assert g.invariant_violations(s) == []
        assert (s.winner >= 0) != s.truncated
        if s.winner >= 0 and sum(s.alive) > 1:  # a variant win: the mission or the capitals
            w = s.winner
            assert (preset == "secret_missions" and mission_complete(g, s, w)) or (
                preset == "capitals" and all(s.owner[c] == w for c in s.capitals)
            )
        assert g.state_from_dict(s.to_dict()) == s


# ================================================================ agents


def _view(g: Game, s, seat: int):
    from risk_env.envs.view import GameView

    return GameView(g, s, seat)


def test_balanced_values_its_own_mission_targets():
    from risk_env.agents.balanced import BalancedAgent
    from risk_env.agents.heuristic import Situation, variant_values

    g = missions_game(3)
    s = build(g, owners={"Kamchatka": 1, "Alaska": 0, "Peru": 2, "Brazil": 0}, default_owner=2, armies={"Alaska": 5})
    agent = BalancedAgent(seed=0)
    dst = np.array([tid(g, "Kamchatka"), tid(g, "Alberta")])
    for mission, expected in ((DESTROY_FIRST + 1, [2.5 + 6.0, 0.0]), (TWENTY_FOUR, [0.6, 0.6]), (EIGHTEEN_TWO, [1.0, 1.0])):
        s.missions = [mission, EIGHTEEN_TWO, EIGHTEEN_TWO]
        sit = Situation(agent.board(g), _view(g, s, 0))
        assert variant_values(sit, dst).tolist() == pytest.approx(expected)
    s.missions = [2, EIGHTEEN_TWO, EIGHTEEN_TWO]  # North America + Africa: Alberta is in North America
    sit = Situation(agent.board(g), _view(g, s, 0))
    assert variant_values(sit, dst).tolist() == [0.0, 2.0]
    # the agent attacks the player it must destroy when it can: Kamchatka is player 1's last territory
    s.missions = [DESTROY_FIRST + 1, EIGHTEEN_TWO, EIGHTEEN_TWO]
    move = agent.choose_move(_view(g, s, 0))
    assert move.kind == risk_env.MoveKind.ATTACK and move.dst == tid(g, "Kamchatka")


def test_heuristics_choose_a_sheltered_capital_and_value_enemy_capitals():
    from risk_env.agents import load_agent
    from risk_env.agents.heuristic import Situation, variant_values

    g = capitals_game(3)
    s = g.new_game(0)
    seat = s.player
    for name in ("aggressive", "continent", "balanced"):
        agent = load_agent(name, seed=0)
        move = agent.choose_move(_view(g, s, seat))
        assert move.kind == risk_env.MoveKind.CAPITAL and s.owner[move.src] == seat
        sit = Situation(agent.board(g), _view(g, s, seat))
        own = np.flatnonzero(sit.mine)
        assert sit.dist[move.src] == sit.dist[own].max()  # as far from the enemies as it gets
    owners = {"Alaska": 0, "Kamchatka": 1, "Peru": 0, "Siam": 1, "Congo": 2}  # 0 holds 2's capital, Peru
    s = _capitals_position(g, {0: "Alaska", 1: "Kamchatka", 2: "Peru"}, owners, default_owner=0, armies={"Alaska": 5})
    agent = load_agent("balanced", seed=0)
    sit = Situation(agent.board(g), _view(g, s, 0))
    dst = np.array([tid(g, "Kamchatka"), tid(g, "Siam")])
    assert variant_values(sit, dst).tolist() == [8.0, 0.0]  # the last capital lacking
    move = agent.choose_move(_view(g, s, 0))
    assert move.kind == risk_env.MoveKind.ATTACK and move.dst == tid(g, "Kamchatka")


# ================================================================ records, rendering, play


@pytest.mark.parametrize(
    "rules",
    [
        {"num_players": 3, "secret_missions": True, "turn_limit": 12},
        {"num_players": 4, "secret_missions": True, "mission_target_taken": "holder_wins", "setup": "random"},
        {"num_players": 3, "capitals": True, "map": "small", "turn_limit": 30},
        {"num_players": 2, "capitals": True, "secret_missions": True, "setup": "random"},
    ],
    ids=["missions", "missions-holder-wins", "capitals", "both-2p"],
)
def test_records_replay_exactly(rules):
    from risk_env.agents import load_agent
    from risk_env.records.record import GameRecord, game_result, replay
    from risk_env.records.recorder import Recorder

    env = Recorder(risk_env.env(**rules))
    raw = env.unwrapped
    for seed in range(4):
        env.reset(seed=seed)
        agents = {a: load_agent(["balanced", "random", "aggressive", "continent"][i], seed=i) for i, a in enumerate(env.agents)}
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            env.step(None if term or trunc else agents[agent].act(obs, info))
        rec = GameRecord.from_json(env.records[-1].to_json())
        if rules.get("capitals"):
            assert [m.split()[0] for m in rec.moves].count("capital") == rules["num_players"]
        final = list(replay(rec))[-1]
        assert final == raw.game_state and final.missions == raw.game_state.missions
        assert rec.result == game_result(raw.game, raw.game_state) and rec.verify() is not None


def test_ansi_shows_only_the_viewers_mission_and_the_capitals():
    from risk_env.records.ansi import render_ansi, render_compact

    g = Game(RulesConfig(num_players=3, setup="random", secret_missions=True, capitals=True))
    s = g.new_game(0)
    s.missions = [TWENTY_FOUR, EIGHTEEN_TWO, 0]
    text = render_ansi(g, s, viewer=1)
    assert "your mission (player_1): hold 18 territories with at least 2 armies each" in text
    assert "hold 24 territories" not in text and "Europe, Australia" not in text
    assert "mission" not in render_ansi(g, s)  # no viewer: no mission
    assert f"player_{s.player} chooses a capital" in text
    while s.phase == Phase.CAPITAL:
        g.apply(s, Move.capital(int(np.flatnonzero(s.owner == s.player)[0])))
    text = render_ansi(g, s, viewer=0)
    for p, t in enumerate(s.capitals):
        assert f"{g.map.name_of(t):<{max(map(len, g.map.territory_names))}}" in text
        assert text.count(f"capital of player_{p}") == 1
    compact = render_compact(g, s, viewer=2).splitlines()
    assert compact[-1] == "your mission (player_2): conquer Europe, Australia and one other continent"
    assert sum(line.count("#") for line in compact) == 3 and max(map(len, compact)) <= 120
    env = risk_env.raw_env(num_players=3, preset="secret_missions", setup="random", render_mode="ansi")
    env.reset(seed=1)
    me = env.game.current_player(env.game_state)
    assert f"your mission (player_{me})" in env.render() and env.render().count("your mission") == 1


def test_a_human_plays_both_variants_in_risk_env_play():
    import io

    from risk_env.agents import load_agent
    from risk_env.records.record import replay
    from risk_env.records.recorder import GameRecorder
    from risk_env.tools.play import human_screen, play_game

    rules = RulesConfig(num_players=3, secret_missions=True, capitals=True, setup="random", turn_limit=3)
    game = Game(rules)
    out = io.StringIO()
    screens = []

    def read_line() -> str:
        text = out.getvalue()
        screens.append(text)
        return "1"

    rec = GameRecorder(game, seed=4)
    s = play_game(rules, 0, {1: load_agent("random", seed=1), 2: load_agent("balanced", seed=2)}, 4, read_line, out, recorder=rec)
    text = out.getvalue()
    assert s.phase == Phase.GAME_OVER
    assert f"Your secret mission: {MISSIONS[s.missions[0]].text}." in text
    assert "your mission (player_0)" in text and "your mission (player_1)" not in text and "your mission (player_2)" not in text
    assert "capital " in text and "choose your capital" in text
    assert list(replay(rec.finish(s)))[-1] == s
    g2 = Game(rules)
    s2 = g2.new_game(4)
    lines, entries = human_screen(g2, s2, s2.player)
    assert len(lines) + 1 <= 40 and max(map(len, lines)) <= 120
    assert all(e.moves[0].kind == risk_env.MoveKind.CAPITAL for e in entries)


def test_the_picture_marks_each_capital():
    pytest.importorskip("matplotlib")
    from risk_env.records.draw import BoardRenderer

    g = capitals_game(3)
    s = g.new_game(0)
    r = BoardRenderer(g)
    r.draw(s)
    assert len(r.territory_stars) == g.T and not any(m.get_visible() for m in r.territory_stars)
    while s.phase == Phase.CAPITAL:
        g.apply(s, Move.capital(int(np.flatnonzero(s.owner == s.player)[0])))
    frame = r.draw(s, "capital Alaska")
    shown = [t for t, m in enumerate(r.territory_stars) if m.get_visible()]
    assert frame.shape == (540, 1300, 3) and shown == sorted(int(t) for t in s.capitals)
    x, _ = r.territory_stars[s.capitals[0]].get_position()
    assert x == g.map.xy[s.capitals[0]][0]


@pytest.mark.parametrize(
    "rules",
    [
        {"preset": "secret_missions", "turn_limit": 40},
        {"preset": "secret_missions", "mission_target_taken": "holder_wins", "setup": "random", "turn_limit": 40},
        {"preset": "capitals", "map": "small", "turn_limit": 60},
        {"preset": "capitals", "turn_limit": 40, "setup": "random"},
    ],
    ids=["missions", "missions-holder-wins", "capitals-small", "capitals"],
)
def test_invariants_over_random_games_per_preset(rules):
    """Every step checked by the independent ``helpers.RulesChecker`` (army ledger, turn order,
    incomes, the §8 wins); 2..6 players."""
    from risk_env.rules.config import resolve_rules

    wins = variant_wins = 0
    for k in range(10):
        g = Game(resolve_rules(rules=rules, num_players=2 + k % 5))
        s, _ = check_random_game(g, 500 + k, use_moves=k % 2 == 1)
        wins += s.winner >= 0
        variant_wins += s.winner >= 0 and sum(s.alive) > 1
    assert wins >= 1  # random play on the classic map rarely completes a mission: the hand-built tests cover each
    if rules.get("map") == "small":
        assert variant_wins >= 2  # capitals taken with other players alive
