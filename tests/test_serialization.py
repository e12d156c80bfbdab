"""Save, restore, reproduce.

* The engine state goes to a JSON-compatible dict and back (the generator
  included) at any point; restoring and continuing with the same actions gives
  an identical game. Tested at several hundred cut points across rule sets,
  with cut points forced into every awkward moment: mid-setup, a pending attack
  selection, an occupation, a forced trade, a trade awaiting its bonus
  territory, a defender choosing dice, an elimination trade-down.
* The env (raw, wrapped, strict) pickles at any point and the copy continues
  identically; ``copy.deepcopy`` too.
* Same seed + same actions give identical trajectories, in one process and in
  fresh processes (``spawn``, another ``PYTHONHASHSEED``); PettingZoo's
  ``seed_test`` passes for every preset.
"""

from __future__ import annotations

import copy
import json
import multiprocessing as mp
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from pettingzoo.test import seed_test

import risk_env
from risk_env import ActionCodec, Game, Phase, RulesConfig
from risk_env.envs.codec import Selection
from risk_env.rules.config import PRESETS
from risk_env.tools.soak import continue_digest, trajectory_digest

CONFIGS = {
    "claim3": {"num_players": 3, "map": "small", "setup": "claim", "turn_limit": 40},
    "deal2_neutral": {"num_players": 2, "map": "small", "turn_limit": 40},
    "duel_claim": {"num_players": 2, "map": "small", "two_player": "none", "setup": "claim", "turn_limit": 40},
    "choose4": {"num_players": 4, "map": "small", "setup": "random", "defender_dice": "choose", "turn_limit": 40},
    "trade5": {
        "num_players": 5,
        "map": "small",
        "setup": "random",
        "card_trade": "fixed_by_symbol",
        "territory_bonus": "once_per_trade",
        "elimination_trade_at": 5,
        "turn_limit": 80,
    },
    "nocards6": {"num_players": 6, "map": "small", "card_trade": "no_cards", "fortify": "connected", "turn_limit": 40},
    "tradedown5": {  # seed 2 reaches an elimination trade-down (docs/rules.md §4.2) at step 460
        "num_players": 5,
        "map": "small",
        "setup": "random",
        "elimination_trade_at": 5,
        "card_trade": "slow_escalation",
        "turn_limit": 120,
    },
    "classic3": {"num_players": 3, "setup": "random", "defender_dice": "choose", "truncation_reward": "rank", "turn_limit": 30},
    "classic4_claim": {"num_players": 4, "setup": "claim", "card_trade": "slow_escalation", "turn_limit": 8},
}

SEEDS = {name: 100 + i for i, name in enumerate(CONFIGS)} | {"tradedown5": 2}

SITUATIONS = (
    "claim",
    "setup_place",
    "neutral_place",
    "reinforce_amount",
    "forced_trade",
    "bonus_choice",
    "attack_source",
    "attack_pair",
    "defend",
    "occupy",
    "trade_down",
    "fortify_source",
    "fortify_pair",
    "game_over",
)


def situation(s, sel: Selection) -> str | None:
    """The awkward moment ``s`` is in (see SITUATIONS), or None."""
    ph = s.phase
    if ph == Phase.CLAIM:
        return "claim"
    if ph == Phase.SETUP_PLACE:
        return "neutral_place" if s.setup_step == 2 else "setup_place"
    if ph == Phase.REINFORCE:
        if sel.trade >= 0:
            return "bonus_choice"
        if s.resume_attack:
            return "trade_down"
        if s.forced:
            return "forced_trade"
        return "reinforce_amount" if sel.src >= 0 else None
    if ph == Phase.ATTACK:
        return "attack_pair" if sel.dst >= 0 else ("attack_source" if sel.src >= 0 else None)
    if ph == Phase.DEFEND:
        return "defend"
    if ph == Phase.OCCUPY:
        return "occupy"
    if ph == Phase.FORTIFY:
        return "fortify_pair" if sel.dst >= 0 else ("fortify_source" if sel.src >= 0 else None)
    return "game_over"


def reference_game(rules: dict, seed: int) -> tuple[Game, list[int], list[dict], list[Selection]]:
    """A random game: the action ids, and ``to_dict()`` and the codec's selection before
    each of them (and at the end)."""
    game = Game(RulesConfig.from_dict(rules))
    codec = ActionCodec(game)
    s = game.new_game(seed)
    sel = Selection()
    rng = np.random.default_rng(seed + 1000)
    actions, dicts, sels = [], [s.to_dict()], [sel.copy()]
    while s.phase != Phase.GAME_OVER:
        a = int(rng.choice(np.flatnonzero(codec.mask(s, sel))))
        codec.step(s, a, sel)
        actions.append(a)
        dicts.append(s.to_dict())
        sels.append(sel.copy())
    return game, actions, dicts, sels


def cut_points(labels: list, rng: np.random.Generator, k_random: int, per_situation: int) -> list[int]:
    """``k_random`` random cut points plus up to ``per_situation`` in each awkward situation."""
    by_kind: dict[str, list[int]] = {}
    for i, kind in enumerate(labels):
        if kind is not None:
            by_kind.setdefault(kind, []).append(i)
    cuts = set(rng.choice(len(labels), size=min(k_random, len(labels)), replace=False).tolist())
    for idx in by_kind.values():
        cuts.update(rng.choice(idx, size=min(per_situation, len(idx)), replace=False).tolist())
    return sorted(int(c) for c in cuts)


_REFERENCE: dict = {}


def cached_reference(name: str, seed: int) -> tuple[Game, list[int], list[dict], list, list[Selection]]:
    """A reference game and the awkward moment of each of its states (cached for the module)."""
    if (name, seed) not in _REFERENCE:
        game, actions, dicts, sels = reference_game(CONFIGS[name], seed)
        labels = [situation(game.state_from_dict(d), sel) for d, sel in zip(dicts, sels, strict=True)]
        _REFERENCE[(name, seed)] = (game, actions, dicts, labels, sels)
    return _REFERENCE[(name, seed)]


def restore_and_replay(game: Game, actions: list[int], dicts: list[dict], i: int, label: str, sels: list[Selection]) -> None:
    """Restore ``dicts[i]`` through JSON (with the codec's selection ``sels[i]``, which the
    env keeps beside the state) and replay the recorded actions: every later state must match."""
    codec = ActionCodec(game)
    sel = sels[i].copy()
    text = json.dumps(dicts[i])  # JSON-compatible: plain ints, bools, lists, dicts, strs
    assert json.loads(text) == dicts[i]
    s = game.state_from_dict(json.loads(text))
    assert s.to_dict() == dicts[i]
    for j in range(i, len(actions)):
        codec.step(s, actions[j], sel)
        assert s.to_dict() == dicts[j + 1], f"{label}: restored at step {i}, differs after step {j}"
        assert sel == sels[j + 1]
    assert s.phase == Phase.GAME_OVER


@pytest.mark.parametrize("name", list(CONFIGS))
def test_restore_and_continue_at_random_cut_points(name):
    game, actions, dicts, labels, sels = cached_reference(name, SEEDS[name])
    cuts = cut_points(labels, np.random.default_rng(SEEDS[name]), k_random=30, per_situation=3)
    assert len(cuts) >= min(30, len(dicts))  # 9 rule sets: several hundred cut points in all
    for i in cuts:
        restore_and_replay(game, actions, dicts, i, name, sels)


# rule sets (and seeds tried in turn) where each awkward moment is looked for
MOMENT_SOURCES = ["choose4", "tradedown5", "trade5", "deal2_neutral", "claim3", "classic4_claim"]


@pytest.mark.parametrize("kind", SITUATIONS)
def test_restore_in_every_awkward_moment(kind):
    """Save and restore in each awkward moment (found in random games), then replay to the end."""
    found = 0
    for k in range(12):
        for name in MOMENT_SOURCES:
            seed = SEEDS[name] + 1000 * k
            game, actions, dicts, labels, sels = cached_reference(name, seed)
            at = [i for i, label in enumerate(labels) if label == kind]
            for i in at[:: max(1, len(at) // 2)][:2]:
                restore_and_replay(game, actions, dicts, i, f"{name} seed {seed} ({kind})", sels)
                found += 1
            if found >= 3:
                return
    assert found, f"no random game reached the {kind!r} moment"


def test_restore_mid_dice_buffer_rolls_the_same_dice():
    """A cut right after a roll (the dice buffer partly used) must roll the same next dice."""
    rules = {"num_players": 2, "map": "small", "setup": "random", "turn_limit": 50}
    game, actions, dicts, sels = reference_game(rules, 7)
    codec = ActionCodec(game)
    rolls = [i for i in range(1, len(dicts)) if dicts[i]["last_roll"] != dicts[i - 1]["last_roll"]]
    assert len(rolls) > 10
    for i in rolls[:: max(1, len(rolls) // 10)]:
        s = game.state_from_dict(json.loads(json.dumps(dicts[i])))
        assert len(s.dice_buf) < 600  # the saved buffer is what is left of it
        nxt = next(k for k in rolls if k > i) if any(k > i for k in rolls) else None
        sel = sels[i].copy()
        for j in range(i, len(actions)):
            codec.step(s, actions[j], sel)
            if j + 1 == nxt:
                assert s.last_roll == dicts[nxt]["last_roll"]
                break


def test_copy_is_independent_of_the_original():
    rules = {"num_players": 3, "map": "small", "setup": "random", "turn_limit": 40}
    game, actions, dicts, _ = reference_game(rules, 8)
    codec = ActionCodec(game)
    s = game.state_from_dict(dicts[0])
    sel = Selection()
    for a in actions[:50]:
        codec.step(s, a, sel)
    c, csel = s.copy(), sel.copy()
    snapshot = s.to_dict()
    rng = np.random.default_rng(0)
    while c.phase != Phase.GAME_OVER:  # play the copy to the end with other actions
        codec.step(c, int(rng.choice(np.flatnonzero(codec.mask(c, csel)))), csel)
    assert s.to_dict() == snapshot
    for j in range(50, len(actions)):  # and the original still follows its own game
        codec.step(s, actions[j], sel)
        assert s.to_dict() == dicts[j + 1]


def test_every_declared_field_is_in_the_dict_in_declared_order():
    """The dict is the declaration (risk_env.rules.state.STATE_FIELDS): with every variant's group
    set, each declared field is a key, in order; without them the group keys are absent."""
    from risk_env.rules.state import STATE_FIELDS, GameState

    game = Game(RulesConfig(num_players=2, setup="random"))
    s = game.new_game(4)
    plain = s.to_dict()
    assert list(plain) == [f.name for f in STATE_FIELDS if f.written == "always"]
    s.missions, s.capitals, s.eliminated_by = [6, 7], [0, 1], [-1, -1]
    s.blitzing, s.received = True, 3
    full = s.to_dict()
    assert list(full) == [f.name for f in STATE_FIELDS]
    assert full["roll_pending"] is False and full["commander"] == -1  # a group is written whole
    back = GameState.from_dict(full)
    for f in STATE_FIELDS:
        a, b = getattr(back, f.name), getattr(s, f.name)
        if f.kind == "rng":
            assert a.bit_generator.state == b.bit_generator.state
        elif f.kind in ("int64[T]", "int32[T]"):
            assert a.dtype == b.dtype and a.tolist() == b.tolist()
        elif f.kind != "dice":
            assert a == b, f.name
    assert GameState.from_dict(plain).commander == -1 and GameState.from_dict(plain).missions == []


def test_a_copy_shares_no_mutable_field():
    from risk_env.rules.state import STATE_FIELDS

    game = Game(RulesConfig(num_players=3, setup="random", secret_missions=True, capitals=True))
    s = game.new_game(2)
    c = s.copy()
    for f in STATE_FIELDS:
        v = getattr(c, f.name)
        if f.kind == "dice":  # shared, never mutated in place (drawing replaces it)
            continue
        if f.kind == "rng":
            assert c.own_rng() is not s.rng
        elif isinstance(v, (list, np.ndarray)):
            assert v is not getattr(s, f.name), f.name
    assert all(a is not b for a, b in zip(c.hands, s.hands, strict=True))
    assert c == s


# ---------------------------------------------------------------- the env pickles


def record(env, rng: np.random.Generator, max_steps: int = 100_000) -> list:
    """Everything observable from here to the end of the game, as plain data.

    A plain loop rather than ``agent_iter``: a wrapped env copied between an
    iterator's ``next`` and ``step`` would trip PettingZoo's order check."""
    out = []
    for _ in range(max_steps):
        if not env.agents:
            break
        agent = env.agent_selection
        obs, reward, term, trunc, info = env.last()
        out.append(
            (
                agent,
                float(reward),
                bool(term),
                bool(trunc),
                obs["observation"].tobytes(),
                obs["action_mask"].tobytes(),
                info["action_mask"].tobytes(),
                env.unwrapped.last_move,
            )
        )
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    out.append(("end", json.dumps(env.unwrapped.game_state.to_dict(), sort_keys=True), list(env.agents)))
    return out


MAKERS = {
    "raw": risk_env.raw_env,
    "wrapped": risk_env.env,
    "strict": lambda **kw: risk_env.env(strict=True, **kw),
}


@pytest.mark.parametrize("make", list(MAKERS))
@pytest.mark.parametrize("rules", ["choose4", "classic3", "deal2_neutral"])
def test_pickled_env_continues_identically(make, rules):
    kw = CONFIGS[rules]
    env = MAKERS[make](**kw)
    fresh = pickle.loads(pickle.dumps(env))  # before reset
    fresh.reset(seed=11)
    env.reset(seed=11)
    assert record(copy.deepcopy(fresh), np.random.default_rng(5)) == record(copy.deepcopy(env), np.random.default_rng(5))
    rng = np.random.default_rng(3)
    cuts = sorted(rng.choice(np.arange(1, 400), size=5, replace=False).tolist())
    steps = 0
    while env.agents:
        if steps in cuts:
            twin = pickle.loads(pickle.dumps(env))
            deep = copy.deepcopy(env)
            seed = int(rng.integers(2**31))
            want = record(twin, np.random.default_rng(seed), max_steps=300)
            assert record(deep, np.random.default_rng(seed), max_steps=300) == want
            assert record(pickle.loads(pickle.dumps(env, protocol=2)), np.random.default_rng(seed), max_steps=300) == want
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    # a finished game pickles too, and its copy can be reset and replayed
    twin = pickle.loads(pickle.dumps(env))
    twin.reset(seed=11)
    env.reset(seed=11)
    assert record(twin, np.random.default_rng(9)) == record(env, np.random.default_rng(9))


def test_pickled_state_round_trip():
    rules = CONFIGS["choose4"]
    game, actions, dicts, sels = reference_game(rules, 12)
    codec = ActionCodec(game)
    s = game.state_from_dict(dicts[0])
    sel = Selection()
    for j, a in enumerate(actions):
        if j % 37 == 0:
            t, tsel = pickle.loads(pickle.dumps((s, sel)))
            assert t == s and tsel == sel == sels[j]
            for b in actions[j : j + 60]:
                codec.step(t, b, tsel)
            assert t.to_dict() == dicts[min(j + 60, len(actions))]
        codec.step(s, a, sel)


# ---------------------------------------------------------------- across processes

CROSS = [
    (CONFIGS["claim3"], 1, 2),
    (CONFIGS["choose4"], 3, 4),
    (CONFIGS["classic3"], 5, 6),
    ({**PRESETS["duel"], "map": "small", "turn_limit": 60}, 7, 8),
]


def test_same_seed_same_trajectory_in_one_process():
    for rules, seed, agent_seed in CROSS[:2]:
        assert trajectory_digest(rules, seed, agent_seed) == trajectory_digest(rules, seed, agent_seed)
        assert trajectory_digest(rules, seed, agent_seed, wrapped=False) == trajectory_digest(rules, seed, agent_seed)
        assert trajectory_digest(rules, seed + 1, agent_seed) != trajectory_digest(rules, seed, agent_seed)


def test_same_seed_same_trajectory_across_processes():
    """Spawned processes (fresh interpreters, their own hash seeds) reproduce every trajectory,
    and a pickled env sent to another process continues exactly as here."""
    local = [trajectory_digest(*c) for c in CROSS]
    env = risk_env.env(**CONFIGS["choose4"])
    env.reset(seed=21)
    rng = np.random.default_rng(21)
    for _ in range(150):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    blob = pickle.dumps(env)
    here = continue_digest(blob, 99)
    with mp.get_context("spawn").Pool(2) as pool:
        remote = pool.starmap(trajectory_digest, CROSS)
        there = pool.apply(continue_digest, (blob, 99))
    assert remote == local
    assert there == here


def test_same_trajectory_under_another_hash_seed():
    rules, seed, agent_seed = CROSS[0]
    code = (
        "import json, sys; from risk_env.tools.soak import trajectory_digest as t; "
        f"print(t(json.loads(sys.argv[1]), {seed}, {agent_seed}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(rules)],
        env={**os.environ, "PYTHONHASHSEED": "12345"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert out.stdout.strip() == trajectory_digest(rules, seed, agent_seed)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_seed_test_every_preset(preset):
    seed_test(lambda: risk_env.env(preset=preset), num_cycles=200)
