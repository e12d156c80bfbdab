"""What one seat may know of a game, and positions consistent with it (docs/rules.md §2, §8).

A :class:`Knowledge` is taken from a live position for one seat. It holds the public part
of the position (every :class:`~risk_env.rules.state.GameState` field the declaration marks
``known="all"``: the board, the phase, the dice already rolled, the discarded sets, the
capitals...), the seat's own hand and mission, every seat's number of cards and the size of
the draw pile; and nothing else: no other seat's cards or mission, not the draw pile's
order, not the generator that decides the dice to come. It keeps no reference to the live
position.

:meth:`Knowledge.position` completes it into a whole :class:`GameState` that the engine can
play on (legality, masks, observations and look-ahead all take one): the hidden parts are
filled in a fixed way from the knowledge alone, or, given a generator, resampled consistently
with it (OpenSpiel's ``resample_from_infostate``): the cards the seat has not seen are dealt
at random to the other hands (each keeps its size) and to the draw pile, the other players'
missions are drawn from the cards the seat does not hold, excluding any that would already
have won the game, and the position gets a fresh generator. The knowledge does not follow the
history of the cards: a card seen in a traded set and reshuffled into the draw pile counts as
unseen again (a seat that remembers more may know more; it never knows less than it is told).

>>> from risk_env.rules.engine import Game
>>> game = Game(num_players=3, setup="random")
>>> s = game.new_game(seed=1)
>>> k = Knowledge.of(s, seat=0)
>>> k.card_counts, k.deck_size
((0, 0, 0), 44)
>>> k.position(game).deck == s.deck  # the draw pile's order is not known
False
>>> game.legal_moves(k.position(game)) == game.legal_moves(s)
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .missions import DESTROY_FIRST, MISSIONS, TWENTY_FOUR, mission_complete
from .state import STATE_FIELDS, GameState

if TYPE_CHECKING:
    from .engine import Game

__all__ = ["Knowledge"]


class Knowledge:
    """What ``seat`` may know of one position (see the module docstring).

    Attributes:
        seat: the knowing seat (``0..num_players-1``).
        card_counts: cards held per seat.
        deck_size: cards in the draw pile.
    """

    __slots__ = ("seat", "card_counts", "deck_size", "_values", "_public")

    def __init__(self, seat: int, values: tuple[Any, ...], card_counts: tuple[int, ...], deck_size: int) -> None:
        self.seat = seat
        self.card_counts = card_counts
        self.deck_size = deck_size
        self._values = values  # every field the seat may know, in declared order (taken by _take)
        self._public: GameState | None = None

    @classmethod
    def of(cls, s: GameState, seat: int) -> Knowledge:
        """What ``seat`` may know of ``s`` (copied: later moves in ``s`` do not change it)."""
        return cls(seat, _take(s, seat), tuple(map(len, s.hands)), len(s.deck))

    @property
    def public(self) -> GameState:
        """The position with every hidden part blanked: other seats' hands empty, other seats'
        missions -1, the draw pile empty, no generator, no buffered dice. Not a playable state
        (:meth:`position` makes one); built on first read, read it without changing it."""
        p = self._public
        if p is None:
            p = self._public = _build(self._values, self.seat, len(self.card_counts))
        return p

    @property
    def hand(self) -> list[int]:
        """The seat's own card ids (as held)."""
        return self.public.hands[self.seat]

    @property
    def mission(self) -> int:
        """The seat's own mission (an index into :data:`~risk_env.rules.missions.MISSIONS`), or -1 without missions."""
        m = self.public.missions
        return m[self.seat] if m else -1

    def unseen_cards(self, game: Game) -> list[int]:
        """The cards the seat has not seen, ascending: every card but its own hand and the discard pile."""
        if not game.uses_cards:
            return []
        seen = set(self.public.hands[self.seat]) | set(self.public.discard)
        return [c for c in range(game.num_cards) if c not in seen]

    def position(self, game: Game, rng: np.random.Generator | None = None) -> GameState:
        """A whole position consistent with this knowledge, for ``game``.

        Args:
            rng: ``None``: the hidden parts are filled in a fixed way (the unseen cards in
                ascending order to the other seats in seat order, then the draw pile; the first
                mission card each other player could hold; a generator seeded 0), so the result
                depends on the knowledge alone. A generator: they are resampled from it (module
                docstring), and the position's own generator is seeded from it.

        Returns:
            a new :class:`GameState` (changing it changes nothing else).
        """
        s = self.public.copy()
        seat = self.seat
        unseen = self.unseen_cards(game)
        if rng is not None and unseen:
            unseen = [unseen[i] for i in rng.permutation(len(unseen))]
        k = 0
        for p, count in enumerate(self.card_counts):
            if p != seat:
                s.hands[p] = unseen[k : k + count]
                k += count
        s.deck = unseen[k:]
        if s.missions:
            _fill_missions(game, s, seat, rng)
        # a fixed position shares one generator, copy-on-write as copies do (GameState.own_rng)
        s.rng = _FIXED_RNG if rng is None else np.random.default_rng(int(rng.integers(2**63)))
        s.dice_buf = []
        s.dice_pos = 0
        return s

    def __eq__(self, other: object) -> bool:
        """The same seat knowing the same things (every declared field it may know)."""
        if not isinstance(other, Knowledge):
            return NotImplemented
        if (self.seat, self.card_counts, self.deck_size) != (other.seat, other.card_counts, other.deck_size):
            return False
        return all(
            np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
            for x, y in zip(self._values, other._values, strict=True)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Knowledge(seat={self.seat}, {self.public!r}, card_counts={self.card_counts}, deck_size={self.deck_size})"


_FIXED_RNG = np.random.Generator(np.random.PCG64(0))
"""The generator of every fixed position (never drawn from: a draw clones it first)."""


def _fill_missions(game: Game, s: GameState, seat: int, rng: np.random.Generator | None) -> None:
    """Missions for the other players: drawn (or taken in order) from the cards ``seat`` does not
    hold, each becoming "hold 24 territories" where the deal would make it so (docs/rules.md §8),
    and never one that would already be complete (the game would have ended)."""
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
                if not s.alive[target] and s.eliminated_by and s.eliminated_by[target] != p:
                    m = TWENTY_FOUR
            s.missions[p] = m
            if not (s.alive[p] and mission_complete(game, s, p)):
                del pool[j]
                break
        else:
            s.missions[p] = TWENTY_FOUR


# ---------------------------------------------------------------------- taking it, generated
# Written out from the declaration once, at import (risk_env.rules.state does the same for copy and
# to_dict): a seat's knowledge is taken at every decision an agent may see, so taking it is one tuple
# of copies, and tuples at that (the garbage collector does not track tuples of numbers, so taking
# knowledge at every step adds nothing to its work); the GameState of `public` is built from it only
# when someone reads it.
_TAKE = {
    "int64[T]": "s.{0}.copy()",
    "int32[T]": "s.{0}.copy()",
    "ints": "tuple(s.{0})",
    "bools": "tuple(s.{0})",
    "int": "s.{0}",
    "bool": "s.{0}",
}
_TAKE_OWN = {"hands": "tuple(s.{0}[seat])", "ints": "s.{0}[seat] if s.{0} else None"}
_BUILD = {
    "int64[T]": "v[{1}]",
    "int32[T]": "v[{1}]",
    "ints": "list(v[{1}])",
    "bools": "list(v[{1}])",
    "int": "v[{1}]",
    "bool": "v[{1}]",
}
_BUILD_OWN = {
    "hands": "[list(v[{1}]) if p == seat else [] for p in range(seats)]",
    "ints": "[v[{1}] if p == seat else -1 for p in range(seats)] if v[{1}] is not None else []",
}
_NOBODY = {"rng": "None", "dice": "[]", "ints": "[]", "int": "{1!r}"}
_KEPT = tuple(f for f in STATE_FIELDS if f.known != "nobody")


def _generate() -> tuple[Callable[[GameState, int], tuple[Any, ...]], Callable[[tuple[Any, ...], int, int], GameState]]:
    take = ["def take(s, seat):", "    return ("]
    take += [f"        {(_TAKE_OWN if f.known == 'own' else _TAKE)[f.kind].format(f.name)}," for f in _KEPT]
    take.append("    )")
    build = ["def build(v, seat, seats):", "    c = _new(GameState)"]
    build += [
        f"    c.{f.name} = {(_BUILD_OWN if f.known == 'own' else _BUILD)[f.kind].format(f.name, i)}" for i, f in enumerate(_KEPT)
    ]
    build += [f"    c.{f.name} = {_NOBODY[f.kind].format(f.name, f.default)}" for f in STATE_FIELDS if f.known == "nobody"]
    build.append("    return c")
    ns: dict[str, Any] = {"_new": object.__new__, "GameState": GameState}
    exec("\n".join(take) + "\n\n" + "\n".join(build), ns)  # source built above from the declaration
    return ns["take"], ns["build"]


_take, _build = _generate()
