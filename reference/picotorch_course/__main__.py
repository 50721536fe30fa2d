"""Command line of the course tooling: ``python -m picotorch_course <command>``.

exercises [--force] [--check]   write (or check) exercises/picotorch from the reference
prove                           stubs fail with their own NotImplementedError, reference passes
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
    from picotorch_course import generate

    reference, out = _paths.reference_dir(), _paths.exercises_dir()
    if args.check:
        problems = generate.check(reference, out)
        for problem in problems:
            print(f"exercises/{problem}", file=sys.stderr)
        if problems:
            print(
                "exercises/ is out of date: run `python -m picotorch_course exercises`",
                file=sys.stderr,
            )
            return 1
        print(f"exercises/ is up to date ({_count(reference)} exercises)")
        return 0
    result = generate.generate(reference, out, force=args.force)
    print(
        f"exercises: {len(result.written)} written, {len(result.unchanged)} unchanged, "
        f"{len(result.removed)} removed ({_count(reference)} exercises) in {out}"
    )
    if result.protected:
        print(
            "left alone because you changed them since they were generated "
            "(use --force to overwrite):",
            file=sys.stderr,
        )
        for rel in result.protected:
            print(f"  {out / rel}", file=sys.stderr)
        return 1
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
    return 0 if ok else 1


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
    ex.add_argument("--force", action="store_true", help="overwrite files you changed")
    ex.add_argument("--check", action="store_true", help="only check that exercises/ is current")
    ex.set_defaults(func=cmd_exercises)
    pr = sub.add_parser("prove", help="prove every exercise: stub fails, reference passes")
    pr.add_argument("--timeout", type=float, default=900.0)
    pr.set_defaults(func=cmd_prove)
    gr = sub.add_parser("grade", help="grade a chapter (or all) per exercise")
    gr.add_argument("--chapter", type=int, default=None)
    gr.add_argument("--impl", choices=_switch.IMPLS, default="exercises")
    gr.add_argument("--json", default=None, metavar="FILE")
    gr.add_argument("--junit", default=None, metavar="FILE")
    gr.add_argument("--timeout", type=float, default=300.0, help="seconds per item")
    gr.add_argument("--no-notebooks", action="store_true")
    gr.set_defaults(func=cmd_grade)
    ch = sub.add_parser("check", help="run one exercise's tests")
    ch.add_argument("id")
    ch.add_argument("--timeout", type=float, default=120.0)
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
