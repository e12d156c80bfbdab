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

import torch

from ..envs.graph import F_SIZE, G_SIZE

if TYPE_CHECKING:
    from ..vector.engine import VectorGame
    from ..vector.state import BatchState

__all__ = ["BatchedGraphEncoder"]


class BatchedGraphEncoder:
    """Graph observations of a batch of games (module docstring): the batched engine's own
    (:meth:`risk_env.vector.VectorGame.observe_graph`, built from the layout that the reference
    encoder reads), with the edge index and the dense adjacency the network takes.

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

        self.game = game
        self.turn_feature = bool(turn_feature)
        self.T, self.F, self.G = game.T, F_SIZE, G_SIZE
        self.edges = game.graph_tables.edges
        self.adjacency = GraphNet.mean_adjacency(self.edges, game.T)

    def encode(
        self, s: BatchState, flat: torch.Tensor, mask: torch.Tensor, seat: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``nodes`` float32 ``(B, T, F)`` and ``globals`` float32 ``(B, G)`` of each game of ``s`` for
        ``seat`` (int64 ``(B,)``), from its flat observation ``flat`` (float32 ``(B, D)``, from the same
        seat) and that seat's action mask (bool ``(B, N)``; its territory block is the ``legal`` feature)."""
        out = self.game.observe_graph(s, seat, mask, self.turn_feature, flat)
        return out["nodes"], out["globals"]
