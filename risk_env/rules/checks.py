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
from .missions import MISSIONS
from .state import GameState, Phase

if TYPE_CHECKING:
    from .engine import Game

__all__ = ["state_from_dict", "position_from", "field_problems", "invariant_violations"]


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
    if s.roll_pending:
        att, roll = s.att_dice, s.last_roll
        ok = s.phase == Phase.ATTACK and s.att_src >= 0 and s.att_dst >= 0 and 1 <= att <= 3
        ok = ok and att + 2 <= len(roll) <= att + 3 and roll[att] == 0
        ok = ok and all(1 <= f <= 6 for f in roll[:att] + roll[att + 1 :])
        if not ok:
            out.append(
                "a pending roll (roll_pending) needs the attack phase, a battle, and its roll: "
                "att_dice attacker faces, a 0, then 1 or 2 defender faces (faces 1..6)"
            )
    if s.blitzing and (s.phase != Phase.DEFEND or game.config.defender_dice != "choose"):
        out.append("a blitz waits for the defender (blitzing) only in the defend phase under defender_dice='choose'")
    if s.roll_pending and not (game.config.reroll_with_card or game.config.die_to_six):
        out.append("a pending roll exists only under the expert dice rules (reroll_with_card, die_to_six)")
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
    if any(not 0 <= m < len(MISSIONS) for m in s.missions):
        out.append(f"missions must be mission indices 0..{len(MISSIONS) - 1}")
    if any(not -1 <= t < T for t in s.capitals):
        out.append(f"capitals must be territory ids 0..{T - 1} (or -1 while not chosen)")
    if game.allied < 0 and (s.received or s.commander != -1):
        out.append("received and commander exist only under two_player='allied' (docs/rules.md §7)")
    if s.received < 0:
        out.append(f"received={s.received} must be >= 0")
    if any(not -1 <= p < n for p in s.eliminated_by):
        out.append(f"eliminated_by must hold seats 0..{n - 1} (or -1)")
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
    cfg = game.config
    k = n if cfg.secret_missions else 0
    if len(s.missions) != k or len(s.eliminated_by) != k:
        out.append(f"missions and eliminated_by must hold {k} entries (secret_missions={cfg.secret_missions})")
    if len(s.capitals) != (n if cfg.capitals else 0):
        out.append(f"capitals must hold {n if cfg.capitals else 0} entries (capitals={cfg.capitals})")
    elif cfg.capitals and s.turn >= 1 and -1 in s.capitals:
        out.append("a capital is still to be chosen after the first turn began")
    if s.phase == Phase.CAPITAL and (not cfg.capitals or s.capitals[s.player] != -1):
        out.append("the capital phase needs capitals=True and a player on turn without a capital")
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
    allied_turn = game.allied_acting(s)
    if allied_turn:  # the allied army's sub-turn (docs/rules.md §7)
        if s.phase not in (Phase.REINFORCE, Phase.ATTACK, Phase.DEFEND, Phase.OCCUPY, Phase.GAME_OVER):
            out.append(f"the allied army acts only in the reinforce, attack, defend and occupy phases, not {s.phase}")
        if not (0 <= s.commander < n and s.alive[s.commander]):
            out.append(f"the allied army acts but its commander {s.commander} is not a live seat")
    elif s.commander != -1:
        out.append(f"commander={s.commander} is set outside the allied army's sub-turn")
    if s.phase not in (Phase.GAME_OVER,) and not allied_turn and not (0 <= s.player < n and s.alive[s.player]):
        out.append(f"player on turn {s.player} is not a live seat")
    if s.phase == Phase.GAME_OVER and not s.truncated and not 0 <= s.winner < n:
        out.append("game over without a winner or a truncation")
    return out
