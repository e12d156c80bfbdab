"""Scale-out training with Ray RLlib (new API stack): multi-agent PPO on the AEC env.

``risk-env train-rllib`` (and ``scripts/train_rllib.py``, the same command) calls :func:`train`;
it needs the ``rllib`` extra (``pip install 'risk_env[rllib]'``)::

    risk-env train-rllib --players 2 --iterations 50                       # local: ray.init()
    risk-env train-rllib --address auto --env-runners 64 --iterations 2000  # on a Ray cluster, unchanged code

The checkpoint folder it writes (``--out``, default ``runs/rllib``) is an agent spec:
``load_agent("runs/rllib")``, ``risk-env evaluate runs/rllib random --rules fast``,
``risk-env watch --rules fast --agents runs/rllib,random`` (:class:`risk_env.agents.RLlibPolicyAgent`).

How it fits together
    * The PettingZoo AEC env (:func:`risk_env.envs.aec`) is wrapped by
      :class:`ObservationsKeyWrapper`, which renames the observation's
      ``"observation"`` key to ``"observations"`` (the key RLlib's action-masking
      module convention expects, beside ``"action_mask"``) and gives the mask
      as float32, then by RLlib's own
      ``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``.
    * Every seat maps to one shared policy ``"shared"`` (parameter-sharing
      self-play; :func:`policy_mapping_fn`); :class:`MaskedPPOTorchRLModule`
      is a PPO torch RL module that feeds ``"observations"`` to the default
      PPO networks and adds ``log(mask)`` (clamped) to the logits, so illegal
      ids are never sampled.
    * Rewards are the AEC env's (+1 win, -1 when eliminated, truncation by
      ``truncation_reward``); RLlib's PettingZoo wrapper hands each agent its
      reward when it is next selected (a loser's -1 at its dead step).
    * ``ray.init(address=...)``: ``None`` starts a local Ray; ``"auto"`` joins
      the cluster this machine belongs to. Nothing else changes between the two.

Python::

    from risk_env.train.rllib import build_config
    algo = build_config(num_players=2, rules={"preset": "fast", "turn_limit": 100}).build_algo()
    print(algo.train()["env_runners"]["episode_return_mean"])
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

from .._output import folder_problem
from ..errors import ConfigError
from ..rules.config import RulesConfig, resolve_rules

__all__ = [
    "ObservationsKeyWrapper",
    "make_rllib_env",
    "game_rules",
    "env_creator",
    "policy_mapping_fn",
    "build_config",
    "train",
    "iteration_line",
    "ENV_NAME",
    "POLICY_ID",
]

ENV_NAME = "risk_env_pettingzoo"
"""Name under which :func:`register` registers the env with Ray Tune."""

POLICY_ID = "shared"
"""The one policy every seat plays (parameter sharing)."""


def _rllib_missing() -> ImportError:
    return ImportError("RLlib training needs the 'rllib' extra: pip install 'risk_env[rllib]' (ray[rllib])")


class ObservationsKeyWrapper(BaseWrapper):
    """AEC wrapper: ``{"observation", "action_mask"}`` -> ``{"observations", "action_mask"}``.

    ``"observations"``: float32 ``(D,)`` (unchanged); ``"action_mask"``: float32 ``(N,)``
    in {0, 1} (the env's int8 mask as floats, ready for ``log``). The spaces are
    cached per agent (PettingZoo's API test wants the same object each call).
    """

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self._spaces: dict[str, gymnasium.spaces.Dict] = {}

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        sp = self._spaces.get(agent)
        if sp is None:
            inner = self.env.observation_space(agent)
            sp = gymnasium.spaces.Dict(
                {
                    "observations": inner["observation"],
                    "action_mask": gymnasium.spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32),
                }
            )
            self._spaces[agent] = sp
        return sp

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        obs = self.env.observe(agent)
        if obs is None:
            return None
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}


def game_rules(num_players: int | None = None, rules: Mapping[str, Any] | None = None) -> RulesConfig:
    """The rules an RLlib env plays: ``rules`` (:func:`~risk_env.rules.config.resolve_rules`) with
    ``num_players`` on top; ``num_players=None`` keeps the count of ``rules`` (a preset's, or 4 when
    they name none), and is 2 when ``rules`` is None too.

    Raises:
        ConfigError: bad rules, or a count that contradicts a preset made for another count.

    >>> game_rules().num_players, game_rules(rules={"preset": "secret_missions"}).num_players
    (2, 4)
    >>> game_rules(3, {"preset": "classic", "num_players": 4}).num_players
    3
    """
    if num_players is None and rules is None:
        num_players = 2
    return resolve_rules(rules=rules, num_players=num_players)


def make_rllib_env(num_players: int | None = None, rules: Mapping[str, Any] | None = None) -> Any:
    """The AEC env wrapped for RLlib: ``PettingZooEnv(ObservationsKeyWrapper(risk_env.env(...)))``.

    Args:
        num_players: 2..6; ``None`` keeps the count of ``rules`` (:func:`game_rules`).
        rules: :class:`~risk_env.rules.config.RulesConfig` switches, optionally with ``"preset"``.

    Raises:
        ConfigError: bad rules; ImportError: ray[rllib] is not installed.
    """
    try:
        from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    except ImportError:
        raise _rllib_missing() from None
    from ..envs.aec import env as make_env

    return PettingZooEnv(ObservationsKeyWrapper(make_env(rules=game_rules(num_players, rules))))


def env_creator(env_config: Mapping[str, Any]) -> Any:
    """Ray's env factory: ``env_config = {"num_players": 2, "rules": {...}}`` (either key may be left out:
    :func:`game_rules`)."""
    cfg = dict(env_config)
    return make_rllib_env(cfg.get("num_players"), cfg.get("rules"))


def register() -> None:
    """Register :func:`env_creator` with Ray Tune as :data:`ENV_NAME`."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, env_creator)


def policy_mapping_fn(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Every seat plays the shared policy."""
    return POLICY_ID


_CLASSES: dict[str, type] = {}


def _module_class() -> type:
    """``MaskedPPOTorchRLModule`` (a subclass of RLlib's ``DefaultPPOTorchRLModule``), defined on
    first use so importing this module needs no ray, then cached: every access to
    ``risk_env.train.rllib.MaskedPPOTorchRLModule`` returns the same class, so it pickles by reference."""
    if "module" in _CLASSES:
        return _CLASSES["module"]
    try:
        import torch
        from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
        from ray.rllib.core.columns import Columns
    except ImportError:
        raise _rllib_missing() from None

    floor = torch.finfo(torch.float32).min

    class _Masked(DefaultPPOTorchRLModule):
        """PPO torch RL module for ``Dict(observations=Box, action_mask=Box)`` observations.

        The networks are built for the ``"observations"`` space only; every forward pass
        splits the batch's observation dict, runs the default PPO forward on
        ``"observations"``, and adds ``clamp(log(action_mask), min=float32 min)`` to the
        action logits (illegal ids get probability 0).
        """

        def __init__(self, *, observation_space: Any = None, **kwargs: Any) -> None:
            if not isinstance(observation_space, gymnasium.spaces.Dict) or set(observation_space.spaces) != {
                "observations",
                "action_mask",
            }:
                raise ConfigError(
                    "MaskedPPOTorchRLModule needs a Dict observation space with keys 'observations' and 'action_mask' "
                    f"(wrap the env with ObservationsKeyWrapper), got {observation_space}"
                )
            self._space_with_mask = observation_space
            super().__init__(observation_space=observation_space["observations"], **kwargs)

        def setup(self) -> None:
            super().setup()
            self.observation_space = self._space_with_mask

        @staticmethod
        def _split(batch: dict) -> tuple[Any, dict]:
            obs = batch[Columns.OBS]
            if isinstance(obs, dict):
                batch = dict(batch)
                batch["_mask"] = obs["action_mask"]
                batch[Columns.OBS] = obs["observations"]
            return batch["_mask"], batch

        @staticmethod
        def _mask(out: dict, mask: Any) -> dict:
            out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask.float()), min=floor)
            return out

        def _forward_inference(self, batch: dict, **kwargs: Any) -> dict:
            mask, batch = self._split(batch)
            return self._mask(super()._forward_inference(batch, **kwargs), mask)

        def _forward_exploration(self, batch: dict, **kwargs: Any) -> dict:
            mask, batch = self._split(batch)
            return self._mask(super()._forward_exploration(batch, **kwargs), mask)

        def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
            mask, batch = self._split(batch)
            return self._mask(super()._forward_train(batch, **kwargs), mask)

        def compute_values(self, batch: dict, embeddings: Any = None) -> Any:
            if isinstance(batch[Columns.OBS], dict):
                _, batch = self._split(batch)
            return super().compute_values(batch, embeddings)

    _Masked.__name__ = _Masked.__qualname__ = "MaskedPPOTorchRLModule"
    _Masked.__module__ = __name__
    _CLASSES["module"] = _Masked  # one class per process: pickling by reference finds this very class
    return _Masked


def __getattr__(name: str) -> Any:
    if name == "MaskedPPOTorchRLModule":
        return _module_class()
    raise AttributeError(name)


def build_config(
    num_players: int | None = None,
    rules: Mapping[str, Any] | None = None,
    num_env_runners: int = 0,
    envs_per_runner: int = 1,
    train_batch_size: int = 4000,
    minibatch_size: int = 512,
    num_epochs: int = 4,
    lr: float = 3e-4,
    gamma: float = 0.99,
    hidden: Sequence[int] = (128, 128),
    num_learners: int = 0,
    num_gpus_per_learner: float = 0,
    seed: int | None = 0,
) -> Any:
    """A ``PPOConfig`` (new API stack) for multi-agent self-play on the AEC env.

    Args:
        num_players: 2..6; ``None`` keeps the count of ``rules`` (a preset's, or 4 when they name none),
            and is 2 when ``rules`` is None too (:func:`game_rules`).
        rules: rule switches with an optional ``"preset"`` (see :func:`make_rllib_env`; default: the ``fast`` preset).
        num_env_runners: sampling processes (0: sample in the driver).
        envs_per_runner: vectorized envs per runner.
        train_batch_size: env steps per training iteration (per learner).
        minibatch_size: PPO's minibatch size.
        num_epochs: PPO's passes over each batch.
        lr: the learning rate.
        gamma: the discount.
        hidden: hidden layer sizes of the policy and value networks.
        num_learners: learner processes (0: learn in the driver).
        num_gpus_per_learner: GPUs per learner.
        seed: RLlib's ``debugging(seed=...)``.

    Raises:
        ConfigError: bad rules, or a count that contradicts a preset made for another count;
        ImportError: ray[rllib] is not installed.
    """
    try:
        from ray.rllib.algorithms.ppo import PPOConfig
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
        from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    except ImportError:
        raise _rllib_missing() from None
    register()
    game = {"preset": "fast"} if rules is None else dict(rules)
    # the count written down (and into the checkpoint's game file) is the one the env plays
    env_config = {"num_players": game_rules(num_players, rules).num_players, "rules": game}
    env_creator(env_config).close()  # fail fast on bad rules, in the driver
    module = RLModuleSpec(
        module_class=_module_class(),
        model_config={
            "fcnet_hiddens": list(hidden),
            "fcnet_activation": "tanh",
            "head_fcnet_hiddens": [],
            "vf_share_layers": False,
        },
    )
    config = (
        PPOConfig()
        # RLlib's env checker steps random (unmasked) actions, which the wrapped env answers with
        # PettingZoo's illegal-move warning; the env itself passes PettingZoo's api_test.
        .environment(ENV_NAME, env_config=env_config, disable_env_checking=True)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=policy_mapping_fn, policies_to_train=[POLICY_ID])  # type: ignore[arg-type]
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY_ID: module}))
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=envs_per_runner, rollout_fragment_length="auto")
        .learners(num_learners=num_learners, num_gpus_per_learner=num_gpus_per_learner)
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
            gamma=gamma,
        )
        .debugging(seed=seed)
    )
    return config


def iteration_line(iteration: int, result: Mapping[str, Any], seconds: float) -> str:
    """One log line for a training iteration's result (``algo.train()``'s dict).

    RLlib reports episode figures only once an episode has finished; before that the line says so
    instead of printing a made-up mean.

    >>> iteration_line(1, {"env_runners": {"num_env_steps_sampled_lifetime": 4000}}, 2.5)
    'iter 1: 4,000 env steps, no episode finished yet, 2.5 s'
    >>> iteration_line(2, {"env_runners": {"num_env_steps_sampled_lifetime": 8000, "num_episodes_lifetime": 3,
    ...                                     "episode_len_mean": 812.4}}, 2.0)
    'iter 2: 8,000 env steps, 3 episodes, mean episode length 812, 2.0 s'
    """
    er = result.get("env_runners", {}) or {}
    steps = er.get("num_env_steps_sampled_lifetime")
    parts = [f"iter {iteration}: " + (f"{int(steps):,} env steps" if steps is not None else "env steps not reported")]
    episodes = int(er.get("num_episodes_lifetime") or 0)
    length = er.get("episode_len_mean")
    if episodes == 0 or length is None or not np.isfinite(length):
        parts.append("no episode finished yet")
    else:
        parts.append(f"{episodes:,} episode{'s' if episodes != 1 else ''}, mean episode length {float(length):.0f}")
    return ", ".join(parts) + f", {seconds:.1f} s"


def train(config: Any, iterations: int, out: str | os.PathLike[str], address: str | None = None, log: Any = print) -> Path:
    """Build the algorithm of ``config`` (:func:`build_config`), train it ``iterations`` times
    (one :func:`iteration_line` each through ``log``) and save a checkpoint under ``out``.

    Args:
        config: a ``PPOConfig`` from :func:`build_config`.
        iterations: training iterations (>= 1).
        out: the checkpoint folder (created); it is an agent spec
            (:class:`risk_env.agents.RLlibPolicyAgent`), with the game it was trained for in
            ``risk_env_game.json``.
        address: Ray's address (None: a local ``ray.init()``; ``"auto"``: the cluster this machine belongs to).
        log: called with each line.

    Returns:
        the checkpoint folder (absolute).

    Raises:
        ConfigError: ``iterations`` < 1; ``out`` empty, not text or a path, or a folder that cannot be made or written
            (a file in the way, no permission): checked before Ray starts, so no training is lost to it; an
            ``address`` with no Ray cluster there, or one Ray cannot read;
        ImportError: ray[rllib] is not installed.
    """
    if not isinstance(iterations, int) or iterations < 1:
        raise ConfigError(f"iterations must be 1 or more, got {iterations!r}")
    if isinstance(out, (str, os.PathLike)) and not os.fspath(out).strip():
        raise ConfigError("the checkpoint folder is empty: give a folder name (the working folder would be filled)")
    why = folder_problem(out)
    if why is not None:
        raise ConfigError(f"cannot write the checkpoint to {os.fspath(out)!r}: {why}")
    try:
        import ray
    except ImportError:
        raise _rllib_missing() from None
    if address is not None and (not isinstance(address, str) or not address.strip()):
        raise ConfigError(f"address must be None (a local Ray), 'auto' or a Ray address such as 'host:6379', got {address!r}")
    try:
        ray.init(address=address, ignore_reinit_error=True)
    except (ConnectionError, ValueError) as e:  # (no cluster there, or an address Ray cannot read)
        raise ConfigError(f"cannot join the Ray cluster at address {address!r}: {e}") from None
    try:
        algo = config.build_algo()
        path = Path(out).resolve()
        for it in range(1, iterations + 1):
            t0 = time.time()
            log(iteration_line(it, algo.train(), time.time() - t0))
        algo.save(str(path))
        algo.stop()
        from ..agents.rllib_policy import GAME_FILE

        game = {k: config.env_config[k] for k in ("num_players", "rules")}  # what the policy plays (its observation size)
        (path / GAME_FILE).write_text(json.dumps(game, indent=1) + "\n")
    finally:
        ray.shutdown()
    return path
