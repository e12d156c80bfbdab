"""The AEC env goes on from a given position: ``reset(options={"state": ...})`` with a GameState or
its dict, checked by Game.state_from_dict; a bad position is refused with StateError and changes nothing."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import build, force_dice, tid

import risk_env
from risk_env import ConfigError, StateError
from risk_env.records.record import same_position
from risk_env.rules.state import Phase


def _random_play(env, steps: int, seed: int) -> list[int]:  # type: ignore[no-untyped-def]
    """Play ``steps`` random legal ids; returns them."""
    rng = np.random.default_rng(seed)
    played = []
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(a)
        played.append(a)
    return played


def _between_moves(env, seed: int) -> None:  # type: ignore[no-untyped-def]
    """Random play until no sub-step is pending (a position between complete moves)."""
    _random_play(env, 150, seed)
    while env.unwrapped.selection.src >= 0 or env.unwrapped.selection.dst >= 0 or env.unwrapped.selection.trade >= 0:
        _random_play(env, 1, seed + 1)


def test_a_saved_position_plays_on_exactly_as_the_game_it_came_from() -> None:
    env = risk_env.raw_env(num_players=3, setup="random")
    env.reset(seed=5)
    _between_moves(env, 1)
    saved = json.loads(json.dumps(env.game_state.to_dict()))  # through JSON, as a file would hold it
    other = risk_env.raw_env(num_players=3, setup="random")
    other.reset(options={"state": saved})
    assert same_position(other.game_state, env.game_state) and other.agent_selection == env.agent_selection
    np.testing.assert_array_equal(
        other.observe(other.agent_selection)["observation"], env.observe(env.agent_selection)["observation"]
    )
    rng = np.random.default_rng(2)
    for _ in range(400):  # the same decisions give the same game: the dice come from the saved generator
        if not env.agents:
            break
        obs, reward, term, trunc, _ = env.last()
        assert other.last()[1:4] == (reward, term, trunc) and other.agent_selection == env.agent_selection
        a = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(a)
        other.step(a)
        assert same_position(other.game_state, env.game_state)


def test_a_hand_built_position_with_a_known_outcome() -> None:
    env = risk_env.env(num_players=2, map="small", two_player="none")  # the wrapped env passes the option on
    game = env.unwrapped.game
    s = build(game, owners={"Birch": 1}, default_owner=0, armies={"Ash": 10}, player=0)
    force_dice(s, [6, 6, 6, 1] * 3)  # player_1's last territory falls to the first roll
    assert game.invariant_violations(s) == []
    env.reset(options={"state": s})
    assert env.agent_selection == "player_0" and env.agents == ["player_0", "player_1"]
    codec = env.unwrapped.codec
    for aid in (tid(game, "Ash"), tid(game, "Birch"), codec.dice + 2):  # attack Ash->Birch with 3 dice
        env.step(aid)
    out = env.unwrapped.game_state
    assert out.owner[tid(game, "Birch")] == 0 and out.phase == Phase.GAME_OVER and out.winner == 0
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert s.owner[tid(game, "Birch")] == 1 and s.phase == Phase.ATTACK  # the caller's position is untouched


def test_players_eliminated_before_the_position_are_not_agents() -> None:
    env = risk_env.raw_env(num_players=3, map="small")
    game = env.game
    s = build(game, owners={"Ash": 2}, default_owner=0, armies={"Ash": 3}, player=0)
    s.owner[tid(game, "Birch")] = 2
    s.alive = [True, False, True]
    s.elim_order = [1]
    s.eliminated_by = s.eliminated_by or []
    assert game.invariant_violations(s) == []
    env.reset(options={"state": s.to_dict()})
    assert env.agents == ["player_0", "player_2"] and env.agent_selection == "player_0"
    stay = risk_env.raw_env(num_players=3, map="small", eliminated="stay")
    stay.reset(options={"state": s})
    assert stay.agents == ["player_0", "player_1", "player_2"] and not stay.terminations["player_1"]


def _fingerprint(env):  # type: ignore[no-untyped-def]
    return (json.dumps(env.game_state.to_dict(), sort_keys=True), env.agent_selection, list(env.agents))


@pytest.mark.parametrize(
    "bad,message",
    [
        ("a string", r"must be a GameState or its to_dict\(\), got str"),
        ({"owner": [0]}, r"^malformed state dict"),
        ("armies", r"^inconsistent state"),
        ("small map", r"^(inconsistent|malformed) state"),
        ("over", r"is a finished game"),
    ],
)
def test_a_bad_position_is_refused_and_changes_nothing(bad, message) -> None:  # type: ignore[no-untyped-def]
    env = risk_env.raw_env(num_players=3)
    env.reset(seed=9)
    _random_play(env, 40, 0)
    if bad == "armies":
        s = env.game_state.copy()
        s.armies[3] = 0  # an owned territory with no army (docs/rules.md §5)
        bad = s.to_dict()
    elif bad == "small map":
        bad = risk_env.Game(risk_env.RulesConfig(num_players=3, map="small")).new_game(1).to_dict()
    elif bad == "over":  # a finished game: player_0 holds the map
        s = build(env.game, default_owner=0)
        s.phase, s.winner, s.elim_order = Phase.GAME_OVER, 0, [1, 2]
        assert env.game.invariant_violations(s) == []
        bad = s
    before = _fingerprint(env)
    with pytest.raises(StateError, match=message):
        env.reset(seed=4, options={"state": bad})
    assert _fingerprint(env) == before
    # the seed stream was not touched either: the next unseeded reset is the game it would have been
    twin = risk_env.raw_env(num_players=3)
    twin.reset(seed=9)
    env.reset()
    twin.reset()
    assert same_position(env.game_state, twin.game_state)


def test_other_reset_options_are_ignored_with_a_warning() -> None:
    env = risk_env.raw_env(num_players=2)
    with pytest.warns(UserWarning, match=r"reset\(\) ignores the option\(s\) \['position'\]: the one option is 'state'"):
        env.reset(seed=1, options={"position": None})  # PettingZoo's api_test passes such a key
    first = env.game_state.copy()
    env.reset(seed=1, options={})  # an empty mapping is no option at all
    assert same_position(env.game_state, first)
    with pytest.raises(ConfigError, match="seed"):
        env.reset(seed=-1, options={"state": first})


def test_the_single_agent_env_takes_the_same_positions_and_refuses_the_same_bad_ones() -> None:
    from risk_env.envs.single_agent import RiskSingleAgentEnv

    env = RiskSingleAgentEnv(num_players=2, map="small", two_player="none", opponents="random")
    game = env.game
    s = build(game, owners={"Birch": 1}, default_owner=0, armies={"Ash": 10}, player=0)
    env.reset(seed=0, options={"state": json.loads(json.dumps(s.to_dict())), "learner_seat": 0})
    assert same_position(env.state, s) and env.seat == 0
    draws = env.np_random.bit_generator.state
    broken = s.to_dict()
    broken["armies"][0] = 0
    with pytest.raises(StateError, match="^inconsistent state"):
        env.reset(seed=7, options={"state": broken})
    assert same_position(env.state, s) and env.np_random.bit_generator.state == draws  # nothing changed


def test_a_game_recorded_from_a_position_replays(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The Recorder over ``reset(options={"state": ...})`` wrote the moves with a drawn seed: a record whose first
    move did not replay. The record now starts from the position."""
    from helpers import run_cli

    from risk_env.records.record import GameRecord
    from risk_env.records.recorder import Recorder

    env = risk_env.raw_env(num_players=2, preset="fast", map="small")
    env.reset(seed=3)
    _between_moves(env, 4)
    position = env.game_state.copy()
    rec_env = Recorder(risk_env.raw_env(num_players=2, preset="fast", map="small"))
    rec_env.reset(options={"state": position})
    _random_play(rec_env, 300, 5)
    record = rec_env.finish("unfinished") if rec_env.agents else rec_env.records[-1]
    path = record.save(tmp_path / "from_position.json")
    loaded = GameRecord.load(path)  # load checks that every move and action id replays to the recorded result
    assert loaded.start_state == position.to_dict() and same_position(loaded.initial_state(), position)
    assert same_position(loaded.final_state(), rec_env.unwrapped.game_state)
    code, out, err = run_cli("replay", path, "-q", "--html", tmp_path / "page.html")
    assert code == 0, err
    assert GameRecord.from_dict({**loaded.to_dict(), "start_state": None}).start_state is None  # an ordinary record


def test_options_that_are_not_a_mapping_are_refused() -> None:
    env = risk_env.raw_env(num_players=2)
    env.reset(seed=1)
    before = env.game_state.copy()
    with pytest.raises(ConfigError, match=r"^reset\(\) options must be a dict such as \{'state': position\}, got list"):
        env.reset(options=["state"])  # type: ignore[arg-type]
    assert same_position(env.game_state, before)
