"""Ember: tensors with eager autograd, PyTorch-style.

The heavy lifting happens in the C++ extension ``ember._C``; this package
adds the Pythonic surface (``ember.zeros(2, 3)``, ``repr``, ``ember.Size``).
"""

from . import _C
from ._C import (  # noqa: F401
    Generator,
    Tensor,
    arange,
    as_strided,
    default_generator,
    device,
    dtype,
    empty,
    empty_like,
    empty_strided,
    equal,
    eye,
    from_dlpack,
    from_numpy,
    full,
    full_like,
    get_default_dtype,
    initial_seed,
    linspace,
    manual_seed,
    ones,
    ones_like,
    promote_types,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    scalar_tensor,
    seed,
    set_default_dtype,
    tensor,
    zeros,
    zeros_like,
)
from ._C import (  # noqa: F401  dtypes
    bool,
    uint8,
    int8,
    int16,
    int32,
    int64,
    float16,
    bfloat16,
    float32,
    float64,
    complex64,
    complex128,
)
from ._size import Size
from ._tensor_str import get_printoptions, printoptions, set_printoptions  # noqa: F401
from . import _tensor  # noqa: F401  (adds the Python-level Tensor methods)
from . import utils  # noqa: F401

# PyTorch's dtype aliases.
half = float16
float = float32  # noqa: A001
double = float64
short = int16
int = int32  # noqa: A001
long = int64
cfloat = complex64
cdouble = complex128

_C._set_size_class(Size)

__version__ = "0.1.0"


def is_tensor(obj):
    """True if ``obj`` is an Ember tensor (or a subclass instance)."""
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()
