"""The schema grammar of ``native_functions.yaml``, as data classes.

Models PyTorch's ``torchgen/model.py`` (``FunctionSchema``, ``Argument``, ``Type``,
``Annotation``, ``OperatorName``, ``NativeFunction``) in a smaller, readable form.

A schema string such as::

    add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)

is parsed into a :class:`FunctionSchema`, and ``str(schema)`` gives the exact string back.
That round trip is the contract: the code generator only ever reads the parsed form.

Simplifications compared with torchgen:

* ``BaseType`` / ``OptionalType`` / ``ListType`` are folded into one :class:`Type`
  (``Tensor?[]`` is a list whose elements are optional; ``int[]?`` is an optional list).
* :class:`Arguments` keeps three groups (positional, keyword-only, out) instead of seven.
* ``NativeFunction`` keeps the yaml keys the generator needs and stores the rest in ``extra``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import ParseError, SchemaError, describe_entry

__all__ = [
    "BASE_TYPES",
    "Annotation",
    "Argument",
    "Arguments",
    "FunctionSchema",
    "NativeFunction",
    "OperatorName",
    "Return",
    "Type",
    "load_yaml_with_lines",
    "parse_native_yaml",
    "split_top_level",
]

# The scalar / object types a schema may name (torchgen's ``BaseTy`` plus a few that
# older schemas and the TorchScript type system use).
BASE_TYPES = frozenset(
    """Tensor Scalar int SymInt float bool str SymBool ScalarType Device DeviceIndex Layout
    MemoryFormat Generator Dimname DimVector Storage Stream ConstQuantizerPtr QScheme
    GraphModule Any""".split()
)

# How a schema looks, and the types a message suggests, for the "expected ..." part of an error.
SCHEMA_SHAPE = ("'name.overload(Type arg, ..., *, Type kwarg=default) -> Returns', "
                "e.g. 'mul.Tensor(Tensor self, Tensor other) -> Tensor'")
_TYPE_EXAMPLES = ("Tensor", "Tensor?", "Tensor[]", "Scalar", "int", "int[]", "SymInt[]", "float", "bool", "str?",
                  "ScalarType?", "Device?")

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ALIAS_SET = re.compile(r"[a-z](\|[a-z])*")
_OPENERS = {"(": ")", "[": "]", "{": "}"}


def split_top_level(s: str, sep: str = ", ") -> list[str]:
    """Split ``s`` on ``sep`` where it is not inside brackets or quotes."""
    parts: list[str] = []
    depth, quote, start, i = 0, "", 0, 0
    while i < len(s):
        ch = s[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in _OPENERS:
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and s.startswith(sep, i):
            parts.append(s[start:i])
            start = i + len(sep)
            i = start
            continue
        i += 1
    parts.append(s[start:])
    return parts


def _split_type_and_name(s: str) -> tuple[str, str | None]:
    """``"Tensor(a -> *) self"`` -> ``("Tensor(a -> *)", "self")``; no name -> ``None``."""
    parts = split_top_level(s, " ")
    if len(parts) == 1:
        return s, None
    if len(parts) != 2 or not _IDENT.fullmatch(parts[1]):
        raise SchemaError(f"{s!r} is not a type and a name", "'<type> <name>', e.g. 'Tensor self'")
    return parts[0], parts[1]


# --------------------------------------------------------------------------- annotations


@dataclass(frozen=True)
class Annotation:
    """Alias information on a Tensor: ``a`` (aliases set a), ``a!`` (writes to it),
    ``a -> *`` (its elements alias anything after the call), ``a|b`` (several sets)."""

    alias_set: tuple[str, ...]
    is_write: bool
    alias_set_after: tuple[str, ...] = ()

    @staticmethod
    def parse(s: str) -> Annotation:
        before, arrow, after = s.partition(" -> ")
        is_write = before.endswith("!")
        before = before.removesuffix("!")
        if not _ALIAS_SET.fullmatch(before):
            raise SchemaError(f"bad alias annotation {s!r}", "lower-case alias sets, e.g. 'a', 'a!', 'a|b'")
        if arrow and not (after == "*" or _ALIAS_SET.fullmatch(after)):
            raise SchemaError(f"bad alias annotation {s!r}", "'*' or an alias set after '->', e.g. 'a -> *'")
        after_set = tuple(after.split("|")) if arrow else ()
        return Annotation(tuple(before.split("|")), is_write, after_set)

    def __str__(self) -> str:
        text = "|".join(self.alias_set) + ("!" if self.is_write else "")
        if self.alias_set_after:
            text += " -> " + "|".join(self.alias_set_after)
        return text


# --------------------------------------------------------------------------------- types


@dataclass(frozen=True)
class Type:
    """A schema type: ``Tensor``, ``int?``, ``int[1]``, ``Tensor?[]``, ``SymInt[]?`` ..."""

    base: str
    optional: bool = False
    is_list: bool = False
    list_size: int | None = None
    elem_optional: bool = False

    @staticmethod
    def parse(s: str) -> Type:
        optional = s.endswith("?")
        inner = s.removesuffix("?")
        m = re.fullmatch(r"(.+)\[([0-9]*)\]", inner)
        if m is None:
            return Type(_check_base(inner, s), optional=optional)
        elem, size = m.group(1), m.group(2)
        elem_optional = elem.endswith("?")
        base = _check_base(elem.removesuffix("?"), s)
        return Type(base, optional, True, int(size) if size else None, elem_optional)

    def __str__(self) -> str:
        text = self.base
        if self.is_list:
            size = "" if self.list_size is None else str(self.list_size)
            text += ("?" if self.elem_optional else "") + f"[{size}]"
        return text + ("?" if self.optional else "")

    def is_tensor_like(self) -> bool:
        """True for ``Tensor``, ``Tensor?``, ``Tensor[]`` and ``Tensor?[]``."""
        return self.base == "Tensor"

    def is_nullable(self) -> bool:
        return self.optional


def _check_base(name: str, whole: str) -> str:
    if name not in BASE_TYPES:
        raise SchemaError(f"unknown type {name!r} in {whole!r}",
                          "a schema type such as " + ", ".join(_TYPE_EXAMPLES))
    return name


# ----------------------------------------------------------------- arguments and returns


def _parse_annotated_type(s: str) -> tuple[Type, Annotation | None]:
    """``"Tensor(a!)[]"`` -> (``Tensor[]``, ``a!``): only Tensors carry annotations."""
    m = re.fullmatch(r"Tensor\((.+)\)(.*)", s)
    if m is None:
        return Type.parse(s), None
    return Type.parse("Tensor" + m.group(2)), Annotation.parse(m.group(1))


def _format_annotated_type(t: Type, annotation: Annotation | None) -> str:
    text = str(t)
    if annotation is None:
        return text
    return text.replace("Tensor", f"Tensor({annotation})", 1)


@dataclass(frozen=True)
class Argument:
    """One formal argument: ``Tensor(a!) self``, ``Scalar alpha=1``, ``str? rounding_mode``."""

    name: str
    type: Type
    default: str | None
    annotation: Annotation | None

    @staticmethod
    def parse(s: str) -> Argument:
        head, eq, default = s.partition("=")
        if eq and not default:
            raise SchemaError(f"argument {s!r} has '=' but no default value", "'<type> <name>=<default>'")
        type_text, name = _split_type_and_name(head)
        if name is None:
            raise SchemaError(f"argument {s!r} has no name", "'<type> <name>', e.g. 'Tensor self'")
        t, annotation = _parse_annotated_type(type_text)
        return Argument(name, t, default if eq else None, annotation)

    def __str__(self) -> str:
        text = f"{_format_annotated_type(self.type, self.annotation)} {self.name}"
        return text if self.default is None else f"{text}={self.default}"

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write


@dataclass(frozen=True)
class Return:
    """One returned value: ``Tensor``, ``Tensor(a!)``, ``Tensor values``, ``Tensor(a)[]``."""

    name: str | None
    type: Type
    annotation: Annotation | None

    @staticmethod
    def parse(s: str) -> Return:
        type_text, name = _split_type_and_name(s)
        t, annotation = _parse_annotated_type(type_text)
        return Return(name, t, annotation)

    def __str__(self) -> str:
        text = _format_annotated_type(self.type, self.annotation)
        return text if self.name is None else f"{text} {self.name}"

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write


@dataclass(frozen=True)
class Arguments:
    """Arguments in three groups; ``*`` separates positional from keyword-only.

    Out arguments are the keyword-only ones from the first written-to Tensor onwards.
    """

    positional: tuple[Argument, ...]
    kwarg_only: tuple[Argument, ...]
    out: tuple[Argument, ...]

    @staticmethod
    def parse(s: str) -> Arguments:
        positional: list[Argument] = []
        kwarg_only: list[Argument] = []
        out: list[Argument] = []
        group = positional
        for text in split_top_level(s) if s else []:
            if text == "*":
                if group is not positional:
                    raise SchemaError(f"'*' appears twice in arguments {s!r}",
                                      "at most one '*' before the keyword-only arguments")
                group = kwarg_only
                continue
            arg = Argument.parse(text)
            if group is kwarg_only and arg.is_write:
                group = out
            group.append(arg)
        if group is kwarg_only and not kwarg_only:
            raise SchemaError(f"'*' is not followed by any argument in {s!r}", "keyword-only arguments after '*'")
        return Arguments(tuple(positional), tuple(kwarg_only), tuple(out))

    def __str__(self) -> str:
        parts = [str(a) for a in self.positional]
        if self.kwarg_only or self.out:
            parts.append("*")
        parts += [str(a) for a in self.kwarg_only + self.out]
        return ", ".join(parts)

    def flat_all(self) -> list[Argument]:
        return [*self.positional, *self.kwarg_only, *self.out]

    def flat_non_out(self) -> list[Argument]:
        return [*self.positional, *self.kwarg_only]

    @property
    def self_arg(self) -> Argument | None:
        return next((a for a in self.positional if a.name == "self"), None)

    def post_self_positional(self) -> tuple[Argument, ...]:
        """Positional arguments after ``self`` (all of them when there is no ``self``)."""
        names = [a.name for a in self.positional]
        if "self" not in names:
            return self.positional
        return self.positional[names.index("self") + 1 :]


# ------------------------------------------------------------------------ operator names

# ``__iadd__`` is the in-place form of ``__add__`` (Python's augmented assignments).
AUGMENTED_ASSIGNMENT_NAMES = tuple("add sub mul div mod pow lshift rshift and xor or".split())


@dataclass(frozen=True)
class OperatorName:
    """``add_.Tensor``: base ``add``, in place, overload ``Tensor``.

    A trailing ``_`` marks an in-place op. Dunders such as ``__and__`` keep their base
    name (``and``); ``__iand__`` is the in-place dunder with base ``and``.
    """

    base: str
    inplace: bool
    dunder_method: bool
    overload_name: str

    @staticmethod
    def parse(s: str) -> OperatorName:
        op, _, overload = s.partition(".")
        if not _IDENT.fullmatch(op):
            raise SchemaError(f"bad operator name {s!r}: {op!r} is not an identifier",
                              "'name' or 'name.overload', e.g. 'add.Tensor'")
        if overload and not re.fullmatch(r"\w+", overload):
            raise SchemaError(f"bad overload name {overload!r} in {s!r}", "letters, digits and '_' after the '.'")
        if s.endswith("."):
            raise SchemaError(f"empty overload name in {s!r}", "'name' or 'name.overload', e.g. 'add.Tensor'")
        m = re.fullmatch(r"__([^_]+)__", op)
        if m is not None:
            return OperatorName._parse_dunder(m.group(1), overload)
        inplace = op.endswith("_")
        return OperatorName(op.removesuffix("_") if inplace else op, inplace, False, overload)

    @staticmethod
    def _parse_dunder(name: str, overload: str) -> OperatorName:
        if name.startswith("i") and name[1:] in AUGMENTED_ASSIGNMENT_NAMES:
            return OperatorName(name[1:], True, True, overload)
        return OperatorName(name, False, True, overload)

    @property
    def name(self) -> str:
        """The operator name without the overload: ``add_``, ``__iand__``."""
        if self.dunder_method:
            return f"__{'i' if self.inplace else ''}{self.base}__"
        return self.base + ("_" if self.inplace else "")

    def __str__(self) -> str:
        return f"{self.name}.{self.overload_name}" if self.overload_name else self.name

    @property
    def unambiguous_name(self) -> str:
        """``add_Tensor`` for ``add.Tensor``; just the name when there is no overload."""
        return f"{self.name}_{self.overload_name}" if self.overload_name else self.name


# ------------------------------------------------------------------------------ schemas

SCHEMA_KINDS = ("functional", "inplace", "out", "mutable", "scratch")


@dataclass(frozen=True)
class FunctionSchema:
    """``name(arguments) -> returns``."""

    name: OperatorName
    arguments: Arguments
    returns: tuple[Return, ...]

    @staticmethod
    def parse(s: str) -> FunctionSchema:
        if not isinstance(s, str):
            raise SchemaError(f"the schema is a {type(s).__name__}, not a string", "'name(arguments) -> returns'")
        name_text, args_text, returns_text = _split_schema(s)
        try:
            schema = FunctionSchema(
                OperatorName.parse(name_text),
                Arguments.parse(args_text),
                _parse_returns(returns_text),
            )
        except SchemaError as e:
            raise SchemaError(e.problem, e.expected, s) from None
        schema._check()
        return schema

    def _check(self) -> None:
        names = [a.name for a in self.arguments.flat_all()]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise SchemaError(f"duplicate argument names {duplicates} in schema {self}", "each argument named once")
        if self.name.inplace and self.arguments.out:
            raise SchemaError(f"in-place schema {self} has out arguments",
                              "an in-place op ('name_') to write only self")

    def __str__(self) -> str:
        return f"{self.name}({self.arguments}) -> {_format_returns(self.returns)}"

    def kind(self) -> str:
        """'inplace' (``add_``), 'scratch', 'out' (``add.out``), 'mutable' (writes a
        non-self positional argument) or 'functional'."""
        if self.name.inplace:
            return "inplace"
        if any(a.name.startswith("_scratch_") for a in self.arguments.out):
            return "scratch"
        if self.arguments.out:
            return "out"
        if any(a.is_write for a in self.arguments.post_self_positional()):
            return "mutable"
        return "functional"

    def signature(self, *, strip_default: bool = False) -> str:
        """The schema shared by the functional, in-place and out variants of one op.

        Follows torchgen's ``FunctionSchema.signature()``: drop the overload name, the
        trailing ``_``, the out arguments, the TensorOptions group (``dtype``, ``layout``,
        ``device``, ``pin_memory``), alias annotations and return names; written-to inputs
        that are not returned become extra returns. ``add.Tensor``, ``add_.Tensor`` and
        ``add.out`` all give ``add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor``.
        """
        name = OperatorName(self.name.base, False, self.name.dunder_method, "")
        kwargs = _drop_tensor_options(self.arguments.kwarg_only)
        args = Arguments(
            _strip_args(self.arguments.positional, strip_default),
            _strip_args(kwargs, strip_default),
            (),
        )
        if str(self.name) == "bernoulli.p":  # upstream quirk: pairs it with bernoulli_.float
            args = Arguments.parse(str(args).replace("float p", "float p=0.5"))
        returns = tuple(Return(None, r.type, None) for r in self.returns)
        return str(FunctionSchema(name, args, returns + self._unreturned_writes()))

    def _unreturned_writes(self) -> tuple[Return, ...]:
        """Written-to inputs (self, out, later positionals) whose alias no return shares."""
        args = self.arguments
        selfs = [args.self_arg] if args.self_arg is not None else []
        candidates = [*selfs, *args.out, *args.post_self_positional()]
        returned = {r.annotation for r in self.returns}
        return tuple(Return(None, a.type, None) for a in candidates if a.is_write and a.annotation not in returned)

    def is_out_fn(self) -> bool:
        return bool(self.arguments.out)


def _strip_args(args: tuple[Argument, ...], strip_default: bool) -> tuple[Argument, ...]:
    return tuple(Argument(a.name, a.type, None if strip_default else a.default, None) for a in args)


_TENSOR_OPTIONS = (
    ("dtype", "ScalarType"),
    ("layout", "Layout"),
    ("device", "Device"),
    ("pin_memory", "bool"),
)


def _is_option(a: Argument, name: str, base: str) -> bool:
    return a.name == name and a.type.base == base and not a.type.is_list


def _drop_tensor_options(args: tuple[Argument, ...]) -> tuple[Argument, ...]:
    """Remove the first run of ``dtype, layout, device, pin_memory`` keyword arguments."""
    n = len(_TENSOR_OPTIONS)
    for i in range(len(args) - n + 1):
        window = zip(args[i : i + n], _TENSOR_OPTIONS, strict=True)
        if all(_is_option(a, *opt) for a, opt in window):
            return args[:i] + args[i + n :]
    return args


def _split_schema(s: str) -> tuple[str, str, str]:
    """``"f(a, b) -> R"`` -> ``("f", "a, b", "R")``, matching the outer parentheses."""
    open_at = s.find("(")
    if open_at <= 0:
        raise SchemaError(f"schema {s!r} has no '(' after the operator name", SCHEMA_SHAPE)
    depth = 0
    for i in range(open_at, len(s)):
        depth += {"(": 1, ")": -1}.get(s[i], 0)
        if depth == 0:
            rest = s[i + 1 :]
            if not rest.startswith(" -> "):
                raise SchemaError(f"schema {s!r} has no ' -> ' after its arguments", SCHEMA_SHAPE)
            return s[:open_at], s[open_at + 1 : i], rest[4:]
    raise SchemaError(f"schema {s!r} has an unclosed '('", SCHEMA_SHAPE)


def _parse_returns(s: str) -> tuple[Return, ...]:
    if not s:
        raise SchemaError("missing return type", "a return type after ' -> ', e.g. 'Tensor' or '(Tensor a, Tensor b)'")
    if s.startswith("("):
        if not s.endswith(")"):
            raise SchemaError(f"returns {s!r} open '(' without closing it", "'(Tensor a, Tensor b)'")
        inner = s[1:-1]
        return tuple(Return.parse(r) for r in split_top_level(inner)) if inner else ()
    return (Return.parse(s),)


def _format_returns(returns: tuple[Return, ...]) -> str:
    if len(returns) == 1:
        return str(returns[0])
    return "(" + ", ".join(str(r) for r in returns) + ")"


# ------------------------------------------------------------------- native_functions.yaml

_KNOWN_KEYS = frozenset(
    {
        "func",
        "variants",
        "dispatch",
        "structured",
        "structured_delegate",
        "python_module",
        "manual_cpp_binding",
        "device_check",
        "tags",
    }
)


@dataclass(frozen=True)
class NativeFunction:
    """One ``- func:`` entry of ``native_functions.yaml``."""

    func: FunctionSchema
    variants: frozenset[str]
    dispatch: dict[str, str] = field(hash=False)
    structured: bool
    structured_delegate: str | None
    python_module: str | None
    manual_cpp_binding: bool
    device_check: str | None
    tags: tuple[str, ...]
    loc: tuple[str, int]
    extra: dict[str, Any] = field(hash=False)
    # ``dispatch:`` written, even empty (``_copy_from``): without it, and unless structured or delegating,
    # torchgen gives the op a CompositeImplicitAutograd kernel.
    has_dispatch_entry: bool = True

    @staticmethod
    def from_yaml(entry: dict[str, Any], loc: tuple[str, int]) -> NativeFunction:
        """One entry; a :class:`ParseError` naming ``loc`` (file, line) and the entry if it is wrong."""
        path, line = loc
        shown = describe_entry(entry, "func")
        if not isinstance(entry, dict) or "func" not in entry:
            raise ParseError(path, line, "the entry has no 'func:' key", "a mapping '- func: <schema>' with "
                             "optional variants:, dispatch:, tags: ... keys", shown)
        try:
            func = FunctionSchema.parse(entry["func"])
            return NativeFunction(
                func=func,
                variants=_parse_variants(entry.get("variants")),
                dispatch=_parse_dispatch(entry.get("dispatch")),
                structured=bool(entry.get("structured", False)),
                structured_delegate=entry.get("structured_delegate"),
                python_module=entry.get("python_module"),
                manual_cpp_binding=bool(entry.get("manual_cpp_binding", False)),
                device_check=entry.get("device_check"),
                tags=_parse_tags(entry.get("tags")),
                loc=loc,
                extra={k: v for k, v in entry.items() if k not in _KNOWN_KEYS},
                has_dispatch_entry="dispatch" in entry,
            )
        except SchemaError as e:
            raise ParseError(path, line, e.problem, e.expected, shown) from None


def _comma_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _parse_variants(value: str | None) -> frozenset[str]:
    if value is not None and not isinstance(value, str):
        raise SchemaError(f"'variants:' is {value!r}", "'function', 'method' or 'function, method'")
    variants = frozenset(_comma_list(value)) if value else frozenset({"function"})
    unknown = variants - {"function", "method"}
    if unknown:
        raise SchemaError(f"unknown variants {sorted(unknown)}", "'function', 'method' or 'function, method'")
    return variants


def _parse_dispatch(value: dict[str, Any] | None) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise SchemaError(f"'dispatch:' is {value!r}",
                          "a mapping of dispatch keys to kernel names, e.g. 'CPU, CUDA: add'")
    return {key: kernel for keys, kernel in value.items() for key in _comma_list(keys)}


def _parse_tags(value: str | list[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(_comma_list(value))
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise SchemaError(f"'tags:' is {value!r}", "a tag or a list of tags, e.g. 'tags: pointwise'")
    return tuple(value)


def load_yaml_with_lines(path: str | Path) -> list[tuple[dict[str, Any], int]]:
    """Load a yaml list of mappings, pairing each entry with its 1-based line number.

    A YAML syntax error becomes a :class:`ParseError` at the line the YAML parser points to.
    """
    loader_cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_cls(Path(path).read_text())
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else []
    except yaml.YAMLError as e:
        raise _yaml_error(path, e) from None
    finally:
        loader.dispose()
    if not isinstance(data, list):
        raise ParseError(path, None, f"the file holds a {type(data).__name__}, not a list of entries",
                         "a YAML list, each entry starting with '- '")
    lines = [node.start_mark.line + 1 for node in root.value]
    return list(zip(data, lines, strict=True))


def _yaml_error(path: str | Path, e: yaml.YAMLError) -> ParseError:
    """PyYAML's message without its own ``in "<unicode string>", line N`` marks, which name no file."""
    mark = getattr(e, "problem_mark", None)
    problem = " ".join(part for part in (getattr(e, "context", None), getattr(e, "problem", None)) if part)
    return ParseError(path, None if mark is None else mark.line + 1, f"YAML syntax error: {problem or e}",
                      "valid YAML: a list of '- key: value' entries, nested keys indented, "
                      "text containing ': ' or '#' quoted")


def parse_native_yaml(path: str | Path, failures: list[ParseError] | None = None) -> list[NativeFunction]:
    """Parse every entry of a ``native_functions.yaml`` file, in file order.

    The first bad entry raises its :class:`ParseError`; with a ``failures`` list, every bad entry's error
    is appended to it instead and the good entries are returned (``python -m picotorchgen parse``).
    """
    return _check_unique(parse_each(path, NativeFunction.from_yaml, failures), failures)


def parse_each(path: str | Path, parse_entry, failures: list[ParseError] | None) -> list:
    """``parse_entry(entry, (file, line))`` for each entry of a YAML file. A :class:`ParseError` raises, or
    with a ``failures`` list is appended to it, the entry left out."""
    parsed = []
    for entry, line in load_yaml_with_lines(path):
        try:
            parsed.append(parse_entry(entry, (str(path), line)))
        except ParseError as e:
            if failures is None:
                raise
            failures.append(e)
    return parsed


def _check_unique(functions: list[NativeFunction], failures: list[ParseError] | None) -> list[NativeFunction]:
    seen: dict[str, tuple[str, int]] = {}
    unique = []
    for f in functions:
        key = str(f.func.name)
        if key not in seen:
            seen[key] = f.loc
            unique.append(f)
            continue
        error = ParseError(f.loc[0], f.loc[1], f"operator {key} is already defined at line {seen[key][1]}",
                           "one entry per 'name.overload'", f"func: {f.func}")
        if failures is None:
            raise error
        failures.append(error)
    return unique
