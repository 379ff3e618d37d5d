"""Docstrings of the generated Python functions and methods: the Python
signature of each overload, from its schema, then the entry's `doc:` text
(a line of meaning and an example that test_docs.py runs as a doctest)."""

from __future__ import annotations

import textwrap
from typing import Callable

from . import cpp
from .model import Argument, NativeFunction, Return

_RETURN_NAMES = {"Tensor": "Tensor", "int": "int", "float": "float", "bool": "bool", "Scalar": "Number",
                 "ScalarType": "dtype"}


def _return_text(r: Return) -> str:
    text = f"List[{_RETURN_NAMES[r.type.base]}]" if r.type.is_list else _RETURN_NAMES[r.type.base]
    return f"{text} {r.name}" if r.name else text


def _parameter(a: Argument, varargs: bool, type_name: Callable[[Argument], str]) -> str:
    name = "input" if a.name == "self" else a.name
    if varargs:
        return "*" + name
    text = f"{type_name(a)} {name}"
    return text if a.default is None else f"{text}={a.default}"


def python_signature(f: NativeFunction, *, has_out: bool, method: bool, varargs: bool,
                     type_name: Callable[[Argument], str]) -> str:
    """`add(Tensor input, Tensor or Number other, *, Number alpha=1, Tensor out=None) -> Tensor`:
    torch's docs' form, with the types of its error messages, which tell the overloads apart."""
    s = f.schema
    params = []
    marker = False
    for a in s.arguments:
        if method and a.name == "self":
            continue
        if a.kwarg_only and not marker and not varargs:
            params.append("*")
            marker = True
        params.append(_parameter(a, varargs and not a.kwarg_only, type_name))
    extra = (["Tensor out=None"] if has_out else []) + (["bool requires_grad=False"] if cpp.is_factory(s) else [])
    if extra and not marker and not varargs:
        params.append("*")
    params.extend(extra)
    rets = [_return_text(r) for r in s.returns]
    ret = "None" if not rets else rets[0] if len(rets) == 1 else "(" + ", ".join(rets) + ")"
    return f"{s.name}({', '.join(params)}) -> {ret}"


def docstring(signatures: list[str], text: str | None) -> str:
    """Each distinct signature on its own line, a blank line, then the text."""
    lines = list(dict.fromkeys(signatures))
    if text:
        lines += ["", textwrap.dedent(text).strip()]
    return "\n".join(lines) + "\n"


def cpp_string(text: str) -> str:
    """`text` as a C++ raw string literal."""
    if ")doc\"" in text:
        raise ValueError("a doc: text may not contain )doc\"")
    return f'R"doc({text})doc"'
