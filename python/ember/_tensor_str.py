"""Text formatting of tensors (``repr(t)`` / ``str(t)``).

The output is meant to be identical to what PyTorch 2.x prints for a tensor
with the same shape, dtype and values.  The module is pure Python and only
relies on a small duck-typed tensor interface:

``dim()``, ``shape``, ``numel()``, ``dtype`` (with ``is_floating_point`` and
``is_complex``), ``tolist()``, ``item()``, integer / slice indexing,
``device`` (with ``.type``), ``requires_grad`` and ``grad_fn``.

Large tensors are summarized *before* any values are pulled into Python:
only the edge pieces (obtained by slicing) are converted with ``tolist()``.

Public API
----------
``tensor_repr(t, *, default_float_dtype_name='float32', prefix='tensor(')``
``set_printoptions(...)``, ``get_printoptions()``, ``printoptions(**kwargs)``
"""

import contextlib
import math

__all__ = [
    "tensor_repr",
    "set_printoptions",
    "get_printoptions",
    "printoptions",
]


# ---------------------------------------------------------------------------
# Print options
# ---------------------------------------------------------------------------

_DEFAULTS = {
    "precision": 4,
    "threshold": 1000,
    "edgeitems": 3,
    "linewidth": 80,
    "sci_mode": None,
}

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

_opts = dict(_DEFAULTS)


def set_printoptions(
    precision=None,
    threshold=None,
    edgeitems=None,
    linewidth=None,
    profile=None,
    sci_mode=None,
):
    """Set options that control how tensors are printed.

    Args:
        precision: digits after the decimal point for floating values
            (default 4).
        threshold: total number of elements above which the output is
            summarized with ``...`` (default 1000).
        edgeitems: number of leading / trailing items shown per dimension
            when summarizing (default 3).
        linewidth: characters per line used for wrapping (default 80).
        profile: ``'default'``, ``'short'`` or ``'full'``; applied first,
            then any explicitly given option overrides it.  Any other name
            is ignored, as in PyTorch.
        sci_mode: ``True`` forces scientific notation, ``False`` forbids it,
            ``None`` (the default) chooses automatically.  Like PyTorch, this
            option is always reset by a call that does not pass it.
    """
    if profile is not None and profile in _PROFILES:
        _opts.update(_PROFILES[profile])
    if precision is not None:
        _opts["precision"] = precision
    if threshold is not None:
        _opts["threshold"] = threshold
    if edgeitems is not None:
        _opts["edgeitems"] = edgeitems
    if linewidth is not None:
        _opts["linewidth"] = linewidth
    _opts["sci_mode"] = sci_mode


def get_printoptions():
    """Return the current print options as a new dict."""
    return dict(_opts)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager that temporarily changes the print options."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# ---------------------------------------------------------------------------
# Value formatting
# ---------------------------------------------------------------------------


class _ValueFormatter:
    """Decides how every element of one tensor (or one complex component)
    is rendered and the common column width.

    ``values`` are the Python values of all the elements that will be
    printed (i.e. after summarization).
    """

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        precision = _opts["precision"]

        if not floating:
            for v in values:
                self.width = max(self.width, len(str(v)))
            return

        finite_nonzero = [v for v in values if v != 0 and math.isfinite(v)]
        if not finite_nonzero:
            # Only zeros / nan / inf: printed as "0.", "nan", "inf" whatever
            # the sci_mode option says.
            return

        magnitudes = [abs(v) for v in finite_nonzero]
        lo = min(magnitudes)
        hi = max(magnitudes)
        self.int_mode = all(v == math.ceil(v) for v in finite_nonzero)

        wide_range = hi / lo > 1000.0 or hi > 1.0e8
        if self.int_mode:
            self.sci_mode = wide_range
        else:
            self.sci_mode = wide_range or lo < 1.0e-4

        forced = _opts["sci_mode"]
        if forced is not None:
            self.sci_mode = bool(forced)

        if self.sci_mode:
            strs = (f"{v:.{precision}e}" for v in finite_nonzero)
            self.width = max(self.width, max(len(s) for s in strs))
        elif self.int_mode:
            self.width = max(self.width, max(len(f"{v:.0f}") + 1 for v in finite_nonzero))
        else:
            strs = (f"{v:.{precision}f}" for v in finite_nonzero)
            self.width = max(self.width, max(len(s) for s in strs))

    def format(self, v):
        if self.floating:
            if self.sci_mode:
                s = f"{v:{self.width}.{_opts['precision']}e}"
            elif self.int_mode:
                s = f"{v:.0f}"
                if math.isfinite(v):
                    s += "."
            else:
                s = f"{v:.{_opts['precision']}f}"
        else:
            s = str(v)
        return s.rjust(self.width)


def _join_complex(real_str, imag_str):
    imag_str = (imag_str + "j").lstrip()
    if imag_str[0] in "+-":
        return real_str + imag_str
    return real_str + "+" + imag_str


class _ElementFormatter:
    """Formats a single element (real or complex)."""

    def __init__(self, values, floating, is_complex):
        self.is_complex = is_complex
        if is_complex:
            self.real = _ValueFormatter([complex(v).real for v in values], True)
            self.imag = _ValueFormatter([complex(v).imag for v in values], True)
            # Width of one element plus ", " and the trailing "j".
            self.element_length = self.real.width + 2 + self.imag.width + 1
        else:
            self.real = _ValueFormatter(values, floating)
            self.imag = None
            self.element_length = self.real.width + 2

    def __call__(self, v):
        if self.is_complex:
            v = complex(v)
            return _join_complex(self.real.format(v.real), self.imag.format(v.imag))
        return self.real.format(v)


# ---------------------------------------------------------------------------
# Gathering values (with summarization)
# ---------------------------------------------------------------------------


class _Elided:
    """Marker standing for the elided middle of a summarized dimension."""

    __slots__ = ()


_ELIDED = _Elided()


def _size0(t):
    return int(t.shape[0])


def _summarized_nested(t, edge):
    """Nested Python lists holding only the edge items of every dimension of
    ``t`` (dim >= 1, edge >= 1); the elided middle of a dimension is
    represented by ``_ELIDED``."""
    n = _size0(t)
    if t.dim() == 1:
        if n > 2 * edge:
            return t[:edge].tolist() + [_ELIDED] + t[n - edge:].tolist()
        return t.tolist()
    if n > 2 * edge:
        head = [_summarized_nested(t[i], edge) for i in range(edge)]
        tail = [_summarized_nested(t[i], edge) for i in range(n - edge, n)]
        return head + [_ELIDED] + tail
    return [_summarized_nested(t[i], edge) for i in range(n)]


def _flatten(nested, depth, out):
    if depth == 1:
        out.extend(v for v in nested if v is not _ELIDED)
        return out
    for sub in nested:
        if sub is not _ELIDED:
            _flatten(sub, depth - 1, out)
    return out


# ---------------------------------------------------------------------------
# Layout
# ---------------------------------------------------------------------------


def _vector_str(values, indent, fmt):
    linewidth = _opts["linewidth"]
    per_line = max(1, int(math.floor((linewidth - indent) / fmt.element_length)))
    items = [" ..." if v is _ELIDED else fmt(v) for v in values]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(nested, dim, indent, fmt):
    if dim == 1:
        return _vector_str(nested, indent, fmt)
    parts = [
        "..." if sub is _ELIDED else _nested_str(sub, dim - 1, indent + 1, fmt)
        for sub in nested
    ]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(parts) + "]"


def _tensor_body(t, indent):
    """The bracketed value part of the repr for a non-empty, non-meta
    tensor."""
    dtype = t.dtype
    is_complex = bool(dtype.is_complex)
    floating = bool(dtype.is_floating_point)
    dim = t.dim()
    summarize = t.numel() > _opts["threshold"]
    edge = int(_opts["edgeitems"])

    if dim == 0:
        v = t.item()
        return _ElementFormatter([v], floating, is_complex)(v)

    if summarize and edge <= 0:
        # Every dimension is elided entirely.
        return "[...]"

    if summarize:
        nested = _summarized_nested(t, edge)
    else:
        nested = t.tolist()
    values = _flatten(nested, dim, [])
    fmt = _ElementFormatter(values, floating, is_complex)
    return _nested_str(nested, dim, indent, fmt)


# ---------------------------------------------------------------------------
# Full repr
# ---------------------------------------------------------------------------


def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def _shape_str(t):
    return str(tuple(int(s) for s in t.shape))


def _grad_fn_name(t):
    try:
        grad_fn = getattr(t, "grad_fn", None)
    except RuntimeError:
        return "Invalid"
    if grad_fn is None:
        return None
    name_fn = getattr(grad_fn, "name", None)
    name = name_fn() if callable(name_fn) else type(grad_fn).__name__
    return str(name).rsplit("::", 1)[-1]


def _append_suffixes(body, suffixes, indent):
    linewidth = _opts["linewidth"]
    pieces = [body]
    # Same (slightly odd) measure of the last line's length as PyTorch.
    last_len = len(body) - body.rfind("\n") + 1
    for s in suffixes:
        if last_len + len(s) + 2 > linewidth:
            pieces.append(",\n" + " " * indent + s)
            last_len = indent + len(s)
        else:
            pieces.append(", " + s)
            last_len += len(s) + 2
    pieces.append(")")
    return "".join(pieces)


def tensor_repr(t, *, default_float_dtype_name="float32", prefix="tensor("):
    """Return the PyTorch-style repr of the tensor ``t``.

    Args:
        t: any object with the duck-typed tensor interface described in the
            module docstring.
        default_float_dtype_name: name of the current default floating point
            dtype (``'float32'`` or ``'float64'``); tensors of this dtype (and
            of the matching complex dtype, int64 and bool) print without a
            ``dtype=`` suffix.
        prefix: text before the values; its length is the indentation of
            continuation lines.
    """
    indent = len(prefix)
    suffixes = []

    device = t.device
    device_type = getattr(device, "type", str(device))
    if device_type != "cpu":
        suffixes.append("device='" + str(device) + "'")

    dtype = t.dtype
    dname = _dtype_name(dtype)
    default_complex = "complex128" if default_float_dtype_name == "float64" else "complex64"
    implicit_dtype = dname in (default_float_dtype_name, default_complex, "int64", "bool")
    is_default_float = dname == default_float_dtype_name

    if device_type == "meta":
        suffixes.append("size=" + _shape_str(t))
        if not is_default_float:
            suffixes.append("dtype=" + str(dtype))
        body = "..."
    elif t.numel() == 0:
        if t.dim() != 1:
            suffixes.append("size=" + _shape_str(t))
        if not is_default_float:
            suffixes.append("dtype=" + str(dtype))
        body = "[]"
    else:
        if not _opts["edgeitems"]:
            suffixes.append("size=" + _shape_str(t))
        if not implicit_dtype:
            suffixes.append("dtype=" + str(dtype))
        body = _tensor_body(t, indent)

    grad_fn_name = _grad_fn_name(t)
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif getattr(t, "requires_grad", False):
        suffixes.append("requires_grad=True")

    return _append_suffixes(prefix + body, suffixes, indent)
