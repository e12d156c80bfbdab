"""Trades by stars (``card_trade="stars"``, docs/rules.md §6).

A card carries stars by its symbol (:data:`~risk_env.rules.cards.SYMBOL_STARS`); any cards
worth 2..10 stars together are traded for :func:`~risk_env.rules.cards.stars_value` armies
(2, 4, 7, 10, 13, 17, 21, 25, 30). The move names the star total, ``trade stars=<k>``
(:data:`~risk_env.rules.moves.STARS_TRADE`), and the rules pick the cards
(:func:`~risk_env.rules.cards.stars_pick`: the value depends on the total alone). There is
no forced trade and no +2 territory bonus. The action codec's trade block has 9 ids, one per
star total.

Every hook through which the rest of the package asks the variant is a method of
:class:`StarsTrades`.

>>> from risk_env import Game, Move
>>> game = Game(num_players=3, setup="random", card_trade="stars")
>>> game.move_to_text(Move.trade_stars(7)), game.trade_variant.name
('trade stars=7', 'stars')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .cards import MAX_STARS, MIN_STARS, SYMBOL_STARS, stars_pick, stars_value
from .config import RulesConfig
from .moves import STARS_TRADE, Move, MoveSpec
from .state import GameState
from .variant import Variant

if TYPE_CHECKING:
    from .engine import Game

__all__ = ["StarsTrades", "TRADE_IDS"]

TRADE_IDS = MAX_STARS - MIN_STARS + 1
"""Ids of the trade block under stars trades: ``i`` trades cards worth ``2 + i`` stars."""


class StarsTrades(Variant):
    """``card_trade="stars"`` (docs/rules.md §6); see the module docstring."""

    name = "stars"
    section = "§6"
    rank = 10  # the trade block's place (it replaces the set trades' block)

    @staticmethod
    def applies(config: RulesConfig) -> bool:
        return config.card_trade == "stars"

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.card_stars = [SYMBOL_STARS[x] for x in game.card_symbol]
        """Stars of every card id (docs/rules.md §6)."""

    def stars_cards(self, s: GameState, stars: int) -> tuple[int, ...] | None:
        """The cards a stars trade of ``stars`` stars by the player on turn gives up now, or
        None if its hand cannot make that total (:func:`risk_env.rules.cards.stars_pick`)."""
        return stars_pick(s.hands[s.player], self.game.card_symbol, stars)

    def hand_stars(self, s: GameState) -> int:
        """The stars of the hand of the player on turn."""
        return sum(self.card_stars[c] for c in s.hands[s.player])

    # ------------------------------------------------------------------ the trade
    def trade_spec(self) -> MoveSpec:
        return STARS_TRADE

    def trade_value(self, s: GameState, move: Move) -> int:
        return stars_value(move.count)

    def trade_cards(self, s: GameState, move: Move) -> tuple[int, ...]:
        return self.stars_cards(s, move.count) or ()

    def trade_moves(self, s: GameState) -> list[Move]:
        return [Move.trade_stars(k) for k in range(MIN_STARS, MAX_STARS + 1) if self.stars_cards(s, k) is not None]

    def check_trade(self, s: GameState, move: Move) -> str | None:
        if not MIN_STARS <= move.count <= MAX_STARS:
            return f"a stars trade is worth {MIN_STARS}..{MAX_STARS} stars ('trade stars=<k>')"
        if self.stars_cards(s, move.count) is None:
            hand = ", ".join(self.game.map.card_name(c) for c in sorted(s.hands[s.player])) or "no cards"
            return f"your cards ({hand}; {self.hand_stars(s)} stars) cannot make {move.count} stars"
        return None

    # ------------------------------------------------------------------ the trade ids
    @staticmethod
    def trade_block() -> tuple[str, tuple[int, ...], str]:
        """The trade block of the action ids: one id per star total."""
        return ("trade", (TRADE_IDS,), "trade cards worth 2 + i stars (the rules pick the cards)")

    def trade_mask(self, s: GameState) -> np.ndarray:
        """int8 ``(9,)``: the star totals the hand can make now."""
        return np.array([self.stars_cards(s, k) is not None for k in range(MIN_STARS, MAX_STARS + 1)], dtype=np.int8)

    def trade_of_id(self, i: int) -> Move:
        """The move of trade id ``i`` (``0..8``)."""
        return Move.trade_stars(i + MIN_STARS)

    def id_of_trade(self, move: Move) -> int:
        """The trade id of a stars trade move."""
        return int(move.count) - MIN_STARS

    def trade_id_text(self, i: int) -> str:
        return f"trade stars={i + MIN_STARS}"

    def trade_id_refusal(self, i: int) -> str:
        return f"your cards cannot make {i + MIN_STARS} stars now"
