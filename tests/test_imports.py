"""The package's import surface: every public error exported at the top level, the 0.1.0
module paths kept with a DeprecationWarning that names the new home, imports that run one
way (no cycles, counting imports inside functions) and no module reading another module's
private names (both read from the source with ``ast``)."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

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


# ---------------------------------------------------------------------- one-way imports, no privates
ROOT = Path(__file__).resolve().parents[1]

PENDING_PRIVATES = {
    # modules whose reach into other modules' privates is being removed by the batched engine's rework
    # (its tables become public; the vector modules' owners take them off this list as they go)
    "risk_env.vector.agents",
    "risk_env.vector.dice",
    "risk_env.vector.learner",
    "risk_env.vector.masks",
    "risk_env.vector.observe",
    "risk_env.vector.network",
    # the board pictures share the layout module's drawing constants (in rework with the SVG board)
    "risk_env.records.draw",
    "risk_env.records.picture",
    "risk_env.records.svg",
}
"""Modules that still read another object's private attributes (must shrink to nothing)."""

FRAMEWORK_NAMES = {
    "_cumulative_rewards",  # PettingZoo's AECEnv attribute, read by its wrappers and tests
    "_was_dead_step",
    "_accumulate_rewards",
    "_deads_step_first",
    "_has_reset",
}
"""Underscore names that belong to a framework's protocol (PettingZoo's AECEnv), not to a module of ours."""


def _package_modules() -> dict[str, Path]:
    out = {}
    for base, prefix in (
        (ROOT / "risk_env", "risk_env"),
        (ROOT / "agents", "risk_env.agents"),
        (ROOT / "configs", "risk_env.configs"),
    ):
        for path in base.rglob("*.py"):
            parts = path.relative_to(base).with_suffix("").parts
            name = ".".join((prefix, *parts))
            out[name.removesuffix(".__init__")] = path
    return out


MODULES = _package_modules()


def _type_checking_only(node: ast.AST, parents: list[ast.AST]) -> bool:
    return any(isinstance(p, ast.If) and "TYPE_CHECKING" in ast.unparse(p.test) for p in parents)


def _walk(tree: ast.AST):
    """Every node with the chain of its parents."""
    todo: list[tuple[ast.AST, list[ast.AST]]] = [(tree, [])]
    while todo:
        node, parents = todo.pop()
        yield node, parents
        todo.extend((child, [*parents, node]) for child in ast.iter_child_nodes(node))


def _imported(name: str, path: Path) -> set[str]:
    """The package's modules ``name`` imports anywhere (inside functions too), but for ``TYPE_CHECKING``."""
    out = set()
    is_package = path.name == "__init__.py"
    for node, parents in _walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module for a in node.names]
        for t in targets:
            while t not in MODULES and "." in t:
                t = t.rsplit(".", 1)[0]
            if t in MODULES and t != name:
                out.add(t)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_package_imports_one_way() -> None:
    """No import cycle among the package's modules, counting imports inside functions
    (``TYPE_CHECKING`` imports aside). The package's own ``__init__`` counts as the module it is."""
    graph = {name: _imported(name, path) for name, path in MODULES.items()}
    assert _cycles(graph) == []
    # the test sees cycles: a made-up pair is one
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]


def _own_private_names(tree: ast.AST) -> set[str]:
    """Underscore names a module defines: attributes it assigns (on any object), its classes'
    members and slots, and its module-level names."""
    own: set[str] = set()
    for node, _ in _walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            own.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("_"):
            own.add(node.value)  # __slots__ entries
    return {n for n in own if n.startswith("_")}


def _is_module(name: str, node: ast.ImportFrom, imported: str) -> bool:
    """Whether ``from ... import imported`` in module ``name`` names a module of the package (a
    package may import its own private modules; what it may not read is a name defined in one)."""
    base = name.split(".") if MODULES[name].name == "__init__.py" else name.split(".")[:-1]
    if node.level:
        base = base[: len(base) - (node.level - 1)]
        module = ".".join([*base, node.module] if node.module else base)
    else:
        module = node.module or ""
    return f"{module}.{imported}" in MODULES


def _reaches(name: str, path: Path) -> list[str]:
    """Places where module ``name`` reads another module's private name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = _own_private_names(tree) | FRAMEWORK_NAMES
    out = []
    for node, _ in _walk(tree):
        if isinstance(node, ast.Attribute):
            attr, value = node.attr, node.value
            if not attr.startswith("_") or attr.startswith("__") or attr in own or re.fullmatch(r"_repr_\w+_", attr):
                continue
            if isinstance(value, ast.Name) and value.id in ("self", "cls"):
                continue
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
                continue
            out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            out.extend(
                f"{path.relative_to(ROOT)}:{node.lineno}: from {node.module} import {a.name}"
                for a in node.names
                if a.name.startswith("_") and not a.name.startswith("__") and not _is_module(name, node, a.name)
            )
    return out


def test_no_module_reads_another_modules_privates() -> None:
    """No module reads a private (underscore) attribute or name that another module defines:
    modules talk through public names, whatever the object (a Game, an env, a codec)."""
    found = {name: _reaches(name, path) for name, path in MODULES.items()}
    assert {n: v for n, v in found.items() if v and n not in PENDING_PRIVATES} == {}
    still = {n for n in PENDING_PRIVATES if found.get(n)}
    assert still == PENDING_PRIVATES, f"take {sorted(PENDING_PRIVATES - still)} off PENDING_PRIVATES: they are clean now"
