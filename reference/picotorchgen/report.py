"""``python -m picotorchgen parse PATH``: parse a ``native_functions.yaml`` or ``derivatives.yaml``, report how it went.

No PyTorch file is modelled here: this is the learner's window on ``model.py`` and ``load_derivatives.py``.
It reads picotorch's own YAML files or PyTorch's real ones (``aten/src/ATen/native/native_functions.yaml``,
``tools/autograd/derivatives.yaml``), tells which of the two a file is by its content, parses every entry
it can (a bad entry becomes a failure with its line, not the end of the run) and reports:

- :func:`parse_file` -> :class:`ParseReport`: one :class:`Entry` per parsed entry (name, overload, line,
  dispatch keys, tags, structured or delegating, whether a ``derivatives.yaml`` entry covers it) and the
  :class:`~picotorchgen.errors.ParseError` of each failed one; ``str()`` is what the command prints, its
  last line ``parsed N of M entries``;
- :meth:`ParseReport.summary` -> :class:`Summary`: ops per dispatch key, per tag, structured or not, with a
  derivative or not, the numbers the notebook charts.

A ``native_functions.yaml`` is paired with the ``derivatives.yaml`` beside it, as torchgen's
``match_differentiability_info`` pairs them: an op has a derivative when an entry has its exact schema, or,
for an in-place or out variant, when the entry of its out-of-place op has the same signature.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ParseError
from .load_derivatives import DifferentiabilityInfo, parse_derivatives_yaml
from .model import NativeFunction, parse_native_yaml

__all__ = ["Entry", "ParseReport", "Summary", "detect_kind", "parse_file"]

NATIVE = "native_functions"
DERIVATIVES = "derivatives"
SIBLING = {NATIVE: "derivatives.yaml", DERIVATIVES: "native_functions.yaml"}


@dataclass(frozen=True)
class Entry:
    """One parsed entry. For a ``derivatives.yaml`` entry, ``dispatch_keys`` are its formula sets
    (``Default``, ``AutogradNestedTensor``) and ``node`` its backward node (``MulBackward0``)."""

    name: str
    overload: str
    line: int
    kind: str  # functional, inplace, out, mutable, scratch
    dispatch_keys: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    structured: bool = False
    structured_delegate: str | None = None
    derivative: str | None = None  # 'exact', 'functional' (its out-of-place op's entry) or None
    node: str | None = None
    implied_composite: bool = False  # no ``dispatch:``, not structured: CompositeImplicitAutograd by default

    @property
    def has_derivative(self) -> bool:
        return self.derivative is not None


@dataclass
class Summary:
    """Counts over the parsed entries of one file (``Counter``s, most common first when printed)."""

    entries: int
    per_dispatch_key: Counter[str]
    per_tag: Counter[str]
    per_kind: Counter[str]
    structured: Counter[str]  # 'structured', 'structured_delegate', 'neither'
    derivatives: Counter[str]  # 'exact', 'functional', 'none'

    def __str__(self) -> str:
        sections = [("kind", self.per_kind), ("structured", self.structured), ("derivative", self.derivatives),
                    ("dispatch key", self.per_dispatch_key), ("tag", self.per_tag)]
        lines = [f"{self.entries} entries"]
        for title, counts in sections:
            if counts:
                lines.append(f"per {title}:")
                lines += [f"  {count:5d}  {key}" for key, count in counts.most_common()]
        return "\n".join(lines)


@dataclass
class ParseReport:
    """What parsing one file gave: the entries parsed, the failures, and how many entries there were."""

    path: str
    kind: str  # 'native_functions' or 'derivatives'
    entries: list[Entry]
    failures: list[ParseError]
    total: int
    paired_with: str | None = None
    objects: list = field(default_factory=list, repr=False)  # the NativeFunction / DifferentiabilityInfo

    @property
    def parsed(self) -> int:
        return len(self.entries)

    def summary(self) -> Summary:
        derivatives = Counter(e.derivative or "none" for e in self.entries) if self.paired_with else Counter()
        if self.kind == DERIVATIVES:
            derivatives = Counter("backward node" if e.node else "no node" for e in self.entries)
        return Summary(
            entries=self.parsed,
            per_dispatch_key=Counter(key for e in self.entries for key in _shown_keys(e)),
            per_tag=Counter(tag for e in self.entries for tag in e.tags),
            per_kind=Counter(e.kind for e in self.entries),
            structured=Counter(_structured(e) for e in self.entries) if self.kind == NATIVE else Counter(),
            derivatives=derivatives,
        )

    def __str__(self) -> str:
        return self.format()

    def format(self, summary: bool = False) -> str:
        """The command's output: what the file is, a few counts (all of them with ``summary``), each
        failure with its line, and last ``parsed N of M entries``."""
        lines = [f"{self.path}: a {self.kind}.yaml file"
                 + (f", paired with {self.paired_with}" if self.paired_with else "")]
        counts = self.summary()
        if summary:
            lines.append(str(counts))
        else:
            lines += [f"{title}: " + ", ".join(f"{k} {n}" for k, n in c.most_common())
                      for title, c in (("kinds", counts.per_kind), ("structured", counts.structured),
                                       ("derivatives", counts.derivatives)) if c]
        if self.failures:
            lines.append(f"{len(self.failures)} failures:")
            lines += [f"  line {e.line}: {e.problem}; expected {e.expected}" for e in self.failures]
        lines.append(f"parsed {self.parsed} of {self.total} entries")
        return "\n".join(lines)


def _shown_keys(e: Entry) -> tuple[str, ...]:
    return ("CompositeImplicitAutograd (no dispatch:)",) if e.implied_composite else e.dispatch_keys


def _structured(e: Entry) -> str:
    return "structured" if e.structured else "structured_delegate" if e.structured_delegate else "neither"


def detect_kind(text: str) -> str:
    """``native_functions`` when its entries start with ``- func:``, ``derivatives`` with ``- name:``."""
    funcs = len(re.findall(r"^- func:", text, re.MULTILINE))
    names = len(re.findall(r"^- name:", text, re.MULTILINE))
    return NATIVE if funcs >= names else DERIVATIVES


def parse_file(path: str | Path, pair_with: str | Path | None = None) -> ParseReport:
    """Parse a ``native_functions.yaml`` or ``derivatives.yaml`` (told apart by content), collecting failures.

    ``pair_with`` is the other file; by default the one of the other kind beside ``path``, if it exists.
    """
    path = Path(path)
    kind = detect_kind(path.read_text())
    other = Path(pair_with) if pair_with is not None else path.with_name(SIBLING[kind])
    other = other if other.exists() and other.resolve() != path.resolve() else None
    failures: list[ParseError] = []
    try:
        objects, entries = _parse(path, kind, other, failures)
    except ParseError as e:  # the whole file: a YAML syntax error, or no list at all
        total = len(re.findall(r"^- ", path.read_text(), re.MULTILINE))
        return ParseReport(str(path), kind, [], [e], total)
    return ParseReport(str(path), kind, entries, failures, len(entries) + len(failures),
                       str(other) if other else None, objects)


def _parse(path: Path, kind: str, other: Path | None, failures: list[ParseError]) -> tuple[list, list[Entry]]:
    if kind == NATIVE:
        functions = parse_native_yaml(path, failures)
        infos = parse_derivatives_yaml(other, failures=[]) if other else None
        return functions, [_native_entry(*paired) for paired in _with_derivatives(functions, infos)]
    schemas = {str(f.func) for f in parse_native_yaml(other, [])} if other else None
    infos = parse_derivatives_yaml(path, schemas, failures)
    return infos, [_derivatives_entry(i) for i in infos]


def _with_derivatives(functions: list[NativeFunction], infos: list[DifferentiabilityInfo] | None):
    """Each function with how a derivatives entry covers it (torchgen's ``find_info``, steps 1 and 2)."""
    if infos is None:
        return [(f, None, None) for f in functions]
    exact = {str(i.func): i for i in infos}
    functional = {i.func.signature(strip_default=True): i for i in infos if i.func.kind() == "functional"}
    out = []
    for f in functions:
        if "generated" in f.tags and f.func.kind() == "out":
            out.append((f, None, None))
        elif str(f.func) in exact:
            out.append((f, "exact", exact[str(f.func)]))
        elif not f.func.name.base.startswith("_foreach_") and f.func.signature(strip_default=True) in functional:
            out.append((f, "functional", functional[f.func.signature(strip_default=True)]))
        else:
            out.append((f, None, None))
    return out


def _native_entry(f: NativeFunction, how: str | None, info: DifferentiabilityInfo | None) -> Entry:
    return Entry(
        name=f.func.name.name, overload=f.func.name.overload_name, line=f.loc[1], kind=f.func.kind(),
        dispatch_keys=tuple(f.dispatch), tags=f.tags, structured=f.structured,
        structured_delegate=f.structured_delegate, derivative=how, node=info.op_name if info else None,
        implied_composite=not f.has_dispatch_entry and not f.structured and f.structured_delegate is None,
    )


def _derivatives_entry(info: DifferentiabilityInfo) -> Entry:
    return Entry(
        name=info.func.name.name, overload=info.func.name.overload_name, line=info.loc[1], kind=info.func.kind(),
        dispatch_keys=tuple(key for key, _ in info.dispatch_op_names), derivative="exact", node=info.op_name,
    )
