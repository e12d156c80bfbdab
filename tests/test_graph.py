"""The graph observation (risk_env.envs.graph), the territory-graph policy
(risk_env.train.graph_policy) and the potential-based shaping of the single-agent env."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import build, give_cards, make_game, tid

import risk_env
from risk_env import ConfigError, Phase
from risk_env.envs.graph import GLOBAL_FEATURES, NODE_FEATURES, GraphObservationEncoder
from risk_env.envs.single_agent import RiskSingleAgentEnv

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")


def _random_walk(env: RiskSingleAgentEnv, seed: int, steps: int):
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    yield obs
    for _ in range(steps):
        obs, _r, te, tr, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        yield obs
        if te or tr:
            obs, _ = env.reset()
            yield obs


# ---------------------------------------------------------------------- the observation
def test_graph_spaces_on_two_maps_and_player_counts():
    for num_players, mp, T, E, N in ((2, "classic", 42, 166, 70), (4, "small", 9, 26, 37)):
        env = RiskSingleAgentEnv(num_players=num_players, observation="graph", map=mp, setup="random")
        sp = env.observation_space
        assert sp["nodes"].shape == (T, 20) and sp["nodes"].dtype == np.float32
        assert sp["edges"].shape == (2, E) and sp["edges"].dtype == np.int64
        assert sp["globals"].shape == (73,) and sp["globals"].dtype == np.float32
        assert sp["action_mask"].shape == (N,) and sp["action_mask"].dtype == np.int8
        for obs in _random_walk(env, 1, 300):
            assert sp.contains(obs)
            assert np.array_equal(obs["action_mask"], env.action_masks().astype(np.int8))
            assert np.array_equal(obs["nodes"][:, 12], obs["action_mask"][:T])
            assert np.array_equal(obs["edges"], np.stack([env.game.edge_src, env.game.edge_dst]))
        aec = risk_env.env(num_players=num_players, observation="graph", map=mp, setup="random")
        aec.reset(seed=2)
        obs, *_ = aec.last()
        assert aec.observation_space(aec.agent_selection).contains(obs)
    assert len(NODE_FEATURES) == 20 and GLOBAL_FEATURES["bias"].stop == 73


@pytest.mark.parametrize(
    "preset, players, F, G, blocks",
    [
        ("secret_missions", 3, 20, 93, {"mission": 14, "mission_held": 6}),
        ("capitals", 3, 26, 74, {"capital": 6, "capital_phase": 1}),
        ("expert", 3, 20, 81, {"dice_rules": 8}),
        ("allied", 2, 20, 76, {"allied": 3}),
    ],
)
def test_the_graph_observation_carries_what_the_rule_switches_add(preset, players, F, G, blocks):
    # (it carried the core features only: the own secret mission, the capitals, a waiting expert roll and the allied
    # army were in the flat observation and missing from the graph one)
    from risk_env.envs.layout import GRAPH_VARIANT_BLOCKS, MAX_PLAYERS

    env = RiskSingleAgentEnv(preset=preset, num_players=players, observation="graph", setup="random")
    enc = env.graph_encoder
    assert (enc.F, enc.G) == (F, G) and env.observation_space["globals"].shape == (G,)
    added = [b for b in (*enc.layout.nodes, *enc.layout.globals) if b.name in GRAPH_VARIANT_BLOCKS]
    assert {b.name: b.size for b in added} == blocks
    flat_layout = enc.flat.blocks
    T, n = enc.T, players
    seen = dict.fromkeys(blocks, False)
    for obs in _random_walk(env, 3, 400):
        flat = env.encoder.encode(env.game_state, env.seat, env.selection)  # (the flat observation of the same step)
        for name in blocks:
            where, padded = GRAPH_VARIANT_BLOCKS[name]
            want = flat[flat_layout.slice(name)]
            if where == "nodes":
                got = obs["nodes"][:, enc.layout.nodes.slice(name)]
                want, pad = want.reshape(T, -1), got[:, want.size // T :]
                got = got[:, : want.shape[1]]
            else:
                got_all = obs["globals"][enc.layout.globals.slice(name)]
                got, pad = got_all[: want.size], got_all[want.size :]
            assert np.array_equal(got, want), name  # (flat entry k is graph entry k)
            assert not pad.any() and pad.shape[-1] == (MAX_PLAYERS - n if padded else 0)
            seen[name] = seen[name] or bool(want.any())
    assert all(seen.values()), seen  # (each block was set somewhere in the walk)


def test_the_graph_observation_shows_the_own_mission_and_no_other():
    import copy

    env = risk_env.raw_env(preset="secret_missions", num_players=3, observation="graph")
    env.reset(seed=0)
    me = env.agent_selection
    seat = env.agent_name_mapping[me]
    base = env.game_state.to_dict()

    def observed(seat_of_change: int, mission: int) -> dict[str, np.ndarray] | None:
        d = copy.deepcopy(base)
        d["missions"][seat_of_change] = mission
        other = risk_env.raw_env(preset="secret_missions", num_players=3, observation="graph")
        try:
            other.reset(options={"state": d})
        except risk_env.StateError:  # (a mission this seat cannot hold, such as destroying itself)
            return None
        return other.observe(me)

    mine = [o["globals"] for m in range(14) if (o := observed(seat, m)) is not None]
    assert len({g.tobytes() for g in mine}) == len(mine) >= 10  # each own mission is seen
    theirs = [o for m in range(14) if (o := observed((seat + 1) % 3, m)) is not None]
    assert len(theirs) >= 10 and all(all(np.array_equal(theirs[0][k], o[k]) for k in o) for o in theirs)


def test_graph_observation_of_a_hand_built_position():
    g = make_game(3, map="small")
    names = g.map.territory_names
    # seat 0 owns the first three territories, seat 1 the next three, seat 2 the rest
    owners = {n: (0 if i < 3 else 1 if i < 6 else 2) for i, n in enumerate(names)}
    s = build(g, owners=owners, armies={names[0]: 7, names[4]: 12}, player=1, phase=Phase.ATTACK)
    give_cards(s, 1, [tid(g, names[4]), tid(g, names[8])])
    enc = GraphObservationEncoder(g)
    obs = enc.encode(s, seat=1)
    nodes, glob = obs["nodes"], obs["globals"]
    # owners relative to seat 1: seat 1 -> slot 0 (me), seat 2 -> slot 1, seat 0 -> slot 2
    rel = {0: 2, 1: 0, 2: 1}
    for i, n in enumerate(names):
        expected = np.zeros(8, np.float32)
        expected[rel[owners[n]]] = 1.0
        assert np.array_equal(nodes[i, :8], expected), n
    assert nodes[0, 8] == pytest.approx(0.7) and nodes[4, 8] == pytest.approx(1.2)
    assert nodes[:, 11].tolist() == [1.0 if i in (4, 8) else 0.0 for i in range(9)]
    # degree, foreign neighbours and their armies from the edge index
    src, dst = g.edge_src, g.edge_dst
    own = s.owner
    for t in range(9):
        nb = dst[src == t]
        foreign = [u for u in nb if own[u] != own[t]]
        assert nodes[t, 19] == pytest.approx(len(nb) / 6)
        assert nodes[t, 17] == pytest.approx(len(foreign) / len(nb))
        assert nodes[t, 18] == pytest.approx(sum(s.armies[u] for u in foreign) / 10)
    # continent shares: mine and the owner's
    cont = g.map.territory_continent
    for t in range(9):
        members = np.flatnonzero(cont == cont[t])
        assert nodes[t, 15] == pytest.approx(np.mean(own[members] == 1))
        assert nodes[t, 16] == pytest.approx(np.mean(own[members] == own[t]))
        assert nodes[t, 13] == pytest.approx(g.map.continent_bonus[cont[t]] / 10)
    GF = GLOBAL_FEATURES
    assert glob[GF["phase"]][Phase.ATTACK] == 1.0 and glob[GF["acting"]][0] == 1.0
    assert glob[GF["on_turn"]].tolist() == [1, 0, 0, 0, 0, 0, 0]
    assert glob[GF["alive"]].tolist() == [1, 1, 1, 0, 0, 0]
    assert glob[GF["territories"]] == pytest.approx(np.array([3, 3, 3, 0, 0, 0, 0]) / 9)
    assert glob[GF["num_players"]][0] == pytest.approx(0.5)
    assert glob[GF["turn"]][0] == 0.0 and glob[GF["bias"]][0] == 1.0
    # the turn is shown only when asked for
    s.turn = 5
    on = GraphObservationEncoder(g, turn_feature=True).encode(s, seat=1)["globals"]
    assert on[GF["turn"]][0] == pytest.approx(5 / g.config.turn_limit)


def test_neutral_and_unclaimed_owner_slots():
    g = make_game(2)
    s = build(g, default_owner=0, owners={"Alaska": 1, "Peru": g.neutral, "Brazil": g.neutral}, phase=Phase.CLAIM)
    s.owner[tid(g, "Iceland")] = -1
    s.owner[tid(g, "Ontario")] = -1
    enc = GraphObservationEncoder(g)
    nodes = enc.encode(s, seat=0)["nodes"]
    neutral = s.owner == g.neutral
    unclaimed = s.owner < 0
    assert neutral.any() and unclaimed.any()
    assert np.array_equal(nodes[:, 6], neutral.astype(np.float32))
    assert np.array_equal(nodes[:, 7], unclaimed.astype(np.float32))
    assert np.all(nodes[:, :8].sum(axis=1) == 1.0)


def test_turn_limit_does_not_leak_by_default():
    flat = RiskSingleAgentEnv(num_players=2, turn_feature=False)
    graph = RiskSingleAgentEnv(num_players=2, observation="graph")
    sl = flat.encoder.layout["turn"][0]
    for o in _random_walk(flat, 3, 400):
        assert o[sl].tolist() == [0.0]
    for o in _random_walk(graph, 3, 400):
        assert o["globals"][GLOBAL_FEATURES["turn"]].tolist() == [0.0]
    with pytest.raises(ConfigError, match="observation"):
        RiskSingleAgentEnv(observation="image")
    with pytest.raises(ConfigError, match="observation"):
        risk_env.env(observation="image")


# ---------------------------------------------------------------------- the policy
def _batch(obs_list):
    return {k: torch.as_tensor(np.stack([o[k] for o in obs_list])) for k in ("nodes", "edges", "globals")}


def _obs_of(num_players: int, mp: str, n: int, seed: int):
    env = RiskSingleAgentEnv(num_players=num_players, observation="graph", map=mp, setup="random")
    out = []
    for o in _random_walk(env, seed, 5 * n):
        out.append(o)
    return out[::5][:n]


def test_one_network_serves_two_maps_and_two_player_counts():
    from risk_env.train.graph_policy import GraphNet

    torch.manual_seed(0)
    net = GraphNet(20, 73, 28, hidden=16, rounds=2)
    for num_players, mp, T in ((2, "classic", 42), (4, "small", 9)):
        obs = _obs_of(num_players, mp, 12, seed=num_players)
        logits, value = net(**dict(zip(("nodes", "edges", "globals_"), _batch(obs).values(), strict=True)))
        assert logits.shape == (12, T + 28) and value.shape == (12, 1)
        # the dense-adjacency path (one map per batch) equals the per-sample scatter path
        b = _batch(obs)
        mixed = b["edges"].clone()
        mixed[1] = mixed[1, :, torch.randperm(mixed.shape[-1])]  # same edges in another order: a different tensor
        l1, v1 = net(b["nodes"], b["edges"], b["globals"])
        l2, v2 = net(b["nodes"], mixed, b["globals"])
        assert torch.allclose(l1, l2, atol=1e-5) and torch.allclose(v1, v2, atol=1e-5)


@pytest.mark.parametrize(
    ("batch", "T", "hidden", "rounds"),
    [(512, 42, 32, 3), (256, 42, 64, 1), (64, 42, 16, 0), (128, 12, 8, 2), (32, 42, 1, 1), (40, 42, 96, 6)],
)
def test_activation_bytes_bounds_what_autograd_keeps(batch: int, T: int, hidden: int, rounds: int) -> None:
    """GraphNet.activation_bytes (the memory check's figure for a minibatch) is at least what autograd keeps for the
    backward pass of a forward and its log-softmax (the features, embeddings and logits; not the weights), and at most
    1.3 times it."""
    from risk_env.train.graph_policy import GraphNet

    net = GraphNet(20, 73, 28, hidden=hidden, rounds=rounds)
    A = GraphNet.mean_adjacency(torch.tensor([[i, (i + 1) % T] for i in range(T)]).T, T)
    kept: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        kept[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        logits, value = net.forward_dense(torch.rand(batch, T, 20), torch.rand(batch, 73), A)
        torch.log_softmax(logits, -1)
    skip = {p.untyped_storage().data_ptr() for p in net.parameters()} | {A.untyped_storage().data_ptr()}
    measured = sum(n for ptr, n in kept.items() if ptr not in skip)
    estimate = GraphNet.activation_bytes(batch, T, 20, 73, 28, hidden, rounds)
    assert measured <= estimate <= 1.3 * measured, (measured, estimate)


def test_graph_policy_respects_masks_and_trains_with_maskable_ppo(tmp_path):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from risk_env.agents import MaskablePPOAgent
    from risk_env.train.graph_policy import GraphPolicy

    torch.set_num_threads(1)
    venv = DummyVecEnv(
        [lambda: RiskSingleAgentEnv(num_players=2, observation="graph", shaping=1.0, turn_limit=30) for _ in range(2)]
    )
    model = MaskablePPO(
        GraphPolicy, venv, n_steps=128, batch_size=64, n_epochs=2, seed=0, policy_kwargs={"hidden": 16, "rounds": 2}
    )
    model.learn(512)
    assert model.num_timesteps >= 512
    path = tmp_path / "graph.zip"
    model.save(path)
    loaded = MaskablePPO.load(path)
    assert isinstance(loaded.policy, GraphPolicy) and loaded.policy.hidden == 16
    # sampled actions are always legal, on the training map and on another map and player count
    agent = MaskablePPOAgent(str(path), deterministic=False)
    for num_players, mp in ((2, "classic"), (3, "small")):
        env = RiskSingleAgentEnv(num_players=num_players, observation="graph", map=mp, setup="random")
        for o in _random_walk(env, 7, 150):
            a = agent.act(o, {})
            assert o["action_mask"][a] == 1
    # the agent also plays from the flat observation of the AEC env (it encodes the graph itself)
    from risk_env.tools.evaluation import evaluate

    res = evaluate(
        [str(path), "random", "random"],
        num_games=2,
        rules={"map": "small", "num_players": 3, "setup": "random"},
        seed=0,
        workers=1,
        progress=False,
    )
    assert sum(st.games for st in res.stats.values()) == 6


def test_graph_policy_refuses_the_flat_observation():
    from sb3_contrib import MaskablePPO

    from risk_env.train.graph_policy import GraphPolicy

    with pytest.raises(ConfigError, match="observation='graph'"):
        MaskablePPO(GraphPolicy, RiskSingleAgentEnv(num_players=2))


# ---------------------------------------------------------------------- credit assignment
def test_shaping_is_potential_based_with_phi_zero_at_the_end():
    gamma = 0.99
    env = RiskSingleAgentEnv(num_players=2, turn_limit=24, shaping=2.0, shaping_gamma=gamma, truncation_reward="draw")
    env0 = RiskSingleAgentEnv(num_players=2, turn_limit=24, shaping=0.0, truncation_reward="draw")
    for seed in (3, 4):
        for e in (env, env0):
            e.reset(seed=seed)
        phi0 = env._potential()  # read at the learner's first decision
        rng = np.random.default_rng(seed)
        disc = disc0 = 0.0
        k = 0
        done = False
        while not done:
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, r, te, tr, _ = env.step(a)
            _, r0, _, _, _ = env0.step(a)
            disc += gamma**k * r
            disc0 += gamma**k * r0
            k += 1
            done = te or tr
        # the discounted shaping telescopes to -shaping * phi_0, whatever happened
        assert disc == pytest.approx(disc0 - 2.0 * phi0)


def test_phi_is_read_after_the_opponents_opening_turn():
    env = RiskSingleAgentEnv(num_players=2, shaping=1.0, learner_seat=1)
    for seed in range(6):
        env.reset(seed=seed)
        assert env.game.current_player(env.state) == 1
        assert env._share == pytest.approx(env._potential())
    with pytest.raises(ConfigError, match="shaping_gamma"):
        RiskSingleAgentEnv(shaping_gamma=0.0)


def test_truncation_is_reported_to_sb3_as_a_time_limit():
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda: RiskSingleAgentEnv(num_players=2, observation="graph", turn_limit=4)])
    venv.seed(0)
    venv.reset()
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(3000):
        mask = venv.env_method("action_masks")[0]
        _, _r, done, infos = venv.step(np.array([int(rng.choice(np.flatnonzero(mask)))]))
        if done[0]:
            seen += 1
            # nobody wins in 4 turns: the turn limit truncates, and SB3 bootstraps from the final observation
            assert infos[0]["TimeLimit.truncated"] is True
            assert set(infos[0]["terminal_observation"]) == {"nodes", "edges", "globals", "action_mask"}
    assert seen >= 2


def test_graph_env_pickles_and_the_default_config_trains_under_the_evaluation_rules():
    import pickle

    from risk_env.train.config import load_config

    env = RiskSingleAgentEnv(num_players=2, observation="graph")
    obs, _ = env.reset(seed=0)
    clone = pickle.loads(pickle.dumps(env))
    again = clone._observe()
    assert all(np.array_equal(obs[k], again[k]) for k in obs)
    cfg = load_config(None)
    assert cfg.ppo.policy == "graph"
    assert cfg.rules_config.turn_limit == cfg.eval_rules_config.turn_limit
    assert cfg.env.turn_feature is None and cfg.env.shaping_gamma is None  # hidden turn, shaping gamma = ppo.gamma


def test_the_penalty_step_returns_the_potential():
    env = RiskSingleAgentEnv(num_players=2, shaping=0.5, invalid_action="penalty", invalid_penalty=-2.0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    phi = env._potential()
    _obs, r, term, trunc, info = env.step(illegal)
    assert (term, trunc, info["invalid_action"]) == (True, False, True)
    assert r == pytest.approx(-2.0 - 0.5 * phi)
