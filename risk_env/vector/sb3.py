"""An SB3 ``VecEnv`` over :class:`~risk_env.vector.VectorEnv`: one learner seat per slot,
the other seats played by embedded batched opponents.

>>> from risk_env.vector.sb3 import VectorSB3Env
>>> venv = VectorSB3Env(4, seed=0, preset="fast", num_players=3)
>>> obs = venv.reset()
>>> obs.shape, venv.action_masks().shape
((4, 374), (4, 70))

Works with ``sb3_contrib.MaskablePPO`` (it calls ``env_method("action_masks")``).
Episodes are the learner's: one ends when its game ends or the learner is
eliminated (reward -1; the slot then starts a new game at once). The
learner's reward is the AEC env's (+1 win, -1 eliminated, 0 at a truncation,
``TimeLimit.truncated`` set in ``infos``); ``infos[i]["terminal_observation"]``
holds the last observation of a finished episode, as SB3 expects.

The learner sits in seat ``learner_seat`` (default 0; None rotates it as
:class:`~risk_env.vector.learner.LearnerEnv` does); the turn order is drawn per game, so it
does not always move first. Opponents, ``opponent=``: ``"random"`` (a uniformly random legal
id), a batched heuristic (``"aggressive"``, ``"balanced"``, ``"continent"``:
:mod:`risk_env.vector.agents`), a batched policy object of :mod:`risk_env.vector` (a heuristic,
:class:`~risk_env.vector.network.NetworkPolicy`, ...), a callable ``(observation (B, D), mask (B,
N)) -> ids (B,)`` run on the whole batch, or a list of those: slot ``i`` then plays against entry
``i % len(list)`` (a fixed mix of opponents). Or ``opponents=``, exactly as
:class:`~risk_env.vector.learner.LearnerEnv` takes it (a league, tuples per opponent seat, any
:class:`~risk_env.vector.agents.BatchedPolicy`), as the Gymnasium and TorchRL faces do.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from gymnasium import spaces

from .._extras import require
from ..errors import ConfigError, IllegalActionError, ResetNeededError, check_seed
from .agents import BATCHED_HEURISTICS, RandomPolicy, random_legal
from .engine import resolve_device
from .env import refuse_masked
from .learner import SEAT_SAFE_POLICIES, FixedOpponents, LearnerEnv, LearnerStep, ObservationPolicy

if TYPE_CHECKING:
    from ..train.config import TrainConfig

require("stable_baselines3", "train", "the SB3 VecEnv over the batched engine (risk_env.vector.sb3)")

from stable_baselines3.common.vec_env import VecEnv  # noqa: E402
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn  # noqa: E402

__all__ = ["ObservationPolicy", "VectorSB3Env", "build_train_env", "random_legal", "random_opponent"]

Opponent = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def random_opponent(generator: torch.Generator) -> RandomPolicy:
    """A batched opponent choosing a uniformly random legal id in every slot."""
    return RandomPolicy(generator)


class VectorSB3Env(VecEnv):
    """``num_envs`` games; the learner plays ``learner_seat`` in each, ``opponent`` the rest.

    A thin SB3 face of :class:`~risk_env.vector.learner.LearnerEnv` (which plays the opponents,
    the episodes and the shaping); observations, rewards and dones cross to SB3 as numpy.

    Args:
        num_envs: slots.
        device: the batched engine's device (observations go to SB3 as numpy on the CPU).
        seed: seeds the engine and the random opponent.
        learner_seat: 0..num_players-1 (a numpy integer too), or None (rotated over slots and games).
        opponent: a spec (``"random"``, a batched heuristic's name, a pretrained agent's name, a policy file
            ``.pt`` or a MaskablePPO ``.zip``: :func:`risk_env.vector.specs.batched_policy`), a batched policy object, a
            callable ``(observation, mask) -> ids``, or a list of those (one per slot, cycling; see the module
            docstring).
        opponents: instead of ``opponent``, :class:`~risk_env.vector.learner.LearnerEnv`'s ``opponents``
            (a league, a list with tuples per opponent seat, batched policies).
        max_opponent_steps: bound on opponent decisions between two learner decisions
            (a safety net; the turn limit ends every game long before).
        shaping: the coefficient of the potential-based territory shaping, as
            :class:`risk_env.envs.single_agent.RiskSingleAgentEnv` (``shaping * (gamma * phi' - phi)``
            per learner step, ``phi = (own - other players' territories) / T``, ``phi' = 0`` at the
            episode's end); 0 turns it off.
        shaping_gamma: the ``gamma`` of that term.
        turn_feature: show turn / turn limit in the observation (False zeroes that entry).
        **rules: ``preset=`` / ``rules=`` / rule switches, as :class:`VectorEnv`.

    Raises:
        ConfigError: a bad seat, opponent or shaping (a callable ``opponent`` that cannot take the call
            ``opponent(observation, mask)``, an ``opponents`` policy that cannot take ``policy(state, mask, active)``),
            both ``opponent`` and ``opponents``, what this face does not
            offer (``self_play``, the graph observation, ``final_observation``: SB3 gets the last observation in
            ``infos``), or unsupported rules.
    """

    def __init__(
        self,
        num_envs: int,
        device: str = "cpu",
        seed: int = 0,
        learner_seat: int | None = 0,
        opponent: str | Opponent | Sequence[str | Opponent] | None = None,
        max_opponent_steps: int = 100_000,
        shaping: float = 0.0,
        shaping_gamma: float = 1.0,
        turn_feature: bool = True,
        opponents: Any = None,
        **rules: Any,
    ) -> None:
        if learner_seat is not None and (isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer))):
            raise ConfigError(f"learner_seat must be a seat number or None (rotate), got {learner_seat!r}")
        learner_seat = None if learner_seat is None else int(learner_seat)  # (a numpy integer too)
        for key, why in (
            ("self_play", "SB3 trains one agent per slot: use LearnerEnv for self-play"),
            ("observation", "this SB3 VecEnv gives the flat observation: use LearnerEnv for observation='graph'"),
            ("final_observation", "SB3 gets an episode's last observation in infos['terminal_observation']"),
        ):
            if key in rules:
                raise ConfigError(f"{key} is not an argument of VectorSB3Env ({why})")
        if opponent is not None and opponents is not None:
            raise ConfigError("give either opponent or opponents (LearnerEnv's form), not both")
        specs: Any = None
        if opponents is None:
            specs = _opponent_entries("random" if opponent is None else opponent)
        self.learner_env = LearnerEnv(
            num_envs,
            device=device,
            seed=seed,
            opponents=opponents if opponents is not None else "random",
            learner_seat=learner_seat,
            shaping=shaping,
            shaping_gamma=shaping_gamma,
            turn_feature=turn_feature,
            final_observation=True,
            max_opponent_steps=max_opponent_steps,
            **rules,
        )
        env = self.learner_env
        if specs is not None:
            # callables see the flat observations: each distinct one wrapped once
            wrapped: dict[int, ObservationPolicy] = {}
            entries = [
                e if isinstance(e, str) or _is_batched(e) else wrapped.setdefault(id(e), ObservationPolicy(e, env.game))
                for e in specs
            ]
            env.assignment = FixedOpponents(entries, env.game, env.generator)
        self.venv = env.venv
        self.learner = learner_seat
        self.shaping = env.shaping
        self.shaping_gamma = env.shaping_gamma
        self.turn_feature = env.turn_feature
        self.max_opponent_steps = max_opponent_steps
        D, N = env.observation_size, env.num_actions
        self.render_mode = None
        super().__init__(num_envs, spaces.Box(0.0, np.inf, (D,), np.float32), spaces.Discrete(N))
        self._out: LearnerStep | None = None
        self._actions: torch.Tensor | None = None

    def seed(self, seed: int | None = None) -> Sequence[None | int]:
        """Seed the next :meth:`reset` (SB3's ``VecEnv.seed``: ``seed + i`` for slot ``i``; this env
        re-seeds its one engine with ``seed``).

        Raises:
            ConfigError: ``seed`` is not None or an integer >= 0 (nothing changes then).
        """
        check_seed(seed, allow_none=True, torch_seed=True)
        return super().seed(None if seed is None else int(seed))

    def set_options(self, options: list[dict[str, Any]] | dict[str, Any] | None = None) -> None:
        """SB3's ``VecEnv.set_options``: this env takes no reset options, so only None, ``{}`` or one ``{}`` per env.

        Raises:
            ConfigError: any option (it was kept and silently ignored at the next reset), or options of another form.
        """
        if options is None or isinstance(options, dict):
            given: list[Any] = [options or {}]
        elif isinstance(options, (list, tuple)) and len(options) == self.num_envs:
            given = list(options)
        else:
            given = [None]  # (neither None, a dict nor one dict per env: refused below)
        named = sorted({str(k) for o in given if isinstance(o, dict) for k in o})
        if named or any(not isinstance(o, dict) for o in given):
            raise ConfigError(
                f"VectorSB3Env takes no reset options, got {options!r}"
                + (f" (unknown: {', '.join(named)})" if named else "")
                + "; its games are set by the constructor's rules, seat and opponents"
            )
        super().set_options(None)

    def reset(self) -> VecEnvObs:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        self._seeds = []
        self._out = self.learner_env.reset(seed=seed)
        return self._out.observation.cpu().numpy()

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the learner's ids for :meth:`step_wait`: an integer array of shape ``(B,)``, one id per slot (what SB3
        passes for a ``Discrete`` action space).

        Raises:
            IllegalActionError: not an integer array (a float id is refused, not truncated; uint64 too, whose
                large values would wrap; a numpy masked array, whose mask would be dropped), or another shape
                (``(B, 1)`` included: a Discrete space's batch is ``(B,)``).
        """
        B = self.num_envs
        refuse_masked(actions, f"actions must be an integer array of shape ({B},)", IllegalActionError)
        a = np.asarray(actions)
        if a.dtype.kind not in "iu" or a.dtype == np.uint64:
            raise IllegalActionError(f"actions must be integer ids (int64 or narrower), got an array of {a.dtype}")
        if a.shape != (B,):
            raise IllegalActionError(f"actions must have shape ({B},), one id per slot, got {a.shape}")
        self._actions = torch.as_tensor(a, dtype=torch.int64, device=self.venv.device)

    def step_wait(self) -> VecEnvStepReturn:
        """One learner decision per slot (SB3's ``(obs, rewards, dones, infos)``).

        Raises:
            ResetNeededError: before :meth:`reset` or without :meth:`step_async`; IllegalActionError: a wrong
                number of ids or an id the mask forbids (nothing is changed then).
        """
        if self._out is None or self._actions is None:
            raise ResetNeededError("call reset() and step_async() before step_wait()")
        actions, self._actions = self._actions, None
        out = self.learner_env.step(actions)
        self._out = out
        done = out.terminated | out.truncated
        obs = out.observation.cpu().numpy()
        done_np = done.cpu().numpy()
        trunc_np = out.truncated.cpu().numpy()
        assert out.final_observation is not None
        term_obs = out.final_observation.cpu().numpy()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(done_np):
            infos[i]["terminal_observation"] = term_obs[i]
            infos[i]["TimeLimit.truncated"] = bool(trunc_np[i])
        return obs, out.reward.cpu().numpy().astype(np.float32), done_np, infos

    # ------------------------------------------------------------------ masks and the VecEnv plumbing
    def action_masks(self) -> np.ndarray:
        """bool ``(num_envs, N)``: the learner's legal ids in every slot."""
        if self._out is None:
            raise ResetNeededError("no games in progress: call reset() before action_masks()")
        return self._out.action_mask.cpu().numpy()

    def close(self) -> None:
        """Release the games (:meth:`LearnerEnv.close <risk_env.vector.learner.LearnerEnv.close>`); :meth:`step_wait`
        and :meth:`action_masks` then raise :class:`~risk_env.errors.ResetNeededError` until :meth:`reset`."""
        env = getattr(self, "learner_env", None)  # (None: after a refused construction)
        if env is not None:
            env.close()
        self._out = None

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any) -> list[Any]:
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)


def _is_batched(obj: Any) -> bool:
    """A batched policy of this package (``(state, mask, active) -> ids``), not an ``(obs, mask)`` callable."""
    return isinstance(obj, SEAT_SAFE_POLICIES)


def _opponent_entries(opponent: Any) -> list[Any]:
    """The ``opponent`` argument as a checked list of entries (names, batched policies, ``(obs, mask)`` callables)."""
    if isinstance(opponent, str) or callable(opponent):
        entries: list[Any] = [opponent]
    elif isinstance(opponent, Sequence):
        entries = list(opponent)
    else:
        raise ConfigError(
            f"opponent must be a name, a batched policy, a callable (obs, mask) -> ids, or a list of those; got {opponent!r}"
        )
    if not entries:
        raise ConfigError("opponent list is empty; give 'random', a batched heuristic, a callable or a list of those")
    for e in entries:  # (a name is read by LearnerEnv: risk_env.vector.specs.batched_policy)
        if not isinstance(e, str) and not callable(e):
            raise ConfigError(
                f"opponent must be a name, a batched policy, a callable (obs, mask) -> ids, or a list of those; got {e!r}"
            )
        if not isinstance(e, str) and not _is_batched(e):
            _check_observation_callable(e)
    return entries


def _check_observation_callable(fn: Any) -> None:
    """Refuse an ``opponent=`` callable that cannot take the call ``fn(observation, mask)`` (one whose signature
    cannot be read, a builtin, passes)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(None, None)
    except TypeError:
        name = getattr(fn, "__name__", None) or type(fn).__name__
        raise ConfigError(
            f"a callable opponent= is called as opponent(observation, mask) -> ids (two positional arguments), but "
            f"{name} takes {sig}; give a batched policy (state, mask, active) -> ids as opponents= instead"
        ) from None


def build_train_env(cfg: TrainConfig) -> VecEnv:
    """The training envs of a :class:`~risk_env.train.config.TrainConfig` with ``env.backend: vector``:
    one :class:`VectorSB3Env` of ``env.n_envs`` slots on ``env.vector_device`` (wrapped in SB3's
    ``VecMonitor`` for the episode statistics), the opponents of ``opponents.baselines`` given to
    the slots by ``opponents.weights`` (drawn once, seeded by ``seed``; a name is one policy however many slots it
    plays in), the env's shaping and
    turn feature.

    Raises:
        ConfigError: what the batched backend does not do: the graph policy (the batched
            engine gives the flat observation: use ``ppo.policy: mlp``), self-play, PFSP, baselines
            other than ``random``, the batched heuristics and networks (a pretrained agent, a policy file ``.pt``,
            a MaskablePPO ``.zip``: each plays its most probable legal id), ``env.max_turn_steps``, or rules
            the batched engine does not support; an ``env.vector_device`` torch does not know or has not here.
    """
    from stable_baselines3.common.vec_env import VecMonitor

    problems = []
    if cfg.ppo.policy != "mlp":
        problems.append("ppo.policy: mlp (the batched engine gives the flat observation, not the graph one)")
    if cfg.opponents.self_play.enabled:
        problems.append("opponents.self_play.enabled: false (no snapshot opponents in the batched engine)")
    if cfg.opponents.pfsp.enabled:
        problems.append(
            "opponents.pfsp.enabled: false (the opponents are dealt to the slots once, by opponents.weights; "
            "nothing draws them again by their results)"
        )
    from ..agents.registry import network_form

    known = ("random", *BATCHED_HEURISTICS)
    bad = [b for b in cfg.opponents.baselines if b.strip().lower() not in known and network_form(b.strip()) is None]
    if bad:
        problems.append(
            f"opponents.baselines among {list(known)}, pretrained agents, policy files (.pt) and MaskablePPO "
            f"files (.zip) (not {bad})"
        )
    if cfg.env.max_turn_steps is not None:
        problems.append("env.max_turn_steps: null")
    if problems:
        raise ConfigError("env.backend 'vector' needs " + "; ".join(problems))
    try:
        resolve_device(cfg.env.vector_device)
    except ConfigError as e:  # ("device='cuda' is not available...": named by its key)
        raise ConfigError(f"env.vector_{e}") from None
    names = list(cfg.opponents.baselines)
    w = np.asarray(cfg.opponents.weights if cfg.opponents.weights is not None else [1.0] * len(names), dtype=np.float64)
    picks = np.random.default_rng(cfg.seed).choice(len(names), size=cfg.env.n_envs, p=w / w.sum())
    venv = VectorSB3Env(
        cfg.env.n_envs,
        device=cfg.env.vector_device,
        seed=cfg.seed,
        opponent=[names[k] for k in picks],
        shaping=cfg.env.shaping,
        shaping_gamma=cfg.env.shaping_gamma if cfg.env.shaping_gamma is not None else cfg.ppo.gamma,
        turn_feature=cfg.env.turn_feature if cfg.env.turn_feature is not None else True,
        rules=cfg.rules_config,
    )
    venv.seed(cfg.seed)
    return VecMonitor(venv)
