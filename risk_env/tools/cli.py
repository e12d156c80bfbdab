"""The ``risk-env`` command line.

    risk-env play --players 3 --seat 0               # you against two agents, at the terminal
    risk-env watch --players 4 --turns 30 --gif game.gif --record game.json
    risk-env replay game.json --strip turns.png --html game.html
    risk-env evaluate ... | risk-env train ... | risk-env bench ...

``play`` (:mod:`risk_env.tools.play`) shows each decision of the human as one screen that fits a 120x40
terminal on the classic map: a compact board (continents in columns, one short
line per territory), the status, and the legal moves numbered in columns. It
accepts a number or a move's text (``attack Alaska->Kamchatka dice=3``);
moves that take an amount are listed once with their range (``place
Alaska 1..7``): a number alone takes the most, ``N K`` takes ``K``. When the
moves do not fit, the trades are grouped by kind of set and the attacks or
fortifications by source territory (``from Alaska (5) -> 2``: its number lists
them with Alaska's neighbours, ``0`` goes back), and a last ``more`` entry
opens the rest. ``n <territory>`` shows a territory's neighbours. Mistakes at
the prompt are explained and never end the game. Input is read line by line
from standard input, so a script or a test can drive it.

``watch`` first says which agent holds which seat. Output files (``--png``,
``--gif``, ``--record``...) get their folders created; a folder that cannot be
made, a missing optional package, a broken record end with one ``error:`` line.

``evaluate``, ``train`` and ``bench`` pass their arguments to
``risk_env.tools.evaluation.main``, ``risk_env.train.sb3.main`` and
``risk_env.tools.benchmark.main``; ``risk-env train --help`` shows that module's options.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from ..errors import MissingExtraError

try:
    import typer
except ImportError:
    raise MissingExtraError(
        "the risk-env command line needs typer (extra 'cli'): pip install 'risk_env[cli]'", extra="cli", module="typer"
    ) from None

from .._extras import missing_extra_message, require
from ..agents import load_agent
from ..errors import RiskError
from ..records.ansi import seat_name
from ..records.record import ReplayStep
from ..records.recorder import GameRecorder
from ..rules.config import PRESETS, RulesConfig, parse_settings, resolve_rules, rules_files
from ..rules.engine import Game
from ..rules.moves import MoveKind
from ..rules.state import Phase
from .play import play_game
from .watch import result_line, watch_game

__all__ = ["app", "main", "build_rules"]

app = typer.Typer(
    name="risk-env",
    help="An environment for the board game Risk: play it, watch agents, replay records, evaluate, train, benchmark.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


# ---------------------------------------------------------------------- shared helpers
def build_rules(
    players: int | None, preset: str, map_name: str | None, turn_limit: int | None, settings: list[str] | None
) -> RulesConfig:
    """Rules from the common options (``--set key=value`` for any switch of :class:`RulesConfig`,
    read by :func:`risk_env.rules.config.parse_settings`).

    Raises:
        typer.BadParameter: a malformed ``--set`` or a bad rule (the message lists what is allowed).
    """
    try:
        overrides = parse_settings(settings)
        if map_name is not None:
            overrides["map"] = map_name
        if turn_limit is not None:
            overrides["turn_limit"] = turn_limit
        return resolve_rules(preset, num_players=players, **overrides)
    except RiskError as e:
        raise typer.BadParameter(str(e)) from None


def _load(name: str, seed: int) -> Any:
    """The agent ``name`` names (:func:`risk_env.agents.load_agent`), as a command-line error if unknown."""
    try:
        return load_agent(name, seed=seed)
    except RiskError as e:
        raise typer.BadParameter(f"cannot load agent {name!r}: {e}") from None


def _agent_names(spec: str, n: int) -> list[str]:
    names = [x.strip() for x in spec.split(",") if x.strip()]
    if not names:
        raise typer.BadParameter("give at least one agent name")
    if len(names) == 1:
        return names * n
    if len(names) != n:
        raise typer.BadParameter(f"give one agent name for all players or exactly {n} (one per seat), got {len(names)}")
    return names


def _seats_line(game: Game, names: list[str]) -> str:
    """``seats: player_0 = random, player_1 = aggressive, ...`` (the neutral or the allied army last, when there is one),
    wrapped to 120 columns."""
    parts = [f"{seat_name(game, p)} = {nm}" for p, nm in enumerate(names)]
    if game.neutral >= 0:
        parts.append("neutral = no agent (armies only)")
    if game.allied >= 0:
        parts.append("allied = commanded by the opponent of the player on turn")
    import textwrap

    return "\n".join(textwrap.wrap("seats: " + ", ".join(parts), 120, subsequent_indent="       ", break_on_hyphens=False))


def _fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``error: message`` on stderr and return the Exit to raise (one line, no traceback)."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _output_path(path: str | None, option: str) -> None:
    """Make sure ``path``'s folder exists (created if missing), before any game is played.

    Raises:
        typer.Exit: (code 2, after a one-line error) the folder cannot be created, or ``path`` is a folder.
    """
    if not path:
        return
    import os

    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise _fail(f"{option} {path!r} is a folder; give a file name")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise _fail(f"{option} {path!r}: cannot create the folder {folder!r}: {e.strerror or e}") from None
    if not os.access(folder, os.W_OK):
        raise _fail(f"{option} {path!r}: the folder {folder!r} is not writable")


_ANIMATIONS = (".gif", ".mp4", ".webm", ".mkv", ".avi", ".mov")
"""Suffixes an animation can be written to (:func:`risk_env.records.replay.render_video`)."""


def _check_numbers(seed: int | None = None, delay: float | None = None, fps: float | None = None) -> None:
    """Refuse out-of-range numbers before any game is played.

    Raises:
        typer.Exit: (code 2, after a one-line error) a negative seed, a negative or non-finite delay,
            frames per second not above 0 (or not finite).
    """
    import math

    if seed is not None and seed < 0:
        raise _fail(f"--seed must be 0 or more, got {seed}")
    if delay is not None and not (math.isfinite(delay) and delay >= 0):
        raise _fail(f"--delay must be 0 or more seconds, got {delay}")
    if fps is not None and not (math.isfinite(fps) and fps > 0):
        raise _fail(f"--fps must be more than 0 frames per second, got {fps}")


def _check_suffix(path: str | None, option: str, allowed: tuple[str, ...]) -> None:
    """Refuse an output file whose suffix is not one of ``allowed`` (one line, exit 2)."""
    import os

    if path and os.path.splitext(path)[1].lower() not in allowed:
        raise _fail(
            f"{option} {path!r} must end in {' or '.join(allowed[:2])}"
            + (f" (or {', '.join(allowed[2:])})" if allowed[2:] else "")
        )


# ---------------------------------------------------------------------- commands
_PLAYERS = typer.Option(
    None, "--players", "-n", min=2, max=6, help="number of players, 2..6 (default: the preset's count, else 4)"
)
_RULES = typer.Option(
    "classic",
    "--rules",
    help=f"rules preset ({', '.join(PRESETS)}), shipped rules file ({', '.join(rules_files())}) or path of a rules .yaml file",
)
_MAP = typer.Option(None, "--map", help="map: classic, small, or a path to a map .json (default: the preset's)")
_TURNS = typer.Option(None, "--turns", "--turn-limit", min=1, help="end the game (no winner) after this many player turns")
_SET = typer.Option(
    None, "--set", help="any rules switch as key=value, repeatable (e.g. --set fortify=connected; null for the default)"
)
_SEED = typer.Option(0, "--seed", help="seed of the game's generator (dice, order, setup); agents get seed+seat")
_COLOR = typer.Option(None, "--color/--no-color", help="colour owners in the text board (default: when writing to a terminal)")


@app.command()
def play(
    players: int | None = _PLAYERS,
    rules: str = _RULES,
    map_name: str | None = _MAP,
    turns: int | None = _TURNS,
    settings: list[str] | None = _SET,
    seat: int = typer.Option(0, "--seat", help="your seat (player_<seat>)"),
    agents: str = typer.Option(
        "random", "--agents", "--opponent", help="opponent agent name, or one per other seat, comma-separated"
    ),
    seed: int = _SEED,
    record: str | None = typer.Option(None, "--record", help="write the game record (JSON) here when the game ends or you leave"),
    color: bool | None = _COLOR,
) -> None:
    """Play at the terminal against agents.

    The board is shown as text; each decision lists the legal moves with numbers.
    Enter a number, 'N K' for a move with an amount (place/attack dice/fortify/occupy),
    or the move as text (e.g. 'attack Alaska->Kamchatka dice=3'); 'help' explains more.
    Moves are read from standard input, so you can pipe them in.
    """
    _check_numbers(seed=seed)
    cfg = build_rules(players, rules, map_name, turns, settings)
    _output_path(record, "--record")
    if not 0 <= seat < cfg.num_players:
        raise typer.BadParameter(f"--seat must be from 0 to {cfg.num_players - 1}", param_hint="--seat")
    game = Game(cfg)
    others = [p for p in range(cfg.num_players) if p != seat]
    names = _agent_names(agents, len(others))
    table = {p: _load(nm, seed * 1000 + p) for p, nm in zip(others, names, strict=False)}
    labels = [("human" if p == seat else names[others.index(p)]) for p in range(cfg.num_players)]
    rec = GameRecorder(game, seed, players=labels) if record else None
    use_color = sys.stdout.isatty() if color is None else color
    labels_short = [("you" if p == seat else names[others.index(p)]) for p in range(cfg.num_players)]
    typer.echo(_seats_line(game, labels_short))
    s = play_game(cfg, seat, table, seed, sys.stdin.readline, color=use_color, recorder=rec, names=labels_short)
    typer.echo(result_line(game, s, labels_short))
    if rec is not None and record:
        rec.finish(s, None if s.phase == Phase.GAME_OVER else "unfinished").save(record)
        typer.echo(f"record written to {record}")


@app.command(short_help="Watch agents play each other (text boards; GIF/MP4, PNG, record).")
def watch(
    players: int | None = _PLAYERS,
    rules: str = _RULES,
    map_name: str | None = _MAP,
    turns: int | None = _TURNS,
    settings: list[str] | None = _SET,
    agents: str = typer.Option("random", "--agents", help="agent name for every seat, or one per seat, comma-separated"),
    seed: int = _SEED,
    show: str = typer.Option(
        "turn",
        "--show",
        help="text output: 'turn' (board each turn), 'move' (board each move), 'log' (a line per move), 'end', 'none'",
    ),
    gif: str | None = typer.Option(
        None, "--gif", help="also draw the game to this animation (.gif, or .mp4 with imageio-ffmpeg)"
    ),
    every: str = typer.Option("turn", "--every", help="animation frames: one per 'turn' or per 'move'"),
    fps: float = typer.Option(2.0, "--fps", help="animation frames per second"),
    png: str | None = typer.Option(None, "--png", help="draw one position of the game to this PNG"),
    png_when: str = typer.Option(
        "end", "--png-when", help="which position --png draws: 'end' or 'last-attack' (right after the game's last attack)"
    ),
    record: str | None = typer.Option(None, "--record", help="write the game record (JSON) here"),
    delay: float = typer.Option(0.0, "--delay", help="seconds to pause after each board shown"),
    color: bool | None = _COLOR,
) -> None:
    """Watch agents play each other: boards as text in the terminal, and optionally a GIF/MP4, a PNG and a record."""
    if show not in ("turn", "move", "log", "end", "none"):
        raise typer.BadParameter("--show must be turn, move, log, end or none", param_hint="--show")
    if every not in ("turn", "move"):
        raise typer.BadParameter("--every must be turn or move", param_hint="--every")
    if png_when not in ("end", "last-attack"):
        raise typer.BadParameter("--png-when must be end or last-attack", param_hint="--png-when")
    _check_numbers(seed=seed, delay=delay, fps=fps)
    _check_suffix(png, "--png", (".png",))
    _check_suffix(gif, "--gif", _ANIMATIONS)
    cfg = build_rules(players, rules, map_name, turns, settings)
    if png or gif:  # checked before the game is played
        try:
            require("matplotlib", "render", "drawing the board (--png, --gif)")
            if gif:
                require("imageio.v3", "render", "writing an animation (--gif)")
        except MissingExtraError as e:
            raise _fail(str(e), 1) from None
    for path, option in ((png, "--png"), (gif, "--gif"), (record, "--record")):
        _output_path(path, option)
    game = Game(cfg)
    names = _agent_names(agents, cfg.num_players)
    table = {p: _load(nm, seed * 1000 + p) for p, nm in enumerate(names)}
    snap: dict[str, Any] = {}
    history: list[str] = []

    def on_move(step: ReplayStep) -> None:
        if png and png_when == "last-attack" and step.move.kind in (MoveKind.ATTACK, MoveKind.BLITZ):
            snap["at"] = (step.state, step.text, history[-14:])
        history.append(step.text)

    use_color = sys.stdout.isatty() if color is None else color
    typer.echo(_seats_line(game, names))
    s, result = watch_game(cfg, table, seed, show=show, color=use_color, record=True, players=names, on_move=on_move, delay=delay)
    typer.echo(result_line(game, s, names))
    if record and result is not None:
        result.save(record)
        typer.echo(f"record written to {record}")
    if png:
        from ..records.draw import BoardRenderer

        state, last, recent = snap.get("at", (s, history[-1] if history else "", history[-15:-1]))
        labels = names if len(set(names)) == len(names) else None  # agent names only when they tell the seats apart
        BoardRenderer(game, player_names=labels).save_png(state, png, last, recent)
        typer.echo(f"picture written to {png}")
    if gif and result is not None:
        from ..records.replay import render_video

        try:
            n = render_video(result, gif, every=every, fps=fps)
        except (RuntimeError, MissingExtraError) as e:
            raise _fail(str(e), 1) from None
        typer.echo(f"animation written to {gif} ({n} frames)")


@app.command(short_help="Replay a game record: a move log, GIF/MP4, PNG strip or HTML page.")
def replay(
    record: str = typer.Argument(..., help="a game record (.json)"),
    gif: str | None = typer.Option(None, "--gif", help="write an animated GIF here"),
    video: str | None = typer.Option(None, "--video", help="write a video here (.mp4/.webm; needs imageio-ffmpeg or av)"),
    strip: str | None = typer.Option(None, "--strip", help="write a PNG with the board at the end of each turn here"),
    html: str | None = typer.Option(
        None, "--html", help="write one self-contained HTML page that replays the game here (step, play, scrub)"
    ),
    every: str = typer.Option("turn", "--every", help="animation frames: one per 'turn' or per 'move'"),
    fps: float = typer.Option(2.0, "--fps", help="animation frames per second"),
    upto: int | None = typer.Option(None, "--upto", min=0, help="stop after this many moves"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="do not print the move-by-move log"),
) -> None:
    """Replay a game record: print a move-by-move log and draw it (GIF/MP4, per-turn PNG strip, an HTML page)."""
    from ..records.replay import run

    _check_numbers(fps=fps)
    _check_suffix(html, "--html", (".html", ".htm"))
    for path, option in ((gif, "--gif"), (video, "--video"), (strip, "--strip"), (html, "--html")):
        _output_path(path, option)
    try:
        run(record, gif, video, strip, every, fps, upto, log=not quiet, html=html)
    except (RiskError, ValueError, RuntimeError, MissingExtraError) as e:
        raise _fail(str(e), 1) from None


_PASS = {"allow_extra_args": True, "ignore_unknown_options": True}


def _delegate(module: str, what: str, ctx: typer.Context, extra: str | None = None) -> None:
    """Run ``module.main(ctx.args)``; a missing optional package (``extra`` provides it) is one ``error:`` line."""
    args = list(ctx.args)
    try:
        mod = importlib.import_module(module)
        entry = mod.main
    except (ImportError, AttributeError) as e:
        missing = missing_extra_message(e, extra, f"'risk-env {ctx.info_name}'") if extra and isinstance(e, ImportError) else None
        why = f"{type(e).__name__}: {e}"
        msg = missing or f"'risk-env {ctx.info_name}' runs {module}.main, which is not available in this installation ({why})."
        if any(a in ("-h", "--help") for a in args):
            typer.echo(f"risk-env {ctx.info_name} ARGS...: {what}\n\n{msg}")
            raise typer.Exit(0) from None
        typer.echo(f"error: {msg}", err=True)
        raise typer.Exit(1 if missing else 2) from None
    rc = entry(args)
    if isinstance(rc, int) and rc:
        raise typer.Exit(rc)


@app.command(context_settings=_PASS, add_help_option=False, short_help="Evaluate agents: win rates, ratings (the 'eval' extra).")
def evaluate(ctx: typer.Context) -> None:
    """Evaluate agents against each other (ratings, win rates).

    Arguments go to risk_env.tools.evaluation; see 'risk-env evaluate --help'.
    """
    _delegate("risk_env.tools.evaluation", "evaluate agents against each other", ctx, extra="eval")


@app.command(context_settings=_PASS, add_help_option=False, short_help="Train MaskablePPO from a config (the 'train' extra).")
def train(ctx: typer.Context) -> None:
    """Train an agent. Arguments go to risk_env.train.sb3; see 'risk-env train --help'."""
    _delegate("risk_env.train.sb3", "train an agent", ctx, extra="train")


@app.command(context_settings=_PASS, add_help_option=False, short_help="Measure engine and env speed (the 'bench' extra).")
def bench(ctx: typer.Context) -> None:
    """Measure the speed of the engine and the environment.

    Arguments go to risk_env.tools.benchmark; see 'risk-env bench --help'.
    """
    _delegate("risk_env.tools.benchmark", "measure engine and environment speed", ctx, extra="bench")


@app.command(context_settings=_PASS, add_help_option=False, short_help="Play many games checking the rules' invariants.")
def soak(ctx: typer.Context) -> None:
    """Play many games checking the rules' invariants every step.

    Arguments go to risk_env.tools.soak; see 'risk-env soak --help'.
    """
    _delegate("risk_env.tools.soak", "soak-test the engine and the environment", ctx)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``risk-env`` console script.

    Bad input that surfaces while a command runs (a broken map file, a bad rules
    value) ends with a one-line ``error: ...`` and exit status 2, not a traceback;
    a missing optional package ends with one line naming the extra to install, exit status 1.
    """
    try:
        app(args=argv, prog_name="risk-env")
    except RiskError as e:
        typer.echo(f"error: {e}", err=True)
        raise SystemExit(2) from None
    except MissingExtraError as e:
        typer.echo(f"error: {e}", err=True)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
