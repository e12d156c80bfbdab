"""Replaying game records: a readable move-by-move log, an animation (GIF or
MP4), a per-turn PNG strip and a self-contained HTML page (:mod:`risk_env.records.html`).

    risk-env replay game.json --gif game.gif --strip turns.png --html game.html
    risk-env replay game.json --video game.mp4 --every move --upto 200

:func:`format_log` turns a :class:`~risk_env.records.record.GameRecord` into lines
such as ``turn 3  player_1  attack Alaska->Kamchatka dice=3  [6 5 2 v 4 1: -0/-2]``;
:func:`render_video` and :func:`render_strip` draw positions with
:class:`~risk_env.records.draw.BoardRenderer` (matplotlib) and write them with
imageio (GIF needs only Pillow; MP4 needs ``imageio-ffmpeg`` or ``av``).
"""

from __future__ import annotations

import importlib.util
import io
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._extras import require
from .._output import check_output_file, file_name_text
from ..errors import ConfigError
from ..rules.engine import Game
from ..rules.moves import MOVES, MoveKind
from ..rules.state import Phase
from .ansi import seat_name
from .record import GameRecord, ReplayStep, replay_moves

__all__ = [
    "LogEntry",
    "log_entries",
    "player_names",
    "result_text",
    "game_text",
    "format_log",
    "describe_step",
    "render_video",
    "ANIMATION_SUFFIXES",
    "check_animation_path",
    "check_video_writer",
    "check_strip_path",
    "NOT_STRIP_SUFFIXES",
    "strip_suffixes",
    "render_strip",
    "turn_ends",
    "run",
]


def _who(game: Game, record: GameRecord, seat: int) -> str:
    if record.players and 0 <= seat < len(record.players):
        return (
            f"{seat_name(game, seat)} ({record.players[seat]})"
            if record.players[seat] != seat_name(game, seat)
            else record.players[seat]
        )
    return seat_name(game, seat)


def describe_step(game: Game, step: ReplayStep, names: Sequence[str] | None = None) -> str:
    """What a move did, beyond its text: dice and losses, conquests, eliminations, set values, cards drawn.

    Returns '' when there is nothing to add.
    """
    b, a, mv = step.before, step.state, step.move
    name = game.map.name_of
    k = mv.kind

    def who(seat: int) -> str:
        return names[seat] if names is not None and 0 <= seat < len(names) else seat_name(game, seat)

    out = []
    if MOVES[k].rolls:
        src, dst = (mv.src, mv.dst) if k in (MoveKind.ATTACK, MoveKind.BLITZ) else (b.att_src, b.att_dst)
        if a.last_roll and k != MoveKind.BLITZ:
            z = a.last_roll.index(0)
            out.append(f"{' '.join(map(str, a.last_roll[:z]))} v {' '.join(map(str, a.last_roll[z + 1 :]))}")
        lost_a = int(b.armies[src]) - int(a.armies[src])
        conquered = int(a.owner[dst]) != int(b.owner[dst])
        lost_d = int(b.armies[dst]) - (0 if conquered else int(a.armies[dst]))
        if conquered:
            lost_a -= int(a.armies[dst])  # the armies that moved in are not losses
        out.append(f"attacker -{lost_a}, defender -{lost_d}")
        if conquered:
            out.append(f"conquers {name(dst)}")
        elif k in (MoveKind.ATTACK, MoveKind.BLITZ) and a.phase == Phase.DEFEND:
            out.clear()
            out.append(f"{who(game.current_player(a))} to defend")
        else:  # a variant's waiting roll (the expert dice rules, §8): nothing lost yet
            waiting = next((w for hook in game.hooks["waiting_text"] if (w := hook(a)) is not None), None)
            if waiting is not None:
                out[-1] = waiting
    elif k == MoveKind.TRADE:
        out.append(f"+{a.to_place - b.to_place} armies" + (f", +2 on {name(mv.bonus)}" if mv.bonus >= 0 else ""))
    elif k == MoveKind.END_ATTACK and game.commanding(a) >= 0 and game.commanding(b) < 0:  # docs/rules.md §7
        out.append(f"the {game.army_name()} army gets {a.to_place} armies, commanded by {who(game.commanding(a))}")
    elif k in (MoveKind.FORTIFY, MoveKind.END_TURN):
        p = step.seat
        if len(a.hands[p]) > len(b.hands[p]) and not a.truncated:
            out.append("draws a card")
    for p in a.elim_order[len(b.elim_order) :]:
        out.append(f"{who(p)} is eliminated")
    if a.phase == Phase.GAME_OVER and b.phase != Phase.GAME_OVER:
        out.append(f"{who(a.winner)} wins" if a.winner >= 0 else "turn limit reached")
        if a.winner >= 0 and sum(a.alive) > 1:  # a win by a variant's rules (docs/rules.md §8)
            how = next((w for hook in game.hooks["win_text"] if (w := hook(a)) is not None), None)
            if how is not None:
                out.append(how)
    return "; ".join(out)


@dataclass(frozen=True)
class LogEntry:
    """One move of a record's log.

    Attributes:
        step: the replayed move (:class:`~risk_env.records.record.ReplayStep`).
        who: who made it (``player_1 (aggressive)``); note: what it did beyond its text (:func:`describe_step`).
        header: the heading of the game turn that this move opens (``turn 3: player_1 (aggressive), 5 armies
            to place``, or ``setup``), '' for the other moves of a turn.
    """

    step: ReplayStep
    who: str
    note: str
    header: str


def player_names(record: GameRecord, game: Game | None = None) -> list[str]:
    """A label per player seat for logs: ``player_1 (aggressive)`` (the seat and the record's player label)."""
    game = game or record.game()
    return [_who(game, record, p) for p in range(game.num_players)]


def log_entries(record: GameRecord, upto: int | None = None, game: Game | None = None) -> Iterator[LogEntry]:
    """The record's moves as :class:`LogEntry` values (what :func:`format_log` prints, and the HTML replay lists).

    Raises:
        RecordError: a move does not replay; ConfigError: bad ``upto``.
    """
    game = game or record.game()
    names = player_names(record, game)
    turn = -1
    for step in replay_moves(record, upto, game):
        t = step.before.turn
        header = ""
        if t != turn:
            turn = t
            b = step.before
            if t == 0:
                header = "setup"
            else:
                who = names[b.player] if b.player < len(names) else seat_name(game, b.player)
                header = f"turn {t}: {who}, {b.to_place} armies to place"
        who = names[step.seat] if 0 <= step.seat < len(names) else seat_name(game, step.seat)
        yield LogEntry(step, who, describe_step(game, step, names), header)


def result_text(record: GameRecord, game: Game | None = None) -> str:
    """``player_1 (aggressive) wins after 14 turns and 265 moves`` from the record's result ('' without one)."""
    r = record.result
    if r is None:
        return ""
    names = player_names(record, game)
    how = {
        "win": f"{names[r['winner']] if 0 <= r['winner'] < len(names) else r['winner']} wins",
        "turn_limit": "turn limit reached",
    }
    return f"{how.get(r['ended'], r['ended'])} after {r['turns']} turns and {r['moves']} moves"


def game_text(record: GameRecord, game: Game | None = None) -> str:
    """``map classic, 4 players, seed 1, rules setup=random, ...``: what game the record holds."""
    game = game or record.game()
    rules = {k: v for k, v in record.rules.items() if k not in ("num_players", "map")}
    return f"map {game.map.name}, {game.num_players} players, seed {record.seed}, rules " + ", ".join(
        f"{k}={v}" for k, v in rules.items()
    )


def format_log(record: GameRecord, upto: int | None = None) -> Iterator[str]:
    """A readable log of a record, one line per move, with a header per game turn.

    Raises:
        RecordError: a move does not replay.
    """
    game = record.game()
    names = player_names(record, game)
    yield "game: " + game_text(record, game)
    wide = max(len(x) for x in names)
    for e in log_entries(record, upto, game):
        if e.header:
            yield f"-- {e.header} --"
        yield f"{e.step.index:>5}  {e.who:<{wide}}  {e.step.text}" + (f"   [{e.note}]" if e.note else "")
    if record.result is not None and (upto is None or upto == len(record.moves)):
        yield f"result: {result_text(record, game)}"


def turn_ends(record: GameRecord, upto: int | None = None) -> Iterator[tuple[int, ReplayStep]]:
    """``(turn, step)`` for the last move of each game turn (and of the setup, turn 0; and the final move)."""
    prev: ReplayStep | None = None
    for step in replay_moves(record, upto):
        if prev is not None and step.before.turn != prev.before.turn:
            yield prev.before.turn, prev
        prev = step
    if prev is not None:
        yield prev.before.turn, prev


def _frames(record: GameRecord, every: str, upto: int | None, names: Sequence[str] | None) -> Iterator[np.ndarray]:
    from .draw import BoardRenderer

    if every not in ("move", "turn"):  # before anything is drawn
        raise ConfigError(f"every must be 'move' or 'turn', got {every!r}")
    game = record.game()
    r = BoardRenderer(game, player_names=names)
    recent: list[str] = []
    yield r.draw(record.initial_state(game), "")  # (the one frame of --upto 0, or of a record without moves)
    if every == "move":
        for step in replay_moves(record, upto, game):
            yield r.draw(step.state, step.text, recent)
            recent.append(step.text)
    else:
        for _turn, step in turn_ends(record, upto):
            yield r.draw(step.state, step.text)


_VIDEO_SUFFIXES = (".mp4", ".webm", ".mkv", ".avi", ".mov")
ANIMATION_SUFFIXES = (".gif", *_VIDEO_SUFFIXES)
"""The suffixes :func:`render_video` writes: a GIF (Pillow), or a video (PyAV or imageio-ffmpeg; ``.webm`` as VP9,
the others as H.264)."""


def suffix_list(suffixes: Sequence[str], shown: int | None = None) -> str:
    """``".gif or .mp4 (or .webm, .mkv, .avi, .mov)"``: the allowed suffixes as the messages list them (the first two,
    then the rest in brackets; with ``shown``, only the first ``shown`` of them and ``...``), as
    :func:`check_animation_path`, :func:`check_strip_path` and ``risk-env watch --gif``, ``replay
    --gif``/``--video``/``--strip`` tell them (a helper of the package's modules, not exported)."""
    cut = shown is not None and len(suffixes) > shown
    listed = list(suffixes[:shown] if cut else suffixes)
    rest = ", ".join(listed[2:]) + ("..." if cut else "")
    return " or ".join(listed[:2]) + (f" (or {rest})" if rest else "")


def check_animation_path(path: str | os.PathLike[str], option: str = "render_video: path") -> Path:
    """Refuse, before any frame is drawn, an animation file that :func:`render_video` cannot write: a name that is not
    text (None, bytes, a number), or one whose suffix is not one of :data:`ANIMATION_SUFFIXES` (any case). Returns
    the path. (Whether the file can be written there is :func:`risk_env._output.check_output_file`'s question.)

    Raises:
        ConfigError: the message names ``option``, the suffix given and the suffixes allowed.
    """
    p = Path(file_name_text(path, option))
    if p.suffix.lower() not in ANIMATION_SUFFIXES:
        raise ConfigError(f"{option} {str(p)!r}: unknown animation format {p.suffix!r}: use {suffix_list(ANIMATION_SUFFIXES)}")
    return p


def check_video_writer(path: str | os.PathLike[str]) -> None:
    """Refuse, before any game is played or frame drawn, a video file (``.mp4``, ``.webm``...) that no installed writer
    can write: :func:`render_video` writes videos with PyAV (``av``) or imageio's FFMPEG plugin (``imageio-ffmpeg``),
    which the ``render`` extra does not install. A GIF, or any other suffix, passes.

    Raises:
        RuntimeError: neither writer is installed (the message says what to install), as :func:`render_video` would.
    """
    p = Path(path)
    if p.suffix.lower() not in _VIDEO_SUFFIXES:
        return
    if importlib.util.find_spec("av") is None and importlib.util.find_spec("imageio_ffmpeg") is None:
        raise RuntimeError(
            f"cannot write {str(p)!r}: no video writer is installed (neither PyAV nor imageio-ffmpeg). "
            "Install one with 'pip install imageio-ffmpeg' (or 'pip install av'), or write a .gif instead."
        )


MIN_FPS, MAX_FPS = 0.001, 1000.0
"""The frame rates an animation may have: a GIF frame lasts a whole number of milliseconds, 1 to 10**6."""


def render_video(
    record: GameRecord,
    path: str | os.PathLike[str],
    every: str = "turn",
    fps: float = 2.0,
    upto: int | None = None,
    scale: float = 1.0,
    max_frames: int = 600,
) -> int:
    """Write an animation of the record: a GIF (``.gif``) or a video (``.mp4``, ``.webm``...).

    Args:
        every: ``"turn"`` (a frame at the end of each game turn) or ``"move"`` (a frame per move).
        fps: frames per second.
        upto: stop after this many moves.
        scale: size of the frames relative to the 1300-pixel-wide board picture (default 1: the picture's own
            size, its text as readable as the PNG's; a smaller scale blurs the text and, resampled, compresses
            worse: a 46-frame game is 2.1 MB at 1, 3.0 MB at 0.6).
        max_frames: at most this many frames (evenly spread; the last is always kept).

    Returns the number of frames written.

    Raises:
        ConfigError: a file suffix that is not an animation format (:data:`ANIMATION_SUFFIXES`), a file that cannot
            be written there (:func:`risk_env._output.check_output_file`), ``every`` not ``"move"`` or ``"turn"``,
            ``fps`` outside :data:`MIN_FPS`..:data:`MAX_FPS` (refused before any frame is drawn); a bad ``upto``.
        RecordError: the record does not replay.
        MissingExtraError: imageio or Pillow is missing (``pip install 'risk_env[render]'``).
        RuntimeError: the video format needs a writer that is not installed (the message says which).
    """
    p = check_animation_path(path)  # refused before any frame is drawn
    if isinstance(fps, bool) or not isinstance(fps, (int, float)) or not MIN_FPS <= fps <= MAX_FPS:
        raise ConfigError(f"fps must be from {MIN_FPS} to {MAX_FPS} frames per second (a GIF frame lasts whole ms), got {fps!r}")
    iio = require("imageio.v3", "render", "writing an animation")
    Image = require("PIL.Image", "render", "writing an animation")
    check_output_file(p, "render_video: path")

    frames = list(_frames(record, every, upto, record.player_labels()))
    if len(frames) > max_frames:
        keep = np.unique(np.linspace(0, len(frames) - 1, max_frames).round().astype(int))
        frames = [frames[i] for i in keep]
    if scale != 1.0:
        size = (int(frames[0].shape[1] * scale), int(frames[0].shape[0] * scale))
        frames = [np.asarray(Image.fromarray(f).resize(size, Image.Resampling.LANCZOS)) for f in frames]
    p.parent.mkdir(parents=True, exist_ok=True)
    if p.suffix.lower() == ".gif":
        iio.imwrite(p, np.stack(frames), extension=".gif", duration=int(1000 / fps), loop=0)
        return len(frames)
    # a video (the suffix was checked first)
    even = [f[: f.shape[0] // 2 * 2, : f.shape[1] // 2 * 2] for f in frames]  # codecs want even sizes
    errors = []
    # (WebM holds VP8, VP9 or AV1 only; the other containers take H.264, and .mov no VP9: FFMPEG's default codec,
    # libx264, wrote a .webm of a few hundred bytes that nothing plays, and said nothing)
    codec = "libvpx-vp9" if p.suffix.lower() == ".webm" else "libx264"
    for plugin, kw in (
        ("pyav", {"codec": codec, "fps": fps}),
        ("FFMPEG", {"codec": codec, "fps": fps}),
    ):
        try:
            iio.imwrite(p, np.stack(even), plugin=plugin, **kw)
            return len(frames)
        except Exception as e:  # the plugin or its backend is missing
            errors.append(f"{plugin}: {type(e).__name__}: {e}")
    raise RuntimeError(
        f"cannot write {p.name}: no video writer works ({'; '.join(errors)}). "
        "Install one with 'pip install imageio-ffmpeg' (or 'pip install av'), or write a .gif instead."
    )


def render_strip(
    record: GameRecord,
    path: str | os.PathLike[str],
    columns: int = 4,
    width: int = 420,
    max_turns: int = 24,
    upto: int | None = None,
) -> int:
    """Write a PNG contact sheet: the board at the end of each game turn, labelled, in a grid. Where no move is drawn
    (``upto=0``, or a record without moves) the sheet holds one panel, the starting position, as the animation's one
    frame and the HTML page show it.

    Args:
        columns: thumbnails per row.
        width: width of each thumbnail in pixels.
        max_turns: at most this many thumbnails (evenly spread turns; the last is always kept), 1 or more.
        upto: stop after this many moves.

    Returns the number of thumbnails.

    Raises:
        ConfigError: ``path`` is not a file name Pillow writes a picture to (:func:`check_strip_path`), checked before
            anything is drawn; a bad ``upto``.
        RecordError: the record does not replay.
    """
    Image = require("PIL.Image", "render", "drawing a strip of boards")
    ImageDraw = require("PIL.ImageDraw", "render", "drawing a strip of boards")
    from .draw import BoardRenderer

    p = check_strip_path(path)
    game = record.game()
    ends = list(turn_ends(record, upto))
    if len(ends) > max_turns:
        keep = np.unique(np.linspace(len(ends) - 1, 0, max_turns).round().astype(int))  # the last always kept
        ends = [ends[i] for i in keep]
    r = BoardRenderer(game, player_names=record.player_labels())
    thumbs = []
    panels = [
        (r.draw(step.state, step.text), ("setup" if turn == 0 else f"end of turn {turn}") + f"  (move {step.index})")
        for turn, step in ends
    ] or [(r.draw(record.initial_state(game), ""), "start  (move 0)")]  # no move drawn: the starting position
    for picture, caption in panels:
        img = Image.fromarray(picture)
        h = int(img.height * width / img.width)
        img = img.resize((width, h), Image.Resampling.LANCZOS)
        label = Image.new("RGB", (width, 18), (246, 244, 238))
        ImageDraw.Draw(label).text((6, 3), caption, fill=(40, 40, 40))
        tile = Image.new("RGB", (width, h + 18), (255, 255, 255))
        tile.paste(label, (0, 0))
        tile.paste(img, (0, 18))
        thumbs.append(tile)
    cols = max(1, min(columns, len(thumbs)))
    rows = -(-len(thumbs) // cols)
    tw, th = thumbs[0].size
    gap = 6
    sheet = Image.new("RGB", (cols * tw + (cols + 1) * gap, rows * th + (rows + 1) * gap), (220, 220, 220))
    for i, t in enumerate(thumbs):
        sheet.paste(t, (gap + (i % cols) * (tw + gap), gap + (i // cols) * (th + gap)))
    p.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(p)
    return len(thumbs)


_USUAL_STRIP_SUFFIXES = (".png", ".jpg", ".jpeg", ".pdf")

NOT_STRIP_SUFFIXES = (".ico", ".icns", ".pbm", ".pgm", ".pfm")
"""Suffixes Pillow writes that :func:`render_strip` refuses, as the file would not be the sheet as drawn: icons
(``.ico`` shrinks a sheet to at most 256 pixels a side, ``.icns`` stretches it to 1024 x 1024), and the netpbm
suffixes of 1-bit, grey and float pictures (Pillow writes the colour sheet there as a colour ``.ppm``)."""


def strip_suffixes() -> tuple[str, ...]:
    """The suffixes :func:`render_strip` writes: those Pillow saves an RGB picture to (lower case), the usual ones first
    (``.png``, ``.jpg``, ``.jpeg``, ``.pdf``), then the rest in order (``.bmp``, ``.tif``, ``.webp``...). The one list
    of :func:`check_strip_path` and ``risk-env replay --strip``; needs Pillow (``pip install 'risk_env[render]'``).

    A format Pillow registers but cannot write here is left out: one whose writer needs a handler that is not
    installed (``.bufr``, ``.grib``, ``.h5``, ``.wmf``...) or that takes no RGB picture (``.xbm``, ``.msp``, ``.palm``,
    ``.blp``). Each registered writer is tried on a 2 x 2 RGB picture in memory (about 0.1 s in all). So are the
    suffixes whose file would not be the sheet as drawn (:data:`NOT_STRIP_SUFFIXES`).

    Raises:
        MissingExtraError: Pillow is missing (an ImportError).
    """
    Image = require("PIL.Image", "render", "drawing a strip of boards")
    probe = Image.new("RGB", (2, 2), (255, 255, 255))
    saved = {
        ext.lower()
        for ext, fmt in Image.registered_extensions().items()  # (every plugin)
        if fmt in Image.SAVE and ext.lower() not in NOT_STRIP_SUFFIXES and _writes(probe, fmt)
    }
    usual = tuple(ext for ext in _USUAL_STRIP_SUFFIXES if ext in saved)
    return usual + tuple(sorted(saved - set(usual)))


def _writes(picture: Any, fmt: str) -> bool:
    """Whether Pillow's writer of ``fmt`` saves ``picture`` (to memory): a stub plugin without its handler raises
    OSError, a format that takes no such mode OSError or ValueError. Pillow's warnings (a deprecated format) are kept
    for a real save."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            picture.save(io.BytesIO(), format=fmt)
    except (OSError, ValueError):
        return False
    return True


def check_strip_path(path: str | os.PathLike[str], option: str = "render_strip: path") -> Path:
    """Refuse, before anything is drawn, a contact sheet's file that Pillow writes no picture to: a name that is not
    text (None, bytes, a number), or a suffix not one of :func:`strip_suffixes` (``.txt``; any case). Returns the path.

    Raises:
        ConfigError: the message names ``option``, the path and the usual suffixes.
        MissingExtraError: Pillow is missing.
    """
    p = Path(file_name_text(path, option))
    suffixes = strip_suffixes()
    if p.suffix.lower() not in suffixes:
        raise ConfigError(
            f"{option} {str(p)!r}: give a file name ending in {suffix_list(suffixes, 4)} (a picture suffix "
            f"Pillow writes), got the suffix {p.suffix!r}"
        )
    return p


def run(
    record_path: str | GameRecord,
    gif: str | None = None,
    video: str | None = None,
    strip: str | None = None,
    every: str = "turn",
    fps: float = 2.0,
    upto: int | None = None,
    log: bool = True,
    out: Any = None,
    strip_turns: int = 24,
) -> GameRecord:
    """What ``risk-env replay`` does: print the log, then write the pictures asked for (``strip_turns``:
    the most panels of the strip, see :func:`render_strip`). ``record_path``: a record file, or a record already
    loaded (a file read once: a pipe cannot be read twice). Returns the record (the command also
    writes its HTML page with :mod:`risk_env.records.html`, which builds on this module).

    Raises:
        ConfigError: ``gif`` or ``video`` is not an animation file (:func:`check_animation_path`), ``strip`` not a
            picture file (:func:`check_strip_path`): checked before the record is read or anything is written.
        RecordError: the record cannot be read or does not replay; MissingExtraError: a writer is missing.
    """
    out = out or sys.stdout
    for target, option in ((gif, "gif"), (video, "video")):  # before any work: nothing written, nothing printed
        if target:
            check_animation_path(target, option)
    if strip:
        check_strip_path(strip, "strip")  # (Pillow missing: told here, MissingExtraError)
    if gif or video:  # a missing writer is told at once
        require("imageio.v3", "render", "writing an animation")
        for target in (gif, video):
            if target:
                check_video_writer(target)
    rec = record_path if isinstance(record_path, GameRecord) else GameRecord.load(record_path)
    if log:
        for line in format_log(rec, upto):
            print(line, file=out)
    for target in (gif, video):
        if target:
            n = render_video(rec, target, every=every, fps=fps, upto=upto)
            print(f"wrote {target} ({n} frame{'' if n == 1 else 's'})", file=out)
    if strip:
        n = render_strip(rec, strip, upto=upto, max_turns=strip_turns)
        ends = sum(1 for _ in turn_ends(rec, upto))
        if not ends:
            print(f"wrote {strip} (1 panel: the starting position, before any move)", file=out)
        else:
            what = "one per turn" if n == ends else f"{n} of the {ends} turn ends, evenly spread, the last one kept"
            print(f"wrote {strip} ({n} panel{'' if n == 1 else 's'}: {what})", file=out)
    return rec
