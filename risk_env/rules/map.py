"""Boards as data: loading, validation and precomputed per-map tables.

A map is a JSON file (the classic board ships as ``risk_env/rules/maps/classic.json``,
a 9-territory test board as ``small.json``) with this shape::

    {"name": "classic",
     "continents": [{"name": "Asia", "bonus": 7}, ...],
     "territories": [{"name": "Alaska", "continent": "North America",
                      "card": "infantry", "xy": [45, 80]}, ...],
     "borders": [["Alaska", "Kamchatka"], ...],
     "wild_cards": 2,
     "canvas": [1000, 540]}

``card`` (``infantry``/``cavalry``/``artillery``) and ``xy`` (drawing
position on the ``canvas``) are optional: missing symbols are assigned in
territory order, missing positions are laid out on a circle.

Validation (docs/rules.md §1) rejects, with a :class:`~risk_env.errors.MapError`
naming the problem: duplicate or empty names, a territory in an unknown
continent, a continent with no territory, a border naming an unknown
territory, a self-border, a duplicate border, a graph that is not connected,
a negative bonus, and fewer than 2 territories. Borders are undirected, so a
listed border is symmetric by construction; a border listed in both
directions is a duplicate.

>>> m = load_map("classic")
>>> m.num_territories, m.num_borders, len(m.continent_names)
(42, 83, 6)
>>> m.name_of(m.id_of("Alaska"))
'Alaska'
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import MapError

__all__ = ["GameMap", "load_map", "map_from_dict", "builtin_maps", "SYMBOLS"]

SYMBOLS = ("infantry", "cavalry", "artillery", "wild")
"""Card symbols; a card's symbol is its index in this tuple (wild = 3)."""


@dataclass(frozen=True, eq=False)
class GameMap:
    """Static facts of one board, with precomputed tables (read-only numpy arrays).

    Attributes:
        name: the map's name.
        territory_names: ``T`` names; territory ids are indices into it.
        continent_names, continent_bonus: ``C`` names and bonuses (int64 ``(C,)``).
        territory_continent: int64 ``(T,)`` continent id of each territory.
        continent_members: bool ``(C, T)``.
        adjacency: bool ``(T, T)``, symmetric, False on the diagonal.
        edge_src, edge_dst: int64 ``(2E,)``, every border in both directions,
            sorted by source then target.
        neighbors: tuple of ``T`` tuples of neighbour ids (ascending).
        card_symbol: int64 ``(T + wilds,)`` symbol of each card; cards ``0..T-1``
            show territory ``i``, the rest are wilds (symbol 3).
        xy: float64 ``(T, 2)`` drawing positions; ``canvas`` is ``(width, height)``.
    """

    name: str
    territory_names: tuple[str, ...]
    continent_names: tuple[str, ...]
    continent_bonus: np.ndarray
    territory_continent: np.ndarray
    continent_members: np.ndarray
    adjacency: np.ndarray
    edge_src: np.ndarray
    edge_dst: np.ndarray
    neighbors: tuple[tuple[int, ...], ...]
    card_symbol: np.ndarray
    xy: np.ndarray
    canvas: tuple[float, float]
    borders: tuple[tuple[int, int], ...]
    description: str = ""
    _ids: Mapping[str, int] = field(default_factory=dict, repr=False)

    @property
    def num_territories(self) -> int:
        return len(self.territory_names)

    @property
    def num_borders(self) -> int:
        """Number of undirected borders."""
        return len(self.borders)

    @property
    def num_cards(self) -> int:
        """Territory cards plus wild cards."""
        return len(self.card_symbol)

    def id_of(self, name: str) -> int:
        """Territory id of ``name`` (exact, then case-insensitive match).

        Raises:
            ValueError: no territory of that name (the message lists close names).
        """
        try:
            return self._ids[name]
        except KeyError:
            low = name.strip().lower()
            for n, i in self._ids.items():
                if n.lower() == low:
                    return i
            import difflib

            close = difflib.get_close_matches(name, list(self._ids), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ValueError(f"unknown territory {name!r} on map {self.name!r}{hint}") from None

    def name_of(self, territory: int) -> str:
        """Name of territory id ``territory``.

        Raises:
            ValueError: the id is not in ``0..T-1``.
        """
        if not 0 <= territory < len(self.territory_names):
            raise ValueError(f"territory id {territory} out of range 0..{len(self.territory_names) - 1}")
        return self.territory_names[territory]

    def card_name(self, card: int) -> str:
        """Text form of a card: its territory's name, or ``Wild 1``, ``Wild 2``..."""
        t = self.num_territories
        if 0 <= card < t:
            return self.territory_names[card]
        if t <= card < self.num_cards:
            return f"Wild {card - t + 1}"
        raise ValueError(f"card id {card} out of range 0..{self.num_cards - 1}")

    def card_of(self, text: str) -> int:
        """Card id from its text form (see :meth:`card_name`)."""
        s = text.strip()
        if s.lower().startswith("wild"):
            try:
                k = int(s[4:].strip())
            except ValueError:
                raise ValueError(
                    f"bad wild card {text!r}; write 'Wild 1'..'Wild {self.num_cards - self.num_territories}'"
                ) from None
            card = self.num_territories + k - 1
            if not self.num_territories <= card < self.num_cards:
                raise ValueError(f"no card {text!r}: this map has {self.num_cards - self.num_territories} wild cards")
            return card
        return self.id_of(s)

    def to_dict(self) -> dict[str, Any]:
        """The map as a JSON-compatible dict (the file format)."""
        return {
            "name": self.name,
            "description": self.description,
            "canvas": list(self.canvas),
            "continents": [
                {"name": n, "bonus": int(b)} for n, b in zip(self.continent_names, self.continent_bonus, strict=False)
            ],
            "territories": [
                {
                    "name": n,
                    "continent": self.continent_names[int(self.territory_continent[i])],
                    "card": SYMBOLS[int(self.card_symbol[i])],
                    "xy": [float(v) for v in self.xy[i]],
                }
                for i, n in enumerate(self.territory_names)
            ],
            "borders": [[self.territory_names[a], self.territory_names[b]] for a, b in self.borders],
            "wild_cards": self.num_cards - self.num_territories,
        }


def _ro(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _need(d: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in d:
        raise MapError(f"{where}: missing key {key!r}")
    v = d[key]
    if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
        raise MapError(f"{where}: {key!r} must be {kind.__name__}, got {type(v).__name__}")
    return v


def map_from_dict(data: Mapping[str, Any]) -> GameMap:
    """Validate a map dict (the file format above) and build its tables.

    Raises:
        MapError: the dict is malformed; the message names the problem.
    """
    if not isinstance(data, Mapping):
        raise MapError(f"a map must be a JSON object, got {type(data).__name__}")
    name = _need(data, "name", str, "map")
    where = f"map {name!r}"
    conts = _need(data, "continents", list, where)
    terrs = _need(data, "territories", list, where)
    borders = _need(data, "borders", list, where)
    wilds = data.get("wild_cards", 2)
    if not isinstance(wilds, int) or isinstance(wilds, bool) or wilds < 0:
        raise MapError(f"{where}: 'wild_cards' must be an integer >= 0, got {wilds!r}")

    cont_names: list[str] = []
    bonus: list[int] = []
    for k, c in enumerate(conts):
        if not isinstance(c, Mapping):
            raise MapError(f"{where}: continent #{k} must be an object")
        cn = _need(c, "name", str, f"{where} continent #{k}")
        b = _need(c, "bonus", int, f"{where} continent {cn!r}")
        if not cn.strip():
            raise MapError(f"{where}: continent #{k} has an empty name")
        if cn in cont_names:
            raise MapError(f"{where}: duplicate continent name {cn!r}")
        if b < 0:
            raise MapError(f"{where}: continent {cn!r} has a negative bonus {b}")
        cont_names.append(cn)
        bonus.append(b)

    names: list[str] = []
    tcont: list[int] = []
    symbols: list[int] = []
    xy: list[list[float]] = []
    for k, t in enumerate(terrs):
        if not isinstance(t, Mapping):
            raise MapError(f"{where}: territory #{k} must be an object")
        tn = _need(t, "name", str, f"{where} territory #{k}")
        if not tn.strip():
            raise MapError(f"{where}: territory #{k} has an empty name")
        if tn in names:
            raise MapError(f"{where}: duplicate territory name {tn!r}")
        cn = _need(t, "continent", str, f"{where} territory {tn!r}")
        if cn not in cont_names:
            raise MapError(f"{where}: territory {tn!r} is in unknown continent {cn!r} (continents: {', '.join(cont_names)})")
        sym = t.get("card", SYMBOLS[k % 3])
        if sym not in SYMBOLS[:3]:
            raise MapError(f"{where}: territory {tn!r} has card symbol {sym!r}; allowed: infantry, cavalry, artillery")
        pos = t.get("xy")
        if pos is not None and (
            not isinstance(pos, list)
            or len(pos) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in pos)
        ):
            raise MapError(f"{where}: territory {tn!r} 'xy' must be a list of two numbers")
        names.append(tn)
        tcont.append(cont_names.index(cn))
        symbols.append(SYMBOLS.index(sym))
        xy.append(list(pos) if pos is not None else [math.nan, math.nan])
    n = len(names)
    if n < 2:
        raise MapError(f"{where}: needs at least 2 territories, has {n}")
    for ci, cn in enumerate(cont_names):
        if ci not in tcont:
            raise MapError(f"{where}: continent {cn!r} has no territory")

    ids = {tn: i for i, tn in enumerate(names)}
    adj = np.zeros((n, n), dtype=bool)
    pairs: list[tuple[int, int]] = []
    for k, b in enumerate(borders):
        if not isinstance(b, list) or len(b) != 2 or not all(isinstance(x, str) for x in b):
            raise MapError(f"{where}: border #{k} must be a list of two territory names, got {b!r}")
        for x in b:
            if x not in ids:
                raise MapError(f"{where}: border #{k} {b!r} names unknown territory {x!r}")
        i, j = ids[b[0]], ids[b[1]]
        if i == j:
            raise MapError(f"{where}: border #{k} joins {b[0]!r} to itself")
        if adj[i, j]:
            raise MapError(f"{where}: duplicate border {b[0]!r} - {b[1]!r}")
        adj[i, j] = adj[j, i] = True
        pairs.append((min(i, j), max(i, j)))

    seen = np.zeros(n, dtype=bool)
    seen[0] = True
    queue = deque([0])
    while queue:
        u = queue.popleft()
        for v in np.flatnonzero(adj[u]):
            if not seen[v]:
                seen[v] = True
                queue.append(int(v))
    if not seen.all():
        cut = [names[i] for i in np.flatnonzero(~seen)]
        raise MapError(f"{where}: the borders do not connect every territory; unreachable from {names[0]!r}: {', '.join(cut)}")

    pts = np.array(xy, dtype=np.float64)
    canvas = data.get("canvas", [1000, 600])
    if np.isnan(pts).any():
        w, h = float(canvas[0]), float(canvas[1])
        for i in np.flatnonzero(np.isnan(pts[:, 0])).tolist():
            a = 2 * math.pi * i / n
            pts[i] = (w / 2 + 0.42 * w * math.cos(a), h / 2 + 0.42 * h * math.sin(a))
    src, dst = np.nonzero(adj)
    members = np.zeros((len(cont_names), n), dtype=bool)
    members[np.array(tcont), np.arange(n)] = True
    card_symbol = np.array(symbols + [3] * wilds, dtype=np.int64)
    return GameMap(
        name=name,
        territory_names=tuple(names),
        continent_names=tuple(cont_names),
        continent_bonus=_ro(np.array(bonus, dtype=np.int64)),
        territory_continent=_ro(np.array(tcont, dtype=np.int64)),
        continent_members=_ro(members),
        adjacency=_ro(adj),
        edge_src=_ro(src.astype(np.int64)),
        edge_dst=_ro(dst.astype(np.int64)),
        neighbors=tuple(tuple(int(v) for v in np.flatnonzero(adj[i])) for i in range(n)),
        card_symbol=_ro(card_symbol),
        xy=_ro(pts),
        canvas=(float(canvas[0]), float(canvas[1])),
        borders=tuple(sorted(pairs)),
        description=str(data.get("description", "")),
        _ids=ids,
    )


def builtin_maps() -> list[str]:
    """Names of the maps shipped in the package (``classic``, ``small``)."""
    return sorted(p.name[:-5] for p in resources.files("risk_env.rules.maps").iterdir() if p.name.endswith(".json"))


def load_map(name_or_path: str | Path) -> GameMap:
    """Load a shipped map by name (``"classic"``) or a map file by path.

    Raises:
        MapError: unknown name, unreadable file, invalid JSON, or an invalid map.
    """
    s = str(name_or_path)
    if isinstance(name_or_path, Path) or s.endswith(".json") or "/" in s or "\\" in s:
        path = Path(s)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise MapError(f"cannot read map file {s!r}: {e.strerror or e}") from None
        src = s
    else:
        if s not in builtin_maps():
            raise MapError(f"unknown map {s!r}; shipped maps: {', '.join(builtin_maps())} (or give a path to a .json file)")
        text = resources.files("risk_env.rules.maps").joinpath(s + ".json").read_text(encoding="utf-8")
        src = s
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise MapError(f"map file {src!r} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    return map_from_dict(data)
