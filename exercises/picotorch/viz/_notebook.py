"""Showing autograd graphs in a notebook: PNG pictures (torchviz's ``make_dot`` rendered), or text.

PNG, not SVG: graphviz writes its own version into SVG, which breaks nbval's comparison of
stored outputs. Without the ``dot`` executable the graphviz package still imports, but rendering
raises ``ExecutableNotFound``; then the text tree of ``_text.py`` is shown instead.
"""

from __future__ import annotations

import base64
import html
from typing import Any

import graphviz

from ._dot import draw_graph
from ._text import GraphText, graph_text

NO_DOT = "graphviz's `dot` was not found (apt install graphviz): the graph as text instead."


class PNG:
    """PNG bytes that Jupyter displays as an image (``_repr_png_``), with a stable text repr."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def _repr_png_(self) -> bytes:
        return self.data

    def __repr__(self) -> str:
        return "<autograd graph (PNG)>"  # no memory address: nbval compares text/plain


class SideBySide:
    """Two titled PNGs in one row, as an HTML table of base64 images."""

    def __init__(self, titled: list[tuple[str, bytes]]) -> None:
        self.titled = titled

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(title)}</th>" for title, _ in self.titled)
        cells = "".join(f'<td style="vertical-align:top">{_img(png)}</td>' for _, png in self.titled)
        return f"<table><tr>{head}</tr><tr>{cells}</tr></table>"

    def __repr__(self) -> str:
        return "<autograd graphs: " + " | ".join(t for t, _ in self.titled) + ">"


def _img(png: bytes) -> str:
    return f'<img src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}"/>'


def show(*tensors: Any, **kw: Any) -> PNG | GraphText:
    """Draw ``tensors``' graph as a PNG for Jupyter; print a note and return text without dot."""
    try:
        return PNG(draw_graph(*tensors, **kw).pipe(format="png"))
    except graphviz.ExecutableNotFound:
        print(NO_DOT)
        return graph_text(*tensors, **kw)


def side_by_side(pico: Any, torch_tensor: Any, **kw: Any) -> SideBySide | GraphText:
    """The same program's graph from picotorch and from PyTorch, titled, in one row."""
    pair = [("picotorch", pico), ("PyTorch", torch_tensor)]
    try:
        return SideBySide([(t, draw_graph(x, **kw).pipe(format="png")) for t, x in pair])
    except graphviz.ExecutableNotFound:
        print(NO_DOT)
        return GraphText("\n\n".join(f"{t}:\n{graph_text(x, **kw)}" for t, x in pair))
