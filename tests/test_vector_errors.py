"""Clear failures of the batched engine: a missing torch names the extra, a device that is not
available is named with the ones that are, and every argument of VectorEnv's and VectorGame's
entry points is checked before anything changes, with the AEC env's error types."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from vector_support import one_torch_thread  # noqa: F401 (the fixture applies to this module)

from risk_env import ConfigError, IllegalActionError, RulesConfig
from risk_env.errors import MissingExtraError, ResetNeededError
from risk_env.vector import BatchState, Chance, VectorEnv, VectorGame


def test_a_missing_torch_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "risk_env.vector" or m.startswith("risk_env.vector.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingExtraError) as e:
        from risk_env.vector import VectorEnv  # noqa: F401
    assert str(e.value) == "the batched engine (risk_env.vector) needs torch (extra 'train'): pip install 'risk_env[train]'"
    assert e.value.extra == "train" and "\n" not in str(e.value)
    with pytest.raises(MissingExtraError, match="extra 'train'"):
        import risk_env.vector.engine  # noqa: F401


def test_a_device_that_is_not_available_is_named_with_the_available_ones() -> None:
    for device in ("cuda", "cuda:3", "mps"):
        if device.startswith("cuda") and torch.cuda.is_available() and torch.cuda.device_count() > 3:
            continue
        if device == "mps" and torch.backends.mps.is_available():
            continue
        with pytest.raises(ConfigError, match=rf"device='{device}' is not available.*available here: cpu"):
            VectorEnv(2, device=device)
    with pytest.raises(ConfigError, match="device='gpu' is not a torch device; available here: cpu"):
        VectorGame(device="gpu")
    assert VectorEnv(2, device=torch.device("cpu")).device.type == "cpu"


@pytest.mark.parametrize("device", ["hpu", "privateuseone", "xpu", "meta"])
def test_a_device_type_this_torch_has_no_backend_for_is_a_config_error(device: str) -> None:
    # (hpu and privateuseone raised ModuleNotFoundError: torch imports a torch.<type> module that is not there)
    if device == "xpu" and torch.xpu.is_available():
        pytest.skip("this torch has an XPU")
    with pytest.raises(ConfigError) as e:
        VectorEnv(4, device=device)
    assert str(e.value).startswith(f"device={device!r} is not available; available here: cpu")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"num_envs": 0}, "num_envs must be an integer from 1 to 2147483647"),
        ({"num_envs": 2.0}, "num_envs must be an integer from 1 to 2147483647"),
        ({"num_envs": 2, "seed": -1}, "seed must be an integer >= 0"),
        ({"num_envs": 2, "seed": "7"}, "seed must be an integer >= 0"),
        ({"num_envs": 2, "check_actions": 1}, "check_actions must be True or False"),
        ({"num_envs": 2, "final_observation": "yes"}, "final_observation must be True or False"),
        ({"num_envs": 2, "observation": "image"}, "observation='image' is not supported; choose one of: flat, graph"),
        ({"num_envs": 2, "turn_feature": 0}, "turn_feature must be True, False or None"),
        (
            {"num_envs": 2, "rules": 5},
            r"rules must be a RulesConfig, a preset name \(.*\), a rules file .* or None, got int",
        ),
        ({"num_envs": 2, "rules": {"num_players": 9}}, "num_players must be an integer from 2 to 6, got 9"),
        ({"num_envs": 2, "preset": "nope"}, "unknown rules preset 'nope'"),
        ({"num_envs": 2, "bogus": 1}, "unknown rules option"),
        ({"num_envs": 2, "preset": "fast", "rules": RulesConfig()}, "either rules= or preset="),
        ({"num_envs": 2, "static": "yes"}, "static must be True or False"),
        ({"num_envs": 2, "cuda_graph": True}, "cuda_graph=True needs a CUDA device, got device='cpu'"),
    ],
)
def test_constructor_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        VectorEnv(**kwargs)


def test_rules_are_taken_as_the_aec_env_takes_them() -> None:
    """``VectorEnv(rules=...)`` refused the mapping and the preset name that ``risk_env.env(rules=...)`` takes: both
    read one resolver now (``resolve_rules``), and give the same rules."""
    import risk_env

    for rules, keywords in [
        ({"preset": "fast", "turn_limit": 90}, {}),
        ({"num_players": 3, "setup": "random"}, {"turn_limit": 50}),
        ("duel", {}),
        (RulesConfig(num_players=5), {"turn_limit": 70}),
    ]:
        vec = VectorEnv(2, rules=rules, **keywords)
        aec = risk_env.raw_env(rules=rules, **keywords)
        assert vec.game.config == aec.game.config
    assert VectorEnv(2, rules={"preset": "fast", "turn_limit": 90}).game.config.turn_limit == 90
    assert VectorEnv(2, rules="duel").game.config.num_players == 2
    from risk_env.rules.config import rules_files

    stars = rules_files()["stars"]  # (a rules file's path as a Path, as its text)
    assert VectorEnv(2, rules=stars).game.config == VectorEnv(2, rules=str(stars)).game.config
    assert risk_env.raw_env(preset=stars).game.config == VectorEnv(2, preset=stars).game.config


@pytest.mark.parametrize("num_envs", [10**20, 2**31, np.int64(2**40), "8", None, 1e3])
def test_a_batch_beyond_the_cap_is_refused_when_built(num_envs: object) -> None:
    # (10**20 was taken here and failed at the first reset() with torch's RuntimeError)
    with pytest.raises(ConfigError) as info:
        VectorEnv(num_envs)  # type: ignore[arg-type]
    assert str(info.value) == f"num_envs must be an integer from 1 to 2147483647 (2**31 - 1), got {num_envs!r}"
    from risk_env.vector.env import MAX_ENVS

    assert MAX_ENVS == 2**31 - 1


def _env() -> VectorEnv:
    env = VectorEnv(4, seed=3, map="small", num_players=3, setup="random")
    env.reset()
    return env


def _legal(env: VectorEnv) -> torch.Tensor:
    """The first legal id of each slot (from the mask the env reports)."""
    assert env.state is not None
    return env.game.action_mask(env.state).float().argmax(1)


def _snapshot(env: VectorEnv) -> dict[str, torch.Tensor]:
    assert env.state is not None
    gen = env.game.generator.get_state()
    return {**{k: v.clone() for k, v in env.state.fields().items()}, "_generator": gen}


def _unchanged(env: VectorEnv, before: dict[str, torch.Tensor]) -> None:
    assert env.state is not None
    for k, v in env.state.fields().items():
        assert torch.equal(v, before[k]), k
    assert torch.equal(env.game.generator.get_state(), before["_generator"])


def test_before_reset_every_call_asks_for_reset() -> None:
    env = VectorEnv(2)
    for call in (
        lambda: env.step(torch.zeros(2, dtype=torch.int64)),
        lambda: env.reset_slots(torch.ones(2, dtype=torch.bool)),
        lambda: env.observe(torch.zeros(2, dtype=torch.int64)),
    ):
        with pytest.raises(ResetNeededError, match=r"call reset\(\) before"):
            call()


@pytest.mark.parametrize(
    "actions, match",
    [
        (torch.zeros(3, dtype=torch.int64), r"shape \(4,\), got shape \(3,\)"),
        (torch.zeros(4, 1, dtype=torch.int64), r"shape \(4,\), got shape \(4, 1\)"),
        (torch.zeros(4), "integer tensor of shape"),
        # (an unsigned id tensor other than uint8 is refused naming the dtypes taken)
        (torch.zeros(4, dtype=torch.uint64), r"dtype uint64 \(dtypes taken: int64, int32, int16, int8, uint8\)$"),
        (torch.zeros(4, dtype=torch.bool), "integer tensor of shape"),
        (["a", "b", "c", "d"], "integer tensor of shape"),
        (torch.full((4,), 10_000), r"out of range \(ids are 0\.\.36\)"),
        (torch.full((4,), -1), "out of range"),
        # (a masked array was read with its mask dropped: the hidden values played)
        (np.ma.masked_array(np.zeros(4, dtype=np.int64), mask=[1, 0, 0, 0]), "got a numpy masked array"),
    ],
)
def test_bad_actions_raise_illegal_action_error_and_change_nothing(actions, match: str) -> None:
    env = _env()
    before = _snapshot(env)
    with pytest.raises(IllegalActionError, match=match):
        env.step(actions)
    _unchanged(env, before)


def test_an_illegal_id_names_the_slot_phase_seat_and_legal_ids() -> None:
    env = _env()
    assert env.state is not None
    bad = env.game.action_mask(env.state).float().argmin(1)
    before = _snapshot(env)
    with pytest.raises(
        IllegalActionError, match=r"action \d+ is illegal in slot 0 \(phase reinforce, seat \d\); legal ids there: \["
    ):
        env.step(bad)
    _unchanged(env, before)
    env.step(_legal(env).numpy())  # numpy ids are accepted


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"active": torch.ones(3, dtype=torch.bool)}, r"active must be a bool tensor of shape \(4,\)"),
        ({"active": torch.ones(4, dtype=torch.int64)}, "active must be a bool tensor"),
        ({"active": "all"}, "active must be a bool tensor"),
        ({"active": np.ma.masked_array(np.ones(4, dtype=bool))}, r"got a numpy masked array \(its mask would be dropped\)"),
        ({"final_seat": torch.zeros(4)}, "final_seat must be an integer tensor"),
        ({"final_seat": torch.full((4,), 3)}, r"final_seat\[0\] = 3 is not a seat; seats are 0\.\.2"),
        ({"final_seat": torch.zeros(5, dtype=torch.int64)}, r"shape \(4,\)"),
    ],
)
def test_bad_step_arguments_raise_config_error_and_change_nothing(kwargs: dict, match: str) -> None:
    env = _env()
    legal = _legal(env)
    before = _snapshot(env)
    with pytest.raises(ConfigError, match=match):
        env.step(legal, **kwargs)
    _unchanged(env, before)


@pytest.mark.parametrize(
    "slots, match",
    [
        (torch.ones(3, dtype=torch.bool), r"slots must be a bool tensor of shape \(4,\)"),
        (torch.ones(4, dtype=torch.int64), "slots must be a bool tensor"),
        (None, "slots must be a bool tensor"),
    ],
)
def test_bad_reset_slots_arguments(slots, match: str) -> None:
    env = _env()
    before = _snapshot(env)
    with pytest.raises(ConfigError, match=match):
        env.reset_slots(slots)
    _unchanged(env, before)


@pytest.mark.parametrize(
    "seat, match",
    [
        (torch.zeros(4), "seat must be an integer tensor"),
        (torch.full((4,), 7), r"seat\[0\] = 7 is not a seat"),
        (torch.full((4,), -1), "is not a seat"),
        (0, r"shape \(4,\)"),
    ],
)
def test_bad_observe_arguments(seat, match: str) -> None:
    env = _env()
    before = _snapshot(env)
    with pytest.raises(ConfigError, match=match):
        env.observe(seat)
    _unchanged(env, before)


def test_bad_reset_seed_changes_nothing() -> None:
    env = _env()
    before = _snapshot(env)
    for seed in (-1, 1.5, "3", True):
        with pytest.raises(ConfigError, match="seed must be None or an integer >= 0"):
            env.reset(seed=seed)  # type: ignore[arg-type]
    _unchanged(env, before)


def test_vector_game_entry_points() -> None:
    vg = VectorGame(RulesConfig(num_players=3, map="small", setup="random"))
    for B in (0, -2, 1.0, True):
        with pytest.raises(ConfigError, match="number of games must be an integer >= 1"):
            vg.new_games(B)  # type: ignore[arg-type]
    s = vg.new_games(3)
    before = s.clone()
    legal = vg.action_mask(s).float().argmax(1)
    with pytest.raises(ConfigError, match="expected a BatchState"):
        vg.step({"owner": s.owner}, legal)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"action must be an integer tensor of shape \(3,\)"):
        vg.step(s, legal[:2])
    with pytest.raises(ConfigError, match="action must be an integer tensor"):
        vg.step(s, legal.float())
    with pytest.raises(ConfigError, match=r"active must be a bool tensor of shape \(3,\)"):
        vg.step(s, legal, active=torch.ones(3, dtype=torch.int64))
    with pytest.raises(ConfigError, match="chance must be a Chance"):
        vg.step(s, legal, chance=torch.ones(3, 5))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="one row per game"):
        vg.step(s, legal, chance=Chance(dice=torch.ones(2, 5, dtype=torch.int64)))
    with pytest.raises(ConfigError, match="seat must be an integer tensor"):
        vg.observe(s, torch.zeros(2, dtype=torch.int64))
    other = VectorGame(RulesConfig(num_players=3, setup="random")).new_games(3)  # the classic map: 42 territories
    with pytest.raises(ConfigError, match="does not belong to this game"):
        vg.action_mask(other)
    for name, t in s.fields().items():
        assert torch.equal(t, getattr(before, name)), name
    with pytest.raises(ConfigError, match="non-empty list of GameState"):
        vg.from_states([])
    ref = vg.game
    states = [ref.new_game(1), ref.new_game(2)]
    with pytest.raises(ConfigError, match="one Selection per state"):
        vg.from_states(states, [])
    big = VectorGame(RulesConfig(num_players=4, map="small", setup="random"))
    with pytest.raises(ConfigError, match="does not fit this game"):
        big.from_states(states)
    assert isinstance(vg.from_states(states), BatchState)
    assert np.array_equal(vg.from_states(states).owner.numpy(), np.stack([x.owner for x in states]))


# ---------------------------------------------------------------------- python -m risk_env.vector.bench
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seconds", "nan"], "seconds must be a finite number of seconds above 0, got nan"),  # (never ended)
        (["--seconds", "inf"], "seconds must be a finite number of seconds above 0, got inf"),
        (["--seconds", "0"], "seconds must be a finite number of seconds above 0, got 0.0"),
        (["--seconds", "-1"], "seconds must be a finite number of seconds above 0, got -1.0"),
        (["--reference-seconds", "nan"], "reference_seconds must be a finite number of seconds above 0, got nan"),
        (["--threads", "-1"], "--threads must be 0 (torch's current setting) or more, got -1"),
        (["0"], "batch sizes must be integers >= 1, got 0"),
    ],
)
def test_the_vector_benchmark_refuses_bad_arguments_before_timing_anything(
    argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from risk_env.vector import bench

    def timed(*args: object, **kwargs: object) -> dict:
        raise AssertionError("timed before the arguments were checked")

    monkeypatch.setattr(bench, "_reference", timed)
    monkeypatch.setattr(bench, "_vector", timed)
    with pytest.raises(SystemExit) as ex:
        bench.main(argv)
    out = capsys.readouterr()
    assert ex.value.code == 2 and out.out == "" and out.err == f"error: {message}\n"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seconds": float("nan")}, "seconds must be a finite number of seconds above 0, got nan"),
        ({"reference_seconds": 0}, "reference_seconds must be a finite number of seconds above 0, got 0"),
        ({"seconds": True}, "seconds must be a finite number of seconds above 0, got True"),
        ({"threads": 0}, r"threads must be an integer >= 1, or None \(torch's current setting\), got 0"),
        ({"threads": -1}, r"threads must be an integer >= 1, or None \(torch's current setting\), got -1"),
        ({"batch_sizes": (4, -2)}, "batch sizes must be integers >= 1, got -2"),
        # (a TypeError, and the seeds below a ConfigError from VectorEnv after the reference engine was timed)
        ({"batch_sizes": 4}, r"batch_sizes must be a sequence of integers >= 1 \(a tuple or a list: \(4,\) for one\), got int 4"),
        ({"batch_sizes": "4"}, r"batch_sizes must be a sequence of integers >= 1 .*, got str '4'"),
        ({"seed": -1}, "seed must be an integer >= 0, got -1"),
        ({"seed": 1.5}, "seed must be an integer >= 0, got 1.5"),
        ({"seed": 2**32}, r"seed must be below 2\*\*32 .*"),
        (
            {"seed": 2**32 - 1, "repeats": 2},
            r"seed \+ repeats - 1 must be below 2\*\*32 \(run r seeds the batched engine with seed \+ r\), "
            r"got seed=4294967295 and repeats=2",
        ),
    ],
)
def test_bench_vector_refuses_bad_arguments_with_config_error(
    kwargs: dict, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from risk_env.vector import bench

    def timed(*args: object, **kwargs: object) -> dict:
        raise AssertionError("timed before the arguments were checked")

    monkeypatch.setattr(bench, "_reference", timed)
    monkeypatch.setattr(bench, "_vector", timed)
    threads = torch.get_num_threads()
    with pytest.raises(ConfigError, match=f"^{message}$"):
        bench.bench_vector(**{"batch_sizes": (2,), "seconds": 0.01, "reference_seconds": 0.01, **kwargs})
    assert torch.get_num_threads() == threads


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (["2", "--device", "nope"], "device='nope' is not a torch device; available here: cpu"),
        (["2", "--device", "hpu"], "device='hpu' is not available; available here: cpu"),
        (["2", "--cuda-graph"], "cuda_graph=True needs a CUDA device, got device='cpu'"),
        (["2", "1000000000"], "batch size=1,000,000,000: the games need about "),
        (["2", "--players", "9"], "num_players"),
    ],
)
def test_the_vector_benchmark_refuses_a_device_cuda_graphs_or_a_batch_it_cannot_run_before_timing(
    argv: list[str], start: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """--device nope, --cuda-graph without a GPU (and a batch beyond the memory) were refused only after the
    reference engine had been timed: they are refused first, in one line, and the --json folder is not made."""
    if "--cuda-graph" in argv and torch.cuda.is_available():
        pytest.skip("a CUDA device is here")
    from risk_env.vector import bench

    def timed(*args: object, **kwargs: object) -> dict:
        raise AssertionError("timed before the arguments were checked")

    monkeypatch.setattr(bench, "_reference", timed)
    monkeypatch.setattr(bench, "_vector", timed)
    out_file = tmp_path / "new" / "deeper" / "rows.json"
    with pytest.raises(SystemExit) as ex:
        bench.main([*argv, "--json", str(out_file)])
    out = capsys.readouterr()
    assert ex.value.code == 2 and out.out == "" and out.err.startswith(f"error: {start}") and out.err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # (the --json folder was made before the other arguments were checked)


def test_the_vector_benchmark_checks_its_json_file_before_the_run(
    tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    import json

    from risk_env.vector import bench

    runs: list[tuple] = []

    def fake_bench(*args: object, **kwargs: object) -> list[dict]:
        runs.append(args)
        return [{"engine": "vector", "batch": 2, "decisions_per_s": 10.0, "runs": [10.0]}]

    monkeypatch.setattr(bench, "bench_vector", fake_bench)
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    for path, why in [
        (blocker / "rows.json", f"--json '{blocker / 'rows.json'}': cannot create the folder '{blocker}': "),
        (tmp_path, f"--json '{tmp_path}' is a folder; give a file name"),
        ("", "--json '': an empty file name; give a file name, or leave --json out"),  # (ran, wrote nothing, exit 0)
        ("/proc/y/rows.json", "--json '/proc/y/rows.json': cannot create the folder '/proc/y': "),  # (after the run)
    ]:
        with pytest.raises(SystemExit) as ex:
            bench.main(["2", "--json", str(path)])
        err = capsys.readouterr().err
        assert ex.value.code == 2 and err.startswith(f"error: {why}") and err.count("\n") == 1
    assert runs == []  # refused before the run
    # a folder that is not there yet is made when the rows are written, after the run
    path = tmp_path / "new" / "rows.json"
    assert bench.main(["2", "--json", str(path)]) == 0
    assert runs == [((2,),)] and json.loads(path.read_text())[0]["decisions_per_s"] == 10.0


@pytest.mark.parametrize(
    ("module", "missing", "feature"),
    [
        ("risk_env.vector.torchrl_env", "tensordict", "the TorchRL env over the batched engine (risk_env.vector.torchrl_env)"),
        ("risk_env.vector.torchrl_env", "torchrl", "the TorchRL env over the batched engine (risk_env.vector.torchrl_env)"),
        ("risk_env.vector.sb3", "stable_baselines3", "the SB3 VecEnv over the batched engine (risk_env.vector.sb3)"),
    ],
)
def test_a_face_without_its_package_names_the_extra(
    module: str, missing: str, feature: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The TorchRL and SB3 faces of the batched engine, imported without their package: one line naming the extra,
    as every other missing extra (they raised a bare ModuleNotFoundError)."""
    import importlib

    if missing == "torchrl":
        pytest.importorskip("tensordict")  # (else the message names tensordict, which is missing first)
    monkeypatch.delitem(sys.modules, module, raising=False)  # imported again, without the package
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(MissingExtraError) as e:
        importlib.import_module(module)
    assert str(e.value) == f"{feature} needs {missing} (extra 'train'): pip install 'risk_env[train]'"
    assert e.value.extra == "train" and e.value.name == missing and e.value.__cause__ is None


def test_a_batch_beyond_the_device_memory_is_refused_when_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """VectorEnv(10**7, map="small").reset() was killed by the system for its memory, VectorEnv(2**31 - 1) raised
    torch's RuntimeError: a batch whose games need more memory than the device has is a ConfigError when the env is
    built, naming what is needed, what there is and the largest num_envs that fits; no game is made."""
    from risk_env.vector import engine

    with pytest.raises(ConfigError) as e:  # (more than any machine has: 8 KB a game on the classic map)
        VectorEnv(2**31 - 1)
    assert str(e.value).startswith("num_envs=2,147,483,647: the games need about ")
    one = VectorEnv(1, map="small")
    per = one.game.bytes_per_game()  # 5 states, the flat observation (float32) and the mask (bool)
    assert per == engine.STEP_WORK * one.memory_per_game() + 4 * one.observation_size + one.num_actions == 2979
    made: list[int] = []
    new_games = VectorGame.new_games
    monkeypatch.setattr(VectorGame, "new_games", lambda self, B: made.append(B) or new_games(self, B))
    ram = 24 * 2**30
    monkeypatch.setattr(engine, "device_memory", lambda device: (ram, "its physical RAM"))
    with pytest.raises(ConfigError) as e:
        VectorEnv(10**7, map="small")
    assert str(e.value) == (
        f"num_envs=10,000,000: the games need about {10**7 * per / 2**30:,.1f} GiB of memory ({per:,} bytes a game: "
        f"its state, a step's work tensors, its observation and mask), but cpu has 24.0 GiB (its physical RAM); "
        f"the largest num_envs that fits is {ram // per:,}"
    )
    assert made == [1]  # (the one game measured for bytes_per_game; none for the batch)
    # the graph observation's nodes and globals (float32) count too
    from risk_env.envs.layout import GRAPH_GLOBAL_LAYOUT, GRAPH_NODE_LAYOUT

    graph = per + 4 * (one.game.T * GRAPH_NODE_LAYOUT.size + GRAPH_GLOBAL_LAYOUT.size)
    with pytest.raises(ConfigError) as e:
        VectorEnv(10**7, map="small", observation="graph")
    assert f"({graph:,} bytes a game: its state, a step's work tensors, its observation and mask, its graph " in str(e.value)
    assert str(e.value).endswith(f"the largest num_envs that fits is {ram // graph:,}")
    monkeypatch.setattr(engine, "device_memory", lambda device: (per - 1, "its physical RAM"))
    with pytest.raises(ConfigError, match="has 0.0 GiB \\(its physical RAM\\); not one game fits$"):
        VectorEnv(1, map="small")
    monkeypatch.setattr(engine, "device_memory", lambda device: None)  # (a device that is not asked: mps, ...)
    assert VectorEnv(10**7, map="small").num_envs == 10**7


def test_the_cpu_offers_the_memory_available_to_the_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (it was the physical RAM: a run that the RAM held but the free memory or a container's limit did not passed
    # the check and was killed by the system)
    from risk_env.vector import engine

    (tmp_path / "meminfo").write_text("MemTotal:       25165824 kB\nMemFree:  1000 kB\nMemAvailable:   12582912 kB\n")
    assert engine._meminfo_available(str(tmp_path / "meminfo")) == 12 * 2**30
    assert engine._meminfo_available(str(tmp_path / "none")) is None
    # cgroup v2: the process's own cgroup (named in /proc/self/cgroup) and each one above it; the least headroom
    v2 = tmp_path / "v2"
    (v2 / "job" / "step").mkdir(parents=True)
    (v2 / "cgroup.controllers").write_text("cpu memory\n")
    (tmp_path / "own_v2").write_text("0::/job/step\n")
    (v2 / "job" / "step" / "memory.max").write_text(f"{8 * 2**30}\n")
    (v2 / "job" / "step" / "memory.current").write_text(f"{3 * 2**30}\n")
    (v2 / "job" / "step" / "memory.stat").write_text(f"anon 1\nactive_file 5\ninactive_file {2**30}\n")
    assert engine._cgroup_headroom(str(v2), str(tmp_path / "own_v2")) == 6 * 2**30  # (8 - (3 - 1 of droppable cache))
    (v2 / "job" / "memory.max").write_text(f"{5 * 2**30}\n")
    (v2 / "job" / "memory.current").write_text(f"{3 * 2**30}\n")
    assert engine._cgroup_headroom(str(v2), str(tmp_path / "own_v2")) == 2 * 2**30  # (the job's limit is the lower)
    for level in (v2 / "job", v2 / "job" / "step"):
        (level / "memory.max").write_text("max\n")
    assert engine._cgroup_headroom(str(v2), str(tmp_path / "own_v2")) is None
    # cgroup v1's memory controller
    v1 = tmp_path / "v1" / "memory" / "process_api" / "c1"
    v1.mkdir(parents=True)
    (tmp_path / "own_v1").write_text("5:devices:/\n4:memory:/process_api/c1\n0::/\n")
    (v1 / "memory.limit_in_bytes").write_text(f"{4 * 2**30}\n")
    (v1 / "memory.usage_in_bytes").write_text(f"{5 * 2**30}\n")
    assert engine._cgroup_headroom(str(tmp_path / "v1"), str(tmp_path / "own_v1")) == 0  # (no stat: all the usage counts)
    assert engine._cgroup_headroom(str(tmp_path / "none"), str(tmp_path / "none")) is None
    cpu = torch.device("cpu")
    monkeypatch.setattr(engine, "_meminfo_available", lambda: 12 * 2**30)
    monkeypatch.setattr(engine, "_cgroup_headroom", lambda: None)
    assert engine.device_memory(cpu) == (12 * 2**30, "the memory available to it")
    monkeypatch.setattr(engine, "_cgroup_headroom", lambda: 6 * 2**30)
    assert engine.device_memory(cpu) == (6 * 2**30, "the memory its cgroup may still take")
    monkeypatch.setattr(engine, "_meminfo_available", lambda: None)
    monkeypatch.setattr(engine, "_cgroup_headroom", lambda: 2**60)
    ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert engine.device_memory(cpu) == (ram, "its physical RAM")


def test_measuring_a_game_draws_nothing_from_the_generator() -> None:
    # (memory_per_game() before reset() made a game from the env's generator: the first reset's games changed)
    plain, measured = VectorEnv(4, seed=9, map="small"), VectorEnv(4, seed=9, map="small")
    assert measured.memory_per_game() == 470 and measured.game.bytes_per_game() > 470
    a, b = plain.reset(), measured.reset()
    assert torch.equal(a.observation, b.observation) and torch.equal(a.action_mask, b.action_mask)
    assert measured.memory_per_game() == 470


def test_actions_on_the_meta_device_are_refused_as_every_bad_action_is() -> None:
    # (the Gymnasium and TorchRL faces and the learner env raised torch's NotImplementedError)
    pytest.importorskip("torchrl")
    from tensordict import TensorDict

    from risk_env.vector.gym_vector import GymnasiumVectorEnv
    from risk_env.vector.learner import LearnerEnv
    from risk_env.vector.torchrl_env import TorchRLVectorEnv

    meta = torch.zeros(4, dtype=torch.int64, device="meta")
    gym = GymnasiumVectorEnv(4, seed=0)
    gym.reset(seed=0)
    trl = TorchRLVectorEnv(4, seed=0)
    trl.reset()
    learner = LearnerEnv(4, seed=0)
    learner.reset()
    steps = (lambda: gym.step(meta), lambda: trl.step(TensorDict({"action": meta}, batch_size=[4])), lambda: learner.step(meta))
    for step in steps:
        with pytest.raises(IllegalActionError, match="got a tensor on the meta device, which holds no values$"):
            step()
    legal = gym.learner_env.last.action_mask.int().argmax(dim=1).numpy()  # (the env goes on after the refusal)
    assert gym.step(legal)[0].shape[0] == 4


def test_the_gymnasium_face_names_render_mode_as_such() -> None:
    # (render_mode="rgb_array" was "unknown rules option(s) 'render_mode'")
    from risk_env.vector.gym_vector import GymnasiumVectorEnv

    with pytest.raises(ConfigError, match=r"^render_mode='rgb_array': the batched env draws no frames \(render_mode is None\)"):
        GymnasiumVectorEnv(2, render_mode="rgb_array")
    assert GymnasiumVectorEnv(2, render_mode=None).render_mode is None
