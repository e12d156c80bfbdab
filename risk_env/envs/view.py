"""A read-only view of a game from one seat, for scripted agents.

Scripted (rule-based) agents decide from the engine's position, not from the
observation vector. They receive it as a :class:`GameView` in the ``info``
dict of their :meth:`act <risk_env.agents.base.Agent.act>` call, under the
key ``"view"``. The agent-driving loop (:func:`risk_env.tools.match.play_match`)
adds it for every decision; in your own AEC loop add it yourself
(``env.unwrapped.view(agent)`` is the same as ``GameView.from_env(env, agent)``)::

    from risk_env.envs.view import GameView

    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        info = {**info, "view": GameView.from_env(env, agent)}
        env.step(agents[agent].act(obs, info))

A view reads the *live* state: it is cheap to build (no copy) and always
current, and it exposes numpy arrays as read-only views (writing to them
raises ``ValueError``). It shows what the seat may know: its own hand (card
ids) and every other seat's number of cards; :attr:`GameView.state` is the
raw engine state, which also holds hidden information (other hands, the draw
pile, the generator); the shipped agents do not read hidden information
through it. Agents must never mutate the state; to look ahead, work on
:meth:`GameView.copy_state`.

>>> import risk_env
>>> env = risk_env.raw_env(num_players=3, setup="random")
>>> env.reset(seed=3)
>>> v = GameView.from_env(env, env.agent_selection)
>>> v.is_my_decision, v.phase.name, v.to_place == v.income()
(True, 'REINFORCE', True)
>>> v.armies[0] = 99
Traceback (most recent call last):
...
ValueError: assignment destination is read-only
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ..errors import RiskError
from ..rules.cards import set_value
from ..rules.engine import Game
from ..rules.moves import Move
from ..rules.state import GameState, Phase
from .codec import ActionCodec, Selection

__all__ = ["GameView"]


_CODECS: weakref.WeakKeyDictionary[Game, ActionCodec] = weakref.WeakKeyDictionary()


def _codec_for(game: Game) -> ActionCodec:
    codec = _CODECS.get(game)
    if codec is None:
        codec = _CODECS[game] = ActionCodec(game)
    return codec


def _ro(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


class GameView:
    """One seat's read-only view of a live game.

    Args:
        game: the :class:`~risk_env.rules.engine.Game` (map, rules, tables).
        state: the live :class:`~risk_env.rules.state.GameState` (not copied).
        seat: the viewing seat, ``0..num_players-1``.
        codec: the env's :class:`~risk_env.envs.codec.ActionCodec` (if omitted, one per
            :class:`Game` is built on first use and cached).
        selection: the codec's pending sub-step for ``state`` (the env's ``selection``;
            None: nothing selected).

    Raises:
        RiskError: ``seat`` is not a player seat.
    """

    __slots__ = ("game", "_state", "seat", "_codec", "_selection")

    def __init__(
        self,
        game: Game,
        state: GameState,
        seat: int,
        codec: ActionCodec | None = None,
        selection: Selection | None = None,
    ) -> None:
        if not isinstance(seat, (int, np.integer)) or not 0 <= seat < game.num_players:
            raise RiskError(f"seat must be a player seat 0..{game.num_players - 1}, got {seat!r}")
        self.game = game
        self._state = state
        self.seat = int(seat)
        self._codec = codec
        self._selection = selection if selection is not None else Selection()

    @classmethod
    def from_env(cls, env: Any, agent: str) -> GameView:
        """The view of ``agent`` (e.g. ``"player_2"``) in a (wrapped or raw) risk_env AEC env.

        Raises:
            RiskError: the env has not been reset, or ``agent`` is not one of its agents.
        """
        raw = getattr(env, "unwrapped", env)
        if getattr(raw, "game_state", None) is None:
            raise RiskError("call env.reset() before asking for a view")
        try:
            seat = raw.agent_name_mapping[agent]
        except KeyError:
            raise RiskError(f"unknown agent {agent!r}; agents are {', '.join(raw.possible_agents)}") from None
        return cls(raw.game, raw.game_state, seat, raw.codec, getattr(raw, "selection", None))

    # ------------------------------------------------------------------ raw access
    @property
    def state(self) -> GameState:
        """The live engine state. Read it, never write it (see the module docstring)."""
        return self._state

    @property
    def codec(self) -> ActionCodec:
        """The action codec (action ids <-> moves) of this game."""
        if self._codec is None:
            self._codec = _codec_for(self.game)
        return self._codec

    def copy_state(self) -> GameState:
        """An independent copy of the state, for look-ahead (``game.apply`` on it is safe)."""
        return self._state.copy()

    # ------------------------------------------------------------------ board
    @property
    def owner(self) -> np.ndarray:
        """int64 ``(T,)`` read-only: owner seat per territory (``num_players`` = the 2-player neutral or the
        allied army, -1 unclaimed)."""
        return _ro(self._state.owner)

    @property
    def armies(self) -> np.ndarray:
        """int32 ``(T,)`` read-only: armies per territory."""
        return _ro(self._state.armies)

    @property
    def mine(self) -> np.ndarray:
        """bool ``(T,)``: territories this seat owns."""
        return self._state.owner == self.seat

    def territories_of(self, seat: int | None = None) -> np.ndarray:
        """int64 ids of the territories ``seat`` (default: this seat) owns, ascending."""
        return np.flatnonzero(self._state.owner == (self.seat if seat is None else seat))

    def owned_continents(self, seat: int | None = None) -> list[int]:
        """Continent ids that ``seat`` (default: this seat) owns entirely."""
        owned = self._state.owner == (self.seat if seat is None else seat)
        return [c for c, idx in enumerate(self.game.continent_idx) if owned[idx].all()]

    def income(self, seat: int | None = None) -> int:
        """Turn-start reinforcements of ``seat`` (default: this seat), cards excluded (docs/rules.md §4.1)."""
        return self.game.income(self._state, self.seat if seat is None else seat)

    # ------------------------------------------------------------------ players and cards
    @property
    def num_players(self) -> int:
        return self.game.num_players

    @property
    def neutral(self) -> int:
        """The neutral's owner id (2-player neutral games), else -1."""
        return self.game.neutral

    @property
    def allied(self) -> int:
        """The allied army's owner id (``two_player="allied"``, docs/rules.md §7), else -1."""
        return self.game.allied

    @property
    def commanding_allied(self) -> bool:
        """True when this seat decides for the allied army now (its sub-turn after the
        opponent's attacks, docs/rules.md §7)."""
        s = self._state
        return self.game.allied_acting(s) and s.commander == self.seat and s.phase != Phase.DEFEND

    @property
    def alive(self) -> tuple[bool, ...]:
        return tuple(self._state.alive)

    @property
    def hand(self) -> tuple[int, ...]:
        """This seat's card ids, ascending (territory cards ``0..T-1``, then wilds)."""
        return tuple(sorted(self._state.hands[self.seat]))

    @property
    def hand_symbols(self) -> tuple[int, ...]:
        """Symbols of :attr:`hand` (0 infantry, 1 cavalry, 2 artillery, 3 wild)."""
        sym = self.game.card_symbol
        return tuple(sym[c] for c in self.hand)

    @property
    def card_counts(self) -> tuple[int, ...]:
        """Number of cards each seat holds (public information)."""
        return tuple(len(h) for h in self._state.hands)

    @property
    def sets_traded(self) -> int:
        return self._state.sets_traded

    def next_trade_value(self, comp: int = 3) -> int:
        """Armies the next set traded in the game is worth (composition ``comp`` matters only
        for ``fixed_by_symbol``; default one of each); 0 without cards or under ``card_trade="stars"``,
        whose trades are valued by stars (:func:`risk_env.rules.cards.stars_value`) (docs/rules.md §4.1, §6)."""
        if not self.game.trades_sets:
            return 0
        return set_value(self.game.config.card_trade, self._state.sets_traded, comp)

    # ------------------------------------------------------------------ turn
    @property
    def phase(self) -> Phase:
        return Phase(self._state.phase)

    @property
    def player(self) -> int:
        """Seat on turn."""
        return self._state.player

    @property
    def current_player(self) -> int:
        """Seat deciding now (the defender in the defend phase), -1 when the game is over."""
        return self.game.current_player(self._state)

    @property
    def is_my_decision(self) -> bool:
        return self.game.current_player(self._state) == self.seat

    @property
    def turn(self) -> int:
        return self._state.turn

    @property
    def to_place(self) -> int:
        """Reinforcements left to place this phase (on-turn seat)."""
        return self._state.to_place

    @property
    def setup_left(self) -> int:
        """Setup armies this seat still has to place."""
        return self._state.setup_left[self.seat]

    @property
    def placing_neutral(self) -> bool:
        """True when the pending setup placement is the neutral's army (2-player setup, docs/rules.md §7)."""
        s = self._state
        return s.phase == Phase.SETUP_PLACE and s.setup_step == 2

    @property
    def my_mission(self) -> int:
        """The seat's own secret mission (an index into
        :data:`risk_env.rules.missions.MISSIONS`), or -1 without ``secret_missions``
        (docs/rules.md §8). Other players' missions are hidden and not exposed here."""
        m = self._state.missions
        return int(m[self.seat]) if m else -1

    @property
    def capitals(self) -> tuple[int, ...]:
        """Every player's capital territory by seat (-1 while not chosen); empty without
        ``capitals`` (docs/rules.md §8). Capitals are public."""
        return tuple(int(t) for t in self._state.capitals)

    @property
    def forced_trade(self) -> bool:
        return self._state.forced

    @property
    def battle(self) -> tuple[int, int]:
        """``(source, target)`` of the pending defence or occupation, ``(-1, -1)`` otherwise."""
        s = self._state
        return (s.att_src, s.att_dst) if s.phase in (Phase.DEFEND, Phase.OCCUPY) else (-1, -1)

    @property
    def selection(self) -> Selection:
        """The codec's pending sub-step selection (the live object; read it, never write it)."""
        return self._selection

    def occupy_range(self) -> tuple[int, int]:
        """``(min, max)`` armies that may stand in the conquered territory (occupy phase only).

        Raises:
            RiskError: not in the occupy phase.
        """
        if self._state.phase != Phase.OCCUPY:
            raise RiskError(f"occupy_range() needs the occupy phase, not {self.phase.name.lower()}")
        return self.game.occupy_range(self._state)

    def legal_moves(self) -> list[Move]:
        """Every legal complete move for the deciding seat (see :meth:`Game.legal_moves`)."""
        return self.game.legal_moves(self._state)

    def is_legal(self, move: Move) -> bool:
        return self.game.is_legal(self._state, move)

    def mask(self) -> np.ndarray:
        """int8 ``(N,)`` action mask for the next sub-step."""
        return self.codec.mask(self._state, self._selection)

    def _repr_svg_(self) -> str:
        """The board as SVG, for Jupyter (public information only: owners, armies, card counts)."""
        from ..records.svg import board_svg

        return board_svg(self.game, self._state, selection=self._selection)

    def __repr__(self) -> str:
        return f"GameView(seat={self.seat}, phase={self.phase.name}, turn={self.turn}, player={self.player})"
