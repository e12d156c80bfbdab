"""Who plays which seat of each game in the on-device trainer's rollouts.

The trainer steps a self-play :class:`~risk_env.vector.learner.LearnerEnv` (one engine step per
call, every seat's decision returned, rewards, shaping and episode ends per seat) and decides
itself who answers each decision: :class:`Seating` keeps, for every slot's game, which seats are
the learner's and which batched policy plays each other seat. In every call the learner's
network decides in the slots where a learner seat is to act, and each opponent policy decides,
in the same call, in the slots where one of its seats is to act. No slot waits for the others'
opponents to finish their turns, so every engine step advances every game; the learner's
decisions are the training data, the opponents' are not.

The opponents of a new game are drawn by an opponent assignment of :mod:`risk_env.vector.learner`
(:class:`~risk_env.vector.learner.FixedOpponents`, or a :class:`~risk_env.vector.league.League`),
which is told each finished game's learner score (1 won, 0.5 turn limit, 0 lost) for its main
learner seat. A seat the league gives its *latest learner* is played by the learner itself, and
its decisions are training data as well (self-play seats beside the main one). The learner seat rotates over slots and games
(slot ``b``'s ``g``-th game: seat ``(b + g) % n``), as in :class:`~risk_env.vector.learner.LearnerEnv`.
"""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["Seating"]


class Seating:
    """The seats of ``num_envs`` games: learner seats and opponent policies (module docstring).

    Args:
        assignment: an opponent assignment (``policies``, ``names``, ``assign``, ``record``).
        num_envs: slots ``B``; num_players: ``n``; device: the env's device.

    Attributes:
        seating: int64 ``(B, n)``: each seat's policy index in ``assignment.policies``, -1 at the learner's.
        learner_seat: int64 ``(B,)``; games_started: int64 ``(B,)``.
        scores: ``{line-up: [games, score sum]}`` of the finished games since :meth:`take_scores`.
    """

    def __init__(self, assignment: Any, num_envs: int, num_players: int, device: torch.device) -> None:
        self.assignment = assignment
        self.num_envs, self.num_players, self.device = num_envs, num_players, device
        self.seating = torch.full((num_envs, num_players), -1, dtype=torch.int64, device=device)
        self.learner_seat = torch.zeros(num_envs, dtype=torch.int64, device=device)
        self.games_started = torch.zeros(num_envs, dtype=torch.int64, device=device)
        self._ar = torch.arange(num_players, device=device)
        self.scores: dict[str, list[float]] = {}
        self.new_games(torch.arange(num_envs, device=device))

    @property
    def policies(self) -> list[Any]:
        return list(self.assignment.policies)

    @property
    def names(self) -> list[str]:
        return list(self.assignment.names)

    def new_games(self, idx: torch.Tensor) -> None:
        """Seats for the new games in slots ``idx`` (int64 ``(k,)``)."""
        if idx.numel() == 0:
            return
        n = self.num_players
        seat = (idx + self.games_started[idx]) % n
        self.games_started[idx] += 1
        self.learner_seat[idx] = seat
        rows = self.assignment.assign(idx, seat, n).to(device=self.device, dtype=torch.int64)
        mine = self._ar[None, :] == seat[:, None]
        latest = getattr(self.assignment, "latest", None)
        if latest is not None:  # a league's latest learner: the learner itself plays that seat too
            mine = mine | (rows == latest)
        self.seating[idx] = torch.where(mine, -1, rows)

    def learners(self) -> torch.Tensor:
        """bool ``(B, n)``: the learner seats."""
        return self.seating < 0

    def is_learner(self, seat: torch.Tensor) -> torch.Tensor:
        """bool ``(B,)``: ``seat`` (int64 ``(B,)``) is a learner seat of its slot's game."""
        return self.seating.gather(1, seat[:, None])[:, 0] < 0

    def opponent_actions(self, state: Any, mask: torch.Tensor, seat: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """``ids`` with the opponents' choices where an opponent seat ``seat`` is to act."""
        who = self.seating.gather(1, seat[:, None])[:, 0]
        for k, policy in enumerate(self.assignment.policies):
            rows = who == k
            if bool(rows.any()):
                ids = torch.where(rows, policy(state, mask, rows), ids)
        return ids

    def finish(self, done: torch.Tensor, actor: torch.Tensor, terminated: torch.Tensor, truncated: torch.Tensor) -> None:
        """Games that ended in a call: score the learner (1 won, 0.5 turn limit, 0 lost), report it to
        the assignment, and seat the slots' new games.

        Args:
            done: bool ``(B,)`` the slots whose game ended (auto-reset) in the call.
            actor: int64 ``(B,)`` the seat that decided in the call (a game is won by its own move).
            terminated, truncated: bool ``(B, n)`` the call's per-seat episode ends.
        """
        if not bool(done.any()):
            return
        idx = done.nonzero()[:, 0]
        seat = self.learner_seat[idx]
        won = (actor[idx] == seat) & terminated[idx].gather(1, seat[:, None])[:, 0]
        trunc = truncated[idx].gather(1, seat[:, None])[:, 0]
        score = torch.where(won, 1.0, torch.where(trunc, 0.5, 0.0))
        rows = self.seating[idx]
        self.assignment.record(rows, score)
        names = self.assignment.names
        for row, sc in zip(rows.tolist(), score.tolist(), strict=True):
            opp = [names[k] for k in row if k >= 0]
            label = (opp[0] if len(set(opp)) == 1 else "+".join(opp)) if opp else "self"
            tally = self.scores.setdefault(label, [0.0, 0.0])
            tally[0] += 1.0
            tally[1] += float(sc)
        self.new_games(idx)

    def take_scores(self) -> dict[str, tuple[int, float]]:
        """``{line-up: (games, mean learner score)}`` since the last call."""
        out = {k: (int(g), s / g) for k, (g, s) in self.scores.items() if g}
        self.scores.clear()
        return out
