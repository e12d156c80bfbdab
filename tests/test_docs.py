"""The documentation site: its pages' snippets run as written, every page is in the navigation,
the README's links work wherever the README is shown (absolute, to pages that exist), the project
URLs agree everywhere, and the docstrings' reST habits are rewritten for Markdown.
(``mkdocs build --strict`` itself runs in .ci/run.)"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
from pathlib import Path

import pytest
import tomllib
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SITE = "https://risk-env.github.io/risk_env/"
REPO = "https://github.com/risk-env/risk_env"


def _snippets(page: Path) -> dict[str, str]:
    text = page.read_text(encoding="utf-8")
    return dict(re.findall(r"<!-- snippet: ([\w-]+) -->\s*```python\n(.*?)```", text, re.S))


def _run(code: str, name: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, name, "exec"), {"__name__": "__docs__"})
    return out.getvalue()


def test_the_getting_started_snippets_run_and_print_what_they_say() -> None:
    pytest.importorskip("openskill")
    snippets = _snippets(DOCS / "getting-started.md")
    assert set(snippets) == {"first-game", "agents", "evaluate", "position"}
    said = re.search(r"^# (\d+ turns; winner: (player_[0-2]|none))  ", snippets["first-game"], re.M)
    assert said is not None  # what the page says it prints ("a short game" printed 400 turns; winner: none)
    assert _run(snippets["first-game"], "first-game") == said.group(1) + "\n"
    assert re.fullmatch(r"winner: [0-2]\n", _run(snippets["agents"], "agents"))
    out = _run(snippets["evaluate"], "evaluate").splitlines()
    assert out[0].startswith("20 games, 2 players, seed 0, rules ") and out[1].startswith("agent ")
    assert re.fullmatch(r"[01]\.\d+ \(.*\)", out[-1])
    assert _run(snippets["position"], "position") == "True\n"


def test_the_home_page_example_runs() -> None:
    text = (DOCS / "README.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    assert _run(code, "docs/README.md") == ""


def _nav_pages(nav: list) -> list[str]:  # type: ignore[type-arg]
    out: list[str] = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        out += _nav_pages(value) if isinstance(value, list) else [value]
    return out


def test_every_page_is_in_the_navigation_and_every_nav_entry_is_a_page() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = _nav_pages(config["nav"])
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)
    assert sorted(nav) == pages
    assert config["site_url"] == SITE and config["repo_url"] == REPO


def test_the_readme_links_work_anywhere() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert [t for t in links if not t.startswith(("https://", "http://", "#"))] == []  # no docs/x.md, no docs/board.png
    own = [t for t in links if t.startswith(SITE)]
    assert len(own) >= 8 and f"{SITE}board.png" in own
    for target in own:
        path = target[len(SITE) :].split("#")[0]
        if path in ("", "index.html"):
            assert (DOCS / "README.md").exists()
        elif path.endswith("/"):
            assert (DOCS / f"{path.rstrip('/')}.md").exists() or (DOCS / path / "index.md").exists(), target
        else:
            assert (DOCS / path).exists(), target
    for target in (t for t in links if t.startswith(f"{REPO}/blob/main/")):
        assert (ROOT / target[len(f"{REPO}/blob/main/") :].split("#")[0]).exists(), target
    assert SITE in readme.split("\n## ")[0]  # the site is named before the first section


def test_the_project_urls_name_the_repository_and_the_site() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    urls = project["urls"]
    assert urls["Documentation"] == SITE and urls["Homepage"] == urls["Repository"] == REPO
    assert all(u.startswith((REPO, SITE)) for u in urls.values())
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert "docs" in project["optional-dependencies"] and "docs" in project["optional-dependencies"]["all"][0]


def _hooks_module():  # type: ignore[no-untyped-def]
    pytest.importorskip("griffe")
    spec = importlib.util.spec_from_file_location("docstring_hooks", DOCS / "_hooks" / "docstrings.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_docstrings_lose_their_rest_habits_for_markdown() -> None:
    md = _hooks_module().markdown_docstring
    text = (
        "Reads :class:`~risk_env.rules.state.GameState`, :meth:`Game.outcome <risk_env.rules.engine.Game.outcome>`.\n"
        "\n"
        "Python::\n"
        "\n"
        "    x = 1\n"
        "\n"
        "Design\n"
        "    * one\n"
        "      more\n"
        "\n"
        ">>> [round(x, 1) for x in (0.25, 0.75)]\n"
        "[0.2, 0.8]\n"
        "\n"
        "Args:\n"
        "    a: the first.\n"
    )
    assert md(text).splitlines() == [
        "Reads `GameState`, `Game.outcome`.",
        "",
        "Python:",
        "",
        "    x = 1",
        "",
        "**Design**",
        "",
        "* one",
        "  more",
        "",
        "```pycon",
        ">>> [round(x, 1) for x in (0.25, 0.75)]",
        "[0.2, 0.8]",
        "```",
        "",
        "Args:",
        "    a: the first.",
    ]


def test_parameters_described_together_become_one_entry_each() -> None:
    md = _hooks_module().markdown_docstring
    text = (
        "Args:\n"
        "    game: the game.\n"
        "    kl_coef, anneal_steps: kickstarting: the loss adds\n"
        "        a term.\n"
        "    seed (int): the seed.\n"
        "\n"
        "Returns:\n"
        "    a, b: not parameters.\n"
    )
    assert md(text).splitlines() == [
        "Args:",
        "    game: the game.",
        "    kl_coef: kickstarting: the loss adds",
        "        a term.",
        "    anneal_steps: kickstarting: the loss adds",
        "        a term.",
        "    seed (int): the seed.",
        "",
        "Returns:",
        "    a, b: not parameters.",
    ]


def test_every_docstring_parses_without_a_warning() -> None:
    """What ``mkdocs build --strict`` (CI) fails on, found in a second: a docstring the Google parser cannot read
    (a Raises line that names no exception, a parameter that is not in the signature), in every module."""
    import logging

    griffe = pytest.importorskip("griffe", reason="the API reference needs mkdocstrings (the docs extra)")
    extension = griffe.load_extensions(_hooks_module().ReSTHabits)
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                messages.append(record.getMessage())

    handler = Collect()
    logger = logging.getLogger("griffe")
    logger.addHandler(handler)
    try:
        for package in ("risk_env", "agents"):  # agents/ is installed as risk_env.agents
            root = griffe.load(package, search_paths=[str(ROOT)], extensions=extension, docstring_parser="google")
            todo = [root]
            while todo:
                obj = todo.pop()
                if obj.is_alias:
                    continue
                if obj.docstring is not None:
                    obj.docstring.parsed  # noqa: B018 - parsing logs the warnings
                todo.extend(obj.members.values())
    finally:
        logger.removeHandler(handler)
    assert messages == []


def _variant_hook_groups() -> dict[str, list[str]]:
    """The hooks of ``risk_env.rules.variant.Variant`` by the class's own sections (its
    ``# ---- name`` comments; the hooks before the first: "which rules")."""
    from risk_env.rules.variant import Variant

    hooks = {n for n, v in vars(Variant).items() if callable(v) and not n.startswith("_")} | {"moves", "rank"}
    groups: dict[str, list[str]] = {"which rules": []}
    group = "which rules"
    source = (ROOT / "risk_env" / "rules" / "variant.py").read_text(encoding="utf-8")
    body = source[source.index("class Variant") :]
    for line in body.splitlines():
        if m := re.match(r"\s+# -+ (.+)$", line):
            group = m.group(1)
            groups[group] = []
        elif (m := re.match(r"\s+def (\w+)\(", line)) and m.group(1) in hooks:
            groups[group].append(m.group(1))
    assert sorted(n for names in groups.values() for n in names) == sorted(hooks - {"moves", "rank"})
    return groups


def test_the_variant_module_and_the_contributing_recipe_name_every_hook_grouped_as_the_class() -> None:
    import risk_env.rules.variant as variant

    groups = _variant_hook_groups()
    assert len(groups) >= 8 and "check" in groups["which rules"]
    bullets = re.split(r"\n\* ", variant.__doc__ or "")[1:]  # the module docstring: one bullet a group
    for group, names in groups.items():
        holding = [b for b in bullets if all(re.search(rf":meth:`(Variant\.)?{n}`", b) for n in names)]
        assert holding, f"no bullet of risk_env/rules/variant.py names every hook of {group!r}: {names}"
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    recipe = text[text.index("## Adding a rules variant") : text.index("## Adding an agent")]
    missing = [n for names in groups.values() for n in [*names, "moves", "rank"] if f"`{n}`" not in recipe]
    assert missing == [], f"CONTRIBUTING's variant recipe omits the hooks {missing}"
