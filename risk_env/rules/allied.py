"""The allied army of the 1975 two-player rules (``two_player="allied"``, docs/rules.md §7).

Each player claims (or is dealt) a third of the map, ``T // 3`` territories (14 on the
classic map); the rest goes to the allied army with :data:`ALLIED_START_ARMIES` armies
each, and the players then place their remaining armies one at a time, in turn, as in the
standard setup. The allied army is owner id 2 (:attr:`Game.army
<risk_env.rules.engine.Game.army>`), never a player: after the mover's attacks its opponent
(``GameState.commander``) places half of what the mover received that turn (rounded down)
on allied territories and attacks the mover with them, through the same action ids as its
own turn; the player not attacking rolls for allied defenders. The allied army draws no
cards, never fortifies, is never eliminated, and stops growing once it holds nothing.

Every hook through which the rest of the package asks the variant is a method of
:class:`AlliedArmy`; :func:`allied_move` is the scripted agents' default for commanding it.

>>> from risk_env import Game
>>> game = Game(num_players=2, two_player="allied", setup="random")
>>> s = game.new_game(seed=0)
>>> [int((s.owner == seat).sum()) for seat in range(3)], game.army
([14, 14, 14], 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from ..errors import ConfigError, RiskError
from .config import RulesConfig
from .moves import Move
from .state import GameState, Phase
from .variant import Variant

__all__ = ["ALLIED_START_ARMIES", "AlliedArmy", "allied_move"]

ALLIED_START_ARMIES = 2
"""Armies on each allied territory at the start (docs/rules.md §7: 14 territories, 28 armies)."""


class AlliedArmy(Variant):
    """``two_player="allied"`` (docs/rules.md §7); see the module docstring."""

    name = "allied"
    section = "§7"
    rank = 50

    @staticmethod
    def applies(config: RulesConfig) -> bool:
        return config.has_allied

    def claims(self) -> int:
        return self.game.T // 3  # a third of the map each (§7)

    def check(self) -> None:
        game = self.game
        T, claims, start = game.T, game.T // 3, game.starting_armies
        if claims < 1 or start < claims:
            raise ConfigError(
                f"two_player='allied' needs a map of at least 3 territories and starting_armies >= {max(1, claims)} "
                f"(each player claims a third of the map, docs/rules.md §7); map {game.map.name!r} has {T} territories, "
                f"starting_armies={game.config.starting_armies}"
            )

    def acting(self, s: GameState) -> bool:
        """Whether the allied army acts now (its sub-turn: placing, attacking, occupying, or
        waiting for a defender's dice), decided by ``s.commander`` (docs/rules.md §7)."""
        return s.player == self.game.army

    def reinforcement(self, s: GameState) -> int:
        """Armies the allied army gets in the current turn: half of what the player on turn
        received this turn (``s.received``: income, set values and +2 bonuses), rounded
        down (9 -> 4), and 0 once the allied army holds no territory (docs/rules.md §7)."""
        if not (s.owner == self.game.army).any():
            return 0
        return s.received // 2

    # ------------------------------------------------------------------ setup
    def after_claims(self, s: GameState) -> None:
        """Every territory the two players did not claim goes to the allied army, with
        :data:`ALLIED_START_ARMIES` armies each."""
        rest = s.owner == -1
        s.owner[rest] = self.game.army
        s.armies[rest] = ALLIED_START_ARMIES

    # ------------------------------------------------------------------ turn flow
    def begin_turn(self, s: GameState) -> None:
        s.received = s.to_place  # the allied army's half is counted from it

    def received(self, s: GameState, armies: int) -> None:
        s.received += armies

    def end_attack(self, s: GameState) -> bool:
        """After the mover's attacks the opponent places the allied reinforcement, then may attack
        with the allied army (without allied territories, straight to the fortify); after the
        allied attacks, the mover fortifies."""
        game = self.game
        if self.acting(s):
            s.player = next(q for q in s.order if q != s.commander)
            s.commander = -1
            s.att_src = s.att_dst = -1
            s.att_dice = 0
            s.phase = Phase.FORTIFY
            return True
        if not (s.owner == game.army).any():
            return False
        p = s.player
        s.commander = next(q for q in s.order if q != p and s.alive[q])
        s.to_place = self.reinforcement(s)
        s.player = game.army
        s.att_src = s.att_dst = -1
        s.att_dice = 0
        s.phase = Phase.REINFORCE
        game.end_reinforce_if_done(s)
        return True

    def decider(self, s: GameState) -> int | None:
        """The opponent of the mover commands the allied army; the player not attacking rolls for
        an allied defender."""
        if s.phase == Phase.DEFEND:
            if int(s.owner[s.att_dst]) == self.game.army:
                return next(q for q in s.order if q != s.player)
            return None
        if self.acting(s):
            return s.commander
        return None

    def commander(self, s: GameState) -> int:
        return s.commander

    def attackable(self, s: GameState, ok: np.ndarray) -> np.ndarray:
        """The allied army attacks only the mover's territories, never its commander's."""
        return ok & (s.owner != s.commander) if s.commander >= 0 else ok

    def takes_cards(self, s: GameState) -> bool:
        return not self.acting(s)  # the allied army conquers for no one: no card, no hand

    def whose(self, s: GameState, purpose: str) -> str | None:
        if not self.acting(s):
            return None
        if purpose == "place":
            return "an allied territory (the allied army's armies go there, §7)"
        if purpose == "attack":
            return "an allied territory (the allied army attacks from its own, §7)"
        return "the allied army attacks only the territories of the player on turn"

    def invariant_violations(self, s: GameState) -> list[str]:
        n = self.game.num_players
        out = []
        if self.acting(s):
            if s.phase not in (Phase.REINFORCE, Phase.ATTACK, Phase.DEFEND, Phase.OCCUPY, Phase.GAME_OVER):
                out.append(f"the allied army acts only in the reinforce, attack, defend and occupy phases, not {s.phase}")
            if not (0 <= s.commander < n and s.alive[s.commander]):
                out.append(f"the allied army acts but its commander {s.commander} is not a live seat")
        elif s.commander != -1:
            out.append(f"commander={s.commander} is set outside the allied army's sub-turn")
        if s.received < 0:
            out.append(f"received={s.received} must be >= 0")
        return out

    # ------------------------------------------------------------------ observations, text, agents
    @staticmethod
    def observation_blocks(dims: Any) -> Sequence[tuple[str, tuple[int, ...], str]]:
        return (("allied", (3,), "the allied army acts, this seat commands it, the allied reinforcement / 10"),)

    def observe(self, encoder: Any, s: GameState, seat: int, out: np.ndarray) -> None:
        if s.phase == Phase.GAME_OVER:
            return
        o = encoder.layout["allied"][0].start
        if self.acting(s):
            out[o] = 1.0
            if s.commander == seat:
                out[o + 1] = 1.0
        if s.turn >= 1:
            out[o + 2] = self.reinforcement(s) * 0.1

    def granted_armies(self) -> int:
        game = self.game
        return ALLIED_START_ARMIES * (game.T - game.num_players * game.claims)

    def owner_label(self, owner: int, short: bool = False) -> str | None:
        if owner != self.game.army:
            return None
        return "a" if short else "allied"

    def owner_role(self, owner: int) -> str | None:
        return "commanded by the opponent of the player on turn" if owner == self.game.army else None

    def summary(self, s: GameState, viewer: int | None) -> str | None:
        return (
            "Allied army (a): after each player's attacks, the other player places the allied army's reinforcement "
            "(half the player's, rounded down) and may attack that player with it; you roll for it when attacked."
        )

    def default_move(self, view: Any) -> Move | None:
        return allied_move(view) if view.commanding_allied else None


def allied_move(view: Any) -> Move:
    """A simple, sensible move for the allied army commanded by ``view.seat`` (a
    :class:`~risk_env.envs.view.GameView`, docs/rules.md §7).

    The allied army can only hurt the player on turn (the commander's opponent), so: place
    every allied reinforcement on the allied territory with the best odds against a
    neighbouring territory of that player (most allied armies minus the fewest defenders next
    to it); attack with the most dice from the allied territory with the largest lead over
    an adjacent territory of that player while the lead is at least 2 armies; move every
    army it can into a conquered territory; otherwise end the allied attacks.

    Raises:
        RiskError: the allied army does not act now.
    """
    g, s = view.game, view.state
    if not view.commanding_allied:
        raise RiskError("allied_move: the allied army does not act now (two_player='allied', docs/rules.md §7)")
    armies = s.armies.astype(np.int64)
    target = g.attackable(s)
    allied = np.flatnonzero(s.owner == g.army)
    if s.phase == Phase.OCCUPY:
        return Move.occupy(g.occupy_range(s)[1])
    if s.phase == Phase.REINFORCE:
        best, best_score = int(allied[0]), -(10**9)
        for t in allied.tolist():
            foes = [int(armies[u]) for u in g.neighbors[t] if target[u]]
            score = int(armies[t]) - min(foes) if foes else -(10**6) + int(armies[t])
            if score > best_score:
                best, best_score = t, score
        return Move.place(best, s.to_place)
    if s.phase == Phase.ATTACK:
        best_pair, best_lead = None, 1
        for a in allied.tolist():
            if armies[a] < 2:
                continue
            for b in g.neighbors[a]:
                lead = int(armies[a]) - 1 - int(armies[b])
                if target[b] and lead > best_lead:
                    best_pair, best_lead = (a, b), lead
        if best_pair is None:
            return Move.end_attack()
        a, b = cast(tuple[int, int], best_pair)
        return Move.attack(a, b, min(3, int(armies[a]) - 1))
    raise RiskError(f"allied_move: no allied decision in the {Phase(s.phase).name.lower()} phase")
