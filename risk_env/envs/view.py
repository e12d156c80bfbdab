"""What one seat may know of a game, for agents that decide from the position.

Scripted (rule-based) agents decide from the position, not from the observation
vector. They receive it as a :class:`GameView`, the value of ``info["view"]``
in the ``info`` of their :meth:`act <risk_env.agents.base.Agent.act>` call: the one
channel, filled the same way by the AEC env (``infos[agent]["view"]`` for the agent
to act, a plain dict key; ``raw_env(views=False)`` leaves it out), by the
agent-driving loop (:func:`risk_env.tools.match.play_match`), by the single-agent env
for its opponents and by the command line. In your own loop over a risk_env env the
info already holds it::

    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        env.step(None if term or trunc else agents[agent].act(obs, info))

A view holds exactly what its seat may know at that decision
(:class:`~risk_env.rules.knowledge.Knowledge`): the public board, its own hand and
mission, every seat's number of cards and the draw pile's size. It holds no other
seat's cards or mission, nothing of the draw pile's order and nothing that decides the
dice to come, and no reference to the live game: it is taken at the decision and does
not change after it. Its numpy arrays are read-only (writing to them raises
``ValueError``).

The engine's functions (legal moves, the action codec, the observation encoders) take a
whole position: :attr:`GameView.state` is one, built from the view alone (the hidden parts
filled in a fixed way), on which they give exactly what they give on the real position
for this seat's decision. For look-ahead, :meth:`GameView.sample_state` resamples the
hidden parts from a generator (the other hands, the draw pile, the other missions, the
dice), consistently with what the seat knows.

>>> import risk_env
>>> env = risk_env.raw_env(num_players=3, setup="random")
>>> env.reset(seed=3)
>>> v = env.last()[4]["view"]
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

from ..errors import ConfigError, ResetNeededError, StateError, UnknownAgentError
from ..rules.engine import Game
from ..rules.knowledge import Knowledge
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
    """What one seat may know of a game at one decision (see the module docstring).

    Args:
        game: the :class:`~risk_env.rules.engine.Game` (map, rules, tables).
        state: the position; the view takes what ``seat`` may know of it now and keeps no
            reference to it.
        seat: the viewing seat, ``0..num_players-1``.
        codec: the env's :class:`~risk_env.envs.codec.ActionCodec` (if omitted, one per
            :class:`Game` is built on first use and cached).
        selection: the codec's pending sub-step for ``state`` (the env's ``selection``;
            None: nothing selected); copied.

    Raises:
        ConfigError: ``seat`` is not a player seat (an integer ``0..num_players-1``; a bool is refused).
    """

    __slots__ = ("game", "seat", "knowledge", "_codec", "_selection", "_state")

    def __init__(
        self,
        game: Game,
        state: GameState,
        seat: int,
        codec: ActionCodec | None = None,
        selection: Selection | None = None,
    ) -> None:
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < game.num_players:
            raise ConfigError(f"seat must be a player seat, an integer 0..{game.num_players - 1}, got {seat!r}")
        self.game = game
        self.seat = int(seat)
        self.knowledge = Knowledge.of(state, self.seat)
        self._codec = codec
        self._selection = (-1, -1, -1) if selection is None else selection.as_tuple()
        self._state: GameState | None = None

    @classmethod
    def of(
        cls, game: Game, knowledge: Knowledge, codec: ActionCodec | None = None, selection: Selection | None = None
    ) -> GameView:
        """The view of what a seat knows, ``knowledge`` (already taken, e.g. shared by the views
        of the sub-steps of one decision, whose position does not change between them)."""
        view = object.__new__(cls)
        view.game = game
        view.seat = knowledge.seat
        view.knowledge = knowledge
        view._codec = codec
        view._selection = (-1, -1, -1) if selection is None else selection.as_tuple()
        view._state = None
        return view

    @classmethod
    def from_env(cls, env: Any, agent: str) -> GameView:
        """The view of ``agent`` (e.g. ``"player_2"``) in a (wrapped or raw) risk_env AEC env now
        (the same as ``env.unwrapped.view(agent)``).

        Raises:
            RiskError: the env has not been reset.
            UnknownAgentError: ``agent`` is not one of its agents (the message lists them).
        """
        raw = getattr(env, "unwrapped", env)
        if getattr(raw, "game_state", None) is None:
            raise ResetNeededError("call env.reset() before asking for a view")
        try:
            seat = raw.agent_name_mapping[agent]
        except KeyError:
            raise UnknownAgentError(f"unknown agent {agent!r}; the agents are {', '.join(raw.possible_agents)}") from None
        return cls(raw.game, raw.game_state, seat, raw.codec, getattr(raw, "selection", None))

    # ------------------------------------------------------------------ whole positions
    @property
    def state(self) -> GameState:
        """A whole position built from this view alone (the hidden parts filled in a fixed way,
        :meth:`Knowledge.position <risk_env.rules.knowledge.Knowledge.position>`), for the
        engine's functions: on it, legal moves, the action mask, the codec and the
        observations are those of the real position for this seat's decision. Built once;
        read it, do not change it (:meth:`sample_state` gives positions to play on)."""
        if self._state is None:
            self._state = self.knowledge.fixed_position(self.game)
        return self._state

    def sample_state(self, rng: np.random.Generator | int | None = None) -> GameState:
        """A new position for look-ahead, its hidden parts (the other hands, the draw pile, the
        other players' missions, the generator of the dice to come) resampled from ``rng``
        consistently with what this seat knows (a seed or ``None`` makes a generator).
        ``game.apply`` on it is safe."""
        g = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        return self.knowledge.position(self.game, g)

    def copy_state(self) -> GameState:
        """A new copy of :attr:`state` (the hidden parts filled in a fixed way), to play on."""
        return self.knowledge.position(self.game)

    @property
    def codec(self) -> ActionCodec:
        """The action codec (action ids <-> moves) of this game."""
        if self._codec is None:
            self._codec = _codec_for(self.game)
        return self._codec

    # ------------------------------------------------------------------ board
    @property
    def owner(self) -> np.ndarray:
        """int64 ``(T,)`` read-only: owner seat per territory (``num_players`` = the 2-player neutral or the
        allied army, -1 unclaimed)."""
        return _ro(self.knowledge.public.owner)

    @property
    def armies(self) -> np.ndarray:
        """int32 ``(T,)`` read-only: armies per territory."""
        return _ro(self.knowledge.public.armies)

    @property
    def mine(self) -> np.ndarray:
        """bool ``(T,)``: territories this seat owns."""
        return self.knowledge.public.owner == self.seat

    def territories_of(self, seat: int | None = None) -> np.ndarray:
        """int64 ids of the territories ``seat`` (default: this seat) owns, ascending."""
        return np.flatnonzero(self.knowledge.public.owner == (self.seat if seat is None else seat))

    def owned_continents(self, seat: int | None = None) -> list[int]:
        """Continent ids that ``seat`` (default: this seat) owns entirely."""
        owned = self.knowledge.public.owner == (self.seat if seat is None else seat)
        return [c for c, idx in enumerate(self.game.continent_idx) if owned[idx].all()]

    def income(self, seat: int | None = None) -> int:
        """Turn-start reinforcements of ``seat`` (default: this seat), cards excluded (docs/rules.md §4.1)."""
        return self.game.income(self.knowledge.public, self.seat if seat is None else seat)

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
        """The owner id of a variant's own army, the allied army (``two_player="allied"``,
        docs/rules.md §7), else -1 (:attr:`Game.army <risk_env.rules.engine.Game.army>`)."""
        return self.game.army

    @property
    def commanding_allied(self) -> bool:
        """True when this seat decides for the allied army now (its sub-turn after the
        opponent's attacks, docs/rules.md §7)."""
        s = self.knowledge.public
        return s.player == self.game.army >= 0 and s.phase != Phase.DEFEND and self.game.current_player(s) == self.seat

    @property
    def alive(self) -> tuple[bool, ...]:
        return tuple(self.knowledge.public.alive)

    @property
    def hand(self) -> tuple[int, ...]:
        """This seat's card ids, ascending (territory cards ``0..T-1``, then wilds)."""
        return tuple(sorted(self.knowledge.hand))

    @property
    def hand_symbols(self) -> tuple[int, ...]:
        """Symbols of :attr:`hand` (0 infantry, 1 cavalry, 2 artillery, 3 wild)."""
        sym = self.game.card_symbol
        return tuple(sym[c] for c in self.hand)

    @property
    def card_counts(self) -> tuple[int, ...]:
        """Number of cards each seat holds (public information)."""
        return self.knowledge.card_counts

    @property
    def deck_size(self) -> int:
        """Cards left in the draw pile (public information; their order is not)."""
        return self.knowledge.deck_size

    @property
    def discard(self) -> tuple[int, ...]:
        """The discard pile's card ids (the sets traded so far, face up)."""
        return tuple(self.knowledge.public.discard)

    @property
    def sets_traded(self) -> int:
        return self.knowledge.public.sets_traded

    def next_trade_value(self, comp: int = 3) -> int:
        """Armies the next set traded in the game is worth (composition ``comp`` matters only
        for ``fixed_by_symbol``; default one of each); 0 without cards or under ``card_trade="stars"``,
        whose trades are valued by stars (:func:`risk_env.rules.cards.stars_value`) (docs/rules.md §4.1, §6):
        :meth:`Game.next_set_value <risk_env.rules.engine.Game.next_set_value>` after the sets traded so far."""
        return self.game.next_set_value(self.knowledge.public.sets_traded, comp)

    # ------------------------------------------------------------------ turn
    @property
    def phase(self) -> Phase:
        return Phase(self.knowledge.public.phase)

    @property
    def player(self) -> int:
        """Seat on turn."""
        return self.knowledge.public.player

    @property
    def current_player(self) -> int:
        """Seat deciding now (the defender in the defend phase), -1 when the game is over."""
        return self.game.current_player(self.knowledge.public)

    @property
    def is_my_decision(self) -> bool:
        return self.game.current_player(self.knowledge.public) == self.seat

    @property
    def turn(self) -> int:
        return self.knowledge.public.turn

    @property
    def steps(self) -> int:
        """Moves made in the game so far (a new decision of a new move has a new count)."""
        return self.knowledge.public.steps

    @property
    def to_place(self) -> int:
        """Reinforcements left to place this phase (on-turn seat)."""
        return self.knowledge.public.to_place

    @property
    def setup_left(self) -> int:
        """Setup armies this seat still has to place."""
        return self.knowledge.public.setup_left[self.seat]

    @property
    def placing_neutral(self) -> bool:
        """True when the pending setup placement is the neutral's army (2-player setup, docs/rules.md §7)."""
        s = self.knowledge.public
        return s.phase == Phase.SETUP_PLACE and s.setup_step == 2

    @property
    def my_mission(self) -> int:
        """The seat's own secret mission (an index into
        :data:`risk_env.rules.missions.MISSIONS`), or -1 without ``secret_missions``
        (docs/rules.md §8). Other players' missions are hidden: a view does not hold them."""
        return self.knowledge.mission

    @property
    def capitals(self) -> tuple[int, ...]:
        """Every player's capital territory by seat (-1 while not chosen); empty without
        ``capitals`` (docs/rules.md §8). Capitals are public."""
        return tuple(int(t) for t in self.knowledge.public.capitals)

    @property
    def forced_trade(self) -> bool:
        return self.knowledge.public.forced

    @property
    def battle(self) -> tuple[int, int]:
        """``(source, target)`` of the pending defence or occupation, ``(-1, -1)`` otherwise."""
        s = self.knowledge.public
        return (s.att_src, s.att_dst) if s.phase in (Phase.DEFEND, Phase.OCCUPY) else (-1, -1)

    @property
    def selection(self) -> Selection:
        """The codec's pending sub-step selection at this decision (a new copy at each read)."""
        return Selection(*self._selection)

    def occupy_range(self) -> tuple[int, int]:
        """``(min, max)`` armies that may stand in the conquered territory (occupy phase only).

        Raises:
            StateError: not in the occupy phase.
        """
        if self.knowledge.public.phase != Phase.OCCUPY:
            raise StateError(f"occupy_range() needs the occupy phase, not {self.phase.name.lower()}")
        return self.game.occupy_range(self.knowledge.public)

    def legal_moves(self) -> list[Move]:
        """Every legal complete move for the deciding seat (see :meth:`Game.legal_moves`)."""
        return self.game.legal_moves(self.state)

    def is_legal(self, move: Move) -> bool:
        return self.game.is_legal(self.state, move)

    def mask(self) -> np.ndarray:
        """int8 ``(N,)`` action mask for the next sub-step."""
        return self.codec.mask(self.state, self.selection)

    def __eq__(self, other: object) -> bool:
        """Views of games under the same rules, by the same seat knowing the same things, at the
        same pending selection."""
        if not isinstance(other, GameView):
            return NotImplemented
        return self.game.config == other.game.config and self._selection == other._selection and self.knowledge == other.knowledge

    __hash__ = None  # type: ignore[assignment]

    def _repr_svg_(self) -> str:
        """The board as SVG, for Jupyter (public information only: owners, armies, card counts)."""
        from ..records.svg import board_svg

        return board_svg(self.game, self.state, selection=self.selection)

    def __repr__(self) -> str:
        return f"GameView(seat={self.seat}, phase={self.phase.name}, turn={self.turn}, player={self.player})"
