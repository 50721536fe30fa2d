"""The grader: a chapter's exercises, its other tests and its notebook, each scored on its own.

``python -m picotorch_course grade --chapter 4 --impl exercises --json grade.json --junit grade.xml``

Each exercise runs in its own pytest process with a time limit, so a solution that hangs or crashes
the interpreter costs that exercise only. Then the chapter's unmarked tests, then its notebook(s)
under nbval. Results: a terminal table, JSON (with ``score``/``max_score``, for GitHub Classroom
style autograding) and JUnit XML. Exit status 0 only when everything passed.
"""

from __future__ import annotations

import contextlib
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass
from pathlib import Path

from picotorch_course import _paths, checker, isolate, markers, runner


@dataclass
class Item:
    """One graded line: an exercise, a chapter's other tests, or a notebook."""

    name: str
    kind: str
    status: str  # pass | fail | error
    passed: int
    total: int
    message: str
    seconds: float


def chapters() -> list[int]:
    """Chapters that have a tests folder or a notebook."""
    found = {
        int(m[1])
        for p in _paths.tests_dir().glob("ch*_*")
        if p.is_dir() and (m := re.match(r"ch(\d+)_", p.name))
    }
    found |= {
        int(m[1])
        for p in _paths.notebooks_dir().glob("*.ipynb")
        if (m := re.match(r"(\d+)_", p.name))
    }
    return sorted(found)


def notebooks(chapter: int) -> list[Path]:
    return sorted(_paths.notebooks_dir().glob(f"{chapter:02d}_*.ipynb"))


def _item(name: str, kind: str, run: runner.Run) -> Item:
    passed, total = run.count("passed"), len(run.tests)
    skipped = run.count("skipped")
    if run.problem and not (run.returncode == 1 and run.tests):
        status, message = "error", run.problem
    elif run.returncode == 0 and passed:
        status, message = "pass", ""
    elif run.returncode == 0 and skipped == total:
        status, message = "pass", "all tests skipped"
    else:
        status, message = "fail", runner.first_failure(run.tests)
    return Item(name, kind, status, passed, total, message, round(run.seconds, 2))


def grade_chapter(chapter: int, impl: str, timeout: float, with_notebooks: bool) -> list[Item]:
    """Grade one chapter: each exercise, then the other tests, then the notebook(s)."""
    exercises = markers.discover(_paths.reference_dir() / "picotorch")
    items = []
    for ex in sorted(exercises.values(), key=lambda e: markers.id_key(e.id)):
        if ex.chapter == chapter:
            run = checker.run_exercise(ex.id, impl, timeout)
            items.append(_item(f"exercise {ex.id}: {ex.task}", "exercise", run))
    with _chapter_env(chapter, impl) as env:
        dirs = [str(d) for d in checker.chapter_test_dirs(chapter)]
        if dirs:
            run = runner.run_pytest(["-q", "-m", "not exercise", *dirs], impl, timeout, env)
            if run.returncode != 5:
                items.append(_item(f"chapter {chapter:02d} tests", "tests", run))
        for nb in notebooks(chapter) if with_notebooks else []:
            args = ["-q", "--nbval", "--nbval-sanitize-with", str(_paths.sanitize_file()), str(nb)]
            items.append(
                _item(f"notebook {nb.name}", "notebook", runner.run_pytest(args, impl, timeout, env))
            )
    return items


@contextlib.contextmanager
def _chapter_env(chapter: int, impl: str):
    """Against the exercises: other chapters' unsolved exercises filled in (see isolate.py)."""
    if impl != "exercises":
        yield {}
        return
    with isolate.learner_tree(lambda ex: ex.chapter == chapter) as tree:
        yield isolate.env_for(tree)


def grade(
    chapter: int | None, impl: str, timeout: float = 300.0, with_notebooks: bool = True
) -> list[Item]:
    """Grade one chapter, or every chapter when ``chapter`` is None."""
    todo = [chapter] if chapter is not None else chapters()
    return [item for ch in todo for item in grade_chapter(ch, impl, timeout, with_notebooks)]


def table(items: list[Item]) -> str:
    marks = {"pass": "✅", "fail": "❌", "error": "💥"}
    width = max([len(i.name) for i in items] + [4])
    lines = [f"{'':2} {'item':<{width}}  {'tests':>7}  {'time':>7}"]
    for i in items:
        lines.append(
            f"{marks[i.status]} {i.name:<{width}}  {i.passed:>3}/{i.total:<3}  {i.seconds:>6.1f}s"
        )
        if i.message:
            lines.append(f"   {i.status}: {i.message}")
    score = sum(i.status == "pass" for i in items)
    lines.append(f"score: {score}/{len(items)}")
    return "\n".join(lines)


def to_json(items: list[Item], impl: str, chapter: int | None) -> dict:
    return {
        "implementation": impl,
        "chapter": chapter,
        "score": sum(i.status == "pass" for i in items),
        "max_score": len(items),
        "results": [asdict(i) for i in items],
    }


def to_junit(items: list[Item], impl: str) -> ET.ElementTree:
    suite = ET.Element(
        "testsuite",
        name=f"picotorch-grade-{impl}",
        tests=str(len(items)),
        failures=str(sum(i.status == "fail" for i in items)),
        errors=str(sum(i.status == "error" for i in items)),
        time=f"{sum(i.seconds for i in items):.2f}",
    )
    for i in items:
        case = ET.SubElement(
            suite, "testcase", classname=f"picotorch.{i.kind}", name=i.name, time=f"{i.seconds:.2f}"
        )
        if i.status != "pass":
            tag = "failure" if i.status == "fail" else "error"
            ET.SubElement(case, tag, message=i.message).text = i.message
    ET.indent(suite)
    return ET.ElementTree(suite)


def write_reports(
    items: list[Item], impl: str, chapter: int | None, json_path: str | None, junit_path: str | None
) -> None:
    if json_path:
        body = json.dumps(to_json(items, impl, chapter), indent=1, ensure_ascii=False)
        Path(json_path).write_text(body + "\n", encoding="utf-8")
    if junit_path:
        to_junit(items, impl).write(junit_path, encoding="utf-8", xml_declaration=True)
