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

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from risk_env.envs.codec import ActionCodec
from risk_env.errors import AgentRulesError, ConfigError, RiskError
from risk_env.rules.engine import Game

from .base import (
    Agent,
    check_flag,
    check_game_type,
    check_name,
    observation_mask,
    observed_vector,
    path_is,
    shown_spec,
    view_from_info,
)

__all__ = ["GraphNetAgent", "MaskablePPOAgent", "graph_observation"]

_GRAPH_KEYS = ("nodes", "edges", "globals")
_EITHER = " and either info['view'] (given the flat observation) or the graph observation's 'nodes', 'edges', 'globals'"


def _mask_of_graph_policy(observation: Any, who: str, info: Mapping[str, Any] | None) -> np.ndarray:
    """:func:`~risk_env.agents.base.observation_mask` for a policy that plays the graph observation, or the flat
    one with ``info["view"]`` (from which it encodes the graph observation)."""
    if isinstance(observation, Mapping) and "nodes" in observation:
        return observation_mask(observation, who, keys=_GRAPH_KEYS, info=info)
    return observation_mask(observation, who, also=_EITHER, info=info)


def _graph_arrays(x: Mapping[str, Any], who: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The graph observation's ``nodes`` float32 ``(T, F)``, ``edges`` int64 ``(2, E)`` (territory ids ``0..T-1``)
    and ``globals`` float32 ``(G,)``, or a :class:`RiskError` saying which entry is not of that form."""
    try:
        nodes = np.asarray(x["nodes"], dtype=np.float32)
        glob = np.asarray(x["globals"], dtype=np.float32)
        edges = np.asarray(x["edges"])
    except (ValueError, TypeError) as e:
        raise RiskError(f"{who}: the graph observation's 'nodes' and 'globals' must be arrays of numbers ({e})") from None
    want = "'nodes' float (T, F), 'edges' integer (2, E) of territory ids 0..T-1, 'globals' float (G,)"
    got = f"'nodes' {nodes.shape}, 'edges' {edges.shape} {edges.dtype}, 'globals' {glob.shape}"
    if nodes.ndim != 2 or nodes.shape[0] == 0 or glob.ndim != 1 or edges.ndim != 2 or edges.shape[0] != 2:
        raise RiskError(f"{who}: the graph observation must hold {want}; got {got}")
    if edges.dtype.kind == "f" and np.isfinite(edges).all():
        edges = np.rint(edges)  # (float ids are rounded, as GraphNet.forward does)
    T = nodes.shape[0]
    if edges.dtype.kind not in "iuf" or (edges.size and not (edges.min() >= 0 and edges.max() <= T - 1)):
        raise RiskError(f"{who}: the graph observation must hold {want}; got {got}, not all territory ids 0..{T - 1}")
    return nodes, edges.astype(np.int64, copy=False), glob


def _check_graph_fits(net: Any, game: Game, name: str, trained: Any = None) -> None:
    """:func:`risk_env.train.graph_net.check_plays` (a :class:`~risk_env.train.graph_net.GraphNet` against ``game``; the
    switches named where the policy file kept its training rules, ``trained``), its refusal an :class:`AgentRulesError`
    naming the agent ``name``."""
    from risk_env.train.graph_net import check_plays

    try:
        check_plays(net, game, trained)
    except ConfigError as e:
        raise AgentRulesError(name, str(e)) from None


def graph_observation(
    name: str, encoders: dict[int, Any], mask: np.ndarray, info: Mapping[str, Any] | None, turn_feature: bool = False
) -> dict[str, np.ndarray]:
    """The graph observation (:mod:`risk_env.envs.graph`) of ``info["view"]`` (what the seat may
    know: the observation the env would give), for a policy that reads graph observations but
    is given the flat one. ``encoders`` caches one encoder per game; ``turn_feature``: show
    ``turn / turn_limit`` (as the network was trained).

    Raises:
        RiskError: ``info`` holds no view (the message says what to give the policy ``name``).
    """
    view = view_from_info(info, f"policy {name!r} (it reads graph observations, or builds them from a view)")
    game = view.game
    enc = encoders.get(id(game))
    if enc is None or enc.game is not game:
        from risk_env.envs.graph import GraphObservationEncoder

        enc = encoders[id(game)] = GraphObservationEncoder(game, turn_feature=turn_feature)
    return enc.encode(view.state, view.seat, view.selection, mask.astype(np.int8))


class MaskablePPOAgent(Agent):
    """A sb3-contrib ``MaskablePPO`` policy (a checkpoint path or a loaded model).

    Args:
        model: path to a saved model (``.zip``, the suffix may be omitted) or a model object.
        deterministic: take the most probable legal action (default) instead of sampling from the
            masked policy with the agent's own generator (seeded by :meth:`reset`).
        device: torch device for loading (default ``"cpu"``): one this torch can use here, or ``"auto"``
            (SB3's choice: CUDA when available).
        name: label (default: the file's stem, or ``"maskable_ppo"``).
        trained_rules: the rules a graph policy was trained under (:meth:`RulesConfig.to_dict
            <risk_env.rules.config.RulesConfig.to_dict>`), where known: a refusal of other rules then names the rule
            switches behind it (``load_agent`` gives the pretrained ``.zip`` agents theirs,
            :func:`~risk_env.agents.registry.pretrained_rules`).

    Neither loading, :meth:`reset` nor :meth:`act` changes the process's global generators
    (Python's ``random``, numpy's and torch's), which SB3 itself would re-seed on load.

    Raises:
        ConfigError: ``deterministic`` is not a bool; ``device`` (given with a path) is not a torch device, or one
            that is not available here; ``trained_rules`` is not a mapping.
        RiskError: the file does not exist, or sb3-contrib is not installed (``pip install risk_env[train]``).
    """

    name = "maskable_ppo"

    def __init__(
        self,
        model: Any,
        deterministic: bool = True,
        device: str = "cpu",
        name: str | None = None,
        trained_rules: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(None)
        if trained_rules is not None and not isinstance(trained_rules, Mapping):
            raise ConfigError(
                f"MaskablePPOAgent: trained_rules is a mapping of rule switches (RulesConfig.to_dict()) or None, got "
                f"{type(trained_rules).__name__}"
            )
        self.trained_rules = None if trained_rules is None else dict(trained_rules)
        self.deterministic = check_flag(deterministic, "deterministic", "MaskablePPOAgent")
        name = check_name(name, "MaskablePPOAgent")
        if isinstance(model, (str, os.PathLike)):
            if device != "auto":  # (SB3 would raise torch's error, read here as a file that does not load)
                from risk_env.vector.engine import resolve_device

                resolve_device(device)
            path = Path(model)
            if path_is(path, "dir"):
                found = [path / f for f in ("model.pt", "model.zip") if path_is(path / f, "file")]
                hint = f"such as {shown_spec(str(found[0]))}" if found else "a .pt or .zip in it"
                raise RiskError(f"{shown_spec(str(path))} is a folder: give the saved model's file ({hint})")
            if not path_is(path, "file") and (path.suffix == ".zip" or not path_is(path.with_name(path.name + ".zip"), "file")):
                tried = "" if path.suffix == ".zip" else f" (nor at {shown_spec(str(path) + '.zip')})"
                raise RiskError(f"no saved model at {shown_spec(str(path))}{tried}")
            from risk_env.train.checkpoints import load_checkpoint

            self.model = load_checkpoint(path, device)
            self.name = name or (path.stem if path.suffix == ".zip" else path.name)
        else:
            self.model = model
            self.name = name or self.name
        import gymnasium

        self._dict_obs = isinstance(self.model.observation_space, gymnasium.spaces.Dict)
        space: Any = self.model.observation_space
        # a graph policy played from a flat observation encodes its own, from info["view"]
        self.needs_view = self._dict_obs and "nodes" in space.spaces
        self._obs_shape = None if self._dict_obs else tuple(space.shape)
        self._graph_encoders: dict[int, Any] = {}

    def _graph_observation(self, mask: np.ndarray, info: Mapping[str, Any] | None) -> dict[str, np.ndarray]:
        return graph_observation(self.name, self._graph_encoders, mask, info)

    def check_game(self, game: Game) -> None:
        """Refuse a game whose observation or action ids the model was not built for (before its first decision).

        A graph model plays any map and player count whose node and global features and non-territory action ids
        are its own (:meth:`GraphNet.check_fits <risk_env.train.graph_net.GraphNet.check_fits>`); a flat model only
        the map, player count and rule switches it was trained with (its vector's length and action count).

        Raises:
            AgentRulesError (a ConfigError): the message names the agent and the size that differs.
        """
        check_game_type(game)
        graph_net = getattr(self.model.policy, "graph_net", None)
        if self.needs_view and graph_net is not None:
            _check_graph_fits(graph_net, game, self.name, self.trained_rules)
        elif not self._dict_obs:
            from risk_env.envs.observation import ObservationEncoder

            size, n = ObservationEncoder(game).size, ActionCodec(game).n
            want: Any = self.model.action_space
            if (size,) != self._obs_shape or n != int(want.n):
                raise AgentRulesError(
                    self.name,
                    f"it reads observations of shape {self._obs_shape} and scores {int(want.n)} action ids; these rules "
                    f"give ({size},) and {n}: it was trained for another map, number of players or rule switches",
                )

    @contextlib.contextmanager
    def _own_sampling(self) -> Iterator[None]:
        """SB3 samples from torch's global generator: give it one seeded from the agent's own
        :attr:`rng` for the call, and put the process's generators back after."""
        import torch

        from risk_env.envs.opponents import preserve_global_rng

        device = torch.device(self.model.device)
        cuda = [device] if device.type == "cuda" else []
        seed = int(self.rng.integers(2**63))
        with preserve_global_rng(), torch.random.fork_rng(devices=cuda):
            torch.default_generator.manual_seed(seed)
            for d in cuda:
                with torch.cuda.device(d):
                    torch.cuda.manual_seed(seed)
            yield

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        """The model's action id (legal under ``observation["action_mask"]``).

        ``observation`` is the env's: the flat one (``"observation"``, ``"action_mask"``) for a model of flat
        observations; for a graph model, the graph observation, or the flat one with ``info["view"]``.

        Raises:
            RiskError: ``observation`` is not such a dict (None, no ``"action_mask"``, no ``"observation"`` for a flat
                model); the mask is not a 1-d array of 0/1 (:func:`~risk_env.agents.base.observation_mask`), not one
                entry per action id (the model's, or for a graph model the game's in ``info["view"]``), or has no legal
                action (an all-zero mask); an observation of another shape than the model's, or (for a graph policy
                given the flat observation) no ``info["view"]``.
        """
        who = f"policy {self.name!r}"
        space: Any = self.model.observation_space
        if self.needs_view:  # a graph model: any map, given the graph observation or the flat one with a view
            mask = _mask_of_graph_policy(observation, who, info)
        else:
            keys = tuple(k for k in space.spaces if k != "action_mask") if self._dict_obs else ("observation",)
            actions: Any = self.model.action_space
            mask = observation_mask(observation, who, int(actions.n), keys)
        if self._dict_obs:
            if "nodes" in space.spaces and "nodes" not in observation:
                x: Any = self._graph_observation(mask, info)
            else:
                x = {k: observation[k] for k in space.spaces}
        else:
            x = observed_vector(observation, who, self._obs_shape)
            if tuple(x.shape) != self._obs_shape:
                raise RiskError(
                    f"policy {self.name!r} expects observations of shape {self._obs_shape}, the env gives {tuple(x.shape)}: "
                    "it was trained for another map or number of players"
                )
        with contextlib.nullcontext() if self.deterministic else self._own_sampling():
            act_on = getattr(self.model.policy, "act_on", None)
            if self._dict_obs and callable(act_on) and "nodes" in x:
                # a graph policy: any map and player count (the model's own spaces name one of them)
                self.model.policy.set_training_mode(False)
                return int(act_on({**x, "action_mask": mask}, deterministic=self.deterministic))
            action, _ = self.model.predict(x, action_masks=mask, deterministic=self.deterministic)
        return int(np.asarray(action).reshape(-1)[0])


class GraphNetAgent(Agent):
    """A territory-graph network (:class:`risk_env.train.graph_net.GraphNet`), such as a policy
    file (``.pt``) written by the on-device trainer (:mod:`risk_env.train.device_ppo`).

    It plays from the graph observation (``observation="graph"``) or, given the flat one, encodes
    the graph observation itself from ``info["view"]`` (as :class:`MaskablePPOAgent`), on
    any map and for any player count the network's rules allow.

    Args:
        policy: a policy file's path (:func:`risk_env.train.graph_net.load_policy`) or a ``GraphNet``.
        deterministic: take the most probable legal action (default) instead of sampling from the
            masked policy with the agent's own generator (seeded by :meth:`reset`).
        device: torch device of the network (default ``"cpu"``), one this torch can use here.
        name: label (default: the file's stem, or ``"graph_net"``).

    A network trained with ``turn / turn_limit`` in its observation (the device trainer's ``env.turn_feature``,
    :func:`risk_env.train.graph_net.trained_turn_feature`) is shown it when the agent encodes the observation from
    ``info["view"]`` (given the env's graph observation, it reads what the env shows).

    Raises:
        ConfigError: ``deterministic`` is not a bool; ``device`` is not a torch device, or one that is not available
            here (the message names the available ones).
        RiskError: no such file or not a policy file (:func:`risk_env.train.graph_net.load_policy`); torch is
            missing (``pip install risk_env[train]``).
    """

    name = "graph_net"
    needs_view = True  # given a flat observation, it encodes the graph one from info["view"]

    def __init__(self, policy: Any, deterministic: bool = True, device: str = "cpu", name: str | None = None) -> None:
        super().__init__(None)
        self.deterministic = check_flag(deterministic, "deterministic", "GraphNetAgent")
        name = check_name(name, "GraphNetAgent")
        try:
            import torch  # noqa: F401  (a missing torch is refused here, before anything loads)
        except ImportError:  # pragma: no cover - depends on the install
            raise RiskError("a graph policy needs torch: pip install 'risk_env[train]'") from None
        from risk_env.train.graph_net import GraphNet, load_policy, trained_turn_feature
        from risk_env.vector.engine import resolve_device

        self.device = resolve_device(device)
        if isinstance(policy, (str, os.PathLike)):
            path = Path(policy)
            try:
                self.net, self.meta = load_policy(path, device=self.device)
            except OSError as e:  # (the file system cannot even look: a name too long)
                raise RiskError(f"no policy file at {shown_spec(str(path))} ({e.strerror or type(e).__name__})") from None
            self.name = name or path.stem
        elif isinstance(policy, GraphNet):
            self.net, self.meta = policy.to(self.device).eval(), {}
            self.name = name or self.name
        else:
            raise RiskError(f"GraphNetAgent takes a policy file (.pt) or a GraphNet, got {type(policy).__name__}")
        self.turn_feature = trained_turn_feature(self.meta)  # (shown turn / turn limit when it encodes from a view)
        self._graph_encoders: dict[int, Any] = {}
        self._edges: dict[bytes, Any] = {}

    def check_game(self, game: Game) -> None:
        """Refuse a game of other node or global features, or other non-territory action ids, than the network's
        (before its first decision; :meth:`GraphNet.check_fits <risk_env.train.graph_net.GraphNet.check_fits>`).

        Raises:
            AgentRulesError (a ConfigError): the message names the agent, the size that differs and what changes it.
        """
        check_game_type(game)
        _check_graph_fits(self.net, game, self.name, self.meta.get("rules"))

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any] | None = None) -> int:
        """The network's action id (legal under ``observation["action_mask"]``).

        ``observation`` is the env's: the graph observation (``"nodes"``, ``"edges"``, ``"globals"``,
        ``"action_mask"``), or the flat one with ``info["view"]``, from which the agent encodes the graph
        observation. Where ``info["view"]`` is given, the mask has one entry for each of the game's action ids.

        Raises:
            RiskError: ``observation`` is not such a dict (None, no ``"action_mask"``, a graph entry missing or of
                another shape); the mask is not a 1-d array of 0/1 (:func:`~risk_env.agents.base.observation_mask`:
                a NaN, text, None), not one entry per action id, or has no legal action (an all-zero mask); or (given
                the flat observation) no ``info["view"]``. The message says what was given and what is expected.
            ConfigError: observations of rules the network does not play (:meth:`GraphNet.check_fits
                <risk_env.train.graph_net.GraphNet.check_fits>`).
        """
        import torch  # (imported in __init__ already; an attribute holding the module would not pickle)

        who = f"policy {self.name!r}"
        mask = _mask_of_graph_policy(observation, who, info)
        x: Mapping[str, np.ndarray] = observation if "nodes" in observation else self._graph(mask, info)
        nodes, edges, glob = _graph_arrays(x, who)
        T, F = nodes.shape
        self.net.check_fits(T, F, int(glob.shape[0]), int(mask.shape[0]))
        key = edges.tobytes()
        e = self._edges.get(key)
        if e is None:
            e = self._edges[key] = torch.as_tensor(edges[None], device=self.device)
        with torch.inference_mode():
            logits, _ = self.net(
                torch.as_tensor(nodes[None], device=self.device), e, torch.as_tensor(glob[None], device=self.device)
            )
        z = logits[0].double().cpu().numpy()
        z = np.where(mask, z, -np.inf)
        if self.deterministic:
            return int(np.argmax(z))
        p = np.exp(z - z.max())
        return int(self.rng.choice(z.shape[0], p=p / p.sum()))

    def _graph(self, mask: np.ndarray, info: Mapping[str, Any] | None) -> dict[str, np.ndarray]:
        return graph_observation(self.name, self._graph_encoders, mask, info, self.turn_feature)
