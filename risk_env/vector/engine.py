"""The batched rules engine: ``B`` games in lockstep as torch tensors.

:class:`VectorGame` holds the static facts (rules, map tensors, device) and
:class:`BatchState` the positions. :meth:`VectorGame.step` applies one action
id per game with the same meaning as :class:`risk_env.ActionCodec` (sub-steps
included), :meth:`VectorGame.action_mask`, :meth:`VectorGame.observe` and
:meth:`VectorGame.observe_graph` give the same masks and observations as
``ActionCodec.mask``, ``ObservationEncoder.encode`` and the AEC env's graph
observation, and :meth:`VectorGame.rewards` the AEC env's rewards. Every
phase is computed for the whole batch with masked updates (``torch.where``,
scatters): there is no Python loop over games or territories; the loops are
over the rolls of a blitz whose armies exceed the blitz table (or when dice
are injected) and the rounds of a connected fortify's flood fill.

The action ids, the sub-step protocol and the observation blocks come from
:mod:`risk_env.envs.layout`, the one description the codec and the encoders
are built from. Modules: :mod:`~risk_env.vector.state` (positions, injected
chance, the supported rules), :mod:`~risk_env.vector.masks` (the action
mask), :mod:`~risk_env.vector.observe` (the observations),
:mod:`~risk_env.vector.dice` (chance, rolls and blitzes),
:mod:`~risk_env.vector.outcome` (rewards, missions and capitals) and
:mod:`~risk_env.vector.tables` (map and blitz tables); this one holds
:class:`VectorGame`, the setup, the turn flow and the step.

Rules covered (docs/rules.md; :data:`~risk_env.vector.state.SUPPORT` lists
every switch): every preset (``classic``, ``fast``, ``tournament``,
``expert``, ``duel``, ``secret_missions``, ``capitals``, ``allied``), that
is 2-6 players, the 2-player neutral (claiming at random in the rotation),
a plain duel and the allied army, every setup and card schedule, the +2
bonus once per turn or per trade, the defender's dice choice (every round
of a blitz too), connected fortification, the expert dice rules, the rank
reward at truncation, secret missions and capitals.

Chance: one seeded ``torch.Generator`` per :class:`VectorGame`. Setup, dice,
card draws and the neutral's claims draw from it (:class:`~risk_env.vector.dice.Draws`).
For tests, :meth:`VectorGame.step` takes injected dice, drawn cards and
neutral claims instead (:class:`Chance`), and then rolls every blitz roll by
roll, consuming faces in the reference engine's order (attacker faces, then
defender faces, per roll).

``static=True`` computes every part of a step on the whole batch, gated by
masks, instead of skipping the parts no game needs (one host check each) and
computing rare parts on the games that need them: the same results (the draws
do not depend on it), no host checks but the one for blitzes beyond the table,
so that the step can be captured as a CUDA graph (:mod:`risk_env.vector.graphs`).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch

from ..envs.layout import (
    ATTACK_DICE,
    DEFEND_DICE,
    PHASE_SLOTS,
    SELECTIONS,
    action_layout,
    decision_table,
    observation_layout,
)
from ..errors import ConfigError, check_seed
from ..rules.allied import ALLIED_START_ARMIES
from ..rules.cards import MAX_STARS, MIN_STARS
from ..rules.config import RulesConfig
from ..rules.engine import Game
from ..rules.missions import DESTROY_FIRST, MISSIONS, TWENTY_FOUR
from ..rules.moves import MoveKind
from . import dice, masks, observe, outcome
from .dice import Draws
from .masks import bonus_options, pick_cards, pick_stars, take, take_many
from .observe import GraphTables
from .state import (
    ATTACK,
    CAPITAL,
    CLAIM,
    DECK,
    DEFEND,
    DISCARD,
    FORTIFY,
    GAME_OVER,
    OCCUPY,
    REINFORCE,
    SETUP_PLACE,
    SUPPORTED_RULES,
    BatchState,
    Chance,
    StepInfo,
    blank_state,
    check_rules,
    from_states,
)
from .tables import MapTables

__all__ = ["SUPPORTED_RULES", "BatchState", "Chance", "StepInfo", "VectorGame", "available_devices", "check_rules"]


# ---- the army changes of a move: at most two territories per game, each a (territory, delta)
# pair read from the step's candidates (named here, stacked in these orders by VectorGame._step)
TERRITORY_CANDIDATES = ("id", "src", "dst", "battle_src", "battle_dst", "bonus")
"""The territories a change may name: the id's territory, the selected source and target, the
battle's pair (the selected one, else the last battle's), the trade's +2 bonus territory."""
DELTA_CANDIDATES = ("zero", "one", "-one", "place", "occupy", "fortify", "-occupy", "-fortify", "attacker", "defender", "bonus")
"""The deltas a change may add: constants, the armies an amount id places or moves (for a
reinforcement, an occupation beyond the dice moved in, a fortification), the battle's losses
(the attacker's moving in at a conquest), the +2 bonus (0 without one)."""
_NO_CHANGE = ("id", "zero")
_BATTLE_MOVES = ("ATTACK", "BLITZ", "DEFEND", "REROLL", "SIX", "KEEP_ROLL")


def army_changes(move: str, selection: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """The two ``(territory, delta)`` changes (names in :data:`TERRITORY_CANDIDATES` and
    :data:`DELTA_CANDIDATES`) of ``move`` (a :class:`MoveKind` name, ``""`` none) completed from
    a decision with the pending ``selection`` (one of :data:`~risk_env.envs.layout.SELECTIONS`)."""
    if move == "CLAIM" or (move == "PLACE" and selection == ""):  # a claim, a setup army, a last army
        return ("id", "one"), _NO_CHANGE
    if move == "PLACE":  # an amount on the selected territory
        return ("src", "place"), _NO_CHANGE
    if move == "TRADE":
        return _NO_CHANGE, ("bonus", "bonus")
    if move in _BATTLE_MOVES:  # a roll that settles (zero deltas otherwise)
        return ("battle_src", "attacker"), ("battle_dst", "defender")
    if move == "OCCUPY":
        return ("battle_src", "-occupy"), ("battle_dst", "occupy")
    if move == "FORTIFY" and selection == "src":  # the target id of a fortify from 2 armies: one army
        return ("src", "-one"), ("id", "one")
    if move == "FORTIFY":
        return ("src", "-fortify"), ("dst", "fortify")
    return _NO_CHANGE, _NO_CHANGE


def available_devices() -> list[str]:
    """The torch devices this torch can use here (``"cpu"``, ``"cuda:0"``, ..., ``"mps"``)."""
    out = ["cpu"]
    if torch.cuda.is_available():
        out += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        out.append("mps")
    return out


def resolve_device(device: Any) -> torch.device:
    """``device`` as a torch device this torch can use, named as its tensors name it (``"cpu:0"``
    is ``cpu``, ``"cuda"`` the current CUDA device, ``cuda:0`` by default).

    Raises:
        ConfigError: not a device name, or a device that is not available here (the message
            names the available ones).
    """
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise ConfigError(f"device={device!r} is not a torch device; available here: {', '.join(available_devices())}") from None
    ok = dev.type == "cpu"
    if dev.type == "cuda":
        ok = torch.cuda.is_available() and (dev.index is None or dev.index < torch.cuda.device_count())
    elif dev.type == "mps":
        mps = getattr(torch.backends, "mps", None)
        ok = mps is not None and mps.is_available()
    elif dev.type != "cpu":
        try:  # a device the engine can run on holds tensors and a generator (not "meta", for one)
            torch.zeros(1, device=dev)
            torch.Generator(device=dev)
            ok = True
        except (RuntimeError, AssertionError, ImportError, AttributeError, NotImplementedError):
            ok = False  # (a backend this torch has no module for, "hpu" or "privateuseone", fails to import it)
    if not ok:
        why = (
            "" if dev.type != "cuda" or torch.cuda.is_available() else " (this torch has no CUDA device: a CPU build, or no GPU)"
        )
        raise ConfigError(f"device={device!r} is not available{why}; available here: {', '.join(available_devices())}")
    # the name tensors made there report ("cpu:0" -> "cpu", "cuda" -> "cuda:0"): states and games compare equal
    return torch.empty(0, device=dev).device


STEP_WORK = 5
"""The memory a game takes in a batch, in units of its state's size, besides its observation and mask: the state
itself and a step's work tensors. With the observation and mask that makes about 6.3 times the state; the peak of
a process stepping a batch on the CPU was measured at 6.6 to 9.5 times the state per game (small and classic maps,
5 to 200 steps), so this is a lower bound: see :meth:`VectorGame.bytes_per_game`."""


def device_memory(device: torch.device) -> tuple[int, str] | None:
    """The bytes of memory ``device`` offers a batch now, and what they are.

    On the CPU: the memory the system can still give without swapping (``MemAvailable`` of ``/proc/meminfo``; the
    physical RAM where the system does not say), or less where the process's cgroup (a container's, a job
    scheduler's) caps it below that (its ``memory.max`` less its ``memory.current``; cgroup v1's ``limit_in_bytes``
    less its ``usage_in_bytes``). On a CUDA device: its free memory (``torch.cuda.mem_get_info``). None for another
    device (nothing to ask)."""
    if device.type == "cpu":
        try:
            have, source = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), "its physical RAM"
        except (AttributeError, OSError, ValueError):  # pragma: no cover - not on a POSIX system
            return None
        available = _meminfo_available()
        if available is not None:
            have, source = available, "the memory available to it"
        headroom = _cgroup_headroom()
        if headroom is not None and headroom < have:
            have, source = headroom, "the memory its cgroup may still take"
        return have, source
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free), "free memory"
    return None


def _meminfo_available(path: str = "/proc/meminfo") -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes, or None where there is no such line."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    kib = line.split()[1]
                    return int(kib) * 1024 if kib.isdigit() else None
    except OSError:
        return None
    return None


def _cgroup_headroom(root: str = "/sys/fs/cgroup", own: str = "/proc/self/cgroup") -> int | None:
    """The bytes this process's cgroups may still take: at its own cgroup (``own`` names it) and each one above it,
    the limit less the usage, the usage without the file cache the kernel can drop (``inactive_file`` of its
    ``memory.stat``); the least of them. cgroup v2 (``memory.max``, ``memory.current``) where the process has a v2
    cgroup, else v1's memory controller (``memory.limit_in_bytes``, ``memory.usage_in_bytes``). None where no level
    sets a limit or none can be read."""
    v2, v1 = None, None
    try:
        with open(own) as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if controllers == "":
                    v2 = path
                elif "memory" in controllers.split(","):
                    v1 = path
    except (OSError, ValueError):
        pass
    if os.path.exists(os.path.join(root, "cgroup.controllers")):  # (the unified hierarchy, v2)
        base, path, files = root, v2 or "/", ("memory.max", "memory.current", "inactive_file")
    else:
        base, path = os.path.join(root, "memory"), v1 or "/"
        files = ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file")
    least: int | None = None
    parts = [p for p in path.split("/") if p]
    for depth in range(len(parts), -1, -1):  # (the process's own cgroup first, then each one above it)
        headroom = _cgroup_level_headroom(os.path.join(base, *parts[:depth]), *files)
        if headroom is not None and (least is None or headroom < least):
            least = headroom
    return least


def _cgroup_level_headroom(folder: str, limit_file: str, usage_file: str, cache_key: str) -> int | None:
    """One cgroup's limit less its usage (its droppable file cache left out), or None (no limit, or unreadable)."""
    try:
        with open(os.path.join(folder, limit_file)) as f:
            limit = f.read().strip()
        with open(os.path.join(folder, usage_file)) as f:
            usage = f.read().strip()
    except OSError:
        return None
    if not (limit.isdigit() and usage.isdigit()):
        return None  # ("max": no limit)
    cache = 0
    try:
        with open(os.path.join(folder, "memory.stat")) as f:
            for line in f:
                key, _, value = line.partition(" ")
                if key == cache_key and value.strip().isdigit():
                    cache = int(value)
    except OSError:
        pass
    return max(int(limit) - max(int(usage) - cache, 0), 0)


def _gib(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB"


class VectorGame:
    """The rules for ``B`` games at once on one device.

    Args:
        rules: a :class:`RulesConfig` (keyword overrides applied on top).
        device: torch device of every tensor (one this torch can use).
        seed: seeds the one ``torch.Generator``; an integer >= 0.
        static: compute every part of a step on the whole batch (see the module docstring).

    Attributes:
        actions: the :class:`~risk_env.envs.layout.ActionLayout` (the codec's ids).
        obs_layout: the :class:`~risk_env.envs.layout.ObservationLayout` (the encoder's blocks).
        num_actions, obs_size: ``N`` and ``D``.
        tab: the :class:`~risk_env.vector.tables.MapTables` of the map and rules.

    Raises:
        ConfigError: rules the batched engine does not support (see :data:`SUPPORTED_RULES`),
            a bad seed, or a device that is not available.
    """

    def __init__(
        self,
        rules: RulesConfig | None = None,
        device: str | torch.device = "cpu",
        seed: int = 0,
        static: bool = False,
        **overrides: Any,
    ) -> None:
        if rules is not None and not isinstance(rules, RulesConfig):
            raise ConfigError(f"rules must be a RulesConfig, got {type(rules).__name__}")
        cfg = rules or RulesConfig()
        if overrides:
            cfg = cfg.replace(**overrides)
        check_rules(cfg)
        check_seed(seed, torch_seed=True)
        if not isinstance(static, bool):
            raise ConfigError(f"static must be True or False, got {static!r}")
        self.device = resolve_device(device)
        self.config = cfg
        self.game = Game(cfg)  # the reference game: validates the rules and the map
        self.static = static
        # while a CUDA graph records a step (risk_env.vector.graphs): no host checks; a blitz beyond the
        # table sets beyond_table instead, and the step is then run again without the graph
        self.capturing = False
        self.beyond_table = torch.zeros((), dtype=torch.bool, device=self.device)
        self.generator = torch.Generator(device=self.device)
        self.generator.manual_seed(int(seed))
        self._bytes_per_game: int | None = None  # (measured once, by bytes_per_game)
        self._state_bytes: int | None = None
        g = self.game
        self.n = n = cfg.num_players
        self.neutral = g.neutral
        self.allied = g.army  # the allied army's owner id (the one variant with an army, docs/rules.md §7), else -1
        self.allied_claims = g.claims
        self.num_seats = g.num_seats
        self.T = T = g.T
        self.dice_rules = g.variant("expert_dice") is not None
        self.stars = g.variant("stars") is not None
        self.trades_sets = g.trades_sets
        self.connected = cfg.fortify == "connected"
        self.choose = cfg.defender_dice == "choose"
        self.variant_wins = cfg.secret_missions or cfg.capitals
        self.tab = MapTables.build(g, self.device)
        self.NC = self.tab.NC
        self.K = self.tab.K
        # the action ids and observation blocks of the reference codec and encoder (one description)
        self.actions = action_layout(g)
        self.obs_layout = observation_layout(g)
        self.num_actions = self.actions.n
        self.obs_size = self.obs_layout.size
        self.obs_offsets = {b.name: self.obs_layout.start(b.name) for b in self.obs_layout}
        dev = self.device
        # the sub-step protocol as flat tables over (decision, block): what a step means
        selects, moves = decision_table(self.actions)
        blocks = self.actions.blocks
        self.n_blocks = len(blocks)
        self.n_selections = len(SELECTIONS)
        self.block_of = torch.tensor([i for i, b in enumerate(blocks) for _ in range(b.size)], dtype=torch.int64, device=dev)
        sel_code = {"": 0, "src": 1, "dst": 2, "trade": 3}
        self.select_tab = torch.tensor([sel_code[x] for row in selects for x in row], dtype=torch.int64, device=dev)
        self.move_tab = torch.tensor([MoveKind[x] if x else -1 for row in moves for x in row], dtype=torch.int64, device=dev)
        # an id read as an entry of the territory, amount, dice and trade blocks (a territory, an
        # amount level, a dice count 1..3, a set composition): id - first, clamped to lo..hi (other
        # ids read the nearest entry; the step uses each only where the id is one); columns of (4, 1)
        acts = self.actions
        id_read = [
            (0, 0, T - 1),
            (acts.amount, 0, self.K - 1),
            (acts.dice - 1, 1, ATTACK_DICE),
            (acts.trade, 0, acts.width("trade") - 1) if acts.trade >= 0 else (0, 0, 0),
        ]
        first, lo, hi = (torch.tensor(col, dtype=torch.int64, device=dev)[:, None] for col in zip(*id_read, strict=True))
        self.id_first, self.id_lo, self.id_hi = first, lo, hi
        # a selection some counts make needless (the step completes the move instead), by code:
        # 0 none, 1 a trade's bonus territory (at most one option), 2 a territory to place on in
        # the reinforce phase (one army left), 3 a fortify's target (the source holds 2 armies)
        forces = {("trade", REINFORCE): 1, ("src", REINFORCE): 2, ("dst", FORTIFY): 3}
        self.force_tab = torch.tensor(
            [forces.get((x, r // self.n_selections), 0) for r, row in enumerate(selects) for x in row],
            dtype=torch.int64,
            device=dev,
        )
        # a pending selection's index in SELECTIONS from the selections made (source, target,
        # trade): "src" one, "src+dst" one more, "trade" (no source) its own; times the blocks
        sel_index = SELECTIONS.index
        made = [sel_index("src"), sel_index("src+dst") - sel_index("src"), sel_index("trade")]
        self.made_weight = torch.tensor(made, dtype=torch.int64, device=dev)[:, None] * self.n_blocks
        # the select_tab codes of a source, a target and a trade, one row each
        self.sel_kinds = torch.tensor([sel_code["src"], sel_code["dst"], sel_code["trade"]], device=dev)[:, None]
        # the army changes of the move a code completes (army_changes), as columns of the step's
        # candidates: (first territory, second territory, first delta, second delta); a last row
        # for the games that complete no move (a sub-step)
        changes = [army_changes(x, SELECTIONS[r % self.n_selections]) for r, row in enumerate(moves) for x in row]
        changes.append((_NO_CHANGE, _NO_CHANGE))
        self.change_tab = torch.tensor(
            [
                [
                    TERRITORY_CANDIDATES.index(t1),
                    TERRITORY_CANDIDATES.index(t2),
                    DELTA_CANDIDATES.index(d1),
                    DELTA_CANDIDATES.index(d2),
                ]
                for (t1, d1), (t2, d2) in changes
            ],
            dtype=torch.int64,
            device=dev,
        )
        self.no_change = len(changes) - 1
        self.unit_deltas = torch.tensor([0, 1, -1], device=dev)  # the constant deltas zero, one, -one
        # an amount id's range lo..hi for a reinforcement (1..to_place), an occupation (the armies
        # beyond the dice moved in: 0..source - 1) and a fortification (1..source - 1): lo, and
        # hi - lo as the count read (to_place, source, source) less amount_span_off
        self.amount_lo = torch.tensor([1, 0, 1], device=dev)
        self.amount_span_off = torch.tensor([1, 1, 2], device=dev)
        S = n + 1
        self.ar_n = torch.arange(n, device=dev)
        self.ar_T = torch.arange(T, device=dev)
        self.ar_K = torch.arange(self.K, device=dev)
        self.ar_S = torch.arange(S, device=dev)
        self.ar_dice = torch.arange(ATTACK_DICE, device=dev)
        self.dice_rows = self.ar_dice[None, :] < torch.arange(ATTACK_DICE + 1, device=dev)[:, None]  # row k: the first k dice
        self.ar_faces = torch.arange(ATTACK_DICE + DEFEND_DICE, device=dev)
        self.ar_phase = torch.arange(PHASE_SLOTS, device=dev)
        self.ar_moves = torch.arange(len(MoveKind), device=dev)
        self.ar_trade = torch.arange(self.tab.comp.shape[0], device=dev)
        self.ar_stars = torch.arange(MIN_STARS, MAX_STARS + 1, device=dev)
        self.ar_NC = torch.arange(max(self.NC, 1), device=dev)
        self.ones_NC = torch.ones(1, max(self.NC, 1), dtype=torch.int64, device=dev)  # (expanded: scatter sources)
        self.ones_T = torch.ones(1, T, dtype=torch.int64, device=dev)
        self.base4 = torch.tensor([1, 4, 16, 64], device=dev)  # a hand's symbol counts (capped at 3) as a table row
        self.owner_base = torch.arange(T, device=dev) * S
        # row i: the turn-order positions after position i, nearest first (i + 1, ..., i + n, mod n)
        self.next_pos = (torch.arange(n, device=dev)[:, None] + 1 + torch.arange(n, device=dev)[None, :]) % n
        # rotation table: row `me`, column owner + 1 -> observation slot (S: unclaimed; the neutral
        # and the allied army: slot n)
        rot_tab = np.full((n, self.num_seats + 1), S, dtype=np.int64)
        for me in range(n):
            for seat in range(n):
                rot_tab[me, seat + 1] = (seat - me) % n
            for other in (self.neutral, self.allied):
                if other >= 0:
                    rot_tab[me, other + 1] = n
        self.rot_tab = torch.as_tensor(rot_tab, device=dev)
        self.rot_seats = torch.as_tensor(np.array([[(me + k) % n for k in range(n)] for me in range(n)]), device=dev)
        # observation: each territory's continent row in the (continent, slot) counts, continent sizes per column
        self.cont_col = torch.as_tensor(g.map.territory_continent * S, device=dev)
        self.cont_size_cs = self.tab.cont_size.float().repeat_interleave(S)
        sel = self.obs_layout.start("selected")
        self.sel_col = torch.tensor([[sel, sel + 1]], device=dev)
        self.destroy_first = DESTROY_FIRST
        self.mission_target = torch.tensor([m.target for m in MISSIONS], device=dev)

        def c(x: float) -> torch.Tensor:
            return torch.tensor(x, dtype=torch.float32, device=dev)

        self.c3, self.c5, self.c6, self.c10 = c(3.0), c(5.0), c(6.0), c(10.0)
        self.cT, self.c10T, self.c_limit = c(float(T)), c(10.0 * T), c(float(cfg.turn_limit))
        self.missions = outcome.MissionTables(self) if cfg.secret_missions else None
        self.graph_tables = GraphTables(self)

    # ------------------------------------------------------------------ action ids (from the layout)
    @property
    def A_AMOUNT(self) -> int:
        """First id of the amount block (:attr:`actions`)."""
        return self.actions.amount

    @property
    def A_DICE(self) -> int:
        """First id of the dice block."""
        return self.actions.dice

    @property
    def A_BLITZ(self) -> int:
        """The blitz id."""
        return self.actions.blitz

    @property
    def A_TRADE(self) -> int:
        """First id of the trade block (-1 without cards)."""
        return self.actions.trade

    @property
    def A_END(self) -> int:
        """The end id (the last id)."""
        return self.actions.end

    # ------------------------------------------------------------------ helpers
    def any(self, m: torch.Tensor) -> bool:
        """Whether some game needs a part of the step (always True with ``static``: no host check)."""
        return True if self.static else bool(m.any())

    def rows_of(self, m: torch.Tensor) -> torch.Tensor:
        """The games a rare part is computed for: those of ``m`` (every game with ``static``)."""
        if self.static:
            return torch.arange(m.shape[0], device=self.device)
        return m.nonzero()[:, 0]

    def current_player(self, s: BatchState) -> torch.Tensor:
        """int64 ``(B,)``: the seat that decides now (-1 after the game): the defender in the defend
        phase (for the allied army, the player not attacking), the commander during the allied
        army's sub-turn, else the player on turn (``Game.current_player``, docs/rules.md §4.2, §7)."""
        cur = s.player
        if self.allied >= 0:
            assert s.commander is not None
            cur = torch.where(s.player == self.allied, s.commander, cur)
        if self.choose:
            d = take(s.owner, s.att_dst)
            if self.allied >= 0:
                first_other = torch.where(s.order[:, 0] != s.player, s.order[:, 0], s.order[:, 1])
                d = torch.where(d == self.allied, first_other, d)
            cur = torch.where(s.phase == DEFEND, d, cur)
        return torch.where(s.phase == GAME_OVER, -1, cur)

    def allied_reinforcement(self, s: BatchState) -> torch.Tensor:
        """int64 ``(B,)``: armies the allied army gets this turn: half of what the player on turn
        received (rounded down), 0 once it holds no territory (``Game.allied_reinforcement``, §7)."""
        assert s.received is not None
        holds = (s.owner == self.allied).any(1)
        return torch.where(holds, torch.div(s.received, 2, rounding_mode="floor"), 0)

    def hand_symbols(self, s: BatchState, seat: torch.Tensor) -> torch.Tensor:
        """int64 ``(B, 5)``: :func:`risk_env.vector.observe.hand_symbols` of ``seat``."""
        return observe.hand_symbols(self, s, seat)

    def _hand_count(self, s: BatchState, seat: torch.Tensor) -> torch.Tensor:
        if not self.NC:
            return torch.zeros_like(seat)
        return (s.card_loc == seat[:, None]).sum(1)

    def _income(self, owner: torch.Tensor, seat: torch.Tensor) -> torch.Tensor:
        """Reinforcements at a turn start: max(3, territories // 3) + the continents' bonuses (§4.1)."""
        own = (owner == seat[:, None]).float()
        n_own = own.sum(1).long()
        per_cont = (own @ self.tab.members_f).long()  # (B, C)
        bonus = ((per_cont == self.tab.cont_size) * self.tab.cont_bonus).sum(1)
        return torch.clamp(torch.div(n_own, 3, rounding_mode="floor"), min=3) + bonus

    # ------------------------------------------------------------------ creation
    def blank(self, B: int) -> BatchState:
        """``B`` empty positions (:func:`risk_env.vector.state.blank_state`)."""
        return blank_state(self, B)

    def from_states(self, states: list[Any], selections: list[Any] | None = None) -> BatchState:
        """Reference positions as a batch (:func:`risk_env.vector.state.from_states`).

        Raises:
            ConfigError: ``states`` is not a non-empty list of GameState of this game, or
                ``selections`` does not match it.
        """
        return from_states(self, states, selections)

    def bytes_per_game(self) -> int:
        """Bytes of memory one game takes in a batch, a lower bound: :data:`STEP_WORK` times its state (the state and
        a step's work tensors) plus its flat observation (``D`` float32) and action mask (``N`` bools), measured from
        the tensors of one new game (the generator is left as it was)."""
        if self._bytes_per_game is None:
            saved = self.generator.get_state()
            try:
                with torch.inference_mode():
                    state = self.new_games(1).nbytes()
            finally:
                self.generator.set_state(saved)
            self._state_bytes = state
            self._bytes_per_game = STEP_WORK * state + 4 * self.obs_size + self.num_actions
        return self._bytes_per_game

    def state_bytes_per_game(self) -> int:
        """Bytes of game state per game (the state tensors only), measured from one new game (the generator is left
        as it was)."""
        self.bytes_per_game()
        assert self._state_bytes is not None
        return self._state_bytes

    def check_batch(self, count: int, what: str, extra: int = 0, extra_what: str = "") -> None:
        """Refuse a batch of ``count`` games that cannot fit the device's memory (:func:`device_memory`), before any
        of it is allocated: a batch too large for the RAM is killed by the system, not refused.

        Args:
            count: games at once.
            what: how the caller names ``count``, for the message (``"num_envs"``).
            extra: bytes a game takes besides :meth:`bytes_per_game` (the graph observation's), named in the message
                by ``extra_what``.

        Raises:
            ConfigError: ``count`` times :meth:`bytes_per_game` exceeds the memory there; the message gives both, and
                the most games that fit.
        """
        have = device_memory(self.device)
        if have is None:
            return
        memory, source = have
        per = self.bytes_per_game() + int(extra)
        need = count * per
        if need <= memory:
            return
        fit = memory // per
        parts = "its state, a step's work tensors, its observation and mask" + (f", {extra_what}" if extra else "")
        raise ConfigError(
            f"{what}={count:,}: the games need about {_gib(need)} of memory ({per:,} bytes a game: {parts}), but "
            f"{self.device} has {_gib(memory)} ({source}); "
            + (f"the largest {what} that fits is {fit:,}" if fit else "not one game fits")
        )

    def new_games(self, B: int) -> BatchState:
        """``B`` new games: turn order drawn, setup done up to the first decision (docs/rules.md §3, §7, §8).

        Raises:
            ConfigError: ``B`` is not an integer >= 1.
        """
        if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 1:
            raise ConfigError(f"the number of games must be an integer >= 1, got {B!r}")
        B = int(B)
        cfg, dev, gen = self.config, self.device, self.generator
        T, n = self.T, self.n
        s = self.blank(B)
        s.order = torch.argsort(torch.rand(B, n, generator=gen, dtype=torch.float32, device=dev), dim=1)
        s.order_pos = torch.argsort(s.order, dim=1)
        s.alive[:] = True
        start = int(cfg.starting_armies or 0)
        s.setup_left[:, :n] = start
        if self.neutral >= 0:
            s.setup_left[:, n] = start
        every = torch.ones(B, dtype=torch.bool, device=dev)
        if cfg.setup == "claim":
            s.phase[:] = CLAIM
            s.player = s.order[:, 0].clone()
        else:
            # deal the territories in claiming order (the neutral last in the cycle); under the
            # allied army's rules only a third each, the rest to the allied army (§3, §7)
            cycle = s.order
            if self.neutral >= 0:
                cycle = torch.cat([s.order, torch.full((B, 1), self.neutral, device=dev, dtype=torch.int64)], dim=1)
            L = cycle.shape[1]
            perm = torch.argsort(torch.rand(B, T, generator=gen, dtype=torch.float32, device=dev), dim=1)
            k = self.ar_T
            seat_of_k = cycle[:, k % L]
            armies_k = torch.ones(B, T, dtype=torch.int64, device=dev)
            if self.allied >= 0:
                rest = k >= n * self.allied_claims
                seat_of_k = torch.where(rest[None, :], self.allied, seat_of_k)
                armies_k = torch.where(rest[None, :], ALLIED_START_ARMIES, armies_k)
            s.owner.scatter_(1, perm, seat_of_k)
            s.armies.scatter_(1, perm, armies_k)
            seat_owner = torch.where(s.owner >= n, n, s.owner)  # the neutral's (and the allied army's) column n
            counts = torch.zeros(B, n + 1, dtype=torch.int64, device=dev)
            counts.scatter_add_(1, seat_owner, torch.ones_like(s.owner))
            if self.allied >= 0:
                counts[:, n] = 0  # the allied army places no setup armies
            s.setup_left -= counts
            if self.neutral < 0:
                s.setup_left[:, n] = 0
            if cfg.setup == "random":
                left = s.setup_left  # (B, n + 1): the seats, then the neutral
                most = int(left.max()) if left.numel() else 0
                if most > 0:
                    col = torch.arange(n + 1, device=dev)
                    own = (seat_owner[:, None, :] == col[None, :, None]) & (left[:, :, None] > 0)
                    own = own | ~own.any(2, keepdim=True)  # (rows without armies to place: any territory, unused)
                    picks = torch.multinomial(own.reshape(B * (n + 1), T).float(), most, replacement=True, generator=gen)
                    keep = (torch.arange(most, device=dev)[None, None, :] < left[:, :, None]).long()
                    s.armies.scatter_add_(1, picks.reshape(B, (n + 1) * most), keep.reshape(B, (n + 1) * most))
                s.setup_left[:] = 0
                self._start_game(s, every)
            else:
                s.phase[:] = SETUP_PLACE
                self._next_setup_turn(s, every, first=True)
        if cfg.secret_missions:  # one mission card each; "destroy" yourself or an absent seat: 24 territories (§8)
            assert s.missions is not None
            deck = torch.argsort(torch.rand(B, len(MISSIONS), generator=gen, dtype=torch.float32, device=dev), dim=1)[:, :n]
            target = self.mission_target.index_select(0, deck.reshape(-1)).reshape(B, n)
            bad = (deck >= DESTROY_FIRST) & ((target == self.ar_n[None, :]) | (target >= n))
            s.missions = torch.where(bad, TWENTY_FOUR, deck)
        return s

    # ------------------------------------------------------------------ the turn flow
    def _begin_turn(self, s: BatchState, m: torch.Tensor) -> None:
        """Turn start for games ``m``: reinforcements and a forced trade at 5+ cards (docs/rules.md §4.1)."""
        if not self.any(m):
            return
        s.turn = s.turn + m  # (a bool adds as 0 or 1)
        s.phase = torch.where(m, REINFORCE, s.phase)
        rows = self.rows_of(m)  # the few games starting a turn (every game with static)
        p_rows = s.player[rows]
        income = self._income(s.owner[rows], p_rows)
        s.to_place = torch.where(m, income, s.to_place) if self.static else s.to_place.index_copy(0, rows, income)
        keep = ~m
        for name in ("bonus_used", "conquered", "resume_attack", "trade_down", "reroll_used", "six_used"):
            setattr(s, name, getattr(s, name) & keep)
        s.att_src = torch.where(m, -1, s.att_src)
        s.att_dst = torch.where(m, -1, s.att_dst)
        s.att_dice = torch.where(m, 0, s.att_dice)
        if self.trades_sets:  # a forced trade at 5+ cards
            held = (s.card_loc[rows] == p_rows[:, None]).sum(1) >= 5
            s.forced = torch.where(m, held, s.forced) if self.static else s.forced.index_copy(0, rows, held)
        else:
            s.forced = s.forced & keep
        if s.received is not None:
            s.received = torch.where(m, s.to_place, s.received)  # the allied army's half is counted from it (§7)

    def _start_game(self, s: BatchState, m: torch.Tensor) -> None:
        """After setup: the capital choices in turn order when ``capitals``, then the first turn (§8)."""
        s.turn = torch.where(m, 0, s.turn)
        if s.capitals is not None:
            free = s.capitals.gather(1, s.order) < 0  # (B, n) in turn order
            choose = m & free.any(1)
            seat = s.order.gather(1, free.long().argmax(1)[:, None])[:, 0]
            s.phase = torch.where(choose, CAPITAL, s.phase)
            s.player = torch.where(choose, seat, s.player)
            m = m & ~choose
        s.player = torch.where(m, s.order[:, 0], s.player)
        self._begin_turn(s, m)

    def _next_setup_turn(self, s: BatchState, m: torch.Tensor, first: bool | torch.Tensor = False) -> None:
        """The next seat in order with setup armies to place (or the neutral's), else start the game."""
        n = self.n
        if isinstance(first, bool):
            start = torch.zeros_like(s.player) if first else take(s.order_pos, s.player) + 1
        else:
            start = torch.where(first, 0, take(s.order_pos, s.player) + 1)
        cand = s.order.gather(1, (start[:, None] + self.ar_n[None, :]) % n)  # (B, n)
        neutral_left = s.setup_left[:, n] > 0
        own_left = s.setup_left.gather(1, cand) > 0
        ok = own_left | neutral_left[:, None]
        has = ok.any(1)
        k = ok.long().argmax(1)
        seat = cand.gather(1, k[:, None])[:, 0]
        go = m & has
        s.player = torch.where(go, seat, s.player)
        s.setup_step = torch.where(go, torch.where(own_left.gather(1, k[:, None])[:, 0], 0, 2), s.setup_step)
        s.phase = torch.where(go, SETUP_PLACE, s.phase)
        self._start_game(s, m & ~has)

    def _end_turn(self, s: BatchState, m: torch.Tensor, p: torch.Tensor, draws: Draws) -> torch.Tensor:
        """A card after a conquest, the turn limit, the next player (docs/rules.md §4.4, §4.5)."""
        if self.NC:
            dm = m & s.conquered
            if self.any(dm):
                rows = self.rows_of(dm)  # the games drawing a card (every game with static)
                loc = s.card_loc[rows]
                dmr = dm[rows]
                deck, discard = loc == DECK, loc == DISCARD
                reshuffle = dmr & ~deck.any(1) & discard.any(1)  # the discards become the draw pile
                back = reshuffle[:, None] & discard
                loc = torch.where(back, DECK, loc)
                deck = deck | back
                count = deck.sum(1)
                got = dmr & (count > 0)
                k = draws.choice(count, "card", rows)  # the k-th card of the pile: uniform, as the top of a shuffled pile
                card = (deck.cumsum(1) > k[:, None]).long().argmax(1)  # the first index with k + 1 pile cards up to it
                if draws.card is not None:
                    card = torch.where(draws.card[rows] >= 0, draws.card[rows], card)
                card = card[:, None]
                s.card_loc[rows] = loc.scatter(1, card, torch.where(got[:, None], p[rows, None], loc.gather(1, card)))
        trunc = m & (s.turn >= self.config.turn_limit)
        s.truncated = s.truncated | trunc
        s.phase = torch.where(trunc, GAME_OVER, s.phase)
        go = m & ~trunc
        cand = s.order.gather(1, self.next_pos.index_select(0, take(s.order_pos, p)))  # the next seats in turn order
        ok = s.alive.gather(1, cand)
        nxt = cand.gather(1, ok.long().argmax(1)[:, None])[:, 0]
        s.player = torch.where(go, nxt, s.player)
        self._begin_turn(s, go)
        return trunc

    def _end_attack_allied(self, s: BatchState, m_end: torch.Tensor, p: torch.Tensor) -> None:
        """The end of an attack phase under the allied army's rules (docs/rules.md §7): after the
        mover's, the opponent places the allied reinforcement and may attack with it (straight to
        the fortify when the allied army holds nothing); after the allied army's, the mover fortifies."""
        assert s.commander is not None and s.received is not None
        mover = m_end & (p != self.allied)
        allied_done = m_end & (p == self.allied)
        holds = (s.owner == self.allied).any(1)
        start = mover & holds
        s.phase = torch.where(mover & ~holds, FORTIFY, s.phase)
        # the commander: the first live seat in turn order other than the mover
        ok = (s.order != p[:, None]) & s.alive.gather(1, s.order)
        other = s.order.gather(1, ok.long().argmax(1)[:, None])[:, 0]
        reinf = torch.div(s.received, 2, rounding_mode="floor")
        s.commander = torch.where(start, other, s.commander)
        s.to_place = torch.where(start, reinf, s.to_place)
        s.player = torch.where(start, self.allied, s.player)
        straight = start & (reinf == 0) & ~s.forced
        s.phase = torch.where(start, torch.where(straight, ATTACK, REINFORCE), s.phase)
        s.resume_attack = s.resume_attack & ~straight
        # the allied army's attacks are over: the mover (the seat not commanding) fortifies
        mover_seat = torch.where(s.order[:, 0] != s.commander, s.order[:, 0], s.order[:, 1])
        s.player = torch.where(allied_done, mover_seat, s.player)
        s.commander = torch.where(allied_done, -1, s.commander)
        s.phase = torch.where(allied_done, FORTIFY, s.phase)
        reset = start | allied_done
        s.att_src = torch.where(reset, -1, s.att_src)
        s.att_dst = torch.where(reset, -1, s.att_dst)
        s.att_dice = torch.where(reset, 0, s.att_dice)

    # ------------------------------------------------------------------ masks, observations, rewards
    def action_mask(self, s: BatchState, hand: torch.Tensor | None = None) -> torch.Tensor:
        """bool ``(B, N)``: ``ActionCodec.mask`` of each game for the seat to act
        (:func:`risk_env.vector.masks.action_mask`; ``hand``: :meth:`hand_symbols` of the player on turn)."""
        self._check_state(s)
        return masks.action_mask(self, s, hand)

    def observe(self, s: BatchState, seat: torch.Tensor | None = None, hand: torch.Tensor | None = None) -> torch.Tensor:
        """float32 ``(B, D)``: ``ObservationEncoder.encode`` of each game for ``seat`` (default: the
        seat to act) (:func:`risk_env.vector.observe.observe`; ``hand``: :meth:`hand_symbols` of ``seat``).

        Raises:
            ConfigError: ``seat`` is not an integer ``(B,)`` tensor of seats ``0..n-1``.
        """
        self._check_state(s)
        if seat is not None:
            seat = self._check_seats(seat, s.batch_size)
        return observe.observe(self, s, seat, hand)

    def observe_graph(
        self,
        s: BatchState,
        seat: torch.Tensor | None = None,
        mask: torch.Tensor | None = None,
        turn_feature: bool = False,
        flat: torch.Tensor | None = None,
    ) -> dict[str, torch.Tensor]:
        """The AEC env's graph observation of each game (:func:`risk_env.vector.observe.observe_graph`).

        Raises:
            ConfigError: ``seat`` is not an integer ``(B,)`` tensor of seats ``0..n-1``.
        """
        self._check_state(s)
        if seat is not None:
            seat = self._check_seats(seat, s.batch_size)
        return observe.observe_graph(self, s, seat, mask, turn_feature, flat)

    def rewards(self, s: BatchState, info: StepInfo) -> torch.Tensor:
        """float32 ``(B, n)``: the AEC env's rewards for the step ``info`` reports (after it, before
        any reset): :func:`risk_env.vector.outcome.rewards`."""
        return outcome.rewards(self, s, info)

    # ------------------------------------------------------------------ argument checks
    def _check_seats(self, seat: Any, B: int) -> torch.Tensor:
        """``seat`` as int64 on this device, once it is an integer ``(B,)`` tensor of seats ``0..n-1``."""
        self._check_vector(seat, B, "seat", integer=True)
        t = seat.to(device=self.device, dtype=torch.int64)
        if B and not bool(((t >= 0) & (t < self.n)).all()):
            bad = t[(t < 0) | (t >= self.n)][0].item()
            raise ConfigError(f"seat must hold seats 0..{self.n - 1}, got {bad}")
        return t

    def _check_state(self, s: Any) -> None:
        if not isinstance(s, BatchState):
            raise ConfigError(f"expected a BatchState (from new_games or from_states), got {type(s).__name__}")
        if s.owner.dim() != 2 or s.owner.shape[1] != self.T or s.owner.device != self.device:
            raise ConfigError(
                f"this BatchState does not belong to this game: owner {tuple(s.owner.shape)} on {s.owner.device}, "
                f"expected (B, {self.T}) on {self.device}"
            )

    def _check_vector(self, x: Any, B: int, name: str, integer: bool) -> None:
        ok_dtype = (
            (lambda d: d not in (torch.bool,) and not d.is_floating_point and not d.is_complex)
            if integer
            else (lambda d: d == torch.bool)
        )
        if not isinstance(x, torch.Tensor) or x.shape != (B,) or not ok_dtype(x.dtype):
            what = "an integer" if integer else "a bool"
            got = f"{type(x).__name__} {tuple(x.shape)} {x.dtype}" if isinstance(x, torch.Tensor) else type(x).__name__
            raise ConfigError(f"{name} must be {what} tensor of shape ({B},), got {got}")

    # ------------------------------------------------------------------ step
    def step(
        self, s: BatchState, action: torch.Tensor, chance: Chance | None = None, active: torch.Tensor | None = None
    ) -> StepInfo:
        """Apply action ids ``action`` (int64 ``(B,)``) to ``s`` in place, like ``ActionCodec.step``
        on each game. Games already over, and games where bool ``active`` is False, are
        left unchanged. The ids must be legal (see :meth:`action_mask`); illegal ids
        give undefined positions (the :class:`~risk_env.vector.VectorEnv` checks them).

        The step computes under ``torch.inference_mode()``: the tensors it puts into ``s`` and
        the returned :class:`StepInfo`'s are inference tensors (edit them in place only under
        ``torch.inference_mode()``, and use a ``clone()`` in a computation autograd tracks).

        Raises:
            ConfigError: ``s`` is not a state of this game, or ``action``, ``active`` or ``chance`` has the
                wrong type or shape (checked before anything changes).
        """
        self._check_state(s)
        B = s.batch_size
        self._check_vector(action, B, "action", integer=True)
        if active is not None:
            self._check_vector(active, B, "active", integer=False)
        if chance is not None:
            if not isinstance(chance, Chance) or not isinstance(chance.dice, torch.Tensor) or chance.dice.dim() != 2:
                raise ConfigError("chance must be a Chance with dice an int64 (B, L) tensor")
            if chance.dice.shape[0] != B:
                raise ConfigError(f"chance.dice must have one row per game ({B}), got {chance.dice.shape[0]}")
        draws = Draws(self, B, chance)
        with torch.inference_mode():
            return self._step(s, action.to(device=self.device, dtype=torch.int64), draws, active)

    def draws(self, B: int, draw: bool = True) -> Draws:
        """One step's chance for ``B`` games drawn from the generator (what :meth:`step` draws
        without injected chance; ``draw=False``: not drawn yet, see ``Draws.redraw``);
        :meth:`step_drawn` plays a step with it."""
        return Draws(self, B, None, draw=draw)

    def step_drawn(self, s: BatchState, action: torch.Tensor, draws: Draws, active: torch.Tensor | None = None) -> StepInfo:
        """:meth:`step` with its chance drawn already (:meth:`draws`), for callers that keep the
        tensors of a step in place (the CUDA graphs of :mod:`risk_env.vector.graphs`); ``action``
        must be int64 ``(B,)`` and ``active`` bool ``(B,)`` (or None) on this device. No argument checks."""
        with torch.inference_mode():
            return self._step(s, action, draws, active)

    def _step(self, s: BatchState, a: torch.Tensor, draws: Draws, active: torch.Tensor | None) -> StepInfo:
        tab, cfg = self.tab, self.config
        B, K, n = s.batch_size, self.K, self.n
        dev = self.device
        A = self.actions
        # every update below is gated by the phase masks: a game read as over is not touched
        ph = s.phase if active is None else torch.where(active.to(dev), s.phase, GAME_OVER)
        p = s.player.clone()
        ss, sd, st = s.sel_src, s.sel_dst, s.sel_trade
        # the id read as a territory, an amount level, a dice count and a set composition (id_read)
        at, lvl, dn, comp = (a[None, :] - self.id_first).clamp(self.id_lo, self.id_hi).unbind(0)
        zeros_b = torch.zeros(B, dtype=torch.bool, device=dev)
        no_src = ss < 0
        # the battle's pair: the selected one, else the last battle's (docs/rules.md §4.2); armies
        # are read once for the step (they change only at its end): the selected source, the
        # pair, and the last battle's source (an occupation's)
        r_src = torch.where(no_src, s.att_src, ss).clamp(min=0)
        r_dst = torch.where(no_src, s.att_dst, sd).clamp(min=0)
        src_a, A_, D_, occ_src_a = take_many(s.armies, ss, r_src, r_dst, s.att_src)
        # ---- what the id means here: the sub-step protocol's table (risk_env.envs.layout.PROTOCOL),
        # row = the decision (phase, pending selection), column = the id's block; code =
        # (phase * n_selections + selection) * n_blocks + block, the selection's part a weighted
        # count of the selections made (made_weight)
        pending = torch.stack([ss, sd, st])  # (3, B): the selections made (-1: none)
        code = (
            ((pending >= 0) * self.made_weight).sum(0)
            + ph * (self.n_selections * self.n_blocks)
            + self.block_of.index_select(0, a.clamp(0, A.n - 1))
        )
        if self.dice_rules:  # a waiting roll is a selection of its own
            code = code + (SELECTIONS.index("roll") * self.n_blocks) * s.roll_pending
        sel = self.select_tab.index_select(0, code)  # 0 none, 1 a source, 2 a target, 3 a trade's bonus to ask
        mv = self.move_tab.index_select(0, code)  # the MoveKind it completes, -1 none
        P_REINF = ph == REINFORCE
        # ---- sub-steps (pending selections), unless the count they would ask for is forced
        trade_opts = torch.zeros(B, dtype=torch.int64, device=dev)
        first_opt = torch.full((B,), -1, dtype=torch.int64, device=dev)
        asks_trade = sel == 3
        if self.trades_sets:
            if self.any(asks_trade):  # trade ids: how many +2 bonus options
                ti = self.rows_of(asks_trade)
                opts = bonus_options(self, s, comp, ti)
                n_opts = opts.sum(1)
                first = torch.where(n_opts > 0, opts.long().argmax(1), -1)
                trade_opts[ti] = torch.where(asks_trade[ti], n_opts, 0)
                first_opt[ti] = torch.where(asks_trade[ti], first, -1)
        # the count that decides (force_tab): at most one +2 bonus option (the trade completes),
        # the last army to place, a fortify from 2 armies (it moves 1)
        counts = torch.stack([zeros_b, trade_opts <= 1, s.to_place == 1, src_a == 2])
        forced = counts.gather(0, self.force_tab.index_select(0, code)[None, :])[0]
        sel = torch.where(forced, 0, sel)
        substep = sel > 0
        done = torch.where(substep, -1, mv)
        # ---- complete moves
        is_move = (self.ar_moves[:, None] == done[None, :]).unbind(0)  # is_move[k]: the games completing MoveKind k
        m_claim = is_move[MoveKind.CLAIM]
        P_SETUP = is_move[MoveKind.PLACE] & (ph == SETUP_PLACE)
        m_place = is_move[MoveKind.PLACE] & P_REINF
        m_trade = is_move[MoveKind.TRADE]
        m_endatt = is_move[MoveKind.END_ATTACK]
        m_attack = is_move[MoveKind.ATTACK]
        m_blitz = is_move[MoveKind.BLITZ]
        m_occ = is_move[MoveKind.OCCUPY]
        m_fort = is_move[MoveKind.FORTIFY]
        m_end_turn = is_move[MoveKind.END_TURN] | m_fort
        complete = done >= 0

        # selections
        # selections: a sub-step records the id as the one it asks for, a complete move clears them
        recorded = torch.where(sel == self.sel_kinds, torch.stack([at, at, comp]), pending)
        s.sel_src, s.sel_dst, s.sel_trade = torch.where(complete, -1, recorded).unbind(0)
        s.steps = s.steps + complete

        # ---- the armies an amount id means for a reinforcement, an occupation (beyond the dice moved
        # in) and a fortification: lo + round_half_up(level * span / (K - 1)), span = hi - lo
        # (layout.amount_of); a last army to place (no amount id: level 0) has span 0, so reads 1
        spans = torch.stack([s.to_place, occ_src_a, src_a], 1) - self.amount_span_off
        amounts = torch.div((2 * lvl)[:, None] * spans + (K - 1), 2 * (K - 1), rounding_mode="floor") + self.amount_lo
        s.to_place = s.to_place - torch.where(m_place, amounts[:, 0], 0)
        bonus_t, bonus_n = at, torch.zeros_like(at)  # a trade's +2 bonus territory and armies (none)
        # ---- trades (docs/rules.md §4.1, §6)
        if self.NC and self.any(m_trade):
            mi = self.rows_of(m_trade)
            if self.stars:
                cards = pick_stars(self, s, comp + MIN_STARS, mi)
                value = tab.stars_values[comp]
                t_bonus = torch.full_like(comp, -1)
            else:
                t_comp = torch.where(st >= 0, st, comp)
                t_bonus = torch.where(st >= 0, at, first_opt)
                cards = pick_cards(self, s, t_comp, t_bonus, mi)
                if cfg.card_trade == "fixed_by_symbol":
                    value = tab.comp_values[t_comp]
                else:
                    value = tab.set_values[s.sets_traded.clamp(max=tab.set_values.numel() - 1)]
            cards &= m_trade[mi][:, None]
            s.card_loc[mi] = torch.where(cards, DISCARD, s.card_loc[mi])
            s.sets_traded = s.sets_traded + m_trade
            s.to_place = s.to_place + torch.where(m_trade, value, 0)
            has_bonus = m_trade & (t_bonus >= 0)
            bonus_t, bonus_n = t_bonus.clamp(min=0), 2 * has_bonus
            s.bonus_used = s.bonus_used | has_bonus
            if s.received is not None:
                s.received = s.received + torch.where(m_trade, value + bonus_n, 0)
            s.forced = s.forced & ~(m_trade & (self._hand_count(s, p) <= 4))
        # end of the reinforce phase
        to_att = (m_place | m_trade) & (s.to_place == 0) & ~s.forced
        s.phase = torch.where(to_att, ATTACK, s.phase)
        s.resume_attack = s.resume_attack & ~to_att
        if self.allied >= 0:
            if self.any(m_endatt):
                self._end_attack_allied(s, m_endatt, p)
        else:
            s.phase = torch.where(m_endatt, FORTIFY, s.phase)

        # ---- battles (docs/rules.md §4.2, §8)
        if self.dice_rules:  # a new battle, and every blitz, brings the re-roll back (§8)
            new_battle = m_attack & ((r_src != s.att_src) | (r_dst != s.att_dst))
            s.reroll_used = s.reroll_used & ~(new_battle | m_blitz)
        ndice = torch.where(m_blitz, torch.clamp(A_ - 1, max=ATTACK_DICE), dn)
        s.att_src = torch.where(m_attack, r_src, s.att_src)
        s.att_dst = torch.where(m_attack, r_dst, s.att_dst)
        s.att_dice = torch.where(m_attack, ndice, s.att_dice)
        # the rolls of one round (attacks; with the defender's choice, its answers instead) and the
        # blitzes rolled now, the defender's dice of a round
        single, blitz_now, j = m_attack, m_blitz, torch.clamp(D_, max=DEFEND_DICE)
        blitzing_defend = zeros_b
        if self.choose:  # the defender decides its dice, every round of a blitz too (§4.2)
            m_defend = is_move[MoveKind.DEFEND]
            to_def = (m_attack | m_blitz) & (take(s.owner, r_dst) != self.neutral)
            blitz_def = m_blitz & to_def
            s.att_src = torch.where(blitz_def, r_src, s.att_src)
            s.att_dst = torch.where(blitz_def, r_dst, s.att_dst)
            s.att_dice = torch.where(blitz_def, ndice, s.att_dice)
            blitzing_defend = m_defend & s.blitzing
            s.blitzing = s.blitzing | blitz_def
            s.phase = torch.where(to_def, DEFEND, torch.where(m_defend, ATTACK, s.phase))
            single = (m_attack & ~to_def) | m_defend
            blitz_now = m_blitz & ~to_def
            j = torch.where(m_defend, dn.clamp(max=DEFEND_DICE), j)
        k = s.att_dice
        direct = single  # the rolls that settle now
        if self.dice_rules:  # the roll waits for a re-roll or a six (the allied army's rolls stand, §7)
            wait = single & ~blitzing_defend
            if self.allied >= 0:
                wait &= p != self.allied
            direct = single & ~wait
        faces_needed = draws.injected or self.dice_rules
        al = dl = torch.zeros(B, dtype=torch.int64, device=dev)  # (read only where a roll settles)
        if self.any(single):
            if faces_needed:
                ad, dd = dice.sorted_faces(draws.faces(single, k + j), k, j)
                if s.last_roll is not None:
                    s.last_roll = torch.where(single[:, None], torch.cat([ad, dd], 1), s.last_roll)
            if draws.injected:
                al, dl = dice.resolve(ad, dd)
            else:
                al, dl = dice.sample_roll(self, draws.roll_uniform(), k, j)
        s.last_dice = torch.where(single, k, s.last_dice)
        att_loss = torch.where(direct, al, 0)
        def_loss = torch.where(direct, dl, 0)
        used = torch.where(direct, k, 0)  # attacker dice of the roll that settles (a conquest moves them in)
        settle = zeros_b
        if self.dice_rules:  # a waiting roll re-rolled, turned to a six or kept; it settles once no option is left
            assert s.last_roll is not None
            s.roll_pending = s.roll_pending | wait
            m_reroll = is_move[MoveKind.REROLL]
            m_six = is_move[MoveKind.SIX]
            m_keep = is_move[MoveKind.KEEP_ROLL]
            change = m_reroll | m_six
            if self.any(change):
                col = torch.where(m_reroll, a - A.reroll, a - A.six).clamp(0, ATTACK_DICE - 1)
                face = torch.where(m_reroll, draws.reroll_face(m_reroll), 6)
                att_faces = s.last_roll[:, :ATTACK_DICE]
                hit = change[:, None] & (self.ar_dice[None, :] == col[:, None])
                att_faces = torch.where(hit, face[:, None], att_faces).sort(1, descending=True).values
                s.last_roll = torch.cat([att_faces, s.last_roll[:, ATTACK_DICE:]], 1)
                s.reroll_used = s.reroll_used | m_reroll
                s.six_used = s.six_used | m_six
            opt_reroll, opt_six = masks.expert_options(self, s, s.roll_pending)
            settle = ((wait | change) & ~(opt_reroll | opt_six)) | m_keep
            if self.any(settle):
                sl, sdl = dice.resolve(s.last_roll[:, :ATTACK_DICE], s.last_roll[:, ATTACK_DICE:])
                att_loss = torch.where(settle, sl, att_loss)
                def_loss = torch.where(settle, sdl, def_loss)
                used = torch.where(settle, s.att_dice, used)
            s.roll_pending = s.roll_pending & ~settle
        if self.any(blitz_now):
            bl, bdl, blast = dice.blitz(self, draws, blitz_now, A_, D_, s.last_roll)
            att_loss = torch.where(blitz_now, bl, att_loss)
            def_loss = torch.where(blitz_now, bdl, def_loss)
            used = torch.where(blitz_now, blast, used)
            s.last_dice = torch.where(blitz_now, blast, s.last_dice)
        resolved = direct | blitz_now
        if self.dice_rules:
            resolved = resolved | settle
        conq = resolved & (D_ - def_loss == 0)
        # an attack records its battle; a blitz only a conquest (the reference engine's conquer)
        s.att_src = torch.where(conq, r_src, s.att_src)
        s.att_dst = torch.where(conq, r_dst, s.att_dst)
        mv = torch.where(conq, used, 0)
        A2 = A_ - att_loss  # source armies after the losses, before moving in
        # ---- the army changes of the move completed (army_changes; a battle's losses are 0 unless
        # its roll settles, an occupation's and a fortification's pair is the source and the
        # target, §4.2, §4.3): the candidates, and the columns the code's row of change_tab picks
        terr = torch.stack([at, ss, sd, r_src, r_dst, bonus_t], 1)  # TERRITORY_CANDIDATES
        battle = torch.stack([-att_loss - mv, mv - def_loss, bonus_n], 1)
        deltas = torch.cat([self.unit_deltas.expand(B, 3), amounts, -amounts[:, 1:], battle], 1)  # DELTA_CANDIDATES
        cols = self.change_tab.index_select(0, torch.where(substep, self.no_change, code))
        s.armies = s.armies.scatter_add(1, terr.gather(1, cols[:, :2]), deltas.gather(1, cols[:, 2:]))
        if self.variant_wins and s.capitals is not None:  # a capital choice (§8)
            m_cap = is_move[MoveKind.CAPITAL]
            s.capitals = torch.where(m_cap[:, None] & (self.ar_n[None, :] == p[:, None]), at[:, None], s.capitals)

        # owners: claims and conquests
        new_own = m_claim | conq
        own_t = torch.where(m_claim, at, r_dst)
        loser, own_now = take_many(s.owner, r_dst, own_t)
        s.owner = s.owner.scatter(1, own_t[:, None], torch.where(new_own, p, own_now)[:, None])

        # conquest: elimination, cards, the win (docs/rules.md §4.2, §4.5, §7)
        by_player = conq if self.allied < 0 else conq & (p != self.allied)
        s.conquered = s.conquered | by_player
        s.trade_down = s.trade_down & ~conq
        elim = torch.zeros_like(s.alive)
        won = zeros_b
        if self.any(conq):
            rows = self.rows_of(conq)  # was that the loser's last territory? (the conquering games only)
            left = (s.owner[rows] == loser[rows, None]).any(1)
            gone = conq & (loser < n) & ~torch.ones_like(conq).index_copy(0, rows, left)
            if self.any(gone):
                elim = gone[:, None] & (self.ar_n[None, :] == loser[:, None])
                s.alive = s.alive & ~elim
                if s.eliminated_by is not None:
                    s.eliminated_by = torch.where(elim, p[:, None], s.eliminated_by)
                if self.NC:
                    to = p if self.allied < 0 else torch.where(p == self.allied, DISCARD, p)  # the allied army takes none
                    s.card_loc = torch.where(gone[:, None] & (s.card_loc == loser[:, None]), to[:, None], s.card_loc)
                    if self.trades_sets:
                        s.trade_down = s.trade_down | (by_player & gone & (self._hand_count(s, p) >= cfg.elimination_trade_at))
                won = gone & (s.alive.sum(1) == 1)
                s.winner = torch.where(won, s.alive.long().argmax(1), s.winner)  # the last player standing
        conq_go = conq & ~won
        to_occ = conq_go & (A2 - mv > 1)
        after_occ = (conq_go & ~to_occ) | m_occ
        if self.choose:  # the next round of a blitz the defender decides, unless it is over (§4.2)
            again = blitzing_defend & ~conq & (A2 >= 2)
            s.blitzing = s.blitzing & ~(blitzing_defend & ~again)
            s.att_dice = torch.where(again, torch.clamp(A2 - 1, max=ATTACK_DICE), s.att_dice)
            s.phase = torch.where(again, DEFEND, s.phase)
        s.phase = torch.where(won, GAME_OVER, torch.where(to_occ, OCCUPY, s.phase))
        td = after_occ & s.trade_down
        s.phase = torch.where(after_occ, torch.where(td, REINFORCE, ATTACK), s.phase)
        s.trade_down = s.trade_down & ~td
        s.forced = s.forced | td
        s.resume_attack = s.resume_attack | td
        s.to_place = torch.where(td, 0, s.to_place)

        # ---- setup flow (docs/rules.md §3, §7, §8)
        if cfg.setup != "random" and self.any(m_claim | P_SETUP):
            m_setup_own = P_SETUP & (s.setup_step < 2)
            m_setup_neu = P_SETUP & (s.setup_step == 2)
            self._setup_flow(s, m_claim, m_setup_own, m_setup_neu, p, draws)
        if s.capitals is not None:
            m_cap = is_move[MoveKind.CAPITAL]
            if self.any(m_cap):
                self._start_game(s, m_cap)

        # ---- turn end (docs/rules.md §4.4, §4.5); a fortify may complete a mission first (§8)
        if self.variant_wins and self.any(m_fort):
            won = won | outcome.variant_win(self, s, m_fort & (s.turn >= 1))
            m_end_turn = m_end_turn & (s.phase != GAME_OVER)
        trunc = zeros_b
        if self.any(m_end_turn):
            trunc = self._end_turn(s, m_end_turn, p, draws)
        if self.variant_wins:
            check = complete & (s.turn >= 1) & (s.phase != GAME_OVER)
            if self.any(check):
                won = won | outcome.variant_win(self, s, check)
        return StepInfo(eliminated=elim, won=won, truncated=trunc)

    def _setup_flow(
        self, s: BatchState, m_claim: torch.Tensor, m_own: torch.Tensor, m_neu: torch.Tensor, p: torch.Tensor, draws: Draws
    ) -> None:
        n = self.n
        setup_seat = torch.where(m_neu, n, p)
        s.setup_left = s.setup_left.scatter_add(1, setup_seat[:, None], -(m_claim | m_own | m_neu).long()[:, None])
        if self.allied >= 0:  # each player has claimed its share: the rest is the allied army's (§7)
            share = m_claim & ((s.owner >= 0).sum(1) == n * self.allied_claims)
            rest = share[:, None] & (s.owner < 0)
            s.owner = torch.where(rest, self.allied, s.owner)
            s.armies = torch.where(rest, ALLIED_START_ARMIES, s.armies)
        # claims: the next seat in the cycle (the turn order, then the neutral), or the setup placement
        pos = take(s.order_pos, p)
        nxt = s.order.gather(1, ((pos + 1) % n)[:, None])[:, 0]
        all_claimed = ~(s.owner < 0).any(1)
        if self.neutral >= 0:  # the neutral claims at random in its turn of the rotation (§7)
            nc = m_claim & ~all_claimed & (pos == n - 1)
            if self.any(nc):
                free = s.owner < 0
                k = draws.choice(free.sum(1), "claim", None)
                t = (free & (free.long().cumsum(1) == (k + 1)[:, None])).long().argmax(1)
                if draws.claim is not None:
                    t = torch.where(draws.claim >= 0, draws.claim, t)
                claim = nc[:, None] & (self.ar_T[None, :] == t[:, None])
                s.owner = torch.where(claim, self.neutral, s.owner)
                s.armies = torch.where(claim, 1, s.armies)
                s.setup_left[:, n] -= nc.long()
                nxt = torch.where(nc, s.order[:, 0], nxt)
                all_claimed = ~(s.owner < 0).any(1)
        s.player = torch.where(m_claim & ~all_claimed, nxt, s.player)
        start_place = m_claim & all_claimed
        s.phase = torch.where(start_place, SETUP_PLACE, s.phase)
        s.setup_step = torch.where(start_place, 0, s.setup_step)
        # own setup army placed: with the neutral, two own then one neutral per setup turn
        nxt_turn = m_neu | start_place
        if self.neutral < 0:
            nxt_turn = nxt_turn | m_own
        else:
            step2 = s.setup_step + 1
            own_left = take(s.setup_left, p) > 0
            stay = m_own & (step2 < 2) & own_left
            neu = m_own & ~stay & (s.setup_left[:, n] > 0)
            # (the reference engine leaves the incremented step behind when the game starts)
            s.setup_step = torch.where(neu, 2, torch.where(m_own, step2, s.setup_step))
            nxt_turn = nxt_turn | (m_own & ~stay & ~neu)
        self._next_setup_turn(s, nxt_turn, first=start_place)
