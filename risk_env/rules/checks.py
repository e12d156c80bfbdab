"""Checks of a whole position: the invariants of docs/rules.md §5 and the ranges of
the bookkeeping fields, used when a state is restored from a dict
(:meth:`Game.state_from_dict <risk_env.rules.engine.Game.state_from_dict>`) and
by the soak tests after every step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import StateError
from .legality import PHASE_NAME
from .state import STATE_FIELDS, GameState, Phase

if TYPE_CHECKING:
    from .engine import Game

__all__ = ["state_from_dict", "field_problems", "invariant_violations"]


def state_from_dict(game: Game, d: dict[str, Any]) -> GameState:
    """Rebuild a state from :meth:`GameState.to_dict` output and check it.

    Raises:
        StateError: a missing or malformed field, or a state that breaks the rules' invariants.
    """
    try:
        s = GameState.from_dict(d)
    except (KeyError, TypeError, ValueError, OverflowError) as e:
        raise StateError(f"malformed state dict: {type(e).__name__}: {e}") from None
    problems = invariant_violations(game, s) or field_problems(game, s)
    if problems:
        raise StateError("inconsistent state: " + "; ".join(problems))
    return s


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
    if len(s.setup_left) != n + 1 or any(x < 0 for x in s.setup_left):
        out.append(f"setup_left must hold {n + 1} counts >= 0 (one per seat and the neutral)")
    for f in ("turn", "sets_traded", "to_place", "steps", "att_dice", "last_dice", "setup_step", "dice_pos"):
        v = getattr(s, f)
        if not 0 <= v <= 10**9:
            out.append(f"{f}={v} must be in 0..{10**9}")
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
