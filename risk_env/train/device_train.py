"""A training run of the on-device trainer (``trainer: device``), driven by the same YAML configs.

:func:`train` builds the batched env and the network from a
:class:`~risk_env.train.config.TrainConfig`, runs :class:`~risk_env.train.device_ppo.DevicePPO`
for ``total_timesteps`` learner decisions, and keeps the same books as the sb3 trainer
(:mod:`risk_env.train.run`): the tqdm progress bar, TensorBoard scalars under ``<run>/tb``
(SB3's names: ``rollout/ep_rew_mean``, ``train/value_loss``, ``eval/win_rate/<opponent>``, ...),
checkpoints every ``checkpoint.every`` decisions (``checkpoints/step_<n>.pt`` and ``.json``),
periodic and final evaluations with :func:`risk_env.tools.evaluation.evaluate`,
``<run>/model.pt`` and ``results.json``; ``--resume`` continues from a checkpoint.

The policy files are those of :func:`risk_env.train.graph_net.save_policy`: ``load_agent``
(hence ``risk_env.evaluate``, ``scripts/evaluate.py``, ``risk-env watch --agents``) plays them.

Everything runs on ``ppo.device`` (``auto``: ``cuda`` when available): the games, the graph
observations, the network, the rollout, the advantages and the updates.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .config import TrainConfig
from .run import Run, TrainResult, evaluate_model, latest_checkpoint

__all__ = ["DeviceModel", "build_env", "build_network", "ppo_settings", "resolve_device", "train"]


def resolve_device(name: str) -> Any:
    """``ppo.device`` as a ``torch.device`` (``"auto"``: ``cuda`` when available, else the CPU).

    Raises:
        ConfigError: not a device torch knows, or ``cuda`` without a GPU.
    """
    import torch

    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(name)
    except (RuntimeError, TypeError) as e:
        raise ConfigError(f"ppo.device={name!r} is not a torch device ({e}); use cpu, cuda, cuda:1 or auto") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"ppo.device={name!r}, but torch sees no CUDA device here; use cpu or auto")
    return dev


def _slot_entries(baselines: list[str], weights: list[float] | None, slots: int) -> list[Any]:
    """One opponent entry per slot (an agent name, or a tuple for an ``a+b+c`` line-up), in the
    proportions of ``weights`` (largest remainders; every entry of positive weight gets a slot)."""
    entries = [tuple(b.split("+")) if "+" in b else b for b in baselines]
    w = list(weights) if weights is not None else [1.0] * len(entries)
    total = sum(w)
    exact = [x / total * slots for x in w]
    counts = [max(1 if x > 0 else 0, int(e)) for x, e in zip(w, exact, strict=True)]
    rest = sorted(range(len(w)), key=lambda i: exact[i] - int(exact[i]), reverse=True)
    k = 0
    while sum(counts) < slots and rest:
        counts[rest[k % len(rest)]] += 1
        k += 1
    out: list[Any] = []
    for entry, c in zip(entries, counts, strict=True):
        out += [entry] * c
    return out


def build_env(cfg: TrainConfig, device: Any) -> tuple[Any, Any]:
    """The batched env of ``cfg`` and its seating.

    The env is a self-play :class:`risk_env.vector.learner.LearnerEnv` of ``env.n_envs`` games under the
    training rules, with the shaping. With ``opponents.baselines: [self]`` every seat is the learner
    (no seating). Otherwise a :class:`~risk_env.train.seating.Seating` gives each game one learner seat
    and draws the other seats from a :class:`~risk_env.vector.league.League` of the batched baselines
    (``weights``), the self-play snapshots and the latest learner (``opponents.self_play``: a seat given
    the latest learner is a learner seat too) and PFSP (``opponents.pfsp``); line-ups ``a+b+c`` are
    fixed per slot instead (:class:`~risk_env.vector.learner.FixedOpponents`, in the proportions of ``weights``).

    Raises:
        ConfigError: a baseline with no batched version (the message lists those there are).
    """
    import torch

    from ..vector.league import League
    from ..vector.learner import FixedOpponents, LearnerEnv
    from .config import SELF
    from .pfsp import PFSPTracker
    from .seating import Seating

    e, o = cfg.env, cfg.opponents
    env = LearnerEnv(
        e.n_envs,
        device=device,
        seed=cfg.seed,
        self_play=True,
        shaping=e.shaping,
        shaping_gamma=e.shaping_gamma if e.shaping_gamma is not None else cfg.ppo.gamma,
        rules=cfg.rules_config,
    )
    if o.baselines == [SELF]:
        return env, None
    gen = torch.Generator(device=env.device)
    gen.manual_seed(cfg.seed + 7919)
    assignment: Any
    if any("+" in b for b in o.baselines):
        assignment = FixedOpponents(_slot_entries(o.baselines, o.weights, e.n_envs), env.game, gen)
    else:
        sp, pf = o.self_play, o.pfsp
        assignment = League(
            env.game,
            gen,
            baselines=list(o.baselines),
            weights=o.weights,
            p_snapshot=sp.p_snapshot if sp.enabled else 0.0,
            p_latest=sp.p_latest,
            max_snapshots=sp.max_snapshots,
            pfsp=PFSPTracker(pf.power, pf.window) if pf.enabled else None,
        )
    return env, Seating(assignment, env.num_envs, env.num_players, env.device)


def ppo_settings(cfg: TrainConfig) -> Any:
    """The :class:`~risk_env.train.device_ppo.PPOSettings` of ``cfg.ppo``."""
    from .device_ppo import PPOSettings

    p = cfg.ppo
    return PPOSettings(
        learning_rate=p.learning_rate,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        precision=p.precision,
    )


def build_network(cfg: TrainConfig, env: Any) -> Any:
    """A fresh :class:`~risk_env.train.graph_net.GraphNet` for ``env``'s rules (seeded by ``cfg.seed``)."""
    import torch

    from ..envs.graph import F_SIZE, G_SIZE
    from .graph_net import GraphNet

    torch.manual_seed(cfg.seed)
    g = env.game
    return GraphNet(F_SIZE, G_SIZE, g.num_actions - g.T, hidden=cfg.ppo.graph_hidden, rounds=cfg.ppo.graph_rounds)


def _teacher(cfg: TrainConfig, env: Any, name: str) -> Any:
    """The batched policy named ``name`` (a batched heuristic) on ``env``'s engine."""
    import torch

    from ..vector.agents import make_policy

    gen = torch.Generator(device=env.device)
    gen.manual_seed(cfg.seed + 104729)
    return make_policy(name, env.game, gen)


def warm_start(ppo: Any, cfg: TrainConfig, log: Any) -> dict[str, Any]:
    """Behaviour cloning of ``imitation.teacher`` into ``ppo``'s network before PPO, then DAgger rounds.

    1. The teacher plays the learner seats of the training env for ``imitation.decisions`` decisions;
       after each rollout the network fits them (``epochs`` passes, minibatches of ``batch_size``, Adam
       at ``learning_rate``): cross-entropy of the teacher's ids under the masked logits, and
       ``vf_coef`` x squared error of the value to the GAE targets of those games.
    2. ``dagger_rounds`` rounds: the network plays (sampling, or its most probable action with
       ``dagger_deterministic``) ``dagger_decisions`` decisions, the teacher labels them, the network fits.

    The warm start's decisions do not count in the step budget. Returns the per-phase losses and
    agreements (how often the network's most probable id is the teacher's, on the states just played).
    """
    import torch

    im = cfg.imitation
    teacher_before = ppo.teacher
    ppo.teacher = _teacher(cfg, ppo.env, im.teacher)
    opt = torch.optim.Adam(ppo.net.parameters(), lr=im.learning_rate)
    clone = {"epochs": im.epochs, "batch_size": im.batch_size, "vf_coef": im.vf_coef, "optimizer": opt}
    per = ppo.env.num_envs * ppo.settings.n_steps
    report: dict[str, Any] = {"teacher": im.teacher, "phases": []}
    t0 = time.monotonic()
    phases = [("clone", "teacher", im.decisions)] + [
        (f"dagger {k + 1}", "greedy" if im.dagger_deterministic else "policy", im.dagger_decisions)
        for k in range(im.dagger_rounds)
    ]
    for name, actor, decisions in phases:
        sums: dict[str, float] = {}
        rollouts = max(1, -(-decisions // per))
        for _ in range(rollouts):
            ppo.collect(actor, count=False, label=True)
            st = ppo.update(*ppo.advantages(), clone=clone)
            for k, v in st.items():
                sums[k] = sums.get(k, 0.0) + v
        st = {k: v / rollouts for k, v in sums.items()}
        report["phases"].append({"phase": name, "decisions": rollouts * per, **st})
        log(
            f"warm start, {name}: {rollouts * per} decisions, cross-entropy {st['bc_loss']:.3f}, "
            f"agreement with {im.teacher} {st['bc_agreement']:.1%} ({time.monotonic() - t0:.0f} s)"
        )
    ppo.drop_held()
    ppo.teacher = teacher_before
    report["seconds"] = round(time.monotonic() - t0, 1)
    return report


def _league(seating: Any) -> Any:
    """The seating's league (None for self-play or fixed line-ups)."""
    from ..vector.league import League

    return seating.assignment if seating is not None and isinstance(seating.assignment, League) else None


class _TBLogger:
    """SB3's logger calls (``record``, ``dump``) on a TensorBoard ``SummaryWriter``."""

    def __init__(self, folder: Path) -> None:
        from torch.utils.tensorboard import SummaryWriter

        k = 1
        while (folder / f"ppo_{k}").exists():
            k += 1
        self.writer = SummaryWriter(str(folder / f"ppo_{k}"))
        self.values: dict[str, float] = {}

    def record(self, key: str, value: float) -> None:
        self.values[key] = float(value)

    def dump(self, step: int = 0) -> None:
        for k, v in self.values.items():
            self.writer.add_scalar(k, v, step)
        self.writer.flush()
        self.values.clear()

    def close(self) -> None:
        self.writer.close()


class DeviceModel:
    """What the run's books see of the trainer: ``num_timesteps``, ``save(path)`` (a policy file with
    the optimizer's state, for ``--resume``) and the TensorBoard ``logger``."""

    def __init__(self, ppo: Any, cfg: TrainConfig, logger: _TBLogger) -> None:
        self.ppo = ppo
        self.cfg = cfg
        self.logger = self._logger = logger

    @property
    def num_timesteps(self) -> int:
        return int(self.ppo.num_timesteps)

    def save(self, path: str | os.PathLike[str]) -> Path:
        from .graph_net import save_policy

        return save_policy(
            path,
            self.ppo.net,
            timesteps=self.num_timesteps,
            rules=self.cfg.rules_config.to_dict(),
            config=self.cfg.model_dump(mode="json"),
            optimizer=self.ppo.optimizer.state_dict(),
        )


def train(
    cfg: TrainConfig, resume: str | os.PathLike[str] | None = None, progress: bool = True, quiet: bool = False
) -> TrainResult:
    """Run the training described by ``cfg`` with ``trainer: device`` (module docstring).

    Args:
        cfg: the config.
        resume: a checkpoint (``step_*.pt``) or a run directory (its newest checkpoint): continue
            that run up to ``cfg.total_timesteps`` (weights, optimizer and step count; fresh games).
        progress: show the progress bar.
        quiet: print nothing (the log still goes to ``<run>/train.log``).

    Raises:
        ConfigError: bad config, device or resume path; MissingExtraError: the ``train`` extra is missing.
    """
    import torch

    from .device_ppo import DevicePPO
    from .graph_net import load_policy

    run_dir = cfg.run_dir
    ckpt: Path | None = None
    meta: dict[str, Any] = {}
    if resume is not None:
        ckpt = latest_checkpoint(Path(resume))
        if ckpt.suffix != ".pt":
            raise ConfigError(
                f"--resume {str(resume)!r}: {ckpt.name} is a MaskablePPO checkpoint; trainer 'device' resumes a .pt"
            )
        mp = ckpt.with_suffix(".json")
        meta = json.loads(mp.read_text()) if mp.exists() else {}
        if cfg.out_dir is None and ckpt.parent.name == "checkpoints":
            run_dir = ckpt.parent.parent
    device = resolve_device(cfg.ppo.device)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(cfg.to_yaml())
    threads_before = torch.get_num_threads()
    torch.set_num_threads(cfg.torch_threads or 1)
    run = Run(cfg, run_dir, quiet, suffix=".pt")
    t_start = time.monotonic()
    if cfg.max_minutes is not None:
        run.deadline = t_start + 60.0 * cfg.max_minutes
    rules = cfg.rules_config
    if meta:
        run.snapshots = list(meta.get("snapshots", []))
        run.next_snapshot = int(meta.get("next_snapshot", run.next_snapshot))
        run.next_checkpoint = int(meta.get("next_checkpoint", run.next_checkpoint))
        run.next_eval = int(meta.get("next_eval", run.next_eval))
    env, seating = build_env(cfg, device)
    p = cfg.ppo
    settings = ppo_settings(cfg)
    ks = cfg.kickstart
    kick: dict[str, Any] = (
        {"teacher": _teacher(cfg, env, ks.teacher), "kl_coef": ks.kl_coef, "anneal_steps": ks.anneal_steps} if ks.enabled else {}
    )
    if ckpt is not None:
        net, saved = load_policy(ckpt, device=device)
        net.train()
        ppo = DevicePPO(env, net, settings, seed=cfg.seed + 1, turn_feature=bool(cfg.env.turn_feature), seating=seating, **kick)
        if "optimizer" in saved:
            ppo.optimizer.load_state_dict(saved["optimizer"])
            for group in ppo.optimizer.param_groups:
                group["lr"] = p.learning_rate  # the config's settings apply from here on
        ppo.num_timesteps = int(saved.get("timesteps", 0))
        if not meta:
            run.align_schedule(ppo.num_timesteps)
    else:
        net = build_network(cfg, env)
        ppo = DevicePPO(env, net, settings, seed=cfg.seed + 1, turn_feature=bool(cfg.env.turn_feature), seating=seating, **kick)
    league = _league(seating)
    sp = cfg.opponents.self_play
    if league is not None and sp.enabled:
        from .graph_opponent import GraphNetPolicy, graph_policy_from_file

        turn = bool(cfg.env.turn_feature)
        snap_gen = torch.Generator(device=env.device)
        snap_gen.manual_seed(cfg.seed + 15485863)
        league.set_latest(GraphNetPolicy(env.game, ppo.net, generator=snap_gen, name="latest", turn_feature=turn))
        for path in run.snapshots:  # a resumed run's pool
            league.add_snapshot(graph_policy_from_file(env.game, path, sp.snapshot_deterministic, snap_gen), name=Path(path).stem)

        def add_snapshot(t: int) -> None:
            path = run_dir / "pool" / f"snap_{t:09d}.pt"
            model.save(path)
            run.snapshots.append(str(path))
            frozen = GraphNetPolicy(env.game, ppo.net, sp.snapshot_deterministic, snap_gen, path.stem, turn).frozen()
            league.add_snapshot(frozen, name=path.stem)
            run.log(f"self-play: snapshot {path.name} joins the league")

    logger = _TBLogger(run_dir / "tb")
    model = DeviceModel(ppo, cfg, logger)
    run.log(
        f"run {cfg.name} -> {run_dir} | trainer device on {device} | {rules.num_players} players, map {rules.map}, "
        f"setup {rules.setup}, turn limit {rules.turn_limit} | {env.num_envs} slots x {p.n_steps} calls per rollout, "
        f"{'self-play' if seating is None else 'vs ' + ', '.join(seating.names)} | {cfg.total_timesteps} steps | "
        f"seed {cfg.seed}"
    )
    if ckpt is not None:
        run.log(f"resumed from {ckpt} at step {ppo.num_timesteps}")
    elif cfg.imitation.enabled:
        report = warm_start(ppo, cfg, run.log)
        (run_dir / "imitation.json").write_text(json.dumps(report, indent=1))
        run.save_checkpoint(model, 0)  # the cloned policy, before any PPO update
        if cfg.eval.every:
            run.periodic_eval(model, 0)
    bar: Any = None
    if progress and not quiet:
        from tqdm.auto import tqdm

        bar = tqdm(total=cfg.total_timesteps, initial=ppo.num_timesteps, unit="steps", dynamic_ncols=True)
    returns: deque[float] = deque(maxlen=100)
    lengths: deque[int] = deque(maxlen=100)
    t_learn = time.monotonic()
    start_steps = ppo.num_timesteps
    try:
        while ppo.num_timesteps < cfg.total_timesteps:
            before = ppo.num_timesteps
            stats = ppo.learn_once()
            t = ppo.num_timesteps
            ep = ppo.episodes
            returns.extend(ep.returns)
            lengths.extend(ep.lengths)
            if returns:
                logger.record("rollout/ep_rew_mean", sum(returns) / len(returns))
                logger.record("rollout/ep_len_mean", sum(lengths) / len(lengths))
            ep.returns.clear()
            ep.lengths.clear()
            for k, v in stats.items():
                logger.record(f"train/{k}", v)
            scores = seating.take_scores() if seating is not None else {}
            for label, (games, score) in scores.items():
                logger.record(f"rollout/score/{label}", score)
                logger.record(f"rollout/games/{label}", games)
            logger.record("time/fps", (t - start_steps) / max(time.monotonic() - t_learn, 1e-9))
            logger.record("time/total_timesteps", t)
            logger.dump(t)
            if bar is not None:
                bar.update(t - before)
            if league is not None and sp.enabled and t >= run.next_snapshot:
                while run.next_snapshot <= t:
                    run.next_snapshot += sp.snapshot_every
                add_snapshot(t)
            if t >= run.next_checkpoint:
                while run.next_checkpoint <= t:
                    run.next_checkpoint += cfg.checkpoint.every
                run.save_checkpoint(model, t)
            if cfg.eval.every and t >= run.next_eval:
                while run.next_eval <= t:
                    run.next_eval += cfg.eval.every
                run.periodic_eval(model, t)
                if league is not None and league.pfsp is not None:
                    rates = league.win_rates()
                    probs = league.probabilities().tolist()
                    run.log(
                        f"pfsp @ {t}: "
                        + ", ".join(f"{k} scored {v:.0%} -> drawn {probs[league.names.index(k)]:.0%}" for k, v in rates.items())
                    )
                    for k, v in rates.items():
                        logger.record(f"pfsp/win_rate/{k}", v)
                    logger.dump(t)
            if run.deadline is not None and time.monotonic() > run.deadline:
                run.stopped_early = True
                run.log(
                    f"max_minutes={cfg.max_minutes} reached at step {t}: stopping "
                    "(this run is no longer reproducible step for step)"
                )
                break
    finally:
        if bar is not None:
            bar.close()
    learn_s = time.monotonic() - t_start
    model_path = run_dir / "model.pt"
    model.save(model_path)
    run.save_checkpoint(model, ppo.num_timesteps)
    rate = (ppo.num_timesteps - start_steps) / max(time.monotonic() - t_learn, 1e-9)
    run.log(f"trained {ppo.num_timesteps} steps in {learn_s / 60:.1f} min ({rate:,.0f} learner decisions/s); saved {model_path}")
    result = TrainResult(run_dir, model_path, ppo.num_timesteps, learn_s, run.stopped_early)
    ev = cfg.eval
    if ev.final_games > 0 and ev.opponents:
        t0 = time.monotonic()
        result.final_eval = evaluate_model(
            model_path, ev.opponents, ev.final_games, cfg.eval_rules_config, ev.seed, ev.workers, out_dir=run_dir / "final_eval"
        )
        for s in result.final_eval.values():
            run.log(f"final: {s.line()}")
        run.log(f"final evaluation took {time.monotonic() - t0:.0f} s")
    result.seconds = time.monotonic() - t_start
    summary = {
        "name": cfg.name,
        "trainer": "device",
        "device": str(device),
        "model": str(model_path),
        "timesteps": result.timesteps,
        "learn_seconds": round(learn_s, 1),
        "total_seconds": round(result.seconds, 1),
        "stopped_early": result.stopped_early,
        "eval_rules": cfg.eval_rules_config.to_dict(),
        "final_eval": {k: vars(v) for k, v in result.final_eval.items()},
    }
    (run_dir / "results.json").write_text(json.dumps(summary, indent=1))
    run.log(f"done in {result.seconds / 60:.1f} min (wall time, training + final evaluation)")
    logger.close()
    torch.set_num_threads(threads_before)
    return result
