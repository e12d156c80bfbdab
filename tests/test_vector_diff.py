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
from risk_env.envs.graph import GraphObservationEncoder
from risk_env.vector import Chance, VectorGame
from risk_env.vector.observe import hand_symbols


class _TapeGame(Game):
    """The reference engine, recording the dice faces it draws."""

    tape: list[int]

    def _draw_dice(self, s: GameState, k: int) -> list[int]:
        faces = super()._draw_dice(s, k)
        self.tape.extend(faces)
        return faces


def _compare_positions(vg: VectorGame, vs, states: list[GameState], sels: list[Selection], where: str) -> None:
    """Every field of the batched positions equals the reference positions' (converted by
    ``from_states``: owners, armies, every counter and flag, the selection, hands, draw pile and
    discards, the expert dice rules' last roll, the allied army's, missions' and capitals' fields)."""
    want = vg.from_states(states, sels)
    for name, t in want.fields().items():
        got = getattr(vs, name)
        if not torch.equal(got, t):
            diff = (got != t).reshape(len(states), -1).any(1).nonzero()[:, 0].tolist()
            b = diff[0]
            raise AssertionError(f"{where} game {b}: {name} {got[b].tolist()} vs {t[b].tolist()} (games {diff[:8]})")


def _expected_rewards(ref: Game, s: GameState, seen: int, n: int) -> np.ndarray:
    """The AEC env's rewards of the step just made: -1 to each seat eliminated in it, and at the end
    of the game every live seat's return (Game.outcome)."""
    r = np.zeros(n, dtype=np.float32)
    for seat in s.elim_order[seen:]:
        r[seat] = -1.0
    if s.phase == Phase.GAME_OVER:
        out = ref.outcome(s)
        for seat in range(n):
            if s.alive[seat]:
                r[seat] = out.returns[seat]
    return r


def run_differential(
    rules: RulesConfig,
    batch: int,
    steps: int,
    seed: int,
    end_weight: float = 0.05,
    check_positions: bool = True,
    graph_every: int = 3,
    warmup: int = 0,
) -> dict[str, int]:
    """Drive ``batch`` games for ``steps`` lockstep steps; return counts of what was covered.

    Every step compares the masks, the observations (the graph observation every
    ``graph_every`` steps), the seats to act, the rewards, wins and truncations, and (with
    ``check_positions``) the positions field by field. ``warmup``: random moves the reference
    engine plays alone in each new game before it enters the lockstep (to reach late-game
    positions sooner)."""
    ref = _TapeGame(rules)
    codec = ActionCodec(ref)
    enc = ObservationEncoder(ref)
    graph = GraphObservationEncoder(ref)
    vg = VectorGame(rules, seed=seed, device=DEVICE)
    same_hand = not (vg.choose or vg.allied >= 0)
    rng = np.random.default_rng(seed)
    next_seed = [seed * 100_000]

    def fresh() -> GameState:
        ref.tape = []
        while True:
            next_seed[0] += 1
            s = ref.new_game(next_seed[0])
            sel = Selection()
            for _ in range(warmup):
                m = codec.mask(s, sel)
                legal = np.flatnonzero(m)
                w = np.where(legal == codec.end, end_weight, 1.0)
                codec.step(s, int(rng.choice(legal, p=w / w.sum())), sel, m)
                if s.phase == Phase.GAME_OVER:
                    break
            if s.phase != Phase.GAME_OVER:
                while not sel.empty:  # finish a pending sub-step (the lockstep starts with no selection)
                    m = codec.mask(s, sel)
                    codec.step(s, int(np.flatnonzero(m)[0]), sel, m)
                if s.phase != Phase.GAME_OVER:
                    return s

    states = [fresh() for _ in range(batch)]
    sels = [Selection() for _ in range(batch)]
    vs = vg.from_states(states, sels)
    elim_seen = [0] * batch
    stats = {
        "games_done": 0, "wins": 0, "truncations": 0, "eliminations": 0, "trades": 0, "blitzes": 0, "decisions": 0,
        "defends": 0, "blitz_defends": 0, "expert": 0, "neutral_claims": 0, "rank_rewards": 0, "fortifies": 0,
        "variant_wins": 0, "allied_turns": 0, "capitals": 0,
    }  # fmt: skip
    phases_seen: set[int] = set()
    end_id = codec.end
    n = rules.num_players
    for t in range(steps):
        # every other step with the hand's symbol counts given (as VectorEnv does), else counted inside
        hand = hand_symbols(vg, vs, vs.player) if vg.NC and t % 2 else None
        masks = vg.action_mask(vs, hand).cpu().numpy()
        obs = vg.observe(vs, hand=hand if same_hand else None).cpu().numpy()
        cur = vg.current_player(vs).cpu().numpy()
        gobs = None
        if graph_every and t % graph_every == 0:
            gobs = {k: v.cpu().numpy() for k, v in vg.observe_graph(vs, mask=torch.as_tensor(masks, device=DEVICE)).items()}
        actions = np.zeros(batch, dtype=np.int64)
        tapes: list[list[int]] = []
        cards = np.full(batch, -1, dtype=np.int64)
        claims = np.full(batch, -1, dtype=np.int64)
        exp_rewards = np.zeros((batch, n), dtype=np.float32)
        exp_won = np.zeros(batch, dtype=bool)
        exp_trunc = np.zeros(batch, dtype=bool)
        for b, s in enumerate(states):
            sel = sels[b]
            m8 = codec.mask(s, sel)
            m = m8.astype(bool)
            assert (masks[b] == m).all(), (
                f"step {t} game {b} phase {Phase(s.phase).name}: masks differ at {np.flatnonzero(masks[b] != m)}"
            )
            seat = ref.current_player(s)
            assert cur[b] == seat, f"step {t} game {b}: seat to act {cur[b]} vs {seat}"
            flat = enc.encode(s, seat, sel)
            assert np.array_equal(obs[b], flat), f"step {t} game {b}: observations differ at {np.flatnonzero(obs[b] != flat)}"
            if gobs is not None:
                want = graph.from_flat(flat, s, seat, m8)
                for key, v in want.items():
                    assert np.array_equal(gobs[key][b], v), f"step {t} game {b}: graph {key} differs"
            phases_seen.add(int(s.phase))
            legal = np.flatnonzero(m)
            w = np.where(legal == end_id, end_weight, 1.0)
            a = int(rng.choice(legal, p=w / w.sum()))
            actions[b] = a
            p = s.player
            hand_before = set(s.hands[p]) if p < n else set()
            neutral_before = set(np.flatnonzero(s.owner == ref.neutral).tolist()) if ref.neutral >= 0 else set()
            ref.tape = []
            blitzing_before = s.blitzing
            move = codec.step(s, a, sel, m8)
            tapes.append(ref.tape)
            stats["decisions"] += 1
            if isinstance(move, Move):
                if move.kind == MoveKind.TRADE:
                    stats["trades"] += 1
                if move.kind == MoveKind.BLITZ:
                    stats["blitzes"] += 1
                if move.kind == MoveKind.DEFEND:
                    stats["defends"] += 1
                    stats["blitz_defends"] += int(blitzing_before)
                if move.kind == MoveKind.CAPITAL:
                    stats["capitals"] += 1
                if move.kind == MoveKind.END_ATTACK and p == ref.allied:
                    stats["allied_turns"] += 1
                if move.kind in (MoveKind.REROLL, MoveKind.SIX):
                    stats["expert"] += 1
                if move.kind == MoveKind.FORTIFY:
                    stats["fortifies"] += 1
                if move.kind in (MoveKind.FORTIFY, MoveKind.END_TURN) and p < n:
                    new = set(s.hands[p]) - hand_before
                    if new:
                        cards[b] = new.pop()
                if move.kind == MoveKind.CLAIM and ref.neutral >= 0:
                    new_n = set(np.flatnonzero(s.owner == ref.neutral).tolist()) - neutral_before
                    if new_n:
                        claims[b] = new_n.pop()
                        stats["neutral_claims"] += 1
            exp_rewards[b] = _expected_rewards(ref, s, elim_seen[b], n)
            stats["eliminations"] += len(s.elim_order) - elim_seen[b]
            elim_seen[b] = len(s.elim_order)
            if s.phase == Phase.GAME_OVER:
                if s.winner >= 0:
                    exp_won[b] = True
                    stats["variant_wins"] += int(sum(s.alive) > 1)
                else:
                    exp_trunc[b] = True
                    if rules.truncation_reward == "rank" and np.abs(exp_rewards[b]).sum() > 0:
                        stats["rank_rewards"] += 1
        width = max(1, max(len(x) for x in tapes))
        dice = torch.ones(batch, width, dtype=torch.int64)
        for b, x in enumerate(tapes):
            if x:
                dice[b, : len(x)] = torch.tensor(x)
        chance = Chance(
            dice=dice.to(DEVICE),
            card=torch.as_tensor(cards, device=DEVICE),
            claim=torch.as_tensor(claims, device=DEVICE),
        )
        info = vg.step(vs, torch.as_tensor(actions, device=DEVICE), chance)
        rewards = vg.rewards(vs, info).cpu().numpy()
        info = type(info)(info.eliminated.cpu(), info.won.cpu(), info.truncated.cpu())
        assert np.array_equal(rewards, exp_rewards), f"step {t}: rewards differ {rewards[rewards != exp_rewards]}"
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
    stats["phase_set"] = sorted(phases_seen)  # type: ignore[assignment]
    return stats


def _small(**kw: object) -> RulesConfig:
    return RulesConfig(**{"map": "small", **kw})  # type: ignore[arg-type]


DECISIVE = ("wins", "eliminations", "trades")
CASES: dict[str, tuple[RulesConfig, int, int, tuple[str, ...]]] = {
    # name: (rules, batch, steps, the statistics that must be > 0: what the case covers)
    "classic-4p-claim": (RulesConfig(num_players=4, map="small", turn_limit=60), 96, 700, DECISIVE),
    "2p-deal-neutral": (RulesConfig(num_players=2, map="small", turn_limit=60), 96, 500, DECISIVE),
    "3p-claim-classic-map": (RulesConfig(num_players=3, turn_limit=10), 16, 600, ("truncations",)),
    "fast-4p-random": (RulesConfig.from_preset("fast", num_players=4, turn_limit=15), 24, 500, ("truncations",)),
    "6p-claim-classic-map": (RulesConfig(num_players=6, turn_limit=12), 12, 500, ("truncations",)),
    "5p-deal-trade5": (
        _small(num_players=5, setup="deal", starting_armies=8, elimination_trade_at=5, turn_limit=60),
        48,
        500,
        DECISIVE,
    ),
    # the switches beyond the classic rules, each with its own case
    "connected-fortify": (
        _small(num_players=3, setup="random", fortify="connected", turn_limit=60),
        24,
        250,
        (*DECISIVE, "fortifies"),
    ),
    "defender-choice": (
        _small(num_players=3, setup="random", defender_dice="choose", turn_limit=60),
        24,
        250,
        (*DECISIVE, "blitz_defends"),
    ),
    "defender-choice-2p-neutral": (
        _small(num_players=2, defender_dice="choose", turn_limit=60),
        24,
        250,
        ("wins", "eliminations", "defends"),
    ),
    "escalating-reset": (_small(num_players=4, setup="random", card_trade="escalating_reset", turn_limit=60), 24, 250, DECISIVE),
    "slow-escalation": (_small(num_players=4, setup="random", card_trade="slow_escalation", turn_limit=60), 24, 250, DECISIVE),
    "fixed-by-symbol": (_small(num_players=4, setup="random", card_trade="fixed_by_symbol", turn_limit=60), 24, 250, DECISIVE),
    "stars": (_small(num_players=3, setup="random", card_trade="stars", turn_limit=60), 24, 250, DECISIVE),
    "no-cards": (_small(num_players=3, setup="random", card_trade="no_cards", turn_limit=60), 24, 250, ("wins", "eliminations")),
    "bonus-once-per-trade": (
        _small(num_players=4, setup="random", territory_bonus="once_per_trade", turn_limit=60),
        24,
        250,
        DECISIVE,
    ),
    "duel": (RulesConfig.from_preset("duel", map="small", turn_limit=60), 24, 250, DECISIVE),
    "neutral-claim": (_small(num_players=2, setup="claim", turn_limit=60), 24, 250, ("wins", "eliminations", "neutral_claims")),
    "rank-reward": (_small(num_players=4, setup="random", truncation_reward="rank", turn_limit=6), 24, 250, ("rank_rewards",)),
    "expert": (
        RulesConfig.from_preset("expert", map="small", num_players=3, setup="random", turn_limit=60),
        24,
        250,
        (*DECISIVE, "expert"),
    ),
    "expert-choose": (
        _small(num_players=3, setup="random", die_to_six=True, defender_dice="choose", turn_limit=60),
        24,
        250,
        (*DECISIVE, "expert", "defends"),
    ),
    "tournament": (RulesConfig.from_preset("tournament", map="small", num_players=4, turn_limit=60), 24, 250, DECISIVE),
    "secret-missions": (
        RulesConfig.from_preset("secret_missions", num_players=3, setup="random", turn_limit=30),
        12,
        400,
        ("variant_wins",),
    ),
    "missions-24": (
        RulesConfig(num_players=4, secret_missions=True, mission_target_taken="24_territories", setup="random", turn_limit=30),
        12,
        400,
        ("variant_wins",),
    ),
    "capitals": (
        RulesConfig.from_preset("capitals", map="small", num_players=3, turn_limit=60),
        24,
        250,
        ("capitals", "variant_wins"),
    ),
    "allied": (RulesConfig.from_preset("allied", map="small", turn_limit=60), 24, 250, (*DECISIVE, "allied_turns")),
    "allied-choose-expert": (
        RulesConfig.from_preset("allied", map="small", defender_dice="choose", die_to_six=True, turn_limit=60),
        24,
        250,
        ("wins", "allied_turns", "defends", "expert"),
    ),
}


WARMUP = {"secret-missions": 400, "missions-24": 400}


@pytest.mark.parametrize("name", list(CASES))
def test_differential(name: str) -> None:
    rules, batch, steps, expect = CASES[name]
    stats = run_differential(rules, batch, steps, seed=sum(map(ord, name)), warmup=WARMUP.get(name, 0))
    assert stats["games_done"] > 0 and stats["phases"] >= 4, stats
    missing = [k for k in expect if not stats[k]]
    assert not missing, f"the case never reached {missing}: {stats}"


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("RISK_ENV_SLOW_TESTS"), reason="set RISK_ENV_SLOW_TESTS=1 (about 3 minutes)")
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_differential_many_games(players: int) -> None:
    """Thousands of decisive games on the small map (``RISK_ENV_SLOW_TESTS=1 pytest -m slow``)."""
    rules = RulesConfig(num_players=players, map="small", starting_armies=10, turn_limit=80)
    stats = run_differential(rules, 256, 2500, seed=1000 + players, check_positions=False)
    assert stats["games_done"] >= 500, stats


@pytest.mark.parametrize("taken", ["24_territories", "holder_wins"])
def test_a_destroy_mission_whose_target_someone_else_eliminates(taken: str) -> None:
    """Hand-built: seat 0 holds "destroy seat 1" and seat 2 eliminates seat 1. Under "24_territories" seat 0's
    mission becomes "hold 24 territories" and the game goes on; under "holder_wins" seat 0 wins at once
    (docs/rules.md §8). The batched engine's step equals the reference engine's, reward included."""
    from helpers import build, tid

    from risk_env.rules.missions import DESTROY_FIRST, TWENTY_FOUR

    rules = RulesConfig(num_players=3, secret_missions=True, mission_target_taken=taken)
    ref = Game(rules)
    codec = ActionCodec(ref)
    s = build(ref, owners={"Alaska": 1, "Kamchatka": 2, "Siberia": 0}, default_owner=2, armies={"Kamchatka": 9}, player=2)
    s.eliminated_by = [-1, -1, -1]
    s.missions = [DESTROY_FIRST + 1, TWENTY_FOUR, DESTROY_FIRST + 0]
    assert ref.invariant_violations(s) == []
    src, dst = tid(ref, "Kamchatka"), tid(ref, "Alaska")
    vg = VectorGame(rules, device=DEVICE)
    sel = Selection()
    vs = vg.from_states([s], [sel])
    for a, faces in ((src, []), (dst, []), (codec.dice + 2, [6, 6, 6, 1])):  # Kamchatka attacks Alaska: 3 sixes
        s.dice_buf, s.dice_pos = faces + [1] * 10, 0
        codec.step(s, a, sel)
        dice = torch.tensor([(faces + [1] * 5)[:5]], dtype=torch.int64, device=DEVICE)
        info = vg.step(vs, torch.tensor([a], device=DEVICE), Chance(dice=dice))
    want = vg.from_states([s], [sel])
    for name, t in want.fields().items():
        assert torch.equal(getattr(vs, name), t), name
    assert not s.alive[1] and s.eliminated_by[1] == 2
    if taken == "24_territories":
        assert s.missions[0] == TWENTY_FOUR and s.phase != Phase.GAME_OVER and not bool(info.won[0])
    else:
        assert s.winner == 0 and s.phase == Phase.GAME_OVER and bool(info.won[0])
        assert vg.rewards(vs, info).tolist() == [[1.0, -1.0, -1.0]]  # the holder wins; seat 2, alive, loses
