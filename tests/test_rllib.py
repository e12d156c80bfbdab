"""RLlib scale-out path (risk_env.train.rllib): the wrapped env, the masking module, one training iteration."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed (pip install 'risk_env[rllib]'); CI installs it")

from risk_env.train.rllib import ObservationsKeyWrapper, build_config, make_rllib_env, policy_mapping_fn


def test_wrapped_env_renames_the_observation_key():
    import risk_env

    aec = ObservationsKeyWrapper(risk_env.env(num_players=2, setup="random", turn_limit=10))
    aec.reset(seed=0)
    sp = aec.observation_space("player_0")
    assert set(sp.spaces) == {"observations", "action_mask"} and sp is aec.observation_space("player_0")
    obs = aec.observe(aec.agent_selection)
    assert obs["observations"].shape == (321,) and obs["action_mask"].dtype == np.float32
    assert sp.contains(obs)

    env = make_rllib_env(2, {"preset": "fast", "turn_limit": 6})
    obs, _ = env.reset(seed=1)
    ((agent, o),) = obs.items()
    steps = 0
    done = False
    returns = {}
    while not done:  # random legal play to the end: every agent's final reward arrives
        a = int(np.flatnonzero(o["action_mask"])[0])
        obs, rew, term, trunc, _ = env.step({agent: a})
        for k, r in rew.items():
            returns[k] = returns.get(k, 0.0) + r
        done = term["__all__"] or trunc["__all__"]
        if not done:
            ((agent, o),) = obs.items()
        steps += 1
    assert steps > 10 and set(returns) == {"player_0", "player_1"}
    assert policy_mapping_fn("player_1") == "shared"


def test_the_player_count_comes_from_the_rules():
    from risk_env.train.rllib import env_creator

    def seats(env) -> int:
        return len(env.env.possible_agents)  # PettingZooEnv -> ObservationsKeyWrapper

    assert seats(make_rllib_env(rules={"preset": "secret_missions"})) == 4  # a preset for any count: 4, as raw_env
    assert seats(make_rllib_env(rules={"preset": "classic", "num_players": 3})) == 3
    assert seats(make_rllib_env(5, {"preset": "classic", "num_players": 3})) == 5  # an explicit count wins
    assert seats(make_rllib_env()) == 2  # no rules at all: 2 players
    assert seats(env_creator({"rules": {"preset": "duel"}})) == 2
    assert build_config(rules={"preset": "fast", "num_players": 4}).env_config["num_players"] == 4
    assert build_config().env_config == {"num_players": 2, "rules": {"preset": "fast"}}
    assert build_config(3).env_config == {"num_players": 3, "rules": {"preset": "fast"}}


def test_the_module_class_is_one_class_and_pickles_by_reference():
    import pickle

    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule

    from risk_env.train import rllib

    cls = rllib.MaskedPPOTorchRLModule
    assert cls is rllib.MaskedPPOTorchRLModule
    assert cls.__module__ == "risk_env.train.rllib" and cls.__qualname__ == "MaskedPPOTorchRLModule"
    assert pickle.loads(pickle.dumps(cls)) is cls
    assert issubclass(cls, DefaultPPOTorchRLModule)


def test_masking_module_never_picks_an_illegal_action():
    import torch
    from ray.rllib.core.columns import Columns

    cfg = build_config(num_players=2, rules={"preset": "fast", "turn_limit": 10}, hidden=(16,))
    module = cfg.get_multi_rl_module_spec(env=make_rllib_env(2, {"preset": "fast", "turn_limit": 10})).build()["shared"]
    mask = torch.zeros(3, 70)
    mask[0, 5] = mask[1, 69] = mask[2, [7, 9]] = 1.0
    batch = {Columns.OBS: {"observations": torch.rand(3, 321), "action_mask": mask}}
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    assert logits.argmax(dim=1).tolist()[:2] == [5, 69] and logits.argmax(dim=1)[2].item() in (7, 9)
    assert (logits[mask == 0] < -1e30).all()


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray for the module's tests (starting one takes about 10 s): the training iteration below, then
    ``risk-env train-rllib`` of the checkpoint fixture, which joins it and shuts it down when it is done."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield ray
    if ray.is_initialized():
        ray.shutdown()


def test_one_training_iteration_locally(local_ray):
    cfg = build_config(
        num_players=2,
        rules={"preset": "fast", "turn_limit": 20},
        train_batch_size=256,
        minibatch_size=64,
        num_epochs=1,
        hidden=(32,),
    )
    algo = cfg.build_algo()
    try:
        res = algo.train()
        assert res["training_iteration"] == 1
        assert res["env_runners"]["num_env_steps_sampled_lifetime"] >= 256
        assert "shared" in res["learners"] and np.isfinite(res["learners"]["shared"]["total_loss"])
    finally:
        algo.stop()


# ---------------------------------------------------------------------- a checkpoint as an agent
SMALL_RULES = ["--rules", "fast", "-s", "map=small", "-s", "two_player=none", "-s", "turn_limit=20"]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory, local_ray):
    """A checkpoint written by the real code path, ``risk-env train-rllib``: one iteration of 64 env steps."""
    from helpers import run_cli

    out = tmp_path_factory.mktemp("rllib") / "ckpt"
    args = ["train-rllib", "-n", "2", *SMALL_RULES, "--iterations", "1", "--batch", "64", "--minibatch", "32", "--epochs", "1"]
    code, text, err = run_cli(*args, "-o", out)
    assert code == 0, err[-3000:]
    return out, text


def test_the_log_says_when_no_episode_has_finished(checkpoint):
    path, text = checkpoint
    lines = text.splitlines()
    assert lines[0].startswith("iter 1: 64 env steps, no episode finished yet, ") and lines[0].endswith(" s")
    assert "nan" not in text and "?" not in text
    assert lines[-1] == f"checkpoint: {path.resolve()}"


def test_the_checkpoint_says_which_game_it_was_trained_for(checkpoint):
    import json

    path, _ = checkpoint
    game = json.loads((path / "risk_env_game.json").read_text())
    assert game == {"num_players": 2, "rules": {"preset": "fast", "map": "small", "two_player": "none", "turn_limit": 20}}


def test_the_policy_plays_only_legal_ids_and_deterministically(checkpoint):
    import risk_env
    from risk_env.agents import RLlibPolicyAgent, load_agent

    path, _ = checkpoint
    agent = load_agent(str(path))
    assert isinstance(agent, RLlibPolicyAgent) and agent.name == "ckpt" and agent.policy == "shared"
    env = risk_env.raw_env(num_players=2, preset="fast", map="small", two_player="none", turn_limit=20)
    env.reset(seed=3)
    acted = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = agent.act(obs, info)
        assert obs["action_mask"][a] == 1 and agent.act(obs, info) == a  # legal, and the same again
        env.step(a)
        acted += 1
    assert acted > 20
    sampler = RLlibPolicyAgent(path, deterministic=False, seed=1)
    env.reset(seed=3)
    obs, *_ = env.last()
    picks = {sampler.act(obs) for _ in range(50)}
    assert picks <= set(np.flatnonzero(obs["action_mask"]).tolist()) and len(picks) > 1


def test_evaluate_and_watch_take_the_checkpoint(checkpoint):
    from helpers import run_cli

    import risk_env

    path, _ = checkpoint
    rules = {"preset": "fast", "map": "small", "two_player": "none", "turn_limit": 20}
    res = risk_env.evaluate([str(path), "random"], num_games=2, workers=1, progress=False, rules=rules)
    assert res.entrants == ["ckpt", "random"] and sum(res.stats["ckpt"].place_counts) == 2
    code, text, err = run_cli("evaluate", path, "random", "--games", "2", "--workers", "1", "--no-progress", *SMALL_RULES)
    assert code == 0, err
    assert text.splitlines()[2].startswith("ckpt ")
    code, text, err = run_cli("watch", "-n", "2", *SMALL_RULES, "--agents", f"{path},random", "--show", "none")
    assert code == 0, err
    assert text.splitlines()[0] == f"seats: player_0 = {path}, player_1 = random"


def test_the_policy_object_pickles_and_plays_the_same_games_in_worker_processes(checkpoint):
    # (it held the torch module, so evaluate([agent, ...], workers=2) refused the object)
    import pickle

    import risk_env
    from risk_env.agents import RLlibPolicyAgent

    path, _ = checkpoint
    agent = RLlibPolicyAgent(path)
    twin = pickle.loads(pickle.dumps(agent))
    assert isinstance(twin, RLlibPolicyAgent) and twin.name == "ckpt" and twin.policy == "shared"
    rules = {"preset": "fast", "map": "small", "two_player": "none", "turn_limit": 20}
    kw = dict(num_games=3, seed=5, progress=False, rules=rules)
    here = risk_env.evaluate([agent, "random"], workers=1, **kw)
    there = risk_env.evaluate([agent, "random"], workers=2, **kw)
    assert [(g.winner, g.turns, g.steps, g.places) for g in here.games] == [
        (g.winner, g.turns, g.steps, g.places) for g in there.games
    ]


def test_a_policy_in_a_game_of_other_rules_or_a_bad_folder_is_refused(checkpoint, tmp_path):
    import risk_env
    from risk_env.agents import RLlibPolicyAgent, load_agent
    from risk_env.errors import RiskError

    path, _ = checkpoint
    with pytest.raises(RiskError, match=r"expects observations of shape \(114,\), the env gives \(321,\): .*trained for"):
        risk_env.evaluate([str(path), "random"], num_games=1, workers=1, progress=False, rules="fast", num_players=2)
    with pytest.raises(RiskError, match=r"has no policy 'other'; it has: shared"):
        RLlibPolicyAgent(path, policy="other")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RiskError, match=r"is not an RLlib checkpoint folder \(no rllib_checkpoint.json in it\)"):
        RLlibPolicyAgent(tmp_path / "empty")
    with pytest.raises(RiskError, match=r"is a folder: give the saved model's file"):
        load_agent(str(tmp_path / "empty"))  # a folder that is no RLlib checkpoint reads as a MaskablePPO path


def test_a_checkpoint_folder_that_cannot_be_written_is_refused_before_ray_starts(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``--out`` naming a file trained, then failed to save (FileExistsError, the training lost); ``--out ''`` filled the
    working folder with the checkpoint's files. Both are refused before Ray starts."""
    import ray

    from risk_env.errors import ConfigError
    from risk_env.train.rllib import train

    afile = tmp_path / "afile"
    afile.write_text("kept\n")
    cfg = build_config(num_players=2, rules={"preset": "fast", "turn_limit": 10}, hidden=(16,))
    with pytest.raises(ConfigError, match=r"^cannot write the checkpoint to '.*afile': Not a directory"):
        train(cfg, 1, afile)
    with pytest.raises(ConfigError, match=r"^the checkpoint folder is empty"):
        train(cfg, 1, "")
    assert afile.read_text() == "kept\n" and not ray.is_initialized()
