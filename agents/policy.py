"""Trained Stable-Baselines3 policies as agents.

A MaskablePPO checkpoint (``model.zip`` saved by sb3-contrib) plays through the
same interface as every agent: ``MaskablePPO.load(path)``, then for each
decision ``model.predict(obs, action_masks=mask, deterministic=True)``.
The model's observation space decides what it is fed: a ``Box`` gets the
env's flat ``observation["observation"]`` vector, a ``Dict`` the whole
observation dict. The flat model must have been trained with the same map and
number of players (the vector's length checks this). A model trained on the
graph observation (:mod:`risk_env.envs.graph`, a ``Dict`` with ``"nodes"``)
plays from any env: when the observation it gets is the flat one, the agent
encodes the graph observation itself from ``info["view"]`` (what its seat may
know: the same observation the env would give).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from risk_env.errors import RiskError

from .base import Agent, view_from_info

__all__ = ["MaskablePPOAgent"]


class MaskablePPOAgent(Agent):
    """A sb3-contrib ``MaskablePPO`` policy (a checkpoint path or a loaded model).

    Args:
        model: path to a saved model (``.zip``, the suffix may be omitted) or a model object.
        deterministic: take the most probable legal action (default) instead of sampling.
        device: torch device for loading (default ``"cpu"``).
        name: label (default: the file's stem, or ``"maskable_ppo"``).

    Raises:
        RiskError: the file does not exist, or sb3-contrib is not installed (``pip install risk_env[train]``).
    """

    name = "maskable_ppo"

    def __init__(self, model: Any, deterministic: bool = True, device: str = "cpu", name: str | None = None) -> None:
        super().__init__(None)
        if isinstance(model, (str, os.PathLike)):
            path = Path(model)
            if path.is_dir():
                raise RiskError(f"{str(path)!r} is a folder: give the saved model's file (a .zip in it)")
            if not path.is_file() and (path.suffix == ".zip" or not path.with_name(path.name + ".zip").is_file()):
                tried = "" if path.suffix == ".zip" else f" (nor at {str(path) + '.zip'!r})"
                raise RiskError(f"no saved model at {str(path)!r}{tried}")
            try:
                from sb3_contrib import MaskablePPO
            except ImportError:  # pragma: no cover - depends on the install
                raise RiskError("loading a MaskablePPO checkpoint needs sb3-contrib: pip install 'risk_env[train]'") from None
            self.model = MaskablePPO.load(str(path), device=device)
            self.name = name or (path.stem if path.suffix == ".zip" else path.name)
        else:
            self.model = model
            self.name = name or self.name
        self.deterministic = bool(deterministic)
        import gymnasium

        self._dict_obs = isinstance(self.model.observation_space, gymnasium.spaces.Dict)
        space: Any = self.model.observation_space
        # a graph policy played from a flat observation encodes its own, from info["view"]
        self.needs_view = self._dict_obs and "nodes" in space.spaces
        self._obs_shape = None if self._dict_obs else tuple(space.shape)
        self._graph_encoders: dict[int, Any] = {}

    def _graph_observation(self, mask: np.ndarray, info: Mapping[str, Any] | None) -> dict[str, np.ndarray]:
        view = view_from_info(info, f"policy {self.name!r} (it reads graph observations, or builds them from a view)")
        game = view.game
        enc = self._graph_encoders.get(id(game))
        if enc is None or enc.game is not game:
            from risk_env.envs.graph import GraphObservationEncoder

            enc = self._graph_encoders[id(game)] = GraphObservationEncoder(game)
        return enc.encode(view.state, view.seat, view.selection, mask.astype(np.int8))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None and not self.deterministic:
            self.model.set_random_seed(int(seed))

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        mask = np.asarray(observation["action_mask"]).astype(bool)
        if self._dict_obs:
            space: Any = self.model.observation_space
            if "nodes" in space.spaces and "nodes" not in observation:
                x: Any = self._graph_observation(mask, info)
            else:
                x = {k: observation[k] for k in space.spaces}
        else:
            x = observation["observation"]
            if tuple(x.shape) != self._obs_shape:
                raise RiskError(
                    f"policy {self.name!r} expects observations of shape {self._obs_shape}, the env gives {tuple(x.shape)}: "
                    "it was trained for another map or number of players"
                )
        act_on = getattr(self.model.policy, "act_on", None)
        if self._dict_obs and callable(act_on) and "nodes" in x:
            # a graph policy: any map and player count (the model's own spaces name one of them)
            self.model.policy.set_training_mode(False)
            return int(act_on({**x, "action_mask": mask}, deterministic=self.deterministic))
        action, _ = self.model.predict(x, action_masks=mask, deterministic=self.deterministic)
        return int(np.asarray(action).reshape(-1)[0])
