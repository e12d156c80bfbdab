"""How batched games end and what each player gets: the AEC env's rewards of a step, and the
instant wins of secret missions and capitals (docs/rules.md §4.5, §8).

The batched form of :mod:`risk_env.rules.outcome` and :mod:`risk_env.rules.missions`:
plain functions of a :class:`~risk_env.vector.engine.VectorGame` and a
:class:`~risk_env.vector.state.BatchState`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch

from ..rules.missions import MISSIONS, TWENTY_FOUR
from .masks import take
from .state import GAME_OVER, BatchState, StepInfo

if TYPE_CHECKING:
    from .engine import VectorGame

__all__ = ["MissionTables", "rank_rewards", "rewards", "variant_win"]

_KINDS = {"continents": 0, "territories": 1, "destroy": 2}


class MissionTables:
    """The mission cards (:data:`risk_env.rules.missions.MISSIONS`) as tensors on the game's
    device: kind, continents needed, "and one other", territories and armies needed, target."""

    def __init__(self, game: VectorGame) -> None:
        names = list(game.game.map.continent_names)
        dev = game.device
        M, C = len(MISSIONS), len(names)
        need = np.zeros((M, C), dtype=bool)
        for i, m in enumerate(MISSIONS):
            for c in m.continents:
                need[i, names.index(c)] = True
        self.kind = torch.tensor([_KINDS[m.kind] for m in MISSIONS], device=dev)
        self.need = torch.as_tensor(need, device=dev)
        self.plus_one = torch.tensor([m.plus_one for m in MISSIONS], device=dev)
        self.territories = torch.tensor([m.territories for m in MISSIONS], device=dev)
        self.min_armies = torch.tensor([m.min_armies for m in MISSIONS], device=dev)
        self.target = torch.tensor([max(m.target, 0) for m in MISSIONS], device=dev)


def rank_rewards(game: VectorGame, s: BatchState, m: torch.Tensor) -> torch.Tensor:
    """float64 ``(B, n)``: the rank reward of each live player in games ``m`` (0 elsewhere):
    survivors ranked by territories, then armies; place ``i`` of ``k`` is worth ``1 - 2 i / (k - 1)``,
    tied players share the mean of their places, a single survivor gets 0
    (:func:`risk_env.rules.outcome.rank_returns`, the same float64 arithmetic, §4.5)."""
    n = game.n
    own = s.owner[:, None, :] == game.ar_n[None, :, None]  # (B, n, T)
    terr = own.sum(2)
    armies = (own * s.armies[:, None, :]).sum(2)
    key = terr * (1 << 40) + armies  # (armies per player stay far below 2**40)
    alive = s.alive
    k = alive.sum(1)
    better = ((key[:, None, :] > key[:, :, None]) & alive[:, None, :]).sum(2)  # (B, n): live players ranked above
    ties = ((key[:, None, :] == key[:, :, None]) & alive[:, None, :]).sum(2)
    denom = (k - 1).clamp(min=1).double()[:, None]
    acc = torch.zeros(s.batch_size, n, dtype=torch.float64, device=game.device)
    for j in range(n):  # the places a tie spans, summed in order as the reference does
        term = 1.0 - 2.0 * (better + j).double() / denom
        acc = acc + torch.where(j < ties, term, 0.0)
    out = acc / ties.clamp(min=1).double()
    return torch.where(m[:, None] & alive & (k >= 2)[:, None], out, 0.0)


def rewards(game: VectorGame, s: BatchState, info: StepInfo) -> torch.Tensor:
    """float32 ``(B, n)``: the AEC env's rewards of the step ``info`` reports, from the position after it:
    -1 to a seat eliminated in it; when it decides a winner, +1 to the winner and -1 to every other
    live player (a mission or the capitals end the game with survivors, §8); at a truncation each
    live player's rank reward under ``truncation_reward="rank"``, else 0 (the draw) (§4.5)."""
    r = -info.eliminated.float()
    if game.any(info.won):
        seat = game.ar_n[None, :]
        win = info.won[:, None] & (seat == s.winner[:, None])
        lose = info.won[:, None] & s.alive & (seat != s.winner[:, None])
        r = torch.where(win, 1.0, torch.where(lose, -1.0, r))
    if game.config.truncation_reward == "rank" and game.any(info.truncated):
        r = torch.where(info.truncated[:, None], rank_rewards(game, s, info.truncated).float(), r)
    return r


def variant_win(game: VectorGame, s: BatchState, m: torch.Tensor) -> torch.Tensor:
    """Check the instant wins of docs/rules.md §8 in games ``m`` after a move (``Game._variant_win``): a
    completed secret mission (the player on turn first, then the others in turn order; under
    ``mission_target_taken="24_territories"`` a "destroy" mission whose target someone else
    eliminated becomes "hold 24 territories" first), then every capital held by one player. Ends
    those games (winner, game over); returns bool ``(B,)``, the games won."""
    cfg = game.config
    B = s.batch_size
    w = torch.full((B,), -1, dtype=torch.int64, device=game.device)
    if cfg.secret_missions:
        w = torch.where(m, _mission_winner(game, s, m), w)
    if cfg.capitals:
        w = torch.where(m & (w < 0), _capitals_winner(game, s), w)
    won = w >= 0
    s.winner = torch.where(won, w, s.winner)
    s.phase = torch.where(won, GAME_OVER, s.phase)
    return won


def _mission_winner(game: VectorGame, s: BatchState, m: torch.Tensor) -> torch.Tensor:
    mt = game.missions
    assert mt is not None and s.missions is not None and s.eliminated_by is not None
    n = game.n
    seat = game.ar_n[None, :]
    if game.config.mission_target_taken == "24_territories":
        mission = s.missions
        target = mt.target.index_select(0, mission.reshape(-1)).reshape(mission.shape)
        destroy = mt.kind.index_select(0, mission.reshape(-1)).reshape(mission.shape) == 2
        dead = ~s.alive.gather(1, target)
        by_other = s.eliminated_by.gather(1, target) != seat
        s.missions = torch.where(m[:, None] & destroy & dead & by_other, TWENTY_FOUR, mission)
    mission = s.missions
    flat = mission.reshape(-1)
    kind = mt.kind.index_select(0, flat).reshape(mission.shape)
    own = s.owner[:, None, :] == game.ar_n[None, :, None]  # (B, n, T)
    terr = own.sum(2)
    strong = (own & (s.armies[:, None, :] >= 2)).sum(2)
    need_t = mt.territories.index_select(0, flat).reshape(mission.shape)
    two = mt.min_armies.index_select(0, flat).reshape(mission.shape) > 1
    done_t = torch.where(two, strong, terr) >= need_t
    target = mt.target.index_select(0, flat).reshape(mission.shape)
    done_d = ~s.alive.gather(1, target)
    per_cont = (own.float() @ game.tab.members_f).long()  # (B, n, C)
    held = per_cont == game.tab.cont_size
    need = mt.need.index_select(0, flat).reshape(*mission.shape, -1)
    plus = mt.plus_one.index_select(0, flat).reshape(mission.shape)
    done_c = (held | ~need).all(2) & (~plus | (held & ~need).any(2))
    done = torch.where(kind == 1, done_t, torch.where(kind == 2, done_d, done_c)) & s.alive
    # the player on turn first, then the others in turn order
    start = take(s.order_pos, s.player)
    cand = s.order.gather(1, (start[:, None] + game.ar_n[None, :]) % n)
    ok = done.gather(1, cand)
    first = cand.gather(1, ok.long().argmax(1)[:, None])[:, 0]
    return torch.where(ok.any(1), first, -1)


def _capitals_winner(game: VectorGame, s: BatchState) -> torch.Tensor:
    caps = s.capitals
    assert caps is not None
    chosen = (caps >= 0).all(1)
    holders = s.owner.gather(1, caps.clamp(min=0))  # (B, n) owner of each capital
    h0 = holders[:, 0]
    one = (holders == h0[:, None]).all(1) & (h0 >= 0) & (h0 < game.n)
    return torch.where(chosen & one, h0, -1)
