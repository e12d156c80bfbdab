"""A league of opponents for the learner-seat env: heuristics, past snapshots of the learner and the
latest learner, drawn per opponent seat whenever a slot starts a new game, optionally by PFSP.

>>> import torch
>>> from risk_env.vector.learner import LearnerEnv
>>> from risk_env.vector.league import League
>>> from risk_env.vector.network import NetworkPolicy
>>> env = LearnerEnv(16, seed=0, preset="fast", num_players=3, opponents="random")
>>> league = League(env.game, env.generator, baselines=["random", "aggressive"], p_snapshot=0.5)
>>> env.assignment = league  # or LearnerEnv(..., opponents=league)
>>> net = torch.nn.Linear(env.observation_size, env.num_actions)
>>> league.add_snapshot(NetworkPolicy(env.game, net).frozen("snap-1"))
2
>>> out = env.reset()

Draws (the scheme of the SB3 path's :class:`risk_env.envs.opponents.OpponentPool`, per
opponent seat of each new game, independently, on the env's device):

* with probability ``p_snapshot`` (once there is a snapshot or a latest learner) a learner:
  the latest learner (:meth:`League.set_latest`, else the newest snapshot) with probability
  ``p_latest``, otherwise one of the kept snapshots, uniformly or by PFSP priority;
* otherwise a baseline, with probabilities proportional to ``weights`` (times the PFSP priority).

PFSP (prioritized fictitious self-play, as :mod:`risk_env.train.pfsp` does for the SB3 path):
give a tracker (``pfsp=PFSPTracker(power, window)``, or anything with its ``record(keys, score)``
and ``priorities(keys)``); the league then records every finished learner episode (the
learner's score, 1 won, 0.5 turn limit, 0 lost, against each distinct opponent of that game,
by name) and draws baselines and older snapshots proportionally to ``weight * (1 - win
rate) ** power``. The latest learner is never prioritized (it changes under the results).

At most ``max_snapshots`` snapshots are drawn from (when one more is added, the oldest is
retired, except the very first, kept as an anchor). A retired policy keeps its index (games
in progress may still use it) and is never drawn again.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np
import torch

from ..envs.opponents import kept_snapshots
from ..errors import ConfigError
from .agents import BatchedPolicy
from .specs import batched_policy, spec_text

__all__ = ["League", "ResultTracker"]

LATEST = "latest"
"""The name of the latest learner in a league's names and results."""


class ResultTracker(Protocol):
    """What PFSP needs (:class:`risk_env.train.pfsp.PFSPTracker` is one)."""

    def record(self, opponents: Iterable[str], score: float) -> None: ...

    def priorities(self, keys: Iterable[str] | None = None) -> dict[str, float]: ...


def _label(baseline: Any) -> str:
    return baseline if isinstance(baseline, str) else str(getattr(baseline, "name", type(baseline).__name__))


class League:
    """Opponents drawn per seat for the new games of a :class:`~risk_env.vector.learner.LearnerEnv` (module docstring).

    Args:
        game: the env's :class:`~risk_env.vector.VectorGame`.
        generator: the ``torch.Generator`` the draws (and the random baseline) use, on the engine's device.
        baselines: specs (:func:`~risk_env.vector.specs.batched_policy`: ``"random"``, a batched heuristic, a
            pretrained agent's name, a policy file or a MaskablePPO ``.zip``) or :class:`BatchedPolicy` objects; >= 1.
        weights: their relative weights: finite numbers >= 0, not all zero (default equal); numpy numbers too.
        p_snapshot: the probability of a learner opponent (once there is one), in [0, 1] (module docstring).
        p_latest: the probability that a learner opponent is the latest learner (else a kept snapshot), in [0, 1].
        max_snapshots: snapshots drawn from (>= 1).
        pfsp: a result tracker for PFSP, or None (off).

    Raises:
        ConfigError: no baselines, bad weights (not one finite non-negative number per baseline, or all zero;
            the message names the entry), bad probabilities, a ``pfsp`` that is no result tracker (``True``, say),
            or an unknown baseline name; AgentRulesError (a ConfigError): a network that does not fit the rules.
    """

    def __init__(
        self,
        game: Any,
        generator: torch.Generator,
        baselines: Sequence[str | BatchedPolicy] = ("random",),
        weights: Sequence[float] | None = None,
        p_snapshot: float = 0.5,
        p_latest: float = 0.5,
        max_snapshots: int = 10,
        pfsp: ResultTracker | None = None,
    ) -> None:
        if isinstance(baselines, (str, bytes)) or not isinstance(baselines, Sequence):
            raise ConfigError(
                f"baselines must be a list of specs or batched policies (such as ['balanced', 'ppo-4p']), got {baselines!r}"
            )
        if not baselines:
            raise ConfigError("a league needs at least one baseline opponent")
        n = len(baselines)
        want = f"weights must be {n} finite non-negative numbers (one per baseline), not all zero, or None (equal)"
        if weights is None:
            w = [1.0] * n
        else:
            given = list(weights) if isinstance(weights, Iterable) and not isinstance(weights, (str, bytes)) else None
            if given is None or len(given) != n:
                raise ConfigError(f"{want}; got {weights!r}")
            for i, x in enumerate(given):
                if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real) or not math.isfinite(x) or x < 0:
                    raise ConfigError(f"{want}; weights[{i}] = {x!r} (for baseline {_label(baselines[i])!r}) is not")
            w = [float(x) for x in given]
            if sum(w) <= 0:
                raise ConfigError(f"{want}; got {weights!r}")
        if pfsp is not None and (
            isinstance(pfsp, type) or not all(callable(getattr(pfsp, m, None)) for m in ("record", "priorities"))
        ):
            raise ConfigError(
                f"pfsp must be None (off) or a result tracker with record(keys, score) and priorities(keys) "
                f"(risk_env.train.pfsp.PFSPTracker), got {pfsp!r}"
            )
        for label, p in (("p_snapshot", p_snapshot), ("p_latest", p_latest)):
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
                raise ConfigError(f"{label} must be a number in [0, 1], got {p!r}")
        if isinstance(max_snapshots, bool) or not isinstance(max_snapshots, int) or max_snapshots < 1:
            raise ConfigError(f"max_snapshots must be an integer >= 1, got {max_snapshots!r}")
        self.game = game
        self.generator = generator
        self.policies: list[BatchedPolicy] = []
        self.names: list[str] = []
        for b in baselines:
            text = spec_text(b)  # (" Balanced" names "balanced": the same baseline twice is refused by its name)
            label = text if text is not None else str(getattr(b, "name", type(b).__name__))
            if label.strip().lower() == LATEST:  # (any case; refused before set_latest collides mid-run)
                raise ConfigError(
                    f"a league baseline may not be named {LATEST!r}: the league names the latest learner so; "
                    "give the baseline another name (rename its file, or its policy's name)"
                )
            pol: Any = batched_policy(text, game, generator) if text is not None else b
            self._add(pol, label)
        self.baselines = list(range(len(baselines)))
        self.weights = [x / sum(w) for x in w]
        self.p_snapshot = float(p_snapshot)
        self.p_latest = float(p_latest)
        self.max_snapshots = max_snapshots
        self.pfsp = pfsp
        self.snapshots: list[int] = []
        """Indices (into ``policies``) of the snapshots drawn from, oldest first."""
        self.latest: int | None = None
        self.games = 0
        """Finished learner episodes recorded."""
        self._probs: torch.Tensor | None = None

    def _add(self, policy: BatchedPolicy, name: str) -> int:
        if not callable(policy):
            raise ConfigError(f"a league opponent must be a batched policy (state, mask, active) -> ids; got {policy!r}")
        if name in self.names:
            raise ConfigError(f"the league already has an opponent named {name!r}; give each a new name")
        self.policies.append(policy)
        self.names.append(name)
        self._probs = None
        return len(self.policies) - 1

    # ------------------------------------------------------------------ the trainer's side
    def add_snapshot(self, policy: BatchedPolicy, name: str | None = None) -> int:
        """Add a frozen snapshot of the learner (e.g. :meth:`NetworkPolicy.frozen`); returns its index.

        Raises:
            ConfigError: not a policy, or a name the league already has.
        """
        label = name or str(getattr(policy, "name", f"snapshot-{len(self.snapshots) + 1}"))
        if label.strip().lower() == LATEST:
            raise ConfigError(f"a snapshot may not be named {LATEST!r}: the league names the latest learner so")
        k = self._add(policy, label)
        self.snapshots = kept_snapshots([*self.snapshots, k], self.max_snapshots)
        return k

    def set_latest(self, policy: BatchedPolicy) -> int:
        """The latest learner (a policy over the trainer's live network); replaces the previous one."""
        if self.latest is not None:
            self.policies[self.latest] = policy
            self._probs = None
            return self.latest
        self.latest = self._add(policy, LATEST)
        return self.latest

    def win_rates(self) -> dict[str, float]:
        """The learner's PFSP win rate against each opponent drawn now (:meth:`opponent_names`; empty without PFSP)."""
        if self.pfsp is None:
            return {}
        rate = getattr(self.pfsp, "win_rate", None)
        return {k: float(rate(k)) for k in self.opponent_names()} if callable(rate) else {}

    def opponent_names(self) -> list[str]:
        """The names of the opponents drawn now: the baselines and the kept snapshots (not the latest learner)."""
        return [self.names[i] for i in (*self.baselines, *self.snapshots)]

    def probabilities(self) -> torch.Tensor:
        """float64 ``(len(policies),)``: the probability that an opponent seat of a new game gets each policy."""
        if self._probs is not None:
            return self._probs
        pri = self.pfsp.priorities(self.opponent_names()) if self.pfsp else {}
        P = [0.0] * len(self.policies)
        learners = self.snapshots or ([] if self.latest is None else [self.latest])
        p_learner = self.p_snapshot if learners else 0.0
        base = [self.weights[j] * pri.get(self.names[j], 1.0) for j in self.baselines]
        if sum(base) <= 0:
            base = list(self.weights)
        for j, x in zip(self.baselines, base, strict=True):
            P[j] += (1.0 - p_learner) * x / sum(base)
        if p_learner:
            newest = self.latest if self.latest is not None else self.snapshots[-1]
            older = self.snapshots
            p_new = self.p_latest if older else 1.0
            P[newest] += p_learner * p_new
            if older and p_new < 1.0:
                ws = [pri.get(self.names[i], 1.0) for i in older]
                if sum(ws) <= 0:
                    ws = [1.0] * len(older)
                for i, x in zip(older, ws, strict=True):
                    P[i] += p_learner * (1.0 - p_new) * x / sum(ws)
        self._probs = torch.tensor(P, dtype=torch.float64, device=self.game.device)
        return self._probs

    # ------------------------------------------------------------------ the env's side
    def assign(self, slots: torch.Tensor, learner_seat: torch.Tensor, num_players: int) -> torch.Tensor:
        """int64 ``(k, n)``: a drawn policy index per seat of the new games in ``slots`` (the learner's is ignored)."""
        k = int(slots.shape[0])
        return torch.multinomial(self.probabilities(), k * num_players, replacement=True, generator=self.generator).view(
            k, num_players
        )

    def record(self, seating: torch.Tensor, score: torch.Tensor) -> None:
        """Record finished learner episodes (each game's distinct opponents by name, the learner's score)."""
        self.games += int(seating.shape[0])
        if self.pfsp is None:
            return
        now = set(self.opponent_names())  # (a game begun against a snapshot dropped since: no result to keep)
        for row, sc in zip(seating.tolist(), score.tolist(), strict=True):
            keys = {self.names[i] for i in row if i >= 0 and self.names[i] in now}
            self.pfsp.record(sorted(keys), float(sc))
        self._probs = None
