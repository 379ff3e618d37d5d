"""The "xla" executor of the lazy device: each lazy graph is lowered to
StableHLO (through jax, from the ops of Ember's graph IR) and compiled by
XLA with jaxlib's PJRT client, the compiler PyTorch/XLA uses.

Nodes the lowering does not know run eagerly on the CPU through Ember's
dispatcher: the graph is cut there into XLA pieces around them, and each
such run is counted (``Fallback::<op>`` in :mod:`ember.lazy.metrics`).
Inputs and outputs cross between Ember and XLA by DLPack, without copies
where the layout allows.
"""

import math

import numpy as np

from .. import _C

_registered = False


def available():
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


def register():
    """Makes "xla" a lazy executor; an ImportError says what to install."""
    global _registered
    if _registered:
        return
    try:
        import jax
    except ImportError as e:
        raise ImportError("the lazy device's 'xla' executor needs jax and jaxlib: pip install 'jax[cpu]' "
                          "(scripts/install_deps.sh installs them)") from e
    # Ember's int64 and float64 stay 64-bit in XLA.
    jax.config.update("jax_enable_x64", True)
    _C._lazy.register_python_executor("xla", XlaExecutable)
    _registered = True


# ---- values between Ember and jax ---------------------------------------------

def _jnp():
    import jax.numpy as jnp
    return jnp


_DTYPES = {}


def _np_dtype(dtype):
    """The numpy/jax dtype of an Ember dtype."""
    name = str(dtype).rsplit(".", 1)[-1]
    if name not in _DTYPES:
        import ml_dtypes
        _DTYPES[name] = np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)
    return _DTYPES[name]


# The XLA arrays behind the Ember tensors _to_ember made, by (address, shape,
# dtype), so that a lazy tensor's data goes back into the next step as the
# array it came from, without a DLPack round trip. Entries hold their array
# (its memory cannot be reused while listed) and are dropped when the last
# two runs did not use them. Lazy tensors' data is never written in place.
_arrays_by_memory = {}
_runs = 0


def _to_jax(x):
    import jax
    if hasattr(x, "__dlpack__") and hasattr(x, "dim"):  # an Ember tensor
        if x.dim() == 0:  # numbers (Python numbers the graph reads): cheaper by value than by DLPack
            return np.asarray(x.item(), dtype=_np_dtype(x.dtype))
        entry = _arrays_by_memory.get((x.data_ptr(), tuple(x.shape), x.dtype))
        if entry is not None and x.is_contiguous():
            entry[1] = _runs
            return entry[0]
        if x.is_contiguous():
            try:
                return jax.dlpack.from_dlpack(x)
            except Exception:  # unaligned memory or a dtype DLPack cannot carry: copy
                pass
        return _jnp().asarray(x.contiguous().numpy())
    return x


def _to_ember(x):
    import ember
    if isinstance(x, (bool, int, float, complex)) or x is None:
        return x
    if hasattr(x, "dim") and hasattr(x, "__dlpack__") and not hasattr(x, "block_until_ready"):
        return x
    try:
        t = ember.from_dlpack(x)
    except Exception:
        return ember.from_numpy(np.array(x))
    if t.dim() > 0:
        _arrays_by_memory[(t.data_ptr(), tuple(t.shape), t.dtype)] = [x, _runs]
    return t


def _next_run():
    global _runs
    _runs += 1
    for key in [k for k, (_, used) in _arrays_by_memory.items() if used < _runs - 2]:
        del _arrays_by_memory[key]


# ---- the lowering: one function per operator ---------------------------------
#
# Each takes the node's arguments (a dict by schema name: jax arrays for
# values, Python objects for constants, lists for Tensor[]) and the output
# types [(dtype, sizes)], and returns the output (or a tuple of them). The
# executor casts each output to its recorded dtype and shape.

def _dim(d, n):
    return d + n if d < 0 else d


# XLA clamps an index that is out of range where eager code raises. While a
# piece is traced, each index an op reads adds a flag here (true where one is
# out of [low, high)); the piece returns their disjunction, and a run where it
# is set runs again eagerly, which raises the op's own IndexError.
_range_flags = None


def _checked(idx, low, high, where=None):
    if _range_flags is not None and hasattr(idx, "dtype") and np.issubdtype(idx.dtype, np.integer):
        bad = (idx < low) | (idx >= high)
        if where is not None:
            bad = bad & where
        _range_flags.append(_jnp().any(bad))
    return idx


def _dims(dim, n):
    if n == 0:  # a 0-d tensor: dim 0 (or -1) is the tensor itself
        return ()
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return tuple(range(n))
    if isinstance(dim, int):
        dim = [dim]
    return tuple(_dim(d, n) for d in dim)


def _out_dtype(out, i=0):
    return _np_dtype(out[i][0])


def _cast(x, dtype):
    jnp = _jnp()
    return jnp.asarray(x).astype(dtype)


def _binary(fn):
    def lower(a, out):
        dt = _out_dtype(out)
        x, y = a["self"], a["other"]
        alpha = a.get("alpha", 1)
        # Comparisons compute in the operands' common dtype; arithmetic in the result's.
        if dt == np.bool_:
            jnp = _jnp()
            common = jnp.result_type(x, y) if hasattr(x, "dtype") and hasattr(y, "dtype") else None
            if common is not None:
                x, y = _cast(x, common), _cast(y, common)
            return fn(x, y)
        x, y = _cast(x, dt), _cast(y, dt)
        if not (isinstance(alpha, (int, float)) and alpha == 1):
            y = y * _cast(alpha, dt)
        return fn(x, y)
    return lower


def _unary(fn):
    return lambda a, out: fn(_cast(a["self"], _out_dtype(out)))


def _reduce(fn):
    def lower(a, out):
        x = a["self"]
        dt = _out_dtype(out)
        dims = _dims(a.get("dim"), x.ndim)
        return fn(_cast(x, dt), axis=dims, keepdims=bool(a.get("keepdim", False)))
    return lower


def _as_strided_indices(size, stride, offset):
    idx = np.full(tuple(size), int(offset or 0), dtype=np.int64)
    for d, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return idx


def _select(x, dim, index):
    dim = _dim(dim, x.ndim)
    index = index + x.shape[dim] if index < 0 else index
    return x[(slice(None),) * dim + (index,)]


def _slice(x, dim, start, end, step):
    dim = _dim(dim, x.ndim)
    index = [slice(None)] * x.ndim
    index[dim] = slice(start, end, step)
    return x[tuple(index)]


def _softmax(a, out):
    jax = __import__("jax")
    return jax.nn.softmax(_cast(a["self"], _out_dtype(out)), axis=_dim(a["dim"], a["self"].ndim))


def _log_softmax(a, out):
    jax = __import__("jax")
    return jax.nn.log_softmax(_cast(a["self"], _out_dtype(out)), axis=_dim(a["dim"], a["self"].ndim))


def _nll_loss_forward(a, out):
    jnp = _jnp()
    x, target, weight = a["self"], a["target"], a["weight"]
    reduction, ignore = a["reduction"], a["ignore_index"]
    squeeze = x.ndim == 1
    if squeeze:
        x, target = x[None], jnp.reshape(target, (1,))
    valid = target != ignore
    safe = jnp.where(valid, _checked(target, 0, x.shape[1], valid), 0)
    picked = jnp.take_along_axis(x, safe[:, None], axis=1)[:, 0]
    w = jnp.ones_like(picked) if weight is None else jnp.asarray(weight)[safe].astype(x.dtype)
    w = jnp.where(valid, w, 0)
    losses = -picked * w
    if reduction == 0:
        return (losses[0] if squeeze else losses), jnp.zeros((), x.dtype)
    total = jnp.sum(w)
    if reduction == 1:
        return jnp.sum(losses) / total, total
    return jnp.sum(losses), total


def _nll_loss_backward(a, out):
    jnp = _jnp()
    g, x, target, weight = a["grad_output"], a["self"], a["target"], a["weight"]
    reduction, ignore, total = a["reduction"], a["ignore_index"], a["total_weight"]
    squeeze = x.ndim == 1
    if squeeze:
        x, target = x[None], jnp.reshape(target, (1,))
    valid = target != ignore
    safe = jnp.where(valid, _checked(target, 0, x.shape[1], valid), 0)
    w = jnp.ones(target.shape, x.dtype) if weight is None else jnp.asarray(weight)[safe].astype(x.dtype)
    w = jnp.where(valid, w, 0)
    scale = -w * (g / total if reduction == 1 else g)
    grad = jnp.zeros_like(x).at[jnp.arange(x.shape[0]), safe].set(scale)
    return grad[0] if squeeze else grad


def _layer_norm(a, out):
    jnp = _jnp()
    x = a["input"]
    axes = tuple(range(x.ndim - len(a["normalized_shape"]), x.ndim))
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    rstd = 1 / jnp.sqrt(var + a["eps"])
    y = (x - mean) * rstd
    if a["weight"] is not None:
        y = y * a["weight"]
    if a["bias"] is not None:
        y = y + a["bias"]
    return y, jnp.reshape(mean, out[1][1]), jnp.reshape(rstd, out[2][1])


def _layer_norm_backward(a, out):
    jnp = _jnp()
    g, x, mean, rstd, weight = a["grad_out"], a["input"], a["mean"], a["rstd"], a["weight"]
    mask = a["output_mask"]
    k = len(a["normalized_shape"])
    axes = tuple(range(x.ndim - k, x.ndim))
    lead = tuple(range(x.ndim - k))
    mean = jnp.reshape(mean, mean.shape + (1,) * (x.ndim - mean.ndim))
    rstd = jnp.reshape(rstd, rstd.shape + (1,) * (x.ndim - rstd.ndim))
    xhat = (x - mean) * rstd
    gw = g * weight if weight is not None else g
    n = math.prod(x.shape[d] for d in axes)
    gi = rstd / n * (n * gw - jnp.sum(gw, axis=axes, keepdims=True) -
                     xhat * jnp.sum(gw * xhat, axis=axes, keepdims=True))
    gweight = jnp.sum(g * xhat, axis=lead) if mask[1] and weight is not None else None
    gbias = jnp.sum(g, axis=lead) if mask[2] and a["bias"] is not None else None
    return (gi if mask[0] else None), gweight, gbias


def _embedding_backward(a, out):
    jnp = _jnp()
    g, idx = a["grad_output"], a["indices"]
    num, pad = a["num_weights"], a["padding_idx"]
    flat = jnp.reshape(idx, (-1,))
    rows = jnp.reshape(g, (flat.shape[0], -1))
    if pad is not None and pad >= 0:
        rows = jnp.where((flat != pad)[:, None], rows, 0)
    return jnp.zeros((num, rows.shape[1]), g.dtype).at[flat].add(rows)


def _split(a, out):
    x = a["self"]
    dim = _dim(a.get("dim", 0), x.ndim)
    pieces, start = [], 0
    for _, sizes in out:
        pieces.append(_slice(x, dim, start, start + sizes[dim], 1))
        start += sizes[dim]
    return tuple(pieces)


def _where(a, out):
    jnp = _jnp()
    dt = _out_dtype(out)
    return jnp.where(a["condition"], _cast(a["self"], dt), _cast(a["other"], dt))


def _lowerings():
    import jax
    jnp = _jnp()
    lax = jax.lax
    reshape_to_out = lambda a, out: jnp.reshape(a["self"], out[0][1])  # noqa: E731
    identity = lambda a, out: a["self"]  # noqa: E731
    table = {
        "add": _binary(lambda x, y: x + y),
        "sub": _binary(lambda x, y: x - y),
        "subtract": _binary(lambda x, y: x - y),
        "mul": _binary(lambda x, y: x * y),
        "multiply": _binary(lambda x, y: x * y),
        "rsub": lambda a, out: _cast(a["other"], _out_dtype(out)) -
        _cast(a.get("alpha", 1), _out_dtype(out)) * _cast(a["self"], _out_dtype(out)),
        "div": lambda a, out: _div(a, out),
        "divide": lambda a, out: _div(a, out),
        "maximum": _binary(jnp.maximum),
        "minimum": _binary(jnp.minimum),
        "eq": _binary(lambda x, y: x == y),
        "ne": _binary(lambda x, y: x != y),
        "lt": _binary(lambda x, y: x < y),
        "le": _binary(lambda x, y: x <= y),
        "gt": _binary(lambda x, y: x > y),
        "ge": _binary(lambda x, y: x >= y),
        "logical_and": lambda a, out: jnp.logical_and(a["self"], a["other"]),
        "logical_or": lambda a, out: jnp.logical_or(a["self"], a["other"]),
        "logical_not": lambda a, out: jnp.logical_not(a["self"]),
        "pow": lambda a, out: jnp.power(_cast(a["self"], _out_dtype(out)), _cast(a["exponent"], _out_dtype(out))),
        "neg": _unary(jnp.negative),
        "abs": _unary(jnp.abs),
        "exp": _unary(jnp.exp),
        "log": _unary(jnp.log),
        "log1p": _unary(jnp.log1p),
        "expm1": _unary(jnp.expm1),
        "sqrt": _unary(jnp.sqrt),
        "rsqrt": _unary(lax.rsqrt),
        "reciprocal": _unary(lambda x: 1 / x),
        "sin": _unary(jnp.sin),
        "cos": _unary(jnp.cos),
        "tanh": _unary(jnp.tanh),
        "sigmoid": _unary(jax.nn.sigmoid),
        "relu": _unary(jax.nn.relu),
        "erf": _unary(jax.scipy.special.erf),
        "sign": _unary(jnp.sign),
        "floor": _unary(jnp.floor),
        "ceil": _unary(jnp.ceil),
        "square": _unary(jnp.square),
        "gelu": lambda a, out: jax.nn.gelu(_cast(a["self"], _out_dtype(out)), approximate=a["approximate"] == "tanh"),
        "gelu_backward": lambda a, out: _gelu_backward(a, out),
        "_adam_step": _adam_step,
        "threshold_backward": lambda a, out: jnp.where(a["self"] <= a["threshold"], 0, a["grad_output"]),
        "sigmoid_backward": lambda a, out: a["grad_output"] * a["output"] * (1 - a["output"]),
        "tanh_backward": lambda a, out: a["grad_output"] * (1 - a["output"] * a["output"]),
        "clamp": lambda a, out: jnp.clip(a["self"], a.get("min"), a.get("max")),
        "clamp_min": lambda a, out: jnp.maximum(a["self"], _cast(a["min"], _out_dtype(out))),
        "clamp_max": lambda a, out: jnp.minimum(a["self"], _cast(a["max"], _out_dtype(out))),
        "where": _where,
        "masked_fill": lambda a, out: jnp.where(a["mask"], _cast(a["value"], _out_dtype(out)), a["self"]),
        "addcmul": lambda a, out: a["self"] + _cast(a["value"], _out_dtype(out)) * a["tensor1"] * a["tensor2"],
        "addcdiv": lambda a, out: a["self"] + _cast(a["value"], _out_dtype(out)) * a["tensor1"] / a["tensor2"],
        "lerp": lambda a, out: a["self"] + _cast(a["weight"], _out_dtype(out)) * (a["end"] - a["self"]),
        "sum": _reduce(jnp.sum),
        "mean": _reduce(jnp.mean),
        "amax": _reduce(jnp.max),
        "amin": _reduce(jnp.min),
        "max": lambda a, out: _max_min(jnp.max, jnp.argmax, a, out),
        "min": lambda a, out: _max_min(jnp.min, jnp.argmin, a, out),
        "argmax": lambda a, out: _arg(jnp.argmax, a),
        "argmin": lambda a, out: _arg(jnp.argmin, a),
        "linalg_vector_norm": lambda a, out: _vector_norm(a, out),
        "mm": lambda a, out: jnp.matmul(a["self"], a["mat2"]),
        "bmm": lambda a, out: jnp.matmul(a["self"], a["mat2"]),
        # beta == 0 ignores self (NaN and inf included), as torch does.
        "addmm": lambda a, out: jnp.where(a["beta"] == 0, 0, _cast(a["beta"], _out_dtype(out)) * a["self"]) +
        _cast(a["alpha"], _out_dtype(out)) * jnp.matmul(a["mat1"], a["mat2"]),
        "baddbmm": lambda a, out: jnp.where(a["beta"] == 0, 0, _cast(a["beta"], _out_dtype(out)) * a["self"]) +
        _cast(a["alpha"], _out_dtype(out)) * jnp.matmul(a["batch1"], a["batch2"]),
        "_softmax": _softmax,
        "softmax": _softmax,
        "_log_softmax": _log_softmax,
        "log_softmax": _log_softmax,
        "_softmax_backward_data": lambda a, out: a["output"] * (
            a["grad_output"] - jnp.sum(a["grad_output"] * a["output"], axis=a["dim"], keepdims=True)),
        "_log_softmax_backward_data": lambda a, out: a["grad_output"] - jnp.exp(a["output"]) * jnp.sum(
            a["grad_output"], axis=a["dim"], keepdims=True),
        "nll_loss_forward": _nll_loss_forward,
        "nll_loss_backward": _nll_loss_backward,
        "native_layer_norm": _layer_norm,
        "native_layer_norm_backward": _layer_norm_backward,
        "embedding": lambda a, out: jnp.take(a["weight"], _checked(a["indices"], 0, a["weight"].shape[0]), axis=0),
        "embedding_dense_backward": _embedding_backward,
        "index": lambda a, out: a["self"][_index_tuple(a["self"], a["indices"])],
        "index_put": lambda a, out: _index_put(a, out),
        "index_select": lambda a, out: _take(jnp.take, a),
        "gather": lambda a, out: _take(jnp.take_along_axis, a),
        "tril": lambda a, out: jnp.tril(a["self"], a["diagonal"]),
        "triu": lambda a, out: jnp.triu(a["self"], a["diagonal"]),
        "cat": lambda a, out: jnp.concatenate([_cast(t, _out_dtype(out)) for t in a["tensors"]],
                                              axis=_dim(a["dim"], len(out[0][1]))),
        "stack": lambda a, out: jnp.stack(a["tensors"], axis=_dim(a["dim"], len(out[0][1]))),
        # Views and shape changes: the result's shape is recorded.
        "view": lambda a, out: jnp.reshape(lax.bitcast_convert_type(a["self"], _out_dtype(out)) if "dtype" in a
                                           else a["self"], out[0][1]),
        "_unsafe_view": reshape_to_out,
        "reshape": reshape_to_out,
        "unsqueeze": reshape_to_out,
        "squeeze": reshape_to_out,
        "flatten": reshape_to_out,
        "expand": lambda a, out: jnp.broadcast_to(a["self"], out[0][1]),
        "t": lambda a, out: jnp.transpose(a["self"]) if a["self"].ndim == 2 else a["self"],
        "transpose": lambda a, out: jnp.swapaxes(a["self"], a["dim0"], a["dim1"]),
        "permute": lambda a, out: jnp.transpose(a["self"], [_dim(d, a["self"].ndim) for d in a["dims"]]),
        "select": lambda a, out: _select(a["self"], a["dim"], a["index"]),
        "slice": lambda a, out: _slice(a["self"], a["dim"], a["start"], a["end"], a["step"]),
        "split": _split,
        "split_with_sizes": _split,
        "unbind": lambda a, out: tuple(jnp.take(a["self"], i, axis=_dim(a["dim"], a["self"].ndim))
                                       for i in range(len(out))),
        "as_strided": lambda a, out: jnp.ravel(a["self"])[_as_strided_indices(a["size"], a["stride"],
                                                                                a["storage_offset"])],
        "as_strided_scatter": lambda a, out: jnp.reshape(
            jnp.ravel(a["self"]).at[np.ravel(_as_strided_indices(a["size"], a["stride"], a["storage_offset"]))]
            .set(jnp.ravel(_cast(a["src"], a["self"].dtype))), a["self"].shape),
        "conj": lambda a, out: jnp.conj(a["self"]) if jnp.iscomplexobj(a["self"]) else a["self"],
        "conj_physical": lambda a, out: jnp.conj(a["self"]) if jnp.iscomplexobj(a["self"]) else a["self"],
        "resolve_conj": identity,
        "resolve_neg": identity,
        "alias": identity,
        "detach": identity,
        "clone": identity,
        "contiguous": identity,
        "to": lambda a, out: a["self"],
        # Factories and fills.
        "full": lambda a, out: jnp.full(out[0][1], a["fill_value"], _out_dtype(out)),
        "full_like": lambda a, out: jnp.full(out[0][1], a["fill_value"], _out_dtype(out)),
        "scalar_tensor": lambda a, out: jnp.full((), a["s"], _out_dtype(out)),
        "zeros": lambda a, out: jnp.zeros(out[0][1], _out_dtype(out)),
        "zeros_like": lambda a, out: jnp.zeros(out[0][1], _out_dtype(out)),
        "ones": lambda a, out: jnp.ones(out[0][1], _out_dtype(out)),
        "ones_like": lambda a, out: jnp.ones(out[0][1], _out_dtype(out)),
        # Uninitialized memory: zeros are as good as anything.
        "empty": lambda a, out: jnp.zeros(out[0][1], _out_dtype(out)),
        "empty_like": lambda a, out: jnp.zeros(out[0][1], _out_dtype(out)),
        "empty_strided": lambda a, out: jnp.zeros(out[0][1], _out_dtype(out)),
        "new_empty": lambda a, out: jnp.zeros(out[0][1], _out_dtype(out)),
        "arange": lambda a, out: (a.get("start", 0) + a.get("step", 1) * jnp.arange(out[0][1][0])),
        "copy": lambda a, out: jnp.broadcast_to(a["src"], out[0][1]),
        "fill": lambda a, out: jnp.full(out[0][1], a["value"], _out_dtype(out)),
        "zero": lambda a, out: jnp.zeros(out[0][1], _out_dtype(out)),
    }
    return table


def _div(a, out):
    jnp = _jnp()
    dt = _out_dtype(out)
    x, y = _cast(a["self"], dt), _cast(a["other"], dt)
    mode = a.get("rounding_mode")
    if mode == "trunc":
        return jnp.trunc(x / y) if np.issubdtype(dt, np.floating) else (x / y).astype(dt)
    if mode == "floor":
        return jnp.floor_divide(x, y)
    return x / y


def _max_min(reduce, arg, a, out):
    x = a["self"]
    if "dim" not in a:  # the whole tensor
        return reduce(x)
    if x.ndim == 0:
        return x, _jnp().zeros((), np.int64)
    axis = _dim(a["dim"], x.ndim)
    keep = bool(a.get("keepdim", False))
    return reduce(x, axis=axis, keepdims=keep), arg(x, axis=axis, keepdims=keep)


def _arg(arg, a):
    x = a["self"]
    if a.get("dim") is None:
        return arg(_jnp().ravel(x))
    if x.ndim == 0:
        return _jnp().zeros((), np.int64)
    return arg(x, axis=_dim(a["dim"], x.ndim), keepdims=bool(a.get("keepdim", False)))


def _index_tuple(x, indices):
    """Tensor?[] indices into x as a numpy-style index: None (a whole dim) as
    a slice. Advanced indexing's dim placement is numpy's, which torch follows."""
    return tuple(slice(None) if i is None else _checked(i, -x.shape[d], x.shape[d]) for d, i in enumerate(indices))


def _take(take, a):
    """index_select and gather: indices in [0, size) of their dim (no wrapping)."""
    x = a["self"]
    dim = _dim(a["dim"], x.ndim)
    size = x.shape[dim] if x.ndim else 1
    return take(x, _checked(a["index"], 0, size), axis=dim if x.ndim else None)


def _index_put(a, out):
    x, where = a["self"], _index_tuple(a["self"], a["indices"])
    values = _cast(a["values"], x.dtype)
    return x.at[where].add(values) if a["accumulate"] else x.at[where].set(values)


def _adam_step(a, out):
    """One Adam/AdamW update (aten/native/FusedAdam.cpp's formula): the new
    parameter, then the moments it writes."""
    jnp = _jnp()
    p, g, m, v = a["self"], a["grad"], a["exp_avg"], a["exp_avg_sq"]
    dt = p.dtype
    step, lr, beta1, beta2 = a["step"], a["lr"], a["beta1"], a["beta2"]
    weight_decay, eps = a["weight_decay"], a["eps"]
    step_size = _cast(lr / (1 - beta1 ** step), dt)
    inv_bc2 = _cast(1 / jnp.sqrt(1 - beta2 ** step), dt)
    if a["maximize"]:
        g = -g
    if a["decoupled_weight_decay"]:
        p = p * _cast(1 - lr * weight_decay, dt)
    else:
        g = g + _cast(weight_decay, dt) * p
    m = m + _cast(1 - beta1, dt) * (g - m)
    v = v * _cast(beta2, dt) + _cast(1 - beta2, dt) * g * g
    return p - step_size * (m / (jnp.sqrt(v) * inv_bc2 + _cast(eps, dt))), m, v


def _gelu_backward(a, out):
    import jax
    x, g = a["self"], a["grad_output"]
    approximate = a["approximate"] == "tanh"
    _, vjp = jax.vjp(lambda v: jax.nn.gelu(v, approximate=approximate), x)
    return vjp(g)[0]


def _vector_norm(a, out):
    jnp = _jnp()
    x = a["self"]
    ord_ = a["ord"]
    dims = _dims(a.get("dim"), x.ndim)
    keep = bool(a.get("keepdim", False))
    ax = jnp.abs(_cast(x, _out_dtype(out)))
    if ord_ == 2:
        return jnp.sqrt(jnp.sum(ax * ax, axis=dims, keepdims=keep))
    if ord_ == float("inf"):
        return jnp.max(ax, axis=dims, keepdims=keep)
    if ord_ == 1:
        return jnp.sum(ax, axis=dims, keepdims=keep)
    return jnp.sum(ax ** ord_, axis=dims, keepdims=keep) ** (1.0 / ord_)


_TABLE = None


def _lowering_for(kind):
    """The lowering of an op kind ("aten::add_.Tensor"), or None."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _lowerings()
    name = kind.split("::", 1)[1].split(".", 1)[0]
    if name in _TABLE:
        return _TABLE[name]
    if name.endswith("_") and name[:-1] in _TABLE:  # in place: the same value, functionally
        return _TABLE[name[:-1]]
    return None


# ---- executables -------------------------------------------------------------

class _Piece:
    """A run of nodes compiled together by XLA, or one node run eagerly."""

    def __init__(self, nodes, eager):
        self.nodes = nodes
        self.eager = eager
        self.inputs = []
        self.outputs = []
        self.executable = None
        self.text = ""
        self.checks_indices = False  # returns a last output: whether an index was out of range


class XlaExecutable:
    """A lazy graph compiled by XLA (built by ember._C._lazy when the executor compiles)."""

    def __init__(self, graph):
        import jax
        self.graph_text = str(graph)
        desc = _C._lazy.describe(graph)
        self.input_ids = [i for i, _ in desc["inputs"]]
        self.output_ids = desc["outputs"]
        nodes = desc["nodes"]
        # Every value's type: (dtype, sizes) for tensors, "float", "int"... for numbers.
        self.value_types = dict(desc["inputs"])
        for node in nodes:
            self.value_types.update(zip(node[2], node[3]))
        # Nodes whose lowering failed to compile (a case it does not cover)
        # run eagerly like the ops it does not know.
        refused = set()
        while True:
            self.pieces = self._partition(nodes, refused)
            failed = None
            for piece in self.pieces:
                if piece.eager:
                    continue
                try:
                    self._compile(piece, jax)
                except Exception:
                    failed = piece
                    break
            if failed is None:
                return
            newly = set()
            for node in failed.nodes:
                alone = self._partition([node], set(), needed=set(node[2]))[0]
                try:
                    self._compile(alone, jax)
                except Exception:
                    newly.add(id(node))
            if not newly:  # each compiles alone, not together: run the whole piece eagerly
                newly = {id(node) for node in failed.nodes}
            refused |= newly

    def _partition(self, nodes, refused, needed=None):
        """Runs of lowerable nodes (one XLA piece each) and single eager nodes, with
        what each piece reads from before it and what later ones need from it."""
        pieces = []
        for node in nodes:
            eager = _lowering_for(node[0]) is None or id(node) in refused
            if eager or not pieces or pieces[-1].eager:
                pieces.append(_Piece([node], eager))
            else:
                pieces[-1].nodes.append(node)
        needed_later = set(self.output_ids) if needed is None else set(needed)
        for piece in reversed(pieces):
            made = {o for n in piece.nodes for o in n[2]}
            piece.outputs = [o for n in piece.nodes for o in n[2] if o in needed_later]
            reads = []
            for n in piece.nodes:
                for _, (how, what) in n[1]:
                    ids = [what] if how == "value" else [w for w in what if w is not None] if how == "list" else []
                    reads += [i for i in ids if i not in made and i not in reads]
            piece.inputs = reads
            needed_later |= set(reads)
        return pieces

    def _compile(self, piece, jax):
        def run(*args):
            global _range_flags
            env = dict(zip(piece.inputs, args))
            _range_flags = flags = []
            try:
                for kind, arguments, outs, out_types, _ in piece.nodes:
                    a = {}
                    for name, (how, what) in arguments:
                        if how == "value":
                            a[name] = env[what]
                        elif how == "list":
                            a[name] = [None if w is None else env[w] for w in what]
                        else:
                            a[name] = what
                    result = _lowering_for(kind)(a, out_types)
                    if not isinstance(result, (tuple, list)):
                        result = (result,)
                    for o, r, (dtype, sizes) in zip(outs, result, out_types):
                        if r is not None:
                            env[o] = _jnp().reshape(_jnp().asarray(r).astype(_np_dtype(dtype)), sizes)
            finally:
                _range_flags = None
            results = tuple(env[o] for o in piece.outputs)
            piece.checks_indices = bool(flags)
            return results + (_jnp().any(_jnp().stack(flags)),) if flags else results

        specs = []
        for i in piece.inputs:
            t = self.value_types[i]
            if isinstance(t, str):  # a number input
                dtype = {"float": np.float64, "int": np.int64, "bool": np.bool_, "complex": np.complex128}[t]
                specs.append(jax.ShapeDtypeStruct((), dtype))
            else:
                specs.append(jax.ShapeDtypeStruct(tuple(t[1]), _np_dtype(t[0])))
        lowered = jax.jit(run).lower(*specs)
        piece.text = lowered.as_text()
        piece.executable = lowered.compile()

    def run(self, inputs):
        _next_run()
        env = dict(zip(self.input_ids, inputs))
        for piece in self.pieces:
            if piece.eager:
                self._run_eagerly(piece.nodes[0], env)
                continue
            args = []
            for i in piece.inputs:
                v = env[i]
                args.append(np.asarray(v) if isinstance(v, (bool, int, float, complex)) else _to_jax(v))
            results = piece.executable(*args)
            if piece.checks_indices:
                *results, out_of_range = results
                if bool(out_of_range):
                    return self._run_eagerly_to_the_error(inputs)
            for o, r in zip(piece.outputs, results):
                env[o] = r
        return [_to_ember(env[o]) for o in self.output_ids]

    def _run_eagerly_to_the_error(self, inputs):
        """The graph op by op on the CPU, from the start: the op given an index
        out of range raises its own error, as it would have eagerly."""
        env = dict(zip(self.input_ids, inputs))
        for piece in self.pieces:
            for node in piece.nodes:
                self._run_eagerly(node, env, counted=False)
        return [_to_ember(env[o]) for o in self.output_ids]

    def _run_eagerly(self, node, env, counted=True):
        kind, arguments, outs, _, written = node
        # Copies: the lazy graph is functional, and the op may write its arguments.
        def private(value):
            value = _to_ember(value)
            return value.clone() if hasattr(value, "clone") and value.dim() > 0 else value

        kwargs = {}
        for name, (how, what) in arguments:
            if how == "value":
                v = private(env[what])
            elif how == "list":
                v = [None if w is None else private(env[w]) for w in what]
            else:
                v = what
            kwargs[name] = v
        # What the op writes without returning it: its private copies, written in place.
        written_values = [kwargs[name] if k < 0 else kwargs[name][k] for name, k in written]
        if counted:
            _C._lazy.count("Fallback::" + kind)
        result = _C._call_op(kind, **kwargs)
        if result is None:  # returns nothing (it writes what it computes)
            result = ()
        elif not isinstance(result, (tuple, list)):
            result = (result,)
        flat = []
        for r in result:
            flat.extend(r if isinstance(r, (list, tuple)) else [r])
        for o, r in zip(outs, flat + written_values):
            env[o] = r

    def dump(self):
        parts = []
        for k, piece in enumerate(self.pieces):
            if piece.eager:
                parts.append(f"// piece {k}: {piece.nodes[0][0]} runs eagerly on the CPU")
            else:
                parts.append(f"// piece {k}: {len(piece.nodes)} nodes compiled by XLA\n{piece.text}")
        return "\n".join(parts)
