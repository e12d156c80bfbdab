"""The learner-seat batched env: ``B`` games where every call of :meth:`LearnerEnv.step` is one
decision of a learner in every slot.

>>> import torch
>>> from risk_env.vector.learner import LearnerEnv
>>> env = LearnerEnv(8, seed=0, opponents="aggressive", preset="fast", num_players=3)
>>> out = env.reset()
>>> out.observation.shape, out.action_mask.shape, out.reward.shape
(torch.Size([8, 374]), torch.Size([8, 70]), torch.Size([8]))
>>> bool((out.current_player == env.learner_seat).all())
True
>>> out = env.step(torch.multinomial(out.action_mask.float(), 1).squeeze(1))

Seats. Each slot's game has *learner seats* (bool ``learners`` ``(B, n)``) and opponent
seats. By default one seat per slot is the learner (``learner_seat`` ``(B,)``), rotated
over slots and games (slot ``b``'s ``g``-th game: seat ``(b + g) % n``; the turn order is
drawn per game as well); ``learner_seat=k`` fixes it. With ``self_play=True`` every seat
of every game is a learner, so each decision is training data.

Opponents. The other seats are played inside :meth:`LearnerEnv.step` by batched policies
(:class:`~risk_env.vector.agents.BatchedPolicy`: ``"random"``, the batched heuristics of
:mod:`risk_env.vector.agents`, frozen networks, or any object with that call), chosen per
slot and seat by an *opponent assignment* (``seating`` ``(B, n)``: the index of the policy
in ``policies`` playing each seat, -1 for a learner seat), drawn again whenever a slot starts
a new game: :class:`FixedOpponents` (a name, a policy, or a list of them, slot ``b`` taking
entry ``b % len``; an entry may be a tuple naming each opponent seat) or a
:class:`~risk_env.vector.league.League`. After the learners' actions are applied, the
opponents' turns are advanced in batch (each engine step on the slots still waiting, see
:meth:`risk_env.vector.VectorEnv.step`) until a learner is to act in every slot. An opponent sees
what its seat may know (docs/rules.md §2, §8): the package's own policies (``"random"``, the batched
heuristics, :class:`~risk_env.vector.network.NetworkPolicy`) read only that and are handed the live
state; any other policy is handed :meth:`BatchState.known_to <risk_env.vector.BatchState.known_to>`
of the seat to act (other hands and missions hidden) and a copy of the mask, so nothing it reads
shows another seat's cards or mission and nothing it writes reaches the games.

Episodes. A learner seat's episode ends when it wins, is eliminated (reward -1), or the game
hits the turn limit (a truncation, whatever its reward: 0 under the ``"draw"`` rule, the
seat's rank reward under ``truncation_reward="rank"``), as in the AEC env. A slot
whose learner seats are all eliminated while the game goes on starts a new game at once.
Finished games are replaced at once (auto-reset, as :class:`~risk_env.vector.VectorEnv`):
the returned ``observation`` is then the new game's, and ``final_observation`` (with
``final_observation=True``) holds the last observation of the finished episode.
:meth:`LearnerEnv.reset_slots` starts new games in some slots on request (a client's partial
reset), dropping the episodes in progress there.

Rewards. ``rewards`` ``(B, n)`` are every seat's rewards in the call (the learners' actions
and every opponent move after them, up to the next learner decision), and ``seat_terminated``
/ ``seat_truncated`` ``(B, n)`` the seats whose episode ended in it. ``reward``,
``terminated`` and ``truncated`` ``(B,)`` are those of the seat that decided in the call (the
previous output's ``current_player``): with one learner per slot that is the learner's
reward from its decision to its next one, its episode's end, and nothing more is needed.
In self-play the seat that decided is not the next to decide, so a seat's return runs over
its own decisions, several calls apart: :func:`seat_credit` turns a rollout of calls into
per-decision rewards, ends and next-decision links for that.

Shaping (``shaping > 0``) adds the potential-based territory shaping of
:class:`risk_env.envs.single_agent.RiskSingleAgentEnv` to a learner seat at each of its
decisions and at its episode's end: ``shaping * (gamma * phi' - phi)`` with ``phi = (own -
other players' territories) / T`` at its previous decision, ``phi'`` now (0 once its episode
ended); so over an episode it telescopes to ``-shaping * phi_0`` when ``gamma = 1``.

Everything stays on the env's torch device; the only host synchronisations are the checks
that skip work no slot needs (the engine's own, and one per opponent policy per engine step).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np
import torch

from ..errors import SEED_LIMIT, ConfigError, IllegalActionError, ResetNeededError, RiskError, check_number
from .agents import BatchedPolicy, HeuristicPolicy, RandomPolicy
from .env import ID_DTYPES, OBSERVATION_MODES, Observation, VectorEnv, VectorStep, as_tensor
from .network import NetworkPolicy
from .specs import batched_policy, spec_text, takes_policy_call

__all__ = [
    "FixedOpponents",
    "LearnerEnv",
    "LearnerStep",
    "ObservationPolicy",
    "OpponentAssignment",
    "SEAT_SAFE_POLICIES",
    "refuse_out_of_range",
    "seat_credit",
    "seat_safe",
]

OBSERVATIONS = OBSERVATION_MODES
"""Observation kinds of :class:`LearnerEnv`, as :class:`~risk_env.vector.VectorEnv`'s: ``"flat"``
(:class:`risk_env.ObservationEncoder` vectors) and ``"graph"`` (the AEC env's graph observation)."""


def refuse_out_of_range(ids: torch.Tensor, num_actions: int, slots: torch.Tensor | None = None) -> None:
    """Refuse an action id outside ``0..num_actions-1`` (no mask could allow it) in ``slots`` (bool ``(B,)``; every
    slot where None), named as such: the one range check of the learner env and its faces.

    Raises:
        IllegalActionError: ``"action 70 is out of range in slot 3: ids are 0..69"``.
    """
    far = (ids < 0) | (ids >= num_actions)
    if slots is not None:
        far &= slots
    if bool(far.any()):
        b = int(far.nonzero()[0, 0])
        raise IllegalActionError(f"action {int(ids[b])} is out of range in slot {b}: ids are 0..{num_actions - 1}")


class LearnerStep(NamedTuple):
    """One call of :meth:`LearnerEnv.step` (``B`` slots, ``D`` observation size, ``N`` actions, ``n`` players).

    Attributes:
        observation: the observation of ``current_player``: float32 ``(B, D)``, or with ``observation="graph"``
            the graph dict (``nodes (B, T, F)``, ``edges (B, 2, E)``, ``globals (B, G)``, ``action_mask (B, N)``).
        action_mask: bool ``(B, N)``: its legal ids.
        current_player: int64 ``(B,)``: the learner seat to decide now in each slot.
        reward: float32 ``(B,)``: the reward, in this call, of the seat that decided in it (with
            one learner per slot: the learner's reward since its previous decision, shaping included).
        terminated: bool ``(B,)``: that seat's episode ended by a win or its elimination.
        truncated: bool ``(B,)``: that seat's episode ended at the turn limit.
        rewards: float32 ``(B, n)``: every seat's rewards in this call (learner seats' shaping included).
        seat_terminated, seat_truncated: bool ``(B, n)``: the seats whose episode ended in this call.
        autoreset: bool ``(B,)``: the slot started a new game in this call (the observation is the new game's).
        final_observation: an observation like ``observation``, or None: the last observation of the episode
            that ended for the seat that decided (zeros where it did not end); given with ``final_observation=True``.
    """

    observation: Observation
    action_mask: torch.Tensor
    current_player: torch.Tensor
    reward: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    rewards: torch.Tensor
    seat_terminated: torch.Tensor
    seat_truncated: torch.Tensor
    autoreset: torch.Tensor
    final_observation: Observation | None = None


class OpponentAssignment(Protocol):
    """Chooses the policies of the opponent seats of new games (:class:`FixedOpponents`, a league).

    ``policies`` is the list the indices refer to (it may grow between games, never shrink or
    reorder); ``names[i]`` labels ``policies[i]``.
    """

    policies: list[BatchedPolicy]
    names: list[str]

    def assign(self, slots: torch.Tensor, learner_seat: torch.Tensor, num_players: int) -> torch.Tensor:
        """int64 ``(k, n)``: the policy index of each seat of the new games in ``slots`` (int64 ``(k,)``),
        whose learner seat is ``learner_seat`` (int64 ``(k,)``); any value at the learner seat."""
        ...

    def record(self, seating: torch.Tensor, score: torch.Tensor) -> None:
        """Finished learner episodes: their seating rows ``(k, n)`` (-1 at learner seats) and the learner's
        score ``(k,)`` (1 won, 0.5 turn limit, 0 lost)."""
        ...


OpponentSpec = str | BatchedPolicy


class FixedOpponents:
    """A fixed opponent for each slot: slot ``b`` plays ``entries[b % len(entries)]``.

    An entry is a spec (a ``str`` or a path, read by :func:`~risk_env.vector.specs.batched_policy`: ``"random"``,
    a batched heuristic of :data:`~risk_env.vector.agents.BATCHED_HEURISTICS`, a pretrained agent's name such as
    ``"ppo-4p"``, a policy file ``.pt`` or a MaskablePPO ``.zip``, each a frozen network playing its most probable
    legal id), a :class:`BatchedPolicy` object (every opponent seat of the slot), or a tuple of ``n - 1`` of those:
    the opponent seats in turn from the learner seat (seat ``learner + 1``, ``learner + 2``, ... modulo ``n``). A tuple given
    alone is one entry (a line-up for every slot); a list is a list of entries. Specs that name one policy
    (``"Balanced"``, ``" balanced"``) build it once.

    Args:
        entries: one entry or a list of them.
        game: the env's :class:`~risk_env.vector.VectorGame` (for the heuristics).
        generator: the random policy's ``torch.Generator``.

    Raises:
        ConfigError: an empty list, an unknown name, a tuple of the wrong length, or an entry that is no policy (not
            callable, or a callable that cannot take the call ``policy(state, mask, active)``); AgentRulesError (a
            ConfigError): a network that does not fit the rules. RiskError: a model file that cannot be read.
    """

    def __init__(
        self, entries: OpponentSpec | Sequence[OpponentSpec | Sequence[OpponentSpec]], game: Any, generator: torch.Generator
    ) -> None:
        if isinstance(entries, (bytes, bytearray)):
            raise ConfigError(f"opponents must be a spec, a batched policy, or a list of those; got {entries!r} (bytes)")
        items: list[Any] = (  # (a tuple is one entry: a seat each)
            list(entries) if isinstance(entries, Sequence) and not isinstance(entries, (str, tuple, os.PathLike)) else [entries]
        )
        if not items:
            raise ConfigError("the opponent list is empty: give a policy name, a batched policy, or a list of those")
        n = game.n
        self.policies: list[BatchedPolicy] = []
        self.names: list[str] = []
        keys: list[Any] = []
        rows: list[list[int]] = []
        for entry in items:
            seats = list(entry) if isinstance(entry, (tuple, list)) else [entry] * (n - 1)
            if len(seats) != n - 1:
                raise ConfigError(f"an opponent tuple names the {n - 1} opponent seats of a {n}-player game, got {entry!r}")
            row = []
            for spec in seats:
                text = spec_text(spec)  # (" Balanced" and "balanced" are one policy)
                key = text if text is not None else id(spec)
                if key not in keys:
                    keys.append(key)
                    pol = batched_policy(text, game, generator) if text is not None else _check_policy(spec)
                    self.policies.append(pol)
                    label = getattr(pol, "name", None) or getattr(pol, "__name__", None) or type(pol).__name__
                    self.names.append(text if text is not None else str(label))
                row.append(keys.index(key))
            rows.append(row)
        self._rows = torch.tensor(rows, dtype=torch.int64, device=game.device)  # (entries, n - 1)
        self._ar = torch.arange(n, device=game.device)

    def assign(self, slots: torch.Tensor, learner_seat: torch.Tensor, num_players: int) -> torch.Tensor:
        n = num_players
        rows = self._rows[slots % self._rows.shape[0]]  # (k, n - 1) in turn from the learner
        rel = (self._ar[None, :] - learner_seat[:, None]) % n  # seat -> position after the learner
        full = torch.cat([torch.full_like(rows[:, :1], -1), rows], dim=1)  # position 0 is the learner
        return full.gather(1, rel)

    def record(self, seating: torch.Tensor, score: torch.Tensor) -> None:
        return None


class ObservationPolicy:
    """A callable ``fn(observation (B, D), mask (B, N)) -> ids (B,)`` as a :class:`BatchedPolicy` (the form
    :class:`~risk_env.vector.sb3.VectorSB3Env` takes): ``fn`` gets the flat observation of the seat to act in every
    slot, which shows what that seat may know and no more, and a copy of the mask, so it reads and writes nothing
    else of the games."""

    def __init__(self, fn: Any, game: Any) -> None:
        self.fn = fn
        self.game = game
        self.name = getattr(fn, "__name__", "callable")

    def __call__(self, state: Any, mask: torch.Tensor, active: torch.Tensor | None = None) -> torch.Tensor:
        return self.fn(self.game.observe(state), mask.clone())  # type: ignore[no-any-return]


SEAT_SAFE_POLICIES = (RandomPolicy, HeuristicPolicy, NetworkPolicy, ObservationPolicy)
"""The package's batched policies, which read only what the seat to act may know and write nothing (their
tests play them on :meth:`BatchState.known_to <risk_env.vector.BatchState.known_to>` too; an
:class:`ObservationPolicy` hands its callable the seat's observation and a copy of the mask): the learner env
hands them the live state; any other opponent policy, a subclass of these defined outside the package included, gets
the seat's view (module docstring, :func:`seat_safe`)."""


def seat_safe(policy: Any) -> bool:
    """Whether the learner env hands ``policy`` the live state and mask: an instance of a class of this package among
    :data:`SEAT_SAFE_POLICIES`. A subclass defined elsewhere may read every hand and mission, or write into the mask,
    so it gets the seat's view and a copy of the mask, as any other policy does."""
    return isinstance(policy, SEAT_SAFE_POLICIES) and type(policy).__module__.partition(".")[0] == "risk_env"


def _callable_name(obj: Any) -> str:
    """A function's name, else its type's (a policy object's class)."""
    return str(getattr(obj, "__name__", None) or type(obj).__name__)


def _check_policy(obj: Any) -> BatchedPolicy:
    """``obj`` as an opponent policy: a callable that takes the call ``policy(state, mask, active)``.

    Raises:
        ConfigError: ``obj`` is not callable, or its signature cannot take three positional arguments (a callable
            whose signature cannot be read, a builtin, passes).
    """
    if not callable(obj):
        raise ConfigError(f"an opponent must be a policy name or a batched policy (state, mask, active) -> ids; got {obj!r}")
    if takes_policy_call(obj) is False:  # (None, a builtin or C callable: its call is tried at the first opponent turn)
        raise ConfigError(
            f"an opponent policy is called as policy(state, mask, active) -> ids (three positional arguments), but "
            f"{_callable_name(obj)} takes {inspect.signature(obj)}; a callable (obs, mask) -> ids is VectorSB3Env's "
            "opponent= form"
        )
    return obj  # type: ignore[no-any-return]


class LearnerEnv:
    """``num_envs`` games in which a learner is to act in every slot after each call (module docstring).

    Args:
        num_envs: slots ``B`` (1 to 2**31 - 1, as :class:`~risk_env.vector.VectorEnv`).
        device: the torch device of the engine, the opponents and every output.
        seed: seeds the engine's generator (the random opponent draws from a second one, seeded ``(seed + 7919) % 2**32``).
        opponents: the opponent assignment: a name, a :class:`BatchedPolicy`, a list of those (or of tuples
            per opponent seat; see :class:`FixedOpponents`), or an :class:`OpponentAssignment` such as a
            :class:`~risk_env.vector.league.League`. A policy is called ``policy(state, mask, active)``. Not with
            ``self_play`` (refused there).
        self_play: every seat is a learner seat.
        learner_seat: None rotates the learner seat over slots and games; an int (a numpy integer too) fixes it.
            Not with ``self_play`` (refused there).
        observation: ``"flat"`` or ``"graph"`` (:data:`OBSERVATIONS`).
        shaping: the weight of the potential-based territory shaping (module docstring; 0 turns it off).
        shaping_gamma: its discount ``gamma``, in (0, 1] (the learner's).
        turn_feature: show ``turn / turn_limit`` in the observation (default: True for ``"flat"``, False for
            ``"graph"``, as the AEC env; False writes 0 there).
        final_observation: fill :attr:`LearnerStep.final_observation`.
        max_opponent_steps: bound on engine steps of opponents within one call (a guard; the turn limit
            ends every game long before).
        **rules: ``preset=``, ``rules=`` or rule switches, as :class:`~risk_env.vector.VectorEnv`.

    Raises:
        ConfigError: a bad argument, an unknown opponent, an opponent policy that cannot take the call
            ``policy(state, mask, active)``, ``opponents`` or ``learner_seat`` given with ``self_play=True``, or rules
            the batched engine does not support.
    """

    def __init__(
        self,
        num_envs: int,
        device: str | torch.device = "cpu",
        seed: int = 0,
        opponents: Any = "random",
        self_play: bool = False,
        learner_seat: int | None = None,
        observation: str = "flat",
        shaping: float = 0.0,
        shaping_gamma: float = 1.0,
        turn_feature: bool | None = None,
        final_observation: bool = False,
        max_opponent_steps: int = 100_000,
        **rules: Any,
    ) -> None:
        if observation not in OBSERVATIONS:
            raise ConfigError(f"observation must be one of {list(OBSERVATIONS)}, got {observation!r}")
        shaping = check_number(shaping, "shaping", "a finite number >= 0", lambda x: x >= 0.0)
        shaping_gamma = check_number(
            shaping_gamma, "shaping_gamma", "a number in (0, 1] (the learner's discount)", lambda x: 0.0 < x <= 1.0
        )
        if isinstance(max_opponent_steps, bool) or not isinstance(max_opponent_steps, int) or max_opponent_steps < 1:
            raise ConfigError(f"max_opponent_steps must be an integer >= 1, got {max_opponent_steps!r}")
        for label, flag in (("self_play", self_play), ("final_observation", final_observation)):
            if not isinstance(flag, bool):
                raise ConfigError(f"{label} must be True or False, got {flag!r}")
        if self_play:  # (every seat is a learner: no opponent, no one learner seat)
            given = [] if isinstance(opponents, str) and opponents == "random" else [f"opponents={opponents!r}"]
            given += [] if learner_seat is None else [f"learner_seat={learner_seat!r}"]
            if given:
                raise ConfigError(
                    f"{', '.join(given)}: under self_play=True every seat of every game is a learner, so opponents "
                    "and learner_seat mean nothing; leave them out, or set self_play=False"
                )
        self.venv = VectorEnv(
            num_envs, device=device, seed=seed, check_actions=False, observation=observation, turn_feature=turn_feature, **rules
        )
        self.game = self.venv.game
        self.rules = self.venv.rules
        self.num_envs = self.venv.num_envs
        self.num_players = n = self.venv.num_players
        self.num_actions = self.venv.num_actions
        self.observation_size = self.venv.observation_size
        self.device = self.venv.device
        self.observation = observation
        if learner_seat is not None and (
            isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer)) or not 0 <= learner_seat < n
        ):
            raise ConfigError(f"learner_seat must be None (rotate) or a seat in 0..{n - 1}, got {learner_seat!r}")
        self.fixed_seat = None if learner_seat is None else int(learner_seat)
        self.self_play = bool(self_play)
        self.shaping = float(shaping)
        self.shaping_gamma = float(shaping_gamma)
        self.turn_feature = self.venv.turn_feature
        self.keep_final = bool(final_observation)
        self.max_opponent_steps = max_opponent_steps
        self.generator = torch.Generator(device=self.device)
        self.generator.manual_seed((int(seed) + 7919) % SEED_LIMIT)
        self.assignment: OpponentAssignment | None = None
        if not self.self_play:
            if hasattr(opponents, "assign") and hasattr(opponents, "policies"):
                self.assignment = opponents
            else:
                self.assignment = FixedOpponents(opponents, self.game, self.generator)
        B, dev = num_envs, self.device
        self._slots = torch.arange(B, device=dev)
        self._ar_n = torch.arange(n, device=dev)
        self.games_started = torch.zeros(B, dtype=torch.int64, device=dev)
        """int64 ``(B,)``: games started in each slot since the last reset (the learner seat rotates with it)."""
        self.learner_seat = torch.zeros(B, dtype=torch.int64, device=dev)
        """int64 ``(B,)``: the learner seat of each slot's game (without self-play)."""
        self.learners = torch.zeros(B, n, dtype=torch.bool, device=dev)
        """bool ``(B, n)``: the learner seats of each slot's game."""
        self.seating = torch.full((B, n), -1, dtype=torch.int64, device=dev)
        """int64 ``(B, n)``: the policy index (in ``assignment.policies``) of each seat, -1 at learner seats."""
        self.potential = torch.zeros(B, n, dtype=torch.float64, device=dev)
        """float64 ``(B, n)``: each learner seat's shaping potential at its last decision (with shaping)."""
        self._decided = torch.zeros(B, n, dtype=torch.bool, device=dev)  # the seat decided in this episode
        self._out: VectorStep | None = None
        self.last: LearnerStep | None = None
        """The output of the last :meth:`reset` or :meth:`step` (None before the first reset)."""

    # ------------------------------------------------------------------ seats
    @property
    def policies(self) -> list[BatchedPolicy]:
        """The opponent policies ``seating`` refers to (empty in self-play)."""
        return [] if self.assignment is None else self.assignment.policies

    def _seat_new_games(self, idx: torch.Tensor) -> None:
        """Learner seats and opponents for the new games in slots ``idx`` (int64 ``(k,)``)."""
        n = self.num_players
        if self.fixed_seat is not None:
            seat = torch.full_like(idx, self.fixed_seat)
        else:
            seat = (idx + self.games_started[idx]) % n
        self.games_started[idx] += 1
        self.learner_seat[idx] = seat
        if self.assignment is None:
            self.learners[idx] = True
            return
        self.learners[idx] = self._ar_n[None, :] == seat[:, None]
        rows = self.assignment.assign(idx, seat, n).to(device=self.device, dtype=torch.int64)
        self.seating[idx] = torch.where(self.learners[idx], -1, rows)

    def _potential(self) -> torch.Tensor:
        """float64 ``(B, n)``: ``(own - other players' territories) / T`` per seat."""
        s = self.venv.state
        assert s is not None
        n = self.num_players
        own = (s.owner[:, None, :] == self._ar_n[None, :, None]).sum(2)  # (B, n)
        players = ((s.owner >= 0) & (s.owner < n)).sum(1, keepdim=True)
        return (2 * own - players).double() / self.game.T

    # ------------------------------------------------------------------ reset and step
    def close(self) -> None:
        """Release the games (:meth:`VectorEnv.close <risk_env.vector.env.VectorEnv.close>`) and the last call's
        output; :meth:`step` then raises :class:`~risk_env.errors.ResetNeededError` until :meth:`reset`."""
        self.venv.close()
        self._out = None
        self.last = None

    def reset(self, seed: int | None = None) -> LearnerStep:
        """New games in every slot, advanced to the first learner decision (``seed`` re-seeds both generators).

        Raises:
            ConfigError: a bad seed. IllegalActionError, RiskError: as :meth:`step`'s, from the opponents' first turns.
        """
        out = self.venv.reset(seed=seed)
        if seed is not None:
            self.generator.manual_seed((int(seed) + 7919) % SEED_LIMIT)
        B, dev = self.num_envs, self.device
        self.games_started.zero_()
        self._seat_new_games(self._slots)
        self._decided.zero_()
        acc = self._acc()
        out = self._advance(out, acc)
        # (a game that ends before its learner's first decision is no episode of that learner, as in reset_slots)
        acc.rewards.zero_()
        acc.term.zero_()
        acc.trunc.zero_()
        acc.reset.zero_()
        return self._finish(out, acc, torch.zeros(B, dtype=torch.int64, device=dev), first=True)

    def step(self, actions: torch.Tensor, active: torch.Tensor | None = None) -> LearnerStep:
        """Apply one action id per slot for ``current_player`` (int ``(B,)``, any device), then play the
        opponents until a learner is to act in every slot.

        Args:
            actions: the ids, one per slot.
            active: optional bool ``(B,)``: slots where it is False are left as they are (their id is
                ignored; their outputs are zeros and the same observation and mask as before).

        Raises:
            ResetNeededError: before :meth:`reset`. IllegalActionError: a wrong shape or dtype, or an id out of range
                (0..N-1) or the mask forbids in an active slot. ConfigError: ``active`` is not a bool ``(B,)`` tensor.
                Nothing is changed then.
            IllegalActionError: an opponent policy returned an id its mask forbids, or no integer ``(B,)`` tensor
                (the message names the policy); the learner's ids are played by then, and the env needs :meth:`reset`.
            RiskError: the opponents made ``max_opponent_steps`` engine steps without a learner's turn coming; the env
                needs :meth:`reset` then too.
        """
        if self._out is None:
            raise ResetNeededError("no games in progress: call reset() before step()")
        prev = self._out
        B = self.num_envs
        want = f"actions must be an integer tensor of shape ({B},)"
        a = as_tensor(actions, want, IllegalActionError).to(self.device)
        if a.shape != (B,) or a.dtype not in ID_DTYPES:
            raise IllegalActionError(f"{want}, got {tuple(a.shape)} {a.dtype}")
        act = None
        if active is not None:
            act = as_tensor(active, f"active must be a bool tensor of shape ({B},)").to(self.device)
            if act.shape != (B,) or act.dtype != torch.bool:
                raise ConfigError(f"active must be a bool tensor of shape ({B},), got {tuple(act.shape)} {act.dtype}")
        a = a.long()
        refuse_out_of_range(a, self.num_actions, act)
        ok = prev.action_mask.gather(1, a.clamp(0, self.num_actions - 1)[:, None])[:, 0]
        if act is not None:
            ok |= ~act
            a = torch.where(act, a, 0)
        if not bool(ok.all()):
            b = int((~ok).nonzero()[0, 0])
            legal = prev.action_mask[b].nonzero()[:, 0].tolist()
            raise IllegalActionError(
                f"action {int(a[b])} is illegal in slot {b} (seat {int(prev.current_player[b])}); legal ids there: {legal}"
            )
        actor = prev.current_player
        acting = self._ar_n[None, :] == actor[:, None]
        self._decided |= acting if act is None else acting & act[:, None]
        acc = self._acc()
        out = self._play(a, act, actor, acc)
        out = self._advance(out, acc, actor)
        return self._finish(out, acc, actor, active=act)

    def reset_slots(self, slots: torch.Tensor) -> LearnerStep:
        """New games in the slots where bool ``slots`` ``(B,)`` is True, advanced to their learner's first
        decision; the other slots are left as they are (their learner is still to decide).

        The learner episodes in progress in those slots are dropped, not ended: no reward, no termination or
        truncation, and nothing reported to the opponent assignment (a league's results). This is the partial
        reset of the ecosystem's vector APIs (TorchRL's ``"_reset"``, Gymnasium's ``options={"reset_mask": ...}``),
        for example after a time limit of the client's own.

        Returns:
            the :class:`LearnerStep` now (also :attr:`last`): the new games' first learner observations in
            ``slots``, ``autoreset`` equal to ``slots``, zero rewards.

        Raises:
            ResetNeededError: before :meth:`reset`. ConfigError: ``slots`` is not a bool ``(B,)`` tensor.
        """
        if self._out is None:
            raise ResetNeededError("no games in progress: call reset() before reset_slots()")
        B = self.num_envs
        m = as_tensor(slots, f"slots must be a bool tensor of shape ({B},)").to(self.device)
        if m.shape != (B,) or m.dtype != torch.bool:
            raise ConfigError(f"slots must be a bool tensor of shape ({B},), got {tuple(m.shape)} {m.dtype}")
        prev = self._out
        out = self.venv.reset_slots(m)
        idx = m.nonzero()[:, 0]
        if idx.numel():
            self._seat_new_games(idx)
            self._decided[idx] = False
        acc = self._acc()
        acc.reset |= m
        out = self._advance(out, acc)
        # (a new game that ends before its learner's first decision is no episode of that learner)
        acc.rewards.zero_()
        acc.term.zero_()
        acc.trunc.zero_()
        return self._finish(out, acc, prev.current_player, first=True)

    def _acc(self) -> _Acc:
        return _Acc(self.num_envs, self.num_players, self.device, self.keep_final, self.learners, self._decided)

    def _play(self, ids: torch.Tensor, active: torch.Tensor | None, final_seat: torch.Tensor, acc: _Acc) -> VectorStep:
        """One engine step in the slots ``active`` (None: all); rewards and episode ends go into ``acc``."""
        venv = self.venv
        s = venv.state
        assert s is not None
        alive_before = s.alive.clone()
        out = venv.step(ids, active=active, final_seat=final_seat if self.keep_final else None)
        live = ~acc.closed if active is None else active & ~acc.closed  # slots whose episodes still count
        r = out.rewards
        acc.rewards += torch.where(live[:, None], r, 0.0)
        # +1 the winner, -1 the eliminated; the turn limit truncates, whatever its rewards (the "rank" ones)
        cut = (live & out.truncated)[:, None]
        acc.term |= live[:, None] & (r != 0) & ~cut
        acc.trunc |= cut & alive_before
        game_over = live & out.autoreset
        if acc.keep_final and out.final_observation is not None:
            acc.put_final(game_over, out.final_observation)
        acc.closed |= game_over
        acc.reset |= out.autoreset
        new = out.autoreset
        if self.assignment is not None:
            # every learner seat out while the game goes on: a new game at once
            dead = live & ~out.autoreset & ~(s.alive & self.learners).any(1)
            if bool(dead.any()):
                if acc.keep_final:
                    acc.put_final(dead, venv.observe(final_seat))
                acc.closed |= dead
                acc.reset |= dead
                out = venv.reset_slots(dead)
                new = new | dead
        if bool(new.any()):
            idx = new.nonzero()[:, 0]
            self._record(idx, acc)
            self._seat_new_games(idx)
            self._decided[idx] = False
        return out

    def _record(self, idx: torch.Tensor, acc: _Acc) -> None:
        """Report the finished learner episodes in slots ``idx`` to the opponent assignment."""
        if self.assignment is None:
            return
        seat = self.learner_seat[idx]
        r = acc.rewards[idx].gather(1, seat[:, None])[:, 0]
        trunc = acc.trunc[idx].gather(1, seat[:, None])[:, 0]
        score = torch.where(trunc, 0.5, torch.where(r > 0, 1.0, 0.0))  # (a truncation's rank reward is no win)
        self.assignment.record(self.seating[idx], score)

    def _advance(self, out: VectorStep, acc: _Acc, final_seat: torch.Tensor | None = None) -> VectorStep:
        """Let the opponents move until a learner seat is to act in every slot."""
        seat = self.learner_seat if final_seat is None else final_seat
        for _ in range(self.max_opponent_steps):
            cur = out.current_player[:, None]
            waiting = ~self.learners.gather(1, cur)[:, 0]
            if not bool(waiting.any()):
                return out
            who = self.seating.gather(1, cur)[:, 0]
            ids = torch.zeros(self.num_envs, dtype=torch.int64, device=self.device)
            s = self.venv.state
            assert s is not None
            policies = self.policies
            if len(policies) == 1:
                ids = self._opponent_ids(0, s, out, waiting)
            else:  # the policies with a seat to play now (one device sync)
                present = torch.bincount(who[waiting], minlength=len(policies)).tolist()
                for k in (k for k, c in enumerate(present) if c):
                    rows = waiting & (who == k)
                    ids = torch.where(rows, self._opponent_ids(k, s, out, rows), ids)
            out = self._play(ids, waiting, seat, acc)
        self._out = None  # (the learner's ids are played already: the games are mid-step)
        raise RiskError(
            f"opponents made {self.max_opponent_steps} engine steps (max_opponent_steps) without a learner's turn "
            "coming; the games are left mid-step: call reset()"
        )

    def _opponent_ids(self, k: int, s: Any, out: VectorStep, rows: torch.Tensor) -> torch.Tensor:
        """The ids opponent policy ``k`` chooses in slots ``rows``, checked against the mask there. An id it
        may not choose raises IllegalActionError naming the policy; the learner's step is played by then,
        so the env then needs :meth:`reset`."""
        assert self.assignment is not None
        name = self.assignment.names[k] if k < len(self.assignment.names) else f"#{k}"
        policy = self.policies[k]
        if seat_safe(policy):
            ids = policy(s, out.action_mask, rows)
        else:  # what the seat to act may know, and copies (module docstring)
            ids = policy(s.known_to(out.current_player.clamp(min=0)), out.action_mask.clone(), rows)
        B, N = self.num_envs, self.num_actions
        problem = None
        if not isinstance(ids, torch.Tensor) or ids.shape != (B,) or ids.dtype not in ID_DTYPES:
            got = f"{tuple(ids.shape)} {ids.dtype}" if isinstance(ids, torch.Tensor) else type(ids).__name__
            problem = f"returned {got}; a batched policy returns an integer tensor of shape ({B},)"
        else:
            ids = ids.to(device=self.device, dtype=torch.int64)
            ok = (ids >= 0) & (ids < N) & out.action_mask.gather(1, ids.clamp(0, N - 1)[:, None])[:, 0]
            bad = rows & ~ok
            if bool(bad.any()):
                b = int(bad.nonzero()[0, 0])
                legal = out.action_mask[b].nonzero()[:, 0].tolist()
                problem = f"chose id {int(ids[b])} in slot {b} (seat {int(out.current_player[b])}); legal ids there: {legal}"
        if problem is None:
            return ids
        self._out = None  # (the learner's ids are played already: the games are mid-step)
        raise IllegalActionError(f"opponent policy {name!r} {problem}; the games are left mid-step: call reset()")

    def _finish(
        self, out: VectorStep, acc: _Acc, actor: torch.Tensor, first: bool = False, active: torch.Tensor | None = None
    ) -> LearnerStep:
        cur = out.current_player
        if self.shaping:
            # at each learner seat's decision (and its episode's end): shaping * (gamma * phi' - phi)
            phi = self._potential()
            ended = (acc.term | acc.trunc) & acc.learners  # the learner seats of the game each episode was in
            deciding = self.learners & (self._ar_n[None, :] == cur[:, None])
            if active is not None:  # slots left as they were: no new decision
                deciding &= active[:, None]
            due = (deciding & self._decided) | (ended & acc.decided)  # a seat out before deciding gets none
            if not first:
                gain = self.shaping * (self.shaping_gamma * torch.where(ended, 0.0, phi) - self.potential)
                acc.rewards += torch.where(due, gain, 0.0).to(acc.rewards.dtype)
            self.potential = torch.where(deciding | ended, phi, self.potential)
        col = actor[:, None]
        self._out = out
        final = None
        if acc.keep_final:
            ended_actor = (acc.term | acc.trunc).gather(1, col)[:, 0]
            final = _where(ended_actor, acc.final, out.observation, zeros=True)
        self.last = LearnerStep(
            observation=out.observation,
            action_mask=out.action_mask,
            current_player=cur,
            reward=acc.rewards.gather(1, col)[:, 0],
            terminated=acc.term.gather(1, col)[:, 0],
            truncated=(acc.trunc & ~acc.term).gather(1, col)[:, 0],
            rewards=acc.rewards,
            seat_terminated=acc.term,
            seat_truncated=acc.trunc & ~acc.term,
            autoreset=acc.reset,
            final_observation=final,
        )
        return self.last

    def observe(self, seat: torch.Tensor) -> Observation:
        """Each slot's observation from ``seat`` (int64 ``(B,)``), as the outputs give them."""
        return self.venv.observe(seat)


class _Acc:
    """What one call collects: rewards and episode ends per seat, the slots whose episode closed, and the
    last observations of the episodes that ended."""

    def __init__(
        self, B: int, n: int, device: torch.device, keep_final: bool, learners: torch.Tensor, decided: torch.Tensor
    ) -> None:
        self.learners = learners.clone()  # the learner seats when the call began (a slot's episode closes once)
        self.decided = decided.clone()  # the seats that decided in their episode when the call began
        self.rewards = torch.zeros(B, n, dtype=torch.float32, device=device)
        self.term = torch.zeros(B, n, dtype=torch.bool, device=device)
        self.trunc = torch.zeros(B, n, dtype=torch.bool, device=device)
        self.closed = torch.zeros(B, dtype=torch.bool, device=device)
        self.reset = torch.zeros(B, dtype=torch.bool, device=device)
        self.keep_final = keep_final
        self.final: Observation | None = None

    def put_final(self, where: torch.Tensor, obs: Observation) -> None:
        """Keep ``obs`` of the slots ``where`` (bool ``(B,)``) as their last observation."""
        if self.final is None:
            self.final = _zeros_like(obs)
        self.final = _where(where, obs, self.final)


def _zeros_like(obs: Observation) -> Observation:
    if isinstance(obs, dict):
        return {k: torch.zeros(v.shape, dtype=v.dtype, device=v.device) for k, v in obs.items()}
    return torch.zeros_like(obs)


def _where(m: torch.Tensor, a: Observation | None, b: Observation, zeros: bool = False) -> Observation:
    """``a`` in the slots of bool ``m`` ``(B,)``, else ``b`` (else zeros with ``zeros``), per tensor of an
    observation (a tensor or the graph dict); a missing ``a`` reads as zeros."""
    if isinstance(b, dict):
        out = {}
        for k, v in b.items():
            x = a[k] if a is not None else torch.zeros_like(v)
            mm = m.view(-1, *([1] * (v.dim() - 1)))
            out[k] = torch.where(mm, x, torch.zeros_like(v) if zeros else v)
        return out
    x = a if a is not None else torch.zeros_like(b)
    return torch.where(m.view(-1, *([1] * (b.dim() - 1))), x, torch.zeros_like(b) if zeros else b)


def seat_credit(
    seat: torch.Tensor, rewards: torch.Tensor, ended: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per-decision credit of a self-play rollout: each decision's reward runs to its seat's next decision.

    Args:
        seat: int64 ``(L, B)``: the seat that decided at each of ``L`` calls (``current_player`` before the call).
        rewards: float ``(L, B, n)``: each call's :attr:`LearnerStep.rewards`.
        ended: bool ``(L, B, n)``: each call's ``seat_terminated | seat_truncated``.

    Returns:
        ``(reward, done, next_index)``: float ``(L, B)`` the deciding seat's rewards from its decision up to its
        next decision in the same episode; bool ``(L, B)`` its episode ended before that; int64 ``(L, B)`` the call
        index of that next decision (``L`` where the rollout ends first: bootstrap from the seat's value then;
        meaningless where ``done``).
    """
    L, B, n = rewards.shape
    dev = rewards.device
    acc_r = torch.zeros(B, n, dtype=rewards.dtype, device=dev)
    acc_d = torch.zeros(B, n, dtype=torch.bool, device=dev)
    nxt = torch.full((B, n), L, dtype=torch.int64, device=dev)
    out_r = torch.empty(L, B, dtype=rewards.dtype, device=dev)
    out_d = torch.empty(L, B, dtype=torch.bool, device=dev)
    out_n = torch.empty(L, B, dtype=torch.int64, device=dev)
    for t in range(L - 1, -1, -1):
        # what came after an episode's end belongs to the next episode: forget it, then add this call's
        e = ended[t]
        acc_r = torch.where(e, 0.0, acc_r).to(rewards.dtype) + rewards[t]
        acc_d = acc_d | e
        col = seat[t][:, None]
        out_r[t] = acc_r.gather(1, col)[:, 0]
        out_d[t] = acc_d.gather(1, col)[:, 0]
        out_n[t] = nxt.gather(1, col)[:, 0]
        acc_r = acc_r.scatter(1, col, 0.0)
        acc_d = acc_d.scatter(1, col, False)
        nxt = torch.where(e, L, nxt).scatter(1, col, t)
    return out_r, out_d, out_n
