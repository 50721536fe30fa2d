"""``python -m picotorchgen --explain OP``: which template lines wrote which generated lines, for one op.

No PyTorch file is modelled here (torchgen has no such mode): this is the learner's way to hold a
template beside its output. The generators run as usual, inside :func:`code_template.recording`, so every
substitution is kept with the template line each output line came from (:class:`~code_template.Expansion`).
Then, for each generated file, the substitutions that are about ``OP`` are printed as a tree: a template
line, the lines it produced indented below it, and where a block hole was filled by another template's
output, that template, nested one level deeper.

``OP`` is an overload (``mul.Tensor``) or a name (``mul``: every overload called ``mul``).
"""

from __future__ import annotations

from . import code_template, gen_autograd_functions, gen_python_functions, gen_variable_type
from .api.autograd import Op
from .code_template import CodeTemplate, Expansion
from .errors import GenerationError

__all__ = ["explain", "find_ops", "template_names"]

# Which generator writes which file, so a template is shown under the file it fills.
GENERATORS = {
    "nodes.py": gen_autograd_functions,
    "variable_type.py": gen_variable_type,
    "python_bindings.py": gen_python_functions,
}
INDENT = "    "


def find_ops(ops: list[Op], name: str) -> list[Op]:
    """``mul.Tensor`` -> that overload; ``mul`` -> every overload whose name is ``mul``."""
    found = [op for op in ops if op.overload == name] or [op for op in ops if op.base == name]
    if not found:
        raise GenerationError(f"--explain {name}: no op of native_functions.yaml is called {name!r}; expected an "
                              "overload such as 'mul.Tensor' or a name such as 'mul'")
    return found


def template_names() -> dict[int, tuple[str, str]]:
    """``id(template)`` -> (generated file, ``NAME`` or ``NAME['key']`` in its generator module)."""
    names = {}
    for file, module in GENERATORS.items():
        for attribute, value in vars(module).items():
            if isinstance(value, CodeTemplate):
                names[id(value)] = (file, attribute)
            elif isinstance(value, dict):
                names.update({id(v): (file, f"{attribute}[{k!r}]") for k, v in value.items()
                              if isinstance(v, CodeTemplate)})
    return names


def explain(ops: list[Op], name: str, generate) -> str:
    """The tree of template lines and generated lines of every substitution about op ``name``, per file.

    ``generate`` is the driver's ``generate()``: it runs once, recorded.
    """
    chosen = find_ops(ops, name)
    with code_template.recording() as expansions:
        generate()
    keys = _op_keys(chosen)
    children = {id(e.text): e for e in expansions if e.text}
    relevant = [e for e in expansions if _is_about(e, keys)]
    nested = {id(item) for e in relevant for origin in e.lines + e.empty for item in origin.items}
    roots = [e for e in relevant if id(e.text) not in nested]
    names = template_names()
    placed = {id(item): (e, origin) for e in expansions for origin in e.lines + e.empty for item in origin.items}
    out = [f"--explain {name}: " + ", ".join(f"{op.overload} ({op.schema})" for op in chosen)]
    for file in GENERATORS:
        in_file = [e for e in roots if names.get(id(e.template), (None,))[0] == file]
        if in_file:
            out += ["", f"=== _generated/{file} ==="]
            for e in in_file:
                tree = _tree(e, names, children, depth=0)
                if id(e.text) in placed:
                    parent, origin = placed[id(e.text)]
                    where = names.get(id(parent.template), ("", "a template"))[1]
                    tree[0] += f", placed by {where} line {origin.template_line}: {origin.source.strip()}"
                out += tree
    return "\n".join(out)


def _op_keys(chosen: list[Op]) -> set[str]:
    """Values that a substitution about one of these ops has in its environment: its names, its schema, or
    the schema of the derivatives entry whose node it builds (``mul_.Tensor`` builds ``MulBackward0``)."""
    keys = set()
    for op in chosen:
        keys |= {op.py_name, op.overload, op.base, repr(op.base), str(op.schema)}
        if op.has_node:
            keys.add(op.info.name)
    return keys


def _is_about(e: Expansion, keys: set[str]) -> bool:
    return any(isinstance(v, str) and v in keys for v in e.values.values())


def _tree(e: Expansion, names, children: dict[int, Expansion], depth: int) -> list[str]:
    pad = INDENT * depth
    file, title = names.get(id(e.template), ("", "a template"))
    module = GENERATORS[file].__name__.rsplit(".", 1)[-1] + ".py" if file else ""
    out = [f"{pad}{title} ({module})"]
    by_line: dict[int, list] = {}
    for origin in e.lines + e.empty:
        by_line.setdefault(origin.template_line, []).append(origin)
    for number in sorted(by_line):
        origins = by_line[number]
        first = origins[0]
        holes = f"    <- {', '.join('${' + h + '}' for h in dict.fromkeys(first.holes))}" if first.holes else ""
        out.append(f"{pad}  {number:>3}| {first.source}{holes}")
        if first in e.empty and not first.items:
            out.append(f"{pad}     |   (nothing: an empty block takes its line away)")
        elif first.holes and first.items:
            out += _block(first, pad, names, children, depth)
        else:
            out += [f"{pad}     |   {o.output}" for o in origins]
    return out


def _block(origin, pad: str, names, children: dict[int, Expansion], depth: int) -> list[str]:
    """A block hole's items: a template's output as that template's tree, other text line by line."""
    indent = origin.source[: len(origin.source) - len(origin.source.lstrip())]
    out = []
    for item in origin.items:
        child = children.get(id(item))
        if child is not None:
            out += _tree(child, names, children, depth + 2)
        else:
            out += [f"{pad}     |   {(indent + line).rstrip()}" for line in str(item).splitlines() or [""]]
    return out
