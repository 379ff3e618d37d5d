"""Docstrings of the generated Python functions and methods: the Python
signature of each overload (python.py writes them from its parameters), then
the entry's `doc:` text (a line of meaning and an example that test_docs.py
runs as a doctest)."""

from __future__ import annotations

import textwrap

from .model import Return

_RETURN_NAMES = {"Tensor": "Tensor", "int": "int", "float": "float", "bool": "bool", "Scalar": "Number",
                 "ScalarType": "dtype"}


def return_text(returns: tuple[Return, ...]) -> str:
    """`Tensor`, `(Tensor values, Tensor indices)`, `List[Tensor]`, `None`."""
    def one(r: Return) -> str:
        text = f"List[{_RETURN_NAMES[r.type.base]}]" if r.type.is_list else _RETURN_NAMES[r.type.base]
        return f"{text} {r.name}" if r.name else text

    rets = [one(r) for r in returns]
    return "None" if not rets else rets[0] if len(rets) == 1 else "(" + ", ".join(rets) + ")"


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
