"""Evaluation: Wilson intervals, seat rotation and seeds, draws, outputs, the CLI, the
baselines' strength against Random, and a trained SB3 checkpoint end to end."""

from __future__ import annotations

import csv
import json
import math
from statistics import NormalDist

import numpy as np
import pytest
from helpers import run_cli

from risk_env import Game, Phase, RulesConfig
from risk_env.agents import HEURISTICS, MaskablePPOAgent, load_agent
from risk_env.envs.codec import ActionCodec, Selection
from risk_env.envs.observation import ObservationEncoder
from risk_env.errors import ConfigError, RiskError
from risk_env.tools.evaluation import evaluate, round_robin, round_robin_table, wilson_interval

Z = NormalDist().inv_cdf(0.975)


# ---------------------------------------------------------------------- Wilson interval
def test_wilson_interval_known_values() -> None:
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(Z**2 / (10 + Z**2), rel=1e-12)  # closed form at k = 0
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0 and lo == pytest.approx(10 / (10 + Z**2), rel=1e-12)
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("k,n", [(8, 10), (50, 100), (3, 40), (199, 200)])
def test_wilson_bounds_solve_the_score_equation(k: int, n: int) -> None:
    # The Wilson bounds are the two p with |phat - p| = z sqrt(p (1 - p) / n).
    phat = k / n
    lo, hi = wilson_interval(k, n)
    for p in (lo, hi):
        assert abs(phat - p) == pytest.approx(Z * math.sqrt(p * (1 - p) / n), abs=1e-12)
    lo2, hi2 = wilson_interval(n - k, n)  # symmetric in successes and failures
    assert lo == pytest.approx(1 - hi2) and hi == pytest.approx(1 - lo2)
    assert lo < phat < hi


def test_wilson_rejects_bad_counts() -> None:
    with pytest.raises(RiskError):
        wilson_interval(5, 3)
    with pytest.raises(RiskError):
        wilson_interval(1, 3, confidence=1.5)


# ---------------------------------------------------------------------- schedule, draws, outputs
def test_seats_rotate_and_seeds_are_recorded_and_reproducible() -> None:
    kw = dict(num_games=6, rules="fast", turn_limit=40, seed=3, workers=1, progress=False)
    r = evaluate(["aggressive", "random", "continent"], **kw)
    assert [g.seats for g in r.games[:3]] == [
        ["aggressive", "random", "continent"],
        ["random", "continent", "aggressive"],
        ["continent", "aggressive", "random"],
    ]
    # one game seed per rotation block; agents re-seeded per game
    assert len({g.seed for g in r.games[:3]}) == 1 and r.games[3].seed != r.games[0].seed
    assert len({tuple(g.agent_seeds) for g in r.games}) == 6
    again = evaluate(["aggressive", "random", "continent"], **kw)
    assert [(g.winner, g.turns, g.steps, g.elimination_order) for g in r.games] == [
        (g.winner, g.turns, g.steps, g.elimination_order) for g in again.games
    ]
    for name in r.entrants:
        st = r.stats[name]
        assert st.games == 6 and st.wins + st.draws + st.losses == 6
        assert sum(st.place_counts) == 6
    assert sum(r.stats[n].wins for n in r.entrants) == sum(g.winner is not None for g in r.games)


def test_process_pool_matches_in_process() -> None:
    # (40 games in 20 chunks of 2: more than the 8 kept in flight, so chunks are submitted as others return)
    kw = dict(num_games=40, rules="fast", turn_limit=8, seed=1, progress=False)
    one = evaluate(["balanced", "random"], workers=1, **kw)
    two = evaluate(["balanced", "random"], workers=2, **kw)
    assert two.workers == 2 and [g.index for g in two.games] == list(range(40))

    def key(r):  # type: ignore[no-untyped-def]
        return [(g.seats, g.winner, g.turns, g.steps) for g in r.games]

    assert key(one) == key(two)


def test_the_schedule_is_made_as_it_is_played() -> None:
    from risk_env.tools.evaluation import _schedule

    # (a huge game count starts at once: it was built whole first, growing ~16 MB/s before the first game)
    first = next(_schedule(10**15, 3, 5, 2))
    assert [(g, seating) for g, _, seating, _ in first] == [(0, [0, 1, 2]), (1, [1, 2, 0])]
    chunks = list(_schedule(7, 3, 5, 2))
    assert [len(c) for c in chunks] == [2, 2, 2, 1] and [j[0] for c in chunks for j in c] == list(range(7))
    games = [j for c in chunks for j in c]
    assert games[0][1] == games[2][1] != games[3][1]  # (one deal per block of rotated seatings)


def test_truncated_games_are_draws() -> None:
    r = evaluate(["random", "random"], num_games=4, rules="fast", turn_limit=2, workers=1, progress=False)
    assert r.entrants == ["random", "random#2"]
    assert r.draw_rate == 1.0 and all(g.truncated and g.winner is None for g in r.games)
    for st in r.stats.values():
        assert (st.wins, st.draws, st.losses, st.win_rate, st.mean_place) == (0, 4, 0, 0.0, 1.0)
        assert st.ci_low == 0.0 and st.ci_high == pytest.approx(wilson_interval(0, 4)[1])


def _cycler(observation, info):  # type: ignore[no-untyped-def]
    """Selects the first legal id, and the last legal id ('end', once a cancel) whenever something is selected."""
    legal = np.flatnonzero(observation["action_mask"])
    src = info["view"].selection.src
    return int(legal[-1] if src >= 0 and info["view"].phase == Phase.ATTACK else legal[0])


def test_a_would_be_cycling_policy_cannot_stall_a_game() -> None:
    # Selecting a source and then 'end' used to cancel; the codec has no cancel any more, so
    # 'end' ends the attack phase and every turn finishes: no game hits the per-turn step cap.
    r = evaluate([_cycler, "random"], num_games=2, rules="fast", turn_limit=50, workers=1, progress=False, max_turn_steps=200)
    assert r.entrants == ["_cycler", "random"]
    for g in r.games:
        assert g.stalled_by is None
        assert g.truncated or g.winner is not None


def test_the_step_guard_stops_a_game_as_a_loss_for_the_staller() -> None:
    # a tiny per-turn cap makes the first turn of every game hit the guard
    r = evaluate(["aggressive", "random"], num_games=2, rules="fast", workers=1, progress=False, max_turn_steps=2)
    for g in r.games:
        assert g.stalled_by is not None and g.winner is None and not g.truncated and g.turns == 1
        other = next(x for x in g.seats if x != g.stalled_by)
        assert g.places == {g.stalled_by: 2, other: 1}
    stallers = [g.stalled_by for g in r.games]
    for name in r.entrants:
        st = r.stats[name]
        assert st.losses == stallers.count(name) and st.draws == 2 - st.losses and st.eliminated == 0
    assert r.draw_rate == 1.0


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ConfigError, match="one agent per seat"):
        evaluate(["random", "random"], num_players=3, num_games=1, workers=1, progress=False)
    with pytest.raises(ConfigError, match="num_games"):
        evaluate(["random", "random"], num_games=0)
    with pytest.raises(ConfigError, match="unknown rules preset"):
        evaluate(["random", "random"], num_games=1, rules="nope")
    with pytest.raises(RiskError, match="unknown agent"):
        evaluate(["random", "nobody"], num_games=1)


def test_outputs_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    r = evaluate(
        ["aggressive", "random"], num_games=4, rules="fast", turn_limit=60, seed=2, workers=1, progress=False, out_dir=tmp_path
    )
    with (tmp_path / "games.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(x["index"]) for x in rows] == [0, 1, 2, 3] and rows[0]["seats"] == "aggressive;random"
    with (tmp_path / "summary.csv").open() as f:
        summ = {row["name"]: row for row in csv.DictReader(f)}
    assert float(summ["aggressive"]["win_rate"]) == r.stats["aggressive"].win_rate
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["rules"]["turn_limit"] == 60 and len(data["games"]) == 4 and data["stats"]["random"]["games"] == 4
    assert (tmp_path / "winrate.png").stat().st_size > 1000
    assert "| aggressive |" in r.table() and "turns" in r.summary()
    # ratings: the winner of every game ends rated above the loser
    if r.stats["aggressive"].wins == 4:
        assert r.stats["aggressive"].mu > r.stats["random"].mu


def test_the_command(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "cli"
    args = ["continent", "random", "--games", "2", "--rules", "fast", "--turn-limit", "50", "-s", "fortify=connected"]
    code, text, _ = run_cli("evaluate", *args, "--workers", "1", "--no-progress", "--out", out)
    assert code == 0
    assert text.splitlines()[1].split() == ["agent", "games", "win", "rate", "95%", "CI", "draws", "mean", "place", "first"] + [
        "out",
        "rating",
        "(mu",
        "±",
        "sigma)",
    ]
    assert "fortify=connected" in text and (out / "results.json").exists() and text.endswith(f"results written to {out}\n")
    assert json.loads((out / "results.json").read_text())["rules"]["fortify"] == "connected"
    code, _, err = run_cli("evaluate", "random", "nobody", "--games", "1", "--no-progress")
    assert code == 2 and err.startswith("error: unknown agent 'nobody': use one of random, aggressive") and err.count("\n") == 1
    code, _, err = run_cli("evaluate", "random", "random", "--games", "1", "--set", "colour=blue", "--workers", "1")
    assert code == 2 and err.startswith("error: ") and "colour" in err


def test_the_reference_backend_refuses_an_explicit_cpu_device(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``device="cpu"`` / ``--device cpu`` was taken silently (it was the default, so it could not be told from none),
    while docs/vector.md says the reference backend refuses ``device``."""
    import inspect

    from risk_env.tools.cli import evaluate as command

    out = tmp_path / "out"
    for play in (evaluate, round_robin):
        assert inspect.signature(play).parameters["device"].default is None
        with pytest.raises(ConfigError) as info:
            play(["random", "random"], num_games=2, progress=False, out_dir=out, device="cpu")
        assert type(info.value) is ConfigError and str(info.value).startswith(
            "device='cpu': device and batch_size are arguments of backend='vector'"
        )
    assert inspect.signature(command).parameters["device"].default.default is None
    code, text, err = run_cli("evaluate", "random", "random", "--games", "2", "--no-progress", "--device", "cpu", "--out", out)
    assert (code, text) == (2, "") and err == (
        "error: --device cpu: --device and --batch-size are options of --backend vector (the reference backend would "
        "ignore them)\n"
    )
    assert not out.exists()


def test_round_robin_pairs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    res = round_robin(
        ["random", "aggressive", "balanced"],
        num_games=2,
        rules="fast",
        turn_limit=30,
        workers=1,
        progress=False,
        out_dir=tmp_path,
    )
    assert list(res) == [("random", "aggressive"), ("random", "balanced"), ("aggressive", "balanced")]
    table = round_robin_table(res)
    assert table.count("\n") == 4 and (tmp_path / "round_robin.md").read_text().strip() == table
    assert (tmp_path / "random_vs_aggressive" / "summary.csv").exists()


# ---------------------------------------------------------------------- baselines beat Random
@pytest.mark.parametrize("name", HEURISTICS)
def test_heuristic_beats_random_two_players(name: str) -> None:
    r = evaluate([name, "random"], num_games=16, rules="fast", turn_limit=150, seed=0, workers=1, progress=False)
    st = r.stats[name]
    assert st.ci_low > 0.5, r.summary()


def test_balanced_beats_three_randoms_four_players() -> None:
    r = evaluate(
        ["balanced", "random", "random", "random"], num_games=8, rules="fast", turn_limit=150, seed=0, workers=1, progress=False
    )
    assert r.stats["balanced"].ci_low > 0.5, r.summary()


# ---------------------------------------------------------------------- a trained SB3 checkpoint end to end
class _OneSeatEnv:
    """Minimal single-agent gymnasium env for the test: the learner is seat 0, seat 1 plays
    uniformly at random; +1 / -1 at the end, 0 at the turn limit."""

    def __new__(cls, *args, **kwargs):  # type: ignore[no-untyped-def]
        import gymnasium

        class OneSeat(gymnasium.Env):
            def __init__(self) -> None:
                self.game = Game(RulesConfig.from_preset("fast", num_players=2, turn_limit=20))
                self.codec = ActionCodec(self.game)
                self.enc = ObservationEncoder(self.game)
                self.observation_space = gymnasium.spaces.Box(0.0, np.inf, (self.enc.size,), np.float32)
                self.action_space = gymnasium.spaces.Discrete(self.codec.n)
                self.rng = np.random.default_rng(0)

            def _others(self) -> None:
                s = self.s
                while s.phase != Phase.GAME_OVER and self.game.current_player(s) != 0:
                    self.codec.step(s, int(self.rng.choice(np.flatnonzero(self.codec.mask(s, self.sel)))), self.sel)

            def reset(self, seed=None, options=None):  # type: ignore[no-untyped-def]
                super().reset(seed=seed)
                self.s = self.game.new_game(seed)
                self.sel = Selection()
                self._others()
                return self.enc.encode(self.s, 0, self.sel), {}

            def step(self, action):  # type: ignore[no-untyped-def]
                self.codec.step(self.s, int(action), self.sel)
                self._others()
                s = self.s
                over = s.phase == Phase.GAME_OVER
                reward = 0.0 if s.winner < 0 else (1.0 if s.winner == 0 else -1.0)
                return self.enc.encode(s, 0, self.sel), reward, over and s.winner >= 0, over and s.truncated, {}

            def action_masks(self) -> np.ndarray:
                return self.codec.mask(self.s, self.sel).astype(bool)

        return OneSeat()


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory):  # type: ignore[no-untyped-def]
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    model = MaskablePPO(
        "MlpPolicy", _OneSeatEnv(), n_steps=128, batch_size=64, n_epochs=1, seed=0, policy_kwargs={"net_arch": [32]}, device="cpu"
    )
    model.learn(total_timesteps=256)
    path = tmp_path_factory.mktemp("ckpt") / "tiny_ppo.zip"
    model.save(path)
    return path


def test_sb3_checkpoint_evaluates_end_to_end(tiny_checkpoint, tmp_path) -> None:  # type: ignore[no-untyped-def]
    agent = load_agent(str(tiny_checkpoint))
    assert isinstance(agent, MaskablePPOAgent) and agent.name == "tiny_ppo"
    kw = dict(num_games=2, rules="fast", turn_limit=20, seed=0, workers=1, progress=False, max_turn_steps=300)
    r = evaluate([str(tiny_checkpoint), "random"], out_dir=tmp_path, **kw)
    assert r.entrants == ["tiny_ppo", "random"]
    assert all(g.steps > 0 for g in r.games) and r.stats["tiny_ppo"].games == 2
    assert (tmp_path / "results.json").exists()
    # deterministic policy: the same evaluation again gives the same games
    again = evaluate([str(tiny_checkpoint), "random"], **kw)
    assert [(g.turns, g.steps, g.stalled_by) for g in r.games] == [(g.turns, g.steps, g.stalled_by) for g in again.games]
    # a policy trained for 2 players refuses a 3-player game with a clear message, before the game starts
    with pytest.raises(RiskError, match="^agent 'tiny_ppo' cannot play these rules: .* it was trained for another map, number"):
        evaluate([str(tiny_checkpoint), "random", "random"], num_games=1, rules="fast", turn_limit=5, workers=1, progress=False)


def test_in_process_evaluation_plays_with_one_torch_thread_and_restores_it():
    torch = pytest.importorskip("torch")
    seen: list[int] = []

    def first_legal(observation, info):
        seen.append(torch.get_num_threads())
        return int(np.flatnonzero(observation["action_mask"])[0])

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        evaluate([first_legal, "random"], num_games=2, rules="fast", turn_limit=3, workers=1, progress=False)
        assert seen and set(seen) == {1}  # more threads only spin for one observation at a time
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


# ---------------------------------------------------------------------- from any kind of main program
_RUN = """import risk_env
r = risk_env.evaluate(["random", "balanced"], num_games=4, workers=2, progress=False, seed=3,
                      map="small", setup="random", two_player="none", turn_limit=12)
print(r.workers, [g.winner for g in r.games])
"""
_OWN_AGENT = """import risk_env
from risk_env.agents import RandomAgent

class Mine(RandomAgent):
    pass

{call}risk_env.evaluate([Mine(), "random"], num_games=2, workers=2, progress=False, map="small", turn_limit=5)
{after}"""


def _python(tmp_path, code: str, how: str):  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    script = tmp_path / "evaluation_script.py"
    script.write_text(code)
    argv = [sys.executable, str(script)] if how == "file" else [sys.executable, "-"]
    return subprocess.run(argv, input=None if how == "file" else code, capture_output=True, text=True, timeout=300, cwd=tmp_path)


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_worker_processes_from_a_script_without_a_main_guard_or_from_stdin(tmp_path, how) -> None:  # type: ignore[no-untyped-def]
    proc = _python(tmp_path, _RUN, how)
    assert proc.returncode == 0, proc.stderr[-2000:]
    here = evaluate(
        ["random", "balanced"],
        num_games=4,
        workers=1,
        progress=False,
        seed=3,
        map="small",
        setup="random",
        two_player="none",
        turn_limit=12,
    )
    assert proc.stdout == f"2 {[g.winner for g in here.games]}\n"  # the same games as in this process


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_an_agent_defined_in_an_unguarded_main_stops_at_once_in_one_line(tmp_path, how) -> None:  # type: ignore[no-untyped-def]
    proc = _python(tmp_path, _OWN_AGENT.format(call="", after=""), how)
    assert proc.returncode == 1 and "BrokenProcessPool" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    if how == "file":
        assert last.startswith("risk_env.errors.ConfigError: agent Mine(") and "evaluation_script.py" in last
        assert "is not under 'if __name__ == \"__main__\":': put it there, or pass workers=1" in last
    else:
        assert "cannot import (standard input, -c, a notebook): pass workers=1" in last
    assert len(proc.stderr.splitlines()) < 15  # the user's line and ours, not every worker's traceback


_PLAIN_AGENT = """import numpy as np
import risk_env
from risk_env.agents import RandomAgent

class Mine(RandomAgent):
    pass

class First:  # what a user writes first: a class with act and nothing else
    def act(self, observation, info):
        return int(np.flatnonzero(observation["action_mask"])[0])

if __name__ == "__main__":
    r = risk_env.evaluate([First(), Mine()], num_games=2, workers=2, progress=False, map="small", turn_limit=5)
    print(r.workers, r.num_games, r.entrants)
"""


def test_an_agent_defined_in_a_guarded_script_reaches_the_workers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    proc = _python(tmp_path, _PLAIN_AGENT, "file")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == "2 2 ['First', 'random']\n"  # First was refused: "cannot make an agent from First <...>"


def test_a_result_prints_as_a_table_and_its_repr_is_short() -> None:
    r = evaluate(["aggressive", "random"], num_games=20, workers=1, progress=False, map="small", two_player="none")
    text = str(r)
    assert text == r.summary()
    lines = text.splitlines()
    assert lines[0].startswith("20 games, 2 players, seed 0, rules ")
    assert lines[1].split("  ")[0] == "agent" and "95% CI" in lines[1]
    agg = r.stats["aggressive"]
    assert lines[2].split() == [
        "aggressive",
        "20",
        f"{agg.win_rate:.1%}",
        f"[{agg.ci_low:.1%},",
        f"{agg.ci_high:.1%}]",
        f"{agg.draw_rate:.1%}",
        f"{agg.mean_place:.2f}",
        str(agg.first_out),
        f"{agg.mu:.1f}",
        "±",
        f"{agg.sigma:.1f}",
    ]
    assert lines[3].startswith("random ")
    end = lines[1].index("win rate") + len("win rate")  # numbers align right under their heading
    assert all(line[end - 1] == "%" and line[end] == " " for line in lines[2:4])
    assert len(repr(r)) < 250 and repr(r).startswith("EvaluationResult(entrants=['aggressive', 'random'], num_players=2")


def test_a_results_file_that_cannot_be_written_is_refused_before_any_game(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A folder named results.json (or winrate.png) in out_dir was found after every game, games.csv and summary.csv
    already overwritten; now nothing is played or written."""
    out = tmp_path / "out"
    (out / "results.json").mkdir(parents=True)
    (out / "games.csv").write_text("keep\n")
    small = {"map": "small", "turn_limit": 3, "setup": "random"}
    with pytest.raises(ConfigError, match=r"the results file '.*results\.json' is a folder; give a file name"):
        evaluate(["random", "random"], num_games=2, workers=1, progress=False, out_dir=out, **small)
    assert (out / "games.csv").read_text() == "keep\n" and sorted(p.name for p in out.iterdir()) == ["games.csv", "results.json"]
    rr = tmp_path / "rr"
    (rr / "random_vs_aggressive" / "winrate.png").mkdir(parents=True)
    with pytest.raises(ConfigError, match=r"random_vs_aggressive/winrate\.png' is a folder"):
        round_robin(["random", "balanced", "aggressive"], num_games=2, workers=1, progress=False, out_dir=rr, **small)
    assert sorted(p.name for p in rr.iterdir()) == ["random_vs_aggressive"]  # (no pair played before the refusal)
