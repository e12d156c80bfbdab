"""Exceptions raised by risk_env. All are ``ValueError`` subclasses, so code
that catches ``ValueError`` for bad input keeps working.

:func:`check_seed`, :func:`check_flag` and :func:`check_number` (not in ``__all__``: the exports here are the error
classes) are the checks behind the package's seed arguments, on/off arguments and numeric arguments."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "RiskError",
    "InvalidMoveError",
    "IllegalMoveError",
    "IllegalActionError",
    "ActionSpaceError",
    "MapError",
    "ConfigError",
    "AgentRulesError",
    "StateError",
    "RecordError",
    "ResetNeededError",
    "UnknownAgentError",
    "AgentError",
    "MissingExtraError",
]


class RiskError(ValueError):
    """Base class of every error risk_env raises for bad input."""


class InvalidMoveError(RiskError):
    """Move text that cannot be read (malformed, or naming an unknown territory or card), a
    territory's or card's name that the map does not have (``GameMap.id_of``, ``GameMap.card_of``), and a
    :class:`~risk_env.rules.moves.Move` built with a field that is not an integer (a float, a str, a bool).

    Distinct from :class:`IllegalMoveError`, which is a readable move the rules
    do not allow now (python-chess draws the same line). Nothing is changed
    when this is raised.
    """


class IllegalMoveError(RiskError):
    """A move (or move text) that the rules do not allow in this position.

    The game state is unchanged when this is raised.
    """


class IllegalActionError(IllegalMoveError):
    """An action id that is not legal for the acting agent (see the action mask).

    The game state is unchanged when this is raised.

    Attributes:
        action: the refused id where the one raising knows it as an int (:func:`risk_env.tools.match.play_move`
            sets it to the agent's choice), else None.
        record: the game so far where an agent's illegal action stopped a recorded game
            (:func:`risk_env.tools.match.play_match` with ``record=True``; ``ended`` ``"illegal action by
            player_<n>"``), else None.
    """

    action: int | None = None
    record: Any = None


class ActionSpaceError(IllegalActionError, AssertionError):
    """A value that is not an action id at all (out of range, not an integer,
    a bool, or ``None`` for an agent that must act), given to the wrapped ``env()``.

    Also an ``AssertionError``, which PettingZoo's ``AssertOutOfBoundsWrapper``
    raises for the same input, so code written against that convention keeps
    working. The game state is unchanged when this is raised.
    """


class MapError(RiskError):
    """A map file or map dict that is malformed (the message names the problem)."""


class ConfigError(RiskError):
    """An unknown rules option, preset, or a value out of its allowed range."""


class AgentRulesError(ConfigError):
    """An agent that cannot play the game's rules: a learned policy whose network reads observations of
    other sizes, or scores other action ids, than these rules give (it was trained for another map,
    player count or rule switches). Raised before a game starts, by the one check of each backend
    (:func:`risk_env.envs.opponents.check_fits_game` for the reference engine, the batched network loader
    for the batched engine); nothing is played when it is raised.

    Attributes:
        agent: the agent's name (``"ppo-3p"``, a checkpoint's stem).
        reason: what differs, and how to fix it (the rest of the message).
    """

    def __init__(self, agent: str, reason: str) -> None:
        super().__init__(f"agent {agent!r} cannot play these rules: {reason}")
        self.agent = agent
        self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:  # (picklable, for the subprocess vector env's workers)
        return (type(self), (self.agent, self.reason))


class StateError(RiskError):
    """A serialized state that is inconsistent with the rules or the map, or a request that the game's
    state does not allow now (a game's record asked for while the game is on)."""


class RecordError(RiskError):
    """A malformed game record, or one whose moves do not replay (the message says which move and
    why); raised by :mod:`risk_env.records.record` and the replays built on it."""


class ResetNeededError(RiskError, AssertionError):
    """An environment used without a game in progress: ``step``, ``observe``,
    ``last``, ``state`` or ``render`` before ``reset()``, or ``step`` after every agent has
    left the finished game (the single-agent env: after the step that ended the episode).

    Also an ``AssertionError``, which PettingZoo's order-enforcing wrapper raises
    for a step before reset. Nothing is changed when this is raised.
    """


class AgentError(RiskError):
    """An agent raised an exception when asked for an action id (:func:`risk_env.tools.match.play_move`): the
    agent's exception is the ``__cause__``. The message names the agent and the exception's type, not its message,
    which may tell what the agent knows (its cards) to someone who may not know it.

    Attributes:
        record: the game so far (a :class:`~risk_env.records.record.GameRecord`, ``ended`` ``"agent error by
            player_<n>"``) where the failed game was being recorded (:func:`risk_env.tools.match.play_match` with
            ``record=True``); else None.
    """

    record: Any = None


class UnknownAgentError(RiskError):
    """An agent name that is not one of the environment's agents, or an agent spec that
    :func:`risk_env.agents.load_agent` cannot read as any of its forms (the message lists what is allowed)."""


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the one-line message names the
    ``risk_env`` extra that installs it (``pip install 'risk_env[render]'``).

    Not a :class:`RiskError`: the input was fine, the installation lacks a package.

    Attributes:
        extra: the extra to install (``"render"``, ``"bench"``, ``"eval"``...).
    """

    def __init__(self, message: str, extra: str, module: str | None = None) -> None:
        super().__init__(message, name=module)
        self.extra = extra


SEED_LIMIT = 2**32
"""A seed that goes to a torch generator is below this: torch's CPU generator reads only the low 32
bits of a seed, so a larger one would play a smaller one's games."""


def check_seed(seed: Any, *, allow_none: bool = False, allow_sequence: bool = False, torch_seed: bool = False) -> None:
    """Refuse a seed that is not an integer >= 0 (a Python or numpy integer, not a bool), with
    :class:`ConfigError` naming what is allowed; the package's seed arguments are checked here.

    Args:
        seed: the value given.
        allow_none: None is allowed too (a fresh seed, or the current generator).
        allow_sequence: a ``numpy.random.SeedSequence`` is allowed too.
        torch_seed: the seed goes to a torch generator: it is also below :data:`SEED_LIMIT` (2**32).
            numpy's and Python's generators take integers of any size.

    Raises:
        ConfigError: ``seed`` is none of the allowed forms.
    """
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)) and seed >= 0:
        if torch_seed and seed >= SEED_LIMIT:
            raise ConfigError(
                f"seed must be below 2**32 (torch's CPU generator reads 32 bits of a seed: a larger one repeats a smaller "
                f"one's games), got {seed!r}"
            )
        return
    if (allow_none and seed is None) or (allow_sequence and isinstance(seed, np.random.SeedSequence)):
        return
    forms = ["None"] if allow_none else []
    forms.append("an integer >= 0")
    if allow_sequence:
        forms.append("a numpy SeedSequence")
    allowed = forms[0] if len(forms) == 1 else ", ".join(forms[:-1]) + " or " + forms[-1]
    raise ConfigError(f"seed must be {allowed}, got {seed!r}")


def check_flag(value: Any, name: str, who: str | None = None, *, numpy_bool: bool = True) -> bool:
    """``value`` as a ``bool`` when it is one (with ``numpy_bool``, a numpy bool too); the package's on/off arguments
    are checked here.

    Raises:
        ConfigError: anything else (``1``, ``"yes"``, None), naming the argument ``name`` and, where given, ``who``
            takes it: ``"GraphNetAgent: deterministic must be True or False, got 'yes'"``.
    """
    if not isinstance(value, (bool, np.bool_) if numpy_bool else bool):
        raise ConfigError(f"{who + ': ' if who else ''}{name} must be True or False, got {value!r}")
    return bool(value)


def check_number(value: Any, name: str, allowed: str, ok: Callable[[float], bool] | None = None) -> float:
    """``value`` as a ``float`` when it is a finite real number (a Python or numpy int or float, not a bool) for which
    ``ok(value)`` holds; the package's numeric arguments are checked here.

    >>> check_number(np.float32(0.5), "shaping", "a finite number >= 0", lambda x: x >= 0.0)
    0.5

    Raises:
        ConfigError: anything else (a bool, a str, NaN, an infinity, a value ``ok`` refuses), naming the argument
            ``name`` and what is ``allowed``: ``"shaping must be a finite number >= 0, got -1"``.
    """
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        try:
            x = float(value)
        except OverflowError:  # (an int beyond any float: 10**400)
            x = math.inf
        if np.isfinite(x) and (ok is None or ok(x)):
            return x
    raise ConfigError(f"{name} must be {allowed}, got {value!r:.80}")


def cause_line(e: BaseException, limit: int = 300) -> str:
    """``"<type>: <first line>"`` of an exception raised by another library, for a one-line message of ours (torch
    and pickle write several lines of advice after the first; at most ``limit`` characters of it). A helper of the
    package's modules, not exported with the errors.

    >>> cause_line(ValueError("bad header\\nmore advice"))
    'ValueError: bad header'
    """
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0][:limit] if text else ''}"
