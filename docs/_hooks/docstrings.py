"""Griffe extension for the API reference: the docstrings' reStructuredText habits as Markdown.

The docstrings are Google style (sections ``Args:``, ``Returns:``, ``Raises:``), which
mkdocstrings reads as such; their prose keeps reST and numpydoc habits that Markdown or the Google parser would garble:

* doctest examples (``>>>`` lines and their output) become ``pycon`` code blocks (Markdown would
  run them into a paragraph and read ``[1, 2]`` as a link);
* cross-reference roles (``:class:`~risk_env.rules.state.GameState```, ``:func:`evaluate```,
  ``:meth:`Game.outcome <risk_env.rules.engine.Game.outcome>```) become code: the name as a
  reader would write it;
* definition lists (a term line, then its text indented under it, as in ``Design`` or
  ``Agents and turns``) become a bold term and a paragraph (Markdown would make the indented
  text a code block). Google sections are left as they are;
* a literal block's ``::`` marker becomes ``:`` (its indented block is already code in Markdown);
* parameters described together (``kl_coef, anneal_steps: kickstarting ...`` under ``Args:``) become
  one entry per name with the shared text (the Google parser reads the pair as one unknown name).

Used by mkdocs.yml (``extensions`` of the python handler); nothing in the package needs it.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const|term):`([^`]+)`")
_SECTIONS = {
    "args",
    "arguments",
    "params",
    "parameters",
    "keyword args",
    "keyword arguments",
    "other parameters",
    "returns",
    "return",
    "yields",
    "yield",
    "receives",
    "raises",
    "raise",
    "exceptions",
    "warns",
    "warnings",
    "attributes",
    "functions",
    "methods",
    "classes",
    "modules",
    "examples",
    "example",
    "note",
    "notes",
    "warning",
    "see also",
    "todo",
}


_PARAMETER_SECTIONS = {"args", "arguments", "params", "parameters", "keyword args", "keyword arguments", "other parameters"}
_GROUPED = re.compile(r"^([*\w]+(?:\s*,\s*[*\w]+)+)(\s*\([^)]*\))?:(\s.*)?$")


def _role(match: re.Match[str]) -> str:
    text = match.group(1).strip()
    if "<" in text and text.endswith(">"):  # :meth:`Title <target>`
        return f"`{text.split('<', 1)[0].strip()}`"
    if text.startswith("~"):  # :class:`~a.b.C` shows C
        return f"`{text.lstrip('~.').rsplit('.', 1)[-1]}`"
    return f"`{text.lstrip('.')}`"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _doctests(lines: list[str]) -> list[str]:
    """Runs of ``>>>`` lines (with their ``...`` continuations and output, up to a blank line) fenced."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            pad = " " * _indent(line)
            out.append(f"{pad}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append(f"{pad}```")
            continue
        out.append(line)
        i += 1
    return out


def _grouped_parameters(lines: list[str]) -> list[str]:
    """``a, b: text`` items of a parameter section as ``a: text`` and ``b: text`` (continuation lines with each)."""
    out: list[str] = []
    section: int | None = None  # the indent of the parameter section's heading, while inside one
    item: int | None = None  # the indent of its items
    i = 0
    while i < len(lines):
        line = lines[i]
        text, pad = line.strip(), _indent(line)
        if text and section is not None and pad <= section:
            section = item = None
        if text.endswith(":") and text[:-1].lower() in _PARAMETER_SECTIONS:
            section, item = pad, None
            out.append(line)
            i += 1
            continue
        if section is not None and text and item is None:
            item = pad
        grouped = _GROUPED.match(text) if section is not None and text and pad == item else None
        if grouped is None:
            out.append(line)
            i += 1
            continue
        body = [lines[i + 1 + k] for k in range(len(lines) - i - 1)]
        more = 0
        while more < len(body) and (not body[more].strip() or _indent(body[more]) > pad):
            more += 1
        while more and not body[more - 1].strip():  # trailing blank lines stay after the items
            more -= 1
        for name in (n.strip() for n in grouped.group(1).split(",")):
            out.append(f"{' ' * pad}{name}{grouped.group(2) or ''}:{grouped.group(3) or ''}")
            out.extend(body[:more])
        i += 1 + more
    return out


def _definitions(lines: list[str]) -> list[str]:
    """A term at the margin followed by text indented under it: the term in bold, the text dedented."""
    out: list[str] = []
    i = 0
    fence = False
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fence = not fence
        term = line.strip()
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        is_term = (
            not fence
            and term
            and _indent(line) == 0
            and not term.endswith("::")
            and term.rstrip(":").lower() not in _SECTIONS
            and _indent(nxt) > 0
            and nxt.strip()
            and (i == 0 or not lines[i - 1].strip())
        )
        if not is_term:
            out.append(line)
            i += 1
            continue
        body_indent = _indent(nxt)
        out.append(f"**{term.rstrip(':')}**")
        out.append("")
        i += 1
        while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) >= body_indent):
            out.append(lines[i][body_indent:] if lines[i].strip() else "")
            i += 1
    return out


def markdown_docstring(text: str) -> str:
    """``text`` (a docstring's value) with the reST habits above turned into Markdown.

    >>> markdown_docstring(":class:`~risk_env.rules.state.GameState` and :func:`risk_env.evaluate`")
    '`GameState` and `risk_env.evaluate`'
    """
    lines = _definitions(_doctests(_grouped_parameters(_ROLE.sub(_role, text).splitlines())))
    out = []
    for line in lines:
        if line.strip() == "::":
            continue
        out.append(line[:-1] if line.endswith("::") and not line.lstrip().startswith(">>>") else line)
    return "\n".join(out)


class ReSTHabits(griffe.Extension):
    """Rewrites every docstring with :func:`markdown_docstring` as griffe loads it."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)
