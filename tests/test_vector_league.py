"""The league of batched opponents (risk_env.vector.league) and frozen networks as batched policies
(risk_env.vector.network)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from vector_support import DEVICE, one_torch_thread  # noqa: F401 (the fixture applies to this module)

from risk_env import AgentRulesError, ConfigError, RiskError, RulesConfig
from risk_env.train.pfsp import PFSPTracker
from risk_env.vector import VectorEnv, VectorGame
from risk_env.vector.agents import AggressivePolicy, RandomPolicy
from risk_env.vector.league import League
from risk_env.vector.learner import LearnerEnv
from risk_env.vector.network import NetworkPolicy, load_maskable_ppo, masked_choice

SMALL = dict(map="small", setup="random", turn_limit=30)


def _gen(seed: int) -> torch.Generator:
    g = torch.Generator(device=DEVICE)
    g.manual_seed(seed)
    return g


def _game(**kw: object) -> VectorGame:
    return VectorGame(device=DEVICE, num_players=3, **{**SMALL, **kw})  # type: ignore[arg-type]


class _Const:
    """A policy playing the first legal id (a stand-in for a snapshot)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, state, mask, active=None):  # type: ignore[no-untyped-def]
        return mask.long().argmax(1)


def test_league_probabilities_by_hand() -> None:
    g = _game()
    league = League(g, _gen(0), baselines=["random", "aggressive"], weights=[1, 3], p_snapshot=0.5, p_latest=0.5)
    assert league.probabilities().tolist() == [0.25, 0.75]  # no learner yet: baselines only
    assert isinstance(league.policies[0], RandomPolicy) and isinstance(league.policies[1], AggressivePolicy)
    league.add_snapshot(_Const("s1"))
    league.add_snapshot(_Const("s2"))
    # baselines 0.5 x (1/4, 3/4); the newest snapshot 0.5 x 0.5, plus 0.5 x 0.5 x 1/2 as one of the two kept
    assert league.probabilities().tolist() == [0.125, 0.375, 0.125, 0.375]
    league.set_latest(_Const("live"))
    assert league.names == ["random", "aggressive", "s1", "s2", "latest"]
    assert league.probabilities().tolist() == [0.125, 0.375, 0.125, 0.125, 0.25]
    # a third snapshot with max_snapshots=2 retires the second one (the first is the anchor)
    small = League(g, _gen(0), baselines=["random"], p_snapshot=1.0, p_latest=0.0, max_snapshots=2)
    for name in ("a", "b", "c"):
        small.add_snapshot(_Const(name))
    assert [small.names[i] for i in small.snapshots] == ["a", "c"]
    assert small.probabilities().tolist() == [0.0, 0.5, 0.0, 0.5]


def test_league_pfsp_priorities() -> None:
    """With PFSP, baselines and older snapshots are drawn in proportion to weight x (1 - win rate) ** p."""
    g = _game()
    tracker = PFSPTracker(power=2.0, window=50)
    league = League(g, _gen(0), baselines=["random", "aggressive"], p_snapshot=0.5, p_latest=0.0, pfsp=tracker)
    league.add_snapshot(_Const("s1"))
    # 8 wins in 8 games against random and s1 together; 2 losses against aggressive
    rows = torch.tensor([[-1, 0, 2]] * 8 + [[1, -1, 1]] * 2, device=DEVICE)
    league.record(rows, torch.tensor([1.0] * 8 + [0.0] * 2, device=DEVICE))
    assert league.games == 10
    w_random, w_aggr = (8 + 1) / (8 + 2), (0 + 1) / (2 + 2)
    assert league.win_rates() == pytest.approx({"random": w_random, "aggressive": w_aggr, "s1": w_random})
    pr, pa = (1 - w_random) ** 2, (1 - w_aggr) ** 2
    want = [0.5 * pr / (pr + pa), 0.5 * pa / (pr + pa), 0.5]
    assert league.probabilities().tolist() == pytest.approx(want, abs=1e-12)


def test_a_dropped_snapshot_leaves_the_leagues_results_and_rates() -> None:
    # (win_rates, and so the trainer's pfsp log and TensorBoard, named every snapshot ever made; a game begun against a
    # dropped snapshot wrote its result under the dropped name when it ended)
    tracker = PFSPTracker(power=1.0, window=50)
    league = League(_game(), _gen(0), baselines=["random"], p_snapshot=0.5, max_snapshots=2, pfsp=tracker)
    for name in ("s1", "s2", "s3"):
        league.add_snapshot(_Const(name))
    assert league.opponent_names() == ["random", "s1", "s3"]  # (the first and the newest: kept_snapshots)
    s2 = league.names.index("s2")
    league.record(torch.tensor([[-1, s2, 0]], device=DEVICE), torch.tensor([0.0], device=DEVICE))
    assert set(tracker.results) == {"random"} and league.games == 1
    assert league.win_rates() == pytest.approx({"random": 1 / 3, "s1": 0.5, "s3": 0.5})


def test_league_draws_follow_its_probabilities() -> None:
    g = _game()
    league = League(g, _gen(3), baselines=["random", "aggressive"], weights=[1, 2], p_snapshot=0.4, p_latest=0.5)
    league.add_snapshot(_Const("s1"))
    league.add_snapshot(_Const("s2"))
    p = league.probabilities().cpu().numpy()
    k = 20_000
    rows = league.assign(torch.arange(k, device=DEVICE), torch.zeros(k, dtype=torch.int64, device=DEVICE), 3)
    assert rows.shape == (k, 3)
    counts = np.bincount(rows.flatten().cpu().numpy(), minlength=len(p))
    expected = p * 3 * k
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 18.5  # 3 degrees of freedom: p = 0.0003


def test_league_in_the_env_redraws_and_learns_who_is_hard() -> None:
    """Opponent seats are redrawn at every new game; with PFSP the league draws the aggressive heuristic,
    which beats a random learner, more often than the random policy."""
    env = LearnerEnv(64, device=DEVICE, seed=5, num_players=2, **{**SMALL, "turn_limit": 12})  # type: ignore[arg-type]
    league = League(env.game, env.generator, baselines=["random", "aggressive"], pfsp=PFSPTracker(power=1.0))
    env.assignment = league
    out = env.reset()
    gen = _gen(1)
    first = env.seating.clone()
    for _ in range(120):
        w = out.action_mask.float()
        w[:, -1] *= 0.05
        out = env.step(torch.multinomial(w, 1, generator=gen)[:, 0])
    assert league.games == int(env.games_started.sum()) - 64 > 50
    opp = env.seating.gather(1, (1 - env.learner_seat)[:, None])[:, 0]
    assert set(opp.tolist()) <= {0, 1} and not torch.equal(env.seating, first)
    rates = league.win_rates()
    assert rates["aggressive"] < rates["random"]
    p = league.probabilities().tolist()
    pr, pa = 1 - rates["random"], 1 - rates["aggressive"]
    assert p[1] > p[0] and p == pytest.approx([pr / (pr + pa), pa / (pr + pa)])


def test_league_refuses_bad_settings() -> None:
    g = _game()
    for kw, what in [
        (dict(baselines=[]), "at least one"),
        (dict(weights=[1, 2]), "weights"),
        (dict(p_snapshot=1.5), "p_snapshot"),
        (dict(p_latest=-0.1), "p_latest"),
        (dict(max_snapshots=0), "max_snapshots"),
        (dict(baselines=["nobody"]), "nobody"),
    ]:
        with pytest.raises(ConfigError, match=what):
            League(g, _gen(0), **kw)  # type: ignore[arg-type]
    league = League(g, _gen(0))
    league.add_snapshot(_Const("a"))
    with pytest.raises(ConfigError, match="already"):
        league.add_snapshot(_Const("a"))
    with pytest.raises(ConfigError, match="batched policy"):
        league.add_snapshot(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("weights", "entry"),
    [
        ([1.0, float("nan")], "weights[1] = nan (for baseline 'aggressive')"),
        ([float("inf"), 1.0], "weights[0] = inf (for baseline 'random')"),
        (["2", 1.0], "weights[0] = '2' (for baseline 'random')"),
        ([1.0, None], "weights[1] = None (for baseline 'aggressive')"),
        ([True, 1.0], "weights[0] = True (for baseline 'random')"),
        ([1.0, -1.0], "weights[1] = -1.0 (for baseline 'aggressive')"),
    ],
)
def test_league_weights_name_the_entry_that_is_no_weight(weights: list, entry: str) -> None:
    # (nan, inf and "2" were taken as weights, None raised TypeError)
    with pytest.raises(ConfigError) as info:
        League(_game(), _gen(0), baselines=["random", "aggressive"], weights=weights)
    assert str(info.value) == (
        f"weights must be 2 finite non-negative numbers (one per baseline), not all zero, or None (equal); {entry} is not"
    )
    for bad in ("12", 3, [1.0], [0, 0]):
        with pytest.raises(ConfigError, match=r"^weights must be 2 finite non-negative numbers .*; got "):
            League(_game(), _gen(0), baselines=["random", "aggressive"], weights=bad)  # type: ignore[arg-type]
    ok = League(_game(), _gen(0), baselines=["random", "aggressive"], weights=np.array([1, 3], dtype=np.int64))
    assert ok.weights == [0.25, 0.75]


@pytest.mark.parametrize("pfsp", [True, "yes", 1, PFSPTracker])
def test_league_pfsp_is_a_result_tracker_or_none(pfsp: object) -> None:
    # (any value was taken, and the first draw raised AttributeError)
    with pytest.raises(ConfigError) as info:
        League(_game(), _gen(0), pfsp=pfsp)  # type: ignore[arg-type]
    assert str(info.value) == (
        "pfsp must be None (off) or a result tracker with record(keys, score) and priorities(keys) "
        f"(risk_env.train.pfsp.PFSPTracker), got {pfsp!r}"
    )
    assert League(_game(), _gen(0), pfsp=PFSPTracker(power=1.0)).pfsp is not None


# ---------------------------------------------------------------- networks


def test_masked_choice() -> None:
    logits = torch.tensor([[0.0, 5.0, 1.0, 2.0], [3.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]])
    mask = torch.tensor([[True, False, True, True], [False, True, True, True], [False, False, False, False]])
    assert masked_choice(logits, mask, True, None).tolist() == [3, 3, 0]
    n = 60_000
    g = torch.Generator()
    g.manual_seed(0)
    ids = masked_choice(logits[:1].expand(n, 4), mask[:1].expand(n, 4), False, g)
    freq = np.bincount(ids.numpy(), minlength=4) / n
    want = np.exp([0.0, -np.inf, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    assert freq[1] == 0 and np.abs(freq - want).max() < 0.01


def test_network_policy_plays_legal_ids_and_freezes() -> None:
    env = VectorEnv(32, device=DEVICE, seed=2, num_players=3, **SMALL)
    out = env.reset()
    net = torch.nn.Linear(env.observation_size, env.num_actions).to(DEVICE)
    live = NetworkPolicy(env.game, net, deterministic=True)
    frozen = live.frozen("snap")
    assert frozen.name == "snap" and frozen.net is not net
    assert env.state is not None
    active = torch.arange(32, device=DEVICE) % 2 == 0
    ids = live(env.state, out.action_mask, active)
    assert bool(out.action_mask.gather(1, ids[:, None])[active].all()) and not ids[~active].any()
    want = torch.where(out.action_mask, net(out.observation), torch.finfo(torch.float32).min).argmax(1)
    assert torch.equal(ids[active], want[active])
    with torch.no_grad():
        net.weight.mul_(-1.0)  # the live policy follows the network, the frozen copy does not
    assert torch.equal(frozen(env.state, out.action_mask), want)
    assert not torch.equal(live(env.state, out.action_mask), want)
    with pytest.raises(ConfigError, match="observation"):
        NetworkPolicy(env.game, net, observation="pixels")


def test_maskable_ppo_checkpoint_as_a_batched_policy(tmp_path: Path) -> None:
    """A MaskablePPO MlpPolicy checkpoint, loaded as a batched policy, picks MaskablePPO.predict's ids."""
    from sb3_contrib import MaskablePPO

    from risk_env.vector.sb3 import VectorSB3Env

    venv = VectorSB3Env(8, device=str(DEVICE), seed=0, num_players=2, **SMALL)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    model.save(tmp_path / "m.zip")
    env = VectorEnv(64, device=DEVICE, seed=4, num_players=2, **SMALL)
    policy = load_maskable_ppo(tmp_path / "m", env.game)
    out = env.reset()
    checked = 0
    for _ in range(40):
        assert env.state is not None
        ids = policy(env.state, out.action_mask)
        want, _ = model.predict(out.observation.cpu().numpy(), action_masks=out.action_mask.cpu().numpy(), deterministic=True)
        assert ids.cpu().tolist() == want.tolist()
        checked += 64
        out = env.step(ids)
    with pytest.raises(RiskError, match="no saved model"):
        load_maskable_ppo(tmp_path / "none.zip", env.game)
    other = VectorGame(device=DEVICE, num_players=3, **SMALL)  # type: ignore[arg-type]
    with pytest.raises(
        AgentRulesError,
        match="^agent 'm' cannot play these rules: it reads observations of size 114, these rules give 131: it was trained "
        "for another map, number of players or rule switches$",
    ):
        load_maskable_ppo(tmp_path / "m.zip", other)


def test_a_maskable_ppo_checkpoint_of_another_action_count_is_refused(tmp_path: Path) -> None:
    """A flat policy trained with the classic cards (37 ids on the small map) loaded under card_trade="no_cards"
    (24 ids, the same observation size) is refused when loaded, naming both counts, not when its logits meet the mask."""
    from sb3_contrib import MaskablePPO

    from risk_env.vector.sb3 import VectorSB3Env

    venv = VectorSB3Env(4, device=str(DEVICE), seed=0, num_players=2, **SMALL)
    MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, seed=0, device="cpu").save(tmp_path / "m.zip")
    no_cards = VectorGame(device=DEVICE, num_players=2, card_trade="no_cards", **SMALL)  # type: ignore[arg-type]
    cards = venv.learner_env.game
    assert (no_cards.obs_size, no_cards.num_actions) == (cards.obs_size, 24) and cards.num_actions == 37
    with pytest.raises(AgentRulesError) as info:
        load_maskable_ppo(tmp_path / "m.zip", no_cards)
    msg = str(info.value)
    assert "agent 'm' cannot play these rules: it scores 37 action ids, these rules have 24" in msg
    assert "trained under other rules" in msg
    assert "card_trade" in msg
    assert load_maskable_ppo(tmp_path / "m.zip", cards).observation == "flat"  # its own rules still load


def test_shipped_graph_policy_as_a_batched_policy() -> None:
    """The shipped ppo-2p-0.1 (a MaskablePPO graph policy) as a batched policy picks the scalar agent's ids, fed the
    same graph observations; it refuses rules its network does not fit."""
    from risk_env.agents import load_agent, pretrained_path

    env = VectorEnv(32, device=DEVICE, seed=3, preset="fast", num_players=2)
    policy = load_maskable_ppo(pretrained_path("ppo-2p-0.1"), env.game)
    assert policy.observation == "graph" and policy.name == "ppo-2p-0.1" and not policy.turn_feature
    agent = load_agent("ppo-2p-0.1")
    other = AggressivePolicy(env.game)
    out = env.reset()
    checked = ties = 0
    for step in range(25):
        assert env.state is not None
        ids = policy(env.state, out.action_mask)
        g = env.game.observe_graph(env.state, mask=out.action_mask)
        logits = policy.logits(env.state, out.action_mask)
        for b in range(32):
            picked = agent.act({k: v[b].cpu().numpy() for k, v in g.items()})
            if picked != int(ids[b]):  # (only an exact tie of two legal ids' logits, broken the other way by the
                # scalar pass's last bits: two territories the network cannot tell apart)
                assert bool(out.action_mask[b, picked]) and torch.isclose(logits[b, picked], logits[b, ids[b]], rtol=0, atol=1e-5)
                ties += 1
            checked += 1
        out = env.step(torch.where(torch.arange(32, device=DEVICE) % 2 == step % 2, ids, other(env.state, out.action_mask)))
    assert checked == 800 and ties <= 4
    expert = VectorGame(RulesConfig.from_preset("expert", num_players=2), device=DEVICE)
    with pytest.raises(AgentRulesError, match="^agent 'ppo-2p-0.1' cannot play these rules: this graph policy scores 28 "):
        load_maskable_ppo(pretrained_path("ppo-2p-0.1"), expert)


def test_learner_env_with_the_graph_observation() -> None:
    """The learner env in graph mode gives the graph dict of the learner seat, as the plain env observes it."""
    env = LearnerEnv(8, device=DEVICE, seed=1, opponents="aggressive", observation="graph", num_players=2, **SMALL)
    out = env.reset()
    gen = _gen(3)
    for _ in range(20):
        obs = out.observation
        assert set(obs) == {"nodes", "edges", "globals", "action_mask"}
        want = env.venv.observe(env.learner_seat)
        assert all(torch.equal(obs[k], want[k]) for k in obs)
        assert torch.equal(obs["action_mask"].bool(), out.action_mask)
        out = env.step(masked_choice(torch.zeros(out.action_mask.shape, device=DEVICE), out.action_mask, False, gen))


def test_the_batched_loader_reads_checkpoints_as_the_agents_do(tmp_path: Path) -> None:
    # (a .pt policy file, or a file that is no checkpoint, was SB3's AssertionError or ValueError)
    from risk_env.agents import MaskablePPOAgent, pretrained_path

    game = VectorGame(RulesConfig.from_preset("fast", num_players=2), device=DEVICE)
    pt = pretrained_path("ppo-3p")
    with pytest.raises(RiskError, match=r"is a graph policy file \(\.pt\) of the on-device trainer, not a MaskablePPO "):
        load_maskable_ppo(pt, game)
    junk = tmp_path / "junk.zip"
    junk.write_text("not an archive")
    for load in (lambda: load_maskable_ppo(junk, game), lambda: MaskablePPOAgent(junk)):
        with pytest.raises(RiskError) as info:
            load()
        assert str(info.value).startswith(f"{str(junk)!r} is not a MaskablePPO checkpoint that loads here (ValueError: ")
