"""Custom ``autograd.Function`` against PyTorch: gradients (and against finite differences), the node's
name and edges, ctx's features, every error text, hook order and engine order among built-in ops.

Each program defines its Functions from the module it is given (``T.autograd.Function``), so the
same source runs on picotorch and on torch (``difftest.assert_same``).
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import picotorch
from picotorch_course.difftest import assert_same


def mul_k(T):
    """``x * k`` for a tensor x and a number k; saves x (to check its version)."""

    class MulK(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * ctx.k, None

    return MulK


def cube(T):
    """``x ** 3`` written as a Function with the newer ``setup_context`` style."""

    class Cube(T.autograd.Function):
        @staticmethod
        def forward(x):
            return x * x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

    return Cube


def one_fn(T, backward, forward=None, name="Fn"):
    """A Function of one tensor whose forward is ``x * 2`` (or ``forward``) and whose backward is given."""
    fwd = forward or (lambda ctx, x: x * 2)
    return type(name, (T.autograd.Function,), {"forward": staticmethod(fwd), "backward": staticmethod(backward)})


# ----------------------------------------------------------------------------- gradients, names, edges


def test_gradient_name_repr_and_next_functions():
    def prog(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = mul_k(T).apply(x, 3.0)
        print(y)
        print(y.grad_fn.name(), type(y.grad_fn).__name__, y.is_leaf, y.requires_grad, y.output_nr)
        print([(type(f).__name__, n) for f, n in y.grad_fn.next_functions])
        print(isinstance(y.grad_fn, T.autograd.function.FunctionCtx), y.grad_fn.requires_grad)
        (y * y).sum().backward()
        return x

    assert_same(prog)


def test_next_functions_skip_non_tensor_arguments_and_show_none_for_constants():
    def prog(T):
        class Lin(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, k, b, c):
                return a * k + b * c

            @staticmethod
            def backward(ctx, g):
                return g, None, g, None

        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = T.tensor([3.0, 4.0], requires_grad=True) * 2
        c = T.tensor([5.0, 6.0])
        y = Lin.apply(a, 2.0, b, c)
        print([(None if f is None else f.name(), n) for f, n in y.grad_fn.next_functions])
        y.sum().backward()
        return a

    assert_same(prog)


@pytest.mark.parametrize("make", [mul_k, cube])
def test_gradients_match_finite_differences(make):
    fn = make(picotorch)
    args = (2.0,) if make is mul_k else ()
    x = picotorch.tensor([0.5, -1.25, 2.0], dtype=picotorch.float64, requires_grad=True)
    fn.apply(x, *args).sum().backward()
    eps = 1e-6
    for i in range(3):
        plus, minus = x.detach().clone(), x.detach().clone()
        plus[i] += eps
        minus[i] -= eps
        numeric = (fn.apply(plus, *args).sum().item() - fn.apply(minus, *args).sum().item()) / (2 * eps)
        assert abs(x.grad[i].item() - numeric) < 1e-6


def test_setup_context_style_and_double_backward():
    def prog(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = cube(T).apply(x)
        (gx,) = T.autograd.grad(y.sum(), x, create_graph=True)
        print(gx)
        gx.sum().backward()
        return x

    assert_same(prog)


def test_grad_mode_is_off_in_forward_and_create_graph_in_backward():
    def prog(T):
        modes = []

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                modes.append(("forward", T.is_grad_enabled()))
                return x * 2

            @staticmethod
            def backward(ctx, g):
                modes.append(("backward", T.is_grad_enabled()))
                return g * 2

        x = T.tensor([1.0], requires_grad=True)
        F.apply(x).sum().backward()
        T.autograd.grad(F.apply(x).sum(), x, create_graph=True)
        return modes

    assert_same(prog)


def test_several_outputs_non_tensor_outputs_and_materialized_grads():
    def prog(T):
        got = []

        class Two(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 3, x * 3

            @staticmethod
            def backward(ctx, g1, g2, g3):
                got.append([None if g is None else g.tolist() for g in (g1, g2, g3)])
                return g1 + g3

        x = T.tensor([1.0, 2.0], requires_grad=True)
        a, n, b = Two.apply(x)
        print(a, n, b, a.output_nr, b.output_nr, a.grad_fn is b.grad_fn)
        a.sum().backward()
        return x, got

    assert_same(prog)


def test_set_materialize_grads_false_passes_none():
    def prog(T):
        got = []

        class Mat(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                got.append((g1 is None, g2 is None))
                return g1

        x = T.tensor([1.0, 2.0], requires_grad=True)
        a, b = Mat.apply(x)
        a.sum().backward()
        return x, got

    assert_same(prog)


def test_materialize_grads_is_write_only_and_takes_a_bool():
    def prog(T):
        out = []

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                for action in (lambda: ctx.materialize_grads, lambda: ctx.set_materialize_grads(1)):
                    try:
                        action()
                    except Exception as err:
                        out.append((type(err).__name__, str(err)))
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

        F.apply(T.ones(1, requires_grad=True))
        return out

    assert_same(prog)


def test_mark_non_differentiable():
    def prog(T):
        got = []

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_non_differentiable(y)
                return x * 3, y

            @staticmethod
            def backward(ctx, g1, g2):
                got.append(g2.tolist())
                return g1

        x = T.tensor([3.0, 1.0], requires_grad=True)
        a, b = F.apply(x)
        print(b.requires_grad, b.grad_fn, b.output_nr, a.output_nr)
        a.sum().backward()
        return x, got

    assert_same(prog)


def test_integer_output_gets_zeros_and_ctx_attributes():
    def prog(T):
        got = []

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2, x.to(T.int64)

            @staticmethod
            def backward(ctx, g1, g2):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    n = len(ctx.saved_variables)
                got.append((g2.tolist(), str(g2.dtype), n, [str(w.message) for w in caught]))
                got.append((len(ctx._raw_saved_tensors), ctx.metadata, ctx.to_save, ctx.dirty_tensors))
                return g1

        x = T.tensor([1.5, 2.0], requires_grad=True)
        a, b = F.apply(x)
        print(b, b.requires_grad, b.grad_fn)
        a.sum().backward()
        try:
            a.grad_fn._raw_saved_tensors
        except RuntimeError as err:
            got.append(str(err))
        return x, got

    assert_same(prog)


def test_needs_input_grad():
    def prog(T):
        seen = []

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, k, b):
                seen.append(ctx.needs_input_grad)
                return a * b * k

            @staticmethod
            def backward(ctx, g):
                seen.append(ctx.needs_input_grad)
                return g, None, None

        a = T.ones(2, requires_grad=True)
        F.apply(a, 2, T.ones(2)).sum().backward()
        with T.no_grad():
            F.apply(a, 2, T.ones(2))
        F.apply(T.ones(2), 2, T.ones(2))
        return seen

    assert_same(prog)


def test_no_grad_or_no_input_requiring_grad_records_nothing_but_takes_a_sequence_nr():
    def prog(T):
        f = mul_k(T)
        x = T.ones(2, requires_grad=True)
        first = (x * 1).grad_fn._sequence_nr()
        with T.no_grad():
            y = f.apply(x, 2.0)
        z = f.apply(T.ones(2), 2.0)
        last = (x * 1).grad_fn._sequence_nr()
        return y, z, last - first

    assert_same(prog)


def test_an_input_returned_as_is_becomes_a_view_with_the_new_grad_fn():
    def prog(T):
        f = one_fn(T, lambda ctx, g: g * 2, forward=lambda ctx, x: x, name="Id")
        a = T.tensor([1.0, 2.0], requires_grad=True)
        y = f.apply(a)
        print(y is a, y._base is a, y.grad_fn.name(), a.grad_fn)
        y.sum().backward()
        b = T.ones(2)
        z = f.apply(b)
        print(z is b, z._base is b, z.requires_grad)
        return a

    assert_same(prog)


def test_kwargs_of_apply():
    def prog(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, k=2):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g, None

        x = T.ones(2, requires_grad=True)
        out = [F.apply(x, k=3)]
        for call in (lambda: F.apply(x, j=3), lambda: F.apply(x, 2, k=3), lambda: F.apply(k=3)):
            try:
                call()
            except TypeError as err:
                out.append(str(err))
        return out

    assert_same(prog)


def test_grad_fn_apply_calls_backward_directly():
    def prog(T):
        y = mul_k(T).apply(T.ones(2, requires_grad=True), 3.0)
        return y.grad_fn.apply(T.ones(2))

    assert_same(prog)


# ----------------------------------------------------------------------------- mark_dirty


def test_mark_dirty_moves_the_history_to_the_function():
    def prog(T):
        class Dirty(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 3

        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        v0, old = b._version, b.grad_fn
        y = Dirty.apply(b)
        print(y is b, b._version - v0, b.grad_fn.name(), b.grad_fn.next_functions[0][0] is old)
        y.sum().backward()
        return a, b

    assert_same(prog)


def test_mark_dirty_on_a_view_makes_copy_slices():
    def prog(T):
        class Dirty(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 3

        a = T.tensor([1.0, 2.0], requires_grad=True)
        base = a * 1
        v = base[:1]
        y = Dirty.apply(v)
        print(y is v, v.grad_fn.name(), base.grad_fn.name(), [f.name() for f, _ in base.grad_fn.next_functions])
        base.sum().backward()
        return a, base

    assert_same(prog)


def test_saving_a_dirty_input_saves_its_new_version():
    def prog(T):
        class DirtySave(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 2

        a = T.tensor([1.0, 2.0], requires_grad=True)
        DirtySave.apply(a * 1).sum().backward()
        return a

    assert_same(prog)


def dirty_leaf(T):
    class Dirty(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    Dirty.apply(T.ones(2, requires_grad=True))


def dirty_not_returned(T):
    class Dirty(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    Dirty.apply(T.ones(2, requires_grad=True) * 1)


def dirty_not_a_tensor(T):
    class Dirty(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(3)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    Dirty.apply(T.ones(2, requires_grad=True) * 1)


def non_differentiable_not_a_tensor(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_non_differentiable(3)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    F.apply(T.ones(2, requires_grad=True) * 1)


def dirty_view_with_two_outputs(T):
    class Dirty(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            return g1

    Dirty.apply((T.ones(2, requires_grad=True) * 1)[:1])


# ----------------------------------------------------------------------------- errors


def wrong_count(T):
    class Wrong(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    x = T.ones(2, requires_grad=True)
    Wrong.apply(x, x).sum().backward()


def too_many(T):
    one_fn(T, lambda ctx, g: (g, g), name="MyFn").apply(T.ones(2, requires_grad=True)).sum().backward()


def extra_nones_are_fine(T):
    x = T.ones(2, requires_grad=True)
    one_fn(T, lambda ctx, g: (g, None, None)).apply(x).sum().backward()
    return x


def wrong_shape(T):
    one_fn(T, lambda ctx, g: T.ones(3), name="Shape").apply(T.ones(2, requires_grad=True)).sum().backward()


def shape_not_expandable(T):
    one_fn(T, lambda ctx, g: T.ones(1), name="Shape").apply(T.ones(2, requires_grad=True)).sum().backward()


def gradient_for_a_number(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    F.apply(T.ones(2, requires_grad=True), 2).sum().backward()


def gradient_not_a_tensor(T):
    one_fn(T, lambda ctx, g: 5).apply(T.ones(2, requires_grad=True)).sum().backward()


def gradient_a_list(T):
    one_fn(T, lambda ctx, g: [g]).apply(T.ones(2, requires_grad=True)).sum().backward()


def gradient_of_another_dtype_is_cast(T):
    x = T.ones(2, requires_grad=True)
    one_fn(T, lambda ctx, g: g.double()).apply(x).sum().backward()
    return x


def saved_input_modified(T):
    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    y = mul_k(T).apply(b, 2.0)
    b.add_(1)
    y.sum().backward()


def saved_leaf_modified(T):
    a = T.tensor([1.0, 2.0], requires_grad=True)
    y = mul_k(T).apply(a, 2.0)
    with T.no_grad():
        a.add_(1)
    y.sum().backward()


def saved_output_modified(T):
    class SaveOut(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (o,) = ctx.saved_tensors
            return g * o

    y = SaveOut.apply(T.tensor([1.0, 2.0], requires_grad=True))
    y.mul_(2)
    y.sum().backward()


def saved_output_seen_in_backward(T):
    seen = []

    class SaveOut(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            ctx.save_for_backward(out, None)
            return out

        @staticmethod
        def backward(ctx, g):
            o, none = ctx.saved_tensors
            seen.append((o.tolist(), o.grad_fn.name(), o.requires_grad, none))
            return g * o

    x = T.tensor([1.0, 2.0], requires_grad=True)
    SaveOut.apply(x).sum().backward()
    return x, seen


def backward_twice(T):
    y = mul_k(T).apply(T.ones(2, requires_grad=True), 2.0)
    y.sum().backward()
    y.sum().backward()


def saved_tensors_after_backward(T):
    y = mul_k(T).apply(T.ones(2, requires_grad=True), 2.0)
    y.sum().backward()
    return y.grad_fn.saved_tensors


def backward_twice_retain_graph(T):
    x = T.ones(2, requires_grad=True)
    y = mul_k(T).apply(x, 2.0)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    return x


def backward_twice_without_saved_tensors(T):
    x = T.ones(2, requires_grad=True)
    y = one_fn(T, lambda ctx, g: g).apply(x)
    y.sum().backward()
    y.sum().backward()
    return x


def save_a_number(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    F.apply(T.ones(2, requires_grad=True))


def legacy_call(T):
    class F(T.autograd.Function):
        def forward(self, x):
            return x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F()(T.ones(1))


def no_forward(T):
    T.autograd.Function.apply(T.ones(1))


def no_backward(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    F.apply(T.ones(2, requires_grad=True)).sum().backward()


def backward_and_vjp(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def vjp(ctx, g):
            return g

    F.apply(T.ones(2, requires_grad=True)).sum().backward()


def vjp_only(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 5

    x = T.ones(2, requires_grad=True)
    F.apply(x).sum().backward()
    return x


def setup_context_saves_an_input_returned_as_is(T):
    class F(T.autograd.Function):
        @staticmethod
        def forward(x):
            return x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            return g

    F.apply(T.ones(2, requires_grad=True) * 1)


def an_error_in_backward_leaves_the_engine_usable(T):
    x = T.ones(2, requires_grad=True)
    try:
        wrong_count(T)
    except RuntimeError:
        pass
    (x * 2).sum().backward()
    return x


ERROR_PROGRAMS = [wrong_count, too_many, extra_nones_are_fine, wrong_shape, shape_not_expandable,
                  gradient_for_a_number, gradient_not_a_tensor, gradient_a_list, gradient_of_another_dtype_is_cast,
                  saved_input_modified, saved_leaf_modified, saved_output_modified, saved_output_seen_in_backward,
                  backward_twice, saved_tensors_after_backward, backward_twice_retain_graph,
                  backward_twice_without_saved_tensors, save_a_number, legacy_call, no_forward, no_backward,
                  backward_and_vjp, vjp_only, setup_context_saves_an_input_returned_as_is,
                  an_error_in_backward_leaves_the_engine_usable, dirty_leaf, dirty_not_returned, dirty_not_a_tensor,
                  non_differentiable_not_a_tensor, dirty_view_with_two_outputs]


@pytest.mark.parametrize("prog", ERROR_PROGRAMS, ids=lambda p: p.__name__)
def test_errors_and_edge_cases(prog):
    assert_same(prog)


# ----------------------------------------------------------------------------- once_differentiable


def test_once_differentiable():
    def prog(T):
        modes = []

        class Once(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @T.autograd.function.once_differentiable
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                modes.append(T.is_grad_enabled())
                return 2 * x * g

        a = T.tensor([1.0, 2.0], requires_grad=True)
        (plain,) = T.autograd.grad(Once.apply(a).sum(), a)
        g0 = T.ones(2, requires_grad=True)
        (gx,) = T.autograd.grad(Once.apply(a), a, g0, create_graph=True)
        print(gx, gx.grad_fn.name(), [f.name() for f, _ in gx.grad_fn.next_functions], gx.is_leaf)
        print(Once.backward.__name__)
        try:
            gx.sum().backward()
        except RuntimeError as err:
            print(err)
        return plain, modes

    assert_same(prog)


# ----------------------------------------------------------------------------- hooks and engine order


def test_hooks_on_a_custom_node_fire_in_pytorchs_order():
    def prog(T):
        log = []
        note = log.append
        a = T.tensor([1.0, 2.0], requires_grad=True)
        y = mul_k(T).apply(a, 2.0)
        z = y * 3
        y.register_hook(lambda g: note(("y.tensor", g.tolist())))
        y.retain_grad()
        y.register_hook(lambda g: note(("y.tensor2", g.tolist())) or g * 10)
        y.grad_fn.register_prehook(lambda go: note(("y.pre", [t.tolist() for t in go])))
        y.grad_fn.register_hook(lambda gi, go: note(("y.post", [t.tolist() for t in gi], [t.tolist() for t in go])))
        h = y.grad_fn.register_hook(lambda gi, go: note("removed"))
        h.remove()
        y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1,))
        a.register_hook(lambda g: note(("a.tensor", g.tolist())))
        z.sum().backward()
        return a, y.grad, log

    assert_same(prog)


def test_node_hook_returning_wrong_length_for_custom_node():
    def prog(T):
        y = mul_k(T).apply(T.ones(2, requires_grad=True), 2.0)
        y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
        y.sum().backward()

    assert_same(prog)


def order_program(ops: list[tuple[int, int, int]], roots: list[int]):
    """A DAG over two leaves: op ``(kind, i, j)`` combines values i and j with a built-in op
    (kind 0, 1) or a custom Function (kind 2: one output; kind 3: two outputs, both used)."""

    def prog(T):
        log = []

        class Mix(T.autograd.Function):
            @staticmethod
            def forward(ctx, u, v):
                return u * v + 1

            @staticmethod
            def backward(ctx, g):
                log.append("Mix")
                return g * 2, g * 3

        class Split(T.autograd.Function):
            @staticmethod
            def forward(ctx, u, v):
                return u + v, u - v

            @staticmethod
            def backward(ctx, g1, g2):
                log.append("Split")
                return g1 + g2, g1 - g2

        leaves = [T.tensor([1.0, 2.0], requires_grad=True), T.tensor([0.5, -1.0], requires_grad=True)]
        values = list(leaves)
        for kind, i, j in ops:
            u, v = values[i % len(values)], values[j % len(values)]
            if kind == 0:
                out = u * v
            elif kind == 1:
                out = u + v * 2
            elif kind == 2:
                out = Mix.apply(u, v)
            else:
                p, q = Split.apply(u, v)
                out = p * q
            values.append(out)
        seen = set()
        for t in values[2:]:
            fn = t.grad_fn
            if id(fn) not in seen:
                seen.add(id(fn))
                name = fn.name()
                fn.register_prehook(lambda go, name=name: log.append(name))
        total = sum(values[2 + r % (len(values) - 2)].sum() for r in roots)
        total.backward()
        return leaves, log

    return prog


def test_engine_order_with_custom_and_built_in_nodes():
    assert_same(order_program([(2, 0, 1), (0, 2, 0), (3, 2, 1), (1, 3, 4), (2, 4, 0)], [3, 4]))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 20), st.integers(0, 20)), min_size=1, max_size=8),
       st.lists(st.integers(0, 20), min_size=1, max_size=3))
def test_engine_order_on_random_graphs_with_custom_functions(ops, roots):
    assert_same(order_program(ops, roots))


# ----------------------------------------------------------------------------- newer class options


def test_clear_saved_tensors_on_access():
    def prog(T):
        got = []

        class F(T.autograd.Function):
            clear_saved_tensors_on_access = True

            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                try:
                    ctx.saved_tensors
                except RuntimeError as err:
                    got.append(str(err))
                return g * x

        class G(T.autograd.Function):
            clear_saved_tensors_on_access = 1

            @staticmethod
            def forward(ctx, x):
                return x * 2

        x = T.tensor([1.0, 2.0], requires_grad=True)
        F.apply(x).sum().backward()
        try:
            G.apply(x)
        except RuntimeError as err:
            got.append(str(err))
        return x, got

    assert_same(prog)


def test_boxed_grads_call():
    def prog(T):
        got = []

        class B(T.autograd.Function):
            boxed_grads_call = True

            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, grads):
                got.append((type(grads).__name__, len(grads)))
                return grads.pop()

        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = B.apply(x)
        (y[0] + y[1] * 2).sum().backward()
        direct = y[0].grad_fn.apply(T.ones(2), T.zeros(2))
        return x, got, direct

    assert_same(prog)


def test_grad_with_inputs_prunes_around_custom_nodes():
    def prog(T):
        log = []
        f = mul_k(T)
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = T.tensor([3.0, 4.0], requires_grad=True)
        u = f.apply(a, 2.0)
        v = f.apply(b, 3.0)
        w = u * v
        for t, name in ((u, "u"), (v, "v"), (w, "w")):
            t.grad_fn.register_prehook(lambda go, name=name: log.append(name))
        (ga,) = T.autograd.grad(w.sum(), a, retain_graph=True)
        gb = T.autograd.grad(w.sum(), [b, u])
        return ga, gb, log

    assert_same(prog)


_VIEW_OUTPUT_WRITES = [
    "x = T.ones(2, 2, requires_grad=True) * 1; y = Id.apply(x); y.add_(1)",
    "x = T.ones(2, 2, requires_grad=True); y = Id.apply(x); y.add_(1)",
    "x = T.ones(2, 2, requires_grad=True) * 1; a, b = Two.apply(x); a.add_(1)",
    "x = T.ones(2, 2, requires_grad=True) * 1; a, b = Two.apply(x); b.mul_(2)",
    "x = T.ones(2, 2, requires_grad=True) * 1; y = OneView.apply(x); z = y[0]; z.add_(1)",
    "x = T.ones(2, 2, requires_grad=True) * 1; y = OneView.apply(x); x.add_(1); y.grad_fn",
    "x = T.ones(2, 2) * 1; y = OneView.apply(x); y.add_(1); out.append(y.requires_grad)",
    "x = T.ones(2, 2, requires_grad=True) * 1\nwith T.no_grad():\n    y = OneView.apply(x)\ny.add_(1)",
    "x = T.ones(2, 2, requires_grad=True) * 1; y = OneView.apply(x).clone(); y.add_(1); out.append(y.grad_fn.name())",
]


@pytest.mark.parametrize("program", _VIEW_OUTPUT_WRITES)
def test_views_a_function_returns_are_not_modified_in_place(program):
    """A view a custom Function returns (an input returned as-is included) is marked IN_CUSTOM_FUNCTION (several
    differentiable outputs: MULTI_OUTPUT_NODE): an in-place op on it, on a view of it or on its base raises."""
    def prog(T):
        class Id(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        class Two(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.view(-1), x[0]

            @staticmethod
            def backward(ctx, a, b):
                return a.view(2, 2)

        class OneView(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[0]

            @staticmethod
            def backward(ctx, g):
                r = g.new_zeros(2, 2)
                r[0] = g
                return r

        out = []
        try:
            exec(program, {"T": T, "Id": Id, "Two": Two, "OneView": OneView, "out": out})
            out.append("ok")
        except RuntimeError as error:
            out.append(str(error))
        return out
    assert_same(prog)
