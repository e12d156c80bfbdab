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

Validation (docs/rules.md §1, :func:`map_from_dict`, the one reader of map dicts) rejects,
with a :class:`~risk_env.errors.MapError` naming the file, the field and what is allowed:
an unknown key, a value of the wrong type, duplicate or empty names, territory names that
move text cannot read back (:func:`name_problem`: a separator of the notation ``->``,
``,`` or ``=``, spaces at an end or doubled, unprintable characters, a wild card's name
such as ``Wild 1``, two names differing only in case), a territory in an unknown
continent, a continent with no territory, a border naming an unknown territory, a
self-border, a duplicate border, a graph that is not connected, a bonus outside
``0..MAX_BONUS``, too many wild cards or territories, fewer than 2 territories, a
``canvas`` that is not two positive numbers and an ``xy`` that is not two numbers on the
canvas. A file that is not UTF-8 or not JSON is refused the same way. Borders are
undirected, so a listed border is symmetric by construction; a border listed in both
directions is a duplicate.

>>> m = load_map("classic")
>>> m.num_territories, m.num_borders, len(m.continent_names)
(42, 83, 6)
>>> m.name_of(m.id_of("Alaska"))
'Alaska'
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, InvalidMoveError, MapError

__all__ = [
    "GameMap",
    "load_map",
    "map_from_dict",
    "builtin_maps",
    "name_problem",
    "SYMBOLS",
    "NAME_SEPARATORS",
    "MAX_TERRITORIES",
    "MAX_WILD_CARDS",
    "MAX_BONUS",
    "MAX_CANVAS",
]

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
            InvalidMoveError: no territory of that name (the message lists close names).
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
            raise InvalidMoveError(f"unknown territory {name!r} on map {self.name!r}{hint}") from None

    def name_of(self, territory: int) -> str:
        """Name of territory id ``territory``.

        Raises:
            ConfigError: the id is not in ``0..T-1``.
        """
        if not 0 <= territory < len(self.territory_names):
            raise ConfigError(f"territory id {territory} out of range 0..{len(self.territory_names) - 1}")
        return self.territory_names[territory]

    def card_name(self, card: int) -> str:
        """Text form of a card: its territory's name, or ``Wild 1``, ``Wild 2``...

        Raises:
            ConfigError: the id is not in ``0..num_cards-1``.
        """
        t = self.num_territories
        if 0 <= card < t:
            return self.territory_names[card]
        if t <= card < self.num_cards:
            return f"Wild {card - t + 1}"
        raise ConfigError(f"card id {card} out of range 0..{self.num_cards - 1}")

    def card_of(self, text: str) -> int:
        """Card id from its text form (see :meth:`card_name`): ``Wild <k>`` (case and spacing
        free) or a territory's name (no territory may be named like a wild card, :func:`name_problem`).

        Raises:
            InvalidMoveError: no such card (the message says what is allowed).
        """
        s = text.strip()
        wild = _WILD_NAME.fullmatch(s)
        if wild is None and s.lower().startswith("wild") and s not in self._ids:
            raise InvalidMoveError(f"bad wild card {text!r}; write 'Wild 1'..'Wild {self.num_cards - self.num_territories}'")
        if wild is not None:
            card = self.num_territories + int(wild.group(1)) - 1
            if not self.num_territories <= card < self.num_cards:
                raise InvalidMoveError(f"no card {text!r}: this map has {self.num_cards - self.num_territories} wild cards")
            return card
        return self.id_of(s)

    def fingerprint(self) -> str:
        """SHA-256 (hex) of the facts a game on this map depends on: the territories in id order (their names,
        continents and card symbols), the continents and their bonuses, the borders and the wild cards. The name,
        the description and the drawing positions are left out: two maps with one fingerprint play the same games
        with the same action ids, whatever their files are called (a training checkpoint keeps it,
        :func:`risk_env.train.run.played_game`).

        >>> classic = load_map("classic")
        >>> classic.fingerprint() == map_from_dict({**classic.to_dict(), "name": "other"}).fingerprint()
        True
        """
        facts = {
            "territories": list(self.territory_names),
            "territory_continent": self.territory_continent.tolist(),
            "continents": [[n, int(b)] for n, b in zip(self.continent_names, self.continent_bonus, strict=True)],
            "borders": [list(b) for b in self.borders],
            "cards": self.card_symbol.tolist(),
        }
        return hashlib.sha256(json.dumps(facts, separators=(",", ":")).encode()).hexdigest()

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


MAX_TERRITORIES = 1000
"""Most territories a map may have (the tables hold ``T x T`` entries; the classic board has 42)."""

MAX_WILD_CARDS = 100
"""Most wild cards a map may have."""

MAX_BONUS = 1000
"""Largest continent bonus (the classic board's largest is 7)."""

MAX_CANVAS = 1_000_000.0
"""Largest canvas side, in canvas units."""

_KEYS = {
    "map": ("name", "description", "canvas", "continents", "territories", "borders", "wild_cards"),
    "continent": ("name", "bonus"),
    "territory": ("name", "continent", "card", "xy"),
}
"""The keys each object of a map file may hold."""

NAME_SEPARATORS = ("->", ",", "=")
"""Text that separates the parts of a move (``attack A->B dice=3``, ``trade A, B, C bonus=A``),
so no territory name may contain it (:func:`name_problem`)."""

_WILD_NAME = re.compile(r"wild\s*(\d+)", re.IGNORECASE)
"""A wild card's text form (``Wild 1``, case and spacing free); no territory may be named so."""


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a territory name, or None if it can.

    A territory name must survive move text and back (:mod:`risk_env.rules.notation`):
    printable characters, words separated by single spaces with none at either end
    (move text is read with its spacing normalized), none of the notation's
    separators :data:`NAME_SEPARATORS`, and not a wild card's name (``Wild 1``).

    >>> name_problem("New Guinea") is None, name_problem("Wild 2")
    (True, "it is a wild card's name (Wild 1, Wild 2, ...)")
    """
    if not name.strip():
        return "it is empty"
    if not name.isprintable():
        bad = next(c for c in name if not c.isprintable())
        return f"it holds the unprintable character {bad!r} (tabs, line breaks, other control and separator characters)"
    if " ".join(name.split()) != name:
        return "it has spaces at an end or two spaces in a row (move text reads names with single spaces between words)"
    for sep in NAME_SEPARATORS:
        if sep in name:
            return f"it holds {sep!r}, a separator of the move notation ({', '.join(map(repr, NAME_SEPARATORS))} are not allowed)"
    if _WILD_NAME.fullmatch(name):
        return "it is a wild card's name (Wild 1, Wild 2, ...)"
    return None


def _need(d: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in d:
        raise MapError(f"{where}: missing key {key!r}")
    v = d[key]
    if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
        raise MapError(f"{where}: {key!r} must be {kind.__name__}, got {type(v).__name__}")
    return v


def _only_keys(d: Mapping[str, Any], kind: str, where: str) -> None:
    allowed = _KEYS[kind]
    for key in d:
        if key not in allowed:
            raise MapError(f"{where}: unknown key {key!r}; a {kind} holds {', '.join(allowed)}")


def _number(v: Any) -> bool:
    """A finite JSON number (int or float, not a bool)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _text(v: Any, what: str, where: str) -> str:
    """A printable, non-empty name without spaces at its ends (continent and map names)."""
    if not isinstance(v, str):
        raise MapError(f"{where}: {what} must be str, got {type(v).__name__}")
    if not v.strip():
        raise MapError(f"{where}: {what} is empty")
    if not v.isprintable() or v != v.strip():
        raise MapError(f"{where}: {what} {v!r} must be printable text without spaces at its ends")
    return v


def map_from_dict(data: Mapping[str, Any], source: str | None = None) -> GameMap:
    """Validate a map dict (the file format above) and build its tables.

    Every field is checked: the keys (unknown ones are refused), each value's type, names
    (territory names as :func:`name_problem` says, distinct even ignoring case, since move
    text reads them case-insensitively), bonuses in ``0..MAX_BONUS``, ``wild_cards`` in
    ``0..MAX_WILD_CARDS``, at most :data:`MAX_TERRITORIES` territories, ``canvas`` two
    positive finite numbers up to :data:`MAX_CANVAS`, each ``xy`` two finite numbers on the canvas, no two
    territories at one ``xy`` (the drawing gives each point one region).

    Args:
        data: the parsed JSON object.
        source: where it came from (a file name), named in the error messages.

    Raises:
        MapError: the dict is malformed; the message names the file (or map), the field,
            what was wrong and what is allowed.
    """
    if not isinstance(data, Mapping):
        raise MapError(f"{source or 'a map'}: a map must be a JSON object, got {type(data).__name__}")
    head = f"map file {source!r}" if source else "map"
    name = _text(_need(data, "name", str, head), "'name'", head)
    where = f"{head} {name!r}" if source else f"map {name!r}"
    _only_keys(data, "map", where)
    conts = _need(data, "continents", list, where)
    terrs = _need(data, "territories", list, where)
    borders = _need(data, "borders", list, where)
    wilds = data.get("wild_cards", 2)
    if not isinstance(wilds, int) or isinstance(wilds, bool) or not 0 <= wilds <= MAX_WILD_CARDS:
        raise MapError(f"{where}: 'wild_cards' must be an integer from 0 to {MAX_WILD_CARDS}, got {wilds!r}")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise MapError(f"{where}: 'description' must be str, got {type(description).__name__}")
    canvas = data.get("canvas", [1000, 600])
    if not isinstance(canvas, list) or len(canvas) != 2 or not all(_number(v) and 0 < v <= MAX_CANVAS for v in canvas):
        raise MapError(f"{where}: 'canvas' must be [width, height], two numbers above 0 and up to {MAX_CANVAS:g}, got {canvas!r}")
    width, height = float(canvas[0]), float(canvas[1])
    if len(terrs) > MAX_TERRITORIES:
        raise MapError(f"{where}: has {len(terrs)} territories; at most {MAX_TERRITORIES} are allowed")

    cont_names: list[str] = []
    bonus: list[int] = []
    for k, c in enumerate(conts):
        if not isinstance(c, Mapping):
            raise MapError(f"{where}: continent #{k} must be an object, got {type(c).__name__}")
        cn = _need(c, "name", str, f"{where} continent #{k}")
        if not cn.strip():
            raise MapError(f"{where}: continent #{k} has an empty name")
        _text(cn, "the name", f"{where} continent #{k}")
        _only_keys(c, "continent", f"{where} continent {cn!r}")
        b = _need(c, "bonus", int, f"{where} continent {cn!r}")
        if cn in cont_names:
            raise MapError(f"{where}: duplicate continent name {cn!r}")
        if b < 0:
            raise MapError(f"{where}: continent {cn!r} has a negative bonus {b}; bonuses are 0..{MAX_BONUS}")
        if b > MAX_BONUS:
            raise MapError(f"{where}: continent {cn!r} has a bonus of {b}; bonuses are 0..{MAX_BONUS}")
        cont_names.append(cn)
        bonus.append(b)

    names: list[str] = []
    folded: dict[str, str] = {}
    tcont: list[int] = []
    symbols: list[int] = []
    xy: list[list[float]] = []
    drawn: dict[tuple[float, float], int] = {}  # a drawing position -> the territory there
    for k, t in enumerate(terrs):
        if not isinstance(t, Mapping):
            raise MapError(f"{where}: territory #{k} must be an object, got {type(t).__name__}")
        tn = _need(t, "name", str, f"{where} territory #{k}")
        if not tn.strip():
            raise MapError(f"{where}: territory #{k} has an empty name")
        why = name_problem(tn)
        if why is not None:
            raise MapError(f"{where}: territory #{k} cannot be named {tn!r}: {why}")
        if tn in names:
            raise MapError(f"{where}: duplicate territory name {tn!r}")
        if tn.lower() in folded:
            raise MapError(
                f"{where}: territory names {folded[tn.lower()]!r} and {tn!r} differ only in case "
                "(move text reads names case-insensitively)"
            )
        _only_keys(t, "territory", f"{where} territory {tn!r}")
        cn = _need(t, "continent", str, f"{where} territory {tn!r}")
        if cn not in cont_names:
            raise MapError(f"{where}: territory {tn!r} is in unknown continent {cn!r} (continents: {', '.join(cont_names)})")
        sym = t.get("card", SYMBOLS[k % 3])
        if not isinstance(sym, str) or sym not in SYMBOLS[:3]:
            raise MapError(f"{where}: territory {tn!r} has card symbol {sym!r}; allowed: infantry, cavalry, artillery")
        pos = t.get("xy")
        if pos is not None and (
            not isinstance(pos, list)
            or len(pos) != 2
            or not all(_number(v) for v in pos)
            or not (0 <= pos[0] <= width and 0 <= pos[1] <= height)
        ):
            raise MapError(
                f"{where}: territory {tn!r} 'xy' must be [x, y], two numbers on the canvas "
                f"(0..{width:g}, 0..{height:g}), got {pos!r}"
            )
        at = (float(pos[0]), float(pos[1])) if pos is not None else None
        if at is not None and at in drawn:  # (the drawing's regions: one per point)
            other = names[drawn[at]]
            raise MapError(f"{where}: territories {other!r} and {tn!r} are drawn at one point {pos!r}; give each its own xy")
        if at is not None:
            drawn[at] = len(names)
        names.append(tn)
        folded[tn.lower()] = tn
        tcont.append(cont_names.index(cn))
        symbols.append(SYMBOLS.index(sym))
        xy.append([float(v) for v in pos] if pos is not None else [math.nan, math.nan])
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
    if np.isnan(pts).any():
        for i in np.flatnonzero(np.isnan(pts[:, 0])).tolist():
            a = 2 * math.pi * i / n
            pts[i] = (width / 2 + 0.42 * width * math.cos(a), height / 2 + 0.42 * height * math.sin(a))
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
        canvas=(width, height),
        borders=tuple(sorted(pairs)),
        description=description,
        _ids=ids,
    )


def builtin_maps() -> list[str]:
    """Names of the maps shipped in the package (``classic``, ``small``)."""
    return sorted(p.name[:-5] for p in resources.files("risk_env.rules.maps").iterdir() if p.name.endswith(".json"))


def names_a_file(name_or_path: str | Path) -> bool:
    """Whether :func:`load_map` reads ``name_or_path`` as a map file's path (a :class:`~pathlib.Path`, a name ending
    in ``.json`` or holding a folder separator) rather than a shipped map's name.

    >>> names_a_file("classic"), names_a_file("mymap.json"), names_a_file("maps/mine")
    (False, True, True)
    """
    s = str(name_or_path)
    return isinstance(name_or_path, Path) or s.endswith(".json") or "/" in s or "\\" in s


def load_map(name_or_path: str | Path) -> GameMap:
    """Load a shipped map by name (``"classic"``) or a map file by path.

    Raises:
        MapError: unknown name, unreadable file, invalid JSON, or an invalid map.
    """
    s = str(name_or_path)
    if names_a_file(name_or_path):
        path = Path(s)
        try:
            raw = path.read_bytes()
        except OSError as e:
            raise MapError(f"cannot read map file {s!r}: {e.strerror or e}") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise MapError(f"map file {s!r} is not UTF-8 text (byte {e.start}); save it as UTF-8 JSON") from None
        source: str | None = s
    else:
        if s not in builtin_maps():
            raise MapError(f"unknown map {s!r}; shipped maps: {', '.join(builtin_maps())} (or give a path to a .json file)")
        text = resources.files("risk_env.rules.maps").joinpath(s + ".json").read_text(encoding="utf-8")
        source = None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise MapError(f"map file {s!r} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise MapError(f"map file {s!r} nests JSON too deeply to be a map") from None
    except ValueError as e:  # (a number too long to read: Python's limit on integer digits)
        raise MapError(f"map file {s!r} is not JSON that Python reads: {e}") from None
    return map_from_dict(data, source=source)
