"""ember.save / ember.load: what survives a round trip, and the errors of
bad input."""

import collections
import io
import pickle

import numpy as np
import pytest

import ember


def round_trip(obj, **kw):
    buf = io.BytesIO()
    ember.save(obj, buf)
    buf.seek(0)
    return ember.load(buf, **kw)


def test_plain_values_and_containers():
    obj = {"i": -3, "f": 2.5, "s": "text", "b": b"\x00\x01", "none": None, "flag": True, "dtype": ember.bfloat16,
           "device": ember.device("cpu"), "t": (1, [2, (3,)]), 7: "int key"}
    assert round_trip(obj) == obj
    od = collections.OrderedDict([("z", 1), ("a", 2)])
    back = round_trip(od)
    assert type(back) is collections.OrderedDict and list(back) == ["z", "a"]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64", "complex64", "complex128"])
def test_tensors_of_every_dtype(dtype):
    t = (ember.arange(6) % 3).to(getattr(ember, dtype)).view(2, 3)
    back = round_trip(t)
    assert back.dtype == t.dtype and back.shape == t.shape and ember.equal(back, t)


def test_shared_storage_and_views_stay_shared():
    base = ember.arange(20.0).view(4, 5)
    view = base.t()[1:3]
    a, b = round_trip([base, view])
    assert b.stride() == view.stride() and b.storage_offset() == view.storage_offset()
    b.fill_(-1)
    np.testing.assert_array_equal(a.numpy()[:, 1:3], -np.ones((4, 2)))  # written through the view
    assert (a == -1).sum().item() == 2 * 4


def test_requires_grad_conj_and_meta():
    w = ember.randn(3, requires_grad=True)
    back = round_trip(w)
    assert back.requires_grad and back.is_leaf and ember.equal(back.detach(), w.detach())
    z = ember.tensor([1 + 2j, 3 - 1j]).conj()
    assert ember.equal(round_trip(z), z.resolve_conj())
    m = ember.empty(2, 3, device="meta")
    back = round_trip(m)
    assert back.is_meta and back.shape == (2, 3)


def test_files_and_paths(tmp_path):
    path = tmp_path / "x.ember"
    ember.save({"w": ember.ones(2)}, path)
    assert ember.equal(ember.load(path)["w"], ember.ones(2))
    assert ember.equal(ember.load(str(path), map_location="cpu")["w"], ember.ones(2))


def test_refuses_what_it_cannot_store():
    with pytest.raises(TypeError, match="cannot save an object of type 'object'"):
        ember.save({"x": object()}, io.BytesIO(), format="ember")
    # By default such objects go into torch's format, whose loading allows no unknown class.
    buf = io.BytesIO()
    ember.save({"x": object()}, buf)
    with pytest.raises(pickle.UnpicklingError, match="builtins.object, which is not an allowed global"):
        ember.load(io.BytesIO(buf.getvalue()))
    with pytest.raises(ValueError, match="does not fit in 64 bits"):
        ember.save(2**70, io.BytesIO())
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="nests more than"):
        ember.save(loop, io.BytesIO())


def test_bad_files_give_clear_errors(tmp_path):
    buf = io.BytesIO()
    ember.save({"w": ember.arange(100.0)}, buf)
    data = buf.getvalue()
    with pytest.raises(RuntimeError, match="corrupt torch file: not a readable zip archive"):
        ember.load(io.BytesIO(b"PK\x03\x04 a zip file, say"))
    with pytest.raises(RuntimeError, match="is truncated"):
        ember.load(io.BytesIO(data[:-10]))
    with pytest.raises(RuntimeError, match="is truncated"):
        ember.load(io.BytesIO(data[:15]))
    corrupt = bytearray(data)
    corrupt[20:40] = b"\xff" * 20
    with pytest.raises(RuntimeError, match="corrupt|truncated"):
        ember.load(io.BytesIO(bytes(corrupt)))
    path = tmp_path / "bad.ember"
    path.write_bytes(b"nope")
    with pytest.raises(RuntimeError, match="bad.ember is not an Ember file"):
        ember.load(path)
