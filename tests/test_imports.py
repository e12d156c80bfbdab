"""The package's import surface: every public error exported at the top level, the 0.1.0
module paths kept with a DeprecationWarning that names the new home, imports that run one
way (no cycles, counting imports inside functions) and no module reaching another module's
private names, by attribute or by ``getattr``/``setattr``/``hasattr`` with a literal name, reading
or writing (both read from the source with ``ast``)."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
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


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _own_private_names(tree: ast.AST) -> set[str]:
    """Underscore names a module defines: attributes it assigns on ``self`` or ``cls``, its
    classes' members and ``__slots__``, and its module-level names (an attribute it writes on
    another object is not its own: that is a reach, see :func:`_reaches`)."""
    own: set[str] = set()
    for node, _ in _walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _is_self(node.value):
            own.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is not None and any(isinstance(x, ast.Name) and x.id == "__slots__" for x in targets):
                own.update(c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return {n for n in own if n.startswith("_")}


def _is_module(name: str, node: ast.ImportFrom, imported: str) -> bool:
    """Whether ``from ... import imported`` in module ``name`` names a module of the package (a
    package may import its own private modules; what it may not read is a name defined in one)."""
    path = MODULES.get(name)
    base = name.split(".") if path is not None and path.name == "__init__.py" else name.split(".")[:-1]
    if node.level:
        base = base[: len(base) - (node.level - 1)]
        module = ".".join([*base, node.module] if node.module else base)
    else:
        module = node.module or ""
    return f"{module}.{imported}" in MODULES


NAMED_ATTRIBUTE_CALLS = {"getattr", "setattr", "hasattr", "delattr"}
"""Builtins that reach an attribute by a name given as a string: ``getattr(obj, "_x")``."""

OBJECT_ATTRIBUTE_METHODS = {"__getattribute__", "__setattr__", "__delattr__"}
"""``object.__setattr__(obj, "_x", v)`` and its kin: the same reach, past the object's own methods."""


def _named_attribute(node: ast.Call) -> tuple[ast.AST, str] | None:
    """``(object, name)`` of a call that reaches an attribute by a literal name, else None."""
    f = node.func
    named = isinstance(f, ast.Name) and f.id in NAMED_ATTRIBUTE_CALLS
    named = named or (isinstance(f, ast.Attribute) and f.attr in OBJECT_ATTRIBUTE_METHODS)
    if not named or len(node.args) < 2:
        return None
    arg = node.args[1]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return node.args[0], arg.value
    return None


def _reaches(name: str, source: str, where: str) -> list[str]:
    """Places where module ``name`` (its ``source``, shown as ``where``) reaches another module's private
    name: reads or writes ``obj._x`` (or ``getattr``/``setattr``/``hasattr``/``delattr(obj, "_x")``) on an
    object other than ``self``/``cls`` for an ``_x`` the module does not define, or imports one."""
    tree = ast.parse(source)
    own = _own_private_names(tree) | FRAMEWORK_NAMES

    def private(attr: str) -> bool:
        return attr.startswith("_") and not attr.startswith("__") and attr not in own and not re.fullmatch(r"_repr_\w+_", attr)

    out = []
    for node, _ in _walk(tree):
        if isinstance(node, ast.Attribute):
            attr, value = node.attr, node.value
            if not private(attr) or _is_self(value):
                continue
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
                continue
            out.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and (found := _named_attribute(node)) is not None:
            obj, attr = found
            if private(attr) and not _is_self(obj):
                out.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            out.extend(
                f"{where}:{node.lineno}: from {node.module} import {a.name}"
                for a in node.names
                if a.name.startswith("_") and not a.name.startswith("__") and not _is_module(name, node, a.name)
            )
    return out


def test_no_module_reads_another_modules_privates() -> None:
    """No module reaches a private (underscore) attribute or name that another module defines:
    modules talk through public names, whatever the object (a Game, an env, a codec, a
    third-party object such as an SB3 model or a matplotlib artist)."""
    found = {
        name: _reaches(name, path.read_text(encoding="utf-8"), str(path.relative_to(ROOT))) for name, path in MODULES.items()
    }
    assert {n: v for n, v in found.items() if v} == {}


PROBE = """\
import x
from risk_env.rules.engine import _hidden


class Mine:
    __slots__ = ("_slot",)

    def __init__(self):
        self._own = 1
        setattr(self, "_set", 2)
        object.__setattr__(self, "_frozen", 3)

    def same(self, other):
        return other._own + other._slot + self.__class__.__name__.__len__()


y = x.obj._secret
x._written = 1
x.obj._written_too += 1
getattr(x, "_got")
getattr(x, "_got_or", None)
setattr(x, "_set_on", 2)
hasattr(x, "_has")
delattr(x, "_gone")
object.__setattr__(x, "_forced", 3)
getattr(x, "__dunder__"), getattr(x, "public"), getattr(self, "_mine"), x.__dict__
"""
"""Every kind of reach the check looks for, and the uses it allows (own names, ``self``/``cls``, dunders)."""


def test_the_check_sees_every_kind_of_reach() -> None:
    reported = sorted(r.split(": ", 1)[1] for r in _reaches("risk_env.envs.probe", PROBE, "probe"))
    assert reported == [
        "delattr(x, '_gone')",
        "from risk_env.rules.engine import _hidden",
        "getattr(x, '_got')",
        "getattr(x, '_got_or', None)",
        "hasattr(x, '_has')",
        "object.__setattr__(x, '_forced', 3)",
        "setattr(x, '_set_on', 2)",
        "x._written",
        "x.obj._secret",
        "x.obj._written_too",
    ]


LAYERS = {
    "risk_env.rules": {"risk_env.rules", "risk_env.errors"},
    "risk_env.envs": {"risk_env.envs", "risk_env.rules", "risk_env.records", "risk_env.errors"},
}
"""What each layer may import: the rules engine nothing but itself (and the errors); the envs
no agents, training or tools (opponents come from a resolver the caller gives)."""


def test_the_rules_and_the_envs_import_no_layer_above() -> None:
    graph = {name: _imported(name, path) for name, path in MODULES.items()}
    found = {
        name: sorted(d for d in deps if not any(d == ok or d.startswith(ok + ".") for ok in allowed))
        for layer, allowed in LAYERS.items()
        for name, deps in graph.items()
        if name == layer or name.startswith(layer + ".")
    }
    assert {n: v for n, v in found.items() if v} == {}


def test_the_envs_build_opponents_through_the_resolver_they_are_given() -> None:
    from risk_env.envs.opponents import OpponentPool, agent_resolver, resolve_agent, set_agent_resolver
    from risk_env.envs.single_agent import RiskSingleAgentEnv

    class Named:
        def __init__(self, name: str) -> None:
            self.name = name

        def act(self, observation, info) -> int:
            return int(info["action_mask"].nonzero()[0][0])

    built: list[tuple[str, int | None]] = []

    def resolve(spec, seed):
        built.append((spec, seed))
        return Named(spec)

    assert resolve_agent("mine", seed=3, resolve=resolve).name == "mine"
    env = RiskSingleAgentEnv(num_players=3, opponents=["a", "b"], resolve=resolve)
    env.reset(seed=0)
    assert sorted(o.name for o in env.opponents.values()) == ["a", "b"]
    pool = OpponentPool(["p"], p_snapshot=1.0, resolve=resolve, load_snapshot=lambda path, det: Named(f"snap {path}"))
    pool.add("s.zip")
    assert {o.name for o in pool.sample(np.random.default_rng(0), 8)} == {"snap s.zip"}
    assert ("mine", 3) in built and ("a", None) in built
    # the package's default is the agent registry; without a resolver a spec names nothing
    saved = agent_resolver()
    assert saved[0] is not None and saved[1] is not None
    assert type(resolve_agent("random")).__module__.startswith("risk_env.agents")
    try:
        set_agent_resolver(None)
        with pytest.raises(risk_env.ConfigError, match="no agent resolver"):
            resolve_agent("random")
    finally:
        set_agent_resolver(*saved)
