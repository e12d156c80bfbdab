"""The layout of a map's picture: land, coasts, sea lanes, names, marker
and label positions, computed once per map and cached.

:class:`MapGeometry` is the layout itself, with numpy only: which pixel of
the picture belongs to which territory, the outlines of territories and
continents as polygons, the sea lanes, where names, markers and continent
labels go, and where an arrow's label fits without covering a name. Both
pictures of a position are drawn from it: the raster one
(:mod:`risk_env.records.draw`, matplotlib, on :class:`MapLayer`'s pixel
layers) and the SVG one (:mod:`risk_env.records.svg`, plain text). The
colours shared by both live here.

Coordinates are picture pixels: the map part is 1000 pixels wide
(``MapGeometry.shape`` is ``(height, 1000)``), ``y`` grows downwards.
"""

from __future__ import annotations

import itertools
from functools import cached_property
from typing import Any

import numpy as np

__all__ = ["PLAYER_COLORS", "NEUTRAL_COLOR", "UNCLAIMED_COLOR", "MapGeometry", "map_geometry", "MapLayer", "map_layer"]

PLAYER_COLORS: tuple[str, ...] = ("#3b6fb6", "#d1423f", "#3f9b4f", "#ee8a1c", "#8a5aa8", "#d9b613")
"""Seat colours (blue, red, green, orange, purple, yellow), indexed by seat."""
NEUTRAL_COLOR = "#8c8c8c"
"""Colour of the 2-player neutral army."""
UNCLAIMED_COLOR = "#ece6d6"
_SEA = "#c9dce8"
_INK = "#2a2a2a"
_PANEL = "#f6f4ee"
_ATTACK = "#c0141b"
_MOVE = "#1d4f91"
_RING = "#ffc400"
_CONTINENT_TINTS = ("#c9a227", "#2e8b57", "#4169e1", "#b5651d", "#8b3a62", "#6a5acd", "#20b2aa", "#cd5c5c")

_MAP_WIDTH_PX = 1000  # the map part of the picture is scaled to this width
_PX_PER_PT = 100 / 72  # the reference resolution (100 dpi) at which font sizes in points become pixels
_PANEL_PX = 300
_MIN_HEIGHT_PX = 480


def _hex_rgb(c: str) -> np.ndarray:
    c = c.lstrip("#")
    return np.array([int(c[i : i + 2], 16) for i in (0, 2, 4)], dtype=np.float64)


def _mix(c: str, other: str, t: float) -> np.ndarray:
    """``(1 - t) * c + t * other`` as float RGB in 0..255."""
    return (1 - t) * _hex_rgb(c) + t * _hex_rgb(other)


def _hex(rgb: np.ndarray) -> str:
    return "#" + "".join(f"{int(round(v)):02x}" for v in rgb)


def _text_color(c: str) -> str:
    r, g, b = _hex_rgb(c) / 255
    return "#111111" if 0.299 * r + 0.587 * g + 0.114 * b > 0.62 else "#ffffff"


def _wrap_name(name: str) -> str:
    """Split a long territory name over two lines."""
    if len(name) <= 12 or " " not in name:
        return name
    words = name.split()
    best = min(range(1, len(words)), key=lambda k: abs(len(" ".join(words[:k])) - len(" ".join(words[k:]))))
    return " ".join(words[:best]) + "\n" + " ".join(words[best:])


def _shift(a: np.ndarray, dy: int, dx: int, fill: Any) -> np.ndarray:
    """``a`` moved by (dy, dx) pixels, the uncovered edge set to ``fill``."""
    out = np.full_like(a, fill)
    H, W = a.shape[:2]
    ys, yd = (slice(0, H - dy), slice(dy, H)) if dy >= 0 else (slice(-dy, H), slice(0, H + dy))
    xs, xd = (slice(0, W - dx), slice(dx, W)) if dx >= 0 else (slice(-dx, W), slice(0, W + dx))
    out[yd, xd] = a[ys, xs]
    return out


def _dilate(mask: np.ndarray, r: int) -> np.ndarray:
    """Binary dilation by ``r`` steps of the 4-neighbourhood."""
    out = mask.astype(bool)
    for _ in range(r):
        out = out | _shift(out, 1, 0, False) | _shift(out, -1, 0, False) | _shift(out, 0, 1, False) | _shift(out, 0, -1, False)
    return out


def _box_sums(mask: np.ndarray) -> np.ndarray:
    """Summed-area table with a zero row and column in front."""
    S = np.zeros((mask.shape[0] + 1, mask.shape[1] + 1), dtype=np.int64)
    S[1:, 1:] = mask.astype(np.int64).cumsum(0).cumsum(1)
    return S


def _box_at(y0: np.ndarray, x0: np.ndarray, h: int, w: int) -> Any:
    """A function giving, for a summed-area table, the sums of the ``h`` x ``w`` boxes at corners ``(y0, x0)``."""

    def box(S: np.ndarray) -> np.ndarray:
        return S[y0 + h, x0 + w] - S[y0, x0 + w] - S[y0 + h, x0] + S[y0, x0]

    return box


def _dilate_square(mask: np.ndarray, r: int) -> np.ndarray:
    """Binary dilation by a ``(2r+1)``-pixel square (separable running sums; any ``r``)."""
    out = mask.astype(bool)
    if r <= 0:
        return out
    for axis in (0, 1):
        n = out.shape[axis]
        c = np.cumsum(out, axis=axis, dtype=np.int32)
        c = np.concatenate([np.zeros_like(np.take(c, [0], axis=axis)), c], axis=axis)
        hi = np.minimum(np.arange(n) + r + 1, n)
        lo = np.maximum(np.arange(n) - r, 0)
        out = (np.take(c, hi, axis=axis) - np.take(c, lo, axis=axis)) > 0
    return out


def _holes(sea: np.ndarray) -> np.ndarray:
    """Pixels of ``sea`` not connected to the picture's edge (flood fill on a 4x coarser grid)."""
    H, W = sea.shape
    f = 4
    h, w = -(-H // f), -(-W // f)
    pad = np.zeros((h * f, w * f), dtype=bool)
    pad[:H, :W] = sea
    coarse: np.ndarray = np.asarray(pad.reshape(h, f, w, f).any(axis=(1, 3)))
    ocean = np.zeros_like(coarse)
    ocean[0, :], ocean[-1, :], ocean[:, 0], ocean[:, -1] = coarse[0, :], coarse[-1, :], coarse[:, 0], coarse[:, -1]
    while True:
        grown = _dilate(ocean, 1) & coarse
        if (grown == ocean).all():
            break
        ocean = grown
    reached = np.repeat(np.repeat(ocean, f, axis=0), f, axis=1)[:H, :W]
    return sea & ~reached


def _disc_alpha(dist: np.ndarray, radius: float) -> np.ndarray:
    """Anti-aliased coverage of a disc of ``radius`` pixels."""
    return np.clip(radius + 0.5 - dist, 0.0, 1.0)


class MapGeometry:
    """Everything about a map's picture that never changes, without matplotlib (built once per map, then cached).

    Attributes:
        map: the :class:`~risk_env.rules.map.GameMap`.
        scale: picture pixels per map canvas unit; shape: ``(height, width)`` of the map part in pixels.
        label: int32 ``(height, width)``: the territory of each pixel, -1 for sea.
        cont: int ``(height, width)``: the continent of each pixel, -1 for sea.
        touch: bool ``(T, T)``: which territories' regions touch on the picture.
        wall: bool ``(height, width)``: boundary pixels between touching regions that share no border.
        lanes: the borders ``(a, b)`` whose regions do not touch, drawn as dashed sea lanes.
        pixels: per territory, the flat indices of its pixels.
        xy: float ``(T, 2)``: each territory's marker centre in pixels.
        marker_r: radius of the army markers, pixels.
        name_pt, label_pt, number_pt: font sizes (points at 100 dpi) of territory names, continent labels, army numbers.
        name_boxes: float ``(T, 4)``: ``x0, y0, x1, y1`` of each territory name's text (its lines below the marker).
    """

    def __init__(self, m: Any) -> None:
        self.map = m
        cw, ch = m.canvas
        self.scale = _MAP_WIDTH_PX / cw  # pixels per canvas unit
        self.shape = (int(round(ch * self.scale)), _MAP_WIDTH_PX)
        self._land()
        self.marker_r = float(np.clip(self.unit * 0.17, 9.0, 14.0))
        T = m.num_territories
        self.name_pt = 6.4 if T > 20 else 8.5
        self.label_pt = 9.0 if T > 20 else 10.5
        self.number_pt = 8.5 if T > 20 else 10.0
        self.xy = np.asarray(m.xy, dtype=np.float64) * self.scale
        self.name_lines = [_wrap_name(n).split("\n") for n in m.territory_names]
        fs = self.name_pt * _PX_PER_PT
        boxes = np.zeros((T, 4))
        for t, lines in enumerate(self.name_lines):
            x, y = self.xy[t]
            w = max(len(line) for line in lines) * fs * 0.56 + 2
            top = y + self.marker_r + 1.5
            boxes[t] = (x - w / 2, top, x + w / 2, top + len(lines) * fs * 1.08 + 1)
        self.name_boxes = boxes
        self._spots: dict[float, list[tuple[float, float]]] = {}

    # -------------------------------------------------------------- land and sea
    def _land(self) -> None:
        """Label every map pixel with its territory (-1 for sea); find which regions touch."""
        m = self.map
        Hm, Wm = self.shape
        xy = m.xy * self.scale
        T, C = m.num_territories, len(m.continent_names)
        tc = m.territory_continent
        d = np.sqrt(((xy[:, None, :] - xy[None, :, :]) ** 2).sum(-1))
        np.fill_diagonal(d, np.inf)
        unit = float(np.median(d.min(axis=1)))  # typical spacing of neighbouring territories, pixels
        self.unit = unit
        disk, half_width, long_border = 0.6 * unit, 0.42 * unit, 1.75 * unit
        ys = (np.arange(Hm, dtype=np.float32) + 0.5)[:, None]
        xs = (np.arange(Wm, dtype=np.float32) + 0.5)[None, :]
        best = np.full((C, Hm, Wm), np.inf, dtype=np.float32)  # squared distance to each continent's nearest territory
        near = np.zeros((C, Hm, Wm), dtype=np.int16)
        for t in range(T):
            c = tc[t]
            d2 = (xs - np.float32(xy[t, 0])) ** 2 + (ys - np.float32(xy[t, 1])) ** 2
            better = d2 < best[c]
            best[c][better] = d2[better]
            near[c][better] = t
        land_c = best <= disk**2
        for a, b in m.borders:  # land bridges along short borders inside a continent
            if tc[a] != tc[b] or d[a, b] > long_border:
                continue
            (xa, ya), (xb, yb) = xy[a], xy[b]
            x0, x1 = int(max(0, min(xa, xb) - half_width)), int(min(Wm, max(xa, xb) + half_width + 1))
            y0, y1 = int(max(0, min(ya, yb) - half_width)), int(min(Hm, max(ya, yb) + half_width + 1))
            px = xs[:, x0:x1] - xa
            py = ys[y0:y1, :] - ya
            vx, vy = xb - xa, yb - ya
            u = np.clip((px * vx + py * vy) / (vx * vx + vy * vy), 0, 1)
            land_c[tc[a], y0:y1, x0:x1] |= (px - u * vx) ** 2 + (py - u * vy) ** 2 <= half_width**2
        score = np.where(land_c, best, np.inf)
        land = np.isfinite(score.min(axis=0))
        land |= _holes(~land)  # lakes inside a continent (or between two) become land
        score = np.where(land_c | land[None], best, np.inf)
        cont = score.argmin(axis=0)
        label = np.where(land, np.take_along_axis(near, cont[None], 0)[0], -1).astype(np.int32)
        # water between continents; a thick line (drawn later) between touching regions that share no border
        wide = np.zeros((Hm, Wm), dtype=bool)
        for dy, dx in ((0, 1), (1, 0), (1, 1), (1, -1)):
            nb = _shift(label, -dy, -dx, -1)
            both = (label >= 0) & (nb >= 0) & (label != nb)
            wide[both] = tc[label[both]] != tc[nb[both]]
        label[_dilate_square(wide, max(4, int(unit * 0.13)))] = -1
        touch = np.zeros((T, T), dtype=bool)
        for dy, dx in ((0, 1), (1, 0)):
            nb = _shift(label, -dy, -dx, -1)
            both = (label >= 0) & (nb >= 0) & (label != nb)
            touch[label[both], nb[both]] = True
        self.touch = touch | touch.T
        adj = m.adjacency
        self.wall = np.zeros((Hm, Wm), dtype=bool)  # boundary pixels between touching regions that share no border
        for dy, dx in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            nb = _shift(label, dy, dx, -1)
            both = (label >= 0) & (nb >= 0) & (label != nb)
            self.wall[both] = ~adj[label[both], nb[both]]
        self.label = label
        self.idx = np.where(label >= 0, label, T)  # T = sea in the colour table
        self.cont = np.where(label >= 0, tc[np.maximum(label, 0)], -1)
        flat = label.ravel()
        order = np.argsort(flat, kind="stable")
        starts = np.searchsorted(flat[order], np.arange(T + 1))
        self.pixels = [order[starts[t] : starts[t + 1]] for t in range(T)]  # flat pixel indices of each territory
        self.lanes = [(a, b) for a, b in m.borders if not self.touch[a, b]]

    def label_spots(self, font_px: float) -> list[tuple[float, float]]:
        """Pixel centres of the continent labels (``"Asia +7"`` in ``font_px``-pixel type): on open sea,
        near the own continent, away from the others (cached per size)."""
        spots = self._spots.get(font_px)
        if spots is None:
            spots = self._spots[font_px] = self._find_label_spots(font_px)
        return spots

    def _find_label_spots(self, font_px: float) -> list[tuple[float, float]]:
        m = self.map
        Hm, Wm = self.shape
        land = self.label >= 0
        S_block = _box_sums(_dilate_square(land, max(3, int(self.unit * 0.08))))
        h = int(font_px * 1.35)
        taken = np.zeros((Hm, Wm), dtype=bool)
        spots = []
        for c, cname in enumerate(m.continent_names):
            w = int(len(f"{cname} +{int(m.continent_bonus[c])}") * font_px * 0.64) + 6
            pts = m.xy[m.territory_continent == c] * self.scale
            cx, cy = pts.mean(axis=0)
            fallback = (float(cx), float(max(pts[:, 1].min() - self.unit * 0.7, h)))
            if w >= Wm or h >= Hm:
                spots.append(fallback)
                continue
            own_near = _dilate_square(self.cont == c, int(self.unit * 0.75))
            other_near = _box_sums(_dilate_square((self.cont >= 0) & (self.cont != c), int(self.unit * 0.4)))
            S_taken = _box_sums(taken)
            y0, x0 = np.meshgrid(np.arange(0, Hm - h, 2), np.arange(0, Wm - w, 2), indexing="ij")
            box = _box_at(y0, x0, h, w)
            ok = (box(S_block) == 0) & (box(S_taken) == 0) & own_near[y0 + h // 2, x0 + w // 2]
            cost = np.hypot(x0 + w / 2 - cx, (y0 + h / 2 - cy) * 1.3) + 2.0 * box(other_near) / w
            cost = np.where(ok, cost, np.inf)
            k = int(np.argmin(cost))
            if not np.isfinite(cost.flat[k]):
                spots.append(fallback)
                continue
            by, bx = int(y0.flat[k]), int(x0.flat[k])
            taken[max(0, by - 4) : by + h + 4, max(0, bx - 4) : bx + w + 4] = True
            spots.append((bx + w / 2, by + h / 2))
        return spots

    # -------------------------------------------------------------- vector shapes (the SVG picture)
    @cached_property
    def territory_outlines(self) -> list[list[np.ndarray]]:
        """Per territory, its outline as closed polygons (float ``(k, 2)`` pixel corners ``x, y``; simplified to
        within about a pixel). Fill them with the even-odd rule (a hole is a loop of its own)."""
        T = self.map.num_territories
        return [[_simplify(loop) for loop in _trace(self.label == t)] for t in range(T)]

    @cached_property
    def continent_outlines(self) -> list[list[np.ndarray]]:
        """Per continent, the outline of its land (as :attr:`territory_outlines`)."""
        return [[_simplify(loop) for loop in _trace(self.cont == c)] for c in range(len(self.map.continent_names))]

    @cached_property
    def wall_segments(self) -> list[tuple[float, float, float, float]]:
        """The boundaries between touching regions that share no border, as straight pixel-edge runs ``x0, y0, x1, y1``."""
        label, adj = self.label, self.map.adjacency
        out: list[tuple[float, float, float, float]] = []
        for axis in (0, 1):  # 0: edges between a pixel and the one below; 1: the one to the right
            a = label[:-1, :] if axis == 0 else label[:, :-1]
            b = label[1:, :] if axis == 0 else label[:, 1:]
            hit = (a >= 0) & (b >= 0) & (a != b)
            hit[hit] = ~adj[a[hit], b[hit]]
            lines = hit if axis == 0 else hit.T
            for k in np.flatnonzero(lines.any(axis=1)):
                row = np.concatenate([[False], lines[k], [False]])
                d = np.flatnonzero(np.diff(row.astype(np.int8)))
                for lo, hi in zip(d[::2], d[1::2], strict=True):
                    if axis == 0:  # a horizontal run at y = k + 1, from x = lo to x = hi
                        out.append((float(lo), float(k + 1), float(hi), float(k + 1)))
                    else:  # a vertical run at x = k + 1
                        out.append((float(k + 1), float(lo), float(k + 1), float(hi)))
        return out

    def segments(self, a: int, b: int) -> list[tuple[float, float, float, float]]:
        """The straight pieces ``x0, y0, x1, y1`` (pixels) of a line from territory ``a`` to ``b``: one, or two when the
        line is longer than half the board and wraps around the left and right edges (Alaska–Kamchatka)."""
        (xa, ya), (xb, yb) = self.xy[a], self.xy[b]
        W = float(self.shape[1])
        if abs(xa - xb) <= W / 2:
            return [(xa, ya, xb, yb)]
        ym = (ya + yb) / 2
        ea, eb = (0.0, W) if xa < xb else (W, 0.0)
        return [(xa, ya, ea, ym), (eb, ym, xb, yb)]

    def arrow_label_spot(self, a: int, b: int, text: str, font_px: float) -> tuple[float, float]:
        """Where the label of an arrow from ``a`` to ``b`` goes: the centre (pixels) of a box for ``text`` in
        ``font_px``-pixel type beside the arrow's last piece, at the spot that covers the fewest territory names
        and army markers (then: nearest the middle, above the arrow)."""
        x0, y0, x1, y1 = self.segments(a, b)[-1]
        dx, dy = x1 - x0, y1 - y0
        norm = float(np.hypot(dx, dy)) or 1.0
        nx, ny = -dy / norm, dx / norm
        if ny > 0:  # the first side tried is the upper one (y grows downwards)
            nx, ny = -nx, -ny
        w, h = len(text) * font_px * 0.6 + 4, font_px * 1.3
        Hm, Wm = self.shape
        r = self.marker_r + 2
        obstacles = np.concatenate(
            [self.name_boxes, np.stack([self.xy[:, 0] - r, self.xy[:, 1] - r, self.xy[:, 0] + r, self.xy[:, 1] + r], 1)]
        )
        best: tuple[float, float, float] | None = None
        for t, side, extra in itertools.product((0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8), (1.0, -1.0), (0.0, 8.0, 16.0)):
            px, py = x0 + t * dx, y0 + t * dy
            sx, sy = nx * side, ny * side
            gap = 6 + extra + abs(sx) * w / 2 + abs(sy) * h / 2
            cx, cy = px + sx * gap, py + sy * gap
            bx0, by0, bx1, by1 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
            ox = np.clip(np.minimum(obstacles[:, 2], bx1) - np.maximum(obstacles[:, 0], bx0), 0, None)
            oy = np.clip(np.minimum(obstacles[:, 3], by1) - np.maximum(obstacles[:, 1], by0), 0, None)
            inside = max(0.0, min(bx1, Wm) - max(bx0, 0)) * max(0.0, min(by1, Hm) - max(by0, 0))
            cost = float((ox * oy).sum()) + 4 * (w * h - inside)
            cost += w * h * (0.05 * abs(t - 0.5) + (0.02 if side < 0 else 0) + 0.004 * extra)
            if best is None or cost < best[0]:
                best = (cost, cx, cy)
        return (best[1], best[2]) if best is not None else (x0 + dx / 2, y0 + dy / 2)


def _trace(mask: np.ndarray) -> list[np.ndarray]:
    """The boundary loops of ``mask`` on the pixel-corner grid: int ``(k, 2)`` corners ``x, y`` where the direction
    changes, the inside on the right (clockwise on screen); pixels touching only at a corner are apart."""
    H, W = mask.shape
    p = np.zeros((H + 2, W + 2), dtype=bool)
    p[1:-1, 1:-1] = mask
    inner = p[1:-1, 1:-1]
    ys, xs = np.nonzero(inner & ~p[:-2, 1:-1])  # top edges: (x, y) -> (x+1, y)
    starts = [(xs, ys, xs + 1, ys)]
    ys, xs = np.nonzero(inner & ~p[1:-1, 2:])  # right edges: (x+1, y) -> (x+1, y+1)
    starts.append((xs + 1, ys, xs + 1, ys + 1))
    ys, xs = np.nonzero(inner & ~p[2:, 1:-1])  # bottom edges: (x+1, y+1) -> (x, y+1)
    starts.append((xs + 1, ys + 1, xs, ys + 1))
    ys, xs = np.nonzero(inner & ~p[1:-1, :-2])  # left edges: (x, y+1) -> (x, y)
    starts.append((xs, ys + 1, xs, ys))
    stride = W + 2
    a = np.concatenate([y0 * stride + x0 for x0, y0, _, _ in starts]).tolist()
    b = np.concatenate([y1 * stride + x1 for _, _, x1, y1 in starts]).tolist()
    nxt: dict[int, list[int]] = {}
    for u, v in zip(a, b, strict=True):
        nxt.setdefault(u, []).append(v)
    loops = []
    while nxt:
        start = next(iter(nxt))
        pts = [start]
        prev, cur = -1, start
        while True:
            outs = nxt.get(cur)
            if not outs:
                break
            if len(outs) == 1:
                v = outs.pop()
            else:  # a corner shared with a diagonal neighbour: turn right (keep to this pixel)
                v = min(outs, key=lambda w: _turn(prev, cur, w, stride))
                outs.remove(v)
            if not outs:
                del nxt[cur]
            prev, cur = cur, v
            if cur == start:
                break
            pts.append(cur)
        arr = np.array(pts, dtype=np.int64)
        loop = np.stack([arr % stride, arr // stride], axis=1)
        d = np.diff(np.concatenate([loop[-1:], loop, loop[:1]]), axis=0)
        corner = (d[1:] != d[:-1]).any(axis=1)  # keep the points where the direction changes
        loops.append(loop[corner])
    return loops


def _turn(prev: int, cur: int, nxt: int, stride: int) -> int:
    """0 for a right turn (clockwise on screen), 1 straight on, 2 a left turn, from ``prev -> cur`` to ``cur -> nxt``."""
    if prev < 0:
        return 1
    ax, ay = cur % stride - prev % stride, cur // stride - prev // stride
    bx, by = nxt % stride - cur % stride, nxt // stride - cur // stride
    cross = ax * by - ay * bx  # screen coordinates: > 0 turns clockwise
    return 0 if cross > 0 else (1 if cross == 0 else 2)


def _simplify(loop: np.ndarray, tol: float = 0.9) -> np.ndarray:
    """A closed polygon with fewer corners, within ``tol`` pixels of ``loop`` (Douglas-Peucker, float ``(k, 2)``)."""
    pts = loop.astype(np.float64)
    n = len(pts)
    if n <= 4:
        return pts
    far = int(np.argmax(((pts - pts[0]) ** 2).sum(axis=1)))
    keep = np.zeros(n, dtype=bool)
    keep[[0, far]] = True
    stack = [(0, far), (far, n)]
    while stack:
        i, j = stack.pop()
        if j - i < 2:
            continue
        a, b = pts[i], pts[j % n]
        seg = pts[i + 1 : j]
        d = b - a
        L = float(np.hypot(*d))
        dist = np.abs(d[0] * (seg[:, 1] - a[1]) - d[1] * (seg[:, 0] - a[0])) / L if L else np.hypot(*(seg - a).T)
        k = int(np.argmax(dist))
        if dist[k] > tol:
            m = i + 1 + k
            keep[m] = True
            stack += [(i, m), (m, j)]
    return pts[keep]


class MapLayer:
    """The pixel layers of a map's raster picture (:mod:`risk_env.records.draw`), drawn once per map and dpi with
    matplotlib on top of its :class:`MapGeometry` (whose attributes it shares), then cached."""

    def __init__(self, m: Any, dpi: float) -> None:
        g = map_geometry(m)
        self.geometry = g
        self.map = m
        self.scale, self.shape, self.unit, self.marker_r = g.scale, g.shape, g.unit, g.marker_r
        self.label, self.cont, self.touch, self.wall = g.label, g.cont, g.touch, g.wall
        self.idx, self.pixels, self.lanes = g.idx, g.pixels, g.lanes
        self.dpi = dpi
        self._vector_layer()
        self._markers()
        self._digits()

    # -------------------------------------------------------------- pixels drawn once
    def _vector_layer(self) -> None:
        """Shores, coasts, borders, sea lanes, continent labels and names as one premultiplied RGBA layer."""
        import matplotlib.patheffects as pe
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        m = self.map
        Hm, Wm = self.shape
        cw, ch = m.canvas
        T = m.num_territories
        s = 1 / self.scale
        label, cont = self.label, self.cont
        land = label >= 0
        over = np.zeros((Hm, Wm, 4), dtype=np.float32)  # straight RGBA in 0..1
        for c in range(len(m.continent_names)):
            shore = _dilate(cont == c, max(4, int(self.unit * 0.16))) & ~land
            over[shore, :3] = _hex_rgb(_CONTINENT_TINTS[c % len(_CONTINENT_TINTS)]) / 255
            over[shore, 3] = 0.33
        edge = np.zeros_like(land)
        coast = np.zeros_like(land)
        for dy, dx in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            nb = _shift(label, dy, dx, -1)
            edge |= land & (nb != label)
            coast |= land & (nb < 0)
        over[edge] = (0.15, 0.15, 0.15, 0.6)
        over[_dilate(coast | self.wall, 1) & land] = (0.13, 0.13, 0.13, 0.95)

        fig = Figure(figsize=(Wm / self.dpi, Hm / self.dpi), dpi=self.dpi, facecolor="none")
        canvas = FigureCanvasAgg(fig)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        ax.set_xlim(0, cw)
        ax.set_ylim(ch, 0)
        lane_kw: dict[str, Any] = dict(color=_INK, lw=1.1, ls=(0, (4, 3)), alpha=0.7)
        g = self.geometry
        for a, b in self.lanes:  # a lane longer than half the board wraps around the left and right edges
            for x0, y0, x1, y1 in g.segments(a, b):
                ax.plot([x0 * s, x1 * s], [y0 * s, y1 * s], **lane_kw)
        fs = g.label_pt
        halo = [pe.withStroke(linewidth=3, foreground="white", alpha=0.85)]
        for c, (x, y) in enumerate(g.label_spots(fs * self.dpi / 72)):
            col = _hex(_mix(_CONTINENT_TINTS[c % len(_CONTINENT_TINTS)], "#000000", 0.4))
            ax.text(
                x * s,
                y * s,
                f"{m.continent_names[c]} +{int(m.continent_bonus[c])}",
                ha="center",
                va="center",
                fontsize=fs,
                fontstyle="italic",
                fontweight="bold",
                color=col,
                path_effects=halo,
            )
        name_fs = g.name_pt
        for t in range(T):
            x, y = m.xy[t]
            ax.text(
                x,
                y + (self.marker_r + 1.5) * s,
                "\n".join(g.name_lines[t]),
                ha="center",
                va="top",
                fontsize=name_fs,
                color="#161616",
                linespacing=0.92,
                path_effects=[pe.withStroke(linewidth=2.2, foreground="white", alpha=0.8)],
            )
        canvas.draw()
        vec = np.asarray(canvas.buffer_rgba()).astype(np.float32) / 255
        a_top, a_bot = vec[..., 3:], over[..., 3:]
        self.alpha = a_top + a_bot * (1 - a_top)
        self.premult = (vec[..., :3] * a_top + over[..., :3] * a_bot * (1 - a_top)) * 255

    def _markers(self) -> None:
        """Per territory: a pixel window around its position and the distance of each pixel to the centre."""
        Hm, Wm = self.shape
        rad = int(np.ceil(self.marker_r + 8))
        self.windows = []
        for x, y in self.map.xy * self.scale:
            y0, y1 = max(0, int(y) - rad), min(Hm, int(y) + rad + 1)
            x0, x1 = max(0, int(x) - rad), min(Wm, int(x) + rad + 1)
            yy = np.arange(y0, y1, dtype=np.float32)[:, None] + 0.5
            xx = np.arange(x0, x1, dtype=np.float32)[None, :] + 0.5
            self.windows.append((y0, y1, x0, x1, np.hypot(xx - x, yy - y), float(x), float(y)))

    def _digits(self) -> None:
        """Coverage masks of the digits 0-9 (bold), for painting army counts without text layout."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fs = self.geometry.number_pt
        px = self.dpi / 72 * fs
        cell_w, cell_h = int(px * 1.2) + 4, int(px * 1.6) + 4
        fig = Figure(figsize=(10 * cell_w / self.dpi, cell_h / self.dpi), dpi=self.dpi, facecolor="none")
        canvas = FigureCanvasAgg(fig)
        texts = [
            fig.text(
                (k + 0.5) / 10, 0.5, str(k), ha="center", va="center_baseline", fontsize=fs, fontweight="bold", color="black"
            )
            for k in range(10)
        ]
        canvas.draw()
        renderer = canvas.get_renderer()
        self.advance = float(texts[0].get_window_extent(renderer).width)
        cov = np.asarray(canvas.buffer_rgba())[..., 3].astype(np.float32) / 255
        cells = [cov[:, k * cell_w : (k + 1) * cell_w] for k in range(10)]
        rows = np.flatnonzero(np.stack(cells).sum(axis=(0, 2)) > 0)
        top, bot = (int(rows[0]), int(rows[-1]) + 1) if len(rows) else (0, cell_h)
        self.digit_cells = [c[top:bot] for c in cells]
        self.cell_w = cell_w

    def number_alpha(self, n: int) -> np.ndarray:
        """Coverage mask of the number ``n`` (digits set ``advance`` pixels apart)."""
        text = str(n)
        adv = self.advance
        h = self.digit_cells[0].shape[0]
        width = int(np.ceil(adv * (len(text) - 1))) + self.cell_w
        out = np.zeros((h, width), dtype=np.float32)
        for i, ch in enumerate(text):
            x = int(round(i * adv))
            np.maximum(out[:, x : x + self.cell_w], self.digit_cells[int(ch)], out=out[:, x : x + self.cell_w])
        cols = np.flatnonzero(out.sum(axis=0) > 0)
        return out[:, cols[0] : cols[-1] + 1] if len(cols) else out


_GEOMETRIES: dict[str, MapGeometry] = {}
_LAYERS: dict[tuple[str, float], MapLayer] = {}


def _map_key(m: Any) -> str:
    import json

    return json.dumps(m.to_dict(), sort_keys=True)


def map_geometry(m: Any) -> MapGeometry:
    """The cached :class:`MapGeometry` of a map (keyed by the map's content; a few kept)."""
    key = _map_key(m)
    geometry = _GEOMETRIES.get(key)
    if geometry is None:
        if len(_GEOMETRIES) >= 4:
            _GEOMETRIES.pop(next(iter(_GEOMETRIES)))
        geometry = _GEOMETRIES[key] = MapGeometry(m)
    return geometry


def map_layer(m: Any, dpi: float) -> MapLayer:
    """The cached :class:`MapLayer` of a map (keyed by the map's content and the dpi; a few kept)."""
    key = (_map_key(m), float(dpi))
    layer = _LAYERS.get(key)
    if layer is None:
        if len(_LAYERS) >= 4:
            _LAYERS.pop(next(iter(_LAYERS)))
        layer = _LAYERS[key] = MapLayer(m, dpi)
    return layer
