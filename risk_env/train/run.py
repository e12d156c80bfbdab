"""A training run's bookkeeping: evaluations of a model, checkpoints, self-play snapshots, PFSP
updates, the wall-clock budget and the log (used by :func:`risk_env.train.sb3.train`).

:func:`evaluate_model` plays a saved model against opponent specs with
:func:`risk_env.tools.evaluation.evaluate`; :func:`opponent_lineup` reads ``a+b+c`` line-ups;
:class:`Run` holds a run's schedule and files; :func:`callback_class` is the SB3 callback that drives it;
:func:`latest_checkpoint` finds where to resume. The SB3 trainer (:mod:`risk_env.train.sb3`) and the
on-device one (:mod:`risk_env.train.device_train`) share them.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._output import folder_problem
from ..envs.opponents import OpponentPool, kept_snapshots
from ..errors import ConfigError
from ..rules.config import RulesConfig
from .config import TrainConfig
from .pfsp import PFSPTracker

# ---------------------------------------------------------------------------- evaluation
__all__ = [
    "EvalSummary",
    "Run",
    "TrainResult",
    "callback_class",
    "check_opponents",
    "check_rules",
    "check_run_dir",
    "holds_run",
    "set_aside_earlier_run",
    "set_aside_later_branch",
    "resumed_run_dir",
    "resumed_snapshots",
    "adopted_snapshots",
    "copy_adopted_snapshots",
    "prepare_run_folder",
    "evaluate_model",
    "latest_checkpoint",
    "checkpoint_step",
    "checkpoints_in",
    "opponent_lineup",
]


@dataclass
class EvalSummary:
    """Win rate of the learner against one opponent."""

    opponent: str
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    draw_rate: float
    mean_turns: float
    seconds: float

    def line(self) -> str:
        return (
            f"vs {self.opponent}: win rate {self.win_rate:.1%} [{self.ci_low:.1%}, {self.ci_high:.1%}] over {self.games} games, "
            f"draws {self.draw_rate:.1%}, mean {self.mean_turns:.0f} turns ({self.seconds:.0f} s)"
        )


def evaluate_model(
    model_path: str | os.PathLike[str],
    opponents: Sequence[str],
    games: int,
    rules: RulesConfig,
    seed: int,
    workers: int | None = None,
    out_dir: Path | None = None,
    backend: str = "reference",
) -> dict[str, EvalSummary]:
    """Evaluate a saved policy against each opponent (filling every other seat, or a line-up
    ``"a+b+c"``, see :func:`opponent_lineup`) with :func:`risk_env.tools.evaluation.evaluate`
    (``backend``: ``"reference"`` or ``"vector"``). Returns opponent spec -> :class:`EvalSummary`.

    Raises:
        ConfigError: a line-up whose length is not ``num_players - 1``.
    """
    from ..tools.evaluation import evaluate

    n = rules.num_players
    out: dict[str, EvalSummary] = {}
    for opp, folder in zip(opponents, _folder_names(opponents), strict=True):
        res = evaluate(
            [str(model_path)] + opponent_lineup(opp, n),
            num_games=games,
            rules=rules,
            seed=seed,
            workers=workers,
            progress=False,
            out_dir=(out_dir / folder) if out_dir is not None else None,
            backend=backend,
        )
        st = res.stats[res.entrants[0]]
        out[opp] = EvalSummary(
            opp, st.games, st.wins, st.win_rate, st.ci_low, st.ci_high, st.draw_rate, res.mean_turns, res.seconds
        )
    return out


def check_network_memory(weights: int, device: Any, what: str, activations: int = 0, batch: str = "") -> None:
    """Refuse, before the run folder is written, a network whose training cannot fit the memory of ``device``
    (:func:`risk_env.vector.engine.device_memory`): ``weights`` float32 weights, their gradients and Adam's two moments
    (16 bytes a weight), and ``activations``, the bytes a minibatch's forward pass keeps for the backward pass
    (:meth:`GraphNet.activation_bytes <risk_env.train.graph_net.GraphNet.activation_bytes>`; 0 where not counted). A
    lower bound: the backward pass's own temporaries come on top. ``what`` names the settings that size the network
    (``"ppo.graph_hidden=..., ppo.graph_rounds=..."``), ``batch`` the one that sizes the minibatch
    (``"ppo.batch_size=512"``).

    Raises:
        ConfigError: the message names ``what`` (and ``batch`` where the activations are counted), the weights, the
            memory needed and there.
    """
    from decimal import Decimal

    from ..vector.engine import device_memory

    have = device_memory(device)
    need = 16 * weights + activations
    if have is None or need <= have[0]:
        return
    memory, source = have

    def sci(x: int | Decimal) -> str:  # (a number past a float's range too: Decimal's exponent padded as a float's)
        mantissa, exponent = f"{Decimal(x):.2e}".split("e")
        return f"{mantissa}e{int(exponent):+03d}"

    def gib(n: int) -> str:
        return f"{n / 2**30:,.1f}" if n < 10**6 * 2**30 else sci(Decimal(n) / 2**30)

    count = f"{weights:,}" if weights < 10**12 else sci(weights)

    state = "weights, gradients and the optimizer's two moments: 16 bytes a weight"
    sized, needs, smaller = what, f"the network's {count} weights", "network"
    if activations:  # (the minibatch's setting, its activations and the smaller minibatch named too)
        sized, needs, smaller = f"{what}, {batch}", f"{needs} and a minibatch's activations", "network or minibatch"
        state += f"; {gib(activations)} GiB of activations kept for the backward pass"
    raise ConfigError(
        f"{sized}: {needs} need about {gib(need)} GiB to train ({state}), but {device} has {memory / 2**30:,.1f} GiB "
        f"({source}); choose a smaller {smaller}"
    )


def check_rules(cfg: TrainConfig) -> None:
    """Refuse, before any training and before the run folder is touched, rules that no game can be played under:
    the training rules (under each player count of ``env.player_counts`` too) and the evaluation rules, each built
    as the engine builds them (the map loaded, the armies counted, each variant's check), and by the batched engine
    where it plays them (``trainer: device``, ``env.backend: vector``, ``eval.backend: vector``).

    Raises:
        ConfigError: the key (``rules``, ``eval.rules``; ``rules.map``, ``eval.rules.map`` for a map that does not
            load) and why.
    """
    from ..errors import MapError, RiskError
    from ..rules.engine import Game
    from .config import rules_from

    batched = cfg.trainer == "device" or cfg.env.backend == "vector"
    checks: list[tuple[str, dict[str, Any], bool]] = [("rules", cfg.rules, batched)]  # (key, rules, batched engine)
    for n in cfg.env.player_counts or ():
        if n != cfg.rules_config.num_players:
            checks.append((f"rules (num_players={n} of env.player_counts)", cfg.lane_rules(n), batched))
    if cfg.eval.rules is not None:
        checks.append(("eval.rules", cfg.eval.rules, cfg.eval.backend == "vector"))
    for key, rules, on_batched in checks:
        try:
            rc = rules_from(rules)
            Game(rc)
            if on_batched:
                from ..vector.engine import VectorGame

                VectorGame(rc)  # (a check of the rules: on the CPU)
        except MapError as e:
            where = key.replace("rules", "rules.map", 1)
            raise ConfigError(f"{where}: {e}") from None
        except RiskError as e:
            raise ConfigError(f"{key}: {e}") from None


def check_opponents(cfg: TrainConfig) -> None:
    """Refuse, before any training, an ``opponents.baselines`` or ``eval.opponents`` entry (or a teacher of
    ``imitation`` or ``kickstart`` when enabled) that could not be played: each agent of each line-up is built
    once, as the training env or the evaluation's backend builds it (``load_agent``, or the batched policy of a
    ``vector`` backend and of ``trainer: device``), and checked against the rules it would play (the training
    rules at each player count of ``env.player_counts``, or the evaluation rules): a network of other rules is
    refused here, not after the training.

    Raises:
        ConfigError: the entry and why (an unknown name, a missing file, a spec the vector backend does not play,
            rules the batched heuristics do not play, a network of other rules, a line-up as a teacher or of
            another length than the other seats).
    """
    from ..agents.registry import is_lineup, misread_lineup
    from ..errors import RiskError
    from ..rules.engine import Game
    from ..vector.league import LATEST
    from .config import SELF, rules_from

    ev = cfg.eval
    lanes = [rules_from(cfg.lane_rules(n)) for n in cfg.env.player_counts or ()] or [cfg.rules_config]
    checks: list[tuple[str, str, str, RulesConfig]] = []  # (section, spec, backend, rules)
    train_backend = "vector" if cfg.trainer == "device" else cfg.env.backend
    for rules in lanes:
        for spec in cfg.opponents.baselines:
            if spec != SELF:
                checks.append(("opponents.baselines", spec, train_backend, rules))
    teacher_backend = "vector" if cfg.trainer == "device" else "reference"  # (the sb3 trainer's teachers: load_agent)
    for key, teaching in (("imitation.teacher", cfg.imitation), ("kickstart.teacher", cfg.kickstart)):
        if teaching.enabled:
            if is_lineup(teaching.teacher):
                raise ConfigError(f"{key}: a teacher is one agent, got the line-up {teaching.teacher!r}")
            checks += [(key, teaching.teacher, teacher_backend, rules) for rules in lanes]
    if ev.final_games > 0 or ev.every > 0:
        checks += [("eval.opponents", spec, ev.backend, cfg.eval_rules_config) for spec in ev.opponents]
    games: dict[tuple[int, str], Any] = {}  # one game per rules object and backend (a check of the specs: on the CPU)
    for section, spec, backend, rules in checks:
        try:
            parts = [spec] if section.endswith("teacher") else opponent_lineup(spec, rules.num_players)
        except ConfigError as e:
            raise ConfigError(f"{section}: {e}") from None
        for part in dict.fromkeys(parts):
            misread = misread_lineup(part)
            if misread is not None:
                raise ConfigError(f"{section}: {misread}")
            if section == "opponents.baselines" and part.strip().lower() == LATEST:
                raise ConfigError(
                    f"{section}: {part!r} is the name the league gives the latest learner; give the baseline another "
                    "name (rename its file), or set opponents.self_play for the learner as an opponent"
                )
            try:
                if backend == "vector":
                    from ..vector.engine import VectorGame
                    from ..vector.specs import batched_policy

                    if (id(rules), backend) not in games:
                        games[id(rules), backend] = VectorGame(rules)
                    game = games[id(rules), backend]
                    batched_policy(part, game, game.generator)
                else:
                    from ..agents import load_agent
                    from ..envs.opponents import check_fits_game

                    if (id(rules), backend) not in games:
                        games[id(rules), backend] = Game(rules)
                    check_fits_game([load_agent(part)], games[id(rules), backend])
            except RiskError as e:
                players = f" ({rules.num_players} players)" if len(lanes) > 1 and not section.startswith("eval") else ""
                raise ConfigError(f"{section}: {part!r} cannot be played{players}: {e}") from None


def opponent_lineup(spec: str, num_players: int) -> list[str]:
    """The opponents of one evaluation entry: ``"balanced"`` fills every other seat
    (``num_players - 1`` copies); ``"aggressive+continent+balanced"`` names one agent per
    other seat (seats are rotated by the evaluation).

    Raises:
        ConfigError: a ``+`` line-up whose length is not ``num_players - 1``.
    """
    from ..agents.registry import is_lineup, lineup_parts

    if is_lineup(spec):
        parts = [p.strip() for p in lineup_parts(spec)]
        if len(parts) != num_players - 1 or not all(parts):
            raise ConfigError(
                f"opponent line-up {spec!r} names {len(parts)} agents; {num_players} players need "
                f"{num_players - 1} (one per other seat), or a single spec that fills every other seat"
            )
        return parts
    return [spec] * (num_players - 1)


def _safe(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(spec).stem if spec.endswith((".zip", ".pt")) else spec)


def _folder_names(specs: Sequence[str]) -> list[str]:
    """A results folder name per spec (:func:`_safe`), numbered from the second where two would be one (two runs'
    ``model.pt``, or ``a:b`` and ``a_b``): ``model``, ``model_2``."""
    names: list[str] = []
    for spec in specs:
        name, k = _safe(spec), 1
        while (name if k == 1 else f"{name}_{k}") in names:
            k += 1
        names.append(name if k == 1 else f"{name}_{k}")
    return names


# ---------------------------------------------------------------------------- callbacks
def callback_class() -> type:
    from stable_baselines3.common.callbacks import BaseCallback

    class RunCallback(BaseCallback):
        """Checkpoints, self-play snapshots, periodic evaluation, and the wall-clock budget."""

        def __init__(self, run: Run) -> None:
            super().__init__(verbose=0)
            self.run = run

        def _on_step(self) -> bool:
            r = self.run
            t = self.num_timesteps
            cfg = r.cfg
            sp = cfg.opponents.self_play
            if r.pfsp is not None:
                r.pfsp.record_infos(self.locals.get("infos", ()))
                if t >= r.next_pfsp:
                    r.next_pfsp += cfg.opponents.pfsp.update_every
                    r.update_pfsp(self.model)
            if sp.enabled and t >= r.next_snapshot:
                r.next_snapshot += sp.snapshot_every
                r.add_snapshot(self.model, t)
            if cfg.eval.every and t >= r.next_eval:
                r.next_eval += cfg.eval.every
                r.periodic_eval(self.model, t)
            if t >= r.next_checkpoint:  # (after the evaluation: a run resumed here does not evaluate this step again)
                r.next_checkpoint += cfg.checkpoint.every
                r.save_checkpoint(self.model, t)
            if r.deadline is not None and time.monotonic() > r.deadline:
                r.stopped_early = True
                r.log(
                    f"max_minutes={cfg.max_minutes} reached at step {t}: stopping "
                    "(this run is no longer reproducible step for step)"
                )
                return False
            return True

    return RunCallback


def planned_steps(start: int, total: int, rollout: int) -> int:
    """The step count a run ends at: SB3 learns in whole rollouts of ``rollout`` steps
    (``n_steps * n_envs``), so from ``start`` it goes on to the first multiple of a rollout at or
    past ``total`` (``start`` itself when nothing is left).

    >>> planned_steps(0, 500_000, 2048)   # 245 rollouts of 2,048 steps
    501760
    >>> planned_steps(501_760, 500_000, 2048)
    501760
    """
    if start >= total:
        return start
    return start + -(-(total - start) // rollout) * rollout


def progress_callback_class() -> type:
    """The SB3 callback class of the training progress bar (tqdm), built on first use so that
    importing this module needs no SB3. ``ProgressBar(start, end)`` counts environment steps from
    ``start`` to ``end`` (:func:`planned_steps`), so the bar ends full at the step count the run
    really ends at, where SB3's own bar, sized by ``total_timesteps``, overshoots (501,760/500,000)."""
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm.auto import tqdm

    class ProgressBar(BaseCallback):
        def __init__(self, start: int, end: int) -> None:
            super().__init__(verbose=0)
            self.start, self.end = start, end
            self.bar: Any = None

        def _on_training_start(self) -> None:
            self.bar = tqdm(total=self.end, initial=self.start, desc="training", unit="step", dynamic_ncols=True)

        def _on_step(self) -> bool:
            self.bar.update(self.num_timesteps - self.bar.n)
            return True

        def _on_training_end(self) -> None:
            self.bar.close()

    return ProgressBar


@dataclass
class TrainResult:
    """What :func:`train` returns."""

    run_dir: Path
    model_path: Path
    timesteps: int
    seconds: float
    stopped_early: bool
    final_eval: dict[str, EvalSummary] = field(default_factory=dict)
    average_path: Path | None = None
    """``<run>/model_avg.pt`` where ``checkpoint.average_from`` wrote it (trainer ``device``), else None."""


class Run:
    """A run's schedule and files. ``suffix``: the model files' (``.zip`` for SB3, ``.pt`` for the
    on-device trainer's policy files); the model given to the methods has ``save(path)`` and an
    SB3-like ``logger`` (``record``, ``dump``)."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, quiet: bool, suffix: str = ".zip") -> None:
        self.cfg = cfg
        self.suffix = suffix
        self.dir = run_dir
        self.quiet = quiet
        self.snapshots: list[str] = []
        self.venv: Any = None
        self.next_snapshot = cfg.opponents.self_play.snapshot_every
        self.next_checkpoint = cfg.checkpoint.every
        self.next_eval = cfg.eval.every
        self.deadline: float | None = None
        self.t_start = time.monotonic()
        self.wall_offset = 0.0  # (a resumed run's wall seconds before this process: its curves go on, not restart)
        self.stopped_early = False
        pf = cfg.opponents.pfsp
        self.pfsp: PFSPTracker | None = PFSPTracker(pf.power, pf.window) if pf.enabled else None
        self.next_pfsp = pf.update_every
        self.pfsp_trackers: dict[str, PFSPTracker] = {} if self.pfsp is None else {"pool": self.pfsp}
        """The PFSP trackers a checkpoint keeps, by a key of the trainer's (the SB3 path's one, the on-device
        trainer's per player count); restored by :meth:`restore_pfsp`."""
        self.log_file = run_dir / "train.log"
        self.saved_step: int | None = None
        """The step of the last checkpoint written (:meth:`save_checkpoint`): a run's end writes none at the same step
        again."""
        self.game = played_game(cfg)
        """The game the run plays (:func:`played_game`), as it began: a rules or map file edited during the run does
        not change what its checkpoints keep."""

    def align_schedule(self, t: int) -> None:
        """Put the next snapshot, checkpoint and evaluation at the first multiple of their period after step ``t``."""
        c = self.cfg
        self.next_snapshot = (t // c.opponents.self_play.snapshot_every + 1) * c.opponents.self_play.snapshot_every
        self.next_checkpoint = (t // c.checkpoint.every + 1) * c.checkpoint.every
        if c.eval.every:
            self.next_eval = (t // c.eval.every + 1) * c.eval.every

    def log(self, msg: str) -> None:
        line = f"[{time.strftime('%H:%M:%S')}] {msg}"
        with self.log_file.open("a") as f:
            f.write(line + "\n")
        if not self.quiet:
            try:
                from tqdm.auto import tqdm

                tqdm.write(line)
            except ImportError:  # pragma: no cover
                print(line, flush=True)

    def record_snapshot(self, path: Path) -> None:
        """Add a snapshot file to :attr:`snapshots`, the list a checkpoint keeps: those the pools keep
        (:func:`~risk_env.envs.opponents.kept_snapshots`); the PFSP results of a snapshot the pools drop are dropped
        too (:meth:`forget_dropped`)."""
        self.snapshots = kept_snapshots([*self.snapshots, str(path)], self.cfg.opponents.self_play.max_snapshots)
        self.forget_dropped()

    def add_snapshot(self, model: Any, t: int) -> None:
        path = self.dir / "pool" / f"snap_{t:09d}{self.suffix}"
        path.parent.mkdir(parents=True, exist_ok=True)
        model.save(path)
        self.record_snapshot(path)
        self.venv.env_method("add_snapshot", str(path))
        self.log(f"self-play: snapshot {path.name} joins the opponent pool")

    def update_pfsp(self, model: Any) -> None:
        """Push the PFSP priorities to every env's opponent pool and log them."""
        if self.pfsp is None or not self.pfsp.results:
            return
        pr = self.pfsp.priorities(self.pool_keys())
        self.venv.env_method("set_opponent_priorities", pr)
        for k in pr:
            model.logger.record(f"pfsp/win_rate/{_safe(k)}", self.pfsp.win_rate(k))
            model.logger.record(f"pfsp/priority/{_safe(k)}", pr[k])

    def pool_keys(self) -> list[str]:
        """The PFSP keys of the opponents the pools draw now: the baselines and the kept snapshots
        (:meth:`OpponentPool.snapshot_key <risk_env.envs.opponents.OpponentPool.snapshot_key>`), those met so far."""
        if self.pfsp is None:
            return []
        return [k for k in self.opponent_keys() if k in self.pfsp.results]

    def opponent_keys(self) -> list[str]:
        """The PFSP keys of every opponent the pools (or the leagues) may draw now: the baselines and the kept
        snapshots (:meth:`OpponentPool.snapshot_key <risk_env.envs.opponents.OpponentPool.snapshot_key>`: a league
        names its snapshots so too)."""
        return [*self.cfg.opponents.baselines, *(OpponentPool.snapshot_key(p) for p in self.snapshots)]

    def forget_dropped(self) -> None:
        """Drop from each of :attr:`pfsp_trackers` the results of opponents no longer drawn (a snapshot the pools
        dropped, a result of a game begun against it that ended later), so a checkpoint keeps those there are."""
        now = set(self.opponent_keys())
        for tracker in self.pfsp_trackers.values():
            tracker.forget([k for k in tracker.results if k not in now])

    def wall_seconds(self) -> float:
        """Wall-clock seconds of the run so far, those before a resume included (``evals.jsonl``'s ``wall_seconds``)."""
        return self.wall_offset + time.monotonic() - self.t_start

    def resumed(self, ckpt: Path, t: int, meta: dict[str, Any]) -> None:
        """Log a resume from ``ckpt`` at step ``t`` (and say so where ``total_timesteps`` leaves nothing to train),
        take up the wall-clock seconds its ``meta`` counted, and restore the PFSP results it kept
        (:meth:`restore_pfsp`)."""
        self.log(f"resumed from {ckpt} at step {t}")
        self.wall_offset = float(meta.get("wall_seconds", 0.0))  # (checked by checkpoint_meta)
        if t >= self.cfg.total_timesteps:
            self.log(
                f"note: the run is at step {t:,}, total_timesteps is {self.cfg.total_timesteps:,}: nothing to train; the "
                "final evaluation is played again (raise --timesteps to train on)"
            )
        self.restore_pfsp(meta)

    def restore_pfsp(self, meta: dict[str, Any]) -> None:
        """Load the PFSP results a checkpoint's ``meta`` kept into :attr:`pfsp_trackers` (a tracker it did not keep,
        as in a checkpoint written before they were kept, starts empty), and log it. Call it once the run's log is
        open; :func:`checkpoint_meta` has checked that the states read.

        Raises:
            ConfigError: a kept state that does not read (:meth:`PFSPTracker.load_state_dict`).
        """
        kept = meta.get("pfsp") or {}
        games = 0
        for key, tracker in self.pfsp_trackers.items():
            if key in kept:
                tracker.load_state_dict(kept[key])
                games += tracker.total_games
        self.forget_dropped()  # (results a checkpoint kept of opponents the resumed pool no longer draws)
        if games:
            self.log(f"pfsp: the results of {games:,} episodes restored from the checkpoint")

    def save_checkpoint(self, model: Any, t: int) -> Path:
        d = self.dir / "checkpoints"
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"step_{t:09d}{self.suffix}"
        model.save(path)
        self.forget_dropped()  # (a game begun against a dropped snapshot may have ended since)
        meta = {
            "timesteps": int(t),
            "snapshots": self.snapshots,
            "next_snapshot": self.next_snapshot,
            "next_checkpoint": self.next_checkpoint,
            "next_eval": self.next_eval,
            "wall_seconds": round(self.wall_seconds(), 1),
            "pfsp": {k: tracker.state_dict() for k, tracker in self.pfsp_trackers.items()},
            "config": self.cfg.model_dump(mode="json"),
            "game": self.game,
        }
        path.with_suffix(".json").write_text(json.dumps(meta, indent=1))
        self.saved_step = int(t)
        keep, start = self.cfg.checkpoint.keep, self.cfg.checkpoint.average_from
        if keep is not None:
            old = checkpoints_in(d, (self.suffix,))[:-keep]
            if start is not None:  # (checkpoint.average_from averages these at the end: they stay whatever keep says)
                old = [p for p in old if (checkpoint_step(p) or 0) < start]
            for p in old:
                p.unlink(missing_ok=True)
                p.with_suffix(".json").unlink(missing_ok=True)
        self.log(f"checkpoint {path}")
        return path

    def finish(self, result: TrainResult, t_start: float, learn_seconds: float, **fields: Any) -> TrainResult:
        """End a run whose model is saved at ``result.model_path``: its final evaluation (:meth:`final_eval`), the
        wall time since ``t_start`` (``time.monotonic()``) as ``result.seconds``, and ``results.json`` with ``fields``
        (the trainer's own entries) beside the name, model, step count, times (``learn_seconds``: the training's),
        evaluation rules and final evaluation; ``wall_seconds``, the run's wall clock when its training ended, those
        before a resume included, as ``evals.jsonl`` counts it (where ``plot-training`` draws the final evaluation)."""
        wall = self.wall_seconds()
        result.final_eval = self.final_eval(result.model_path)
        result.seconds = time.monotonic() - t_start
        summary = {
            "name": self.cfg.name,
            **fields,
            "model": str(result.model_path),
            "timesteps": result.timesteps,
            "learn_seconds": round(learn_seconds, 1),
            "wall_seconds": round(wall, 1),
            "total_seconds": round(result.seconds, 1),
            "stopped_early": result.stopped_early,
            "eval_rules": self.cfg.eval_rules_config.to_dict(),
            "final_eval": {k: vars(v) for k, v in result.final_eval.items()},
        }
        (self.dir / "results.json").write_text(json.dumps(summary, indent=1))
        parts = "training + final evaluation" if result.final_eval else "training; no final evaluation"
        self.log(f"done in {result.seconds / 60:.1f} min (wall time, {parts})")
        return result

    def final_eval(self, model_path: Path) -> dict[str, EvalSummary]:
        """The run's final evaluation of its saved model (``eval.final_games`` games against each of
        ``eval.opponents``, on the evaluation rules, ``eval.seed``), each result logged and its games written
        under ``<run dir>/final_eval``. Empty when ``eval.final_games`` is 0 or no opponent is given."""
        ev = self.cfg.eval
        if ev.final_games <= 0 or not ev.opponents:
            return {}
        t0 = time.monotonic()
        res = evaluate_model(
            model_path,
            ev.opponents,
            ev.final_games,
            self.cfg.eval_rules_config,
            ev.seed,
            ev.workers,
            out_dir=self.dir / "final_eval",
            backend=ev.backend,
        )
        for s in res.values():
            self.log(f"final: {s.line()}")
        self.log(f"final evaluation took {time.monotonic() - t0:.0f} s")
        return res

    def periodic_eval(self, model: Any, t: int) -> None:
        path = self.dir / f"eval_model{self.suffix}"
        model.save(path)
        ev = self.cfg.eval
        from ..envs.opponents import preserve_global_rng

        try:
            with preserve_global_rng():  # whatever the evaluation does, the learner's generators stay where they are
                res = evaluate_model(
                    path, ev.opponents, ev.games, self.cfg.eval_rules_config, ev.seed, ev.workers, backend=ev.backend
                )
        except Exception as e:  # an evaluation failure must not kill a long run
            self.log(f"evaluation at step {t} failed: {type(e).__name__}: {e}")
            return
        if self.pfsp is not None and self.pfsp.results:
            pf = self.pfsp
            self.log(
                f"pfsp @ {t}: "
                + ", ".join(
                    f"{k} scored {pf.win_rate(k):.0%} over {pf.games(k)} -> priority {v:.2f}"
                    for k, v in pf.priorities(self.pool_keys()).items()
                )
            )
        # SB3's public logger; before learn() it has none yet (the warm start's evaluation) and the property raises
        tb = getattr(model, "logger", None)
        for opp, s in res.items():
            if tb is not None:
                tb.record(f"eval/win_rate/{_safe(opp)}", s.win_rate)
                tb.record(f"eval/mean_turns/{_safe(opp)}", s.mean_turns)
            self.log(f"eval @ {t}: {s.line()}")
        if tb is not None:
            tb.dump(t)
        with (self.dir / "evals.jsonl").open("a") as f:
            f.write(
                json.dumps(
                    {
                        "timesteps": t,
                        "wall_seconds": round(self.wall_seconds(), 1),
                        **{k: vars(v) for k, v in res.items()},
                    }
                )
                + "\n"
            )


def check_run_dir(run_dir: Path, ckpt: Path | None = None) -> None:
    """Refuse, before any training, a run folder (``--out``, ``out_dir``) that cannot be made or written: a file
    at its place, a file among the folders above it, a folder above it that this user may not write, a name longer
    than the file system takes, or a place where the system refuses new folders or files (``/proc``, ``/sys``, a
    read-only file system). The check is :func:`risk_env._output.folder_problem`'s, which leaves nothing behind.

    Also refused: a folder that holds no run (:func:`holds_run`) but files a run would overwrite, add to or rotate
    away (``model.pt``, ``results.json``, ``evals.jsonl``, ``checkpoints/step_*``, ``pool/snap_*``, ``final_eval/``,
    a ``config.yaml`` or ``train.log`` without the other; links to nothing among them too), unless the run resumes
    ``ckpt`` from that folder's ``checkpoints/`` (a set-aside branch, say).

    Raises:
        ConfigError: the run folder and the system's reason, or the files a run would overwrite.
    """
    where = f"the run folder {str(run_dir)!r}"
    # (os.path's tests: False for a name the system cannot even look up, where Path's raise)
    if os.path.exists(run_dir) and not os.path.isdir(run_dir):
        raise ConfigError(f"{where} is a file: give another --out")
    why = folder_problem(run_dir)
    if why is not None:
        raise ConfigError(f"{where} cannot be made or written: {why}: give another --out")
    if not os.path.isdir(run_dir) or holds_run(run_dir) or (ckpt is not None and _in_checkpoints_of(ckpt, run_dir)):
        return
    # (lexists and iterdir: a link to nothing counts, as the run would write through it or fail on it)
    found = [n for n in (*RUN_FILES, "config.yaml", "train.log") if os.path.lexists(run_dir / n)]
    found += [f"{n} (a link to nothing)" for n in RUN_FOLDERS if os.path.islink(run_dir / n) and not os.path.exists(run_dir / n)]
    for folder, prefix in (("checkpoints", "step_"), ("pool", "snap_")):
        if (run_dir / folder).is_dir():
            named = sorted(p.name for p in (run_dir / folder).iterdir() if checkpoint_step(p, prefix) is not None)
            found += [f"{folder}/{name}" for name in named]
    if found:
        shown = ", ".join(found[:4]) + (f" and {len(found) - 4} more" if len(found) > 4 else "")
        raise ConfigError(
            f"{where} holds {shown}, but no run (no config.yaml and train.log of one): a run there would overwrite "
            "them, add to them or rotate them away; move them elsewhere, or give another --out"
        )


def holds_run(run_dir: Path) -> bool:
    """Whether ``run_dir`` holds a run of these trainers: its ``config.yaml`` and ``train.log``."""
    return (run_dir / "config.yaml").is_file() and (run_dir / "train.log").is_file()


RUN_OUTPUTS = (
    "checkpoints",
    "pool",
    "tb",
    "final_eval",
    "evals.jsonl",
    "results.json",
    "model.pt",
    "model.zip",
    "model_avg.pt",
    "eval_model.pt",
    "eval_model.zip",
)
"""What a run writes in its folder besides ``config.yaml`` and ``train.log``: a fresh run into a folder that holds
them sets them aside (:func:`set_aside_earlier_run`)."""

RUN_FOLDERS = ("checkpoints", "pool", "tb")
"""The folders among :data:`RUN_OUTPUTS` (a run adds files to them)."""

RUN_FILES = tuple(name for name in RUN_OUTPUTS if name not in RUN_FOLDERS)
"""The rest of :data:`RUN_OUTPUTS`: what a run writes whole (``final_eval/`` with its files) or appends to
(``evals.jsonl``)."""


def _new_folder(parent: Path, prefix: str) -> Path:
    """Make and return ``parent/<prefix>-<date>-<time>`` (with ``-2``, ``-3``... where one of that name exists)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = parent / f"{prefix}-{stamp}"
    k = 1
    while folder.exists():
        k += 1
        folder = parent / f"{prefix}-{stamp}-{k}"
    folder.mkdir()
    return folder


def set_aside_earlier_run(run_dir: Path) -> Path | None:
    """Move what an earlier run wrote in ``run_dir`` (:data:`RUN_OUTPUTS`) into a new folder
    ``run_dir/earlier-<date>-<time>``, before a fresh run (not a resumed one) writes there: mixed with the new run's,
    its checkpoints would be resumed in place of the new ones (and the rotation would remove the new ones first), and
    its evaluations drawn on the new run's curves. Nothing is removed: the earlier run (and anything kept among its
    files) stays whole in that folder. ``config.yaml`` is rewritten and ``train.log`` goes on. Call it once every
    check has passed.

    Only a folder that holds a run (its ``config.yaml`` and ``train.log``) is touched. Returns the folder the earlier
    run went to, or None where there was nothing to move.

    Raises:
        ConfigError: a file could not be moved (the message names it; nothing has moved).
    """
    if not holds_run(run_dir):
        return None
    present = [name for name in RUN_OUTPUTS if (run_dir / name).exists() or (run_dir / name).is_symlink()]
    if not present:
        return None
    moves = [(run_dir / name, Path(name)) for name in [*present, "config.yaml"]]  # (its config beside its files)
    return _move_aside(run_dir, "earlier", moves, None, None, f"cannot set aside the earlier run in {run_dir}", "its")


def _move_aside(
    run_dir: Path,
    prefix: str,
    moves: list[tuple[Path, Path]],
    finish: Callable[[Path], None] | None,
    undo: Callable[[], None] | None,
    refusal: str,
    whose: str,
) -> Path:
    """Move each ``(source, name)`` of ``moves`` to ``name`` in a new folder ``run_dir/<prefix>-<date>-<time>``, then
    call ``finish`` with that folder; all or nothing: where a step fails, or Ctrl-C comes (held back until the moves
    are done or undone, a second one too), what moved goes back, ``undo`` undoes what ``finish`` did, the folder is
    removed and a :class:`ConfigError` begins with ``refusal`` (``KeyboardInterrupt`` goes on as it came)."""
    interrupts: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM) if threading.current_thread() is threading.main_thread() else ()
    previous = {signum: signal.signal(signum, lambda signum, frame: interrupts.append(signum)) for signum in held}
    aside: Path | None = None
    done: list[tuple[Path, Path]] = []
    try:
        try:
            aside = _new_folder(run_dir, prefix)
            for source, name in moves:
                (aside / name).parent.mkdir(exist_ok=True)
                shutil.move(source, aside / name)  # (a rename; a copy where the two lie on other disks)
                done.append((source, aside / name))
                if interrupts:
                    raise KeyboardInterrupt
            if finish is not None:
                finish(aside)
            if interrupts:
                raise KeyboardInterrupt
            result = aside
        except BaseException as e:
            if isinstance(e, KeyboardInterrupt):
                print(f"interrupted: putting back the {len(done):,} files moved so far", file=sys.stderr, flush=True)
            for source, target in reversed(done):
                shutil.move(target, source)
            if undo is not None:
                undo()
            if aside is not None:
                shutil.rmtree(aside, ignore_errors=True)
            if isinstance(e, KeyboardInterrupt) and interrupts:
                pass  # (the signal held back is delivered below, once its handler is back)
            elif not isinstance(e, OSError):
                raise
            else:
                raise ConfigError(
                    f"{refusal} ({e.strerror or type(e).__name__}: {e.filename}): nothing moved; make {whose} files "
                    "movable, or write the run into another folder with --out"
                ) from None
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if interrupts:  # (Ctrl-C: KeyboardInterrupt; SIGTERM: what its handler does, by default the end of the process)
        signal.raise_signal(interrupts[0])
        raise KeyboardInterrupt  # (a handler that returned: the set-aside is undone all the same)
    return result


def checkpoint_step(path: Path, prefix: str = "step_") -> int | None:
    """The step count in a checkpoint's name (``step_000250000.pt`` -> 250000; with ``prefix="snap_"``, a self-play
    snapshot's), or None for another name (ASCII digits only)."""
    digits = path.stem.removeprefix(prefix)
    return int(digits) if digits != path.stem and digits.isascii() and digits.isdigit() else None


def checkpoints_in(folder: Path, suffixes: tuple[str, ...] = (".zip", ".pt")) -> list[Path]:
    """The ``step_*`` checkpoints in ``folder`` (not below it) with one of ``suffixes``, oldest first by their step
    count (so a run past 10^9 steps, whose names are longer, still sorts right; equal counts by name). Empty where
    there is no such folder."""
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if p.suffix in suffixes and checkpoint_step(p) is not None and p.is_file()]
    return sorted(found, key=lambda p: (checkpoint_step(p), p.suffix, p.name))


def in_checkpoints(ckpt: Path) -> bool:
    """Whether ``ckpt`` lies in a run folder's ``checkpoints/`` (however the path was given: relative, from inside
    that folder): a run's checkpoint, which :func:`run_folder` names the folder of."""
    return Path(os.path.abspath(ckpt)).parent.name == "checkpoints"


def resumed_run_dir(cfg: TrainConfig, ckpt: Path) -> Path:
    """The folder a run resumed from ``ckpt`` writes in: ``out_dir`` where the config sets it, else the run folder
    that holds ``ckpt`` in its ``checkpoints/`` (:func:`in_checkpoints`), else the config's default run folder."""
    if cfg.out_dir is None and in_checkpoints(ckpt):
        return run_folder(ckpt)
    return cfg.run_dir


def run_folder(ckpt: Path) -> Path:
    """The run folder that holds the checkpoint ``ckpt``: ``RUN`` for ``RUN/checkpoints/step_N``
    (:func:`in_checkpoints`), else the folder ``ckpt`` is in (a run's ``model.zip``)."""
    here = Path(os.path.abspath(ckpt)).parent
    return here.parent if in_checkpoints(ckpt) else here


def run_folder_config(ckpt: Path) -> dict[str, Any] | None:
    """The ``config.yaml`` of the :func:`run_folder` that holds ``ckpt``, as a mapping (not validated), or None where
    there is none: the run's config where the checkpoint's ``.json`` keeps none.

    Raises:
        ConfigError: the file is not YAML text holding a mapping (one line naming it).
    """
    from .config import read_yaml

    path = run_folder(ckpt) / "config.yaml"
    if not path.is_file():
        return None
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a run's config.yaml holds a mapping of settings, got {type(data).__name__}")
    return data


def played_game(cfg: TrainConfig) -> dict[str, Any]:
    """The game a run of ``cfg`` plays, as a checkpoint keeps it (``game`` in its ``.json``):

    * ``rules``: the rules resolved as the engine plays them (:meth:`RulesConfig.to_dict`: a rules file's switches as
      they were, not its name), at the first of the player counts (with ``env.player_counts`` each lane sets its own
      count, so ``rules.num_players`` plays no game and the switches that follow from it, such as the starting
      armies, are those of the first lane);
    * ``player_counts``: ``env.player_counts``, sorted, or the rules' own count;
    * ``map``: the map's :meth:`~risk_env.rules.map.GameMap.fingerprint` (the same board under another name or path
      is the same game; a map file edited since is not).

    Raises:
        MapError: the rules' map does not load (:func:`check_rules` refuses it first).
    """
    from ..rules.map import load_map
    from .config import rules_from

    counts = sorted(cfg.env.player_counts or [cfg.rules_config.num_players])
    rules = rules_from(cfg.lane_rules(counts[0]))
    return {"rules": rules.to_dict(), "player_counts": counts, "map": load_map(rules.map).fingerprint()}


def check_resumed_rules(cfg: TrainConfig, meta: dict[str, Any], resume: str, fresh_start: str) -> None:
    """Refuse to resume a checkpoint under another game than its run's: the rules (every switch but the player count,
    resolved), the player counts and the board, against the ``game`` its ``meta`` kept (:func:`played_game`; for a
    checkpoint written before it kept one, its config's rules resolved now). The checkpoint's schedule, self-play
    snapshots and PFSP results belong to its run's game, so a ``--set rules.num_players=4`` would train on a mix of two
    games while ``config.yaml`` named one. The map is compared by its fingerprint where the checkpoint kept one: the
    same board named another way passes, a map file edited since the checkpoint is refused. A checkpoint without
    metadata (the sb3 trainer gives a run's ``step_*`` checkpoint its folder's ``config.yaml`` instead,
    :func:`run_folder_config`), an older one whose rules no longer resolve, or a config whose map does not load
    (:func:`check_rules` names why) is not compared. Where the preset or rules file changed, every switch that
    differs is named. ``fresh_start`` says how the trainer starts a new run from the checkpoint's network.

    Raises:
        ConfigError: the game differs; the message names each switch that changed, both values, and ``fresh_start``.
    """
    from ..errors import RiskError
    from ..rules.config import STARTING_ARMIES
    from .config import rules_from

    saved = meta.get("config", {})
    given = saved.get("rules") if isinstance(saved.get("rules"), dict) else {}
    game = meta.get("game")
    kept_board = game.get("map") if isinstance(game, dict) else None
    try:
        if isinstance(game, dict):
            before = RulesConfig.from_dict(game.get("rules", {}))
            counts = sorted(game.get("player_counts") or [before.num_players])
        elif given:
            before = rules_from(given)
            env = saved.get("env")
            counts = sorted((env.get("player_counts") if isinstance(env, dict) else None) or [before.num_players])
        else:
            return
        if before.num_players != counts[0]:  # (older runs kept the rules at rules.num_players, not the first lane's)
            derived = before.starting_armies == STARTING_ARMIES[before.num_players]
            before = before.replace(num_players=counts[0], **({"starting_armies": None} if derived else {}))
    except (ConfigError, TypeError, KeyError):  # (an older run's rules that no longer resolve: nothing to compare)
        return
    try:
        playing = played_game(cfg)
    except RiskError:  # (a map that does not load: check_rules, next, names it and why)
        return
    now = RulesConfig.from_dict(playing["rules"])
    boards = isinstance(kept_board, str)  # (compared by fingerprint, not by name)
    skip = {"num_players", "map"} if boards else {"num_players"}
    differ = [k for k in before.differences(now) if k not in skip]
    if boards and str(kept_board).lower() != playing["map"]:
        differ.append("map")
    named = set(given) | set(cfg.rules)  # (the switches the configs name; the others follow from them)
    what = {k: f"rules.{k}={getattr(before, k)!r} -> {getattr(now, k)!r}" for k in differ}
    if "map" in what and before.map == now.map:
        what["map"] = f"rules.map={now.map!r}: the board differs from the checkpoint's (a map file edited since?)"
    changed = [what[k] for k in differ if k in named or k == "map"]
    if given and given.get("preset") != cfg.rules.get("preset") and differ:
        # (another preset or rules file: each switch it changes, which the configs do not name one by one)
        changed = [f"rules.preset={given.get('preset')!r} -> {cfg.rules.get('preset')!r}", *(what[k] for k in differ)]
    now_counts = playing["player_counts"]
    if counts != now_counts:  # (a switch that follows from the count, such as the starting armies, is not named)
        if len(counts) == len(now_counts) == 1 and not cfg.env.player_counts:
            changed.insert(0, f"rules.num_players={counts[0]} -> {now_counts[0]}")
        else:
            changed.append(f"env.player_counts={counts} -> {now_counts}")
    elif differ and not changed:
        changed = [what[k] for k in differ]
    if changed:
        raise ConfigError(
            f"--resume {resume!r} continues a run of other rules ({', '.join(changed)}): a resumed run plays its run's "
            f"game; resume it with its own rules, or {fresh_start}"
        )


def resumed_snapshots(meta: dict[str, Any], ckpt: Path, run_dir: Path, max_snapshots: int) -> list[str]:
    """The self-play snapshots a run resumed from ``ckpt`` plays against: those of the ``snapshots`` of its ``meta``
    that a pool of ``max_snapshots`` keeps (:func:`~risk_env.envs.opponents.kept_snapshots`; the files of the others
    may be gone), each read from the ``pool/`` of the run folder that holds ``ckpt`` where it is there (a run folder
    copied, moved or set aside by :func:`set_aside_later_branch`), else from the path the run recorded.

    Raises:
        ConfigError: a snapshot found in neither place; or one in ``run_dir/pool`` where the run resumes a checkpoint
            of another folder into ``run_dir``, so that :func:`prepare_run_folder` would move it aside with the run
            there.
    """
    own_pool = Path(os.path.abspath(ckpt)).parent.parent / "pool"
    found: list[str] = []
    for recorded in kept_snapshots(meta.get("snapshots", []), max_snapshots):
        here = own_pool / Path(recorded).name
        path = here if here.is_file() else Path(recorded)
        if not path.is_file():
            raise ConfigError(
                f"resuming {ckpt}: the self-play snapshot {Path(recorded).name} it plays against is neither in "
                f"{own_pool} nor at {recorded}; put it back in one of them"
            )
        if not _in_checkpoints_of(ckpt, run_dir) and _inside(path, run_dir / "pool"):
            raise ConfigError(
                f"resuming {ckpt} into {run_dir} would set the run there aside, and with it the self-play snapshot "
                f"{path} that the checkpoint plays against: resume it into its own folder (without --out) or another one"
            )
        found.append(str(path))
    return found


def adopted_snapshots(run_dir: Path, snapshots: Sequence[str]) -> list[tuple[str, str]]:
    """``(source, path)`` for each snapshot a resumed run plays against: where it lies outside ``run_dir/pool`` (a run
    resumed into another folder with ``--out``), the path its copy will have there, so that the new run folder stands
    on its own and a later change of the source run (a branch that writes a snapshot of the same name) does not
    change what it plays; else the snapshot itself. :func:`copy_adopted_snapshots` makes the copies."""
    pool = run_dir / "pool"
    return [(p, p if _inside(Path(p), pool) else str(pool / Path(p).name)) for p in snapshots]


def copy_adopted_snapshots(adopted: Sequence[tuple[str, str]]) -> int:
    """Copy each adopted snapshot (:func:`adopted_snapshots`) to its place in the run's ``pool/``, once the run
    folder is prepared; returns how many were copied.

    Raises:
        ConfigError: a file of another content is in the way, or a copy fails (the message names it).
    """
    copied = 0
    for source, path in adopted:
        if source == path:
            continue
        target = Path(path)
        try:
            if target.exists():
                if target.read_bytes() != Path(source).read_bytes():
                    raise ConfigError(f"cannot copy the self-play snapshot {source} to {target}: another file is there")
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
            copied += 1
        except OSError as e:
            raise ConfigError(f"cannot copy the self-play snapshot {source} to {target}: {e.strerror or e}") from None
    return copied


def _inside(path: Path, folder: Path) -> bool:
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))


def _in_checkpoints_of(ckpt: Path, run_dir: Path) -> bool:
    return os.path.realpath(ckpt.parent) == os.path.realpath(run_dir / "checkpoints")


def set_aside_later_branch(run_dir: Path, ckpt: Path) -> Path | None:
    """Move what ``run_dir`` holds past the step of ``ckpt`` into a new folder ``run_dir/later-<date>-<time>``, when a
    run resumes from an earlier checkpoint of its own folder: the checkpoints past it (with their ``.json``), the
    self-play snapshots past it, the evaluations past it (the lines of ``evals.jsonl``) and the final outputs
    (``model.*``, ``results.json``, ``final_eval``...). Left in place, a later ``--resume`` of the folder would go on
    from the abandoned branch, the new branch would overwrite its snapshots and models, and ``plot-training`` would
    draw both branches as one. The set-aside folder has a run folder's layout, so it can be resumed itself. Nothing
    is removed; a move that fails is undone.

    Returns the folder, or None where nothing lay past ``ckpt`` (or ``ckpt`` has no step in its name).

    Raises:
        ConfigError: a file could not be moved (the message names it; nothing has moved).
    """
    step = checkpoint_step(ckpt)
    if step is None:
        return None
    moves: dict[Path, Path] = {}  # (source -> name in the new folder; a .json beside both a .pt and a .zip, once)
    for p in checkpoints_in(run_dir / "checkpoints"):
        if (checkpoint_step(p) or 0) > step and not _same_file(p, ckpt):
            moves[p] = Path("checkpoints") / p.name
            if p.with_suffix(".json").is_file():
                moves[p.with_suffix(".json")] = Path("checkpoints") / p.with_suffix(".json").name
    pool = run_dir / "pool"
    snaps = sorted(p for p in pool.iterdir() if checkpoint_step(p, "snap_") is not None) if pool.is_dir() else []
    moves.update({p: Path("pool") / p.name for p in snaps if (checkpoint_step(p, "snap_") or 0) > step})
    evals = run_dir / "evals.jsonl"
    kept, later = _split_evals(evals, step) if evals.is_file() else ([], [])
    if not moves and not later:
        return None  # (resuming the newest checkpoint: the run goes on, and its final outputs are rewritten)
    final = [name for name in RUN_FILES if name != "evals.jsonl"]  # (the evaluations are split, not moved)
    moves.update({run_dir / name: Path(name) for name in final if (run_dir / name).exists()})
    earlier_snaps = [p for p in snaps if p not in moves and p.is_file()]
    original = evals.read_bytes() if later else b""

    def finish(aside: Path) -> None:
        # the snapshots the branch played before the step are copied (not linked: the new branch may write snapshots
        # of the same names), so the folder resumes on its own; its evaluations from the start, for its curves
        if earlier_snaps:
            (aside / "pool").mkdir(exist_ok=True)
        for p in earlier_snaps:
            shutil.copy2(p, aside / "pool" / p.name)
        if later:
            (aside / "evals.jsonl").write_bytes(_encoded(kept + later))
            _replace_bytes(evals, _encoded(kept))

    def undo() -> None:
        if later and evals.read_bytes() != original:
            _replace_bytes(evals, original)

    refusal = f"cannot set aside the run's files past {ckpt.name} in {run_dir}"
    return _move_aside(run_dir, "later", list(moves.items()), finish, undo, refusal, "those")


def _replace_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (a file beside it, then a rename)."""
    part = path.with_name(path.name + ".part")
    try:
        part.write_bytes(data)
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


def _encoded(lines: list[str]) -> bytes:
    return "".join(lines).encode("utf-8", "surrogateescape")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def _split_evals(evals: Path, step: int) -> tuple[list[str], list[str]]:
    """The lines of ``evals.jsonl`` at or before ``step``, and those past it (a line that does not read, as JSON with
    a ``timesteps`` count, stays; bytes that are not UTF-8 are kept as they are)."""
    kept: list[str] = []
    later: list[str] = []
    for line in evals.read_bytes().decode("utf-8", "surrogateescape").splitlines(keepends=True):
        try:
            t = json.loads(line).get("timesteps")
        except (ValueError, AttributeError, RecursionError):
            t = None
        (later if isinstance(t, int) and t > step else kept).append(line)
    return kept, later


def prepare_run_folder(run_dir: Path, ckpt: Path | None) -> str | None:
    """Clear the way in ``run_dir`` before a run writes there, and return the line for the run's log (None where
    nothing moved). Call it once every check has passed.

    * A fresh run (``ckpt`` None), or a run resumed from a checkpoint that is not in ``run_dir/checkpoints`` (another
      run's, or one set aside below ``run_dir``): an earlier run there moves aside whole (:func:`set_aside_earlier_run`).
    * A run resumed from a checkpoint in ``run_dir/checkpoints``: what lies past it moves aside
      (:func:`set_aside_later_branch`).

    Raises:
        ConfigError: files that could not be moved (nothing has moved).
    """
    if ckpt is None or not _in_checkpoints_of(ckpt, run_dir):
        aside = set_aside_earlier_run(run_dir)
        if aside is None:
            return None
        return f"{'a fresh run' if ckpt is None else f'resuming {ckpt}'} in {run_dir}: the earlier run's files moved to {aside}"
    later = set_aside_later_branch(run_dir, ckpt)
    if later is None:
        return None
    return f"resuming {ckpt.name}: the run's files past it moved to {later} (a later --resume of the folder goes on from here)"


def latest_checkpoint(path: Path) -> Path:
    """The checkpoint ``--resume path`` names: ``path`` itself (a file, with or without its suffix; each trainer
    checks what it holds), else the newest ``step_*`` checkpoint in ``path/checkpoints`` or ``path``.

    Raises:
        ConfigError: no checkpoint there.
    """
    if path.is_file():
        return path
    for suffix in (".zip", ".pt") if path.name else ():  # ("." and "/" name a folder, never a file without its suffix)
        if path.with_name(path.name + suffix).is_file():
            return path.with_name(path.name + suffix)
    for d in (path / "checkpoints", path):
        found = checkpoints_in(d)
        if found:
            return found[-1]
    raise ConfigError(
        f"--resume {str(path)!r}: no checkpoint there (give a step_*.zip or step_*.pt file, or a run directory with checkpoints/)"
    )


def checkpoint_meta(checkpoint: Path) -> dict[str, Any]:
    """The metadata saved beside a checkpoint (``step_N.json``: the config, the step...), or ``{}``
    when there is none.

    Raises:
        ConfigError: the file is not JSON text holding an object, or an entry a resume reads is not of its kind (step
            counts, the snapshot list, the wall seconds, the game played, the PFSP results); the message names the
            file.
    """
    mp = checkpoint.with_suffix(".json")
    if not mp.exists():
        return {}
    try:
        meta = json.loads(mp.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ConfigError(f"{mp}: cannot read the checkpoint's metadata ({type(e).__name__}: {e})") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("config", {}), dict):
        raise ConfigError(f"{mp}: a checkpoint's metadata is a JSON object with a 'config' mapping")
    for key in ("timesteps", "next_snapshot", "next_checkpoint", "next_eval"):
        value = meta.get(key, 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ConfigError(f"{mp}: the checkpoint's {key!r} is a step count (an integer >= 0), got {value!r}")
    listed = meta.get("snapshots", [])
    if not isinstance(listed, list) or not all(isinstance(x, str) and x for x in listed):
        raise ConfigError(f"{mp}: the checkpoint's 'snapshots' is a list of snapshot paths, got {str(listed)[:200]}")
    wall = meta.get("wall_seconds", 0.0)
    if not isinstance(wall, (int, float)) or isinstance(wall, bool) or not math.isfinite(wall) or wall < 0:
        raise ConfigError(f"{mp}: the checkpoint's 'wall_seconds' is a number of seconds >= 0, got {wall!r}")
    game = meta.get("game", {"rules": {}, "player_counts": []})
    counts = game.get("player_counts") if isinstance(game, dict) else None
    try:
        if not isinstance(game, dict) or not isinstance(game.get("rules"), dict):
            raise ConfigError("not a mapping with 'rules'")
        if game["rules"]:
            RulesConfig.from_dict(game["rules"])
        if (
            not isinstance(counts, list)
            or not all(type(n) is int and 2 <= n <= 6 for n in counts)
            or len(set(counts)) != len(counts)
        ):
            raise ConfigError(f"'player_counts' must be a list of distinct player counts from 2 to 6, got {str(counts)[:100]}")
        board = game.get("map", "0" * 64)
        if not isinstance(board, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", board):
            raise ConfigError(f"'map' must be the board's fingerprint (64 hex digits), got {str(board)[:100]}")
    except ConfigError as e:
        raise ConfigError(f"{mp}: the checkpoint's 'game' (the rules, player counts and board it played): {e}") from None
    kept = meta.get("pfsp", {})
    try:
        if not isinstance(kept, dict):
            raise ConfigError(f"'pfsp' must map a key to a tracker's state, got {type(kept).__name__}")
        for state in kept.values():
            PFSPTracker().load_state_dict(state)  # (read here, so a resume refuses it before the run folder)
    except ConfigError as e:
        raise ConfigError(f"{mp}: {e}") from None
    return meta
