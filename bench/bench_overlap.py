"""Does communication hide behind backward? The overlap benchmark of chapter 07 (issue 12).

    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_overlap.py [--ranks 2] [--repeats 9] [--variants ...]

Models nothing: it measures the overlap target. N ranks (threads backend) train a stack of ``--layers``
square linear layers (tanh between them) on ``--batch`` rows; the threads backend's network model
(``launch(fn, N, network=NetworkModel(latency, bandwidth))``) gives communication a visible, predictable
time, and unless ``--bandwidth`` is given the bandwidth is calibrated so that averaging the gradients
takes about as long as computing them. What is timed, per step, is what can overlap: backward, the
communication and the optimizer's step; the forward (which nothing overlaps) runs before the clock starts.
Each variant is one function (setting up one rank's step):

- ``compute``: backward and step only, no communication;
- ``comm``: only the allreduce of the same gradients (one async allreduce per gradient, then synchronize);
- ``hooked``: Horovod's way by hand: a post-accumulate-grad hook starts each gradient's allreduce the
  moment the engine has it; after backward, synchronize and step;
- ``optimizer``: ``hvd.DistributedOptimizer`` (``optimizer.py``): the same, through Horovod's class;
- ``nofusion``: ``optimizer`` (or ``hooked`` when it is missing) with ``HOROVOD_FUSION_THRESHOLD=0``, and
  beside it ``comm-nofusion``: ``comm`` with fusion off too, its ideal's communication time;
- ``serial``: no overlap: backward first, then the allreduce of every gradient;
- ``ddp``: PyTorch's bucketed reducer (``ddp.py``).

Reported: each variant's median step time (``bench/_timing.py``: one warm-up, then the median of
``--repeats`` steps on each rank; a step's time is the slowest rank's median; the variants take turns,
``--rounds`` times, and the median of the rounds is shown), ideal = max(compute, comm)
and serial = compute + comm (for ``nofusion``: with ``comm-nofusion``, the same communication unfused); the
target is ``hooked``/``optimizer`` within 10% of ideal and clearly below serial. Why not exactly ideal:
the first gradient exists only after the last layer's backward, and the last one's allreduce starts when
backward ends, so with L equal layers the best is about (1 + 1/L) x ideal (hence 16 layers by default).
Not a test: nothing fails when it is slow. The machine is shared: run it twice.

All ranks are threads of one Python process: the runtime's background threads and the rank threads share
the GIL, so communication work done in Python (negotiation, the ring's additions, copies) delays backward,
which Horovod's C++ background thread does not. ``--switch-interval`` (``sys.setswitchinterval``, Python's
default 5 ms) bounds how long a thread that wants the GIL back waits for it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before NumPy loads its BLAS

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import median_seconds  # noqa: E402

import picotorch as pt  # noqa: E402
import picotorch.distributed as hvd  # noqa: E402
from picotorch.distributed.ddp import DistributedDataParallel  # noqa: E402

VARIANTS = ("compute", "comm", "hooked", "optimizer", "nofusion", "serial", "ddp")


# ----------------------------------------------------------------------------- the model and one step per variant


def build(config):
    """The same weights on every rank (seed 0), a batch of this rank's own (seed = rank)."""
    pt.manual_seed(0)
    model = pt.nn.Sequential(*[layer for _ in range(config.layers)
                               for layer in (pt.nn.Linear(config.width, config.width, bias=False), pt.nn.Tanh())])
    generator = pt.Generator().manual_seed(1 + hvd.rank())
    x = pt.randn(config.batch, config.width, generator=generator)
    return model, x


def allreduce_all(params) -> None:
    handles = [hvd.allreduce_async_(p.grad, name=f"grad.{i}") for i, p in enumerate(params)]
    for handle in handles:
        hvd.synchronize(handle)


# Each variant returns (setup, step): setup (untimed) zeroes the gradients, runs forward and waits at a
# barrier, returning the loss; step (timed) runs backward, the communication, and the optimizer's step.
# The barrier makes every rank start its timed step together: the ranks' threads share one GIL, so without
# it one rank's clock would start while another still runs its forward, and a rank's step would include
# waiting (in its first allreduce) for that forward -- time no real cluster spends, and time the
# "compute" variant, whose ranks never wait for each other, would not count.


def forward_of(model, x, optimizer):
    def setup():
        optimizer.zero_grad()
        loss = (model(x) ** 2).mean()
        hvd.barrier()
        return loss
    return setup


def compute_step(config):
    model, x = build(config)
    optimizer = pt.optim.SGD(model.parameters(), lr=1e-3)

    def step(loss):
        loss.backward()
        optimizer.step()
    return forward_of(model, x, optimizer), step


def comm_step(config):
    model, x = build(config)
    (model(x) ** 2).mean().backward()  # gradients of the right sizes, once
    params = list(model.parameters())
    return None, lambda: allreduce_all(params)


def serial_step(config):
    model, x = build(config)
    optimizer = pt.optim.SGD(model.parameters(), lr=1e-3)
    params = list(model.parameters())

    def step(loss):
        loss.backward()
        allreduce_all(params)
        optimizer.step()
    return forward_of(model, x, optimizer), step


def hooked_step(config):
    model, x = build(config)
    optimizer = pt.optim.SGD(model.parameters(), lr=1e-3)
    handles = []
    for i, p in enumerate(model.parameters()):
        p.register_post_accumulate_grad_hook(
            lambda param, i=i: handles.append(hvd.allreduce_async_(param.grad, name=f"grad.{i}")))

    def step(loss):
        loss.backward()
        while handles:
            hvd.synchronize(handles.pop())
        optimizer.step()
    return forward_of(model, x, optimizer), step


def optimizer_step(config):
    model, x = build(config)
    optimizer = hvd.DistributedOptimizer(pt.optim.SGD(model.parameters(), lr=1e-3),
                                         named_parameters=model.named_parameters())

    def step(loss):
        loss.backward()
        optimizer.step()
    return forward_of(model, x, optimizer), step


def ddp_step(config):
    model, x = build(config)
    ddp = DistributedDataParallel(model, bucket_cap_mb=config.bucket_cap_mb)
    optimizer = pt.optim.SGD(ddp.parameters(), lr=1e-3)

    def step(loss):
        loss.backward()
        optimizer.step()
    return forward_of(ddp, x, optimizer), step


STEPS = {"compute": compute_step, "comm": comm_step, "hooked": hooked_step, "optimizer": optimizer_step,
         "nofusion": optimizer_step, "comm-nofusion": comm_step, "serial": serial_step, "ddp": ddp_step}
UNFUSED = ("nofusion", "comm-nofusion")  # run with HOROVOD_FUSION_THRESHOLD=0


# ----------------------------------------------------------------------------- running a variant


def rank_median(make_step, config) -> float:
    hvd.init()
    try:
        setup, step = make_step(config)
        hvd.barrier()
        return median_seconds(step, config.repeats, setup)
    finally:
        hvd.shutdown()


def measure(variant: str, config, bandwidth: float) -> float:
    """The slowest rank's median step time, in seconds (the environment is read by ``hvd.init``)."""
    make_step = STEPS[variant]
    if variant == "nofusion" and not has_distributed_optimizer():
        make_step = hooked_step
    saved = os.environ.get("HOROVOD_FUSION_THRESHOLD")
    if variant in UNFUSED:
        os.environ["HOROVOD_FUSION_THRESHOLD"] = "0"
    try:
        network = hvd.NetworkModel(latency=config.latency, bandwidth=bandwidth)
        return max(hvd.launch(rank_median, config.ranks, make_step, config, network=network, timeout=120))
    finally:
        if saved is None:
            os.environ.pop("HOROVOD_FUSION_THRESHOLD", None)
        else:
            os.environ["HOROVOD_FUSION_THRESHOLD"] = saved


def has_distributed_optimizer() -> bool:
    try:
        hvd.DistributedOptimizer(pt.optim.SGD([pt.zeros(1, requires_grad=True)], lr=0.1))
    except NotImplementedError:
        return False
    except Exception:  # noqa: BLE001 - it exists, and refuses to run outside hvd.init(): fine
        return True
    return True


def calibrate(config, compute: float) -> float:
    """A bandwidth for which the allreduce of the gradients takes about ``compute`` seconds.

    The time of ``comm`` is about a + b / bandwidth (a: latencies and the runtime's cycles): a secant search
    on 1 / bandwidth, starting from an infinite bandwidth and the ring's bytes per rank."""
    if config.bandwidth:
        return config.bandwidth
    x0, c0 = 0.0, measure("comm", config, float("inf"))
    if c0 >= compute:
        print(f"(communication costs {c0 * 1e3:.1f} ms without any transfer time: more than compute)")
        return float("inf")
    ring_bytes = 2 * (config.ranks - 1) / config.ranks * config.layers * config.width ** 2 * 4
    x1 = (compute - c0) / ring_bytes
    c1 = measure("comm", config, 1 / x1)
    for _ in range(3):
        if abs(c1 - compute) < 0.05 * compute:
            break
        x2 = x1 + (compute - c1) * (x1 - x0) / (c1 - c0) if c1 != c0 else 2 * x1
        x0, c0, x1 = x1, c1, max(x2, x1 / 4)
        c1 = measure("comm", config, 1 / x1)
    return 1 / x1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--layers", type=int, default=16)
    parser.add_argument("--width", type=int, default=320)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=9, help="steps per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="measurements per variant, taken in turns")
    parser.add_argument("--latency", type=float, default=1e-4, help="seconds per message")
    parser.add_argument("--bandwidth", type=float, default=None, help="bytes/s (default: calibrated)")
    parser.add_argument("--bucket-cap-mb", type=float, default=None, help="ddp's bucket_cap_mb")
    parser.add_argument("--switch-interval", type=float, default=None,
                        help="sys.setswitchinterval (s): how long a thread holding the GIL keeps it from the others")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    config = parser.parse_args()
    if config.switch_interval is not None:
        sys.setswitchinterval(config.switch_interval)
    if not hasattr(hvd, "NetworkModel"):
        sys.exit("needs the threads backend's network model: picotorch.distributed.NetworkModel")
    variants = [v for v in config.variants.split(",") if v]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        sys.exit(f"unknown variants {sorted(unknown)}: choose from {', '.join(VARIANTS)}")

    bandwidth = calibrate(config, measure("compute", config, float("inf")))
    grad_bytes = config.layers * config.width * config.width * 4
    print(f"{config.ranks} ranks, {config.layers} layers {config.width}x{config.width}, batch {config.batch}: "
          f"{grad_bytes / 2**20:.1f} MiB of gradients; network: latency {config.latency * 1e6:.0f} µs, "
          f"bandwidth {bandwidth / 2**20:.1f} MiB/s; median of {config.repeats} steps, median of {config.rounds} "
          f"rounds")
    if "optimizer" in variants and not has_distributed_optimizer():
        print("optimizer: n/a (hvd.DistributedOptimizer is not written yet)")
        variants.remove("optimizer")
    # The machine is shared: the variants take turns, round after round, so that each round's load is shared.
    extra = ["comm-nofusion"] if "nofusion" in variants else []
    rounds = {variant: [] for variant in ["compute", "comm"] + extra + variants}
    for _ in range(config.rounds):
        for variant in rounds:
            rounds[variant].append(measure(variant, config, float("inf") if variant == "compute" else bandwidth))
    results = {variant: statistics.median(times) for variant, times in rounds.items()}
    compute, comm = results["compute"], results["comm"]
    ideal, serial = max(compute, comm), compute + comm
    bounds = {variant: (ideal, serial) for variant in results}
    if "comm-nofusion" in results:
        unfused = results["comm-nofusion"]
        for variant in UNFUSED:
            bounds[variant] = (max(compute, unfused), compute + unfused)
    print(f"{'variant':<13} {'ms/step':>9} {'/ideal':>7} {'/serial':>8}")
    for variant, seconds in results.items():
        print(f"{variant:<13} {seconds * 1e3:9.1f} {seconds / bounds[variant][0]:7.2f} "
              f"{seconds / bounds[variant][1]:8.2f}")
    print(f"ideal = max(compute, comm) = {ideal * 1e3:.1f} ms; serial = compute + comm = {serial * 1e3:.1f} ms")
    if "comm-nofusion" in results:
        print(f"nofusion's: ideal = max(compute, comm-nofusion) = {bounds['nofusion'][0] * 1e3:.1f} ms; "
              f"serial = {bounds['nofusion'][1] * 1e3:.1f} ms")
    for variant in ("hooked", "optimizer", "nofusion"):
        if variant in results:
            ideal, serial = bounds[variant]
            verdict = "yes" if results[variant] <= 1.1 * ideal else "no"
            print(f"{variant}: within 10% of ideal: {verdict} ({results[variant] / ideal:.2f}x ideal, "
                  f"{results[variant] / serial:.2f}x serial)")


if __name__ == "__main__":
    main()
