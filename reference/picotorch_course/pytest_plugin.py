"""The course's pytest plugin: the ``exercise`` marker, the implementation switch, per-test time
limits, and result reports that point at the learner's code.

Register it with ``pytest_plugins = ["picotorch_course.pytest_plugin"]`` in ``tests/conftest.py``
(the grader also passes ``-p picotorch_course.pytest_plugin``). Mark a test with the exercise it
checks, and say in the first line of its docstring what it checks (that line is the hint a learner
sees when the test fails)::

    @pytest.mark.exercise("4.2")
    def test_dependencies_are_counted():
        \"\"\"Every node's dependency count is the number of edges that point at it.\"\"\"

An id that no ``# BEGIN SOLUTION`` marker of the reference declares stops collection with an error.

Options:

- ``--exercise-id ID`` (repeatable) keeps only the tests of those exercises.
- ``--exercise-timeout SECONDS`` limits each test: ``faulthandler`` dumps every thread's stack into
  ``<report>.stack`` and ends the process when a test runs longer (crashes such as ``os.abort()``
  dump there too). The runner reads the dump to say where the code was stuck.
- ``--exercise-report FILE`` writes JSON lines *as the run goes*: the collected test ids, a
  ``start`` line before each test and a ``test`` line after it (outcome, exercise id, exception chain,
  a readable explanation, the deepest frame inside the ``picotorch`` package under test, the
  test's hint). If the process dies, the last ``start`` without its ``test`` names the test that
  killed it.
"""

from __future__ import annotations

import faulthandler
import functools
import json
import re
import sys
from pathlib import Path

import pytest

from picotorch_course import _paths, _switch, markers

_ADDRESS = re.compile(r"<([\w.]+(?: [\w.]+)*) at 0x[0-9a-fA-F]+>")
_BARE_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+|(?<=\.\.\.)[0-9a-fA-F]{4,}(?=>)")  # also a cut-off "...a3f0>"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_NOISE = re.compile(r"use -v|use '-vv'|^\s*Omitting \d+ identical items", re.I)  # pytest's advice, not the learner's
MESSAGE_LINES = 14
NOTEBOOK_GRACE = 60.0  # a notebook cell's limit also covers starting and interrupting the kernel


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
        help="write per-test outcomes with exercise ids, exceptions and learner frames (JSON lines)",
    )
    group.addoption(
        "--exercise-collect-timeout",
        metavar="SECONDS",
        type=float,
        default=0.0,
        help="with --exercise-timeout: the limit for collecting (importing) the tests (default 3x)",
    )
    group.addoption(
        "--exercise-timeout",
        metavar="SECONDS",
        type=float,
        default=0.0,
        help="end the run (dumping every stack) when one test takes longer than this",
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
    timeout = config.getoption("exercise_timeout")
    if timeout and timeout > 0:
        collect = config.getoption("exercise_collect_timeout") or 3 * timeout
        config.pluginmanager.register(_TimeLimit(timeout, collect, path), "picotorch-exercise-timeout")


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


# --- what a failure says -------------------------------------------------------------------------


def package_dir() -> Path:
    """The folder of the ``picotorch`` package this process tests (the learner's copy, or the reference)."""
    return (Path(_switch.package_parent(_switch.requested())) / "picotorch").resolve()


def _exception_chain(exc: BaseException | None) -> list[dict]:
    """The exception and its causes/contexts, innermost last: type name and message of each."""
    chain, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append({"type": type(exc).__name__, "message": sanitize(str(exc))})
        exc = exc.__cause__ or exc.__context__
    return chain


def sanitize(text: str) -> str:
    """Without object addresses: ``<Node object at 0x7f…>`` becomes ``<Node object>``."""
    return _BARE_ADDRESS.sub("", _ADDRESS.sub(r"<\1>", text))


def explanation(excinfo: pytest.ExceptionInfo) -> str:
    """``Type: message`` with pytest's assertion explanation, addresses and "use -v" noise removed."""
    text = _ANSI.sub("", excinfo.exconly())
    lines = [line.rstrip() for line in sanitize(text).splitlines()]
    lines = [line for line in lines if line.strip() and not _NOISE.search(line)]
    full = next((i for i, line in enumerate(lines) if line.strip().startswith("Full diff:")), None)
    if full is not None and full > 1:  # pytest said where they differ: its line-by-line dump adds nothing
        lines = lines[:full]
    if len(lines) > MESSAGE_LINES:
        lines = lines[:MESSAGE_LINES] + ["…"]
    return "\n".join(lines)


def learner_frame(exc: BaseException | None, package: Path, prefer: str | None = None) -> dict | None:
    """The deepest frame inside ``package`` of ``exc`` (or of its causes): file relative to it, line, function.

    With ``prefer`` (the file of the exercise being tested), the deepest frame in that file wins when there
    is one: an error raised by the package's own machinery (a timeout in a communication channel, say) then
    points at the learner's line that called it. A ``SyntaxError`` in the package has no frame there; its own
    file and line are used.
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        found = preferred = None
        tb = exc.__traceback__
        while tb is not None:
            rel = _inside(tb.tb_frame.f_code.co_filename, package)
            if rel is not None:
                found = {"file": rel, "line": tb.tb_lineno, "function": tb.tb_frame.f_code.co_name}
                preferred = found if rel == prefer else preferred
            tb = tb.tb_next
        if isinstance(exc, SyntaxError) and exc.filename:
            rel = _inside(exc.filename, package)
            if rel is not None:
                found = preferred = {"file": rel, "line": exc.lineno or 0, "function": None}
        if found is not None:
            return preferred or found
        exc = exc.__cause__ or exc.__context__
    return None


@functools.cache
def _exercises_in(reference: Path) -> dict[str, markers.Exercise]:
    return markers.discover(reference / "picotorch")


def exercise_file(exercise_id_: str | None) -> str | None:
    """The file (relative to the package) of the exercise's Python block, or None."""
    exercise = _exercises_in(_paths.reference_dir()).get(exercise_id_) if exercise_id_ else None
    if exercise is None:
        return None
    try:
        return exercise.path.resolve().relative_to((_paths.reference_dir() / "picotorch").resolve()).as_posix()
    except ValueError:
        return None


def _inside(filename: str, package: Path) -> str | None:
    try:
        return Path(filename).resolve().relative_to(package).as_posix()
    except (ValueError, OSError):
        return None


def hint(item: pytest.Item) -> str:
    """The first line of the test function's docstring (what the test checks)."""
    doc = getattr(getattr(item, "function", None), "__doc__", None) or ""
    lines = [line.strip() for line in doc.strip().splitlines()]
    return lines[0] if lines else ""


def _notebook_failure(item: pytest.Item, exc: BaseException) -> dict:
    """For an nbval cell: its first source line, and the cell's own exception (not ``NbCellError``)."""
    source = [line for line in str(getattr(item, "cell", {}).get("source", "")).splitlines() if line.strip()]
    first = source[0].strip() if source else ""
    errors = [o for o in getattr(item, "test_outputs", None) or [] if o.get("ename")]
    if errors:
        chain = [{"type": errors[-1]["ename"], "message": sanitize(_ANSI.sub("", errors[-1]["evalue"]))}]
        text = f"{chain[0]['type']}: {chain[0]['message']}"
        trace = _ANSI.sub("", "\n".join(errors[-1].get("traceback") or []))
    else:
        chain = [{"type": "CellOutputsDiffer" if "differ" in str(exc) else type(exc).__name__,
                  "message": str(exc)}]
        detail = _ANSI.sub("", str(getattr(exc, "inner_traceback", "") or ""))
        shown = [ln for ln in detail.splitlines() if ln.strip() and not _NOISE.search(ln)]
        text = "\n".join([str(exc), *shown[:MESSAGE_LINES]])
        trace = ""
    return {
        "exceptions": chain,
        "explanation": sanitize(f"`{first}`: {text}"),
        "where": _frame_in_text(trace, package_dir()),
        "hint": f"the notebook cell starting `{first}` must run without an error and print what it printed before",
    }


_TEXT_FRAME = re.compile(r'(?:File "?)([^",\s]+\.py)"?(?:, line |:)(\d+)(?:,)? in (\w+)')


def _frame_in_text(text: str, package: Path) -> dict | None:
    """The last frame inside ``package`` named in a formatted traceback (IPython's or Python's)."""
    found = None
    for match in _TEXT_FRAME.finditer(text):
        rel = _inside(match[1], package)
        if rel is not None:
            found = {"file": rel, "line": int(match[2]), "function": match[3]}
    return found


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    extra = [("exercise", exercise_id(item)), ("hint", hint(item))]
    if call.excinfo is not None and not call.excinfo.errisinstance(pytest.skip.Exception):
        exc = call.excinfo.value
        if hasattr(item, "cell_num"):
            found = _notebook_failure(item, exc)
            extra += [(key, found[key]) for key in ("exceptions", "explanation", "where", "hint")]
        else:
            extra += [
                ("exceptions", _exception_chain(exc)),
                ("explanation", explanation(call.excinfo)),
                ("where", learner_frame(exc, package_dir(), exercise_file(exercise_id(item)))),
            ]
    report.user_properties = list(report.user_properties) + extra


def pytest_exception_interact(node, call: pytest.CallInfo, report) -> None:
    """A collection error (e.g. ``import picotorch`` raising a SyntaxError): keep its real cause."""
    if not isinstance(report, pytest.CollectReport) or call.excinfo is None:
        return
    exc = call.excinfo.value
    cause = exc.__cause__ or exc.__context__ or exc
    report.picotorch_failure = {
        "exceptions": _exception_chain(cause),
        "where": learner_frame(cause, package_dir()),
    }


# --- time limit ----------------------------------------------------------------------------------


class _TimeLimit:
    """Arms ``faulthandler`` around every test: past the limit it dumps all stacks and ends the process."""

    def __init__(self, seconds: float, collect: float, report: str | None) -> None:
        self.seconds, self.collect = seconds, collect
        self.file = open(stack_file(report), "w") if report else sys.stderr  # noqa: SIM115 (kept open)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        faulthandler.enable(file=self.file)  # crashes (os.abort(), segfaults) dump here too

    @pytest.hookimpl(hookwrapper=True)
    def pytest_collection(self, session: pytest.Session):
        """Importing the tests imports picotorch: a learner's module-level loop must not hang it."""
        faulthandler.dump_traceback_later(self.collect, exit=True, file=self.file)
        try:
            yield
        finally:
            faulthandler.cancel_dump_traceback_later()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem):
        limit = self.seconds + (NOTEBOOK_GRACE if hasattr(item, "cell_num") else 0.0)
        faulthandler.dump_traceback_later(limit, exit=True, file=self.file)
        try:
            yield
        finally:
            faulthandler.cancel_dump_traceback_later()


def stack_file(report: str) -> str:
    """Where the time limit and crashes dump the stacks, for a given report file."""
    return report + ".stack"


# --- the report ----------------------------------------------------------------------------------


class _Recorder:
    """Writes every test's outcome as it finishes (on the controller, also under xdist), as JSON lines."""

    def __init__(self, path: str) -> None:
        self.file = open(path, "w", encoding="utf-8")  # noqa: SIM115 (written to for the whole run)
        self.tests: dict[str, dict] = {}

    def _write(self, event: str, **body) -> None:
        self.file.write(json.dumps({"event": event, **body}) + "\n")
        self.file.flush()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._write("collected", nodeids=[item.nodeid for item in session.items],
                    hints={item.nodeid: hint(item) for item in session.items})

    def pytest_runtest_logstart(self, nodeid: str, location) -> None:
        self._write("start", nodeid=nodeid)

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
                "explanation": "",
                "where": None,
                "hint": props.get("hint", ""),
            },
        )
        if report.failed and entry["outcome"] not in ("failed", "error"):
            entry["outcome"] = "failed" if report.when == "call" else "error"
            entry["exceptions"] = props.get("exceptions", [])
            entry["message"] = _first_line(report)
            entry["explanation"] = props.get("explanation") or entry["message"]
            entry["where"] = props.get("where")
            entry["hint"] = props.get("hint", entry["hint"])
        elif report.skipped and entry["outcome"] == "passed":
            entry["outcome"] = "skipped"

    def pytest_runtest_logfinish(self, nodeid: str, location) -> None:
        entry = self.tests.pop(nodeid, None)
        if entry is not None:
            self._write("test", **entry)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.skipped:  # a whole module skipped, e.g. pytest.importorskip("torch") at its top
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            self._write("skipped_module", nodeid=report.nodeid, reason=reason.removeprefix("Skipped: "))
        if report.failed:
            found = getattr(report, "picotorch_failure", {})
            self._write(
                "test",
                nodeid=report.nodeid or "<collection>",
                outcome="error",
                exercise=None,
                exceptions=found.get("exceptions", []),
                message=_first_line(report),
                explanation=_first_line(report),
                where=found.get("where"),
                hint="",
                collection=True,
            )

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self._write("finish", exitstatus=int(exitstatus))
        self.file.close()


def _first_line(report) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr or "")
    return sanitize(text.strip().splitlines()[0]) if text.strip() else ""
