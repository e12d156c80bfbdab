"""Opponents embedded in the single-agent env (:mod:`risk_env.envs.single_agent`): agent specs
resolved by a resolver the caller gives, the pool of baselines and frozen snapshots that
self-play samples from, and what an agent receives at a decision outside the AEC env
(:func:`agent_inputs`: the lazy observation and the info).

The envs do not import the agents: an agent spec that is not an agent already (a baseline
name, a model path...) is built by a *resolver*, ``resolve(spec, seed) -> agent``, and a
snapshot path by a *snapshot loader*, ``load_snapshot(path, deterministic) -> agent``. Each
function here takes them as arguments; when none is given, the defaults set by
:func:`set_agent_resolver` apply (``import risk_env`` sets them to
:func:`risk_env.agents.load_agent` and :class:`risk_env.agents.MaskablePPOAgent`, imported
when first used).
"""

from __future__ import annotations

import contextlib
import random
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import PurePath
from typing import Any, TypeVar

import numpy as np

from ..errors import AgentRulesError, ConfigError, RiskError, check_seed
from ..rules.engine import Game
from .observation import ObservationEncoder
from .view import GameView

__all__ = [
    "AgentResolver",
    "LazyObservation",
    "OpponentPool",
    "SnapshotLoader",
    "agent_inputs",
    "agent_resolver",
    "check_fits_game",
    "check_game_type",
    "kept_snapshots",
    "preserve_global_rng",
    "reseed",
    "resolve_agent",
    "set_agent_resolver",
]

AgentResolver = Callable[[Any, "int | None"], Any]
"""``resolve(spec, seed) -> agent``: builds the agent a spec names (raises on an unknown one)."""

SnapshotLoader = Callable[[str, bool], Any]
"""``load_snapshot(path, deterministic) -> agent``: the frozen learner a snapshot file holds."""

_defaults: dict[str, Any] = {"resolve": None, "load_snapshot": None}


def set_agent_resolver(resolve: AgentResolver | None, load_snapshot: SnapshotLoader | None = None) -> None:
    """Set the resolver and snapshot loader used where none is given (``None`` clears one).

    ``import risk_env`` sets the package's own (the agent registry, imported when first used);
    an application with agents of its own may set others.
    """
    _defaults["resolve"] = resolve
    _defaults["load_snapshot"] = load_snapshot


def agent_resolver() -> tuple[AgentResolver | None, SnapshotLoader | None]:
    """The default resolver and snapshot loader (:func:`set_agent_resolver`)."""
    return _defaults["resolve"], _defaults["load_snapshot"]


class LazyObservation(Mapping):
    """``{"observation", "action_mask"}`` for one seat, encoding the vector only when read.

    Built from the seat's :class:`~risk_env.envs.view.GameView` (what it may know at this
    decision), so the observation object carries nothing the observation itself would not.
    """

    __slots__ = ("_encoder", "_view", "_mask", "_obs")

    def __init__(self, encoder: ObservationEncoder, view: GameView, mask: np.ndarray) -> None:
        self._encoder, self._view, self._mask = encoder, view, mask
        self._obs: np.ndarray | None = None

    def __getitem__(self, key: str) -> np.ndarray:
        if key == "action_mask":
            return self._mask
        if key == "observation":
            if self._obs is None:
                v = self._view
                self._obs = self._encoder.encode(v.state, v.seat, v.selection)
            return self._obs
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(("observation", "action_mask"))

    def __len__(self) -> int:
        return 2


def agent_inputs(
    encoder: ObservationEncoder, view: GameView, mask: np.ndarray, with_view: bool = True
) -> tuple[LazyObservation, dict[str, Any]]:
    """``(observation, info)`` for an agent's ``act`` at ``view``'s decision, as the AEC env
    gives them: the lazy ``{"observation", "action_mask"}`` and ``{"action_mask"}`` (plus
    ``"view"`` with ``with_view``).

    Both hold one fresh writable copy of ``mask`` (int8 ``(N,)``), as every array the AEC env
    hands out is a copy: an agent that writes into it changes nothing, and the caller checks
    the id it returns against its own ``mask``, never the agent's copy.
    """
    own = mask.copy()
    info: dict[str, Any] = {"action_mask": own}
    if with_view:
        info["view"] = view
    return LazyObservation(encoder, view, own), info


@contextlib.contextmanager
def preserve_global_rng() -> Iterator[None]:
    """Restore Python's, numpy's and torch's global generators on exit.

    Loading an SB3 model re-seeds all three (``_setup_model`` calls ``set_random_seed``);
    inside a training process that would silently restart the learner's own sampling.
    :class:`risk_env.agents.MaskablePPOAgent` loads and samples inside it, so an agent
    built from a spec never moves them.
    """
    py_state = random.getstate()
    np_state = np.random.get_state()
    torch = sys.modules.get("torch")
    th_state = torch.get_rng_state() if torch is not None else None
    try:
        yield
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)
        if th_state is not None and "torch" in sys.modules:
            sys.modules["torch"].set_rng_state(th_state)


def resolve_agent(spec: Any, seed: int | None = None, resolve: AgentResolver | None = None) -> Any:
    """An object with ``act(observation, info) -> int`` from ``spec``.

    Args:
        spec: an agent (has ``act``, returned as is), a callable ``f(observation, info)``,
            or a string: a baseline name (``"random"``, ``"balanced"``...), a saved
            MaskablePPO ``.zip`` or ``"module:attr"`` (what the package's resolver,
            :func:`risk_env.agents.load_agent`, accepts).
        seed: seeds an agent built from a spec.
        resolve: builds an agent from a spec that is not one (default: :func:`agent_resolver`'s).

    Raises:
        ConfigError: a spec that names no agent, or no resolver to build one.
    """
    if hasattr(spec, "act"):
        return spec
    resolve = resolve or _defaults["resolve"]
    if resolve is None:
        raise ConfigError(f"cannot build an opponent from {spec!r}: no agent resolver (see set_agent_resolver)")
    try:
        return resolve(spec, seed)
    except (RiskError, FileNotFoundError) as e:
        raise ConfigError(f"cannot build an opponent from {spec!r}: {e}") from None


def check_game_type(game: Any) -> None:
    """Refuse anything but a :class:`~risk_env.rules.engine.Game` given to an agent's ``check_game``.

    Raises:
        ConfigError: ``game`` is not a Game (a RulesConfig, an env, None); the message says what to give.
    """
    if not isinstance(game, Game):
        raise ConfigError(
            f"check_game takes a risk_env.Game (risk_env.Game(rules), or env.unwrapped.game), got {type(game).__name__}"
        )


def check_fits_game(agents: Iterable[Any], game: Game) -> None:
    """Call each agent's ``check_game(game)`` (where it has one: every :class:`risk_env.agents.Agent` does, a plain
    callable need not), so that a policy built for other rules is refused before a game starts, not at its first
    decision. The one check of a table of agents: :func:`risk_env.tools.match.play_match`, the evaluation, the
    command line, the web session and the single-agent env's opponents call it (``risk_env.agents.base`` exports it).

    Args:
        agents: the agents (a list, or a dict's values): objects with ``act(observation, info)``, or callables.

    Raises:
        AgentRulesError: an agent cannot play ``game`` (the message names the agent and the size that differs;
            an agent without a string ``name`` raises its own :class:`ConfigError`).
        ConfigError: ``game`` is not a Game; ``agents`` is one agent or text, not a collection of agents; an entry is
            not an agent (None, a number).
    """
    check_game_type(game)
    if isinstance(agents, (str, bytes)) or hasattr(agents, "act") or not isinstance(agents, Iterable):
        raise ConfigError(f"check_fits_game takes a list of agents, got {type(agents).__name__} {agents!r:.60}")
    for i, agent in enumerate(agents):
        check = getattr(agent, "check_game", None)
        if callable(check):
            try:
                check(game)
            except ConfigError as e:
                if isinstance(e, AgentRulesError):
                    raise
                name = getattr(agent, "name", None)
                if isinstance(name, str):
                    raise AgentRulesError(name, str(e)) from None
                raise
        elif not (callable(getattr(agent, "act", None)) or callable(agent)):
            raise ConfigError(
                f"entry {i} of the agents is not an agent: {agent!r:.60} (an object with act(observation, info), or a callable)"
            )


def reseed(agent: Any, seed: int) -> None:
    """Give a stateful agent a fresh per-episode seed, if it accepts one.

    Raises:
        ConfigError: ``seed`` is not an integer >= 0 (nothing is re-seeded then).
    """
    check_seed(seed)
    fn = getattr(agent, "reset", None)
    if callable(fn):
        try:
            fn(seed=seed)
            return
        except TypeError:
            pass
    if isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = np.random.default_rng(seed)


T = TypeVar("T")


def kept_snapshots(snapshots: Sequence[T], max_snapshots: int) -> list[T]:
    """The snapshots a pool of at most ``max_snapshots`` keeps, oldest first: the very first one (an anchor) and the
    newest ``max_snapshots - 1``; the newest alone for ``max_snapshots`` 1. The one rule of :class:`OpponentPool`, the
    batched :class:`~risk_env.vector.league.League` and a resumed run's list.

    >>> kept_snapshots([1, 2, 3, 4, 5], 3), kept_snapshots([1, 2, 3], 1), kept_snapshots([1, 2], 5)
    ([1, 4, 5], [3], [1, 2])
    """
    items = list(snapshots)
    if len(items) <= max_snapshots:
        return items
    return items[-1:] if max_snapshots == 1 else items[:1] + items[len(items) - (max_snapshots - 1) :]


class OpponentPool:
    """A self-play opponent pool: fixed baselines plus frozen snapshots of the learner.

    Sampling scheme (per episode, per opponent seat, independently):

    * with probability ``p_snapshot`` (only once a snapshot exists) a frozen
      snapshot: the newest one with probability ``p_latest``, otherwise one
      drawn uniformly from all kept snapshots;
    * otherwise a baseline, drawn with probabilities proportional to ``weights``.

    Priorities (prioritized fictitious self-play, :mod:`risk_env.train.pfsp`):
    :meth:`set_priorities` gives opponents a multiplier by key (:meth:`key_of`: the
    spec string of a baseline; :meth:`snapshot_key`: a snapshot's file name without its
    suffix, the same wherever its run folder is copied or moved; default 1). A baseline is then
    drawn with probability proportional to ``weights * priority`` and an older
    snapshot (the non-newest branch above) proportionally to its priority. The keys
    of the latest episode's opponents are :attr:`last_drawn` (one per seat).

    At most ``max_snapshots`` snapshots are kept (the oldest is dropped first,
    except the very first one, kept as an anchor). Loaded snapshots are cached
    by path, so a snapshot is read from disk once per process.

    Args:
        baselines: opponent specs (see :func:`resolve_agent`); at least one.
        weights: relative baseline weights (default: equal).
        p_snapshot: probability of a snapshot opponent, in [0, 1].
        p_latest: probability that a snapshot opponent is the newest one, in [0, 1].
        max_snapshots: >= 1.
        snapshots: snapshot paths to start with (e.g. when resuming).
        snapshot_deterministic: snapshot opponents take their most probable action
            (True) or sample from their policy (False, the default: more varied games).
        resolve: builds the baselines given as specs (default: :func:`agent_resolver`'s).
        load_snapshot: loads a snapshot (default: :func:`agent_resolver`'s).

    Raises:
        ConfigError: empty baselines, bad probabilities or weights.
    """

    def __init__(
        self,
        baselines: Sequence[Any] = ("random",),
        weights: Sequence[float] | None = None,
        p_snapshot: float = 0.5,
        p_latest: float = 0.5,
        max_snapshots: int = 10,
        snapshots: Sequence[str] = (),
        snapshot_deterministic: bool = False,
        resolve: AgentResolver | None = None,
        load_snapshot: SnapshotLoader | None = None,
    ) -> None:
        if not baselines:
            raise ConfigError("an opponent pool needs at least one baseline opponent")
        w = np.ones(len(baselines)) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (len(baselines),) or (w < 0).any() or w.sum() <= 0:
            raise ConfigError(f"weights must be {len(baselines)} non-negative numbers, not all zero; got {weights!r}")
        for name, p in (("p_snapshot", p_snapshot), ("p_latest", p_latest)):
            if not 0.0 <= p <= 1.0:
                raise ConfigError(f"{name} must be in [0, 1], got {p!r}")
        if max_snapshots < 1:
            raise ConfigError(f"max_snapshots must be >= 1, got {max_snapshots!r}")
        self.baselines = list(baselines)
        self.weights = w / w.sum()
        self.p_snapshot = float(p_snapshot)
        self.p_latest = float(p_latest)
        self.max_snapshots = int(max_snapshots)
        self.snapshot_deterministic = bool(snapshot_deterministic)
        self.resolve = resolve
        self.load_snapshot = load_snapshot
        self.snapshots: list[str] = []
        self.priorities: dict[str, float] = {}
        self.last_drawn: list[str] = []
        self._cache: dict[str, Any] = {}
        for path in snapshots:
            self.add(path)

    def add(self, path: str) -> None:
        """Add a frozen snapshot (a saved MaskablePPO ``.zip``)."""
        path = str(path)
        if path in self.snapshots:
            return
        self.snapshots.append(path)
        kept = kept_snapshots(self.snapshots, self.max_snapshots)
        for dropped in set(self.snapshots) - set(kept):
            self._cache.pop(f"snap:{dropped}", None)
        self.snapshots = kept

    @staticmethod
    def key_of(spec: Any) -> str:
        """The key of a baseline spec or snapshot path in :attr:`priorities` and :attr:`last_drawn`:
        the string itself, else the agent's ``name`` (else its ``repr``)."""
        return spec if isinstance(spec, str) else str(getattr(spec, "name", None) or repr(spec))

    @staticmethod
    def snapshot_key(path: str) -> str:
        """The key of a snapshot in :attr:`priorities` and :attr:`last_drawn`: its file name without the suffix
        (``.../pool/snap_000128000.zip`` -> ``snap_000128000``)."""
        return PurePath(path).stem

    def set_priorities(self, priorities: Mapping[str, float]) -> None:
        """Replace the sampling multipliers (class docstring); keys not given count 1.

        Raises:
            ConfigError: a negative or non-finite priority.
        """
        out = {}
        for k, v in priorities.items():
            v = float(v)
            if not (np.isfinite(v) and v >= 0.0):
                raise ConfigError(f"priority of {k!r} must be a finite number >= 0, got {v!r}")
            out[str(k)] = v
        self.priorities = out

    def baseline_probabilities(self) -> np.ndarray:
        """float64 ``(len(baselines),)``: the probability of each baseline when a baseline is
        drawn (``weights * priority``, normalized; ``weights`` alone if every product is 0)."""
        if not self.priorities:
            return self.weights
        w = self.weights * np.array([self.priorities.get(self.key_of(b), 1.0) for b in self.baselines])
        return w / w.sum() if w.sum() > 0 else self.weights

    def _get(self, key: str, spec: Any, seed: int) -> Any:
        agent = self._cache.get(key)
        if agent is None:
            if key.startswith("snap:"):
                load = self.load_snapshot or _defaults["load_snapshot"]
                if load is None:
                    raise ConfigError(f"cannot load the snapshot {spec!r}: no snapshot loader (see set_agent_resolver)")
                agent = load(spec, self.snapshot_deterministic)
            else:
                agent = resolve_agent(spec, seed=seed, resolve=self.resolve)
            self._cache[key] = agent
        reseed(agent, seed)  # a sampling snapshot samples with its own generator (the learner's is untouched)
        return agent

    def sample(self, rng: np.random.Generator, k: int) -> list[Any]:
        """``k`` opponents for one episode (see the class docstring for the scheme)."""
        out = []
        drawn = []
        p_base = self.baseline_probabilities()
        for i in range(k):
            seed = int(rng.integers(2**31))
            if self.snapshots and rng.random() < self.p_snapshot:
                if rng.random() < self.p_latest:
                    path = self.snapshots[-1]
                elif self.priorities:
                    w = np.array([self.priorities.get(self.snapshot_key(p), 1.0) for p in self.snapshots])
                    j = int(rng.choice(len(w), p=w / w.sum())) if w.sum() > 0 else int(rng.integers(len(w)))
                    path = self.snapshots[j]
                else:
                    path = self.snapshots[int(rng.integers(len(self.snapshots)))]
                out.append(self._get(f"snap:{path}", path, seed))  # seats may share a snapshot: it keeps no state
                drawn.append(self.snapshot_key(path))
            else:
                j = int(rng.choice(len(self.baselines), p=p_base))
                # one instance per (baseline, seat): two seats never share a stateful agent
                out.append(self._get(f"base:{j}:{i}", self.baselines[j], seed))
                drawn.append(self.key_of(self.baselines[j]))
        self.last_drawn = drawn
        return out
