import pytest

from risk_env import Game, RulesConfig


@pytest.fixture
def classic4() -> Game:
    return Game(RulesConfig(num_players=4))
