"""Text rendering of a position (``render_mode="ansi"``).

:func:`render_ansi` gives a compact board: per continent (with its bonus and
who holds it) each territory's owner and armies, then each player's
territories, armies and cards (counts only: hands are hidden), the turn and
phase, the pending battle, the last dice roll and the last moves. With
``color=True`` owners are coloured with ANSI escape codes (for terminals);
the default is plain text.

:func:`render_compact` is the board of ``risk-env play``: continents side by
side in columns, one short line per territory (abbreviated name, owner seat,
armies), so that board and move list share a 120x40 terminal.

>>> from risk_env import Game
>>> game = Game(num_players=2, setup="random", map="small", two_player="none")
>>> print(render_ansi(game, game.new_game(seed=0)).splitlines()[0])
West (+2)
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Sequence

from ..errors import ConfigError
from ..rules.engine import Game
from ..rules.state import GameState, Phase

__all__ = ["render_ansi", "render_compact", "short_names", "seat_name", "distinct_labels", "owner_label", "territory_marks"]

_ANSI = ("\x1b[34m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[35m", "\x1b[36m")  # blue red green yellow magenta cyan
_GREY, _BOLD, _RESET = "\x1b[90m", "\x1b[1m", "\x1b[0m"


def seat_name(game: Game, seat: int) -> str:
    """``player_<seat>``, ``neutral`` for the 2-player neutral, a variant's label for its army
    (``allied`` for the allied army, docs/rules.md §7), ``-`` for none."""
    if seat < 0:
        return "-"
    if seat == game.neutral:
        return "neutral"
    return owner_label(game, seat) or f"player_{seat}"


def owner_label(game: Game, owner: int, short: bool = False) -> str | None:
    """A variant's label for owner id ``owner`` (its army), or None
    (:meth:`Variant.owner_label <risk_env.rules.variant.Variant.owner_label>`)."""
    for hook in game.hooks["owner_label"]:
        label = hook(owner, short)
        if label is not None:
            return label
    return None


def territory_marks(game: Game, s: GameState) -> dict[int, tuple[str, str, int]]:
    """The variants' marks on territories: ``territory -> (text with {} for the seat, short mark, seat)``
    (a capital, docs/rules.md §8)."""
    out: dict[int, tuple[str, str, int]] = {}
    for hook in game.hooks["territory_marks"]:
        out.update(hook(s))
    return out


def distinct_labels(names: Sequence[str]) -> list[str]:
    """Seat labels that tell the seats apart: a name only one seat has stays as it is; a name
    several seats share gets the seat number (``aggressive 1``, ``aggressive 2``).

    >>> distinct_labels(["you", "aggressive", "aggressive", "balanced"])
    ['you', 'aggressive 1', 'aggressive 2', 'balanced']
    """
    return [f"{n} {seat}" if list(names).count(n) > 1 else str(n) for seat, n in enumerate(names)]


def render_ansi(
    game: Game,
    s: GameState,
    last_move: str = "",
    recent: Sequence[str] = (),
    color: bool = False,
    names: Sequence[str] | None = None,
    viewer: int | None = None,
    width: int | None = None,
) -> str:
    """A compact text board of ``s`` (one string, lines joined by ``\\n``).

    With ``capitals`` each capital is marked ``capital of <player>``; with
    ``secret_missions`` only the ``viewer`` seat's own mission is shown (no
    other player's mission is printed while the game goes on; a finished game
    shows the winner's).

    With ``width`` the board is laid out for a terminal that many columns wide: the continents
    side by side in as many columns as fit (on the classic map two columns, so that at 120
    columns the board takes at most 39 lines), two seats a line, capitals marked ``#`` and
    listed in one line, and no line longer than ``width`` (text wrapped at spaces, the last
    moves cut to those that fit).

    Args:
        game: the game ``s`` belongs to.
        s: the position.
        last_move: text of the last complete move ('' for none); its territories are marked ``<``.
        recent: texts of earlier moves (oldest first); the last 5 are listed.
        color: colour owners with ANSI escape codes.
        names: labels per player seat (default ``player_<seat>``).
        viewer: the seat whose secret mission is shown (None: no mission is shown).
        width: lay the board out for this many columns (None: one column, lines of any length).

    Raises:
        ConfigError: ``width`` < 60.
    """
    if width is not None and width < 60:
        raise ConfigError(f"width must be at least 60 characters, got {width}")
    m = game.map
    marks = territory_marks(game, s)

    def who(seat: int) -> str:
        if seat < 0:
            return "-"
        if names is not None and 0 <= seat < game.num_players:
            return str(names[seat])
        return seat_name(game, seat)

    def paint(text: str, seat: int) -> str:
        if not color:
            return text
        if seat < 0 or seat >= game.num_players:  # the neutral or the allied army
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
    wname = max([len(who(p)) for p in range(game.num_seats)] + [7])
    name_w = max(len(n) for n in m.territory_names)
    blocks: list[list[str]] = []
    for ci, cname in enumerate(m.continent_names):
        idx = game.continent_idx[ci]
        holders = {int(o) for o in s.owner[idx]}
        head = f"{cname} (+{int(m.continent_bonus[ci])})"
        if len(holders) == 1 and min(holders) >= 0:
            head += f"  held by {paint(who(min(holders)), min(holders))}"
        block = [head]
        for t in map(int, idx):
            o = int(s.owner[t])
            mark = " <" if t in marked else ""
            if t in marks:
                text, short, seat = marks[t]
                mark += f" {short}" if width is not None else "  " + text.format(who(seat))
            block.append(f"  {m.territory_names[t]:<{name_w}}  {paint(f'{who(o):<{wname}}', o)} {int(s.armies[t]):>4}{mark}")
        blocks.append(block)
    lines = [ln for b in blocks for ln in b] if width is None else _side_by_side(blocks, width)
    lines.append("")
    setup = s.phase in (Phase.CLAIM, Phase.SETUP_PLACE)
    seat_lines: list[str] = []
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
        seat_lines.append(line + tag)
    if width is None:
        lines += seat_lines
    else:
        seat_w = max(_visible(x) for x in seat_lines)
        per_line = max(1, (width + 2) // (seat_w + 2))
        for i in range(0, len(seat_lines), per_line):
            row = seat_lines[i : i + per_line]
            lines.append("  ".join(x + " " * (seat_w - _visible(x)) for x in row).rstrip())
    ph = Phase(s.phase).name.lower().replace("_", " ")
    stage = "setup" if s.turn == 0 else f"turn {s.turn}"
    status = f"{stage}  phase {ph}  on turn {who(s.player)}"
    if game.commanding(s) >= 0:  # a variant's army acts, a seat commanding it (§7)
        status += f" (commanded by {who(game.commanding(s))})"
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
    tail = _variant_lines(game, s, viewer, who)
    if width is not None:  # a compact board names its marked territories (the capitals, §8)
        tail += [line for hook in game.hooks["legend"] if (line := hook(s, who)) is not None]
    earlier = list(recent)[-5:]
    if width is not None:  # the newest moves that fit on one line
        while earlier and len("earlier moves: " + " | ".join(earlier)) > width:
            earlier = earlier[1:]
    if earlier:
        tail.append("earlier moves: " + " | ".join(earlier))
    if last_move:
        tail.append(f"last move: {last_move}")
    for line in tail:
        if width is None or _visible(line) <= width:
            lines.append(line)
        else:
            lines += textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False)
    return "\n".join(lines)


_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def _visible(text: str) -> int:
    """The length of ``text`` as a terminal shows it (colour codes take no room)."""
    return len(_ESCAPE.sub("", text))


def _side_by_side(blocks: list[list[str]], width: int, gap: int = 3) -> list[str]:
    """Blocks of lines (continents), in order, in as many columns as fit in ``width``, each column
    filled top to bottom to about the same height; one column when even two do not fit."""
    col_w = max(_visible(line) for b in blocks for line in b)
    sizes = [len(b) for b in blocks]
    k = max(1, min(len(blocks), (width + gap) // (col_w + gap)))
    height = max(sizes)
    while len(_pack(sizes, height)) > k:
        height += 1
    out: list[str] = []
    columns = [[line for g in col for line in blocks[g]] for col in _pack(sizes, height)]
    for r in range(max(len(c) for c in columns)):
        cells = [c[r] if r < len(c) else "" for c in columns]
        out.append((" " * gap).join(x + " " * (col_w - _visible(x)) for x in cells).rstrip())
    return out


def _variant_lines(game: Game, s: GameState, viewer: int | None, who: Callable[[int], str]) -> list[str]:
    """What the variants note under the board: the capital phase, the viewer's own mission (docs/rules.md §8)."""
    out = [note for hook in game.hooks["phase_note"] if (note := hook(s, who)) is not None]
    return out + [line for hook in game.hooks["notes"] for line in hook(s, viewer, who)]


def short_names(names: Sequence[str], width: int) -> list[str]:
    """Territory names shortened to at most ``width`` characters, all distinct.

    Longer names have their leading words cut to initials (``Western United States``
    -> ``W United States`` -> ``W U States``), then are truncated; a clash is broken by
    a trailing digit.

    >>> short_names(["Western United States", "Eastern Australia", "Peru"], 11)
    ['W U States', 'E Australia', 'Peru']

    Raises:
        ConfigError: ``width`` < 3.
    """
    if width < 3:
        raise ConfigError(f"width must be at least 3 characters, got {width}")
    out: list[str] = []
    for name in names:
        words = name.split()
        text = name
        i = 0
        while len(text) > width and i < len(words) - 1:
            words[i] = words[i][0]
            text = " ".join(words)
            i += 1
        out.append(text[:width].rstrip())
    seen: dict[str, int] = {}
    for i, text in enumerate(out):
        if text in seen:
            k = seen[text] = seen[text] + 1
            out[i] = text[: width - len(str(k))] + str(k)
        else:
            seen[text] = 1
    return out


def _pack(sizes: Sequence[int], height: int) -> list[list[int]]:
    """Groups (continents) placed in map order into columns of at most ``height`` lines."""
    cols: list[list[int]] = [[]]
    used = 0
    for g, n in enumerate(sizes):
        if cols[-1] and used + n > height:
            cols.append([])
            used = 0
        cols[-1].append(g)
        used += n
    return cols


def render_compact(
    game: Game,
    s: GameState,
    width: int = 120,
    color: bool = False,
    names: Sequence[str] | None = None,
    marked: Sequence[int] = (),
    selected: int = -1,
    viewer: int | None = None,
) -> str:
    """A compact text board of ``s`` for a terminal ``width`` columns wide (one string).

    Continents stand side by side, in map order, each headed by its name, its bonus
    and the seat holding it (``[2]``); each territory takes one line: a short name
    (:func:`short_names`), the owner's seat number (``n`` the neutral, ``a`` the allied
    army, ``-`` nobody)
    and its armies; ``<`` marks ``marked`` territories (the last move), ``*`` the
    ``selected`` one, ``#`` a capital (``capitals=True``). Then one entry per seat (``>`` on turn): its label from
    ``names``, territories, armies, cards; then the phase and the last dice.

    On the classic map this is 18 lines of at most 120 characters for 2 to 6 players.
    A map too big for ``width`` (more than about 6 continents of 12 territories)
    flows its territories through every column instead.

    Args:
        width: the terminal width in characters (at least 60).
        names: a label per player seat (default ``player_<seat>``).
        viewer: the seat whose secret mission is shown under the board (None: none;
            ``secret_missions`` only, docs/rules.md §8).

    Raises:
        ConfigError: ``width`` < 60.
    """
    if width < 60:
        raise ConfigError(f"width must be at least 60 characters, got {width}")
    m = game.map

    def tag(seat: int) -> str:
        if seat < 0:
            return "-"
        label = owner_label(game, seat, short=True)
        if label is not None:
            return label
        return "n" if seat == game.neutral else str(seat)

    def paint(text: str, seat: int) -> str:
        if not color or seat < 0:
            return text
        code = _GREY if seat >= game.num_players else _ANSI[seat % len(_ANSI)]
        return code + text + _RESET

    def who(seat: int) -> str:
        if names is not None and 0 <= seat < game.num_players:
            return str(names[seat])
        return seat_name(game, seat)

    marks = {t: short for t, (_, short, _) in territory_marks(game, s).items()}
    marks.update({int(t): "<" for t in marked if t >= 0})
    if s.phase in (Phase.DEFEND, Phase.OCCUPY) and s.att_src >= 0:
        marks.update({int(s.att_src): "<", int(s.att_dst): "<"})
    if selected >= 0:
        marks[int(selected)] = "*"
    groups = [[int(t) for t in game.continent_idx[ci]] for ci in range(len(m.continent_names))]
    gap = 2
    cell_fixed = 1 + 1 + 1 + 4 + 1  # space, owner, space, armies, mark
    height = max(len(g) for g in groups) + 1
    cols = _pack([len(g) + 1 for g in groups], height)
    col_w = (width + gap) // len(cols) - gap
    name_w = min(max(len(n) for n in m.territory_names), col_w - cell_fixed)
    if name_w < 8:  # too many continents side by side: flow every line through the columns
        ncols = max(1, (width + gap) // (8 + cell_fixed + gap))
        col_w = (width + gap) // ncols - gap
        name_w = col_w - cell_fixed
        items = [it for ci, g in enumerate(groups) for it in [(ci, -1)] + [(ci, t) for t in g]]
        rows = -(-len(items) // ncols)
        layout = [items[i : i + rows] for i in range(0, len(items), rows)]
    else:
        layout = [[it for ci in col for it in [(ci, -1)] + [(ci, t) for t in groups[ci]]] for col in cols]
    short = short_names(m.territory_names, name_w)
    blocks: list[list[str]] = []
    for col in layout:
        lines = []
        for ci, t in col:
            if t < 0:
                holders = {int(o) for o in s.owner[game.continent_idx[ci]]}
                held = min(holders) if len(holders) == 1 and min(holders) >= 0 else -1
                bonus = f" +{int(m.continent_bonus[ci])}" + (f" [{tag(held)}]" if held >= 0 else "")
                head = short_names([m.continent_names[ci]], max(3, col_w - len(bonus)))[0] + bonus
                lines.append(paint(head, held) + " " * (col_w - len(head)))
            else:
                o = int(s.owner[t])
                cell = f"{short[t]:<{name_w}} {paint(tag(o), o)} {int(s.armies[t]):>4}{marks.get(t, ' ')}"
                lines.append(cell)
        blocks.append(lines)
    out = []
    for r in range(max(len(b) for b in blocks)):
        out.append((" " * gap).join(b[r] if r < len(b) else " " * col_w for b in blocks).rstrip())
    out.append("")
    setup = s.phase in (Phase.CLAIM, Phase.SETUP_PLACE)
    seats: list[tuple[str, int]] = []
    for seat in range(game.num_seats):
        own = s.owner == seat
        turn = ">" if seat == s.player and s.phase != Phase.GAME_OVER else " "
        text = f"{turn}{tag(seat)} {who(seat)[:12]:<12} {int(own.sum()):>3} terr {int(s.armies[own].sum()):>4} armies"
        if game.uses_cards and seat < game.num_players:
            text += f" {len(s.hands[seat]):>2} cards"
        if seat < game.num_players and seat == s.winner:
            text += " winner"
        elif seat < game.num_players and not s.alive[seat] and not setup:
            text += " out"
        seats.append((text, seat))
    per_line = max(1, (width + gap) // (max(len(txt) for txt, _ in seats) + gap))
    seat_w = max(len(txt) for txt, _ in seats)
    for i in range(0, len(seats), per_line):
        row = seats[i : i + per_line]
        out.append((" " * gap).join(paint(txt, p) + " " * (seat_w - len(txt)) for txt, p in row).rstrip())
    ph = Phase(s.phase).name.lower().replace("_", " ")
    stage = "setup" if s.turn == 0 else f"turn {s.turn}"
    status = f"{stage}, {ph}, {who(s.player)} on turn"
    if game.commanding(s) >= 0:
        status += f" (commanded by {who(game.commanding(s))})"
    if s.phase == Phase.GAME_OVER:
        status = f"game over after {s.turn} turns: " + (
            f"winner {who(s.winner)}" if s.winner >= 0 else "truncated at the turn limit"  # ("winner you", not "you wins")
        )
    if s.last_roll:
        k = s.last_roll.index(0)
        status += f"; last roll {' '.join(map(str, s.last_roll[:k]))} v {' '.join(map(str, s.last_roll[k + 1 :]))}"
    out.append(status[:width])
    out += [line[:width] for line in _variant_lines(game, s, viewer, who)]
    return "\n".join(out)


def players_problem(players: object) -> str | None:
    """Why ``players`` is not a list of player labels (a sequence of printable texts, not one str: no line breaks,
    tabs or escape sequences, which would break the replay's log and pictures), or None where it is one; the one check
    of the records' and the pictures' player labels."""
    if not isinstance(players, Sequence) or isinstance(players, (str, bytes)) or not all(isinstance(p, str) for p in players):
        return f"must be a list of names (text), got {players!r:.80}"
    for p in players:
        if not p.isprintable():
            bad = next(c for c in p if not c.isprintable())
            return (
                f"must be printable text, got {p!r:.80}, which holds the unprintable character {bad!r} "
                "(line breaks, tabs, escape sequences and other control characters)"
            )
    return None
