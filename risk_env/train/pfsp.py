"""Prioritized fictitious self-play (PFSP, Vinyals et al., 2019): draw the opponents the learner loses to more often.

The training envs report every finished episode (``info["episode_score"]``: 1 won,
0.5 turn limit, 0 lost; ``info["episode_opponents"]``: the opponent pool's keys of
that episode's opponents, see :class:`risk_env.train.teacher.TrainingEnvWrapper`).
:class:`PFSPTracker` keeps the last ``window`` scores per opponent key, and
:meth:`PFSPTracker.priorities` turns them into sampling multipliers

    priority(o) = (1 - w(o)) ** power,   w(o) = (sum of scores + 1) / (games + 2)

(the win rate with one win and one loss of prior, so an opponent never seen gets
``0.5 ** power`` and no priority is ever exactly 0). The trainer pushes them to
every env's :class:`~risk_env.envs.opponents.OpponentPool` (``set_priorities``): a
baseline is drawn proportionally to ``weight * priority``, an older snapshot
proportionally to its priority. ``power = 0`` gives uniform priorities (plain
fictitious self-play); larger powers focus harder on the hardest opponents.

A checkpoint keeps the trackers' results (:meth:`PFSPTracker.state_dict`), so a resumed run draws as the run did.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ConfigError

__all__ = ["PFSPTracker"]


class PFSPTracker:
    """Running results per opponent and the PFSP priorities (module docstring).

    Args:
        power: the exponent ``p`` (>= 0).
        window: the most recent results kept per opponent (>= 1).

    Raises:
        ConfigError: a bad ``power`` or ``window``.
    """

    def __init__(self, power: float = 1.0, window: int = 200) -> None:
        if not power >= 0.0:
            raise ConfigError(f"PFSP power must be >= 0, got {power!r}")
        if window < 1:
            raise ConfigError(f"PFSP window must be >= 1, got {window!r}")
        self.power = float(power)
        self.window = int(window)
        self.results: dict[str, deque[float]] = {}
        self.total_games = 0

    def record(self, opponents: Iterable[str], score: float) -> None:
        """Add one finished episode: the learner's ``score`` (0..1) against each of ``opponents``.

        Raises:
            ConfigError: a score outside [0, 1].
        """
        if not 0.0 <= score <= 1.0:
            raise ConfigError(f"an episode score is in [0, 1] (1 won, 0.5 turn limit, 0 lost), got {score!r}")
        for key in set(opponents):
            self.results.setdefault(str(key), deque(maxlen=self.window)).append(float(score))
        self.total_games += 1

    def record_infos(self, infos: Iterable[Mapping[str, object]]) -> int:
        """Record every finished episode among a vector env's ``infos``; returns how many."""
        n = 0
        for info in infos:
            if info and "episode_score" in info:
                opps: Any = info.get("episode_opponents") or []
                score: Any = info["episode_score"]
                self.record([str(o) for o in opps], float(score))
                n += 1
        return n

    def win_rate(self, key: str) -> float:
        """``(sum of scores + 1) / (games + 2)`` over the window (0.5 for an opponent never met)."""
        r = self.results.get(key)
        return 0.5 if not r else (sum(r) + 1.0) / (len(r) + 2.0)

    def games(self, key: str) -> int:
        """Results kept for ``key`` (at most ``window``)."""
        r = self.results.get(key)
        return len(r) if r else 0

    def priorities(self, keys: Iterable[str] | None = None) -> dict[str, float]:
        """``{key: (1 - win_rate) ** power}`` for ``keys`` (default: every opponent met)."""
        ks = list(self.results) if keys is None else [str(k) for k in keys]
        return {k: (1.0 - self.win_rate(k)) ** self.power for k in ks}

    def forget(self, keys: Iterable[str]) -> None:
        """Drop the results of ``keys`` (opponents that are no longer drawn: a snapshot the pool dropped), so the
        results, and a checkpoint's copy of them, hold only the opponents there are."""
        for key in keys:
            self.results.pop(str(key), None)

    def state_dict(self) -> dict[str, Any]:
        """The results as plain values (JSON), for a checkpoint: ``{"results": {key: [score, ...]}, "total_games": n}``."""
        return {"results": {k: list(r) for k, r in self.results.items()}, "total_games": self.total_games}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Replace the results with those of :meth:`state_dict` (each key's last ``window`` scores kept).

        Raises:
            ConfigError: not such a dict, or a score outside [0, 1]; the results are unchanged.
        """
        results: Any = state.get("results") if isinstance(state, Mapping) else None
        total: Any = state.get("total_games") if isinstance(state, Mapping) else None
        ok = isinstance(results, Mapping) and isinstance(total, int) and not isinstance(total, bool) and total >= 0
        for scores in results.values() if ok else ():
            ok = ok and isinstance(scores, list)
            ok = ok and all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0.0 <= x <= 1.0 for x in scores)
        if not ok:
            raise ConfigError(
                "PFSP state must be {'results': {opponent: [scores in [0, 1]]}, 'total_games': int >= 0}, got "
                f"{str(state)[:200]}"
            )
        self.results = {str(k): deque((float(x) for x in v), maxlen=self.window) for k, v in results.items()}
        self.total_games = total
