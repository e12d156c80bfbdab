"""Secret missions and capitals (docs/rules.md §8).

Missions are data: :data:`MISSIONS` lists the 14 mission cards of the 1993
edition of the board game Risk, one :class:`Mission` each. A game deals one
card to each player from the seeded generator at setup
(:func:`deal_missions`); :func:`mission_complete` says whether a player has
completed its mission; :func:`settle_missions` applies the "destroy colour X"
fallback and finds the winner after a move.

Colours are seats: "destroy colour X" means "eliminate player X" (seat ``X``,
``0..5``). A card naming a seat that is not in the game, or the holder
itself, becomes "hold 24 territories" when it is dealt.

The missions name the classic board's six continents, so they need a map with
continents of those names (:func:`check_map`); the other maps reject the
switch.

>>> [m.text for m in MISSIONS[:2]]
['conquer Europe, Australia and one other continent', 'conquer Europe, South America and one other continent']
>>> MISSIONS[TWENTY_FOUR].text, MISSIONS[DESTROY_FIRST + 2].text
('hold 24 territories', 'destroy player_2 (every army of that player)')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from .state import GameState

if TYPE_CHECKING:
    from .engine import Game
    from .map import GameMap

__all__ = [
    "Mission",
    "MISSIONS",
    "TWENTY_FOUR",
    "EIGHTEEN_TWO",
    "DESTROY_FIRST",
    "CLASSIC_CONTINENTS",
    "check_map",
    "deal_missions",
    "mission_complete",
    "mission_text",
    "settle_missions",
    "capitals_winner",
]

CLASSIC_CONTINENTS = ("North America", "South America", "Europe", "Africa", "Asia", "Australia")
"""The continent names the missions refer to."""


@dataclass(frozen=True)
class Mission:
    """One mission card.

    Attributes:
        kind: ``"continents"``, ``"territories"`` or ``"destroy"``.
        continents: continent names that must all be held (``"continents"``).
        plus_one: one more continent, any other, must also be held (``"continents"``).
        territories: territories to hold (``"territories"``).
        min_armies: armies each of those territories must hold (``"territories"``).
        target: the seat to eliminate (``"destroy"``).
        text: the card's wording.
    """

    kind: str
    continents: tuple[str, ...] = ()
    plus_one: bool = False
    territories: int = 0
    min_armies: int = 1
    target: int = -1
    text: str = ""


def _cont(names: tuple[str, ...], plus_one: bool = False) -> Mission:
    text = "conquer " + (", ".join(names) + " and one other continent" if plus_one else " and ".join(names))
    return Mission("continents", continents=names, plus_one=plus_one, text=text)


MISSIONS: tuple[Mission, ...] = (
    _cont(("Europe", "Australia"), plus_one=True),
    _cont(("Europe", "South America"), plus_one=True),
    _cont(("North America", "Africa")),
    _cont(("North America", "Australia")),
    _cont(("Asia", "South America")),
    _cont(("Asia", "Africa")),
    Mission("territories", territories=24, text="hold 24 territories"),
    Mission("territories", territories=18, min_armies=2, text="hold 18 territories with at least 2 armies each"),
    *(Mission("destroy", target=x, text=f"destroy player_{x} (every army of that player)") for x in range(6)),
)
"""The 14 mission cards of the 1993 edition (docs/rules.md §8), in this order:
six continent pairs, 24 territories, 18 territories with 2 armies each, and
"destroy colour X" for the six seats."""

TWENTY_FOUR = 6
"""Index of "hold 24 territories" in :data:`MISSIONS` (the fallback)."""
EIGHTEEN_TWO = 7
"""Index of "hold 18 territories with at least 2 armies each"."""
DESTROY_FIRST = 8
"""Index of "destroy player_0"; ``DESTROY_FIRST + x`` destroys seat ``x``."""


def check_map(game_map: GameMap) -> None:
    """Reject a map whose continents are not the classic six (the missions name them).

    Raises:
        ConfigError: the map lacks one of :data:`CLASSIC_CONTINENTS` or has fewer than 24 territories.
    """
    missing = [c for c in CLASSIC_CONTINENTS if c not in game_map.continent_names]
    if missing or game_map.num_territories < 24:
        raise ConfigError(
            f"secret_missions=True needs a map with the classic continents ({', '.join(CLASSIC_CONTINENTS)}) "
            f"and at least 24 territories; map {game_map.name!r} lacks {', '.join(missing) or '24 territories'}. "
            "Use map='classic' or secret_missions=False"
        )


def deal_missions(rng: np.random.Generator, num_players: int) -> list[int]:
    """One mission index per seat, drawn without replacement from all 14 cards;
    "destroy" cards naming the holder or a seat not in the game become
    :data:`TWENTY_FOUR` (docs/rules.md §8)."""
    deck = rng.permutation(len(MISSIONS))[:num_players]
    out = []
    for seat, m in enumerate(int(x) for x in deck):
        mission = MISSIONS[m]
        if mission.kind == "destroy" and (mission.target == seat or mission.target >= num_players):
            m = TWENTY_FOUR
        out.append(m)
    return out


def mission_text(index: int) -> str:
    """The wording of mission ``index`` (``"none"`` for -1)."""
    return MISSIONS[index].text if 0 <= index < len(MISSIONS) else "none"


def mission_complete(game: Game, s: GameState, seat: int) -> bool:
    """Whether ``seat`` has completed its mission in ``s`` (docs/rules.md §8).

    A "destroy" mission is complete once its target is eliminated (the fallback
    for an elimination by someone else is applied by :func:`settle_missions` first).
    """
    idx = s.missions[seat] if seat < len(s.missions) else -1
    if idx < 0 or not s.alive[seat]:
        return False
    m = MISSIONS[idx]
    own = s.owner == seat
    if m.kind == "territories":
        if m.min_armies > 1:
            return int(np.count_nonzero(own & (s.armies >= m.min_armies))) >= m.territories
        return int(np.count_nonzero(own)) >= m.territories
    if m.kind == "destroy":
        return not s.alive[m.target]
    names = game.map.continent_names
    held = [bool(own[game.continent_idx[c]].all()) for c in range(len(names))]
    need = [names.index(c) for c in m.continents]
    if not all(held[c] for c in need):
        return False
    if m.plus_one:
        return any(h for c, h in enumerate(held) if c not in need)
    return True


def settle_missions(game: Game, s: GameState) -> int:
    """After a move: apply the "destroy colour X" rule for players eliminated by
    someone else, then return the seat that has completed its mission (or -1).

    With ``mission_target_taken="24_territories"`` a mission whose target was
    eliminated by another player becomes :data:`TWENTY_FOUR` (in ``s``); with
    ``"holder_wins"`` it stays and counts as complete. When several players
    complete their missions by the same move, the player on turn wins, else the
    first in turn order after it.
    """
    n = game.num_players
    if game.config.mission_target_taken == "24_territories":
        for seat in range(n):
            idx = s.missions[seat]
            if idx >= DESTROY_FIRST:
                target = MISSIONS[idx].target
                if not s.alive[target] and s.eliminated_by[target] != seat:
                    s.missions[seat] = TWENTY_FOUR
    order = s.order
    start = order.index(s.player)
    for k in range(n):
        seat = order[(start + k) % n]
        if mission_complete(game, s, seat):
            return seat
    return -1


def capitals_winner(game: Game, s: GameState) -> int:
    """The seat holding every chosen capital, or -1 (docs/rules.md §8). Needs every
    player's capital chosen."""
    caps = s.capitals
    if not caps or min(caps) < 0:
        return -1
    holder = int(s.owner[caps[0]])
    if holder < 0 or holder >= game.num_players:
        return -1
    return holder if all(int(s.owner[c]) == holder for c in caps) else -1
