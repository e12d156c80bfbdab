"""Agents: the interface, the GameView, move_to_action on hand-built positions, the
baselines' legality and determinism, and the spec loader."""

from __future__ import annotations

import pickle
import re
import sys
import textwrap

import numpy as np
import pytest

import risk_env
from risk_env import ActionCodec, Game, Move, Phase, RulesConfig
from risk_env.agents import (
    BASELINES,
    HEURISTICS,
    AggressiveAgent,
    BalancedAgent,
    CallableAgent,
    ContinentAgent,
    RandomAgent,
    agent_label,
    amount_action,
    check_spec,
    load_agent,
    move_to_action,
    pretrained_path,
)
from risk_env.agents.base import check_fits_game
from risk_env.agents.heuristic import win_probabilities
from risk_env.envs.codec import Selection, amount_of
from risk_env.envs.view import GameView
from risk_env.errors import AgentRulesError, ConfigError, RiskError, UnknownAgentError
from risk_env.rules.cards import COMPOSITION_NAMES
from risk_env.rules.config import resolve_rules
from risk_env.rules.odds import win_probability
from risk_env.tools.match import play_match

# ---------------------------------------------------------------------- hand-built positions


@pytest.fixture
def g3() -> Game:
    return Game(RulesConfig(num_players=3, setup="random"))


def _position(game: Game, phase: Phase, player: int = 0):  # type: ignore[no-untyped-def]
    """A fresh random-setup position put into ``phase`` for ``player`` with no pending selection."""
    s = game.new_game(seed=11)
    s.phase = phase
    s.player = player
    s.to_place = 0
    s.forced = s.resume_attack = s.bonus_used = False
    return s


def _border(game: Game, own_a: bool, own_b: bool):  # type: ignore[no-untyped-def]
    """Alaska and Kamchatka (adjacent), with ownership set by the caller."""
    a, b = game.map.id_of("Alaska"), game.map.id_of("Kamchatka")
    assert game.adjacency[a, b]
    return a, b


def _play(codec: ActionCodec, s, move: Move, sel: Selection, limit: int = 6):  # type: ignore[no-untyped-def]
    """Feed move_to_action's ids to the codec until a complete move comes back; every id must be legal."""
    for _ in range(limit):
        a = move_to_action(codec, s, move, sel)
        assert codec.mask(s, sel)[a] == 1, codec.action_to_string(s, a, sel)
        done = codec.step(s, a, sel)
        if done is not None:
            return done
    raise AssertionError("the move never completed")


def test_amount_action_picks_closest_legal_level(g3: Game) -> None:
    codec = ActionCodec(g3)
    # 1..30 in 10 levels: 1, 4, 7, 11, 14, 17, 20, 24, 27, 30
    assert [amount_of(j, 1, 30) for j in range(10)] == [1, 4, 7, 11, 14, 17, 20, 24, 27, 30]
    assert amount_action(codec, 1, 30, 12) == codec.amount + 3  # 11 (distance 1) beats 14
    assert amount_action(codec, 1, 30, 100) == codec.amount + 9  # clamped to the maximum
    assert amount_action(codec, 1, 30, -5) == codec.amount + 0
    # 2..4: levels repeat; the first level of each count is the legal one
    assert [amount_action(codec, 2, 4, n) - codec.amount for n in (2, 3, 4)] == [0, 3, 7]
    for n in (2, 3, 4):
        assert codec._levels(2, 4)[amount_action(codec, 2, 4, n) - codec.amount] == 1


def test_attack_substeps_and_continue(g3: Game) -> None:
    codec = ActionCodec(g3)
    s = _position(g3, Phase.ATTACK)
    sel = Selection()
    a, b = _border(g3, True, False)
    c = g3.map.id_of("Northwest Territory")
    s.owner[a], s.owner[b], s.owner[c] = 0, 1, 2
    s.armies[a], s.armies[b], s.armies[c] = 6, 4, 4
    move = Move.attack(a, b, 3)
    assert move_to_action(codec, s, move, sel) == a
    codec.step(s, a, sel)
    assert move_to_action(codec, s, move, sel) == b
    codec.step(s, b, sel)
    assert move_to_action(codec, s, move, sel) == codec.dice + 2
    assert move_to_action(codec, s, Move.blitz(a, b), sel) == codec.blitz
    # the codec has no cancel: a different target while (a, b) is selected rolls one die there
    other = Move.attack(a, c, 2)
    assert move_to_action(codec, s, other, sel) == codec.dice
    force = [6, 1, 1]  # attacker 6 vs defender 1, 1: the defender loses one army
    s.dice_buf, s.dice_pos = force + s.dice_buf[s.dice_pos :], 0
    codec.step(s, codec.dice, sel)
    assert (sel.src, sel.dst) == (-1, -1) and (s.att_src, s.att_dst) == (a, b) and s.armies[b] == 3
    # at the top of the phase, attacking (a, b) again is one step: the dice id continues the battle
    assert move_to_action(codec, s, move, sel) == codec.dice + 2
    assert _play(codec, s, other, sel) == other
    # ending the attack while a source is selected: 'end' ends the phase at once
    codec.step(s, a, sel)
    assert move_to_action(codec, s, Move.end_attack(), sel) == codec.end
    assert _play(codec, s, Move.end_attack(), sel) == Move.end_attack()
    assert s.phase == Phase.FORTIFY


def test_reinforce_place_exact_count(g3: Game) -> None:
    codec = ActionCodec(g3)
    s = _position(g3, Phase.REINFORCE)
    sel = Selection()
    t = int(np.flatnonzero(s.owner == 0)[0])
    s.to_place = 7
    before = int(s.armies[t])
    assert _play(codec, s, Move.place(t, 4), sel) == Move.place(t, 4)
    assert s.armies[t] == before + 4 and s.to_place == 3
    # a place on another territory while t is selected completes t with all that is left
    codec.step(s, t, sel)
    u = int(np.flatnonzero(s.owner == 0)[1])
    assert move_to_action(codec, s, Move.place(u, 1), sel) == amount_action(codec, 1, 3, 3)


def test_trade_composition_and_bonus_choice(g3: Game) -> None:
    codec = ActionCodec(g3)
    s = _position(g3, Phase.REINFORCE)
    sel = Selection()
    s.to_place = 3
    sym = np.array(g3.card_symbol[: g3.T])
    inf = np.flatnonzero(sym == 0)
    t1, t2, t3 = (int(x) for x in inf[:3])
    s.owner[[t1, t2]] = 0
    s.owner[t3] = 1
    s.hands[0] = [t1, t2, t3]
    move = Move.trade((t1, t2, t3), bonus=t2)
    first = move_to_action(codec, s, move, sel)
    assert first == codec.trade + COMPOSITION_NAMES.index("III")
    codec.step(s, first, sel)  # two cards show owned territories: the bonus is asked next
    assert sel.trade == COMPOSITION_NAMES.index("III")
    assert move_to_action(codec, s, move, sel) == t2
    before = int(s.armies[t2])
    done = codec.step(s, t2, sel)
    assert done is not None and done.bonus == t2
    assert s.armies[t2] == before + 2 and s.to_place == 3 + 4 and s.hands[0] == []


def test_occupy_defend_and_fortify(g3: Game) -> None:
    codec = ActionCodec(g3)
    a, b = _border(g3, True, True)
    s = _position(g3, Phase.OCCUPY)
    sel = Selection()
    s.owner[[a, b]] = 0
    s.armies[a], s.armies[b] = 7, 3
    s.att_src, s.att_dst = a, b
    assert g3.occupy_range(s) == (3, 9)
    assert _play(codec, s, Move.occupy(6), sel) == Move.occupy(6)
    assert (s.armies[a], s.armies[b]) == (4, 6)

    s = _position(g3, Phase.DEFEND)

    sel = Selection()
    s.att_src, s.att_dst = a, b
    s.armies[b] = 5
    assert move_to_action(codec, s, Move.defend(2), sel) == codec.dice + 1

    s = _position(g3, Phase.FORTIFY)

    sel = Selection()
    c = g3.map.id_of("Northwest Territory")
    s.owner[[a, b, c]] = 0
    s.armies[a], s.armies[b], s.armies[c] = 5, 1, 1
    assert _play(codec, s, Move.fortify(a, b, 3), sel) == Move.fortify(a, b, 3)
    # once a pair is chosen only an amount is accepted: a different plan moves the least
    s = _position(g3, Phase.FORTIFY)
    sel = Selection()
    s.owner[[a, b, c]] = 0
    s.armies[a], s.armies[b], s.armies[c] = 5, 1, 1
    codec.step(s, a, sel)
    codec.step(s, b, sel)
    assert move_to_action(codec, s, Move.fortify(a, c, 2), sel) == amount_action(codec, 1, 4, 1)
    assert move_to_action(codec, s, Move.end_turn(), sel) == amount_action(codec, 1, 4, 1)
    # with only a source chosen, ending the turn cancels first
    sel.dst = -1
    assert move_to_action(codec, s, Move.end_turn(), sel) == codec.end


def test_move_in_wrong_phase_raises(g3: Game) -> None:
    codec = ActionCodec(g3)
    s = _position(g3, Phase.FORTIFY)
    sel = Selection()
    with pytest.raises(RiskError, match="cannot be played in the fortify phase"):
        move_to_action(codec, s, Move.attack(0, 1, 1), sel)


# ---------------------------------------------------------------------- GameView


def test_game_view_is_read_only_and_shows_own_hand() -> None:
    env = risk_env.env(num_players=3, setup="random")
    env.reset(seed=4)
    raw = env.unwrapped
    s = raw.game_state
    s.hands[0] = [1, 5, 43]
    s.hands[1] = [2]
    v = GameView.from_env(env, "player_0")
    assert repr(raw.view("player_0")) == repr(v)
    assert v.seat == 0 and v.hand == (1, 5, 43) and v.card_counts == (3, 1, 0)
    assert v.hand_symbols == tuple(raw.game.card_symbol[c] for c in (1, 5, 43))
    with pytest.raises(ValueError):
        v.owner[0] = 2
    with pytest.raises(ValueError):
        v.armies[:] = 0
    assert np.array_equal(v.armies, s.armies) and v.armies.dtype == np.int32
    assert v.income(1) == raw.game.income(s, 1)
    assert np.array_equal(v.mask(), raw.codec.mask(s, raw.selection))
    assert v.copy_state() is not v.state and v.copy_state() == v.state  # hidden parts filled in a fixed way
    assert v.state.hands[0] == s.hands[0] and len(v.state.hands[1]) == 1 and v.state.deck != s.deck
    with pytest.raises(RiskError, match="unknown agent"):
        GameView.from_env(env, "player_9")
    with pytest.raises(RiskError, match="seat must be"):
        GameView(raw.game, s, 3)


def test_scripted_agent_without_view_explains() -> None:
    env = risk_env.raw_env(num_players=2, setup="random")
    env.reset(seed=0)
    obs, *_, info = env.last()
    # the env's own info carries the view, a plain dict key (copies keep it)
    assert obs["action_mask"][BalancedAgent(seed=0).act(obs, info)] == 1
    assert obs["action_mask"][BalancedAgent(seed=0).act(obs, dict(info))] == 1
    with pytest.raises(RiskError, match="info\\['view'\\]"):
        BalancedAgent(seed=0).act(obs, {"action_mask": info["action_mask"]})
    # the 0.1.0 protocol (game, state, seat) still works, with a DeprecationWarning
    raw = env.unwrapped
    seat = raw.agent_name_mapping[env.agent_selection]
    with pytest.warns(DeprecationWarning, match="info\\['view'\\]"):
        a = BalancedAgent(seed=0).act(
            obs, {"action_mask": info["action_mask"], "game": raw.game, "state": raw.game_state, "seat": seat}
        )
    assert obs["action_mask"][a] == 1


# ---------------------------------------------------------------------- baselines in games


class _Checked:
    """Wraps an agent: records its actions and checks each against the mask."""

    def __init__(self, agent):  # type: ignore[no-untyped-def]
        self.agent = agent
        self.name = agent.name
        self.actions: list[int] = []

    def reset(self, seed=None):  # type: ignore[no-untyped-def]
        self.agent.reset(seed)
        self.actions = []

    def act(self, observation, info=None):  # type: ignore[no-untyped-def]
        a = self.agent.act(observation, info)
        assert isinstance(a, int)
        assert observation["action_mask"][a] == 1, f"{self.name} chose illegal action {a}"
        self.actions.append(a)
        return a


RULE_VARIANTS = [
    pytest.param(dict(num_players=2, turn_limit=60), id="2p-deal-neutral"),
    pytest.param(dict(num_players=3, turn_limit=40), id="3p-claim"),
    pytest.param(
        dict(num_players=4, setup="random", defender_dice="choose", fortify="connected", turn_limit=60), id="4p-choose-connected"
    ),
    pytest.param(
        dict(
            num_players=5,
            setup="deal",
            card_trade="fixed_by_symbol",
            territory_bonus="once_per_trade",
            elimination_trade_at=5,
            turn_limit=60,
        ),
        id="5p-fixed-cards",
    ),
    pytest.param(dict(num_players=3, map="small", card_trade="no_cards", turn_limit=60), id="3p-small-nocards"),
    pytest.param(dict(num_players=4, preset="secret_missions", turn_limit=60), id="4p-missions"),
    pytest.param(
        dict(num_players=3, preset="secret_missions", mission_target_taken="holder_wins", setup="random", turn_limit=60),
        id="3p-missions-holder-wins",
    ),
    pytest.param(dict(num_players=4, preset="capitals", setup="random", turn_limit=60), id="4p-capitals"),
    pytest.param(dict(num_players=2, preset="capitals", turn_limit=60), id="2p-capitals-neutral"),
    pytest.param(dict(num_players=2, preset="allied", turn_limit=60), id="2p-allied"),
    pytest.param(
        dict(num_players=2, preset="allied", defender_dice="choose", setup="deal", turn_limit=60), id="2p-allied-choose"
    ),
]


@pytest.mark.parametrize("rules", RULE_VARIANTS)
def test_heuristics_play_only_legal_actions(rules: dict) -> None:
    rules = dict(rules)
    n = rules.pop("num_players")
    env = risk_env.raw_env(num_players=n, **rules)  # strict: an illegal id would raise
    pool = ["aggressive", "continent", "balanced", "random"]
    agents = {f"player_{i}": _Checked(load_agent(pool[i % 4])) for i in range(n)}
    r = play_match(env, agents, seed=5, agent_seeds={a: i for i, a in enumerate(agents)})
    assert r.steps > 0
    for name in HEURISTICS:
        played = [ag for ag in agents.values() if ag.name == name]
        assert all(ag.actions for ag in played)


def _trajectory(names: list[str], agent_seed: int, game_seed: int = 3) -> tuple[list[list[int]], dict]:
    env = risk_env.raw_env(num_players=len(names), preset="fast", turn_limit=80)
    agents = {f"player_{i}": _Checked(load_agent(n)) for i, n in enumerate(names)}
    r = play_match(env, agents, seed=game_seed, agent_seeds={a: agent_seed + i for i, a in enumerate(agents)})
    return [ag.actions for ag in agents.values()], r


@pytest.mark.parametrize("name", HEURISTICS)
def test_heuristics_are_deterministic_given_seeds(name: str) -> None:
    a1, r1 = _trajectory([name, "balanced", "random"], agent_seed=7)
    a2, r2 = _trajectory([name, "balanced", "random"], agent_seed=7)
    assert a1 == a2 and r1 == r2
    # the random agent's seed changes its play (and so the game)
    a3, _ = _trajectory([name, "balanced", "random"], agent_seed=8)
    assert a3[2] != a1[2]


def test_heuristic_reset_clears_plan_and_reseeds() -> None:
    agent = ContinentAgent(seed=1)
    r1 = agent.rng.random()
    agent._plan = Move.end_turn()
    agent.reset(1)
    assert agent._plan is None and agent.rng.random() == r1


def test_a_heuristic_game_ends_in_a_bounded_number_of_decisions() -> None:
    # a deterministic stand-in for speed: the same seeds give the same game, and it is decided
    # well inside the turn limit with few decisions per turn (no wall-clock time is measured)
    env = risk_env.raw_env(num_players=4, preset="fast")
    agents = {f"player_{i}": load_agent(n) for i, n in enumerate(["aggressive", "continent", "balanced", "random"])}
    seeds = {a: i for i, a in enumerate(agents)}
    r = play_match(env, agents, seed=0, agent_seeds=seeds)
    assert r.finished and r.winner >= 0 and not r.truncated
    assert r.turns < 200 and r.steps < 40 * r.turns
    again = play_match(env, agents, seed=0, agent_seeds=seeds)
    assert (again.winner, again.turns, again.steps) == (r.winner, r.turns, r.steps)


def test_win_probabilities_match_exact_odds() -> None:
    a = np.array([1, 3, 10, 25])
    d = np.array([1, 2, 10, 30])
    exact = [win_probability(int(x), int(y)) for x, y in zip(a, d, strict=True)]
    np.testing.assert_allclose(win_probabilities(a, d), exact, rtol=1e-12)
    assert win_probabilities(np.array(0), np.array(3)) == 0.0
    big = win_probabilities(np.array([300, 150]), np.array([100, 150]))  # beyond the table: scaled
    assert big[0] > 0.99 and big[1] == pytest.approx(win_probability(100, 100))


# ---------------------------------------------------------------------- loading


def test_load_agent_names_and_labels() -> None:
    for name, cls in BASELINES.items():
        agent = load_agent(name, seed=0)
        assert isinstance(agent, cls) and agent.name == name == agent_label(name)
    assert isinstance(load_agent("Balanced"), BalancedAgent)
    # a name in another case is labelled as load_agent names the agent (an evaluation's table, a match's seats)
    assert agent_label(" Balanced ") == "balanced" and agent_label("PPO-4P") == "ppo-4p" == agent_label("ppo-4p")
    assert isinstance(load_agent("risk_env.agents.aggressive:AggressiveAgent", seed=3), AggressiveAgent)
    agent = RandomAgent(seed=0)
    assert load_agent(agent) is agent
    with pytest.raises(RiskError, match="cannot import module"):
        load_agent("no_such_module_xyz:f")
    with pytest.raises(RiskError, match="has no attribute"):
        load_agent("risk_env.agents:Nope")
    with pytest.raises(RiskError, match="no saved model"):
        load_agent("missing/model.zip")


def test_a_module_agent_in_the_working_folder_says_how_to_put_it_on_the_path(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``risk-env`` and ``python scripts/...`` do not look in the working folder: the message said only "No module"."""
    import importlib
    import sys

    (tmp_path / "my_bot_xyz.py").write_text("def act(observation, info):\n    return 0\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    importlib.invalidate_caches()
    with pytest.raises(RiskError) as e:
        load_agent("my_bot_xyz:act")
    assert str(e.value) == (
        "agent spec 'my_bot_xyz:act': cannot import module 'my_bot_xyz' (No module named 'my_bot_xyz'); "
        "'my_bot_xyz' in the working folder is not on Python's path: run with PYTHONPATH=. or install it"
    )
    with pytest.raises(RiskError) as e:  # no such file here: no hint
        load_agent("other_bot_xyz:act")
    assert str(e.value).endswith("(No module named 'other_bot_xyz')")
    for spec in ("./my_bot_xyz.py:act", "my_bot_xyz.py:act", f"{tmp_path}/my_bot_xyz.py:act"):  # a file's path
        with pytest.raises(RiskError) as e:  # (told to put the working folder on the path, or a TypeError)
            load_agent(spec)
        assert str(e.value).endswith(
            "is a file's path, and module:callable names a module: give 'my_bot_xyz:act', with the file's folder on "
            "Python's path (PYTHONPATH)"
        )
    assert str(e.value).startswith(f"agent spec {spec[:60]!r}...")  # (a long spec shown in short)
    monkeypatch.syspath_prepend(str(tmp_path))  # as PYTHONPATH=. does
    assert load_agent("my_bot_xyz:act").act(None, {}) == 0
    (tmp_path / "my_num_xyz.py").write_text("act = 5\n")
    with pytest.raises(RiskError, match=r"^'act' is of type int, not an agent, agent class or callable"):  # ("is a int")
        load_agent("my_num_xyz:act")


def test_an_unknown_agent_raises_unknown_agent_error_listing_the_shipped_names() -> None:
    shipped = (
        "random, aggressive, continent, balanced, ppo-2p, ppo-3p, ppo-4p, ppo-5p, ppo-6p, ppo-2p-0.1, ppo-4p-0.1, ppo-4p-500k"
    )
    for spec in ("nobody", "  ", "ppo-9p"):
        with pytest.raises(UnknownAgentError, match=f"agent( spec)? {spec!r}: use one of {shipped}, a MaskablePPO") as info:
            load_agent(spec)
        assert isinstance(info.value, RiskError)  # so every `except RiskError` still catches it
    with pytest.raises(UnknownAgentError) as info:  # (a training config's line-up, as the logs write it)
        load_agent("aggressive+continent + balanced")
    assert str(info.value) == (
        "unknown agent 'aggressive+continent + balanced': a line-up 'a+b+c' names the other seats in a training "
        "config; give its agents one by one (aggressive continent balanced)"
    )
    names = "ppo-2p, ppo-3p, ppo-4p, ppo-5p, ppo-6p, ppo-2p-0.1, ppo-4p-0.1, ppo-4p-500k"
    with pytest.raises(UnknownAgentError, match=f"^no pretrained agent 'ppo-9p': use one of {names}$"):
        pretrained_path("ppo-9p")
    env = risk_env.raw_env(num_players=2, map="small")
    env.reset(seed=0)
    for ask in (env.view, lambda a: GameView.from_env(env, a)):
        with pytest.raises(UnknownAgentError, match="^unknown agent 'player_7'; the agents are player_0, player_1$"):
            ask("player_7")


def test_a_spec_too_long_for_a_path_is_an_unknown_agent_named_in_short() -> None:
    # (the path probes raised OSError "File name too long" before)
    shipped = (
        "random, aggressive, continent, balanced, ppo-2p, ppo-3p, ppo-4p, ppo-5p, ppo-6p, ppo-2p-0.1, ppo-4p-0.1, ppo-4p-500k"
    )
    for spec, n in (("a" * 5000, 5000), ("a/" * 3000, 6000), ("a" * 300 + "\x00", 301)):
        with pytest.raises(UnknownAgentError) as info:
            load_agent(spec)
        msg = str(info.value)
        assert msg.startswith(f"unknown agent {spec[:60]!r}... ({n} characters): use one of {shipped}, a MaskablePPO model file")
        assert len(msg) < 420  # (the names and forms there are, and 60 characters of the spec)
        with pytest.raises(UnknownAgentError, match=f"^unknown agent {spec[:60]!r}\\.\\.\\. \\({n} characters\\)"):
            check_spec(spec)
        assert agent_label(spec) == spec
    # the file forms name the file they could not find, in short
    long = "a" * 5000
    with pytest.raises(RiskError, match=f"^no saved model at {long[:60]!r}\\.\\.\\. \\(5004 characters\\)$"):
        load_agent(long + ".zip")
    with pytest.raises(RiskError, match=f"^agent spec {long[:60]!r}\\.\\.\\. \\(5002 characters\\): cannot import module "):
        load_agent(long + ":x")
    pytest.importorskip("torch")
    too_long = f"^no policy file at {long[:60]!r}\\.\\.\\. \\(5003 characters\\) \\(File name too long\\)$"
    with pytest.raises(RiskError, match=too_long):
        load_agent(long + ".pt")


def _bad_masks(mask: np.ndarray) -> list[tuple[object, str]]:
    """Masks that are not the env's, each with the end of the message it gets (after "must be a 1-d array of
    0/1 (1 = legal) for ..., got ")."""
    nan = mask.astype(np.float64)
    nan[3] = np.nan
    return [
        (None, "None"),
        (nan, "the value nan at id 3"),
        (mask * 2, f"the value 2 at id {int(np.flatnonzero(mask)[0])}"),
        (np.array(["x"] * len(mask)), "values of dtype <U1"),
        ("abc", "str 'abc'"),
        (mask[None], f"an array of shape (1, {len(mask)}) and dtype int8"),
        ([1, [1]], "list [1, [1]]"),
        ([], "list of length 0"),
    ]


@pytest.mark.parametrize("observation", ["graph", "flat"])
def test_a_graph_net_agent_refuses_an_observation_that_is_not_the_envs(observation: str) -> None:
    # (None, a dict without a mask, NaN or text in the mask gave TypeError, KeyError or an action; a mask of
    # another length was called a rules mismatch; action_mask=None an all-zero mask)
    pytest.importorskip("torch")
    from risk_env.agents.policy import GraphNetAgent
    from risk_env.train.graph_net import GraphNet

    env = risk_env.env(num_players=2, preset="fast", observation=observation)
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    agent = GraphNetAgent(GraphNet(20, 73, 28, hidden=8, rounds=1))
    first = agent.act(obs, info)
    n = len(obs["action_mask"])
    assert n == 70 and obs["action_mask"][first] == 1
    forms = f"policy 'graph_net' needs the env's observation, a dict with {{}}'action_mask' (0/1 for each of the {n} action ids)"
    either = " and either info['view'] (given the flat observation) or the graph observation's 'nodes', 'edges', 'globals'"
    for given, shown in ((None, "None"), ([1, 2], "list [1, 2]"), ("obs", "str 'obs'")):
        with pytest.raises(RiskError) as err:
            agent.act(given, info)  # type: ignore[arg-type]
        assert str(err.value) == forms.format("") + either + f", got {shown}"
    no_mask = {k: v for k, v in obs.items() if k != "action_mask"}
    with pytest.raises(RiskError) as err:
        agent.act(no_mask, info)
    keys = "'nodes', 'edges', 'globals' and " if observation == "graph" else ""
    has = ", ".join(map(repr, no_mask))
    assert (
        str(err.value) == forms.format(keys) + ("" if keys else either) + f"; the observation has no 'action_mask' (it has {has})"
    )
    for mask, shown in _bad_masks(obs["action_mask"]):
        with pytest.raises(RiskError) as err:
            agent.act({**obs, "action_mask": mask}, info)  # type: ignore[dict-item]
        expected = "policy 'graph_net': observation['action_mask'] must be a 1-d array of 0/1 (1 = legal)"
        assert str(err.value) == f"{expected} for each of the {n} action ids, got {shown}"
    for mask in (obs["action_mask"][:-3], np.r_[obs["action_mask"], 1]):
        with pytest.raises(RiskError) as err:
            agent.act({**obs, "action_mask": mask}, info)
        expected = (
            f"policy 'graph_net': observation['action_mask'] has {len(mask)} entries, expected {n} (one for each action id)"
        )
        assert str(err.value) == expected
    # a mask of bools, or of 0.0/1.0, is the env's mask in another dtype
    assert agent.act({**obs, "action_mask": obs["action_mask"].astype(bool)}, info) == first
    assert agent.act({**obs, "action_mask": obs["action_mask"].astype(np.float32)}, info) == first
    assert agent.act(obs, info) == first  # nothing was changed by the refusals


def test_a_graph_net_agent_refuses_a_graph_observation_of_another_form() -> None:
    pytest.importorskip("torch")
    from risk_env.agents.policy import GraphNetAgent
    from risk_env.train.graph_net import GraphNet

    env = risk_env.env(num_players=2, preset="fast", observation="graph")
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    agent = GraphNetAgent(GraphNet(20, 73, 28, hidden=8, rounds=1))
    want = (
        "policy 'graph_net': the graph observation must hold 'nodes' float (T, F), 'edges' integer (2, E) of territory ids 0..T-1"
    )
    for change, got in (
        ({"nodes": obs["nodes"][0]}, "got 'nodes' (20,), 'edges' (2, 166) int64, 'globals' (73,)"),
        (
            {"edges": obs["edges"] + 42},
            "got 'nodes' (42, 20), 'edges' (2, 166) int64, 'globals' (73,), not all territory ids 0..41",
        ),
    ):
        with pytest.raises(RiskError) as err:
            agent.act({**obs, **change}, info)
        assert str(err.value).startswith(want) and str(err.value).endswith(got)
    with pytest.raises(
        RiskError, match="^policy 'graph_net': the graph observation's 'nodes' and 'globals' must be arrays of numbers"
    ):
        agent.act({**obs, "globals": "x"}, info)  # type: ignore[dict-item]
    # without info["view"] the game's action count is unknown: a mask of another length reads as other rules
    with pytest.raises(
        ConfigError, match="^this graph policy scores 28 action ids besides the 42 territories; these rules have 27"
    ):
        agent.act({**obs, "action_mask": obs["action_mask"][:-1]}, None)


@pytest.mark.parametrize("flag", ["yes", 1, None, 0.0])
def test_a_graph_net_agent_takes_only_a_bool_for_deterministic(flag: object) -> None:
    # ("yes" was read as True, 0.0 as False)
    pytest.importorskip("torch")
    from risk_env.agents.policy import GraphNetAgent
    from risk_env.train.graph_net import GraphNet

    net = GraphNet(20, 73, 28, hidden=8, rounds=1)
    with pytest.raises(ConfigError) as err:
        GraphNetAgent(net, deterministic=flag)  # type: ignore[arg-type]
    assert str(err.value) == f"GraphNetAgent: deterministic must be True or False, got {flag!r}"
    assert GraphNetAgent(net, deterministic=False).deterministic is False
    assert GraphNetAgent(net, deterministic=np.bool_(True)).deterministic is True


@pytest.mark.parametrize("flag", ["no", 0, None])
def test_the_agents_flags_take_only_a_bool(tmp_path, flag: object) -> None:  # type: ignore[no-untyped-def]
    # (each was read for its truth value: needs_view="no" was True)
    from risk_env.agents import MaskablePPOAgent, RLlibPolicyAgent

    def zero(observation, info):  # type: ignore[no-untyped-def]
        return 0

    for build, what in (
        (lambda: CallableAgent(zero, needs_view=flag), "CallableAgent: needs_view"),
        (lambda: MaskablePPOAgent(pretrained_path("ppo-2p-0.1"), deterministic=flag), "MaskablePPOAgent: deterministic"),
        (lambda: RLlibPolicyAgent(tmp_path, deterministic=flag), "RLlibPolicyAgent: deterministic"),
    ):
        with pytest.raises(ConfigError) as err:
            build()
        assert str(err.value) == f"{what} must be True or False, got {flag!r}"
    assert CallableAgent(zero, needs_view=False).needs_view is False
    assert CallableAgent(zero, needs_view=np.bool_(True)).needs_view is True


@pytest.mark.parametrize("name", [5, "", "  ", ["a"]])
def test_the_agents_names_take_only_a_text(tmp_path, name: object) -> None:  # type: ignore[no-untyped-def]
    # (each was taken as it came: name=5 made an agent whose name was the number 5)
    pytest.importorskip("torch")
    from risk_env.agents import MaskablePPOAgent, RLlibPolicyAgent
    from risk_env.agents.policy import GraphNetAgent
    from risk_env.train.graph_net import GraphNet

    def zero(observation, info):  # type: ignore[no-untyped-def]
        return 0

    net = GraphNet(20, 73, 28, hidden=8, rounds=1)
    for build, who in (
        (lambda: CallableAgent(zero, name=name), "CallableAgent"),
        (lambda: GraphNetAgent(net, name=name), "GraphNetAgent"),
        (lambda: MaskablePPOAgent(pretrained_path("ppo-2p-0.1"), name=name), "MaskablePPOAgent"),
        (lambda: RLlibPolicyAgent(tmp_path, name=name), "RLlibPolicyAgent"),
    ):
        with pytest.raises(ConfigError) as err:
            build()
        assert str(err.value) == f"{who}: name must be a non-empty text or None, got {name!r}"
    assert CallableAgent(zero, name="mine").name == "mine" and CallableAgent(zero).name == "zero"
    assert GraphNetAgent(net, name="g").name == "g"


def _rllib_agent_without_ray(shape: tuple[int, ...]):  # type: ignore[no-untyped-def]
    """An RLlibPolicyAgent as its constructor leaves one, without a module (the checks of act come first)."""
    from risk_env.agents import RLlibPolicyAgent

    agent = RLlibPolicyAgent.__new__(RLlibPolicyAgent)
    agent.name, agent._obs_shape, agent.trained_for, agent.deterministic = "ckpt", shape, None, True
    return agent


def test_the_other_agents_refuse_an_observation_that_is_not_the_envs() -> None:
    # (None or {} gave TypeError or KeyError; a mask of NaN, text or 2s gave an action: the random agent played
    # id 0 from the text 'abc'; action_mask=None was called an all-zero mask)
    sb3c = pytest.importorskip("sb3_contrib")
    from risk_env.agents import MaskablePPOAgent
    from risk_env.envs.single_agent import RiskSingleAgentEnv

    env = risk_env.env(num_players=2, preset="fast")
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    n = len(obs["action_mask"])
    flat = MaskablePPOAgent(sb3c.MaskablePPO("MlpPolicy", RiskSingleAgentEnv(num_players=2, preset="fast"), seed=0))
    random = RandomAgent(seed=0)
    agents = {
        "the random agent": (random, "'action_mask'"),
        "policy 'maskable_ppo'": (flat, "'observation' and 'action_mask'"),
        "policy 'ppo-2p-0.1'": (load_agent("ppo-2p-0.1"), "'action_mask'"),
        "RLlib policy 'ckpt'": (_rllib_agent_without_ray(obs["observation"].shape), "'observation' and 'action_mask'"),
    }
    state = random.rng.bit_generator.state
    for who, (agent, keys) in agents.items():
        either = (
            " and either info['view'] (given the flat observation) or the graph observation's 'nodes', 'edges', 'globals'"
            if who == "policy 'ppo-2p-0.1'"
            else ""
        )
        form = f"{who} needs the env's observation, a dict with {keys} (0/1 for each of the {n} action ids){either}"
        with pytest.raises(RiskError) as err:
            agent.act(None, info)  # type: ignore[arg-type]
        assert str(err.value) == f"{form}, got None"
        with pytest.raises(RiskError) as err:
            agent.act({}, info)
        missing = "'observation' or 'action_mask'" if "'observation'" in keys else "'action_mask'"
        assert str(err.value) == f"{form}; the observation has no {missing} (it has no keys)"
        for mask, shown in _bad_masks(obs["action_mask"]):
            with pytest.raises(RiskError) as err:
                agent.act({**obs, "action_mask": mask}, info)  # type: ignore[dict-item]
            assert str(err.value) == (
                f"{who}: observation['action_mask'] must be a 1-d array of 0/1 (1 = legal) for each of the {n} action ids, "
                f"got {shown}"
            )
        with pytest.raises(RiskError) as err:
            agent.act({**obs, "action_mask": obs["action_mask"][:-1]}, info)
        assert str(err.value) == f"{who}: observation['action_mask'] has {n - 1} entries, expected {n} (one for each action id)"
        with pytest.raises(RiskError) as err:
            agent.act({**obs, "action_mask": np.zeros(n, dtype=np.int8)}, info)
        assert str(err.value) == f"{who} was asked to act with no legal action (an all-zero mask)"
    assert random.rng.bit_generator.state == state  # the refusals drew nothing
    # a flat model knows its action count without a view, and names an observation that is no float vector
    with pytest.raises(
        RiskError, match=f"^policy 'maskable_ppo': observation\\['action_mask'\\] has {n + 1} entries, expected {n} "
    ):
        flat.act({**obs, "action_mask": np.r_[obs["action_mask"], 1]}, None)
    for bad, shown in (
        (None, "None"),
        ("x", "str 'x'"),
        (obs["observation"][None], f"an array of shape (1, {len(obs['observation'])})"),
    ):
        for who, agent in (("policy 'maskable_ppo'", flat), ("RLlib policy 'ckpt'", agents["RLlib policy 'ckpt'"][0])):
            with pytest.raises(RiskError) as err:
                agent.act({**obs, "observation": bad}, info)  # type: ignore[dict-item]
            assert str(err.value).startswith(
                f"{who}: observation['observation'] must be a float array of shape {obs['observation'].shape}, got {shown}"
            )
    for agent in (random, flat, load_agent("ppo-2p-0.1")):
        assert obs["action_mask"][agent.act(obs, info)] == 1
        assert obs["action_mask"][agent.act({**obs, "action_mask": obs["action_mask"].astype(bool)}, info)] == 1


def test_callable_spec_plugs_in(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "my_policy_mod.py").write_text(
        textwrap.dedent("""
        import numpy as np
        calls = []
        def first_legal(observation, info):
            calls.append(1)
            return int(np.flatnonzero(observation["action_mask"])[0])
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = load_agent("my_policy_mod:first_legal")
    assert isinstance(agent, CallableAgent) and agent.name == "first_legal" == agent_label("my_policy_mod:first_legal")
    env = risk_env.raw_env(num_players=2, preset="fast", turn_limit=5)
    r = play_match(env, {"player_0": agent, "player_1": RandomAgent(0)}, seed=0)
    assert sys.modules["my_policy_mod"].calls and r.turns >= 1
    wrapped = CallableAgent(lambda obs, info: 0, name="zero")
    assert wrapped.act({}, None) == 0 and wrapped.name == "zero"
    with pytest.raises(RiskError):
        CallableAgent(3)  # type: ignore[arg-type]


def test_a_factory_spec_builds_its_agent_and_a_function_of_other_arguments_is_refused(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # (a function of other arguments was wrapped as a policy and raised TypeError at its first decision; a factory,
    # as the module docstring promises, was not called)
    (tmp_path / "my_factories.py").write_text(
        textwrap.dedent("""
        import numpy as np
        from risk_env.agents import RandomAgent
        def seeded(seed=None):
            return RandomAgent(seed)
        def policy():
            return lambda observation, info: int(np.flatnonzero(observation["action_mask"])[0])
        def number():
            return 0
        def one(observation):
            return 0
        def broken():
            raise KeyError("x")
        def needs_seed(seed):
            return RandomAgent(seed)
        def keywords(**options):
            return RandomAgent(options["seed"])
        def other(nseeds=3):
            return RandomAgent(nseeds)
        def refuses():
            from risk_env.errors import ConfigError
            raise ConfigError("no such setting")
        def a_class():
            return RandomAgent
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    a, b = load_agent("my_factories:seeded", seed=4), load_agent("my_factories:seeded", seed=4)
    assert isinstance(a, RandomAgent) and a.rng.integers(1 << 30) == b.rng.integers(1 << 30)
    first = load_agent("my_factories:policy")
    assert isinstance(first, CallableAgent) and first.name == "policy"
    r = risk_env.evaluate(["my_factories:policy", "my_factories:seeded"], num_games=2, turn_limit=5, workers=1, progress=False)
    assert r.entrants == ["policy", "seeded"] and r.num_games == 2
    with pytest.raises(RiskError) as info:
        load_agent("my_factories:number")
    assert str(info.value) == (
        "'number' is an agent factory (a function of no arguments or of seed) that returned int 0, not an agent: return "
        "an object with act(observation, info) -> int, or a function f(observation, info) -> int"
    )
    with pytest.raises(RiskError) as info:
        load_agent("my_factories:one")
    assert str(info.value) == (
        "'one' is a function of (observation): an agent function takes (observation, info) and returns an action id, "
        "an agent factory takes no arguments (or seed) and returns an agent"
    )
    with pytest.raises(RiskError, match=r"^'broken': the agent factory raised KeyError: 'x'$"):
        load_agent("my_factories:broken")
    # (seed given by the parameter's name, required or through **kwargs; "seed" in another name or default is not one)
    for name in ("needs_seed", "keywords"):
        made = load_agent(f"my_factories:{name}", seed=4)
        assert isinstance(made, RandomAgent) and made.rng.integers(1 << 30) == RandomAgent(4).rng.integers(1 << 30)
    made = load_agent("my_factories:other", seed=4)  # (called without seed: its own 3)
    assert isinstance(made, RandomAgent) and made.rng.integers(1 << 30) == RandomAgent(3).rng.integers(1 << 30)
    with pytest.raises(ConfigError, match="^no such setting$"):  # (the library's own error, of its own kind)
        load_agent("my_factories:refuses")
    with pytest.raises(RiskError) as info:  # (a class passed as an agent failed at check_game with a TypeError)
        load_agent("my_factories:a_class")
    assert str(info.value) == (
        "'a_class' is a factory that returned the class RandomAgent, not an agent: return an agent object (or give the "
        "class itself as the spec: it is built with seed=)"
    )
    with pytest.raises(RiskError, match=r"^'<lambda>' is a function of \(x, y, z\)"):
        load_agent(lambda x, y, z: 0)


def test_an_object_with_act_is_an_agent() -> None:
    """The class a user writes first need not derive from Agent: act, and name and reset when it has them."""

    class First:
        def act(self, observation, info):  # type: ignore[no-untyped-def]
            return int(np.flatnonzero(observation["action_mask"])[0])

    class Named(First):
        name = "named"
        needs_view = False

        def __init__(self) -> None:
            self.seeds: list[int | None] = []

        def reset(self, seed=None):  # type: ignore[no-untyped-def]
            self.seeds.append(seed)

    first = load_agent(First())
    assert first.name == "First" == agent_label(First())
    named = Named()
    agent = load_agent(named)
    agent.reset(7)
    assert agent.name == "named" and not agent.needs_view and named.seeds == [7]
    env = risk_env.raw_env(num_players=2, map="small", setup="random", turn_limit=3)
    r = play_match(env, [first, agent], seed=0)
    assert r.turns >= 1
    with pytest.raises(RiskError, match=r"^cannot make an agent from int 3: give a spec \(random, .*an object with act"):
        load_agent(3)


# ---------------------------------------------------------------------- pretrained agents
def test_pretrained_agents_ship_load_and_play_any_player_count():
    pytest.importorskip("sb3_contrib")
    from risk_env.agents import PRETRAINED, pretrained_path
    from risk_env.tools.evaluation import evaluate

    assert set(PRETRAINED) == {"ppo-2p", "ppo-3p", "ppo-4p", "ppo-5p", "ppo-6p", "ppo-2p-0.1", "ppo-4p-0.1", "ppo-4p-500k"}
    for name in PRETRAINED:
        assert pretrained_path(name).is_file()
        assert load_agent(name).name == name
    with pytest.raises(RiskError, match="ppo-2p-0.1"):
        pretrained_path("ppo-9p")
    with pytest.raises(RiskError, match="ppo-2p-0.1"):
        load_agent("ppo-9p")
    # it wins against random (100 % over 200 games in docs/baselines.md) ...
    two = evaluate(["ppo-2p-0.1", "random"], num_games=4, rules="fast", seed=1, workers=1, progress=False)
    assert two.stats["ppo-2p-0.1"].wins >= 3
    # ... and the same kind of network plays 4-player games (owners are relative to the observer)
    four = evaluate(
        ["ppo-4p", "ppo-2p-0.1", "random", "random"], num_games=1, rules="fast", turn_limit=20, workers=1, progress=False
    )
    assert sum(st.games for st in four.stats.values()) == 4
    # ppo-3p is a graph policy file of the device trainer, trained on from ppo-4p's network (as ppo-5p and ppo-6p)
    three = evaluate(["ppo-3p", "balanced", "continent"], num_games=3, rules="fast", seed=1, workers=1, progress=False)
    assert sum(st.games for st in three.stats.values()) == 9 and type(load_agent("ppo-3p")).__name__ == "GraphNetAgent"
    # ppo-5p too, for 5 players (its file holds its training config and step count)
    from risk_env.train.graph_net import load_policy

    net, meta = load_policy(pretrained_path("ppo-5p"))
    assert meta["timesteps"] == 500_857 and meta["config"]["name"] == "ppo-5p" and meta["rules"]["num_players"] == 5
    assert net.sizes["hidden"] == 64 and "optimizer" not in meta
    # ppo-4p: the 0.1 release's ppo-4p (ppo-4p-0.1, a MaskablePPO file) trained on for 4 players by its shipped config,
    # the average of that run's checkpoints from 500,000 decisions on; ppo-4p-500k is that run's checkpoint at 500,525
    net, meta = load_policy(pretrained_path("ppo-4p"))
    assert meta["timesteps"] == 1_250_969 and meta["config"]["name"] == "ppo-4p" and meta["rules"]["num_players"] == 4
    assert meta["config"]["ppo"]["init"] == "ppo-4p-0.1" and meta["config"]["out_dir"] is None and "optimizer" not in meta
    assert meta["averaged_steps"] == [500_525, 626_556, 752_082, 875_889, 1_001_650, 1_125_511, 1_250_969]
    assert meta["config"]["checkpoint"]["average_from"] == 500_000
    assert load_policy(pretrained_path("ppo-4p-500k"))[1]["timesteps"] == 500_525
    # ppo-2p: the 0.1 release's ppo-2p (ppo-2p-0.1, a MaskablePPO file) trained on for 2 players by its shipped
    # config, the average of that run's eleven checkpoints from 250,000 decisions on
    net, meta = load_policy(pretrained_path("ppo-2p"))
    assert meta["timesteps"] == 1_502_868 and meta["config"]["name"] == "ppo-2p" and meta["rules"]["num_players"] == 2
    assert meta["config"]["ppo"]["init"] == "ppo-2p-0.1" and meta["averaged_steps"][0] == 254_010
    assert len(meta["averaged_steps"]) == 11 and meta["averaged_steps"][-1] == meta["timesteps"]
    assert type(load_agent("ppo-2p")).__name__ == "GraphNetAgent" and type(load_agent("ppo-2p-0.1")).__name__ != "GraphNetAgent"
    assert evaluate(["ppo-2p", "random"], num_games=4, rules="fast", seed=1, workers=1, progress=False).stats["ppo-2p"].wins >= 3
    assert type(load_agent("ppo-4p")).__name__ == "GraphNetAgent" and type(load_agent("ppo-4p-0.1")).__name__ != "GraphNetAgent"
    # ppo-6p: ppo-4p trained on for 6 players by its shipped config
    net, meta = load_policy(pretrained_path("ppo-6p"))
    assert meta["timesteps"] == 500_925 and meta["rules"]["num_players"] == 6 and meta["config"]["ppo"]["init"] == "ppo-4p-500k"
    six = evaluate(
        ["ppo-6p", "balanced", "balanced", "continent", "continent", "aggressive"],
        num_games=1,
        rules="fast",
        seed=1,
        workers=1,
        progress=False,
        turn_limit=30,
    )
    assert sum(st.games for st in six.stats.values()) == 6
    # every shipped policy file keeps its shipped config (configs/train/<name>.yaml; ppo-4p-500k: ppo-4p's, the run it
    # is a checkpoint of), its ppo.init naming the shipped network it started from by its name (ppo-3p, ppo-5p and
    # ppo-6p started from ppo-4p-500k)
    from risk_env.train.config import load_config

    for name in (n for n in PRETRAINED if pretrained_path(n).suffix == ".pt"):
        net, meta = load_policy(pretrained_path(name))
        assert meta["config"] == load_config(name.removesuffix("-500k")).model_dump(mode="json"), name
        assert meta["config"]["ppo"]["init"] in PRETRAINED, name
    # ... on the batched engine too, by name (every shipped name; a .pt is a graph policy file, not MaskablePPO's)
    for name in PRETRAINED:
        lockstep = evaluate([name, "balanced", "continent"], num_games=3, rules="fast", seed=1, backend="vector", progress=False)
        assert name in lockstep.stats and sum(st.games for st in lockstep.stats.values()) == 9
    # rules with other non-territory action ids (the expert dice rules: 7 more) are refused by name
    env = risk_env.env(num_players=2, preset="expert")
    env.reset(seed=1)
    obs, *_, info = env.last()
    with pytest.raises(ConfigError, match="scores 28 action ids besides the 42 territories; these rules have 35"):
        load_agent("ppo-2p-0.1").act(obs, info)
    # a policy file that kept its training rules names the switches behind the difference, on either backend (the
    # expert preset differs from fast in six switches; the two dice switches change the action ids)
    trained = "it was trained with reroll_with_card=False, die_to_six=False (these rules: reroll_with_card=True, die_to_six=True)"
    expert = Game(RulesConfig.from_preset("expert", num_players=4))
    with pytest.raises(
        AgentRulesError, match=re.escape("these rules have 35 (rule switches such as the") + ".*; " + re.escape(trained) + "$"
    ):
        load_agent("ppo-4p").check_game(expert)
    with pytest.raises(AgentRulesError, match=re.escape(trained) + "$"):
        risk_env.evaluate(["ppo-4p", "balanced"], num_games=1, rules="expert", backend="vector", progress=False)
    # the MaskablePPO files keep no rules: theirs come from their shipped training configs (a refusal named no switch)
    from risk_env.agents import MaskablePPOAgent, pretrained_rules

    for name in ("ppo-2p-0.1", "ppo-4p-0.1"):  # (the registry's copy of each shipped config's rules)
        assert pretrained_rules(name) == load_config(name).rules_config.to_dict(), name
    assert pretrained_rules("PPO-4P-0.1")["num_players"] == 4 and pretrained_rules("ppo-4p") is None  # type: ignore[index]
    for odd in (None, 3):  # (an AttributeError)
        with pytest.raises(UnknownAgentError, match="no pretrained agent"):
            pretrained_rules(odd)  # type: ignore[arg-type]
    for name in ("ppo-2p-0.1", "ppo-4p-0.1"):
        with pytest.raises(AgentRulesError, match=re.escape(trained) + "$"):
            load_agent(name).check_game(expert)
        for backend in ("vector", "reference"):
            with pytest.raises(AgentRulesError, match=f"^agent {name!r} cannot play these rules: .*" + re.escape(trained) + "$"):
                risk_env.evaluate([name, "balanced"], num_games=1, rules="expert", backend=backend, workers=1, progress=False)
    with pytest.raises(ConfigError, match="trained_rules is a mapping of rule switches"):
        MaskablePPOAgent(pretrained_path("ppo-2p-0.1"), trained_rules="fast")  # type: ignore[arg-type]
    # a switch that changes the card trade's action ids, alone
    no_cards = Game(RulesConfig.from_preset("fast", num_players=3, card_trade="no_cards"))
    with pytest.raises(
        AgentRulesError,
        match=re.escape("; it was trained with card_trade='escalating' (these rules: card_trade='no_cards')") + "$",
    ):
        load_agent("ppo-3p").check_game(no_cards)


def test_a_policy_file_is_labelled_as_its_agent_is_named(tmp_path) -> None:
    # (a table's label was "net.pt" where the agent and its errors say "net"; without the suffix, the whole path)
    from risk_env.train.graph_net import GraphNet, save_policy

    path = save_policy(tmp_path / "net.pt", GraphNet(20, 73, 28, hidden=4, rounds=1))
    for spec in (str(path), str(tmp_path / "net"), path):
        assert agent_label(spec) == "net" == load_agent(spec).name
    res = risk_env.evaluate([str(tmp_path / "net"), "random"], num_games=2, rules="fast", turn_limit=5, workers=1, progress=False)
    assert list(res.stats) == ["net", "random"]


_C4 = RulesConfig(num_players=4).to_dict()


@pytest.mark.parametrize(
    ("trained", "rules", "note"),
    [
        # (missions need the classic map: the training rules are judged as they were, not on this map)
        (
            {**_C4, "secret_missions": True},
            RulesConfig(map="small", card_trade="no_cards"),
            # (the missions add global features to the graph observation: a network of mission games reads them)
            "card_trade='escalating', secret_missions=True (these rules: card_trade='no_cards', secret_missions=False)",
        ),
        # (a 2-player duel's two-player rule does not exist at 3 players: left out)
        (
            {**_C4, "num_players": 2, "two_player": "none", "setup": "claim"},
            RulesConfig.from_preset("expert", num_players=3),
            "reroll_with_card=False, die_to_six=False (these rules: reroll_with_card=True, die_to_six=True)",
        ),
        # (stars cannot be set alone in the training rules, which trade once per trade: judged from these rules' side)
        (
            {**_C4, "territory_bonus": "once_per_trade"},
            RulesConfig(num_players=4, card_trade="stars"),
            "card_trade='escalating' (these rules: card_trade='stars')",
        ),
        # (a reroll needs cards: each judged from the side where it can be set alone)
        (
            {**_C4, "card_trade": "no_cards"},
            RulesConfig(num_players=4, reroll_with_card=True),
            "card_trade='no_cards', reroll_with_card=False (these rules: card_trade='escalating', reroll_with_card=True)",
        ),
        (_C4, RulesConfig(num_players=4, turn_limit=50), None),  # (no switch that changes the sizes)
        ({**_C4, "card_trade": "gold"}, RulesConfig(num_players=4, card_trade="no_cards"), None),  # (rules that do not resolve)
        ("classic", RulesConfig(num_players=4, card_trade="no_cards"), None),
    ],
)
def test_a_refusal_names_the_switches_that_change_what_the_network_reads(
    trained: object, rules: RulesConfig, note: str | None
) -> None:
    from risk_env.train.graph_net import trained_rules_note

    assert trained_rules_note(trained, rules) == ("" if note is None else f"; it was trained with {note}")


def _global_generators() -> tuple:
    import random

    import torch

    py, (kind, keys, pos, has_gauss, gauss), th = random.getstate(), np.random.get_state(), torch.get_rng_state()
    return py, (kind, keys.tobytes(), pos, has_gauss, gauss), th.numpy().tobytes()


def test_a_policy_agent_leaves_the_global_generators_alone() -> None:
    """Loading a MaskablePPO agent, seeding it and letting it act (sampling or not) never moves Python's, numpy's or
    torch's global generator (SB3 re-seeds them on load); a sampling agent's choices follow its own seed."""
    pytest.importorskip("sb3_contrib")
    import random

    import torch

    from risk_env.agents import pretrained_path
    from risk_env.agents.policy import MaskablePPOAgent

    random.seed(11)
    np.random.seed(11)
    torch.manual_seed(11)
    before = _global_generators()
    greedy = load_agent("ppo-2p-0.1", seed=3)
    assert _global_generators() == before
    env = risk_env.env(num_players=2, preset="fast")
    env.reset(seed=1)
    obs, *_, info = env.last()
    greedy.reset(seed=3)
    first = greedy.act(obs, info)
    assert [greedy.act(obs, info) for _ in range(3)] == [first] * 3 and obs["action_mask"][first]
    assert _global_generators() == before
    sampler = MaskablePPOAgent(pretrained_path("ppo-2p-0.1"), deterministic=False)
    assert _global_generators() == before

    def draws(seed: int) -> list[int]:
        sampler.reset(seed)  # a game's seed may be any size (a fresh one is 63-bit; the agents get seed * 1000 + seat)
        return [sampler.act(obs, info) for _ in range(40)]

    big = (2**63 - 1) * 1000 + 1
    a = draws(big)
    assert draws(big) == a and all(obs["action_mask"][x] for x in a)  # the same seed, the same choices
    assert len(set(a)) > 1  # it samples (many ids are legal at the first decision)
    assert draws(7) != a
    assert _global_generators() == before
    # the single-agent env's opponents and its pool's snapshots, built from specs, leave them alone too
    from risk_env.envs.opponents import OpponentPool
    from risk_env.envs.single_agent import RiskSingleAgentEnv

    for opponents in ("ppo-2p-0.1", OpponentPool(p_snapshot=1.0, snapshots=[str(pretrained_path("ppo-2p-0.1"))])):
        single = RiskSingleAgentEnv(opponents=opponents, learner_seat=1, turn_limit=30)
        _, sinfo = single.reset(seed=2)
        single.step(int(np.flatnonzero(sinfo["action_mask"])[0]))
        assert _global_generators() == before
    # a sampling snapshot is re-seeded from the env's generator each episode: the same seed, the same game
    games = []
    for _ in range(2):
        single = RiskSingleAgentEnv(opponents=OpponentPool(p_snapshot=1.0, snapshots=[str(pretrained_path("ppo-2p-0.1"))]))
        single.reset(seed=5, options={"learner_seat": 1})
        games.append(single.game_state.to_dict())
    assert games[0] == games[1]


def test_an_agent_without_its_view_is_told_what_it_is_and_what_to_pass() -> None:
    # (a learned policy's message called it "a scripted agent")
    pytest.importorskip("torch")
    e = risk_env.env(num_players=3, preset="fast")
    e.reset(seed=0)
    obs = e.last()[0]
    with pytest.raises(RiskError) as info:
        load_agent("ppo-3p").act(obs, None)
    assert str(info.value).startswith(
        "policy 'ppo-3p' (it reads graph observations, or builds them from a view) needs info['view'] (a "
        "risk_env.envs.view.GameView): pass the env's own info as env.last() returns it"
    )
    with pytest.raises(RiskError) as info:
        load_agent("balanced").act(obs, {})
    assert str(info.value).startswith("agent 'balanced' (a scripted agent: it plays from the view) needs info['view'] ")


def test_a_policy_of_other_rules_is_refused_before_the_game_starts() -> None:
    # (risk-env watch --rules expert --agents ppo-2p-0.1 showed the seats, then failed at the first decision)
    sb3c = pytest.importorskip("sb3_contrib")
    from risk_env.agents import MaskablePPOAgent
    from risk_env.envs.single_agent import RiskSingleAgentEnv
    from risk_env.tools.match import play_match

    fast, expert = Game(resolve_rules("fast", num_players=2)), Game(resolve_rules("expert", num_players=2))
    graph = load_agent("ppo-3p")  # (a GraphNetAgent: 28 ids besides the territories; expert dice make 35)
    sb3_graph = load_agent("ppo-2p-0.1")  # (a MaskablePPO graph model)
    flat = MaskablePPOAgent(sb3c.MaskablePPO("MlpPolicy", RiskSingleAgentEnv(num_players=2, preset="fast"), seed=0))
    for agent in (graph, sb3_graph, flat, load_agent("balanced")):
        agent.check_game(fast)  # (their own rules: nothing to refuse)
        for wrong in (None, fast.config, "fast"):  # (an AttributeError for the policies)
            with pytest.raises(ConfigError, match=r"^check_game takes a risk_env.Game \(risk_env.Game\(rules\), or "):
                agent.check_game(wrong)  # type: ignore[arg-type]
    check_fits_game([graph, sb3_graph, load_agent("random"), lambda obs, info: 0], Game(RulesConfig(num_players=6)))
    for agent in (graph, sb3_graph):
        with pytest.raises(AgentRulesError) as info:
            check_fits_game([load_agent("balanced"), agent], expert)
        # (the switches are named: a policy file keeps its training rules, a shipped .zip has its config's)
        reason = (
            "this graph policy scores 28 action ids besides the 42 territories; these rules have 35 (rule switches such "
            "as the dice rules or the card trade change that block): train a policy under these rules (or play it "
            "under the rules it was trained for); it was trained with reroll_with_card=False, die_to_six=False (these "
            "rules: reroll_with_card=True, die_to_six=True)"
        )
        assert str(info.value) == f"agent {agent.name!r} cannot play these rules: {reason}"
        assert (info.value.agent, info.value.reason) == (agent.name, reason)
        again = pickle.loads(pickle.dumps(info.value))  # (as a subprocess worker sends it back)
        assert type(again) is AgentRulesError and str(again) == str(info.value) and again.agent == agent.name
    n = flat.model.action_space.n
    with pytest.raises(AgentRulesError) as info:  # (a flat model: another player count changes the vector's length)
        flat.check_game(Game(resolve_rules("fast", num_players=3)))
    assert str(info.value).startswith(
        f"agent 'maskable_ppo' cannot play these rules: it reads observations of shape {flat._obs_shape} and scores {n} "
    )
    assert str(info.value).endswith(": it was trained for another map, number of players or rule switches")
    # the match runner refuses it before any agent is reset or any move is played
    env = risk_env.raw_env(num_players=2, preset="expert")
    before = graph.rng.bit_generator.state
    with pytest.raises(ConfigError, match="^agent 'ppo-3p' cannot play these rules: "):
        play_match(env, [load_agent("balanced"), graph], seed=1, agent_seeds=[1, 2])
    assert graph.rng.bit_generator.state == before


def test_the_single_agent_env_refuses_an_opponent_of_other_rules_before_its_episode() -> None:
    # (constructed and reset, it failed at the opponent's first decision, with a message not naming the agent)
    pytest.importorskip("torch")
    from risk_env.envs.opponents import OpponentPool
    from risk_env.envs.single_agent import RiskSingleAgentEnv

    with pytest.raises(AgentRulesError, match="^agent 'ppo-3p' cannot play these rules: this graph policy scores 28 "):
        RiskSingleAgentEnv(num_players=3, opponents=["balanced", "ppo-3p"], rules="expert")
    env = RiskSingleAgentEnv(num_players=3, opponents="balanced", rules="expert")
    fixed = env._fixed
    with pytest.raises(AgentRulesError):
        env.set_opponents("ppo-3p")
    with pytest.raises(ConfigError, match="^opponents must not be an empty list$"):
        env.set_opponents([])
    assert env._fixed is fixed and env.opponent_pool is None  # (the opponents as they were)
    env = RiskSingleAgentEnv(num_players=3, opponents="random", rules="expert")
    env.reset(seed=0)
    before = (env.state.to_dict(), env.seat, dict(env.opponents))  # type: ignore[union-attr]
    env.set_opponents(OpponentPool(("ppo-3p",), p_snapshot=0.0))
    with pytest.raises(AgentRulesError, match="^agent 'ppo-3p' cannot play these rules: "):
        env.reset(seed=1)  # (a pool's opponents: checked when drawn)
    assert (env.state.to_dict(), env.seat, dict(env.opponents)) == before  # type: ignore[union-attr]
    env = RiskSingleAgentEnv(num_players=3, opponents=OpponentPool(("ppo-3p", "random"), p_snapshot=0.0), preset="fast")
    env.reset(seed=0)  # (rules it plays)
    assert env.state is not None


def test_a_graph_policy_agent_pickles_and_plays_the_same_games_in_worker_processes() -> None:
    # (it held the torch module, so evaluate(..., workers=2) refused the object)
    import pickle

    from risk_env.tools.evaluation import evaluate

    agent = load_agent("ppo-3p")
    twin = pickle.loads(pickle.dumps(agent))
    assert type(twin).__name__ == "GraphNetAgent" and twin.name == "ppo-3p"
    kw = dict(num_games=3, rules="fast", seed=4, turn_limit=30, progress=False)
    here = evaluate([agent, "balanced", "continent"], workers=1, **kw)
    there = evaluate([agent, "balanced", "continent"], workers=2, **kw)
    assert [g.winner for g in here.games] == [g.winner for g in there.games]
    assert [(g.turns, g.steps, g.places) for g in here.games] == [(g.turns, g.steps, g.places) for g in there.games]


def test_check_fits_game_takes_a_collection_of_agents() -> None:
    # (one agent was a TypeError; text and None entries passed unchecked)
    game = Game(RulesConfig(num_players=2))
    agent = load_agent("ppo-3p")
    for bad, named in ((agent, "GraphNetAgent"), ("ppo-3p", "str 'ppo-3p'"), (None, "NoneType None"), (3, "int 3")):
        with pytest.raises(ConfigError, match=f"^check_fits_game takes a list of agents, got {named}"):
            check_fits_game(bad, game)
    for entry in (None, 3, "ppo-3p"):
        with pytest.raises(ConfigError, match=f"^entry 1 of the agents is not an agent: {entry!r} "):
            check_fits_game([agent, entry], game)
    check_fits_game({"a": agent, "b": lambda obs, info: 0}.values(), game)  # (a dict's values, a callable: fine)


def test_the_command_line_refuses_a_policy_of_other_rules_before_the_seats_are_shown() -> None:
    pytest.importorskip("typer")
    pytest.importorskip("torch")
    from typer.testing import CliRunner

    from risk_env.tools.cli import app

    for command in (["watch", "--show", "none"], ["play"]):
        r = CliRunner().invoke(app, [*command, "--rules", "stars", "--agents", "ppo-3p"], input="")
        assert r.exit_code == 2 and "seats:" not in r.output
        assert "agent 'ppo-3p' cannot play these rules: this graph policy scores 28 action ids" in r.output


def test_a_path_the_system_refuses_to_look_at_is_named_not_called_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    # (a model in a folder without permission was "no saved model at ...": the probe read the refusal as no file)
    import pathlib

    def refuse(self: pathlib.Path, *args: object, **kwargs: object) -> bool:
        if "locked" in str(self):
            raise PermissionError(13, "Permission denied")
        return False

    for probe in ("is_file", "is_dir", "exists"):
        monkeypatch.setattr(pathlib.Path, probe, refuse)
    for spec in ("locked/model.zip", "locked/policy.pt"):
        with pytest.raises(RiskError) as info:
            load_agent(spec)
        assert str(info.value) == f"cannot look for {spec!r}: Permission denied (a folder of the path)"
    with pytest.raises(UnknownAgentError):  # (a name that is no path is still an unknown agent)
        load_agent("balancd")


def test_both_evaluation_backends_refuse_a_policy_of_other_rules_first_and_name_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # (a round robin played and wrote its first pairs before the misfit's pair; the vector backend's messages did
    # not name the agent, or named its file)
    pytest.importorskip("torch")
    pytest.importorskip("openskill")
    from risk_env.tools.evaluation import evaluate, round_robin

    for backend in ("reference", "vector"):
        out = tmp_path / backend
        first = "balanced" if backend == "reference" else "random"  # (the batched heuristics play no stars trades)
        with pytest.raises(AgentRulesError) as info:
            round_robin(["random", first, "ppo-3p"], num_games=2, rules="stars", workers=1, progress=False,
                        out_dir=out, backend=backend)  # fmt: skip
        assert str(info.value).startswith("agent 'ppo-3p' cannot play these rules: this graph policy scores 28 ")
        assert not out.exists()
        with pytest.raises(AgentRulesError, match="^agent 'ppo-3p' cannot play these rules: "):  # (a path, not text)
            round_robin(["random", first, pretrained_path("ppo-3p")], num_games=2, rules="stars", workers=1,
                        progress=False, out_dir=out, backend=backend)  # fmt: skip
        assert not out.exists()
        for misfit in ("ppo-2p-0.1", "ppo-3p"):
            with pytest.raises(AgentRulesError, match=f"^agent '{misfit}' cannot play these rules: this graph policy "):
                evaluate(["random", misfit], num_games=2, rules="expert", workers=1, progress=False, backend=backend)


def test_a_refusal_under_the_switches_that_add_graph_features_names_them() -> None:
    # (the graph observation carries the blocks of the missions, capitals, the allied army and the defender's choice:
    # a network of the core features is refused under them, naming the switch, or, where it was trained under them
    # before the graph observation carried their blocks, saying so)
    from risk_env.envs.opponents import check_fits_game
    from risk_env.train.graph_net import GraphNet, check_plays

    allied = Game(RulesConfig.from_preset("allied"))
    for name in ("ppo-2p", "ppo-4p"):  # (a 4-player network too: the allied army is a rule of 2-player games)
        with pytest.raises(AgentRulesError, match=r"trained with two_player='neutral' \(these rules: two_player='allied'\)$"):
            check_fits_game([load_agent(name)], allied)
    choose = Game(RulesConfig.from_preset("fast", num_players=4, defender_dice="choose"))
    with pytest.raises(AgentRulesError, match=r"these rules give 20 and 74 .*defender_dice='choose'\)$"):
        check_fits_game([load_agent("ppo-4p")], choose)
    caps = RulesConfig.from_preset("fast", num_players=3, capitals=True)
    with pytest.raises(ConfigError, match=r"its training rules give 26 and 74 features today: the network was built before"):
        check_plays(GraphNet(20, 73, 28), Game(caps), caps.to_dict())
    check_plays(GraphNet(26, 74, 28), Game(caps), caps.to_dict())  # (one of today's layout plays)
