"""Recording games as they are played: :class:`Recorder` (a PettingZoo AEC wrapper) and
:class:`GameRecorder` (for loops that call the engine directly, as ``risk-env play`` does).

Both build a :class:`~risk_env.records.record.GameRecord` (the file format, in
:mod:`risk_env.records.record`). :func:`risk_env.tools.match.play_match` records
through :class:`Recorder` when called with ``record=True``.

>>> import risk_env
>>> env = Recorder(risk_env.env(num_players=2, map="small", setup="random", turn_limit=3))
>>> env.reset(seed=5)
>>> for agent in env.agent_iter():
...     obs, _, term, trunc, _ = env.last()
...     env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][-1]))
>>> env.records[-1].result["ended"], env.records[-1].seed
('turn_limit', 5)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

from .._output import folder_problem
from ..errors import ConfigError, InvalidMoveError, StateError, check_seed
from ..rules.engine import Game
from ..rules.legality import check_fits
from ..rules.moves import Move
from ..rules.state import GameState, Phase
from .ansi import players_problem
from .record import GameRecord, game_result

__all__ = ["Recorder", "GameRecorder", "fresh_seed"]


def fresh_seed() -> int:
    """A new game seed drawn from the operating system's entropy: an ``int`` in ``0 .. 2**63 - 1``.

    What a game is seeded with when no seed is given (:meth:`Recorder.reset` with ``seed=None``,
    :class:`~risk_env.web.session.GameSession`, ``risk-env play`` and ``risk-env serve``): nobody can
    know it in advance, so nobody can rebuild from it the dice to come, the draw pile or the other
    seats' cards and missions; the record holds it, so the game still replays.
    """
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))


class GameRecorder:
    """Records a game played through the engine (a loop calling ``game.apply`` / ``codec.step``).

    The recorder keeps no position of its own and replays nothing as moves are added (the loop plays them): what
    :meth:`add` checks is that each move is a :class:`~risk_env.rules.moves.Move` of the game's map or a text the game
    reads (:meth:`Game.parse_move <risk_env.rules.engine.Game.parse_move>`), not that it is legal where it is played;
    :meth:`GameRecord.verify <risk_env.records.record.GameRecord.verify>` (or reading the saved record) replays it.

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
        """Append a complete move (a :class:`Move` or its text) and the action ids that made it, if recorded.

        A text is kept as given once the game reads it (:meth:`Game.parse_move
        <risk_env.rules.engine.Game.parse_move>`: a cheap read, no replay; whether the move is legal there is
        checked when the record is replayed). Nothing is added where the move or the actions are refused.

        Raises:
            InvalidMoveError: ``move`` is neither a :class:`Move` nor a text the game reads (``"hello"``, a number,
                None), or is a Move naming a territory or card this map does not have; the message says why.
            ConfigError: ``actions`` is not a list of action ids (integers, not bools; a 0-d numpy array is one id,
                not a list of them).
        """
        if isinstance(move, Move):
            try:
                text = self.game.move_to_text(move)
            except ConfigError as e:  # (a territory id out of the map's range)
                raise InvalidMoveError(f"GameRecorder.add: {move!r} is not a move on this map: {e}") from None
        elif isinstance(move, str):
            try:
                self.game.parse_move(None, move)
            except InvalidMoveError as e:
                raise InvalidMoveError(f"GameRecorder.add: {e}") from None
            text = move
        else:
            raise InvalidMoveError(
                f"GameRecorder.add: give a Move or its text (such as 'end turn'), got {type(move).__name__} {move!r:.60}"
            )
        try:
            ids = None if isinstance(actions, (str, bytes)) or not isinstance(actions, Iterable) else list(actions)
        except TypeError:  # (a 0-d numpy array: iterable by its type, "iteration over a 0-d array" by its value)
            ids = None
        if ids is None or not all(isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) for a in ids):
            raise ConfigError(
                f"GameRecorder.add: actions must be a list of action ids (integers), got {type(actions).__name__} {actions!r:.60}"
            )
        self.record.moves.append(text)
        if self.record.actions is not None:
            self.record.actions.extend(int(a) for a in ids)

    def finish(self, state: GameState, ended: str | None = None) -> GameRecord:
        """Set the result from the final ``state`` and return the record (unchanged where an argument is refused).

        Raises:
            ConfigError: ``ended`` is not a reason a record's game ends (:func:`~risk_env.records.record.ended_problem`).
            StateError: ``state`` is not a :class:`GameState`, or is a position of another map or player count.
        """
        if not isinstance(state, GameState):
            raise StateError(
                f"GameRecorder.finish: give the final position, a GameState, got {type(state).__name__} {state!r:.60}"
            )
        check_fits(self.game, state)
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

    ``reset(seed=None)`` draws a seed (:func:`fresh_seed`) so the game can
    still be replayed; the seed in use is :attr:`record` ``.seed``. A game
    played on from a position (``reset(options={"state": ...})``) is recorded
    from there: the record's ``start_state`` holds the position. A game
    ended by ``TerminateIllegalWrapper`` is recorded with
    ``result["ended"] == "illegal action by <agent>"``.

    Attributes:
        record: the game being recorded (or the last one).
        records: finished records (when ``keep``).
        paths: files written.

    Raises:
        ConfigError: ``directory`` cannot be made or written into (a file in the way, no permission: nothing is made);
            ``players`` is not a list of printable names, one per player.
    """

    def __init__(
        self,
        env: Any,
        directory: str | os.PathLike[str] | None = None,
        players: Sequence[str] | None = None,
        keep: bool = True,
        meta: dict[str, Any] | None = None,
    ) -> None:
        if directory is not None:  # (before the games: a file in the way was a FileExistsError after the first one)
            why = folder_problem(directory)
            if why is not None:
                raise ConfigError(f"Recorder directory {os.fspath(directory)!r}: cannot write records there: {why}")
        if players is not None:
            why = players_problem(players)
            if why is not None:
                raise ConfigError(f"Recorder players {why}")
            n = env.unwrapped.game.num_players
            if len(players) != n:  # (each record was written, then refused when read)
                raise ConfigError(f"Recorder players: give one label per player, {n} for this env, got {len(players)}")
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
        check_seed(seed, allow_none=True)  # (before the game in progress is closed)
        if self._open and self.record is not None:
            self._close("unfinished")
        if seed is None:
            seed = fresh_seed()
        self.env.reset(seed=seed, options=options)
        raw = self.env.unwrapped
        self.record = GameRecord.start(raw.game, seed, self.players, actions=True, meta=self.meta)
        if options and options.get("state") is not None:  # a game played on from a position: the record starts there
            self.record.start_state = raw.game_state.to_dict()
        self._open = True

    def step(self, action: Any) -> None:
        raw = self.env.unwrapped
        s = raw.game_state
        before = (s.steps, raw.selection.as_tuple()) if s is not None else None
        agent = self.env.agent_selection
        self.env.step(action)
        if not self._open or self.record is None or action is None:
            return
        s = raw.game_state
        after = (s.steps, raw.selection.as_tuple())
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

    def finish(self, ended: str | None = None) -> GameRecord | None:
        """Close the game being recorded now (``ended``: why, e.g. ``"unfinished"``; None: from the
        final state) and return its record; None when no game is open.

        Raises:
            ConfigError: ``ended`` is not a reason a record's game ends (:func:`~risk_env.records.record.ended_problem`);
                the game stays open.
        """
        if not self._open or self.record is None:
            return None
        self._close(ended)
        return self.record

    def _close(self, ended: str | None) -> None:
        rec = self.record
        if rec is None:
            return
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
