"""The exercise proof that CI runs: every exercise is tested, its tests pass on the reference and
fail on the stub with that exercise's own ``NotImplementedError``.

1. Run all ``@pytest.mark.exercise`` tests against the reference: all must pass.
2. Run them against ``exercises/`` (every exercise stubbed): each must fail with a
   ``NotImplementedError("Exercise <its id>: ...")``.
3. A test that first trips over *another* exercise's stub (it needs an earlier chapter's work) is
   run again against a tree where only its own exercise is stubbed; there it must fail with its own.
4. Every exercise id needs at least one test.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from picotorch_course import _paths, generate, markers, runner


@dataclass
class Row:
    """The proof's findings for one exercise."""

    exercise: markers.Exercise
    tests: int = 0
    reference_failures: list[str] = field(default_factory=list)
    stub_failures: list[str] = field(default_factory=list)
    isolated: int = 0

    @property
    def ok(self) -> bool:
        return self.tests > 0 and not self.reference_failures and not self.stub_failures


def stub_error_id(test: dict) -> str | None:
    """The id of the exercise whose ``NotImplementedError`` failed this test, if any."""
    if test["outcome"] not in ("failed", "error"):
        return None
    for exc in test.get("exceptions") or []:
        message = exc["message"]
        if exc["type"] == "NotImplementedError" and message.startswith("Exercise "):
            return message[len("Exercise ") :].split(":", 1)[0]
    return None


def prove(timeout: float = 900.0) -> tuple[bool, list[Row], list[str]]:
    """Run the proof; returns (ok, rows, problems that concern no single exercise).

    The stubs come from a fresh generation into a temporary folder, never from the learner's
    ``exercises/``: a learner's edits must not change what the course proves.
    """
    reference = _paths.reference_dir()
    exercises = markers.discover(reference / "picotorch")
    rows = {ex_id: Row(ex) for ex_id, ex in exercises.items()}
    args = ["-q", "-m", "exercise", str(_paths.tests_dir())]
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="picotorch-stubs-") as tmp:
        generate.write_tree(generate.expected_files(reference), Path(tmp))
        ref_run = runner.run_pytest(args, "reference", timeout)
        stub_run = runner.run_pytest(args, "exercises", timeout, {"PICOTORCH_EXERCISES_DIR": tmp})
    for run, name in ((ref_run, "reference"), (stub_run, "exercises")):
        if run.problem and not (run.returncode == 1 and run.tests):
            problems.append(f"{name} run: {run.problem}")
    _score_reference(rows, ref_run.tests)
    retry = _score_stubs(rows, stub_run.tests)
    for ex_id, nodeids in retry.items():
        _isolated(rows[ex_id], nodeids, exercises, timeout)
    ok = not problems and all(row.ok for row in rows.values())
    return ok, [rows[k] for k in sorted(rows, key=markers.id_key)], problems


def _score_reference(rows: dict[str, Row], tests: list[dict]) -> None:
    for test in tests:
        row = rows.get(test.get("exercise") or "")
        if row is None:
            continue
        row.tests += 1
        if test["outcome"] != "passed":
            row.reference_failures.append(f"{test['nodeid']}: {test['outcome']} {test['message']}")


def _score_stubs(rows: dict[str, Row], tests: list[dict]) -> dict[str, list[str]]:
    """Record stub results; return the tests to re-run in isolation, by exercise id."""
    retry: dict[str, list[str]] = {}
    for test in tests:
        ex_id = test.get("exercise")
        if ex_id not in rows:
            continue
        hit = stub_error_id(test)
        if hit == ex_id:
            continue
        if hit is not None:
            retry.setdefault(ex_id, []).append(test["nodeid"])
        else:
            rows[ex_id].stub_failures.append(_stub_complaint(test))
    return retry


def _stub_complaint(test: dict) -> str:
    if test["outcome"] == "passed":
        return f"{test['nodeid']}: passes on the stub"
    return f"{test['nodeid']}: {runner.first_failure([test]).split(': ', 1)[-1]}"


def _isolated(row: Row, nodeids: list[str], exercises: dict, timeout: float) -> None:
    """Re-run ``nodeids`` against a tree where only ``row``'s exercise is stubbed."""
    keep = frozenset(exercises) - {row.exercise.id}
    files = generate.expected_files(_paths.reference_dir(), keep)
    with tempfile.TemporaryDirectory(prefix="picotorch-prove-") as tmp:
        generate.write_tree(files, Path(tmp))
        run = runner.run_pytest(
            ["-q", *nodeids], "exercises", timeout, {"PICOTORCH_EXERCISES_DIR": tmp}
        )
    by_id = {t["nodeid"]: t for t in run.tests}
    for nodeid in nodeids:
        test = by_id.get(nodeid)
        if test is None:
            row.stub_failures.append(f"{nodeid}: did not run in isolation ({run.problem})")
        elif stub_error_id(test) != row.exercise.id:
            row.stub_failures.append(_stub_complaint(test) + " (only this exercise stubbed)")
        else:
            row.isolated += 1


def table(rows: list[Row]) -> str:
    """The proof as a text table, one line per exercise, then the details of every failure."""
    lines = [f"{'exercise':<9} {'tests':>5}  {'reference':<10} {'stub':<10} task"]
    for row in rows:
        ref = "—" if not row.tests else ("pass" if not row.reference_failures else "FAIL")
        stub = "—" if not row.tests else ("raises" if not row.stub_failures else "FAIL")
        mark = "✅" if row.ok else "❌"
        lines.append(
            f"{row.exercise.id:<9} {row.tests:>5}  {ref:<10} {stub:<10} {mark} {row.exercise.task}"
        )
    for row in rows:
        if not row.tests:
            lines.append(
                f"  {row.exercise.id}: no test is marked @pytest.mark.exercise({row.exercise.id!r})"
            )
        lines += [f"  {row.exercise.id} reference: {m}" for m in row.reference_failures]
        lines += [f"  {row.exercise.id} stub: {m}" for m in row.stub_failures]
    return "\n".join(lines)
