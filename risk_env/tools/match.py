"""The one loop that drives agents through a game: :func:`play_match`.

Every front end that lets agents play (``risk-env watch``, evaluation, the
soak test, ``scripts/play.py``, recording) calls :func:`play_match`; the
human game of ``risk-env play``, where a person shares the board with agents,
moves its agents with :func:`play_move`. Both call an agent the same way
(:func:`agent_action`): ``agent.act(observation, info) -> action id``, with
``info["view"]`` (a :class:`~risk_env.envs.view.GameView`: what the agent's seat may
know at that decision) for agents that read it, as the AEC env's own info has it.

>>> import risk_env
>>> from risk_env.agents import RandomAgent
>>> env = risk_env.raw_env(num_players=2, map="small", setup="random", turn_limit=5)
>>> result = play_match(env, [RandomAgent(), RandomAgent()], seed=3, agent_seeds=[1, 2], record=True)
>>> result.finished, result.truncated, result.turns, len(result.record.moves) == result.moves
(True, True, 5, True)
>>> result.returns
{'player_0': 0.0, 'player_1': 0.0}

What :func:`play_match` guarantees
    * the env is reset with ``seed``, each agent with its seed (when given);
    * each agent acts only for its own seat, and gets ``{"action_mask": mask}`` as the
      observation when the loop runs with ``observe=False`` (cheaper; the mask is all the
      random and scripted agents read);
    * the masks an agent gets are copies (the AEC env's): writing into them changes nothing,
      and the id it returns is checked against the env's own mask;
    * an illegal action id raises :class:`~risk_env.errors.IllegalActionError` naming the
      agent, its seat and the game seed (with a strict ``raw_env``);
    * a player turn taking more than ``max_turn_steps`` action ids stops the game:
      ``stalled_by`` names the seat (the turn limit bounds turns, not the decisions in one);
    * ``returns`` are the rewards each agent collected (not completed for a stopped game).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..agents.base import check_fits_game
from ..envs.action_input import as_integer, describe_action
from ..envs.codec import Selection
from ..envs.opponents import agent_inputs
from ..envs.view import GameView
from ..errors import AgentError, ConfigError, IllegalActionError, RiskError, check_seed
from ..records.record import GameRecord
from ..rules.state import Phase

__all__ = ["DEFAULT_MAX_TURN_STEPS", "MatchResult", "agent_action", "ask_agent", "play_match", "play_move"]

DEFAULT_MAX_TURN_STEPS = 5000
"""Default cap on the action ids one player turn may take (see :func:`play_match`)."""


@dataclass
class MatchResult:
    """What :func:`play_match` returns: how the game ended (a result, not a replayable
    :class:`~risk_env.records.record.GameRecord`; that is :attr:`record`, when asked for).

    Attributes:
        seed: the game seed.
        finished: the game reached its end (a win or the turn limit).
        winner: the winning seat, or -1 (truncated, stalled or stopped).
        truncated: the turn limit ended the game (docs/rules.md §4.5).
        stalled_by: the seat whose turn exceeded ``max_turn_steps`` (the game was stopped), or -1.
        turns: player turns played; moves: complete moves; steps: action ids the agents took.
        elimination_order: seats in the order they were eliminated.
        territories: territories held per seat at the end (the 2-player neutral last).
        returns: agent name -> summed reward.
        record: the game's record when ``record=True``, else None.
    """

    seed: int | None
    finished: bool
    winner: int
    truncated: bool
    stalled_by: int
    turns: int
    moves: int
    steps: int
    elimination_order: list[int]
    territories: list[int]
    returns: dict[str, float]
    record: GameRecord | None = None


def ask_agent(agent: Any, observation: Any, info: Mapping[str, Any]) -> Any:
    """``agent``'s answer, unchecked: ``agent.act(observation, info)``, or ``agent(observation, info)`` for a plain
    callable. What the agent raises propagates (:func:`agent_action` checks the answer)."""
    return getattr(agent, "act", agent)(observation, info)


def agent_action(agent: Any, observation: Any, info: Mapping[str, Any]) -> int:
    """Ask ``agent`` for an action id (:func:`ask_agent`). Returns an int (the caller checks legality).

    Raises:
        IllegalActionError: the agent returned no integer (a float, a string, a bool, None: the forms
            :mod:`risk_env.envs.action_input` accepts, not coerced).
    """
    a = ask_agent(agent, observation, info)
    out = as_integer(a)
    if out is None:
        raise IllegalActionError(f"an action id is an integer, got {describe_action(a)}")
    return out


def _wants_view(agent: Any, views: bool | None) -> bool:
    return bool(getattr(agent, "needs_view", True)) if views is None else views


def _per_agent(value: Mapping[str, Any] | Sequence[Any], names: Sequence[str], what: str) -> dict[str, Any]:
    if isinstance(value, Mapping):
        missing = [a for a in names if a not in value]
        if missing:
            raise ConfigError(f"{what}: no entry for {', '.join(missing)} (give one per agent: {', '.join(names)})")
        return {a: value[a] for a in names}
    items = list(value)
    if len(items) != len(names):
        raise ConfigError(f"{what}: give one per seat ({len(names)}), got {len(items)}")
    return dict(zip(names, items, strict=True))


def _stopped(error: Any, recorder: Any, why: str, agent: str) -> Any:
    """``error`` (an AgentError or IllegalActionError that stops the game) with the game's record so far as its
    ``record`` (``ended`` ``"<why> by <agent>"``) where the game is recorded."""
    if recorder is not None:
        recorder.finish(f"{why} by {agent}")
        error.record = recorder.record
    return error


def play_match(
    env: Any,
    agents: Mapping[str, Any] | Sequence[Any],
    seed: int | None = None,
    *,
    agent_seeds: Mapping[str, int] | Sequence[int] | None = None,
    before_step: Callable[[str, int, Any, dict[str, Any]], None] | None = None,
    on_step: Callable[[str, int], None] | None = None,
    record: bool = False,
    players: Sequence[str] | None = None,
    observe: bool = True,
    views: bool | None = True,
    max_turn_steps: int = DEFAULT_MAX_TURN_STEPS,
    max_steps: int | None = None,
) -> MatchResult:
    """Play one game of a risk_env AEC env with ``agents``.

    Args:
        env: ``risk_env.raw_env(...)`` or ``risk_env.env(...)`` (reset here).
        agents: agent name (``player_i``) -> agent, or one agent per seat in seat order.
            An agent has ``act(observation, info) -> int`` (or is such a callable).
        seed: the game seed given to ``env.reset``: None or an integer >= 0 (numpy integers too).
        agent_seeds: per agent (mapping or sequence): ``agent.reset(seed)`` before the game;
            without it agents are not reset.
        before_step: ``f(agent, action, observation, info)`` before each action is stepped
            (checks, snapshots); ``on_step``: ``f(agent, action)`` after it.
        record: record the game (through :class:`~risk_env.records.recorder.Recorder`) into
            :attr:`MatchResult.record`; ``players`` labels the seats in it.
        observe: encode observations (``False``: agents get ``{"action_mask": mask}``).
        views: give ``info["view"]`` to every agent (True), none (False), or the agents whose
            ``needs_view`` is True (None).
        max_turn_steps: the game is stopped when one player turn takes more action ids.
        max_steps: stop after this many action ids in all (None: play to the end).

    Returns:
        a :class:`MatchResult`.

    Raises:
        ConfigError: agents or seeds that do not match the seats, a bad cap.
        IllegalActionError: an agent chose an illegal action (strict env); the message names
            the agent and the game seed; with ``record``, its ``record`` holds the game so far (``ended``
            ``"illegal action by player_<n>"``).
        AgentError: an agent raised an exception that is no RiskError (the ``__cause__``); the message names the
            agent, its seat and the game seed; with ``record``, its ``record`` holds the game so far (``ended``
            ``"agent error by player_<n>"``). A RiskError an agent raises (the library's own refusal, such as a
            policy of other rules) propagates as it is.
        KeyboardInterrupt: Ctrl+C during the game propagates; with ``record``, its ``record`` holds the game so far
            (``ended`` ``"unfinished"``).
    """
    if not isinstance(max_turn_steps, int) or max_turn_steps < 1:
        raise ConfigError(f"max_turn_steps must be a positive integer, got {max_turn_steps!r}")
    check_seed(seed, allow_none=True)  # (before any agent is re-seeded; env.reset takes no SeedSequence)
    seed = None if seed is None else int(seed)  # (a numpy integer is reported as a Python int)
    raw = env.unwrapped
    names = list(raw.possible_agents)
    table = _per_agent(agents, names, "agents")
    check_fits_game(table.values(), raw.game)  # (a policy of other rules: refused before the game, not at its turn)
    if agent_seeds is not None:
        seeds = _per_agent(agent_seeds, names, "agent_seeds")
        for sd in seeds.values():  # (all checked before any agent is reset)
            check_seed(sd)
        for a, sd in seeds.items():
            table[a].reset(int(sd))
    recorder = None
    if record:
        from ..records.recorder import Recorder

        env = recorder = Recorder(env, players=players)
    env.reset(seed=seed)
    game = raw.game
    returns = {a: 0.0 for a in names}
    steps = 0
    stalled_by = -1
    turn_key: tuple[int, int] | None = None
    turn_steps = 0
    try:
        for name in env.agent_iter():
            obs, reward, term, trunc, info = env.last(observe=observe)
            returns[name] += float(reward)
            if term or trunc:
                env.step(None)
                continue
            if max_steps is not None and steps >= max_steps:
                break
            s = raw.game_state
            key = (int(s.turn), int(s.player))
            turn_steps = turn_steps + 1 if key == turn_key else 1
            turn_key = key
            if turn_steps > max_turn_steps:
                stalled_by = game.current_player(s)
                break
            agent = table[name]
            act_info = dict(info)
            if not _wants_view(agent, views):
                act_info.pop("view", None)
            elif "view" not in act_info:  # an env made with views=False
                act_info["view"] = raw.view(name)
            who = f"agent {getattr(agent, 'name', type(agent).__name__)!r} ({name}, game seed {seed})"
            try:
                action = agent_action(agent, obs if obs is not None else {"action_mask": info["action_mask"]}, act_info)
            except IllegalActionError as e:
                raise _stopped(IllegalActionError(f"{who}: {e}"), recorder, "illegal action", name) from None
            except RiskError:  # the library's own refusal (a policy of other rules): told as it is
                raise
            except Exception as e:  # the agent's own failure: named, with the game's record so far
                raise _stopped(AgentError(f"{who} failed ({type(e).__name__})"), recorder, "agent error", name) from e
            try:
                if before_step is not None:
                    before_step(name, action, obs, act_info)
                env.step(action)
            except IllegalActionError as e:
                raise _stopped(IllegalActionError(f"{who}: {e}"), recorder, "illegal action", name) from None
            steps += 1
            if on_step is not None:
                on_step(name, action)
    except KeyboardInterrupt as e:  # Ctrl+C: the game so far goes with it, for its caller to keep or not
        if recorder is not None:
            with contextlib.suppress(RiskError):  # (a position left half-made by the interrupt: no record)
                recorder.finish("unfinished")
                e.record = recorder.record  # type: ignore[attr-defined]
        raise
    s = raw.game_state
    rec = None
    if recorder is not None:
        recorder.finish("stalled" if stalled_by >= 0 else "unfinished")
        rec = recorder.record
    return MatchResult(
        seed=seed,
        finished=s.phase == Phase.GAME_OVER,
        winner=int(s.winner),
        truncated=bool(s.truncated),
        stalled_by=int(stalled_by),
        turns=int(s.turn),
        moves=int(s.steps),
        steps=steps,
        elimination_order=[int(p) for p in s.elim_order],
        territories=[int((s.owner == p).sum()) for p in range(game.num_seats)],
        returns=returns,
        record=rec,
    )


def play_move(game: Any, codec: Any, encoder: Any, s: Any, seat: int, agent: Any, limit: int = 100_000) -> tuple[Any, list[int]]:
    """Let ``agent`` make one complete move for ``seat`` in state ``s`` (changed in place), through
    the action codec as the env would; for loops that call the engine directly (a human at the table).
    The agent gets what the single-agent env gives its opponents
    (:func:`~risk_env.envs.opponents.agent_inputs`: a copy of the mask, the seat's view).

    Returns:
        ``(move, action ids)``: the :class:`~risk_env.rules.moves.Move` made and the ids that made it.

    Raises:
        IllegalActionError: the agent chose an illegal id (the message lists the legal ones; ``action`` holds the
            id chosen), or answered no integer or raised an IllegalActionError of its own (``action`` None; the
            message shows neither the answer nor the agent's message: a list of ids would be its legal ones);
            AgentError: the agent raised another exception (the ``__cause__``);
            RuntimeError: no move after ``limit`` ids.
    """
    ids: list[int] = []
    sel = Selection()
    who = f"agent {type(agent).__name__} (seat {seat})"
    for _ in range(limit):
        mask = codec.mask(s, sel)
        obs, info = agent_inputs(encoder, GameView(game, s, seat, codec, sel), mask)
        try:
            answer = ask_agent(agent, obs, info)
        except IllegalActionError:  # its own refusal, or its wrapper's (CallableAgent: no integer): no id, below
            answer = None
        except Exception as e:  # the agent's own failure, told apart from the refusals below
            raise AgentError(f"{who} failed ({type(e).__name__})") from e
        a = as_integer(answer)
        if a is None:
            raise IllegalActionError(f"{who} answered no action id (no integer)")
        try:
            mv = codec.step(s, a, sel, mask)  # our own mask decides, not the agent's copy
        except IllegalActionError as e:
            refused = IllegalActionError(f"agent {type(agent).__name__} (seat {seat}) chose an illegal action: {e}")
            refused.action = a  # the caller may name the id without the message's legal ids (a trade names cards)
            raise refused from None
        ids.append(a)
        if mv is not None:
            return mv, ids
    raise RuntimeError(f"agent {type(agent).__name__} (seat {seat}) did not complete a move in {limit} action ids")
