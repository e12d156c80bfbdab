"""Agents playing each other in the terminal (``risk-env watch``), and the text lines the
terminal games share (a move, the result).

:func:`watch_game` plays through :func:`risk_env.tools.match.play_match` and
prints boards with :func:`risk_env.records.ansi.render_ansi`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TextIO, cast

import typer

from ..envs.aec import raw_env
from ..records.ansi import render_ansi, seat_name
from ..records.record import GameRecord, ReplayStep
from ..rules.config import RulesConfig
from ..rules.engine import Game
from ..rules.state import GameState, Phase
from .match import DEFAULT_MAX_TURN_STEPS, play_match

__all__ = ["watch_game", "echo", "move_line", "result_line"]


def echo(out: TextIO | None, text: str = "") -> None:
    """Print a line to ``out`` (None: the terminal, through typer)."""
    if out is None:
        typer.echo(text)
    else:
        print(text, file=out)


def move_line(game: Game, step: ReplayStep) -> str:
    """``"<seat>: <move>   [<what happened>]"`` for a replayed or played move."""
    from ..records.replay import describe_step

    extra = describe_step(game, step)
    b = step.before
    who = seat_name(game, step.seat)
    if b is not None and game.commanding(b) == step.seat and b.phase != Phase.DEFEND:  # docs/rules.md §7
        who += f" for the {game.army_name()} army"
    return f"{who}: {step.text}" + (f"   [{extra}]" if extra else "")


def watch_game(
    rules: RulesConfig,
    agents: dict[int, Any],
    seed: int,
    show: str = "turn",
    out: TextIO | None = None,
    color: bool = False,
    record: bool = False,
    players: list[str] | None = None,
    on_move: Callable[[ReplayStep], None] | None = None,
    delay: float = 0.0,
    max_turn_steps: int = DEFAULT_MAX_TURN_STEPS,
) -> tuple[GameState, GameRecord | None]:
    """Play agents against each other (:func:`risk_env.tools.match.play_match`, which stops a game whose turn
    takes more than ``max_turn_steps`` action ids); print the board per ``show`` (``turn``, ``move``, ``log``,
    ``end`` or ``none``).

    Returns:
        the final state, and the game's record (with action ids) when ``record``.
    """
    env = raw_env(rules=rules)
    game = env.game
    recent: list[str] = []
    before: list[GameState] = []

    def snapshot(agent: str, action: int, obs: Any, info: dict[str, Any]) -> None:
        before[:] = [cast(GameState, env.game_state).copy()]

    def moved(agent: str, action: int) -> None:
        s, prev = cast(GameState, env.game_state), before[0]
        if s.steps == prev.steps:  # a selection, not yet a move
            return
        seat = env.agent_name_mapping[agent]
        text = env.last_move
        step = ReplayStep(s.steps, seat, text, game.parse_move(prev, text), prev, s.copy())
        if on_move is not None:
            on_move(step)
        if show in ("move", "log"):
            echo(out, move_line(game, step))
        turn_over = s.turn != prev.turn or s.phase == Phase.GAME_OVER
        if show == "move" or (show == "turn" and turn_over and s.phase != Phase.GAME_OVER):
            echo(out, render_ansi(game, s, text, recent, color=color))
            echo(out, "")
            if delay:
                time.sleep(delay)
        recent.append(text)

    table = {f"player_{p}": ag for p, ag in agents.items()}
    result = play_match(
        env,
        table,
        seed,
        before_step=snapshot,
        on_step=moved,
        record=record,
        players=players,
        views=True,
        observe=True,
        max_turn_steps=max_turn_steps,
    )
    s = cast(GameState, env.game_state)
    if show != "none":
        echo(out, render_ansi(game, s, recent[-1] if recent else "", recent[:-1], color=color))
    return s, result.record


def result_line(game: Game, s: GameState, names: list[str] | None = None) -> str:
    """How the game ended, in one line; with ``names`` (a label per seat) the winner's agent is named too."""
    if s.phase != Phase.GAME_OVER:
        return f"game left unfinished at turn {s.turn} after {s.steps} moves"
    if s.winner >= 0:
        who = seat_name(game, s.winner)
        if names is not None and s.winner < len(names) and names[s.winner] != who:
            who += f" ({names[s.winner]})"
        return f"{who} wins after {s.turn} turns ({s.steps} moves)"
    return f"turn limit reached after {s.turn} turns ({s.steps} moves); no winner"
