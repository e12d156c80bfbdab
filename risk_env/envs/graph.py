"""Graph observations: per-territory features, the adjacency, and map-free globals.

The flat observation (:mod:`risk_env.envs.observation`) is tied to one map and
one player count. The graph observation is not: every territory is a node with
the same ``F`` features, owners are given relative to the observer in a fixed
number of slots (up to 6 players), and the global features have a fixed length
``G``. A network that reads nodes with shared weights and emits one logit per
territory (e.g. :class:`risk_env.train.graph_policy.GraphPolicy`) therefore
serves every map and every player count from 2 to 6.

Select it with ``observation="graph"`` on the AEC env (``risk_env.env``) and on
:class:`~risk_env.envs.single_agent.RiskSingleAgentEnv`. The observation is a dict:

==================  ===============  =======  ==========================================
key                 shape            dtype    content
==================  ===============  =======  ==========================================
``"nodes"``         ``(T, F)``       float32  per-territory features (below), ``F = 20``
``"edges"``         ``(2, E)``       int64    the adjacency as an edge index: row 0 the
                                              source, row 1 the target territory id;
                                              every border in both directions, so
                                              ``E = 2 * borders`` (166 on the classic
                                              map); the same array at every step
``"globals"``       ``(G,)``         float32  game-level features (below), ``G = 73``
``"action_mask"``   ``(N,)``         int8     the legal action ids (:mod:`~risk_env.envs.codec`)
==================  ===============  =======  ==========================================

The edge index is part of the observation (not only an attribute) so that a
batch of observations carries its own graph, as graph libraries expect; it is
constant for one map, so a vectorized env or a replay buffer can also read it
once from :attr:`GraphObservationEncoder.edges`. Inside SB3 every entry is a
fixed-shape ``Box`` (SB3 stores it as float32; ids below 2**24 are exact).

Node features (``nodes[t]``, index ranges):

=======  =====================  ==============================================================
index    name                   content (scaling)
=======  =====================  ==============================================================
0..5     ``owner_rel``          one-hot owner relative to the observer in turn (seat) order:
                                0 = me, 1 = the next seat, ..., 5 (absent seats stay zero)
6        ``owner_neutral``      owned by the 2-player neutral army, or by the allied army
                                under ``two_player="allied"`` (docs/rules.md §7)
7        ``owner_none``         unclaimed (the claim phase)
8        ``armies``             armies / 10
9        ``selected_src``       the pending source: the codec's selection, else the last battle
10       ``selected_dst``       the pending target (as the flat observation's ``selected``)
11       ``my_card``            1 if I hold this territory's card
12       ``legal``              1 if this territory's action id is legal now (the mask's
                                territory block; 0 for a player not to act)
13       ``cont_bonus``         bonus of its continent / 10 (docs/rules.md §4.1)
14       ``cont_size``          territories in its continent / T
15       ``cont_mine``          fraction of its continent I own
16       ``cont_owner``         fraction of its continent its owner owns
17       ``foreign_nbrs``       fraction of its neighbours owned by another player than its owner
18       ``foreign_armies``     armies on those neighbours / 10
19       ``degree``             neighbours / 6
=======  =====================  ==============================================================

Global features (``globals``, ``P = 6`` player slots, ``S = 7`` owner slots =
the 6 relative seats and the neutral):

=======  =================  ===========================================================
index    name               content (scaling)
=======  =================  ===========================================================
0..7     ``phase``          one-hot :class:`~risk_env.rules.state.Phase`
8        ``acting``         1 if the observer decides now
9..15    ``on_turn``        one-hot relative slot of the player on turn
16       ``to_place``       armies left to place / 10
17..21   ``flags``          trade forced, +2 bonus used, conquered this turn, mid-attack
                            trade-down, neutral army next (setup)
22..26   ``my_cards``       own cards by symbol / 5, own cards showing an owned territory / 5
27..39   ``trade_pending``  one-hot set composition awaiting a bonus territory
40..45   ``cards``          cards held per relative seat / 5
46..51   ``alive``          1 per live relative seat
52..58   ``territories``    territories per owner slot / T
59..65   ``army_total``     armies per owner slot / (10 T)
66       ``trade_value``    value of the next set / 20
67..69   ``battle``         last roll's attacker dice / 3, attack dice awaiting a defence
                            / 3, occupation minimum / 3
70       ``num_players``    players / 6
71       ``turn``           turn / turn limit, only with ``turn_feature=True`` (default
                            0: the turn limit does not leak into the policy's input)
72       ``bias``           always 1
=======  =================  ===========================================================

The rule switches that add blocks to the flat observation add them to the graph one too, after the core
features above (:data:`risk_env.envs.layout.GRAPH_VARIANT_BLOCKS`; the encoder's ``layout`` names them): the
secret missions their ``mission`` (the observer's own, one-hot; a destroy mission by relative seat) and
``mission_held`` globals, the capitals a ``capital`` node block (whose capital each territory is, by relative seat)
and a ``capital_phase`` global, the expert dice rules their ``dice_rules`` globals (the waiting roll), the allied
army its ``allied`` globals, the defender's choice of dice ``blitz_defence``. Seats are padded to 6 as above, so
``F`` and ``G`` depend on the rules only (``F = 20``, ``G = 73`` under ``classic`` and ``fast``).

All features are >= 0. The encoder reuses the flat encoder's blocks, so both
observations say the same things about a position.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces

from ..rules.engine import Game
from ..rules.state import GameState
from .layout import GRAPH_GLOBAL_LAYOUT, GRAPH_GLOBALS_FROM_FLAT, GRAPH_NODE_LAYOUT, MAX_PLAYERS, graph_layout
from .observation import ObservationEncoder

if TYPE_CHECKING:
    from .codec import Selection

__all__ = ["GraphObservationEncoder", "MAX_PLAYERS", "NODE_FEATURES", "GLOBAL_FEATURES", "OBSERVATION_MODES"]

OBSERVATION_MODES = ("flat", "graph")
"""Values of the envs' ``observation=`` option."""

NODE_FEATURES: tuple[str, ...] = tuple(
    f"{b.name}_{k}" if b.size > 1 else b.name for b in GRAPH_NODE_LAYOUT for k in range(b.size)
)
"""Names of the ``F = 20`` node features, in order (:data:`risk_env.envs.layout.GRAPH_NODE_LAYOUT`)."""

GLOBAL_FEATURES: dict[str, slice] = {b.name: GRAPH_GLOBAL_LAYOUT.slice(b.name) for b in GRAPH_GLOBAL_LAYOUT}
"""Global feature blocks by name (:data:`risk_env.envs.layout.GRAPH_GLOBAL_LAYOUT`)."""
G_SIZE = GRAPH_GLOBAL_LAYOUT.size
"""``G = 73``: the core global features (a game's own ``G``, with the blocks its rule switches add: the encoder's)."""
F_SIZE = GRAPH_NODE_LAYOUT.size
"""``F = 20``: the core node features (a game's own ``F``: the encoder's)."""


_NODE: dict[str, int] = {b.name: GRAPH_NODE_LAYOUT.start(b.name) for b in GRAPH_NODE_LAYOUT}  # first column by name


def static_node_features(game: Game) -> np.ndarray:
    """float32 ``(T, 3)``: the node features that do not change during a game, ``cont_bonus``,
    ``cont_size`` and ``degree`` (in that order; module docstring)."""
    m = game.map
    T = game.T
    cont = np.asarray(m.territory_continent, dtype=np.int64)
    sizes = np.asarray(m.continent_members, dtype=bool).sum(axis=1).astype(np.float64)
    degree = np.bincount(np.asarray(game.edge_src, dtype=np.int64), minlength=T).astype(np.float64)
    out = np.zeros((T, 3), dtype=np.float32)
    out[:, 0] = np.asarray(m.continent_bonus, dtype=np.float64)[cont] / 10.0
    out[:, 1] = sizes[cont] / T
    out[:, 2] = degree / 6.0
    return out


class GraphObservationEncoder:
    """Encodes a :class:`GameState` into the graph observation of one seat (module docstring).

    Args:
        game: the engine game (fixes the map and the player count).
        turn_feature: write ``turn / turn_limit`` into ``globals[71]`` (default False:
            keep the turn limit out of the observation).

    Attributes:
        T, F, G, E: territories, node features (20, more under rule switches that add blocks), global
            features (73, likewise), directed edges.
        layout: the node and global blocks of this game (:class:`risk_env.envs.layout.GraphLayout`).
        edges: int64 ``(2, E)`` edge index (read-only), the same in every observation.
        territory_continent: int64 ``(T,)`` continent id of each territory (for users who
            want a continent embedding of their own).
    """

    def __init__(self, game: Game, turn_feature: bool = False) -> None:
        self.game = game
        self.flat = ObservationEncoder(game)
        self.turn_feature = bool(turn_feature)
        m = game.map
        T = game.T
        n = game.num_players
        self.layout = graph_layout(self.flat.blocks, T, n)
        self.T, self.F, self.G = T, self.layout.nodes.size, self.layout.globals.size
        self._n = n
        src = np.asarray(game.edge_src, dtype=np.int64)
        dst = np.asarray(game.edge_dst, dtype=np.int64)
        self.edges = np.stack([src, dst])
        self.edges.flags.writeable = False
        self.E = int(src.size)
        self._src, self._dst = src, dst
        self.territory_continent = np.asarray(m.territory_continent, dtype=np.int64)
        cont = self.territory_continent
        C = len(m.continent_names)
        self._C = C
        sizes = np.asarray(m.continent_members, dtype=bool).sum(axis=1).astype(np.float64)
        self._cont_size_t = sizes[cont]
        degree = np.bincount(src, minlength=T).astype(np.float64)
        self._degree = np.maximum(degree, 1.0)
        self._static = static_node_features(game)
        # flat owner slot (0..n-1 seats, n neutral) -> graph owner column
        S = n + 1
        self._slot_map = np.array([*range(n), MAX_PLAYERS], dtype=np.int64)
        own_rel, own_neutral = _NODE["owner_rel"], _NODE["owner_neutral"]
        self._owner_cols = np.array([own_rel + k for k in range(n)] + [own_neutral], dtype=np.int64)
        self._S = S
        L = self.flat.layout
        self._L = {k: L[k][0] for k in L}
        self._card_terr = np.array([c for c in range(len(game.card_symbol)) if c < T], dtype=np.int64)

    # ------------------------------------------------------------------ spaces
    def space(self, n_actions: int) -> spaces.Dict:
        """The observation space: ``Dict(nodes, edges, globals, action_mask)`` (module docstring)."""
        T, E = self.T, self.E
        return spaces.Dict(
            {
                "nodes": spaces.Box(0.0, np.inf, (T, self.F), np.float32),
                "edges": spaces.Box(0, max(T - 1, 0), (2, E), np.int64),
                "globals": spaces.Box(0.0, np.inf, (self.G,), np.float32),
                "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
            }
        )

    # ------------------------------------------------------------------ encode
    def encode(
        self, s: GameState, seat: int, sel: Selection | None = None, mask: np.ndarray | None = None
    ) -> dict[str, np.ndarray]:
        """The graph observation of ``s`` for ``seat``.

        Args:
            s: the position.
            seat: the observer (a player seat).
            sel: the codec's pending selection (None: nothing selected).
            mask: the observer's action mask (int8 or bool ``(N,)``; None: all zeros);
                its territory block fills the ``legal`` node feature and it is returned
                as ``"action_mask"`` (int8, a copy).

        Returns:
            ``{"nodes": float32 (T, F), "edges": int64 (2, E), "globals": float32 (G,),
            "action_mask": int8 (N,)}``; ``N`` is ``mask``'s length (0 when ``mask`` is None).
        """
        flat = self.flat.encode(s, seat, sel)
        return self.from_flat(flat, s, seat, mask)

    def from_flat(self, flat: np.ndarray, s: GameState, seat: int, mask: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """:meth:`encode` from an already encoded flat observation ``flat`` of the same position."""
        T, n, S, L = self.T, self._n, self._S, self._L
        N = _NODE
        nodes = np.zeros((T, self.F), dtype=np.float32)
        owner = flat[L["owner"]].reshape(T, S)
        nodes[:, self._owner_cols] = owner
        nodes[:, N["owner_none"]] = owner.sum(axis=1) == 0
        nodes[:, N["armies"]] = flat[L["armies"]]
        nodes[:, N["selected_src"] : N["selected_dst"] + 1] = flat[L["selected"]].reshape(T, 2)
        hand = s.hands[seat]
        if hand:
            held = [c for c in hand if c < T]
            nodes[held, N["my_card"]] = 1.0
        if mask is not None:
            nodes[:, N["legal"]] = mask[:T]
        nodes[:, N["cont_bonus"]] = self._static[:, 0]
        nodes[:, N["cont_size"]] = self._static[:, 1]
        # continent shares: mine, and the territory owner's
        own = np.asarray(s.owner, dtype=np.int64)
        cont = self.territory_continent
        C = self._C
        mine = own == seat
        mine_c = np.bincount(cont, weights=mine.astype(np.float64), minlength=C)
        nodes[:, N["cont_mine"]] = mine_c[cont] / self._cont_size_t
        key = cont * (self.game.num_seats + 1) + np.where(own >= 0, own, self.game.num_seats)
        cnt = np.bincount(key, minlength=C * (self.game.num_seats + 1))
        nodes[:, N["cont_owner"]] = np.where(own >= 0, cnt[key] / self._cont_size_t, 0.0)
        src, dst = self._src, self._dst
        foreign = (own[src] != own[dst]) & (own[dst] >= 0) & (own[src] >= 0)
        nodes[:, N["foreign_nbrs"]] = np.bincount(src, weights=foreign.astype(np.float64), minlength=T) / self._degree
        armies = np.asarray(s.armies, dtype=np.float64)
        nodes[:, N["foreign_armies"]] = np.bincount(src, weights=foreign * armies[dst], minlength=T) * 0.1
        nodes[:, N["degree"]] = self._static[:, 2]
        g = np.zeros(self.G, dtype=np.float32)
        GF = GLOBAL_FEATURES
        for name, how in GRAPH_GLOBALS_FROM_FLAT.items():
            if how == "copy":
                g[GF[name]] = flat[L[name]]
            elif how == "seats":
                g[GF[name].start : GF[name].start + n] = flat[L[name]]
            else:  # "slots": the n seats, then the neutral in the last entry
                g[GF[name].start + self._slot_map] = flat[L[name]]
        g[GF["num_players"]] = n / MAX_PLAYERS
        if self.turn_feature:
            g[GF["turn"]] = flat[L["turn"]]
        g[GF["bias"]] = 1.0
        for f0, g0, w in self.layout.extra_globals:  # the blocks the rule switches add (GRAPH_VARIANT_BLOCKS)
            g[g0 : g0 + w] = flat[f0 : f0 + w]
        for f0, c0, w in self.layout.extra_nodes:
            nodes[:, c0 : c0 + w] = flat[f0 : f0 + T * w].reshape(T, w)
        m = np.zeros(0, dtype=np.int8) if mask is None else np.asarray(mask, dtype=np.int8).copy()
        return {"nodes": nodes, "edges": self.edges.copy(), "globals": g, "action_mask": m}


def check_observation_mode(observation: Any) -> str:
    """Validate an envs' ``observation=`` option.

    Raises:
        ConfigError: not one of :data:`OBSERVATION_MODES`.
    """
    from ..errors import ConfigError

    if observation not in OBSERVATION_MODES:
        raise ConfigError(f"observation={observation!r} is not supported; choose one of: {', '.join(OBSERVATION_MODES)}")
    return str(observation)
