"""Risk as a PettingZoo AEC environment (``risk_v0``).

>>> import risk_env
>>> env = risk_env.env(num_players=3, setup="random")
>>> env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.last()
>>> obs["action_mask"].dtype, obs["observation"].dtype
(dtype('int8'), dtype('float32'))

Agents and turns
    Agents are ``player_0 .. player_{n-1}`` (``n`` = ``num_players``, 2..6).
    The turn order is a seeded random permutation of them (docs/rules.md §3);
    ``agent_selection`` is whoever decides next: the player on turn, or the
    defender when ``defender_dice="choose"``, or under ``two_player="allied"``
    the opponent of the player on turn while the allied army acts (see
    "Variants").

Actions
    One ``Discrete(N)`` per agent, the same in every phase (``N = T + 28``
    with cards, ``T + 15`` without; 70 on the classic map; ``T + 24`` under
    ``card_trade="stars"``, whose trade ids name a star total 2..10; the expert
    dice rules add 3 re-roll ids (``reroll_with_card``), 3 six ids
    (``die_to_six``) and one "keep roll" id before the last id, docs/rules.md §8).
    After a roll under those rules the attacker decides, while the roll waits
    (``game_state.roll_pending``), to re-roll one die, turn one into a six, or
    keep the roll; blitz never uses them. Under ``defender_dice="choose"`` the
    defender decides every round of a blitz (one defend decision per roll,
    the attacker rolling its most dice each time). Compound decisions
    are masked sub-steps: source, then target, then dice or an amount. The
    id layout is in :mod:`risk_env.envs.codec`; ``env.action_to_string(agent,
    action)`` says what an id means now.

Observations
    ``{"observation": Box(0, inf, (D,), float32), "action_mask": Box(0, 1, (N,), int8)}``
    from the agent's own seat (seat-rotated); layout in
    :mod:`risk_env.envs.observation` and ``env.observation_layout``. With
    ``observation="graph"``: ``{"nodes": (T, F) float32, "edges": (2, E) int64,
    "globals": (G,) float32, "action_mask": (N,) int8}``, the same for every map
    and player count up to the shapes (:mod:`risk_env.envs.graph`; the edge
    index is also ``env.graph_encoder.edges``). The mask is
    also in ``infos[agent]["action_mask"]``; it is all zeros for agents not to
    act. For the agent to act, ``infos[agent]["view"]`` is a
    :class:`~risk_env.envs.view.GameView`: what that seat may know at this decision
    and nothing more (its own hand and mission, the public board, the other
    players' card counts), so scripted agents play from the env's own info:
    ``load_agent("aggressive").act(obs, info)``. Clients that turn every info
    entry into an array or a tensor (TorchRL, Tianshou) pass ``views=False``,
    which leaves the view out (``env.view(agent)`` still gives one). Every array handed out
    (observation, masks, ``state()``) is a fresh writable array: changing it
    never changes the game (a ``GameView``'s arrays are read-only views of the
    game at its decision, as documented there). ``state()`` is the full position (float32 vector: the observation
    of the player on turn, followed by every seat's hand as card counts per
    symbol, then with ``secret_missions`` every player's mission as ``(n, 8 + n)``
    one-hot rows in the observation's seat rotation, the ``mission`` block's code)
    for centralized critics; ``env.game_state`` is the engine state.

Variants (docs/rules.md §4.2, §7, §8)
    ``secret_missions=True`` adds the observation blocks ``mission`` (the
    agent's own mission only) and ``mission_held``; ``capitals=True`` adds
    ``capital`` and ``capital_phase``, and a capital phase after setup in which
    each player, in turn order, picks its capital with a territory id (mask:
    its own territories). ``defender_dice="choose"`` adds ``blitz_defence``
    (the defence asked for is a round of a blitz). All are listed in
    ``env.observation_layout``; the default layout is unchanged, so the
    version stays ``risk_v0``.

    ``two_player="allied"`` (preset ``allied``, §7): after the mover's
    ``end attack`` the allied army acts, and ``agent_selection`` is the
    mover's opponent, which decides for it with the ids it uses for its own
    turn, no new id:

    =======================  ==================================================
    allied decision          action ids (mask)
    =======================  ==================================================
    place its reinforcement  territory id (allied territories), then an amount
                             id (``1..armies left``), as in the reinforce phase
    attack                   territory id of an allied source (2+ armies, next
                             to the mover), then of a target (the mover's
                             territories only), then dice or blitz ids; the
                             dice/blitz ids also roll again in the last battle
    occupy                   amount ids, as after any conquest
    end the allied attacks   the last id (``end``): the mover fortifies next
    =======================  ==================================================

    No trade ids (the allied army holds no cards) and no re-roll or six ids
    (its rolls stand). The mover answers allied attacks with the defend ids
    under ``defender_dice="choose"``; when the mover attacks an allied
    territory, the other player answers them. Observations: allied
    territories are owner slot ``n`` (as the neutral's), ``on_turn`` shows slot
    ``n`` while the allied army acts, ``to_place`` shows its armies left to
    the commanding seat, and the ``allied`` block (3) says that the allied
    army acts, that this seat commands it, and its reinforcement this turn.

Seeding
    ``reset(seed=s)`` seeds the game; a later ``reset()`` without a seed
    continues the env's own stream of game seeds (Gymnasium's contract, as in
    PettingZoo's games), so one seed makes a whole run reproducible; the first
    unseeded reset ever draws the stream from fresh entropy.

Starting from a position
    ``reset(options={"state": position})`` goes on from a given position (a
    ``GameState`` or its ``to_dict()``, checked by ``Game.state_from_dict``; a
    bad one raises :class:`~risk_env.errors.StateError` and changes nothing), for
    search, curricula and reproducing a bug from a saved position::

        saved = env.unwrapped.game_state.to_dict()     # JSON-ready, generator included
        env.reset(options={"state": saved})            # the same game again, from here

Rewards
    +1 to the winner (the last player with territories, §4.5) and -1 to each
    other player, given when it is eliminated (collected through ``last()``
    at its dead step; with ``eliminated="stay"``, when the game ends). At the turn limit (``turn_limit`` player turns) every
    live agent is *truncated*; its reward is 0 (``truncation_reward="draw"``)
    or its rank among the survivors by territories then armies, mapped
    linearly from +1 (best) to -1 (worst) (``"rank"``). A secret mission or the
    capitals (§8) may end the game with several players alive: the winner gets
    +1 and every other player -1. Rewards are 0 otherwise.

Eliminated players (``eliminated=``)
    ``"remove"`` (default, PettingZoo's convention): an eliminated player is
    terminated at once with its -1, the dead step (``step(None)``) removes it
    from ``agents``. ``"stay"``: for clients that expect every agent to be
    present until the episode ends for all (TorchRL's ``PettingZooWrapper``,
    Tianshou's ``PettingZooEnv``): an eliminated player stays in ``agents``,
    is never ``agent_selection`` (it has no decisions, its mask is all zeros),
    gets reward 0 meanwhile, and is terminated with its -1 when the game ends
    (at the same step as the winner's +1, or the survivors' truncation); then
    every agent takes its dead step as usual. Recipes: ``docs/clients.md``.

Illegal actions
    ``raw_env`` is strict: an illegal id raises
    :class:`~risk_env.errors.IllegalActionError` (a ``ValueError`` naming the
    action, the phase and the legal ids) and changes nothing. ``env()``
    follows PettingZoo's classic games: ``TerminateIllegalWrapper`` ends the
    game with -1 for the offender, then ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper`` (fused into one layer,
    :class:`risk_env.envs.wrappers.ClassicWrapper`, with the same behaviour). For strict errors use ``risk_env.raw_env`` (or
    ``env(strict=True)``, which keeps the order-enforcing wrapper only).
    Accepted ids are exactly what ``action_space(agent).contains`` accepts
    (a Python int, a numpy integer, a 0-d integer array such as
    ``MaskablePPO.predict`` returns), except bools
    (:mod:`risk_env.envs.action_input`). A value that is not an id at all
    (out of range, float, str, bool, ``None`` for a live agent) raises in every form: ``IllegalActionError`` from
    ``raw_env``, ``ActionSpaceError`` (also an ``AssertionError``) from
    ``env()``. ``step``/``observe``/``last``/``state``/``render``/``agent_iter`` before ``reset()``
    (in every form), ``last`` after every agent has left a finished game, and ``raw_env.step`` then,
    raise :class:`~risk_env.errors.ResetNeededError`. See ``docs/reliability.md``.

Termination vs truncation
    Elimination and victory terminate; the turn limit truncates. The outcome
    and every agent's return come from the engine
    (:meth:`Game.outcome <risk_env.rules.engine.Game.outcome>`).

Pending selection
    The codec's sub-step selection (a chosen source, a source-target pair, a
    trade waiting for its bonus territory) is ``env.selection``
    (:class:`~risk_env.envs.codec.Selection`), kept beside ``env.game_state``;
    the observation's ``selected`` block shows it. Pickling or deep-copying
    the env keeps both.

Version history
    The version is bumped when an observation or action layout, or the meaning
    of a reward, changes; code changes that keep them are not.

    * ``risk_v0``: the first release. ``Discrete(T + 28)`` actions (``T + 15``
      without cards) in the sub-step layout of :mod:`risk_env.envs.codec`;
      float32 observations in the layout of :mod:`risk_env.envs.observation`
      with the int8 action mask; +1/-1 terminal rewards and the ``"draw"`` or
      ``"rank"`` truncation reward; the classic wrappers of PettingZoo's
      classic games. Later changes that keep this layout (the codec's
      selection kept by the env instead of the game state, the outcome read
      from the engine) leave the version at ``risk_v0``. So do the layouts of
      the variants, which change only games with their switch on and are
      documented per switch: ``card_trade="stars"`` (9 trade ids instead of
      13), and ``reroll_with_card`` / ``die_to_six`` (their action ids before
      the last id, and the observation's ``dice_rules`` block at its end),
      ``two_player="allied"`` (the ``allied`` block) and
      ``defender_dice="choose"`` (the ``blitz_defence`` block, one more entry
      at the end of those games' observations than before), and the graph
      observation's blocks of those switches (the missions, the capitals, the
      dice rules, the allied army, the blitz defence: appended after its core
      features in games with a switch on, :data:`risk_env.envs.layout.GRAPH_VARIANT_BLOCKS`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..errors import ConfigError, IllegalActionError, ResetNeededError, StateError, UnknownAgentError, check_flag
from ..records.ansi import render_ansi
from ..records.frames import draw_frame
from ..rules.checks import position_from
from ..rules.config import RulesConfig, resolve_rules
from ..rules.engine import Game
from ..rules.knowledge import Knowledge
from ..rules.moves import Move
from ..rules.state import GameState, Phase
from .action_input import as_action_id, describe_action
from .codec import ActionCodec, Selection
from .graph import GraphObservationEncoder, check_observation_mode
from .observation import ObservationEncoder
from .view import GameView
from .wrappers import ClassicWrapper, StrictWrapper

__all__ = ["raw_env", "env", "ELIMINATED_MODES"]

ELIMINATED_MODES = ("remove", "stay")
"""Values of ``raw_env(eliminated=...)`` (see the module docstring, "Eliminated players")."""


def check_turn_feature(turn_feature: Any, observation: str) -> bool:
    """Whether the observation shows ``turn / turn_limit``: ``turn_feature``, or for ``None`` the
    default of ``observation`` (True for ``"flat"``, False for ``"graph"``).

    Raises:
        ConfigError: ``turn_feature`` is not ``True``, ``False`` or ``None`` (the wording of
            :class:`risk_env.vector.VectorEnv`'s check).
    """
    if turn_feature is None:
        return observation == "flat"
    if not isinstance(turn_feature, bool):
        raise ConfigError(f"turn_feature must be True, False or None, got {turn_feature!r}")
    return turn_feature


def reset_options(options: Any, example: str = "{'state': position}") -> dict[str, Any]:
    """A copy of ``reset(options=...)`` as a dict (``{}`` for None), the check of both envs' resets.

    Args:
        options: the value given.
        example: the options the env takes, for the message.

    Raises:
        ConfigError: ``options`` is neither None nor a mapping (a list, a str, a number).
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ConfigError(f"reset() options must be a dict such as {example}, got {type(options).__name__}")
    return dict(options)


# spawn key that separates the stream of game seeds drawn by unseeded resets from the game's own stream
_RESET_STREAM = 0x5EED


def _make_config(
    num_players: int | None, preset: str | None, rules: RulesConfig | str | Mapping[str, Any] | None, overrides: dict[str, Any]
) -> RulesConfig:
    # num_players=None keeps the player count of rules= or of the preset (4 without either)
    return resolve_rules(preset, rules, num_players, **overrides)


class raw_env(AECEnv):
    """The bare AEC environment (strict about illegal actions).

    Args:
        num_players: 2..6; ``None`` (default) keeps the count of ``rules`` or
            of the preset (``duel`` is 2 players), else 4.
        render_mode: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``.
        preset: a rules preset name (:data:`risk_env.rules.config.PRESETS`).
        rules: a :class:`RulesConfig`, a preset or rules file name, or a mapping of switches
            (:func:`risk_env.rules.config.resolve_rules`; alternative to ``preset``; keywords apply on top).
        eliminated: ``"remove"`` (default, PettingZoo's convention) or ``"stay"``
            (for clients that expect every agent until the episode ends: TorchRL,
            Tianshou); see the module docstring, "Eliminated players".
        observation: ``"flat"`` (default: ``{"observation", "action_mask"}``) or
            ``"graph"`` (``{"nodes", "edges", "globals", "action_mask"}``, the
            map-free graph observation of :mod:`risk_env.envs.graph`).
        turn_feature: show ``turn / turn_limit`` in the observation (default: True
            for ``"flat"``, False for ``"graph"``; False writes 0 there).
        views: put the acting agent's :class:`~risk_env.envs.view.GameView` in its info as
            ``info["view"]`` (default True); False for clients that turn every info entry
            into an array or a tensor (TorchRL, Tianshou).
        **config: rule switches of :class:`RulesConfig` (``setup="random"``, ``turn_limit=300``...).

    Raises:
        ConfigError: unknown option, preset or bad value (``views`` other than True or False,
            ``turn_feature`` other than True, False or None), a player count that
            contradicts the preset (``preset="duel"`` is for 2 players); MapError: a bad map.
    """

    metadata = {"name": "risk_v0", "render_modes": ["ansi", "human", "rgb_array"], "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self,
        num_players: int | None = None,
        render_mode: str | None = None,
        preset: str | None = None,
        rules: RulesConfig | str | Mapping[str, Any] | None = None,
        eliminated: str = "remove",
        observation: str = "flat",
        turn_feature: bool | None = None,
        views: bool = True,
        **config: Any,
    ) -> None:
        super().__init__()
        self.observation_mode = check_observation_mode(observation)
        self.views = check_flag(views, "views", numpy_bool=False)
        self.turn_feature = check_turn_feature(turn_feature, observation)
        modes: list[str] = self.metadata["render_modes"]  # type: ignore[assignment]
        if render_mode is not None and render_mode not in modes:
            raise ConfigError(f"render_mode={render_mode!r} is not supported; choose one of {modes} or None")
        if eliminated not in ELIMINATED_MODES:
            raise ConfigError(f"eliminated={eliminated!r} is not allowed; choose one of: {', '.join(ELIMINATED_MODES)}")
        self.eliminated = eliminated
        self._stay = eliminated == "stay"
        self.rules = _make_config(num_players, preset, rules, config)
        self.game = Game(self.rules)
        self.codec = ActionCodec(self.game)
        self.encoder = ObservationEncoder(self.game)
        self.graph_encoder = GraphObservationEncoder(self.game, turn_feature=self.turn_feature)
        self.render_mode = render_mode
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        N, D = self.codec.n, self.encoder.size
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, np.inf, (D,), np.float32),
                    "action_mask": spaces.Box(0, 1, (N,), np.int8),
                }
            )
            if observation == "flat"
            else self.graph_encoder.space(N)
            for a in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Space] = {a: spaces.Discrete(N) for a in self.possible_agents}
        hand_size = 4 * n
        # what the variants add to the full position (every player's secret mission, §8)
        self._critic_hooks = self.game.hooks["critic_state"]
        probe = self.game.new_game(0)
        extra = sum(int(np.asarray(h(probe, 0)).size) for h in self._critic_hooks)
        self.state_space = spaces.Box(0.0, np.inf, (D + hand_size + extra,), np.float32)
        self._zero_mask = np.zeros(N, dtype=np.int8)
        self._zero_mask.setflags(write=False)  # internal only: users always get copies
        self._seed_seq: np.random.SeedSequence | None = None
        self.game_state: GameState | None = None
        self.selection = Selection()  # the codec's pending sub-step for game_state
        self._mask = self._zero_mask
        self._mask_seat = -1
        self._known: tuple[GameState, int, Knowledge] | None = None  # the last view's (state, steps, knowledge)
        self._last_move: Move | None = None
        self._info_holder: str | None = None
        self._renderer: Any = None

    # ------------------------------------------------------------------ spaces
    def _seat_of(self, agent: Any) -> int:
        """The seat of ``agent``; :class:`UnknownAgentError` (listing the agents) for any other value."""
        try:
            return self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise UnknownAgentError(f"unknown agent {agent!r}; the agents are {', '.join(self.possible_agents)}") from None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """Raises: UnknownAgentError: ``agent`` is not one of ``possible_agents``."""
        return self.observation_spaces[self.possible_agents[self._seat_of(agent)]]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """Raises: UnknownAgentError: ``agent`` is not one of ``possible_agents``."""
        return self.action_spaces[self.possible_agents[self._seat_of(agent)]]

    @property
    def observation_layout(self) -> dict[str, tuple[slice, tuple[int, ...]]]:
        """``name -> (slice, shape)`` of the observation vector (see :mod:`risk_env.envs.observation`)."""
        return self.encoder.layout

    # ------------------------------------------------------------------ core API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game, or go on from a given position.

        Args:
            seed: an integer >= 0 (or a numpy ``SeedSequence``) seeds the game and
                the env's stream of game seeds; ``None`` continues that stream (the
                Gymnasium contract: ``reset(seed=s)`` then unseeded resets replay
                the same games in every process); the first unseeded reset ever
                seeds the stream from fresh entropy.
            options: ``{"state": position}`` starts from that position instead of a new
                game: a :class:`~risk_env.rules.state.GameState` of this env's rules and
                map, or its :meth:`~risk_env.rules.state.GameState.to_dict` (e.g. read
                back from JSON). It is checked by :meth:`Game.state_from_dict
                <risk_env.rules.engine.Game.state_from_dict>` and the env plays on a copy
                (the caller's object is never changed); the dice come from the position's
                own generator, so the same position plays out the same way every time. The
                game goes on between complete moves (no sub-step pending) with the agent
                that decides in it; players eliminated before the position are not among
                ``agents`` (with ``eliminated="stay"`` they are, and take their -1 when the
                game ends). ``seed``, if given, seeds the stream later resets draw games from.

        Raises:
            ConfigError: a bad seed, or ``options`` that is not a mapping. (Other option keys are
                ignored with a warning: PettingZoo's ``api_test`` passes one and expects it to be taken.)
            StateError: a position that is malformed, of other rules or another map, breaks the
                rules' invariants (docs/rules.md §5), or is over. Nothing changes: the game in
                progress (if any) and the seed stream stay as they were.
        """
        options = reset_options(options)
        start = options.pop("state", None)
        if options:  # PettingZoo's api_test passes {"options": 1} and expects it to be taken
            warnings.warn(f"reset() ignores the option(s) {sorted(options)}: the one option is 'state'", stacklevel=2)
        if start is not None:
            position = self._position(start)  # checked before anything changes
            if seed is not None:
                self.game.new_game(seed)  # validates the seed
        if seed is None:
            if start is None:
                if self._seed_seq is None:
                    self._seed_seq = np.random.SeedSequence()
                self.game_state = self.game.new_game(self._seed_seq.spawn(1)[0])
        else:
            if start is None:
                self.game_state = self.game.new_game(seed)  # validates the seed
            base = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))
            self._seed_seq = np.random.SeedSequence(base.entropy, spawn_key=(*base.spawn_key, _RESET_STREAM))
        if start is not None:
            self.game_state = position
        s: GameState = self.game_state  # type: ignore[assignment]
        self.selection = Selection()
        out = set(s.elim_order)
        self.agents = [a for i, a in enumerate(self.possible_agents) if self._stay or i not in out]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        N = self.codec.n
        self.infos: dict[str, dict[str, Any]] = {a: {"action_mask": np.zeros(N, dtype=np.int8)} for a in self.agents}
        self._eliminated_seen = len(s.elim_order)
        self._last_move = None
        self._rewards_dirty = False
        self._info_holder = None
        self._select()

    def _position(self, start: Any) -> GameState:
        """A checked copy of a starting position (``reset(options={"state": ...})``).

        Raises:
            StateError: not a GameState or its dict, malformed, inconsistent with this game, or over.
        """
        position = position_from(self.game, start, "options['state']")
        if position.phase == Phase.GAME_OVER:
            raise StateError("options['state'] is a finished game (phase game_over): there is nothing left to play")
        return position

    def _select(self) -> None:
        s: GameState = self.game_state  # type: ignore[assignment]  # set by reset()
        seat = self.game.current_player(s)
        prev = self._info_holder
        if prev is not None and prev in self.infos:
            self.infos[prev] = {"action_mask": np.zeros(self.codec.n, dtype=np.int8)}
        if seat >= 0:
            agent = self.possible_agents[seat]
            self.agent_selection = agent
            self._mask = mask = self.codec.mask(s, self.selection)
            self._mask_seat = seat  # the seat _mask is for: the one to act (current_player)
            if self.views:
                # a sub-step changes only the selection: its views share what the seat knows
                known = self._known
                if known is None or known[0] is not s or known[1] != s.steps or known[2].seat != seat:
                    known = self._known = (s, s.steps, Knowledge.of(s, seat))
                view = GameView.of(self.game, known[2], self.codec, self.selection)
                self.infos[agent] = {"action_mask": mask.copy(), "view": view}
            else:
                self.infos[agent] = {"action_mask": mask.copy()}
            self._info_holder = agent
        else:
            self._mask = self._zero_mask
            self._mask_seat = -1
            self._info_holder = None

    def _live(self, what: str) -> GameState:
        """The game in progress; ResetNeededError before ``reset()`` (``what`` names the call)."""
        if self.game_state is None:
            raise ResetNeededError(f"no game in progress: call reset() before {what}()")
        return self.game_state

    def _require_game(self, what: str) -> None:
        if self.game_state is None:
            raise ResetNeededError(f"no game in progress: call reset() before {what}()")

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()`` for ``agent_selection``.

        Raises:
            ResetNeededError: before ``reset()``, or after every agent has left the finished game
                (as :meth:`step` then).
        """
        self._require_game("last")
        if not self.agents:
            raise ResetNeededError("the game is over and every agent has left it: call reset() to start a new game")
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """PettingZoo's agent iterator. Raises: ResetNeededError: before ``reset()``."""
        self._require_game("agent_iter")
        return super().agent_iter(max_iter)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        s = self._live("observe")
        try:
            seat = self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            seat = self._seat_of(agent)  # raises UnknownAgentError
        # the mask of the agent to act; all zeros for every other agent, and for one whose game was ended without a
        # step of this env (PettingZoo's TerminateIllegalWrapper terminates the offender of an illegal id itself)
        acts = seat == self._mask_seat and agent == self.agent_selection
        if acts and (self.terminations.get(agent) or self.truncations.get(agent)):
            acts = False
        mask = self._mask if acts else self._zero_mask
        flat = self.encoder.encode(s, seat, self.selection)
        if not self.turn_feature:
            flat[self.encoder.layout["turn"][0]] = 0.0
        if self.observation_mode == "graph":
            return self.graph_encoder.from_flat(flat, s, seat, mask)
        return {"observation": flat, "action_mask": mask.copy()}

    def state(self) -> np.ndarray:
        """Full position for a centralized critic: float32 ``(D + 4 n,)``, ``(D + 4 n + n (8 + n),)``
        with ``secret_missions`` (see the module docstring)."""
        s = self._live("state")
        seat = max(self.game.current_player(s), 0) if s.phase != Phase.GAME_OVER else s.player
        hands = np.zeros((self.rules.num_players, 4), dtype=np.float32)
        sym = self.game.card_symbol
        for p, hand in enumerate(s.hands):
            for c in hand:
                hands[p, sym[c]] += 0.2
        parts = [self.encoder.encode(s, seat, self.selection), hands.ravel()]
        parts += [np.asarray(h(s, seat), dtype=np.float32).ravel() for h in self._critic_hooks]
        return np.concatenate(parts)

    def step(self, action: Any) -> None:
        if self.game_state is None:
            raise ResetNeededError("no game in progress: call reset() before step()")
        if not self.agents:
            raise ResetNeededError("the game is over and every agent has left it: call reset() to start a new game")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                how = "terminated" if self.terminations[agent] else "truncated"
                raise IllegalActionError(f"{agent} is {how}: step it with None (PettingZoo's dead step), got {action!r}")
            self._was_dead_step(action)
            return
        s = self.game_state
        if action is None:
            raise IllegalActionError(f"{agent} is alive and must act: an action id in 0..{self.codec.n - 1}, not None")
        aid = action if (type(action) is int and 0 <= action < self.codec.n) else as_action_id(action, self.codec.n)
        if aid is None:
            raise IllegalActionError(
                f"{agent} is alive and must act with an integer id in 0..{self.codec.n - 1} (a Python int, "
                f"a numpy integer or a 0-d integer array), got {describe_action(action)}"
            )
        # the mask decides legality once; raises IllegalActionError, state and selection unchanged
        move = self.codec.step(s, aid, self.selection, self._mask)
        if move is not None:
            self._last_move = move
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_dirty:
            for a in self.rewards:
                self.rewards[a] = 0.0
            self._rewards_dirty = False
        ended = False
        if len(s.elim_order) > self._eliminated_seen or s.phase == Phase.GAME_OVER:
            ended = self._finish(s)
        if ended:
            self._rewards_dirty = True
            self._accumulate_rewards()
        self._select()
        if ended:
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def is_legal_action(self, action: Any) -> bool:
        """Whether ``action`` is legal for ``agent_selection`` now, by its mask (False for every id once the
        game is over). It takes the ids :meth:`step` takes (a Python int, a numpy integer or a 0-d integer
        array, not a bool).

        Raises:
            ResetNeededError: before ``reset()``.
            IllegalActionError: ``action`` is not an action id (a bool, a float, a str, None, or an integer
                out of ``0..N-1``), as :meth:`action_to_string` refuses it.
        """
        if self.game_state is None:
            raise ResetNeededError("no game in progress: call reset() before is_legal_action()")
        # (ClassicWrapper's step asks with an id it has checked: the common case first)
        a = action if (type(action) is int and 0 <= action < self.codec.n) else self._action_id(action)
        return bool(self._mask[a])

    def _action_id(self, action: Any) -> int:
        """``action`` as an id in ``0..N-1``; IllegalActionError for anything else (:meth:`action_to_string`'s and
        :meth:`is_legal_action`'s check)."""
        a = as_action_id(action, self.codec.n)
        if a is None:
            raise IllegalActionError(f"an action id is an integer in 0..{self.codec.n - 1}, got {describe_action(action)}")
        return a

    def end_for_illegal_action(self, agent: str, reward: float) -> None:
        """End the game because ``agent`` (the one to act) chose an illegal action, as PettingZoo's
        ``TerminateIllegalWrapper`` does: every agent is terminated and truncated, ``agent`` gets
        ``reward`` and the others 0 (with ``eliminated="stay"``, an agent eliminated earlier gets the return it was
        waiting for, as in ``"remove"`` mode); the agents then take their dead steps
        (:class:`~risk_env.envs.wrappers.ClassicWrapper` calls it). No agent acts any more: every
        action mask (observation and info) is all zeros from here on."""
        self._mask = self._zero_mask
        self._mask_seat = -1
        for a in self.infos:  # (the offender's info kept its mask and view)
            self.infos[a] = {"action_mask": np.zeros(self.codec.n, dtype=np.int8)}
        self._info_holder = None
        self._cumulative_rewards[agent] = 0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.truncations, 0)
        if self._stay:  # an agent eliminated earlier still waits for its return (_finish): it gets it now
            st = self._live("end_for_illegal_action")
            returns = self.game.outcome(st).returns
            for seat in st.elim_order:
                name = self.possible_agents[seat]
                if name in self.rewards and name != agent:
                    self.rewards[name] = returns[seat]
        self.rewards[agent] = reward
        self._accumulate_rewards()
        self._deads_step_first()
        self._rewards_dirty = True

    @property
    def last_move(self) -> str:
        """Text of the last complete move (empty before the first)."""
        m = self._last_move
        return self.game.move_to_text(m) if m is not None else ""

    def _finish(self, s: GameState) -> bool:
        """Hand out the engine's returns (:meth:`Game.outcome`): to each newly eliminated
        agent (terminated; with ``eliminated="stay"`` only when the game ends), and when
        the game is over to every agent still in it (terminated by a win or an earlier
        elimination, truncated by the turn limit). Returns whether any agent's episode ended."""
        out = self.game.outcome(s)
        newly = s.elim_order[self._eliminated_seen :]
        self._eliminated_seen = len(s.elim_order)
        ended = False
        if not self._stay:
            for seat in newly:
                name = self.possible_agents[seat]
                self.rewards[name] = out.returns[seat]
                self.terminations[name] = True
                ended = True
        if not out.over:
            return ended
        for a in self.agents:
            if self.terminations[a]:
                continue  # eliminated earlier: its return was given then
            seat = self.agent_name_mapping[a]
            if out.terminated or not s.alive[seat]:
                self.terminations[a] = True
            else:
                self.truncations[a] = True
            self.rewards[a] = out.returns[seat]
        return True

    # ------------------------------------------------------------------ helpers
    def action_to_string(self, agent: str, action: int) -> str:
        """What ``action`` means for ``agent`` now (e.g. ``"attack Alaska->Kamchatka"``).

        Raises:
            UnknownAgentError: ``agent`` is not one of the agents; ResetNeededError: before ``reset()``;
            IllegalActionError: ``action`` is not an action id.
        """
        self._seat_of(agent)
        s = self._live("action_to_string")
        return self.codec.action_to_string(s, self._action_id(action), self.selection)

    def view(self, agent: str) -> GameView:
        """What ``agent``'s seat may know of the game now, as a :class:`~risk_env.envs.view.GameView`:
        what scripted agents read as ``info["view"]`` (see :mod:`risk_env.agents.base`).

        Raises:
            RiskError: before ``reset()``; UnknownAgentError: ``agent`` is not one of the agents.
        """
        return GameView.from_env(self, agent)

    def render(self) -> Any:
        """The board: ``str`` (``"ansi"``), uint8 ``(H, W, 3)`` (``"rgb_array"``) or ``None`` (``"human"``: shown in
        a window; no render mode: warns).

        Raises:
            ResetNeededError: before ``reset()``, whatever the ``render_mode`` (as the wrapped forms);
            MissingExtraError: matplotlib missing (the ``render`` extra).
        """
        if self.game_state is None:
            raise ResetNeededError("no game in progress: call reset() before render()")
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'.")
            return None
        if self.render_mode == "ansi":
            # the acting seat's own secret mission only (docs/rules.md §8)
            viewer = self.game.current_player(self.game_state)
            return render_ansi(self.game, self.game_state, self.last_move, viewer=viewer if viewer >= 0 else None)
        self._renderer, frame = draw_frame(self._renderer, self.game, self.render_mode, self.game_state, self.last_move)
        return frame

    def position(self) -> Any:
        """The position now, as a :class:`~risk_env.records.svg.Position` (a copy: later steps do not change it), with
        the last move and the codec's pending selection; Jupyter shows it as the board.

        Raises:
            ResetNeededError: before ``reset()``.
        """
        from ..records.svg import Position

        s = self._live("position")
        return Position(self.game, s.copy(), self.last_move, selection=self.selection.copy())

    def _repr_svg_(self) -> str | None:
        """The board as SVG, for Jupyter (None before ``reset()``: then the plain repr is shown)."""
        return self.position().svg() if self.game_state is not None else None

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None


def env(num_players: int | None = None, render_mode: str | None = None, strict: bool = False, **kwargs: Any) -> AECEnv:
    """The wrapped environment, as PettingZoo's classic games wrap theirs.

    The wrapper is :class:`risk_env.envs.wrappers.ClassicWrapper`: the semantics of
    ``TerminateIllegalWrapper(illegal_reward=-1)`` → ``AssertOutOfBoundsWrapper``
    → ``OrderEnforcingWrapper`` fused into one layer (a subclass of
    ``OrderEnforcingWrapper``), because three layers of attribute forwarding
    cost more per step than the rules do.

    Args:
        strict: if True, skip ``TerminateIllegalWrapper`` and ``AssertOutOfBoundsWrapper``
            so illegal actions raise :class:`IllegalActionError` instead of ending the game
            (the env is then PettingZoo's ``OrderEnforcingWrapper``, as
            :class:`risk_env.envs.wrappers.StrictWrapper`).
        num_players: as :class:`raw_env`.
        render_mode: as :class:`raw_env`.
        **kwargs: as :class:`raw_env` (rules, ``preset``, ``observation``, ``eliminated``...).

    Raises:
        ConfigError: ``strict`` other than True or False, or as :class:`raw_env`; MapError: as :class:`raw_env`.

    Every call before ``reset()`` (``step``, ``observe``, ``last``, ``state``, ``render``, ``agent_iter``)
    raises :class:`~risk_env.errors.ResetNeededError`, in both forms.
    """
    check_flag(strict, "strict", numpy_bool=False)
    e = raw_env(num_players=num_players, render_mode=render_mode, **kwargs)
    if strict:
        return StrictWrapper(e)
    return ClassicWrapper(e, illegal_reward=-1)
