"""A territory-graph actor-critic for sb3-contrib's ``MaskablePPO``.

:class:`GraphPolicy` reads the graph observation (:mod:`risk_env.envs.graph`,
``observation="graph"``) with :class:`~risk_env.train.graph_net.GraphNet`, plain torch
(no graph library, no SB3):

a shared per-territory encoder, mean-over-neighbours message passing, territory logits
from each node's embedding, the other action blocks and the value from a pooled summary
(the network's own docstring has the maths).

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

from ..errors import ConfigError
from .graph_net import GraphNet

__all__ = ["GraphNet", "GraphPolicy"]

GRAPH_KEYS = ("nodes", "edges", "globals")


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

    def masked_distribution(self, logits: th.Tensor, action_masks: Any) -> MaskableDistribution:
        """The action distribution of ``logits`` ``(B, N)``, masked by ``action_masks`` (None: unmasked)."""
        dist = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            dist.apply_masking(action_masks)
        return dist

    def forward(  # type: ignore[override]
        self, obs: Any, deterministic: bool = False, action_masks: np.ndarray | None = None
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        logits, values = self.logits_and_value(obs)
        dist = self.masked_distribution(logits, action_masks)
        actions = dist.get_actions(deterministic=deterministic)
        return actions, values, dist.log_prob(actions)

    def evaluate_actions(  # type: ignore[override]
        self, obs: Any, actions: th.Tensor, action_masks: th.Tensor | None = None
    ) -> tuple[th.Tensor, th.Tensor, th.Tensor | None]:
        logits, values = self.logits_and_value(obs)
        dist = self.masked_distribution(logits, action_masks)
        return values, dist.log_prob(actions), dist.entropy()

    def get_distribution(self, obs: Any, action_masks: np.ndarray | None = None) -> MaskableDistribution:  # type: ignore[override]
        logits, _ = self.logits_and_value(obs)
        return self.masked_distribution(logits, action_masks)

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
        T, f = np.shape(observation["nodes"])
        self.graph_net.check_fits(
            int(T), int(f), int(np.shape(observation["globals"])[0]), int(np.shape(observation["action_mask"])[0])
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
