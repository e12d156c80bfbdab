import os

# One thread per torch/BLAS process: the suite runs one worker per core (pytest -n auto), and
# several threads per worker would only fight over the same cores. Set before anything imports torch.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import pytest  # noqa: E402

from risk_env import Game, RulesConfig  # noqa: E402


@pytest.fixture
def classic4() -> Game:
    return Game(RulesConfig(num_players=4))
