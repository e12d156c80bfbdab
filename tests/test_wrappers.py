"""ClassicWrapper behaves like PettingZoo's TerminateIllegal → AssertOutOfBounds → OrderEnforcing stack."""

import numpy as np
import pytest
from pettingzoo.utils import wrappers

import risk_env
from risk_env.envs.wrappers import ClassicWrapper, StrictWrapper


def standard_stack(**kw):
    e = risk_env.raw_env(**kw)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def trajectory(env, seed, illegal_at=None, steps=3000):
    """Play random legal ids (one illegal id at step ``illegal_at``); record everything observable."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    out = []
    for i, agent in enumerate(env.agent_iter(steps)):
        obs, rew, term, trunc, info = env.last()
        out.append((agent, float(rew), term, trunc, obs["observation"].tobytes(), obs["action_mask"].tobytes()))
        if term or trunc:
            action = None
        else:
            mask = obs["action_mask"]
            pool = np.flatnonzero(mask == 0) if i == illegal_at else np.flatnonzero(mask)
            action = int(rng.choice(pool))
        env.step(action)
    out.append(("end", tuple(env.agents), dict(env.rewards)))
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_same_trajectory_as_standard_stack(players):
    kw = dict(num_players=players, map="small", turn_limit=40)
    assert trajectory(ClassicWrapper(risk_env.raw_env(**kw)), 3) == trajectory(standard_stack(**kw), 3)


@pytest.mark.parametrize("illegal_at", [0, 57, 300])
def test_illegal_move_terminates_like_standard_stack(illegal_at):
    kw = dict(num_players=3, map="small", turn_limit=40)
    a = trajectory(risk_env.env(**kw), 5, illegal_at=illegal_at)
    b = trajectory(standard_stack(**kw), 5, illegal_at=illegal_at)
    assert a == b
    # the offender got -1, everyone else 0, and every agent left through a dead step
    offender_rows = [r for r in a if len(r) == 6 and r[1] == -1.0 and r[2] and r[3]]
    assert len(offender_rows) == 1
    assert a[-1][1] == ()


def test_out_of_bounds_and_order_errors_match():
    for make in (lambda: risk_env.env(num_players=2), lambda: standard_stack(num_players=2)):
        e = make()
        with pytest.raises(AttributeError):
            _ = e.agents
        with pytest.raises(Exception) as before:
            e.step(0)
        assert "reset" in str(before.value)
        e.reset(seed=0)
        with pytest.raises(AssertionError):
            e.step(10_000)
        with pytest.raises(AssertionError):
            e.step(-1)


def test_is_an_order_enforcing_wrapper():
    assert isinstance(risk_env.env(), wrappers.OrderEnforcingWrapper)
    # PettingZoo's wrapper, plus ResetNeededError before reset() and the board in Jupyter (_repr_svg_)
    strict = risk_env.env(strict=True)
    assert type(strict) is StrictWrapper and type(strict).__mro__[2] is wrappers.OrderEnforcingWrapper
    assert [k for k in vars(StrictWrapper) if not k.startswith("__")] == ["step"]
    shared = [k for k in vars(type(strict).__mro__[1]) if not k.startswith("__")]
    assert shared == ["_refuse", "_repr_svg_", "last", "observe", "state", "render", "agent_iter"]


@pytest.mark.parametrize("mode", ["remove", "stay"])
def test_an_illegal_action_keeps_the_return_of_an_agent_eliminated_earlier(mode: str) -> None:
    """With ``eliminated="stay"`` an illegal action ending the game wiped out the -1 that an agent eliminated earlier
    was waiting for; the returns are the same in both modes (docs/clients.md)."""
    from risk_env.agents import load_agent

    env = risk_env.env(num_players=4, map="small", eliminated=mode)
    env.reset(seed=0)
    agents = {a: load_agent("aggressive", seed=i) for i, a in enumerate(env.possible_agents)}
    returns = dict.fromkeys(env.possible_agents, 0.0)
    offender, out_before = None, None
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        returns[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        if env.unwrapped.game_state.elim_order and offender is None:  # someone is out: play an illegal id
            offender, out_before = agent, list(env.unwrapped.game_state.elim_order)
            env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
            continue
        env.step(agents[agent].act(obs, info))
    assert offender is not None and out_before
    expected = dict.fromkeys(env.possible_agents, 0.0)
    for seat in out_before:
        expected[env.possible_agents[seat]] = -1.0
    expected[offender] = -1.0
    assert returns == expected
