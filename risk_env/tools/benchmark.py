"""Speed benchmark: risk_env next to PettingZoo's own classic games, measured in one run.

    risk-env bench                              # full table (a few minutes); scripts/benchmark.py is the same command
    risk-env bench --quick                      # shorter windows, fewer rows
    risk-env bench --json results/bench.json

Every figure is a median over ``--repeats`` timed windows (``time.perf_counter``),
and the headline figures are ratios to PettingZoo's ``connect_four_v3``
measured by the same loop in the same run, so a noisy shared machine moves
both sides together. Nothing here is a pass/fail test.

Rows:

* ``aec``: AEC steps/s of ``risk_env.env()`` driven by random masked actions,
  with the loop of ``pettingzoo.test.performance_benchmark`` (``env.last()``,
  ``random.choice(np.flatnonzero(mask))``, ``env.step``), for 2, 4, 6 players
  and each rules preset; ``connect_four_v3`` and ``chess_v6`` by the same loop.
* ``engine``: bare engine decisions/s (mask, random legal id, codec step), no PettingZoo.
* ``games``: full games/s and mean steps per game (:func:`risk_env.tools.match.play_match`),
  random agents and the heuristic agents.
* ``micro``: microseconds per mask, observation, state copy, and serialize/restore round trip.
* ``scaling``: engine decisions/s and µs per mask/observation on the small
  map (9 territories), the classic map (42) and a generated 200-territory map.
* ``sb3``: steps/s of the single-agent SB3 env in a ``SubprocVecEnv`` over all cores.
* ``memory``: peak Python heap (tracemalloc) of building and resetting 1 and 64 envs.
* ``vector``: the batched engine (:mod:`risk_env.vector`, torch) at several batch sizes, random
  play with masks and observations, next to the reference engine timed by the same loop
  (:func:`risk_env.vector.bench.bench_vector`), with the game state's bytes per game.
"""

from __future__ import annotations

import functools
import math
import os
import platform
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable
from datetime import date
from typing import Any

import numpy as np

import risk_env
from risk_env import ActionCodec, Game, ObservationEncoder, Phase, RulesConfig
from risk_env._extras import require
from risk_env.agents import load_agent
from risk_env.envs.codec import Selection
from risk_env.envs.single_agent import RiskSingleAgentEnv
from risk_env.errors import check_seed
from risk_env.rules.config import preset_player_count
from risk_env.rules.map import map_from_dict
from risk_env.rules.state import GameState
from risk_env.tools.match import play_match

__all__ = ["run", "format_table", "aec_steps_per_second", "engine_decisions_per_second", "generated_map"]


def _median_rate(fn: Callable[[float], tuple[int, float]], seconds: float, repeats: int) -> float:
    rates = []
    for _ in range(repeats):
        n, dt = fn(seconds)
        rates.append(n / dt)
    return statistics.median(rates)


def aec_steps_per_second(make_env: Callable[[], Any], seconds: float = 2.0, repeats: int = 3, seed: int = 0) -> float:
    """AEC steps/s with the loop of ``pettingzoo.test.performance_benchmark`` (median of ``repeats`` windows)."""
    check_seed(seed)
    seed = int(seed)
    random.seed(seed)
    env = make_env()

    def window(secs: float) -> tuple[int, float]:
        env.reset(seed=seed)
        turn = 0
        start = time.perf_counter()
        while True:
            for agent in env.agent_iter(env.num_agents):
                obs, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    action = None
                elif isinstance(obs, dict) and "action_mask" in obs:
                    action = random.choice(np.flatnonzero(obs["action_mask"]).tolist())
                else:
                    action = env.action_space(agent).sample()
                env.step(action)
                turn += 1
                if all(env.terminations.values()) or all(env.truncations.values()):
                    env.reset()
            if time.perf_counter() - start > secs:
                return turn, time.perf_counter() - start

    return _median_rate(window, seconds, repeats)


def engine_decisions_per_second(game: Game, seconds: float = 2.0, repeats: int = 3, seed: int = 0) -> float:
    """Bare engine decisions/s: mask, random legal id, codec step; no PettingZoo."""
    check_seed(seed)
    codec = ActionCodec(game)
    rnd = random.Random(int(seed))

    def window(secs: float) -> tuple[int, float]:
        s = game.new_game(seed)
        sel = Selection()
        n = 0
        start = time.perf_counter()
        while True:
            for _ in range(500):
                m = codec.mask(s, sel)
                codec.step(s, rnd.choice(np.flatnonzero(m).tolist()), sel, m)
                n += 1
                if s.phase == Phase.GAME_OVER:
                    s = game.new_game(rnd.randrange(2**31))
            dt = time.perf_counter() - start
            if dt > secs:
                return n, dt

    return _median_rate(window, seconds, repeats)


def _positions(game: Game, count: int, seed: int = 0) -> list:
    codec = ActionCodec(game)
    rng = np.random.default_rng(seed)
    s = game.new_game(seed)
    sel = Selection()
    out: list[GameState] = []
    while len(out) < count:
        for _ in range(int(rng.integers(1, 40))):
            if s.phase == Phase.GAME_OVER:
                s = game.new_game(int(rng.integers(2**31)))
                sel.clear()
            codec.step(s, int(rng.choice(np.flatnonzero(codec.mask(s, sel)))), sel)
        out.append(s.copy())
    return out


def _us_per_call(fn: Callable[[Any], Any], items: list, repeats: int) -> float:
    best = []
    for _ in range(repeats):
        t = time.perf_counter()
        for it in items:
            fn(it)
        best.append((time.perf_counter() - t) / len(items) * 1e6)
    return statistics.median(best)


def micro_costs(game: Game, repeats: int = 5, positions: int = 2000) -> dict[str, float]:
    """Microseconds per mask, observation, state copy and serialize/restore round trip (median over positions)."""
    codec, enc = ActionCodec(game), ObservationEncoder(game)
    pos = _positions(game, positions)
    return {
        "mask_us": _us_per_call(codec.mask, pos, repeats),
        "observation_us": _us_per_call(lambda s: enc.encode(s, s.player), pos, repeats),
        "copy_us": _us_per_call(lambda s: s.copy(), pos, repeats),
        "serialize_restore_us": _us_per_call(lambda s: game.state_from_dict(s.to_dict()), pos[: max(1, positions // 4)], repeats),
    }


def generated_map(territories: int = 200, continent_size: int = 10, seed: int = 0) -> dict[str, Any]:
    """A connected grid-like map dict of about ``territories`` territories (for scaling runs)."""
    check_seed(seed)
    cols = int(math.ceil(math.sqrt(territories * 2)))
    rows = int(math.ceil(territories / cols))
    rng = np.random.default_rng(seed)
    names = [f"T{i}" for i in range(territories)]
    n_cont = int(math.ceil(territories / continent_size))
    terr = [
        {"name": names[i], "continent": f"C{i // continent_size}", "xy": [40 * (i % cols), 40 * (i // cols)]}
        for i in range(territories)
    ]
    borders = []
    for i in range(territories):
        r, c = divmod(i, cols)
        if c + 1 < cols and i + 1 < territories:
            borders.append([names[i], names[i + 1]])
        if r + 1 < rows and i + cols < territories:
            borders.append([names[i], names[i + cols]])
        if r + 1 < rows and c + 1 < cols and i + cols + 1 < territories and rng.random() < 0.3:
            borders.append([names[i], names[i + cols + 1]])
    return {
        "name": f"generated{territories}",
        "continents": [{"name": f"C{k}", "bonus": 2 + k % 4} for k in range(n_cont)],
        "territories": terr,
        "borders": borders,
        "canvas": [40 * cols, 40 * rows],
    }


def _games(agent_specs: list[str] | None, players: int, games: int, seed: int, rules: dict[str, Any]) -> dict[str, float]:
    env = risk_env.env(num_players=players, **rules)
    specs = agent_specs or ["random"]
    agents = [load_agent(specs[i % len(specs)], seed=seed + i) for i in range(players)]
    steps = 0
    t = time.perf_counter()
    for g in range(games):
        steps += play_match(env, agents, seed=seed + g, views=None).steps
    dt = time.perf_counter() - t
    return {"games_per_s": games / dt, "steps_per_game": steps / games, "steps_per_s": steps / dt}


def _sb3_rate(seconds: float) -> dict[str, float] | str:
    try:
        from stable_baselines3.common.vec_env import SubprocVecEnv

    except ImportError as e:  # the train extra (stable-baselines3) is not installed
        return f"skipped: {type(e).__name__}: {e}"
    n = os.cpu_count() or 1

    def make(i: int) -> Callable[[], Any]:
        return lambda: RiskSingleAgentEnv(num_players=2)

    try:
        venv = SubprocVecEnv([make(i) for i in range(n)])
    except Exception as e:
        return f"failed: {type(e).__name__}: {e}"
    try:
        venv.seed(0)
        venv.reset()
        rng = np.random.default_rng(0)
        steps = 0
        t = time.perf_counter()
        while time.perf_counter() - t < seconds:
            masks = np.stack(venv.env_method("action_masks"))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            venv.step(actions)
            steps += n
        dt = time.perf_counter() - t
    finally:
        venv.close()
    return {"envs": n, "steps_per_s": steps / dt}


def _memory(players: int = 4) -> dict[str, float]:
    out = {}
    for count in (1, 64):
        tracemalloc.start()
        envs = [risk_env.env(num_players=players) for _ in range(count)]
        for i, e in enumerate(envs):
            e.reset(seed=i)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out[f"peak_mib_{count}_envs"] = peak / 2**20
        del envs
    return out


def _vector_rows(batch_sizes: tuple[int, ...], seconds: float, ref: float) -> list[dict[str, Any]] | str:
    """The batched engine's rows (:func:`risk_env.vector.bench.bench_vector`), each with its ratio to
    the reference engine and to connect_four of this run; a reason string when torch is missing."""
    try:
        from ..vector.bench import bench_vector
    except ImportError as e:
        return f"skipped ({e.name or 'torch'} is not installed: pip install 'risk_env[train]')"
    rows = bench_vector(batch_sizes, seconds=seconds, reference_seconds=seconds)
    for r in rows:
        r["ratio_to_connect_four"] = r["decisions_per_s"] / ref
    return rows


def run(
    quick: bool = False, seconds: float = 2.0, repeats: int = 3, vector: bool = True, batch_sizes: tuple[int, ...] | None = None
) -> dict[str, Any]:
    """Run every row; returns a JSON-compatible dict (see the module docstring).

    ``vector`` adds the batched engine's rows (random play, ``fast`` preset, 4 players) at
    ``batch_sizes`` (default 1, 64, 1024, 4096; 1024 and 4096 with ``quick``), next to the
    reference engine timed by the same loop in the same run.

    Raises:
        MissingExtraError: chess or pygame is missing (``pip install 'risk_env[bench]'``).
        ConfigError: the largest batch size needs more memory than the machine has (checked before any row is timed).
    """
    if quick:
        seconds, repeats = min(seconds, 1.0), min(repeats, 3)
    for module in ("chess", "pygame"):  # PettingZoo's classic games, the reference rows
        require(module, "bench", "the benchmark")
    sizes = batch_sizes or ((1024, 4096) if quick else (1, 64, 1024, 4096))
    if vector:  # the largest batch's memory, before the rows before it are timed (it was refused after them)
        try:
            from ..vector import VectorGame
        except ImportError:  # (the rows say so: _vector_rows)
            pass
        else:
            VectorGame(RulesConfig.from_preset("fast", num_players=4)).check_batch(max(sizes), "batch size")
    from pettingzoo.classic import chess_v6, connect_four_v3

    res: dict[str, Any] = {
        "date": date.today().isoformat(),
        "machine": f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} cores".strip(),
        "python": platform.python_version(),
        "seconds_per_window": seconds,
        "repeats": repeats,
    }
    ref = aec_steps_per_second(connect_four_v3.env, seconds, repeats)
    res["connect_four_steps_per_s"] = ref
    res["chess_steps_per_s"] = aec_steps_per_second(chess_v6.env, seconds, repeats)
    aec = []
    player_counts = (2, 4, 6)
    presets = ["classic"] if quick else list(risk_env.PRESETS)
    for preset in presets:
        fixed = preset_player_count(preset)  # (duel and allied are 2-player presets)
        for n in player_counts if fixed is None else (fixed,):
            rate = aec_steps_per_second(functools.partial(risk_env.env, num_players=n, preset=preset), seconds, repeats)
            aec.append({"preset": preset, "players": n, "steps_per_s": rate, "ratio_to_connect_four": rate / ref})
    res["aec"] = aec
    eng = engine_decisions_per_second(Game(RulesConfig(num_players=4)), seconds, repeats)
    res["engine"] = {"players": 4, "decisions_per_s": eng, "ratio_to_connect_four": eng / ref}
    res["micro"] = micro_costs(Game(RulesConfig(num_players=4)), repeats=repeats, positions=500 if quick else 2000)
    scaling = []
    for label, cfg in (
        ("small (9)", RulesConfig(num_players=4, map="small")),
        ("classic (42)", RulesConfig(num_players=4)),
    ):
        g = Game(cfg)
        scaling.append({"map": label, "territories": g.T, **_scaling_row(g, seconds, repeats, quick)})
    big = Game(RulesConfig(num_players=4, starting_armies=100), game_map=map_from_dict(generated_map(200)))
    scaling.append({"map": "generated (200)", "territories": big.T, **_scaling_row(big, seconds, repeats, quick)})
    res["scaling"] = scaling
    games = [{"agents": "random", "players": 4, **_games(None, 4, 3 if quick else 10, 0, {})}]
    names = ["aggressive", "continent", "balanced", "random"]
    games.append({"agents": "+".join(names), "players": 4, **_games(names, 4, 3 if quick else 10, 0, {})})
    res["games"] = games
    res["sb3"] = _sb3_rate(seconds * 2)
    res["memory"] = _memory()
    if vector:
        res["vector"] = _vector_rows(tuple(sizes), max(seconds, 2.0), ref)
    return res


def _scaling_row(g: Game, seconds: float, repeats: int, quick: bool) -> dict[str, float]:
    costs = micro_costs(g, repeats=repeats, positions=300 if quick else 1000)
    rate = engine_decisions_per_second(g, seconds, repeats)
    return {
        "decisions_per_s": rate,
        "us_per_decision": 1e6 / rate,
        "mask_us": costs["mask_us"],
        "observation_us": costs["observation_us"],
    }


def format_table(res: dict[str, Any]) -> str:
    """Markdown tables of a :func:`run` result."""
    ref = res["connect_four_steps_per_s"]
    lines = [
        f"Measured {res['date']} on {res['machine']}, Python {res['python']}; "
        f"medians of {res['repeats']} windows of {res['seconds_per_window']} s.",
        "",
        "| AEC env (random masked actions, PettingZoo's benchmark loop) | steps/s | × connect_four |",
        "|---|---:|---:|",
        f"| PettingZoo connect_four_v3 | {ref:,.0f} | 1.00 |",
        f"| PettingZoo chess_v6 | {res['chess_steps_per_s']:,.0f} | {res['chess_steps_per_s'] / ref:.2f} |",
    ]
    for row in res["aec"]:
        lines.append(
            f"| risk_env.env, {row['preset']}, {row['players']} players | {row['steps_per_s']:,.0f} "
            f"| {row['ratio_to_connect_four']:.2f} |"
        )
    e = res["engine"]
    lines.append(
        f"| bare engine (mask + random id + step), 4 players | {e['decisions_per_s']:,.0f} | {e['ratio_to_connect_four']:.2f} |"
    )
    m = res["micro"]
    lines += [
        "",
        "| per call (classic, 4 players) | µs |",
        "|---|---:|",
        f"| action mask | {m['mask_us']:.1f} |",
        f"| observation | {m['observation_us']:.1f} |",
        f"| state copy | {m['copy_us']:.1f} |",
        f"| serialize + restore (with checks) | {m['serialize_restore_us']:.1f} |",
        "",
        "| map | territories | decisions/s | µs/decision | mask µs | observation µs |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in res["scaling"]:
        lines.append(
            f"| {r['map']} | {r['territories']} | {r['decisions_per_s']:,.0f} | {r['us_per_decision']:.1f} "
            f"| {r['mask_us']:.1f} | {r['observation_us']:.1f} |"
        )
    lines += ["", "| full games, 4 players | games/s | steps/game | steps/s |", "|---|---:|---:|---:|"]
    for g in res["games"]:
        if "skipped" in g:
            lines.append(f"| {g['agents']} | skipped: {g['skipped']} | | |")
        else:
            lines.append(f"| {g['agents']} | {g['games_per_s']:.2f} | {g['steps_per_game']:,.0f} | {g['steps_per_s']:,.0f} |")
    sb3 = res["sb3"]
    lines.append("")
    if isinstance(sb3, dict):
        lines.append(f"SB3 single-agent env in SubprocVecEnv ({sb3['envs']} envs): {sb3['steps_per_s']:,.0f} steps/s")
    else:
        lines.append(f"SB3 single-agent env: {sb3}")
    mem = res["memory"]
    lines.append(f"Peak Python heap: 1 env {mem['peak_mib_1_envs']:.2f} MiB, 64 envs {mem['peak_mib_64_envs']:.1f} MiB")
    vec = res.get("vector")
    if isinstance(vec, str):
        lines += ["", f"Batched engine: {vec}"]
    elif vec:
        lines += [
            "",
            "| random play, fast preset, 4 players | batch | decisions/s | × reference engine | × connect_four "
            "| state bytes/game |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for r in vec:
            name = (
                "reference engine (mask, observation, step)" if r["engine"] == "reference" else f"risk_env.vector ({r['device']})"
            )
            ratio = r.get("ratio", 1.0)
            lines.append(
                f"| {name} | {r['batch']:,} | {r['decisions_per_s']:,.0f} | {ratio:.2f} | {r['ratio_to_connect_four']:.2f} "
                f"| {r.get('state_bytes_per_game', '')} |"
            )
    return "\n".join(lines)
