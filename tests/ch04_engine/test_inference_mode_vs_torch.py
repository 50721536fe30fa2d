"""``torch.inference_mode`` and inference tensors against PyTorch.

NOTE [Inference tensors have no version counter] (native/tensor_impl.py): a tensor made inside inference mode
has no version counter, and every rule below follows from it: ``_version`` raises, saving it for backward raises,
an in-place op on it outside inference mode raises (after its kernel ran), requires_grad cannot be turned on
outside inference mode, its views are inference tensors and no autograd views. Normal tensors inside inference
mode: in-place ops bump their version; their views are normal tensors whose in-place use in normal mode is refused
(CreationMeta INFERENCE_MODE). Each program runs on both libraries and what it printed, returned or raised must match.
"""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same

torch = pytest.importorskip("torch")


def _tried(f):
    """What ``f()`` gave, or the error it raised (type and text): one program can then check many cases."""
    try:
        return f()
    except Exception as err:  # the error is the observed behaviour
        return f"{type(err).__name__}: {err}"


def _inference(T, *shape, **kwargs):
    with T.inference_mode():
        return T.ones(*shape, **kwargs)


PROGRAMS = {
    "nested modes": lambda T: _nested_modes(T),
    "a tensor made inside": lambda T: (lambda x: (x.is_inference(), T.is_inference(x), x.requires_grad, x.is_leaf,
                                                  repr(x), x.grad_fn))(_inference(T, 2, 3)),
    "_version": lambda T: _tried(lambda: _inference(T, 2)._version),
    "_version inside": lambda T: _version_inside(T),
    "views of an inference tensor": lambda T: _views_of_inference(T),
    # (not their _version: torch's kernels that write their output in place, clone, to, sum, bump it to 1 when an
    # input is an inference tensor, as the autograd kernel that would hide the write does not run; not modelled)
    "ops outside give normal tensors": lambda T: (lambda x: [
        (y.is_inference(), y.requires_grad) for y in (x + 1, x.clone(), x.to(T.float64), x.exp(), x.sum())])(
            _inference(T, 2)),
    "in place outside: raises after the kernel": lambda T: _in_place_outside(T),
    "in place inside on an inference tensor": lambda T: _in_place_inside(T),
    "in place inside on a normal tensor bumps": lambda T: _normal_in_place_inside(T),
    "copy into a normal tensor": lambda T: (lambda x: (lambda y: (y.copy_(x), y._version))(T.zeros(2)))(
        _inference(T, 2)),
    "saved for backward": lambda T: _saved_for_backward(T),
    "not saved: add records": lambda T: _not_saved(T),
    "requires_grad outside": lambda T: _requires_grad_outside(T),
    "requires_grad inside": lambda T: _requires_grad_inside(T),
    "inside, a normal tensor that requires grad": lambda T: _normal_requires_grad_inside(T),
    "a view made inside, modified outside": lambda T: _view_made_inside(T),
    "a view made inside of a tensor without grad": lambda T: _view_made_inside_no_grad(T),
    "decorators": lambda T: _decorators(T),
    "inference_mode(False) restores normal mode": lambda T: _inference_false(T),
    "bad arguments": lambda T: [_tried(lambda: T.is_inference(1)), _tried(lambda: T.ones(1).is_inference(1)),
                                _tried(lambda: T.is_inference_mode_enabled(1))],
    "backward inside inference mode": lambda T: _backward_inside(T),
    ".data follows its tensor, not the mode": lambda T: _data_inside(T),
    "enable_grad inside inference mode records nothing": lambda T: _enable_grad_inside(T),
    "a module's forward in inference mode": lambda T: _module_forward(T),
}


def _nested_modes(T):
    seen = []
    with T.inference_mode():
        seen.append((T.is_inference_mode_enabled(), T.is_grad_enabled()))
        with T.inference_mode(False):
            seen.append((T.is_inference_mode_enabled(), T.is_grad_enabled(), T.ones(1).is_inference()))
            with T.no_grad():
                seen.append((T.is_inference_mode_enabled(), T.is_grad_enabled(), T.ones(1).is_inference()))
        seen.append((T.is_inference_mode_enabled(), T.is_grad_enabled(), T.ones(1).is_inference()))
    with T.no_grad(), T.inference_mode(False):
        seen.append((T.is_inference_mode_enabled(), T.is_grad_enabled()))
    seen.append((T.is_inference_mode_enabled(), T.is_grad_enabled()))
    return seen


def _version_inside(T):
    with T.inference_mode():
        x = T.ones(2)
        return _tried(lambda: x._version), _tried(lambda: T.ones(2, requires_grad=True)._version)


def _views_of_inference(T):
    x = _inference(T, 2, 3)
    views = [x.view(6), x.t(), x[0], x.detach(), x.unsqueeze(0), x.expand(2, 2, 3), x.reshape(3, 2)]
    with T.inference_mode():
        views += [x.view(6), x[1]]
    return [(v.is_inference(), v._is_view(), v._base is None) for v in views]


def _in_place_outside(T):
    x = _inference(T, 2)
    errors = [_tried(lambda: x.exp_()), _tried(lambda: x.add_(1, alpha=2)), _tried(lambda: x.zero_()),
              _tried(lambda: x.copy_(T.full((2,), 7.0))), _tried(lambda: x.__iadd__(1)),
              _tried(lambda: x.view(2).mul_(3)), _tried(lambda: x.fill_(5.0))]
    return errors, x  # torch bumps after the kernel: the values changed all the same


def _in_place_inside(T):
    x = _inference(T, 2)
    with T.inference_mode():
        x.add_(1)
        x.view(2).mul_(3)
    return x, x.is_inference()


def _normal_in_place_inside(T):
    x = T.ones(2)
    w = T.ones(2, requires_grad=True)
    with T.inference_mode():
        x.add_(1)
        before = _tried(lambda: w.add_(1))
        with T.no_grad():
            w.mul_(2)
    return x._version, x.is_inference(), before, w._version, w


def _saved_for_backward(T):
    x = _inference(T, 2)
    p = T.ones(2, requires_grad=True)
    return [_tried(lambda: x * p), _tried(lambda: p * x), _tried(lambda: p.exp() * x),
            _tried(lambda: T.matmul(p, x)), _tried(lambda: (p * 2).pow(x)), _tried(lambda: x.sin() * p)]


def _not_saved(T):
    x = _inference(T, 2)
    p = T.ones(2, requires_grad=True)
    y = (x + p).sum()
    y.backward()
    return y, p.grad, (p - x).grad_fn.name(), T.zeros(2).mul_(x)


def _requires_grad_outside(T):
    x = _inference(T, 2)
    i = _inference(T, 2, dtype=T.long)
    return [_tried(lambda: x.requires_grad_()), _tried(lambda: setattr(x, "requires_grad", True)),
            _tried(lambda: x.requires_grad_(False)), _tried(lambda: i.requires_grad_()),
            _tried(lambda: setattr(i, "requires_grad", True)), _tried(lambda: T.nn.Parameter(x)),
            _tried(lambda: T.nn.Parameter(x, requires_grad=False).is_inference())]


def _requires_grad_inside(T):
    with T.inference_mode():
        x = T.ones(2, requires_grad=True)
        y = T.ones(2).requires_grad_()
        z = x * 2
        return x, y, z, z.grad_fn, z.requires_grad, x.is_leaf


def _normal_requires_grad_inside(T):
    m = T.ones(2, 2, requires_grad=True)
    with T.inference_mode():
        r = m * 2
        v = m[0]
        d = m.detach()
    return [(r.requires_grad, r.grad_fn, r.is_inference()), (v.requires_grad, v.grad_fn, v.is_inference(),
                                                              v._is_view(), v._base is m),
            (d.is_inference(), d._is_view())]


def _view_made_inside(T):
    n = T.ones(3, requires_grad=True).clone()
    with T.inference_mode():
        v = n.view(3)
        w = n[1:]
    out = [_tried(lambda: v.mul_(2)), _tried(lambda: w.add_(1)), (v * 2).grad_fn.name(), v.is_leaf]
    with T.inference_mode():
        v.mul_(2)  # inside, nothing is recorded: allowed
    out.append((n._version, v._version))
    with T.no_grad():
        w.add_(1)
    out.append(n.detach())
    return out


def _view_made_inside_no_grad(T):
    n = T.ones(3)
    with T.inference_mode():
        v = n.view(3)
    v.mul_(2)
    return n, n._version


def _decorators(T):
    @T.inference_mode
    def bare(a):
        return a * 2, T.is_inference_mode_enabled(), T.is_grad_enabled()

    @T.inference_mode()
    def called(a):
        return (a * 2).is_inference()

    @T.inference_mode(False)
    def off():
        return T.is_inference_mode_enabled(), T.is_grad_enabled()

    @T.no_grad
    def bare_no_grad():
        return T.is_grad_enabled()

    @T.enable_grad
    def bare_enable_grad():
        return T.is_grad_enabled()

    with T.no_grad():
        inside = bare_enable_grad()
    x, mode, grad = bare(T.ones(1))
    with T.inference_mode():
        turned_off = off()
    return (x.is_inference(), mode, grad, called(T.ones(1)), turned_off, bare_no_grad(), inside,
            T.is_inference_mode_enabled(), T.inference_mode(True).clone().mode, T.inference_mode(False).clone().mode)


def _inference_false(T):
    with T.inference_mode(False):
        x = T.ones(2, requires_grad=True)
        y = x * 3
    y.sum().backward()
    return x.grad, y.is_inference(), y._version


def _enable_grad_inside(T):
    p = T.ones(2, requires_grad=True)
    with T.inference_mode():
        with T.enable_grad():
            q = T.ones(2, requires_grad=True)
            seen = [T.is_grad_enabled(), q.is_inference(), (q * 2).grad_fn, (p * 2).grad_fn, (p * 2).requires_grad]
            with T.no_grad():
                seen.append(T.is_grad_enabled())
            seen.append(T.is_grad_enabled())
        seen.append(T.is_grad_enabled())
        with T.set_grad_enabled(True):
            seen += [T.is_grad_enabled(), (p * 3).grad_fn]
    seen += [T.is_grad_enabled(), (p * 2).grad_fn.name()]
    return seen


def _data_inside(T):
    n = T.ones(2, requires_grad=True)
    with T.inference_mode():
        d = n.data
        seen = [d.is_inference(), d._version]
    d.add_(1)
    return seen, d._version, n, _inference(T, 2).data.is_inference()


def _backward_inside(T):
    p = T.ones(2, requires_grad=True)
    loss = (p * p).sum()
    with T.inference_mode():
        loss.backward()
    return p.grad, p.grad.is_inference()


def _module_forward(T):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2))
    with T.inference_mode():
        out = model(T.ones(5, 3))
    errors = [_tried(lambda: model(out).sum().backward()), _tried(lambda: out.add_(1))]
    fine = model(out.clone()).sum()
    fine.backward()
    return out, out.is_inference(), errors, fine, model[0].weight.grad


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_inference_mode_as_torch(name):
    assert_same(PROGRAMS[name])
