"""Packaging: the build prints no warning; the sdist holds every file of a clone (so the tests,
the docs and CI run from it); the wheel carries the package data (maps, training configs,
the pretrained agents), the LICENSE and the metadata; a config name works from the installed
files alone, without a source checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("default", "device", "sb3", "2p", "4p", "long")
RULES_FILES = ("stars", "tournament_stars")


def shipped_files() -> list[str]:
    """The repository's files as a clean clone holds them: git's tracked and new (not ignored) files."""
    done = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip("not a git checkout: the files of a clean clone are unknown")
    return [f for f in done.stdout.splitlines() if (ROOT / f).is_file()]  # a deleted, not yet staged file is gone


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """``python -m build`` (the sdist, then the wheel from it) on a copy of the clone's files, as
    .ci/install_check.sh runs it: (sdist, wheel, the build's output)."""
    out = tmp_path_factory.mktemp("dist")
    src = tmp_path_factory.mktemp("src")  # build from a copy: the checkout gets no build/ folder
    for name in shipped_files():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # no "byte-compiling is disabled"
    cmd = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(src)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    if done.returncode != 0:  # a broken pyproject.toml fails here; under CI (which has the build tools) it is a failure
        why = f"cannot build here: {(done.stdout + done.stderr).strip()[-300:]}"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    (sdist,) = out.glob("risk_env-*.tar.gz")
    (whl,) = out.glob("risk_env-*.whl")
    return sdist, whl, done.stdout + done.stderr


@pytest.fixture(scope="module")
def wheel(dist: tuple[Path, Path, str]) -> Path:
    return dist[1]


def test_the_build_prints_no_warning(dist: tuple[Path, Path, str]) -> None:
    warnings = [line for line in dist[2].splitlines() if "warning" in line.lower()]
    assert warnings == []  # e.g. a TOML-table license, a data folder missing from the packages


def test_the_sdist_holds_every_file_of_the_clone(dist: tuple[Path, Path, str]) -> None:
    """So the test suite, the docs and the CI scripts run from an unpacked sdist as from a clone."""
    with tarfile.open(dist[0]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    missing = sorted(set(shipped_files()) - names)
    assert missing == []
    assert {"LICENSE", "docs/board.json", "docs/README.md", "mkdocs.yml", ".ci/run", "tests/conftest.py"} <= names
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)


def test_the_license_and_the_metadata(dist: tuple[Path, Path, str]) -> None:
    whl = zipfile.ZipFile(dist[1])
    info = next(n.split("/")[0] for n in whl.namelist() if n.endswith(".dist-info/METADATA"))
    assert whl.read(f"{info}/licenses/LICENSE").decode().startswith("MIT License\n")
    meta = whl.read(f"{info}/METADATA").decode()
    head = meta.split("\n\n")[0].splitlines()
    assert "License-Expression: MIT" in head and "License-File: LICENSE" in head
    assert "Project-URL: Documentation, https://risk-env.github.io/risk_env/" in head
    assert "Project-URL: Repository, https://github.com/risk-env/risk_env" in head
    assert "Author: the risk_env maintainers" in head
    classifiers = {line.split(": ", 1)[1] for line in head if line.startswith("Classifier: ")}
    assert {"Programming Language :: Python :: 3.11", "Operating System :: OS Independent", "Typing :: Typed"} <= classifiers
    with tarfile.open(dist[0]) as tar:
        pkg_info = tar.extractfile(f"{dist[0].name[: -len('.tar.gz')]}/PKG-INFO")
        assert pkg_info is not None and "License-Expression: MIT" in pkg_info.read().decode()


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
    assert {"risk_env/web/static/index.html", "risk_env/web/static/play.js"} <= names  # the page of risk-env serve


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
    assert files == (
        "['2p.yaml', '4p.yaml', 'default.yaml', 'device.yaml', 'long.yaml', 'ppo-2p-0.1.yaml', 'ppo-2p.yaml', 'ppo-3p.yaml', "
        "'ppo-4p-0.1.yaml', 'ppo-4p.yaml', 'ppo-5p.yaml', 'ppo-6p.yaml', 'sb3.yaml']"
    )
    assert players == "[2, 2, 2, 2, 4, 2]"
    assert rules == "['stars', 'stars']"  # rules files load by name from the installed package
