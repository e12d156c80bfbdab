"""A game record as one self-contained HTML page: the board, the move list, each player's figures over the
game, and controls to step, play and scrub through it.

    risk-env replay game.json --html game.html
    python scripts/replay.py game.json --html game.html --upto 300

The page needs nothing else: its script, style and pictures are inline, so it opens from a file, offline, and
can be shared as one file. The positions are computed here, by replaying the record
(:func:`~risk_env.records.replay.log_entries`); the page holds one frame per position
(:meth:`BoardSvg.frame <risk_env.records.svg.BoardSvg.frame>`, about 1.5 KB each on the classic map) and its
script only shows them (:data:`~risk_env.records.svg.BOARD_JS`).

Controls: the buttons (first, back, play/pause, forward, last), the slider, a click on a move in the list,
and the keys ← → (a move), Page Up / Page Down (a game turn), Home / End, space (play/pause).

>>> import risk_env
>>> from risk_env.agents import RandomAgent
>>> from risk_env.tools.match import play_match
>>> env = risk_env.raw_env(num_players=2, map="small", setup="random", turn_limit=3)
>>> rec = play_match(env, [RandomAgent(), RandomAgent()], seed=1, record=True).record
>>> page = replay_page(rec)
>>> page.startswith("<!DOCTYPE html>") and page.count('<li class="move') == len(rec.moves) + 1
True
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from .._output import check_output_file, write_text_file
from .record import GameRecord
from .replay import game_text, log_entries, result_text
from .svg import BOARD_JS, BoardSvg

__all__ = ["replay_page", "write_replay_page"]

_ASSETS = resources.files(__package__).joinpath("assets")


def _asset(name: str) -> str:
    return _ASSETS.joinpath(name).read_text(encoding="utf-8")


def _script_json(data: Any) -> str:
    """JSON that is safe inside a ``<script>`` element."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


def _chart(series: list[list[list[int]]], colors: list[str], names: list[str]) -> str:
    """Two small line charts (territories and armies per seat, over the positions) with a cursor each."""
    W, H, pad = 640, 150, 34
    n = max(1, len(series[0]) - 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" id="figures-chart" viewBox="0 0 {2 * W} {H}" data-n="{n}">']
    for k, (title, rows) in enumerate(zip(("territories", "armies"), series, strict=True)):
        x0 = k * W + pad
        w, h = W - pad - 12, H - 44
        top = max(1, max(max(r) for r in rows))
        parts.append(f'<text x="{x0}" y="14" class="chart-title">{title}</text>')
        parts.append(f'<text x="{x0 - 6}" y="{24 + 4}" class="chart-axis" text-anchor="end">{top}</text>')
        parts.append(f'<text x="{x0 - 6}" y="{24 + h}" class="chart-axis" text-anchor="end">0</text>')
        parts.append(f'<rect x="{x0}" y="24" width="{w}" height="{h}" class="chart-frame"/>')
        for seat, color in enumerate(colors):
            pts = " ".join(f"{x0 + w * i / n:.1f},{24 + h - h * r[seat] / top:.1f}" for i, r in enumerate(rows))
            who = escape(names[seat])
            parts.append(
                f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="1.6"><title>{who}</title></polyline>'
            )
        parts.append(
            f'<line id="cursor{k}" class="chart-cursor" x1="{x0}" x2="{x0}" y1="24" y2="{24 + h}" data-x0="{x0}" data-w="{w}"/>'
        )
    legend_x = pad
    for seat, color in enumerate(colors):
        parts.append(f'<rect x="{legend_x}" y="{H - 13}" width="10" height="10" fill="{color}"/>')
        parts.append(f'<text x="{legend_x + 14}" y="{H - 4}" class="chart-axis">{escape(names[seat])}</text>')
        legend_x += 28 + 7 * len(names[seat])
    parts.append("</svg>")
    return "\n".join(parts)


def replay_page(record: GameRecord, upto: int | None = None, title: str | None = None) -> str:
    """The HTML page that replays ``record`` (see the module docstring).

    Args:
        upto: show the game up to this many moves (default: all).
        title: the page's title (default: ``Risk replay: map classic, 4 players, seed 1``).

    Raises:
        RecordError: a move does not replay; ConfigError: ``upto`` is not in ``0..len(record.moves)``.
    """
    game = record.game()
    board = BoardSvg(game, record.player_labels())
    start = record.initial_state(game)
    seats = range(game.num_seats)
    frames = [board.frame(start)]
    figures: list[list[list[int]]] = [[], []]

    def count(s: Any) -> None:
        figures[0].append([int((s.owner == p).sum()) for p in seats])
        figures[1].append([int(s.armies[s.owner == p].sum()) for p in seats])

    count(start)
    items = []
    turn_starts = [0]
    for e in log_entries(record, upto, game):
        k = e.step.index
        frames.append(board.frame(e.step.state, e.step.text))
        count(e.step.state)
        if e.header:
            items.append(f'<li class="turn">{escape(e.header)}</li>')
            turn_starts.append(k - 1)
        note = f' <span class="note">{escape(e.note)}</span>' if e.note else ""
        seat = e.step.seat
        items.append(
            f'<li class="move" data-k="{k}"><span class="num">{k}</span> '
            f'<span class="who" style="border-color:{board.colors[seat]}">{escape(e.who)}</span> '
            f'<span class="text">{escape(e.step.text)}</span>{note}</li>'
        )
    shown = len(frames) - 1
    done = shown == len(record.moves)
    result = result_text(record, game) if done else ""
    heading = title or f"Risk replay: map {game.map.name}, {game.num_players} players, seed {record.seed}"
    summary = game_text(record, game)
    labels = [board.names[p] for p in seats]
    data = {"frames": frames, "turns": sorted(set(turn_starts)), "moves": shown}
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(heading)}</title>",
            f"<style>\n{_asset('replay.css')}</style>",
            "</head>",
            "<body>",
            f'<header><h1>{escape(heading)}</h1><p id="summary">{escape(summary)}</p>'
            + (f'<p id="result">{escape(result)}</p>' if result else "")
            + "</header>",
            '<main id="replay">',
            f'<section id="board">{board.svg_for(frames[0])}</section>',
            '<aside id="moves"><h2>Moves</h2><ol id="move-list">\n<li class="move current" data-k="0">'
            '<span class="num">0</span> <span class="text">the start</span></li>\n' + "\n".join(items) + "</ol></aside>",
            "</main>",
            '<nav id="controls" aria-label="replay controls">'
            '<button id="first" title="the start (Home)">|&#x25C0;</button>'
            '<button id="prev" title="back a move (&#x2190;)">&#x25C0;</button>'
            '<button id="play" title="play / pause (space)">&#x25B6;</button>'
            '<button id="next" title="forward a move (&#x2192;)">&#x25B6;&#x25B6;</button>'
            '<button id="last" title="the end (End)">&#x25B6;|</button>'
            f'<input id="scrub" type="range" min="0" max="{shown}" value="0" aria-label="move">'
            f'<span id="where">move 0 / {shown}</span>'
            '<label>speed <select id="speed"><option value="1000">1 move/s</option>'
            '<option value="250" selected>4 moves/s</option><option value="60">16 moves/s</option>'
            '<option value="15">60 moves/s</option></select></label>'
            "</nav>",
            f'<section id="figures"><h2>Each player\'s figures</h2>{_chart(figures, board.colors, labels)}</section>',
            f"<script>\n{BOARD_JS}</script>",
            f'<script type="application/json" id="replay-data">{_script_json(data)}</script>',
            f"<script>\n{_asset('replay.js')}</script>",
            "</body>",
            "</html>",
        ]
    )


def write_replay_page(
    record: GameRecord, path: str | os.PathLike[str], upto: int | None = None, title: str | None = None
) -> Path:
    """Write :func:`replay_page` of ``record`` to ``path`` (missing parent folders are created). Returns the path.

    Raises:
        RecordError: a move does not replay.
        ConfigError: bad ``upto``; ``path`` is empty or a folder, its folder cannot be made, or the file cannot be
            written there (:func:`risk_env._output.check_output_file`: checked before the game is replayed; the
            message names the path and the reason).
    """
    check_output_file(path, "write_replay_page: path")
    return write_text_file(path, replay_page(record, upto, title), "write_replay_page: path")
