"""Random-play throughput of the batched engine next to the reference engine, in one run.

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

import time
from typing import Any

import numpy as np
import torch

from ..envs.codec import ActionCodec, Selection
from ..envs.observation import ObservationEncoder
from ..rules.config import RulesConfig
from ..rules.engine import Game
from ..rules.state import Phase
from .env import VectorEnv

__all__ = ["bench_vector", "format_rows"]


def _reference(cfg: RulesConfig, seconds: float, seed: int, observe: bool) -> dict[str, Any]:
    game = Game(cfg)
    codec = ActionCodec(game)
    enc = ObservationEncoder(game)
    rng = np.random.default_rng(seed)
    s = game.new_game(seed)
    sel = Selection()
    games = 0
    decisions = 0
    t0 = time.perf_counter()
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
        if time.perf_counter() >= end:
            break
    dt = time.perf_counter() - t0
    return {"engine": "reference", "batch": 1, "decisions_per_s": decisions / dt, "decisions": decisions, "seconds": dt}


def _vector(cfg: RulesConfig, batch: int, seconds: float, seed: int, device: str) -> dict[str, Any]:
    env = VectorEnv(batch, device=device, seed=seed, rules=cfg, check_actions=False)
    gen = torch.Generator(device=env.device)
    gen.manual_seed(seed + 1)
    out = env.reset()

    def pick(mask: torch.Tensor) -> torch.Tensor:  # a uniformly random legal id per slot
        k = mask.to(torch.uint8).cumsum(1, dtype=torch.uint8)
        total = k[:, -1]
        j = torch.minimum((torch.rand(mask.shape[0], generator=gen, device=env.device) * total).to(torch.uint8), total - 1)
        return (k > j[:, None]).to(torch.uint8).argmax(1)

    for _ in range(20):  # warm-up
        out = env.step(pick(out.action_mask))
    steps = 0
    done = 0
    sync = env.device.type == "cuda"
    if sync:
        torch.cuda.synchronize(env.device)
    t0 = time.perf_counter()
    end = t0 + seconds
    while True:
        for _ in range(10):
            out = env.step(pick(out.action_mask))
            steps += 1
        done += int(out.autoreset.sum())
        if time.perf_counter() >= end:
            break
    if sync:
        torch.cuda.synchronize(env.device)
    dt = time.perf_counter() - t0
    return {
        "engine": "vector",
        "batch": batch,
        "device": str(env.device),
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
    **rules: Any,
) -> list[dict[str, Any]]:
    """Random-play decisions/s of the reference engine and of ``VectorEnv`` at each batch size.

    Args:
        batch_sizes: ``VectorEnv`` batch sizes to time.
        seconds: time per batch size; reference_seconds: time for the reference engine.
        device: torch device of the batched engine.
        preset, rules: the rules (default the ``fast`` preset, 4 players).
        reference: also time the reference engine (with masks and observations, as the batched engine gives).
        threads: torch intra-op threads while timing (restored after); None keeps the current setting.
            One thread is fastest on a small, busy CPU.

    Returns:
        rows of ``engine``, ``batch``, ``decisions_per_s``, ``decisions``, ``seconds``;
        batched rows also ``device``, ``state_bytes_per_game`` (the game state tensors),
        ``step_bytes_per_game`` (one step's observation, mask and outputs) and
        ``ratio`` (to the reference row of the same run).
    """
    cfg = RulesConfig.from_preset(preset, **rules)
    rows: list[dict[str, Any]] = []
    ref = None
    before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        if reference:
            ref = _reference(cfg, reference_seconds, seed, observe=True)
            rows.append(ref)
        for b in batch_sizes:
            row = _vector(cfg, b, seconds, seed, device)
            row["threads"] = torch.get_num_threads()
            if ref is not None:
                row["ratio"] = row["decisions_per_s"] / ref["decisions_per_s"]
            rows.append(row)
    finally:
        torch.set_num_threads(before)
    return rows


def format_rows(rows: list[dict[str, Any]]) -> str:
    """A plain-text table of :func:`bench_vector` rows."""
    lines = [f"{'engine':<10} {'device':<7} {'batch':>6} {'decisions/s':>13} {'x ref':>7} {'state B/game':>13}"]
    for r in rows:
        ratio = f"{r['ratio']:.1f}" if "ratio" in r else "1.0" if r["engine"] == "reference" else "-"
        mem = str(r.get("state_bytes_per_game", "-"))
        lines.append(
            f"{r['engine']:<10} {r.get('device', 'cpu'):<7} {r['batch']:>6} {r['decisions_per_s']:>13,.0f} {ratio:>7} {mem:>13}"
        )
    return "\n".join(lines)


if __name__ == "__main__":  # python -m risk_env.vector.bench [batch ...]
    import sys

    sizes = tuple(int(x) for x in sys.argv[1:]) or (1, 64, 1024, 4096)
    print(format_rows(bench_vector(sizes)))
