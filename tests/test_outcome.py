"""Game.outcome (docs/rules.md §4.5) on hand-built final positions, and that the
front ends (AEC env, single-agent env) hand out exactly the engine's returns."""

from __future__ import annotations

import numpy as np
import pytest

import risk_env
from risk_env import Game, Outcome, Phase, RulesConfig
from risk_env.rules.outcome import rank_returns


def _final(game: Game, territories: dict[int, int], armies: dict[int, int] | None = None, truncated: bool = True):
    """A game-over position of the classic map: seat -> number of territories (the rest
    to the first seat listed), 1 army each unless ``armies`` gives a seat's per-territory count."""
    s = game.new_game(0)
    seats = list(territories)
    s.owner[:] = seats[0]
    s.armies[:] = 1
    t = 0
    for seat, k in territories.items():
        s.owner[t : t + k] = seat
        s.armies[t : t + k] = (armies or {}).get(seat, 1)
        t += k
    dead = [p for p in range(game.num_players) if p not in territories]
    s.alive = [p in territories for p in range(game.num_players)]
    s.elim_order = dead
    s.phase = Phase.GAME_OVER
    s.truncated = truncated
    s.winner = -1 if truncated else seats[0]
    return s


@pytest.mark.parametrize(
    "mode,expected",
    [
        # seat 0 has 20 territories, seats 1 and 2 tie at 11 each (same armies), seat 3 is out:
        # places 0, 1, 2 are worth +1, 0, -1; the tie shares (0 + -1) / 2
        ("rank", (1.0, -0.5, -0.5, -1.0)),
        ("draw", (0.0, 0.0, 0.0, -1.0)),
    ],
)
def test_truncation_returns(mode, expected):
    g = Game(RulesConfig(num_players=4, setup="random", truncation_reward=mode))
    s = _final(g, {0: 20, 1: 11, 2: 11})
    out = g.outcome(s)
    assert out == Outcome(False, True, -1, expected, (3,))
    assert out.over


def test_rank_ties_broken_by_armies():
    g = Game(RulesConfig(num_players=3, setup="random", truncation_reward="rank"))
    s = _final(g, {0: 14, 1: 14, 2: 14}, armies={0: 2, 1: 3, 2: 1})
    assert g.outcome(s).returns == (0.0, 1.0, -1.0)


def test_win_and_game_in_progress():
    g = Game(RulesConfig(num_players=3, setup="random"))
    s = _final(g, {2: 42}, truncated=False)
    assert g.outcome(s) == Outcome(True, False, 2, (-1.0, -1.0, 1.0), (0, 1))
    s = g.new_game(1)
    s.alive[1] = False
    s.elim_order = [1]
    out = g.outcome(s)
    assert out == Outcome(False, False, -1, (0.0, -1.0, 0.0), (1,)) and not out.over


def test_rank_returns_formula():
    assert rank_returns([(3, 9)]) == (0.0,)
    assert rank_returns([(1, 1), (2, 2)]) == (-1.0, 1.0)
    assert rank_returns([(5, 5)] * 4) == pytest.approx((0.0,) * 4, abs=1e-12)
    assert rank_returns([(4, 0), (3, 0), (2, 0), (1, 0), (0, 0)]) == (1.0, 0.5, 0.0, -0.5, -1.0)


@pytest.mark.parametrize("mode", ["draw", "rank"])
def test_aec_rewards_are_the_engine_returns(mode):
    """Summed rewards of every agent over random games equal Game.outcome's returns."""
    rng = np.random.default_rng(0)
    for seed in range(6):
        e = risk_env.raw_env(num_players=4, map="small", setup="random", turn_limit=8, truncation_reward=mode)
        e.reset(seed=seed)
        total = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            total[agent] += reward
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(len(legal))]))
        returns = e.game.outcome(e.game_state).returns
        assert total == {a: returns[p] for p, a in enumerate(e.possible_agents)}


def test_single_agent_final_reward_is_the_engine_return():
    from risk_env.envs.single_agent import RiskSingleAgentEnv

    for seed in range(4):
        env = RiskSingleAgentEnv(num_players=3, map="small", turn_limit=6, truncation_reward="rank")
        _, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done, reward = False, 0.0
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, reward, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
            done = term or trunc
        s = env.state
        assert reward == env.game.outcome(s).returns[env.seat]
        assert trunc == (s.truncated and bool(s.alive[env.seat]))
