"""``gradcheck`` and ``gradgradcheck``: a backward formula checked against finite differences.

Models ``torch/autograd/gradcheck.py`` in its default (slow) mode, for real inputs and outputs. The question it
answers for a custom Function (chapter 04) or a formula in ``derivatives.yaml`` (chapter 05): does backward
compute the Jacobian that the forward implies?

- The **numerical** Jacobian: every element of every input that requires grad is moved by ``-eps`` and ``+eps``
  in place (through ``.data``: no autograd, no version bump) and ``(f(x + eps) - f(x - eps)) / (2 eps)`` is one
  row (the derivative of every output element by that input element).
- The **analytical** Jacobian: for every output element, one ``autograd.grad`` with a one-hot ``grad_output``
  gives one column (that output element's gradient by every input element). It is computed twice: backward must
  give the same numbers for the same question (PyTorch calls a difference "not reentrant").
- The two must be ``allclose(analytical, numerical, rtol, atol)``; if not, a ``GradcheckError`` prints both
  matrices, rows the input's elements and columns the output's.
- Then backward with zero ``grad_output`` must give zero gradients of the inputs' dtype, device and size.

Left out: fast mode (``fast_mode=True`` runs the slow checks, which decide the same way and print the whole
Jacobians), complex inputs and outputs, forward-mode AD, batched gradients, sparse and MKLDNN tensors, and the
check with undefined output gradients (picotorch's engine materialises them).
"""

from __future__ import annotations

import itertools
import warnings

from ..c10 import scalar_type as st
from ..native.dispatcher import ops
from ..native.tensor_impl import TensorImpl

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck", "register_grad"]


class GradcheckError(RuntimeError):
    """What a failed check raises (a RuntimeError, as before PyTorch named it)."""


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """True if ``func``'s backward agrees with finite differences at ``inputs``; else a ``GradcheckError`` (or
    False with ``raise_exception=False``)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_forward_ad or check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError("picotorch's gradcheck checks backward mode only: no forward-mode AD or batched "
                                  "gradients")
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes, check_backward_ad,
                                 bool(masked))
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """``gradcheck`` of the function that computes ``func``'s gradients (with ``create_graph=True``): the second
    derivatives checked the same way. Without ``grad_outputs``, random ones in [-1, 1) are drawn."""
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(_random_like(o) for o in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    count = len(tupled_grad_outputs)
    input_indices = {i for i, x in enumerate(tupled_inputs) if isinstance(x, TensorImpl) and x.requires_grad}
    grad_output_indices = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in input_indices else x for i, x in enumerate(args[:-count]))
        outputs = _differentiable_outputs(func(*input_args))
        grads = tuple(x.requires_grad_() if i in grad_output_indices else x for i, x in enumerate(args[-count:]))
        diff_inputs = tuple(x for i, x in enumerate(input_args) if i in input_indices)
        grad_inputs = _grad(outputs, diff_inputs, grads, create_graph=True, allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, check_grad_dtypes=check_grad_dtypes,
                     masked=masked)


# ----------------------------------------------------------------------------- the steps


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes, check_backward_ad, masked):
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_out = _as_tuple(func(*tupled_inputs))
    outputs = _differentiable_outputs(func_out)
    if any(isinstance(t, TensorImpl) and t.dtype.is_complex for t in tupled_inputs + func_out):
        raise NotImplementedError("picotorch's gradcheck checks real inputs and outputs only")
    _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol)
    if not check_backward_ad:
        return True
    _test_backward_mul_by_grad_output(outputs, tupled_inputs, masked)
    return True


def _check_inputs(tupled_inputs) -> None:
    any_input_requiring_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if isinstance(inp, TensorImpl) and inp.requires_grad:
            if inp.dtype not in (st.float64, st.complex128):
                warnings.warn(f"Input #{idx} requires gradient and is not a double precision floating point or "
                              "complex. This check will likely fail if all the inputs are not of double precision "
                              "floating point or complex. ", UserWarning, stacklevel=4)
            if not all(s > 0 or n <= 1 for s, n in zip(inp.stride(), inp.size())):
                raise RuntimeError(f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                                   "inputs that are non-overlapping to be able to compute the numerical gradients "
                                   "correctly. You should call .contiguous on the input before passing it to "
                                   "gradcheck.")
            any_input_requiring_grad = True
    if not any_input_requiring_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")


def _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol) -> None:
    numerical = _numerical_jacobians(func, inputs, func_out, eps)  # [input][output]
    if not outputs:
        for per_input in numerical:
            for jacobian in per_input:
                if bool(ops.ne(jacobian, 0).sum()):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    by_output = [[per_input[o] for per_input in numerical] for o, out in enumerate(func_out) if out.requires_grad]
    for i, output in enumerate(outputs):
        analytical = _analytical_jacobians(inputs, output, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, by_output[i])):
            if not _allclose_with_type_promotion(a, n, rtol, atol):
                raise GradcheckError(f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
                                     f"numerical:{n}\nanalytical:{a}\n")


def _numerical_jacobians(func, inputs, func_out, eps) -> list[list]:
    """For each input requiring grad, one Jacobian per output: rows the input's elements, columns the output's."""
    jacobians = []
    for inp in inputs:
        if not (isinstance(inp, TensorImpl) and inp.requires_grad):
            continue
        data = inp.data  # moved in place without autograd
        columns = []
        for index in itertools.product(*[range(n) for n in data.shape]):
            entry = data[index] if index else data
            original = entry.clone()
            entry.copy_(original - eps)
            before = _outputs_now(func, inputs)
            entry.copy_(original + eps)
            after = _outputs_now(func, inputs)
            entry.copy_(original)
            for a, b in zip(before, after):
                _check_outputs_same_dtype_and_shape(a, b, eps, index)
            columns.append([((b - a) / (2 * eps)).detach().reshape(-1) for a, b in zip(before, after)])
        jacobians.append([_rows(inp, out, [c[o] for c in columns]) for o, out in enumerate(func_out)])
    return jacobians


def _outputs_now(func, inputs) -> tuple:
    """``func``'s outputs as copies: an output that views an input (``a.detach()``, ``a.expand(...)``) would
    otherwise move with the next perturbation."""
    return tuple(a.clone() for a in _as_tuple(func(*inputs)))


def _rows(inp, out, rows):
    jacobian = ops.new_zeros(out, (inp.numel(), out.numel()))
    for r, row in enumerate(rows):
        jacobian[r] = row
    return jacobian


def _check_outputs_same_dtype_and_shape(output1, output2, eps, idx) -> None:
    on_index = f"on index {idx} "
    if output1.shape != output2.shape:
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs are perturbed "
                             f"{on_index}by {eps}, but got: shapes {output1.shape} and {output2.shape}.")
    if output1.dtype != output2.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
                             f"{on_index}by {eps}, but got: dtypes {output1.dtype} and {output2.dtype}.")


def _analytical_jacobians(inputs, output, nondet_tol, check_grad_dtypes) -> list:
    diff_inputs = [x for x in inputs if isinstance(x, TensorImpl) and x.requires_grad]
    first, sizes_of_first, types_of_first = _stack(_jacobian_columns(diff_inputs, output), diff_inputs, output)
    second, _, _ = _stack(_jacobian_columns(diff_inputs, output), diff_inputs, output)
    reentrant = all(a.numel() == 0 or float((a - b).abs().max()) <= nondet_tol for a, b in zip(first, second))
    # PyTorch's _stack_and_check_tensors returns (sizes ok, types ok) and its caller reads them as (types ok,
    # sizes ok): a wrong size says "dtype mismatch" (only with check_grad_dtypes) and a wrong dtype "incorrect size".
    if not sizes_of_first and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not types_of_first:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and grad_output "
                             "multiple times gives different values, although analytical gradient matches numerical "
                             f"gradient.The tolerance for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG)
    return first


def _jacobian_columns(diff_inputs, output) -> list[list]:
    """``columns[i][j]``: the gradient of input ``i`` for a one-hot ``grad_output`` at output element ``j``."""
    grad_out = ops.zeros_like(output)
    flat = grad_out.view(-1)
    columns = [[] for _ in diff_inputs]
    for j in range(flat.numel()):
        flat.zero_()
        flat[j] = 1.0
        grads = _grad(output, diff_inputs, grad_out, retain_graph=True, allow_unused=True)
        for i, d_x in enumerate(grads):
            columns[i].append(d_x.clone() if isinstance(d_x, TensorImpl) else None)
    return columns


def _stack(columns, diff_inputs, output) -> tuple:
    jacobians, sizes_ok, types_ok = [], True, True
    for inp, column_list in zip(diff_inputs, columns):
        jacobian = ops.new_zeros(inp, (inp.numel(), output.numel()))
        for j, tensor in enumerate(column_list):
            if tensor is not None and tensor.size() != inp.size():
                sizes_ok = False
            elif tensor is not None and tensor.dtype != inp.dtype:
                types_ok = False
            if tensor is not None:
                jacobian[:, j] = tensor.reshape(-1)
        jacobians.append(jacobian)
    return jacobians, sizes_ok, types_ok


def _allclose_with_type_promotion(a, b, rtol, atol) -> bool:
    promoted = st.promote_types(a.dtype, b.dtype)
    return bool(ops.allclose(a.to(promoted), b.to(promoted), rtol, atol))


def _test_backward_mul_by_grad_output(outputs, inputs, masked) -> None:
    diff_inputs = [x for x in inputs if isinstance(x, TensorImpl) and x.requires_grad]
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads = _grad(outputs, diff_inputs, [ops.zeros_like(o) for o in outputs], allow_unused=True)
    for gi, di in zip(grads, diff_inputs):
        if gi is None:
            continue
        if masked:
            if not bool(ops.allclose(gi, ops.zeros_like(gi))):
                raise GradcheckError("backward not multiplied by grad_output")
        elif not bool(ops.eq(gi, 0).all()):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != di.device:
            raise GradcheckError("grad is incorrect device")
        if gi.size() != di.size():
            raise GradcheckError("grad is incorrect size")


# ----------------------------------------------------------------------------- small helpers


_GRAD: list = []  # ``torch.autograd.grad``: autograd/__init__.py defines it, imports this module, registers it


def register_grad(grad) -> None:
    _GRAD[:] = [grad]


def _grad(*args, **kwargs):
    return _GRAD[0](*args, **kwargs)


def _as_tuple(x) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x) -> tuple:
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _random_like(output):
    """A grad_output for ``gradgradcheck``: uniform in [-1, 1), in the output's dtype (double for integers)."""
    dtype = output.dtype if output.dtype.is_floating_point or output.dtype.is_complex else st.float64
    return ops.uniform_(ops.new_empty(output, tuple(output.shape), dtype=dtype), -1, 1).requires_grad_()
