"""The batched engine's interface, its chance (blitz table, sampled distributions),
distribution agreement with the reference engine, and the SB3 adapter."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch
from vector_support import DEVICE, one_torch_thread  # noqa: F401 (the fixture applies to this module)

from risk_env import PRESETS, ActionCodec, ConfigError, Game, IllegalActionError, ObservationEncoder, Phase, RulesConfig, odds
from risk_env.envs.codec import Selection
from risk_env.errors import ResetNeededError
from risk_env.vector import SUPPORTED_RULES, BatchState, VectorEnv, VectorGame
from risk_env.vector.dice import Draws, blitz, resolve, sample_roll, sorted_faces
from risk_env.vector.tables import blitz_outcome_index, blitz_table

# ---------------------------------------------------------------- interface


def test_shapes_match_the_reference_codec_and_encoder() -> None:
    env = VectorEnv(6, seed=1, preset="fast", num_players=3)
    out = env.reset()
    g = Game(RulesConfig.from_preset("fast", num_players=3))
    assert out.observation.shape == (6, ObservationEncoder(g).size)
    assert out.action_mask.shape == (6, ActionCodec(g).n)
    assert out.observation.dtype == torch.float32 and out.action_mask.dtype == torch.bool
    assert out.rewards.shape == (6, 3) and out.current_player.shape == (6,)
    assert not out.autoreset.any() and not out.terminated.any() and not out.truncated.any()
    assert (out.action_mask.sum(1) > 0).all()


def test_every_rules_switch_is_supported_or_refused_with_a_reason() -> None:
    """The allowlist names every RulesConfig switch: a new switch fails here until the batched
    engine plays it or refuses it with a reason (SUPPORT in risk_env/vector/state.py)."""
    from risk_env.vector.state import SUPPORT

    switches = {f.name for f in dataclasses.fields(RulesConfig) if not f.name.startswith("_")}
    assert set(SUPPORT) == switches, f"not in the batched engine's allowlist: {sorted(switches - set(SUPPORT))}"
    assert set(SUPPORTED_RULES) == switches and all(SUPPORTED_RULES.values())


def test_a_switch_missing_from_the_allowlist_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    from risk_env.vector import state

    monkeypatch.delitem(state.SUPPORT, "fortify")
    with pytest.raises(ConfigError, match=r"fortify='adjacent' \(a switch the batched engine does not play yet\)"):
        VectorEnv(2)
    monkeypatch.setitem(
        state.SUPPORT, "fortify", state.Support("'adjacent'", lambda c: "why not" if c.fortify != "adjacent" else None)
    )
    VectorEnv(2)
    with pytest.raises(ConfigError, match=r"fortify='connected' \(why not\).*Use risk_env.env"):
        VectorEnv(2, fortify="connected")


OPEN_SWITCHES = {"map", "starting_armies", "elimination_trade_at", "turn_limit"}
"""Switches of open-ended values (a map, numbers of armies or turns): the batched engine plays each of their values."""

REFUSED_VALUES: set[tuple[str, object]] = set()
"""``(switch, value)`` pairs the batched engine refuses on purpose: none today. A value added to a switch of
RulesConfig is refused by the batched engine (it is not in the switch's ``Support.plays``), and the test below fails
until it is either played (added to ``plays``, with its rule in the engine) or listed here."""


def _domain(f: dataclasses.Field) -> tuple[object, ...] | None:
    """Every value RulesConfig allows for switch ``f``, or None for an open-ended one."""
    from risk_env.rules.config import _CHOICES

    if f.name in _CHOICES:
        return _CHOICES[f.name]
    if f.name in OPEN_SWITCHES:
        return None
    if f.type in ("bool", bool):
        return (False, True)
    if f.type in ("int", int):  # a bounded count (the players): the values RulesConfig takes
        return tuple(n for n in range(-2, 33) if _config(f.name, n) is not None)
    raise AssertionError(f"switch {f.name} ({f.type}): say here which values it takes")


def _config(name: str, value: object) -> RulesConfig | None:
    """Rules with ``name=value``, the other switches set where the value needs them (2 players, missions), or None
    where RulesConfig refuses the value itself."""
    for base in ({}, {"num_players": 2}, {"secret_missions": True}):
        try:
            return RulesConfig(**{**base, name: value})  # type: ignore[arg-type]
        except ConfigError:
            continue
    return None


def _refused_values() -> set[tuple[str, object]]:
    """Check every value of every switch against the allowlist: a value it plays passes ``check_rules``, any other
    is refused with ConfigError naming the switch, the value and the values it plays. Returns those refused."""
    from risk_env.vector.state import SUPPORT, check_rules

    refused = set()
    for f in dataclasses.fields(RulesConfig):
        if f.name.startswith("_"):
            continue
        domain, sup = _domain(f), SUPPORT[f.name]
        if domain is None:
            assert sup.plays is None, f"{f.name} is open-ended: the batched engine plays every value"
            continue
        assert sup.plays is not None, f"{f.name}: list the values the batched engine plays (Support.plays)"
        assert set(sup.plays) <= set(domain), f"{f.name}: plays values RulesConfig does not have"
        for value in sup.plays:
            if isinstance(value, str):
                assert repr(value) in sup.values, f"{f.name}={value!r} is played but not named in SUPPORTED_RULES"
        for value in domain:
            cfg = _config(f.name, value)
            assert cfg is not None, f"no rules with {f.name}={value!r}: give _config a base that takes it"
            if value in sup.plays:
                check_rules(cfg)
                continue
            with pytest.raises(ConfigError) as e:
                check_rules(cfg)
            plays = ", ".join(map(repr, sup.plays))
            assert f"{f.name}={value!r} (a value the batched engine does not play yet; it plays {plays})" in str(e.value)
            refused.add((f.name, value))
    return refused


def test_every_value_of_every_rules_switch_is_played_or_refused_by_name() -> None:
    """Every value of every RulesConfig switch (each choice of rules/config.py's table, both values of a flag, every
    player count) is either one the batched engine plays or refused with ConfigError naming the switch, the value and
    what it plays: a value added to a switch is never played as another one (the engine reads switches as
    ``cfg.fortify == "connected"``), and fails here until it is handled (REFUSED_VALUES)."""
    refused = _refused_values()
    assert refused == REFUSED_VALUES, f"refused by the batched engine: {sorted(refused - REFUSED_VALUES, key=repr)}"


def test_a_value_added_to_a_switch_is_refused_not_played_as_another(monkeypatch: pytest.MonkeyPatch) -> None:
    from risk_env.rules import config

    monkeypatch.setitem(config._CHOICES, "fortify", (*config._CHOICES["fortify"], "free"))  # a new fortify rule
    rules = RulesConfig(fortify="free")  # the rules take it; the batched engine read it as 'adjacent'
    match = r"fortify='free' \(a value the batched engine does not play yet; it plays 'adjacent', 'connected'\)"
    with pytest.raises(ConfigError, match=match):
        VectorEnv(2, rules=rules)
    with pytest.raises(ConfigError, match=match):
        VectorGame(fortify="free")
    assert _refused_values() == {("fortify", "free")} != REFUSED_VALUES  # the enumeration above fails


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_runs_batched(preset: str) -> None:
    rules = RulesConfig.from_preset(preset, turn_limit=3)
    env = VectorEnv(4, seed=2, rules=rules)
    out = env.reset()
    gen = torch.Generator().manual_seed(0)
    for _ in range(60):
        out = env.step(_pick(out.action_mask, gen))
    assert out.action_mask.any(1).all()


def test_bad_arguments() -> None:
    with pytest.raises(ConfigError, match="num_envs"):
        VectorEnv(0)
    with pytest.raises(ConfigError, match="seed"):
        VectorEnv(2, seed=-1)
    with pytest.raises(ConfigError, match="preset"):
        VectorEnv(2, preset="nope")


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = VectorEnv(4, seed=3, preset="fast")
    out = env.reset()
    before = _state(env).clone()
    bad = out.action_mask.float().argmin(1)  # an id masked out in every slot
    assert not out.action_mask.gather(1, bad[:, None]).any()
    with pytest.raises(IllegalActionError, match="illegal in slot 0"):
        env.step(bad)
    with pytest.raises(IllegalActionError, match="shape"):
        env.step(torch.zeros(3, dtype=torch.int64))
    for name, t in _state(env).fields().items():
        assert torch.equal(t, getattr(before, name)), name
    with pytest.raises(ResetNeededError, match="reset"):
        VectorEnv(2).step(torch.zeros(2, dtype=torch.int64))


def _state(env: VectorEnv) -> BatchState:
    assert env.state is not None
    return env.state


def _pick(mask: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    return torch.where(mask, torch.rand(mask.shape, generator=gen), -1.0).argmax(1)


def test_seeded_runs_repeat_and_inactive_slots_stay() -> None:
    runs = []
    for _ in range(2):
        env = VectorEnv(5, seed=11, preset="fast", num_players=2)
        gen = torch.Generator().manual_seed(0)
        out = env.reset()
        for _ in range(300):
            out = env.step(_pick(out.action_mask, gen))
        runs.append((out.observation.clone(), _state(env).armies.clone()))
    assert torch.equal(runs[0][0], runs[1][0]) and torch.equal(runs[0][1], runs[1][1])
    active = torch.tensor([True, False, True, False, True])
    before = _state(env).clone()
    env.step(_pick(out.action_mask, gen), active=active)
    for name, t in _state(env).fields().items():
        assert torch.equal(t[~active], getattr(before, name)[~active]), name


def test_sparse_active_steps_run_compacted_and_stay_consistent() -> None:
    """A step with few active slots runs on those slots alone: its outputs are those of the new
    positions, the other slots keep theirs, and auto-reset still happens."""
    env = VectorEnv(32, seed=3, map="small", num_players=3, turn_limit=3, final_observation=True)
    g = env.game
    gen = torch.Generator().manual_seed(1)
    out = env.reset()
    resets = compact = 0
    for t in range(1500):
        k = 2 + t % 12  # 2..13 active slots: compacted up to 8 (a quarter of 32), the full path above
        active = torch.zeros(32, dtype=torch.bool)
        active[torch.randperm(32, generator=gen)[:k]] = True
        before = _state(env).clone()
        prev = out
        out = env.step(_pick(out.action_mask, gen), active=active)
        compact += int(k <= 8)
        s = _state(env)
        assert torch.equal(out.observation, g.observe(s)) and torch.equal(out.action_mask, g.action_mask(s))
        assert torch.equal(out.current_player, s.player)
        for name, x in s.fields().items():
            assert torch.equal(x[~active], getattr(before, name)[~active]), name
        assert torch.equal(out.observation[~active], prev.observation[~active])
        assert not out.rewards[~active].any() and not out.autoreset[~active].any()
        assert out.final_observation is not None
        resets += int(out.autoreset.sum())
    assert resets > 5 and compact > 800


def test_autoreset_reports_the_finished_game() -> None:
    env = VectorEnv(16, seed=5, map="small", num_players=2, turn_limit=8, final_observation=True)
    gen = torch.Generator().manual_seed(1)
    out = env.reset()
    enc = ObservationEncoder(Game(RulesConfig(map="small", num_players=2, turn_limit=8)))
    turn_slot = enc.layout["turn"][0].start
    phase = enc.layout["phase"][0].start
    seen = 0
    for _ in range(400):
        out = env.step(_pick(out.action_mask, gen))
        done = out.autoreset
        assert torch.equal(done, out.terminated | out.truncated)
        if done.any():
            seen += int(done.sum())
            assert out.final_observation is not None
            fin = out.final_observation[done]
            assert (fin[:, phase + Phase.GAME_OVER] == 1).all()  # the finished game, from its last mover
            assert (out.observation[done, turn_slot] <= 1 / 8).all()  # the new game in the slot
            t = out.truncated
            assert (out.rewards[t] == 0).all()
            w = out.terminated
            assert (out.rewards[w].max(1).values == 1).all()
    assert seen > 0


# ---------------------------------------------------------------- chance


def test_one_roll_table_is_exact() -> None:
    from risk_env.vector.tables import roll_outcomes

    table = roll_outcomes()
    for key, rows in table.items():
        assert math.isclose(sum(p for _, _, p in rows), 1.0), key
    three_two = {(al, dl): p for al, dl, p in table[(3, 2)]}  # docs/rules.md §9's check figures
    assert math.isclose(three_two[(0, 2)], 2890 / 7776) and math.isclose(three_two[(2, 0)], 2275 / 7776)
    assert math.isclose(three_two[(1, 1)], 2611 / 7776)
    # one roller against one defender is a one-roll battle: the exact odds of risk_env.odds
    one_one = {(al, dl): p for al, dl, p in table[(1, 1)]}
    assert math.isclose(one_one[(0, 1)], float(odds.outcome_distribution(1, 1, exact=True)[(1, 0)]))


def test_compositions_match_the_codec() -> None:
    from risk_env.vector.tables import COMPOSITIONS

    g = Game(RulesConfig(num_players=3))
    codec = ActionCodec(g)
    s = g.new_game(0)
    for i, comp in enumerate(COMPOSITIONS):
        name = codec.action_to_string(s, codec.trade + i).split()[-1]
        assert tuple(name.count(ch) for ch in "ICAW") == comp


def test_blitz_table_matches_the_exact_odds() -> None:
    cap = 12
    P = blitz_table(cap)
    for a in range(1, cap + 1):
        for d in range(1, cap + 1):
            exact = odds.outcome_distribution(a, d, exact=True)
            for (s_left, t_left), p in exact.items():
                if t_left == 0:
                    got = P[a, d, blitz_outcome_index(cap, True, s_left)]
                else:
                    got = sum(P[a, d, blitz_outcome_index(cap, False, t_left, k)] for k in (1, 2))
                assert math.isclose(got, float(p), rel_tol=1e-12, abs_tol=1e-15), (a, d, s_left, t_left)
            assert math.isclose(P[a, d].sum(), 1.0, rel_tol=1e-12)
    # the last roll of a failed blitz uses 2 dice only from 2 rollers losing both
    assert P[1, 5, blitz_outcome_index(cap, False, 5, 2)] == 0


def _blitz_samples(A: int, D: int, games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A blitz from a territory with ``A`` armies at one with ``D``, in ``games`` batched games at once."""
    vg = VectorGame(RulesConfig(num_players=2, map="small", setup="random"), seed=seed, device=DEVICE)
    B = games
    A_t = torch.full((B,), A, dtype=torch.int64, device=DEVICE)
    D_t = torch.full((B,), D, dtype=torch.int64, device=DEVICE)
    yes = torch.ones(B, dtype=torch.bool, device=DEVICE)
    att_loss, def_loss, last = blitz(vg, Draws(vg, B, None), yes, A_t, D_t, None)
    return (A - att_loss).cpu().numpy(), (D - def_loss).cpu().numpy(), last.cpu().numpy()


@pytest.mark.parametrize("A, D", [(4, 3), (11, 9), (90, 80)])
def test_sampled_blitz_has_the_exact_distribution(A: int, D: int) -> None:
    from scipy.stats import chisquare

    n = 40_000
    a_left, d_left, last = _blitz_samples(A, D, n, seed=A * 100 + D)
    exact = odds.outcome_distribution(A - 1, D)
    keys = sorted(exact)
    observed = np.array([np.sum((a_left - 1 == s) & (d_left == t)) for s, t in keys], dtype=float)
    assert observed.sum() == n  # every sample is one of the exact outcomes
    expected = np.array([float(exact[k]) for k in keys]) * n
    big = expected >= 5  # pool the rare cells
    obs_c = np.append(observed[big], observed[~big].sum())
    exp_c = np.append(expected[big], expected[~big].sum())
    if exp_c[-1] == 0:
        obs_c, exp_c = obs_c[:-1], exp_c[:-1]
    assert chisquare(obs_c, exp_c * obs_c.sum() / exp_c.sum()).pvalue > 1e-3
    # the last roll's dice: min(3, survivors) after a conquest, 1 or 2 after a failure
    conq = d_left == 0
    assert (last[conq] == np.minimum(3, a_left[conq] - 1)).all()
    assert np.isin(last[~conq], (1, 2)).all() and (a_left[~conq] == 1).all()


def test_single_rolls_have_the_exact_distribution() -> None:
    from scipy.stats import chisquare

    from risk_env.vector.tables import roll_outcomes

    vg = VectorGame(RulesConfig(num_players=2, map="small", setup="random"), seed=9)
    n = 30_000
    for ad, dd in [(3, 2), (2, 2), (1, 2), (3, 1), (1, 1)]:
        faces = torch.randint(1, 7, (n, 5), generator=vg.generator)
        al, dl = resolve(*sorted_faces(faces, torch.full((n,), ad), torch.full((n,), dd)))
        exact = {(x, y): p for x, y, p in roll_outcomes()[(ad, dd)]}
        keys = sorted(exact)
        observed = np.array([int(((al == x) & (dl == y)).sum()) for x, y in keys], dtype=float)
        assert observed.sum() == n
        assert chisquare(observed, np.array([exact[k] for k in keys]) * n).pvalue > 1e-3


def test_sampled_single_rolls_have_the_exact_distribution() -> None:
    """Rolls drawn by the generator take their losses from the cumulative one-roll table."""
    from scipy.stats import chisquare

    from risk_env.vector.tables import roll_cdf, roll_outcomes

    table = roll_cdf()
    for (ad, dd), rows in roll_outcomes().items():
        pairs = min(ad, dd)
        cum = np.cumsum([sum(p for x, _, p in rows if x == o) for o in range(pairs + 1)])
        assert np.allclose(table[3 * ad + dd, :pairs], cum[:pairs], atol=1e-15)
        assert (table[3 * ad + dd, pairs:] == 2.0).all()
    vg = VectorGame(RulesConfig(num_players=2, map="small", setup="random"), device=DEVICE, seed=11)
    n = 30_000
    for ad, dd in [(3, 2), (2, 2), (1, 2), (3, 1), (1, 1)]:
        k = torch.full((n,), ad, device=DEVICE)
        j = torch.full((n,), dd, device=DEVICE)
        u = torch.rand(n, generator=vg.generator, device=DEVICE)
        al, dl = (x.cpu() for x in sample_roll(vg, u, k, j))
        exact = {(x, y): p for x, y, p in roll_outcomes()[(ad, dd)]}
        keys = sorted(exact)
        observed = np.array([int(((al == x) & (dl == y)).sum()) for x, y in keys], dtype=float)
        assert observed.sum() == n  # every sample is one of the exact outcomes
        assert chisquare(observed, np.array([exact[k] for k in keys]) * n).pvalue > 1e-3


# ---------------------------------------------------------------- distributions against the reference engine


def test_random_play_distributions_agree_with_the_reference() -> None:
    """Game length and first-player win rate of the same random policy (ending a phase
    weighted 0.05, other legal ids 1) on both engines agree within their confidence intervals.
    Each batched slot contributes its first games only (counting every game finished by
    some time would favour short games)."""
    cfg = RulesConfig(num_players=2, map="small")
    g = Game(cfg)
    codec = ActionCodec(g)
    rng = np.random.default_rng(0)
    ref_len, ref_first = [], []
    for k in range(250):
        s = g.new_game(10_000 + k)
        sel = Selection()
        steps = 0
        while s.phase != Phase.GAME_OVER:
            legal = np.flatnonzero(codec.mask(s, sel))
            w = np.where(legal == codec.end, 0.05, 1.0)
            codec.step(s, int(rng.choice(legal, p=w / w.sum())), sel)
            steps += 1
        ref_len.append(steps)
        ref_first.append(s.winner == s.order[0])
    B, per_slot = 500, 1
    env = VectorEnv(B, seed=2, rules=cfg, check_actions=False, device=DEVICE)
    gen = torch.Generator(device=DEVICE).manual_seed(3)
    out = env.reset()
    first = _state(env).order[:, 0].clone()
    length = torch.zeros(B, dtype=torch.int64, device=DEVICE)
    count = torch.zeros(B, dtype=torch.int64, device=DEVICE)
    vec_len: list[int] = []
    vec_first: list[bool] = []
    while bool((count < per_slot).any()):
        wt = out.action_mask.float()
        wt[:, codec.end] *= 0.05
        out = env.step(torch.multinomial(wt, 1, generator=gen)[:, 0])
        length += 1
        done = out.autoreset
        if done.any():
            assert out.terminated[done].all()  # no truncation at the 1000-turn limit here
            idx = (done & (count < per_slot)).nonzero()[:, 0]
            winners = out.rewards[idx].argmax(1)
            vec_len += length[idx].tolist()
            vec_first += (winners == first[idx]).tolist()
            count += done.long()
            length[done] = 0
            first[done] = _state(env).order[done, 0]
    assert len(vec_len) == B * per_slot
    a, b = np.array(ref_len, float), np.array(vec_len, float)
    z_len = (a.mean() - b.mean()) / math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    p1, p2 = np.mean(ref_first), np.mean(vec_first)
    pool = (np.sum(ref_first) + np.sum(vec_first)) / (len(ref_first) + len(vec_first))
    z_first = (p1 - p2) / math.sqrt(pool * (1 - pool) * (1 / len(ref_first) + 1 / len(vec_first)))
    assert abs(z_len) < 3.5, (a.mean(), b.mean())
    assert abs(z_first) < 3.5, (p1, p2)


# ---------------------------------------------------------------- learners


def test_sb3_adapter_masks_and_episodes() -> None:
    from risk_env.vector.sb3 import VectorSB3Env

    venv = VectorSB3Env(6, seed=4, map="small", num_players=3, turn_limit=6)
    obs = np.asarray(venv.reset())
    D, N = venv.venv.observation_size, venv.venv.num_actions
    assert obs.shape == (6, D)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(120):
        masks = np.stack(venv.env_method("action_masks"))
        assert masks.shape == (6, N) and masks.any(1).all()
        venv.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        step_obs, rew, done, infos = venv.step_wait()
        obs = np.asarray(step_obs)
        assert set(np.unique(rew)) <= {-1.0, 0.0, 1.0}
        assert not rew[~done].any()
        for i in np.flatnonzero(done).tolist():
            assert infos[i]["terminal_observation"].shape == (D,)
        finished += int(done.sum())
    assert finished > 0


def test_maskable_ppo_trains_on_the_batched_env() -> None:
    from sb3_contrib import MaskablePPO

    from risk_env.vector.sb3 import VectorSB3Env

    venv = VectorSB3Env(8, seed=0, map="small", num_players=2, turn_limit=30)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    obs = np.asarray(venv.reset())
    actions, _ = model.predict(obs, action_masks=venv.action_masks(), deterministic=True)
    assert venv.action_masks()[np.arange(8), actions].all()


@pytest.mark.parametrize(
    "rules",
    [
        RulesConfig.from_preset("fast", num_players=4),
        RulesConfig.from_preset("tournament", map="small", turn_limit=40),
        RulesConfig.from_preset("expert", map="small", num_players=3, defender_dice="choose", turn_limit=40),
        RulesConfig.from_preset("allied", map="small", turn_limit=40),
        RulesConfig.from_preset("capitals", map="small", num_players=3, truncation_reward="rank", turn_limit=10),
        RulesConfig(num_players=2, map="small", setup="claim", card_trade="stars", turn_limit=40),
        RulesConfig.from_preset("secret_missions", num_players=3, setup="random", turn_limit=20),
    ],
    ids=["fast", "tournament", "expert-choose", "allied", "capitals-rank", "neutral-claim-stars", "missions"],
)
def test_static_steps_give_the_same_games(rules: RulesConfig) -> None:
    """static=True (every part of a step on the whole batch, no host checks but the blitz table's) plays
    exactly the games of the default step: same draws, outputs and positions at every step."""
    envs = [VectorEnv(24, seed=7, rules=rules, static=static, final_observation=True) for static in (False, True)]
    outs = [e.reset() for e in envs]
    gen = torch.Generator().manual_seed(2)
    for t in range(250):
        a, b = outs
        for name in a._fields:
            x, y = getattr(a, name), getattr(b, name)
            assert (x is None and y is None) or torch.equal(x, y), (t, name)
        for name, v in _state(envs[0]).fields().items():
            assert torch.equal(v, getattr(_state(envs[1]), name)), (t, name)
        ids = _pick(a.action_mask, gen)
        outs = [e.step(ids) for e in envs]


def test_what_the_env_hands_out_is_made_of_normal_tensors() -> None:
    """The engine computes under torch.inference_mode(), but every tensor a reset, step,
    reset_slots or observe returns is a normal tensor: a network may train on it; the state's
    tensors are inference tensors, which refuse an in-place edit outside inference mode."""
    for mode in ("flat", "graph"):
        env = VectorEnv(8, seed=2, preset="fast", observation=mode, final_observation=True)
        outs = [env.reset()]
        gen = torch.Generator().manual_seed(0)
        for _ in range(30):
            outs.append(env.step(_pick(outs[-1].action_mask, gen)))
        outs.append(env.reset_slots(torch.ones(8, dtype=torch.bool)))
        seen = [t for o in outs for t in _tensors(o)] + _tensors(env.observe(torch.zeros(8, dtype=torch.int64)))
        assert seen and not any(t.is_inference() for t in seen)
        w = torch.ones(env.observation_size if mode == "flat" else 1, requires_grad=True)
        obs = outs[-1].observation if mode == "flat" else outs[-1].observation["globals"][:, :1]
        (obs * w).sum().backward()  # (inference tensors cannot be saved for backward)
        assert w.grad is not None and torch.equal(w.grad, obs.sum(0))
        s = _state(env)
        assert s.armies.is_inference()
        with pytest.raises(RuntimeError, match="inference"):
            s.armies[0, 0] = 3
        with torch.inference_mode():
            s.armies[0, 0] = 3
        assert int(s.armies[0, 0]) == 3
        # a state tensor beside one that requires grad: refused as such, taken as a clone
        v = torch.ones(8, env.num_players, requires_grad=True)
        with pytest.raises(RuntimeError, match="saved for backward"):
            v.gather(1, s.player[:, None])
        v.gather(1, s.player.clone()[:, None]).sum().backward()
        assert v.grad is not None and torch.equal(v.grad.sum(1), torch.ones(8))


def _tensors(x: object) -> list[torch.Tensor]:
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _tensors(v)]
    if isinstance(x, tuple):
        return [t for v in x for t in _tensors(v)]
    return []


def test_the_graph_runner_plays_the_default_step() -> None:
    """The bodies the CUDA graphs record (risk_env.vector.graphs), played on the CPU as the graphs play
    them (no host checks; a blitz beyond the blitz table is played again without them), give the
    default step's games, outputs and positions, through auto-resets."""
    from risk_env.vector.graphs import GraphRunner

    rules = RulesConfig.from_preset("fast", num_players=3, map="small", turn_limit=30)
    plain = VectorEnv(16, seed=5, rules=rules, static=True)
    graphed = VectorEnv(16, seed=5, rules=rules, static=True)
    out = plain.reset()
    graphed.reset()
    s = _state(graphed)
    runner = GraphRunner(graphed.game, s, graphed.presented, capture=False)
    gen = torch.Generator().manual_seed(4)
    for t in range(300):
        if t % 50 == 10:  # stacks beyond the blitz table everywhere, for the way back
            for env in (plain, graphed):
                with torch.inference_mode():  # (a stepped state's tensors are inference tensors)
                    _state(env).armies[:] = 150
            out = plain.reset_slots(torch.zeros(16, dtype=torch.bool))
        ids = _pick(out.action_mask, gen)
        out = plain.step(ids)
        res = runner.step(ids)
        done = res["won"] | res["truncated"]
        assert torch.equal(res["rewards"], out.rewards) and torch.equal(done, out.autoreset), t
        if bool(done.any()):
            idx = done.nonzero()[:, 0]
            s.put(idx, graphed._fresh(int(idx.numel())))
        shown = runner.present()
        assert torch.equal(shown["mask"], out.action_mask) and torch.equal(shown["obs"], out.observation), t
        assert torch.equal(shown["seat"], out.current_player), t
        for name, v in _state(plain).fields().items():
            assert torch.equal(v, getattr(s, name)), (t, name)
    assert runner.replayed > 0


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_graphs_give_the_same_games() -> None:
    """On a GPU: VectorEnv(cuda_graph=True) replays recorded graphs and plays the static step's games."""
    rules = RulesConfig.from_preset("fast", num_players=4)
    envs = [VectorEnv(256, device="cuda", seed=3, rules=rules, static=True, cuda_graph=g) for g in (False, True)]
    outs = [e.reset() for e in envs]
    gen = torch.Generator(device="cuda").manual_seed(1)
    for t in range(400):
        for name in ("observation", "action_mask", "current_player", "rewards", "terminated", "truncated", "autoreset"):
            assert torch.equal(getattr(outs[0], name), getattr(outs[1], name)), (t, name)
        ids = torch.where(outs[0].action_mask, torch.rand(outs[0].action_mask.shape, generator=gen, device="cuda"), -1.0).argmax(
            1
        )
        outs = [e.step(ids) for e in envs]


def test_a_drawn_card_is_uniform_among_the_draw_pile() -> None:
    """The draw pile is kept as a set: the card drawn after a conquest is uniform among it, as the top
    card of a uniformly shuffled pile (docs/rules.md §4.4). A reshuffled discard pile likewise."""
    from scipy.stats import chisquare

    vg = VectorGame(RulesConfig(num_players=3, map="small", setup="random"), seed=13, device=DEVICE)
    N = 22_000
    s = vg.new_games(N)
    held = torch.tensor([0, 3], device=DEVICE)  # two cards already held by seat 0: 9 left in the pile
    s.card_loc[:, held] = 0
    s.phase[:] = Phase.FORTIFY
    s.conquered[:] = True
    vg.step(s, torch.full((N,), vg.A_END, device=DEVICE))
    p = s.order[:, 0]  # (the first player was on turn)
    got = (s.card_loc == p[:, None]) & ~torch.isin(torch.arange(vg.NC, device=DEVICE), held)[None, :]
    assert bool((got.sum(1) == 1).all())
    counts = got.sum(0).cpu().numpy()[np.setdiff1d(np.arange(vg.NC), held.cpu().numpy())]
    assert chisquare(counts).pvalue > 1e-3
    # an empty pile: the discards are shuffled back and drawn from, uniformly
    s = vg.new_games(N)
    s.card_loc[:] = -2
    s.card_loc[:, held] = 1
    s.phase[:] = Phase.FORTIFY
    s.conquered[:] = True
    vg.step(s, torch.full((N,), vg.A_END, device=DEVICE))
    p = s.order[:, 0]
    drawn = (s.card_loc == p[:, None]) & ~torch.isin(torch.arange(vg.NC, device=DEVICE), held)[None, :]
    assert bool((drawn.sum(1) == 1).all()) and bool(((s.card_loc == -1).sum(1) == vg.NC - 3).all())
    counts = drawn.sum(0).cpu().numpy()[np.setdiff1d(np.arange(vg.NC), held.cpu().numpy())]
    assert chisquare(counts).pvalue > 1e-3


def test_the_neutral_claims_uniformly_among_the_free_territories() -> None:
    from scipy.stats import chisquare

    vg = VectorGame(RulesConfig(num_players=2, map="small", setup="claim"), seed=17, device=DEVICE)
    N = 14_000
    s = vg.new_games(N)
    vg.step(s, torch.zeros(N, dtype=torch.int64, device=DEVICE))  # the first seat claims territory 0
    vg.step(s, torch.ones(N, dtype=torch.int64, device=DEVICE))  # the second territory 1, then the neutral
    neutral = s.owner == vg.neutral
    assert bool((neutral.sum(1) == 1).all()) and not bool(neutral[:, :2].any())
    assert bool((s.player == s.order[:, 0]).all()) and bool((s.setup_left[:, 2] == s.setup_left[:, 0]).all())
    assert chisquare(neutral.sum(0)[2:].cpu().numpy()).pvalue > 1e-3
