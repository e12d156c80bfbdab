"""Evaluate agents against each other: many seeded games, statistics you can trust.

Python::

    from risk_env.tools.evaluation import evaluate
    result = evaluate(["balanced", "random"], num_games=100, rules="fast", seed=0)
    print(result.table())                       # win rates with 95 % Wilson intervals
    result.stats["balanced"].win_rate, result.stats["balanced"].ci
    result.save("results/balanced_vs_random")   # CSV + JSON + plot

Command line (``scripts/evaluate.py`` calls :func:`main`)::

    python scripts/evaluate.py balanced random --games 100 --rules fast --out results/x
    python scripts/evaluate.py random aggressive continent balanced --round-robin --games 100 --rules fast

Agents are *specs* (see :func:`risk_env.agents.load_agent`): a baseline name
(``random``, ``aggressive``, ``continent``, ``balanced``), a saved sb3-contrib
MaskablePPO model (``path/model.zip``), or ``module:callable``. With
``workers=1`` agent objects work too.

Design
    * One *entrant* per seat: ``num_players`` defaults to the number of specs
      and must equal it. Entrants are labelled by spec (``random``, ``model``);
      a repeated label gets ``#2``, ``#3``.
    * Seats rotate: games come in blocks of ``num_players``; within a block
      every game uses the same game seed (same deal, same turn order draw) and
      game ``r`` of the block shifts the entrants ``r`` seats, so each entrant
      plays each seat (and so each turn-order position) once per block. Use a
      multiple of ``num_players`` games for a balanced schedule.
    * Seeds: the game seed of block ``b`` is drawn from
      ``numpy.random.SeedSequence([seed, b])``; each agent is re-seeded before
      each game with a seed from ``SeedSequence([seed, game, seat, 1])``. Both
      are recorded per game; the same ``seed`` reproduces every game, whatever
      ``workers`` is.
    * Games that reach the turn limit are truncated: they are **draws**, a
      win for nobody. A win rate is wins / games; the draw rate is reported
      beside it. For ranks (elimination order, ratings) the survivors of a
      truncated game tie for first place.
    * A guard: a player turn may take at most ``max_turn_steps`` action ids
      (default 5000). The turn limit bounds turns, not a turn's sub-steps;
      the action codec has no cancel, so every turn of the shipped env ends
      after finitely many decisions and the guard never fires there, but it
      bounds an evaluation against a misbehaving custom env or codec. A game
      that hits the cap is stopped and recorded with ``stalled_by``: a loss
      for that entrant (ranked below the other survivors), a draw for the others.
    * Win-rate intervals are 95 % Wilson score intervals (no statistics
      library is required): with ``p = wins / n`` and ``z`` the standard
      normal 97.5 % quantile (1.95996...),
      ``(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)``.
      Games are treated as independent trials; games of one rotation block
      share a seed, which, if anything, makes the interval conservative.
    * Places: the winner is 1st; eliminated players rank by elimination (the
      first out is last). Ratings come from ``openskill``'s Plackett-Luce
      model, updated game by game in game order (``mu``, ``sigma`` and the
      conservative ``ordinal = mu - 3 sigma``).
    * Work is spread over a process pool (``spawn`` start method, safe with
      torch) of ``workers`` processes (default: every CPU core available);
      ``workers=1`` plays in this process. A tqdm bar shows progress.

Outputs of :meth:`EvaluationResult.save` (and ``--out``): ``summary.csv``
(one row per entrant), ``games.csv`` (one row per game), ``results.json``
(settings, summary, every game) and ``winrate.png`` (win-rate bars with the
95 % intervals).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

from .._extras import require
from ..envs.view import GameView
from ..errors import ConfigError, IllegalActionError, MissingExtraError, RiskError
from ..rules.config import PRESETS, RulesConfig

__all__ = [
    "evaluate",
    "round_robin",
    "play_game",
    "wilson_interval",
    "EvaluationResult",
    "EntrantStats",
    "GameRecord",
    "main",
]


# ---------------------------------------------------------------------- statistics
def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    Args:
        successes: ``k``, 0..trials.
        trials: ``n`` >= 0 (``n = 0`` gives ``(0, 1)``).
        confidence: two-sided level in (0, 1).

    Returns:
        ``(low, high)`` floats in [0, 1].

    Raises:
        RiskError: counts or level out of range.

    >>> [round(x, 4) for x in wilson_interval(0, 10)]     # upper = z²/(n + z²)
    [0.0, 0.2775]
    >>> [round(x, 4) for x in wilson_interval(8, 10)]
    [0.4902, 0.9433]
    """
    whole = isinstance(trials, (int, np.integer)) and isinstance(successes, (int, np.integer))
    if not whole or trials < 0 or not 0 <= successes <= trials:
        raise RiskError(f"need whole counts 0 <= successes <= trials, got successes={successes!r}, trials={trials!r}")
    if not 0.0 < confidence < 1.0:
        raise RiskError(f"confidence must be in (0, 1), got {confidence!r}")
    if trials == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    n = float(trials)
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends (no rounding residue)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


# ---------------------------------------------------------------------- records
@dataclass
class GameRecord:
    """One evaluated game.

    Attributes:
        index: game number in the evaluation (0-based); seed: the game's seed.
        seats: entrant label per seat (``player_i`` is seat ``i``).
        agent_seeds: the seed each seat's agent was reset with.
        winner: the winning entrant, or None (a draw).
        truncated: the turn limit ended the game.
        stalled_by: the entrant whose turn exceeded the per-turn step cap (the game was
            stopped: a loss for it, a draw for the other survivors), or None.
        turns: player turns played; steps: AEC steps (action ids) taken.
        elimination_order: entrants in the order they were eliminated.
        places: entrant -> place (1 best; survivors of a truncated game share 1).
        territories: entrant -> territories held at the end.
        seconds: wall time of the game.
    """

    index: int
    seed: int
    seats: list[str]
    agent_seeds: list[int]
    winner: str | None
    truncated: bool
    stalled_by: str | None
    turns: int
    steps: int
    elimination_order: list[str]
    places: dict[str, int]
    territories: dict[str, int]
    seconds: float


@dataclass
class EntrantStats:
    """Summary of one entrant over an evaluation (see the module docstring for definitions).

    Attributes:
        name, spec: label and the spec it was built from (``repr`` for objects).
        games, wins, draws, losses: counts (a draw: a game without a winner that it survived
            and did not stall; a loss: eliminated, or it stalled the game).
        win_rate: wins / games; ci_low, ci_high: its 95 % Wilson interval.
        draw_rate: draws / games.
        mean_place: mean finishing place (1 best); place_counts: games per place 1..n.
        eliminated: games it was eliminated in; first_out: games it was the first eliminated.
        mu, sigma, ordinal: openskill Plackett-Luce rating after all games.
    """

    name: str
    spec: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    win_rate: float = 0.0
    ci_low: float = 0.0
    ci_high: float = 1.0
    draw_rate: float = 0.0
    mean_place: float = 0.0
    place_counts: list[int] = field(default_factory=list)
    eliminated: int = 0
    first_out: int = 0
    mu: float = float("nan")
    sigma: float = float("nan")
    ordinal: float = float("nan")

    @property
    def ci(self) -> tuple[float, float]:
        return self.ci_low, self.ci_high


@dataclass
class EvaluationResult:
    """What :func:`evaluate` returns.

    Attributes:
        entrants: labels in spec order; specs: the specs as given (text form).
        num_players, num_games, seed, workers: the settings; rules: the rules as a dict.
        games: one :class:`GameRecord` per game, in game order.
        stats: entrant -> :class:`EntrantStats`.
        mean_turns, mean_steps: mean game length (all games); decided_mean_turns: over won games.
        draw_rate: share of games without a winner (turn limit or a stall); seconds: wall time.
    """

    entrants: list[str]
    specs: list[str]
    num_players: int
    num_games: int
    seed: int
    workers: int
    rules: dict[str, Any]
    games: list[GameRecord]
    stats: dict[str, EntrantStats]
    mean_turns: float
    mean_steps: float
    decided_mean_turns: float
    draw_rate: float
    seconds: float

    def win_rate(self, entrant: str) -> float:
        return self.stats[entrant].win_rate

    def table(self) -> str:
        """Markdown table: entrant, win rate [95 % CI], draws, mean place, rating."""
        rows = [
            "| agent | games | win rate | 95% CI | draws | mean place | first out | rating (mu ± sigma) |",
            "|---|---:|---:|---|---:|---:|---:|---|",
        ]
        for name in self.entrants:
            st = self.stats[name]
            rows.append(
                f"| {name} | {st.games} | {st.win_rate:.1%} | [{st.ci_low:.1%}, {st.ci_high:.1%}] | {st.draw_rate:.1%} | "
                f"{st.mean_place:.2f} | {st.first_out} | {st.mu:.1f} ± {st.sigma:.1f} |"
            )
        return "\n".join(rows)

    def summary(self) -> str:
        """Human-readable summary (settings line, table, game lengths)."""
        head = f"{self.num_games} games, {self.num_players} players, seed {self.seed}, rules " + ", ".join(
            f"{k}={v}" for k, v in self.rules.items() if RulesConfig.__dataclass_fields__[k].default != v
        )
        tail = (
            f"mean length: {self.mean_turns:.1f} turns, {self.mean_steps:.0f} steps "
            f"(won games: {self.decided_mean_turns:.1f} turns); games without a winner: {self.draw_rate:.1%}; "
            f"{self.seconds:.1f} s with {self.workers} worker(s)"
        )
        return f"{head}\n{self.table()}\n{tail}"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["stats"] = {k: asdict(v) for k, v in self.stats.items()}
        return d

    def save(self, out_dir: str | os.PathLike[str], plot: bool = True) -> dict[str, Path]:
        """Write ``summary.csv``, ``games.csv``, ``results.json`` and (if ``plot``) ``winrate.png``
        into ``out_dir`` (created). Returns name -> path."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths: dict[str, Path] = {}
        p = out / "summary.csv"
        cols = [
            "name",
            "spec",
            "games",
            "wins",
            "draws",
            "losses",
            "win_rate",
            "ci_low",
            "ci_high",
            "draw_rate",
            "mean_place",
            "eliminated",
            "first_out",
            "mu",
            "sigma",
            "ordinal",
        ]
        with p.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols + [f"place_{i + 1}" for i in range(self.num_players)])
            for name in self.entrants:
                st = asdict(self.stats[name])
                w.writerow([st[c] for c in cols] + st["place_counts"])
        paths["summary"] = p
        p = out / "games.csv"
        with p.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(
                [
                    "index",
                    "seed",
                    "seats",
                    "agent_seeds",
                    "winner",
                    "truncated",
                    "stalled_by",
                    "turns",
                    "steps",
                    "elimination_order",
                    "seconds",
                ]
            )
            for g in self.games:
                w.writerow(
                    [
                        g.index,
                        g.seed,
                        ";".join(g.seats),
                        ";".join(map(str, g.agent_seeds)),
                        g.winner or "",
                        int(g.truncated),
                        g.stalled_by or "",
                        g.turns,
                        g.steps,
                        ";".join(g.elimination_order),
                        f"{g.seconds:.3f}",
                    ]
                )
        paths["games"] = p
        p = out / "results.json"
        p.write_text(json.dumps(self.to_dict(), indent=1, default=_json_default))
        paths["json"] = p
        if plot:
            paths["plot"] = plot_win_rates(self, out / "winrate.png")
        return paths


def _json_default(x: Any) -> Any:
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    return str(x)


def plot_win_rates(result: EvaluationResult, path: str | os.PathLike[str]) -> Path:
    """Bar chart of win rates with 95 % Wilson error bars (and the draw rate), saved as PNG."""
    matplotlib = require("matplotlib", "eval", "the win-rate plot")
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    names = result.entrants
    wr = np.array([result.stats[n].win_rate for n in names])
    lo = np.array([result.stats[n].ci_low for n in names])
    hi = np.array([result.stats[n].ci_high for n in names])
    fig, ax = plt.subplots(figsize=(1.4 * len(names) + 2.5, 3.6), dpi=110)
    x = np.arange(len(names))
    ax.bar(x, wr, yerr=np.vstack([wr - lo, hi - wr]), capsize=5, color="#4878a8", label="win rate (95% Wilson CI)")
    ax.axhline(1.0 / result.num_players, color="grey", ls="--", lw=1, label=f"1/{result.num_players}")
    if result.draw_rate > 0:
        ax.bar(x, [result.stats[n].draw_rate for n in names], bottom=wr, color="#cccccc", alpha=0.7, label="draws")
    ax.set_xticks(x, names)
    ax.set_ylim(0, 1.18)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_ylabel("share of games")
    ax.set_title(f"{result.num_games} games, {result.num_players} players")
    ax.legend(fontsize=7, loc="upper center", ncol=3, frameon=False)
    fig.tight_layout()
    p = Path(path)
    fig.savefig(p)
    plt.close(fig)
    return p


# ---------------------------------------------------------------------- playing
DEFAULT_MAX_TURN_STEPS = 5000
"""Default cap on the action ids one player turn may take in an evaluated game (see :func:`play_game`)."""


def play_game(
    env: Any,
    agents: Mapping[str, Any],
    seed: int | None = None,
    agent_seeds: Mapping[str, int] | None = None,
    max_turn_steps: int = DEFAULT_MAX_TURN_STEPS,
) -> dict[str, Any]:
    """Play one game in a risk_env AEC env, giving every decision ``info["view"]``.

    Args:
        env: ``risk_env.raw_env`` or ``risk_env.env()`` (reset here with ``seed``).
        agents: agent name (``player_i``) -> agent (``act(observation, info) -> int``).
        seed: the game seed.
        agent_seeds: agent name -> seed for ``agent.reset``; without it agents are not reset.
        max_turn_steps: the game is stopped when one player turn takes more action ids than
            this (a guard: the turn limit bounds turns, not the steps inside a turn; with the
            shipped codec, which has no cancel, every turn ends after finitely many steps). The
            seat deciding when the cap is hit is reported as ``stalled_by``.

    Returns:
        dict with ``winner`` (seat or -1), ``truncated`` (turn limit), ``stalled_by`` (seat or -1),
        ``turns``, ``steps``, ``elimination_order`` (seats), ``territories`` (per seat),
        ``returns`` (agent -> summed reward; not updated for a stalled game's end).

    Raises:
        IllegalActionError: an agent chose an illegal action (with a strict env); the
            message names the agent and the game seed.
    """
    raw = env.unwrapped
    if agent_seeds is not None:
        for a, ag in agents.items():
            ag.reset(agent_seeds[a])
    env.reset(seed=seed)
    returns = {a: 0.0 for a in raw.possible_agents}
    steps = 0
    stalled_by = -1
    turn_mark, turn_steps = -1, 0
    game = raw.game
    for name in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        returns[name] += float(reward)
        if term or trunc:
            env.step(None)
            continue
        s = raw.game_state
        if s.turn != turn_mark:
            turn_mark, turn_steps = s.turn, 0
        turn_steps += 1
        if turn_steps > max_turn_steps:
            stalled_by = game.to_act(s)
            break
        agent = agents[name]
        act_info = dict(info)
        act_info["view"] = GameView(game, s, raw.agent_name_mapping[name], raw.codec)
        action = agent.act(obs, act_info)
        try:
            env.step(action)
        except IllegalActionError as e:
            raise IllegalActionError(f"agent {getattr(agent, 'name', agent)!r} ({name}, game seed {seed}): {e}") from None
        steps += 1
    s = raw.game_state
    n = raw.rules.num_players
    return {
        "winner": int(s.winner),
        "truncated": bool(s.truncated),
        "stalled_by": int(stalled_by),
        "turns": int(s.turn),
        "steps": steps,
        "elimination_order": [int(p) for p in s.elim_order],
        "territories": [int((s.owner == p).sum()) for p in range(n)],
        "returns": returns,
    }


def _labels(specs: Sequence[Any]) -> list[str]:
    from risk_env.agents import agent_label

    out: list[str] = []
    for sp in specs:
        base = agent_label(sp)
        name, k = base, 1
        while name in out:
            k += 1
            name = f"{base}#{k}"
        out.append(name)
    return out


def _spec_text(spec: Any) -> str:
    return spec if isinstance(spec, str) else str(spec) if isinstance(spec, os.PathLike) else repr(spec)


def _resolve_rules(
    rules: RulesConfig | str | Mapping[str, Any] | None, num_players: int, overrides: Mapping[str, Any]
) -> RulesConfig:
    if rules is None:
        cfg = RulesConfig.from_dict({"num_players": num_players, **overrides})
    elif isinstance(rules, RulesConfig):
        cfg = rules.replace(num_players=num_players, **overrides)
    elif isinstance(rules, str):
        cfg = RulesConfig.from_preset(rules, **{**overrides, "num_players": num_players})
    elif isinstance(rules, Mapping):
        d = dict(rules)
        preset = d.pop("preset", None)
        d.update(overrides)
        d["num_players"] = num_players
        cfg = RulesConfig.from_preset(preset, **d) if preset else RulesConfig.from_dict(d)
    else:
        raise ConfigError(
            f"rules must be a RulesConfig, a preset name ({', '.join(PRESETS)}), a dict or None, got {type(rules).__name__}"
        )
    return cfg


_WORKER: dict[str, Any] = {}


def _worker_init() -> None:
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    if "torch" in sys.modules:  # pragma: no cover - only with torch pre-imported
        sys.modules["torch"].set_num_threads(1)


def _setup(specs: Sequence[Any], rules: dict[str, Any]) -> tuple[Any, list[Any]]:
    import risk_env
    from risk_env.agents import load_agent

    key = repr((list(map(_spec_text, specs)), sorted(rules.items())))
    if _WORKER.get("key") != key:
        env = risk_env.raw_env(rules=RulesConfig.from_dict(rules), num_players=rules["num_players"])
        agents = [load_agent(sp) for sp in specs]
        _WORKER.clear()
        _WORKER.update(key=key, env=env, agents=agents)
    return _WORKER["env"], _WORKER["agents"]


def _play_jobs(
    specs: Sequence[Any],
    labels: Sequence[str],
    rules: dict[str, Any],
    jobs: Sequence[tuple[int, int, list[int], list[int]]],
    max_turn_steps: int = DEFAULT_MAX_TURN_STEPS,
) -> list[GameRecord]:
    """Play ``jobs`` (index, game seed, entrant per seat, agent seed per seat); module level for pickling."""
    env, agents = _setup(specs, rules)
    n = rules["num_players"]
    out = []
    for index, gseed, seating, aseeds in jobs:
        names = [f"player_{i}" for i in range(n)]
        seat_agents = {names[i]: agents[seating[i]] for i in range(n)}
        t0 = time.perf_counter()
        seeds = {names[i]: aseeds[i] for i in range(n)}
        r = play_game(env, seat_agents, seed=gseed, agent_seeds=seeds, max_turn_steps=max_turn_steps)
        dt = time.perf_counter() - t0
        seats = [labels[e] for e in seating]
        elim = [seats[p] for p in r["elimination_order"]]
        places: dict[str, int] = {}
        for k, p in enumerate(r["elimination_order"]):
            places[seats[p]] = n - k
        survivors = n - len(places)
        staller = seats[r["stalled_by"]] if r["stalled_by"] >= 0 else None
        if staller is not None:
            places[staller] = survivors  # below the other survivors, above the eliminated
        for i in range(n):
            places.setdefault(seats[i], 1)
        out.append(
            GameRecord(
                index=index,
                seed=gseed,
                seats=seats,
                agent_seeds=list(aseeds),
                winner=seats[r["winner"]] if r["winner"] >= 0 else None,
                truncated=r["truncated"],
                stalled_by=staller,
                turns=r["turns"],
                steps=r["steps"],
                elimination_order=elim,
                places=places,
                territories={seats[i]: r["territories"][i] for i in range(n)},
                seconds=dt,
            )
        )
    return out


def _schedule(num_games: int, n: int, seed: int) -> list[tuple[int, int, list[int], list[int]]]:
    jobs = []
    for g in range(num_games):
        block, rot = divmod(g, n)
        gseed = int(np.random.SeedSequence([seed, block]).generate_state(1, dtype=np.uint32)[0])
        seating = [(i + rot) % n for i in range(n)]  # seat i -> entrant
        aseeds = [int(np.random.SeedSequence([seed, g, i, 1]).generate_state(1, dtype=np.uint32)[0]) for i in range(n)]
        jobs.append((g, gseed, seating, aseeds))
    return jobs


def _check_out_dir(out_dir: str | os.PathLike[str]) -> None:
    """Create ``out_dir`` and check that files can be written there, before any game is played.

    Raises:
        ConfigError: the folder cannot be created or written (the message gives the system's reason).
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write_check"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise ConfigError(f"cannot write results to {os.fspath(out_dir)!r}: {e.strerror or e}") from None


class _NoBar:
    """Stands in for a tqdm bar when tqdm is not installed (or no bar is wanted)."""

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int, progress: bool) -> Any:
    """A tqdm bar over ``total`` games; none (silently) without tqdm, which is optional here."""
    if not progress:
        return _NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, desc="games", unit="game", leave=False)


def _summarize(labels: list[str], specs: list[str], games: list[GameRecord], n: int) -> dict[str, EntrantStats]:
    from openskill.models import PlackettLuce

    stats = {name: EntrantStats(name=name, spec=sp, place_counts=[0] * n) for name, sp in zip(labels, specs, strict=True)}
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in labels}
    for g in games:
        for name in g.seats:
            st = stats[name]
            st.games += 1
            place = g.places[name]
            st.place_counts[place - 1] += 1
            if g.winner == name:
                st.wins += 1
            elif name in g.elimination_order:
                st.losses += 1
                st.eliminated += 1
            elif g.stalled_by == name:
                st.losses += 1
            else:
                st.draws += 1
        if g.elimination_order:
            stats[g.elimination_order[0]].first_out += 1
        teams = [[ratings[name]] for name in g.seats]
        new = model.rate(teams, ranks=[g.places[name] for name in g.seats])
        for name, team in zip(g.seats, new, strict=True):
            ratings[name] = team[0]
    for name, st in stats.items():
        if st.games:
            st.win_rate = st.wins / st.games
            st.ci_low, st.ci_high = wilson_interval(st.wins, st.games)
            st.draw_rate = st.draws / st.games
            st.mean_place = sum((i + 1) * c for i, c in enumerate(st.place_counts)) / st.games
        r = ratings[name]
        st.mu, st.sigma, st.ordinal = float(r.mu), float(r.sigma), float(r.ordinal())
    return stats


def default_workers() -> int:
    """CPU cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def evaluate(
    agents: Sequence[Any],
    num_games: int = 100,
    num_players: int | None = None,
    rules: RulesConfig | str | Mapping[str, Any] | None = None,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
    out_dir: str | os.PathLike[str] | None = None,
    max_turn_steps: int = DEFAULT_MAX_TURN_STEPS,
    **rule_overrides: Any,
) -> EvaluationResult:
    """Play ``num_games`` games between ``agents`` (one per seat, seats rotated) and summarize.

    Args:
        agents: one spec per seat (see :func:`risk_env.agents.load_agent`); 2..6 of them.
        num_games: games to play (>= 1); a multiple of the player count balances the seats.
        num_players: must equal ``len(agents)`` if given.
        rules: a :class:`RulesConfig`, a preset name (``"fast"``), a dict of switches (may hold
            ``"preset"``), or None (the docs/rules.md defaults); ``num_players`` is set from the agents.
        seed: seeds every game and agent (see the module docstring).
        workers: processes (default every available core; 1 = in this process). Never more than
            the number of game chunks.
        progress: show a tqdm progress bar (when tqdm is installed; no bar otherwise).
        out_dir: if given, :meth:`EvaluationResult.save` there.
        max_turn_steps: per-turn cap on action ids (see :func:`play_game`); a game that hits it
            is stopped, a loss for the seat deciding then and a draw for the other survivors.
        **rule_overrides: rule switches applied on top (``turn_limit=200``, ``fortify="connected"``).

    Returns:
        an :class:`EvaluationResult`.

    Raises:
        RiskError / ConfigError: bad agents, counts or rules; IllegalActionError: an agent played
            an illegal action (the message names it and the game seed).
        ConfigError: ``out_dir`` cannot be created or written (checked before any game).
        MissingExtraError: openskill (or, with ``out_dir``, matplotlib) is missing
            (``pip install 'risk_env[eval]'``); checked before any game.
    """
    specs = list(agents)
    n = len(specs)
    if num_players is None:
        num_players = n
    if not isinstance(num_players, int) or not 2 <= num_players <= 6:
        raise ConfigError(f"num_players must be 2..6, got {num_players!r}")
    if n != num_players:
        raise ConfigError(
            f"give one agent per seat: {num_players} players need {num_players} agents, got {n} "
            "(repeat a spec to seat it several times, e.g. ['balanced', 'random', 'random', 'random'])"
        )
    if not isinstance(num_games, int) or isinstance(num_games, bool) or num_games < 1:
        raise ConfigError(f"num_games must be a positive integer, got {num_games!r}")
    if not isinstance(max_turn_steps, int) or max_turn_steps < 1:
        raise ConfigError(f"max_turn_steps must be a positive integer, got {max_turn_steps!r}")
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer, got {seed!r}")
    cfg = _resolve_rules(rules, num_players, rule_overrides)
    require("openskill", "eval", "risk_env.evaluate (ratings)")  # before any game is played
    if out_dir is not None:
        require("matplotlib", "eval", "the win-rate plot")
        _check_out_dir(out_dir)
    rules_d = cfg.to_dict()
    labels = _labels(specs)
    spec_texts = [_spec_text(sp) for sp in specs]
    from risk_env.agents import load_agent

    for sp in specs:  # fail fast, in this process, on a bad spec
        if isinstance(sp, str):
            load_agent(sp)
    jobs = _schedule(num_games, num_players, int(seed))
    if workers is None:
        workers = default_workers()
    if not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"workers must be a positive integer or None, got {workers!r}")
    chunk = max(1, min(num_players, math.ceil(num_games / (workers * 4))))
    chunks = [jobs[i : i + chunk] for i in range(0, len(jobs), chunk)]
    workers = min(workers, len(chunks))
    t0 = time.perf_counter()
    records: list[GameRecord] = []
    bar = _progress_bar(num_games, progress)
    try:
        if workers == 1:
            _WORKER.clear()
            for c in chunks:
                records.extend(_play_jobs(specs, labels, rules_d, c, max_turn_steps))
                bar.update(len(c))
            _WORKER.clear()
        else:
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init) as pool:
                futs = [pool.submit(_play_jobs, specs, labels, rules_d, c, max_turn_steps) for c in chunks]
                for fut in as_completed(futs):
                    part = fut.result()
                    records.extend(part)
                    bar.update(len(part))
    finally:
        bar.close()
    records.sort(key=lambda g: g.index)
    seconds = time.perf_counter() - t0
    stats = _summarize(labels, spec_texts, records, num_players)
    turns = np.array([g.turns for g in records], dtype=np.float64)
    steps = np.array([g.steps for g in records], dtype=np.float64)
    won = np.array([g.turns for g in records if g.winner is not None], dtype=np.float64)
    result = EvaluationResult(
        entrants=labels,
        specs=spec_texts,
        num_players=num_players,
        num_games=num_games,
        seed=int(seed),
        workers=workers,
        rules=rules_d,
        games=records,
        stats=stats,
        mean_turns=float(turns.mean()),
        mean_steps=float(steps.mean()),
        decided_mean_turns=float(won.mean()) if len(won) else float("nan"),
        draw_rate=float(np.mean([g.winner is None for g in records])),
        seconds=seconds,
    )
    if out_dir is not None:
        result.save(out_dir)
    return result


def round_robin(
    agents: Sequence[Any],
    num_games: int = 100,
    rules: RulesConfig | str | Mapping[str, Any] | None = None,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = True,
    out_dir: str | os.PathLike[str] | None = None,
    max_turn_steps: int = DEFAULT_MAX_TURN_STEPS,
    **rule_overrides: Any,
) -> dict[tuple[str, str], EvaluationResult]:
    """Every pair of ``agents`` in 2-player games: ``(a, b) -> evaluate([a, b], ...)``.

    Each pair uses the same ``seed``. With ``out_dir``, each pair is saved under
    ``out_dir/<a>_vs_<b>/`` and the matrix as ``out_dir/round_robin.md``.
    """
    from risk_env.agents import agent_label

    out: dict[tuple[str, str], EvaluationResult] = {}
    specs = list(agents)
    for i in range(len(specs)):
        for j in range(i + 1, len(specs)):
            a, b = specs[i], specs[j]
            la, lb = agent_label(a), agent_label(b)
            sub = None if out_dir is None else Path(out_dir) / f"{la}_vs_{lb}"
            res = evaluate(
                [a, b],
                num_games=num_games,
                rules=rules,
                seed=seed,
                workers=workers,
                progress=progress,
                out_dir=sub,
                max_turn_steps=max_turn_steps,
                **rule_overrides,
            )
            out[(res.entrants[0], res.entrants[1])] = res
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        (Path(out_dir) / "round_robin.md").write_text(round_robin_table(out) + "\n")
    return out


def round_robin_table(results: Mapping[tuple[str, str], EvaluationResult]) -> str:
    """Markdown: one row per pair: games, each side's win rate with its 95 % CI, draws, mean turns."""
    rows = [
        "| agent A | agent B | games | A wins [95% CI] | B wins [95% CI] | draws | mean turns |",
        "|---|---|---:|---|---|---:|---:|",
    ]
    for (a, b), r in results.items():
        sa, sb = r.stats[a], r.stats[b]
        rows.append(
            f"| {a} | {b} | {r.num_games} | {sa.win_rate:.1%} [{sa.ci_low:.1%}, {sa.ci_high:.1%}] | "
            f"{sb.win_rate:.1%} [{sb.ci_low:.1%}, {sb.ci_high:.1%}] | {r.draw_rate:.1%} | {r.mean_turns:.1f} |"
        )
    return "\n".join(rows)


# ---------------------------------------------------------------------- CLI
def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _overrides(items: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(
                f"--set takes KEY=VALUE (a RulesConfig switch), got {item!r}; switches: {', '.join(RulesConfig.options())}"
            )
        out[key.strip()] = _parse_value(value.strip())
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (``scripts/evaluate.py``); returns the exit status."""
    ap = argparse.ArgumentParser(
        prog="risk-env evaluate",
        description="Evaluate risk_env agents: seats rotated, seeds recorded, win rates with 95% Wilson intervals, "
        "openskill ratings.",
        epilog="Agents: random, aggressive, continent, balanced, path/to/model.zip (MaskablePPO), module:callable.",
    )
    ap.add_argument("agents", nargs="+", help="one agent spec per seat (or the pool with --round-robin)")
    ap.add_argument("--games", "-n", type=int, default=100, help="games (per pair with --round-robin); default 100")
    ap.add_argument("--players", type=int, default=None, help="must equal the number of agents (default: that number)")
    ap.add_argument("--rules", default=None, help=f"rules preset: {', '.join(PRESETS)} (default: the docs/rules.md defaults)")
    ap.add_argument("--turn-limit", type=int, default=None, help="override the turn limit (truncated games are draws)")
    ap.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", help="any RulesConfig switch, repeatable"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--max-turn-steps",
        type=int,
        default=DEFAULT_MAX_TURN_STEPS,
        help=f"guard: stop a game whose turn takes more action ids; default {DEFAULT_MAX_TURN_STEPS}",
    )
    ap.add_argument("--workers", type=int, default=None, help="processes (default: all cores; 1 = no pool)")
    ap.add_argument("--round-robin", action="store_true", help="play every pair of the agents in 2-player games")
    ap.add_argument("--out", default=None, help="folder for CSV, JSON and the plot")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    try:
        overrides = _overrides(args.overrides)
        if args.turn_limit is not None:
            overrides["turn_limit"] = args.turn_limit
        if args.round_robin:
            if len(args.agents) < 2:
                raise ConfigError("--round-robin needs at least 2 agents")
            res = round_robin(
                args.agents,
                num_games=args.games,
                rules=args.rules,
                seed=args.seed,
                workers=args.workers,
                progress=not args.no_progress,
                out_dir=args.out,
                max_turn_steps=args.max_turn_steps,
                **overrides,
            )
            print(round_robin_table(res))
        else:
            result = evaluate(
                args.agents,
                num_games=args.games,
                num_players=args.players,
                rules=args.rules,
                seed=args.seed,
                workers=args.workers,
                progress=not args.no_progress,
                out_dir=args.out,
                max_turn_steps=args.max_turn_steps,
                **overrides,
            )
            print(result.summary())
        if args.out:
            print(f"results written to {args.out}")
    except (RiskError, MissingExtraError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # results could not be written after all (disk full, removed folder)
        print(f"error: cannot write results to {args.out!r}: {e.strerror or e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
