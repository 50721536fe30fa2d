"""Autograd pieces written by hand instead of generated: ``copy_``, ``CopyBackwards``, ``NotImplemented``,
``index_put_`` / ``index_put`` with their ``IndexPutBackward0``, and ``matmul``'s out= overload.

Models ``torch/csrc/autograd/VariableTypeManual.cpp`` (``copy_``), ``CopyBackwards`` of
``torch/csrc/autograd/functions/tensor.cpp`` and ``NotImplemented`` of ``functions/basic_ops.h``.
``index_put_`` is generated in PyTorch from ``index_put``'s formulas in ``derivatives.yaml``; picotorch's
generator has no op for it (only the kernel ``_index_put_impl_``), so ``x[idx] = v`` and the backward of
that write call these two.
``copy_`` is in ``MANUAL_AUTOGRAD`` of the generator: ``_generated/variable_type.py`` takes this
function as the op's autograd kernel. A copy overwrites ``self``, so ``self``'s old value gets a
zero gradient and ``src`` the gradient, converted back to ``src``'s dtype and device (the engine
then sums it down to ``src``'s shape). The generated kernel of an op without a formula records a
``NotImplemented`` node (``NOT_IMPLEMENTED_DERIVATIVES`` of the generator).
``matmul.out`` is CompositeImplicitAutograd in PyTorch (``_matmul_impl`` of ``LinearAlgebra.cpp``): its own
checks come before the out=/autograd one, and it writes through ``dot``'s, ``mv``'s or ``mm``'s out=, whose
checks then speak; the generator's out= kernel would make the autograd check first.
"""

from __future__ import annotations

from ..c10.scalar_type import is_differentiable_type
from ..native.dispatcher import device_of, kernel_for, ops
from ..native.helpers import zeros_array
from ..native.matmul_rules import check_matmul_dims, check_matmul_out_dtype, matmul_out_kernel, matmul_shape
from ..native.resize import resize_output, write_out
from ..native.tensor_impl import TensorImpl, new_tensor
from .grad_mode import is_grad_enabled, no_grad
from .graph import Node, node_attribute
from .variable import (
    any_requires_grad,
    bump_version,
    check_inplace,
    collect_next_edges,
    gradient_edge,
    rebase_history,
    requires_grad,
    set_history,
    throw_error_out_requires_grad,
)


class CopyBackwards(Node):
    def __init__(self, next_edges, src_options) -> None:
        super().__init__(next_edges)
        self.src_options = src_options  # (dtype, device) of src

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"  # a hand-written node: its C++ name, namespace included

    def apply(self, grads: list) -> list:
        grad = grads[0]
        if grad is None:
            return [None, None]
        self_grad = ops.zeros_like(grad) if self.task_should_compute_output(0) else None
        src_grad = None
        if self.task_should_compute_output(1):
            dtype, device = self.src_options
            same = dtype is grad._dtype and device == grad._device  # Tensor.to: no copy when nothing changes
            src_grad = grad if same else ops._to_copy(grad, dtype=dtype, device=device)
        return [self_grad, src_grad]


def copy_(self, src, non_blocking=False):
    """``copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)``"""
    requires_grad = is_grad_enabled() and any_requires_grad(self, src) and is_differentiable_type(self._dtype)
    if requires_grad:
        check_inplace(self)
    grad_fn = None
    if requires_grad:
        grad_fn = CopyBackwards(collect_next_edges(self, src), (src._dtype, src._device))
    kernel_for("copy_", device_of(self, src))(self, src, non_blocking)
    bump_version(self)
    if grad_fn is not None:
        rebase_history(self, grad_fn)
    return self


class NotImplemented(Node):  # noqa: A001  (PyTorch's name for the node)
    """The node of an op without a derivative formula (``floor_divide``): backward through it raises.

    The generated kernel of such an op still records it, so the output requires grad as in PyTorch;
    its edges lead only to the inputs that require grad.
    """

    def __init__(self, op: str, *inputs) -> None:
        super().__init__([gradient_edge(t) for t in inputs if isinstance(t, TensorImpl) and requires_grad(t)])
        self.msg = f"derivative for {op} is not implemented"

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def apply(self, grads: list) -> list:
        raise RuntimeError(self.msg)


# ----------------------------------------------------------------------------- index_put_ (x[idx] = v)


class IndexPutBackward0(Node):
    """``self: accumulate ? grad : grad.index_put(indices, zeros_like(values), false)``, ``values: grad.index(indices)``
    (the engine sums a broadcast value's gradient down to its shape)."""

    def __init__(self, next_edges, indices, values, accumulate: bool) -> None:
        super().__init__(next_edges)
        self.indices = indices
        self.values_geometry = (tuple(values._data.shape), values._dtype, values._device)
        self.accumulate = accumulate

    def apply(self, grads: list) -> list:
        grad = grads[0]
        if grad is None:
            return [None, None]
        self_grad = values_grad = None
        if self.task_should_compute_output(0):
            if self.accumulate:
                self_grad = grad
            else:
                shape, dtype, _ = self.values_geometry
                zeros = new_tensor(zeros_array(grad, shape, dtype), dtype, grad._device)  # zeros_like(values)
                self_grad = index_put(grad, self.indices, zeros)
        if self.task_should_compute_output(1):
            values_grad = ops.index(grad, self.indices)
        return [self_grad, values_grad]

    @node_attribute
    def _saved_indices(self):
        return tuple(self.indices)

    @node_attribute
    def _saved_accumulate(self) -> bool:
        return self.accumulate

    def release_variables(self) -> None:
        self.indices = None


def index_put_(self, indices, values, accumulate=False):
    """``index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)``"""
    requires_grad = is_grad_enabled() and any_requires_grad(self, values)
    check_inplace(self, requires_grad)  # (an integer self then gets no history here; see set_history)
    grad_fn = None
    if requires_grad:
        grad_fn = IndexPutBackward0(collect_next_edges(self, values), indices, values, accumulate)
    kernel_for("_index_put_impl_", device_of(self, values))(self, indices, values, accumulate, False)
    bump_version(self)
    if grad_fn is not None:
        rebase_history(self, grad_fn)
    return self


def index_put(self, indices, values, accumulate=False):
    """``index_put``: a copy of ``self`` written through ``indices``."""
    with no_grad():
        result = ops.clone(self)
    kernel_for("_index_put_impl_", device_of(result, values))(result, indices, values, accumulate, False)
    if is_grad_enabled() and any_requires_grad(self, values) and is_differentiable_type(self._dtype):
        set_history(result, IndexPutBackward0(collect_next_edges(self, values), indices, values, accumulate))
    return result


def matmul_out(self, other, *, out):
    """``matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)``: the dims, then the autograd
    check, then the op the dims pick (a vector times a matrix: ``mm`` into ``out``, then ``out.squeeze_(0)``)."""
    dim1, dim2 = self.dim(), other.dim()
    check_matmul_dims(dim1, dim2)
    throw_error_out_requires_grad("matmul", self, other, out)
    if dim1 == 1 and dim2 == 1:
        return ops.dot(self, other, out=out)
    if dim1 == 2 and dim2 == 1:
        return ops.mv(self, other, out=out)
    if dim1 == 1 and dim2 == 2:
        return ops.squeeze_(ops.mm(ops.unsqueeze(self, 0), other, out=out), 0)
    if dim1 == 2 and dim2 == 2:
        return ops.mm(self, other, out=out)
    # PyTorch sizes ``out`` first, then runs bmm's, mm's or mv's out= on a view of it, which check its dtype
    kernel = matmul_out_kernel(self, other)
    resize_output(out, matmul_shape(self, other))
    check_matmul_out_dtype(kernel, self, other, out)
    write_out(out, ops.matmul(self, other), kernel)
    bump_version(out)
    return out
