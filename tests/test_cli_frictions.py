"""Frictions new users met in the command line, each with its small input: one meaning
per short option, agent lists that name the shipped agents, advice in the terms the user used,
play's screens (distinct seat labels, card symbols, help and the full board within 120x40),
and what ``replay --strip`` draws."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("typer")

import typer.main  # noqa: E402
from helpers import run_cli  # noqa: E402

from risk_env.agents import BASELINES, PRETRAINED  # noqa: E402
from risk_env.rules.config import resolve_rules  # noqa: E402
from risk_env.tools.cli import COMMANDS, app  # noqa: E402

WIDE = {"COLUMNS": "400"}  # help texts on one line each, to search them


def _help(*args: str) -> str:
    from typer.testing import CliRunner

    res = CliRunner().invoke(app, [*args, "--help"], env=WIDE, prog_name="risk-env")
    assert res.exit_code == 0, res.output
    return " ".join(res.output.split())


def test_every_short_option_means_one_thing_in_every_command() -> None:
    group = typer.main.get_command(app)
    meaning: dict[str, set[str]] = {}
    for name in COMMANDS:
        for param in group.commands[name].params:  # type: ignore[attr-defined]
            longs = [o for o in param.opts if o.startswith("--")]
            for short in (o for o in param.opts + param.secondary_opts if re.fullmatch(r"-\w", o)):
                meaning.setdefault(short, set()).add(longs[0])
    assert {k: v for k, v in meaning.items() if len(v) > 1} == {}
    assert meaning["-n"] == {"--players"}  # it meant --games in evaluate
    assert meaning["-s"] == {"--set"} and meaning["-o"] == {"--out"}
    assert "--games" not in {o for v in meaning.values() for o in v}


@pytest.mark.parametrize("command", ["play", "watch", "evaluate"])
def test_agent_lists_name_every_shipped_agent(command: str) -> None:
    text = _help(command)
    for name in [*BASELINES, *PRETRAINED]:  # from the registry: a new agent shows up by itself
        assert re.search(rf"\b{re.escape(name)}\b", text), (command, name)
    assert "ppo-2p-0.1" in text and "ppo-4p" in text and "module:callable" in text


def test_train_help_names_both_trainers_checkpoints() -> None:
    text = _help("train")
    assert (
        "--resume <str> continue from a checkpoint (step_*.zip of the sb3 trainer, step_*.pt of trainer device), "
        "or a run directory's newest checkpoint"
    ) in text


def test_a_preset_for_two_with_three_agents_is_explained_in_agents() -> None:
    code, out, err = run_cli("evaluate", "random", "balanced", "aggressive", "--rules", "duel")
    assert code == 2 and out == ""
    assert err == (
        "error: rules 'duel' are for 2 players, but 3 agents were given (one per seat): give 2 agents, "
        "or choose rules for 3 players\n"
    )
    assert "num_players" not in err  # the user never passed it


def test_the_same_mistake_from_python_is_explained_in_agents_too() -> None:
    import risk_env
    from risk_env.errors import ConfigError

    with pytest.raises(ConfigError) as e:
        risk_env.evaluate(["random", "balanced", "aggressive"], rules="duel", num_games=3, workers=1)
    assert str(e.value).startswith("rules 'duel' are for 2 players, but 3 agents were given (one per seat)")
    with pytest.raises(ConfigError, match=r"^rules 'allied' are for 2 players, but 4 agents"):
        risk_env.evaluate(["random"] * 4, rules={"preset": "allied"}, num_games=4, workers=1)


def test_rules_that_name_a_player_count_are_not_played_at_another(tmp_path) -> None:
    # (a rules file or mapping naming its count was played at the agents' count without a word)
    import risk_env
    from risk_env.errors import ConfigError

    five = tmp_path / "five.yaml"
    five.write_text("preset: fast\nnum_players: 5\n")
    with pytest.raises(ConfigError) as e:
        risk_env.evaluate(["random", "random"], rules=str(five), num_games=2, workers=1, progress=False)
    assert str(e.value) == (
        f"rules {str(five)!r} are for 5 players, but 2 agents were given (one per seat): give 5 agents, or choose rules "
        "for 2 players"
    )
    with pytest.raises(ConfigError, match=r"^rules with num_players=3 are for 3 players, but 2 agents were given"):
        risk_env.evaluate(["random", "random"], rules={"preset": "fast", "num_players": 3}, num_games=2, workers=1)
    r = risk_env.evaluate(["random"] * 5, rules=str(five), num_games=1, workers=1, progress=False, turn_limit=3)
    assert r.num_players == 5
    code, _, err = run_cli("evaluate", "random", "random", "--rules", five, "--games", "2")
    assert code == 2 and err.startswith(f"error: rules {str(five)!r} are for 5 players, but 2 agents were given")
    # (also where the count is given: it was not checked then, and the rules' count was dropped)
    with pytest.raises(ConfigError, match=r"^rules with num_players=3 are for 3 players, but 2 agents were given"):
        risk_env.evaluate(["random"] * 2, num_players=2, rules={"num_players": 3}, num_games=2, workers=1, progress=False)
    refused = f"error: --rules {five} is for 5 players, got --players 2: omit --players, or choose other --rules\n"
    code, _, err = run_cli("evaluate", "random", "random", "-n", "2", "--rules", five, "--games", "2")
    assert (code, err) == (2, refused)
    code, _, err = run_cli("watch", "--rules", five, "-n", "2", "--show", "none")
    assert (code, err) == (2, refused)
    with pytest.raises(ConfigError) as e:  # (the rules' owner refuses it for every front end: the env built)
        risk_env.env(rules=str(five), num_players=2)
    assert str(e.value) == (
        f"rules file {str(five)!r} is meant for 5 players, got num_players=2; omit num_players (or pass num_players=5), "
        "or choose another rules file"
    )
    # (a count that is no count: the file's was dropped, the mapping's named "True players")
    bad = tmp_path / "bad.yaml"
    for value in ("true", "'3'", "3.0", "abc", "7"):
        bad.write_text(f"num_players: {value}\n")
        with pytest.raises(
            ConfigError, match=f"^rules file {re.escape(str(bad))}: num_players must be an integer from 2 to 6, got "
        ):
            risk_env.evaluate(["random", "random"], rules=str(bad), num_games=2, workers=1, progress=False)
        with pytest.raises(
            ConfigError, match=r": num_players must be an integer from 2 to 6, got "
        ):  # (the owner: any front end)
            resolve_rules(rules=str(bad), num_players=2)
    with pytest.raises(ConfigError, match=r"^num_players must be an integer from 2 to 6, got True$"):
        risk_env.evaluate(["random", "random"], rules={"num_players": True}, num_games=2, workers=1, progress=False)


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["evaluate", "random", "random", "random", "--players", "3", "--rules", "duel"],
            "--rules duel is for 2 players, got --players 3: omit --players, or choose other --rules",
        ),
        (["evaluate", "random", "random", "--players", "3"], "--players 3 needs 3 agents (one per seat), got 2: random random"),
        (["evaluate", "random", "random", "--games", "0"], "--games must be 1 or more, got 0"),
        (["evaluate", "random", "random", "--workers", "0"], "--workers must be 1 or more, got 0"),
        (
            ["play", "--rules", "allied", "-n", "3"],
            "--rules allied is for 2 players, got --players 3: omit --players, or choose other --rules",
        ),
        (["replay", "docs/board.json", "--upto", "-1"], "--upto must be 0 moves or more, got -1"),
        (["watch", "--turns", "0"], "--turns must be 1 or more, got 0"),
    ],
)
def test_bad_arguments_are_one_line_naming_the_option(args: list[str], message: str) -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    code, out, err = run_cli(*[str(root / a) if a.endswith(".json") else a for a in args])
    assert (code, out, err) == (2, "", f"error: {message}\n")


# ---------------------------------------------------------------------- play
def _play(*args: str, moves: list[str]) -> str:
    from typer.testing import CliRunner

    res = CliRunner().invoke(app, ["play", *args, "--no-color"], input="\n".join(moves) + "\n")
    assert res.exit_code == 0, res.output
    return res.output


def test_three_aggressive_opponents_get_distinct_labels_on_the_boards() -> None:
    out = _play("--players", "4", "--agents", "aggressive", "--turns", "1", "--seed", "0", moves=["b", "q"])
    assert out.splitlines()[0] == "seats: player_0 = you, player_1 = aggressive, player_2 = aggressive, player_3 = aggressive"
    compact = out.split("player_0> ")[0]  # the first screen: the compact board names each seat once
    for seat in (1, 2, 3):
        assert re.search(rf"[ >]{seat} aggressive {seat} +\d+ terr", compact), seat
    full = out.split("player_0> ")[1]  # 'b': owners by label, and no label is shared
    owners = set(re.findall(r"\b(you|aggressive \d)\b", full))
    assert owners == {"you", "aggressive 1", "aggressive 2", "aggressive 3"}


def test_the_full_board_fits_120x40_on_the_classic_map() -> None:
    out = _play("--players", "6", "--agents", "balanced", "--turns", "2", "--seed", "1", moves=["b", "q"])
    full = out.split("player_0> ")[1].split("leaving the game")[0].rstrip("\n").splitlines()
    assert full[0].startswith("North America (+5)") and "Africa (+3)" in full[0]  # continents side by side
    assert len(full) + 1 <= 40 and max(map(len, full)) <= 120
    assert sum("Kamchatka" in line for line in full) == 1  # every territory once, with its full name


def test_the_hand_shows_each_cards_symbol() -> None:
    from risk_env import Game, RulesConfig
    from risk_env.rules.state import Phase
    from risk_env.tools.play import human_screen

    game = Game(RulesConfig(num_players=2))
    s = game.new_game(seed=0)
    s.owner[:] = [i % 3 for i in range(42)]
    s.armies[:] = 2
    s.phase, s.player, s.turn, s.to_place = Phase.REINFORCE, 0, 4, 3
    s.hands[0] = [0, 1, 2, 42]  # the classic deck: Alaska infantry, Northwest Territory cavalry, Greenland artillery
    lines, _ = human_screen(game, s, 0)
    status = " ".join(line.strip() for line in lines if line.startswith(("player_0, ", "  ")))
    assert "your cards: Alaska (I), Northwest Territory (C), Greenland (A), Wild 1." in status


def test_help_lines_keep_to_120_columns_and_break_at_spaces() -> None:
    from risk_env.tools.play import _HELP

    out = _play("--players", "2", "--map", "small", "--turns", "1", moves=["help", "q"])
    shown = out.split("Enter one of:")[1].split("player_0> ")[0].splitlines()
    assert shown[1:] == _HELP.splitlines()[1:]  # as written: nothing cut at the screen's edge
    assert max(len(line) for line in _HELP.splitlines()) <= 120
    assert "I infantry, C cavalry, A artillery, W wild" in _HELP


# ---------------------------------------------------------------------- replay --strip
def test_replay_help_and_output_say_what_the_strip_shows(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("matplotlib")
    from PIL import Image

    text = _help("replay")
    assert "the board at the end of each turn, or of --strip-turns turns evenly spread over a longer game" in text
    assert "the most panels of --strip (1 or more) [default: 24]" in text
    record, strip = tmp_path / "g.json", tmp_path / "s.png"
    code, _, _ = run_cli("watch", "-n", "2", "--map", "small", "--turns", "8", "--show", "none", "--record", record)
    assert code == 0
    code, out, _ = run_cli("replay", record, "-q", "--strip", strip, "--strip-turns", "4")
    assert code == 0 and out == f"wrote {strip} (4 panels: 4 of the 9 turn ends, evenly spread, the last one kept)\n"
    four = Image.open(strip)
    code, out, _ = run_cli("replay", record, "-q", "--strip", strip, "--strip-turns", "8")
    assert code == 0 and "(8 panels: 8 of the 9 turn ends" in out
    eight = Image.open(strip)
    gap = 6  # 4 columns of thumbnails: 2 rows against 1 (render_strip's layout)
    assert four.width == eight.width and eight.height - 3 * gap == 2 * (four.height - 2 * gap)
    code, out, _ = run_cli("replay", record, "-q", "--strip", strip)  # the default, 24, is more than the turns
    assert code == 0 and out.endswith("(9 panels: one per turn)\n")


def test_replay_refuses_an_animations_suffix_before_anything_is_written_or_printed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``--gif ok.gif --video bad.txt`` wrote ok.gif, then failed (unknown animation format '.txt'), leaving it; so did
    the Python function behind the command."""
    from pathlib import Path

    from risk_env.errors import ConfigError
    from risk_env.records.replay import run

    board = str(Path(__file__).resolve().parent.parent / "docs" / "board.json")
    ok, bad = tmp_path / "ok1.gif", tmp_path / "bad.txt"
    code, out, err = run_cli("replay", board, "-q", "--gif", ok, "--video", bad)
    assert (code, out) == (
        2,
        "",
    ) and err == f"error: --video {str(bad)!r} must end in .mp4 or .webm (or .mkv, .avi, .mov, .gif)\n"
    code, out, err = run_cli("replay", board, "--strip", tmp_path / "s.png", "--gif", tmp_path / "g.PNG")
    assert (code, out) == (2, "") and err.startswith(f"error: --gif {str(tmp_path / 'g.PNG')!r} must end in .gif or .mp4")
    printed: list[str] = []
    for kwargs, message in [
        ({"gif": ok, "video": bad}, f"video {str(bad)!r}: unknown animation format '.txt': use .gif or .mp4 (or .webm,"),
        ({"strip": tmp_path / "s.txt"}, f"strip {str(tmp_path / 's.txt')!r}: give a file name ending in .png"),
    ]:
        with pytest.raises(ConfigError) as e:
            run(board, out=printed, **kwargs)  # type: ignore[arg-type]
        assert type(e.value) is ConfigError and str(e.value).startswith(message)
    assert list(tmp_path.iterdir()) == [] and printed == []


@pytest.mark.parametrize(
    "suffix", [".gif", ".MP4", ".webm", ".mkv", ".avi", ".mov", ".png", ".bmp", ".TIF", ".webp", ".jpeg", ".txt", ""]
)
def test_the_command_and_the_function_take_the_same_animation_and_strip_suffixes(tmp_path, suffix: str) -> None:  # type: ignore[no-untyped-def]
    """The command kept lists of its own: ``replay.run(..., strip="s.bmp")`` was taken, ``--strip s.bmp`` refused.
    Each suffix is now taken by ``risk-env replay --gif/--video/--strip`` and ``watch --gif`` exactly where
    :func:`risk_env.records.replay.run` takes it (an --upto past the record's end stops the command after the suffix
    checks, before anything is written)."""
    import json
    from pathlib import Path

    from risk_env.errors import ConfigError
    from risk_env.records.replay import ANIMATION_SUFFIXES, check_animation_path, check_strip_path, strip_suffixes

    board = str(Path(__file__).resolve().parent.parent / "docs" / "board.json")
    moves = len(json.loads(Path(board).read_text())["moves"])
    past_the_end = f"error: --upto must be a number of moves from 0 to {moves} (the moves of {board!r}), got 100000\n"
    for option, check, allowed in [
        ("--gif", check_animation_path, ANIMATION_SUFFIXES),
        ("--video", check_animation_path, ANIMATION_SUFFIXES),
        ("--strip", check_strip_path, strip_suffixes()),
    ]:
        path = str(tmp_path / f"out{suffix}")
        try:
            check(path)
            taken = True
        except ConfigError:
            taken = False
        assert taken == (suffix.lower() in allowed)
        code, out, err = run_cli("replay", board, "-q", option, path, "--upto", "100000")
        assert code == 2 and out == ""
        assert (err == past_the_end) == taken, err
        if not taken:
            assert err.startswith(f"error: {option} {path!r} must end in ")
    assert (suffix.lower() in strip_suffixes()) == (suffix.lower() not in ("", ".txt", ".mp4", ".webm", ".mkv", ".avi", ".mov"))
    assert (suffix.lower() in ANIMATION_SUFFIXES) == (suffix.lower() in (".gif", ".mp4", ".webm", ".mkv", ".avi", ".mov"))
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "file").write_text("")  # a folder that cannot be made: watch stops after the suffix check
    gif = str(tmp_path / "file" / f"w{suffix}")
    code, out, err = run_cli("watch", "--gif", gif, "--turns", "1")
    refused = f"error: --gif {gif!r} must end in .gif or .mp4 (or .webm, .mkv, .avi, .mov)\n"
    assert code != 0 and out == "" and (err == refused) == (suffix.lower() not in ANIMATION_SUFFIXES), err  # (or: no
    # video writer installed, exit 1; a folder that cannot be made, exit 2: both told after the suffix was taken)


def test_replay_with_upto_0_draws_the_starting_position_on_the_strip_as_on_the_animation(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``--strip s.png --upto 0`` failed: the record has no moves to draw (``--gif`` and ``--html`` drew the start)."""
    pytest.importorskip("matplotlib")
    from pathlib import Path

    from PIL import Image

    board = str(Path(__file__).resolve().parent.parent / "docs" / "board.json")
    strip, gif = tmp_path / "s.png", tmp_path / "g.gif"
    code, out, err = run_cli("replay", board, "-q", "--strip", strip, "--gif", gif, "--upto", "0")
    assert (code, err) == (0, "")
    assert out == f"wrote {gif} (1 frame)\nwrote {strip} (1 panel: the starting position, before any move)\n"
    sheet = Image.open(strip)
    assert sheet.size == (420 + 2 * 6, round(540 * 420 / 1300) + 18 + 2 * 6)  # one panel: 420 wide, its label above
    code, out, _ = run_cli("replay", board, "-q", "--strip", strip, "--upto", "1")
    assert code == 0 and out == f"wrote {strip} (1 panel: one per turn)\n"  # (the setup's first move)
    bmp = tmp_path / "s.BMP"  # (a picture Pillow writes: refused by --strip, taken by replay.run)
    code, out, err = run_cli("replay", board, "-q", "--strip", bmp, "--upto", "0")
    assert (code, err) == (0, "") and bmp.read_bytes()[:2] == b"BM" and Image.open(bmp).size == sheet.size


def test_the_strip_takes_only_the_suffixes_pillow_writes_a_picture_to(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Pillow registers writers it cannot run here: ``--strip s.grib`` (a stub without its handler) or ``s.xbm``
    (1-bit pictures only) was taken, the whole sheet drawn, and then the save failed. Those suffixes are refused up
    front; every suffix taken writes the sheet."""
    pytest.importorskip("matplotlib")
    from PIL import Image

    from risk_env.errors import ConfigError
    from risk_env.records.record import GameRecord
    from risk_env.records.replay import check_strip_path, render_strip, strip_suffixes

    suffixes = strip_suffixes()
    for refused in (".bufr", ".grib", ".h5", ".hdf", ".wmf", ".emf", ".xbm", ".msp", ".palm", ".blp", ".ico", ".icns", ".pbm"):
        assert refused not in suffixes
        with pytest.raises(ConfigError, match=f"got the suffix '\\{refused}'"):
            check_strip_path(tmp_path / f"s{refused}")
    assert suffixes[:4] == (".png", ".jpg", ".jpeg", ".pdf") and {".bmp", ".gif", ".tif", ".webp"} <= set(suffixes)
    record = GameRecord.load(Path(__file__).resolve().parent.parent / "docs" / "board.json")
    for suffix in suffixes:  # each writes the one-panel sheet (Pillow knows the file by its suffix)
        path = tmp_path / f"s{suffix}"
        assert render_strip(record, path, upto=0) == 1 and path.stat().st_size > 0, suffix
    sheet = (420 + 2 * 6, round(540 * 420 / 1300) + 18 + 2 * 6)
    for suffix in (".bmp", ".gif", ".tif", ".webp", ".ppm", ".tga"):  # (the sheet as drawn, not an icon of it)
        assert Image.open(tmp_path / f"s{suffix}").size == sheet, suffix


def test_a_video_is_written_with_a_codec_its_container_holds(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A .webm went to imageio-ffmpeg with its default codec (H.264, which WebM cannot hold): a file of a few hundred
    bytes that nothing plays, reported as written; a .mov went to PyAV as VP9, which it refuses."""
    pytest.importorskip("matplotlib")
    import imageio.v3 as iio

    from risk_env.records.record import GameRecord
    from risk_env.records.replay import render_video

    record = GameRecord.load(Path(__file__).resolve().parent.parent / "docs" / "board.json")
    calls: list[tuple[str, str, str]] = []

    def imwrite(path, frames, plugin, **kw):  # type: ignore[no-untyped-def]
        calls.append((Path(path).suffix, plugin, kw["codec"]))
        if plugin == "pyav":
            raise ImportError("no PyAV here")  # (as where only imageio-ffmpeg is installed)

    monkeypatch.setattr(iio, "imwrite", imwrite)
    for suffix in (".mp4", ".webm", ".mkv", ".avi", ".mov"):
        assert render_video(record, tmp_path / f"v{suffix}", upto=0) == 1
    h264, vp9 = "libx264", "libvpx-vp9"
    assert calls == [
        (suffix, plugin, vp9 if suffix == ".webm" else h264)
        for suffix in (".mp4", ".webm", ".mkv", ".avi", ".mov")
        for plugin in ("pyav", "FFMPEG")
    ]


# ---------------------------------------------------------------------- outputs that cannot be written
@pytest.mark.parametrize(
    "command,option",
    [
        (["replay", "docs/board.json", "-q"], "--html"),
        (["replay", "docs/board.json", "-q"], "--strip"),
        (["watch", "-n", "2", "--map", "small", "--turns", "2", "--show", "none"], "--record"),
        (["watch", "-n", "2", "--map", "small", "--turns", "2", "--show", "none"], "--png"),
        (["play", "-n", "2", "--map", "small", "--turns", "2"], "--record"),
        (["serve", "--no-open", "-n", "2", "--map", "small"], "--record"),
    ],
)
def test_an_output_file_that_cannot_be_written_is_refused_before_anything_runs(tmp_path, command, option) -> None:  # type: ignore[no-untyped-def]
    """A file name too long for the file system (what root, who may write anywhere, still cannot write): one line
    before the game is played or the record read, not a traceback after it (a person's game lost)."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    suffix = {"--html": ".html", "--strip": ".png", "--png": ".png"}.get(option, ".json")
    target = tmp_path / ("x" * 300 + suffix)
    args = [str(root / a) if a.endswith(".json") else a for a in command]
    code, out, err = run_cli(*args, option, target)
    assert (code, out) == (2, "") and err == f"error: {option} {str(target)!r}: cannot write the file: File name too long\n"
    assert list(tmp_path.iterdir()) == []


def test_a_write_that_fails_after_the_game_is_one_line(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from risk_env.records.record import GameRecord

    def full(self, path):  # type: ignore[no-untyped-def]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(GameRecord, "save", full)
    target = tmp_path / "g.json"
    code, out, err = run_cli("watch", "-n", "2", "--map", "small", "--turns", "2", "--show", "none", "--record", target)
    assert code == 1 and out.startswith("seats: ")
    assert err == f"error: --record {str(target)!r}: cannot write the file: No space left on device\n"


@pytest.mark.parametrize(
    "args,message",
    [
        (["train-rllib", "--batch", "0"], "--batch must be 1 or more, got 0"),
        (["train-rllib", "--batch", "64", "--minibatch", "128"], "--minibatch must be at most --batch (64 env steps), got 128"),
        (["train-rllib", "--minibatch", "0"], "--minibatch must be 1 or more, got 0"),
        (["train-rllib", "--epochs", "0"], "--epochs must be 1 or more, got 0"),
        (["train-rllib", "--lr", "-1"], "--lr must be more than 0, got -1.0"),
        (["train-rllib", "--env-runners", "-1"], "--env-runners must be 0 or more, got -1"),
        (["train-rllib", "--envs-per-runner", "0"], "--envs-per-runner must be 1 or more, got 0"),
        (["train-rllib", "--learners", "-2"], "--learners must be 0 or more, got -2"),
        (["train-rllib", "--gpus-per-learner", "-1"], "--gpus-per-learner must be 0 or more, got -1.0"),
        (["soak", "--games", "0"], "--games must be 1 or more, got 0"),
        (["soak", "--workers", "0"], "--workers must be 1 or more, got 0"),
        (["soak", "--chunk", "0"], "--chunk must be 1 or more, got 0"),
        (["soak", "--vector-batch", "0"], "--vector-batch must be 1 or more, got 0"),
        (["soak", "--max-seconds", "-1"], "--max-seconds must be a finite number of seconds more than 0, got -1.0"),
        (
            ["soak", "--out", "s.json", "--checkpoint-every", "inf"],
            "--checkpoint-every must be a finite number of seconds more than 0, got inf",
        ),
    ],
)
def test_training_and_soak_numbers_are_checked_before_anything_starts(args: list[str], message: str) -> None:
    """They reached RLlib (a traceback, a crash of its workers, or a run of 10 env steps for --batch 0) or the
    soak (--workers 0 ran on one core)."""
    assert run_cli(*args) == (2, "", f"error: {message}\n")


def test_one_agent_is_explained_in_agents(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import risk_env
    from risk_env.errors import ConfigError

    code, out, err = run_cli("evaluate", "random", "--games", "2")
    assert (code, out) == (2, "") and err == (
        "error: give 2 to 6 agents, one per seat, got 1 (random): repeat a spec to seat it several times, "
        "e.g. ['balanced', 'random']\n"
    )  # it said "num_players must be 2..6, got 1", an argument the user never passed
    with pytest.raises(ConfigError, match=r"^give 2 to 6 agents, one per seat, got 7 \(random, random"):
        risk_env.evaluate(["random"] * 7, num_games=1, workers=1)


def test_a_missing_map_file_is_refused_before_the_progress_bar() -> None:
    code, out, err = run_cli("evaluate", "random", "random", "--games", "2", "--map", "no/such/map.json")
    assert (code, out) == (2, "") and err.startswith("error: cannot read map file 'no/such/map.json': ")
    assert "games:" not in err and err.count("\n") == 1  # no bar drawn and left behind


def test_a_broken_record_is_bad_input_like_any_other(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Exit status 2, as for every other bad argument (it was 1, the status of a missing optional package)."""
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "risk_env.record/1", "rules": {}, "map": "small", "seed": 0, "moves": ["fly away"]}')
    code, out, err = run_cli("replay", broken, "-q")
    assert (code, out) == (2, "") and err.startswith(f"error: {broken}: move 1 ('fly away') does not replay")
    code, out, err = run_cli("replay", tmp_path / "missing.json")
    assert (code, out) == (2, "") and err.startswith("error: cannot read record file ")


@pytest.mark.parametrize(
    "args,message",
    [
        (["watch", "-n", "7"], "-n 7: input should be less than or equal to 6 (see risk-env watch -h)"),
        (["play", "--players=1"], "--players 1: input should be greater than or equal to 2 (see risk-env play -h)"),
        (
            ["watch", "--seed", "abc"],
            "--seed abc: input should be a valid integer, unable to parse string as an integer (see risk-env watch -h)",
        ),
        (
            ["replay", "g.json", "--fps", "fast"],
            "--fps fast: input should be a valid number, unable to parse string as a number (see risk-env replay -h)",
        ),
        (["replay"], "Missing argument 'record' (see risk-env replay -h)"),
        (["bogus"], "No such command 'bogus' (see risk-env -h)"),
        (["watch", "extra"], "Got unexpected extra argument(s) (extra) (see risk-env watch -h)"),
    ],
)
def test_bad_option_types_and_ranges_are_one_line_naming_the_option_as_typed(args: list[str], message: str) -> None:
    """Typer's own refusals (a type, a range, an unknown option) were its usage block of four lines."""
    assert run_cli(*args) == (2, "", f"error: {message}\n")


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_refuses_an_unknown_option_in_one_line(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    from risk_env.tools.cli import main

    assert run_cli(command, "--zzz") == (2, "", f"error: No such option: --zzz (see risk-env {command} -h)\n")
    with pytest.raises(SystemExit) as ended:  # a script runs one command: the same line, under its name
        main(["--zzz"], command=command, prog_name=f"python scripts/{command}.py")
    assert ended.value.code == 2
    assert capsys.readouterr() == ("", f"error: No such option: --zzz (see python scripts/{command}.py -h)\n")


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["replay", "docs/board.json", "--upto", "1000"],
            "--upto must be a number of moves from 0 to {moves} (the moves of {board}), got 1000",
        ),
        (
            ["replay", "docs/board.json", "-q", "--upto", "1000"],
            "--upto must be a number of moves from 0 to {moves} (the moves of {board}), got 1000",
        ),
        (["replay", "docs/board.json", "-q", "--strip", "o.txt"], "--strip 'o.txt' must end in .png or .jpg (or .jpeg, .pdf...)"),
        # (the whole log was printed first, then pillow's or render_video's own words)
        (["replay", "docs/board.json", "--gif", "x.png"], "--gif 'x.png' must end in .gif or .mp4 (or .webm, .mkv, .avi, .mov)"),
        (
            ["replay", "docs/board.json", "--video", "x.txt"],
            "--video 'x.txt' must end in .mp4 or .webm (or .mkv, .avi, .mov, .gif)",
        ),
        (
            ["replay", "docs/board.json", "-q", "--every", "move", "--fps", "3"],
            "--every and --fps are for the animation of --gif or --video: give --gif or --video too, "
            "or leave out --every and --fps",
        ),
        (
            ["replay", "docs/board.json", "-q", "--strip-turns", "3"],
            "--strip-turns is for the contact sheet of --strip: give --strip too, or leave out --strip-turns",
        ),
        (
            ["watch", "--png-when", "last-attack"],
            "--png-when is for the picture of --png: give --png too, or leave out --png-when",
        ),
        (["watch", "--fps", "4"], "--fps is for the animation of --gif: give --gif too, or leave out --fps"),
        (
            ["bench", "--quick", "--seconds", "2"],
            "--quick times windows of 1 second at most, got --seconds 2: leave out one of them",
        ),
        (
            ["bench", "--quick", "--repeats", "5"],
            "--quick times 3 windows per figure at most, got --repeats 5: leave out one of them",
        ),
        (["bench", "--batch-sizes", ""], "--batch-sizes must list batch sizes, comma-separated (such as 1,64,1024), got ''"),
        (
            ["bench", "--batch-sizes", "64", "--no-vector"],
            "--batch-sizes are the batched engine's rows, which --no-vector leaves out: give one of them",
        ),
    ],
)
def test_options_ignored_or_named_by_python_are_refused_by_the_option(args: list[str], message: str) -> None:
    """They were named by the record's parameter (upto), told by Pillow (unknown file
    extension: .txt), silently capped (bench --quick --seconds 2 timed 1 s), silently the default (an empty
    --batch-sizes) or silently ignored (--png-when without --png; --upto with -q was not checked at all)."""
    import json
    from pathlib import Path

    board = str(Path(__file__).resolve().parent.parent / "docs" / "board.json")
    args = [board if a == "docs/board.json" else a for a in args]
    moves = len(json.loads(Path(board).read_text())["moves"])  # (the picture's game, redrawn now and then)
    assert run_cli(*args) == (2, "", f"error: {message.format(board=repr(board), moves=moves)}\n")


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["soak", "--games", "1", "--no-vector", "--vector-batch", "8"],
            "--vector-batch sizes the batched engine's replays, which --no-vector leaves out: give one of them",
        ),
        (
            ["soak", "--games", "1", "--checkpoint-every", "5"],
            "--checkpoint-every rewrites the --out file: give --out FILE, or leave --checkpoint-every out",
        ),
    ],
)
def test_soak_refuses_an_option_that_would_do_nothing(args: list[str], message: str) -> None:
    """Each was accepted and dropped without a word."""
    assert run_cli(*args) == (2, "", f"error: {message}\n")


def test_train_rllib_refuses_a_gpu_the_machine_lacks_before_ray(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A local run asked for a GPU on a machine without one: Ray waited for it, then failed in a traceback."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("ray.rllib")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    out = tmp_path / "ckpt"
    code, stdout, stderr = run_cli("train-rllib", "--gpus-per-learner", "0.5", "--out", str(out))
    assert (code, stdout) == (2, "")
    assert stderr == (
        "error: --gpus-per-learner 0.5 asks for a GPU and this machine has none that torch can use: "
        "leave it at 0, or join a cluster that has one (--address)\n"
    )
    assert not out.exists()


def test_train_rllib_names_an_address_with_no_ray_cluster(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """An address Ray cannot read, or with no cluster there, was Ray's traceback (exit 1)."""
    pytest.importorskip("ray.rllib")
    out = tmp_path / "ckpt"
    code, _, err = run_cli("train-rllib", "--address", "", "--out", str(out))
    told = "error: --address takes 'auto' or a Ray address such as host:6379 (leave it out for a local Ray), got ''\n"
    assert (code, err) == (2, told)
    code, _, err = run_cli("train-rllib", "--address", "not a url", "--iterations", "1", "--out", str(out))
    assert (code, err) == (2, "error: cannot join the Ray cluster at address 'not a url': Invalid address format: not a url\n")
    assert not out.exists()
