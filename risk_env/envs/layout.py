"""The one description of the action ids, the sub-step protocol and the observations.

Everything that reads or writes an action id or an observation entry builds its
offsets from here: the action codec (:class:`~risk_env.envs.codec.ActionCodec`),
the flat observation (:class:`~risk_env.envs.observation.ObservationEncoder`),
the graph observation (:class:`~risk_env.envs.graph.GraphObservationEncoder`) and
the batched engine (:mod:`risk_env.vector`). A layout change is made here once and
every engine follows; the differential tests check that they still agree.

Plain data (no torch, no Gymnasium), in three parts:

* **Action blocks** (:class:`ActionLayout`, from :func:`action_layout`): consecutive
  blocks of ids, ``territory``, ``amount``, ``dice``, ``blitz``, ``trade``, the expert
  dice rules' ``reroll``, ``six`` and ``keep``, and ``end`` (always last). Which blocks a
  game has, and their sizes, follow from its rules.
* **The sub-step protocol** (:data:`PROTOCOL`): for each decision (a phase with a
  pending selection), the blocks that may hold legal ids there, what each means, and
  which selection an id of the block records when it does not complete a move.
* **Observation blocks** (:class:`ObservationLayout`, from :func:`observation_layout`)
  of the flat observation, and the fixed node and global features of the graph
  observation (:data:`GRAPH_NODE_LAYOUT`, :data:`GRAPH_GLOBAL_LAYOUT`,
  :data:`GRAPH_GLOBALS_FROM_FLAT`).

Blocks come from :class:`LayoutPart` entries: the core parts (the classic rules) and
one part per rules variant that adds ids or observation entries (the cards' trade
block, the expert dice rules, secret missions, capitals, the allied army, the
defender's dice choice). A part says when it applies (from the rules) and which
blocks it contributes, and its ``rank`` fixes where its blocks go, so a variant
added later (with :func:`register_part` from its own module) appends blocks
without moving anyone else's: the default layouts never change.

>>> from risk_env import Game
>>> acts = action_layout(Game(num_players=4))
>>> acts.n, acts.territory, acts.amount, acts.dice, acts.blitz, acts.trade, acts.end
(70, 0, 42, 52, 55, 56, 69)
>>> [b.name for b in acts.blocks]
['territory', 'amount', 'dice', 'blitz', 'trade', 'end']
>>> obs = observation_layout(Game(num_players=4))
>>> obs.size, obs.slice("armies"), obs.shape("owner")
(427, slice(210, 252, None), (42, 5))
>>> decision(Phase.ATTACK, src=3).blocks["territory"].meaning
'attack target'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..rules.cards import COMPOSITIONS
from ..rules.config import RulesConfig
from ..rules.expert_dice import DIE_IDS
from ..rules.state import Phase
from ..rules.variant import Variant
from ..rules.variants import VARIANTS, variants_of

if TYPE_CHECKING:
    from ..rules.engine import Game

__all__ = [
    "AMOUNT_LEVELS",
    "ATTACK_DICE",
    "DEFEND_DICE",
    "PHASE_SLOTS",
    "MAX_PLAYERS",
    "ActionLayout",
    "Block",
    "BlockLayout",
    "Decision",
    "Dims",
    "LayoutPart",
    "ObservationLayout",
    "Use",
    "PROTOCOL",
    "GRAPH_NODE_LAYOUT",
    "GRAPH_GLOBAL_LAYOUT",
    "GRAPH_GLOBALS_FROM_FLAT",
    "GRAPH_VARIANT_BLOCKS",
    "GraphLayout",
    "graph_layout",
    "action_layout",
    "amount_of",
    "decision",
    "decision_table",
    "legal_levels",
    "layout_parts",
    "observation_layout",
    "register_part",
    "remove_part",
    "selection_kind",
]

AMOUNT_LEVELS = 10
"""Ids of the ``amount`` block: level ``j`` means ``lo + round_half_up(j * (hi - lo) / 9)`` armies
(:func:`risk_env.envs.codec.amount_of`)."""
ATTACK_DICE = 3
"""Ids of the ``dice`` block: attack with 1..3 dice (and defend with 1..:data:`DEFEND_DICE`)."""
DEFEND_DICE = 2
"""Most dice a defender rolls (the first ids of the ``dice`` block, docs/rules.md §4.2)."""
PHASE_SLOTS = 8
"""Size of the observations' ``phase`` block: the phases claim .. game over (the capital
phase has its own bit, ``capital_phase``)."""
MAX_PLAYERS = 6
"""Relative seat slots in the graph observation (the most players a game can have)."""
EXPERT_DIE_IDS = DIE_IDS
"""Ids of each of the ``reroll`` and ``six`` blocks: one per attack die (highest first)."""
FLAGS = ("trade forced", "+2 bonus used", "conquered this turn", "mid-attack trade-down", "neutral army next (setup)")
"""Entries of the ``flags`` observation block, in order."""


def amount_of(level: int, lo: int, hi: int, levels: int = AMOUNT_LEVELS) -> int:
    """Armies meant by amount level ``level`` in ``[lo, hi]`` (half rounds up): the meaning
    of the ``amount`` block's ids.

    >>> [amount_of(j, 1, 30) for j in range(10)]
    [1, 4, 7, 11, 14, 17, 20, 24, 27, 30]
    >>> [amount_of(j, 2, 4) for j in range(10)]
    [2, 2, 2, 3, 3, 3, 3, 4, 4, 4]
    """
    return lo + (2 * level * (hi - lo) + (levels - 1)) // (2 * (levels - 1))


def legal_levels(span: int, levels: int = AMOUNT_LEVELS) -> tuple[bool, ...]:
    """Which amount levels are legal for a range ``hi - lo = span`` (>= 0): those whose count
    differs from the previous level's, so every legal level is a distinct count.

    >>> [int(x) for x in legal_levels(2)]
    [1, 0, 0, 1, 0, 0, 0, 1, 0, 0]
    """
    counts = [amount_of(j, 0, span, levels) for j in range(levels)]
    return tuple(j == 0 or counts[j] != counts[j - 1] for j in range(levels))


# ---------------------------------------------------------------------- blocks
@dataclass(frozen=True)
class Block:
    """A named run of consecutive entries (action ids or observation entries).

    Attributes:
        name: the block's name (``"territory"``, ``"owner"``, ...).
        shape: its shape; the block holds ``prod(shape)`` entries, row-major.
        doc: what its entries mean (scaling included), for people.
    """

    name: str
    shape: tuple[int, ...]
    doc: str = ""

    @property
    def size(self) -> int:
        out = 1
        for d in self.shape:
            out *= d
        return out


_Slice = slice  # (the class below has a method named slice)


class BlockLayout:
    """Consecutive :class:`Block` s: offsets by name.

    Attributes:
        blocks: the blocks in order.
        size: total entries.
    """

    def __init__(self, blocks: Sequence[Block]) -> None:
        self.blocks: tuple[Block, ...] = tuple(blocks)
        self._slices: dict[str, slice] = {}
        self._shapes: dict[str, tuple[int, ...]] = {}
        off = 0
        for b in self.blocks:
            if b.name in self._slices:
                raise ValueError(f"two layout blocks named {b.name!r}")
            self._slices[b.name] = slice(off, off + b.size)
            self._shapes[b.name] = b.shape
            off += b.size
        self.size = off

    def __contains__(self, name: object) -> bool:
        return name in self._slices

    def __iter__(self) -> Iterator[Block]:
        return iter(self.blocks)

    def names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.blocks)

    def slice(self, name: str) -> slice:
        """The entries of block ``name``.

        Raises:
            KeyError: no such block in this layout (the message lists the blocks).
        """
        try:
            return self._slices[name]
        except KeyError:
            raise KeyError(f"no block {name!r} in this layout; blocks: {', '.join(self._slices)}") from None

    def start(self, name: str) -> int:
        """First entry of block ``name``, or -1 if the layout has no such block."""
        sl = self._slices.get(name)
        return -1 if sl is None else sl.start

    def stop(self, name: str) -> int:
        """One past the last entry of block ``name``, or -1 if the layout has no such block."""
        sl = self._slices.get(name)
        return -1 if sl is None else sl.stop

    def shape(self, name: str) -> tuple[int, ...]:
        """The shape of block ``name``.

        Raises:
            KeyError: no such block in this layout.
        """
        self.slice(name)
        return self._shapes[name]

    def width(self, name: str) -> int:
        """Entries of block ``name`` (0 if absent)."""
        sl = self._slices.get(name)
        return 0 if sl is None else sl.stop - sl.start

    def as_dict(self) -> dict[str, tuple[_Slice, tuple[int, ...]]]:
        """``name -> (slice, shape)`` of every block."""
        return {b.name: (self._slices[b.name], b.shape) for b in self.blocks}

    def describe(self) -> str:
        """A plain-text table of the blocks: ids, name, shape, meaning."""
        rows = []
        for b in self.blocks:
            sl = self._slices[b.name]
            ids = f"{sl.start}" if sl.stop - sl.start == 1 else f"{sl.start}..{sl.stop - 1}"
            rows.append(f"{ids:>9}  {b.name:<16} {str(b.shape):<9} {b.doc}")
        return "\n".join(rows)


# ---------------------------------------------------------------------- the parts
@dataclass(frozen=True)
class Dims:
    """The sizes a layout depends on, taken from one game's rules and map.

    Attributes:
        config: the rules.
        T: territories; C: continents; n: players; S: owner slots (``n + 1``: the players
            rotated to the observer, then the 2-player neutral or the allied army).
    """

    config: RulesConfig
    T: int
    C: int
    n: int

    @property
    def S(self) -> int:
        return self.n + 1

    @classmethod
    def of(cls, game: Game) -> Dims:
        return cls(game.config, game.T, len(game.map.continent_names), game.num_players)

    def trade_block(self) -> Block:
        """The trade block: one id per set composition, or another form's (a variant that trades
        cards its own way, such as stars trades, docs/rules.md §6)."""
        for v in variants_of(self.config):
            block = v.trade_block()
            if block is not None:
                return Block(*block)
        return Block("trade", (len(COMPOSITIONS),), "trade a set of composition COMPOSITION_NAMES[i]")


@dataclass(frozen=True)
class LayoutPart:
    """What one set of rules contributes to the layouts.

    Attributes:
        name: the part (``"core"``, ``"expert_dice"``, ``"secret_missions"``, ...).
        rank: where its blocks go: the blocks of all applying parts are laid out by
            rank (then in the order each part gives them). A new part takes a rank
            above every existing one, so that no existing layout moves.
        applies: whether a game with these rules has the part's blocks.
        actions: the action blocks it contributes.
        observation: the flat observation blocks it contributes.
    """

    name: str
    rank: int
    applies: Callable[[RulesConfig], bool]
    actions: Callable[[Dims], Sequence[Block]] = field(default=lambda d: ())
    observation: Callable[[Dims], Sequence[Block]] = field(default=lambda d: ())


_PARTS: dict[str, LayoutPart] = {}


def register_part(part: LayoutPart) -> LayoutPart:
    """Add a :class:`LayoutPart` (a rules variant's blocks) to every layout built from now on.

    Raises:
        ValueError: a part of that name or rank exists already.
    """
    if part.name in _PARTS:
        raise ValueError(f"a layout part named {part.name!r} exists already")
    for other in _PARTS.values():
        if other.rank == part.rank:
            raise ValueError(f"layout parts {other.name!r} and {part.name!r} both have rank {part.rank}")
    _PARTS[part.name] = part
    return part


def remove_part(name: str) -> LayoutPart:
    """Take the part ``name`` out of the layouts built from now on (for tests of a new part,
    and for a variant module that is unloaded); returns it.

    Raises:
        KeyError: no part of that name (the message lists the parts).
    """
    try:
        return _PARTS.pop(name)
    except KeyError:
        raise KeyError(f"no layout part named {name!r}; parts: {', '.join(_PARTS)}") from None


def layout_parts(config: RulesConfig | None = None) -> tuple[LayoutPart, ...]:
    """The registered parts by rank (only those applying to ``config``, if given)."""
    parts = sorted(_PARTS.values(), key=lambda p: p.rank)
    return tuple(p for p in parts if config is None or p.applies(config))


def _always(cfg: RulesConfig) -> bool:
    return True


def _core_actions(d: Dims) -> list[Block]:
    return [
        Block("territory", (d.T,), "a territory: what it means depends on the decision (PROTOCOL)"),
        Block(
            "amount",
            (AMOUNT_LEVELS,),
            "level j: lo + round_half_up(j * (hi - lo) / 9) armies, j = 0 the minimum, 9 the maximum; "
            "a level repeating the previous level's count is illegal",
        ),
        Block("dice", (ATTACK_DICE,), "attack with 1, 2, 3 dice; defend with 1, 2 dice"),
        Block("blitz", (1,), "roll until conquest or the source is down to 1"),
    ]


def _trade_actions(d: Dims) -> list[Block]:
    return [d.trade_block()]


def _end_actions(d: Dims) -> list[Block]:
    return [Block("end", (1,), "end attack (also with a source or pair selected) / end turn (skip the fortify)")]


def _core_observation(d: Dims) -> list[Block]:
    T, C, n, S = d.T, d.C, d.n, d.S
    return [
        Block("owner", (T, S), "one-hot owner slot (unclaimed: all zero)"),
        Block("armies", (T,), "armies / 10"),
        Block("selected", (T, 2), "pending source and target: the codec's selection, else the last battle"),
        Block("continent_share", (C, S), "fraction of each continent each slot owns"),
        Block("phase", (PHASE_SLOTS,), "one-hot Phase (claim .. game over)"),
        Block("acting", (1,), "1 if this seat decides now"),
        Block("on_turn", (S,), "one-hot slot of the player on turn"),
        Block("to_place", (1,), "armies left to place / 10"),
        Block("flags", (len(FLAGS),), ", ".join(FLAGS)),
        Block("my_cards", (5,), "own cards by symbol / 5, own cards showing an owned territory / 5"),
        Block("trade_pending", (len(COMPOSITIONS),), "one-hot set composition awaiting a bonus territory"),
        Block("cards", (n,), "cards held per seat / 5"),
        Block("alive", (n,), "1 per live seat"),
        Block("territories", (S,), "territories per slot / T"),
        Block("army_total", (S,), "armies per slot / (10 T)"),
        Block("trade_value", (1,), "value of the next set / 20"),
        Block("battle", (3,), "last roll's attacker dice / 3, attack dice awaiting a defence / 3, occupation minimum / 3"),
        Block("turn", (1,), "turn / turn limit"),
    ]


def _choose_observation(d: Dims) -> list[Block]:
    return [Block("blitz_defence", (1,), "1 while the pending defence is a round of a blitz")]


# The parts of today's rules, by rank. Ranks are spaced so that a part can be placed
# between two others only in a new layout version; new variants take ranks above 100.
register_part(LayoutPart("core", 0, _always, actions=_core_actions, observation=_core_observation))
register_part(LayoutPart("cards", 10, lambda c: c.uses_cards, actions=_trade_actions))


def _variant_part(variant: type[Variant]) -> LayoutPart:
    """The layout part of a variant: the blocks it declares in its own module, at its rank."""

    def actions(d: Dims) -> list[Block]:
        return [Block(*b) for b in variant.action_blocks(d)]

    def observation(d: Dims) -> list[Block]:
        return [Block(*b) for b in variant.observation_blocks(d)]

    return LayoutPart(variant.name, variant.rank, variant.applies, actions=actions, observation=observation)


for _variant in VARIANTS:  # each variant's blocks, declared in its own module
    if _variant.action_blocks is not Variant.action_blocks or _variant.observation_blocks is not Variant.observation_blocks:
        register_part(_variant_part(_variant))
register_part(LayoutPart("defender_dice", 60, lambda c: c.defender_dice == "choose", observation=_choose_observation))
register_part(LayoutPart("end", 1_000_000, _always, actions=_end_actions))


# ---------------------------------------------------------------------- the layouts
class ActionLayout(BlockLayout):
    """The action ids of one game: :class:`BlockLayout` plus the first id of each block.

    Attributes:
        n: the action space size ``N``.
        K: the amount levels (:data:`AMOUNT_LEVELS`).
        territory, amount, dice, blitz, trade, reroll, six, keep, end: first id of each
            block (-1 where the game has none: ``trade`` without cards, ``reroll``/``six``/
            ``keep`` without the expert dice rules that use them).
        trade_end: one past the trade block (the first id after it when there is none).
    """

    def __init__(self, blocks: Sequence[Block]) -> None:
        super().__init__(blocks)
        if self.blocks[-1].name != "end":
            raise ValueError("the end id must be the last action id")
        self.n = self.size
        self.K = self.width("amount")
        self.territory = self.start("territory")
        self.amount = self.start("amount")
        self.dice = self.start("dice")
        self.blitz = self.start("blitz")
        self.trade = self.start("trade")
        self.trade_end = self.stop("trade") if self.trade >= 0 else self.stop("blitz")
        self.reroll = self.start("reroll")
        self.six = self.start("six")
        self.keep = self.start("keep")
        self.end = self.start("end")

    def block_of(self, action: int) -> str:
        """The name of the block holding id ``action``.

        Raises:
            KeyError: ``action`` is outside ``0..n-1``.
        """
        for b in self.blocks:
            sl = self.slice(b.name)
            if sl.start <= action < sl.stop:
                return b.name
        raise KeyError(f"action id {action} is outside 0..{self.n - 1}")


class ObservationLayout(BlockLayout):
    """The flat observation of one game: :class:`BlockLayout` (``size`` is ``D``)."""


def action_layout(game: Game) -> ActionLayout:
    """The action ids of ``game`` (its rules and map)."""
    d = Dims.of(game)
    return ActionLayout([b for p in layout_parts(game.config) for b in p.actions(d)])


def observation_layout(game: Game) -> ObservationLayout:
    """The flat observation blocks of ``game`` (its rules, map and player count)."""
    d = Dims.of(game)
    return ObservationLayout([b for p in layout_parts(game.config) for b in p.observation(d)])


# ---------------------------------------------------------------------- the sub-step protocol
@dataclass(frozen=True)
class Use:
    """What the ids of one block mean at one decision.

    Attributes:
        meaning: for people (``"attack source"``).
        selects: the selection an id records when it does not complete a move (``"src"``,
            ``"dst"``, ``"trade"``), or ``""`` when it always completes one.
        move: the :class:`~risk_env.rules.moves.MoveKind` name of the move an id completes
            (when it does not select, or when the count it would choose is forced: the last
            army to place, a fortify from 2 armies, a trade with at most one bonus option);
            ``""`` for ids that only select.
    """

    meaning: str
    selects: str = ""
    move: str = ""


@dataclass(frozen=True)
class Decision:
    """One decision of the sub-step protocol: a phase with a pending selection.

    Attributes:
        name: e.g. ``"attack_target"``.
        phase: the :class:`~risk_env.rules.state.Phase`.
        selection: the pending selection: ``""`` none, ``"src"`` a source, ``"src+dst"`` a
            pair, ``"trade"`` a trade waiting for its +2 bonus territory, ``"roll"`` a roll
            waiting under the expert dice rules (``GameState.roll_pending``).
        blocks: block name -> :class:`Use`; only ids of these blocks can be legal here.
    """

    name: str
    phase: Phase
    selection: str
    blocks: Mapping[str, Use]


PROTOCOL: tuple[Decision, ...] = (
    Decision("claim", Phase.CLAIM, "", {"territory": Use("claim an unclaimed territory", move="CLAIM")}),
    Decision(
        "setup_place",
        Phase.SETUP_PLACE,
        "",
        {"territory": Use("place one setup army (on the neutral's territory when the neutral places)", move="PLACE")},
    ),
    Decision("capital", Phase.CAPITAL, "", {"territory": Use("choose an own territory as the capital", move="CAPITAL")}),
    Decision(
        "reinforce",
        Phase.REINFORCE,
        "",
        {
            "territory": Use("where to place reinforcements (then an amount)", selects="src", move="PLACE"),
            "trade": Use("trade a set (then its +2 bonus territory when several are on offer)", selects="trade", move="TRADE"),
        },
    ),
    Decision(
        "reinforce_amount", Phase.REINFORCE, "src", {"amount": Use("armies to place on the selected territory", move="PLACE")}
    ),
    Decision(
        "trade_bonus", Phase.REINFORCE, "trade", {"territory": Use("the +2 bonus territory of the pending trade", move="TRADE")}
    ),
    Decision(
        "attack",
        Phase.ATTACK,
        "",
        {
            "territory": Use("attack source (then a target)", selects="src"),
            "dice": Use("roll again in the last battle with 1, 2, 3 dice", move="ATTACK"),
            "blitz": Use("blitz again in the last battle", move="BLITZ"),
            "end": Use("end the attack phase", move="END_ATTACK"),
        },
    ),
    Decision(
        "attack_target",
        Phase.ATTACK,
        "src",
        {"territory": Use("attack target", selects="dst"), "end": Use("end the attack phase", move="END_ATTACK")},
    ),
    Decision(
        "attack_roll",
        Phase.ATTACK,
        "src+dst",
        {
            "dice": Use("attack with 1, 2, 3 dice", move="ATTACK"),
            "blitz": Use("blitz", move="BLITZ"),
            "end": Use("end the attack phase", move="END_ATTACK"),
        },
    ),
    Decision(
        "expert_dice",
        Phase.ATTACK,
        "roll",
        {
            "reroll": Use("re-roll the j-th highest attack die", move="REROLL"),
            "six": Use("turn the j-th highest attack die into a six", move="SIX"),
            "keep": Use("let the roll stand", move="KEEP_ROLL"),
        },
    ),
    Decision("defend", Phase.DEFEND, "", {"dice": Use("defend with 1, 2 dice", move="DEFEND")}),
    Decision("occupy", Phase.OCCUPY, "", {"amount": Use("armies standing in the conquered territory", move="OCCUPY")}),
    Decision(
        "fortify",
        Phase.FORTIFY,
        "",
        {"territory": Use("fortify source (then a destination)", selects="src"), "end": Use("end the turn", move="END_TURN")},
    ),
    Decision(
        "fortify_destination",
        Phase.FORTIFY,
        "src",
        {
            "territory": Use("fortify destination (then an amount)", selects="dst", move="FORTIFY"),
            "end": Use("end the turn", move="END_TURN"),
        },
    ),
    Decision(
        "fortify_amount",
        Phase.FORTIFY,
        "src+dst",
        {"amount": Use("armies to move", move="FORTIFY"), "end": Use("end the turn", move="END_TURN")},
    ),
)
"""Every decision of the sub-step protocol (see :class:`Decision`); :func:`decision` finds one."""

_BY_KEY = {(int(d.phase), d.selection): d for d in PROTOCOL}
SELECTIONS = ("", "src", "src+dst", "trade", "roll")
"""The values of :attr:`Decision.selection`, in the order of :func:`decision_table`'s rows."""


def decision_table(actions: ActionLayout) -> tuple[list[list[str]], list[list[str]]]:
    """The protocol as two tables over (decision row, action block): the selection an id
    records and the move it completes (``""`` where none; see :class:`Use`). Row
    ``phase * len(SELECTIONS) + SELECTIONS.index(selection)``; columns in the order of
    ``actions.blocks``. The batched engine reads a step's meaning from them."""
    rows = (max(int(p) for p in Phase) + 1) * len(SELECTIONS)
    names = actions.names()
    selects = [[""] * len(names) for _ in range(rows)]
    moves = [[""] * len(names) for _ in range(rows)]
    for d in PROTOCOL:
        r = int(d.phase) * len(SELECTIONS) + SELECTIONS.index(d.selection)
        for block, use in d.blocks.items():
            if block in names:
                selects[r][names.index(block)] = use.selects
                moves[r][names.index(block)] = use.move
    return selects, moves


_GAME_OVER = Decision("game_over", Phase.GAME_OVER, "", {})


def selection_kind(src: int = -1, dst: int = -1, trade: int = -1, roll_pending: bool = False) -> str:
    """The :attr:`Decision.selection` of a pending selection (-1: none)."""
    if roll_pending:
        return "roll"
    if trade >= 0:
        return "trade"
    if dst >= 0:
        return "src+dst"
    if src >= 0:
        return "src"
    return ""


def decision(phase: int, src: int = -1, dst: int = -1, trade: int = -1, roll_pending: bool = False) -> Decision:
    """The :class:`Decision` of a position in ``phase`` with the pending selection
    ``(src, dst, trade)`` (-1: none) and the expert dice rules' waiting roll.

    Raises:
        KeyError: no decision has that phase and selection (the codec never makes one).
    """
    if phase == Phase.GAME_OVER:
        return _GAME_OVER
    key = (int(phase), selection_kind(src, dst, trade, roll_pending))
    try:
        return _BY_KEY[key]
    except KeyError:
        raise KeyError(f"no decision in phase {Phase(phase).name.lower()} with selection {key[1]!r}") from None


# ---------------------------------------------------------------------- the graph observation
GRAPH_NODE_LAYOUT = BlockLayout(
    [
        Block("owner_rel", (MAX_PLAYERS,), "one-hot owner relative to the observer in seat order: 0 = me, 1 = the next seat"),
        Block("owner_neutral", (1,), "owned by the 2-player neutral army, or by the allied army"),
        Block("owner_none", (1,), "unclaimed (the claim phase)"),
        Block("armies", (1,), "armies / 10"),
        Block("selected_src", (1,), "the pending source: the codec's selection, else the last battle"),
        Block("selected_dst", (1,), "the pending target (as the flat observation's selected)"),
        Block("my_card", (1,), "1 if I hold this territory's card"),
        Block("legal", (1,), "1 if this territory's action id is legal now (0 for a player not to act)"),
        Block("cont_bonus", (1,), "bonus of its continent / 10"),
        Block("cont_size", (1,), "territories in its continent / T"),
        Block("cont_mine", (1,), "fraction of its continent I own"),
        Block("cont_owner", (1,), "fraction of its continent its owner owns"),
        Block("foreign_nbrs", (1,), "fraction of its neighbours owned by another player than its owner"),
        Block("foreign_armies", (1,), "armies on those neighbours / 10"),
        Block("degree", (1,), "neighbours / 6"),
    ]
)
"""The graph observation's per-territory features (``F = 20``), as blocks of one node's row."""

GRAPH_GLOBAL_LAYOUT = BlockLayout(
    [
        Block("phase", (PHASE_SLOTS,), "one-hot Phase"),
        Block("acting", (1,), "1 if the observer decides now"),
        Block("on_turn", (MAX_PLAYERS + 1,), "one-hot relative slot of the player on turn"),
        Block("to_place", (1,), "armies left to place / 10"),
        Block("flags", (len(FLAGS),), ", ".join(FLAGS)),
        Block("my_cards", (5,), "own cards by symbol / 5, own cards showing an owned territory / 5"),
        Block("trade_pending", (len(COMPOSITIONS),), "one-hot set composition awaiting a bonus territory"),
        Block("cards", (MAX_PLAYERS,), "cards held per relative seat / 5"),
        Block("alive", (MAX_PLAYERS,), "1 per live relative seat"),
        Block("territories", (MAX_PLAYERS + 1,), "territories per owner slot / T"),
        Block("army_total", (MAX_PLAYERS + 1,), "armies per owner slot / (10 T)"),
        Block("trade_value", (1,), "value of the next set / 20"),
        Block("battle", (3,), "last roll's attacker dice / 3, attack dice awaiting a defence / 3, occupation minimum / 3"),
        Block("num_players", (1,), "players / 6"),
        Block("turn", (1,), "turn / turn limit, only with turn_feature=True"),
        Block("bias", (1,), "always 1"),
    ]
)
"""The graph observation's global features (``G = 73``)."""

GRAPH_GLOBALS_FROM_FLAT: dict[str, str] = {
    "phase": "copy",
    "acting": "copy",
    "on_turn": "slots",
    "to_place": "copy",
    "flags": "copy",
    "my_cards": "copy",
    "trade_pending": "copy",
    "cards": "seats",
    "alive": "seats",
    "territories": "slots",
    "army_total": "slots",
    "trade_value": "copy",
    "battle": "copy",
}
"""Global blocks copied from the flat observation's block of the same name: ``"copy"`` as is,
``"slots"`` the ``S = n + 1`` owner slots spread over :data:`MAX_PLAYERS` seats and the neutral
(the last entry), ``"seats"`` the ``n`` seats padded to :data:`MAX_PLAYERS`. The other global
blocks (``num_players``, ``turn``, ``bias``) are the graph encoder's own."""


GRAPH_VARIANT_BLOCKS: dict[str, tuple[str, bool]] = {
    "mission": ("globals", True),
    "mission_held": ("globals", True),
    "capital": ("nodes", True),
    "capital_phase": ("globals", False),
    "dice_rules": ("globals", False),
    "allied": ("globals", False),
    "blitz_defence": ("globals", False),
}
"""How the graph observation carries each flat block a rule switch adds (docs/rules.md §5-§8: the secret missions,
the capitals, the expert dice rules, the allied army, the defender's choice): ``(where, padded)``. ``where`` is
``"globals"`` (the block appended to the globals) or ``"nodes"`` (a flat block of shape ``(T, w)`` appended to each
node's row, ``w`` per territory). ``padded``: the block's last ``n`` entries are the rotated seats, padded to
:data:`MAX_PLAYERS` as the core blocks are, so that one network reads every player count. Flat entry ``k`` of a
block (of a node's row) is graph entry ``k`` of its graph block: the graph blocks differ only in their padded width."""


@dataclass(frozen=True)
class GraphLayout:
    """The graph observation of one game: the node and global blocks (the core ones of :data:`GRAPH_NODE_LAYOUT` and
    :data:`GRAPH_GLOBAL_LAYOUT`, then the variant blocks of :data:`GRAPH_VARIANT_BLOCKS` the rules add, in the flat
    layout's order), and where each variant block comes from.

    Attributes:
        nodes: node features (``F = nodes.size``).
        globals: global features (``G = globals.size``).
        extra_globals: ``(flat start, graph start, width)`` of each variant global block (``width`` flat entries).
        extra_nodes: ``(flat start, graph column, width)`` of each variant node block (``width`` entries per node).
    """

    nodes: BlockLayout
    globals: BlockLayout
    extra_globals: tuple[tuple[int, int, int], ...]
    extra_nodes: tuple[tuple[int, int, int], ...]


def graph_layout(flat: BlockLayout, T: int, n: int) -> GraphLayout:
    """The graph observation's layout for a game whose flat observation layout is ``flat`` (:func:`observation_layout`),
    of ``T`` territories and ``n`` players. The rules of the shipped networks add no variant block: ``F = 20``,
    ``G = 73``.

    A flat block that is neither the core observation's nor in :data:`GRAPH_VARIANT_BLOCKS` (a part registered
    elsewhere, :func:`register_part`) is appended to the globals as it is, not padded: the graph observation carries
    all that the flat one does, and a new variant says in :data:`GRAPH_VARIANT_BLOCKS` how to carry its blocks across
    player counts.
    """
    core = {b.name for b in _core_observation(Dims(RulesConfig(), T, 1, n))}
    node_blocks, global_blocks = list(GRAPH_NODE_LAYOUT), list(GRAPH_GLOBAL_LAYOUT)
    extras: list[tuple[str, Block, int, int]] = []  # (where, graph block, flat start, flat width per row)
    for b in flat:
        if b.name in core:
            continue
        where, padded = GRAPH_VARIANT_BLOCKS.get(b.name, ("globals", False))
        width = b.shape[-1] if where == "nodes" else b.size
        graph_width = width - n + MAX_PLAYERS if padded else width
        block = Block(b.name, (graph_width,), b.doc + (f" (seats padded to {MAX_PLAYERS})" if padded else ""))
        (node_blocks if where == "nodes" else global_blocks).append(block)
        extras.append((where, block, flat.start(b.name), width))
    nodes, globals_ = BlockLayout(node_blocks), BlockLayout(global_blocks)
    return GraphLayout(
        nodes,
        globals_,
        tuple((f0, globals_.start(b.name), w) for where, b, f0, w in extras if where == "globals"),
        tuple((f0, nodes.start(b.name), w) for where, b, f0, w in extras if where == "nodes"),
    )
