"""Differential fuzzing of what chapters 00-02 show a learner: small random programs, run on picotorch and on torch.

A generator writes short programs (3-8 statements) as text: tensors from the factories (every dtype, some
requiring grad), then ops on them (arithmetic with promotion and broadcasting, in-place and ``out=`` forms,
reductions, shape ops, indexing and setitem, matmul, activations, comparisons, conversions), now and then a
backward, and some bad input (mismatched shapes, wrong argument types, in-place on leaves, bad indices).
After each statement the program shows its result as a learner would look at it: the repr, shape, strides,
contiguity, dtype, ``grad_fn`` and its ``next_functions``, ``_version``, ``_base``, ``is_leaf``,
``requires_grad``, and the leaves' ``.grad`` after a backward. A statement that raises ends the program with
the exception's type and text; warnings are shown too.

The generator picks the arguments of each statement from the shapes and dtypes real torch gives the program
so far, so most programs run to the end. Both libraries then run the finished text and the outputs are
compared line by line (floats up to their last printed digit). The test runs a fixed-seed sample;
``python tests/ch02_graph/test_fuzz_programs_vs_torch.py SEED COUNT`` runs more and prints each difference.
What the fixed sample found was fixed; ``test_fuzz_regressions_vs_torch.py`` keeps each case.

Known differences a larger run still shows (about 1 program in 400): ``-0.`` against ``0.`` in a few products
and gradients, a double resize warning of comparison ops writing into an out of a third dtype, the deprecated
``add(Number alpha, Tensor other)`` overload, and ops picotorch does not have (``F.relu6``, ``F.mish``,
``F.logsigmoid``, ``t_``, ``transpose_``, ``unsqueeze_``, ``positive``) and inference tensors
(``inference_mode``), which the generator leaves out.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import sys
import warnings

import pytest

FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["int64", "int32", "int8", "uint8"]
DTYPES = FLOATS + INTS + ["bool"]

PRELUDE_NAMES = ("show", "grads")


def show(T, t):
    """Print what a learner looks at of ``t`` (a tensor, a tuple of them, or anything else)."""
    if isinstance(t, (tuple, list)) and t and all(isinstance(x, T.Tensor) for x in t):
        print(type(t).__name__, len(t))
        for x in t:
            show(T, x)
        return
    if not isinstance(t, T.Tensor):
        print(repr(t))
        return
    print(t)
    print("shape", tuple(t.shape), "stride", t.stride(), "contiguous", t.is_contiguous(), t.dtype)
    print("version", t._version, "view", t._base is not None, "leaf", t.is_leaf, "rg", t.requires_grad)
    fn = t.grad_fn
    print("grad_fn", fn)
    if fn is not None:
        print("next", [(None if n is None else n.name(), i) for n, i in fn.next_functions])


def grads(T, *leaves):
    for x in leaves:
        print("grad", x.grad)


# ---------------------------------------------------------------------------------------------- generator


class Gen:
    """Writes one program, statement by statement, running each on torch to learn the shapes it made."""

    def __init__(self, rng: random.Random, torch):
        self.r = rng
        self.torch = torch
        self.env = {"torch": torch, "F": torch.nn.functional,
                    "show": lambda t: None, "grads": lambda *a: None}
        self.lines: list[str] = []
        self.names = 0

    # ---- helpers
    def tensors(self):
        return [k for k, v in self.env.items() if isinstance(v, self.torch.Tensor)]

    def leaves(self):
        return [k for k in self.tensors() if self.env[k].is_leaf and self.env[k].requires_grad]

    def new(self):
        self.names += 1
        return f"v{self.names}"

    def pick(self, pred=lambda t: True):
        names = [k for k in self.tensors() if pred(self.env[k])]
        return self.r.choice(names) if names else None

    def run(self, line) -> bool:
        """Run ``line`` on torch; keep it. False when it raised (the program ends there)."""
        self.lines.append(line)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(line, self.env)
        except Exception:  # noqa: BLE001 - an error ends the program, as intended sometimes
            return False
        return True

    def dim(self, t, extra=0):
        n = t.dim()
        if n == 0:
            return self.r.choice([0, -1]) if self.r.random() < 0.7 else 1
        return self.r.randint(-n - extra, n - 1 + extra)

    def shape(self):
        return tuple(self.r.randint(1, 4) for _ in range(self.r.choice([0, 1, 1, 2, 2, 2, 3])))

    def values(self, shape, dtype):
        def one():
            if dtype == "bool":
                return self.r.choice(["True", "False"])
            if dtype in INTS:
                lo = 0 if dtype == "uint8" else -4
                return str(self.r.randint(lo, 5))
            return repr(self.r.choice([-2.5, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 0.1, -0.3]))

        def nest(s):
            if not s:
                return one()
            return "[" + ", ".join(nest(s[1:]) for _ in range(s[0])) + "]"
        return nest(shape)

    def scalar(self):
        return self.r.choice(["2", "-1", "0.5", "1.5", "True", "3", "-0.25", "0"])

    # ---- statements
    def create(self):
        r, name = self.r, self.new()
        dtype = r.choice(DTYPES + ["float32"] * 4)
        rg = dtype in FLOATS and r.random() < 0.55
        rg_s = ", requires_grad=True" if rg else ""
        if r.random() < 0.04:  # an integer tensor that asks for grad
            rg_s = ", requires_grad=True"
        shape = self.shape()
        kind = r.choice(["tensor"] * 5 + ["arange", "ones", "zeros", "full", "eye", "linspace"])
        if kind == "tensor":
            dt = "" if (r.random() < 0.25 and dtype in ("float32", "int64", "bool")) else f", dtype=torch.{dtype}"
            vals = self.values(shape, dtype)
            if not dt and dtype == "int64":
                rg_s = ""
            line = f"{name} = torch.tensor({vals}{dt}{rg_s})"
        elif kind == "arange":
            n = 1
            for s in shape:
                n *= s
            start = r.choice(["", "-2, ", "1, "])
            stop = n + (-2 if start == "-2, " else 1 if start == "1, " else 0)
            view = f".reshape{shape}" if len(shape) > 1 else ""
            dt = f", dtype=torch.{dtype}" if dtype != "bool" else ""
            line = f"{name} = torch.arange({start}{stop}{dt}){view}"
            if rg and not view:
                line += ".requires_grad_()"
        elif kind in ("ones", "zeros"):
            line = f"{name} = torch.{kind}({', '.join(map(str, shape)) or '()'}, dtype=torch.{dtype}{rg_s})"
        elif kind == "full":
            line = f"{name} = torch.full({shape}, {self.scalar()}, dtype=torch.{dtype}{rg_s})"
        elif kind == "eye":
            line = f"{name} = torch.eye({r.randint(1, 3)}{', ' + str(r.randint(1, 4)) if r.random() < 0.4 else ''}, " \
                   f"dtype=torch.{dtype}{rg_s})"
        else:
            dt = f", dtype=torch.{dtype}" if dtype in FLOATS else ""
            line = f"{name} = torch.linspace({r.choice([-1, 0, 0.5])}, {r.choice([1, 2, 3.5])}, " \
                   f"{r.randint(1, 5)}{dt}{rg_s if dt else ''})"
        return name, line

    def other_for(self, x):
        """A second operand for ``x``: an existing tensor, a fresh one of a broadcastable shape, or a scalar."""
        r = self.r
        c = r.random()
        if c < 0.3:
            return self.scalar()
        if c < 0.6:
            y = self.pick()
            if y is not None:
                return y
        t = self.env[x]
        shape = list(t.shape)
        # broadcastable variants: drop leading dims, set some to 1, add a leading dim; sometimes a mismatch
        if shape and r.random() < 0.4:
            shape = shape[r.randint(0, len(shape)):]
        shape = [1 if r.random() < 0.3 else s for s in shape]
        if r.random() < 0.15:
            shape = [r.randint(1, 3)] + shape
        if shape and r.random() < 0.08:
            shape[-1] += 1
        dtype = r.choice(DTYPES + [str(t.dtype).split(".")[1]] * 4)
        rg = ", requires_grad=True" if dtype in FLOATS and r.random() < 0.3 else ""
        return f"torch.tensor({self.values(tuple(shape), dtype)}, dtype=torch.{dtype}{rg})"

    def op(self):
        """One expression on existing tensors (as text)."""
        r = self.r
        x = self.pick()
        t = self.env[x]
        n = t.dim()
        d = self.dim(t)
        kind = r.choice(["unary"] * 3 + ["binary"] * 4 + ["inplace"] * 3 + ["reduce"] * 3 + ["shape"] * 4
                        + ["index"] * 3 + ["matmul", "act", "act", "compare", "convert", "out", "bad"])
        if kind == "unary":
            f = r.choice(["abs", "neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "floor",
                          "ceil", "round", "sign", "reciprocal", "square", "rsqrt", "trunc", "frac", "exp2",
                          "log1p", "expm1", "erf", "sinh", "asin", "atan", "logical_not", "bitwise_not",
                          "sgn", "isnan", "signbit"])
            return r.choice([f"{x}.{f}()", f"torch.{f}({x})", f"{x}.{f}_()" if r.random() < 0.3 else f"-{x}"])
        if kind == "binary":
            y = self.other_for(x)
            op = r.choice(["+", "-", "*", "/", "**", "//", "%", "&", "|", "^"] + ["+", "*", "-", "/"] * 2)
            form = r.random()
            if form < 0.5:
                return f"{x} {op} {y}"
            if form < 0.6:
                return f"{y} {op} {x}"
            f = r.choice(["add", "sub", "mul", "div", "pow", "maximum", "minimum", "remainder", "fmod",
                          "true_divide", "floor_divide", "atan2", "hypot", "logaddexp", "eq", "ne", "lt"])
            extra = ""
            if f in ("add", "sub") and r.random() < 0.3:
                extra = f", alpha={r.choice(['2', '0.5', 'True'])}"
            if f == "div" and r.random() < 0.3:
                extra = ", rounding_mode=" + r.choice(['"floor"', '"trunc"', 'None'])
            return r.choice([f"torch.{f}({x}, {y}{extra})", f"{x}.{f}({y}{extra})"])
        if kind == "inplace":
            y = self.other_for(x)
            f = r.choice(["add_", "sub_", "mul_", "div_", "pow_", "clamp_", "zero_", "fill_", "relu_",
                          "sigmoid_", "exp_", "neg_", "abs_", "copy_", "masked_fill_", "requires_grad_", "detach_"])
            if f in ("zero_", "relu_", "sigmoid_", "exp_", "neg_", "abs_", "detach_"):
                return f"{x}.{f}()"
            if f == "requires_grad_":
                return f"{x}.requires_grad_({r.choice(['', 'False', 'True'])})"
            if f == "fill_":
                return f"{x}.fill_({self.scalar()})"
            if f == "clamp_":
                return f"{x}.clamp_(min={self.scalar()})"
            if f == "masked_fill_":
                return f"{x}.masked_fill_({x} > 0, {self.scalar()})"
            if f == "copy_":
                return f"{x}.copy_({y})"
            op = {"add_": "+=", "sub_": "-=", "mul_": "*=", "div_": "/="}.get(f)
            if op and r.random() < 0.4:
                return f"STMT {x} {op} {y}"
            return f"{x}.{f}({y})"
        if kind == "reduce":
            f = r.choice(["sum", "mean", "max", "min", "argmax", "argmin", "prod", "std", "var", "norm",
                          "logsumexp", "amax", "all", "any", "cumsum", "nansum", "median"])
            kd = f", keepdim={r.choice(['True', 'False'])}" if r.random() < 0.4 else ""
            if f in ("cumsum", "logsumexp") or r.random() < 0.6:
                if f == "norm":
                    return f"{x}.norm(dim={d}{kd})"
                if f == "cumsum":
                    return f"{x}.cumsum({d})"
                if f in ("std", "var") and r.random() < 0.4:
                    return f"{x}.{f}({d}, correction={r.choice([0, 1, 2])}{kd})"
                return r.choice([f"{x}.{f}({d}{kd})", f"torch.{f}({x}, dim={d}{kd})"])
            return f"{x}.{f}()"
        if kind == "shape":
            return self.shape_op(x, t, n, d)
        if kind == "index":
            return self.index_op(x, t, n)
        if kind == "matmul":
            y = self.pick(lambda u: u.dim() >= 1)
            if y is None or r.random() < 0.5:
                k = t.shape[-1] if n else 2
                dt = r.choice([str(t.dtype).split(".")[1]] * 3 + DTYPES)
                shape = (k, r.randint(1, 3)) if r.random() < 0.7 else (k,)
                rg = ", requires_grad=True" if dt in FLOATS and r.random() < 0.4 else ""
                y = f"torch.tensor({self.values(shape, dt)}, dtype=torch.{dt}{rg})"
            f = r.choice(["@", "mm", "matmul", "bmm", "mv", "dot"])
            if f == "@":
                return f"{x} @ {y}"
            return r.choice([f"torch.{f}({x}, {y})", f"{x}.{f}({y})"])
        if kind == "act":
            f = r.choice(["relu", "gelu", "softmax", "log_softmax", "sigmoid", "tanh", "silu", "leaky_relu",
                          "elu", "softplus", "hardtanh", "normalize"])
            if f in ("softmax", "log_softmax"):
                dt = f", dtype=torch.{r.choice(FLOATS)}" if r.random() < 0.2 else ""
                return f"F.{f}({x}, dim={d}{dt})"
            if f == "leaky_relu":
                return f"F.leaky_relu({x}, {r.choice(['0.1', '0.2', '2'])})"
            if f == "gelu" and r.random() < 0.3:
                return f"F.gelu({x}, approximate='tanh')"
            if f == "normalize":
                return f"F.normalize({x}, dim={d})"
            if r.random() < 0.15:
                inplace = f in ("relu", "leaky_relu", "elu", "hardtanh", "silu")
                return f"F.{f}({x}, inplace=True)" if inplace else f"F.{f}({x})"
            return f"F.{f}({x})"
        if kind == "compare":
            y = self.other_for(x)
            c = r.choice(["cmp", "where", "where_s", "clamp", "clamp_t", "isclose", "eqm"])
            if c == "cmp":
                return f"{x} {r.choice(['>', '<', '==', '!=', '>=', '<='])} {y}"
            if c == "where":
                return f"torch.where({x} > 0, {x}, {y})"
            if c == "where_s":
                return f"torch.where({x} > 0, {self.scalar()}, {self.scalar()})"
            if c == "clamp":
                return f"{x}.clamp({r.choice(['min=', 'max=', ''])}{self.scalar()})"
            if c == "clamp_t":
                return f"torch.clamp({x}, {self.scalar()}, {self.scalar()})"
            if c == "isclose":
                return f"torch.isclose({x}, {y})"
            return f"torch.equal({x}, {x}.clone())"
        if kind == "convert":
            c = r.choice(["detach", "clone", "contiguous", "to", "float", "double", "half", "int", "long", "bool",
                          "bfloat16", "type", "item", "tolist", "numel", "size", "dim", "element_size"])
            if c == "to":
                return f"{x}.to({r.choice(['', 'dtype='])}torch.{r.choice(DTYPES)})"
            if c == "type":
                return f"{x}.type(torch.{r.choice(DTYPES)})"
            if c == "size":
                return f"{x}.size({self.dim(t)})" if r.random() < 0.5 else f"{x}.size()"
            return f"{x}.{c}()"
        if kind == "out":
            f = r.choice(["add", "mul", "sub", "sum", "exp", "matmul", "cat", "clamp"])
            dt = r.choice(DTYPES + [str(t.dtype).split(".")[1]] * 4)
            shape = tuple(t.shape) if r.random() < 0.6 else self.shape()
            o = self.new()
            self.pending = f"{o} = torch.empty({shape}, dtype=torch.{dt})"
            args = {"add": f"{x}, {self.other_for(x)}", "mul": f"{x}, {self.other_for(x)}",
                    "sub": f"{x}, {self.other_for(x)}", "sum": f"{x}, {d}", "exp": x,
                    "matmul": f"{x}, {x}.mT" if n >= 2 else f"{x}, {x}", "cat": f"[{x}, {x}]",
                    "clamp": f"{x}, 0"}[f]
            return f"torch.{f}({args}, out={o})", o
        return self.bad(x, t, n, d)

    def shape_op(self, x, t, n, d):
        r = self.r
        shape = tuple(t.shape)
        numel = t.numel()
        f = r.choice(["view", "reshape", "permute", "transpose", "t", "squeeze", "unsqueeze", "expand", "flatten",
                      "unflatten", "narrow", "select", "chunk", "split", "unbind", "stack", "cat", "mT", "T",
                      "view_as", "movedim", "repeat", "flip", "roll", "expand_as", "split_sizes", "tril"])
        if f in ("view", "reshape"):
            divs = [k for k in range(1, numel + 1) if numel % k == 0] or [1]
            k = r.choice(divs)
            new = r.choice([f"-1, {k}", f"{k}, -1", str(numel), "-1", f"{k}, {numel // k}" if numel else "0",
                            f"1, {numel}, 1", f"({numel},)"])
            return f"{x}.{f}({new})"
        if f == "permute":
            p = list(range(n))
            r.shuffle(p)
            return r.choice([f"{x}.permute({', '.join(map(str, p))})", f"torch.permute({x}, {tuple(p)})"])
        if f == "transpose":
            return f"{x}.transpose({self.dim(t)}, {self.dim(t)})"
        if f in ("t", "mT", "T"):
            return f"{x}.t()" if f == "t" else f"{x}.{f}"
        if f == "squeeze":
            return r.choice([f"{x}.squeeze()", f"{x}.squeeze({d})"])
        if f == "unsqueeze":
            return f"{x}.unsqueeze({self.dim(t, 1)})"
        if f in ("expand", "expand_as"):
            new = [s if s != 1 or r.random() < 0.5 else r.randint(2, 3) for s in shape]
            if r.random() < 0.3:
                new = [2] + new
            if r.random() < 0.3 and new:
                new[r.randrange(len(new))] = -1
            return f"{x}.expand({', '.join(map(str, new)) or '()'})"
        if f == "flatten":
            return r.choice([f"{x}.flatten()", f"{x}.flatten({d})", f"torch.flatten({x}, 0, {d})"])
        if f == "unflatten":
            s = shape[d] if n else 1
            return f"{x}.unflatten({d}, ({s}, 1))" if r.random() < 0.6 else f"{x}.unflatten({d}, (-1, 1))"
        if f == "narrow":
            s = shape[d] if n else 1
            start = r.randint(0, s)
            return f"{x}.narrow({d}, {start}, {r.randint(0, max(0, s - start))})"
        if f == "select":
            s = shape[d] if n else 1
            return f"{x}.select({d}, {r.randint(-s, max(s - 1, 0))})"
        if f in ("chunk", "split"):
            return f"{x}.{f}({r.randint(1, 3)}, {d})"
        if f == "split_sizes":
            s = shape[d] if n else 1
            a = r.randint(0, s)
            return f"{x}.split([{a}, {s - a}], {d})"
        if f == "unbind":
            return f"{x}.unbind({d})"
        if f in ("stack", "cat"):
            y = self.pick(lambda u: tuple(u.shape) == shape) or x
            return f"torch.{f}([{x}, {y}], {self.dim(t, 1 if f == 'stack' else 0)})"
        if f == "view_as":
            y = self.pick(lambda u: u.numel() == numel) or x
            return f"{x}.view_as({y})"
        if f == "movedim":
            return f"{x}.movedim({self.dim(t)}, {self.dim(t)})"
        if f == "repeat":
            reps = [r.randint(1, 2) for _ in range(n + r.randint(0, 1))]
            return f"{x}.repeat({', '.join(map(str, reps)) or '()'})"
        if f == "flip":
            return f"{x}.flip({d})"
        if f == "roll":
            return f"{x}.roll({r.randint(-2, 2)}, {d})"
        return f"{x}.tril()"

    def index_op(self, x, t, n):
        r = self.r
        shape = tuple(t.shape)

        def one(i):
            s = shape[i] if i < n else 1
            c = r.random()
            if c < 0.3:
                return str(r.randint(-s, s - 1)) if s and r.random() < 0.93 else str(s)
            if c < 0.6:
                a, b = r.randint(-s, s), r.randint(-s, s + 1)
                st = r.choice(["", "", ":2", ":-1"])
                return f"{a}:{b}{st}" if r.random() < 0.7 else ":"
            if c < 0.7:
                return "None"
            if c < 0.8:
                return "..."
            if c < 0.9:
                return f"torch.tensor({[r.randint(-s, max(s - 1, 0)) for _ in range(r.randint(0, 3))]})"
            return ":"
        c = r.random()
        if c < 0.1:
            idx = f"{x} > 0"
        elif c < 0.15:
            idx = f"torch.tensor({[r.choice([True, False]) for _ in range(shape[0] if n else 1)]})"
        else:
            idx = ", ".join(one(i) for i in range(r.randint(1, max(1, n))))
        if r.random() < 0.3:
            val = self.r.choice([self.scalar(), f"{x}[{idx}]" if r.random() < 0.3 else self.other_for(x)])
            return f"STMT {x}[{idx}] = {val}"
        return f"{x}[{idx}]"

    def bad(self, x, t, n, d):
        r = self.r
        return r.choice([
            f"{x}.sum('a')", f"{x}.view(2.5)", f"torch.add({x}, 'a')", f"{x}.reshape([1, 'a'])",
            f"{x}.permute(0)", f"{x}.transpose(0)", f"torch.cat({x})", f"{x}.view(-1, -1)", f"{x}[{n + 1}]",
            f"{x}.mT.view(-1)", f"{x}.narrow(0, 5, 2)", f"{x}.expand(5, 7)", f"torch.mm({x}, {x})",
            f"{x}.add({x}, {x})", f"{x}.mul(2, 3)", f"{x}.sum(dim=1.5)", f"torch.sum({x}, 'x')",
            f"{x}.softmax()", f"F.softmax({x})", f"{x}.view(torch.float32, 2)", f"{x}.unsqueeze({n + 2})",
            f"{x}.squeeze({n + 2})", f"{x}.clamp()", f"torch.where({x}, 1, 2)", f"{x}.max(1, 2, 3)",
            f"{x}.to('float')", f"{x}.flatten(2, 0)", f"torch.stack([{x}, {x}.flatten()])",
            f"{x}.repeat(1)", f"{x}.chunk(0)", f"{x}.split(0)", f"{x}.std(unbiased=2)",
            "torch.tensor([[1, 2], [3]])", "torch.tensor([1, 2], dtype='float')", f"{x}.requires_grad_(1)",
            f"{x}.backward()", "torch.ones(2, 3) @ torch.ones(2, 3)", f"{x}.float().backward()",
            f"{x}.argmax(dim=(0, 1))", f"{x}.sum(dtype=torch.int8)", f"{x}.new_tensor([1, 2])",
            f"{x}.exp_(2)", f"{x}.item()", f"{x}.tolist(1)", f"{x}[{x}]", f"{x}[0.5]", f"{x}[[0, 1]]",
        ])

    def graph_statement(self):
        """What chapter 02 does with a graph: no_grad, .grad of a non-leaf, retain_grad, detach, .data, a saved
        tensor changed in place before backward, backward twice."""
        r = self.r
        x = r.choice(self.leaves())
        grad_of = [k for k in self.tensors() if self.env[k].requires_grad]
        y = r.choice(grad_of)
        n = self.new()
        kind = r.choice(["no_grad", "grad", "retain", "detach", "data", "saved", "twice", "requires_grad_",
                         "enable_grad"])  # (inference_mode: picotorch has no inference tensors)
        if kind == "no_grad":
            return self.run(f"with torch.no_grad():\n    {n} = {x} * 2") and self.run(f"show({n})")
        if kind == "enable_grad":
            return self.run(f"with torch.no_grad():\n    with torch.enable_grad():\n        {n} = {x}.exp()") \
                and self.run(f"show({n})")
        if kind == "grad":
            return self.run(f"print({y}.grad)")
        if kind == "retain":
            return self.run(f"{y}.retain_grad()") and self.run(f"{y}.sum().backward(retain_graph=True)") \
                and self.run(f"print({y}.grad, {y}.retains_grad)")
        if kind == "detach":
            return self.run(f"{n} = {y}.detach()") and self.run(f"show({n})") \
                and self.run(f"print({n}._version, {y}._version, {n}.data_ptr() == {y}.data_ptr())")
        if kind == "data":
            return self.run(f"{n} = {y}.data") and self.run(f"show({n})")
        if kind == "requires_grad_":
            return self.run(f"{y}.requires_grad_({r.choice(['False', 'True'])})") and self.run(f"show({y})")
        if kind == "saved":
            h, z = n, self.new()
            op = r.choice(["exp", "sigmoid", "tanh", "pow(2)", "sin", "relu", "mul(h)"]).replace("(h)", f"({h})")
            return self.run(f"{h} = {x} * 1") and self.run(f"{z} = {h}.{op if '(' in op else op + '()'}") \
                and self.run(f"{h}.add_(1)") and self.run(f"show({z})") and self.run(f"{z}.sum().backward()")
        return self.run(f"{n} = {y}.sum()") and self.run(f"{n}.backward()") and self.run(f"{n}.backward()")

    def statement(self):
        """Append one statement (and the show of its result); False when it raised."""
        r = self.r
        c = r.random()
        if c < 0.12 or not self.tensors():
            name, line = self.create()
            return self.run(line) and self.run(f"show({name})")
        if 0.2 <= c < 0.26 and self.leaves():
            return self.graph_statement()
        if c < 0.2 and self.leaves():
            roots = [k for k in self.tensors() if self.env[k].requires_grad]
            y = r.choice(roots)
            leaves = self.leaves()
            retain = ", retain_graph=True" if r.random() < 0.3 else ""
            form = r.choice([f"{y}.sum().backward({retain[2:]})", f"{y}.backward(torch.ones_like({y}){retain})",
                             f"{y}.backward({retain[2:]})", f"torch.autograd.backward([{y}.sum()])"])
            return self.run(form) and self.run(f"grads({', '.join(leaves)})")
        self.pending = None
        expr = self.op()
        out = None
        if isinstance(expr, tuple):
            expr, out = expr
        if self.pending and not self.run(self.pending):
            return False
        if expr.startswith("STMT "):
            line = expr[5:]
            target = line.split("[")[0].split(" ")[0]
            return self.run(line) and self.run(f"show({target})")
        name = self.new()
        if not self.run(f"{name} = {expr}"):
            return False
        ok = self.run(f"show({name})")
        if ok and out is not None:
            ok = self.run(f"show({out})")
        if ok and r.random() < 0.2:
            ok = self.run(f"show({expr.split('.')[0].split('[')[0].split(' ')[0].split('(')[-1]})") \
                if expr[0] == "v" else True
        return ok


def generate(seed: int, torch) -> str:
    rng = random.Random(seed)
    g = Gen(rng, torch)
    for _ in range(rng.randint(1, 2)):
        name, line = g.create()
        if not (g.run(line) and g.run(f"show({name})")):
            return "\n".join(g.lines)
    for _ in range(rng.randint(2, 6)):
        if not g.statement():
            break
    return "\n".join(g.lines)


# ------------------------------------------------------------------------------------------------- runner

_ADDR = re.compile(r" at 0x[0-9a-f]+")


def run_program(text: str, T) -> list[str]:
    """The lines ``text`` prints with ``torch`` bound to ``T``: shows, warnings, and the error that ended it."""
    buf = io.StringIO()
    env = {"torch": T, "F": T.nn.functional, "show": lambda t: show(T, t), "grads": lambda *a: grads(T, *a)}
    with contextlib.redirect_stdout(buf), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(text, env)
        except Exception as err:  # noqa: BLE001 - the error is part of what a learner sees
            # (a C++ backtrace that some torch errors append to their text is no part of the comparison)
            print(f"RAISED {type(err).__name__}: {str(err).split(chr(10) + 'Exception raised from')[0]}")
    out = [_ADDR.sub(" at 0x?", line) for line in buf.getvalue().splitlines()]
    return out + [f"WARNING {w.category.__name__}: {w.message}" for w in caught
                  if not any(m in str(w.message) for m in _WARN_ONCE)]


# TORCH_WARN_ONCE warnings: the first program in the process that triggers one sees it (the generator's run on
# torch may have been that program); test_fuzz_regressions_vs_torch.py checks them in fresh interpreters.
_WARN_ONCE = ("deprecated on 0-D tensors", "The use of `x.T` on tensors", "where received a uint8 condition")


_NUM = re.compile(r"-?\d+\.\d*(?:e[+-]?\d+)?|-?\d+e[+-]?\d+")


def same_line(a: str, b: str) -> bool:
    """Equal, or equal but for floats that differ by rounding in the last printed digit."""
    if a == b:
        return True
    if _NUM.sub("#", a) != _NUM.sub("#", b):
        return False
    for x, y in zip(_NUM.findall(a), _NUM.findall(b)):
        fx, fy = float(x), float(y)
        if not (fx == fy or abs(fx - fy) <= 1e-3 * max(abs(fx), abs(fy)) + 1e-4):
            return False
    return True


def differences(text: str, ours, theirs) -> list[tuple[int, str, str]]:
    a, b = run_program(text, ours), run_program(text, theirs)
    out = [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if not same_line(x, y)]
    if len(a) != len(b):
        out.append((min(len(a), len(b)), "\n".join(a[len(b):]) or "<end>", "\n".join(b[len(a):]) or "<end>"))
    return out


# -------------------------------------------------------------------------------------------------- tests

SEEDS = range(200)


@pytest.fixture(scope="module")
def libs():
    import picotorch
    torch = pytest.importorskip("torch")
    return picotorch, torch


@pytest.mark.parametrize("chunk", range(5))
def test_random_programs_show_the_same(libs, chunk):
    picotorch, torch = libs
    failures = []
    for seed in SEEDS[chunk::5]:
        text = generate(seed, torch)
        diff = differences(text, picotorch, torch)
        if diff:
            failures.append(f"seed {seed}:\n{text}\n--- first difference (line {diff[0][0]}):\n"
                            f"picotorch: {diff[0][1]}\ntorch:     {diff[0][2]}")
    assert not failures, "\n\n".join(failures)


if __name__ == "__main__":
    import torch

    import picotorch
    start, count = int(sys.argv[1]), int(sys.argv[2])
    found = 0
    for seed in range(start, start + count):
        text = generate(seed, torch)
        diff = differences(text, picotorch, torch)
        if diff:
            found += 1
            i, x, y = diff[0]
            print(f"=== seed {seed}\n{text}\n--- line {i}\nP: {x}\nT: {y}\n", flush=True)
    print(f"{found} of {count} programs differ", file=sys.stderr)
