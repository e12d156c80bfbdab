"""A missing optional package ends in one line naming the extra to install (simulated by
``sys.modules[name] = None``, which makes ``import name`` fail)."""

from __future__ import annotations

import sys

import pytest

from risk_env._extras import require
from risk_env.errors import MissingExtraError


def _missing(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    for name in names:
        monkeypatch.setitem(sys.modules, name, None)


def test_require_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    _missing(monkeypatch, "imageio", "imageio.v3")
    with pytest.raises(MissingExtraError) as info:
        require("imageio.v3", "render", "writing an animation")
    e = info.value
    assert str(e) == "writing an animation needs imageio (extra 'render'): pip install 'risk_env[render]'"
    assert e.extra == "render" and e.name == "imageio" and isinstance(e, ImportError)
    assert e.__cause__ is None and e.__suppress_context__  # no chained traceback
    assert require("json", "core", "x").dumps([1]) == "[1]"


def _small_record(tmp_path):  # type: ignore[no-untyped-def]
    from risk_env import Game, RulesConfig
    from risk_env.records.recorder import GameRecorder

    game = Game(RulesConfig(num_players=2, map="small", setup="random", two_player="none", turn_limit=2))
    s = game.new_game(seed=4)
    rec = GameRecorder(game, seed=4)
    for _ in range(3):
        mv = game.legal_moves(s)[0]
        game.apply(s, mv)
        rec.add(mv)
    path = tmp_path / "r.json"
    rec.finish(s).save(path)
    return path


def test_replay_gif_without_imageio_is_one_line(tmp_path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("typer")
    from risk_env.tools.cli import main

    path = _small_record(tmp_path)
    _missing(monkeypatch, "imageio", "imageio.v3")
    gif = tmp_path / "g.gif"
    with pytest.raises(SystemExit) as ex:
        main(["replay", str(path), "--gif", str(gif)])
    err = capsys.readouterr().err
    assert ex.value.code == 1 and not gif.exists()
    assert err == "error: writing an animation needs imageio (extra 'render'): pip install 'risk_env[render]'\n"
    with pytest.raises(SystemExit) as ex:  # the script's entry point too
        main([str(path), "--gif", str(gif), "--quiet"], command="replay", prog_name="python scripts/replay.py")
    assert ex.value.code == 1 and capsys.readouterr().err.strip().endswith("pip install 'risk_env[render]'")


def test_bench_without_chess_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("typer")
    from risk_env.tools.cli import main

    _missing(monkeypatch, "chess")
    with pytest.raises(SystemExit) as ex:
        main(["bench", "--quick"])  # fails before anything is timed
    out = capsys.readouterr()
    assert ex.value.code == 1 and out.out == ""
    assert out.err == "error: the benchmark needs chess (extra 'bench'): pip install 'risk_env[bench]'\n"


def test_evaluate_without_tqdm_plays_without_a_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openskill")
    import risk_env

    _missing(monkeypatch, "tqdm", "tqdm.auto")
    res = risk_env.evaluate(["random", "random"], num_games=2, workers=1, map="small", two_player="none", turn_limit=3)
    assert res.num_games == 2 and len(res.games) == 2 and res.mean_turns == 3.0


def test_evaluate_without_openskill_fails_before_playing(monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    import risk_env
    from risk_env.tools import evaluation

    _missing(monkeypatch, "openskill", "openskill.models")
    played: list[tuple] = []

    def fake_play(*a: object, **k: object) -> list:
        played.append(a)
        return []

    monkeypatch.setattr(evaluation, "_play_jobs", fake_play)
    with pytest.raises(MissingExtraError, match=r"needs openskill \(extra 'eval'\): pip install 'risk_env\[eval\]'"):
        risk_env.evaluate(["random", "random"], num_games=2, workers=1)
    assert played == []
    pytest.importorskip("typer")
    from risk_env.tools.cli import main

    with pytest.raises(SystemExit) as ex:
        main(["evaluate", "random", "random", "--games", "2", "--workers", "1"])
    err = capsys.readouterr().err
    assert ex.value.code == 1 and err.count("\n") == 1 and "pip install 'risk_env[eval]'" in err


def test_drawing_without_matplotlib_names_the_render_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from risk_env import Game, RulesConfig
    from risk_env.records.draw import BoardRenderer

    _missing(monkeypatch, "matplotlib")
    with pytest.raises(MissingExtraError, match=r"drawing the board needs matplotlib \(extra 'render'\)"):
        BoardRenderer(Game(RulesConfig(num_players=2, map="small")))


def test_watch_gif_or_png_without_the_render_extra_stops_before_playing(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from risk_env.tools.cli import app

    runner = CliRunner()
    small = ["watch", "--players", "2", "--map", "small", "--show", "log", "--turns", "2"]
    _missing(monkeypatch, "imageio", "imageio.v3")
    res = runner.invoke(app, [*small, "--gif", str(tmp_path / "g.gif")])
    assert res.exit_code == 1 and res.output == (
        "error: writing an animation (--gif) needs imageio (extra 'render'): pip install 'risk_env[render]'\n"
    )  # one line, and no move was played before it
    _missing(monkeypatch, "matplotlib")
    res = runner.invoke(app, [*small, "--png", str(tmp_path / "b.png")])
    assert res.exit_code == 1 and res.output == (
        "error: drawing the board (--png, --gif) needs matplotlib (extra 'render'): pip install 'risk_env[render]'\n"
    )


ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def test_missing_extra_message_tells_an_optional_package_from_a_fault() -> None:
    from risk_env._extras import missing_extra_message

    e = ModuleNotFoundError("No module named 'sb3_contrib'", name="sb3_contrib")
    assert (
        missing_extra_message(e, "train", "training")
        == "training needs sb3_contrib (extra 'train'): pip install 'risk_env[train]'"
    )
    assert missing_extra_message(MissingExtraError("as is", extra="render"), "train", "x") == "as is"
    assert missing_extra_message(ModuleNotFoundError("x", name="risk_env.nope"), "train", "x") is None
    assert missing_extra_message(ImportError("no name"), "train", "x") is None


@pytest.mark.parametrize(
    ("config", "package"),
    [
        ("sb3", "sb3_contrib"),  # trainer: sb3 (MaskablePPO)
        ("default", "torchrl"),  # trainer: device (TorchRL's PPO loss and GAE), the main job
        ("device", "torchrl"),
        ("device", "tensordict"),
        ("2p", "sb3_contrib"),
    ],
)
def test_risk_env_train_without_its_trainers_package_is_one_line(  # type: ignore[no-untyped-def]
    config: str, package: str, tmp_path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    pytest.importorskip("typer")
    pytest.importorskip("yaml")
    from risk_env.tools.cli import main
    from risk_env.train.config import load_config

    assert load_config(config).trainer == ("sb3" if package == "sb3_contrib" else "device")
    monkeypatch.chdir(tmp_path)
    _missing(monkeypatch, package)
    run = tmp_path / "run"
    with pytest.raises(SystemExit) as ex:
        main(["train", "--config", config, "--set", f"out_dir={run}"])
    assert ex.value.code == 1
    assert capsys.readouterr().err == f"error: training needs {package} (extra 'train'): pip install 'risk_env[train]'\n"
    assert not run.exists()  # refused before the run started: nothing written


def test_risk_env_train_print_config_without_pyyaml_names_the_train_extra(monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("typer")
    from risk_env.tools.cli import main

    _missing(monkeypatch, "yaml")
    for name in ("risk_env.train.sb3", "risk_env.train.config"):  # imported again, without yaml
        monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.raises(SystemExit) as ex:
        main(["train", "--print-config"])
    assert ex.value.code == 1
    assert capsys.readouterr().err == "error: training needs yaml (extra 'train'): pip install 'risk_env[train]'\n"


def test_the_console_script_without_typer_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    import tomllib

    from risk_env.tools.console import main

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["risk-env"] == "risk_env.tools.console:main"
    _missing(monkeypatch, "typer")
    monkeypatch.delitem(sys.modules, "risk_env.tools.cli", raising=False)
    with pytest.raises(SystemExit) as ex:
        main(["--help"])
    assert ex.value.code == 1
    assert capsys.readouterr().err == "error: the risk-env command line needs typer (extra 'cli'): pip install 'risk_env[cli]'\n"


def test_scripts_train_without_torch_is_one_line(tmp_path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("yaml")
    import runpy

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["scripts/train.py", "--config", "default", "--set", f"out_dir={tmp_path / 'run'}"])
    _missing(monkeypatch, "torch")
    with pytest.raises(SystemExit) as ex:
        runpy.run_path(str(ROOT / "scripts" / "train.py"), run_name="__main__")
    assert ex.value.code == 1
    assert capsys.readouterr().err == "error: training needs torch (extra 'train'): pip install 'risk_env[train]'\n"
    assert not (tmp_path / "run").exists()
