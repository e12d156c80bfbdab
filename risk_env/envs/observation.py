"""Observations: a flat float32 vector from one seat's point of view.

Seats are rotated so the observing agent is always seat 0, the next player
in seat order is 1, and so on; slot ``n`` (``n`` = number of players) is the
2-player neutral, or under ``two_player="allied"`` the allied army (docs/rules.md
§7) (always present, all zeros without either). Opponents'
cards are shown as counts only; no hidden information (card identities of
others, the draw pile order, the generator) is encoded.

Layout (``T`` territories, ``C`` continents, ``n`` players, ``S = n + 1``
owner slots), as :func:`risk_env.envs.layout.observation_layout` describes it (the
one description the batched engine reads too); :attr:`ObservationEncoder.layout`
gives the slices:

===================  ============  ==============================================
name                 shape         content (scaling)
===================  ============  ==============================================
``owner``            ``(T, S)``    one-hot owner slot (unclaimed: all zero)
``armies``           ``(T,)``      armies / 10
``selected``         ``(T, 2)``    pending source and target: the codec's
                                   selection, else the last battle (defend,
                                   occupy, and the attack phase's "continue")
``continent_share``  ``(C, S)``    fraction of each continent each slot owns
``phase``            ``(8,)``      one-hot :class:`~risk_env.rules.state.Phase` (claim ..
                                   game over; the capital phase sets the
                                   ``capital_phase`` bit instead)
``acting``           ``(1,)``      1 if this seat decides now
``on_turn``          ``(S,)``      one-hot slot of the player on turn (slot ``n``
                                   while the allied army acts, §7)
``to_place``         ``(1,)``      armies left to place (setup: own setup armies;
                                   the allied army's, for the seat commanding it) / 10
``flags``            ``(5,)``      trade forced, +2 bonus used, conquered this turn,
                                   mid-attack trade-down, neutral army next (setup)
``my_cards``         ``(5,)``      own cards by symbol (infantry, cavalry, artillery,
                                   wild) / 5, and own cards showing an owned territory / 5
``trade_pending``    ``(13,)``     one-hot set composition awaiting a bonus territory
``cards``            ``(n,)``      cards held per seat / 5 (counts only)
``alive``            ``(n,)``      1 per live seat
``territories``      ``(S,)``      territories per slot / T
``army_total``       ``(S,)``      armies per slot / (10 T)
``trade_value``      ``(1,)``      value of the next set (escalating schedules) / 20
                                   (0 under ``fixed_by_symbol`` and ``stars``, whose
                                   values are fixed; under ``stars`` a hand's stars
                                   follow from ``my_cards``: infantry and cavalry 1,
                                   artillery and wild 2)
``battle``           ``(3,)``      last roll's attacker dice / 3, attack dice awaiting
                                   a defence / 3, occupation minimum / 3
``turn``             ``(1,)``      turn / turn limit
``dice_rules``       ``(8,)``      only under ``reroll_with_card`` or ``die_to_six``
                                   (docs/rules.md §8), for the player on turn: a roll
                                   waits for its decision, its re-roll is available,
                                   its six is available (this turn), then the
                                   waiting roll's attacker dice (3, highest first)
                                   and defender dice (2) / 6 (0 where none)
===================  ============  ==============================================

Blocks marked "only under" a switch exist only in games with it on, at the end
of the vector; the default layout is unchanged by them.

Blocks present only with a variant switch on (docs/rules.md §4.2, §7, §8), after the ones above:

===================  ============  ==============================================
name                 shape         content
===================  ============  ==============================================
``mission``          ``(8 + n,)``  ``secret_missions``: the observer's own mission,
                                   one-hot: mission cards 0..7 of
                                   :data:`~risk_env.rules.missions.MISSIONS`
                                   (continents, 24 territories, 18 x 2), then
                                   "destroy" by the target's rotated slot
``mission_held``     ``(n,)``      ``secret_missions``: 1 per live rotated seat
                                   holding a mission (what others may know)
``capital``          ``(T, n)``    ``capitals``: one-hot rotated slot whose capital
                                   each territory is (capitals are public)
``capital_phase``    ``(1,)``      ``capitals``: 1 while capitals are being chosen
``allied``           ``(3,)``      ``two_player="allied"`` (§7): 1 while the allied
                                   army acts (its sub-turn, after the mover's
                                   attacks), 1 if this seat commands it now, and the
                                   allied reinforcement of this turn (half of what the
                                   player on turn has received so far, rounded down;
                                   0 once the allied army holds nothing) / 10;
                                   allied territories are owner slot ``n``
``blitz_defence``    ``(1,)``      ``defender_dice="choose"`` (§4.2): 1 while the
                                   pending defence is a round of a blitz (the
                                   attacker rolls its most dice again after it)
===================  ============  ==============================================

Another player's mission is never encoded: an observation is the same whatever
the other players' missions are. ``env.state()`` adds every player's mission.

All entries are >= 0; the space's upper bound is ``inf`` (army counts are unbounded).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..rules.engine import Game
from ..rules.state import GameState, Phase
from .layout import PHASE_SLOTS, observation_layout

if TYPE_CHECKING:
    from .codec import Selection

__all__ = ["ObservationEncoder", "PHASE_SLOTS"]


class ObservationEncoder:
    """Encodes :class:`GameState` into the flat observation of one seat.

    Attributes:
        size: length ``D`` of the vector.
        blocks: the :class:`~risk_env.envs.layout.ObservationLayout` of the game.
        layout: ``name -> (slice, shape)`` for every block above.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        T = game.T
        n = game.num_players
        S = n + 1
        C = len(game.map.continent_names)
        self.blocks = observation_layout(game)
        self.layout: dict[str, tuple[slice, tuple[int, ...]]] = self.blocks.as_dict()
        self.size = self.blocks.size
        self._n, self._S, self._T, self._C = n, S, T, C
        # rot[me][owner] -> slot; owner -1 (unclaimed) reads the last entry, S (a dummy slot dropped later)
        self._rot = np.zeros((n, game.num_seats + 1), dtype=np.int64)
        for me in range(n):
            self._rot[me, -1] = S
            for seat in range(n):
                self._rot[me, seat] = (seat - me) % n
            if game.neutral >= 0:
                self._rot[me, game.neutral] = n
            if game.army >= 0:  # a variant's army (the allied army, §7) takes the neutral's slot
                self._rot[me, game.army] = n
        self._rot_lists = [r.tolist() for r in self._rot]
        L = self.layout
        self._o_owner = L["owner"][0]
        self._o_armies = L["armies"][0]
        self._o_sel = L["selected"][0].start
        self._o_cont = L["continent_share"][0]
        self._o_phase = L["phase"][0].start
        self._o_acting = L["acting"][0].start
        self._o_turn_slot = L["on_turn"][0].start
        self._o_place = L["to_place"][0].start
        self._o_flags = L["flags"][0].start
        self._o_cards_mine = L["my_cards"][0].start
        self._o_tp = L["trade_pending"][0].start
        self._o_cards = L["cards"][0].start
        self._o_alive = L["alive"][0].start
        self._o_terr = L["territories"][0]
        self._o_armytot = L["army_total"][0]
        self._o_tv = L["trade_value"][0].start
        self._o_battle = L["battle"][0].start
        self._o_turnno = L["turn"][0].start
        self._owner_base = L["owner"][0].start + np.arange(T) * S
        cont = game.map.territory_continent
        self._cont_bins = cont * (S + 1)
        sizes = game.map.continent_members.sum(axis=1)
        self._cont_w = 1.0 / sizes[cont]
        keep = np.ones((C, S + 1), dtype=bool)
        keep[:, S] = False
        self._cont_keep = np.flatnonzero(keep.ravel())
        self._sym_list = list(game.card_symbol)
        # next set's value / 20 by sets traded so far (the observation caps the counter at 400 sets), when
        # that value is the same for every set (the escalating schedules)
        self._tv_table = [game.next_set_value(k) / 20.0 for k in range(401)] if game.set_value_escalates else []
        self._turn_limit = float(game.config.turn_limit)
        self._observe_hooks = game.hooks["observe"]

    def encode(self, s: GameState, seat: int, sel: Selection | None = None) -> np.ndarray:
        """float32 ``(D,)`` observation of ``s`` for ``seat``, with the action codec's
        pending selection ``sel`` (None: nothing selected) in the ``selected`` and
        trade-pending blocks."""
        n, S, T = self._n, self._S, self._T
        out = np.zeros(self.size, dtype=np.float32)
        rot = self._rot[seat]
        slots = rot[s.owner]  # (T,) slot per territory; S marks unclaimed
        ph = s.phase
        if ph == Phase.CLAIM:
            claimed = slots < S
            out[self._owner_base[claimed] + slots[claimed]] = 1.0
        else:
            out[self._owner_base + slots] = 1.0
        out[self._o_armies] = s.armies * 0.1
        src, dst, trade = (sel.src, sel.dst, sel.trade) if sel is not None else (-1, -1, -1)
        if ph == Phase.DEFEND or ph == Phase.OCCUPY or (ph == Phase.ATTACK and src < 0):
            src, dst = s.att_src, s.att_dst
        o = self._o_sel
        if src >= 0:
            out[o + 2 * src] = 1.0
        if dst >= 0:
            out[o + 2 * dst + 1] = 1.0
        out[self._o_cont] = np.bincount(self._cont_bins + slots, weights=self._cont_w, minlength=self._C * (S + 1))[
            self._cont_keep
        ]
        out[self._o_terr] = np.bincount(slots, minlength=S + 1)[:S] * (1.0 / T)
        out[self._o_armytot] = np.bincount(slots, weights=s.armies, minlength=S + 1)[:S] * (0.1 / T)
        if ph < PHASE_SLOTS:
            out[self._o_phase + ph] = 1.0
        g = self.game
        mine = s.player == seat
        if ph != Phase.GAME_OVER:
            out[self._o_turn_slot + self._rot_lists[seat][s.player]] = 1.0
            if g.current_player(s) == seat:
                out[self._o_acting] = 1.0
        if ph == Phase.CLAIM or ph == Phase.SETUP_PLACE:
            out[self._o_place] = s.setup_left[seat] * 0.1
            if ph == Phase.SETUP_PLACE and s.setup_step == 2:
                out[self._o_flags + 4] = 1.0
        elif ph == Phase.REINFORCE and s.player >= n and g.current_player(s) == seat:
            out[self._o_place] = s.to_place * 0.1  # a variant's army placing, this seat deciding for it (§7)
        elif mine:
            out[self._o_place] = s.to_place * 0.1
            f = self._o_flags
            if s.forced:
                out[f] = 1.0
            if s.bonus_used:
                out[f + 1] = 1.0
            if s.conquered:
                out[f + 2] = 1.0
            if s.resume_attack:
                out[f + 3] = 1.0
            if trade >= 0:
                out[self._o_tp + trade] = 1.0
        hand = s.hands[seat]
        if hand:
            c = self._o_cards_mine
            sym = self._sym_list
            owner = s.owner
            counts = [0, 0, 0, 0]
            shown = 0
            for x in hand:
                counts[sym[x]] += 1
                if x < T and owner[x] == seat:
                    shown += 1
            out[c : c + 5] = (counts[0] * 0.2, counts[1] * 0.2, counts[2] * 0.2, counts[3] * 0.2, shown * 0.2)
        hands, alive = s.hands, s.alive
        oc, oa = self._o_cards, self._o_alive
        for k in range(n):
            r = (seat + k) % n
            if alive[r]:
                out[oa + k] = 1.0
                if hands[r]:
                    out[oc + k] = len(hands[r]) * 0.2
        if self._tv_table:
            out[self._o_tv] = self._tv_table[min(s.sets_traded, len(self._tv_table) - 1)]
        b = self._o_battle
        out[b] = s.last_dice / 3.0
        if ph == Phase.DEFEND:
            out[b + 1] = s.att_dice / 3.0
        elif ph == Phase.OCCUPY:
            out[b + 2] = s.armies[s.att_dst] / 3.0
        out[self._o_turnno] = s.turn / self._turn_limit
        for hook in self._observe_hooks:  # the variants' blocks
            hook(self, s, seat, out)
        L = self.layout
        if s.blitzing and ph == Phase.DEFEND:
            out[L["blitz_defence"][0].start] = 1.0
        return out
