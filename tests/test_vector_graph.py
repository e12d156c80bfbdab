"""The batched graph observation (risk_env.train.vector_graph) equals the reference graph encoder
(risk_env.envs.graph) bit for bit, on positions of every phase of random games."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from vector_support import DEVICE, one_torch_thread  # noqa: F401 (the fixture applies to this module)

from risk_env import ActionCodec, Game, GameState, Phase, RulesConfig
from risk_env.envs.codec import Selection
from risk_env.envs.graph import GraphObservationEncoder
from risk_env.train.graph_net import GraphNet
from risk_env.train.vector_graph import BatchedGraphEncoder
from risk_env.vector import VectorGame


def _positions(rules: RulesConfig, games: int, every: int, seed: int) -> tuple[Game, list[GameState], list[Selection]]:
    """Positions of random games (few turn ends, so attacks, conquests and trades happen), one every ``every`` steps."""
    ref = Game(rules)
    codec = ActionCodec(ref)
    rng = np.random.default_rng(seed)
    states: list[GameState] = []
    sels: list[Selection] = []
    for g in range(games):
        s = ref.new_game(seed * 1000 + g)
        sel = Selection()
        t = 0
        while s.phase != Phase.GAME_OVER and t < 3000:
            if t % every == 0:
                states.append(s.copy())
                sels.append(sel.copy())
            legal = np.flatnonzero(codec.mask(s, sel))
            w = np.where(legal == codec.end, 0.05, 1.0)
            codec.step(s, int(rng.choice(legal, p=w / w.sum())), sel)
            t += 1
    return ref, states, sels


@pytest.mark.parametrize("players", [2, 3, 6])
def test_batched_graph_observation_equals_the_reference_encoder(players: int) -> None:
    rules = RulesConfig.from_preset("fast", num_players=players)
    ref, states, sels = _positions(rules, games=4, every=7, seed=players)
    vg = VectorGame(rules, seed=0, device=DEVICE)
    vs = vg.from_states(states, sels)
    enc = BatchedGraphEncoder(vg)
    ref_enc = GraphObservationEncoder(ref)
    codec = ActionCodec(ref)
    phases = set()
    B = len(states)
    for shift in (0, 1):  # the seat to act (with its mask), then the next seat (not acting: no legal ids)
        seat = (vs.player + shift) % players
        flat = vg.observe(vs, seat)
        mask = vg.action_mask(vs) if shift == 0 else torch.zeros(B, vg.num_actions, dtype=torch.bool, device=DEVICE)
        nodes, glob = enc.encode(vs, flat, mask, seat)
        nodes, glob = nodes.cpu().numpy(), glob.cpu().numpy()
        for b, (s, sel) in enumerate(zip(states, sels, strict=True)):
            m = codec.mask(s, sel) if shift == 0 else np.zeros(codec.n, dtype=np.int8)
            want = ref_enc.encode(s, int(seat[b]), sel, m)
            assert np.array_equal(nodes[b], want["nodes"]), (
                f"position {b}: nodes differ at {np.argwhere(nodes[b] != want['nodes'])}"
            )
            assert np.array_equal(glob[b], want["globals"]), (
                f"position {b}: globals differ at {np.flatnonzero(glob[b] != want['globals'])}"
            )
            phases.add(int(s.phase))
    assert {Phase.REINFORCE, Phase.ATTACK, Phase.OCCUPY, Phase.FORTIFY} <= phases
    assert np.array_equal(enc.edges.cpu().numpy(), ref_enc.edges)


def test_the_dense_adjacency_gives_the_networks_own_neighbour_mean() -> None:
    rules = RulesConfig.from_preset("fast", num_players=2)
    vg = VectorGame(rules, seed=0, device=DEVICE)
    enc = BatchedGraphEncoder(vg)
    torch.manual_seed(0)
    net = GraphNet(20, 73, vg.num_actions - vg.T, hidden=8, rounds=2).to(DEVICE)
    nodes, glob = torch.rand(5, vg.T, 20, device=DEVICE), torch.rand(5, 73, device=DEVICE)
    l1, v1 = net(nodes, enc.edges[None].expand(5, -1, -1), glob)
    l2, v2 = net.forward_dense(nodes, glob, enc.adjacency)
    assert torch.equal(l1, l2) and torch.equal(v1, v2)
