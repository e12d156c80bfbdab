"""Reference training (risk_env.train.sb3): configs, a tiny run with checkpoints, self-play,
resume, reproducibility, and the saved policy playing through the agent interface."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import yaml
from helpers import run_cli

from risk_env import ConfigError
from risk_env.train.sb3 import CONFIG_DIR, TrainConfig, load_config, run_config, train

SHIPPED = ("default", "device", "sb3", "2p", "4p", "long")


# ---------------------------------------------------------------------- configs
def test_the_main_job_runs_the_shipped_default_config():
    from risk_env.train.sb3 import run_config

    assert run_config(None) == TrainConfig.load(CONFIG_DIR / "default.yaml") == load_config("default")
    main = run_config(None)
    assert main.trainer == "device" and main.imitation.enabled and main.kickstart.enabled and main.eval.backend == "vector"
    assert (main.total_timesteps, main.max_minutes) == (1_000_000, 10.0)
    assert (main.kickstart.kl_coef, main.kickstart.anneal_steps) == (0.5, 400_000)
    assert (main.imitation.decisions, main.imitation.dagger_rounds, main.imitation.dagger_decisions) == (60_000, 1, 30_000)
    assert not load_config(None).imitation.enabled and not load_config(None).kickstart.enabled  # the schema's defaults
    # the main job is the on-device recipe (--config device) with a 10-minute safety net, nothing else
    device = load_config("device")
    assert device.max_minutes is None
    assert main.model_dump() == {**device.model_dump(), "name": "default", "max_minutes": 10.0}
    sb3 = load_config("sb3")  # the MaskablePPO recipe, the main job before
    assert sb3.trainer == "sb3" and (sb3.total_timesteps, sb3.max_minutes) == (500_000, 10.0)
    assert (sb3.kickstart.kl_coef, sb3.kickstart.anneal_steps) == (0.5, 300_000)
    assert (sb3.imitation.decisions, sb3.imitation.dagger_rounds, sb3.imitation.dagger_decisions) == (40_000, 2, 20_000)
    code, out, _ = run_cli("train", "--print-config")
    assert code == 0 and yaml.safe_load(out)["trainer"] == "device" and yaml.safe_load(out)["name"] == "default"
    code, out, _ = run_cli("train", "--config", "device", "--print-config")
    assert code == 0 and yaml.safe_load(out)["trainer"] == "device" and yaml.safe_load(out)["name"] == "device"


def test_a_resume_without_config_reads_the_runs_config_where_its_checkpoint_keeps_none(tmp_path: Path) -> None:
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    ckpt = run / "checkpoints" / "step_000000128.zip"
    ckpt.write_bytes(b"")  # (run_config reads only the metadata and the config)
    cfg = load_config("sb3", ["env.n_envs=3", f"out_dir={tmp_path / 'elsewhere'}"])
    (run / "config.yaml").write_text(cfg.to_yaml())
    for meta in ({"timesteps": 128}, {"timesteps": 128, "config": {}}, None):  # (no config kept, or no .json at all)
        ckpt.with_suffix(".json").unlink(missing_ok=True)
        if meta is not None:
            ckpt.with_suffix(".json").write_text(json.dumps(meta))
        got = run_config(None, ["seed=5"], run)
        assert (got.trainer, got.env.n_envs, got.seed, got.out_dir) == ("sb3", 3, 5, None)  # (its folder: the one resumed)
        assert run_config(None, [], ckpt).env.n_envs == 3
    (run / "config.yaml").unlink()
    with pytest.raises(
        ConfigError,
        match=r"^--resume '.*run': the run's config is not kept with step_000000128\.zip \(no "
        r"step_000000128\.json with a config\) nor in '.*config\.yaml': give it with --config PATH$",
    ):
        run_config(None, [], run)
    assert run_config("sb3", [], run).env.n_envs == 16  # (a config given is used as it is)
    # a run's own config.yaml given with --config: the run goes on in its folder, not in the out_dir the file names
    (run / "config.yaml").write_text(cfg.to_yaml())
    assert run_config(str(run / "config.yaml"), [], run).out_dir is None
    assert run_config(str(run / "config.yaml"), [f"out_dir={tmp_path / 'new'}"], run).out_dir == str(tmp_path / "new")
    model = tmp_path / "model.zip"  # (a plain model file: a warm start into the folder the config names)
    model.write_bytes(b"")
    assert run_config(str(run / "config.yaml"), [], model).out_dir == str(tmp_path / "elsewhere")


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_configs_validate(name):
    cfg = TrainConfig.load(name)
    assert cfg.name == name
    assert cfg.rules_config.num_players == (4 if name == "4p" else 2)
    assert cfg.eval.opponents[0] == "random"


def test_every_shipped_config_loads_by_its_name():
    # (a dotted name such as ppo-4p-0.1 was read as a file with the suffix ".1" and refused, though the message listed it)
    from risk_env.train.config import shipped_configs

    for name in shipped_configs():
        assert load_config(name).name == name == load_config(f"{name}.yaml").name
        assert load_config(name.upper()).name == name == load_config(f" {name.upper()}.YAML ").name  # (as agent names)
    with pytest.raises(ConfigError, match=r"^no training config 'nowhere/ppo-2p\.yaml' \(no such file: a path is not read"):
        load_config("nowhere/ppo-2p.yaml")  # (a path that is not there: not the shipped ppo-2p under another folder)
    assert load_config("/elsewhere/configs/train/PPO-2P.yaml").name == "ppo-2p"  # (the folder the package ships)
    assert load_config("ppo-4p-0.1").ppo.policy == "graph" and load_config("ppo-4p").ppo.init == "ppo-4p-0.1"
    with pytest.raises(ConfigError, match=r"^no training config 'ppo-4p-0\.2'; a path to a YAML file, or a shipped name: "):
        load_config("ppo-4p-0.2")


def test_an_override_of_a_rules_switch_reaches_the_evaluation_rules_where_the_config_had_them_alike():
    # (--set rules.num_players=3 on a 2-player config trained 3-player games and evaluated 2-player ones, without a word)
    cfg = load_config("ppo-2p", ["rules.num_players=3", "rules.die_to_six=true"])
    assert cfg.rules == cfg.eval.rules == {"preset": "fast", "num_players": 3, "die_to_six": True}
    assert cfg.eval_rules_config.num_players == 3
    # a switch the file sets apart for evaluation stays apart (long: turn limit 150 in training only)
    cfg = load_config("long", ["rules.num_players=3", "rules.turn_limit=200"])
    assert cfg.rules == {"preset": "fast", "num_players": 3, "turn_limit": 200}
    assert cfg.eval.rules == {"preset": "fast", "num_players": 3}
    # an override of eval.rules itself wins
    cfg = load_config("ppo-2p", ["rules.num_players=3", "eval.rules.num_players=2"])
    assert (cfg.rules["num_players"], cfg.eval.rules) == (3, {"preset": "fast", "num_players": 2})
    assert load_config("ppo-2p", ["rules.num_players=3", "eval.rules=null"]).eval.rules is None
    # a line-up that no longer fits the followed count is refused, naming the override
    with pytest.raises(ConfigError, match=r"line-up 'balanced\+continent' must name 3 agents .*'rules\.num_players=4'"):
        load_config("ppo-3p", ["rules.num_players=4"])
    assert load_config("ppo-3p", ["rules.num_players=4", "eval.opponents=[balanced]"]).eval.rules["num_players"] == 4
    # a whole rules= override: each switch follows where the file had it alike; a non-mapping is the schema's to refuse
    cfg = load_config("long", ['rules={"preset": "fast", "num_players": 3, "turn_limit": 150}'])
    assert cfg.eval.rules == {"preset": "fast", "num_players": 3}
    assert load_config("ppo-2p", ["rules.num_players=3", 'rules={"preset": "classic"}']).eval.rules == {"preset": "classic"}
    for bad in ("classic", "null"):
        with pytest.raises(ConfigError, match=r"rules: Input should be a valid dictionary"):
            load_config("sb3", ["rules.num_players=3", f"rules={bad}"])
    # a section the file leaves out counts at its default, and a switch set into it keeps the default preset; an
    # eval.rules left out plays the training rules
    cfg = load_config(None, ["rules.num_players=3"])
    assert cfg.rules == {"preset": "fast", "num_players": 3} and cfg.eval.rules is None
    assert cfg.eval_rules_config == cfg.rules_config
    # an unknown switch is refused once, under rules
    with pytest.raises(
        ConfigError,
        match=r"^defaults: invalid training config: rules: unknown rules option\(s\) 'turn_limt'.*"
        r"\(set by the override 'rules\.turn_limt=5'\)$",
    ):
        load_config(None, ["rules.turn_limt=5"])


def test_a_baseline_named_latest_is_refused_before_the_run_starts(tmp_path, monkeypatch):
    # (the league names the latest learner 'latest': a baseline of that name collided with it after the run folder
    # was written)
    import shutil

    from risk_env.agents.registry import pretrained_path
    from risk_env.train.run import check_opponents

    shutil.copy(pretrained_path("ppo-4p"), tmp_path / "latest.pt")
    monkeypatch.chdir(tmp_path)
    cfg = load_config("device", ["opponents.baselines=[latest, balanced]", "eval.every=0", "eval.final_games=0"])
    with pytest.raises(ConfigError, match=r"^opponents\.baselines: 'latest' is the name the league gives the latest learner"):
        check_opponents(cfg)
    check_opponents(load_config("device", ["opponents.baselines=[latest.pt, balanced]", "eval.every=0"]))


def test_unknown_keys_and_bad_values_are_named():
    with pytest.raises(ConfigError, match=r"ppo\.learning_rat: unknown key; allowed here: learning_rate"):
        TrainConfig.from_dict({"ppo": {"learning_rat": 1e-3}})
    with pytest.raises(ConfigError, match=r"totl_timesteps: unknown key"):
        TrainConfig.from_dict({"totl_timesteps": 5})
    with pytest.raises(ConfigError, match=r"env\.n_envs"):
        TrainConfig.from_dict({"env": {"n_envs": 0}})
    with pytest.raises(ConfigError, match=r"rules.*turn_limt"):
        TrainConfig.from_dict({"rules": {"turn_limt": 5}})
    with pytest.raises(ConfigError, match=r"weights"):
        TrainConfig.from_dict({"opponents": {"baselines": ["random"], "weights": [1, 2]}})
    with pytest.raises(ConfigError, match=r"no training config"):
        TrainConfig.load("no_such_config")


def test_torch_threads_is_capped_at_a_fixed_documented_number():
    from risk_env.train.config import MAX_TORCH_THREADS

    assert MAX_TORCH_THREADS == 1024  # docs/training.md says so; a config means the same on every machine
    assert load_config("device", ["torch_threads=1024"]).torch_threads == 1024
    with pytest.raises(ConfigError) as info:  # torch crashed (a segmentation fault) on such a number
        load_config("device", ["torch_threads=100000"])
    assert str(info.value).endswith(
        "torch_threads: Input should be less than or equal to 1024, got 100000 (set by the override 'torch_threads=100000')"
    )
    with pytest.raises(ConfigError, match=r"torch_threads: Input should be greater than or equal to 1, got 0$"):
        TrainConfig.from_dict({"torch_threads": 0})


def test_every_count_key_reads_a_whole_number_in_e_notation():
    # (env.n_envs=1e3 was "Input should be a valid integer, got 1000.0" where total_timesteps=1e3 was read)
    cfg = load_config(
        "device", ["env.n_envs=1e3", "ppo.n_steps=2e1", "checkpoint.keep=5.0", "seed=1e2", "ppo.learning_rate=1e-4"]
    )
    assert (cfg.env.n_envs, cfg.ppo.n_steps, cfg.checkpoint.keep, cfg.seed) == (1000, 20, 5, 100)
    assert type(cfg.env.n_envs) is int and cfg.ppo.learning_rate == 1e-4
    cfg = load_config("device", ["rules.turn_limit=1.6e2", "eval.rules.turn_limit=2e2", "rules.starting_armies=3e1"])
    assert (cfg.rules_config.turn_limit, cfg.eval_rules_config.turn_limit, cfg.rules_config.starting_armies) == (160, 200, 30)
    with pytest.raises(ConfigError, match=r"env\.n_envs: Input should be a valid integer, got 2\.5 \(set by the override"):
        load_config("device", ["env.n_envs=2.5"])
    # (ppo.graph_rounds=1e6 passed the memory check, its million Python modules uncounted, and took minutes to build)
    assert load_config("device", ["ppo.graph_rounds=64"]).ppo.graph_rounds == 64
    with pytest.raises(ConfigError, match=r"ppo\.graph_rounds: Input should be less than or equal to 64, got 1000000 "):
        load_config("device", ["ppo.graph_rounds=1e6"])


def test_a_yaml_file_reads_whole_numbers_at_count_keys_as_the_overrides_do(tmp_path):
    # (`n_steps: 16.0` in a YAML file was "Input should be a valid integer, got 16.0" where --set ppo.n_steps=16.0 read)
    path = tmp_path / "run.yaml"
    path.write_text("trainer: device\ntotal_timesteps: 1e6\nppo: {n_steps: 16.0}\nrules: {turn_limit: 2.0e2}\n")
    cfg = load_config(path)
    assert (cfg.total_timesteps, cfg.ppo.n_steps, cfg.rules_config.turn_limit) == (10**6, 16, 200)
    assert type(cfg.ppo.n_steps) is int and "n_steps: 16\n" in cfg.to_yaml()
    path.write_text("trainer: device\nenv: {player_counts: [2, 3.0]}\n")  # (a list of counts too)
    assert load_config(path).env.player_counts == [2, 3]
    assert load_config("sb3", ["ppo.net_arch=[64.0, 32]"]).ppo.net_arch == [64, 32]
    path.write_text("trainer: device\nenv: {n_envs: 8.5}\nppo: {learning_rate: 1.0}\n")
    refused = r"run\.yaml: invalid training config: env\.n_envs: Input should be a valid integer, got 8\.5$"
    with pytest.raises(ConfigError, match=refused):
        load_config(path)


def test_total_timesteps_is_capped_at_a_trillion():
    """A typing slip such as --timesteps 1e30 is refused, not read as 'train until max_minutes'."""
    from risk_env.train.config import MAX_TIMESTEPS

    assert MAX_TIMESTEPS == 10**12
    assert load_config("device", ["total_timesteps=1e12"]).total_timesteps == 10**12
    with pytest.raises(ConfigError) as info:
        load_config("device", ["total_timesteps=1e30"])
    assert str(info.value).endswith(
        "total_timesteps: Input should be less than or equal to 1000000000000, got 1e+30"
        " (set by the override 'total_timesteps=1e30')"
    )  # (not the 31 digits of the whole float 1e30)
    with pytest.raises(ConfigError) as info:
        load_config("device", ["total_timesteps=1000000000001"])  # (13 digits: shown as typed)
    assert "less than or equal to 1000000000000, got 1000000000001 (set by" in str(info.value)
    with pytest.raises(ConfigError) as info:
        load_config("device", ["total_timesteps=99999999999999999999"])  # (digits no float holds: as typed)
    assert "got 99999999999999999999 (set by" in str(info.value)
    with pytest.raises(ConfigError) as info:  # an error in a key of the file alone names no override
        TrainConfig.from_dict({"ppo": {"batch_size": 0}}, source="x.yaml", overrides=["ppo.n_epochs=2"])
    assert str(info.value) == "x.yaml: invalid training config: ppo.batch_size: Input should be greater than or equal to 2, got 0"
    with pytest.raises(ConfigError) as info:  # a section's error names the overrides inside it
        load_config(None, ["rules.turn_limt=5"])
    assert str(info.value).endswith("(set by the override 'rules.turn_limt=5')")
    with pytest.raises(ConfigError) as info:  # the last override to reach a key is named (it replaced the earlier)
        load_config("device", ["ppo.n_steps=8", "ppo=1"])
    assert str(info.value).endswith(
        "ppo: Input should be a valid dictionary or instance of PPOSection, got 1 (set by the override 'ppo=1')"
    )
    with pytest.raises(ConfigError) as info:  # a check across sections names the keys and the overrides that set them
        load_config("device", ["total_timesteps=1000", "seed=3", "checkpoint.average_from=5000"])
    assert str(info.value).endswith(
        "invalid training config: checkpoint.average_from=5000 must be below total_timesteps=1000 (the run's last "
        "checkpoint is averaged with those from average_from on) (set by the overrides 'total_timesteps=1000', "
        "'checkpoint.average_from=5000')"
    )  # (it was located at "(top level)", and named no override)
    with pytest.raises(ConfigError) as info:
        load_config("device", ["ppo.init=ppo-4p", "trainer=sb3", "opponents.baselines=[random]", "opponents.weights=null"])
    assert str(info.value).endswith(
        "invalid training config: ppo.init and env.player_counts need trainer 'device' (sb3: --resume a model to start "
        "from it) (set by the overrides 'ppo.init=ppo-4p', 'trainer=sb3')"
    )


@pytest.mark.parametrize(
    "data, value, message",
    [
        ({"name": "../x"}, "../x", "name: name must be letters, digits, '_', '-' or '.', got '../x'"),
        ({"name": "a  b"}, "a  b", "name: name must be letters, digits, '_', '-' or '.', got 'a  b'"),
        ({"imitation": {"teacher": "nope"}}, "nope", "imitation.teacher: unknown agent 'nope': use one of "),
        ({"kickstart": {"teacher": "nope"}}, "nope", "kickstart.teacher: unknown agent 'nope': use one of "),
        ({"torch_threads": 0}, 0, "torch_threads: Input should be greater than or equal to 1, got 0"),
    ],
)
def test_a_refused_value_is_named_once(data, value, message):
    with pytest.raises(ConfigError) as info:
        TrainConfig.from_dict(data)
    msg = str(info.value)
    # a validator's message that names the value gets no second ", got ..." (it had one: "got '../x', got '../x'")
    assert message in msg and msg.count(repr(value)) == 1


def _documented_train_commands() -> list[list[str]]:
    """Every ``python scripts/train.py`` / ``risk-env train`` command of the docs (continued lines joined),
    its arguments without the program; those resuming a run (no run to resume here) left out."""
    import shlex

    commands = []
    for page in sorted((Path(__file__).parents[1] / "docs").glob("*.md")):
        text = page.read_text(encoding="utf-8").replace("\\\n", " ")
        for line in text.splitlines():
            for prog in ("python scripts/train.py", "risk-env train"):
                if line.startswith(prog) and not line.startswith("risk-env train-"):
                    args = shlex.split(line[len(prog) :], comments=True)
                    if "--resume" not in args:
                        commands.append(args)
    return commands


def test_the_documented_train_commands_give_valid_configs():
    commands = _documented_train_commands()
    assert ["--config", "device", "--set", "opponents.baselines=[self]", "--set", "opponents.weights=null"] in commands
    for args in commands:
        code, out, err = run_cli("train", *args, "--print-config")
        assert (code, err) == (0, ""), args
    selfplay = load_config("device", ["opponents.baselines=[self]", "opponents.weights=null"])
    assert selfplay.opponents.baselines == ["self"] and selfplay.opponents.weights is None


def test_the_training_docs_name_the_files_and_the_batched_opponents_the_code_has():
    import re

    from risk_env.train.config import BATCHED_POLICIES

    text = (Path(__file__).parents[1] / "docs" / "training.md").read_text(encoding="utf-8")
    # the default run is the on-device trainer's (model.pt); the sb3 recipe's run writes model.zip
    for config, suffix in (("default", "pt"), ("sb3", "zip")):
        assert load_config(config).trainer == ("device" if suffix == "pt" else "sb3")
        named = re.findall(rf"runs/{config}/model\.(\w+)", text)
        assert named and set(named) == {suffix}, config
    # the sb3 trainer's batched backend seats every batched policy (it said: random and aggressive)
    section = text.split("## The batched backend")[1].split("\n## ")[0]
    assert all(f"`{name}`" in section for name in BATCHED_POLICIES)


def test_weights_that_do_not_fit_the_baselines_say_how_to_clear_them():
    with pytest.raises(ConfigError) as info:
        load_config("device", ["opponents.baselines=[self]"])  # the config's 2 weights, 1 baseline
    msg = str(info.value)
    assert "opponents: " in msg and "weights [1.0, 3.0] do not fit baselines ['self']" in msg
    assert "give 1 non-negative number (one per baseline, not all zero), or set opponents.weights to null" in msg
    with pytest.raises(ConfigError, match=r"give 3 non-negative numbers .* or set opponents.weights to null"):
        load_config("device", ["opponents.baselines=[random, balanced, aggressive]"])


@pytest.mark.parametrize("baselines", ["[balancd]", "[random, balancd]", "[random+balancd]"])
def test_a_mistyped_baseline_is_named_before_the_weights_count(baselines):
    with pytest.raises(ConfigError) as info:
        load_config("device", [f"opponents.baselines={baselines}"])
    msg = str(info.value)
    assert "opponents.baselines: unknown agent 'balancd': trainer 'device' plays the batched policies: random, " in msg
    assert "weights" not in msg
    with pytest.raises(ConfigError) as info:  # (the sb3 trainer plays every form load_agent reads)
        load_config("sb3", [f"opponents.baselines={baselines}"])
    assert "opponents.baselines: unknown agent 'balancd': use one of random, aggressive, continent, balanced" in str(info.value)
    code, _, err = run_cli("train", "--config", "device", "--set", f"opponents.baselines={baselines}", "--print-config")
    assert code == 2 and "unknown agent 'balancd'" in err and "Traceback" not in err
    # the other forms still pass: a model file, a module's agent, self-play
    cfg = load_config(None, ["opponents.baselines=[runs/x/model.zip, helpers:StubbornAgent, random]"])
    assert cfg.opponents.baselines == ["runs/x/model.zip", "helpers:StubbornAgent", "random"]


def test_every_reader_of_a_line_up_splits_it_by_the_same_rule():
    from risk_env.agents.registry import is_lineup, lineup_parts
    from risk_env.train.device_train import _slot_entries
    from risk_env.train.run import opponent_lineup

    assert lineup_parts("aggressive+balanced") == ["aggressive", "balanced"] and is_lineup("aggressive+balanced")
    assert lineup_parts("balanced") == ["balanced"] and not is_lineup("balanced")
    # a model file whose name holds '+' is one agent, not a line-up
    for model in ("runs/a+b/model.zip", "runs/a+b/model.pt"):
        assert lineup_parts(model) == [model] and not is_lineup(model)
        assert opponent_lineup(model, 3) == [model, model]
    assert opponent_lineup("random + balanced", 3) == ["random", "balanced"]
    assert _slot_entries(["random+balanced", "aggressive"], None, 4) == [("random", "balanced")] * 2 + ["aggressive"] * 2
    four = {"preset": "fast", "num_players": 4}
    assert TrainConfig.from_dict({"eval": {"opponents": ["runs/a+b/model.zip"], "rules": four}}).eval.opponents == [
        "runs/a+b/model.zip"
    ]
    with pytest.raises(ConfigError, match=r"the line-up 'random\+balanced' must name 3 agents"):
        TrainConfig.from_dict({"eval": {"opponents": ["random+balanced"], "rules": four}})
    # the device trainer seats the model file whole (a network: the file is looked for when the run starts)
    sets = ["opponents.baselines=[runs/a+b/model.pt, random+balanced]", "opponents.weights=null"]
    assert load_config("device", sets).opponents.baselines == ["runs/a+b/model.pt", "random+balanced"]

    # a missing model file whose name reads as a line-up ("random+x.pt") is refused saying to put the file first
    from risk_env.agents.registry import misread_lineup
    from risk_env.train.run import check_opponents

    hint = r"^eval\.opponents: no model file 'balanced\+nets/x\.pt': .* put the file first: 'nets/x\.pt\+balanced'$"
    with pytest.raises(ConfigError, match=hint):
        check_opponents(load_config("ppo-3p", ["eval.opponents=[balanced+nets/x.pt]"]))
    with pytest.raises(ConfigError, match=r"opponents\.baselines.*put the file first: 'x\.zip\+PPO-4P\+random'"):
        load_config("sb3", ["opponents.baselines=[PPO-4P + random + x.zip]"])
    assert misread_lineup("runs/a+b/model.pt") is None and misread_lineup("random+balanced") is None
    assert misread_lineup("agents/models/ppo-4p.pt") is None


def test_overrides_and_print_config():
    cfg = load_config("2p", ["ppo.learning_rate=1e-4", "total_timesteps=2e6", "eval.opponents=[random]"])
    assert cfg.ppo.learning_rate == 1e-4 and cfg.total_timesteps == 2_000_000 and cfg.eval.opponents == ["random"]
    code, out, _ = run_cli("train", "--config", "default", "--set", "seed=3", "--print-config")
    assert code == 0 and yaml.safe_load(out)["seed"] == 3
    code, out, err = run_cli("train", "-c", "default", "-s", "ppo.bogus=1", "--print-config")
    assert code == 2 and out == "" and err.startswith("error: ") and "ppo.bogus: unknown key" in err


def test_the_evaluate_command_seats_the_rules_own_player_count():
    from risk_env.train.sb3 import _make_env, evaluate_command

    cfg = TrainConfig.from_dict({"rules": {"preset": "secret_missions"}, "eval": {"rules": None}})  # for any count: 4
    assert cfg.rules_config.num_players == cfg.eval_rules_config.num_players == 4
    assert evaluate_command(cfg, "m.zip") == (
        "risk-env evaluate m.zip random random random --games 200 --rules secret_missions --seed 12345"
    )
    two = TrainConfig.from_dict({"eval": {"rules": {"preset": "fast", "num_players": 2, "turn_limit": 90}}})
    assert evaluate_command(two, "m.zip", "balanced", 10) == (
        "risk-env evaluate m.zip balanced --games 10 --rules fast --set turn_limit=90 --seed 12345"
    )
    duel = TrainConfig.from_dict({"eval": {"rules": {"preset": "duel"}}})
    assert evaluate_command(duel, "m.zip") == "risk-env evaluate m.zip random --games 200 --rules duel --seed 12345"
    env = _make_env({"preset": "secret_missions"}, {}, {"baselines": ["random"]}, [], 1)
    assert env.unwrapped.rules == cfg.rules_config  # the training env plays the same count


def test_the_final_evaluate_commands_name_the_seed_backend_and_opponents():
    from risk_env.train.sb3 import final_evaluate_commands

    device = load_config("device")  # eval: seed 12345, backend vector, 200 games vs random and balanced
    assert final_evaluate_commands(device, "runs/device/model.pt") == [
        "risk-env evaluate runs/device/model.pt random --games 200 --rules fast --seed 12345 --backend vector",
        "risk-env evaluate runs/device/model.pt balanced --games 200 --rules fast --seed 12345 --backend vector",
    ]
    fast4 = {"preset": "fast", "num_players": 4}
    four = TrainConfig.from_dict({"rules": fast4, "eval": {"rules": fast4, "opponents": ["random+balanced+random"]}})
    assert final_evaluate_commands(four, "my runs/m.zip") == [
        "risk-env evaluate 'my runs/m.zip' random balanced random --games 200 --rules fast --seed 12345"
    ]
    # no final evaluation: the run's evaluation opponents, 200 games (a 4-player line-up got 'random random random')
    none = load_config(None, ["eval.final_games=0", "eval.seed=3"])
    assert final_evaluate_commands(none, "m.zip") == [
        "risk-env evaluate m.zip random --games 200 --rules fast --seed 3",
        "risk-env evaluate m.zip balanced --games 200 --rules fast --seed 3",
    ]
    lineup = TrainConfig.from_dict({"rules": fast4, "eval": {"rules": fast4, "opponents": ["aggressive+continent+balanced"]}})
    lineup = TrainConfig.from_dict({**lineup.model_dump(mode="json"), "eval": {**lineup.eval.model_dump(), "final_games": 0}})
    assert final_evaluate_commands(lineup, "m.pt") == [
        "risk-env evaluate m.pt aggressive continent balanced --games 200 --rules fast --seed 12345"
    ]
    nobody = load_config(None, ["eval.opponents=[]", "eval.final_games=0"])
    assert final_evaluate_commands(nobody, "m.zip") == ["risk-env evaluate m.zip random --games 200 --rules fast --seed 12345"]
    # no evaluation under rules the batched heuristics do not play: the command suggested runs on the reference backend
    # (it named --backend vector, which refuses them; a run without evaluations never checked it)
    caps = load_config("device", ["rules.capitals=true", "eval.every=0", "eval.final_games=0", "eval.opponents=[balanced]"])
    assert final_evaluate_commands(caps, "m.pt") == [
        "risk-env evaluate m.pt balanced --games 200 --rules fast --set capitals=True --seed 12345"
    ]


@pytest.mark.parametrize("backend", ["reference", "vector"])
def test_the_final_evaluate_command_plays_the_final_evaluations_games(backend):
    import shlex

    from risk_env.train.run import evaluate_model
    from risk_env.train.sb3 import final_evaluate_commands

    rules = {"preset": "fast", "num_players": 2, "turn_limit": 12}
    cfg = TrainConfig.from_dict(
        {"eval": {"final_games": 4, "opponents": ["random"], "rules": rules, "seed": 7, "backend": backend, "workers": 1}}
    )
    (command,) = final_evaluate_commands(cfg, "aggressive")  # any agent spec stands for the model
    final = evaluate_model("aggressive", ["random"], 4, cfg.eval_rules_config, 7, 1, backend=backend)["random"]
    args = shlex.split(command)
    assert args[:2] == ["risk-env", "evaluate"] and "--seed" in args
    code, out, err = run_cli(*args[1:], "--workers", "1", "--no-progress")
    assert code == 0, err
    row = next(line.split() for line in out.splitlines() if line.startswith("aggressive "))
    assert (int(row[1]), row[2], row[5]) == (4, f"{final.win_rate:.1%}", f"{final.draw_rate:.1%}")
    assert f"mean length: {final.mean_turns:.1f} turns" in out


BROKEN_CONFIGS = {
    "empty": (b"", r"the training config is empty; write \{\} for every default"),
    "a list": (b"- seed\n- 3\n", r"must be a mapping of keys to values, got a list; top-level keys: name, "),
    "a scalar": (b"42\n", r"must be a mapping of keys to values, got an integer"),
    "text": (b"just words\n", r"must be a mapping of keys to values, got text"),
    "a date": (b"seed: 2024-01-01\n", r"seed: datetime.date\(2024, 1, 1\) is a date, which a training config cannot hold"),
    "binary": (b"name: !!binary aGVsbG8=\n", r"name: b'hello' is binary data"),
    "a set": (b"eval:\n  opponents: !!set {random: null}\n", r"eval.opponents: .* is a set"),
    "a key that is not text": (b"ppo:\n  1: 2\n", r"ppo: the key 1 is an integer; keys are text"),
    "not UTF-8": (b"name: \xe9t\xe9\n", r"not UTF-8 text \(byte 6\)"),
    "not YAML": (b"ppo: [1, 2\n", r"not valid YAML: "),
    "python object": (b"seed: !!python/object/apply:os.getpid []\n", r"not valid YAML: "),
    "a tag that does not read": (b"ppo: {n_steps: !!int 16.0}\n", r"not valid YAML: a tagged value does not read \(inv"),
    "a bool tag that does not read": (b"seed: !!bool maybe\n", r"not valid YAML: a tagged value does not read \('maybe'\)"),
    "an empty int tag": (b'seed: !!int ""\n', r"not valid YAML: a tagged value does not read \(string index"),
    "a timestamp tag that does not read": (b"seed: !!timestamp foo\n", r"not valid YAML: a tagged value does not read"),
    "too deep": (b"a: " + b"[" * 3000 + b"]" * 3000, r"nests too deeply to be a training config"),
    "an alias bomb": (
        b"a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
        + "".join(f"{x}: &{x} [{', '.join(['*' + y] * 10)}]\n" for y, x in zip("abcdef", "bcdefg", strict=True)).encode()
        + b"h: [*g, *g]\n",
        r"holds more than 100000 values",
    ),
    "a bool for an int": (b"env:\n  n_envs: true\n", r"env.n_envs: Input should be a valid integer, got True"),
    "text for an int": (b"env:\n  n_envs: '16'\n", r"env.n_envs: Input should be a valid integer, got '16'"),
    "a number for text": (b"name: 7\n", r"name: Input should be a valid string, got 7"),
    "infinity": (b"ppo:\n  learning_rate: .inf\n", r"ppo.learning_rate: Input should be a finite number, got inf"),
    # (PyYAML kept the last silently: this trained with sb3)
    "a key twice": (
        b"trainer: device\nseed: 1\ntrainer: sb3\n",
        r"not valid YAML: the key 'trainer' is given twice \(lines 1 and 3\)",
    ),
    "a key twice in a section": (b"ppo:\n  n_steps: 8\n  n_steps: 16\n", r"the key 'n_steps' is given twice \(lines 2 and 3\)"),
    "a merge key may be overridden": (b"a: &a {x: 1}\nb:\n  <<: *a\n  x: 2\n", r"a: unknown key; allowed here:"),
}


@pytest.mark.parametrize("kind", list(BROKEN_CONFIGS))
def test_broken_training_config_files_give_one_line(tmp_path, capsys, kind):
    content, message = BROKEN_CONFIGS[kind]
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=message) as info:
        TrainConfig.load(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    code, _, err = run_cli("train", "--config", path, "--print-config")
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err


def test_yaml_numbers_and_a_folder(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("ppo:\n  learning_rate: 1e-4\n  clip_range: 2E-1\nseed: 3\n", encoding="utf-8")
    cfg = TrainConfig.load(path)  # 1e-4 is a number (YAML 1.2), not the text PyYAML alone would read
    assert cfg.ppo.learning_rate == 1e-4 and cfg.ppo.clip_range == 0.2 and cfg.seed == 3
    path.write_text("{}\n", encoding="utf-8")
    assert TrainConfig.load(path) == load_config(None)
    with pytest.raises(ConfigError, match="cannot read the training config"):
        TrainConfig.load(tmp_path)
    for bad in ([1, 2], "x", None, {("a",): 1}):
        with pytest.raises(ConfigError, match="config: "):
            TrainConfig.from_dict(bad)  # type: ignore[arg-type]


def test_several_problems_are_named_on_one_line():
    with pytest.raises(ConfigError) as info:
        TrainConfig.from_dict({"env": {"n_envs": 0}, "ppo": {"gamma": 2, "bogus": 1}})
    msg = str(info.value)
    assert "\n" not in msg
    assert "env.n_envs: Input should be greater than or equal to 1, got 0" in msg
    assert "ppo.gamma: Input should be less than or equal to 1, got 2" in msg and "ppo.bogus: unknown key" in msg


def test_a_broken_checkpoint_metadata_file_is_a_config_error(tmp_path, capsys):
    ck = tmp_path / "checkpoints" / "step_10.zip"
    ck.parent.mkdir()
    ck.write_bytes(b"not a zip")
    for content in (b"{not json", b"[1, 2]", b'{"config": 3}', b"\xff\xfe"):
        ck.with_suffix(".json").write_bytes(content)
        code, _, err = run_cli("train", "--resume", tmp_path, "--print-config")
        assert code == 2
        assert err.startswith(f"error: {ck.with_suffix('.json')}") and err.count("\n") == 1
    # entries a resume reads, of the wrong kind (a TypeError once the folder had been rearranged)
    from risk_env.train.run import checkpoint_meta

    for entry, message in (
        ('"next_eval": null', "the checkpoint's 'next_eval' is a step count (an integer >= 0), got None"),
        ('"timesteps": -5', "the checkpoint's 'timesteps' is a step count (an integer >= 0), got -5"),
        ('"next_snapshot": true', "the checkpoint's 'next_snapshot' is a step count (an integer >= 0), got True"),
        ('"snapshots": 5', "the checkpoint's 'snapshots' is a list of snapshot paths, got 5"),
        ('"snapshots": ["a", 3]', "the checkpoint's 'snapshots' is a list of snapshot paths, got ['a', 3]"),
        ('"wall_seconds": "soon"', "the checkpoint's 'wall_seconds' is a number of seconds >= 0, got 'soon'"),
    ):
        ck.with_suffix(".json").write_text(f'{{"config": {{}}, {entry}}}')
        with pytest.raises(ConfigError) as info:
            checkpoint_meta(ck)
        assert str(info.value) == f"{ck.with_suffix('.json')}: {message}"


# ---------------------------------------------------------------------- a tiny run
def _tiny(tmp: Path, **changes) -> TrainConfig:
    data = {
        "name": "tiny",
        "seed": 1,
        "total_timesteps": 256,
        "out_dir": str(tmp),
        "rules": {"preset": "fast", "num_players": 2, "turn_limit": 16},
        "env": {"n_envs": 2, "vec_env": "dummy"},
        "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [32]},
        "opponents": {"baselines": ["random"], "self_play": {"enabled": True, "snapshot_every": 128, "p_snapshot": 0.5}},
        "eval": {
            "every": 0,
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
        for p in path:
            node = node[p]
        node[last] = v
    return TrainConfig.from_dict(data)


def test_a_run_folder_under_a_file_is_refused_before_training(tmp_path):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file")
    out = blocker / "runs" / "tiny"
    with pytest.raises(ConfigError) as info:
        train(_tiny(out), progress=False, quiet=True)
    assert str(info.value) == (
        f"the run folder {str(out)!r} cannot be made or written: Not a directory ({str(blocker)!r} is a file): give another --out"
    )
    assert blocker.read_text() == "a file" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    code, _, err = run_cli("train", "--out", blocker / "run", "--set", "total_timesteps=64")
    assert code == 2 and err.startswith("error: the run folder ") and "is a file)" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "changes, message",
    [
        # the evaluation rules were read at the first evaluation, after training (the reference backend)
        ({"eval.rules": {"preset": "fast", "num_players": 2, "map": "nope"}}, "eval.rules.map: unknown map 'nope'; "),
        ({"rules": {"preset": "fast", "num_players": 2, "starting_armies": 1}}, "rules: starting_armies=1 is too few"),
        # a teacher's file was looked for after the run folder was written (and called an opponent)
        (
            {"imitation": {"enabled": True, "teacher": "missing.zip"}},
            "imitation.teacher: 'missing.zip' cannot be played: no saved model at 'missing.zip'",
        ),
        # a network of other rules as a teacher or an evaluation opponent was refused after the training
        (
            {"rules.card_trade": "no_cards", "kickstart": {"enabled": True, "teacher": "ppo-4p"}},
            "kickstart.teacher: 'ppo-4p' cannot be played: agent 'ppo-4p' cannot play these rules: this graph policy "
            "scores 28 action ids besides the 42 territories; these rules have 15",
        ),
        (
            {"eval.rules.card_trade": "no_cards", "eval.opponents": ["random", "ppo-2p-0.1"]},
            "eval.opponents: 'ppo-2p-0.1' cannot be played: agent 'ppo-2p-0.1' cannot play these rules: ",
        ),
        # a line-up as a teacher was read as opponents ("names 2 agents; 2 players need 1")
        ({"kickstart": {"enabled": True, "teacher": "random+balanced"}}, "kickstart.teacher: a teacher is one agent, "),
    ],
)
def test_the_sb3_trainer_refuses_rules_and_teachers_before_the_run_folder(tmp_path, changes, message):
    out = tmp_path / "run"
    with pytest.raises(ConfigError) as info:
        train(_tiny(out, **changes), progress=False, quiet=True)
    assert str(info.value).startswith(message)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("place", ["/proc/x", "/proc/x/y", "/sys/x", "/sys/kernel/a/b"])
def test_a_run_folder_the_system_refuses_is_refused_before_training(place):
    from risk_env.train.run import check_run_dir

    if not Path(place).parts[1:2] or not Path("/", Path(place).parts[1]).is_dir():
        pytest.skip(f"no {place.split('/')[1]} here")
    with pytest.raises(ConfigError) as info:  # (os.access said writable, and the run failed at its mkdir)
        check_run_dir(Path(place))
    msg = str(info.value)
    assert msg.startswith(f"the run folder {place!r} cannot be made or written: ") and msg.endswith(": give another --out")
    assert not Path(place).exists()
    code, _, err = run_cli("train", "--config", "device", "--out", place)
    assert code == 2 and err.startswith(f"error: the run folder {place!r} cannot be ") and err.count("\n") == 1


def test_a_run_folder_name_too_long_or_empty_is_refused_and_the_check_leaves_nothing(tmp_path, monkeypatch):
    from risk_env import _output
    from risk_env.train.run import check_run_dir

    long = tmp_path / "a" / ("b" * 300) / "c"
    with pytest.raises(ConfigError) as info:
        check_run_dir(long)
    assert str(info.value) == (
        f"the run folder {str(long)!r} cannot be made or written: File name too long "
        "('bbbbbbbbbbbbbbbbbbbb...' is 300 bytes; at most 255): give another --out"
    )
    code, _, err = run_cli("train", "--out", tmp_path / ("x" * 300))
    assert code == 2 and "is 300 bytes; at most 255" in err and err.count("\n") == 1
    # a run folder that can be made: the check makes it and a file in it, and removes both
    for out in (tmp_path / "a" / "b" / "c", tmp_path / "new" / ".." / "d", tmp_path):
        check_run_dir(out)
    assert list(tmp_path.iterdir()) == []
    # a refusal half-way (a read-only file system, say) removes the folders it made too

    def refuse(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(_output.tempfile, "mkstemp", refuse)
    out = tmp_path / "a" / "b"
    with pytest.raises(ConfigError) as info:
        check_run_dir(out)
    assert str(info.value) == (
        f"the run folder {str(out)!r} cannot be made or written: Read-only file system (in {str(tmp_path)!r}): give another --out"
    )
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ConfigError) as info:
        check_run_dir(tmp_path)
    assert str(info.value) == (
        f"the run folder {str(tmp_path)!r} cannot be made or written: Read-only file system: give another --out"
    )
    monkeypatch.undo()
    # an empty --out fell back to runs/<name>
    with pytest.raises(ConfigError) as info:
        TrainConfig.from_dict({"out_dir": ""})
    assert str(info.value).endswith(
        "out_dir: an empty run folder: give a folder, or leave it out (out_dir: null, no --out) for runs/<name>, got ''"
    )
    with pytest.raises(ConfigError, match=r"out_dir: an empty run folder: give a folder"):
        TrainConfig.from_dict({"out_dir": " "})
    code, _, err = run_cli("train", "--out", "", "--print-config")
    assert code == 2 and "out_dir: an empty run folder: give a folder" in err and err.count("\n") == 1


def _params(path: Path) -> np.ndarray:
    from sb3_contrib import MaskablePPO

    m = MaskablePPO.load(path, device="cpu")
    return np.concatenate([p.detach().numpy().ravel() for p in m.policy.parameters()])


def test_tiny_run_checkpoints_self_play_resume_and_agent(tmp_path):
    from risk_env.train.run import latest_checkpoint

    run = tmp_path / "run"
    res = train(_tiny(run), progress=False, quiet=True)
    assert res.timesteps == 256 and res.model_path == run / "model.zip" and res.model_path.exists()
    ckpts = sorted((run / "checkpoints").glob("step_*.zip"))
    assert [p.name for p in ckpts] == ["step_000000128.zip", "step_000000256.zip"]
    # the last checkpoint is the loop's: written and logged once, not again at the run's end
    log = (run / "train.log").read_text()
    assert [line.split("] checkpoint ", 1)[1] for line in log.splitlines() if "] checkpoint " in line] == [
        str(run / "checkpoints" / "step_000000128.zip"),
        str(run / "checkpoints" / "step_000000256.zip"),
    ]
    meta = json.loads(ckpts[-1].with_suffix(".json").read_text())
    assert meta["timesteps"] == 256 and len(meta["snapshots"]) == 2  # snapshots at 128 and 256
    assert all(Path(p).exists() for p in meta["snapshots"])
    assert list((run / "tb").rglob("events.out.tfevents.*"))
    assert (run / "results.json").exists() and (run / "final_eval" / "random" / "summary.csv").exists()
    assert res.final_eval["random"].games == 2
    summary = json.loads((run / "results.json").read_text())  # (Run.finish: the entries every trainer writes)
    assert summary["trainer"] == "sb3" and summary["timesteps"] == 256 and summary["model"] == str(res.model_path)
    assert summary["final_eval"]["random"]["games"] == 2 and 0 < summary["learn_seconds"] <= summary["total_seconds"]

    # resume: same run directory, continue to 384 steps from the newest checkpoint
    res2 = train(_tiny(run, total_timesteps=384, **{"ppo.n_epochs": 2}), resume=run, progress=False, quiet=True)
    assert res2.timesteps == 384
    assert "resumed from" in (run / "train.log").read_text()
    from sb3_contrib import MaskablePPO

    assert MaskablePPO.load(res2.model_path, device="cpu").n_epochs == 2  # the resumed config's settings apply
    # without --config, the overrides of a resume are read against its run's config (they were first checked against
    # the main job's, which refused an sb3 setting naming default.yaml)
    assert run_config(None, ["env.vec_env=subproc"], run).env.vec_env == "subproc"
    with pytest.raises(ConfigError, match=r"step_000000384\.json: invalid training config: env\.n_envs: .*\(set by the override"):
        run_config(None, ["env.n_envs=0"], run)

    # the network is the checkpoint's: a config that describes another is refused, nothing written
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*")}
    for change, message in (
        ({"ppo.graph_hidden": 16}, "ppo.graph_hidden=32, but ppo.graph_hidden=16: a resumed run trains its checkpoint's"),
        ({"ppo.policy": "mlp"}, "ppo.policy='graph', but ppo.policy='mlp': a resumed run trains its checkpoint's"),
    ):
        with pytest.raises(ConfigError) as info:
            train(_tiny(run, total_timesteps=512, **change), resume=run, progress=False, quiet=True)
        assert str(info.value).startswith(f"--resume {str(run)!r} continues a network of {message} network; set ")
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*")} == before

    # resumed into another folder, the run plays copies of its snapshots in its own pool (the SB3 pools load them
    # later, in the env processes: from the copies, which a later branch of the source does not change)
    newest = latest_checkpoint(run)
    played = json.loads(newest.with_suffix(".json").read_text())["snapshots"]
    train(_tiny(tmp_path / "elsewhere", total_timesteps=512), resume=newest, progress=False, quiet=True)
    listed = json.loads(latest_checkpoint(tmp_path / "elsewhere").with_suffix(".json").read_text())["snapshots"]
    assert {str(Path(p).parent) for p in listed} == {str(tmp_path / "elsewhere" / "pool")}
    assert all((tmp_path / "elsewhere" / "pool" / Path(p).name).read_bytes() == Path(p).read_bytes() for p in played)
    # a checkpoint whose policy does not load, or a damaged self-play snapshot, is refused before anything moves
    # (torch's UnpicklingError; the snapshot failed in an env process after the run folder was rearranged)
    import zipfile

    ckpts = sorted((run / "checkpoints").glob("step_*.zip"))
    assert [p.name for p in ckpts] == ["step_000000256.zip", "step_000000384.zip"]
    garbage = tmp_path / "garbage.zip"
    with zipfile.ZipFile(ckpts[0]) as src, zipfile.ZipFile(garbage, "w") as dst:
        for item in src.infolist():
            dst.writestr(item, b"not a pickle" if item.filename == "policy.pth" else src.read(item.filename))
    with pytest.raises(ConfigError, match=r"^--resume '.*garbage\.zip': garbage\.zip does not load \(UnpicklingError: "):
        train(_tiny(tmp_path / "r3"), resume=garbage, progress=False, quiet=True)
    assert not (tmp_path / "r3").exists()
    snap = Path(json.loads(ckpts[0].with_suffix(".json").read_text())["snapshots"][0])
    data = bytearray(snap.read_bytes())
    data[len(data) // 2] ^= 0xFF  # (a flipped byte in the middle of a member)
    snap.write_bytes(bytes(data))
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*")}
    with pytest.raises(
        ConfigError,
        match=r"^resuming .*step_000000256\.zip: its self-play snapshot: snap_000000128\.zip is damaged \(its policy\.pth ",
    ):
        train(_tiny(run, total_timesteps=512), resume=ckpts[0], progress=False, quiet=True)
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*")} == before and not list(run.glob("later-*"))
    # ... and one whose archive reads but whose policy does not load (it failed in the pool, after the folder moved)
    snap.write_bytes(garbage.read_bytes())
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*")}
    with pytest.raises(ConfigError, match=r"^resuming .*: its self-play snapshot .*snap_000000128\.zip does not load here \("):
        train(_tiny(run, total_timesteps=512), resume=ckpts[0], progress=False, quiet=True)
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*")} == before and not list(run.glob("later-*"))

    # a plain model file has no .json: its network itself is compared with the config (it trained on silently)
    with pytest.raises(ConfigError, match=r"continues a network of ppo\.graph_hidden=32, but ppo\.graph_hidden=16"):
        train(_tiny(tmp_path / "other", total_timesteps=512, **{"ppo.graph_hidden": 16}), resume=res2.model_path, quiet=True)
    assert not (tmp_path / "other").exists()
    # a warm start from a plain model file into a new run: the schedule goes on from the model's steps
    warm = train(_tiny(tmp_path / "warm", total_timesteps=512), resume=res2.model_path, progress=False, quiet=True)
    assert warm.timesteps == 512
    assert [p.name for p in sorted((tmp_path / "warm" / "checkpoints").glob("step_*.zip"))] == ["step_000000512.zip"]

    # the saved policy plays through the agent interface and the evaluation, no glue code
    from risk_env.agents import load_agent
    from risk_env.tools.evaluation import evaluate

    agent = load_agent(str(res2.model_path))
    assert agent.name == "model"
    result = evaluate([str(res2.model_path), "random"], num_games=2, rules="fast", turn_limit=8, workers=1, progress=False)
    assert sum(st.games for st in result.stats.values()) == 4


def test_same_seed_same_weights(tmp_path):
    # self-play snapshots that sample their moves, and a periodic evaluation in between, included
    cfg = {
        "total_timesteps": 256,
        "opponents.self_play.snapshot_every": 64,
        "opponents.self_play.p_snapshot": 1.0,
        "eval.every": 128,
        "eval.games": 2,
        "eval.final_games": 0,
        "checkpoint.every": 10_000,
    }
    a = train(_tiny(tmp_path / "a", **cfg), progress=False, quiet=True)
    b = train(_tiny(tmp_path / "b", **cfg), progress=False, quiet=True)
    c = train(_tiny(tmp_path / "c", seed=2, **cfg), progress=False, quiet=True)
    pa, pb, pc = _params(a.model_path), _params(b.model_path), _params(c.model_path)
    np.testing.assert_array_equal(pa, pb)
    assert not np.array_equal(pa, pc)


def test_resume_refuses_a_file_that_is_no_maskable_ppo_checkpoint(tmp_path):
    """A text file named .zip, or the device trainer's .pt, given to the sb3 trainer: one ConfigError, nothing written."""
    from risk_env.agents import pretrained_path

    fake = tmp_path / "fake.zip"
    fake.write_text("hello")
    with pytest.raises(ConfigError) as info:
        train(_tiny(tmp_path / "r1"), resume=fake, progress=False, quiet=True)
    assert str(info.value) == f"--resume {str(fake)!r}: fake.zip is not a MaskablePPO checkpoint (File is not a zip file)"
    with pytest.raises(ConfigError) as info:
        train(_tiny(tmp_path / "r2"), resume=pretrained_path("ppo-3p"), progress=False, quiet=True)
    assert "ppo-3p.pt is a graph policy file of trainer 'device'; trainer 'sb3' resumes a MaskablePPO" in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake.zip"]


def test_cli_an_option_and_a_set_that_disagree_are_refused(tmp_path):
    # (the option won without a word: --out A --set out_dir=B wrote to A)
    for args, message in (
        (["--out", "A", "--set", "out_dir=B"], "error: --set out_dir=B and --out A disagree: give one of them\n"),
        (["--seed", "5", "--set", "seed=7"], "error: --set seed=7 and --seed 5 disagree: give one of them\n"),
        (
            ["--timesteps", "5000", "--set", "total_timesteps=7000"],
            "error: --set total_timesteps=7000 and --timesteps 5000 disagree: give one of them\n",
        ),
    ):
        code, _, err = run_cli("train", *args, "--print-config")
        assert (code, err) == (2, message)
    code, _, err = run_cli("train", "--seed", "1", "--set", "seed=true", "--print-config")  # (True == 1 passed)
    assert (code, err) == (2, "error: --set seed=true and --seed 1 disagree: give one of them\n")
    code, out, _ = run_cli("train", "--seed", "5", "--set", "seed=5.0", "--print-config")  # (one number)
    assert code == 0 and "seed: 5" in out
    code, out, _ = run_cli("train", "--out", "./runs/a", "--set", "out_dir=runs/a", "--print-config")  # (one folder)
    assert code == 0 and "out_dir: ./runs/a" in out
    for folder in ("null", "5", "~", "1e3"):  # (read as values: null wrote to runs/<name>, 5 was refused)
        code, out, _ = run_cli("train", "--out", folder, "--print-config")
        assert code == 0 and f"out_dir: '{folder}'" in out, out
    # (config.yaml wrote 1e3 bare, which the loader's YAML 1.2 floats read back as the number 1000.0)
    cfg = TrainConfig.from_dict({**load_config("device").model_dump(mode="json"), "out_dir": "1e3", "name": "2E6"})
    (tmp_path / "c.yaml").write_text(cfg.to_yaml())
    assert TrainConfig.load(tmp_path / "c.yaml") == cfg
    code, out, _ = run_cli(
        "train", "--timesteps", "5e3", "--set", "total_timesteps=5000", "--seed", "5", "--set", "seed=5", "--print-config"
    )
    assert code == 0 and "total_timesteps: 5000" in out and "seed: 5" in out  # (the same value twice)


def test_cli_resume_bad_path_is_a_clear_error(tmp_path):
    code, _, err = run_cli("train", "--resume", tmp_path / "nothing", "--no-progress")
    assert code == 2 and "no checkpoint" in err and err.count("\n") == 1
    for empty in ("", "  "):  # (not the working folder by accident)
        code, _, err = run_cli("train", "--resume", empty, "--no-progress")
        assert (code, err) == (
            2,
            f"error: --resume takes a checkpoint or a run folder ('.' for the working folder), got {empty!r}\n",
        )
    code, _, err = run_cli("train", "--resume", "/", "--no-progress")  # (a folder without a name: it was a ValueError)
    assert code == 2 and err.startswith("error: --resume '/': no checkpoint there") and err.count("\n") == 1


def test_subprocess_envs_get_the_snapshots(tmp_path):
    from risk_env.train.sb3 import build_vec_env

    cfg = _tiny(tmp_path / "sub", **{"env.vec_env": "subproc", "opponents.self_play.p_snapshot": 1.0})
    res = train(cfg, progress=False, quiet=True)
    assert res.timesteps == 256 and "SubprocVecEnv" in (tmp_path / "sub" / "train.log").read_text()
    venv = build_vec_env(cfg, snapshots=[str(p) for p in sorted((tmp_path / "sub" / "pool").glob("*.zip"))])
    try:
        pools = venv.get_attr("opponent_pool")
        assert [len(p.snapshots) for p in pools] == [2, 2]
        venv.env_method("add_snapshot", str(res.model_path))
        assert [len(p.snapshots) for p in venv.get_attr("opponent_pool")] == [3, 3]
    finally:
        venv.close()


def test_the_progress_bar_ends_at_the_steps_the_run_takes(tmp_path, capsys):
    """SB3 learns in whole rollouts (here 2 envs x 64 steps): 200 steps asked are 256 done, and the
    bar counts to 256 (SB3's own bar would end at 256/200)."""
    import re

    res = train(_tiny(tmp_path / "run", total_timesteps=200, **{"eval.final_games": 0}), progress=True)
    assert res.timesteps == 256
    out = capsys.readouterr()
    assert "learning in whole rollouts of 128 steps: the run ends at 256 (total_timesteps 200)" in out.out
    counts = re.findall(r"training: .*?(\d+)/(\d+)", out.err)
    assert counts and counts[-1] == ("256", "256") and all(total == "256" for _, total in counts)


def test_the_periodic_evaluation_goes_to_the_models_public_logger(tmp_path, monkeypatch):
    """The evaluation's figures go to ``model.logger`` (SB3's public logger, and the on-device trainer's); a model
    with no logger yet (SB3's before ``learn()``, whose property raises) gets the evaluation's log line only."""
    import risk_env.train.run as run_mod

    summary = run_mod.EvalSummary("random", 4, 3, 0.75, 0.3, 0.95, 0.0, 12.0, 1.0)
    monkeypatch.setattr(run_mod, "evaluate_model", lambda *a, **k: {"random": summary})

    class Logger:
        def __init__(self) -> None:
            self.records: list[tuple[str, float]] = []
            self.dumped: list[int] = []

        def record(self, key: str, value: float) -> None:
            self.records.append((key, value))

        def dump(self, step: int) -> None:
            self.dumped.append(step)

    class Model:
        def __init__(self, logger: Logger | None) -> None:
            self._log = logger

        @property
        def logger(self) -> Logger:
            if self._log is None:
                raise AttributeError("no logger before learn()")
            return self._log

        def save(self, path) -> None:
            Path(path).write_bytes(b"")

    cfg = _tiny(tmp_path)
    run = run_mod.Run(cfg, tmp_path, quiet=True)
    logger = Logger()
    run.periodic_eval(Model(logger), 128)
    assert logger.records == [("eval/win_rate/random", 0.75), ("eval/mean_turns/random", 12.0)]
    assert logger.dumped == [128]
    run.periodic_eval(Model(None), 256)
    lines = [json.loads(x) for x in (tmp_path / "evals.jsonl").read_text().splitlines()]
    assert [x["timesteps"] for x in lines] == [128, 256] and lines[1]["random"]["win_rate"] == 0.75
    assert "eval @ 256: vs random: win rate 75.0%" in (tmp_path / "train.log").read_text()


def test_the_evaluation_seed_is_checked_when_the_config_is_read():
    # (eval.seed=2**32 failed every periodic evaluation, then the run, with no results written)
    with pytest.raises(ConfigError) as info:
        load_config("device", ["eval.seed=4294967296"])
    msg = "eval.seed: Input should be less than 4294967296 (set by the override 'eval.seed=4294967296')"
    assert str(info.value).endswith(msg)
    assert load_config("device", ["eval.seed=4294967295"]).eval.seed == 2**32 - 1


def test_a_resume_under_rules_of_other_spaces_is_refused_before_the_run_folder(tmp_path):
    # (another map: SB3's ValueError "Observation spaces do not match" after the run's first line)
    run = tmp_path / "run"
    train(_tiny(run, total_timesteps=128), progress=False, quiet=True)
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*")}
    small = {"preset": "fast", "num_players": 2, "turn_limit": 16, "map": "small"}
    other = _tiny(run, total_timesteps=256, rules=small, **{"eval.rules": small})
    with pytest.raises(ConfigError) as info:
        train(other, resume=run, progress=False, quiet=True)
    assert str(info.value) == (
        f"--resume {str(run)!r} continues a run of other rules (rules.map='classic' -> 'small'): a resumed run plays its "
        "run's game; resume it with its own rules, or start a new run from its weights: --resume RUN/model.zip --config "
        "RUN/config.yaml --out NEW with the rules set (a plain model file, where the spaces match), or --config device "
        "--set ppo.init=PATH (a graph network, any rules)"
    )
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*")} == before
    # the advice, followed as written: another player count (the same spaces) from the run's model.zip, its config
    code, out, err = run_cli(
        "train", "--resume", str(run / "model.zip"), "--config", str(run / "config.yaml"), "--out", str(tmp_path / "new"),
        "--set", "rules.num_players=3", "--set", "eval.rules.num_players=3", "--set", "total_timesteps=256", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    assert "3 players" in (tmp_path / "new" / "train.log").read_text()
    # a run's checkpoint without its metadata is compared with its run folder's config.yaml
    (run / "checkpoints" / "step_000000128.json").unlink()
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*")}
    with pytest.raises(ConfigError, match=r"continues a run of other rules \(rules\.map='classic' -> 'small'\): "):
        train(other, resume=run, progress=False, quiet=True)
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*")} == before
    # without either (the rules it was trained under unknown), it is checked by its spaces
    (run / "config.yaml").unlink()
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*")}
    with pytest.raises(ConfigError) as info:
        train(other, resume=run, progress=False, quiet=True)
    msg = str(info.value)
    assert msg.startswith(f"--resume {str(run)!r}: step_000000128.zip reads observations action_mask (70,), edges (2, 166)")
    assert "; these rules give action_mask (37,), edges (2, 26), globals (73,), nodes (9, 20) and 37 action ids: " in msg
    assert msg.endswith(
        "the on-device trainer starts a new run from a graph network on any rules (--config device --set ppo.init=PATH)"
    )
    assert {p: p.stat().st_mtime_ns for p in run.rglob("*")} == before


def test_rollout_buffer_bytes_counts_sb3_contribs_own_buffers() -> None:
    import tracemalloc

    from sb3_contrib.common.maskable.buffers import MaskableDictRolloutBuffer, MaskableRolloutBuffer

    from risk_env.envs.single_agent import RiskSingleAgentEnv
    from risk_env.train.sb3 import rollout_buffer_bytes

    for observation, buffer_class in (("flat", MaskableRolloutBuffer), ("graph", MaskableDictRolloutBuffer)):
        env = RiskSingleAgentEnv(num_players=3, preset="fast", observation=observation)
        tracemalloc.start()  # (numpy reports its arrays to tracemalloc)
        try:
            buf = buffer_class(5, env.observation_space, env.action_space, n_envs=3)
            arrays = [v for v in vars(buf).values() if isinstance(v, np.ndarray)]
            observed = [a for v in vars(buf).values() if isinstance(v, dict) for a in v.values() if isinstance(a, np.ndarray)]
            total = sum(a.nbytes for a in arrays + observed)
            assert rollout_buffer_bytes(env.observation_space, env.action_space) * 15 == total
            # at its peak, while the buffer's first get() flattens each array into a copy: a copy of the largest (the
            # dict buffer's last observation array, held by get's loop, lives on while the others are copied)
            if observed:
                peak = total + max(a.nbytes for a in observed) + max(a.nbytes for a in arrays)
            else:
                peak = total + max(a.nbytes for a in arrays)
            assert rollout_buffer_bytes(env.observation_space, env.action_space, peak=True) * 15 == peak
            del arrays, observed  # (the buffer's own references only)
            buf.full = True
            held = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            next(buf.get(batch_size=1))
            grew = tracemalloc.get_traced_memory()[1] - held
        finally:
            tracemalloc.stop()
        # (besides: the index permutation and a one-decision sample, a few KB)
        assert peak - total <= grew <= peak - total + 8_000, (observation, grew, peak - total)


def test_an_sb3_rollout_buffer_too_large_for_the_memory_is_refused_before_its_folder(tmp_path: Path) -> None:
    # (ppo.n_steps=1e8 was numpy's ArrayMemoryError after the run folder was written; env.n_envs=1e6 started env
    # processes until the system stopped them)
    for key, value, message in (
        ("ppo.n_steps", 100_000_000, r"^env\.n_envs=2 x ppo\.n_steps=100,000,000: the rollout buffer needs about "
         r"[\d,.]+ GiB \([\d,]+ bytes a decision: .*\), but this machine has [\d,.]+ GiB \(the memory .*\); "
         r"the largest ppo\.n_steps that fits is [\d,]+$"),
        ("env.n_envs", 1_000_000_000, r"^env\.n_envs=1,000,000,000 x ppo\.n_steps=64: the rollout buffer needs about "
         r"[\d,.]+ GiB .*; lower env\.n_envs: not one step of them fits$"),
    ):  # fmt: skip
        with pytest.raises(ConfigError, match=message):
            train(_tiny(tmp_path / "run", **{key: value}), progress=False, quiet=True)
        assert not (tmp_path / "run").exists()


def test_the_counted_weights_are_those_of_the_networks_the_trainers_build():
    from sb3_contrib import MaskablePPO

    from risk_env.envs.single_agent import RiskSingleAgentEnv
    from risk_env.train.graph_net import GraphNet
    from risk_env.train.graph_policy import GraphPolicy
    from risk_env.train.sb3 import _network_weights

    for sizes in ((20, 73, 28, 16, 2), (5, 7, 3, 1, 0), (20, 73, 28, 64, 3)):
        assert GraphNet.parameter_count(*sizes) == sum(p.numel() for p in GraphNet(*sizes).parameters())
    for policy, arch in (("mlp", [8, 4]), ("mlp", [5]), ("graph", None)):
        net = {"ppo.net_arch": arch} if arch else {"ppo.graph_hidden": 8, "ppo.graph_rounds": 1}
        cfg = _tiny(Path("unused"), **{"ppo.policy": policy, **net})
        env = RiskSingleAgentEnv(rules=cfg.rules_config, observation=policy if policy == "graph" else "flat")
        kwargs = {"hidden": 8, "rounds": 1} if arch is None else {"net_arch": arch}
        model = MaskablePPO(GraphPolicy if arch is None else "MlpPolicy", env, policy_kwargs=kwargs, device="cpu")
        weights, device, what, kept, batch = _network_weights(cfg)
        assert weights == sum(p.numel() for p in model.policy.parameters()) and str(device) == "cpu"
        assert what == ("ppo.graph_hidden=8, ppo.graph_rounds=1" if arch is None else f"ppo.net_arch={arch}")
        # (the graph policy's minibatch activations: GraphNet.activation_bytes, checked against autograd's in test_graph)
        B = cfg.ppo.batch_size
        graph = (GraphNet.activation_bytes(B, 42, 20, 73, 28, 8, 1), f"ppo.batch_size={B}")
        assert (kept, batch) == (graph if arch is None else (0, ""))


def test_the_memory_check_names_sizes_past_a_floats_range():
    # (ppo.graph_hidden=1e200 was an OverflowError from formatting the weights as a float)
    import torch

    from risk_env.train.run import check_network_memory

    big = r"^x, y: the network's 1\.00e\+401 weights and .* about 1\.49e\+393 GiB .*; 1\.00e\+191 GiB of activations"
    with pytest.raises(ConfigError, match=big):
        check_network_memory(10**401, torch.device("cpu"), "x", 2**30 * 10**191, "y")


def test_the_memory_check_counts_the_largest_minibatch_the_network_trains_on():
    # (a ppo.batch_size past one rollout was refused for activations no minibatch has: the minibatch is cut at the
    # rollout; the warm start's minibatch, which trains the same network, was not counted)
    from risk_env.train.device_train import graph_net_weights
    from risk_env.train.graph_net import GraphNet

    def counted(*sets):
        _, _, kept, batch = graph_net_weights(load_config("device", list(sets)), 28, 42, 20, 73)
        return kept, batch

    def rows(n, hidden=32):
        return GraphNet.activation_bytes(n, 42, 20, 73, 28, hidden, 3)

    assert counted() == (rows(512), "ppo.batch_size=512")  # (the device config: both minibatches of 512)
    assert counted("imitation.enabled=false", "ppo.batch_size=100000") == (rows(8192), "ppo.batch_size=100,000")  # 512 x 16
    assert counted("imitation.enabled=false", "ppo.batch_size=3000", "env.n_envs=1000") == (rows(3000), "ppo.batch_size=3,000")
    assert counted("ppo.graph_hidden=1100", "imitation.batch_size=8192") == (rows(8192, 1100), "imitation.batch_size=8,192")
    # (the warm start's minibatch is at most the decisions it clones: 60,000 + 1 x 30,000 in the device config)
    assert counted("imitation.batch_size=1000000") == (rows(90_000), "imitation.batch_size=1,000,000")


@pytest.mark.parametrize("trainer", ["device", "sb3"])
def test_a_network_too_large_to_train_is_refused_before_the_run_folder(tmp_path, trainer):
    # (ppo.graph_hidden=1e12: torch's "can't allocate memory" traceback after config.yaml was written)
    changes = {"ppo.graph_hidden": 10**12, "ppo.graph_rounds": 1, "trainer": trainer}
    if trainer == "device":
        changes.update({"opponents": {"baselines": ["random"]}, "ppo.batch_size": 64})
    with pytest.raises(ConfigError) as info:
        train(_tiny(tmp_path / "run", **changes), progress=False, quiet=True)
    assert str(info.value).startswith(
        "ppo.graph_hidden=1,000,000,000,000, ppo.graph_rounds=1, ppo.batch_size=64: the network's 1.40e+25 weights and "
        "a minibatch's activations need about 2.09e+17 GiB to train (weights, gradients and the optimizer's two moments: "
        "16 bytes a weight; 8.20e+07 GiB of activations kept for the backward pass), but cpu has "
    )
    assert not (tmp_path / "run").exists()
    # a network whose weights fit, with a minibatch whose activations do not (GraphNet.activation_bytes: 341.2 GiB; the
    # check counted the weights alone)
    changes.update({"ppo.graph_hidden": 512, "ppo.graph_rounds": 3, "ppo.batch_size": 2**18, "ppo.n_steps": 2**14})
    with pytest.raises(ConfigError) as info:
        train(_tiny(tmp_path / "run", **{**changes, "env.n_envs": 16}), progress=False, quiet=True)
    assert re.fullmatch(
        r"ppo\.graph_hidden=512, ppo\.graph_rounds=3, ppo\.batch_size=262,144: the network's 5,313,566 weights and a "
        r"minibatch's activations need about 341\.2 GiB to train \(weights, gradients and the optimizer's two moments: "
        r"16 bytes a weight; 341\.2 GiB of activations kept for the backward pass\), but cpu has [\d.,]+ GiB \(.*\); "
        r"choose a smaller network or minibatch",
        str(info.value),
    ), str(info.value)
    assert not (tmp_path / "run").exists()
    if trainer == "sb3":  # (a warm start from a plain model file trains its own network: the config's is not counted)
        small = _tiny(tmp_path / "mlp", **{"ppo.policy": "mlp", "ppo.net_arch": [8], "total_timesteps": 128})
        train(small, progress=False, quiet=True)
        big = _tiny(tmp_path / "warm", **{"ppo.policy": "mlp", "ppo.net_arch": [10**6, 10**6], "total_timesteps": 256})
        assert train(big, resume=tmp_path / "mlp" / "model.zip", progress=False, quiet=True).timesteps == 256


def test_eval_workers_on_the_vector_backend_are_refused_when_the_config_is_read() -> None:
    # (the vector evaluation refuses them: the run failed its final evaluation after the training)
    from risk_env.train.config import load_config

    with pytest.raises(ConfigError) as info:
        load_config("device", ["eval.workers=2"])
    assert (
        "eval: workers=2 sets the reference backend's processes; the vector backend plays the games in one process: "
        "leave eval.workers null (or set eval.backend: reference) (set by the override 'eval.workers=2')"
    ) in str(info.value)
    assert load_config("device", ["eval.workers=1"]).eval.workers == 1
    assert load_config("device", ["eval.workers=2", "eval.backend=reference"]).eval.workers == 2


def test_an_unknown_teacher_of_the_device_trainer_is_told_the_forms_it_plays() -> None:
    # (it was told load_agent's forms, RLlib folders and module:callable among them, which the device trainer refuses)
    with pytest.raises(ConfigError) as info:
        load_config("device", ["kickstart.teacher=nosuch"])
    assert (
        "kickstart.teacher: unknown agent 'nosuch': trainer 'device' plays the batched policies: random, aggressive, "
        "balanced, continent; or a network: a pretrained agent (ppo-2p, ppo-3p, ppo-4p, ppo-5p, ppo-6p, ppo-2p-0.1, ppo-4p-0.1, "
        "ppo-4p-500k), a policy file .pt or a MaskablePPO .zip (set by the override 'kickstart.teacher=nosuch')"
    ) in str(info.value)
    assert "RLlib" not in str(info.value) and "module:callable" not in str(info.value)


def test_final_evaluations_against_two_files_of_one_name_keep_both_results(tmp_path):
    """Two opponents ``a/model.pt`` and ``b/model.pt`` wrote one ``final_eval/model`` folder: the second's results
    replaced the first's."""
    import shutil

    from risk_env.agents.registry import pretrained_path
    from risk_env.train.run import evaluate_model

    specs = []
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        specs.append(str(shutil.copy(pretrained_path("ppo-2p"), tmp_path / run / "model.pt")))
    rules = TrainConfig.from_dict({"eval": {"rules": {"preset": "fast", "num_players": 2, "turn_limit": 12}}}).eval_rules_config
    got = evaluate_model("aggressive", specs, 2, rules, 7, 1, out_dir=tmp_path / "final", backend="vector")
    assert sorted(p.name for p in (tmp_path / "final").iterdir()) == ["model", "model_2"]
    for spec, folder in zip(specs, ("model", "model_2"), strict=True):
        saved = json.loads((tmp_path / "final" / folder / "results.json").read_text())
        assert saved["entrants"] == ["aggressive", "model"] and got[spec].games == 2


def test_a_config_without_eval_rules_evaluates_the_games_it_trains_on(tmp_path):
    """A user's file with ``rules`` and no ``eval.rules`` trained 4-player games on the small map and evaluated
    2-player games on the classic map (the schema's default was the ``fast`` preset for 2 players)."""
    from risk_env.train.config import load_config

    path = tmp_path / "my4p.yaml"
    path.write_text("name: my4p\ntrainer: device\nrules: {preset: fast, num_players: 4, map: small}\n")
    cfg = load_config(str(path))
    assert cfg.eval.rules is None and cfg.eval_rules_config == cfg.rules_config
    assert (cfg.eval_rules_config.num_players, cfg.eval_rules_config.map) == (4, "small")
    shipped = load_config("ppo-3p")  # (a file that sets eval.rules keeps them)
    assert shipped.eval.rules == {"preset": "fast", "num_players": 3}


def test_ctrl_c_during_training_says_where_the_run_is_and_how_to_go_on(tmp_path, monkeypatch):
    """Ctrl+C ended a run with exit 130 and not a word."""
    from helpers import run_cli

    import risk_env.train.sb3 as sb3

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sb3, "train", stopped)
    run = tmp_path / "my run"
    code, _, err = run_cli("train", "--config", "device", "--out", str(run))
    assert code == 130
    assert err == (
        f"\nstopped (Ctrl+C); the run's checkpoints so far are in {str(run)!r}: go on from the newest with --resume '{run}'\n"
    )
