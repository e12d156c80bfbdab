"""A single-agent Gymnasium view of Risk for Stable-Baselines3 (and any Gymnasium learner).

:class:`RiskSingleAgentEnv` seats one learner in a game and plays every other
seat with embedded opponents, so a game becomes an ordinary episode:

>>> import gymnasium, risk_env
>>> env = gymnasium.make("risk_env/RiskSingleAgent-v0", num_players=2)
>>> obs, info = env.reset(seed=0)
>>> obs.shape, obs.dtype, info["action_mask"].dtype
((321,), dtype('float32'), dtype('int8'))
>>> mask = env.unwrapped.action_masks()          # bool (70,), for sb3-contrib's MaskablePPO
>>> obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))

Seats and opponents
    The learner's seat is drawn per episode from the env's generator
    (``learner_seat=None``; pass an int to fix it); the turn order is itself a
    seeded random permutation (docs/rules.md §3). The other seats are played by
    *opponents*: anything with ``act(observation, info) -> int`` (the agent
    interface of :mod:`risk_env.agents`), a plain callable with that
    signature, a spec string (``"random"``, a baseline name, or a path to a
    saved MaskablePPO ``.zip``; built by the env's ``resolve``, by default
    ``risk_env.agents.load_agent``), a list of those (one per opponent seat, at most ``num_players - 1``; a shorter
    list is cycled over the seats), or an
    :class:`OpponentPool` that draws a fresh line-up every episode. ``None``
    means uniform random opponents. Opponents see the same observation as an
    AEC agent would: ``{"observation": float32 (D,), "action_mask": int8
    (N,)}`` from their own seat (encoded lazily, only if read), and ``info``
    holds ``"action_mask"`` and, for opponents that read one (``needs_view``, as
    agents declare it; assumed for objects that do not say), ``"view"``: the
    :class:`~risk_env.envs.view.GameView` of what that seat may know, as in the
    AEC env's info. The mask they get is a copy (:func:`~risk_env.envs.opponents.agent_inputs`):
    the id an opponent returns is checked against the env's own mask.

Spaces
    ``observation_space = Box(0, inf, (D,), float32)``: the learner's flat
    observation (:mod:`risk_env.envs.observation`; ``D = 321`` for 2 players on the
    classic map). With ``observation="graph"`` it is the map-free graph
    observation ``Dict(nodes (T, F) float32, edges (2, E) int64, globals (G,)
    float32, action_mask (N,) int8)`` of :mod:`risk_env.envs.graph` (for
    ``MultiInputPolicy`` or :class:`risk_env.train.graph_policy.GraphPolicy`).
    ``action_space = Discrete(N)`` (:mod:`risk_env.envs.codec`; ``N = 70`` on
    the classic map). Decisions are the codec's fine-grained
    sub-steps (source, then target, then dice or an amount), exactly as in the
    AEC env. The legal ids are ``action_masks()`` (bool ``(N,)``, a method of
    the env itself so ``SubprocVecEnv`` reaches it) and ``info["action_mask"]``
    (int8 ``(N,)``); both are fresh writable arrays and always agree. Once the
    episode is over (the step that returns ``terminated`` or ``truncated``, and
    after) both are all ones: no id is legal any more, but a sampler that reads
    either channel (MaskablePPO, a ``SyncVectorEnv`` policy) still gets a well
    defined distribution; the id it draws is never played (the vector env resets
    instead; a direct ``step`` raises until ``reset``).
    ``step`` accepts what ``action_space.contains`` accepts (a Python int, a
    numpy integer or a 0-d integer array) except bools; anything else (a bool,
    a float, an id out of range) raises
    :class:`~risk_env.errors.ActionSpaceError` whatever ``invalid_action`` says.

Rendering
    ``render_mode``: ``"ansi"`` (text), ``"rgb_array"`` (uint8 ``(H, W, 3)``
    frames, for ``RecordVideo`` and SB3's ``make_vec_env``, which asks for it)
    or ``"human"`` (a window, drawn at each ``reset`` and ``step``); the
    pictures need the ``render`` extra (matplotlib), as the AEC env's do.

Rewards (the learner's own)
    ``+1`` when the learner wins, ``-1`` when it is eliminated (the episode
    ends at once, even if the others play on), and at the turn limit the
    AEC env's truncation reward: ``0`` (``truncation_reward="draw"``) or the
    rank among survivors from ``+1`` to ``-1`` (``"rank"``, docs/rules.md §4.5).
    Rewards earned while opponents act are summed into the learner's next
    step. Optional potential-based shaping (Ng, Harada and Russell, 1999):
    ``shaping * (shaping_gamma * phi' - phi)`` per step, where ``phi = (own
    territories - other players' territories) / T`` (the 2-player neutral's
    territories count for nobody, so a conquest from a player is worth twice
    one from the neutral), ``phi`` is read at the learner's decision points
    (the first one after the opponents' opening turns, then after each step
    once the opponents have replied), and ``phi' = 0`` on the step that ends
    the episode. With ``shaping_gamma`` equal to the learner's discount this
    leaves the optimal policy unchanged: the discounted shaping of an episode
    sums to ``-shaping * phi_0`` whatever happens, so a lead is not worth
    dragging the game out for. (``shaping_gamma=1`` with an undiscounted sum
    also telescopes to ``-shaping * phi_0``.)

Termination vs truncation
    ``terminated``: the learner won or was eliminated (or broke the rules with
    ``invalid_action="penalty"``, or stalled). ``truncated``: the turn limit
    ended the game while the learner was alive (never both), so SB3 bootstraps
    the value of the final observation there (``TimeLimit.truncated``).

Stalls (``max_turn_steps``)
    The codec has no cancel, so every turn ends after finitely many
    decisions; still, a turn can be long. ``max_turn_steps`` (default
    ``None``: no cap) is an optional guard: when the learner takes more than
    that many decisions in one of its turns the episode ends as a loss
    (``terminated=True``, reward ``-1`` plus the shaping so far,
    ``info["stalled"] = True``), as :func:`risk_env.tools.match.play_match`
    scores a stalled game.

Illegal actions (``invalid_action``)
    Masked learners never send one, but unmasked sampling (e.g. SB3's
    ``check_env``, plain PPO) does. ``"random"`` (default): the illegal id is
    replaced by a legal id drawn uniformly from the env's generator, and
    ``info["invalid_action"]`` is True for that step. ``"penalty"``: the
    episode ends (``terminated=True``) with reward ``invalid_penalty``
    (default ``-1``), like PettingZoo's ``TerminateIllegalWrapper``.
    ``"raise"``: :class:`~risk_env.errors.IllegalActionError`, state unchanged.
    (With shaping, the penalty step also pays the shaping's last term ``-shaping * phi``.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from ..errors import ActionSpaceError, ConfigError, IllegalActionError, ResetNeededError, check_number, check_seed
from ..records.ansi import render_ansi
from ..records.frames import draw_frame
from ..rules.checks import position_from
from ..rules.config import RulesConfig, resolve_rules
from ..rules.engine import Game
from ..rules.state import GameState
from .action_input import as_action_id, describe_action
from .aec import check_turn_feature, reset_options
from .codec import ActionCodec, Selection
from .graph import GraphObservationEncoder, check_observation_mode
from .observation import ObservationEncoder
from .opponents import AgentResolver, OpponentPool, agent_inputs, check_fits_game, reseed, resolve_agent
from .view import GameView

__all__ = ["RiskSingleAgentEnv", "ENV_ID", "INVALID_ACTION_MODES"]

ENV_ID = "risk_env/RiskSingleAgent-v0"
"""Gymnasium id of :class:`RiskSingleAgentEnv` (registered by ``import risk_env``)."""

INVALID_ACTION_MODES = ("random", "penalty", "raise")


def _seat(value: Any, n: int, name: str, allowed: str = "a seat") -> int:
    """``value`` as a seat ``0..n-1`` (a Python or numpy integer, not a bool, as for action ids).

    Raises:
        ConfigError: anything else, naming the argument ``name`` and the seats (``allowed`` says what else is).
    """
    seat = as_action_id(value, n)
    if seat is None:
        raise ConfigError(f"{name} must be {allowed} 0..{n - 1} (an integer, not a bool), got {value!r}")
    return seat


# ---------------------------------------------------------------------------- the env
class RiskSingleAgentEnv(gymnasium.Env):
    """One learner against embedded opponents (see the module docstring).

    Args:
        num_players: 2..6 (2 players get the neutral army unless ``two_player="none"`` or ``"allied"``);
            ``None`` (default) keeps the count of ``rules`` or of the preset (4 when they name
            none), as for :class:`risk_env.envs.aec.raw_env`, and is 2 when neither is given
            (the quick default game: 2 players, random setup). An explicit count wins over
            ``rules``; one that contradicts a preset made for a fixed count is refused.
        opponents: ``None`` (random), an agent, a callable, a spec string, a
            list of those, or an :class:`OpponentPool`.
        learner_seat: ``None`` draws the seat each episode; a seat ``0..num_players-1`` (a Python or
            numpy integer, not a bool) fixes it.
        invalid_action: ``"random"``, ``"penalty"`` or ``"raise"`` (module docstring).
        invalid_penalty: reward for an illegal action under ``"penalty"`` (a finite number).
        shaping: coefficient of the territory-share shaping reward (a finite number >= 0; 0 = off).
        shaping_gamma: the ``gamma`` of the shaping term ``gamma * phi' - phi``, a number in (0, 1];
            set it to the learner's discount (module docstring, "Rewards"). Numbers may be
            Python or numpy ints and floats, not bools.
        max_turn_steps: the learner's decisions allowed in one turn before the episode
            ends as a stalled loss (``None``: no cap).
        preset: a rules preset or rules file, as for :class:`risk_env.envs.aec.raw_env`
            (when neither ``preset`` nor ``rules`` is given: the docs/rules.md defaults with
            ``setup="random"`` unless ``config`` says otherwise, and 2 players unless ``num_players`` does).
        rules: a :class:`~risk_env.rules.config.RulesConfig`, a name or a mapping, as for
            :class:`risk_env.envs.aec.raw_env`.
        **config: rule switches on top, as for :class:`risk_env.envs.aec.raw_env`.
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"`` (module docstring).
        observation: ``"flat"`` (default) or ``"graph"`` (module docstring, "Spaces").
        turn_feature: show ``turn / turn_limit`` in the observation (default: True for
            ``"flat"``, False for ``"graph"``; False writes 0 there, so a policy cannot
            read the turn limit it was trained under).
        resolve: builds opponents given as specs, ``resolve(spec, seed) -> agent``
            (default: :func:`risk_env.envs.opponents.agent_resolver`'s, the agent registry).

    Raises:
        ConfigError: a bad option or rule (``turn_feature`` other than True, False or None; a number
            that is a bool, NaN, infinite or out of its range; a ``learner_seat`` that is not a seat),
            a player count that contradicts the preset.

    Every call that needs an episode (``step``, ``render``, ``game_state``, ``view``) raises
    :class:`~risk_env.errors.ResetNeededError` before ``reset()``; ``gymnasium.make`` adds no
    order-enforcing wrapper of its own (the id is registered with ``order_enforce=False``).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        num_players: int | None = None,
        opponents: Any = None,
        learner_seat: int | None = None,
        invalid_action: str = "random",
        invalid_penalty: float = -1.0,
        shaping: float = 0.0,
        max_turn_steps: int | None = None,
        preset: str | None = None,
        rules: RulesConfig | str | Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        observation: str = "flat",
        turn_feature: bool | None = None,
        shaping_gamma: float = 1.0,
        resolve: AgentResolver | None = None,
        **config: Any,
    ) -> None:
        super().__init__()
        self.resolve = resolve
        check_observation_mode(observation)
        self.turn_feature = check_turn_feature(turn_feature, observation)
        gamma = check_number(
            shaping_gamma, "shaping_gamma", "a number in (0, 1] (the learner's discount)", lambda x: 0.0 < x <= 1.0
        )
        penalty = check_number(invalid_penalty, "invalid_penalty", "a finite number (the reward of an illegal action)")
        shaping = check_number(shaping, "shaping", "a finite number >= 0", lambda x: x >= 0.0)
        if rules is None and preset is None:  # the quick default game: 2 players, no decisions in setup
            config = {"setup": "random", **config}
            num_players = 2 if num_players is None else num_players
        cfg = resolve_rules(preset, rules, num_players, **config)  # None keeps the rules' or preset's count
        if invalid_action not in INVALID_ACTION_MODES:
            raise ConfigError(
                f"invalid_action={invalid_action!r} is not allowed; choose one of: {', '.join(INVALID_ACTION_MODES)}"
            )
        if max_turn_steps is not None and not (isinstance(max_turn_steps, (int, np.integer)) and max_turn_steps >= 1):
            raise ConfigError(f"max_turn_steps must be None or an integer >= 1, got {max_turn_steps!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(
                f"render_mode={render_mode!r} is not supported; choose one of {self.metadata['render_modes']} or None"
            )
        fixed_seat = None if learner_seat is None else _seat(learner_seat, cfg.num_players, "learner_seat", "None or a seat")
        self.rules = cfg
        self.game = Game(cfg)
        self.codec = ActionCodec(self.game)
        self.encoder = ObservationEncoder(self.game)
        self.observation_mode = observation
        self.graph_encoder = GraphObservationEncoder(self.game, turn_feature=self.turn_feature)
        self.observation_space: spaces.Space = (
            spaces.Box(0.0, np.inf, (self.encoder.size,), np.float32)
            if observation == "flat"
            else self.graph_encoder.space(self.codec.n)
        )
        self.action_space = spaces.Discrete(self.codec.n)
        self.render_mode = render_mode
        self.invalid_action = invalid_action
        self.invalid_penalty = penalty
        self.shaping = shaping
        self.shaping_gamma = gamma
        self.max_turn_steps = None if max_turn_steps is None else int(max_turn_steps)
        self._turn_key = (-1, -1)
        self._turn_steps = 0
        self.fixed_seat = fixed_seat
        self._pool: OpponentPool | None = None
        self._fixed: list[Any] | None = None
        self.set_opponents(opponents)
        self.state: GameState | None = None
        self.seat = 0
        self.opponents: dict[int, Any] = {}
        self._mask = np.ones(self.codec.n, dtype=np.int8)  # all ones while no episode runs (module docstring)
        self.selection = Selection()  # the codec's pending sub-step for state
        self._done = True
        self._share = 0.0
        self.last_move = ""
        self._renderer: Any = None

    # ------------------------------------------------------------------ opponents
    def set_opponents(self, opponents: Any) -> None:
        """Replace the opponents (from the next episode on); accepts what ``opponents=`` accepts.

        Raises:
            ConfigError: an empty list, or a list longer than the opponent seats (``num_players - 1``).
            AgentRulesError: a fixed opponent that cannot play these rules (a pool's opponents are checked when
                first drawn, by :meth:`reset`). The opponents are unchanged after either.
        """
        pool: OpponentPool | None = None
        fixed: list[Any] | None = None
        if isinstance(opponents, OpponentPool):
            pool = opponents
        elif opponents is None:
            pool = OpponentPool(("random",), p_snapshot=0.0, resolve=self.resolve)
        else:
            specs = list(opponents) if isinstance(opponents, (list, tuple)) else [opponents]
            if not specs:
                raise ConfigError("opponents must not be an empty list")
            seats = self.rules.num_players - 1
            if len(specs) > seats:
                raise ConfigError(
                    f"{len(specs)} opponents for {seats} opponent seat{'s' if seats > 1 else ''} "
                    f"({self.rules.num_players} players): give at most {seats} (a shorter list is cycled over the seats)"
                )
            fixed = [resolve_agent(sp, resolve=self.resolve) for sp in specs]
            check_fits_game(fixed, self.game)  # (a policy of other rules: refused here, not at its first decision)
        self._pool, self._fixed = pool, fixed
        self._checked: set[int] = set()  # (the ids of the pool's agents already checked against these rules)

    def add_snapshot(self, path: str) -> None:
        """Add a frozen snapshot to the opponent pool (used by self-play training through ``env_method``).

        Raises:
            ConfigError: the env plays fixed opponents, not a pool.
        """
        if self._pool is None:
            raise ConfigError("this env has fixed opponents; pass an OpponentPool to use snapshots")
        self._pool.add(path)

    @property
    def opponent_pool(self) -> OpponentPool | None:
        return self._pool

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Start an episode: draw the learner's seat and the opponents, deal a new game and
        let the opponents play until the learner's first decision.

        Args:
            seed: seeds the env's generator (seat, opponents, game seeds).
            options: ``{"state": position}`` starts from a copy of that position (a
                :class:`~risk_env.rules.state.GameState` or its ``to_dict()``, checked by
                :func:`risk_env.rules.checks.position_from`) instead of a new game (hand-built
                positions, curricula); ``{"learner_seat": k}`` fixes the seat for this episode (a seat
                ``0..num_players-1``, a Python or numpy integer, not a bool).

        Raises:
            ConfigError: a seed that is not None or an integer >= 0, ``options`` that is not None or a
                dict, an unknown option key, a ``learner_seat`` that is not a seat, or no learner
                decision reachable (a tiny turn limit). Nothing changes.
            StateError: a position that is malformed or breaks the rules (nothing changes).
        """
        check_seed(seed, allow_none=True)
        n = self.rules.num_players
        options = reset_options(options, "{'state': position} or {'learner_seat': 0}")
        start = options.pop("state", None)
        seat_opt = options.pop("learner_seat", None)
        if options:
            raise ConfigError(f"unknown reset option(s) {sorted(options, key=repr)}; allowed: state, learner_seat")
        if seat_opt is not None:
            seat_opt = _seat(seat_opt, n, "options['learner_seat']")
        if start is not None:
            start = position_from(self.game, start, "options['state']")  # a checked copy, before anything changes
        super().reset(seed=None if seed is None else int(seed))  # (Gymnasium takes a Python int)
        rng = self.np_random
        for _ in range(1 if start is not None else 100):
            if seat_opt is not None:
                seat = int(seat_opt)
            else:
                seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
            others = [p for p in range(n) if p != seat]
            if self._pool is not None:
                line_up = self._pool.sample(rng, len(others))
                fresh = [a for a in line_up if id(a) not in self._checked]
                check_fits_game(fresh, self.game)  # (before the seat, the opponents or the game change)
                self._checked.update(id(a) for a in fresh)
            else:
                assert self._fixed is not None
                line_up = [self._fixed[i % len(self._fixed)] for i in range(len(others))]
                for a in line_up:
                    reseed(a, int(rng.integers(2**31)))
            self.seat = seat
            self.opponents = dict(zip(others, line_up, strict=False))
            self.state = start.copy() if start is not None else self.game.new_game(int(rng.integers(2**63)))
            self.selection = Selection()
            self.last_move = ""
            self._turn_key, self._turn_steps = (-1, -1), 0
            self._done = False
            self._advance()
            self._share = self._potential()  # at the learner's first decision, after the opponents' opening
            if not self._done:
                break
        if self._done:
            if start is not None:
                raise ConfigError("options['state']: the game ends before the learner has a decision")
            raise ConfigError(f"no game reached a decision of the learner (turn_limit={self.rules.turn_limit} is too small)")
        self._mask = self.codec.mask(self.game_state, self.selection)
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play the learner's action id, then the opponents until the learner's next decision (module docstring).

        Raises:
            ResetNeededError: before the first ``reset()``, or the episode is over (call ``reset()``);
            ActionSpaceError: not an action id; an illegal id follows ``invalid_action``.
        """
        if self.state is None:
            raise ResetNeededError("no episode yet: call reset() before step()")
        if self._done:
            raise ResetNeededError("the episode is over: call reset() before step()")
        s = self.state
        a = as_action_id(action, self.codec.n)
        if a is None:
            raise ActionSpaceError(
                f"action is not in action space: an integer id in 0..{self.codec.n - 1} (a Python int, a numpy integer "
                f"or a 0-d integer array), got {describe_action(action)}"
            )
        invalid = not self._mask[a]
        if invalid:
            if self.invalid_action == "raise":
                self.codec.step(s, a, self.selection)  # raises IllegalActionError with the legal ids
                raise IllegalActionError(f"action {a} is illegal here")  # pragma: no cover (the codec raised)
            if self.invalid_action == "penalty":
                self._done = True
                self._mask = np.ones(self.codec.n, dtype=np.int8)
                info = self._info()
                info["invalid_action"] = True
                # the episode ends: the shaping returns the potential (phi' = 0), as on every last step
                reward = self.invalid_penalty - self.shaping * self._share if self.shaping else self.invalid_penalty
                return self._observe(), float(reward), True, False, info
            legal = np.flatnonzero(self._mask)
            a = int(legal[self.np_random.integers(len(legal))])
        key = (int(s.turn), int(s.player))
        if key != self._turn_key:
            self._turn_key, self._turn_steps = key, 0
        self._turn_steps += 1
        self._play(self.seat, a, self._mask)
        stalled = (
            self.max_turn_steps is not None
            and self._turn_steps > self.max_turn_steps
            and self.game.current_player(s) == self.seat
        )
        if not stalled:
            self._advance()
        reward = 0.0
        terminated = truncated = False
        if stalled:
            reward -= 1.0
            terminated = True
        else:
            out = self.game.outcome(s)
            if out.over or not s.alive[self.seat]:
                # the engine's return: +1 win, -1 eliminated or beaten, the truncation reward at the turn limit
                reward += out.returns[self.seat] if out.over else -1.0
                truncated = out.truncated and s.alive[self.seat]
                terminated = not truncated
        self._done = terminated or truncated
        if self.shaping:
            # potential-based: gamma * phi(next decision) - phi(this decision), phi = 0 once the episode ends
            share = 0.0 if self._done else self._potential()
            reward += self.shaping * (self.shaping_gamma * share - self._share)
            self._share = share
        self._mask = np.ones(self.codec.n, dtype=np.int8) if self._done else self.codec.mask(s, self.selection)
        info = self._info()
        if invalid:
            info["invalid_action"] = True
        if stalled:
            info["stalled"] = True
        if self.render_mode == "human":
            self.render()
        return self._observe(), float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """bool ``(N,)``: the learner's legal ids now, the same as ``info["action_mask"]``
        (all True once the episode is over, so a masked distribution stays well defined;
        ``step`` then requires ``reset``)."""
        return self._mask.astype(bool)

    def render(self) -> Any:
        """The board: ``str`` (``"ansi"``), uint8 ``(H, W, 3)`` (``"rgb_array"``) or ``None``
        (``"human"``: shown in a window; no render mode: warns).

        Raises:
            ResetNeededError: before ``reset()``, whatever the ``render_mode``; MissingExtraError: matplotlib
                missing (the ``render`` extra).
        """
        if self.state is None:
            raise ResetNeededError("no episode yet: call reset() before render()")
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'.")
            return None
        if self.render_mode == "ansi":
            return render_ansi(self.game, self.state, self.last_move)
        self._renderer, frame = draw_frame(self._renderer, self.game, self.render_mode, self.state, self.last_move)
        return frame

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        super().close()

    @property
    def game_state(self) -> GameState:
        """The engine state of the game in progress (read it; change it only through ``step``).

        Raises:
            ResetNeededError: before ``reset()``.
        """
        if self.state is None:
            raise ResetNeededError("no game in progress: call reset() first")
        return self.state

    def view(self, seat: int | None = None) -> GameView:
        """What ``seat`` (default: the learner's) may know of the game now, as the
        :class:`~risk_env.envs.view.GameView` agents read as ``info["view"]``.

        Raises:
            ResetNeededError: before ``reset()``; ConfigError: ``seat`` is not a player seat.
        """
        return GameView(self.game, self.game_state, self.seat if seat is None else seat, self.codec, self.selection)

    # ------------------------------------------------------------------ internals
    def _play(self, seat: int, a: int, mask: np.ndarray | None = None) -> None:
        move = self.codec.step(self.game_state, a, self.selection, mask)
        if move is not None and self.render_mode is not None:
            self.last_move = f"player_{seat}: {self.game.move_to_text(move)}"

    def _advance(self) -> None:
        """Let the opponents act until the learner decides or the game (or the learner) is done."""
        s = self.game_state
        g = self.game
        while True:
            who = g.current_player(s)
            if who < 0 or who == self.seat or not s.alive[self.seat]:
                if who < 0 or not s.alive[self.seat]:
                    self._done = True
                return
            mask = self.codec.mask(s, self.selection)
            opponent = self.opponents[who]
            view = GameView(g, s, who, self.codec, self.selection)  # what that seat may know, now
            obs, info = agent_inputs(self.encoder, view, mask, getattr(opponent, "needs_view", True))
            a = opponent.act(obs, info)
            try:
                self._play(who, int(a), mask)  # our own mask decides, not the opponent's copy
            except IllegalActionError as e:
                raise IllegalActionError(
                    f"opponent in seat {who} ({self.opponents[who]!r}) chose an illegal action: {e}"
                ) from None

    def _potential(self) -> float:
        """Shaping potential: (own territories - other players' territories) / T."""
        owner = self.game_state.owner
        own = int(np.count_nonzero(owner == self.seat))
        others = int(np.count_nonzero((owner >= 0) & (owner < self.rules.num_players))) - own
        return (own - others) / self.game.T

    def _observe(self) -> Any:
        flat = self.encoder.encode(self.game_state, self.seat, self.selection)
        if not self.turn_feature:
            flat[self.encoder.layout["turn"][0]] = 0.0
        if self.observation_mode == "graph":
            return self.graph_encoder.from_flat(flat, self.game_state, self.seat, self._mask)
        return flat

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask.copy(), "seat": self.seat, "turn": int(self.game_state.turn)}


def _register() -> None:
    if ENV_ID not in gymnasium.registry:
        # order_enforce=False: the env's own checks refuse step() and render() before reset() with ResetNeededError
        gymnasium.register(
            id=ENV_ID, entry_point="risk_env.envs.single_agent:RiskSingleAgentEnv", disable_env_checker=False, order_enforce=False
        )


_register()
