"""What real clients rely on: seeding, action values, masks at the end, registration,
fresh arrays, scripted agents from the env's own info, eliminated players that stay,
clear errors for unknown agents and contradictory presets."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys

import gymnasium
import numpy as np
import pytest

import risk_env
from risk_env.agents import load_agent
from risk_env.envs.single_agent import RiskSingleAgentEnv
from risk_env.envs.view import GameView
from risk_env.errors import ActionSpaceError, ConfigError, IllegalActionError, RiskError, UnknownAgentError


def _digest(e) -> tuple:
    s = e.unwrapped.game_state
    return (tuple(s.order), tuple(int(x) for x in s.owner), tuple(int(x) for x in s.armies))


# ---------------------------------------------------------------- fault 1: unseeded reset continues the generator
@pytest.mark.parametrize("make", [risk_env.raw_env, risk_env.env])
def test_unseeded_reset_continues_the_seeded_stream(make):
    games = []
    for _ in range(2):
        e = make(num_players=3, setup="random")
        e.reset(seed=123)
        first = _digest(e)
        e.reset()
        second = _digest(e)
        e.reset()
        games.append((first, second, _digest(e)))
    assert games[0] == games[1]  # one seed makes the whole run reproducible
    first, second, third = games[0]
    assert len({first, second, third}) == 3  # and each reset deals a new game
    # a seeded reset restarts the stream
    e = make(num_players=3, setup="random")
    e.reset(seed=7)
    e.reset(seed=123)
    assert _digest(e) == first
    e.reset()
    assert _digest(e) == second


def test_unseeded_reset_after_a_seed_is_the_same_in_every_process():
    code = (
        "import risk_env; e = risk_env.env(num_players=3, setup='random'); e.reset(seed=123); e.reset(); "
        "s = e.unwrapped.game_state; print(s.order, s.owner.tolist(), s.armies.tolist())"
    )
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout for _ in range(2)}
    assert len(outs) == 1
    e = risk_env.env(num_players=3, setup="random")
    e.reset(seed=123)
    e.reset()
    s = e.unwrapped.game_state
    assert outs == {f"{s.order} {s.owner.tolist()} {s.armies.tolist()}\n"}


def test_first_unseeded_reset_draws_fresh_entropy():
    digests = set()
    for _ in range(3):
        e = risk_env.raw_env(num_players=3, setup="random")
        e.reset()
        digests.add(_digest(e))
    assert len(digests) == 3


def test_single_agent_env_keeps_continuing_its_generator():
    def run() -> list:
        env = RiskSingleAgentEnv(num_players=3, turn_limit=20)
        out = [env.reset(seed=5)[0]]
        out += [env.reset()[0] for _ in range(2)]
        return out

    a, b = run(), run()
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[1], a[2])


# ---------------------------------------------------------------- fault 2: actions in numpy form
def _legal(e) -> int:
    return int(np.flatnonzero(e.last()[0]["action_mask"])[0])


def _forms(a: int) -> list:
    return [a, np.array(a), np.int64(a), np.int32(a), np.uint8(a), np.array(a, dtype=np.int16)]


@pytest.mark.parametrize("make", [risk_env.raw_env, risk_env.env, lambda **k: risk_env.env(strict=True, **k)])
def test_aec_envs_accept_every_integer_form_the_action_space_contains(make):
    for form in range(6):
        e = make(num_players=3, setup="random")
        e.reset(seed=4)
        twin = risk_env.raw_env(num_players=3, setup="random")
        twin.reset(seed=4)
        for _ in range(30):
            a = _legal(e)
            value = _forms(a)[form]
            assert e.action_space(e.agent_selection).contains(value)
            e.step(value)
            twin.step(a)
        assert _digest(e) == _digest(twin)


@pytest.mark.parametrize("make,error", [(risk_env.raw_env, IllegalActionError), (risk_env.env, ActionSpaceError)])
def test_aec_envs_reject_what_is_not_an_id(make, error):
    e = make(num_players=3, setup="random")
    e.reset(seed=4)
    before = _digest(e)
    space = e.action_space(e.agent_selection)
    for bad in (True, np.bool_(True), 2.0, np.float64(3.0), np.array(3.0), np.array([3]), 70, np.array(70), -1, "3"):
        if not isinstance(bad, bool):
            assert not space.contains(bad)
        with pytest.raises(error):
            e.step(bad)
    assert _digest(e) == before


def test_single_agent_env_accepts_numpy_ids_and_rejects_the_rest():
    env = RiskSingleAgentEnv(num_players=2, turn_limit=30)
    twin = RiskSingleAgentEnv(num_players=2, turn_limit=30)
    env.reset(seed=3)
    twin.reset(seed=3)
    for i in range(40):
        a = int(np.flatnonzero(env.action_masks())[0])
        value = _forms(a)[i % 6]
        assert env.action_space.contains(value)
        o1, *_ = env.step(value)
        o2, *_ = twin.step(a)
        np.testing.assert_array_equal(o1, o2)
    before = env.state.copy()
    for bad in (True, np.bool_(False), 1.0, np.float32(2.0), 70, -1, np.array([1]), None):
        with pytest.raises(ActionSpaceError, match="0..69"):
            env.step(bad)
    assert env.state == before


def test_maskable_ppo_predict_output_is_accepted():
    sb3c = pytest.importorskip("sb3_contrib")
    env = RiskSingleAgentEnv(num_players=2, turn_limit=20)
    model = sb3c.MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=0)
    obs, _ = env.reset(seed=0)
    a, _ = model.predict(obs, action_masks=env.action_masks())
    assert isinstance(a, np.ndarray) and a.shape == ()
    env.step(a)
    aec = risk_env.env(num_players=2, setup="random")
    aec.reset(seed=0)
    obs = aec.last()[0]
    a, _ = model.predict(obs["observation"], action_masks=obs["action_mask"].astype(bool))
    aec.step(a)


# ---------------------------------------------------------------- fault 4: the last step's masks
def test_info_mask_and_action_masks_agree_on_every_step_including_the_last():
    for mode in ("random", "penalty"):
        env = RiskSingleAgentEnv(num_players=3, turn_limit=15, invalid_action=mode)
        rng = np.random.default_rng(1)
        for ep in range(3):
            _obs, info = env.reset(seed=ep)
            done = False
            while not done:
                np.testing.assert_array_equal(info["action_mask"].astype(bool), env.action_masks())
                assert info["action_mask"].any()
                a = (
                    int(rng.integers(env.action_space.n))
                    if mode == "penalty"
                    else int(rng.choice(np.flatnonzero(env.action_masks())))
                )
                _obs, _r, te, tr, info = env.step(a)
                done = te or tr
            assert info["action_mask"].all() and env.action_masks().all()


def test_sync_vector_env_sampler_reading_the_info_mask_never_gets_an_empty_row():
    venv = gymnasium.vector.SyncVectorEnv([lambda: RiskSingleAgentEnv(num_players=2, turn_limit=8) for _ in range(2)])
    _obs, info = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(400):
        masks = info["action_mask"]
        assert masks.shape == (2, 70) and masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _obs, _r, te, tr, info = venv.step(actions)
        ends += int((te | tr).sum())
    assert ends >= 2  # the last steps of episodes were crossed
    venv.close()


# ---------------------------------------------------------------- fault 5: registration by `import risk_env`
def test_gymnasium_make_works_after_import_risk_env_alone():
    code = (
        "import sys, gymnasium, risk_env; assert 'risk_env.envs.single_agent' not in sys.modules; "
        "e = gymnasium.make('risk_env/RiskSingleAgent-v0', num_players=2); o, i = e.reset(seed=0); print(o.shape)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "(321,)\n"


# ---------------------------------------------------------------- fault 6: nothing handed out aliases the env
def _scribble(x) -> None:
    if isinstance(x, np.ndarray):
        assert x.flags.writeable
        x[...] = 1 - x if x.dtype != np.float32 else 7.0
    elif isinstance(x, dict):
        for v in list(x.values()):
            _scribble(v)


@pytest.mark.parametrize("make", [risk_env.raw_env, risk_env.env])
def test_mutating_what_the_aec_env_hands_out_changes_nothing(make):
    e, twin = make(num_players=3, setup="random"), risk_env.raw_env(num_players=3, setup="random")
    e.reset(seed=9)
    twin.reset(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(300):
        agent = e.agent_selection
        obs, _r, te, tr, info = e.last()
        assert not (te or tr)
        mask = obs["action_mask"].copy()
        np.testing.assert_array_equal(info["action_mask"], mask)
        a = int(rng.choice(np.flatnonzero(mask)))
        for x in (obs, info, e.observe(agent), e.state(), *(e.infos[b] for b in e.agents), *(e.observe(b) for b in e.agents)):
            _scribble(x)
        np.testing.assert_array_equal(e.last()[0]["action_mask"], mask)
        np.testing.assert_array_equal(e.infos[agent]["action_mask"], mask)
        e.step(a)
        twin.step(a)
        assert _digest(e) == _digest(twin)
        np.testing.assert_array_equal(e.state(), twin.state())
        for b in e.agents:
            np.testing.assert_array_equal(e.observe(b)["observation"], twin.observe(b)["observation"])
        # the acting agent's info is rebuilt at each step (another agent's info is the user's to change)
        np.testing.assert_array_equal(e.infos[e.agent_selection]["action_mask"], twin.infos[e.agent_selection]["action_mask"])


def test_mutating_what_the_single_agent_env_hands_out_changes_nothing():
    env, twin = RiskSingleAgentEnv(num_players=3, turn_limit=20), RiskSingleAgentEnv(num_players=3, turn_limit=20)
    obs, info = env.reset(seed=2)
    twin.reset(seed=2)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        m = env.action_masks()
        a = int(rng.choice(np.flatnonzero(m)))
        for x in (obs, info["action_mask"], m):
            _scribble(x)
        np.testing.assert_array_equal(env.action_masks(), twin.action_masks())
        obs, _r, te, tr, info = env.step(a)
        o2, *_ = twin.step(a)
        np.testing.assert_array_equal(obs, o2)
        done = te or tr


# ---------------------------------------------------------------- fault 8: scripted agents from the env's own info
@pytest.mark.parametrize("make", [risk_env.raw_env, risk_env.env])
def test_scripted_agents_play_a_plain_aec_loop_from_the_env_info(make):
    names = ["aggressive", "balanced", "continent", "random"]
    results = []
    for _ in range(2):
        e = make(num_players=4, setup="random", turn_limit=60)
        e.reset(seed=11)
        agents = {a: load_agent(names[i], seed=i) for i, a in enumerate(e.possible_agents)}
        steps = 0
        for agent in e.agent_iter():
            obs, _r, te, tr, info = e.last()
            if te or tr:
                e.step(None)
                continue
            action = agents[agent].act(obs, info)
            assert obs["action_mask"][action] == 1
            e.step(action)
            steps += 1
        s = e.unwrapped.game_state
        results.append((steps, s.winner, tuple(s.elim_order)))
    assert results[0] == results[1] and results[0][0] > 100


def test_the_info_view_is_a_plain_key_of_the_acting_agent_only():
    e = risk_env.env(num_players=3, setup="random")
    e.reset(seed=0)
    agent = e.agent_selection
    info = e.last()[4]
    assert type(info) is dict and list(info) == ["action_mask", "view"]
    view = info["view"]
    assert isinstance(view, GameView) and view.seat == e.unwrapped.agent_name_mapping[agent] and view.is_my_decision
    other = next(a for a in e.agents if a != agent)
    assert list(e.infos[other]) == ["action_mask"]
    for c in (copy.copy(info), copy.deepcopy(info), pickle.loads(pickle.dumps(info))):
        assert type(c) is dict and list(c) == ["action_mask", "view"] and c["view"].hand == view.hand
        np.testing.assert_array_equal(c["action_mask"], info["action_mask"])
    quiet = risk_env.env(num_players=3, setup="random", views=False)  # for clients that tensorize infos
    quiet.reset(seed=0)
    assert list(quiet.last()[4]) == ["action_mask"] and quiet.unwrapped.view(agent).hand == view.hand
    with pytest.raises(risk_env.ConfigError, match="views"):
        risk_env.raw_env(views="yes")


# ---------------------------------------------------------------- fault 7: eliminated="stay"
def _run_collecting(e, rng: np.random.Generator):
    """Random legal play to the end; per agent the sum of rewards collected through last()."""
    totals = {a: 0.0 for a in e.possible_agents}
    selected_dead_before_end = []
    actions = 0
    for agent in e.agent_iter():
        obs, r, te, tr, _info = e.last()
        totals[agent] += r
        if te or tr:
            if e.unwrapped.game_state.phase != risk_env.Phase.GAME_OVER:
                selected_dead_before_end.append(agent)
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        actions += 1
    return totals, selected_dead_before_end, actions


@pytest.mark.parametrize("n,turn_limit", [(4, 120), (6, 120), (6, 250)])
def test_eliminated_stay_keeps_agents_until_the_end_with_the_same_returns(n, turn_limit):
    saw_elimination = False
    for seed in range(3):
        kw = dict(num_players=n, map="small", setup="random", turn_limit=turn_limit)
        stay = risk_env.env(eliminated="stay", **kw)
        remove = risk_env.env(**kw)
        stay.reset(seed=seed)
        remove.reset(seed=seed)
        # during the game: everybody stays, nobody is terminated, eliminated players never act
        rng = np.random.default_rng(seed)
        steps = 0
        while stay.unwrapped.game_state.phase != risk_env.Phase.GAME_OVER:
            assert stay.agents == stay.possible_agents
            assert not any(stay.terminations.values()) and not any(stay.truncations.values())
            assert set(stay.rewards.values()) == {0.0}
            s = stay.unwrapped.game_state
            for a in stay.agents:
                seat = stay.unwrapped.agent_name_mapping[a]
                if not s.alive[seat]:
                    assert a != stay.agent_selection and not stay.observe(a)["action_mask"].any()
                    saw_elimination = True
            obs = stay.last()[0]
            stay.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        s = stay.unwrapped.game_state
        # at the end: every agent done at once, eliminated players with their -1
        assert all(stay.terminations[a] or stay.truncations[a] for a in stay.agents)
        for a in stay.agents:
            seat = stay.unwrapped.agent_name_mapping[a]
            if not s.alive[seat]:
                assert stay.terminations[a] and stay.rewards[a] == -1.0
            elif s.winner == seat:
                assert stay.rewards[a] == 1.0
        # the same actions give the same game and the same returns as the default mode
        stay.reset(seed=seed)
        totals_stay, dead_early, actions_stay = _run_collecting(stay, np.random.default_rng(seed))
        totals_remove, _, actions_remove = _run_collecting(remove, np.random.default_rng(seed))
        assert dead_early == [] and actions_stay == actions_remove == steps
        assert totals_stay == totals_remove
        assert stay.agents == [] and _digest(stay) == _digest(remove)
    assert saw_elimination


def test_eliminated_option_is_checked():
    with pytest.raises(ConfigError, match="remove, stay"):
        risk_env.raw_env(num_players=3, eliminated="keep")
    assert risk_env.env(num_players=3).unwrapped.eliminated == "remove"


# ---------------------------------------------------------------- frictions: unknown agents, contradictory presets
@pytest.mark.parametrize("make", [risk_env.raw_env, risk_env.env])
def test_unknown_agent_names_raise_a_clear_error(make):
    e = make(num_players=3)
    for call in (e.action_space, e.observation_space):
        with pytest.raises(UnknownAgentError, match="player_0, player_1, player_2"):
            call("player_3")
    e.reset(seed=0)
    for call in (lambda a: e.action_to_string(a, 0), e.observe, e.action_space, e.observation_space):
        for bad in ("player_9", "bob", 0, None):
            with pytest.raises(UnknownAgentError, match="unknown agent") as info:
                call(bad)
            assert isinstance(info.value, RiskError) and "player_0, player_1, player_2" in str(info.value)
    assert e.action_to_string(e.agent_selection, np.array(0)) == e.action_to_string(e.agent_selection, 0)


def test_a_preset_for_two_players_refuses_another_player_count():
    for make in (risk_env.raw_env, risk_env.env, RiskSingleAgentEnv):
        with pytest.raises(ConfigError, match="'duel' is meant for 2 players"):
            make(num_players=4, preset="duel")
    assert risk_env.env(preset="duel").unwrapped.rules.num_players == 2
    assert risk_env.env(num_players=2, preset="duel").unwrapped.rules.num_players == 2
    assert risk_env.env(num_players=5, preset="fast").unwrapped.rules.num_players == 5


# ---------------------------------------------------------------- fault 3: single-agent render modes
def test_single_agent_env_draws_rgb_array_frames_like_the_aec_env():
    pytest.importorskip("matplotlib", reason="frames need the render extra")
    env = RiskSingleAgentEnv(num_players=2, map="small", render_mode="rgb_array", turn_limit=10)
    env.reset(seed=0)
    frame = env.render()
    aec = risk_env.raw_env(num_players=2, map="small", setup="random", render_mode="rgb_array")
    aec.reset(seed=0)
    assert frame.dtype == np.uint8 and frame.shape == aec.render().shape and frame.shape[2] == 3
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert env.render().shape == frame.shape
    assert isinstance(RiskSingleAgentEnv(num_players=2, render_mode="ansi").metadata["render_fps"], int)
    env.close()


def test_single_agent_human_mode_without_display_warns_once(monkeypatch):
    pytest.importorskip("matplotlib", reason="the window needs the render extra")
    import warnings

    from risk_env.records.draw import NoDisplayWarning

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    env = RiskSingleAgentEnv(num_players=2, map="small", render_mode="human", turn_limit=10)
    with pytest.warns(NoDisplayWarning):
        env.reset(seed=0)  # reset() and step() draw in human mode
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert env.render() is None
    env.close()


def test_single_agent_render_mode_is_checked():
    with pytest.raises(ConfigError, match="'ansi', 'human', 'rgb_array'"):
        RiskSingleAgentEnv(num_players=2, render_mode="video")


@pytest.mark.parametrize("make", [risk_env.raw_env, risk_env.env])
def test_the_info_mask_is_the_envs_copy_for_the_decision_as_docs_clients_md_says(make):
    e = make(num_players=3, setup="random")
    e.reset(seed=4)
    obs1, *_, info1 = e.last()
    obs2, *_, info2 = e.last()
    # last() returns the env's infos[agent]: the same dict and array within one decision
    assert info2 is info1 is e.infos[e.agent_selection] and info2["action_mask"] is info1["action_mask"]
    # the observation's mask is a new array at each call
    assert not np.shares_memory(obs1["action_mask"], obs2["action_mask"])
    legal = int(np.flatnonzero(obs1["action_mask"])[-1])
    info1["action_mask"][:] = 0
    assert e.last()[4]["action_mask"].sum() == 0  # the write is seen by the next last() of this decision
    e.step(legal)  # ... but not by the legality checks: a legal id zeroed in the info mask is played
    assert not any(e.terminations.values())
    agent = e.agent_selection
    mask = e.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    e.last()[4]["action_mask"][illegal] = 1
    before = _digest(e)
    if make is risk_env.raw_env:
        with pytest.raises(IllegalActionError):
            e.step(illegal)
        assert _digest(e) == before
    else:  # the classic wrapper ends the game, the offender gets -1
        e.step(illegal)
        assert e.terminations[agent] and e.rewards[agent] == -1 and _digest(e) == before
