"""``__torch_function__`` programs run on picotorch and on PyTorch: the same prints, result types and errors.

Each program defines its classes inside (so each library gets its own ``Tensor`` subclass) and prints
what a learner would look at: the names of the functions a logging subclass sees, in order; the types
of results; who is asked first; the errors when every handler declines.
"""

from __future__ import annotations

import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")


def _logging_tensor(T):
    class LoggingTensor(T.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            print(func.__name__)
            if kwargs is None:
                kwargs = {}
            return super().__torch_function__(func, types, args, kwargs)
    return LoggingTensor


def _declining(T, name="Declining"):
    return type(name, (T.Tensor,), {"__torch_function__": classmethod(lambda cls, *a, **k: NotImplemented)})


def _plain(T):
    return T.tensor([[1.0, -2.0], [3.0, 4.0]])


def test_logging_tensor_forward_and_backward():
    def prog(T):
        x = T.tensor([1.0, 2.0, 3.0]).as_subclass(_logging_tensor(T)).requires_grad_()
        y = (x * 2).sum()
        y.backward()
        print(type(x).__name__, type(y).__name__, type(x.grad).__name__)
        print(x.grad)
        return y.detach()
    assert_same(prog)


def test_logging_tensor_sees_operators_methods_and_reflected_operators():
    def prog(T):
        x = _plain(T).as_subclass(_logging_tensor(T))
        for label, call in [("a", lambda: x + 1), ("b", lambda: 2 + x), ("c", lambda: 2 - x), ("d", lambda: 2 / x),
                            ("e", lambda: x / 2), ("f", lambda: x ** 2), ("g", lambda: 2 ** x), ("h", lambda: x @ x),
                            ("i", lambda: -x), ("j", lambda: x == x), ("k", lambda: x != 1), ("l", lambda: x // 2),
                            ("m", lambda: 5 // x), ("n", lambda: x % 2), ("o", lambda: x[0]), ("p", lambda: x[:, 1]),
                            ("q", lambda: x.view(4)), ("r", lambda: x.view(2, 2)), ("s", lambda: x.sum(dim=0)),
                            ("t", lambda: T.sum(x, dim=0, keepdim=True)), ("u", lambda: T.cat([_plain(T), x])),
                            ("v", lambda: x.unbind(0)), ("w", lambda: x.max(0)), ("x", lambda: x.split(1)),
                            ("y", lambda: x.clone().add_(1)), ("z", lambda: x.clamp(min=0))]:
            print(label, "->", type(call()).__name__)
    assert_same(prog)


def test_logging_tensor_sees_properties_and_hand_written_methods():
    def prog(T):
        x = _plain(T).as_subclass(_logging_tensor(T))
        values = [x.shape, x.dtype, x.device, x.ndim, x.requires_grad, x.is_leaf, x.grad_fn, x.is_cuda,
                  x.size(), x.size(0), x.dim(), x.numel(), x.stride(), x.is_contiguous(), x.tolist(),
                  x[0, 0].item(), float(x[0, 0]), int(x[1, 1]), bool(x[0, 0]), len(x), x.T, x.mT, x.data, x.detach(),
                  x.to(T.float64), x.double(), x.is_floating_point(), x.element_size(), list(x), 3.0 in x]
        x.requires_grad = True
        x.grad = None
        print([type(v).__name__ for v in values])
    assert_same(prog)


def test_repr_of_a_subclass_is_one_call():
    def prog(T):
        x = _plain(T).as_subclass(_logging_tensor(T))
        print(repr(x))
        print(x)
        return repr(x * 1)
    assert_same(prog)


def test_func_is_the_public_object():
    def prog(T):
        seen = []

        class Recording(T.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append((func, [t.__name__ for t in types], len(args), kwargs))
                return super().__torch_function__(func, types, args, kwargs)

        x = T.tensor([1.0, 2.0], requires_grad=True).as_subclass(Recording)
        T.add(x, 1, alpha=2)
        x.mul(2)
        x * 2
        x[0]
        x.grad_fn
        y = x.sum()
        y.backward()
        2 - x
        checks = [seen[0][0] is T.add, seen[1][0] is T.Tensor.mul, seen[2][0] is T.Tensor.mul,
                  seen[3][0] is T.Tensor.__getitem__, seen[4][0] == T.Tensor.grad_fn.__get__,
                  seen[6][0] is T.Tensor.backward, seen[7][0] is T.Tensor.__rsub__]
        print(checks)
        print([(f.__name__, types, n, kwargs) for f, types, n, kwargs in seen])
    assert_same(prog)


def test_result_types_and_the_no_wrap_getters():
    def prog(T):
        L = type("Sub", (T.Tensor,), {})  # inherits the default __torch_function__
        x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        s = T.Tensor._make_subclass(L, x.detach(), True)
        (s * s).sum().backward()
        out = [s + 1, s.unbind(0), s.max(0), s.split(1), s.detach(), s.T, s[0], T.cat([x, s]), s.grad]
        print([type(o).__name__ for o in out])
        print([type(v).__name__ for v in out[1]], [type(v).__name__ for v in out[2]])
        print(s.grad is s.grad, type(s.grad).__name__, s.is_leaf, s.requires_grad, s.grad_fn)
        return s.grad
    assert_same(prog)


def test_as_subclass_stays_in_the_graph():
    def prog(T):
        L = type("Sub", (T.Tensor,), {})
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x.as_subclass(L)
        print(type(y).__name__, y.grad_fn.name(), y.is_leaf)
        (y * y).sum().backward()
        return x.grad
    assert_same(prog)


def test_subclass_that_overrides_grad_fn():
    def prog(T):
        class FakeGradFn(T.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                if func == T.Tensor.grad_fn.__get__:
                    return "my grad_fn"
                return super().__torch_function__(func, types, args, kwargs)

        x = T.tensor([1.0, 2.0], requires_grad=True).as_subclass(FakeGradFn)
        y = x * 3
        print(x.grad_fn, y.grad_fn, type(y).__name__, y.requires_grad, y.is_leaf)
        with T._C.DisableTorchFunctionSubclass():
            print(y.grad_fn.name())
        print(repr(y))
    assert_same(prog)


def test_subclass_property_override_needs_no_protocol():
    def prog(T):
        class Named(T.Tensor):
            @property
            def grad_fn(self):
                return "named"

        x = T.ones(2).as_subclass(Named)
        print(x.grad_fn, type(x + 1).__name__, (x + 1).grad_fn)
    assert_same(prog)


def test_tensor_like_object_gets_the_call():
    def prog(T):
        class TensorLike:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                print(func.__name__, func is T.add, [t.__name__ for t in types], len(args), kwargs)
                return "handled"

        print(T.add(TensorLike(), 1), T.mul(T.ones(2), TensorLike()), T.add(TensorLike(), other=T.ones(1)))
        print(T.cat([T.ones(1), TensorLike()]))
        print(T.overrides.is_tensor_like(TensorLike()), T.overrides.is_tensor_like(TensorLike),
              T.overrides.is_tensor_like(T.ones(1)), T.overrides.is_tensor_like([1]))
    assert_same(prog)


@pytest.mark.parametrize("case", ["function", "method", "property", "setter", "getitem", "linalg", "size",
                                  "tensor_like", "operator", "reflected"])
def test_every_handler_declining_raises(case):
    def prog(T):
        class TensorLike:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        n = T.ones(2).as_subclass(_declining(T))
        calls = {"function": lambda: T.add(n, 1), "method": lambda: n.mul(2), "property": lambda: n.grad_fn,
                 "setter": lambda: setattr(n, "requires_grad", True), "getitem": lambda: n[0],
                 "linalg": lambda: T.linalg.vector_norm(n), "size": lambda: n.size(),
                 "tensor_like": lambda: T.add(TensorLike(), 1), "operator": lambda: n * 2, "reflected": lambda: 2 - n}
        calls[case]()
    assert_same(prog)


def test_python_level_handlers_declining_name_their_function():
    def prog(T):
        n = T.ones(2).as_subclass(_declining(T))
        for call in (lambda: n.backward(), lambda: repr(n), lambda: n.register_hook(print)):
            try:
                call()
            except TypeError as error:
                print(str(error).replace("picotorch.", "torch."))
    assert_same(prog)


def test_subclass_before_superclass_otherwise_left_to_right():
    def prog(T):
        def handler(cls, func, types, args=(), kwargs=None):
            print(cls.__name__, "asked with", [t.__name__ for t in types])
            return T.Tensor.__torch_function__.__func__(cls, func, types, args, kwargs)

        A = type("A", (T.Tensor,), {"__torch_function__": classmethod(handler)})
        B = type("B", (A,), {})
        C = type("C", (T.Tensor,), {"__torch_function__": classmethod(handler)})
        a, b, c = (T.ones(1).as_subclass(k) for k in (A, B, C))
        print(type(T.add(a, b)).__name__)
        print(type(T.add(b, a)).__name__)
        print(type(T.stack([a, a, b, a])).__name__)
        try:
            T.add(a, c)
        except TypeError as error:
            print(error)
        try:
            T.add(c, b)
        except TypeError as error:
            print(error)
        print(type(T.add(T.ones(1), b)).__name__)
    assert_same(prog)


def test_get_overloaded_args_order():
    def prog(T):
        A = type("A", (T.Tensor,), {})
        B = type("B", (A,), {})
        C = type("C", (T.Tensor,), {})
        a, a2, b, c = (T.ones(1).as_subclass(k) for k in (A, A, B, C))
        plain, param = T.ones(1), T.nn.Parameter(T.ones(1))
        from_overrides = T.overrides._get_overloaded_args
        for args in ([a, b], [b, a], [a, a2, b], [c, a, b], [plain, a], [param, plain], [1, "x", c], []):
            print([type(v).__name__ for v in from_overrides(args)])
    assert_same(prog)


def test_disable_torch_function_subclass_and_all():
    def prog(T):
        x = T.ones(2, 2).as_subclass(_logging_tensor(T))
        print(T._C._is_torch_function_enabled())
        with T._C.DisableTorchFunctionSubclass():
            y = x * 2
            print(type(y).__name__, type(x.T).__name__, T._C._is_torch_function_enabled(),
                  T._C._has_torch_function((x,)))
            with T._C.DisableTorchFunction():
                print(type(x + 1).__name__, T._C._is_torch_function_enabled())
            print(type(x + 1).__name__)
        with T._C.DisableTorchFunction():
            print(type(x + 1).__name__, T.overrides._get_overloaded_args([x]))
        print(type(x + 1).__name__, T._C._is_torch_function_enabled())
    assert_same(prog)


def test_has_torch_function_variants():
    def prog(T):
        class TensorLike:
            __torch_function__ = classmethod(lambda cls, *a, **k: "x")

        sub = T.ones(1).as_subclass(type("Sub", (T.Tensor,), {}))
        plain, param = T.ones(1), T.nn.Parameter(T.ones(1))
        C = T._C
        print(C._has_torch_function((plain,)), C._has_torch_function((plain, sub)), C._has_torch_function([param]),
              C._has_torch_function((1, 2.0, "x", None)), C._has_torch_function((TensorLike(),)))
        print(C._has_torch_function_unary(plain), C._has_torch_function_unary(sub),
              C._has_torch_function_unary(param), C._has_torch_function_unary(TensorLike()))
        print(C._has_torch_function_variadic(), C._has_torch_function_variadic(plain, 1),
              C._has_torch_function_variadic(plain, sub), T.overrides.has_torch_function((sub,)),
              T.overrides.has_torch_function_unary(plain), T.overrides.has_torch_function_variadic(sub, plain))
    assert_same(prog)


def test_parameter_opts_out_and_parse_errors_come_first():
    def prog(T):
        p = T.nn.Parameter(T.ones(2, 2))
        print(type(p * 2).__name__, type(p.detach()).__name__, type(p.T).__name__)
        x = T.ones(2).as_subclass(_logging_tensor(T))
        for call in (lambda: T.mul(x, "a"), lambda: x.mul("a"), lambda: T.add(x, x, beta=2)):
            try:
                call()
            except TypeError as error:
                print(error)
    assert_same(prog)


def test_handler_kwargs_and_args_as_received():
    def prog(T):
        class Show(T.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                print(func.__name__, len(args), kwargs)
                return super().__torch_function__(func, types, args, kwargs)

        x = T.ones(2, 2).as_subclass(Show)
        x.sum(dim=0)
        T.add(x, x, alpha=3)
        x.mul(2)
        x.split(1)
        x.norm()
        x[0] = 5.0
        x.view(4)
        x.reshape(-1)
        x.requires_grad_()
        del x.grad
    assert_same(prog)


def test_autograd_backward_and_grad_hand_subclasses_over():
    def prog(T):
        x = T.tensor([1.0, 2.0]).as_subclass(_logging_tensor(T)).requires_grad_()
        y = (x * x).sum()
        (g,) = T.autograd.grad(y, x, retain_graph=True)
        T.autograd.backward([y], inputs=[x])
        print(type(g).__name__, g, type(x.grad).__name__)
        return x.grad
    assert_same(prog)


def test_get_overridable_functions_lists_functions_methods_and_getters():
    def prog(T):
        table = T.overrides.get_overridable_functions()
        print(T.add in table[T], T.mul in table[T], T.Tensor.add in table[T.Tensor],
              T.Tensor.__getitem__ in table[T.Tensor], T.Tensor.grad_fn.__get__ in table[T.Tensor],
              T.Tensor.backward in table[T.Tensor], T.ones_like in table[T])
    assert_same(prog)
