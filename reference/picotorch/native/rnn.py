"""The recurrent layers' operators: ``rnn_tanh``, ``rnn_relu``, ``gru``, ``lstm`` and their one-step cells.

Models ``aten/src/ATen/native/RNN.cpp`` (CPU path) and, for a float32 ``lstm``, ``aten/src/ATen/native/mkldnn/
RNN.cpp``. The layer and cell operators are ``CompositeImplicitAutograd``: autograd records the operators they
call, so a learner walking ``grad_fn`` meets ``AddmmBackward0``, ``UnbindBackward0``, ``UnsafeSplitBackward0``,
``SigmoidBackward0``, ``StackBackward0``... in PyTorch's order:

- a layer projects its whole input at once (``linear`` on the ``(seq, batch, feature)`` tensor), ``unbind``\\ s
  that along time and runs the cell on each step with that projection precomputed; the step outputs are
  ``stack``\\ ed; a bidirectional layer runs the reverse direction on the reversed steps and ``cat``\\ s both;
- layers are stacked with ``dropout`` (training only) between them, the final hidden states ``stack``\\ ed;
- cells: ``act(linear_hh(h) + igates)``; LSTM ``gates.unsafe_chunk(4, 1)`` then sigmoid/sigmoid/tanh/sigmoid;
  GRU chunks the input and hidden projections in three and computes ``(h - n) * z + n``.

PyTorch runs several of these steps in place (``add_``, ``sigmoid_``, ``mul_``) on fresh results; the graph is the
same as with the out-of-place operators used here.

On CPU PyTorch sends a float32 LSTM without projections to oneDNN: one ``mkldnn_rnn_layer`` per layer and
direction, whose single node (``MkldnnRnnLayerBackward0``) takes the layer input, the four weights and the
layer's ``h_0``/``c_0``. That operator is computed here directly (forward and backward through time).
"""

from __future__ import annotations

import warnings

from ..c10 import scalar_type as st
from .device import to_numpy
from .dispatcher import ops
from .helpers import convert, xp_of, zeros_array
from .linear import linear
from .tensor_impl import new_tensor

_LSTM_MODE = 2  # ideep::rnn_kind::LSTM


# ----------------------------------------------------------------------------- parameters


def _gather_params(params, has_biases, has_projections=False):
    """One ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` per layer and direction (missing ones ``None``)."""
    step = 2 + (2 if has_biases else 0) + (1 if has_projections else 0)
    if len(params) % step != 0:
        raise RuntimeError("got an incorrect number of RNN parameters")
    out = []
    for i in range(0, len(params), step):
        group = list(params[i:i + step])
        w_ih, w_hh = group[0], group[1]
        b_ih, b_hh = (group[2], group[3]) if has_biases else (None, None)
        w_hr = group[-1] if has_projections else None
        out.append((w_ih, w_hh, b_ih, b_hh, w_hr))
    return out


def _linear_ih(p, x):
    return linear(x, p[0], p[2])


def _linear_hh(p, h):
    return linear(h, p[1], p[3])


# ----------------------------------------------------------------------------- cells


def _simple_cell(act):
    def cell(igates, hidden, p, pre_computed):
        hh = _linear_hh(p, hidden)
        return act(ops.add(hh, igates if pre_computed else _linear_ih(p, igates)))
    return cell


def _lstm_cell(input, hidden, p, pre_computed):
    hx, cx = hidden
    hh = _linear_hh(p, hx)
    gates = ops.add(hh, input if pre_computed else _linear_ih(p, input))
    chunks = ops.unsafe_chunk(gates, 4, 1)
    ingate = ops.sigmoid(chunks[0])
    forgetgate = ops.sigmoid(chunks[1])
    cellgate = ops.tanh(chunks[2])
    outgate = ops.sigmoid(chunks[3])
    cy = ops.add(ops.mul(forgetgate, cx), ops.mul(ingate, cellgate))
    hy = ops.mul(outgate, ops.tanh(cy))
    if p[4] is not None:
        hy = ops.matmul(hy, ops.t(p[4]))
    return hy, cy


def _gru_cell(input, hidden, p, pre_computed):
    igates = ops.unsafe_chunk(input if pre_computed else _linear_ih(p, input), 3, 1)
    hgates = ops.unsafe_chunk(_linear_hh(p, hidden), 3, 1)
    reset_gate = ops.sigmoid(ops.add(hgates[0], igates[0]))
    input_gate = ops.sigmoid(ops.add(hgates[1], igates[1]))
    new_gate = ops.tanh(ops.add(igates[2], ops.mul(hgates[2], reset_gate)))
    return ops.add(ops.mul(ops.sub(hidden, new_gate), input_gate), new_gate)


def _as_output(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


# ----------------------------------------------------------------------------- layers


def _run_steps(cell, steps, hidden, p):
    outputs = []
    for step in steps:
        hidden = cell(step, hidden, p, True)
        outputs.append(_as_output(hidden))
    return outputs, hidden


def _full_layer(cell, input, hidden, p):
    outputs, hidden = _run_steps(cell, ops.unbind(_linear_ih(p, input), 0), hidden, p)
    _check_steps(outputs)
    return ops.stack(outputs, 0), hidden


def _bidirectional_layer(cell, input, hidden, p):
    fw_outputs, fw_hidden = _run_steps(cell, ops.unbind(_linear_ih(p[0], input), 0), hidden[0], p[0])
    _check_steps(fw_outputs)
    fw_output = ops.stack(fw_outputs, 0)
    steps = list(ops.unbind(_linear_ih(p[1], input), 0))[::-1]
    rev_outputs, rev_hidden = _run_steps(cell, steps, hidden[1], p[1])
    rev_output = ops.stack(rev_outputs[::-1], 0)
    return ops.cat([fw_output, rev_output], fw_output.dim() - 1), (fw_hidden, rev_hidden)


# packed input: ``(data, batch_sizes)``; a finished sequence's hidden state is sliced off the batch (PackedLayer)


def _hidden_slice(hidden, start, end):
    if isinstance(hidden, tuple):  # make_tuple's arguments run right to left: c's narrow first
        c = ops.narrow(hidden[1], 0, start, end - start)
        return ops.narrow(hidden[0], 0, start, end - start), c
    return ops.narrow(hidden, 0, start, end - start)


def _hidden_concat(hiddens):
    if isinstance(hiddens[0], tuple):  # c's cat first, as above
        c = ops.cat([h[1] for h in hiddens], 0)
        return ops.cat([h[0] for h in hiddens], 0), c
    return ops.cat(hiddens, 0)


def _packed_layer(cell, input, input_hidden, p):
    data, batch_sizes = input
    input_w = _linear_ih(p, data)
    outputs, hiddens, hidden = [], [], input_hidden
    offset, last = 0, batch_sizes[0]
    for batch_size in batch_sizes:
        step = ops.narrow(input_w, 0, offset, batch_size)
        offset += batch_size
        if last > batch_size:
            hiddens.append(_hidden_slice(hidden, batch_size, last))
            hidden = _hidden_slice(hidden, 0, batch_size)
        last = batch_size
        hidden = cell(step, hidden, p, True)
        outputs.append(_as_output(hidden))
    hiddens.append(hidden)
    return ops.cat(outputs, 0), _hidden_concat(hiddens[::-1])


def _reversed_packed_layer(cell, input, input_hidden, p):
    data, batch_sizes = input
    input_w = _linear_ih(p, data)
    outputs, offset, last = [], data.size(0), batch_sizes[-1]
    hidden = _hidden_slice(input_hidden, 0, last)
    for batch_size in reversed(batch_sizes):
        if batch_size > last:
            hidden = _hidden_concat([hidden, _hidden_slice(input_hidden, last, batch_size)])
        step = ops.narrow(input_w, 0, offset - batch_size, batch_size)
        offset -= batch_size
        last = batch_size
        hidden = cell(step, hidden, p, True)
        outputs.append(_as_output(hidden))
    return ops.cat(outputs[::-1], 0), hidden


def _packed_bidirectional_layer(cell, input, hidden, p):
    fw_output, fw_hidden = _packed_layer(cell, input, hidden[0], p[0])
    rev_output, rev_hidden = _reversed_packed_layer(cell, input, hidden[1], p[1])
    return (ops.cat([fw_output, rev_output], -1), input[1]), (fw_hidden, rev_hidden)


def _packed(layer):
    """A packed layer taking and giving ``(data, batch_sizes)``."""
    def run(cell, input, hidden, p):
        output, final = layer(cell, input, hidden, p)
        return (output, input[1]), final
    return run


def _check_steps(outputs):
    if not outputs:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")


def _layer_stack(cell, input, hiddens, params, num_layers, dropout_p, train, bidirectional, packed=False):
    """The last layer's output and every layer's (and direction's) final hidden state."""
    if bidirectional:
        hiddens = [(hiddens[i], hiddens[i + 1]) for i in range(0, len(hiddens), 2)]
        params = [(params[i], params[i + 1]) for i in range(0, len(params), 2)]
    if num_layers != len(hiddens):
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if num_layers != len(params):
        raise RuntimeError("Expected more weights in stacked_rnn")
    if packed:
        layer = _packed_bidirectional_layer if bidirectional else _packed(_packed_layer)
    else:
        layer = _bidirectional_layer if bidirectional else _full_layer
    finals = []
    for i in range(num_layers):
        input, final = layer(cell, input, hiddens[i], params[i])
        finals.extend(final if bidirectional else [final])
        if dropout_p != 0 and train and i < num_layers - 1:
            input = (ops.dropout(input[0], dropout_p, True), input[1]) if packed else ops.dropout(
                input, dropout_p, True)
    return input, finals


def _one_hidden_rnn(cell, input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    if batch_first:
        input = ops.transpose(input, 0, 1)
    output, finals = _layer_stack(cell, input, list(ops.unbind(hx, 0)), _gather_params(params, has_biases),
                                  num_layers, dropout, train, bidirectional)
    hy = ops.stack(finals, 0)
    if batch_first:  # PyTorch transposes its output in place (transpose_)
        output = ops.transpose_(output, 0, 1)
    return output, hy


def rnn_tanh_input(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    return _one_hidden_rnn(_simple_cell(ops.tanh), input, hx, params, has_biases, num_layers, dropout, train,
                           bidirectional, batch_first)


def rnn_relu_input(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    return _one_hidden_rnn(_simple_cell(ops.relu), input, hx, params, has_biases, num_layers, dropout, train,
                           bidirectional, batch_first)


def gru_input(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    return _one_hidden_rnn(_gru_cell, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                           batch_first)


def _batch_sizes(batch_sizes) -> list[int]:
    return [int(v) for v in to_numpy(batch_sizes._data)]


def _one_hidden_packed(cell, data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional):
    (output, _), finals = _layer_stack(cell, (data, _batch_sizes(batch_sizes)), list(ops.unbind(hx, 0)),
                                       _gather_params(params, has_biases), num_layers, dropout, train, bidirectional,
                                       packed=True)
    return output, ops.stack(finals, 0)


def rnn_tanh_data(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional):
    return _one_hidden_packed(_simple_cell(ops.tanh), data, batch_sizes, hx, params, has_biases, num_layers,
                              dropout, train, bidirectional)


def rnn_relu_data(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional):
    return _one_hidden_packed(_simple_cell(ops.relu), data, batch_sizes, hx, params, has_biases, num_layers,
                              dropout, train, bidirectional)


def gru_data(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional):
    return _one_hidden_packed(_gru_cell, data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
                              bidirectional)


def lstm_data(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional):
    """No oneDNN here: PyTorch's packed LSTM is always the composite."""
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    has_projections = hx[0].size(2) != hx[1].size(2)
    hiddens = list(zip(ops.unbind(hx[0], 0), ops.unbind(hx[1], 0)))
    (output, _), finals = _layer_stack(_lstm_cell, (data, _batch_sizes(batch_sizes)), hiddens,
                                       _gather_params(params, has_biases, has_projections), num_layers, dropout,
                                       train, bidirectional, packed=True)
    cy = ops.stack([c for _, c in finals], 0)  # (right to left, as in lstm_input)
    return output, ops.stack([h for h, _ in finals], 0), cy


_PROJECTIONS_WARNING = ("LSTM with projections is not supported with oneDNN. Using default implementation. (Triggered "
                        "internally at /__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)")
_warned_projections = []


def _use_mkldnn(input, has_projections) -> bool:
    """oneDNN takes a float32 LSTM with elements and without projections (which it warns about once a process)."""
    if input._dtype is not st.float32 or input.numel() == 0:
        return False
    if has_projections and not _warned_projections:
        _warned_projections.append(True)
        warnings.warn(_PROJECTIONS_WARNING, UserWarning, stacklevel=7)  # the line calling _VF.lstm
    return not has_projections


def lstm_input(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    if len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    has_projections = hx[0].size(2) != hx[1].size(2)
    if _use_mkldnn(input, has_projections):
        return _mkldnn_lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
    if batch_first:
        input = ops.transpose(input, 0, 1)
    layer_hx, layer_cx = ops.unbind(hx[0], 0), ops.unbind(hx[1], 0)
    hiddens = list(zip(layer_hx, layer_cx))
    output, finals = _layer_stack(_lstm_cell, input, hiddens, _gather_params(params, has_biases, has_projections),
                                  num_layers, dropout, train, bidirectional)
    # make_tuple(outputs, stack(hy), stack(cy)): GCC evaluates the arguments right to left, cy's stack first
    cy = ops.stack([c for _, c in finals], 0)
    hy = ops.stack([h for h, _ in finals], 0)
    if batch_first:
        output = ops.transpose(output, 0, 1)
    return output, hy, cy


def _mkldnn_lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """``mkldnn_rnn``: one ``mkldnn_rnn_layer`` per layer and direction on contiguous inputs."""
    if batch_first:
        input = ops.transpose(input, 0, 1)
    input = ops.contiguous(input)
    h, c = ops.contiguous(hx[0]), ops.contiguous(hx[1])
    step = 4 if has_biases else 2
    directions = 2 if bidirectional else 1
    hidden_size = h.size(2)
    layer_input, hys, cys = input, [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            w = params[index * step:(index + 1) * step]
            layer_hx, layer_cx = ops.select(h, 0, index), ops.select(c, 0, index)
            b_ih = w[2] if has_biases else ops.zeros_like(w[0])
            b_hh = w[3] if has_biases else ops.zeros_like(w[1])
            out, hy, cy, _ = ops.mkldnn_rnn_layer(layer_input, w[0], w[1], b_ih, b_hh, layer_hx, layer_cx,
                                                  direction > 0, [], _LSTM_MODE, hidden_size, num_layers,
                                                  has_biases, bidirectional, batch_first, train)
            outputs.append(out)
            hys.append(hy)
            cys.append(cy)
        layer_input = outputs[0] if directions == 1 else ops.cat(outputs, -1)
        if dropout != 0 and train and layer < num_layers - 1:
            layer_input = ops.dropout(layer_input, dropout, True)
    output, hy, cy = layer_input, ops.stack(hys, 0), ops.stack(cys, 0)
    if batch_first:
        output = ops.transpose(output, 0, 1)
    return output, hy, cy


# ----------------------------------------------------------------------------- the cell operators


def _check_cell_input(input, input_size):
    if input.size(1) != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {input_size}")


def _check_cell_hidden(input, hx, hidden_size, label):
    if input.size(0) != hx.size(0):
        raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} batch size {hx.size(0)}")
    if hx.size(1) != hidden_size:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx.size(1)}, expected {hidden_size}")


def _check_cell_weights(gate_count, w_ih, w_hh, hidden_size):
    for name, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if w.size(0) != gate_count * hidden_size:
            raise RuntimeError(f"{name} first dim must be {gate_count} * hidden_size = {gate_count * hidden_size}, "
                               f"but got {w.size(0)}")


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    hidden_size = w_hh.size(1)
    _check_cell_input(input, w_ih.size(1))
    _check_cell_weights(4, w_ih, w_hh, hidden_size)
    _check_cell_hidden(input, hx[0], hidden_size, 0)
    _check_cell_hidden(input, hx[1], hidden_size, 1)
    return _lstm_cell(input, (hx[0], hx[1]), (w_ih, w_hh, b_ih, b_hh, None), False)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    _check_cell_input(input, w_ih.size(1))
    _check_cell_hidden(input, hx, w_hh.size(1), 0)
    _check_cell_weights(3, w_ih, w_hh, w_hh.size(1))
    return _gru_cell(input, hx, (w_ih, w_hh, b_ih, b_hh, None), False)


def _simple_cell_op(act, input, hx, w_ih, w_hh, b_ih, b_hh):
    _check_cell_weights(1, w_ih, w_hh, w_hh.size(1))
    _check_cell_input(input, w_ih.size(1))
    _check_cell_hidden(input, hx, w_hh.size(1), 0)
    return _simple_cell(act)(input, hx, (w_ih, w_hh, b_ih, b_hh, None), False)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _simple_cell_op(ops.tanh, input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _simple_cell_op(ops.relu, input, hx, w_ih, w_hh, b_ih, b_hh)


# ----------------------------------------------------------------------------- oneDNN's LSTM layer


def _sigmoid(xp, a):
    return 1 / (1 + xp.exp(-a))


def _lstm_layer_steps(xp, x, w_ih, w_hh, b, h, c, reverse):
    """Every step's gates and states, computed in float64: ``[(i, f, g, o, c_prev, h_prev, c)]`` by time index."""
    seq, hidden = x.shape[0], h.shape[-1]
    steps = [None] * seq
    for t in (range(seq - 1, -1, -1) if reverse else range(seq)):
        gates = x[t, ...] @ w_ih.T + h @ w_hh.T + b
        i, f = _sigmoid(xp, gates[:, :hidden]), _sigmoid(xp, gates[:, hidden:2 * hidden])
        g, o = xp.tanh(gates[:, 2 * hidden:3 * hidden]), _sigmoid(xp, gates[:, 3 * hidden:])
        c_new = f * c + i * g
        h_new = o * xp.tanh(c_new)
        steps[t] = (i, f, g, o, c, h, c_new)
        h, c = h_new, c_new
    return steps, h, c


def _bias(xp, has_biases, b_ih, b_hh):
    return _f64(xp, b_ih) + _f64(xp, b_hh) if has_biases else 0.0


def _zeros(like, shape):
    return zeros_array(like, shape, st.float64)


def _f64(xp, t):
    a = t._data
    return a if a.dtype == xp.float64 else xp.astype(a, xp.float64)


def _like(t, xp, a):
    return new_tensor(convert(xp, a, t._dtype), t._dtype, t._device)


def mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, batch_sizes, mode, hidden_size,
                     num_layers, has_biases, bidirectional, batch_first, train):
    xp = xp_of(input)
    x = _f64(xp, input)
    steps, hy, cy = _lstm_layer_steps(xp, x, _f64(xp, weight0), _f64(xp, weight1),
                                      _bias(xp, has_biases, weight2, weight3), _f64(xp, hx_), _f64(xp, cx_), reverse)
    output = xp.stack([s[3] * xp.tanh(s[6]) for s in steps])  # (an empty input takes the composite path)
    workspace = _zeros(input, (0,))  # oneDNN's opaque buffer: nothing a learner can read
    return _like(input, xp, output), _like(hx_, xp, hy), _like(cx_, xp, cy), _like(input, xp, workspace)


def mkldnn_rnn_layer_backward(input, weight1, weight2, weight3, weight4, hx_, cx_tmp, output, hy_, cy_, grad_output,
                              grad_hy, grad_cy, reverse, mode, hidden_size, num_layers, has_biases, train,
                              bidirectional, batch_sizes, batch_first, workspace):
    """Backpropagation through time over one layer: grads of input, the four weights, ``hx_`` and ``cx_``."""
    xp = xp_of(input)
    x, w_ih, w_hh = _f64(xp, input), _f64(xp, weight1), _f64(xp, weight2)
    steps, _, _ = _lstm_layer_steps(xp, x, w_ih, w_hh, _bias(xp, has_biases, weight3, weight4), _f64(xp, hx_),
                                    _f64(xp, cx_tmp), reverse)
    zeros_h = _zeros(input, hx_._data.shape)
    dy = _f64(xp, grad_output) if grad_output is not None else _zeros(input, output._data.shape)
    dh = _f64(xp, grad_hy) if grad_hy is not None else zeros_h
    dc = _f64(xp, grad_cy) if grad_cy is not None else zeros_h
    dx = _zeros(input, x.shape)
    dw_ih, dw_hh = _zeros(input, w_ih.shape), _zeros(input, w_hh.shape)
    db = _zeros(input, (w_ih.shape[0],))
    for t in (range(len(steps)) if reverse else range(len(steps) - 1, -1, -1)):
        i, f, g, o, c_prev, h_prev, c = steps[t]
        dh = dh + dy[t, ...]
        tc = xp.tanh(c)
        dc = dc + dh * o * (1 - tc * tc)
        da = xp.concat([dc * g * i * (1 - i), dc * c_prev * f * (1 - f), dc * i * (1 - g * g),
                        dh * tc * o * (1 - o)], axis=1)
        db = db + xp.sum(da, axis=0)
        dx[t, ...] = da @ w_ih
        dw_ih = dw_ih + da.T @ x[t, ...]
        dw_hh = dw_hh + da.T @ h_prev
        dh, dc = da @ w_hh, dc * f
    if not has_biases:  # weight3 and weight4 are zeros shaped like the weights, standing in for the biases
        db = _zeros(input, weight3._data.shape)
    return (_like(input, xp, dx), _like(weight1, xp, dw_ih), _like(weight2, xp, dw_hh), _like(weight3, xp, db),
            _like(weight4, xp, db), _like(hx_, xp, dh), _like(cx_tmp, xp, dc))
