"""Finding a learner's solutions in their copy of a file, and putting them into another copy.

A generated file has one stub line where each exercise was::

    raise NotImplementedError("Exercise 2.2: walk the graph breadth-first ...")

(in ``native_functions.yaml`` and ``derivatives.yaml`` it is a comment, ``# Exercise 5.3: ...``).
A learner replaces that line with their own lines. Comparing the file *as generated* (the base) with
the learner's file line by line (``difflib``) shows, for every stub line, what the learner put there:
their *body* (for a comment stub in a YAML file, which may stay, also the lines written right next
to it). Everything else should be unchanged; any other difference is an edit *outside* the
exercises (a new import, a helper function, a deleted line), reported by line number.

Three tools build on this:

- updating the course: take the new generated file and put the learner's bodies back into it;
- grading: put a failed exercise's stub back, so other tests fail fast with "needs 2.2 first";
- progress: an exercise whose stub line is still there is not solved yet.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

_STUB = re.compile(
    r'^[ \t]*(?:raise NotImplementedError\("Exercise (?P<id>\d+(?:\.\d+)+): .*"\)'
    r"|# Exercise (?P<data_id>\d+(?:\.\d+)+): .*)\s*$"
)


@dataclass
class Extracted:
    """What a learner did to a generated file."""

    bodies: dict[str, list[str]] = field(default_factory=dict)  # id -> lines where the stub was
    outside: list[int] = field(default_factory=list)  # 1-based learner lines edited outside any stub

    def solved(self, stub_lines: dict[str, str]) -> list[str]:
        """Ids whose stub line the learner replaced (``stub_lines``: id -> the stub line)."""
        return [ex_id for ex_id, body in self.bodies.items() if body != [stub_lines.get(ex_id)]]


def stub_id(line: str) -> str | None:
    """The exercise id if ``line`` is a generated stub line, else None."""
    match = _STUB.match(line)
    return (match["id"] or match["data_id"]) if match else None


def stub_ids(text: str) -> dict[str, int]:
    """Exercise id -> 0-based index of its stub line in a generated file."""
    found = {}
    for index, line in enumerate(text.splitlines(keepends=True)):
        ex_id = stub_id(line)
        if ex_id is not None:
            found[ex_id] = index
    return found


def learner_bodies(base: str, learner: str) -> Extracted:
    """Compare the generated ``base`` with the ``learner``'s file; see the module docstring."""
    old, new = base.splitlines(keepends=True), learner.splitlines(keepends=True)
    stubs = {index: ex_id for ex_id, index in stub_ids(base).items()}
    found = Extracted({ex_id: [old[index]] for index, ex_id in stubs.items()})
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        inside = [i for i in range(i1, i2) if i in stubs]
        beside = _comment_stub_beside(tag, i1, stubs, old)
        if beside is not None:  # lines written just below (or above) a comment stub that the learner kept
            ex_id = stubs[beside]
            body = found.bodies[ex_id]
            found.bodies[ex_id] = body + new[j1:j2] if beside < i1 else new[j1:j2] + body
        elif len(inside) == 1:
            found.bodies[stubs[inside[0]]] = new[j1:j2]
            if i2 - i1 > 1:  # the learner also removed lines next to the stub
                found.outside.append(j1 + 1)
        else:
            found.outside.extend(range(j1 + 1, j2 + 1) if j2 > j1 else [j1 + 1])
    return found


def _comment_stub_beside(tag: str, at: int, stubs: dict[int, str], old: list[str]) -> int | None:
    """For lines inserted at ``at``: the index of the YAML comment stub just above or below (blank lines
    between allowed), if any.

    A comment stub may stay where it is (it is a comment), so what the learner writes next to it is
    that exercise's body too. A ``raise`` stub must go: lines beside it are not its body.
    """
    if tag != "insert":
        return None
    above, below = at - 1, at
    while above >= 0 and not old[above].strip():  # blank lines between do not count
        above -= 1
    while below < len(old) and not old[below].strip():
        below += 1
    for index in (above, below):
        if index in stubs and (match := _STUB.match(old[index])) and match["data_id"]:
            return index
    return None


def put_bodies(generated: str, bodies: dict[str, list[str]]) -> str:
    """``generated`` with the stub line of every exercise in ``bodies`` replaced by its body."""
    out = []
    for line in generated.splitlines(keepends=True):
        ex_id = stub_id(line)
        if ex_id is not None and ex_id in bodies:
            body = list(bodies[ex_id])
            if body and not body[-1].endswith("\n"):
                body[-1] += "\n"
            out.extend(body)
        else:
            out.append(line)
    return "".join(out)
