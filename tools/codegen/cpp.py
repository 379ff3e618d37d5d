"""How schema types appear in C++: API parameter types, returns, defaults."""

from __future__ import annotations

from .model import Argument, Return, Schema, Type

_SCALAR_TYPES = {
    "int": "int64_t",
    "float": "double",
    "bool": "bool",
    "str": "std::string_view",
    "Scalar": "Scalar",
    "ScalarType": "ScalarType",
    "Device": "Device",
    "Generator": "Generator",
    "MemoryFormat": "MemoryFormat",
}


# Schema defaults of MemoryFormat arguments (torch's Python names) as C++.
MEMORY_FORMATS = {"contiguous_format": "MemoryFormat::Contiguous", "preserve_format": "MemoryFormat::Preserve",
                  "channels_last": "MemoryFormat::ChannelsLast", "channels_last_3d": "MemoryFormat::ChannelsLast3d"}


def argument_type(t: Type) -> str:
    """The C++ parameter type for an argument of schema type `t`."""
    if t.base == "Tensor":
        if t.is_list:
            if t.elem_optional:
                return "const std::vector<std::optional<Tensor>>&"
            return "c10::ArrayRef<Tensor>"
        return "const std::optional<Tensor>&" if t.optional else "const Tensor&"
    if t.is_list:
        if t.base == "int":
            return "std::optional<IntArrayRef>" if t.optional else "IntArrayRef"
        if t.base == "float":
            return "std::optional<c10::ArrayRef<double>>" if t.optional else "c10::ArrayRef<double>"
        if t.base == "bool" and t.list_size:
            return f"std::array<bool, {t.list_size}>"
        raise ValueError(f"unsupported list type {t}")
    if t.base not in _SCALAR_TYPES:
        raise ValueError(f"unsupported type {t}")
    base = _SCALAR_TYPES[t.base]
    heavy = t.base in ("Scalar", "Generator")  # passed by reference, optional or not
    if t.optional:
        return f"const std::optional<{base}>&" if heavy else f"std::optional<{base}>"
    return f"const {base}&" if heavy else base


def return_type(returns: tuple[Return, ...]) -> str:
    """Results are returned by value (a Tensor is a handle), tuples for several."""
    if not returns:
        return "void"
    types = [_single_return(r.type) for r in returns]
    return types[0] if len(types) == 1 else f"std::tuple<{', '.join(types)}>"


def _single_return(t: Type) -> str:
    if t.base == "Tensor":
        return "std::vector<Tensor>" if t.is_list else "Tensor"
    if t.is_list:
        raise ValueError(f"unsupported return type {t}")
    return {"int": "int64_t", "float": "double", "bool": "bool", "Scalar": "Scalar", "ScalarType": "ScalarType"}[
        t.base]


def default_value(arg: Argument) -> str:
    """The C++ default for `arg` (a schema literal turned into an expression)."""
    d = arg.default
    t = arg.type
    if d == "None":
        return "std::nullopt"
    if t.is_list:
        inner = d.strip()[1:-1].strip()
        if t.base == "int" and not d.strip().startswith("["):  # int[2] dim=1 means [1, 1]
            inner = ", ".join([d.strip()] * (t.list_size or 1))
        return "{" + inner + "}" if inner else "{}"
    if d in ("True", "False"):
        return d.lower()
    if t.base == "str":
        return '"' + d.strip("'\"") + '"'
    if t.base == "ScalarType":
        return f"ScalarType::{d}"
    if t.base == "MemoryFormat":
        return MEMORY_FORMATS[d]
    return d


def signature(schema: Schema, *, with_defaults: bool, name: str, skip_self: bool = False,
              out_first: bool = False) -> str:
    """`Tensor name(const Tensor& self, ...)`; for methods skip_self drops `self`."""
    args = list(schema.arguments)
    if out_first:
        outs = [a for a in args if a.is_write and a.kwarg_only]
        args = outs + [a for a in args if a not in outs]
    params = []
    # Defaults are only legal on a trailing run of parameters.
    trailing_ok = True
    rendered = []
    for a in reversed(args):
        if skip_self and a.name == "self":
            continue
        text = f"{argument_type(a.type)} {cpp_name(a.name)}"
        if with_defaults and trailing_ok and a.default is not None:
            text += f" = {default_value(a)}"
        else:
            trailing_ok = False
        rendered.append(text)
    params = list(reversed(rendered))
    return f"{return_type(schema.returns)} {name}({', '.join(params)})"


def cpp_name(name: str) -> str:
    """Argument names that are C++ keywords get a trailing underscore."""
    return name + "_" if name in {"default", "template", "class", "new", "delete", "operator"} else name


def argument_names(schema: Schema, *, skip_self: bool = False, self_expr: str = "self",
                   out_first: bool = False) -> list[str]:
    args = list(schema.arguments)
    if out_first:
        outs = [a for a in args if a.is_write and a.kwarg_only]
        args = outs + [a for a in args if a not in outs]
    return [self_expr if (a.name == "self" and skip_self) else cpp_name(a.name) for a in args]


def function_type(schema: Schema) -> str:
    """The kernel's C++ function type, e.g. `Tensor(const Tensor&, int64_t)`."""
    return f"{return_type(schema.returns)}({', '.join(argument_type(a.type) for a in schema.arguments)})"


def is_factory(schema: Schema) -> bool:
    """Ops taking dtype and device keywords get a TensorOptions overload."""
    names = {a.name for a in schema.kwarg_only}
    return {"dtype", "device"} <= names and not schema.is_out_variant


def typed_handle(schema: Schema) -> str:
    """The statement that finds the op's dispatcher handle once, as `op`."""
    return (f'static const auto op = Dispatcher::singleton().findTyped<{function_type(schema)}>('
            f'"aten::{schema.name}", "{schema.overload}");')
