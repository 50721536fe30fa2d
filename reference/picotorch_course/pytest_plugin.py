"""The course's pytest plugin: the ``exercise`` marker, the implementation switch, result reports.

Register it with ``pytest_plugins = ["picotorch_course.pytest_plugin"]`` in ``tests/conftest.py``
(the grader also passes ``-p picotorch_course.pytest_plugin``). Mark a test with the exercise it
checks::

    @pytest.mark.exercise("4.2")
    def test_dependencies_are_counted(): ...

An id that no ``# BEGIN SOLUTION`` marker of the reference declares stops collection with an error.

Options: ``--exercise-id ID`` (repeatable) keeps only the tests of those exercises;
``--exercise-report FILE`` writes every test's outcome, exercise id and exception (type and
message, following ``__cause__``/``__context__``) as JSON, for the proof, the grader and ``check``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from picotorch_course import _paths, _switch, markers


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("picotorch", "picotorch course")
    group.addoption(
        "--exercise-id",
        action="append",
        default=[],
        metavar="ID",
        help="run only the tests marked @pytest.mark.exercise(ID)",
    )
    group.addoption(
        "--exercise-report",
        metavar="FILE",
        default=None,
        help="write per-test outcomes with exercise ids and exceptions as JSON",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "exercise(id): the test checks exercise `id`, e.g. '4.2'")
    try:
        _switch.requested()
    except _switch.ImplementationError as err:
        raise pytest.UsageError(str(err)) from None
    _switch.apply()
    path = config.getoption("exercise_report")
    if path and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Recorder(path), "picotorch-exercise-report")


def pytest_report_header(config: pytest.Config) -> str:
    from picotorch_course import implementation

    impl = implementation()
    return f"picotorch implementation: {impl.name} ({impl.path})"


def known_exercises() -> dict[str, markers.Exercise]:
    """The exercises the reference declares; a malformed marker becomes a usage error."""
    try:
        return markers.discover(_paths.reference_dir() / "picotorch")
    except markers.MarkerError as err:
        raise pytest.UsageError(f"bad exercise marker in the reference: {err}") from None


def exercise_id(item: pytest.Item) -> str | None:
    """The id in the item's ``exercise`` marker, or None; several different ids are an error."""
    ids = {str(arg) for mark in item.iter_markers("exercise") for arg in mark.args}
    bad_shape = any(len(mark.args) != 1 for mark in item.iter_markers("exercise"))
    if bad_shape or len(ids) > 1:
        raise pytest.UsageError(
            f"{item.nodeid}: use exactly one exercise id per test, e.g. @pytest.mark.exercise('4.2')"
        )
    return ids.pop() if ids else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    marked = {item.nodeid: exercise_id(item) for item in items}
    if any(marked.values()):
        known = known_exercises()
        unknown = [f"  {nodeid}: {ex}" for nodeid, ex in marked.items() if ex and ex not in known]
        if unknown:
            raise pytest.UsageError(
                "tests marked with exercise ids that no '# BEGIN SOLUTION <id>: <task>' marker "
                f"in {_paths.reference_dir() / 'picotorch'} declares:\n"
                + "\n".join(unknown)
                + f"\nknown ids: {', '.join(sorted(known, key=markers.id_key)) or '(none)'}"
            )
    wanted = set(config.getoption("exercise_id"))
    if wanted:
        keep = [item for item in items if marked[item.nodeid] in wanted]
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep


def _exception_chain(excinfo: pytest.ExceptionInfo) -> list[dict]:
    """The exception and its causes/contexts, innermost last: type name and message of each."""
    chain, exc, seen = [], excinfo.value, set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append({"type": type(exc).__name__, "message": str(exc)})
        exc = exc.__cause__ or exc.__context__
    return chain


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    extra = [("exercise", exercise_id(item))]
    if call.excinfo is not None and not call.excinfo.errisinstance(pytest.skip.Exception):
        extra.append(("exceptions", _exception_chain(call.excinfo)))
    report.user_properties = list(report.user_properties) + extra


class _Recorder:
    """Collects every test's outcome (on the controller, also under xdist) and writes the JSON."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.tests: dict[str, dict] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        entry = self.tests.setdefault(
            report.nodeid,
            {
                "nodeid": report.nodeid,
                "outcome": "passed",
                "exercise": props.get("exercise"),
                "exceptions": [],
                "message": "",
            },
        )
        if report.failed:
            entry["outcome"] = "failed" if report.when == "call" else "error"
            entry["exceptions"] = entry["exceptions"] or props.get("exceptions", [])
            entry["message"] = entry["message"] or _first_line(report)
        elif report.skipped and entry["outcome"] == "passed":
            entry["outcome"] = "skipped"

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.tests[report.nodeid or "<collection>"] = {
                "nodeid": report.nodeid,
                "outcome": "error",
                "exercise": None,
                "exceptions": [],
                "message": _first_line(report),
            }

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        body = {"exitstatus": int(exitstatus), "tests": list(self.tests.values())}
        Path(self.path).write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")


def _first_line(report) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr or "")
    return text.strip().splitlines()[0] if text.strip() else ""
