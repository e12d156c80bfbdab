"""The single-agent Gymnasium view (risk_env.envs.single_agent): checkers, masks, reward accounting,
illegal actions, stalls, opponents and SubprocVecEnv."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from helpers import build, make_game, tid

from risk_env import ConfigError, IllegalActionError, Phase, ResetNeededError
from risk_env.agents import CallableAgent
from risk_env.envs.opponents import OpponentPool
from risk_env.envs.single_agent import ENV_ID, RiskSingleAgentEnv


def _act(env: RiskSingleAgentEnv, action: int):
    assert env.action_masks()[action], env.codec.action_to_string(env.state, action)
    return env.step(action)


def _first_legal(observation, info) -> int:
    return int(np.flatnonzero(observation["action_mask"])[0])


# ---------------------------------------------------------------------- API checkers
@pytest.mark.filterwarnings("ignore:.*maximum value is infinity")
def test_gymnasium_and_sb3_env_checkers_pass():
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    env = RiskSingleAgentEnv(num_players=2, turn_limit=40, truncation_reward="rank", shaping=1.0)
    gym_check(env, skip_render_check=True)
    sb3_check(env, warn=False)  # samples actions without the mask: "random" replacement keeps it running
    env3 = RiskSingleAgentEnv(num_players=3, turn_limit=20, invalid_action="penalty")
    gym_check(env3, skip_render_check=True)


def test_registered_with_gymnasium():
    env = gymnasium.make(ENV_ID, num_players=2, turn_limit=30)
    obs, info = env.reset(seed=0)
    assert env.observation_space.shape == (321,) and env.observation_space.dtype == np.float32
    assert env.action_space.n == 70
    assert obs.shape == (321,) and obs.dtype == np.float32
    assert info["action_mask"].dtype == np.int8
    env.close()


def test_the_player_count_comes_from_the_rules_as_in_the_aec_env():
    from risk_env import raw_env
    from risk_env.rules.config import RulesConfig, resolve_rules

    # rules= and preset= keep their own count (4 for a preset made for any count), as raw_env does
    assert RiskSingleAgentEnv(rules=resolve_rules("classic", num_players=4)).rules.num_players == 4
    assert RiskSingleAgentEnv(rules=RulesConfig(num_players=5)).rules == RulesConfig(num_players=5)
    assert RiskSingleAgentEnv(rules={"preset": "fast", "num_players": 3}).rules.num_players == 3
    env = gymnasium.make(ENV_ID, preset="secret_missions")
    assert env.unwrapped.rules == raw_env(preset="secret_missions").rules == resolve_rules("secret_missions")
    aec_space = raw_env(preset="secret_missions").observation_space("player_0")["observation"]
    assert env.unwrapped.rules.num_players == 4 and env.observation_space.shape == aec_space.shape
    env.close()
    assert RiskSingleAgentEnv(preset="duel").rules.num_players == 2  # a preset made for 2
    # an explicit count wins over rules= and a preset made for any count
    assert RiskSingleAgentEnv(num_players=3, rules=resolve_rules("classic", num_players=4)).rules.num_players == 3
    assert RiskSingleAgentEnv(num_players=6, preset="secret_missions").rules == resolve_rules("secret_missions", num_players=6)
    with pytest.raises(ConfigError, match="meant for 2 players"):
        RiskSingleAgentEnv(num_players=4, preset="duel")
    # neither rules nor preset: the quick default game, 2 players with a random setup
    assert RiskSingleAgentEnv().rules == RulesConfig(num_players=2, setup="random")
    assert RiskSingleAgentEnv(map="small").rules == RulesConfig(num_players=2, setup="random", map="small")
    assert RiskSingleAgentEnv(num_players=4).rules == RulesConfig(num_players=4, setup="random")


def test_bad_options_raise_config_errors():
    with pytest.raises(ConfigError, match="invalid_action"):
        RiskSingleAgentEnv(invalid_action="ignore")
    with pytest.raises(ConfigError, match="learner_seat"):
        RiskSingleAgentEnv(num_players=2, learner_seat=2)
    with pytest.raises(ConfigError, match="shaping"):
        RiskSingleAgentEnv(shaping=-1.0)
    with pytest.raises(ConfigError, match="turn_limt"):
        RiskSingleAgentEnv(turn_limt=10)
    with pytest.raises(ConfigError, match="reset option"):
        RiskSingleAgentEnv().reset(seed=0, options={"sate": None})
    with pytest.raises(ConfigError, match="opponent"):
        RiskSingleAgentEnv(opponents=[42])


# ---------------------------------------------------------------------- masks and observations
def test_masks_match_the_codec_and_the_learner_always_decides():
    env = RiskSingleAgentEnv(num_players=3, turn_limit=30)
    rng = np.random.default_rng(0)
    for ep in range(3):
        obs, info = env.reset(seed=ep)
        done = False
        while not done:
            s = env.state
            assert env.game.current_player(s) == env.seat
            m = env.codec.mask(s, env.selection)
            np.testing.assert_array_equal(env.action_masks(), m.astype(bool))
            np.testing.assert_array_equal(info["action_mask"], m)
            np.testing.assert_array_equal(obs, env.encoder.encode(s, env.seat, env.selection))
            assert obs[env.encoder.layout["acting"][0]][0] == 1.0
            a = int(rng.choice(np.flatnonzero(m)))
            obs, _r, term, trunc, info = env.step(a)
            done = term or trunc
        assert info["action_mask"].all()  # the same as action_masks() after the end (see the docstring)
        assert env.action_masks().all()  # well defined after the end (see the docstring)
        with pytest.raises(ResetNeededError, match="the episode is over: call reset"):
            env.step(0)


def test_learner_seat_is_randomized_and_can_be_fixed():
    env = RiskSingleAgentEnv(num_players=3, turn_limit=30)
    seats = {env.reset(seed=k)[1]["seat"] for k in range(30)}
    assert seats == {0, 1, 2}
    env = RiskSingleAgentEnv(num_players=3, turn_limit=30, learner_seat=1)
    assert {env.reset(seed=k)[1]["seat"] for k in range(5)} == {1}


def test_same_seed_same_episode():
    def run(seed):
        env = RiskSingleAgentEnv(num_players=2, turn_limit=30, shaping=1.0)
        obs, _ = env.reset(seed=seed)
        out = [obs]
        rng = np.random.default_rng(1)
        done = False
        while not done:
            obs, r, te, tr, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            out.append(np.append(obs, r))
            done = te or tr
        return np.concatenate(out)

    np.testing.assert_array_equal(run(7), run(7))
    assert not np.array_equal(run(7)[:400], run(8)[:400])


# ---------------------------------------------------------------------- reward accounting
def _win_position():
    g = make_game(2)
    # seat 0 (the learner) owns everything but Kamchatka (seat 1, 1 army); Alaska holds 30
    s = build(g, default_owner=0, owners={"Kamchatka": 1}, armies={"Alaska": 30}, player=0, phase=Phase.ATTACK)
    return g, s


def test_learner_win_gives_plus_one_and_terminates():
    g, s = _win_position()
    env = RiskSingleAgentEnv(num_players=2, opponents=_first_legal, shaping=0.0)
    env.reset(seed=0, options={"state": s, "learner_seat": 0})
    c = env.codec
    assert _act(env, tid(g, "Alaska"))[1] == 0.0
    assert _act(env, tid(g, "Kamchatka"))[1] == 0.0
    _obs, r, term, trunc, _info = _act(env, c.blitz)
    assert (r, term, trunc) == (1.0, True, False)
    assert env.state.winner == 0


def test_learner_loss_on_an_opponents_turn_gives_minus_one():
    g = make_game(2)
    # the learner (seat 0) holds only Kamchatka with 1 army; seat 1 holds Alaska with 40
    s = build(g, default_owner=1, owners={"Kamchatka": 0}, armies={"Alaska": 40}, player=0, phase=Phase.FORTIFY)

    def killer(obs, info):
        view = info["view"]
        st, codec, sel = view.state, view.codec, view.selection
        m = obs["action_mask"]
        if st.phase == Phase.ATTACK:
            if sel.src < 0:
                return tid(g, "Alaska")
            if sel.dst < 0:
                return tid(g, "Kamchatka")
            return codec.blitz
        return int(np.flatnonzero(m)[-1]) if st.phase == Phase.OCCUPY else int(np.flatnonzero(m)[0])

    env = RiskSingleAgentEnv(num_players=2, opponents=killer, shaping=0.5)
    env.reset(seed=0, options={"state": s, "learner_seat": 0})
    phi0 = (1 - 41) / 42
    _obs, r, term, trunc, _info = _act(env, env.codec.end)  # end turn; the opponent attacks at once
    assert term and not trunc
    assert not env.state.alive[0] and env.state.winner == 1
    # the loss, plus the potential-based shaping gamma * 0 - phi0 (phi = 0 once the episode ends)
    assert r == pytest.approx(-1.0 + 0.5 * (0.0 - phi0))


def test_truncation_rank_and_draw_rewards():
    for mode, expected in (("rank", 1.0), ("draw", 0.0)):
        g = make_game(2, turn_limit=1, truncation_reward=mode)
        # the learner holds 30 territories, seat 1 twelve: the learner ranks first at the limit
        names = g.map.territory_names
        s = build(g, default_owner=0, owners={n: 1 for n in names[:12]}, player=0, phase=Phase.FORTIFY)
        env = RiskSingleAgentEnv(num_players=2, rules=g.config, opponents=_first_legal)
        env.reset(seed=0, options={"state": s, "learner_seat": 0})
        _obs, r, term, trunc, _info = _act(env, env.codec.end)
        assert (r, term, trunc) == (expected, False, True)


def test_shaping_telescopes_over_an_episode():
    env = RiskSingleAgentEnv(num_players=2, turn_limit=24, shaping=2.0, truncation_reward="draw")
    env0 = RiskSingleAgentEnv(num_players=2, turn_limit=24, shaping=0.0, truncation_reward="draw")
    for e in (env, env0):
        e.reset(seed=3)
    phi0 = env._potential()
    rng0, rng1 = np.random.default_rng(5), np.random.default_rng(5)
    total = total0 = 0.0
    done = False
    while not done:
        a = int(rng0.choice(np.flatnonzero(env.action_masks())))
        assert a == int(rng1.choice(np.flatnonzero(env0.action_masks())))
        _, r, te, tr, _ = env.step(a)
        _, r0, _, _, _ = env0.step(a)
        total += r
        total0 += r0
        done = te or tr
    # shaping_gamma = 1: the undiscounted shaping telescopes to 2 * (0 - phi0) (phi = 0 at the end)
    assert total == pytest.approx(total0 - 2.0 * phi0)


# ---------------------------------------------------------------------- illegal actions, stalls
def test_invalid_action_modes():
    illegal = 69  # "end" is illegal in the reinforce phase of a new game's first decision
    env = RiskSingleAgentEnv(num_players=2, turn_limit=30)
    env.reset(seed=0)
    assert env.state.phase == Phase.REINFORCE and not env.action_masks()[illegal]
    obs, r, term, trunc, info = env.step(illegal)
    assert info["invalid_action"] and not term  # replaced by a random legal id

    env = RiskSingleAgentEnv(num_players=2, turn_limit=30, invalid_action="penalty", invalid_penalty=-2.0)
    env.reset(seed=0)
    _obs, r, term, trunc, info = env.step(illegal)
    assert (r, term, trunc, info["invalid_action"]) == (-2.0, True, False, True)

    env = RiskSingleAgentEnv(num_players=2, turn_limit=30, invalid_action="raise")
    env.reset(seed=0)
    before = env.state.copy()
    with pytest.raises(IllegalActionError, match="illegal"):
        env.step(illegal)
    assert env.state == before


def test_turn_step_cap_ends_the_episode_as_a_loss():
    g = make_game(2)
    s = build(g, default_owner=0, owners={"Kamchatka": 1}, armies={"Alaska": 30, "Kamchatka": 20}, player=0, phase=Phase.ATTACK)
    env = RiskSingleAgentEnv(num_players=2, opponents=_first_legal, max_turn_steps=2)
    env.reset(seed=0, options={"state": s, "learner_seat": 0})
    assert _act(env, tid(g, "Alaska"))[1:4] == (0.0, False, False)
    assert _act(env, tid(g, "Kamchatka"))[1:4] == (0.0, False, False)
    _, r, term, trunc, info = _act(env, env.codec.dice)  # one die: 20 defenders survive the roll
    assert (r, term, trunc, info["stalled"]) == (-1.0, True, False, True)


# ---------------------------------------------------------------------- opponents
def test_opponents_get_observation_and_view_info():
    seen = []

    def look(obs, info):
        view = info["view"]  # what that seat may know, as in the AEC env's info
        assert view.is_my_decision and view.current_player == view.seat
        seen.append((view.seat, obs["observation"].shape))
        return int(np.flatnonzero(obs["action_mask"])[0])

    spy = CallableAgent(look)  # a function gets a view unless it says needs_view=False

    env = RiskSingleAgentEnv(num_players=3, opponents=spy, turn_limit=10, learner_seat=0)
    env.reset(seed=1)
    for _ in range(200):
        _, _, te, tr, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
        if te or tr:
            break
    assert seen and {x[0] for x in seen} <= {1, 2}
    assert all(x[1] == env.observation_space.shape for x in seen)


def test_heuristic_opponents_by_name_beat_a_passive_learner():
    env = RiskSingleAgentEnv(num_players=2, opponents="aggressive", turn_limit=60)
    env.reset(seed=0)
    done, ret = False, 0.0
    while not done:  # the learner only ends its phases
        m = env.action_masks()
        a = env.codec.end if m[env.codec.end] else int(np.flatnonzero(m)[0])
        _, r, te, tr, _ = env.step(a)
        ret += r
        done = te or tr
    assert te and ret == -1.0


def test_opponent_pool_sampling_scheme():
    pool = OpponentPool(["random", "aggressive"], weights=[1.0, 0.0])
    rng = np.random.default_rng(0)
    assert {type(a).__name__ for _ in range(20) for a in pool.sample(rng, 3)} == {"RandomAgent"}
    assert pool.snapshots == []
    pool = OpponentPool(["random"], max_snapshots=3)
    for k in range(5):
        pool.add(f"snap_{k}.zip")
    assert pool.snapshots == ["snap_0.zip", "snap_3.zip", "snap_4.zip"]  # the first one is kept as an anchor
    with pytest.raises(ConfigError):
        OpponentPool([])
    with pytest.raises(ConfigError):
        OpponentPool(["random"], p_snapshot=1.5)
    env = RiskSingleAgentEnv(opponents="random")
    with pytest.raises(ConfigError, match="fixed opponents"):
        env.add_snapshot("x.zip")


# ---------------------------------------------------------------------- vectorized
def test_subproc_vec_env_reaches_action_masks():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import SubprocVecEnv

    fns = [lambda: RiskSingleAgentEnv(num_players=2, turn_limit=30) for _ in range(2)]
    venv = SubprocVecEnv(fns)
    try:
        venv.seed(0)
        obs = venv.reset()
        assert obs.shape == (2, 321)
        for _ in range(50):
            masks = get_action_masks(venv)
            assert masks.shape == (2, 70) and masks.dtype == bool and masks.any(axis=1).all()
            actions = np.array([np.flatnonzero(m)[0] for m in masks])
            obs, _rew, dones, infos = venv.step(actions)
            for m_info, d in zip(infos, dones, strict=False):
                if not d:
                    assert m_info["action_mask"].any()
    finally:
        venv.close()
