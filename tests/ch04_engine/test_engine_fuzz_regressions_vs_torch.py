"""Differences with PyTorch that the engine fuzzer (``tests/engine_fuzz.py``) found, each as a small program.

Every program prints through ``P`` (tensors as shape, values, requires_grad and grad_fn name) and
``graph``/``saved``; it runs on picotorch and on torch and the printed lines must match.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import picotorch
from engine_fuzz import first_difference, run, same_lines

torch = pytest.importorskip("torch")


def check(source: str) -> list[str]:
    ours, theirs = run(picotorch, source), run(torch, source)
    assert same_lines(ours, theirs), first_difference(ours, theirs)
    return theirs


def check_in_fresh_processes(source: str) -> list[str]:
    """``check``, each library in a new process: for what happens once per process (TORCH_WARN_ONCE)."""
    script = ("import sys, importlib, warnings\n"
              "lib = importlib.import_module(sys.argv[1])\n"
              "warnings.simplefilter('always')\n"
              "warnings.showwarning = lambda m, c, *a, **k: P(f'WARN {c.__name__}: {m}')\n"
              "lines = []\n"
              "def P(*args):\n"
              "    lines.append(' '.join(a if isinstance(a, str) else repr(a) for a in args))\n"
              "exec(sys.stdin.read(), {'torch': lib, 'P': P})\n"
              "print('\\n'.join(lines))\n")
    here = str(Path(picotorch.__file__).resolve().parents[1])  # this picotorch, not another one installed
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])}
    outs = [subprocess.run([sys.executable, "-c", script, name], input=source, capture_output=True, text=True,
                           check=True, env=env).stdout.splitlines() for name in ("picotorch", "torch")]
    assert outs[0] == outs[1]
    return outs[1]


def tried(*lines: str) -> str:
    """Lines run in ``try``, the error (type and message) printed."""
    body = "\n".join("    " + line for line in lines)
    return f"try:\n{body}\nexcept Exception as e:\n    P('ERR', type(e).__name__, str(e))\n"


def test_inplace_op_saves_the_old_self_as_a_recorded_clone():
    """``mul_`` keeps ``self.clone()`` made under grad mode: ``_saved_self`` has CloneBackward0, and double
    backward flows through it."""
    out = check("""
x = torch.tensor([[1.0, -0.3], [-1.0, 0.5]], requires_grad=True)
y = torch.tensor([[0.5, 2.0], [1.5, -1.0]], requires_grad=True)
v = x * 2
v.mul_(y)
P(graph(v), saved(v.grad_fn))
g = torch.autograd.grad(v.sum(), [y], create_graph=True)[0]
P(g, graph(g))
P(torch.autograd.grad(g.sum(), x))
s = x.sigmoid()
s.mul_(y)
""" + tried("P(torch.autograd.grad(s.sum(), [x]))"))
    assert "CloneBackward0" in out[0]


def test_copyslices_raises_on_a_second_backward_without_retain_graph():
    check("""
x = torch.tensor([[-0.5, -0.5], [-1.2, -1.8]], requires_grad=True)
v = x * 1
v.view(4)[1:].zero_()
r = v[0, 1]
r.backward()
""" + tried("r.backward()") + tried("r.backward(inputs=[v])"))


def test_the_root_does_not_run_when_no_input_is_behind_it():
    """``exec_info`` marks the root needed only when it leads to an input: a freed root is not touched."""
    check("""
x1 = torch.tensor([1., 2.], requires_grad=True)
x2 = torch.tensor([1., 2.], requires_grad=True)
v = x2 * 3
r = x1.sum() * x1.sum()
r.grad_fn.register_prehook(lambda g: P("root pre"))
r.backward()
""" + tried("r.backward(inputs=[v])", "P('v', v.grad)") + tried("r.backward(inputs=[x2])", "P('x2', x2.grad)")
        + tried("P(torch.autograd.grad(r, [v], allow_unused=True))")
        + tried("P(torch.autograd.grad([r, (x2 * 2).sum()], [x2]))"))


def test_backward_inputs_that_do_not_require_grad():
    """``run_backward`` calls ``retain_grad`` on every input, in order: its error comes first."""
    source = """
x = torch.tensor([1., 2.], requires_grad=True)
c = torch.tensor([1., 2.])
m = x * 3
r = (m * 2).sum()
"""
    for inputs in ("[c]", "[x, c]", "[m, c]", "[x.detach()]", "[c * 2]"):
        source += tried(f"r.backward(inputs={inputs}, retain_graph=True)", "P(x.grad, m.grad)")
        source += tried(f"P(torch.autograd.grad(r, {inputs}, retain_graph=True, allow_unused=True))")
    check(source)


@pytest.mark.parametrize("call", [
    "torch.autograd.grad(c.sum(), [])",
    "torch.autograd.grad((x * 2).sum(), ())",
    "torch.autograd.grad((x * 2).sum(), [], materialize_grads=True, allow_unused=False)",
    "torch.autograd.grad(c.sum(), [x], materialize_grads=True, allow_unused=False)",
    "torch.autograd.grad((x * 2).sum(), [x], materialize_grads=True, allow_unused=False)",
    "torch.autograd.grad((x * 2).sum(), [y], materialize_grads=True)",
    "torch.autograd.grad((x * 2).sum(), [y, x], materialize_grads=True, create_graph=True)",
    "torch.autograd.grad((x * 2).sum(), {'a': x, 'b': y}, allow_unused=True)",
    "torch.autograd.grad((x * 2).sum(), [], grad_outputs=torch.ones(3))",
])
def test_grad_argument_checks_and_materialized_zeros(call):
    check("""
x = torch.tensor([1., 2.], requires_grad=True)
c = torch.tensor([1., 2.])
y = x * 3
""" + tried(f"P({call})"))


def test_post_hooks_see_no_gradient_for_pruned_edges():
    """Generated nodes (and CopySlices) ask ``task_should_compute_output``; a custom Function computes all."""
    check("""
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b
    @staticmethod
    def backward(ctx, g):
        P("needs", ctx.needs_input_grad)
        return g * 2, g * 3
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([1., 2.], requires_grad=True)
o = F.apply(x * 1, y * 1)
o.grad_fn.register_hook(lambda gi, go: P("F post", gi))
P(torch.autograd.grad(o.sum(), [x]))
m = x * y
m.grad_fn.register_hook(lambda gi, go: P("mul post", gi))
P(torch.autograd.grad(m.sum(), [x], retain_graph=True))
P(torch.autograd.grad(m.sum(), [m], retain_graph=True))
z = x * 1
z[0].mul_(y[0])
z.grad_fn.register_hook(lambda gi, go: P("copyslices post", gi))
P(torch.autograd.grad(z.sum(), [x], retain_graph=True))
P(torch.autograd.grad(z.sum(), [y], retain_graph=True))
w = torch.stack([x, y])
w.grad_fn.register_hook(lambda gi, go: P("stack post", gi))
P(torch.autograd.grad(w.sum(), [x], retain_graph=True))
t = x.tanh()
r = t[0]
t.grad_fn.register_hook(lambda gi, go: P("tanh post", gi))
r.backward(inputs=[t])
P(t.grad, x.grad)
""")


def test_a_node_unpacks_its_saved_tensors_even_for_a_pruned_edge():
    check("""
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor([3., 4.], requires_grad=True)
a = x.tanh()
m = a * y
a.mul_(2)
""" + tried("P(torch.autograd.grad(m.sum(), [m], retain_graph=True))")
        + tried("P(torch.autograd.grad(m.sum(), [x]))") + """
b = x * y
s = b.sum()
s.backward(inputs=[y])
""" + tried("s.backward(inputs=[b])"))


def test_the_root_gradients_are_cast_to_the_roots_dtype():
    check("""
x = torch.tensor([[0.1, 1.5], [-0.5, 0.3]], requires_grad=True)
c = torch.tensor([[1.2, 0.5], [1.3, -1.3]])
v = x @ c
""" + tried("P(torch.autograd.grad(v, x, grad_outputs=torch.ones(2, 2, dtype=torch.float64), retain_graph=True))")
        + tried("v.backward(torch.ones(2, 2, dtype=torch.float64))", "P(x.grad)"))


def test_post_accumulate_grad_hooks_run_when_no_gradient_arrives():
    check("""
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return None
x = torch.tensor([1., 2.], requires_grad=True)
x.register_post_accumulate_grad_hook(lambda p: P("postacc", p.grad))
x.register_hook(lambda g: P("tensor hook", g))
o = F.apply(x)
acc = o.grad_fn.next_functions[0][0]
acc.register_prehook(lambda g: P("acc pre", g))
acc.register_hook(lambda gi, go: P("acc post", gi, go))
o.sum().backward()
P("grad", x.grad)
""")


def test_copyslices_gives_no_gradient_when_the_wrapped_node_gives_none():
    check("""
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.mark_dirty(a)
        return a.mul_(2)
    @staticmethod
    def backward(ctx, g):
        return None
x = torch.tensor([1., 2., 3.], requires_grad=True)
z = x * 1
F.apply(z[1:])
P(graph(z))
z.grad_fn.register_hook(lambda gi, go: P("cs post", gi))
""" + tried("P(torch.autograd.grad(z.sum(), [x], retain_graph=True))") + tried("z.sum().backward()", "P(x.grad)"))


def test_a_custom_function_node_has_no_extra_saved_attributes():
    out = check("""
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g
o = F.apply(torch.ones(2, requires_grad=True))
P(saved(o.grad_fn))
""")
    assert out == ["nothing-saved"]


def test_backward_with_create_graph_warns_once_per_process_when_it_returns():
    out = check_in_fresh_processes("""
x = torch.tensor([1., 2.], requires_grad=True)
torch.autograd.grad((x * x).sum(), x, create_graph=True)
try:
    (x * x).backward(torch.ones(3), create_graph=True)
except RuntimeError as e:
    P("ERR", str(e))
x.register_hook(lambda g: P("hook"))
(x * x).sum().backward(create_graph=True)
P("again")
(x * x).sum().backward(create_graph=True)
""")
    assert [line[:4] for line in out] == ["ERR ", "hook", "WARN", "agai", "hook"]


def test_double_backward_graphs_of_maximum_minimum_and_div():
    """``maximum``'s formula ends in ``masked_fill_`` (MaskedFillBackward0), ``div``'s other-gradient is
    ``-grad * ((self / other) / other)`` (MulBackward0 on top)."""
    check("""
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
y = torch.tensor([[1., 3.], [2., 4.]], requires_grad=True)
for f in ("torch.maximum(x, y)", "torch.minimum(x, y)", "x / y", "x.max(y)"):
    o = eval(f)
    g = torch.autograd.grad((o * o).sum(), [x, y], create_graph=True)
    P(f, g, [graph(t) for t in g])
    P(torch.autograd.grad(sum(t.sum() for t in g), [x, y], allow_unused=True))
""")


def test_once_differentiable_under_create_graph_detaches_each_returned_value():
    check("""
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2, a + 1
    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g0, g1):
        return ret
x = torch.tensor([1., 2.], requires_grad=True)
for ret in (3.0, (3.0,), None, "torch.ones(2)"):
    ret = eval(ret) if isinstance(ret, str) else ret
""" + "\n".join("    " + line for line in tried(
        "o, p = F.apply(x)",
        "one = torch.tensor(1., requires_grad=True)  # so that backward's grads require grad",
        "g = torch.autograd.grad(o.sum(), x, grad_outputs=one, create_graph=True, allow_unused=True)",
        "P(g, [graph(t) for t in g if t is not None])",
        "P(torch.autograd.grad(g[0].sum(), x))").splitlines()))


def test_flip_lays_its_output_out_as_empty_like_preserve_format():
    """An expanded input gives a row-major output, so ``transpose(0, 1).contiguous()`` must copy (CloneBackward0)."""
    check("""
x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
for t in (x, x.t(), x[:, ::2], x[0].expand(3, 3), x.unsqueeze(1).expand(2, 2, 3), x[:, :1].expand(2, 4)):
    for d in ((0,), (1,), (0, 1), (-1,)):
        f = t.flip(d)
        P(f.stride(), f.is_contiguous(), f.transpose(0, 1).contiguous())
""")


def test_mark_dirty_on_a_view_checks_it_as_an_in_place_op_would():
    """A dirty view of a leaf that requires grad raises (the leaf keeps its history); views that forbid
    in-place changes (unbind, split) raise their texts."""
    source = """
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        a.mul_(2)
        ctx.mark_dirty(a)
        return a
    @staticmethod
    def backward(ctx, g):
        return g * 2
x = torch.tensor([[2.0, -1.7], [-0.1, 0.5]], requires_grad=True)
"""
    for src in ("x.view_as(x)", "x[0]", "(x * 1)[0]", "x.detach()[0]", "(x * 1).unbind(0)[0]", "(x * 1).split(1)[0]"):
        source += tried(f"o = F.apply({src})", "P(o, graph(o))", "P(graph(x * 1))")
    check(source)


def test_as_strided_backward_sums_the_gradients_of_elements_sharing_memory():
    """A view of a base modified in place is re-derived (AsStridedBackward0); when the view is expanded, the
    gradients of its elements that share memory are summed (index_add_ under create_graph)."""
    check("""
x = torch.tensor([[1.4, -1.4], [1.8, 0.3]], requires_grad=True)
for mk in ("b[0].unsqueeze(0).expand(2, 2)", "b.sum(0, keepdim=True).expand(3, 2)", "b[:, 1:].expand(2, 3)",
           "b.t()[0].expand(2, 2)", "b[1]"):
    b = x * 1
    v = eval(mk)
    b.mul_(2)
    P(mk, graph(v))
    g = torch.autograd.grad((v * torch.arange(v.numel()).reshape(v.shape)).sum(), x, create_graph=True)[0]
    P(g, graph(g))
    P(torch.autograd.grad((g * g).sum(), x, allow_unused=True))
""")


def test_a_stale_view_gets_its_new_node_wherever_grad_fn_is_asked():
    """``retain_grad``, ``backward(inputs=...)``/``autograd.grad`` inputs and ``is_leaf`` all call
    ``grad_fn()``: a view whose base was modified in place since is re-derived first (or raises)."""
    check("""
x = torch.tensor([[0.1, 1.7], [-0.6, 1.4]], requires_grad=True)
b = x * 1
v = b[0]
b.mul_(2)
v.retain_grad()
(v * 3).sum().backward()
P(v.grad, x.grad, graph(v))
b2 = x * 1
v2 = b2[0]
b2.mul_(2)
""" + tried("P(torch.autograd.grad((b2 * 3).sum(), [v2]))") + """
for make in ("m.unbind(0)[0]", "m.split(1)[0].expand(2, 2)"):
    m = x * 1
    u = eval(make)
    m.mul_(2)
""" + "\n".join("    " + line for line in (tried("P(u.is_leaf)") + tried("u.retain_grad()")
                                            + tried("(m * 3).sum().backward(inputs=[u])")).splitlines()))


def test_slice_double_backward_keeps_the_slices_own_bounds():
    check("""
x = torch.tensor([[0.1, 1.7, 3.], [-0.6, 1.4, 2.]], requires_grad=True)
for f in ("x[1:]", "x[:, -2:]", "x[:, :-1]", "x[0:5]", "x[:, ::2]", "x[:, 2:1]", "x[:, -5:]", "x[5:]",
          "x[:, 1:-5]", "x[:, 1::2]", "x.narrow(0, 1, 1)", "x[:, -2:-1]"):
    v = eval(f)
    g = torch.autograd.grad((v * v * torch.arange(1, v.numel() + 1).reshape(v.shape)).sum(), x, create_graph=True)[0]
    P(f, g, graph(g), saved(g.grad_fn))
""")


def test_indexing_a_zero_dim_tensor_with_a_number():
    source = ""
    for index in ("0", "1", "-1", "2", "torch.tensor(0)", "torch.tensor(1)"):
        source += "s = torch.tensor(1.5, requires_grad=True)\n" + tried(f"P(s[{index}])")
        source += "s = torch.tensor(1.5)\n" + tried(f"s[{index}] = 3.0", "P(s)")
    check(source)


def test_indexing_skips_a_slice_only_when_written_from_zero_to_the_end():
    check("""
x = torch.tensor([[0.1, 1.7, 3.], [-0.6, 1.4, 2.]], requires_grad=True)
for f in ("x[:, :]", "x[:, 0:]", "x[:, :3]", "x[:, 0:3]", "x[:, :5]", "x[:, -3:]", "x[:, -5:]", "x[:, -3:3]",
          "x[:, :-0]", "x[:, 0:3:1]", "x[:, -4:5]", "x[0:2, 1:]"):
    P(f, graph(eval(f)))
""")


def test_the_version_error_names_output_0_for_a_tensor_saved_as_an_input():
    """A saved input keeps no metadata in PyTorch (``output_nr_`` stays 0), whatever its own output_nr."""
    check("""
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2, a + 1
    @staticmethod
    def backward(ctx, g0, g1):
        return g0 + g1
x = torch.tensor([1., 2.], requires_grad=True)
o, ob = F.apply(x)
r = ob.pow(2).sum()
ob.mul_(2)
""" + tried("r.backward()") + """
u = (x * 1).split(1)[1]
s = u * u
with torch.no_grad():
    u.mul_(2)
""" + tried("s.sum().backward()"))


def test_a_raw_saved_tensor_is_a_savedtensor():
    out = check("""
x = torch.tensor([1., 2.], requires_grad=True)
raw = x.exp().grad_fn._raw_saved_result
P(type(raw).__name__, type(raw).__qualname__)
""")
    assert out == ["SavedTensor SavedTensor"]


def test_a_view_rederived_from_its_base_saves_its_geometry():
    """Fuzz seed 50181: the ``AsStridedBackward0`` a view gets after an in-place op (on it, through a custom
    Function that marks it dirty, on its base, on another view of the base) shows the view's size, stride and
    storage offset as ``_saved_*``."""
    check("""
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        a.mul_(2)
        ctx.mark_dirty(a)
        return a
    @staticmethod
    def backward(ctx, g0):
        return g0 * 2
x = torch.tensor([[0.9, -1.9], [0.9, 0.1]], requires_grad=True)
o = F.apply((x * 1).t())
P('o', o, graph(o), saved(o.grad_fn))
v = (x * 1).t()
v.mul_(2)
P('v', saved(v.grad_fn))
b = torch.arange(12.).reshape(3, 4).requires_grad_() * 1
w, u = b[2], b[1:, 1::2]
u.add_(1)
P('w', saved(w.grad_fn), 'u', saved(u.grad_fn))
c = x.sum() * torch.ones(6)
q = c.view(2, 3)[:, 1:]
c.mul_(3)
P('q', saved(q.grad_fn))
""")
