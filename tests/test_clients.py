"""The recipes of docs/clients.md, run through the real clients.

Each ``test_recipe_*`` holds the code of one recipe of docs/clients.md (keep the
two in sync). Clients that are not installed are skipped with the extra that
installs them; CI installs ``.[all]``, which includes the ``clients`` extra.
"""

from __future__ import annotations

import numpy as np
import pytest

import risk_env
from risk_env import Phase

SMALL = dict(map="small", setup="random")  # 9 territories: eliminations come early, games stay short


def _finished_games(aec) -> list:
    """Record the final state of every game ``aec`` plays (read when the next reset comes)."""
    finished: list = []
    reset = aec.reset

    def recording_reset(*args, **kwargs):
        s = aec.unwrapped.game_state
        if s is not None and s.phase == Phase.GAME_OVER:
            finished.append(s)
        reset(*args, **kwargs)

    aec.reset = recording_reset
    return finished


# ---------------------------------------------------------------- PettingZoo
@pytest.mark.parametrize("eliminated", ["remove", "stay"])
def test_recipe_pettingzoo_api_test(eliminated):
    from pettingzoo.test import api_test

    env = risk_env.env(num_players=4, eliminated=eliminated, turn_limit=60, **SMALL)
    api_test(env, num_cycles=2000)


def test_recipe_pettingzoo_heuristic_agents_loop():
    from risk_env.agents import load_agent

    env = risk_env.env(num_players=4)
    env.reset(seed=0)
    names = ["aggressive", "balanced", "continent", "random"]
    players = {agent: load_agent(name, seed=i) for i, (agent, name) in enumerate(zip(env.possible_agents, names, strict=True))}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else players[agent].act(obs, info))
    s = env.unwrapped.game_state
    assert s.phase == Phase.GAME_OVER and (s.winner >= 0 or s.truncated)


# ---------------------------------------------------------------- Gymnasium
def test_recipe_gymnasium_make_and_vector_env():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("risk_env/RiskSingleAgent-v0", num_players=3, turn_limit=30)
    check_env(env.unwrapped)

    venv = gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make("risk_env/RiskSingleAgent-v0", num_players=2, turn_limit=10) for _ in range(2)]
    )
    obs, info = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(300):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])  # never an empty row
        obs, reward, terminated, truncated, info = venv.step(actions)
        episodes += int((terminated | truncated).sum())
    assert obs.shape == (2, 321) and episodes >= 2
    venv.close()


def test_recipe_gymnasium_frames_for_video():
    import gymnasium
    from gymnasium.wrappers import RenderCollection

    pytest.importorskip("matplotlib", reason="frames need the render extra: pip install 'risk_env[render]'")
    env = RenderCollection(gymnasium.make("risk_env/RiskSingleAgent-v0", num_players=2, render_mode="rgb_array", turn_limit=10))
    env.reset(seed=0)
    for _ in range(2):
        env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    frames = env.render()
    assert len(frames) == 3 and frames[0].dtype == np.uint8 and frames[0].ndim == 3 and frames[0].shape[2] == 3
    env.close()


def test_recipe_gymnasium_record_video(tmp_path):
    import gymnasium
    from gymnasium.wrappers import RecordVideo

    pytest.importorskip("moviepy", reason="RecordVideo needs moviepy (pip install moviepy); frames are tested above")
    env = gymnasium.make("risk_env/RiskSingleAgent-v0", num_players=2, render_mode="rgb_array", turn_limit=4)
    env = RecordVideo(env, str(tmp_path), episode_trigger=lambda ep: ep == 0)
    env.reset(seed=0)
    done = False
    while not done:
        _obs, _r, te, tr, _info = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
        done = te or tr
    env.close()
    assert list(tmp_path.glob("*.mp4"))


# ---------------------------------------------------------------- Stable-Baselines3 and sb3-contrib
def test_recipe_sb3_make_vec_env_and_maskable_ppo():
    pytest.importorskip("sb3_contrib", reason="needs the train extra: pip install 'risk_env[train]'")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_checker import check_env
    from stable_baselines3.common.env_util import make_vec_env

    from risk_env.envs.single_agent import RiskSingleAgentEnv

    check_env(RiskSingleAgentEnv(num_players=2, turn_limit=20))
    venv = make_vec_env("risk_env/RiskSingleAgent-v0", n_envs=1, seed=0, env_kwargs={"num_players": 2, "turn_limit": 20})
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=64)
    obs = venv.reset()
    for _ in range(20):
        action, _ = model.predict(obs, action_masks=get_action_masks(venv))
        obs, _reward, _done, _info = venv.step(action)
    frame = venv.render()  # make_vec_env asked for render_mode="rgb_array"
    assert frame.dtype == np.uint8 and frame.ndim == 3
    venv.close()


# ---------------------------------------------------------------- RLlib
def test_recipe_rllib_pettingzoo_env():
    pytest.importorskip("ray.rllib", reason="needs the rllib extra: pip install 'risk_env[rllib]'")
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    env = PettingZooEnv(risk_env.env(num_players=4, turn_limit=60, **SMALL))
    obs, infos = env.reset(seed=0)
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(env.get_agent_ids(), 0.0)
    done = False
    while not done:
        ((agent, o),) = obs.items()
        obs, rewards, terminated, truncated, infos = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        for k, r in rewards.items():
            returns[k] += r
        done = terminated["__all__"] or truncated["__all__"]
    s = env.env.unwrapped.game_state
    assert s.phase == Phase.GAME_OVER
    for seat in s.elim_order:
        assert returns[f"player_{seat}"] == -1.0


# ---------------------------------------------------------------- TorchRL
@pytest.mark.parametrize("num_players", [4, 6])
def test_recipe_torchrl_full_game(num_players):
    pytest.importorskip("torchrl", reason="needs the clients extra: pip install 'risk_env[clients]'")
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    torch.manual_seed(0)
    aec = risk_env.env(num_players=num_players, eliminated="stay", views=False, turn_limit=120, **SMALL)
    env = PettingZooWrapper(aec, use_mask=True, categorical_actions=True, seed=0)
    td = env.rollout(max_steps=100_000, break_when_any_done=True)  # random actions within each acting mask
    assert bool(td["next", "done"][-1]) and not td["next", "done"][:-1].any()
    s = aec.unwrapped.game_state
    assert s.phase == Phase.GAME_OVER and s.elim_order  # the game went on past an elimination, to its end
    for seat in range(num_players):
        group = f"player_{seat}"
        final = float(td["next", group, "reward"][-1])
        assert final == (-1.0 if seat in s.elim_order else 1.0 if seat == s.winner else 0.0)
        assert float(td["next", group, "reward"][:-1].abs().sum()) == 0.0  # rewards come at the end
    env.close()


# ---------------------------------------------------------------- Tianshou
@pytest.mark.parametrize("num_players", [4, 6])
def test_recipe_tianshou_full_games(num_players):
    pytest.importorskip("tianshou", reason="needs the clients extra: pip install 'risk_env[clients]'")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    recorders: list = []

    def make_env() -> PettingZooEnv:
        aec = risk_env.env(num_players=num_players, eliminated="stay", views=False, turn_limit=120, **SMALL)
        recorders.append(_finished_games(aec))
        return PettingZooEnv(aec)

    env = make_env()
    policy = MultiAgentPolicy(
        {agent: MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space).policy for agent in env.agents}
    )
    np.random.seed(0)  # the random policy draws from numpy's global generator
    collector = Collector(policy, DummyVectorEnv([make_env]))
    collector.reset(gym_reset_kwargs={"seed": 0})
    result = collector.collect(n_episode=2)
    assert result.n_collected_episodes == 2
    games = [g for rec in recorders for g in rec]
    assert len(games) >= 2 and all(g.phase == Phase.GAME_OVER for g in games)
    assert any(g.elim_order for g in games)  # some episode went on past an elimination, to its end
    returns = np.asarray(result.returns)
    assert returns.shape == (2, num_players)
    for g, ret in zip(games, returns, strict=False):
        for seat in g.elim_order:
            assert ret[seat] == -1.0


def test_torchrl_seeded_once_reproduces_every_later_game():
    """TorchRL seeds the env once, then resets without a seed: the later games replay too."""
    pytest.importorskip("torchrl", reason="needs the clients extra: pip install 'risk_env[clients]'")
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    def two_games() -> list:
        torch.manual_seed(0)
        env = PettingZooWrapper(
            risk_env.env(num_players=3, eliminated="stay", views=False, turn_limit=6, **SMALL),
            use_mask=True,
            categorical_actions=True,
            seed=3,
        )
        out = [
            env.rollout(max_steps=10_000, break_when_any_done=True)["player_0", "observation", "observation"] for _ in range(2)
        ]
        env.close()
        return out

    a, b = two_games(), two_games()
    assert not torch.equal(a[0][0], a[1][0])  # a new game...
    for x, y in zip(a, b, strict=True):
        assert torch.equal(x, y)  # ...the same in every run


# ---------------------------------------------------------------- the batched engine's interfaces
BATCHED_RULES = dict(map="small", setup="random", num_players=2, turn_limit=30)


def test_recipe_batched_gymnasium_vector_env():
    pytest.importorskip("torch", reason="the batched engine needs the train extra: pip install 'risk_env[train]'")
    import gymnasium
    from gymnasium.wrappers.vector import ClipReward, DictInfoToList, RecordEpisodeStatistics

    from risk_env.vector.gym_vector import GymnasiumVectorEnv

    envs = RecordEpisodeStatistics(GymnasiumVectorEnv(32, seed=0, opponents="aggressive", **BATCHED_RULES))
    obs, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    returns, lengths = np.zeros(32), np.zeros(32, dtype=int)
    mine, starting = [], np.zeros(32, dtype=bool)
    for _ in range(80):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, reward, terminated, truncated, info = envs.step(actions)
        # next-step autoreset: the step after an episode's end starts the next one (reward 0, not done)
        assert not reward[starting].any() and not (terminated | truncated)[starting].any()
        returns[~starting] += reward[~starting]
        lengths[~starting] += 1
        starting = terminated | truncated
        for i in np.flatnonzero(starting):
            mine.append((returns[i], lengths[i]))
            returns[i], lengths[i] = 0.0, 0
    assert isinstance(envs.unwrapped, gymnasium.vector.VectorEnv)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    assert obs.shape == (32, envs.single_observation_space.shape[0]) and envs.observation_space.contains(obs)
    assert len(mine) > 5 and list(envs.return_queue) == [r for r, _ in mine][-len(envs.return_queue) :]
    assert list(envs.length_queue) == [n for _, n in mine][-len(envs.length_queue) :]
    assert set(envs.return_queue) <= {-1.0, 0.0, 1.0}
    envs.close()
    assert envs.unwrapped.closed

    # other vector wrappers, and same-step autoreset (the last observation in info["final_obs"])
    rules = dict(BATCHED_RULES, turn_limit=8)  # short games (random opponents): truncations
    envs = DictInfoToList(ClipReward(GymnasiumVectorEnv(16, autoreset_mode="same_step", **rules), -0.5, 0.5))
    obs, infos = envs.reset(seed=1)
    finals = 0
    for _ in range(60):
        actions = np.array([rng.choice(np.flatnonzero(i["action_mask"])) for i in infos])
        obs, reward, terminated, truncated, infos = envs.step(actions)
        assert (np.abs(reward) <= 0.5).all()
        for i in np.flatnonzero(terminated | truncated):
            assert infos[i]["final_obs"].shape == obs[i].shape and not np.array_equal(infos[i]["final_obs"], obs[i])
            finals += 1
    assert finals > 0


def test_recipe_batched_torchrl_env():
    pytest.importorskip("torchrl", reason="needs the clients extra: pip install 'risk_env[clients]'")
    import torch
    from tensordict.nn import TensorDictModule
    from torchrl.collectors import Collector
    from torchrl.envs import ActionMask, TransformedEnv
    from torchrl.envs.utils import check_env_specs
    from torchrl.modules import MaskedCategorical, ProbabilisticActor

    from risk_env.vector.torchrl_env import TorchRLVectorEnv

    rules = dict(BATCHED_RULES, turn_limit=10)
    env = TransformedEnv(TorchRLVectorEnv(16, seed=0, opponents="aggressive", **rules), ActionMask())
    check_env_specs(env, seed=0)
    D, N = env.observation_spec["observation"].shape[-1], env.action_spec.space.n
    policy = ProbabilisticActor(
        TensorDictModule(torch.nn.Linear(D, N), in_keys=["observation"], out_keys=["logits"]),
        in_keys={"logits": "logits", "mask": "action_mask"},
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )
    collector = Collector(env, policy, frames_per_batch=16 * 32, total_frames=16 * 32 * 2, auto_register_policy_transforms=False)
    done = 0
    for batch in collector:  # (16 slots, 32 steps)
        assert batch.batch_size == (16, 32)
        assert bool(batch["action_mask"].gather(-1, batch["action"][..., None]).all())  # the masks were respected
        ended = batch["next", "done"][..., 0]
        done += int(ended.sum())
        assert set(batch["next", "reward"][ended].flatten().tolist()) <= {-1.0, 0.0, 1.0}
        assert not batch["next", "reward"][~ended].any()
        # an episode goes on from the observation it stopped at; after its end a new game starts
        cont = ~ended[:, :-1]
        assert torch.equal(batch["observation"][:, 1:][cont], batch["next", "observation"][:, :-1][cont])
        started = ended[:, :-1]
        assert not (batch["observation"][:, 1:][started] == batch["next", "observation"][:, :-1][started]).all(-1).any()
    collector.shutdown()
    assert done > 2
    with pytest.raises(risk_env.ConfigError, match="self-play"):
        TorchRLVectorEnv(4, self_play=True)


def test_recipe_batched_sb3_vec_env():
    pytest.importorskip("sb3_contrib", reason="needs the train extra: pip install 'risk_env[train]'")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy

    from risk_env.vector.sb3 import VectorSB3Env

    venv = VectorSB3Env(32, seed=0, opponent=["random", "balanced"], **dict(BATCHED_RULES, turn_limit=8))
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=128, n_epochs=1, seed=0)
    model.learn(total_timesteps=512)
    mean_reward, _ = evaluate_policy(model, venv, n_eval_episodes=8, warn=False)
    assert model.num_timesteps >= 512 and -1.0 <= mean_reward <= 1.0
