"""Running pytest in a child process, with time limits, and reading what each test did.

Every run goes through :func:`run_pytest`: a separate process (so a crash or a hang costs only that
run), its own process group (so a timeout kills everything it started, notebook kernels included),
the implementation chosen through the environment, and the course plugin's report.

Two limits: ``test_timeout`` per test (the plugin arms ``faulthandler``, which dumps the stacks and
ends the process), and ``timeout`` for the whole run (the runner sends SIGABRT, so ``faulthandler``
still dumps the stacks, then kills the group). The report is written as the run goes, so a process
that dies (timeout, ``os.abort()``, ``os._exit()``, a segfault) still tells which tests passed and
which one was running; the dump tells where in the learner's code it was.

Paths in messages are the learner's: a frame in the temporary copy that the checker and the grader
test (see :mod:`picotorch_course.isolate`) is shown as ``exercises/picotorch/<file>``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from picotorch_course import _paths, _switch

PLUGIN = "picotorch_course.pytest_plugin"
LINE_MAP = "picotorch-lines.json"  # written by isolate.learner_tree beside the package it prepares
COLLECTION_FACTOR = 3.0  # importing the tests (and picotorch, maybe torch) may take this many per-test limits
ABORT_GRACE = 3.0  # seconds between SIGABRT (stacks dumped) and SIGKILL at the overall limit


@dataclass
class Failure:
    """What a learner needs to see about a failure: which test, what went wrong, where, a hint."""

    test: str
    text: str
    where: str = ""
    hint: str = ""

    def summary(self) -> list[str]:
        """The test's name and what went wrong (the explanation's lines indented)."""
        head, *rest = self.text.splitlines() or [""]
        return [f"{self.test}: {head}" if self.test else head, *[f"  {line}" for line in rest]]

    def lines(self) -> list[str]:
        """The summary, then where in the learner's code, then the hint."""
        lines = self.summary()
        if self.where and self.where not in self.text:
            lines.append(f"  at {self.where}")
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return lines

    def __str__(self) -> str:
        return "\n".join(self.lines())


@dataclass
class Run:
    """The outcome of one pytest process."""

    returncode: int | None
    tests: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    output: str = ""
    timed_out: bool = False
    collected: list[str] = field(default_factory=list)
    hints: dict[str, str] = field(default_factory=dict)  # test id -> what it checks
    skipped_modules: list[str] = field(default_factory=list)  # "file: reason" of test files skipped whole
    line_maps: dict[str, list[int]] = field(default_factory=dict)  # prepared copy's lines -> the learner's
    running: str | None = None  # the test that was running when the process ended early
    finished: bool = False  # the plugin saw the session end
    stack: str = ""  # faulthandler's dump (a timeout or a crash)
    package: Path | None = None  # the picotorch folder the child imported
    impl: str = "reference"
    test_timeout: float = 0.0

    def count(self, outcome: str) -> int:
        return sum(1 for t in self.tests if t["outcome"] == outcome)

    @property
    def total(self) -> int:
        """Tests collected, including any that never ran because the process died."""
        return max(len(self.tests), len(self.collected))

    @property
    def died(self) -> bool:
        """The process ended during a test (timeout, crash, ``os._exit``)."""
        return self.running is not None

    @property
    def problem(self) -> str | None:
        """Why the run as a whole is unusable (timeout, crash, nothing collected), else None."""
        if self.died:
            return str(self.death())
        if self.timed_out or (not self.finished and "Timeout (" in self.stack):
            where = self.where(stack_frame(self.stack or self.output, self.package))
            stuck = f", stuck in {where}" if where else ""
            limit = self.seconds if self.timed_out else self.test_timeout * COLLECTION_FACTOR
            return f"timed out after {limit:.0f}s before any test ran (importing the tests and picotorch){stuck}"
        if self.returncode == 5 and self.skipped_modules:
            return f"test files skipped whole: {'; '.join(self.skipped_modules)}"
        if self.returncode == 5 or (self.returncode in (0, 1) and not self.tests):
            return "no tests collected"
        collection = self.collection_error()
        if collection is not None:
            return str(collection)
        if self.returncode not in (0, 1):
            return f"pytest exited with code {self.returncode}: {self.tail()}"
        return None

    def tail(self, lines: int = 3) -> str:
        return " | ".join(self.output.strip().splitlines()[-lines:])

    def death(self) -> Failure:
        """Why the process ended in the middle of test ``running``, and where the learner's code was."""
        name = short_name(self.running or "")
        frame = stack_frame(self.stack or self.output, self.package)  # without a time limit: on stderr
        where = self.where(frame)
        stuck = f", stuck in {where}" if where else ""
        if "Timeout (" in self.stack and not self.timed_out:
            text = f"timed out after {self.test_timeout:g}s{stuck}"
        elif self.timed_out:
            text = f"the whole run timed out after {self.seconds:.0f}s{stuck}"
        elif self.returncode is not None and self.returncode < 0:
            sig = _signal_name(-self.returncode)
            text = f"the Python process crashed ({sig}) while running {name}" + (f", in {where}" if where else "")
        else:
            text = (
                f"the Python process exited with code {self.returncode} while running {name} "
                "(did your code call os._exit()?)" + (f", in {where}" if where else "")
            )
        said = "" if "while running" in text else name  # the text already names the test
        return Failure(said, text, where, self.hint_of(self.running))

    def hint_of(self, nodeid: str | None) -> str:
        return self.hints.get(nodeid or "", "")

    def where(self, frame: dict | None) -> str:
        """``exercises/picotorch/ops.py:12 (triple)`` for a recorded frame, or "".

        The line is the learner's: in a prepared copy (see :mod:`isolate`) lines may have moved.
        """
        if not frame:
            return ""
        path = shown_package(self.impl) + "/" + frame["file"]
        function = f" ({frame['function']})" if frame.get("function") else ""
        moved = self.line_maps.get(frame["file"])
        line = frame["line"]
        if moved and 1 <= line <= len(moved):
            line = moved[line - 1]
        return f"{path}:{line}{function}"

    def collection_error(self) -> Failure | None:
        """A test module that could not be imported (say, a SyntaxError in the learner's package)."""
        for test in self.tests:
            if test.get("collection"):
                return Failure("", import_error_text(test, self.where(test.get("where"))),
                               self.where(test.get("where")))
        return None

    def failure(self) -> Failure | None:
        """The first thing that went wrong, in the learner's terms; None when nothing did."""
        if self.died:
            return self.death()
        collection = self.collection_error()
        if collection is not None:
            return collection
        for test in self.tests:
            if test["outcome"] in ("failed", "error"):
                return Failure(short_name(test["nodeid"]), failure_text(test),
                               self.where(test.get("where")), test.get("hint", ""))
        problem = self.problem
        if problem is None:
            return None
        return Failure("", problem, self.where(stack_frame(self.stack or self.output, self.package)))


def short_name(nodeid: str) -> str:
    return nodeid.split("::")[-1] or nodeid


def failure_text(test: dict) -> str:
    """``Type: message`` (with the assertion's explanation); a ``sys.exit()`` said in plain words."""
    chain = test.get("exceptions") or []
    if chain and chain[0]["type"] == "SystemExit":
        return f"your code called sys.exit({chain[0]['message']})"
    if test.get("explanation"):
        return test["explanation"]
    if chain:
        return f"{chain[0]['type']}: {chain[0]['message']}"
    return test.get("message", "")


def import_error_text(test: dict, where: str) -> str:
    """``SyntaxError in exercises/picotorch/ops.py:7: invalid syntax`` for a collection error."""
    chain = test.get("exceptions") or []
    if not chain:
        return f"could not collect {test['nodeid']}: {test.get('message', '')}"
    kind, message = chain[0]["type"], chain[0]["message"]
    if kind == "SyntaxError" or kind == "IndentationError":
        message = re.sub(r" \(\S+\.py, line \d+\)$", "", message)
    place = f" in {where.split(' (')[0]}" if where else f" while importing {test['nodeid']}"
    return f"{kind}{place}: {message}"


def shown_package(impl: str) -> str:
    """How messages name the learner's package folder: relative to the project when inside it."""
    folder = (_paths.exercises_dir() if impl == "exercises" else _paths.reference_dir()) / "picotorch"
    try:
        return folder.relative_to(_paths.root()).as_posix()
    except ValueError:
        return folder.as_posix()


_DUMP_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<function>\S+)', re.M)


def stack_frame(dump: str, package: Path | None) -> dict | None:
    """The innermost frame inside ``package`` in a faulthandler dump (most recent call first)."""
    if not dump or package is None:
        return None
    for match in _DUMP_FRAME.finditer(dump):
        try:
            rel = Path(match["file"]).resolve().relative_to(package)
        except (ValueError, OSError):
            continue
        return {"file": rel.as_posix(), "line": int(match["line"]), "function": match["function"]}
    return None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def run_pytest(
    args: list[str],
    impl: str,
    timeout: float,
    extra_env: dict | None = None,
    test_timeout: float = 0.0,
) -> Run:
    """Run ``pytest args`` under ``impl`` in a child process; never raises for test failures.

    ``timeout`` limits the whole run, ``test_timeout`` (0: none) each test.
    """
    env = _switch.subprocess_env(impl, {**os.environ, **(extra_env or {})})
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    if "--nbval" not in args:
        args = ["-p", "no:nbval", *args]  # nbval's imports cost seconds per process
    elif test_timeout:
        args = ["--nbval-cell-timeout", f"{test_timeout:g}", *args]
    if test_timeout:
        args = ["--exercise-timeout", f"{test_timeout:g}", "--exercise-collect-timeout",
                f"{test_timeout * COLLECTION_FACTOR:g}", *args]
    with tempfile.TemporaryDirectory(prefix="picotorch-run-") as tmp:
        report = Path(tmp) / "report.jsonl"
        cmd = [sys.executable, "-m", "pytest", "-p", PLUGIN, "-p", "no:cacheprovider",
               "-o", "verbosity_assertions=2",  # whole values in assertion messages, not "(...a3f0>, 0)"
               "--exercise-report", str(report), *args]
        start = time.monotonic()
        returncode, output, timed_out = run_process(cmd, env, timeout, Path(tmp) / "output.txt")
        run = Run(returncode, [], time.monotonic() - start, output, timed_out,
                  package=_package_in(env, impl), impl=impl, test_timeout=test_timeout)
        _read_report(run, report)
        moved = run.package.parent / LINE_MAP
        run.line_maps = json.loads(moved.read_text(encoding="utf-8")) if moved.exists() else {}
        stack = Path(tmp) / "report.jsonl.stack"
        run.stack = stack.read_text(encoding="utf-8", errors="replace") if stack.exists() else ""
    return run


def _package_in(env: dict, impl: str) -> Path:
    if impl == "exercises":
        parent = env.get("PICOTORCH_EXERCISES_DIR") or str(_paths.exercises_dir())
    else:
        parent = env.get("PICOTORCH_REFERENCE_DIR") or str(_paths.reference_dir())
    return (Path(parent) / "picotorch").resolve()


def _read_report(run: Run, report: Path) -> None:
    """Fill ``run`` from the plugin's JSON lines (the last line may be cut short by a crash)."""
    if not report.exists():
        return
    for line in report.read_text(encoding="utf-8").splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        kind = event.pop("event", None)
        if kind == "collected":
            run.collected, run.hints = event["nodeids"], event.get("hints", {})
        elif kind == "start":
            run.running = event["nodeid"]
        elif kind == "test":
            run.tests.append(event)
            if event["nodeid"] == run.running:
                run.running = None
        elif kind == "skipped_module":
            run.skipped_modules.append(f"{event['nodeid']}: {event['reason']}")
        elif kind == "finish":
            run.finished, run.running = True, None


def run_process(cmd: list[str], env: dict, timeout: float, log: Path) -> tuple[int | None, str, bool]:
    """Run ``cmd`` in its own process group; on timeout dump its stacks, then kill the group.

    The output goes to a file, not a pipe: a notebook kernel left behind by a killed pytest keeps a
    pipe open and would make us wait for it.
    """
    with open(log, "w", encoding="utf-8") as out:
        proc = subprocess.Popen(cmd, cwd=_paths.root(), env=env, stdout=out, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _signal(proc.pid, signal.SIGABRT, group=False)  # faulthandler dumps the stacks
            try:
                proc.wait(timeout=ABORT_GRACE)
            except subprocess.TimeoutExpired:
                pass
        _signal(proc.pid, signal.SIGKILL, group=True)  # kernels and other children, whatever happened
        proc.wait()
    return (None if timed_out else proc.returncode), log.read_text(encoding="utf-8", errors="replace"), timed_out


def _signal(pid: int, sig: int, group: bool) -> None:
    try:
        (os.killpg if group else os.kill)(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def first_failure(tests: list[dict]) -> str:
    """A one-line account of the first failing test: name, exception type and message."""
    for test in tests:
        if test["outcome"] in ("failed", "error"):
            name = short_name(test["nodeid"])
            chain = test.get("exceptions") or []
            if chain:
                return f"{name}: {chain[0]['type']}: {_one_line(chain[0]['message'])}"
            return f"{name}: {_one_line(test.get('message', ''))}"
    return ""


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
