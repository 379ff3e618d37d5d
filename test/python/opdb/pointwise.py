"""An OpInfo-style database of Ember's elementwise operators.

Each OpInfo names one operator (or one way of calling it: a rounding mode, a
Python operator, a reflected form) and says

* how to call it on a module (``ember`` or, as an oracle, ``torch``): the
  function, the Tensor method, the in-place method and the out= form;
* a NumPy reference computed in float64/complex128 (int64 for integer
  results, so that wrap-around matches two's complement);
* the dtypes it supports (found by trying torch 2.13 on CPU: the tests check
  that torch accepts every listed dtype and refuses the others);
* the input domain its samples are drawn from;
* sample inputs: shapes, non-contiguous views, broadcasting, Python scalars
  and operands of mixed dtypes that exercise type promotion.

Samples are recipes (SampleInput), not tensors: ``sample.materialize(lib)``
builds the same values and the same views on either module (and on the meta
device), so results and strides can be compared with torch. Nothing here
imports torch.

Known Ember bugs are listed per OpInfo as XFail entries; test_ops.py turns
them into strict xfails of exactly the (test, op, dtype) cases they break.
"""

import math
import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .dtypes import (ALL, BOOL, COMPLEX, ELEMENTWISE, FLOATS, INTS, TOLERANCES, dtype_name,  # noqa: F401
                     numpy_storage_dtype, round_to_bfloat16)

INTEGRAL = BOOL + INTS  # bitwise dtypes
REAL = BOOL + INTS + FLOATS
NUMBERS = INTS + FLOATS + COMPLEX  # everything but bool
REAL_NUMBERS = INTS + FLOATS

KIND = {d: ("b" if d == "bool" else "i" if d in INTS else "f" if d in FLOATS else "c") for d in ALL}


def is_float(d):
    return d in FLOATS


def is_complex(d):
    return d in COMPLEX


def cast_like(values, d):
    """values (any NumPy array) converted to the values dtype `d` can hold."""
    with np.errstate(all="ignore"):
        if d == "bfloat16":
            return round_to_bfloat16(np.asarray(values).astype(np.float32))
        return np.asarray(values).astype(np.dtype(d))


# ---- samples ---------------------------------------------------------------------


class TensorSpec:
    """A tensor to build: values (NumPy, of the storage dtype), its ember
    dtype name and an optional view applied after building (the same
    callable works on ember and torch tensors)."""

    def __init__(self, values, dtype, view=None, view_name=""):
        self.values = values
        self.dtype = dtype
        self.view = view
        self.view_name = view_name

    def make(self, lib, device="cpu"):
        array = np.array(self.values, dtype=numpy_storage_dtype(self.dtype), copy=True)
        t = lib.from_numpy(array)
        if self.dtype == "bfloat16":
            t = t.to(lib.bfloat16)
        if device != "cpu":
            t = t.to(device)
        return self.view(t) if self.view is not None else t

    def __repr__(self):
        base = f"{self.dtype}{list(np.shape(self.values))}"
        return f"{base}.{self.view_name}" if self.view is not None else base


@dataclass
class SampleInput:
    args: tuple  # positional arguments: TensorSpecs and Python scalars
    kwargs: dict = field(default_factory=dict)  # may hold TensorSpecs too
    desc: str = ""

    def specs(self):
        return [a for a in list(self.args) + list(self.kwargs.values()) if isinstance(a, TensorSpec)]

    @property
    def tensor_only(self):
        """Every positional operand is a tensor (no Python scalars)."""
        return all(isinstance(a, TensorSpec) for a in self.args)

    @property
    def noncontiguous(self):
        return any(s.view is not None for s in self.specs())

    def materialize(self, lib, device="cpu"):
        def build(a):
            return a.make(lib, device) if isinstance(a, TensorSpec) else a

        return [build(a) for a in self.args], {k: build(v) for k, v in self.kwargs.items()}

    def __repr__(self):
        kw = "".join(f", {k}={v!r}" for k, v in self.kwargs.items())
        return f"<{self.desc}: ({', '.join(map(repr, self.args))}{kw})>"


# ---- the database ----------------------------------------------------------------


_SAMPLE_CACHE = {}


def _parameters(schema):
    """[(type, name, has_default, keyword_only)] of a schema string's parameters."""
    inside = schema[schema.index("(") + 1:schema.rindex(") ->")]
    out, keyword_only = [], False
    for p in inside.split(", "):
        if p == "*":
            keyword_only = True
            continue
        type_, name = p.split("=")[0].split(" ")[:2]
        out.append((type_.split("(")[0], name, "=" in p, keyword_only))
    return out


def number_overloads(lib, name, args, kwargs):
    """The overloads of aten::<name> that take the Python numbers among
    `args` as Scalar parameters (add.Scalar for (tensor, 2)). Python's
    ember.<name> never picks them, as it wraps numbers as tensors (as torch
    does); C++ callers and ember.ops.aten do."""
    kinds = ["Tensor" if hasattr(a, "shape") else "Scalar" for a in args]
    packet = getattr(lib.ops.aten, name, None) if "Scalar" in kinds else None
    if packet is None:
        return []
    found = []
    for overload in packet.overloads():
        op = getattr(packet, overload)
        params = _parameters(op.schema)
        positional = [t for t, _, _, kw in params if not kw]
        required = {n for _, n, default, kw in params if kw and not default}
        names = {n for _, n, _, _ in params}
        if (positional[:len(args)] == kinds and required <= set(kwargs) <= names and "out" not in names
                and all(default for _, _, default, kw in params[len(args):] if not kw)):
            found.append(op)
    return found


def number_overload_calls(op, lib, args, kwargs):
    """[(overload, call, what it must match)] for each overload of the op
    taking the sample's Python numbers as Scalar (add.Scalar, add_.Scalar,
    pow.Tensor_Scalar): what C++ callers reach, never ember.<op> from Python.
    A function overload matches ember.<op>, an in-place one Tensor.<op>_."""
    if op.fn is not None:  # an operator or a spelling of its own: not aten::<op.aten>
        return []
    kwargs = {**op.kwargs, **kwargs}
    calls = [(o, lambda o=o: o(*args, **kwargs), lambda: op(lib, *args, **kwargs))
             for o in number_overloads(lib, op.aten, args, kwargs)]
    if op.has_inplace and hasattr(args[0], "shape"):
        calls += [(o, lambda o=o: o(args[0].clone(), *args[1:], **kwargs),
                   lambda: op.call_inplace(lib, [args[0].clone()] + list(args[1:]), kwargs))
                  for o in number_overloads(lib, op.aten + "_", args, kwargs)]
    return calls


@dataclass
class XFail:
    """A known Ember bug: `test` (a test function name) fails for these dtypes."""

    test: str
    reason: str
    dtypes: tuple = ALL
    skip: bool = False  # skip instead: the failure depends on uninitialized memory
    needs_torch: bool = False  # only torch shows it (a different exception type)


@dataclass
class OpInfo:
    name: str  # test id: "add", "div.floor", "__radd__"
    ref: Callable  # NumPy reference on float64/complex128/int64/bool arrays
    dtypes: tuple  # dtypes the op supports (as torch does)
    kind: str  # "unary" or "binary" (also where/clamp, with their own samples)
    aten: Optional[str] = None  # ember.<aten>; defaults to name
    fn: Optional[Callable] = None  # fn(lib, *args, **kwargs) instead of lib.<aten>
    torch_fn: Optional[Callable] = None  # torch's spelling where it differs
    kwargs: dict = field(default_factory=dict)  # fixed keyword arguments
    method: bool = True  # Tensor.<aten> exists (in torch)
    method_call: Optional[Callable] = None  # method_call(args, kwargs) where not args[0].<aten>(*args[1:])
    inplace: Optional[Callable] = None  # inplace(lib, t, *args, **kwargs) instead of t.<aten>_(...)
    has_inplace: bool = True  # Tensor.<aten>_ exists
    torch_has_inplace: bool = True  # torch has the same in-place method
    function_inplace: bool = False  # <lib>.<aten>_ exists (torch.abs_)
    supports_out: bool = True  # ember declares an out= overload
    torch_supports_out: bool = True
    promotes_int_to_float: bool = False
    # Real-valued domains of the samples, (low, high), for floats and ints.
    domain: tuple = (-6.0, 6.0)
    int_domain: tuple = (-20, 20)
    other_domain: Optional[tuple] = None
    other_int_domain: Optional[tuple] = None
    other_nonzero: bool = False  # integer divisors exclude zero
    self_nonzero: bool = False  # ... and for reflected division, the tensor (bools all True)
    discrete: bool = False  # draw values from a few small integers (ties, zeros)
    extra_values: tuple = ()  # extra float sample values (e.g. halves for round)
    scalars: dict = field(default_factory=lambda: {"int": 2, "float": -1.5, "bool": True, "complex": 1 - 2j})
    scalar_other: bool = True  # the second operand may be a Python number
    tensor_other: bool = True  # ... or a tensor
    reflected: bool = False  # fn(lib, a, s) computes s <op> a: samples are (tensor, scalar)
    specials: bool = True  # run the NaN/inf/-0 sample
    sample_fn: Optional[Callable] = None
    xfails: list = field(default_factory=list)
    notes: str = ""

    def __post_init__(self):
        if self.aten is None:
            self.aten = self.name

    # -- calling -------------------------------------------------------------

    def __call__(self, lib, *args, **kwargs):
        kwargs = {**self.kwargs, **kwargs}
        if lib.__name__ == "torch" and self.torch_fn is not None:
            return self.torch_fn(lib, *args, **kwargs)
        if self.fn is not None:
            return self.fn(lib, *args, **kwargs)
        return getattr(lib, self.aten)(*args, **kwargs)

    def call_method(self, args, kwargs):
        kwargs = {**self.kwargs, **kwargs}
        if self.method_call is not None:
            return self.method_call(args, kwargs)
        return getattr(args[0], self.aten)(*args[1:], **kwargs)

    def call_inplace(self, lib, args, kwargs):
        kwargs = {**self.kwargs, **kwargs}
        if self.inplace is not None:
            return self.inplace(lib, *args, **kwargs)
        return getattr(args[0], self.aten + "_")(*args[1:], **kwargs)

    def reference(self, np_args, np_kwargs):
        with np.errstate(all="ignore"):
            return np.asarray(self.ref(*np_args, **{**self.kwargs, **np_kwargs}))

    def samples(self, dtype, seed=0):
        """The op's samples for `dtype` (deterministic; cached, as recipes are immutable)."""
        key = (self.name, dtype, seed)
        if key not in _SAMPLE_CACHE:
            rng = np.random.default_rng(seed + sum(map(ord, self.name + dtype)))
            fn = self.sample_fn or (sample_unary if self.kind == "unary" else sample_binary)
            _SAMPLE_CACHE[key] = list(fn(self, dtype, rng))
        return _SAMPLE_CACHE[key]

    def xfail_for(self, test, dtype=None):
        for x in self.xfails:
            if x.test == test and (dtype is None or dtype in x.dtypes):
                return x
        return None

    def __repr__(self):
        return self.name


# ---- value generation ------------------------------------------------------------


def make_values(op, d, shape, rng, role="self"):
    """Values for a tensor of dtype `d` in the op's domain (NumPy, storage dtype)."""
    n = int(np.prod(shape, dtype=np.int64))
    if d == "bool":
        v = rng.integers(0, 2, n).astype(bool) | ((role == "self" and op.self_nonzero)
                                                  or (role == "other" and op.other_nonzero))
    elif op.discrete:
        lo, hi = (0, 3) if d == "uint8" else (-2, 3)
        v = rng.integers(lo, hi, n)
        if is_complex(d):
            v = v + 1j * rng.integers(-1, 2, n)
    elif d in INTS:
        lo, hi = (op.other_int_domain if role == "other" and op.other_int_domain else op.int_domain)
        info = np.iinfo(d)
        lo, hi = max(lo, info.min), min(hi, info.max)
        v = rng.integers(lo, hi + 1, n)
        if role == "other" and op.other_nonzero and (v == 0).any():
            v[v == 0] = hi if hi != 0 else lo
    elif is_float(d):
        lo, hi = (op.other_domain if role == "other" and op.other_domain else op.domain)
        v = rng.uniform(lo, hi, n)
        if role == "other" and op.other_nonzero:
            v[np.abs(v) < 0.25] = 0.5
    else:
        lo, hi = (op.other_domain if role == "other" and op.other_domain else op.domain)
        # Complex samples keep to modest magnitudes (no overflow in exp/sinh).
        scale = min(3.0, max(abs(lo), abs(hi)))
        v = rng.uniform(-scale, scale, n) + 1j * rng.uniform(-scale, scale, n)
        if lo >= 0 and hi > 0:
            v = v.real.clip(0.1, None) + 1j * v.imag  # e.g. pow bases
    return cast_like(np.asarray(v).reshape(shape), d)


def T(op, d, shape, rng, role="self", view=None, view_name=""):
    return TensorSpec(make_values(op, d, shape, rng, role), d, view, view_name)


# Non-contiguous views: (base shape, view, name). The result shape is noted.
VIEWS = [
    ((4, 3), lambda t: t.t(), "t()"),  # (3, 4) transposed
    ((6, 8), lambda t: t[::2, 1::2], "[::2,1::2]"),  # (3, 4) strided slice
    ((1, 4), lambda t: t.expand(3, 4), "expand(3,4)"),  # (3, 4) zero stride
    ((3, 1), lambda t: t.expand(3, 4), "expand(3,4)"),  # (3, 4) zero stride
    ((4, 2, 3), lambda t: t.permute(1, 2, 0), "permute(1,2,0)"),  # (2, 3, 4)
]
UNARY_SHAPES = [(), (5,), (3, 4), (2, 3, 4), (0, 3)]

SPECIAL_FLOATS = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, -2.5, 0.5]


def special_values(d):
    return cast_like(np.array(SPECIAL_FLOATS), d)


def same_dtype_samples(op, d, rng):
    """The binary samples whose operands are all tensors of dtype d (heaviside takes no others)."""
    for sample in sample_binary(op, d, rng):
        if all(isinstance(a, TensorSpec) and a.dtype == d for a in sample.args):
            yield sample


def sample_unary(op, d, rng):
    for shape in UNARY_SHAPES:
        yield SampleInput((T(op, d, shape, rng),), desc=f"shape {shape}")
    for base, view, vname in VIEWS:
        yield SampleInput((T(op, d, base, rng, view=view, view_name=vname),), desc=f"view {vname}")
    if op.extra_values and is_float(d):
        yield SampleInput((TensorSpec(cast_like(np.array(op.extra_values), d), d),), desc="extra values")
    if d in INTS and not op.promotes_int_to_float:
        info = np.iinfo(d)
        ext = np.array([info.min, info.max, info.min + 1, -1 if info.min else 1, 0, 1], dtype=d)
        yield SampleInput((TensorSpec(ext, d),), desc="integer extremes")


def scalar_samples(op, d):
    """Python numbers usable as `other` with a `d` tensor."""
    out = []
    for kind, value in op.scalars.items():
        if kind == "bool" and "bool" not in op.dtypes:
            continue
        if kind == "float" and not any(x in op.dtypes for x in FLOATS if x != "float16"):
            continue
        if kind == "float" and d in INTEGRAL and "float32" not in op.dtypes:
            continue
        if kind == "complex":
            # float16 + complex gives torch's complex32, which Ember lacks (deliberately).
            if "complex64" not in op.dtypes or d == "float16":
                continue
        if kind == "int" and d == "uint8" and isinstance(value, int) and value < 0:
            value = -value
        out.append((kind, value))
    return out


def promote(d1, d2):
    """torch.promote_types on names, for dimensioned operands."""
    if d1 == d2:
        return d1
    order = {"b": 0, "i": 1, "f": 2, "c": 3}
    k1, k2 = KIND[d1], KIND[d2]
    if k1 != k2:
        lo, hi = (d1, d2) if order[k1] < order[k2] else (d2, d1)
        if KIND[hi] == "c" and KIND[lo] == "f":
            return "complex128" if lo == "float64" or hi == "complex128" else "complex64"
        return hi
    if k1 == "i":
        if {d1, d2} == {"uint8", "int8"}:
            return "int16"
        if "uint8" in (d1, d2):
            return d2 if d1 == "uint8" else d1
        return max(d1, d2, key=INTS.index)
    if k1 == "f":
        if {d1, d2} == {"float16", "bfloat16"}:
            return "float32"
        return max(d1, d2, key=FLOATS.index)
    return max(d1, d2, key=COMPLEX.index)


# Partners of another dtype for the mixed-dtype samples.
DIM_PARTNERS = {
    "bool": ("int32", "float32"),
    "uint8": ("int8", "float32"),
    "int8": ("uint8", "int32"),
    "int16": ("float32", "int8"),
    "int32": ("float32", "int8"),
    "int64": ("float32", "int16"),
    "float16": ("float32", "bfloat16"),
    "bfloat16": ("float16", "int64"),
    "float32": ("float64", "int32"),
    "float64": ("float32", "complex64"),
    "complex64": ("float64", "complex128"),
    "complex128": ("complex64", "float32"),
}
ZERO_DIM_PARTNERS = {
    "float16": ("float32", "int64"),
    "float32": ("float64", "int64"),
}


def accepts_pair(op, d1, d2):
    return d1 in op.dtypes and d2 in op.dtypes and promote(d1, d2) in op.dtypes


def sample_binary(op, d, rng):
    A = lambda shape, dt=d, **kw: T(op, dt, shape, rng, "self", **kw)  # noqa: E731
    B = lambda shape, dt=d, **kw: T(op, dt, shape, rng, "other", **kw)  # noqa: E731
    if op.reflected:
        # s <op> tensor: the sample is (tensor, scalar).
        for kind, value in scalar_samples(op, d):
            yield SampleInput((A((3, 4)), value), desc=f"{kind} scalar")
            yield SampleInput((A((5,)), value), desc=f"{kind} scalar, 1-d")
        yield SampleInput((A((4, 3), view=lambda t: t.t(), view_name="t()"), op.scalars["int"]), desc="transposed")
        return
    if op.tensor_other:
        pairs = [((3, 4), (3, 4)), ((5,), (5,)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (3,)), ((3,), ()),
                 ((), ()), ((2, 3, 4), (3, 1)), ((0, 3), (3,))]
        for sa, sb in pairs:
            yield SampleInput((A(sa), B(sb)), desc=f"{sa} with {sb}")
        t_view = dict(view=lambda t: t.t(), view_name="t()")
        yield SampleInput((A((4, 3), **t_view), B((3, 4))), desc="transposed self")
        yield SampleInput((A((3, 4)), B((4, 3), **t_view)), desc="transposed other")
        yield SampleInput((A((4, 3), **t_view), B((4, 3), **t_view)), desc="both transposed")
        yield SampleInput((A((6, 8), view=lambda t: t[::2, 1::2], view_name="[::2,1::2]"),
                           B((1, 4), view=lambda t: t.expand(3, 4), view_name="expand(3,4)")),
                          desc="strided slice with expanded")
        yield SampleInput((A((4, 2, 3), view=lambda t: t.permute(1, 2, 0), view_name="permute(1,2,0)"), B((4,))),
                          desc="permuted with broadcast")
        for p in DIM_PARTNERS[d]:
            if accepts_pair(op, d, p):
                yield SampleInput((A((3, 4)), B((3, 4), p)), desc=f"mixed {d} with {p}")
                yield SampleInput((A((3,), p), B((2, 3))), desc=f"mixed {p} with {d}")
        for p in ZERO_DIM_PARTNERS.get(d, ("float64", "int64")):
            if accepts_pair(op, d, p):
                yield SampleInput((A((3, 4)), B((), p)), desc=f"mixed {d} with 0-d {p}")
                yield SampleInput((A((), p), B((4,))), desc=f"mixed 0-d {p} with {d}")
    if op.scalar_other:
        for kind, value in scalar_samples(op, d):
            yield SampleInput((A((3, 4)), value), desc=f"{kind} scalar other")
            yield SampleInput((A(()), value), desc=f"{kind} scalar other, 0-d self")
        if not op.tensor_other:
            yield SampleInput((A((4, 3), view=lambda t: t.t(), view_name="t()"), op.scalars["int"]),
                              desc="transposed with scalar other")
    if d in INTS and op.name in ("add", "sub", "mul", "__add__", "__sub__", "__mul__"):
        info = np.iinfo(d)
        ext = np.array([info.min, info.max, info.max, -1 if info.min else 1, 0], dtype=d)
        other = np.array([-1 if info.min else 1, 1, info.max, info.min, info.min], dtype=d)
        yield SampleInput((TensorSpec(ext, d), TensorSpec(other, d)), desc="integer extremes (wrap)")


def sample_special_binary(op, d):
    s = special_values(d)
    return SampleInput((TensorSpec(s.reshape(-1, 1), d), TensorSpec(s.reshape(1, -1), d)), desc="specials grid")


def sample_where(op, d, rng):
    C = lambda shape: TensorSpec(rng.integers(0, 2, int(np.prod(shape))).astype(bool).reshape(shape), "bool")  # noqa
    A = lambda shape, dt=d, **kw: T(op, dt, shape, rng, "self", **kw)  # noqa: E731
    if op.name == "where":
        for sc, sa, sb in [((3, 4), (3, 4), (3, 4)), ((5,), (5,), (5,)), ((3, 1), (1, 4), (4,)), ((), (3,), ()),
                           ((3, 4), (), ()), ((0, 3), (3,), (0, 1))]:
            yield SampleInput((C(sc), A(sa), A(sb)), desc=f"{sc}, {sa}, {sb}")
        yield SampleInput((C((3, 4)), A((4, 3), view=lambda t: t.t(), view_name="t()"), A((3, 4))), desc="transposed")
        yield SampleInput((TensorSpec(C((4, 3)).values, "bool", lambda t: t.t(), "t()"), A((3, 4)),
                           A((1, 4), view=lambda t: t.expand(3, 4), view_name="expand(3,4)")), desc="views")
        for p in DIM_PARTNERS[d]:
            yield SampleInput((C((3, 4)), A((3, 4)), A((3, 4), p)), desc=f"mixed {d} with {p}")
        for p in ZERO_DIM_PARTNERS.get(d, ("float64", "int64")):
            yield SampleInput((C((3, 4)), A((3, 4)), A((), p)), desc=f"mixed {d} with 0-d {p}")
    elif op.name == "where.scalar_other":  # where(cond, tensor, number)
        for kind, value in scalar_samples(op, d):
            yield SampleInput((C((3, 4)), A((3, 4)), value), desc=f"{kind} scalar other")
            yield SampleInput((C((3, 1)), A((4,)), value), desc=f"{kind} scalar other, broadcast")
            yield SampleInput((C((3, 4)), A((4, 3), view=lambda t: t.t(), view_name="t()"), value),
                              desc=f"{kind} scalar other, transposed")
    else:  # where.scalar_self: where(cond, number, tensor)
        for kind, value in scalar_samples(op, d):
            yield SampleInput((C((3, 4)), value, A((3, 4))), desc=f"{kind} scalar self")
            yield SampleInput((C((3, 1)), value, A((4,))), desc=f"{kind} scalar self, broadcast")
            yield SampleInput((C((3, 4)), value, A((4, 3), view=lambda t: t.t(), view_name="t()")),
                              desc=f"{kind} scalar self, transposed")


def clamp_bounds(d):
    if d == "bool":
        return False, True
    if d == "uint8":
        return 2, 9
    if d in INTS:
        return -3, 5
    return -1.5, 2.25


def sample_clamp(op, d, rng):
    A = lambda shape, dt=d, **kw: T(op, dt, shape, rng, "self", **kw)  # noqa: E731
    lo, hi = clamp_bounds(d)
    tview = dict(view=lambda t: t.t(), view_name="t()")
    if op.name in ("clamp", "clip"):  # Scalar bounds
        for shape in [(3, 4), (5,), (), (0, 3)]:
            yield SampleInput((A(shape), lo, hi), desc=f"shape {shape}")
        yield SampleInput((A((4, 3), **tview), lo, hi), desc="transposed")
        yield SampleInput((A((1, 4), view=lambda t: t.expand(3, 4), view_name="expand(3,4)"), lo, hi), desc="expanded")
        yield SampleInput((A((3, 4)), hi, lo), desc="min > max")
        if d in INTS:
            yield SampleInput((A((3, 4)), -0.5, 4.5), desc="float bounds on integers (promotes)")
    elif op.name == "clamp.min":
        yield SampleInput((A((3, 4)),), {"min": lo}, desc="min only")
        yield SampleInput((A((4, 3), **tview),), {"min": lo}, desc="min only, transposed")
        yield SampleInput((A(()),), {"min": lo}, desc="min only, 0-d")
    elif op.name == "clamp.max":
        yield SampleInput((A((3, 4)),), {"max": hi}, desc="max only")
        yield SampleInput((A((4, 3), **tview),), {"max": hi}, desc="max only, transposed")
        yield SampleInput((A(()),), {"max": hi}, desc="max only, 0-d")
    else:  # clamp.Tensor
        def bound(shape, value, dt=d):
            return TensorSpec(cast_like(np.full(shape, value) + make_values(op, "int8", shape, rng) % 2, dt), dt)

        yield SampleInput((A((3, 4)), bound((4,), lo), bound((3, 1), hi)), desc="broadcast bounds")
        yield SampleInput((A((3, 4)), bound((3, 4), lo), bound((3, 4), hi)), desc="same-shape bounds")
        yield SampleInput((A((4, 3), **tview), bound((4,), lo), bound((), hi)), desc="transposed, 0-d max")
        yield SampleInput((A((3, 4)),), {"min": bound((4,), lo)}, desc="tensor min only")
        yield SampleInput((A((3, 4)),), {"max": bound((3, 1), hi)}, desc="tensor max only")
        yield SampleInput((A((3, 4)), bound((4,), hi), bound((4,), lo)), desc="min > max")
        yield SampleInput((A((3,)), bound((2, 3), lo), bound((3,), hi)), desc="bounds broadcast the result")
        for p in DIM_PARTNERS[d]:
            if accepts_pair(op, d, p):
                p_lo, p_hi = clamp_bounds(p) if KIND[p] != "b" else (False, True)
                yield SampleInput((A((3, 4)), bound((4,), p_lo, p), bound((4,), p_hi, p)), desc=f"{p} bounds")


# ---- references ------------------------------------------------------------------

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _float(x):
    return np.asarray(x, dtype=np.float64) if np.asarray(x).dtype.kind in "biuf" else np.asarray(x)


def ref_sign(x):
    if x.dtype == bool:
        return x
    # torch.sign(nan) is 0, NumPy's is nan: follow torch.
    return np.where(np.isnan(x), 0, np.sign(x)) if x.dtype.kind == "f" else np.sign(x)


def ref_sgn(x):
    if x.dtype.kind == "c":
        magnitude = np.abs(x)
        return np.where(magnitude == 0, 0, x / np.where(magnitude == 0, 1, magnitude))
    return ref_sign(x)


def ref_angle(x):
    if x.dtype.kind == "c":
        return np.angle(x)
    x = _float(x)  # torch: pi below zero (not at -0.0), NaN kept
    return np.where(np.isnan(x), x, np.where(x < 0, np.pi, 0)).astype(x.dtype)


def ref_logit(x, eps=None):
    x = _float(x)
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return np.log(x / (1 - x))


def ref_logaddexp(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "c" or b.dtype.kind == "c":  # torch's branch: the larger real part factored out
        a, b = np.broadcast_arrays(a.astype(np.complex128), b.astype(np.complex128))
        larger, smaller = np.where(a.real >= b.real, a, b), np.where(a.real >= b.real, b, a)
        return larger + np.log(1 + np.exp(smaller - larger))
    return np.logaddexp(a, b)


def ref_xlogy(x, y):
    x, y = _float(x), _float(y)
    return np.where(np.isnan(y), np.nan, np.where(x == 0, 0.0, x * np.log(y)))


def ref_heaviside(x, values):
    # torch's step at NaN is 0 (NumPy's is NaN): Ember follows torch.
    return np.where(x == 0, values, x > 0).astype(np.result_type(x, values))


def ref_float_power(a, b):
    a, b = np.asarray(a), np.asarray(b)
    dtype = np.complex128 if a.dtype.kind == "c" or b.dtype.kind == "c" else np.float64
    return np.power(a.astype(dtype), b.astype(dtype))


def ref_gelu(x, approximate="none"):
    x = _float(x)
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def ref_round_int_identity(fn):
    return lambda x: x if x.dtype.kind in "biu" else fn(x)


def ref_div(a, b, rounding_mode=None):
    a, b = np.asarray(a), np.asarray(b)
    if rounding_mode is None:
        return np.true_divide(a, b)
    integral = a.dtype.kind in "biu" and np.asarray(b).dtype.kind in "biu"
    if rounding_mode == "floor":
        return np.floor_divide(a, b)
    if integral:  # exact truncating division
        q = np.floor_divide(a, b)
        return q + ((np.remainder(a, b) != 0) & ((a < 0) != (np.asarray(b) < 0)))
    return np.trunc(np.true_divide(a, b))


def ref_add(a, b, alpha=1):
    if np.asarray(a).dtype == bool and np.asarray(b).dtype == bool:
        return np.logical_or(a, np.logical_and(b, bool(alpha)))
    return a + alpha * np.asarray(b) if alpha != 1 else a + b


def ref_clamp(x, min=None, max=None):
    # torch: a NaN bound gives NaN (np.maximum/np.minimum propagate it too).
    if min is not None:
        x = np.maximum(x, min)
    if max is not None:
        x = np.minimum(x, max)
    return x


def ref_pow(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        return np.power(a.astype(np.int64), b.astype(np.int64))
    return np.power(a, b)


# ---- torch spellings -------------------------------------------------------------


def _torch_nn(name):
    return lambda torch, *args, **kwargs: getattr(torch.nn.functional, name)(*args, **kwargs)


# ---- the operators ---------------------------------------------------------------

F_ALL = FLOATS + COMPLEX

SIGN_COMPLEX = "torch raises NotImplementedError for sign on complex, Ember RuntimeError"
CMP_OUT = ("comparison/logical kernels write bool into an output buffer of the inputs' common dtype whenever "
           "out= is given or in-place (raw bool bytes: garbage for out= wider than 1 byte, wrong values in place)")


def cmp_out_bug():
    # Whether a case fails depends on what the uninitialized buffer held: skip
    # them all (test_known_bug has deterministic repros).
    return [XFail(t, CMP_OUT, ALL, skip=True) for t in
            ("test_out", "test_out_wider_dtype", "test_inplace", "test_inplace_like_torch")]


COMPLEX_MISSING = "Ember lacks the complex kernel torch has (NotImplementedError)"
MORE_PERMISSIVE = "Ember accepts a dtype torch rejects (computes instead of raising NotImplementedError)"

_unary = []

# Tests that run complex samples of an op Ember lacks a complex kernel for.
COMPLEX_TESTS = ("test_reference_values", "test_like_torch", "test_noncontiguous", "test_meta", "test_out",
                 "test_out_wider_dtype", "test_out_unsafe_cast_raises", "test_inplace", "test_inplace_like_torch",
                 "test_inplace_unsafe_cast_raises", "test_method")


def complex_missing():
    return [XFail(t, COMPLEX_MISSING, COMPLEX) for t in COMPLEX_TESTS]


def unary(name, ref, dtypes, *, to_float=True, **kw):
    op = OpInfo(name, ref=ref, dtypes=dtypes, kind="unary", promotes_int_to_float=to_float,
                function_inplace=True, **kw)
    _unary.append(op)
    return op


POS = dict(domain=(0.1, 6.0), int_domain=(1, 20))

unary("abs", np.abs, NUMBERS, to_float=False)
unary("neg", np.negative, NUMBERS, to_float=False)
unary("exp", np.exp, ALL)
unary("exp2", np.exp2, ALL)
unary("log", np.log, ALL, **POS)
unary("log2", np.log2, ALL, **POS)
unary("log10", np.log10, ALL, **POS)
unary("log1p", np.log1p, ALL, domain=(-0.9, 6.0), int_domain=(0, 20))
unary("expm1", np.expm1, ALL)
unary("sqrt", np.sqrt, ALL, **POS)
unary("rsqrt", lambda x: 1 / np.sqrt(x), ALL, **POS)
unary("sin", np.sin, ALL)
unary("cos", np.cos, ALL)
unary("tan", np.tan, ALL, domain=(-1.4, 1.4), int_domain=(-1, 1))
unary("asin", np.arcsin, ALL, domain=(-0.95, 0.95), int_domain=(-1, 1))
unary("acos", np.arccos, ALL, domain=(-0.95, 0.95), int_domain=(-1, 1))
unary("atan", np.arctan, ALL)
unary("sinh", np.sinh, ALL)
unary("cosh", np.cosh, ALL)
unary("tanh", np.tanh, ALL)
unary("sigmoid", lambda x: 1 / (1 + np.exp(-x)), ALL)
unary("erf", lambda x: _erf(_float(x)), REAL)
unary("erfc", lambda x: _erfc(_float(x)), REAL)
unary("reciprocal", lambda x: np.true_divide(1, x), ALL, domain=(0.25, 6.0), int_domain=(1, 20))
unary("floor", ref_round_int_identity(np.floor), REAL_NUMBERS, to_float=False)
unary("ceil", ref_round_int_identity(np.ceil), REAL_NUMBERS, to_float=False)
unary("round", ref_round_int_identity(np.rint), REAL_NUMBERS, to_float=False,
      extra_values=(0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 0.25))
unary("trunc", ref_round_int_identity(np.trunc), REAL_NUMBERS, to_float=False)
unary("frac", lambda x: x - np.trunc(x), FLOATS, to_float=False)
unary("sign", ref_sign, REAL, to_float=False)
unary("relu", lambda x: np.where(np.isnan(x), x, np.maximum(x, 0)).astype(x.dtype) if x.dtype.kind == "f"
      else np.maximum(x, 0).astype(x.dtype), REAL_NUMBERS, to_float=False, torch_supports_out=False)
unary("silu", lambda x: x / (1 + np.exp(-x)), F_ALL, to_float=False, torch_fn=_torch_nn("silu"), method=False,
      torch_supports_out=False, torch_has_inplace=False)
for _approx in ("none", "tanh"):
    unary("gelu" if _approx == "none" else "gelu.tanh", ref_gelu, FLOATS, to_float=False, aten="gelu",
          kwargs={"approximate": _approx} if _approx == "tanh" else {}, torch_fn=_torch_nn("gelu"), method=False,
          torch_supports_out=False, torch_has_inplace=False)
unary("logical_not", np.logical_not, ALL, to_float=False)


def _torch_c_nn(name):
    """torch's spelling of an nn op that Ember has at top level: torch._C._nn.<name> (which takes out=)."""
    return lambda torch, *args, **kwargs: getattr(torch._C._nn, name)(*args, **kwargs)


def _nn_inplace(name, torch_module):
    """The in-place form <lib>.<name>_ (torch's under torch_module: "_C._nn" or "")."""
    def call(lib, t, *args, **kwargs):
        home = lib
        if lib.__name__ == "torch":
            for part in filter(None, torch_module.split(".")):
                home = getattr(home, part)
        return getattr(home, name + "_")(t, *args, **kwargs)
    return call


NN_ACTIVATIONS = set()  # ops of _nn_unary: no Tensor methods, torch's in-place form outside torch.Tensor


def _nn_unary(name, ref, dtypes, torch_module="_C._nn", **kw):
    """An activation Ember has as ember.<name> (and ember.<name>_), not as a Tensor method."""
    NN_ACTIVATIONS.add(name)
    torch_fn = _torch_c_nn(name) if torch_module == "_C._nn" else None
    if kw.pop("has_inplace", True):
        kw.update(inplace=_nn_inplace(name, torch_module))
    else:
        kw.update(has_inplace=False)
    return unary(name if "kwargs" not in kw else name + "." + "_".join(kw["kwargs"]), ref, dtypes, to_float=False,
                 aten=name, torch_fn=torch_fn, method=False, **kw)


def ref_elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
    x = _float(x)
    return scale * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0) * input_scale))


SELU = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)
_nn_unary("elu", ref_elu, FLOATS)
_nn_unary("elu", ref_elu, FLOATS, kwargs={"alpha": 0.5, "scale": 2.0, "input_scale": 1.5})
_nn_unary("selu", lambda x: ref_elu(x, *SELU), FLOATS, torch_module="", supports_out=False, torch_supports_out=False)
_nn_unary("celu", lambda x, alpha=1.0: ref_elu(x, alpha, 1.0, 1.0 / alpha), FLOATS, torch_module="",
          supports_out=False, torch_supports_out=False, kwargs={"alpha": 2.0})
_nn_unary("leaky_relu", lambda x, negative_slope=0.01: np.where(x > 0, x, x * negative_slope), FLOATS)
_nn_unary("leaky_relu", lambda x, negative_slope=0.01: np.where(x > 0, x, x * negative_slope), FLOATS,
          kwargs={"negative_slope": 0.2})
_nn_unary("hardswish", lambda x: x * np.clip(x + 3, 0, 6) / 6, FLOATS, extra_values=(-3.0, 3.0))
_nn_unary("hardsigmoid", lambda x: np.clip(x + 3, 0, 6) / 6, FLOATS, extra_values=(-3.0, 3.0))
# Unsigned inputs with negative limits raise, as in torch.
SIGNED_NUMBERS = tuple(d for d in REAL_NUMBERS if d != "uint8")
_nn_unary("hardtanh", lambda x, min_val=-1, max_val=1: np.clip(x, min_val, max_val), SIGNED_NUMBERS)
_nn_unary("hardtanh", lambda x, min_val=-1, max_val=1: np.clip(x, min_val, max_val), SIGNED_NUMBERS,
          kwargs={"min_val": -2, "max_val": 3})
_nn_unary("threshold", lambda x, threshold, value: np.where(x <= threshold, value, x).astype(x.dtype), REAL_NUMBERS,
          torch_module="", kwargs={"threshold": 1, "value": -3})
_nn_unary("softplus", lambda x, beta=1.0, threshold=20.0: np.where(x * beta > threshold, x,
                                                                      np.log1p(np.exp(x * beta)) / beta), FLOATS,
          has_inplace=False)
_nn_unary("softplus", lambda x, beta=1.0, threshold=20.0: np.where(x * beta > threshold, x,
                                                                      np.log1p(np.exp(x * beta)) / beta), FLOATS,
          has_inplace=False, kwargs={"beta": 2.0, "threshold": 3.0})
unary("bitwise_not", np.invert, INTEGRAL, to_float=False)

unary("asinh", np.arcsinh, ALL)
unary("acosh", np.arccosh, ALL, domain=(1.05, 6.0), int_domain=(1, 20))
unary("atanh", np.arctanh, ALL, domain=(-0.95, 0.95), int_domain=(-1, 1))
unary("sinc", lambda x: np.sinc(_float(x)), ALL)
unary("deg2rad", lambda x: np.deg2rad(_float(x)), REAL)
unary("rad2deg", lambda x: np.rad2deg(_float(x)), REAL)
unary("signbit", lambda x: np.signbit(_float(x)), REAL, to_float=False, has_inplace=False)
unary("sgn", ref_sgn, ALL, to_float=False)
unary("angle", ref_angle, ALL, has_inplace=False)
unary("conj_physical", np.conj, ALL, to_float=False)
unary("square", lambda x: np.square(x.astype(np.int64) if x.dtype == bool else x), ALL, to_float=False)
unary("positive", lambda x: x, NUMBERS, to_float=False, has_inplace=False, supports_out=False,
      torch_supports_out=False)
unary("logit", ref_logit, REAL, domain=(0.05, 0.95), int_domain=(0, 1))
unary("logit.eps", ref_logit, REAL, aten="logit", kwargs={"eps": 0.1}, domain=(0.02, 0.98), int_domain=(0, 1))

for _op in _unary:
    if _op.name in ("sign", "logical_not", "bitwise_not", "gelu.tanh", "sgn", "signbit", "positive", "angle"):
        _op.function_inplace = False  # torch has no torch.sign_ etc. (Ember has; silu_/gelu_ are Ember's own)

# ---- binary -------------------------------------------------------------------

_binary = []


def binary(name, ref, dtypes, **kw):
    op = OpInfo(name, ref=ref, dtypes=dtypes, kind="binary", **kw)
    _binary.append(op)
    return op


NO_BOOL_SCALARS = {"int": 2, "float": -1.5, "complex": 1 - 2j}
DIV_SCALARS = {"int": 3, "float": -1.5, "complex": 1 - 2j}
CMP_XFAILS = cmp_out_bug()
ORDER_COMPLEX = "torch raises NotImplementedError for ordering complex numbers, Ember RuntimeError"
MINMAX_COMPLEX = "maximum/minimum on complex: torch raises RuntimeError, Ember NotImplementedError"

binary("add", ref_add, ALL)
binary("add.alpha", ref_add, ALL, aten="add", kwargs={"alpha": 2})
binary("sub", lambda a, b, alpha=1: a - alpha * np.asarray(b), NUMBERS, scalars=NO_BOOL_SCALARS)
binary("sub.alpha", lambda a, b, alpha=1: a - alpha * np.asarray(b), NUMBERS, aten="sub", kwargs={"alpha": 2},
       scalars=NO_BOOL_SCALARS)
binary("mul", lambda a, b: a * b, ALL)
binary("div", ref_div, ALL, promotes_int_to_float=True)
for _mode in ("trunc", "floor"):
    binary(f"div.{_mode}", ref_div, REAL_NUMBERS, aten="div", kwargs={"rounding_mode": _mode}, other_nonzero=True,
           scalars=DIV_SCALARS)
binary("floor_divide", lambda a, b: np.floor_divide(a, b), REAL_NUMBERS, other_nonzero=True, scalars=DIV_SCALARS,
       supports_out=False, torch_has_inplace=True)
binary("true_divide", ref_div, ALL, promotes_int_to_float=True, scalar_other=False, supports_out=False)
binary("true_divide.scalar", ref_div, ALL, aten="true_divide", promotes_int_to_float=True, tensor_other=False,
       supports_out=False, has_inplace=False)
binary("remainder", lambda a, b: np.remainder(a, b), REAL_NUMBERS, other_nonzero=True, scalars=DIV_SCALARS)
binary("pow", ref_pow, NUMBERS, domain=(0.5, 3.0), other_domain=(-3.0, 3.0), int_domain=(-5, 5),
       other_int_domain=(0, 4), scalars={"int": 2, "float": 0.5, "complex": 0.5 + 1j})
binary("maximum", np.maximum, REAL, scalar_other=False, discrete=True, torch_has_inplace=False)
binary("minimum", np.minimum, REAL, scalar_other=False, discrete=True, torch_has_inplace=False)
binary("atan2", np.arctan2, REAL, scalar_other=False, promotes_int_to_float=True)
binary("fmod", np.fmod, REAL_NUMBERS, other_nonzero=True, scalars=DIV_SCALARS)
binary("logaddexp", ref_logaddexp, FLOATS + COMPLEX, scalar_other=False, has_inplace=False)
binary("logaddexp2", np.logaddexp2, FLOATS, scalar_other=False, has_inplace=False)
binary("hypot", np.hypot, FLOATS, scalar_other=False)
binary("nextafter", np.nextafter, FLOATS, scalar_other=False, specials=False)
binary("copysign", lambda a, b: np.copysign(_float(a), _float(b)), REAL, promotes_int_to_float=True)
binary("xlogy", ref_xlogy, REAL, promotes_int_to_float=True, function_inplace=True, other_domain=(0.1, 6.0),
       other_int_domain=(1, 20), scalars={"int": 2, "float": 1.5, "bool": True})
binary("xlogy.scalar_self", lambda a, s: ref_xlogy(s, a), REAL, aten="xlogy",
       fn=lambda lib, a, s, **kw: lib.xlogy(s, a, **kw), reflected=True, method=False, has_inplace=False,
       promotes_int_to_float=True, specials=False, domain=(0.1, 6.0), int_domain=(1, 20),
       scalars={"int": 2, "float": 2.5})
binary("heaviside", ref_heaviside, REAL, scalar_other=False, sample_fn=same_dtype_samples)
binary("fmax", np.fmax, REAL, scalar_other=False, discrete=True, has_inplace=False)
binary("fmin", np.fmin, REAL, scalar_other=False, discrete=True, has_inplace=False)
binary("gcd", np.gcd, INTS, scalar_other=False, function_inplace=True, int_domain=(-30, 30))
binary("lcm", np.lcm, INTS, scalar_other=False, function_inplace=True, int_domain=(-30, 30))
binary("float_power", ref_float_power, ALL, domain=(0.5, 3.0), other_domain=(-3.0, 3.0), int_domain=(1, 5),
       other_int_domain=(-3, 3), scalars={"int": 2, "float": 0.5, "complex": 0.5 + 1j})
binary("float_power.scalar_self", lambda a, s: ref_float_power(s, a), ALL, aten="float_power",
       fn=lambda lib, a, s, **kw: lib.float_power(s, a, **kw), reflected=True, method=False, has_inplace=False,
       specials=False, int_domain=(-3, 3), domain=(-3.0, 3.0), scalars={"int": 2, "float": 2.5, "complex": 0.5 + 1j})
for _name, _fn, _dt in [("eq", np.equal, ALL), ("ne", np.not_equal, ALL), ("lt", np.less, REAL),
                        ("le", np.less_equal, REAL), ("gt", np.greater, REAL), ("ge", np.greater_equal, REAL)]:
    binary(_name, _fn, _dt, discrete=True)
for _name, _fn in [("logical_and", np.logical_and), ("logical_or", np.logical_or), ("logical_xor", np.logical_xor)]:
    binary(_name, _fn, ALL, discrete=True, scalar_other=False)
for _name, _fn in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                   ("bitwise_xor", np.bitwise_xor)]:
    binary(_name, _fn, INTEGRAL, int_domain=(-100, 100), scalars={"int": 5, "bool": True})


def ref_shift(left):
    """Shifts as PyTorch defines them for every amount: out of [0, bits) all bits leave."""
    def ref(a, b):
        dtype = np.result_type(a, b)
        a, b = np.asarray(a).astype(dtype), np.asarray(b).astype(dtype)
        bits = dtype.itemsize * 8
        in_range = (b >= 0) & (b < bits)
        safe = np.where(in_range, b, 0)
        if left:
            shifted = (a.astype(np.uint64) << safe.astype(np.uint64)).astype(dtype)
            return np.where(in_range, shifted, 0).astype(dtype)
        return np.where(in_range, a >> safe, np.where(a < 0, -1, 0)).astype(dtype)
    return ref


for _name, _left in [("bitwise_left_shift", True), ("bitwise_right_shift", False)]:
    binary(_name, ref_shift(_left), INTS, int_domain=(-100, 100), other_int_domain=(-3, 70), scalars={"int": 3})
binary("rsub", lambda a, b, alpha=1: np.asarray(b) - alpha * a, NUMBERS, method=False, has_inplace=False,
       supports_out=False, torch_supports_out=False, scalars=NO_BOOL_SCALARS)
binary("rsub.alpha", lambda a, b, alpha=1: np.asarray(b) - alpha * a, NUMBERS, aten="rsub", method=False,
       has_inplace=False, supports_out=False, torch_supports_out=False, kwargs={"alpha": 2}, scalars=NO_BOOL_SCALARS)

# where and clamp have their own samples.
binary("where", lambda c, a, b: np.where(c, a, b), ALL, sample_fn=sample_where, has_inplace=False,
       specials=False, method_call=lambda args, kw: args[1].where(args[0], args[2], **kw))
binary("where.scalar_other", lambda c, a, b: np.where(c, a, b), ALL, sample_fn=sample_where, has_inplace=False,
       specials=False, aten="where", supports_out=False, torch_supports_out=False,
       method_call=lambda args, kw: args[1].where(args[0], args[2], **kw))
binary("where.scalar_self", lambda c, a, b: np.where(c, a, b), ALL, sample_fn=sample_where, has_inplace=False,
       specials=False, aten="where", supports_out=False, torch_supports_out=False, method=False)
binary("pow.scalar_self", lambda a, s: ref_pow(s, a), ALL, aten="pow", fn=lambda lib, a, s, **kw: lib.pow(s, a, **kw),
       reflected=True, method=False, has_inplace=False, supports_out=False, specials=False, int_domain=(0, 4),
       domain=(-3.0, 3.0), scalars={"int": 2, "float": 2.5, "complex": 0.5 + 1j})
CLAMP_TENSOR_BOOL = "clamp(bool, min_tensor, max_tensor) works in Ember; torch raises NotImplementedError"
CLAMP_INPLACE = "int_tensor.clamp_(float bounds) truncates silently; torch raises RuntimeError (unsafe cast)"
CLAMP_OUT = "clamp(x, ..., out=) has no safe-cast check: clamp(int32, 0, 1, out=bool) casts silently; torch raises"
CLAMP_BOOL = "clamp(bool, Scalar bounds) works in Ember; torch raises NotImplementedError"
for _name in ("clamp", "clamp.min", "clamp.max", "clip"):
    binary(_name, ref_clamp, REAL_NUMBERS, sample_fn=sample_clamp, aten=_name.split(".")[0], specials=False,
           supports_out=_name != "clip", function_inplace=True,
           xfails=(
               []))
binary("clamp.tensor", ref_clamp, REAL_NUMBERS, sample_fn=sample_clamp, aten="clamp", specials=False,
       function_inplace=True)


# ---- other names (alias_of in native_functions.yaml) ------------------------------


def alias(name, base, **changes):
    """torch's other spelling of `base`: the same reference, dtypes and known failures (its own samples)."""
    base_op = next(o for o in _unary + _binary if o.name == base)
    op = dataclasses.replace(base_op, name=name, aten=name.split(".")[0], **changes)
    op.xfails = list(base_op.xfails) + list(changes.get("xfails", []))
    (_unary if base_op.kind == "unary" else _binary).append(op)
    return op


# Other name -> the database entry of its op (also how opdb/gradients.py classifies them).
ALIASES = {"absolute": "abs", "arccos": "acos", "arcsin": "asin", "arctan": "atan", "negative": "neg", "fix": "trunc",
           "arctan2": "atan2", "multiply": "mul", "divide": "div", "divide.trunc": "div.trunc",
           "divide.floor": "div.floor", "subtract": "sub", "subtract.alpha": "sub.alpha", "greater": "gt",
           "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne", "arcsinh": "asinh",
           "arccosh": "acosh", "arctanh": "atanh"}
for _name, _base in ALIASES.items():
    # torch.absolute_ does not exist (the method does); the other in-place aliases follow their op.
    _changes = {"function_inplace": False} if _name == "absolute" else {}
    alias(_name, _base, **_changes)


# ---- Python operators ------------------------------------------------------------

_operators = []


def operator_op(name, base, fn, inplace=None, **kw):
    """`base`'s semantics through a Python operator: fn(a, b) on the built operands."""
    base_op = next(o for o in _unary + _binary if o.name == base)
    fields = dict(ref=base_op.ref, dtypes=base_op.dtypes, kind=base_op.kind, domain=base_op.domain,
                  int_domain=base_op.int_domain, other_domain=base_op.other_domain,
                  other_int_domain=base_op.other_int_domain, other_nonzero=base_op.other_nonzero,
                  discrete=base_op.discrete, scalars=base_op.scalars, extra_values=base_op.extra_values,
                  promotes_int_to_float=base_op.promotes_int_to_float, scalar_other=base_op.scalar_other)
    fields.update(kw)
    op = OpInfo(name, aten=base, fn=lambda lib, *args: fn(*args), method=False, supports_out=False,
                torch_supports_out=False, inplace=(lambda lib, *args: inplace(*args)) if inplace else None,
                has_inplace=inplace is not None, **fields)
    op.xfails = [x for x in base_op.xfails if x.test in ("test_special_values", "test_unsupported_dtypes")
                 or (x.test in ("test_inplace", "test_inplace_like_torch", "test_inplace_unsafe_cast_raises")
                     and inplace is not None)]
    _operators.append(op)
    return op


def _iop(name):
    def run(a, b):
        return getattr(a, name)(b)

    return run


operator_op("__neg__", "neg", lambda a: -a)
operator_op("__abs__", "abs", lambda a: abs(a))
operator_op("__invert__", "bitwise_not", lambda a: ~a)
for _sym, _base, _f, _i in [
    ("+", "add", lambda a, b: a + b, "__iadd__"), ("-", "sub", lambda a, b: a - b, "__isub__"),
    ("*", "mul", lambda a, b: a * b, "__imul__"), ("/", "div", lambda a, b: a / b, "__itruediv__"),
    ("//", "floor_divide", lambda a, b: a // b, "__ifloordiv__"), ("%", "remainder", lambda a, b: a % b, "__imod__"),
    ("**", "pow", lambda a, b: a ** b, "__ipow__"), ("&", "bitwise_and", lambda a, b: a & b, "__iand__"),
    ("|", "bitwise_or", lambda a, b: a | b, "__ior__"), ("^", "bitwise_xor", lambda a, b: a ^ b, "__ixor__"),
    ("<<", "bitwise_left_shift", lambda a, b: a << b, "__ilshift__"),
    (">>", "bitwise_right_shift", lambda a, b: a >> b, "__irshift__"),
    ("==", "eq", lambda a, b: a == b, None), ("!=", "ne", lambda a, b: a != b, None),
    ("<", "lt", lambda a, b: a < b, None), ("<=", "le", lambda a, b: a <= b, None),
    (">", "gt", lambda a, b: a > b, None), (">=", "ge", lambda a, b: a >= b, None),
]:
    _name = "__" + _i[3:] if _i else {"==": "__eq__", "!=": "__ne__", "<": "__lt__", "<=": "__le__", ">": "__gt__",
                                       ">=": "__ge__"}[_sym]
    _op = operator_op(_name, _base, _f, _iop(_i) if _i else None, scalar_other=True)
    _op.notes = f"a {_sym} b"

# Reflected forms: number <op> tensor. The sample is (tensor, number); ref(a, s) computes s <op> a.
_REFLECTED = [
    ("__radd__", "add", lambda a, s: s + a, lambda a, s: s + a),
    ("__rsub__", "sub", lambda a, s: s - a, lambda a, s: s - a),
    ("__rmul__", "mul", lambda a, s: s * a, lambda a, s: s * a),
    ("__rtruediv__", "div", lambda a, s: s / a, lambda a, s: np.true_divide(s, a)),
    ("__rfloordiv__", "floor_divide", lambda a, s: s // a, lambda a, s: np.floor_divide(s, a)),
    ("__rmod__", "remainder", lambda a, s: s % a, lambda a, s: np.remainder(s, a)),
    ("__rpow__", "pow", lambda a, s: s ** a, lambda a, s: ref_pow(s, a)),
    ("__rand__", "bitwise_and", lambda a, s: s & a, lambda a, s: np.bitwise_and(s, a)),
    ("__ror__", "bitwise_or", lambda a, s: s | a, lambda a, s: np.bitwise_or(s, a)),
    ("__rxor__", "bitwise_xor", lambda a, s: s ^ a, lambda a, s: np.bitwise_xor(s, a)),
    ("__rlshift__", "bitwise_left_shift", lambda a, s: s << a, lambda a, s: ref_shift(True)(s, a)),
    ("__rrshift__", "bitwise_right_shift", lambda a, s: s >> a, lambda a, s: ref_shift(False)(s, a)),
    ("__rlt__", "gt", lambda a, s: s < a, lambda a, s: np.less(s, a)),  # 2 < t calls t.__gt__(2)
    ("__req__", "eq", lambda a, s: s == a, lambda a, s: np.equal(s, a)),
]
for _name, _base, _f, _ref in _REFLECTED:
    _kw = dict(ref=_ref, reflected=True, specials=False)
    if _base in ("remainder", "floor_divide"):
        # The tensor is the divisor: keep it nonzero for integers.
        # A bool divisor promotes to int64 with the number, so bool works too.
        _kw.update(int_domain=(1, 9), domain=(0.5, 6.0), self_nonzero=True, dtypes=REAL)
    if _base == "div":
        _kw.update(int_domain=(1, 9), domain=(0.5, 6.0), self_nonzero=True)
    if _base in ("bitwise_left_shift", "bitwise_right_shift"):
        # The tensor is the shift amount (out-of-range ones included); a bool one promotes to int64.
        _kw.update(int_domain=(-3, 70), dtypes=INTEGRAL)
    if _base == "pow":
        # The tensor is the exponent: small non-negative integers, any float; 2 ** bool_tensor is int64.
        _kw.update(int_domain=(0, 4), domain=(-3.0, 3.0), scalars={"int": 2, "float": 2.5, "complex": 0.5 + 1j},
                   dtypes=ALL)
    operator_op(_name, _base, _f, **_kw)


OPS = _unary + _binary + _operators
OPS_BY_NAME = {op.name: op for op in OPS}
assert len(OPS_BY_NAME) == len(OPS), "duplicate OpInfo names"


# ---- type promotion (the reference's view of it) -------------------------------------

_CATEGORY = {"b": 0, "i": 1, "f": 2, "c": 3}


def _promote_none(a, b):
    return b if a is None else a if b is None else promote(a, b)


def _to_complex(d):
    return "complex128" if d == "float64" else "complex64"  # Ember has no complex32 for float16


def _combine(higher, lower):
    """c10's combine_categories: a lower-priority group raises only the category."""
    if higher is not None and KIND[higher] == "c":
        return higher
    if lower is not None and KIND[lower] == "c":
        return _to_complex(higher) if higher is not None and KIND[higher] == "f" else lower
    if higher is not None and KIND[higher] == "f":
        return higher
    if higher == "bool" or (lower is not None and KIND[lower] == "f"):
        return _promote_none(higher, lower)
    return higher if higher is not None else lower


def result_type(operands):
    """torch.result_type for TensorSpecs and Python numbers (default dtype float32)."""
    dim = zero = wrapped = None
    for a in operands:
        if isinstance(a, TensorSpec):
            if np.ndim(a.values) == 0:
                zero = _promote_none(zero, a.dtype)
            else:
                dim = _promote_none(dim, a.dtype)
        elif isinstance(a, bool):
            wrapped = _promote_none(wrapped, "bool")
        elif isinstance(a, int):
            wrapped = _promote_none(wrapped, "int64")
        elif isinstance(a, float):
            wrapped = _promote_none(wrapped, "float32")
        elif isinstance(a, complex):
            wrapped = _promote_none(wrapped, "complex64")
    return _combine(dim, _combine(zero, wrapped))


def promoted_operands(op, sample):
    """(positional indices, kwarg names) of the operands taking part in type promotion."""
    if op.aten == "float_power":  # each operand goes to float64 (complex128) on its own
        return [], []
    first = 1 if op.aten == "where" else 0
    idx = [i for i in range(first, len(sample.args)) if sample.args[i] is not None]
    names = [k for k, v in sample.kwargs.items() if isinstance(v, TensorSpec) or k in ("min", "max")]
    return idx, names


def common_dtype(op, sample):
    idx, names = promoted_operands(op, sample)
    operands = [sample.args[i] for i in idx] + [sample.kwargs[k] for k in names if sample.kwargs[k] is not None]
    d = result_type(operands)
    if op.promotes_int_to_float and d in INTEGRAL:
        d = "float32"
    return d


# torch's half/bfloat16 mul and div read a 0-d second operand at float precision instead of rounding it to
# the tensor's dtype (add and sub round it); Ember follows.
SCALAR_KEEPING = {"mul", "multiply", "div", "divide", "true_divide", "floor_divide"}


def keeps_scalar_precision(op, sample, common):
    if op.aten not in SCALAR_KEEPING or common not in ("float16", "bfloat16") or op.reflected:
        return False
    second = sample.args[1] if len(sample.args) > 1 else None
    return isinstance(second, TensorSpec) and np.ndim(second.values) == 0


def reference_result(op, sample, args, kwargs, to_numpy):
    """The NumPy reference for a sample whose operands were built as args/kwargs
    (to_numpy reads a built tensor). Operands are first converted to the
    common dtype, as TensorIterator does, then computed in 64 bits."""
    common = common_dtype(op, sample)
    idx, names = promoted_operands(op, sample)
    if keeps_scalar_precision(op, sample, common):
        idx = [i for i in idx if i != 1]

    def convert(value, promoted):
        if hasattr(value, "dtype") and not isinstance(value, np.ndarray):  # a built tensor
            value = to_numpy(value)
        elif value is None or isinstance(value, str):
            return value
        if promoted:
            value = cast_like(np.asarray(value), common)
        return upcast(np.asarray(value), to_float=op.promotes_int_to_float)

    np_args = [convert(a, i in idx) for i, a in enumerate(args)]
    np_kwargs = {k: convert(v, k in names) for k, v in kwargs.items()}
    return op.reference(np_args, np_kwargs)


# ---- comparing results -------------------------------------------------------------

def upcast(array, to_float=False):
    """A NumPy input for a reference: bool stays, integers become int64,
    floats float64, complex complex128 (bool and integers become float64
    too for ops that promote integers to float)."""
    kind = array.dtype.kind
    if to_float and kind in "biu":
        return array.astype(np.float64)
    if kind == "b":
        return array
    if kind in "iu":
        return array.astype(np.int64)
    if kind == "f":
        return array.astype(np.float64)
    return array.astype(np.complex128)


def expected_as(expected, d):
    """The reference converted to result dtype `d` (rounded as the result is)."""
    expected = np.asarray(expected)
    if d in INTEGRAL:
        if expected.dtype.kind in "fc":
            with np.errstate(all="ignore"):
                return expected.real.astype(np.float64).astype(np.int64).astype(d) if d != "bool" \
                    else expected.astype(bool)
        return expected.astype(d)
    if d in FLOATS:
        return cast_like(expected.real if expected.dtype.kind == "c" else expected, d).astype(np.float64)
    return cast_like(expected, d).astype(np.complex128)


def assert_close(actual, expected, d, msg=""):
    """actual and expected are NumPy arrays of (or converted for) result dtype d."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape} {msg}"
    if d in INTEGRAL:
        if not np.array_equal(actual, expected):
            np.testing.assert_array_equal(actual, expected, err_msg=msg)
        return
    if np.array_equal(actual, expected, equal_nan=True):
        return
    rtol, atol = TOLERANCES[d][ELEMENTWISE]
    a = actual.astype(np.complex128)
    e = expected.astype(np.complex128)
    for part in ("real", "imag"):
        pa, pe = getattr(a, part), getattr(e, part)
        assert (np.isnan(pa) == np.isnan(pe)).all(), f"NaN positions differ ({part}) {msg}\n{actual}\n{expected}"
        inf = np.isinf(pe) | np.isinf(pa)
        assert (pa[inf] == pe[inf]).all(), f"infinities differ ({part}) {msg}\n{actual}\n{expected}"
    finite = np.isfinite(a) & np.isfinite(e)
    err = np.abs(a[finite] - e[finite])
    bound = atol + rtol * np.abs(e[finite])
    if not (err <= bound).all():
        worst = np.argmax(err - bound)
        raise AssertionError(
            f"values differ beyond rtol={rtol}, atol={atol} {msg}: worst |{a[finite][worst]} - {e[finite][worst]}| = "
            f"{err[worst]:.3g}\nactual:\n{actual}\nexpected:\n{expected}")
