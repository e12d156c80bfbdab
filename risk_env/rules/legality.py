"""Legality: which complete moves the rules allow in a position (docs/rules.md §3, §4, §7).

:func:`check` is the rules' one judge of a :class:`~risk_env.rules.moves.Move`
(it raises :class:`~risk_env.errors.IllegalMoveError` saying why and what is
allowed now), :func:`legal_moves` enumerates every legal move. :class:`Game
<risk_env.rules.engine.Game>` exposes both as methods; the action codec's mask
(:meth:`risk_env.envs.codec.ActionCodec.mask`) is the vectorised form for action
ids and is tested equal to :func:`legal_moves`.

A move is judged in this order: its kind is one these rules have, it uses only its
kind's fields, the game is not over, its phase is one of its kind's
(:data:`risk_env.rules.moves.MOVES`), no variant forbids it now
(:meth:`Variant.precheck <risk_env.rules.variant.Variant.precheck>`), then its kind's own
conditions: the core kinds' here, a variant's kinds by the variant
(:meth:`Variant.check_move <risk_env.rules.variant.Variant.check_move>`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import numpy as np

from ..errors import IllegalMoveError, StateError
from .cards import composition_of
from .moves import FIELD_DEFAULTS, MOVES, Move, MoveKind, MoveSpec
from .notation import move_to_text
from .state import GameState, Phase

if TYPE_CHECKING:
    from .engine import Game

__all__ = ["check", "check_fits", "legal_moves", "illegal", "hand_text", "PHASE_NAME", "PHASE_ALLOWED"]

PHASE_NAME = {p: p.name.lower().replace("_", " ") for p in Phase}
"""Each phase's name in messages (``"setup place"``)."""

PHASE_ALLOWED = {
    Phase.CLAIM: "'claim <territory>' of an unclaimed territory",
    Phase.SETUP_PLACE: (
        "'place <own territory> 1' (or, for the neutral's army in a 2-player setup, 'neutral <neutral territory>')"
    ),
    Phase.REINFORCE: (
        "'trade <card>, <card>, <card> [bonus=<territory>]' of a set in hand (stars rules: 'trade stars=<2..10>'), "
        "or 'place <own territory> <armies>'"
    ),
    Phase.ATTACK: (
        "'attack <own>-><adjacent enemy> dice=<1..3>', 'blitz <own>-><adjacent enemy>', or 'end attack' "
        "(expert dice rules, after a roll: 'reroll die=<j>', 'six die=<j>' or 'keep roll')"
    ),
    Phase.DEFEND: "'defend dice=<1..2>'",
    Phase.OCCUPY: "'occupy <armies>'",
    Phase.FORTIFY: "'fortify <own>-><own> <armies>' or 'end turn'",
    Phase.GAME_OVER: "nothing: the game is over",
    Phase.CAPITAL: "'capital <own territory>'",
}
"""What each phase allows, in move notation (the tail of every illegal-move message)."""


def hand_text(game: Game, hand: Iterable[int]) -> str:
    """Card names of ``hand``, for messages."""
    return ", ".join(game.map.card_name(c) for c in sorted(hand)) or "no cards"


def illegal(game: Game, s: GameState, move: Move, why: str) -> IllegalMoveError:
    """The error for ``move`` in ``s``: its text, the phase, ``why``, and what the phase allows."""
    try:
        text = move_to_text(game.map, move)
    except ValueError:
        text = repr(move)
    ph = Phase(s.phase)
    return IllegalMoveError(f"{text!r} is not legal in the {PHASE_NAME[ph]} phase: {why}. Allowed now: {PHASE_ALLOWED[ph]}")


def _bad_territory(game: Game, t: object) -> str | None:
    if not isinstance(t, (int, np.integer)) or not 0 <= t < game.T:
        return f"territory id {t!r} is not in 0..{game.T - 1}"
    return None


def _whose(game: Game, s: GameState, purpose: str) -> str:
    for hook in game.hooks["whose"]:
        text = hook(s, purpose)
        if text is not None:
            return text
    return "yours"


def _what(x: object) -> str:
    return f"{type(x).__name__} {x!r:.60}"


def _dict_hint(x: object) -> str:
    return " (a position's dict form, GameState.to_dict(), is read by Game.state_from_dict)" if isinstance(x, dict) else ""


def check_fits(game: Game, s: GameState) -> None:
    """Refuse a position of another game: its territories and players are counted by lengths alone (cheap, at every
    move); the whole-position checks are :meth:`Game.invariant_violations <risk_env.rules.engine.Game.invariant_violations>`.

    Raises:
        StateError: ``s`` is no :class:`GameState` (a position's dict form is read by
            :meth:`Game.state_from_dict <risk_env.rules.engine.Game.state_from_dict>`), or has another number of
            territories or players than ``game``'s map and rules.
    """
    if not isinstance(s, GameState):
        raise StateError(f"a position is a GameState, got {_what(s)}{_dict_hint(s)}")
    if len(s.owner) != game.T or len(s.hands) != game.num_players:
        t, n = len(s.owner), len(s.hands)
        raise StateError(
            f"this position has {t} territor{'y' if t == 1 else 'ies'} and {n} player{'' if n == 1 else 's'}; this game "
            f"has {game.T} territories (map {game.map.name!r}) and {game.num_players} players: play a position with the "
            "Game of the rules that made it"
        )


def check(game: Game, s: GameState, move: Move) -> None:
    """Raise :class:`IllegalMoveError` (saying why and what is allowed) unless ``move`` is legal in ``s``.

    Raises:
        IllegalMoveError: ``move`` is not a :class:`Move`, or not legal in ``s``.
        StateError: ``s`` is a position of another map or player count (:func:`check_fits`).
    """
    check_fits(game, s)
    if not isinstance(move, Move):
        raise IllegalMoveError(f"expected a Move, got {type(move).__name__}: {move!r}")
    k = move.kind
    spec = game.move_spec(k)
    known = spec if spec is not None else MOVES.get(k)
    if known is None:
        raise IllegalMoveError(f"unknown move kind {k!r}; kinds: {', '.join(m.name for m in MoveKind)}")
    for f, default in FIELD_DEFAULTS:
        if f not in known.fields and getattr(move, f) != default:
            raise IllegalMoveError(f"a {MoveKind(k).name} move takes no {f!r} (got {getattr(move, f)!r}): {move!r}")
    if s.phase == Phase.GAME_OVER:
        raise illegal(game, s, move, "the game is over")
    if spec is None:  # a kind these rules do not have (a variant's)
        raise illegal(game, s, move, known.absent)
    if s.phase not in spec.phases:
        raise illegal(game, s, move, spec.wrong_phase)
    for hook in game.hooks["precheck"]:
        why = hook(s, move)
        if why is not None:
            raise illegal(game, s, move, why)
    for f in ("src", "dst"):
        if f in spec.fields and spec.kind != MoveKind.TRADE:
            why = _bad_territory(game, getattr(move, f))
            if why is not None:
                raise illegal(game, s, move, why)
    owner = game.kind_owner(k)
    why = owner.check_move(s, move) if owner is not None else _CHECKS[k](game, s, move, spec)
    if why is not None:
        raise illegal(game, s, move, why)


# ---------------------------------------------------------------------- the core kinds' own conditions
def _claim(game: Game, s: GameState, move: Move, spec: MoveSpec) -> str | None:
    if s.owner[move.src] != -1:
        return f"{game.map.name_of(move.src)} is already claimed"
    return None


def _place(game: Game, s: GameState, move: Move, spec: MoveSpec) -> str | None:
    p = s.player
    if s.phase == Phase.SETUP_PLACE:
        if s.setup_step >= 2:
            return "this setup turn places a neutral army next"
        if s.owner[move.src] != p:
            return f"{game.map.name_of(move.src)} is not yours"
        if move.count != 1:
            return "setup places one army at a time"
        return None
    if s.forced:
        return f"you hold {len(s.hands[p])} cards and must trade first"
    if s.owner[move.src] != p:
        return f"{game.map.name_of(move.src)} is not {_whose(game, s, 'place')}"
    if not 1 <= move.count <= s.to_place:
        return f"you have {s.to_place} armies to place; place 1..{s.to_place}"
    return None


def _place_neutral(game: Game, s: GameState, move: Move, spec: MoveSpec) -> str | None:
    if s.setup_step != 2:
        return spec.wrong_phase
    if s.owner[move.src] != game.neutral:
        return f"{game.map.name_of(move.src)} is not neutral"
    if move.count != 1:
        return "the neutral gets one army at a time"
    return None


def _trade(game: Game, s: GameState, move: Move, spec: MoveSpec) -> str | None:
    if not game.can_trade(s):
        return spec.wrong_phase
    if game.trade_variant is not None:  # cards traded another way (stars, docs/rules.md §6)
        return game.trade_variant.check_trade(s, move)
    cards = move.cards
    hand = s.hands[s.player]
    if len(cards) != 3 or len(set(cards)) != 3 or any(c not in hand for c in cards):
        return f"a trade names three different cards from your hand ({hand_text(game, hand)})"
    if composition_of([game.card_symbol[c] for c in cards]) < 0:
        return "those cards are not a set (three of a kind, one of each, or two plus a wild)"
    cands = game.bonus_candidates(s, cards)
    if cands and move.bonus not in cands:
        names = ", ".join(game.map.name_of(c) for c in cands)
        return f"choose the +2 bonus territory: bonus= one of {names}"
    if not cands and move.bonus != -1:
        return "no +2 territory bonus is available for this trade"
    return None


def _attack(game: Game, s: GameState, move: Move, spec: MoveSpec) -> str | None:
    a, b = move.src, move.dst
    name = game.map.name_of
    if s.owner[a] != s.player:
        return f"{name(a)} is not {_whose(game, s, 'attack')}"
    if s.armies[a] < 2:
        return f"{name(a)} has 1 army; attacking needs at least 2"
    if not game.adjacency[a, b]:
        return f"{name(a)} and {name(b)} do not share a border"
    if s.owner[b] == s.player:
        return f"{name(b)} is yours"
    if not game.attackable(s)[b]:
        return f"{name(b)} may not be attacked now: {_whose(game, s, 'target')}"
    if move.kind == MoveKind.ATTACK:
        most = min(3, int(s.armies[a]) - 1)
        if not 1 <= move.count <= most:
            return f"roll 1..{most} dice from {name(a)} ({s.armies[a]} armies)"
    return None


def _defend(game: Game, s: GameState, move: Move, spec: MoveSpec) -> str | None:
    most = min(2, int(s.armies[s.att_dst]))
    if not 1 <= move.count <= most:
        return f"defend with 1..{most} dice"
    return None


def _occupy(game: Game, s: GameState, move: Move, spec: MoveSpec) -> str | None:
    lo, hi = game.occupy_range(s)
    if not lo <= move.count <= hi:
        return f"move {lo}..{hi} armies into {game.map.name_of(s.att_dst)}"
    return None


def _fortify(game: Game, s: GameState, move: Move, spec: MoveSpec) -> str | None:
    a, b = move.src, move.dst
    p = s.player
    name = game.map.name_of
    if s.owner[a] != p or s.owner[b] != p:
        return "both territories must be yours"
    if not game.fortify_reach(s, a)[b]:
        how = "share a border" if game.config.fortify == "adjacent" else "be joined through your territories"
        return f"{name(a)} and {name(b)} must {how}"
    most = int(s.armies[a]) - 1
    if not 1 <= move.count <= most:
        return f"move 1..{most} armies (one must stay)" if most else f"{name(a)} has 1 army"
    return None


def _nothing(game: Game, s: GameState, move: Move, spec: MoveSpec) -> str | None:
    return None


_CHECKS: dict[MoveKind, Callable[[Game, GameState, Move, MoveSpec], str | None]] = {
    MoveKind.CLAIM: _claim,
    MoveKind.PLACE: _place,
    MoveKind.PLACE_NEUTRAL: _place_neutral,
    MoveKind.TRADE: _trade,
    MoveKind.ATTACK: _attack,
    MoveKind.BLITZ: _attack,
    MoveKind.END_ATTACK: _nothing,
    MoveKind.DEFEND: _defend,
    MoveKind.OCCUPY: _occupy,
    MoveKind.FORTIFY: _fortify,
    MoveKind.END_TURN: _nothing,
}
"""The own conditions of each core kind (its phase holds): why the move is illegal, or None."""


# ---------------------------------------------------------------------- every legal move
def legal_moves(game: Game, s: GameState) -> list[Move]:
    """Every legal move in ``s`` (complete moves; counts enumerated one by one).

    Raises:
        StateError: ``s`` is a position of another map or player count (:func:`check_fits`).
    """
    check_fits(game, s)
    for hook in game.hooks["legal_moves"]:
        moves = hook(s)
        if moves is not None:
            return moves
    ph = s.phase
    p = s.player
    owner = s.owner
    out: list[Move] = []
    if ph == Phase.CLAIM:
        return [Move.claim(int(t)) for t in np.flatnonzero(owner == -1)]
    if ph == Phase.SETUP_PLACE:
        if s.setup_step == 2:
            return [Move.place_neutral(int(t)) for t in np.flatnonzero(owner == game.neutral)]
        return [Move.place(int(t), 1) for t in np.flatnonzero(owner == p)]
    if ph == Phase.REINFORCE:
        if game.can_trade(s) and game.trade_variant is not None:
            out.extend(game.trade_variant.trade_moves(s))
        elif game.can_trade(s):
            for trio in itertools.combinations(sorted(s.hands[p]), 3):
                if composition_of([game.card_symbol[c] for c in trio]) >= 0:
                    cands = game.bonus_candidates(s, trio)
                    out.extend(Move.trade(trio, b) for b in (cands or [-1]))
        if game.can_place(s):
            for t in np.flatnonzero(owner == p):
                out.extend(Move.place(int(t), n) for n in range(1, s.to_place + 1))
        return out
    if ph == Phase.ATTACK:
        for a in np.flatnonzero((owner == p) & (s.armies >= 2)).tolist():
            for b in game.attack_targets(s, a):
                out.extend(Move.attack(a, b, d) for d in range(1, min(3, int(s.armies[a]) - 1) + 1))
                out.append(Move.blitz(a, b))
        out.append(Move.end_attack())
        return out
    if ph == Phase.DEFEND:
        return [Move.defend(d) for d in range(1, min(2, int(s.armies[s.att_dst])) + 1)]
    if ph == Phase.OCCUPY:
        lo, hi = game.occupy_range(s)
        return [Move.occupy(n) for n in range(lo, hi + 1)]
    if ph == Phase.FORTIFY:
        for a in np.flatnonzero((owner == p) & (s.armies >= 2)).tolist():
            for b in np.flatnonzero(game.fortify_reach(s, a)).tolist():
                out.extend(Move.fortify(a, int(b), n) for n in range(1, int(s.armies[a])))
        out.append(Move.end_turn())
        return out
    return out
