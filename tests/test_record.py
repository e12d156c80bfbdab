"""Game records: recording through the AEC env and the engine, JSON round trips, exact replays, errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import risk_env
from risk_env import Game
from risk_env.agents import RandomAgent
from risk_env.records.record import (
    RECORD_FORMAT,
    GameRecord,
    RecordError,
    game_result,
    replay,
    replay_actions,
    replay_moves,
    same_position,
    state_digest,
)
from risk_env.records.recorder import GameRecorder, Recorder
from risk_env.rules.map import load_map, map_from_dict
from risk_env.rules.state import Phase

# rule sets covering every kind of decision: claim/deal setups and the neutral, chosen defence,
# card variants, connected fortify
RULES = [
    dict(num_players=2),  # deal setup + neutral (2 own + 1 neutral army per setup turn)
    dict(num_players=3, defender_dice="choose"),  # claim setup, defend decisions
    dict(num_players=4, setup="random", card_trade="fixed_by_symbol", territory_bonus="once_per_trade"),
    dict(num_players=2, two_player="none", fortify="connected", setup="random", elimination_trade_at=5),
    dict(num_players=3, setup="random", card_trade="no_cards"),
    # stars trades, the expert dice rules' decisions, blitzes answered by the defender
    dict(num_players=3, setup="random", card_trade="stars", reroll_with_card=True, die_to_six=True, defender_dice="choose"),
    dict(num_players=4, preset="expert", setup="random"),
    dict(num_players=4, preset="tournament"),
    # the allied army (docs/rules.md §7): claims, the opponent's allied placements and attacks
    dict(preset="allied"),
    dict(preset="allied", setup="deal", defender_dice="choose"),
]


def _play_recorded(env: Recorder, seed: int, agent_seed: int) -> list:
    """Play one game with random agents; return the (copied) positions after each complete move."""
    agent = RandomAgent(agent_seed)
    env.reset(seed=seed)
    raw = env.unwrapped
    snaps = []
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        steps = raw.game_state.steps
        env.step(None if term or trunc else agent.act(obs))
        if raw.game_state.steps != steps:
            snaps.append(raw.game_state.copy())
    return snaps


@pytest.mark.parametrize("rules", RULES, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()))
def test_record_replays_every_position_of_random_games(rules: dict) -> None:
    """40 games per rule set (200 in all): the replayed positions equal the env's after every move."""
    env = Recorder(risk_env.env(map="small", turn_limit=10, **rules))
    raw = env.unwrapped
    ended = set()
    for g in range(40):
        snaps = _play_recorded(env, seed=10_000 + g, agent_seed=g)
        rec = GameRecord.from_json(env.records[-1].to_json())
        assert rec.seed == 10_000 + g and len(rec.moves) == len(snaps)
        states = list(replay(rec))
        assert len(states) == len(snaps) + 1
        for k, (a, b) in enumerate(zip(states[1:], snaps, strict=False)):
            if k % 7 == 0 or k == len(snaps) - 1:  # the full position (generator included) now and then
                assert same_position(a, b), (g, k, rec.moves[k])
            else:
                assert np.array_equal(a.owner, b.owner) and np.array_equal(a.armies, b.armies) and a.last_roll == b.last_roll, (
                    g,
                    k,
                )
        # the action ids replay through the codec to the very same final state (selection included)
        assert list(replay_actions(rec))[-1] == raw.game_state
        assert rec.result == game_result(raw.game, raw.game_state)
        assert rec.verify() is not None
        ended.add(rec.result["ended"])
    assert ended <= {"win", "turn_limit"}


def test_record_file_round_trip_and_stopping_anywhere(tmp_path) -> None:  # type: ignore[no-untyped-def]
    env = Recorder(
        risk_env.env(num_players=3, map="small", setup="random", turn_limit=6), directory=tmp_path, players=["a", "b", "c"]
    )
    snaps = _play_recorded(env, seed=7, agent_seed=1)
    assert len(env.paths) == 1 and env.paths[0].name == "game_00000_seed7.json"
    data = json.loads(env.paths[0].read_text())
    assert data["format"] == RECORD_FORMAT and data["map"] == "small" and data["seed"] == 7
    assert data["players"] == ["a", "b", "c"] and data["rules"]["turn_limit"] == 6
    assert all(isinstance(m, str) for m in data["moves"]) and data["result"]["digest"] == state_digest(snaps[-1])
    rec = GameRecord.load(env.paths[0])
    assert rec == env.records[0]
    path = rec.save(tmp_path / "sub" / "copy.json")
    assert GameRecord.load(path) == rec
    for upto in (0, 1, 5, len(rec.moves)):
        states = list(replay(rec, upto=upto))
        assert len(states) == upto + 1
        if upto:
            assert same_position(states[-1], snaps[upto - 1])
    steps = list(replay_moves(rec, upto=3))
    assert [s.index for s in steps] == [1, 2, 3] and [s.text for s in steps] == rec.moves[:3]
    assert same_position(steps[1].before, steps[0].state)
    with pytest.raises(ValueError, match="upto must be a number of moves from 0 to"):
        list(replay(rec, upto=len(rec.moves) + 1))


def test_reset_without_seed_still_records_a_replayable_seed() -> None:
    env = Recorder(risk_env.env(num_players=2, map="small", setup="random", two_player="none", turn_limit=3))
    agent = RandomAgent(0)
    env.reset()
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else agent.act(obs))
    rec = env.records[-1]
    assert isinstance(rec.seed, int) and rec.seed >= 0
    assert same_position(rec.final_state(), env.unwrapped.game_state)


def test_game_ended_by_an_illegal_action_is_recorded() -> None:
    env = Recorder(risk_env.env(num_players=2, map="small", setup="random", two_player="none"))
    env.reset(seed=3)
    obs, *_ = env.last()
    legal = np.flatnonzero(obs["action_mask"])
    env.step(int(legal[0]))
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    agent = env.agent_selection
    env.step(illegal)  # TerminateIllegalWrapper ends the game (and logs a warning)
    rec = env.records[-1]
    assert rec.result is not None and rec.result["ended"] == f"illegal action by {agent}"
    assert rec.actions == [int(legal[0])]
    assert same_position(rec.final_state(), env.unwrapped.game_state)


def test_engine_recorder_and_a_map_that_is_not_shipped() -> None:
    d = load_map("small").to_dict()
    d["name"] = "tiny"
    d["territories"][0]["name"] = "Oak"
    d["borders"] = [[("Oak" if x == "Ash" else x) for x in b] for b in d["borders"]]
    game = Game(risk_env.RulesConfig(num_players=2, two_player="none", setup="random", turn_limit=4), game_map=map_from_dict(d))
    rec = GameRecorder(game, seed=11, players=["x", "y"])
    s = game.new_game(11)
    rng = np.random.default_rng(0)
    positions = [s.copy()]
    while s.phase != Phase.GAME_OVER:
        legal = game.legal_moves(s)
        mv = legal[int(rng.integers(len(legal)))]
        game.apply(s, mv)
        rec.add(mv)
        positions.append(s.copy())
    record = GameRecord.from_json(rec.finish(s).to_json(indent=1))
    assert isinstance(record.map, dict) and record.map["name"] == "tiny" and record.actions is None
    assert record.game().map.territory_names[0] == "Oak"
    replayed = list(replay(record))
    assert len(replayed) == len(positions) and all(same_position(a, b) for a, b in zip(replayed, positions, strict=False))
    with pytest.raises(RecordError, match="no action ids"):
        list(replay_actions(record))


def test_bad_records_are_rejected_with_a_reason() -> None:
    game = Game(num_players=2, map="small", setup="random", two_player="none")
    rec = GameRecord.start(game, seed=1)
    s = game.new_game(1)
    for _ in range(4):
        mv = game.legal_moves(s)[-1]
        game.apply(s, mv)
        rec.moves.append(game.move_to_text(mv))
    rec.result = game_result(game, s)
    good = rec.to_dict()
    with pytest.raises(RecordError, match="must be JSON"):
        GameRecord.from_json("{not json")
    with pytest.raises(RecordError, match="format"):
        GameRecord.from_dict({**good, "format": "other/9"})
    with pytest.raises(RecordError, match=r"format 'risk_env.record/2'.*cannot read.*'risk_env.record/1'"):
        GameRecord.from_dict({**good, "format": "risk_env.record/2"})
    with pytest.raises(RecordError, match="'seed' must be int"):
        GameRecord.from_dict({**good, "seed": "1"})
    with pytest.raises(RecordError, match="no 'moves' field"):
        GameRecord.from_dict({k: v for k, v in good.items() if k != "moves"})
    with pytest.raises(RecordError, match="integer seed"):
        GameRecord.start(game, seed=None)  # type: ignore[arg-type]
    bad = GameRecord.from_dict({**good, "moves": good["moves"][:2] + ["attack Ash->Ash dice=3"] + good["moves"][3:]})
    with pytest.raises(RecordError, match="move 3 .* does not replay"):
        list(replay(bad))
    lied = GameRecord.from_dict({**good, "result": {**good["result"], "armies": [0, 0]}})
    with pytest.raises(RecordError, match="armies"):
        lied.verify()
    with pytest.raises(RecordError, match="rules or map are invalid"):
        GameRecord.from_dict({**good, "rules": {**good["rules"], "fortify": "teleport"}}).game()
    with pytest.raises(RecordError, match="cannot read record file"):
        GameRecord.load("/nonexistent/record.json")


def test_a_record_written_by_an_earlier_release_still_replays() -> None:
    # written before the package was split into wings (risk_env/record.py, format risk_env.record/1)
    path = Path(__file__).parent / "data" / "record_v1.json"
    assert json.loads(path.read_text())["format"] == RECORD_FORMAT == "risk_env.record/1"
    rec = GameRecord.load(path)
    final = rec.verify()  # replays every move and compares the recorded result, digest included
    assert rec.result is not None and rec.result["ended"] == "turn_limit" and rec.result["moves"] == len(rec.moves) == 38
    assert [int((final.owner == p).sum()) for p in range(3)] == [4, 2, 3]
    assert same_position(final, list(replay_actions(rec))[-1])
    # the alias written by some development builds reads the same
    alias = GameRecord.from_dict({**rec.to_dict(), "format": "risk_env.records.record/1"})
    assert alias.verify().armies.tolist() == final.armies.tolist()


def test_validation_replays_the_action_ids_too(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # a small recorded game: its ids and its moves reach the same position, so it validates
    env = Recorder(risk_env.env(num_players=2, map="small", setup="random", turn_limit=3))
    _play_recorded(env, seed=5, agent_seed=0)
    good = env.records[-1].to_dict()
    assert good["actions"] and GameRecord.from_dict(good).validate()
    # the 8th id made illegal where it stands: a one-line error naming it
    ids = list(good["actions"])
    ids[7] = 10_000
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**good, "actions": ids}))
    with pytest.raises(RecordError, match=r"bad\.json: action 8 \(id 10000\) does not replay: .*out of range") as e:
        GameRecord.load(path)
    assert "\n" not in str(e.value)
    assert GameRecord.load(path, validate=False).actions == ids  # reading alone does not replay
    # legal ids that stop early end in another position than the moves
    with pytest.raises(RecordError, match="action ids replay to another position than its"):
        GameRecord.from_dict({**good, "actions": good["actions"][:-3]}).validate()


def test_risk_env_replay_fails_on_a_corrupted_action_id(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("typer")
    from risk_env.tools.cli import main

    d = json.loads((Path(__file__).parent.parent / "docs" / "board.json").read_text())
    assert d["format"] == RECORD_FORMAT
    d["actions"][7] = 69  # 'end' during the claim: illegal
    path = tmp_path / "bad_action.json"
    path.write_text(json.dumps(d))
    with pytest.raises(SystemExit) as ex:
        main(["replay", "-q", str(path)])
    assert ex.value.code not in (0, None)
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "action 8 (id 69) does not replay" in err and "\n" not in err


def _small_record() -> dict:
    game = Game(num_players=2, map="small", setup="random", two_player="none")
    rec = GameRecorder(game, seed=3, players=["a", "b"])
    s = game.new_game(3)
    for _ in range(3):
        mv = game.legal_moves(s)[0]
        game.apply(s, mv)
        rec.add(mv)
    return rec.finish(s, "unfinished").to_dict()


def _with_map(**changes) -> dict:
    d = _small_record()
    m = load_map("small").to_dict()
    m.update(changes)
    d["map"] = m
    return d


BROKEN_RECORDS = {
    "a number too long to read": (lambda: '{"seed": ' + "1" * 5000 + "}", "must be JSON that Python reads: Exceeds the limit"),
    "not UTF-8": (lambda: json.dumps(_small_record()).replace('"a"', '"\u00e9"').encode("latin-1"), "byte .* is not UTF-8"),
    "deeply nested": (
        lambda: json.dumps({**_small_record(), "meta": {}}).replace("{}", "[" * 50_000 + "]" * 50_000),
        "nests too deeply",
    ),
    "a negative seed": (lambda: {**_small_record(), "seed": -4}, r"'seed' must be an integer >= 0"),
    "a float seed": (lambda: {**_small_record(), "seed": 3.0}, r"'seed' must be int, got float"),
    "a bool seed": (lambda: {**_small_record(), "seed": True}, r"'seed' must be int, got bool"),
    "an unknown field": (lambda: {**_small_record(), "winner": 1}, r"unknown field 'winner'; a risk_env.record/1 record holds"),
    "players of another count": (lambda: {**_small_record(), "players": ["a"]}, r"names 1 players, its rules have num_players=2"),
    "a map canvas of the wrong length": (lambda: _with_map(canvas=[600]), r"rules or map are invalid: map 'small': 'canvas'"),
    "a map canvas of text": (lambda: _with_map(canvas="600x300"), r"'canvas' must be \[width, height\]"),
    "a territory xy of the wrong type": (
        lambda: _with_map(
            territories=[{**t, "xy": "12,5"} if i == 0 else t for i, t in enumerate(load_map("small").to_dict()["territories"])]
        ),
        r"'xy' must be \[x, y\]",
    ),
    "a map with a territory name move text cannot read": (
        lambda: json.loads(json.dumps(_with_map()).replace('"Ash"', '"Ash, North"')),
        r"cannot be named 'Ash, North'.*separator of the move notation",
    ),
    # (the replay's log printed the raw line break and escape sequence)
    "a player name with a line break": (
        lambda: {**_small_record(), "players": ["a\nb", "c"]},
        r"'players' must be printable text, got 'a\\nb', which holds the unprintable character '\\n'",
    ),
    "a player name with an escape sequence": (
        lambda: {**_small_record(), "players": ["a", "\x1b[31mred"]},
        r"'players' must be printable text, got '\\x1b\[31mred', which holds the unprintable character '\\x1b'",
    ),
    "a result that ended no way a recorder writes": (  # (the log said "result: bogus after 1 turns")
        lambda: {**_small_record(), "result": {**_small_record()["result"], "ended": "bogus"}},
        r"result 'ended' must be one of 'win', 'turn_limit', 'unfinished', 'stalled', 'illegal action by <agent>', "
        r"'agent error by <agent>', 'stopped after <n> actions of the agents', got 'bogus'$",
    ),
    "a result without a winner": (  # (the log's KeyError)
        lambda: {**_small_record(), "result": {"ended": "unfinished"}},
        r"'result' has no 'winner'; it holds: ended, winner, turns, moves, eliminated",
    ),
    "a result with an unknown key": (
        lambda: {**_small_record(), "result": {**_small_record()["result"], "score": 3}},
        r"'result' has an unknown key 'score'",
    ),
    "a result's turns as text": (
        lambda: {**_small_record(), "result": {**_small_record()["result"], "turns": "1"}},
        r"result 'turns' must be an integer >= 0, got '1'$",
    ),
    "a map that is a path, not a shipped map's name": (  # (the file was read)
        lambda: {**_small_record(), "map": "/etc/hostname"},
        r"'map' must be a shipped map's name \(classic, small\) or the map itself \(an object, GameMap.to_dict\(\)\), "
        r"got '/etc/hostname'$",
    ),
    "rules switches that mean nothing together": (
        lambda: {**_small_record(), "rules": {**_small_record()["rules"], "mission_target_taken": "24_territories"}},
        r"rules or map are invalid: mission_target_taken",
    ),
}


def test_a_record_whose_rules_name_another_shipped_map_is_read_with_the_map_it_played() -> None:
    """A game given a shipped map by Game(config, game_map=...) was recorded with config.map as it was (earlier
    versions wrote such records): the record's 'map' is the map played, and its rules are read with it."""
    data = {**_small_record(), "rules": {**_small_record()["rules"], "map": "classic"}}
    record = GameRecord.from_dict(data)
    assert record.map == "small" and record.rules["map"] == "small"
    assert record.game().map.num_territories == 9
    assert data["rules"]["map"] == "classic"  # (the caller's dict is left as it was)


@pytest.mark.parametrize("kind", list(BROKEN_RECORDS))
def test_broken_record_files_name_the_file(tmp_path, capsys, kind) -> None:  # type: ignore[no-untyped-def]
    make, message = BROKEN_RECORDS[kind]
    content = make()
    path = tmp_path / "broken.json"
    path.write_bytes(
        content if isinstance(content, bytes) else (content if isinstance(content, str) else json.dumps(content)).encode()
    )
    with pytest.raises(RecordError, match=message) as info:
        GameRecord.load(path)
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)
    pytest.importorskip("typer")
    from risk_env.tools.cli import main

    with pytest.raises(SystemExit) as ex:
        main(["replay", "-q", str(path)])
    assert ex.value.code not in (0, None)
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}") and err.count("\n") == 1 and "Traceback" not in err


def test_a_sound_record_still_loads() -> None:
    d = _small_record()
    rec = GameRecord.from_json(json.dumps(d).encode("utf-8"))
    assert rec.validate().players == ["a", "b"] and GameRecord.from_dict(_with_map()).verify().turn == rec.verify().turn
    with pytest.raises(RecordError, match="JSON text"):
        GameRecord.from_json(42)  # type: ignore[arg-type]


def test_what_a_recorder_writes_it_reads_back_and_what_it_could_not_is_refused_when_asked(tmp_path: Path) -> None:
    # every reason a recorder writes reads back; any other is refused when given, before the game is closed
    game = Game(num_players=2, map="small", setup="random", two_player="none")
    s = game.new_game(3)
    for ended in ("unfinished", "stalled", "illegal action by player_1", "stopped after 1 action of the agents"):
        rec = GameRecorder(game, seed=3).finish(s, ended)
        assert GameRecord.from_dict(rec.to_dict()).validate().result["ended"] == ended  # type: ignore[index]
    with pytest.raises(risk_env.ConfigError, match=r"^ended must be one of 'win', .*, got 'bogus'$"):
        GameRecorder(game, seed=3).finish(s, "bogus")
    env = Recorder(risk_env.env(num_players=2, map="small", setup="random"))
    env.reset(seed=1)
    with pytest.raises(risk_env.ConfigError, match="got 'gave up'"):
        env.finish("gave up")
    assert env.records == [] and env.finish("unfinished") is env.records[-1]
    # player labels: printable text, refused when the recorder is made
    with pytest.raises(RecordError, match=r"^a record's players must be printable text, got 'a\\tb'"):
        GameRecorder(game, seed=3, players=["a\tb", "c"])
    with pytest.raises(risk_env.ConfigError, match=r"^Recorder players must be printable text, got '\\x1b\[31mred'"):
        Recorder(risk_env.env(num_players=2, map="small"), players=["\x1b[31mred", "b"])
    # a shipped map given to a game of other rules (Game(config, game_map=...)): the record's rules say the map played
    game = Game(risk_env.RulesConfig(num_players=2, two_player="none", setup="random"), game_map=load_map("small"))
    assert game.config.map == "classic"
    rec = GameRecorder(game, seed=3).finish(game.new_game(3))
    assert rec.rules["map"] == rec.map == "small" and GameRecord.from_dict(rec.to_dict()).validate().game().map.name == "small"


def test_a_recorder_directory_that_cannot_hold_records_is_refused_when_it_is_made(tmp_path: Path) -> None:
    # (a file in its place was accepted, and the whole game played before a FileExistsError)
    blocker = tmp_path / "g.json"
    blocker.write_text("{}")
    with pytest.raises(risk_env.ConfigError) as e:
        Recorder(risk_env.env(num_players=2, map="small"), directory=blocker)
    assert str(e.value) == f"Recorder directory {str(blocker)!r}: cannot write records there: Not a directory (it is a file)"
    with pytest.raises(risk_env.ConfigError, match=r"Not a directory \('.*g\.json' is a file\)"):
        Recorder(risk_env.env(num_players=2, map="small"), directory=blocker / "sub")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json"] and blocker.read_text() == "{}"
    env = Recorder(risk_env.env(num_players=2, map="small", setup="random", turn_limit=2), directory=tmp_path / "new" / "games")
    assert not (tmp_path / "new").exists()  # (checked, nothing made before a game ends)
    _play_recorded(env, seed=4, agent_seed=0)
    assert [p.name for p in env.paths] == ["game_00000_seed4.json"] and GameRecord.load(env.paths[0]).seed == 4


def test_saving_a_record_to_a_folder_is_refused_with_the_path(tmp_path: Path) -> None:
    rec = GameRecord.from_dict(_small_record())
    with pytest.raises(risk_env.ConfigError) as e:  # (an IsADirectoryError)
        rec.save(tmp_path)
    assert str(e.value) == f"GameRecord.save: path {str(tmp_path)!r} is a folder; give a file name"
    (tmp_path / "file").write_text("x")
    with pytest.raises(risk_env.ConfigError, match=r"^GameRecord.save: path .*: cannot create the folder .*Not a directory"):
        rec.save(tmp_path / "file" / "r.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
    assert GameRecord.load(rec.save(tmp_path / "a" / "r.json")).players == ["a", "b"]


def test_a_game_recorder_refuses_a_move_it_could_not_replay_and_a_final_position_that_is_none(tmp_path: Path) -> None:
    """add("hello") was kept (and the saved record was then refused: move 1 ('hello') does not replay); add(5) and
    finish(None) were AttributeErrors; add(text, np.array(3)) a TypeError."""
    from risk_env.errors import InvalidMoveError, StateError
    from risk_env.rules.moves import Move

    game = Game(num_players=2, map="small", setup="random", two_player="none")
    s = game.new_game(5)
    gr = GameRecorder(game, 5, actions=True)
    for args, error, message in [
        (("hello",), InvalidMoveError, "GameRecorder.add: cannot read move 'hello': it must start with one of claim,"),
        ((5,), InvalidMoveError, "GameRecorder.add: give a Move or its text (such as 'end turn'), got int 5"),
        ((None,), InvalidMoveError, "GameRecorder.add: give a Move or its text (such as 'end turn'), got NoneType None"),
        ((Move.place(99, 1),), InvalidMoveError, "GameRecorder.add: Move(kind=<MoveKind.PLACE: 1>, src=99,"),
        (("place Ash 1", None), risk_env.ConfigError, "GameRecorder.add: actions must be a list of action ids (integers)"),
        (("place Ash 1", [1.5]), risk_env.ConfigError, "GameRecorder.add: actions must be a list of action ids (integers)"),
        (("place Ash 1", [True]), risk_env.ConfigError, "GameRecorder.add: actions must be a list of action ids (integers)"),
        (  # (a TypeError: iteration over a 0-d array)
            ("place Ash 1", np.array(3)),
            risk_env.ConfigError,
            "GameRecorder.add: actions must be a list of action ids (integers), got ndarray array(3)",
        ),
        (("place Ash 1", np.array([[1, 2]])), risk_env.ConfigError, "GameRecorder.add: actions must be a list of action ids"),
    ]:
        with pytest.raises(risk_env.RiskError) as e:
            gr.add(*args)
        assert type(e.value) is error and str(e.value).startswith(message), (args, e.value)
    assert gr.record.moves == [] and gr.record.actions == []  # nothing added
    with pytest.raises(StateError) as info:
        gr.finish(None)  # type: ignore[arg-type]
    assert str(info.value) == "GameRecorder.finish: give the final position, a GameState, got NoneType None"
    with pytest.raises(StateError, match="this position has 9 territories and 3 players; this game has 9 territories"):
        gr.finish(Game(num_players=3, map="small", setup="random").new_game(1))
    assert gr.record.result is None
    gr.add("place Ash 1", np.array([0]))  # (action ids as a numpy array, as a codec loop collects them)
    assert gr.record.moves == ["place Ash 1"] and gr.record.actions == [0]
    # a text the game reads is kept as given, a Move as its text; the record reads back and replays
    gr = GameRecorder(game, 5)
    move = game.legal_moves(s)[0]
    text = game.move_to_text(move)
    game.apply(s, move)
    gr.add(text.upper())
    move = game.legal_moves(s)[0]
    game.apply(s, move)
    gr.add(move)
    path = gr.finish(s).save(tmp_path / "gr.json")
    back = GameRecord.load(path)
    assert back.moves == [text.upper(), game.move_to_text(move)]
    assert same_position(back.verify(), s)


def test_bad_paths_and_player_labels_are_refused_up_front(tmp_path: Path) -> None:
    """GameRecord.load of no file name raised TypeError or ValueError (or read the working folder for ''); a recorder
    given labels for another player count wrote records that were refused when read."""
    for path, refusal in [
        (None, "give a file name as text or a pathlib.Path, got NoneType None"),
        (3, "got int 3"),
        (b"g.json", "got bytes"),
        ("g\0.json", "is no file name"),
        ("", "'' is no file name"),
    ]:
        with pytest.raises(RecordError, match=refusal):
            GameRecord.load(path)  # type: ignore[arg-type]
    game = Game(num_players=2, map="small")
    with pytest.raises(RecordError, match=r"one label per player: 2 for these rules, got 1"):
        GameRecorder(game, 1, players=["a"])
    env = risk_env.env(num_players=2, map="small")
    with pytest.raises(risk_env.ConfigError, match=r"^Recorder players: give one label per player, 2 for this env, got 3$"):
        Recorder(env, directory=tmp_path / "d", players=["a", "b", "c"])
    assert not (tmp_path / "d").exists()
    rec = GameRecorder(game, 1, players=["a", "b"]).finish(game.new_game(1), "unfinished")
    assert GameRecord.from_json(rec.to_json()).players == ["a", "b"]
