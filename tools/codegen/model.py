"""The schema language of native_functions.yaml, as a data model.

parse_schema() reads PyTorch's grammar, e.g.
    add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
and str() of the result prints it back in canonical form.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Optional

BASE_TYPES = (
    "Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType", "Device", "Generator", "Layout",
    "MemoryFormat",
)


class SchemaError(ValueError):
    pass


@dataclass(frozen=True)
class Type:
    base: str  # one of BASE_TYPES ("SymInt" is read as "int")
    elem_optional: bool = False  # Tensor?[]
    is_list: bool = False
    list_size: Optional[int] = None  # int[2]
    optional: bool = False  # Tensor?, int[]?

    def __str__(self) -> str:
        s = self.base
        if self.is_list:
            s += ("?" if self.elem_optional else "") + f"[{'' if self.list_size is None else self.list_size}]"
        return s + ("?" if self.optional else "")

    @property
    def is_tensor(self) -> bool:
        return self.base == "Tensor" and not self.is_list

    @property
    def is_tensor_list(self) -> bool:
        return self.base == "Tensor" and self.is_list


@dataclass(frozen=True)
class Alias:
    set: str
    is_write: bool

    def __str__(self) -> str:
        return f"({self.set}{'!' if self.is_write else ''})"


def _type_with_alias(t: Type, alias: Optional[Alias]) -> str:
    text = str(t)
    return text[: len(t.base)] + (str(alias) if alias else "") + text[len(t.base):]


@dataclass(frozen=True)
class Argument:
    name: str
    type: Type
    alias: Optional[Alias] = None
    default: Optional[str] = None
    kwarg_only: bool = False

    def __str__(self) -> str:
        return f"{_type_with_alias(self.type, self.alias)} {self.name}" + (
            f"={self.default}" if self.default is not None else "")

    @property
    def is_write(self) -> bool:
        return self.alias is not None and self.alias.is_write


@dataclass(frozen=True)
class Return:
    type: Type
    alias: Optional[Alias] = None
    name: Optional[str] = None

    def __str__(self) -> str:
        return _type_with_alias(self.type, self.alias) + (f" {self.name}" if self.name else "")


@dataclass(frozen=True)
class Schema:
    name: str  # without namespace: "add"
    overload: str  # "Tensor" or ""
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]

    @property
    def full_name(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name

    @property
    def positional(self) -> list[Argument]:
        return [a for a in self.arguments if not a.kwarg_only]

    @property
    def kwarg_only(self) -> list[Argument]:
        return [a for a in self.arguments if a.kwarg_only]

    @property
    def out_arguments(self) -> list[Argument]:
        return [a for a in self.arguments if a.kwarg_only and a.is_write]

    @property
    def is_out_variant(self) -> bool:
        return bool(self.out_arguments)

    @property
    def is_inplace(self) -> bool:
        """A method-style in-place op: it writes its first argument, a tensor
        (not a list: _amp_foreach_..._ writes a Tensor[] and returns another)."""
        return (self.name.endswith("_") and bool(self.arguments) and self.arguments[0].is_write
                and not self.arguments[0].type.is_list)

    def __str__(self) -> str:
        parts = []
        marker = False
        for a in self.arguments:
            if a.kwarg_only and not marker:
                parts.append("*")
                marker = True
            parts.append(str(a))
        if len(self.returns) == 1 and self.returns[0].name is None:
            rets = str(self.returns[0])
        else:
            rets = "(" + ", ".join(str(r) for r in self.returns) + ")"
        return f"{self.full_name}({', '.join(parts)}) -> {rets}"


_TYPE_RE = re.compile(
    r"^(?P<base>[A-Za-z]+)(?:\((?P<set>[a-z]+)(?P<write>!?)\))?(?P<elem_opt>\?)?"
    r"(?:\[(?P<size>\d*)\](?P<list_opt>\?)?)?$"
)


def parse_type(text: str) -> tuple[Type, Optional[Alias]]:
    m = _TYPE_RE.match(text.strip())
    if not m or m.group("base") not in BASE_TYPES:
        raise SchemaError(f"unknown type '{text.strip()}'")
    base = "int" if m.group("base") == "SymInt" else m.group("base")
    alias = Alias(m.group("set"), bool(m.group("write"))) if m.group("set") else None
    is_list = m.group("size") is not None
    size = int(m.group("size")) if m.group("size") else None
    if is_list:
        t = Type(base, elem_optional=bool(m.group("elem_opt")), is_list=True, list_size=size,
                 optional=bool(m.group("list_opt")))
    else:
        t = Type(base, optional=bool(m.group("elem_opt")))
    return t, alias


def _split_top_level(text: str) -> list[str]:
    """Splits on commas outside brackets and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _matching_paren(text: str, open_index: int) -> int:
    depth = 0
    for i in range(open_index, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise SchemaError(f"unbalanced parentheses in '{text}'")


def parse_schema(text: str) -> Schema:
    text = text.strip()
    open_index = text.find("(")
    if open_index < 0:
        raise SchemaError(f"expected '(' in '{text}'")
    close_index = _matching_paren(text, open_index)
    name = text[:open_index].strip()
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)?", name):
        raise SchemaError(f"invalid operator name '{name}' in '{text}'")
    base, _, overload = name.partition(".")
    rest = text[close_index + 1:].strip()
    if not rest.startswith("->"):
        raise SchemaError(f"expected '->' after the arguments in '{text}'")

    arguments = []
    kwarg_only = False
    for part in _split_top_level(text[open_index + 1:close_index]):
        if part == "*":
            if kwarg_only:
                raise SchemaError(f"'*' appears twice in '{text}'")
            kwarg_only = True
            continue
        decl, eq, default = part.partition("=")
        pieces = decl.split()
        if len(pieces) != 2:
            raise SchemaError(f"expected 'Type name' but got '{decl.strip()}' in '{text}'")
        t, alias = parse_type(pieces[0])
        arguments.append(Argument(pieces[1], t, alias, default.strip() if eq else None, kwarg_only))

    returns_text = rest[2:].strip()
    returns = []
    if returns_text.startswith("(") and _matching_paren(returns_text, 0) == len(returns_text) - 1:
        items = _split_top_level(returns_text[1:-1])
    else:
        items = [returns_text]
    for item in items:
        pieces = item.split()
        if len(pieces) not in (1, 2):
            raise SchemaError(f"invalid return '{item}' in '{text}'")
        t, alias = parse_type(pieces[0])
        returns.append(Return(t, alias, pieces[1] if len(pieces) == 2 else None))
    return Schema(base, overload, tuple(arguments), tuple(returns))


def error_at(entry, message: str) -> SchemaError:
    """An error about a yaml entry, prefixed with its `file:line` when known."""
    where = getattr(entry, "where", None)
    return SchemaError(f"{where}: {message}" if where else message)


_DISPATCH_KEY_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "c10", "core",
                                    "DispatchKey.h")


def _read_dispatch_keys() -> frozenset[str]:
    """The keys a yaml kernel may be registered for, read from c10's
    DispatchKey enum (their one home): the backends (after Undefined, up to
    the first functionality key, BackendSelect) and the alias keys (after
    NumKeys). Functionality keys get their kernels elsewhere (autograd from
    derivatives.yaml)."""
    with open(_DISPATCH_KEY_HEADER) as f:
        text = f.read()
    body = re.search(r"enum class DispatchKey\b[^{]*\{(.*?)\};", text, re.S)
    if body is None:
        raise SchemaError(f"{_DISPATCH_KEY_HEADER}: no `enum class DispatchKey` found")
    names = re.findall(r"^\s*([A-Za-z0-9_]+)\s*,", re.sub(r"//[^\n]*", "", body.group(1)), re.M)
    return frozenset(names[names.index("Undefined") + 1:names.index("BackendSelect")] +
                     names[names.index("NumKeys") + 1:])


DISPATCH_KEYS = _read_dispatch_keys()


@dataclass(frozen=True)
class Kernel:
    """What serves an op for one dispatch key: a function in ember::native, or
    (delegate) the kernel of the op's out variant, run with a fresh output
    (functional form) or with `self` as the output (in-place form), or
    (alias) a generated call of the op it is another name for."""

    name: str
    delegate: bool = False
    alias: bool = False


@dataclass
class NativeFunction:
    """One entry of native_functions.yaml."""

    schema: Schema
    variants: tuple[str, ...] = ("function",)
    # dispatch key name -> its kernel
    dispatch: dict[str, Kernel] = field(default_factory=dict)
    python: bool = True  # bind in Python
    # "exp.out": this functional or in-place op runs the out variant's kernels.
    structured_delegate: Optional[str] = None
    # "NoCheck": the op's tensors may be on different devices (copy_).
    device_check: str = "SameDevice"
    doc: Optional[str] = None  # the Python docstring's text after the signature
    # "abs": this op is another name for that one (same arguments): its
    # kernel calls it, so it needs neither a kernel nor a gradient formula.
    alias_of: Optional[str] = None

    @property
    def cpp_name(self) -> str:
        """The C++ API name: out variants get `_out`, as in ATen."""
        return self.schema.name + ("_out" if self.schema.is_out_variant else "")


def _default_kernel_name(schema: Schema) -> str:
    return schema.name + ("_out" if schema.is_out_variant else "")


NATIVE_FUNCTION_KEYS = ("func", "variants", "dispatch", "python", "structured_delegate", "device_check", "doc",
                        "alias_of")
VARIANTS = ("function", "method")
DEVICE_CHECKS = ("SameDevice", "NoCheck")


def _parse_native_function(entry: dict) -> NativeFunction:
    fields = dict(entry)
    if "func" not in fields:
        raise error_at(entry, "entry has no 'func'")
    try:
        schema = parse_schema(fields.pop("func"))
    except SchemaError as e:
        raise error_at(entry, str(e)) from None
    name = schema.full_name
    variants = tuple(v.strip() for v in str(fields.pop("variants", "function")).split(","))
    for v in variants:
        if v not in VARIANTS:
            raise error_at(entry, f"{name}: unknown variant '{v}' (known: {', '.join(VARIANTS)})")
    dispatch = {}
    for keys, kernel in (fields.pop("dispatch", None) or {}).items():
        for key in str(keys).split(","):
            key = key.strip()
            if key not in DISPATCH_KEYS:
                raise error_at(entry, f"{name}: unknown dispatch key '{key}' (known: {', '.join(sorted(DISPATCH_KEYS))})")
            dispatch[key] = Kernel(str(kernel))
    python = fields.pop("python", True)
    if not isinstance(python, bool):
        raise error_at(entry, f"{name}: python is True or False, not {python!r}")
    delegate = fields.pop("structured_delegate", None)
    if delegate and dispatch:
        raise error_at(entry, f"{name}: structured_delegate and dispatch are exclusive")
    alias_of = fields.pop("alias_of", None)
    if alias_of and (dispatch or delegate):
        raise error_at(entry, f"{name}: alias_of excludes dispatch and structured_delegate")
    if alias_of:
        dispatch = {"CompositeImplicitAutograd": Kernel(name.replace(".", "_") + "_alias", alias=True)}
    if not dispatch and not delegate:
        dispatch = {"CompositeImplicitAutograd": Kernel(_default_kernel_name(schema))}
    device_check = fields.pop("device_check", "SameDevice")
    if device_check not in DEVICE_CHECKS:
        raise error_at(entry, f"{name}: device_check is SameDevice or NoCheck, not {device_check}")
    doc = fields.pop("doc", None)
    if doc is not None and not isinstance(doc, str):
        raise error_at(entry, f"{name}: doc is text, not {type(doc).__name__}")
    if fields:
        raise error_at(entry, f"{name}: unknown key{'s' if len(fields) > 1 else ''} "
                              f"{', '.join(repr(k) for k in fields)} (known: {', '.join(NATIVE_FUNCTION_KEYS)})")
    return NativeFunction(schema, variants, dispatch, python, delegate, device_check, doc, alias_of)


def parse_native_functions(entries: list[dict]) -> list[NativeFunction]:
    """The entries of native_functions.yaml as NativeFunctions; any key, value
    or reference the generator does not know is an error naming its entry."""
    functions = []
    entry_of = {}
    for entry in entries:
        f = _parse_native_function(entry)
        if f.schema.full_name in entry_of:
            raise error_at(entry, f"duplicate operator {f.schema.full_name}")
        entry_of[f.schema.full_name] = entry
        functions.append(f)
    by_name = {f.schema.full_name: f for f in functions}
    for f in functions:
        if f.structured_delegate:
            entry = entry_of[f.schema.full_name]
            target = by_name.get(f.structured_delegate)
            if target is None or not target.schema.is_out_variant:
                raise error_at(entry, f"{f.schema.full_name}: structured_delegate {f.structured_delegate} is not an "
                                      "out variant in this file")
            expected = [(a.name, str(a.type)) for a in target.schema.arguments if not a.is_write]
            have = [(a.name, str(a.type)) for a in f.schema.arguments]
            if have != expected:
                raise error_at(entry, f"{f.schema.full_name}: arguments differ from its delegate "
                                      f"{f.structured_delegate}")
            f.dispatch = {key: Kernel(kernel.name, delegate=True) for key, kernel in target.dispatch.items()}
        if f.alias_of:
            entry = entry_of[f.schema.full_name]
            target = by_name.get(f.alias_of)
            if target is None or target.alias_of:
                raise error_at(entry, f"{f.schema.full_name}: alias_of {f.alias_of} is not an operator of this file "
                                      "(that is not itself an alias)")
            if [str(a.type) for a in f.schema.arguments] != [str(a.type) for a in target.schema.arguments] or \
                    [a.kwarg_only for a in f.schema.arguments] != [a.kwarg_only for a in target.schema.arguments] or \
                    [str(r) for r in f.schema.returns] != [str(r) for r in target.schema.returns]:
                raise error_at(entry, f"{f.schema.full_name}: arguments or returns differ from {f.alias_of}'s")
            if f.doc is None:
                f.doc = f"Another name for ``{target.schema.name}``."
    return functions
