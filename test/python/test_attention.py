"""scaled_dot_product_attention's fused CPU kernel
(_scaled_dot_product_flash_attention_for_cpu): values and gradients against
torch across its blocks (64 queries x 256 keys), the masks it takes, the
cases that go to the composite instead, and its errors."""

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from ember.nn.attention import SDPBackend, sdpa_kernel

FUSED_NODE = "ScaledDotProductFlashAttentionForCpuBackward0"


def _arrays(*shapes, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def _reaches(out, name):
    """Whether out's autograd graph holds a node called `name`."""
    stack, kept = [out.grad_fn], []  # kept: the visited nodes stay alive, so ids are not reused
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        kept.append(node)
        if node.name() == name:
            return True
        stack.extend(f for f, _ in node.next_functions)
    return False


def _both(arrays, requires_grad=True):
    return ([ember.tensor(a, requires_grad=requires_grad) for a in arrays],
            [torch.tensor(a, requires_grad=requires_grad) for a in arrays])


def _compare(shapes, dtype=np.float32, mask=None, fused=True, **kw):
    """Output and q/k/v gradients of F.scaled_dot_product_attention vs torch's."""
    tol = dict(rtol=1e-4, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    (eq, ek, ev), (tq, tk, tv) = _both(_arrays(*shapes, dtype=dtype))
    em = tm = None
    if mask is not None:
        em, tm = ember.tensor(mask), torch.tensor(mask)
    out = F.scaled_dot_product_attention(eq, ek, ev, attn_mask=em, **kw)
    expected = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, **kw)
    assert _reaches(out, FUSED_NODE) == fused
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), **tol)
    g = _arrays(tuple(expected.shape), seed=9, dtype=dtype)[0]
    out.backward(ember.tensor(g))
    expected.backward(torch.tensor(g))
    for mine, theirs in ((eq, tq), (ek, tk), (ev, tv)):
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), **tol)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("L,S", [(70, 300), (130, 129), (1, 513), (257, 5)])
def test_values_and_gradients_across_blocks(dtype, L, S):
    _compare([(2, 3, L, 16), (2, 3, S, 16), (2, 3, S, 16)], dtype)


@pytest.mark.parametrize("L,S", [(130, 130), (70, 300), (300, 70)])
def test_causal_across_blocks(L, S):
    # Query i sees keys j <= i (torch's top-left alignment): with S < L the
    # later rows see every key; whole key blocks right of the diagonal are skipped.
    _compare([(1, 2, L, 8), (1, 2, S, 8), (1, 2, S, 8)], np.float64, is_causal=True)


def test_masks_broadcast_by_strides():
    rng = np.random.default_rng(3)
    shapes = [(2, 3, 65, 8), (2, 3, 260, 8), (2, 3, 260, 8)]
    padding = np.ones((2, 1, 1, 260), dtype=bool)
    padding[0, ..., 200:] = False  # the padded keys of the first sequence
    _compare(shapes, mask=padding)
    _compare(shapes, mask=rng.standard_normal((65, 260)).astype(np.float32))
    _compare(shapes, mask=rng.standard_normal((3, 65, 1)).astype(np.float32))
    # Rows with every key masked give zeros, as torch's safe softmax; here
    # in the second key block too.
    hidden = rng.random((2, 3, 65, 260)) > 0.3
    hidden[:, :, 64] = False
    out = _compare(shapes, mask=hidden)
    assert not out[:, :, 64].any().item()


def test_unbatched_scale_and_value_width():
    _compare([(5, 12, 8), (5, 9, 8), (5, 9, 8)], scale=0.37)
    # Values wider than keys: torch's op refuses them, its composite does not.
    (eq, ek, ev), (tq, tk, tv) = _both(_arrays((2, 2, 7, 4), (2, 2, 9, 4), (2, 2, 9, 6)))
    out = F.scaled_dot_product_attention(eq, ek, ev)
    assert out.grad_fn.name() == FUSED_NODE
    expected = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_grouped_query_attention():
    _compare([(1, 6, 10, 8), (1, 2, 12, 8), (1, 2, 12, 8)], enable_gqa=True)


def test_output_heads_merge_without_a_copy():
    q, k, v = (ember.tensor(a) for a in _arrays((2, 4, 5, 8), (2, 4, 6, 8), (2, 4, 6, 8)))
    out = F.scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 4, 5, 8) and out.stride() == (160, 8, 32, 1)
    merged = out.transpose(1, 2).reshape(2, 5, 32)
    assert merged.data_ptr() == out.data_ptr()


def test_other_cases_take_the_composite():
    shapes = [(1, 2, 4, 8), (1, 2, 6, 8), (1, 2, 6, 8)]
    with sdpa_kernel(SDPBackend.MATH):
        _compare(shapes, fused=False)
    # A mask that wants its own gradient.
    (eq, ek, ev), (tq, tk, tv) = _both(_arrays(*shapes))
    em, tm = _both(_arrays((4, 6), seed=5))[0][0], _both(_arrays((4, 6), seed=5))[1][0]
    out = F.scaled_dot_product_attention(eq, ek, ev, attn_mask=em)
    assert out.grad_fn.name() != FUSED_NODE
    out.sum().backward()
    torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm).sum().backward()
    np.testing.assert_allclose(em.grad.numpy(), tm.grad.numpy(), rtol=1e-4, atol=1e-6)
    # bfloat16, batch shapes that broadcast: the composite, same values as torch.
    q = ember.randn(1, 2, 4, 8, dtype=ember.bfloat16)
    assert F.scaled_dot_product_attention(q, q, q).dtype == ember.bfloat16
    _compare([(2, 2, 4, 8), (1, 2, 6, 8), (1, 2, 6, 8)], fused=False)
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):  # the fused kernel alone still serves what it can
        _compare(shapes)
        # and the composite what torch's CPU flash kernel takes beyond it
        q = ember.randn(1, 2, 4, 8, dtype=ember.bfloat16)
        assert F.scaled_dot_product_attention(q, q, q).shape == (1, 2, 4, 8)
        assert F.scaled_dot_product_attention(ember.randn(*shapes[0]), ember.randn(*shapes[1]),
                                              ember.randn(*shapes[2]), dropout_p=0.5).shape == (1, 2, 4, 8)
    with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
        with pytest.raises(RuntimeError, match="No viable backend for scaled_dot_product_attention"):
            F.scaled_dot_product_attention(ember.randn(*shapes[0]), ember.randn(*shapes[1]), ember.randn(*shapes[2]))


def test_double_backward_through_the_fused_kernel():
    q, k, v = (ember.tensor(a, requires_grad=True) for a in _arrays((1, 1, 3, 2), (1, 1, 4, 2), (1, 1, 4, 2),
                                                                    dtype=np.float64))
    mask = ember.tensor(np.array([[True, True, False, True]] * 3))

    def f(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)

    assert f(q, k, v).grad_fn.name() == FUSED_NODE
    assert ember.autograd.gradcheck(f, (q, k, v))
    assert ember.autograd.gradgradcheck(f, (q, k, v))


def test_empty_lengths():
    for L, S in ((0, 4), (3, 0)):
        out = _compare([(1, 2, L, 4), (1, 2, S, 4), (1, 2, S, 4)])
        assert out.shape == (1, 2, L, 4)


def test_meta_shapes():
    q = ember.empty(2, 3, 5, 8, device="meta")
    out, lse = ember._scaled_dot_product_flash_attention_for_cpu(q, ember.empty(2, 3, 7, 8, device="meta"),
                                                                 ember.empty(2, 3, 7, 4, device="meta"))
    assert out.shape == (2, 3, 5, 4) and lse.shape == (2, 3, 5) and out.device.type == "meta"


def test_errors_name_the_op():
    op = ember._scaled_dot_product_flash_attention_for_cpu
    x = ember.randn(1, 2, 3, 4)
    cases = [
        ((ember.randn(2, 3, 4), x, x), {}, "expected query, key and value to be 4-D"),
        ((x, x.double(), x), {}, "same dtype"),
        ((x, ember.randn(1, 2, 3, 5), x), {}, "last dim"),
        ((x, x, ember.randn(1, 2, 4, 4)), {}, "one length"),
        ((x, ember.randn(1, 3, 3, 4), x), {}, "batch and head sizes"),
        ((x, x, x, 0.5), {}, "dropout is not supported"),
        ((x, x, x), {"attn_mask": ember.zeros(3, 2)}, "cannot be broadcast"),
        ((x, x, x), {"attn_mask": ember.zeros(3, 3, dtype=ember.int64)}, "dtype bool or Float"),
    ]
    for args, kw, message in cases:
        with pytest.raises((RuntimeError, NotImplementedError), match=message) as info:
            op(*args, **kw)
        assert "_scaled_dot_product_flash_attention_for_cpu" in str(info.value)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        op(x.long(), x.long(), x.long())


def test_transformer_layer_uses_it():
    # nn.MultiheadAttention reaches the kernel when no weights are asked for,
    # as TransformerEncoderLayer asks.
    ember.manual_seed(0)
    layer = ember.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
    x = ember.randn(2, 7, 16, requires_grad=True)
    attn_out, weights = layer.self_attn(x, x, x, need_weights=False)
    assert weights is None
    assert _reaches(attn_out, FUSED_NODE)
    layer(x).sum().backward()
    assert x.grad is not None and bool(ember.isfinite(x.grad).all())
