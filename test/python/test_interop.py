"""Data exchange with NumPy (from_numpy, .numpy(), __array__) and DLPack
(NumPy and torch in both directions): zero-copy, dtypes, errors, lifetime."""

import gc
import warnings

import numpy as np
import pytest

import ember
from ember_testing import ALL_DTYPES, DTYPE_NAMES, make, name, need_torch, to_numpy, torch, torch_dtype

NUMPY_NAMES = [n for n in DTYPE_NAMES if n != "bfloat16"]


def np_sample(dtype_name, shape=(3, 4), seed=0):
    _, values = make(dtype_name, shape, seed)
    return values.copy()


# ---------------------------------------------------------------------------
# from_numpy
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype_name", NUMPY_NAMES)
def test_from_numpy_all_dtypes_zero_copy(dtype_name):
    a = np_sample(dtype_name)
    t = ember.from_numpy(a)
    assert t.dtype is getattr(ember, dtype_name)
    assert t.shape == a.shape and t.stride() == (4, 1)
    assert t.data_ptr() == a.ctypes.data
    assert t.tolist() == a.tolist()
    # Writes go through in both directions.
    a[0, 0] = a[2, 3]
    assert t[0, 0].item() == a[2, 3].item()
    t[1] = t[2]
    np.testing.assert_array_equal(a[1], a[2])
    back = t.numpy()
    assert back.dtype == a.dtype and np.shares_memory(back, a)
    if torch is not None:
        assert name(torch.from_numpy(a).dtype) == dtype_name


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a.T,
        lambda a: a[:, ::2],
        lambda a: a[1:, 1:3],
        lambda a: a[::2, None, ::3],
        lambda a: a[1],
        lambda a: a[1, 2, ...],
        lambda a: a[:0],
        lambda a: np.broadcast_to(a[:1], (5, 4)),
        lambda a: a.reshape(2, 6)[:, 1::4],
        lambda a: np.asfortranarray(a),
    ],
)
@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")  # broadcast_to is read-only
def test_from_numpy_keeps_strides(view):
    a = view(np.arange(12, dtype=np.float64).reshape(3, 4))
    t = ember.from_numpy(a)
    assert t.shape == a.shape
    assert t.stride() == tuple(s // 8 for s in a.strides)
    assert t.storage_offset() == 0
    assert t.data_ptr() == a.ctypes.data
    np.testing.assert_array_equal(to_numpy(t), a)
    if torch is not None:
        assert torch.from_numpy(a).stride() == t.stride()


def test_from_numpy_writes_through_views():
    a = np.zeros((3, 4), dtype=np.int32)
    t = ember.from_numpy(a[:, 1:].T)
    t[0] = 7
    assert a[:, 1].tolist() == [7, 7, 7]
    a[2, 3] = -1
    assert t[2, 2].item() == -1


@pytest.mark.parametrize(
    "array, error, match",
    [
        (np.zeros(3, dtype=np.uint16), TypeError, "can't convert np.ndarray of type uint16"),
        (np.zeros(3, dtype=np.uint32), TypeError, "can't convert np.ndarray of type uint32"),
        (np.zeros(3, dtype=np.uint64), TypeError, "can't convert np.ndarray of type uint64"),
        (np.zeros(3, dtype=np.longdouble), TypeError, "can't convert np.ndarray"),
        (np.zeros(3, dtype=object), TypeError, "can't convert np.ndarray of type object"),
        (np.zeros(3, dtype="U2"), TypeError, "can't convert np.ndarray"),
        (np.zeros(3, dtype=">f4"), ValueError, "byte order"),
        (np.zeros(3, dtype=">i8"), ValueError, "byte order"),
        (np.arange(5)[::-1], ValueError, "negative"),
        (np.zeros((3, 3))[:, ::-1], ValueError, "negative"),
        (np.zeros(3, dtype=[("a", "i4"), ("b", "i2")])["a"], ValueError, "not a multiple of the element byte size"),
    ],
    ids=lambda x: getattr(x, "dtype", x) if not isinstance(x, str) else x[:12],
)
def test_from_numpy_rejects(array, error, match):
    with pytest.raises(error, match=match):
        ember.from_numpy(array)
    if torch is not None and array.dtype.kind != "u":
        # torch has grown uint16/32/64 tensors; Ember has only uint8.
        with pytest.raises(error):
            torch.from_numpy(array)


def test_from_numpy_rejects_non_arrays():
    for bad in ([1, 2], 3.0, np.float64(2.0), "abc"):
        with pytest.raises(TypeError, match="expected np.ndarray"):
            ember.from_numpy(bad)
        if torch is not None:
            with pytest.raises(TypeError):
                torch.from_numpy(bad)


def test_from_numpy_warns_for_read_only_arrays():
    a = np.arange(3.0)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        t = ember.from_numpy(a)
    assert t.tolist() == [0.0, 1.0, 2.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.from_numpy(np.arange(3.0))  # writable: no warning
    # Under an "error" filter the warning becomes an exception.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning):
            ember.from_numpy(a)


def test_from_numpy_zero_size_and_0d():
    for a in (np.zeros((0, 3)), np.zeros((2, 0, 5), dtype=np.int8), np.array(5.0), np.array(True)):
        t = ember.from_numpy(a)
        assert t.shape == a.shape
        assert t.dtype is getattr(ember, str(a.dtype))
        assert t.tolist() == a.tolist()


def test_from_numpy_keeps_the_array_alive():
    a = np.arange(100_000, dtype=np.int64)
    t = ember.from_numpy(a)
    view = t[10:20]
    del a, t
    gc.collect()
    np.arange(100_000, dtype=np.int64) * 0  # churn the allocator
    assert view.tolist() == list(range(10, 20))


# ---------------------------------------------------------------------------
# Tensor.numpy() and __array__
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype_name", NUMPY_NAMES)
def test_numpy_all_dtypes_zero_copy(dtype_name):
    t, values = make(dtype_name, (3, 4))
    t = t.clone()  # owned by Ember, not by the NumPy array it came from
    a = t.numpy()
    assert a.dtype == np.dtype(dtype_name)
    assert a.ctypes.data == t.data_ptr()
    np.testing.assert_array_equal(a, values)
    a[0, 0] = values[1, 1]
    assert t[0, 0].item() == values[1, 1].item()
    t[2].fill_(0)
    assert not a[2].any()


def test_numpy_keeps_strides_and_offsets():
    t = ember.arange(24, dtype=ember.int32).view(2, 3, 4)
    for v in (t.transpose(0, 2), t[1, :, ::2], t[:, 1:, 1:3], t[0, 0, 3], t[:1].expand(4, 3, 4), t[:, :0]):
        a = v.numpy()
        assert a.shape == tuple(v.shape)
        assert a.strides == tuple(4 * s for s in v.stride())
        np.testing.assert_array_equal(a, np.array(v.tolist()).reshape(a.shape))
        if v.numel():
            assert a.ctypes.data == v.data_ptr()


def test_numpy_keeps_the_tensor_alive():
    t = ember.arange(50_000.0)
    a = t[100:].numpy()
    del t
    gc.collect()
    ember.zeros(50_000)  # reuse memory if it had been freed
    assert a[:3].tolist() == [100.0, 101.0, 102.0]


def test_numpy_errors():
    with pytest.raises(RuntimeError, match="requires grad"):
        ember.ones(2, requires_grad=True).numpy()
    with pytest.raises(RuntimeError, match="conjugate bit"):
        ember.tensor([1j]).conj().numpy()
    with pytest.raises(TypeError, match="BFloat16"):
        ember.ones(2, dtype=ember.bfloat16).numpy()
    with pytest.raises(TypeError, match="meta"):
        ember.ones(2, device="meta").numpy()
    if torch is not None:
        with pytest.raises(RuntimeError):
            torch.ones(2, requires_grad=True).numpy()
        with pytest.raises(RuntimeError):
            torch.tensor([1j]).conj().numpy()
        with pytest.raises(TypeError):
            torch.ones(2, dtype=torch.bfloat16).numpy()
        with pytest.raises(TypeError):
            torch.ones(2, device="meta").numpy()


def test_numpy_force():
    g = ember.ones(2, requires_grad=True)
    assert g.numpy(force=True).tolist() == [1.0, 1.0]
    c = ember.tensor([1 + 2j]).conj()
    forced = c.numpy(force=True)
    assert forced.tolist() == [1 - 2j]
    assert c.tolist() == [1 - 2j] and not np.shares_memory(forced, c.conj().numpy())
    with pytest.raises(TypeError, match="BFloat16"):
        ember.ones(2, dtype=ember.bfloat16).numpy(force=True)


def test_array_protocol():
    t = ember.arange(6, dtype=ember.float32).view(2, 3)
    a = np.asarray(t)
    assert a.dtype == np.float32 and a.shape == (2, 3)
    assert np.shares_memory(a, t.numpy())
    copy = np.array(t)
    assert not np.shares_memory(copy, a) and copy.tolist() == t.tolist()
    assert np.array(t, copy=False).ctypes.data == t.data_ptr()
    converted = np.asarray(t, dtype=np.float64)
    assert converted.dtype == np.float64 and converted.tolist() == t.tolist()
    assert np.asarray(t.t()).strides == (4, 12)
    assert np.add(t, 1).tolist() == [[1, 2, 3], [4, 5, 6]]
    assert np.asarray(ember.tensor(3)).shape == ()
    # Unlike torch, __array__ of a tensor that requires grad detaches it
    # rather than raising (Ember has no graph to lose yet).
    assert np.asarray(ember.ones(2, requires_grad=True)).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="BFloat16"):
        np.asarray(ember.ones(2, dtype=ember.bfloat16))


def test_tensor_from_numpy_copies():
    a = np.arange(6.0).reshape(2, 3).T
    t = ember.tensor(a)
    assert t.stride() == (1, 3)  # the clone keeps the dense layout
    assert not np.shares_memory(t.numpy(), a)
    a[0, 0] = 99
    assert t[0, 0].item() == 0.0


# ---------------------------------------------------------------------------
# DLPack
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype_name", NUMPY_NAMES)
def test_dlpack_to_numpy(dtype_name):
    t, values = make(dtype_name, (3, 4))
    t = t.clone()
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(dtype_name)
    np.testing.assert_array_equal(a, values)
    assert a.ctypes.data == t.data_ptr()
    t[0, 0] = t[2, 2]
    assert a[0, 0] == values[2, 2]
    # NumPy makes arrays from unversioned (DLPack < 1.0) capsules read-only,
    # and the unversioned capsule is all Ember exports so far.
    assert not a.flags.writeable
    v = np.from_dlpack(t.t()[1:, ::2])
    assert v.strides == tuple(t.element_size() * s for s in t.t()[1:, ::2].stride())
    np.testing.assert_array_equal(v, values.T[1:, ::2])


@pytest.mark.parametrize("dtype_name", NUMPY_NAMES)
def test_dlpack_from_numpy(dtype_name):
    a = np_sample(dtype_name)
    t = ember.from_dlpack(a)
    assert t.dtype is getattr(ember, dtype_name)
    assert t.data_ptr() == a.ctypes.data
    assert t.tolist() == a.tolist()
    a[1, 1] = a[0, 0]
    assert t[1, 1].item() == a[0, 0].item()
    s = ember.from_dlpack(a[:, 1:].T)
    assert s.stride() == (1, 4) and s.tolist() == a[:, 1:].T.tolist()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=name)
def test_dlpack_with_torch_both_ways(dtype):
    tm = need_torch()
    e, values = make(name(dtype), (3, 4), seed=2)
    e = e.clone()
    t = tm.from_dlpack(e)
    assert t.dtype == torch_dtype(dtype)
    assert t.data_ptr() == e.data_ptr()
    assert t.tolist() == e.tolist()
    t[0, 0] = t[1, 1]
    assert e[0, 0].item() == e[1, 1].item()
    strided = tm.from_dlpack(e.t()[::2])
    assert strided.stride() == e.t()[::2].stride() and strided.tolist() == e.t()[::2].tolist()

    source = tm.arange(12).view(3, 4).to(torch_dtype(dtype))
    back = ember.from_dlpack(source)
    assert back.dtype is dtype and back.tolist() == source.tolist()
    assert back.data_ptr() == source.data_ptr()
    sliced = ember.from_dlpack(source.t()[1:])
    assert sliced.stride() == source.t()[1:].stride()
    assert sliced.data_ptr() == source.t()[1:].data_ptr()
    assert sliced.tolist() == source.t()[1:].tolist()


def test_dlpack_capsules():
    e = ember.arange(5)
    capsule = ember.utils.dlpack.to_dlpack(e)
    t = ember.from_dlpack(capsule)
    assert t.tolist() == [0, 1, 2, 3, 4] and t.data_ptr() == e.data_ptr()
    with pytest.raises(RuntimeError, match="already consumed"):
        ember.from_dlpack(capsule)
    # A capsule from torch, consumed by Ember, and the other way round.
    if torch is not None:
        tc = torch.utils.dlpack.to_dlpack(torch.arange(3))
        assert ember.from_dlpack(tc).tolist() == [0, 1, 2]
        with pytest.raises(RuntimeError):
            ember.from_dlpack(tc)
        ec = ember.utils.dlpack.to_dlpack(ember.arange(3))
        assert torch.from_dlpack(ec).tolist() == [0, 1, 2]
        with pytest.raises(RuntimeError):
            torch.from_dlpack(ec)
    # An unconsumed capsule releases its tensor when collected.
    del capsule
    gc.collect()


def test_dlpack_protocol_methods():
    e = ember.arange(4.0)
    assert e.__dlpack_device__() == (1, 0)
    copy = ember.from_dlpack(e.__dlpack__(copy=True))
    assert copy.data_ptr() != e.data_ptr() and copy.tolist() == e.tolist()
    assert ember.from_dlpack(e.__dlpack__(max_version=(1, 0))).data_ptr() == e.data_ptr()
    assert ember.from_dlpack(e.__dlpack__(dl_device=(1, 0))).tolist() == e.tolist()
    with pytest.raises(RuntimeError, match="stream must be None"):
        e.__dlpack__(stream=1)
    with pytest.raises(RuntimeError, match="only export to the CPU"):
        e.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError, match="__dlpack__"):
        ember.from_dlpack([1, 2, 3])


def test_dlpack_export_errors():
    with pytest.raises(RuntimeError, match="conjugate bit"):
        ember.utils.dlpack.to_dlpack(ember.tensor([1j]).conj())
    with pytest.raises(RuntimeError, match="meta"):
        ember.empty(2, device="meta").__dlpack__()
    # torch refuses with BufferError (the array API's error type for export
    # failures); Ember's error hierarchy has no BufferError.
    if torch is not None:
        with pytest.raises(BufferError):
            torch.tensor([1j]).conj().__dlpack__()


def test_dlpack_zero_size_and_0d():
    for e in (ember.zeros(0, 3), ember.tensor(7), ember.zeros(2, 0, dtype=ember.int8)):
        a = np.from_dlpack(e)
        assert a.shape == tuple(e.shape) and a.tolist() == e.tolist()
        assert ember.from_dlpack(e.numpy()).shape == e.shape
        if torch is not None:
            t = torch.from_dlpack(e)
            assert tuple(t.shape) == tuple(e.shape) and t.tolist() == e.tolist()
            assert ember.from_dlpack(t).shape == e.shape


def test_dlpack_lifetime():
    a = np.arange(10_000.0)
    e = ember.from_dlpack(a)
    del a
    gc.collect()
    np.ones(10_000) * 3
    assert e[:3].tolist() == [0.0, 1.0, 2.0]

    src = ember.arange(10_000.0)
    exported = np.from_dlpack(src)
    del src
    gc.collect()
    ember.ones(10_000)
    assert exported[:3].tolist() == [0.0, 1.0, 2.0]

    if torch is not None:
        t = torch.arange(10_000.0)
        e = ember.from_dlpack(t)[5:]
        del t
        gc.collect()
        torch.ones(10_000)
        assert e[:2].tolist() == [5.0, 6.0]
        src = ember.arange(10_000.0)
        t = torch.from_dlpack(src)
        del src
        gc.collect()
        assert t[:2].tolist() == [0.0, 1.0]


def test_dlpack_round_trip_keeps_identity_of_memory():
    e = ember.arange(6).view(2, 3)
    round_trip = ember.from_dlpack(e.numpy())
    assert round_trip.data_ptr() == e.data_ptr()
    round_trip[0, 0] = 42
    assert e[0, 0].item() == 42
    if torch is not None:
        via_torch = ember.from_dlpack(torch.from_dlpack(e))
        via_torch[1, 2] = -1
        assert e[1, 2].item() == -1


def test_import_ember_does_not_load_numpy():
    # NumPy's own BLAS threads would otherwise start beside Ember's pool.
    import os
    import subprocess
    import sys

    code = "import sys, ember; assert 'numpy' not in sys.modules, 'numpy was imported'"
    package_root = os.path.dirname(os.path.dirname(ember.__file__))
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ, PYTHONPATH=package_root))
