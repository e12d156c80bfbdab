"""Frozen networks as batched policies: a torch module's masked logits choose the ids.

>>> import torch
>>> from risk_env.vector import VectorEnv
>>> from risk_env.vector.network import NetworkPolicy
>>> env = VectorEnv(8, seed=0, preset="fast")
>>> out = env.reset()
>>> net = torch.nn.Linear(env.observation_size, env.num_actions)  # any module: observation -> logits
>>> policy = NetworkPolicy(env.game, net, deterministic=True)
>>> ids = policy(env.state, out.action_mask)
>>> bool(out.action_mask.gather(1, ids[:, None]).all())
True

A :class:`NetworkPolicy` plays the seat to act in each game it is asked about (a
:class:`~risk_env.vector.agents.BatchedPolicy`): it builds those games' observations from
that seat (the flat :class:`risk_env.ObservationEncoder` vectors, via
:meth:`~risk_env.vector.VectorGame.observe`, or the graph observation, via
:meth:`~risk_env.vector.VectorGame.observe_graph`, bit for bit the AEC env's, fed as
``net(nodes, edges, globals)`` as :class:`risk_env.train.graph_net.GraphNet` takes it),
runs the network without gradients, sets
the logits of illegal ids to the most negative float (as sb3-contrib's masked
distribution does) and takes the most probable legal id (``deterministic=True``) or
samples one from the masked softmax with its own generator. The network's parameters
are read at each call, so a policy over the live network of a trainer follows its
updates (the league's *latest learner*), and one over a copy stays frozen
(:meth:`NetworkPolicy.frozen`).

:func:`load_maskable_ppo` turns a sb3-contrib ``MaskablePPO`` checkpoint into such a policy:
an ``MlpPolicy`` on the flat observation, or the territory-graph policy
(:class:`risk_env.train.graph_policy.GraphPolicy`, as the shipped ``ppo-2p-0.1`` and ``ppo-4p-0.1``).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from ..errors import AgentRulesError, ConfigError, RiskError
from .state import BatchState

__all__ = ["NETWORK_OBSERVATIONS", "NetworkPolicy", "load_maskable_ppo", "masked_choice"]

NETWORK_OBSERVATIONS = ("flat", "graph")
"""What a :class:`NetworkPolicy` can feed its network."""


def masked_choice(
    logits: torch.Tensor, mask: torch.Tensor, deterministic: bool, generator: torch.Generator | None
) -> torch.Tensor:
    """int64 ``(B,)``: the most probable legal id per row of ``logits`` ``(B, N)`` under bool ``mask``, or one
    drawn from the masked softmax (illegal ids get probability 0; a row with no legal id gets 0)."""
    masked = torch.where(mask, logits.float(), torch.finfo(torch.float32).min)
    if deterministic:
        return masked.argmax(1)
    probs = torch.softmax(masked, dim=1) * mask
    probs = torch.where(mask.any(1, keepdim=True), probs, 1.0)
    return torch.multinomial(probs, 1, generator=generator)[:, 0]


class NetworkPolicy:
    """A torch network playing the seat to act (module docstring).

    Args:
        game: the :class:`~risk_env.vector.VectorGame` whose positions it plays.
        net: a module (or callable) mapping the observations to logits ``(M, N)``, or to a tuple whose first
            entry is the logits (an actor-critic's ``(logits, value)``).
        observation: what it is fed (:data:`NETWORK_OBSERVATIONS`): ``"flat"``, ``net(obs)`` with float32
            ``(M, D)``; ``"graph"``, ``net(nodes (M, T, F), edges (M, 2, E), globals (M, G))``.
        deterministic: the most probable legal id (else a sample).
        generator: the sampling ``torch.Generator`` (default: a new one on the engine's device, seeded 0).
        name: its label (in a league's names and results).
        turn_feature: show ``turn / turn_limit`` in the observation (default True for ``"flat"``, False for
            ``"graph"``, as the AEC env; False writes 0 there).

    Raises:
        ConfigError: an unknown ``observation``.
    """

    def __init__(
        self,
        game: Any,
        net: Callable[..., Any],
        observation: str = "flat",
        deterministic: bool = False,
        generator: torch.Generator | None = None,
        name: str = "network",
        turn_feature: bool | None = None,
    ) -> None:
        if observation not in NETWORK_OBSERVATIONS:
            raise ConfigError(f"a network policy reads one of {list(NETWORK_OBSERVATIONS)}, got observation={observation!r}")
        self.game = game
        self.net = net
        self.observation = observation
        self.deterministic = bool(deterministic)
        if generator is None:
            generator = torch.Generator(device=game.device)
            generator.manual_seed(0)
        self.generator = generator
        self.name = name
        self.turn_feature = (observation == "flat") if turn_feature is None else bool(turn_feature)
        self._turn_col = game.obs_offsets["turn"]

    def frozen(self, name: str | None = None) -> NetworkPolicy:
        """A copy over a deep copy of the network (in eval mode): later training of the original does not move it."""
        net = copy.deepcopy(self.net)
        if isinstance(net, torch.nn.Module):
            net.eval()
        return NetworkPolicy(
            self.game,
            net,
            self.observation,
            self.deterministic,
            self.generator,
            name or self.name,
            self.turn_feature,
        )

    def inputs(self, state: BatchState, mask: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """The network's inputs for every game of ``state``, from the seat to act (``mask``: its bool action mask)."""
        obs = self.game.observe(state)
        if not self.turn_feature:
            obs[:, self._turn_col] = 0.0
        if self.observation == "flat":
            return (obs,)
        g = self.game.observe_graph(state, mask=mask, turn_feature=self.turn_feature, flat=obs)
        return g["nodes"], g["edges"], g["globals"]

    def logits(self, state: BatchState, mask: torch.Tensor) -> torch.Tensor:
        """float ``(B, N)``: the network's raw logits for every game of ``state`` (no gradients)."""
        with torch.no_grad():
            out = self.net(*self.inputs(state, mask))
        return out[0] if isinstance(out, tuple) else out

    def __call__(self, state: BatchState, mask: torch.Tensor, active: torch.Tensor | None = None) -> torch.Tensor:
        ids = torch.zeros(state.batch_size, dtype=torch.int64, device=mask.device)
        idx = torch.arange(state.batch_size, device=mask.device) if active is None else active.nonzero()[:, 0]
        if idx.numel() == 0:
            return ids
        sub = state if active is None else BatchState(**{k: v[idx] for k, v in state.fields().items()})
        m = mask[idx]
        ids[idx] = masked_choice(self.logits(sub, m), m, self.deterministic, self.generator)
        return ids


def load_maskable_ppo(
    path: str | os.PathLike[str],
    game: Any,
    deterministic: bool = True,
    generator: torch.Generator | None = None,
    trained_rules: dict[str, Any] | None = None,
) -> NetworkPolicy:
    """A sb3-contrib ``MaskablePPO`` checkpoint as a batched policy (its actor on the engine's device): an
    ``MlpPolicy`` on the flat observation, or the territory-graph :class:`~risk_env.train.graph_policy.GraphPolicy`
    (any map and player count its features fit; turn feature off, as the scalar agent plays it).

    Raises:
        RiskError: no such file, sb3-contrib missing, a file that is not a MaskablePPO checkpoint
            (:func:`risk_env.train.checkpoints.load_checkpoint`), or a checkpoint of another observation space.
        AgentRulesError: a checkpoint that does not fit these rules: a flat policy for another map or player count
            (its observation size) or for other rule switches (its action count: on the classic map
            ``card_trade="no_cards"`` has 57 action ids, the classic cards 70), a graph policy whose feature or
            action blocks differ (:func:`~risk_env.train.graph_net.check_plays`; the rule switches behind it named
            where ``trained_rules``, the rules it was trained under, are given).
    """
    p = Path(path)
    if not p.is_file() and p.with_name(p.name + ".zip").is_file():
        p = p.with_name(p.name + ".zip")
    if not p.is_file():
        raise RiskError(f"no saved model at {os.fspath(path)!r}")
    from ..train.checkpoints import load_checkpoint

    model = load_checkpoint(p, game.device)
    policy: Any = model.policy
    policy.set_training_mode(False)
    space = model.observation_space
    keys = getattr(space, "spaces", None)
    if keys is not None and "nodes" in keys:
        from ..train.graph_net import check_plays

        net = policy.graph_net
        try:  # (the batched engine's sizes are its reference Game's)
            check_plays(net, game.game, trained_rules)
        except RiskError as e:
            raise AgentRulesError(p.stem, str(e)) from None
        return NetworkPolicy(game, net, "graph", deterministic, generator, name=p.stem)
    shape = getattr(space, "shape", None)
    if shape is None or len(shape) != 1:
        raise RiskError(
            f"{p.name} reads a {type(space).__name__} observation; a batched network policy takes a MaskablePPO "
            "MlpPolicy on the flat observation or the graph policy"
        )
    if int(shape[0]) != game.obs_size:
        raise AgentRulesError(
            p.stem,
            f"it reads observations of size {shape[0]}, these rules give {game.obs_size}: it was trained for another map, "
            "number of players or rule switches",
        )
    n_actions = getattr(model.action_space, "n", None)
    if n_actions is None or int(n_actions) != game.num_actions:
        raise AgentRulesError(
            p.stem,
            f"it scores {n_actions} action ids, these rules have {game.num_actions}: it was trained under other "
            "rules (rule switches such as card_trade, the dice rules or the map change the action ids); play it under "
            "the rules it was trained for",
        )

    def actor(obs: torch.Tensor) -> torch.Tensor:
        features: Any = policy.extract_features(obs, policy.pi_features_extractor)  # one tensor: an MlpPolicy's
        return policy.action_net(policy.mlp_extractor.forward_actor(features))

    return NetworkPolicy(game, actor, "flat", deterministic, generator, name=p.stem)
