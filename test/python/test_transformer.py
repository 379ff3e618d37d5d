"""nn.Transformer and its encoder/decoder stacks and layers against torch:
same seed, same parameters; same outputs and gradients with masks."""

import numpy as np
import pytest

import ember
import ember.nn as enn
from torch_oracle import E, N, torch


def close(a, b, tol=3e-5):
    np.testing.assert_allclose(N(a), N(b), rtol=tol, atol=tol)


def _pair(name, *args, **kwargs):
    torch.manual_seed(3)
    ember.manual_seed(3)
    return getattr(torch.nn, name)(*args, **kwargs), getattr(enn, name)(*args, **kwargs)


def _same_parameters(em, tm):
    assert [(n, tuple(p.shape)) for n, p in em.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    for p, q in zip(em.parameters(), tm.parameters()):
        close(p, q, 0)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
@pytest.mark.parametrize("kwargs", [dict(), dict(norm_first=True, activation="gelu", batch_first=True),
                                    dict(bias=False, batch_first=True)])
def test_transformer_matches_torch(kwargs):
    tm, em = _pair("Transformer", d_model=16, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                   dim_feedforward=32, dropout=0.0, **kwargs)
    _same_parameters(em, tm)
    assert repr(em) == repr(tm)
    batch_first = kwargs.get("batch_first", False)
    rng = np.random.default_rng(0)
    src = rng.standard_normal((2, 7, 16) if batch_first else (7, 2, 16)).astype(np.float32)
    tgt = rng.standard_normal((2, 5, 16) if batch_first else (5, 2, 16)).astype(np.float32)
    padding = np.zeros((2, 7), bool)
    padding[1, 5:] = True
    results = []
    for lib, m in ((torch, tm), (ember, em)):
        s, t = lib.tensor(src, requires_grad=True), lib.tensor(tgt, requires_grad=True)
        out = m(s, t, tgt_mask=m.generate_square_subsequent_mask(5), src_key_padding_mask=lib.tensor(padding),
                memory_key_padding_mask=lib.tensor(padding))
        out.pow(2).sum().backward()
        results.append([out, s.grad, t.grad] + [p.grad for p in m.parameters()])
    for a, b in zip(results[1], results[0]):
        close(a, b)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
def test_encoder_with_causal_mask_and_padding():
    torch.manual_seed(0)
    ember.manual_seed(0)
    t_layer = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
    e_layer = enn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
    tm = torch.nn.TransformerEncoder(t_layer, 3, norm=torch.nn.LayerNorm(8))
    em = enn.TransformerEncoder(e_layer, 3, norm=enn.LayerNorm(8))
    _same_parameters(em, tm)
    x = torch.randn(3, 6, 8)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(6)
    padding = torch.zeros(3, 6, dtype=torch.bool)
    padding[0, 4:] = True
    expected = tm(x, mask=mask, src_key_padding_mask=padding)
    actual = em(E(x), mask=E(mask), src_key_padding_mask=E(padding))
    close(actual, expected)
    close(em(E(x), mask=E(mask), is_causal=True), tm(x, mask=mask, is_causal=True))


def test_decoder_layer_alone_matches_torch():
    tm, em = _pair("TransformerDecoderLayer", 8, 2, dim_feedforward=12, dropout=0.0, norm_first=True)
    _same_parameters(em, tm)
    tgt, memory = torch.randn(4, 2, 8), torch.randn(6, 2, 8)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    close(em(E(tgt), E(memory), tgt_mask=E(mask), tgt_is_causal=True), tm(tgt, memory, tgt_mask=mask,
                                                                           tgt_is_causal=True))


def test_unbatched_encoder_layer():
    tm, em = _pair("TransformerEncoderLayer", 8, 2, dim_feedforward=12, dropout=0.0)
    x = torch.randn(5, 8)
    close(em(E(x)), tm(x))


def test_square_subsequent_mask():
    m = enn.Transformer.generate_square_subsequent_mask(4)
    close(m, torch.nn.Transformer.generate_square_subsequent_mask(4), 0)
    assert m.dtype == ember.float32


def test_state_dict_from_torch():
    tm = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=12, dropout=0.0)
    em = enn.TransformerEncoderLayer(8, 2, dim_feedforward=12, dropout=0.0)
    em.load_state_dict({k: E(v) for k, v in tm.state_dict().items()})
    x = torch.randn(3, 2, 8)
    close(em(E(x)), tm(x))


def test_dropout_only_in_training():
    m = enn.TransformerEncoderLayer(8, 2, dim_feedforward=12, dropout=0.5)
    x = ember.randn(4, 2, 8)
    m.eval()
    assert ember.equal(m(x), m(x))
    m.train()
    assert not ember.equal(m(x), m(x))


def test_bad_arguments():
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        enn.TransformerEncoderLayer(8, 2, activation="tanh")
    m = enn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        m(ember.randn(3, 2, 8), ember.randn(3, 4, 8))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        m(ember.randn(3, 2, 8), ember.randn(3, 2, 6))
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        enn.TransformerEncoderLayer(10, 3)
