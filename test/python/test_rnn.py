"""Recurrent layers against torch: the fused cells (and finite differences),
the whole-sequence ops dense and packed, nn.RNN/LSTM/GRU and their cells
with torch's parameters, the packing utilities, and bad input."""

import numpy as np
import pytest

import ember
import ember.nn as enn
from ember.autograd import gradcheck, gradgradcheck
from ember.nn.utils import rnn as ernn
from torch_oracle import E, N, torch

GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}
MODULES = {"lstm": "LSTM", "gru": "GRU", "rnn_tanh": "RNN", "rnn_relu": "RNN"}


def close(a, b, tol=2e-5):
    np.testing.assert_allclose(N(a), N(b), rtol=tol, atol=tol)


def _params(mode, layers, directions, input_size, hidden, seed, proj=0):
    rng = np.random.default_rng(seed)
    out = []
    gates = GATES[mode] * hidden
    real = proj or hidden
    for layer in range(layers):
        for _ in range(directions):
            width = input_size if layer == 0 else real * directions
            shapes = [(gates, width), (gates, real), (gates,), (gates,)] + ([(proj, hidden)] if proj else [])
            out += [(0.4 * rng.standard_normal(s)).astype(np.float32) for s in shapes]
    return out


def _run_both(mode, x, h0, c0, params, layers, bidirectional, batch_first=False, batch_sizes=None):
    """Runs the op in torch and ember with the same numbers; returns both sides' (outputs and gradients)."""
    results = []
    for lib in (torch, ember):
        P = [lib.tensor(p, requires_grad=True) for p in params]
        X = lib.tensor(x, requires_grad=True)
        H = lib.tensor(h0, requires_grad=True)
        C = lib.tensor(c0, requires_grad=True) if c0 is not None else None
        op = getattr(lib, mode)
        hx = [H, C] if mode == "lstm" else H
        if batch_sizes is None:
            outs = op(X, hx, P, True, layers, 0.0, False, bidirectional, batch_first)
        else:
            outs = op(X, lib.tensor(batch_sizes, dtype=lib.int64), hx, P, True, layers, 0.0, False, bidirectional)
        loss = sum((o * (k + 1.5)).sin().sum() for k, o in enumerate(outs))
        loss.backward()
        results.append(list(outs) + [X.grad, H.grad] + ([C.grad] if C is not None else []) + [p.grad for p in P])
    return results


@pytest.mark.parametrize("mode", sorted(GATES))
@pytest.mark.parametrize("layers,bidirectional,batch_first", [(1, False, False), (2, True, False), (2, False, True)])
def test_dense_recurrence_matches_torch(mode, layers, bidirectional, batch_first):
    L, B, I, H = 5, 3, 4, 6
    D = 2 if bidirectional else 1
    rng = np.random.default_rng(1)
    x = rng.standard_normal((B, L, I) if batch_first else (L, B, I)).astype(np.float32)
    h0 = rng.standard_normal((layers * D, B, H)).astype(np.float32)
    c0 = rng.standard_normal((layers * D, B, H)).astype(np.float32) if mode == "lstm" else None
    t, e = _run_both(mode, x, h0, c0, _params(mode, layers, D, I, H, 2), layers, bidirectional, batch_first)
    for a, b in zip(e, t):
        close(a, b)


@pytest.mark.parametrize("mode", sorted(GATES))
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, True)])
def test_packed_recurrence_matches_torch(mode, layers, bidirectional):
    I, H = 3, 5
    batch_sizes = [4, 4, 3, 1, 1]
    D = 2 if bidirectional else 1
    rng = np.random.default_rng(3)
    x = rng.standard_normal((sum(batch_sizes), I)).astype(np.float32)
    h0 = rng.standard_normal((layers * D, 4, H)).astype(np.float32)
    c0 = rng.standard_normal((layers * D, 4, H)).astype(np.float32) if mode == "lstm" else None
    t, e = _run_both(mode, x, h0, c0, _params(mode, layers, D, I, H, 4), layers, bidirectional,
                     batch_sizes=batch_sizes)
    for a, b in zip(e, t):
        close(a, b)


def test_lstm_projections_match_torch():
    L, B, I, H, P = 4, 2, 3, 6, 2
    rng = np.random.default_rng(5)
    x = rng.standard_normal((L, B, I)).astype(np.float32)
    h0 = rng.standard_normal((4, B, P)).astype(np.float32)
    c0 = rng.standard_normal((4, B, H)).astype(np.float32)
    t, e = _run_both("lstm", x, h0, c0, _params("lstm", 2, 2, I, H, 6, proj=P), 2, True)
    for a, b in zip(e, t):
        close(a, b)


# ---- fused cells against finite differences -------------------------------------------------


def _cell_inputs(gates, bias, seed=0):
    B, H = 3, 4
    g = ember.Generator().manual_seed(seed)
    mk = lambda *s: ember.randn(*s, generator=g, dtype=ember.float64).requires_grad_()  # noqa: E731
    tensors = [mk(B, gates * H), mk(B, gates * H), mk(B, H)]
    return tensors + ([mk(gates * H), mk(gates * H)] if bias else [None, None])


@pytest.mark.parametrize("bias", [True, False])
def test_fused_lstm_cell_gradcheck(bias):
    inputs = [t for t in _cell_inputs(4, bias) if t is not None]

    def f(*args):
        ig, hg, cx = args[:3]
        b = args[3:] if bias else (None, None)
        return ember._fused_lstm_cell(ig, hg, cx, *b)

    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


@pytest.mark.parametrize("bias", [True, False])
def test_fused_gru_cell_gradcheck(bias):
    inputs = [t for t in _cell_inputs(3, bias) if t is not None]

    def f(*args):
        ig, hg, hx = args[:3]
        b = args[3:] if bias else (None, None)
        return ember._fused_gru_cell(ig, hg, hx, *b)

    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


@pytest.mark.parametrize("dtype", [ember.float64, ember.bfloat16, ember.float16])
def test_fused_cells_follow_the_dtype(dtype):
    ig, hg, cx = (ember.randn(2, 8).to(dtype), ember.randn(2, 8).to(dtype), ember.randn(2, 2).to(dtype))
    hy, cy = ember._fused_lstm_cell(ig, hg, cx)
    assert hy.dtype == cy.dtype == dtype
    ref_h, ref_c = ember._fused_lstm_cell(ig.double(), hg.double(), cx.double())
    tol = 1e-12 if dtype == ember.float64 else 2e-2
    close(hy.double(), ref_h, tol)
    close(cy.double(), ref_c, tol)


def test_meta_cells_give_shapes():
    ig = ember.empty(2, 12, device="meta")
    hy = ember._fused_gru_cell(ig, ig, ember.empty(2, 4, device="meta"))
    assert hy.shape == (2, 4) and hy.device.type == "meta"


# ---- modules ----------------------------------------------------------------------------------


def _same_modules(name, *args, **kwargs):
    torch.manual_seed(7)
    ember.manual_seed(7)
    return getattr(torch.nn, name)(*args, **kwargs), getattr(enn, name)(*args, **kwargs)


@pytest.mark.parametrize("name,kwargs", [
    ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("LSTM", dict(proj_size=3, batch_first=True)),
    ("GRU", dict(num_layers=2, bias=False)),
    ("RNN", dict(nonlinearity="relu", bidirectional=True)),
    ("RNN", dict(num_layers=3, batch_first=True)),
])
def test_modules_match_torch(name, kwargs):
    tm, em = _same_modules(name, 4, 6, **kwargs)
    assert repr(em) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in em.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    for p, q in zip(em.parameters(), tm.parameters()):  # same generator, same initialization
        close(p, q, 0)
    batch_first = kwargs.get("batch_first", False)
    x = np.random.default_rng(0).standard_normal((3, 5, 4) if batch_first else (5, 3, 4)).astype(np.float32)
    results = []
    for lib, m, utils in ((torch, tm, torch.nn.utils.rnn), (ember, em, ernn)):
        X = lib.tensor(x, requires_grad=True)
        out, hidden = m(X)
        packed = utils.pack_padded_sequence(X, [5, 2, 4], batch_first=batch_first, enforce_sorted=False)
        packed_out, packed_hidden = m(packed)
        padded, lengths = utils.pad_packed_sequence(packed_out, batch_first=batch_first)
        h = packed_hidden[0] if name == "LSTM" else packed_hidden
        (out.sum() + padded.pow(2).sum() + h.sum() + (hidden[1] if name == "LSTM" else hidden).sum()).backward()
        results.append([out, padded, lengths, h, X.grad] + [p.grad for p in m.parameters()])
    for a, b in zip(results[1], results[0]):
        close(a, b)


def test_state_dict_moves_from_torch():
    tm = torch.nn.LSTM(3, 5, num_layers=2)
    em = enn.LSTM(3, 5, num_layers=2)
    em.load_state_dict({k: E(v) for k, v in tm.state_dict().items()})
    x = torch.randn(4, 2, 3)
    h0, c0 = torch.randn(2, 2, 5), torch.randn(2, 2, 5)
    t_out, (t_h, t_c) = tm(x, (h0, c0))
    e_out, (e_h, e_c) = em(E(x), (E(h0), E(c0)))
    for a, b in ((e_out, t_out), (e_h, t_h), (e_c, t_c)):
        close(a, b)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_unbatched_input(name):
    tm, em = _same_modules(name, 3, 4)
    x = torch.randn(6, 3)
    t_out, t_h = tm(x)
    e_out, e_h = em(E(x))
    close(e_out, t_out)
    assert e_out.shape == (6, 4)
    for a, b in zip(e_h if name == "LSTM" else [e_h], t_h if name == "LSTM" else [t_h]):
        assert a.shape == (1, 4)
        close(a, b)


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_torch(name):
    tm, em = _same_modules(name, 3, 5)
    assert repr(em) == repr(tm)
    x = torch.randn(2, 3)
    for args in ((x,), (x[0],)):
        t = tm(*args)
        e = em(*[E(a) for a in args])
        for a, b in zip(e if name == "LSTMCell" else [e], t if name == "LSTMCell" else [t]):
            close(a, b)
    h = torch.randn(2, 5)
    state = (h, torch.randn(2, 5)) if name == "LSTMCell" else h
    t = tm(x, state)
    e = em(E(x), tuple(E(s) for s in state) if name == "LSTMCell" else E(state))
    for a, b in zip(e if name == "LSTMCell" else [e], t if name == "LSTMCell" else [t]):
        close(a, b)


def test_dropout_between_layers_only_in_training():
    m = enn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = ember.randn(5, 2, 3)
    m.eval()
    a, _ = m(x)
    b, _ = m(x)
    assert ember.equal(a, b)
    m.train()
    c, _ = m(x)
    assert not ember.equal(a, c)
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last recurrent layer"):
        enn.LSTM(3, 4, dropout=0.2)


def test_training_reduces_loss():
    ember.manual_seed(0)
    model = enn.LSTM(2, 8, batch_first=True)
    head = enn.Linear(8, 1)
    opt = ember.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=0.05)
    x = ember.randn(16, 6, 2)
    y = x.sum(dim=(1, 2)).unsqueeze(1)
    losses = []
    for _ in range(40):
        out, _ = model(x)
        loss = ((head(out[:, -1]) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.2 * losses[0]


# ---- packing utilities --------------------------------------------------------------------------


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted,lengths", [(True, [4, 3, 1]), (False, [2, 4, 1])])
def test_pack_and_pad_match_torch(batch_first, enforce_sorted, lengths):
    x = torch.randn(3, 4, 2) if batch_first else torch.randn(4, 3, 2)
    t = torch.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    e = ernn.pack_padded_sequence(E(x), lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    close(e.data, t.data, 0)
    assert N(e.batch_sizes).tolist() == N(t.batch_sizes).tolist()
    for a, b in ((e.sorted_indices, t.sorted_indices), (e.unsorted_indices, t.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            assert N(a).tolist() == N(b).tolist()
    tp, tl = torch.nn.utils.rnn.pad_packed_sequence(t, batch_first=batch_first, padding_value=-1.0, total_length=5)
    ep, el = ernn.pad_packed_sequence(e, batch_first=batch_first, padding_value=-1.0, total_length=5)
    close(ep, tp, 0)
    assert N(el).tolist() == N(tl).tolist() and el.dtype == ember.int64


def test_pack_gradient_flows_back_to_the_padded_input():
    x = ember.randn(4, 2, 3, requires_grad=True)
    packed = ernn.pack_padded_sequence(x, [4, 2])
    padded, _ = ernn.pad_packed_sequence(packed)
    padded.sum().backward()
    expected = ember.ones(4, 2, 3)
    expected[2:, 1] = 0
    assert ember.equal(x.grad, expected)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_matches_torch(batch_first, padding_side):
    seqs = [torch.randn(n, 2) for n in (3, 1, 4)]
    t = torch.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first, padding_value=9.0, padding_side=padding_side)
    e = ernn.pad_sequence([E(s) for s in seqs], batch_first=batch_first, padding_value=9.0,
                          padding_side=padding_side)
    close(e, t, 0)


def test_pack_sequence_round_trip():
    seqs = [ember.randn(n, 2) for n in (2, 5, 3)]
    packed = ernn.pack_sequence(seqs, enforce_sorted=False)
    assert N(packed.batch_sizes).tolist() == [3, 3, 2, 1, 1]
    back = ernn.unpack_sequence(packed)
    assert all(ember.equal(a, b) for a, b in zip(back, seqs))
    padded = ernn.pad_sequence(seqs, batch_first=True)
    assert all(ember.equal(a, b) for a, b in zip(ernn.unpad_sequence(padded, [2, 5, 3], batch_first=True), seqs))


def test_packed_sequence_conversions():
    packed = ernn.pack_sequence([ember.randn(3, 2), ember.randn(2, 2)])
    assert packed.double().data.dtype == ember.float64
    assert packed.to(ember.float16).data.dtype == ember.float16
    assert packed.batch_sizes.dtype == ember.int64
    assert not packed.is_cuda


# ---- bad input: an exception naming the problem, never a crash ------------------------------------


def test_packing_rejects_bad_lengths():
    x = ember.randn(4, 3, 2)
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        ernn.pack_padded_sequence(x, [1, 4, 2])
    with pytest.raises(RuntimeError, match="greater than 0"):
        ernn.pack_padded_sequence(x, [4, 0, 0])
    with pytest.raises(ValueError, match="batch_size"):
        ernn.pack_padded_sequence(x, [4, 3])
    with pytest.raises(RuntimeError, match="exceeds"):
        ernn.pack_padded_sequence(x, [9, 3, 1])


def test_modules_reject_bad_shapes_with_torchs_words():
    m = enn.LSTM(3, 4, num_layers=2)
    with pytest.raises(RuntimeError, match=r"input.size\(-1\) must be equal to input_size. Expected 3, got 5"):
        m(ember.randn(2, 1, 5))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(2, 1, 4\), got \[1, 1, 4\]"):
        m(ember.randn(2, 1, 3), (ember.zeros(1, 1, 4), ember.zeros(2, 1, 4)))
    with pytest.raises(ValueError, match="Expected input to be 2D or 3D, got 4D"):
        enn.GRU(3, 4)(ember.randn(1, 2, 1, 3))
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        enn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="Unknown nonlinearity 'gelu'"):
        enn.RNN(3, 4, nonlinearity="gelu")


def test_ops_reject_bad_arguments():
    params = [ember.randn(8, 3), ember.randn(8, 2), ember.randn(8), ember.randn(8)]
    hx = [ember.zeros(1, 2, 2), ember.zeros(1, 2, 2)]
    with pytest.raises(RuntimeError, match="lstm: expected 4 parameter tensors"):
        ember.lstm(ember.randn(3, 2, 3), hx, params[:3], True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="lstm: batch_sizes must be positive and non-increasing"):
        ember.lstm(ember.randn(5, 3), ember.tensor([2, 3]), hx, params, True, 1, 0.0, False, False)
    with pytest.raises(RuntimeError, match="lstm: batch_sizes add up to 4 but the packed data has 5 rows"):
        ember.lstm(ember.randn(5, 3), ember.tensor([2, 2]), hx, params, True, 1, 0.0, False, False)
    with pytest.raises(RuntimeError, match="lstm: Expected hidden\\[0\\] size"):
        ember.lstm(ember.randn(4, 3), ember.tensor([3, 1]), hx, params, True, 1, 0.0, False, False)
    with pytest.raises(RuntimeError, match="_fused_lstm_cell: expected input_gates of size"):
        ember._fused_lstm_cell(ember.randn(2, 7), ember.randn(2, 8), ember.randn(2, 2))
    with pytest.raises(RuntimeError, match="gru_cell: input has inconsistent input_size"):
        ember.gru_cell(ember.randn(2, 5), ember.randn(2, 2), ember.randn(6, 3), ember.randn(6, 2))
    with pytest.raises(RuntimeError, match="lstm: expected the parameters to have the input's dtype"):
        ember.lstm(ember.randn(3, 2, 3).double(), hx, params, True, 1, 0.0, False, False, False)
    with pytest.raises(ValueError, match="input must have the type ember.float32, got type ember.float64"):
        enn.LSTM(3, 4)(ember.randn(5, 2, 3).double())
    with pytest.raises(NotImplementedError, match="_fused_gru_cell"):
        ember._fused_gru_cell(ember.ones(1, 3, dtype=ember.int64), ember.ones(1, 3, dtype=ember.int64),
                              ember.ones(1, 1, dtype=ember.int64))


# ---- the whole-sequence recurrence op (BPTT kernel) ----------------------------------------------


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("projections", [False, True])
def test_recurrence_gradcheck_and_double_backward(mode, reverse, projections):
    if projections and mode != 0:
        pytest.skip("projections are LSTM only")
    L, B, H, P = 3, 2, 3, 2
    G = [4, 3, 1, 1][mode]
    out = P if projections else H
    g = ember.Generator().manual_seed(mode)

    def mk(*s):
        return (0.5 * ember.randn(*s, generator=g, dtype=ember.float64)).requires_grad_()

    args = [mk(L, B, G * H), mk(B, out), mk(B, H) if mode == 0 else None, mk(G * H, out),
            mk(G * H) if mode < 2 else None, mk(G * H), mk(P, H) if projections else None]
    present = [i for i, a in enumerate(args) if a is not None]

    def f(*tensors):
        full = list(args)
        for i, t in zip(present, tensors):
            full[i] = t
        o, h, c, _ = ember._rnn_recurrence(*full, mode, reverse)
        return (o, h, c) if mode == 0 else (o, h)

    inputs = [args[i] for i in present]
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_double_backward_matches_torch(name):
    tm, em = _same_modules(name, 3, 4, num_layers=2)
    x = torch.randn(5, 2, 3, dtype=torch.float32)
    results = []
    for lib, m in ((torch, tm), (ember, em)):
        X = lib.tensor(N(x), requires_grad=True)
        out, _ = m(X)
        (g,) = lib.autograd.grad(out.pow(2).sum(), X, create_graph=True)
        g.pow(2).sum().backward()
        results.append([g, X.grad] + [p.grad for p in m.parameters()])
    for a, b in zip(results[1], results[0]):
        close(a, b, 1e-4)


def test_recurrence_rejects_bad_arguments():
    ig, h = ember.randn(3, 2, 8), ember.randn(2, 2)
    with pytest.raises(RuntimeError, match="_rnn_recurrence: a cell state is required"):
        ember._rnn_recurrence(ig, h, None, ember.randn(8, 2), None, None, None, 0, False)
    with pytest.raises(RuntimeError, match="_rnn_recurrence: unknown mode 7"):
        ember._rnn_recurrence(ig, h, h, ember.randn(8, 2), None, None, None, 7, False)
    with pytest.raises(RuntimeError, match="do not fit together"):
        ember._rnn_recurrence(ig, h, h, ember.randn(8, 3), None, None, None, 0, False)
    with pytest.raises(RuntimeError, match="sequence length to be larger than 0"):
        ember._rnn_recurrence(ember.randn(0, 2, 8), h, h, ember.randn(8, 2), None, None, None, 0, False)
    with pytest.raises(RuntimeError, match="expected all tensors of dtype"):
        ember._rnn_recurrence(ig, h.double(), h, ember.randn(8, 2), None, None, None, 0, False)


# -- oneDNN's LSTM primitive (float32 LSTMs without projections on the CPU) --

def _lstm_grads(m, x, h0, c0):
    X, H, C = (t.clone().requires_grad_() for t in (x, h0, c0))
    out, (h, c) = m(X, (H, C))
    ((out * 1.5).sin().sum() + h.pow(2).sum() + c.sum()).backward()
    return out, [out, h, c, X.grad, H.grad, C.grad] + [p.grad for p in m.parameters()]


@pytest.mark.parametrize("kwargs", [dict(num_layers=2), dict(bidirectional=True, batch_first=True), dict(bias=False)])
def test_onednn_lstm_matches_the_composite_in_double(kwargs):
    ember.manual_seed(0)
    m32 = enn.LSTM(3, 5, **kwargs)
    m64 = enn.LSTM(3, 5, **kwargs).double()
    m64.load_state_dict({k: v.double() for k, v in m32.state_dict().items()})
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    x, h0, c0 = ember.randn(4, 6, 3), ember.randn(layers, 4 if kwargs.get("batch_first") else 6, 5), None
    c0 = ember.randn(*h0.shape)
    out32, got = _lstm_grads(m32, x, h0, c0)
    out64, want = _lstm_grads(m64, x.double(), h0.double(), c0.double())
    names = {n.name() for n in [out32.grad_fn] + [f for f, _ in out32.grad_fn.next_functions] if n is not None}
    assert "OnednnLstmLayerBackward0" in names or kwargs.get("bidirectional")  # bidirectional: a cat first
    assert out64.grad_fn.name() != "OnednnLstmLayerBackward0"
    for a, b in zip(got, want):
        close(a.double(), b, 1e-4)


def test_onednn_lstm_inference_keeps_no_workspace():
    m = enn.LSTM(3, 4)
    x = ember.randn(5, 2, 3)
    with ember.no_grad():
        out, _ = m(x)
    p = list(m.parameters())
    h = ember.zeros(2, 4)
    _, _, _, ws = ember._onednn_lstm_layer(x, h, h, p[0], p[1], p[2], p[3], False, False)
    assert ws.numel() == 0
    close(out, ember._onednn_lstm_layer(x, h, h, p[0], p[1], p[2], p[3], False, True)[0])
    with pytest.raises(RuntimeError, match="_onednn_lstm_layer_backward: the workspace is not the one"):
        ember._onednn_lstm_layer_backward(x, h, h, p[0], p[1], p[2], p[3], False, out, h, h, ws, out, None, None)


def test_onednn_lstm_layer_rejects_bad_operands():
    x, h, w_ih, w_hh = ember.randn(5, 2, 3), ember.zeros(2, 4), ember.randn(16, 3), ember.randn(16, 4)
    op = ember._onednn_lstm_layer
    with pytest.raises(NotImplementedError, match="\"_onednn_lstm_layer\" not implemented for 'Double'"):
        op(x.double(), h.double(), h.double(), w_ih.double(), w_hh.double(), None, None, False, False)
    with pytest.raises(RuntimeError, match="expected w_ih of shape"):
        op(x, h, h, ember.randn(16, 2), w_hh, None, None, False, False)
    with pytest.raises(RuntimeError, match="expected hx and cx of shape"):
        op(x, ember.zeros(3, 4), h, w_ih, w_hh, None, None, False, False)
    with pytest.raises(RuntimeError, match="expected both biases or neither"):
        op(x, h, h, w_ih, w_hh, ember.zeros(16), None, False, False)


def test_onednn_lstm_layer_takes_strided_operands():
    # Non-contiguous weights, states and gradients are made contiguous for
    # the primitives and kept alive while they run.
    x, h, c = ember.randn(5, 2, 3), ember.randn(2, 4), ember.randn(2, 4)
    w_ih, w_hh = ember.randn(3, 16).t(), ember.randn(4, 16).t()
    b = ember.randn(16)
    want = ember._onednn_lstm_layer(x, h, c, w_ih.contiguous(), w_hh.contiguous(), b, b, True, True)
    got = ember._onednn_lstm_layer(x.transpose(0, 1).contiguous().transpose(0, 1), h.t().contiguous().t(), c,
                                   w_ih, w_hh, b, b, True, True)
    for a, e in zip(got[:3], want[:3]):
        close(a, e, 1e-6)
    g = ember.randn(2, 5, 4).transpose(0, 1)
    grads = ember._onednn_lstm_layer_backward(x, h, c, w_ih, w_hh, b, b, True, got[0], got[1], got[2], got[3], g,
                                              None, None)
    expected = ember._onednn_lstm_layer_backward(x, h, c, w_ih.contiguous(), w_hh.contiguous(), b, b, True, want[0],
                                                 want[1], want[2], want[3], g.contiguous(), None, None)
    for a, e in zip(grads, expected):
        close(a, e, 1e-5)
