"""The autograd engine: run a graph's nodes in dependency order, highest ``sequence_nr`` first.

Models ``torch/csrc/autograd/engine.cpp`` / ``engine.h`` and ``graph_task.h``. The file reads in the
order a backward runs:

- ``Engine.execute``: build the ``GraphTask``, count dependencies, then pop ready nodes until none is left:
  on the plain CPU path in ``_execute_on_caller``; with threads in ``execute_with_graph_task`` and
  ``thread_main`` (the methods after it: which queue a node goes to, the device threads, reentrance);
- ``evaluate_function``: run one node (or only capture its gradients for ``autograd.grad``), then pass
  each output gradient along its edge; a node becomes ready when its last gradient arrives;
- ``call_function`` (hooks before, the node, hooks after) and ``validate_outputs`` (each gradient checked
  against the input it flows to);
- ``GraphTask`` (dependencies, not-ready input buffers, ``exec_info``, captured gradients, and for the
  threads its outstanding-task count and future), ``init_to_execute`` (which nodes
  ``autograd.grad(inputs=...)`` needs, pruned with ``topological_nr``) and ``compute_dependencies``;
- ``InputBuffer``, the gradients arriving at one node; the ready queue that orders the ready nodes is in
  ``ready_queue.py``; last, the threads' own state (``WorkerState``, engine.cpp's thread-locals).

Threads as in PyTorch: the thread that calls backward runs the CPU nodes; each accelerator device index
has a worker thread (``pt_autograd_<index>``) with its own ready queue (``device_ready_queues``); a node
goes to the queue of its device (``Node.device``: the device of the gradients it receives); tasks cross
threads as ``NodeTask``s, and the GraphTask's outstanding-task count and future tell the caller when
the backward is done (or failed: the worker's exception is raised in the caller). A backward called
from inside a node (reentrant) runs on the same thread one level deeper, and past ``MAX_DEPTH`` levels
on a new thread (Note [Reentrant backwards]).

When no node needs another thread (no accelerator in the graph, no reentrance, no profile recording),
the caller runs the same loop without locks, counts or future: the plain CPU path, which every
backward of chapters 00-03 takes, costs what it cost before the threads existed.
Simplification: a device thread starts when its first node is ready (PyTorch starts them all at the
first backward); a reentrant backward started from the plain loop gets a ready queue of its own (its
nodes would rank above the outer ones anyway); only grad mode is carried to the worker threads.
"""

from __future__ import annotations

import itertools
import threading
import time
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..native.device import has_accelerator
from ..native.dispatcher import ops
from . import anomaly_mode, profiler
from .anomaly_mode import AnomalyMode
from .functions_manual import sum_to
from .grad_mode import is_multithreading_enabled, set_grad_enabled
from .graph import Edge, GraphRoot, Node, count_pruning_backward, swap_current_graph_task
from .hooks import call_node_hooks
from .ready_queue import NodeTask, ReadyQueue, SequenceNrReadyQueue, ThreadSafeReadyQueue
from .thread_local_state import ThreadLocalState

if TYPE_CHECKING:  # imported where used: only the threaded path needs it
    from concurrent.futures import Future

NO_DEVICE = -2  # a thread that is not running a backward
CPU_DEVICE = -1  # the thread that called backward, running its CPU nodes
MAX_DEPTH = 60  # engine.h: reentrant backwards nested on one thread before a new thread takes over

# ----------------------------------------------------------------------------- the engine


class Engine:
    """``torch._C._EngineBase``: one per process, reached as ``Variable._execution_engine``."""

    def __init__(self) -> None:
        self.max_recursion_depth = MAX_DEPTH
        self.device_ready_queues: dict[int, ThreadSafeReadyQueue] = {}  # device index -> its worker's queue
        self.device_threads_lock = threading.Lock()
        self.thread_pool_shared = ThreadPoolShared()

    def execute(self, root_edges: list[Edge], root_grads: list, keep_graph: bool, create_graph: bool,
                accumulate_grad: bool, outputs: list[Edge] | None = None) -> list:
        """Run the graph behind ``root_edges``; return the gradients captured for ``outputs`` (autograd.grad)."""
        task = GraphTask(keep_graph=keep_graph, grad_mode=create_graph)
        validate_outputs(root_edges, root_grads, None)  # the root gradients too: a float64 one is cast
        # TORCH_WARN_ONCE in a backward reaches Python when the backward returns (or raises): after the hooks
        warn = accumulate_grad and create_graph and _create_graph_warning_unsent()
        graph_root, root_buffer = _graph_root(root_edges, root_grads)
        min_topo_nr = compute_min_topological_nr(outputs)
        compute_dependencies(graph_root, task, min_topo_nr)
        if outputs:
            task.init_to_execute(graph_root, outputs, accumulate_grad, min_topo_nr)
            count_pruning_backward(1)
        try:  # (no helper method: a reentrant backward nests this frame up to MAX_DEPTH times)
            prof = profiler.current_profile()
            if _worker.device == NO_DEVICE and prof is None and self._runs_on_caller_alone(task, graph_root):
                return self._execute_on_caller(task, graph_root, root_buffer)
            self.init_local_ready_queue()
            task.mutex = threading.Lock()
            task.reentrant_depth = 0 if _worker.device == NO_DEVICE else _worker.total_depth + 1
            task.cpu_ready_queue = _worker.local_ready_queue
            task.ready_queues = GraphTaskQueues(self, task.cpu_ready_queue)
            task.profile = prof
            task.thread_locals = ThreadLocalState()
            return self.execute_with_graph_task(task, graph_root, root_buffer).result()
        finally:
            if outputs:
                count_pruning_backward(-1)
            if warn:
                warnings.warn(_CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)

    def _runs_on_caller_alone(self, task: GraphTask, graph_root: Node) -> bool:
        """The plain CPU path: no node that a device thread would run (checked once per backward)."""
        if not has_accelerator() or not is_multithreading_enabled():
            return True
        return all(should_run_in_cpu_ready_queue(fn.device().type)
                   for fn in itertools.chain((graph_root,), task.nodes_in_graph))

    def _execute_on_caller(self, task: GraphTask, graph_root: Node, root_buffer: InputBuffer) -> list:
        """``thread_main`` on the calling thread, when every node is a CPU node: pop, run, until none is left."""
        queue = SequenceNrReadyQueue()
        queue.push(NodeTask(graph_root, root_buffer))
        _worker.device = CPU_DEVICE  # so that a backward called from inside a node knows it is reentrant
        previous_task = swap_current_graph_task(task)
        try:
            # The whole backward (nodes and hooks) runs with grad mode = create_graph, as the GraphTask's
            # thread-local state does in engine.cpp.
            with set_grad_enabled(task.grad_mode):
                while queue.heap:
                    item = queue.pop()
                    if AnomalyMode.enabled:
                        _evaluate(task, item.fn, item.inputs, queue)
                    else:  # _evaluate, inlined: one call fewer for every node of a plain backward
                        evaluate_function(task, item.fn, item.inputs, queue)
        finally:
            _worker.device = NO_DEVICE
            swap_current_graph_task(previous_task)
        return task.captured_vars

    # ---- the threads: Note [Reentrant backwards], Note [Allocating GPUs to autograd threads]

    def execute_with_graph_task(self, graph_task: GraphTask, graph_root: Node,
                                 input_buffer: InputBuffer) -> Future:
        """Queue the root, then drive: the caller runs its CPU nodes until the future completes."""
        # lazy: only the threaded path needs it, and concurrent.futures imports logging (chapter 06, import time)
        from concurrent.futures import Future

        graph_task.outstanding_tasks = AtomicCounter()
        graph_task.future_result = Future()
        queue = self.ready_queue(graph_task.cpu_ready_queue, graph_root.device())
        if _worker.device == NO_DEVICE:
            _worker.device = CPU_DEVICE
            graph_task.owner = CPU_DEVICE
            queue.push(NodeTask(graph_root, input_buffer, graph_task))
            try:
                self.thread_main(graph_task)
            finally:
                _worker.device = NO_DEVICE
        else:
            graph_task.owner = _worker.device
            queue.push(NodeTask(graph_root, input_buffer, graph_task))
            self.execute_reentrant(graph_task)
        return graph_task.future_result

    def execute_reentrant(self, graph_task: GraphTask) -> None:
        """Note [Reentrant backwards]: a backward started inside a node, on a thread already running one.

        Blocking here would deadlock (this thread must keep running its queue), so the thread runs
        ``thread_main`` for the new backward itself, one level deeper, then comes back. Past
        ``max_recursion_depth`` levels it hands the backward to a pool thread instead and waits.
        The worked example of keeping the counts is the caller's own branch just above: set, run, reset.
        """
        # BEGIN SOLUTION 4.2: from max_recursion_depth on, add_thread_pool_task; else thread_main one level deeper
        if _worker.current_depth >= self.max_recursion_depth:
            self.add_thread_pool_task(graph_task)
            return
        _worker.total_depth += 1
        _worker.current_depth += 1
        try:
            self.thread_main(graph_task)
        finally:
            _worker.current_depth -= 1
            _worker.total_depth -= 1
        # END SOLUTION

    def thread_main(self, graph_task: GraphTask | None) -> None:
        """Pop a task, run it, count it off; until ``graph_task`` completes (forever for a device thread)."""
        queue = _worker.local_ready_queue
        while graph_task is None or not graph_task.future_result.done():
            task = queue.pop()
            local_graph_task = task.base
            if task.fn is not None and not local_graph_task.has_error:
                try:
                    self.run_task(local_graph_task, task)
                except Exception as error:  # noqa: BLE001  (it goes to the thread waiting for this backward)
                    local_graph_task.set_exception(error, task.fn)
            local_graph_task.outstanding_tasks.decrement()
            if local_graph_task.completed():
                local_graph_task.mark_as_completed_and_run_post_processing()
                # The owner may be asleep in pop(): an empty task wakes it up to see that it is done.
                if _worker.device != local_graph_task.owner:
                    owner_queue = self.ready_queue_by_index(local_graph_task.cpu_ready_queue, local_graph_task.owner)
                    owner_queue.push(NodeTask(None, None, local_graph_task))
            # A device thread then waits in pop() for a long time: it must not keep this graph alive meanwhile.
            del task, local_graph_task

    def run_task(self, graph_task: GraphTask, task: NodeTask) -> None:
        """``evaluate_function`` under the backward's grad mode; one span per node when a profile records."""
        prof = graph_task.profile
        start = time.perf_counter_ns() if prof is not None else 0
        previous_task = swap_current_graph_task(graph_task)  # GraphTaskGuard
        try:
            with set_grad_enabled(graph_task.grad_mode):
                if threading.get_ident() == graph_task.thread_locals.thread:
                    _evaluate(graph_task, task.fn, task.inputs, graph_task.ready_queues)
                else:  # another thread: with the state of the one that called backward (NOTE [ThreadLocalState])
                    graph_task.thread_locals.run(_evaluate, graph_task, task.fn, task.inputs, graph_task.ready_queues)
        finally:
            swap_current_graph_task(previous_task)
            if prof is not None:
                prof.add_span(profiler.ENGINE_SPAN_PREFIX + task.fn.name(), start, time.perf_counter_ns(), "cpu_op")

    def ready_queue(self, cpu_ready_queue: ThreadSafeReadyQueue, device) -> ThreadSafeReadyQueue:
        """The queue a node of ``device`` goes to: the backward's CPU queue, or the device's worker thread."""
        if not is_multithreading_enabled() or should_run_in_cpu_ready_queue(device.type):
            return cpu_ready_queue
        # BEGIN SOLUTION 4.1: device_ready_queues[device.index]; the first time, make it and start_device_thread
        with self.device_threads_lock:
            queue = self.device_ready_queues.get(device.index)
            if queue is None:
                queue = self.device_ready_queues[device.index] = ThreadSafeReadyQueue()
                self.start_device_thread(device.index, queue)
        return queue
        # END SOLUTION

    def ready_queue_by_index(self, cpu_ready_queue: ThreadSafeReadyQueue, device_index: int):
        """The worked example for ``ready_queue``: the queue of a worker device number (CPU_DEVICE: the caller's)."""
        if device_index == CPU_DEVICE:
            return cpu_ready_queue
        return self.device_ready_queues[device_index]

    def start_device_thread(self, device_index: int, queue: ThreadSafeReadyQueue) -> None:
        """One thread per device index, named as PyTorch names it; a daemon, so it never holds up exit."""
        name = f"pt_autograd_{device_index}"
        threading.Thread(target=self.thread_init, args=(device_index, queue), name=name, daemon=True).start()

    def thread_init(self, device_index: int, queue: ThreadSafeReadyQueue) -> None:
        """A device thread: it works for ``device_index`` and runs its queue for the life of the process."""
        _worker.device = device_index
        _worker.local_ready_queue = queue
        self.thread_main(None)

    def init_local_ready_queue(self) -> None:
        """The calling thread's CPU queue: made once per thread, shared by its backwards (reentrant ones too)."""
        if _worker.local_ready_queue is None:
            _worker.local_ready_queue = ThreadSafeReadyQueue()

    def add_thread_pool_task(self, graph_task: GraphTask) -> None:
        """Give a too-deep reentrant backward to a waiting pool thread, starting one if none is free."""
        pool = self.thread_pool_shared
        with pool.work:
            create_thread = pool.num_workers <= len(pool.graphtasks_queue)
            pool.graphtasks_queue.append(graph_task)
            if create_thread:
                pool.threads_started += 1
                name = f"pt_autograd_reentrant_{pool.threads_started}"
                threading.Thread(target=self.reentrant_thread_init, name=name, daemon=True).start()
            pool.work.notify()

    def reentrant_thread_init(self) -> None:
        """A pool thread: take a GraphTask, run it on its owner's queue from depth 0 of this thread, repeat."""
        pool = self.thread_pool_shared
        while True:
            with pool.work:
                pool.num_workers += 1
                pool.work.wait_for(lambda: pool.graphtasks_queue)
                pool.num_workers -= 1
                graph_task = pool.graphtasks_queue.pop(0)
            _worker.device = graph_task.owner
            _worker.local_ready_queue = self.ready_queue_by_index(graph_task.cpu_ready_queue, graph_task.owner)
            _worker.total_depth = graph_task.reentrant_depth
            self.thread_main(graph_task)
            del graph_task  # the pool thread waits next; it must not keep the finished graph alive


_CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient "
    "which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you "
    "have to use this function, make sure to reset the .grad fields of your parameters to None after use to break "
    "the cycle and avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)")
_create_graph_warned = False  # TORCH_WARN_ONCE: the first such backward in the process warns, no other


def _create_graph_warning_unsent() -> bool:
    """True the first time only."""
    global _create_graph_warned
    first, _create_graph_warned = not _create_graph_warned, True
    return first


def _graph_root(root_edges: list[Edge], root_grads: list) -> tuple[Node, InputBuffer]:
    """One root edge: start at its node, holding its gradient. Several: a ``GraphRoot`` emits them all."""
    if len(root_edges) == 1:
        edge = root_edges[0]
        buffer = InputBuffer(edge.function.num_inputs)
        buffer.add(edge.input_nr, root_grads[0])
        return edge.function, buffer
    return GraphRoot(root_edges, root_grads), InputBuffer(0)


# ----------------------------------------------------------------------------- running one node


def _evaluate(task: GraphTask, fn: Node, inputs: InputBuffer, queue: ReadyQueue) -> None:
    """``evaluate_function``, guarded in anomaly mode (chapter 4: an error warns the node's forward stack)."""
    if AnomalyMode.enabled:
        anomaly_mode.evaluate_guarded(evaluate_function, task, fn, inputs, queue)
    else:
        evaluate_function(task, fn, inputs, queue)


def evaluate_function(task: GraphTask, fn: Node, inputs: InputBuffer, queue: ReadyQueue) -> None:
    """Run one ready node, then pass each of its output gradients on along its edge."""
    if task.exec_info and not _capture_gradients(task, fn, inputs):
        return
    outputs = call_function(fn, inputs)
    if not task.keep_graph:
        fn.release_variables()
    if AnomalyMode.enabled and AnomalyMode.check_nan:  # chapter 4: never on a plain backward's path
        anomaly_mode.check_nan(fn.name(), outputs)
    # With threads, several may pass gradients into the same nodes: the GraphTask's mutex (lock_guard in
    # engine.cpp) guards its counts and buffers. The plain CPU path has no mutex and pays for no lock.
    mutex = task.mutex
    if mutex is not None:
        mutex.acquire()
    try:
        for edge, grad in zip(fn.next_edges, outputs):
            if edge.function is not None:
                _pass_gradient(task, edge, grad, queue)
    finally:
        if mutex is not None:
            mutex.release()


def _capture_gradients(task: GraphTask, fn: Node, inputs: InputBuffer) -> bool:
    """``autograd.grad``: keep the gradients ``fn`` received for a requested input; say whether ``fn`` runs."""
    info = task.exec_info.get(fn, ExecInfo())
    grads = inputs.buffer
    if not info.needed:
        grads = call_tensor_pre_hooks(fn, list(grads))  # NOTE [Hooks ordering]: they always fire
    for input_idx, output_idx in info.captures or []:
        task.captured_vars[output_idx] = grads[input_idx]
    return info.needed


def _pass_gradient(task: GraphTask, edge: Edge, grad, queue: ReadyQueue) -> None:
    """Add ``grad`` to the next node's input buffer; queue the node once it has all its gradients."""
    fn = edge.function
    remaining = task.dependencies.get(fn)
    if remaining is None:
        raise RuntimeError(f"dependency not found for {fn.name()}")
    is_ready = remaining == 1
    if is_ready:
        del task.dependencies[fn]
    else:
        task.dependencies[fn] = remaining - 1
    buffer = task.not_ready.pop(fn, None)
    if buffer is None:
        if task.exec_info and not task.should_execute(fn):  # exec_info is empty for backward(): skip the call
            return
        buffer = InputBuffer(len(fn.input_metadata))  # fn.num_inputs, without the property's call on every node
        buffer.buffer[edge.input_nr] = grad  # buffer.add into an empty slot, inlined: every node's first gradient
    else:
        buffer.add(edge.input_nr, grad)
    if is_ready:
        queue.push(NodeTask(fn, buffer, task))
    else:
        task.not_ready[fn] = buffer


def call_function(fn: Node, inputs: InputBuffer) -> list:
    """Hooks before, the node, hooks after (``call_function`` in engine.cpp)."""
    if fn._tensor_pre_hooks or fn._retains_grad_hooks or fn._tensor_pre_hooks_elsewhere:
        grads = call_tensor_pre_hooks(fn, inputs.variables())
    else:  # most nodes have none: the call would hand the gradients back as they are (0.2 us a node)
        grads = inputs.variables()
    if fn._pre_hooks:  # asked here, not in call_node_hooks: most nodes have none, and it saves a call
        grads = call_node_hooks("pre", fn.pre_hooks(), grads)
    if not fn._post_hooks:  # the node gets the gradients themselves (AccumulateGrad may keep one as .grad)
        outputs = fn.apply(grads)
        validate_outputs(fn.next_edges, outputs, fn)
        return outputs
    outputs = fn.apply(list(grads))  # post hooks see the inputs too: the node gets a copy of the list
    validate_outputs(fn.next_edges, outputs, fn)
    return call_node_hooks("post", fn.post_hooks(), outputs, grads)


def call_tensor_pre_hooks(fn: Node, inputs: list) -> list:
    """NOTE [Hooks ordering]: the tensors' own hooks first, then their retains-grad hooks.

    Each hook takes the list of gradients and returns the (possibly new) list; ``hooks.call_node_hooks``
    is the worked example of passing gradients through a series of hooks.
    """
    if not fn.tensor_pre_hooks() and not fn.retains_grad_hooks():
        return inputs  # most nodes have none; so a backward without hooks never reaches exercise 3.3
    # BEGIN SOLUTION 3.3: run fn.tensor_pre_hooks() then fn.retains_grad_hooks(), each on the previous result
    for hook in fn.tensor_pre_hooks():
        inputs = hook(inputs)
    for hook in fn.retains_grad_hooks():
        inputs = hook(inputs)
    return inputs
    # END SOLUTION


def validate_outputs(edges: list[Edge], grads: list, fn: Node | None) -> None:
    """Check (and fix what may be fixed: broadcast shape, dtype) each gradient against its target.

    ``fn`` is the node that returned ``grads`` (None: they are the root gradients, and the message says
    no more than what is wrong); its name is built only for an error message (building it for every node
    cost about 3% of a chain's backward).
    """
    if len(grads) != len(edges):
        raise RuntimeError(f"invalid number of gradients - expected {len(edges)}, but got {len(grads)}")
    for i, (edge, grad) in enumerate(zip(edges, grads)):
        if edge.function is None or grad is None:
            continue
        meta = edge.function.input_metadata[edge.input_nr]
        shape = grad._data.shape  # a tuple in every Array API namespace
        if shape != meta.shape:
            shape = tuple(shape)
            if not _is_expandable_to(meta.shape, shape):
                raise RuntimeError(f"{_returned(fn)}invalid gradient at index {i} - got "
                                   f"{list(shape)} but expected shape compatible with {list(meta.shape)}")
            grad = sum_to(grad, meta.shape)
        if grad._dtype is not meta.dtype:
            if not grad._dtype.is_floating_point and grad._dtype.is_complex != meta.dtype.is_complex:
                raise RuntimeError(_COMPLEX_MISMATCH)  # a complex gradient for a real input: no formula took its part
            grad = ops._to_copy(grad, dtype=meta.dtype)
        if grad._device is not meta.device and grad._device != meta.device:  # `is` first: the usual case, cheaply
            raise RuntimeError(f"{_returned(fn)}invalid gradient at index {i} - expected "
                               f"device {meta.device} but got {grad._device}")
        grads[i] = grad


# engine.cpp's check, without a message of its own (TORCH_CHECK's default text)
_COMPLEX_MISMATCH = ("Expected isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex) to be true, "
                     "but got false.  (Could this error message be improved?  If so, please report an enhancement "
                     "request to PyTorch.)")


def _returned(fn: Node | None) -> str:
    return "" if fn is None else f"Function {fn.name()} returned an "


def _is_expandable_to(shape, desired) -> bool:
    if len(shape) > len(desired):
        return False
    for size, target in zip(reversed(shape), reversed(desired)):
        if size != target and size != 1:
            return False
    return True


# ----------------------------------------------------------------------------- the graph task

# NOTE [ThreadLocalState]
# A backward's nodes and hooks may run on a device's worker thread, not on the thread that called
# backward. PyTorch captures that thread's thread-local state when the GraphTask is made (grad mode, the
# profiler, autocast, debug info...) and installs it on the worker around each node it runs, so a hook
# there sees what its caller would. picotorch carries grad mode in the GraphTask itself, and the rest of
# its own per-thread state as the context variables registered in ``thread_local_state.py``.


_GRAPH_TASK_IDS = itertools.count()


@dataclass
class GraphTask:
    """The state of one backward: what each node still waits for, and what ``autograd.grad`` needs."""

    keep_graph: bool
    grad_mode: bool = False  # create_graph: the grad mode every node runs under
    id: int = field(default_factory=_GRAPH_TASK_IDS.__next__)  # (torch._C._current_graph_task_id)
    dependencies: dict = field(default_factory=dict)  # node -> number of gradients still to arrive
    not_ready: dict = field(default_factory=dict)  # node -> its InputBuffer, while gradients are missing
    exec_info: dict = field(default_factory=dict)  # node -> ExecInfo; empty for backward(): run everything
    captured_vars: list = field(default_factory=list)
    nodes_in_graph: set = field(default_factory=set)
    mutex: threading.Lock | None = None  # made when the threads are in play (Engine.execute)
    # The threads' state (set by Engine.execute when the threads are in play; see the last section):
    reentrant_depth: int = 0
    owner: int = NO_DEVICE  # the worker device of the thread that waits for this backward
    cpu_ready_queue: ThreadSafeReadyQueue | None = None
    ready_queues: GraphTaskQueues | None = None
    outstanding_tasks: AtomicCounter | None = None
    future_result: Future | None = None
    future_completed: bool = False
    has_error: bool = False
    profile: profiler.profile | None = None
    thread_locals: ThreadLocalState | None = None  # the caller's thread-local state: NOTE [ThreadLocalState]

    def completed(self) -> bool:
        """Every task pushed for this backward has run (or been skipped after an error)."""
        return self.outstanding_tasks.value == 0

    def mark_as_completed_and_run_post_processing(self) -> None:
        """Complete the future with the captured gradients; only the first thread to get here does."""
        with self.mutex:
            if self.future_completed:
                return
            self.future_completed = True
        self.future_result.set_result(self.captured_vars)

    def set_exception(self, error: BaseException, fn: Node) -> None:
        """The first error wins: later tasks of this backward are skipped, the caller gets ``error``."""
        with self.mutex:
            self.has_error = True
            if self.future_completed:
                return
            self.future_completed = True
        self.future_result.set_exception(error)

    def should_execute(self, fn: Node) -> bool:
        if not self.exec_info:
            return True
        info = self.exec_info.get(fn)
        return info is not None and info.should_execute()

    def init_to_execute(self, graph_root: Node, outputs: list[Edge], accumulate_grad: bool,
                        min_topo_nr: int) -> None:
        """Mark the nodes on some path from the root to an output; skip subgraphs too old to reach one."""
        exec_info = self.exec_info
        exec_info.setdefault(graph_root, ExecInfo())  # not needed by itself: only if it leads to an output
        output_idx = 0
        for edge in outputs:
            info = exec_info.setdefault(edge.function, ExecInfo())
            if accumulate_grad:
                info.needed = True
            else:
                info.captures = (info.captures or []) + [(edge.input_nr, output_idx)]
                output_idx += 1
        self.captured_vars = [None] * output_idx
        self._mark_needed(graph_root, min_topo_nr)

    def _mark_needed(self, graph_root: Node, min_topo_nr: int) -> None:
        seen = set()
        stack = [(graph_root, iter(graph_root.next_edges))]
        while stack:
            fn, children = stack[-1]
            child = None
            for edge in children:
                if edge.function is None:
                    continue
                if edge.function in seen:
                    if self.should_execute(edge.function):
                        self.exec_info.setdefault(fn, ExecInfo()).needed = True
                    continue
                seen.add(edge.function)
                child = edge.function
                break
            if child is not None:
                if child.topological_nr < min_topo_nr:
                    continue
                stack.append((child, iter(child.next_edges)))
            else:
                stack.pop()
                if self.should_execute(fn) and stack:
                    self.exec_info.setdefault(stack[-1][0], ExecInfo()).needed = True


@dataclass
class ExecInfo:
    needed: bool = False
    captures: list | None = None  # (input_idx, output_idx) pairs for autograd.grad

    def should_execute(self) -> bool:
        return self.needed or bool(self.captures)


def compute_min_topological_nr(outputs: list[Edge] | None) -> int:
    """The lowest ``topological_nr`` among the outputs' nodes: no older subgraph can reach one of them."""
    if not outputs:
        return 0
    return min(edge.function.topological_nr for edge in outputs)


def compute_dependencies(root: Node, task: GraphTask, min_topo_nr: int) -> None:
    """How many gradients each node must wait for: its number of incoming edges."""
    queue = [root]
    deps = task.dependencies
    while queue:
        fn = queue.pop()
        if min_topo_nr:
            if fn.topological_nr < min_topo_nr:
                continue
        else:  # backward(): no node is pruned; the property's one effect kept, without its call on every node
            fn._has_parent = True
        for edge in fn.next_edges:
            nxt = edge.function
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in task.nodes_in_graph:
                task.nodes_in_graph.add(nxt)
                queue.append(nxt)


# ----------------------------------------------------------------------------- input buffers


class InputBuffer:
    """The gradients arriving at one node, one slot per input; a second arrival is added in."""

    def __init__(self, size: int) -> None:
        self.buffer: list = [None] * size

    def variables(self) -> list:
        """``InputBuffer::variables(std::move(buffer))``: the gradients, moved out (the buffer keeps none)."""
        buffer, self.buffer = self.buffer, []
        return buffer

    def add(self, pos: int, grad) -> None:
        if grad is None:
            return
        old = self.buffer[pos]
        # NOTE [Why backward formulas and the engine call ops through the dispatcher]
        self.buffer[pos] = grad if old is None else ops.add(old, grad)


# ----------------------------------------------------------------------------- the threads' state


class WorkerState(threading.local):
    """engine.cpp's thread-locals: what this thread works for, and how deep in reentrant backwards it is."""

    device = NO_DEVICE  # worker_device
    current_depth = 0  # reentrant backwards nested on this thread
    total_depth = 0  # reentrant depth of the backward this thread runs, counting other threads
    local_ready_queue: ThreadSafeReadyQueue | None = None


_worker = WorkerState()


def should_run_in_cpu_ready_queue(device_type: str) -> bool:
    return device_type in ("cpu", "meta", "lazy")


class AtomicCounter:
    """``std::atomic<uint64_t>``: ``outstanding_tasks`` is counted up and down by different threads."""

    def __init__(self) -> None:
        self.value = 0
        self._lock = threading.Lock()

    def increment(self) -> None:
        with self._lock:
            self.value += 1

    def decrement(self) -> None:
        with self._lock:
            self.value -= 1


@dataclass
class GraphTaskQueues:
    """Where ``evaluate_function`` pushes a ready node when threads are in play: its device's queue."""

    engine: Engine
    cpu_ready_queue: ThreadSafeReadyQueue

    def push(self, task: NodeTask) -> None:
        self.engine.ready_queue(self.cpu_ready_queue, task.fn.device()).push(task)


@dataclass
class ThreadPoolShared:
    """The threads that take over reentrant backwards nested deeper than ``MAX_DEPTH``."""

    num_workers: int = 0  # threads waiting for a GraphTask
    work: threading.Condition = field(default_factory=threading.Condition)
    graphtasks_queue: list = field(default_factory=list)
    threads_started: int = 0


_engine = Engine()


def get_default_engine() -> Engine:
    return _engine
