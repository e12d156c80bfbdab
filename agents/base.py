"""The agent interface, and the helper that turns a complete move into action ids.

Every agent, learned or scripted, plays through the PettingZoo AEC loop::

    action_id = agent.act(observation, info)     # int, legal under observation["action_mask"]
    agent.reset(seed)                            # before each game: seeds the agent's own generator
    agent.name                                   # a short label for reports

``observation`` is the env's ``{"observation": float32 (D,), "action_mask": int8 (N,)}``;
``info`` is the env's info dict for that agent. Scripted agents read ``info["view"]``,
a :class:`~risk_env.envs.view.GameView`: what the agent's seat may know at this
decision (its own hand and mission, the public board, the other players' card
counts) and nothing more. That key is the one channel: the AEC env puts it in the
info of the agent to act, and :func:`risk_env.tools.match.play_match`, the
single-agent env (for its opponents) and the command line give it the same way, so
a plain loop works::

    env = risk_env.env(num_players=4)
    env.reset(seed=0)
    players = {a: load_agent(name, seed=i) for i, (a, name) in
               enumerate(zip(env.possible_agents, ["aggressive", "balanced", "continent", "random"]))}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else players[agent].act(obs, info))

An env made with ``views=False`` (for clients that turn info entries into tensors)
leaves the view out; add it with ``{**info, "view": env.unwrapped.view(agent)}``.
Agents whose :attr:`Agent.needs_view` is False (random, SB3 policies on flat
observations) ignore it. (The single-agent env of 0.1.0 gave its opponents
``info["game"]``, ``info["state"]`` and ``info["seat"]`` instead: :func:`view_from_info`
still reads them, with a ``DeprecationWarning``.)

Scripted agents (:class:`ScriptedAgent`) choose a complete
:class:`~risk_env.rules.moves.Move` (``attack Alaska->Kamchatka dice=3``) and
:meth:`ActionCodec.move_to_action <risk_env.envs.codec.ActionCodec.move_to_action>` plays it through the action codec's sub-steps
(source, then target, then dice or an amount), one action id per call. The
env keeps the codec's pending selection (``env.selection``, also
``view.selection``), so a scripted agent re-plans after each completed move and
continues the plan between sub-steps.

Determinism: an agent's choices depend only on what it is shown and on its
own ``numpy`` generator, seeded by ``reset(seed)`` (or the constructor).
"""

from __future__ import annotations

import abc
import os
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from risk_env.envs.action_input import as_integer, describe_action
from risk_env.envs.codec import ActionCodec, Selection
from risk_env.envs.opponents import check_fits_game, check_game_type
from risk_env.envs.view import GameView
from risk_env.errors import ConfigError, IllegalActionError, RiskError, check_flag, check_seed
from risk_env.rules.allied import allied_move as _allied_move
from risk_env.rules.engine import Game
from risk_env.rules.moves import Move
from risk_env.rules.state import GameState

__all__ = [
    "AgentLike",
    "Agent",
    "ScriptedAgent",
    "CallableAgent",
    "move_to_action",
    "amount_action",
    "view_from_info",
    "check_fits_game",
    "check_game_type",
    "observation_mask",
    "observed_vector",
    "check_flag",
    "check_name",
    "allied_move",
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
        check_seed(seed, allow_none=True, allow_sequence=True)
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; ``seed`` re-seeds the agent's generator (None: fresh entropy).

        Raises:
            ConfigError: ``seed`` is not None, an integer >= 0 or a numpy ``SeedSequence``
                (the generator is unchanged then).
        """
        check_seed(seed, allow_none=True, allow_sequence=True)
        self.rng = np.random.default_rng(seed)

    @abc.abstractmethod
    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        """A legal action id for the current decision."""

    def check_game(self, game: Game) -> None:
        """Refuse, before its first decision, a game this agent cannot play: a learned policy built for other rules
        (another map, player count or rule switch changes its observation or action ids). Scripted agents play every
        game: the default refuses none.

        Raises:
            AgentRulesError: the agent cannot play ``game`` (raise it with the agent's name and what differs:
                ``AgentRulesError(self.name, "it reads ...")``; a plain :class:`ConfigError` is named by
                :func:`check_fits_game`).
            ConfigError: ``game`` is not a :class:`~risk_env.rules.engine.Game`.
        """
        check_game_type(game)

    def __call__(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        return self.act(observation, info)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def view_from_info(info: Mapping[str, Any] | None, who: str = "this agent") -> GameView:
    """``info["view"]``, or a :class:`RiskError` explaining how to provide it (``who``: the agent that needs it,
    and why, as the message's subject).

    (Deprecated: an info without a view but with ``info["game"]``, ``info["state"]`` and
    ``info["seat"]``, what the single-agent env of 0.1.0 gave its opponents, gives the view of
    that seat, with a ``DeprecationWarning``.)
    """
    view = info.get("view") if info is not None else None
    if view is None and info is not None and all(k in info for k in ("game", "state", "seat")):
        warnings.warn(
            "info['game'], info['state'] and info['seat'] are deprecated: agents read info['view'] "
            "(a risk_env.envs.view.GameView: GameView(game, state, seat))",
            DeprecationWarning,
            stacklevel=3,
        )
        view = GameView(info["game"], info["state"], int(info["seat"]), info.get("codec"), info.get("selection"))
    if not isinstance(view, GameView):
        raise RiskError(
            f"{who} needs info['view'] (a risk_env.envs.view.GameView): pass the env's own "
            "info as env.last() returns it (an env made with views=False leaves it out), or add "
            "info = {**info, 'view': env.unwrapped.view(agent)}"
        )
    return view


def shown_spec(spec: str, limit: int = 60) -> str:
    """``repr(spec)`` for a message, cut after ``limit`` characters (with the spec's length) when it is longer.

    >>> shown_spec("balancd")
    "'balancd'"
    >>> shown_spec("a" * 5000)
    "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'... (5000 characters)"
    """
    return repr(spec) if len(spec) <= limit else f"{spec[:limit]!r}... ({len(spec)} characters)"


def path_is(path: str | os.PathLike[str], kind: str) -> bool:
    """Whether ``path`` is a ``"file"``, a ``"dir"`` or ``"exists"`` at all, False where the name cannot be a
    path (too long, a loop of links, a NUL byte): the agent loaders probe text specs that may be no path at all
    (``"balancd"``, 5,000 characters), and such a probe is no answer.

    Raises:
        RiskError: the system refuses to look (no permission on a folder of the path): a file may be there, and
            "no such file" would be false; the message names the path and the system's reason.
    """
    p = Path(path)
    try:
        return p.is_file() if kind == "file" else p.is_dir() if kind == "dir" else p.exists()
    except PermissionError as e:
        raise RiskError(f"cannot look for {shown_spec(str(path))}: {e.strerror or e} (a folder of the path)") from None
    except (OSError, ValueError):
        return False


def _given(value: Any) -> str:
    """A short description of a value an agent was given, for error messages."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def observation_mask(
    observation: Any,
    who: str,
    num_actions: int | None = None,
    keys: tuple[str, ...] = (),
    also: str = "",
    info: Mapping[str, Any] | None = None,
) -> np.ndarray:
    """The legal ids of an observation given to :meth:`Agent.act`, as a bool array, after checking that
    ``observation`` is what the env gives: a dict holding ``"action_mask"``, a 1-d array (or list) of 0/1
    (the env's int8; bools too), one entry per action id, at least one of them 1. Every shipped agent that
    reads the mask checks it here, so a bad observation gets one form of message.

    Args:
        observation: the value given to ``act``.
        who: the agent, as messages begin (``"policy 'ppo-2p'"``).
        num_actions: the mask's length when the agent knows it (its model's action count).
        keys: the other entries the agent reads (``("observation",)`` for a flat policy).
        also: words added to the description of the dict (another form the agent takes).
        info: the info given to ``act``: without ``num_actions``, the game's action count is read from its
            ``info["view"]`` where it has one (the seat's own view: nothing hidden from the seat is read).

    >>> observation_mask({"action_mask": np.array([0, 1, 1], dtype=np.int8)}, "agent 'x'")
    array([False,  True,  True])
    >>> observation_mask({"action_mask": [0, 2, 1]}, "agent 'x'", 3)
    Traceback (most recent call last):
    ...
    risk_env.errors.RiskError: agent 'x': observation['action_mask'] must be a 1-d array of 0/1 (1 = legal) for each ...

    Raises:
        RiskError: ``observation`` is not a dict, lacks ``"action_mask"`` or one of ``keys``; the mask is not a
            1-d array of 0/1 (a NaN, a 2, text, ``None``, another shape) or not ``num_actions`` long; the mask has
            no legal action (an all-zero mask). The message names what was given and what is expected.
    """
    if num_actions is None and info is not None:
        view = info.get("view") if isinstance(info, Mapping) else None
        num_actions = view.codec.n if isinstance(view, GameView) else None
    raw = observation.get("action_mask") if isinstance(observation, Mapping) else None
    if (
        type(raw) is np.ndarray
        and raw.dtype == np.int8
        and raw.ndim == 1
        and (num_actions is None or raw.shape[0] == num_actions)
    ):
        # the env's own mask, int8 0/1 with a 1, read quickly (anything else: the checks below)
        data = raw.tobytes()
        if b"\x01" in data and not data.translate(None, b"\x00\x01"):
            return raw.astype(np.bool_)
    count = f"each of the {num_actions} action ids" if num_actions is not None else "each action id"
    names = [repr(k) for k in (*keys, "action_mask")]
    wanted = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    form = f"the env's observation, a dict with {wanted} (0/1 for {count}){also}"
    if not isinstance(observation, Mapping):
        raise RiskError(f"{who} needs {form}, got {_given(observation)}")
    missing = [k for k in (*keys, "action_mask") if k not in observation]
    if missing:
        has = ", ".join(repr(k) for k in observation) or "no keys"
        raise RiskError(f"{who} needs {form}; the observation has no {' or '.join(map(repr, missing))} (it has {has})")
    raw = observation["action_mask"]
    try:
        mask = np.asarray(raw)
    except (ValueError, TypeError):  # a ragged list
        mask = np.asarray(None)
    bad = None
    if mask.ndim != 1 or mask.shape[0] == 0:
        bad = _given(raw) if mask.ndim != 1 or isinstance(raw, np.ndarray) else f"{type(raw).__name__} of length 0"
    elif mask.dtype == np.bool_:
        pass
    elif mask.dtype.kind in "iuf":
        off = (mask != 0) & (mask != 1)  # (NaN is neither)
        if off.any():
            at = int(np.flatnonzero(off)[0])
            bad = f"the value {mask[at].item()!r} at id {at}"
    else:
        bad = f"values of dtype {mask.dtype}"
    if bad is not None:
        raise RiskError(f"{who}: observation['action_mask'] must be a 1-d array of 0/1 (1 = legal) for {count}, got {bad}")
    if num_actions is not None and mask.shape[0] != num_actions:
        raise RiskError(
            f"{who}: observation['action_mask'] has {mask.shape[0]} entries, expected {num_actions} (one for each action id)"
        )
    legal = mask if mask.dtype == np.bool_ else mask != 0
    if not legal.any():
        raise RiskError(f"{who} was asked to act with no legal action (an all-zero mask)")
    return legal


def observed_vector(observation: Mapping[str, Any], who: str, shape: tuple[int, ...] | None) -> np.ndarray:
    """``observation["observation"]`` (the flat observation) as float32, or a :class:`RiskError` when it is no
    vector of numbers (None, text, another number of dimensions) naming what was given and ``shape``, the
    model's. A vector of another length is left to the caller, which knows what it means (another map)."""
    raw = observation["observation"]
    try:
        x = np.asarray(raw, dtype=np.float32)
    except (ValueError, TypeError):  # text, a ragged list
        x = np.asarray(None)
    if raw is None or x.ndim != 1:
        raise RiskError(f"{who}: observation['observation'] must be a float array of shape {shape}, got {_given(raw)}")
    return x


def check_name(value: Any, who: str) -> str | None:
    """``value`` when it is None (the agent's default name) or a non-empty text, else a :class:`ConfigError`
    naming ``who`` (``"GraphNetAgent: name must be a non-empty text or None, got 5"``).

    Raises:
        ConfigError: ``value`` is a number, an empty or blank text, or anything else.
    """
    if value is None or (isinstance(value, str) and value.strip()):
        return value
    raise ConfigError(f"{who}: name must be a non-empty text or None, got {value!r}")


# ---------------------------------------------------------------------- moves -> action ids
# The mapping lives in the codec (ActionCodec.move_to_action / move_to_actions); these
# functions keep the agents' long-standing import path.
def amount_action(codec: ActionCodec, lo: int, hi: int, desired: int) -> int:
    """:meth:`ActionCodec.amount_action <risk_env.envs.codec.ActionCodec.amount_action>`:
    the legal amount id for ``lo..hi`` whose count is closest to ``desired``.

    >>> import risk_env
    >>> codec = risk_env.ActionCodec(risk_env.Game(num_players=3))
    >>> amount_action(codec, 1, 30, 12) - codec.amount  # level 3 is 11 armies (see amount_of)
    3
    """
    return codec.amount_action(lo, hi, desired)


def move_to_action(codec: ActionCodec, state: GameState, move: Move, selection: Selection | None = None) -> int:
    """:meth:`ActionCodec.move_to_action <risk_env.envs.codec.ActionCodec.move_to_action>`:
    the next action id that plays ``move`` in ``state`` from the pending ``selection``
    (the env's ``selection``, or a view's :attr:`GameView.selection`; None: nothing selected).

    Raises:
        RiskError: ``move`` cannot be played in this phase, or the trade's cards are not a set.
    """
    return codec.move_to_action(state, move, selection)


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

    def choose_allied_move(self, view: GameView) -> Move:
        """A complete legal move for the allied army, which ``view.seat`` commands now
        (``two_player="allied"``, docs/rules.md §7): :func:`allied_move` by default."""
        return allied_move(view)

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        view = view_from_info(info, f"agent {self.name!r} (a scripted agent: it plays from the view)")
        key = (view.steps, int(view.phase), view.player)
        plan = self._plan if self._plan_key == key else None
        if plan is None:
            plan = self.choose_allied_move(view) if view.commanding_allied else self.choose_move(view)
            self._plan, self._plan_key = plan, key
        return view.codec.move_to_action(view.state, plan, view.selection)


def allied_move(view: GameView) -> Move:
    """A simple, sensible move for the allied army commanded by ``view.seat`` (docs/rules.md §7):
    the allied army variant's default for scripted agents (:func:`risk_env.rules.allied.allied_move`).

    Raises:
        RiskError: the allied army does not act now.
    """
    return _allied_move(view)


class CallableAgent(Agent):
    """Wraps a plain function ``f(observation, info) -> action id`` as an :class:`Agent`.

    ``reset(seed)`` calls ``f.reset(seed)`` when ``f`` has one.

    Args:
        fn: the policy function.
        name: label (default: ``fn.__name__``).
        needs_view: False if ``fn`` never reads ``info["view"]`` (drivers that give views only to
            agents that need them, such as the single-agent env's opponents, then skip it).

    Raises:
        RiskError: ``fn`` is not callable.
        ConfigError: ``needs_view`` is not a bool.
    """

    def __init__(self, fn: Callable[..., Any], name: str | None = None, needs_view: bool = True) -> None:
        if not callable(fn):
            raise RiskError(f"CallableAgent needs a callable f(observation, info) -> int, got {type(fn).__name__}")
        self.needs_view = check_flag(needs_view, "needs_view", "CallableAgent")
        name = check_name(name, "CallableAgent")
        super().__init__(None)
        self.fn = fn
        self.name = str(name or getattr(fn, "__name__", type(fn).__name__))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        r = getattr(self.fn, "reset", None)
        if callable(r):
            r(seed)

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        a = self.fn(observation, info)
        out = as_integer(a)
        if out is None:  # (not coerced: 3.7 is no id 3)
            raise IllegalActionError(f"{self.name}: an action id is an integer, got {describe_action(a)}")
        return out
