"""Bad seeds and out-of-range state fields are clear RiskErrors and change nothing."""

import numpy as np
import pytest

import risk_env
from risk_env import ConfigError, Game, RulesConfig, StateError


@pytest.mark.parametrize("seed", ["a", -1, 1.5, True, [1, 2]])
def test_bad_seeds_are_rejected(seed):
    g = Game(RulesConfig(num_players=3))
    with pytest.raises(ConfigError, match="seed must be None, an integer >= 0"):
        g.new_game(seed)
    env = risk_env.env(num_players=3)
    env.reset(seed=0)
    before = env.unwrapped.game_state.to_dict()
    with pytest.raises(ConfigError, match="seed must be"):
        env.reset(seed=seed)
    assert env.unwrapped.game_state.to_dict() == before


def test_good_seeds_are_accepted():
    g = Game(RulesConfig(num_players=3))
    a = g.new_game(np.int64(5)).to_dict()
    assert a == g.new_game(5).to_dict()
    g.new_game(np.random.SeedSequence(1))
    g.new_game(None)


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("sets_traded", 10**20, "sets_traded=.* must be in 0..1000000000"),
        ("turn", 10**12, "turn=.* must be in 0..1000000000"),
        ("dice_pos", -5, "dice_pos=-5 must be in"),
        ("dice_pos", 10_000, "past the"),
        ("forced", "junk", "'forced' must be true or false"),
        ("truncated", None, "'truncated' must be true or false"),
        ("alive", [-99, -99, -99], "'alive' must be a list of true/false"),
    ],
)
def test_out_of_range_state_fields(field, value, message):
    g = Game(RulesConfig(num_players=3))
    d = g.new_game(1).to_dict()
    d[field] = value
    with pytest.raises(StateError, match=message):
        g.state_from_dict(d)
