"""The README's recipes run as written: its Python snippets, the command behind its board
picture (the committed record must be the game that command plays), and its test command
being the one CI runs; the docs index listing every page."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def snippet(name: str) -> str:
    """The ```python block that follows ``<!-- snippet: name -->`` in the README."""
    m = re.search(rf"<!-- snippet: {name} -->\s*```python\n(.*?)```", README, re.S)
    assert m, f"README has no snippet {name!r}"
    return m.group(1)


def _run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"__name__": "__readme__"})
    return out.getvalue()


def test_usage_snippet_prints_what_the_readme_says() -> None:
    out = _run(snippet("usage")).splitlines()
    assert out[0] == "1000 turns, winner: none (turn limit)"  # as the README's text says
    assert out[1] == str({f"player_{i}": 0.0 for i in range(4)})


def test_vector_snippet_prints_the_shapes_it_names() -> None:
    pytest.importorskip("torch")
    out = _run(snippet("vector")).strip()
    assert out == "torch.Size([1024, 427]) torch.Size([1024, 70]) torch.Size([1024, 4])"


def test_heuristics_snippet_plays_to_a_winner() -> None:
    out = _run(snippet("heuristics")).strip()
    assert re.fullmatch(r"player_[0-3] \((aggressive|continent|balanced|random)\) wins after \d+ turns", out), out


def _watch_command() -> list[str]:
    line = next(ln for ln in README.splitlines() if ln.startswith("risk-env watch ") and "docs/board.png" in ln)
    return shlex.split(line)[1:]


def test_the_board_picture_comes_from_the_readme_command(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("typer")
    pytest.importorskip("matplotlib")
    from PIL import Image

    from risk_env.records.record import GameRecord
    from risk_env.tools.cli import main

    args = _watch_command()
    turns = args[args.index("--turns") + 1]
    assert f"![A game after {turns} turns on the classic map](https://risk-env.github.io/risk_env/board.png)" in README
    png, rec = tmp_path / "board.png", tmp_path / "board.json"
    args = [str(png) if a == "docs/board.png" else str(rec) if a == "docs/board.json" else a for a in args]
    assert str(png) in args and str(rec) in args, "the README command writes docs/board.png and docs/board.json"
    with contextlib.redirect_stdout(io.StringIO()):
        with pytest.raises(SystemExit) as ex:
            main(args)
    assert ex.value.code in (0, None)
    committed = GameRecord.load(ROOT / "docs" / "board.json")
    played = GameRecord.load(rec)
    assert played.moves == committed.moves and played.result == committed.result, (
        "the README's watch command no longer plays the game in docs/board.png: run it again to redraw the picture"
    )
    assert Image.open(ROOT / "docs" / "board.png").size == Image.open(png).size == (1300, 540)


def test_the_readme_test_command_is_what_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    block = re.search(r"# 2\. set up and run the tests\n(.+)\n", README)
    assert block, "README lost its test command"
    assert block.group(1).strip() in ci


def test_the_committed_board_record_has_the_current_format() -> None:
    import json

    from risk_env.records.record import RECORD_FORMAT

    assert json.loads((ROOT / "docs" / "board.json").read_text(encoding="utf-8"))["format"] == RECORD_FORMAT


def test_the_extras_tables_name_every_extra() -> None:
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"])
    assert "clients" in extras
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for name, text in (("README.md", README), ("CONTRIBUTING.md", contributing)):
        cells = [c.strip() for line in text.splitlines() if line.startswith("|") for c in line.split("|")]
        rows = {c.strip("`") for c in cells if re.fullmatch(r"`\w+`", c)}
        assert extras <= rows, f"{name}'s extras table lacks {sorted(extras - rows)}"


def test_the_core_row_names_every_core_dependency() -> None:
    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    names = {re.split(r"[<>=!~\[ ;]", d, maxsplit=1)[0].lower() for d in deps}
    (row,) = [line for line in README.splitlines() if line.startswith("|") and "| (core) |" in line]
    assert {x.strip() for x in row.rstrip(" |").rsplit("|", 1)[1].split(",")} == names  # pyyaml was left out


def test_the_docs_index_lists_every_page() -> None:
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"README.md"}
    assert pages <= listed, f"docs/README.md does not list {sorted(pages - listed)}"
    assert listed <= pages, f"docs/README.md lists missing pages {sorted(listed - pages)}"
