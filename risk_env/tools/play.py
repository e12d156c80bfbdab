"""The human game at the terminal (``risk-env play``): one screen per decision of the
human that fits a 120x40 terminal on the classic map (a compact board, the status,
the legal moves numbered in columns, grouped when they do not fit), and the agents
moving the other seats through :func:`risk_env.tools.match.play_move`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

import typer

from ..envs.codec import ActionCodec
from ..envs.observation import ObservationEncoder
from ..errors import AgentError, IllegalActionError, RiskError
from ..records.ansi import render_ansi, render_compact, seat_name
from ..records.record import ReplayStep
from ..records.recorder import GameRecorder
from ..rules.config import RulesConfig
from ..rules.engine import Game
from ..rules.map import SYMBOLS
from ..rules.moves import Move, MoveKind
from ..rules.state import GameState, Phase
from .match import play_move
from .watch import echo as _echo
from .watch import move_line

__all__ = ["Choice", "Group", "group_moves", "human_menu", "human_screen", "play_game", "SCREEN_WIDTH", "SCREEN_HEIGHT"]


class _Seats:
    """Agents acting through the action codec, one complete move at a time (:func:`risk_env.tools.match.play_move`);
    ``names`` labels them (default: their class's name)."""

    def __init__(self, game: Game, agents: dict[int, Any], names: list[str] | None = None) -> None:
        self.game = game
        self.codec = ActionCodec(game)
        self.encoder = ObservationEncoder(game)
        self.agents = agents
        self.names = names

    def move(self, s: GameState, seat: int) -> tuple[Move, list[int]]:
        """The agent at ``seat`` makes one complete move in ``s``.

        Raises:
            IllegalActionError: the agent chose an illegal id or no integer: the message names the agent and that
                id, never its legal ids (a forced trade's ids tell what its cards make up); the env's refusal is the
                ``__cause__``.
            AgentError: the agent raised an exception (the ``__cause__``): the message names the agent and the
                exception's type, not its message (it may name the agent's cards).
        """
        agent = self.agents[seat]
        label = f"agent {self.names[seat] if self.names is not None else type(agent).__name__!r} ({seat_name(self.game, seat)})"
        try:
            return play_move(self.game, self.codec, self.encoder, s, seat, agent)
        except IllegalActionError as e:
            chose = f"the illegal action id {e.action}" if e.action is not None else "no action id (no integer)"
            refused = IllegalActionError(f"{label} chose {chose}; the game cannot go on")
            refused.action = e.action
            raise refused from e
        except AgentError as e:  # the agent raised: the game stops with one line (its exception's type, not its text)
            raise AgentError(f"{label} failed ({type(e.__cause__).__name__}); the game cannot go on") from e.__cause__


# ---------------------------------------------------------------------- choices for a human
SCREEN_WIDTH, SCREEN_HEIGHT = 120, 40
"""The terminal a human's turn is laid out for (``risk-env play``)."""


@dataclass
class Choice:
    """One numbered line of the human's move list: a move, or a family of moves that differ only in an amount."""

    label: str
    moves: list[Move]

    @property
    def ranged(self) -> bool:
        return len(self.moves) > 1

    @property
    def counts(self) -> tuple[int, int]:
        return self.moves[0].count, self.moves[-1].count

    def pick(self, count: int | None = None) -> Move:
        """The move with ``count`` (None: the largest amount).

        Raises:
            ValueError: ``count`` is outside the range, or given for a move without an amount.
        """
        if count is None:
            return self.moves[-1]
        if not self.ranged:
            raise ValueError(f"'{self.label}' takes no amount; enter its number alone")
        for m in self.moves:
            if m.count == count:
                return m
        lo, hi = self.counts
        raise ValueError(f"'{self.label}' takes an amount from {lo} to {hi}, not {count}")


def group_moves(game: Game, s: GameState) -> list[Choice]:
    """The legal moves of ``s`` as numbered choices: placements, attacks (dice), fortifications and
    occupations that differ only in their amount are merged into one choice with a range."""
    name = game.map.name_of
    groups: dict[tuple, list[Move]] = {}
    for mv in game.legal_moves(s):
        ranged = mv.kind in (MoveKind.ATTACK, MoveKind.FORTIFY, MoveKind.OCCUPY) or (
            mv.kind == MoveKind.PLACE and s.phase == Phase.REINFORCE
        )
        key = (mv.kind, mv.src, mv.dst) if ranged else (mv,)
        groups.setdefault(key, []).append(mv)
    out = []
    for moves in groups.values():
        moves.sort(key=lambda m: m.count)
        m0 = moves[0]
        if len(moves) == 1:
            out.append(Choice(game.move_to_text(m0), moves))
            continue
        lo, hi = moves[0].count, moves[-1].count
        if m0.kind == MoveKind.PLACE:
            label = f"place {name(m0.src)} {lo}..{hi}"
        elif m0.kind == MoveKind.ATTACK:
            label = f"attack {name(m0.src)}->{name(m0.dst)} dice={lo}..{hi}"
        elif m0.kind == MoveKind.FORTIFY:
            label = f"fortify {name(m0.src)}->{name(m0.dst)} {lo}..{hi}"
        else:
            label = f"occupy {lo}..{hi}"
        out.append(Choice(label, moves))
    return out


def _columns(items: list[str], width: int = SCREEN_WIDTH, gap: int = 2) -> list[str]:
    """``items`` in as many columns as fit in ``width`` (filled top to bottom, each as wide as its longest item)."""
    if not items:
        return []
    for cols in range(min(len(items), 8), 0, -1):
        rows = -(-len(items) // cols)
        cells = [items[c * rows : (c + 1) * rows] for c in range(cols)]
        cells = [col for col in cells if col]
        widths = [max(len(x) for x in col) for col in cells]
        if sum(widths) + gap * (len(cells) - 1) <= width or cols == 1:
            break
    lines = []
    for r in range(rows):
        parts = [col[r].ljust(w) for col, w in zip(cells, widths, strict=True) if r < len(col)]
        lines.append((" " * gap).join(parts).rstrip())
    return lines


_HELP = """Enter one of:
  a number from the list          e.g. 3   (a move listed with a range, like 'place Alaska 1..7', takes the most)
  a number and an amount          e.g. 3 2 (takes 2)
  a move as text                  e.g. place Alaska 2 | attack Alaska->Kamchatka dice=3 | blitz Alaska->Kamchatka
                                       end attack | occupy 4 | fortify Alaska->Alberta 3 | end turn
                                       trade <card>, <card>, <card> | capital Alaska (with capitals)
  a number opening a list         e.g. 'from Alaska (5) -> 2' lists the moves from Alaska (and its neighbours);
                                       'trade a set ICA (4 ways)' lists those sets; 0 goes back
  moves (m)   show the board and the moves again   board (b)     the full board, with full names and the last moves
  n <name>    a territory's neighbours             help (?)      this help            quit (q)    leave the game
On the board each territory shows its owner's seat number (n: the neutral, a: the allied army) and its armies;
< marks the last move, # a capital. With secret missions your own mission is shown under the board.
Cards show their symbol: I infantry, C cavalry, A artillery, W wild; a set is three of a kind or one of each,
a wild card standing in for any symbol."""

_LETTERS = "".join(symbol[0].upper() for symbol in SYMBOLS)
"""A card symbol's letter, by symbol index: ``ICAW`` (the letters of the trade sets, ``trade a set ICA``)."""


def _hand(game: Game, hand: list[int]) -> str:
    """``Kamchatka (I), Peru (A), Wild 1`` (a wild card's name already says what it is)."""
    parts = []
    for c in sorted(hand):
        name, letter = game.map.card_name(c), _LETTERS[int(game.map.card_symbol[c])]
        parts.append(name if letter == "W" else f"{name} ({letter})")
    return ", ".join(parts) or "none"


def _status(game: Game, s: GameState) -> str:
    ph = Phase(s.phase).name.lower().replace("_", " ")
    text = f"turn {s.turn}, {ph}" if s.turn else f"setup, {ph}"
    commanding = game.commanding(s) >= 0 and s.phase != Phase.DEFEND  # you command a variant's army (§7)
    if commanding:
        text += f" of the {game.army_name()} army, which you command"
    if s.phase == Phase.REINFORCE:
        text += f": {s.to_place} armies to place" + (" (you hold 5+ cards: trade first)" if s.forced else "")
    elif s.phase == Phase.OCCUPY:
        lo, hi = game.occupy_range(s)
        text += f": move {lo}..{hi} armies into {game.map.name_of(s.att_dst)}"
    elif s.phase == Phase.DEFEND:
        text += f": {game.map.name_of(s.att_src)} attacks {game.map.name_of(s.att_dst)} with {s.att_dice} dice"
    elif s.phase in (Phase.CLAIM, Phase.SETUP_PLACE):
        left = s.setup_left[s.player] if s.setup_step < 2 else s.setup_left[-1]
        text += f": {left} armies left to place"
    asked = game.decision_text(s)  # a variant's own decision (the capital phase, a waiting roll, §8)
    if asked is not None:
        text += f": {asked}"
    if game.uses_cards and not commanding:
        hand = s.hands[game.current_player(s)] if game.current_player(s) >= 0 else []
        text += f"; your cards: {_hand(game, hand)}"
    return text


@dataclass
class Group:
    """A numbered line that opens more entries: the attacks or fortifications from one
    territory (``src``), or the card sets of one kind that can be traded."""

    label: str
    entries: list[Choice | Group]
    src: int = -1


_FROM = (MoveKind.ATTACK, MoveKind.BLITZ, MoveKind.FORTIFY)


def _rows(entries: list[Choice | Group], width: int, back: bool) -> int:
    return len(_columns(_labels(entries, back), width))


def _trade_groups(game: Game, entries: list[Choice | Group]) -> list[Choice | Group]:
    """Trades merged into one entry per kind of set (``III``, ``ICA``, ``IIW``...) where a kind has several."""
    kinds: dict[str, list[Choice]] = {}
    for e in entries:
        if isinstance(e, Choice) and e.moves[0].kind == MoveKind.TRADE:
            comp = "".join(_LETTERS[k] for k in sorted(int(game.map.card_symbol[c]) for c in e.moves[0].cards))
            kinds.setdefault(comp, []).append(e)
    out: list[Choice | Group] = []
    done: set[str] = set()
    for e in entries:
        if isinstance(e, Choice) and e.moves[0].kind == MoveKind.TRADE:
            comp = next(k for k, v in kinds.items() if e in v)
            if len(kinds[comp]) == 1:
                out.append(e)
            elif comp not in done:
                done.add(comp)
                out.append(Group(f"trade a set {comp} ({len(kinds[comp])} ways)", list(kinds[comp])))
        else:
            out.append(e)
    return out


def _source_groups(game: Game, s: GameState, entries: list[Choice | Group]) -> list[Choice | Group]:
    """Attacks (blitzes) or fortifications merged into one entry per source territory."""
    out: list[Choice | Group] = []
    sources: dict[int, Group] = {}
    for e in entries:
        if not isinstance(e, Choice) or e.moves[0].kind not in _FROM:
            out.append(e)
            continue
        src = e.moves[0].src
        if src not in sources:
            sources[src] = Group("", [], src)
            out.append(sources[src])
        sources[src].entries.append(e)
    for g in sources.values():
        k = len({e.moves[0].dst for e in g.entries if isinstance(e, Choice)})
        g.label = f"from {game.map.name_of(g.src)} ({int(s.armies[g.src])}) -> {k}"
    return out


def human_menu(game: Game, s: GameState, rows: int = 18, width: int = SCREEN_WIDTH) -> list[Choice | Group]:
    """The numbered entries of a human's decision; every legal move is reachable from them.

    The moves (:func:`group_moves`) are listed as they are when they fit in ``rows`` lines
    of ``width`` characters; otherwise trades are grouped by kind of set, then attacks
    and fortifications by source territory, then all trades behind one entry
    (:class:`Group`: its number opens it, ``0`` goes back).
    """
    entries: list[Choice | Group] = list(group_moves(game, s))
    if _rows(entries, width, False) <= rows:
        return entries
    entries = _trade_groups(game, entries)
    if _rows(entries, width, False) > rows:
        entries = _source_groups(game, s, entries)
    trades = [
        e
        for e in entries
        if (isinstance(e, Group) and e.src < 0) or (isinstance(e, Choice) and e.moves[0].kind == MoveKind.TRADE)
    ]
    if _rows(entries, width, False) > rows and len(trades) > 1:
        n = sum(len(e.entries) if isinstance(e, Group) else 1 for e in trades)
        first = entries.index(trades[0])
        rest = [e for e in entries if not any(e is t for t in trades)]
        entries = rest[:first] + [Group(f"trade a set of cards ({n} ways)", trades)] + rest[first:]
    return entries


def _labels(entries: list[Choice | Group], back: bool = False) -> list[str]:
    return ([f"{0:>3}) back"] if back else []) + [f"{i:>3}) {e.label}" for i, e in enumerate(entries, 1)]


def _neighbours(game: Game, s: GameState, t: int, names: list[str] | None, width: int) -> list[str]:
    """Lines describing territory ``t`` and each of its neighbours (owner, armies), in columns."""
    m = game.map

    def who(seat: int) -> str:
        if seat < 0:
            return "nobody"
        return names[seat] if names is not None and seat < game.num_players else seat_name(game, seat)

    head = f"{m.name_of(t)} ({who(int(s.owner[t]))}, {int(s.armies[t])}) borders:"
    items = [f"{m.name_of(v)} ({who(int(s.owner[v]))}, {int(s.armies[v])})" for v in m.neighbors[t]]
    return [head] + ["  " + line for line in _columns(items, width - 2)]


def _page(entries: list[Choice | Group], rows: int, width: int, back: bool) -> list[Choice | Group]:
    """``entries`` if they fit in ``rows`` lines, else the first ones and a last entry opening the rest."""
    if _rows(entries, width, back) <= rows or len(entries) <= 2:
        return entries
    lo, hi = 1, len(entries) - 1  # the most entries that fit with the 'more' line
    while lo < hi:
        k = (lo + hi + 1) // 2
        trial = entries[:k] + [Group(f"more: {len(entries) - k} further moves", entries[k:])]
        if _rows(trial, width, back) <= rows:
            lo = k
        else:
            hi = k - 1
    return entries[:lo] + [Group(f"more: {len(entries) - lo} further moves", entries[lo:])]


def human_screen(
    game: Game,
    s: GameState,
    human: int,
    opened: list[Group] | None = None,
    last_move: str = "",
    names: list[str] | None = None,
    color: bool = False,
    width: int = SCREEN_WIDTH,
    height: int = SCREEN_HEIGHT,
) -> tuple[list[str], list[Choice | Group]]:
    """The screen of a human's decision: its lines (the prompt follows them) and the numbered entries it lists.

    The lines are the compact board (:func:`~risk_env.records.ansi.render_compact`), the status,
    the neighbours of an opened territory, and the entries in columns: :func:`human_menu` at
    the top, else the entries of the last :class:`Group` in ``opened`` (the path opened so far).
    A list too long for the screen ends with a ``more`` entry opening the rest, so that on the
    classic map the lines and the prompt take at most ``height`` lines of at most ``width`` characters.
    """
    import textwrap

    opened = opened or []
    src = opened[-1].src if opened else -1
    marked: list[int] = []
    if last_move:
        try:
            mv = game.parse_move(s, last_move)
            marked = [t for t in (mv.src, mv.dst, mv.bonus) if t >= 0]
        except ValueError:
            pass
    board = render_compact(game, s, width, color=color, names=names, marked=marked, selected=src, viewer=human)
    lines = [""] + board.splitlines()
    lines += textwrap.wrap(f"{seat_name(game, human)}, {_status(game, s)}.", width, subsequent_indent="  ")
    if src >= 0:
        lines += _neighbours(game, s, src, names, width)
    lines.append(f"{opened[-1].label}; 0 goes back:" if opened else "Legal moves:")
    rows = max(3, height - len(lines) - 1)
    entries = opened[-1].entries if opened else human_menu(game, s, rows, width)
    entries = _page(entries, rows, width, back=bool(opened))
    return lines + _columns(_labels(entries, back=bool(opened)), width), entries


def _human_move(
    game: Game,
    s: GameState,
    human: int,
    recent: list[str],
    read_line: Callable[[], str],
    out: TextIO | None,
    color: bool,
    names: list[str] | None,
) -> Move | None:
    """Show the screen and read the human's move; None when the input ends, they quit or they press Ctrl+C."""
    me = seat_name(game, human)
    opened: list[Group] = []
    last = recent[-1] if recent else ""
    while True:  # one pass per screen (opening or closing a group redraws it)
        lines, entries = human_screen(game, s, human, opened, last, names, color)
        for line in lines:
            _echo(out, line)
        first = 0 if opened else 1
        while True:
            try:  # Ctrl+C from the prompt's showing on
                if out is None:
                    typer.echo(f"{me}> ", nl=False)
                else:
                    print(f"{me}> ", end="", file=out, flush=True)
                raw = read_line()
            except KeyboardInterrupt:  # Ctrl+C at the prompt: leave as 'quit' does (the record is still written)
                _echo(out, "\ninterrupted: leaving the game")
                return None
            if raw == "":
                _echo(out, "\ninput ended: leaving the game")
                return None
            line = raw.strip()
            low = line.lower()
            if not line:
                _echo(out, f"enter a number from {first} to {len(entries)}, a move as text, or 'help'")
                continue
            if low in ("?", "h", "help"):
                _echo(out, _HELP)
                continue
            if low in ("b", "board"):
                board = render_ansi(game, s, last, recent[:-1], color=color, names=names, viewer=human, width=SCREEN_WIDTH)
                _echo(out, board)
                continue
            if low in ("m", "moves", "l", "list"):
                break
            if low in ("q", "quit", "exit"):
                _echo(out, "leaving the game")
                return None
            if low.split()[0] in ("n", "near"):
                try:
                    t = game.map.id_of(line.split(None, 1)[1] if " " in line else "")
                except ValueError as e:
                    _echo(out, f"not accepted: {e}")
                    continue
                for row in _neighbours(game, s, t, names, SCREEN_WIDTH):
                    _echo(out, row)
                continue
            if opened and low in ("0", "back"):
                opened.pop()
                break
            try:
                got = _read_move(game, s, line, entries)
            except ValueError as e:
                _echo(out, f"not accepted: {e}")
                _echo(
                    out, f"(enter a number from {first} to {len(entries)}, a move as text, 'moves' to list them again, or 'help')"
                )
                continue
            if isinstance(got, Group):
                opened.append(got)
                break
            return got


def _echo_wrapped(out: TextIO | None, line: str, width: int = SCREEN_WIDTH) -> None:
    """Print ``line`` wrapped to ``width`` columns (continuation lines indented), so that the
    move log of a long attack or trade keeps to the screen."""
    for part in textwrap.wrap(line, width, subsequent_indent="    ", break_on_hyphens=False) or [""]:
        _echo(out, part)


def play_game(
    rules: RulesConfig,
    human: int,
    agents: dict[int, Any],
    seed: int,
    read_line: Callable[[], str],
    out: TextIO | None = None,
    color: bool = False,
    recorder: GameRecorder | None = None,
    names: list[str] | None = None,
) -> GameState:
    """Run a game with a human at ``human`` reading moves from ``read_line`` ('' means the input ended; a
    ``KeyboardInterrupt`` while it waits or an agent moves, Ctrl+C, leaves the game as 'quit' does, before the agent's
    move).

    Each decision of the human shows one screen of at most 120x40 characters on the
    classic map (:func:`human_screen`). ``names`` labels the seats on the board
    (default ``player_<seat>``). Returns the final (or abandoned) state; ``recorder`` gets every move.

    Raises:
        RiskError: an agent chose an illegal action id, or no integer, or raised an exception: the message names the
            agent (by ``names``) and the id or the exception's type, not its legal ids (they would tell what its cards
            make up) nor the exception's message; the refusal or the exception is the ``__cause__``. ``recorder``'s
            record is then finished, ``ended`` ``"illegal action by player_<n>"`` or ``"agent error by player_<n>"``.
    """
    game = Game(rules)
    seats = _Seats(game, agents, names)
    s = game.new_game(seed)
    recent: list[str] = []
    me = seat_name(game, human)
    _echo_wrapped(
        out, f"You are {me}. Turn order: {', '.join(seat_name(game, p) for p in s.order)}. Type 'help' for how to enter moves."
    )
    for hook in game.hooks["summary"]:  # each variant in a sentence (the human's own mission only, §8)
        line = hook(s, human)
        if line is not None:
            _echo_wrapped(out, line)
    told_out = False
    while s.phase != Phase.GAME_OVER:
        seat = game.current_player(s)
        if not s.alive[human] and not told_out and s.phase not in (Phase.CLAIM, Phase.SETUP_PLACE):
            _echo(out, f"{me} has been eliminated; the agents play on to the end.")
            told_out = True
        if seat != human:
            before = s.copy()
            try:
                mv, ids = seats.move(s, seat)
            except KeyboardInterrupt:  # Ctrl+C while an agent moves: leave as at the prompt, before its move
                _echo(out, "\ninterrupted: leaving the game")
                return before
            except RiskError as e:  # the agent failed: the game stops; its record ends with the reason
                if recorder is not None:
                    failed = "illegal action" if isinstance(e, IllegalActionError) else "agent error"
                    recorder.finish(s, f"{failed} by {seat_name(game, seat)}")
                raise
            text = game.move_to_text(mv)
            _echo_wrapped(out, move_line(game, ReplayStep(s.steps, seat, text, mv, before, s)))
            recent.append(text)
            if recorder is not None:
                recorder.add(mv)
            continue
        chosen = _human_move(game, s, human, recent, read_line, out, color, names)
        if chosen is None:
            return s
        mv = chosen
        before = s.copy()
        game.apply(s, mv)
        text = game.move_to_text(mv)
        _echo_wrapped(out, move_line(game, ReplayStep(s.steps, human, text, mv, before, s)))
        recent.append(text)
        if recorder is not None:
            recorder.add(mv)
    _echo(out, "")
    _echo(out, render_compact(game, s, color=color, names=names, viewer=human))
    return s


def _read_move(game: Game, s: GameState, line: str, choices: list[Choice] | list[Choice | Group]) -> Move | Group:
    """The move meant by a prompt line: ``N``, ``N K`` or a move text; a :class:`Group` when ``N`` opens one.

    Raises:
        ValueError (IllegalMoveError included): what was wrong and what is allowed.
    """
    tokens = line.split()
    if tokens[0].isdigit():
        i = int(tokens[0])
        if not 1 <= i <= len(choices):
            raise ValueError(f"there is no move {i}; the moves are numbered 1 to {len(choices)}")
        if len(tokens) > 2:
            raise ValueError("enter a number, optionally followed by one amount (e.g. '3 2')")
        entry = choices[i - 1]
        if isinstance(entry, Group):
            if len(tokens) > 1:
                raise ValueError(f"'{entry.label}' opens a list of moves; enter its number alone")
            return entry
        count = None
        if len(tokens) == 2:
            if not tokens[1].lstrip("-").isdigit():
                raise ValueError(f"the amount must be a whole number, got {tokens[1]!r}")
            count = int(tokens[1])
        return entry.pick(count)
    mv = game.parse_move(s, line)
    game.check(s, mv)
    return mv
