"""The capitals variant (``capitals=True``, docs/rules.md §8): after setup each player, in
turn order, chooses a capital among its territories (the capital phase and the move
``capital <territory>``); a player holding every capital wins at once. Capitals are public.

Every hook through which the rest of the package asks the variant is a method of
:class:`Capitals`: setup, the capital phase's legality, mask and ids, the win, its
observation blocks, its text and board marks.

>>> from risk_env import Game
>>> game = Game(num_players=3, setup="random", capitals=True)
>>> s = game.new_game(seed=0)
>>> s.phase.name, s.capitals
('CAPITAL', [-1, -1, -1])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .config import RulesConfig
from .moves import MOVES, Move, MoveKind
from .state import GameState, Phase
from .variant import Variant

if TYPE_CHECKING:
    from .engine import Game

__all__ = ["Capitals", "capitals_winner"]


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


class Capitals(Variant):
    """``capitals=True`` (docs/rules.md §8); see the module docstring."""

    name = "capitals"
    section = "§8"
    rank = 40
    moves = (MOVES[MoveKind.CAPITAL],)

    @staticmethod
    def applies(config: RulesConfig) -> bool:
        return config.capitals

    # ------------------------------------------------------------------ rules
    def setup(self, s: GameState) -> None:
        s.capitals = [-1] * self.game.num_players

    def before_first_turn(self, s: GameState) -> bool:
        """The capital phase: the next seat in turn order without a capital chooses one."""
        for seat in s.order:
            if s.capitals[seat] < 0:
                s.phase = Phase.CAPITAL
                s.player = seat
                return True
        return False

    def check_move(self, s: GameState, move: Move) -> str | None:
        if s.owner[move.src] != s.player:
            return f"{self.game.map.name_of(move.src)} is not yours"
        return None

    def apply(self, s: GameState, move: Move) -> None:
        s.capitals[s.player] = move.src
        self.game.finish_setup(s)  # the next capital, or the first turn

    def legal_moves(self, s: GameState) -> list[Move] | None:
        if s.phase != Phase.CAPITAL:
            return None
        return [Move.capital(int(t)) for t in np.flatnonzero(s.owner == s.player)]

    def winner(self, s: GameState) -> int:
        return capitals_winner(self.game, s)

    def win_text(self, s: GameState) -> str | None:
        return "holds every capital" if s.winner >= 0 and capitals_winner(self.game, s) == s.winner else None

    def invariant_violations(self, s: GameState) -> list[str]:
        n = self.game.num_players
        if len(s.capitals) != n:
            return [f"capitals must hold {n} entries (capitals=True)"]
        T = self.game.T
        if any(not -1 <= t < T for t in s.capitals):
            return [f"capitals must be territory ids 0..{T - 1} (or -1 while not chosen)"]
        out = []
        if len({t for t in s.capitals if t >= 0}) != sum(t >= 0 for t in s.capitals):
            out.append(f"two players have the same capital: {s.capitals}")
        if s.phase == Phase.CAPITAL and s.turn != 0:
            out.append("capitals are chosen before the first turn (turn 0)")
        if s.turn >= 1 and -1 in s.capitals:
            out.append("a capital is still to be chosen after the first turn began")
        if s.phase == Phase.CAPITAL and (not 0 <= s.player < n or s.capitals[s.player] != -1):
            out.append("the capital phase needs a player on turn without a capital")
        if s.phase == Phase.CAPITAL and any(c >= 0 and s.owner[c] != q for q, c in enumerate(s.capitals)):
            out.append(f"capitals {s.capitals}: before the first turn each chosen capital is held by the player who chose it")
        return out

    # ------------------------------------------------------------------ action ids and observations
    def owns_decision(self, s: GameState) -> bool:
        return s.phase == Phase.CAPITAL

    def mask(self, codec: Any, s: GameState, sel: Any, m: np.ndarray) -> None:
        m[: self.game.T] = s.owner == s.player

    def translate(self, codec: Any, s: GameState, action: int, sel: Any) -> Move | tuple[str, int] | None:
        return Move.capital(action) if action < self.game.T else None

    def move_to_action(self, codec: Any, s: GameState, move: Move, sel: Any) -> int | None:
        return int(move.src) if move.kind == MoveKind.CAPITAL else None

    def action_text(self, codec: Any, s: GameState, action: int, sel: Any) -> str | None:
        if s.phase == Phase.CAPITAL and action < self.game.T:
            return f"capital {self.game.map.name_of(action)}"
        return None

    @staticmethod
    def observation_blocks(dims: Any) -> Sequence[tuple[str, tuple[int, ...], str]]:
        return (
            ("capital", (dims.T, dims.n), "one-hot rotated slot whose capital each territory is"),
            ("capital_phase", (1,), "1 while capitals are being chosen"),
        )

    def observe(self, encoder: Any, s: GameState, seat: int, out: np.ndarray) -> None:
        n = self.game.num_players
        L = encoder.layout
        o = L["capital"][0].start
        for p, t in enumerate(s.capitals):
            if t >= 0:
                out[o + t * n + (p - seat) % n] = 1.0
        if s.phase == Phase.CAPITAL:
            out[L["capital_phase"][0].start] = 1.0

    # ------------------------------------------------------------------ text and pictures
    def territory_marks(self, s: GameState) -> dict[int, tuple[str, str, int]]:
        return {int(t): ("capital of {}", "#", p) for p, t in enumerate(s.capitals) if t >= 0}

    def summary(self, s: GameState, viewer: int | None) -> str | None:
        return "Capitals: after setup each player chooses a capital; holding every capital wins."

    def legend(self, s: GameState, who: Any) -> str | None:
        chosen = sorted((int(t), p) for p, t in enumerate(s.capitals) if t >= 0)
        if not chosen:
            return None
        return "capitals (#): " + ", ".join(f"{self.game.map.name_of(t)} ({who(p)})" for t, p in chosen)

    def decision_text(self, s: GameState, short: bool = False) -> str | None:
        if s.phase != Phase.CAPITAL:
            return None
        # a picture draws each chosen capital as a star (risk_env.records.picture)
        return "choose a capital (\u2605)" if short else "choose your capital among your territories (holding every capital wins)"

    def phase_note(self, s: GameState, who: Any) -> str | None:
        return f"{who(s.player)} chooses a capital among its territories" if s.phase == Phase.CAPITAL else None
