"""``VectorEnv``: ``B`` games in lockstep behind a Pgx-like interface.

>>> from risk_env.vector import VectorEnv
>>> env = VectorEnv(8, seed=0, preset="fast")
>>> out = env.reset()
>>> out.observation.shape, out.action_mask.shape, out.rewards.shape
(torch.Size([8, 427]), torch.Size([8, 70]), torch.Size([8, 4]))
>>> a = torch.multinomial(out.action_mask.float(), 1).squeeze(1)
>>> out = env.step(a)

Each slot holds one game. ``step(actions)`` applies one action id per slot
for the seat to act there (``current_player``), with the ids and masks of
:class:`risk_env.ActionCodec`; observations are
:class:`risk_env.ObservationEncoder` vectors from that seat. Rewards
``(B, num_players)`` follow the AEC env: -1 to a seat in the step that
eliminates it, +1 to the winner; a turn-limit truncation scores 0 (the
``"draw"`` rule).

Auto-reset: when a slot's game ends in a step, that step's ``rewards``,
``terminated`` and ``truncated`` describe the finished game, ``autoreset`` is
True there, and ``observation``, ``action_mask`` and ``current_player`` are
already those of a new game in the slot. The finished game's last
observation (from the seat that made the final move, as
``ObservationEncoder.encode`` would give it) is in ``final_observation`` when
the env was made with ``final_observation=True`` (else that field is None).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import torch

from ..errors import ConfigError, IllegalActionError, ResetNeededError, RiskError, check_seed
from ..rules.config import RulesConfig, resolve_rules
from ..rules.state import Phase
from .engine import BatchState, VectorGame
from .graphs import GraphRunner

__all__ = ["ID_DTYPES", "VectorEnv", "VectorStep", "as_tensor", "refuse_masked"]


Observation = Any
"""A batch of observations: a float32 ``(B, D)`` tensor (``observation="flat"``) or the graph dict
(``observation="graph"``: ``nodes (B, T, F)``, ``edges (B, 2, E)``, ``globals (B, G)``, ``action_mask (B, N)``).
(Typed ``Any``: code written for one mode indexes it directly.)"""

OBSERVATION_MODES = ("flat", "graph")
"""Values of :class:`VectorEnv`'s ``observation=`` option (as the AEC env's)."""

MAX_ENVS = 2**31 - 1
"""The largest ``num_envs`` a :class:`VectorEnv` takes (what fits the device's memory is usually far less:
each game keeps rows of several ``(B, T)`` tensors, and a count beyond the memory is refused too, see the
class docstring); a larger count is refused when the env is built, not at its first ``reset()``."""


class VectorStep(NamedTuple):
    """One batched transition (``B`` slots, ``D`` observation size, ``N`` actions, ``n`` players).

    Attributes:
        observation: the observations for ``current_player``: float32 ``(B, D)``, or with
            ``observation="graph"`` the graph dict (see :data:`Observation`).
        action_mask: bool ``(B, N)``. The observation and the mask are the env's own tensors (it
            checks the next actions against the mask): edit a ``clone()``.
        current_player: int64 ``(B,)`` the seat to act.
        rewards: float32 ``(B, n)`` this step's rewards per seat.
        terminated: bool ``(B,)`` the game was won in this step.
        truncated: bool ``(B,)`` the turn limit ended the game in this step.
        autoreset: bool ``(B,)`` the slot now holds a new game (``terminated | truncated``).
        final_observation: an :data:`Observation` or None (see the module docstring).
    """

    observation: Observation
    action_mask: torch.Tensor
    current_player: torch.Tensor
    rewards: torch.Tensor
    terminated: torch.Tensor
    truncated: torch.Tensor
    autoreset: torch.Tensor
    final_observation: Observation | None = None


class VectorEnv:
    """``num_envs`` games of the board game Risk on one torch device.

    Args:
        num_envs: batch size ``B``, an integer from 1 to ``MAX_ENVS`` (2**31 - 1).
        device: a torch device (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ...) that this torch can use.
        seed: seeds the env's one ``torch.Generator`` (setup, dice, reshuffles); an integer >= 0.
        preset: a rules preset name (``"classic"``, ``"fast"``, ...) or rules file
            (:func:`risk_env.rules.config.resolve_rules`).
        rules: a :class:`RulesConfig`, a preset or rules file name, or a mapping of switches, as the AEC env takes it
            (:func:`risk_env.rules.config.resolve_rules`; alternative to ``preset``; keywords apply on top).
        check_actions: raise :class:`IllegalActionError` on an illegal id (one mask
            lookup and a device sync per step); False skips the check (ids must then be legal).
        final_observation: also return the last observation of finished games.
        observation: ``"flat"`` (default: float32 ``(B, D)``, as :class:`risk_env.ObservationEncoder`)
            or ``"graph"`` (the graph dict, as the AEC env's ``observation="graph"``).
        turn_feature: show ``turn / turn_limit`` in the observation (default True for
            ``"flat"``, False for ``"graph"``, as the AEC env; False writes 0 there).
        static: compute every part of a step on the whole batch, without host checks (the same
            results; see :class:`~risk_env.vector.engine.VectorGame`).
        cuda_graph: replay each step and its observation as CUDA graphs recorded at the first
            ``reset()`` (the static step, so the same results; :mod:`risk_env.vector.graphs`); needs a
            CUDA device.
        **overrides: rule switches (``num_players=3``, ``turn_limit=300``...).

    The engine computes under ``torch.inference_mode()`` (no autograd bookkeeping per
    operation): the tensors of :attr:`state` are inference tensors. Read them, or derive new
    tensors from them, as usual; to edit one in place, do it under ``torch.inference_mode()``, and
    to use one directly beside a tensor that requires grad (``v.gather(1, state.player[:, None])``,
    an embedding of ``state.phase``), take a ``clone()``: torch refuses to save an inference tensor
    for backward. What ``reset``,
    ``step``, ``reset_slots`` and ``observe`` return is made of normal tensors, which a network
    may train on.

    Memory: ``num_envs`` is refused up front (a ``ConfigError`` when the env is built, before any game is
    made) when the games would need more memory than the device has: on the CPU the memory available to the
    process (``MemAvailable``, or less where its cgroup caps it), on a CUDA device its free memory
    (``torch.cuda.mem_get_info``); other devices are not asked. A game is counted as
    :meth:`VectorGame.bytes_per_game <risk_env.vector.engine.VectorGame.bytes_per_game>` bytes, measured
    from the state tensors of the map and rules: 5 times its state (the state and a step's work tensors) plus
    its observation and mask, about 3 KB on the small map and 8 KB on the classic map with 4 players. That is
    a lower bound (a process stepping a batch peaked at 6.6 to 9.5 times the state per game), so a batch near
    the limit may still not fit; the message says how much is needed, how much there is and the largest
    ``num_envs`` that fits.

    Raises:
        ConfigError: bad arguments (the message says what is allowed), a device this torch
            cannot use (naming the ones it can), rules the batched engine does not support
            (:data:`risk_env.vector.SUPPORTED_RULES`, with the reason), or ``num_envs`` games
            that need more memory than the device has (see Memory above).
    """

    def __init__(
        self,
        num_envs: int,
        device: str | torch.device = "cpu",
        seed: int = 0,
        preset: str | None = None,
        rules: RulesConfig | str | Mapping[str, Any] | None = None,
        check_actions: bool = True,
        final_observation: bool = False,
        observation: str = "flat",
        turn_feature: bool | None = None,
        static: bool = False,
        cuda_graph: bool = False,
        **overrides: Any,
    ) -> None:
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or not 1 <= num_envs <= MAX_ENVS:
            raise ConfigError(f"num_envs must be an integer from 1 to {MAX_ENVS} (2**31 - 1), got {num_envs!r}")
        num_envs = int(num_envs)
        for name, value in (
            ("check_actions", check_actions),
            ("final_observation", final_observation),
            ("static", static),
            ("cuda_graph", cuda_graph),
        ):
            if not isinstance(value, bool):
                raise ConfigError(f"{name} must be True or False, got {value!r}")
        if observation not in OBSERVATION_MODES:
            raise ConfigError(f"observation={observation!r} is not supported; choose one of: {', '.join(OBSERVATION_MODES)}")
        if turn_feature is not None and not isinstance(turn_feature, bool):
            raise ConfigError(f"turn_feature must be True, False or None, got {turn_feature!r}")
        cfg = resolve_rules(preset, rules, **overrides)  # (refuses a rules= of another type, naming what is allowed)
        self.game = VectorGame(cfg, device=device, seed=seed, static=static or cuda_graph)
        self.cuda_graph = cuda_graph
        self._capture = True  # (False: the runner plays its bodies without recording; the CPU tests)
        if cuda_graph and self.game.device.type != "cuda":
            raise ConfigError(
                f"cuda_graph=True needs a CUDA device, got device={device!r}; static=True runs the same step without graphs"
            )
        self._runner: GraphRunner | None = None
        self.rules = cfg
        self.num_envs = num_envs
        self.num_players = cfg.num_players
        self.num_actions = self.game.num_actions
        self.observation_size = self.game.obs_size
        self.observation_mode = observation
        self.turn_feature = (observation == "flat") if turn_feature is None else turn_feature
        self.device = self.game.device
        # the seat to act is the player on turn (so the mask and the observation share its hand's
        # counts) unless a defender or the allied army's commander may decide
        self._same_hand = not (self.game.choose or self.game.allied >= 0)
        self.check_actions = check_actions
        self.keep_final = final_observation
        self.state: BatchState | None = None
        self._mask: torch.Tensor | None = None
        self._flat: torch.Tensor | None = None
        self._obs: Observation | None = None
        # a step with at most this share of the slots active runs on those slots only (0: never;
        # never with static, whose shapes stay those of the whole batch)
        self.compact_share = 0.0 if (static or cuda_graph) else 0.25
        # new games for auto-reset come from a pool generated in batches (fewer small calls)
        self._pool: BatchState | None = None
        self._pool_pos = 0
        self._pool_size = max(8, min(256, num_envs // 4))
        gt = self.game.graph_tables
        graph = 4 * (self.game.T * gt.F + gt.G) if observation == "graph" else 0
        # (before any game is made: a batch beyond the RAM is killed)
        self.game.check_batch(num_envs, "num_envs", graph, "its graph observation")

    # ------------------------------------------------------------------ argument checks
    def _live(self, what: str) -> BatchState:
        if self.state is None or self._mask is None:
            raise ResetNeededError(f"no games in progress: call reset() before {what}()")
        return self.state

    def _slot_mask(self, x: Any, name: str) -> torch.Tensor:
        """A bool ``(B,)`` argument on the env's device (ConfigError otherwise)."""
        want = f"{name} must be a bool tensor of shape ({self.num_envs},)"
        t = as_tensor(x, want)
        if t.shape != (self.num_envs,) or t.dtype != torch.bool:
            raise ConfigError(f"{want}, got {_describe(t)}")
        return t.to(self.device)

    def _seats(self, x: Any, name: str) -> torch.Tensor:
        """An int64 ``(B,)`` tensor of seats ``0..n-1`` on the env's device (ConfigError otherwise)."""
        want = f"{name} must be an integer tensor of shape ({self.num_envs},) of seats 0..{self.num_players - 1}"
        t = as_tensor(x, want)
        if t.shape != (self.num_envs,) or t.dtype not in ID_DTYPES:
            raise ConfigError(f"{want}, got {_describe(t)}")
        t = t.to(device=self.device, dtype=torch.int64)
        bad = (t < 0) | (t >= self.num_players)
        if bool(bad.any()):
            b = int(bad.nonzero()[0, 0])
            raise ConfigError(f"{name}[{b}] = {int(t[b])} is not a seat; seats are 0..{self.num_players - 1}")
        return t

    def _actions(self, x: Any, active: torch.Tensor | None) -> torch.Tensor:
        """The action ids as int64 ``(B,)`` (IllegalActionError for anything else, or with
        ``check_actions`` an id the mask forbids in an active slot)."""
        refuse_masked(x, f"actions must be an integer tensor of shape ({self.num_envs},)", IllegalActionError)
        try:
            a = torch.as_tensor(x, device=self.device)
        except (TypeError, ValueError, RuntimeError) as e:
            raise IllegalActionError(f"actions must be an integer tensor of shape ({self.num_envs},), got {x!r}: {e}") from None
        if a.shape != (self.num_envs,) or a.dtype not in ID_DTYPES:
            raise IllegalActionError(
                f"actions must be an integer tensor of shape ({self.num_envs},), got {_describe(a)}"
                + ("" if a.dtype in ID_DTYPES else f" (dtypes taken: {', '.join(_dtype_name(d) for d in ID_DTYPES)})")
            )
        a = a.long()
        if self.check_actions:
            assert self._mask is not None and self.state is not None  # (checked by _live)
            bad = (a < 0) | (a >= self.num_actions)
            ok = self._mask.gather(1, a.clamp(0, self.num_actions - 1)[:, None])[:, 0] & ~bad
            if active is not None:
                ok = ok | ~active
            if not bool(ok.all()):
                b = int((~ok).nonzero()[0, 0])
                legal = self._mask[b].nonzero()[:, 0].tolist()
                phase = Phase(int(self.state.phase[b])).name.lower()
                what = f"out of range (ids are 0..{self.num_actions - 1})" if bool(bad[b]) else "illegal"
                seat = int(self.game.current_player(self.state)[b])
                raise IllegalActionError(
                    f"action {int(a[b])} is {what} in slot {b} (phase {phase}, seat {seat}); legal ids there: {legal}"
                )
        return a

    # ------------------------------------------------------------------ the interface
    def close(self) -> None:
        """Release the games: their state, observations and masks (a GPU's memory too, once nothing else holds
        them), and a CUDA graph's buffers. :meth:`step` then raises :class:`~risk_env.errors.ResetNeededError`
        until :meth:`reset` starts new games, as before the first one. Closing twice is fine."""
        self.state = None
        self._mask = self._flat = None
        self._obs = None
        self._pool = None
        self._runner = None

    def reset(self, seed: int | None = None) -> VectorStep:
        """New games in every slot (``seed``, an integer >= 0, re-seeds the generator first).

        Raises:
            ConfigError: a bad seed; nothing changes then.
        """
        check_seed(seed, allow_none=True, torch_seed=True)
        if seed is not None:
            self.game.generator.manual_seed(int(seed))
        with torch.inference_mode():  # (see the class docstring: the engine computes without autograd)
            fresh = self.game.new_games(self.num_envs)
            if self.cuda_graph and self._runner is not None:  # the recorded graphs keep reading the same tensors
                assert self.state is not None
                self.state.put(torch.arange(self.num_envs, device=self.device), fresh)
            else:
                self.state = fresh
                if self.cuda_graph:
                    self._runner = GraphRunner(self.game, self.state, self.presented, capture=self._capture)
            self._pool = None
            B, dev = self.num_envs, self.device
            zeros = torch.zeros(B, dtype=torch.bool, device=dev)
            out = self._output(torch.zeros(B, self.num_players, dtype=torch.float32, device=dev), zeros, zeros, zeros, None)
        return _normal(out)

    def step(self, actions: Any, active: Any = None, final_seat: Any = None) -> VectorStep:
        """Apply one action id per slot (int ``(B,)``, any device) and auto-reset finished games.

        Args:
            actions: the ids, one per slot (for the seat ``current_player`` names there).
            active: optional bool ``(B,)``; slots where it is False are left as they are
                (their action is ignored, their rewards are 0).
            final_seat: optional int64 ``(B,)`` seats; ``final_observation`` is then given, from these seats.

        Nothing is changed when one of the errors below is raised.

        Raises:
            ResetNeededError: before ``reset()``.
            IllegalActionError: actions of a wrong shape or dtype, or (with ``check_actions``)
                an id the mask forbids in an active slot.
            ConfigError: ``active`` or ``final_seat`` of a wrong shape, dtype or value.
        """
        s = self._live("step")
        act = None if active is None else self._slot_mask(active, "active")
        seats = None if final_seat is None else self._seats(final_seat, "final_seat")
        a = self._actions(actions, act)
        with torch.inference_mode():
            out = self._step(s, a, act, seats)
        return _normal(out)

    def _step(self, s: BatchState, a: torch.Tensor, act: torch.Tensor | None, seats: torch.Tensor | None) -> VectorStep:
        g = self.game
        if act is not None and self._obs is not None:
            idx = act.nonzero()[:, 0]
            if 0 < idx.numel() <= self.compact_share * self.num_envs:
                return self._step_rows(idx, a, seats)
        if seats is None and self.keep_final:
            seats = self._mover(s)
        if self._runner is not None:  # the step replayed as a CUDA graph (risk_env.vector.graphs)
            out = self._runner.step(a, act)
            rewards, won, truncated = out["rewards"].clone(), out["won"].clone(), out["truncated"].clone()
        else:
            info = g.step(s, a, active=act)
            rewards, won, truncated = g.rewards(s, info), info.won, info.truncated
        done = won | truncated
        final = self._final(s, seats)
        if bool(done.any()):
            idx = done.nonzero()[:, 0]
            s.put(idx, self._fresh(int(idx.numel())))
        return self._output(rewards, won, truncated, done, final)

    def _mover(self, s: BatchState) -> torch.Tensor:
        """The seat of the side that moves now: the player on turn, or during the allied army's sub-turn
        the seat commanding it (§7); the default seat of ``final_observation``."""
        if s.commander is None:
            return s.player.clone()
        return torch.where(s.player == self.game.allied, s.commander, s.player)

    def _final(self, s: BatchState, seats: torch.Tensor | None) -> Observation | None:
        """The observation from ``seats`` (the movers of the step, by default) before auto-reset, if asked for."""
        if seats is None:
            return None
        return self._observe(s, seats, None)

    def _step_rows(self, idx: torch.Tensor, a: torch.Tensor, final_seat: torch.Tensor | None) -> VectorStep:
        """:meth:`step` of the few active slots ``idx`` only: their games are gathered into a small
        batch, stepped (auto-reset included), observed and put back; the other slots' outputs are
        the previous step's. (Same rules and outputs; the generator's draws come in another order.)"""
        g, s = self.game, self.state
        assert s is not None and self._obs is not None and self._mask is not None and self._flat is not None
        B, dev = self.num_envs, self.device
        sub = s.rows(idx)
        mover = self._mover(sub)
        info = g.step(sub, a[idx])
        rew = g.rewards(sub, info)
        done = info.won | info.truncated
        final = None
        if final_seat is not None or self.keep_final:
            fin_sub = self._observe(sub, final_seat[idx] if final_seat is not None else mover, None)
            final = _scatter_rows(_zeros_like_obs(fin_sub, B), idx, fin_sub)
        if bool(done.any()):
            di = done.nonzero()[:, 0]
            sub.put(di, self._fresh(int(di.numel())))
        s.put(idx, sub)
        hand = g.hand_symbols(sub, sub.player) if g.NC else None
        mask_sub = g.action_mask(sub, hand)
        flat_sub = g.observe(sub, hand=hand if self._same_hand else None)
        mask = self._mask.clone()
        mask[idx] = mask_sub
        flat = self._flat.clone()
        flat[idx] = flat_sub
        self._mask, self._flat = mask, flat
        self._obs = _scatter_rows(self._obs, idx, self._present(sub, flat_sub, mask_sub))
        rewards = torch.zeros(B, self.num_players, dtype=torch.float32, device=dev)
        rewards[idx] = rew
        zeros = torch.zeros(B, dtype=torch.bool, device=dev)
        won, trunc, reset = zeros.clone(), zeros.clone(), zeros.clone()
        won[idx], trunc[idx], reset[idx] = info.won, info.truncated, done
        return VectorStep(
            observation=self._obs,
            action_mask=mask,
            current_player=g.current_player(s),
            rewards=rewards,
            terminated=won,
            truncated=trunc,
            autoreset=reset,
            final_observation=final,
        )

    def reset_slots(self, slots: Any) -> VectorStep:
        """Start new games in the slots where bool ``slots`` ``(B,)`` is True (others unchanged);
        the returned step has zero rewards and ``autoreset`` equal to ``slots``.

        Raises:
            ResetNeededError: before ``reset()``; ConfigError: ``slots`` is not a bool ``(B,)`` tensor.
        """
        s = self._live("reset_slots")
        m = self._slot_mask(slots, "slots")
        with torch.inference_mode():
            if bool(m.any()):
                idx = m.nonzero()[:, 0]
                s.put(idx, self._fresh(int(idx.numel())))
            B, dev = self.num_envs, self.device
            zeros = torch.zeros(B, dtype=torch.bool, device=dev)
            out = self._output(torch.zeros(B, self.num_players, dtype=torch.float32, device=dev), zeros, zeros, m.clone(), None)
        return _normal(out)

    def _fresh(self, k: int) -> BatchState:
        """``k`` new games, taken from the pool (refilled from the generator when it runs out)."""
        pool = self._pool
        if pool is None or self._pool_pos + k > pool.batch_size:
            pool = self._pool = self.game.new_games(max(k, self._pool_size))
            self._pool_pos = 0
        lo = self._pool_pos
        self._pool_pos += k
        return BatchState(**{name: t[lo : lo + k] for name, t in pool.fields().items()})

    def observe(self, seat: Any) -> Observation:
        """Each slot's observation from ``seat`` (int ``(B,)`` seats), as the AEC env's
        ``observe`` (for the graph observation: the mask and its ``legal`` features are the
        seat's own where it acts now, zeros elsewhere).

        Raises:
            ResetNeededError: before ``reset()``; ConfigError: ``seat`` is not an integer ``(B,)``
                tensor of seats.
        """
        s = self._live("observe")
        seats = self._seats(seat, "seat")
        assert self._mask is not None
        with torch.inference_mode():
            mask = torch.where((seats == self.game.current_player(s))[:, None], self._mask, False)
            obs = self._observe(s, seats, mask)
        return _normal(obs)

    def _observe(self, s: BatchState, seats: torch.Tensor, mask: torch.Tensor | None) -> Observation:
        flat = self.game.observe(s, seats)
        if not self.turn_feature:
            flat[:, self.game.obs_layout.start("turn")] = 0.0
        if self.observation_mode == "flat":
            return flat
        return self.game.observe_graph(s, seats, mask, turn_feature=self.turn_feature, flat=flat)

    def _present(self, s: BatchState, flat: torch.Tensor, mask: torch.Tensor) -> Observation:
        """The observation handed out for the seat to act, from its flat observation and mask."""
        if self.observation_mode == "flat":
            if self.turn_feature:
                return flat
            out = flat.clone()
            out[:, self.game.obs_layout.start("turn")] = 0.0
            return out
        return self.game.observe_graph(s, self.game.current_player(s), mask, turn_feature=self.turn_feature, flat=flat)

    def _output(
        self,
        rewards: torch.Tensor,
        terminated: torch.Tensor,
        truncated: torch.Tensor,
        autoreset: torch.Tensor,
        final: Observation | None,
    ) -> VectorStep:
        s = self.state
        assert s is not None
        shown = self.presented(s) if self._runner is None else _cloned(self._runner.present())
        self._mask, self._flat, self._obs = shown["mask"], shown["flat"], shown["obs"]
        return VectorStep(
            observation=self._obs,
            action_mask=self._mask,
            current_player=shown["seat"],
            rewards=rewards,
            terminated=terminated,
            truncated=truncated,
            autoreset=autoreset,
            final_observation=final,
        )

    def presented(self, s: BatchState) -> dict[str, Any]:
        """What a step hands out for the seats to act in ``s``: ``mask`` (bool ``(B, N)``), ``flat``
        (the flat observation), ``obs`` (the observation in the env's mode) and ``seat`` (``(B,)``)."""
        g = self.game
        hand = g.hand_symbols(s, s.player) if g.NC else None
        mask = g.action_mask(s, hand)
        flat = g.observe(s, hand=hand if self._same_hand else None)
        return {"mask": mask, "flat": flat, "obs": self._present(s, flat, mask), "seat": g.current_player(s)}

    def memory_per_game(self) -> int:
        """Bytes of game state per slot (the state tensors only, not observations or masks); before :meth:`reset`,
        measured on one new game without drawing from the env's generator."""
        if self.state is None:
            return self.game.state_bytes_per_game()
        return self.state.nbytes() // self.num_envs


ID_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)
"""The dtypes of an action-id or seat tensor the batched envs take (uint64, whose large values would wrap, is not one)."""


def as_tensor(x: Any, want: str, error: type[RiskError] = ConfigError) -> torch.Tensor:
    """``x`` as a tensor; ``error`` ``want`` (what was expected) naming ``x`` when torch reads no tensor
    from it (None, a string, a ragged list) or when it is a numpy masked array (torch would read its data and
    drop the mask, playing the masked entries' hidden values)."""
    if x is None:
        raise error(f"{want}, got None")
    refuse_masked(x, want, error)
    if isinstance(x, torch.Tensor) and x.is_meta:  # (no values to read: torch's copy raises NotImplementedError)
        raise error(f"{want}, got a tensor on the meta device, which holds no values")
    try:
        return torch.as_tensor(x)
    except (TypeError, ValueError, RuntimeError):
        raise error(f"{want}, got {type(x).__name__} {x!r}") from None


def refuse_masked(x: Any, want: str, error: type[RiskError]) -> None:
    """``error`` ``want`` when ``x`` is a numpy masked array: torch and ``numpy.asarray`` read its data and drop the
    mask, so the masked entries' hidden values would be taken as given."""
    if isinstance(x, np.ma.MaskedArray):
        raise error(f"{want}, got a numpy masked array (its mask would be dropped): give a plain array")


def _describe(t: torch.Tensor) -> str:
    return f"shape {tuple(t.shape)} dtype {_dtype_name(t.dtype)}"


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def _normal(x: Any) -> Any:
    """``x`` (a tensor, or a dict or named tuple of them) with copies for its inference tensors."""
    if isinstance(x, torch.Tensor):
        return x.clone() if x.is_inference() else x
    if isinstance(x, dict):
        return {k: _normal(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return type(x)(*[_normal(v) for v in x])
    return x


def _cloned(shown: dict[str, Any]) -> dict[str, Any]:
    """Copies of a graph runner's outputs (the graphs write into the same tensors at every replay)."""
    out: dict[str, Any] = {}
    for k, v in shown.items():
        if isinstance(v, torch.Tensor):
            out[k] = v.clone()
        else:
            out[k] = {j: (x[:1].expand_as(x) if j == "edges" else x.clone()) for j, x in v.items()}
    return out


def _zeros_like_obs(obs: Observation, B: int) -> Observation:
    if isinstance(obs, torch.Tensor):
        return obs.new_zeros((B, *obs.shape[1:]))
    return {k: (v.new_zeros((B, *v.shape[1:])) if k != "edges" else v[:1].expand(B, -1, -1)) for k, v in obs.items()}


def _scatter_rows(full: Observation, idx: torch.Tensor, rows: Observation) -> Observation:
    """A copy of ``full`` with rows ``idx`` replaced by ``rows`` (the shared edge index kept)."""
    if isinstance(full, torch.Tensor):
        assert isinstance(rows, torch.Tensor)
        out = full.clone()
        out[idx] = rows
        return out
    assert isinstance(rows, dict)
    res = {}
    for k, v in full.items():
        if k == "edges":
            res[k] = v
        else:
            c = v.clone()
            c[idx] = rows[k]
            res[k] = c
    return res
