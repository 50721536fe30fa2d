"""The learner's copy in ``exercises/``: bringing it up to date without putting their work at risk.

``python -m picotorch_course exercises`` (``make exercises``, ``make lab``, Binder's postBuild) and
``python -m picotorch_course update`` run :func:`update`. For every file the course now generates:

- missing, or never edited by the learner → the new generated file is written;
- edited, and the learner changed nothing but stub lines → a three-way merge over the solution
  blocks: the *new* generated file, with the learner's bodies put back where those exercises still
  exist (:mod:`picotorch_course.blocks`). New stubs arrive, solved exercises stay solved;
- edited elsewhere too, and the course changed the file → the learner's file is left alone and the
  new version is written beside it (``variable.py.new``), with what to do.

The YAML files (``native_functions.yaml``, ``derivatives.yaml``) are merged the same way: their
exercise stubs are comment lines. ``_generated/`` is code the learner makes, not writes: once they
have run ``python -m picotorchgen`` (their ``_generated/`` is not what the course generated), the
update regenerates it from their YAML files as merged, so their op stays and the course's changes
arrive; when their YAML files do not generate, their ``_generated/`` is kept and the summary says why.

"Never edited" and "what the learner changed" are measured against the base: the file exactly as it
was last generated, kept in ``exercises/.base/`` (:mod:`picotorch_course.generate`). Whenever a file
the learner edited is overwritten (a merge, ``reset``, ``--force``), it is first copied to
``exercises/.backup/<time>/``.

:func:`reset` puts one exercise's stub back; :func:`progress` tells which exercises are solved (an
exercise is solved when its stub line is gone from the learner's file; no test is run).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from picotorch_course import blocks, generate, markers

BACKUP = ".backup"
BESIDE = ".new"


@dataclass
class Result:
    """What an update did to each file (paths relative to ``exercises/``, e.g. ``picotorch/_tensor.py``)."""

    written: list[str] = field(default_factory=list)  # new, or not edited by the learner
    unchanged: list[str] = field(default_factory=list)  # already the generated version
    kept: list[str] = field(default_factory=list)  # edited by the learner, nothing new from the course
    merged: list[str] = field(default_factory=list)  # new version with the learner's bodies put back
    beside: list[str] = field(default_factory=list)  # edited elsewhere: the new version is in <file>.new
    removed: list[str] = field(default_factory=list)  # no longer in the course, not edited: deleted
    orphaned: list[str] = field(default_factory=list)  # no longer in the course, edited: left in place
    dropped: dict[str, list[str]] = field(default_factory=dict)  # file -> solved exercises the course removed
    regenerated: list[str] = field(default_factory=list)  # _generated/ files rewritten from the learner's YAML
    not_regenerated: str = ""  # why the learner's YAML files did not generate, when they did not
    backup: Path | None = None  # where overwritten learner files were copied, if any


class Updater:
    """One run over the learner's ``out`` folder; collects a :class:`Result`."""

    def __init__(self, out: Path, force: bool) -> None:
        self.out, self.force = out, force
        self.manifest = generate.load_manifest(out)
        self.new_manifest: dict[str, str] = {}
        self.result = Result()

    def base(self, rel: str) -> bytes | None:
        path = self.out / generate.BASE / rel
        return path.read_bytes() if path.is_file() else None

    def set_base(self, rel: str, data: bytes) -> None:
        generate.write_tree({rel: data}, self.out / generate.BASE)
        self.new_manifest[rel] = generate.sha256(data)

    def keep_base(self, rel: str) -> None:
        if rel in self.manifest:
            self.new_manifest[rel] = self.manifest[rel]

    def edited(self, rel: str, current: bytes) -> bool:
        """Whether the learner's file is not what the generator last wrote there."""
        recorded = self.manifest.get(rel)
        return recorded is None or generate.sha256(current) != recorded

    def write(self, rel: str, data: bytes, backup_first: bool) -> None:
        target = self.out / rel
        if backup_first and target.is_file():
            self.backup(rel, target.read_bytes())
        generate.write_tree({rel: data}, self.out)

    def backup(self, rel: str, data: bytes) -> None:
        """Copy a learner's file into this run's backup folder (one folder per run)."""
        if self.result.backup is None:
            self.result.backup = backup_folder(self.out)
        generate.write_tree({rel: data}, self.result.backup)

    def one(self, rel: str, new: bytes) -> None:
        target = self.out / rel
        current = target.read_bytes() if target.is_file() else None
        if current == new:
            self.result.unchanged.append(rel)
        elif current is None or not self.edited(rel, current):
            self.write(rel, new, backup_first=False)
            self.result.written.append(rel)
        elif self.force:
            self.write(rel, new, backup_first=True)
            self.result.written.append(rel)
        else:
            self.edited_file(rel, current, new)
            return
        self.set_base(rel, new)
        _remove_beside(target)

    def edited_file(self, rel: str, current: bytes, new: bytes) -> None:
        """A file the learner changed: keep it, merge into the new version, or write that beside it."""
        base = self.base(rel)
        merge = _merge(base, current, new) if rel.endswith((".py", *generate.YAML_FILES)) else None
        if merge is None:
            if base == new:  # the course did not change this file: nothing to bring in
                self.result.kept.append(rel)
                self.keep_base(rel)
            else:
                (self.out / (rel + BESIDE)).write_bytes(new)
                self.result.beside.append(rel)
                self.keep_base(rel)  # a later run tries the merge again
            return
        text, dropped = merge
        if dropped:
            self.result.dropped[rel] = dropped
        if text.encode("utf-8") == current:
            self.result.kept.append(rel)
        else:
            self.write(rel, text.encode("utf-8"), backup_first=True)
            self.result.merged.append(rel)
        self.set_base(rel, new)
        _remove_beside(self.out / rel)

    def regenerate(self, course: dict[str, bytes]) -> None:
        """The learner's ``_generated/`` from their YAML files as merged; ``course``: the course's version.

        The course's version stays the base, so a later update still sees the learner's as theirs.
        """
        try:
            changed = generate.regenerate(self.out / generate.PACKAGE)
        except ValueError as err:
            self.result.not_regenerated = str(err)
            changed = None
        for rel, data in course.items():
            if changed is None:
                self.result.kept.append(rel)
            elif rel in changed:
                self.result.regenerated.append(rel)
            else:
                self.result.unchanged.append(rel)
            self.set_base(rel, data)
            _remove_beside(self.out / rel)

    def gone(self, rel: str) -> None:
        """A file the course no longer has."""
        target = self.out / rel
        base_copy = self.out / generate.BASE / rel
        if target.is_file() and self.edited(rel, target.read_bytes()) and not self.force:
            self.result.orphaned.append(rel)
        else:
            if target.is_file():
                if self.edited(rel, target.read_bytes()):
                    self.backup(rel, target.read_bytes())
                target.unlink()
            self.result.removed.append(rel)
        if base_copy.is_file():
            base_copy.unlink()


def update(reference: Path, out: Path, force: bool = False) -> Result:
    """Bring ``out/picotorch`` up to date with ``reference/picotorch``; see the module docstring.

    ``force`` overwrites every file with the generated version (after a backup of what it replaces).
    """
    expected = generate.expected_files(reference)
    run = Updater(out, force)
    regenerated = [] if force else [rel for rel in expected if _made_by_learner(run, rel)]
    for rel, data in expected.items():
        if rel not in regenerated:
            run.one(rel, data)
    if regenerated:
        run.regenerate({rel: expected[rel] for rel in regenerated})
    known = set(run.manifest) | _files_under(out / generate.BASE)
    for rel in sorted(known - set(expected)):
        run.gone(rel)
    generate.save_manifest(out, run.new_manifest)
    _prune_empty_dirs(out / generate.PACKAGE)
    _prune_empty_dirs(out / generate.BASE)
    return run.result


def _made_by_learner(run: Updater, rel: str) -> bool:
    """Whether ``rel`` is a ``_generated/`` file the learner rewrote by running ``python -m picotorchgen``."""
    target = run.out / rel
    return rel.startswith(GENERATED) and target.is_file() and run.edited(rel, target.read_bytes())


GENERATED = f"{generate.PACKAGE}/{generate.GENERATED}/"


def _merge(base: bytes | None, current: bytes, new: bytes) -> tuple[str, list[str]] | None:
    """The new file with the learner's bodies put back, and the solved ids it has no stub for.

    None when the learner edited more than stub lines. The learner's file is compared with the base
    first (a true three-way merge); failing that with the new version itself, which is what a
    learner's file looks like after they resolved a ``.new`` file by hand.
    """
    text, new_text = current.decode("utf-8"), new.decode("utf-8")
    for candidate in ([base.decode("utf-8")] if base is not None else []) + [new_text]:
        found = blocks.learner_bodies(candidate, text)
        if found.outside:
            continue
        stubs = _stub_lines(candidate)
        solved = {i: body for i, body in found.bodies.items() if body != [stubs[i]]}
        still = blocks.stub_ids(new_text)
        kept = {i: body for i, body in solved.items() if i in still}
        dropped = sorted(set(solved) - set(kept), key=markers.id_key)
        return blocks.put_bodies(new_text, kept), dropped
    return None


def _stub_lines(text: str) -> dict[str, str]:
    """Exercise id -> its stub line (with the newline) in a generated file."""
    lines = text.splitlines(keepends=True)
    return {ex_id: lines[index] for ex_id, index in blocks.stub_ids(text).items()}


def backup_folder(out: Path) -> Path:
    """A new, empty ``out/.backup/<date-time>`` folder (never one an earlier run wrote into)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder, n = out / BACKUP / stamp, 1
    while folder.exists():
        n += 1
        folder = out / BACKUP / f"{stamp}-{n}"
    folder.mkdir(parents=True)
    return folder


def _remove_beside(target: Path) -> None:
    """A ``<file>.new`` left by an earlier update is resolved once the file itself is current."""
    beside = target.with_name(target.name + BESIDE)
    if beside.is_file():
        beside.unlink()


def _files_under(folder: Path) -> set[str]:
    if not folder.is_dir():
        return set()
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def _prune_empty_dirs(top: Path) -> None:
    if not top.is_dir():
        return
    for folder in sorted((p for p in top.rglob("*") if p.is_dir()), reverse=True):
        if folder.name != "__pycache__" and not any(folder.iterdir()):
            folder.rmdir()


def summary(result: Result, out: Path, exercises: int) -> list[str]:
    """What to tell the learner, one line each; the last lines say what to do, if anything."""
    counts = (
        f"{len(result.written)} written, {len(result.unchanged)} unchanged, "
        f"{len(result.merged)} merged, {len(result.kept)} kept as you edited them, "
        f"{len(result.removed)} removed"
    )
    lines = [f"exercises: {counts} ({exercises} exercises) in {out}"]
    for rel in result.merged:
        lines.append(f"  merged the course's update into {out / rel}: your solutions are kept")
    for rel, ids in result.dropped.items():
        lines.append(f"  {out / rel}: exercise(s) {', '.join(ids)} are no longer in the course; your "
                     "code for them is in the backup below")
    if result.regenerated:
        lines.append(f"  regenerated {out / GENERATED} from your YAML files (as python -m picotorchgen does)")
    if result.not_regenerated:
        lines.append(f"  kept your {out / GENERATED}: your YAML files do not generate: {result.not_regenerated}")
        lines.append("  fix them, then run: python -m picotorchgen")
    if result.backup is not None:
        lines.append(f"  your files as they were before: {result.backup}")
    for rel in result.orphaned:
        lines.append(f"  {out / rel} is no longer part of the course; you edited it, so it stays")
    if result.beside:
        lines.append("the course changed these files, and you edited them outside the exercises, so "
                     "they were left as they are; the new version is beside each one:")
        for rel in result.beside:
            lines.append(f"  {out / rel}  ->  new version: {out / (rel + BESIDE)}")
        lines.append("  to take it: copy your solutions into the .new file and rename it over yours "
                     "(or: python -m picotorch_course update --force, which keeps a backup)")
    return lines


@dataclass
class Reset:
    """What :func:`reset` did."""

    exercise: str
    path: Path  # the exercise's (first) file
    backup: Path | None  # None when there was nothing to reset
    also: list[Path] = field(default_factory=list)  # its other files (an op's entry and formula)
    regenerated: str = ""  # for an exercise in the YAML files: what regenerating _generated/ did


def reset(reference: Path, out: Path, exercise_id: str) -> Reset:
    """Put exercise ``exercise_id``'s stub back into the learner's file(s), after a backup.

    For an exercise in the YAML files, ``_generated/`` is then regenerated from them, so the op is
    gone again, as after ``python -m picotorchgen``. Raises ValueError (with what to do) when the
    exercise is unknown or its code cannot be found.
    """
    exercise = _known(reference, exercise_id)
    texts = {block.path.relative_to(reference).as_posix(): _reset_text(reference, out, block)
             for block in exercise.blocks}
    paths = [out / rel for rel in texts]
    changed = {rel: text.encode("utf-8") for rel, text in texts.items() if text is not None}
    learners = {rel: (out / rel).read_bytes() for rel in changed if (out / rel).is_file()}
    folder = backup_folder(out) if learners else None
    if folder is not None:
        generate.write_tree(learners, folder)
    generate.write_tree(changed, out)
    done = Reset(exercise_id, paths[0], folder, paths[1:])
    if not changed:
        return done
    if any(block.in_data for block in exercise.blocks):
        done.regenerated = _regenerate_after_reset(out)
    return done


def _reset_text(reference: Path, out: Path, block: markers.Exercise) -> str | None:
    """The learner's file of ``block`` with its stub back, or None when it is a stub already."""
    rel = block.path.relative_to(reference).as_posix()
    target = out / rel
    base_path = out / generate.BASE / rel
    base = base_path.read_text(encoding="utf-8") if base_path.is_file() else None
    if base is None or block.id not in blocks.stub_ids(base):
        raise ValueError(
            f"{target} was not generated with exercise {block.id}; "
            "run `python -m picotorch_course update` first"
        )
    if not target.is_file():
        return base
    learner = target.read_text(encoding="utf-8")
    text = _without_body(base, learner, block.id, target)
    return None if text == learner else text


def _regenerate_after_reset(out: Path) -> str:
    try:
        generate.regenerate(out / generate.PACKAGE)
    except ValueError as err:
        return f"your YAML files do not generate, so {out / GENERATED} was not regenerated: {err}"
    return f"regenerated {out / GENERATED} from your YAML files"


def _without_body(base: str, learner: str, exercise_id: str, target: Path) -> str:
    """``learner`` with the body of ``exercise_id`` replaced by its stub line from ``base``."""
    stub = _stub_lines(base)[exercise_id]
    found = blocks.learner_bodies(base, learner)
    body = found.bodies.get(exercise_id, [stub])
    if body == [stub]:
        return learner
    if not found.outside:
        others = {i: b for i, b in found.bodies.items() if i != exercise_id}
        return blocks.put_bodies(base, others)
    lines = learner.splitlines(keepends=True)
    starts = [i for i in range(len(lines) - len(body) + 1) if body and lines[i : i + len(body)] == body]
    if len(starts) != 1:
        raise ValueError(
            f"cannot tell which lines of {target} are your code for exercise {exercise_id}; "
            f"replace them by hand with:\n{stub.rstrip()}"
        )
    at = starts[0]
    return "".join(lines[:at] + [stub] + lines[at + len(body) :])


def _known(reference: Path, exercise_id: str) -> markers.Exercise:
    exercises = markers.discover(reference / generate.PACKAGE)
    if exercise_id not in exercises:
        ids = ", ".join(sorted(exercises, key=markers.id_key)) or "(none)"
        raise ValueError(f"no exercise {exercise_id!r}; known exercises: {ids}")
    return exercises[exercise_id]


@dataclass
class Progress:
    """Which exercises the learner has solved (stub line gone), in course order."""

    solved: list[str]
    total: int
    generated: bool  # False when exercises/ was never generated

    def line(self) -> str:
        if not self.generated:
            return "not generated yet: run `make exercises` (python -m picotorch_course exercises)"
        return f"solved {len(self.solved)} of {self.total}" + (f": {' '.join(self.solved)}" if self.solved else "")


def progress(reference: Path, out: Path) -> Progress:
    """Solved exercises, measured against the base of each file (no test is run)."""
    exercises = markers.discover(reference / generate.PACKAGE)
    base_dir = out / generate.BASE
    if not base_dir.is_dir():
        return Progress([], len(exercises), False)
    solved = set()
    for rel in sorted(_files_under(base_dir)):
        if not rel.endswith((".py", *generate.YAML_FILES)):
            continue
        base = (base_dir / rel).read_text(encoding="utf-8")
        if not blocks.stub_ids(base):
            continue
        target = out / rel
        learner = target.read_text(encoding="utf-8") if target.is_file() else base
        solved.update(blocks.learner_bodies(base, learner).solved(_stub_lines(base)))
    ordered = sorted(solved & set(exercises), key=markers.id_key)
    return Progress(ordered, len(exercises), True)
