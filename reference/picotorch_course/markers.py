"""Finding the exercise blocks in the reference implementation.

An exercise is a block of the reference between two marker comments (nbgrader's convention)::

    # BEGIN SOLUTION 4.2: compute the dependency count of every node
    ...the solution...
    # END SOLUTION

The id (``4.2``: chapter 4, exercise 2) and the one-line task after the colon are required. Blocks
do not nest. Every id is unique across the Python files of the package.

A block may also sit in the operator files ``native_functions.yaml`` and ``derivatives.yaml`` (the
same markers: they are YAML comments too). There the learner writes data, not code, so the stub is a
comment telling what to write, ``# Exercise 5.3: <task>``, instead of a ``raise``; and one exercise
may have a block in each of them (an op's schema and its derivative formula are one task), besides
at most one Python block (its kernel, stubbed with the usual ``raise``). The exercise is its first
block (the Python one, else the one in ``native_functions.yaml``); its other blocks are in ``more``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

BEGIN = "BEGIN SOLUTION"
DATA_SUFFIXES = frozenset({".yaml"})
END = "END SOLUTION"
_BEGIN_RE = re.compile(
    r"^(?P<indent>[ \t]*)#\s*BEGIN SOLUTION[ \t]+(?P<id>\d+(?:\.\d+)+)[ \t]*:[ \t]*(?P<task>\S.*?)\s*$"
)
_END_RE = re.compile(r"^[ \t]*#\s*END SOLUTION\s*$")
_ANY_RE = re.compile(r"#\s*(BEGIN|END) SOLUTION\b")


class MarkerError(ValueError):
    """A malformed exercise marker; the message starts with ``file:line:``."""


@dataclass(frozen=True)
class Exercise:
    """One solution block: where it is, its id and task, and the lines it spans (1-based, inclusive)."""

    id: str
    task: str
    path: Path
    begin: int
    end: int
    indent: str
    more: tuple[Exercise, ...] = ()  # its further blocks, in YAML files (an op's entry and formula)

    @property
    def blocks(self) -> tuple[Exercise, ...]:
        """Every block of this exercise: this one, then ``more``."""
        return (self, *self.more)

    @property
    def in_data(self) -> bool:
        """Whether the block is in a YAML file (its stub is a comment)."""
        return self.path.suffix in DATA_SUFFIXES

    @property
    def chapter(self) -> int:
        return int(self.id.split(".")[0])

    @property
    def stub(self) -> str:
        """The line that replaces the block in the exercises."""
        if self.in_data:
            return f"{self.indent}# {self.message}\n"
        return f"{self.indent}raise NotImplementedError({_quote(self.message)})\n"

    @property
    def message(self) -> str:
        return f"Exercise {self.id}: {self.task}"


def _quote(text: str) -> str:
    """A double-quoted Python string literal for ``text``."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_lines(lines: list[str], path: Path) -> list[Exercise]:
    """The exercise blocks in one file's lines; raises MarkerError on a malformed marker."""
    found: list[Exercise] = []
    open_at: re.Match | None = None
    start = 0
    for number, line in enumerate(lines, 1):
        if not _ANY_RE.search(line):
            continue
        where = f"{path}:{number}"
        if _END_RE.match(line):
            if open_at is None:
                raise MarkerError(f"{where}: '# {END}' without a matching '# {BEGIN}'")
            found.append(_exercise(open_at, path, start, number))
            open_at = None
            continue
        begin = _BEGIN_RE.match(line)
        if begin is None:
            raise MarkerError(
                f"{where}: malformed marker {line.strip()!r}; expected "
                f"'# {BEGIN} <id>: <one-line task>' (e.g. '# {BEGIN} 4.2: count dependencies') "
                f"or '# {END}'"
            )
        if open_at is not None:
            raise MarkerError(f"{where}: '# {BEGIN}' inside the block opened at line {start}")
        open_at, start = begin, number
    if open_at is not None:
        raise MarkerError(f"{path}:{start}: '# {BEGIN} {open_at['id']}' is never closed")
    return found


def _exercise(match: re.Match, path: Path, begin: int, end: int) -> Exercise:
    return Exercise(match["id"], match["task"], path, begin, end, match["indent"])


def python_files(package: Path) -> list[Path]:
    """The package's ``.py`` files, sorted, without caches."""
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def data_files(package: Path) -> list[Path]:
    """The package's YAML files, ``native_functions.yaml`` first (an op's schema comes before its formula)."""
    found = (p for p in package.rglob("*") if p.suffix in DATA_SUFFIXES and p.is_file())
    return sorted(found, key=lambda p: (p.name != "native_functions.yaml", p))


def exercise_files(package: Path) -> list[Path]:
    """Every file that may hold a solution block: the Python files, then the YAML files."""
    return python_files(package) + data_files(package)


def discover(package: Path) -> dict[str, Exercise]:
    """All exercises of a package, by id; raises MarkerError on malformed or duplicate markers."""
    exercises: dict[str, Exercise] = {}
    for path in exercise_files(package):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        for ex in parse_lines(lines, path):
            first = exercises.get(ex.id)
            if first is None:
                exercises[ex.id] = ex
            elif ex.in_data and all(b.path != ex.path for b in first.blocks):
                exercises[ex.id] = replace(first, more=(*first.more, ex))
            else:
                raise MarkerError(
                    f"{ex.path}:{ex.begin}: duplicate exercise id {ex.id} (first used at "
                    f"{first.path}:{first.begin}); an id may have one Python block and a block in "
                    "each YAML file, no more"
                )
    return exercises


def strip_solutions(text: str, path: Path, keep: frozenset[str] | None = None) -> str:
    """``text`` with every solution block replaced by its stub (blocks whose id is in ``keep`` stay)."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    position = 0
    for ex in parse_lines(lines, path):
        out.extend(lines[position : ex.begin - 1])
        if keep is not None and ex.id in keep:
            out.extend(lines[ex.begin : ex.end - 1])
        else:
            out.append(ex.stub)
        position = ex.end
    out.extend(lines[position:])
    return "".join(out)


def id_key(exercise_id: str) -> tuple[int, ...]:
    """Sort key that puts 4.10 after 4.9."""
    return tuple(int(part) for part in exercise_id.split("."))
