"""The risk-env command line from a user's seat: help texts, seat labels, one-line errors
for bad output paths and broken records, and the play screen fitting 120x40."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("typer")

from typer.testing import CliRunner  # noqa: E402

from risk_env.records.record import GameRecord, RecordError  # noqa: E402
from risk_env.tools.cli import COMMANDS, app, main  # noqa: E402

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
    commands = [line.split()[0] for line in top.split("Commands:")[1].splitlines() if line.startswith("  ") and line.split()]
    assert [c for c in commands if c in COMMANDS] == list(COMMANDS)
    assert all(len(line) <= 80 for line in top.splitlines())


def test_usage_lines_name_the_program_risk_env(capsys) -> None:  # type: ignore[no-untyped-def]
    for cmd in COMMANDS:
        assert _help([cmd, "--help"]).startswith(f"Usage: risk-env {cmd} "), cmd
        with pytest.raises(SystemExit) as ex:  # through the entry point, -h as well
            main([cmd, "-h"])
        assert ex.value.code == 0 and capsys.readouterr().out.startswith(f"Usage: risk-env {cmd} ")


def test_evaluate_help_prints_a_plain_percent() -> None:
    out = " ".join(_help(["evaluate", "--help"]).split())
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


def test_one_agent_per_seat_sets_the_player_count_as_evaluate_does(tmp_path: Path) -> None:
    # (three agents without --players asked for "exactly 4", the default count)
    res = runner.invoke(
        app, ["watch", "--map", "small", "--turns", "1", "--show", "none", "--agents", "random,aggressive,balanced"]
    )
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == "seats: player_0 = random, player_1 = aggressive, player_2 = balanced"
    res = runner.invoke(
        app, ["play", "--map", "small", "--turns", "1", "--seed", "0", "--agents", "random,balanced"], input="q\n"
    )
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == "seats: player_0 = you, player_1 = random, player_2 = balanced"
    # a preset or a rules file of a fixed count, --players, or seven agents: the count stays and the agents must fit it
    (tmp_path / "three.yaml").write_text("preset: fast\nnum_players: 3\n")
    (tmp_path / "duel.yaml").write_text("preset: duel\nturn_limit: 30\n")
    for args, n, got in (
        (["--rules", "duel", "--agents", "random,random,random"], 2, 3),
        (["--rules", str(tmp_path / "three.yaml"), "--agents", "random,random"], 3, 2),
        (["--rules", str(tmp_path / "duel.yaml"), "--agents", "random,random,random"], 2, 3),
        (["--players", "4", "--agents", "random,random,random"], 4, 3),
        (["--agents", ",".join(["random"] * 7)], 6, 7),
    ):
        res = runner.invoke(app, ["watch", "--show", "none", "--turns", "1", *args])
        assert (
            res.exit_code == 2 and f"give one agent name for all players or exactly {n} (one per seat), got {got}" in res.output
        )


@pytest.mark.parametrize("command", ["watch", "play", "serve"])
def test_an_unknown_agent_is_a_bad_parameter_listing_the_shipped_agents(command) -> None:  # type: ignore[no-untyped-def]
    if command == "serve":
        pytest.importorskip("uvicorn")
        pytest.importorskip("fastapi")
    res = runner.invoke(app, [command, *SMALL2, "--agents", "nobody"], input="")
    assert res.exit_code == 2 and "Traceback" not in res.output
    named = (
        "random, aggressive, continent, balanced, ppo-2p, ppo-3p, ppo-4p, ppo-5p, ppo-6p, ppo-2p-0.1, ppo-4p-0.1, ppo-4p-500k, a "
    )
    assert f"unknown agent 'nobody': use one of {named}" in res.output


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
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(SystemExit) as ex:
        main(["evaluate", "random", "random", "--games", "2", "--workers", "1", "--out", str(blocker / "out")])
    err = capsys.readouterr().err
    assert ex.value.code == 2 and err.startswith("error: cannot write results to ") and err.count("\n") == 1
    with pytest.raises(SystemExit) as ex:
        main(["evaluate", "random", "random", "--games", "2", "--workers", "1", "--out", str(blocker)])
    assert ex.value.code == 2 and "cannot write results" in capsys.readouterr().err
    for empty in ("", " "):  # ("" wrote the results into the current folder, " " into a folder named ' ')
        with pytest.raises(SystemExit) as ex:
            main(["evaluate", "random", "random", "--games", "2", "--workers", "1", "--out", empty])
        assert (
            ex.value.code == 2 and capsys.readouterr().err == f"error: cannot write results to {empty!r}: an empty folder name\n"
        )


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
    assert res.exit_code == 2  # a broken record is bad input, like every other (1 is a missing extra)
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


# ---------------------------------------------------------------------- the play screen
def _reachable(game, s, entries, path=()):  # type: ignore[no-untyped-def]
    """Every move reachable from a screen's entries, opening each group (as a human would)."""
    from risk_env.tools.play import Choice, Group, human_screen

    moves = []
    for e in entries:
        if isinstance(e, Choice):
            moves.extend(e.moves)
        else:
            assert isinstance(e, Group)
            lines, sub = human_screen(game, s, game.current_player(s), [*path, e])
            assert len(lines) + 1 <= 40 and max(map(len, lines)) <= 120
            moves.extend(_reachable(game, s, sub, (*path, e)))
    return moves


def _fortify_everywhere():  # type: ignore[no-untyped-def]
    import numpy as np

    from risk_env import Game, RulesConfig
    from risk_env.rules.state import Phase

    game = Game(RulesConfig(num_players=4))
    s = game.new_game(seed=0)
    s.owner[:] = 0
    s.owner[[0, 10, 20, 30]] = [1, 2, 3, 1]  # player_0 holds 38 of the 42 territories
    s.armies[:] = 3
    s.alive = [True] * 4
    s.phase, s.player, s.turn = Phase.FORTIFY, 0, 12
    s.conquered = False
    assert np.sum(s.owner == 0) == 38
    return game, s


def test_a_hand_built_fortify_with_about_a_hundred_moves_fits_120x40() -> None:
    from risk_env.tools.play import Choice, Group, group_moves, human_screen

    game, s = _fortify_everywhere()
    assert len(group_moves(game, s)) > 100  # one per (source, destination) pair, and 'end turn'
    lines, entries = human_screen(game, s, 0)
    assert len(lines) + 1 <= 40 and max(map(len, lines)) <= 120
    sources = [e for e in entries if isinstance(e, Group) and e.src >= 0]
    assert sources and all(e.label.startswith("from ") for e in sources)
    first = sources[0]
    assert first.label == "from Northwest Territory (3) -> 3"  # Alaska is player_1's
    opened, sub = human_screen(game, s, 0, [first])
    assert "Northwest Territory (player_0, 3) borders:" in opened  # its neighbours, owners and armies
    assert "Alaska (player_1, 3)" in " ".join(opened)
    assert [e.label for e in sub if isinstance(e, Choice)] == [
        f"fortify Northwest Territory->{n} 1..2" for n in ("Greenland", "Alberta", "Ontario")
    ]
    assert sorted(map(str, _reachable(game, s, entries))) == sorted(map(str, game.legal_moves(s)))


def test_every_decision_of_real_games_fits_120x40_and_reaches_every_move() -> None:
    from risk_env import Game, RulesConfig
    from risk_env.agents import load_agent
    from risk_env.rules.state import Phase
    from risk_env.tools.play import _Seats, human_screen

    for players, seed in ((4, 0), (6, 1)):
        game = Game(RulesConfig(num_players=players))
        names = ["aggressive", "balanced", "continent"]
        seats = _Seats(game, {p: load_agent(names[p % 3], seed=p) for p in range(players)})
        s = game.new_game(seed)
        for step in range(1500):
            if s.phase == Phase.GAME_OVER:
                break
            seat = game.current_player(s)
            lines, entries = human_screen(game, s, seat)
            assert len(lines) + 1 <= 40 and max(map(len, lines)) <= 120, (players, step, len(lines))
            if step % 7 == 0:  # opening every group is slower: a sample of the positions
                assert sorted(map(str, _reachable(game, s, entries))) == sorted(map(str, game.legal_moves(s)))
            seats.move(s, seat)


def test_play_screens_fit_120x40_on_the_classic_map() -> None:
    """The captured output of a 4-player classic game: from each board to the prompt, at most 40 lines of 120."""
    steps = ["help", "n Alaska", "n Atlantis", "m"] + ["1"] * 600
    res = runner.invoke(
        app, ["play", "--players", "4", "--turns", "3", "--seed", "0", "--no-color"], input="\n".join(steps) + "\n"
    )
    assert res.exit_code == 0, res.output
    out = res.output
    assert out.splitlines()[0] == "seats: player_0 = you, player_1 = random, player_2 = random, player_3 = random"
    assert "Alaska (" in out and "borders:" in out and "unknown territory 'Atlantis'" in out
    screens = 0
    for chunk in out.split("player_0> ")[:-1]:
        lines = chunk.splitlines()
        heads = [i for i, ln in enumerate(lines) if ln.startswith("North America +5")]
        if not heads:  # a reply to 'help' or a mistake, not a new screen
            continue
        screen = lines[heads[-1] - 1 :] + ["player_0> "]
        assert len(screen) <= 40 and max(map(len, screen)) <= 120, "\n".join(screen)
        screens += 1
    assert screens >= 20
    assert "turn limit reached after 3 turns" in out


def test_compact_board_lines_on_the_classic_map() -> None:
    from risk_env import Game, RulesConfig
    from risk_env.records.ansi import render_compact, short_names

    game = Game(RulesConfig(num_players=4))
    s = game.new_game(seed=0)
    s.owner[:] = [i % 4 for i in range(42)]
    s.armies[:] = 3
    s.armies[0] = 120
    lines = render_compact(game, s, names=["you", "random", "aggressive", "balanced"], marked=[0], selected=1).splitlines()
    assert len(lines) == 17 and max(map(len, lines)) <= 120
    assert lines[0].split("  ")[0] == "North America +5"
    assert "South America +2" in lines[0] and "Australia +2" in lines[0]
    assert lines[1].startswith("Alaska         0  120<") and lines[2].startswith("N Territory    1    3*")
    assert lines[14].startswith(" 0 you") and "11 terr  150 armies" in lines[14]  # 120 + 10 x 3
    names = short_names(game.map.territory_names, 14)
    assert len(set(names)) == 42 and max(map(len, names)) <= 14
    assert names[game.map.id_of("Western United States")] == "W U States"


def test_compact_board_of_a_200_territory_map_keeps_to_the_width() -> None:
    from risk_env import Game, RulesConfig
    from risk_env.records.ansi import render_compact
    from risk_env.rules.map import map_from_dict
    from risk_env.tools.benchmark import generated_map

    game = Game(RulesConfig(num_players=4, starting_armies=100), game_map=map_from_dict(generated_map(200)))
    lines = render_compact(game, game.new_game(seed=1)).splitlines()
    assert max(map(len, lines)) <= 120
    import re

    cells = [c for line in lines for c in re.findall(r"T\d+ +- +0", line)]
    assert len(cells) == 200  # one cell per territory: nobody's, 0 armies before the setup


def test_nine_cards_group_the_trades_by_kind_of_set() -> None:
    from risk_env import Game, RulesConfig
    from risk_env.rules.state import Phase
    from risk_env.tools.play import Choice, Group, human_screen

    game = Game(RulesConfig(num_players=4))
    s = game.new_game(seed=0)
    s.owner[:] = [i % 4 for i in range(42)]
    s.armies[:] = 2
    s.alive = [True] * 4
    s.phase, s.player, s.turn, s.to_place, s.forced = Phase.REINFORCE, 0, 9, 0, True
    s.hands[0] = [0, 1, 2, 4, 5, 6, 8, 9, 42]  # eight territory cards and a wild card
    assert len(game.legal_moves(s)) == 58
    lines, entries = human_screen(game, s, 0)
    assert len(lines) + 1 <= 40 and max(map(len, lines)) <= 120
    labels = [e.label for e in entries]
    assert "trade a set ICA (25 ways)" in labels and "trade a set IIW (3 ways)" in labels
    singles = [e for e in entries if isinstance(e, Choice)]
    assert all(e.label.startswith("trade ") and len(e.moves) == 1 for e in singles)
    ica = next(e for e in entries if isinstance(e, Group) and e.label.startswith("trade a set ICA"))
    lines, sub = human_screen(game, s, 0, [ica])
    assert len(lines) + 1 <= 40 and "trade a set ICA (25 ways); 0 goes back:" in lines
    assert sub[-1].label.startswith("more: ")  # 25 sets do not fit under the board: the rest is one entry away
    assert sorted(map(str, _reachable(game, s, entries))) == sorted(map(str, game.legal_moves(s)))


ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "args,message",
    [
        (["watch", "--seed", "-5"], "--seed must be 0 or more, got -5"),
        (["play", "--seed", "-1"], "--seed must be 0 or more, got -1"),
        # (named as the override "seed=-1", which was not typed)
        (["train", "--seed", "-1"], "--seed must be an integer from 0 to 2**32 - 1 (the run's seed), got -1"),
        (["watch", "--delay", "-1"], "--delay must be 0 or more seconds, got -1.0"),
        (["watch", "--gif", "f.gif", "--fps", "0"], "--fps must be from 0.001 to 1000 frames per second, got 0.0"),
        (
            ["replay", "docs/board.json", "--gif", "f.gif", "--fps", "-2"],
            "--fps must be from 0.001 to 1000 frames per second, got -2.0",
        ),
        (["watch", "--png", "x.txt"], "--png 'x.txt' must end in .png"),
        (["watch", "--gif", "x.png"], "--gif 'x.png' must end in .gif or .mp4 (or .webm, .mkv, .avi, .mov)"),
        (["watch", "--png", "out/.png"], "--png 'out/.png' has no name before its suffix: give one, such as board.png"),
        (["watch", "--png", "x.png/"], "--png 'x.png/' is a folder; give a file name"),
        (["watch", "--record", "r.json/"], "--record 'r.json/' is a folder; give a file name"),
    ],
)
def test_bad_numbers_and_suffixes_are_one_line_before_any_game(tmp_path, monkeypatch, args, message) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    args = [str(ROOT / a) if a == "docs/board.json" else a for a in args]
    res = runner.invoke(app, args, input="")
    assert res.exit_code == 2 and res.output == f"error: {message}\n"
    assert list(tmp_path.iterdir()) == []  # nothing written, nothing played


def test_every_script_is_a_command_under_another_name() -> None:
    """scripts/*.py run one risk-env command each (thin wrappers: the options and help are the command's)."""
    import re
    import subprocess
    import sys

    seen = {}
    for path in sorted((ROOT / "scripts").glob("*.py")):
        text = path.read_text()
        (command,) = re.findall(r'command="([\w-]+)"', text)
        assert command in COMMANDS, path.name
        code = [ln for ln in text.split('"""', 2)[2].splitlines() if ln.strip()]
        assert len(code) <= 5, f"{path.name} is more than a thin wrapper"
        seen[path.name] = command
    assert set(seen.values()) == set(COMMANDS) - {"watch"}  # watch has no script of its own
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "replay.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert proc.returncode == 0 and proc.stdout.startswith("Usage: python scripts/replay.py [OPTIONS] ")
    options = re.compile(r"^  (-[\w-]+(?:, -[\w-]+)*)", re.M)
    assert options.findall(proc.stdout) == options.findall(_help(["replay", "--help"])) != []


def test_risk_env_soak_names_the_bad_value_in_one_line(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as ex:
        main(["soak", "--start", "-1"])
    assert ex.value.code == 2
    assert capsys.readouterr().err == "error: --start must be 0 or more, got -1\n"  # the option, as the user wrote it


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--seconds", "-1"], "--seconds must be more than 0, got -1.0"),
        (["--seconds", "0"], "--seconds must be more than 0, got 0.0"),
        (["--repeats", "0"], "--repeats must be 1 or more, got 0"),
        (["--batch-sizes", "0,4"], "--batch-sizes must be 1 or more, got '0,4'"),
        (["--batch-sizes", "64,x"], "--batch-sizes must be whole numbers, comma-separated, got '64,x'"),
    ],
)
def test_benchmark_refuses_windows_that_measure_nothing(argv, message) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(app, ["bench", *argv])
    assert res.exit_code == 2 and res.output == f"error: {message}\n"


def test_play_move_log_and_seats_line_keep_to_120_columns() -> None:
    # 6 players: the seats line would be 136 columns; aggressive opponents' attack lines pass 120
    res = runner.invoke(
        app,
        ["play", "--players", "6", "--turns", "10", "--seed", "2", "--no-color", "--agents", "aggressive"],
        input="1\n" * 3000,
    )
    assert res.exit_code == 0, res.output
    # piped input is not echoed, so the text after a prompt shares its line; at a terminal it starts a new one
    lines = [ln.removeprefix("player_0> ") for ln in res.output.splitlines()]
    assert max(map(len, lines)) <= 120
    assert lines[0].startswith("seats: player_0 = you, player_1 = aggressive") and lines[1].startswith("       player_")
    wrapped = [i for i, ln in enumerate(lines) if ln.startswith("    ") and "[" in lines[i - 1] and "]" not in lines[i - 1]]
    assert wrapped, "no move line was long enough to wrap"
    assert "turn limit reached after 10 turns" in res.output


def test_a_two_player_preset_takes_its_own_player_count_and_refuses_another() -> None:
    # --players defaults to the preset's count: `--rules duel` is a 2-player game
    res = runner.invoke(app, ["watch", "--rules", "duel", "--map", "small", "--turns", "1", "--show", "none"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == "seats: player_0 = random, player_1 = random"
    # and a contradicting count is one error line, exit 2 (the rules resolution refuses it)
    res = runner.invoke(app, ["watch", "--rules", "duel", "--players", "4", "--turns", "1", "--show", "none"])
    assert res.exit_code == 2
    assert res.output == "error: --rules duel is for 2 players, got --players 4: omit --players, or choose other --rules\n"


def test_an_agents_illegal_choice_at_the_terminal_is_one_line_without_its_legal_ids(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """The env's refusal lists the agent's legal ids (a forced trade's ids name what its cards make up): the person
    gets the agent and the id it chose in one ``error:`` line; the refusal is the exception's cause."""
    import io

    from helpers import StubbornAgent

    from risk_env.errors import RiskError
    from risk_env.rules.config import resolve_rules
    from risk_env.rules.engine import Game
    from risk_env.tools.play import play_game

    rules = resolve_rules("classic", num_players=2, map="small", setup="random", two_player="none")
    seed = next(k for k in range(50) if Game(rules).current_player(Game(rules).new_game(k)) == 1)  # the agent first
    agent = StubbornAgent()
    with pytest.raises(RiskError) as refused:
        play_game(rules, 0, {1: agent}, seed, lambda: "", out=io.StringIO(), names=["you", "stubborn"])
    told = f"chose the illegal action id {agent.chosen[0]}; the game cannot go on"
    assert str(refused.value) == f"agent 'stubborn' (player_1) {told}"
    assert "Legal ids" in str(refused.value.__cause__)  # the env's refusal: the exception's cause only

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as ended:
        main(["play", *SMALL2, "--seed", str(seed), "--no-color", "--agents", "helpers:StubbornAgent"])
    err = capsys.readouterr().err
    assert ended.value.code == 2 and err.count("\n") == 1 and "Legal ids" not in err
    assert err == f"error: agent 'helpers:StubbornAgent' (player_1) {told}\n"


def test_an_agent_that_raises_at_the_terminal_stops_the_game_in_one_line(monkeypatch, capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """An agent's exception ended ``risk-env play`` with its traceback and no record: the game stops with one
    ``error:`` line naming the agent and the exception's type (not its message: it may name the agent's cards), and
    the record asked for is written, ended ``agent error by player_1``."""
    import io

    from helpers import FailingAgent, LeakyAgent, ListAgent

    from risk_env.errors import AgentError, IllegalActionError, RiskError
    from risk_env.records.recorder import GameRecorder
    from risk_env.rules.config import resolve_rules
    from risk_env.rules.engine import Game
    from risk_env.tools.play import play_game

    rules = resolve_rules("classic", num_players=2, map="small", setup="random", two_player="none")
    seed = next(k for k in range(50) if Game(rules).current_player(Game(rules).new_game(k)) == 1)  # the agent first
    rec = GameRecorder(Game(rules), seed)
    with pytest.raises(RiskError) as failed:
        play_game(rules, 0, {1: FailingAgent()}, seed, lambda: "", out=io.StringIO(), recorder=rec, names=["you", "failing"])
    assert str(failed.value) == "agent 'failing' (player_1) failed (ValueError); the game cannot go on"
    assert type(failed.value) is AgentError and isinstance(failed.value.__cause__, ValueError)
    assert rec.record.result is not None and rec.record.result["ended"] == "agent error by player_1"

    # an agent's own IllegalActionError (its text naming its legal ids), or a list of ids as its answer: neither is shown
    for agent, told, kind in (
        (LeakyAgent(), "chose no action id (no integer)", IllegalActionError),
        (ListAgent(), "chose no action id (no integer)", IllegalActionError),
    ):
        with pytest.raises(RiskError) as failed:
            play_game(rules, 0, {1: agent}, seed, lambda: "", out=io.StringIO(), names=["you", agent.name])
        assert str(failed.value) == f"agent {agent.name!r} (player_1) {told}; the game cannot go on"
        assert type(failed.value) is kind

    record = tmp_path / "game.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as ended:
        main(["play", *SMALL2, "--seed", str(seed), "--no-color", "--agents", "helpers:FailingAgent", "--record", str(record)])
    err = capsys.readouterr().err
    assert ended.value.code == 2
    assert err == "error: agent 'helpers:FailingAgent' (player_1) failed (ValueError); the game cannot go on\n"
    assert GameRecord.load(record).result["ended"] == "agent error by player_1"  # type: ignore[index]


def test_a_video_without_a_writer_is_refused_before_the_game(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # (watch --gif x.mp4 played the whole game, then found neither PyAV nor imageio-ffmpeg)
    pytest.importorskip("imageio")
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name in ("av", "imageio_ffmpeg") else find_spec(name, *a)
    )
    video = tmp_path / "w.mp4"
    res = runner.invoke(app, ["watch", *SMALL2, "--turns", "2", "--show", "none", "--gif", str(video)])
    assert res.exit_code == 1 and "seats:" not in res.output
    assert res.output == (
        f"error: cannot write {str(video)!r}: no video writer is installed (neither PyAV nor imageio-ffmpeg). Install one with "
        "'pip install imageio-ffmpeg' (or 'pip install av'), or write a .gif instead.\n"
    )
    rec = tmp_path / "r.json"
    assert runner.invoke(app, ["watch", *SMALL2, "--turns", "2", "--show", "none", "--record", str(rec)]).exit_code == 0
    res = runner.invoke(app, ["replay", str(rec), "--video", str(tmp_path / "v.webm")])
    assert res.exit_code == 1 and res.output.startswith(f"error: cannot write {str(tmp_path / 'v.webm')!r}: no video writer")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_a_soak_summary_that_cannot_be_written_is_one_line(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # (an OSError at the summary's write was a traceback, in the run's checkpoints as in the last write)
    from risk_env.tools import soak

    def full(path: str, data: object) -> None:
        raise OSError(28, "No space left on device")

    out = tmp_path / "s.json"
    monkeypatch.setattr(soak, "write_summary", full)
    res = runner.invoke(app, ["soak", "--games", "1", "--no-vector", "--out", str(out)])
    assert res.exit_code == 1 and res.output.endswith(
        f"error: --out {str(out)!r}: cannot write the file: No space left on device\n"
    )


@pytest.mark.parametrize("command", ["replay", "watch"])
def test_a_reader_that_goes_away_stops_the_command_quietly(tmp_path: Path, command: str) -> None:
    """``risk-env replay g.json | head -2`` said ``error: cannot write None: Broken pipe`` (exit status 1), ``watch``
    exited 1: now both stop without a word, with the status of a tool the closed pipe stopped (128 + SIGPIPE)."""
    import subprocess
    import sys

    from risk_env.tools.cli import EXIT_CLOSED_PIPE

    record = tmp_path / "long.json"
    game = ["-n", "4", "--map", "small", "--turns", "400", "--seed", "1"]
    res = runner.invoke(app, ["watch", *game, "--show", "none", "--record", str(record)])
    assert res.exit_code == 0, res.output
    args = ["replay", str(record)] if command == "replay" else ["watch", *game, "--show", "log"]
    proc = subprocess.Popen(  # (more than a pipe's 64 KiB of output: the command is still writing when the reader goes)
        [sys.executable, "-m", "risk_env.tools.console", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert (proc.wait(timeout=120), err) == (EXIT_CLOSED_PIPE, b"") and first


def test_watch_says_why_a_game_was_stopped_by_the_cap_on_one_turn(tmp_path: Path) -> None:
    """10000 armies a side: a legal turn of attacks takes more than the 5000 action ids one turn may take. The
    console said only ``game left unfinished at turn 2 after 2542 moves``; the record said ``ended: stalled``."""
    from risk_env.tools.match import DEFAULT_MAX_TURN_STEPS

    record = tmp_path / "stall.json"
    args = ["watch", *SMALL2, "-s", "starting_armies=10000", "--agents", "balanced", "--turns", "3", "--show", "end"]
    res = runner.invoke(app, [*args, "--record", str(record), "--no-color"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[-2:] == [
        f"game stopped at turn 2 after 2542 moves: a turn of player_1 (balanced) took more than {DEFAULT_MAX_TURN_STEPS} "
        "action ids, the most one turn may take (a guard against a turn that never ends; --max-turn-steps raises it)",
        f"record written to {record}",
    ]
    result = GameRecord.load(record).result
    assert result is not None and (result["ended"], result["turns"], result["moves"]) == ("stalled", 2, 2542)
    # --max-turn-steps sets the cap: a lower one stops the game sooner, a higher one lets the long turn end
    res = runner.invoke(app, [*args, "--max-turn-steps", "100", "--no-color"])
    assert res.exit_code == 0 and "took more than 100 action ids" in res.output.splitlines()[-1]
    res = runner.invoke(app, [*args, "--max-turn-steps", "100000", "--no-color"])
    assert res.exit_code == 0 and "game stopped" not in res.output, res.output
    res = runner.invoke(app, [*args, "--max-turn-steps", "0"])
    assert res.exit_code == 2 and res.output.splitlines()[-1].startswith("error: --max-turn-steps must be")


def test_the_replay_log_in_the_rendering_docs_is_what_the_command_prints(tmp_path: Path) -> None:
    """docs/rendering.md's excerpt had moves 109/110 and 149/150 and a turn-4 boundary that the command no longer
    printed: every line it shows is a line of the log of the game it names, in its order."""
    import re

    text = (ROOT / "docs" / "rendering.md").read_text(encoding="utf-8")
    found = re.search(r"prints a log such as \(from `risk-env (watch [^`]*)`\)\n\n```\n(.*?)```", text, re.S)
    assert found is not None
    args = found.group(1).split()
    record = tmp_path / args[args.index("--record") + 1]
    args[args.index("--record") + 1] = str(record)
    assert runner.invoke(app, [*args, "--show", "none"]).exit_code == 0
    res = runner.invoke(app, ["replay", str(record)])
    assert res.exit_code == 0, res.output
    log = res.output.splitlines()
    shown = [line for line in found.group(2).splitlines() if line.strip() != "..."]
    at = [log.index(line) if line in log else -1 for line in shown]
    assert len(shown) >= 6 and -1 not in at and at == sorted(at), list(zip(shown, at, strict=True))


def test_the_terminal_boards_game_over_line_reads_with_you_as_the_winner() -> None:
    # (render_compact said "you wins" at the end of a game of risk-env play, where the person's label is "you")
    from risk_env.records.ansi import render_ansi, render_compact
    from risk_env.rules.engine import Game
    from risk_env.rules.state import Phase

    game = Game(num_players=2, map="small", setup="random", two_player="none")
    s = game.new_game(0)
    s.phase, s.winner, s.turn = Phase.GAME_OVER, 0, 7
    assert "game over after 7 turns: winner you" in render_compact(game, s, names=["you", "random"])
    assert "game over after 7 turns: winner you" in render_ansi(game, s, names=["you", "random"])


def test_the_full_benchmark_plays_each_preset_at_the_counts_it_is_made_for(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The full run (no --quick) played the 2-player preset 'allied' at 4 players and failed after minutes of timing,
    writing nothing; each preset now runs at the counts it takes (duel and allied: 2). Timings are stubbed; each env
    is built and reset."""
    pytest.importorskip("chess")
    pytest.importorskip("pygame")
    import risk_env
    from risk_env.tools import benchmark

    def built(make_env, seconds=2.0, repeats=3, seed=0):  # type: ignore[no-untyped-def]
        make_env().reset(seed=seed)
        return 1000.0

    monkeypatch.setattr(benchmark, "aec_steps_per_second", built)
    monkeypatch.setattr(benchmark, "engine_decisions_per_second", lambda *a, **k: 1000.0)
    monkeypatch.setattr(benchmark, "micro_costs", lambda *a, **k: dict.fromkeys(("mask_us", "observation_us"), 1.0))
    monkeypatch.setattr(benchmark, "_games", lambda *a, **k: {})
    monkeypatch.setattr(benchmark, "_sb3_rate", lambda *a, **k: 1.0)
    monkeypatch.setattr(benchmark, "_memory", lambda *a, **k: {})
    res = benchmark.run(quick=False, seconds=0.01, repeats=1, vector=False)
    rows = {(r["preset"], r["players"]) for r in res["aec"]}
    assert ("allied", 2) in rows and ("duel", 2) in rows
    assert not {("allied", 4), ("allied", 6), ("duel", 4)} & rows
    assert {p for p, _ in rows} == set(risk_env.PRESETS)


def test_the_benchmark_refuses_a_batch_beyond_memory_before_any_row(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A --batch-sizes too large for memory was refused after every other row was timed (minutes lost)."""
    pytest.importorskip("chess")
    pytest.importorskip("pygame")
    pytest.importorskip("torch")
    from risk_env.errors import ConfigError
    from risk_env.tools import benchmark

    def timed(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("a row was timed before the refusal")

    monkeypatch.setattr(benchmark, "aec_steps_per_second", timed)
    with pytest.raises(ConfigError, match=r"^batch size=100,000,000,000: the games need about"):
        benchmark.run(quick=True, seconds=0.01, repeats=1, batch_sizes=(1, 100_000_000_000))


@pytest.mark.parametrize(
    "argv,named",
    [
        (["--resume", "runs/x"], "--resume"),
        (["--out", "runs/x"], "--out"),
        (["--timesteps", "2e6"], "--timesteps"),
        (["--out", "runs/x", "--timesteps", "5000"], "--out, --timesteps"),
        (["--set", "out_dir=runs/x", "--set", "total_timesteps=5"], "--set out_dir, --set total_timesteps"),
    ],
)
def test_train_benchmark_refuses_options_it_would_drop(argv, named, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["train", "--benchmark", *argv])
    assert res.exit_code == 2
    assert res.output == f"error: --benchmark trains nothing and writes nothing: leave out {named}\n"
    assert list(tmp_path.iterdir()) == []  # nothing timed, nothing written
