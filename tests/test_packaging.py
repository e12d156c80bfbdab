"""Packaging: the wheel carries the package data (maps, training configs) and a config name
works from the installed files alone, without a source checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("default", "2p", "4p", "long")
RULES_FILES = ("stars", "tournament_stars")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    src = tmp_path_factory.mktemp("src")  # build from a copy: the checkout gets no build/ folder
    for name in ("pyproject.toml", "README.md", "risk_env", "agents", "configs"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, src / name)
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(src)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {done.stderr.strip()[-300:]}")
    (whl,) = out.glob("risk_env-*.whl")
    return whl


def test_the_wheel_holds_the_configs_maps_and_agents(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in SHIPPED:
        assert f"risk_env/configs/train/{name}.yaml" in names
    assert "risk_env/configs/__init__.py" in names
    for name in RULES_FILES:
        assert f"risk_env/configs/rules/{name}.yaml" in names
    assert "risk_env/rules/maps/classic.json" in names
    assert "risk_env/agents/registry.py" in names
    assert "risk_env/py.typed" in names
    assert "risk_env/records/assets/board.js" in names  # the script that updates SVG boards in pages


def test_the_version_is_written_once(wheel: Path) -> None:
    """pyproject.toml reads the version from ``risk_env.__version__``: the wheel carries that one."""
    import risk_env

    assert "version =" not in (ROOT / "pyproject.toml").read_text().split("[project]")[1].split("[")[0]
    assert wheel.name.startswith(f"risk_env-{risk_env.__version__}-")
    meta = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".dist-info/METADATA"))
    assert f"\nVersion: {risk_env.__version__}\n" in zipfile.ZipFile(wheel).read(meta).decode()


def test_config_names_load_from_the_unpacked_wheel(wheel: Path, tmp_path: Path) -> None:
    pytest.importorskip("yaml", reason="training configs need the train extra")
    pytest.importorskip("pydantic", reason="training configs need the train extra")
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import risk_env, importlib.resources as r\n"
        "from risk_env.train.config import load_config\n"
        "print(risk_env.__file__)\n"
        "print(sorted(x.name for x in (r.files('risk_env.configs') / 'train').iterdir()))\n"
        f"print([load_config(n).rules_config.num_players for n in {SHIPPED!r}])\n"
        "from risk_env.rules.config import resolve_rules\n"
        f"print([resolve_rules(n).card_trade for n in {RULES_FILES!r}])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    where, files, players, rules = done.stdout.strip().splitlines()
    assert Path(where).is_relative_to(site)  # the unpacked wheel, not the checkout
    assert files == "['2p.yaml', '4p.yaml', 'default.yaml', 'long.yaml', 'ppo-2p.yaml', 'ppo-4p.yaml']"
    assert players == "[2, 2, 4, 2]"
    assert rules == "['stars', 'stars']"  # rules files load by name from the installed package
