"""Reference training: sb3-contrib ``MaskablePPO`` against baselines and a self-play pool.

Command line (``risk-env train``; ``scripts/train.py`` is the same command)::

    risk-env train                                   # the main job: the default config (the on-device recipe, 10 min)
    risk-env train --config sb3                      # this trainer's recipe: warm start + kickstarting, 2 players
    risk-env train --config configs/train/4p.yaml    # or a name: --config 4p
    risk-env train --config long --set ppo.learning_rate=1e-4 --set total_timesteps=20e6
    risk-env train --resume runs/sb3                 # continue from the newest checkpoint
    risk-env evaluate runs/sb3/model.zip random --games 200 --rules fast

Python::

    from risk_env.train.sb3 import TrainConfig, train
    result = train(TrainConfig.load("configs/train/2p.yaml"))
    result.model_path, result.final_eval["random"].win_rate

What a run does
    * Builds ``env.n_envs`` copies of :class:`~risk_env.envs.single_agent.RiskSingleAgentEnv`
      (the learner in a random seat, the other seats played by opponents drawn
      from an :class:`~risk_env.envs.opponents.OpponentPool`), vectorized with
      ``SubprocVecEnv`` (one process per env, ``env.vec_env: subproc``) or
      ``DummyVecEnv`` (all in this process, ``dummy``; always used for one env).
      On a 2-core machine the env step (~0.1 ms) is cheaper than sending it to a
      subprocess, and the policy's forward pass dominates, so the shipped configs
      batch 16 envs in one process; ``subproc`` pays off with many cores.
    * Trains ``MaskablePPO`` with the action masks from ``env.action_masks()``:
      ``ppo.policy: graph`` uses :class:`risk_env.train.graph_policy.GraphPolicy`
      on the graph observation (:mod:`risk_env.envs.graph`), ``mlp`` the
      ``MlpPolicy`` on the flat observation; the shaping is potential-based
      with ``env.shaping_gamma`` (default: ``ppo.gamma``); a tqdm progress bar;
      TensorBoard logs under ``<run>/tb`` (``tensorboard --logdir runs``).
    * Every ``checkpoint.every`` steps saves ``<run>/checkpoints/step_<n>.zip``
      (a plain MaskablePPO file) and ``<run>/checkpoints/step_<n>.json`` (the
      step count and the self-play pool), keeping the newest ``checkpoint.keep``.
    * Every ``eval.every`` steps evaluates the current policy with
      :func:`risk_env.tools.evaluation.evaluate` (seats rotated, deterministic
      policy, fixed seeds) against each of ``eval.opponents``, prints the win
      rates with 95 % intervals and logs them to TensorBoard (``eval/win_rate/<opponent>``).
    * Optionally (``imitation.enabled``) warm-starts the policy before PPO by
      behaviour cloning and DAgger on a baseline teacher
      (:mod:`risk_env.train.imitation`; the cloned policy is checkpoint step 0),
      trains with an annealed teacher term (``kickstart.enabled``:
      :class:`~risk_env.train.kickstart.KickstartPPO`), and draws the opponents
      the learner loses to more often (``opponents.pfsp.enabled``:
      :mod:`risk_env.train.pfsp`). Every training env is a
      :class:`~risk_env.train.teacher.TrainingEnvWrapper` (teacher labels,
      episode scores for PFSP).
    * At the end saves ``<run>/model.zip`` and evaluates it with
      ``eval.final_games`` games per opponent; the summary goes to
      ``<run>/final_eval/<opponent>/`` (CSV, JSON, plot) and ``<run>/results.json``.

    ``<run>/model.zip`` (and every checkpoint) is what
    ``risk_env.agents.load_agent("…/model.zip")`` and ``risk-env evaluate`` take,
    with no glue code.

Self-play (``opponents.self_play``)
    Every ``snapshot_every`` steps the current policy is frozen to
    ``<run>/pool/snap_<n>.zip`` and added to every env's opponent pool. Each
    episode, each opponent seat independently gets: with probability
    ``p_snapshot`` a snapshot (the newest with probability ``p_latest``, else a
    uniformly drawn older one), otherwise a baseline drawn by ``weights``; at
    most ``max_snapshots`` are kept (the oldest but the first is dropped).
    Snapshot opponents sample from their policy (``snapshot_deterministic:
    false``) so they do not all play the same game. Without snapshots yet the
    baselines play every seat.

Reproducibility
    The same config and seed give the same run (same policy weights, same
    evaluation games): every env, opponent and evaluation game is seeded from
    ``seed``, and torch uses one thread per process unless ``torch_threads`` says
    otherwise. Two things break this on purpose: ``max_minutes`` (a wall-clock
    safety net; when it stops a run early the log says so) and ``--resume`` (the
    episodes in flight at the checkpoint are not saved, so a resumed run starts
    fresh episodes; the weights, optimizer, step count and pool are restored).

Configs
    YAML files under ``configs/train/`` (``default.yaml``, ``device.yaml``, ``sb3.yaml``, ``2p.yaml``,
    ``4p.yaml``, ``long.yaml``, ``ppo-2p.yaml``, ``ppo-3p.yaml``, ``ppo-4p.yaml``, ``ppo-5p.yaml``,
    ``ppo-6p.yaml``, ``ppo-2p-0.1.yaml``, ``ppo-4p-0.1.yaml``); :class:`TrainConfig`
    documents every key.
    Unknown keys and bad values are errors that name the key. ``rules`` holds
    :class:`~risk_env.rules.config.RulesConfig` switches and an optional ``preset``.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from functools import partial
from pathlib import Path
from typing import Any, cast

from ..errors import ConfigError, MissingExtraError, cause_line
from .config import CONFIG_DIR, PPOSection, TrainConfig, apply_overrides, env_kwargs, load_config, rules_from
from .run import (
    Run,
    TrainResult,
    adopted_snapshots,
    callback_class,
    check_network_memory,
    check_opponents,
    check_resumed_rules,
    check_rules,
    check_run_dir,
    checkpoint_meta,
    checkpoint_step,
    copy_adopted_snapshots,
    evaluate_model,
    in_checkpoints,
    latest_checkpoint,
    opponent_lineup,
    planned_steps,
    prepare_run_folder,
    progress_callback_class,
    resumed_run_dir,
    resumed_snapshots,
    run_folder,
    run_folder_config,
)

__all__ = [
    "ppo_hyperparameters",
    "TrainConfig",
    "TrainResult",
    "train",
    "run_config",
    "load_config",
    "evaluate_command",
    "final_evaluate_commands",
    "evaluate_model",
    "opponent_lineup",
    "build_vec_env",
    "check_rollout_memory",
    "rollout_buffer_bytes",
    "CONFIG_DIR",
]


# ---------------------------------------------------------------------------- envs
def _make_env(
    rules: dict[str, Any],
    env_kwargs: dict[str, Any],
    pool_kwargs: dict[str, Any],
    snapshots: list[str],
    torch_threads: int,
    teacher: str | None = None,
    teacher_seed: int | None = None,
) -> Any:
    """One monitored training env (module level so SubprocVecEnv can pickle it)."""
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(torch_threads)
    from stable_baselines3.common.monitor import Monitor

    from ..envs.opponents import OpponentPool
    from ..envs.single_agent import RiskSingleAgentEnv
    from .teacher import TrainingEnvWrapper

    pool = OpponentPool(snapshots=snapshots, **pool_kwargs)
    cfg = rules_from(rules)
    env = RiskSingleAgentEnv(rules=cfg, opponents=pool, **env_kwargs)  # the rules' own player count
    return Monitor(TrainingEnvWrapper(env, teacher=teacher, seed=teacher_seed))


def ppo_hyperparameters(p: PPOSection) -> dict[str, Any]:
    """MaskablePPO's keyword arguments for the PPO settings of a config's ``ppo`` section
    (learning rate, rollout length, minibatch size, epochs, discount, GAE lambda, clip range,
    entropy and value coefficients, gradient-norm clip): the one place they are mapped, for the
    training run and the benchmark alike."""
    return {
        "learning_rate": p.learning_rate,
        "n_steps": p.n_steps,
        "batch_size": p.batch_size,
        "n_epochs": p.n_epochs,
        "gamma": p.gamma,
        "gae_lambda": p.gae_lambda,
        "clip_range": p.clip_range,
        "ent_coef": p.ent_coef,
        "vf_coef": p.vf_coef,
        "max_grad_norm": p.max_grad_norm,
    }


def build_vec_env(cfg: TrainConfig, snapshots: Sequence[str] = ()) -> Any:
    """The vectorized training envs of ``cfg`` (seeded from ``cfg.seed``), each a
    :class:`~risk_env.train.teacher.TrainingEnvWrapper` (with the kickstart teacher when enabled)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if cfg.env.backend == "vector":
        from ..vector.sb3 import build_train_env

        return build_train_env(cfg)

    sp = cfg.opponents.self_play
    pool_kwargs = dict(
        baselines=list(cfg.opponents.baselines),
        weights=cfg.opponents.weights,
        p_snapshot=sp.p_snapshot if sp.enabled else 0.0,
        p_latest=sp.p_latest,
        max_snapshots=sp.max_snapshots,
        snapshot_deterministic=sp.snapshot_deterministic,
    )
    ks = cfg.kickstart
    teacher = ks.teacher if ks.enabled else None
    fns = [
        partial(_make_env, dict(cfg.rules), env_kwargs(cfg), pool_kwargs, list(snapshots), 1, teacher, cfg.seed * 1000 + i)
        for i in range(cfg.env.n_envs)
    ]
    kind = cfg.env.vec_env
    venv: Any
    if kind == "auto":
        kind = "subproc" if cfg.env.n_envs > 1 else "dummy"
    if kind == "subproc" and cfg.env.n_envs > 1:
        venv = SubprocVecEnv(fns, start_method="spawn" if sys.platform == "darwin" else None)  # type: ignore[arg-type]
    else:
        venv = DummyVecEnv(fns)  # type: ignore[arg-type]
    venv.seed(cfg.seed)
    return venv


# ---------------------------------------------------------------------------- train
def _check_sb3_checkpoint(ckpt: Path, resume: str, where: str | None = None) -> None:
    """Refuse, before anything is written, a ``--resume`` file (or, with ``where``, a self-play snapshot of the run
    resumed) that is not a MaskablePPO checkpoint: a graph policy file of the device trainer (``.pt``), a file that is
    not an SB3 archive (no ``data`` and ``policy.pth``), or a damaged one (a member that does not read).

    Raises:
        ConfigError: the file and what it is instead.
    """
    import zipfile

    where = where or f"--resume {resume!r}"
    if ckpt.suffix == ".pt":
        raise ConfigError(
            f"{where}: {ckpt.name} is a graph policy file of trainer 'device'; trainer 'sb3' resumes a "
            "MaskablePPO checkpoint (.zip): resume it with --config device (or its run's own config)"
        )
    try:
        with zipfile.ZipFile(ckpt) as z:
            names = set(z.namelist())
            damaged = z.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
        raise ConfigError(f"{where}: {ckpt.name} is not a MaskablePPO checkpoint ({e})") from None
    if not {"data", "policy.pth"} <= names:
        raise ConfigError(f"{where}: {ckpt.name} is not a MaskablePPO checkpoint (no data and policy.pth in it)")
    if damaged is not None:
        raise ConfigError(f"{where}: {ckpt.name} is damaged (its {damaged} does not read)")


def _load_resumed(ckpt: Path, resume: str, venv: Any, cfg: TrainConfig, tb: str, snapshots: Sequence[str]) -> Any:
    """The checkpoint's model on ``venv`` (the config's PPO settings from here on, the network the checkpoint's), each
    self-play snapshot loaded and checked against the rules once: all before the run folder changes.

    Raises:
        ConfigError: the checkpoint or a snapshot does not load (a damaged member, a network of other sizes), or a
            snapshot cannot play these rules; the message names the file.
    """
    from sb3_contrib import MaskablePPO

    from ..agents import MaskablePPOAgent
    from ..rules.engine import Game
    from .kickstart import KickstartPPO

    p = cfg.ppo
    algo = KickstartPPO if cfg.kickstart.enabled else MaskablePPO
    try:
        model = algo.load(ckpt, env=venv, device=p.device, tensorboard_log=tb, custom_objects=ppo_hyperparameters(p))
    except Exception as e:  # (torch and SB3 raise several types for a damaged or foreign policy)
        raise ConfigError(f"--resume {resume!r}: {ckpt.name} does not load ({cause_line(e)})") from None
    kw = model.policy_kwargs or {}  # (a plain model file has no .json to compare: its network itself is compared)
    held = {"policy": "graph", "graph_hidden": kw.get("hidden"), "graph_rounds": kw.get("rounds")} if "hidden" in kw else {}
    _check_resumed_network(cfg, {"config": {"ppo": held or {"policy": "mlp"}}}, resume)
    game = Game(cfg.rules_config)
    for path in snapshots:
        try:
            MaskablePPOAgent(path).check_game(game)
        except Exception as e:  # (the pool loads them later, in the env processes, after the folder changed)
            raise ConfigError(f"resuming {ckpt}: its self-play snapshot {path} does not load here ({cause_line(e)})") from None
    return model


def rollout_buffer_bytes(observation_space: Any, action_space: Any, peak: bool = False) -> int:
    """Bytes one decision of one env takes in MaskablePPO's rollout buffer: the observation as its space stores it
    (every key of a dict observation, the action mask among them), the action, the mask again as float32 (sb3-contrib
    keeps its own copy) and six float32 numbers (reward, return, episode start, value, log-probability, advantage).

    With ``peak``, the most the buffer holds at once, while its first ``get`` replaces each array by a flattened copy
    one after another: the buffer and a copy of its largest array; for a dict observation, whose last key's old array
    lives on through that ``get``, the buffer, its largest observation array and its largest other array."""
    import numpy as np

    parts = getattr(observation_space, "spaces", None)
    spaces = list(parts.values()) if isinstance(parts, dict) else [observation_space]
    observed = [int(np.prod(s.shape)) * np.dtype(s.dtype).itemsize for s in spaces]
    other = [np.dtype(action_space.dtype).itemsize, 4 * int(action_space.n)] + [4] * 6
    total = sum(observed) + sum(other)
    if not peak:
        return total
    return total + (max(observed) + max(other) if isinstance(parts, dict) else max(observed + other))


def _network_weights(cfg: TrainConfig) -> tuple[int, Any, str, int, str]:
    """The weights of the network ``cfg`` trains (the graph policy's, or the MLP policy's separate actor and critic),
    the device its update runs on, the settings that size it, and for the graph policy the bytes a minibatch keeps for
    the backward pass and the setting that sizes it (0 and ``""`` for the MLP policy, whose activations are small
    beside its weights): the arguments of :func:`~risk_env.train.run.check_network_memory`."""
    from ..envs.single_agent import RiskSingleAgentEnv
    from .device_train import graph_net_weights, resolve_device

    env = RiskSingleAgentEnv(rules=cfg.rules_config, **env_kwargs(cfg))  # (its spaces; the rules' opponents unused)
    n, T, p = int(cast(Any, env.action_space).n), env.game.T, cfg.ppo
    if p.policy == "graph":
        enc = env.graph_encoder
        weights, what, kept, batch = graph_net_weights(cfg, n - T, T, enc.F, enc.G)
        return weights, resolve_device(p.device), what, kept, batch
    sizes = [math.prod(env.observation_space.shape or (1,)), *p.net_arch]
    chain = sum((a + 1) * b for a, b in itertools.pairwise(sizes))  # (one of the two MLPs: actor, critic)
    return 2 * chain + (sizes[-1] + 1) * (n + 1), resolve_device(p.device), f"ppo.net_arch={list(p.net_arch)}", 0, ""


def check_rollout_memory(cfg: TrainConfig) -> None:
    """Refuse, before any env is built or the run folder written, a rollout buffer of ``env.n_envs`` times
    ``ppo.n_steps`` decisions (:func:`rollout_buffer_bytes` at its peak) larger than the memory this machine can give
    the process (:func:`risk_env.vector.engine.device_memory`): numpy's allocation failed
    after the run had started (and a huge ``env.n_envs`` started env processes until the system stopped them). A lower
    bound: the envs and the network come on top.

    Raises:
        ConfigError: the message names both keys, the memory needed and there, and the largest ``ppo.n_steps`` that
            fits.
    """
    import torch

    from ..envs.single_agent import RiskSingleAgentEnv
    from ..vector.engine import device_memory

    have = device_memory(torch.device("cpu"))
    if have is None:  # pragma: no cover - not on a POSIX system
        return
    memory, source = have
    env = RiskSingleAgentEnv(rules=cfg.rules_config, **env_kwargs(cfg))  # (its spaces; the rules' opponents unused)
    per = rollout_buffer_bytes(env.observation_space, env.action_space, peak=True)
    n_envs, n_steps = cfg.env.n_envs, cfg.ppo.n_steps
    need = n_envs * n_steps * per
    if need <= memory:
        return
    fit = memory // (n_envs * per)
    raise ConfigError(
        f"env.n_envs={n_envs:,} x ppo.n_steps={n_steps:,}: the rollout buffer needs about {need / 2**30:,.1f} GiB "
        f"({per:,} bytes a decision: observation, action mask, action, reward, value..., and its largest array again "
        "while SB3 flattens it), but this machine has "
        f"{memory / 2**30:,.1f} GiB ({source}); "
        + (f"the largest ppo.n_steps that fits is {fit:,}" if fit else "lower env.n_envs: not one step of them fits")
    )


def _check_resumed_spaces(ckpt: Path, venv: Any, resume: str) -> None:
    """Refuse, before anything is written, a checkpoint whose observation or action space is not the training env's
    (rules of another map, player count or switch: SB3's load raised a ``ValueError`` after the run had started).

    Raises:
        ConfigError: both spaces' shapes, and what to do instead.
    """
    from stable_baselines3.common.save_util import load_from_zip_file

    try:
        data, _params, _vars = load_from_zip_file(ckpt, device="cpu", load_data=True)
    except Exception as e:  # (a damaged member: torch and pickle raise several types)
        raise ConfigError(f"--resume {resume!r}: {ckpt.name} does not load ({cause_line(e)})") from None
    saved = (data or {}).get("observation_space"), (data or {}).get("action_space")
    here = venv.observation_space, venv.action_space
    if saved != here:
        raise ConfigError(
            f"--resume {resume!r}: {ckpt.name} reads observations {_space_text(saved[0])} and scores "
            f"{_space_text(saved[1])}; these rules give {_space_text(here[0])} and {_space_text(here[1])}: a resumed run "
            "plays its checkpoint's rules (map, players, the switches that change the observation or the action ids); "
            "the on-device trainer starts a new run from a graph network on any rules (--config device --set "
            "ppo.init=PATH)"
        )


def _space_text(space: Any) -> str:
    """A space's shapes in a few words: ``(321,)``, ``nodes (42, 20), edges (2, 166), ...``, ``70 action ids``."""
    spaces = getattr(space, "spaces", None)
    if isinstance(spaces, dict):
        return ", ".join(f"{k} {tuple(v.shape)}" for k, v in spaces.items())
    n = getattr(space, "n", None)
    if n is not None:
        return f"{int(n)} action ids"
    return str(getattr(space, "shape", space))


def _check_resumed_network(cfg: TrainConfig, meta: dict[str, Any], resume: str) -> None:
    """Refuse to resume a checkpoint whose network the config describes otherwise (``ppo.policy`` and the
    policy's sizes, as its metadata's config says): a resumed run trains the checkpoint's network, so a
    ``--set ppo.graph_hidden=64`` would be silently ignored and written into ``config.yaml``.

    Raises:
        ConfigError: a setting differs; the message names it, both values and what to do.
    """
    saved = meta.get("config", {}).get("ppo")
    if not isinstance(saved, dict):  # a plain model file (no metadata): nothing to compare
        return
    p = cfg.ppo
    keys = ("policy", "graph_hidden", "graph_rounds") if p.policy == "graph" else ("policy", "net_arch", "activation")
    for key in keys:
        want = p.model_dump(mode="json")[key]
        if key in saved and saved[key] != want:
            raise ConfigError(
                f"--resume {resume!r} continues a network of ppo.{key}={saved[key]!r}, but ppo.{key}={want!r}: a "
                f"resumed run trains its checkpoint's network; set ppo.{key}={saved[key]!r} (or start a new run)"
            )


def train(
    cfg: TrainConfig, resume: str | os.PathLike[str] | None = None, progress: bool = True, quiet: bool = False
) -> TrainResult:
    """Run the training described by ``cfg`` (see the module docstring).

    Args:
        cfg: the config.
        resume: a checkpoint (``step_*.zip``) or a run directory (its newest checkpoint):
            continue that run up to ``cfg.total_timesteps``.
        progress: show the progress bar.
        quiet: print nothing (the log still goes to ``<run>/train.log``).

    Returns:
        a :class:`TrainResult`.

    With ``cfg.trainer == "device"`` the run is :func:`risk_env.train.device_train.train`'s (PPO on the
    batched engine, every tensor on ``ppo.device``; policy files ``.pt`` instead of ``.zip``).

    Raises:
        ConfigError: bad config or resume path; a rollout buffer larger than the RAM (:func:`check_rollout_memory`).
        MissingExtraError: the ``train`` extra is missing.
    """
    if cfg.trainer == "device":
        from .device_train import train as train_on_device  # checks its own packages before it starts

        return train_on_device(cfg, resume=resume, progress=progress, quiet=quiet)
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as e:
        raise MissingExtraError(
            f"training needs {(e.name or 'torch').split('.')[0]} (extra 'train'): pip install 'risk_env[train]'",
            extra="train",
            module=e.name,
        ) from None

    run_dir = cfg.run_dir
    ckpt: Path | None = None
    meta: dict[str, Any] = {}
    snapshots: list[str] = []
    if resume is not None:
        ckpt = latest_checkpoint(Path(resume))
        _check_sb3_checkpoint(ckpt, str(resume))
        meta = checkpoint_meta(ckpt)
        run_meta = meta  # (compared with: a run's step_* checkpoint whose .json keeps no config, its folder's config)
        if not meta.get("config") and checkpoint_step(ckpt) is not None:
            run_meta = {**meta, "config": run_folder_config(ckpt) or {}}
        _check_resumed_network(cfg, run_meta, str(resume))
        fresh = (
            "start a new run from its weights: --resume RUN/model.zip --config RUN/config.yaml --out NEW with the rules "
            "set (a plain model file, where the spaces match), or --config device --set ppo.init=PATH (a graph network, "
            "any rules)"
        )
        check_resumed_rules(cfg, run_meta, str(resume), fresh)
        run_dir = resumed_run_dir(cfg, ckpt)
        # (each one found, before the run folder is touched)
        snapshots = resumed_snapshots(meta, ckpt, run_dir, cfg.opponents.self_play.max_snapshots)
        for path in snapshots:
            _check_sb3_checkpoint(Path(path), path, where=f"resuming {ckpt}: its self-play snapshot")
    adopted = adopted_snapshots(run_dir, snapshots)  # (a run resumed into another folder plays copies in its own)
    check_rules(cfg)  # (refused before the run folder is touched, the evaluation rules too)
    check_opponents(cfg)  # (refused before the run folder is touched, as a device SB3 cannot use)
    from .device_train import resolve_device

    resolve_device(cfg.ppo.device)  # (SB3 would fall back to the CPU for a missing GPU, or raise torch's error)
    check_rollout_memory(cfg)  # (a buffer too large for the RAM: refused, not failed in numpy after the run began)
    if ckpt is None:  # (a network too large: refused, not torch's error after the folder; a resumed one is its own)
        check_network_memory(*_network_weights(cfg))
    check_run_dir(run_dir, ckpt)  # (a file at its place or above it, a user's files in it: refused before training)
    torch.set_num_threads(cfg.torch_threads or 1)
    run = Run(cfg, run_dir, quiet)
    t_start = time.monotonic()
    if cfg.max_minutes is not None:
        run.deadline = t_start + 60.0 * cfg.max_minutes
    rules = cfg.rules_config
    if meta:
        run.snapshots = [path for _, path in adopted]  # (copied there below)
        run.next_snapshot = int(meta.get("next_snapshot", run.next_snapshot))
        run.next_checkpoint = int(meta.get("next_checkpoint", run.next_checkpoint))
        run.next_eval = int(meta.get("next_eval", run.next_eval))
    venv = build_vec_env(cfg, run.snapshots)  # (refuses opponents it cannot build: before the run folder is written)
    if ckpt is not None:
        try:
            _check_resumed_spaces(ckpt, venv, str(resume))
        except ConfigError:
            venv.close()
            raise
    run.venv = venv
    p = cfg.ppo
    ks = cfg.kickstart
    from .kickstart import KickstartPPO

    model: Any = None
    if ckpt is not None:  # (the checkpoint and its snapshots load, or are refused before the run folder changes)
        try:
            model = _load_resumed(ckpt, str(resume), venv, cfg, str(run_dir / "tb"), snapshots)
        except ConfigError:
            venv.close()
            raise
    moved = prepare_run_folder(run_dir, ckpt)  # (an earlier run, or checkpoints past the one resumed, move aside)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(cfg.to_yaml())
    if moved is not None:
        run.log(moved)
    copied = copy_adopted_snapshots(adopted)  # (before the pools first load them)
    if copied:
        run.log(f"self-play: {copied} snapshots of the run resumed copied into {run_dir / 'pool'}")
    n_envs = cfg.env.n_envs
    run.log(
        f"run {cfg.name} -> {run_dir} | {rules.num_players} players, map {rules.map}, setup {rules.setup}, "
        f"turn limit {rules.turn_limit} | "
        f"{n_envs} envs ({type(venv).__name__}) | {cfg.total_timesteps} steps | seed {cfg.seed}"
    )

    if ckpt is not None:
        if isinstance(model, KickstartPPO):
            model.kl_coef, model.anneal_steps = ks.kl_coef, ks.anneal_steps
        run.resumed(ckpt, model.num_timesteps, meta)  # (and the PFSP results: drawn as before, not uniformly)
        if not meta:  # a warm start from a plain model: schedule from its step count, not from 0
            run.align_schedule(model.num_timesteps)
        arch = model.policy_kwargs.get("net_arch")
        if p.policy == "mlp" and arch is not None and list(arch) != list(p.net_arch):
            run.log(f"note: the checkpoint's network {arch} is kept (the config asks for {list(p.net_arch)})")
    else:
        act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
        policy: Any = "MlpPolicy"
        policy_kwargs: dict[str, Any] = {"net_arch": list(p.net_arch), "activation_fn": act}
        if p.policy == "graph":
            from .graph_policy import GraphPolicy

            policy, policy_kwargs = GraphPolicy, {"hidden": p.graph_hidden, "rounds": p.graph_rounds}
        extra: dict[str, Any] = {"kl_coef": ks.kl_coef, "anneal_steps": ks.anneal_steps} if ks.enabled else {}
        model = (KickstartPPO if ks.enabled else MaskablePPO)(
            policy,
            venv,
            **ppo_hyperparameters(p),
            policy_kwargs=policy_kwargs,
            tensorboard_log=str(run_dir / "tb"),
            seed=cfg.seed,
            device=p.device,
            verbose=0,
            **extra,
        )
        if cfg.imitation.enabled:
            from .imitation import warm_start

            report = warm_start(model, cfg, run.log)
            (run_dir / "imitation.json").write_text(json.dumps(asdict(report), indent=1))
            run.save_checkpoint(model, 0)  # the cloned policy, before any PPO update
            if cfg.eval.every:
                run.periodic_eval(model, 0)  # the clone's own figures: the first point of the training curve
    remaining = cfg.total_timesteps - model.num_timesteps
    callback: Any = callback_class()(run)
    if ks.enabled:
        from stable_baselines3.common.callbacks import CallbackList

        from .kickstart import TeacherLabelCallback

        callback = CallbackList([TeacherLabelCallback(), callback])
    if remaining > 0:
        rollout = model.n_steps * model.n_envs
        end = planned_steps(model.num_timesteps, cfg.total_timesteps, rollout)
        if end != cfg.total_timesteps:
            run.log(
                f"learning in whole rollouts of {rollout:,} steps: the run ends at {end:,} "
                f"(total_timesteps {cfg.total_timesteps:,})"
            )
        if progress and not quiet:
            from stable_baselines3.common.callbacks import CallbackList

            callback = CallbackList([callback, progress_callback_class()(model.num_timesteps, end)])
        model.learn(
            total_timesteps=remaining,
            callback=callback,
            progress_bar=False,
            reset_num_timesteps=ckpt is None,
            tb_log_name="ppo",
        )
    learn_s = time.monotonic() - t_start
    model_path = run_dir / "model.zip"
    model.save(model_path)
    if run.saved_step != model.num_timesteps:  # (a checkpoint of the last rollout: the same weights, already written)
        run.save_checkpoint(model, model.num_timesteps)
    venv.close()
    run.log(f"trained {model.num_timesteps} steps in {learn_s / 60:.1f} min; saved {model_path}")
    result = TrainResult(run_dir, model_path, int(model.num_timesteps), learn_s, run.stopped_early)
    return run.finish(result, t_start, learn_s, trainer="sb3")


# ---------------------------------------------------------------------------- the command line's config
def run_config(
    config: str | os.PathLike[str] | None = None,
    overrides: Sequence[str] = (),
    resume: str | os.PathLike[str] | None = None,
    out_dir: str | None = None,
) -> TrainConfig:
    """The config ``risk-env train`` runs: ``config`` (a shipped name, a path, or None for the main
    job, the shipped ``default`` config) with ``overrides`` (``key=value``) applied; when resuming
    without a ``config``, the resumed run's own config with the overrides: the one its checkpoint's ``.json``
    keeps, else (a checkpoint whose metadata holds none) the ``config.yaml`` of the run folder that holds it. A
    resume of a run's checkpoint (in its ``checkpoints/``) with a ``config`` drops the config's ``out_dir`` unless an
    override sets it: the run goes on in its own folder, as :func:`~risk_env.train.run.resumed_run_dir`
    says, not in the folder a moved run's ``config.yaml`` names. ``out_dir`` (``--out``) is the run folder, taken as
    the text it is (an override's value is read as a value: ``out_dir=null`` is no folder, ``out_dir=5`` a number).

    Raises:
        ConfigError: an unknown config, a bad override or value, no checkpoint under ``resume``; a resume without a
            ``config`` of a checkpoint whose run's config is in neither place.
    """
    if out_dir is not None:  # (after everything else: the --out folder as typed)
        cfg = run_config(config, overrides, resume)
        return TrainConfig.from_dict({**cfg.model_dump(mode="json"), "out_dir": out_dir}, source="--out")
    if resume is not None and config is None:
        ckpt = latest_checkpoint(Path(resume))
        saved = checkpoint_meta(ckpt).get("config") or None
        if saved is not None:  # resume with the run's own config unless one is given (the overrides checked against it)
            # (in the folder resumed, not the one the run was first written to: a copied or moved run, or one resumed
            # from another working folder, wrote into the original's folder)
            saved = {**saved, "out_dir": None}
            source = str(ckpt.with_suffix(".json"))
            return TrainConfig.from_dict(apply_overrides(saved, list(overrides)), source=source, overrides=overrides)
        folder = run_folder(ckpt)
        if (folder / "config.yaml").is_file():  # (its out_dir dropped, as above)
            return load_config(str(folder / "config.yaml"), ["out_dir=null", *overrides])
        raise ConfigError(
            f"--resume {str(resume)!r}: the run's config is not kept with {ckpt.name} (no {ckpt.with_suffix('.json').name} "
            f"with a config) nor in {str(folder / 'config.yaml')!r}: give it with --config PATH"
        )
    if resume is not None and config is not None and not any(o.partition("=")[0].strip() == "out_dir" for o in overrides):
        if in_checkpoints(latest_checkpoint(Path(resume))):
            # (a run's checkpoint: the run goes on in the folder that holds it unless --out says otherwise, whatever
            # folder the config names, such as the out_dir in a moved run's own config.yaml)
            overrides = ["out_dir=null", *overrides]
    return load_config("default" if config is None else config, list(overrides))


def evaluate_command(
    cfg: TrainConfig, model_path: str | os.PathLike[str], opponent: str = "random", games: int = 200, backend: str | None = None
) -> str:
    """The ``risk-env evaluate`` command that evaluates ``model_path`` against ``opponent`` (one spec filling every
    other seat, or an ``a+b+c`` line-up) as the run's evaluations do: ``cfg``'s evaluation rules, ``eval.seed``
    and ``eval.backend`` (or ``backend``; named when it is not the command's ``reference``), so with the final
    evaluation's opponent and ``eval.final_games`` it plays the same games again.

    >>> evaluate_command(load_config("device"), "runs/device/model.pt", "balanced", 200)
    'risk-env evaluate runs/device/model.pt balanced --games 200 --rules fast --seed 12345 --backend vector'
    """
    import shlex

    rules = dict(cfg.eval.rules) if cfg.eval.rules is not None else dict(cfg.rules)
    rules.pop("num_players", None)
    n = cfg.eval_rules_config.num_players  # the rules' own count (a preset's, or 4), as the evaluation plays them
    preset = rules.pop("preset", None)
    agents = [str(model_path), *opponent_lineup(opponent, n)]
    parts = ["risk-env evaluate", *map(shlex.quote, agents), f"--games {games}"]
    if preset:
        parts.append(f"--rules {preset}")
    parts += [f"--set {k}={v}" for k, v in rules.items()]
    parts.append(f"--seed {cfg.eval.seed}")
    backend = backend or cfg.eval.backend
    if backend != "reference":
        parts.append(f"--backend {backend}")
    return " ".join(parts)


def final_evaluate_commands(cfg: TrainConfig, model_path: str | os.PathLike[str]) -> list[str]:
    """The commands that repeat a run's final evaluation (:meth:`risk_env.train.run.Run.final_eval`), one per
    ``eval.opponents`` entry with ``eval.final_games`` games; with no final evaluation, the same commands with 200
    games (against ``random`` where ``eval.opponents`` is empty), on the reference backend where the batched
    heuristics do not play the evaluation rules (a run without evaluations never checked ``eval.backend`` against
    them)."""
    ev = cfg.eval
    games = ev.final_games if ev.final_games > 0 else 200
    backend = ev.backend
    if ev.final_games == 0 and backend == "vector":
        from ..vector.agents import check_heuristic_rules

        try:
            check_heuristic_rules(cfg.eval_rules_config)
        except ConfigError:
            backend = "reference"
    return [evaluate_command(cfg, model_path, opp, games, backend) for opp in ev.opponents or ["random"]]
