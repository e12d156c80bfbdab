"""The ``risk-env`` command line: every command, in one framework (typer).

    risk-env play --players 3 --seat 0               # you against two agents, at the terminal
    risk-env watch --players 4 --turns 30 --gif game.gif --record game.json
    risk-env replay game.json --strip turns.png --html game.html
    risk-env evaluate balanced random --games 200 --rules fast
    risk-env train --config 4p | risk-env train-rllib | risk-env plot-training runs/default
    risk-env bench --quick | risk-env soak --games 2000
    risk-env serve --agents ppo-2p --rules fast -n 2     # you against an agent, in a browser

The scripts in ``scripts/`` are these commands under another name (``python scripts/evaluate.py``
is ``risk-env evaluate``): :func:`main` with ``command=``.

One meaning per short option, in every command: ``-n`` the number of players, ``-s`` a rules
(or config) switch ``key=value``, ``-c`` a config, ``-o`` where the output goes, ``-q`` quiet,
``-h`` help. Agent lists name every shipped agent (:func:`risk_env.agents.spec_forms`).

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

``watch`` first says which agent holds which seat; a game stopped because one turn took more than
``--max-turn-steps`` action ids (default :data:`~risk_env.tools.match.DEFAULT_MAX_TURN_STEPS`) says so in its last line
(exit status 0). Output files (``--png``,
``--gif``, ``--record``...) get their folders created; a folder that cannot be
made, two outputs on one file (or ``replay`` writing over the record it reads),
a missing optional package, a broken record end with one ``error:`` line; so do click's own refusals in every
command (a value of the wrong type or out of range, an unknown option or command), naming the option as it was typed
(``error: -n 7: input should be less than or equal to 6 (see risk-env watch -h)``), exit status 2. A reader that goes
away (``risk-env replay g.json | head``) stops the command quietly, exit status 141 (128 + SIGPIPE).
In ``play``, Ctrl+C at the prompt leaves the game as ``quit`` does (the
``--record`` is written).
"""

from __future__ import annotations

import importlib
import io
import math
import os
import pathlib
import re
import shlex
import sys
import textwrap
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from ..errors import MissingExtraError

try:
    import typer
except ImportError:
    raise MissingExtraError(
        "the risk-env command line needs typer (extra 'cli'): pip install 'risk_env[cli]'", extra="cli", module="typer"
    ) from None

from .._extras import missing_extra_message, require
from .._output import check_output_file, write_json
from ..agents import load_agent, spec_forms
from ..agents.base import check_fits_game
from ..errors import AgentError, ConfigError, IllegalActionError, RiskError
from ..records.ansi import distinct_labels, seat_name
from ..records.record import GameRecord, ReplayStep
from ..records.recorder import GameRecorder, fresh_seed
from ..records.replay import ANIMATION_SUFFIXES, MAX_FPS, MIN_FPS, strip_suffixes, suffix_list
from ..rules.config import (
    PRESETS,
    RulesConfig,
    parse_settings,
    resolve_rules,
    rules_files,
    rules_player_count,
)
from ..rules.engine import Game
from ..rules.moves import MoveKind
from ..rules.state import Phase
from .match import DEFAULT_MAX_TURN_STEPS
from .play import play_game
from .watch import result_line, watch_game

__all__ = ["app", "main", "build_rules", "COMMANDS"]

_CLICK = importlib.import_module(typer.BadParameter.__module__)
"""Click's exceptions, as this typer raises them (its own copy of click from typer 0.22, click's before)."""

EXIT_CLOSED_PIPE = 141
"""Exit status when the reader of the output went away (``risk-env replay g.json | head``): 128 + SIGPIPE, what the
shell reports for a tool the closed pipe stopped, and no message."""


def _typed_option(param: Any, args: list[str]) -> tuple[str | None, str | None]:
    """The name of ``param`` as the user typed it last in ``args`` (``-n``, ``--players``, ``--no-color``), and the
    value typed with it (None for a flag, or when it was not found)."""
    names = [*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())]
    takes_value = not getattr(param, "is_flag", False) and getattr(param, "nargs", 1) != 0
    found: tuple[str | None, str | None] = (None, None)
    for i, token in enumerate(args):
        if token == "--":
            break
        for name in names:
            if token == name:
                found = (name, args[i + 1] if takes_value and i + 1 < len(args) else None)
            elif name.startswith("--") and token.startswith(name + "="):
                found = (name, token[len(name) + 1 :])
            elif len(name) == 2 and name != "--" and token.startswith(name) and not token.startswith("--"):
                found = (name, token[2:])  # (-n7)
    return found


def _usage_line(e: Any, args: list[str]) -> str:
    """A usage error of click (a bad option value, an unknown option or command, a missing argument) as one line
    naming the option as the user typed it, with the command that lists the options."""
    message = str(e.message).strip().rstrip(".")
    param = getattr(e, "param", None)
    if isinstance(e, _CLICK.BadParameter) and not isinstance(e, _CLICK.MissingParameter) and param is not None:
        typed, value = _typed_option(param, args)
        if typed is None:  # (an argument, or an option not found as typed)
            opts = list(getattr(param, "opts", ()))
            typed = f"{opts[0]} ({', '.join(opts[1:])})" if len(opts) > 1 and opts[0].startswith("--") else None
            typed = typed or (opts[0] if opts and opts[0].startswith("-") else str(param.human_readable_name))
        if message[:1].isupper() and message[1:2].islower():
            message = message[0].lower() + message[1:]
        line = f"{typed} {value}: {message}" if value is not None else f"{typed}: {message}"
    else:
        line = e.format_message().strip().rstrip(".")
    ctx = getattr(e, "ctx", None)
    if ctx is not None:
        line += f" (see {ctx.command_path} -h)"
    return line


def _run_main(main: Any, args: Any, prog_name: Any, complete_var: Any, standalone_mode: bool, **extra: Any) -> Any:
    """``main`` (click's, through typer) with click's own errors as one ``error:`` line (exit status 2) instead of
    the usage block; ``standalone_mode=False`` leaves them to the caller, as click does."""
    if not standalone_mode:
        return main(args=args, prog_name=prog_name, complete_var=complete_var, standalone_mode=False, **extra)
    argv = [str(a) for a in (sys.argv[1:] if args is None else args)]
    try:
        rv = main(args=argv, prog_name=prog_name, complete_var=complete_var, standalone_mode=False, **extra)
    except _CLICK.ClickException as e:
        if e.__class__.__name__ == "NoArgsIsHelpError":  # (the help of a bare ``risk-env``: shown as click shows it)
            e.show()
        elif isinstance(e, _CLICK.UsageError):
            typer.echo(f"error: {_usage_line(e, argv)}", err=True)
        else:
            typer.echo(f"error: {e.format_message()}", err=True)
        sys.exit(e.exit_code)
    except typer.Abort:
        typer.echo("Aborted!", err=True)
        sys.exit(1)
    sys.exit(rv if isinstance(rv, int) else 0)  # (an Exit's status, returned when not standalone; else 0)


def _closed_pipe() -> typer.Exit:
    """Point standard output at the null device (the exit's flush has nowhere else to go) and return the quiet exit
    to raise (:data:`EXIT_CLOSED_PIPE`)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):  # (a stream with no file: a test's)
        pass
    return typer.Exit(EXIT_CLOSED_PIPE)


class _Command(typer.core.TyperCommand):
    """A command whose errors of click are one line (:func:`_run_main`) and which stops quietly when the reader
    of its output goes away (:func:`_closed_pipe`)."""

    def main(  # type: ignore[override]
        self, args: Any = None, prog_name: Any = None, complete_var: Any = None, standalone_mode: bool = True, **extra: Any
    ) -> Any:
        return _run_main(super().main, args, prog_name, complete_var, standalone_mode, **extra)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise _closed_pipe() from None


class _Group(typer.core.TyperGroup):
    """The ``risk-env`` group, its errors of click as one line (:func:`_run_main`)."""

    def main(  # type: ignore[override]
        self, args: Any = None, prog_name: Any = None, complete_var: Any = None, standalone_mode: bool = True, **extra: Any
    ) -> Any:
        return _run_main(super().main, args, prog_name, complete_var, standalone_mode, **extra)


class _App(typer.Typer):
    """:class:`typer.Typer` whose commands are :class:`_Command` s."""

    def command(self, name: str | None = None, *, cls: Any = _Command, **kwargs: Any) -> Any:  # type: ignore[override]
        return super().command(name, cls=cls, **kwargs)


app = _App(
    cls=_Group,
    name="risk-env",
    help="An environment for the board game Risk: play it, watch agents, replay records, evaluate, train, benchmark.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

COMMANDS = ("play", "serve", "watch", "replay", "evaluate", "train", "train-rllib", "plot-training", "bench", "soak")
"""The commands, in the order ``risk-env --help`` lists them."""


# ---------------------------------------------------------------------- shared helpers
def _fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``error: message`` on stderr and return the Exit to raise (one line, no traceback)."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _rules_count(rules: str | None) -> int | None:
    """:func:`~risk_env.rules.config.rules_player_count` of ``--rules``, its refusal a command-line error."""
    try:
        return rules_player_count(rules)
    except RiskError as e:
        raise _fail(str(e)) from None


def _check_players(rules: str | None, players: int | None) -> None:
    """Refuse ``--players`` against rules made for another count, naming the option the user passed.

    Raises:
        typer.Exit: (code 2, after a one-line error).
    """
    fixed = _rules_count(rules)
    if fixed is not None and players is not None and players != fixed:
        raise _fail(f"--rules {rules} is for {fixed} players, got --players {players}: omit --players, or choose other --rules")


def build_rules(
    players: int | None, preset: str, map_name: str | None, turn_limit: int | None, settings: list[str] | None
) -> RulesConfig:
    """Rules from the common options (``--set key=value`` for any switch of :class:`RulesConfig`,
    read by :func:`risk_env.rules.config.parse_settings`).

    Raises:
        typer.Exit: (code 2, after a one-line error) ``--players`` against rules made for another count, a malformed
            ``--set``, or a bad rule (the message lists what is allowed).
    """
    _check_players(preset, players)
    try:
        return resolve_rules(preset, num_players=players, **_overrides(settings, map_name, turn_limit))
    except RiskError as e:
        raise _fail(str(e)) from None


def _overrides(settings: list[str] | None, map_name: str | None = None, turn_limit: int | None = None) -> dict[str, Any]:
    """The rule switches of ``--set``, ``--map`` and ``--turns`` (a malformed ``--set`` raises a RiskError); ``null``
    is a switch's docs/rules.md default (:meth:`RulesConfig.defaults`), whatever the preset says."""
    given = parse_settings(settings)
    if "num_players" in given:  # (the count has its own option; the two would clash)
        raise ConfigError(f"--set {_typed(settings, 'num_players')}: give the number of players as --players (-n)")
    defaults = RulesConfig.defaults()
    overrides = {k: defaults.get(k) if v is None else v for k, v in given.items()}
    for key, option, value in (("map", "--map", map_name), ("turn_limit", "--turns", turn_limit)):
        if value is None:
            continue
        if key in overrides and not _same_setting(overrides[key], value):  # (one would be dropped without a word)
            raise ConfigError(f"--set {_typed(settings, key)} and {option} {value} disagree: give one of them")
        overrides[key] = value
    return overrides


def _same_setting(given: Any, value: Any) -> bool:
    """Whether a ``--set`` value (parsed) says what an option's ``value`` says: equal numbers (``5.0`` and ``5``), other
    values equal and of one type (``true`` is no turn limit of 1), or text naming the same path (``./a`` and ``a``)."""
    if isinstance(given, str) and isinstance(value, str):
        return given == value or os.path.normpath(given) == os.path.normpath(value)
    numbers = (int, float)
    if isinstance(given, numbers) and isinstance(value, numbers) and not isinstance(given, bool) and not isinstance(value, bool):
        return given == value  # (seed=5.0 is the seed 5)
    return type(given) is type(value) and given == value


def _typed(settings: list[str] | None, key: str) -> str:
    """The last ``--set`` item for ``key`` as it was typed (``map=null``, not ``map=None``)."""
    items = [item.strip() for item in settings or () if item.partition("=")[0].strip() == key]
    return items[-1] if items else key


def _load(name: str, seed: int) -> Any:
    """The agent ``name`` names (:func:`risk_env.agents.load_agent`), as a command-line error if unknown."""
    try:
        return load_agent(name, seed=seed)
    except MissingExtraError as e:
        raise _fail(str(e), 1) from None
    except RiskError as e:
        raise _fail(f"cannot load agent {name!r}: {e}") from None


def _check_fits(agents: Iterable[Any], game: Game) -> None:
    """Refuse, before the seats are shown and the game starts, an agent that cannot play these rules
    (:func:`risk_env.agents.base.check_fits_game`), as a command-line error."""
    try:
        check_fits_game(agents, game)
    except RiskError as e:
        raise _fail(str(e)) from None


def _agent_names(spec: str, n: int) -> list[str]:
    names = [x.strip() for x in spec.split(",") if x.strip()]
    if not names:
        raise _fail("give at least one agent name")
    if len(names) == 1:
        return names * n
    if len(names) != n:
        raise _fail(f"give one agent name for all players or exactly {n} (one per seat), got {len(names)}")
    return names


def _players_for(players: int | None, rules: str, agents: str, humans: int) -> int | None:
    """The player count a command plays: ``--players`` where given; else, where ``--agents`` names one agent per seat
    of several and ``--rules`` fixes no count (a preset's or a rules file's), those agents and ``humans`` seats (as
    ``risk-env evaluate`` takes its count from its agents); else None (the rules' count, or 4)."""
    given = [x for x in agents.split(",") if x.strip()]
    if players is None and len(given) > 1 and _rules_count(rules) is None:
        return min(len(given) + humans, 6)  # (more agents than 6 seats: refused by the seats' count)
    return players


def _seats_line(game: Game, names: list[str]) -> str:
    """``seats: player_0 = random, player_1 = aggressive, ...`` (the neutral or the allied army last, when there is one),
    wrapped to 120 columns."""
    parts = [f"{seat_name(game, p)} = {nm}" for p, nm in enumerate(names)]
    if game.neutral >= 0:
        parts.append("neutral = no agent (armies only)")
    for v in game.variants:  # a variant's army: who plays it (the allied army, §7)
        role = v.owner_role(game.army)
        if role is not None:
            parts.append(f"{seat_name(game, game.army)} = {role}")
    return "\n".join(textwrap.wrap("seats: " + ", ".join(parts), 120, subsequent_indent="       ", break_on_hyphens=False))


def _output_path(path: str | None, option: str) -> None:
    """Make sure ``path`` can be written (its folder made if missing), before any game is played, creating nothing
    (:func:`risk_env._output.check_output_file`): the writers make the missing folders when they write.

    Raises:
        typer.Exit: (code 2, after a one-line error) the folder cannot be created, ``path`` is a folder, or the
            file cannot be written there (a name too long, no permission, a read-only file system).
    """
    try:
        check_output_file(path, option)
    except ConfigError as e:
        raise _fail(str(e)) from None


def _input_files(cfg: RulesConfig, rules: str, agents: str) -> tuple[tuple[str, str], ...]:
    """The files a game command reads, as ``(path, what)`` for :func:`_output_paths`: a rules file given as
    ``--rules``, the rules' map file (from ``--map``, ``--set map=`` or the rules file), and each agent of ``--agents``
    that names a file (a model, also without its ``.pt`` or ``.zip``, as ``load_agent`` reads it)."""
    found = [(rules, "the --rules file"), (cfg.map, "the map file")]
    for name in (x.strip() for x in agents.split(",")):
        found += [(name + suffix, f"the agent file {name + suffix!r}") for suffix in ("", ".pt", ".zip")]
    return tuple((path, what) for path, what in found if path and os.path.isfile(path))


def _file_key(path: str) -> Any:
    """What tells one file from another: the device and inode of a file that is there (a hard link is the same
    file), else the path with its links and ``..`` resolved."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError:
        return real
    return (st.st_dev, st.st_ino)


def _output_paths(outputs: list[tuple[str | None, str]], inputs: tuple[tuple[str, str], ...] = ()) -> None:
    """:func:`_output_path` for each ``(path, option)`` of ``outputs``, after checking that no two of them, and
    none of them and an input file (``(path, what)``), name the same file: one would overwrite the other.

    Raises:
        typer.Exit: (code 2, after a one-line error) two options name one file, or an output would
            overwrite an input; or :func:`_output_path`'s refusals.
    """
    seen: dict[Any, str] = {_file_key(path): what for path, what in inputs}
    for path, option in outputs:
        if not path:
            continue
        key = _file_key(path)
        if key in seen:
            raise _fail(f"{option} {path!r} is the same file as {seen[key]}: give each output its own file")
        seen[key] = option
    for path, option in outputs:
        _output_path(path, option)


def _written(option: str, path: str, write: Any) -> Any:
    """``write()``, with a failure to write ``path`` (the disk full, the folder removed meanwhile) as one line.

    Raises:
        typer.Exit: (code 1, after a one-line error) ``write`` raised an OSError.
    """
    try:
        return write()
    except OSError as e:
        raise _fail(f"{option} {path!r}: cannot write the file: {e.strerror or e}", 1) from None


_VIDEOS = (*ANIMATION_SUFFIXES[1:], ANIMATION_SUFFIXES[0])
"""Suffixes ``replay --video`` writes: :data:`risk_env.records.replay.ANIMATION_SUFFIXES`, the videos first (a
``.gif`` is written as ``--gif`` writes it)."""


def _check_numbers(seed: int | None = None, delay: float | None = None, fps: float | None = None) -> None:
    """Refuse out-of-range numbers before any game is played.

    Raises:
        typer.Exit: (code 2, after a one-line error) a negative seed, a negative or non-finite delay,
            frames per second not above 0 (or not finite).
    """
    if seed is not None and seed < 0:
        raise _fail(f"--seed must be 0 or more, got {seed}")
    if delay is not None and not (math.isfinite(delay) and delay >= 0):
        raise _fail(f"--delay must be 0 or more seconds, got {delay}")
    if fps is not None and not (math.isfinite(fps) and MIN_FPS <= fps <= MAX_FPS):
        raise _fail(f"--fps must be from {MIN_FPS} to {MAX_FPS:g} frames per second, got {fps}")


def _at_least(option: str, value: float | None, low: float, what: str = "") -> None:
    """Refuse ``value`` below ``low`` (or not finite) in one line naming ``option`` (None passes)."""
    if value is None:
        return
    if not (math.isfinite(value) and value >= low):
        raise _fail(f"{option} must be {low:g}{what} or more, got {value}")


def _given(ctx: typer.Context, *names: str) -> list[str]:
    """Which of the parameters ``names`` (Python names) the user gave (on the command line, not by default)."""
    given = []
    for name in names:
        source = ctx.get_parameter_source(name)
        if source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP"):
            given.append(name)
    return given


def _needs(ctx: typer.Context, options: dict[str, str], what: str, needed: str, given: bool) -> None:
    """Refuse options (Python name -> option) that only shape an output (``what``, written by the option ``needed``),
    typed without that output: they would be ignored without a word.

    Raises:
        typer.Exit: (code 2, after a one-line error) one of ``options`` given while ``given`` is false.
    """
    typed = "" if given else " and ".join(options[name] for name in _given(ctx, *options))
    if typed:
        verb = "are" if " and " in typed else "is"
        raise _fail(f"{typed} {verb} for {what} of {needed}: give {needed} too, or leave out {typed}")


def _check_suffix(path: str | None, option: str, allowed: tuple[str, ...], shown: int | None = None) -> None:
    """Refuse an output file whose suffix is not one of ``allowed`` (one line, exit 2), told as
    :func:`risk_env.records.replay.suffix_list` tells them (``shown``: how many of them are named)."""
    if path and path.endswith(tuple(filter(None, (os.sep, os.altsep)))):
        return  # (a folder's name: refused by the output check, risk_env._output.check_output_file)
    if path and os.path.basename(path).lower() in allowed:  # (".png" is a hidden file's name without a suffix)
        raise _fail(f"{option} {path!r} has no name before its suffix: give one, such as board{os.path.basename(path)}")
    if path and os.path.splitext(path)[1].lower() not in allowed:
        raise _fail(f"{option} {path!r} must end in {suffix_list(allowed, shown)}")


def _import(module: str, extra: str, feature: str) -> ModuleType:
    """Import ``module`` for a command; a missing optional package is one ``error:`` line naming ``extra`` (exit 1).

    Raises:
        typer.Exit: (code 1) a package of ``extra`` is missing.
        ImportError: one that is not about an optional package (a fault of this installation).
    """
    try:
        return importlib.import_module(module)
    except ImportError as e:
        message = missing_extra_message(e, extra, feature)
        if message is None:
            raise
        raise _fail(message, 1) from None


def _stalled_line(game: Game, s: Any, names: list[str], cap: int) -> str:
    """Why a game was stopped by the cap on one turn's action ids (``--max-turn-steps``; the record says ``ended:
    stalled``): the unfinished game's line said no more than that it was unfinished."""
    who = seat_name(game, s.player)
    if s.player < len(names) and names[s.player] != who:
        who += f" ({names[s.player]})"
    return (
        f"game stopped at turn {s.turn} after {s.steps} moves: a turn of {who} took more than {cap} action ids, the "
        "most one turn may take (a guard against a turn that never ends; --max-turn-steps raises it)"
    )


# ---------------------------------------------------------------------- options several commands share
_AGENT_FORMS = spec_forms()
_PLAYERS = typer.Option(
    None,
    "--players",
    "-n",
    min=2,
    max=6,
    help="number of players, 2..6 (default: the count the rules fix, else one per agent of --agents when it names one "
    "per seat, and one more for you in play and serve, else 4)",
)
_RULES = typer.Option(
    "classic",
    "--rules",
    help=f"rules preset ({', '.join(PRESETS)}), shipped rules file ({', '.join(rules_files())}) or path of a rules .yaml file",
)
_MAP = typer.Option(None, "--map", help="map: classic, small, or a path to a map .json (default: the preset's)")
_TURNS = typer.Option(None, "--turns", "--turn-limit", help="end a game (no winner) after this many player turns (1 or more)")
_SET = typer.Option(
    None,
    "--set",
    "-s",
    metavar="KEY=VALUE",
    help="any rules switch as key=value, repeatable (e.g. --set fortify=connected; null for its docs/rules.md default)",
)
_SEED = typer.Option(0, "--seed", help="seed of the game's generator (dice, order, setup); agents get seed*1000+seat")
_PLAY_SEED = typer.Option(
    None,
    "--seed",
    help="seed of the game's generator (dice, order, setup; agents get seed*1000+seat): the same seed replays a game. "
    "Default: drawn from fresh entropy, unknown to you until the game ends (then its record holds it)",
    show_default=False,
)
_COLOR = typer.Option(None, "--color/--no-color", help="colour owners in the text board (default: when writing to a terminal)")
_PROGRESS = typer.Option(True, "--progress/--no-progress", help="show a progress bar")
_WORKERS = typer.Option(None, "--workers", help="processes (default: every CPU core available; 1 = in this process)")
_EVAL_AGENTS = typer.Argument(
    ..., metavar="AGENT", show_default=False, help=f"one agent per seat (or the pool with --round-robin): {_AGENT_FORMS}"
)
_TRAIN_SET = typer.Option(
    None, "--set", "-s", metavar="KEY=VALUE", help="override a config key, repeatable, e.g. --set ppo.learning_rate=1e-4"
)
_RUNS = typer.Argument(..., metavar="RUN_DIR", help="run directories (e.g. runs/default)")


# ---------------------------------------------------------------------- play, watch, replay
@app.command()
def play(
    players: int | None = _PLAYERS,
    rules: str = _RULES,
    map_name: str | None = _MAP,
    turns: int | None = _TURNS,
    settings: list[str] | None = _SET,
    seat: int = typer.Option(0, "--seat", help="your seat (player_<seat>)"),
    agents: str = typer.Option(
        "random",
        "--agents",
        "--opponent",
        help=f"opponent agent, or one per other seat, comma-separated: {_AGENT_FORMS}",
    ),
    seed: int | None = _PLAY_SEED,
    record: str | None = typer.Option(None, "--record", help="write the game record (JSON) here when the game ends or you leave"),
    color: bool | None = _COLOR,
) -> None:
    """Play at the terminal against agents.

    The board is shown as text; each decision lists the legal moves with numbers.
    Enter a number, 'N K' for a move with an amount (place/attack dice/fortify/occupy),
    or the move as text (e.g. 'attack Alaska->Kamchatka dice=3'); 'help' explains more.
    Moves are read from standard input, so you can pipe them in. Without --seed the game's seed is drawn
    fresh, so that nothing tells you the dice to come or the others' cards; it is shown when the game ends.
    """
    _check_numbers(seed=seed)
    _at_least("--turns", turns, 1)
    cfg = build_rules(_players_for(players, rules, agents, 1), rules, map_name, turns, settings)
    _output_paths([(record, "--record")], _input_files(cfg, rules, agents))
    if not 0 <= seat < cfg.num_players:
        raise _fail(f"--seat must be from 0 to {cfg.num_players - 1}, got {seat}")
    game = Game(cfg)
    seed = fresh_seed() if seed is None else seed
    others = [p for p in range(cfg.num_players) if p != seat]
    names = _agent_names(agents, len(others))
    table = {p: _load(nm, seed * 1000 + p) for p, nm in zip(others, names, strict=False)}
    _check_fits(table.values(), game)
    labels = [("human" if p == seat else names[others.index(p)]) for p in range(cfg.num_players)]
    rec = GameRecorder(game, seed, players=labels) if record else None
    use_color = sys.stdout.isatty() if color is None else color
    short = [("you" if p == seat else names[others.index(p)]) for p in range(cfg.num_players)]
    typer.echo(_seats_line(game, short))
    board_labels = distinct_labels(short)  # three 'aggressive' seats are 'aggressive 1', 'aggressive 2', ... on the board
    try:
        s = play_game(cfg, seat, table, seed, sys.stdin.readline, color=use_color, recorder=rec, names=board_labels)
    except RiskError:  # an agent failed: the game stops; its record (finished with the reason) is still written
        if rec is not None and record and rec.record.result is not None:
            _written("--record", record, lambda: rec.record.save(record))
            typer.echo(f"record written to {record}")
        raise
    typer.echo(result_line(game, s, short))
    typer.echo(f"the game's seed: {seed} (--seed {seed} starts the same game)")
    if rec is not None and record:
        done = rec.finish(s, None if s.phase == Phase.GAME_OVER else "unfinished")
        _written("--record", record, lambda: done.save(record))
        typer.echo(f"record written to {record}")


@app.command(short_help="Play in a browser against agents: a local web app (the 'web' extra).")
def serve(
    players: int | None = _PLAYERS,
    rules: str = _RULES,
    map_name: str | None = _MAP,
    turns: int | None = _TURNS,
    settings: list[str] | None = _SET,
    seat: int = typer.Option(0, "--seat", help="your seat (player_<seat>)"),
    agents: str = typer.Option(
        "random",
        "--agents",
        "--opponent",
        help=f"opponent agent, or one per other seat, comma-separated: {_AGENT_FORMS}",
    ),
    seed: int | None = _PLAY_SEED,
    record: str | None = typer.Option(
        None,
        "--record",
        help="write each game's record (JSON) when it ends, or when you start another or stop: the first game's here, "
        "the next ones' beside it numbered (game.json, game_2.json, ...)",
    ),
    host: str = typer.Option("127.0.0.1", "--host", help="address to serve on (default: this machine only)"),
    port: int = typer.Option(8000, "--port", help="port to serve on, 0..65535 (0: any free port)"),
    open_browser: bool = typer.Option(True, "--open/--no-open", help="open the page in the default browser"),
) -> None:
    """Play in a browser against agents: a local web app shows the board, and you click territories and choices.

    Your choices are the environment's legal actions (its action mask), one decision at a time; the other
    players' moves are shown one by one, with their dice. The page shows only what your seat may know: no
    seed, no other player's cards or mission. Once a game is over, 'Download record' on the page (or --record,
    on this machine) gives its record, with its seed, which 'risk-env replay' replays. Without --seed each
    game's seed is drawn fresh. Stop with Ctrl+C.
    """
    _check_numbers(seed=seed)
    _at_least("--turns", turns, 1)
    if not 0 <= port <= 65535:
        raise _fail(f"--port must be 0..65535, got {port}")
    cfg = build_rules(_players_for(players, rules, agents, 1), rules, map_name, turns, settings)
    inputs = _input_files(cfg, rules, agents)
    _output_paths([(record, "--record")], inputs)
    if record:  # the next games' records are numbered beside it (game_2.json, ...): none of them may be an input
        stem, suffix = os.path.splitext(os.path.basename(record))
        numbered = re.compile(rf"{re.escape(stem)}_[0-9]+{re.escape(suffix)}")
        for path, what in inputs:
            same_folder = os.path.realpath(os.path.dirname(path) or ".") == os.path.realpath(os.path.dirname(record) or ".")
            if same_folder and numbered.fullmatch(os.path.basename(path)):
                raise _fail(
                    f"--record {record!r} numbers the next games' records beside it ({stem}_2{suffix}, ...), and "
                    f"{what} {path!r} is one of those names: give --record another name"
                )
    if not 0 <= seat < cfg.num_players:
        raise _fail(f"--seat must be from 0 to {cfg.num_players - 1}, got {seat}")
    web = _import("risk_env.web.app", "web", "'risk-env serve'")
    _import("uvicorn", "web", "'risk-env serve'")
    from ..web.session import GameSession

    names = _agent_names(agents, cfg.num_players - 1)
    try:
        session = GameSession(cfg, seat, names, seed, record)
    except MissingExtraError as e:
        raise _fail(str(e), 1) from None
    except RiskError as e:
        raise _fail(str(e)) from None
    typer.echo(_seats_line(session.game, session.labels))
    try:
        web.serve(session, host, port, open_browser)
    except OSError as e:
        raise _fail(f"cannot serve on {host}:{port}: {e.strerror or e}", 1) from None
    if record and session.history and session.saved is None:
        typer.echo(f"record written to {_written('--record', record, lambda: session.save('unfinished'))}")


@app.command(short_help="Watch agents play each other (text boards; GIF/MP4, PNG, record).")
def watch(
    ctx: typer.Context,
    players: int | None = _PLAYERS,
    rules: str = _RULES,
    map_name: str | None = _MAP,
    turns: int | None = _TURNS,
    settings: list[str] | None = _SET,
    agents: str = typer.Option(
        "random", "--agents", help=f"agent for every seat, or one per seat, comma-separated: {_AGENT_FORMS}"
    ),
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
    max_turn_steps: int = typer.Option(
        DEFAULT_MAX_TURN_STEPS, "--max-turn-steps", help="guard: stop a game whose turn takes more action ids than this"
    ),
    color: bool | None = _COLOR,
) -> None:
    """Watch agents play each other: boards as text in the terminal, and optionally a GIF/MP4, a PNG and a record."""
    if show not in ("turn", "move", "log", "end", "none"):
        raise _fail(f"--show must be turn, move, log, end or none, got {show!r}")
    if every not in ("turn", "move"):
        raise _fail(f"--every must be turn or move, got {every!r}")
    if png_when not in ("end", "last-attack"):
        raise _fail(f"--png-when must be end or last-attack, got {png_when!r}")
    _needs(ctx, {"png_when": "--png-when"}, "the picture", "--png", bool(png))
    _needs(ctx, {"every": "--every", "fps": "--fps"}, "the animation", "--gif", bool(gif))
    _check_numbers(seed=seed, delay=delay, fps=fps)
    _at_least("--turns", turns, 1)
    _at_least("--max-turn-steps", max_turn_steps, 1)
    _check_suffix(png, "--png", (".png",))
    _check_suffix(gif, "--gif", ANIMATION_SUFFIXES)
    cfg = build_rules(_players_for(players, rules, agents, 0), rules, map_name, turns, settings)
    if png or gif:  # checked before the game is played
        try:
            require("matplotlib", "render", "drawing the board (--png, --gif)")
            if gif:
                require("imageio.v3", "render", "writing an animation (--gif)")
                from ..records.replay import check_video_writer

                check_video_writer(gif)  # (a video needs PyAV or imageio-ffmpeg: told before the game, not after)
        except (MissingExtraError, RuntimeError) as e:
            raise _fail(str(e), 1) from None
    _output_paths([(png, "--png"), (gif, "--gif"), (record, "--record")], _input_files(cfg, rules, agents))
    game = Game(cfg)
    names = _agent_names(agents, cfg.num_players)
    table = {p: _load(nm, seed * 1000 + p) for p, nm in enumerate(names)}
    _check_fits(table.values(), game)
    snap: dict[str, Any] = {}
    history: list[str] = []

    def on_move(step: ReplayStep) -> None:
        if png and png_when == "last-attack" and step.move.kind in (MoveKind.ATTACK, MoveKind.BLITZ):
            snap["at"] = (step.state, step.text, history[-14:])
        history.append(step.text)

    use_color = sys.stdout.isatty() if color is None else color
    typer.echo(_seats_line(game, names))
    try:
        s, result = watch_game(
            cfg,
            table,
            seed,
            show=show,
            color=use_color,
            record=True,
            players=names,
            on_move=on_move,
            delay=delay,
            max_turn_steps=max_turn_steps,
        )
    except (AgentError, IllegalActionError) as e:  # the game stops; its record so far (ended "agent error by
        # player_<n>" or "illegal action by player_<n>") is still written
        so_far = e.record
        if record and so_far is not None:
            _written("--record", record, lambda: so_far.save(record))
            typer.echo(f"record written to {record}")
        raise _fail(f"{e}; the game cannot go on", 1) from None
    except KeyboardInterrupt as e:  # Ctrl+C: the game so far (ended "unfinished") is still written
        stopped = getattr(e, "record", None)
        typer.echo("\nstopped (Ctrl+C)")
        if record and stopped is not None:
            _written("--record", record, lambda: stopped.save(record))
            typer.echo(f"record of the game so far written to {record}")
        raise typer.Exit(130) from None
    stalled = result is not None and (result.result or {}).get("ended") == "stalled"
    typer.echo(_stalled_line(game, s, names, max_turn_steps) if stalled else result_line(game, s, names))
    if record and result is not None:
        _written("--record", record, lambda: result.save(record))
        typer.echo(f"record written to {record}")
    if png:
        from ..records.draw import BoardRenderer

        state, last, recent = snap.get("at", (s, history[-1] if history else "", history[-15:-1]))
        labels = names if len(set(names)) == len(names) else None  # agent names only when they tell the seats apart
        _written("--png", png, lambda: BoardRenderer(game, player_names=labels).save_png(state, png, last, recent))
        typer.echo(f"picture written to {png}")
    if gif and result is not None:
        from ..records.replay import render_video

        try:
            n = _written("--gif", gif, lambda: render_video(result, gif, every=every, fps=fps))
        except (RuntimeError, MissingExtraError) as e:
            raise _fail(str(e), 1) from None
        typer.echo(f"animation written to {gif} ({n} frames)")


@app.command(short_help="Replay a game record: a move log, GIF/MP4, PNG strip or HTML page.")
def replay(
    ctx: typer.Context,
    record: str = typer.Argument(..., help="a game record (.json)"),
    gif: str | None = typer.Option(
        None, "--gif", help="write an animated GIF here (.gif, or a video: .mp4, .webm, .mkv, .avi, .mov, as --video)"
    ),
    video: str | None = typer.Option(
        None, "--video", help="write a video here (.mp4, .webm, .mkv, .avi or .mov; needs imageio-ffmpeg or av; .gif as --gif)"
    ),
    strip: str | None = typer.Option(
        None,
        "--strip",
        help="write a PNG contact sheet here (.png; .jpg, .pdf or another picture suffix Pillow writes): the board at "
        "the end of each turn, or of --strip-turns turns evenly spread over a longer game (the last turn always kept)",
    ),
    strip_turns: int = typer.Option(24, "--strip-turns", help="the most panels of --strip (1 or more)"),
    html: str | None = typer.Option(
        None, "--html", help="write one self-contained HTML page that replays the game here (step, play, scrub)"
    ),
    every: str = typer.Option("turn", "--every", help="animation frames: one per 'turn' or per 'move'"),
    fps: float = typer.Option(2.0, "--fps", help="animation frames per second"),
    upto: int | None = typer.Option(None, "--upto", help="stop after this many moves (0 or more)"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="do not print the move-by-move log"),
) -> None:
    """Replay a game record: print a move-by-move log and draw it (GIF/MP4, a PNG strip of turn ends, an HTML page)."""
    from ..records.replay import run

    if every not in ("turn", "move"):
        raise _fail(f"--every must be turn or move, got {every!r}")
    _check_numbers(fps=fps)
    _at_least("--upto", upto, 0, " moves")
    _at_least("--strip-turns", strip_turns, 1)
    _check_suffix(html, "--html", (".html", ".htm"))
    _needs(ctx, {"every": "--every", "fps": "--fps"}, "the animation", "--gif or --video", bool(gif or video))
    _needs(ctx, {"strip_turns": "--strip-turns"}, "the contact sheet", "--strip", bool(strip))
    _output_paths([(gif, "--gif"), (video, "--video"), (strip, "--strip"), (html, "--html")], ((record, "the record read"),))
    # each output's suffix, before the record is read or anything is written or printed (an animation's was checked by
    # render_video only, after the log was printed and the outputs before it written)
    if strip:  # the suffixes render_strip writes: those Pillow saves (risk_env.records.replay.strip_suffixes)
        try:
            strips = strip_suffixes()
        except MissingExtraError as e:
            raise _fail(str(e), 1) from None
        _check_suffix(strip, "--strip", strips, 4)
    _check_suffix(gif, "--gif", ANIMATION_SUFFIXES)
    _check_suffix(video, "--video", _VIDEOS)
    loaded: GameRecord | None = None  # (read once: a record piped in cannot be read twice)
    if upto is not None:  # (the log checks it only when printed, -q not at all; and names it upto)
        try:
            loaded = GameRecord.load(record)
        except RiskError as e:
            raise _fail(str(e)) from None
        total = len(loaded.moves)
        if upto > total:
            raise _fail(f"--upto must be a number of moves from 0 to {total} (the moves of {record!r}), got {upto}")
    try:
        rec = run(loaded or record, gif, video, strip, every, fps, upto, log=not quiet, strip_turns=strip_turns)
        if html:
            from ..records.html import write_replay_page

            write_replay_page(rec, html, upto=upto)
            shown = len(rec.moves) if upto is None else upto
            print(f"wrote {html} ({shown} moves; open it in a browser)")
    except BrokenPipeError:  # the reader of the log went away: a quiet stop (_Command.invoke)
        raise
    except OSError as e:  # an output that could not be written after all (the record's own read errors are RiskErrors)
        raise _fail(f"cannot write {e.filename!r}: {e.strerror or e}", 1) from None
    except (RiskError, ValueError) as e:  # a record that is broken or does not replay, a bad --upto: bad input
        raise _fail(str(e)) from None
    except (RuntimeError, MissingExtraError) as e:  # no video writer, a missing optional package
        raise _fail(str(e), 1) from None


# ---------------------------------------------------------------------- evaluate
@app.command(short_help="Evaluate agents: win rates with 95% intervals, ratings (the 'eval' extra).")
def evaluate(
    agents: list[str] = _EVAL_AGENTS,
    games: int = typer.Option(
        100, "--games", help="games (per pair with --round-robin); a multiple of the players balances the seats"
    ),
    players: int | None = typer.Option(None, "--players", "-n", help="must equal the number of agents (default: that number)"),
    rules: str = _RULES,
    map_name: str | None = _MAP,
    turns: int | None = _TURNS,
    settings: list[str] | None = _SET,
    seed: int = typer.Option(0, "--seed", help="seeds every game and agent; the same seed replays every game"),
    max_turn_steps: int = typer.Option(
        DEFAULT_MAX_TURN_STEPS, "--max-turn-steps", help="guard: stop a game whose turn takes more action ids than this"
    ),
    workers: int | None = _WORKERS,
    round_robin: bool = typer.Option(False, "--round-robin", help="play every pair of the agents in 2-player games"),
    out: str | None = typer.Option(None, "--out", "-o", help="folder for the CSV and JSON files and the win-rate plot"),
    progress: bool = _PROGRESS,
    backend: str = typer.Option(
        "reference",
        "--backend",
        help="'reference' (the AEC env, game by game) or 'vector' (the batched engine, games in lockstep; "
        "batched heuristics, random and learned networks only)",
    ),
    device: str | None = typer.Option(
        None, "--device", help="--backend vector: the torch device (default cpu); the reference backend refuses it"
    ),
    batch_size: int | None = typer.Option(
        None, "--batch-size", help="--backend vector: games at once (default up to 4096); the reference backend refuses it"
    ),
) -> None:
    """Evaluate agents against each other: seats rotated, seeds recorded, win rates with 95% Wilson
    intervals, game lengths, places and openskill ratings (risk_env.evaluate)."""
    evaluation = _import("risk_env.tools.evaluation", "eval", "'risk-env evaluate'")
    _at_least("--games", games, 1)
    _at_least("--seed", seed, 0)
    _at_least("--max-turn-steps", max_turn_steps, 1)
    _at_least("--workers", workers, 1)
    _at_least("--turns", turns, 1)
    _check_players(rules, players)
    if players is not None and not round_robin and players != len(agents):
        raise _fail(f"--players {players} needs {players} agents (one per seat), got {len(agents)}: {' '.join(agents)}")
    _at_least("--batch-size", batch_size, 1)
    if backend not in ("reference", "vector"):
        raise _fail(f"--backend must be 'reference' or 'vector', got {backend!r}")
    if backend == "reference" and (device is not None or batch_size is not None):
        given = [f"--device {device}"] if device is not None else []
        given += [f"--batch-size {batch_size}"] if batch_size is not None else []
        raise _fail(
            f"{' '.join(given)}: --device and --batch-size are options of --backend vector "
            "(the reference backend would ignore them)"
        )
    if backend == "vector" and workers is not None and workers > 1:
        raise _fail(
            f"--workers {workers}: --backend vector plays its games in one process (--batch-size sets how many at "
            "once); leave --workers out, or use --backend reference"
        )
    common = dict(
        num_games=games, rules=rules, seed=seed, workers=workers, progress=progress, out_dir=out, max_turn_steps=max_turn_steps
    )
    common.update(backend=backend, device=device, batch_size=batch_size)
    try:
        overrides = _overrides(settings, map_name, turns)
        if round_robin:
            if len(agents) < 2:
                raise _fail("--round-robin needs at least 2 agents")
            if players not in (None, 2):
                raise _fail(f"--round-robin plays 2-player games, got --players {players}")
            pairs = evaluation.round_robin(agents, **common, **overrides)
            typer.echo(evaluation.round_robin_table(pairs))
        else:
            typer.echo(str(evaluation.evaluate(agents, num_players=players, **common, **overrides)))
    except MissingExtraError as e:
        raise _fail(str(e), 1) from None
    except RiskError as e:
        raise _fail(str(e)) from None
    except BrokenPipeError:  # the reader of the log went away: a quiet stop (_Command.invoke)
        raise
    except OSError as e:  # results could not be written after all (disk full, removed folder)
        raise _fail(f"cannot write results to {out!r}: {e.strerror or e}") from None
    if out:
        typer.echo(f"results written to {out}")


# ---------------------------------------------------------------------- training
def _train_configs() -> list[str]:
    """The names of the shipped training configs (``configs/train/*.yaml``, read without the train extra)."""
    from importlib.resources import files

    folder = files("risk_env.configs") / "train"
    return sorted(x.name[: -len(".yaml")] for x in folder.iterdir() if x.name.endswith(".yaml"))


def _run_folder(cfg: Any, resume: str | None) -> str:
    """The folder a training run of ``cfg`` writes in: a resumed run's (:func:`risk_env.train.run.resumed_run_dir`),
    else the config's."""
    from ..train.run import latest_checkpoint, resumed_run_dir

    return str(resumed_run_dir(cfg, latest_checkpoint(pathlib.Path(resume))) if resume else cfg.run_dir)


@app.command(short_help="Train from a YAML config: the device PPO trainer or MaskablePPO (the 'train' extra).")
def train(
    config: str | None = typer.Option(
        None,
        "--config",
        "-c",
        help=f"YAML config path or shipped name ({', '.join(_train_configs())}); default: the shipped default",
    ),
    settings: list[str] | None = _TRAIN_SET,
    resume: str | None = typer.Option(
        None,
        "--resume",
        help="continue from a checkpoint (step_*.zip of the sb3 trainer, step_*.pt of trainer device), or a run "
        "directory's newest checkpoint",
    ),
    out: str | None = typer.Option(None, "--out", "-o", help="run directory (default runs/<name>)"),
    seed: int | None = typer.Option(None, "--seed", help="override the config's seed"),
    timesteps: float | None = typer.Option(None, "--timesteps", help="override total_timesteps (e.g. 2e6)"),
    progress: bool = _PROGRESS,
    print_config: bool = typer.Option(False, "--print-config", help="print the resolved config and exit"),
    benchmark: bool = typer.Option(
        False,
        "--benchmark",
        help="instead of training, print the learner decisions/s of the device trainer and the sb3 path on this config "
        "(default: device; same network and PPO settings) and their ratio; python -m risk_env.train.bench has more options",
    ),
) -> None:
    """Train an agent from a YAML config (configs/train/*.yaml; docs/training.md): MaskablePPO on vectorized envs,
    or the on-device trainer (trainer: device); self-play, checkpoints, periodic evaluation, a final evaluation
    and the command that repeats it."""
    if resume is not None and not resume.strip():  # (not the working folder: "." says so)
        raise _fail(f"--resume takes a checkpoint or a run folder ('.' for the working folder), got {resume!r}")
    sb3 = _import("risk_env.train.sb3", "train", "training")
    overrides = list(settings or [])
    try:
        given = parse_settings(overrides, what="a training config key such as ppo.learning_rate")
    except RiskError as e:
        raise _fail(str(e)) from None
    options: tuple[tuple[str, str, Any], ...] = (("out_dir", "--out", out), ("seed", "--seed", seed))
    for key, option, value in (*options, ("total_timesteps", "--timesteps", timesteps)):
        same = value is not None and key in given and _same_setting(given[key], value)  # (5e3 and 5000 are one)
        if value is not None and key in given and not same:
            shown = value if isinstance(value, str) else f"{value:.15g}"  # (one of them would be dropped without a word)
            raise _fail(f"--set {_typed(overrides, key)} and {option} {shown} disagree: give one of them")
    if seed is not None:
        if not 0 <= seed < 2**32:  # (named as --seed, not as an override the user did not type)
            raise _fail(f"--seed must be an integer from 0 to 2**32 - 1 (the run's seed), got {seed}")
        overrides.append(f"seed={seed}")
    if timesteps is not None:
        from ..train.config import MAX_TIMESTEPS

        shown = f"{timesteps:.15g}"  # (as typed: -1, 2.9, 1e+30)
        if math.isnan(timesteps):
            raise _fail("--timesteps must be a number of steps, got nan")
        if timesteps > MAX_TIMESTEPS:  # (else named by the config as the override total_timesteps=<its digits>)
            raise _fail(f"--timesteps must be at most {MAX_TIMESTEPS:.0e}, got {shown}")
        if timesteps < 1:
            raise _fail(f"--timesteps must be 1 or more, got {shown}")
        if timesteps != int(timesteps):
            raise _fail(f"--timesteps must be a whole number of steps (2e6 is one), got {shown}")
        overrides.append(f"total_timesteps={int(timesteps)}")
    if benchmark:
        # (it times a fresh network for a few updates and writes nothing: these would be dropped without a word)
        unused = [name for name, value in (("--resume", resume), ("--out", out), ("--timesteps", timesteps)) if value]
        unused += [f"--set {key}" for key in ("out_dir", "total_timesteps") if key in given]
        if unused:
            raise _fail(f"--benchmark trains nothing and writes nothing: leave out {', '.join(unused)}")
    if benchmark and config is None:
        config = "device"  # the benchmark's own default: the on-device trainer's recipe (512 slots)
    try:
        cfg = sb3.run_config(config, overrides, resume, out_dir=out)  # (--out as typed: "null" and "5" are folders)
        if print_config:
            if resume is not None and cfg.out_dir is None:  # (the folder the resumed run writes in, not null)
                cfg = cfg.model_copy(update={"out_dir": _run_folder(cfg, resume)})
            typer.echo(cfg.to_yaml(), nl=False)
            return
        if benchmark:
            from ..train.bench import benchmark as measure

            typer.echo(measure(cfg).table())
            return
        try:
            result = sb3.train(cfg, resume=resume, progress=progress)
        except KeyboardInterrupt:  # (exit 130 without a word before: say where the run stands and how to go on)
            where = _run_folder(cfg, resume)
            typer.echo(
                f"\nstopped (Ctrl+C); the run's checkpoints so far are in {where!r}: go on from the newest with "
                f"--resume {shlex.quote(where)}",
                err=True,
            )
            raise typer.Exit(130) from None
    except MissingExtraError as e:
        raise _fail(str(e), 1) from None
    except RiskError as e:
        raise _fail(str(e)) from None
    typer.echo(f"model: {result.model_path}  ({result.timesteps} steps, {result.seconds / 60:.1f} min)")
    for s in result.final_eval.values():
        typer.echo(f"final {s.line()}")
    for command in sb3.final_evaluate_commands(cfg, result.model_path):
        typer.echo(f"evaluate: {command}")
    if result.average_path is not None:  # checkpoint.average_from: the averaged weights, evaluated the same way
        typer.echo(f"averaged model: {result.average_path}")
        for command in sb3.final_evaluate_commands(cfg, result.average_path):
            typer.echo(f"evaluate: {command}")


@app.command("train-rllib", short_help="Multi-agent self-play PPO with Ray RLlib (the 'rllib' extra).")
def train_rllib(
    players: int = typer.Option(2, "--players", "-n", min=2, max=6, help="number of players, 2..6"),
    rules: str = typer.Option("fast", "--rules", help=f"rules preset ({', '.join(PRESETS)}) or rules file"),
    settings: list[str] | None = _SET,
    iterations: int = typer.Option(10, "--iterations", help="training iterations"),
    address: str | None = typer.Option(
        None, "--address", help="Ray address: omit for a local ray.init(), 'auto' to join a cluster"
    ),
    env_runners: int = typer.Option(0, "--env-runners", help="sampling processes (0: in the driver)"),
    envs_per_runner: int = typer.Option(1, "--envs-per-runner", help="vectorized envs per sampling process"),
    learners: int = typer.Option(0, "--learners", help="learner processes (0: learn in the driver)"),
    gpus_per_learner: float = typer.Option(0.0, "--gpus-per-learner", help="GPUs per learner"),
    batch: int = typer.Option(4000, "--batch", help="env steps per iteration"),
    minibatch: int = typer.Option(512, "--minibatch", help="minibatch size"),
    epochs: int = typer.Option(4, "--epochs", help="passes over each batch"),
    lr: float = typer.Option(3e-4, "--lr", help="learning rate"),
    seed: int = typer.Option(0, "--seed", help="RLlib's seed"),
    out: str = typer.Option("runs/rllib", "--out", "-o", help="checkpoint folder"),
) -> None:
    """Multi-agent self-play PPO for risk_env with Ray RLlib (new API stack), locally or on a Ray cluster;
    docs/training.md has the details."""
    _at_least("--iterations", iterations, 1)
    for option, value, low in (
        ("--env-runners", env_runners, 0),
        ("--envs-per-runner", envs_per_runner, 1),
        ("--learners", learners, 0),
        ("--gpus-per-learner", gpus_per_learner, 0),
        ("--batch", batch, 1),
        ("--minibatch", minibatch, 1),
        ("--epochs", epochs, 1),
        ("--seed", seed, 0),
    ):
        _at_least(option, value, low)
    if minibatch > batch:
        raise _fail(f"--minibatch must be at most --batch ({batch} env steps), got {minibatch}")
    if address is not None and not address.strip():
        raise _fail(f"--address takes 'auto' or a Ray address such as host:6379 (leave it out for a local Ray), got {address!r}")
    if not (math.isfinite(lr) and lr > 0):
        raise _fail(f"--lr must be more than 0, got {lr}")
    _check_players(rules, players)
    rllib = _import("risk_env.train.rllib", "rllib", "training with RLlib")
    if gpus_per_learner > 0 and address is None:  # (a local run: Ray would wait for a GPU, then fail in a traceback)
        import torch

        if not torch.cuda.is_available():
            raise _fail(
                f"--gpus-per-learner {gpus_per_learner:g} asks for a GPU and this machine has none that torch can use: "
                "leave it at 0, or join a cluster that has one (--address)"
            )
    try:
        _import("ray.rllib", "rllib", "training with RLlib")
        config = rllib.build_config(
            num_players=players,
            rules={"preset": rules, **_overrides(settings)},
            num_env_runners=env_runners,
            envs_per_runner=envs_per_runner,
            train_batch_size=batch,
            minibatch_size=minibatch,
            num_epochs=epochs,
            lr=lr,
            num_learners=learners,
            num_gpus_per_learner=gpus_per_learner,
            seed=seed,
        )
        path = rllib.train(config, iterations, out, address=address, log=lambda line: typer.echo(line))
    except RiskError as e:
        raise _fail(str(e)) from None
    typer.echo(f"checkpoint: {path}")


@app.command("plot-training", short_help="Plot training curves of runs: win rates over decisions and time.")
def plot_training(
    runs: list[str] = _RUNS,
    out: str = typer.Option("training_curves.png", "--out", "-o", help="image file to write (PNG, SVG, PDF)"),
    title: str | None = typer.Option(None, "--title", help="figure title"),
) -> None:
    """Plot win rate against each evaluated opponent, with its 95% interval, over learner decisions and over wall
    time, from each run's evals.jsonl and results.json (docs/training.md)."""
    curves = _import("risk_env.train.curves", "train", "training curves")
    _output_path(out, "--out")
    try:
        require("matplotlib", "train", "training curves")
        _check_suffix(out, "--out", curves.image_suffixes())
        path = curves.plot_runs(runs, out, title)
    except MissingExtraError as e:
        raise _fail(str(e), 1) from None
    except RiskError as e:
        raise _fail(str(e)) from None
    typer.echo(f"wrote {path}")


# ---------------------------------------------------------------------- bench, soak
@app.command(short_help="Measure engine and env speed next to PettingZoo's games (the 'bench' extra).")
def bench(
    ctx: typer.Context,
    quick: bool = typer.Option(False, "--quick", help="short windows (--seconds 1 and --repeats 3 at most), classic preset only"),
    seconds: float = typer.Option(2.0, "--seconds", help="length of one timed window in seconds"),
    repeats: int = typer.Option(3, "--repeats", help="windows per figure; the median is reported"),
    json_path: str | None = typer.Option(None, "--json", help="also write the results to this JSON file"),
    vector: bool = typer.Option(True, "--vector/--no-vector", help="the batched engine's rows (risk_env.vector, needs torch)"),
    batch_sizes: str | None = typer.Option(
        None, "--batch-sizes", help="batch sizes of the batched engine, comma-separated (default 1,64,1024,4096)"
    ),
) -> None:
    """Measure the speed of the engine and the environment next to PettingZoo's classic games, in one run
    (ratios to connect_four measured by the same loop; medians of timed windows)."""
    if not (math.isfinite(seconds) and seconds > 0):
        raise _fail(f"--seconds must be more than 0, got {seconds}")
    _at_least("--repeats", repeats, 1)
    if quick and "seconds" in _given(ctx, "seconds") and seconds > 1.0:
        raise _fail(f"--quick times windows of 1 second at most, got --seconds {seconds:g}: leave out one of them")
    if quick and "repeats" in _given(ctx, "repeats") and repeats > 3:
        raise _fail(f"--quick times 3 windows per figure at most, got --repeats {repeats}: leave out one of them")
    sizes: tuple[int, ...] | None = None
    if batch_sizes is not None:
        if not vector:
            raise _fail("--batch-sizes are the batched engine's rows, which --no-vector leaves out: give one of them")
        if not batch_sizes.strip(", "):
            raise _fail(f"--batch-sizes must list batch sizes, comma-separated (such as 1,64,1024), got {batch_sizes!r}")
        try:
            sizes = tuple(int(x) for x in batch_sizes.split(",") if x.strip())
        except ValueError:
            raise _fail(f"--batch-sizes must be whole numbers, comma-separated, got {batch_sizes!r}") from None
        if not sizes or min(sizes) < 1:
            raise _fail(f"--batch-sizes must be 1 or more, got {batch_sizes!r}")
    _output_path(json_path, "--json")
    benchmark = _import("risk_env.tools.benchmark", "bench", "'risk-env bench'")
    try:
        res = benchmark.run(quick=quick, seconds=seconds, repeats=repeats, vector=vector, batch_sizes=sizes)
    except MissingExtraError as e:
        raise _fail(str(e), 1) from None
    typer.echo(benchmark.format_table(res))
    if json_path:
        try:
            write_json(json_path, res, "--json")
        except ConfigError as e:
            raise _fail(str(e), 1) from None


@app.command(short_help="Play many seeded games checking the rules' invariants at every step.")
def soak(
    games: int = typer.Option(1000, "--games", help="number of games"),
    start: int = typer.Option(0, "--start", help="index of the first game"),
    seed: int = typer.Option(0, "--seed", help="master seed; game i is drawn from default_rng([seed, i])"),
    workers: int | None = _WORKERS,
    classic_share: float = typer.Option(0.1, "--classic-share", help="share of games on the classic map"),
    heuristic_share: float = typer.Option(0.3, "--heuristic-share", help="chance a seat is a heuristic agent"),
    variant_share: float = typer.Option(0.5, "--variant-share", help="share of games with extra random rule switches"),
    small_turn_limit: int = typer.Option(30, "--small-turn-limit", help="turn limit on the small map"),
    classic_turn_limit: int = typer.Option(60, "--classic-turn-limit", help="turn limit on the classic map"),
    observe_share: float = typer.Option(0.1, "--observe-share", help="share of games whose observations are checked"),
    max_turn_steps: int = typer.Option(5000, "--max-turn-steps", help="most action ids in one player turn"),
    chunk: int = typer.Option(8, "--chunk", help="games per worker task"),
    vector_batch: int | None = typer.Option(
        None, "--vector-batch", help="most games of one rule set replayed together on the batched engine (default 32)"
    ),
    family: int = typer.Option(
        1, "--family", help="consecutive games sharing their rules, so that they replay on the batched engine in one batch"
    ),
    max_seconds: float | None = typer.Option(None, "--max-seconds", help="stop after this much wall time, report the games done"),
    vector_share: float = typer.Option(
        0.2, "--vector-share", help="share of games whose rules are drawn from those the batched engine supports"
    ),
    vector: bool = typer.Option(
        True,
        "--vector/--no-vector",
        help="play every game the batched engine supports on it too, when torch is installed (--no-vector: leave it out)",
    ),
    out: str | None = typer.Option(None, "--out", "-o", help="write the JSON summary to this file"),
    checkpoint_every: float | None = typer.Option(
        None,
        "--checkpoint-every",
        help="with --out: rewrite it with the summary so far every this many seconds (default 60)",
    ),
    progress: bool = _PROGRESS,
) -> None:
    """Play many seeded games with every invariant of the rules checked at every step (exit status 1 if any
    game fails; each failure comes with the command that replays it alone)."""
    from . import soak as soak_module
    from .soak import run_soak

    if vector_batch is not None and not vector:  # (each would be dropped without a word)
        raise _fail("--vector-batch sizes the batched engine's replays, which --no-vector leaves out: give one of them")
    if checkpoint_every is not None and not out:
        raise _fail("--checkpoint-every rewrites the --out file: give --out FILE, or leave --checkpoint-every out")
    vector_batch = 32 if vector_batch is None else vector_batch
    checkpoint_every = 60.0 if checkpoint_every is None else checkpoint_every
    for option, value, low in (
        ("--games", games, 1),
        ("--start", start, 0),
        ("--seed", seed, 0),
        ("--workers", workers, 1),
        ("--small-turn-limit", small_turn_limit, 1),
        ("--classic-turn-limit", classic_turn_limit, 1),
        ("--max-turn-steps", max_turn_steps, 1),
        ("--chunk", chunk, 1),
        ("--vector-batch", vector_batch, 1),
        ("--family", family, 1),
    ):
        _at_least(option, value, low)
    for option, share in (
        ("--classic-share", classic_share),
        ("--heuristic-share", heuristic_share),
        ("--variant-share", variant_share),
        ("--observe-share", observe_share),
        ("--vector-share", vector_share),
    ):
        if not 0.0 <= share <= 1.0:  # (named by the option, not as run_soak's classic_share)
            raise _fail(f"{option} must be a share from 0 to 1, got {share}")
    for option, seconds in (("--max-seconds", max_seconds), ("--checkpoint-every", checkpoint_every)):
        if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
            raise _fail(f"{option} must be a finite number of seconds more than 0, got {seconds}")
    _output_path(out, "--out")
    args: dict[str, Any] = dict(
        start=start,
        seed=seed,
        workers=workers,
        classic_share=classic_share,
        heuristic_share=heuristic_share,
        small_turn_limit=small_turn_limit,
        classic_turn_limit=classic_turn_limit,
        variant_share=variant_share,
        observe_share=observe_share,
        max_turn_steps=max_turn_steps,
        chunk=chunk,
        max_seconds=max_seconds,
        vector_share=vector_share,
        vector_batch=vector_batch,
        family=family,
    )
    try:
        summary = run_soak(
            games,
            progress=progress,
            vector=None if vector else False,
            checkpoint=out,
            checkpoint_every=checkpoint_every,
            **args,
        )
    except MissingExtraError as e:
        raise _fail(str(e), 1) from None
    except BrokenPipeError:  # the reader of the log went away: a quiet stop (_Command.invoke)
        raise
    except OSError as e:  # a checkpoint that could not be written after all (the disk full)
        raise _fail(f"--out {out!r}: cannot write the file: {e.strerror or e}", 1) from None
    except (ValueError, RiskError) as e:
        raise _fail(str(e)) from None
    given = {"games": games, **{k: v for k, v in args.items() if v is not None}}
    summary["command"] = (
        "risk-env soak " + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in given.items()) + ("" if vector else " --no-vector")
    )
    import json

    typer.echo(json.dumps(summary, indent=2))
    if out:
        _written("--out", out, lambda: soak_module.write_summary(out, summary))
    if summary["failures"]:
        raise typer.Exit(1)


# ---------------------------------------------------------------------- entry point
def main(argv: list[str] | None = None, command: str | None = None, prog_name: str | None = None) -> None:
    """Entry point of the ``risk-env`` console script, and of ``scripts/*.py`` with ``command``.

    Args:
        argv: the arguments (default ``sys.argv[1:]``).
        command: run this command (one of :data:`COMMANDS`) with ``argv`` as its arguments, as the
            scripts do (``python scripts/evaluate.py ...`` is ``main(argv, command="evaluate")``).
        prog_name: the program's name in usage lines (default ``risk-env`` or ``risk-env <command>``).

    Bad input that surfaces while a command runs (a broken map file, a bad rules
    value) ends with a one-line ``error: ...`` and exit status 2, not a traceback;
    a missing optional package ends with one line naming the extra to install, exit status 1.

    Raises:
        SystemExit: always, with the command's exit status.
    """
    try:
        if command is None:
            app(args=argv, prog_name=prog_name or "risk-env")
        else:
            group: Any = typer.main.get_command(app)
            group.commands[command].main(
                args=argv, prog_name=prog_name or f"risk-env {command}", help_option_names=["-h", "--help"]
            )
    except MissingExtraError as e:
        typer.echo(f"error: {e}", err=True)
        raise SystemExit(1) from None
    except RiskError as e:
        typer.echo(f"error: {e}", err=True)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
