"""The one layout description (risk_env.envs.layout): today's layouts stay as they are, the
codec and the encoders are built from it, the sub-step protocol describes every decision the
codec makes, and a new part appends its blocks without moving anyone else's."""

from __future__ import annotations

import numpy as np
import pytest

from risk_env import ActionCodec, Game, ObservationEncoder, Phase, RulesConfig
from risk_env.envs import layout
from risk_env.envs.codec import Selection
from risk_env.envs.graph import GLOBAL_FEATURES, NODE_FEATURES, GraphObservationEncoder
from risk_env.envs.layout import (
    PROTOCOL,
    Block,
    LayoutPart,
    action_layout,
    decision,
    observation_layout,
    register_part,
    remove_part,
)

# today's layouts (the env is risk_v0: they must not change without a version bump):
# N, the first id of territory, amount, dice, blitz, trade, trade_end, reroll, six, keep, end; D and its last blocks
LAYOUTS = {
    "classic": ({}, 70, (0, 42, 52, 55, 56, 69, -1, -1, -1, 69), 427, ["trade_value", "battle", "turn"]),
    "duel": ({"preset": "duel"}, 70, (0, 42, 52, 55, 56, 69, -1, -1, -1, 69), 321, ["trade_value", "battle", "turn"]),
    "no_cards": ({"card_trade": "no_cards"}, 57, (0, 42, 52, 55, -1, 56, -1, -1, -1, 56), 427, ["trade_value", "battle", "turn"]),
    "stars": ({"card_trade": "stars"}, 66, (0, 42, 52, 55, 56, 65, -1, -1, -1, 65), 427, ["trade_value", "battle", "turn"]),
    "expert": ({"preset": "expert"}, 77, (0, 42, 52, 55, 56, 69, 69, 72, 75, 76), 435, ["battle", "turn", "dice_rules"]),
    "six_only": ({"die_to_six": True}, 74, (0, 42, 52, 55, 56, 69, -1, 69, 72, 73), 435, ["battle", "turn", "dice_rules"]),
    "missions": (
        {"secret_missions": True},
        70,
        (0, 42, 52, 55, 56, 69, -1, -1, -1, 69),
        443,
        ["turn", "mission", "mission_held"],
    ),
    "capitals": ({"preset": "capitals"}, 70, (0, 42, 52, 55, 56, 69, -1, -1, -1, 69), 596, ["turn", "capital", "capital_phase"]),
    "allied": ({"preset": "allied"}, 70, (0, 42, 52, 55, 56, 69, -1, -1, -1, 69), 324, ["battle", "turn", "allied"]),
    "choose": (
        {"defender_dice": "choose"},
        70,
        (0, 42, 52, 55, 56, 69, -1, -1, -1, 69),
        428,
        ["battle", "turn", "blitz_defence"],
    ),
}
_STARTS = ("territory", "amount", "dice", "blitz", "trade", "trade_end", "reroll", "six", "keep", "end")


def _game(rules: dict) -> Game:
    rules = dict(rules)
    preset = rules.pop("preset", None)
    return Game(RulesConfig.from_preset(preset, **rules) if preset else RulesConfig(**rules))


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_todays_layouts_are_unchanged(name: str) -> None:
    rules, n_actions, starts, obs_size, last_blocks = LAYOUTS[name]
    g = _game(rules)
    acts, obs = action_layout(g), observation_layout(g)
    assert acts.n == n_actions and tuple(getattr(acts, k) for k in _STARTS) == starts
    assert obs.size == obs_size and list(obs.names())[-3:] == last_blocks
    # the codec and the encoder are built from it
    codec, enc = ActionCodec(g), ObservationEncoder(g)
    assert codec.n == acts.n and tuple(getattr(codec, k) for k in _STARTS) == starts
    assert enc.size == obs_size and enc.layout == obs.as_dict()


def test_classic_offsets() -> None:
    g = Game(RulesConfig(num_players=4))
    acts = action_layout(g)
    # territory 0..41, amount 42..51, dice 52..54, blitz 55, trade 56..68, end 69 (docs of the codec)
    starts = (acts.territory, acts.amount, acts.dice, acts.blitz, acts.trade, acts.trade_end, acts.end)
    assert starts == (0, 42, 52, 55, 56, 69, 69)
    assert acts.block_of(55) == "blitz" and acts.block_of(69) == "end"
    obs = observation_layout(g)
    assert obs.slice("owner") == slice(0, 210) and obs.shape("continent_share") == (6, 5)
    assert obs.slice("turn") == slice(426, 427)
    expert = action_layout(_game({"preset": "expert"}))
    assert (expert.reroll, expert.six, expert.keep, expert.end) == (69, 72, 75, 76)


def test_graph_features_come_from_the_layout() -> None:
    assert len(NODE_FEATURES) == layout.GRAPH_NODE_LAYOUT.size == 20
    assert NODE_FEATURES[:7] == (*(f"owner_rel_{k}" for k in range(6)), "owner_neutral")
    assert NODE_FEATURES[12] == "legal" and NODE_FEATURES[19] == "degree"
    assert GLOBAL_FEATURES["trade_pending"] == slice(27, 40) and GLOBAL_FEATURES["bias"] == slice(72, 73)
    enc = GraphObservationEncoder(Game(RulesConfig(num_players=3)))
    assert (enc.F, enc.G) == (20, 73)
    # every flat block the graph copies exists in every flat layout and fits its graph block
    for rules, *_ in LAYOUTS.values():
        flat = observation_layout(_game(rules))
        for name, how in layout.GRAPH_GLOBALS_FROM_FLAT.items():
            width, graph_width = flat.width(name), layout.GRAPH_GLOBAL_LAYOUT.width(name)
            assert width == graph_width if how == "copy" else width <= graph_width, name
    # every flat block a rule switch adds has a graph form (GRAPH_VARIANT_BLOCKS), appended after the core features
    for rules, *_ in LAYOUTS.values():
        g = _game(rules)
        graph = layout.graph_layout(observation_layout(g), g.T, g.num_players)
        assert graph.nodes.blocks[:15] == layout.GRAPH_NODE_LAYOUT.blocks
        assert graph.globals.blocks[:16] == layout.GRAPH_GLOBAL_LAYOUT.blocks
    d = layout.Dims(RulesConfig(), 42, 6, 4)
    core = {b.name for b in layout.layout_parts(RulesConfig())[0].observation(d)}
    added = {b.name for part in layout.layout_parts() if part.observation for b in part.observation(d)} - core
    assert added == set(layout.GRAPH_VARIANT_BLOCKS)
    # a block of a part registered elsewhere is carried as it is, at the end of the globals
    flat = layout.BlockLayout([*observation_layout(_game({})), Block("test_obs", (3, 2))])
    other = layout.graph_layout(flat, 42, 4)
    assert other.globals.blocks[-1] == Block("test_obs", (6,), "") and other.nodes.size == 20
    assert other.extra_globals == ((flat.start("test_obs"), 73, 6),)


def test_new_part_appends_without_moving_others() -> None:
    g = Game(RulesConfig(num_players=3))
    before_a, before_o = action_layout(g), observation_layout(g)
    part = LayoutPart(
        "test_variant",
        500,
        lambda cfg: cfg.num_players == 3,
        actions=lambda d: [Block("test_ids", (2,), "two new ids")],
        observation=lambda d: [Block("test_obs", (d.n, 2), "a new block")],
    )
    register_part(part)
    try:
        with pytest.raises(ValueError, match="exists already"):
            register_part(part)
        a, o = action_layout(g), observation_layout(g)
        # the new ids go before the end id (always last); the observation block at the end
        assert [b.name for b in a.blocks][-2:] == ["test_ids", "end"] and a.n == before_a.n + 2
        assert a.start("test_ids") == before_a.end and a.end == before_a.end + 2
        assert o.size == before_o.size + 6 and o.as_dict() | before_o.as_dict() == o.as_dict()
        assert all(o.slice(b.name) == before_o.slice(b.name) for b in before_o)
        assert action_layout(Game(RulesConfig(num_players=4))).n == 70  # a part applies only where it says
        # the graph observation carries the new block as it is, at the end of its globals (the envs build)
        enc = GraphObservationEncoder(Game(RulesConfig(num_players=3)))
        assert (enc.F, enc.G) == (20, 79) and enc.layout.globals.blocks[-1].name == "test_obs"
    finally:
        remove_part("test_variant")
    assert action_layout(g).n == before_a.n
    with pytest.raises(KeyError, match="parts:"):
        remove_part("test_variant")


def test_every_decision_of_the_protocol_is_distinct_and_named() -> None:
    keys = [(int(d.phase), d.selection) for d in PROTOCOL]
    assert len(set(keys)) == len(keys)
    assert {d.phase for d in PROTOCOL} == set(Phase) - {Phase.GAME_OVER}
    assert decision(Phase.FORTIFY, src=2, dst=4).name == "fortify_amount"
    assert decision(Phase.ATTACK, roll_pending=True).blocks.keys() == {"reroll", "six", "keep"}
    with pytest.raises(KeyError, match="no decision"):
        decision(Phase.CLAIM, src=1)


PROTOCOL_RULES = [
    {"num_players": 4, "map": "small", "turn_limit": 30},
    {"num_players": 2, "map": "small", "turn_limit": 30},
    {"num_players": 3, "map": "small", "defender_dice": "choose", "setup": "random", "turn_limit": 40},
    {"num_players": 3, "map": "small", "card_trade": "stars", "setup": "random", "turn_limit": 40},
    {"num_players": 3, "map": "small", "reroll_with_card": True, "die_to_six": True, "setup": "random", "turn_limit": 40},
    {"num_players": 3, "capitals": True, "setup": "random", "turn_limit": 8},
    {"num_players": 2, "two_player": "allied", "map": "small", "setup": "claim", "turn_limit": 30},
]


@pytest.mark.parametrize("rules", PROTOCOL_RULES, ids=lambda r: "-".join(f"{k}={v}" for k, v in r.items() if k != "map"))
def test_the_codec_follows_the_protocol(rules: dict) -> None:
    """In random games, every legal id lies in a block the decision lists, and a sub-step id
    records the selection the protocol names for its block."""
    g = Game(RulesConfig(**rules))
    codec = ActionCodec(g)
    acts = codec.layout
    rng = np.random.default_rng(5)
    seen: set[str] = set()
    for seed in range(3):
        s = g.new_game(seed)
        sel = Selection()
        for _ in range(1500):
            if s.phase == Phase.GAME_OVER:
                break
            d = decision(s.phase, sel.src, sel.dst, sel.trade, s.roll_pending)
            seen.add(d.name)
            m = codec.mask(s, sel)
            legal = np.flatnonzero(m)
            assert len(legal), d.name
            for a in legal:
                assert acts.block_of(int(a)) in d.blocks, (d.name, int(a), acts.block_of(int(a)))
            w = np.where(legal == codec.end, 0.05, 1.0)
            a = int(rng.choice(legal, p=w / w.sum()))
            block = acts.block_of(a)
            res = codec.decode(s, a, sel, m)
            if isinstance(res, tuple):
                assert res[0] == d.blocks[block].selects, (d.name, block, res)
            codec.step(s, a, sel, m)
    assert len(seen) >= 6, seen
