"""The PettingZoo AEC environment: PettingZoo's own API and seed tests for 2..6 players,
the registry, masks, rewards, truncation, strict and wrapped illegal-action handling,
and that observations do not leak hidden cards."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test

import risk_env
from risk_env import IllegalActionError, Phase

PLAYERS = [2, 3, 4, 5, 6]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_api_test(n):
    api_test(risk_env.env(num_players=n), num_cycles=400)


@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_seed_test(n):
    seed_test(lambda: risk_env.env(num_players=n), num_cycles=300)


@pytest.mark.parametrize(
    "rules",
    [
        {"num_players": 3, "map": "small", "setup": "random", "defender_dice": "choose"},
        {"num_players": 2, "map": "small", "two_player": "none", "card_trade": "no_cards"},
        {"num_players": 4, "preset": "fast", "fortify": "connected", "turn_limit": 12},
        {"num_players": 3, "preset": "expert", "map": "small", "setup": "random"},
        {"num_players": 4, "preset": "tournament", "map": "small"},
        {"num_players": 3, "preset": "stars", "map": "small", "setup": "random", "die_to_six": True},
        {"num_players": 2, "map": "small", "reroll_with_card": True, "defender_dice": "choose", "card_trade": "stars"},
        {"num_players": 3, "preset": "secret_missions", "setup": "random", "turn_limit": 40},
        {"num_players": 2, "preset": "secret_missions", "mission_target_taken": "holder_wins", "turn_limit": 40},
        {"num_players": 3, "preset": "capitals", "map": "small", "setup": "random"},
        {"num_players": 2, "preset": "capitals", "turn_limit": 40},
        {"preset": "allied", "turn_limit": 40},
        {"preset": "allied", "map": "small", "setup": "deal", "defender_dice": "choose"},
    ],
    ids=[
        "choose-defender",
        "duel-no-cards",
        "fast-connected",
        "expert",
        "tournament",
        "stars-six",
        "2p-reroll-choose-stars",
        "missions",
        "missions-holder-wins",
        "capitals",
        "capitals-2p",
        "allied",
        "allied-choose-small",
    ],
)
def test_pettingzoo_api_test_variants(rules):
    api_test(risk_env.env(**rules), num_cycles=400)


@pytest.mark.parametrize(
    "rules",
    [
        {"num_players": 3, "preset": "expert", "map": "small", "setup": "random"},
        {"num_players": 4, "preset": "tournament", "map": "small"},
        {"num_players": 3, "preset": "stars", "map": "small", "setup": "random", "die_to_six": True},
        {"num_players": 3, "preset": "secret_missions", "setup": "random", "turn_limit": 40},
        {"num_players": 3, "preset": "capitals", "map": "small", "setup": "random"},
        {"preset": "allied", "map": "small", "defender_dice": "choose"},
    ],
    ids=["expert", "tournament", "stars-six", "missions", "capitals", "allied"],
)
def test_pettingzoo_seed_test_variants(rules):
    seed_test(lambda: risk_env.env(**rules), num_cycles=300)


def test_raw_env_api_test():
    api_test(risk_env.raw_env(num_players=3, map="small", setup="random"), num_cycles=300)


def test_registry_make():
    import pettingzoo

    e = pettingzoo.make("aec", "risk/risk-v0")
    assert e.metadata["name"] == "risk_v0"
    e.reset(seed=0)
    assert e.possible_agents == [f"player_{i}" for i in range(4)]
    e3 = pettingzoo.make("aec", "risk/risk-v0", num_players=3, setup="random")
    e3.reset(seed=1)
    assert len(e3.possible_agents) == 3
    assert e3.unwrapped.game_state.phase == Phase.REINFORCE


def test_metadata_agents_and_spaces():
    e = risk_env.env(num_players=5, render_mode="ansi")
    e.reset(seed=3)
    assert e.metadata["name"] == "risk_v0" and e.render_mode == "ansi"
    assert e.possible_agents == [f"player_{i}" for i in range(5)]
    u = e.unwrapped
    N = u.codec.n
    assert N == u.game.T + 28 == 70
    for a in e.possible_agents:
        assert e.action_space(a) is e.action_space(a)
        assert e.observation_space(a) is e.observation_space(a)
        assert isinstance(e.action_space(a), spaces.Discrete) and e.action_space(a).n == N
        sp = e.observation_space(a)
        assert sp["action_mask"].shape == (N,) and sp["action_mask"].dtype == np.int8
        assert sp["observation"].dtype == np.float32
    assert isinstance(e.render(), str)


def _play(e, seed: int, max_steps: int = 200_000, check=None):
    """Random masked play through agent_iter; returns (cumulative rewards, last infos)."""
    rng = np.random.default_rng(seed)
    total = {a: 0.0 for a in e.possible_agents}
    e.reset(seed=seed)
    phases = set()
    for steps, agent in enumerate(e.agent_iter()):
        obs, rew, term, trunc, info = e.last()
        total[agent] += rew
        if term or trunc:  # dead step: nothing to do, an all-zero mask
            assert not obs["action_mask"].any()
            e.step(None)
            continue
        if check is not None:
            check(e, agent, obs, info)
        phases.add(int(e.unwrapped.game_state.phase))
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
        assert steps < max_steps
    return total, phases


def _check_masks(e, agent, obs, info):
    u = e.unwrapped
    s = u.game_state
    N = u.codec.n
    seat = u.agent_name_mapping[agent]
    assert u.game.current_player(s) == seat
    mask = u.codec.mask(s, u.selection)
    assert np.array_equal(obs["action_mask"], mask) and np.array_equal(info["action_mask"], mask)
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (N,)
    assert obs["observation"].dtype == np.float32 and (obs["observation"] >= 0).all()
    # every other agent sees an all-zero mask
    for other in e.agents:
        if other != agent:
            assert not e.observe(other)["action_mask"].any()
            assert not e.infos[other]["action_mask"].any()


def test_full_games_end_with_winner_and_rewards():
    winners = 0
    for seed in range(6):
        e = risk_env.env(num_players=3, map="small", setup="random", turn_limit=10_000)
        total, _ = _play(e, seed, check=_check_masks)
        s = e.unwrapped.game_state
        assert s.phase == Phase.GAME_OVER and s.winner >= 0
        winners += 1
        w = f"player_{s.winner}"
        assert total[w] == 1.0
        assert all(total[a] == -1.0 for a in total if a != w)
        assert e.agents == []  # everyone left through the dead-step convention
    assert winners == 6


def test_truncation_draw_and_rank():
    for reward in ("draw", "rank"):
        e = risk_env.env(num_players=4, map="small", setup="random", turn_limit=6, truncation_reward=reward)
        total, _ = _play(e, 5)
        s = e.unwrapped.game_state
        assert s.truncated and s.winner == -1 and s.turn == 6
        live = [f"player_{p}" for p in range(4) if s.alive[p]]
        dead = [f"player_{p}" for p in range(4) if not s.alive[p]]
        assert all(total[a] == -1.0 for a in dead)
        if reward == "draw":
            assert all(total[a] == 0.0 for a in live)
        else:
            vals = sorted(total[a] for a in live)
            if len(live) > 1:
                assert vals[-1] <= 1.0 and vals[0] >= -1.0 and abs(sum(vals)) < 1e-9


def test_truncation_flags():
    e = risk_env.raw_env(num_players=3, map="small", setup="random", turn_limit=2)
    e.reset(seed=0)
    codec = e.codec
    while e.game_state.phase != Phase.GAME_OVER:
        m = codec.mask(e.game_state, e.selection)
        # place everything at once, never attack, never fortify
        a = codec.end if m[codec.end] else int(np.flatnonzero(m)[-1])
        e.step(a)
    live = [a for a in e.agents if not e.terminations[a]]
    assert live and all(e.truncations[a] and not e.terminations[a] for a in live)
    assert all(isinstance(e.truncations[a], bool) for a in e.agents)


def test_raw_env_illegal_action_raises_and_changes_nothing():
    e = risk_env.raw_env(num_players=4)
    e.reset(seed=2)
    s = e.game_state
    mask = e.codec.mask(s)
    bad = int(np.flatnonzero(mask == 0)[0])
    before = s.to_dict()
    with pytest.raises(IllegalActionError, match="illegal in phase claim"):
        e.step(bad)
    assert s.to_dict() == before
    with pytest.raises(IllegalActionError, match="out of range"):
        e.step(e.codec.n)
    with pytest.raises(IllegalActionError):
        e.step(None)
    assert s.to_dict() == before
    assert issubclass(IllegalActionError, ValueError)


def test_strict_wrapped_env_raises():
    e = risk_env.env(num_players=3, strict=True)
    e.reset(seed=2)
    mask = e.last()[0]["action_mask"]
    with pytest.raises(IllegalActionError):
        e.step(int(np.flatnonzero(mask == 0)[0]))


def test_wrapped_env_terminates_on_illegal_action():
    e = risk_env.env(num_players=3)
    e.reset(seed=2)
    agent = e.agent_selection
    mask = e.last()[0]["action_mask"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(e.terminations.values()) or all(e.truncations.values())
    assert e.rewards[agent] == -1


def test_same_seed_same_game_different_seed_different_game():
    def trace(seed):
        e = risk_env.env(num_players=4, map="small", setup="claim", turn_limit=8)
        e.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = []
        for agent in e.agent_iter():
            obs, _rew, term, trunc, _info = e.last()
            if term or trunc:
                e.step(None)
                continue
            out.append((agent, obs["observation"].tobytes()))
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return out

    assert trace(7) == trace(7)
    assert trace(7) != trace(8)


def test_state_and_layout():
    e = risk_env.raw_env(num_players=4, setup="random")
    e.reset(seed=0)
    st = e.state()
    assert st.dtype == np.float32 and st.shape == e.state_space.shape
    layout = e.observation_layout
    covered = sorted((sl.start, sl.stop) for sl, _ in layout.values())
    assert covered[0][0] == 0 and covered[-1][1] == e.encoder.size
    assert all(a[1] == b[0] for a, b in itertools.pairwise(covered))


def test_observation_does_not_leak_opponent_cards():
    """Swapping an opponent's cards for others (same count, any symbols) leaves my observation unchanged."""
    e = risk_env.raw_env(num_players=3, setup="random")
    e.reset(seed=4)
    s = e.game_state
    me = s.player
    other = (me + 1) % 3
    s.hands[other] = s.deck[-3:]
    del s.deck[-3:]
    base = e.encoder.encode(s, me)
    for trial in range(5):
        s.deck.extend(s.hands[other])
        rng = np.random.default_rng(trial)
        pick = [int(c) for c in rng.choice(s.deck, size=3, replace=False)]
        for c in pick:
            s.deck.remove(c)
        s.hands[other] = pick
        assert np.array_equal(e.encoder.encode(s, me), base)
        # the draw pile's order is hidden too
        s.deck.reverse()
        assert np.array_equal(e.encoder.encode(s, me), base)
    # while my own cards do show
    s.hands[me] = [s.deck.pop()]
    assert not np.array_equal(e.encoder.encode(s, me), base)


def test_every_phase_reached_through_the_env():
    e = risk_env.env(num_players=3, map="small", setup="claim", defender_dice="choose", capitals=True, turn_limit=40)
    phases = set()
    for seed in range(3):
        _, ph = _play(e, seed)
        phases |= ph
    assert phases == {int(p) for p in Phase if p != Phase.GAME_OVER}  # the capital phase included
