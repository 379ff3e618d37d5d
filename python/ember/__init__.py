"""Ember: tensors with eager autograd, PyTorch-style.

The heavy lifting happens in the C++ extension ``ember._C``; this package
adds the Pythonic surface (``ember.zeros(2, 3)``, ``repr``, ``ember.Size``).
"""

import builtins as _builtins
import os as _os

# Ember splits GEMMs over its own threads and calls OpenBLAS one thread
# at a time; OpenBLAS's own threads would only spin beside it. OpenBLAS reads
# this when _C loads it; afterwards the variable is put back, so that other
# libraries (NumPy's own OpenBLAS) keep their threads.
_blas_threads = _os.environ.get("OPENBLAS_NUM_THREADS")
_os.environ["OPENBLAS_NUM_THREADS"] = "1"
try:
    from . import _C  # noqa: E402
finally:
    if _blas_threads is None:
        del _os.environ["OPENBLAS_NUM_THREADS"]
    else:
        _os.environ["OPENBLAS_NUM_THREADS"] = _blas_threads
from ._C import (  # noqa: F401
    Generator,
    Tensor,
    default_generator,
    device,
    dtype,
    finfo,
    from_dlpack,
    from_numpy,
    get_default_dtype,
    get_num_threads,
    iinfo,
    initial_seed,
    manual_seed,
    promote_types,
    seed,
    set_default_dtype,
    set_num_threads,
    tensor,
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
from ._memory_format import (  # noqa: F401
    channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format,
)
from . import autograd, cuda, library, nn, optim, overrides  # noqa: F401
from . import multiprocessing, utils  # noqa: F401  (after nn: their pickler knows Parameter)
from . import accelerator, amp, backends, deploy, distributed, hub, jit, lazy, onnx, profiler, version  # noqa: F401
from ._compile import compile  # noqa: F401
from ._legacy_types import LEGACY_TYPES as _LEGACY_TYPES
from .cuda import amp as _cuda_amp  # noqa: F401  (ember.cuda.amp)
from .amp import autocast  # noqa: F401
from .amp.autocast_mode import (  # noqa: F401
    autocast_decrement_nesting, autocast_increment_nesting, clear_autocast_cache, get_autocast_dtype,
    is_autocast_cache_enabled, is_autocast_enabled, set_autocast_cache_enabled, set_autocast_dtype,
    set_autocast_enabled,
)
from .amp.autocast_mode import (  # noqa: F401  (torch's per-device spellings)
    get_autocast_cpu_dtype, get_autocast_gpu_dtype, is_autocast_cpu_enabled, set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
)
from . import compiler, cpu, futures, random  # noqa: F401
from .random import get_rng_state, set_rng_state  # noqa: F401
from ._precision import (  # noqa: F401
    are_deterministic_algorithms_enabled,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from .serialization import load, save  # noqa: F401
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .autograd.grad_mode import is_inference_mode_enabled  # noqa: F401
from ._ops import ops  # noqa: F401
from . import fft, func, linalg, sparse, special  # noqa: F401
from .linalg import _legacy as _linalg_legacy  # noqa: E402
from ._stft import istft, kaiser_window, stft  # noqa: E402,F401

Tensor.stft = stft
Tensor.istft = istft
from .func import vmap  # noqa: F401,E402  (torch.vmap)
from .sparse import layout, sparse_coo, sparse_coo_tensor, strided  # noqa: F401

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

# The operators generated from native_functions.yaml (ember.zeros, ember.transpose, ...).
for _name in _C._generated_functions:
    globals()[_name] = getattr(_C, _name)
del _name
# The torch.* spellings of linear algebra, over the generated ones (norm takes p="fro"/"nuc" and dtype=).
_linalg_legacy.install(__import__("sys").modules[__name__], Tensor)
from .functional import (  # noqa: E402,F401
    block_diag, broadcast_shapes, broadcast_tensors, cartesian_prod, cdist, einsum, histogramdd, meshgrid, tensordot,
    unique, unique_consecutive,
)  # noqa: E402,F401

# nn.functional's functions that torch also offers at the top level (torch.conv1d, torch.pixel_shuffle, ...).
from .nn import functional as _F  # noqa: E402

for _name in ("adaptive_avg_pool1d", "adaptive_max_pool1d", "alpha_dropout", "avg_pool1d", "bilinear", "celu",
              "channel_shuffle", "conv1d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
              "cosine_similarity", "feature_alpha_dropout", "hardshrink", "max_pool1d", "max_pool3d",
              "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu", "rrelu", "selu", "threshold"):
    # conv1d is an operator too, but torch.conv1d also takes padding="same"/"valid", which F.conv1d handles.
    if _name not in globals() or _name == "conv1d":
        globals()[_name] = getattr(_F, _name)
del _name
from . import distributions, testing  # noqa: E402,F401
from ._storage import LEGACY_STORAGES as _LEGACY_STORAGES, TypedStorage, UntypedStorage  # noqa: E402,F401
from ._toplevel import *  # noqa: E402,F401,F403  (torch's other top-level spellings)
from ._lowrank import pca_lowrank, svd_lowrank  # noqa: E402,F401

from .version import __version__  # noqa: E402


def is_tensor(obj):
    """True if ``obj`` is an Ember tensor (or a subclass instance)."""
    return isinstance(obj, Tensor)


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor, sharing its memory where it can: a tensor of the
    asked dtype and device is returned as it is, a NumPy array is wrapped
    without a copy (then converted if dtype or device differ), anything else
    is copied as ``ember.tensor`` would."""
    if isinstance(data, Tensor):
        return data.to(device=device if device is not None else data.device, dtype=dtype or data.dtype)
    if type(data).__module__ == "numpy" and hasattr(data, "__array_interface__") and data.dtype.kind in "biufc":
        import numpy  # (a NumPy scalar becomes a 0-d array)

        t = from_numpy(numpy.asarray(data))
        return t if dtype is None and device is None else t.to(device=device or t.device, dtype=dtype or t.dtype)
    return tensor(data, dtype=dtype, device=device)


def numel(input):
    return input.numel()


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()



def result_type(tensor1, tensor2):
    """The dtype an arithmetic op on the two operands (tensors or numbers) gives by the promotion rules: found
    by adding meta stand-ins of the same dtypes and dims (0-d tensors and numbers take part by category only)."""
    def stand_in(x):
        return empty(x.shape, dtype=x.dtype, device="meta") if isinstance(x, Tensor) else x
    a, b = stand_in(tensor1), stand_in(tensor2)
    if not isinstance(a, Tensor):
        if not isinstance(b, Tensor):
            return (tensor(tensor1) + tensor2).dtype
        a, b = b, a
    return _C.add(a, b).dtype if isinstance(b, Tensor) else (a + b).dtype


def can_cast(from_, to):
    """Whether a value of dtype from_ may be cast to dtype to by the rules of out= and in-place ops (no
    float to integral, complex to real or non-bool to bool)."""
    def kind(d):
        return 0 if d == bool else 3 if d.is_complex else 2 if d.is_floating_point else 1
    return kind(from_) <= kind(to)


def is_nonzero(input):
    """bool(input) for a single-element tensor (RuntimeError otherwise)."""
    if input.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return _builtins.bool(input.item())


def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def is_storage(obj):
    return type(obj).__name__ in ("UntypedStorage", "TypedStorage") and type(obj).__module__.startswith("ember")


globals().update(_LEGACY_TYPES)  # ember.FloatTensor, ember.LongTensor, ...
globals().update(_LEGACY_STORAGES)  # ember.FloatStorage, ember.LongStorage, ...
from .utils.backend_registration import _register_device_module  # noqa: E402,F401
