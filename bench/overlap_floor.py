"""What the overlap benchmark's schedule allows with no software overhead at all (issue 12's target).

    .venv/bin/python bench/overlap_floor.py --step 2.9 --comm 23.5 --grad-bytes 409600 \\
        --intervals 1.7 1.3 1.2 1.3 1.3 1.3 1.3 1.3 1.3 1.3 1.3 1.3 1.4 1.4 1.4 1.2 0.0

Not a measurement: a schedule computed from measured inputs. ``--intervals`` are the milliseconds between
one gradient becoming ready and the next during backward (the first from backward's start, the last from
the last gradient to backward's end), as a post-accumulate-grad hook on each parameter records them in the
``compute`` variant; ``--step`` is the optimizer's step, ``--comm`` the ``comm`` variant's time (the
allreduce of every gradient at once). Horovod's background cycle wakes at most every ``--cycle`` ms and
takes every gradient ready by then as one fused collective, which costs a negotiation (one latency), the
two-rank ring (two latencies) and its bytes at the speed ``comm`` measured. The step runs after the last
collective. Printed: the floor, as a multiple of the ideal max(compute, comm).

Why the floor is above 1 when comm ≈ compute: the first collective cannot start before the first gradient
exists, the last one starts when backward ends, and the step needs every averaged gradient.
"""

from __future__ import annotations

import argparse
import itertools


def floor_ms(intervals: list[float], step: float, comm: float, grad_bytes: float, latency: float,
             cycle: float) -> tuple[float, int]:
    """The schedule's end (ms after backward starts) and the number of collectives it runs."""
    ready = list(itertools.accumulate(intervals[:-1]))
    ms_per_byte = (comm - 3 * latency) / (len(ready) * grad_bytes)
    clock, last_cycle, taken, collectives = 0.0, -cycle, 0, 0
    while taken < len(ready):
        clock = max(clock, ready[taken], last_cycle + cycle)
        last_cycle = clock
        fused = sum(1 for time in ready[taken:] if time <= clock)
        clock += 3 * latency + ms_per_byte * grad_bytes * fused
        taken += fused
        collectives += 1
    return clock + step, collectives


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--intervals", type=float, nargs="+", required=True, help="ms between gradients")
    parser.add_argument("--step", type=float, required=True, help="the optimizer's step, ms")
    parser.add_argument("--comm", type=float, required=True, help="the comm variant's time, ms")
    parser.add_argument("--grad-bytes", type=float, required=True, help="bytes of one gradient")
    parser.add_argument("--latency", type=float, default=0.1, help="the network model's latency, ms")
    parser.add_argument("--cycle", type=float, default=1.0, help="HOROVOD_CYCLE_TIME, ms")
    args = parser.parse_args()
    total, collectives = floor_ms(args.intervals, args.step, args.comm, args.grad_bytes, args.latency, args.cycle)
    compute = sum(args.intervals) + args.step
    ideal = max(compute, args.comm)
    print(f"compute {compute:.1f} ms, comm {args.comm:.1f} ms, ideal {ideal:.1f} ms; with no software overhead "
          f"{total:.1f} ms = {total / ideal:.2f}x ideal ({collectives} collectives)")


if __name__ == "__main__":
    main()
