"""Training curves: win rate against each evaluated opponent, over decisions and over wall time.

A run of :func:`risk_env.train.sb3.train` appends one line per periodic evaluation
to ``<run>/evals.jsonl``::

    {"timesteps": 250000, "wall_seconds": 412.3,
     "balanced": {"games": 20, "wins": 9, "win_rate": 0.45, "ci_low": 0.26, "ci_high": 0.66, ...}, ...}

and the final evaluation (more games) to ``<run>/results.json``. :func:`plot_runs`
draws, for one or more runs, the win rate against every opponent as a line with
its 95 % interval as a band and error bars, over learner decisions (left) and over wall time
(right; the time since the run started, evaluations included, a resumed run's time before its resume too), with the final
evaluation as a point with an error bar. Command line (``risk-env plot-training``; ``scripts/plot_training.py``
is the same command)::

    risk-env plot-training runs/sb3 runs/2p -o docs/training_curves.png

Runs resumed from a checkpoint restart their wall clock at 0 on resumption, so the
wall-time panel of a resumed run is only meaningful per segment.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = ["Curve", "load_curves", "plot_runs"]


@dataclass
class Curve:
    """One run's evaluations against one opponent (arrays of equal length, in evaluation order)."""

    run: str
    opponent: str
    timesteps: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    win_rate: list[float] = field(default_factory=list)
    ci_low: list[float] = field(default_factory=list)
    ci_high: list[float] = field(default_factory=list)
    games: list[int] = field(default_factory=list)
    final: dict[str, Any] | None = None  # the final evaluation (win_rate, ci_low, ci_high, games, timesteps, seconds)


def load_curves(run_dir: str | Path) -> list[Curve]:
    """The curves of one run directory (``evals.jsonl``, and ``results.json`` when present). A last line of
    ``evals.jsonl`` cut short (a run stopped while writing it) is left out.

    Raises:
        ConfigError: the directory has neither file, one that is not what a training run writes (the message
            names the file and line), or no evaluation in either.
    """
    d = Path(run_dir)
    if not d.is_dir():
        raise ConfigError(f"{d}: {'a file' if d.exists() else 'no such folder'}; give a training run's folder")
    evals, results = d / "evals.jsonl", d / "results.json"
    if not evals.exists() and not results.exists():
        raise ConfigError(f"{d}: no evals.jsonl or results.json (is it a training run directory?)")
    name = d.name
    curves: dict[str, Curve] = {}
    if evals.exists():
        lines = [(i, line) for i, line in enumerate(_text(evals).splitlines(), 1) if line.strip()]
        for k, (i, line) in enumerate(lines):
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, RecursionError, ValueError) as e:  # (too deep, or an int too long to read)
                # (a last row cut short by a stopped run: the rows before it stand)
                if k == len(lines) - 1 and isinstance(e, json.JSONDecodeError):
                    break
                raise ConfigError(f"{evals}, line {i}: not a JSON row of evaluations ({e})") from None
            if not isinstance(row, dict) or not any(isinstance(s, dict) for s in row.values()):
                raise ConfigError(f"{evals}, line {i}: not a row of evaluations (no opponent's figures in it)")
            try:
                t = _count(row["timesteps"], "timesteps")
                sec = float(row.get("wall_seconds", math.nan))
                for opp, s in row.items():
                    if not isinstance(s, dict):
                        continue
                    w, lo, hi = _rates(s)
                    c = curves.setdefault(opp, Curve(name, opp))
                    c.timesteps.append(t)
                    c.seconds.append(sec)
                    c.win_rate.append(w)
                    c.ci_low.append(lo)
                    c.ci_high.append(hi)
                    c.games.append(_count(s["games"], "games"))
            except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as e:
                raise ConfigError(f"{evals}, line {i}: not a row of evaluations ({type(e).__name__}: {e})") from None
    if results.exists():
        text = _text(results)  # (its own ConfigError, not wrapped in the one below)
        try:
            res = json.loads(text)
            for opp, s in (res.get("final_eval") or {}).items():
                w, lo, hi = _rates(s)
                c = curves.setdefault(opp, Curve(name, opp))
                c.final = {
                    "win_rate": w,
                    "ci_low": lo,
                    "ci_high": hi,
                    "games": _count(s["games"], "games"),
                    "timesteps": _count(res.get("timesteps", c.timesteps[-1] if c.timesteps else 0), "timesteps"),
                    # (the run's clock, resumes included, as evals.jsonl's; files of earlier builds: learn_seconds)
                    "seconds": float(res.get("wall_seconds", res.get("learn_seconds", math.nan))),
                }
        except (json.JSONDecodeError, RecursionError, KeyError, TypeError, ValueError, AttributeError, OverflowError) as e:
            raise ConfigError(f"{results}: not the results.json of a training run ({type(e).__name__}: {e})") from None
    if not curves:  # (an empty plot was written)
        raise ConfigError(f"{d}: no evaluation to plot yet (no complete row in evals.jsonl, no final_eval in results.json)")
    return list(curves.values())


def _count(x: Any, what: str) -> int:
    """A whole count of a run's files (decisions, games): an integer from 0 to 2**53 (``5.0`` reads as 5).

    Raises:
        ValueError: anything else, naming ``what``.
    """
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 <= x <= 2**53 or x != int(x):
        raise ValueError(f"{what} must be a whole number from 0 to 2**53, got {x!r}")
    return int(x)


def _rates(s: Mapping[str, Any]) -> tuple[float, float, float]:
    """``(win_rate, ci_low, ci_high)`` of an opponent's figures: numbers from 0 to 1 with ci_low <= win_rate <= ci_high.

    Raises:
        KeyError: one is missing; ValueError: one is out of range or the interval does not hold the rate.
    """
    w, lo, hi = (float(s[k]) for k in ("win_rate", "ci_low", "ci_high"))
    if not all(0.0 <= v <= 1.0 for v in (w, lo, hi)) or not lo <= w <= hi:
        raise ValueError(f"win_rate {w}, ci_low {lo} and ci_high {hi} must be from 0 to 1 with ci_low <= win_rate <= ci_high")
    return w, lo, hi


def _text(path: Path) -> str:
    if path.is_dir():
        raise ConfigError(f"{path}: a folder, where a training run writes a file")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot be read as UTF-8 text ({type(e).__name__}: {e})") from None


def image_suffixes() -> tuple[str, ...]:
    """The image file suffixes :func:`plot_runs` writes: ``".png"``, ``".svg"``, ``".pdf"``, then the rest of
    matplotlib's, sorted (less ``.pgf``, which needs a LaTeX installation).

    Raises:
        ImportError: matplotlib is not installed.
    """
    from matplotlib.backend_bases import FigureCanvasBase

    first = (".png", ".svg", ".pdf")
    rest = sorted(f".{k}" for k in FigureCanvasBase.get_supported_filetypes() if k != "pgf")
    return (*first, *(k for k in rest if k not in first))


def plot_runs(run_dirs: Sequence[str | Path], out: str | Path, title: str | None = None) -> Path:
    """Draw the curves of ``run_dirs`` (module docstring) into the image file ``out`` (PNG, SVG, PDF...).

    Returns:
        the path written.

    Raises:
        ConfigError: no run directories, one without evaluations or with files a run does not write, or an
            ``out`` that is no image file name (such as ``plots/x.txt`` or ``plots/p7``).
    """
    if not run_dirs:
        raise ConfigError("give at least one run directory")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    kinds = image_suffixes()
    if out.suffix.lower() not in kinds:  # (refused before drawing; no suffix: matplotlib would add .png)
        raise ConfigError(f"out {str(out)!r}: give an image file name ending in one of {', '.join(kinds)}")
    curves = [c for d in run_dirs for c in load_curves(d)]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    several = len(run_dirs) > 1
    for i, c in enumerate(curves):
        color = colors[i % len(colors)]
        label = f"{c.run}: vs {c.opponent}" if several else f"vs {c.opponent}"
        for ax, xs, fx in (
            (axes[0], c.timesteps, c.final["timesteps"] if c.final else None),
            (axes[1], [s / 60.0 for s in c.seconds], c.final["seconds"] / 60.0 if c.final else None),
        ):
            if xs:
                ax.plot(xs, c.win_rate, marker="o", ms=3, color=color, label=label)
                ax.fill_between(xs, c.ci_low, c.ci_high, color=color, alpha=0.18, lw=0)
                lo = [w - a for w, a in zip(c.win_rate, c.ci_low, strict=True)]
                hi = [b - w for w, b in zip(c.win_rate, c.ci_high, strict=True)]
                ax.errorbar(xs, c.win_rate, yerr=[lo, hi], fmt="none", ecolor=color, alpha=0.5, capsize=2)
            if c.final is not None and fx is not None and not math.isnan(fx):
                f = c.final
                ax.errorbar(
                    [fx],
                    [f["win_rate"]],
                    yerr=[[f["win_rate"] - f["ci_low"]], [f["ci_high"] - f["win_rate"]]],
                    fmt="s",
                    color=color,
                    capsize=3,
                    label=f"{label}, final ({f['games']} games)" if not xs else None,
                )
    axes[0].set_xlabel("learner decisions")
    axes[1].set_xlabel("wall time (minutes)")
    axes[0].set_ylabel("win rate (95% interval)")
    for ax in axes:
        ax.set_xlim(left=0)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8, loc="best")
    fig.suptitle(title or "Win rate against the evaluated opponents (squares: final evaluation)")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
