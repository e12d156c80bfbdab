"""The one agent-driving loop (risk_env.tools.match.play_match): seeds, records, hooks, guards."""

from __future__ import annotations

import numpy as np
import pytest

import risk_env
from risk_env.agents import RandomAgent, load_agent
from risk_env.errors import AgentError, ConfigError, IllegalActionError
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


def test_an_agent_that_raises_is_named_and_its_game_recorded_so_far() -> None:
    """An agent's own exception was the caller's bare exception (evaluate, watch: a traceback, no record): it is an
    AgentError naming the agent, its seat and the game seed (the type, not the text, which may name its cards), the
    agent's exception its cause, and with ``record=True`` the game so far, ended ``agent error by player_1``."""
    calls = []

    def late(obs, info) -> int:
        calls.append(1)
        if len(calls) > 30:
            raise ValueError("my cards are Alaska and Peru")
        return int(np.flatnonzero(info["action_mask"])[0])

    with pytest.raises(AgentError) as failed:
        play_match(_env(), [RandomAgent(), load_agent(late), RandomAgent()], seed=4, record=True, agent_seeds=[1, 2, 3])
    e = failed.value
    assert str(e) == "agent 'late' (player_1, game seed 4) failed (ValueError)"
    assert isinstance(e.__cause__, ValueError) and "Alaska" not in str(e)
    rec = e.record
    assert isinstance(rec, GameRecord) and rec.result["ended"] == "agent error by player_1" and rec.seed == 4
    assert GameRecord.from_json(rec.to_json()).result == rec.result  # it reads back and replays
    calls.clear()
    with pytest.raises(AgentError) as failed:
        play_match(_env(), [RandomAgent(), load_agent(late), RandomAgent()], seed=4)
    assert failed.value.record is None
    with pytest.raises(ConfigError, match=r"^agents must be a list of specs \(one per seat\), got NoneType None"):
        risk_env.evaluate(None, num_games=2, workers=1, progress=False)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"got set"):  # (a set's order, hence the seats, changed from run to run)
        risk_env.evaluate({"random", "balanced"}, num_games=2, workers=1, progress=False)  # type: ignore[arg-type]
    for ordered in (np.array(["random", "balanced"]), (x for x in ["random", "balanced"]), {"random": 1, "balanced": 2}.keys()):
        result = risk_env.evaluate(ordered, num_games=2, workers=1, progress=False, map="small", turn_limit=3)
        assert result.entrants == ["random", "balanced"]

    def ill(obs, info) -> int:
        return int(np.flatnonzero(info["action_mask"] == 0)[0])

    with pytest.raises(IllegalActionError, match=r"^agent 'ill' \(player_0, game seed 4\): ") as refused:
        play_match(_env(), [load_agent(ill), RandomAgent(), RandomAgent()], seed=4, record=True)
    assert refused.value.record.result["ended"] == "illegal action by player_0"


class _MaskWriter:
    """An agent that marks an illegal territory id legal in the masks it is given (the
    observation's and the info's), then plays it; after that it plays the first legal id."""

    needs_view = False

    def __init__(self, territories: int) -> None:
        self.T = territories
        self.cheated: list[int] = []

    def act(self, obs, info) -> int:
        mask = info["action_mask"]
        if not self.cheated:
            bad = np.flatnonzero(mask[: self.T] == 0)
            if len(bad):
                a = int(bad[0])
                info["action_mask"][a] = 1
                obs["action_mask"][a] = 1
                self.cheated.append(a)
                return a
        return int(np.flatnonzero(mask)[0])


def test_an_agent_writing_into_its_mask_cannot_make_an_illegal_move() -> None:
    from risk_env.envs.single_agent import RiskSingleAgentEnv
    from risk_env.tools.match import play_move

    # play_move (the human game's agents): legality is the codec's mask, not the agent's copy
    game = risk_env.Game(num_players=3, map="small", setup="random")
    codec, encoder = risk_env.ActionCodec(game), risk_env.ObservationEncoder(game)
    s = game.new_game(4)
    seat = game.current_player(s)
    before = s.copy()
    cheat = _MaskWriter(game.T)
    with pytest.raises(IllegalActionError, match=rf"seat {seat}\) chose an illegal action") as refused:
        play_move(game, codec, encoder, s, seat, cheat)
    assert cheat.cheated and int(s.owner[cheat.cheated[0]]) != seat
    assert refused.value.action == cheat.cheated[0]  # the id chosen, for callers that may not show the legal ones
    assert same_position(s, before)

    # play_match (the AEC env's masks are copies already)
    cheat = _MaskWriter(9)
    with pytest.raises(IllegalActionError, match=r"player_0, game seed 4"):
        play_match(_env(), [cheat, RandomAgent(), RandomAgent()], seed=4)
    assert cheat.cheated

    # the single-agent env's opponents
    cheats = [_MaskWriter(9), _MaskWriter(9)]
    env = RiskSingleAgentEnv(num_players=3, map="small", opponents=cheats, learner_seat=0, turn_limit=20)
    with pytest.raises(IllegalActionError, match=r"opponent in seat [12] .* chose an illegal action"):
        env.reset(seed=4)
        for _ in range(500):
            _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            if terminated or truncated:
                break
    assert any(c.cheated for c in cheats)
