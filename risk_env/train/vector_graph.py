"""The graph observation (:mod:`risk_env.envs.graph`) of a batch of games of the batched engine.

:class:`BatchedGraphEncoder` turns the batched engine's flat observations
(:meth:`risk_env.vector.VectorGame.observe`, the same vectors as
:class:`risk_env.ObservationEncoder`) and the positions they come from into the
graph observation's ``nodes`` ``(B, T, F)`` and ``globals`` ``(B, G)``, equal to
:meth:`risk_env.envs.graph.GraphObservationEncoder.encode` of each game (the tests
compare them bit for bit). The edge index is the same for every game of a map: it is
:attr:`BatchedGraphEncoder.edges`, and :attr:`BatchedGraphEncoder.adjacency` is its
row-normalized adjacency for :meth:`risk_env.train.graph_net.GraphNet.forward_dense`.

>>> from risk_env.vector import VectorEnv
>>> env = VectorEnv(4, seed=0, preset="fast")
>>> out = env.reset()
>>> enc = BatchedGraphEncoder(env.game)
>>> nodes, globals_ = enc.encode(env.state, out.observation, out.action_mask, out.current_player)
>>> tuple(nodes.shape), tuple(globals_.shape)
((4, 42, 20), (4, 73))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch

from ..envs.graph import F_SIZE, G_SIZE, GLOBAL_FEATURES, MAX_PLAYERS

if TYPE_CHECKING:
    from ..vector.engine import VectorGame
    from ..vector.state import BatchState

__all__ = ["BatchedGraphEncoder"]


class BatchedGraphEncoder:
    """Graph observations of a batch of games (module docstring).

    Args:
        game: the batched engine (fixes the map, the player count and the device).
        turn_feature: write ``turn / turn_limit`` into ``globals[71]`` (default False, as
            :class:`~risk_env.envs.graph.GraphObservationEncoder`).

    Attributes:
        T, F, G: territories, node features (20), global features (73).
        edges: int64 ``(2, E)`` the edge index (on the game's device).
        adjacency: float32 ``(T, T)`` the row-normalized adjacency (the mean over neighbours).
    """

    def __init__(self, game: VectorGame, turn_feature: bool = False) -> None:
        from .graph_net import GraphNet

        ref = game.game
        m = ref.map
        dev = game.device
        T, n = game.T, game.n
        S = n + 1
        self.game = game
        self.turn_feature = bool(turn_feature)
        self.T, self.F, self.G = T, F_SIZE, G_SIZE
        src = np.asarray(ref.edge_src, dtype=np.int64)
        dst = np.asarray(ref.edge_dst, dtype=np.int64)
        self.edges = torch.as_tensor(np.stack([src, dst]), device=dev)
        self.adjacency = GraphNet.mean_adjacency(self.edges, T)
        self._src, self._dst = self.edges[0], self.edges[1]
        cont = np.asarray(m.territory_continent, dtype=np.int64)
        C = len(m.continent_names)
        sizes = np.asarray(m.continent_members, dtype=bool).sum(axis=1).astype(np.float64)
        degree = np.bincount(src, minlength=T).astype(np.float64)
        static = np.zeros((T, 3), dtype=np.float32)  # float64 maths rounded once, as the reference encoder
        static[:, 0] = np.asarray(m.continent_bonus, dtype=np.float64)[cont] / 10.0
        static[:, 1] = sizes[cont] / T
        static[:, 2] = degree / 6.0
        self._static = torch.as_tensor(static, device=dev)
        self._cont = torch.as_tensor(cont.copy(), device=dev)
        self._C = C
        self._W = game.num_seats + 1  # owner buckets: the seats (and the neutral), then unclaimed
        self._size_t = torch.as_tensor(sizes[cont].astype(np.float32), device=dev)
        self._degree = torch.as_tensor(np.maximum(degree, 1.0).astype(np.float32), device=dev)
        self._c10 = torch.tensor(10.0, device=dev)
        # the flat observation's owner slots 0..n-1 (seats from the observer) and n (the neutral)
        # go to node columns 0..n-1 and 6
        self._slot_cols = torch.as_tensor([*range(n), MAX_PLAYERS], device=dev)
        o = game._obs_off
        GF = GLOBAL_FEATURES
        pairs: list[tuple[int, int]] = []  # (globals index, flat index)

        def block(name: str, g_start: int, size: int) -> None:
            pairs.extend((g_start + k, o[name] + k) for k in range(size))

        for name, size in (("phase", 8), ("acting", 1), ("to_place", 1), ("flags", 5), ("my_cards", 5)):
            block(name, GF[name].start, size)
        for name, size in (("trade_pending", 13), ("trade_value", 1), ("battle", 3), ("cards", n), ("alive", n)):
            block(name, GF[name].start, size)
        for name in ("on_turn", "territories", "army_total"):
            pairs.extend((GF[name].start + (k if k < n else MAX_PLAYERS), o[name] + k) for k in range(S))
        if self.turn_feature:
            block("turn", GF["turn"].start, 1)
        self._g_dst = torch.as_tensor([p[0] for p in pairs], device=dev)
        self._g_src = torch.as_tensor([p[1] for p in pairs], device=dev)
        const = torch.zeros(G_SIZE, device=dev)
        const[GF["num_players"]] = torch.tensor(float(n), device=dev) / torch.tensor(float(MAX_PLAYERS), device=dev)
        const[GF["bias"]] = 1.0
        self._g_const = const
        self._o = o
        self._S = S

    def encode(
        self, s: BatchState, flat: torch.Tensor, mask: torch.Tensor, seat: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``nodes`` float32 ``(B, T, F)`` and ``globals`` float32 ``(B, G)`` of each game of ``s`` for
        ``seat`` (int64 ``(B,)``), from its flat observation ``flat`` (float32 ``(B, D)``, from the same
        seat) and that seat's action mask (bool ``(B, N)``; its territory block is the ``legal`` feature)."""
        g = self.game
        B, T, S, o = flat.shape[0], self.T, self._S, self._o
        dev = flat.device
        nodes = torch.zeros(B, T, F_SIZE, device=dev)
        owner_1h = flat[:, o["owner"] : o["owner"] + T * S].view(B, T, S)
        nodes[:, :, self._slot_cols] = owner_1h
        nodes[:, :, 7] = (owner_1h.sum(-1) == 0).float()
        nodes[:, :, 8] = flat[:, o["armies"] : o["armies"] + T]
        nodes[:, :, 9:11] = flat[:, o["selected"] : o["selected"] + 2 * T].view(B, T, 2)
        if g.NC:
            Tc = min(T, g.NC)
            nodes[:, :Tc, 11] = (s.card_loc[:, :Tc] == seat[:, None]).float()
        nodes[:, :, 12] = mask[:, :T].float()
        nodes[:, :, 13:15] = self._static[:, :2]
        nodes[:, :, 19] = self._static[:, 2]
        own = s.owner
        cont = self._cont[None, :].expand(B, T)
        # continent shares: mine, and each territory's owner's
        mine = (own == seat[:, None]).float()
        mine_c = torch.zeros(B, self._C, device=dev).scatter_add_(1, cont, mine)
        nodes[:, :, 15] = mine_c.gather(1, cont) / self._size_t
        W = self._W
        key = cont * W + torch.where(own >= 0, own, W - 1)
        cnt = torch.zeros(B, self._C * W, device=dev).scatter_add_(1, key, torch.ones(B, T, device=dev))
        nodes[:, :, 16] = torch.where(own >= 0, cnt.gather(1, key) / self._size_t, 0.0)
        # neighbours held by another owner (both claimed), and their armies
        os_, od = own[:, self._src], own[:, self._dst]
        foreign = (os_ != od) & (od >= 0) & (os_ >= 0)
        src = self._src[None, :].expand(B, -1)
        nf = torch.zeros(B, T, device=dev).scatter_add_(1, src, foreign.float())
        nodes[:, :, 17] = nf / self._degree
        fa = torch.zeros(B, T, dtype=torch.int64, device=dev).scatter_add_(
            1, src, torch.where(foreign, s.armies[:, self._dst], 0)
        )
        nodes[:, :, 18] = fa.float() / self._c10
        glob = self._g_const.expand(B, -1).clone()
        glob[:, self._g_dst] = flat[:, self._g_src]
        return nodes, glob
