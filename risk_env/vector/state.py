"""Positions of the batched engine: :class:`BatchState`, injected :class:`Chance`,
:class:`StepInfo`, the supported rules, and positions built empty or from
reference :class:`risk_env.GameState` objects.

The phase ids and card locations match :class:`risk_env.Phase` and
:class:`risk_env.GameState` (docs/rules.md §2).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from ..envs.codec import Selection
from ..errors import ConfigError
from ..rules.config import RulesConfig
from ..rules.state import GameState

if TYPE_CHECKING:
    from .engine import VectorGame

__all__ = [
    "SUPPORTED_RULES",
    "BatchState",
    "Chance",
    "StepInfo",
    "blank_state",
    "check_rules",
    "from_states",
]

# Phase ids (risk_env.Phase)
CLAIM, SETUP_PLACE, REINFORCE, ATTACK, DEFEND, OCCUPY, FORTIFY, GAME_OVER = range(8)
DECK, DISCARD = -1, -2

SUPPORTED_RULES = {
    "num_players": "2..6 (2 players with the neutral)",
    "map": "any map",
    "setup": "'claim' (3-6 players), 'deal', 'random'",
    "two_player": "'neutral'",
    "starting_armies": "any",
    "card_trade": "'escalating'",
    "territory_bonus": "'once_per_turn'",
    "elimination_trade_at": "any",
    "defender_dice": "'max'",
    "fortify": "'adjacent'",
    "turn_limit": "any",
    "truncation_reward": "'draw'",
    "reroll_with_card / die_to_six / secret_missions / capitals": "False",
}
"""Rule switches the batched engine supports, and their supported values."""


def check_rules(cfg: RulesConfig) -> None:
    """Raise :class:`ConfigError` unless the batched engine supports ``cfg``."""
    bad = []
    fixed = {
        "card_trade": "escalating",
        "territory_bonus": "once_per_turn",
        "defender_dice": "max",
        "fortify": "adjacent",
        "truncation_reward": "draw",
        "reroll_with_card": False,
        "die_to_six": False,
        "secret_missions": False,
        "capitals": False,
    }
    for key, want in fixed.items():
        if getattr(cfg, key) != want:
            bad.append(f"{key}={getattr(cfg, key)!r}")
    if cfg.num_players == 2 and cfg.two_player != "neutral":
        bad.append(f"two_player={cfg.two_player!r}")
    if cfg.has_neutral and cfg.setup == "claim":
        bad.append("setup='claim' with the 2-player neutral")
    if bad:
        allowed = "; ".join(f"{k}: {v}" for k, v in SUPPORTED_RULES.items())
        raise ConfigError(
            f"the batched engine does not support {', '.join(bad)}; supported: {allowed} "
            "(the classic and fast presets); use risk_env.env for the other variants"
        )


@dataclass
class BatchState:
    """Positions of ``B`` games (``T`` territories, ``n`` players, ``NC`` cards), fields as in
    :class:`risk_env.GameState`. All int64 unless said otherwise.

    Attributes:
        owner: ``(B, T)``; -1 while unclaimed, ``n`` for the neutral.
        armies: ``(B, T)``.
        phase: ``(B,)``; as are ``player``, ``turn``, ``sets_traded``, ``to_place``, ``setup_step``,
            ``att_src``, ``att_dst``, ``att_dice``, ``last_dice``, ``winner``, ``sel_src``,
            ``sel_dst``, ``sel_trade`` and ``steps``.
        bonus_used: bool ``(B,)``; as are ``conquered``, ``forced``, ``resume_attack``,
            ``trade_down`` and ``truncated``.
        order: ``(B, n)`` turn order.
        order_pos: ``(B, n)`` each seat's index in ``order``.
        alive: bool ``(B, n)``.
        setup_left: ``(B, n + 1)`` (the neutral last).
        card_loc: ``(B, NC)``: -1 in the draw pile, -2 discarded, else the holding seat.
        deck_key: float32 ``(B, NC)``: draw-pile order, the highest key on top.
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
    order: torch.Tensor
    order_pos: torch.Tensor
    alive: torch.Tensor
    setup_left: torch.Tensor
    card_loc: torch.Tensor
    deck_key: torch.Tensor

    @property
    def batch_size(self) -> int:
        return int(self.owner.shape[0])

    def fields(self) -> dict[str, torch.Tensor]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def put(self, idx: torch.Tensor, other: BatchState) -> None:
        """Overwrite the games at int64 indices ``idx`` with ``other``'s games (same order)."""
        for name, t in self.fields().items():
            t[idx] = getattr(other, name)

    def clone(self) -> BatchState:
        return BatchState(**{k: v.clone() for k, v in self.fields().items()})

    def nbytes(self) -> int:
        """Bytes held by the state tensors."""
        return sum(t.element_size() * t.numel() for t in self.fields().values())


@dataclass
class Chance:
    """Injected chance for one :meth:`VectorGame.step` (tests and replays).

    Attributes:
        dice: int64 ``(B, L)`` faces 1..6 per game, consumed in order (per roll the
            attacker's faces, then the defender's), padded with anything.
        card: int64 ``(B,)`` the card drawn at a turn end with a conquest (-1: none
            injected); it must be in the draw pile, or in the discards when the pile is empty.
    """

    dice: torch.Tensor
    card: torch.Tensor | None = None


@dataclass
class StepInfo:
    """What a step did, per game: bool ``eliminated (B, n)`` seats eliminated by this step,
    bool ``won (B,)`` a winner was decided, bool ``truncated (B,)`` the turn limit ended it."""

    eliminated: torch.Tensor
    won: torch.Tensor
    truncated: torch.Tensor


def blank_state(game: VectorGame, B: int) -> BatchState:
    """``B`` empty positions: nothing claimed, no turn order, every card in the draw pile (unshuffled)."""
    dev, T, n, NC = game.device, game.T, game.n, max(game.NC, 1)

    def z(*shape: int, dtype: torch.dtype = torch.int64, fill: float = 0) -> torch.Tensor:
        return torch.full(shape, fill, dtype=dtype, device=dev)

    return BatchState(
        owner=z(B, T, fill=-1), armies=z(B, T), phase=z(B), player=z(B), turn=z(B), sets_traded=z(B),
        to_place=z(B), setup_step=z(B), att_src=z(B, fill=-1), att_dst=z(B, fill=-1), att_dice=z(B),
        last_dice=z(B), winner=z(B, fill=-1), sel_src=z(B, fill=-1), sel_dst=z(B, fill=-1),
        sel_trade=z(B, fill=-1), steps=z(B), bonus_used=z(B, dtype=torch.bool), conquered=z(B, dtype=torch.bool),
        forced=z(B, dtype=torch.bool), resume_attack=z(B, dtype=torch.bool), trade_down=z(B, dtype=torch.bool),
        truncated=z(B, dtype=torch.bool), order=z(B, n), order_pos=z(B, n), alive=z(B, n, dtype=torch.bool),
        setup_left=z(B, n + 1), card_loc=z(B, NC, fill=DECK), deck_key=z(B, NC, dtype=torch.float32),
    )  # fmt: skip


def from_states(game: VectorGame, states: list[GameState], selections: list[Selection] | None = None) -> BatchState:
    """Tensors of reference positions (the draw pile order kept; the generator is not), with
    each game's pending codec selection (``selections``, one per state; none pending if omitted)."""
    B, dev = len(states), game.device
    s = blank_state(game, B)
    n = game.n
    sels = selections if selections is not None else [Selection() for _ in states]
    if len(sels) != B:
        raise ValueError(f"need one selection per state: {B} states, {len(sels)} selections")
    ints = [f.name for f in dataclasses.fields(BatchState) if getattr(s, f.name).dim() == 1]
    for name in ints:
        if name.startswith("sel_"):
            vals = [int(getattr(sel, name[4:])) for sel in sels]
        else:
            vals = [int(getattr(st, name)) for st in states]
        getattr(s, name).copy_(torch.tensor(vals, dtype=getattr(s, name).dtype))
    s.owner.copy_(torch.as_tensor(np.stack([st.owner for st in states]), dtype=torch.int64))
    s.armies.copy_(torch.as_tensor(np.stack([st.armies for st in states]).astype(np.int64)))
    s.order.copy_(torch.tensor([st.order for st in states], dtype=torch.int64))
    s.order_pos = torch.argsort(s.order, dim=1)
    s.alive.copy_(torch.tensor([st.alive for st in states], dtype=torch.bool))
    s.setup_left.copy_(torch.tensor([st.setup_left for st in states], dtype=torch.int64))
    if game.NC:
        loc = np.full((B, game.NC), DECK, dtype=np.int64)
        key = np.zeros((B, game.NC), dtype=np.float32)
        for b, st in enumerate(states):
            for i, c in enumerate(st.deck):
                key[b, c] = i + 1
            for c in st.discard:
                loc[b, c] = DISCARD
            for p in range(n):
                for c in st.hands[p]:
                    loc[b, c] = p
        s.card_loc.copy_(torch.as_tensor(loc))
        s.deck_key.copy_(torch.as_tensor(key))
    return s.__class__(**{k: v.to(dev) for k, v in s.fields().items()})
