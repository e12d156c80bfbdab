"""What a picture of a position shows, apart from how it is drawn.

:func:`describe` reads a position and returns a :class:`Picture`: each
territory's colour and army count, the highlight of the last move (an arrow
or a ring) or of the pending battle, the codec's pending selection, the
territories a variant marks (a capital, docs/rules.md §8), and the side
panel's texts (turn and phase, who acts, each player's territories, armies
and cards, who holds each continent, the last move and roll, the moves
before it). The raster picture
(:mod:`risk_env.records.draw`) and the SVG picture
(:mod:`risk_env.records.svg`) both draw a :class:`Picture`, so they show the
same things. Only public information is shown: card counts, never cards, and
no mission.

>>> from risk_env import Game
>>> game = Game(num_players=3, setup="random", map="small")
>>> pic = describe(game, game.new_game(seed=0))
>>> pic.title, [row.territories for row in pic.rows]
('turn 1 · reinforce', [3, 3, 3])
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from ..envs.codec import Selection
from ..errors import ConfigError, StateError
from ..rules.engine import Game
from ..rules.moves import Move, MoveKind
from ..rules.state import GameState, Phase
from .ansi import owner_label, players_problem, territory_marks
from .layout import ATTACK_COLOR, MOVE_COLOR, NEUTRAL_COLOR, PLAYER_COLORS, UNCLAIMED_COLOR

__all__ = [
    "Arrow",
    "PlayerRow",
    "Picture",
    "check_moves_text",
    "describe",
    "seat_colors",
    "seat_labels",
    "parse_last_move",
]

SELECT_COLOR = "#ffc400"
"""Colour of a ring around a placed territory, and of the pending selection."""


@dataclass(frozen=True)
class Arrow:
    """An arrow from territory ``src`` to ``dst`` in ``color``, with a ``label`` beside it ('' for none);
    ``dashed`` for a pending selection (not played yet)."""

    src: int
    dst: int
    color: str
    label: str
    dashed: bool = False


@dataclass(frozen=True)
class PlayerRow:
    """One seat's line in the panel.

    Attributes:
        seat: the seat; name: its label; color: its colour.
        territories, armies: what it holds; cards: its card count as text (``"-"`` without cards).
        on_turn: it is on turn; out: eliminated; won: the winner.
    """

    seat: int
    name: str
    color: str
    territories: int
    armies: int
    cards: str
    on_turn: bool
    out: bool
    won: bool


@dataclass(frozen=True)
class Picture:
    """Everything a picture of one position shows (see the module docstring).

    Attributes:
        owner: per territory, its owner seat (-1 unclaimed); color: its owner's colour.
        armies: per territory, its armies.
        arrow: the highlighted arrow, or None; ring: a territory ringed in :data:`SELECT_COLOR`, or -1.
        selected: territories of the codec's pending selection (a source, or a source and a target).
        marks: ``(territory, seat)`` of each territory a variant marks, from the variants'
            :meth:`~risk_env.rules.variant.Variant.territory_marks` (a chosen capital, docs/rules.md §8),
            drawn as a star in the seat's colour; sorted by territory.
        title, subtitle: the panel's heading (turn and phase; who acts and what is left to do).
        rows: a :class:`PlayerRow` per seat (the 2-player neutral or the allied army last).
        holders: per continent, the seat that holds all of it, or -1.
        last_move: the last move's text ('' for none); roll: ``"attacker 6 5  ·  defender 4"`` or ''.
        recent: the moves before it, oldest first.
        foot: ``"map classic · 4 players · move 265"``.
    """

    owner: tuple[int, ...]
    color: tuple[str, ...]
    armies: tuple[int, ...]
    arrow: Arrow | None
    ring: int
    selected: tuple[int, ...]
    marks: tuple[tuple[int, int], ...]
    title: str
    subtitle: str
    rows: tuple[PlayerRow, ...]
    holders: tuple[int, ...]
    last_move: str
    roll: str
    recent: tuple[str, ...]
    foot: str

    def last_move_lines(self, width: int = 30, lines: int = 2) -> list[str]:
        """The last move's text wrapped to ``width`` characters, at most ``lines`` lines (``["-"]`` for none)."""
        return textwrap.wrap(self.last_move, width)[:lines] if self.last_move else ["-"]


def seat_labels(game: Game, player_names: Sequence[str] | None = None, width: int = 10) -> list[str]:
    """A label per seat, at most ``width`` characters: ``player_names`` (default ``player_0``...), then
    ``neutral`` for the 2-player neutral or ``allied`` for the allied army (docs/rules.md §7). Both pictures (the
    raster :class:`~risk_env.records.draw.BoardRenderer` and the SVG :class:`~risk_env.records.svg.BoardSvg`) take
    their labels here, so they refuse the same names.

    Raises:
        ConfigError: ``player_names`` is not a list of printable texts (a str is refused: it is not a list of names;
            :func:`~risk_env.records.ansi.players_problem`) or does not have one name per player seat.
    """
    n = game.num_players
    if player_names is None:
        names = [f"player_{i}" for i in range(n)]
    else:
        why = players_problem(player_names)
        if why is not None:
            raise ConfigError(f"player_names {why}")
        names = [str(x) for x in player_names]
    if len(names) != n:
        raise ConfigError(f"player_names needs {n} names (one per player seat), got {len(names)}")
    extra = ["neutral"] if game.neutral >= 0 else [owner_label(game, game.army) or "army"] if game.army >= 0 else []
    return [x[:width] for x in names] + extra


def check_moves_text(last_move: object, recent: object) -> None:
    """Refuse a ``last_move`` that is not text, and a ``recent`` that is not a list of texts (a str is one text, not a
    list of them); :func:`describe` checks them here, before anything is drawn.

    Raises:
        ConfigError: the message names the argument and what it must be.
    """
    if not isinstance(last_move, str):
        raise ConfigError(
            f"last_move must be the last move's text (a str; '' for none), got {type(last_move).__name__} {last_move!r:.60}"
        )
    if isinstance(recent, (str, bytes)) or not isinstance(recent, Sequence) or not all(isinstance(text, str) for text in recent):
        raise ConfigError(
            "recent must be a list of earlier moves' texts (str), oldest first (() for none), "
            f"got {type(recent).__name__} {recent!r:.60}"
        )


def seat_colors(game: Game) -> list[str]:
    """A colour per seat (:data:`~risk_env.records.layout.PLAYER_COLORS`; the neutral or allied army grey)."""
    n = game.num_players
    extra = 1 if (game.neutral >= 0 or game.army >= 0) else 0
    return [PLAYER_COLORS[i % len(PLAYER_COLORS)] for i in range(n)] + [NEUTRAL_COLOR] * extra


def parse_last_move(game: Game, s: GameState, last_move: str) -> Move | None:
    """The last move's text as a :class:`Move` (None for '' or text that does not parse in ``s``)."""
    if not last_move:
        return None
    try:
        return game.parse_move(s, last_move)
    except ValueError:
        return None


def _highlight(game: Game, s: GameState, move: Move | None) -> tuple[Arrow | None, int]:
    """The arrow and the ring for the pending battle of ``s``, else for its last move ``move``."""
    if s.phase in (Phase.DEFEND, Phase.OCCUPY) and s.att_src >= 0:
        dice = "die" if s.att_dice == 1 else "dice"
        label = "conquered" if s.phase == Phase.OCCUPY else f"{s.att_dice} {dice}"
        return Arrow(s.att_src, s.att_dst, ATTACK_COLOR, label), -1
    if move is None:
        return None, -1
    k = move.kind
    if k in (MoveKind.ATTACK, MoveKind.BLITZ):
        won = s.owner[move.dst] == s.owner[move.src]
        what = "blitz" if k == MoveKind.BLITZ else f"{move.count} {'die' if move.count == 1 else 'dice'}"
        return Arrow(move.src, move.dst, ATTACK_COLOR, what + (": conquered" if won else "")), -1
    if k == MoveKind.OCCUPY and s.att_src >= 0:
        return Arrow(s.att_src, s.att_dst, ATTACK_COLOR, f"occupied with {move.count}"), -1
    if k == MoveKind.FORTIFY:
        return Arrow(move.src, move.dst, MOVE_COLOR, f"moved {move.count}"), -1
    if k in (MoveKind.PLACE, MoveKind.CLAIM, MoveKind.PLACE_NEUTRAL, MoveKind.CAPITAL):
        return None, move.src
    if k == MoveKind.TRADE and move.bonus >= 0:
        return None, move.bonus
    return None, -1


def _headline(game: Game, s: GameState, names: Sequence[str]) -> tuple[str, str]:
    phase = Phase(s.phase)
    if phase == Phase.GAME_OVER:
        title = f"{names[s.winner]} wins" if s.winner >= 0 else "game over: turn limit"
        return title, f"after {s.turn} turns, {s.steps} moves"
    actor = game.current_player(s)
    stage = "setup" if s.turn == 0 else f"turn {s.turn}"
    title = f"{stage} · {phase.name.lower().replace('_', ' ')}"
    extra = ""
    if phase == Phase.REINFORCE:
        extra = f" · {s.to_place} to place" + (" · must trade" if s.forced else "")
    elif phase in (Phase.CLAIM, Phase.SETUP_PLACE):
        left = s.setup_left[s.player] if s.setup_step < 2 else s.setup_left[-1]
        extra = f" · {left} left to place"
    asked = game.decision_text(s, short=True)  # a variant's own decision (the capital phase, a waiting roll, §8)
    if asked is not None:
        extra += f" · {asked}"
    if game.commanding(s) >= 0:  # a variant's army's sub-turn (the allied army, docs/rules.md §7)
        extra += f" · for the {game.army_name()} army"
    return title, f"{names[actor]} to act{extra}"


def check_state_fits(game: Game, state: object) -> None:
    """Refuse a ``state`` that a picture of ``game`` cannot show: not a :class:`GameState`, or a position of another
    map (another number of territories) or another player count.

    Raises:
        StateError: the message names both sizes.
    """
    if not isinstance(state, GameState):
        raise StateError(f"a picture shows a GameState, got {type(state).__name__}")
    T = game.map.num_territories
    if len(state.owner) != T or len(state.armies) != T:
        raise StateError(
            f"the state is a position of a map of {len(state.owner)} territories; this board is of map "
            f"{game.map.name!r}, {T} territories: draw it with a board of its own game"
        )
    if len(state.alive) != game.num_players:
        raise StateError(
            f"the state is a position of {len(state.alive)} players; this board is of {game.num_players} players: "
            "draw it with a board of its own game"
        )


def describe(
    game: Game,
    state: GameState,
    last_move: str = "",
    recent: Sequence[str] = (),
    player_names: Sequence[str] | None = None,
    selection: Selection | None = None,
) -> Picture:
    """What a picture of ``state`` shows.

    Args:
        last_move: text of the last complete move (highlighted if it parses in ``state``; '' for none).
        recent: texts of earlier moves, oldest first.
        player_names: a label per player seat (see :func:`seat_labels`).
        selection: the action codec's pending selection (``env.selection``), shown as a dashed
            arrow (source and target) or a ring (a source alone); None for none.

    Raises:
        ConfigError: ``last_move`` is not a str, or ``recent`` is not a list of str (:func:`check_moves_text`);
            ``player_names`` is not a list of printable texts, one per player seat (:func:`seat_labels`).
        StateError: ``state`` is not a position of ``game``'s map and player count (:func:`check_state_fits`).
    """
    check_moves_text(last_move, recent)
    check_state_fits(game, state)
    s = state
    names = seat_labels(game, player_names)
    colors = seat_colors(game)
    owner = tuple(int(o) for o in s.owner)
    arrow, ring = _highlight(game, s, parse_last_move(game, s, last_move))
    selected: tuple[int, ...] = ()
    if selection is not None and selection.src >= 0:
        selected = (selection.src, selection.dst) if selection.dst >= 0 else (selection.src,)
        if selection.dst >= 0:
            color = ATTACK_COLOR if s.phase == Phase.ATTACK else MOVE_COLOR
            arrow = Arrow(selection.src, selection.dst, color, "", dashed=True)
    phase = Phase(s.phase)
    on_turn = s.player if phase != Phase.GAME_OVER else -1
    setup = phase in (Phase.CLAIM, Phase.SETUP_PLACE)
    rows = []
    for seat in range(len(names)):
        own = s.owner == seat
        out = seat < game.num_players and not s.alive[seat] and not setup
        cards = str(len(s.hands[seat])) if seat < game.num_players and game.uses_cards else "-"
        held, armies = int(own.sum()), int(s.armies[own].sum())
        rows.append(PlayerRow(seat, names[seat], colors[seat], held, armies, cards, seat == on_turn, out, seat == s.winner))
    holders = []
    for c in range(len(game.map.continent_names)):
        seats = {int(o) for o in s.owner[game.continent_idx[c]]}
        holders.append(min(seats) if len(seats) == 1 and min(seats) >= 0 else -1)
    roll = ""
    if s.last_roll:
        k = s.last_roll.index(0)
        att, dfd = " ".join(map(str, s.last_roll[:k])), " ".join(map(str, s.last_roll[k + 1 :]))
        roll = f"attacker {att}  ·  defender {dfd}"
    marks = tuple(sorted((int(t), seat) for t, (_, _, seat) in territory_marks(game, s).items()))
    title, subtitle = _headline(game, s, names)
    return Picture(
        owner=owner,
        color=tuple(UNCLAIMED_COLOR if o < 0 else colors[o] for o in owner),
        armies=tuple(int(a) for a in s.armies),
        arrow=arrow,
        ring=ring,
        selected=selected,
        marks=marks,
        title=title,
        subtitle=subtitle,
        rows=tuple(rows),
        holders=tuple(holders),
        last_move=last_move,
        roll=roll,
        recent=tuple(recent),
        foot=f"map {game.map.name} · {game.num_players} players · move {s.steps}",
    )
