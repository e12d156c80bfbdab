"""Training throughput: the on-device trainer against the SB3 reference path, in one run.

``python -m risk_env.train.bench`` (also ``python scripts/train.py --benchmark``) builds both
trainers from one training config (default: the shipped ``device`` config), with the same network
(the graph policy of ``ppo.graph_hidden`` and ``ppo.graph_rounds``) and the same PPO settings
(decisions per update, minibatch size, epochs, learning rate, discount, clipping, coefficients),
and times them in alternating windows:

* **device**: :class:`~risk_env.train.device_ppo.DevicePPO` on the batched engine
  (``env.n_envs`` slots x ``ppo.n_steps`` calls per update), every tensor on ``ppo.device``;
* **sb3**: sb3-contrib ``MaskablePPO`` with :class:`~risk_env.train.graph_policy.GraphPolicy` on the
  reference envs (``--sb3-envs`` single-agent envs in one process, ``DummyVecEnv``, as the sb3
  default config), with ``n_steps`` chosen so an update sees about as many learner decisions as
  the device trainer's (measured in its warm-up rollout: against opponents only the learner's
  seats' decisions of the ``env.n_envs x ppo.n_steps`` calls count).

A window is ``--updates`` rollouts and their updates; the figure per trainer is the median
over ``--repeats`` windows of learner decisions per second, and the ratio is device / sb3.

Both run plain PPO (no warm start, no teacher term: ``imitation`` and ``kickstart`` are ignored).
Opponents: each trainer plays the config's opponents; where the device trainer plays itself
(``opponents.baselines: [self]``, every decision a learner decision), the sb3 path plays
``--sb3-opponent``: ``random`` (the default, its cheapest opponent, which favours it) or ``self``
(its own self-play: a frozen MaskablePPO snapshot of the same network in every other seat).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .._output import check_output_file, write_json
from ..errors import ConfigError
from .config import SELF, TrainConfig, load_config

__all__ = ["BenchResult", "benchmark", "main"]


@dataclass
class BenchResult:
    """Learner decisions per second of each trainer (medians over the windows) and their ratio."""

    device: float
    sb3: float
    ratio: float
    decisions_per_update: int
    device_windows: list[float] = field(default_factory=list)
    sb3_windows: list[float] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    def table(self) -> str:
        s = self.settings

        def w(xs: list[float]) -> str:
            return ", ".join(f"{v:,.0f}" for v in xs)

        lines = [
            f"training throughput, learner decisions/s (median of {len(self.device_windows)} alternating windows "
            f"of {s['updates']} updates; {self.decisions_per_update} decisions per update)",
            f"  network: graph policy d={s['hidden']}, {s['rounds']} rounds; PPO: batch {s['batch_size']}, "
            f"{s['n_epochs']} epochs; device trainer in {s['precision']}, sb3 in float32; torch threads {s['threads']}",
            f"  device  ({s['device_desc']}): {self.device:>9,.0f}   windows {w(self.device_windows)}",
            f"  sb3     ({s['sb3_desc']}): {self.sb3:>9,.0f}   windows {w(self.sb3_windows)}",
            f"  ratio device / sb3: {self.ratio:.2f}x",
        ]
        return "\n".join(lines)


def _sb3_config(cfg: TrainConfig, envs: int, opponent: str, per_update: int) -> TrainConfig:
    """The sb3 path's config: ``envs`` envs and the ``n_steps`` closest to ``per_update`` decisions per update."""
    data = cfg.model_dump(mode="json")
    data["trainer"] = "sb3"
    data["env"]["n_envs"] = envs
    data["env"]["vec_env"] = "dummy"
    data["ppo"]["n_steps"] = max(2, round(per_update / envs))
    data["ppo"]["precision"] = "float32"
    data["ppo"]["init"] = None
    data["env"]["player_counts"] = None
    data["kickstart"]["enabled"] = data["imitation"]["enabled"] = False  # plain PPO on both sides
    if data["opponents"]["baselines"] == [SELF]:
        data["opponents"]["baselines"], data["opponents"]["weights"] = [opponent], None
    return TrainConfig.from_dict(data, source="sb3 benchmark config")


def _sb3_model(scfg: TrainConfig, venv: Any, device: Any) -> Any:
    """MaskablePPO with the graph policy and ``scfg``'s PPO settings on ``venv``."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from .graph_policy import GraphPolicy
    from .sb3 import ppo_hyperparameters

    sp = scfg.ppo
    model = MaskablePPO(
        GraphPolicy,
        venv,
        **ppo_hyperparameters(sp),
        policy_kwargs={"hidden": sp.graph_hidden, "rounds": sp.graph_rounds},
        seed=scfg.seed,
        device=device,
        verbose=0,
    )
    model.set_logger(Logger(folder=None, output_formats=[]))  # (SB3's own makes an empty SB3-<time> folder in the temp dir)
    return model


def _snapshot(cfg: TrainConfig, envs: int, per_update: int, path: Path) -> str:
    """A MaskablePPO file of a fresh network of ``cfg``'s sizes (the sb3 path's self-play opponent)."""
    from .sb3 import build_vec_env

    scfg = _sb3_config(cfg, envs, "random", per_update)
    venv = build_vec_env(scfg)
    try:
        _sb3_model(scfg, venv, "cpu").save(path)
    finally:
        venv.close()
    return str(path)


def benchmark(
    cfg: TrainConfig, updates: int = 2, repeats: int = 3, sb3_envs: int = 16, sb3_opponent: str = "random"
) -> BenchResult:
    """Time both trainers on ``cfg`` (module docstring).

    ``sb3_envs`` need not divide the device trainer's learner decisions per update: the sb3 path takes the
    ``n_steps`` (at least 2) that brings ``sb3_envs x n_steps`` nearest to them, and the result's
    ``decisions_per_update`` is the sb3 path's count, what each window's figures are per update.

    Raises:
        ConfigError: a config the device trainer refuses, rules no game is played under, ``updates``, ``repeats``
            or ``sb3_envs`` below 1, or an ``sb3_opponent`` that is neither ``self`` nor an agent spec, or one that
            does not load (a missing model file) or does not play the rules (all checked before anything is timed);
            a warm-up rollout with no learner decision.
    """
    from ..agents.registry import check_spec, load_agent
    from ..errors import RiskError, UnknownAgentError

    for option, value in (("--updates", updates), ("--repeats", repeats), ("--sb3-envs", sb3_envs)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"{option} must be an integer >= 1, got {value!r}")
    if cfg.trainer != "device":
        cfg = TrainConfig.from_dict({**cfg.model_dump(mode="json"), "trainer": "device"}, source="benchmark config")
    from .run import check_rules

    check_rules(cfg)  # (a map that does not load was a MapError traceback from the env's build)
    if sb3_opponent != SELF:
        try:
            check_spec(sb3_opponent)
        except UnknownAgentError as e:
            raise ConfigError(f"--sb3-opponent: {e}; or {SELF} (a frozen snapshot of the same network)") from None
        try:
            # (a missing model file was found when the sb3 path was built, after the warm-up; other rules at its first game)
            from ..envs.opponents import check_fits_game
            from ..rules.engine import Game

            check_fits_game([load_agent(sb3_opponent)], Game(cfg.rules_config))
        except RiskError as e:
            raise ConfigError(f"--sb3-opponent: {sb3_opponent!r} cannot be played: {e}") from None
    import torch

    from .device_ppo import DevicePPO
    from .device_train import build_env, build_network, ppo_settings, resolve_device
    from .sb3 import build_vec_env

    threads = cfg.torch_threads or 1
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    p = cfg.ppo
    device = resolve_device(p.device)
    settings = ppo_settings(cfg)
    env, seating = build_env(cfg, device)
    ppo = DevicePPO(env, build_network(cfg, env), settings, seed=cfg.seed + 1, seating=seating)
    ppo.learn_once()  # warm-up: allocations, first call of each op; and the learner's decisions per rollout
    per_update = ppo.num_timesteps
    if per_update == 0:  # (every figure would be 0 decisions/s)
        torch.set_num_threads(before)
        raise ConfigError(
            f"the device trainer's rollout of env.n_envs={cfg.env.n_envs} x ppo.n_steps={cfg.ppo.n_steps} calls made no "
            "learner decision (the opponents' turns took every call): give more env.n_envs or ppo.n_steps"
        )
    tmp = tempfile.TemporaryDirectory(prefix="risk_env_bench_")
    sb3_label = sb3_opponent
    if sb3_opponent == SELF:  # the sb3 path's self-play: a frozen MaskablePPO snapshot of the same network
        sb3_opponent = _snapshot(cfg, sb3_envs, per_update, Path(tmp.name) / "snapshot.zip")
    scfg = _sb3_config(cfg, sb3_envs, sb3_opponent, per_update)
    venv = build_vec_env(scfg)
    model = _sb3_model(scfg, venv, device)

    def run_device() -> float:
        t = time.perf_counter()
        start = ppo.num_timesteps
        for _ in range(updates):
            ppo.learn_once()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        return (ppo.num_timesteps - start) / (time.perf_counter() - t)

    def run_sb3() -> float:
        t = time.perf_counter()
        model.learn(updates * per_update, reset_num_timesteps=False)
        return updates * per_update / (time.perf_counter() - t)

    per_update = scfg.env.n_envs * scfg.ppo.n_steps
    try:
        model.learn(per_update)
        dev_w: list[float] = []
        sb3_w: list[float] = []
        for _ in range(repeats):
            dev_w.append(run_device())
            sb3_w.append(run_sb3())
    finally:
        venv.close()
        tmp.cleanup()
        torch.set_num_threads(before)
    d, s = statistics.median(dev_w), statistics.median(sb3_w)
    opp = cfg.opponents.baselines
    return BenchResult(
        device=d,
        sb3=s,
        ratio=d / s,
        decisions_per_update=per_update,
        device_windows=dev_w,
        sb3_windows=sb3_w,
        settings={
            "updates": updates,
            "hidden": p.graph_hidden,
            "rounds": p.graph_rounds,
            "batch_size": p.batch_size,
            "n_epochs": p.n_epochs,
            "threads": threads,
            "precision": p.precision,
            "device_desc": f"{cfg.env.n_envs} slots x {cfg.ppo.n_steps} calls on {device}, "
            + ("self-play" if opp == [SELF] else "vs " + "/".join(opp)),
            "sb3_desc": f"{sb3_envs} envs x {scfg.ppo.n_steps} steps, vs "
            + ("a frozen snapshot (self-play)" if sb3_label == SELF and opp == [SELF] else "/".join(scfg.opponents.baselines)),
            "players": cfg.rules_config.num_players,
        },
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m risk_env.train.bench``: print the throughput of both trainers and their ratio."""
    ap = argparse.ArgumentParser(
        prog="python -m risk_env.train.bench",
        description="Learner decisions per second of the on-device trainer and the SB3 reference path, "
        "same network and PPO settings, alternating windows (see docs/training.md).",
    )
    ap.add_argument(
        "--config", "-c", default="device", help="training config (path or shipped name; default: device, the on-device recipe)"
    )
    ap.add_argument("--set", "-s", action="append", default=[], metavar="KEY=VALUE", help="override a config key (repeatable)")
    ap.add_argument("--updates", type=int, default=2, help="rollouts + updates per timed window (default 2)")
    ap.add_argument("--repeats", type=int, default=3, help="windows per trainer; the median is reported (default 3)")
    ap.add_argument("--sb3-envs", type=int, default=16, help="single-agent envs of the sb3 path (default 16)")
    ap.add_argument(
        "--sb3-opponent",
        default="random",
        help="the sb3 path's opponent where the device trainer plays itself: random (default), self (a frozen snapshot "
        "of the same network), or an agent spec",
    )
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    try:
        check_output_file(args.json, "--json")  # before the run, not after it
        cfg = load_config(args.config, args.set)
        res = benchmark(cfg, args.updates, args.repeats, args.sb3_envs, args.sb3_opponent)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(res.table())
    if args.json:
        try:
            write_json(args.json, asdict(res), "--json")  # (checked above; its folder made once the figures are in)
        except ConfigError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
