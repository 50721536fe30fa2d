"""Walking an autograd graph from outside, as torchviz's ``make_dot`` does.

Models what Python can see of ``torch/csrc/autograd/function.h``: a ``Node`` has ``name()`` and
``next_functions``, a tuple of ``(node or None, input_nr)`` pairs, one per ``Edge`` (``edge.h``);
``AccumulateGrad`` has ``.variable``. Everything is duck-typed, so a real ``torch.Tensor`` and a
picotorch tensor walk the same way, and every walk is a loop over a queue or a stack (graphs may be
10,000 nodes deep; recursion dies near 1,000).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

UINT64_MAX = 2**64 - 1  # AccumulateGrad's sequence_nr in PyTorch: it runs as soon as it is ready


@dataclass
class Graph:
    """What a walk found. Ids are given in discovery order, so they are stable across runs."""

    nodes: list[Any] = field(default_factory=list)  # Nodes, breadth first from the roots
    ids: dict[int, str] = field(default_factory=dict)  # id(node) -> "n0", "n1", …
    edges: list[tuple[str, str, int]] = field(default_factory=list)  # (next node, node, input_nr)
    outputs: list[tuple[str, Any]] = field(default_factory=list)  # ("t0", tensor) for tensors given
    truncated: bool = False  # True when max_nodes left some Nodes out

    def node_id(self, node: Any) -> str:
        return self.ids[id(node)]


def is_node(obj: Any) -> bool:
    return hasattr(obj, "next_functions") and hasattr(obj, "name")


def root_node(obj: Any) -> Any:
    """The Node a walk starts from: the argument itself, or a tensor's ``grad_fn``."""
    return obj if is_node(obj) else getattr(obj, "grad_fn", None)


def next_edges(node: Any) -> list[tuple[Any, int]]:
    """``node.next_functions`` without the ``None`` entries (inputs that need no grad)."""
    return [(nxt, int(nr)) for nxt, nr in node.next_functions if nxt is not None]


def collect(roots: tuple[Any, ...], max_nodes: int | None) -> Graph:
    """Breadth-first walk from the roots; keeps every Node alive so ``id()`` stays unique.

    The roots are numbered first (the loop just below is the worked example: a node is numbered by
    ``_add`` once, when first seen, then queued). Then, until the queue is empty: take the oldest
    node, and for each ``(next node, input_nr)`` of ``next_edges`` number and queue the next node
    if it is new (``_add`` returns False when ``max_nodes`` is reached: skip that node and its
    edge), and record the edge ``(next node's id, node's id, input_nr)``. A loop over a queue, never
    recursion: graphs may be 10,000 nodes deep.
    """
    graph = Graph()
    queue: deque[Any] = deque()
    for i, obj in enumerate(roots):
        if not is_node(obj):
            graph.outputs.append((f"t{i}", obj))
        node = root_node(obj)
        if node is not None and id(node) not in graph.ids and _add(graph, node, max_nodes):
            queue.append(node)
    # BEGIN SOLUTION 2.2: breadth first: number each new next node once and queue it; record every edge
    while queue:
        node = queue.popleft()
        for nxt, nr in next_edges(node):
            if id(nxt) not in graph.ids:
                if not _add(graph, nxt, max_nodes):
                    continue
                queue.append(nxt)
            graph.edges.append((graph.node_id(nxt), graph.node_id(node), nr))
    # END SOLUTION
    return graph


def _add(graph: Graph, node: Any, max_nodes: int | None) -> bool:
    if max_nodes is not None and len(graph.nodes) >= max_nodes:
        graph.truncated = True
        return False
    graph.ids[id(node)] = f"n{len(graph.nodes)}"
    graph.nodes.append(node)
    return True
