"""PyTorch's way, for comparison: DDP's bucketed reducer (``torch/nn/parallel/distributed.py``, ``reducer.cpp``).

Models ``torch/nn/parallel/distributed.py`` (``DistributedDataParallel``: wrap a module, bucket its
parameters, ``no_sync``) and ``torch/csrc/distributed/c10d/reducer.cpp`` (``Reducer``:
``compute_bucket_assignment_by_size``, a hook on each parameter's gradient accumulator,
``mark_variable_ready``, buckets launched in order, ``finalize_backward``, ``ensure_prior_reduction_finished``).

Horovod and DDP both hook the gradient accumulators and start communicating while backward runs. They
differ in who decides what travels together:

- Horovod: each gradient is its own request; the background cycle fuses whatever is ready on every rank
  into buffers of up to ``HOROVOD_FUSION_THRESHOLD`` bytes, anew at each cycle (``runtime.py``);
- DDP: the groups (buckets) are fixed in advance. In the first iteration every parameter is in one bucket,
  and the reducer notes the order in which the gradients arrive; at the next forward it cuts that order
  into buckets (``rebuild_buckets``): the first one up to 1 MiB (``dist._DEFAULT_FIRST_BUCKET_BYTES``, so
  that communication starts early; with an explicit ``bucket_cap_mb``, up to that), the others up to
  ``bucket_cap_mb`` MiB (default 25); rank 0's buckets are broadcast so that every rank has the same. For
  a stack of layers that order is the reverse of ``module.parameters()``. A bucket's allreduce starts when
  its last gradient has arrived, and buckets start in index order (bucket 2 full before bucket 1 waits
  for bucket 1). With ``find_unused_parameters=True`` there is no rebuild: the buckets are cut from the
  start in ``module.parameters()`` order, the bucket of the first parameters capped at 1 MiB, and the
  list is reversed.

Every gradient is divided by the world size as it is copied into its bucket (one flat tensor per bucket),
the bucket is summed over the ranks (``allreduce_async_(op=Sum)`` through this package's runtime), and when
the last bucket has started, ``finalize_backward`` waits for them all and writes the averages into each
``.grad``. If some parameter's hook never ran (it took no part in the loss), the reduction never finished:
the next forward raises PyTorch's "Expected to have finished reduction in the prior iteration..." error,
unless ``find_unused_parameters=True`` (then the graph is searched after forward and unused parameters
are marked ready at once).

Simplifications: PyTorch queues ``finalize_backward`` with ``Variable._execution_engine.queue_callback``
to run when the engine finishes; picotorch's engine has no final callbacks, so it runs in the hook that
launches the last bucket (every parameter's gradient is final by then: the same result, a few nodes
earlier). No ``gradient_as_bucket_view``, ``static_graph``, comm hooks, ``bucket_cap_mb_list``, or buffers
broadcast at each forward.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass

import numpy as np

from .._C import _VariableFunctions, from_numpy
from ..autograd import is_grad_enabled, no_grad
from ..native.device import to_numpy
from ..native.dispatcher import ops
from ..native.tensor_impl import TensorImpl
from ..nn.modules.module import Module
from .basics import initialized_state
from .functions import broadcast_object, broadcast_parameters
from .mpi_ops import Sum, allreduce_async_, synchronize
from .process_sets import global_process_set

__all__ = ["DEFAULT_BUCKET_CAP_MB", "DEFAULT_FIRST_BUCKET_BYTES", "DistributedDataParallel", "Reducer",
           "compute_bucket_assignment_by_size"]

DEFAULT_BUCKET_CAP_MB = 25  # torch.nn.parallel.distributed._DEFAULT_BUCKET_CAP_MB
DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024  # torch.distributed._DEFAULT_FIRST_BUCKET_BYTES
MB = 1024 * 1024


# ----------------------------------------------------------------------------- the module wrapper


class DistributedDataParallel(Module):
    """``torch.nn.parallel.DistributedDataParallel``: ``module``'s gradients averaged over the ranks by buckets.

    Rank 0's parameters and buffers are broadcast at construction, so every rank starts equal.
    ``process_group``: a ``ProcessSet`` (the global set by default). ``ddp.reducer.bucket_indices``: the
    buckets, as parameter indices, in the order they are reduced.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False) -> None:
        super().__init__()
        self.module = module
        self.process_group = global_process_set if process_group is None else process_group
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        named = [(name, p) for name, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        initialized_state()
        broadcast_parameters(named + list(module.named_buffers()), root_rank=0, process_set=self.process_group)
        params = [p for _, p in named]
        self.bucket_bytes_cap = int((DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb) * MB)
        first_cap = DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        if not find_unused_parameters:
            limits = [sys.maxsize]  # one bucket until the first iteration shows the order (rebuild_buckets)
        elif first_cap < self.bucket_bytes_cap:
            limits = [first_cap, self.bucket_bytes_cap]
        else:
            limits = [self.bucket_bytes_cap]
        bucket_indices, _ = compute_bucket_assignment_by_size(params, limits)
        # Reversed: the gradients of the last parameters are computed first (distributed.py's note).
        self.reducer = Reducer(params, list(reversed(bucket_indices)), self.process_group, find_unused_parameters,
                               [name for name, _ in named], self.bucket_bytes_cap, first_cap)

    def forward(self, *inputs, **kwargs):
        if is_grad_enabled():
            self.reducer.rebuild_buckets()  # first checks that the previous iteration's reduction finished
        output = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self.reducer.prepare_for_backward(_find_tensors(output) if self.find_unused_parameters else [])
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside; the first forward-backward after it averages the sum.

        The forward must be inside the context, as in PyTorch (the flag is read by forward)."""
        old, self.require_backward_grad_sync = self.require_backward_grad_sync, False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old


def _find_tensors(obj) -> list:
    """The tensors in a forward's output (nested lists, tuples, dicts), without recursion."""
    found, stack = [], [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, TensorImpl):
            found.append(item)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return found


# ----------------------------------------------------------------------------- bucket assignment


def compute_bucket_assignment_by_size(tensors, bucket_size_limits, tensor_indices=()) -> tuple[list, list]:
    """``dist._compute_bucket_assignment_by_size``: cut ``tensors`` into buckets; ``(bucket_indices, limits)``.

    Tensors go, in order, into the open bucket of their (dtype, device); a bucket closes when its bytes
    reach the current limit, and that key moves on to the next limit of ``bucket_size_limits`` (the last
    one repeats). Without ``tensor_indices`` the buckets are sorted by the smallest index they hold.
    """
    if not tensors:
        raise RuntimeError("Expected at least one tensor")
    result: list[tuple[list[int], int]] = []
    open_buckets: dict[tuple, list] = {}  # key -> [indices, bytes, limit position]
    for i, tensor in enumerate(tensors):
        index = tensor_indices[i] if tensor_indices else i
        bucket = open_buckets.setdefault((str(tensor.dtype), str(tensor.device)), [[], 0, 0])
        bucket[0].append(index)
        bucket[1] += tensor.numel() * tensor.element_size()
        limit = bucket_size_limits[bucket[2]]
        if bucket[1] >= limit:
            result.append((bucket[0], limit))
            bucket[:] = [[], 0, min(bucket[2] + 1, len(bucket_size_limits) - 1)]
    result += [(indices, bucket_size_limits[position]) for indices, _, position in open_buckets.values() if indices]
    if not tensor_indices:
        result.sort(key=lambda bucket: min(bucket[0]))
    return [indices for indices, _ in result], [limit for _, limit in result]


def _compute_bucket_assignment_by_size(tensors, bucket_size_limits, expect_sparse_gradient=(), tensor_indices=()):
    """The same, with ``torch.distributed``'s name and arguments (sparse gradients are left out: ignored)."""
    return compute_bucket_assignment_by_size(tensors, bucket_size_limits, tensor_indices)


# ----------------------------------------------------------------------------- the reducer


@dataclass(eq=False)
class Bucket:
    """One bucket: its parameters (indices), how many have not reported yet, its flat buffer and handle."""

    variable_indices: list[int]
    pending: int = 0
    flat: object = None
    handle: int | None = None


class Reducer:
    """``c10d::Reducer``: hooks on the gradient accumulators, buckets launched in order, averages written back."""

    def __init__(self, params: list, bucket_indices: list[list[int]], process_group, find_unused_parameters: bool,
                 param_names: list[str], bucket_bytes_cap: int, first_bucket_bytes_cap: int) -> None:
        self.params = params
        self.param_names = param_names
        self.process_group = process_group
        self.find_unused_parameters = find_unused_parameters
        self.bucket_bytes_cap = bucket_bytes_cap
        self.first_bucket_bytes_cap = first_bucket_bytes_cap
        self.initialize_buckets(bucket_indices)
        self.has_rebuilt_bucket = False
        self.rebuilt_param_indices: list[int] = []  # the order the gradients arrived in, in the first iteration
        self.expect_autograd_hooks = False
        self.require_finalize = False
        self.next_bucket = 0
        self.marked: set[int] = set()
        self.locally_used: set[int] = set()
        # The accumulators are held weakly by their tensors: keep them alive, or the hooks never fire.
        self.grad_accumulators = [p.expand_as(p).grad_fn.next_functions[0][0] for p in params]
        self.hooks = [acc.register_hook(self._make_hook(i)) for i, acc in enumerate(self.grad_accumulators)]

    def initialize_buckets(self, bucket_indices: list[list[int]]) -> None:
        self.bucket_indices = bucket_indices
        self.buckets = [Bucket(list(indices)) for indices in bucket_indices]
        self.variable_locators = {i: b for b, indices in enumerate(bucket_indices) for i in indices}

    def _make_hook(self, index: int):
        def autograd_hook(grad_inputs, grad_outputs):
            self.autograd_hook(index)
        return autograd_hook

    # ---- each iteration
    def prepare_for_backward(self, outputs: list) -> None:
        """After forward: expect every parameter's hook; with ``find_unused_parameters``, mark the unused now."""
        self.expect_autograd_hooks = True
        self.next_bucket = 0
        self.marked.clear()
        self.locally_used.clear()
        for bucket in self.buckets:
            bucket.pending, bucket.flat, bucket.handle = len(bucket.variable_indices), None, None
        if self.find_unused_parameters:
            reached = _accumulators_reached_from(outputs)
            for index, accumulator in enumerate(self.grad_accumulators):
                if accumulator not in reached:
                    self.mark_variable_ready(index)

    def autograd_hook(self, index: int) -> None:
        if not self.expect_autograd_hooks:  # no_sync, or a backward that DDP's forward did not prepare
            return
        self.locally_used.add(index)
        if self.should_rebuild_buckets():
            self.rebuilt_param_indices.append(index)
        self.mark_variable_ready(index)

    def mark_variable_ready(self, index: int) -> None:
        if index in self.marked:
            raise RuntimeError(  # PyTorch's text, its three possible reasons shortened to their first lines
                "Expected to mark a variable ready only once. This error is caused by one of the following "
                "reasons: 1) Use of a module parameter outside the `forward` function. 2) Reused parameters in "
                "multiple reentrant backward passes. 3) Incorrect unused parameter detection.\n"
                f"Parameter at index {index} with name {self.param_names[index]} has been marked as ready twice. "
                "This means that multiple autograd engine hooks have fired for this particular parameter during "
                "this iteration.")
        self.marked.add(index)
        self.require_finalize = True
        bucket = self.buckets[self.variable_locators[index]]
        bucket.pending -= 1
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            self.all_reduce_bucket(self.buckets[self.next_bucket], self.next_bucket)
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets):
            self.finalize_backward()  # PyTorch: queued as the engine's final callback

    def all_reduce_bucket(self, bucket: Bucket, bucket_index: int) -> None:
        """One flat tensor of the bucket's gradients, each divided by the world size, summed over the ranks."""
        size = self.process_group.size()
        parts = [self._grad_or_zeros(i).reshape(-1) for i in bucket.variable_indices]
        with no_grad():
            bucket.flat = ops.cat(parts, 0) / size
        bucket.handle = allreduce_async_(bucket.flat, name=f"DistributedDataParallel.bucket.{bucket_index}", op=Sum,
                                         process_set=self.process_group)

    def _grad_or_zeros(self, index: int):
        param = self.params[index]
        return param.grad.detach() if param.grad is not None else _VariableFunctions.zeros_like(param.detach())

    def finalize_backward(self) -> None:
        """Wait for every bucket and write each parameter's averaged gradient into its ``.grad``."""
        self.expect_autograd_hooks = False
        self.require_finalize = False
        used_somewhere = self._globally_used() if self.find_unused_parameters else None
        for bucket in self.buckets:
            flat = synchronize(bucket.handle)
            offset = 0
            for index in bucket.variable_indices:
                param = self.params[index]
                numel = param.numel()
                if used_somewhere is None or used_somewhere[index]:
                    _write_grad(param, flat[offset:offset + numel].reshape(param.shape))
                offset += numel

    def _globally_used(self) -> list[bool]:
        """Which parameters some rank used this iteration (a parameter no rank used keeps its ``.grad``)."""
        used = from_numpy(_used_map(len(self.params), self.locally_used))
        synchronize(allreduce_async_(used, name="DistributedDataParallel.local_used_map", op=Sum,
                                     process_set=self.process_group))
        return [bool(v) for v in to_numpy(used._data)]

    # ---- at the start of the next iteration
    def should_rebuild_buckets(self) -> bool:
        return not self.find_unused_parameters and not self.has_rebuilt_bucket

    def rebuild_buckets(self) -> bool:
        """Once, at the second forward: buckets cut from the order the gradients arrived in (rank 0's)."""
        self.ensure_prior_reduction_finished()
        if not self.should_rebuild_buckets() or not self.rebuilt_param_indices:
            return False
        order, self.rebuilt_param_indices = self.rebuilt_param_indices, []
        bucket_indices, _ = compute_bucket_assignment_by_size(
            [self.params[i] for i in order], [self.first_bucket_bytes_cap, self.bucket_bytes_cap], order)
        self.initialize_buckets(broadcast_object(bucket_indices, 0, process_set=self.process_group))
        self.has_rebuilt_bucket = True
        return True

    def ensure_prior_reduction_finished(self) -> None:
        if not self.require_finalize:
            return
        unmarked = [i for i in range(len(self.params)) if i not in self.marked]
        message = ("Expected to have finished reduction in the prior iteration before starting a new one. "
                   "This error indicates that your module has parameters that were not used in producing loss. ")
        if not self.find_unused_parameters:
            message += ("You can enable unused parameter detection by passing the keyword argument "
                        "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n")
        else:
            message += ("Since `find_unused_parameters=True` is enabled, this likely  means that not all `forward` "
                        "outputs participate in computing loss. You can fix this by ")
        message += ("making sure all `forward` function outputs participate in calculating loss. \n"
                    "If you already have done the above, then the distributed data parallel module wasn't able to "
                    "locate the output tensors in the return value of your module's `forward` function. Please "
                    "include the loss function and the structure of the return value of `forward` of your module "
                    "when reporting this issue (e.g. list, dict, iterable).\n"
                    f"Parameter indices which did not receive grad for rank {self.process_group.rank()}: "
                    + " ".join(str(i) for i in unmarked))  # PyTorch then advises TORCH_DISTRIBUTED_DEBUG: left out
        raise RuntimeError(message)


def _used_map(count: int, used: set) -> np.ndarray:
    return np.array([1 if i in used else 0 for i in range(count)], dtype=np.int32)


def _write_grad(param, value) -> None:
    with no_grad():
        if param.grad is None:
            param.grad = value.clone()
        else:
            param.grad.copy_(value)


def _accumulators_reached_from(outputs: list) -> set:
    """Every node behind ``outputs``, AccumulateGrad nodes among them (``search_unused_parameters``: an
    iterative graph walk)."""
    seen, stack = set(), [t.grad_fn for t in outputs if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions if next_node is not None)
    return seen
