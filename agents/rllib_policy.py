"""RLlib policies as agents: a checkpoint folder written by ``risk-env train-rllib``
(:func:`risk_env.train.rllib.train`, ``algo.save``) plays through the same interface as every agent::

    agent = load_agent("runs/rllib")                                 # the checkpoint folder is the spec
    risk_env.evaluate(["runs/rllib", "random"], rules={"preset": "fast"})   # the rules it was trained for
    risk-env watch --players 2 --rules fast --agents runs/rllib,random

The folder is an RLlib algorithm checkpoint (it holds ``rllib_checkpoint.json``); the policy is
its RL module, ``learner_group/learner/rl_module/<policy>`` (``shared`` for the self-play run of
:mod:`risk_env.train.rllib`), loaded with ``RLModule.from_checkpoint`` (no Ray cluster is
started). For each decision the agent feeds the module the AEC env's flat observation and
mask, renamed as in training (:class:`risk_env.train.rllib.ObservationsKeyWrapper`:
``"observations"``, and the mask as float32), and takes the legal id with the highest logit
(``deterministic=True``) or samples one from the masked softmax with its own generator.

The module was built for one observation size: the map, the player count and the variants of
its training. ``risk-env train-rllib`` writes those rules beside the checkpoint
(``risk_env_game.json``), and an env of other rules is refused with them named.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from risk_env._extras import require
from risk_env.errors import RiskError

from .base import Agent, check_flag, check_name, observation_mask, observed_vector, path_is

__all__ = ["RLlibPolicyAgent", "is_rllib_checkpoint", "GAME_FILE"]

GAME_FILE = "risk_env_game.json"
"""The file beside an RLlib checkpoint that names the game it was trained for:
``{"num_players": 2, "rules": {...}}`` (the env config of :func:`risk_env.train.rllib.build_config`)."""

_MODULES = Path("learner_group") / "learner" / "rl_module"


def is_rllib_checkpoint(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is an RLlib algorithm checkpoint folder (it holds ``rllib_checkpoint.json``)."""
    p = Path(path)
    return path_is(p, "dir") and path_is(p / "rllib_checkpoint.json", "file")


class RLlibPolicyAgent(Agent):
    """The policy of an RLlib checkpoint (new API stack) as an agent.

    Args:
        checkpoint: the checkpoint folder (``algo.save()``'s, e.g. ``runs/rllib``).
        policy: the RL module to play (default: the checkpoint's only one, ``shared`` for
            ``risk-env train-rllib``).
        deterministic: take the legal id with the highest logit (default) instead of sampling.
        name: label (default: the folder's name).
        seed: seeds the generator used when sampling.

    Raises:
        ConfigError: ``deterministic`` is not a bool, or ``seed`` is not None or an integer >= 0.
        RiskError: not a checkpoint folder, no such policy, or several policies and none named.
        MissingExtraError: ray[rllib] is missing (``pip install 'risk_env[rllib]'``).
    """

    name = "rllib"

    def __init__(
        self,
        checkpoint: str | os.PathLike[str],
        policy: str | None = None,
        deterministic: bool = True,
        name: str | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.deterministic = check_flag(deterministic, "deterministic", "RLlibPolicyAgent")
        name = check_name(name, "RLlibPolicyAgent")
        path = Path(checkpoint)
        if not is_rllib_checkpoint(path):
            raise RiskError(f"{str(path)!r} is not an RLlib checkpoint folder (no rllib_checkpoint.json in it)")
        modules = sorted(p.name for p in (path / _MODULES).iterdir() if p.is_dir()) if (path / _MODULES).is_dir() else []
        if policy is None:
            if len(modules) != 1:
                found = ", ".join(modules) or "none"
                raise RiskError(f"RLlib checkpoint {str(path)!r} holds the policies {found}: name the one to play")
            policy = modules[0]
        elif policy not in modules:
            raise RiskError(f"RLlib checkpoint {str(path)!r} has no policy {policy!r}; it has: {', '.join(modules) or 'none'}")
        require("ray.rllib", "rllib", "loading an RLlib checkpoint")
        from ray.rllib.core.columns import Columns
        from ray.rllib.core.rl_module.rl_module import RLModule

        # (names, not the modules: the agent pickles, so it plays in evaluation worker processes)
        self._obs_key, self._logits_key = Columns.OBS, Columns.ACTION_DIST_INPUTS
        self.module: Any = RLModule.from_checkpoint(path / _MODULES / policy)
        self.policy = policy
        self.name = name or path.resolve().name
        space: Any = self.module.observation_space  # Dict(observations=Box, action_mask=Box)
        self._obs_shape = tuple(space["observations"].shape)
        game_file = path / GAME_FILE
        self.trained_for: dict[str, Any] | None = json.loads(game_file.read_text()) if game_file.is_file() else None

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        """The module's action id (legal under ``observation["action_mask"]``), given the env's flat observation.

        Raises:
            RiskError: ``observation`` is not a dict with ``"observation"`` and ``"action_mask"`` (None, a key missing);
                the mask is not a 1-d array of 0/1 (:func:`~risk_env.agents.base.observation_mask`), not one entry per
                action id (where ``info["view"]`` tells the game's count), or has no legal action (an all-zero mask);
                an observation of another shape than the module's (it was trained for other rules).
        """
        who = f"RLlib policy {self.name!r}"
        mask = observation_mask(observation, who, keys=("observation",), info=info)
        x = observed_vector(observation, who, self._obs_shape)
        if x.shape != self._obs_shape:
            trained = f" (trained for {self.trained_for})" if self.trained_for else ""
            raise RiskError(
                f"RLlib policy {self.name!r} expects observations of shape {self._obs_shape}, the env gives {x.shape}: "
                f"it was trained for another map, number of players or variant{trained}"
            )
        legal = np.flatnonzero(mask)
        import torch

        batch = {"observations": torch.from_numpy(x[None]), "action_mask": torch.from_numpy(mask.astype(np.float32)[None])}
        with torch.no_grad():
            logits = self.module.forward_inference({self._obs_key: batch})[self._logits_key][0].numpy()
        scores = logits[legal].astype(np.float64)
        if self.deterministic:
            return int(legal[int(np.argmax(scores))])
        p = np.exp(scores - scores.max())
        return int(self.rng.choice(legal, p=p / p.sum()))
