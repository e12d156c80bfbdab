"""Positions of the batched engine: :class:`BatchState`, injected :class:`Chance`,
:class:`StepInfo`, the rules it supports (an allowlist), and positions built empty or
from reference :class:`risk_env.GameState` objects.

The phase ids are :class:`risk_env.Phase`'s and the fields those of
:class:`risk_env.GameState` (docs/rules.md §2), batched.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from ..envs.codec import Selection
from ..errors import ConfigError
from ..rules.config import RulesConfig
from ..rules.state import GameState, Phase

if TYPE_CHECKING:
    from .engine import VectorGame

__all__ = [
    "SUPPORTED_RULES",
    "BatchState",
    "Chance",
    "Support",
    "StepInfo",
    "blank_state",
    "check_rules",
    "from_states",
]

# Phase ids (risk_env.Phase), as ints for tensor comparisons
CLAIM, SETUP_PLACE, REINFORCE, ATTACK = int(Phase.CLAIM), int(Phase.SETUP_PLACE), int(Phase.REINFORCE), int(Phase.ATTACK)
DEFEND, OCCUPY, FORTIFY, GAME_OVER = int(Phase.DEFEND), int(Phase.OCCUPY), int(Phase.FORTIFY), int(Phase.GAME_OVER)
CAPITAL = int(Phase.CAPITAL)
DECK, DISCARD = -1, -2
"""Card locations in :attr:`BatchState.card_loc` besides a holding seat."""


# ---------------------------------------------------------------------- the rules it supports
@dataclass(frozen=True)
class Support:
    """What the batched engine does with one :class:`RulesConfig` switch.

    Attributes:
        values: the values it plays, in words (``"any"``, ``"'adjacent', 'connected'"``).
        refuse: ``value -> reason`` for values it refuses (a predicate on the whole config
            where the value alone does not decide); empty when it plays every value.
        plays: for a switch of a closed set of values (a choice, a flag, the player count), the values
            the batched engine plays; any other value is refused, so a value added to the switch later
            is refused until the batched engine plays it, not played as another (the engine reads most
            switches as ``cfg.fortify == "connected"``). None where it plays every value the rules allow
            (the map, numbers of armies or turns).
    """

    values: str
    refuse: Callable[[RulesConfig], str | None] = lambda cfg: None
    plays: tuple[object, ...] | None = None


_FLAG = (False, True)

SUPPORT: dict[str, Support] = {
    "num_players": Support("2..6", plays=(2, 3, 4, 5, 6)),
    "map": Support("any map"),
    "setup": Support(
        "'claim', 'deal', 'random' (the 2-player neutral claims at random in the rotation)", plays=("claim", "deal", "random")
    ),
    "two_player": Support(
        "'neutral', 'none', 'allied' (the allied army's sub-turn, commanded by the opponent)",
        plays=("neutral", "none", "allied"),
    ),
    "starting_armies": Support("any"),
    "card_trade": Support(
        "every schedule: 'escalating', 'escalating_reset', 'slow_escalation', 'fixed_by_symbol', 'stars', 'no_cards'",
        plays=("escalating", "escalating_reset", "slow_escalation", "fixed_by_symbol", "stars", "no_cards"),
    ),
    "territory_bonus": Support("'once_per_turn', 'once_per_trade'", plays=("once_per_turn", "once_per_trade")),
    "elimination_trade_at": Support("any"),
    "defender_dice": Support("'max', 'choose' (the defender's choice in every round of a blitz too)", plays=("max", "choose")),
    "fortify": Support("'adjacent', 'connected'", plays=("adjacent", "connected")),
    "reroll_with_card": Support("True, False", plays=_FLAG),
    "die_to_six": Support("True, False", plays=_FLAG),
    "turn_limit": Support("any"),
    "truncation_reward": Support("'draw', 'rank'", plays=("draw", "rank")),
    "secret_missions": Support("True, False", plays=_FLAG),
    "mission_target_taken": Support("'holder_wins', '24_territories'", plays=("holder_wins", "24_territories")),
    "capitals": Support("True, False", plays=_FLAG),
}
"""The allowlist: every :class:`RulesConfig` switch the batched engine knows, the values it plays
and what it refuses (and why). A switch missing here is refused, and so is a value outside a
switch's ``plays``, so a new switch or a new value of a switch stays refused until the batched
engine plays it (``tests/test_vector_env.py`` enumerates the switches and their values)."""

SUPPORTED_RULES: dict[str, str] = {k: v.values for k, v in SUPPORT.items()}
"""Rule switch -> the values the batched engine plays, in words (from :data:`SUPPORT`)."""


def check_rules(cfg: RulesConfig) -> None:
    """Raise :class:`ConfigError` unless the batched engine plays every switch of ``cfg``.

    Raises:
        ConfigError: a switch the batched engine does not know (a new one), a value outside the
            ones it plays (a new value of a switch), or a value it refuses, with the reason and what it plays.
    """
    problems = []
    for f in dataclasses.fields(RulesConfig):
        if f.name.startswith("_"):
            continue
        value = getattr(cfg, f.name)
        sup = SUPPORT.get(f.name)
        if sup is None:
            problems.append(f"{f.name}={value!r} (a switch the batched engine does not play yet)")
            continue
        if sup.plays is not None and value not in sup.plays:
            plays = ", ".join(map(repr, sup.plays))
            problems.append(f"{f.name}={value!r} (a value the batched engine does not play yet; it plays {plays})")
            continue
        why = sup.refuse(cfg)
        if why:
            problems.append(f"{f.name}={value!r} ({why})")
    if problems:
        raise ConfigError(
            f"the batched engine does not support {'; '.join(problems)}; it plays: "
            + "; ".join(f"{k}: {v}" for k, v in SUPPORTED_RULES.items())
            + ". Use risk_env.env for these rules"
        )


# ---------------------------------------------------------------------- positions
@dataclass
class BatchState:
    """Positions of ``B`` games (``T`` territories, ``n`` players, ``NC`` cards), fields as in
    :class:`risk_env.GameState`. All int64 unless said otherwise.

    Attributes:
        owner: ``(B, T)``; -1 while unclaimed, ``n`` for the 2-player neutral or the allied army.
        armies: ``(B, T)``.
        phase: ``(B,)``; as are ``player``, ``turn``, ``sets_traded``, ``to_place``, ``setup_step``,
            ``att_src``, ``att_dst``, ``att_dice``, ``last_dice``, ``winner``, ``sel_src``,
            ``sel_dst``, ``sel_trade`` and ``steps`` (``sel_*``: the codec's pending
            :class:`~risk_env.envs.codec.Selection`).
        bonus_used: bool ``(B,)``; as are ``conquered``, ``forced``, ``resume_attack``,
            ``trade_down``, ``truncated``, ``blitzing``, ``roll_pending``, ``reroll_used`` and ``six_used``.
        order: ``(B, n)`` turn order.
        order_pos: ``(B, n)`` each seat's index in ``order``.
        alive: bool ``(B, n)``.
        setup_left: ``(B, n + 1)`` (the neutral last).
        card_loc: ``(B, NC)``: -1 in the draw pile, -2 discarded, else the holding seat. The draw
            pile is a set: a drawn card is uniform among it, the same distribution as the top card
            of a uniformly shuffled pile (the pile's order is hidden and never observed).
        last_roll: ``(B, 5)`` under the expert dice rules: the last roll's attacker faces (3,
            highest first, 0 where fewer) and defender faces (2); else None.
        commander: ``(B,)`` under ``two_player="allied"`` (docs/rules.md §7); else None. So is ``received``.
        missions: ``(B, n)`` under ``secret_missions`` (§8); else None. So is ``eliminated_by``.
        capitals: ``(B, n)`` under ``capitals`` (§8; -1 while not chosen); else None.
    """

    owner: torch.Tensor
    armies: torch.Tensor
    phase: torch.Tensor
    player: torch.Tensor
    turn: torch.Tensor
    sets_traded: torch.Tensor
    to_place: torch.Tensor
    setup_step: torch.Tensor
    att_src: torch.Tensor
    att_dst: torch.Tensor
    att_dice: torch.Tensor
    last_dice: torch.Tensor
    winner: torch.Tensor
    sel_src: torch.Tensor
    sel_dst: torch.Tensor
    sel_trade: torch.Tensor
    steps: torch.Tensor
    bonus_used: torch.Tensor
    conquered: torch.Tensor
    forced: torch.Tensor
    resume_attack: torch.Tensor
    trade_down: torch.Tensor
    truncated: torch.Tensor
    blitzing: torch.Tensor
    roll_pending: torch.Tensor
    reroll_used: torch.Tensor
    six_used: torch.Tensor
    order: torch.Tensor
    order_pos: torch.Tensor
    alive: torch.Tensor
    setup_left: torch.Tensor
    card_loc: torch.Tensor
    last_roll: torch.Tensor | None = None
    commander: torch.Tensor | None = None
    received: torch.Tensor | None = None
    missions: torch.Tensor | None = None
    eliminated_by: torch.Tensor | None = None
    capitals: torch.Tensor | None = None

    @property
    def batch_size(self) -> int:
        return int(self.owner.shape[0])

    def fields(self) -> dict[str, torch.Tensor]:
        """Every tensor field by name (the variant fields of other rules, None, left out)."""
        out = {}
        for f in dataclasses.fields(self):
            t = getattr(self, f.name)
            if t is not None:
                out[f.name] = t
        return out

    def put(self, idx: torch.Tensor, other: BatchState) -> None:
        """Overwrite the games at int64 indices ``idx`` with ``other``'s games (same order; under
        ``torch.inference_mode()``, so that the tensors of a stepped state take the write)."""
        with torch.inference_mode():
            for name, t in self.fields().items():
                t[idx] = getattr(other, name)

    def rows(self, idx: torch.Tensor) -> BatchState:
        """A new state of the games at int64 indices ``idx`` (copies)."""
        return BatchState(**{k: v[idx] for k, v in self.fields().items()})

    def clone(self) -> BatchState:
        return BatchState(**{k: v.clone() for k, v in self.fields().items()})

    def known_to(self, seat: torch.Tensor, idx: torch.Tensor | None = None) -> BatchState:
        """What ``seat`` may know of each game (docs/rules.md §2, §8), as a new state of its own
        tensors (writing to it changes nothing else), the hidden parts filled in a fixed way as
        :meth:`Knowledge.position <risk_env.rules.knowledge.Knowledge.position>` fills them without
        a generator: the cards the seat has not seen (the draw pile and the other hands) go in
        ascending order to the other seats in seat order, each keeping its number of cards, then to
        the draw pile; the other players' missions are -1 (unknown). Every other field is public
        (the generator that decides the dice and cards to come is the engine's, never a state's).

        Args:
            seat: int64 ``(B,)``, the knowing seat of each game (``0..n-1``); with ``idx``, ``(K,)``.
            idx: int64 ``(K,)``: only the games at these indices, in this order (:meth:`rows`); None: all.

        Returns:
            a :class:`BatchState` of those games: the seat's own cards and mission and every seat's
            card count as in this one; masks, observations and the batched heuristics for that seat
            give the same answers on it.

        Raises:
            ConfigError: ``seat`` is not an integer tensor of one seat per game.
        """
        out = self.clone() if idx is None else self.rows(idx)
        B, n = out.batch_size, int(out.alive.shape[1])
        if (
            not isinstance(seat, torch.Tensor)
            or seat.shape != (B,)
            or seat.dtype.is_floating_point
            or seat.dtype == torch.bool
            or seat.is_complex()
        ):
            got = f"{seat.dtype} {tuple(seat.shape)}" if isinstance(seat, torch.Tensor) else type(seat).__name__
            raise ConfigError(f"seat must be an integer tensor of shape ({B},), one seat per game; got {got}")
        seat = seat.to(device=out.owner.device, dtype=torch.int64)
        if B and bool(((seat < 0) | (seat >= n)).any()):
            raise ConfigError(f"seat must hold seats 0..{n - 1}, got {sorted(set(seat.tolist()))}")
        loc = out.card_loc
        seats = torch.arange(n, device=loc.device)
        others = seats[None, :] != seat[:, None]  # (B, n)
        counts = (loc[:, None, :] == seats[None, :, None]).sum(2) * others  # (B, n) cards of each other seat
        unseen = (loc != DISCARD) & (loc != seat[:, None])  # (B, NC): in the draw pile or another hand
        rank = unseen.long().cumsum(1) - 1  # each unseen card's place in ascending order
        slot = (rank[:, :, None] >= counts.cumsum(1)[:, None, :]).sum(2)  # (B, NC): the seat it goes to, n: the pile
        out.card_loc = torch.where(unseen, torch.where(slot < n, slot, DECK), loc)
        if out.missions is not None:
            out.missions = torch.where(others, -1, out.missions)
        return out

    def nbytes(self) -> int:
        """Bytes held by the state tensors."""
        return sum(t.element_size() * t.numel() for t in self.fields().values())


@dataclass
class Chance:
    """Injected chance for one :meth:`VectorGame.step` (tests and replays).

    Attributes:
        dice: int64 ``(B, L)`` faces 1..6 per game, consumed in order (per roll the
            attacker's faces, then the defender's; a re-roll takes one face), padded with anything.
        card: int64 ``(B,)`` the card drawn at a turn end with a conquest (-1: none
            injected); it must be in the draw pile, or in the discards when the pile is empty.
        claim: int64 ``(B,)`` the territory the 2-player neutral claims after this step's claim
            (docs/rules.md §7; -1: none injected); it must be unclaimed.
    """

    dice: torch.Tensor
    card: torch.Tensor | None = None
    claim: torch.Tensor | None = None


@dataclass
class StepInfo:
    """What a step did, per game: bool ``eliminated (B, n)`` seats eliminated by this step,
    bool ``won (B,)`` a winner was decided, bool ``truncated (B,)`` the turn limit ended it."""

    eliminated: torch.Tensor
    won: torch.Tensor
    truncated: torch.Tensor


def blank_state(game: VectorGame, B: int) -> BatchState:
    """``B`` empty positions: nothing claimed, no turn order, every card in the draw pile."""
    dev, T, n, NC = game.device, game.T, game.n, max(game.NC, 1)
    cfg = game.config

    def z(*shape: int, dtype: torch.dtype = torch.int64, fill: float = 0) -> torch.Tensor:
        return torch.full(shape, fill, dtype=dtype, device=dev)

    b = torch.bool
    return BatchState(
        owner=z(B, T, fill=-1), armies=z(B, T), phase=z(B), player=z(B), turn=z(B), sets_traded=z(B),
        to_place=z(B), setup_step=z(B), att_src=z(B, fill=-1), att_dst=z(B, fill=-1), att_dice=z(B),
        last_dice=z(B), winner=z(B, fill=-1), sel_src=z(B, fill=-1), sel_dst=z(B, fill=-1),
        sel_trade=z(B, fill=-1), steps=z(B), bonus_used=z(B, dtype=b), conquered=z(B, dtype=b),
        forced=z(B, dtype=b), resume_attack=z(B, dtype=b), trade_down=z(B, dtype=b), truncated=z(B, dtype=b),
        blitzing=z(B, dtype=b), roll_pending=z(B, dtype=b), reroll_used=z(B, dtype=b), six_used=z(B, dtype=b),
        order=z(B, n), order_pos=z(B, n), alive=z(B, n, dtype=b), setup_left=z(B, n + 1), card_loc=z(B, NC, fill=DECK),
        last_roll=z(B, 5) if game.dice_rules else None,
        commander=z(B, fill=-1) if cfg.has_allied else None,
        received=z(B) if cfg.has_allied else None,
        missions=z(B, n, fill=-1) if cfg.secret_missions else None,
        eliminated_by=z(B, n, fill=-1) if cfg.secret_missions else None,
        capitals=z(B, n, fill=-1) if cfg.capitals else None,
    )  # fmt: skip


_SCALARS = (
    "phase", "player", "turn", "sets_traded", "to_place", "setup_step", "att_src", "att_dst", "att_dice",
    "last_dice", "winner", "steps", "bonus_used", "conquered", "forced", "resume_attack", "trade_down",
    "truncated", "blitzing", "roll_pending", "reroll_used", "six_used",
)  # fmt: skip


def last_roll_row(st: GameState) -> list[int]:
    """``GameState.last_roll`` (``attacker faces, 0, defender faces``) as the 5 entries of
    :attr:`BatchState.last_roll` (3 attacker faces, 2 defender faces, 0 where fewer)."""
    roll = list(st.last_roll)
    if 0 in roll:
        k = roll.index(0)
        att, dfd = roll[:k], roll[k + 1 :]
    else:
        att, dfd = roll, []
    return (att + [0, 0, 0])[:3] + (dfd + [0, 0])[:2]


def from_states(game: VectorGame, states: list[GameState], selections: list[Selection] | None = None) -> BatchState:
    """Tensors of reference positions (the generator and the draw pile's order are not kept),
    with each game's pending codec selection (``selections``, one per state; none pending if omitted).

    Raises:
        ConfigError: ``states`` is empty or not a list of GameState, or ``selections`` does not
            match it one to one.
    """
    if not isinstance(states, (list, tuple)) or not states or not all(isinstance(x, GameState) for x in states):
        raise ConfigError(f"states must be a non-empty list of GameState, got {type(states).__name__}")
    B, dev = len(states), game.device
    sels = list(selections) if selections is not None else [Selection() for _ in states]
    if len(sels) != B or not all(isinstance(x, Selection) for x in sels):
        raise ConfigError(f"selections must be one Selection per state: {B} states, {len(sels)} selections")
    T = game.T
    for st in states:
        if st.owner.shape != (T,) or len(st.order) != game.n:
            raise ConfigError(
                f"a state of {st.owner.shape[0]} territories and {len(st.order)} players does not fit this game "
                f"({T} territories, {game.n} players)"
            )
    s = blank_state(game, B)
    cpu = {k: v.cpu() for k, v in s.fields().items()}
    for name in _SCALARS:
        cpu[name] = torch.tensor([getattr(st, name) for st in states], dtype=cpu[name].dtype)
    for name in ("sel_src", "sel_dst", "sel_trade"):
        cpu[name] = torch.tensor([int(getattr(sel, name[4:])) for sel in sels], dtype=torch.int64)
    cpu["owner"] = torch.as_tensor(np.stack([st.owner for st in states]), dtype=torch.int64)
    cpu["armies"] = torch.as_tensor(np.stack([st.armies for st in states]).astype(np.int64))
    cpu["order"] = torch.tensor([st.order for st in states], dtype=torch.int64)
    cpu["order_pos"] = torch.argsort(cpu["order"], dim=1)
    cpu["alive"] = torch.tensor([st.alive for st in states], dtype=torch.bool)
    cpu["setup_left"] = torch.tensor([st.setup_left for st in states], dtype=torch.int64)
    if game.NC:
        loc = np.full((B, game.NC), DECK, dtype=np.int64)
        for b, st in enumerate(states):
            for c in st.discard:
                loc[b, c] = DISCARD
            for p in range(game.n):
                for c in st.hands[p]:
                    loc[b, c] = p
        cpu["card_loc"] = torch.as_tensor(loc)
    if s.last_roll is not None:
        cpu["last_roll"] = torch.tensor([last_roll_row(st) for st in states], dtype=torch.int64)
    if s.commander is not None:
        cpu["commander"] = torch.tensor([st.commander for st in states], dtype=torch.int64)
        cpu["received"] = torch.tensor([st.received for st in states], dtype=torch.int64)
    for name in ("missions", "eliminated_by", "capitals"):
        if name in cpu:
            cpu[name] = torch.tensor([getattr(st, name) for st in states], dtype=torch.int64).reshape(B, game.n)
    return BatchState(**{k: v.to(dev) for k, v in cpu.items()})
