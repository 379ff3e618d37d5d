"""Calls generated from the schemas in native_functions.yaml, and (a share
of them) from the operator database's samples (database_fuzz.py).

Each call is Python source (so that a failure's reproducer is the call
itself): random tensors of random shapes (0 and 1 included), dtypes, layouts
(transposed, expanded, sliced), devices (cpu, meta), values (NaN, inf,
extreme integers), and random ints, floats, strings and None for the other
arguments, biased toward arguments that fit together so that calls get past
the first shape check.
"""

from __future__ import annotations

import dataclasses
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]
INT_DTYPES = ["int64", "int32", "int16", "int8", "uint8"]
DTYPES = FLOAT_DTYPES * 3 + INT_DTYPES * 2 + ["bool", "bool", "complex64", "complex128"]
SIZES = [0, 1, 1, 2, 2, 3, 3, 4, 5]
INTS = [0, 1, 1, 2, 2, 3, -1, -1, -2, 4, 5, 7, 64, -3, 2**31, -(2**63), 2**62, 2**63 - 1]
FLOATS = ["0.0", "0.5", "1.0", "-1.0", "2.5", "1e-5", "-3.0", "float('nan')", "float('inf')", "float('-inf')",
          "1e308", "-1e308"]
STRINGS = ["'none'", "'tanh'", "'floor'", "'trunc'", "'mean'", "'sum'", "''", "'bogus'"]


def load_functions():
    sys.path.insert(0, ROOT)
    from tools.codegen.gen import load  # noqa: E402 - the project's own schema parser
    return load(os.path.join(ROOT, "native_functions.yaml"))


@dataclasses.dataclass
class Call:
    op: str       # "add.Tensor"
    source: str   # Python that runs the call; `ember` and `math` are in scope
    seed: int

    def reproducer(self, outcome) -> str:
        return (f"# Ember fuzz reproducer for {self.op}: {outcome}\n"
                f"# Run: PYTHONPATH=python python3 this_file.py\n"
                f"import math\n\nimport numpy as np\n\nimport ember\n\nember.manual_seed({self.seed})\n{self.source}\n")


class CallGenerator:
    # The share of calls made from the operator database's samples
    # (database_fuzz.py) rather than from a schema alone.
    DATABASE_SHARE = 0.3

    def __init__(self, seed: int):
        from .database_fuzz import DatabaseCalls

        self.rng = random.Random(seed)
        self.functions = [f for f in load_functions()]
        self.database = DatabaseCalls(self.rng)
        self.count = 0

    # ---- values ---------------------------------------------------------------

    def shape(self, base):
        r = self.rng
        if base is not None and r.random() < 0.65:
            shape = list(base)
            if shape and r.random() < 0.2:  # broadcastable: a 1 somewhere, or fewer dims
                if r.random() < 0.5:
                    shape[r.randrange(len(shape))] = 1
                else:
                    shape = shape[r.randrange(len(shape)):]
            return shape
        return [r.choice(SIZES) for _ in range(r.choice([0, 1, 1, 2, 2, 2, 3, 3, 4]))]

    def tensor(self, base, dtype=None, integer_only=False):
        r = self.rng
        shape = self.shape(base)
        dtype = dtype or (r.choice(INT_DTYPES) if integer_only else r.choice(DTYPES))
        dt = f"ember.{dtype}"
        if r.random() < 0.08:
            return f"ember.empty({shape}, dtype={dt}, device='meta')"
        if dtype in FLOAT_DTYPES or dtype.startswith("complex"):
            special = r.random()
            if special < 0.08:
                text = f"ember.full({shape}, {r.choice(FLOATS)}, dtype={dt})"
            else:
                text = f"(ember.randn({shape}, dtype=ember.float64) * {r.choice(['1', '3', '1e4'])}).to({dt})"
        elif dtype == "bool":
            text = f"(ember.randn({shape}) > 0)"
        else:
            lo, hi = r.choice([(-3, 4), (0, 5), (-100, 100)])
            if dtype == "uint8":
                lo = max(lo, 0)
            text = f"ember.randint({lo}, {hi}, {shape}, dtype={dt})"
            if r.random() < 0.05:
                text = f"ember.full({shape}, {r.choice([-(2**63), 2**63 - 1, -1, 2**31])}, dtype=ember.int64).to({dt})"
        layout = r.random()
        if layout < 0.12 and len(shape) >= 2:
            text += f".transpose(0, {len(shape) - 1})"
        elif layout < 0.2 and shape and shape[-1] > 1:
            text = text.replace(f"{shape}", f"{shape[:-1] + [shape[-1] * 2]}", 1) + "[..., ::2]"
        elif layout < 0.25 and shape:
            text = text.replace(f"{shape}", f"{[1] + shape[1:]}", 1) + f".expand({shape})"
        if r.random() < 0.08 and (dtype in FLOAT_DTYPES[:2] or dtype.startswith("complex")):
            text = f"{text}.detach().requires_grad_()"
        return text

    def int_value(self):
        return str(self.rng.choice(INTS))

    def value(self, arg, base):
        r = self.rng
        t = arg.type
        if (t.optional or arg.default == "None") and r.random() < 0.3:
            return "None"
        if r.random() < 0.03:  # the wrong kind of thing altogether
            return r.choice(["None", "'x'", "[None]", "1.5", "ember.ones(2)"])
        if t.base == "Tensor":
            if t.is_list and t.elem_optional:  # indices
                return "[" + ", ".join(r.choice(["None", self.tensor(None, integer_only=True), self.tensor(base, 'bool')])
                                       for _ in range(r.randint(0, 3))) + "]"
            if t.is_list:
                return "[" + ", ".join(self.tensor(base) for _ in range(r.randint(0, 3))) + "]"
            integer = any(w in arg.name for w in ("index", "indices", "target"))
            return self.tensor(base, integer_only=integer and r.random() < 0.8)
        if t.is_list:
            n = t.list_size if t.list_size is not None and r.random() < 0.9 else r.randint(0, 4)
            if t.base == "bool":
                return str([r.random() < 0.5 for _ in range(n)])
            if t.base == "float":
                return "[" + ", ".join(r.choice(FLOATS) for _ in range(n)) + "]"
            if arg.name in ("size", "shape") and base is not None and r.random() < 0.5:
                return str(list(base))
            return "[" + ", ".join(self.int_value() for _ in range(n)) + "]"
        if t.base == "int":
            if arg.name == "dim" and base is not None and r.random() < 0.7:
                return str(r.randint(-len(base) - 1, len(base))) if base else "0"
            return self.int_value()
        if t.base == "float":
            return r.choice(FLOATS)
        if t.base == "bool":
            return r.choice(["True", "False"])
        if t.base == "Scalar":
            return r.choice([self.int_value(), r.choice(FLOATS), "True", "(1+2j)"])
        if t.base == "ScalarType":
            return "ember." + r.choice(DTYPES)
        if t.base == "str":
            return r.choice(STRINGS)
        if t.base == "Device":
            return r.choice(["'cpu'", "'meta'"])
        if t.base == "Generator":
            return "None"
        if t.base == "MemoryFormat":
            return "ember." + r.choice(["contiguous_format", "preserve_format", "channels_last", "channels_last_3d"])
        raise ValueError(f"no generator for {t}")

    # ---- calls ------------------------------------------------------------------

    def next_call(self) -> Call:
        r = self.rng
        self.count += 1
        if r.random() < self.DATABASE_SHARE:
            op, source = self.database.call_source()
            return Call(op=op, source=f"result = {source}\nrepr(result)", seed=r.randrange(2**31))
        f = r.choice(self.functions)
        s = f.schema
        base = [r.choice(SIZES) for _ in range(r.choice([0, 1, 2, 2, 3, 3, 4]))]
        positional, keywords = [], []
        for a in s.arguments:
            if a.default is not None and r.random() < 0.3:
                continue  # leave it to its default
            v = self.value(a, base)
            if a.kwarg_only:
                keywords.append(f"{a.name}={v}")
            elif len(keywords) == 0:
                positional.append(v)
            else:
                keywords.append(f"{a.name}={v}")
        overload = s.overload or "default"
        source = f"ember.ops.aten.{s.name}.{overload}({', '.join(positional + keywords)})"
        if f.python and "function" in f.variants and not s.is_out_variant and r.random() < 0.4:
            # The same call through the generated Python binding.
            pos = positional
            kws = [k.replace("self=", "input=", 1) for k in keywords]
            source = f"ember.{s.name}({', '.join(pos + kws)})"
        # The result is used, as a script would: printing reads every element.
        source = f"result = {source}\nrepr(result)"
        if r.random() < 0.15:
            source += ("\nfor t in (result if isinstance(result, (tuple, list)) else [result]):\n"
                       "    if isinstance(t, ember.Tensor) and t.requires_grad:\n"
                       "        t.float().sum().backward() if t.is_floating_point() else None")
        return Call(op=s.full_name, source=source, seed=r.randrange(2**31))


def run_call(call: Call):
    """Runs a call in this process (the forked child)."""
    import math

    import numpy as np

    import ember
    ember.manual_seed(call.seed)
    exec(compile(call.source, f"<fuzz {call.op}>", "exec"), {"ember": ember, "math": math, "np": np})
