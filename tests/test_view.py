"""What an agent sees (risk_env.envs.view, risk_env.rules.knowledge): a view holds what its seat
may know and nothing more, its position decides exactly as the real one, and look-ahead
positions are resampled consistently with what the seat knows."""

from __future__ import annotations

import gc
import random
import types

import numpy as np
import pytest

import risk_env
from risk_env import ActionCodec, Game, ObservationEncoder, Phase, RulesConfig
from risk_env.envs.codec import Selection
from risk_env.envs.graph import GraphObservationEncoder
from risk_env.envs.opponents import LazyObservation
from risk_env.envs.view import GameView
from risk_env.rules.knowledge import Knowledge
from risk_env.rules.missions import MISSIONS, TWENTY_FOUR, mission_complete
from risk_env.rules.state import STATE_FIELDS

RULES = {
    "classic4": {"num_players": 4, "setup": "random"},
    "claim3": {"num_players": 3},
    "neutral2": {"num_players": 2},
    "missions4": {"num_players": 4, "setup": "random", "secret_missions": True},
    "missions3_24": {"num_players": 3, "setup": "random", "secret_missions": True, "mission_target_taken": "24_territories"},
    "capitals3": {"num_players": 3, "setup": "random", "capitals": True},
    "allied": {"num_players": 2, "two_player": "allied", "setup": "claim"},
    "expert_choose3": {
        "num_players": 3,
        "setup": "random",
        "reroll_with_card": True,
        "die_to_six": True,
        "defender_dice": "choose",
    },
    "stars2": {"num_players": 2, "setup": "random", "card_trade": "stars"},
    "no_cards3": {"num_players": 3, "setup": "random", "card_trade": "no_cards"},
}


def positions(rules: dict, games: int = 2, every: int = 5, turn_limit: int = 60):
    """(game, codec, state, selection) at every ``every``-th decision of random games (copies)."""
    game = Game(RulesConfig(turn_limit=turn_limit, **rules))
    codec = ActionCodec(game)
    for seed in range(games):
        s, sel, r = game.new_game(seed), Selection(), random.Random(seed)
        k = 0
        while s.phase != Phase.GAME_OVER:
            if k % every == 0:
                yield game, codec, s.copy(), sel.copy()
            ids = np.flatnonzero(codec.mask(s, sel))
            codec.step(s, int(ids[r.randrange(len(ids))]), sel)
            k += 1


def hidden_twin(game: Game, s, seat: int, rng: np.random.Generator):
    """A copy of ``s`` that differs from it only in what ``seat`` may not know: the other hands and
    the draw pile dealt afresh (same sizes), other missions, the generator and the dice to come."""
    t = s.copy()
    others = [p for p in range(game.num_players) if p != seat]
    pool = t.deck + [c for p in others for c in t.hands[p]]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    k = 0
    for p in others:
        t.hands[p] = pool[k : k + len(s.hands[p])]
        k += len(s.hands[p])
    t.deck = pool[k:]
    if t.missions:
        for p in others:
            for m in rng.permutation(len(MISSIONS)):
                mission = MISSIONS[int(m)]
                t.missions[p] = (
                    TWENTY_FOUR if mission.kind == "destroy" and mission.target in (p, *range(game.num_players, 6)) else int(m)
                )
                if not mission_complete(game, t, p):
                    break
    t.rng = np.random.default_rng(int(rng.integers(2**32)))
    t.dice_buf = rng.integers(1, 7, size=50).tolist()
    t.dice_pos = 0
    return t


def plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value.as_tuple() if isinstance(value, Selection) else value


def fingerprint(v: GameView) -> dict:
    """Every public attribute of a view, its fixed position and a resampled one, as plain data."""
    out = {}
    for name in dir(v):
        if name.startswith("_") or name in ("game", "codec", "knowledge", "state"):
            continue
        value = getattr(v, name)
        if callable(value):
            continue
        out[name] = (
            value.tolist() if isinstance(value, np.ndarray) else (value.as_tuple() if isinstance(value, Selection) else value)
        )
    public = v.knowledge.public
    for f in STATE_FIELDS:
        value = getattr(public, f.name)
        out[f"knowledge.{f.name}"] = (
            value.tolist() if isinstance(value, np.ndarray) else (value is None if f.kind == "rng" else value)
        )
    out["state"] = v.state.to_dict()
    out["sample"] = v.sample_state(7).to_dict()
    out["mask"] = v.mask().tolist()
    out["moves"] = v.legal_moves()
    out["income"] = [v.income(p) for p in range(v.num_players)]
    return out


@pytest.mark.parametrize("name", list(RULES))
def test_a_view_is_the_same_whatever_the_seat_may_not_know(name):
    """Two positions that differ only in another seat's cards or mission, the draw pile's order or
    the dice to come give the same view: nothing of those parts can be read from it."""
    rng = np.random.default_rng(0)
    n = 0
    for game, codec, s, sel in positions(RULES[name]):
        for seat in range(game.num_players):
            twin = hidden_twin(game, s, seat, rng)
            assert twin != s or not (game.uses_cards or s.missions)
            a, b = GameView(game, s, seat, codec, sel), GameView(game, twin, seat, codec, sel)
            assert fingerprint(a) == fingerprint(b)
            n += 1
    assert n > 100


def _reachable(root: object) -> set[int]:
    """Ids of every object reachable from ``root`` (modules, classes and functions not followed)."""
    seen: set[int] = set()
    todo = [root]
    while todo:
        x = todo.pop()
        if id(x) in seen or isinstance(x, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)):
            continue
        seen.add(id(x))
        todo.extend(gc.get_referents(x))
    return seen


def _hidden_parts(s, seat: int) -> dict[str, object]:
    parts: dict[str, object] = {"the state": s, "the draw pile": s.deck, "the generator": s.rng, "the dice": s.dice_buf}
    parts.update({f"hand {p}": h for p, h in enumerate(s.hands) if p != seat})
    if s.missions:
        parts["the missions"] = s.missions
    return parts


@pytest.mark.parametrize("name", ["missions4", "expert_choose3", "allied"])
def test_no_view_or_agent_input_reaches_hidden_parts(name):
    """No object reachable from a view (or from the info and observation an agent is given, in the
    AEC env and in the single-agent env) is the live state or one of its hidden parts."""
    for game, codec, s, sel in positions(RULES[name], games=1, every=40):
        seat = max(game.current_player(s), 0)
        view = GameView(game, s, seat, codec, sel)
        view.state, view.sample_state(1)  # built lazily: build them
        obs = LazyObservation(ObservationEncoder(game), view, codec.mask(s, sel))
        obs["observation"]
        reach = _reachable(view) | _reachable(obs)
        for what, obj in _hidden_parts(s, seat).items():
            assert id(obj) not in reach, f"{what} is reachable from the view of seat {seat}"
    env = risk_env.env(num_players=4, setup="random", secret_missions=True)
    env.reset(seed=2)
    for _ in range(300):
        agent = env.agent_selection
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        s = env.unwrapped.game_state
        reach = _reachable(info) | _reachable(obs)
        for what, obj in _hidden_parts(s, env.unwrapped.agent_name_mapping[agent]).items():
            assert id(obj) not in reach, f"{what} is reachable from {agent}'s info"
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize("name", list(RULES))
def test_a_views_position_decides_as_the_real_one(name):
    """For the seat that decides, the view's position gives the real position's legal moves, action
    mask, flat and graph observations, and passes every invariant of docs/rules.md §5."""
    for game, codec, s, sel in positions(RULES[name], every=3):
        seat = game.current_player(s)
        v = GameView(game, s, seat, codec, sel)
        vs = v.state
        assert not game.invariant_violations(vs)
        assert game.legal_moves(vs) == game.legal_moves(s)
        mask = codec.mask(s, sel)
        np.testing.assert_array_equal(codec.mask(vs, sel), mask)
        enc = ObservationEncoder(game)
        np.testing.assert_array_equal(enc.encode(vs, seat, sel), enc.encode(s, seat, sel))
        graph = GraphObservationEncoder(game)
        a, b = graph.encode(vs, seat, sel, mask), graph.encode(s, seat, sel, mask)
        assert all(np.array_equal(a[k], b[k]) for k in b)


def test_resampled_positions_keep_what_the_seat_knows_and_vary_the_rest():
    game = Game(RulesConfig(num_players=4, setup="random", secret_missions=True))
    s = game.new_game(11)
    s.deck, s.hands = s.deck[12:], [s.deck[0:3], s.deck[3:7], s.deck[7:9], s.deck[9:12]]
    seat = 1
    v = GameView(game, s, seat)
    unseen = sorted(set(range(game.num_cards)) - set(s.hands[seat]) - set(s.discard))
    counts = np.zeros((game.num_players, game.num_cards))
    draws = 400
    for i in range(draws):
        t = v.sample_state(i)
        assert not game.invariant_violations(t)
        assert t.hands[seat] == s.hands[seat] and t.missions[seat] == s.missions[seat]
        assert [len(h) for h in t.hands] == [len(h) for h in s.hands] and len(t.deck) == len(s.deck)
        assert sorted(t.deck + [c for p, h in enumerate(t.hands) if p != seat for c in h]) == unseen
        assert (t.owner == s.owner).all() and (t.armies == s.armies).all() and t.discard == s.discard
        assert all(not mission_complete(game, t, p) for p in range(game.num_players) if p != seat)
        for p, h in enumerate(t.hands):
            counts[p, h] += 1
    assert v.sample_state(3) == v.sample_state(3) and v.sample_state(3) != v.sample_state(4)
    # each unseen card lands in another hand with probability (its size) / (unseen cards)
    for p in (0, 2, 3):
        expected = draws * len(s.hands[p]) / len(unseen)
        sd = np.sqrt(expected * (1 - len(s.hands[p]) / len(unseen)))
        assert np.all(np.abs(counts[p, unseen] - expected) < 5 * sd)
    # the dice to come are the sample's own: two samples roll differently
    a, b = v.sample_state(1), v.sample_state(2)
    assert a.own_rng().integers(1, 7, 20).tolist() != b.own_rng().integers(1, 7, 20).tolist()


def test_knowledge_of_a_position_is_a_copy():
    game = Game(RulesConfig(num_players=3, setup="random"))
    s = game.new_game(0)
    k = Knowledge.of(s, 0)
    before = k.public.owner.copy()
    s.owner[:] = 1
    s.armies[:] = 7
    assert (k.public.owner == before).all() and k.public.armies.max() < 7
    with pytest.raises(ValueError):
        GameView(game, s, 0).owner[0] = 2


def test_a_view_needs_a_player_seat():
    from risk_env.errors import ConfigError, ResetNeededError, StateError, UnknownAgentError

    game = Game(RulesConfig(num_players=2, setup="random"))  # seats 0 and 1, the neutral is 2
    s = game.new_game(0)
    for seat in (True, False, np.bool_(True), -1, 2, 1.0, "1", None):
        with pytest.raises(ConfigError) as info:
            GameView(game, s, seat)
        assert str(info.value) == f"seat must be a player seat, an integer 0..1, got {seat!r}"
    assert GameView(game, s, np.int64(1)).seat == 1 and type(GameView(game, s, np.int64(1)).seat) is int
    env = risk_env.raw_env(num_players=2, setup="random")
    with pytest.raises(ResetNeededError, match="call env.reset"):
        GameView.from_env(env, "player_0")
    env.reset(seed=0)
    with pytest.raises(UnknownAgentError, match="unknown agent 'player_2'; the agents are player_0, player_1"):
        env.view("player_2")
    with pytest.raises(StateError, match="occupy_range\\(\\) needs the occupy phase"):
        env.view("player_0").occupy_range()


EXPECTED_SET_VALUES = {  # the next set's value after 0, 5, 6, 7 and 12 sets (docs/rules.md §4.1, §6), one of each kind
    "escalating": [4, 15, 20, 25, 50],
    "escalating_reset": [4, 15, 4, 6, 4],
    "slow_escalation": [4, 9, 10, 11, 16],
    "fixed_by_symbol": [10, 10, 10, 10, 10],
    "stars": [0] * 5,
    "no_cards": [0] * 5,
}


@pytest.mark.parametrize("schedule", sorted(EXPECTED_SET_VALUES))
def test_the_next_sets_value_has_one_owner(schedule):
    """The engine's Game.next_set_value is the value the view, the heuristic's trade choice and the
    observation's trade_value block all read."""
    from risk_env.rules.cards import COMPOSITION_NAMES

    game = Game(RulesConfig(num_players=3, setup="random", card_trade=schedule))
    counts = (0, 5, 6, 7, 12)
    assert [game.next_set_value(k) for k in counts] == EXPECTED_SET_VALUES[schedule]
    assert game.set_value_escalates is (schedule in ("escalating", "escalating_reset", "slow_escalation"))
    if schedule == "fixed_by_symbol":  # by the set: 4 infantry, 6 cavalry, 8 artillery, 10 one of each
        assert [game.next_set_value(3, COMPOSITION_NAMES.index(c)) for c in ("III", "CCC", "AAA", "ICA")] == [4, 6, 8, 10]
    with pytest.raises(risk_env.ConfigError, match="sets_traded must be an integer >= 0, got -1"):
        game.next_set_value(-1)
    encoder = ObservationEncoder(game)
    tv = encoder.layout["trade_value"][0].start
    s = game.new_game(0)
    for k, value in zip(counts, EXPECTED_SET_VALUES[schedule], strict=True):
        s.sets_traded = k
        view = GameView(game, s, 0)
        assert view.next_trade_value() == value
        # the observation shows it when it is the same for every set (the escalating schedules), else 0
        assert encoder.encode(s, 0)[tv] == pytest.approx(value / 20 if game.set_value_escalates else 0.0)
