"""risk_env.evaluate(..., backend="vector"): the batched evaluation against the reference one."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from vector_support import DEVICE, one_torch_thread  # noqa: F401 (the fixture applies to this module)

from risk_env import ConfigError, RiskError
from risk_env.tools.evaluation import evaluate
from risk_env.tools.stats import EvaluationResult

SMALL = dict(map="small", setup="random", turn_limit=60)
VEC = dict(backend="vector", device=str(DEVICE))


def _z(p1: float, n1: int, p2: float, n2: int) -> float:
    """The two-proportion z statistic."""
    p = (p1 * n1 + p2 * n2) / (n1 + n2)
    se = math.sqrt(max(p * (1 - p), 1e-12) * (1 / n1 + 1 / n2))
    return abs(p1 - p2) / se


def test_batched_evaluation_agrees_with_the_reference_one() -> None:
    """A learned policy (the shipped ppo-2p) against the balanced heuristic: 1,000 batched games and 100
    reference games give win rates within each other's 95 % intervals, and games of the same length."""
    pytest.importorskip("sb3_contrib", reason="the pretrained agent needs the train extra")
    vec = evaluate(["ppo-2p", "balanced"], num_games=1000, rules=SMALL, seed=3, **VEC, progress=False)
    ref = evaluate(["ppo-2p", "balanced"], num_games=100, rules=SMALL, seed=3, workers=1, progress=False)
    assert isinstance(vec, EvaluationResult) and vec.entrants == ref.entrants == ["ppo-2p", "balanced"]
    for name in vec.entrants:
        a, b = vec.stats[name], ref.stats[name]
        assert a.games == 1000 and b.games == 100
        assert a.ci_low <= b.win_rate <= a.ci_high or b.ci_low <= a.win_rate <= b.ci_high
        assert _z(a.win_rate, a.games, b.win_rate, b.games) < 3.0
    for attr in ("turns", "steps"):
        x = np.array([getattr(g, attr) for g in vec.games], dtype=float)
        y = np.array([getattr(g, attr) for g in ref.games], dtype=float)
        se = math.sqrt(x.var() / len(x) + y.var() / len(y))
        assert abs(x.mean() - y.mean()) < 4 * se, (attr, x.mean(), y.mean())


def test_batched_schedule_seats_and_records(tmp_path: Path) -> None:
    """Seats rotate (each entrant plays each seat equally often), every game is recorded once, a repeated
    spec is numbered, places follow the elimination order, the same seed repeats the evaluation, and the
    result saves like the reference one."""
    agents = ["aggressive", "continent", "aggressive"]
    kw = dict(num_games=90, rules={**SMALL, "num_players": 3}, seed=5, batch_size=30, progress=False, **VEC)
    res = evaluate(agents, out_dir=tmp_path, **kw)  # type: ignore[arg-type]
    assert res.entrants == ["aggressive", "continent", "aggressive#2"]
    assert [g.index for g in res.games] == list(range(90))
    seats = Counter((g.seats.index(name), name) for g in res.games for name in g.seats)
    assert set(seats.values()) == {30}  # 3 entrants x 3 seats, 30 games each
    for g in res.games:
        if g.winner is not None:
            assert g.places[g.winner] == 1 and len(g.elimination_order) == 2
            assert [g.places[e] for e in g.elimination_order] == [3, 2]
            assert g.territories[g.winner] == 9
        else:
            assert g.truncated and all(g.places[s] == 1 for s in g.seats if s not in g.elimination_order)
    assert sum(st.wins + st.draws + st.losses for st in res.stats.values()) == 3 * 90
    again = evaluate(agents, **kw)  # type: ignore[arg-type]
    assert [(g.winner, g.turns, g.steps) for g in again.games] == [(g.winner, g.turns, g.steps) for g in res.games]
    assert (tmp_path / "summary.csv").is_file() and (tmp_path / "results.json").is_file()


def test_batched_step_guard_stops_games_as_a_loss_for_the_staller() -> None:
    res = evaluate(["aggressive", "random"], num_games=8, rules=SMALL, seed=0, **VEC, max_turn_steps=3, progress=False)
    stalled = [g for g in res.games if g.stalled_by is not None]
    assert stalled and all(g.winner is None and not g.truncated for g in stalled)
    for g in stalled:
        other = next(s for s in g.seats if s != g.stalled_by)
        assert g.places[g.stalled_by] == 2 and g.places[other] == 1


def test_batched_evaluation_refuses_what_it_cannot_play() -> None:
    with pytest.raises(ConfigError, match="backend"):
        evaluate(["random", "random"], num_games=2, backend="gpu", progress=False)
    with pytest.raises(ConfigError, match="backend='reference'"):
        evaluate(["random", "risk_env.agents.random_agent:RandomAgent"], num_games=2, **VEC, progress=False)
    with pytest.raises(ConfigError, match="classic rules"):
        evaluate(["balanced", "random"], num_games=2, rules={"fortify": "connected"}, **VEC, progress=False)
    with pytest.raises(ConfigError, match="batch_size"):
        evaluate(["random", "random"], num_games=2, **VEC, batch_size=0, progress=False)


def test_cli_evaluate_on_the_vector_backend() -> None:
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from risk_env.tools.cli import app

    args = ["evaluate", "aggressive", "random", "--games", "20", "--rules", "fast", "--set", "map=small", "--no-progress"]
    result = CliRunner().invoke(app, [*args, "--backend", "vector", "--device", str(DEVICE), "--batch-size", "10"])
    assert result.exit_code == 0, result.output
    assert "aggressive" in result.output and "20 games" in result.output
    bad = CliRunner().invoke(app, [*args, "--backend", "gpu"])
    assert bad.exit_code != 0 and "--backend must be" in bad.output


def test_a_batched_policy_writing_into_its_mask_cannot_make_an_illegal_move() -> None:
    """A policy marks an illegal territory id legal in the mask it is given and plays it: the
    evaluation checks the id against its own mask and refuses it."""
    import torch

    T = 9  # territories of the small map

    class MaskWriter:
        name = "mask-writer"

        def __call__(self, state, mask, active=None):
            rows = torch.arange(mask.shape[0], device=mask.device)
            ids = (~mask[:, :T]).long().argmax(1)  # the first territory the mask forbids
            mask[rows, ids] = True
            return ids

    with pytest.raises(RiskError, match=r"entrant 0 chose the illegal id \d+"):
        evaluate([MaskWriter(), "random"], num_games=2, rules=SMALL, seed=0, **VEC, progress=False)
