"""The reference training on the batched engine (``env.backend: vector``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from risk_env.errors import ConfigError
from risk_env.train.config import TrainConfig, apply_overrides
from risk_env.train.sb3 import build_vec_env, train


def _cfg(*sets: str) -> TrainConfig:
    base = ["env.backend=vector", "ppo.policy=mlp", "env.n_envs=8", "opponents.baselines=[random,aggressive]"]
    return TrainConfig.model_validate(apply_overrides({}, [*base, *sets]))


def test_vector_backend_builds_the_batched_env() -> None:
    from stable_baselines3.common.vec_env import VecMonitor

    from risk_env.vector.sb3 import VectorSB3Env

    venv = build_vec_env(_cfg("opponents.weights=[1,3]", "env.shaping=0.5"))
    assert isinstance(venv, VecMonitor) and isinstance(venv.venv, VectorSB3Env)
    inner = venv.venv
    assert inner.num_envs == 8 and inner.shaping == 0.5 and inner.shaping_gamma == 0.999
    obs = np.asarray(venv.reset())
    assert obs.shape == (8, inner.venv.observation_size)
    assert inner.venv.rules.num_players == 2


def test_vector_backend_seats_networks_by_name() -> None:
    # (the sb3 trainer's batched env took only the heuristics; the batched engine plays a network by name)
    from risk_env.vector.network import NetworkPolicy

    venv = build_vec_env(_cfg("opponents.baselines=[balanced,ppo-2p]", "opponents.weights=[1,1]"))
    fixed = venv.venv.learner_env.assignment
    assert sorted(fixed.names) == ["balanced", "ppo-2p"] and len(fixed.policies) == 2  # (one network for its slots)
    assert any(isinstance(p, NetworkPolicy) for p in fixed.policies)
    obs = np.asarray(venv.reset())
    masks = venv.venv.action_masks()
    for _ in range(40):
        ids = np.array([np.flatnonzero(m)[0] for m in masks])
        obs, rewards, dones, infos = venv.step(ids)
        masks = venv.venv.action_masks()
    assert obs.shape[0] == 8 and np.isfinite(rewards).all()


@pytest.mark.parametrize(
    "sets, what",
    [
        (["ppo.policy=graph"], "ppo.policy: mlp"),
        (["opponents.self_play.enabled=true"], "self_play"),
        (
            ["opponents.baselines=[random,risk_env.agents.random_agent:RandomAgent]"],
            r"opponents\.baselines among \['random', .*policy files \(\.pt\).*\(not \['risk_env\.agents\.random_agent:Random",
        ),
        (["env.max_turn_steps=50"], "max_turn_steps"),
        (["opponents.pfsp.enabled=true"], r"opponents\.pfsp\.enabled: false \(the opponents are dealt to the slots once"),
        (["env.vector_device=tpu"], r"^env\.vector_device='tpu' is not a torch device; available here: cpu"),
    ],
)
def test_vector_backend_names_what_it_lacks(sets: list[str], what: str) -> None:
    with pytest.raises(ConfigError, match=what):
        build_vec_env(_cfg(*sets))


def test_pfsp_on_the_vector_backend_is_refused_before_the_run_folder(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with pytest.raises(ConfigError, match=r"^env\.backend 'vector' needs opponents\.pfsp\.enabled: false"):
        train(_cfg("opponents.pfsp.enabled=true", f"out_dir={out}", "eval.final_games=0", "eval.every=0"), quiet=True)
    assert not out.exists()


def test_train_runs_on_the_vector_backend(tmp_path: Path) -> None:
    cfg = _cfg(
        "total_timesteps=256",
        "ppo.n_steps=16",
        "ppo.batch_size=64",
        "ppo.n_epochs=1",
        "eval.every=0",
        "eval.final_games=0",
        f"out_dir={tmp_path}",
    )
    before = torch.get_num_threads()
    try:
        result = train(cfg, progress=False, quiet=True)
    finally:
        torch.set_num_threads(before)
    assert result.timesteps >= 256 and result.model_path.exists()
