"""Pictures of a position (``render_mode="rgb_array"`` and ``"human"``).

:class:`BoardRenderer` draws a board with matplotlib's Agg backend. Each
continent is an island of land grown around its territories' map positions
(``xy`` in the map file, on the map's ``canvas``) and the short borders
between them; each territory is the part of its continent nearest to it,
filled with its owner's colour and marked with its army count. Coasts are
outlined, each continent has a tinted shore and a label with its bonus.
Borders whose regions do not touch (between continents, or long ones) are
sea lanes, drawn dashed; a lane longer than half the board
(Alaska–Kamchatka) wraps around the left and right edges. A side panel lists
each player's territories, armies and cards, who is on turn, the phase, who
holds each continent, the last move, the last dice roll and (optionally) the
moves before it. The last move is highlighted on the map: an arrow for an
attack, a conquest or a fortification, a ring for a placement or a claim.

One figure is built per renderer and reused. Everything that never changes
(coasts, lanes, names, continent labels) is drawn once into a pixel layer
(:mod:`risk_env.records.layout`);
a frame only recolours the territories (numpy), and redraws the army
numbers, the highlight and the panel (a few tens of milliseconds).

>>> from risk_env import Game
>>> game = Game(num_players=3, setup="random", map="small")
>>> r = BoardRenderer(game)
>>> frame = r.draw(game.new_game(seed=0), "")
>>> frame.dtype, frame.shape
(dtype('uint8'), (500, 1300, 3))
>>> r.close()
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._extras import require
from .._output import check_output_file, check_suffix, make_output_folder
from ..envs.codec import Selection
from ..errors import ConfigError, check_number
from ..rules.engine import Game
from ..rules.state import GameState
from .layout import (  # the layout's colours and pixel helpers, shared with the painting
    ATTACK_COLOR,
    INK_COLOR,
    MIN_HEIGHT_PX,
    NEUTRAL_COLOR,
    PANEL_COLOR,
    PANEL_PX,
    PLAYER_COLORS,
    RING_COLOR,
    SEA_COLOR,
    UNCLAIMED_COLOR,
    disc_alpha,
    hex_rgb,
    map_layer,
    mix,
    text_color,
)
from .picture import Picture, check_state_fits, describe, seat_colors, seat_labels

__all__ = [
    "BoardRenderer",
    "PLAYER_COLORS",
    "NEUTRAL_COLOR",
    "MIN_DPI",
    "MAX_DPI",
    "NoDisplayWarning",
    "draw_board",
    "save_board_png",
]

MIN_DPI, MAX_DPI = 50, 120
"""The text resolutions a :class:`BoardRenderer` draws at. The picture's size is fixed (1000 pixels of map, a
300-pixel panel): ``dpi`` only sizes its text, which below 50 cannot be read (below 5 matplotlib cannot draw it at
all) and above 120 no longer fits the panel's columns."""


def _check_dpi(dpi: object) -> float:
    """``dpi`` as a float, where it is a number from :data:`MIN_DPI` to :data:`MAX_DPI` (:func:`risk_env.errors.check_number`).

    Raises:
        ConfigError: anything else; the message names ``dpi``, the range and what was given.
    """
    return check_number(
        dpi,
        "BoardRenderer dpi",
        f"a number from {MIN_DPI} to {MAX_DPI} (the picture's size is fixed; dpi sizes its text)",
        lambda x: MIN_DPI <= x <= MAX_DPI,
    )


class NoDisplayWarning(RuntimeWarning):
    """``render_mode="human"`` was asked for where no window can be opened (nothing is shown)."""


class BoardRenderer:
    """Draws positions of one :class:`~risk_env.rules.engine.Game` as RGB pictures.

    Args:
        game: the game (its map supplies positions, borders and continents).
        player_names: a label per player seat (default ``player_0``...; the
            2-player neutral is ``neutral``, the allied army ``allied``, in grey): a list of printable texts, at most
            10 characters of each are shown.
        dpi: text resolution, a number from :data:`MIN_DPI` (50) to :data:`MAX_DPI` (120); the picture's size does
            not change with it (the map part is always 1000 pixels wide), its text does.

    The picture is ``(max(map height, 480), 1300)`` pixels: 540 x 1300 on
    the classic map, 500 x 1300 on ``small``. The first renderer for a map
    takes about a second to build (cached for the next ones); a frame takes
    about 20-40 ms.

    Raises:
        MissingExtraError: matplotlib is missing (``pip install 'risk_env[render]'``), an ImportError.
        ConfigError: ``player_names`` is not a list of printable texts (a str is refused: it is not a list of
            names) or has the wrong length; ``dpi`` is not a number from :data:`MIN_DPI` to :data:`MAX_DPI`.
    """

    def __init__(self, game: Game, player_names: Sequence[str] | None = None, dpi: float = 100) -> None:
        dpi = _check_dpi(dpi)
        names = seat_labels(game, player_names)  # the neutral or the allied army last (docs/rules.md §7)
        require("matplotlib", "render", "drawing the board")
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.game = game
        m = game.map
        self.map = m
        self.names = names
        self._player_names = self.names[: game.num_players]
        self.colors = seat_colors(game)
        self._window: Any = None
        self.layer = map_layer(m, dpi)
        Hm, Wm = self.layer.shape
        W, H = Wm + PANEL_PX, max(Hm, MIN_HEIGHT_PX)
        self.size = (H, W)
        L = self.layer
        sea = hex_rgb(SEA_COLOR).astype(np.float32)
        self._base = np.clip(sea * (1 - L.alpha) + L.premult + 0.5, 0, 255).astype(
            np.uint8
        )  # sea and land, recoloured as owners change
        self._shown: list[str | None] = [None] * m.num_territories

        fig = Figure(figsize=(W / dpi, H / dpi), dpi=dpi, facecolor=PANEL_COLOR)
        self.fig = fig
        self.canvas = FigureCanvasAgg(fig)
        cw, ch = m.canvas
        ax = fig.add_axes((0, 1 - Hm / H, Wm / W, Hm / H))
        ax.set_axis_off()
        ax.set_xlim(0, cw)
        ax.set_ylim(ch, 0)
        self.ax = ax
        side = fig.add_axes((Wm / W, 0, 1 - Wm / W, 1))
        side.set_axis_off()
        side.set_xlim(0, PANEL_PX)
        side.set_ylim(H, 0)
        self.side = side
        if Hm < H:  # sea under a short map
            from matplotlib.patches import Rectangle

            fig.patches.append(Rectangle((0, 0), Wm / W, 1 - Hm / H, transform=fig.transFigure, color=SEA_COLOR))
        self._dynamic: list[Any] = []
        self._build_highlight()
        self._build_panel()
        for art in self._dynamic:
            art.set_animated(True)  # left out of the background, drawn per frame
        self.canvas.draw()
        self._bg = np.asarray(self.canvas.buffer_rgba()).copy()

    # ------------------------------------------------------------------ artists drawn per frame
    def _add(self, art: Any) -> Any:
        self._dynamic.append(art)
        return art

    def _build_highlight(self) -> None:
        import matplotlib.patheffects as pe
        from matplotlib.patches import FancyArrowPatch

        r = self.layer.marker_r
        self.arrows = []
        for _ in range(2):
            arr = FancyArrowPatch(
                (0, 0),
                (1, 1),
                arrowstyle="-|>",
                mutation_scale=22,
                lw=3.4,
                color=ATTACK_COLOR,
                shrinkA=r + 1,
                shrinkB=r + 3,
                path_effects=[pe.withStroke(linewidth=6, foreground="white")],
            )
            arr.set_visible(False)
            self.ax.add_patch(arr)
            self.arrows.append(self._add(arr))
        self.arrow_label = self._add(
            self.ax.text(
                0,
                0,
                "",
                ha="center",
                va="center",
                fontsize=8.5,
                fontweight="bold",
                color=ATTACK_COLOR,
                path_effects=[pe.withStroke(linewidth=3, foreground="white")],
            )
        )
        self.arrow_label.set_visible(False)
        self._rings: set[int] = set()
        # a star above each territory a variant marks (a capital, docs/rules.md §8): one per territory, shown
        # in the marking seat's colour while the variant marks it (Picture.marks)
        self.territory_stars: list[Any] = []
        if self.game.hooks["territory_marks"]:
            r = self.layer.marker_r
            for t in range(self.game.T):
                x, y = self.map.xy[t]
                star = self.ax.text(
                    x,
                    y - r,
                    "\u2605",
                    ha="center",
                    va="bottom",
                    fontsize=14,
                    path_effects=[pe.withStroke(linewidth=1.5, foreground="white")],
                )
                star.set_visible(False)
                self.territory_stars.append(self._add(star))

    def _build_panel(self) -> None:
        from matplotlib.patches import Rectangle

        side = self.side
        H = self.size[0]
        x0 = 18
        grey = "#7a7a7a"
        mono = "DejaVu Sans Mono"
        self.title = self._add(side.text(x0, 14, "", fontsize=12.5, fontweight="bold", va="top", color=INK_COLOR))
        self.subtitle = self._add(side.text(x0, 36, "", fontsize=9, va="top", color="#444444"))
        side.text(
            x0 + 19, 62, f"{'player':<14}{'terr':>5}{'armies':>7}{'cards':>6}", fontsize=8, family=mono, color=grey, va="top"
        )
        self.rows = []
        y = 78.0
        for col in self.colors:
            sw = self._add(Rectangle((x0, y + 1), 12, 12, facecolor=col, edgecolor="white", lw=0.8))
            side.add_patch(sw)
            turn = self._add(side.text(x0 - 14, y - 1, "", fontsize=10, va="top", color=INK_COLOR))
            row = self._add(side.text(x0 + 19, y, "", fontsize=8, family=mono, va="top", color=INK_COLOR))
            self.rows.append((sw, turn, row))
            y += 19
        y += 8
        side.text(x0, y, "continents (swatch: who holds it)", fontsize=7.5, color=grey, va="top")
        y += 15
        self.cont_rows = []
        C = len(self.map.continent_names)
        per_col = (C + 1) // 2 if C > 4 else C
        for c, cname in enumerate(self.map.continent_names):
            cx, cy = x0 + (c // per_col) * 135, y + (c % per_col) * 15
            sw = self._add(Rectangle((cx, cy + 2), 9, 9, facecolor="none", edgecolor="#aaaaaa", lw=0.8))
            side.add_patch(sw)
            side.text(cx + 14, cy, f"{cname} +{int(self.map.continent_bonus[c])}"[:22], fontsize=7.8, va="top", color=INK_COLOR)
            self.cont_rows.append(sw)
        y += per_col * 15 + 10
        side.text(x0, y, "last move", fontsize=7.5, color=grey, va="top")
        self.last_txt = self._add(
            side.text(x0, y + 14, "", fontsize=9, va="top", color=INK_COLOR, fontweight="bold", linespacing=1.3)
        )
        self.roll_txt = self._add(side.text(x0, y + 54, "", fontsize=8.5, va="top", color="#444444"))
        ry = y + 76
        self.recent_head = self._add(side.text(x0, ry, "", fontsize=7.5, color=grey, va="top"))
        self.recent_txt = self._add(side.text(x0, ry + 14, "", fontsize=7.8, va="top", color="#444444", linespacing=1.35))
        self._recent_lines = max(0, int((H - 30 - ry - 14) // 14))
        self.foot = self._add(side.text(x0, H - 8, "", fontsize=7.5, va="bottom", color=grey))

    # ------------------------------------------------------------------ per frame
    def _set_arrow(self, a: int, b: int, color: str, label: str, dashed: bool = False) -> None:
        g = self.layer.geometry
        s = 1 / self.layer.scale
        r = self.layer.marker_r
        pieces = g.segments(a, b)
        first, second = self.arrows
        for arr in self.arrows:
            arr.set_color(color)
            arr.set_linestyle("--" if dashed else "-")
        x0, y0, x1, y1 = pieces[0]
        first.set_positions((x0 * s, y0 * s), (x1 * s, y1 * s))
        if len(pieces) == 2:  # the lane wraps around the board's edge
            first.set_arrowstyle("-")
            first.shrinkB = 0
            x0, y0, x1, y1 = pieces[1]
            second.set_positions((x0 * s, y0 * s), (x1 * s, y1 * s))
            second.shrinkA = 0
            second.set_visible(True)
        else:
            first.set_arrowstyle("-|>")
            first.shrinkB = r + 3
            second.set_visible(False)
        first.set_visible(True)
        if label:  # beside the arrow, where it covers the fewest names and markers
            lx, ly = g.arrow_label_spot(a, b, label, self.arrow_label.get_fontsize() * self.layer.dpi / 72)
            self.arrow_label.set_position((lx * s, ly * s))
            self.arrow_label.set_text(label)
            self.arrow_label.set_color(color)
        self.arrow_label.set_visible(bool(label))

    def _highlight(self, pic: Picture) -> None:
        marked = dict(pic.marks)
        for t, star in enumerate(self.territory_stars):
            seat = marked.get(t, -1)
            star.set_visible(seat >= 0)
            if seat >= 0:
                star.set_color(self.colors[seat])
        for arr in self.arrows:
            arr.set_visible(False)
        self.arrow_label.set_visible(False)
        self._rings = {pic.ring} if pic.ring >= 0 else set()
        if len(pic.selected) == 1:
            self._rings.add(pic.selected[0])
        if pic.arrow is not None:
            arrow = pic.arrow
            self._set_arrow(arrow.src, arrow.dst, arrow.color, arrow.label, arrow.dashed)

    def _paint_map(self, s: GameState, out: np.ndarray) -> None:
        """Write the map's pixels for ``s`` into ``out`` (uint8 ``(Hm, Wm, 3)``)."""
        L = self.layer
        owner = s.owner
        for t in range(len(owner)):  # recolour only the territories whose owner changed
            o = int(owner[t])
            col = self.colors[o] if o >= 0 else UNCLAIMED_COLOR
            if self._shown[t] != col:
                self._shown[t] = col
                px = L.pixels[t]
                fill = mix(col, "#ffffff", 0.4) if o >= 0 else hex_rgb(col)
                flat = self._base.reshape(-1, 3)
                a = L.alpha.reshape(-1, 1)[px]
                flat[px] = np.clip(fill.astype(np.float32) * (1 - a) + L.premult.reshape(-1, 3)[px] + 0.5, 0, 255).astype(
                    np.uint8
                )
        out[...] = self._base
        r = L.marker_r
        white = np.array([255.0, 255.0, 255.0], dtype=np.float32)
        for t, (y0, y1, x0, x1, dist, cx, cy) in enumerate(L.windows):
            win: np.ndarray = out[y0:y1, x0:x1].astype(np.float32)
            o = int(owner[t])
            if t in self._rings:
                a = np.clip(2.2 - np.abs(dist - (r + 4.6)), 0, 1)[..., None]
                win = win * (1 - a) + a * hex_rgb(RING_COLOR).astype(np.float32)
            a = disc_alpha(dist, r)[..., None]
            win = win * (1 - a) + a * (white if o >= 0 else hex_rgb("#9a9a9a").astype(np.float32))
            a = disc_alpha(dist, r - 1.4)[..., None]
            fill = hex_rgb(self.colors[o]).astype(np.float32) if o >= 0 else white
            win = win * (1 - a) + a * fill
            if o >= 0:
                digits = L.number_alpha(int(s.armies[t]))
                h, w = digits.shape
                ty, tx = int(round(cy - h / 2)) - y0, int(round(cx - w / 2)) - x0
                if ty >= 0 and tx >= 0 and ty + h <= win.shape[0] and tx + w <= win.shape[1]:
                    a = digits[..., None]
                    tcol = hex_rgb(text_color(self.colors[o])).astype(np.float32)
                    win[ty : ty + h, tx : tx + w] = win[ty : ty + h, tx : tx + w] * (1 - a) + a * tcol
            out[y0:y1, x0:x1] = np.clip(win + 0.5, 0, 255).astype(np.uint8)

    def _panel(self, pic: Picture) -> None:
        self.title.set_text(pic.title)
        self.subtitle.set_text(pic.subtitle)
        for row, (sw, turn, line) in zip(pic.rows, self.rows, strict=True):
            name = row.name + (" won" if row.won else "") + (" out" if row.out else "")
            line.set_text(f"{name:<14}{row.territories:>5}{row.armies:>7}{row.cards:>6}")
            line.set_color("#a0a0a0" if row.out else INK_COLOR)
            line.set_fontweight("bold" if row.on_turn or row.won else "normal")
            turn.set_text("▶" if row.on_turn else "")
            sw.set_alpha(0.3 if row.out else 1.0)
        for holder, sw in zip(pic.holders, self.cont_rows, strict=True):
            sw.set_facecolor(self.colors[holder] if holder >= 0 else "none")
            sw.set_edgecolor("white" if holder >= 0 else "#aaaaaa")
        self.last_txt.set_text("\n".join(pic.last_move_lines()))
        self.roll_txt.set_text(f"last roll: {pic.roll}" if pic.roll else "")
        n = self._recent_lines
        shown = [r if len(r) <= 42 else r[:41] + "…" for r in list(pic.recent)[-n:]] if n else []
        self.recent_head.set_text("before that (newest first)" if shown else "")
        self.recent_txt.set_text("\n".join(reversed(shown)))
        self.foot.set_text(pic.foot)

    def draw(
        self, state: GameState, last_move: str = "", recent: Sequence[str] = (), selection: Selection | None = None
    ) -> np.ndarray:
        """A picture of ``state``: uint8 ``(H, W, 3)`` (540 x 1300 on the classic map), a new array each call.

        Args:
            state: the position.
            last_move: text of the last complete move (highlighted on the map if it parses; '' for none).
            recent: texts of earlier moves, oldest first; the newest that fit are listed in the panel.
            selection: the action codec's pending selection (a ring on a chosen source, a dashed arrow
                to a chosen target); None for none.

        Raises:
            ConfigError: ``last_move`` is not a str, or ``recent`` is not a list of str
                (:func:`~risk_env.records.picture.check_moves_text`).
            StateError: ``state`` is not a position of this renderer's game (another map or player count; the
                message names both sizes).
        """
        pic = describe(self.game, state, last_move, recent, self._player_names, selection)
        self._highlight(pic)
        self._panel(pic)
        renderer = self.canvas.get_renderer()
        buf = np.asarray(renderer.buffer_rgba())
        if buf.shape != self._bg.shape or not buf.flags.writeable:  # pragma: no cover - unexpected backend change
            self.canvas.draw()
            buf = np.asarray(self.canvas.get_renderer().buffer_rgba())
            return np.ascontiguousarray(buf[..., :3])
        buf[...] = self._bg
        Hm, Wm = self.layer.shape
        self._paint_map(state, buf[:Hm, :Wm, :3])
        for art in self._dynamic:
            if art.get_visible():
                art.draw(renderer)
        return buf[..., :3].copy()

    # ------------------------------------------------------------------ window
    def show(self, frame: np.ndarray) -> None:
        """Show ``frame`` in a window (``render_mode="human"``).

        Where no window can be opened (no ``DISPLAY``/``WAYLAND_DISPLAY`` on
        Linux, a non-interactive matplotlib backend, no GUI toolkit) this
        warns once with a :class:`NoDisplayWarning` and does nothing; it never raises.
        """
        if self._window is False:
            return
        if self._window is None:
            why = _no_display_reason()
            if why is None:
                try:
                    import matplotlib.pyplot as plt

                    backend = str(plt.get_backend()).lower()
                    if backend in ("agg", "pdf", "ps", "svg", "cairo", "template", "pgf") or "inline" in backend:
                        why = f"matplotlib's backend {backend!r} cannot open windows"
                    else:
                        fig = plt.figure("risk_env", figsize=(frame.shape[1] / 100, frame.shape[0] / 100))
                        ax = fig.add_axes((0, 0, 1, 1))
                        ax.set_axis_off()
                        self._window = (plt, fig, ax.imshow(frame))
                        plt.show(block=False)
                except Exception as e:  # no usable GUI toolkit
                    why = f"no window could be opened ({type(e).__name__}: {e})"
            if why is not None:
                self._window = False
                warnings.warn(
                    f"render_mode='human' cannot show a window: {why}. Nothing will be displayed; "
                    "use render_mode='rgb_array' (pictures as arrays) or 'ansi' (text) instead.",
                    NoDisplayWarning,
                    stacklevel=3,
                )
                return
        plt, fig, image = self._window  # type: ignore[misc]
        if not plt.fignum_exists(fig.number):  # the user closed the window: stop showing
            self._window = False
            return
        image.set_data(frame)
        fig.canvas.draw_idle()
        plt.pause(0.001)

    @property
    def can_show(self) -> bool:
        """False once :meth:`show` has found that no window can be opened."""
        return self._window is not False

    def close(self) -> None:
        """Close the window, if one is open. The renderer can still draw afterwards."""
        if self._window:
            plt, fig, _ = self._window
            plt.close(fig)
        self._window = None

    def save_png(self, state: GameState, path: str | os.PathLike[str], last_move: str = "", recent: Sequence[str] = ()) -> None:
        """Draw ``state`` and write it as a PNG file (missing parent folders are created).

        Raises:
            ConfigError: ``path`` is not a file name (None, bytes, a number), does not end in ``.png`` (an SVG picture
                is :meth:`Position.save_svg <risk_env.records.svg.Position.save_svg>`'s), is a folder, its folder
                cannot be made, or the file cannot be written there (:func:`risk_env._output.check_output_file`);
                ``last_move`` or ``recent`` is not text (:meth:`draw`); checked before the board is drawn, the
                message names the path or the argument.
            StateError: ``state`` is not a position of this renderer's game (:meth:`draw`).
        """
        from PIL import Image

        option = "BoardRenderer.save_png: path"
        check_output_file(path, option)
        check_suffix(path, option, ".png", "this writes a PNG picture; Position.save_svg of risk_env.records.svg writes SVG text")
        check_state_fits(self.game, state)
        picture = Image.fromarray(self.draw(state, last_move, recent))
        make_output_folder(path, option)
        try:
            picture.save(os.fspath(path), format="PNG")
        except OSError as e:
            raise ConfigError(f"{option} {os.fspath(path)!r}: cannot write the file: {e.strerror or e}") from None


def _no_display_reason() -> str | None:
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return "no display (neither DISPLAY nor WAYLAND_DISPLAY is set)"
    return None


def draw_board(game: Game, state: GameState, last_move: str = "", recent: Sequence[str] = ()) -> np.ndarray:
    """One picture of ``state``: uint8 ``(H, W, 3)``. Builds a renderer each call; keep a
    :class:`BoardRenderer` to draw many frames."""
    return BoardRenderer(game).draw(state, last_move, recent)


def save_board_png(
    game: Game, state: GameState, path: str | os.PathLike[str], last_move: str = "", recent: Sequence[str] = ()
) -> None:
    """Write a picture of ``state`` to a PNG file."""
    BoardRenderer(game).save_png(state, path, last_move, recent)
