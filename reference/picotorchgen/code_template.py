"""Templates with ``$name`` holes, filled from a dict: how every generated file is written.

Models ``torchgen/code_template.py`` (``CodeTemplate``). A generator keeps the text of its output as
a template at the top of its module, so a reader sees the shape of the generated code first and the
code that computes each hole after it. There are three ways to fill a hole:

1. **Inline**: ``$name`` or ``${name}`` inside a line becomes ``str(value)``; a list value becomes
   its items joined with ``", "``.

   >>> CodeTemplate("def $name(${args}):").substitute(name="add", args=["self", "other"])
   'def add(self, other):'

2. **Comma forms**: ``${,name}`` / ``${name,}`` join a list the same way and add a leading /
   trailing ``", "`` only when the list is not empty (for arguments appended to fixed ones).

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
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

__all__ = ["CodeTemplate"]

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
        values = {**(env or {}), **kwargs}
        return _HOLE.sub(lambda hole: _fill(hole, values), self.pattern)


def _fill(hole: re.Match[str], values: Mapping[str, object]) -> str:
    if hole["indent"] is not None:
        return _block(hole["indent"], values[hole["block"] or hole["braced_block"]], hole["eol"])
    value = values[hole["name"] or hole["braced"]]
    if not isinstance(value, list):
        return str(value)
    if not value:
        return ""
    before = ", " if hole["before"] else ""
    after = ", " if hole["after"] else ""
    return before + ", ".join(str(item) for item in value) + after


def _block(indent: str, value: object, eol: str) -> str:
    """Each line of each item at ``indent``; nothing at all (not even the newline) for no lines."""
    items = value if isinstance(value, list) else [value]
    lines = [(indent + line).rstrip() for item in items for line in str(item).splitlines() or [""]]
    return "\n".join(lines) + eol if lines else ""
