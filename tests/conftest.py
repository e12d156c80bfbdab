import os

# One thread per torch/BLAS process: the suite runs one worker per core (pytest -n auto), and
# several threads per worker would only fight over the same cores. Set before anything imports torch.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import pytest  # noqa: E402

from risk_env import Game, RulesConfig  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def _sb3_log_folder(tmp_path_factory: pytest.TempPathFactory):
    """SB3's default logger makes a folder per model it trains (``SB3-<time>`` in the system temp folder) where the
    code under test, such as a docs recipe, sets no logger of its own: those go to the session's temp folder."""
    before = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3-logs"))
    yield
    if before is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = before


@pytest.fixture
def classic4() -> Game:
    return Game(RulesConfig(num_players=4))
