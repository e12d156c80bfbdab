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
:meth:`~risk_env.vector.VectorGame.observe`), runs the network without gradients, sets
the logits of illegal ids to the most negative float (as sb3-contrib's masked
distribution does) and takes the most probable legal id (``deterministic=True``) or
samples one from the masked softmax with its own generator. The network's parameters
are read at each call, so a policy over the live network of a trainer follows its
updates (the league's *latest learner*), and one over a copy stays frozen
(:meth:`NetworkPolicy.frozen`).

:func:`load_maskable_ppo` turns a sb3-contrib ``MaskablePPO`` checkpoint trained on the flat
observation (``MlpPolicy``) into such a policy.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from ..errors import ConfigError, RiskError
from .state import BatchState

__all__ = ["NETWORK_OBSERVATIONS", "NetworkPolicy", "load_maskable_ppo", "masked_choice"]

NETWORK_OBSERVATIONS = ("flat",)
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
        observation: what it is fed (:data:`NETWORK_OBSERVATIONS`): ``"flat"``, float32 ``(M, D)``.
        deterministic: the most probable legal id (else a sample).
        generator: the sampling ``torch.Generator`` (default: a new one on the engine's device, seeded 0).
        name: its label (in a league's names and results).
        turn_feature: False zeroes the observation's turn entry (for networks trained without it).

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
        turn_feature: bool = True,
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
        self.turn_feature = bool(turn_feature)
        self._turn_col = game._obs_off["turn"]

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

    def inputs(self, state: BatchState) -> tuple[torch.Tensor, ...]:
        """The network's inputs for every game of ``state``, from the seat to act."""
        obs = self.game.observe(state)
        if not self.turn_feature:
            obs[:, self._turn_col] = 0.0
        return (obs,)

    def logits(self, state: BatchState) -> torch.Tensor:
        """float ``(B, N)``: the network's raw logits for every game of ``state`` (no gradients)."""
        with torch.no_grad():
            out = self.net(*self.inputs(state))
        return out[0] if isinstance(out, tuple) else out

    def __call__(self, state: BatchState, mask: torch.Tensor, active: torch.Tensor | None = None) -> torch.Tensor:
        ids = torch.zeros(state.batch_size, dtype=torch.int64, device=mask.device)
        idx = torch.arange(state.batch_size, device=mask.device) if active is None else active.nonzero()[:, 0]
        if idx.numel() == 0:
            return ids
        sub = state if active is None else BatchState(**{k: v[idx] for k, v in state.fields().items()})
        ids[idx] = masked_choice(self.logits(sub), mask[idx], self.deterministic, self.generator)
        return ids


def load_maskable_ppo(
    path: str | os.PathLike[str], game: Any, deterministic: bool = True, generator: torch.Generator | None = None
) -> NetworkPolicy:
    """A sb3-contrib ``MaskablePPO`` checkpoint (``MlpPolicy`` on the flat observation) as a batched policy.

    The policy's actor (features, the actor part of its MLP, the action head) runs on the engine's device.

    Raises:
        RiskError: no such file, sb3-contrib missing, or a checkpoint on another observation (a graph policy)
            or for another map or player count (the observation size differs).
    """
    p = Path(path)
    if not p.is_file() and p.with_name(p.name + ".zip").is_file():
        p = p.with_name(p.name + ".zip")
    if not p.is_file():
        raise RiskError(f"no saved model at {os.fspath(path)!r}")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:  # pragma: no cover - depends on the install
        raise RiskError("loading a MaskablePPO checkpoint needs sb3-contrib: pip install 'risk_env[train]'") from None
    from ..envs.opponents import preserve_global_rng

    with preserve_global_rng():
        model = MaskablePPO.load(str(p), device=game.device)
    policy = model.policy
    shape = getattr(model.observation_space, "shape", None)
    if shape is None or len(shape) != 1:
        raise RiskError(
            f"{p.name} reads the {type(model.observation_space).__name__} observation; a batched network policy "
            "takes a MaskablePPO MlpPolicy on the flat observation"
        )
    if int(shape[0]) != game.obs_size:
        raise RiskError(
            f"{p.name} reads observations of size {shape[0]}, these rules give {game.obs_size}: "
            "it was trained for another map or number of players"
        )
    policy.set_training_mode(False)

    def actor(obs: torch.Tensor) -> torch.Tensor:
        features: Any = policy.extract_features(obs, policy.pi_features_extractor)  # one tensor: an MlpPolicy's
        return policy.action_net(policy.mlp_extractor.forward_actor(features))

    return NetworkPolicy(game, actor, "flat", deterministic, generator, name=p.stem)
