"""The grader: a chapter's exercises, its other tests and its notebook, each scored on its own.

``python -m picotorch_course grade --chapter 4 --impl exercises --json grade.json --junit grade.xml``

Each exercise runs in its own pytest process (a few at a time) with a per-test time limit (``--timeout``, default
10 s) and one for the whole exercise (max(60 s, 6 × timeout)), so a solution that hangs or crashes
the interpreter costs that exercise only. Then the chapter's unmarked tests, then its notebook(s)
under nbval (6 × timeout per test or cell, max(600 s, 60 × timeout) in all), against the learner's work with
every failed exercise put back to its stub: what reaches it fails at once, reported as "needs 2.2
first". Each failure names the learner's file and line, the exception, and a hint.

Results: a terminal table, JSON (with ``score``/``max_score``, for GitHub Classroom
style autograding) and JUnit XML. Exit status 0 only when everything passed.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path

from picotorch_course import _paths, checker, isolate, markers, prove, runner


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
    where: str = ""  # the learner's file:line (function) of the first failure
    hint: str = ""  # what the first failing test checks
    needs: list[str] = field(default_factory=list)  # failed exercises this item's failures reach


JOBS = min(4, os.cpu_count() or 1)  # pytest processes at a time (exercises, then tests and notebooks)


def chapter_limit(test_timeout: float) -> float:
    """The time limit of a chapter's other tests, or of one notebook, for a given per-test limit."""
    return max(600.0, 60.0 * test_timeout)


def chapter_test_limit(test_timeout: float) -> float:
    """The per-test (per-cell) limit of the chapter's other tests and notebooks: comparisons with
    PyTorch over many generated examples take longer than an exercise's test (16 s is seen)."""
    return 6.0 * test_timeout


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


def _item(name: str, kind: str, run: runner.Run, exercise: markers.Exercise | None = None) -> Item:
    passed, total = run.count("passed"), run.total
    skipped = run.count("skipped")
    failure = run.failure() if exercise is None else checker.failure_of(exercise, run)
    if run.died or run.timed_out or (run.problem and not run.tests):
        status = "error"
    elif run.returncode == 0 and (passed or skipped == total):
        status, failure = "pass", None
    else:
        status = "fail"
    message = ("all tests skipped" if total and skipped == total else "") if failure is None else _text(failure)
    return Item(name, kind, status, passed, total, message, round(run.seconds, 2),
                failure.where if failure else "", failure.hint if failure else "")


def _text(failure: runner.Failure) -> str:
    """The failure without its location and hint (the item has those as fields)."""
    return "\n".join(failure.summary())


def stub_reached(test: dict, failed: list[str]) -> str | None:
    """The failed exercise whose stub made ``test`` fail: raised, or caught and shown in an assertion."""
    if test["outcome"] not in ("failed", "error"):
        return None
    raised = prove.stub_error_id(test)
    if raised in failed:
        return raised
    shown = test.get("explanation") or ""
    return next((ex_id for ex_id in failed if f"Exercise {ex_id}: " in shown and "NotImplementedError" in shown), None)


def _needs(item: Item, run: runner.Run, failed: list[str]) -> Item:
    """Say "needs 2.2 first" when the item's first failure is the stub of an exercise that failed above."""
    first = next((t for t in run.tests if t["outcome"] in ("failed", "error")), None)
    if item.status == "pass" or first is None or stub_reached(first, failed) is None:
        return item
    hits = [ex_id for t in run.tests if (ex_id := stub_reached(t, failed)) is not None]
    item.needs = sorted(set(hits), key=markers.id_key)
    names = " and ".join([", ".join(item.needs[:-1]), item.needs[-1]] if len(item.needs) > 1 else item.needs)
    item.status = "fail"
    item.message = (
        f"needs {names} first: {len(hits)} of {item.total} {'cells' if item.kind == 'notebook' else 'tests'} "
        f"reach the code of exercise {names}, which failed above"
    )
    others = len([t for t in run.tests if t["outcome"] in ("failed", "error")]) - len(hits)
    if others:
        item.message += f"; {others} more {'fails' if others == 1 else 'fail'} for other reasons"
    item.where = ""
    item.hint = f"make exercise {names} pass (python -m picotorch_course check {item.needs[0]}), then grade again"
    return item


def grade_chapter(chapter: int, impl: str, timeout: float, with_notebooks: bool) -> list[Item]:
    """Grade one chapter: each exercise, then the other tests, then the notebook(s).

    ``timeout`` is the per-test limit. The other tests and the notebook run against the learner's
    work with every exercise that failed above put back to its stub (see :mod:`isolate`), so they
    fail at once with "needs 2.2 first" instead of hanging or crashing on it again.
    """
    todo = sorted(
        (ex for ex in markers.discover(_paths.reference_dir() / "picotorch").values() if ex.chapter == chapter),
        key=lambda e: markers.id_key(e.id),
    )
    runs = _in_parallel([lambda ex=ex: checker.run_exercise(ex.id, impl, timeout) for ex in todo])
    items, failed, broken = [], [], set()
    for ex, run in zip(todo, runs, strict=True):
        items.append(_item(f"exercise {ex.id}: {ex.task}", "exercise", run, ex))
        if items[-1].status != "pass":
            failed.append(ex.id)
            if (rel := checker.import_error_file(run)) is not None:
                broken.add(rel)
    limit, per_test = chapter_limit(timeout), chapter_test_limit(timeout)
    with _chapter_env(chapter, impl, failed, broken) as env:
        jobs = []
        dirs = [str(d) for d in checker.chapter_test_dirs(chapter)]
        if dirs:
            args = ["-q", "-m", "not exercise", *dirs]
            jobs.append((f"chapter {chapter:02d} tests", "tests", args))
        for nb in notebooks(chapter) if with_notebooks else []:
            args = ["-q", "--nbval", "--nbval-sanitize-with", str(_paths.sanitize_file()), str(nb)]
            jobs.append((f"notebook {nb.name}", "notebook", args))
        runs = _in_parallel([lambda a=args: runner.run_pytest(a, impl, limit, env, per_test) for *_, args in jobs])
    for (name, kind, _), run in zip(jobs, runs, strict=True):
        if kind != "tests" or run.returncode != 5:
            items.append(_needs(_item(name, kind, run), run, failed))
    return items


def _in_parallel(calls: list) -> list:
    """Results of ``calls`` (each starts one pytest process), a few at a time, in order."""
    workers = max(1, min(JOBS, len(calls)))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda call: call(), calls))


@contextlib.contextmanager
def _chapter_env(chapter: int, impl: str, failed: list[str], broken: set[str]):
    """Against the exercises: other chapters' unsolved exercises filled in, failed ones stubbed."""
    if impl != "exercises":
        yield {}
        return
    with isolate.learner_tree(lambda ex: ex.chapter == chapter, stubbed=failed, replace=broken) as tree:
        yield isolate.env_for(tree)


def grade(
    chapter: int | None, impl: str, timeout: float = checker.DEFAULT_TIMEOUT, with_notebooks: bool = True
) -> list[Item]:
    """Grade one chapter, or every chapter when ``chapter`` is None; ``timeout`` is per test."""
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
            first, *rest = i.message.splitlines()
            lines += [f"   {i.status}: {first}", *[f"     {line}" for line in rest]]
        if i.where and i.where not in i.message:
            lines.append(f"     at {i.where}")
        if i.hint:
            lines.append(f"     hint: {i.hint}")
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
            detail = "\n".join([i.message] + [f"at {i.where}"] * bool(i.where) + [f"hint: {i.hint}"] * bool(i.hint))
            ET.SubElement(case, tag, message=i.message.splitlines()[0] if i.message else "").text = detail
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
