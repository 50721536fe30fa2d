"""The autograd graph as a text tree: the fallback for torchviz-style drawings when ``dot`` is missing.

Each line is a Node of ``torch/csrc/autograd/function.h``; its children are its
``next_functions`` in order. A Node reached a second time is printed once more, marked
``(already shown)``, and not expanded again. The walk is an explicit stack, never recursion.
"""

from __future__ import annotations

from typing import Any

from ._dot import DEFAULT_MAX_NODES
from ._labels import Options, make_options, node_label, tensor_hooks, tensor_label
from ._walk import collect, is_node, next_edges, root_node


class GraphText(str):
    """A ``str`` that Jupyter shows as the tree itself, not as a quoted one-line repr."""

    def __repr__(self) -> str:
        return str(self)


def graph_text(
    *tensors: Any,
    show_sequence_nr: bool = False,
    show_topological_nr: bool = False,
    show_hooks: bool = False,
    show_saved: bool = False,
    params: dict[str, Any] | None = None,
    max_nodes: int | None = DEFAULT_MAX_NODES,
) -> GraphText:
    """The graph behind ``tensors`` (tensors or Nodes), one Node a line, children indented.

    ``[k]`` before a name is the edge's input_nr, shown where that Node has several outputs.
    """
    opts = make_options(
        tensors,
        params,
        show_sequence_nr=show_sequence_nr,
        show_topological_nr=show_topological_nr,
        show_hooks=show_hooks,
        show_saved=show_saved,
    )
    printer = _Printer(opts, _several_outputs(tensors), max_nodes)
    for obj in tensors:
        printer.root(obj)
    return GraphText("\n".join(printer.lines))


def _several_outputs(tensors: tuple[Any, ...]) -> dict[int, Any]:
    graph = collect(tensors, None)
    srcs = {src for src, _, nr in graph.edges if nr > 0}
    return {id(n): n for n in graph.nodes if graph.node_id(n) in srcs}


class _Printer:
    def __init__(self, opts: Options, several: dict[int, Any], max_nodes: int | None) -> None:
        self.opts, self.max_nodes = opts, max_nodes
        self.several = several  # Nodes that some edge reaches with input_nr > 0
        self.lines: list[str] = []
        self.shown: dict[int, Any] = {}  # keeps Nodes alive, so ids are not reused
        self.cut = False

    def root(self, obj: Any) -> None:
        node = root_node(obj)
        if is_node(obj):
            self.tree(node, "", "")
            return
        extras = tensor_hooks(obj) if self.opts.show_hooks else []
        self.lines.append(_join("tensor", tensor_label(obj, self.opts), extras))
        if node is not None:
            self.tree(node, "└─ ", "   ")

    def tree(self, root: Any, head: str, indent: str) -> None:
        stack = [(root, head, indent)]
        while stack and not self.cut:
            node, head, indent = stack.pop()
            if id(node) in self.shown:
                self.lines.append(head + self.describe(node) + " (already shown)")
                continue
            if self.max_nodes is not None and len(self.shown) >= self.max_nodes:
                self.lines.append(f"{head}… more Nodes not shown (max_nodes={self.max_nodes})")
                self.cut = True
                break
            self.shown[id(node)] = node
            self.lines.append(head + self.describe(node))
            stack += reversed(self.children(node, indent))

    def children(self, node: Any, indent: str) -> list[tuple[Any, str, str]]:
        edges = next_edges(node)
        out = []
        for i, (nxt, nr) in enumerate(edges):
            last = i == len(edges) - 1
            tag = f"[{nr}] " if id(nxt) in self.several else ""
            branch, more = ("└─ ", "   ") if last else ("├─ ", "│  ")
            out.append((nxt, indent + branch + tag, indent + more))
        return out

    def describe(self, node: Any) -> str:
        title, detail, extras = node_label(node, self.opts)
        return _join(title, detail, extras)


def _join(title: str, detail: str, extras: list[str]) -> str:
    text = f"{title} {detail}" if detail else title
    return f"{text} [{', '.join(extras)}]" if extras else text
