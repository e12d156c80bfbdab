"""The soak test's checks: the army ledger and invariants of every action id
(:class:`StepChecker`), and the documented end-of-game rewards (:func:`expected_rewards`).

:mod:`risk_env.tools.soak` runs them on very many games; the module docstring
there lists every check.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ..envs.aec import raw_env
from ..rules.moves import Move, MoveKind
from ..rules.state import GameState, Phase

__all__ = ["SoakFailure", "StepChecker", "expected_rewards", "live_state"]


def live_state(env: raw_env) -> GameState:
    """The env's game state (the soak only reads it after ``reset``)."""
    return cast(GameState, env.game_state)


class SoakFailure(Exception):
    """A broken invariant or rule found by the soak (the message says which)."""


def expected_rewards(env: raw_env) -> dict[str, float]:
    """The summed rewards each agent should have collected in a finished game: the
    engine's returns (:meth:`Game.outcome <risk_env.rules.engine.Game.outcome>`,
    docs/rules.md §4.5) by agent name.

    +1 for the winner, -1 for each other player (eliminated, or alive when a secret
    mission or the capitals end the game, docs/rules.md §8); at truncation the
    survivors get 0 (``"draw"``) or their rank reward (``"rank"``).
    """
    returns = env.game.outcome(live_state(env)).returns
    return {a: returns[seat] for seat, a in enumerate(env.possible_agents)}


class StepChecker:
    """Checks one action id of a game: call :meth:`before` with the id, step, then :meth:`after`.

    Raises:
        SoakFailure: an invariant or the army ledger is broken (the message says how).
    """

    def __init__(self, env: raw_env) -> None:
        self.env = env
        self.game = env.game
        self.codec = env.codec
        cfg = env.rules
        g = self.game
        # armies on the board after setup: the starting armies (set by RulesConfig from the table) of every
        # player and the neutral, or the allied army's 2 armies a territory (docs/rules.md §3, §7)
        seats = g.num_players + (1 if g.neutral >= 0 else 0)
        self.pool = int(cfg.starting_armies or 0) * seats + (2 * (g.T - g.num_players * g.allied_claims) if g.allied >= 0 else 0)
        self.turn_limit = cfg.turn_limit

    def before(self, action: int) -> None:
        s = live_state(self.env)
        self.decoded = self.codec.decode(s, action, self.env.selection)  # raises IllegalActionError for an illegal id
        self.total = int(s.armies.sum())
        self.to_place = int(s.to_place)
        self.setup_left = sum(s.setup_left)
        self.owner = s.owner.copy()
        self.armies = s.armies.copy()
        self.phase = int(s.phase)
        self.player = int(s.player)
        self.att_dice = int(s.att_dice)
        self.value = 0
        m = self.decoded
        if isinstance(m, Move):
            if m.kind == MoveKind.TRADE:
                self.value = self.game.trade_move_value(s, m)
            elif m.kind == MoveKind.ATTACK:
                self.def_dice = min(2, int(s.armies[m.dst]))

    def after(self) -> None:
        s = live_state(self.env)
        m = self.decoded
        if not isinstance(m, Move):
            # a selection (sub-step) may change only the codec's pending selection: with the
            # board, the phase and the player unchanged, the invariants checked after the
            # last complete move still hold
            if (
                not np.array_equal(self.armies, s.armies)
                or not np.array_equal(self.owner, s.owner)
                or s.to_place != self.to_place
                or s.phase != self.phase
                or s.player != self.player
            ):
                raise SoakFailure(f"the selection {m!r} changed more than the selection")
            return
        problems = self.game.invariant_violations(s)
        if problems:
            raise SoakFailure("invariants: " + "; ".join(problems))
        total = int(s.armies.sum())
        lost = self.total - total
        k = m.kind
        if self.phase in (Phase.CLAIM, Phase.SETUP_PLACE):
            # the last claim under the allied army's rules hands the rest to it, 2 armies each (§7)
            handed = 2 * int((s.owner == self.game.allied).sum()) if k == MoveKind.CLAIM and self.game.allied >= 0 else 0
            if total + sum(s.setup_left) != self.total + self.setup_left + handed:
                raise SoakFailure(f"setup {k.name}: armies on the board + armies to place changed")
            if s.phase not in (Phase.CLAIM, Phase.SETUP_PLACE) and total != self.pool:
                raise SoakFailure(f"setup ended with {total} armies on the board, expected {self.pool}")
        elif k == MoveKind.PLACE:
            if lost != -m.count or (s.phase == Phase.REINFORCE and s.to_place != self.to_place - m.count):
                raise SoakFailure(f"placing {m.count} added {-lost} armies")
        elif k == MoveKind.TRADE:
            if lost != (-2 if m.bonus >= 0 else 0):
                raise SoakFailure(f"a trade changed the board by {-lost} armies")
            placed_next = s.to_place if s.phase == Phase.REINFORCE else 0
            if s.phase == Phase.REINFORCE and placed_next != self.to_place + self.value:
                raise SoakFailure(f"a set worth {self.value} left {placed_next} to place (had {self.to_place})")
        elif k == MoveKind.BLITZ and s.phase == Phase.DEFEND:  # a blitz waits for the defender's dice
            if lost:
                raise SoakFailure("a blitz awaiting the defender changed the board")
        elif k in (MoveKind.ATTACK, MoveKind.DEFEND):
            if s.phase == Phase.DEFEND and k == MoveKind.ATTACK:  # the defender chooses next: nothing rolled yet
                if lost:
                    raise SoakFailure("an attack awaiting the defender changed the board")
                return
            if s.roll_pending:  # the expert dice rules: the roll waits for the attacker's decision
                if lost:
                    raise SoakFailure("a roll waiting for a re-roll or a six changed the board")
                return
            roll = s.last_roll
            cut = roll.index(0)
            att, dfd = roll[:cut], roll[cut + 1 :]
            want_att = m.count if k == MoveKind.ATTACK else self.att_dice
            want_def = self.def_dice if k == MoveKind.ATTACK else m.count
            if len(att) != want_att or len(dfd) != want_def:
                raise SoakFailure(f"rolled {len(att)} v {len(dfd)} dice, expected {want_att} v {want_def}")
            if lost != min(want_att, want_def):
                raise SoakFailure(f"a roll of {want_att} v {want_def} dice removed {lost} armies")
        elif k in (MoveKind.REROLL, MoveKind.SIX, MoveKind.KEEP_ROLL):
            if s.roll_pending:
                if lost or k == MoveKind.KEEP_ROLL:
                    raise SoakFailure(f"{k.name}: the roll still waits but the board changed by {-lost}")
                return
            cut = s.last_roll.index(0)
            if lost != min(cut, len(s.last_roll) - cut - 1):
                raise SoakFailure(f"a settled roll {s.last_roll} removed {lost} armies")
        elif k == MoveKind.BLITZ:
            if lost < 1:
                raise SoakFailure(f"a blitz removed {lost} armies")
        elif lost:
            raise SoakFailure(f"{k.name} changed the armies on the board by {-lost}")
        elif k == MoveKind.END_ATTACK and s.commander >= 0 and self.player != s.player:  # the allied sub-turn (§7)
            if s.to_place != s.received // 2 and not (s.to_place == 0 and s.phase == Phase.ATTACK):
                raise SoakFailure(f"the allied army got {s.to_place} armies; the mover received {s.received}")
        if s.turn > self.turn_limit:
            raise SoakFailure(f"turn {s.turn} is past the turn limit {self.turn_limit}")
