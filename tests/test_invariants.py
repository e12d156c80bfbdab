"""docs/rules.md §5 invariants after every step of over 1,000 random games, 2..6 players.

Every step is checked by ``helpers.RulesChecker``: ``Game.invariant_violations`` plus an
independent army ledger (armies on the board + armies still to place = starting armies +
income + set values + bonuses - battle losses, each recomputed here), card accounting
(the 44 cards, a card only after a conquest and only one, the eliminated player's cards to
the conqueror), eliminated players and the neutral never acting, the turn passing to the
next live player, and each roll's losses against its faces.

Most games use the 9-territory ``small`` map with short turn limits to keep CI fast; a few
run on the classic map, and some run without a turn limit until someone wins. Games are
driven by random legal action ids through the ActionCodec, and one in four by random moves
from ``Game.legal_moves`` / ``Game.apply``. A longer soak: ``RISK_SOAK=10`` multiplies the
game counts.
"""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest
from helpers import check_random_game

from risk_env import ActionCodec, Game, RulesConfig

SOAK = int(os.environ.get("RISK_SOAK", "1"))

VARIANTS = [
    {},
    {"setup": "claim"},
    {"setup": "deal"},
    {"defender_dice": "choose"},
    {"fortify": "connected"},
    {"territory_bonus": "once_per_trade"},
    {"card_trade": "escalating_reset"},
    {"card_trade": "slow_escalation"},
    {"card_trade": "fixed_by_symbol"},
    {"card_trade": "no_cards"},
    {"elimination_trade_at": 5},
    {"truncation_reward": "rank", "setup": "claim", "defender_dice": "choose"},
    {"card_trade": "stars"},
    {"reroll_with_card": True, "die_to_six": True},
    {"card_trade": "stars", "die_to_six": True, "defender_dice": "choose"},
    {"setup": "deal", "fortify": "connected", "elimination_trade_at": 5},  # the tournament preset
    {"card_trade": "slow_escalation", "fortify": "connected", "reroll_with_card": True, "die_to_six": True},  # expert
]

GAMES_PER_COUNT = 190


def _play_many(configs_and_seeds) -> Counter:
    stats: Counter = Counter()
    games: dict = {}
    for rules, seed in configs_and_seeds:
        key = tuple(sorted(rules.items()))
        if key not in games:
            g = Game(RulesConfig(**rules))
            games[key] = (g, ActionCodec(g))
        g, codec = games[key]
        s, chk = check_random_game(g, seed, codec, use_moves=(seed % 4 == 3))
        stats["games"] += 1
        stats["steps"] += chk.steps
        stats["wins"] += s.winner >= 0
        stats["truncations"] += s.truncated
        stats["trades"] += chk.trades
        stats["conquests"] += chk.conquests
        stats["eliminations"] += chk.eliminations
        stats["turns"] += chk.incomes
    return stats


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_random_small_map_games(n):
    rng = np.random.default_rng(n)
    jobs = []
    for k in range(GAMES_PER_COUNT * SOAK):
        rules = {"num_players": n, "map": "small", "setup": "random", **VARIANTS[k % len(VARIANTS)]}
        if n == 2 and k % 5 == 4:
            rules["two_player"] = "none"
        # 5 and 6 players on 9 territories need longer games for some to end in a win
        rules["turn_limit"] = int(rng.integers(6, 16 if n < 5 else 26))
        jobs.append((rules, 1000 * n + k))
    stats = _play_many(jobs)
    assert stats["games"] == GAMES_PER_COUNT * SOAK
    # the games exercised the rules, not just the checker
    assert stats["wins"] > 0 and stats["truncations"] > 0
    assert stats["trades"] > 10 and stats["conquests"] > 500
    if n > 2:
        assert stats["eliminations"] > 20


def test_random_games_to_the_end():
    """No turn limit to speak of: every game ends with a winner."""
    jobs = []
    for k in range(40 * SOAK):
        n = 2 + k % 5
        rules = {
            "num_players": n,
            "map": "small",
            "setup": ("random", "claim")[k % 2],
            "turn_limit": 100_000,
            **VARIANTS[k % len(VARIANTS)],
        }
        jobs.append((rules, 50_000 + k))
    stats = _play_many(jobs)
    assert stats["wins"] == stats["games"] == 40 * SOAK
    assert stats["trades"] > 100 and stats["eliminations"] > 40


def test_random_classic_games():
    jobs = []
    for k in range(20 * SOAK):
        n = 2 + k % 5
        rules = {"num_players": n, "turn_limit": 10 + k % 7, **VARIANTS[(3 * k) % len(VARIANTS)]}
        if k % 3 == 0 or n == 6:
            rules.setdefault("setup", "random")
        jobs.append((rules, 90_000 + k))
    stats = _play_many(jobs)
    assert stats["games"] == 20 * SOAK and stats["conquests"] > 100


def test_total_games():
    assert 5 * GAMES_PER_COUNT + 40 + 20 >= 1000
