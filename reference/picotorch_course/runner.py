"""Running pytest in a child process, with a time limit, and reading what each test did.

Every run goes through :func:`run_pytest`: a separate process (so a crash or a hang costs only that
run), its own process group (so a timeout kills everything it started, notebook kernels included),
the implementation chosen through the environment, and a JSON report from the course's plugin.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from picotorch_course import _paths, _switch

PLUGIN = "picotorch_course.pytest_plugin"


@dataclass
class Run:
    """The outcome of one pytest process."""

    returncode: int | None
    tests: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    output: str = ""
    timed_out: bool = False

    def count(self, outcome: str) -> int:
        return sum(1 for t in self.tests if t["outcome"] == outcome)

    @property
    def problem(self) -> str | None:
        """Why the run as a whole is unusable (timeout, crash, nothing collected), else None."""
        if self.timed_out:
            return f"timed out after {self.seconds:.0f}s"
        if self.returncode == 5 or (self.returncode in (0, 1) and not self.tests):
            return "no tests collected"
        if self.returncode not in (0, 1):
            return f"pytest exited with code {self.returncode}: {self.tail()}"
        return None

    def tail(self, lines: int = 3) -> str:
        return " | ".join(self.output.strip().splitlines()[-lines:])


def run_pytest(args: list[str], impl: str, timeout: float, extra_env: dict | None = None) -> Run:
    """Run ``pytest args`` under ``impl`` in a child process; never raises for test failures."""
    env = _switch.subprocess_env(impl, {**os.environ, **(extra_env or {})})
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    if "--nbval" not in args:
        args = ["-p", "no:nbval", *args]  # nbval's imports cost seconds per process
    with tempfile.TemporaryDirectory(prefix="picotorch-run-") as tmp:
        report = Path(tmp) / "report.json"
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            PLUGIN,
            "-p",
            "no:cacheprovider",
            "--exercise-report",
            str(report),
            *args,
        ]
        start = time.monotonic()
        returncode, output, timed_out = _run(cmd, env, timeout)
        run = Run(returncode, [], time.monotonic() - start, output, timed_out)
        if report.exists():
            run.tests = json.loads(report.read_text(encoding="utf-8"))["tests"]
    return run


def _run(cmd: list[str], env: dict, timeout: float) -> tuple[int | None, str, bool]:
    """Run ``cmd`` in its own process group; on timeout kill the whole group."""
    proc = subprocess.Popen(
        cmd,
        cwd=_paths.root(),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=timeout)
        return proc.returncode, output, False
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        output, _ = proc.communicate()
        return None, output or "", True


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def first_failure(tests: list[dict]) -> str:
    """A one-line account of the first failing test: name, exception type and message."""
    for test in tests:
        if test["outcome"] in ("failed", "error"):
            name = test["nodeid"].split("::")[-1] or test["nodeid"]
            chain = test.get("exceptions") or []
            if chain:
                return f"{name}: {chain[0]['type']}: {_one_line(chain[0]['message'])}"
            return f"{name}: {_one_line(test.get('message', ''))}"
    return ""


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
