"""Pictures of a position as SVG: plain text, no matplotlib.

The SVG picture is drawn from the same layout as the raster one
(:class:`~risk_env.records.layout.MapGeometry`: the territories' regions,
coasts, sea lanes, names and markers) and shows the same things
(:func:`risk_env.records.picture.describe`): each territory in its owner's
colour with its army count, the last move or the pending battle (an arrow
with its dice, a ring for a placement), the codec's pending selection (a ring
on a chosen source, a dashed arrow to a chosen target), a star on each
territory a variant marks (a capital), and a side panel with each player's territories, armies and cards, who holds each
continent, the last move and the last roll.

>>> from risk_env import Game
>>> game = Game(num_players=3, setup="random", map="small")
>>> svg = board_svg(game, game.new_game(seed=0))
>>> svg.startswith("<svg") and 'id="t0"' in svg
True

Jupyter shows a position by itself: the AEC env (``risk_env.env(...)``), a
:class:`~risk_env.envs.view.GameView` and a :class:`Position` have
``_repr_svg_``, and :meth:`GameRecord.position <risk_env.records.record.GameRecord.position>`
gives the position after any move of a record.

Every element that changes between positions has an id (``t<i>`` the region
of territory ``i``, ``m<i>`` its marker, ``n<i>`` its army number, ``r<i>``
its ring, ``arrow``, ``title``, ``row<seat>``...) and :meth:`BoardSvg.frame`
gives, as JSON-compatible data, what those elements show for a position. The
HTML replay (:mod:`risk_env.records.html`) and the web app
(:mod:`risk_env.web`) draw the board once and then apply frames to it with
the small script :data:`BOARD_JS` (which sets attributes and texts, and
nothing else); ``BoardSvg.svg`` writes the same values into the text.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

from .._output import check_output_file, check_suffix, write_text_file
from ..envs.codec import Selection
from ..errors import ConfigError
from ..rules.engine import Game
from ..rules.state import GameState
from .layout import (
    CONTINENT_TINTS,
    INK_COLOR,
    MIN_HEIGHT_PX,
    PANEL_COLOR,
    PANEL_PX,
    PX_PER_PT,
    RING_COLOR,
    SEA_COLOR,
    UNCLAIMED_COLOR,
    hex_color,
    map_geometry,
    mix,
    text_color,
)
from .picture import Picture, describe, seat_colors, seat_labels

__all__ = ["BoardSvg", "Position", "board_svg", "BOARD_JS"]

BOARD_JS: str = resources.files(__package__).joinpath("assets/board.js").read_text(encoding="utf-8")
"""The script that applies a :meth:`BoardSvg.frame` to the board's SVG in a page: ``riskBoard.apply(svgElement, frame)``."""

_FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
_GREY = "#7a7a7a"
_HALO = 'stroke="#ffffff" stroke-width="{w}" stroke-linejoin="round" paint-order="stroke"'


def _n(v: float) -> str:
    """A coordinate with one decimal (no trailing ``.0``)."""
    r = round(float(v), 1)
    return str(int(r)) if r == int(r) else f"{r:.1f}"


def _path(loops: Sequence[np.ndarray]) -> str:
    """SVG path data of closed polygons."""
    parts = []
    for loop in loops:
        pts = " ".join(f"{_n(x)} {_n(y)}" for x, y in loop)
        parts.append(f"M{pts}Z")
    return "".join(parts)


def _attr(value: str) -> str:
    return escape(value, {'"': "&quot;"})


@dataclass(frozen=True)
class _Panel:
    """Where the panel's parts go (pixels; the panel starts at x = the map's width)."""

    x0: float
    rows_y: tuple[float, ...]
    cont_xy: tuple[tuple[float, float], ...]
    last_y: float
    roll_y: float
    recent_y: float
    recent_lines: int
    foot_y: float


class BoardSvg:
    """Draws positions of one :class:`~risk_env.rules.engine.Game` as SVG text.

    Args:
        game: the game (its map gives the layout).
        player_names: a label per player seat (default ``player_0``...; at most 10 characters are shown).
        panel: draw the side panel (players, continents, last move); False draws the map alone.

    The picture is ``(max(map height, 480), 1300)`` pixels with the panel (540 x 1300 on the classic
    map), ``(map height, 1000)`` without. The first picture of a map computes its layout (a few
    tenths of a second, then cached); a picture then takes a few milliseconds.

    Raises:
        ConfigError: ``player_names`` is not a list of printable texts (a str is refused: it is not a list of names)
            or has the wrong length (:func:`~risk_env.records.picture.seat_labels`, as for the raster picture).
    """

    def __init__(self, game: Game, player_names: Sequence[str] | None = None, panel: bool = True) -> None:
        self.game = game
        self.geometry = g = map_geometry(game.map)
        self._player_names = seat_labels(game, player_names)[: game.num_players]
        self.names = seat_labels(game, player_names)
        self.colors = seat_colors(game)
        self.panel = panel
        Hm, Wm = g.shape
        self.size = (max(Hm, MIN_HEIGHT_PX), Wm + PANEL_PX) if panel else (Hm, Wm)
        self._layout = self._panel_layout()
        self._palette = self.palette()
        self._static = self._static_map()

    # ------------------------------------------------------------------ the frame
    def frame(
        self, state: GameState, last_move: str = "", recent: Sequence[str] = (), selection: Selection | None = None
    ) -> dict[str, Any]:
        """What the board's changing elements show for ``state``, as JSON-compatible data (:data:`BOARD_JS` applies it).

        Keys: ``owner``, ``armies`` (per territory; its colours come from :meth:`palette` by owner, an unclaimed
        territory shows no number), ``rings`` (territories ringed), ``arrow``
        (None or ``{"d", "head", "color", "dash", "label", "lx", "ly"}``), ``marks`` (per territory: the seat whose
        star marks it, a capital (docs/rules.md §8), or -1),
        and with the panel ``title``, ``subtitle``, ``rows`` (per seat: ``name``, ``territories``, ``armies``,
        ``cards``, ``turn``, ``bold``, ``out``), ``holders`` (per continent: colour or None), ``last`` (lines),
        ``roll``, ``recent`` (newest first), ``foot``.

        Raises:
            ConfigError: ``last_move`` is not a str, or ``recent`` is not a list of str
                (:func:`~risk_env.records.picture.check_moves_text`).
            StateError: ``state`` is not a position of this board's game (another map or player count).
        """
        pic = describe(self.game, state, last_move, recent, self._player_names, selection)
        return self._frame(pic)

    def palette(self) -> dict[str, list[str]]:
        """The colours of a territory by its owner: ``fill`` (region), ``marker``, ``edge`` (the marker's rim), ``ink``
        (the army number), each a list indexed by ``owner + 1`` (entry 0: unclaimed)."""
        fill, marker, edge, ink = [UNCLAIMED_COLOR], ["#ffffff"], ["#9a9a9a"], [INK_COLOR]
        for col in self.colors:
            fill.append(hex_color(mix(col, "#ffffff", 0.4)))
            marker.append(col)
            edge.append("#ffffff")
            ink.append(text_color(col))
        return {"fill": fill, "marker": marker, "edge": edge, "ink": ink}

    def _frame(self, pic: Picture) -> dict[str, Any]:
        g = self.geometry
        ringed = {pic.ring} if pic.ring >= 0 else set()
        if len(pic.selected) == 1:  # a chosen source waiting for its target or amount
            ringed.add(pic.selected[0])
        rings = sorted(ringed)
        arrow = None
        if pic.arrow is not None:
            shaft = pic.arrow
            d, head = self._arrow_path(shaft.src, shaft.dst)
            lx, ly = g.arrow_label_spot(shaft.src, shaft.dst, shaft.label, 8.5 * PX_PER_PT) if shaft.label else (0.0, 0.0)
            arrow = {
                "d": d,
                "head": head,
                "color": shaft.color,
                "dash": "7 4" if shaft.dashed else "none",
                "label": shaft.label,
                "lx": round(lx, 1),
                "ly": round(ly, 1),
            }
        marks = [-1] * self.game.T
        for t, seat in pic.marks:
            marks[t] = seat
        out: dict[str, Any] = {
            "owner": list(pic.owner),
            "armies": list(pic.armies),
            "rings": rings,
            "arrow": arrow,
            "marks": marks,
        }
        if self.panel:
            n = self._layout.recent_lines
            recent = [r if len(r) <= 42 else r[:41] + "…" for r in list(pic.recent)[-n:]] if n else []
            out.update(
                title=pic.title,
                subtitle=pic.subtitle,
                rows=[
                    {
                        "name": r.name + (" won" if r.won else "") + (" out" if r.out else ""),
                        "territories": r.territories,
                        "armies": r.armies,
                        "cards": r.cards,
                        "turn": r.on_turn,
                        "bold": r.on_turn or r.won,
                        "out": r.out,
                    }
                    for r in pic.rows
                ],
                holders=[self.colors[h] if h >= 0 else None for h in pic.holders],
                last=pic.last_move_lines(),
                roll=f"last roll: {pic.roll}" if pic.roll else "",
                recent=list(reversed(recent)),
                recent_head="before that (newest first)" if recent else "",
                foot=pic.foot,
            )
        return out

    def _arrow_path(self, a: int, b: int) -> tuple[str, str]:
        """Path data of an arrow's shaft from ``a`` to ``b`` (from the rim of ``a``'s marker to near ``b``'s) and the
        points of its head."""
        g = self.geometry
        r = g.marker_r
        pieces = [list(p) for p in g.segments(a, b)]
        first, last = pieces[0], pieces[-1]
        for piece, at_start, cut in ((first, True, r + 1), (last, False, r + 3)):
            x0, y0, x1, y1 = piece
            length = float(np.hypot(x1 - x0, y1 - y0)) or 1.0
            ux, uy = (x1 - x0) / length, (y1 - y0) / length
            if at_start:
                piece[0], piece[1] = x0 + ux * cut, y0 + uy * cut
            else:
                piece[2], piece[3] = x1 - ux * cut, y1 - uy * cut
        x0, y0, x1, y1 = last
        length = float(np.hypot(x1 - x0, y1 - y0)) or 1.0
        ux, uy = (x1 - x0) / length, (y1 - y0) / length
        hl, hw = 15.0, 7.0
        bx, by = x1 - ux * hl, y1 - uy * hl
        last[2], last[3] = x1 - ux * hl * 0.6, y1 - uy * hl * 0.6
        d = "".join(f"M{_n(p[0])} {_n(p[1])}L{_n(p[2])} {_n(p[3])}" for p in pieces)
        head = f"{_n(x1)},{_n(y1)} {_n(bx - uy * hw)},{_n(by + ux * hw)} {_n(bx + uy * hw)},{_n(by - ux * hw)}"
        return d, head

    # ------------------------------------------------------------------ the picture
    def svg(
        self,
        state: GameState,
        last_move: str = "",
        recent: Sequence[str] = (),
        selection: Selection | None = None,
        width: int | None = None,
    ) -> str:
        """The SVG picture of ``state`` (a complete ``<svg>`` element).

        Args:
            last_move: text of the last complete move (highlighted if it parses; '' for none).
            recent: texts of earlier moves, oldest first (the newest that fit are listed).
            selection: the codec's pending selection (``env.selection``), or None.
            width: the picture's displayed width in pixels (default: its own, 1300 with the panel).

        Raises:
            ConfigError: ``width`` is not None or a number of pixels >= 1 (refused before the picture is drawn);
                ``last_move`` or ``recent`` is not text (:meth:`frame`).
            StateError: ``state`` is not a position of this board's game (:meth:`frame`).
        """
        _check_width(width)
        return self.svg_for(self.frame(state, last_move, recent, selection), width)

    def svg_for(self, frame: dict[str, Any], width: int | None = None) -> str:
        """The SVG picture showing ``frame`` (from :meth:`frame`).

        Raises:
            ConfigError: ``width`` is not None or a number of pixels >= 1.
        """
        _check_width(width)
        H, W = self.size
        w = W if width is None else int(width)
        h = round(H * w / W)
        palette = _attr(json.dumps(self._palette, separators=(",", ":")))
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" class="risk-board" viewBox="0 0 {W} {H}" width="{w}" height="{h}" '
            f'font-family="{_FONT}" data-palette="{palette}">',
            self._static[0],
            self._regions_svg(frame),
            self._static[1],
            self._dynamic_map(frame),
        ]
        if self.panel:
            parts.append(self._panel_svg(frame))
        parts.append("</svg>")
        return "\n".join(parts)

    def _static_map(self) -> tuple[str, str]:
        """The parts that never change: below the regions (sea, shores, land and coasts), and above them (the boundaries
        of regions that share no border, lanes, continent labels and names). Keeps the regions' outlines."""
        g = self.geometry
        m = self.game.map
        Hm, Wm = g.shape
        H, W = self.size
        out = [f'<rect x="0" y="0" width="{Wm}" height="{H}" fill="{SEA_COLOR}"/>']
        shore = 2 * max(4, int(g.unit * 0.16))
        out.append('<g id="shores" fill="none" stroke-linejoin="round" stroke-opacity="0.33">')
        for c, loops in enumerate(g.continent_outlines):
            tint = CONTINENT_TINTS[c % len(CONTINENT_TINTS)]
            out.append(f'<path d="{_path(loops)}" stroke="{tint}" stroke-width="{shore}"/>')
        out.append("</g>")
        out.append(f'<g id="land" fill="{INK_COLOR}" stroke="{INK_COLOR}" stroke-width="2.6" stroke-linejoin="round">')
        for loops in g.continent_outlines:
            out.append(f'<path d="{_path(loops)}" fill-rule="evenodd"/>')
        out.append("</g>")
        below = "\n".join(out)
        self._regions = [
            (
                f'<path id="t{t}" class="territory" data-t="{t}" d="{_path(loops)}" fill-rule="evenodd" fill="',
                f'"><title>{_attr(name)}</title></path>',
            )
            for t, (loops, name) in enumerate(zip(g.territory_outlines, m.territory_names, strict=True))
        ]
        out = []
        if g.wall_segments:
            d = "".join(f"M{_n(a)} {_n(b)}L{_n(c)} {_n(e)}" for a, b, c, e in g.wall_segments)
            out.append(f'<path id="walls" d="{d}" stroke="{INK_COLOR}" stroke-width="2.6" stroke-linecap="square" fill="none"/>')
        lanes = "".join(f"M{_n(a)} {_n(b)}L{_n(c)} {_n(e)}" for p, q in g.lanes for a, b, c, e in g.segments(p, q))
        if lanes:
            out.append(
                f'<path id="lanes" d="{lanes}" stroke="{INK_COLOR}" stroke-width="1.3" stroke-dasharray="5.5 4" '
                'stroke-opacity="0.7" fill="none"/>'
            )
        fs = g.label_pt * PX_PER_PT
        out.append(
            f'<g id="continent-labels" font-size="{_n(fs)}" font-style="italic" font-weight="bold" text-anchor="middle" '
            f'dominant-baseline="central" {_HALO.format(w=3)} pointer-events="none">'
        )
        for c, (x, y) in enumerate(g.label_spots(fs)):
            col = hex_color(mix(CONTINENT_TINTS[c % len(CONTINENT_TINTS)], "#000000", 0.4))
            text = f"{m.continent_names[c]} +{int(m.continent_bonus[c])}"
            out.append(f'<text x="{_n(x)}" y="{_n(y)}" fill="{col}">{escape(text)}</text>')
        out.append("</g>")
        fs = g.name_pt * PX_PER_PT
        out.append(
            f'<g id="names" font-size="{_n(fs)}" text-anchor="middle" fill="#161616" {_HALO.format(w=2.4)} pointer-events="none">'
        )
        for t, lines in enumerate(g.name_lines):
            x, y = g.xy[t]
            top = y + g.marker_r + 1.5
            ys = [_n(top + fs * (0.82 + 1.08 * k)) for k in range(len(lines))]
            spans = "".join(f'<tspan x="{_n(x)}" y="{y}">{escape(line)}</tspan>' for y, line in zip(ys, lines, strict=True))
            out.append(f'<text id="name{t}">{spans}</text>')
        out.append("</g>")
        return below, "\n".join(out)

    def _regions_svg(self, f: dict[str, Any]) -> str:
        """The territories' regions, in their owners' colours."""
        fills = self._palette["fill"]
        paths = "\n".join(head + fills[o + 1] + tail for (head, tail), o in zip(self._regions, f["owner"], strict=True))
        return f'<g id="regions" stroke="#262626" stroke-opacity="0.6" stroke-width="0.9" stroke-linejoin="round">\n{paths}\n</g>'

    def _dynamic_map(self, f: dict[str, Any]) -> str:
        g = self.geometry
        r = g.marker_r
        out = [f'<g id="rings" fill="none" stroke="{RING_COLOR}" stroke-width="3.4" pointer-events="none">']
        rings = set(f["rings"])
        for t, (x, y) in enumerate(g.xy):
            shown = "inline" if t in rings else "none"
            out.append(f'<circle id="r{t}" cx="{_n(x)}" cy="{_n(y)}" r="{_n(r + 4.6)}" display="{shown}"/>')
        out.append("</g>")
        pal = self._palette
        out.append('<g id="markers" stroke-width="1.5">')
        for t, (x, y) in enumerate(g.xy):
            o = f["owner"][t] + 1
            out.append(
                f'<circle id="m{t}" class="marker" data-t="{t}" cx="{_n(x)}" cy="{_n(y)}" r="{_n(r - 0.7)}" '
                f'fill="{pal["marker"][o]}" stroke="{pal["edge"][o]}"/>'
            )
        out.append("</g>")
        fs = g.number_pt * PX_PER_PT
        out.append(
            f'<g id="numbers" font-size="{_n(fs)}" font-weight="bold" text-anchor="middle" dominant-baseline="central" '
            'pointer-events="none">'
        )
        for t, (x, y) in enumerate(g.xy):
            o, armies = f["owner"][t], f["armies"][t]
            number = str(armies) if o >= 0 else ""
            out.append(f'<text id="n{t}" x="{_n(x)}" y="{_n(y + 0.5)}" fill="{pal["ink"][o + 1]}">{number}</text>')
        out.append("</g>")
        a = f["arrow"]
        shown = "inline" if a else "none"
        d, head, color = (a["d"], a["head"], a["color"]) if a else ("M0 0", "0,0 0,0 0,0", "#000000")
        dash = a["dash"] if a else "none"
        label = escape(a["label"]) if a else ""
        lx, ly = (a["lx"], a["ly"]) if a else (0, 0)
        out.append(f'<g id="arrow" display="{shown}" pointer-events="none">')
        out.append(f'<path id="arrow-halo" d="{d}" stroke="#ffffff" stroke-width="7.5" stroke-linecap="round" fill="none"/>')
        out.append(f'<polygon id="arrow-head-halo" points="{head}" fill="#ffffff" stroke="#ffffff" stroke-width="3.5"/>')
        out.append(
            f'<path id="arrow-line" d="{d}" stroke="{color}" stroke-width="4" stroke-linecap="round" '
            f'stroke-dasharray="{dash}" fill="none"/>'
        )
        out.append(f'<polygon id="arrow-head" points="{head}" fill="{color}"/>')
        out.append(
            f'<text id="arrow-label" x="{_n(lx)}" y="{_n(ly)}" fill="{color}" font-size="{_n(8.5 * PX_PER_PT)}" '
            f'font-weight="bold" text-anchor="middle" dominant-baseline="central" {_HALO.format(w=3.5)}>{label}</text>'
        )
        out.append("</g>")
        if self.game.hooks["territory_marks"]:  # a star per territory, shown while a variant marks it (Picture.marks)
            out.append(f'<g id="marks" font-size="{_n(14 * PX_PER_PT)}" text-anchor="middle" {_HALO.format(w=2)}>')
            for t, seat in enumerate(f["marks"]):
                x, y = g.xy[t]
                shown, fill = ("inline", pal["marker"][seat + 1]) if seat >= 0 else ("none", pal["marker"][0])
                out.append(f'<text id="mark{t}" x="{_n(x)}" y="{_n(y - r - 1)}" fill="{fill}" display="{shown}">\u2605</text>')
            out.append("</g>")
        return "\n".join(out)

    # ------------------------------------------------------------------ the panel
    def _panel_layout(self) -> _Panel:
        H = self.size[0]
        x0 = float(self.geometry.shape[1] + 18)
        rows = tuple(78.0 + 19 * k for k in range(len(self.names)))
        y = 78.0 + 19 * len(self.names) + 8 + 15
        C = len(self.game.map.continent_names)
        per_col = (C + 1) // 2 if C > 4 else C
        cont = tuple((x0 + (c // per_col) * 135, y + (c % per_col) * 15) for c in range(C))
        y += per_col * 15 + 10
        recent_y = y + 76
        return _Panel(x0, rows, cont, y, y + 54, recent_y, max(0, int((H - 30 - recent_y - 14) // 14)), H - 8)

    def _panel_svg(self, f: dict[str, Any]) -> str:
        L = self._layout
        H, W = self.size
        x0 = L.x0
        Wm = self.geometry.shape[1]

        def top(y: float, fs_pt: float) -> str:  # a baseline for text whose top is at y
            return _n(y + fs_pt * PX_PER_PT * 0.8)

        def pt(v: float) -> str:
            return _n(v * PX_PER_PT)

        out = [f'<g id="panel" fill="{INK_COLOR}">', f'<rect x="{Wm}" y="0" width="{W - Wm}" height="{H}" fill="{PANEL_COLOR}"/>']
        out.append(
            f'<text id="title" x="{_n(x0)}" y="{top(14, 12.5)}" font-size="{pt(12.5)}" font-weight="bold">'
            f"{escape(f['title'])}</text>"
        )
        out.append(
            f'<text id="subtitle" x="{_n(x0)}" y="{top(36, 9)}" font-size="{pt(9)}" fill="#444444">{escape(f["subtitle"])}</text>'
        )
        cols = (x0 + 19, x0 + 182, x0 + 225, x0 + 262)
        head = ("player", "terr", "armies", "cards")
        out.append(f'<g font-size="{pt(8)}" fill="{_GREY}">')
        for k, (x, text) in enumerate(zip(cols, head, strict=True)):
            anchor = ' text-anchor="end"' if k else ""
            out.append(f'<text x="{_n(x)}" y="{top(62, 8)}"{anchor}>{text}</text>')
        out.append("</g>")
        for seat, (y, row) in enumerate(zip(L.rows_y, f["rows"], strict=True)):
            base = top(y, 8)
            color = "#a0a0a0" if row["out"] else INK_COLOR
            weight = "bold" if row["bold"] else "normal"
            opacity = "0.3" if row["out"] else "1"
            out.append(
                f'<g id="row{seat}" font-size="{pt(8)}" fill="{color}" font-weight="{weight}">'
                f'<text id="turn{seat}" x="{_n(x0 - 14)}" y="{top(y - 1, 10)}" font-size="{pt(10)}" fill="{INK_COLOR}">'
                f"{'▶' if row['turn'] else ''}</text>"
                f'<rect id="swatch{seat}" x="{_n(x0)}" y="{_n(y + 1)}" width="12" height="12" fill="{self.colors[seat]}" '
                f'stroke="#ffffff" stroke-width="0.8" fill-opacity="{opacity}"/>'
                f'<text id="row{seat}-name" x="{_n(cols[0])}" y="{base}">{escape(row["name"])}</text>'
                f'<text id="row{seat}-territories" x="{_n(cols[1])}" y="{base}" text-anchor="end">{row["territories"]}</text>'
                f'<text id="row{seat}-armies" x="{_n(cols[2])}" y="{base}" text-anchor="end">{row["armies"]}</text>'
                f'<text id="row{seat}-cards" x="{_n(cols[3])}" y="{base}" text-anchor="end">{row["cards"]}</text></g>'
            )
        y_head = L.rows_y[-1] + 19 + 8 if L.rows_y else 78
        out.append(
            f'<text x="{_n(x0)}" y="{top(y_head, 7.5)}" font-size="{pt(7.5)}" fill="{_GREY}">'
            "continents (swatch: who holds it)</text>"
        )
        m = self.game.map
        for c, (cx, cy) in enumerate(L.cont_xy):
            holder = f["holders"][c]
            fill, stroke = (holder, "#ffffff") if holder else ("none", "#aaaaaa")
            text = f"{m.continent_names[c]} +{int(m.continent_bonus[c])}"[:22]
            out.append(
                f'<rect id="holder{c}" x="{_n(cx)}" y="{_n(cy + 2)}" width="9" height="9" fill="{fill}" stroke="{stroke}" '
                f'stroke-width="0.8"/><text x="{_n(cx + 14)}" y="{top(cy, 7.8)}" font-size="{pt(7.8)}">{escape(text)}</text>'
            )
        out.append(f'<text x="{_n(x0)}" y="{top(L.last_y, 7.5)}" font-size="{pt(7.5)}" fill="{_GREY}">last move</text>')
        spans = "".join(
            f'<tspan x="{_n(x0)}" y="{top(L.last_y + 14 + 16 * k, 9)}">{escape(line)}</tspan>' for k, line in enumerate(f["last"])
        )
        out.append(f'<text id="last" font-size="{pt(9)}" font-weight="bold">{spans}</text>')
        out.append(
            f'<text id="roll" x="{_n(x0)}" y="{top(L.roll_y, 8.5)}" font-size="{pt(8.5)}" fill="#444444" '
            f'style="white-space: pre">{escape(f["roll"])}</text>'
        )
        out.append(
            f'<text id="recent-head" x="{_n(x0)}" y="{top(L.recent_y, 7.5)}" font-size="{pt(7.5)}" fill="{_GREY}">'
            f"{escape(f['recent_head'])}</text>"
        )
        out.append(f'<g id="recent" font-size="{pt(7.8)}" fill="#444444">')
        for k in range(L.recent_lines):
            text = escape(f["recent"][k]) if k < len(f["recent"]) else ""
            out.append(f'<text id="recent{k}" x="{_n(x0)}" y="{top(L.recent_y + 14 + 14 * k, 7.8)}">{text}</text>')
        out.append("</g>")
        foot = escape(f["foot"])
        out.append(f'<text id="foot" x="{_n(x0)}" y="{_n(L.foot_y)}" font-size="{pt(7.5)}" fill="{_GREY}">{foot}</text>')
        out.append("</g>")
        return "\n".join(out)


def _check_width(width: object) -> None:
    """Refuse a picture ``width`` that is not None or a finite number of pixels >= 1.

    Raises:
        ConfigError: the message names the width given and what is allowed.
    """
    if width is None:
        return
    if isinstance(width, (int, float, np.integer, np.floating)) and not isinstance(width, (bool, np.bool_)):
        if math.isfinite(width) and width >= 1:
            return
    raise ConfigError(f"width must be None (the picture's own) or a number of pixels >= 1, got {width!r:.60}")


def board_svg(
    game: Game,
    state: GameState,
    last_move: str = "",
    recent: Sequence[str] = (),
    selection: Selection | None = None,
    player_names: Sequence[str] | None = None,
    width: int | None = None,
) -> str:
    """The SVG picture of ``state`` (see :class:`BoardSvg`; keep one to draw many positions of a game).

    Raises:
        ConfigError: ``width`` is not None or a number of pixels >= 1 (refused before the picture is drawn);
            ``player_names`` is not a list of printable texts, one per player seat; ``last_move`` or ``recent`` is
            not text.
        StateError: ``state`` is not a position of ``game`` (another map or player count).
    """
    _check_width(width)
    return BoardSvg(game, player_names).svg(state, last_move, recent, selection, width)


@dataclass(frozen=True)
class Position:
    """A position of a game, shown as its board: in Jupyter by itself (``_repr_svg_``), or as SVG text.

    Attributes:
        game: the :class:`~risk_env.rules.engine.Game`; state: the :class:`~risk_env.rules.state.GameState`.
        last_move: text of the last move, highlighted ('' for none); recent: earlier moves, oldest first.
        selection: the codec's pending selection, or None; player_names: a label per player seat, or None.

    >>> from risk_env import Game
    >>> game = Game(num_players=2, map="small", setup="random")
    >>> Position(game, game.new_game(seed=1)).svg().count('class="territory"') == game.map.num_territories
    True
    """

    game: Game
    state: GameState
    last_move: str = ""
    recent: tuple[str, ...] = ()
    selection: Selection | None = None
    player_names: tuple[str, ...] | None = None

    def svg(self, width: int | None = None) -> str:
        """The board as an ``<svg>`` element (``width``: displayed width in pixels; default 1300).

        Raises:
            ConfigError: ``width`` is not None or a number of pixels >= 1.
        """
        return board_svg(self.game, self.state, self.last_move, self.recent, self.selection, self.player_names, width)

    def _repr_svg_(self) -> str:
        return self.svg()

    def save_svg(self, path: str | os.PathLike[str]) -> Path:
        """Write the board to an ``.svg`` file (missing parent folders are created). Returns the path.

        Raises:
            ConfigError: ``path`` does not end in ``.svg`` (a PNG picture is :meth:`BoardRenderer.save_png
                <risk_env.records.draw.BoardRenderer.save_png>`'s), is a folder, its folder cannot be made, or the
                file cannot be written there (:func:`risk_env._output.check_output_file`); checked before the board
                is drawn, the message names the path.
        """
        option = "Position.save_svg: path"
        check_output_file(path, option)
        check_suffix(
            path, option, ".svg", "this writes SVG text; BoardRenderer.save_png of risk_env.records.draw writes a PNG picture"
        )
        return write_text_file(path, '<?xml version="1.0" encoding="UTF-8"?>\n' + self.svg() + "\n", option)
