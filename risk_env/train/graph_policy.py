"""A territory-graph actor-critic for sb3-contrib's ``MaskablePPO``.

:class:`GraphPolicy` reads the graph observation (:mod:`risk_env.envs.graph`,
``observation="graph"``) and is plain torch (no graph library):

1. a shared per-territory encoder: ``h_t = MLP(nodes[t])`` (``F -> d``), and a
   global encoder ``z = MLP(globals)`` (``G -> d``);
2. ``rounds`` rounds of mean-over-neighbours message passing, each
   ``h <- LayerNorm(h + ReLU(W [h_t, mean_{u in N(t)} h_u, z]))`` (``N(t)`` from the
   observation's edge index);
3. a pooled summary ``p = [mean_t h_t, max_t h_t, z]`` (``3d``);
4. territory logits (action ids ``0 .. T-1``, the codec's territory block) from
   each node's embedding and the summary: ``MLP([h_t, p]) -> 1``; the other
   action blocks (amounts, dice, blitz, trades, end: ``N - T`` ids, the same for
   every map) from the summary: ``MLP(p) -> N - T``;
5. the value from the summary: ``MLP(p) -> 1``.

Every weight is shared across territories, so one network serves every map
and, because owners are relative to the observer in fixed slots, every player
count from 2 to 6 (:meth:`GraphPolicy.logits_and_value` takes any ``T`` and
``E``). Masked logits are set to the most negative float by sb3-contrib's
masked distribution, so illegal ids get probability 0.

>>> from sb3_contrib import MaskablePPO
>>> from risk_env.envs.single_agent import RiskSingleAgentEnv
>>> from risk_env.train.graph_policy import GraphPolicy
>>> env = RiskSingleAgentEnv(num_players=2, observation="graph")
>>> model = MaskablePPO(GraphPolicy, env, n_steps=64, batch_size=64)  # doctest: +SKIP

Args (``policy_kwargs``): ``hidden`` (``d``, default 64), ``rounds`` (default 3).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from ..errors import ConfigError

__all__ = ["GraphNet", "GraphPolicy"]

GRAPH_KEYS = ("nodes", "edges", "globals")


class GraphNet(nn.Module):
    """The network of :class:`GraphPolicy` (module docstring), usable on its own.

    Args:
        node_dim: ``F``; global_dim: ``G``; n_other: the non-territory action ids ``N - T``;
        hidden: ``d``; rounds: message-passing rounds.

    The linear maps of concatenations are split into a per-territory part and a
    per-position part (the same maths, computed once per position where it can be),
    and when every observation of a batch has the same edge index (one map) the
    neighbour mean is one matrix product with the row-normalized adjacency.
    """

    def __init__(self, node_dim: int, global_dim: int, n_other: int, hidden: int = 64, rounds: int = 3) -> None:
        super().__init__()
        d = hidden
        self.node_in = nn.Sequential(nn.Linear(node_dim, d), nn.ReLU(), nn.Linear(d, d), nn.ReLU())
        self.glob_in = nn.Sequential(nn.Linear(global_dim, d), nn.ReLU())
        # round k: ReLU(W_self h + W_nbr mean_nbr(h) + W_glob z + b)
        self.mp_self = nn.ModuleList([nn.Linear(d, d) for _ in range(rounds)])
        self.mp_nbr = nn.ModuleList([nn.Linear(d, d, bias=False) for _ in range(rounds)])
        self.mp_glob = nn.ModuleList([nn.Linear(d, d, bias=False) for _ in range(rounds)])
        self.norms = nn.ModuleList([nn.LayerNorm(d) for _ in range(rounds)])
        # territory logit: MLP([h_t, pooled]) with the first layer split
        self.terr_node = nn.Linear(d, d)
        self.terr_pool = nn.Linear(3 * d, d, bias=False)
        self.terr_out = nn.Linear(d, 1)
        self.other_head = nn.Sequential(nn.Linear(3 * d, d), nn.ReLU(), nn.Linear(d, n_other))
        self.value_head = nn.Sequential(nn.Linear(3 * d, d), nn.ReLU(), nn.Linear(d, 1))
        for last, gain in ((self.terr_out, 0.01), (self.other_head[-1], 0.01), (self.value_head[-1], 1.0)):
            if isinstance(last, nn.Linear):
                nn.init.orthogonal_(last.weight, gain=gain)
                nn.init.zeros_(last.bias)
        self._adj_key: tuple[int, bytes] | None = None
        self._adj: th.Tensor | None = None

    def _neighbour_mean(self, edges: th.Tensor, T: int, dtype: th.dtype) -> Any:
        """A function ``h -> mean over neighbours of h`` for this batch's edge index ``(B, 2, E)``."""
        B = edges.shape[0]
        src, dst = edges[:, 0], edges[:, 1]
        if B == 1 or bool((edges == edges[:1]).all()):
            e0 = edges[0]
            key = (T, e0.cpu().numpy().tobytes())
            if self._adj is None or self._adj_key != key or self._adj.device != edges.device or self._adj.dtype != dtype:
                A = th.zeros(T, T, dtype=dtype, device=edges.device)
                A.index_put_((e0[1], e0[0]), th.ones(e0.shape[1], dtype=dtype, device=edges.device), accumulate=True)
                A = A / A.sum(dim=1, keepdim=True).clamp_min(1.0)
                self._adj, self._adj_key = A, key
            A = self._adj
            return lambda h: th.matmul(A, h)
        deg = th.zeros(B, T, dtype=dtype, device=edges.device).scatter_add_(1, dst, th.ones_like(dst, dtype=dtype))
        deg = deg.clamp_min(1.0).unsqueeze(-1)

        def mean(h: th.Tensor) -> th.Tensor:
            d = h.shape[-1]
            msg = th.gather(h, 1, src.unsqueeze(-1).expand(-1, -1, d))
            return th.zeros_like(h).scatter_add_(1, dst.unsqueeze(-1).expand(-1, -1, d), msg) / deg

        return mean

    def forward(self, nodes: th.Tensor, edges: th.Tensor, globals_: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """``nodes`` float ``(B, T, F)``, ``edges`` integer ``(B, 2, E)`` (float ids are
        rounded), ``globals_`` float ``(B, G)`` -> logits ``(B, T + n_other)``, value ``(B, 1)``."""
        T = nodes.shape[1]
        idx = edges.round().long() if edges.is_floating_point() else edges.long()
        nbr_mean = self._neighbour_mean(idx, T, nodes.dtype)
        h = self.node_in(nodes)
        z = self.glob_in(globals_)
        for ws, wn, wg, norm in zip(self.mp_self, self.mp_nbr, self.mp_glob, self.norms, strict=True):
            h = norm(h + th.relu(ws(h) + wn(nbr_mean(h)) + wg(z).unsqueeze(1)))
        pooled = th.cat([h.mean(dim=1), h.amax(dim=1), z], dim=-1)
        terr = self.terr_out(th.relu(self.terr_node(h) + self.terr_pool(pooled).unsqueeze(1))).squeeze(-1)
        other = self.other_head(pooled)
        return th.cat([terr, other], dim=-1), self.value_head(pooled)


class _Raw(BaseFeaturesExtractor):
    """Passes the observation dict through (GraphPolicy reads it itself)."""

    def __init__(self, observation_space: spaces.Space) -> None:
        super().__init__(observation_space, features_dim=1)

    def forward(self, observations: Any) -> Any:
        return observations


class GraphPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy on the graph observation (module docstring).

    Args:
        observation_space: the env's graph ``Dict`` space (keys ``nodes``, ``edges``, ``globals``).
        action_space: ``Discrete(N)`` with the territory block first (``N > T``).
        lr_schedule: from SB3.
        hidden: embedding width ``d`` (default 64).
        rounds: message-passing rounds (default 3).
        **kwargs: the other ``MaskableActorCriticPolicy`` arguments (``net_arch``,
            ``activation_fn`` and ``features_extractor_class`` are ignored).

    Raises:
        ConfigError: the spaces are not the graph observation and a ``Discrete`` action space.
    """

    def __init__(
        self,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        lr_schedule: Any,
        hidden: int = 64,
        rounds: int = 3,
        **kwargs: Any,
    ) -> None:
        if not isinstance(observation_space, spaces.Dict) or any(k not in observation_space.spaces for k in GRAPH_KEYS):
            raise ConfigError(
                "GraphPolicy needs the graph observation (a Dict with 'nodes', 'edges', 'globals'): "
                f"build the env with observation='graph'; got {observation_space}"
            )
        if not isinstance(action_space, spaces.Discrete):
            raise ConfigError(f"GraphPolicy needs a Discrete action space, got {action_space}")
        if int(hidden) < 1 or int(rounds) < 0:
            raise ConfigError(f"hidden must be >= 1 and rounds >= 0, got hidden={hidden!r}, rounds={rounds!r}")
        self.hidden = int(hidden)
        self.rounds = int(rounds)
        for k in ("net_arch", "activation_fn", "features_extractor_class", "features_extractor_kwargs"):
            kwargs.pop(k, None)
        super().__init__(observation_space, action_space, lr_schedule, features_extractor_class=_Raw, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        for k in ("net_arch", "activation_fn", "features_extractor_class", "features_extractor_kwargs"):
            data.pop(k, None)
        data.update(hidden=self.hidden, rounds=self.rounds)
        return data

    def _build(self, lr_schedule: Any) -> None:
        obs_space: Any = self.observation_space
        T, F = obs_space["nodes"].shape
        G = obs_space["globals"].shape[0]
        n = int(self.action_space.n)  # type: ignore[attr-defined]
        if n <= T:
            raise ConfigError(f"the action space ({n} ids) must have the {T} territory ids first and more after them")
        self.graph_net = GraphNet(F, G, n - T, self.hidden, self.rounds)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)  # type: ignore[call-arg]

    # ------------------------------------------------------------------ network
    def logits_and_value(self, obs: dict[str, th.Tensor]) -> tuple[th.Tensor, th.Tensor]:
        """Raw action logits ``(B, N)`` and values ``(B, 1)`` for a batch of graph observations
        (any map: ``T`` and ``E`` are read from the tensors)."""
        return self.graph_net(obs["nodes"].float(), obs["edges"], obs["globals"].float())

    def _dist(self, logits: th.Tensor, action_masks: Any) -> MaskableDistribution:
        dist = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            dist.apply_masking(action_masks)
        return dist

    def forward(  # type: ignore[override]
        self, obs: Any, deterministic: bool = False, action_masks: np.ndarray | None = None
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        logits, values = self.logits_and_value(obs)
        dist = self._dist(logits, action_masks)
        actions = dist.get_actions(deterministic=deterministic)
        return actions, values, dist.log_prob(actions)

    def evaluate_actions(  # type: ignore[override]
        self, obs: Any, actions: th.Tensor, action_masks: th.Tensor | None = None
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor | None]:
        logits, values = self.logits_and_value(obs)
        dist = self._dist(logits, action_masks)
        return values, dist.log_prob(actions), dist.entropy()

    def get_distribution(self, obs: Any, action_masks: np.ndarray | None = None) -> MaskableDistribution:  # type: ignore[override]
        logits, _ = self.logits_and_value(obs)
        return self._dist(logits, action_masks)

    def predict_values(self, obs: Any) -> th.Tensor:  # type: ignore[override]
        return self.logits_and_value(obs)[1]

    def check_fits(self, observation: dict[str, np.ndarray]) -> None:
        """Check that one graph observation (with its ``action_mask``) is of rules this network can play.

        The territory block follows the map, but the node features, the global features and the
        non-territory action ids (dice, amounts, trades, the rule switches' blocks) are fixed when
        the network is built.

        Raises:
            ConfigError: a size differs; the message names it and what changes it.
        """
        net = self.graph_net
        F, G = net.node_in[0].in_features, net.glob_in[0].in_features
        n_other = net.other_head[-1].out_features
        T, f = np.shape(observation["nodes"])
        g = int(np.shape(observation["globals"])[0])
        n = int(np.shape(observation["action_mask"])[0])
        where = "train a policy under these rules (or play it under the rules it was trained for)"
        if f != F or g != G:
            raise ConfigError(
                f"this graph policy reads {F} features per territory and {G} global features; the env gives {f} and "
                f"{g} (rule switches such as missions, capitals or the allied army add features): {where}"
            )
        if n - T != n_other:
            raise ConfigError(
                f"this graph policy scores {n_other} action ids besides the {T} territories; the env has {n - T} "
                f"(rule switches such as the expert dice rules or stars trades change that block): {where}"
            )

    @th.no_grad()
    def act_on(self, observation: dict[str, np.ndarray], deterministic: bool = True) -> int:
        """One action id for one graph observation of any map (numpy arrays, with its
        ``action_mask``): the most probable legal id, or a sample from the masked policy."""
        self.check_fits(observation)
        obs = {k: th.as_tensor(np.asarray(observation[k])[None], device=self.device) for k in GRAPH_KEYS}
        logits, _ = self.logits_and_value(obs)
        mask = th.as_tensor(np.asarray(observation["action_mask"], dtype=bool)[None], device=self.device)
        dist = MaskableCategorical(logits=logits, masks=mask)
        a = th.argmax(dist.probs, dim=1) if deterministic else dist.sample()
        return int(a.item())
