"""``nn.utils``: gradient clipping and parameters as one vector, against PyTorch (values bit for bit)."""

import warnings

import numpy as np
import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")

RNG = np.random.default_rng(5)
INPUTS = RNG.standard_normal((5, 4)).astype(np.float32)
GRADS = [RNG.standard_normal(shape).astype(np.float32) * 3 for shape in ((3, 4), (4,), (2, 2, 2))]


def _params(T, grads=GRADS, dtype=None):
    params = []
    for g in grads:
        p = T.nn.Parameter(T.zeros(g.shape, dtype=dtype or T.float32))
        p.grad = T.tensor(g, dtype=dtype or T.float32)
        params.append(p)
    return params


@pytest.mark.parametrize("max_norm, norm_type", [(1.0, 2.0), (100.0, 2.0), (0.5, 1), (2.0, float("inf")),
                                                 (1.0, 3.0), (0.3, "inf")])
def test_clip_grad_norm_returns_the_total_and_scales_in_place(max_norm, norm_type):
    """The total norm and the scaled gradients within an ulp or two: linalg.vector_norm rounds a float64 sum
    once, PyTorch's float32 kernel adds in its own vectorised order (they agree on ~75% of float32 vectors);
    the inf-norm (no sum) is bit for bit."""
    def prog(T):
        params = _params(T)
        total = T.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
        return total, [p.grad for p in params]
    exact = norm_type in (float("inf"), "inf")
    assert_same(prog, rtol=0 if exact else 4e-7, atol=0)


def test_clip_grad_norm_of_one_tensor_of_float64_and_of_params_without_grad():
    def prog(T):
        one = _params(T, GRADS[:1], T.float64)[0]
        no_grad = T.nn.Parameter(T.ones(2))
        return T.nn.utils.clip_grad_norm_(one, 1.0), one.grad, T.nn.utils.clip_grad_norm_([no_grad], 1.0), no_grad.grad
    assert_same(prog, rtol=0, atol=0)


def test_clip_grad_norm_with_a_non_finite_norm():
    def prog(T):
        params = _params(T)
        params[1].grad[0] = float("inf")
        kept = T.nn.utils.clip_grad_norm_(params, 1.0)  # scaled by 1/inf: zeros and NaN where inf met inf
        try:
            T.nn.utils.clip_grad_norm_(_params(T), 1.0, error_if_nonfinite=True)
            params[0].grad[0, 0] = float("nan")
            T.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
        except RuntimeError as err:
            return kept, [p.grad for p in params], f"RuntimeError: {err}"
    assert_same(prog)


def test_an_empty_generator_warns():
    def prog(T):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            total = T.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        return total, [str(w.message) for w in caught]
    assert_same(prog)


def test_clip_grad_value_clamps_each_element():
    def prog(T):
        params = _params(T)
        result = T.nn.utils.clip_grad_value_(params, 1.5)
        return result, [p.grad for p in params]
    assert_same(prog, rtol=0, atol=0)


def test_parameters_to_vector_and_back():
    def prog(T):
        model = T.nn.Linear(3, 2)
        with T.no_grad():
            for p in model.parameters():
                p.copy_(T.arange(p.numel(), dtype=T.float32).view_as(p))
        vec = T.nn.utils.parameters_to_vector(model.parameters())
        T.nn.utils.vector_to_parameters(vec.detach() * 2, model.parameters())
        try:
            T.nn.utils.vector_to_parameters([1.0], model.parameters())
        except TypeError as err:
            error = f"TypeError: {err}"
        return vec, vec.grad_fn.name(), [p.detach() for p in model.parameters()], error
    assert_same(prog)


def test_clipping_inside_a_training_step():
    """The usual loop: backward, clip, step: the same weights as PyTorch after three steps."""
    def prog(T):
        model = T.nn.Linear(4, 3)
        with T.no_grad():
            for p in model.parameters():
                p.copy_(T.arange(p.numel(), dtype=T.float32).view_as(p) / 10)
        opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x, y = T.tensor(INPUTS), T.tensor([0, 1, 2, 1, 0])
        norms = []
        for _ in range(3):
            opt.zero_grad()
            T.nn.functional.cross_entropy(model(x), y).backward()
            norms.append(T.nn.utils.clip_grad_norm_(model.parameters(), 0.5))
            opt.step()
        return norms, [p.detach() for p in model.parameters()]
    assert_same(prog, rtol=1e-6, atol=1e-7)
