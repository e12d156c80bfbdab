"""Imitation warm start (BC + DAgger), kickstarting, PFSP and the training-curve plot,
on the small map with tiny sizes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch as th  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from risk_env import ConfigError  # noqa: E402
from risk_env.agents import BalancedAgent  # noqa: E402
from risk_env.envs.opponents import OpponentPool  # noqa: E402
from risk_env.envs.single_agent import RiskSingleAgentEnv  # noqa: E402
from risk_env.train.config import TrainConfig  # noqa: E402
from risk_env.train.graph_policy import GraphPolicy  # noqa: E402
from risk_env.train.imitation import DecisionSet, agreement, collect_decisions, fit  # noqa: E402
from risk_env.train.kickstart import KickstartPPO, TeacherLabelCallback, kickstart_coef  # noqa: E402
from risk_env.train.pfsp import PFSPTracker  # noqa: E402
from risk_env.train.run import latest_checkpoint  # noqa: E402
from risk_env.train.teacher import DECISION_KINDS, TrainingEnvWrapper  # noqa: E402

SMALL = {"preset": "fast", "num_players": 2, "map": "small"}


class FirstLegal:
    """A deterministic teacher whose label is a function of the mask alone: the lowest legal id."""

    name = "first_legal"

    def act(self, observation, info=None):
        return int(np.flatnonzero(info["action_mask"])[0])


def _env(opponents="balanced", shaping=0.0, **rules):
    return RiskSingleAgentEnv(
        num_players=2, observation="graph", preset="fast", map="small", opponents=opponents, shaping=shaping, **rules
    )


def _policy(env, seed=0):
    th.manual_seed(seed)
    m = MaskablePPO(GraphPolicy, env, n_steps=16, batch_size=16, policy_kwargs={"hidden": 16, "rounds": 2}, seed=seed)
    return m.policy


# ---------------------------------------------------------------------- behaviour cloning and DAgger
@pytest.fixture(scope="module")
def teacher_data():
    data, stats = collect_decisions(_env(), "balanced", 1500, gamma=0.99, seed=0)
    return data, stats


def test_teacher_decisions_are_labelled_legal_and_discounted(teacher_data):
    data, stats = teacher_data
    assert len(data) == 1500 and stats["games"] >= 2
    assert data.masks[np.arange(len(data)), data.actions].all()  # every label is legal
    assert data.obs["nodes"].shape == (1500, 9, 20) and data.shared["edges"].shape == (2, 26)
    assert set(np.unique(data.kinds)) <= set(range(len(DECISION_KINDS))) and (data.kinds == 0).any()
    # no shaping: every return is +-gamma**k (a win or a loss k decisions later)
    k = np.log(np.abs(data.returns)) / np.log(0.99)
    np.testing.assert_allclose(k, np.round(k), atol=1e-3)
    # the return one decision earlier in the same game is gamma times the later one
    same = np.sign(data.returns[:-1]) == np.sign(data.returns[1:])
    ratio = data.returns[:-1][same] / data.returns[1:][same]
    assert np.isclose(ratio, 0.99, atol=1e-4).mean() > 0.95


def test_behaviour_cloning_lowers_the_loss_and_beats_chance(teacher_data):
    data, _ = teacher_data
    policy = _policy(_env())
    before = agreement(policy, data)
    hist = fit(policy, data, epochs=6, batch_size=128, learning_rate=3e-3, seed=0)
    after = agreement(policy, data)
    assert hist[-1]["policy_loss"] < 0.8 * hist[0]["policy_loss"]
    assert hist[-1]["value_loss"] < hist[0]["value_loss"]
    chance = float(np.mean(1.0 / data.masks.sum(axis=1)))  # a uniform pick among the legal ids
    assert after["all"][0] > chance + 0.2 and after["all"][0] > before["all"][0] + 0.2
    assert after["attack_target"][1] == int((data.kinds == 0).sum())
    sel = data.kinds == 0
    assert after["attack_target"][0] > float(np.mean(1.0 / data.masks[sel].sum(axis=1)))


def test_dagger_labels_the_students_own_states():
    env = _env()
    policy = _policy(env)
    teacher_only, _ = collect_decisions(env, FirstLegal(), 300, gamma=0.99, seed=3)
    student, st = collect_decisions(env, FirstLegal(), 300, gamma=0.99, seed=3, student=policy, deterministic=True)
    # the teacher labelled every state the student reached: the label is the mask's first legal id
    np.testing.assert_array_equal(student.actions, student.masks.argmax(axis=1))
    # ... and those states are the student's, not the teacher's (same seed, other moves)
    assert not np.array_equal(teacher_only.obs["nodes"], student.obs["nodes"])
    assert st["games"] >= 1
    both = DecisionSet.concat([teacher_only, student])
    assert len(both) == 600 and both.obs["nodes"].shape[0] == 600
    with pytest.raises(ConfigError, match="decisions"):
        collect_decisions(env, FirstLegal(), 0, gamma=0.99)
    # a numpy seed is the same seed (the second env's ``seed + 1`` does not wrap around in uint8)
    a, _ = collect_decisions([_env(), _env()], FirstLegal(), 40, gamma=0.99, seed=np.uint8(255))
    b, _ = collect_decisions([_env(), _env()], FirstLegal(), 40, gamma=0.99, seed=255)
    np.testing.assert_array_equal(a.obs["nodes"], b.obs["nodes"])
    for bad in ({"decisions": "10"}, {"gamma": "0.9"}, {"seed": None}, {"seed": -1}):
        args = {"decisions": 10, "gamma": 0.99, "seed": 0, **bad}
        with pytest.raises(ConfigError, match=f"{next(iter(bad))} must be"):
            collect_decisions(env, FirstLegal(), **args)


def _rows(data):
    """Each decision as (nodes, globals, return): equal rows come from the same state of the same game."""
    return {(data.obs["nodes"][i].tobytes(), data.obs["globals"][i].tobytes(), float(data.returns[i])) for i in range(len(data))}


def test_lockstep_envs_play_the_games_each_env_plays_alone():
    policy = _policy(_env())
    alone = [
        collect_decisions(_env(), FirstLegal(), 900, gamma=0.99, seed=s, student=policy, deterministic=True)[0] for s in (7, 8)
    ]
    both, st = collect_decisions([_env(), _env()], FirstLegal(), 300, gamma=0.99, seed=7, student=policy, deterministic=True)
    assert len(both) == 300 and st["games"] >= 2
    assert both.masks[np.arange(300), both.actions].all()
    rows = _rows(both)
    # env i is reset with seed 7 + i: every decision is one the env played alone, with the same
    # return (the student chose the same in one forward pass for both envs), and both envs contributed
    assert rows <= _rows(alone[0]) | _rows(alone[1])
    assert rows & _rows(alone[0]) and rows & _rows(alone[1])
    # whole games, in order: within a game each return is gamma times the next (no shaping)
    same = np.sign(both.returns[:-1]) == np.sign(both.returns[1:])
    assert np.isclose(both.returns[:-1][same] / both.returns[1:][same], 0.99, atol=1e-4).mean() > 0.95
    # a planning teacher (balanced keeps its plan for the move under way) labels every env's own
    # state: one teacher per env, so every label is legal under that decision's mask
    planned, _ = collect_decisions([_env(), _env(), _env()], "balanced", 400, gamma=0.99, seed=3, student=policy)
    assert planned.masks[np.arange(400), planned.actions].all()
    # an agent object is copied per env (reseeded with seed + i): the same labels as the spec
    given, _ = collect_decisions([_env(), _env(), _env()], BalancedAgent(seed=3), 400, gamma=0.99, seed=3, student=policy)
    assert np.array_equal(given.actions, planned.actions) and np.array_equal(given.returns, planned.returns)
    with pytest.raises(ConfigError, match="at least one env"):
        collect_decisions([], FirstLegal(), 10, gamma=0.99)
    e = _env()
    with pytest.raises(ConfigError, match="given twice"):
        collect_decisions([e, e], FirstLegal(), 10, gamma=0.99)
    with pytest.raises(ConfigError, match="other rules"):
        collect_decisions([_env(), _env(turn_limit=50)], FirstLegal(), 10, gamma=0.99)
    classic = RiskSingleAgentEnv(num_players=2, observation="graph", preset="fast", opponents="balanced")
    with pytest.raises(ConfigError, match="observation space"):
        collect_decisions([_env(), classic], FirstLegal(), 10, gamma=0.99)
    with pytest.raises(ConfigError, match="not a RiskSingleAgentEnv"):
        collect_decisions([_env(), "env"], FirstLegal(), 10, gamma=0.99)
    with pytest.raises(ConfigError, match="not a RiskSingleAgentEnv or a sequence"):
        collect_decisions(None, FirstLegal(), 10, gamma=0.99)


# ---------------------------------------------------------------------- kickstarting
def test_kickstart_coefficient_anneals_to_zero_exactly():
    assert kickstart_coef(2.0, 1000, 0) == 2.0
    assert kickstart_coef(2.0, 1000, 250) == 1.5
    assert kickstart_coef(2.0, 1000, 999) == pytest.approx(0.002)
    assert kickstart_coef(2.0, 1000, 1000) == 0.0 and kickstart_coef(2.0, 1000, 5000) == 0.0
    assert kickstart_coef(0.0, 1000, 0) == 0.0
    with pytest.raises(ConfigError, match="anneal_steps"):
        kickstart_coef(1.0, 0, 0)
    with pytest.raises(ConfigError, match="kl_coef"):
        kickstart_coef(-1.0, 10, 0)


def test_kickstart_labels_follow_the_learners_rollout_states(tmp_path):
    from stable_baselines3.common.vec_env import DummyVecEnv

    # short games (turn limit 4), so that episodes end and restart inside a rollout
    venv = DummyVecEnv([lambda: TrainingEnvWrapper(_env("random", turn_limit=4), teacher=FirstLegal()) for _ in range(2)])
    venv.seed(0)
    model = KickstartPPO(
        GraphPolicy,
        venv,
        n_steps=64,
        batch_size=64,
        n_epochs=1,
        policy_kwargs={"hidden": 16, "rounds": 1},
        kl_coef=1.0,
        anneal_steps=256,
        seed=0,
    )
    model.learn(256, callback=TeacherLabelCallback())
    buf = model.rollout_buffer  # the last rollout, flattened by the update
    labels = buf.teacher_actions
    assert labels.shape == (128,) and (labels >= 0).all()  # reset observations included:
    assert buf.episode_starts.sum() > 0  # episodes ended inside the rollout
    # each label belongs to the observation stored at that position: its mask's first legal id
    np.testing.assert_array_equal(labels, buf.action_masks.argmax(axis=1))
    assert model.current_kickstart_coef() == 0.0  # 256 steps = anneal_steps
    # the saved file is a plain MaskablePPO file
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    assert type(loaded) is MaskablePPO and type(loaded.rollout_buffer).__name__ == "MaskableDictRolloutBuffer"
    venv.close()


def test_kickstart_term_pulls_toward_the_teacher():
    from stable_baselines3.common.vec_env import DummyVecEnv

    def run(kl_coef: float) -> float:
        venv = DummyVecEnv([lambda: TrainingEnvWrapper(_env("random"), teacher=FirstLegal()) for _ in range(2)])
        venv.seed(0)
        m = KickstartPPO(
            GraphPolicy,
            venv,
            n_steps=64,
            batch_size=64,
            n_epochs=4,
            learning_rate=3e-3,
            policy_kwargs={"hidden": 16, "rounds": 1},
            kl_coef=kl_coef,
            anneal_steps=10_000,
            seed=0,
        )
        m.learn(640, callback=TeacherLabelCallback())
        data, _ = collect_decisions(_env("random"), FirstLegal(), 300, gamma=0.99, seed=5)
        venv.close()
        return agreement(m.policy, data)["all"][0]

    assert run(5.0) > run(0.0) + 0.1


# ---------------------------------------------------------------------- PFSP
def test_pfsp_priorities_move_toward_the_opponent_the_learner_loses_to():
    tr = PFSPTracker(power=2.0, window=10)
    assert tr.priorities(["a"]) == {"a": 0.25}  # never met: win rate 0.5
    for _ in range(10):
        tr.record(["balanced"], 0.0)
        tr.record(["random"], 1.0)
    assert tr.win_rate("balanced") == pytest.approx(1 / 12) and tr.win_rate("random") == pytest.approx(11 / 12)
    pr = tr.priorities()
    assert pr["balanced"] == pytest.approx((11 / 12) ** 2) and pr["random"] == pytest.approx((1 / 12) ** 2)
    for _ in range(10):  # the window forgets: the learner now beats balanced
        tr.record(["balanced"], 1.0)
    assert tr.games("balanced") == 10 and tr.priorities()["balanced"] == pytest.approx((1 / 12) ** 2)
    with pytest.raises(ConfigError, match="score"):
        tr.record(["x"], 2.0)
    with pytest.raises(ConfigError, match="power"):
        PFSPTracker(power=-1.0)

    pool = OpponentPool(["random", "balanced"], weights=[3, 1])
    np.testing.assert_allclose(pool.baseline_probabilities(), [0.75, 0.25])
    pool.set_priorities({"random": 1 / 144, "balanced": 121 / 144})
    np.testing.assert_allclose(pool.baseline_probabilities(), [3 / 124, 121 / 124])
    rng = np.random.default_rng(0)
    drawn = []
    for _ in range(2000):
        pool.sample(rng, 1)
        drawn += pool.last_drawn
    assert abs(drawn.count("balanced") / 2000 - 121 / 124) < 0.02
    with pytest.raises(ConfigError, match="priority"):
        pool.set_priorities({"random": -1.0})
    # snapshots go by their file name, wherever their run folder lies (a copied or set-aside run's results apply)
    loaded: list[str] = []
    pool = OpponentPool(
        ["random"],
        p_snapshot=1.0,
        p_latest=0.0,
        snapshots=["/runs/a/pool/snap_000000128.zip", "/runs/a/later-1/pool/snap_000000256.zip"],
        load_snapshot=lambda path, deterministic: loaded.append(path) or BalancedAgent(),
    )
    pool.set_priorities({"snap_000000128": 0.0, "snap_000000256": 1.0})
    for _ in range(20):
        pool.sample(rng, 2)
        assert pool.last_drawn == ["snap_000000256", "snap_000000256"]
    assert set(loaded) == {"/runs/a/later-1/pool/snap_000000256.zip"}


def test_pfsp_results_round_trip_through_a_checkpoint_and_a_bad_state_is_refused(tmp_path):
    from risk_env.errors import ConfigError
    from risk_env.train.run import checkpoint_meta

    t = PFSPTracker(power=2.0, window=3)
    for score in (1.0, 0.0, 0.5, 1.0):
        t.record(["random", "balanced"], score)
    state = json.loads(json.dumps(t.state_dict()))  # (plain JSON, as a checkpoint keeps it)
    assert state == {"results": {"random": [0.0, 0.5, 1.0], "balanced": [0.0, 0.5, 1.0]}, "total_games": 4}
    other = PFSPTracker(power=2.0, window=2)
    other.load_state_dict(state)
    assert other.total_games == 4 and list(other.results["random"]) == [0.5, 1.0]  # (its own window)
    assert other.priorities() == {"random": (1 - 2.5 / 4) ** 2, "balanced": (1 - 2.5 / 4) ** 2}
    for bad in ({"results": {"random": [1.5]}, "total_games": 1}, {"results": [], "total_games": 0}, {"total_games": -1}, None):
        with pytest.raises(ConfigError, match=r"^PFSP state must be \{'results': \{opponent: \[scores in \[0, 1\]\]\}"):
            other.load_state_dict(bad)
        assert other.total_games == 4 and list(other.results["balanced"]) == [0.5, 1.0]  # (unchanged)
    (tmp_path / "step_000000128.json").write_text(json.dumps({"config": {}, "pfsp": {"pool": {"results": 3}}}))
    with pytest.raises(ConfigError, match=r"step_000000128\.json: PFSP state must be "):
        checkpoint_meta(tmp_path / "step_000000128.zip")
    (tmp_path / "step_000000128.json").write_text(json.dumps({"config": {}, "pfsp": {"pool": state}}))
    assert checkpoint_meta(tmp_path / "step_000000128.zip")["pfsp"]["pool"] == state
    # the game a checkpoint played (played_game) is read as the rest: a resume compares the config with it
    for game, why in (
        ({"rules": {"num_players": 9}, "player_counts": [2]}, "num_players must be an integer from 2 to 6, got 9"),
        ({"rules": {}, "player_counts": [7]}, r"'player_counts' must be a list of distinct player counts from 2 to 6, got \[7\]"),
        ("classic", "not a mapping with 'rules'"),
    ):
        (tmp_path / "step_000000128.json").write_text(json.dumps({"config": {}, "game": game}))
        where = r"step_000000128\.json: the checkpoint's 'game' \(the rules, player counts and board it played\): "
        with pytest.raises(ConfigError, match=where + why + "$"):
            checkpoint_meta(tmp_path / "step_000000128.zip")
    # the priorities pushed and logged are those of the opponents drawn now: a dropped snapshot's results stay out
    from risk_env.train.run import Run

    run = Run(_tiny(tmp_path / "run"), tmp_path / "run", quiet=True)
    assert run.pfsp is not None and run.pfsp_trackers == {"pool": run.pfsp}
    for key in ("random", "snap_000000064", "snap_000000128", "balanced"):
        run.pfsp.record([key], 1.0)
    run.snapshots = ["/runs/a/pool/snap_000000128.zip"]  # (snap_000000064 dropped from the pool)
    assert run.pool_keys() == ["random", "balanced", "snap_000000128"]
    # a snapshot the pool drops takes its results along (a checkpoint kept one key for every snapshot ever made)
    cap = run.cfg.opponents.self_play.max_snapshots
    run.snapshots = [f"/runs/a/pool/snap_{64 * k:09d}.zip" for k in range(1, cap + 1)]
    for k in range(1, cap + 2):
        run.pfsp.record([f"snap_{64 * k:09d}"], 0.0)
    run.record_snapshot(Path(f"/runs/a/pool/snap_{64 * (cap + 1):09d}.zip"))
    gone = f"snap_{64 * 2:09d}"  # (the first snapshot stays: kept_snapshots keeps it and the newest cap - 1)
    assert len(run.snapshots) == cap and f"/runs/a/pool/{gone}.zip" not in run.snapshots
    assert gone not in run.pfsp.results and "snap_000000064" in run.pfsp.results and "random" in run.pfsp.results
    assert sorted(k for k in run.pfsp.results if k.startswith("snap_")) == sorted(Path(p).stem for p in run.snapshots)
    # a game begun against it that ends later records under its name again: a checkpoint or a resume drops that too
    run.pfsp.record([gone], 1.0)
    kept = {"pool": run.pfsp.state_dict()}
    run.forget_dropped()
    assert gone not in run.pfsp.results and "random" in run.pfsp.results
    (tmp_path / "run").mkdir()  # (restoring logs how many results it read)
    run.restore_pfsp({"pfsp": kept})
    assert gone not in run.pfsp.results and f"snap_{64 * (cap + 1):09d}" in run.pfsp.results


def test_envs_report_scores_and_opponents_to_pfsp():
    env = TrainingEnvWrapper(_env(OpponentPool(["random"], p_snapshot=0.0)))
    tr = PFSPTracker()
    obs, info = env.reset(seed=0)
    assert "teacher_action" not in info
    rng = np.random.default_rng(0)
    for _ in range(3):
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
        assert info["episode_opponents"] == ["random"] and info["episode_score"] in (0.0, 0.5, 1.0)
        assert tr.record_infos([info, {}]) == 1
        env.reset()
    assert tr.games("random") == 3
    env.set_opponent_priorities({"random": 0.5})
    assert env.unwrapped.opponent_pool.priorities == {"random": 0.5}


# ---------------------------------------------------------------------- the pipeline and the plot
def _tiny(run: Path, **changes) -> TrainConfig:
    data = {
        "name": "tiny",
        "seed": 1,
        "total_timesteps": 256,
        "out_dir": str(run),
        "rules": SMALL,
        "env": {"n_envs": 2},
        "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "graph_hidden": 16, "graph_rounds": 1},
        "opponents": {"baselines": ["random", "balanced"], "pfsp": {"enabled": True, "update_every": 64}},
        "imitation": {"enabled": True, "decisions": 300, "dagger_rounds": 1, "dagger_decisions": 100, "epochs": 1},
        "kickstart": {"enabled": True, "anneal_steps": 200},
        "eval": {"every": 128, "games": 2, "final_games": 2, "opponents": ["random"], "workers": 1, "rules": SMALL},
        "checkpoint": {"every": 1000},
    }
    data.update(changes)
    return TrainConfig.from_dict(data)


def test_tiny_run_with_warm_start_kickstart_pfsp_and_the_plot(tmp_path):
    from helpers import run_cli

    from risk_env.train.curves import load_curves
    from risk_env.train.sb3 import train

    run = tmp_path / "run"
    cfg = _tiny(run)
    res = train(cfg, progress=False, quiet=True)
    assert res.timesteps == 256
    log = (run / "train.log").read_text()
    assert "imitation: 300 decisions of teacher balanced" in log
    assert "DAgger round 1" in log and "agreement on its own states: attack_target" in log
    assert "pfsp @ 256:" in log
    report = json.loads((run / "imitation.json").read_text())
    assert [r["decisions"] for r in report["rounds"]] == [300, 400]
    assert (run / "checkpoints" / "step_000000000.zip").exists()  # the cloned policy
    assert type(MaskablePPO.load(res.model_path, device="cpu")) is MaskablePPO

    # resume with kickstarting from the plain MaskablePPO checkpoint; PFSP's results go on from the checkpoint's
    kept = json.loads(latest_checkpoint(run).with_suffix(".json").read_text())["pfsp"]["pool"]
    assert kept["total_games"] > 0 and set(kept["results"]) <= {"random", "balanced"}
    res2 = train(cfg.model_copy(update={"total_timesteps": 384}), resume=run, progress=False, quiet=True)
    log = (run / "train.log").read_text()
    assert res2.timesteps == 384 and "resumed from" in log
    assert f"pfsp: the results of {kept['total_games']:,} episodes restored from the checkpoint" in log

    # a line-up of different agents in the other seats (the 4-player target's form), here 3 players
    from risk_env.rules.config import resolve_rules
    from risk_env.train.sb3 import evaluate_model, opponent_lineup

    three = resolve_rules("fast", None, 3, map="small")
    ev = evaluate_model(res2.model_path, ["random+balanced"], 3, three, seed=0, workers=1)
    assert ev["random+balanced"].games == 3
    assert opponent_lineup("balanced", 4) == ["balanced"] * 3
    with pytest.raises(ConfigError, match="names 3 agents; 3 players need 2"):
        opponent_lineup("a+b+c", 3)
    with pytest.raises(ConfigError, match="line-up 'a\\+b' must name 3 agents"):
        TrainConfig.from_dict({"eval": {"opponents": ["a+b"], "rules": {"preset": "fast", "num_players": 4}}})

    curves = {c.opponent: c for c in load_curves(run)}
    # the clone's evaluation at step 0, then every 128 steps (resumed run included)
    assert curves["random"].timesteps == [0, 128, 256, 384] and curves["random"].final["games"] == 2
    assert all(s > 0 for s in curves["random"].seconds)
    out = tmp_path / "curves.png"
    code, text, _ = run_cli("plot-training", run, "-o", out)
    assert code == 0 and text == f"wrote {out}\n" and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run_cli("plot-training", tmp_path / "nothing", "-o", out)
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1


def test_warm_start_kickstart_and_pfsp_runs_are_reproducible(tmp_path):
    from risk_env.train.sb3 import train

    def params(name: str, seed: int = 1) -> np.ndarray:
        cfg = _tiny(tmp_path / name, seed=seed, eval={"every": 0, "final_games": 0})
        m = MaskablePPO.load(train(cfg, progress=False, quiet=True).model_path, device="cpu")
        return np.concatenate([p.detach().numpy().ravel() for p in m.policy.parameters()])

    a = params("a")
    np.testing.assert_array_equal(a, params("b"))
    assert not np.array_equal(a, params("c", seed=2))


def test_config_sections_are_validated():
    cfg = TrainConfig.from_dict({"imitation": {"enabled": True}, "kickstart": {"enabled": True}})
    assert cfg.imitation.teacher == "balanced" and cfg.kickstart.anneal_steps == 1_000_000
    assert not TrainConfig.from_dict({}).opponents.pfsp.enabled  # off unless asked for
    for bad, key in (
        ({"imitation": {"decisions": 0}}, r"imitation\.decisions"),
        ({"imitation": {"epocs": 2}}, r"imitation\.epocs: unknown key; allowed here: enabled"),
        ({"kickstart": {"anneal_steps": 0}}, r"kickstart\.anneal_steps"),
        ({"kickstart": {"kl_coef": -1}}, r"kickstart\.kl_coef"),
        ({"opponents": {"pfsp": {"power": -1}}}, r"opponents\.pfsp\.power"),
    ):
        with pytest.raises(ConfigError, match=key):
            TrainConfig.from_dict(bad)


def test_plot_reads_a_hand_written_run(tmp_path: Path):
    from helpers import run_cli

    from risk_env.train.curves import load_curves, plot_runs

    run = tmp_path / "r"
    run.mkdir()
    rows = [
        {"timesteps": 100, "wall_seconds": 60.0, "balanced": {"games": 20, "win_rate": 0.25, "ci_low": 0.1, "ci_high": 0.47}},
        {"timesteps": 200, "wall_seconds": 120.0, "balanced": {"games": 20, "win_rate": 0.5, "ci_low": 0.3, "ci_high": 0.7}},
    ]
    (run / "evals.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (c,) = load_curves(run)
    assert (c.opponent, c.timesteps, c.seconds, c.win_rate, c.final) == ("balanced", [100, 200], [60.0, 120.0], [0.25, 0.5], None)
    assert plot_runs([run, run], tmp_path / "x.png").stat().st_size > 1000
    # a last row cut short by a stopped run is left out; any other bad row, file or image name is refused
    (run / "evals.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + '\n{"timesteps": 3')
    assert load_curves(run)[0].timesteps == [100, 200]
    (run / "evals.jsonl").write_text('{"timesteps": 3\n' + json.dumps(rows[0]) + "\n")
    with pytest.raises(ConfigError, match=r"evals\.jsonl, line 1: not a JSON row of evaluations"):
        load_curves(run)
    (run / "evals.jsonl").write_text(json.dumps({"balanced": {"games": 2}}) + "\n")
    with pytest.raises(ConfigError, match=r"evals\.jsonl, line 1: not a row of evaluations \(KeyError"):
        load_curves(run)
    # a row without any opponent's figures, or no complete row at all, was drawn as an empty plot
    (run / "evals.jsonl").write_text(json.dumps({"timesteps": 100, "opponent": "balanced", "win_rate": 0.5}) + "\n")
    with pytest.raises(ConfigError, match=r"evals\.jsonl, line 1: not a row of evaluations \(no opponent's figures in it\)$"):
        load_curves(run)
    for text in ("", '{"timesteps": 3'):
        (run / "evals.jsonl").write_text(text)
        with pytest.raises(ConfigError) as info:
            plot_runs([run], tmp_path / "empty.png")
        assert str(info.value) == (
            f"{run}: no evaluation to plot yet (no complete row in evals.jsonl, no final_eval in results.json)"
        )
        assert not (tmp_path / "empty.png").exists()
    (run / "evals.jsonl").unlink()
    for text in (b"[]", b"{oops", b"\xff\xfe"):
        (run / "results.json").write_bytes(text)
        with pytest.raises(
            ConfigError, match=r"results\.json: (not the results\.json of a training run|cannot be read as UTF-8)"
        ):
            load_curves(run)
    (run / "results.json").write_text(json.dumps({"timesteps": 5, "final_eval": {}}))
    for where, message in [  # (each was "no evals.jsonl or results.json (is it a training run directory?)")
        (tmp_path / "nowhere", f"{tmp_path / 'nowhere'}: no such folder; give a training run's folder"),
        (run / "results.json", f"{run / 'results.json'}: a file; give a training run's folder"),
    ]:
        with pytest.raises(ConfigError) as info:
            load_curves(where)
        assert str(info.value) == message
    (tmp_path / "odd" / "evals.jsonl").mkdir(parents=True)
    with pytest.raises(ConfigError, match=r"evals\.jsonl: a folder, where a training run writes a file$"):
        load_curves(tmp_path / "odd")
    # figures no run writes: each was a traceback (matplotlib's, int(), numpy's isfinite, the JSON decoder's)
    good = {"games": 20, "win_rate": 0.45, "ci_low": 0.3, "ci_high": 0.66}
    for row, refusal in [
        ({"timesteps": 100, "balanced": {**good, "ci_low": 0.5}}, "ci_low <= win_rate <= ci_high"),
        ({"timesteps": 100, "balanced": {**good, "win_rate": 1.5, "ci_high": 2.0}}, "must be from 0 to 1"),
        ({"timesteps": float("inf"), "balanced": good}, "timesteps must be a whole number from 0 to 2\\*\\*53, got inf"),
        ({"timesteps": 1e308, "balanced": good}, "timesteps must be a whole number"),
        ({"timesteps": 100, "balanced": {**good, "games": -2}}, "games must be a whole number"),
    ]:
        (run / "evals.jsonl").write_text(json.dumps(row) + "\n" + json.dumps(rows[0]) + "\n")
        with pytest.raises(ConfigError, match=r"evals\.jsonl, line 1: not a row of evaluations \(ValueError: .*" + refusal):
            load_curves(run)
    for text, refusal in [("[" * 100_000, "maximum recursion depth"), ('{"timesteps": ' + "1" * 5000 + "}", "4300 digits")]:
        (run / "evals.jsonl").write_text(text + "\n" + json.dumps(rows[0]) + "\n")
        with pytest.raises(ConfigError, match=r"evals\.jsonl, line 1: not a JSON row of evaluations \(.*" + refusal):
            load_curves(run)
    (run / "evals.jsonl").unlink()
    (run / "results.json").write_text(json.dumps({"timesteps": 5, "final_eval": {"balanced": {**good, "ci_high": 0.4}}}))
    with pytest.raises(ConfigError, match=r"results\.json: not the results\.json of a training run \(ValueError: win_rate"):
        load_curves(run)
    (run / "results.json").write_text("[" * 100_000)
    with pytest.raises(ConfigError, match=r"results\.json: not the results\.json of a training run \(RecursionError"):
        load_curves(run)
    (run / "results.json").write_text(json.dumps({"timesteps": 5, "final_eval": {}}))
    for name in ("x.txt", "p7", "x.pgf"):  # (.pgf was offered, and ended in matplotlib's traceback without LaTeX)
        with pytest.raises(ConfigError, match="give an image file name ending in one of"):
            plot_runs([run], tmp_path / name)
        assert not (tmp_path / name).exists() and not (tmp_path / (name + ".png")).exists()
    bad = str(tmp_path / "x.txt")
    code, _, err = run_cli("plot-training", run, "-o", bad)  # (named the file, not the option)
    assert code == 2 and err.startswith(f"error: --out {bad!r} must end in .png or .svg (or .pdf, .avif, "), err


def test_a_refused_run_leaves_no_run_folder_and_an_existing_run_untouched(tmp_path):
    """An evaluation opponent that cannot be played, a device that is not there, or a run folder that is a
    file are refused before anything is written (an existing run's config.yaml keeps its settings)."""
    from risk_env.train.sb3 import train

    new = tmp_path / "new"
    for changes, refusal in (
        ({"eval": {"opponents": ["bogus"], "final_games": 2, "workers": 1, "rules": SMALL}}, r"^eval\.opponents: 'bogus' "),
        (
            {"eval": {"opponents": ["bogus"], "final_games": 2, "backend": "vector", "rules": SMALL}},
            r"^eval\.opponents: 'bogus' cannot be played: the batched engine cannot play 'bogus'",
        ),
        ({"ppo": {"device": "meta", "n_steps": 64, "batch_size": 64}}, r"^ppo\.device='meta' is not available"),
    ):
        with pytest.raises(ConfigError, match=refusal):
            train(_tiny(new, **changes), progress=False, quiet=True)
        assert not new.exists()
    old = tmp_path / "old"
    old.mkdir()
    (old / "config.yaml").write_text("name: kept\n")
    with pytest.raises(ConfigError, match=r"^eval\.opponents: "):
        train(
            _tiny(old, eval={"opponents": ["bogus"], "final_games": 2, "workers": 1, "rules": SMALL}), progress=False, quiet=True
        )
    with pytest.raises(ConfigError, match="bogus"):
        train(_tiny(old, opponents={"baselines": ["bogus"]}), progress=False, quiet=True)
    assert (old / "config.yaml").read_text() == "name: kept\n" and sorted(p.name for p in old.iterdir()) == ["config.yaml"]
    file_run = tmp_path / "run.json"
    file_run.write_text("{}")
    with pytest.raises(ConfigError, match="is a file: give another --out"):
        train(_tiny(file_run), progress=False, quiet=True)
