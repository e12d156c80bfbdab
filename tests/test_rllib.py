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


def test_one_training_iteration_locally():
    import ray

    cfg = build_config(
        num_players=2,
        rules={"preset": "fast", "turn_limit": 20},
        train_batch_size=256,
        minibatch_size=64,
        num_epochs=1,
        hidden=(32,),
    )
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:
        algo = cfg.build_algo()
        res = algo.train()
        assert res["training_iteration"] == 1
        assert res["env_runners"]["num_env_steps_sampled_lifetime"] >= 256
        assert "shared" in res["learners"] and np.isfinite(res["learners"]["shared"]["total_loss"])
        algo.stop()
    finally:
        ray.shutdown()
