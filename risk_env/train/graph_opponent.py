"""A graph network (:class:`~risk_env.train.graph_net.GraphNet`) as a batched policy of the batched engine.

:class:`GraphNetPolicy` plays the seat to act in the games it is asked about
(:class:`risk_env.vector.agents.BatchedPolicy`): it encodes their graph observations
(:meth:`risk_env.vector.VectorGame.observe_graph`), runs the network without gradients and
takes the most probable legal id or samples one from the masked softmax, as
:class:`risk_env.vector.network.NetworkPolicy` does for flat-observation networks. The on-device
trainer's self-play snapshots, and any policy file (:func:`graph_policy_from_file`), play in a
:class:`~risk_env.vector.league.League` this way.

>>> import torch
>>> from risk_env.vector import VectorEnv
>>> from risk_env.train.graph_net import GraphNet
>>> env = VectorEnv(4, seed=0, preset="fast")
>>> out = env.reset()
>>> policy = GraphNetPolicy(env.game, GraphNet(20, 73, env.num_actions - env.game.T, hidden=8, rounds=1))
>>> ids = policy(env.state, out.action_mask)
>>> bool(out.action_mask.gather(1, ids[:, None]).all())
True
"""

from __future__ import annotations

import copy
import os
from typing import Any

import torch

from ..vector.network import masked_choice
from ..vector.state import BatchState
from .graph_net import GraphNet, load_policy

__all__ = ["GraphNetPolicy", "graph_policy_from_file"]


class GraphNetPolicy:
    """A :class:`GraphNet` playing the seat to act (module docstring).

    Args:
        game: the :class:`~risk_env.vector.VectorGame` whose positions it plays.
        net: the network (read at each call: a policy over a trainer's live network follows its updates).
        deterministic: the most probable legal id (else a sample from ``generator``).
        generator: the sampling ``torch.Generator`` (default: a new one on the engine's device, seeded 0).
        name: its label (in a league's names and results).
        turn_feature: the network reads ``turn / turn_limit``.

    Raises:
        ConfigError: a network whose sizes do not fit the game's rules.
    """

    def __init__(
        self,
        game: Any,
        net: GraphNet,
        deterministic: bool = False,
        generator: torch.Generator | None = None,
        name: str = "graph_net",
        turn_feature: bool = False,
    ) -> None:
        self.game = game
        self.net = net
        gt = game.graph_tables
        net.check_fits(game.T, gt.F, gt.G, game.num_actions)
        self.adjacency = GraphNet.mean_adjacency(gt.edges, game.T)
        self.deterministic = bool(deterministic)
        if generator is None:
            generator = torch.Generator(device=game.device)
            generator.manual_seed(0)
        self.generator = generator
        self.name = name
        self.turn_feature = bool(turn_feature)

    def frozen(self, name: str | None = None) -> GraphNetPolicy:
        """A copy over a deep copy of the network (eval mode): later training of the original does not move it."""
        net = copy.deepcopy(self.net).eval()
        return GraphNetPolicy(self.game, net, self.deterministic, self.generator, name or self.name, self.turn_feature)

    def __call__(self, state: BatchState, mask: torch.Tensor, active: torch.Tensor | None = None) -> torch.Tensor:
        ids = torch.zeros(state.batch_size, dtype=torch.int64, device=mask.device)
        idx = torch.arange(state.batch_size, device=mask.device) if active is None else active.nonzero()[:, 0]
        if idx.numel() == 0:
            return ids
        sub = state if active is None else BatchState(**{k: v[idx] for k, v in state.fields().items()})
        m = mask[idx]
        seat = sub.player
        g = self.game.observe_graph(sub, seat, m, self.turn_feature)
        with torch.inference_mode():
            logits, _ = self.net.forward_dense(g["nodes"], g["globals"], self.adjacency)
        ids[idx] = masked_choice(logits, m, self.deterministic, self.generator)
        return ids


def graph_policy_from_file(
    game: Any,
    path: str | os.PathLike[str],
    deterministic: bool = True,
    generator: torch.Generator | None = None,
    name: str | None = None,
) -> GraphNetPolicy:
    """A policy file (:func:`~risk_env.train.graph_net.load_policy`) as a batched policy on ``game``'s device.

    Raises:
        RiskError: not a policy file; ConfigError: a network that does not fit the game's rules.
    """
    from pathlib import Path

    net, meta = load_policy(path, device=game.device)
    cfg = meta.get("config") or {}
    turn = bool((cfg.get("env") or {}).get("turn_feature") or False)
    return GraphNetPolicy(game, net, deterministic, generator, name or Path(path).stem, turn)
