"""The example notebook runs (through a Jupyter kernel, as a person would run it) and shows positions as boards."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import risk_env

nbformat = pytest.importorskip("nbformat", reason="running notebooks needs nbformat (the dev extra)")
nbclient = pytest.importorskip("nbclient", reason="running notebooks needs nbclient (the dev extra)")
pytest.importorskip("ipykernel", reason="running notebooks needs ipykernel (the dev extra)")

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "positions.ipynb"
NS = "{http://www.w3.org/2000/svg}"


def _board(output: dict) -> dict[str, str]:
    """Territory number texts and panel texts of an SVG output, by element id."""
    root = ET.fromstring(output["data"]["image/svg+xml"])
    return {el.get("id", ""): "".join(el.itertext()) for el in root.iter() if el.get("id")}


def test_the_notebook_shows_positions(tmp_path: Path) -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    results = [
        [o for o in cell.outputs if o.get("output_type") == "execute_result"] for cell in nb.cells if cell.cell_type == "code"
    ]
    errors = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs if o.get("output_type") == "error"]
    assert errors == []
    boards = [r[0] for r in results if r and "image/svg+xml" in r[0]["data"]]
    assert len(boards) == 3  # the env after reset, the env after some turns, a record's position
    # the first board is the position the env starts from with that seed
    env = risk_env.env(num_players=4, setup="random")
    env.reset(seed=1)
    first = _board(boards[0])
    s = env.unwrapped.game_state
    assert [first[f"n{t}"] for t in range(env.unwrapped.game.T)] == [str(a) for a in s.armies]
    assert first["title"] == "turn 1 · reinforce"
    # the second shows an attack of turn 9 or later, with its arrow and dice
    second = _board(boards[1])
    assert re.match(r"[1-3] (die|dice)", second["arrow-label"]) and int(second["title"].split()[1]) > 8
    # the third is move 25 of a game on the small map
    third = _board(boards[2])
    assert third["foot"] == "map small · 3 players · move 25" and "t8" in third and "t9" not in third
