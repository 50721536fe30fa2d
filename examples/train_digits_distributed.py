"""Train the digits MLP data-parallel with ``picotorch.distributed``, Horovod's way.

    mpiexec -n 2 python examples/train_digits_distributed.py            # 2 real processes (MPI)
    python examples/train_digits_distributed.py --threads 4             # 4 ranks as threads of one process
    python examples/train_digits_distributed.py --threads 2 --check     # assert the run equals 1 process
    python examples/train_digits_distributed.py --threads 2 --plot loss.png

The model, data, first weights and batch order are ``train_digits.py``'s (imported from it). Every rank
walks the same global batches in the same order and takes its own contiguous slice of each one; the
``DistributedOptimizer`` averages the gradients over the ranks while backward runs, so every rank takes
the step a single process would take on the whole batch. The loss of each slice is its *sum* scaled by
``size / len(global batch)``: then the average over the ranks is the mean over the global batch even when
the last batch does not split evenly.

``--check`` proves it after every step: every rank holds bit-identical parameters (``allgather_object``),
the averaged gradients equal the full batch's (computed in one process over the same slices, see
``reference_gradients``), and the parameters equal, to float32 tolerance, those of a plain model that took the
same step on the full batch from the same parameters. (The reference is then set
to the ranks' parameters: the sums of a fused ring allreduce are added in an order that depends on what
each cycle fused, so the last bits differ from run to run, and Adam, which divides by the square root of
small averages, lets such differences grow over hundreds of steps. Adam can even move a weight whose
gradient sums to about zero by up to 2 lr differently in one step: so with Adam the parameters are
compared to 2.5 lr, and the gradients, which decide the step, to float32 tolerance.)
``--no-hooks`` replaces the ``DistributedOptimizer`` by one ``hvd.allreduce_`` per gradient after
backward (no overlap: the baseline the hooks improve on).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # train_digits.py sits beside this file

from train_digits import (  # noqa: E402
    History,
    NumpyShuffle,
    accuracy,
    digits,
    initial_weights,
    make_model,
    make_optimizer,
)

import picotorch  # noqa: E402
import picotorch.distributed as hvd  # noqa: E402

F = picotorch.nn.functional


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, metavar="N", help="N ranks as threads (default: MPI, one rank "
                        "per process under mpiexec)")
    parser.add_argument("--optimizer", default="adam", choices=["adam", "sgd"])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--steps", type=int, default=None, help="stop after this many steps")
    parser.add_argument("--batch-size", type=int, default=32, help="the GLOBAL batch, split over the ranks")
    parser.add_argument("--lr", type=float, default=None, help="default: 1e-3 for Adam, 0.05 for SGD")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", action="store_true", help="after every step, assert that all ranks agree "
                        "and equal a single process trained on the full batch")
    parser.add_argument("--no-hooks", action="store_true", help="plain optimizer + hvd.allreduce_ of each "
                        "gradient after backward, instead of hvd.DistributedOptimizer")
    parser.add_argument("--plot", metavar="PNG", help="write the loss and accuracy curves to this file")
    return parser.parse_args(argv)


def global_batches(n: int, batch_size: int, seed: int, epochs: int):
    """Per epoch, the list of global batches (index arrays): ``DataLoader(sampler=NumpyShuffle)``'s order."""
    sampler = NumpyShuffle(n, seed)
    for _ in range(epochs):
        order = np.array(list(iter(sampler)))
        yield [order[i:i + batch_size] for i in range(0, n, batch_size)]


def my_slice(batch: np.ndarray) -> np.ndarray:
    return np.array_split(batch, hvd.size())[hvd.rank()]


def fresh_model(seed: int):
    model = make_model(picotorch)
    model.load_state_dict({k: picotorch.from_numpy(v) for k, v in initial_weights(seed).items()})
    return model


def shard_loss(model, x: np.ndarray, y: np.ndarray, global_size: int):
    """This rank's share of the global mean loss, times ``size`` (the gradients are then averaged)."""
    logits = model(picotorch.from_numpy(x))
    return F.cross_entropy(logits, picotorch.from_numpy(y), reduction="sum") * (hvd.size() / global_size)


def averaged_by_hand(model) -> None:
    """``--no-hooks``: average every gradient after backward, one blocking allreduce each."""
    for name, p in model.named_parameters():
        hvd.allreduce_(p.grad, name=f"grad.{name}")


def reference_gradients(reference, reference_opt, x, y, batch) -> None:
    """The full batch's gradients in one process, summed slice by slice over the ranks' own slices and averaged
    as the ranks average them. Not one product over the whole batch: a batch of 32 rows and a slice of 8 can
    round a hidden unit's pre-activation differently (multithreaded BLAS blocks by the number of rows), and at
    ReLU's kink that flips the unit's derivative for one sample (seen at step 80 with 4 ranks)."""
    reference_opt.zero_grad()
    for rows in np.array_split(batch, hvd.size()):
        shard_loss(reference, x[rows], y[rows], len(batch)).backward()
    with picotorch.no_grad():
        for q in reference.parameters():
            q.grad /= hvd.size()


def check_gradients(model, reference, step: int) -> None:
    """The averaged gradients equal the full batch's, to float32 tolerance (relative to the largest)."""
    for (name, p), (_, q) in zip(model.named_parameters(), reference.named_parameters()):
        mine, expected = p.grad.numpy(), q.grad.numpy()
        scale = max(float(np.abs(expected).max()), 1e-30)
        if not np.allclose(mine, expected, rtol=1e-4, atol=1e-5 * scale):
            worst = np.abs(mine - expected).max()
            raise AssertionError(f"step {step}: the gradient of {name} differs from the full batch's by up to "
                                 f"{worst:.3g}")


def check_step(model, reference, step: int, atol: float) -> None:
    """Every rank holds the same bits, and they match the single-process ``reference`` model; then the
    reference takes the ranks' parameters, so the next step starts from the same point (see the docstring)."""
    mine = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    for rank, theirs in enumerate(hvd.allgather_object(mine)):
        for name, value in theirs.items():
            if not np.array_equal(value, mine[name]):
                raise AssertionError(f"step {step}: rank {hvd.rank()}'s {name} differs from rank {rank}'s")
    for name, value in reference.state_dict().items():
        expected = value.detach().numpy()
        if not np.allclose(mine[name], expected, rtol=1e-4, atol=atol):
            worst = np.abs(mine[name] - expected).max()
            raise AssertionError(f"step {step}: {name} differs from the single-process run by up to {worst:.3g}")
    with picotorch.no_grad():
        for name, value in reference.state_dict().items():
            value.copy_(picotorch.from_numpy(mine[name]))


def train(args: argparse.Namespace) -> History:
    """One rank's training loop (every rank runs it); returns the global loss history (the same on all ranks)."""
    hvd.init()
    x_train, y_train, x_test, y_test = digits(args.seed)
    model = fresh_model(args.seed)
    opt = make_optimizer(picotorch, model.parameters(), args.optimizer, args.lr)
    if not args.no_hooks:
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    reference = fresh_model(args.seed) if args.check else None
    reference_opt = make_optimizer(picotorch, reference.parameters(), args.optimizer, args.lr) if args.check else None
    # (see the docstring: with Adam a near-zero gradient may move a weight by up to 2 lr either way)
    parameter_atol = 2.5 * reference_opt.defaults["lr"] if args.check and args.optimizer == "adam" else 1e-5

    if hvd.rank() == 0:
        print(f"{hvd.size()} rank{'s' if hvd.size() > 1 else ''}, {args.optimizer}, global batch {args.batch_size} "
              f"({'allreduce_ after backward' if args.no_hooks else 'hvd.DistributedOptimizer'})", flush=True)
    history, start, step = History(), time.perf_counter(), 0
    for batches in global_batches(len(x_train), args.batch_size, args.seed, args.epochs):
        total, seen = 0.0, 0
        for batch in batches:
            mine = my_slice(batch)
            loss = shard_loss(model, x_train[mine], y_train[mine], len(batch))
            opt.zero_grad()
            loss.backward()
            step += 1
            if args.no_hooks:
                averaged_by_hand(model)
            if reference is None:
                opt.step()
            else:  # the averaged gradients first (synchronize), then the same step on both
                if not args.no_hooks:
                    opt.synchronize()
                reference_gradients(reference, reference_opt, x_train, y_train, batch)
                check_gradients(model, reference, step)
                with contextlib.nullcontext() if args.no_hooks else opt.skip_synchronize():
                    opt.step()
                reference_opt.step()
                check_step(model, reference, step, parameter_atol)
            batch_loss = hvd.allreduce(loss.detach(), op=hvd.Average, name="loss").item()  # the global mean
            history.step_loss.append(batch_loss)
            total, seen = total + batch_loss * len(batch), seen + len(batch)
            if step == args.steps:
                break
        history.epoch_loss.append(total / seen)
        history.test_accuracy.append(accuracy(picotorch, model, picotorch.from_numpy(x_test),
                                              picotorch.from_numpy(y_test)))
        report(history)
        if step == args.steps:
            break
    history.seconds = time.perf_counter() - start
    if hvd.rank() == 0:
        checked = ", every rank equal to the single-process run after each step" if args.check else ""
        print(f"{step} steps in {history.seconds:.1f}s{checked}", flush=True)
    hvd.shutdown()
    return history


def report(history: History) -> None:
    if hvd.rank() == 0:
        epoch = len(history.epoch_loss)
        print(f"epoch {epoch:2d}  loss {history.epoch_loss[-1]:.4f}  test accuracy {history.test_accuracy[-1]:.1%}",
              flush=True)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    if args.threads:
        history = hvd.launch(train, args.threads, args, timeout=60.0)[0]
        rank = 0
    else:
        history = train(args)
        rank = _mpi_rank()
    if args.plot and rank == 0:
        from train_digits import plot

        ranks = args.threads or _mpi_size()
        plot({f"{ranks} ranks ({'threads' if args.threads else 'mpi'})": history}, args.plot)


def _mpi_rank() -> int:
    from mpi4py import MPI  # lazy: only the MPI run needs it (hvd.init already imported it)

    return MPI.COMM_WORLD.Get_rank()


def _mpi_size() -> int:
    from mpi4py import MPI  # lazy, as above

    return MPI.COMM_WORLD.Get_size()


if __name__ == "__main__":
    main()
