"""The engine's bookkeeping, replayed and drawn from outside, for notebook ``04_engine_priority``.

Models the steps of ``torch/csrc/autograd/engine.cpp`` that happen around the node calls:
``Engine::compute_dependencies`` (how many gradients each node waits for) and the loop of
``Engine::thread_main`` / ``evaluate_function`` (pop the best ready node, pass its gradients on, push
the nodes whose last gradient arrived) — *without running any node*, so a notebook can show every
step. Everything is duck-typed on ``grad_fn``, ``next_functions`` and ``_sequence_nr()``, as
``picotorch.viz`` is, so the same call reads a picotorch graph and a real PyTorch one.

- ``nodes(root)``: the reachable nodes, breadth first; ``labels(root, params)``: a unique name for each
- ``dependency_counts(root, min_topo_nr)``: node -> number of gradients it waits for (``GraphTask::dependencies_``)
- ``topological_numbers(root)``: node -> its ``topological_nr`` (the longest path to a leaf)
- ``replay(root, queue)``: the engine's loop with picotorch's ``ReadyQueue``, a FIFO, or ``heapq``
- ``steps_table(steps)``: a replay as a text table (the heap after each pop)
- ``execution_order(root, run)``: which nodes a real backward ran, in order (a pre hook on each)
- ``draw(root, lines)`` / ``show(dot)``: the graph in the direction gradients flow, labelled
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

UINT64_MAX = 2**64 - 1  # AccumulateGrad's sequence_nr (NOTE [Sequence Number])
QUEUES = ("ReadyQueue", "fifo", "heapq")


def root_node(obj: Any) -> Any:
    """A tensor's ``grad_fn``, or the node itself."""
    return obj if hasattr(obj, "next_functions") else obj.grad_fn


def next_nodes(node: Any) -> list[Any]:
    """The nodes behind ``node``'s edges, in edge order, without the ``None`` ones."""
    return [fn for fn, _ in node.next_functions if fn is not None]


def nodes(root: Any) -> list[Any]:
    """Every node reachable from ``root`` once, breadth first (a loop over a queue, never recursion)."""
    start = root_node(root)
    found, seen, queue = [], {id(start)}, deque([start])
    while queue:
        node = queue.popleft()
        found.append(node)
        for nxt in next_nodes(node):
            if id(nxt) not in seen:
                seen.add(id(nxt))
                queue.append(nxt)
    return found


def labels(root: Any, params: dict[str, Any] | None = None) -> dict[Any, str]:
    """node -> a short unique name: ``MulBackward0``, ``MulBackward0#2`` …

    ``params`` names tensors: a leaf names its ``AccumulateGrad`` (``AccumulateGrad(w)``), any other
    tensor its ``grad_fn`` (``MulBackward0(h)``).
    """
    leaves = {id(t): name for name, t in (params or {}).items() if t.grad_fn is None}
    outputs = {t.grad_fn: name for name, t in (params or {}).items() if t.grad_fn is not None}
    out, used = {}, {}
    for node in nodes(root):
        name = node.name().removeprefix("torch::autograd::")
        if hasattr(node, "variable") and id(node.variable) in leaves:
            name = f"{name}({leaves[id(node.variable)]})"
        elif node in outputs:
            name = f"{name}({outputs[node]})"
        used[name] = used.get(name, 0) + 1
        out[node] = name if used[name] == 1 else f"{name}#{used[name]}"
    return out


def seq_text(node: Any, base: int = 0) -> str:
    """A node's ``sequence_nr`` for display: relative to ``base``; the maximum as ``max``."""
    nr = node._sequence_nr()
    if nr == UINT64_MAX:
        return "max"
    return str(nr - base) if 0 <= nr - base < 10**6 else str(nr)


def base_sequence_nr(root: Any) -> int:
    """The smallest ordinary ``sequence_nr`` in the graph: differences from it do not depend on the process."""
    numbers = [n._sequence_nr() for n in nodes(root) if n._sequence_nr() != UINT64_MAX]
    return min(numbers, default=0)


# ---- compute_dependencies ------------------------------------------------------------------------


def dependency_counts(root: Any, min_topo_nr: int = 0) -> dict[Any, int]:
    """``compute_dependencies``: for each node below the root, how many edges lead into it.

    As in engine.cpp, a node whose ``topological_nr`` is below ``min_topo_nr`` is counted but not
    looked into: nothing under it can reach the inputs ``autograd.grad`` asked for.
    """
    topo = topological_numbers(root) if min_topo_nr else {}
    start = root_node(root)
    counts: dict[Any, int] = {}
    seen, stack = {id(start)}, [start]
    while stack:
        node = stack.pop()
        if min_topo_nr and topo[node] < min_topo_nr:
            continue
        for nxt in next_nodes(node):
            counts[nxt] = counts.get(nxt, 0) + 1
            if id(nxt) not in seen:
                seen.add(id(nxt))
                stack.append(nxt)
    return counts


def topological_numbers(root: Any) -> dict[Any, int]:
    """NOTE [Topological Number]: 0 without next edges, else 1 + the largest below (PyTorch keeps it in C++).

    Reversed breadth-first order is not enough (a node may sit below a later one), so: an iterative
    post-order walk, writing a node's number once all the nodes below it have theirs.
    """
    numbers: dict[Any, int] = {}
    stack = [(root_node(root), False)]
    while stack:
        node, expanded = stack.pop()
        if node in numbers:
            continue
        below = next_nodes(node)
        if expanded:
            numbers[node] = 1 + max((numbers[n] for n in below), default=-1)
        else:
            stack.append((node, True))
            stack += [(n, False) for n in below if n not in numbers]
    return numbers


# ---- the engine's loop, replayed -------------------------------------------------------------------


@dataclass
class Step:
    """One turn of the loop: the node popped, the nodes it made ready, the queue afterwards."""

    popped: Any
    pushed: list[Any] = field(default_factory=list)
    queue: list[Any] = field(default_factory=list)  # in the container's own order (a heap's array)


class _Fifo:
    """First ready, first run: what a plain ``collections.deque`` would do."""

    def __init__(self) -> None:
        self.items: deque = deque()

    def push(self, node: Any) -> None:
        self.items.append(node)

    def pop(self) -> Any:
        return self.items.popleft()

    def contents(self) -> list[Any]:
        return list(self.items)


class _HeapQ:
    """Python's ``heapq`` keyed by ``(-sequence_nr, arrival)``, the usual recipe (a tie never compares nodes): ties go
    first-come. Ties left as ties give libstdc++'s order (NOTE [heapq takes libstdc++'s steps] in ready_queue.py)."""

    def __init__(self) -> None:
        self.items: list = []
        self.arrivals = 0

    def push(self, node: Any) -> None:
        heapq.heappush(self.items, (-node._sequence_nr(), self.arrivals, node))
        self.arrivals += 1

    def pop(self) -> Any:
        return heapq.heappop(self.items)[2]

    def contents(self) -> list[Any]:
        return [node for _, _, node in self.items]


class _Engine:
    """picotorch's own ``ReadyQueue`` (``std::priority_queue``'s steps), holding tasks without buffers."""

    def __init__(self) -> None:
        # Lazy: picotorch_course must not import picotorch before the implementation switch chose one.
        from picotorch.autograd.ready_queue import NodeTask, ReadyQueue

        self.task, self.queue = NodeTask, ReadyQueue()

    def push(self, node: Any) -> None:
        self.queue.push(self.task(fn=node, inputs=None))

    def pop(self) -> Any:
        return self.queue.pop().fn

    def contents(self) -> list[Any]:
        return [task.fn for task in self.queue.heap]


def replay(root: Any, queue: str = "ReadyQueue") -> list[Step]:
    """Run the engine's loop on ``root``'s graph without calling any node; one ``Step`` per pop."""
    if queue not in QUEUES:
        raise ValueError(f"queue={queue!r}: use one of {', '.join(QUEUES)}")
    ready = {"ReadyQueue": _Engine, "fifo": _Fifo, "heapq": _HeapQ}[queue]()
    waiting = dependency_counts(root)
    ready.push(root_node(root))
    steps = []
    while ready.contents():
        step = Step(ready.pop())
        for nxt in next_nodes(step.popped):
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                ready.push(nxt)
                step.pushed.append(nxt)
        step.queue = ready.contents()
        steps.append(step)
    return steps


def replay_order(root: Any, queue: str = "ReadyQueue", params: dict[str, Any] | None = None) -> list[str]:
    """The names of the nodes in the order ``replay`` pops them."""
    names = labels(root, params)
    return [names[step.popped] for step in replay(root, queue)]


def steps_table(root: Any, queue: str = "ReadyQueue", params: dict[str, Any] | None = None) -> str:
    """The replay as a table: each pop, what it made ready, and the queue after it.

    Each node is ``name:seq`` (``seq`` relative to the graph's smallest; ``AccumulateGrad`` shortened to ``Acc``).
    """
    names, base = labels(root, params), base_sequence_nr(root)

    def tag(node: Any) -> str:
        return f"{names[node].replace('AccumulateGrad', 'Acc')}:{seq_text(node, base)}"

    rows = [(str(i), tag(s.popped), ", ".join(map(tag, s.pushed)) or "-", "[" + ", ".join(map(tag, s.queue)) + "]")
            for i, s in enumerate(replay(root, queue), 1)]
    head = ("#", "pop", "pushes (now ready)", f"{queue} after the pushes")
    widths = [max(len(r[c]) for r in [head, *rows]) for c in range(3)]
    return "\n".join(f"{r[0]:>{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}".rstrip()
                     for r in [head, *rows])


# ---- what a real backward did ------------------------------------------------------------------------


def execution_order(root: Any, run: Callable[[], Any], params: dict[str, Any] | None = None) -> list[str]:
    """The nodes a real backward ran, in order: a pre hook on every node logs its name; ``run()`` runs it."""
    log: list[str] = []
    handles = [node.register_prehook(lambda grads, name=name: log.append(name))
               for node, name in labels(root, params).items()]
    try:
        run()
    finally:
        for handle in handles:
            handle.remove()
    return log


# ---- pictures ------------------------------------------------------------------------------------------


def draw(root: Any, lines: Callable[[Any], list[str]] | None = None, params: dict[str, Any] | None = None,
         highlight: Callable[[Any], bool] | None = None) -> Any:
    """A ``graphviz.Digraph`` with the root on top and arrows the way gradients flow (node -> next node).

    ``lines(node)`` adds text under a node's name; ``highlight(node)`` colours it orange.
    """
    import graphviz  # lazy, like every third-party import here: only pictures need it

    names = labels(root, params)
    ids = {node: f"n{i}" for i, node in enumerate(names)}
    dot = graphviz.Digraph(node_attr={"shape": "box", "style": "filled", "fontname": "monospace",
                                      "fontsize": "10", "height": "0.2"}, graph_attr={"size": "12,12"})
    for node, name in names.items():
        text = "\\n".join([name, *(lines(node) if lines else [])])
        color = "orange" if highlight and highlight(node) else "lightblue" if hasattr(node, "variable") else "lightgrey"
        dot.node(ids[node], text, fillcolor=color)
    for node in names:
        for nxt, nr in node.next_functions:
            if nxt is not None:
                dot.edge(ids[node], ids[nxt], label=f" {int(nr)}" if int(nr) else None)
    return dot


class Picture:
    """A rendered drawing for Jupyter (PNG), with a stable text repr; the DOT text where ``dot`` is missing."""

    def __init__(self, dot: Any) -> None:
        import graphviz  # lazy: see draw()

        self.source = dot.source
        try:
            self.png: bytes | None = dot.pipe(format="png")
        except graphviz.ExecutableNotFound:
            self.png = None

    def _repr_png_(self) -> bytes | None:
        return self.png

    def __repr__(self) -> str:
        if self.png is None:
            return "graphviz's `dot` was not found (apt install graphviz): the DOT source instead.\n" + self.source
        return "<engine graph (PNG)>"


def show(dot: Any) -> Picture:
    return Picture(dot)
