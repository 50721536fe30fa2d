"""The autograd graph: ``Node``, ``Edge`` and ``GraphRoot``.

Models ``torch/csrc/autograd/function.h`` (``Node``), ``edge.h`` (``Edge``),
``functions/basic_ops.h`` (``GraphRoot``) and the Python face of nodes, ``torch/autograd/graph.py``
(``GradientEdge``, ``get_gradient_edge``, ``register_multi_grad_hook``; at the end, chapter 4's ``saved_tensors_hooks``,
``save_on_cpu``, ``disable_saved_tensors_hooks``). The node at the end of every path,
``AccumulateGrad``, is in ``accumulate_grad.py``. A node is the backward of one forward op: it takes
the gradients of the op's outputs and returns the gradients of its inputs, which flow along its
``next_edges`` (one per input of the forward op) to the nodes that produced those inputs.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from typing import NamedTuple

from ..c10.device import CPU
from ..c10.device import device as Device
from ..native.dispatcher import ops
from . import anomaly_mode, saved_variable_hooks
from .anomaly_mode import AnomalyMode
from .grad_mode import enable_grad
from .hooks import RemovableHandle, TensorPreHook, new_hooks_dict

UINT64_MAX = 2**64 - 1
# Raised by whatever a backward without retain_graph freed: a saved tensor, CopySlices' wrapped node.
ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")

_thread_state = threading.local()


def _next_sequence_nr() -> int:
    """A thread-local counter: each forward op's node gets the next number.

    NOTE [Sequence Number]
    The number says when (on this thread) the forward op ran. The engine runs ready nodes with the
    higher number first, so backward roughly mirrors forward in reverse; AccumulateGrad takes the
    largest possible number so that leaves' gradients are written (and buffers freed) as early as
    possible. The number is thread-local: nodes from different threads are not ordered by it.
    """
    nr = getattr(_thread_state, "sequence_nr", 0)
    _thread_state.sequence_nr = nr + 1
    return nr


def peek_sequence_nr() -> int:
    """The number the next node made on this thread will get (nothing is taken)."""
    return getattr(_thread_state, "sequence_nr", 0)


def _as_uint64(value: int) -> int:
    """What pybind11 accepts for a ``uint64_t`` argument (and the errors it gives)."""
    value = int(value)
    if value < 0:
        raise OverflowError("can't convert negative int to unsigned")
    if value > UINT64_MAX:
        raise OverflowError("int too big to convert")
    return value


class Edge(NamedTuple):
    """Where a gradient goes: input ``input_nr`` of ``function`` (``None`` for no edge)."""

    function: Node | None
    input_nr: int

    def is_valid(self) -> bool:
        return self.function is not None


class InputMetadata(NamedTuple):
    """What the engine checks a gradient against: shape, dtype and device of a forward output."""

    shape: tuple
    dtype: object
    device: object

    @classmethod
    def of(cls, tensor) -> InputMetadata:
        return cls(tuple(tensor._data.shape), tensor._dtype, tensor._device)


_new_tuple = tuple.__new__


class node_attribute(property):  # noqa: N801  (a decorator, named like property)
    """A read-only attribute of a node, as the C++ type's getset is: assigning or deleting it raises PyTorch's
    error. Only the setter is Python: reading stays a plain property's C slot."""

    def __set__(self, node, value) -> None:
        raise AttributeError(_not_writable(self.fget.__name__, node))

    def __delete__(self, node) -> None:
        raise AttributeError(_not_writable(self.fget.__name__, node))


def _not_writable(name: str, node) -> str:
    owner = "torch._C._FunctionBase" if type(node)._prints_with_module else type(node).__name__
    return f"attribute '{name}' of '{owner}' objects is not writable"


class _InputMetadata:
    """``node._input_metadata[i]``: what the engine checks the gradient of the forward's output ``i`` against."""

    __slots__ = ("_meta",)

    def __init__(self, meta: InputMetadata) -> None:
        self._meta = meta

    def __dir__(self) -> list:
        return [n for n in object.__dir__(self) if n.startswith("__")] + list(_INPUT_METADATA_FACE)

    @property
    def shape(self) -> list:
        return list(self._meta.shape)  # pybind's list of a SymInt array, not a torch.Size

    @property
    def dtype(self):
        return self._meta.dtype

    @property
    def device(self):
        return self._meta.device

    @property
    def is_nested_tensor(self) -> bool:
        return False

    @property
    def is_cpp_nested_tensor(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"<torch._C._autograd._InputMetadata object at {hex(id(self))}>"


_INPUT_METADATA_FACE = ("device", "dtype", "is_cpp_nested_tensor", "is_nested_tensor", "shape")
# What ``dir`` shows of a C++ node besides dunders and its saved values (python_cpp_function.h's properties
# and methods); the engine's own fields and methods stay out of sight, as they are in C++.
NODE_PYTHON_FACE = frozenset({"_input_metadata", "_register_hook_dict", "_sequence_nr", "_set_sequence_nr",
                              "metadata", "name", "next_functions", "register_hook", "register_prehook",
                              "requires_grad"})


class _NodeClass(type):
    """The type of every node class: what ``type(y.grad_fn)`` prints.

    NOTE [Node classes print as C++ types]
    PyTorch's nodes are C++ classes; the Python type pybind makes for each carries its name and no module,
    so ``type(y.grad_fn)`` prints ``<class 'MulBackward0'>``. A custom Function's node is a Python class and
    prints with its module (``<class 'torch.autograd.function.MyFnBackward'>``), as ``Node`` itself does.
    picotorch's node classes live in modules (``inspect.getsource`` finds them there): only their printed
    name is PyTorch's.
    """

    def __repr__(cls) -> str:
        if cls._prints_with_module or "_prints_with_module" in cls.__dict__:
            return type.__repr__(cls)
        return f"<class '{cls.__name__}'>"


class Node(metaclass=_NodeClass):
    """The backward of one forward op.

    NOTE [Topological Number]
    ``topological_nr`` is the length of the longest path from this node to any leaf: 0 for a node
    with no next edges (AccumulateGrad), else 1 + the largest of its children's. If a node's number
    is smaller than another's, there can be no path from the first to the second, which lets the
    engine prune whole subgraphs when ``autograd.grad`` only needs some inputs. The number must not
    change once some node has read it (``has_parent``): reading it marks the node.
    """

    # Hook containers are created on first use: most nodes never get a hook.
    _tensor_pre_hooks: list | None = None  # TensorPreHook per tensor that called register_hook
    _retains_grad_hooks: dict | None = None  # output_nr -> the retains-grad hook of that output
    _pre_hooks: OrderedDict | None = None  # Node.register_prehook
    _post_hooks: OrderedDict | None = None  # Node.register_hook
    _metadata: dict | None = None
    _tensor_pre_hooks_elsewhere = False  # True where tensor_pre_hooks() has hooks kept outside the node
    _prints_with_module = False  # NOTE [Node classes print as C++ types]: Node itself and Python nodes do
    _python_attributes: tuple = ()  # what a node type shows Python besides NODE_PYTHON_FACE (``variable``)

    def __init_subclass__(cls, **kwargs) -> None:
        """A node type's saved-value getters (written as properties) refuse assignment as the C++ type's do."""
        super().__init_subclass__(**kwargs)
        for name, value in list(vars(cls).items()):
            if type(value) is property and name.startswith(("_saved_", "_raw_saved_")):
                setattr(cls, name, node_attribute(value.fget))

    def __init__(self, next_edges=(), sequence_nr: int | None = None) -> None:
        self._sequence_nr_value = _next_sequence_nr() if sequence_nr is None else sequence_nr
        self._topological_nr = 0
        self._has_parent = False
        self.next_edges: list[Edge] = []
        self.input_metadata: list[InputMetadata] = []
        if next_edges:
            self.set_next_edges(next_edges)
        if AnomalyMode.enabled:  # chapter 4: remember where the forward made this node
            anomaly_mode.store_stack(self)
            anomaly_mode.assign_parent(self)

    # ---- the graph
    def set_next_edges(self, edges) -> None:
        if type(edges) is not list:  # collect_next_edges already gives a fresh list of Edges
            edges = [e if isinstance(e, Edge) else Edge(*e) for e in edges]
        if edges and self._has_parent:
            self._update_topological_nr(edges[0])  # raises
        self.next_edges = edges
        # _update_topological_nr for each edge, inlined: every forward op calls this once per input
        number = self._topological_nr
        for function, _ in edges:
            if function is not None:
                child = function.topological_nr
                if number <= child:
                    number = child + 1
        self._topological_nr = number

    def add_next_edge(self, edge: Edge) -> None:
        self._update_topological_nr(edge)
        self.next_edges.append(edge)

    def _update_topological_nr(self, edge: Edge) -> None:
        if self._has_parent:
            raise RuntimeError("Cannot update a node's topological_nr after it already has a parent. "
                               "If we allow this, we can no longer guarantee that a parent's topo_nr is "
                               "always greater than those of all its children")
        if edge.function is not None:
            child = edge.function.topological_nr
            if self._topological_nr <= child:
                self._topological_nr = child + 1

    @property
    def topological_nr(self) -> int:
        self._has_parent = True
        return self._topological_nr

    def _topological_nr_value(self) -> int:
        """The number without marking the node as a parent (for drawings)."""
        return self._topological_nr

    def add_input_metadata(self, tensor) -> int:
        metadata = self.input_metadata
        # InputMetadata.of(tensor), without the named tuple's Python __new__: once per output of every op
        metadata.append(_new_tuple(InputMetadata, (tuple(tensor._data.shape), tensor._dtype, tensor._device)))
        return len(metadata) - 1

    @property
    def num_inputs(self) -> int:
        return len(self.input_metadata)

    def device(self) -> Device:
        """Which device's thread runs this node (``Node::device``): its first non-CPU input's, else the CPU."""
        return first_non_cpu(meta.device for meta in self.input_metadata)

    def should_compute_output(self, index: int) -> bool:
        edges = self.next_edges
        return index < len(edges) and edges[index].function is not None  # Edge.is_valid, inlined

    def should_compute_any_output(self, start: int, count: int) -> bool:
        # A loop rather than any(<generator>): generated kernels and formulas ask this once per input
        # of every op, and the generator doubled its cost.
        for i in range(start, start + count):
            if self.should_compute_output(i):
                return True
        return False

    def task_should_compute_output(self, index: int) -> bool:
        """What a node's ``apply`` asks: ``should_compute_output``, and the running backward needs that edge's
        node (``autograd.grad`` and ``backward(inputs=...)`` leave the gradients of pruned edges undefined)."""
        edges = self.next_edges
        if index >= len(edges) or edges[index].function is None:
            return False
        if not _pruning_backwards:  # the plain backward: nothing is pruned, no thread-local to read
            return True
        task = getattr(_thread_state, "graph_task", None)
        return task is None or task.should_execute(edges[index].function)

    def task_should_compute_any_output(self, start: int, count: int) -> bool:
        for i in range(start, start + count):
            if self.task_should_compute_output(i):
                return True
        return False

    # ---- what Python sees (torch.autograd.graph.Node)
    def name(self) -> str:
        return type(self).__name__

    @node_attribute
    def next_functions(self) -> tuple:
        """What Python sees of ``next_edges``: a tuple of ``(node or None, input_nr)`` pairs.

        Worked example, the same idea one level down: ``Edge.is_valid`` says whether an edge leads
        somewhere; ``should_compute_output(i)`` asks it of edge ``i``.
        """
        # BEGIN SOLUTION 2.1: return one (function, input_nr) tuple per next edge, in order
        return tuple((edge.function, edge.input_nr) for edge in self.next_edges)
        # END SOLUTION

    @node_attribute
    def requires_grad(self) -> bool:
        """A node exists only for outputs that require grad (``THPCppFunction_requires_grad``)."""
        return True

    @node_attribute
    def _input_metadata(self) -> tuple:
        return tuple(_InputMetadata(meta) for meta in self.input_metadata)

    def __dir__(self) -> list:
        """What Python lists of a C++ node; a custom Function's node is a Python object and shows everything."""
        names = object.__dir__(self)
        if type(self)._prints_with_module:
            return names
        extra = type(self)._python_attributes
        return [n for n in names if n.startswith(("__", "_saved_", "_raw_saved_")) or n in NODE_PYTHON_FACE
                or n in extra]

    @node_attribute
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def _sequence_nr(self) -> int:
        return self._sequence_nr_value

    def _set_sequence_nr(self, sequence_nr: int) -> None:
        """Move this node earlier or later among ready nodes (PyTorch PR 114120): a uint64_t."""
        self._sequence_nr_value = _as_uint64(sequence_nr)

    def register_hook(self, fn) -> RemovableHandle:
        """A post hook: ``fn(grad_inputs, grad_outputs)`` after the node ran; may return new grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = new_hooks_dict()
        return RemovableHandle.add(self._post_hooks, fn)

    def register_prehook(self, fn) -> RemovableHandle:
        """A pre hook: ``fn(grad_outputs)`` before the node runs; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = new_hooks_dict()
        return RemovableHandle.add(self._pre_hooks, fn)

    def _register_hook_dict(self, tensor) -> None:
        """Attach ``tensor``'s hooks dict (``Tensor.register_hook``) to this node, for its output_nr."""
        self.add_tensor_pre_hook(TensorPreHook(tensor._backward_hooks, tensor._output_nr))

    # ---- hooks, as the engine sees them (function.h)
    def add_tensor_pre_hook(self, hook) -> None:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = []
        self._tensor_pre_hooks.append(hook)

    def add_retains_grad_hook(self, hook, output_nr: int) -> None:
        if self._retains_grad_hooks is None:
            self._retains_grad_hooks = {}
        self._retains_grad_hooks[output_nr] = hook

    def pop_retains_grad_hook(self, output_nr: int):
        return self._retains_grad_hooks.pop(output_nr)

    def tensor_pre_hooks(self) -> list:
        return self._tensor_pre_hooks or []

    def retains_grad_hooks(self) -> list:
        return list(self._retains_grad_hooks.values()) if self._retains_grad_hooks else []

    def pre_hooks(self) -> OrderedDict | None:
        return self._pre_hooks

    def post_hooks(self) -> OrderedDict | None:
        return self._post_hooks

    # ---- running
    def __call__(self, grads):
        return self.apply(list(grads))

    def apply(self, grads: list) -> list:
        raise NotImplementedError(f"{self.name()} has no backward")

    def release_variables(self) -> None:
        """Free saved tensors after backward (unless ``retain_graph``)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"


class GraphRoot(Node):
    """The node the engine starts from when backward has several roots: it emits the root gradients."""

    def __init__(self, next_edges, grads) -> None:
        super().__init__(next_edges)
        self.outputs = list(grads)

    def name(self) -> str:
        return "torch::autograd::GraphRoot"

    def device(self) -> Device:
        """PyTorch's GraphRoot records its gradients as input metadata; the first non-CPU one decides."""
        return first_non_cpu(grad._device for grad in self.outputs if grad is not None)

    def apply(self, grads: list) -> list:
        return list(self.outputs)


class Identity(Node):
    """An edge to nowhere, for a ``backward(inputs=...)`` input that no graph reaches."""

    def name(self) -> str:
        return "torch::autograd::Identity"

    def apply(self, grads: list) -> list:
        return grads


def first_non_cpu(devices) -> Device:
    """The device whose thread runs a node: the first that is not the CPU, else the CPU."""
    return next((device for device in devices if device.type != "cpu"), CPU)


class GradientEdge(NamedTuple):
    """``torch.autograd.graph.GradientEdge``: the node a tensor's gradient flows into, and which input."""

    node: Node
    output_nr: int
    ownership_token: object = None


def get_gradient_edge(tensor) -> GradientEdge:
    """The edge of ``tensor`` in the graph: its grad_fn, or the AccumulateGrad of a leaf.

    A leaf's AccumulateGrad is reached as ``torch/autograd/graph.py`` reaches it: as the next
    function of a throw-away view's node (the graph layer never makes one itself).
    """
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require "
                           "gradients")
    node = tensor.grad_fn
    if node is None:
        with enable_grad():
            node = ops.view(tensor, tuple(tensor.shape)).grad_fn.next_edges[0].function
    return GradientEdge(node, tensor.output_nr)


def increment_version(tensor) -> None:
    """Bump a tensor's version counter, as an in-place op would (``torch.autograd.graph.increment_version``)."""
    tensor._version_counter.bump()


# ----------------------------------------------------------------------------- the running backward (chapter 3)
# engine.cpp keeps, per thread, the graph task whose node the thread is running (``current_graph_task``); Python
# asks it two things, through ``torch._C``: which backward this is, and whether it will run a given node. A hook
# that must wait for several tensors' gradients counts with them (``register_multi_grad_hook``, below).


# How many backwards that prune (their GraphTask has exec_info) are running, in any thread: while none is,
# ``task_should_compute_output`` need not look for the current graph task.
_pruning_backwards = 0
_pruning_lock = threading.Lock()


def count_pruning_backward(delta: int) -> None:
    """``Engine.execute`` counts a pruning backward in (+1) and out (-1)."""
    global _pruning_backwards
    with _pruning_lock:
        _pruning_backwards += delta


def swap_current_graph_task(task):
    """The engine sets the graph task it runs on this thread (``GraphTaskGuard``); returns the one before."""
    previous = getattr(_thread_state, "graph_task", None)
    _thread_state.graph_task = task
    return previous


def current_graph_task():
    """The GraphTask whose node this thread runs (None outside backward)."""
    return getattr(_thread_state, "graph_task", None)


def current_graph_task_id() -> int:
    """``torch._C._current_graph_task_id()``: the running backward's id, -1 outside backward."""
    task = getattr(_thread_state, "graph_task", None)
    return -1 if task is None else task.id


def will_engine_execute_node(node) -> bool:
    """``torch._C._will_engine_execute_node``: whether the running backward reaches ``node`` (a Node or a
    GradientEdge) and runs it; ``autograd.grad`` runs only the nodes on a path to its inputs."""
    task = getattr(_thread_state, "graph_task", None)
    if task is None:
        raise RuntimeError("_will_engine_execute_node should only be called during the backward pass")
    node = node.node if isinstance(node, GradientEdge) else node
    runs = node in task.nodes_in_graph
    if runs and task.exec_info:
        info = task.exec_info.get(node)
        runs = info is not None and info.should_execute()
        if runs and node.topological_nr == 0 and info.captures:
            raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are currently running "
                               "autograd.grad(). This is currently not supported.")
    return runs


def register_multi_grad_hook(tensors, fn, *, mode: str = "all") -> _MultiHandle:
    """Call ``fn`` once the gradients of all ``tensors`` that this backward computes are there (``"all"``: with
    the list of them, None for the others), or with the first one that arrives (``"any"``)."""
    modes = ("all", "any")
    if mode not in modes:
        raise ValueError(f"Expects mode to be one of {modes} but got {mode}")
    lock = threading.Lock()
    tensors = tuple(tensors)
    if mode == "all":
        nodes = [_grad_fn_or_grad_acc(t) for t in tensors]
        counts: dict[int, int] = {}
        buffers: dict[int, list] = {}
        expected: list[int] = [0]

        def hook_for(index: int):
            def collect(grad) -> None:
                task_id = _task_id_inside_backward()
                with lock:
                    seen = counts.get(task_id, 0)
                    counts[task_id] = seen + 1
                    if seen == 0:  # the first gradient of this backward: how many will come
                        expected[0] = sum(map(will_engine_execute_node, nodes))
                    buffer = buffers.setdefault(task_id, [None] * len(tensors))
                buffer[index] = grad
                if seen == expected[0] - 1:
                    del counts[task_id], buffers[task_id]
                    fn(buffer)
            return collect

        return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))
    ran: dict[int, bool] = {}

    def first_only(grad) -> None:
        task_id = _task_id_inside_backward()
        with lock:
            already, ran[task_id] = ran.get(task_id, False), True
        if not already:
            fn(grad)
    return _MultiHandle(tuple(t.register_hook(first_only) for t in tensors if t.requires_grad))


def _grad_fn_or_grad_acc(tensor) -> Node:
    node = get_gradient_edge(tensor).node if tensor.requires_grad else tensor.grad_fn
    if node is None:
        raise AssertionError("Expected gradient function to be set")
    return node


def _task_id_inside_backward() -> int:
    task_id = current_graph_task_id()
    if task_id == -1:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task_id


class _MultiHandle(RemovableHandle):
    """The handles of the hooks one ``register_multi_grad_hook`` registered: ``remove()`` removes them all."""

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __getstate__(self):
        return self.handles

    def __setstate__(self, state) -> None:
        self.handles = state


# ----------------------------------------------------------------------------- saved tensors hooks (chapter 4)


class saved_tensors_hooks:
    """Inside the block, every tensor a forward op saves for backward goes through ``pack_hook``.

    The node keeps what ``pack_hook(tensor)`` returns; backward (or ``grad_fn._saved_self``) gets the
    tensor back as ``unpack_hook(packed)``. Blocks nest: the innermost pair is used. A Python number
    passed as a tensor is saved as it is. ``SavedVariable`` in ``variable.py`` calls the hooks.
    """

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        saved_variable_hooks.push_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args: object) -> None:
        saved_variable_hooks.pop_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors wait on the CPU for backward, then go back to their device (GPU memory for time).

    ``pin_memory=True`` packs a copy (in pinned memory when a GPU is there: picotorch has none to pin).
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            return (tensor.device, tensor.detach().cpu().clone())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Inside the block, entering ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``."""
    previous = saved_variable_hooks.get_disabled_error_message()
    try:
        saved_variable_hooks.disable(error_message)  # raises at once inside saved_tensors_hooks
        yield
    finally:
        if previous is None:
            saved_variable_hooks.enable()
        else:
            saved_variable_hooks.disable(previous)
