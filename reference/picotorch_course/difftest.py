"""Differential tests: run one program on picotorch and on real PyTorch and compare what a user sees.

A program is a function that takes the module as its argument::

    def prog(torch):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        print(y)
        return x

    assert_same(prog)

Compared: what it printed (exactly), what it returned (tensors become values, dtype, shape, device,
``requires_grad``, ``grad_fn`` name and ``.grad``, recursively) and the exception it raised (type
name and message, exactly). Float values are compared with a small tolerance (``rtol``/``atol``):
NumPy and PyTorch may round the last bit differently. The test is skipped where torch is missing.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


@dataclass
class Outcome:
    """What one program did on one module."""

    stdout: str
    value: Any = None
    error: tuple[str, str] | None = None


def run(prog: Callable, module) -> Outcome:
    """Run ``prog(module)``, capturing stdout, the normalised return value and any exception."""
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            value = prog(module)
    except Exception as err:  # the exception is part of the observed behaviour
        return Outcome(buffer.getvalue(), None, (type(err).__name__, str(err)))
    return Outcome(buffer.getvalue(), normalise(value, module))


def normalise(obj: Any, module, _depth: int = 0) -> Any:
    """Turn a returned value into plain data that can be compared across the two libraries."""
    if isinstance(obj, module.Tensor):
        return _tensor(obj, module, _depth)
    if isinstance(obj, bool | int | float | str | None):
        return obj
    if isinstance(obj, dict):
        return {str(k): normalise(v, module, _depth) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        items = [normalise(v, module, _depth) for v in obj]
        kind = type(obj).__name__
        return items if kind in ("list", "tuple") else {"type": kind, "items": items}
    if callable(getattr(obj, "name", None)) and hasattr(obj, "next_functions"):
        return {"grad_fn": obj.name()}
    if isinstance(obj, (module.dtype, module.device)):
        return str(obj)
    return _ADDRESS.sub("0x…", repr(obj))


def _tensor(t, module, depth: int) -> dict:
    values = t.detach().tolist()
    has_grad = t.is_leaf or getattr(t, "retains_grad", False)
    grad = t.grad if depth == 0 and has_grad else None
    return {
        "values": values,
        "dtype": str(t.dtype),
        "shape": list(t.shape),
        "device": str(t.device),
        "requires_grad": bool(t.requires_grad),
        "is_leaf": bool(t.is_leaf),
        "grad_fn": t.grad_fn.name() if t.grad_fn is not None else None,
        "grad": normalise(grad, module, depth + 1) if grad is not None else None,
    }


def run_both(prog: Callable) -> tuple[Outcome, Outcome]:
    """``(outcome on picotorch, outcome on torch)``; skips the calling test when torch is absent."""
    import pytest

    torch = pytest.importorskip("torch")
    import picotorch

    return run(prog, picotorch), run(prog, torch)


def differences(
    ours: Outcome, theirs: Outcome, rtol: float = 1e-6, atol: float = 1e-7
) -> list[str]:
    """Readable lines for every way the two outcomes differ; empty when they match."""
    lines = []
    if ours.stdout != theirs.stdout:
        diff = difflib.unified_diff(
            theirs.stdout.splitlines(),
            ours.stdout.splitlines(),
            "torch stdout",
            "picotorch stdout",
            lineterm="",
        )
        lines += ["printed output differs:"] + [f"  {d}" for d in diff]
    if ours.error != theirs.error:
        lines.append(
            f"exception differs:\n  torch:     {_show_error(theirs.error)}"
            f"\n  picotorch: {_show_error(ours.error)}"
        )
    lines += _compare(ours.value, theirs.value, "value", rtol, atol)
    return lines


def _show_error(error: tuple[str, str] | None) -> str:
    return "no exception" if error is None else f"{error[0]}: {error[1]}"


def _compare(ours: Any, theirs: Any, path: str, rtol: float, atol: float) -> list[str]:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        out = []
        for key in sorted(set(ours) | set(theirs)):
            out += _compare(
                ours.get(key, "<missing>"),
                theirs.get(key, "<missing>"),
                f"{path}.{key}",
                rtol,
                atol,
            )
        return out
    if isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            return [f"{path}: length {len(ours)} (picotorch) != {len(theirs)} (torch)"]
        return [
            d
            for i, (a, b) in enumerate(zip(ours, theirs, strict=True))
            for d in _compare(a, b, f"{path}[{i}]", rtol, atol)
        ]
    if _close(ours, theirs, rtol, atol):
        return []
    return [f"{path}: picotorch {ours!r} != torch {theirs!r}"]


def _close(a: Any, b: Any, rtol: float, atol: float) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b or math.isclose(a, b, rel_tol=rtol, abs_tol=atol)
    return a == b


def assert_same(prog: Callable, rtol: float = 1e-6, atol: float = 1e-7) -> Outcome:
    """Fail with a readable diff unless ``prog`` behaves the same on picotorch and torch."""
    ours, theirs = run_both(prog)
    lines = differences(ours, theirs, rtol, atol)
    if lines:
        name = getattr(prog, "__name__", "program")
        raise AssertionError(f"{name}: picotorch and torch differ\n" + "\n".join(lines))
    return ours
