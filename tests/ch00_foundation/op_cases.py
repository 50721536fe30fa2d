"""The op table shared by the foundation tests: inputs and one expression per op, plus a graph walker."""

import numpy as np

RNG = np.random.default_rng(0)


def data(*shape, positive=False):
    a = RNG.standard_normal(shape)
    return np.abs(a) + 0.5 if positive else a


# name: (input arrays, expression taking (T, *inputs))
CASES = {
    "add": ([data(2, 3), data(2, 3)], lambda T, a, b: a + b),
    "add_alpha": ([data(2, 3), data(3)], lambda T, a, b: T.add(a, b, alpha=2.5)),
    "add_scalar": ([data(2, 3)], lambda T, a: a + 2),
    "radd": ([data(2, 3)], lambda T, a: 2 + a),
    "sub": ([data(2, 3), data(2, 1)], lambda T, a, b: a - b),
    "sub_alpha": ([data(2, 3), data(2, 3)], lambda T, a, b: a.sub(b, alpha=0.5)),
    "rsub_scalar": ([data(2, 3)], lambda T, a: 2 - a),
    "rsub_tensor": ([data(2, 3), data(3)], lambda T, a, b: T.rsub(a, b)),
    "mul": ([data(2, 3), data(1, 3)], lambda T, a, b: a * b),
    "mul_scalar": ([data(4)], lambda T, a: a * 3.5),
    "div": ([data(2, 3), data(2, 3, positive=True)], lambda T, a, b: a / b),
    "div_scalar": ([data(2, 3)], lambda T, a: a / 4),
    "rdiv": ([data(2, 3, positive=True)], lambda T, a: 2 / a),
    "neg": ([data(3)], lambda T, a: -a),
    "pow_scalar": ([data(2, 3)], lambda T, a: a ** 3),
    "pow_tensor": ([data(2, 3, positive=True), data(2, 3)], lambda T, a, b: a ** b),
    "rpow": ([data(2, 3)], lambda T, a: 2 ** a),
    "exp": ([data(2, 3)], lambda T, a: a.exp()),
    "log": ([data(2, 3, positive=True)], lambda T, a: T.log(a)),
    "relu": ([data(3, 4)], lambda T, a: a.relu()),
    "sigmoid": ([data(3, 4)], lambda T, a: T.sigmoid(a)),
    "tanh": ([data(3, 4)], lambda T, a: a.tanh()),
    "sum": ([data(2, 3)], lambda T, a: a.sum()),
    "sum_dim": ([data(2, 3, 4)], lambda T, a: a.sum(1)),
    "sum_dims_keepdim": ([data(2, 3, 4)], lambda T, a: a.sum((0, 2), keepdim=True)),
    "mean": ([data(2, 3)], lambda T, a: a.mean()),
    "mean_dim": ([data(2, 3)], lambda T, a: a.mean(-1)),
    "mm": ([data(2, 3), data(3, 4)], lambda T, a, b: T.mm(a, b)),
    "matmul_2d": ([data(2, 3), data(3, 4)], lambda T, a, b: a @ b),
    "matmul_1d_1d": ([data(3), data(3)], lambda T, a, b: a @ b),
    "matmul_2d_1d": ([data(2, 3), data(3)], lambda T, a, b: a @ b),
    "matmul_1d_2d": ([data(3), data(3, 2)], lambda T, a, b: T.matmul(a, b)),
    "matmul_3d_2d": ([data(4, 2, 3), data(3, 5)], lambda T, a, b: a @ b),
    "dot": ([data(3), data(3)], lambda T, a, b: T.dot(a, b)),
    "mv": ([data(2, 3), data(3)], lambda T, a, b: T.mv(a, b)),
    "bmm": ([data(2, 3, 4), data(2, 4, 2)], lambda T, a, b: T.bmm(a, b)),
    "addmm": ([data(4), data(2, 3), data(3, 4)], lambda T, a, b, c: T.addmm(a, b, c, beta=0.5, alpha=2)),
    "t": ([data(2, 3)], lambda T, a: a.t()),
    "transpose": ([data(2, 3, 4)], lambda T, a: a.transpose(0, 2)),
    "permute": ([data(2, 3, 4)], lambda T, a: a.permute(2, 0, 1)),
    "T": ([data(2, 3)], lambda T, a: a.T),
    "reshape_view": ([data(2, 3)], lambda T, a: a.reshape(3, 2)),
    "reshape_copy": ([data(2, 3)], lambda T, a: a.t().reshape(6)),
    "view": ([data(2, 3)], lambda T, a: a.view(-1)),
    "expand": ([data(3, 1)], lambda T, a: a.expand(2, 3, 4)),
    "expand_as": ([data(1, 4), data(3, 4)], lambda T, a, b: a.expand_as(b) * b),
    "unsqueeze": ([data(2, 3)], lambda T, a: a.unsqueeze(1)),
    "squeeze": ([data(2, 1, 3)], lambda T, a: a.squeeze()),
    "squeeze_dim": ([data(2, 1, 3)], lambda T, a: a.squeeze(1)),
    "select": ([data(2, 3)], lambda T, a: a[1]),
    "select_2": ([data(2, 3)], lambda T, a: a[:, -1]),
    "slice": ([data(5, 3)], lambda T, a: a[1:4:2]),
    "index": ([data(5, 3)], lambda T, a: a[T.tensor([0, 2, 2])]),
    "index_mask": ([data(5, 3)], lambda T, a: a[a > 0]),
    "clone": ([data(2, 3)], lambda T, a: a.clone()),
    "to_double": ([data(2, 3)], lambda T, a: a.to(T.float64)),
    "double_then_float": ([data(2, 3)], lambda T, a: a.double().float() * 2),
    "stack": ([data(2, 3), data(2, 3)], lambda T, a, b: T.stack([a, b], 1)),
    "cat": ([data(2, 3), data(4, 3)], lambda T, a, b: T.cat([a, b])),
    "cat_dim1": ([data(2, 3), data(2, 1)], lambda T, a, b: T.cat((a, b), dim=1)),
    "inplace_add": ([data(2, 3), data(3)], lambda T, a, b: (a * 1).add_(b)),
    "inplace_mul": ([data(2, 3), data(2, 3)], lambda T, a, b: (a + 0).mul_(b)),
    "inplace_zero": ([data(2, 3)], lambda T, a: (a * 2).zero_() + a),
    "where": ([data(2, 3), data(2, 3), data(3)], lambda T, c, a, b: T.where(c > 0, a, b)),
    "mlp": ([data(4, 3), data(5, 3), data(5), data(1, 5)],
            lambda T, x, w, b, v: (T.nn.functional.linear(x, w, b).relu() @ v.t()).sigmoid().mean()),
    # elementwise ops and in-place forms
    "abs": ([data(2, 3)], lambda T, a: a.abs()),
    "sign": ([data(2, 3)], lambda T, a: T.sign(a) * a),
    "rsqrt": ([data(2, 3, positive=True)], lambda T, a: a.rsqrt()),
    "exp2": ([data(2, 3)], lambda T, a: T.exp2(a)),
    "expm1": ([data(2, 3)], lambda T, a: a.expm1()),
    "log2": ([data(2, 3, positive=True)], lambda T, a: a.log2()),
    "log1p": ([data(2, 3, positive=True)], lambda T, a: T.log1p(a)),
    "sin": ([data(2, 3)], lambda T, a: a.sin()),
    "cos": ([data(2, 3)], lambda T, a: T.cos(a)),
    "clamp_scalars": ([data(3, 4)], lambda T, a: a.clamp(-0.5, 0.5)),
    "clamp_min_only": ([data(3, 4)], lambda T, a: T.clamp(a, min=-0.2)),
    "clamp_tensors": ([data(3, 4), data(4) - 1, data(3, 1) + 1], lambda T, a, lo, hi: T.clamp(a, lo, hi)),
    "clamp_tensor_max_only": ([data(3, 4), data(4)], lambda T, a, hi: a.clamp(max=hi)),
    "clamp_min_scalar": ([data(2, 3)], lambda T, a: a.clamp_min(0.1)),
    "clamp_min_tensor": ([data(2, 3), data(3)], lambda T, a, b: T.clamp_min(a, b)),
    "clamp_max_scalar": ([data(2, 3)], lambda T, a: T.clamp_max(a, 0.1)),
    "clamp_max_tensor": ([data(2, 3), data(2, 1)], lambda T, a, b: a.clamp_max(b)),
    "maximum": ([data(2, 3), data(3)], lambda T, a, b: T.maximum(a, b)),
    "minimum": ([data(2, 3), data(2, 1)], lambda T, a, b: a.minimum(b)),
    "remainder_scalar": ([data(2, 3)], lambda T, a: a % 1.5),
    "remainder_tensor": ([data(2, 3), data(3, positive=True)], lambda T, a, b: T.remainder(a, b)),
    "inplace_sub": ([data(2, 3), data(3)], lambda T, a, b: (a * 1).sub_(b, alpha=2)),
    "inplace_div": ([data(2, 3), data(2, 3, positive=True)], lambda T, a, b: (a * 1).div_(b)),
    "inplace_pow_scalar": ([data(2, 3)], lambda T, a: (a * 1).pow_(3)),
    "inplace_pow_tensor": ([data(2, 3, positive=True), data(3)], lambda T, a, b: (a * 1).pow_(b)),
    "inplace_clamp": ([data(3, 4)], lambda T, a: (a * 1).clamp_(-0.5, 0.5)),
    "inplace_clamp_tensor": ([data(3, 4), data(4)], lambda T, a, lo: (a * 1).clamp_(min=lo)),
    "inplace_clamp_min": ([data(3, 4)], lambda T, a: (a * 1).clamp_min_(0.0)),
    "inplace_copy": ([data(2, 3), data(3)], lambda T, a, b: (a * 1).copy_(b) * a),
    "inplace_fill_scalar": ([data(2, 3)], lambda T, a: (a * 1).fill_(2.5) * a),
    "inplace_fill_tensor": ([data(2, 3), data(3)], lambda T, a, b: (a * 1).fill_(b[1]) * a),
    "fill_scalar": ([data(2, 3)], lambda T, a: T.fill(a, 2.5) * a),
    "fill_tensor": ([data(2, 3), data(3)], lambda T, a, b: T.fill(a, b[0]) * a),
    "inplace_normal": ([data(2, 3)], lambda T, a: (a * 1).normal_() * 0 + a),
    "inplace_uniform": ([data(2, 3)], lambda T, a: (a * 1).uniform_(-1, 1) * 0 + a),
    # sqrt and the optimizers' in-place ops
    "sqrt": ([data(2, 3, positive=True)], lambda T, a: a.sqrt()),
    "inplace_addcmul": ([data(2, 3), data(2, 3), data(3)], lambda T, a, b, c: (a * 2).addcmul_(b, c, value=0.5)),
    "inplace_addcdiv": ([data(2, 3), data(2, 3), data(2, 3, positive=True)],
                        lambda T, a, b, c: (a * 2).addcdiv_(b, c, value=-1.5)),
    "inplace_lerp_small": ([data(2, 3), data(2, 3)], lambda T, a, b: (a * 2).lerp_(b, 0.25)),
    "inplace_lerp_large": ([data(2, 3), data(2, 3)], lambda T, a, b: (a * 2).lerp_(b, 0.75)),
    # torch.nn: softmax, activations, layer_norm, dropout, losses
    "softmax": ([data(3, 4)], lambda T, a: a.softmax(1)),
    "log_softmax": ([data(3, 4)], lambda T, a: T.log_softmax(a, -1)),
    "softmax_double_backward": ([data(3, 4), data(3, 4)], lambda T, a, w: T.autograd.grad(
        (a.softmax(0) * w).sum(), a, create_graph=True)[0]),
    "log_softmax_double_backward": ([data(3, 4), data(3, 4)], lambda T, a, w: T.autograd.grad(
        (a.log_softmax(1) * w).sum(), a, create_graph=True)[0]),
    "gelu": ([data(3, 4)], lambda T, a: T.nn.functional.gelu(a)),
    "gelu_tanh": ([data(3, 4)], lambda T, a: T.nn.functional.gelu(a, approximate="tanh")),
    "silu": ([data(3, 4)], lambda T, a: T.nn.functional.silu(a)),
    "relu_inplace": ([data(3, 4)], lambda T, a: T.nn.functional.relu(a * 1, inplace=True)),
    "layer_norm": ([data(2, 3, 4), data(4), data(4)], lambda T, x, w, b: T.nn.functional.layer_norm(x, (4,), w, b)),
    "bernoulli": ([data(2, 3)], lambda T, a: T.bernoulli(a * 0) + a),
    "inplace_bernoulli_tensor": ([data(2, 3)], lambda T, a: (a * 1).bernoulli_(T.ones(2, 3)) * a),
    "inplace_bernoulli_scalar": ([data(2, 3)], lambda T, a: (a * 1).bernoulli_(1.0) * a),
    "native_dropout_eval": ([data(2, 3)], lambda T, a: T.native_dropout(a, 0.5, False)[0]),
    "masked_fill": ([data(2, 3)], lambda T, a: a.masked_fill(a > 0, 2.0)),
    "inplace_masked_fill": ([data(2, 3)], lambda T, a: (a * 1).masked_fill_(a < 0, -1.0)),
    "masked_fill_tensor": ([data(2, 3), data(1)], lambda T, a, v: a.masked_fill(a > 0, v[0])),
    "mse_loss": ([data(3, 4), data(3, 4)], lambda T, a, b: T.nn.functional.mse_loss(a, b)),
    "l1_loss_sum": ([data(3, 4), data(3, 4)], lambda T, a, b: T.nn.functional.l1_loss(a, b, reduction="sum")),
    "nll_loss": ([data(4, 5)], lambda T, a: T.nn.functional.nll_loss(a, T.tensor([1, 0, 4, 2]))),
    "nll_loss2d": ([data(2, 3, 2, 2)], lambda T, a: T.nn.functional.nll_loss(
        a, T.tensor([[[0, 1], [2, 0]], [[1, 1], [2, 2]]]), reduction="sum")),
    "cross_entropy": ([data(4, 5)], lambda T, a: T.nn.functional.cross_entropy(a, T.tensor([1, 0, 4, 2]))),
    "cross_entropy_smoothing": ([data(4, 5)], lambda T, a: T.nn.functional.cross_entropy(
        a, T.tensor([1, 0, 4, 2], device=a.device), ignore_index=0, label_smoothing=0.2)),
    "bce_with_logits": ([data(3, 4), data(3, 4)], lambda T, a, b: T.nn.functional.binary_cross_entropy_with_logits(
        a, b.sigmoid(), pos_weight=T.tensor([0.5, 1.0, 2.0, 3.0], dtype=a.dtype, device=a.device))),
    # reductions (group G)
    "max_all": ([data(3, 4)], lambda T, a: a.max()),
    "min_all": ([data(3, 4)], lambda T, a: T.min(a)),
    "max_dim": ([data(3, 4)], lambda T, a: a.max(1).values),
    "min_dim_keepdim": ([data(3, 4)], lambda T, a: T.min(a, 0, keepdim=True)[0]),
    "max_other": ([data(2, 3), data(3)], lambda T, a, b: T.max(a, b)),
    "amax": ([data(2, 3, 4)], lambda T, a: a.amax((0, -1))),
    "amin": ([data(2, 3, 4)], lambda T, a: T.amin(a, 1, keepdim=True)),
    "logsumexp": ([data(3, 4)], lambda T, a: a.logsumexp(1)),
    "var": ([data(3, 4)], lambda T, a: a.var(0)),
    "std": ([data(3, 4)], lambda T, a: T.std(a, dim=1, correction=0, keepdim=True)),
    "norm": ([data(3, 4)], lambda T, a: a.norm(dim=1)),
    "norm_p3": ([data(3, 4)], lambda T, a: T.norm(a, 3)),

    # indexing (group I): each target of a scatter written once, so finite differences see the same gradient
    "embedding": ([data(5, 3)], lambda T, w: T.nn.functional.embedding(T.tensor([[0, 2], [4, 2]], device=w.device), w)),
    "gather": ([data(3, 4)], lambda T, a: a.gather(1, T.tensor([[0, 3], [1, 1], [2, 0]], device=a.device))),
    "scatter_src": ([data(3, 4), data(2, 3)],
                    lambda T, a, s: a.scatter(0, T.tensor([[0, 2, 1], [1, 0, 2]], device=a.device), s)),
    "scatter_value": ([data(3, 4)], lambda T, a: T.scatter(a, -1, T.tensor([[3], [0], [1]], device=a.device), 2.5)),
    "inplace_scatter": ([data(3, 4), data(3, 1)],
                        lambda T, a, s: (a * 1).scatter_(1, T.tensor([[3], [0], [1]], device=a.device), s)),
    "scatter_add": ([data(3, 4), data(3, 2)],
                    lambda T, a, s: a.scatter_add(1, T.tensor([[0, 0], [3, 1], [2, 2]], device=a.device), s)),
    "inplace_scatter_add": ([data(3, 4), data(1, 4)],
                            lambda T, a, s: (a * 1).scatter_add_(0, T.tensor([[2, 0, 2, 1]], device=a.device), s)),
    "index_select": ([data(4, 3)], lambda T, a: a.index_select(0, T.tensor([3, 0, 3], device=a.device))),
    "index_add": ([data(4, 3), data(2, 3)],
                  lambda T, a, s: a.index_add(0, T.tensor([1, 1], device=a.device), s, alpha=2)),
    "baddbmm": ([data(3, 5), data(2, 3, 4), data(2, 4, 5)], lambda T, a, b, c: T.baddbmm(a, b, c, beta=0.5, alpha=2)),
    "reshape_alias": ([data(2, 3)], lambda T, a: a.t().reshape(3, 2, 1)),
    "matmul_2d_3d": ([data(3, 4), data(2, 4, 5)], lambda T, a, b: a @ b),
    # shape ops (group H): several views of one input, flip, roll, repeat
    "split": ([data(5, 2)], lambda T, a: a.split(2)[2] * a.split(2)[0][:1]),
    "split_sizes": ([data(5, 2)], lambda T, a: T.cat(T.split(a, [1, 4])[::-1])),
    "chunk": ([data(4, 3)], lambda T, a: a.chunk(3, dim=-1)[1]),
    "unbind": ([data(3, 2)], lambda T, a: a.unbind(1)[1] * T.unbind(a)[0][0]),
    "narrow": ([data(4, 3)], lambda T, a: a.narrow(0, -3, 2)),
    "flip": ([data(2, 3, 2)], lambda T, a: a.flip(0, -1)),
    "roll": ([data(3, 4)], lambda T, a: a.roll((1, -1), (0, 1)) * T.roll(a, 5)),
    "repeat": ([data(2, 3)], lambda T, a: a.repeat(2, 1, 3)),
    "tile": ([data(2, 3)], lambda T, a: a.tile(2)),
    "unflatten": ([data(6, 2)], lambda T, a: a.unflatten(0, (3, -1)).contiguous()),
    # more ops (group L): sort (SortBackward0), sort with stable= (SortBackward1), topk
    "sort": ([data(3, 4)], lambda T, a: a.sort(0, descending=True).values),
    "sort_stable": ([data(3, 4)], lambda T, a: T.sort(a, stable=True).values),
    "topk": ([data(3, 5)], lambda T, a: a.topk(2, largest=False).values),
    "div_trunc": ([data(2, 3), data(2, 3, positive=True)], lambda T, a, b: T.div(a, b, rounding_mode="trunc")),
    "floor": ([data(2, 3)], lambda T, a: T.floor(a) + a),
    "ceil": ([data(2, 3)], lambda T, a: a.ceil() * a),
    "trunc": ([data(2, 3)], lambda T, a: T.trunc(a) + a),
    "round": ([data(2, 3)], lambda T, a: a.round() + a),
    "frac": ([data(2, 3)], lambda T, a: T.frac(a)),
    "nan_to_num": ([data(2, 3)], lambda T, a: T.nan_to_num(T.log(a))),
    "fmod_scalar": ([data(2, 3)], lambda T, a: T.fmod(a, 0.7)),
    "fmod_tensor": ([data(2, 3), data(2, 3, positive=True)], lambda T, a, b: a.fmod(b)),
    # ops batch: square ... pad
    "square": ([data(2, 3)], lambda T, a: a.square()),
    "prod": ([data(2, 3)], lambda T, a: a.prod()),
    "prod_dim": ([data(2, 3, 4)], lambda T, a: T.prod(a, 1, keepdim=True)),
    "cumsum": ([data(2, 3)], lambda T, a: a.cumsum(-1)),
    "tril": ([data(3, 4)], lambda T, a: a.tril(1)),
    "triu": ([data(2, 3, 4)], lambda T, a: T.triu(a, -1)),
    "erf": ([data(2, 3)], lambda T, a: a.erf()),
    "softplus": ([data(3, 4)], lambda T, a: T.nn.functional.softplus(a, beta=2, threshold=1)),
    "leaky_relu": ([data(3, 4)], lambda T, a: T.nn.functional.leaky_relu(a, 0.2)),
    "leaky_relu_inplace": ([data(3, 4)], lambda T, a: T.nn.functional.leaky_relu(a * 1, 0.3, inplace=True)),
    "elu": ([data(3, 4)], lambda T, a: T.nn.functional.elu(a, alpha=0.5)),
    "elu_inplace": ([data(3, 4)], lambda T, a: T.nn.functional.elu(a * 1, inplace=True)),
    "hardtanh": ([data(3, 4)], lambda T, a: T.nn.functional.hardtanh(a, -0.5, 0.5)),
    "movedim": ([data(2, 3, 4)], lambda T, a: a.movedim(0, -1)),
    "swapaxes": ([data(2, 3, 4)], lambda T, a: T.swapaxes(a, 0, 2)),
    "outer": ([data(3), data(4)], lambda T, a, b: T.outer(a, b)),
    "pad": ([data(2, 3)], lambda T, a: T.nn.functional.pad(a, (1, 2, -1, 1), value=0.5)),
    # ops batch 2
    "cumprod": ([data(2, 3)], lambda T, a: a.cumprod(-1)),
    "cumprod_dim0": ([data(3, 2, 2)], lambda T, a: T.cumprod(a, 0)),
    "trace": ([data(3, 4)], lambda T, a: a.trace()),
    "index_fill": ([data(3, 4)], lambda T, a: a.index_fill(1, T.tensor([0, 2]), -1.5)),
    "index_fill_tensor": ([data(3, 4), data()], lambda T, a, v: T.index_fill(a, 0, T.tensor([2, 0, 2]), v)),
    "atan2": ([data(2, 3), data(3)], lambda T, a, b: T.atan2(a, b)),
    "logit": ([data(2, 3)], lambda T, a: T.sigmoid(a).logit()),
    "logit_eps": ([data(2, 3)], lambda T, a: T.logit(T.sigmoid(a), eps=0.3)),
}


def _leaves(T, arrays):
    return [T.tensor(a, dtype=T.float64, requires_grad=True) for a in arrays]


def _graph(t) -> list:
    """The graph under t as a list of (name, [(child index or None, input_nr)]), in DFS order."""
    if t.grad_fn is None:
        return []
    order, index, stack = [], {}, [t.grad_fn]
    while stack:
        node = stack.pop()
        if node in index:
            continue
        index[node] = len(order)
        order.append(node)
        stack.extend(reversed([n for n, _ in node.next_functions if n is not None]))
    return [(n.name(), [(index.get(c) if c is not None else None, nr) for c, nr in n.next_functions])
            for n in order]


