"""The game state: plain data (numpy arrays, lists, ints), cheap to copy,
comparable, and serializable to a JSON-compatible dict.

:class:`GameState` declares its fields once, as a dataclass whose field metadata
(:class:`StateField`) says how each field is stored in a dict; :meth:`GameState.to_dict`,
:meth:`GameState.from_dict`, :meth:`GameState.copy` and ``==`` all follow from that
declaration (:data:`STATE_FIELDS`), so a new field is one declaration.

The engine (:mod:`risk_env.rules.engine`) reads and writes these fields; users
should treat a state as read-only and change it only through
:meth:`Game.apply <risk_env.rules.engine.Game.apply>` or the action codec.

>>> from risk_env.rules.engine import Game
>>> s = Game(num_players=3, setup="random").new_game(seed=5)
>>> GameState.from_dict(s.to_dict()) == s, s.copy() == s
(True, True)
>>> [f.name for f in STATE_FIELDS if f.written == "allied"]
['commander', 'received']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from ..errors import StateError

__all__ = ["Phase", "GameState", "StateField", "STATE_FIELDS"]


class Phase(IntEnum):
    """Decision phases (docs/rules.md §3, §4)."""

    CLAIM = 0
    SETUP_PLACE = 1
    REINFORCE = 2
    ATTACK = 3
    DEFEND = 4
    OCCUPY = 5
    FORTIFY = 6
    GAME_OVER = 7
    CAPITAL = 8


@dataclass(frozen=True)
class StateField:
    """How one :class:`GameState` field is kept in a state dict.

    Attributes:
        name: the field's name, also its key in the dict.
        kind: its type in the state: ``"int64[T]"`` / ``"int32[T]"`` (numpy arrays, one entry
            per territory; lists of ints in the dict), ``"hands"`` (a list of card-id lists per
            seat), ``"rng"`` (the ``numpy.random.Generator``; its ``PCG64`` bit-generator state
            in the dict), ``"dice"`` (the buffer of drawn die faces; written from
            ``dice_pos`` on), ``"ints"`` / ``"bools"`` (lists), ``"int"`` / ``"bool"``.
        written: when the key is in the dict: ``"always"``; ``"nonempty"`` (a list left out
            while empty, and empty when absent); or the name of a group of fields written
            together once any of them differs from its default (absent: the defaults). The
            last two keep the dicts, and the digests, of games without a variant as they were
            before the variant existed.
        default: the value of a new state (and of an absent key of a group); None for
            fields a new game always sets.
        doc: what the field means.
        known: who may know it (docs/rules.md §2, §8): ``"all"`` (public), ``"own"`` (a
            per-seat list whose entry only that seat may know: the hands, the missions;
            everyone may know a hand's size) or ``"nobody"`` (the draw pile's order and
            everything that decides the dice to come). :mod:`risk_env.rules.knowledge`
            builds what one seat knows from it.
        variant: the rules variant whose field it is (:mod:`risk_env.rules.variants`), ``""`` for the
            core rules; under rules without that variant it keeps its default (empty for a list).
    """

    name: str
    kind: str
    written: str
    default: Any
    doc: str
    known: str = "all"
    variant: str = ""


def _f(kind: str, doc: str, default: Any = None, written: str = "always", known: str = "all", variant: str = "") -> Any:
    """A declared field (see :class:`StateField`); lists and arrays get fresh defaults per state."""
    meta = {"kind": kind, "written": written, "default": default, "doc": doc, "known": known, "variant": variant}
    if kind in ("int64[T]", "int32[T]"):
        dtype = np.int64 if kind == "int64[T]" else np.int32
        return field(default_factory=lambda: np.zeros(0, dtype=dtype), metadata=meta)
    if kind in ("ints", "bools", "hands", "dice"):
        return field(default_factory=list, metadata=meta)
    if kind == "rng":
        return field(metadata=meta)  # required: every state carries its own seeded generator
    return field(default=default, metadata=meta)


@dataclass(eq=False, repr=False, slots=True, kw_only=True)
class GameState:
    """One position of a game: the game and nothing else (the action codec's pending
    sub-step is kept apart, in :class:`risk_env.envs.codec.Selection`), so ``==``,
    :meth:`to_dict` and a record's digest all mean the same position.

    Build one with :meth:`Game.new_game <risk_env.rules.engine.Game.new_game>` or
    :meth:`Game.state_from_dict <risk_env.rules.engine.Game.state_from_dict>`; the
    constructor takes every field by keyword (``rng`` required, the others default to
    an empty game) for code that builds positions by hand.
    """

    owner: np.ndarray = _f(
        "int64[T]", "owner seat per territory (0..n-1), n for the 2-player neutral or the allied army, -1 unclaimed (setup only)"
    )
    armies: np.ndarray = _f("int32[T]", "armies per territory")
    hands: list[list[int]] = _f("hands", "per seat, its card ids", known="own")
    rng: np.random.Generator = _f("rng", "the game's one seeded generator (all chance: dice, shuffles, setup)", known="nobody")
    dice_buf: list[int] = _f("dice", "die faces drawn in batches from rng; the next is at dice_pos", known="nobody")
    order: list[int] = _f("ints", "turn order, a permutation of the seats")
    alive: list[bool] = _f("bools", "per seat, whether it is still in the game")
    setup_left: list[int] = _f("ints", "armies still to place in setup, per seat plus the neutral (last)")
    deck: list[int] = _f("ints", "the draw pile (top is the end; its size is public)", known="nobody")
    discard: list[int] = _f("ints", "the discard pile (traded sets, face up)")
    elim_order: list[int] = _f("ints", "seats in the order they were eliminated")
    last_roll: list[int] = _f("ints", "[attacker faces..., 0, defender faces...] of the last roll")
    missions: list[int] = _f(
        "ints",
        "per seat, its secret mission (an index into risk_env.rules.missions.MISSIONS; hidden from the other "
        "players), or empty without secret_missions (docs/rules.md §8)",
        written="nonempty",
        known="own",
        variant="secret_missions",
    )
    capitals: list[int] = _f(
        "ints",
        "per seat, its capital territory (-1 while not chosen), or empty without capitals (§8)",
        written="nonempty",
        variant="capitals",
    )
    eliminated_by: list[int] = _f(
        "ints",
        "per seat, the seat that eliminated it (-1 if alive), or empty without secret_missions (the missions need it)",
        written="nonempty",
        variant="secret_missions",
    )
    phase: int = _f("int", "a Phase value", Phase.CLAIM)
    player: int = _f("int", "seat on turn (in setup: whose setup turn)", 0)
    turn: int = _f("int", "game turns begun (0 during setup)", 0)
    sets_traded: int = _f("int", "sets traded in the whole game (the shared counter)", 0)
    to_place: int = _f("int", "reinforcements still to place this phase", 0)
    setup_step: int = _f("int", "own armies placed in this 2-player setup turn (2 = the neutral's)", 0)
    att_src: int = _f("int", "source of the pending battle (defend phase) or conquest (occupy), else -1", -1)
    att_dst: int = _f("int", "target of the pending battle or conquest, else -1", -1)
    att_dice: int = _f("int", "attacker dice of the pending battle", 0)
    last_dice: int = _f("int", "attacker dice of the last roll (the occupation minimum)", 0)
    winner: int = _f("int", "winning seat, or -1", -1)
    dice_pos: int = _f("int", "index of the next die in dice_buf (0 in a dict)", 0, known="nobody")
    steps: int = _f("int", "moves applied so far", 0)
    bonus_used: bool = _f("bool", "the +2 territory bonus was taken this turn", False)
    conquered: bool = _f("bool", "the player on turn conquered a territory this turn", False)
    forced: bool = _f("bool", "a trade is forced (hand too large) before anything else", False)
    resume_attack: bool = _f("bool", "the reinforce phase follows an elimination trade-down and returns to attack", False)
    trade_down: bool = _f("bool", "an elimination's forced trade-down waits for the occupation to finish", False)
    truncated: bool = _f("bool", "the game was ended by the turn limit", False)
    roll_pending: bool = _f(
        "bool",
        "the expert dice rules (docs/rules.md §8): a roll is drawn (last_roll) and waits for the attacker to "
        "re-roll a die, turn one into a six, or let it stand, before the losses are taken",
        False,
        "dice_rules",
        variant="expert_dice",
    )
    reroll_used: bool = _f("bool", "the re-roll of this battle is spent (§8)", False, "dice_rules", variant="expert_dice")
    six_used: bool = _f("bool", "the six of this turn is spent (§8)", False, "dice_rules", variant="expert_dice")
    blitzing: bool = _f(
        "bool",
        'under defender_dice="choose", the pending battle is a blitz: after each roll the defender chooses its '
        "dice for the next, until it ends (docs/rules.md §4.2)",
        False,
        "dice_rules",
    )
    commander: int = _f(
        "int",
        'under two_player="allied" (docs/rules.md §7), while the allied army acts (player is then its owner id), '
        "the seat that decides for it (the opponent of the player whose turn it is); -1 otherwise",
        -1,
        "allied",
        variant="allied",
    )
    received: int = _f(
        "int",
        'under two_player="allied", the armies the player on turn has received this turn (income, set values, '
        "+2 bonuses); the allied army gets half, rounded down",
        0,
        "allied",
        variant="allied",
    )
    _rng_shared: bool = field(default=False, init=False, metadata={"kind": None})
    """Whether another copy shares ``rng`` (copy-on-write; not part of the position)."""

    def copy(self) -> GameState:
        """An independent copy. The generator is shared copy-on-write: each
        side clones it before its next draw, so copies never disturb each other."""
        return _copy(self)

    def own_rng(self) -> np.random.Generator:
        """The generator, cloned first if another copy shares it."""
        if self._rng_shared:
            g = np.random.Generator(np.random.PCG64(0))
            g.bit_generator.state = self.rng.bit_generator.state
            self.rng = g
            self._rng_shared = False
        return self.rng

    @property
    def game_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"GameState(phase={Phase(self.phase).name}, turn={self.turn}, player={self.player}, steps={self.steps})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible dict of every field, the generator state included (keys and
        when each is written: :data:`STATE_FIELDS`)."""
        return _to_dict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameState:
        """Rebuild a state from :meth:`to_dict` output (structure only; use
        :meth:`Game.state_from_dict <risk_env.rules.engine.Game.state_from_dict>`
        to also check it against the rules and the map).

        Dicts written by earlier versions also carry ``sel_src``, ``sel_dst`` and
        ``sel_trade`` (the action codec's pending selection, which the state no
        longer holds): those keys are ignored, so such a state loads at the top of
        its decision with nothing selected.

        Raises:
            StateError: a missing or malformed field (the message names it).
        """
        s = _new(cls)
        for name, written, default, read in _LOAD:
            if name in d:
                v = d[name]
            elif written == "nonempty":
                v = []
            elif written in _GROUPS:
                v = default
            else:
                raise StateError(f"state field {name!r} is missing")
            try:
                setattr(s, name, read(name, v))
            except StateError:
                raise
            except (TypeError, ValueError, OverflowError) as e:
                raise StateError(f"state field {name!r} cannot be read: {e}") from None
        s._rng_shared = False
        return s


def _new(cls: type[GameState]) -> GameState:
    return object.__new__(cls)


# ---------------------------------------------------------------------- the declaration, read
STATE_FIELDS: tuple[StateField, ...] = tuple(
    StateField(
        f.name,
        f.metadata["kind"],
        f.metadata["written"],
        f.metadata["default"],
        f.metadata["doc"],
        f.metadata["known"],
        f.metadata["variant"],
    )
    for f in dataclasses.fields(GameState)
    if f.metadata.get("kind")
)
"""Every field of a position, in the order of its dict."""

_GROUPS: dict[str, tuple[StateField, ...]] = {
    w: tuple(f for f in STATE_FIELDS if f.written == w)
    for w in dict.fromkeys(f.written for f in STATE_FIELDS)
    if w not in ("always", "nonempty")
}

GameState.__doc__ = (
    (GameState.__doc__ or "")
    + "\n    Attributes:\n"
    + "".join(
        f"        {f.name}: {f.doc}{'' if f.written in ('always', 'nonempty') else f' (dict group {f.written!r})'}.\n"
        for f in STATE_FIELDS
    )
)


# ---------------------------------------------------------------------- copy and to_dict, generated
# Written out from the declaration once, at import (as dataclasses writes __init__): a copy and a
# dict are made often (look-ahead, digests), and straight-line code is the fastest Python has.
_COPY_EXPR = {
    "int64[T]": "self.{0}.copy()",
    "int32[T]": "self.{0}.copy()",
    "hands": "[h[:] for h in self.{0}]",
    "rng": "self.{0}",  # shared copy-on-write (own_rng)
    "dice": "self.{0}",  # never mutated in place
    "ints": "self.{0}[:]",
    "bools": "self.{0}[:]",
    "int": "self.{0}",
    "bool": "self.{0}",
}
_DICT_EXPR = {
    "int64[T]": "self.{0}.tolist()",
    "int32[T]": "self.{0}.tolist()",
    "hands": "[h[:] for h in self.{0}]",
    "rng": "self.{0}.bit_generator.state",
    "dice": "self.{0}[self.dice_pos :]",
    "ints": "list(self.{0})",
    "bools": "list(self.{0})",
    "int": "int(self.{0})",
    "bool": "bool(self.{0})",
}


def _generate() -> tuple[Callable[[GameState], GameState], Callable[[GameState], dict[str, Any]]]:
    ns: dict[str, Any] = {"_new": _new, "GameState": GameState}
    copy = ["def copy(self):", "    c = _new(GameState)"]
    copy += [f"    c.{f.name} = {_COPY_EXPR[f.kind].format(f.name)}" for f in STATE_FIELDS]
    copy += ["    self._rng_shared = c._rng_shared = True", "    return c"]
    dump = ["def to_dict(self):", "    d = {}"]
    for group, members in _GROUPS.items():
        for f in members:
            ns[f"_default_{f.name}"] = f.default
        dump.append(f"    {group} = " + " or ".join(f"self.{f.name} != _default_{f.name}" for f in members))
    for f in STATE_FIELDS:
        line = f"d[{f.name!r}] = {_DICT_EXPR[f.kind].format(f.name)}"
        if f.written == "always":
            dump.append("    " + line)
        else:
            dump.append(f"    if {'self.' + f.name if f.written == 'nonempty' else f.written}:")
            dump.append("        " + line)
    if any(f.kind == "dice" for f in STATE_FIELDS):
        dump.append("    d['dice_pos'] = 0  # the buffer is written from dice_pos on")
    dump.append("    return d")
    exec("\n".join(copy) + "\n\n" + "\n".join(dump), ns)  # noqa: S102 (source built above from the declaration)
    return ns["copy"], ns["to_dict"]


_copy, _to_dict = _generate()


def _read_rng(name: str, v: Any) -> np.random.Generator:
    if not isinstance(v, dict) or v.get("bit_generator") != "PCG64":
        raise StateError(f"state field {name!r} must be a PCG64 bit_generator state dict")
    g = np.random.Generator(np.random.PCG64(0))
    g.bit_generator.state = v
    return g


def _read_list(name: str, v: Any) -> list[int]:
    if not isinstance(v, list):
        raise StateError(f"state field {name!r} must be a list")
    return [int(x) for x in v]


def _read_bools(name: str, v: Any) -> list[bool]:
    if not isinstance(v, list):
        raise StateError(f"state field {name!r} must be a list")
    if not all(isinstance(x, bool) for x in v):
        raise StateError(f"state field {name!r} must be a list of true/false, got {v!r}")
    return list(v)


def _read_bool(name: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise StateError(f"state field {name!r} must be true or false, got {v!r}")
    return v


def _read_int(name: str, v: Any) -> int:
    return int(v)


def _read_group_int(name: str, v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise StateError(f"state field {name!r} must be an integer, got {v!r}")
    return v


_READ: dict[str, Callable[[str, Any], Any]] = {
    "int64[T]": lambda n, v: np.array(v, dtype=np.int64),
    "int32[T]": lambda n, v: np.array(v, dtype=np.int32),
    "hands": lambda n, v: [[int(c) for c in h] for h in v],
    "rng": _read_rng,
    "dice": lambda n, v: [int(x) for x in v],
    "ints": _read_list,
    "bools": _read_bools,
    "int": _read_int,
    "bool": _read_bool,
}
# how each field is read: the groups' integers strictly (they were added later, with strict reading)
_LOAD: tuple[tuple[str, str, Any, Callable[[str, Any], Any]], ...] = tuple(
    (f.name, f.written, f.default, _read_group_int if (f.kind == "int" and f.written in _GROUPS) else _READ[f.kind])
    for f in STATE_FIELDS
)
