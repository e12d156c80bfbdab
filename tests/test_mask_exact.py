"""The action mask is exact: in thousands of random positions of every phase, every
action id is stepped on a copy; it must be accepted iff the mask marks it, and a rejected id
must leave the state unchanged. Also: the codec's complete moves are the rules' legal moves,
amount ids reach the minimum and the maximum, and move texts round-trip."""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest
from helpers import build, force_dice, give_cards, tid

from risk_env import ActionCodec, Game, IllegalActionError, IllegalMoveError, Move, MoveKind, Phase, RulesConfig
from risk_env.envs.codec import Selection, amount_of
from risk_env.rules.config import resolve_rules

SOAK = int(os.environ.get("RISK_SOAK", "1"))  # RISK_SOAK=10: ten times the games and positions

# (rules, seeds, per-step sampling probability of common categories)
CONFIGS = [
    ({"num_players": 4, "turn_limit": 28}, range(2), 0.08),  # classic claim setup
    ({"num_players": 2, "turn_limit": 28}, range(2), 0.08),  # classic 2-player deal + neutral
    ({"num_players": 3, "map": "small", "setup": "random", "defender_dice": "choose", "turn_limit": 60}, range(6), 0.2),
    (
        {
            "num_players": 4,
            "map": "small",
            "setup": "random",
            "fortify": "connected",
            "territory_bonus": "once_per_trade",
            "turn_limit": 80,
        },
        range(5),
        0.12,
    ),
    ({"num_players": 5, "map": "small", "setup": "claim", "elimination_trade_at": 5, "turn_limit": 80}, range(5), 0.12),
    (
        {
            "num_players": 2,
            "map": "small",
            "setup": "claim",
            "two_player": "none",
            "card_trade": "fixed_by_symbol",
            "turn_limit": 80,
        },
        range(4),
        0.12,
    ),
    ({"num_players": 6, "map": "small", "setup": "deal", "card_trade": "slow_escalation", "turn_limit": 60}, range(4), 0.12),
    (
        {"num_players": 3, "setup": "random", "card_trade": "no_cards", "defender_dice": "choose", "turn_limit": 24},
        range(2),
        0.08,
    ),
    ({"num_players": 2, "map": "small", "turn_limit": 60}, range(3), 0.1),  # small 2-player deal + neutral
    ({"num_players": 3, "map": "small", "setup": "random", "card_trade": "stars", "turn_limit": 80}, range(3), 0.12),
    (
        {"num_players": 4, "map": "small", "setup": "deal", "fortify": "connected", "elimination_trade_at": 5, "turn_limit": 60},
        range(2),
        0.12,
    ),  # the tournament preset's switches
    (
        {"num_players": 3, "map": "small", "setup": "random", "reroll_with_card": True, "die_to_six": True, "turn_limit": 60},
        range(3),
        0.12,
    ),
    (
        {
            "num_players": 4,
            "map": "small",
            "setup": "random",
            "card_trade": "stars",
            "defender_dice": "choose",
            "die_to_six": True,
            "turn_limit": 60,
        },
        range(2),
        0.12,
    ),
    # variants of docs/rules.md §8: secret missions (both fallbacks) and capitals
    ({"preset": "secret_missions", "num_players": 4, "setup": "random", "turn_limit": 24}, range(2), 0.06),
    (
        {"preset": "secret_missions", "num_players": 3, "mission_target_taken": "holder_wins", "turn_limit": 24},
        range(1),
        0.06,
    ),
    ({"preset": "capitals", "num_players": 3, "map": "small", "setup": "random", "turn_limit": 60}, range(4), 0.12),
    ({"preset": "capitals", "num_players": 2, "map": "small", "turn_limit": 60}, range(3), 0.12),  # with the neutral
    # the allied army of the 1975 two-player rules (docs/rules.md §7), its sub-turn's positions as "allied:..."
    ({"preset": "allied", "turn_limit": 24}, range(1), 0.06),
    ({"preset": "allied", "map": "small", "setup": "deal", "defender_dice": "choose", "turn_limit": 60}, range(8), 0.12),
    (
        {"preset": "allied", "map": "small", "setup": "random", "card_trade": "stars", "die_to_six": True, "turn_limit": 60},
        range(3),
        0.12,
    ),
]

CAP = 160 * SOAK  # positions kept per (config, category)
RARE = {
    "claim",
    "occupy",
    "fortify:pair",
    "reinforce:bonus-pick",
    "reinforce:trade-down",
    "defend",
    "setup:neutral",
    "game-over",
    "reinforce:forced",
    "attack:roll",
    "capital",
}


def category(s, sel: Selection) -> str:
    if s.commander >= 0:  # the allied army's sub-turn (docs/rules.md §7)
        s.commander, commander = -1, s.commander
        try:
            return "allied:" + category(s, sel)
        finally:
            s.commander = commander
    ph = s.phase
    if ph == Phase.CLAIM:
        return "claim"
    if ph == Phase.CAPITAL:
        return "capital"
    if ph == Phase.SETUP_PLACE:
        return "setup:neutral" if s.setup_step == 2 else "setup:own"
    if ph == Phase.REINFORCE:
        if sel.trade >= 0:
            return "reinforce:bonus-pick"
        if s.resume_attack:
            return "reinforce:trade-down"
        if sel.src >= 0:
            return "reinforce:amount"
        if s.forced:
            return "reinforce:forced"
        return "reinforce"
    if ph == Phase.ATTACK and s.roll_pending:
        return "attack:roll"
    if ph in (Phase.ATTACK, Phase.FORTIFY):
        name = Phase(ph).name.lower()
        if sel.dst >= 0:
            return f"{name}:pair"
        if sel.src >= 0:
            return f"{name}:source"
        if ph == Phase.ATTACK and ActionCodec.can_continue(None, s):  # type: ignore[arg-type]
            return "attack:continue"
        return name
    if ph == Phase.OCCUPY:
        return "occupy"
    if ph == Phase.DEFEND:
        return "defend"
    return "game-over"


MINIMUM = {
    "claim": 100,
    "setup:own": 100,
    "setup:neutral": 40,
    "reinforce": 200,
    "reinforce:amount": 200,
    "reinforce:forced": 60,
    "reinforce:bonus-pick": 25,
    "reinforce:trade-down": 30,
    "attack": 200,
    "attack:source": 200,
    "attack:pair": 200,
    "attack:continue": 100,
    "occupy": 150,
    "defend": 100,
    "fortify": 150,
    "fortify:source": 150,
    "fortify:pair": 100,
    "game-over": 20,
    "attack:roll": 100,
    "capital": 15,
    "allied:reinforce": 60,
    "allied:reinforce:amount": 60,
    "allied:attack": 60,
    "allied:attack:source": 60,
    "allied:attack:pair": 40,
    "allied:occupy": 10,
    "allied:defend": 20,
}


def _card_turn_positions(seed: int):
    """A random position whose player on turn starts its turn holding 5-7 random cards."""
    g = Game(
        RulesConfig(
            num_players=int(2 + seed % 4),
            map="small",
            setup="random",
            territory_bonus="once_per_trade" if seed % 2 else "once_per_turn",
        )
    )
    s = g.new_game(seed)
    rng = np.random.default_rng(seed)
    p = s.player
    s.player = s.order[-1]
    s.phase = Phase.FORTIFY
    s.to_place = 0
    mine = [c for c in s.deck if c < g.T and s.owner[c] == p]  # half the cards show own territories
    k = int(rng.integers(5, 8))
    cards = [int(c) for c in rng.choice(mine, min(len(mine), k // 2), replace=False)]
    rest = [c for c in s.deck if c not in cards]
    cards += [int(c) for c in rng.choice(rest, k - len(cards), replace=False)]
    give_cards(s, p, cards)
    g.apply(s, Move.end_turn())
    assert s.player == p and s.forced
    return g, s


def _trade_down_positions(seed: int):
    """Hand-built eliminations that force a mid-attack trade-down (the rare case of §4.2)."""
    g = Game(RulesConfig(num_players=3, setup="random"))
    rng = np.random.default_rng(seed)
    s = build(g, owners={"Alaska": 0, "Kamchatka": 2, "Peru": 0}, armies={"Alaska": int(rng.integers(5, 15))}, seed=seed)
    deck = [c for c in s.deck]
    rng.shuffle(deck)
    give_cards(s, 0, deck[:3])
    give_cards(s, 2, deck[3 : 3 + int(rng.integers(3, 6))])
    force_dice(s, [6, 6, 6, 1])
    g.apply(s, Move.attack(tid(g, "Alaska"), tid(g, "Kamchatka"), 3))
    return g, s


def collect_positions():
    """``[(game, codec, state, selection)]`` sampled from random masked games, plus hand-built trade-downs."""
    out = []
    counts: Counter = Counter()
    for rules, seeds, p in CONFIGS:
        g = Game(resolve_rules(rules=rules))
        codec = ActionCodec(g)
        kept: Counter = Counter()
        for seed in range(seeds.start, seeds.stop * SOAK):
            s = g.new_game(seed)
            sel = Selection()
            rng = np.random.default_rng(1000 + seed)
            while True:
                cat = category(s, sel)
                if kept[cat] < CAP and (
                    cat in RARE
                    or cat.startswith("allied:")
                    or rng.random() < (0.35 if cat in ("fortify:source", "attack:pair", "attack:continue") else p)
                ):
                    kept[cat] += 1
                    out.append((g, codec, s.copy(), sel.copy()))
                if s.phase == Phase.GAME_OVER:
                    break
                legal = np.flatnonzero(codec.mask(s, sel))
                codec.step(s, int(legal[rng.integers(len(legal))]), sel)
        counts.update(kept)
    # every step of hand-built card turns: forced trades at turn start (5-7 cards), +2 bonus
    # picks, and trade-downs after an elimination with 6-8 cards
    for seed in range(100 * SOAK):
        g, s = _card_turn_positions(seed) if seed % 100 < 80 else _trade_down_positions(seed)
        codec = ActionCodec(g)
        sel = Selection()
        rng = np.random.default_rng(seed)
        while s.phase in (Phase.OCCUPY, Phase.REINFORCE) and s.turn == 1 + (seed % 100 < 80):
            out.append((g, codec, s.copy(), sel.copy()))
            counts[category(s, sel)] += 1
            legal = np.flatnonzero(codec.mask(s, sel))
            codec.step(s, int(legal[rng.integers(len(legal))]), sel)
        out.append((g, codec, s.copy(), sel.copy()))
        counts[category(s, sel)] += 1
    return out, counts


@pytest.fixture(scope="module")
def positions():
    return collect_positions()


def test_every_phase_is_covered(positions):
    pos, counts = positions
    assert len(pos) >= 3000
    short = {c: (counts[c], m) for c, m in MINIMUM.items() if counts[c] < m}
    assert not short, f"too few positions (have, need): {short}; all: {dict(counts)}"


def test_mask_is_exact(positions):
    pos, _ = positions
    stepped = accepted_total = 0
    for g, codec, s, sel in pos:
        mask = codec.mask(s, sel)
        assert mask.dtype == np.int8 and mask.shape == (codec.n,)
        assert set(np.unique(mask).tolist()) <= {0, 1}
        before = s.to_dict()
        legal = None
        if s.phase != Phase.GAME_OVER:
            assert mask.any(), f"empty mask in a live position ({category(s, sel)})"
        for a in range(codec.n):
            c, cs = s.copy(), sel.copy()
            try:
                res = codec.step(c, a, cs)
            except IllegalActionError:
                assert mask[a] == 0, f"id {a} ({codec.action_to_string(s, a, sel)}) is masked legal but rejected"
                assert c.to_dict() == before and cs == sel, f"rejected id {a} changed the state in {category(s, sel)}"
                continue
            stepped += 1
            accepted_total += 1
            assert mask[a] == 1, f"id {a} ({codec.action_to_string(s, a, sel)}) accepted but masked illegal"
            if isinstance(res, Move):
                if legal is None:
                    legal = set(g.legal_moves(s))
                # the mask is the oracle for ids: the move it lets through must be legal by the rules
                assert res in legal, f"codec move {g.move_to_text(res)} is not among the rules' legal moves"
                assert cs.empty, "a completed move clears the selection"
            else:  # a selection: the state is untouched, only the selection changes
                assert c.to_dict() == before and cs != sel
        assert s.to_dict() == before, "stepping copies changed the original"
    assert accepted_total > 10_000


def test_amount_ids_reach_min_and_max(positions):
    pos, _ = positions
    checked = 0
    for g, codec, s, sel in pos:
        if s.phase == Phase.OCCUPY:
            lo, hi = g.occupy_range(s)
        elif s.phase == Phase.REINFORCE and sel.src >= 0:
            lo, hi = 1, s.to_place
        elif s.phase == Phase.FORTIFY and sel.dst >= 0:
            lo, hi = 1, int(s.armies[sel.src]) - 1
        else:
            continue
        mask = codec.mask(s, sel)
        amount_ids = [codec.amount + j for j in range(codec.K) if mask[codec.amount + j]]
        counts = []
        for a in amount_ids:
            m = codec.step(s.copy(), a, sel.copy())
            counts.append(m.count)
        assert counts[0] == lo and counts[-1] == hi
        assert len(set(counts)) == len(counts)  # every legal amount id is a distinct count
        assert counts == sorted(counts)
        if hi - lo + 1 <= codec.K:
            assert counts == list(range(lo, hi + 1))  # every count reachable
        assert counts == sorted({amount_of(j, lo, hi) for j in range(codec.K)})
        checked += 1
    assert checked > 300


def test_game_over_masks_are_empty(positions):
    pos, _ = positions
    over = [(g, c, s) for g, c, s, _ in pos if s.phase == Phase.GAME_OVER]
    assert over
    for g, codec, s in over:
        assert not codec.mask(s).any() and g.legal_moves(s) == [] and g.current_player(s) == -1


def test_move_text_round_trip(positions):
    pos, _ = positions
    n = 0
    for g, _codec, s, _sel in pos:
        for m in g.legal_moves(s):
            text = g.move_to_text(m)
            assert g.parse_move(s, text) == m, text
            n += 1
    assert n > 50_000


def _probes(g: Game, s, rng) -> list[Move]:
    """Canonical moves of every kind around the position: some legal, most not."""
    T = g.T
    p = s.player
    own = np.flatnonzero(s.owner == p)
    out = []
    for _ in range(6):
        a = int(rng.choice(own)) if len(own) and rng.random() < 0.8 else int(rng.integers(T))
        nb = g.neighbors[a]
        b = int(rng.choice(nb)) if rng.random() < 0.8 else int(rng.integers(T))
        k = int(rng.integers(0, 12))
        d = int(rng.integers(0, 4))
        out += [
            Move.claim(a),
            Move.place(a, k),
            Move.place_neutral(a),
            Move.attack(a, b, d),
            Move.blitz(a, b),
            Move.end_attack(),
            Move.defend(d),
            Move.occupy(k),
            Move.fortify(a, b, k),
            Move.end_turn(),
            Move.reroll(d),
            Move.six(d),
            Move.keep_roll(),
            Move.capital(a),
        ]
        if g.uses_cards:
            hand = s.hands[p] if p < g.num_players else []  # the allied army (docs/rules.md §7) holds no cards
            pool = hand if len(hand) >= 3 and rng.random() < 0.8 else list(range(g.num_cards))
            cards = [int(c) for c in rng.choice(pool, 3, replace=False)]
            out.append(Move.trade(cards, int(rng.choice(cards)) if rng.random() < 0.5 else -1))
            out.append(Move.trade_stars(int(rng.integers(0, 13))))
    return out


def test_legal_moves_are_exactly_the_accepted_moves(positions):
    """``legal_moves`` is exact too: legal moves (a sample when there are many) apply; random
    canonical moves of every kind apply iff they are listed; a rejected one changes nothing."""
    pos, _ = positions
    rng = np.random.default_rng(0)
    accepted = rejected = 0
    for g, _codec, s, sel in pos[::4]:
        moves = g.legal_moves(s)
        legal = set(moves)
        assert len(legal) == len(moves), "duplicate legal moves"
        sample = moves if len(moves) <= 10 else [moves[i] for i in rng.choice(len(moves), 10, replace=False)]
        before = s.to_dict()
        for m in sample + _probes(g, s, rng):
            c = s.copy()
            try:
                g.apply(c, m)
            except IllegalMoveError:
                assert m not in legal, f"listed move {g.move_to_text(m)} rejected in {category(s, sel)}"
                assert c.to_dict() == before
                rejected += 1
                continue
            assert m in legal, f"unlisted move {m} accepted in {category(s, sel)}"
            assert c.steps == s.steps + 1
            accepted += 1
        assert s.to_dict() == before
    assert accepted > 3000 and rejected > 20_000


def test_every_legal_move_is_reachable_through_the_codec(positions):
    """The other direction of mask == legal_moves: from a position with nothing selected,
    ``ActionCodec.move_to_actions`` plays every legal move (a sample when there are many)
    through ids the mask marks, and completes the same move (amounts and the codec's own
    card and bonus choice aside: same kind, territories and, for trades, set value)."""
    pos, _ = positions
    rng = np.random.default_rng(1)
    played = 0
    for g, codec, s, sel in pos[::3]:
        if not sel.empty or s.phase == Phase.GAME_OVER:
            continue
        moves = g.legal_moves(s)
        sample = moves if len(moves) <= 6 else [moves[i] for i in rng.choice(len(moves), 6, replace=False)]
        for m in sample:
            ids = codec.move_to_actions(s, m)
            c, cs = s.copy(), Selection()
            for i, a in enumerate(ids):
                assert codec.mask(c, cs)[a], f"{g.move_to_text(m)}: id {a} not legal"
                res = codec.step(c, a, cs)
                assert (res is None) == (i < len(ids) - 1)
            assert isinstance(res, Move) and res.kind == m.kind and (res.src, res.dst) == (m.src, m.dst)
            if m.kind == MoveKind.TRADE:
                assert g.trade_move_value(s, res) == g.trade_move_value(s, m)
            assert res in set(moves)
            played += 1
    assert played > 2000
