"""Checks of a whole position: the invariants of docs/rules.md §5, the ranges of the
bookkeeping fields, and that the engine can go on from it. Used when a state is restored
from a dict (:meth:`Game.state_from_dict <risk_env.rules.engine.Game.state_from_dict>`,
the one reader of position dicts: :func:`state_from_dict`) and by the soak tests after every step.

A dict is read in three passes, each refusing with a :class:`~risk_env.errors.StateError`
naming the field, what was wrong and what is allowed:

1. :func:`dict_problems`: every key is a declared field (:data:`~risk_env.rules.state.STATE_FIELDS`,
   or one of the ignored keys of earlier versions), every field that is always written is
   there, and every value has exactly its declared kind: an integer is an ``int`` (numpy
   integers too, never a bool, a float or text), a flag a ``bool``, a list a list of those,
   the per-territory lists have one entry per territory, the hands one list per seat, the
   generator a ``PCG64`` state of integers in range;
2. :func:`invariant_violations` and :func:`field_problems`: the rules' invariants and the
   ranges of the counters (no count that would overflow later: at most :data:`MAX_ARMIES`
   armies in play, :data:`MAX_SETS_TRADED` sets traded, the turn within the turn limit);
3. :func:`continuation_problems`: the engine can go on: the seat to act is a live player
   with a legal move, a pending battle or conquest is one the rules could have left, a
   finished game has exactly one winner (who has won) or is a truncation at the turn limit.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import StateError
from .cards import composition_of
from .legality import PHASE_NAME
from .state import STATE_FIELDS, GameState, Phase

if TYPE_CHECKING:
    from .engine import Game

__all__ = [
    "MAX_ARMIES",
    "MAX_SETS_TRADED",
    "state_from_dict",
    "position_from",
    "dict_problems",
    "field_problems",
    "invariant_violations",
    "continuation_problems",
]

MAX_ARMIES = 10**9
"""Most armies a restored position may hold in all (on the board, to place, in setup): an
``int32`` count of armies cannot overflow while they are moved or added up."""

MAX_SETS_TRADED = 10**6
"""Most sets a restored position may count as traded (the next set's value stays far from overflowing)."""

LEGACY_KEYS = ("sel_src", "sel_dst", "sel_trade")
"""Keys of dicts written by earlier versions (the action codec's selection), ignored when read."""

_INT_KINDS = {"int64[T]", "int32[T]", "ints", "dice", "int"}


def state_from_dict(game: Game, d: dict[str, Any]) -> GameState:
    """Rebuild a state from :meth:`GameState.to_dict` output and check it (see the module
    docstring for the three passes). ``d`` is not changed.

    Raises:
        StateError: a key that is not a field, a missing field, a value of the wrong kind, a
            state that breaks the rules' invariants, a counter out of range, or a position the
            engine cannot go on from; the message names the field and what is allowed.
    """
    problems = dict_problems(game, d)
    if problems:
        raise StateError("malformed state dict: " + "; ".join(problems[:5]))
    try:
        s = GameState.from_dict(_plain(d))
    except (KeyError, TypeError, ValueError, OverflowError) as e:  # pragma: no cover (dict_problems refuses these)
        raise StateError(f"malformed state dict: {type(e).__name__}: {e}") from None
    problems = invariant_violations(game, s) or field_problems(game, s) or continuation_problems(game, s)
    if problems:
        raise StateError("inconsistent state: " + "; ".join(problems))
    return s


def position_from(game: Game, start: Any, what: str = "the position") -> GameState:
    """A checked copy of a position handed in from outside (an env's ``reset(options={"state": ...})``):
    a :class:`GameState` or its :meth:`~GameState.to_dict`, rebuilt by :func:`state_from_dict`, so
    the caller's object is never shared and a position that breaks the rules never gets in.

    Args:
        what: how the message names the position (``"options['state']"``).

    Raises:
        StateError: neither a GameState nor a dict, malformed, or inconsistent with ``game``.
    """
    if isinstance(start, GameState):
        start = start.to_dict()
    elif not isinstance(start, dict):
        raise StateError(f"{what} must be a GameState or its to_dict(), got {type(start).__name__}")
    return state_from_dict(game, start)


def _is_int(v: Any) -> bool:
    if type(v) is int:  # (the common case first: a bool's type is bool)
        return True
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _all_ints(v: list[Any]) -> bool:
    """Whether every item of ``v`` is an integer (:func:`_is_int`); a list of Python ints is told in one C pass."""
    return set(map(type, v)) <= {int} or all(_is_int(x) for x in v)


_PLAIN_TYPES = (int, str, float, bool, type(None))
"""Values :func:`_plain` keeps as they are (exact types: a subclass, such as a numpy integer, is converted)."""
_PLAIN_SET = frozenset(_PLAIN_TYPES)


def _plain(d: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``d`` holding plain Python values (numpy integers as ints), as :meth:`GameState.from_dict` reads them."""

    def plain(v: Any) -> Any:
        t = type(v)
        if t in _PLAIN_TYPES:
            return v
        if t is list:
            if set(map(type, v)) <= _PLAIN_SET:  # (a list of plain values: one C pass, no recursion)
                return list(v)
            return [plain(x) for x in v]
        if isinstance(v, list):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        return int(v) if _is_int(v) else v

    return {k: plain(v) for k, v in d.items() if k not in LEGACY_KEYS}


def _kind_name(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return f"the bool {v!r}"
    if isinstance(v, (list, dict)):
        return f"a {type(v).__name__} of {len(v)}"
    return f"{v!r} ({type(v).__name__})"


def dict_problems(game: Game, d: Any) -> list[str]:
    """What makes ``d`` not a position dict for ``game`` by the field declaration
    (:data:`~risk_env.rules.state.STATE_FIELDS`): unknown or missing keys and values of the
    wrong kind or length (empty if none). Ranges and consistency are checked on the built state."""
    if not isinstance(d, Mapping):
        return [f"a state is a dict of fields, got {type(d).__name__}"]
    names = [f.name for f in STATE_FIELDS]
    out = [f"unknown key {k!r} (the fields are: {', '.join(names)})" for k in d if k not in names and k not in LEGACY_KEYS]
    T, n = game.T, game.num_players
    for f in STATE_FIELDS:
        if f.name not in d:
            if f.written == "always":
                out.append(f"missing field {f.name!r}")
            continue
        v = d[f.name]
        why = None
        if f.kind == "int":
            if not _is_int(v):
                why = f"must be an integer, got {_kind_name(v)}"
        elif f.kind == "bool":
            if not isinstance(v, bool):
                why = f"must be true or false, got {_kind_name(v)}"
        elif f.kind == "rng":
            why = _rng_problem(v)
        elif not isinstance(v, list):
            why = f"must be a list, got {_kind_name(v)}"
        elif f.kind in ("int64[T]", "int32[T]") and len(v) != T:
            why = f"must hold {T} entries (one per territory of map {game.map.name!r}), got {len(v)}"
        elif f.kind == "int32[T]" and _all_ints(v) and any(abs(x) > MAX_ARMIES for x in v):
            why = f"holds {next(x for x in v if abs(x) > MAX_ARMIES)}, beyond the {MAX_ARMIES} armies a position may hold"
        elif f.kind == "int64[T]" and _all_ints(v) and any(abs(x) >= 2**63 for x in v):
            why = f"holds {next(x for x in v if abs(x) >= 2**63)}, beyond a 64-bit integer"
        elif f.kind == "hands":
            if len(v) != n:
                why = f"must hold {n} hands (one per player), got {len(v)}"
            elif not all(isinstance(h, list) and _all_ints(h) for h in v):
                why = "must be a list of lists of card ids (integers)"
        elif f.kind == "bools" and not all(isinstance(x, bool) for x in v):
            why = f"must be a list of true/false, got {v!r}"[:200]
        elif f.kind in _INT_KINDS and not _all_ints(v):
            bad = next(x for x in v if not _is_int(x))
            why = f"must be a list of integers, holds {_kind_name(bad)}"
        if why is not None:
            out.append(f"{f.name!r} {why}")
    return out


def _rng_problem(v: Any) -> str | None:
    """Why ``v`` is not a PCG64 bit-generator state of integers in range (None if it is)."""
    shape = "a PCG64 state {'bit_generator': 'PCG64', 'state': {'state': s, 'inc': i}, 'has_uint32': 0 or 1, 'uinteger': u}"
    if (
        not isinstance(v, dict)
        or v.get("bit_generator") != "PCG64"
        or set(v) != {"bit_generator", "state", "has_uint32", "uinteger"}
    ):
        return f"must be {shape}"
    st = v["state"]
    if not isinstance(st, dict) or set(st) != {"state", "inc"} or not all(_is_int(x) and 0 <= x < 2**128 for x in st.values()):
        return f"must be {shape}, with s and i integers in 0..2**128-1"
    if (
        v["has_uint32"] not in (0, 1)
        or not _is_int(v["has_uint32"])
        or not (_is_int(v["uinteger"]) and 0 <= v["uinteger"] < 2**32)
    ):
        return f"must be {shape}, with u an integer in 0..2**32-1"
    return None


def _roll_shape(roll: list[int]) -> bool:
    """Whether ``roll`` is ``[attacker faces..., 0, defender faces...]`` with 1..3 and 1..2 faces (§4.2)."""
    if roll.count(0) != 1:
        return False
    k = roll.index(0)
    return 1 <= k <= 3 and 1 <= len(roll) - k - 1 <= 2


def field_problems(game: Game, s: GameState) -> list[str]:
    """Ranges of the bookkeeping fields a restored state must respect (not re-checked every step)."""
    T, n = game.T, game.num_players
    out: list[str] = []
    for f in ("att_src", "att_dst"):
        v = getattr(s, f)
        if not -1 <= v < T:
            out.append(f"{f}={v} is not a territory id in 0..{T - 1} (or -1 for none)")
    if s.phase in (Phase.DEFEND, Phase.OCCUPY) and (s.att_src < 0 or s.att_dst < 0):
        out.append(f"the {PHASE_NAME[Phase(s.phase)]} phase needs a pending battle (att_src and att_dst)")
    if s.blitzing and (s.phase != Phase.DEFEND or game.config.defender_dice != "choose"):
        out.append("a blitz waits for the defender (blitzing) only in the defend phase under defender_dice='choose'")
    if any(not 1 <= x <= 6 for x in s.dice_buf) or any(not 0 <= x <= 6 for x in s.last_roll):
        out.append("dice faces must be 1..6")
    elif s.last_roll and not _roll_shape(s.last_roll):
        out.append(
            f"last_roll={s.last_roll} must be [] (no roll yet) or 1..3 attacker faces, 0, then 1..2 defender faces "
            "(docs/rules.md §4.2)"
        )
    if len(s.setup_left) != n + 1 or any(x < 0 for x in s.setup_left):
        out.append(f"setup_left must hold {n + 1} counts >= 0 (one per seat and the neutral)")
    for f in ("turn", "sets_traded", "to_place", "steps", "att_dice", "last_dice", "setup_step", "dice_pos"):
        v = getattr(s, f)
        if not 0 <= v <= 10**9:
            out.append(f"{f}={v} must be in 0..{10**9}")
    for f, hi in (("att_dice", 3), ("last_dice", 3), ("setup_step", 2)):
        if getattr(s, f) > hi:
            out.append(f"{f}={getattr(s, f)} must be in 0..{hi}")
    if s.turn > game.config.turn_limit:
        out.append(f"turn={s.turn} is past the turn limit {game.config.turn_limit} (turn_limit of these rules)")
    if s.sets_traded > MAX_SETS_TRADED:
        out.append(f"sets_traded={s.sets_traded} must be at most {MAX_SETS_TRADED}")
    total = int(s.armies.astype(np.int64).sum()) + s.to_place + sum(s.setup_left) + s.received
    if total > MAX_ARMIES:
        out.append(f"{total} armies in play (on the board, to place, in setup) is more than the {MAX_ARMIES} allowed")
    if s.dice_pos > len(s.dice_buf):
        out.append(f"dice_pos={s.dice_pos} is past the {len(s.dice_buf)} buffered dice")
    if not -1 <= s.winner < n or any(not 0 <= p < n for p in s.elim_order):
        out.append(f"winner and eliminated players must be seats 0..{n - 1}")
    for sf in STATE_FIELDS:  # a variant's fields keep their defaults under rules without it
        if sf.variant and game.variant(sf.variant) is None and getattr(s, sf.name) != ([] if sf.kind == "ints" else sf.default):
            out.append(f"{sf.name}={getattr(s, sf.name)!r} exists only under the {sf.variant} rules")
    return out


def invariant_violations(game: Game, s: GameState) -> list[str]:
    """The invariants of docs/rules.md §5 that ``s`` breaks (empty if none), plus structural checks."""
    T, n = game.T, game.num_players
    out: list[str] = []
    if s.owner.shape != (T,) or s.armies.shape != (T,):
        return [f"owner and armies must have {T} entries"]
    if len(s.alive) != n or len(s.hands) != n or sorted(s.order) != list(range(n)):
        return [f"alive, hands and order must describe {n} players"]
    if s.phase not in set(Phase):
        out.append(f"unknown phase {s.phase}")
    known = s.phase in set(Phase)
    if known and s.phase != Phase.GAME_OVER and not any(s.phase in spec.phases for spec in game.move_specs.values()):
        out.append(f"these rules have no {PHASE_NAME[Phase(s.phase)]} phase")
    for sf in STATE_FIELDS:  # a variant's lists are empty under rules without it
        if sf.variant and sf.kind == "ints" and game.variant(sf.variant) is None and getattr(s, sf.name):
            out.append(f"{sf.name} must be empty without the {sf.variant} rules")
    for v in game.variants:
        out += v.invariant_violations(s)
    setup = s.phase in (Phase.CLAIM, Phase.SETUP_PLACE)
    unclaimed = s.owner == -1
    if ((s.owner < -1) | (s.owner >= game.num_seats)).any():
        out.append(
            f"an owner is not a seat: owners are 0..{game.num_seats - 1} (-1 only for unclaimed territories in the claim phase)"
        )
    if unclaimed.any() and s.phase != Phase.CLAIM:
        out.append("unclaimed territories after the claim phase")
    if (s.armies[unclaimed] != 0).any():
        out.append("an unclaimed territory holds armies")
    bad = np.flatnonzero(~unclaimed & (s.armies < 1))
    if len(bad):
        out.append(f"territories with fewer than 1 army: {', '.join(game.map.name_of(int(t)) for t in bad)}")
    if game.uses_cards:
        allc = s.deck + s.discard + [c for h in s.hands for c in h]
        if sorted(allc) != list(range(game.num_cards)):
            out.append(f"cards not accounted for: draw pile + discards + hands must be each of the {game.num_cards} cards once")
    elif any(s.hands) or s.deck or s.discard:
        out.append("cards present though these rules have no cards")
    for seat in range(n):
        has = bool((s.owner == seat).any())
        if not setup and s.alive[seat] != has:
            out.append(f"player {seat} is {'alive' if s.alive[seat] else 'dead'} but holds {'some' if has else 'no'} territories")
        if not s.alive[seat] and s.hands[seat]:
            out.append(f"eliminated player {seat} holds cards")
    army_turn = s.player == game.army >= 0  # a variant's army acts (the allied army, §7; checked by the variant)
    if s.phase not in (Phase.GAME_OVER,) and not army_turn and not (0 <= s.player < n and s.alive[s.player]):
        out.append(f"player on turn {s.player} is not a live seat")
    if s.phase == Phase.GAME_OVER and not s.truncated and not 0 <= s.winner < n:
        out.append("game over without a winner or a truncation")
    return out


def continuation_problems(game: Game, s: GameState) -> list[str]:
    """Why the engine could not go on from ``s`` (empty if it can): the seat to act has no legal
    move, a pending battle, conquest or setup placement the rules could not have left, a finished
    game without exactly one winner who has won (or a truncation at the turn limit), a living
    player count that should have ended the game. Assumes :func:`invariant_violations` and
    :func:`field_problems` found nothing."""
    n = game.num_players
    out: list[str] = []
    alive = [p for p in range(n) if s.alive[p]]
    dead = [p for p in range(n) if not s.alive[p]]
    setup = s.phase in (Phase.CLAIM, Phase.SETUP_PLACE)
    if len(set(s.elim_order)) != len(s.elim_order) or sorted(s.elim_order) != dead:
        out.append(f"elim_order {s.elim_order} must list each eliminated seat ({dead}) once")
    if s.eliminated_by and any((s.eliminated_by[p] == -1) != s.alive[p] or s.eliminated_by[p] == p for p in range(n)):
        out.append(f"eliminated_by {s.eliminated_by} must name, for each eliminated seat, another seat (-1 for the living)")
    if (setup or s.phase == Phase.CAPITAL) and (s.turn != 0 or dead or s.winner != -1 or any(s.hands) or s.discard):
        out.append("during setup nobody is eliminated or holds cards, and turn is 0")
    if not setup and any(s.setup_left):
        out.append(f"setup_left {s.setup_left} must be all 0 once the setup is over")
    if game.neutral < 0 and s.setup_left[-1]:
        out.append("setup_left holds armies for a neutral these rules do not have")
    if s.phase == Phase.GAME_OVER:
        return out + _finish_problems(game, s, alive)
    if s.winner != -1 or s.truncated:
        out.append(f"a game in the {PHASE_NAME[Phase(s.phase)]} phase has no winner and is not truncated")
    if len(alive) < 2 and not setup:
        out.append(f"only {len(alive)} player is alive: the game should be over")
    if s.phase not in (Phase.CLAIM, Phase.SETUP_PLACE, Phase.CAPITAL) and s.turn < 1:
        out.append(f"the {PHASE_NAME[Phase(s.phase)]} phase belongs to a game turn (turn >= 1), got turn={s.turn}")
    if (s.att_src < 0) != (s.att_dst < 0):
        out.append(f"att_src={s.att_src} and att_dst={s.att_dst}: a battle has both or neither")
    out += _pending_problems(game, s)
    if not out and not _has_legal_move(game, s):
        out.append(f"the seat to act has no legal move in the {PHASE_NAME[Phase(s.phase)]} phase")
    return out


def _finish_problems(game: Game, s: GameState, alive: list[int]) -> list[str]:
    cfg = game.config
    if s.truncated:
        if s.winner != -1:
            return [f"a truncated game has no winner, got winner={s.winner}"]
        if s.turn < cfg.turn_limit:
            return [f"a game is truncated at the turn limit ({cfg.turn_limit}), not at turn {s.turn}"]
        if len(alive) < 2:
            return ["a game with one player left is won, not truncated"]
        return []
    w = s.winner
    if not s.alive[w]:
        return [f"the winner {w} is eliminated"]
    if len(alive) == 1:
        return []
    if not any(hook(s) is not None for hook in game.hooks["win_text"]):  # a variant's win (a mission, the capitals, §8)
        return [
            f"the winner {w} has live opponents ({', '.join(str(p) for p in alive if p != w)}) and no mission or capitals win"
        ]
    return []


def _pending_problems(game: Game, s: GameState) -> list[str]:
    """A pending setup placement, battle or conquest the rules could not have left (docs/rules.md §3, §4.2)."""
    ph, p = s.phase, s.player
    owner, armies = s.owner, s.armies
    if ph == Phase.CLAIM:
        # the claims still to come go round the claiming cycle from the player on turn, one army each
        unclaimed = int((owner == -1).sum())
        left = unclaimed if not game.claims else game.num_players * game.claims - int((owner >= 0).sum())
        cycle = s.order + ([game.neutral] if game.neutral >= 0 else [])
        if p not in cycle or not 1 <= left <= unclaimed:
            return [f"the claim phase needs claims to come by a player in the claiming order (player {p})"]
        start = cycle.index(p)
        need = [0] * len(s.setup_left)
        for k in range(left):
            seat = cycle[(start + k) % len(cycle)]
            need[-1 if seat == game.neutral else seat] += 1
        short = [seat for seat, k in enumerate(need) if k > s.setup_left[seat]]
        if short:
            return [
                f"the {left} claims to come need setup armies {need} (per seat, the neutral last), "
                f"but setup_left is {s.setup_left}"
            ]
    if ph == Phase.SETUP_PLACE:
        if s.setup_step == 2 and (game.neutral < 0 or s.setup_left[-1] < 1):
            return ["a neutral setup placement (setup_step=2) needs the neutral with armies left to place"]
        if s.setup_step != 2 and s.setup_left[p] < 1:
            return [f"player {p} places a setup army with none left (setup_left {s.setup_left})"]
    a, b = s.att_src, s.att_dst
    if a >= 0 and ph in (Phase.CLAIM, Phase.SETUP_PLACE, Phase.CAPITAL):
        return [f"att_src={a} and att_dst={b}: no battle is fought before the first turn (both -1)"]
    if a >= 0 and b >= 0:  # the pending or the last battle of this turn (a conquest's pair included)
        if not game.adjacency[a, b]:
            return [f"the pending battle {a}->{b} is not across a border"]
        if owner[a] != p:
            return [f"the pending battle's source {a} is not held by the player on turn {p}"]
    hand = len(s.hands[p]) if p < game.num_players else 0
    if s.forced and (ph != Phase.REINFORCE or not game.trades_sets or hand < 5):
        return [f"a forced trade (forced) needs the reinforce phase, sets of cards and 5+ cards in hand (has {hand})"]
    if s.trade_down and (ph != Phase.OCCUPY or not game.trades_sets or hand < game.config.elimination_trade_at):
        return [
            "a trade-down after an elimination (trade_down) waits for the occupation, with at least "
            f"elimination_trade_at={game.config.elimination_trade_at} cards in hand (has {hand})"
        ]
    if ph == Phase.DEFEND:
        d = int(owner[b])
        if game.config.defender_dice != "choose":
            return ["the defend phase exists only under defender_dice='choose'"]
        if d == p or d == game.commanding(s) or d == game.neutral:
            return [f"the pending battle's target {b} is held by {d}, who cannot defend it by choice"]
        if not 1 <= s.att_dice <= min(3, int(armies[a]) - 1):
            return [f"att_dice={s.att_dice} must be 1..{min(3, int(armies[a]) - 1)} (armies on the source - 1, at most 3)"]
    if ph == Phase.OCCUPY and (owner[b] != p or armies[a] < 2):
        return ["an occupation needs the conquered target held by the player on turn and 2+ armies on the source"]
    if s.resume_attack and ph != Phase.REINFORCE:
        return ["resume_attack marks a trade-down in the reinforce phase"]
    return []


def _has_legal_move(game: Game, s: GameState) -> bool:
    """Whether the seat to act has a legal move (:func:`~risk_env.rules.legality.legal_moves`
    is not empty), without enumerating the moves."""
    ph, p, owner = s.phase, s.player, s.owner
    for hook in game.hooks["legal_moves"]:  # a variant's own decision (the capital phase, a waiting roll, §8)
        moves = hook(s)
        if moves is not None:
            return bool(moves)
    if ph == Phase.CLAIM:
        return bool((owner == -1).any())
    if ph == Phase.SETUP_PLACE:
        return bool((owner == (game.neutral if s.setup_step == 2 else p)).any())
    if ph == Phase.REINFORCE:
        if game.can_place(s) and (owner == p).any():
            return True
        if not game.can_trade(s):
            return False
        if game.trade_variant is not None:  # cards traded another way (stars, §6)
            return bool(game.trade_variant.trade_moves(s))
        sym = game.card_symbol
        return any(composition_of([sym[c] for c in trio]) >= 0 for trio in itertools.combinations(s.hands[p], 3))
    return ph in (Phase.ATTACK, Phase.DEFEND, Phase.OCCUPY, Phase.FORTIFY)  # end, dice, an amount, end turn
