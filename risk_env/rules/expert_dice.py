"""The expert dice rules (``reroll_with_card=True``, ``die_to_six=True``, docs/rules.md §8).

After an attacker's roll that it may still change, the roll waits
(``GameState.roll_pending``) before the losses are taken: the attacker may re-roll one of
its dice once per battle (a run of rolls on one source-target pair) when it holds the card
of the attacking or the attacked territory (``reroll die=<j>``), turn one of its dice into a
six once per turn (``six die=<j>``), or let the roll stand (``keep roll``). ``die=j`` names
the ``j``-th highest attack die. Each re-roll or six spends its rule, so a waiting roll
settles after at most three decisions. A blitz never uses them, and neither does an army
that is not a player's (the allied army, §7: its rolls stand as drawn).

The action ids: 3 re-roll ids (``reroll_with_card``), 3 six ids (``die_to_six``) and one
"keep roll" id, before the last id; the observation gains the ``dice_rules`` block.

Every hook through which the rest of the package asks the variant is a method of
:class:`ExpertDice`.

>>> from risk_env import ActionCodec, Game
>>> codec = ActionCodec(Game(num_players=3, reroll_with_card=True, die_to_six=True))
>>> codec.reroll, codec.six, codec.keep, codec.end
(69, 72, 75, 76)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .config import RulesConfig
from .moves import MOVES, Move, MoveKind
from .state import GameState, Phase
from .variant import Variant

__all__ = ["ExpertDice", "DIE_IDS"]

DIE_IDS = 3
"""Ids of each of the ``reroll`` and ``six`` blocks: one per attack die (highest first)."""

_KINDS = (MoveKind.REROLL, MoveKind.SIX, MoveKind.KEEP_ROLL)


class ExpertDice(Variant):
    """``reroll_with_card`` and ``die_to_six`` (docs/rules.md §8); see the module docstring."""

    name = "expert_dice"
    section = "§8"
    rank = 20
    moves = tuple(MOVES[k] for k in _KINDS)

    @staticmethod
    def applies(config: RulesConfig) -> bool:
        return config.reroll_with_card or config.die_to_six

    def can_reroll(self, s: GameState) -> bool:
        """Whether the attacker may re-roll one die of the pending roll now: ``reroll_with_card``,
        not yet used in this battle, and the attacker holds the card of the source or of the target."""
        if not (self.game.config.reroll_with_card and s.roll_pending) or s.reroll_used:
            return False
        hand = s.hands[s.player]
        return s.att_src in hand or s.att_dst in hand

    def can_six(self, s: GameState) -> bool:
        """Whether the attacker may turn one die of the pending roll into a six now: ``die_to_six``,
        not yet used this turn, and a die below six."""
        return self.game.config.die_to_six and s.roll_pending and not s.six_used and any(f < 6 for f in s.last_roll[: s.att_dice])

    # ------------------------------------------------------------------ the roll
    def begin_turn(self, s: GameState) -> None:
        s.reroll_used = s.six_used = False  # a turn's six, and the first battle's re-roll

    def new_battle(self, s: GameState, move: Move) -> None:
        """A re-roll is once per battle: a run of rolls on one pair (a blitz is a battle of its own)."""
        if move.kind == MoveKind.BLITZ or (move.src, move.dst) != (s.att_src, s.att_dst):
            s.reroll_used = False

    def waiting_text(self, s: GameState) -> str | None:
        return "the roll waits: re-roll, six or keep" if s.roll_pending else None

    def decision_text(self, s: GameState, short: bool = False) -> str | None:
        if not s.roll_pending:
            return None
        if short:
            return "re-roll, six or keep"
        att = s.att_dice
        rolled = f"{' '.join(map(str, s.last_roll[:att]))} against {' '.join(map(str, s.last_roll[att + 1 :]))}"
        options = (["re-roll one die"] if self.can_reroll(s) else []) + (["turn one into a six"] if self.can_six(s) else [])
        return f"your roll {rolled} waits: {', '.join(options)} or keep it"

    def draws_roll(self, s: GameState, defender_dice: int) -> bool:
        """A player's roll is drawn and waits while the attacker may still change it."""
        game = self.game
        if s.player >= game.num_players:  # a variant's army (the allied army): its rolls stand as drawn
            return False
        att = s.att_dice
        faces = game.draw_dice(s, att + defender_dice)
        s.last_roll = sorted(faces[:att], reverse=True) + [0] + sorted(faces[att:], reverse=True)
        s.last_dice = att
        s.roll_pending = True
        self._settle_unless_options(s)
        return True

    def _settle_unless_options(self, s: GameState) -> None:
        if not (self.can_reroll(s) or self.can_six(s)):
            s.roll_pending = False
            self.game.take_losses(s)

    def apply(self, s: GameState, move: Move) -> None:
        k = move.kind
        if k == MoveKind.KEEP_ROLL:
            s.roll_pending = False
            self.game.take_losses(s)
            return
        att = s.att_dice
        faces = s.last_roll[:att]
        if k == MoveKind.REROLL:
            faces[move.count - 1] = self.game.draw_dice(s, 1)[0]
            s.reroll_used = True
        else:
            faces[move.count - 1] = 6
            s.six_used = True
        s.last_roll = sorted(faces, reverse=True) + s.last_roll[att:]
        self._settle_unless_options(s)

    # ------------------------------------------------------------------ legality
    def precheck(self, s: GameState, move: Move) -> str | None:
        if s.roll_pending and move.kind not in _KINDS:
            att = s.att_dice
            roll = f"{s.last_roll[:att]} against {s.last_roll[att + 1 :]}"
            return f"your roll {roll} waits: 'reroll die=<j>', 'six die=<j>' or 'keep roll'"
        return None

    def check_move(self, s: GameState, move: Move) -> str | None:
        k = move.kind
        if not s.roll_pending:
            return MOVES[k].wrong_phase
        if k == MoveKind.KEEP_ROLL:
            return None
        if k == MoveKind.REROLL and not self.can_reroll(s):
            return "no re-roll: one per battle, when you hold the card of the attacking or the attacked territory"
        if k == MoveKind.SIX and not self.can_six(s):
            return "no six: one per turn, and only for a die below six"
        if not 1 <= move.count <= s.att_dice:
            return f"name one of your {s.att_dice} dice: die=1..{s.att_dice} (highest first)"
        if k == MoveKind.SIX and s.last_roll[move.count - 1] == 6:
            return f"die {move.count} shows a six already"
        return None

    def legal_moves(self, s: GameState) -> list[Move] | None:
        """The decisions on a pending roll."""
        if not (s.phase == Phase.ATTACK and s.roll_pending):
            return None
        out: list[Move] = []
        if self.can_reroll(s):
            out.extend(Move.reroll(j) for j in range(1, s.att_dice + 1))
        if self.can_six(s):
            out.extend(Move.six(j) for j in range(1, s.att_dice + 1) if s.last_roll[j - 1] < 6)
        out.append(Move.keep_roll())
        return out

    def invariant_violations(self, s: GameState) -> list[str]:
        if not s.roll_pending:
            return []
        att, roll = s.att_dice, s.last_roll
        T = len(s.owner)
        ok = s.phase == Phase.ATTACK and 0 <= s.att_src < T and 0 <= s.att_dst < T and 1 <= att <= 3
        ok = ok and att + 2 <= len(roll) <= att + 3 and roll[att] == 0
        ok = ok and all(1 <= f <= 6 for f in roll[:att] + roll[att + 1 :])
        if not ok:
            return [
                "a pending roll (roll_pending) needs the attack phase, a battle between two territories, and its roll: "
                "att_dice attacker faces, a 0, then 1 or 2 defender faces (faces 1..6)"
            ]
        a, b = s.att_src, s.att_dst
        defending = len(roll) - att - 1
        if s.owner[b] == s.player or s.armies[a] <= att or s.armies[b] < defending:
            return [
                f"the pending roll of {att} against {defending} dice needs an enemy target with {defending}+ "
                f"armies and {att + 1}+ armies on the source"
            ]
        return []

    # ------------------------------------------------------------------ action ids and observations
    @staticmethod
    def action_blocks(dims: Any) -> Sequence[tuple[str, tuple[int, ...], str]]:
        out = []
        if dims.config.reroll_with_card:
            out.append(("reroll", (DIE_IDS,), "re-roll the j-th highest attack die of the pending roll"))
        if dims.config.die_to_six:
            out.append(("six", (DIE_IDS,), "turn the j-th highest attack die of the pending roll into a six"))
        out.append(("keep", (1,), "let the pending roll stand"))
        return out

    @staticmethod
    def observation_blocks(dims: Any) -> Sequence[tuple[str, tuple[int, ...], str]]:
        return (
            (
                "dice_rules",
                (8,),
                "a roll waits, its re-roll is available, its six is available, the waiting roll's "
                "attacker dice (highest first) and defender dice / 6",
            ),
        )

    def owns_decision(self, s: GameState) -> bool:
        return s.phase == Phase.ATTACK and s.roll_pending

    def _move_of_id(self, codec: Any, a: int) -> Move | None:
        if codec.reroll >= 0 and codec.reroll <= a < codec.reroll + DIE_IDS:
            return Move.reroll(a - codec.reroll + 1)
        if codec.six >= 0 and codec.six <= a < codec.six + DIE_IDS:
            return Move.six(a - codec.six + 1)
        if codec.keep >= 0 and a == codec.keep:
            return Move.keep_roll()
        return None

    def mask(self, codec: Any, s: GameState, sel: Any, m: np.ndarray) -> None:
        att = s.att_dice
        if self.can_reroll(s):
            m[codec.reroll : codec.reroll + att] = 1
        if self.can_six(s):
            for j in range(att):
                m[codec.six + j] = s.last_roll[j] < 6
        m[codec.keep] = 1

    def translate(self, codec: Any, s: GameState, action: int, sel: Any) -> Move | tuple[str, int] | None:
        return self._move_of_id(codec, action)

    def move_to_action(self, codec: Any, s: GameState, move: Move, sel: Any) -> int | None:
        k = move.kind
        if k == MoveKind.KEEP_ROLL:
            return int(codec.keep)
        if k in (MoveKind.REROLL, MoveKind.SIX):
            return int((codec.reroll if k == MoveKind.REROLL else codec.six) + move.count - 1)
        return None

    def action_text(self, codec: Any, s: GameState, action: int, sel: Any) -> str | None:
        move = self._move_of_id(codec, action)
        return None if move is None else self.game.move_to_text(move)

    def id_refusal(self, codec: Any, s: GameState, action: int) -> str | None:
        """Why id ``action`` is illegal now, if it is one of the variant's ids or its decision is pending."""
        if self._move_of_id(codec, action) is not None:
            return "no roll waits for a re-roll or a six" if not s.roll_pending else "that die cannot be changed now"
        if self.owns_decision(s):
            return "your roll waits: re-roll a die, turn one into a six, or keep the roll"
        return None

    def observe(self, encoder: Any, s: GameState, seat: int, out: np.ndarray) -> None:
        if not (s.player == seat and s.phase == Phase.ATTACK):
            return
        cfg = self.game.config
        o = encoder.layout["dice_rules"][0].start
        if s.roll_pending:
            out[o] = 1.0
            att = s.att_dice
            for j, f in enumerate(s.last_roll[:att]):
                out[o + 3 + j] = f / 6.0
            for j, f in enumerate(s.last_roll[att + 1 : att + 3]):
                out[o + 6 + j] = f / 6.0
        # availability for this battle (re-roll) and this turn (six)
        if cfg.reroll_with_card and not s.reroll_used:
            out[o + 1] = 1.0
        if cfg.die_to_six and not s.six_used:
            out[o + 2] = 1.0
