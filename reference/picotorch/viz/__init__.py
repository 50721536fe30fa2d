"""Pictures of autograd graphs, drawn from outside: our own version of torchviz's ``make_dot``.

Models what Python can observe of ``torch/csrc/autograd/function.h`` (``Node``: ``name()``,
``next_functions`` as ``(node or None, input_nr)`` pairs from ``edge.h``, ``_sequence_nr()``)
and ``functions/accumulate_grad.h`` (``AccumulateGrad.variable``). Duck-typed on ``grad_fn`` and
``next_functions``, so the same call draws a real ``torch.Tensor`` and a picotorch tensor; nothing
here imports torch or picotorch's internals. Every walk is iterative: graphs may be 10,000 deep.

- ``draw_graph(*tensors, ...)`` -> ``graphviz.Digraph`` with stable ids (deterministic DOT source)
- ``graph_text(*tensors, ...)`` -> the same graph as an indented text tree
- ``show(*tensors, ...)`` -> a PNG for Jupyter, or the text tree when ``dot`` is missing
- ``side_by_side(picotorch_tensor, torch_tensor, ...)`` -> both graphs in one row
- ``draw_timeline(trace)`` -> a Gantt chart (matplotlib) of a Chrome trace, one row per thread
  (``picotorch.autograd.profiler.profile``, ``torch.profiler``, Horovod's timeline)
- ``draw_distributed_timeline(trace)`` -> a Figure: per rank, its backward and communication rows
  (``picotorch.distributed.timeline``'s trace), to see the overlap
"""

from ._distributed import draw_distributed_timeline
from ._dot import DEFAULT_MAX_NODES, draw_graph
from ._notebook import PNG, SideBySide, show, side_by_side
from ._text import GraphText, graph_text
from ._timeline import draw_timeline

__all__ = [
    "DEFAULT_MAX_NODES",
    "PNG",
    "GraphText",
    "SideBySide",
    "draw_distributed_timeline",
    "draw_graph",
    "draw_timeline",
    "graph_text",
    "show",
    "side_by_side",
]
