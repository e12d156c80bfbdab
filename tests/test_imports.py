"""The package's import surface: every public error exported at the top level, and the
0.1.0 module paths kept with a DeprecationWarning that names the new home."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

import risk_env
import risk_env.errors
from risk_env._compat import MOVED


def test_every_public_error_is_exported_at_the_top_level() -> None:
    for name in risk_env.errors.__all__:
        assert name in risk_env.__all__, name
        assert getattr(risk_env, name) is getattr(risk_env.errors, name)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_warns_and_gives_the_new_module(old: str) -> None:
    new = MOVED[old]
    try:
        target = importlib.import_module(new)
    except ImportError as e:  # an optional extra (torch, ray) is missing: the old path fails the same way
        pytest.skip(f"{new} needs an optional extra: {e}")
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is target
    assert module.__spec__.name == new  # the module keeps its own identity
    messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
    assert messages == [f"{old} moved to {new} in risk_env 0.2.0; import it from there"]


def test_the_warning_points_at_the_importing_line(tmp_path) -> None:
    script = tmp_path / "old_user.py"
    script.write_text("import risk_env.odds\n")
    done = subprocess.run(
        [sys.executable, "-W", "default::DeprecationWarning", str(script)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert f"{script}:1: DeprecationWarning: risk_env.odds moved to risk_env.rules.odds" in done.stderr


def test_the_function_env_keeps_its_name() -> None:
    assert "risk_env.env" not in MOVED
    assert callable(risk_env.env)
