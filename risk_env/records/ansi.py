"""Text rendering of a position (``render_mode="ansi"``).

:func:`render_ansi` gives a compact board: per continent (with its bonus and
who holds it) each territory's owner and armies, then each player's
territories, armies and cards (counts only: hands are hidden), the turn and
phase, the pending battle, the last dice roll and the last moves. With
``color=True`` owners are coloured with ANSI escape codes (for terminals);
the default is plain text.

>>> from risk_env import Game
>>> game = Game(num_players=2, setup="random", map="small", two_player="none")
>>> print(render_ansi(game, game.new_game(seed=0)).splitlines()[0])
West (+2)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules.engine import Game
from ..rules.state import GameState, Phase

__all__ = ["render_ansi", "seat_name"]

_ANSI = ("\x1b[34m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[35m", "\x1b[36m")  # blue red green yellow magenta cyan
_GREY, _BOLD, _RESET = "\x1b[90m", "\x1b[1m", "\x1b[0m"


def seat_name(game: Game, seat: int) -> str:
    """``player_<seat>``, ``neutral`` for the 2-player neutral, ``-`` for none."""
    if seat < 0:
        return "-"
    if seat == game.neutral:
        return "neutral"
    return f"player_{seat}"


def render_ansi(
    game: Game,
    s: GameState,
    last_move: str = "",
    recent: Sequence[str] = (),
    color: bool = False,
    names: Sequence[str] | None = None,
) -> str:
    """A compact text board of ``s`` (one string, lines joined by ``\\n``).

    Args:
        game: the game ``s`` belongs to.
        s: the position.
        last_move: text of the last complete move ('' for none); its territories are marked ``<``.
        recent: texts of earlier moves (oldest first); the last 5 are listed.
        color: colour owners with ANSI escape codes.
        names: labels per player seat (default ``player_<seat>``).
    """
    m = game.map

    def who(seat: int) -> str:
        if seat < 0:
            return "-"
        if names is not None and 0 <= seat < game.num_players:
            return str(names[seat])
        return seat_name(game, seat)

    def paint(text: str, seat: int) -> str:
        if not color:
            return text
        if seat < 0 or seat == game.neutral:
            return _GREY + text + _RESET
        return _ANSI[seat % len(_ANSI)] + text + _RESET

    marked: set[int] = set()
    if last_move:
        try:
            mv = game.parse_move(s, last_move)
            marked = {t for t in (mv.src, mv.dst, mv.bonus) if t >= 0}
        except ValueError:
            pass
    if s.phase in (Phase.DEFEND, Phase.OCCUPY) and s.att_src >= 0:
        marked |= {s.att_src, s.att_dst}
    width = max(len(n) for n in m.territory_names)
    wname = max([len(who(p)) for p in range(game.num_seats)] + [7])
    lines = []
    for ci, cname in enumerate(m.continent_names):
        idx = game.continent_idx[ci]
        holders = {int(o) for o in s.owner[idx]}
        head = f"{cname} (+{int(m.continent_bonus[ci])})"
        if len(holders) == 1 and min(holders) >= 0:
            head += f"  held by {paint(who(min(holders)), min(holders))}"
        lines.append(head)
        for t in map(int, idx):
            o = int(s.owner[t])
            mark = " <" if t in marked else ""
            lines.append(f"  {m.territory_names[t]:<{width}}  {paint(f'{who(o):<{wname}}', o)} {int(s.armies[t]):>4}{mark}")
    lines.append("")
    setup = s.phase in (Phase.CLAIM, Phase.SETUP_PLACE)
    for seat in range(game.num_seats):
        own = s.owner == seat
        tag = ""
        if seat < game.num_players:
            if seat == s.winner:
                tag = "  winner"
            elif not s.alive[seat] and not setup:
                tag = "  (out)"
        cards = len(s.hands[seat]) if seat < game.num_players else 0
        turn = ">" if seat == s.player and s.phase != Phase.GAME_OVER else " "
        line = (
            f"{turn} {paint(f'{who(seat):<{wname}}', seat)} territories {int(own.sum()):>3}  armies {int(s.armies[own].sum()):>4}"
        )
        if game.uses_cards and seat < game.num_players:
            line += f"  cards {cards}"
        lines.append(line + tag)
    ph = Phase(s.phase).name.lower().replace("_", " ")
    stage = "setup" if s.turn == 0 else f"turn {s.turn}"
    status = f"{stage}  phase {ph}  on turn {who(s.player)}"
    if s.phase == Phase.GAME_OVER:
        status = f"game over after {s.turn} turns: " + (
            f"winner {who(s.winner)}" if s.winner >= 0 else "truncated at the turn limit"
        )
    elif s.phase == Phase.REINFORCE:
        status += f"  to place {s.to_place}" + ("  (must trade first)" if s.forced else "")
    elif setup:
        left = s.setup_left[s.player] if s.setup_step < 2 else s.setup_left[-1]
        status += f"  armies left to place {left}"
    elif s.phase == Phase.DEFEND:
        status += (
            f"  {m.name_of(s.att_src)} attacks {m.name_of(s.att_dst)} with {s.att_dice}: {who(game.current_player(s))} defends"
        )
    elif s.phase == Phase.OCCUPY:
        lo, hi = game.occupy_range(s)
        status += f"  {m.name_of(s.att_dst)} conquered: occupy with {lo}..{hi}"
    lines.append(status)
    if s.last_roll:
        k = s.last_roll.index(0)
        lines.append(f"last roll: attacker {s.last_roll[:k]} defender {s.last_roll[k + 1 :]}")
    if s.elim_order:
        lines.append("eliminated: " + ", ".join(who(p) for p in s.elim_order))
    if recent:
        lines.append("earlier moves: " + " | ".join(list(recent)[-5:]))
    if last_move:
        lines.append(f"last move: {last_move}")
    return "\n".join(lines)
