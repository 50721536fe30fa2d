"""Command line of the course tooling: ``python -m picotorch_course <command>``.

exercises [--force] [--check]   write or update your exercises/picotorch (--check: test the generator)
update [--force]                bring a course update into exercises/, keeping your solutions
reset ID                        put exercise ID's stub back (your file is backed up first)
prove [--no-chapter-order]      stubs fail with their own error, reference passes; notebooks live in chapter order
grade [--chapter N] [--impl exercises] [--json F] [--junit F] [--timeout S] [--no-notebooks]
check ID                        run one exercise's tests and print ✅ / ❌
doctor [--stable]               what this machine has for the course
install-switch                  write the .pth that applies PICOTORCH_IMPL at start-up
"""

from __future__ import annotations

import argparse
import sys

from picotorch_course import _paths, _switch, markers


def cmd_exercises(args: argparse.Namespace) -> int:
    """Generate or update the learner's exercises/ (``update`` too); ``--check`` tests the generator."""
    from picotorch_course import generate, update

    reference, out = _paths.reference_dir(), _paths.exercises_dir()
    if getattr(args, "check", False):
        problems = generate.self_check(reference)
        for problem in problems:
            print(f"exercise generator: {problem}", file=sys.stderr)
        if not problems:
            print(f"exercise generator: OK ({_count(reference)} exercises; checked in a temporary folder)")
        return 1 if problems else 0
    result = update.update(reference, out, force=args.force)
    print("\n".join(update.summary(result, out, _count(reference))))
    return 0


def cmd_reset(args: argparse.Namespace) -> int:
    from picotorch_course import update

    done = update.reset(_paths.reference_dir(), _paths.exercises_dir(), args.id)
    where = " and ".join(str(path) for path in [done.path, *done.also])
    if done.backup is None and not done.regenerated:
        print(f"exercise {args.id} is a stub in {where}: nothing to reset")
        return 0
    print(f"exercise {args.id}: stub restored in {where}")
    for path in [done.path, *done.also] if done.backup is not None else []:
        if (copy := done.backup / path.relative_to(_paths.exercises_dir())).is_file():
            print(f"  your file as it was: {copy}")
    if done.regenerated:
        print(f"  {done.regenerated}")
    return 0


def _count(reference) -> int:
    return len(markers.discover(reference / "picotorch"))


def cmd_prove(args: argparse.Namespace) -> int:
    from picotorch_course import prove

    ok, rows, problems = prove.prove(timeout=args.timeout)
    print(prove.table(rows) if rows else "no exercises: the reference has no '# BEGIN SOLUTION'")
    for problem in problems:
        print(f"problem: {problem}")
    ok = ok and bool(rows)
    print(f"exercise proof: {'OK' if ok else 'FAILED'} ({len(rows)} exercises)")
    if args.no_chapter_order:
        return 0 if ok else 1
    from picotorch_course import chapter_order

    runs = chapter_order.prove(timeout=args.notebook_timeout)
    print(chapter_order.table(runs))
    in_order = all(run.problem is None for run in runs)
    print(f"chapter order: {'OK' if in_order else 'FAILED'} ({len(runs)} notebook runs in exercises mode)")
    return 0 if ok and in_order else 1


def cmd_grade(args: argparse.Namespace) -> int:
    from picotorch_course import grader

    items = grader.grade(args.chapter, args.impl, args.timeout, not args.no_notebooks)
    print(grader.table(items) if items else "nothing to grade")
    grader.write_reports(items, args.impl, args.chapter, args.json, args.junit)
    return 0 if items and all(i.status == "pass" for i in items) else 1


def cmd_check(args: argparse.Namespace) -> int:
    from picotorch_course.checker import check

    return 0 if check(args.id, timeout=args.timeout) else 1


def cmd_doctor(args: argparse.Namespace) -> int:
    from picotorch_course import doctor

    print(doctor.report(stable=args.stable))
    return 0


def cmd_install_switch(args: argparse.Namespace) -> int:
    from picotorch_course import doctor

    print(f"wrote {doctor.install_switch()}")
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m picotorch_course",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = top.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("exercises", help="generate exercises/ from the reference")
    ex.add_argument("--force", action="store_true", help="overwrite files you changed (after a backup)")
    ex.add_argument(
        "--check", action="store_true", help="check the generator in a temporary folder (not your copy)"
    )
    ex.set_defaults(func=cmd_exercises)
    up = sub.add_parser("update", help="bring a course update into exercises/, keeping your solutions")
    up.add_argument("--force", action="store_true", help="overwrite files you changed (after a backup)")
    up.set_defaults(func=cmd_exercises)
    rs = sub.add_parser("reset", help="put one exercise's stub back (after a backup)")
    rs.add_argument("id")
    rs.set_defaults(func=cmd_reset)
    pr = sub.add_parser("prove", help="prove every exercise: stub fails, reference passes")
    pr.add_argument("--timeout", type=float, default=900.0)
    pr.add_argument("--no-chapter-order", action="store_true", help="skip running notebooks in chapter order")
    pr.add_argument("--notebook-timeout", type=float, default=180.0, help="seconds per notebook cell")
    pr.set_defaults(func=cmd_prove)
    gr = sub.add_parser("grade", help="grade a chapter (or all) per exercise")
    gr.add_argument("--chapter", type=int, default=None)
    gr.add_argument("--impl", choices=_switch.IMPLS, default="exercises")
    gr.add_argument("--json", default=None, metavar="FILE")
    gr.add_argument("--junit", default=None, metavar="FILE")
    gr.add_argument(
        "--timeout", type=float, default=10.0,
        help="seconds per test (an exercise gets max(60, 6×) in all; other tests and notebook cells 6× each)",
    )
    gr.add_argument("--no-notebooks", action="store_true")
    gr.set_defaults(func=cmd_grade)
    ch = sub.add_parser("check", help="run one exercise's tests")
    ch.add_argument("id")
    ch.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per test (the exercise gets max(60, 6×) in all)"
    )
    ch.set_defaults(func=cmd_check)
    do = sub.add_parser("doctor", help="what this machine has for the course")
    do.add_argument("--stable", action="store_true", help="yes/no only")
    do.set_defaults(func=cmd_doctor)
    sw = sub.add_parser("install-switch", help="install the PICOTORCH_IMPL start-up hook")
    sw.set_defaults(func=cmd_install_switch)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (markers.MarkerError, _switch.ImplementationError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
