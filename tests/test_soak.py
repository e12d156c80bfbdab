"""The soak harness (risk_env.tools.soak) and the turn limit that ends every game."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import run_cli

import risk_env
from risk_env import Phase
from risk_env.errors import ConfigError, MapError
from risk_env.rules.config import PRESETS, RulesConfig
from risk_env.rules.engine import Game
from risk_env.tools.soak import _VARIANT_CHOICES, HEURISTICS, expected_rewards, game_spec, run_soak, soak_game


def passive_action(env) -> int:
    """Never attack: 'end' in the attack phase (and skip fortifying); otherwise the first legal id."""
    s = env.game_state
    mask = env.infos[env.agent_selection]["action_mask"]
    if s.phase in (Phase.ATTACK, Phase.FORTIFY):
        assert mask[env.codec.end]
        return env.codec.end
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize(
    "rules",
    [
        {"num_players": 4, "setup": "claim", "turn_limit": 24},
        {"num_players": 2, "setup": "deal", "turn_limit": 15},
        {"num_players": 6, "map": "small", "setup": "random", "turn_limit": 30, "truncation_reward": "rank"},
        {"num_players": 3, "map": "small", "defender_dice": "choose", "fortify": "connected", "turn_limit": 1},
        {"preset": "allied", "turn_limit": 12},  # the allied army is placed but never attacks
    ],
)
def test_passive_agents_are_truncated_at_the_turn_limit(rules):
    env = risk_env.raw_env(**rules)
    env.reset(seed=3)
    returns = {a: 0.0 for a in env.possible_agents}
    turns_seen = set()
    while env.agents:
        agent = env.agent_selection
        _, reward, term, trunc, _ = env.last(observe=False)
        returns[agent] += reward
        if term or trunc:
            assert trunc and not term  # nobody is eliminated or wins: the limit truncates
            env.step(None)
            continue
        s = env.game_state
        if s.turn:
            turns_seen.add(s.turn)
        assert s.phase != Phase.DEFEND and s.phase != Phase.OCCUPY  # never attacked
        env.step(passive_action(env))
    s = env.game_state
    assert s.phase == Phase.GAME_OVER and s.truncated and s.winner == -1
    assert s.turn == rules["turn_limit"] and turns_seen == set(range(1, rules["turn_limit"] + 1))
    assert s.elim_order == [] and all(s.alive)
    assert returns == expected_rewards(env)
    if rules.get("truncation_reward", "draw") == "draw":
        assert set(returns.values()) == {0.0}
    else:
        # ranks by territories then armies, +1 .. -1, ties sharing: they sum to 0
        assert abs(sum(returns.values())) < 1e-9 and all(-1 <= r <= 1 for r in returns.values())
        assert len(set(returns.values())) > 1


def _played(rules: dict) -> bool:
    """The library's own verdict on a dict of rules switches: RulesConfig checks each switch and
    their combinations, Game the map (each variant's own check)."""
    try:
        Game(RulesConfig.from_dict(rules))
    except (ConfigError, MapError):
        return False
    return True


def test_game_specs_are_deterministic_and_cover_every_preset_and_player_count():
    specs = [game_spec(i, seed=5) for i in range(400)]
    assert specs == [game_spec(i, seed=5) for i in range(400)]
    assert game_spec(0, seed=6) != specs[0]
    assert {sp["preset"] for sp in specs} == set(PRESETS)
    assert {sp["rules"]["num_players"] for sp in specs} == {2, 3, 4, 5, 6}
    assert {sp["rules"]["map"] for sp in specs} == {"small", "classic"}
    for sp in specs:  # a preset's switches are kept
        base = PRESETS[sp["preset"]]
        assert {k: sp["rules"][k] for k in base if k != "turn_limit"} == {k: v for k, v in base.items() if k != "turn_limit"}
    # about 10 % on the classic map, among the presets the library plays on the small one too
    anywhere = {p for p in PRESETS if _played({**PRESETS[p], "num_players": PRESETS[p].get("num_players", 3), "map": "small"})}
    assert 0 < len(anywhere) < len(PRESETS)  # (one preset is refused on the small map: it goes to the classic one)
    assert all(sp["rules"]["map"] == "classic" for sp in specs if sp["preset"] not in anywhere)
    classic = sum(sp["rules"]["map"] == "classic" for sp in specs if sp["preset"] in anywhere)
    assert 15 <= classic <= 70
    json.dumps(specs)  # JSON-compatible, so a failure's spec can be printed and replayed
    if HEURISTICS:
        assert {a for sp in specs for a in sp["agents"]} == {"random", *HEURISTICS}


def test_every_drawn_rules_set_is_played_by_the_library_and_every_switch_value_is_drawn():
    specs = [game_spec(i, seed=7) for i in range(2000)]
    assert all(_played(sp["rules"]) for sp in specs)
    for key, values in _VARIANT_CHOICES.items():
        assert {sp["rules"][key] for sp in specs} == set(values), key
    for mp in ("small", "classic"):  # on each map, every value the library plays there on the defaults
        seen = {key: {sp["rules"][key] for sp in specs if sp["rules"]["map"] == mp} for key in _VARIANT_CHOICES}
        for key, values in _VARIANT_CHOICES.items():
            want = {v for v in values for n in (2, 3) if _played({"num_players": n, "map": mp, key: v})}
            assert want <= seen[key], (mp, key, want - seen[key])


def test_a_refused_draw_is_drawn_again_from_the_same_generator(monkeypatch):
    from risk_env.tools import soak

    calls: list[tuple[dict, bool]] = []
    real = soak._playable

    def spy(rules):
        ok = real(rules)
        calls.append((dict(rules), ok))
        return ok

    monkeypatch.setattr(soak, "_playable", spy)
    redrawn = 0
    for i in range(300):
        calls.clear()
        sp = game_spec(i, seed=7)
        accepted = [r for r, ok in calls if ok]
        assert sp["rules"] == RulesConfig.from_dict(accepted[-1]).to_dict()  # the last accepted draw
        refused = [r for r, ok in calls if not ok]
        assert all(not _played(r) for r in refused)  # only what the library refuses is drawn again
        redrawn += bool(refused)
        assert game_spec(i, seed=7) == sp  # the redraws come from the game's own generator
    assert 30 <= redrawn <= 270

    # an owner refusing more (here: every capitals game) is obeyed: its draws are drawn again
    monkeypatch.setattr(soak, "_playable", lambda rules: real(rules) and not rules.get("capitals"))
    specs = [game_spec(i, seed=7) for i in range(300)]
    assert not any(sp["rules"]["capitals"] for sp in specs) and "capitals" not in {sp["preset"] for sp in specs}
    assert {sp["preset"] for sp in specs} == set(PRESETS) - {"capitals"}
    monkeypatch.setattr(soak, "_playable", lambda rules: False)
    with pytest.raises(RuntimeError, match="soak game 3: the library refused every one of 64 presets"):
        game_spec(3)


def test_a_short_soak_in_process_has_no_failures():
    summary = run_soak(24, seed=1, workers=1, progress=False, observe_share=0.5)
    assert summary["games"] == 24 and summary["failures"] == 0, summary["failure_details"]
    assert summary["truncated"] + summary["won"] == 24
    assert summary["steps"] > summary["moves"] > 0
    assert sum(summary["by_players"].values()) == 24


def test_a_huge_game_count_starts_at_once_and_stops_at_its_time_limit():
    """--games 10**18 built every game's index first (a MemoryError traceback; 2e8 took 33 s and 8 GB): the indices
    are a range, read block by block."""
    import time

    t = time.perf_counter()
    summary = run_soak(10**18, seed=1, workers=1, progress=False, max_seconds=1.0)
    assert time.perf_counter() - t < 30 and 0 < summary["games"] < 10**18 and summary["failures"] == 0


def test_a_failures_command_replays_it(tmp_path):
    """The failure's command left out --observe-share and --max-turn-steps: it replayed no failure."""
    summary = run_soak(2, seed=0, workers=1, progress=False, max_turn_steps=2, observe_share=1.0)
    assert summary["failures"] == 2
    repro = summary["failure_details"][0]["repro"].split()
    assert repro[:2] == ["risk-env", "soak"] and "--max-turn-steps" in repro and "--observe-share" in repro
    out = tmp_path / "again.json"
    code, _, _ = run_cli(*repro[1:], "--no-progress", "--out", out)
    assert json.loads(out.read_text())["failures"] == 1


def test_the_command_with_a_process_pool_writes_the_json_summary(tmp_path):
    out = tmp_path / "soak.json"
    code, text, _ = run_cli("soak", "--games", "6", "--workers", "2", "--no-progress", "--seed", "2", "--out", out)
    assert code == 0
    summary = json.loads(out.read_text())
    assert json.loads(text) == summary
    assert summary["games"] == 6 and summary["failures"] == 0 and summary["workers"] == 2
    assert summary["command"].startswith("risk-env soak --games 6 --start 0 --seed 2 --workers 2")
    for key in ("steps", "moves", "truncated", "won", "wall_s", "games_per_s", "steps_per_s", "by_preset", "settings"):
        assert key in summary


def test_a_failure_is_reported_with_what_reproduces_it(monkeypatch):
    """A broken invariant is caught and reported with the game's spec and a replay command."""
    from risk_env.rules.engine import Game

    calls = {"n": 0}
    real = Game.invariant_violations

    def flaky(self, s):
        calls["n"] += 1
        return ["made-up violation"] if calls["n"] == 40 else real(self, s)

    monkeypatch.setattr(Game, "invariant_violations", flaky)
    summary = run_soak(3, start=10, seed=4, workers=1, progress=False)
    assert summary["failures"] == 1
    f = summary["failure_details"][0]
    st = summary["settings"]
    assert "made-up violation" in f["error"]
    assert f["spec"] == game_spec(f["spec"]["index"], seed=4, vector_share=st["vector_share"], vector=st["vector"])
    assert f["repro"].startswith(f"risk-env soak --games 1 --start {f['spec']['index']} --seed 4 --workers 1")
    monkeypatch.undo()
    assert soak_game(f["spec"])["failure"] is None  # replaying the reported spec alone (the bug was injected)


def test_bad_soak_arguments():
    code, _, err = run_cli("soak", "--games", "-1", "--no-progress")
    assert code == 2 and err == "error: --games must be 1 or more, got -1\n"
    for args, message in (  # (they were named by run_soak's parameters: classic_share must be in [0, 1], got 2.0)
        (["--classic-share", "2"], "--classic-share must be a share from 0 to 1, got 2.0"),
        (["--heuristic-share", "-0.5"], "--heuristic-share must be a share from 0 to 1, got -0.5"),
        (["--vector-share", "nan"], "--vector-share must be a share from 0 to 1, got nan"),
        (["--family", "0"], "--family must be 1 or more, got 0"),
    ):
        assert run_cli("soak", *args, "--no-progress") == (2, "", f"error: {message}\n"), args
    with pytest.raises(ValueError, match=r"classic_share must be in \[0, 1\], got 2"):
        run_soak(1, classic_share=2, progress=False)


def _lowest(env) -> int:
    return int(np.flatnonzero(env.infos[env.agent_selection]["action_mask"])[0])


def _highest(env) -> int:
    return int(np.flatnonzero(env.infos[env.agent_selection]["action_mask"])[-1])


def _select_then_end(env) -> int:
    """Adversarial: select an attack/fortify source whenever possible, and 'end' once something
    is selected (with a cancel id this would cycle for ever inside one turn)."""
    s = env.game_state
    mask = env.infos[env.agent_selection]["action_mask"]
    T = env.game.T
    if s.phase in (Phase.ATTACK, Phase.FORTIFY):
        if env.selection.src >= 0 and mask[env.codec.end]:
            return env.codec.end
        if mask[:T].any():
            return int(np.flatnonzero(mask[:T])[0])
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("policy", [_lowest, _highest, _select_then_end])
@pytest.mark.parametrize("rules", [{"num_players": 3, "map": "small", "turn_limit": 30}, {"num_players": 4, "turn_limit": 12}])
def test_deterministic_policies_cannot_stall_a_turn(policy, rules):
    """Argmax-like policies end every turn in a bounded number of ids, so the turn limit ends the game."""
    env = risk_env.raw_env(defender_dice="choose", **rules)
    env.reset(seed=1)
    per_turn: dict = {}
    while env.agents:
        _, _, term, trunc, _ = env.last(observe=False)
        if term or trunc:
            env.step(None)
            continue
        s = env.game_state
        key = (s.turn, s.player)
        per_turn[key] = per_turn.get(key, 0) + 1
        assert per_turn[key] <= 2000, f"turn {key} is not ending"
        env.step(policy(env))
    s = env.game_state
    assert s.phase == Phase.GAME_OVER and s.turn <= rules["turn_limit"]


# ---------------------------------------------------------------- the batched engine in the soak


def _supported_values() -> dict[str, set]:
    """Each random switch's values the batched engine supports on top of the classic rules (2 or 3 players)."""
    from risk_env.tools.soak_vector import vector_supports

    out: dict[str, set] = {}
    for key, values in _VARIANT_CHOICES.items():
        out[key] = {
            v
            for v in values
            for n in (2, 3)
            if vector_supports({"num_players": n, "map": "small", "setup": "random", key: v})
            and (key != "setup" or vector_supports({"num_players": n, "map": "small", key: v}))
        }
    return out


def test_batched_engine_games_cover_every_switch_it_supports():
    pytest.importorskip("torch")
    from risk_env.tools.soak_vector import vector_supports

    specs = [game_spec(i, seed=3, vector_share=1.0, vector=True) for i in range(600)]
    assert all(sp["vector"] and vector_supports(sp["rules"]) for sp in specs)
    for key, values in _supported_values().items():
        seen = {sp["rules"][key] for sp in specs}
        assert values <= seen, (key, values - seen)
    assert {sp["rules"]["num_players"] for sp in specs} == {2, 3, 4, 5, 6}
    assert {sp["rules"]["map"] for sp in specs} == {"small", "classic"}
    assert {8, 10, 15} <= {sp["rules"]["starting_armies"] for sp in specs}
    supported_presets = {
        p
        for p in PRESETS
        for n in range(2, 7)
        for mp in ("small", "classic")  # (secret missions need the classic continents)
        if PRESETS[p].get("num_players", n) == n and vector_supports({**PRESETS[p], "num_players": n, "map": mp})
    }
    assert {sp["preset"] for sp in specs} == supported_presets >= {"classic", "fast"}
    # without the share, a game is played on both engines exactly when the batched one supports its rules
    mixed = [game_spec(i, seed=3, vector=True) for i in range(300)]
    assert all(sp["vector"] == vector_supports(sp["rules"]) for sp in mixed)
    assert sum(sp["vector"] for sp in mixed) > 0  # (every game, now that the batched engine plays every switch)
    assert not any(game_spec(i, seed=3)["vector"] for i in range(50))


def test_a_short_soak_on_both_engines(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "soak.json"
    summary = run_soak(
        12,
        seed=2,
        workers=1,
        progress=False,
        vector_share=1.0,
        observe_share=0.5,
        small_turn_limit=15,
        checkpoint=out,
        checkpoint_every=0,
    )
    assert summary["failures"] == 0, summary["failure_details"]
    assert summary["vector_games"] == 12 and summary["vector_steps"] == summary["steps"] > 0
    assert summary["by_engines"] == {"reference and batched": 12}
    assert json.loads(out.read_text()) == summary and "partial" not in summary


def _vector_games(k: int = 4):
    """``k`` finished soak games of one rule set the batched engine supports, with their action ids."""
    from risk_env.tools.soak import _chunks

    settings = {
        "seed": 0, "classic_share": 0.0, "heuristic_share": 0.3, "small_turn_limit": 20, "classic_turn_limit": 20,
        "variant_share": 0.0, "vector_share": 1.0, "vector": True, "observe_share": 0.0, "max_turn_steps": 5000, "family": 1,
    }  # fmt: skip
    for specs, _, _ in _chunks(list(range(400)), settings, 8):
        if len(specs) >= k:
            specs = specs[:k]
            return specs, [soak_game(sp) for sp in specs]
    raise AssertionError("no rule set drawn often enough")


def test_the_lockstep_replay_catches_a_disagreement(monkeypatch):
    pytest.importorskip("torch")
    from risk_env import RulesConfig
    from risk_env.tools import soak_vector
    from risk_env.tools.soak_vector import VectorLockstep

    specs, results = _vector_games()
    games = [(sp["seed"], r["actions"]) for sp, r in zip(specs, results, strict=True)]
    rules = RulesConfig.from_dict(specs[0]["rules"])
    lock = VectorLockstep(rules)
    assert lock.run(games) == [None] * len(games)
    assert [s.to_dict() for s in lock.states] == [r["final"] for r in results]

    # a position built wrongly: caught before the first id
    real_from_states = lock.vg.from_states

    def off_by_one(states, sels):
        vs = real_from_states(states, sels)
        vs.armies[1, 0] += 1
        return vs

    monkeypatch.setattr(lock.vg, "from_states", off_by_one)
    found = lock.run(games)
    assert found[0] is None and found[1].startswith("at the start: armies") and found[2] is None
    monkeypatch.undo()

    # other dice in the batched engine than the reference rolled: its positions part from the reference's
    class WrongTape(soak_vector._TapeGame):
        def draw_dice(self, s, k):
            faces = soak_vector.Game.draw_dice(self, s, k)
            self.tape.extend(7 - f for f in faces)
            return faces

    monkeypatch.setattr(soak_vector, "_TapeGame", WrongTape)
    found = VectorLockstep(rules).run(games)
    assert all(f is not None and f.startswith("after id") for f in found), found


def test_a_batched_engine_failure_is_reported_with_its_game(monkeypatch):
    pytest.importorskip("torch")
    from risk_env.tools import soak_vector

    def broken(self, games):
        self.states = []
        raise RuntimeError("made-up batched failure")

    monkeypatch.setattr(soak_vector.VectorLockstep, "run", broken)
    summary = run_soak(3, seed=1, workers=1, progress=False, vector_share=1.0)
    assert summary["failures"] == 3
    f = summary["failure_details"][0]
    assert f["error"] == "batched engine: RuntimeError: made-up batched failure"
    assert "--vector-share 1.0" in f["repro"]


def test_families_of_games_share_their_rules_and_nothing_else():
    specs = [game_spec(i, seed=9, family=4) for i in range(16)]
    for k in range(4):
        fam = specs[4 * k : 4 * k + 4]
        assert all(sp["rules"] == fam[0]["rules"] and sp["preset"] == fam[0]["preset"] for sp in fam)
        assert len({sp["seed"] for sp in fam}) == 4
    assert len({json.dumps(sp["rules"], sort_keys=True) for sp in specs}) > 1
    assert [game_spec(i, seed=9, family=1) for i in range(5)] == [game_spec(i, seed=9) for i in range(5)]
    with pytest.raises(ValueError, match="family must be an integer >= 1"):
        game_spec(0, family=0)
    summary = run_soak(8, seed=9, workers=1, progress=False, family=4, small_turn_limit=8, vector_share=0.0)
    assert summary["failures"] == 0 and summary["settings"]["family"] == 4
