"""The batched heuristic opponents against their scalar baselines, position by position."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import numpy as np
import pytest
import torch
from vector_support import DEVICE, one_torch_thread  # noqa: F401 (the fixture applies to this module)

from risk_env import ActionCodec, Game, Phase, RulesConfig
from risk_env.agents.aggressive import AggressiveAgent
from risk_env.agents.balanced import BalancedAgent
from risk_env.agents.continent import ContinentAgent
from risk_env.agents.heuristic import HeuristicAgent
from risk_env.envs.codec import Selection
from risk_env.envs.view import GameView
from risk_env.errors import ConfigError
from risk_env.vector import VectorEnv, VectorGame
from risk_env.vector.agents import (
    AggressivePolicy,
    BalancedPolicy,
    ContinentPolicy,
    amount_ids,
    make_policy,
    random_legal,
)

SCALAR = {"aggressive": AggressiveAgent, "balanced": BalancedAgent, "continent": ContinentAgent}
BATCHED = {"aggressive": AggressivePolicy, "balanced": BalancedPolicy, "continent": ContinentPolicy}


def _scalar_agent(name: str) -> HeuristicAgent:
    """The scalar baseline with its random tie-breaking off (ties go to the first candidate)."""
    agent = SCALAR[name](seed=0)
    agent.jitter = lambda n, scale=1e-3: np.zeros(n)  # type: ignore[method-assign]
    return agent


def _kind(codec: ActionCodec, a: int, phase: int) -> str:
    if a == codec.end:
        return "end"
    if codec.trade >= 0 and codec.trade <= a < codec.trade + 13:
        return "trade"
    if a >= codec.blitz:
        return "blitz"
    if a >= codec.dice:
        return "dice"
    if a >= codec.amount:
        return "amount"
    return "territory"


def compare_policy(
    name: str, rules: RulesConfig, batch: int, steps: int, seed: int, explore: float = 0.15, mix: float = 0.0
) -> Counter:
    """Play ``batch`` reference games for ``steps`` decisions; compare the batched policy's id with
    the scalar agent's wherever the pending selection (if any) is the agent's own. A share
    ``explore`` of the complete moves is played at random, and with ``mix`` a share of the seats
    (drawn per game) play ``aggressive`` instead, to reach varied positions."""
    game = Game(rules)
    codec = ActionCodec(game)
    vg = VectorGame(rules, device=DEVICE, seed=seed)
    policy = BATCHED[name](vg)
    agent = _scalar_agent(name)
    other = _scalar_agent("aggressive")
    rng = np.random.default_rng(seed)
    states = [game.new_game(seed * 1000 + b) for b in range(batch)]
    sels = [Selection() for _ in range(batch)]
    random_move = np.zeros(batch, dtype=bool)  # the pending selection came from a random move
    mixed = rng.random((batch, rules.num_players)) < mix  # seats played by the other agent
    seen: Counter = Counter()
    next_seed = seed * 1000 + batch
    for _ in range(steps):
        vs = vg.from_states(states, sels)
        mask = vg.action_mask(vs)
        ids = policy(vs, mask).cpu().numpy()
        for b, s in enumerate(states):
            sel = sels[b]
            m = codec.mask(s, sel).astype(bool)
            pending = sel.src >= 0 or sel.dst >= 0 or sel.trade >= 0
            if not pending:
                random_move[b] = rng.random() < explore
            view = GameView(game, s, s.player, codec, sel)
            if random_move[b]:
                a = int(rng.choice(np.flatnonzero(m)))
            elif s.player < rules.num_players and mixed[b, s.player]:
                a = codec.move_to_action(s, other.choose_move(view), sel)
            else:
                want = codec.move_to_action(s, agent.choose_move(view), sel)
                seen[(Phase(s.phase).name, "checked")] += 1
                seen[_kind(codec, want, s.phase)] += 1
                if int(ids[b]) != want:
                    seen[(Phase(s.phase).name, "differ")] += 1
                a = want
            assert m[int(ids[b])], "the batched policy chose an illegal id"
            codec.step(s, a, sel)
            if s.phase == Phase.GAME_OVER:
                next_seed += 1
                states[b] = game.new_game(next_seed)
                sels[b] = Selection()
                mixed[b] = rng.random(rules.num_players) < mix
                seen["games"] += 1
    return seen


CASES = {
    "4p-claim-small": (RulesConfig(num_players=4, map="small", turn_limit=40), 32, 300),
    "2p-neutral-deal": (RulesConfig(num_players=2, map="small", turn_limit=40), 32, 300),
    "3p-classic": (RulesConfig(num_players=3, turn_limit=12), 8, 400),
    "fast-4p": (RulesConfig.from_preset("fast", num_players=4, turn_limit=40), 8, 500),
}
SLOW_CASES = {
    "6p-claim-classic": (RulesConfig(num_players=6, turn_limit=30), 16, 1500),
    "5p-deal-elimination-trade": (RulesConfig(num_players=5, setup="deal", elimination_trade_at=5, turn_limit=60), 16, 1500),
    "2p-fast": (RulesConfig.from_preset("fast", num_players=2), 32, 1000),
    "3p-small-random": (RulesConfig(num_players=3, map="small", setup="random", turn_limit=60), 32, 1000),
}


def _check(name: str, case: str, seen: Counter) -> None:
    differ = {k: v for k, v in seen.items() if isinstance(k, tuple) and k[1] == "differ"}
    assert not differ, f"{name} {case}: decisions differ {differ} (checked: {dict(seen)})"
    checked = {k[0] for k in seen if isinstance(k, tuple)}
    assert {"REINFORCE", "ATTACK", "FORTIFY", "OCCUPY"} <= checked
    assert seen["trade"] > 0 and seen["amount"] > 0 and seen["dice"] > 0 and seen["end"] > 0


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("name", list(BATCHED))
def test_batched_heuristic_matches_the_scalar_agent(name: str, case: str) -> None:
    rules, batch, steps = CASES[case]
    # the passive heuristics meet the aggressive one at half the seats (else few conquests happen)
    mix = 0.0 if name == "aggressive" else 0.5
    _check(name, case, compare_policy(name, rules, batch, steps, seed=sum(map(ord, case + name)), mix=mix))


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("RISK_ENV_SLOW_TESTS"), reason="set RISK_ENV_SLOW_TESTS=1 (several minutes)")
@pytest.mark.parametrize("case", list(SLOW_CASES))
@pytest.mark.parametrize("name", list(BATCHED))
def test_batched_heuristic_matches_the_scalar_agent_at_length(name: str, case: str) -> None:
    """Ten times the positions, 2-6 players (``RISK_ENV_SLOW_TESTS=1 pytest -m slow``)."""
    rules, batch, steps = SLOW_CASES[case]
    seen = compare_policy(name, rules, batch, steps, seed=sum(map(ord, case + name)), mix=0.5)
    _check(name, case, seen)
    print(name, case, "checked", sum(v for k, v in seen.items() if isinstance(k, tuple) and k[1] == "checked"), dict(seen))


def test_amount_ids_match_the_codec() -> None:
    rules = RulesConfig(num_players=3)
    codec = ActionCodec(Game(rules))
    vg = VectorGame(rules, device=DEVICE)
    cases = [(lo, hi, want) for lo in (1, 2, 3) for hi in range(lo, lo + 40, 3) for want in range(lo - 1, hi + 2)]
    lo, hi, want = (torch.tensor(c, device=DEVICE) for c in zip(*cases, strict=True))
    got = amount_ids(vg, lo, hi, want).cpu().tolist()
    assert got == [codec.amount_action(a, b, c) for a, b, c in cases]


@pytest.mark.parametrize("n", [70, 600])
def test_random_legal_is_uniform_over_hundreds_of_legal_ids(n: int) -> None:
    """Every legal id is drawn, uniformly, also with 256 or more legal ids (a big map's action
    space), where counting them in uint8 wrapped and only the first few legal ids came up."""
    legal = torch.arange(n, device=DEVICE) % 2 == 0  # 35 or 300 legal ids, up to id n - 2
    draws = 40_000
    mask = legal.expand(draws, n)
    ids = random_legal(mask, torch.Generator(device=DEVICE).manual_seed(5))
    assert ids.dtype == torch.int64 and ids.shape == (draws,)
    assert bool(mask.gather(1, ids[:, None]).all())  # always a legal id
    counts = torch.bincount(ids, minlength=n).cpu()
    legal_ids = legal.nonzero()[:, 0].cpu()
    assert (counts[legal_ids] > 0).all() and int(counts.sum()) == draws  # every legal id, nothing else
    assert int(ids.max()) == n - 2  # (with 600 ids: ids past 255 too)
    expected = draws / len(legal_ids)
    chi2 = float(((counts[legal_ids] - expected) ** 2 / expected).sum())
    dof = len(legal_ids) - 1
    assert chi2 < dof + 6 * (2 * dof) ** 0.5, chi2  # uniform (6 standard deviations of chi-square)
    # a row with no legal id gets 0, a row with one legal id gets it
    few = torch.zeros(2, n, dtype=torch.bool, device=DEVICE)
    few[1, n - 1] = True
    assert random_legal(few, torch.Generator(device=DEVICE).manual_seed(0)).tolist() == [0, n - 1]


@pytest.mark.parametrize("name", list(BATCHED))
def test_policy_plays_whole_games(name: str) -> None:
    """A batched heuristic in every seat of the batched env: legal ids throughout, and games end."""
    env = VectorEnv(64, device=DEVICE, seed=3, map="small", setup="random", num_players=3, turn_limit=40)
    policy = make_policy(name, env.game)
    assert isinstance(policy, BATCHED[name]) and policy.name == name
    out = env.reset()
    finished = 0
    for _ in range(500):
        assert env.state is not None
        out = env.step(policy(env.state, out.action_mask))  # the env checks every id
        finished += int(out.autoreset.sum())
    assert finished > 10
    with pytest.raises(ConfigError, match="aggressive"):
        make_policy("cautious", env.game)


@pytest.mark.parametrize(
    "rules, what",
    [
        (RulesConfig(fortify="connected"), "fortify='connected'"),
        (RulesConfig(defender_dice="choose"), "defender_dice='choose'"),
        (RulesConfig(card_trade="fixed_by_symbol"), "card_trade='fixed_by_symbol'"),
        (RulesConfig.from_preset("capitals"), "capitals=True"),
        (RulesConfig(num_players=2, two_player="none"), "two_player='none'"),
    ],
)
def test_batched_heuristics_refuse_the_variants_they_do_not_play(rules: RulesConfig, what: str) -> None:
    game = VectorGame(rules, device=DEVICE)
    for name in BATCHED:
        with pytest.raises(ConfigError, match="classic rules") as e:
            make_policy(name, game)
        assert what in str(e.value)
    make_policy("random", game)  # the random policy plays every rule


def test_sb3_adapter_with_a_mix_of_embedded_opponents() -> None:
    """Even slots against the random opponent, odd slots against the batched aggressive one:
    the aggressive opponent wins more often against a random learner."""
    from risk_env.vector.sb3 import VectorSB3Env

    venv = VectorSB3Env(
        16, device=str(DEVICE), seed=5, opponent=["random", "aggressive"], map="small", num_players=2, turn_limit=20
    )
    venv.reset()
    rng = np.random.default_rng(1)
    results: dict[int, list[float]] = {0: [], 1: []}
    for _ in range(300):
        masks = venv.action_masks()
        venv.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        _, rew, done, _ = venv.step_wait()
        for i in np.flatnonzero(done).tolist():
            results[i % 2].append(float(rew[i]))
    assert len(results[0]) > 10 and len(results[1]) > 10
    loss_rate = {k: np.mean(np.array(v) < 0) for k, v in results.items()}
    assert loss_rate[1] > loss_rate[0]
    with pytest.raises(
        ConfigError,
        match="^the batched engine cannot play 'cautious': no batched policy, pretrained agent or model file has that name",
    ):
        VectorSB3Env(4, opponent="cautious", preset="fast")
    with pytest.raises(ConfigError, match="empty"):
        VectorSB3Env(4, opponent=[], preset="fast")


def test_sb3_adapter_shaping_telescopes_and_turn_feature() -> None:
    """With shaping_gamma=1 an episode's shaping sums to -shaping * phi_0 (its first potential);
    the same seeds and actions with and without shaping play the same games."""
    from risk_env.vector.sb3 import VectorSB3Env

    kw: dict[str, Any] = dict(device=str(DEVICE), seed=2, opponent="aggressive", map="small", num_players=2, turn_limit=15)
    plain = VectorSB3Env(8, **kw)
    shaped = VectorSB3Env(8, shaping=0.5, shaping_gamma=1.0, turn_feature=False, **kw)
    o1, o2 = np.asarray(plain.reset()), np.asarray(shaped.reset())
    turn = plain.venv.game.obs_offsets["turn"]
    assert np.array_equal(np.delete(o1, turn, 1), np.delete(o2, turn, 1)) and not o2[:, turn].any()
    phi0 = shaped.learner_env.potential[:, 0].cpu().numpy().copy()
    total = np.zeros(8)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(150):
        masks = plain.action_masks()
        assert np.array_equal(masks, shaped.action_masks())
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        plain.step_async(acts)
        shaped.step_async(acts)
        _, r1, d1, _ = plain.step_wait()
        _, r2, d2, _ = shaped.step_wait()
        assert np.array_equal(d1, d2)
        total += r2 - r1
        for i in np.flatnonzero(d1).tolist():
            assert total[i] == pytest.approx(-0.5 * phi0[i], abs=1e-5)
            total[i] = 0.0
            episodes += 1
        phi0 = np.where(d1, shaped.learner_env.potential[:, 0].cpu().numpy(), phi0)
    assert episodes > 5
