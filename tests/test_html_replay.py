"""The HTML replay page (risk_env.records.html): self-contained, one frame per position that matches the replay,
the move list and the log's words. The page in a real browser: tests/test_browser.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from risk_env.records.html import replay_page, write_replay_page
from risk_env.records.record import GameRecord, replay
from risk_env.records.replay import log_entries, main

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


def test_upto_and_writing(record: GameRecord, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = replay_page(record, upto=50)
    data = _data(page)
    assert len(data["frames"]) == 51 and 'id="result"' not in page and data["moves"] == 50
    with pytest.raises(ValueError, match="upto"):
        replay_page(record, upto=len(record.moves) + 1)
    out = write_replay_page(record, tmp_path / "new" / "r.html", title="my game")
    assert "<title>my game</title>" in out.read_text(encoding="utf-8")
    target = tmp_path / "cli.html"
    assert main([str(ROOT / "docs" / "board.json"), "-q", "--html", str(target), "--upto", "30"]) == 0
    assert f"wrote {target} (30 moves; open it in a browser)" in capsys.readouterr().out
    assert len(_data(target.read_text(encoding="utf-8"))["frames"]) == 31


def test_risk_env_replay_html(record: GameRecord, tmp_path: Path) -> None:
    pytest.importorskip("typer", reason="the risk-env command needs typer (the cli extra)")
    from typer.testing import CliRunner

    from risk_env.tools.cli import app

    runner = CliRunner()
    target = tmp_path / "out" / "game.html"
    res = runner.invoke(app, ["replay", str(ROOT / "docs" / "board.json"), "-q", "--html", str(target)])
    assert res.exit_code == 0, res.output
    assert f"wrote {target} (267 moves" in res.output and len(_data(target.read_text(encoding="utf-8"))["frames"]) == 268
    res = runner.invoke(app, ["replay", str(ROOT / "docs" / "board.json"), "-q", "--html", str(tmp_path / "game.png")])
    assert res.exit_code == 2 and "--html" in res.output and "must end in .html or .htm" in res.output
