"""``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and the cells ``RNNCell``, ``LSTMCell``, ``GRUCell`` against PyTorch.

Models ``torch/nn/modules/rnn.py`` and ``aten/src/ATen/native/RNN.cpp`` (CPU; ``mkldnn/RNN.cpp`` for a float32
LSTM). Compared: parameter names, shapes and initial values after ``manual_seed`` (bit for bit), ``repr``,
``_flat_weights_names``/``all_weights``, constructor errors and warnings, outputs, ``h_n``/``c_n``, the whole
graph below them (names, edges, sharing: ``graph_structure``), and the gradients of the input, ``h_0``/``c_0``
and every parameter, for each option (layers, bias, batch_first, dropout in training, bidirectional,
proj_size, unbatched input, float64), plus the shape checks' error texts. Values within rtol 1e-5 (float32:
PyTorch's matrix products and oneDNN's LSTM round in their own order) or 1e-12 (float64).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import picotorch
from graph_helpers import graph_structure
from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(14)


def _tol(dtype: str) -> dict:
    return {"rtol": 1e-12, "atol": 1e-12} if dtype == "float64" else {"rtol": 1e-5, "atol": 1e-6}


def _hidden(T, m, x, dtype, cell=False):
    """A random ``h_0`` (``(h_0, c_0)`` for an LSTM) shaped as the module expects, requiring grad."""
    n = m.num_layers * (2 if m.bidirectional else 1)
    unbatched = x.dim() == 2
    batch = () if unbatched else (x.shape[0] if m.batch_first else x.shape[1],)

    def one(size):
        return T.tensor(RNG_H.standard_normal((n,) + batch + (size,)), dtype=dtype, requires_grad=True)
    if cell:
        return one(m.proj_size or m.hidden_size), one(m.hidden_size)
    return one(m.hidden_size)


RNG_H = None  # re-seeded per program, so that both libraries get the same h_0


def _flat(res) -> list:
    out = []
    for r in res:
        out += _flat(r) if isinstance(r, tuple) else [r]
    return out


def _run(T, cls, args, kwargs, shape, dtype="float32", with_hx=False, train=False):
    global RNG_H
    RNG_H = np.random.default_rng(3)
    T.manual_seed(0)
    m = getattr(T.nn, cls)(*args, **kwargs)
    if dtype == "float64":
        m = m.double()
    m.train(train)
    x = T.tensor(np.random.default_rng(1).standard_normal(shape), dtype=getattr(T, dtype), requires_grad=True)
    hx = _hidden(T, m, x, getattr(T, dtype), cell=cls == "LSTM") if with_hx else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LSTM with projections: the oneDNN warning (compared below)
        res = m(x) if hx is None else m(x, hx)
    outs = _flat(res)
    sum(o.sum() * (i + 1) for i, o in enumerate(outs)).backward()
    leaves = [("input", x)] + ([] if hx is None else [(f"hx{i}", h) for i, h in enumerate(_flat((hx,)))])
    leaves += list(m.named_parameters())
    return outs, graph_structure(*outs), [(n, t.grad) for n, t in leaves]


def _check(cls, args, kwargs, shape, **options):
    ours, theirs = _run(picotorch, cls, args, kwargs, shape, **options), _run(torch, cls, args, kwargs, shape,
                                                                            **options)
    tol = _tol(options.get("dtype", "float32"))
    for a, b in zip(ours[0], theirs[0], strict=True):
        assert tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride() and str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **tol)
    assert ours[1] == theirs[1]
    for (name, a), (name_t, b) in zip(ours[2], theirs[2], strict=True):
        assert name == name_t and (a is None) == (b is None), name
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), **tol, err_msg=name)


# (args, kwargs, input shape, options): unbatched inputs are 2-D; batch_first swaps the first two dims
PROGRAMS = [
    ((3, 4), {}, (5, 2, 3), {}),
    ((3, 4), {}, (5, 2, 3), {"dtype": "float64", "with_hx": True}),
    ((3, 4), {"num_layers": 2, "bidirectional": True, "batch_first": True}, (2, 5, 3), {"with_hx": True}),
    ((3, 4), {"bias": False}, (4, 3), {}),
    ((3, 4), {"bias": False, "batch_first": True}, (4, 3), {"with_hx": True}),
    ((3, 4), {"num_layers": 3, "dropout": 0.5}, (5, 2, 3), {"train": True}),
    ((3, 4), {"num_layers": 2, "dropout": 0.5, "bidirectional": True, "batch_first": True}, (2, 4, 3),
     {"train": True, "dtype": "float64", "with_hx": True}),
    ((3, 4), {"num_layers": 2, "dropout": 0.5}, (3, 2, 3), {}),  # eval: no dropout
]


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("args, kwargs, shape, options", PROGRAMS)
def test_layer_outputs_graph_and_gradients(cls, args, kwargs, shape, options):
    _check(cls, args, kwargs, shape, **options)


@pytest.mark.parametrize("kwargs, shape, options", [
    ({"nonlinearity": "relu"}, (5, 2, 3), {}),
    ({"nonlinearity": "relu", "num_layers": 2, "bidirectional": True}, (4, 3), {"with_hx": True,
                                                                               "dtype": "float64"}),
])
def test_rnn_relu(kwargs, shape, options):
    _check("RNN", (3, 4), kwargs, shape, **options)


@pytest.mark.parametrize("kwargs, shape, options", [
    ({"proj_size": 2}, (4, 2, 3), {}),
    ({"proj_size": 2, "num_layers": 2, "bidirectional": True, "batch_first": True}, (2, 4, 3), {"with_hx": True}),
    ({"proj_size": 3, "bias": False}, (4, 3), {"with_hx": True, "dtype": "float64"}),
])
def test_lstm_projections(kwargs, shape, options):
    _check("LSTM", (3, 5), kwargs, shape, **options)


CELL_PROGRAMS = [
    ({}, (2, 3), {}),
    ({}, (2, 3), {"with_hx": True}),
    ({"bias": False}, (3,), {"with_hx": True, "dtype": "float64"}),
    ({}, (3,), {}),
]


def _run_cell(T, cls, kwargs, shape, dtype="float32", with_hx=False):
    T.manual_seed(0)
    m = getattr(T.nn, cls)(3, 4, **kwargs)
    if dtype == "float64":
        m = m.double()
    rng = np.random.default_rng(2)
    x = T.tensor(rng.standard_normal(shape), dtype=getattr(T, dtype), requires_grad=True)
    hshape = shape[:-1] + (4,)

    def h():
        return T.tensor(rng.standard_normal(hshape), dtype=getattr(T, dtype), requires_grad=True)
    hx = ((h(), h()) if cls == "LSTMCell" else h()) if with_hx else None
    res = m(x) if hx is None else m(x, hx)
    outs = list(res) if isinstance(res, tuple) else [res]
    sum(o.sum() * (i + 1) for i, o in enumerate(outs)).backward()
    leaves = [x] + ([] if hx is None else list(hx) if isinstance(hx, tuple) else [hx]) + list(m.parameters())
    return outs, graph_structure(*outs), [t.grad for t in leaves]


@pytest.mark.parametrize("cls, extra", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}), ("GRUCell", {}),
                                        ("LSTMCell", {})])
@pytest.mark.parametrize("kwargs, shape, options", CELL_PROGRAMS)
def test_cell_outputs_graph_and_gradients(cls, extra, kwargs, shape, options):
    ours = _run_cell(picotorch, cls, {**kwargs, **extra}, shape, **options)
    theirs = _run_cell(torch, cls, {**kwargs, **extra}, shape, **options)
    tol = _tol(options.get("dtype", "float32"))
    for a, b in zip(ours[0], theirs[0], strict=True):
        assert tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride()
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **tol)
    assert ours[1] == theirs[1]
    for a, b in zip(ours[2], theirs[2], strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **tol)


def test_lstm_float32_is_one_onednn_node_per_layer_and_direction():
    def prog(T):
        T.manual_seed(0)
        m = T.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
        out, (h, c) = m(T.randn(2, 1, 3, requires_grad=True))
        node = out.grad_fn.next_functions[0][0]
        return (out.grad_fn.name(), node.name(), [n.name() if n else None for n, _ in node.next_functions],
                node._saved_reverse, node._saved_mode, node._saved_hidden_size, node._saved_has_biases,
                node._saved_batch_first, node._saved_train, node._saved_input, node._saved_hx_, node._saved_weight2,
                h.grad_fn.name(), [nr for _, nr in h.grad_fn.next_functions],
                [nr for _, nr in c.grad_fn.next_functions])
    assert_same(prog, rtol=1e-5, atol=1e-6)


def test_parameters_names_shapes_and_initial_values():
    def prog(T):
        T.manual_seed(0)
        mods = [T.nn.RNN(3, 4, num_layers=2, bidirectional=True), T.nn.LSTM(3, 5, proj_size=2, num_layers=2),
                T.nn.GRU(2, 3, bias=False), T.nn.LSTM(3, 4, dtype=T.float64), T.nn.RNNCell(3, 4, bias=False),
                T.nn.LSTMCell(2, 3), T.nn.GRUCell(2, 3)]
        return [[(n, p) for n, p in m.named_parameters()] for m in mods]
    assert_same(prog, rtol=0, atol=0)


def test_repr_flat_weights_and_all_weights():
    def prog(T):
        mods = [T.nn.LSTM(3, 4, num_layers=2, batch_first=True), T.nn.RNN(3, 4, 1, "relu", False),
                T.nn.GRU(2, 3, bias=False, dropout=0.2, num_layers=2, bidirectional=True),
                T.nn.LSTM(3, 5, proj_size=2, bidirectional=True), T.nn.RNN(3, 4, nonlinearity="tanh", dropout=0),
                T.nn.RNNCell(3, 4, nonlinearity="relu"), T.nn.GRUCell(3, 4, bias=False), T.nn.LSTMCell(3, 4),
                T.nn.Sequential(T.nn.LSTM(2, 2), T.nn.Linear(2, 1))]
        info = [(repr(m), m.extra_repr()) for m in mods]
        lstm = mods[3]
        info.append((lstm._flat_weights_names, [[tuple(p.shape) for p in ws] for ws in lstm.all_weights],
                     [tuple(w.shape) for w in lstm._flat_weights], lstm.mode, mods[1].mode, mods[1].nonlinearity))
        return info
    assert_same(prog)


def test_assigning_a_weight_updates_flat_weights():
    def prog(T):
        T.manual_seed(0)
        m = T.nn.RNN(2, 3)
        m.weight_hh_l0 = T.nn.Parameter(T.zeros(3, 3))
        out, h = m(T.ones(2, 1, 2))
        return m._flat_weights[1], out, h
    assert_same(prog, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("make", [
    "T.nn.RNN(3, 4, nonlinearity='sigmoid')", "T.nn.RNN(3, 4, proj_size=2)", "T.nn.GRU(3, 4, proj_size=2)",
    "T.nn.LSTM(3, 4, proj_size=4)", "T.nn.LSTM(3, 4, proj_size=-1)", "T.nn.LSTM(3, 4, dropout=1.5)",
    "T.nn.LSTM(3, 4, dropout=True)", "T.nn.LSTM(3, 4, dropout='a')", "T.nn.GRU(3, 4, bias=1)",
    "T.nn.GRU(3, 4, batch_first=None)", "T.nn.RNN(3.0, 4)", "T.nn.RNN(0, 4)", "T.nn.RNN(3, 4.5)", "T.nn.RNN(3, 0)",
    "T.nn.LSTM(3, 4, num_layers=0)", "T.nn.RNN(3, 4, 2, 'relu', True, False, 0.1, False, 7)",
])
def test_constructor_errors(make):
    def prog(T):
        return repr(eval(make))
    assert_same(prog)


def test_constructor_warnings():
    def prog(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            T.nn.LSTM(3, 4, dropout=0.5)
            T.nn.GRU(3, 4, num_layers=2, dropout=0.5)
            T.nn.RNN(3, 4, dropout=0.25, bidirectional=True)
        return [(w.category.__name__, str(w.message), w.filename.rsplit("/", 1)[-1]) for w in caught]
    assert_same(prog)


@pytest.mark.parametrize("call", [
    "T.nn.RNN(3, 4)(T.randn(5, 2, 4))", "T.nn.GRU(3, 4)(T.randn(5, 2, 3), T.randn(1, 3, 4))",
    "T.nn.RNN(3, 4)(T.randn(5, 2, 3), T.randn(1, 2, 5))", "T.nn.RNN(3, 4, num_layers=2)(T.randn(5, 2, 3), "
    "T.randn(1, 2, 4))", "T.nn.RNN(3, 4)(T.randn(5, 2, 3), T.randn(2, 4))", "T.nn.RNN(3, 4)(T.randn(5, 3), "
    "T.randn(1, 1, 4))", "T.nn.GRU(3, 4)(T.randn(3))", "T.nn.RNN(3, 4)(T.randn(1, 5, 2, 3))",
    "T.nn.LSTM(3, 4)(T.randn(2, 2, 2, 3))", "T.nn.LSTM(3, 4)(T.randn(5, 2, 4))",
    "T.nn.LSTM(3, 4)(T.randn(5, 2, 3), (T.randn(1, 2, 4), T.randn(1, 3, 4)))",
    "T.nn.LSTM(3, 4)(T.randn(5, 2, 3), (T.randn(1, 2, 5), T.randn(1, 2, 4)))",
    "T.nn.LSTM(3, 4)(T.randn(5, 2, 3), (T.randn(2, 4), T.randn(1, 2, 4)))",
    "T.nn.LSTM(3, 4)(T.randn(5, 3), (T.randn(1, 1, 4), T.randn(1, 4)))",
    "T.nn.LSTM(3, 5, proj_size=2)(T.randn(5, 2, 3), (T.randn(1, 2, 5), T.randn(1, 2, 5)))",
    "T.nn.RNN(3, 4)(T.randn(5, 2, 3, dtype=T.float64))", "T.nn.LSTM(3, 4, batch_first=True)(T.randn(2, 5, 3), "
    "(T.randn(1, 5, 4), T.randn(1, 5, 4)))",
    "T.nn.RNNCell(3, 4)(T.randn(2, 2, 3))", "T.nn.RNNCell(3, 4)(T.randn(2, 3), T.randn(1, 2, 4))",
    "T.nn.GRUCell(3, 4)(T.randn(2, 2, 3))", "T.nn.GRUCell(3, 4)(T.randn(2, 3), T.randn(2, 2, 4))",
    "T.nn.LSTMCell(3, 4)(T.randn(2, 2, 3))", "T.nn.LSTMCell(3, 4)(T.randn(2, 3), (T.randn(2, 4), T.randn(1, 2, 4)))",
    "T.nn.RNNCell(3, 4)(T.randn(2, 4))", "T.nn.RNNCell(3, 4)(T.randn(2, 3), T.randn(3, 4))",
    "T.nn.RNNCell(3, 4)(T.randn(2, 3), T.randn(2, 5))", "T.nn.GRUCell(3, 4)(T.randn(2, 5))",
    "T.nn.GRUCell(3, 4)(T.randn(2, 3), T.randn(1, 4))", "T.nn.LSTMCell(3, 4)(T.randn(2, 3), (T.randn(2, 4), "
    "T.randn(2, 5)))", "T.nn.LSTMCell(3, 4)(T.randn(2, 3), (T.randn(3, 4), T.randn(2, 4)))",
    "T.nn.LSTMCell(3, 4)(T.randn(4))", "T.nn.RNN(3, 4)(T.randn(0, 2, 3))", "T.nn.LSTM(3, 4)(T.randn(0, 2, 3))",
    "T.nn.GRU(3, 4)(T.randn(2, 0, 3))", "T.nn.LSTM(3, 4)(T.randn(2, 0, 3))",
    "T.nn.RNN(3, 4)(T.ones(2, 1, 3, dtype=T.int64))", "T.nn.LSTM(3, 4)(T.randn(2, 1, 3), (T.randn(1, 1, 4),))",
    "T.nn.LSTM(3, 4)(T.randn(2, 1, 3), T.randn(1, 1, 4))",
])
def test_bad_shapes_raise_torchs_errors(call):
    def prog(T):
        T.manual_seed(0)
        return eval(call)
    assert_same(prog, rtol=1e-5, atol=1e-6)


def test_lstm_projection_warning_once_at_the_forward_call():
    """PyTorch warns once a process (TORCH_WARN_ONCE): the first such forward of the test session may have
    been another test's, so only what one library has not yet said is compared."""
    def prog(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = T.nn.LSTM(3, 5, proj_size=2)
            m(T.randn(2, 1, 3))
            m(T.randn(2, 1, 3))
        return [(str(w.message), w.filename.rsplit("/", 1)[-1]) for w in caught]
    ours, theirs = prog(picotorch), prog(torch)
    assert len(ours) <= 1 and len(theirs) <= 1
    for said in (ours, theirs):
        for message, filename in said:
            assert message.startswith("LSTM with projections is not supported with oneDNN. Using default "
                                      "implementation. (Triggered internally at ") and filename == "rnn.py"


def test_functional_entry_points():
    def prog(T):
        T.manual_seed(0)
        x, h, c = T.randn(3, 2, 2, requires_grad=True), T.randn(1, 2, 3), T.randn(1, 2, 3)
        w = [T.randn(12, 2, dtype=T.float32), T.randn(12, 3), T.randn(12), T.randn(12)]
        out, hy, cy = T.lstm(x.double(), [h.double(), c.double()], [p.double() for p in w], True, 1, 0.0, False,
                             False, False)
        g = T.gru(x, h, [p[:9] for p in w], True, 1, 0.0, False, False, False)
        r = T.rnn_tanh(x, h, [p[:3] for p in w], True, 1, 0.0, False, False, False)
        cells = (T.lstm_cell(x[0], [h[0], c[0]], w[0], w[1], w[2], w[3]), T.gru_cell(x[0], h[0], w[0][:9], w[1][:9]),
                 T.rnn_relu_cell(x[0], h[0], w[0][:3], w[1][:3], w[2][:3], w[3][:3]))
        return out, hy, cy, g, r, cells, [t.grad_fn.name() for t in (out, hy, g[0], r[1], cells[0][1], cells[1])]
    assert_same(prog, rtol=1e-5, atol=1e-6)


def test_cell_errors_of_the_operators():
    def prog(T):
        x, h = T.randn(2, 3), T.randn(2, 4)
        errors = []
        for call in (lambda: T.rnn_tanh_cell(x, h, T.randn(4, 3), T.randn(5, 4)),
                     lambda: T.gru_cell(x, h, T.randn(12, 3), T.randn(9, 4)),
                     lambda: T.lstm_cell(x, [h], T.randn(16, 3), T.randn(16, 4)),
                     lambda: T.lstm_cell(x, [h, h], T.randn(16, 3), T.randn(12, 4)),
                     lambda: T.lstm(x[None], [h[None]], [], True, 1, 0.0, False, False, False),
                     lambda: T.lstm(x[None], [h[None], h], [], True, 1, 0.0, False, False, False)):
            try:
                call()
            except (RuntimeError, IndexError) as err:
                errors.append(f"{type(err).__name__}: {err}")
        return errors
    assert_same(prog)


def test_training_loop_matches():
    """A few optimizer steps of an LSTM + Linear on float64: the losses and the final weights."""
    def prog(T):
        T.manual_seed(0)
        lstm, head = T.nn.LSTM(2, 3, batch_first=True, dtype=T.float64), T.nn.Linear(3, 1, dtype=T.float64)
        opt = T.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.1)
        x, y = T.randn(4, 5, 2, dtype=T.float64), T.randn(4, 1, dtype=T.float64)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            out, (h, _) = lstm(x)
            loss = ((head(h[-1]) - y) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, dict(lstm.named_parameters())
    assert_same(prog, rtol=1e-12, atol=1e-12)


PAD_INPUTS = [np.random.default_rng(4).standard_normal(shape) for shape in ((3, 2), (1, 2), (4, 2))]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_values_graph_and_gradients(batch_first, padding_side):
    def prog(T):
        a, b, c = (T.tensor(x, requires_grad=True) for x in PAD_INPUTS)
        p = T.nn.utils.rnn.pad_sequence([a, b, c], batch_first=batch_first, padding_value=-1.5,
                                        padding_side=padding_side)
        (p * T.arange(p.numel(), dtype=p.dtype).reshape(p.shape)).sum().backward()
        return p, p.stride(), a.grad, b.grad, c.grad, graph_structure(p)
    ours, theirs = prog(picotorch), prog(torch)
    assert ours[5] == theirs[5]
    assert_same(lambda T: prog(T)[:5], rtol=0, atol=0)


@pytest.mark.parametrize("args", [
    "[]", "[T.ones(2)], False, 0.0, 'mid'", "T.ones(2, 3)", "5", "[T.ones(2, 3), T.ones(3, 2)]",
    "[T.ones(2, 3), T.ones(3, 3, dtype=T.float64)]", "[T.tensor(1.)]", "(T.ones(2, dtype=T.int64) for _ in range(2))",
    "[T.ones(0, 2), T.ones(1, 2)], True",
])
def test_pad_sequence_inputs_and_errors(args):
    def prog(T):
        p = eval(f"T.nn.utils.rnn.pad_sequence({args})")
        return p, p.stride()
    assert_same(prog)


def test_unpad_sequence_inverts_pad_sequence():
    def prog(T):
        seqs = [T.arange(6.0).reshape(3, 2), T.ones(1, 2), T.zeros(2, 2)]
        lengths = T.tensor([3, 1, 2])
        padded = T.nn.utils.rnn.pad_sequence(seqs)
        return T.nn.utils.rnn.unpad_sequence(padded, lengths), padded.shape, T.nn.utils.rnn.unpad_sequence(
            T.nn.utils.rnn.pad_sequence(seqs, batch_first=True), lengths, batch_first=True)
    assert_same(prog)


def _backward_order(T, make, shape, dtype) -> list[int]:
    """The order the engine runs the nodes in, each named by its breadth-first position below the outputs."""
    T.manual_seed(0)
    m = eval(make).to(getattr(T, dtype))
    res = m(T.randn(*shape, dtype=getattr(T, dtype), requires_grad=True))
    outs = _flat(res if isinstance(res, tuple) else (res,))
    ids, queue, log = {}, [o.grad_fn for o in outs], []
    while queue:
        node = queue.pop(0)
        if node is None or node in ids:
            continue
        ids[node] = len(ids)
        node.register_prehook(lambda grads, i=ids[node]: log.append(i))
        queue.extend(fn for fn, _ in node.next_functions)
    sum(o.sum() for o in outs).backward()
    return log


@pytest.mark.parametrize("make, shape, dtype", [
    ("T.nn.LSTM(3, 4, num_layers=2, bidirectional=True)", (3, 2, 3), "float64"),
    ("T.nn.LSTM(3, 4, num_layers=2, bidirectional=True)", (3, 2, 3), "float32"),
    ("T.nn.LSTM(3, 5, proj_size=2, batch_first=True)", (2, 3, 3), "float32"),
    ("T.nn.GRU(3, 4, num_layers=2, batch_first=True)", (2, 3, 3), "float32"),
    ("T.nn.RNN(3, 4, bidirectional=True, nonlinearity='relu')", (3, 2, 3), "float64"),
    ("T.nn.LSTMCell(3, 4)", (2, 3), "float32"), ("T.nn.GRUCell(3, 4)", (2, 3), "float32"),
])
def test_backward_runs_the_nodes_in_torchs_order(make, shape, dtype):
    """The engine's order follows the nodes' creation order (sequence numbers): h_n's and c_n's stacks are made
    c_n first on the composite path (GCC evaluates make_tuple's arguments right to left), h_n first by oneDNN's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _backward_order(picotorch, make, shape, dtype) == _backward_order(torch, make, shape, dtype)


def _run_packed(T, cls, kwargs, lengths, dtype="float32", with_hx=False, enforce_sorted=True, batch_first=False,
                train=False):
    """A packed batch through a layer and padded back: outputs, graph, engine order and gradients."""
    rng = np.random.default_rng(6)
    T.manual_seed(0)
    m = getattr(T.nn, cls)(3, 4, **kwargs).to(getattr(T, dtype))
    m.train(train)
    shape = (len(lengths), max(lengths), 3) if batch_first else (max(lengths), len(lengths), 3)
    x = T.tensor(rng.standard_normal(shape), dtype=getattr(T, dtype), requires_grad=True)
    packed = T.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    n = m.num_layers * (2 if m.bidirectional else 1)

    def h(size):
        return T.tensor(rng.standard_normal((n, len(lengths), size)), dtype=getattr(T, dtype), requires_grad=True)
    hx = None if not with_hx else (h(kwargs.get("proj_size") or 4), h(4)) if cls == "LSTM" else h(4)
    out, hidden = m(packed, hx)
    padded, out_lengths = T.nn.utils.rnn.pad_packed_sequence(out, batch_first=batch_first)
    outs = [out.data, padded] + _flat((hidden,))
    ids, queue, order = {}, [o.grad_fn for o in outs], []
    while queue:
        node = queue.pop(0)
        if node is None or node in ids:
            continue
        ids[node] = len(ids)
        node.register_prehook(lambda grads, i=ids[node]: order.append(i))
        queue.extend(fn for fn, _ in node.next_functions)
    structure = graph_structure(*outs)
    sum(o.sum() * (i + 1) for i, o in enumerate(outs)).backward()
    grads = [x.grad] + ([] if hx is None else [t.grad for t in _flat((hx,))]) + [p.grad for p in m.parameters()]
    return outs, out_lengths.tolist(), structure, order, grads, type(out).__name__, out.batch_sizes.tolist()


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("kwargs, lengths, options", [
    ({}, [3, 2, 1], {}),
    ({}, [3, 3, 1], {"with_hx": True, "dtype": "float64"}),
    ({"bidirectional": True}, [3, 2, 2], {}),
    ({"bidirectional": True, "num_layers": 2}, [2, 4, 1], {"with_hx": True, "enforce_sorted": False}),
    ({"num_layers": 2, "dropout": 0.3, "bidirectional": True}, [1, 4, 2],
     {"with_hx": True, "enforce_sorted": False, "train": True, "batch_first": True}),
])
def test_packed_input(cls, kwargs, lengths, options):
    """A float32 LSTM too is the composite here: PyTorch's packed LSTM has no oneDNN path."""
    ours = _run_packed(picotorch, cls, kwargs, lengths, **options)
    theirs = _run_packed(torch, cls, kwargs, lengths, **options)
    tol = _tol(options.get("dtype", "float32"))
    for a, b in zip(ours[0], theirs[0], strict=True):
        assert tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride()
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **tol)
    assert ours[1:4] == theirs[1:4] and ours[5:] == theirs[5:]
    for a, b in zip(ours[4], theirs[4], strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **tol)


def test_packed_lstm_with_projections():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = _run_packed(picotorch, "LSTM", {"proj_size": 2}, [3, 1, 2], with_hx=True, enforce_sorted=False)
        theirs = _run_packed(torch, "LSTM", {"proj_size": 2}, [3, 1, 2], with_hx=True, enforce_sorted=False)
    assert ours[1:4] == theirs[1:4]
    for a, b in zip(ours[0] + ours[4], theirs[0] + theirs[4], strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_pack_and_pad_functions():
    def prog(T):
        x = T.tensor(PAD_INPUTS[2].reshape(2, 2, 2), requires_grad=True)
        packed = T.nn.utils.rnn.pack_padded_sequence(x, T.tensor([2, 1]))
        padded, lengths = T.nn.utils.rnn.pad_packed_sequence(packed, batch_first=True, padding_value=9.0,
                                                            total_length=3)
        (padded * T.arange(12.0, dtype=T.float64).reshape(2, 3, 2)).sum().backward()
        node = packed.data.grad_fn
        unsorted = T.nn.utils.rnn.pack_sequence([T.ones(1), T.arange(3.0), T.zeros(2)], enforce_sorted=False)
        return (repr(packed), padded, lengths, x.grad, node.name(), node._saved_input_sym_sizes,
                node._saved_result1, node._saved_batch_first, repr(unsorted),
                T.nn.utils.rnn.unpack_sequence(unsorted), T.nn.utils.rnn.invert_permutation(T.tensor([2, 0, 1])),
                type(packed).__mro__[1].__name__, packed._fields, repr(packed.double()), packed.to(T.float64).data)
    assert_same(prog)


@pytest.mark.parametrize("call", [
    "pack_padded_sequence(T.ones(3, 2, 1), [1, 3])", "pack_padded_sequence(T.ones(3, 2, 1), [3, 0])",
    "pack_padded_sequence(T.ones(3, 2, 1), [3])", "pack_padded_sequence(T.ones(0, 2, 1), [3, 1])",
    "pack_padded_sequence(T.ones(3, 2, 1), T.tensor([[3, 1]]))",
    "pad_packed_sequence(pack_padded_sequence(T.ones(3, 2, 1), [3, 1]), total_length=2)",
    "pack_padded_sequence(T.ones(3, 2, 1), T.tensor([3.7, 1.2]))",
])
def test_packing_errors(call):
    def prog(T):
        R = T.nn.utils.rnn
        return eval(call, {"T": T, "pack_padded_sequence": R.pack_padded_sequence,
                           "pad_packed_sequence": R.pad_packed_sequence})
    assert_same(prog)


def _double_backward(T, kwargs, with_hx):
    T.manual_seed(0)
    m = T.nn.LSTM(2, 3, **kwargs)
    x = T.randn(3, 2, 2, requires_grad=True)
    hx = (T.randn(m.num_layers * (1 + m.bidirectional), 2, 3, requires_grad=True),
          T.randn(m.num_layers * (1 + m.bidirectional), 2, 3, requires_grad=True)) if with_hx else None
    out, (h, c) = m(x, hx)
    leaves = [x] + list(m.parameters()) + (list(hx) if with_hx else [])
    grads = T.autograd.grad((out * out).sum() + h.sum() + (c * c).sum(), leaves, create_graph=True)
    structure = graph_structure(*grads)
    sum((g * g).sum() for g in grads).backward()
    return structure, [g.detach() for g in grads], [t.grad for t in leaves]


@pytest.mark.parametrize("kwargs, with_hx", [({"bidirectional": True}, False), ({"num_layers": 2, "bias": False},
                                                                                True)])
def test_float32_lstm_double_backward(kwargs, with_hx):
    """With create_graph, oneDNN's node backpropagates through time in ops (PyTorch's differentiable backward:
    select, addmm, unsafe_chunk, ..., cat), so the gradients have a graph of their own, node for node."""
    ours, theirs = _double_backward(picotorch, kwargs, with_hx), _double_backward(torch, kwargs, with_hx)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1] + ours[2], theirs[1] + theirs[2], strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)


def test_deepcopy_keeps_flat_weights_on_the_copy():
    def prog(T):
        import copy
        T.manual_seed(0)
        m = copy.deepcopy(T.nn.GRU(3, 4, num_layers=2))
        return [w is getattr(m, n) for w, n in zip(m._flat_weights, m._flat_weights_names)], m(T.ones(2, 1, 3))
    assert_same(prog, rtol=1e-5, atol=1e-6)
