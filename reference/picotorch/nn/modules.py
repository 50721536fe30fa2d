"""``Module``, ``Linear``, ``ReLU``, ``Sequential``. Models ``torch/nn/modules/module.py``, ``linear.py``,
``activation.py`` and ``container.py`` (parameter registration, ``named_parameters``, ``_apply`` for
``.to()`` / ``.cuda()`` that keeps parameters leaves, ``zero_grad``, and the module repr).
"""

from __future__ import annotations

import math
from collections import OrderedDict

from .._C import empty
from ..autograd.grad_mode import no_grad
from . import functional as F
from . import init
from .parameter import Parameter


class Module:
    training = True

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value) -> None:
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        for table in ("_parameters", "_modules"):
            store = self.__dict__.get(table, {})
            if name in store:
                return store[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def register_parameter(self, name: str, param) -> None:
        self._parameters[name] = param

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix: str = "", recurse: bool = True):
        seen = set()
        stack = [(prefix, self)]
        while stack:
            module_prefix, module = stack.pop(0)
            for name, p in module._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{module_prefix}.{name}" if module_prefix else name), p
            if recurse:
                stack[0:0] = [((f"{module_prefix}.{n}" if module_prefix else n), m)
                              for n, m in module._modules.items()]

    def parameters(self, recurse: bool = True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def children(self):
        return iter(self._modules.values())

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.detach_().zero_()

    def _apply(self, fn):
        """Convert every parameter in place, under no_grad, so parameters stay leaves (Q2.3)."""
        for module in [self, *self._all_submodules()]:
            for p in module._parameters.values():
                with no_grad():
                    converted = fn(p)
                p.data = converted
        return self

    def _all_submodules(self):
        stack, out = list(self._modules.values()), []
        while stack:
            m = stack.pop(0)
            out.append(m)
            stack[0:0] = list(m._modules.values())
        return out

    def to(self, *args, **kwargs):
        return self._apply(lambda t: t.to(*args, **kwargs))

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def double(self):
        return self._apply(lambda t: t.double())

    def float(self):
        return self._apply(lambda t: t.float())

    def train(self, mode: bool = True):
        object.__setattr__(self, "training", mode)
        for m in self._modules.values():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = []
        for name, module in self._modules.items():
            child = repr(module).replace("\n", "\n  ")
            lines.append(f"({name}): {child}")
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        body = "\n  ".join(([extra] if extra else []) + lines)
        return f"{type(self).__name__}(\n  {body}\n)"


class Linear(Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty(out_features, in_features, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype, device=device))
        else:
            object.__setattr__(self, "bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sequential(Module):
    def __init__(self, *modules) -> None:
        super().__init__()
        for i, m in enumerate(modules):
            self._modules[str(i)] = m

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, index):
        return list(self._modules.values())[index]

    def __len__(self) -> int:
        return len(self._modules)
