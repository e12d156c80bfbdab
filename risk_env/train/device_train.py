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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._extras import require
from ..envs.opponents import OpponentPool
from ..errors import ConfigError, RiskError
from .config import TrainConfig, rules_from
from .run import (
    Run,
    TrainResult,
    adopted_snapshots,
    check_network_memory,
    check_opponents,
    check_resumed_rules,
    check_rules,
    check_run_dir,
    checkpoint_meta,
    checkpoint_step,
    checkpoints_in,
    copy_adopted_snapshots,
    latest_checkpoint,
    prepare_run_folder,
    resumed_run_dir,
    resumed_snapshots,
    run_folder,
    run_folder_config,
)

__all__ = [
    "DeviceModel",
    "Lane",
    "build_env",
    "build_network",
    "check_init_sizes",
    "check_init_fits",
    "init_network",
    "ppo_settings",
    "resolve_device",
    "train",
]


def resolve_device(name: str) -> Any:
    """``ppo.device`` as a ``torch.device`` (``"auto"``: ``cuda`` when available, else the CPU), named as
    its tensors name it (:func:`risk_env.vector.engine.resolve_device`).

    Raises:
        ConfigError: not a device torch knows, or one that is not available here.
    """
    import torch

    from ..vector.engine import resolve_device as engine_device

    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        return engine_device(name)
    except ConfigError as e:
        raise ConfigError(f"ppo.{e} (or auto)") from None


def _slot_entries(baselines: list[str], weights: list[float] | None, slots: int) -> list[Any]:
    """One opponent entry per slot (an agent name, or a tuple for an ``a+b+c`` line-up), in the
    proportions of ``weights`` (largest remainders; every entry of positive weight gets a slot)."""
    from ..agents.registry import is_lineup, lineup_parts

    entries = [tuple(lineup_parts(b)) if is_lineup(b) else b for b in baselines]
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

    from ..agents.registry import is_lineup
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
    if any(is_lineup(b) for b in o.baselines):
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

    from .graph_net import GraphNet

    torch.manual_seed(cfg.seed)
    g = env.game
    gt = g.graph_tables  # (F and G of these rules: the core features and the blocks their switches add)
    return GraphNet(gt.F, gt.G, g.num_actions - g.T, hidden=cfg.ppo.graph_hidden, rounds=cfg.ppo.graph_rounds)


def _teacher(cfg: TrainConfig, env: Any, name: str, key: str) -> Any:
    """The batched policy named ``name`` on ``env``'s engine, the teacher of config key ``key``: a batched
    heuristic, or a frozen network (a pretrained name, a policy file ``.pt`` or a MaskablePPO ``.zip``) playing
    its most probable legal id, as :func:`risk_env.vector.specs.batched_policy` reads a spec.

    Raises:
        ConfigError: the message names ``key``: a spec no batched policy reads, a network that does not fit the
            training rules, or a model file that does not load (the run's check of its agents refuses these
            first, :func:`risk_env.train.run.check_opponents`; this names them for any other caller).
    """
    import torch

    from ..vector.specs import batched_policy

    gen = torch.Generator(device=env.device)
    gen.manual_seed(cfg.seed + 104729)
    try:
        return batched_policy(name, env.game, gen)
    except RiskError as e:
        raise ConfigError(f"{key}: {name!r} cannot be played: {e}") from None


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
    ppo.teacher = _teacher(cfg, ppo.env, im.teacher, "imitation.teacher")
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


def _write_average(run: Any, run_dir: Path, start: int) -> Path | None:
    """``checkpoint.average_from``: write ``<run>/model_avg.pt``, the uniform average of the run's checkpoints from
    step ``start`` on (:func:`~risk_env.train.graph_net.average_policies`), its ``meta`` the last checkpoint's (without
    its optimizer state) and ``averaged_steps``, the steps averaged;
    None (and a line in the log) where the run stopped before ``start``."""
    from .graph_net import average_policies, save_policy

    found = [p for p in checkpoints_in(run_dir / "checkpoints", (".pt",)) if (checkpoint_step(p) or 0) >= start]
    if not found:
        run.log(f"checkpoint.average_from={start}: no checkpoint from that step (the run stopped before it); no model_avg.pt")
        return None
    steps = [int(checkpoint_step(p) or 0) for p in found]
    net, meta = average_policies(found)
    path = save_policy(run_dir / "model_avg.pt", net, **{**meta, "averaged_steps": steps})
    what = f"{len(found)} checkpoints (steps {steps[0]} to {steps[-1]})" if len(found) > 1 else f"1 checkpoint (step {steps[0]})"
    run.log(f"averaged the weights of {what}; saved {path} (evaluate it: risk-env evaluate {path} ...)")
    return path


def _log_pfsp(lane: Lane, t: int, run: Any, logger: Any, prefix: str) -> None:
    """The league's PFSP win rates and draw probabilities, in the log and TensorBoard."""
    league = lane.league
    if league is None or league.pfsp is None:
        return
    rates = league.win_rates()
    probs = league.probabilities().tolist()
    run.log(
        f"{prefix}pfsp @ {t}: "
        + ", ".join(f"{k} scored {v:.0%} -> drawn {probs[league.names.index(k)]:.0%}" for k, v in rates.items())
    )
    for k, v in rates.items():
        logger.record(f"pfsp/win_rate/{prefix.strip()}{'/' if prefix else ''}{k}", v)
    logger.dump(t)


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
    """What the run's books see of the trainer: ``num_timesteps`` (all lanes'), ``save(path)`` (a policy file
    with the optimizer's state, for ``--resume``) and the TensorBoard ``logger``."""

    def __init__(self, lanes: list[Lane], cfg: TrainConfig, logger: _TBLogger) -> None:
        self.lanes = lanes
        self.cfg = cfg
        self.logger = logger

    @property
    def num_timesteps(self) -> int:
        return int(sum(lane.ppo.num_timesteps for lane in self.lanes))

    def save(self, path: str | os.PathLike[str]) -> Path:
        from .graph_net import save_policy

        first = self.lanes[0].ppo
        return save_policy(
            path,
            first.net,
            timesteps=self.num_timesteps,
            rules=self.cfg.rules_config.to_dict(),
            player_counts=[lane.players for lane in self.lanes],
            config=self.cfg.model_dump(mode="json"),
            optimizer=first.optimizer.state_dict(),
        )


@dataclass
class Lane:
    """One player count's games in a run: its env, seating, league and trainer (all lanes share one network
    and one optimizer)."""

    players: int
    env: Any
    seating: Any
    ppo: Any
    league: Any = None
    snapshot_policy: Any = None  # builds a frozen graph policy of the live network for this lane's league


def init_network(spec: str, device: Any) -> tuple[Any, dict[str, Any]]:
    """The network ``ppo.init`` names, and the metadata its file keeps (for a MaskablePPO checkpoint ``{}``, or a
    pretrained one's training rules, ``{"rules": ...}``, from :func:`~risk_env.agents.registry.pretrained_rules`): a
    pretrained agent's name (:data:`risk_env.agents.registry.PRETRAINED`), a policy file (``.pt``) or a MaskablePPO
    graph checkpoint (``.zip``). A pretrained name comes first, as in :func:`~risk_env.agents.registry.load_agent`, so
    a shipped recipe starts from the shipped network whatever files lie in the working folder (``./ppo-4p`` names a
    file called ``ppo-4p``).

    Raises:
        ConfigError: an empty name, or nothing loadable under it.
    """
    from ..agents.registry import PRETRAINED, pretrained_path, pretrained_rules
    from ..errors import RiskError
    from .graph_net import graph_net_from_sb3, load_policy

    if not spec.strip():
        raise ConfigError(f"ppo.init={spec!r} names no network: a pretrained agent ({', '.join(PRETRAINED)}) or a file")
    path = Path(spec)
    try:
        if spec.strip().lower() in PRETRAINED:
            path = pretrained_path(spec)
        elif not path.exists():
            near = Path(spec.strip()).stem.lower()
            hint = f" (the pretrained agent is named {near!r}, without the suffix)" if near in PRETRAINED else ""
            raise ConfigError(f"ppo.init={spec!r}: no such file, nor a pretrained agent ({', '.join(PRETRAINED)}){hint}")
        if path.suffix == ".zip":  # (a pretrained one's training rules come from its shipped config: pretrained_rules)
            trained = pretrained_rules(spec) if spec.strip().lower() in PRETRAINED else None
            return graph_net_from_sb3(path, device=device), ({} if trained is None else {"rules": trained})
        return load_policy(path, device=device)
    except RiskError as e:
        if isinstance(e, ConfigError):
            raise
        raise ConfigError(f"ppo.init={spec!r}: {e}") from None


def check_init_fits(cfg: TrainConfig, net: Any, meta: dict[str, Any]) -> None:
    """Refuse a ``ppo.init`` network that cannot play the training rules (of each lane of ``env.player_counts``): other
    node or global features or non-territory action ids (:func:`~risk_env.train.graph_net.check_plays`), before the run
    folder is touched. Where the network's file kept its training rules (``meta["rules"]``), the switches behind the
    difference are named.

    Raises:
        ConfigError: the message names ``ppo.init``, the size that differs and the switches.
    """
    from ..rules.engine import Game
    from .graph_net import check_plays

    for players in cfg.env.player_counts or [cfg.rules_config.num_players]:
        try:
            check_plays(net, Game(rules_from(cfg.lane_rules(players))), meta.get("rules"))
        except ConfigError as e:
            raise ConfigError(f"ppo.init={cfg.ppo.init!r} cannot play the training rules: {e}") from None


def check_init_sizes(cfg: TrainConfig, net: Any, resumed: str | None = None) -> None:
    """Refuse a ``ppo.init`` network (or, with ``resumed``, the checkpoint of ``--resume``) whose width or rounds
    differ from ``ppo.graph_hidden`` and ``ppo.graph_rounds``: the run trains that network, so the config must
    name its sizes (a width left at its default is not told apart from one that was set).

    Raises:
        ConfigError: a size differs; the message names both and the setting to change.
    """
    p = cfg.ppo
    for key, size, want in (("graph_hidden", "hidden", p.graph_hidden), ("graph_rounds", "rounds", p.graph_rounds)):
        got = int(net.sizes[size])
        if got == want:
            continue
        if resumed is not None:
            raise ConfigError(
                f"--resume {resumed!r} continues a network of {size}={got}, but ppo.{key}={want}: a resumed run trains "
                f"its checkpoint's network; set ppo.{key}={got} (or start a new run with ppo.init)"
            )
        raise ConfigError(
            f"ppo.init={p.init!r} is a network of {size}={got}, but ppo.{key}={want}: the run would train the "
            f"init's network, not one of ppo.{key}; set ppo.{key}={got} (or leave ppo.init out)"
        )


def _lane_config(cfg: TrainConfig, players: int) -> TrainConfig:
    if players == cfg.rules_config.num_players:
        return cfg
    data = cfg.model_dump(mode="json")
    data["rules"] = cfg.lane_rules(players)
    if data["eval"]["rules"] is None:  # (the run evaluates under its own training rules, not each lane's)
        data["eval"]["rules"] = dict(cfg.rules)
    return TrainConfig.from_dict(data, source=f"the {players}-player lane of {cfg.name}")


def graph_net_weights(cfg: TrainConfig, n_other: int, T: int, F: int, G: int) -> tuple[int, str, int, str]:
    """The weights of the graph network ``cfg.ppo`` describes, for rules of ``n_other`` non-territory action ids and
    graph observations of ``F`` node and ``G`` global features
    (:meth:`GraphNet.parameter_count <risk_env.train.graph_net.GraphNet.parameter_count>`, without building it), the
    settings that size it, the bytes its largest minibatch of observations of ``T`` territories keeps for the backward
    pass (:meth:`GraphNet.activation_bytes <risk_env.train.graph_net.GraphNet.activation_bytes>`) and the setting
    that sizes that minibatch: the arguments of :func:`~risk_env.train.run.check_network_memory` after the device.

    The minibatches: PPO's, ``ppo.batch_size`` decisions but at most a rollout's (``env.n_envs`` x ``ppo.n_steps``),
    and with the warm start (``imitation.enabled``) its own, ``imitation.batch_size`` but at most the decisions it
    clones (``imitation.decisions`` and ``imitation.dagger_decisions`` per DAgger round).
    """
    from .graph_net import GraphNet

    p, im = cfg.ppo, cfg.imitation
    weights = GraphNet.parameter_count(F, G, n_other, p.graph_hidden, p.graph_rounds)
    batches = [(min(p.batch_size, cfg.env.n_envs * p.n_steps), f"ppo.batch_size={p.batch_size:,}")]
    if im.enabled:
        cloned = im.decisions + im.dagger_rounds * im.dagger_decisions
        batches.append((min(im.batch_size, cloned), f"imitation.batch_size={im.batch_size:,}"))
    rows, batch = max(batches, key=lambda b: b[0])
    kept = GraphNet.activation_bytes(rows, T, F, G, n_other, p.graph_hidden, p.graph_rounds)
    return weights, f"ppo.graph_hidden={p.graph_hidden:,}, ppo.graph_rounds={p.graph_rounds:,}", kept, batch


def _same_init(a: str | None, b: str | None) -> bool:
    """Whether two ``ppo.init`` values name the same network: the same text, one pretrained name in any case (a name
    comes before a file, :func:`init_network`), or two paths to one file."""
    if a == b:
        return True
    if a is None or b is None:
        return False
    from ..agents.registry import PRETRAINED

    named = [v.strip().lower() for v in (a, b) if v.strip().lower() in PRETRAINED]
    if named:
        return len(named) == 2 and named[0] == named[1]
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):  # (a name such as ppo-4p, or a file gone)
        return False


def check_memory(cfg: TrainConfig, device: Any) -> None:
    """Refuse, before the run folder is written, a run whose games and rollout cannot fit the memory of ``device``:
    ``env.n_envs`` slots of each player count, each with its game (:meth:`VectorGame.bytes_per_game
    <risk_env.vector.engine.VectorGame.bytes_per_game>`) and its rollout of ``ppo.n_steps`` calls
    (:func:`~risk_env.train.device_ppo.rollout_bytes`). A lower bound: the network's work in the update comes on top.
    Then the network's training state (:func:`~risk_env.train.run.check_network_memory`).

    Raises:
        ConfigError: the message names ``env.n_envs`` and ``ppo.n_steps``, the memory needed and there, and the most
            slots that fit; or ``ppo.graph_hidden`` and ``ppo.graph_rounds``, for a network too large.
    """
    from ..vector.engine import VectorGame
    from .device_ppo import rollout_bytes

    counts = cfg.env.player_counts or [cfg.rules_config.num_players]
    games = [VectorGame(_lane_config(cfg, players).rules_config, device=device) for players in counts]
    extra = 0  # (bytes a slot takes besides its game in the first lane: every lane's rollout, the other lanes' games)
    for k, (players, game) in enumerate(zip(counts, games, strict=True)):
        gt = game.graph_tables
        extra += rollout_bytes(game.T, gt.F, gt.G, game.num_actions, players, cfg.ppo.n_steps)
        extra += 4 * (game.T * gt.F + gt.G)  # (the current graph observation)
        extra += game.bytes_per_game() if k else 0
    what = f"a rollout of ppo.n_steps={cfg.ppo.n_steps:,} calls" + (
        f", in each of the {len(counts)} lanes of env.player_counts" if len(counts) > 1 else ""
    )
    games[0].check_batch(cfg.env.n_envs, "env.n_envs", extra, what)
    g0 = games[0]
    weights, what_sizes, kept, batch = graph_net_weights(cfg, g0.num_actions - g0.T, g0.T, g0.graph_tables.F, g0.graph_tables.G)
    check_network_memory(weights, device, what_sizes, kept, batch)


def train(
    cfg: TrainConfig, resume: str | os.PathLike[str] | None = None, progress: bool = True, quiet: bool = False
) -> TrainResult:
    """Run the training described by ``cfg`` with ``trainer: device`` (module docstring).

    With ``env.player_counts`` one network trains on each player count in turn: a lane of ``env.n_envs``
    games per count, one rollout and update of each lane after the other, the step count their sum.

    Args:
        cfg: the config.
        resume: a checkpoint (``step_*.pt``) or a run directory (its newest checkpoint): continue
            that run up to ``cfg.total_timesteps`` (weights, optimizer and step count; fresh games).
        progress: show the progress bar.
        quiet: print nothing (the log still goes to ``<run>/train.log``).

    Raises:
        ConfigError: bad config, rules (:func:`~risk_env.train.run.check_rules`), device or resume path; a
            ``ppo.init`` that does not load, or whose network
            is of another width or number of rounds than ``ppo.graph_hidden`` and ``ppo.graph_rounds``
            (:func:`check_init_sizes`; refused before the run folder is written).
        MissingExtraError: a package of the ``train`` extra that this trainer needs (torch, TorchRL,
            tensordict) is missing; raised before anything is written.
    """
    for module in ("torch", "tensordict", "torchrl"):
        require(module, "train", "training")
    import torch

    from .device_ppo import DevicePPO
    from .graph_net import load_policy

    run_dir = cfg.run_dir
    ckpt: Path | None = None
    meta: dict[str, Any] = {}
    snapshots: list[str] = []
    if resume is not None:
        ckpt = latest_checkpoint(Path(resume))
        if ckpt.suffix == ".zip":
            raise ConfigError(
                f"--resume {str(resume)!r}: {ckpt.name} is a MaskablePPO checkpoint; trainer 'device' resumes a .pt "
                "(ppo.init starts from a .zip's network)"
            )
        if ckpt.suffix != ".pt":
            raise ConfigError(
                f"--resume {str(resume)!r}: {ckpt.name} is not a checkpoint; trainer 'device' resumes a step_*.pt "
                "(or the run folder that holds its checkpoints/)"
            )
        if not ckpt.name.startswith("step_"):  # (model.pt: trained as a fresh run of the default config)
            raise ConfigError(
                f"--resume {str(resume)!r}: not a checkpoint (a step_*.pt file, with its .json of the run's schedule "
                "beside it; a run's model.pt is its final policy): give the run folder to resume its newest checkpoint, "
                "or start from the network with --set ppo.init=PATH"
            )
        if not ckpt.with_suffix(".json").is_file():  # (a policy file renamed step_*: no schedule, no config to go on)
            raise ConfigError(
                f"--resume {str(resume)!r}: {ckpt.with_suffix('.json').name} is not beside {ckpt.name}: a checkpoint's "
                "metadata (the run's config and schedule) goes with it; copy it along, or start from the network with "
                "--set ppo.init=PATH"
            )
        meta = checkpoint_meta(ckpt)
        if not meta.get("config"):  # (its run folder's config.yaml, as the sb3 trainer reads it; else nothing says
            meta = {**meta, "config": run_folder_config(ckpt) or {}}  # what the run was)
        if not meta["config"]:
            raise ConfigError(
                f"--resume {str(resume)!r}: {ckpt.with_suffix('.json').name} holds no 'config' and "
                f"{str(run_folder(ckpt) / 'config.yaml')!r} is not there: a checkpoint's metadata is the run's config "
                "and schedule as the run wrote them; start from the network with --set ppo.init=PATH"
            )
        check_resumed_rules(cfg, meta, str(resume), "start a new run from its network with --set ppo.init=PATH")
        started = meta["config"].get("ppo", {}).get("init") if isinstance(meta["config"].get("ppo"), dict) else None
        if not _same_init(cfg.ppo.init, started):  # (ignored: the run goes on from its checkpoint's network)
            if cfg.ppo.init is None:
                raise ConfigError(
                    f"--resume {str(resume)!r}: the run started from ppo.init={started!r}, which this config does not "
                    f"name; resume without --config (the run's own config), or set ppo.init={started!r}"
                )
            raise ConfigError(
                f"--resume {str(resume)!r} continues its checkpoint's network, so ppo.init={cfg.ppo.init!r} would not be "
                f"used (the run started from {started!r}); drop --resume to start a new run from it, or leave ppo.init "
                "as the run had it"
            )
        run_dir = resumed_run_dir(cfg, ckpt)
        # (each one found, before the run folder is touched)
        snapshots = resumed_snapshots(meta, ckpt, run_dir, cfg.opponents.self_play.max_snapshots)
    check_rules(cfg)  # (a map that does not load, too few armies, a variant the map lacks: before the run folder)
    device = resolve_device(cfg.ppo.device)
    init_net = None
    if ckpt is None and cfg.ppo.init is not None:
        init_net, init_meta = init_network(cfg.ppo.init, device)
        check_init_sizes(cfg, init_net)
        check_init_fits(cfg, init_net, init_meta)
    saved: dict[str, Any] = {}
    if ckpt is not None:  # (read, and its sizes checked, before the run folder is written)
        init_net, saved = load_policy(ckpt, device=device)
        check_init_sizes(cfg, init_net, resumed=str(resume))
    # the self-play snapshots a resumed run plays against, read before the run folder is touched
    snapshot_nets = {}
    for path in snapshots:
        try:
            snapshot_nets[path] = load_policy(path, device=device)[0]
        except RiskError as e:
            raise ConfigError(f"resuming {ckpt}: its self-play snapshot does not load: {e}") from None
    check_opponents(cfg)  # (refused before the run folder is touched)
    check_memory(cfg, device)  # (a batch too large for the memory: refused, not killed by the system)
    check_run_dir(run_dir, ckpt)  # (a file at its place or above it, a user's files in it: refused before training)
    moved = prepare_run_folder(run_dir, ckpt)  # (an earlier run, or checkpoints past the one resumed, move aside)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(cfg.to_yaml())
    threads_before = torch.get_num_threads()
    torch.set_num_threads(cfg.torch_threads or 1)
    run = Run(cfg, run_dir, quiet, suffix=".pt")
    if moved is not None:
        run.log(moved)
    t_start = time.monotonic()
    if cfg.max_minutes is not None:
        run.deadline = t_start + 60.0 * cfg.max_minutes
    rules = cfg.rules_config
    if meta:
        adopted = adopted_snapshots(run_dir, snapshots)
        copied = copy_adopted_snapshots(adopted)
        if copied:
            run.log(f"self-play: {copied} snapshots of the run resumed copied into {run_dir / 'pool'}")
        snapshot_nets = {path: snapshot_nets[source] for source, path in adopted}
        run.snapshots = [path for _, path in adopted]
        run.next_snapshot = int(meta.get("next_snapshot", run.next_snapshot))
        run.next_checkpoint = int(meta.get("next_checkpoint", run.next_checkpoint))
        run.next_eval = int(meta.get("next_eval", run.next_eval))
    p = cfg.ppo
    settings = ppo_settings(cfg)
    net: Any = init_net  # the checkpoint's network, the init's, or None (built below)
    counts = cfg.env.player_counts or [rules.num_players]
    lanes: list[Lane] = []
    for k, players in enumerate(counts):
        lcfg = _lane_config(cfg, players)
        env, seating = build_env(lcfg, device)
        if net is None:
            net = build_network(cfg, env)
        ks = cfg.kickstart
        kick: dict[str, Any] = (
            {
                "teacher": _teacher(lcfg, env, ks.teacher, "kickstart.teacher"),
                "kl_coef": ks.kl_coef,
                "anneal_steps": ks.anneal_steps,
            }
            if ks.enabled
            else {}
        )
        turn = bool(cfg.env.turn_feature)
        ppo = DevicePPO(env, net, settings, seed=cfg.seed + 1 + 1000 * k, turn_feature=turn, seating=seating, **kick)
        if lanes:
            ppo.optimizer = lanes[0].ppo.optimizer  # one network, one optimizer
        lanes.append(Lane(players, env, seating, ppo, _league(seating)))
    net.train()
    first = lanes[0].ppo
    if ckpt is not None:
        if "optimizer" in saved:
            first.optimizer.load_state_dict(saved["optimizer"])
            for group in first.optimizer.param_groups:
                group["lr"] = p.learning_rate  # the config's settings apply from here on
        first.num_timesteps = int(saved.get("timesteps", 0))
        if not meta:
            run.align_schedule(first.num_timesteps)

    def steps() -> int:
        return sum(lane.ppo.num_timesteps for lane in lanes)

    logger = _TBLogger(run_dir / "tb")
    model = DeviceModel(lanes, cfg, logger)
    sp = cfg.opponents.self_play
    if sp.enabled:
        from ..vector.network import NetworkPolicy

        snap_gen = torch.Generator(device=device)
        snap_gen.manual_seed(cfg.seed + 15485863)
        for lane in lanes:
            if lane.league is None:
                continue
            g = lane.env.game
            # the latest learner's seats are learner seats (the seating plays them); the policy names it
            lane.league.set_latest(NetworkPolicy(g, net, "graph", False, snap_gen, "latest", turn))
            for path in run.snapshots:  # a resumed run's pool
                snap = snapshot_nets[path]
                key = OpponentPool.snapshot_key(path)  # (the run's PFSP key: Run.forget_dropped reads it so)
                policy = NetworkPolicy(g, snap, "graph", sp.snapshot_deterministic, snap_gen, key, turn)
                lane.league.add_snapshot(policy, name=key)
            lane.snapshot_policy = NetworkPolicy(g, net, "graph", sp.snapshot_deterministic, snap_gen, "snapshot", turn)

    def add_snapshot(t: int) -> None:
        path = run_dir / "pool" / f"snap_{t:09d}.pt"
        model.save(path)
        run.record_snapshot(path)
        for lane in lanes:
            if lane.league is not None and lane.snapshot_policy is not None:
                key = OpponentPool.snapshot_key(str(path))
                lane.league.add_snapshot(lane.snapshot_policy.frozen(key), name=key)
        run.log(f"self-play: snapshot {path.name} joins the league")

    opp = lanes[0].seating
    run.log(
        f"run {cfg.name} -> {run_dir} | trainer device on {device} | "
        f"{'/'.join(str(c) for c in counts)} players, map {rules.map}, setup {rules.setup}, turn limit {rules.turn_limit} | "
        f"{'+'.join(str(lane.env.num_envs) for lane in lanes)} slots x {p.n_steps} calls per rollout, "
        f"{'self-play' if opp is None else 'vs ' + ', '.join(opp.names)} | {cfg.total_timesteps} steps | seed {cfg.seed}"
    )
    run.pfsp_trackers = {f"{lane.players}p": lane.league.pfsp for lane in lanes if lane.league is not None and lane.league.pfsp}
    if ckpt is not None:
        run.resumed(ckpt, steps(), meta)  # (and the league's PFSP results: drawn as before, not uniformly)
    else:
        if p.init is not None:
            run.log(f"the network starts from {p.init} ({net.sizes['hidden']} wide, {net.sizes['rounds']} rounds)")
        if cfg.imitation.enabled:
            reports = [warm_start(lane.ppo, _lane_config(cfg, lane.players), run.log) for lane in lanes]
            (run_dir / "imitation.json").write_text(json.dumps(reports[0] if len(reports) == 1 else reports, indent=1))
            run.save_checkpoint(model, 0)  # the cloned policy, before any PPO update
            if cfg.eval.every:
                run.periodic_eval(model, 0)
    if cfg.env.stagger_calls > 1:  # (the games of the slots spread over their phases: PPOs first rollouts see them all)
        calls = max(lane.ppo.stagger(cfg.env.stagger_calls) for lane in lanes)
        run.log(f"stagger: each slot played 0-{calls} calls before the first rollout (not trained on, not counted)")
    bar: Any = None
    if progress and not quiet:
        from tqdm.auto import tqdm

        bar = tqdm(total=cfg.total_timesteps, initial=steps(), unit="steps", dynamic_ncols=True)
    returns: deque[float] = deque(maxlen=100)
    lengths: deque[int] = deque(maxlen=100)
    t_learn = time.monotonic()
    start_steps = steps()
    multi = len(lanes) > 1
    k = 0
    try:
        while steps() < cfg.total_timesteps:
            before = steps()
            lane = lanes[k % len(lanes)]
            k += 1
            stats = lane.ppo.learn_once()
            t = steps()
            ep = lane.ppo.episodes
            returns.extend(ep.returns)
            lengths.extend(ep.lengths)
            if returns:
                logger.record("rollout/ep_rew_mean", sum(returns) / len(returns))
                logger.record("rollout/ep_len_mean", sum(lengths) / len(lengths))
            ep.returns.clear()
            ep.lengths.clear()
            for key, v in stats.items():
                logger.record(f"train/{key}", v)
            scores = lane.seating.take_scores() if lane.seating is not None else {}
            for label, (games, score) in scores.items():
                name = f"{lane.players}p/{label}" if multi else label
                logger.record(f"rollout/score/{name}", score)
                logger.record(f"rollout/games/{name}", games)
            logger.record("time/fps", (t - start_steps) / max(time.monotonic() - t_learn, 1e-9))
            logger.record("time/total_timesteps", t)
            logger.dump(t)
            if bar is not None:
                bar.update(t - before)
            if sp.enabled and t >= run.next_snapshot:
                while run.next_snapshot <= t:
                    run.next_snapshot += sp.snapshot_every
                add_snapshot(t)
            if cfg.eval.every and t >= run.next_eval:
                while run.next_eval <= t:
                    run.next_eval += cfg.eval.every
                run.periodic_eval(model, t)
                for ln in lanes:
                    _log_pfsp(ln, t, run, logger, f"{ln.players}p " if multi else "")
            if t >= run.next_checkpoint:  # (after the evaluation: a run resumed here does not evaluate this step again)
                while run.next_checkpoint <= t:
                    run.next_checkpoint += cfg.checkpoint.every
                run.save_checkpoint(model, t)
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
    total = steps()
    if run.saved_step != total:  # (a checkpoint of the last update: the same weights, already written and logged)
        run.save_checkpoint(model, total)
    rate = (total - start_steps) / max(time.monotonic() - t_learn, 1e-9)
    run.log(f"trained {total} steps in {learn_s / 60:.1f} min ({rate:,.0f} learner decisions/s); saved {model_path}")
    average = None if cfg.checkpoint.average_from is None else _write_average(run, run_dir, cfg.checkpoint.average_from)
    earlier = run_dir / "model_avg.pt"
    if average is None and earlier.is_file():  # (a resumed run's folder: the average of its earlier end, not this one's)
        earlier.unlink()
        run.log(f"removed {earlier}: the average written at an earlier end of this run; this end wrote none")
    result = TrainResult(run_dir, model_path, total, learn_s, run.stopped_early, average_path=average)
    run.finish(
        result,
        t_start,
        learn_s,
        trainer="device",
        device=str(device),
        player_counts=counts,
        learner_decisions_per_second=round(rate, 1),
        **({} if average is None else {"model_avg": str(average)}),
    )
    logger.close()
    torch.set_num_threads(threads_before)
    return result
