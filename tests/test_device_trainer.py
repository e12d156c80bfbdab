"""The on-device trainer (trainer: device): per-seat credit and advantages against an independent
reference, an end-to-end run with checkpoints, evaluation, resume and the policy as an agent,
reproducibility for a seed, and its config checks."""

from __future__ import annotations

import json
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from helpers import run_cli
from vector_support import DEVICE, one_torch_thread  # noqa: F401 (the fixture applies to this module)

from risk_env import RulesConfig
from risk_env.errors import ConfigError, RiskError
from risk_env.rules.map import load_map
from risk_env.train.config import TrainConfig, load_config
from risk_env.train.device_ppo import DevicePPO, PPOSettings
from risk_env.train.graph_net import GraphNet, load_policy, save_policy
from risk_env.train.run import latest_checkpoint
from risk_env.vector.engine import available_devices
from risk_env.vector.learner import LearnerEnv


# ---------------------------------------------------------------------------- advantages
def _reference(
    seats: np.ndarray, valid: np.ndarray, rewards: np.ndarray, ended: np.ndarray, values: np.ndarray, L: int, g: float, lam: float
):
    """Per-seat GAE over consecutive rollouts of ``L`` calls, written out decision by decision.

    ``valid``: the learner's decisions (the others are opponents'). Returns
    ``{(rollout, call, slot): (advantage, value_target)}`` for every learner decision, keyed by the
    rollout whose update uses it (a decision is used once its successor or its episode's end is seen).
    """
    C, B = seats.shape
    n = rewards.shape[2]
    out = {}
    for b in range(B):
        for p in range(n):
            calls = [c for c in range(C) if seats[c, b] == p and valid[c, b]]
            info = []
            for i, c in enumerate(calls):
                nxt = calls[i + 1] if i + 1 < len(calls) else C
                r, term, end_call = 0.0, False, None
                for u in range(c, nxt):
                    r += float(rewards[u, b, p])
                    if ended[u, b, p]:
                        term, end_call = True, u
                        break
                ready = (end_call // L) if term else (nxt // L if nxt < C else None)
                info.append((c, r, term, ready))
            adv_next = None
            for i in range(len(info) - 1, -1, -1):
                c, r, term, ready = info[i]
                if ready is None:
                    adv_next = None
                    continue
                v = float(values[c, b])
                if term:
                    a = r - v
                else:
                    c2, _, _, ready2 = info[i + 1]
                    a = r + g * float(values[c2, b]) - v
                    if ready2 == ready and adv_next is not None:
                        a += g * lam * adv_next
                out[(ready, c, b)] = (a, a + v)
                adv_next = a
    return out


@pytest.mark.parametrize(
    ("players", "opponents"), [(2, None), (3, None), (3, "random"), (2, "seated:aggressive"), (3, "seated:random")]
)
def test_advantages_follow_each_seat_over_rollout_boundaries(players: int, opponents: str | None) -> None:
    # the small map and a short turn limit: games end within the rollouts (terminals, truncations, new games);
    # self-play (every seat a learner), one learner seat against opponents played inside the env's calls,
    # and one learner seat against opponents answering in the same calls (a Seating)
    from risk_env.train.seating import Seating
    from risk_env.vector.learner import FixedOpponents

    rules: dict[str, Any] = dict(preset="fast", map="small", num_players=players, turn_limit=6)
    seated = opponents is not None and opponents.startswith("seated:")
    mode: dict[str, Any] = {"self_play": True} if opponents is None or seated else {"opponents": opponents}
    env = LearnerEnv(6, device=DEVICE, seed=players, shaping=1.0, shaping_gamma=0.99, **mode, **rules)
    seating = None
    if seated:
        assert opponents is not None
        gen = torch.Generator(device=DEVICE).manual_seed(1)
        seating = Seating(FixedOpponents(opponents.split(":")[1], env.game, gen), 6, players, env.device)
    torch.manual_seed(0)
    net = GraphNet(20, 73, env.game.num_actions - env.game.T, hidden=8, rounds=1)
    L, n, B = 12, players, 6
    s = PPOSettings(n_steps=L, gamma=0.99, gae_lambda=0.9)
    ppo = DevicePPO(env, net, s, seed=0, seating=seating)
    seats, valid, rewards, ended, values, got = [], [], [], [], [], {}
    rollouts = 8
    for k in range(rollouts):
        held_before = ppo._held.clone()
        ppo.collect()
        seats.append(ppo._seat[n:].cpu().numpy().copy())
        valid.append(ppo._valid[n:].cpu().numpy().copy())
        rewards.append(ppo._rewards[n:].cpu().numpy().copy())
        ended.append(ppo._ended[n:].cpu().numpy().copy())
        values.append(ppo.buf["value"][n:].cpu().numpy().copy())
        entries, adv, target = ppo.advantages()
        all_seats, all_valid = np.concatenate(seats), np.concatenate(valid)
        for e, a, t in zip(entries.tolist(), adv.tolist(), target.tolist(), strict=True):
            row, b = divmod(e, B)
            if row >= n:
                call = k * L + row - n
                assert all_valid[call, b]
            else:  # a decision held back: the seat's last decision in that slot before this rollout
                assert bool(held_before[row, b])
                call = max(c for c in range(k * L) if all_seats[c, b] == row and all_valid[c, b])
            got[(k, call, b)] = (a, t)
    cat = np.concatenate
    want = _reference(cat(seats), cat(valid), cat(rewards), cat(ended), cat(values), L, 0.99, 0.9)
    want = {key: v for key, v in want.items() if key[0] < rollouts}
    assert set(got) == set(want)
    for key, (a, t) in want.items():
        assert got[key][0] == pytest.approx(a, abs=1e-5) and got[key][1] == pytest.approx(t, abs=1e-5), key
    assert cat(ended).any(), "no episode ended: the test covers no terminal"
    if seated:
        assert 0.2 < cat(valid).mean() < 0.8  # the learner's decisions, and the opponents'


@pytest.mark.parametrize(("players", "seated"), [(2, True), (3, False)])
def test_the_update_reads_each_decision_with_its_own_advantage(players: int, seated: bool) -> None:
    # the update pairs every ready decision's advantage with that decision's state, mask, action and
    # log-probability, also for a seat's decision held back over a rollout boundary (rows 0..n-1),
    # though the seat's new held-back decision goes to the same row
    from tensordict import TensorDict

    from risk_env.train.seating import Seating
    from risk_env.vector.learner import FixedOpponents

    rules: dict[str, Any] = dict(preset="fast", map="small", num_players=players, turn_limit=6)
    B, L, n = 6, 12, players
    env = LearnerEnv(B, device=DEVICE, seed=players, self_play=True, shaping=1.0, shaping_gamma=0.99, **rules)
    seating = None
    if seated:
        gen = torch.Generator(device=DEVICE).manual_seed(1)
        seating = Seating(FixedOpponents("random", env.game, gen), B, players, env.device)
    torch.manual_seed(0)
    net = GraphNet(20, 73, env.game.num_actions - env.game.T, hidden=8, rounds=1)
    # one minibatch holding every ready decision, one epoch: the loss sees each once
    ppo = DevicePPO(env, net, PPOSettings(n_steps=L, n_epochs=1, batch_size=10_000), seed=0, seating=seating)
    seen: list[TensorDict] = []
    loss = ppo.loss_module

    def spy(td: TensorDict) -> Any:
        seen.append(td.detach().clone())
        return loss(td)

    ppo.loss_module = spy  # type: ignore[assignment]
    calls: dict[str, list[torch.Tensor]] = {k: [] for k in ("nodes", "action_mask", "action", "log_prob", "value")}
    seats, valid = [], []
    from_held = 0
    for k in range(6):
        ppo.collect()
        for key, rows in calls.items():
            rows.append(ppo.buf[key][n:].clone())
        seats.append(ppo._seat[n:].clone())
        valid.append(ppo._valid[n:].clone())
        entries, adv, _ = ppo.advantages()
        seen.clear()
        ppo.update(entries, adv, _)
        (td,) = seen
        all_seats, all_valid = torch.cat(seats), torch.cat(valid)
        by_adv = {round(float(a), 6): i for i, a in enumerate(td["advantage"][:, 0].tolist())}
        assert len(by_adv) == entries.numel()  # (the advantages tell the decisions apart)
        for e, a in zip(entries.tolist(), adv.tolist(), strict=True):
            row, b = divmod(e, B)
            if row >= n:
                call = k * L + row - n
            else:  # the seat's last decision in that slot before this rollout
                from_held += 1
                call = max(c for c in range(k * L) if all_seats[c, b] == row and all_valid[c, b])
            r, c = divmod(call, L)
            i = by_adv[round(a, 6)]
            assert int(td["action"][i]) == int(calls["action"][r][c, b]), (k, call, b)
            assert float(td[ppo._lp_key][i]) == float(calls["log_prob"][r][c, b]), (k, call, b)
            assert float(td["state_value"][i, 0]) == float(calls["value"][r][c, b]), (k, call, b)
            assert torch.equal(td["action_mask"][i], calls["action_mask"][r][c, b])
            assert torch.equal(td["nodes"][i], calls["nodes"][r][c, b])
    assert from_held > 10, "no decision crossed a rollout boundary: the test covers nothing"


# ---------------------------------------------------------------------------- runs
def _tiny(tmp: Path, **changes: Any) -> TrainConfig:
    data: dict[str, Any] = {
        "name": "tiny",
        "trainer": "device",
        "seed": 1,
        "total_timesteps": 256,
        "max_minutes": None,
        "out_dir": str(tmp),
        "rules": {"preset": "fast", "num_players": 2, "turn_limit": 16},
        "env": {"n_envs": 8},
        "ppo": {"n_steps": 16, "batch_size": 64, "n_epochs": 2, "graph_hidden": 8, "graph_rounds": 1, "device": str(DEVICE)},
        "opponents": {"baselines": ["self"]},
        "eval": {
            "every": 128,
            "games": 2,
            "final_games": 2,
            "opponents": ["random"],
            "workers": 1,
            "rules": {"preset": "fast", "num_players": 2, "turn_limit": 16},
        },
        "checkpoint": {"every": 128, "keep": 2},
    }
    for k, v in changes.items():
        node = data
        *path, last = k.split(".")
        for part in path:
            node = node[part]
        node[last] = v
    return TrainConfig.from_dict(data)


def test_resume_refuses_a_file_that_is_no_checkpoint(tmp_path: Path) -> None:
    from risk_env.train.sb3 import train

    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(ConfigError) as info:
        train(_tiny(tmp_path / "r1"), resume=text, progress=False, quiet=True)
    assert str(info.value) == (
        f"--resume {str(text)!r}: notes.txt is not a checkpoint; trainer 'device' resumes a step_*.pt "
        "(or the run folder that holds its checkpoints/)"
    )
    junk = tmp_path / "d" / "checkpoints" / "step_1.pt"
    junk.parent.mkdir(parents=True)
    junk.write_bytes(b"\x80\x02junk")
    # (a policy file renamed step_*.pt, its .json not beside it, resumed as a run of the default config from step 0)
    with pytest.raises(ConfigError) as info:
        train(_tiny(tmp_path / "r2"), resume=tmp_path / "d", progress=False, quiet=True)
    assert str(info.value) == (
        f"--resume {str(tmp_path / 'd')!r}: step_1.json is not beside step_1.pt: a checkpoint's metadata (the run's "
        "config and schedule) goes with it; copy it along, or start from the network with --set ppo.init=PATH"
    )
    # (a .json without the run's config resumed as a run of the default config)
    junk.with_suffix(".json").write_text("{}")
    with pytest.raises(ConfigError) as info:
        train(_tiny(tmp_path / "r2"), resume=tmp_path / "d", progress=False, quiet=True)
    assert str(info.value) == (
        f"--resume {str(tmp_path / 'd')!r}: step_1.json holds no 'config' and {str(tmp_path / 'd' / 'config.yaml')!r} "
        "is not there: a checkpoint's metadata is the run's config and schedule as the run wrote them; start from the "
        "network with --set ppo.init=PATH"
    )
    junk.with_suffix(".json").write_text('{"config": {}}')  # (an empty config: read as the schema's defaults)
    with pytest.raises(ConfigError, match=r"step_1\.json holds no 'config'"):
        train(_tiny(tmp_path / "r2"), resume=tmp_path / "d", progress=False, quiet=True)
    junk.with_suffix(".json").write_text('{"config": {"name": "tiny"}}')
    with pytest.raises(RiskError) as err:
        train(_tiny(tmp_path / "r2"), resume=tmp_path / "d", progress=False, quiet=True)
    assert str(err.value).startswith(f"{str(junk)!r} is not a readable policy file (") and "\n" not in str(err.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "notes.txt"]


def test_resume_reads_the_run_folders_config_where_the_checkpoint_keeps_none(tmp_path: Path) -> None:
    # (as the sb3 trainer: a step_*.json without the run's config, its run folder's config.yaml beside it)
    from risk_env.train.sb3 import run_config, train

    run = tmp_path / "run"
    train(_tiny(run, total_timesteps=128), progress=False, quiet=True)
    side = run / "checkpoints" / "step_000000128.json"
    meta = json.loads(side.read_text())
    del meta["config"]
    side.write_text(json.dumps(meta))
    cfg = run_config(None, ["total_timesteps=256"], resume=run)  # (the CLI's config: the folder's config.yaml)
    assert cfg.trainer == "device" and cfg.ppo.graph_hidden == 8 and cfg.total_timesteps == 256
    res = train(cfg, resume=run, progress=False, quiet=True)
    assert res.timesteps == 256 and res.model_path == run / "model.pt"
    assert f"resumed from {run / 'checkpoints' / 'step_000000128.pt'}" in (run / "train.log").read_text()
    # the game is still compared: the folder's config under other rules is refused, nothing written
    side = run / "checkpoints" / "step_000000256.json"
    meta = json.loads(side.read_text())
    del meta["config"], meta["game"]
    side.write_text(json.dumps(meta))
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*")}
    with pytest.raises(ConfigError, match=r"rules\.num_players"):
        train(_tiny(run, total_timesteps=384, **{"rules.num_players": 3}), resume=run, progress=False, quiet=True)
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*")} == before


def _weights(path: Path) -> np.ndarray:
    net, _ = load_policy(path)
    return np.concatenate([p.detach().numpy().ravel() for p in net.parameters()])


def test_tiny_run_checkpoints_evaluates_resumes_and_plays_as_an_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from risk_env.train.sb3 import train

    run = tmp_path / "run"
    res = train(_tiny(run), progress=False, quiet=True)
    assert res.timesteps == 256 and res.model_path == run / "model.pt" and res.model_path.exists()
    assert [p.name for p in sorted((run / "checkpoints").glob("step_*.pt"))] == ["step_000000128.pt", "step_000000256.pt"]
    log = (run / "train.log").read_text()
    # the last checkpoint is the loop's (written and logged once, not again at the end)
    assert [line.split("] checkpoint ", 1)[1] for line in log.splitlines() if "] checkpoint " in line] == [
        str(run / "checkpoints" / "step_000000128.pt"),
        str(run / "checkpoints" / "step_000000256.pt"),
    ]
    meta = json.loads((run / "checkpoints" / "step_000000256.json").read_text())
    assert meta["timesteps"] == 256 and meta["config"]["trainer"] == "device"
    classic = load_map("classic").fingerprint()
    assert meta["game"] == {"rules": _tiny(run).rules_config.to_dict(), "player_counts": [2], "map": classic}  # (as played)
    evals = [json.loads(line) for line in (run / "evals.jsonl").read_text().splitlines()]
    assert [e["timesteps"] for e in evals] == [128, 256] and evals[0]["random"]["games"] == 2
    assert list((run / "tb").rglob("events.out.tfevents.*"))
    # the run's summary: the trainer's own entries beside those every trainer writes (Run.finish)
    summary = json.loads((run / "results.json").read_text())
    assert list(summary) == [
        *("name", "trainer", "device", "player_counts", "learner_decisions_per_second", "model", "timesteps"),
        *("learn_seconds", "wall_seconds", "total_seconds", "stopped_early", "eval_rules", "final_eval"),
    ]
    assert summary["trainer"] == "device" and summary["player_counts"] == [2] and summary["timesteps"] == 256
    assert summary["model"] == str(res.model_path) and summary["final_eval"]["random"]["games"] == res.final_eval["random"].games
    assert (
        0 < summary["learn_seconds"] <= summary["total_seconds"] == round(res.seconds, 1)
        and summary["learner_decisions_per_second"] > 0
    )
    assert res.final_eval["random"].games == 2 and (run / "final_eval" / "random" / "summary.csv").exists()
    net, saved = load_policy(res.model_path)
    assert saved["timesteps"] == 256 and saved["rules"]["num_players"] == 2 and net.sizes["hidden"] == 8

    # resume: continue to 384 from the newest checkpoint, with the optimizer's state
    res2 = train(_tiny(run, total_timesteps=384), resume=run, progress=False, quiet=True)
    assert res2.timesteps == 384 and "resumed from" in (run / "train.log").read_text()
    assert not np.array_equal(_weights(res.model_path.with_name("checkpoints") / "step_000000256.pt"), _weights(res2.model_path))
    # a damaged metadata file beside the newest checkpoint: refused, naming the file, before anything is written
    newest = sorted((run / "checkpoints").glob("step_*.json"))[-1]
    assert newest.name == "step_000000384.json"
    kept = newest.read_text()
    newest.write_text("{not json")
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*")}
    with pytest.raises(ConfigError, match=r"step_000000384\.json: cannot read the checkpoint's metadata \(JSONDecodeError"):
        train(_tiny(run, total_timesteps=512), resume=run, progress=False, quiet=True)
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*")} == before
    newest.write_text(kept)
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*")}
    # a resumed run trains its checkpoint's network: a config of another width is refused, nothing written
    with pytest.raises(ConfigError) as info:
        train(_tiny(run, total_timesteps=512, **{"ppo.graph_hidden": 16}), resume=run, progress=False, quiet=True)
    assert str(info.value) == (
        f"--resume {str(run)!r} continues a network of hidden=8, but ppo.graph_hidden=16: a resumed run trains its "
        "checkpoint's network; set ppo.graph_hidden=8 (or start a new run with ppo.init)"
    )
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*")} == before
    # resuming an earlier checkpoint of the folder: what lies past it (checkpoints, evaluations, the final outputs)
    # moves aside, so a later --resume of the folder goes on from the new branch (it went on from the abandoned
    # one's step_384), and plot-training draws one branch
    old_384 = _weights(run / "checkpoints" / "step_000000384.pt")
    assert [json.loads(line)["timesteps"] for line in (run / "evals.jsonl").read_text().splitlines()] == [128, 256, 384]
    resumed = Path("run") / "checkpoints" / "step_000000256.pt"  # (relative to the working directory)
    monkeypatch.chdir(tmp_path)
    cfg = _tiny(run, total_timesteps=384).model_copy(update={"out_dir": None})
    res3 = train(cfg, resume=resumed, progress=False, quiet=True)
    assert res3.timesteps == 384 and res3.model_path == run / "model.pt"
    (later,) = run.glob("later-*")
    assert sorted(str(p.relative_to(later)) for p in later.rglob("*") if p.is_file()) == [
        "checkpoints/step_000000384.json",
        "checkpoints/step_000000384.pt",
        "eval_model.pt",
        "evals.jsonl",
        "final_eval/random/games.csv",
        "final_eval/random/results.json",
        "final_eval/random/summary.csv",
        "final_eval/random/winrate.png",
        "model.pt",
        "results.json",
    ]
    # (the set-aside branch's evaluations from its start, for its curves)
    assert [json.loads(line)["timesteps"] for line in (later / "evals.jsonl").read_text().splitlines()] == [128, 256, 384]
    rows = [json.loads(line) for line in (run / "evals.jsonl").read_text().splitlines()]
    assert [r["timesteps"] for r in rows] == [128, 256, 384]
    # (the wall clock goes on from the checkpoint's: plot-training drew it restarting at the resume)
    resumed_from = json.loads((run / "checkpoints" / "step_000000256.json").read_text())["wall_seconds"]
    assert rows[1]["wall_seconds"] <= resumed_from <= rows[2]["wall_seconds"]
    # (the final evaluation on the same clock: plot-training drew its square at the resumed part's seconds alone)
    final = json.loads((run / "results.json").read_text())
    assert rows[2]["wall_seconds"] <= final["wall_seconds"] and final["learn_seconds"] < final["wall_seconds"]
    from risk_env.train.curves import load_curves

    (curve,) = [c for c in load_curves(run) if c.opponent == "random"]
    assert curve.final["seconds"] == final["wall_seconds"]
    np.testing.assert_array_equal(_weights(later / "checkpoints" / "step_000000384.pt"), old_384)
    assert latest_checkpoint(run) == run / "checkpoints" / "step_000000384.pt"
    monkeypatch.chdir(run)  # (the run folder as ".", from inside it: it raised a ValueError for the empty name)
    assert latest_checkpoint(Path(".")) == Path("checkpoints") / "step_000000384.pt"
    monkeypatch.chdir(tmp_path)
    # (a new file, of the same weights: the resumed run replays the steps from 256 exactly)
    np.testing.assert_array_equal(_weights(run / "checkpoints" / "step_000000384.pt"), old_384)
    assert f"resuming step_000000256.pt: the run's files past it moved to {later}" in (run / "train.log").read_text()
    # --print-config of a resume names the folder the run goes on in (it printed out_dir: null)
    from helpers import run_cli

    code, out, _ = run_cli("train", "--resume", str(run), "--print-config")
    assert code == 0 and f"out_dir: {run.resolve()}\n" in out
    # resuming the newest checkpoint moves nothing
    train(_tiny(run, total_timesteps=512), resume=run, progress=False, quiet=True)
    assert len(list(run.glob("later-*"))) == 1 and not list((run / "checkpoints").glob("later-*"))
    # resuming the set-aside branch into the run folder (not the folder that holds it): the run there moves aside whole
    train(_tiny(run, total_timesteps=384), resume=later / "checkpoints" / "step_000000384.pt", progress=False, quiet=True)
    (earlier,) = run.glob("earlier-*")
    assert latest_checkpoint(earlier) == earlier / "checkpoints" / "step_000000512.pt"
    assert (  # (a resume with nothing left to train says so: it only played the final evaluation again)
        "note: the run is at step 384, total_timesteps is 384: nothing to train; the final evaluation is played again"
    ) in (run / "train.log").read_text()
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step_000000384.json", "step_000000384.pt"]
    np.testing.assert_array_equal(_weights(run / "checkpoints" / "step_000000384.pt"), old_384)
    assert (later / "checkpoints" / "step_000000384.pt").is_file() and (run / "model.pt").is_file()

    # the policy file plays through the agent interface, the evaluation and the watch command, no glue code
    from risk_env.agents import load_agent
    from risk_env.tools.evaluation import evaluate

    agent = load_agent(str(res2.model_path))
    assert agent.name == "model"
    result = evaluate([str(res2.model_path), "random"], num_games=2, rules="fast", turn_limit=8, workers=1, progress=False)
    assert sum(st.games for st in result.stats.values()) == 4
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from risk_env.tools.cli import app

    agents = f"{res2.model_path},random"
    out = CliRunner().invoke(app, ["watch", "--players", "2", "--turns", "3", "--show", "none", "--agents", agents])
    assert out.exit_code == 0, out.output


def test_same_seed_same_weights(tmp_path: Path) -> None:
    from risk_env.train.sb3 import train

    cfg = {"eval.every": 0, "eval.final_games": 0}
    a = train(_tiny(tmp_path / "a", **cfg), progress=False, quiet=True)
    b = train(_tiny(tmp_path / "b", **cfg), progress=False, quiet=True)
    c = train(_tiny(tmp_path / "c", seed=2, **cfg), progress=False, quiet=True)
    wa, wb, wc = _weights(a.model_path), _weights(b.model_path), _weights(c.model_path)
    np.testing.assert_array_equal(wa, wb)
    assert not np.array_equal(wa, wc)


def test_checkpoint_average_from_writes_the_mean_of_the_run_checkpoints(tmp_path: Path) -> None:
    """``checkpoint.average_from``: model_avg.pt holds the mean weights of the checkpoints from that step on (here the
    ones at 256 and 384 and the last, 512, not the one at 128), and plays as an agent. ``checkpoint.keep`` (1 here)
    spares the checkpoints to average (the one at 128 goes, as keep says). ``risk-env train`` names it, and the
    commands that evaluate it, after the final model's."""
    from risk_env.agents import load_agent
    from risk_env.train.sb3 import final_evaluate_commands, train

    run = tmp_path / "run"
    data = _tiny(run, total_timesteps=512, **{"eval.every": 0, "eval.final_games": 0}).model_dump(mode="json")
    cfg = TrainConfig.from_dict({**data, "checkpoint": {"every": 128, "keep": 1, "average_from": 256}})
    result = train(cfg, progress=False, quiet=True)
    ckpts = sorted((run / "checkpoints").glob("step_*.pt"))
    steps = [int(p.stem.split("_")[1]) for p in ckpts]
    used = [p for p, t in zip(ckpts, steps, strict=True) if t >= 256]
    assert steps == [256, 384, 512] and used == ckpts and steps[-1] == result.timesteps
    mean = np.mean([_weights(p) for p in used], axis=0)
    avg = run / "model_avg.pt"
    assert result.average_path == avg and json.loads((run / "results.json").read_text())["model_avg"] == str(avg)
    np.testing.assert_allclose(_weights(avg), mean, rtol=0, atol=1e-6)
    assert not np.allclose(_weights(avg), _weights(used[-1]))  # (an average, not the last checkpoint)
    _, meta = load_policy(avg)
    assert meta["averaged_steps"] == [t for t in steps if t >= 256] and meta["timesteps"] == result.timesteps
    assert "optimizer" not in meta and "optimizer" in load_policy(used[-1])[1]
    assert load_agent(str(avg)).act is not None
    config = tmp_path / "tiny.yaml"
    config.write_text(cfg.to_yaml())
    again = tmp_path / "again"
    code, out, err = run_cli("train", "--config", config, "--out", again, "--no-progress")
    assert code == 0, err
    closing = [f"evaluate: {c}" for c in final_evaluate_commands(cfg, again / "model.pt")]
    closing += [f"averaged model: {again / 'model_avg.pt'}"]
    closing += [f"evaluate: {c}" for c in final_evaluate_commands(cfg, again / "model_avg.pt")]
    assert out.splitlines()[-len(closing) :] == closing and closing[0].startswith(f"evaluate: risk-env evaluate {again}")
    np.testing.assert_array_equal(_weights(again / "model_avg.pt"), _weights(avg))  # (the same run, step for step)
    longer = TrainConfig.from_dict({**data, "total_timesteps": 640, "checkpoint": {"every": 128, "keep": None}})
    resumed = train(longer, resume=str(run), progress=False, quiet=True)  # (no average at this end: the earlier one
    assert resumed.average_path is None and not avg.exists()  # is removed, not left as if it were this end's)
    assert "model_avg" not in json.loads((run / "results.json").read_text())
    assert "removed " + str(avg) + ": the average written at an earlier end of this run" in (run / "train.log").read_text()


def test_average_policies_refuses_networks_of_other_sizes(tmp_path: Path) -> None:
    from risk_env.train.graph_net import average_policies

    a, b = tmp_path / "a.pt", tmp_path / "b.pt"
    save_policy(a, GraphNet(20, 73, 28, hidden=8, rounds=1))
    save_policy(b, GraphNet(20, 73, 28, hidden=16, rounds=1))
    with pytest.raises(RiskError, match=r"b\.pt' holds a network of sizes .*'hidden': 16.* only networks of one shape"):
        average_policies([a, b])
    with pytest.raises(RiskError, match="give at least one policy file"):
        average_policies([])
    with pytest.raises(RiskError, match="give a list of policy files, got one path"):
        average_policies(str(a))  # (a str is a sequence of characters)
    for bad in (None, 5, [None], {str(a): 1}):
        with pytest.raises(RiskError, match=r"give a list of policy file paths \(str or Path\), got "):
            average_policies(bad)  # type: ignore[arg-type]
    from risk_env.agents import pretrained_path

    with pytest.raises(RiskError, match=r"a MaskablePPO checkpoint \(\.zip\): load_agent and graph_net_from_sb3 read it"):
        average_policies([pretrained_path("ppo-2p-0.1")])
    save_policy(b, GraphNet(20, 73, 28, hidden=8, rounds=1), optimizer={"state": {}}, timesteps=7)
    net, meta = average_policies([a, b])  # (a checkpoint's optimizer state is not the average's)
    assert meta == {"timesteps": 7}
    net, _ = average_policies([a, a])  # (the mean of one network with itself is that network)
    np.testing.assert_array_equal(_weights(a), np.concatenate([p.detach().numpy().ravel() for p in net.parameters()]))


@pytest.mark.parametrize(
    ("checkpoint", "message"),
    [
        ({"average_from": 256}, "checkpoint.average_from=256 must be below total_timesteps=256"),
    ],
)
def test_checkpoint_average_from_is_checked_against_the_run(tmp_path: Path, checkpoint: dict, message: str) -> None:
    data = _tiny(tmp_path).model_dump(mode="json")
    with pytest.raises(ConfigError, match=message):
        TrainConfig.from_dict({**data, "checkpoint": {**data["checkpoint"], **checkpoint}})
    with pytest.raises(ConfigError, match="checkpoint.average_from needs trainer 'device'"):
        TrainConfig.from_dict({**data, "trainer": "sb3", "opponents": {}, "checkpoint": {"average_from": 0}})


def test_the_graph_policy_agent_plays_the_flat_and_the_graph_observation(tmp_path: Path) -> None:
    import risk_env
    from risk_env.agents import load_agent

    torch.manual_seed(0)
    path = save_policy(tmp_path / "p.pt", GraphNet(20, 73, 28, hidden=8, rounds=1), timesteps=0)
    for observation in ("flat", "graph"):
        env = risk_env.env(num_players=3, preset="fast", observation=observation)
        env.reset(seed=0)
        agent = load_agent(str(path))
        for k, _name in enumerate(env.agent_iter()):
            obs, _, term, trunc, info = env.last()
            a = None if term or trunc else agent.act(obs, info)
            if a is not None:
                assert obs["action_mask"][a] == 1
            env.step(a)
            if k > 200:
                break


def test_bad_policy_files_are_refused_by_name(tmp_path: Path) -> None:
    from risk_env.agents import load_agent

    with pytest.raises(RiskError, match="no policy file"):
        load_agent(str(tmp_path / "missing.pt"))
    (tmp_path / "junk.pt").write_bytes(b"not a torch file")
    with pytest.raises(RiskError, match=r"not a readable policy file \(not a torch file: torch.save writes a zip archive\)$"):
        load_agent(str(tmp_path / "junk.pt"))
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(RiskError, match=r"not a readable policy file \(the file is empty\)$"):
        load_agent(str(tmp_path / "empty.pt"))
    (tmp_path / "model.pt").write_bytes((Path(__file__).parents[1] / "agents" / "models" / "ppo-2p-0.1.zip").read_bytes())
    with pytest.raises(RiskError, match=r"a zip archive but not a torch file: a MaskablePPO checkpoint\? give it with its .zip"):
        load_agent(str(tmp_path / "model.pt"))
    with zipfile.ZipFile(tmp_path / "cut.pt", "w") as z:  # a torch archive whose pickle is damaged
        z.writestr("cut/data.pkl", b"\x80\x02garbage")
    with pytest.raises(RiskError, match=r"not a readable policy file \(torch cannot read it: \w+"):
        load_agent(str(tmp_path / "cut.pt"))
    torch.save({"something": 1}, tmp_path / "other.pt")
    with pytest.raises(RiskError, match="not a risk_env graph policy file"):
        load_agent(str(tmp_path / "other.pt"))


def test_the_network_agents_refuse_a_mask_with_no_legal_action(tmp_path: Path) -> None:
    # (both returned action id 0, which the mask forbids, as the random agent refuses to)
    import risk_env
    from risk_env.agents import load_agent

    path = save_policy(tmp_path / "p.pt", GraphNet(20, 73, 28, hidden=8, rounds=1), timesteps=0)
    for spec, observation in ((str(path), "graph"), (str(path), "flat"), ("ppo-2p-0.1", "flat")):
        env = risk_env.env(num_players=2, preset="fast", observation=observation)
        env.reset(seed=0)
        obs, _, _, _, info = env.last()
        agent = load_agent(spec)
        assert obs["action_mask"][agent.act(obs, info)] == 1
        empty = {**obs, "action_mask": np.zeros_like(obs["action_mask"])}
        with pytest.raises(RiskError) as err:
            agent.act(empty, info)
        name = "p" if spec.endswith(".pt") else "ppo-2p-0.1"
        assert str(err.value) == f"policy {name!r} was asked to act with no legal action (an all-zero mask)"


@pytest.mark.parametrize("device", ["nope", "cuda:99", 3])
def test_a_device_torch_cannot_use_is_refused_by_the_policy_loaders(tmp_path: Path, device: object) -> None:
    # (torch's RuntimeError before, from load_policy, GraphNetAgent and a GraphNet given to it; MaskablePPOAgent
    # read it as a file that does not load)
    from risk_env.agents.policy import GraphNetAgent
    from risk_env.train.graph_net import graph_net_from_sb3

    path = save_policy(tmp_path / "p.pt", GraphNet(20, 73, 28, hidden=8, rounds=1), timesteps=0)
    for load in (
        lambda: load_policy(path, device=device),  # type: ignore[arg-type]
        lambda: GraphNetAgent(path, device=device),  # type: ignore[arg-type]
        lambda: GraphNetAgent(GraphNet(20, 73, 28, hidden=8, rounds=1), device=device),  # type: ignore[arg-type]
        lambda: graph_net_from_sb3(tmp_path / "missing.zip", device=device),  # type: ignore[arg-type]
    ):
        with pytest.raises(ConfigError) as info:
            load()
        msg = str(info.value)
        assert msg.startswith(f"device={device!r} is not ") and msg.endswith("available here: " + ", ".join(available_devices()))
    assert GraphNetAgent(path, device="cpu:0").device == torch.device("cpu")
    from risk_env.agents.policy import MaskablePPOAgent

    with pytest.raises(ConfigError, match=f"^device={device!r} is not "):
        MaskablePPOAgent(tmp_path / "model.zip", device=device)  # type: ignore[arg-type]


def test_a_policy_file_with_bad_meta_or_weights_is_refused_by_name(tmp_path: Path) -> None:
    from risk_env.agents import load_agent

    torch.manual_seed(0)
    net = GraphNet(20, 73, 28, hidden=8, rounds=1)
    data = torch.load(save_policy(tmp_path / "good.pt", net, timesteps=5), weights_only=True)
    assert load_policy(tmp_path / "good.pt")[1] == {"timesteps": 5}
    for meta in (["timesteps", 5], "timesteps", 7, None):
        torch.save({**data, "meta": meta}, tmp_path / "meta.pt")
        with pytest.raises(RiskError) as info:
            load_policy(tmp_path / "meta.pt")
        assert str(info.value) == (
            f"{str(tmp_path / 'meta.pt')!r}: the policy file's meta must be a dict (as save_policy writes), "
            f"got {type(meta).__name__}"
        )
    for bad in (float("nan"), float("inf")):
        sd = {k: v.clone() for k, v in data["state_dict"].items()}
        sd["value_head.2.bias"][0] = bad
        torch.save({**data, "state_dict": sd}, tmp_path / "diverged.pt")
        for load in (lambda: load_policy(tmp_path / "diverged.pt"), lambda: load_agent(str(tmp_path / "diverged.pt"))):
            with pytest.raises(RiskError) as info:
                load()
            assert str(info.value) == (
                f"{str(tmp_path / 'diverged.pt')!r}: the network's weights 'value_head.2.bias' hold NaN or infinite "
                "values (a diverged run?)"
            )
    # (a size GraphNet refuses: its message did not name the file)
    torch.save({**data, "network": {**data["network"], "hidden": "8"}}, tmp_path / "sizes.pt")
    with pytest.raises(RiskError) as info:
        load_policy(tmp_path / "sizes.pt")
    assert str(info.value) == (
        f"{str(tmp_path / 'sizes.pt')!r}: the network in the policy file does not load (RiskError: GraphNet: hidden must be "
        "an integer >= 1, got '8')"
    )


# ---------------------------------------------------------------------------- config
@pytest.mark.parametrize(
    ("sets", "named"),
    [
        (["ppo.policy=mlp"], "ppo.policy"),
        (["opponents.self_play.enabled=true"], "opponents.self_play"),
        (["env.max_turn_steps=50"], "env.max_turn_steps"),
        (["opponents.baselines=[self, random]"], "opponents.baselines"),
        (["env.vector_device=cuda"], "env.vector_device='cuda' (the sb3 trainer's batched env; trainer 'device' plays"),
        (["env.vec_env=subproc"], "env.vec_env='subproc' (the sb3 trainer's reference envs"),
    ],
)
def test_device_trainer_names_the_settings_it_lacks(sets: list[str], named: str) -> None:
    import re

    with pytest.raises(ConfigError, match=re.escape(named)):
        load_config(None, ["trainer=device", "opponents.baselines=[self]", *sets])


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("imitation.teacher", "risk_env.agents:BalancedAgent"),
        ("kickstart.teacher", "risk_env.agents:BalancedAgent"),
        ("kickstart.teacher", "balanced+random"),
    ],
)
def test_a_teacher_with_no_batched_form_is_refused_before_the_run_starts(tmp_path: Path, key: str, value: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config("device", [f"{key}={value}"])
    msg = str(info.value)
    assert f"trainer 'device' does not support {key}={value!r}" in msg
    assert "its teachers are the batched policies: random, aggressive, balanced, continent; or a network: " in msg
    assert (
        "a pretrained agent (ppo-2p, ppo-3p, ppo-4p, ppo-5p, ppo-6p, ppo-2p-0.1, ppo-4p-0.1, ppo-4p-500k), a policy "
        "file .pt or a MaskablePPO .zip" in msg
    )
    out = tmp_path / "run"
    code, _, err = run_cli("train", "--config", "device", "--set", f"{key}={value}", "--out", out)
    assert code == 2 and f"{key}={value!r}" in err and "Traceback" not in err
    assert not out.exists()  # nothing written
    assert load_config("device", [f"{key}={value}", f"{key.split('.')[0]}.enabled=false"]).trainer == "device"  # unused


def test_an_opponent_with_no_batched_form_is_refused_by_the_device_trainer() -> None:
    with pytest.raises(
        ConfigError,
        match=r"does not support opponents\.baselines \['helpers:StubbornAgent'\] \(its opponents are the "
        r"batched policies: random, aggressive, balanced, continent; or a network: a pretrained agent \(ppo-2p, ",
    ):
        load_config("device", ["opponents.baselines=[random, helpers:StubbornAgent]"])
    sets = ["opponents.baselines=[random+Random, BALANCED]", "opponents.weights=null"]  # (names in any case)
    assert load_config("device", sets).opponents.baselines == ["random+random", "balanced"]
    assert load_config(None, ["opponents.baselines=[random, helpers:StubbornAgent]"]).trainer == "sb3"  # (any agent)
    for twice in ("[balanced, Balanced]", "[ppo-4p, PPO-4P]"):  # (the league seats each baseline once)
        with pytest.raises(ConfigError, match=r"opponents\.baselines: '(balanced|ppo-4p)' is named twice \(.*\): name each"):
            load_config("device", [f"opponents.baselines={twice}", "opponents.weights=null"])


def test_a_frozen_network_is_an_opponent_of_the_device_trainer(tmp_path: Path) -> None:
    """``opponents.baselines`` takes the networks the batched engine plays (a pretrained name, a policy file), as
    the teachers do: the league seats them as frozen networks playing their most probable legal id. A network that
    does not fit the training rules is refused before the run folder is made."""
    from risk_env.train.device_train import build_env, train
    from risk_env.vector.network import NetworkPolicy

    cfg = _tiny(tmp_path / "run", **{"opponents.baselines": ["balanced", "ppo-4p"], "opponents.weights": [1, 3]})
    env, seating = build_env(cfg, DEVICE)
    league = seating.assignment
    assert league.names[:2] == ["balanced", "ppo-4p"] and isinstance(league.policies[1], NetworkPolicy)
    result = train(cfg, progress=False, quiet=True)
    assert result.timesteps >= 256 and (tmp_path / "run" / "model.pt").is_file()
    bad = _tiny(tmp_path / "bad", **{"opponents.baselines": ["ppo-2p-0.1"], "rules.preset": "expert"})
    with pytest.raises(
        ConfigError, match=r"^opponents\.baselines: 'ppo-2p-0.1' cannot be played: agent 'ppo-2p-0.1' cannot play"
    ):
        train(bad, progress=False, quiet=True)
    assert not (tmp_path / "bad").exists()


def test_a_run_folder_under_a_file_is_refused_before_training(tmp_path: Path) -> None:
    from risk_env.train.device_train import train

    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file")
    for out in (blocker / "run", blocker / "a" / "b"):
        with pytest.raises(ConfigError) as info:
            train(_tiny(out), progress=False, quiet=True)
        assert str(info.value) == (
            f"the run folder {str(out)!r} cannot be made or written: Not a directory ({str(blocker)!r} is a file): "
            "give another --out"
        )
    assert blocker.read_text() == "a file" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    code, _, err = run_cli("train", "--config", "device", "--out", blocker / "run")
    assert code == 2 and err == (
        f"error: the run folder {str(blocker / 'run')!r} cannot be made or written: Not a directory ({str(blocker)!r} "
        "is a file): give another --out\n"
    )


@pytest.mark.parametrize(
    "sets, message",
    [
        (["rules.map=nope"], "rules.map: unknown map 'nope'; shipped maps: classic, small"),
        (["rules.starting_armies=1"], "rules: starting_armies=1 is too few: 3 seats"),
        (["rules.map=small", "rules.secret_missions=true"], "rules: secret_missions=True needs a map with the classic"),
        (["eval.rules.map=nope"], "eval.rules.map: unknown map 'nope'; shipped maps: classic, small"),
        (
            ["rules.num_players=4", "rules.starting_armies=11", "env.player_counts=[4, 3]"],
            "rules (num_players=3 of env.player_counts): starting_armies=11 is too few: 3 seats",
        ),
        (["rules.capitals=true"], "opponents.baselines: 'balanced' cannot be played: the batched heuristics do not play"),
        (
            ["opponents.baselines=[self]", "opponents.weights=null", "rules.capitals=true"],
            "imitation.teacher: 'balanced' cannot be played: the batched heuristics do not play capitals=True",
        ),
    ],
)
def test_rules_no_game_is_played_under_are_refused_before_the_run_folder(tmp_path: Path, sets: list[str], message: str) -> None:
    from risk_env.train.device_train import train

    out = tmp_path / "run"
    with pytest.raises(ConfigError) as info:
        train(load_config("device", [*sets, f"out_dir={out}"]), progress=False, quiet=True)
    assert str(info.value).startswith(message)
    assert list(tmp_path.iterdir()) == []  # no run folder, no config.yaml
    code, _, err = run_cli("train", "--config", "device", *[a for s in sets for a in ("--set", s)], "--out", out)
    assert code == 2 and err.startswith(f"error: {message}") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_the_batched_policies_a_config_names_are_the_engines() -> None:
    from risk_env.train.config import BATCHED_POLICIES
    from risk_env.vector.agents import BATCHED_HEURISTICS

    assert sorted(BATCHED_POLICIES) == sorted(("random", *BATCHED_HEURISTICS))


def test_self_is_refused_by_the_sb3_trainer() -> None:
    with pytest.raises(ConfigError, match="needs trainer 'device'"):
        load_config(None, ["opponents.baselines=[self, random]"])


def test_a_device_torch_lacks_is_a_clear_error() -> None:
    from risk_env.train.device_train import resolve_device

    with pytest.raises(ConfigError, match="not a torch device"):
        resolve_device("tpu9")
    if not torch.cuda.is_available():
        with pytest.raises(ConfigError, match="no CUDA device"):
            resolve_device("cuda")
    assert resolve_device("auto").type in ("cpu", "cuda")


@pytest.mark.parametrize("seated", [False, True])
def test_stagger_spreads_the_slots_games_over_their_phases(seated: bool) -> None:
    # every slot begins its game in the same call; stagger(K) has slot b play its next L_b calls (L_b uniform below K,
    # from the trainer's seeded generator) with the policy, storing nothing and counting no step
    from risk_env.train.seating import Seating
    from risk_env.vector.learner import FixedOpponents

    B, K = 64, 40
    mode: dict[str, Any] = {"self_play": True} if seated else {"opponents": "random"}
    env = LearnerEnv(B, device=DEVICE, seed=3, preset="fast", num_players=2, **mode)
    seating = Seating(FixedOpponents("random", env.game, torch.Generator(device=DEVICE).manual_seed(1)), B, 2, env.device)
    torch.manual_seed(0)
    net = GraphNet(20, 73, env.game.num_actions - env.game.T, hidden=8, rounds=1)
    ppo = DevicePPO(env, net, PPOSettings(n_steps=8, batch_size=64, n_epochs=1), seed=5, seating=seating if seated else None)
    assert ppo.stagger(0) == ppo.stagger(1) == 0 and int(ppo._ep_len.sum()) == 0  # (no spread: nothing played)
    for bad in (-1, 2.5, True, "8"):
        with pytest.raises(ConfigError, match=r"^max_calls must be an integer >= 0, got "):
            ppo.stagger(bad)  # type: ignore[arg-type]
    want = torch.randint(K, (B,), generator=torch.Generator(device=DEVICE).manual_seed(5), device=DEVICE)
    assert ppo.stagger(K) == int(want.max()) and ppo.num_timesteps == 0
    own = ppo._ep_len.sum(1)  # (each slot's learner decisions in its game so far: no game of 40 calls ends)
    if seated:  # the calls of a slot are its learner's and its opponent's turns
        assert bool((own <= want).all()) and len(set(own.tolist())) >= 15
    else:
        assert own.tolist() == want.tolist()
    # the games are at different moves now: the first rollout sees every part of the opening, not one
    assert len(set(env.venv.state.steps.tolist())) >= 15
    stats = ppo.learn_once()
    assert stats["n_updates"] >= 1
    assert ppo.num_timesteps == B * 8 if not seated else 0 < ppo.num_timesteps < B * 8  # (the rollout's own, counted)


def test_opponent_weights_become_slot_shares() -> None:
    from risk_env.train.device_train import _slot_entries

    entries = _slot_entries(["random", "aggressive", "random+aggressive"], [1, 2, 1], 8)
    assert len(entries) == 8
    assert entries.count("random") == 2 and entries.count("aggressive") == 4 and entries.count(("random", "aggressive")) == 2
    assert _slot_entries(["random", "aggressive"], [1, 100], 4).count("random") == 1  # a positive weight gets a slot


def test_a_run_against_batched_opponents_logs_its_scores(tmp_path: Path) -> None:
    from risk_env.train.sb3 import train

    opp = {"opponents.baselines": ["random", "aggressive"], "eval.every": 0, "eval.final_games": 0, "env.stagger_calls": 12}
    res = train(_tiny(tmp_path / "opp", **opp), progress=False, quiet=True)
    # only the learner seats' decisions count: a rollout of 8 slots x 16 calls holds about half of them
    assert 256 <= res.timesteps < 256 + 128
    log = (tmp_path / "opp" / "train.log").read_text()
    assert "vs random, aggressive" in log
    assert re.search(r"stagger: each slot played 0-(\d+) calls before the first rollout \(not trained on, not counted\)", log)
    with pytest.raises(ConfigError, match=r"env\.stagger_calls needs trainer 'device' \(the sb3 trainer's envs are not in"):
        load_config("sb3", ["env.stagger_calls=8"])
    assert load_config("sb3", ["env.stagger_calls=0"]).env.stagger_calls == 0


def _network_choices(ppo: DevicePPO) -> tuple[torch.Tensor, dict[str, torch.Tensor], torch.Tensor, torch.Tensor]:
    """The last rollout's ready decisions: their entries, the flat buffer, their masks and the network's most
    probable legal action at each."""
    entries, _, _ = ppo.advantages()
    R, B = ppo._seat.shape
    flat = {k: v.reshape(R * B, *v.shape[2:]) for k, v in ppo.buf.items()}
    mask = flat["action_mask"][entries]
    with torch.no_grad():
        logits, _ = ppo.model(flat["nodes"][entries], flat["globals"][entries])
    return entries, flat, mask, logits.masked_fill(~mask, float("-inf")).argmax(1)


def test_behaviour_cloning_learns_the_batched_teacher() -> None:
    from risk_env.vector.agents import AggressivePolicy

    env = LearnerEnv(32, device=DEVICE, seed=5, opponents="random", preset="fast", map="small", num_players=2)
    torch.manual_seed(0)
    net = GraphNet(20, 73, env.game.num_actions - env.game.T, hidden=32, rounds=2)
    ppo = DevicePPO(env, net, PPOSettings(n_steps=16), seed=0, teacher=AggressivePolicy(env.game))
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    clone = {"epochs": 1, "batch_size": 128, "optimizer": opt, "vf_coef": 0.5}

    def agreement() -> float:  # on fresh teacher games, before fitting them; decisions with a choice only
        ppo.collect("teacher", count=False)
        entries, flat, mask, best = _network_choices(ppo)
        choice = mask.sum(1) > 1
        return float((best == flat["teacher"][entries])[choice].float().mean())

    before = agreement()
    for _ in range(20):
        ppo.collect("teacher", count=False)
        ppo.update(*ppo.advantages(), clone=clone)
    after = agreement()
    assert ppo.num_timesteps == 0  # the warm start's games do not count
    assert after > before + 0.15 and after > 0.75, (before, after)


def test_a_network_teaches_its_own_most_probable_action(tmp_path: Path) -> None:
    from risk_env.vector.specs import batched_policy

    env = LearnerEnv(16, device=DEVICE, seed=3, opponents="balanced", preset="fast", num_players=3)
    torch.manual_seed(4)
    net = GraphNet(20, 73, env.game.num_actions - env.game.T, hidden=8, rounds=1).to(DEVICE)
    path = save_policy(tmp_path / "teacher.pt", net)
    teacher = batched_policy(str(path), env.game, torch.Generator(device=DEVICE).manual_seed(0))
    ppo = DevicePPO(env, net, PPOSettings(n_steps=16), seed=0, teacher=teacher, kl_coef=1.0, anneal_steps=10**6)
    ppo.collect()
    entries, flat, mask, best = _network_choices(ppo)
    assert entries.numel() > 100 and int((mask.sum(1) > 1).sum()) > 50  # decisions with a choice among them
    assert torch.equal(flat["teacher"][entries], best)  # the frozen copy labels what the network itself plays


def test_a_network_teacher_in_the_config(tmp_path: Path) -> None:
    from risk_env.train.device_train import train

    net = GraphNet(20, 73, 28, hidden=8, rounds=1)  # (the classic map's sizes, as the tiny config plays)
    path = save_policy(tmp_path / "teacher.pt", net)
    kick = {"enabled": True, "teacher": str(path), "kl_coef": 0.5, "anneal_steps": 10**6}
    cfg = _tiny(tmp_path / "net", **{"ppo.init": str(path), "kickstart": kick, "eval.every": 0, "eval.final_games": 0})
    res = train(cfg, progress=False, quiet=True)
    assert 256 <= res.timesteps < 256 + 128
    forms = {"ppo-3p": "ppo-3p", " PPO-3P": "ppo-3p", str(path): str(path), str(path.with_suffix("")): str(path.with_suffix(""))}
    for form, kept in {**forms, "x.zip": "x.zip", "Balanced": "balanced"}.items():  # (the forms batched_policy reads)
        assert load_config("device", ["kickstart.enabled=true", f"kickstart.teacher={form}"]).kickstart.teacher == kept
    other = _tiny(tmp_path / "other", **{"rules.reroll_with_card": True, "kickstart": dict(kick, teacher="ppo-3p")})
    with pytest.raises(
        ConfigError, match=r"^kickstart\.teacher: 'ppo-3p' cannot be played: .*trained with reroll_with_card=False"
    ):
        train(other, progress=False, quiet=True)


def test_the_opponents_are_checked_at_each_player_count_of_the_run(tmp_path: Path) -> None:
    from risk_env.train.device_train import train

    cfg = _tiny(tmp_path / "pc", **{"env.player_counts": [2, 3], "opponents.baselines": ["random+random"]})
    with pytest.raises(ConfigError) as info:  # (the 3-player line-up does not fit the 2-player games; no key named)
        train(cfg, progress=False, quiet=True)
    assert str(info.value).startswith("opponents.baselines: opponent line-up 'random+random' names 2 agents; 2 players need 1")
    assert not (tmp_path / "pc").exists()


def test_warm_start_and_kickstarting_run_end_to_end(tmp_path: Path) -> None:
    from risk_env.train.sb3 import train

    cfg = _tiny(
        tmp_path / "ws",
        **{
            "opponents.baselines": ["random"],
            "imitation": {
                "enabled": True,
                "teacher": "aggressive",
                "decisions": 256,
                "dagger_rounds": 1,
                "dagger_decisions": 128,
            },
            "kickstart": {"enabled": True, "teacher": "aggressive", "kl_coef": 0.5, "anneal_steps": 128},
            "eval.every": 0,
            "eval.final_games": 0,
        },
    )
    res = train(cfg, progress=False, quiet=True)
    assert 256 <= res.timesteps < 256 + 128
    report = json.loads((tmp_path / "ws" / "imitation.json").read_text())
    assert [p["phase"] for p in report["phases"]] == ["clone", "dagger 1"]
    log = (tmp_path / "ws" / "train.log").read_text()
    assert "step_000000000.pt" in log and "agreement with aggressive" in log  # the clone is checkpoint 0


def test_a_league_seat_of_the_latest_learner_is_a_learner_seat() -> None:
    from risk_env.train.seating import Seating
    from risk_env.vector.league import League
    from risk_env.vector.network import NetworkPolicy

    env = LearnerEnv(16, device=DEVICE, seed=0, self_play=True, preset="fast", num_players=3)
    gen = torch.Generator(device=DEVICE).manual_seed(0)
    net = GraphNet(20, 73, env.game.num_actions - env.game.T, hidden=8, rounds=1)
    league = League(env.game, gen, baselines=["random"], p_snapshot=1.0, p_latest=1.0)
    league.set_latest(NetworkPolicy(env.game, net, "graph"))
    seating = Seating(league, 16, 3, env.device)  # every opponent seat drawn as the latest learner
    assert bool(seating.learners().all())
    league.p_snapshot = 0.0
    league._probs = None
    seating.new_games(torch.arange(16, device=DEVICE))
    assert seating.learners().sum(1).tolist() == [1] * 16  # only the main learner seat


def test_self_play_snapshots_and_pfsp_in_the_league(tmp_path: Path) -> None:
    from risk_env.train.sb3 import train

    cfg = _tiny(
        tmp_path / "sp",
        **{
            "rules.turn_limit": 2,  # (games that end within the tiny run, for PFSP's results)
            "opponents": {
                "baselines": ["random", "aggressive"],
                "self_play": {"enabled": True, "snapshot_every": 128, "p_snapshot": 0.5},
                "pfsp": {"enabled": True},
            },
            "eval.final_games": 0,
        },
    )
    res = train(cfg, progress=False, quiet=True)
    snaps = sorted((tmp_path / "sp" / "pool").glob("snap_*.pt"))
    assert len(snaps) == 2 and all(load_policy(p)[1]["timesteps"] >= 128 for p in snaps)
    meta = json.loads(sorted((tmp_path / "sp" / "checkpoints").glob("step_*.json"))[-1].read_text())
    assert meta["snapshots"] == [str(p) for p in snaps]
    log = (tmp_path / "sp" / "train.log").read_text()
    assert "joins the league" in log and "pfsp @" in log
    # the checkpoint keeps the league's results, and a resumed run draws from them (they were dropped)
    kept = meta["pfsp"]["2p"]
    assert kept["total_games"] > 0 and {"random", "aggressive"} <= set(kept["results"])
    assert all(0.0 <= x <= 1.0 for scores in kept["results"].values() for x in scores)
    res2 = train(
        _tiny(
            tmp_path / "sp",
            **{"total_timesteps": 512, "rules.turn_limit": 2, "opponents": cfg.opponents.model_dump(), "eval.final_games": 0},
        ),
        resume=tmp_path / "sp",
        progress=False,
        quiet=True,
    )
    assert res2.timesteps >= 512 and res.timesteps >= 256
    log = (tmp_path / "sp" / "train.log").read_text()
    assert f"pfsp: the results of {kept['total_games']:,} episodes restored from the checkpoint" in log
    # the league names a snapshot by the run's PFSP key (Run.forget_dropped keeps the results of those it draws)
    meta2 = json.loads(sorted((tmp_path / "sp" / "checkpoints").glob("step_*.json"))[-1].read_text())
    drawn = {Path(p).stem for p in meta2["snapshots"]}
    assert set(meta2["pfsp"]["2p"]["results"]) - {"random", "aggressive"} <= drawn
    last = [line for line in log.splitlines() if "] pfsp @ " in line][-1]
    assert {part.split(" scored ")[0] for part in last.split(": ", 1)[1].split(", ")} == {"random", "aggressive", *drawn}
    # one evaluation per period, across the resume (the checkpoint was written before the evaluation of its step
    # moved the schedule on, so the resumed run evaluated that period again)
    periods = [json.loads(line)["timesteps"] // 128 for line in (tmp_path / "sp" / "evals.jsonl").read_text().splitlines()]
    assert periods == sorted(set(periods)) and len(periods) >= 3
    # resumed into another folder (--out), the run copies the snapshots it plays into its own pool: it recorded the
    # source's paths, so a later branch of the source that wrote snapshots of the same names changed what it played
    newest = sorted((tmp_path / "sp" / "checkpoints").glob("step_*.pt"))[-1]
    played = json.loads(newest.with_suffix(".json").read_text())["snapshots"]
    other = tmp_path / "other"
    opponents = cfg.opponents.model_dump()
    train(
        _tiny(other, **{"total_timesteps": 640, "rules.turn_limit": 2, "opponents": opponents, "eval.final_games": 0}),
        resume=newest,
        progress=False,
        quiet=True,
    )
    listed = json.loads(sorted((other / "checkpoints").glob("step_*.json"))[-1].read_text())["snapshots"]
    assert [Path(p).parent for p in listed] == [other / "pool"] * len(listed) and len(listed) >= len(played)
    for source in played:
        assert (other / "pool" / Path(source).name).read_bytes() == Path(source).read_bytes()
    assert (
        f"self-play: {len(played)} snapshots of the run resumed copied into {other / 'pool'}" in (other / "train.log").read_text()
    )
    # a snapshot that does not read is refused before anything in the folder moves (it failed after the set-aside)
    first = sorted((tmp_path / "sp" / "pool").glob("snap_*.pt"))[0]
    first.write_bytes(first.read_bytes()[:100])
    earliest = sorted((tmp_path / "sp" / "checkpoints").glob("step_*.pt"))[0]
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "sp").rglob("*")}
    with pytest.raises(ConfigError, match=f"its self-play snapshot does not load: '{first}' is not a readable policy file"):
        train(_tiny(tmp_path / "sp", **{"rules.turn_limit": 2}), resume=earliest, progress=False, quiet=True)
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "sp").rglob("*")} == before


def test_the_benchmark_times_both_trainers_with_one_config(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from risk_env.train.bench import benchmark, main

    sets = [
        "trainer=device",
        "rules.map=small",
        "env.n_envs=8",
        "ppo.n_steps=8",
        "ppo.batch_size=32",
        "ppo.n_epochs=1",
        "ppo.graph_hidden=8",
        "ppo.graph_rounds=1",
        "opponents.baselines=[random]",
    ]
    cfg = load_config(None, sets)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    monkeypatch.delenv("SB3_LOGDIR", raising=False)  # (conftest sends SB3's default folders elsewhere)
    (tmp_path / "temp").mkdir()
    res = benchmark(cfg, updates=1, repeats=2, sb3_envs=4)
    assert list((tmp_path / "temp").glob("SB3-*")) == []  # (SB3's own logger made an empty folder there per learn)
    monkeypatch.undo()
    assert len(res.device_windows) == len(res.sb3_windows) == 2
    assert res.device > 0 and res.sb3 > 0 and res.ratio == pytest.approx(res.device / res.sb3)
    assert 8 <= res.decisions_per_update <= 64  # the learner's decisions of 8 slots x 8 calls, to the sb3 path's envs
    assert "ratio device / sb3" in res.table()
    assert main(["--set", "env.n_envs=0"]) == 2 and "env.n_envs" in capsys.readouterr().err
    # self-play on both sides: every device decision is a learner's; sb3 plays a frozen snapshot of the network
    selfplay = load_config(None, [*sets[:-1], "opponents.baselines=[self]"])
    res = benchmark(selfplay, updates=1, repeats=1, sb3_envs=4, sb3_opponent="self")
    assert res.decisions_per_update == 64 and "frozen snapshot" in res.table()
    # --json into a folder that is not there yet: made once the figures are in
    out = tmp_path / "new" / "bench.json"
    args = [a for item in [*sets, "opponents.weights=null", "imitation.enabled=false"] for a in ("--set", item)]
    assert main([*args, "--updates", "1", "--repeats", "1", "--sb3-envs", "4", "--json", str(out)]) == 0
    saved = json.loads(out.read_text())
    assert saved["ratio"] == pytest.approx(saved["device"] / saved["sb3"]) and len(saved["device_windows"]) == 1


def test_the_benchmarks_sb3_envs_need_not_divide_the_decisions_per_update() -> None:
    from risk_env.train.bench import _sb3_config

    cfg = load_config("device")
    # 3 envs and 64 decisions: n_steps 21, the nearest (63 decisions), not a refusal as the docstring said
    assert _sb3_config(cfg, 3, "random", 64).ppo.n_steps == 21
    assert _sb3_config(cfg, 16, "random", 200).ppo.n_steps == 12  # 192 decisions
    assert _sb3_config(cfg, 16, "random", 8).ppo.n_steps == 2  # at least 2 (PPO's n_steps)


def test_the_benchmark_refuses_an_unknown_sb3_opponent_before_timing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from risk_env.train import bench, device_train

    def no_env(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the benchmark built its env before checking --sb3-opponent")

    monkeypatch.setattr(device_train, "build_env", no_env)
    with pytest.raises(ConfigError) as info:
        bench.benchmark(load_config("device"), sb3_opponent="nope")
    assert str(info.value).startswith("--sb3-opponent: unknown agent 'nope': use one of random, aggressive, continent, ")
    assert str(info.value).endswith("; or self (a frozen snapshot of the same network)")
    assert bench.main(["--sb3-opponent", "balancd"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --sb3-opponent: unknown agent 'balancd'") and err.count("\n") == 1
    # a spec of a known form that does not load: refused up front too (it was found after the warm-up)
    with pytest.raises(ConfigError) as info:
        bench.benchmark(load_config("device"), sb3_opponent="missing.zip")
    assert str(info.value) == "--sb3-opponent: 'missing.zip' cannot be played: no saved model at 'missing.zip'"


def test_the_benchmark_refuses_its_arguments_before_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from risk_env.train import bench

    cfg = load_config(None, ["trainer=device", "rules.map=small", "env.n_envs=8", "ppo.n_steps=8"])
    warm_ups: list[object] = []
    monkeypatch.setattr(DevicePPO, "learn_once", lambda self: warm_ups.append(self))
    for kwargs, named in (
        ({"sb3_envs": 0}, "--sb3-envs must be an integer >= 1, got 0"),  # (it was refused after the warm-up)
        ({"updates": 0}, "--updates must be an integer >= 1, got 0"),  # ("updates and repeats must be >= 1")
        ({"repeats": -1, "sb3_opponent": "missing.zip"}, "--repeats must be an integer >= 1, got -1"),
    ):
        with pytest.raises(ConfigError) as info:
            bench.benchmark(cfg, **{"updates": 1, "repeats": 1, **kwargs})  # type: ignore[arg-type]
        assert str(info.value) == named
    assert warm_ups == []
    with pytest.raises(ConfigError) as info:  # (the opponent's first game refused it, unnamed)
        bench.benchmark(
            load_config("device", ["rules.card_trade=no_cards", "eval.rules.card_trade=no_cards"]), sb3_opponent="ppo-4p"
        )
    assert str(info.value).startswith("--sb3-opponent: 'ppo-4p' cannot be played: agent 'ppo-4p' cannot play these rules: ")
    assert warm_ups == []
    # a rollout that makes no learner decision is refused (every figure was 0 decisions/s, "ratio 0.00x")
    monkeypatch.setattr(DevicePPO, "learn_once", lambda self: None)
    with pytest.raises(ConfigError, match=r"^the device trainer's rollout of env.n_envs=8 x ppo.n_steps=8 calls made no"):
        bench.benchmark(cfg, updates=1, repeats=1)
    # --json is checked before the config is read and the trainers timed, not when the figures are written

    def run(*args: object, **kwargs: object) -> None:
        raise AssertionError("ran before --json was checked")

    monkeypatch.setattr(bench, "benchmark", run)
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    assert bench.main(["--json", str(blocker / "out.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --json '{blocker / 'out.json'}': cannot create the folder '{blocker}': ")
    assert err.count("\n") == 1


def test_the_benchmark_refuses_too_many_torch_threads_before_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from risk_env.train import bench

    def run(*args: object, **kwargs: object) -> None:
        raise AssertionError("ran with torch_threads=100000")

    monkeypatch.setattr(bench, "benchmark", run)
    out = tmp_path / "bench.json"
    assert bench.main(["--set", "torch_threads=100000", "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.endswith(
        "torch_threads: Input should be less than or equal to 1024, got 100000 (set by the override 'torch_threads=100000')\n"
    )
    assert not out.exists()


def test_the_benchmark_refuses_rules_no_game_is_played_under_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from risk_env.train import bench, device_train

    def no_env(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the benchmark built its env before checking the rules")

    monkeypatch.setattr(device_train, "build_env", no_env)
    assert bench.main(["--set", "rules.map=nope"]) == 2  # (a MapError traceback from the env's build)
    err = capsys.readouterr().err
    assert err.startswith("error: rules.map: unknown map 'nope'; shipped maps: classic, small") and err.count("\n") == 1


def test_one_network_on_several_player_counts_and_a_warm_network(tmp_path: Path) -> None:
    from risk_env.train.sb3 import train

    cfg = _tiny(
        tmp_path / "mix",
        **{
            "rules": {"preset": "fast", "num_players": 3, "map": "small", "turn_limit": 16},
            "env": {"n_envs": 8, "player_counts": [2, 3]},
            "opponents.baselines": ["random", "aggressive"],
            "ppo.init": "ppo-2p-0.1",
            "ppo.graph_hidden": 64,  # ppo-2p-0.1's sizes (others are refused)
            "ppo.graph_rounds": 3,
            "eval.every": 0,
            "eval.final_games": 0,
        },
    )
    res = train(cfg, progress=False, quiet=True)
    assert res.timesteps >= 256
    net, meta = load_policy(res.model_path)
    assert meta["player_counts"] == [2, 3] and net.sizes["hidden"] == 64  # ppo-2p-0.1's network, trained on
    log = (tmp_path / "mix" / "train.log").read_text()
    assert "2/3 players" in log and "starts from ppo-2p-0.1" in log
    with pytest.raises(ConfigError, match="ppo.init"):
        train(_tiny(tmp_path / "bad", **{"ppo.init": str(tmp_path / "nothing.pt")}), progress=False, quiet=True)
    with pytest.raises(ConfigError, match="player_counts"):
        _tiny(tmp_path / "bad", **{"env": {"n_envs": 8, "player_counts": [2, 7]}})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"ppo.graph_hidden": 8, "ppo.graph_rounds": 3},
            "ppo.init='ppo-2p-0.1' is a network of hidden=64, but ppo.graph_hidden=8: the run would train the init's "
            "network, not one of ppo.graph_hidden; set ppo.graph_hidden=64 (or leave ppo.init out)",
        ),
        (
            {"ppo.graph_hidden": 64, "ppo.graph_rounds": 1},
            "ppo.init='ppo-2p-0.1' is a network of rounds=3, but ppo.graph_rounds=1: the run would train the init's "
            "network, not one of ppo.graph_rounds; set ppo.graph_rounds=3 (or leave ppo.init out)",
        ),
    ],
)
def test_an_init_network_of_other_sizes_than_the_config_is_refused(tmp_path: Path, changes: dict, message: str) -> None:
    # (the init's sizes silently replaced ppo.graph_hidden / graph_rounds)
    from risk_env.train.sb3 import train

    with pytest.raises(ConfigError) as info:
        train(_tiny(tmp_path / "run", **{"ppo.init": "ppo-2p-0.1", **changes}), progress=False, quiet=True)
    assert str(info.value) == message
    assert not (tmp_path / "run").exists()  # refused before the run folder is written


def test_an_init_network_that_cannot_play_the_training_rules_is_refused_before_the_run_folder(tmp_path: Path) -> None:
    # (refused by the trainer's network after an earlier run in the folder was moved aside and config.yaml written, naming
    # neither ppo.init nor the switch)
    from risk_env.train.sb3 import train

    changes = {"ppo.init": "ppo-4p", "ppo.graph_hidden": 64, "ppo.graph_rounds": 3}
    changes.update({"rules.card_trade": "no_cards", "eval.rules.card_trade": "no_cards"})
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError) as info:
        train(_tiny(tmp_path / "run", **changes), progress=False, quiet=True)
    assert str(info.value) == (
        "ppo.init='ppo-4p' cannot play the training rules: this graph policy scores 28 action ids besides the 42 "
        "territories; these rules have 15 (rule switches such as the dice rules or the card trade change that block): "
        "train a policy under these rules (or play it under the rules it was trained for); it was trained with "
        "card_trade='escalating' (these rules: card_trade='no_cards')"
    )
    assert [p.name for p in (tmp_path / "run").iterdir()] == ["notes.txt"]
    with pytest.raises(ConfigError) as info:  # (a shipped MaskablePPO file names the switches too: they did not)
        train(_tiny(tmp_path / "run", **{**changes, "ppo.init": "ppo-2p-0.1"}), progress=False, quiet=True)
    assert str(info.value).startswith("ppo.init='ppo-2p-0.1' cannot play the training rules: this graph policy scores 28")
    assert str(info.value).endswith("it was trained with card_trade='escalating' (these rules: card_trade='no_cards')")


def test_ppo_init_reads_a_pretrained_name_before_a_file_of_that_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (a stray ./ppo-2p-0.1 in the working folder took the place of the shipped network, where load_agent("ppo-2p-0.1") did not)
    from risk_env.agents.registry import pretrained_path
    from risk_env.train.device_train import init_network
    from risk_env.train.graph_net import graph_net_from_sb3

    monkeypatch.chdir(tmp_path)
    (tmp_path / "ppo-2p-0.1").write_text("not a network")
    shipped = graph_net_from_sb3(pretrained_path("ppo-2p-0.1")).state_dict()
    net, meta = init_network("ppo-2p-0.1", "cpu")
    from risk_env.agents.registry import pretrained_rules

    assert all(torch.equal(v, shipped[k]) for k, v in net.state_dict().items())
    assert meta == {"rules": pretrained_rules("ppo-2p-0.1")}  # (a .zip keeps no rules: a shipped one's config has them)
    with pytest.raises(ConfigError, match=r"ppo.init='./ppo-2p-0.1': .*not a readable policy file"):
        init_network("./ppo-2p-0.1", "cpu")  # the path form names the file
    with pytest.raises(ConfigError, match=r"ppo.init='ppo-9p': no such file, nor a pretrained agent \(ppo-2p, [^()]*\)$"):
        init_network("ppo-9p", "cpu")
    with pytest.raises(ConfigError, match=r"\(the pretrained agent is named 'ppo-4p', without the suffix\)$"):
        init_network("ppo-4p.pt", "cpu")
    with pytest.raises(ConfigError, match=r"^ppo.init=' ' names no network: a pretrained agent \(ppo-2p, "):
        init_network(" ", "cpu")  # (it loaded the working folder, '.', as a file)


def test_the_dense_adjacency_gives_the_networks_own_neighbour_mean() -> None:
    from risk_env.vector import VectorGame

    vg = VectorGame(RulesConfig.from_preset("fast", num_players=2), device=DEVICE)
    edges = vg.graph_tables.edges
    torch.manual_seed(0)
    net = GraphNet(20, 73, vg.num_actions - vg.T, hidden=8, rounds=2).to(DEVICE)
    nodes, glob = torch.rand(5, vg.T, 20, device=DEVICE), torch.rand(5, 73, device=DEVICE)
    l1, v1 = net(nodes, edges[None].expand(5, -1, -1), glob)
    l2, v2 = net.forward_dense(nodes, glob, GraphNet.mean_adjacency(edges, vg.T))
    assert torch.equal(l1, l2) and torch.equal(v1, v2)


def test_the_evaluations_can_run_on_the_batched_engine(tmp_path: Path) -> None:
    from risk_env.train.sb3 import train

    cfg = _tiny(tmp_path / "vec", **{"eval.backend": "vector", "eval.opponents": ["random", "aggressive"], "eval.every": 0})
    res = train(cfg, progress=False, quiet=True)
    assert set(res.final_eval) == {"random", "aggressive"} and all(s.games == 2 for s in res.final_eval.values())


def test_rollout_bytes_counts_the_trainers_own_buffers() -> None:
    from risk_env.train.device_ppo import rollout_bytes
    from risk_env.vector.learner import LearnerEnv

    for players, steps in ((2, 5), (4, 16)):
        env = LearnerEnv(3, device=DEVICE, seed=0, self_play=True, preset="fast", num_players=players)
        gt = env.game.graph_tables
        net = GraphNet(gt.F, gt.G, env.game.num_actions - env.game.T, hidden=8, rounds=1)
        ppo = DevicePPO(env, net, PPOSettings(n_steps=steps), seed=0)
        held = [ppo._seat, ppo._valid, ppo._rewards, ppo._ended, ppo._held, ppo._held_reward, ppo._ep_return, ppo._ep_len]
        total = sum(t.nbytes for t in (*ppo.buf.values(), *held))
        assert rollout_bytes(env.game.T, gt.F, gt.G, env.game.num_actions, players, steps) * 3 == total


def test_a_run_too_large_for_the_memory_is_refused_before_its_folder(tmp_path: Path) -> None:
    # (ppo.n_steps=1e8 was torch's allocator error, env.n_envs=1e7 the engine's message naming num_envs, both after
    # config.yaml was written; ppo.n_steps=1e29 a TypeError from torch.zeros)
    from risk_env.train.device_train import train

    for key, value, message in (
        ("ppo.n_steps", 100_000_000, r"^env\.n_envs=8: the games need about .* a rollout of ppo\.n_steps=100,000,000 "
         r"calls\), but cpu has .*; not one game fits$"),
        ("env.n_envs", 100_000_000, r"^env\.n_envs=100,000,000: the games need about .* a rollout of ppo\.n_steps=16 "
         r"calls\), but cpu has .*; the largest env\.n_envs that fits is [\d,]+$"),
    ):  # fmt: skip
        if DEVICE.type != "cpu":
            pytest.skip("the message names the CPU's memory")
        with pytest.raises(ConfigError, match=message):
            train(_tiny(tmp_path / "run", **{key: value}), progress=False, quiet=True)
        assert not (tmp_path / "run").exists()
    with pytest.raises(ConfigError, match=r"ppo\.n_steps: Input should be less than or equal to 2147483647, got 10000"):
        _tiny(tmp_path / "run", **{"ppo.n_steps": 10**29})


def test_a_run_resumed_by_its_folder_writes_there_and_a_final_model_is_no_checkpoint(tmp_path: Path) -> None:
    # (resumed by its saved config, a copied run wrote into the original's folder: the out_dir saved in its
    # checkpoint; --resume RUN/model.pt started a fresh run of the default config in runs/default)
    import os
    import shutil

    from risk_env.train.sb3 import run_config, train

    first = tmp_path / "first"
    train(_tiny(first, total_timesteps=128), progress=False, quiet=True)
    copy = tmp_path / "copy"
    shutil.copytree(first, copy)
    before = {p: p.stat().st_mtime_ns for p in first.rglob("*")}
    cwd = os.getcwd()
    os.chdir(tmp_path)  # (the saved out_dir is absolute here; the copy must win over it all the same)
    try:
        cfg = run_config(None, ["total_timesteps=256"], resume=copy)
        res = train(cfg, resume=copy, progress=False, quiet=True)
    finally:
        os.chdir(cwd)
    assert res.model_path == copy / "model.pt" and (copy / "checkpoints" / "step_000000256.pt").exists()
    assert {p: p.stat().st_mtime_ns for p in first.rglob("*")} == before
    made = set(tmp_path.rglob("*"))
    with pytest.raises(ConfigError) as info:
        train(run_config(None, [], resume=copy / "model.pt"), resume=copy / "model.pt", progress=False, quiet=True)
    assert str(info.value).startswith(f"--resume {str(copy / 'model.pt')!r}: not a checkpoint (a step_*.pt file, with its")
    assert set(tmp_path.rglob("*")) == made


def test_a_fresh_run_into_an_earlier_runs_folder_sets_that_run_aside(tmp_path: Path) -> None:
    # (the earlier run's checkpoints stayed: a resume took the newest, the earlier run's, and the rotation removed the
    # new run's first; its evaluations were drawn on the new run's curves)
    from risk_env.train.device_train import train

    run = tmp_path / "run"
    train(_tiny(run, total_timesteps=384), progress=False, quiet=True)
    (run / "checkpoints" / "mine.txt").write_text("keep")  # (a file of the user's among the run's)
    train(_tiny(run, total_timesteps=128, seed=2), progress=False, quiet=True)
    assert sorted(p.name for p in (run / "checkpoints").glob("step_*.pt")) == ["step_000000128.pt"]
    assert [json.loads(line)["timesteps"] for line in (run / "evals.jsonl").read_text().splitlines()] == [128]
    (aside,) = run.glob("earlier-*")  # (nothing removed: the earlier run, whole, in one folder)
    assert (aside / "checkpoints" / "step_000000384.pt").exists() and (aside / "checkpoints" / "mine.txt").exists()
    assert (aside / "config.yaml").exists() and (aside / "model.pt").exists()
    assert f"the earlier run's files moved to {aside}" in (run / "train.log").read_text()
    # a folder that holds no run (no config.yaml and train.log of one) keeps what it holds where it is
    other = tmp_path / "other"
    (other / "checkpoints").mkdir(parents=True)
    (other / "checkpoints" / "mine.txt").write_text("keep")
    train(_tiny(other, total_timesteps=128), progress=False, quiet=True)
    assert (other / "checkpoints" / "mine.txt").read_text() == "keep" and not list(other.glob("earlier-*"))
    # ... but files a run would overwrite or rotate away, in a folder that holds no run, are refused (they were
    # overwritten: --out . in a folder of the user's)
    mine = tmp_path / "mine"
    (mine / "checkpoints").mkdir(parents=True)
    for name in ("model.pt", "results.json", "checkpoints/step_000000128.pt"):
        (mine / name).write_text("the user's")
    with pytest.raises(ConfigError) as e:
        train(_tiny(mine, total_timesteps=128), progress=False, quiet=True)
    assert str(e.value) == (
        f"the run folder {str(mine)!r} holds results.json, model.pt, checkpoints/step_000000128.pt, but no run (no "
        "config.yaml and train.log of one): a run there would overwrite them, add to them or rotate them away; move "
        "them elsewhere, or give another --out"
    )
    assert sorted(str(p.relative_to(mine)) for p in mine.rglob("*")) == [
        "checkpoints",
        "checkpoints/step_000000128.pt",
        "model.pt",
        "results.json",
    ]
    # links to nothing (the run wrote through them, or failed half-way on one), a config.yaml of the user's alone
    for name, shown in (
        ("evals.jsonl", "evals.jsonl"),
        ("checkpoints", "checkpoints (a link to nothing)"),
        ("config.yaml", None),
    ):
        folder = tmp_path / f"with-{name}"
        folder.mkdir()
        if shown is None:
            (folder / name).write_text("# the user's own\n")
            shown = name
        else:
            (folder / name).symlink_to(tmp_path / "nowhere" / name)
        with pytest.raises(ConfigError, match=f"holds {re.escape(shown)}, but no run"):
            train(_tiny(folder, total_timesteps=128), progress=False, quiet=True)
        assert [p.name for p in folder.iterdir()] == [name] and not (tmp_path / "nowhere").exists()


def test_checkpoints_sort_by_their_step_count_past_a_billion_steps(tmp_path: Path) -> None:
    # (sorted by name, step_1000000000 came before step_999999999, so --resume took the older one)
    from risk_env.train.run import checkpoint_step, checkpoints_in

    for name in ("step_999999999.pt", "step_1000000000.pt", "step_000000128.pt", "step_x.pt", "model.pt", "step_1.json"):
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in checkpoints_in(tmp_path)] == ["step_000000128.pt", "step_999999999.pt", "step_1000000000.pt"]
    assert latest_checkpoint(tmp_path) == tmp_path / "step_1000000000.pt"
    assert [checkpoint_step(Path(n)) for n in ("step_000000128.pt", "step_x.pt", "model.pt", "step_.pt")] == [
        128,
        None,
        None,
        None,
    ]
    assert checkpoints_in(tmp_path / "none") == [] and checkpoints_in(tmp_path, (".zip",)) == []


def test_a_resumed_run_finds_its_snapshots_in_the_pool_of_the_folder_that_holds_its_checkpoint(tmp_path: Path) -> None:
    # (the recorded paths were used as given: a run folder set aside, copied or moved lost the snapshots past its
    # branch point, and the run failed after its folder was rearranged)
    import shutil

    from risk_env.train.run import resumed_snapshots, set_aside_later_branch

    run = tmp_path / "run"
    for name in (
        "checkpoints/step_000000256.pt",
        "checkpoints/step_000000384.pt",
        "pool/snap_000000128.pt",
        "pool/snap_000000384.pt",
    ):
        (run / name).parent.mkdir(exist_ok=True, parents=True)
        (run / name).write_bytes(name.encode())
    recorded = [str(run / "pool" / "snap_000000128.pt"), str(run / "pool" / "snap_000000384.pt")]
    meta = {"snapshots": recorded}
    later = set_aside_later_branch(run, run / "checkpoints" / "step_000000256.pt")
    # the snapshots past the step move; those before it are copied, so the set-aside folder resumes on its own even
    # where the new branch writes a snapshot of the same name
    assert later is not None and sorted(p.name for p in (later / "pool").iterdir()) == ["snap_000000128.pt", "snap_000000384.pt"]
    assert [p.name for p in (run / "pool").iterdir()] == ["snap_000000128.pt"]
    (run / "pool" / "snap_000000128.pt").write_bytes(b"the new branch's")
    assert (later / "pool" / "snap_000000128.pt").read_bytes() == b"pool/snap_000000128.pt"
    ckpt = later / "checkpoints" / "step_000000384.pt"
    own = [str(later / "pool" / n) for n in ("snap_000000128.pt", "snap_000000384.pt")]
    assert resumed_snapshots(meta, ckpt, later, 10) == own
    assert resumed_snapshots(meta, ckpt, run, 10) == own  # (into the run folder: nothing it needs moves aside)
    # where the checkpoint's folder lacks a snapshot, the recorded path; one in the run folder's pool, which a resume
    # of another folder's checkpoint into it would move aside, is refused
    (later / "pool" / "snap_000000128.pt").unlink()
    assert resumed_snapshots(meta, ckpt, later, 10) == [recorded[0], own[1]]
    with pytest.raises(ConfigError, match=r"would set the run there aside, and with it the self-play snapshot .*snap_000000128"):
        resumed_snapshots(meta, ckpt, run, 10)
    # a copied run folder reads its own copies
    shutil.copytree(later, tmp_path / "copy")
    shutil.copy(run / "pool" / "snap_000000128.pt", tmp_path / "copy" / "pool")
    copied = tmp_path / "copy" / "checkpoints" / "step_000000384.pt"
    assert resumed_snapshots(meta, copied, tmp_path / "copy", 10) == [
        str(tmp_path / "copy" / "pool" / n) for n in ("snap_000000128.pt", "snap_000000384.pt")
    ]
    # only the snapshots a pool of max_snapshots keeps are needed (the first, an anchor, and the newest): the files
    # of those it dropped may be gone
    (run / "pool" / "snap_000000128.pt").unlink()
    assert resumed_snapshots(meta, ckpt, later, 1) == [own[1]]
    with pytest.raises(ConfigError, match=r"snapshot snap_000000128\.pt it plays against is neither in "):
        resumed_snapshots(meta, ckpt, later, 2)
    # a snapshot found nowhere is named, before anything is written
    (later / "pool" / "snap_000000384.pt").unlink()
    with pytest.raises(ConfigError, match=r"the self-play snapshot snap_000000384.pt it plays against is neither in "):
        resumed_snapshots(meta, ckpt, later, 1)
    assert resumed_snapshots({}, ckpt, later, 10) == []


def test_a_set_aside_that_fails_midway_puts_back_what_it_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (an OSError in the middle was raised raw, after part of the earlier run had moved)
    import os
    import shutil
    import signal

    from risk_env.train import run as run_module
    from risk_env.train.run import set_aside_earlier_run, set_aside_later_branch

    run = tmp_path / "run"
    files = {
        "config.yaml": "c",
        "train.log": "l",
        "checkpoints/step_000000128.pt": "a",
        "checkpoints/step_000000256.pt": "b",
        "evals.jsonl": '{"timesteps": 128}\n{"timesteps": 256}\n',
        "model.pt": "m",
    }
    for name, text in files.items():
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_text(text)

    def layout() -> dict[str, str]:
        return {str(p.relative_to(run)): p.read_text() for p in sorted(run.rglob("*")) if p.is_file()}

    real_replace, real_move = os.replace, shutil.move
    refused = {"model.pt"}

    def failing(source: Any, target: Any) -> Any:
        if Path(source).name in refused:
            raise PermissionError(13, "Permission denied", str(source))
        return (real_replace if Path(source).suffix == ".part" else real_move)(source, target)

    monkeypatch.setattr(run_module.os, "replace", failing)
    monkeypatch.setattr(run_module.shutil, "move", failing)
    with pytest.raises(ConfigError) as e:
        set_aside_earlier_run(run)
    assert str(e.value) == (
        f"cannot set aside the earlier run in {run} (Permission denied: {run / 'model.pt'}): nothing moved; make its "
        "files movable, or write the run into another folder with --out"
    )
    assert layout() == files and not list(run.glob("earlier-*"))
    refused = {"evals.jsonl.part"}  # (the last step: the checkpoint and model.pt had moved)
    with pytest.raises(
        ConfigError,
        match=r"^cannot set aside the run's files past step_000000128\.pt in .*evals\.jsonl\.part\): .*make those files",
    ):
        set_aside_later_branch(run, run / "checkpoints" / "step_000000128.pt")
    assert layout() == files and not list(run.glob("later-*"))
    monkeypatch.setattr(run_module.os, "replace", real_replace)
    monkeypatch.setattr(run_module.shutil, "move", real_move)
    # Ctrl-C in the middle: what moved goes back, and the interrupt goes on
    moved: list[str] = []

    def interrupted(source: Any, target: Any) -> Any:
        moved.append(Path(source).name)
        if len(moved) == 3:
            raise KeyboardInterrupt
        return real_move(source, target)

    monkeypatch.setattr(run_module.shutil, "move", interrupted)
    with pytest.raises(KeyboardInterrupt):
        set_aside_earlier_run(run)
    assert layout() == files and not list(run.glob("earlier-*"))
    # a real SIGINT is held back until the move is done or undone: one in the middle, and a second one while what
    # moved goes back (it stranded files), and one after the evaluations were split (they were lost)
    moved.clear()

    def signalled(source: Any, target: Any) -> Any:
        moved.append(Path(source).name)
        if len(moved) in (2, 4):  # (the second while the first two moves are undone)
            os.kill(os.getpid(), signal.SIGINT)
        return real_move(source, target)

    monkeypatch.setattr(run_module.shutil, "move", signalled)
    with pytest.raises(KeyboardInterrupt):
        set_aside_earlier_run(run)
    assert len(moved) == 4 and layout() == files and not list(run.glob("earlier-*"))
    # SIGTERM (timeout, a job scheduler) is held back the same way, then goes to its own handler
    moved.clear()

    def terminated(source: Any, target: Any) -> Any:
        moved.append(Path(source).name)
        if len(moved) == 2:
            os.kill(os.getpid(), signal.SIGTERM)
        return real_move(source, target)

    def on_term(signum: int, frame: Any) -> None:
        raise SystemExit(143)

    monkeypatch.setattr(run_module.shutil, "move", terminated)
    before_term = signal.signal(signal.SIGTERM, on_term)
    try:
        with pytest.raises(SystemExit):
            set_aside_earlier_run(run)
    finally:
        signal.signal(signal.SIGTERM, before_term)
    assert layout() == files and not list(run.glob("earlier-*"))
    monkeypatch.setattr(run_module.shutil, "move", real_move)
    (run / "pool").mkdir()
    (run / "pool" / "snap_000000128.pt").write_text("s")  # (copied into the set-aside folder, in its finish)
    files["pool/snap_000000128.pt"] = "s"

    real_copy2 = shutil.copy2

    def copy_then_signal(source: Any, target: Any) -> Any:
        os.kill(os.getpid(), signal.SIGINT)
        return real_copy2(source, target)

    monkeypatch.setattr(run_module.shutil, "copy2", copy_then_signal)
    with pytest.raises(KeyboardInterrupt):
        set_aside_later_branch(run, run / "checkpoints" / "step_000000128.pt")
    assert layout() == files and not list(run.glob("later-*"))
    monkeypatch.setattr(run_module.shutil, "copy2", real_copy2)
    later = set_aside_later_branch(run, run / "checkpoints" / "step_000000128.pt")
    assert later is not None and (run / "evals.jsonl").read_text() == '{"timesteps": 128}\n'
    assert (later / "evals.jsonl").read_text() == files["evals.jsonl"] and (later / "model.pt").read_text() == "m"


def test_a_resume_under_other_rules_is_refused_before_the_run_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (a resumed 2-player run with --set rules.num_players=3 trained on 3-player games, its config.yaml now naming 3
    # players, while its checkpoints, snapshots and PFSP results held 2-player ones)
    from risk_env.train.sb3 import train

    run = tmp_path / "run"
    train(_tiny(run, total_timesteps=128, **{"eval.final_games": 0}), progress=False, quiet=True)
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*")}
    three = {"preset": "fast", "num_players": 3, "turn_limit": 16}
    for changes, what in (
        ({"rules": three, "eval.rules": three}, "rules.num_players=2 -> 3"),
        ({"rules.turn_limit": 24}, "rules.turn_limit=16 -> 24"),
        ({"env.player_counts": [2, 3]}, "env.player_counts=[2] -> [2, 3]"),
    ):
        with pytest.raises(ConfigError) as info:
            train(_tiny(run, total_timesteps=256, **changes), resume=run, progress=False, quiet=True)
        assert str(info.value) == (
            f"--resume {str(run)!r} continues a run of other rules ({what}): a resumed run plays its run's game; "
            "resume it with its own rules, or start a new run from its network with --set ppo.init=PATH"
        )
        assert {p: p.stat().st_mtime_ns for p in run.rglob("*")} == before
    # a ppo.init the resumed run would not use (it goes on from its checkpoint's network) is refused, not ignored
    with pytest.raises(ConfigError) as info:
        train(_tiny(run, total_timesteps=256, **{"ppo.init": str(run / "model.pt")}), resume=run, progress=False, quiet=True)
    assert str(info.value) == (
        f"--resume {str(run)!r} continues its checkpoint's network, so ppo.init={str(run / 'model.pt')!r} would not be "
        "used (the run started from None); drop --resume to start a new run from it, or leave ppo.init as the run had it"
    )
    # a run started from a network: the same file however written resumes; a config that names none is told so
    from risk_env.train.device_train import _same_init

    assert _same_init(str(run / "model.pt"), str(run / "checkpoints" / ".." / "model.pt"))
    assert not _same_init("ppo-4p", str(run / "model.pt")) and not _same_init(None, "ppo-4p") and _same_init(None, None)
    # (a pretrained name in any case is that network, and never a file of its name, which ppo.init does not read)
    assert _same_init("PPO-4P ", "ppo-4p") and not _same_init("ppo-4p", "ppo-4p-0.1")
    with monkeypatch.context() as m:
        m.chdir(tmp_path)
        Path("ppo-4p").write_text("a file of the name")
        assert not _same_init("ppo-4p", "./ppo-4p") and _same_init("./ppo-4p", str(tmp_path / "ppo-4p"))
    meta = run / "checkpoints" / "step_000000128.json"
    saved = json.loads(meta.read_text())
    saved["config"]["ppo"]["init"] = "ppo-4p"
    meta.write_text(json.dumps(saved))
    with pytest.raises(ConfigError) as info:
        train(_tiny(run, total_timesteps=256), resume=run, progress=False, quiet=True)
    assert str(info.value) == (
        f"--resume {str(run)!r}: the run started from ppo.init='ppo-4p', which this config does not name; resume "
        "without --config (the run's own config), or set ppo.init='ppo-4p'"
    )
    saved["config"]["ppo"]["init"] = None
    meta.write_text(json.dumps(saved))
    # settings outside the game (the evaluation's rules, the step count) may change
    later = _tiny(run, total_timesteps=256, **{"eval.final_games": 0, "eval.rules.turn_limit": 20})
    res = train(later, resume=run, progress=False, quiet=True)
    assert res.timesteps == 256


def test_the_resume_rules_check_names_the_switches_the_configs_name() -> None:
    from risk_env.rules.config import resolve_rules
    from risk_env.train.run import check_resumed_rules, played_game

    cfg = _tiny(Path("unused"))
    fast = resolve_rules(rules=cfg.rules).to_dict()
    fresh = "start anew"
    check_resumed_rules(cfg, {"config": {"rules": fast}}, "r", fresh)  # (the same game written out switch by switch)
    check_resumed_rules(cfg, {}, "r", fresh)  # (no metadata: nothing to compare)
    check_resumed_rules(cfg, {"config": {"rules": {"num_players": 9}}}, "r", fresh)  # (an older run's unreadable rules)
    with pytest.raises(
        ConfigError,
        match=r"\(rules\.preset=None -> 'fast', rules\.setup='deal' -> 'random', rules\.turn_limit=1000 -> 16\): "
        r".* or start anew$",
    ):
        check_resumed_rules(cfg, {"config": {"rules": {"num_players": 2}}}, "r", fresh)
    # the game the checkpoint kept decides, not its config's rules read again (a rules file edited since)
    kept = {"rules": {**fast, "fortify": "connected"}, "player_counts": [2]}
    with pytest.raises(ConfigError, match=r"\(rules\.fortify='connected' -> 'adjacent'\)"):
        check_resumed_rules(cfg, {"config": {"rules": cfg.rules}, "game": kept}, "r", fresh)
    # one player count, however written: env.player_counts [2] plays the games of num_players 2; the lanes' order aside
    check_resumed_rules(_tiny(Path("unused"), **{"env.player_counts": [2]}), {"game": {**kept, "rules": fast}}, "r", fresh)
    two = _tiny(Path("unused"), **{"env.player_counts": [3, 2]})
    check_resumed_rules(two, {"game": {"rules": fast, "player_counts": [2, 3]}}, "r", fresh)
    with pytest.raises(ConfigError, match=r"\(env\.player_counts=\[2\] -> \[2, 3\]\)"):
        check_resumed_rules(two, {"game": {"rules": fast, "player_counts": [2]}}, "r", fresh)
    # with env.player_counts each lane sets its own count: rules.num_players plays no game (nor its starting armies)
    three = _tiny(Path("unused"), **{"env.player_counts": [3, 2], "rules.num_players": 3})
    check_resumed_rules(three, {"config": {"rules": cfg.rules}, "game": played_game(two)}, "r", fresh)
    older = {"rules": resolve_rules(rules={**cfg.rules, "num_players": 3}).to_dict(), "player_counts": [2, 3]}
    check_resumed_rules(two, {"config": {"rules": cfg.rules}, "game": older}, "r", fresh)  # (kept at num_players 3)
    assert played_game(three)["rules"] == played_game(two)["rules"] and played_game(two)["rules"]["starting_armies"] == 40


def test_the_resume_rules_check_compares_the_board_not_the_name(tmp_path: Path) -> None:
    from risk_env.train.run import check_resumed_rules, played_game

    fresh = "start anew"
    cfg = _tiny(Path("unused"))
    kept = {"config": {"rules": cfg.rules}, "game": played_game(cfg)}
    board = load_map("classic").to_dict()
    same = tmp_path / "my_classic.json"  # the classic board under another name, drawn elsewhere
    moved = [{**t, "xy": [1 + i, 1]} for i, t in enumerate(board["territories"])]
    same.write_text(json.dumps({**board, "name": "mine", "territories": moved}))
    check_resumed_rules(_tiny(Path("unused"), **{"rules.map": str(same)}), kept, "r", fresh)
    # a map file edited since the checkpoint: the same name, another board
    mine = _tiny(Path("unused"), **{"rules.map": str(same)})
    saved = {"config": {"rules": mine.rules}, "game": played_game(mine)}
    bonus = [{**c, "bonus": c["bonus"] + 1} for c in board["continents"]]
    same.write_text(json.dumps({**board, "continents": bonus}))
    edited = r"\(rules\.map='.*my_classic\.json': the board differs from the checkpoint's \(a map file edited since\?\)\)"
    with pytest.raises(ConfigError, match=edited):
        check_resumed_rules(mine, saved, "r", fresh)
    small = _tiny(Path("unused"), **{"rules.map": "small"})
    with pytest.raises(ConfigError, match=r"\(rules\.map='classic' -> 'small'\)"):
        check_resumed_rules(small, kept, "r", fresh)
    # a map that does not load is not compared: check_rules names it and why ("unknown map 'Classic'"), not "other rules"
    check_resumed_rules(_tiny(Path("unused"), **{"rules.map": "Classic"}), kept, "r", fresh)
    check_resumed_rules(cfg, {**kept, "game": {**kept["game"], "map": kept["game"]["map"].upper()}}, "r", fresh)
    # a checkpoint whose .json keeps the game but no config: no preset is blamed that nobody changed
    with pytest.raises(ConfigError, match=r"other rules \(rules\.turn_limit=16 -> 20\): "):
        check_resumed_rules(_tiny(Path("unused"), **{"rules.turn_limit": 20}), {"game": kept["game"]}, "r", fresh)
    # a count set by env.player_counts is named so
    with pytest.raises(ConfigError, match=r"other rules \(env\.player_counts=\[2\] -> \[3\]\): "):
        check_resumed_rules(_tiny(Path("unused"), **{"env.player_counts": [3]}), kept, "r", fresh)
    # a checkpoint without the board's fingerprint (older runs) compares the map's name
    older = {"config": {"rules": cfg.rules}, "game": {k: v for k, v in kept["game"].items() if k != "map"}}
    check_resumed_rules(cfg, older, "r", fresh)
    with pytest.raises(ConfigError, match=r"\(rules\.map='classic' -> '.*my_classic\.json'\)"):
        check_resumed_rules(mine, older, "r", fresh)


def test_a_run_under_torch_default_dtype_float64_trains_a_float32_network(tmp_path: Path) -> None:
    """With ``torch.set_default_dtype(torch.float64)`` the trainer failed at its first decision (its float64 rollout
    buffers took the float32 network's outputs)."""
    from risk_env.train.sb3 import train

    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        res = train(_tiny(tmp_path / "run", **{"opponents.baselines": ["random"]}), progress=False, quiet=True)
    finally:
        torch.set_default_dtype(before)
    assert res.timesteps >= 256 and res.final_eval["random"].games == 2
    net, _ = load_policy(res.model_path)
    assert {p.dtype for p in net.parameters()} == {torch.float32}


def test_lanes_of_other_counts_keep_the_runs_evaluation_rules(tmp_path: Path) -> None:
    """With ``eval.rules`` left out (the training rules), each lane of ``env.player_counts`` took its own count for the
    evaluation and refused a 3-player line-up in the 2-player lane, though that lane never evaluates."""
    from risk_env.train.sb3 import train

    cfg = _tiny(
        tmp_path / "run",
        **{
            "rules.num_players": 3,
            "env.player_counts": [2, 3],
            "eval.rules": None,
            "eval.opponents": ["random+random"],
            "opponents.baselines": ["random"],
        },
    )
    res = train(cfg, progress=False, quiet=True)
    assert res.final_eval["random+random"].games == 2
    assert json.loads((tmp_path / "run" / "results.json").read_text())["eval_rules"]["num_players"] == 3
