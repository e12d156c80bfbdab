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

Recording:

* :class:`Recorder` wraps a PettingZoo AEC environment (``risk_env.env()``
  or ``raw_env``) and records every game it plays; with ``directory=`` it
  also writes each finished game to a file.
* :class:`GameRecorder` is the same for a loop that calls the engine
  directly (``game.apply`` / ``codec.step``), as the ``risk-env`` CLI does.

>>> import risk_env
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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

from ..envs.codec import ActionCodec
from ..errors import IllegalMoveError, RiskError
from ..rules.config import RulesConfig
from ..rules.engine import Game
from ..rules.map import builtin_maps, load_map, map_from_dict
from ..rules.moves import Move
from ..rules.state import GameState, Phase

__all__ = [
    "RECORD_FORMAT",
    "RecordError",
    "GameRecord",
    "ReplayStep",
    "Recorder",
    "GameRecorder",
    "replay",
    "replay_moves",
    "replay_actions",
    "map_spec",
    "game_result",
    "state_digest",
    "same_position",
]

RECORD_FORMAT = "risk_env.records.record/1"
"""The ``format`` field of a record file; readers reject other values."""

_SELECTION = ("sel_src", "sel_dst", "sel_trade")


class RecordError(RiskError):
    """A malformed record, or one whose moves do not replay (the message says which move and why)."""


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


def _position_dict(s: GameState) -> dict[str, Any]:
    d = s.to_dict()
    for f in _SELECTION:  # the action codec's pending selection is not part of the position
        d.pop(f)
    return d


def state_digest(s: GameState) -> str:
    """SHA-256 (hex) of the position (every field, the generator included; not the codec's pending selection)."""
    return hashlib.sha256(json.dumps(_position_dict(s), sort_keys=True).encode()).hexdigest()


def same_position(a: GameState, b: GameState) -> bool:
    """Whether two states are the same position (equal but for the action codec's pending selection)."""
    return _position_dict(a) == _position_dict(b)


def game_result(game: Game, s: GameState, ended: str | None = None) -> dict[str, Any]:
    """The ``result`` of a record for the (final) state ``s``.

    Keys: ``ended`` (``"win"``, ``"turn_limit"``, or the given reason, e.g.
    ``"unfinished"``), ``winner`` (seat or -1), ``turns``, ``moves``,
    ``eliminated`` (seats in order), ``territories`` and ``armies`` (per seat,
    the 2-player neutral last), ``digest`` (:func:`state_digest`).
    """
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
    """

    rules: dict[str, Any]
    map: str | dict[str, Any]
    seed: int
    moves: list[str] = field(default_factory=list)
    actions: list[int] | None = None
    players: list[str] | None = None
    result: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

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

        Raises:
            RecordError: ``seed`` is not an int (a record needs the seed to replay).
        """
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise RecordError(f"a record needs an integer seed to replay the game, got {seed!r}")
        return cls(
            rules=game.config.to_dict(),
            map=map_spec(game),
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
        """The position before the first move."""
        return (game or self.game()).new_game(self.seed)

    # -------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        """A JSON-compatible dict (the file format, with ``"format": RECORD_FORMAT``)."""
        d: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "rules": dict(self.rules),
            "map": self.map,
            "seed": self.seed,
            "players": self.players,
            "result": self.result,
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
            RecordError: not a record, another format version, or a field of the wrong type.
        """
        if not isinstance(d, dict):
            raise RecordError(f"a game record is a JSON object, got {type(d).__name__}")
        if d.get("format") != RECORD_FORMAT:
            raise RecordError(f"not a game record of format {RECORD_FORMAT!r} (format field: {d.get('format')!r})")
        for key, kinds in (("rules", (dict,)), ("map", (str, dict)), ("seed", (int,)), ("moves", (list,))):
            if key not in d:
                raise RecordError(f"the record has no {key!r} field")
            if not isinstance(d[key], kinds) or isinstance(d[key], bool):
                raise RecordError(
                    f"the record's {key!r} must be {' or '.join(k.__name__ for k in kinds)}, got {type(d[key]).__name__}"
                )
        if not all(isinstance(m, str) for m in d["moves"]):
            raise RecordError("the record's 'moves' must be a list of move texts")
        actions = d.get("actions")
        if actions is not None and (
            not isinstance(actions, list) or not all(isinstance(a, int) and not isinstance(a, bool) for a in actions)
        ):
            raise RecordError("the record's 'actions' must be a list of integer action ids")
        players = d.get("players")
        if players is not None and (not isinstance(players, list) or not all(isinstance(p, str) for p in players)):
            raise RecordError("the record's 'players' must be a list of names")
        result = d.get("result")
        if result is not None and not isinstance(result, dict):
            raise RecordError("the record's 'result' must be an object")
        meta = d.get("meta", {})
        if not isinstance(meta, dict):
            raise RecordError("the record's 'meta' must be an object")
        return cls(
            rules=d["rules"],
            map=d["map"],
            seed=d["seed"],
            moves=list(d["moves"]),
            actions=actions,
            players=players,
            result=result,
            meta=meta,
        )

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text (one move per line when ``indent`` is given)."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        """Parse a record's JSON text.

        Raises:
            RecordError: invalid JSON or not a record.
        """
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise RecordError(f"a game record must be JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
        return cls.from_dict(data)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the record to ``path`` (parent folders are created). Returns the path."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(self.to_json(indent=1) + "\n", encoding="utf-8")
        return p

    @classmethod
    def load(cls, path: str | os.PathLike[str], validate: bool = True) -> GameRecord:
        """Read a record file and (by default) :meth:`validate` it.

        Args:
            validate: replay the record to check it (rules, map, every move, the result).

        Raises:
            RecordError: the file cannot be read, is not a record, or (``validate``) does not replay;
                the message names the file.
        """
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise RecordError(f"cannot read record file {os.fspath(path)!r}: {e.strerror or e}") from None
        rec = cls.from_json(text)
        if validate:
            try:
                rec.validate()
            except RecordError as e:
                raise RecordError(f"{os.fspath(path)}: {e}") from None
        return rec

    # -------------------------------------------------------------- checks
    def validate(self) -> GameRecord:
        """Check that the record is sound: its rules and map build a game, every move
        replays where it stands, and the final position matches :attr:`result` (if any).
        Returns the record itself.

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

        Raises:
            RecordError: a move does not replay, or the final position differs from the recorded result.
        """
        s = self.final_state()
        if self.result is not None:
            got = game_result(self.game(), s, ended=self.result.get("ended"))
            for key, want in self.result.items():
                if key in got and got[key] != want:
                    raise RecordError(f"replaying the record gives {key}={got[key]!r}, the record says {want!r}")
        return s


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
        raise ValueError(f"upto must be a number of moves from 0 to {total}, got {upto!r}")
    return int(upto)


def replay_moves(record: GameRecord, upto: int | None = None, game: Game | None = None) -> Iterator[ReplayStep]:
    """Apply the record's moves one by one, yielding a :class:`ReplayStep` per move.

    Args:
        upto: stop after this many moves (default: all).
        game: the record's game, if already built (:meth:`GameRecord.game`).

    Raises:
        RecordError: a move text does not parse or is illegal where it stands.
        ValueError: ``upto`` is not in ``0..len(record.moves)``.
    """
    game = game or record.game()
    n = _check_upto(record, upto, len(record.moves))
    s = record.initial_state(game)
    for i, text in enumerate(record.moves[:n]):
        seat = game.to_act(s)
        try:
            move = game.parse_move(s, text)
            before = s.copy()
            game.apply(s, move)
        except IllegalMoveError as e:
            raise RecordError(f"move {i + 1} ({text!r}) does not replay: {e}") from None
        yield ReplayStep(i + 1, seat, text, move, before, s.copy())


def replay(record: GameRecord, upto: int | None = None) -> Iterator[GameState]:
    """The positions of a recorded game: the initial one, then one after each move.

    Yields ``upto + 1`` independent states (all the moves' when ``upto`` is None).

    Raises:
        RecordError: a move does not replay; ValueError: bad ``upto``.
    """
    game = record.game()
    _check_upto(record, upto, len(record.moves))
    yield record.initial_state(game)
    for step in replay_moves(record, upto, game):
        yield step.state


def replay_actions(record: GameRecord, upto: int | None = None) -> Iterator[GameState]:
    """The positions after each recorded action id, through the action codec (as the environment steps).

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
    yield s.copy()
    for i, a in enumerate(record.actions[:n]):
        try:
            codec.step(s, a)
        except IllegalMoveError as e:
            raise RecordError(f"action {i + 1} (id {a}) does not replay: {e}") from None
        yield s.copy()


# ---------------------------------------------------------------------- recording
class GameRecorder:
    """Records a game played through the engine (a loop calling ``game.apply`` / ``codec.step``).

    >>> from risk_env import Game
    >>> game = Game(num_players=2, map="small", setup="random", two_player="none")
    >>> s = game.new_game(seed=3)
    >>> rec = GameRecorder(game, seed=3)
    >>> move = game.legal_moves(s)[0]
    >>> game.apply(s, move); rec.add(move)
    >>> rec.finish(s).moves
    ['place Ash 1']
    """

    def __init__(
        self,
        game: Game,
        seed: int,
        players: Sequence[str] | None = None,
        actions: bool = False,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.game = game
        self.record = GameRecord.start(game, seed, players, actions=actions, meta=meta)

    def add(self, move: Move | str, actions: Sequence[int] = ()) -> None:
        """Append a complete move (a :class:`Move` or its text) and the action ids that made it, if recorded."""
        self.record.moves.append(move if isinstance(move, str) else self.game.move_to_text(move))
        if self.record.actions is not None:
            self.record.actions.extend(int(a) for a in actions)

    def finish(self, state: GameState, ended: str | None = None) -> GameRecord:
        """Set the result from the final ``state`` and return the record."""
        self.record.result = game_result(self.game, state, ended)
        return self.record


class Recorder(BaseWrapper):
    """An AEC wrapper that records every game the environment plays.

    Args:
        env: a ``risk_env`` AEC environment (wrapped or raw).
        directory: if given, each finished game is written there as
            ``game_<n>_seed<seed>.json``.
        players: labels per seat stored in the records (e.g. agent names).
        keep: keep finished records in :attr:`records` (set False for long runs).
        meta: notes stored in every record.

    ``reset(seed=None)`` draws a seed (from fresh entropy) so the game can
    still be replayed; the seed in use is :attr:`record` ``.seed``. A game
    ended by ``TerminateIllegalWrapper`` is recorded with
    ``result["ended"] == "illegal action by <agent>"``.

    Attributes:
        record: the game being recorded (or the last one).
        records: finished records (when ``keep``).
        paths: files written.
    """

    def __init__(
        self,
        env: Any,
        directory: str | os.PathLike[str] | None = None,
        players: Sequence[str] | None = None,
        keep: bool = True,
        meta: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(env)
        self.directory = Path(directory) if directory is not None else None
        self.players = list(players) if players is not None else None
        self.keep = keep
        self.meta = dict(meta or {})
        self.record: GameRecord | None = None
        self.records: list[GameRecord] = []
        self.paths: list[Path] = []
        self._games = 0
        self._open = False

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if self._open and self.record is not None:
            self._close("unfinished")
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
        self.env.reset(seed=seed, options=options)
        raw = self.env.unwrapped
        self.record = GameRecord.start(raw.game, seed, self.players, actions=True, meta=self.meta)
        self._open = True

    def step(self, action: Any) -> None:
        raw = self.env.unwrapped
        s = raw.game_state
        before = (s.steps, s.sel_src, s.sel_dst, s.sel_trade) if s is not None else None
        agent = self.env.agent_selection
        self.env.step(action)
        if not self._open or self.record is None or action is None:
            return
        s = raw.game_state
        after = (s.steps, s.sel_src, s.sel_dst, s.sel_trade)
        if after != before:  # the raw environment took the action
            self.record.actions.append(int(action))  # type: ignore[union-attr]
            if s.steps != before[0]:  # type: ignore[index]
                self.record.moves.append(raw.last_move)
            if s.phase == Phase.GAME_OVER:
                self._close(None)
        elif not self.env.agents or all(
            self.env.terminations.get(a, False) or self.env.truncations.get(a, False) for a in self.env.agents
        ):
            self._close(f"illegal action by {agent}")

    def _close(self, ended: str | None) -> None:
        rec = self.record
        assert rec is not None
        raw = self.env.unwrapped
        rec.result = game_result(raw.game, raw.game_state, ended)
        self._open = False
        if self.keep:
            self.records.append(rec)
        if self.directory is not None:
            self.paths.append(rec.save(self.directory / f"game_{self._games:05d}_seed{rec.seed}.json"))
        self._games += 1

    def close(self) -> None:
        if self._open and self.record is not None:
            self._close("unfinished")
        super().close()
