"""``torch.nn.functional``'s Python functions and ``__torch_function__``, on picotorch and on PyTorch.

Each function ``torch/nn/functional.py`` writes in Python first asks its tensor arguments for a
``__torch_function__`` and hands the call over with ``func`` the function itself (``F.mse_loss``, or
``F._threshold`` for ``F.threshold``) and its own layout of positional and keyword arguments. A logging
subclass prints what it receives: the function's name, whether it is the ``F`` attribute, the types of the
positional arguments, the keyword names and the ``types`` tuple; then the type of the result.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")

REFERENCE = str(Path(__file__).resolve().parents[2] / "reference")


def _logging(T, log):
    F = T.nn.functional

    class Logged(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            name = func.__name__
            public = getattr(F, "threshold" if name == "_threshold" else name, None) is func
            log.append((name, public, [type(a).__name__ for a in args], sorted(kwargs or {}),
                        [t.__name__ for t in types]))
            return super().__torch_function__(func, types, args, kwargs or {})
    return Logged


# name -> call(F, T, s, p): ``s(*shape)`` is a Logged tensor, ``p(*shape)`` a plain one
CASES = {
    "max_pool1d": lambda F, T, s, p: F.max_pool1d(s(2, 3, 8), 2),
    "max_pool1d_indices": lambda F, T, s, p: F.max_pool1d(s(2, 3, 8), 2, return_indices=True),
    "max_pool1d_with_indices": lambda F, T, s, p: F.max_pool1d_with_indices(s(2, 3, 8), 2, 1),
    "max_pool2d": lambda F, T, s, p: F.max_pool2d(s(2, 3, 4, 4), 2),
    "max_pool2d_indices_by_place": lambda F, T, s, p: F.max_pool2d(s(2, 3, 4, 4), 2, 2, 0, 1, False, True),
    "max_pool2d_with_indices": lambda F, T, s, p: F.max_pool2d_with_indices(s(2, 3, 4, 4), 2),
    "adaptive_avg_pool2d": lambda F, T, s, p: F.adaptive_avg_pool2d(s(2, 3, 4, 4), (2, None)),
    "adaptive_max_pool2d": lambda F, T, s, p: F.adaptive_max_pool2d(s(2, 3, 4, 4), 2),
    "adaptive_max_pool2d_indices": lambda F, T, s, p: F.adaptive_max_pool2d(s(2, 3, 4, 4), 2, True),
    "adaptive_max_pool2d_with_indices": lambda F, T, s, p: F.adaptive_max_pool2d_with_indices(s(2, 3, 4, 4), 2),
    "relu": lambda F, T, s, p: F.relu(s(3)),
    "relu_inplace": lambda F, T, s, p: F.relu(s(3), inplace=True),
    "relu_": lambda F, T, s, p: F.relu_(s(3)),
    "silu": lambda F, T, s, p: F.silu(s(3)),
    "leaky_relu": lambda F, T, s, p: F.leaky_relu(s(3), 0.2),
    "elu": lambda F, T, s, p: F.elu(s(3), inplace=True),
    "hardtanh": lambda F, T, s, p: F.hardtanh(s(3), -0.5, 0.5),
    "softmax": lambda F, T, s, p: F.softmax(s(2, 3), 1),
    "softmax_implicit_dim": lambda F, T, s, p: F.softmax(s(2, 3)),
    "log_softmax": lambda F, T, s, p: F.log_softmax(s(2, 3), dim=1, dtype=T.float64),
    "threshold": lambda F, T, s, p: F.threshold(s(3), 0.5, 0.0),
    "relu6": lambda F, T, s, p: F.relu6(s(3)),
    "hardsigmoid": lambda F, T, s, p: F.hardsigmoid(s(3)),
    "hardswish": lambda F, T, s, p: F.hardswish(s(3)),
    "tanhshrink": lambda F, T, s, p: F.tanhshrink(s(3)),
    "softsign": lambda F, T, s, p: F.softsign(s(3)),
    "mish": lambda F, T, s, p: F.mish(s(3)),
    "selu": lambda F, T, s, p: F.selu(s(3)),
    "celu": lambda F, T, s, p: F.celu(s(3), 2.0),
    "glu": lambda F, T, s, p: F.glu(s(2, 4)),
    "softmin": lambda F, T, s, p: F.softmin(s(2, 3), 1),
    "rrelu": lambda F, T, s, p: F.rrelu(s(3)),
    "dropout": lambda F, T, s, p: F.dropout(s(3), 0.5, False),
    "dropout2d": lambda F, T, s, p: F.dropout2d(s(2, 3, 4, 4), training=False),
    "batch_norm": lambda F, T, s, p: F.batch_norm(s(2, 3), T.zeros(3), T.ones(3)),
    "batch_norm_weight": lambda F, T, s, p: F.batch_norm(p(2, 3), None, None, s(3), training=True),
    "instance_norm": lambda F, T, s, p: F.instance_norm(s(2, 3, 4)),
    "group_norm": lambda F, T, s, p: F.group_norm(s(2, 4, 3), 2, bias=p(4)),
    "layer_norm": lambda F, T, s, p: F.layer_norm(s(2, 3), (3,)),
    "layer_norm_weight": lambda F, T, s, p: F.layer_norm(p(2, 3), [3], s(3)),
    "embedding": lambda F, T, s, p: F.embedding(T.tensor([0, 2]), s(3, 2), padding_idx=0),
    "mse_loss": lambda F, T, s, p: F.mse_loss(s(3), p(3)),
    "mse_loss_target": lambda F, T, s, p: F.mse_loss(p(3), s(3), reduction="sum"),
    "mse_loss_weight": lambda F, T, s, p: F.mse_loss(p(3), p(3), weight=s(3)),
    "l1_loss": lambda F, T, s, p: F.l1_loss(s(3), p(3)),
    "smooth_l1_loss": lambda F, T, s, p: F.smooth_l1_loss(s(3), p(3), beta=0.5),
    "huber_loss": lambda F, T, s, p: F.huber_loss(s(3), p(3)),
    "nll_loss": lambda F, T, s, p: F.nll_loss(s(2, 3), T.tensor([0, 2])),
    "cross_entropy": lambda F, T, s, p: F.cross_entropy(s(2, 3), T.tensor([0, 2])),
    "cross_entropy_weight": lambda F, T, s, p: F.cross_entropy(p(2, 3), T.tensor([0, 2]), s(3), label_smoothing=0.1),
    "binary_cross_entropy_with_logits": lambda F, T, s, p: F.binary_cross_entropy_with_logits(s(3), p(3)),
    "bce_with_logits_pos_weight": lambda F, T, s, p: F.binary_cross_entropy_with_logits(p(3), p(3), pos_weight=s(3)),
    "binary_cross_entropy": lambda F, T, s, p: F.binary_cross_entropy(s(3), p(3)),
    "kl_div": lambda F, T, s, p: F.kl_div(s(3), p(3), reduction="batchmean"),
    "margin_ranking_loss": lambda F, T, s, p: F.margin_ranking_loss(s(3), p(3), T.ones(3)),
    "hinge_embedding_loss": lambda F, T, s, p: F.hinge_embedding_loss(s(3), T.ones(3)),
    "soft_margin_loss": lambda F, T, s, p: F.soft_margin_loss(p(3), s(3)),
    "cosine_embedding_loss": lambda F, T, s, p: F.cosine_embedding_loss(s(2, 3), p(2, 3), T.ones(2)),
    "triplet_margin_loss": lambda F, T, s, p: F.triplet_margin_loss(p(2, 3), p(2, 3), s(2, 3)),
    "poisson_nll_loss": lambda F, T, s, p: F.poisson_nll_loss(s(3), p(3)),
    "gaussian_nll_loss": lambda F, T, s, p: F.gaussian_nll_loss(s(3), p(3), T.ones(3)),
    "gaussian_nll_loss_var": lambda F, T, s, p: F.gaussian_nll_loss(p(3), p(3), s(3)),
    "multilabel_soft_margin_loss": lambda F, T, s, p: F.multilabel_soft_margin_loss(s(2, 3), T.ones(2, 3)),
    "multi_margin_loss": lambda F, T, s, p: F.multi_margin_loss(s(2, 3), T.tensor([0, 2])),
    "pad": lambda F, T, s, p: F.pad(s(2, 3), (1, 1), value=2.0),
    "normalize": lambda F, T, s, p: F.normalize(s(2, 3)),
    "normalize_out": lambda F, T, s, p: F.normalize(p(2, 3), out=s(2, 3)),
    # functions PyTorch writes without a check, and aliases of ops: the methods / the op dispatch
    "sigmoid": lambda F, T, s, p: F.sigmoid(s(3)),
    "tanh": lambda F, T, s, p: F.tanh(s(3)),
    "threshold_": lambda F, T, s, p: F.threshold_(s(3), 0.5, 0.0),
    "gelu": lambda F, T, s, p: F.gelu(s(3), approximate="tanh"),
    "prelu": lambda F, T, s, p: F.prelu(s(2, 3), p(1)),
    # linear is a binding in torch: the call as it was made
    "linear": lambda F, T, s, p: F.linear(s(2, 3), p(4, 3), p(4)),
    "linear_weight": lambda F, T, s, p: F.linear(p(2, 3), s(4, 3)),
    "linear_bias_by_name": lambda F, T, s, p: F.linear(p(2, 3), p(4, 3), bias=s(4)),
    "linear_all_by_name": lambda F, T, s, p: F.linear(input=p(2, 3), weight=s(4, 3)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_subclass_sees_the_functional_itself(case):
    def prog(T):
        log = []
        logged = _logging(T, log)

        def tensor(*shape):
            T.manual_seed(0)
            return T.rand(*shape)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = CASES[case](T.nn.functional, T, lambda *shape: tensor(*shape).as_subclass(logged), tensor)
        print(log)
        print([type(r).__name__ for r in result] if isinstance(result, tuple) else type(result).__name__)
        return result
    assert_same(prog)


def test_handler_result_is_returned_as_it_is_and_plain_tensors_ask_no_one():
    def prog(T):
        F = T.nn.functional

        class Answering(T.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return f"{func.__name__}: {len(args)} args, {sorted(kwargs or {})}"

        x = T.ones(2, 3)
        a = x.as_subclass(Answering)
        print(F.cross_entropy(a, T.tensor([0, 1])))
        print(F.mse_loss(x, a))
        print(F.relu(a, inplace=True))
        print(F.normalize(x, out=a))
        print(F.layer_norm(x, (3,), a))
        w = T.nn.Parameter(T.ones(3))  # a Parameter opts out: the function runs
        print(type(F.layer_norm(x, (3,), w)).__name__, type(F.mse_loss(x, T.zeros(2, 3))).__name__)
    assert_same(prog)


def test_every_handler_declining_names_the_functional():
    def prog(T):
        F = T.nn.functional
        declining = type("Declining", (T.Tensor,),
                         {"__torch_function__": classmethod(lambda cls, *a, **k: NotImplemented)})
        n = T.ones(2, 3).as_subclass(declining)
        for call in (lambda: F.mse_loss(n, T.ones(2, 3)), lambda: F.threshold(n, 0.5, 0.0),
                     lambda: F.pad(n, (1, 1)), lambda: F.batch_norm(T.ones(2, 3), None, None, n)):
            try:
                call()
            except TypeError as error:
                print(str(error).replace("picotorch.", "torch."))
    assert_same(prog)


# A tensor-like (no Tensor subclass) in each relevant slot; in a fresh process, where no Tensor subclass exists yet.
_TENSOR_LIKE = """
import {lib} as T
F = T.nn.functional


class Like:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return (func.__name__, func is getattr(F, func.__name__, None), [type(a).__name__ for a in args],
                sorted(kwargs or {{}}), [t.__name__ for t in types])


x, n, ones, like = T.ones(2, 3), T.tensor([0, 1]), T.ones(3), Like()
for call in (lambda: F.relu(like), lambda: F.softmax(like, 0), lambda: F.mse_loss(like, x),
             lambda: F.mse_loss(x, like), lambda: F.mse_loss(x, x, weight=like), lambda: F.l1_loss(x, x, weight=like),
             lambda: F.cross_entropy(like, n), lambda: F.cross_entropy(x, n, like), lambda: F.nll_loss(x, like),
             lambda: F.layer_norm(x, (3,), like), lambda: F.group_norm(x, 1, None, like),
             lambda: F.batch_norm(x, like, None), lambda: F.instance_norm(x.view(1, 2, 3), None, None, like),
             lambda: F.embedding(n, like), lambda: F.gaussian_nll_loss(x, x, like), lambda: F.normalize(x, out=like),
             lambda: F.binary_cross_entropy_with_logits(x, x, pos_weight=like), lambda: F.pad(like, (1, 1)),
             lambda: F.max_pool2d(like, 2), lambda: F.adaptive_max_pool2d(like, 2, True),
             lambda: F.threshold(like, 0, 1), lambda: F.triplet_margin_loss(x, x, like),
             lambda: F.margin_ranking_loss(ones, like, ones)):
    try:
        print(call())
    except Exception as error:
        print(type(error).__name__, str(error).replace("picotorch", "torch"))
"""


def test_tensor_likes_get_the_call_in_a_fresh_process():
    """A tensor-like in any relevant slot gets the call, before any Tensor subclass exists (and a weight given to
    ``l1_loss`` is not looked at: torch's check leaves it out)."""
    env = dict(os.environ, PYTHONPATH=REFERENCE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    outs = [subprocess.run([sys.executable, "-c", _TENSOR_LIKE.format(lib=lib)], capture_output=True, text=True,
                           env=env, check=True).stdout for lib in ("picotorch", "torch")]
    assert outs[0] == outs[1]
    assert outs[0].count("True") >= 20
