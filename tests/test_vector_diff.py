"""Differential tests: the batched engine against the reference engine, step by step.

Both engines get the same decisions (random legal ids, biased against ending
phases so games see conquests, eliminations and wins) and the same chance
(the reference engine's dice and card draws are injected into the batched
one); masks, observations, rewards, terminations and the positions must agree
at every step.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from vector_support import DEVICE, one_torch_thread  # noqa: F401 (the fixture applies to this module)

from risk_env import ActionCodec, Game, GameState, Move, MoveKind, ObservationEncoder, Phase, RulesConfig
from risk_env.envs.codec import Selection
from risk_env.vector import Chance, VectorGame
from risk_env.vector.observe import hand_symbols


class _TapeGame(Game):
    """The reference engine, recording the dice faces it draws."""

    tape: list[int]

    def draw_dice(self, s: GameState, k: int) -> list[int]:
        faces = super().draw_dice(s, k)
        self.tape.extend(faces)
        return faces


_FIELDS = (
    "phase", "player", "turn", "sets_traded", "to_place", "setup_step", "att_src", "att_dst", "att_dice",
    "last_dice", "winner", "sel_src", "sel_dst", "sel_trade", "steps", "bonus_used", "conquered", "forced",
    "resume_attack", "trade_down", "truncated",
)  # fmt: skip


def _compare_positions(vg: VectorGame, vs, states: list[GameState], sels: list[Selection], where: str) -> None:
    owner = vs.owner.cpu().numpy()
    armies = vs.armies.cpu().numpy()
    ints = {f: getattr(vs, f).cpu().numpy() for f in _FIELDS}
    alive = vs.alive.cpu().numpy()
    setup_left = vs.setup_left.cpu().numpy()
    loc = vs.card_loc.cpu().numpy()
    for b, s in enumerate(states):
        assert (owner[b] == s.owner).all(), f"{where} game {b}: owners differ"
        assert (armies[b] == s.armies).all(), f"{where} game {b}: armies differ {armies[b]} vs {s.armies}"
        for f in _FIELDS:
            want = int(getattr(sels[b], f[4:])) if f.startswith("sel_") else int(getattr(s, f))
            assert int(ints[f][b]) == want, f"{where} game {b}: {f} {ints[f][b]} vs {want}"
        assert alive[b].tolist() == s.alive
        assert setup_left[b].tolist() == s.setup_left
        if vg.NC:
            for p in range(vg.n):
                assert sorted(np.flatnonzero(loc[b] == p).tolist()) == sorted(s.hands[p]), f"{where} game {b}: hand {p}"
            assert sorted(np.flatnonzero(loc[b] == -2).tolist()) == sorted(s.discard)
            assert sorted(np.flatnonzero(loc[b] == -1).tolist()) == sorted(s.deck)


def run_differential(
    rules: RulesConfig, batch: int, steps: int, seed: int, end_weight: float = 0.05, check_positions: bool = True
) -> dict[str, int]:
    """Drive ``batch`` games for ``steps`` lockstep steps; return counts of what was covered."""
    ref = _TapeGame(rules)
    codec = ActionCodec(ref)
    enc = ObservationEncoder(ref)
    vg = VectorGame(rules, seed=seed, device=DEVICE)
    rng = np.random.default_rng(seed)
    next_seed = [seed * 100_000]

    def fresh() -> GameState:
        next_seed[0] += 1
        return ref.new_game(next_seed[0])

    states = [fresh() for _ in range(batch)]
    sels = [Selection() for _ in range(batch)]
    vs = vg.from_states(states, sels)
    elim_seen = [0] * batch
    stats = {"games_done": 0, "wins": 0, "truncations": 0, "eliminations": 0, "trades": 0, "blitzes": 0, "decisions": 0}
    phases_seen: set[int] = set()
    end_id = codec.end
    for t in range(steps):
        # every other step with the hand's symbol counts given (as VectorEnv does), else counted inside
        hand = hand_symbols(vg, vs, vs.player) if vg.NC and t % 2 else None
        masks = vg.action_mask(vs, hand).cpu().numpy()
        obs = vg.observe(vs, hand=hand).cpu().numpy()
        actions = np.zeros(batch, dtype=np.int64)
        tapes: list[list[int]] = []
        cards = np.full(batch, -1, dtype=np.int64)
        exp_rewards = np.zeros((batch, rules.num_players), dtype=np.float32)
        exp_won = np.zeros(batch, dtype=bool)
        exp_trunc = np.zeros(batch, dtype=bool)
        for b, s in enumerate(states):
            sel = sels[b]
            m = codec.mask(s, sel).astype(bool)
            assert (masks[b] == m).all(), (
                f"step {t} game {b} phase {Phase(s.phase).name}: masks differ at {np.flatnonzero(masks[b] != m)}"
            )
            seat = ref.current_player(s)
            assert np.array_equal(obs[b], enc.encode(s, seat, sel)), (
                f"step {t} game {b}: observations differ at {np.flatnonzero(obs[b] != enc.encode(s, seat, sel))}"
            )
            phases_seen.add(int(s.phase))
            legal = np.flatnonzero(m)
            w = np.where(legal == end_id, end_weight, 1.0)
            a = int(rng.choice(legal, p=w / w.sum()))
            actions[b] = a
            p = s.player
            hand_before = set(s.hands[p])
            ref.tape = []
            move = codec.step(s, a, sel)
            tapes.append(ref.tape)
            stats["decisions"] += 1
            if isinstance(move, Move):
                if move.kind == MoveKind.TRADE:
                    stats["trades"] += 1
                if move.kind == MoveKind.BLITZ:
                    stats["blitzes"] += 1
                if move.kind in (MoveKind.FORTIFY, MoveKind.END_TURN):
                    new = set(s.hands[p]) - hand_before
                    if new:
                        cards[b] = new.pop()
            for seat_out in s.elim_order[elim_seen[b] :]:
                exp_rewards[b, seat_out] = -1.0
                stats["eliminations"] += 1
            elim_seen[b] = len(s.elim_order)
            if s.phase == Phase.GAME_OVER:
                if s.winner >= 0:
                    exp_rewards[b, s.winner] = 1.0
                    exp_won[b] = True
                else:
                    exp_trunc[b] = True
        width = max(1, max(len(x) for x in tapes))
        dice = torch.ones(batch, width, dtype=torch.int64)
        for b, x in enumerate(tapes):
            if x:
                dice[b, : len(x)] = torch.tensor(x)
        info = vg.step(
            vs, torch.as_tensor(actions, device=DEVICE), Chance(dice=dice.to(DEVICE), card=torch.as_tensor(cards, device=DEVICE))
        )
        info = type(info)(info.eliminated.cpu(), info.won.cpu(), info.truncated.cpu())
        rewards = (
            -info.eliminated.float()
            + torch.nn.functional.one_hot(vs.winner.cpu().clamp(min=0), rules.num_players) * info.won[:, None]
        )
        assert np.array_equal(rewards.numpy(), exp_rewards), f"step {t}: rewards differ"
        assert np.array_equal(info.won.numpy(), exp_won)
        assert np.array_equal(info.truncated.numpy(), exp_trunc)
        if check_positions:
            _compare_positions(vg, vs, states, sels, f"after step {t}")
        done = np.flatnonzero(exp_won | exp_trunc)
        if len(done):
            stats["games_done"] += len(done)
            stats["wins"] += int(exp_won.sum())
            stats["truncations"] += int(exp_trunc.sum())
            for d in done.tolist():
                states[d] = fresh()
                sels[d] = Selection()
                elim_seen[d] = 0
            vs.put(
                torch.as_tensor(done, device=DEVICE),
                vg.from_states([states[d] for d in done.tolist()], [sels[d] for d in done.tolist()]),
            )
    stats["phases"] = len(phases_seen)
    return stats


CASES = {
    # name: (rules, batch, steps, expect wins and eliminations)
    "classic-4p-claim": (RulesConfig(num_players=4, map="small", turn_limit=60), 96, 700, True),
    "2p-deal-neutral": (RulesConfig(num_players=2, map="small", turn_limit=60), 96, 500, True),
    "3p-claim-classic-map": (RulesConfig(num_players=3, turn_limit=10), 16, 600, False),
    "fast-4p-random": (RulesConfig.from_preset("fast", num_players=4, turn_limit=15), 24, 500, False),
    "6p-claim-classic-map": (RulesConfig(num_players=6, turn_limit=12), 12, 500, False),
    "5p-deal-trade5": (
        RulesConfig(num_players=5, map="small", setup="deal", starting_armies=8, elimination_trade_at=5, turn_limit=60),
        48,
        500,
        True,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_differential(name: str) -> None:
    rules, batch, steps, decisive = CASES[name]
    stats = run_differential(rules, batch, steps, seed=sum(map(ord, name)))
    assert stats["games_done"] > 0
    assert stats["phases"] >= 4
    if decisive:
        assert stats["wins"] > 0 and stats["eliminations"] > 0 and stats["trades"] > 0
    else:
        assert stats["truncations"] > 0


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("RISK_ENV_SLOW_TESTS"), reason="set RISK_ENV_SLOW_TESTS=1 (about 3 minutes)")
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_differential_many_games(players: int) -> None:
    """Thousands of decisive games on the small map (``RISK_ENV_SLOW_TESTS=1 pytest -m slow``)."""
    rules = RulesConfig(num_players=players, map="small", starting_armies=10, turn_limit=80)
    stats = run_differential(rules, 256, 2500, seed=1000 + players, check_positions=False)
    assert stats["games_done"] >= 500, stats
