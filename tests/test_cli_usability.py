"""The risk-env command line from a user's seat: help texts, seat labels, one-line errors
for bad output paths and broken records, and the play screen fitting 120x40."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("typer")

from typer.testing import CliRunner  # noqa: E402

from risk_env.records.record import GameRecord, RecordError  # noqa: E402
from risk_env.tools.cli import app, main  # noqa: E402

runner = CliRunner()
SMALL2 = ["--players", "2", "--map", "small", "--set", "setup=random", "--set", "two_player=none"]


def _help(args: list[str], columns: int = 80) -> str:
    res = runner.invoke(app, args, env={"COLUMNS": str(columns)}, prog_name="risk-env")
    assert res.exit_code == 0, res.output
    return res.output


def test_help_names_options_in_full_at_80_columns() -> None:
    out = _help(["watch", "--help"])
    for option in ("--players", "--turns, --turn-limit", "--png-when", "--color / --no-color", "--record", "--delay"):
        assert option in out, option
    assert "…" not in out
    top = _help(["--help"])
    commands = top.split("Commands:")[1].strip().splitlines()
    assert [c.split()[0] for c in commands] == ["play", "watch", "replay", "evaluate", "train", "bench", "soak"]
    assert not any(c.endswith("...") or "…" in c for c in commands)  # no description cut short
    assert all(len(line) <= 80 for line in top.splitlines())


def test_usage_lines_name_the_program_risk_env(capsys) -> None:  # type: ignore[no-untyped-def]
    for cmd in ("evaluate", "bench", "soak", "train"):
        with pytest.raises(SystemExit) as ex:
            main([cmd, "--help"])
        assert ex.value.code in (0, None)
        out = capsys.readouterr().out
        assert out.startswith(f"usage: risk-env {cmd} "), (cmd, out[:60])
    for cmd in ("play", "watch", "replay"):
        assert _help([cmd, "--help"]).startswith(f"Usage: risk-env {cmd} ")


def test_evaluate_help_prints_a_plain_percent(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "95% Wilson" in out and "%%" not in out


def test_watch_says_which_agent_holds_which_seat() -> None:
    res = runner.invoke(
        app,
        ["watch", "--players", "3", "--map", "small", "--turns", "1", "--show", "none", "--agents", "random,aggressive,random"],
    )
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == "seats: player_0 = random, player_1 = aggressive, player_2 = random"
    res = runner.invoke(app, ["watch", "--players", "2", "--map", "small", "--show", "none", "--agents", "aggressive,random"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == "seats: player_0 = aggressive, player_1 = random, neutral = no agent (armies only)"
    assert " (aggressive) wins after " in lines[1] or " (random) wins after " in lines[1] or "no winner" in lines[1]


def test_watch_png_into_a_missing_folder_creates_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("matplotlib")
    png = tmp_path / "new" / "deeper" / "b.png"
    res = runner.invoke(app, ["watch", *SMALL2, "--turns", "1", "--show", "none", "--png", str(png)])
    assert res.exit_code == 0, res.output
    assert png.exists() and png.read_bytes()[:4] == b"\x89PNG"


def test_watch_png_where_no_folder_can_be_made_is_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("matplotlib")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = runner.invoke(app, ["watch", *SMALL2, "--turns", "1", "--show", "none", "--png", str(blocker / "b.png")])
    assert res.exit_code == 2
    assert res.output.startswith("error: --png ") and "cannot create the folder" in res.output
    assert res.output.count("\n") == 1 and "Traceback" not in res.output


def test_evaluate_out_to_an_unwritable_path_is_one_line_exit_2(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("openskill")
    from risk_env.tools import evaluation

    blocker = tmp_path / "file"
    blocker.write_text("x")
    rc = evaluation.main(["random", "random", "--games", "2", "--workers", "1", "--out", str(blocker / "out")])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: cannot write results to ") and err.count("\n") == 1
    with pytest.raises(SystemExit) as ex:
        main(["evaluate", "random", "random", "--games", "2", "--workers", "1", "--out", str(blocker)])
    assert ex.value.code == 2 and "cannot write results" in capsys.readouterr().err


def _broken_record(tmp_path):  # type: ignore[no-untyped-def]
    path = tmp_path / "r.json"
    res = runner.invoke(app, ["watch", *SMALL2, "--turns", "2", "--show", "none", "--record", str(path)])
    assert res.exit_code == 0, res.output
    d = json.loads(path.read_text())
    d["moves"][2] = "attack Nowhere->Ash dice=3"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(d))
    return path, bad


def test_replay_quiet_fails_on_a_broken_record(tmp_path) -> None:  # type: ignore[no-untyped-def]
    good, bad = _broken_record(tmp_path)
    res = runner.invoke(app, ["replay", "-q", str(good)])
    assert res.exit_code == 0 and res.output == ""
    res = runner.invoke(app, ["replay", "-q", str(bad)])
    assert res.exit_code == 1
    assert (
        res.output
        == f"error: {bad}: move 3 ('attack Nowhere->Ash dice=3') does not replay: " + res.output.split("does not replay: ", 1)[1]
    )
    assert res.output.count("\n") == 1


def test_loading_a_record_validates_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    good, bad = _broken_record(tmp_path)
    with pytest.raises(RecordError, match=r"bad\.json: move 3 .* does not replay"):
        GameRecord.load(bad)
    rec = GameRecord.load(bad, validate=False)  # reading only: the check is skipped
    assert rec.moves[2] == "attack Nowhere->Ash dice=3"
    assert GameRecord.load(good).validate().moves == json.loads(good.read_text())["moves"]
    lied = json.loads(good.read_text())
    lied["result"]["armies"] = [1, 1]
    (tmp_path / "lied.json").write_text(json.dumps(lied))
    with pytest.raises(RecordError, match=r"lied\.json: replaying the record gives armies="):
        GameRecord.load(tmp_path / "lied.json")


def test_replay_strip_into_a_missing_folder_and_an_unwritable_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("matplotlib")
    good, _ = _broken_record(tmp_path)
    strip = tmp_path / "a" / "b" / "s.png"
    res = runner.invoke(app, ["replay", "-q", str(good), "--strip", str(strip)])
    assert res.exit_code == 0 and strip.exists()
    if os.geteuid() != 0:  # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        res = runner.invoke(app, ["replay", "-q", str(good), "--strip", str(ro / "s.png")])
        ro.chmod(0o700)
        assert res.exit_code == 2 and "is not writable" in res.output and res.output.count("\n") == 1
