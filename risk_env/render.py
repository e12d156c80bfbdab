"""Text rendering of a position (``render_mode="ansi"``)."""

from __future__ import annotations

from .engine import Game
from .state import GameState, Phase

__all__ = ["render_ansi"]


def _seat_name(game: Game, seat: int) -> str:
    if seat < 0:
        return "-"
    if seat == game.neutral:
        return "neutral"
    return f"player_{seat}"


def render_ansi(game: Game, s: GameState, last_move: str = "") -> str:
    """A compact text board: per continent each territory's owner and armies,
    then each player's territories, armies and cards (counts), the phase and the last move."""
    m = game.map
    lines = []
    for ci, cname in enumerate(m.continent_names):
        lines.append(f"{cname} (+{int(m.continent_bonus[ci])})")
        for t in game.continent_idx[ci]:
            t = int(t)
            lines.append(f"  {m.territory_names[t]:<24} {_seat_name(game, int(s.owner[t])):<9} {int(s.armies[t]):>4}")
    lines.append("")
    for seat in range(game.num_seats):
        own = s.owner == seat
        tag = "" if seat == game.neutral or s.alive[seat] else " (out)"
        cards = len(s.hands[seat]) if seat < game.num_players else 0
        lines.append(
            f"{_seat_name(game, seat):<9} territories {int(own.sum()):>3}  armies {int(s.armies[own].sum()):>4}  cards {cards}{tag}"
        )
    ph = Phase(s.phase).name.lower()
    status = f"turn {s.turn}  phase {ph}  on turn {_seat_name(game, s.player)}"
    if s.phase == Phase.GAME_OVER:
        status += f"  winner {_seat_name(game, s.winner)}" if s.winner >= 0 else "  truncated at the turn limit"
    elif s.phase == Phase.REINFORCE:
        status += f"  to place {s.to_place}" + ("  (trade forced)" if s.forced else "")
    lines.append(status)
    if s.last_roll:
        k = s.last_roll.index(0)
        lines.append(f"last roll: attacker {s.last_roll[:k]} defender {s.last_roll[k + 1:]}")
    if last_move:
        lines.append(f"last move: {last_move}")
    return "\n".join(lines)
