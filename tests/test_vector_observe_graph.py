"""The batched graph observation is bit for bit the AEC env's ``observation="graph"``: positions of
every phase from random games of the AEC env itself, loaded into the batched engine, observed from
every seat (the seat to act with its mask, the others with zeros), and VectorEnv's graph mode."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from vector_support import DEVICE, one_torch_thread  # noqa: F401 (the fixture applies to this module)

import risk_env
from risk_env import Phase, RulesConfig
from risk_env.vector import VectorEnv, VectorGame

RULES = {
    "4p-claim": (RulesConfig(num_players=4, map="small", turn_limit=40), 700),
    "2p-neutral-claim": (RulesConfig(num_players=2, map="small", setup="claim", turn_limit=40), 600),
    "3p-classic-map": (RulesConfig(num_players=3, turn_limit=6), 500),
    "6p-deal": (RulesConfig(num_players=6, map="small", setup="deal", starting_armies=6, turn_limit=30), 500),
    "choose-expert": (
        RulesConfig(num_players=3, map="small", defender_dice="choose", reroll_with_card=True, die_to_six=True),
        600,
    ),
    "capitals": (RulesConfig.from_preset("capitals", map="small", num_players=3), 500),
    "allied": (RulesConfig.from_preset("allied", map="small"), 600),
    "missions": (RulesConfig.from_preset("secret_missions", num_players=4, setup="random", turn_limit=8), 500),
}


def _positions(rules: RulesConfig, steps: int, turn_feature: bool, seed: int):
    """(state, selection, {seat: AEC observation}) of every ``k``-th decision of random AEC games."""
    env = risk_env.raw_env(rules=rules, observation="graph", turn_feature=turn_feature)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    out = []
    for t in range(steps):
        if not env.agents:
            env.reset()
        agent = env.agent_selection
        obs = env.observe(agent)
        dead = env.terminations[agent] or env.truncations[agent]  # (a removed agent's last step: no one acts)
        if t % 3 == 0 and not dead:
            seen = {env.agent_name_mapping[a]: env.observe(a) for a in env.possible_agents}
            out.append((env.game_state.copy(), env.selection.copy(), seen))
        if dead:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        w = np.where(legal == env.codec.end, 0.05, 1.0)
        env.step(int(rng.choice(legal, p=w / w.sum())))
    return out


@pytest.mark.parametrize("name", list(RULES))
@pytest.mark.parametrize("turn_feature", [False, True])
def test_batched_graph_observation_is_the_aec_envs(name: str, turn_feature: bool) -> None:
    rules, steps = RULES[name]
    pos = _positions(rules, steps, turn_feature, seed=len(name))
    vg = VectorGame(rules, device=DEVICE)
    vs = vg.from_states([p[0] for p in pos], [p[1] for p in pos])
    mask = vg.action_mask(vs)
    cur = vg.current_player(vs)
    phases = {int(p[0].phase) for p in pos}
    assert len(phases) >= 4, phases
    for seat in range(rules.num_players):
        seats = torch.full((len(pos),), seat, dtype=torch.int64, device=DEVICE)
        m = torch.where((cur == seat)[:, None], mask, False)
        flat = vg.observe(vs, seats)
        if not turn_feature:
            flat[:, vg.obs_layout.start("turn")] = 0.0
        got = {k: v.cpu().numpy() for k, v in vg.observe_graph(vs, seats, m, turn_feature, flat).items()}
        for b, (s, _, seen) in enumerate(pos):
            want = seen[seat]
            for key in ("nodes", "edges", "globals", "action_mask"):
                assert got[key][b].dtype == want[key].dtype, key
                assert np.array_equal(got[key][b], want[key]), (
                    f"{name} position {b} ({Phase(s.phase).name}) seat {seat}: {key} differs at "
                    f"{np.argwhere(got[key][b] != want[key])[:5].tolist()}"
                )
        # without a flat observation given, the same
        again = vg.observe_graph(vs, seats, m, turn_feature)
        if turn_feature:
            assert torch.equal(again["nodes"].cpu(), torch.as_tensor(got["nodes"]))


def test_vector_env_graph_mode_matches_its_own_flat_observation() -> None:
    rules = RulesConfig(num_players=3, map="small", setup="random", defender_dice="choose")
    env = VectorEnv(16, seed=4, rules=rules, observation="graph")
    flat_env = VectorEnv(16, seed=4, rules=rules)
    gen = torch.Generator().manual_seed(3)
    out, fout = env.reset(), flat_env.reset()
    g = env.game
    for _ in range(200):
        obs = out.observation
        assert isinstance(obs, dict) and set(obs) == {"nodes", "edges", "globals", "action_mask"}
        # (the defender's choice of dice adds its blitz_defence global: G = 74)
        assert obs["nodes"].shape == (16, g.T, 20) and obs["globals"].shape == (16, 74) == (16, g.graph_tables.G)
        assert obs["edges"].shape == (16, 2, g.graph_tables.edges.shape[1])
        assert torch.equal(obs["action_mask"].bool(), out.action_mask)
        assert torch.equal(out.action_mask, fout.action_mask) and torch.equal(out.current_player, fout.current_player)
        assert env.state is not None
        want = g.observe_graph(env.state, out.current_player, out.action_mask, turn_feature=False)
        for k in ("nodes", "globals", "action_mask"):
            assert torch.equal(obs[k], want[k]), k
        # the flat env's observation carries the turn; the graph's does not by default
        assert isinstance(fout.observation, torch.Tensor) and fout.observation.shape == (16, g.obs_size)
        a = torch.where(out.action_mask, torch.rand(out.action_mask.shape, generator=gen), -1.0).argmax(1)
        out, fout = env.step(a), flat_env.step(a)
    seen = env.observe(torch.zeros(16, dtype=torch.int64))
    assert isinstance(seen, dict)
    acting = out.current_player == 0
    assert (seen["action_mask"][~acting] == 0).all()
    assert torch.equal(seen["action_mask"][acting].bool(), out.action_mask[acting])
