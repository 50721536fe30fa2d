"""Differential fuzzing of the autograd engine (chapters 02-04): random small programs, run on picotorch and
on PyTorch, must print the same lines.

``generate(seed)`` writes the text of a program that uses only the name ``torch`` and a few printing helpers
(``P``, ``graph``, ``saved``). It builds a graph from a few leaves (shared subexpressions, views, in-place ops,
custom ``autograd.Function``s of many kinds), registers hooks of every kind (each prints a label, so the order
in which they fire is compared), and runs backward/``autograd.grad`` in random combinations, printing
gradients, grad_fn names, next_functions and ``_saved_*`` attributes; each step runs in ``try`` and prints the
exception type and message it raised. ``run(lib, source)`` executes it with ``torch`` bound to ``lib``.

Floats print as ``%.4e`` and ``same_lines`` lets them differ in the last printed digit.

Run as a script for a long campaign (one process per library)::

    python tests/engine_fuzz.py 0 3000      # seeds 0..2999; prints each program whose output differs
"""

from __future__ import annotations

import json
import math
import random
import re
import subprocess
import sys
import warnings
from pathlib import Path

# ---------------------------------------------------------------------------------------------------------
# Helpers the programs call (the same functions for both libraries).


def _num(v) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if math.isnan(v) or math.isinf(v):
        return str(v)
    return "%.4e" % v


def fmt(x) -> str:
    """A tensor as shape, values, requires_grad and grad_fn name; tuples and lists element-wise."""
    if x is None:
        return "None"
    if isinstance(x, tuple):
        return "(" + ", ".join(fmt(v) for v in x) + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, list):
        return "[" + ", ".join(fmt(v) for v in x) + "]"
    if hasattr(x, "grad_fn") and hasattr(x, "detach"):
        vals = " ".join(_num(v) for v in x.detach().reshape(-1).tolist())
        text = f"T{list(x.shape)}[{vals}]"
        if x.requires_grad:
            text += " rg"
        if x.grad_fn is not None:
            text += " " + x.grad_fn.name()
        return text
    if isinstance(x, float):
        return _num(x)
    if hasattr(x, "name") and hasattr(x, "next_functions"):
        return "<" + x.name() + ">"
    return repr(x)


def graph(t) -> str:
    """The graph below a tensor or node: breadth-first numbered nodes, their names and edges."""
    root = getattr(t, "grad_fn", t) if hasattr(t, "detach") else t
    if root is None:
        return "no-graph"
    ids, order, parts = {}, [root], []
    ids[id(root)] = 0
    i = 0
    while i < len(order):
        node = order[i]
        i += 1
        edges = []
        for fn, nr in node.next_functions:
            if fn is None:
                edges.append(f"None:{nr}")
                continue
            if id(fn) not in ids:
                ids[id(fn)] = len(order)
                order.append(fn)
            edges.append(f"{ids[id(fn)]}:{nr}")
        parts.append(f"{ids[id(node)]}={type(node).__name__}/{node.name()}({' '.join(edges)})")
    return " ".join(parts)


def saved(node) -> str:
    """A node's ``_saved_*`` attributes (names from ``dir``) and their values (or what reading them raised)."""
    if node is None:
        return "no-node"
    out = []
    for name in sorted(a for a in dir(node) if a.startswith("_saved_")):
        try:
            out.append(f"{name}={fmt(getattr(node, name))}")
        except Exception as err:  # reading a freed buffer raises; the text is compared
            out.append(f"{name}!{type(err).__name__}: {err}")
    return " ".join(out) or "nothing-saved"


# TORCH_WARN_ONCE warnings: once per process, so whether a program shows one depends on what ran before it
# (test_fuzz_regressions_vs_torch.py checks them in fresh processes).
WARN_ONCE = ("Using backward() with create_graph=True",)


def run(lib, source: str) -> list[str]:
    """Execute ``source`` with ``torch`` bound to ``lib``; the lines it printed (and warnings, uncaught errors)."""
    lines: list[str] = []

    def P(*args):
        lines.append(" ".join(a if isinstance(a, str) else fmt(a) for a in args))

    def show(message, category, *rest, **kw):
        if not str(message).startswith(WARN_ONCE):
            lines.append(f"WARN {category.__name__}: {message}")

    env = {"torch": lib, "P": P, "graph": graph, "saved": saved, "fmt": fmt, "__name__": "fuzzprog"}
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        try:
            exec(compile(source, "<fuzz>", "exec"), env)
        except Exception as err:  # a step outside try: part of the observed behaviour
            lines.append(f"TOPERR {type(err).__name__}: {err}")
    lib.set_grad_enabled(True)
    return lines


_FLOAT = re.compile(r"-?\d\.\d+e[+-]\d+")


def same_line(a: str, b: str) -> bool:
    if a == b:
        return True
    if _FLOAT.sub("#", a) != _FLOAT.sub("#", b):
        return False
    for x, y in zip(_FLOAT.findall(a), _FLOAT.findall(b)):
        fx, fy = float(x), float(y)
        if abs(fx - fy) > 1e-4 + 2e-3 * max(abs(fx), abs(fy)):
            return False
    return True


def same_lines(ours: list[str], theirs: list[str]) -> bool:
    return len(ours) == len(theirs) and all(same_line(a, b) for a, b in zip(ours, theirs))


def first_difference(ours: list[str], theirs: list[str]) -> str:
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if not same_line(a, b):
            return f"line {i}:\n  picotorch: {a}\n  torch:     {b}"
    return f"lengths {len(ours)} vs {len(theirs)}: extra {(ours + theirs)[min(len(ours), len(theirs))]}"


# ---------------------------------------------------------------------------------------------------------
# The generator.

UNARY = ["{a}.exp()", "{a}.tanh()", "{a}.sigmoid()", "{a}.sin()", "{a} * 2", "{a} ** 2", "{a}.pow(3)", "-{a}",
         "{a}.relu()", "{a}.t()", "{a}.reshape(4).view(2, 2)", "{a}.clone()", "{a}.abs()", "{a}.cos()",
         "{a}[0].unsqueeze(0).expand(2, 2)", "{a}.sum(0, keepdim=True).expand(2, 2)", "{a}.mean() * {a}",
         "{a}.view_as({a})", "{a}.transpose(0, 1).contiguous()", "{a}.flip(0)", "{a}.exp().log()",
         "{a}.unbind(0)[1].expand(2, 2)", "{a}.split(1)[0].expand(2, 2)", "{a}.narrow(1, 0, 1).expand(2, 2)"]
BINARY = ["{a} + {b}", "{a} * {b}", "{a} - {b}", "{a} / ({b} * {b} + 1)", "{a}.add({b}, alpha=2)",
          "torch.where({a} > 1, {a}, {b})", "{a} @ {b}", "torch.stack([{a}[0], {b}[1]])",
          "torch.cat([{a}[:1], {b}[1:]])", "{a}.sum() + {b}", "torch.maximum({a}, {b})", "{a}.mul({b}).sub({a})"]
INPLACE = ["{v} = {a}.clone()\n{v}.mul_(2)", "{v} = {a} * 1\n{v}.add_({b})", "{v} = {a} + 0\n{v}[0].mul_(3)",
           "{v} = {a}.exp()\n{v}.add_(1)", "{v} = {a}.sigmoid()\n{v}.mul_({b})", "{v} = {a}.clone()\n{v}.t().mul_(2)",
           "{v} = {a} * 1\n{v}.view(4)[1:].zero_()", "{v} = {a} * {b}\n{a}.add_(1) if not {a}.is_leaf else None",
           "{v} = {a}.clone()\n{v}.copy_({b})", "{v} = {a}.tanh()\nwith torch.no_grad():\n    {v}.mul_(2)"]
ROOTS = ["{a}.sum()", "({a} * {b}).sum()", "{a}.mean()", "{a}.pow(2).sum()", "{a}[0, 1]", "{a}.norm()",
         "({a} + {b}).prod()", "{a}.max()", "{a}.sum() * {b}.sum()"]


class _Gen:
    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.out: list[str] = []
        self.leaves: list[str] = []
        self.consts: list[str] = []
        self.vals: list[str] = []
        self.roots: list[str] = []
        self.handles: list[str] = []
        self.n = 0

    # -- text helpers
    def name(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def emit(self, text: str, indent: int = 0) -> None:
        for line in text.split("\n"):
            self.out.append("    " * indent + line)

    def block(self, body: list[str]) -> None:
        """``body`` inside try/except printing the error."""
        self.emit("try:")
        for line in body:
            self.emit(line, 1)
        self.emit("except Exception as e:\n    P('ERR', type(e).__name__, str(e))")

    def pick(self, seq):
        return self.r.choice(seq)

    def tensor_lit(self) -> str:
        vals = [round(self.r.uniform(-2, 2), 1) or 0.5 for _ in range(4)]
        return f"[[{vals[0]}, {vals[1]}], [{vals[2]}, {vals[3]}]]"

    def any_tensor(self) -> str:
        return self.pick(self.leaves + self.vals)

    # -- sections
    def make_leaves(self) -> None:
        for _ in range(self.r.randint(1, 3)):
            x = self.name("x")
            self.emit(f"{x} = torch.tensor({self.tensor_lit()}, requires_grad=True)")
            self.leaves.append(x)
        extra = self.r.random()
        if extra < 0.15:
            s = self.name("s")
            self.emit(f"{s} = torch.tensor({round(self.r.uniform(0.5, 2), 1)}, requires_grad=True)")
            self.leaves.append(s)
        elif extra < 0.3:
            w = self.name("w")
            self.emit(f"{w} = torch.tensor([{round(self.r.uniform(-2, 2), 1)}, 0.5], requires_grad=True)")
            self.leaves.append(w)
        elif extra < 0.4:
            d = self.name("d")
            self.emit(f"{d} = torch.tensor({self.tensor_lit()}, dtype=torch.float64, requires_grad=True)")
            self.leaves.append(d)
        if self.r.random() < 0.5:
            c = self.name("c")
            self.emit(f"{c} = torch.tensor({self.tensor_lit()})")
            self.consts.append(c)

    def make_value(self) -> None:
        v = self.name("v")
        pool = self.leaves + self.vals + self.consts
        a, b = self.pick(self.leaves + self.vals), self.pick(pool)
        kind = self.r.random()
        if kind < 0.45:
            text = f"{v} = " + self.pick(UNARY).format(a=a)
        elif kind < 0.85:
            text = f"{v} = " + self.pick(BINARY).format(a=a, b=b)
        else:
            text = self.pick(INPLACE).format(v=v, a=a, b=b)
        self.block(text.split("\n") + [f"P('{v}', {v})"] + ([f"P('graph {v}', graph({v}))"]
                                                              if self.r.random() < 0.5 else []))
        self.vals.append(v)
        if self.r.random() < 0.25:
            self.block([f"P('saved {v}', saved({v}.grad_fn))"])

    def make_root(self) -> None:
        r = self.name("r")
        a, b = self.pick(self.leaves + self.vals), self.pick(self.leaves + self.vals + self.consts)
        self.block([f"{r} = " + self.pick(ROOTS).format(a=a, b=b), f"P('{r}', {r})"])
        self.roots.append(r)

    def hook_fn(self, kind: str) -> str:
        h = self.name("h")
        if kind == "tensor":
            ret = self.pick(["None", "g * 2", "g + 1", "g.clone()", "None", "None"])
            self.emit(f"def {h}(g):\n    P('{h}', g)\n    return {ret}")
        elif kind == "raise":
            self.emit(f"def {h}(g):\n    P('{h}', g)\n    raise ValueError('boom {h}')")
        elif kind == "pre":
            ret = self.pick(["None", "None", "tuple(None if g is None else g * 2 for g in gos)"])
            self.emit(f"def {h}(gos):\n    P('{h}', gos)\n    return {ret}")
        elif kind == "post":
            ret = self.pick(["None", "None", "tuple(None if g is None else g * 3 for g in gis)"])
            self.emit(f"def {h}(gis, gos):\n    P('{h}', gis, gos)\n    return {ret}")
        elif kind == "postacc":
            self.emit(f"def {h}(p):\n    P('{h}', p.grad)")
        elif kind == "multi_all":
            self.emit(f"def {h}(grads):\n    P('{h}', list(grads))")
        else:  # multi_any
            self.emit(f"def {h}(g):\n    P('{h}', g)")
        return h

    def make_hook(self) -> None:
        kind = self.pick(["tensor", "tensor", "retain", "pre", "post", "postacc", "multi", "acc", "remove",
                          "raise"])
        hd = self.name("hd")
        t = self.any_tensor()
        if kind == "tensor":
            h = self.hook_fn("tensor")
            self.block([f"{hd} = {t}.register_hook({h})"])
        elif kind == "raise":
            h = self.hook_fn("raise")
            self.block([f"{hd} = {t}.register_hook({h})"])
        elif kind == "retain":
            self.block([f"{t}.retain_grad()"])
            return
        elif kind in ("pre", "post"):
            h = self.hook_fn(kind)
            method = "register_prehook" if kind == "pre" else "register_hook"
            self.block([f"{hd} = {t}.grad_fn.{method}({h})"])
        elif kind == "acc":
            which = self.pick(["pre", "post"])
            h = self.hook_fn(which)
            x = self.pick(self.leaves)
            acc = self.name("acc")
            self.block([f"{acc} = {x}.view_as({x}).grad_fn.next_functions[0][0]",
                        f"P('{acc}', {acc}.name(), {acc}.variable is {x})"])
            method = "register_prehook" if which == "pre" else "register_hook"
            self.block([f"{hd} = {acc}.{method}({h})"])
        elif kind == "postacc":
            h = self.hook_fn("postacc")
            self.block([f"{hd} = {self.pick(self.leaves + self.vals[:1])}.register_post_accumulate_grad_hook({h})"])
        elif kind == "multi":
            mode = self.pick(["all", "any"])
            h = self.hook_fn("multi_" + mode)
            ts = self.r.sample(self.leaves + self.vals, min(len(self.leaves + self.vals), self.r.randint(1, 3)))
            self.block([f"{hd} = torch.autograd.graph.register_multi_grad_hook(({', '.join(ts)},), {h}, "
                        f"mode='{mode}')"])
        else:
            if self.handles:
                self.block([f"{self.pick(self.handles)}.remove()"])
            return
        self.handles.append(hd)

    def make_function(self) -> None:
        """A custom autograd.Function class with random features, then applied."""
        f = self.name("F")
        r = self.r
        style = self.pick(["classic", "setup"])
        n_in = r.randint(1, 2)
        second_int = n_in == 2 and r.random() < 0.3
        dirty = n_in == 1 and r.random() < 0.2
        n_out = 1 if dirty else r.randint(1, 2)
        nondiff = n_out == 2 and r.random() < 0.4
        nomat = r.random() < 0.3
        once = r.random() < 0.25
        save_out = not dirty and r.random() < 0.3
        extra_nontensor = n_out == 1 and not dirty and r.random() < 0.15
        args = ["a", "b"][:n_in]
        self.emit(f"class {f}(torch.autograd.Function):")
        self.emit("@staticmethod", 1)
        fwd_args = ", ".join(args)
        body = []
        if dirty:
            body += ["a.mul_(2)"]
            outs = ["a"]
        else:
            b = "b" if n_in == 2 and not second_int else "1.5"
            k = "b" if second_int else "2"
            outs = [self.pick([f"a * {b}", f"a.exp() * {k}", f"a * {k}"]), self.pick(["a + 1", f"a * {b} - 1"])]
            outs = outs[:n_out]
            body += [f"o{i} = {o}" for i, o in enumerate(outs)]
            outs = [f"o{i}" for i in range(n_out)]
        ret = ", ".join(outs) + (", 7" if extra_nontensor else "")
        ctx_lines = []
        to_save = ["a"] if not dirty else []
        if n_in == 2 and not second_int and r.random() < 0.5:
            to_save.append("b")
        if save_out:
            to_save.append("o0")
        ctx_lines.append(f"ctx.save_for_backward({', '.join(to_save)})")
        if dirty:
            ctx_lines.append("ctx.mark_dirty(a)")
        if nondiff:
            ctx_lines.append("ctx.mark_non_differentiable(o1)")
        if nomat:
            ctx_lines.append("ctx.set_materialize_grads(False)")
        ctx_lines.append("ctx.k = 3")
        if style == "classic":
            self.emit(f"def forward(ctx, {fwd_args}):", 1)
            for line in body + ctx_lines:
                self.emit(line, 2)
            self.emit(f"return {ret}", 2)
        else:
            self.emit(f"def forward({fwd_args}):", 1)
            for line in body:
                self.emit(line, 2)
            self.emit(f"return {ret}", 2)
            self.emit("@staticmethod", 1)
            self.emit("def setup_context(ctx, inputs, output):", 1)
            self.emit(f"{fwd_args}, = inputs", 2)
            outs_unpack = ", ".join(outs) + (", _" if extra_nontensor else "")
            self.emit(f"{outs_unpack}, = output" if (n_out > 1 or extra_nontensor) else f"{outs[0]} = output", 2)
            for line in ctx_lines:
                self.emit(line, 2)
        self.emit("@staticmethod", 1)
        if once:
            self.emit("@torch.autograd.function.once_differentiable", 1)
        gs = [f"g{i}" for i in range(n_out)] + (["g_extra"] if extra_nontensor else [])
        self.emit(f"def backward(ctx, {', '.join(gs)}):", 1)
        self.emit(f"P('{f}.backward', ctx.needs_input_grad, {', '.join(gs)})", 2)
        self.emit("saved_ = ctx.saved_tensors", 2)
        self.emit(f"P('{f}.saved', len(saved_), ctx.k)", 2)
        g = "g0" if not (nomat and n_out == 1) else "(g0 if g0 is not None else 0)"
        if n_out == 2 and not nondiff:
            g = "(g0 if g0 is not None else 0) + (g1 if g1 is not None else 0)" if nomat else "g0 + g1"
        grads = [f"{g} * 2", "None" if second_int else f"{g} * 1.5"][:n_in]
        choice = r.random()
        if choice < 0.08:
            grads = grads + ["None"]
        elif choice < 0.14:
            grads = grads + ["g0"]
        elif choice < 0.2 and n_in == 2:
            grads = grads[:1]
        elif choice < 0.26:
            grads[0] = f"({g}).sum()"
        elif choice < 0.3:
            grads[0] = "None"
        elif choice < 0.33:
            grads[0] = "3.0"
        elif choice < 0.36:
            grads[0] = f"({g}).double()"
        elif choice < 0.39:
            grads[0] = f"({g}).reshape(4)"
        if len(grads) == 1 and r.random() < 0.5:
            self.emit(f"return {grads[0]}", 2)
        else:
            self.emit(f"return {', '.join(grads)}" + ("," if len(grads) == 1 else ""), 2)
        # apply
        x = self.pick(self.leaves + self.vals)
        if dirty and r.random() < 0.8:
            x = f"{x} * 1"
        call_args = [x] + ([("3" if second_int else self.pick(self.leaves + self.vals + self.consts))]
                           if n_in == 2 else [])
        o = self.name("o")
        lhs = o if (n_out == 1 and not extra_nontensor) else (f"{o}, {o}b" if n_out == 2 else f"{o}, {o}k")
        self.block([f"{lhs} = {f}.apply({', '.join(call_args)})", f"P('{o}', {o}, graph({o}))"]
                   + ([f"P('{o}b', {o}b)"] if n_out == 2 else []) + ([f"P('{o}k', {o}k)"] if extra_nontensor else [])
                   + [f"P('{o}.grad_fn', type({o}.grad_fn).__name__, saved({o}.grad_fn))"])
        self.vals.append(o)
        if n_out == 2:
            self.vals.append(f"{o}b")

    def show_grads(self) -> None:
        lines = [f"P('{x}.grad', {x}.grad)" for x in self.leaves]
        lines += [f"P('{v}.grad', {v}.grad) if {v}.retains_grad or {v}.is_leaf else None"
                  for v in self.r.sample(self.vals, min(3, len(self.vals)))]
        self.block(lines)

    def make_backward(self) -> None:
        r = self.r
        kind = r.random()
        roots = self.roots or [f"{self.any_tensor()}.sum()"]
        root = self.pick(roots)
        rg = self.pick(["", "", ", retain_graph=True", ", retain_graph=False"])
        if kind < 0.3:
            self.block([f"{root}.backward({rg[2:]})"])
        elif kind < 0.45:
            ins = r.sample(self.leaves + self.vals, r.randint(1, min(3, len(self.leaves + self.vals))))
            self.block([f"{root}.backward(inputs=[{', '.join(ins)}]{rg})"] +
                       [f"P('{i}.grad', {i}.grad)" for i in ins])
        elif kind < 0.55:
            rs = r.sample(roots, min(len(roots), 2))
            gt = ", ".join(self.pick(["None", "torch.tensor(2.)", "torch.ones(())"]) for _ in rs)
            self.block([f"torch.autograd.backward([{', '.join(rs)}], grad_tensors=[{gt}]{rg})"])
        elif kind < 0.85:
            ins = r.sample(self.leaves + self.vals + self.consts,
                           r.randint(1, min(3, len(self.leaves + self.vals + self.consts))))
            outs = root if r.random() < 0.6 else f"[{', '.join(r.sample(roots, min(2, len(roots))))}]"
            opts = rg
            for opt in ("allow_unused", "materialize_grads", "create_graph"):
                if r.random() < 0.35:
                    opts += f", {opt}={self.pick(['True', 'False'])}"
            if r.random() < 0.2 and not outs.startswith("["):
                opts += ", grad_outputs=" + self.pick(["torch.tensor(3.)", "torch.ones(2)", "None",
                                                        "[torch.tensor(2.)]"])
            gs = self.name("gs")
            lines = [f"{gs} = torch.autograd.grad({outs}, [{', '.join(ins)}]{opts})", f"P('{gs}', {gs})"]
            if "create_graph=True" in opts:
                lines += [f"P('graph {gs}', [graph(g) for g in {gs} if g is not None])",
                          f"P('saved {gs}', [saved(g.grad_fn) for g in {gs} if g is not None])",
                          f"gg = torch.autograd.grad(sum(g.sum() for g in {gs} if g is not None and g.requires_grad),"
                          f" [{', '.join(self.leaves)}], allow_unused=True)",
                          "P('gg', gg)"]
            self.block(lines)
        else:
            v = self.pick(self.vals) if self.vals else self.pick(self.leaves)
            go = self.pick(["", "torch.ones(2, 2)", "torch.ones(4)", "torch.ones(2, 1)", "torch.tensor(1.)",
                            "torch.ones(2, 2, dtype=torch.float64)", "torch.ones(2, 2, requires_grad=True)"])
            if r.random() < 0.5:
                self.block([f"{v}.backward({go}{rg if go else rg[2:]})"])
            else:
                x = self.pick(self.leaves)
                self.block([f"P('nonscalar', torch.autograd.grad({v}, {x}, grad_outputs={go or 'None'}{rg},"
                            " allow_unused=True))"])
        self.show_grads()
        if r.random() < 0.3:
            self.emit(f"{self.pick(self.leaves)}.grad = None")

    def make_error_case(self) -> None:
        x = self.pick(self.leaves)
        c = self.consts[0] if self.consts else "torch.ones(2, 2)"
        cases = [
            [f"e = ({x} * {x}).sum()", "e.backward()", "e.backward()"],
            [f"y = {x} * 1", "z = y * y", "y.add_(1)", "z.sum().backward()"],
            [f"({x} * 2).backward()"],
            [f"torch.autograd.grad({c}.sum(), {c})"],
            [f"torch.autograd.grad(({x} * 2).sum(), [{x}, {self.pick(self.leaves + self.vals)}])"],
            [f"{x}.mul_(2)"],
            [f"torch.autograd.grad(({x} * 2).sum(), {x}, materialize_grads=True, allow_unused=False)"],
            [f"({x} * 2).sum().backward(inputs=[])"],
            [f"({x} * 2).sum().backward(inputs=[{c}])"],
            [f"{c}.sum().backward()"],
            [f"torch.autograd.grad(({x} * 2).sum(), [])"],
            [f"e = {x}.exp()", "e.sum().backward(retain_graph=True)", "e.grad_fn._saved_result.add_(1)",
             "e.sum().backward()"],
            [f"e = {x}.exp()", "e.sum().backward()", "P('saved after', saved(e.grad_fn))"],
            [f"e = ({x} * {x}).sum()", "with torch.no_grad():", "    e2 = e * 2", "e2.backward()"],
            [f"torch.autograd.grad(({x} * 2).sum(), {x}.detach())"],
            [f"e = {x}.sigmoid()", f"d = torch.autograd.grad(e.sum(), {x}, create_graph=True)[0]",
             "P('d', d, graph(d))", f"P('dd', torch.autograd.grad(d.sum(), {x}))",
             f"P('dd2', torch.autograd.grad(d.sum(), {x}))"],
            [f"{x}.register_hook(lambda g: g.sum())", f"({x} * 2).sum().backward()"],
            [f"{x}.register_hook(lambda g: 3)", f"({x} * 2).sum().backward()"],
            [f"{c}.register_hook(lambda g: g)"],
            [f"({x} * 2).requires_grad_(False)"],
            [f"e = {x} * 2", "e.detach_()", "P('detached', e, e.is_leaf)"],
            [f"v = {x}[0]", "v.detach_()"],
            [f"{x}.grad = torch.ones(3)"],
            [f"{x}.grad = torch.ones(2, 2, dtype=torch.float64)"],
            [f"{x}.grad = torch.ones(2, 2)", f"({x} * 3).sum().backward()", f"P('acc', {x}.grad)"],
            [f"({x} * {x}).sum().backward(create_graph=True)", f"P('cg', {x}.grad, graph({x}.grad))",
             f"{x}.grad = None"],
            [f"e = {x}.exp()", "e.retain_grad()", "e.retain_grad()", "P(e.retains_grad)",
             "e.sum().backward()", "P('e.grad', e.grad)"],
            [f"{x}.retain_grad()", f"P({x}.retains_grad)"],
            [f"e = {x} * 2", "h = e.register_hook(lambda g: P('hook e', g))", "h.remove()", "h.remove()",
             "e.sum().backward()"],
            [f"e = {x} * 2", "e.register_hook(lambda g: P('first', g) or g * 10)",
             "e.register_hook(lambda g: P('second', g))", "e.retain_grad()",
             "e.register_hook(lambda g: P('third', g) or g + 1)", "e.sum().backward()",
             f"P('e.grad', e.grad, {x}.grad)", f"{x}.grad = None"],
            [f"e = {x}.sum()", "e.grad_fn.register_prehook(lambda gos: (gos[0], gos[0]))", "e.backward()"],
            [f"e = {x}.sum()", "e.grad_fn.register_hook(lambda gis, gos: (gis[0], gis[0]))", "e.backward()"],
            [f"e = {x}.sum()", "e.grad_fn.register_prehook(lambda gos: 5)", "e.backward()"],
            [f"e = {x} * 2", "e.grad_fn.register_hook(lambda gis, gos: (gis[0].sum(),))", "e.sum().backward()"],
            [f"e = {x} * 2", "with torch.no_grad():", "    f = e * 3",
             "P(f.requires_grad, f.grad_fn, e.requires_grad)"],
            [f"e = ({x} * 2).sum()", "hs = torch.autograd.graph.register_multi_grad_hook("
             f"({x}, {c}), lambda gs: P('multi', list(gs)))"],
            [f"e = ({x} * 2).sum()", f"y = {x} * 5",
             f"torch.autograd.graph.register_multi_grad_hook(({x}, y), lambda gs: P('multi', list(gs)))",
             "e.backward()", "P('again')", "(y.sum() + e.detach()).backward()"],
            [f"e = ({x} * 2).sum()", f"y = {x} * 5",
             f"torch.autograd.graph.register_multi_grad_hook(({x}, y), lambda g: P('any', g), mode='any')",
             "e.backward()", "y.sum().backward()"],
            [f"e = {x}.exp()", f"P(torch.autograd.grad(e.sum(), {x}, create_graph=True, retain_graph=False))",
             "e.sum().backward()"],
            [f"e = {x}.pow(2)", f"g, = torch.autograd.grad(e.sum(), {x}, create_graph=True)",
             "P(graph(g), saved(g.grad_fn))", f"g2, = torch.autograd.grad(g.sum(), {x}, create_graph=True)",
             "P(g2, graph(g2))", f"P(torch.autograd.grad(g2.sum(), {x}, allow_unused=True))"],
        ]
        fn_cases = [
            ["return a", "return g"],
            ["ctx.save_for_backward(a, 3)\n        return a * 2", "return g"],
            ["ctx.save_for_backward(a)\n        return a * 2",
             "P(len(ctx.saved_tensors), len(ctx.saved_tensors))\n        return g"],
            ["ctx.mark_dirty(a)\n        return a * 2", "return g"],
            ["b = a.view_as(a)\n        return b", "return g * 2"],
            ["ctx.mark_non_differentiable(a)\n        return a * 2", "return g"],
            ["return a * 2, None", "P('grads', g)\n        return g"],
            ["return (a * 2).detach()", "return g"],
            ["ctx.save_for_backward(a)\n        return a.exp()",
             "a, = ctx.saved_tensors\n        return g * a.exp()"],
            ["ctx.x = a\n        return a * 2", "return g * ctx.x"],
            ["with torch.enable_grad():\n            b = a * 2\n        P('inner', b.requires_grad)\n"
             "        return b.detach()", "return g"],
        ]
        fwd, bwd = self.pick(fn_cases)
        self.emit("class G(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a):\n"
                  f"        {fwd}\n    @staticmethod\n    def backward(ctx, g, *rest):\n        {bwd}")
        src = self.pick([f"{x}", f"{x} * 1", f"{x}.detach()"])
        self.block([f"o = G.apply({src})", "P('G', o, graph(o) if isinstance(o, type(" + x + ")) else o)",
                    "ob = o[0] if isinstance(o, tuple) else o",
                    f"P('G grad', torch.autograd.grad(ob.sum(), {x}, allow_unused=True, create_graph=True))",
                    "P('G saved', len(ob.grad_fn._raw_saved_tensors) if ob.grad_fn is not None and "
                    "hasattr(ob.grad_fn, '_raw_saved_tensors') else 'none', "
                    "ob.grad_fn.saved_tensors if ob.grad_fn is not None and "
                    "hasattr(ob.grad_fn, 'saved_tensors') else 'none')"])
        if self.r.random() < 0.5:
            self.block(self.pick(cases))

    def make_misc(self) -> None:
        """Hooks and retain_grad around views and in-place ops, hooks that change gradients in place or remove
        other hooks."""
        x, v = self.pick(self.leaves), self.pick(self.vals) if self.vals else self.pick(self.leaves)
        cases = [
            [f"m = {x} * 1", "w = m[0]", "w.retain_grad()", "w.register_hook(lambda g: P('view hook', g))",
             "m.register_hook(lambda g: P('base hook', g))", "w.mul_(2)", "P(graph(m), graph(w))",
             "m.sum().backward()", f"P('grads', w.grad, {x}.grad)"],
            [f"m = {x} * 1", "m.retain_grad()", "m.register_hook(lambda g: P('before', g))", "m.add_(1)",
             "m.register_hook(lambda g: P('after', g))", "(m * m).sum().backward()", "P('m.grad', m.grad)"],
            [f"m = {x}.exp()", "m.register_hook(lambda g: g.mul_(2))", "m.retain_grad()",
             f"m.sum().backward(inputs=[m, {x}])", f"P('m', m.grad, {x}.grad)"],
            [f"m = {x} * 2", "hs = []",
             "hs.append(m.register_hook(lambda g: P('first') or hs[1].remove()))",
             "hs.append(m.register_hook(lambda g: P('second')))", "m.sum().backward(retain_graph=True)",
             "m.sum().backward()"],
            [f"m = {v} * 2", "m.grad_fn.register_prehook(lambda gos: P('pre', gos))",
             "m.grad_fn.register_hook(lambda gis, gos: P('post', gis, gos))",
             "m.register_hook(lambda g: P('tensor', g) or g * 0.5)", "m.retain_grad()",
             "P(torch.autograd.grad(m.sum(), [m], retain_graph=True))", "m.sum().backward(retain_graph=True)",
             "P('m.grad', m.grad)"],
            [f"acc = {x}.view_as({x}).grad_fn.next_functions[0][0]",
             "acc.register_prehook(lambda gos: P('acc pre', gos) or (gos[0] * 10,))",
             f"{x}.register_hook(lambda g: P('leaf hook', g) or g + 1)",
             f"{x}.register_post_accumulate_grad_hook(lambda p: P('post acc', p.grad))",
             f"({x} * 3).sum().backward()", f"P('{x}.grad', {x}.grad)", f"{x}.grad = None"],
            [f"m = {x} * 1", "t = m.t()", "t.register_hook(lambda g: P('t hook', g))", "m.mul_(3)",
             "P(graph(t))", "(t * 2).sum().backward()"],
            [f"m = {v}.sigmoid()", "h = m.register_hook(lambda g: P('h', g))",
             "torch.autograd.graph.register_multi_grad_hook((m, " + x + "), lambda gs: P('multi', list(gs)))",
             "h.remove()", f"P(torch.autograd.grad(m.sum(), [{x}]))"],
            [f"m = {x} * 2", "n = m.detach()", "n.requires_grad_()", "o = n * m", "o.sum().backward()",
             f"P(n.grad, {x}.grad)"],
            [f"m = {v}.clone()", "with torch.no_grad():", "    m.mul_(2)", "P(graph(m), m._version)",
             "m.sum().backward()"],
            ["def pack(t):", "    P('pack', t)", "    return t * 1" if self.r.random() < 0.5 else "    return t",
             "def unpack(t):", "    P('unpack', t)", "    return t",
             "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
             f"    m = {x}.exp() * {v}", "    n = m.sin()",
             "P(graph(n), saved(n.grad_fn), saved(m.grad_fn))",
             f"P(torch.autograd.grad(n.sum(), [{x}], retain_graph=True, create_graph=True))",
             "n.sum().backward()", f"P({x}.grad)", f"{x}.grad = None", "P(saved(n.grad_fn))"],
            [f"m = {x}.exp()", "raw = m.grad_fn._raw_saved_result", "P(type(raw).__name__)",
             "raw.register_hooks(lambda t: P('pack late', t) or t, lambda t: P('unpack late', t) or t)"],
            [f"m = {x} * 2", "raw = m.grad_fn._raw_saved_self if hasattr(m.grad_fn, '_raw_saved_self') else None",
             "P(raw is None)"],
            [f"m = {x} * 2", "def hook(g):", "    P('outer', g)",
             "    m2.register_hook(lambda g2: P('registered inside', g2))", "m2 = " + x + " * 3",
             "m.register_hook(hook)", "(m.sum() + m2.sum()).backward()"],
            ["with torch.autograd.graph.disable_saved_tensors_hooks('no hooks here'):",
             "    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):",
             f"        m = {x}.exp()"],
        ]
        self.block(self.pick(cases))

    def program(self) -> str:
        r = self.r
        self.make_leaves()
        for _ in range(r.randint(1, 5)):
            if r.random() < 0.25:
                self.make_function()
            else:
                self.make_value()
        for _ in range(r.randint(1, 3)):
            self.make_root()
        steps = [self.make_hook] * r.randint(0, 4) + [self.make_backward] * r.randint(1, 3)
        steps += [self.make_error_case] * (r.random() < 0.4) + [self.make_function] * (r.random() < 0.2)
        steps += [self.make_value] * (r.random() < 0.2) + [self.make_root] * (r.random() < 0.2)
        steps += [self.make_misc] * (r.random() < 0.4)
        r.shuffle(steps)
        for step in steps:
            step()
        if r.random() < 0.5:
            self.make_backward()
        return "\n".join(self.out) + "\n"


def generate(seed: int) -> str:
    return _Gen(seed).program()


# ---------------------------------------------------------------------------------------------------------
# Campaign driver: one process per library, outputs compared here.


def _worker(lib_name: str, first: int, last: int) -> None:
    """One JSON line per program, flushed: if the library crashes the process, the lines before it stand."""
    import importlib

    lib = importlib.import_module(lib_name)
    for seed in range(first, last):
        print(json.dumps([seed, run(lib, generate(seed))]), flush=True)


def _outputs(lib_name: str, first: int, last: int) -> dict:
    """Each program's lines; a program that crashes the interpreter (torch can segfault) is reported as such and
    the campaign goes on in a new process."""
    here = str(Path(__file__).resolve())
    results, start = {}, first
    while start < last:
        proc = subprocess.run([sys.executable, here, "--worker", lib_name, str(start), str(last)],
                              stdout=subprocess.PIPE, text=True)
        for line in proc.stdout.splitlines():
            seed, lines = json.loads(line)
            results[seed] = lines
        start = max(results, default=start - 1) + 1
        if start < last:
            results[start] = [f"CRASH {lib_name} exit code {proc.returncode}"]
            start += 1
    return results


def main(first: int, last: int) -> int:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        ours, theirs = pool.map(lambda name: _outputs(name, first, last), ("picotorch", "torch"))
    bad = 0
    for seed in range(first, last):
        if not same_lines(ours[seed], theirs[seed]):
            bad += 1
            print(f"=== seed {seed}: {first_difference(ours[seed], theirs[seed])}")
    print(f"{bad} of {last - first} programs differ")
    return bad


if __name__ == "__main__":
    if sys.argv[1] == "--worker":
        _worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(1 if main(int(sys.argv[1]), int(sys.argv[2])) else 0)
