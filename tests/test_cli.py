"""The risk-env command line: play driven through stdin, watch, replay, the delegating commands, --help."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("typer")
pytest.importorskip("matplotlib")

from typer.testing import CliRunner  # noqa: E402

from risk_env import Game, RulesConfig  # noqa: E402
from risk_env.records.record import GameRecord, same_position  # noqa: E402
from risk_env.rules.moves import Move  # noqa: E402
from risk_env.rules.state import Phase  # noqa: E402
from risk_env.tools.cli import app, main  # noqa: E402
from risk_env.tools.play import Choice, group_moves  # noqa: E402

runner = CliRunner()

SMALL2 = ["--players", "2", "--map", "small", "--set", "setup=random", "--set", "two_player=none"]


def _first_human_state(seed: int) -> tuple[Game, object]:
    game = Game(RulesConfig(num_players=2, map="small", setup="random", two_player="none"))
    return game, game.new_game(seed)


def test_play_through_stdin_explains_mistakes_and_finishes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # pick a seed where player_0 moves first, so the first prompt is ours (reinforce)
    seed = next(k for k in range(50) if _first_human_state(k)[1].order[0] == 0)
    game, s = _first_human_state(seed)
    mine = game.map.name_of(int(np.flatnonzero(s.owner == 0)[0]))
    theirs = game.map.name_of(int(np.flatnonzero(s.owner == 1)[0]))
    lines = [
        "help",
        "99",
        "0 1",
        "attack Nowhere->Ash dice=3",
        f"place {theirs} 1",
        "end turn",
        "",
        "moves",
        "board",
        f"place {mine} 1",
        "1 1",
    ] + ["1"] * 400
    path = tmp_path / "game.json"
    res = runner.invoke(
        app,
        ["play", *SMALL2, "--turns", "4", "--seed", str(seed), "--record", str(path), "--no-color"],
        input="\n".join(lines) + "\n",
    )
    out = res.output
    assert res.exit_code == 0, out
    assert "You are player_0" in out and "Legal moves:" in out
    assert "Enter one of:" in out  # help
    assert "there is no move 99; the moves are numbered 1 to" in out
    assert "unknown territory 'Nowhere'" in out
    assert f"{theirs} is not yours" in out
    assert "the turn ends from the fortify phase" in out and "Allowed now:" in out
    assert f"player_0: place {mine} 1" in out  # a move typed as text
    assert "turn limit reached after 4 turns" in out
    rec = GameRecord.load(path)
    assert rec.players == ["human", "random"] and rec.result["ended"] == "turn_limit"
    assert rec.moves[0] == f"place {mine} 1"
    assert same_position(rec.verify(), rec.final_state())


def test_play_ends_cleanly_when_input_ends_or_on_quit(tmp_path) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(app, ["play", *SMALL2, "--seed", "0", "--seat", "1"], input="1\n")
    assert res.exit_code == 0 and "input ended: leaving the game" in res.output and "left unfinished" in res.output
    path = tmp_path / "q.json"
    res = runner.invoke(app, ["play", *SMALL2, "--seed", "0", "--record", str(path)], input="quit\n")
    assert res.exit_code == 0 and "leaving the game" in res.output
    assert GameRecord.load(path).result["ended"] == "unfinished"
    res = runner.invoke(app, ["play", *SMALL2, "--seat", "5"])
    assert res.exit_code != 0 and "--seat must be from 0 to 1" in res.output


def test_play_draws_a_fresh_seed_and_shows_it_when_the_game_ends(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Without --seed nobody knows the seed (it would give away the dice and the cards) until the game is over;
    then it is shown, and in the record, and --seed with it plays the same game."""
    seeds, starts = [], []
    for k in range(2):
        path = tmp_path / f"fresh{k}.json"
        res = runner.invoke(app, ["play", *SMALL2, "--record", str(path), "--no-color"], input="quit\n")
        assert res.exit_code == 0, res.output
        lines = res.output.splitlines()
        shown = [line for line in lines if line.startswith("the game's seed: ")]
        assert len(shown) == 1 and lines[lines.index(shown[0]) - 1].startswith("game left unfinished at turn ")
        seed = int(shown[0].split()[3])
        assert shown[0] == f"the game's seed: {seed} (--seed {seed} starts the same game)"
        assert res.output.count(str(seed)) == 2  # shown nowhere before the game ends
        assert GameRecord.load(path).seed == seed
        seeds.append(seed)
        starts.append(res.output.split("\n", 1)[1].split("leaving the game")[0])
    assert seeds[0] != seeds[1]
    again = runner.invoke(app, ["play", *SMALL2, "--seed", str(seeds[0]), "--no-color"], input="quit\n")
    assert again.exit_code == 0 and f"the game's seed: {seeds[0]} " in again.output
    assert again.output.split("\n", 1)[1].split("leaving the game")[0] == starts[0]  # the same game again


def test_play_as_a_console_script_reading_stdin() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "risk_env.tools.cli", "play", *SMALL2, "--turns", "2", "--seed", "3", "--no-color"],
        input="\n".join(["nonsense"] + ["1"] * 200) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "not accepted: cannot read move 'nonsense'" in proc.stdout
    assert "turn limit reached after 2 turns" in proc.stdout


def test_ctrl_c_at_the_prompt_leaves_the_game_and_writes_the_record(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+C (SIGINT) while the game waits for a move leaves it as 'quit' does: the record is written."""
    import signal
    import time

    path = tmp_path / "interrupted.json"
    cmd = [sys.executable, "-m", "risk_env.tools.cli", "play", *SMALL2, "--seed", "4", "--record", str(path), "--no-color"]
    proc = subprocess.Popen(  # (SIGINT as a terminal gives it: a test run in the background inherits it ignored)
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    seen = b""
    deadline = time.monotonic() + 120
    while b"player_0> " not in seen and time.monotonic() < deadline:  # the first prompt
        chunk = proc.stdout.read1(4096)  # type: ignore[attr-defined]
        if not chunk:
            break
        seen += chunk
    assert b"player_0> " in seen, seen.decode()
    proc.send_signal(signal.SIGINT)
    # stdin stays open until it has left: communicate() would close it, and on a loaded machine the game could then
    # read the end of its input before the signal's KeyboardInterrupt ("input ended", not "interrupted")
    proc.wait(timeout=60)
    out, err = proc.stdout.read(), proc.stderr.read()
    assert proc.stdin is not None
    proc.stdin.close()
    text = (seen + out).decode()
    assert proc.returncode == 0, (err.decode(), text[-600:])
    assert "interrupted: leaving the game" in text and "Traceback" not in err.decode()
    rec = GameRecord.load(path)
    assert rec.result["ended"] == "unfinished" and rec.seed == 4


def test_two_outputs_on_one_file_are_refused_before_anything_is_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """watch --record and --png on one file, or replay writing over the record it reads: refused up front."""
    same = tmp_path / "out.png"
    res = runner.invoke(app, ["watch", *SMALL2, "--turns", "2", "--show", "none", "--record", str(same), "--png", str(same)])
    assert res.exit_code == 2
    assert f"--record {str(same)!r} is the same file as --png: give each output its own file" in res.output
    assert not same.exists()
    rec = tmp_path / "game.json"
    res = runner.invoke(app, ["watch", *SMALL2, "--turns", "2", "--show", "none", "--record", str(rec)])
    assert res.exit_code == 0, res.output
    before = rec.read_bytes()
    alias = tmp_path / "sub" / ".." / "game.json"  # the same file by another spelling
    res = runner.invoke(app, ["replay", str(rec), "--quiet", "--strip", str(alias)])
    assert res.exit_code == 2
    assert f"--strip {str(alias)!r} is the same file as the record read" in res.output
    assert rec.read_bytes() == before and not (tmp_path / "sub").exists()
    gif = str(tmp_path / "a.gif")
    res = runner.invoke(app, ["replay", str(rec), "--quiet", "--gif", gif, "--video", gif])
    assert res.exit_code == 2 and "--video" in res.output and "the same file as --gif" in res.output


def test_an_output_over_a_file_the_game_reads_is_refused_before_the_game(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """watch and play refuse a --record (or --png) that names their own --map, --rules or agent file: the file was
    replaced by the record without a word."""
    from risk_env.rules.map import load_map

    board = tmp_path / "board.json"
    board.write_text(json.dumps(load_map("small").to_dict()))
    rules = tmp_path / "rules.yaml"
    rules.write_text("fortify: connected\n")
    before = board.read_bytes(), rules.read_bytes()
    for command, stdin in (["watch", "--turns", "2", "--show", "none"], None), (["play"], "quit\n"):
        res = runner.invoke(app, [*command, "-n", "2", "--map", str(board), "--record", str(board)], input=stdin)
        assert res.exit_code == 2 and res.output == (
            f"error: --record {str(board)!r} is the same file as the map file: give each output its own file\n"
        )
        given = [*command, "-n", "2", "--map", "small", "--rules", str(rules), "--record", str(rules)]
        res = runner.invoke(app, given, input=stdin)
        assert res.exit_code == 2 and "is the same file as the --rules file" in res.output
    res = runner.invoke(app, ["watch", "-n", "2", "--map", "small", "--agents", f"random,{board}", "--record", str(board)])
    assert res.exit_code == 2 and f"is the same file as the agent file {str(board)!r}" in res.output
    assert (board.read_bytes(), rules.read_bytes()) == before
    # the map named by --set or inside the rules file, a model named without its suffix, a hard link
    named = tmp_path / "named.yaml"
    named.write_text(f"map: {board.name}\nturn_limit: 3\n")
    model = tmp_path / "mymodel.pt"
    model.write_bytes(b"weights")
    os.link(board, tmp_path / "linked.json")
    for given in (
        ["--set", f"map={board}", "--record", str(board)],
        ["--rules", str(named), "--record", str(board)],
        ["--map", "small", "--agents", f"random,{tmp_path / 'mymodel'}", "--record", str(model)],
        ["--map", str(board), "--record", str(tmp_path / "linked.json")],
    ):
        res = runner.invoke(app, ["watch", "-n", "2", "--show", "none", *given])
        assert res.exit_code == 2 and "is the same file as the" in res.output, (given, res.output)
    assert board.read_bytes() == before[0] and model.read_bytes() == b"weights"
    # serve numbers the next games' records beside --record: none of those names may be an input
    numbered = tmp_path / "game_2.json"
    numbered.write_bytes(board.read_bytes())
    res = runner.invoke(app, ["serve", "-n", "2", "--map", str(numbered), "--record", str(tmp_path / "game.json"), "--no-open"])
    assert res.exit_code == 2 and "the map file" in res.output and "give --record another name" in res.output
    res = runner.invoke(app, ["watch", "-n", "2", "--set", "num_players=null"])
    assert res.output == "error: --set num_players=null: give the number of players as --players (-n)\n"


def test_set_null_is_the_switchs_default_for_every_switch() -> None:
    """``--set KEY=null`` is the docs/rules.md default of any switch (it was refused for all but setup and
    starting_armies)."""
    from risk_env.tools.cli import build_rules

    base = RulesConfig(num_players=2)
    switches = [k for k in RulesConfig.options() if k != "num_players"]
    got = build_rules(2, "fast", None, None, [f"{k}=null" for k in switches])
    assert {k: getattr(got, k) for k in switches} == {k: getattr(base, k) for k in switches}
    res = runner.invoke(app, ["watch", *SMALL2, "--show", "end", "--set", "turn_limit=null", "--set", "fortify=null"])
    assert res.exit_code == 0 and "game over" in res.output


def test_watch_names_an_agent_that_raises_and_writes_the_game_so_far(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """An agent that raises mid-game ended watch in a traceback and wrote no record: one line naming it, exit 1, the
    record so far (as play does)."""
    (tmp_path / "failing_agents.py").write_text(
        "import numpy as np\n"
        "calls = []\n"
        "def late(obs, info):\n"
        "    calls.append(1)\n"
        "    if len(calls) > 40:\n"
        "        raise ValueError('late')\n"
        "    return int(np.flatnonzero(info['action_mask'])[0])\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    rec = tmp_path / "g.json"
    res = runner.invoke(app, ["watch", *SMALL2, "--agents", "failing_agents:late,random", "--show", "none", "--record", str(rec)])
    assert res.exit_code == 1, res.output
    assert res.output.endswith(
        f"record written to {rec}\nerror: agent 'late' (player_0, game seed 0) failed (ValueError); the game cannot go on\n"
    ), res.output
    assert GameRecord.load(rec).result["ended"] == "agent error by player_0"
    (tmp_path / "illegal_agents.py").write_text(
        "import numpy as np\ndef ill(obs, info):\n    return int(np.flatnonzero(info['action_mask'] == 0)[0])\n"
    )
    res = runner.invoke(app, ["watch", *SMALL2, "--agents", "illegal_agents:ill,random", "--show", "none", "--record", str(rec)])
    assert res.exit_code == 1 and "error: agent 'ill' (player_0, game seed 0): action " in res.output, res.output
    assert GameRecord.load(rec).result["ended"] == "illegal action by player_0"


def test_watch_writes_the_game_so_far_on_ctrl_c(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Ctrl+C during watch ended it with no record (play kept its game): now the record so far is written, exit 130."""
    (tmp_path / "stopping_agents.py").write_text(
        "import numpy as np\n"
        "calls = []\n"
        "def stop(obs, info):\n"
        "    calls.append(1)\n"
        "    if len(calls) > 30:\n"
        "        raise KeyboardInterrupt\n"
        "    return int(np.flatnonzero(info['action_mask'])[0])\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    rec = tmp_path / "g.json"
    agents = ["--agents", "stopping_agents:stop,random"]
    res = runner.invoke(app, ["watch", *SMALL2, *agents, "--show", "none", "--record", str(rec)])
    assert res.exit_code == 130, res.output
    assert res.output.endswith(f"\nstopped (Ctrl+C)\nrecord of the game so far written to {rec}\n"), res.output
    saved = GameRecord.load(rec)
    assert saved.result["ended"] == "unfinished" and saved.result["winner"] == -1
    assert len(saved.actions) >= 30  # the stopping agent's 30 actions and the other seat's; load replayed them all


@pytest.mark.skipif(not os.path.exists("/dev/stdin"), reason="needs /dev/stdin")
def test_replay_upto_reads_a_piped_record_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """--upto read the record to check its count, then again to replay it: a pipe was empty the second time."""
    rec = tmp_path / "g.json"
    res = runner.invoke(app, ["watch", *SMALL2, "--turns", "3", "--show", "none", "--record", str(rec)])
    assert res.exit_code == 0, res.output
    proc = subprocess.run(
        [sys.executable, "-m", "risk_env.tools.cli", "replay", "/dev/stdin", "--upto", "5"],
        input=rec.read_bytes(),
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode().splitlines()
    assert lines[-1].lstrip().startswith("5 ") and not any(line.lstrip().startswith("6 ") for line in lines)


def test_ctrl_c_while_an_agent_moves_leaves_the_game_before_its_move() -> None:
    """Ctrl+C while an agent was thinking ended play with no record: it leaves as at the prompt, the position before
    the agent's move returned (the record then finished as unfinished)."""
    import io

    from risk_env.records.recorder import GameRecorder
    from risk_env.tools.play import play_game

    cfg = RulesConfig(num_players=2, map="small", setup="random", two_player="none")
    seed = next(k for k in range(50) if _first_human_state(k)[1].order[0] == 1)  # the agent moves first

    class Interrupted:
        name = "interrupted"

        def act(self, obs, info) -> int:  # type: ignore[no-untyped-def]
            raise KeyboardInterrupt

    rec = GameRecorder(Game(cfg), seed, players=["human", "interrupted"])
    out = io.StringIO()
    s = play_game(cfg, 0, {1: Interrupted()}, seed, lambda: "", out=out, recorder=rec)
    assert "interrupted: leaving the game" in out.getvalue()
    assert same_position(s, Game(cfg).new_game(seed))  # the agent's move not begun
    assert rec.finish(s, "unfinished").result["ended"] == "unfinished" and rec.record.moves == []


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--show", "bogus", "--show must be turn, move, log, end or none, got 'bogus'"),
        ("--every", "turns", "--every must be turn or move, got 'turns'"),
        ("--png-when", "start", "--png-when must be end or last-attack, got 'start'"),
    ],
)
def test_watch_choices_name_what_was_given(option: str, value: str, message: str) -> None:
    res = runner.invoke(app, ["watch", *SMALL2, option, value])
    assert (res.exit_code, res.output) == (2, f"error: {message}\n")


def test_group_moves_merges_amounts_into_ranges() -> None:
    game, s = _first_human_state(0)
    s.to_place = 4
    choices = group_moves(game, s)
    own = [game.map.name_of(int(t)) for t in np.flatnonzero(s.owner == s.player)]
    assert [c.label for c in choices] == [f"place {n} 1..4" for n in own]
    c = choices[0]
    assert c.ranged and c.counts == (1, 4) and c.pick() == Move.place(game.map.id_of(own[0]), 4) and c.pick(2).count == 2
    with pytest.raises(ValueError, match="from 1 to 4, not 5"):
        c.pick(5)
    single = Choice("end attack", [Move.end_attack()])
    with pytest.raises(ValueError, match="takes no amount"):
        single.pick(1)
    # every legal move is reachable through exactly one choice
    s.phase = Phase.ATTACK
    s.armies[:] = 4
    moves = {m for c in group_moves(game, s) for m in c.moves}
    assert moves == set(game.legal_moves(s))


def test_watch_writes_record_png_and_gif(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from PIL import Image

    rec_path, png, gif = tmp_path / "w.json", tmp_path / "board.png", tmp_path / "w.gif"
    res = runner.invoke(
        app,
        [
            "watch",
            "--players",
            "3",
            "--map",
            "small",
            "--turns",
            "4",
            "--seed",
            "2",
            "--show",
            "log",
            "--record",
            str(rec_path),
            "--png",
            str(png),
            "--png-when",
            "last-attack",
            "--gif",
            str(gif),
            "--no-color",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "player_" in res.output and "turn limit reached after 4 turns" in res.output
    rec = GameRecord.load(rec_path)
    assert rec.actions and rec.players == ["random"] * 3 and rec.result["turns"] == 4
    rec.verify()
    img = Image.open(png)
    assert img.size == (1300, 500)
    anim = Image.open(gif)
    assert anim.n_frames == 6  # the start, the 4 turn ends, the final position
    assert anim.size == (1300, 500)  # the picture's own size: the text as readable as the PNG's (it was 780 x 300)
    res = runner.invoke(app, ["watch", "--show", "sometimes"])
    assert res.exit_code != 0 and "--show must be" in res.output


def test_watch_turn_boards_and_unknown_rules() -> None:
    res = runner.invoke(app, ["watch", "--players", "2", "--map", "small", "--turns", "2", "--show", "turn", "--no-color"])
    assert res.exit_code == 0 and res.output.count("West (+2)") == 3  # after turn 1, turn 2 and at the end
    res = runner.invoke(app, ["watch", "--set", "fortify=teleport"], env={"COLUMNS": "200"})
    assert res.exit_code != 0 and "choose one of: adjacent, connected" in res.output


def test_replay_prints_a_log_and_draws_a_strip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rec_path, strip = tmp_path / "r.json", tmp_path / "strip.png"
    assert (
        runner.invoke(
            app, ["watch", "--players", "2", "--map", "small", "--turns", "3", "--show", "none", "--record", str(rec_path)]
        ).exit_code
        == 0
    )
    res = runner.invoke(app, ["replay", str(rec_path), "--strip", str(strip), "--upto", "40"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("game: map small, 2 players, seed 0")
    assert "-- setup --" in lines or any(ln.startswith("-- turn 1:") for ln in lines)
    rec = GameRecord.load(rec_path)
    moves = [ln for ln in lines if ln[:5].strip().isdigit()]
    assert len(moves) == 40 and all(rec.moves[i] in moves[i] for i in range(40))
    assert strip.exists() and "wrote" in res.output
    res = runner.invoke(app, ["replay", str(tmp_path / "missing.json")])
    assert res.exit_code == 2 and "cannot read record file" in res.output
    with pytest.raises(SystemExit) as ex:  # one command alone, as scripts/replay.py runs it
        main([str(rec_path), "--quiet"], command="replay")
    assert ex.value.code == 0


@pytest.mark.parametrize(
    "command,words",
    [
        (None, ["play", "watch", "replay", "evaluate", "train", "bench"]),
        ("play", ["--seat", "--agents", "--record", "--turns", "--set"]),
        ("watch", ["--gif", "--png", "--png-when", "--show", "--record"]),
        ("replay", ["--gif", "--video", "--strip", "--upto"]),
    ],
)
def test_help(command: str | None, words: list[str]) -> None:
    res = runner.invoke(app, ([command] if command else []) + ["--help"], terminal_width=200)
    assert res.exit_code == 0
    for w in words:
        assert w in res.output


@pytest.mark.parametrize("command", ["evaluate", "train", "train-rllib", "plot-training", "bench", "soak"])
def test_help_of_every_command_is_typer_help(command: str) -> None:
    res = runner.invoke(app, [command, "--help"], prog_name="risk-env")
    assert res.exit_code == 0 and res.output.startswith(f"Usage: risk-env {command} [OPTIONS]")
    assert "Options:" in res.output and "-h, --help" in res.output


def test_main_entry_point() -> None:
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0


def test_set_num_players_is_refused_in_one_line_naming_players():
    r = runner.invoke(app, ["evaluate", "random", "random", "--set", "num_players=2", "--games", "1", "--map", "small"])
    assert r.exit_code == 2
    assert "error: --set num_players=2: give the number of players as --players (-n)" in r.output
    r = runner.invoke(app, ["watch", "--map", "small", "--set", "num_players=3", "--show", "none"])
    assert r.exit_code == 2 and "give the number of players as --players (-n)" in r.output


def test_a_set_and_its_option_that_disagree_are_refused():
    # (the option won without a word: --set map=small --map classic played the classic map)
    r = runner.invoke(app, ["evaluate", "random", "random", "--set", "map=small", "--map", "classic", "--games", "1"])
    assert r.exit_code == 2 and "error: --set map=small and --map classic disagree: give one of them" in r.output
    r = runner.invoke(app, ["watch", "--map", "small", "--set", "turn_limit=5", "--turns", "6", "--show", "none"])
    assert r.exit_code == 2 and "error: --set turn_limit=5 and --turns 6 disagree: give one of them" in r.output
    r = runner.invoke(app, ["evaluate", "random", "random", "--set", "map=null", "--map", "small", "--games", "1"])
    assert r.exit_code == 2 and "error: --set map=null and --map small disagree: give one of them" in r.output  # (as typed)
    r = runner.invoke(app, ["watch", "--map", "small", "--set", "turn_limit=true", "--turns", "1", "--show", "none"])
    assert r.exit_code == 2 and "error: --set turn_limit=true and --turns 1 disagree" in r.output  # (True == 1 passed)
    args = ["--set", "map=small", "--map", "small", "--set", "turn_limit=3", "--turns", "3", "--games", "1", "--no-progress"]
    r = runner.invoke(app, ["evaluate", "random", "random", *args])
    assert r.exit_code == 0, r.output  # (the same value twice)


def test_a_file_that_is_no_checkpoint_is_refused_with_risk_error(tmp_path):
    pytest.importorskip("sb3_contrib")
    import zipfile

    from risk_env.agents import load_agent
    from risk_env.errors import RiskError

    garbage = tmp_path / "bad.zip"
    garbage.write_bytes(b"garbage")
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("readme.txt", "no model here")
    for path in (garbage, empty):
        with pytest.raises(RiskError, match=r"is not a MaskablePPO checkpoint that loads here \("):
            load_agent(str(path))
    r = runner.invoke(app, ["evaluate", str(garbage), "random", "--games", "1", "--map", "small", "--workers", "1"])
    assert r.exit_code != 0 and "is not a MaskablePPO checkpoint" in r.output and "Traceback" not in r.output


def test_results_json_is_strict_json_when_no_game_has_a_winner(tmp_path):
    import json

    import risk_env

    res = risk_env.evaluate(["random", "random"], num_games=2, turn_limit=1, map="small", progress=False, workers=1)
    assert res.decided_mean_turns != res.decided_mean_turns  # NaN: no won games
    assert "(won games: none)" in res.summary()
    res.save(tmp_path, plot=False)
    data = json.loads((tmp_path / "results.json").read_text(), parse_constant=lambda c: pytest.fail(f"not JSON: {c}"))
    assert data["decided_mean_turns"] is None and data["num_games"] == 2


def test_round_robin_keeps_every_pair_of_entrants_of_one_label():
    from risk_env.tools.evaluation import round_robin, round_robin_table

    pairs = round_robin(["random", "random", "aggressive"], num_games=2, map="small", progress=False, workers=1)
    assert list(pairs) == [("random", "random#2"), ("random", "aggressive"), ("random#2", "aggressive")]
    assert len(round_robin_table(pairs).splitlines()) == 2 + 3


def test_an_agent_that_returns_no_integer_is_refused_not_coerced():
    import risk_env
    from risk_env.agents import RandomAgent
    from risk_env.agents.base import CallableAgent
    from risk_env.errors import IllegalActionError
    from risk_env.tools.match import play_match

    for value, shown in ((3.7, "3.7 (float)"), ("5", "'5' (str)"), (True, "True (a bool)"), (None, "None")):
        env = risk_env.env(num_players=2, map="small")
        with pytest.raises(
            IllegalActionError,
            match=rf"^agent 'function' \(player_0, game seed 0\): an action id is an integer, got {re.escape(shown)}$",
        ):
            play_match(env, [lambda o, i, v=value: v, RandomAgent(0)], seed=0)
        with pytest.raises(IllegalActionError, match=r"^f: an action id is an integer, got "):
            CallableAgent(lambda o, i, v=value: v, name="f").act({}, {})
    assert CallableAgent(lambda o, i: np.int64(4)).act({}, {}) == 4


def test_agent_modules_and_classes_that_fail_are_refused_with_risk_error(tmp_path, monkeypatch):
    from risk_env.agents import load_agent
    from risk_env.errors import RiskError

    (tmp_path / "qa_broken_mod.py").write_text("1 / 0\n")
    (tmp_path / "qa_agent_mod.py").write_text(
        "class Picky:\n    def __init__(self):\n        raise RuntimeError('no weights here')\n"
        "    def act(self, observation, info):\n        return 0\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RiskError, match="importing module 'qa_broken_mod' raised ZeroDivisionError: division by zero"):
        load_agent("qa_broken_mod:x")
    with pytest.raises(RiskError, match="^'Picky': building the agent raised RuntimeError: no weights here$"):
        load_agent("qa_agent_mod:Picky")


def test_animation_frame_rates_out_of_range_are_refused_before_a_file_is_written(tmp_path):
    pytest.importorskip("imageio")
    import risk_env
    from risk_env.agents import RandomAgent
    from risk_env.errors import ConfigError
    from risk_env.records.replay import render_video
    from risk_env.tools.match import play_match

    rec = play_match(risk_env.env(num_players=2, map="small"), [RandomAgent(0), RandomAgent(1)], seed=0, record=True).record
    for fps in (0.0001, 5000.0, 0, float("nan")):
        out = tmp_path / "r.gif"
        with pytest.raises(ConfigError, match=r"^fps must be from 0\.001 to 1000\.0 frames per second"):
            render_video(rec, out, fps=fps)
        assert not out.exists()
    r = runner.invoke(
        app, ["watch", "--players", "2", "--map", "small", "--show", "none", "--gif", str(tmp_path / "w.gif"), "--fps", "0.0001"]
    )
    assert r.exit_code == 2 and "error: --fps must be from 0.001 to 1000 frames per second, got 0.0001" in r.output
    assert not (tmp_path / "w.gif").exists()
