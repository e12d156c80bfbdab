"""Bad input raises a clear ``risk_env.errors`` exception and changes nothing.

Every kind of bad input to the public API is tried: action ids (illegal, out of
range, negative, float, str, bool, numpy float, ``None`` for a live agent), env
calls before ``reset`` and after the end, malformed move text, unknown rules
options and presets, out-of-range player counts and army numbers, broken map
files, and inconsistent state dicts. Each test checks

* the exception type (a :class:`risk_env.errors.RiskError`, so a ``ValueError``),
* that the message says what was wrong and what is allowed,
* that nothing changed: ``state.to_dict()`` before == after; for an env also the
  observation, the mask, ``agent_selection`` and the reward bookkeeping.
"""

from __future__ import annotations

import copy
import json
import logging

import numpy as np
import pytest
from helpers import build

import risk_env
from risk_env import ActionCodec, Game, Move, Phase, RulesConfig
from risk_env.envs.codec import Selection
from risk_env.envs.single_agent import RiskSingleAgentEnv
from risk_env.envs.wrappers import ClassicWrapper, StrictWrapper
from risk_env.errors import (
    ActionSpaceError,
    ConfigError,
    IllegalActionError,
    IllegalMoveError,
    InvalidMoveError,
    MapError,
    ResetNeededError,
    RiskError,
    StateError,
)
from risk_env.rules.map import load_map

SMALL = {"map": "small", "turn_limit": 30}


# ---------------------------------------------------------------- helpers


def env_snapshot(env) -> tuple:
    """Everything an agent can see of a (raw or wrapped) env, as comparable plain data."""
    raw = env.unwrapped
    agent = env.agent_selection
    obs = raw.observe(agent)
    return (
        json.dumps(raw.game_state.to_dict(), sort_keys=True),
        agent,
        list(env.agents),
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        raw.infos[agent]["action_mask"].tobytes(),
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        dict(raw.truncations),
    )


def advance_env(env, rng: np.random.Generator, until, limit: int = 20_000) -> None:
    """Step random legal ids until ``until(raw_env)`` holds for a live acting agent."""
    raw = env.unwrapped
    for _ in range(limit):
        agent = env.agent_selection
        if not (raw.terminations[agent] or raw.truncations[agent]) and until(raw):
            return
        if raw.terminations[agent] or raw.truncations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(raw.infos[agent]["action_mask"]))))
    raise AssertionError("position not reached")


def advance_state(
    game: Game, codec: ActionCodec, s, rng: np.random.Generator, until, limit: int = 20_000, sel: Selection | None = None
) -> None:
    """Step random legal ids on an engine state (with the codec selection ``sel``) until ``until(s)``."""
    sel = sel if sel is not None else Selection()
    for _ in range(limit):
        if until(s):
            return
        codec.step(s, int(rng.choice(np.flatnonzero(codec.mask(s, sel)))), sel)
    raise AssertionError("position not reached")


def state_json(s) -> str:
    return json.dumps(s.to_dict(), sort_keys=True)


def raises_unchanged(s, exc_type, call, *fragments: str) -> str:
    """Run ``call()``, expect ``exc_type`` with every fragment in the message, and ``s`` unchanged."""
    before = state_json(s)
    with pytest.raises(exc_type) as info:
        call()
    msg = str(info.value)
    for f in fragments:
        assert f in msg, f"{f!r} not in {msg!r}"
    assert isinstance(info.value, RiskError) and isinstance(info.value, ValueError)
    assert state_json(s) == before
    return msg


# ---------------------------------------------------------------- action ids in the env

BAD_IDS = [
    (70, "out of range"),
    (10**6, "out of range"),
    (-1, "out of range"),
    (2**63, "out of range"),
    (1.0, "integer id"),
    (np.float32(2.0), "integer id"),
    (np.float64(3.0), "integer id"),
    ("3", "integer id"),
    (True, "integer id"),
    (np.bool_(False), "integer id"),
    ([3], "integer id"),
]


@pytest.mark.parametrize("make", ["raw", "strict"])
@pytest.mark.parametrize("action,fragment", BAD_IDS, ids=[repr(a) for a, _ in BAD_IDS])
def test_strict_env_rejects_non_ids(make, action, fragment):
    env = risk_env.raw_env(num_players=3) if make == "raw" else risk_env.env(num_players=3, strict=True)
    env.reset(seed=1)
    advance_env(env, np.random.default_rng(0), lambda r: r.game_state.phase == Phase.ATTACK)
    before = env_snapshot(env)
    with pytest.raises(IllegalActionError) as info:
        env.step(action)
    msg = str(info.value)
    assert fragment in msg and "0..69" in msg, msg  # classic map: N = 42 + 28 = 70 ids
    assert env_snapshot(env) == before


@pytest.mark.parametrize("action", [a for a, _ in BAD_IDS] + [None], ids=[repr(a) for a, _ in BAD_IDS] + ["None"])
def test_wrapped_env_rejects_values_outside_the_action_space(action):
    """The wrapped env raises ActionSpaceError: an IllegalActionError (ValueError) and, as
    PettingZoo's AssertOutOfBoundsWrapper does, an AssertionError. The game goes on."""
    env = risk_env.env(num_players=3)
    env.reset(seed=2)
    advance_env(env, np.random.default_rng(1), lambda r: r.game_state.phase == Phase.FORTIFY)
    before = env_snapshot(env)
    with pytest.raises(ActionSpaceError) as info:
        env.step(action)
    assert isinstance(info.value, AssertionError) and isinstance(info.value, IllegalActionError)
    msg = str(info.value)
    assert "0..69" in msg and env.agent_selection in msg, msg
    if action is None:
        assert "None" in msg
    assert env_snapshot(env) == before
    # still playable: a legal id is accepted
    env.step(int(np.flatnonzero(env.unwrapped.infos[env.agent_selection]["action_mask"])[0]))


def test_a_0d_tensor_of_another_library_is_refused_with_the_library_error():
    # (a 0-d torch tensor raised "TypeError: len() of a 0-d tensor" while the refusal was being written)
    torch = pytest.importorskip("torch")
    for env in (risk_env.env(num_players=3), risk_env.raw_env(num_players=3)):
        env.reset(seed=1)
        before = env_snapshot(env)
        for action in (torch.tensor(0), torch.tensor(0.5)):
            with pytest.raises(IllegalActionError, match=r"got a 0-d Tensor \(give int\(action\), a Python int\)"):
                env.step(action)
        assert env_snapshot(env) == before
    single = RiskSingleAgentEnv(num_players=3)
    single.reset(seed=1)
    with pytest.raises(IllegalActionError, match=r"got a 0-d Tensor"):
        single.step(torch.tensor(1))


def test_none_for_a_live_agent_in_the_strict_env():
    env = risk_env.raw_env(num_players=4, setup="random")
    env.reset(seed=3)
    before = env_snapshot(env)
    msg = raises_unchanged(env.game_state, IllegalActionError, lambda: env.step(None), "must act", "not None", "0..69")
    assert env.agent_selection in msg
    assert env_snapshot(env) == before


@pytest.mark.parametrize("phase", [Phase.CLAIM, Phase.REINFORCE, Phase.ATTACK, Phase.FORTIFY, Phase.OCCUPY, Phase.DEFEND])
def test_illegal_id_strict_names_the_legal_ids(phase):
    env = risk_env.raw_env(num_players=3, setup="claim", defender_dice="choose")
    env.reset(seed=4)
    advance_env(env, np.random.default_rng(2), lambda r: r.game_state.phase == phase)
    mask = env.unwrapped.infos[env.agent_selection]["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    before = env_snapshot(env)
    for a in (int(illegal[0]), int(illegal[-1]), np.int64(illegal[len(illegal) // 2])):
        with pytest.raises(IllegalActionError) as info:
            env.step(a)
        msg = str(info.value)
        assert f"action {int(a)}" in msg and "Legal ids:" in msg and "illegal" in msg, msg
        assert phase.name.lower() in msg
        assert env_snapshot(env) == before


def test_illegal_id_wrapped_follows_pettingzoo_convention(caplog):
    """env(): an in-range id the mask forbids ends the game (PettingZoo's
    TerminateIllegalWrapper): the offender gets -1, the others 0, every agent is
    terminated and truncated, and the board is untouched."""
    env = risk_env.env(num_players=3, setup="random")
    env.reset(seed=5)
    advance_env(env, np.random.default_rng(3), lambda r: r.game_state.phase == Phase.ATTACK)
    offender = env.agent_selection
    board = state_json(env.unwrapped.game_state)
    illegal = int(np.flatnonzero(env.unwrapped.infos[offender]["action_mask"] == 0)[0])
    with caplog.at_level(logging.WARNING):
        env.step(illegal)
    assert state_json(env.unwrapped.game_state) == board
    got = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term and trunc
        got[agent] = reward
        with pytest.raises(IllegalActionError, match="step it with None"):
            env.step(0)  # a done agent only steps with None
        env.step(None)
    assert got == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert env.agents == []


# ---------------------------------------------------------------- reset order and the end of a game


MAKERS = {
    "raw": risk_env.raw_env,
    "wrapped": risk_env.env,
    "strict": lambda **kw: risk_env.env(strict=True, **kw),
}


@pytest.mark.parametrize("make", list(MAKERS))
def test_calls_before_reset(make):
    """Every form refuses each call before reset() with ResetNeededError (not PettingZoo's bare
    AssertionError or AttributeError), naming the call (docs/reliability.md)."""
    env = MAKERS[make](num_players=2, render_mode="ansi")
    for call, name in (
        (lambda: env.step(0), "step"),
        (lambda: env.step(None), "step"),
        (lambda: env.observe("player_0"), "observe"),
        (lambda: env.last(), "last"),
        (lambda: env.state(), "state"),
        (lambda: env.render(), "render"),
        (lambda: env.agent_iter(), "agent_iter"),
    ):
        with pytest.raises(ResetNeededError) as info:
            call()
        assert type(info.value) is ResetNeededError
        assert isinstance(info.value, ValueError) and isinstance(info.value, AssertionError)
        assert str(info.value) == f"no game in progress: call reset() before {name}()"
    assert env.unwrapped.game_state is None
    env.reset(seed=0)  # and it still works afterwards
    assert env.unwrapped.game_state.phase == Phase.SETUP_PLACE  # 2 players: the cards are dealt (docs/rules.md §7)
    assert env.render().startswith("North America (+5)\n") and env.last()[0]["action_mask"].any()


@pytest.mark.parametrize("make", ["wrapped", "strict"])
def test_wrapped_render_before_reset_without_a_render_mode(make):
    """The wrapped forms refuse render() before reset() whatever the render_mode (PettingZoo's order check)."""
    env = MAKERS[make](num_players=2)
    with pytest.raises(ResetNeededError, match=r"^no game in progress: call reset\(\) before render\(\)$"):
        env.render()


def _finish(env, seed: int) -> None:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("eliminated", ["remove", "stay"])
@pytest.mark.parametrize("make", list(MAKERS))
def test_last_after_the_end(make, eliminated):
    """last() once every agent has left the finished game is ResetNeededError (was PettingZoo's KeyError)."""
    env = MAKERS[make](num_players=2, setup="random", map="small", turn_limit=3, eliminated=eliminated)
    _finish(env, 1)
    raw = env.unwrapped
    assert raw.game_state.phase == Phase.GAME_OVER and env.agents == []
    for observe in (True, False):
        msg = raises_unchanged(raw.game_state, ResetNeededError, lambda o=observe: env.last(o))
        assert msg == "the game is over and every agent has left it: call reset() to start a new game"
    assert env.agents == [] and raw._cumulative_rewards == {}
    env.reset(seed=1)
    assert env.agents == env.possible_agents and env.last()[1:4] == (0.0, False, False)


def test_step_after_the_end_raw():
    env = risk_env.raw_env(num_players=3, setup="random", **SMALL)
    _finish(env, 6)
    s = env.game_state
    assert s.phase == Phase.GAME_OVER and env.agents == []
    for action in (0, None, 5):
        raises_unchanged(s, ResetNeededError, lambda a=action: env.step(a), "game is over", "reset()")
    env.reset(seed=6)
    assert env.agents == env.possible_agents


def test_dead_agent_must_step_with_none_raw():
    env = risk_env.raw_env(num_players=2, setup="random", map="small", turn_limit=1)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    while not any(env.truncations.values()):
        env.step(int(rng.choice(np.flatnonzero(env.infos[env.agent_selection]["action_mask"]))))
    before = env_snapshot(env)
    msg = raises_unchanged(env.game_state, IllegalActionError, lambda: env.step(3), "truncated", "step it with None")
    assert env.agent_selection in msg
    assert env_snapshot(env) == before


def test_step_after_the_end_wrapped_warns_and_changes_nothing(caplog):
    """env() keeps PettingZoo's convention for a step after every agent is done: a warning, no change."""
    env = risk_env.env(num_players=2, setup="random", **SMALL)
    _finish(env, 8)
    board = state_json(env.unwrapped.game_state)
    with caplog.at_level(logging.WARNING):
        env.step(0)
    assert "step() called after all agents are terminated or truncated" in caplog.text
    assert state_json(env.unwrapped.game_state) == board and env.agents == []


def test_engine_refuses_moves_after_the_end():
    game = Game(RulesConfig(num_players=2, setup="random", **SMALL))
    codec = ActionCodec(game)
    s = game.new_game(9)
    advance_state(game, codec, s, np.random.default_rng(9), lambda s: s.phase == Phase.GAME_OVER)
    raises_unchanged(s, IllegalActionError, lambda: codec.step(s, 0), "game is over")
    raises_unchanged(s, IllegalMoveError, lambda: game.apply(s, Move.end_turn()), "the game is over", "Allowed now: nothing")
    assert game.legal_moves(s) == [] and not codec.mask(s).any()


# ---------------------------------------------------------------- moves in the engine


@pytest.fixture(scope="module")
def classic3() -> Game:
    return Game(RulesConfig(num_players=3, setup="random"))


def test_illegal_moves_say_why_and_what_is_allowed(classic3):
    g = classic3
    s = g.new_game(10)
    p = s.player
    mine = int(np.flatnonzero(s.owner == p)[0])
    theirs = int(np.flatnonzero(s.owner != p)[0])
    cases = [
        (Move.place(theirs, 1), "is not yours", "Allowed now: 'trade"),
        (Move.place(mine, 0), f"place 1..{s.to_place}", "reinforce phase"),
        (Move.place(mine, s.to_place + 1), f"you have {s.to_place} armies to place", "Allowed now"),
        (Move.place(mine, -3), f"place 1..{s.to_place}", "Allowed now"),
        (Move.place(99, 1), "territory id 99 is not in 0..41", "Allowed now"),
        (Move.place(-1, 1), "territory id -1 is not in 0..41", "Allowed now"),
        (Move.end_attack(), "not attacking", "reinforce phase"),
        (Move.attack(mine, theirs, 1), "attacks happen only in the attack phase", "Allowed now"),
        (Move.occupy(3), "no conquest awaits an occupation", "Allowed now"),
        (Move.defend(1), "no attack awaits a defence", "Allowed now"),
        (Move.claim(mine), "claims happen only in the claim phase", "Allowed now"),
        (Move.trade((0, 1, 2)), "a trade names three different cards from your hand (no cards)", "Allowed now"),
        (Move.end_turn(), "the turn ends from the fortify phase", "Allowed now"),
        ("place Alaska 3", "expected a Move, got str", ""),
    ]
    for move, why, allowed in cases:
        raises_unchanged(s, IllegalMoveError, lambda m=move: g.apply(s, m), why, allowed)
        assert not g.is_legal(s, move) if isinstance(move, Move) else True


def test_illegal_army_numbers_in_attack_occupy_fortify(classic3):
    g = classic3
    codec = ActionCodec(g)
    rng = np.random.default_rng(11)
    s = g.new_game(11)
    sel = Selection()
    advance_state(g, codec, s, rng, lambda s: s.phase == Phase.ATTACK and sel.empty and codec.mask(s, sel)[: g.T].any(), sel=sel)
    a = int(np.flatnonzero(codec.mask(s)[: g.T])[0])
    b = g.attack_targets(s, a)[0]
    most = min(3, int(s.armies[a]) - 1)
    for dice in (0, most + 1, 4, -1):
        raises_unchanged(s, IllegalMoveError, lambda d=dice: g.apply(s, Move.attack(a, b, d)), f"roll 1..{most} dice")
    raises_unchanged(
        s,
        IllegalMoveError,
        lambda: g.apply(s, Move.attack(a, a, 1)),
        "is yours" if g.adjacency[a, a] else "do not share a border",
    )
    advance_state(g, codec, s, rng, lambda s: s.phase == Phase.OCCUPY, sel=sel)
    lo, hi = g.occupy_range(s)
    for n in (lo - 1, hi + 1, 0, -5):
        raises_unchanged(s, IllegalMoveError, lambda k=n: g.apply(s, Move.occupy(k)), f"move {lo}..{hi} armies into")
    advance_state(g, codec, s, rng, lambda s: s.phase == Phase.FORTIFY and sel.empty and codec.mask(s, sel)[: g.T].any(), sel=sel)
    a = int(np.flatnonzero(codec.mask(s)[: g.T])[0])
    b = int(np.flatnonzero(g.fortify_reach(s, a))[0])
    most = int(s.armies[a]) - 1
    for n in (0, most + 1, -1):
        raises_unchanged(
            s, IllegalMoveError, lambda k=n: g.apply(s, Move.fortify(a, b, k)), f"move 1..{most} armies (one must stay)"
        )


MALFORMED = [
    ("", "it must start with one of claim, place"),
    ("fly Alaska", "it must start with one of claim, place"),
    ("place Atlantis 3", "unknown territory 'Atlantis'"),
    ("place Alaska three", "armies must be a whole number, got 'three'"),
    ("attack Alaska Kamchatka dice=3", "expected '<territory>-><territory>'"),
    ("attack Alaska->Kamchatka dice=x", "dice must be a whole number"),
    ("blitz Alaska->Kamchatka dice=2", "blitz takes no dice count"),
    ("defend 2", "write 'defend dice=1' or 'defend dice=2'"),
    ("trade Alaska, Peru", "a trade names 3 cards, got 2"),
    ("trade Alaska, Peru, Wild 9", "this map has 2 wild cards"),
    ("trade Alaska, Peru, Wild x", "write 'Wild 1'..'Wild 2'"),
    ("occupy", "armies must be a whole number"),
    ("end game", "it must start with one of"),
    ("fortify Alaska->Alberta", "expected '<territory>-><territory>'"),
    ("claim Alsaka", "did you mean Alaska"),
]


@pytest.mark.parametrize("text,fragment", MALFORMED)
def test_malformed_move_text(classic3, text, fragment):
    s = classic3.new_game(12)
    msg = raises_unchanged(s, InvalidMoveError, lambda: classic3.parse_move(s, text), f"cannot read move {text!r}", fragment)
    assert msg


@pytest.mark.parametrize("text", [None, 3, b"claim Alaska", ["claim", "Alaska"]])
def test_move_text_must_be_a_str(classic3, text):
    s = classic3.new_game(13)
    raises_unchanged(s, InvalidMoveError, lambda: classic3.parse_move(s, text), "a move text must be a str")


# ---------------------------------------------------------------- rules options, presets, numbers

ALLOWED_OPTIONS = "allowed: num_players, map, setup, two_player"


@pytest.mark.parametrize(
    "make",
    [
        lambda: RulesConfig(bogus=1),
        lambda: RulesConfig.from_dict({"num_players": 3, "fortfy": "connected"}),
        lambda: RulesConfig().replace(turnlimit=5),
        lambda: RulesConfig.from_preset("fast", dice="max"),
        lambda: Game(num_players=3, colour="red"),
        lambda: risk_env.env(num_players=3, bogus=1),
        lambda: risk_env.raw_env(setup="random", turnlimit=9),
    ],
)
def test_unknown_rules_option(make):
    with pytest.raises(ConfigError) as info:
        make()
    assert "unknown rules option(s)" in str(info.value) and ALLOWED_OPTIONS in str(info.value)


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda: risk_env.raw_env(num_players=2, turn_feature="x"), "turn_feature must be True, False or None, got 'x'"),
        (lambda: risk_env.env(num_players=2, turn_feature="x"), "turn_feature must be True, False or None, got 'x'"),
        (lambda: risk_env.env(num_players=2, turn_feature=1), "turn_feature must be True, False or None, got 1"),
        (
            lambda: risk_env.env(num_players=2, turn_feature=np.bool_(True)),
            f"turn_feature must be True, False or None, got {np.bool_(True)!r}",
        ),
        (lambda: risk_env.env(num_players=2, strict="yes"), "strict must be True or False, got 'yes'"),
        (lambda: risk_env.env(num_players=2, strict=1), "strict must be True or False, got 1"),
        (lambda: risk_env.env(num_players=2, strict=None), "strict must be True or False, got None"),
        (lambda: risk_env.env(num_players=2, views="no"), "views must be True or False, got 'no'"),
        (
            lambda: RiskSingleAgentEnv(turn_feature="x"),
            "turn_feature must be True, False or None, got 'x'",
        ),
        (lambda: RiskSingleAgentEnv(turn_feature=0), "turn_feature must be True, False or None, got 0"),
    ],
)
def test_env_flags_are_true_or_false(make, message):
    """The AEC and single-agent envs refuse a flag that is not a bool, as VectorEnv does."""
    with pytest.raises(ConfigError) as info:
        make()
    assert type(info.value) is ConfigError and str(info.value) == message


@pytest.mark.parametrize("turn_feature,shown", [(None, True), (True, True), (False, False)])
def test_env_flags_that_are_accepted(turn_feature, shown):
    assert risk_env.env(num_players=2, turn_feature=turn_feature).unwrapped.turn_feature is shown
    graph = risk_env.raw_env(num_players=2, observation="graph", turn_feature=turn_feature)
    assert graph.turn_feature is (turn_feature is True)  # the graph observation's default is False
    assert RiskSingleAgentEnv(turn_feature=turn_feature).turn_feature is shown
    assert type(risk_env.env(num_players=2, strict=True)) is StrictWrapper
    assert type(risk_env.env(num_players=2, strict=False)) is ClassicWrapper


@pytest.mark.parametrize(
    "make",
    [
        lambda: RulesConfig.from_preset("blitzkrieg"),
        lambda: risk_env.env(preset="blitzkrieg"),
        lambda: risk_env.raw_env(num_players=2, preset="Classic"),
    ],
)
def test_unknown_preset(make):
    with pytest.raises(ConfigError) as info:
        make()
    assert "unknown rules preset" in str(info.value)
    assert "presets: classic, fast, tournament, expert, duel" in str(info.value)


@pytest.mark.parametrize(
    "kw,fragment",
    [
        ({"setup": "draft"}, "setup='draft' is not allowed; choose one of: claim, deal, random"),
        ({"card_trade": "none"}, "choose one of: escalating, escalating_reset"),
        ({"defender_dice": 2}, "defender_dice=2 is not allowed; choose one of: max, choose"),
        ({"fortify": None}, "choose one of: adjacent, connected"),
        ({"truncation_reward": "win"}, "choose one of: draw, rank"),
        ({"two_player": "bot"}, "choose one of: neutral, none"),
        ({"territory_bonus": "always"}, "choose one of: once_per_turn, once_per_trade"),
        ({"map": ""}, "map must be a map name or a path to a map file"),
    ],
)
def test_unknown_option_values(kw, fragment):
    with pytest.raises(ConfigError) as info:
        RulesConfig(**kw)
    assert fragment in str(info.value)
    with pytest.raises(ConfigError):
        risk_env.env(num_players=3, **kw)


@pytest.mark.parametrize(
    "kw,fragment",
    [
        ({"num_players": 1}, "num_players must be an integer from 2 to 6, got 1"),
        ({"num_players": 7}, "num_players must be an integer from 2 to 6, got 7"),
        ({"num_players": 0}, "from 2 to 6, got 0"),
        ({"num_players": -3}, "from 2 to 6, got -3"),
        ({"num_players": 3.0}, "from 2 to 6, got 3.0"),
        ({"num_players": "4"}, "from 2 to 6, got '4'"),
        ({"num_players": True}, "from 2 to 6, got True"),
        ({"starting_armies": 0}, "starting_armies must be an integer from 1 to 10000, got 0"),
        ({"starting_armies": -10}, "from 1 to 10000, got -10"),
        ({"starting_armies": 10_001}, "from 1 to 10000, got 10001"),
        ({"starting_armies": 20.5}, "from 1 to 10000, got 20.5"),
        ({"elimination_trade_at": 4}, "elimination_trade_at must be an integer from 5 to 100, got 4"),
        ({"turn_limit": 0}, "turn_limit must be an integer from 1 to 10000000, got 0"),
        ({"turn_limit": -1}, "from 1 to 10000000, got -1"),
        ({"turn_limit": "100"}, "got '100'"),
        ({"turn_limit": int(1e30)}, "from 1 to 10000000, got 1e+30"),  # (a config's 1e30 read as an integer, in short)
        ({"turn_limit": 99999999999999999999}, "from 1 to 10000000, got 99999999999999999999"),  # (digits as typed)
        ({"turn_limit": 2**60}, "from 1 to 10000000, got 1152921504606846976"),  # (no short form is its value)
        ({"turn_limit": 10_000_001}, "from 1 to 10000000, got 10000001"),
    ],
)
def test_out_of_range_numbers(kw, fragment):
    for make in (lambda: RulesConfig(**kw), lambda: Game(**kw), lambda: risk_env.env(**kw)):
        with pytest.raises(ConfigError) as info:
            make()
        assert fragment in str(info.value)


@pytest.mark.parametrize("players", [1, 7, 100])
def test_out_of_range_player_count_with_a_preset(players):
    with pytest.raises(ConfigError, match=f"num_players must be an integer from 2 to 6, got {players}"):
        risk_env.env(num_players=players, preset="fast")


def test_too_few_starting_armies_for_the_map():
    with pytest.raises(ConfigError) as info:
        Game(num_players=3, starting_armies=10)
    msg = str(info.value)
    assert "cannot claim the 42 territories of map 'classic'" in msg and "raise starting_armies to at least 14" in msg


def test_a_map_with_fewer_territories_than_seats_is_refused(tmp_path):
    # (a seat without a territory had no legal move: reset crashed in the random deal, or a game stalled on an
    # all-zero mask; the engines, the env and the trainers' rules check all build this Game)
    three = {
        "name": "three",
        "continents": [{"name": "C0", "bonus": 2}],
        "territories": [
            {"name": f"T{i}", "continent": "C0", "card": c} for i, c in enumerate(("infantry", "cavalry", "artillery"))
        ],
        "borders": [["T0", "T1"], ["T1", "T2"]],
        "wild_cards": 2,
    }
    path = tmp_path / "three.json"
    path.write_text(json.dumps(three))
    for setup in ("random", "deal", "claim"):
        with pytest.raises(ConfigError) as info:
            risk_env.env(num_players=4, map=str(path), setup=setup)
        assert str(info.value) == (
            "map 'three' has 3 territories, too few for 4 seats (4 players): each seat starts with a territory, so the "
            "map needs at least 4 (or play fewer players)"
        )
    assert Game(num_players=3, map=str(path)).num_seats == 3  # (one territory each)
    assert Game(num_players=2, map=str(path)).num_seats == 3  # (the neutral holds the third)
    game = Game(num_players=3, map=str(path), setup="random")
    state = game.new_game(0)
    assert sorted(int(o) for o in state.owner) == [0, 1, 2]


def test_rules_and_preset_together():
    with pytest.raises(ConfigError, match="give either rules= or preset=, not both"):
        risk_env.env(rules=RulesConfig(), preset="fast")


def test_unsupported_render_mode():
    with pytest.raises(
        ConfigError, match=r"render_mode='video' is not supported; choose one of \['ansi', 'human', 'rgb_array'\]"
    ):
        risk_env.raw_env(render_mode="video")


def test_preset_and_rules_keep_their_player_count():
    """A preset's or a RulesConfig's player count is kept unless num_players is given."""
    assert risk_env.env(preset="duel").unwrapped.rules.num_players == 2
    assert risk_env.raw_env(rules=RulesConfig(num_players=3)).rules.num_players == 3
    assert risk_env.raw_env(rules=RulesConfig(num_players=3), num_players=5).rules.num_players == 5
    assert risk_env.raw_env().rules.num_players == 4


# ---------------------------------------------------------------- broken map files


def _small_map_dict() -> dict:
    return load_map("small").to_dict()


def _broken(kind: str) -> tuple[str | dict, str]:
    d = _small_map_dict()
    names = [t["name"] for t in d["territories"]]
    if kind == "missing_key":
        del d["borders"]
        return d, "missing key 'borders'"
    if kind == "unknown_continent":
        d["territories"][0]["continent"] = "Atlantis"
        return d, f"territory {names[0]!r} is in unknown continent 'Atlantis' (continents: "
    if kind == "unknown_border":
        d["borders"].append([names[0], "Nowhere"])
        return d, "names unknown territory 'Nowhere'"
    if kind == "self_border":
        d["borders"].append([names[1], names[1]])
        return d, f"joins {names[1]!r} to itself"
    if kind == "duplicate_border":
        a, b = d["borders"][0]
        d["borders"].append([b, a])
        return d, f"duplicate border {b!r} - {a!r}"
    if kind == "disconnected":
        cut = names[-1]
        d["borders"] = [x for x in d["borders"] if cut not in x]
        return d, f"the borders do not connect every territory; unreachable from {names[0]!r}: {cut}"
    if kind == "duplicate_name":
        d["territories"][1]["name"] = names[0]
        return d, f"duplicate territory name {names[0]!r}"
    if kind == "bad_symbol":
        d["territories"][0]["card"] = "tank"
        return d, "card symbol 'tank'; allowed: infantry, cavalry, artillery"
    if kind == "negative_bonus":
        d["continents"][0]["bonus"] = -2
        return d, "has a negative bonus -2"
    if kind == "bad_wilds":
        d["wild_cards"] = -1
        return d, "'wild_cards' must be an integer from 0 to 100, got -1"
    if kind == "wrong_type":
        d["territories"] = "Alaska"
        return d, "'territories' must be list, got str"
    if kind == "not_json":
        return "{ not json", "is not valid JSON: "
    if kind == "not_object":
        return "[1, 2, 3]", "a map must be a JSON object, got list"
    raise KeyError(kind)


MAP_KINDS = [
    "missing_key",
    "unknown_continent",
    "unknown_border",
    "self_border",
    "duplicate_border",
    "disconnected",
    "duplicate_name",
    "bad_symbol",
    "negative_bonus",
    "bad_wilds",
    "wrong_type",
    "not_json",
    "not_object",
]


@pytest.mark.parametrize("kind", MAP_KINDS)
def test_broken_map_file(tmp_path, kind):
    content, fragment = _broken(kind)
    path = tmp_path / f"{kind}.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    for make in (
        lambda: load_map(str(path)),
        lambda: Game(num_players=3, map=str(path)),
        lambda: risk_env.env(num_players=2, map=str(path)),
    ):
        with pytest.raises(MapError) as info:
            make()
        assert fragment in str(info.value), str(info.value)


def test_missing_map_file_and_unknown_map_name(tmp_path):
    with pytest.raises(MapError, match="cannot read map file"):
        load_map(str(tmp_path / "nope.json"))
    with pytest.raises(
        MapError, match=r"unknown map 'atlantis'; shipped maps: classic, small \(or give a path to a \.json file\)"
    ):
        risk_env.env(map="atlantis")


def test_a_valid_copy_of_a_map_file_loads(tmp_path):
    """The broken-map tests start from a valid file: the unbroken copy loads."""
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(_small_map_dict()), encoding="utf-8")
    assert Game(num_players=3, map=str(path)).T == 9


# ---------------------------------------------------------------- inconsistent state dicts


@pytest.fixture(scope="module")
def midgame() -> tuple[Game, dict]:
    """A classic 3-player game in its attack phase, cards in hands, deck and discards."""
    g = Game(RulesConfig(num_players=3, setup="random"))
    codec = ActionCodec(g)
    s = g.new_game(14)
    sel = Selection()
    advance_state(
        g,
        codec,
        s,
        np.random.default_rng(14),
        lambda s: s.phase == Phase.ATTACK and s.discard and sum(map(len, s.hands)) >= 2 and sel.empty,
        sel=sel,
    )
    return g, s.to_dict()


def _corrupt(g: Game, d: dict, kind: str) -> tuple[dict, str]:
    d = copy.deepcopy(d)
    T = g.T
    p = d["player"]
    mine = next(t for t in range(T) if d["owner"][t] == p)
    holder = next(i for i, h in enumerate(d["hands"]) if h)
    if kind == "armies_zero":
        d["armies"][mine] = 0
        return d, f"territories with fewer than 1 army: {g.map.name_of(mine)}"
    if kind == "armies_negative":
        d["armies"][3] = -4
        return d, f"territories with fewer than 1 army: {g.map.name_of(3)}"
    if kind == "armies_overflow":
        d["armies"][0] = 2**40
        return d, "'armies' holds 1099511627776, beyond the 1000000000 armies"
    if kind == "card_duplicated":
        d["deck"].append(d["hands"][holder][0])
        return d, "cards not accounted for: draw pile + discards + hands must be each of the 44 cards once"
    if kind == "card_lost":
        d["discard"].pop()
        return d, "cards not accounted for"
    if kind == "unknown_card":
        d["hands"][holder][0] = 99
        return d, "must be each of the 44 cards once"
    if kind == "unknown_owner":
        d["owner"][5] = 7
        return d, "an owner is not a seat: owners are 0..2"
    if kind == "owner_overflow":
        d["owner"][5] = 300
        return d, "an owner is not a seat"
    if kind == "unclaimed_after_setup":
        d["owner"][5] = -1
        return d, "unclaimed territories after the claim phase"
    if kind == "unknown_battle_territory":
        d["att_dst"] = -7
        return d, "att_dst=-7 is not a territory id"
    if kind == "occupy_without_battle":
        d["phase"] = int(Phase.OCCUPY)
        d["att_src"] = d["att_dst"] = -1
        return d, "the occupy phase needs a pending battle"
    if kind == "unknown_phase":
        d["phase"] = 42
        return d, "unknown phase 42"
    if kind == "player_not_a_seat":
        d["player"] = 9
        return d, "player on turn 9 is not a live seat"
    if kind == "dice_face":
        d["dice_buf"] = [1, 7, 3]
        return d, "dice faces must be 1..6"
    if kind == "roll_without_separator":  # (was accepted, then render() failed on it: ValueError)
        d["last_roll"] = [6, 6]
        return d, "last_roll=[6, 6] must be [] (no roll yet) or 1..3 attacker faces, 0, then 1..2 defender faces"
    if kind == "roll_without_faces":
        d["last_roll"] = [0, 0, 0]
        return d, "last_roll=[0, 0, 0] must be []"
    if kind == "roll_too_many_defender_faces":
        d["last_roll"] = [1, 0, 2, 2, 2]
        return d, "1..2 defender faces"
    if kind == "owner_too_short":
        d["owner"] = d["owner"][:-1]
        return d, "'owner' must hold 42 entries (one per territory of map 'classic'), got 41"
    if kind == "armies_too_long":
        d["armies"] = d["armies"] + [1]
        return d, "'armies' must hold 42 entries (one per territory of map 'classic'), got 43"
    if kind == "hands_wrong_count":
        d["hands"] = d["hands"] + [[]]
        return d, "'hands' must hold 3 hands (one per player), got 4"
    if kind == "order_not_permutation":
        d["order"] = [0, 0, 1]
        return d, "alive, hands and order must describe 3 players"
    if kind == "setup_left_wrong_length":
        d["setup_left"] = [0]
        return d, "setup_left must hold 4 counts >= 0"
    if kind == "negative_to_place":
        d["to_place"] = -2
        return d, "to_place=-2 must be in 0..1000000000"
    if kind == "dead_player_with_territories":
        d["alive"][(p + 1) % 3] = False
        return d, f"player {(p + 1) % 3} is dead but holds some territories"
    if kind == "bad_rng":
        d["rng"] = {"bit_generator": "MT19937", "state": {}}
        return d, "'rng' must be a PCG64 state {'bit_generator': 'PCG64'"
    if kind == "rng_garbage":
        d["rng"] = {"bit_generator": "PCG64", "state": "zzz"}
        return d, "malformed state dict"
    if kind == "field_wrong_type":
        d["deck"] = "12,13"
        return d, "'deck' must be a list, got '12,13' (str)"
    if kind == "field_not_a_number":
        d["turn"] = "three"
        return d, "'turn' must be an integer, got 'three' (str)"
    if kind == "not_a_dict":
        return [1, 2, 3], "malformed state dict"  # type: ignore[return-value]
    if kind.startswith("missing:"):
        key = kind.partition(":")[2]
        del d[key]
        return d, f"malformed state dict: missing field {key!r}"
    raise KeyError(kind)


STATE_KINDS = [
    "roll_without_separator",
    "roll_without_faces",
    "roll_too_many_defender_faces",
    "armies_zero",
    "armies_negative",
    "armies_overflow",
    "card_duplicated",
    "card_lost",
    "unknown_card",
    "unknown_owner",
    "owner_overflow",
    "unclaimed_after_setup",
    "unknown_battle_territory",
    "occupy_without_battle",
    "unknown_phase",
    "player_not_a_seat",
    "dice_face",
    "owner_too_short",
    "armies_too_long",
    "hands_wrong_count",
    "order_not_permutation",
    "setup_left_wrong_length",
    "negative_to_place",
    "dead_player_with_territories",
    "bad_rng",
    "rng_garbage",
    "field_wrong_type",
    "field_not_a_number",
    "not_a_dict",
]


@pytest.mark.parametrize("kind", STATE_KINDS)
def test_inconsistent_state_dict(midgame, kind):
    g, good = midgame
    before = json.dumps(good, sort_keys=True)
    bad, fragment = _corrupt(g, good, kind)
    bad_before = json.dumps(bad, sort_keys=True)
    with pytest.raises(StateError) as info:
        g.state_from_dict(bad)
    assert fragment in str(info.value), str(info.value)
    assert json.dumps(bad, sort_keys=True) == bad_before  # the input is not modified
    assert json.dumps(good, sort_keys=True) == before
    g.state_from_dict(good)  # the uncorrupted dict still loads


def test_every_missing_key_is_named(midgame):
    g, good = midgame
    for key in good:
        bad, fragment = _corrupt(g, good, f"missing:{key}")
        with pytest.raises(StateError) as info:
            g.state_from_dict(bad)
        assert fragment in str(info.value)


def test_state_from_dict_round_trip_of_the_fixture(midgame):
    g, good = midgame
    assert g.state_from_dict(json.loads(json.dumps(good))).to_dict() == good


def test_older_state_dicts_with_a_codec_selection_still_load(midgame):
    """Dicts written before the selection moved into the codec carry sel_src/sel_dst/sel_trade:
    the keys are ignored (even out-of-range values), and the state loads with nothing selected."""
    g, good = midgame
    old = {**good, "sel_src": 3, "sel_dst": g.T + 9, "sel_trade": 40}
    s = g.state_from_dict(old)
    assert s.to_dict() == good and "sel_src" not in s.to_dict()
    assert s == g.state_from_dict(good)


# ---------------------------------------------------------------- the codec's one judge: the mask


def test_codec_rejects_say_why_with_the_rules_reason(classic3):
    """An id the mask refuses raises IllegalActionError naming the reason; when the id
    names a complete move the reason is the rules' own (Game.check), and neither the
    state nor the selection changes."""
    g = classic3
    codec = ActionCodec(g)
    a, b = g.map.id_of("Alaska"), g.map.id_of("Kamchatka")
    s = build(g, owners={"Alaska": 0, "Kamchatka": 1}, armies={"Alaska": 2, "Kamchatka": 3}, default_owner=2)
    s.player = 0
    weak = g.map.id_of("Alberta")
    s.owner[weak] = 0
    sel = Selection()
    # a source with one army
    raises_unchanged(s, IllegalActionError, lambda: codec.step(s, weak, sel), "Alberta cannot attack (needs 2+ armies")
    assert sel.empty
    # an amount id means nothing at the top of the attack phase
    raises_unchanged(s, IllegalActionError, lambda: codec.step(s, codec.amount, sel), "no meaning at this decision")
    # select the pair, then roll 3 dice from 2 armies: the rules' reason
    codec.step(s, a, sel)
    codec.step(s, b, sel)
    assert (sel.src, sel.dst) == (a, b)
    msg = raises_unchanged(s, IllegalActionError, lambda: codec.step(s, codec.dice + 2, sel), "roll 1..1 dice from Alaska")
    assert "Legal ids:" in msg and (sel.src, sel.dst) == (a, b)


def test_codec_step_needs_a_selection_for_a_sub_step(classic3):
    g = classic3
    codec = ActionCodec(g)
    s = build(g, owners={"Alaska": 0}, armies={"Alaska": 5}, default_owner=1)
    s.player = 0
    raises_unchanged(s, RiskError, lambda: codec.step(s, g.map.id_of("Alaska")), "is a sub-step", "Selection")
    assert codec.step(s, codec.end) == Move.end_attack()  # a complete move needs no selection


def test_invalid_text_and_illegal_move_are_distinct_errors(classic3):
    s = classic3.new_game(3)
    assert not issubclass(risk_env.InvalidMoveError, IllegalMoveError)
    assert not issubclass(IllegalMoveError, risk_env.InvalidMoveError)
    with pytest.raises(risk_env.InvalidMoveError):
        classic3.parse_move(s, "attack Alaska->Atlantis dice=3")
    move = classic3.parse_move(s, "attack Alaska->Kamchatka dice=3")  # readable, not legal now
    raises_unchanged(s, IllegalMoveError, lambda: classic3.apply(s, move), "is not legal in the")


def test_to_act_is_a_deprecated_alias_of_current_player(classic3):
    s = classic3.new_game(4)
    with pytest.warns(DeprecationWarning, match="current_player"):
        assert classic3.to_act(s) == classic3.current_player(s) == s.player


def test_load_agent_empty_spec_folder_and_missing_model(tmp_path, monkeypatch):
    from risk_env.agents import load_agent

    monkeypatch.chdir(tmp_path)
    with pytest.raises(RiskError, match=r"^empty agent spec '': use one of random, aggressive, continent, balanced, .*\.zip"):
        load_agent("")
    (tmp_path / "runs").mkdir()
    with pytest.raises(RiskError) as e:
        load_agent("runs")
    assert str(e.value) == "'runs' is a folder: give the saved model's file (a .pt or .zip in it)"
    (tmp_path / "runs" / "model.pt").write_bytes(b"")  # (a device run's folder: its policy file is named)
    with pytest.raises(RiskError) as e:
        load_agent("runs")
    assert str(e.value) == "'runs' is a folder: give the saved model's file (such as 'runs/model.pt')"
    (tmp_path / "runs" / "model.pt").unlink()
    with pytest.raises(RiskError) as e:
        load_agent("x.zip")
    assert str(e.value) == "no saved model at 'x.zip'"
    (tmp_path / "y").mkdir()
    with pytest.raises(RiskError) as e:
        load_agent("y/m")
    assert (
        str(e.value) == "unknown agent 'y/m': use one of random, aggressive, continent, balanced, ppo-2p, ppo-3p, ppo-4p, "
        "ppo-5p, ppo-6p, ppo-2p-0.1, ppo-4p-0.1, ppo-4p-500k, "
        "a MaskablePPO model file (path/model.zip), a graph policy file of the device trainer (path/model.pt), "
        "an RLlib checkpoint folder (risk-env train-rllib's), or 'module:callable'"
    )


def test_single_agent_env_opponent_list_longer_than_the_seats_is_refused():
    import gymnasium

    with pytest.raises(ConfigError) as info:
        gymnasium.make("risk_env/RiskSingleAgent-v0", num_players=3, opponents=["random"] * 5)
    assert str(info.value) == (
        "5 opponents for 2 opponent seats (3 players): give at most 2 (a shorter list is cycled over the seats)"
    )
    from risk_env.agents import AggressiveAgent, RandomAgent
    from risk_env.envs.single_agent import RiskSingleAgentEnv

    env = RiskSingleAgentEnv(num_players=4, turn_limit=20, opponents=["aggressive", "random"])  # cycled over 3 seats
    env.reset(seed=0)
    line_up = [type(env.opponents[p]) for p in sorted(env.opponents)]
    assert line_up == [AggressiveAgent, RandomAgent, AggressiveAgent]
    with pytest.raises(ConfigError, match="2 opponents for 1 opponent seat \\(2 players\\)"):
        RiskSingleAgentEnv(num_players=2, opponents=["random", "random"])


def test_single_agent_step_before_reset_says_call_reset():
    from risk_env.envs.single_agent import RiskSingleAgentEnv

    with pytest.raises(ResetNeededError) as info:
        RiskSingleAgentEnv().step(0)
    assert str(info.value) == "no episode yet: call reset() before step()"
    env = RiskSingleAgentEnv(render_mode="ansi", invalid_action="penalty")
    with pytest.raises(ResetNeededError) as info:
        env.render()
    assert str(info.value) == "no episode yet: call reset() before render()"
    _, first = env.reset(seed=0)
    illegal = int(np.flatnonzero(first["action_mask"] == 0)[0])
    assert env.step(illegal)[2] is True  # the penalty ends the episode
    before = env.game_state.to_dict()
    with pytest.raises(ResetNeededError) as info:
        env.step(int(np.flatnonzero(first["action_mask"])[0]))
    assert str(info.value) == "the episode is over: call reset() before step()"
    assert env.game_state.to_dict() == before and isinstance(env.render(), str)  # nothing changed; it still renders


def test_too_few_starting_armies_reads_well():
    with pytest.raises(ConfigError) as info:
        risk_env.env(starting_armies=1)
    assert str(info.value) == (
        "starting_armies=1 is too few: 4 seats (4 players) with 1 army each cannot claim the 42 territories "
        "of map 'classic'; raise starting_armies to at least 11"
    )
    with pytest.raises(ConfigError, match=r"3 seats \(2 players and the neutral\) with 5 armies each"):
        risk_env.env(num_players=2, starting_armies=5)


def _package_modules() -> tuple[list[object], list[str]]:
    """Every module of the package (``risk_env`` and ``risk_env.agents``), imported; and the ones skipped
    because an optional extra they need is missing."""
    import importlib
    import pkgutil

    from risk_env.errors import MissingExtraError

    modules, skipped = [], []
    for pkg in (risk_env, importlib.import_module("risk_env.agents")):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            try:
                modules.append(importlib.import_module(info.name))
            except MissingExtraError:
                skipped.append(info.name)
            except ModuleNotFoundError as e:  # a third-party package of an extra, never one of ours
                if (e.name or "").split(".")[0] == "risk_env":
                    raise
                skipped.append(info.name)
    return modules, skipped


def test_every_error_class_is_defined_in_risk_env_errors_and_exported() -> None:
    """Every class named ``...Error`` that the package defines lives in ``risk_env/errors.py`` and is
    exported by ``risk_env`` (a module may re-export one where it used to live)."""
    modules, skipped = _package_modules()
    assert len(modules) > 50 and len(skipped) < len(modules)
    found = {
        obj
        for m in modules
        for obj in vars(m).values()
        if isinstance(obj, type) and obj.__name__.endswith("Error") and obj.__module__.startswith("risk_env")
    }
    elsewhere = sorted(f"{c.__module__}.{c.__name__}" for c in found if c.__module__ != "risk_env.errors")
    assert elsewhere == []
    unexported = sorted(c.__name__ for c in found if c.__name__ not in risk_env.__all__ or getattr(risk_env, c.__name__) is not c)
    assert unexported == []
    # the walk sees the errors: every one risk_env.errors defines, and the records' error where it was
    from risk_env.records.record import RecordError

    assert {c.__name__ for c in found} >= set(risk_env.errors.__all__)
    assert RecordError is risk_env.RecordError is risk_env.errors.RecordError


@pytest.fixture(scope="module")
def tiny_record():
    from risk_env.agents import RandomAgent
    from risk_env.tools.match import play_match

    env = risk_env.raw_env(num_players=2, map="small", setup="random", turn_limit=3)
    return play_match(env, [RandomAgent(0), RandomAgent(1)], seed=0, record=True).record


def _bad_calls(record):
    """Bad arguments to the package's public functions: (call, the error's exact type, its message)."""
    from risk_env.agents import RandomAgent
    from risk_env.records.ansi import render_ansi, render_compact, short_names
    from risk_env.records.picture import seat_labels
    from risk_env.records.record import replay_moves
    from risk_env.records.replay import render_video
    from risk_env.rules.cards import escalating_value, set_value, stars_value
    from risk_env.rules.dice import roll_outcomes
    from risk_env.rules.state import GameState

    game = Game(num_players=2, map="small", setup="random")
    s = game.new_game(0)
    good = s.to_dict()
    return [
        (lambda: roll_outcomes(4, 1), ConfigError, "attacker_dice must be 1, 2 or 3, got 4"),
        (lambda: roll_outcomes(1, 3), ConfigError, "defender_dice must be 1 or 2, got 3"),
        (lambda: escalating_value(0), ConfigError, "set number must be >= 1, got 0"),
        (lambda: set_value("bogus", 0, 0), ConfigError, "no set values for card_trade='bogus'"),
        (lambda: set_value("fixed_by_symbol", 0, 13), ConfigError, "composition index 13 out of range 0..12"),
        (lambda: stars_value(11), ConfigError, "a stars trade is worth 2..10 stars, got 11"),
        (lambda: game.map.id_of("Atlantis"), InvalidMoveError, "unknown territory 'Atlantis' on map 'small'"),
        (lambda: game.map.name_of(99), ConfigError, f"territory id 99 out of range 0..{game.T - 1}"),
        (lambda: game.map.card_name(99), ConfigError, f"card id 99 out of range 0..{game.map.num_cards - 1}"),
        (lambda: game.map.card_of("Wild 9"), InvalidMoveError, "no card 'Wild 9': this map has 2 wild cards"),
        (lambda: GameState.from_dict({}), StateError, "state field 'owner' is missing"),
        (lambda: GameState.from_dict({**good, "alive": 3}), StateError, "state field 'alive' must be a list"),
        (lambda: GameState.from_dict({**good, "rng": 3}), StateError, "state field 'rng' must be a PCG64 bit_generator"),
        (lambda: GameState.from_dict({**good, "turn": "x"}), StateError, "state field 'turn' cannot be read: invalid"),
        (lambda: render_ansi(game, s, width=10), ConfigError, "width must be at least 60 characters, got 10"),
        (lambda: render_compact(game, s, width=10), ConfigError, "width must be at least 60 characters, got 10"),
        (lambda: short_names(["Alaska"], 2), ConfigError, "width must be at least 3 characters, got 2"),
        (lambda: seat_labels(game, ["a"]), ConfigError, "player_names needs 2 names (one per player seat), got 1"),
        (lambda: list(replay_moves(record, upto=-1)), ConfigError, "upto must be a number of moves from 0 to"),
        (
            lambda: render_video(record, "game.txt"),
            ConfigError,
            "render_video: path 'game.txt': unknown animation format '.txt': use .gif or .mp4 (or .webm, .mkv, .avi, .mov)",
        ),
        (lambda: render_video(record, "game.gif", every="x"), ConfigError, "every must be 'move' or 'turn', got 'x'"),
        (
            lambda: RandomAgent(0).act({"action_mask": np.zeros(3, np.int8)}),
            RiskError,
            "the random agent was asked to act with no legal action",
        ),
    ]


def test_bad_arguments_to_public_functions_get_the_library_errors(tiny_record, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the refused animations write nothing there
    for call, error, message in _bad_calls(tiny_record):
        with pytest.raises(RiskError) as info:
            call()
        assert type(info.value) is error and str(info.value).startswith(message), (error, message, info.value)
    assert list(tmp_path.iterdir()) == []


def test_an_agents_illegal_choice_at_the_table_is_an_illegal_action_error():
    import io

    from risk_env.agents import CallableAgent
    from risk_env.tools.play import play_game

    rules = RulesConfig(num_players=2, map="small", setup="random")
    first = Game(rules).current_player(Game(rules).new_game(3))  # play_game deals new_game(seed)
    cheat = CallableAgent(lambda obs, info: int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    with pytest.raises(IllegalActionError, match=r"^agent 'CallableAgent' \(player_\d\) chose the illegal action id \d+;") as e:
        play_game(rules, 1 - first, {first: cheat}, 3, lambda: "q", out=io.StringIO())
    assert "egal ids" not in str(e.value) and e.value.action is not None  # the agent's legal ids stay hidden


def test_game_methods_refuse_what_is_no_position_and_a_map_path_is_taken() -> None:
    """``Game.legal_moves(state.to_dict())`` and the like raised AttributeError; ``map=Path(...)`` was refused although
    its message allowed a path."""
    from pathlib import Path

    from risk_env.errors import StateError

    g = Game(RulesConfig(num_players=2, map="small"))
    s = g.new_game(seed=0)
    mv = g.legal_moves(s)[0]
    calls = {
        "legal_moves": lambda x: g.legal_moves(x),
        "check": lambda x: g.check(x, mv),
        "apply": lambda x: g.apply(x, mv),
        "current_player": lambda x: g.current_player(x),
        "outcome": lambda x: g.outcome(x),
        # (these raised AttributeError, or answered as if for a position: commanding -1, parse_move a Move)
        "invariant_violations": lambda x: g.invariant_violations(x),
        "income": lambda x: g.income(x, 0),
        "attackable": lambda x: g.attackable(x),
        "fortify_reach": lambda x: g.fortify_reach(x, 0),
        "occupy_range": lambda x: g.occupy_range(x),
        "commanding": lambda x: g.commanding(x),
        "decision_text": lambda x: g.decision_text(x),
        "settle_winner": lambda x: g.settle_winner(x),
        "can_trade": lambda x: g.can_trade(x),
    }
    for call in calls.values():
        with pytest.raises(StateError, match=r"^a position is a GameState, got dict .*read by Game\.state_from_dict\)$"):
            call(s.to_dict())
        with pytest.raises(StateError, match=r"^a position is a GameState, got NoneType None$"):
            call(None)
    with pytest.raises(StateError, match=r"^a position is a GameState, got dict"):
        g.parse_move(s.to_dict(), "place Ash 1")  # (None reads a move without a position)
    assert g.legal_moves(s)[0] == mv
    small = Path(risk_env.__file__).parent / "rules" / "maps" / "small.json"
    assert RulesConfig(map=small).map == str(small)  # (as resolve_rules takes a rules file's Path)
    env = risk_env.env(num_players=2, map=small)
    env.reset(seed=0)
    assert env.unwrapped.game.T == 9


def test_a_path_map_is_a_file_even_when_it_reads_as_a_shipped_name(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``Game(map=Path("classic"))`` played the shipped classic map, even beside a map file named ``classic``."""
    from pathlib import Path

    small = Path(risk_env.__file__).parent / "rules" / "maps" / "small.json"
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MapError, match=r"^cannot read map file '\./classic': No such file or directory$"):
        Game(map=Path("classic"))
    (tmp_path / "classic").write_bytes(small.read_bytes())
    assert Game(map=Path("classic")).T == 9 and RulesConfig(map=Path("classic")).map == "./classic"
    assert Game(map="classic").T == 42  # a name is the shipped map's
