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
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._output import folder_problem
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
    "set_aside_earlier_run",
    "set_aside_later_checkpoints",
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
    for opp in opponents:
        res = evaluate(
            [str(model_path)] + opponent_lineup(opp, n),
            num_games=games,
            rules=rules,
            seed=seed,
            workers=workers,
            progress=False,
            out_dir=(out_dir / _safe(opp)) if out_dir is not None else None,
            backend=backend,
        )
        st = res.stats[res.entrants[0]]
        out[opp] = EvalSummary(
            opp, st.games, st.wins, st.win_rate, st.ci_low, st.ci_high, st.draw_rate, res.mean_turns, res.seconds
        )
    return out


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
            checks.append((f"rules (num_players={n} of env.player_counts)", {**cfg.rules, "num_players": n}, batched))
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
    ``vector`` backend and of ``trainer: device``).

    Raises:
        ConfigError: the entry and why (an unknown name, a missing file, a spec the vector backend does not play,
            rules the batched heuristics do not play).
    """
    from ..errors import RiskError
    from .config import SELF

    ev = cfg.eval
    checks: list[tuple[str, str, str, RulesConfig]] = []  # (section, spec, backend, rules)
    train_backend = "vector" if cfg.trainer == "device" else cfg.env.backend
    for spec in cfg.opponents.baselines:
        if spec != SELF:
            checks.append(("opponents.baselines", spec, train_backend, cfg.rules_config))
    teacher_backend = "vector" if cfg.trainer == "device" else "reference"  # (the sb3 trainer's teachers: load_agent)
    for key, teaching in (("imitation.teacher", cfg.imitation), ("kickstart.teacher", cfg.kickstart)):
        if teaching.enabled:
            checks.append((key, teaching.teacher, teacher_backend, cfg.rules_config))
    if ev.final_games > 0 or ev.every > 0:
        checks += [("eval.opponents", spec, ev.backend, cfg.eval_rules_config) for spec in ev.opponents]
    games: dict[int, Any] = {}
    for section, spec, backend, rules in checks:
        for part in dict.fromkeys(opponent_lineup(spec, rules.num_players)):
            try:
                if backend == "vector":
                    from ..tools.vector_evaluation import batched_policy
                    from ..vector.engine import VectorGame

                    if id(rules) not in games:  # one game per rules object (a check of the spec: on the CPU)
                        games[id(rules)] = VectorGame(rules)
                    game = games[id(rules)]
                    batched_policy(part, game, game.generator)
                else:
                    from ..agents import load_agent

                    load_agent(part)
            except RiskError as e:
                raise ConfigError(f"{section}: {part!r} cannot be played: {e}") from None


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
            if t >= r.next_checkpoint:
                r.next_checkpoint += cfg.checkpoint.every
                r.save_checkpoint(self.model, t)
            if cfg.eval.every and t >= r.next_eval:
                r.next_eval += cfg.eval.every
                r.periodic_eval(self.model, t)
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
        self.stopped_early = False
        pf = cfg.opponents.pfsp
        self.pfsp: PFSPTracker | None = PFSPTracker(pf.power, pf.window) if pf.enabled else None
        self.next_pfsp = pf.update_every
        self.log_file = run_dir / "train.log"

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

    def add_snapshot(self, model: Any, t: int) -> None:
        path = self.dir / "pool" / f"snap_{t:09d}{self.suffix}"
        path.parent.mkdir(parents=True, exist_ok=True)
        model.save(path)
        self.snapshots.append(str(path))  # the pools drop old ones themselves (OpponentPool.add)
        self.venv.env_method("add_snapshot", str(path))
        self.log(f"self-play: snapshot {path.name} joins the opponent pool")

    def update_pfsp(self, model: Any) -> None:
        """Push the PFSP priorities to every env's opponent pool and log them."""
        if self.pfsp is None or not self.pfsp.results:
            return
        pr = self.pfsp.priorities()
        self.venv.env_method("set_opponent_priorities", pr)
        for k in pr:
            model.logger.record(f"pfsp/win_rate/{_safe(k)}", self.pfsp.win_rate(k))
            model.logger.record(f"pfsp/priority/{_safe(k)}", pr[k])

    def save_checkpoint(self, model: Any, t: int) -> Path:
        d = self.dir / "checkpoints"
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"step_{t:09d}{self.suffix}"
        model.save(path)
        meta = {
            "timesteps": int(t),
            "snapshots": self.snapshots,
            "next_snapshot": self.next_snapshot,
            "next_checkpoint": self.next_checkpoint,
            "next_eval": self.next_eval,
            "config": self.cfg.model_dump(mode="json"),
        }
        path.with_suffix(".json").write_text(json.dumps(meta, indent=1))
        keep = self.cfg.checkpoint.keep
        if keep is not None:
            old = checkpoints_in(d, (self.suffix,))[:-keep]
            for p in old:
                p.unlink(missing_ok=True)
                p.with_suffix(".json").unlink(missing_ok=True)
        self.log(f"checkpoint {path}")
        return path

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
                    f"{Path(k).name} scored {pf.win_rate(k):.0%} over {pf.games(k)} -> priority {v:.2f}"
                    for k, v in pf.priorities().items()
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
                        "wall_seconds": round(time.monotonic() - self.t_start, 1),
                        **{k: vars(v) for k, v in res.items()},
                    }
                )
                + "\n"
            )


def check_run_dir(run_dir: Path) -> None:
    """Refuse, before any training, a run folder (``--out``, ``out_dir``) that cannot be made or written: a file
    at its place, a file among the folders above it, a folder above it that this user may not write, a name longer
    than the file system takes, or a place where the system refuses new folders or files (``/proc``, ``/sys``, a
    read-only file system). The check is :func:`risk_env._output.folder_problem`'s, which leaves nothing behind.

    Raises:
        ConfigError: the run folder and the system's reason.
    """
    where = f"the run folder {str(run_dir)!r}"
    # (os.path's tests: False for a name the system cannot even look up, where Path's raise)
    if os.path.exists(run_dir) and not os.path.isdir(run_dir):
        raise ConfigError(f"{where} is a file: give another --out")
    why = folder_problem(run_dir)
    if why is not None:
        raise ConfigError(f"{where} cannot be made or written: {why}: give another --out")


RUN_OUTPUTS = (
    "checkpoints",
    "pool",
    "tb",
    "final_eval",
    "evals.jsonl",
    "results.json",
    "model.pt",
    "model.zip",
    "eval_model.pt",
    "eval_model.zip",
)
"""What a run writes in its folder besides ``config.yaml`` and ``train.log``: a fresh run into a folder that holds
them sets them aside (:func:`set_aside_earlier_run`)."""


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
    """
    if not ((run_dir / "config.yaml").is_file() and (run_dir / "train.log").is_file()):
        return None
    present = [name for name in RUN_OUTPUTS if (run_dir / name).exists() or (run_dir / name).is_symlink()]
    if not present:
        return None
    aside = _new_folder(run_dir, "earlier")
    for name in present:
        os.replace(run_dir / name, aside / name)
    os.replace(run_dir / "config.yaml", aside / "config.yaml")  # (its config, beside its files; the new one is written)
    return aside


def checkpoint_step(path: Path) -> int | None:
    """The step count in a checkpoint's name (``step_000250000.pt`` -> 250000), or None for another name."""
    digits = path.stem.removeprefix("step_")
    return int(digits) if digits != path.stem and digits.isdigit() else None


def checkpoints_in(folder: Path, suffixes: tuple[str, ...] = (".zip", ".pt")) -> list[Path]:
    """The ``step_*`` checkpoints in ``folder`` (not below it) with one of ``suffixes``, oldest first by their step
    count (so a run past 10^9 steps, whose names are longer, still sorts right). Empty where there is no such folder."""
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if p.suffix in suffixes and checkpoint_step(p) is not None and p.is_file()]
    return sorted(found, key=lambda p: (checkpoint_step(p), p.suffix))


def set_aside_later_checkpoints(run_dir: Path, ckpt: Path) -> Path | None:
    """Move the checkpoints (with their ``.json``) that ``run_dir/checkpoints`` holds past ``ckpt`` into a new folder
    ``run_dir/checkpoints/later-<date>-<time>``, when a run resumes from an earlier checkpoint of its own folder: left
    in place, a later ``--resume`` of the folder would continue the abandoned branch from its newest checkpoint, and
    the rotation would remove the new branch's checkpoints first. Nothing is removed. Call it once every check has
    passed.

    Returns the folder they went to, or None where ``ckpt`` is not in ``run_dir/checkpoints`` or is its newest.
    """
    d = run_dir / "checkpoints"
    step = checkpoint_step(ckpt)
    if step is None or not d.is_dir() or ckpt.parent.resolve() != d.resolve():
        return None
    later = [p for p in checkpoints_in(d) if (checkpoint_step(p) or 0) > step]
    if not later:
        return None
    aside = _new_folder(d, "later")
    for p in later:
        os.replace(p, aside / p.name)
        meta = p.with_suffix(".json")
        if meta.is_file():
            os.replace(meta, aside / meta.name)
    return aside


def prepare_run_folder(run_dir: Path, ckpt: Path | None) -> str | None:
    """Clear the way in ``run_dir`` before a run writes there: a fresh run (``ckpt`` None) sets an earlier run aside
    (:func:`set_aside_earlier_run`); a run resuming an earlier checkpoint of this folder sets its later checkpoints
    aside (:func:`set_aside_later_checkpoints`). Returns the line for the run's log, or None where nothing moved.
    Call it once every check has passed."""
    if ckpt is None:
        aside = set_aside_earlier_run(run_dir)
        return None if aside is None else f"a fresh run in {run_dir}: the earlier run's files moved to {aside}"
    later = set_aside_later_checkpoints(run_dir, ckpt)
    if later is None:
        return None
    return f"resuming {ckpt.name}: the checkpoints past it moved to {later} (a later --resume of the folder goes on from here)"


def latest_checkpoint(path: Path) -> Path:
    """The checkpoint ``--resume path`` names: ``path`` itself (a file, with or without its suffix; each trainer
    checks what it holds), else the newest ``step_*`` checkpoint in ``path/checkpoints`` or ``path``.

    Raises:
        ConfigError: no checkpoint there.
    """
    if path.is_file():
        return path
    for suffix in (".zip", ".pt"):
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
        ConfigError: the file is not JSON text holding an object (the message names the file).
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
    return meta
