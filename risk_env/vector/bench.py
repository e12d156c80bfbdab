"""Random-play throughput of the batched engine next to the reference engine, in one run
(``python -m risk_env.vector.bench --help``).

``bench_vector(...)`` returns one row per engine and batch size; the
reference row plays single games with ``Game`` + ``ActionCodec`` (mask, a
uniformly random legal id, step; a new game when one ends), the batched rows
play ``VectorEnv`` with a uniformly random legal id per slot (the ``k``-th
legal id for a uniform ``k``; masks and observations are computed every step,
auto-reset on).

>>> rows = bench_vector(batch_sizes=(4,), seconds=0.2, reference_seconds=0.2)
>>> [r["engine"] for r in rows]
['reference', 'vector']
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from .._output import check_output_file, write_json
from ..envs.codec import ActionCodec, Selection
from ..envs.observation import ObservationEncoder
from ..errors import SEED_LIMIT, ConfigError, RiskError, check_seed
from ..rules.config import RulesConfig
from ..rules.engine import Game
from ..rules.state import Phase
from .agents import random_legal
from .env import VectorEnv

__all__ = ["bench_vector", "format_rows"]


_CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _reference(cfg: RulesConfig, seconds: float, seed: int, observe: bool, clock: str = "wall") -> dict[str, Any]:
    now = _CLOCKS[clock]
    game = Game(cfg)
    codec = ActionCodec(game)
    enc = ObservationEncoder(game)
    rng = np.random.default_rng(seed)
    s = game.new_game(seed)
    sel = Selection()
    games = 0
    decisions = 0
    t0 = now()
    end = t0 + seconds
    while True:
        for _ in range(200):
            m = codec.mask(s, sel)
            if observe:
                enc.encode(s, game.current_player(s), sel)
            legal = np.flatnonzero(m)
            codec.step(s, int(legal[rng.integers(len(legal))]), sel, m)
            decisions += 1
            if s.phase == Phase.GAME_OVER:
                games += 1
                s = game.new_game(seed + games)
        if now() >= end:
            break
    dt = now() - t0
    return {"engine": "reference", "batch": 1, "decisions_per_s": decisions / dt, "decisions": decisions, "seconds": dt}


def _vector(
    cfg: RulesConfig,
    batch: int,
    seconds: float,
    seed: int,
    device: str,
    static: bool = False,
    cuda_graph: bool = False,
    clock: str = "wall",
) -> dict[str, Any]:
    now = _CLOCKS[clock]
    env = VectorEnv(batch, device=device, seed=seed, rules=cfg, check_actions=False, static=static, cuda_graph=cuda_graph)
    gen = torch.Generator(device=env.device)
    gen.manual_seed(seed + 1)
    out = env.reset()

    def pick(mask: torch.Tensor) -> torch.Tensor:  # a uniformly random legal id per slot
        return random_legal(mask, gen)

    for _ in range(20):  # warm-up
        out = env.step(pick(out.action_mask))
    steps = 0
    done = 0
    sync = env.device.type == "cuda"
    if sync:
        torch.cuda.synchronize(env.device)
    t0 = now()
    end = t0 + seconds
    while True:
        for _ in range(10):
            out = env.step(pick(out.action_mask))
            steps += 1
        done += int(out.autoreset.sum())
        if now() >= end:
            break
    if sync:
        torch.cuda.synchronize(env.device)
    dt = now() - t0
    return {
        "engine": "vector",
        "batch": batch,
        "device": str(env.device),
        "static": static,
        "cuda_graph": cuda_graph,
        "decisions_per_s": steps * batch / dt,
        "decisions": steps * batch,
        "seconds": dt,
        "state_bytes_per_game": env.memory_per_game(),
        "step_bytes_per_game": (env.observation_size * 4 + env.num_actions + 8 * (3 + env.num_players)),
    }


def bench_vector(
    batch_sizes: tuple[int, ...] = (1, 64, 1024, 4096),
    seconds: float = 3.0,
    reference_seconds: float = 3.0,
    device: str = "cpu",
    preset: str = "fast",
    seed: int = 0,
    reference: bool = True,
    threads: int | None = 1,
    repeats: int = 1,
    static: bool = False,
    cuda_graph: bool = False,
    clock: str = "wall",
    **rules: Any,
) -> list[dict[str, Any]]:
    """Random-play decisions/s of the reference engine and of ``VectorEnv`` at each batch size.

    With ``repeats > 1`` the runs alternate (the reference engine, then every batch size, then
    again) and each row gives the median of its runs (``runs`` lists them all): on a shared,
    noisy machine a ratio is only meaningful within one run, and a median of alternating runs
    is what the figures in docs/vector.md are.

    Args:
        batch_sizes: ``VectorEnv`` batch sizes to time.
        seconds: time per batch size and run; reference_seconds: time for the reference engine per run.
        device: torch device of the batched engine.
        preset, rules: the rules (default the ``fast`` preset, 4 players).
        reference: also time the reference engine (with masks and observations, as the batched engine gives).
        threads: torch intra-op threads while timing (restored after); None keeps the current setting.
            One thread is fastest on a small, busy CPU.
        repeats: alternating runs per row (the rows report medians).
        static: time ``VectorEnv(static=True)`` (every part of a step on the whole batch).
        cuda_graph: time ``VectorEnv(cuda_graph=True)`` (steps replayed as CUDA graphs; a CUDA device).
        clock: ``"wall"`` (elapsed time) or ``"cpu"`` (this process's CPU time: on a CPU shared with
            other jobs it counts the work done, not the time spent waiting for a core; with one
            thread both engines are measured alike). A CUDA device is always timed on the wall clock.

    Returns:
        rows of ``engine``, ``batch``, ``decisions_per_s`` (the median), ``runs`` (each run's
        decisions/s), ``decisions``, ``seconds``; batched rows also ``device``,
        ``state_bytes_per_game`` (the game state tensors), ``step_bytes_per_game`` (one step's
        observation, mask and outputs), ``ratio`` (the median of each run's ratio to the reference
        row of the same run) and ``ratios``.

    Raises:
        ConfigError: bad rules, a device that is not available, ``cuda_graph`` without a CUDA device, ``batch_sizes``
            that is no sequence of integers >= 1 (a tuple or a list), a batch that needs more memory than the device
            has (:class:`VectorEnv`), ``repeats`` < 1, ``seed`` not an integer >= 0 (nor ``seed + repeats - 1`` below
            2**32: run ``r`` seeds its engine with ``seed + r``), ``seconds`` or ``reference_seconds`` not a finite
            number above 0, ``threads`` neither None nor an integer >= 1; all checked before anything is timed.
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ConfigError(f"repeats must be an integer >= 1, got {repeats!r}")
    check_seed(seed, torch_seed=True)
    if seed + repeats - 1 >= SEED_LIMIT:
        raise ConfigError(
            f"seed + repeats - 1 must be below 2**32 (run r seeds the batched engine with seed + r), got seed={seed!r} "
            f"and repeats={repeats!r}"
        )
    if isinstance(batch_sizes, (str, bytes)) or not isinstance(batch_sizes, Sequence):
        raise ConfigError(
            f"batch_sizes must be a sequence of integers >= 1 (a tuple or a list: (4,) for one), "
            f"got {type(batch_sizes).__name__} {batch_sizes!r}"
        )
    for name, value in (("seconds", seconds), ("reference_seconds", reference_seconds)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
            raise ConfigError(f"{name} must be a finite number of seconds above 0, got {value!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ConfigError(f"threads must be an integer >= 1, or None (torch's current setting), got {threads!r}")
    bad = [b for b in batch_sizes if isinstance(b, bool) or not isinstance(b, int) or b < 1]
    if bad:
        raise ConfigError(f"batch sizes must be integers >= 1, got {bad[0]!r}")
    if clock not in _CLOCKS:
        raise ConfigError(f"clock={clock!r} is not allowed; choose one of: {', '.join(_CLOCKS)}")
    cfg = RulesConfig.from_preset(preset, **rules)
    if batch_sizes:  # the device, cuda_graph, the rules and the largest batch's memory, before the reference is timed
        checked = VectorEnv(1, device=device, rules=cfg, check_actions=False, static=static, cuda_graph=cuda_graph)
        checked.game.check_batch(max(batch_sizes), "batch size")
        vclock = "wall" if checked.device.type == "cuda" else clock
    else:
        vclock = clock
    runs: dict[int, list[dict[str, Any]]] = {b: [] for b in batch_sizes}
    refs: list[dict[str, Any]] = []
    before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        for r in range(repeats):
            if reference:
                refs.append(_reference(cfg, reference_seconds, seed + r, observe=True, clock=clock))
                refs[-1]["clock"] = clock
            for b in batch_sizes:
                row = _vector(cfg, b, seconds, seed + r, device, static, cuda_graph, vclock)
                row["clock"] = vclock
                row["threads"] = torch.get_num_threads()
                if reference:
                    row["ratio"] = row["decisions_per_s"] / refs[-1]["decisions_per_s"]
                runs[b].append(row)
    finally:
        torch.set_num_threads(before)
    rows: list[dict[str, Any]] = []
    if refs:
        rows.append(_median_row(refs))
    for b in batch_sizes:
        rows.append(_median_row(runs[b]))
    return rows


def _median_row(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of median decisions/s, with every run's figures and the median ratio."""
    order = sorted(runs, key=lambda r: r["decisions_per_s"])
    row = dict(order[(len(order) - 1) // 2]) if len(order) % 2 else dict(order[len(order) // 2 - 1])
    row["decisions_per_s"] = statistics.median(r["decisions_per_s"] for r in runs)
    row["runs"] = [r["decisions_per_s"] for r in runs]
    if "ratio" in runs[0]:
        row["ratios"] = [r["ratio"] for r in runs]
        row["ratio"] = statistics.median(row["ratios"])
    return row


def format_rows(rows: list[dict[str, Any]]) -> str:
    """A plain-text table of :func:`bench_vector` rows (medians, and each run when there are several)."""
    lines = [f"{'engine':<10} {'device':<7} {'batch':>6} {'decisions/s':>13} {'x ref':>7} {'state B/game':>13}  runs"]
    for r in rows:
        ratio = f"{r['ratio']:.1f}" if "ratio" in r else "1.0" if r["engine"] == "reference" else "-"
        mem = str(r.get("state_bytes_per_game", "-"))
        each = ""
        if len(r.get("runs", ())) > 1:
            each = ", ".join(f"{x:,.0f}" for x in r["runs"])
            if "ratios" in r:
                each += " (x " + ", ".join(f"{x:.1f}" for x in r["ratios"]) + ")"
        lines.append(
            f"{r['engine']:<10} {r.get('device', 'cpu'):<7} {r['batch']:>6} {r['decisions_per_s']:>13,.0f} {ratio:>7} "
            f"{mem:>13}  {each}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m risk_env.vector.bench``: the benchmark from the command line (``--help``)."""
    parser = argparse.ArgumentParser(
        prog="python -m risk_env.vector.bench",
        description=(
            "Random-play throughput of the batched engine (risk_env.vector.VectorEnv: masks and observations "
            "every step, a uniformly random legal id per slot, auto-reset) next to the reference engine "
            "(Game + ActionCodec + ObservationEncoder, one game at a time) in the same run; the median of "
            "alternating runs per batch size, and its ratio to the reference engine."
        ),
    )
    parser.add_argument("batch", nargs="*", type=int, default=[1024, 4096], help="batch sizes (default: 1024 4096)")
    parser.add_argument("--repeats", type=int, default=3, help="alternating runs per row; rows show medians (default: 3)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per batch size and run (default: 3)")
    parser.add_argument("--reference-seconds", type=float, default=3.0, help="seconds of the reference engine per run")
    parser.add_argument("--device", default="cpu", help="torch device of the batched engine (default: cpu)")
    parser.add_argument("--preset", default="fast", help="rules preset (default: fast)")
    parser.add_argument("--players", type=int, default=None, help="number of players (default: the preset's, else 4)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads while timing; 0 keeps torch's setting (default: 1)")
    parser.add_argument("--static", action="store_true", help="time VectorEnv(static=True): every part on the whole batch")
    parser.add_argument(
        "--cuda-graph", action="store_true", help="time VectorEnv(cuda_graph=True): steps replayed as CUDA graphs"
    )
    parser.add_argument(
        "--clock",
        choices=sorted(_CLOCKS),
        default="wall",
        help="wall: elapsed time (default); cpu: this process's CPU time (a CPU shared with other jobs)",
    )
    parser.add_argument("--no-reference", action="store_true", help="skip the reference engine")
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = parser.parse_args(argv)
    rules = {} if args.players is None else {"num_players": args.players}
    if args.threads < 0:
        parser.exit(2, f"error: --threads must be 0 (torch's current setting) or more, got {args.threads}\n")
    try:
        check_output_file(args.json, "--json")  # before the run, not after it; it creates nothing
        rows = bench_vector(
            tuple(args.batch),
            seconds=args.seconds,
            reference_seconds=args.reference_seconds,
            device=args.device,
            preset=args.preset,
            reference=not args.no_reference,
            threads=args.threads or None,
            repeats=args.repeats,
            static=args.static,
            cuda_graph=args.cuda_graph,
            clock=args.clock,
            **rules,
        )
    except RiskError as e:
        parser.exit(2, f"error: {e}\n")
    print(format_rows(rows))
    if args.json:
        try:
            write_json(args.json, rows, "--json")  # (checked before the run; its folder made now)
        except ConfigError as e:
            parser.exit(1, f"error: {e}\n")
    return 0


if __name__ == "__main__":  # python -m risk_env.vector.bench [batch ...] [--repeats 3] ...
    sys.exit(main())
