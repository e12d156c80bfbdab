"""Input checks of the single-agent env and the AEC env found by a new user's test: reset options that are not a
dict, calls before reset through ``gymnasium.make``, ``is_legal_action`` given a non-id, the single-agent env's
numbers and seats, the offender's mask after ``env()`` ends a game for an illegal id, and ``raw_env.render()``
before reset. Each refusal is the library's own error, and nothing changes."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

import risk_env
from risk_env import ConfigError, IllegalActionError, ResetNeededError
from risk_env.envs.single_agent import ENV_ID, RiskSingleAgentEnv
from risk_env.records.record import same_position


# ---------------------------------------------------------------- 1: single-agent reset options must be a dict
@pytest.mark.parametrize("options", [[1], "state", 5, ("state", None)])
def test_single_agent_reset_refuses_options_that_are_not_a_dict(options) -> None:
    env = gymnasium.make(ENV_ID, num_players=2, map="small")
    obs, _ = env.reset(seed=3)
    before = env.unwrapped.game_state.copy()
    seat = env.unwrapped.seat
    with pytest.raises(
        ConfigError,
        match=r"^reset\(\) options must be a dict such as \{'state': position\} or \{'learner_seat': 0\}, got "
        + type(options).__name__
        + "$",
    ):
        env.reset(options=options)
    assert same_position(env.unwrapped.game_state, before) and env.unwrapped.seat == seat
    # the episode goes on from where it was
    a = int(np.flatnonzero(env.unwrapped.action_masks())[0])
    env.step(a)


def test_single_agent_reset_still_takes_none_and_a_dict() -> None:
    env = RiskSingleAgentEnv(num_players=2, map="small")
    env.reset(seed=0, options=None)
    _, info = env.reset(seed=0, options={"learner_seat": 1})
    assert info["seat"] == 1 and env.seat == 1
    with pytest.raises(ConfigError, match=r"^unknown reset option\(s\) \['x', 1\]; allowed: state, learner_seat$"):
        env.reset(options={"x": 1, 1: 2})  # (keys of mixed types are listed, not a TypeError)
    assert env.seat == 1


# ---------------------------------------------------------------- 2: order enforced by the env, not Gymnasium's wrapper
def test_gymnasium_make_adds_no_order_enforcing_wrapper() -> None:
    assert gymnasium.spec(ENV_ID).order_enforce is False
    env = gymnasium.make(ENV_ID, num_players=2)
    layer = env
    while isinstance(layer, gymnasium.Wrapper):
        assert not isinstance(layer, gymnasium.wrappers.OrderEnforcing)
        layer = layer.env
    assert isinstance(layer, RiskSingleAgentEnv)


@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
def test_single_agent_step_and_render_before_reset_raise_reset_needed_error(render_mode) -> None:
    for env in (gymnasium.make(ENV_ID, num_players=2, render_mode=render_mode), RiskSingleAgentEnv(render_mode=render_mode)):
        with pytest.raises(ResetNeededError, match=r"^no episode yet: call reset\(\) before step\(\)$"):
            env.step(0)
        with pytest.raises(ResetNeededError, match=r"^no episode yet: call reset\(\) before render\(\)$"):
            env.render()
        assert env.unwrapped.state is None
        obs, info = env.reset(seed=0)  # then the env works as usual
        assert obs.shape == env.observation_space.shape and info["action_mask"].any()
        if render_mode == "ansi":
            assert isinstance(env.render(), str)


def test_single_agent_step_after_the_episode_is_over_raises_through_make() -> None:
    env = gymnasium.make(ENV_ID, num_players=2, invalid_action="penalty")
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.unwrapped.action_masks())[0])  # (the first decision forbids some ids)
    _, reward, terminated, truncated, info = env.step(bad)
    assert (reward, terminated, truncated, info["invalid_action"]) == (-1.0, True, False, True)
    with pytest.raises(ResetNeededError, match=r"^the episode is over: call reset\(\) before step\(\)$"):
        env.step(0)


# ---------------------------------------------------------------- 3: is_legal_action refuses a non-id
def _aec(seed: int = 0):  # type: ignore[no-untyped-def]
    e = risk_env.raw_env(num_players=2, map="small", setup="random")
    e.reset(seed=seed)
    return e


def test_is_legal_action_reads_the_mask_for_every_integer_form() -> None:
    e = _aec()
    mask = e.observe(e.agent_selection)["action_mask"]
    legal, illegal = int(np.flatnonzero(mask)[0]), int(np.flatnonzero(mask == 0)[0])
    for form in (int, np.int64, np.int32, np.array):
        assert e.is_legal_action(form(legal)) is True
        assert e.is_legal_action(form(illegal)) is False
    assert [e.is_legal_action(a) for a in range(e.codec.n)] == [bool(m) for m in mask]


@pytest.mark.parametrize(
    ("action", "said"),
    [
        (-1, "-1, which is out of range"),
        ("N", "37, which is out of range"),
        (True, r"True \(a bool\)"),
        (np.bool_(False), r"np\.False_ \(a bool\)"),
        (None, "None"),
        (2.0, r"2.0 \(float\)"),
        ("3", r"'3' \(str\)"),
        (np.array([1]), r"an array of shape \(1,\)"),
    ],
)
def test_is_legal_action_refuses_what_is_not_an_id_as_action_to_string_does(action, said) -> None:
    e = _aec()
    n = e.codec.n
    assert n == 37
    action = n if isinstance(action, str) and action == "N" else action
    before, agent = e.game_state.copy(), e.agent_selection
    message = rf"^an action id is an integer in 0\.\.{n - 1}, got {said}"
    with pytest.raises(IllegalActionError, match=message):
        e.is_legal_action(action)
    with pytest.raises(IllegalActionError, match=message):  # the same check, the same words
        e.action_to_string(agent, action)
    assert same_position(e.game_state, before) and e.agent_selection == agent


def test_is_legal_action_before_reset_raises_reset_needed_error() -> None:
    e = risk_env.raw_env(num_players=2)
    with pytest.raises(ResetNeededError, match=r"^no game in progress: call reset\(\) before is_legal_action\(\)$"):
        e.is_legal_action(0)
    assert risk_env.env(num_players=2).unwrapped.game_state is None


# ---------------------------------------------------------------- 4: the single-agent env's numbers and seats
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"invalid_penalty": "a"}, r"^invalid_penalty must be a finite number \(the reward of an illegal action\), got 'a'$"),
        ({"invalid_penalty": float("nan")}, "^invalid_penalty must be a finite number .*, got nan$"),
        ({"invalid_penalty": float("-inf")}, "^invalid_penalty must be a finite number .*, got -inf$"),
        ({"invalid_penalty": True}, "^invalid_penalty must be a finite number .*, got True$"),
        ({"shaping_gamma": True}, r"^shaping_gamma must be a number in \(0, 1\] \(the learner's discount\), got True$"),
        ({"shaping_gamma": np.bool_(True)}, r"^shaping_gamma must be a number in \(0, 1\] .*, got np\.True_$"),
        ({"shaping_gamma": float("nan")}, r"^shaping_gamma must be a number in \(0, 1\] .*, got nan$"),
        ({"shaping_gamma": 0.0}, r"^shaping_gamma must be a number in \(0, 1\] .*, got 0\.0$"),
        ({"shaping_gamma": np.float32(1.5)}, r"^shaping_gamma must be a number in \(0, 1\] .*, got np\.float32\(1\.5\)$"),
        ({"shaping": True}, "^shaping must be a finite number >= 0, got True$"),
        ({"shaping": np.float32(-0.5)}, r"^shaping must be a finite number >= 0, got np\.float32\(-0\.5\)$"),
        ({"learner_seat": True}, r"^learner_seat must be None or a seat 0\.\.1 \(an integer, not a bool\), got True$"),
        ({"learner_seat": np.bool_(False)}, r"^learner_seat must be None or a seat 0\.\.1 .*, got np\.False_$"),
        ({"learner_seat": 1.0}, r"^learner_seat must be None or a seat 0\.\.1 .*, got 1\.0$"),
        ({"learner_seat": -1}, r"^learner_seat must be None or a seat 0\.\.1 .*, got -1$"),
    ],
)
def test_single_agent_numbers_and_seat_are_checked(kwargs, message) -> None:
    with pytest.raises(ConfigError, match=message):
        RiskSingleAgentEnv(num_players=2, **kwargs)
    with pytest.raises(ConfigError, match=message):
        gymnasium.make(ENV_ID, num_players=2, **kwargs)


def test_single_agent_takes_python_and_numpy_numbers_alike() -> None:
    env = RiskSingleAgentEnv(
        num_players=2,
        shaping=np.float32(0.5),
        shaping_gamma=np.float32(0.5),
        invalid_penalty=np.float64(-2.5),
        learner_seat=np.int64(1),
    )
    assert (env.shaping, env.shaping_gamma, env.invalid_penalty, env.fixed_seat) == (0.5, 0.5, -2.5, 1)
    assert all(type(v) is float for v in (env.shaping, env.shaping_gamma, env.invalid_penalty))
    assert type(env.fixed_seat) is int
    env = RiskSingleAgentEnv(num_players=2, shaping=1, shaping_gamma=1, invalid_penalty=-3, learner_seat=0)
    assert (env.shaping, env.shaping_gamma, env.invalid_penalty, env.fixed_seat) == (1.0, 1.0, -3.0, 0)
    _, info = env.reset(seed=0)
    assert info["seat"] == 0


@pytest.mark.parametrize("seat", [True, np.bool_(True), 1.0, 2, -1, "1"])
def test_single_agent_reset_learner_seat_option_is_checked(seat) -> None:
    env = RiskSingleAgentEnv(num_players=2, map="small")
    env.reset(seed=4, options={"learner_seat": 0})
    before = env.game_state.copy()
    with pytest.raises(ConfigError, match=r"^options\['learner_seat'\] must be a seat 0\.\.1 \(an integer, not a bool\), got "):
        env.reset(options={"learner_seat": seat})
    assert env.seat == 0 and same_position(env.game_state, before)
    _, info = env.reset(seed=4, options={"learner_seat": np.int64(1)})
    assert info["seat"] == 1


# ---------------------------------------------------------------- 5: env() ends a game for an illegal id: masks cleared
@pytest.mark.parametrize("views", [True, False])
def test_the_offenders_masks_are_all_zeros_after_an_illegal_id_ends_the_game(views) -> None:
    w = risk_env.env(num_players=2, map="small", setup="random", views=views)
    w.reset(seed=0)
    offender = w.agent_selection
    mask = w.last()[0]["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w.step(bad)
    o, r, te, tr, info = w.last()
    assert w.agent_selection == offender and r == -1.0
    assert te is True and tr is True  # documented: every agent is terminated *and* truncated (PettingZoo's convention)
    assert o["action_mask"].sum() == 0 and info["action_mask"].sum() == 0 and "view" not in info
    for a in w.agents:
        assert w.observe(a)["action_mask"].sum() == 0 and w.infos[a]["action_mask"].sum() == 0
        assert w.terminations[a] and w.truncations[a]
    assert w.unwrapped.is_legal_action(int(np.flatnonzero(mask)[0])) is False
    rewards = {}
    for agent in w.agent_iter():
        _, reward, te, tr, info = w.last()
        assert te and tr and info["action_mask"].sum() == 0
        rewards[agent] = reward
        w.step(None)
    assert rewards[offender] == -1.0 and sorted(rewards.values()) == [-1.0, 0.0]
    w.reset(seed=0)  # a new game: the masks are the game's again
    assert (w.last()[0]["action_mask"] == mask).all()


def test_pettingzoos_own_terminate_illegal_wrapper_gets_an_all_zero_observation_mask_too() -> None:
    from pettingzoo.utils import wrappers

    w = wrappers.OrderEnforcingWrapper(
        wrappers.AssertOutOfBoundsWrapper(
            wrappers.TerminateIllegalWrapper(risk_env.raw_env(num_players=2, map="small", setup="random"), illegal_reward=-1)
        )
    )
    w.reset(seed=0)
    mask = w.last()[0]["action_mask"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w.step(int(np.flatnonzero(mask == 0)[0]))
    o, r, te, tr, _ = w.last()
    assert (r, te, tr) == (-1.0, True, True) and o["action_mask"].sum() == 0


# ---------------------------------------------------------------- 6: raw_env.render() before reset
@pytest.mark.parametrize("render_mode", [None, "ansi"])
def test_raw_env_render_before_reset_raises_in_every_render_mode(render_mode) -> None:
    for e in (risk_env.raw_env(num_players=2, render_mode=render_mode), risk_env.env(num_players=2, render_mode=render_mode)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no render-mode warning first
            with pytest.raises(ResetNeededError, match=r"^no game in progress: call reset\(\) before render\(\)$"):
                e.render()
        assert e.unwrapped.game_state is None


def test_raw_env_render_without_a_mode_after_reset_still_warns_and_returns_none() -> None:
    e = risk_env.raw_env(num_players=2)
    e.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert e.render() is None
