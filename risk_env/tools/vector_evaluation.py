"""Evaluation on the batched engine: thousands of games in lockstep, the same statistics.

``risk_env.evaluate(agents, ..., backend="vector")`` calls :func:`evaluate_batched`::

    from risk_env.tools.evaluation import evaluate
    result = evaluate(["ppo-2p", "balanced"], num_games=2000, rules="fast", seed=1, backend="vector")
    print(result.table())

Every entrant is a batched policy, read by :func:`risk_env.vector.specs.batched_policy`: ``"random"``, a batched
heuristic (``"aggressive"``, ``"balanced"``, ``"continent"``), a learned network (a shipped
pretrained name such as ``"ppo-2p"``, a sb3-contrib ``MaskablePPO`` ``.zip`` with an
``MlpPolicy`` or the graph policy, a policy file ``.pt`` of the on-device trainer; either suffix may be
left out, as for ``load_agent``), or a
:class:`~risk_env.vector.agents.BatchedPolicy` object. Networks play their most probable legal
id, as ``load_agent`` builds them.

The schedule is the reference backend's (:mod:`risk_env.tools.evaluation`): games come in
blocks of ``num_players``; the games of a block start from the same position (the same deal
and turn order: one new game copied into ``num_players`` slots) and game ``r`` of a block seats
entrant ``(i + r) % n`` in seat ``i``, so each entrant plays each seat once per block. Up to
``batch_size`` games are played at once: in each engine step every game's seat to act is
decided by its entrant's policy (one call per entrant for all the games where it is to act, given
as its seat knows them: :meth:`BatchState.known_to <risk_env.vector.BatchState.known_to>`, a copy
without the other seats' cards and missions, with a copy of their mask; see
:class:`~risk_env.vector.agents.BatchedPolicy`), and a finished game's slot takes the next
scheduled game. Its ids are checked: an id outside the action ids, or illegal, raises
:class:`~risk_env.errors.RiskError`. Results are recorded as the reference
backend records them (winner, truncation as a draw, elimination order and places, turns,
action ids, territories; a turn longer than ``max_turn_steps`` ids stops the game, a loss for
the seat to act), and summarized by the same code: win rates with 95 % Wilson intervals,
places, ratings, the same :class:`~risk_env.tools.stats.EvaluationResult`.

Chance comes from the engine's one generator seeded with ``seed`` (policies that sample draw
from a second one, seeded ``seed + 1``): the same ``seed``, device and ``batch_size`` repeat the
whole evaluation, but games are not replayable one by one and the numbers differ from the
reference backend's (its games have their own seeds). ``EvaluatedGame.seed`` holds the
evaluation's seed, ``seconds`` the wall time from a game's start to its end in lockstep.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import SEED_LIMIT, ConfigError, RiskError, check_flag, check_seed
from ..rules.config import RulesConfig
from .progress import progress_bar
from .stats import EvaluatedGame, EvaluationResult, summarize

__all__ = ["evaluate_batched"]


def _label(spec: Any) -> str:
    from ..agents import agent_label

    return agent_label(spec)


def evaluate_batched(
    specs: Sequence[Any],
    num_games: int,
    rules: RulesConfig,
    seed: int = 0,
    device: str = "cpu",
    batch_size: int | None = None,
    progress: bool = True,
    max_turn_steps: int = 5000,
    labels: Sequence[str] | None = None,
) -> EvaluationResult:
    """Play ``num_games`` games between the batched ``specs`` (one per seat, seats rotated) in lockstep.

    Args:
        specs: one entrant per seat (module docstring); ``len(specs) == rules.num_players``.
        num_games: games (>= 1); a multiple of the player count balances the seats.
        rules: the rules (the batched engine's and, for heuristics, the ones they play).
        seed: seeds the engine and the policies' sampling.
        device: the engine's torch device.
        batch_size: games at once (default ``min(num_games, 4096)``, rounded up to a multiple of the players).
        progress: a tqdm bar over the games (True or False; no bar where tqdm is not installed).
        max_turn_steps: the per-turn cap on action ids: a turn may take that many, as in
            :func:`~risk_env.tools.match.play_match` (a game whose turn goes on after them is stopped).
        labels: entrant labels (default from the specs, a repeated one numbered ``#2``...).

    Returns:
        an :class:`~risk_env.tools.stats.EvaluationResult` (``workers`` is 1).

    Raises:
        ConfigError: a spec the vector backend cannot play, rules it does not support, a bad argument (a ``progress``
            that is not True or False, a ``batch_size`` that is no positive integer), or a batch of
            games that needs more memory than the device has (:meth:`risk_env.vector.VectorGame.check_batch`).
    """
    import torch

    from ..vector import VectorGame
    from ..vector.specs import batched_policy

    n = rules.num_players
    check_flag(progress, "progress")
    if len(specs) != n:
        raise ConfigError(f"give one agent per seat: {n} players need {n} agents, got {len(specs)}")
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1):
        raise ConfigError(f"batch_size must be a positive integer or None, got {batch_size!r}")
    check_seed(seed, torch_seed=True)
    B = min(num_games, batch_size or 4096)
    B = -(-B // n) * n
    game = VectorGame(rules, device=device, seed=int(seed))
    game.check_batch(B, "batch_size")  # (a batch beyond the device's memory is killed, not refused, once made)
    dev = game.device
    gen = torch.Generator(device=dev)
    gen.manual_seed((int(seed) + 1) % SEED_LIMIT)
    policies = [batched_policy(sp, game, gen) for sp in specs]
    if labels is None:
        labels = []
        for sp in specs:
            base, name, k = _label(sp), _label(sp), 1
            while name in labels:
                k += 1
                name = f"{base}#{k}"
            labels.append(name)
    labels = list(labels)
    spec_texts = [sp if isinstance(sp, str) else os.fspath(sp) if isinstance(sp, os.PathLike) else repr(sp) for sp in specs]
    bar = progress_bar(num_games, progress, "games (vector)")
    t0 = time.perf_counter()
    records: list[EvaluatedGame] = []
    play = _Lockstep(game, policies, B, num_games, max_turn_steps)
    try:
        with torch.no_grad():
            while play.running():
                done = play.step()
                for rec in done:
                    records.append(_record(rec, labels, n, int(seed)))
                if done:
                    bar.update(len(done))
    finally:
        bar.close()
    records.sort(key=lambda g: g.index)
    stats = summarize(labels, spec_texts, records, n)
    turns = np.array([g.turns for g in records], dtype=np.float64)
    steps = np.array([g.steps for g in records], dtype=np.float64)
    won = np.array([g.turns for g in records if g.winner is not None], dtype=np.float64)
    return EvaluationResult(
        entrants=labels,
        specs=spec_texts,
        num_players=n,
        num_games=num_games,
        seed=int(seed),
        workers=1,
        rules=rules.to_dict(),
        games=records,
        stats=stats,
        mean_turns=float(turns.mean()),
        mean_steps=float(steps.mean()),
        decided_mean_turns=float(won.mean()) if len(won) else float("nan"),
        draw_rate=float(np.mean([g.winner is None for g in records])),
        seconds=time.perf_counter() - t0,
    )


class _Lockstep:
    """Up to ``B`` scheduled games in the slots of one batch; a finished slot takes the next game."""

    def __init__(self, game: Any, policies: list[Any], B: int, num_games: int, max_turn_steps: int) -> None:
        import torch

        self.torch = torch
        self.game = game
        self.policies = policies
        self.n = game.n
        self.B = B
        self.num_games = num_games
        self.max_turn_steps = max_turn_steps
        dev = game.device
        self.next_game = 0
        self.slot_game = torch.full((B,), -1, dtype=torch.int64, device=dev)
        self.entrant = torch.zeros(B, self.n, dtype=torch.int64, device=dev)  # seat -> entrant
        self.ids_taken = torch.zeros(B, dtype=torch.int64, device=dev)
        self.turn_ids = torch.zeros(B, dtype=torch.int64, device=dev)  # ids taken in the turn now being played
        self.last_turn = torch.zeros(B, dtype=torch.int64, device=dev)  # that turn's key: turn * 8 + player
        self.elim_step = torch.full((B, self.n), -1, dtype=torch.int64, device=dev)  # ids taken when eliminated
        self.started = [0.0] * B
        self._block_lo = 0
        self._blocks: Any = None
        self.state = game.new_games(B)
        self._ar_n = torch.arange(self.n, device=dev)
        self._assign(torch.arange(B, device=dev))
        self.mask = game.action_mask(self.state)

    def running(self) -> bool:
        return bool((self.slot_game >= 0).any())

    def _block_states(self, blocks: list[int]) -> Any:
        """The starting positions of ``blocks`` (block indices, never below an earlier request's), each
        generated once: a block's games, assigned at different times, start from the same position."""
        torch = self.torch
        from ..vector import BatchState

        lo, need = min(blocks), max(blocks)
        pool = self._blocks
        end = self._block_lo + (pool.batch_size if pool is not None else 0)
        if need >= end:
            fresh = self.game.new_games(max(need - end + 1, self.B // self.n))
            if pool is not None and lo < end:  # keep the blocks still being assigned
                keep = {k: v[lo - self._block_lo :] for k, v in pool.fields().items()}
                fresh = BatchState(**{k: torch.cat([keep[k], v]) for k, v in fresh.fields().items()})
                self._block_lo = lo
            else:
                self._block_lo = end if pool is not None else lo
            self._blocks = fresh
        idx = torch.tensor([b - self._block_lo for b in blocks], dtype=torch.int64, device=self.game.device)
        assert self._blocks is not None
        return BatchState(**{k: v[idx] for k, v in self._blocks.fields().items()})

    def _assign(self, slots: Any) -> None:
        """The next scheduled games into ``slots`` (int64); slots beyond the schedule are emptied."""
        torch = self.torch
        n = self.n
        idx = slots.tolist()
        games = []
        for _ in idx:
            games.append(self.next_game if self.next_game < self.num_games else -1)
            if self.next_game < self.num_games:
                self.next_game += 1
        g = torch.tensor(games, dtype=torch.int64, device=self.game.device)
        self.slot_game[slots] = g
        live = [(s, gi) for s, gi in zip(idx, games, strict=True) if gi >= 0]
        if not live:
            return
        sl = torch.tensor([s for s, _ in live], dtype=torch.int64, device=self.game.device)
        gl = torch.tensor([gi for _, gi in live], dtype=torch.int64, device=self.game.device)
        self.state.put(sl, self._block_states([gi // n for _, gi in live]))
        rot = gl % n
        self.entrant[sl] = (self._ar_n[None, :] + rot[:, None]) % n
        self.ids_taken[sl] = 0
        self.turn_ids[sl] = 0
        self.last_turn[sl] = self.state.turn[sl] * 8 + self.state.player[sl]  # (not the finished game's last turn)
        self.elim_step[sl] = -1
        now = time.perf_counter()
        for s in sl.tolist():
            self.started[s] = now

    def _compact(self, keep: Any) -> None:
        """Drop the empty slots (once no game is left to schedule): later steps cost what the running games need."""
        from ..vector import BatchState

        idx = keep.nonzero()[:, 0]
        self.state = BatchState(**{k: v[idx] for k, v in self.state.fields().items()})
        for name in ("slot_game", "entrant", "ids_taken", "turn_ids", "elim_step", "mask", "last_turn"):
            setattr(self, name, getattr(self, name)[idx])
        self.started = [self.started[i] for i in idx.tolist()]
        self.B = int(idx.numel())

    def _checked(self, k: int, ids: Any, rows: int) -> Any:
        """Entrant ``k``'s answer for ``rows`` games: int64 ``(rows,)`` ids in ``0..N-1``, else a RiskError."""
        torch = self.torch
        N = self.game.num_actions
        if not isinstance(ids, torch.Tensor) or ids.shape != (rows,) or ids.dtype.is_floating_point or ids.dtype == torch.bool:
            got = f"{ids.dtype} {tuple(ids.shape)}" if isinstance(ids, torch.Tensor) else type(ids).__name__
            raise RiskError(
                f"entrant {k} must return an integer tensor of shape ({rows},), one id per game it decides; got {got}"
            )
        ids = ids.to(device=self.game.device, dtype=torch.int64)
        bad = (ids < 0) | (ids >= N)
        if bool(bad.any()):
            raise RiskError(f"entrant {k} chose the id {int(ids[bad][0])}, outside the action ids 0..{N - 1}")
        return ids

    def step(self) -> list[dict[str, Any]]:
        """One engine step of every running game; the records of the games that ended in it."""
        torch = self.torch
        running = self.slot_game >= 0
        if self.next_game >= self.num_games and int(running.sum()) <= self.B // 2:
            self._compact(running)
            running = self.slot_game >= 0
        game, s = self.game, self.state
        cur = game.current_player(s)
        who = self.entrant.gather(1, cur.clamp(min=0)[:, None])[:, 0]
        ids = torch.zeros(self.B, dtype=torch.int64, device=game.device)
        present = torch.bincount(who[running], minlength=self.n).tolist()
        for k in (k for k, c in enumerate(present) if c):
            idx = (running & (who == k)).nonzero()[:, 0]
            # each policy decides the games where its seat acts, from what that seat may know there: a copy
            # (BatchState.known_to), with a copy of their mask; what it writes changes nothing, its ids are checked
            view = s.known_to(cur[idx], idx)
            ids[idx] = self._checked(k, self.policies[k](view, self.mask[idx], None), int(idx.numel()))
        legal = self.mask.gather(1, ids[:, None])[:, 0] | ~running
        if not bool(legal.all()):
            b = int((~legal).nonzero()[0, 0])
            raise RiskError(
                f"entrant {int(who[b])} chose the illegal id {int(ids[b])} in game {int(self.slot_game[b])}; "
                f"legal ids: {self.mask[b].nonzero()[:, 0].tolist()}"
            )
        info = game.step(s, ids, active=running)
        self.ids_taken += running.long()
        key = s.turn * 8 + s.player
        self.turn_ids = torch.where(key != self.last_turn, 0, self.turn_ids + running.long())
        self.last_turn = key
        self.elim_step = torch.where(info.eliminated & (self.elim_step < 0), self.ids_taken[:, None], self.elim_step)
        # as play_match: a turn may take max_turn_steps ids; a game whose turn goes on after that many is stopped
        # (one ended by its last id is not)
        stalled = running & (self.turn_ids >= self.max_turn_steps) & ~(info.won | info.truncated)
        over = running & (info.won | info.truncated | stalled)
        out: list[dict[str, Any]] = []
        if bool(over.any()):
            idx = over.nonzero()[:, 0]
            territories = (s.owner[idx][:, None, :] == self._ar_n[None, :, None]).sum(2)
            now = time.perf_counter()
            table = zip(
                idx.tolist(),
                self.slot_game[idx].tolist(),
                self.entrant[idx].tolist(),
                s.winner[idx].tolist(),
                info.truncated[idx].tolist(),
                stalled[idx].tolist(),
                cur[idx].tolist(),
                s.turn[idx].tolist(),
                self.ids_taken[idx].tolist(),
                self.elim_step[idx].tolist(),
                territories.tolist(),
                strict=True,
            )
            for slot, gi, ent, win, trunc, stall, seat, turns, taken, elim, terr in table:
                order = sorted((e, p) for p, e in enumerate(elim) if e >= 0)
                out.append(
                    dict(
                        index=gi,
                        seating=ent,
                        winner=win if not stall else -1,
                        truncated=bool(trunc) and not stall,
                        stalled_by=seat if stall else -1,
                        turns=turns,
                        steps=taken,
                        elimination_order=[p for _, p in order],
                        territories=terr,
                        seconds=now - self.started[slot],
                    )
                )
            self._assign(idx)
        self.mask = game.action_mask(s)
        return out


def _record(r: dict[str, Any], labels: Sequence[str], n: int, seed: int) -> EvaluatedGame:
    """An :class:`EvaluatedGame` of a finished game, placed as the reference backend places them."""
    seats = [labels[e] for e in r["seating"]]
    places: dict[str, int] = {}
    for k, p in enumerate(r["elimination_order"]):
        places[seats[p]] = n - k
    survivors = n - len(places)
    staller = seats[r["stalled_by"]] if r["stalled_by"] >= 0 else None
    if staller is not None:
        places[staller] = survivors
    winner = r["winner"]
    for i in range(n):
        places.setdefault(seats[i], 2 if 0 <= winner != i else 1)
    return EvaluatedGame(
        index=r["index"],
        seed=seed,
        seats=seats,
        agent_seeds=[seed + 1] * n,
        winner=seats[winner] if winner >= 0 else None,
        truncated=r["truncated"],
        stalled_by=staller,
        turns=r["turns"],
        steps=r["steps"],
        elimination_order=[seats[p] for p in r["elimination_order"]],
        places=places,
        territories={seats[i]: int(r["territories"][i]) for i in range(n)},
        seconds=r["seconds"],
    )
