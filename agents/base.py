"""The agent interface, and the helper that turns a complete move into action ids.

Every agent, learned or scripted, plays through the PettingZoo AEC loop::

    action_id = agent.act(observation, info)     # int, legal under observation["action_mask"]
    agent.reset(seed)                            # before each game: seeds the agent's own generator
    agent.name                                   # a short label for reports

``observation`` is the env's ``{"observation": float32 (D,), "action_mask": int8 (N,)}``;
``info`` is the env's info dict for that agent. Scripted agents read
``info["view"]``, a :class:`~risk_env.envs.view.GameView` of the live game from the
agent's seat: the AEC env's own info carries it for the agent to act (built on
first read, see :class:`risk_env.envs.aec.AgentInfo`), so a plain loop works::

    env = risk_env.env(num_players=4)
    env.reset(seed=0)
    players = {a: load_agent(name, seed=i) for i, (a, name) in
               enumerate(zip(env.possible_agents, ["aggressive", "balanced", "continent", "random"]))}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else players[agent].act(obs, info))

A copy of the info (``dict(info)``, ``{**info}``) drops the view; then add it back
with ``{**info, "view": env.unwrapped.view(agent)}``. The single-agent env gives
its opponents ``info["game"]``, ``info["state"]`` and ``info["seat"]``, from which
the view is built. Agents whose :attr:`Agent.needs_view` is False (random, SB3
policies) ignore it.

Scripted agents (:class:`ScriptedAgent`) choose a complete
:class:`~risk_env.rules.moves.Move` (``attack Alaska->Kamchatka dice=3``) and
:func:`move_to_action` plays it through the action codec's sub-steps
(source, then target, then dice or an amount), one action id per call. The
codec keeps the pending selection in the state, so a scripted agent re-plans
after each completed move and continues the plan between sub-steps.

Determinism: an agent's choices depend only on what it is shown and on its
own ``numpy`` generator, seeded by ``reset(seed)`` (or the constructor).
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from risk_env.envs.codec import ActionCodec, amount_of
from risk_env.envs.view import GameView
from risk_env.errors import RiskError
from risk_env.rules.cards import composition_of
from risk_env.rules.moves import Move, MoveKind
from risk_env.rules.state import GameState, Phase

__all__ = [
    "AgentLike",
    "Agent",
    "ScriptedAgent",
    "CallableAgent",
    "move_to_action",
    "amount_action",
    "view_from_info",
]


@runtime_checkable
class AgentLike(Protocol):
    """Structural type of an agent: anything with ``name``, ``act`` and ``reset``."""

    name: str

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


class Agent(abc.ABC):
    """Base class of every shipped agent.

    Subclasses implement :meth:`act`; :meth:`reset` re-seeds :attr:`rng`.

    Attributes:
        name: short label used in reports (class attribute; instances may override).
        needs_view: True if :meth:`act` reads ``info["view"]`` (scripted agents).
        rng: the agent's own ``numpy.random.Generator``.
    """

    name: str = "agent"
    needs_view: bool = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; ``seed`` re-seeds the agent's generator (None: fresh entropy)."""
        self.rng = np.random.default_rng(seed)

    @abc.abstractmethod
    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        """A legal action id for the current decision."""

    def __call__(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        return self.act(observation, info)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def view_from_info(info: Mapping[str, Any] | None, who: str = "this agent") -> GameView:
    """``info["view"]``; else a view built from ``info["game"]``, ``info["state"]`` and
    ``info["seat"]`` (what :class:`risk_env.envs.single_agent.RiskSingleAgentEnv` gives its
    opponents); else a :class:`RiskError` explaining how to provide it."""
    view = info.get("view") if info is not None else None
    if view is None and info is not None and all(k in info for k in ("game", "state", "seat")):
        view = GameView(info["game"], info["state"], int(info["seat"]), info.get("codec"))
    if not isinstance(view, GameView):
        raise RiskError(
            f"{who} is a scripted agent and needs info['view'] (a risk_env.envs.view.GameView): pass the env's own "
            "info as env.last() returns it (a copy such as dict(info) drops the view), or add "
            "info = {**info, 'view': GameView.from_env(env, agent)}"
        )
    return view


# ---------------------------------------------------------------------- moves -> action ids
def amount_action(codec: ActionCodec, lo: int, hi: int, desired: int) -> int:
    """The legal amount id for the range ``lo..hi`` whose count is closest to ``desired``
    (ties go to the smaller count). See :func:`risk_env.envs.codec.amount_of`.

    >>> import risk_env
    >>> codec = risk_env.ActionCodec(risk_env.Game(num_players=3))
    >>> amount_action(codec, 1, 30, 12) - codec.amount, amount_of(3, 1, 30)
    (3, 11)
    """
    desired = min(max(int(desired), lo), hi)
    best, best_d, prev = 0, None, None
    for j in range(codec.K):
        c = amount_of(j, lo, hi, codec.K)
        if c == prev:
            continue  # repeated counts are illegal levels
        prev = c
        d = abs(c - desired)
        if best_d is None or d < best_d:
            best, best_d = j, d
    return codec.amount + best


def move_to_action(codec: ActionCodec, state: GameState, move: Move) -> int:
    """The next action id that plays ``move`` in ``state`` through the codec's sub-steps.

    Call it once per decision with the same move until the move completes (the
    codec's pending selection, ``state.sel_src / sel_dst / sel_trade``, says how
    far it got). It handles:

    * a battle to continue: the dice or blitz id at the top of the attack
      phase when ``move`` attacks the last battle's pair again;
    * pending selections that do not match ``move`` (the codec has no cancel):
      the pending decision is completed as close to ``move`` as it can (a
      mismatched attack source attacks its first target with one die);
    * amounts (placing, occupying, fortifying): the legal level whose count is
      closest to ``move.count`` (:func:`amount_action`), so the count played
      may differ from ``move.count`` when the range is wider than the 10 levels;
    * trades: the id of ``move``'s set composition
      (:func:`risk_env.rules.cards.composition_of`); when the codec then asks for the
      +2 bonus territory, ``move.bonus`` if it is an option
      (:meth:`ActionCodec.bonus_options`), else the first option. The codec
      picks the other cards itself, so the traded cards may differ from
      ``move.cards`` (same composition, same value).

    Args:
        codec: the game's :class:`~risk_env.envs.codec.ActionCodec`.
        state: the live state (not changed).
        move: a complete move, legal in ``state`` (see :meth:`Game.legal_moves`).

    Returns:
        an action id that is legal under ``codec.mask(state)``.

    Raises:
        RiskError: ``move`` cannot be played in this phase (e.g. an attack in the fortify phase),
            or the trade's cards are not a set.
    """
    g = codec.game
    s = state
    ph = s.phase
    k = move.kind
    if ph == Phase.CLAIM and k == MoveKind.CLAIM:
        return int(move.src)
    if ph == Phase.SETUP_PLACE and k in (MoveKind.PLACE, MoveKind.PLACE_NEUTRAL):
        return int(move.src)
    if ph == Phase.REINFORCE and k in (MoveKind.TRADE, MoveKind.PLACE):
        if s.sel_trade >= 0:
            cands = codec.bonus_options(s, s.sel_trade)
            if k == MoveKind.TRADE and move.bonus in cands:
                return int(move.bonus)
            return int(cands[0])
        if s.sel_src >= 0:
            want = move.count if (k == MoveKind.PLACE and move.src == s.sel_src) else s.to_place
            return amount_action(codec, 1, s.to_place, want)
        if k == MoveKind.TRADE:
            comp = composition_of([g.card_symbol[c] for c in move.cards])
            if comp < 0:
                raise RiskError(f"{g.move_to_text(move)!r}: those cards are not a set")
            return codec.trade + comp
        return int(move.src)
    if ph == Phase.ATTACK and k in (MoveKind.ATTACK, MoveKind.BLITZ, MoveKind.END_ATTACK):
        roll = codec.blitz if k == MoveKind.BLITZ else codec.dice + int(move.count) - 1
        if k == MoveKind.END_ATTACK:
            return codec.end
        if s.sel_src < 0:
            if (s.att_src, s.att_dst) == (move.src, move.dst) and codec.can_continue(s):
                return roll  # roll again in the last battle
            return int(move.src)
        if s.sel_src != move.src:  # no cancel: attack from the selected source instead
            return int(g.attack_targets(s, s.sel_src)[0]) if s.sel_dst < 0 else codec.dice
        if s.sel_dst < 0:
            return int(move.dst)
        if s.sel_dst != move.dst:
            return codec.dice
        return roll
    if ph == Phase.DEFEND and k == MoveKind.DEFEND:
        return codec.dice + int(move.count) - 1
    if ph == Phase.OCCUPY and k == MoveKind.OCCUPY:
        lo, hi = g.occupy_range(s)
        return amount_action(codec, lo, hi, move.count)
    if ph == Phase.FORTIFY and k in (MoveKind.FORTIFY, MoveKind.END_TURN):
        if s.sel_dst >= 0:  # only an amount is accepted now
            same = k == MoveKind.FORTIFY and (move.src, move.dst) == (s.sel_src, s.sel_dst)
            return amount_action(codec, 1, int(s.armies[s.sel_src]) - 1, move.count if same else 1)
        if k == MoveKind.END_TURN:
            return codec.end
        if s.sel_src < 0:
            return int(move.src)
        if s.sel_src != move.src:  # no cancel: fortify from the selected source instead
            return int(np.flatnonzero(g.fortify_reach(s, s.sel_src))[0])
        return int(move.dst)
    raise RiskError(f"{g.move_to_text(move)!r} cannot be played in the {Phase(ph).name.lower()} phase")


# ---------------------------------------------------------------------- scripted agents
class ScriptedAgent(Agent):
    """Base of rule-based agents: implement :meth:`choose_move` (a complete move for the
    deciding seat, given a :class:`GameView`); :meth:`act` turns it into action ids.

    The chosen move is kept while its sub-steps are played (until the state's move
    counter advances), so the agent's generator is drawn once per complete move.
    """

    needs_view = True

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._plan: Move | None = None
        self._plan_key: tuple[int, int, int] | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = None
        self._plan_key = None

    @abc.abstractmethod
    def choose_move(self, view: GameView) -> Move:
        """A complete legal move for the deciding seat (``view.seat``)."""

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        view = view_from_info(info, f"agent {self.name!r}")
        s = view.state
        key = (s.steps, s.phase, s.player)
        plan = self._plan if self._plan_key == key else None
        if plan is None:
            plan = self.choose_move(view)
            self._plan, self._plan_key = plan, key
        return move_to_action(view.codec, s, plan)


class CallableAgent(Agent):
    """Wraps a plain function ``f(observation, info) -> action id`` as an :class:`Agent`.

    ``reset(seed)`` calls ``f.reset(seed)`` when ``f`` has one.

    Args:
        fn: the policy function.
        name: label (default: ``fn.__name__``).
        needs_view: set True if ``fn`` reads ``info["view"]`` (it gets one either way in
            :func:`risk_env.tools.evaluation.play_game`).
    """

    def __init__(self, fn: Callable[..., Any], name: str | None = None, needs_view: bool = False) -> None:
        if not callable(fn):
            raise RiskError(f"CallableAgent needs a callable f(observation, info) -> int, got {type(fn).__name__}")
        super().__init__(None)
        self.fn = fn
        self.name = str(name or getattr(fn, "__name__", type(fn).__name__))
        self.needs_view = needs_view

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        r = getattr(self.fn, "reset", None)
        if callable(r):
            r(seed)

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        return int(self.fn(observation, info))
