"""``linear``, ``einsum`` and ``tensordot``: contractions built from permute, reshape and ``bmm`` or ``mm``.

Models ``aten/src/ATen/native/Linear.cpp`` (``linear``, ``einsum``, its helper ``sumproduct_pair``, ``tensordot``).
``linear`` is ``addmm`` for a matrix, one ``addmm`` on the folded rows of a contiguous N-d input
(``_flatten_nd_linear``), else ``matmul`` then ``add_``. ``einsum`` and ``tensordot`` are
``CompositeImplicitAutograd``: they call other operators through the dispatcher, so autograd records those
(``PermuteBackward0``, ``ViewBackward0``, ``BmmBackward0``, ...) and there is no ``EinsumBackward``.

einsum works in three steps:

1. parse the equation: each operand's labels (``...`` for its leading or inner dims), the output's labels;
2. line every operand up on the same dims, output dims first then contracted ones: a repeated label takes a
   diagonal, a missing label is an ``unsqueeze`` of size 1, then one ``permute``;
3. contract the operands left to right, two at a time (``sumproduct_pair``: permute, reshape, ``bmm``, view,
   permute back), summing a dim as soon as no operand still to come uses it.

Simplification: picotorch has no ``opt_einsum``, like a torch without that package: no contraction path is
computed and ``path`` is only checked.
"""

from __future__ import annotations

from . import checks
from .dispatcher import ops
from .resize import resize_output

_ELLIPSIS = 52  # labels are 0..51: 'A'..'Z' then 'a'..'z'


def _subscript(label: str) -> int:
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + 26


def _label(subscript: int) -> str:
    return chr(subscript + ord("A")) if subscript < 26 else chr(subscript - 26 + ord("a"))


def _is_label(c: str) -> bool:
    return c.isascii() and c.isalpha()


def _parse_operands(lhs: str, num_ops: int) -> list[list[int]]:
    """Each operand's labels as subscripts, ``_ELLIPSIS`` where it has ``...``."""
    op_labels: list[list[int]] = [[] for _ in range(num_ops)]
    curr, seen_ellipsis, i = 0, False, 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            if seen_ellipsis:
                raise RuntimeError(f"einsum(): found '.' for operand {curr} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {curr} that is not part of any ellipsis")
            i += 2
            op_labels[curr].append(_ELLIPSIS)
            seen_ellipsis = True
        elif c == ",":
            curr += 1
            if curr >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            seen_ellipsis = False
        elif c != " ":
            if not _is_label(c):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            op_labels[curr].append(_subscript(c))
        i += 1
    if curr != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return op_labels


def _count_labels(op_labels, operands):
    """How often each label appears in the inputs, and the most dims any ellipsis covers; checks the dim counts."""
    counts, ell_num_dim = [0] * _ELLIPSIS, 0
    for i, (labels, operand) in enumerate(zip(op_labels, operands)):
        ndim, nlabels = operand.dim(), len(labels)
        has_ellipsis = _ELLIPSIS in labels
        for s in labels:
            if s != _ELLIPSIS:
                counts[s] += 1
        if has_ellipsis:
            nlabels -= 1
            ell_num_dim = max(ell_num_dim, ndim - nlabels)
            if nlabels > ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({nlabels}) is more than the "
                                   f"number of dimensions ({ndim}) for operand {i}")
        elif nlabels != ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({nlabels}) does not match the "
                               f"number of dimensions ({ndim}) for operand {i} and no ellipsis was given")
    return counts, ell_num_dim


def _output_positions(equation, arrow, lhs, counts, ell_num_dim):
    """Where each label goes in the aligned dims: output labels first, then the contracted ones.

    Returns (position per label, start of the ellipsis dims, number of output dims, number of aligned dims)."""
    perm_index = [-1] * _ELLIPSIS
    index, ell_index, ell_in_output = 0, 0, False
    if arrow < 0:  # implicit output: the ellipsis, then the labels seen once, in alphabetical order
        index, ell_in_output = ell_num_dim, True
        for s in range(_ELLIPSIS):
            if counts[s] == 1:
                perm_index[s], index = index, index + 1
    else:
        rhs, i = equation[arrow + 2:], 0
        while i < len(rhs):
            c = rhs[i]
            if c == ".":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                i += 2
                ell_index, index, ell_in_output = index, index + ell_num_dim, True
            elif c != " ":
                if not _is_label(c):
                    raise RuntimeError(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                                       "equation string, subscripts must be in [a-zA-Z]")
                s = _subscript(c)
                if counts[s] == 0 or perm_index[s] != -1:
                    why = (" appears more than once in the output" if perm_index[s] > -1
                           else " does not appear in the equation for any input operand")
                    raise RuntimeError(f"einsum(): output subscript {c}{why}")
                perm_index[s], index = index, index + 1
            i += 1
    out_num_dim = index
    if not ell_in_output:  # ellipsis dims not in the output are contracted
        ell_index, index = index, index + ell_num_dim
    for s in range(_ELLIPSIS):
        if counts[s] > 0 and perm_index[s] == -1:
            perm_index[s], index = index, index + 1
    return perm_index, ell_index, out_num_dim, index


def _align(i, op, labels, layout, sizes, dim_counts):
    """Operand ``i`` on the aligned dims: diagonals for repeated labels, size-1 dims for missing ones, a permute."""
    perm_index, ell_index, ell_num_dim, num_dims = layout
    label_size, ell_sizes = sizes
    permutation, dim, ndim = [-1] * num_dims, 0, op.dim()
    for s in labels:
        if s == _ELLIPSIS:
            covered = ndim - (len(labels) - 1)
            for j in range(ell_num_dim - covered, ell_num_dim):
                size = op.shape[dim]
                if size != 1:
                    if ell_sizes[j] != 1 and ell_sizes[j] != size:
                        raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size "
                                           f"{size} which does not broadcast with previously seen ellipsis with size "
                                           f"{ell_sizes[j]} for the respective dimension")
                    ell_sizes[j] = size
                    dim_counts[ell_index + j] += 1
                permutation[ell_index + j], dim = dim, dim + 1
        elif permutation[perm_index[s]] == -1:
            size = op.shape[dim]
            if size != 1:
                if label_size[s] != 1 and label_size[s] != size:
                    raise RuntimeError(f"einsum(): subscript {_label(s)} has size {size} for operand {i} which does "
                                       f"not broadcast with previously seen size {label_size[s]}")
                label_size[s] = size
                dim_counts[perm_index[s]] += 1
            permutation[perm_index[s]], dim = dim, dim + 1
        else:  # a repeated label: its diagonal, moved to where the label first appeared
            prev = permutation[perm_index[s]]
            if op.shape[dim] != op.shape[prev]:
                raise RuntimeError(f"einsum(): subscript {_label(s)} is repeated for operand {i} but the sizes don't "
                                   f"match, {op.shape[dim]} != {op.shape[prev]}")
            op = ops.movedim(ops.diagonal(op, 0, prev, dim), -1, prev)
    for k, val in enumerate(permutation):
        if val == -1:
            op = ops.unsqueeze(op, dim)
            permutation[k], dim = dim, dim + 1
    return ops.permute(op, permutation)


def _check_path(path, num_ops):
    if path is None:
        return
    expected = 1 if num_ops == 1 else (num_ops - 1) * 2
    if len(path) != expected:
        raise RuntimeError(f"einsum(): expected contraction path given in path parameter to have size {expected} but "
                           f"got {len(path)}")


def linear(input, weight, bias=None):
    if input.dim() == 2 and bias is not None:
        return ops.addmm(bias, input, ops.t(weight))
    if bias is not None and input.dim() != 2 and input.is_contiguous():
        return _flattened_linear(input, weight, bias)
    output = ops.matmul(input, ops.t(weight))
    if bias is not None:
        output = ops.add_(output, bias)
    return output


def _flattened_linear(input, weight, bias):
    """N-d input: fold the leading dims into rows, one addmm, view back (``_flatten_nd_linear``)."""
    sizes = tuple(input.shape)
    rows = 1
    for s in sizes[:-1]:
        rows *= s  # not -1: reshape cannot infer a dimension when another one is 0
    flat = ops.reshape(input, (rows, sizes[-1]))
    out = ops.addmm(bias, flat, ops.t(weight))
    return ops.view(out, sizes[:-1] + (out.shape[-1],))


def einsum(equation, tensors, path=None):
    """The Einstein sum of ``tensors`` that ``equation`` describes, e.g. ``'ij,jk->ik'`` for a matrix product."""
    if len(tensors) == 0:
        raise RuntimeError("einsum(): must provide at least one operand")
    num_ops = len(tensors)
    _check_path(path, num_ops)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_operands(lhs, num_ops)
    counts, ell_num_dim = _count_labels(op_labels, tensors)
    perm_index, ell_index, out_num_dim, num_dims = _output_positions(equation, arrow, lhs, counts, ell_num_dim)
    layout = (perm_index, ell_index, ell_num_dim, num_dims)
    sizes = ([1] * _ELLIPSIS, [1] * ell_num_dim)
    dim_counts = [0] * num_dims
    aligned = [_align(i, op, labels, layout, sizes, dim_counts)
               for i, (op, labels) in enumerate(zip(tensors, op_labels))]
    result = _contract_left_to_right(aligned, dim_counts, out_num_dim, num_dims)
    if num_dims == out_num_dim:
        return result
    if num_ops > 1:  # the contracted dims are all of size 1 by now
        return ops.view(result, tuple(result.shape)[:out_num_dim])
    return ops.sum(result, list(range(out_num_dim, num_dims)))


def _contract_left_to_right(operands, dim_counts, out_num_dim, num_dims):
    """Contract the first two operands until one is left; a dim is summed once no later operand has it."""
    operands = list(operands)
    while len(operands) > 1:
        a, b = operands[0], operands[1]
        sum_dims, a_sums, b_sums = [], [], []
        for dim in range(out_num_dim, num_dims):
            if a.shape[dim] != 1 and b.shape[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a.shape[dim] != 1:
                    a_sums.append(dim)
                    dim_counts[dim] = 0
                elif b.shape[dim] != 1:
                    b_sums.append(dim)
                    dim_counts[dim] = 0
        if a_sums:
            a = ops.sum(a, a_sums, True)
        if b_sums:
            b = ops.sum(b, b_sums, True)
        operands[:2] = [sumproduct_pair(a, b, sum_dims, True)]
    return operands[0]


def sumproduct_pair(left, right, sum_dims, keepdim):
    """``(left * right).sum(sum_dims)`` as one ``bmm``: dims in both inputs and the output become the batch.

    Both inputs have the same number of dims (size 1 where a label is missing). The dims are sorted into four
    groups: in left, right and output (``lro``), left and output (``lo``), right and output (``ro``), summed."""
    if left.dim() != right.dim():
        raise RuntimeError("number of dimensions must match")
    if not sum_dims:
        return ops.mul(left, right)
    ndim, summed = left.dim(), set(sum_dims)
    lro, lo, ro = [], [], []
    sizes = {"lro": 1, "lo": 1, "ro": 1, "sum": 1}
    for i in range(ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in summed:
            if sl and sr:
                _check_same(left, right, i)
                sizes["sum"] *= left.shape[i]
            elif sl:
                left = ops.sum(left, [i], True)
            elif sr:
                right = ops.sum(right, [i], True)
        elif sl and sr:
            _check_same(left, right, i)
            lro.append(i)
            sizes["lro"] *= left.shape[i]
        elif sl:
            lo.append(i)
            sizes["lo"] *= left.shape[i]
        else:
            ro.append(i)
            sizes["ro"] *= right.shape[i]
    out_size = ([left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sum_dims)
                + [right.shape[d] for d in ro])
    out_order = lro + lo + list(sum_dims) + ro
    left = ops.reshape(ops.permute(left, out_order), (sizes["lro"], sizes["lo"], sizes["sum"]))
    right = ops.reshape(ops.permute(right, lro + list(sum_dims) + ro + lo), (sizes["lro"], sizes["sum"], sizes["ro"]))
    result = ops.bmm(left, right)
    result = ops.permute(ops.view(result, out_size), [out_order.index(d) for d in range(len(out_order))])
    if not keepdim:
        result = ops.view(result, [s for i, s in enumerate(result.shape) if i not in summed])
    return result


def _check_same(left, right, i):
    if left.shape[i] != right.shape[i]:
        raise RuntimeError("non-broadcast dimensions must match")


def tensordot(self, other, dims_self, dims_other):
    """Contract ``dims_self`` of ``self`` with ``dims_other`` of ``other``: permute both so the contracted dims
    meet, flatten each side to a matrix, ``mm``, view as the free dims of ``self`` then of ``other``."""
    if len(dims_self) != len(dims_other):
        raise RuntimeError("both dimension lists should have same length")
    if self.dtype is not other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    t1, t2, csize = _sum_broadcast_dims(self, other, dims_self, dims_other)
    free1 = _free_dims(self, dims_self)
    free2 = _free_dims(other, dims_other)
    rsizes = [t1.shape[i] for i in free1] + [t2.shape[i] for i in free2]
    size1, size2 = _product([t1.shape[i] for i in free1]), _product([t2.shape[i] for i in free2])
    # each side permuted then flattened before the other (the order of their nodes' sequence numbers)
    t1 = ops.permute(t1, free1 + list(dims_self))
    if rsizes:
        t1 = ops.reshape(t1, (size1, csize))
    t2 = ops.permute(t2, list(dims_other) + free2)
    if not rsizes:  # nothing left but the contraction: a dot, without copying non-contiguous operands
        return ops.view(_full_contraction(t1, t2), rsizes)
    return ops.reshape(ops.mm(t1, ops.reshape(t2, (csize, size2))), rsizes)


def tensordot_out(self, other, dims_self, dims_other, out):
    """The result copied into ``out`` (so autograd records a ``copy_``); no type promotion: the dtypes must agree."""
    result = tensordot(self, other, dims_self, dims_other)
    checks.check_same_device(out, self, other)
    if result.dtype is not out.dtype:
        raise RuntimeError(f"tensordot: Expected the output tensor to have dtype {result.dtype.c10_name}, but got an "
                           f"output tensor with dtype {out.dtype.c10_name}")
    resize_output(out, tuple(result.shape))
    return ops.copy_(out, result)


def _sum_broadcast_dims(self, other, dims_self, dims_other):
    """A contracted dim of size 1 on one side is summed on the other at once; the rest must match."""
    t1, t2, csize = self, other, 1
    for d1, d2 in zip(dims_self, dims_other):
        s1, s2 = self.size(d1), other.size(d2)
        if s2 == 1:
            t1 = ops.sum(t1, [d1], True)
        elif s1 == 1:
            t2 = ops.sum(t2, [d2], True)
        elif s1 != s2:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {d1} and second "
                               f"has size {s2} in dim {d2}")
        else:
            csize *= s1
    return t1, t2, csize


def _free_dims(t, dims):
    """The dims of ``t`` not contracted, in order (``dim_list_to_bitset``'s checks on the contracted ones)."""
    contracted = set()
    for d in dims:
        d = checks.wrap_dim(d, t.dim())
        if d in contracted:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        contracted.add(d)
    return [i for i in range(t.dim()) if i not in contracted]


def _full_contraction(t1, t2):
    if t1.is_contiguous() and t2.is_contiguous():
        return ops.dot(ops.flatten(t1), ops.flatten(t2))
    return ops.sum(ops.mul(ops.squeeze(t1), ops.squeeze(t2)))


def _product(sizes):
    result = 1
    for s in sizes:
        result *= s
    return result
