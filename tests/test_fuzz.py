"""Property-based tests (hypothesis) over random rule sets and action sequences.

Rule sets draw every switch of :class:`RulesConfig` (2..6 players, mostly the
9-territory ``small`` map, sometimes the classic one, short turn limits).
Action sequences are hypothesis-drawn choices among the legal ids (shrinkable),
continued by a seeded generator to the end of the game. Properties:

* ``Game.invariant_violations`` is empty after every step (docs/rules.md §5);
* the mask is exact: sampled ids (legal, illegal, any) are accepted by the
  codec exactly when the mask says so, and a rejected id changes nothing;
* ``observation_space(agent).contains(obs)`` for every observation, and the
  observation's mask equals the info mask and the codec's;
* rewards at the end are the documented ones (:mod:`risk_env.envs.aec`): +1 for the
  winner, -1 for each eliminated player, 0 for the survivors of a truncated
  game (``"draw"``) or their rank reward (``"rank"``, summing to 0);
* the engine's move check agrees exactly with its move enumeration for random
  (mostly illegal) moves; move text round-trips; random text and random
  corruptions of a saved state only ever raise the documented errors.

``max_examples`` keeps the file well under a minute; ``RISK_FUZZ=20`` multiplies
every example count for a deeper local run.
"""

from __future__ import annotations

import json
import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import risk_env
from risk_env import ActionCodec, Game, Move, MoveKind, Phase, RulesConfig
from risk_env.envs.codec import Selection
from risk_env.errors import IllegalActionError, IllegalMoveError, InvalidMoveError, StateError

SCALE = int(os.environ.get("RISK_FUZZ", "1"))  # RISK_FUZZ=20 for a deeper local run

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], print_blob=True)

SMALL_T, CLASSIC_T = 9, 42


@st.composite
def rules_dicts(draw, classic_weight: int = 8) -> dict:
    """Every switch of RulesConfig; the classic map about once in ``classic_weight`` draws."""
    n = draw(st.integers(2, 6))
    classic = draw(st.sampled_from(["small"] * (classic_weight - 1) + ["classic"])) == "classic"
    two_player = draw(st.sampled_from(["neutral", "none"])) if n == 2 else "neutral"  # 'none' is for 2 players
    seats = n + (1 if n == 2 and two_player == "neutral" else 0)
    T = CLASSIC_T if classic else SMALL_T
    need = -(-T // seats)
    card_trade = draw(
        st.sampled_from(["escalating", "escalating_reset", "fixed_by_symbol", "slow_escalation", "stars", "no_cards"])
    )
    return {
        "num_players": n,
        "map": "classic" if classic else "small",
        "setup": draw(st.sampled_from(["claim", "deal", "random", None])),
        "two_player": two_player,
        "starting_armies": draw(st.one_of(st.none(), st.integers(need, need + 12))),
        "card_trade": card_trade,
        # the +2 bonus needs sets of cards (docs/rules.md §6)
        "territory_bonus": draw(st.sampled_from(["once_per_turn", "once_per_trade"]))
        if card_trade not in ("stars", "no_cards")
        else "once_per_turn",
        "elimination_trade_at": draw(st.integers(5, 7)),
        "defender_dice": draw(st.sampled_from(["max", "choose"])),
        "fortify": draw(st.sampled_from(["adjacent", "connected"])),
        "reroll_with_card": draw(st.booleans()) and card_trade != "no_cards",  # the re-roll needs cards
        "die_to_six": draw(st.booleans()),
        "turn_limit": draw(st.integers(1, 8 if classic else 40)),
        "truncation_reward": draw(st.sampled_from(["draw", "rank"])),
        # docs/rules.md §8; the missions need the classic continents
        "secret_missions": (missions := classic and draw(st.booleans())),
        "mission_target_taken": draw(st.sampled_from(["24_territories", "holder_wins"])) if missions else "holder_wins",
        "capitals": draw(st.booleans()),
    }


def documented_rewards(env) -> dict:
    """docs/rules.md §4.5 / risk_env.envs.aec: +1 winner, -1 each eliminated; truncation: 0 or the rank reward."""
    s = env.game_state
    out = {a: 0.0 for a in env.possible_agents}
    for seat in s.elim_order:
        out[env.possible_agents[seat]] = -1.0
    if s.winner >= 0:
        out = {a: -1.0 for a in env.possible_agents}  # a mission or capitals win leaves survivors: they lose (§8)
        out[env.possible_agents[s.winner]] = 1.0
    elif env.rules.truncation_reward == "rank":
        live = [p for p in range(env.rules.num_players) if s.alive[p]]
        if len(live) > 1:
            key = {p: (int((s.owner == p).sum()), int(s.armies[s.owner == p].sum())) for p in live}
            k = len(live)
            for p in live:
                above = sum(key[q] > key[p] for q in live)
                tied = sum(key[q] == key[p] for q in live)
                out[env.possible_agents[p]] = sum(1 - 2 * i / (k - 1) for i in range(above, above + tied)) / tied
    return out


@settings(FUZZ, max_examples=45 * SCALE)
@given(rules=rules_dicts(), seed=st.integers(0, 2**32 - 1), choices=st.lists(st.integers(0, 2**16), max_size=300))
def test_random_games_keep_every_property(rules, seed, choices):
    env = risk_env.raw_env(rules=RulesConfig.from_dict(rules))
    game, codec = env.game, env.codec
    N = codec.n
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns = {a: 0.0 for a in env.possible_agents}
    steps = 0
    while env.agents:
        agent = env.agent_selection
        obs, reward, term, trunc, info = env.last()
        returns[agent] += reward
        assert env.observation_space(agent).contains(obs)
        if term or trunc:
            assert not obs["action_mask"].any()
            env.step(None)
            continue
        s = env.game_state
        assert env.possible_agents[game.current_player(s)] == agent
        sel = env.selection
        mask = codec.mask(s, sel)
        assert np.array_equal(obs["action_mask"], mask) and np.array_equal(info["action_mask"], mask)
        legal = np.flatnonzero(mask)
        assert len(legal) > 0
        # the mask is exact: sampled ids are accepted iff the mask allows them
        illegal = np.flatnonzero(mask == 0)
        probe = [int(rng.integers(N)), int(legal[rng.integers(len(legal))])]
        if len(illegal):
            probe.append(int(illegal[rng.integers(len(illegal))]))
        for a in probe:
            c, cs = s.copy(), sel.copy()
            try:
                codec.step(c, a, cs)
                accepted = True
            except IllegalActionError:
                accepted = False
                assert c.to_dict() == s.to_dict() and cs == sel
            assert accepted == bool(mask[a]), f"id {a} ({codec.action_to_string(s, a, sel)}): mask {mask[a]}, accepted {accepted}"
        pick = choices[steps] if steps < len(choices) else int(rng.integers(2**16))
        env.step(int(legal[pick % len(legal)]))
        steps += 1
        assert game.invariant_violations(env.game_state) == []
        assert steps < 200_000
    s = env.game_state
    assert s.phase == Phase.GAME_OVER and s.turn <= rules["turn_limit"]
    assert s.truncated == (s.winner < 0)
    want = documented_rewards(env)
    assert returns == want
    if s.winner >= 0:  # every other player lost: eliminated, or alive after a mission or capitals win (§8)
        assert sum(returns.values()) == 2 - rules["num_players"]
    else:
        assert abs(sum(returns.values()) + len(s.elim_order)) < 1e-9  # survivors' draw/rank rewards sum to 0


def _random_move(rng: np.random.Generator, T: int, hand: list) -> Move:
    """A random move: any kind, territory ids in -1..T, counts in -1..12 (mostly illegal)."""
    kind = MoveKind(int(rng.integers(len(MoveKind))))
    if kind == MoveKind.TRADE and rng.random() < 0.3:
        return Move.trade_stars(int(rng.integers(0, 12)))
    if kind == MoveKind.TRADE:
        pool = sorted(set(hand) | {0, 1, T, T + 1})
        return Move.trade(rng.choice(pool, size=3).tolist(), int(rng.integers(-1, T + 1)))
    if rng.random() < 0.5:  # the fields the kind uses, as the Move constructors fill them
        src, dst = (int(x) for x in rng.integers(-1, T + 1, size=2))
        count = int(rng.integers(-1, 13))
        return {
            MoveKind.CLAIM: Move.claim(src),
            MoveKind.PLACE: Move.place(src, count),
            MoveKind.PLACE_NEUTRAL: Move.place_neutral(src),
            MoveKind.ATTACK: Move.attack(src, dst, count),
            MoveKind.BLITZ: Move.blitz(src, dst),
            MoveKind.END_ATTACK: Move.end_attack(),
            MoveKind.DEFEND: Move.defend(count),
            MoveKind.OCCUPY: Move.occupy(count),
            MoveKind.FORTIFY: Move.fortify(src, dst, count),
            MoveKind.END_TURN: Move.end_turn(),
            MoveKind.REROLL: Move.reroll(count),
            MoveKind.SIX: Move.six(count),
            MoveKind.KEEP_ROLL: Move.keep_roll(),
            MoveKind.CAPITAL: Move.capital(src),
        }[kind]
    return Move(kind, int(rng.integers(-1, T + 1)), int(rng.integers(-1, T + 1)), int(rng.integers(-1, 13)))


@settings(FUZZ, max_examples=30 * SCALE)
@given(rules=rules_dicts(classic_weight=20), seed=st.integers(0, 2**32 - 1), moves=st.integers(5, 80))
def test_move_check_agrees_with_move_enumeration(rules, seed, moves):
    """For random (mostly illegal) moves: ``is_legal`` is True exactly for the enumerated moves;
    an illegal move raises IllegalMoveError and changes nothing; legal moves' text round-trips."""
    game = Game(RulesConfig.from_dict(rules))
    s = game.new_game(seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if s.phase == Phase.GAME_OVER:
            break
        legal = game.legal_moves(s)
        assert legal, "a live position has a legal move"
        legal_set = set(legal)
        for m in [legal[int(rng.integers(len(legal)))]] + [_random_move(rng, game.T, s.hands[s.player]) for _ in range(6)]:
            assert game.is_legal(s, m) == (m in legal_set), m
            if m not in legal_set:
                before = s.to_dict()
                try:
                    game.apply(s, m)
                except IllegalMoveError as e:
                    assert "Allowed now:" in str(e) or "takes no" in str(e), str(e)
                else:
                    raise AssertionError(f"{m} applied though not enumerated")
                assert s.to_dict() == before
        m = legal[int(rng.integers(len(legal)))]
        assert game.parse_move(s, game.move_to_text(m)) == m
        game.apply(s, m)
        assert game.invariant_violations(s) == []


@settings(FUZZ, max_examples=150 * SCALE)
@given(
    text=st.one_of(
        st.text(max_size=40),
        st.builds(
            lambda v, r: f"{v} {r}",
            st.sampled_from(["claim", "place", "neutral", "trade", "attack", "blitz", "defend", "occupy", "fortify", "end"]),
            st.text(max_size=30),
        ),
    )
)
def test_move_text_never_crashes(text):
    game = _classic()
    try:
        m = game.parse_move(None, text)
    except InvalidMoveError as e:
        assert "cannot read move" in str(e)
    else:
        assert isinstance(m, Move)


_CACHE: dict = {}


def _classic() -> Game:
    if "classic" not in _CACHE:
        _CACHE["classic"] = Game(RulesConfig(num_players=3, setup="random"))
    return _CACHE["classic"]


def _saved_states() -> tuple[Game, ActionCodec, list[dict]]:
    if "saved" not in _CACHE:
        game = Game(RulesConfig(num_players=3, map="small", defender_dice="choose", turn_limit=40))
        codec = ActionCodec(game)
        s = game.new_game(3)
        sel = Selection()
        rng = np.random.default_rng(3)
        saved = []
        while s.phase != Phase.GAME_OVER:
            if rng.random() < 0.1:
                saved.append(s.to_dict())
            codec.step(s, int(rng.choice(np.flatnonzero(codec.mask(s, sel)))), sel)
        saved.append(s.to_dict())
        _CACHE["saved"] = (game, codec, saved)
    return _CACHE["saved"]


JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-300, 300), st.floats(allow_nan=True), st.text(max_size=4)),
    lambda inner: st.one_of(st.lists(inner, max_size=12), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=20,
)


@settings(FUZZ, max_examples=200 * SCALE)
@given(data=st.data())
def test_corrupted_state_dicts_raise_state_error_or_load_consistently(data):
    """A saved state with one field (or one list entry) replaced at random either raises
    StateError or loads as a state whose invariants hold and whose decisions can be listed."""
    game, codec, saved = _saved_states()
    d = json.loads(json.dumps(saved[data.draw(st.integers(0, len(saved) - 1), label="which")]))
    key = data.draw(st.sampled_from(sorted(d)), label="key")
    if isinstance(d[key], list) and d[key] and data.draw(st.booleans(), label="entry"):
        i = data.draw(st.integers(0, len(d[key]) - 1), label="index")
        d[key][i] = data.draw(st.one_of(st.integers(-3, 60), JSONISH), label="value")
    elif key == "rng":
        d[key] = data.draw(st.one_of(JSONISH, st.fixed_dictionaries({"bit_generator": st.just("PCG64"), "state": JSONISH})))
    else:
        d[key] = data.draw(st.one_of(st.integers(-3, 60), JSONISH), label="value")
    try:
        s = game.state_from_dict(d)
    except StateError:
        return
    assert game.invariant_violations(s) == []
    if s.phase != Phase.GAME_OVER:
        mask = codec.mask(s)
        game.legal_moves(s)
        assert game.current_player(s) >= 0
        assert mask.dtype == np.int8
