"""PPO that stays on the device: batched rollouts, per-seat advantages and updates as torch tensors.

:class:`DevicePPO` trains a :class:`~risk_env.train.graph_net.GraphNet` on the learner-seat
batched env :class:`risk_env.vector.learner.LearnerEnv`: against batched opponents (one learner
seat per game, the opponents' turns played inside each call) or in self-play (every seat is the
learner). Everything lives on the env's device: the rollout's graph observations
(:meth:`risk_env.vector.VectorGame.observe_graph`), the masked action sampling,
the advantages, the minibatches and the updates; nothing goes through numpy.

The pieces that are not Risk-specific are TorchRL's: the loss is
:class:`torchrl.objectives.ClipPPOLoss` (clipped surrogate, value loss, entropy bonus,
advantages standardized per minibatch, as sb3-contrib's ``MaskablePPO``) over a
:class:`torchrl.modules.MaskedCategorical` policy, and the advantages are
:func:`torchrl.objectives.value.functional.generalized_advantage_estimate`. Ours is what
Risk needs around them:

* **Returns per seat.** In self-play the seat that decides changes from call to call, so
  each seat's decisions form its own trajectory: a decision's reward runs from it to that
  seat's next decision (:func:`risk_env.vector.learner.seat_credit`), and GAE runs along
  each (slot, seat) stream of decisions. With one learner seat per game this is PPO's usual
  per-env trajectory.
* **Rollout boundaries per stream.** A seat's last decision of a rollout has no successor
  yet; it is held back (with its reward so far) and becomes the first decision of its
  stream in the next rollout, so every bootstrap is the value of the seat's own next
  decision, never a value from a position where it is not to act. The decision before it
  bootstraps from its value, as PPO does at a rollout's end.
* **Masks.** Illegal ids get probability 0 in the rollout and in the loss.

Deterministic for a seed on one device: the env, the parameter initialization, the action
sampling and the minibatch order are seeded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from ..errors import ConfigError, check_seed
from ..vector.learner import LearnerEnv, seat_credit
from .graph_net import GraphNet, masked_logits
from .seating import Seating

__all__ = ["PRECISIONS", "DevicePPO", "PPOSettings", "rollout_bytes", "seat_streams"]


@dataclass
class PPOSettings:
    """The PPO hyperparameters (sb3-contrib's names and meanings; see :class:`risk_env.train.config.PPOSection`)."""

    learning_rate: float = 3e-4
    n_steps: int = 32
    batch_size: int = 512
    n_epochs: int = 4
    gamma: float = 0.999
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    precision: str = "float32"
    """``"float32"``, or ``"bfloat16"``: the network's matrix products under ``torch.autocast`` in
    bfloat16 (the weights, the optimizer and the loss stay float32); about twice as fast on CPUs
    with AVX-512 BF16 and on recent GPUs."""


PRECISIONS = ("float32", "bfloat16")
"""Values of :attr:`PPOSettings.precision`."""


class _ActorCritic(nn.Module):
    """``(nodes, globals) -> (logits, value)`` of a :class:`GraphNet` on one map (its dense adjacency),
    float32 out whatever the autocast; the last logits are kept for the teacher term."""

    def __init__(self, net: GraphNet, adjacency: torch.Tensor, precision: str = "float32") -> None:
        super().__init__()
        self.net = net
        self.adjacency = adjacency
        self.autocast = precision == "bfloat16"
        self.last_logits: torch.Tensor | None = None

    def forward(self, nodes: torch.Tensor, globals_: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        with torch.autocast(nodes.device.type, dtype=torch.bfloat16, enabled=self.autocast):
            logits, value = self.net.forward_dense(nodes, globals_, self.adjacency)
        logits, value = logits.float(), value.float()
        self.last_logits = logits
        return logits, value


def seat_streams(
    key: torch.Tensor, valid: torch.Tensor, num_streams: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, int]:
    """Lay the valid decisions of a rollout out as one row per stream, in call order.

    Args:
        key: int64 ``(R, B)``: each decision's stream (``slot * n + seat``).
        valid: bool ``(R, B)``: the decisions that exist.
        num_streams: ``B * n``.

    Returns:
        ``(entry, stream, pos, width)``: the flat indices (into ``(R * B)``) of the valid
        decisions sorted by stream then call, their stream and position in it (int64 ``(K,)``),
        and the longest stream's length.
    """
    R, B = key.shape
    flat = valid.reshape(-1).nonzero()[:, 0]
    k = key.reshape(-1)[flat]
    order = torch.argsort(k * R + torch.div(flat, B, rounding_mode="floor"))
    entry, stream = flat[order], k[order]
    counts = torch.bincount(stream, minlength=num_streams)
    starts = torch.cumsum(counts, 0) - counts
    pos = torch.arange(entry.numel(), device=key.device) - starts[stream]
    width = int(counts.max()) if entry.numel() else 1
    return entry, stream, pos, max(width, 1)


@dataclass
class _Episodes:
    """Finished learner episodes of the last rollouts (returns with the shaping, lengths in own decisions)."""

    returns: list[float] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)


def rollout_bytes(T: int, F: int, G: int, N: int, num_players: int, n_steps: int) -> int:
    """Bytes one game slot's rollout takes in :class:`DevicePPO` (its buffers and bookkeeping, allocated when it is
    built): ``num_players + n_steps`` rows of a decision (the graph observation, ``T x F`` node and ``G`` global
    float32 features, the ``N``-id mask, the action, its log-probability, value and teacher label, the seat, the
    rewards and ends of every seat) and the held-back decisions' and the episodes' counters.

    >>> rollout_bytes(T=42, F=20, G=73, N=70, num_players=2, n_steps=16)
    67804
    """
    n = num_players
    row = 4 * T * F + 4 * G + N + 8 + 4 + 4 + 8 + 8 + 1 + 4 * n + n
    return (n + n_steps) * row + n + 4 * n + 4 * n + 8 * n


class DevicePPO:
    """PPO on a learner-seat batched env (module docstring).

    Args:
        env: a :class:`~risk_env.vector.learner.LearnerEnv` (flat observations; the graph ones are
            encoded here).
        net: the network to train (moved to the env's device).
        settings: :class:`PPOSettings`.
        seed: seeds the action sampling and the minibatch order.
        turn_feature: show ``turn / turn_limit`` in the graph observation.
        teacher: a batched policy (:class:`risk_env.vector.agents.BatchedPolicy`, such as a batched
            heuristic or a frozen network, :class:`risk_env.vector.network.NetworkPolicy`) for kickstarting and
            behaviour cloning: it labels the learner's decisions with its own choice for the seat to act (seeing
            what that seat may know).
        kl_coef, anneal_steps: kickstarting (Schmitt et al., 2018): the loss adds
            ``c(t) * mean(-log pi(a_teacher | s))`` on the rollout's states, ``c(t) = kl_coef *
            max(0, 1 - t / anneal_steps)`` at ``t`` learner decisions (0: no teacher term).
        seating: with a self-play ``env``, the learner and opponent seats of each game
            (:class:`~risk_env.train.seating.Seating`): the network answers the learner seats' decisions
            and the opponents theirs, in the same calls; only the learner's decisions are trained on.

    Attributes:
        num_timesteps: learner decisions played so far (calls x slots).
        optimizer: Adam (eps 1e-5, as SB3's PPO; the multi-tensor implementation, the same values).
        loss_module: the TorchRL :class:`~torchrl.objectives.ClipPPOLoss`.
    """

    def __init__(
        self,
        env: LearnerEnv,
        net: GraphNet,
        settings: PPOSettings,
        seed: int = 0,
        turn_feature: bool = False,
        teacher: Any = None,
        kl_coef: float = 0.0,
        anneal_steps: int = 1,
        seating: Seating | None = None,
    ) -> None:
        from tensordict.nn import TensorDictModule
        from torchrl.modules import MaskedCategorical, ProbabilisticActor
        from torchrl.objectives import ClipPPOLoss

        s = settings
        if s.batch_size < 2:
            raise ConfigError(f"ppo.batch_size must be >= 2, got {s.batch_size}")
        check_seed(seed, torch_seed=True)
        if s.precision not in PRECISIONS:
            raise ConfigError(f"precision must be one of {', '.join(PRECISIONS)}, got {s.precision!r}")
        if seating is not None and not env.self_play:
            raise ConfigError("a seating needs a self-play LearnerEnv (it plays the opponent seats itself)")
        self.env = env
        self.settings = s
        self.seating = seating
        self.teacher = teacher
        self.kl_coef = float(kl_coef)
        self.anneal_steps = max(1, int(anneal_steps))
        self.device = env.device
        self.turn_feature = bool(turn_feature)
        gt = env.game.graph_tables
        T, F, G, N = env.game.T, gt.F, gt.G, env.game.num_actions
        net.check_fits(T, F, G, N)
        self.net = net.to(self.device)
        self.adjacency = GraphNet.mean_adjacency(gt.edges, T)
        self.model = _ActorCritic(self.net, self.adjacency, s.precision)
        module = TensorDictModule(self.model, in_keys=["nodes", "globals"], out_keys=["logits", "value_pred"])
        self.actor = ProbabilisticActor(
            module,
            in_keys={"logits": "logits", "mask": "action_mask"},
            distribution_class=MaskedCategorical,
            return_log_prob=True,
        )
        # the value comes out of the same forward pass as the logits (one trunk): the critic reads it
        critic = TensorDictModule(nn.Identity(), in_keys=["value_pred"], out_keys=["state_value"])
        self.loss_module = ClipPPOLoss(
            self.actor,
            critic,
            clip_epsilon=s.clip_range,
            entropy_coeff=s.ent_coef,
            critic_coeff=s.vf_coef,
            loss_critic_type="l2",
            normalize_advantage=True,
            functional=False,
        )
        self._lp_key = self.loss_module.tensor_keys.sample_log_prob
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=s.learning_rate, eps=1e-5, foreach=True)
        self.generator = torch.Generator(device=self.device)
        self.generator.manual_seed(int(seed))
        self.num_timesteps = 0
        self.episodes = _Episodes()
        B, n, L = env.num_envs, env.num_players, s.n_steps
        R = n + L
        dev = self.device
        # rows 0..n-1: each seat's decision held back from the previous rollout; rows n..: this rollout's calls
        # (their bytes per slot: rollout_bytes, which the trainer checks against the memory before it starts)
        self.buf = {
            "nodes": torch.zeros(R, B, T, F, dtype=torch.float32, device=dev),
            "globals": torch.zeros(R, B, G, dtype=torch.float32, device=dev),
            "action_mask": torch.zeros(R, B, N, dtype=torch.bool, device=dev),
            "action": torch.zeros(R, B, dtype=torch.int64, device=dev),
            "log_prob": torch.zeros(R, B, dtype=torch.float32, device=dev),
            "value": torch.zeros(R, B, dtype=torch.float32, device=dev),
            "teacher": torch.zeros(R, B, dtype=torch.int64, device=dev),
        }
        self._seat = torch.zeros(R, B, dtype=torch.int64, device=dev)
        self._seat[:n] = torch.arange(n, device=dev)[:, None]
        self._valid = torch.ones(R, B, dtype=torch.bool, device=dev)  # a learner's decision (rows n..)
        self._rewards = torch.zeros(R, B, n, dtype=torch.float32, device=dev)
        self._ended = torch.zeros(R, B, n, dtype=torch.bool, device=dev)
        self._held = torch.zeros(n, B, dtype=torch.bool, device=dev)  # a held-back decision exists
        self._held_reward = torch.zeros(n, B, dtype=torch.float32, device=dev)
        self._pending: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None  # held rows to carry
        self._ep_return = torch.zeros(B, n, dtype=torch.float32, device=dev)
        self._ep_len = torch.zeros(B, n, dtype=torch.int64, device=dev)
        self._last = env.reset()
        self.last_stats: dict[str, float] = {}

    # ------------------------------------------------------------------ acting
    def observe(self, out: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """The graph observation (``nodes``, ``globals``) of a call's output, for its ``current_player``."""
        state = self.env.venv.state
        if state is None:
            raise ConfigError("the env has no games in progress: reset it first")
        g = self.env.game.observe_graph(state, out.current_player, out.action_mask, self.turn_feature, out.observation)
        return g["nodes"], g["globals"]

    @torch.inference_mode()
    def act(
        self,
        nodes: torch.Tensor,
        globals_: torch.Tensor,
        mask: torch.Tensor,
        greedy: bool = False,
        forced: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One legal action per row from the masked policy (sampled, or its most probable with
        ``greedy``, or the given ``forced`` ids): ``(action, log_prob, value)``."""
        logits, value = self.model(nodes, globals_)
        logp = torch.log_softmax(masked_logits(logits, mask), dim=-1)
        if forced is not None:
            action = forced
        elif greedy:
            action = logp.argmax(1)
        else:
            action = torch.multinomial(logp.exp(), 1, generator=self.generator)[:, 0]
        return action, logp.gather(1, action[:, None])[:, 0], value[:, 0]

    # ------------------------------------------------------------------ the rollout
    def kickstart_coef(self) -> float:
        """The teacher term's weight now, ``c(t)`` (0 without a teacher)."""
        if self.teacher is None:
            return 0.0
        return self.kl_coef * max(0.0, 1.0 - self.num_timesteps / self.anneal_steps)

    def collect(self, actor: str = "policy", count: bool = True, label: bool | None = None) -> None:
        """Play ``n_steps`` calls of every slot, storing the decisions, their rewards and ends.

        Args:
            actor: ``"policy"`` (the network samples; the teacher labels the states when its term is
                on), ``"greedy"`` (the network's most probable action) or ``"teacher"`` (the teacher
                plays the learner seats: behaviour cloning data).
            count: add the decisions to :attr:`num_timesteps` (False for a warm start's games).
            label: have the teacher label every decision (default: when it plays, or when its term is on).

        Raises:
            ConfigError: a teacher's actor without a teacher, or an unknown actor.
        """
        if actor not in ("policy", "greedy", "teacher"):
            raise ConfigError(f"actor must be 'policy', 'greedy' or 'teacher', got {actor!r}")
        if actor == "teacher" and self.teacher is None:
            raise ConfigError("collect(actor='teacher') needs a teacher")
        self._carry()
        env, buf = self.env, self.buf
        n = env.num_players
        out = self._last
        if label is None:
            label = actor == "teacher" or self.kickstart_coef() > 0
        if label and self.teacher is None:
            raise ConfigError("labelled decisions need a teacher")
        seating = self.seating
        played: Any = 0  # (learner decisions of this rollout; a device tensor with a seating)
        for t in range(self.settings.n_steps):
            r = n + t
            cur = out.current_player
            state = env.venv.state
            assert state is not None
            nodes, glob = self.observe(out)
            mask = out.action_mask
            lrn = seating.is_learner(cur) if seating is not None else None
            taught = None
            if label:
                assert self.teacher is not None
                taught = self.teacher(state, mask, lrn)
                buf["teacher"][r] = taught
            forced = taught if actor == "teacher" else None
            action, logp, value = self._decide(state, out, nodes, glob, lrn, actor == "greedy", forced)
            if lrn is not None:
                self._valid[r] = lrn
            played = played + (env.num_envs if lrn is None else lrn.sum())  # (a tensor: no host sync per call)
            buf["nodes"][r] = nodes
            buf["globals"][r] = glob
            buf["action_mask"][r] = mask
            buf["action"][r] = action
            buf["log_prob"][r] = logp
            buf["value"][r] = value
            self._seat[r] = cur
            out = self._play(out, action, lrn)
            self._rewards[r] = out.rewards
            self._ended[r] = out.seat_terminated | out.seat_truncated
        self._last = out
        if count:
            self.num_timesteps += int(played)

    def _decide(
        self,
        state: Any,
        out: Any,
        nodes: torch.Tensor,
        glob: torch.Tensor,
        lrn: torch.Tensor | None,
        greedy: bool,
        forced: torch.Tensor | None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One call's ids: the network's (:meth:`act`) in every row, or, with a seating, on the learner rows ``lrn``
        only and the opponents' on theirs (their log-probability and value 0)."""
        if lrn is None:
            return self.act(nodes, glob, out.action_mask, greedy=greedy, forced=forced)
        assert self.seating is not None
        cur, mask = out.current_player, out.action_mask
        idx = lrn.nonzero()[:, 0]
        action = torch.zeros_like(cur)
        logp = torch.zeros(cur.shape[0], dtype=torch.float32, device=self.device)
        value = torch.zeros(cur.shape[0], dtype=torch.float32, device=self.device)
        if idx.numel():
            a, lp, v = self.act(nodes[idx], glob[idx], mask[idx], greedy=greedy, forced=None if forced is None else forced[idx])
            action[idx], logp[idx], value[idx] = a, lp, v
        return self.seating.opponent_actions(state, mask, cur, action), logp, value

    def _play(self, out: Any, action: torch.Tensor, lrn: torch.Tensor | None, active: torch.Tensor | None = None) -> Any:
        """Step the env with one call's ids (in the ``active`` slots only, where given) and keep the learner
        episodes' returns and lengths and the seating up to date; returns the env's output."""
        env, cur = self.env, out.current_player
        rows = torch.arange(env.num_envs, device=self.device)
        own = torch.ones_like(cur, dtype=torch.bool) if lrn is None else lrn
        self._ep_len[rows, cur] += (own if active is None else own & active).long()
        learners = env.learners.clone() if self.seating is None else self.seating.learners()
        out = env.step(action, active=active)
        ended = out.seat_terminated | out.seat_truncated
        self._track_episodes(out.rewards, ended & learners, learners)
        if self.seating is not None:
            self.seating.finish(out.autoreset, cur, out.seat_terminated, out.seat_truncated)
        return out

    def stagger(self, max_calls: int) -> int:
        """Spread the slots' games over their phases before training: slot ``b`` plays its next ``L_b`` calls with
        the policy (sampled, as in a rollout; nothing stored, trained on or counted in :attr:`num_timesteps`),
        ``L_b`` uniform in ``0 .. max_calls - 1`` from the seeded generator, while the others wait.

        All slots begin their games together, so without it the first rollouts hold only the setup and the opening
        of every game, the next ones only the middle: the updates follow the game's phases in waves, one game long
        each, until the lengths of the games have spread them (``env.stagger_calls``). Returns the calls played.

        Raises:
            ConfigError: ``max_calls`` is not an integer >= 0.
        """
        if isinstance(max_calls, bool) or not isinstance(max_calls, int) or max_calls < 0:
            raise ConfigError(f"max_calls must be an integer >= 0, got {max_calls!r}")
        if max_calls <= 1:
            return 0
        self._carry()
        self.drop_held()  # (a held decision's successor would come after calls nobody stored)
        env = self.env
        length = torch.randint(max_calls, (env.num_envs,), generator=self.generator, device=self.device)
        out = self._last
        calls = int(length.max())
        for t in range(calls):
            state = env.venv.state
            assert state is not None
            nodes, glob = self.observe(out)
            lrn = self.seating.is_learner(out.current_player) if self.seating is not None else None
            action, _, _ = self._decide(state, out, nodes, glob, lrn, False, None)
            out = self._play(out, action, lrn, active=length > t)
        self._last = out
        return calls

    def _track_episodes(self, rewards: torch.Tensor, ended: torch.Tensor, learners: torch.Tensor) -> None:
        """Learner episodes' returns (with the shaping) and lengths (own decisions)."""
        self._ep_return += torch.where(learners, rewards, 0.0)
        if bool(ended.any()):
            ep = self.episodes
            ep.returns.extend(self._ep_return[ended].tolist())
            ep.lengths.extend(self._ep_len[ended].tolist())
            self._ep_return[ended] = 0.0
            self._ep_len[ended] = 0

    # ------------------------------------------------------------------ advantages
    def advantages(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """GAE along each seat's stream of decisions.

        Returns:
            ``(entries, advantage, value_target)``: the flat indices (into rows x slots) of the
            decisions ready for the update, and their advantages and value targets (float32 ``(K,)``).
            Each seat's last decision without a successor is held back for the next rollout.
        """
        from torchrl.objectives.value.functional import generalized_advantage_estimate

        s = self.settings
        n, B = self.env.num_players, self.env.num_envs
        R = n + s.n_steps
        reward, done, nxt = seat_credit(self._seat, self._rewards, self._ended)
        reward[:n] += torch.where(self._held, self._held_reward, 0.0)
        valid = self._valid.clone()
        valid[:n] = self._held
        held = valid & ~done & (nxt == R)  # no successor yet: the next rollout's first decision of its stream
        key = torch.arange(B, device=self.device)[None, :] * n + self._seat
        entry, stream, pos, width = seat_streams(key, valid, B * n)
        S = B * n

        def lay(x: torch.Tensor, fill: float | bool) -> torch.Tensor:
            out = torch.full((S, width), fill, dtype=x.dtype, device=self.device)
            out[stream, pos] = x.reshape(-1)[entry]
            return out

        value = lay(self.buf["value"], 0.0)
        rew = lay(reward, 0.0)
        term = lay(done, True)
        is_held = lay(held, False)
        next_value = torch.zeros_like(value)
        next_value[:, :-1] = value[:, 1:]
        # the decision before a held-back one bootstraps from its value and stops there
        cut = torch.zeros_like(term)
        cut[:, :-1] = is_held[:, 1:]
        gae_done = term | cut | is_held
        adv, target = generalized_advantage_estimate(
            s.gamma, s.gae_lambda, value[..., None], next_value[..., None], rew[..., None], gae_done[..., None], term[..., None]
        )
        keep = ~held.reshape(-1)[entry]
        ready = entry[keep]
        # the held-back decisions go to rows 0..n-1 (row = seat) when the next rollout starts
        # (:meth:`_carry`): not now, since the ready decisions read by the update may lie in those rows
        h = held.reshape(-1).nonzero()[:, 0]
        rows, slots = torch.div(h, B, rounding_mode="floor"), h % B
        seats = self._seat[rows, slots]
        self._pending = (rows, slots, seats)
        self._held = torch.zeros_like(self._held)
        self._held[seats, slots] = True
        self._held_reward = torch.zeros_like(self._held_reward)
        self._held_reward[seats, slots] = reward[rows, slots]
        return ready, adv[stream[keep], pos[keep], 0], target[stream[keep], pos[keep], 0]

    # ------------------------------------------------------------------ the update
    def update(
        self,
        entries: torch.Tensor,
        advantage: torch.Tensor,
        value_target: torch.Tensor,
        clone: dict[str, Any] | None = None,
    ) -> dict[str, float]:
        """``n_epochs`` passes of minibatch updates over the ready decisions; returns the mean losses
        (SB3's TensorBoard names: ``train/policy_gradient_loss``, ``train/value_loss``, ...; with a
        teacher term ``train/kickstart_coef``, ``train/kickstart_loss``, ``train/kickstart_agreement``).

        ``clone``: behaviour cloning instead of PPO (``{"epochs", "batch_size", "vf_coef", "optimizer"}``):
        the loss is ``-log pi(a_teacher | s) + vf_coef * (V(s) - value_target) ** 2``.
        """
        if clone is not None:
            return self._clone(entries, value_target, **clone)
        from tensordict import TensorDict

        s = self.settings
        coef = self.kickstart_coef()
        R, B = self._seat.shape
        flat = {k: v.reshape(R * B, *v.shape[2:]) for k, v in self.buf.items()}
        K = int(entries.numel())
        sums: dict[str, Any] = {}  # device tensors, read once at the end (no synchronisation per minibatch)
        count = 0
        for _ in range(s.n_epochs):
            perm = torch.randperm(K, generator=self.generator, device=self.device)
            for lo in range(0, K, s.batch_size):
                j = perm[lo : lo + s.batch_size]
                if j.numel() < 2:
                    continue
                e = entries[j]
                td = TensorDict(
                    {
                        "nodes": flat["nodes"][e],
                        "globals": flat["globals"][e],
                        "action_mask": flat["action_mask"][e],
                        "action": flat["action"][e],
                        self._lp_key: flat["log_prob"][e],
                        "state_value": flat["value"][e][:, None],
                        "advantage": advantage[j][:, None],
                        "value_target": value_target[j][:, None],
                    },
                    batch_size=[int(j.numel())],
                )
                out = self.loss_module(td)
                critic = out.get("loss_critic", None)
                loss = out["loss_objective"] + out["loss_entropy"] + (critic if critic is not None else 0.0)
                if coef > 0:
                    logits = self.model.last_logits
                    assert logits is not None
                    taught = flat["teacher"][e]
                    ce = nn.functional.cross_entropy(masked_logits(logits, td["action_mask"]), taught)
                    loss = loss + coef * ce
                    sums["kickstart_loss"] = sums.get("kickstart_loss", 0.0) + ce.detach()
                    agree = (logits.detach().masked_fill(~td["action_mask"], float("-inf")).argmax(1) == taught).float().mean()
                    sums["kickstart_agreement"] = sums.get("kickstart_agreement", 0.0) + agree
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), s.max_grad_norm)
                self.optimizer.step()
                for name, v in (
                    ("policy_gradient_loss", out["loss_objective"]),
                    ("value_loss", critic / s.vf_coef if critic is not None else torch.zeros((), dtype=torch.float32)),
                    ("entropy_loss", -out["entropy"]),
                    ("approx_kl", out["kl_approx"]),
                    ("clip_fraction", out["clip_fraction"]),
                    ("explained_variance", out["explained_variance"]),
                    ("loss", loss),
                ):
                    sums[name] = sums.get(name, 0.0) + v.detach()
                count += 1
        stats = {k: float(v) / max(count, 1) for k, v in sums.items()}
        stats["learning_rate"] = s.learning_rate
        stats["n_updates"] = float(count)
        if self.teacher is not None and self.kl_coef > 0:
            stats["kickstart_coef"] = coef
        self.last_stats = stats
        return stats

    def _clone(
        self, entries: torch.Tensor, value_target: torch.Tensor, epochs: int, batch_size: int, vf_coef: float, optimizer: Any
    ) -> dict[str, float]:
        R, B = self._seat.shape
        flat = {k: v.reshape(R * B, *v.shape[2:]) for k, v in self.buf.items()}
        K = int(entries.numel())
        sums: dict[str, Any] = {"bc_loss": 0.0, "bc_value_loss": 0.0, "bc_agreement": 0.0}
        count = 0
        for _ in range(epochs):
            perm = torch.randperm(K, generator=self.generator, device=self.device)
            for lo in range(0, K, batch_size):
                j = perm[lo : lo + batch_size]
                e = entries[j]
                mask = flat["action_mask"][e]
                taught = flat["teacher"][e]
                logits, value = self.model(flat["nodes"][e], flat["globals"][e])
                ce = nn.functional.cross_entropy(masked_logits(logits, mask), taught)
                vl = (value[:, 0] - value_target[j]).pow(2).mean()
                loss = ce + vf_coef * vl
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), self.settings.max_grad_norm)
                optimizer.step()
                sums["bc_loss"] += ce.detach()
                sums["bc_value_loss"] += vl.detach()
                sums["bc_agreement"] += (logits.detach().masked_fill(~mask, float("-inf")).argmax(1) == taught).float().mean()
                count += 1
        return {k: float(v) / max(count, 1) for k, v in sums.items()}

    def _carry(self) -> None:
        """Move the decisions held back by the last :meth:`advantages` into rows 0..n-1 (row = seat), once
        the update that read the ready decisions there is done and before the rollout overwrites rows n.."""
        if self._pending is None:
            return
        rows, slots, seats = self._pending
        self._pending = None
        for v in self.buf.values():
            v[seats, slots] = v[rows, slots].clone()

    def drop_held(self) -> None:
        """Forget the decisions held back for the next rollout (after a phase played by another actor,
        whose log-probabilities no longer describe the behaviour)."""
        self._pending = None
        self._held.zero_()
        self._held_reward.zero_()

    def learn_once(self) -> dict[str, float]:
        """One rollout and its update; returns the update's statistics."""
        self.collect()
        return self.update(*self.advantages())
