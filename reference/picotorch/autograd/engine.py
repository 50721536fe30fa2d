"""The autograd engine: run a graph's nodes in dependency order, highest ``sequence_nr`` first.

Models ``torch/csrc/autograd/engine.cpp`` / ``engine.h`` and ``graph_task.h``. The file reads in the
order a backward runs:

- ``Engine.execute``: build the ``GraphTask``, count dependencies, then pop ready nodes until none is left;
- ``evaluate_function``: run one node (or only capture its gradients for ``autograd.grad``), then pass
  each output gradient along its edge; a node becomes ready when its last gradient arrives;
- ``call_function`` (hooks before, the node, hooks after) and ``validate_outputs`` (each gradient checked
  against the input it flows to);
- ``GraphTask`` (dependencies, not-ready input buffers, ``exec_info``, captured gradients),
  ``init_to_execute`` (which nodes ``autograd.grad(inputs=...)`` needs, pruned with ``topological_nr``)
  and ``compute_dependencies``;
- ``InputBuffer``, the gradients arriving at one node; the ready queue that orders the ready nodes is in
  ``ready_queue.py``.

Simplification: PyTorch runs CPU nodes on the calling thread and each GPU's nodes on a worker thread
with its own ready queue; picotorch runs every node on the calling thread, in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..native.dispatcher import ops
from . import anomaly_mode
from .anomaly_mode import AnomalyMode
from .functions_manual import sum_to
from .grad_mode import set_grad_enabled
from .graph import Edge, GraphRoot, Node
from .hooks import call_node_hooks
from .ready_queue import NodeTask, ReadyQueue

# ----------------------------------------------------------------------------- the engine


class Engine:
    """``torch._C._EngineBase``: one per process, reached as ``Variable._execution_engine``."""

    def execute(self, root_edges: list[Edge], root_grads: list, keep_graph: bool, create_graph: bool,
                accumulate_grad: bool, outputs: list[Edge] | None = None) -> list:
        """Run the graph behind ``root_edges``; return the gradients captured for ``outputs`` (autograd.grad)."""
        task = GraphTask(keep_graph=keep_graph)
        graph_root, root_buffer = _graph_root(root_edges, root_grads)
        min_topo_nr = compute_min_topological_nr(outputs)
        compute_dependencies(graph_root, task, min_topo_nr)
        if outputs:
            task.init_to_execute(graph_root, outputs, accumulate_grad, min_topo_nr)
        queue = ReadyQueue()
        queue.push(NodeTask(graph_root, root_buffer))
        # The whole backward (nodes and hooks) runs with grad mode = create_graph, as the GraphTask's
        # thread-local state does in engine.cpp.
        with set_grad_enabled(create_graph):
            while queue:
                item = queue.pop()
                if AnomalyMode.enabled:  # chapter 4: the node is the current node; an error warns its stack
                    anomaly_mode.evaluate_guarded(evaluate_function, task, item.fn, item.inputs, queue)
                else:
                    evaluate_function(task, item.fn, item.inputs, queue)
        return task.captured_vars


_engine = Engine()


def get_default_engine() -> Engine:
    return _engine


def _graph_root(root_edges: list[Edge], root_grads: list) -> tuple[Node, InputBuffer]:
    """One root edge: start at its node, holding its gradient. Several: a ``GraphRoot`` emits them all."""
    if len(root_edges) == 1:
        edge = root_edges[0]
        buffer = InputBuffer(edge.function.num_inputs)
        buffer.add(edge.input_nr, root_grads[0])
        return edge.function, buffer
    return GraphRoot(root_edges, root_grads), InputBuffer(0)


# ----------------------------------------------------------------------------- running one node


def evaluate_function(task: GraphTask, fn: Node, inputs: InputBuffer, queue: ReadyQueue) -> None:
    """Run one ready node, then pass each of its output gradients on along its edge."""
    if task.exec_info and not _capture_gradients(task, fn, inputs):
        return
    outputs = call_function(fn, inputs)
    if not task.keep_graph:
        fn.release_variables()
    if AnomalyMode.enabled and AnomalyMode.check_nan:  # chapter 4: never on a plain backward's path
        anomaly_mode.check_nan(fn.name(), outputs)
    for edge, grad in zip(fn.next_edges, outputs):
        if edge.function is not None:
            _pass_gradient(task, edge, grad, queue)


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
        if not task.should_execute(fn):
            return
        buffer = InputBuffer(fn.num_inputs)
    buffer.add(edge.input_nr, grad)
    if is_ready:
        queue.push(NodeTask(fn, buffer))
    else:
        task.not_ready[fn] = buffer


def call_function(fn: Node, inputs: InputBuffer) -> list:
    """Hooks before, the node, hooks after (``call_function`` in engine.cpp)."""
    grads = call_tensor_pre_hooks(fn, inputs.buffer)
    grads = call_node_hooks("pre", fn.pre_hooks(), grads)
    outputs = fn.apply(list(grads))
    validate_outputs(fn.next_edges, outputs, fn.name())
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


def validate_outputs(edges: list[Edge], grads: list, name: str) -> None:
    """Check (and fix what may be fixed: broadcast shape, dtype) each gradient against its target."""
    if len(grads) != len(edges):
        raise RuntimeError(f"invalid number of gradients - expected {len(edges)}, but got {len(grads)}")
    for i, (edge, grad) in enumerate(zip(edges, grads)):
        if edge.function is None or grad is None:
            continue
        meta = edge.function.input_metadata[edge.input_nr]
        shape = tuple(grad._data.shape)
        if shape != meta.shape:
            if not _is_expandable_to(meta.shape, shape):
                raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - got "
                                   f"{list(shape)} but expected shape compatible with {list(meta.shape)}")
            grad = sum_to(grad, meta.shape)
        if grad._dtype is not meta.dtype:
            grad = ops._to_copy(grad, dtype=meta.dtype)
        if grad._device != meta.device:
            raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - expected "
                               f"device {meta.device} but got {grad._device}")
        grads[i] = grad


def _is_expandable_to(shape, desired) -> bool:
    if len(shape) > len(desired):
        return False
    for size, target in zip(reversed(shape), reversed(desired)):
        if size != target and size != 1:
            return False
    return True


# ----------------------------------------------------------------------------- the graph task


@dataclass
class GraphTask:
    """The state of one backward: what each node still waits for, and what ``autograd.grad`` needs."""

    keep_graph: bool
    dependencies: dict = field(default_factory=dict)  # node -> number of gradients still to arrive
    not_ready: dict = field(default_factory=dict)  # node -> its InputBuffer, while gradients are missing
    exec_info: dict = field(default_factory=dict)  # node -> ExecInfo; empty for backward(): run everything
    captured_vars: list = field(default_factory=list)
    nodes_in_graph: set = field(default_factory=set)

    def should_execute(self, fn: Node) -> bool:
        if not self.exec_info:
            return True
        info = self.exec_info.get(fn)
        return info is not None and info.should_execute()

    def init_to_execute(self, graph_root: Node, outputs: list[Edge], accumulate_grad: bool,
                        min_topo_nr: int) -> None:
        """Mark the nodes on some path from the root to an output; skip subgraphs too old to reach one."""
        exec_info = self.exec_info
        exec_info.setdefault(graph_root, ExecInfo()).needed = True
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
        if fn.topological_nr < min_topo_nr:
            continue
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

    def add(self, pos: int, grad) -> None:
        if grad is None:
            return
        old = self.buffer[pos]
        # NOTE [Why backward formulas and the engine call ops through the dispatcher]
        self.buffer[pos] = grad if old is None else ops.add(old, grad)
