"""Drawing an autograd graph with graphviz: our own take on torchviz's ``make_dot``.

Boxes are Nodes of ``torch/csrc/autograd/function.h``; an arrow goes from each entry of a Node's
``next_functions`` (an ``Edge`` of ``edge.h``) to the Node, i.e. in the direction of the forward
pass, as torchviz draws it. Leaves (``AccumulateGrad``) are blue, the tensors asked for green.
"""

from __future__ import annotations

from typing import Any

import graphviz

from ._labels import Options, is_accumulate_grad, make_options, node_label, tensor_hooks
from ._labels import tensor_label as _tensor_label
from ._walk import Graph, collect, root_node

DEFAULT_MAX_NODES = 1000  # dot lays out a few thousand boxes slowly; a deeper graph gets cut
_NODE_ATTR = {
    "style": "filled",
    "shape": "box",
    "align": "left",
    "fontsize": "10",
    "fontname": "monospace",
    "height": "0.2",
    "ranksep": "0.1",
}


def draw_graph(
    *tensors: Any,
    show_sequence_nr: bool = False,
    show_topological_nr: bool = False,
    show_hooks: bool = False,
    show_saved: bool = False,
    params: dict[str, Any] | None = None,
    max_nodes: int | None = DEFAULT_MAX_NODES,
) -> graphviz.Digraph:
    """The graph behind ``tensors`` (tensors or Nodes, torch or picotorch) as a ``Digraph``.

    Node ids follow the walk (``n0``, ``n1``, … breadth first; ``t0``, … for the tensors), so
    the DOT source is the same on every run. ``params`` names leaves and outputs by identity.
    """
    opts = make_options(
        tensors,
        params,
        show_sequence_nr=show_sequence_nr,
        show_topological_nr=show_topological_nr,
        show_hooks=show_hooks,
        show_saved=show_saved,
    )
    graph = collect(tensors, max_nodes)
    dot = graphviz.Digraph(node_attr=_NODE_ATTR, graph_attr={"size": "12,12"})
    _draw_nodes(dot, graph, opts)
    _draw_edges(dot, graph)
    _draw_outputs(dot, graph, opts)
    if graph.truncated:
        dot.node("more", f"… more Nodes not drawn (max_nodes={max_nodes})", fillcolor="white")
    return dot


def _draw_nodes(dot: graphviz.Digraph, graph: Graph, opts: Options) -> None:
    for node in graph.nodes:
        title, detail, extras = node_label(node, opts)
        label = "\\n".join(line for line in (title, detail, *extras) if line)
        color = "lightblue" if is_accumulate_grad(node) else "lightgrey"
        dot.node(graph.node_id(node), label, fillcolor=color)


def _draw_edges(dot: graphviz.Digraph, graph: Graph) -> None:
    """Label an edge with its input_nr only where the Node below has several outputs."""
    several = {src for src, _, nr in graph.edges if nr > 0}
    for src, dst, nr in graph.edges:
        dot.edge(src, dst, label=f" {nr}" if src in several else None)


def _draw_outputs(dot: graphviz.Digraph, graph: Graph, opts: Options) -> None:
    for tid, t in graph.outputs:
        lines = [_tensor_label(t, opts)]
        lines += tensor_hooks(t) if opts.show_hooks else []
        dot.node(tid, "\\n".join(lines), fillcolor="darkolivegreen1")
        node = root_node(t)
        if node is not None and id(node) in graph.ids:
            dot.edge(graph.node_id(node), tid)
