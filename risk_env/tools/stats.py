"""Statistics and reports of an evaluation: win rates with Wilson intervals, places,
openskill ratings, tables, CSV/JSON files and the win-rate plot.

:mod:`risk_env.tools.evaluation` plays the games; this module turns the
:class:`EvaluatedGame` rows into :class:`EntrantStats` and an
:class:`EvaluationResult` (definitions in that module's docstring).
"""

from __future__ import annotations

import csv
import json
import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

from .._extras import require
from ..errors import RiskError
from ..rules.config import RulesConfig

__all__ = [
    "EntrantStats",
    "EvaluatedGame",
    "EvaluationResult",
    "plot_win_rates",
    "round_robin_table",
    "summarize",
    "wilson_interval",
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


# ---------------------------------------------------------------------- per game and per entrant
@dataclass
class EvaluatedGame:
    """One evaluated game (a row of ``games.csv``; the result of one seating, not a replayable record).

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
            and did not stall; a loss: eliminated, it stalled the game, or another player won
            while it survived, by a secret mission or the capitals, docs/rules.md §8).
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


@dataclass(repr=False)
class EvaluationResult:
    """What :func:`evaluate` returns. ``print(result)`` shows :meth:`summary` (a table); the repr is one
    short line (the entrants and settings, not every game).

    Attributes:
        entrants: labels in spec order; specs: the specs as given (text form).
        num_players, num_games, seed, workers: the settings; rules: the rules as a dict.
        games: one :class:`EvaluatedGame` per game, in game order.
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
    games: list[EvaluatedGame]
    stats: dict[str, EntrantStats]
    mean_turns: float
    mean_steps: float
    decided_mean_turns: float
    draw_rate: float
    seconds: float

    def win_rate(self, entrant: str) -> float:
        return self.stats[entrant].win_rate

    _COLUMNS = ("agent", "games", "win rate", "95% CI", "draws", "mean place", "first out", "rating (mu ± sigma)")

    def _rows(self) -> list[list[str]]:
        out = []
        for name in self.entrants:
            st = self.stats[name]
            out.append(
                [
                    name,
                    str(st.games),
                    f"{st.win_rate:.1%}",
                    f"[{st.ci_low:.1%}, {st.ci_high:.1%}]",
                    f"{st.draw_rate:.1%}",
                    f"{st.mean_place:.2f}",
                    str(st.first_out),
                    f"{st.mu:.1f} ± {st.sigma:.1f}",
                ]
            )
        return out

    def table(self, markdown: bool = True) -> str:
        """One row per entrant: games, win rate and its 95 % interval, draws, mean place, first out, rating.

        Args:
            markdown: a Markdown table (for docs); False: columns aligned with spaces (for a terminal).
        """
        rows = self._rows()
        if markdown:
            head = f"| {' | '.join(self._COLUMNS)} |\n|---|---:|---:|---|---:|---:|---:|---|"
            return "\n".join([head] + [f"| {' | '.join(r)} |" for r in rows])
        cells = [list(self._COLUMNS)] + rows
        widths = [max(len(r[i]) for r in cells) for i in range(len(self._COLUMNS))]
        left = (0, 3, 7)  # the agent, the interval and the rating read left to right; numbers align right
        return "\n".join(
            "  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
            for r in cells
        )

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (
            f"EvaluationResult(entrants={self.entrants!r}, num_players={self.num_players}, num_games={self.num_games}, "
            f"seed={self.seed}, win_rates={{{', '.join(f'{n!r}: {self.stats[n].win_rate:.3f}' for n in self.entrants)}}})"
        )

    def summary(self) -> str:
        """Human-readable summary: a settings line, the table aligned for a terminal, game lengths."""
        head = f"{self.num_games} games, {self.num_players} players, seed {self.seed}, rules " + ", ".join(
            f"{k}={v}" for k, v in self.rules.items() if RulesConfig.__dataclass_fields__[k].default != v
        )
        won_turns = "none" if self.decided_mean_turns != self.decided_mean_turns else f"{self.decided_mean_turns:.1f} turns"
        tail = (
            f"mean length: {self.mean_turns:.1f} turns, {self.mean_steps:.0f} steps "
            f"(won games: {won_turns}); games without a winner: {self.draw_rate:.1%}; "
            f"{self.seconds:.1f} s with {self.workers} worker(s)"
        )
        return f"{head}\n{self.table(markdown=False)}\n{tail}"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["stats"] = {k: asdict(v) for k, v in self.stats.items()}
        return d

    FILES = ("summary.csv", "games.csv", "results.json", "winrate.png")
    """The files :meth:`save` writes (``winrate.png`` with ``plot``)."""

    def save(self, out_dir: str | os.PathLike[str], plot: bool = True) -> dict[str, Path]:
        """Write ``summary.csv``, ``games.csv``, ``results.json`` and (if ``plot``) ``winrate.png`` (:attr:`FILES`)
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
        p.write_text(json.dumps(_finite(self.to_dict()), indent=1, default=_json_default, allow_nan=False))
        paths["json"] = p
        if plot:
            paths["plot"] = plot_win_rates(self, out / "winrate.png")
        return paths


def _finite(x: Any) -> Any:
    """``x`` with NaN floats as None (JSON's null: a mean over no games, such as won games' length when no
    game had a winner), so that ``results.json`` is strict JSON."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    if isinstance(x, (float, np.floating)) and x != x:
        return None
    return x


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


def summarize(labels: list[str], specs: list[str], games: list[EvaluatedGame], n: int) -> dict[str, EntrantStats]:
    """Per-entrant statistics of ``games`` (in game order) for ``n``-player games; ratings need openskill."""
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
            elif g.stalled_by == name or g.winner is not None:  # a survivor of another's mission win loses
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


def round_robin_table(results: Mapping[tuple[str, str], EvaluationResult]) -> str:
    """Markdown: one row per pair: games, each side's win rate with its 95 % CI, draws, mean turns."""
    rows = [
        "| agent A | agent B | games | A wins [95% CI] | B wins [95% CI] | draws | mean turns |",
        "|---|---|---:|---|---|---:|---:|",
    ]
    for (a, b), r in results.items():
        sa, sb = (r.stats[e] for e in r.entrants[:2])  # (the pair's own labels: the keys may carry "#2")
        rows.append(
            f"| {a} | {b} | {r.num_games} | {sa.win_rate:.1%} [{sa.ci_low:.1%}, {sa.ci_high:.1%}] | "
            f"{sb.win_rate:.1%} [{sb.ci_low:.1%}, {sb.ci_high:.1%}] | {r.draw_rate:.1%} | {r.mean_turns:.1f} |"
        )
    return "\n".join(rows)
