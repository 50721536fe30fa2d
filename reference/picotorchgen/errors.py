"""What the generator says when its input is wrong: the file, the line, the entry, what was expected.

torchgen stops on bad input with an ``AssertionError`` whose text names the entry (``with context(...)``
in ``torchgen/gen.py`` prefixes "in native_functions.yaml line N:"). We keep that contract and make it a
type: every problem with the YAML files, their schemas or their formulas raises a :class:`GenerationError`,
whose message is one paragraph a learner can act on, and ``python -m picotorchgen`` prints that paragraph
and exits with status 1 instead of a stack trace.

- :class:`SchemaError`: a schema string is malformed (raised by ``model.py`` without knowing the file);
- :class:`ParseError`: an entry of a YAML file is wrong, with ``path``, ``line``, ``entry`` and ``expected``
  (a YAML syntax error is re-raised as one, at the line the YAML parser points to).

They subclass ``ValueError``, what the grammar raised before they existed.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["GenerationError", "ParseError", "SchemaError", "describe_entry"]


class GenerationError(ValueError):
    """Input the generator cannot turn into code; ``str()`` is the whole, one-paragraph explanation."""


class SchemaError(GenerationError):
    """A malformed schema string: ``problem`` says what is wrong, ``expected`` what would be right."""

    def __init__(self, problem: str, expected: str, schema: str | None = None) -> None:
        self.problem = problem
        self.expected = expected
        self.schema = schema
        in_schema = "" if schema is None else f" (in schema {schema!r})"
        super().__init__(f"{problem}{in_schema}; expected {expected}")


class ParseError(GenerationError):
    """A bad entry of a YAML file: ``path:line: problem; expected ... (entry: ...)``."""

    def __init__(self, path: str | Path, line: int | None, problem: str, expected: str,
                 entry: str | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        self.expected = expected
        self.entry = entry
        where = self.path if line is None else f"{self.path}:{line}"
        text = f"{where}: {problem}; expected {expected}."
        if entry is not None:
            text += f" The entry: {entry}"
        super().__init__(text)


def describe_entry(entry: object, key: str) -> str:
    """How a message shows an entry: its ``func:``/``name:`` line, else the start of the mapping."""
    if isinstance(entry, dict) and isinstance(entry.get(key), str):
        return f"{key}: {entry[key]}"
    text = repr(entry)
    return text if len(text) <= 100 else text[:97] + "..."
