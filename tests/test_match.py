"""The one agent-driving loop (risk_env.tools.match.play_match): seeds, records, hooks, guards."""

from __future__ import annotations

import numpy as np
import pytest

import risk_env
from risk_env.agents import RandomAgent, load_agent
from risk_env.errors import ConfigError, IllegalActionError
from risk_env.records.record import GameRecord, same_position
from risk_env.tools.match import MatchResult, play_match
from risk_env.tools.soak import expected_rewards


def _env(**rules):
    return risk_env.raw_env(**{"num_players": 3, "map": "small", "setup": "random", "turn_limit": 40, **rules})


def test_same_seeds_same_game_and_the_record_replays_it() -> None:
    env = _env()
    agents = [RandomAgent(), load_agent("balanced"), load_agent("aggressive")]
    a = play_match(env, agents, seed=9, agent_seeds=[1, 2, 3], record=True, players=["r", "b", "a"])
    b = play_match(env, agents, seed=9, agent_seeds=[1, 2, 3])
    assert isinstance(a, MatchResult) and a.finished and a.record is not None and b.record is None
    assert (a.winner, a.turns, a.moves, a.steps, a.returns) == (b.winner, b.turns, b.moves, b.steps, b.returns)
    rec = GameRecord.from_json(a.record.to_json())
    assert (
        rec.players == ["r", "b", "a"] and len(rec.moves) == a.moves and rec.actions is not None and len(rec.actions) == a.steps
    )
    assert same_position(rec.verify(), env.game_state)
    # the rewards collected are the documented ones, and agree with the result
    assert a.returns == pytest.approx(expected_rewards(env))
    if a.winner >= 0:
        assert a.returns[f"player_{a.winner}"] == 1.0 and not a.truncated
    assert sum(a.territories) == env.game.T == 9
    assert [int(p) for p in env.game_state.elim_order] == a.elimination_order


def test_hooks_see_every_action_in_order() -> None:
    env = _env(turn_limit=5)
    seen: list[tuple[str, int]] = []
    after: list[tuple[str, int]] = []

    def before(agent: str, action: int, obs, info) -> None:
        assert info["action_mask"][action] == 1 and obs["action_mask"][action] == 1
        assert env.agent_selection == agent
        seen.append((agent, action))

    r = play_match(
        env,
        [RandomAgent(0), RandomAgent(1), RandomAgent(2)],
        seed=1,
        before_step=before,
        on_step=lambda a, x: after.append((a, x)),
    )
    assert seen == after and len(seen) == r.steps > 0


def test_views_and_observations_as_asked() -> None:
    env = _env(turn_limit=3)
    got: list[tuple[bool, bool]] = []

    def probe(obs, info) -> int:
        got.append(("view" in info, "observation" in obs))
        return int(np.flatnonzero(info["action_mask"])[0])

    play_match(env, [probe, RandomAgent(0), RandomAgent(1)], seed=0, observe=False, views=False)
    assert got and set(got) == {(False, False)}
    got.clear()
    play_match(env, [probe, RandomAgent(0), RandomAgent(1)], seed=0, views=True)
    assert set(got) == {(True, True)}


def test_a_turn_over_the_step_cap_stops_the_game() -> None:
    env = _env()
    r = play_match(env, [RandomAgent(0)] * 3, seed=2, max_turn_steps=1, record=True)
    # the first turn's reinforcement takes more than one action id: the cap stops the game there
    assert r.stalled_by == env.game_state.order[0] and r.turns == 1 and r.steps == 1
    assert not r.finished and r.winner == -1
    assert r.record is not None and r.record.result is not None and r.record.result["ended"] == "stalled"


def test_bad_agents_and_illegal_actions() -> None:
    env = _env()
    with pytest.raises(ConfigError, match="give one per seat \\(3\\), got 2"):
        play_match(env, [RandomAgent(), RandomAgent()], seed=0)
    with pytest.raises(ConfigError, match="no entry for player_2"):
        play_match(env, {"player_0": RandomAgent(), "player_1": RandomAgent()}, seed=0)
    with pytest.raises(ConfigError, match="max_turn_steps"):
        play_match(env, [RandomAgent()] * 3, seed=0, max_turn_steps=0)

    def illegal(obs, info) -> int:
        return int(np.flatnonzero(info["action_mask"] == 0)[0])

    with pytest.raises(IllegalActionError, match=r"agent 'illegal' \(player_0, game seed 4\)"):
        play_match(env, [load_agent(illegal), RandomAgent(), RandomAgent()], seed=4)
