"""Sparse COO tensors against torch: construction, conversion, coalesce,
arithmetic, mm with gradients, sparse embedding gradients, and errors."""

import io

import numpy as np
import pytest
import torch

import ember

IDX = [[0, 1, 1, 2], [2, 0, 0, 3]]
VAL = [3., 4., 5., -1.]


def pair(size=(3, 4)):
    return (ember.sparse_coo_tensor(IDX, VAL, size), torch.sparse_coo_tensor(torch.tensor(IDX), torch.tensor(VAL), size))


def same(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_to_dense_sums_repeated_indices():
    e, t = pair()
    same(e.to_dense(), t.to_dense())
    assert e.layout == ember.sparse_coo and e.is_sparse and not e.is_coalesced()
    assert (e.sparse_dim(), e.dense_dim(), e._nnz()) == (2, 0, 4)


def test_coalesce_matches_torch():
    e, t = pair()
    ec, tc = e.coalesce(), t.coalesce()
    same(ec.indices(), tc.indices())
    same(ec.values(), tc.values())
    assert ec.is_coalesced() and ec.coalesce() is ec


def test_size_is_inferred():
    e = ember.sparse_coo_tensor(IDX, VAL)
    assert tuple(e.shape) == (3, 4)


def test_hybrid_values_and_to_sparse():
    x = np.array([[0., 0.], [1., 2.], [0., 3.]], dtype=np.float32)
    e, t = ember.tensor(x).to_sparse(1), torch.tensor(x).to_sparse(1)
    same(e._indices(), t._indices())
    same(e._values(), t._values())
    same(e.to_dense(), t.to_dense())
    same(ember.tensor(x).to_sparse()._values(), torch.tensor(x).to_sparse()._values())


HYBRID = np.arange(24.0).reshape(2, 3, 4) * (np.arange(2)[:, None, None] != 1)


@pytest.mark.parametrize("dims", [(1,), (0,), (-1,), (0, 2), (1, 2), (2,), (0, 1)])
def test_sum_over_some_dims_matches_torch(dims):
    e = ember.tensor(HYBRID).to_sparse(2)
    t = torch.tensor(HYBRID).to_sparse(2)
    mine, theirs = ember.sparse.sum(e, dim=dims), torch.sparse.sum(t, dim=dims)
    assert mine.is_sparse == theirs.is_sparse and tuple(mine.shape) == tuple(theirs.shape)
    same(mine.to_dense() if mine.is_sparse else mine, theirs.to_dense() if theirs.is_sparse else theirs)
    if mine.is_sparse:
        assert mine.is_coalesced() and mine._nnz() == theirs._nnz()


def test_sum_keeps_integer_promotion():
    e = ember.tensor([[0, 3], [4, 0]], dtype=ember.int32).to_sparse()
    assert e.sum(1).dtype == ember.int64 and e.sum().dtype == ember.int64


def test_add_and_scale():
    e, t = pair()
    d = np.random.RandomState(0).randn(3, 4).astype(np.float32)
    same((e + e).to_dense(), (t + t).to_dense())
    same(ember.tensor(d) + e, torch.tensor(d) + t)
    same((e * 2.5).to_dense(), (t * 2.5).to_dense())
    dense = ember.tensor(d)
    dense.add_(e, alpha=-0.5)
    same(dense, torch.tensor(d).add_(t, alpha=-0.5))
    same(e.sum(), t.sum())


@pytest.mark.parametrize("order", ["sparse_first", "dense_first"])
def test_mm_values_and_gradients(order):
    e, t = pair()
    w = np.random.RandomState(1).randn(4, 5).astype(np.float32) if order == "sparse_first" else \
        np.random.RandomState(1).randn(2, 3).astype(np.float32)
    ew, tw = ember.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    if order == "sparse_first":
        eo, to = ember.sparse.mm(e, ew), torch.sparse.mm(t, tw)
    else:
        eo, to = ember.mm(ew, e), torch.mm(tw, t)
    same(eo, to)
    (eo * eo).sum().backward()
    (to * to).sum().backward()
    same(ew.grad, tw.grad)


def test_values_receive_gradients_through_to_dense():
    v = np.array(VAL, dtype=np.float32)
    ev, tv = ember.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
    es = ember.sparse_coo_tensor(IDX, ev, (3, 4))
    ts = torch.sparse_coo_tensor(torch.tensor(IDX), tv, (3, 4))
    weights = np.arange(12, dtype=np.float32).reshape(3, 4)
    (es.to_dense() * ember.tensor(weights)).sum().backward()
    (ts.to_dense() * torch.tensor(weights)).sum().backward()
    same(ev.grad, tv.grad)


def test_sparse_embedding_gradient():
    ember.manual_seed(0)
    e = ember.nn.Embedding(6, 3, sparse=True, padding_idx=0)
    t = torch.nn.Embedding(6, 3, sparse=True, padding_idx=0)
    with torch.no_grad():
        t.weight.copy_(torch.tensor(e.weight.detach().numpy()))
    idx = [[1, 0, 2], [1, 5, 0]]
    for module, lib in ((e, ember), (t, torch)):
        (module(lib.tensor(idx)) ** 2).sum().backward()
        (module(lib.tensor([4])) * 3).sum().backward()  # a second backward accumulates
    assert e.weight.grad.is_sparse
    same(e.weight.grad.to_dense(), t.weight.grad.to_dense())
    same(e.weight.grad.coalesce().indices(), t.weight.grad.coalesce().indices())


@pytest.mark.parametrize("bad, message", [
    (lambda: ember.sparse_coo_tensor([[0, 5]], [1., 2.], (3,)), "size is inconsistent with indices"),
    (lambda: ember.sparse_coo_tensor([[0, -1]], [1., 2.], (3,)), "negative index"),
    (lambda: ember.sparse_coo_tensor([[0, 1]], [1., 2., 3.], (3,)), "same nnz"),
    (lambda: ember.sparse_coo_tensor(ember.tensor([[0., 1.]]), [1., 2.], (3,)), "int64"),
    (lambda: ember.sparse_coo_tensor([[0, 1]], [[1.], [2.]], (3, 2)), "values has incorrect size"),
    (lambda: pair()[0].stride(), "do not have strides"),
    (lambda: pair()[0].numpy(), "do not have strides"),
    (lambda: pair()[0].exp(), "SparseCPU"),
    (lambda: pair()[0].sum(0, keepdim=True), "keepdim=True is not supported"),
    (lambda: pair()[0].sum((0, 0)), "appears multiple times"),
    (lambda: pair()[0] * ember.ones(3, 4), "only by a number"),
    (lambda: ember.mm(pair()[0], ember.ones(3, 2)), "cannot be multiplied"),
    (lambda: pair()[0].indices(), "uncoalesced"),
    (lambda: pair()[0].add_(ember.ones(3, 4)), "in place is not supported"),
])
def test_bad_input_raises(bad, message):
    with pytest.raises((RuntimeError, IndexError, TypeError, ValueError, NotImplementedError), match=message):
        bad()


def test_save_writes_torch_format_both_ways(tmp_path):
    hybrid = ember.tensor(np.arange(12.0).reshape(3, 2, 2)).to_sparse(1)
    path = tmp_path / "sparse.pt"
    ember.save({"adjacency": pair()[0], "hybrid": hybrid}, path)  # Ember's own format holds strided tensors only
    theirs = torch.load(path)
    same(theirs["adjacency"].to_dense(), pair()[1].to_dense())
    assert theirs["hybrid"].sparse_dim() == 1
    mine = ember.load(path)
    same(mine["hybrid"].to_dense(), hybrid.to_dense())
    assert mine["adjacency"].is_sparse and not mine["adjacency"].is_coalesced()


def test_load_reads_torch_sparse_files(tmp_path):
    path = tmp_path / "torch.pt"
    torch.save({"coalesced": pair()[1].coalesce(), "vector": torch.sparse_coo_tensor([[0, 0]], [1.0, 2.0], (3,))}, path)
    loaded = ember.load(path)
    assert loaded["coalesced"].is_coalesced()
    same(loaded["coalesced"].to_dense(), pair()[1].to_dense())
    assert loaded["vector"].to_dense().tolist() == [3.0, 0.0, 0.0]


def test_load_refuses_a_sparse_index_out_of_range(tmp_path):
    path = tmp_path / "bad.pt"
    torch.save(torch.sparse_coo_tensor([[5]], [1.0], (3,), check_invariants=False), path)
    with pytest.raises(RuntimeError, match="corrupt torch file.*size is 3 but found index 5"):
        ember.load(path)


def test_cpp_format_refuses_sparse_with_a_clear_error():
    with pytest.raises(TypeError, match="holds strided tensors, not sparse ones"):
        ember.save(pair()[0], io.BytesIO(), format="ember")
