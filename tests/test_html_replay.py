"""The HTML replay page (risk_env.records.html): self-contained, one frame per position that matches the replay,
the move list and the log's words. The page in a real browser: tests/test_browser.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import run_cli

from risk_env import ConfigError
from risk_env.records.html import replay_page, write_replay_page
from risk_env.records.record import GameRecord, replay
from risk_env.records.replay import log_entries

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def record() -> GameRecord:
    return GameRecord.load(ROOT / "docs" / "board.json")


def _data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert m is not None
    return json.loads(m.group(1))


def test_frames_match_every_replayed_position(record: GameRecord) -> None:
    page = replay_page(record)
    data = _data(page)
    states = list(replay(record))
    assert data["moves"] == len(record.moves) and len(data["frames"]) == len(states) == len(record.moves) + 1
    for frame, s in zip(data["frames"], states, strict=True):
        assert frame["owner"] == [int(o) for o in s.owner] and frame["armies"] == [int(a) for a in s.armies]
    last = data["frames"][-1]
    assert last["title"] == "game over: turn limit" and last["last"][0].startswith(record.moves[-1][:20])
    # each game turn's first move is a place to jump to (Page Up / Page Down)
    starts = [e.step.index - 1 for e in log_entries(record) if e.header]
    assert data["turns"] == sorted({0, *starts})


def test_move_list_and_result(record: GameRecord) -> None:
    page = replay_page(record)
    texts = re.findall(r'<li class="move" data-k="(\d+)">.*?<span class="text">(.*?)</span>', page)
    assert [int(k) for k, _ in texts] == list(range(1, len(record.moves) + 1))
    assert [t.replace("&gt;", ">") for _, t in texts] == record.moves
    assert page.count('<li class="turn">') == 15  # the setup and 14 game turns
    assert '<p id="result">turn limit reached after 14 turns and 267 moves</p>' in page
    assert "<title>Risk replay: map classic, 4 players, seed 1</title>" in page
    # the figures chart: one line per seat in each of its two charts
    assert page.count("<polyline ") == 2 * 4


def test_the_page_is_self_contained(record: GameRecord) -> None:
    page = replay_page(record)
    assert not re.search(r"<(link|img|iframe)\b", page) and not re.search(r"\ssrc=", page)
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls == {"http://www.w3.org/2000/svg"}  # the SVG namespace, which is not fetched
    assert page.count("<script") == 3 and "riskBoard" in page


def test_upto_and_writing(record: GameRecord, tmp_path: Path) -> None:
    page = replay_page(record, upto=50)
    data = _data(page)
    assert len(data["frames"]) == 51 and 'id="result"' not in page and data["moves"] == 50
    with pytest.raises(ValueError, match="upto"):
        replay_page(record, upto=len(record.moves) + 1)
    out = write_replay_page(record, tmp_path / "new" / "r.html", title="my game")
    assert "<title>my game</title>" in out.read_text(encoding="utf-8")
    target = tmp_path / "cli.html"
    code, out, _ = run_cli("replay", ROOT / "docs" / "board.json", "-q", "--html", target, "--upto", "30")
    assert code == 0 and f"wrote {target} (30 moves; open it in a browser)" in out
    assert len(_data(target.read_text(encoding="utf-8"))["frames"]) == 31


def test_risk_env_replay_html(tmp_path: Path) -> None:
    target = tmp_path / "out" / "game.html"
    code, out, err = run_cli("replay", ROOT / "docs" / "board.json", "-q", "--html", target)
    assert code == 0, err
    assert f"wrote {target} (267 moves" in out and len(_data(target.read_text(encoding="utf-8"))["frames"]) == 268
    code, out, err = run_cli("replay", ROOT / "docs" / "board.json", "-q", "--html", tmp_path / "game.png")
    assert code == 2 and err == f"error: --html '{tmp_path / 'game.png'}' must end in .html or .htm\n"
    assert not (tmp_path / "game.png").exists()


def test_writing_the_page_to_a_folder_is_refused_before_the_replay(record: GameRecord, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as e:  # (an IsADirectoryError, after the whole game was replayed and drawn)
        write_replay_page(record, tmp_path)
    assert str(e.value) == f"write_replay_page: path {str(tmp_path)!r} is a folder; give a file name"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match=r"^write_replay_page: path .*: cannot create the folder .*Not a directory"):
        write_replay_page(record, tmp_path / "file" / "r.html")
    assert [p.name for p in tmp_path.iterdir()] == ["file"]
