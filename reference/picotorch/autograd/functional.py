"""``torch.autograd.functional``: Jacobians, Hessians and their products with vectors, from ``autograd.grad``.

Models ``torch/autograd/functional.py`` (reverse mode, not vectorised). Each function detaches the inputs into
fresh leaves that require grad (or, with ``create_graph=True``, views of them that keep their history), runs
``func`` with grad mode on, and asks ``autograd.grad`` for what it needs:

- ``vjp``: one backward with ``v`` as the output gradient (``v^T J``);
- ``jvp``: ``J v`` by the double-backward trick: the backward of a backward whose output gradient is a zero
  tensor requiring grad is linear in that tensor, and its own backward with ``v`` gives ``J v``;
- ``jacobian``: one backward per output element (a row of ``J`` each), stacked into ``out.shape + in.shape``;
- ``hessian``: the Jacobian of the Jacobian of a function with one scalar output;
- ``vhp`` / ``hvp``: ``v^T H`` with two backwards, ``H v`` with the double-backward trick once more.

A gradient that comes back None (an input the output does not depend on) becomes zeros, or an error in
``strict`` mode. Results are detached unless ``create_graph=True``. ``vectorize=True`` and
``strategy="forward-mode"`` are not modelled.
"""

from __future__ import annotations

from ..native.dispatcher import ops
from ..native.tensor_impl import TensorImpl
from .grad_mode import enable_grad, grad_mode_enabled, set_grad_enabled
from .gradcheck import _grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``; ``v`` may be left out for one output of one element."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            v = _prepared_v(v, "vjp", outputs, outputs_tuple, create_graph)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor "
                               "with a single element.")
    with set_grad_enabled(True if create_graph else grad_mode_enabled()):
        result = _fill_in_zeros(_autograd_grad(outputs, inputs, v, create_graph=create_graph), inputs, strict,
                                create_graph, "back")
    return _results(outputs, outputs_tuple, result, inputs_tuple, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``; ``v`` may be left out for one input of one element."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        if v is not None:
            v = _prepared_v(v, "jvp", inputs, inputs_tuple, create_graph)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                               "Tensor with a single element.")
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        grad_outputs = tuple(ops.zeros_like(out).requires_grad_() for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else grad_mode_enabled()):
        result = _fill_in_zeros(_autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph), outputs,
                                strict, create_graph, "back_trick")
    return _results(outputs, outputs_tuple, result, outputs_tuple, create_graph)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """``d func(inputs) / d inputs``, of shape ``output.shape + input.shape`` (nested tuples for several)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode" or vectorize:
        raise NotImplementedError("picotorch's jacobian computes in reverse mode, one backward per output element "
                                  "(no forward-mode strategy, no vectorize)")
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        result = tuple(_jacobian_of_output(i, out, inputs, create_graph, strict) for i, out in enumerate(outputs))
        return _unpack(_grad_postprocess(result, create_graph), (outputs_tuple, inputs_tuple))


def _jacobian_of_output(i, out, inputs, create_graph, strict):
    rows = [[] for _ in inputs]
    flat = out.reshape(-1)
    for j in range(out.nelement()):
        grads = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
        for k, (g, inp) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is independent of input {k}. This "
                                       "is not allowed in strict mode.")
                g = ops.zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. This is "
                                   "not allowed in strict mode when create_graph=True.")
            rows[k].append(g)
    return tuple(ops.stack(rows[k], 0).view(tuple(out.size()) + tuple(inp.size())) for k, inp in enumerate(inputs))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Jacobian of the Jacobian of ``func``, which returns one scalar."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_output(*inp):
        out = func(*inp)
        out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if out_tuple or not isinstance(out, TensorImpl):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jacobian_of_func(*inp):
        jac = jacobian(scalar_output, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(jacobian_of_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                      strategy=outer_jacobian_strategy)
    return _unpack(result, (inputs_tuple, inputs_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` for a function with one scalar output."""
    outputs_tuple, inputs_tuple, inputs, v, outputs, jac = _first_derivative("vhp", func, inputs, v, create_graph,
                                                                              strict)
    with set_grad_enabled(True if create_graph else grad_mode_enabled()):
        result = _fill_in_zeros(_autograd_grad(jac, inputs, v, create_graph=create_graph), inputs, strict,
                                create_graph, "double_back")
    return _results(outputs, outputs_tuple, result, inputs_tuple, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for a function with one scalar output (the double-backward trick)."""
    with enable_grad():
        outputs_tuple, inputs_tuple, inputs, v, outputs, jac = _first_derivative("hvp", func, inputs, v,
                                                                                  create_graph, strict)
        grad_jac = tuple(ops.zeros_like(inp).requires_grad_() for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else grad_mode_enabled()):
        result = _fill_in_zeros(_autograd_grad(double_back, grad_jac, v, create_graph=create_graph), inputs,
                                strict, create_graph, "double_back_trick")
    return _results(outputs, outputs_tuple, result, inputs_tuple, create_graph)


def _first_derivative(name, func, inputs, v, create_graph, strict):
    """What ``vhp`` and ``hvp`` share: checked inputs and ``v``, the one scalar output, and its gradient with a
    graph."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        if v is not None:
            v = _prepared_v(v, name, inputs, inputs_tuple, create_graph)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                               "Tensor with a single element.")
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", name)
        _check_requires_grad(outputs, "outputs", strict)
        if outputs_tuple or not isinstance(outputs[0], TensorImpl):
            raise RuntimeError(f"The function given to {name} should return a single Tensor")
        if outputs[0].nelement() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single element")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
    return outputs_tuple, inputs_tuple, inputs, v, outputs, jac


# ----------------------------------------------------------------------------- shared steps


def _prepared_v(v, fn_name, against, against_tuple, create_graph):
    """``v`` as a tuple of detached tensors, checked against what it multiplies (count and sizes)."""
    v = _grad_preprocess(_as_tuple(v, "v", fn_name)[1], create_graph, need_graph=False)
    _validate_v(v, against, against_tuple)
    return v


def _results(outputs, outputs_tuple, result, result_tuple, create_graph):
    """The outputs and the product, detached unless ``create_graph``, each in the shape the caller gave."""
    return (_unpack(_grad_postprocess(outputs, create_graph), outputs_tuple),
            _unpack(_grad_postprocess(result, create_graph), result_tuple))


def _as_tuple(value, arg_name, fn_name):
    """``(was a tuple, the tuple)``; anything but tensors is refused, naming the argument and the function."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, TensorImpl):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                            f"{where} has type {type(item)}.")
    return is_tuple, items


def _unpack(result, was_tuple):
    """The result in the caller's shape: a lone tensor where a lone tensor was given (per level, for Jacobians)."""
    if isinstance(was_tuple, tuple):
        outputs_tuple, inputs_tuple = was_tuple
        if not inputs_tuple:
            result = tuple(row[0] for row in result)
        return result if outputs_tuple else result[0]
    return result if was_tuple else result[0]


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh leaves for the inputs; with ``create_graph`` an input with history stays connected (a view)."""
    return tuple(inp.view_as(inp) if create_graph and inp.requires_grad else inp.detach().requires_grad_(need_graph)
                 for inp in inputs)


def _grad_postprocess(values, create_graph):
    if values and isinstance(values[0], TensorImpl):
        return values if create_graph else tuple(v.detach() for v in values)
    return tuple(_grad_postprocess(v, create_graph) for v in values)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prefix = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_INDEPENDENT = {
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the input. "
               "This is not allowed in strict mode. You should ensure that your function is thrice differentiable "
               "and that the hessian depends on the inputs.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect to "
                "input {i} is independent of the input. This is not allowed in strict mode. You should ensure that "
                "your function is twice differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
                   "function. This is not allowed in strict mode.",
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed "
               "in a differentiable manner from the input when running in strict mode.",
}


def _check_requires_grad(values, kind, strict):
    if not strict:
        return
    for i, value in enumerate(values):
        if value is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if not value.requires_grad:
            raise RuntimeError(_INDEPENDENT[kind].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad (None for every input if none does)."""
    grad_outputs = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    kept = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return _grad(tuple(o for o, _ in kept), inputs, tuple(g for _, g in kept), allow_unused=True,
                 create_graph=create_graph, retain_graph=retain_graph)


_STRICT_NONE = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the grad_jacobian. "
                         "This is not allowed in strict mode as it prevents from using the double backward trick to "
                         "replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    result = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_NONE[stage].format(i=i))
            g = ops.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        result.append(g)
    return tuple(result)
