"""The exercise generator: ``reference/picotorch`` → a ``picotorch`` package with the solutions removed.

Every file of the reference package is copied (Python sources, YAML, ``_generated/``...); in the
Python files each solution block becomes ``raise NotImplementedError("Exercise <id>: <task>")``.

This module says *what* the generator produces (:func:`expected_files`) and checks it
(:func:`self_check`, which ``make test`` runs on a temporary folder). Bringing a learner's copy in
``exercises/`` up to date without touching their work is :mod:`picotorch_course.update`'s job; it
keeps, next to the learner's package, what it last generated:

- ``exercises/.base/picotorch/...``  the files exactly as generated (the base of a three-way merge)
- ``exercises/.manifest.json``       the sha256 of each of those files
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from picotorch_course import markers

MANIFEST = ".manifest.json"
BASE = ".base"
PACKAGE = "picotorch"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _skipped(path: Path) -> bool:
    return "__pycache__" in path.parts or path.suffix in {".pyc", ".pyo"}


def expected_files(reference: Path, keep: frozenset[str] | None = None) -> dict[str, bytes]:
    """What the exercises tree must hold: relative path (``picotorch/...``) → content."""
    package = reference / PACKAGE
    markers.discover(package)  # validates every marker (and duplicate ids) before writing anything
    files: dict[str, bytes] = {}
    for path in sorted(package.rglob("*")):
        if not path.is_file() or _skipped(path.relative_to(reference)):
            continue
        data = path.read_bytes()
        if path.suffix == ".py":
            data = markers.strip_solutions(data.decode("utf-8"), path, keep).encode("utf-8")
        files[path.relative_to(reference).as_posix()] = data
    return files


def write_tree(files: dict[str, bytes], dest: Path) -> None:
    """Write ``files`` (relative path → content) under ``dest``."""
    for rel, data in files.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def load_manifest(out: Path) -> dict[str, str]:
    path = out / MANIFEST
    if not path.exists():
        return {}
    return dict(json.loads(path.read_text(encoding="utf-8")).get("files", {}))


def save_manifest(out: Path, files: dict[str, str]) -> None:
    body = {
        "note": "written by `python -m picotorch_course exercises`; sha256 of each file as generated "
        f"(the files themselves are in {BASE}/)",
        "files": dict(sorted(files.items())),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / MANIFEST).write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")


def self_check(reference: Path) -> list[str]:
    """Generate into a temporary folder and report what is wrong with the result; empty when sound.

    Sound means: every exercise's stub line is in its file exactly once, no solution marker and no
    whole solution block is left in any file, and the stubbed package imports. The learner's
    ``exercises/`` is never looked at.
    """
    files = expected_files(reference)
    exercises = markers.discover(reference / PACKAGE)
    problems = []
    for ex in exercises.values():
        rel = ex.path.relative_to(reference).as_posix()
        count = files[rel].decode("utf-8").count(ex.stub)
        if count != 1:
            problems.append(f"{rel}: the stub of exercise {ex.id} appears {count} times")
    problems += _leaks(reference, {rel: data.decode("utf-8") for rel, data in files.items() if rel.endswith(".py")})
    with tempfile.TemporaryDirectory(prefix="picotorch-generate-") as tmp:
        write_tree(files, Path(tmp))
        problems += _import_problems(Path(tmp))
    return problems


def _import_problems(tree: Path) -> list[str]:
    """``import picotorch`` from a generated tree, in a child process (every exercise still a stub)."""
    env = {**os.environ, "PICOTORCH_IMPL": "exercises", "PICOTORCH_EXERCISES_DIR": str(tree)}
    code = "import picotorch, sys; sys.exit(0 if picotorch.__file__.startswith(sys.argv[1]) else 3)"
    done = subprocess.run(
        [sys.executable, "-c", code, str(tree)], env=env, capture_output=True, text=True, timeout=120
    )
    if done.returncode == 0:
        return []
    if done.returncode == 3:
        return ["the generated package was not the one imported (is the switch installed?)"]
    tail = " | ".join(done.stderr.strip().splitlines()[-3:])
    return [f"the generated package does not import with every exercise stubbed: {tail}"]


def _leaks(reference: Path, texts: dict[str, str]) -> list[str]:
    """Solution markers or whole solution blocks found in ``texts`` (relative path → file text)."""
    found = []
    blocks = markers.discover(reference / PACKAGE).values()
    for rel, text in texts.items():
        if markers.BEGIN in text or markers.END in text:
            found.append(f"{rel}: contains a solution marker")
        found += [
            f"{rel}: contains the solution of exercise {ex.id}"
            for ex in blocks
            if (body := _block_body(ex)) and body in text
        ]
    return found


def _block_body(ex: markers.Exercise) -> str:
    lines = ex.path.read_text(encoding="utf-8").splitlines(keepends=True)[ex.begin : ex.end - 1]
    return "".join(lines).strip()
