"""Templates with ``$name`` holes, filled from a dict: how every generated file is written.

Models ``torchgen/code_template.py`` (``CodeTemplate``). A generator keeps the text of its output as
a template at the top of its module, so a reader sees the shape of the generated code first and the
code that computes each hole after it. There are three ways to fill a hole:

1. **Inline**: ``$name`` or ``${name}`` inside a line becomes ``str(value)``; a list value becomes
   its items joined with ``", "``.

   >>> CodeTemplate("def $name(${args}):").substitute(name="add", args=["self", "other"])
   'def add(self, other):'

2. **Comma forms**: ``${,name}`` / ``${name,}`` join a list the same way and add a leading /
   trailing ``", "`` only when the list is not empty (for arguments appended to fixed ones); a
   value that is not a list always gets its comma, as in torchgen.

   >>> t = CodeTemplate("f(x${,rest})")
   >>> t.substitute(rest=["y", "z"]), t.substitute(rest=[])
   ('f(x, y, z)', 'f(x)')

3. **Blocks**: a hole alone on its line, after nothing but indentation, takes one line per line of
   its value (each item of a list, or each line of a string), every line at that indentation.

   >>> print(CodeTemplate('''\\
   ... if grad is not None:
   ...     ${body}
   ... return grad''').substitute(body=["a = 1", "b = 2"]))
   if grad is not None:
       a = 1
       b = 2
   return grad

Blank lines inside a block stay blank (no trailing indentation); an item ``""`` is a blank line.
A block whose list is empty takes its whole line away (torchgen leaves an empty line there), so a
template holds an optional section, such as a node's ``release_variables``, without a special case:

    >>> print(CodeTemplate('''\\
    ... class Node:
    ...     ${fields}
    ...     pass''').substitute(fields=[]))
    class Node:
        pass

Provenance. :meth:`CodeTemplate.substitute_traced` gives the same text as an :class:`Expansion` that
also says, for every output line, which template line produced it and which holes that line
filled (``python -m picotorchgen --explain OP`` prints it). Inside :func:`recording`, every
:meth:`~CodeTemplate.substitute` call is traced and kept, so the generators need no change to be
explained; outside it, ``substitute`` is the plain one-regex pass.

    >>> e = CodeTemplate("def $name():\\n    ${body}\\n").substitute_traced(name="f", body=["a", "b"])
    >>> [(o.template_line, o.holes, o.output) for o in e.lines]
    [(1, ('name',), 'def f():'), (2, ('body',), '    a'), (2, ('body',), '    b')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CodeTemplate", "Expansion", "LineOrigin", "recording"]

# A block hole alone on its line (group ``indent`` is its indentation), or an inline hole anywhere.
_HOLE = re.compile(
    r"""
    ^(?P<indent>[ \t]*) \$ (?: (?P<block>\w+) | \{(?P<braced_block>\w+)\} ) [ \t]* (?P<eol>\n|\Z)
    | \$ (?: (?P<name>\w+) | \{ (?P<before>,?) (?P<braced>\w+) (?P<after>,?) \} )
    """,
    re.MULTILINE | re.VERBOSE,
)


class CodeTemplate:
    """A text with ``$name`` holes; :meth:`substitute` fills them."""

    def __init__(self, pattern: str, filename: str = "") -> None:
        self.pattern = pattern
        self.filename = filename

    @staticmethod
    def from_file(filename: str | Path) -> CodeTemplate:
        return CodeTemplate(Path(filename).read_text(), str(filename))

    def substitute(self, env: Mapping[str, object] | None = None, **kwargs: object) -> str:
        """The text with every hole filled from ``kwargs``, then ``env`` (a missing name raises ``KeyError``)."""
        if _recorded is not None:
            return self.substitute_traced(env, **kwargs).text
        values = {**(env or {}), **kwargs}
        return _HOLE.sub(lambda hole: _fill(hole, values), self.pattern)

    def substitute_traced(self, env: Mapping[str, object] | None = None, **kwargs: object) -> Expansion:
        """:meth:`substitute`, line by line, keeping where each output line came from.

        No hole spans two lines, so filling each template line alone gives, joined, the same text.
        """
        values = {**(env or {}), **kwargs}
        expansion = Expansion(self, values, "", [])
        pieces = []
        for number, line in enumerate(self.pattern.splitlines(keepends=True), start=1):
            holes = list(_HOLE.finditer(line))
            names = tuple(hole["block"] or hole["braced_block"] or hole["name"] or hole["braced"] for hole in holes)
            text = _HOLE.sub(lambda hole: _fill(hole, values), line)
            pieces.append(text)
            items = _block_items(holes, values)
            expansion.lines += [LineOrigin(out, number, line.rstrip("\n"), names, items) for out in text.splitlines()]
            if not text:  # an empty block: the template line produced nothing
                expansion.empty.append(LineOrigin("", number, line.rstrip("\n"), names, items))
        expansion.text = "".join(pieces)
        if _recorded is not None:
            _recorded.append(expansion)
        return expansion


@dataclass(frozen=True)
class LineOrigin:
    """One output line and where it came from: template line ``template_line`` (1-based), whose text is
    ``source``, filling ``holes``; ``items`` is the value of a block hole, one entry per item."""

    output: str
    template_line: int
    source: str
    holes: tuple[str, ...]
    items: tuple[object, ...] = ()


@dataclass
class Expansion:
    """A filled template: its ``text`` and one :class:`LineOrigin` per line of it (``empty``: the
    template lines whose empty block took their line away)."""

    template: CodeTemplate
    values: dict[str, object]
    text: str
    lines: list[LineOrigin]
    empty: list[LineOrigin] = field(default_factory=list)


def _block_items(holes: list[re.Match[str]], values: Mapping[str, object]) -> tuple[object, ...]:
    block = next((hole for hole in holes if hole["indent"] is not None), None)
    if block is None:
        return ()
    value = values[block["block"] or block["braced_block"]]
    return tuple(value) if isinstance(value, list) else (value,)


# The expansions kept while :func:`recording` is active (None otherwise: substitute stays one regex pass).
_recorded: list[Expansion] | None = None


@contextmanager
def recording() -> Iterator[list[Expansion]]:
    """Trace and keep every substitution made inside the ``with`` block, in the order they were made."""
    global _recorded
    outer, _recorded = _recorded, []
    try:
        yield _recorded
    finally:
        _recorded = outer


def _fill(hole: re.Match[str], values: Mapping[str, object]) -> str:
    if hole["indent"] is not None:
        return _block(hole["indent"], values[hole["block"] or hole["braced_block"]], hole["eol"])
    value = values[hole["name"] or hole["braced"]]
    if isinstance(value, list) and not value:
        return ""
    before = ", " if hole["before"] else ""
    after = ", " if hole["after"] else ""
    middle = ", ".join(str(item) for item in value) if isinstance(value, list) else str(value)
    return before + middle + after


def _block(indent: str, value: object, eol: str) -> str:
    """Each line of each item at ``indent``; nothing at all (not even the newline) for no lines."""
    items = value if isinstance(value, list) else [value]
    lines = [(indent + line).rstrip() for item in items for line in str(item).splitlines() or [""]]
    return "\n".join(lines) + eol if lines else ""
