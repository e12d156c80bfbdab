"""Imitation warm start: behaviour cloning of a baseline agent, then DAgger, before PPO.

The steps (:func:`warm_start`, run by :func:`risk_env.train.sb3.train` when
``imitation.enabled`` is set):

1. **Teacher games.** The teacher (``imitation.teacher``, e.g. ``balanced``) plays
   the learner's seat of :class:`~risk_env.envs.single_agent.RiskSingleAgentEnv`
   against the configured opponents (``opponents.baselines``/``weights``; no
   snapshots) under the training rules; every decision of its seat is stored
   (:class:`DecisionSet`: the learner's observation, the mask, the teacher's
   action, the decision kind) with the discounted return that followed
   (``ppo.gamma``, the env's rewards including the shaping, as PPO's critic sees them).
   Whole games are played until ``decisions`` decisions are stored.
2. **Behaviour cloning** (:func:`fit`): the policy's action head by cross-entropy on
   the masked logits (``-log pi(a_teacher | s)``), the value head by mean squared
   error to the returns (weight ``vf_coef``), ``epochs`` passes with Adam.
3. **DAgger rounds** (Ross, Gordon and Bagnell, 2011): the student (the cloned
   policy, sampling from its distribution unless ``dagger_deterministic``) plays
   ``dagger_decisions`` decisions of whole games in ``env.n_envs`` envs in lockstep,
   choosing for all of them in one forward pass; the teacher labels the student's
   own states (:func:`risk_env.train.teacher.teacher_action`); the returns are the
   student's; the new decisions join the dataset and the policy is refit on all of it.

The log reports, per decision kind (:data:`~risk_env.train.teacher.DECISION_KINDS`:
attack target, reinforce territory, fortify destination), how often the policy's
most probable action equals the teacher's: on the student's own states before
each refit (the honest figure) and on the training set after it.

Example (a tiny run on the small map)::

    from risk_env.envs.single_agent import RiskSingleAgentEnv
    from risk_env.train.imitation import collect_decisions, fit, agreement
    env = RiskSingleAgentEnv(num_players=2, observation="graph", preset="fast", map="small", opponents="balanced")
    data, stats = collect_decisions(env, "balanced", 2000, gamma=0.999, seed=0)
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch as th
from torch.nn import functional as F

from ..envs.opponents import OpponentPool, preserve_global_rng, reseed, resolve_agent
from ..envs.single_agent import RiskSingleAgentEnv
from ..errors import ConfigError, check_seed
from .config import env_kwargs
from .teacher import DECISION_KINDS, decision_kind, episode_score, teacher_action

__all__ = ["DecisionSet", "agreement", "collect_decisions", "fit", "warm_start"]

SHARED_KEYS = ("edges",)
"""Observation keys that are the same at every decision of one map (stored once)."""


@dataclass
class DecisionSet:
    """Decisions of the learner's seat labelled by a teacher.

    Attributes:
        obs: per-decision observation arrays, ``(M, ...)`` each: the graph keys
            (``nodes`` float32 ``(M, T, F)``, ``globals`` float32 ``(M, G)``) or ``{"obs": (M, D)}``
            for the flat observation.
        shared: arrays the same for every decision (the graph's ``edges``, int64 ``(2, E)``).
        masks: bool ``(M, N)``: the legal ids.
        actions: int64 ``(M,)``: the teacher's action ids (legal under ``masks``).
        returns: float32 ``(M,)``: the discounted return that followed each decision.
        kinds: int8 ``(M,)``: :func:`~risk_env.train.teacher.decision_kind`.
    """

    obs: dict[str, np.ndarray]
    shared: dict[str, np.ndarray]
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    kinds: np.ndarray

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    @property
    def flat(self) -> bool:
        return list(self.obs) == ["obs"]

    @staticmethod
    def concat(sets: Sequence[DecisionSet]) -> DecisionSet:
        """One set holding every decision of ``sets`` (same map and observation kind).

        Raises:
            ConfigError: no sets, or sets of different maps / observation kinds.
        """
        if not sets:
            raise ConfigError("concat needs at least one DecisionSet")
        first = sets[0]
        for s in sets[1:]:
            if set(s.obs) != set(first.obs) or any(not np.array_equal(s.shared[k], first.shared[k]) for k in first.shared):
                raise ConfigError("cannot concatenate decisions of different maps or observation kinds")
        return DecisionSet(
            {k: np.concatenate([s.obs[k] for s in sets]) for k in first.obs},
            dict(first.shared),
            np.concatenate([s.masks for s in sets]),
            np.concatenate([s.actions for s in sets]),
            np.concatenate([s.returns for s in sets]),
            np.concatenate([s.kinds for s in sets]),
        )

    def batch(self, idx: np.ndarray, device: th.device | str = "cpu") -> Any:
        """The observations of decisions ``idx`` as the policy takes them (a tensor dict, or a tensor)."""
        if self.flat:
            return th.as_tensor(self.obs["obs"][idx], device=device)
        out = {k: th.as_tensor(v[idx], device=device) for k, v in self.obs.items()}
        for k, v in self.shared.items():
            t = th.as_tensor(v, device=device)
            out[k] = t.unsqueeze(0).expand(len(idx), *t.shape)
        return out


# ---------------------------------------------------------------------------- collecting
def _split_obs(obs: Any) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    if isinstance(obs, dict):
        per = {k: np.asarray(v) for k, v in obs.items() if k not in SHARED_KEYS and k != "action_mask"}
        shared = {k: np.asarray(obs[k]) for k in SHARED_KEYS if k in obs}
        return per, shared
    return {"obs": np.asarray(obs)}, {}


def _discounted(rewards: list[float], gamma: float) -> np.ndarray:
    out = np.zeros(len(rewards), dtype=np.float32)
    g = 0.0
    for i in range(len(rewards) - 1, -1, -1):
        g = rewards[i] + gamma * g
        out[i] = g
    return out


@th.no_grad()
def _policy_probs(policy: Any, obs: Sequence[Any], masks: np.ndarray) -> np.ndarray:
    """The masked action probabilities, float64 ``(k, N)``, of ``policy`` at ``k`` observations
    (one forward pass for all of them); ``masks`` bool ``(k, N)``."""
    parts = [_split_obs(o) for o in obs]
    per = {key: np.stack([p[key] for p, _ in parts]) for key in parts[0][0]}
    k = len(parts)
    rows = DecisionSet(per, parts[0][1], masks, np.zeros(k, np.int64), np.zeros(k, np.float32), np.zeros(k, np.int8))
    dist = policy.get_distribution(rows.batch(np.arange(k), policy.device), action_masks=masks)
    return dist.distribution.probs.double().cpu().numpy()


@dataclass
class _Episode:
    """One game's decisions of the learner's seat, in order (kept together so returns stay per game)."""

    per: dict[str, list[np.ndarray]] = field(default_factory=dict)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    kinds: list[int] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)


def _check_lockstep(envs: list[Any]) -> None:
    """Refuse what cannot be played in lockstep: no env, an env twice, envs that differ."""
    if not envs:
        raise ConfigError("collect_decisions needs at least one env")
    for i, e in enumerate(envs):
        if not isinstance(e, RiskSingleAgentEnv):
            raise ConfigError(f"collect_decisions: env {i} is a {type(e).__name__}, not a RiskSingleAgentEnv")
    if len({id(e) for e in envs}) < len(envs):
        raise ConfigError("collect_decisions: an env is given twice (each plays its own games)")
    first = envs[0]
    for i, e in enumerate(envs[1:], 1):
        if e.rules != first.rules or e.observation_space != first.observation_space:
            raise ConfigError(
                f"collect_decisions: env {i} has other rules or another observation space than env 0 "
                "(envs in lockstep share one dataset)"
            )


def collect_decisions(
    env: RiskSingleAgentEnv | Sequence[RiskSingleAgentEnv],
    teacher: Any,
    decisions: int,
    gamma: float,
    seed: int = 0,
    student: Any = None,
    deterministic: bool = False,
) -> tuple[DecisionSet, dict[str, float]]:
    """Play whole episodes until at least ``decisions`` learner decisions are stored, each
    labelled with the teacher's action; return the first ``decisions`` of them.

    Args:
        env: the single-agent env (its opponents play the other seats), or several such envs
            of the same rules, played in lockstep: a student then chooses for all of them in one
            forward pass. Env ``i`` is reset with seed ``seed + i`` and plays its games one after
            another until the decisions stored and under way reach ``decisions``; the games'
            decisions are returned in the order the games ended (the last one cut at ``decisions``).
        teacher: an agent or spec (:func:`~risk_env.envs.opponents.resolve_agent`); each env
            gets its own (an agent keeps its plan for the move under way): env 0 the agent itself,
            the others copies of it reseeded with ``seed + i``.
        decisions: how many to return (>= 1).
        gamma: discount of the returns, in (0, 1].
        seed: seeds the envs' episodes, the teacher and the student's sampling.
        student: ``None``: the teacher plays its labels; a MaskablePPO policy: it plays
            (DAgger), sampling from its masked distribution unless ``deterministic``.

    Returns:
        the decisions, and ``{"games", "score", "seconds"}`` (every game played, those past
        ``decisions`` too, and the player's mean episode score: 1 won, 0.5 turn limit, 0 lost).

    Raises:
        ConfigError: ``decisions`` not an integer >= 1, ``gamma`` not a number in (0, 1], ``seed``
            not an integer >= 0, no env, an env given twice, or envs of different rules or
            observation spaces.
    """
    if isinstance(decisions, bool) or not isinstance(decisions, (int, np.integer)) or decisions < 1:
        raise ConfigError(f"decisions must be an integer >= 1, got {decisions!r}")
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float, np.floating)) or not 0.0 < gamma <= 1.0:
        raise ConfigError(f"gamma must be a number in (0, 1], got {gamma!r}")
    check_seed(seed)
    seed = int(seed)  # (a numpy integer would wrap in the seeds ``seed + i`` of the other envs)
    try:
        envs = [env] if isinstance(env, RiskSingleAgentEnv) else list(env)
    except TypeError:
        raise ConfigError(
            f"collect_decisions: env is a {type(env).__name__}, not a RiskSingleAgentEnv or a sequence of them"
        ) from None
    _check_lockstep(envs)
    t0 = time.monotonic()
    rng = np.random.default_rng(seed)
    # one teacher per env: an agent keeps its plan for the move under way (agents.base)
    teachers = [resolve_agent(teacher, seed=seed)]
    for i in range(1, len(envs)):
        if hasattr(teacher, "act"):  # an agent: a copy of it, reseeded
            teachers.append(copy.deepcopy(teacher))
            reseed(teachers[i], seed + i)
        else:
            teachers.append(resolve_agent(teacher, seed=seed + i))
    shared: dict[str, np.ndarray] = {}
    finished: list[_Episode] = []
    scores: list[float] = []
    stored = 0  # decisions of the finished games
    obs = [e.reset(seed=seed + i)[0] for i, e in enumerate(envs)]
    games = [_Episode() for _ in envs]
    playing = list(range(len(envs)))
    while playing:
        masks = [envs[i].action_masks() for i in playing]
        for i, mask in zip(playing, masks, strict=True):
            e, game = envs[i], games[i]
            game.actions.append(teacher_action(e, teachers[i]))
            p, shared = _split_obs(obs[i])
            for k, v in p.items():
                game.per.setdefault(k, []).append(v)
            game.masks.append(mask)
            game.kinds.append(decision_kind(e.game_state, e.selection))
        acts = [games[i].actions[-1] for i in playing]
        if student is not None:
            probs = _policy_probs(student, [obs[i] for i in playing], np.stack(masks).astype(bool))
            for j, pr in enumerate(probs):
                acts[j] = int(np.argmax(pr)) if deterministic else int(rng.choice(len(pr), p=pr / pr.sum()))
        still = []
        for i, a in zip(playing, acts, strict=True):
            obs[i], r, term, trunc, _ = envs[i].step(a)
            games[i].rewards.append(float(r))
            if not (term or trunc):
                still.append(i)
                continue
            finished.append(games[i])
            stored += len(games[i].actions)
            scores.append(episode_score(envs[i]))
            games[i] = _Episode()
            under_way = sum(len(games[j].actions) for j in playing if j != i)
            if stored + under_way < decisions:
                obs[i] = envs[i].reset()[0]
                still.append(i)
        playing = still
    n = decisions
    data = DecisionSet(
        {k: np.stack([v for g in finished for v in g.per[k]][:n]) for k in finished[0].per},
        shared,
        np.stack([m for g in finished for m in g.masks][:n]).astype(bool),
        np.asarray([a for g in finished for a in g.actions][:n], dtype=np.int64),
        np.concatenate([_discounted(g.rewards, gamma) for g in finished])[:n].astype(np.float32),
        np.asarray([c for g in finished for c in g.kinds][:n], dtype=np.int8),
    )
    return data, {"games": float(len(scores)), "score": float(np.mean(scores)), "seconds": time.monotonic() - t0}


# ---------------------------------------------------------------------------- fitting
def fit(
    policy: Any,
    data: DecisionSet,
    epochs: int,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    vf_coef: float = 0.5,
    max_grad_norm: float = 0.5,
    seed: int = 0,
) -> list[dict[str, float]]:
    """Behaviour-clone ``policy`` (a MaskablePPO policy) on ``data``: minimise
    ``-log pi(a_teacher | s) + vf_coef * (V(s) - return)^2`` over minibatches with Adam.

    Returns:
        one ``{"policy_loss", "value_loss"}`` per epoch (means over its minibatches).

    Raises:
        ConfigError: ``epochs < 1``, ``batch_size < 1`` or ``seed`` not an integer >= 0.
    """
    if epochs < 1 or batch_size < 1:
        raise ConfigError(f"epochs and batch_size must be >= 1, got {epochs!r} and {batch_size!r}")
    check_seed(seed)
    rng = np.random.default_rng(seed)
    opt = th.optim.Adam(policy.parameters(), lr=learning_rate)
    dev = policy.device
    policy.set_training_mode(True)
    hist = []
    for _ in range(epochs):
        order = rng.permutation(len(data))
        pl, vl = [], []
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            obs = data.batch(idx, dev)
            acts = th.as_tensor(data.actions[idx], device=dev)
            values, log_prob, _ = policy.evaluate_actions(obs, acts, action_masks=th.as_tensor(data.masks[idx], device=dev))
            p_loss = -log_prob.mean()
            v_loss = F.mse_loss(values.flatten(), th.as_tensor(data.returns[idx], device=dev))
            loss = p_loss + vf_coef * v_loss
            opt.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
            opt.step()
            pl.append(p_loss.item())
            vl.append(v_loss.item())
        hist.append({"policy_loss": float(np.mean(pl)), "value_loss": float(np.mean(vl))})
    policy.set_training_mode(False)
    return hist


@th.no_grad()
def agreement(policy: Any, data: DecisionSet, batch_size: int = 1024) -> dict[str, tuple[float, int]]:
    """How often the policy's most probable legal action equals the teacher's.

    Returns:
        ``{kind: (fraction, decisions)}`` for each of :data:`~risk_env.train.teacher.DECISION_KINDS`
        present in ``data``, and ``"all"``.
    """
    policy.set_training_mode(False)
    hits = np.zeros(len(data), dtype=bool)
    for start in range(0, len(data), batch_size):
        idx = np.arange(start, min(start + batch_size, len(data)))
        dist = policy.get_distribution(data.batch(idx, policy.device), action_masks=data.masks[idx])
        pred = dist.distribution.probs.argmax(dim=1).cpu().numpy()
        hits[idx] = pred == data.actions[idx]
    out: dict[str, tuple[float, int]] = {}
    for k, name in enumerate(DECISION_KINDS):
        sel = data.kinds == k
        if sel.any():
            out[name] = (float(hits[sel].mean()), int(sel.sum()))
    out["all"] = (float(hits.mean()) if len(hits) else 0.0, len(hits))
    return out


def format_agreement(agr: dict[str, tuple[float, int]]) -> str:
    """``"attack_target 71% (n=812), ..."``: the log line of :func:`agreement`."""
    return ", ".join(f"{k} {v:.0%} (n={n})" for k, (v, n) in agr.items())


# ---------------------------------------------------------------------------- the warm start
@dataclass
class WarmStartReport:
    """What :func:`warm_start` did (also written to ``<run>/imitation.json``)."""

    teacher: str
    rounds: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


def warm_start(model: Any, cfg: Any, log: Callable[[str], None] = print) -> WarmStartReport:
    """Clone ``cfg.imitation.teacher`` into ``model.policy`` (module docstring), in place.

    Args:
        model: a MaskablePPO model (its policy is trained; its optimizer is untouched).
        cfg: the :class:`~risk_env.train.config.TrainConfig`; reads ``imitation``, ``rules``,
            ``env``, ``opponents`` (baselines and weights) and ``ppo.gamma``.
        log: where the progress lines go.

    Returns:
        a :class:`WarmStartReport`.
    """

    im = cfg.imitation
    t0 = time.monotonic()
    rules = cfg.rules_config
    envs = [
        RiskSingleAgentEnv(
            rules=rules,
            opponents=OpponentPool(list(cfg.opponents.baselines), weights=cfg.opponents.weights, p_snapshot=0.0),
            **env_kwargs(cfg),
        )
        for _ in range(cfg.env.n_envs)
    ]
    policy = model.policy
    report = WarmStartReport(teacher=str(im.teacher))
    gamma = cfg.ppo.gamma
    with preserve_global_rng():
        # the teacher's games on one env: with no forward pass to share, lockstep would only
        # play past ``decisions`` (every env finishes the game it is in)
        data, st = collect_decisions(envs[0], im.teacher, im.decisions, gamma, seed=cfg.seed + 1)
        log(
            f"imitation: {len(data)} decisions of teacher {im.teacher} from {st['games']:.0f} games "
            f"(teacher's score {st['score']:.0%}) in {st['seconds']:.0f} s"
        )
        for r in range(im.dagger_rounds + 1):
            t1 = time.monotonic()
            hist = fit(policy, data, im.epochs, im.batch_size, im.learning_rate, im.vf_coef, seed=cfg.seed + 100 + r)
            fit_agr = agreement(policy, data)
            entry: dict[str, Any] = {
                "round": r,
                "decisions": len(data),
                "fit_seconds": time.monotonic() - t1,
                "loss": hist,
                "train_agreement": fit_agr,
            }
            log(
                f"imitation: fit {r} on {len(data)} decisions ({entry['fit_seconds']:.0f} s): policy loss "
                f"{hist[0]['policy_loss']:.3f} -> {hist[-1]['policy_loss']:.3f}, value loss "
                f"{hist[0]['value_loss']:.3f} -> {hist[-1]['value_loss']:.3f}; agreement on the training set: "
                f"{format_agreement(fit_agr)}"
            )
            if r < im.dagger_rounds:
                new, st = collect_decisions(
                    envs,
                    im.teacher,
                    im.dagger_decisions,
                    gamma,
                    seed=cfg.seed + 1000 + r * len(envs),  # no env's games seeded as in another round
                    student=policy,
                    deterministic=im.dagger_deterministic,
                )
                own = agreement(policy, new)
                entry.update(student_games=st["games"], student_score=st["score"], student_agreement=own)
                log(
                    f"imitation: DAgger round {r + 1}: the student scored {st['score']:.0%} in {st['games']:.0f} games "
                    f"({st['seconds']:.0f} s); agreement on its own states: {format_agreement(own)}"
                )
                data = DecisionSet.concat([data, new])
            report.rounds.append(entry)
    report.seconds = time.monotonic() - t0
    log(f"imitation: warm start done in {report.seconds:.0f} s")
    return report
