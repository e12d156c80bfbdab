"""Property-based tests (hypothesis) of everything the library reads: map dicts, position dicts,
game records, rules files and training configs, each made by mutating a valid one.

Every property is the same: the input is either refused with the library's own error (MapError,
StateError, RecordError, ConfigError) or read as an object that plays: a few random steps of a
game built from it keep the rules' invariants and a non-empty action mask, its moves read back
from their text, its record replays. Any other exception fails the test.

``max_examples`` keeps the file to about a minute; ``RISK_FUZZ=20`` multiplies every example count
for a deeper local run. Cases found by these tests are kept as small explicit tests next to each
loader's own tests (tests/test_map.py, tests/test_input_checks.py, tests/test_record.py,
tests/test_settings.py, tests/test_training.py).
"""

from __future__ import annotations

import copy
import datetime
import json
import os

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from risk_env import ActionCodec, ConfigError, Game, MapError, Phase, RulesConfig, StateError
from risk_env.envs.codec import Selection
from risk_env.records.record import GameRecord, RecordError
from risk_env.records.recorder import GameRecorder
from risk_env.rules.map import load_map, map_from_dict

SCALE = int(os.environ.get("RISK_FUZZ", "1"))  # RISK_FUZZ=20 for a deeper local run

FUZZ = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    print_blob=True,
)

JSONISH = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-5, 60),
        st.integers(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=6),
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=12,
)
"""Any JSON value (and NaN, infinities, huge integers)."""

NAMES = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["Wild 1", "wild 2", "A->B", "a, b", "x=y", " Ash", "Ash ", "a  b", "Ash", "ASH", "Wilderness", "12"]),
    st.builds(lambda a, b: a + b, st.sampled_from(["Ash", "Wild", "Elm"]), st.text(max_size=4)),
)
"""Territory or continent names: random text and the forms the move notation could confuse."""


def _play(game: Game, seed: int, steps: int, record: bool = False) -> None:
    """A few random steps: invariants hold, the mask is never empty, every move reads back from its
    text; with ``record`` the game's record replays to the same position."""
    codec = ActionCodec(game)
    s = game.new_game(seed)
    sel = Selection()
    rng = np.random.default_rng(seed)
    rec = GameRecorder(game, seed) if record else None
    for _ in range(steps):
        if s.phase == Phase.GAME_OVER:
            break
        legal = np.flatnonzero(codec.mask(s, sel))
        assert len(legal) > 0, "a live position has a legal id"
        move = codec.step(s, int(rng.choice(legal)), sel)
        if move is not None:
            assert game.parse_move(s, game.move_to_text(move)) == move
            if rec is not None:
                rec.add(move)
            assert game.invariant_violations(s) == []
    if rec is not None:
        again = GameRecord.from_json(rec.finish(s, "unfinished").to_json())
        assert again.verify() == s


# ---------------------------------------------------------------- maps


def _mutate(data, draw, values) -> None:
    """Replace one value somewhere inside ``data`` (a dict or list, changed in place), add a key, or drop one."""
    node = data
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return
        key = draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, (dict, list)) and child and draw(st.booleans()):
            node = child
            continue
        what = draw(st.sampled_from(["replace", "replace", "replace", "drop", "add"]))
        if what == "replace":
            node[key] = draw(values)
        elif what == "drop":
            del node[key]
        elif isinstance(node, dict):
            node[draw(st.sampled_from(["bonus", "xy", "card", "canvas", "extra", "name"]))] = draw(values)
        else:
            node.append(draw(values))
        return


MAP_VALUES = st.one_of(JSONISH, NAMES, st.lists(st.floats(-10, 2000), min_size=1, max_size=3))


@settings(FUZZ, max_examples=120 * SCALE)
@given(data=st.data())
def test_mutated_maps_are_refused_or_play(data):
    base = data.draw(st.sampled_from(["small", "small", "classic"]), label="map")
    d = copy.deepcopy(load_map(base).to_dict())
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        _mutate(d, data.draw, MAP_VALUES)
    try:
        m = map_from_dict(d)
    except MapError:
        event("refused")
        return
    event("accepted")
    assert map_from_dict(m.to_dict()).to_dict() == m.to_dict()
    game = Game(
        RulesConfig(num_players=2, two_player="none", setup="random", starting_armies=m.num_territories, turn_limit=6), game_map=m
    )
    _play(game, data.draw(st.integers(0, 2**16), label="seed"), 60, record=True)


@settings(FUZZ, max_examples=60 * SCALE)
@given(names=st.lists(NAMES, min_size=2, max_size=6), seed=st.integers(0, 2**16))
def test_any_accepted_territory_names_survive_records(names, seed):
    """A map of arbitrary names is refused, or every move of its games reads back and its record replays."""
    d = {
        "name": "names",
        "continents": [{"name": "C", "bonus": 2}],
        "territories": [{"name": t, "continent": "C"} for t in names],
        "borders": [[names[i], names[i + 1]] for i in range(len(names) - 1)],
    }
    try:
        m = map_from_dict(d)
    except MapError:
        event("refused")
        return
    event("accepted")
    game = Game(RulesConfig(num_players=2, two_player="none", card_trade="escalating", turn_limit=8), game_map=m)
    _play(game, seed, 200, record=True)


# ---------------------------------------------------------------- positions

_SAVED: dict = {}

POSITION_RULES = [
    {"num_players": 3, "map": "small", "defender_dice": "choose", "turn_limit": 30},
    {"num_players": 4, "map": "small", "setup": "claim", "card_trade": "stars", "turn_limit": 30},
    {"num_players": 2, "map": "small", "preset": "expert", "setup": "deal", "turn_limit": 30},
    {"num_players": 3, "preset": "secret_missions", "setup": "random", "turn_limit": 12},
    {"num_players": 3, "map": "small", "preset": "capitals", "turn_limit": 30},
    {"preset": "allied", "map": "small", "turn_limit": 30},
]


def _saved(i: int) -> tuple[Game, list[dict]]:
    """Positions saved along a game of ``POSITION_RULES[i]``, every decision of a kind represented."""
    if i not in _SAVED:
        from risk_env.rules.config import resolve_rules

        game = Game(resolve_rules(rules=POSITION_RULES[i]))
        codec = ActionCodec(game)
        s = game.new_game(i)
        sel = Selection()
        rng = np.random.default_rng(i)
        saved = []
        while s.phase != Phase.GAME_OVER:
            rare = s.phase in (Phase.CAPITAL, Phase.DEFEND, Phase.OCCUPY) or s.roll_pending or s.forced or s.commander >= 0
            if sel == Selection() and (rare or rng.random() < 0.1):
                saved.append(s.to_dict())
            legal = np.flatnonzero(codec.mask(s, sel))
            w = np.where(legal == codec.end, 0.05, 1.0)
            codec.step(s, int(rng.choice(legal, p=w / w.sum())), sel)
        saved.append(s.to_dict())
        _SAVED[i] = (game, saved)
    return _SAVED[i]


STATE_VALUES = st.one_of(st.integers(-3, 60), st.integers(-3, 3), st.booleans(), JSONISH, st.just(2**40))


@settings(FUZZ, max_examples=300 * SCALE)
@given(data=st.data())
def test_mutated_positions_are_refused_or_go_on(data):
    """A saved position with 1-3 values changed anywhere is refused with StateError, or it is one
    the engine goes on from: 5 random steps keep the invariants and a non-empty mask, and every
    position on the way saves and loads again."""
    game, saved = _saved(data.draw(st.integers(0, len(POSITION_RULES) - 1), label="rules"))
    d = json.loads(json.dumps(saved[data.draw(st.integers(0, len(saved) - 1), label="which")]))
    original = json.dumps(d, sort_keys=True)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        _mutate(d, data.draw, STATE_VALUES)
    before = json.dumps(d, sort_keys=True, default=repr)
    try:
        s = game.state_from_dict(d)
    except StateError:
        event("refused")
        assert json.dumps(d, sort_keys=True, default=repr) == before  # the input is not changed
        return
    event("accepted")
    assert json.dumps(d, sort_keys=True, default=repr) == before
    assert game.invariant_violations(s) == []
    codec = ActionCodec(game)
    sel = Selection()
    rng = np.random.default_rng(len(original))
    for _ in range(5):
        if s.phase == Phase.GAME_OVER:
            break
        assert game.current_player(s) >= 0
        legal = np.flatnonzero(codec.mask(s, sel))
        assert len(legal) > 0, "an accepted position has a legal id"
        if codec.step(s, int(rng.choice(legal)), sel) is not None:
            assert game.invariant_violations(s) == []
            assert game.state_from_dict(s.to_dict()) == s


# ---------------------------------------------------------------- records

_RECORD: dict = {}


def _record() -> dict:
    if "d" not in _RECORD:
        game = Game(RulesConfig(num_players=3, map="small", setup="random", turn_limit=6))
        codec = ActionCodec(game)
        s = game.new_game(5)
        rec = GameRecorder(game, 5, players=["a", "b", "c"], actions=True)
        sel = Selection()
        rng = np.random.default_rng(5)
        ids: list[int] = []
        while s.phase != Phase.GAME_OVER:
            a = int(rng.choice(np.flatnonzero(codec.mask(s, sel))))
            ids.append(a)
            move = codec.step(s, a, sel)
            if move is not None:
                rec.add(move, ids)
                ids = []
        _RECORD["d"] = rec.finish(s).to_dict()
    return copy.deepcopy(_RECORD["d"])


RECORD_VALUES = st.one_of(JSONISH, NAMES, st.integers(-2, 200), st.just("attack Ash->Elm dice=3"))


@settings(FUZZ, max_examples=120 * SCALE)
@given(data=st.data())
def test_mutated_records_are_refused_or_replay(data, tmp_path_factory):
    d = _record()
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        _mutate(d, data.draw, RECORD_VALUES)
    raw = json.dumps(d).encode()
    form = data.draw(st.sampled_from(["json", "bytes", "file"]), label="form")
    if form == "bytes" and data.draw(st.booleans(), label="corrupt bytes"):
        k = data.draw(st.integers(0, len(raw) - 1), label="at")
        raw = raw[:k] + data.draw(st.binary(min_size=1, max_size=3), label="bytes") + raw[k + 1 :]
    try:
        if form == "file":
            path = tmp_path_factory.mktemp("rec") / "r.json"
            path.write_bytes(raw)
            rec = GameRecord.load(path)
        else:
            rec = GameRecord.from_json(raw if form == "bytes" else raw.decode())
            rec.validate()
    except RecordError:
        event("refused")
        return
    event("accepted")
    final = rec.verify()
    assert rec.game().invariant_violations(final) == []


# ---------------------------------------------------------------- rules files and training configs

YAML_VALUES = st.one_of(
    JSONISH,
    st.dates(),
    st.binary(max_size=4),
    st.integers(1, 8).map(np.int64),
    st.sampled_from(["stars", "once_per_trade", "24_territories", "none", "connected", "small", "choose", "fast"]),
)
"""Values a YAML file can hold (dates, binary) and numpy integers a caller may pass."""


def _yaml(value) -> str:
    def plain(v):
        if isinstance(v, np.integer):
            return int(v)
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        return v

    return yaml.safe_dump(plain(value), allow_unicode=True)


@settings(FUZZ, max_examples=120 * SCALE)
@given(data=st.data())
def test_mutated_rules_are_refused_or_play(data, tmp_path_factory):
    """Rules as a mapping (numpy values included) or as a YAML file: refused with ConfigError
    (or MapError for a map that cannot be loaded), or a game that plays."""
    d = RulesConfig(num_players=3, map="small", turn_limit=6).to_dict()
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        key = data.draw(st.sampled_from([*d, "preset", "bogus"]), label="key")
        d[key] = data.draw(YAML_VALUES, label="value")
    as_file = data.draw(st.booleans(), label="as a file")
    try:
        if as_file:
            path = tmp_path_factory.mktemp("rules") / "rules.yaml"
            text = _yaml(d) if data.draw(st.booleans(), label="whole") else data.draw(st.text(max_size=40), label="text")
            path.write_text(text, encoding="utf-8")
            cfg = RulesConfig.from_file(path)
        else:
            from risk_env.rules.config import resolve_rules

            cfg = resolve_rules(rules=d)
        game = Game(cfg.replace(turn_limit=min(cfg.turn_limit, 6)))
    except (ConfigError, MapError):
        event("refused")
        return
    event("accepted")
    _play(game, 1, 80)


@settings(FUZZ, max_examples=80 * SCALE)
@given(data=st.data())
def test_mutated_training_configs_are_refused_or_valid(data, tmp_path_factory):
    """A training config file with values changed (YAML dates, binary, sets of any kind...), or
    random text: ConfigError, or a config whose rules play."""
    from risk_env.train.config import TrainConfig, load_config

    d = load_config(None).model_dump(mode="json")
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        _mutate(d, data.draw, YAML_VALUES)
    path = tmp_path_factory.mktemp("cfg") / "train.yaml"
    kind = data.draw(st.sampled_from(["yaml", "yaml", "text", "bytes"]), label="kind")
    if kind == "yaml":
        path.write_text(_yaml(d), encoding="utf-8")
    elif kind == "text":
        path.write_text(data.draw(st.text(max_size=60), label="text"), encoding="utf-8")
    else:
        path.write_bytes(data.draw(st.binary(max_size=60), label="bytes"))
    try:
        cfg = TrainConfig.load(path)
    except ConfigError as e:
        event("refused")
        assert "\n" not in str(e)
        return
    event("accepted")
    for rules in (cfg.rules_config, cfg.eval_rules_config):
        _play(Game(rules.replace(turn_limit=min(rules.turn_limit, 6))), 2, 40)


@pytest.mark.parametrize(
    "value",
    [datetime.date(2024, 1, 1), b"\x00", {1, 2}, (1, 2), np.float64(3.0), object()],
    ids=["date", "bytes", "set", "tuple", "numpy float", "object"],
)
def test_values_json_cannot_hold_are_refused_everywhere(value):
    """The same odd value in each loader: its own error, never another exception."""
    from risk_env.train.config import TrainConfig

    with pytest.raises(ConfigError):
        RulesConfig(turn_limit=value)
    with pytest.raises(ConfigError):
        TrainConfig.from_dict({"seed": value})
    with pytest.raises(MapError):
        map_from_dict({**load_map("small").to_dict(), "wild_cards": value})
    game = Game(RulesConfig(num_players=3, map="small"))
    with pytest.raises(StateError):
        game.state_from_dict({**game.new_game(0).to_dict(), "turn": value})
    with pytest.raises(RecordError):
        GameRecord.from_dict({**_record(), "seed": value})


def _one_value_changes(base: dict):
    """Every dict that differs from ``base`` in one value: each integer moved by -2..+2 and set to
    small values, each flag flipped, list entries moved by one, a card passed to the next hand."""
    from risk_env.rules.state import STATE_FIELDS

    for f in STATE_FIELDS:
        if f.name not in base:
            continue
        v = base[f.name]
        cands: list = []
        if f.kind == "int":
            cands = sorted({v - 2, v - 1, v + 1, v + 2, -1, 0, 1, 2, 3, 7, 8} - {v})
        elif f.kind == "bool":
            cands = [not v]
        elif f.kind in ("ints", "int64[T]", "int32[T]", "dice") and v:
            for j in range(0, len(v), max(1, len(v) // 4)):
                cands += [v[:j] + [v[j] + dv] + v[j + 1 :] for dv in (-1, 1, 2)]
            cands += [v[:-1], v[::-1]]
        elif f.kind == "bools":
            cands = [v[:j] + [not v[j]] + v[j + 1 :] for j in range(len(v))]
        elif f.kind == "hands":
            for j, h in enumerate(v):
                if h:
                    w = [list(x) for x in v]
                    w[(j + 1) % len(w)].append(w[j].pop())
                    cands.append(w)
        for c in cands:
            yield f.name, {**base, f.name: c}


@pytest.mark.parametrize("rules", range(len(POSITION_RULES)))
def test_every_one_value_change_is_refused_or_goes_on(rules):
    """Systematic, beside the random search: a saved position with any one value changed (every
    field, small steps) is refused, or 8 random steps from it keep the invariants and the mask and
    every position on the way loads again. CI takes every 12th saved position;
    ``RISK_ENV_SLOW_TESTS=1`` takes them all."""
    game, saved = _saved(rules)
    stride = 1 if os.environ.get("RISK_ENV_SLOW_TESTS") else 12
    codec = ActionCodec(game)
    accepted = 0
    for base in saved[::stride]:
        for name, d in _one_value_changes(base):
            try:
                s = game.state_from_dict(d)
            except StateError:
                continue
            accepted += 1
            sel = Selection()
            rng = np.random.default_rng(accepted)
            for _ in range(8):
                if s.phase == Phase.GAME_OVER:
                    break
                legal = np.flatnonzero(codec.mask(s, sel))
                assert len(legal) > 0, (name, d[name])
                if codec.step(s, int(rng.choice(legal)), sel) is not None:
                    assert game.invariant_violations(s) == [], (name, d[name])
                    assert game.state_from_dict(s.to_dict()) == s, (name, d[name])
    assert accepted > 0
