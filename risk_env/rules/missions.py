"""The secret missions variant (``secret_missions=True``, docs/rules.md §8): its data, its rules
and every hook through which the rest of the package asks it (:class:`SecretMissions`).

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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigError
from .config import RulesConfig
from .state import GameState, Phase
from .variant import Variant

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
    "mission_code",
    "SecretMissions",
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


def mission_code(mission: int, seat: int, num_players: int) -> int:
    """Index of ``mission`` in the ``mission`` observation block as ``seat`` sees it: the card,
    a "destroy" card's target by its seat rotated to ``seat``."""
    if mission >= DESTROY_FIRST:
        return DESTROY_FIRST + (MISSIONS[mission].target - seat) % num_players
    return mission


class SecretMissions(Variant):
    """``secret_missions=True`` (docs/rules.md §8): a mission card per player, dealt last at
    setup; completing it wins at once. Another seat's mission is hidden (its field is known
    ``"own"``, :data:`~risk_env.rules.state.STATE_FIELDS`)."""

    name = "secret_missions"
    section = "§8"
    rank = 30

    @staticmethod
    def applies(config: RulesConfig) -> bool:
        return config.secret_missions

    def check(self) -> None:
        check_map(self.game.map)  # the missions name the classic continents

    def setup(self, s: GameState) -> None:
        s.eliminated_by = [-1] * self.game.num_players

    def after_new_game(self, s: GameState) -> None:
        # dealt last, so the other draws match a game without missions
        s.missions = deal_missions(s.own_rng(), self.game.num_players)

    def eliminated(self, s: GameState, loser: int, by: int) -> None:
        s.eliminated_by[loser] = by

    def winner(self, s: GameState) -> int:
        return settle_missions(self.game, s)

    def win_text(self, s: GameState) -> str | None:
        if s.winner >= 0 and mission_complete(self.game, s, s.winner):
            return f"mission complete: {mission_text(s.missions[s.winner])}"
        return None

    def invariant_violations(self, s: GameState) -> list[str]:
        n = self.game.num_players
        if len(s.missions) != n or len(s.eliminated_by) != n:
            return [f"missions and eliminated_by must hold {n} entries (secret_missions=True)"]
        out = []
        if any(not 0 <= m < len(MISSIONS) for m in s.missions):
            out.append(f"missions must be mission indices 0..{len(MISSIONS) - 1}")
        else:
            for seat, m in enumerate(s.missions):
                target = MISSIONS[m].target if MISSIONS[m].kind == "destroy" else -1
                if target == seat or target >= n:
                    whom = "itself" if target == seat else "a colour nobody plays"
                    out.append(
                        f"seat {seat} holds mission {m} ({MISSIONS[m].text}), which names {whom}; "
                        "such a card is dealt as '24 territories' (§8)"
                    )
        if any(not -1 <= p < n for p in s.eliminated_by):
            out.append(f"eliminated_by must hold seats 0..{n - 1} (or -1)")
        return out

    def fill_hidden(self, s: GameState, seat: int, rng: np.random.Generator | None) -> None:
        """The other players' missions: drawn (or taken in order) from the cards ``seat`` does not
        hold, each becoming "hold 24 territories" where the deal would make it so, and never
        one that would already be complete (the game would have ended)."""
        game = self.game
        n = game.num_players
        pool = [m for m in range(len(MISSIONS)) if m != s.missions[seat]]
        if rng is not None:
            pool = [pool[i] for i in rng.permutation(len(pool))]
        for p in range(n):
            if p == seat:
                continue
            for j, m in enumerate(pool):
                mission = MISSIONS[m]
                if mission.kind == "destroy" and (mission.target == p or mission.target >= n):
                    m = TWENTY_FOUR
                elif m >= DESTROY_FIRST and game.config.mission_target_taken == "24_territories":
                    target = mission.target
                    if not s.alive[target] and s.eliminated_by[target] != p:
                        m = TWENTY_FOUR
                s.missions[p] = m
                if not (s.alive[p] and mission_complete(game, s, p)):
                    del pool[j]
                    break
            else:
                s.missions[p] = TWENTY_FOUR

    # ------------------------------------------------------------------ observations
    @staticmethod
    def observation_blocks(dims: Any) -> Sequence[tuple[str, tuple[int, ...], str]]:
        return (
            ("mission", (DESTROY_FIRST + dims.n,), "the observer's own mission, one-hot (destroy: by rotated slot)"),
            ("mission_held", (dims.n,), "1 per live rotated seat holding a mission"),
        )

    def observe(self, encoder: Any, s: GameState, seat: int, out: np.ndarray) -> None:
        n = self.game.num_players
        L = encoder.layout
        out[L["mission"][0].start + mission_code(s.missions[seat], seat, n)] = 1.0
        o = L["mission_held"][0].start
        for k in range(n):
            if s.alive[(seat + k) % n]:
                out[o + k] = 1.0

    def critic_state(self, s: GameState, seat: int) -> np.ndarray:
        """float32 ``(n, 8 + n)``: every player's mission, one-hot, rows by seat rotated to
        ``seat`` (for the full position of a centralized critic, ``env.state()``; never part of
        an observation)."""
        n = self.game.num_players
        out = np.zeros((n, DESTROY_FIRST + n), dtype=np.float32)
        for k in range(n):
            out[k, mission_code(s.missions[(seat + k) % n], seat, n)] = 1.0
        return out

    # ------------------------------------------------------------------ text
    def summary(self, s: GameState, viewer: int | None) -> str | None:
        if viewer is None or not 0 <= viewer < len(s.missions):
            return None
        return f"Your secret mission: {mission_text(s.missions[viewer])}."  # only the viewer's own

    def notes(self, s: GameState, viewer: int | None, who: Any) -> list[str]:
        """The viewer's own mission; once the game is won, the winner's."""
        out = []
        if viewer is not None and 0 <= viewer < len(s.missions):
            out.append(f"your mission ({who(viewer)}): {mission_text(s.missions[viewer])}")
        if s.phase == Phase.GAME_OVER and s.winner >= 0 and s.winner != viewer:
            out.append(f"mission of {who(s.winner)}: {mission_text(s.missions[s.winner])}")
        return out
