"""Game records: a JSON file per game that replays it exactly.

A :class:`GameRecord` holds the rules (``RulesConfig.to_dict()``), the map
(a shipped map's name, or the whole map dict for any other map), the seed of
the game's one generator, the complete moves in text form
(:meth:`Game.move_to_text <risk_env.rules.engine.Game.move_to_text>`), optionally
the environment's action ids (sub-steps included), the player labels, and the
result. Because every chance event (turn order, setup, dice, card shuffles)
comes from the seeded generator, applying the moves again to
``Game.new_game(seed)`` reproduces every position and every die
(:func:`replay`, which can stop after any move).

Recording is :mod:`risk_env.records.recorder`'s job (:class:`~risk_env.records.recorder.Recorder`
wraps a PettingZoo env, :class:`~risk_env.records.recorder.GameRecorder` serves loops that
call the engine); this module owns the file format and the replay.

Format versions: a file carries ``"format": "risk_env.record/1"``
(:data:`RECORD_FORMAT`). :data:`READABLE_FORMATS` lists what readers accept; any
other value fails with a :class:`RecordError` naming the format found and the
ones supported.

>>> import risk_env
>>> from risk_env.records.recorder import Recorder
>>> env = Recorder(risk_env.env(num_players=2, map="small", setup="random", turn_limit=3))
>>> env.reset(seed=5)
>>> for agent in env.agent_iter():
...     obs, _, term, trunc, _ = env.last()
...     env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][-1]))
>>> rec = env.records[-1]
>>> rec.result["ended"], rec.seed
('turn_limit', 5)
>>> states = list(replay(GameRecord.from_json(rec.to_json())))
>>> same_position(states[-1], env.unwrapped.game_state), len(states) == len(rec.moves) + 1
(True, True)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from .._output import check_output_file, file_name_text, write_text_file
from ..envs.codec import ActionCodec, Selection
from ..errors import ConfigError, IllegalMoveError, InvalidMoveError, RecordError, RiskError, check_seed
from ..rules.config import RulesConfig
from ..rules.engine import Game
from ..rules.map import builtin_maps, load_map, map_from_dict
from ..rules.moves import Move
from ..rules.state import GameState, Phase
from .ansi import players_problem

__all__ = [
    "RECORD_FORMAT",
    "READABLE_FORMATS",
    "RecordError",  # defined in risk_env.errors, kept here for the code that imports it from this module
    "GameRecord",
    "ReplayStep",
    "replay",
    "replay_moves",
    "replay_actions",
    "map_spec",
    "game_result",
    "state_digest",
    "same_position",
]

RECORD_FORMAT = "risk_env.record/1"
"""The ``format`` field written in every record file (version 1 of the format)."""

READABLE_FORMATS = (RECORD_FORMAT, "risk_env.records.record/1")
"""``format`` values readers accept: version 1, under its name and under the alias some
development builds wrote (the same layout)."""


_FIELDS = ("format", "rules", "map", "seed", "start_state", "players", "result", "moves", "actions", "meta")
"""The fields of a record file (``format``, ``rules``, ``map``, ``seed`` and ``moves`` are required)."""


RESULT_ENDS = ("win", "turn_limit", "unfinished", "stalled")
"""The ``result["ended"]`` values of a record besides the two with a named party (:data:`_ENDED_FORMS`): a win
and the turn limit (the replay's to say), a game closed before its end (the recorder, ``risk-env play``, the web
session), and a game stopped for making no progress (:func:`risk_env.tools.match.play_match`)."""

_ENDED_FORMS = (
    (re.compile(r"illegal action by [^\s]+"), "'illegal action by <agent>'"),  # (Recorder, the web session)
    (re.compile(r"agent error by [^\s]+"), "'agent error by <agent>'"),  # (an agent raised: the web session, play)
    (re.compile(r"stopped after [1-9][0-9]* actions? of the agents"), "'stopped after <n> actions of the agents'"),
)

_RESULT_FIELDS = ("ended", "winner", "turns", "moves", "eliminated", "territories", "armies", "digest")
"""The keys of a record's ``result`` (:func:`game_result`); the first four are required (the replay's log reads them)."""


def ended_problem(ended: object) -> str | None:
    """Why ``ended`` is not a reason a record's game ended (:data:`RESULT_ENDS`, ``"illegal action by <agent>"``,
    ``"agent error by <agent>"``, ``"stopped after <n> actions of the agents"``), or None where it is one."""
    if isinstance(ended, str) and (ended in RESULT_ENDS or any(form.fullmatch(ended) for form, _ in _ENDED_FORMS)):
        return None
    allowed = ", ".join([*map(repr, RESULT_ENDS), *(shown for _, shown in _ENDED_FORMS)])
    return f"must be one of {allowed}, got {ended!r:.80}"


# ---------------------------------------------------------------------- helpers
@cache
def _builtin_json(name: str) -> str:
    return json.dumps(load_map(name).to_dict(), sort_keys=True)


def map_spec(game: Game) -> str | dict[str, Any]:
    """How a record names ``game``'s map: the name of a shipped map it equals, else the full map dict."""
    m = game.map
    if m.name in builtin_maps() and json.dumps(m.to_dict(), sort_keys=True) == _builtin_json(m.name):
        return m.name
    return m.to_dict()


def state_digest(s: GameState) -> str:
    """SHA-256 (hex) of the position (every field, the generator included)."""
    return hashlib.sha256(json.dumps(s.to_dict(), sort_keys=True).encode()).hexdigest()


def same_position(a: GameState, b: GameState) -> bool:
    """Whether two states are the same position (``a == b``; kept for older callers)."""
    return a == b


def game_result(game: Game, s: GameState, ended: str | None = None) -> dict[str, Any]:
    """The ``result`` of a record for the (final) state ``s``.

    Keys: ``ended`` (``"win"``, ``"turn_limit"``, or the given reason, e.g.
    ``"unfinished"``), ``winner`` (seat or -1), ``turns``, ``moves``,
    ``eliminated`` (seats in order), ``territories`` and ``armies`` (per seat,
    the 2-player neutral last), ``digest`` (:func:`state_digest`).

    Raises:
        ConfigError: ``ended`` is not a reason a record's game ends (:func:`ended_problem`: ``"unfinished"``,
            ``"stalled"``, ``"illegal action by <agent>"``...): a record that said it could not be read back.
    """
    why = None if ended is None else ended_problem(ended)
    if why is not None:
        raise ConfigError(f"ended {why}")
    if ended is None:
        ended = ("win" if s.winner >= 0 else "turn_limit") if s.phase == Phase.GAME_OVER else "unfinished"
    seats = range(game.num_seats)
    return {
        "ended": ended,
        "winner": int(s.winner),
        "turns": int(s.turn),
        "moves": int(s.steps),
        "eliminated": [int(p) for p in s.elim_order],
        "territories": [int((s.owner == p).sum()) for p in seats],
        "armies": [int(s.armies[s.owner == p].sum()) for p in seats],
        "digest": state_digest(s),
    }


# ---------------------------------------------------------------------- the record
@dataclass
class GameRecord:
    """One game, replayable.

    Attributes:
        rules: ``RulesConfig.to_dict()``.
        map: a shipped map's name, or the full map dict (:meth:`GameMap.to_dict <risk_env.rules.map.GameMap.to_dict>`).
        seed: the seed given to ``Game.new_game``.
        moves: the complete moves, in order, in text form.
        actions: the environment's action ids in order (sub-steps included), or None if not recorded.
        players: a label per player seat (e.g. agent names), or None.
        result: :func:`game_result` of the final state, or None while the game runs.
        meta: free-form JSON-compatible notes.
        start_state: the position the game began from (:meth:`GameState.to_dict
            <risk_env.rules.state.GameState.to_dict>`) when it was not ``Game.new_game(seed)``: a game
            played on from a position (``env.reset(options={"state": ...})``); None otherwise.
    """

    rules: dict[str, Any]
    map: str | dict[str, Any]
    seed: int
    moves: list[str] = field(default_factory=list)
    actions: list[int] | None = None
    players: list[str] | None = None
    result: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    start_state: dict[str, Any] | None = None

    # -------------------------------------------------------------- building
    @classmethod
    def start(
        cls,
        game: Game,
        seed: int,
        players: Sequence[str] | None = None,
        actions: bool = False,
        meta: dict[str, Any] | None = None,
    ) -> GameRecord:
        """An empty record for a game of ``game`` begun with ``Game.new_game(seed)``.

        The rules' ``map`` is the record's ``map`` where that is a shipped map's name (a game given a shipped map by
        ``Game(config, game_map=...)`` keeps ``config.map`` as it was; a record says the map played).

        Raises:
            RecordError: ``seed`` is not an integer >= 0 (a record needs the seed to replay), or ``players`` is not a
                list of printable names, one per player.
        """
        try:
            check_seed(seed)
        except ConfigError:
            raise RecordError(f"a record needs an integer seed >= 0 to replay the game, got {seed!r}") from None
        if players is not None:
            why = players_problem(players)
            if why is not None:
                raise RecordError(f"a record's players {why}")
            if len(players) != game.num_players:  # (the record was written, then refused when read)
                raise RecordError(
                    f"a record's players name one label per player: {game.num_players} for these rules, got {len(players)}"
                )
        spec = map_spec(game)
        rules = game.config.to_dict()
        if isinstance(spec, str):
            rules["map"] = spec
        return cls(
            rules=rules,
            map=spec,
            seed=int(seed),
            actions=[] if actions else None,
            players=list(players) if players is not None else None,
            meta=dict(meta or {}),
        )

    def game(self) -> Game:
        """The :class:`~risk_env.rules.engine.Game` the record was played with.

        Raises:
            RecordError: the rules or the map in the record are invalid.
        """
        try:
            cfg = RulesConfig.from_dict(self.rules)
            if isinstance(self.map, dict):
                return Game(cfg, game_map=map_from_dict(self.map))
            return Game(cfg.replace(map=self.map) if cfg.map != self.map else cfg)
        except RiskError as e:
            raise RecordError(f"the record's rules or map are invalid: {e}") from None

    def initial_state(self, game: Game | None = None) -> GameState:
        """The position before the first move: :attr:`start_state` when the game began from a position, else
        ``Game.new_game(seed)`` (a new copy at each call).

        Raises:
            RecordError: the record's start position is not a valid position of its rules and map.
        """
        game = game or self.game()
        if self.start_state is None:
            return game.new_game(self.seed)
        try:
            return game.state_from_dict(self.start_state)
        except RiskError as e:
            raise RecordError(f"the record's 'start_state' is not a position of its game: {e}") from None

    def player_labels(self) -> list[str] | None:
        """The record's player labels for pictures: :attr:`players` when there is one per seat and they tell the
        seats apart (else None: pictures then say ``player_0``...)."""
        n = int(self.rules.get("num_players", 0))
        players = self.players
        if players is None or len(players) != n or len(set(players)) != n:
            return None
        return list(players)

    def position(self, upto: int | None = None) -> Any:
        """The position after ``upto`` moves (default: all) as a :class:`~risk_env.records.svg.Position`, the last move
        highlighted; Jupyter shows it as the board.

        Raises:
            RecordError: a move does not replay; ConfigError: ``upto`` is not in ``0..len(moves)``.
        """
        from .svg import Position

        game = self.game()
        n = _check_upto(self, upto, len(self.moves))
        state = self.initial_state(game)
        for step in replay_moves(self, n, game):
            state = step.state
        names = self.player_labels()
        return Position(
            game,
            state,
            self.moves[n - 1] if n else "",
            tuple(self.moves[max(0, n - 15) : max(0, n - 1)]),
            player_names=tuple(names) if names else None,
        )

    # -------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """A JSON-compatible dict (the file format, with ``"format": RECORD_FORMAT``)."""
        d: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "rules": dict(self.rules),
            "map": self.map,
            "seed": None if self.seed is None else int(self.seed),  # (a numpy integer seed too)
            **({"start_state": self.start_state} if self.start_state is not None else {}),
            "players": self.players,
            "result": None if self.result is None else dict(self.result),  # (a copy: editing the dict leaves the record)
            "moves": list(self.moves),
        }
        if self.actions is not None:
            d["actions"] = list(self.actions)
        if self.meta:
            d["meta"] = self.meta
        return d

    @classmethod
    def from_dict(cls, d: Any) -> GameRecord:
        """Read :meth:`to_dict` output.

        Raises:
            RecordError: not a record, another format version, a field of the wrong type, a ``map`` that is neither a
                shipped map's name nor a map object, player names that are not printable text, or a ``result`` that
                is not :func:`game_result`'s (an ``ended`` other than the reasons a recorder writes,
                :func:`ended_problem`).
        """
        if not isinstance(d, dict):
            raise RecordError(f"a game record is a JSON object, got {type(d).__name__}")
        fmt = d.get("format")
        if fmt not in READABLE_FORMATS:
            if isinstance(fmt, str) and fmt.startswith("risk_env.record/"):
                raise RecordError(
                    f"this record has format {fmt!r}, which this version of risk_env cannot read "
                    f"(it reads {', '.join(map(repr, READABLE_FORMATS))}); replay it with the risk_env release that wrote it"
                )
            raise RecordError(f"not a game record: the 'format' field is {fmt!r}, a record has {RECORD_FORMAT!r}")
        unknown = [k for k in d if k not in _FIELDS]
        if unknown:
            raise RecordError(
                f"the record has an unknown field {unknown[0]!r}; a {RECORD_FORMAT} record holds: {', '.join(_FIELDS)}"
            )
        for key, kinds in (("rules", (dict,)), ("map", (str, dict)), ("seed", (int,)), ("moves", (list,))):
            if key not in d:
                raise RecordError(f"the record has no {key!r} field")
            if not isinstance(d[key], kinds) or isinstance(d[key], bool):
                raise RecordError(
                    f"the record's {key!r} must be {' or '.join(k.__name__ for k in kinds)}, got {type(d[key]).__name__}"
                )
        if d["seed"] < 0:
            raise RecordError(f"the record's 'seed' must be an integer >= 0 (the seed of Game.new_game), got {d['seed']}")
        if isinstance(d["map"], str) and d["map"] not in builtin_maps():
            raise RecordError(
                f"the record's 'map' must be a shipped map's name ({', '.join(builtin_maps())}) or the map itself "
                f"(an object, GameMap.to_dict()), got {d['map']!r:.80}"
            )
        rules = d["rules"]
        if isinstance(d["map"], str) and rules.get("map") != d["map"]:
            # the record's 'map' is the map played (GameRecord.game reads it): a game given a shipped map by
            # Game(config, game_map=...) was recorded with config.map as it was, by earlier versions too
            rules = {**rules, "map": d["map"]}
        if not all(isinstance(m, str) for m in d["moves"]):
            raise RecordError("the record's 'moves' must be a list of move texts")
        actions = d.get("actions")
        if actions is not None and (
            not isinstance(actions, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in actions)
        ):
            raise RecordError("the record's 'actions' must be a list of integer action ids")
        players = d.get("players")
        if players is not None:
            why = players_problem(players) if isinstance(players, list) else "must be a list of names"
            if why is not None:
                raise RecordError(f"the record's 'players' {why}")
        seats = d["rules"].get("num_players", RulesConfig.num_players)
        if players is not None and isinstance(seats, int) and len(players) != seats:
            raise RecordError(f"the record's 'players' names {len(players)} players, its rules have num_players={seats}")
        result = d.get("result")
        if result is not None:
            _check_result(result)
        meta = d.get("meta", {})
        if not isinstance(meta, dict):
            raise RecordError("the record's 'meta' must be an object")
        start_state = d.get("start_state")
        if start_state is not None and not isinstance(start_state, dict):
            raise RecordError("the record's 'start_state' must be a position (GameState.to_dict()), an object")
        return cls(
            rules=rules,
            map=d["map"],
            seed=d["seed"],
            moves=list(d["moves"]),
            actions=actions,
            players=players,
            result=result,
            meta=meta,
            start_state=start_state,
        )

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text (one move per line when ``indent`` is given)."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        """Parse a record's JSON text (``bytes`` must be UTF-8).

        Raises:
            RecordError: not UTF-8, invalid JSON, nested too deeply, or not a record.
        """
        if isinstance(text, (bytes, bytearray)):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as e:
                raise RecordError(f"a game record must be UTF-8 JSON text; byte {e.start} is not UTF-8") from None
        if not isinstance(text, str):
            raise RecordError(f"a game record is JSON text (str or bytes), got {type(text).__name__}")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise RecordError(f"a game record must be JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
        except RecursionError:
            raise RecordError("a game record's JSON nests too deeply to be a record") from None
        except ValueError as e:  # (a number too long to read: Python's limit on integer digits)
            raise RecordError(f"a game record must be JSON that Python reads: {e}") from None
        return cls.from_dict(data)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the record to ``path`` (parent folders are created). Returns the path.

        Raises:
            ConfigError: ``path`` is not text or a path, is empty or a folder, its folder cannot be made, or the file
                cannot be written there (:func:`risk_env._output.check_output_file`); the message names the path and
                the reason. Nothing is written.
        """
        check_output_file(path, "GameRecord.save: path")
        return write_text_file(path, self.to_json(indent=1) + "\n", "GameRecord.save: path")

    @classmethod
    def load(cls, path: str | os.PathLike[str], validate: bool = True) -> GameRecord:
        """Read a record file and (by default) :meth:`validate` it.

        Args:
            validate: replay the record to check it (rules, map, every move, the result).

        Raises:
            RecordError: ``path`` is no file name (not text or a path, empty, holding a NUL), the file cannot be read, is
                not a record, or (``validate``) does not replay; the message names the file.
        """
        try:
            name = file_name_text(path, "GameRecord.load: path")
        except ConfigError as e:
            raise RecordError(str(e)) from None
        if not name or "\0" in name:
            raise RecordError(f"GameRecord.load: path {name!r} is no file name")
        try:
            raw = Path(path).read_bytes()
        except OSError as e:
            raise RecordError(f"cannot read record file {os.fspath(path)!r}: {e.strerror or e}") from None
        try:
            rec = cls.from_json(raw)
            if validate:
                rec.validate()
        except RecordError as e:
            raise RecordError(f"{os.fspath(path)}: {e}") from None
        return rec

    # -------------------------------------------------------------- checks
    def validate(self) -> GameRecord:
        """Check that the record is sound: its rules and map build a game, every move
        replays where it stands, the action ids (when the record has them) replay through
        the action codec to the same final position, and that position matches
        :attr:`result` (if any). Returns the record itself.

        Raises:
            RecordError: the first problem found (which move, which field).
        """
        self.verify()
        return self

    def final_state(self) -> GameState:
        """The position after the last move."""
        *_, last = replay(self)
        return last

    def verify(self) -> GameState:
        """Replay the whole game and check it against :attr:`result`; return the final state.

        When the record has :attr:`actions`, they are replayed too (:func:`replay_actions`)
        and must reach the same final position as the moves.

        Raises:
            RecordError: a move or an action id does not replay, the action ids end in another
                position than the moves, or the final position differs from the recorded result.
        """
        s = self.final_state()
        if self.actions is not None:
            *_, by_ids = replay_actions(self)
            if by_ids != s:
                raise RecordError(
                    f"the record's {len(self.actions)} action ids replay to another position than its "
                    f"{len(self.moves)} moves (turn {by_ids.turn} against {s.turn}): an id was changed"
                )
        if self.result is not None:
            ended = self.result.get("ended")
            over = s.phase == Phase.GAME_OVER
            natural = ("win" if s.winner >= 0 else "turn_limit") if over else None
            # "win" and "turn_limit" are the replay's to say; other reasons ("unfinished", "stalled", an illegal
            # action) are the recorder's, any text
            if "ended" in self.result and (not isinstance(ended, str) or (ended in ("win", "turn_limit") and ended != natural)):
                how = {"win": "a win", "turn_limit": "the turn limit", None: "a game still in progress"}[natural]
                raise RecordError(f"replaying the record ends in {how}, the record says ended={ended!r}")
            got = game_result(self.game(), s, ended=ended)
            for key, want in self.result.items():
                if key in got and got[key] != want:
                    raise RecordError(f"replaying the record gives {key}={got[key]!r}, the record says {want!r}")
        return s


def _check_result(result: object) -> None:
    """Refuse a record's ``result`` that is not :func:`game_result`'s form (the values are the replay's to check).

    Raises:
        RecordError: not an object, an unknown key, a missing ``ended``, ``winner``, ``turns`` or ``moves``, one
            of these of the wrong type, or an ``ended`` that is not a reason a recorder writes.
    """
    if not isinstance(result, dict):
        raise RecordError("the record's 'result' must be an object")
    unknown = [k for k in result if k not in _RESULT_FIELDS]
    if unknown:
        raise RecordError(f"the record's 'result' has an unknown key {unknown[0]!r:.80}; it holds: {', '.join(_RESULT_FIELDS)}")
    for key in _RESULT_FIELDS[:4]:
        if key not in result:
            raise RecordError(f"the record's 'result' has no {key!r}; it holds: {', '.join(_RESULT_FIELDS)}")
    why = ended_problem(result["ended"])
    if why is not None:
        raise RecordError(f"the record's result 'ended' {why}")
    for key in ("winner", "turns", "moves"):
        value = result[key]
        if not isinstance(value, int) or isinstance(value, bool) or value < (-1 if key == "winner" else 0):
            least = "-1 (no winner)" if key == "winner" else "0"
            raise RecordError(f"the record's result {key!r} must be an integer >= {least}, got {value!r:.80}")


# ---------------------------------------------------------------------- replay
@dataclass(frozen=True)
class ReplayStep:
    """One replayed move.

    Attributes:
        index: 1 for the first move.
        seat: the seat that made it.
        text: its text form; move: the parsed :class:`~risk_env.rules.moves.Move`.
        before: the position before the move; state: the position after it (independent copies).
    """

    index: int
    seat: int
    text: str
    move: Move
    before: GameState
    state: GameState


def _check_upto(record: GameRecord, upto: int | None, total: int) -> int:
    if upto is None:
        return total
    if isinstance(upto, bool) or not isinstance(upto, (int, np.integer)) or not 0 <= upto <= total:
        raise ConfigError(f"upto must be a number of moves from 0 to {total}, got {upto!r}")
    return int(upto)


def replay_moves(record: GameRecord, upto: int | None = None, game: Game | None = None) -> Iterator[ReplayStep]:
    """Apply the record's moves one by one, yielding a :class:`ReplayStep` per move.

    Args:
        upto: stop after this many moves (default: all).
        game: the record's game, if already built (:meth:`GameRecord.game`).

    Raises:
        RecordError: a move text does not parse or is illegal where it stands.
        ConfigError: ``upto`` is not in ``0..len(record.moves)``.
    """
    game = game or record.game()
    n = _check_upto(record, upto, len(record.moves))
    s = record.initial_state(game)
    for i, text in enumerate(record.moves[:n]):
        seat = game.current_player(s)
        try:
            move = game.parse_move(s, text)
            before = s.copy()
            game.apply(s, move)
        except (InvalidMoveError, IllegalMoveError) as e:
            raise RecordError(f"move {i + 1} ({text!r}) does not replay: {e}") from None
        yield ReplayStep(i + 1, seat, text, move, before, s.copy())


def replay(record: GameRecord, upto: int | None = None) -> Iterator[GameState]:
    """The positions of a recorded game: the initial one, then one after each move.

    Yields ``upto + 1`` independent states (all the moves' when ``upto`` is None).

    Raises:
        RecordError: a move does not replay; ConfigError: bad ``upto``.
    """
    game = record.game()
    _check_upto(record, upto, len(record.moves))
    yield record.initial_state(game)
    for step in replay_moves(record, upto, game):
        yield step.state


def replay_actions(record: GameRecord, upto: int | None = None) -> Iterator[GameState]:
    """The positions after each recorded action id, through the action codec (as the environment steps;
    an id that only selects leaves the position as it was).

    Args:
        upto: stop after this many action ids (default: all).

    Raises:
        RecordError: the record has no action ids, or an id is illegal where it stands.
    """
    if record.actions is None:
        raise RecordError("this record has no action ids (it was recorded from complete moves); use replay()")
    game = record.game()
    codec = ActionCodec(game)
    n = _check_upto(record, upto, len(record.actions))
    s = record.initial_state(game)
    sel = Selection()
    yield s.copy()
    for i, a in enumerate(record.actions[:n]):
        try:
            codec.step(s, a, sel)
        except IllegalMoveError as e:
            raise RecordError(f"action {i + 1} (id {a}) does not replay: {e}") from None
        yield s.copy()
