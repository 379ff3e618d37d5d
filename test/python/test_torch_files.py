"""torch's checkpoint format both ways: files torch.save wrote load into
Ember (no torch needed for that), files Ember writes with format="torch"
load in torch with weights_only=True, whole modules and NumPy arrays need
an explicit allow-list, and hostile or damaged files are refused with an
error, never run."""

import collections
import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import ember
from ember import serialization
from torch_oracle import E, N, torch

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64", "complex128"]


def torch_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def ember_bytes(obj, **kwargs):
    buf = io.BytesIO()
    ember.save(obj, buf, **kwargs)
    return buf.getvalue()


def same_values(e, t):
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(e.shape) == tuple(t.shape)
    if t.dtype == torch.bfloat16:
        e, t = e.float(), t.float()
    np.testing.assert_array_equal(N(e), t.detach().numpy())


def sample_tensor(dtype):
    t = (torch.arange(12) - 4).reshape(3, 4)
    return t.to(getattr(torch, dtype)) * (1 if dtype in ("bool", "uint8") else 1.5 if "float" in dtype else 1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_tensors_load_in_every_dtype(dtype):
    t = sample_tensor(dtype)
    loaded = ember.load(io.BytesIO(torch_bytes({"t": t, "col": t[:, 1], "empty": t[:0], "scalar": t[1, 1]})))
    for key, expected in (("t", t), ("col", t[:, 1]), ("empty", t[:0]), ("scalar", t[1, 1])):
        same_values(loaded[key], expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_ember_tensors_load_in_torch(dtype):
    source = sample_tensor(dtype)
    t = E(source.float()).to(ember.bfloat16) if dtype == "bfloat16" else E(source)
    back = torch.load(io.BytesIO(ember_bytes({"t": t, "view": t.t()[1:]}, format="torch")), weights_only=True)
    same_values(t, back["t"])
    same_values(t.t()[1:], back["view"])


def test_views_keep_sharing_their_storage_both_ways():
    base = torch.arange(10.0)
    loaded = ember.load(io.BytesIO(torch_bytes([base, base[2:5], base.view(2, 5)])))
    loaded[0][3] = 100.0
    assert loaded[1][1].item() == 100.0 and loaded[2][0, 3].item() == 100.0
    mine = ember.arange(10.0)
    back = torch.load(io.BytesIO(ember_bytes([mine, mine[2:5]], format="torch")))
    back[0][3] = 100.0
    assert back[1][1].item() == 100.0


def test_state_dicts_move_between_the_libraries():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2), torch.nn.Flatten(),
                                torch.nn.Linear(8, 3))
    model(torch.randn(4, 1, 4, 4))  # running statistics become non-trivial
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    model(torch.randn(2, 1, 4, 4)).sum().backward()
    optimizer.step()
    checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3, "loss": 0.25}
    loaded = ember.load(io.BytesIO(torch_bytes(checkpoint)))
    mine = ember.nn.Sequential(ember.nn.Conv2d(1, 2, 3), ember.nn.BatchNorm2d(2), ember.nn.Flatten(),
                               ember.nn.Linear(8, 3))
    mine.load_state_dict(loaded["model"])
    mine.eval()
    model.eval()
    x = torch.randn(2, 1, 4, 4)
    np.testing.assert_allclose(N(mine(E(x))), model(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert loaded["epoch"] == 3 and loaded["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999)
    # and back: torch reads Ember's state_dict and optimizer state
    opt = ember.optim.Adam(mine.parameters(), lr=0.01)
    opt.load_state_dict(loaded["optimizer"])
    back = torch.load(io.BytesIO(ember_bytes({"model": mine.state_dict(), "optimizer": opt.state_dict()},
                                             format="torch")), weights_only=True)
    model.load_state_dict(back["model"])
    optimizer.load_state_dict(back["optimizer"])
    np.testing.assert_allclose(model(x).detach().numpy(), N(mine(E(x))), rtol=1e-5, atol=1e-6)


def test_plain_python_values_and_torch_objects():
    obj = {"size": torch.Size([2, 3]), "dtype": torch.float16, "device": torch.device("cpu"), "bytes": b"\x00\xff",
           "set": {1, 2}, "complex": 1 + 2j, "nested": [(1, "a"), {"k": None}], "od": collections.OrderedDict(a=1),
           "param": torch.nn.Parameter(torch.ones(2))}
    loaded = ember.load(io.BytesIO(torch_bytes(obj)))
    assert loaded["size"] == ember.Size([2, 3]) and isinstance(loaded["size"], ember.Size)
    assert loaded["dtype"] is ember.float16 and loaded["device"] == ember.device("cpu")
    assert loaded["bytes"] == b"\x00\xff" and loaded["set"] == {1, 2} and loaded["complex"] == 1 + 2j
    assert loaded["nested"] == [(1, "a"), {"k": None}] and type(loaded["od"]) is collections.OrderedDict
    assert isinstance(loaded["param"], ember.nn.Parameter) and loaded["param"].requires_grad


def test_paths_and_map_location(tmp_path):
    path = tmp_path / "weights.pth"
    torch.save({"w": torch.ones(2, requires_grad=True)}, path)
    loaded = ember.load(path, map_location="cpu")
    assert loaded["w"].requires_grad and ember.equal(loaded["w"].detach(), ember.ones(2))
    out = tmp_path / "mine.pt"
    ember.save({"w": ember.zeros(3)}, out, format="torch")
    with zipfile.ZipFile(out) as archive:
        assert "mine/data.pkl" in archive.namelist()
    assert torch.equal(torch.load(out)["w"], torch.zeros(3))
    # Ember's own format stays the default for what it can hold.
    ember.save({"w": ember.zeros(3)}, out)
    assert not zipfile.is_zipfile(out)
    assert ember.equal(ember.load(out)["w"], ember.zeros(3))


def test_whole_modules_need_an_allow_list(tmp_path):
    model = ember.nn.Sequential(ember.nn.Linear(2, 3), ember.nn.ReLU())
    path = tmp_path / "model.pt"
    ember.save(model, path)  # does not fit Ember's format: written in torch's
    assert serialization.get_unsafe_globals_in_checkpoint(path) == [
        "ember.nn.modules.container.Sequential", "ember.nn.modules.linear.Linear",
        "ember.nn.modules.activation.ReLU"]
    with pytest.raises(pickle.UnpicklingError, match="ember.nn.modules.container.Sequential, which is not an "
                                                     "allowed global"):
        ember.load(path)
    with serialization.safe_globals([ember.nn.Sequential, ember.nn.Linear, ember.nn.ReLU]):
        restored = ember.load(path)
    assert serialization.get_safe_globals() == []
    x = ember.randn(4, 2)
    assert ember.equal(restored(x), model(x))
    serialization.add_safe_globals([ember.nn.Sequential, ember.nn.Linear, ember.nn.ReLU])
    try:
        assert isinstance(ember.load(path), ember.nn.Sequential)
    finally:
        serialization.clear_safe_globals()


def test_numpy_arrays_load_once_allowed(tmp_path):
    path = tmp_path / "arrays.pt"
    array = np.arange(6.0).reshape(2, 3)
    ember.save({"a": array}, path)
    with pytest.raises(pickle.UnpicklingError, match="not an allowed global"):
        ember.load(path)
    allowed = [getattr(np, "_core", np.core).multiarray._reconstruct, np.ndarray, np.dtype, type(array.dtype)]
    with serialization.safe_globals(allowed):
        np.testing.assert_array_equal(ember.load(path)["a"], array)


# ---- hostile and damaged files ---------------------------------------------------------------------


class _Reduce:
    def __init__(self, func, args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


class _Storage:
    def __init__(self, pid):
        self.pid = pid


class _PersistentPickler(pickle.Pickler):
    def persistent_id(self, obj):
        return obj.pid if isinstance(obj, _Storage) else None


def archive(pickled, records=(), compress=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compress) as z:
        z.writestr("archive/data.pkl", pickled)
        for name, data in records:
            z.writestr(f"archive/{name}", data)
    return io.BytesIO(buf.getvalue())


def pickled(obj):
    buf = io.BytesIO()
    _PersistentPickler(buf, protocol=2).dump(obj)
    return buf.getvalue()


def tensor_record(size, stride, offset=0, numel=4, storage=torch.FloatStorage):
    pid = _Storage(("storage", storage, "0", "cpu", numel))
    return _Reduce(torch._utils._rebuild_tensor_v2, (pid, offset, size, stride, False, collections.OrderedDict()))


@pytest.mark.parametrize("func,args,match", [
    (os.system, ("echo pwned",), "posix.system, which is not an allowed global"),
    (eval, ("1 + 1",), "builtins.eval, which is not an allowed global"),
    (bytearray, (1 << 50,), "bytearray is allowed only from bytes"),
    (torch.Tensor, (1 << 40,), "does not unpickle"),
])
def test_code_and_huge_allocations_are_refused(func, args, match):
    with pytest.raises((pickle.UnpicklingError, RuntimeError, TypeError), match=match):
        ember.load(archive(pickled({"x": _Reduce(func, args)})))


@pytest.mark.parametrize("record,data,match", [
    (tensor_record((4,), (1,)), b"\x00" * 12, "should hold 4 elements of 4 bytes"),
    (tensor_record((1 << 40,), (1,), numel=1 << 40), b"\x00" * 16, "should hold"),
    (tensor_record((3,), (2,)), b"\x00" * 16, "reaches element 5 of a storage of 4"),
    (tensor_record((2,), (1,), offset=3), b"\x00" * 16, "reaches element 5"),
    (tensor_record((2,), (-1,)), b"\x00" * 16, "out of range"),
    (tensor_record((2.5,), (1,)), b"\x00" * 16, "not integers"),
])
def test_geometry_is_checked_against_the_bytes(record, data, match):
    with pytest.raises(RuntimeError, match=match):
        ember.load(archive(pickled(record), [("data/0", data)]))


def test_damaged_archives_are_errors():
    good = torch_bytes({"w": torch.ones(4)})
    with pytest.raises(RuntimeError, match="corrupt torch file"):
        ember.load(io.BytesIO(good[: len(good) // 2]))
    with pytest.raises(RuntimeError, match="does not unpickle"):
        ember.load(archive(b"\x80\x02garbage"))
    with pytest.raises(RuntimeError, match="has no record"):
        ember.load(archive(pickled(tensor_record((4,), (1,)))))
    with pytest.raises(RuntimeError, match="is compressed"):
        ember.load(archive(pickled(tensor_record((4,), (1,))), [("data/0", b"\x00" * 16)], zipfile.ZIP_DEFLATED))
    with pytest.raises(RuntimeError, match="unknown byte order"):
        ember.load(archive(pickled([1]), [("byteorder", b"middle")]))
    with pytest.raises(RuntimeError, match="unknown persistent id"):
        ember.load(archive(pickled(_Storage(("nonsense",)))))
    with pytest.raises(RuntimeError, match="exactly one <name>/data.pkl"):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("x.txt", b"")
        ember.load(io.BytesIO(buf.getvalue()))


def test_big_endian_files_are_read():
    values = np.arange(4, dtype=">f4")
    loaded = ember.load(archive(pickled(tensor_record((4,), (1,))), [("data/0", values.tobytes()),
                                                                    ("byteorder", b"big")]))
    np.testing.assert_array_equal(N(loaded), np.arange(4, dtype=np.float32))
