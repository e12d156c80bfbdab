"""The batched engine in the soak: :class:`VectorLockstep` replays games on the batched engine
(:mod:`risk_env.vector`) beside the reference engine, on the same decisions and the same chance,
comparing the two after every action id.

The soak (:mod:`risk_env.tools.soak`) plays each game through the reference env with its agents
(random and scripted) and keeps the action ids they chose. The games of a chunk whose rules the
batched engine supports (:func:`vector_supports`, which asks :mod:`risk_env.vector` for its own
check) are then replayed, those with the same rules together in one batch: a reference game per
slot, recording the dice it draws through the engine's ``_draw_dice`` hook, and one
:class:`~risk_env.vector.VectorGame` batch, into whose step the reference's dice and drawn card
are injected (:class:`~risk_env.vector.Chance`), as ``tests/test_vector_diff.py`` does. Checked
at every id of every game:

* the batched action mask equals the reference codec's mask;
* optionally (``observe``) the batched observation equals ``ObservationEncoder.encode`` for the
  seat to act;
* the batched step reports the same eliminations, win and truncation as the reference;
* the batched position equals the reference one: owners, armies, every per-game counter, flag
  and list both engines name alike (``phase``, ``player``, ``turn``, ``to_place``, the pending
  battle, the selection, who is alive, the turn order, the setup armies left...) and where
  every card is;

and at the end the soak checks that the replayed reference game ended in the env's final position.

Needs torch (the ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .._extras import require
from ..envs.codec import ActionCodec, Selection
from ..envs.observation import ObservationEncoder
from ..errors import ConfigError, MapError
from ..rules.config import RulesConfig
from ..rules.engine import Game
from ..rules.moves import Move, MoveKind
from ..rules.state import GameState, Phase

__all__ = ["VectorLockstep", "vector_available", "vector_supports"]


def vector_available() -> bool:
    """Whether the batched engine can run here (torch is installed)."""
    try:
        require("torch", "train", "the batched engine")
    except ImportError:
        return False
    return True


def vector_supports(rules: RulesConfig | dict[str, Any]) -> bool:
    """Whether the batched engine plays ``rules`` (a :class:`RulesConfig` or its dict): its own
    check of the rules it supports (:mod:`risk_env.vector`), False for rules that are not valid at all.

    Raises:
        MissingExtraError: torch is not installed.
    """
    require("torch", "train", "the batched engine")
    from ..vector.engine import check_rules

    try:
        cfg = rules if isinstance(rules, RulesConfig) else RulesConfig.from_dict(rules)
        check_rules(cfg)
        Game(cfg)  # rules valid on their map too (secret missions need the classic continents, §8)
    except (ConfigError, MapError):
        return False
    return True


class _TapeGame(Game):
    """The reference engine, recording the dice faces it draws (the engine's documented
    ``_draw_dice`` hook: every roll draws through it)."""

    tape: list[int]

    def _draw_dice(self, s: GameState, k: int) -> list[int]:
        faces = super()._draw_dice(s, k)
        self.tape.extend(faces)
        return faces


_GAMES: dict[str, Any] = {}


def _vector_game(rules: RulesConfig) -> Any:
    """One :class:`~risk_env.vector.VectorGame` per rules (on the CPU), reused across games:
    its generator plays no part when the chance is injected."""
    import json

    from ..vector import VectorGame

    key = json.dumps(rules.to_dict(), sort_keys=True)
    vg = _GAMES.get(key)
    if vg is None:
        if len(_GAMES) > 64:
            _GAMES.clear()
        vg = _GAMES[key] = VectorGame(rules, device="cpu", seed=0)
    return vg


class VectorLockstep:
    """Games of one rule set replayed on the batched engine in lockstep, beside the reference
    engine, on the decisions the soak's agents made (see the module docstring).

    Args:
        rules: rules the batched engine supports (:func:`vector_supports`).
        observe: also compare the observations at every step.

    >>> from risk_env import RulesConfig
    >>> rules = RulesConfig(num_players=3, map="small", setup="random", turn_limit=2)
    >>> VectorLockstep(rules).run([(7, [])])  # no decisions: the initial positions agree
    [None]
    """

    def __init__(self, rules: RulesConfig, observe: bool = False) -> None:
        require("torch", "train", "the batched engine")
        self.rules = rules
        self.ref = _TapeGame(rules)
        self.ref.tape = []
        self.codec = ActionCodec(self.ref)
        self.encoder = ObservationEncoder(self.ref) if observe else None
        self.vg = _vector_game(rules)

    def run(self, games: Sequence[tuple[int, Sequence[int]]]) -> list[str | None]:
        """Replay ``games`` (``(seed, action ids)`` each) together; returns, per game, None or
        the first disagreement found (a game is left alone after its first).

        The ids must be legal: they are the decisions of a game the reference env accepted.
        """
        import torch

        from ..vector import Chance

        B = len(games)
        if not B:
            return []
        ref, codec, vg = self.ref, self.codec, self.vg
        states = [ref.new_game(seed) for seed, _ in games]
        sels = [Selection() for _ in games]
        vs = vg.from_states(states, sels)
        fail: list[str | None] = [None] * B
        self._compare(vs, states, sels, range(B), fail, "at the start")
        longest = max(len(ids) for _, ids in games)
        for t in range(longest):
            live = [b for b in range(B) if fail[b] is None and t < len(games[b][1])]
            if not live:
                break
            masks = vg.action_mask(vs).cpu().numpy()
            if self.encoder is not None:
                seats = [max(0, ref.current_player(s)) for s in states]
                obs = vg.observe(vs, seat=torch.tensor(seats)).cpu().numpy()
            actions = np.zeros(B, dtype=np.int64)
            cards = np.full(B, -1, dtype=np.int64)
            claims = np.full(B, -1, dtype=np.int64)  # the territory the 2-player neutral claims at random
            tapes: list[list[int]] = [[] for _ in range(B)]
            before: dict[int, tuple[int, bool]] = {}
            for b in live:
                s, sel = states[b], sels[b]
                a = int(games[b][1][t])
                want = codec.mask(s, sel).astype(bool)
                if not np.array_equal(masks[b], want):
                    diff = np.flatnonzero(masks[b] != want).tolist()
                    fail[b] = f"id {t + 1}: the batched mask differs at ids {diff[:10]} (phase {Phase(s.phase).name})"
                    continue
                if self.encoder is not None:
                    enc = self.encoder.encode(s, ref.current_player(s), sel)
                    if not np.array_equal(obs[b], enc):
                        diff = np.flatnonzero(obs[b] != enc).tolist()
                        fail[b] = (
                            f"id {t + 1}: the batched observation differs at entries {diff[:10]} (phase {Phase(s.phase).name})"
                        )
                        continue
                p = s.player
                hand = set(s.hands[p]) if p < ref.num_players else set()  # (the allied army holds no cards)
                before[b] = (len(s.elim_order), s.phase == Phase.GAME_OVER)
                ref.tape = tapes[b]
                neutral = set(np.flatnonzero(s.owner == ref.neutral).tolist()) if ref.neutral >= 0 else set()
                move = codec.step(s, a, sel)
                if isinstance(move, Move) and move.kind in (MoveKind.FORTIFY, MoveKind.END_TURN):
                    new = set(s.hands[p]) - hand if p < ref.num_players else set()
                    if new:
                        cards[b] = new.pop()
                if isinstance(move, Move) and move.kind == MoveKind.CLAIM and ref.neutral >= 0:
                    claimed = set(np.flatnonzero(s.owner == ref.neutral).tolist()) - neutral
                    if claimed:
                        claims[b] = claimed.pop()
                actions[b] = a
            stepped = list(before)
            if not stepped:
                continue
            width = max(1, max(len(tapes[b]) for b in stepped))
            dice = np.ones((B, width), dtype=np.int64)
            for b in stepped:
                dice[b, : len(tapes[b])] = tapes[b]
            active = np.zeros(B, dtype=bool)
            active[stepped] = True
            info = vg.step(
                vs,
                torch.as_tensor(actions),
                Chance(dice=torch.as_tensor(dice), card=torch.as_tensor(cards), claim=torch.as_tensor(claims)),
                active=torch.as_tensor(active),
            )
            eliminated = info.eliminated.cpu().numpy()
            won, truncated = info.won.cpu().numpy(), info.truncated.cpu().numpy()
            for b in stepped:
                s = states[b]
                n_elim, over = before[b]
                got = np.flatnonzero(eliminated[b]).tolist()
                if sorted(got) != sorted(s.elim_order[n_elim:]):
                    fail[b] = f"id {t + 1}: the batched step eliminated {got}, the reference {s.elim_order[n_elim:]}"
                ended = s.phase == Phase.GAME_OVER and not over
                if bool(won[b]) != (ended and s.winner >= 0) or bool(truncated[b]) != (ended and s.truncated):
                    fail[b] = (
                        f"id {t + 1}: the batched step says won={bool(won[b])} truncated={bool(truncated[b])}, "
                        f"the reference winner={s.winner} truncated={s.truncated}"
                    )
            self._compare(vs, states, sels, [b for b in stepped if fail[b] is None], fail, f"after id {t + 1}")
        self.states = states
        return fail

    def _compare(
        self, vs: Any, states: list[GameState], sels: list[Selection], games: Iterable[int], fail: list[str | None], where: str
    ) -> None:
        """Record in ``fail`` the first field where a batched position differs from its reference one."""
        games = [b for b in games if fail[b] is None]
        if not games:
            return
        from ..vector.state import last_roll_row

        fields = vs.fields()
        scalars = [name for name, t in fields.items() if t.dim() == 1]
        got = np.stack([fields[name].cpu().numpy().astype(np.int64) for name in scalars], axis=1)  # (B, F)
        tables = {name: t.cpu().numpy() for name, t in fields.items() if t.dim() == 2 and name not in ("order_pos", "deck_key")}
        for b in games:
            s, sel = states[b], sels[b]
            for j, name in enumerate(scalars):
                want = getattr(sel, name[4:], None) if name.startswith("sel_") else getattr(s, name, None)
                if isinstance(want, (bool, int, np.integer)) and got[b, j] != want:
                    fail[b] = f"{where}: {name}={int(got[b, j])}, the reference's {int(want)}"
                    break
            if fail[b] is not None:
                continue
            for name, v in tables.items():
                if name == "card_loc":
                    if not self.vg.NC:
                        continue
                    want_loc = np.full(self.vg.NC, -1, dtype=np.int64)  # -1: in the draw pile
                    want_loc[s.discard] = -2
                    for seat, hand in enumerate(s.hands):
                        want_loc[hand] = seat
                    if not np.array_equal(v[b], want_loc):
                        k = int(np.flatnonzero(v[b] != want_loc)[0])
                        fail[b] = (
                            f"{where}: card {k} is at {int(v[b][k])}, the reference's at {int(want_loc[k])} "
                            "(-1: the draw pile, -2: the discards, else a seat)"
                        )
                        break
                    continue
                if name == "last_roll":  # (the expert dice rules' faces: 3 attacker, 2 defender, 0 where fewer)
                    if s.last_roll and v[b].tolist() != last_roll_row(s):
                        fail[b] = f"{where}: last roll {v[b].tolist()}, the reference's {s.last_roll}"
                        break
                    continue
                want_arr = getattr(s, name, None)
                if want_arr is not None and not np.array_equal(v[b], np.asarray(want_arr)):
                    fail[b] = f"{where}: {name} {v[b].tolist()}, the reference's {np.asarray(want_arr).tolist()}"
                    break
