"""ember.nn against torch.nn: layers (forward values and gradients), the Module
API, initialisation, gradient clipping and a small training loop.

Parameters travel torch -> NumPy -> ember through load_state_dict, so every
parity test also exercises state_dict key compatibility.
"""

import copy
import math
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.nn import init

torch = pytest.importorskip("torch")

pytestmark = [
    pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths"),
    pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask and attn_mask"),
]
tnn = torch.nn
TF = torch.nn.functional


# ---- helpers -------------------------------------------------------------------


def E(t, requires_grad=False):
    """torch tensor -> ember tensor (through NumPy, so ember never sees torch)."""
    out = ember.tensor(t.detach().numpy().copy())
    if requires_grad:
        out.requires_grad_(True)
    return out


def N(t):
    if isinstance(t, ember.Tensor):
        return np.array(t.detach().numpy(), copy=True)
    return t.detach().numpy()


def assert_close(actual, expected, rtol=1e-6, atol=1e-9, msg=""):
    a, e = N(actual), N(expected)
    assert a.shape == e.shape, f"{msg}: shape {a.shape} != {e.shape}"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=msg)


def ember_state_dict(tmod):
    return OrderedDict((k, E(v)) for k, v in tmod.state_dict().items())


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [o for o in out if o is not None]
    return [out]


def check_parity(tmod, emod, *inputs, rtol=1e-6, atol=1e-9, double=True, grad_inputs=True, seed=0):
    """Same weights, same inputs: outputs, input grads, parameter grads and buffers match."""
    if double:
        tmod = tmod.double()
        emod = emod.double()
    result = emod.load_state_dict(ember_state_dict(tmod))
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert [k for k, _ in emod.named_parameters()] == [k for k, _ in tmod.named_parameters()]

    tin, ein = [], []
    for x in inputs:
        if isinstance(x, torch.Tensor):
            needs = grad_inputs and x.is_floating_point()
            tin.append(x.detach().clone().requires_grad_(needs))
            ein.append(E(x, requires_grad=needs))
        else:
            tin.append(x)
            ein.append(x)
    tout, eout = _flat(tmod(*tin)), _flat(emod(*ein))
    assert len(tout) == len(eout)
    for i, (t, e) in enumerate(zip(tout, eout)):
        assert_close(e, t, rtol, atol, f"output {i}")

    gen = torch.Generator().manual_seed(seed)
    weights = [torch.randn(t.shape, generator=gen, dtype=t.dtype) for t in tout]
    tloss = sum((t * w).sum() for t, w in zip(tout, weights))
    eloss = sum((e * E(w)).sum() for e, w in zip(eout, weights))
    tloss.backward()
    eloss.backward()
    for i, (t, e) in enumerate(zip(tin, ein)):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            assert_close(e.grad, t.grad, rtol, atol, f"grad of input {i}")
    eparams = dict(emod.named_parameters())
    for name, p in tmod.named_parameters():
        if p.grad is None:
            assert eparams[name].grad is None, name
        else:
            assert_close(eparams[name].grad, p.grad, rtol, atol, f"grad of {name}")
    ebufs = dict(emod.named_buffers())
    for name, b in tmod.named_buffers():
        assert_close(ebufs[name], b, rtol, atol, f"buffer {name}")
    return tout, eout


def rand(*shape, seed=0, dtype=torch.float64):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


# ---- Parameter -------------------------------------------------------------------


def test_parameter_is_leaf_subclass_sharing_data():
    base = ember.randn(2, 3)
    p = nn.Parameter(base)
    assert isinstance(p, nn.Parameter) and isinstance(p, ember.Tensor)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    assert p.data_ptr() == base.data_ptr()
    x = ember.randn(3, requires_grad=True)
    q = nn.Parameter(x * 2)  # a non-leaf input still gives a leaf
    assert q.is_leaf and q.grad_fn is None
    assert not nn.Parameter(ember.randn(2), requires_grad=False).requires_grad
    assert repr(p).startswith("Parameter containing:\ntensor(")
    assert repr(p).endswith("requires_grad=True)")
    assert type(nn.Parameter()) is nn.Parameter and nn.Parameter().numel() == 0


def test_parameter_copy_and_pickle():
    p = nn.Parameter(ember.randn(3))
    d = copy.deepcopy(p)
    assert type(d) is nn.Parameter and d.requires_grad and d.data_ptr() != p.data_ptr()
    assert np.array_equal(N(d), N(p))
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is nn.Parameter and np.array_equal(N(r), N(p))
    m = nn.Linear(3, 2)
    m2 = copy.deepcopy(m)
    assert isinstance(m2.weight, nn.Parameter) and np.array_equal(N(m2.weight), N(m.weight))
    m3 = pickle.loads(pickle.dumps(m))
    assert isinstance(m3.bias, nn.Parameter) and np.array_equal(N(m3.bias), N(m.bias))


def test_buffer_marker():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Buffer(ember.ones(2))
            self.b = nn.Buffer(ember.zeros(2), persistent=False)

    m = M()
    assert [k for k, _ in m.named_buffers()] == ["a", "b"]
    assert list(m.state_dict().keys()) == ["a"]


# ---- Module registration and iteration ------------------------------------------------


def _Net(lib):
    """The same nested architecture built from torch.nn or ember.nn."""
    T = torch if lib is tnn else ember

    class _Net(lib.Module):
        def __init__(self):
            super().__init__()
            self.conv = lib.Conv2d(2, 4, 3, padding=1)
            self.bn = lib.BatchNorm2d(4)
            self.blocks = lib.ModuleList([lib.Linear(4, 4), lib.Sequential(lib.Linear(4, 3), lib.ReLU())])
            self.heads = lib.ModuleDict({"b": lib.Linear(3, 2), "a": lib.LayerNorm(3)})
            self.emb = lib.Embedding(5, 4, padding_idx=0)
            self.attn = lib.MultiheadAttention(4, 2)
            self.plist = lib.ParameterList([lib.Parameter(T.zeros(2)), lib.Parameter(T.zeros(2, 3, dtype=T.float64))])
            self.pdict = lib.ParameterDict({"z": lib.Parameter(T.ones(3)), "y": T.ones(1, 2)})
            self.scale = lib.Parameter(T.ones(1))
            self.register_buffer("step", T.zeros([]))
            self.register_buffer("cache", T.zeros(2), persistent=False)

    return _Net()


def test_state_dict_keys_and_order_match_torch():
    tm, em = _Net(tnn), _Net(nn)
    tkeys, ekeys = list(tm.state_dict().keys()), list(em.state_dict().keys())
    assert ekeys == tkeys
    assert [k for k, _ in em.named_parameters()] == [k for k, _ in tm.named_parameters()]
    assert [k for k, _ in em.named_buffers()] == [k for k, _ in tm.named_buffers()]
    assert [k for k, _ in em.named_modules()] == [k for k, _ in tm.named_modules()]
    assert [k for k, _ in em.named_children()] == [k for k, _ in tm.named_children()]
    for (k, v), (_, tv) in zip(em.state_dict().items(), tm.state_dict().items()):
        assert list(v.shape) == list(tv.shape), k
    assert isinstance(em.state_dict(), OrderedDict)
    # Round trip of the whole model through torch's values.
    em.load_state_dict(ember_state_dict(tm))
    assert np.array_equal(N(em.attn.in_proj_weight), tm.attn.in_proj_weight.detach().numpy())


def test_state_dict_detached_keep_vars_prefix():
    m = nn.Linear(2, 3)
    sd = m.state_dict()
    assert not sd["weight"].requires_grad and type(sd["weight"]) is ember.Tensor
    assert sd["weight"].data_ptr() == m.weight.data_ptr()
    sd2 = m.state_dict(keep_vars=True)
    assert sd2["weight"] is m.weight
    assert list(m.state_dict(prefix="enc.").keys()) == ["enc.weight", "enc.bias"]
    assert sd._metadata[""]["version"] == 1


def test_load_state_dict_errors_match_torch():
    def msg(fn):
        with pytest.raises(RuntimeError) as info:
            fn()
        return str(info.value)

    tm = tnn.Sequential(tnn.Linear(2, 3), tnn.ReLU(), tnn.Linear(3, 1))
    em = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    tsd, esd = tm.state_dict(), em.state_dict()

    t_missing = {k: v for k, v in tsd.items() if k != "2.bias"}
    e_missing = {k: v for k, v in esd.items() if k != "2.bias"}
    assert msg(lambda: em.load_state_dict(e_missing)) == msg(lambda: tm.load_state_dict(t_missing))

    t_extra = dict(tsd, **{"3.weight": torch.zeros(1), "0.foo": torch.zeros(1)})
    e_extra = dict(esd, **{"3.weight": ember.zeros(1), "0.foo": ember.zeros(1)})
    assert msg(lambda: em.load_state_dict(e_extra)) == msg(lambda: tm.load_state_dict(t_extra))

    t_bad = dict(tsd, **{"0.weight": torch.zeros(4, 2)})
    e_bad = dict(esd, **{"0.weight": ember.zeros(4, 2)})
    expected = msg(lambda: tm.load_state_dict(t_bad)).replace("torch.Size", "ember.Size")
    assert msg(lambda: em.load_state_dict(e_bad)) == expected

    both_t = {k: v for k, v in t_extra.items() if k != "0.bias"}
    both_e = {k: v for k, v in e_extra.items() if k != "0.bias"}
    assert msg(lambda: em.load_state_dict(both_e)) == msg(lambda: tm.load_state_dict(both_t))

    res = em.load_state_dict(both_e, strict=False)
    tres = tm.load_state_dict(both_t, strict=False)
    assert res.missing_keys == tres.missing_keys == ["0.bias"]
    assert res.unexpected_keys == tres.unexpected_keys
    ok = em.load_state_dict(esd)
    assert repr(ok) == repr(tm.load_state_dict(tsd)) == "<All keys matched successfully>"
    assert ok == ([], []) and ok.missing_keys == []


def test_load_state_dict_copies_in_place_and_assign():
    m = nn.Linear(2, 2)
    w = m.weight
    new = OrderedDict(weight=ember.ones(2, 2), bias=ember.zeros(2))
    m.load_state_dict(new)
    assert m.weight is w and np.array_equal(N(w), np.ones((2, 2), np.float32))
    m.load_state_dict(OrderedDict(weight=ember.full([2, 2], 3.0), bias=ember.zeros(2)), assign=True)
    assert m.weight is not w and isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    assert float(m.weight.sum().item()) == 12.0


def test_batchnorm_loads_old_checkpoint_without_num_batches_tracked():
    bn = nn.BatchNorm1d(3)
    sd = bn.state_dict()
    del sd["num_batches_tracked"]
    sd._metadata[""]["version"] = 1
    assert bn.load_state_dict(sd).missing_keys == []


def test_registration_rules_and_errors():
    m = nn.Module()
    m.w = nn.Parameter(ember.zeros(2))
    m.register_buffer("b", ember.ones(2))
    m.sub = nn.Linear(2, 2)
    m.plain = 3
    assert list(m._parameters) == ["w"] and list(m._buffers) == ["b"] and list(m._modules) == ["sub"]
    assert m.plain == 3 and "plain" in m.__dict__
    with pytest.raises(TypeError):
        m.w = ember.zeros(2)  # a plain tensor cannot replace a parameter
    m.w = None
    assert m._parameters["w"] is None and list(m.parameters()) == list(m.sub.parameters())
    with pytest.raises(TypeError):
        m.sub = 5
    m.b = ember.zeros(3)  # buffers take plain tensors
    assert m._buffers["b"].shape == (3,)
    with pytest.raises(KeyError, match="contain"):
        m.register_parameter("a.b", nn.Parameter(ember.zeros(1)))
    with pytest.raises(KeyError, match="already exists"):
        m.register_buffer("plain", ember.zeros(1))
    with pytest.raises(TypeError):
        m.register_parameter("q", ember.zeros(1))
    with pytest.raises(TypeError):
        m.add_module("x", 3)
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        m.nope
    del m.sub
    del m.b
    assert "sub" not in m._modules and "b" not in m._buffers
    m.register_module("lin", nn.Linear(1, 1))
    assert "lin" in dir(m) and "w" in dir(m)
    with pytest.raises(AttributeError, match="cannot assign"):
        class Bad(nn.Module):
            def __init__(self):
                self.p = nn.Parameter(ember.zeros(1))
        Bad()


def test_reassignment_moves_between_kinds():
    for lib, T in ((tnn, torch), (nn, ember)):
        m = lib.Module()
        m.x = lib.Parameter(T.zeros(1))
        with pytest.raises(TypeError):  # a parameter slot only takes Parameters or None (as torch)
            m.x = lib.Linear(1, 1)
        del m.x
        m.x = lib.Linear(1, 1)
        assert "x" not in m._parameters and "x" in m._modules
        m.x = lib.Parameter(T.zeros(1))  # a Parameter may replace a module
        assert "x" in m._parameters and "x" not in m._modules
        m.register_buffer("b", T.zeros(1))
        m.b = lib.Parameter(T.zeros(1))
        assert "b" in m._parameters and "b" not in m._buffers


def test_shared_parameters_and_remove_duplicate():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, lin)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4
    assert [k for k, _ in seq.named_modules()] == ["", "0"]
    assert len(list(seq.named_modules(remove_duplicate=False))) == 3
    assert [k for k, _ in seq.named_parameters(prefix="model")] == ["model.0.weight", "model.0.bias"]
    assert [k for k, _ in seq.named_parameters(recurse=False)] == []


def test_get_submodule_parameter_buffer():
    tm, em = _Net(tnn), _Net(nn)
    assert em.get_submodule("blocks.1.0") is em.blocks[1][0]
    assert em.get_parameter("blocks.1.0.weight") is em.blocks[1][0].weight
    assert em.get_buffer("bn.running_mean") is em.bn.running_mean
    for target in ["blocks.7", "conv.weight", "nothing"]:
        with pytest.raises(AttributeError) as e_err:
            em.get_submodule(target)
        with pytest.raises(AttributeError) as t_err:
            tm.get_submodule(target)
        assert str(e_err.value) == str(t_err.value)
    for target in ["conv.nothing", "bn.running_mean"]:
        with pytest.raises(AttributeError) as e_err:
            em.get_parameter(target)
        with pytest.raises(AttributeError) as t_err:
            tm.get_parameter(target)
        assert str(e_err.value) == str(t_err.value)


def test_repr_matches_torch_for_nested_model():
    tm, em = _Net(tnn), _Net(nn)
    expected = repr(tm).replace("torch.", "ember.")
    assert repr(em) == expected
    extra = [
        (tnn.Conv2d(3, 6, (3, 5), stride=2, padding=(1, 2), dilation=2, groups=3, bias=False,
                    padding_mode="reflect"),
         nn.Conv2d(3, 6, (3, 5), stride=2, padding=(1, 2), dilation=2, groups=3, bias=False, padding_mode="reflect")),
        (tnn.Conv2d(2, 4, 3, padding="same"), nn.Conv2d(2, 4, 3, padding="same")),
        (tnn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=1), nn.ConvTranspose2d(2, 3, 3, stride=2,
                                                                                       output_padding=1)),
        (tnn.Conv1d(2, 3, 3), nn.Conv1d(2, 3, 3)),
        (tnn.ModuleList([tnn.Linear(2, 2) for _ in range(3)] + [tnn.ReLU()]),
         nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])),
        (tnn.ModuleList(), nn.ModuleList()),
        (tnn.BatchNorm1d(3, momentum=None, affine=False), nn.BatchNorm1d(3, momentum=None, affine=False)),
        (tnn.BatchNorm2d(3, bias=False), nn.BatchNorm2d(3, bias=False)),
        (tnn.LayerNorm([3, 4], bias=False), nn.LayerNorm([3, 4], bias=False)),
        (tnn.GroupNorm(2, 4), nn.GroupNorm(2, 4)), (tnn.RMSNorm(4), nn.RMSNorm(4)),
        (tnn.Embedding(4, 3, padding_idx=-1, max_norm=1.0), nn.Embedding(4, 3, padding_idx=-1, max_norm=1.0)),
        (tnn.Bilinear(2, 3, 4), nn.Bilinear(2, 3, 4)), (tnn.Identity(), nn.Identity()),
        (tnn.MaxPool2d(3, 1, 1), nn.MaxPool2d(3, 1, 1)), (tnn.AvgPool2d(2), nn.AvgPool2d(2)),
        (tnn.AdaptiveAvgPool2d((2, None)), nn.AdaptiveAvgPool2d((2, None))),
        (tnn.AdaptiveMaxPool2d(1), nn.AdaptiveMaxPool2d(1)), (tnn.AvgPool1d(2), nn.AvgPool1d(2)),
        (tnn.MaxPool1d(2), nn.MaxPool1d(2)), (tnn.Upsample(scale_factor=2), nn.Upsample(scale_factor=2)),
        (tnn.Dropout(0.2), nn.Dropout(0.2)), (tnn.Dropout2d(inplace=True), nn.Dropout2d(inplace=True)),
        (tnn.Flatten(0, 2), nn.Flatten(0, 2)), (tnn.Unflatten(1, (2, 3)), nn.Unflatten(1, (2, 3))),
        (tnn.MultiheadAttention(4, 2, kdim=3, vdim=5, bias=False), nn.MultiheadAttention(4, 2, kdim=3, vdim=5,
                                                                                          bias=False)),
        (tnn.CrossEntropyLoss(), nn.CrossEntropyLoss()),
    ]
    acts = ["ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "GELU", "SiLU", "Mish", "Tanh", "Sigmoid", "Hardtanh",
            "Hardswish", "Hardsigmoid", "Softplus", "LogSigmoid", "Softsign", "Tanhshrink", "GLU", "PReLU"]
    extra += [(getattr(tnn, a)(), getattr(nn, a)()) for a in acts]
    extra += [(tnn.ReLU(True), nn.ReLU(True)), (tnn.LeakyReLU(0.2, True), nn.LeakyReLU(0.2, True)),
              (tnn.GELU("tanh"), nn.GELU("tanh")), (tnn.Softmax(1), nn.Softmax(1)), (tnn.Softmax(), nn.Softmax()),
              (tnn.LogSoftmax(-1), nn.LogSoftmax(-1)), (tnn.Softmin(0), nn.Softmin(0)),
              (tnn.PReLU(3), nn.PReLU(3)), (tnn.Softplus(2, 10), nn.Softplus(2, 10))]
    for t, e in extra:
        assert repr(e) == repr(t).replace("torch.", "ember.")


def test_train_eval_and_requires_grad():
    m = _Net(nn)
    assert m.training and all(c.training for c in m.modules())
    assert m.eval() is m and not any(c.training for c in m.modules())
    m.train()
    assert all(c.training for c in m.modules())
    with pytest.raises(ValueError):
        m.train("yes")
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    assert all(p.requires_grad for p in m.parameters())


def test_zero_grad_apply_and_conversions():
    m = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    m(ember.randn(4, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum().item()) == 0.0 for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())

    seen = []
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    assert seen == ["Linear", "BatchNorm1d", "Sequential"]

    w = m[0].weight
    m.double()
    assert m[0].weight is w and w.dtype == ember.float64 and isinstance(w, nn.Parameter)
    assert m[1].running_mean.dtype == ember.float64
    assert m[1].num_batches_tracked.dtype == ember.int64  # integer buffers keep their dtype
    m.to(ember.float32)
    assert w.dtype == ember.float32
    m.to(dtype=ember.float64)
    assert w.dtype == ember.float64
    m.float()
    m.half()
    assert w.dtype == ember.float16
    m.to(ember.zeros(1, dtype=ember.float64))
    assert w.dtype == ember.float64
    assert m.cpu() is m and m.to("cpu") is m
    with pytest.raises(TypeError, match="floating point"):
        m.to(ember.int64)
    # The gradient follows the parameter's conversion.
    m(ember.randn(4, 3, dtype=ember.float64)).sum().backward()
    m.float()
    assert w.grad.dtype == ember.float32
    assert m(ember.randn(4, 3)).dtype == ember.float32


# ---- hooks ------------------------------------------------------------------------------------


def test_forward_hooks():
    m = nn.Linear(2, 2)
    calls = []

    def pre(mod, args):
        calls.append("pre")
        return (args[0] * 0,)

    def post(mod, args, out):
        calls.append("post")
        return out + 1

    h1 = m.register_forward_pre_hook(pre)
    h2 = m.register_forward_hook(post)
    out = m(ember.randn(3, 2))
    assert calls == ["pre", "post"]
    assert np.allclose(N(out), N(m.bias.detach()) + 1)
    h1.remove()
    h2.remove()
    calls.clear()
    m(ember.randn(3, 2))
    assert calls == []

    def pre_kw(mod, args, kwargs):
        return args, {}

    def post_kw(mod, args, kwargs, out):
        calls.append(sorted(kwargs))

    class K(nn.Module):
        def forward(self, x, scale=1.0):
            return x * scale

    k = K()
    k.register_forward_hook(post_kw, with_kwargs=True)
    k(ember.ones(1), scale=2.0)
    assert calls == [["scale"]]
    k.register_forward_pre_hook(pre_kw, with_kwargs=True, prepend=True)
    assert float(k(ember.ones(1), scale=2.0).item()) == 1.0

    order = []
    m2 = nn.Identity()
    m2.register_forward_hook(lambda *a: order.append(1))
    m2.register_forward_hook(lambda *a: order.append(0), prepend=True)
    with m2.register_forward_hook(lambda *a: order.append(2)):
        m2(ember.ones(1))
    m2(ember.ones(1))
    assert order == [0, 1, 2, 0, 1]


def test_forward_hook_always_call():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    seen = []
    b = Boom()
    b.register_forward_hook(lambda m, a, o: seen.append(o), always_call=True)
    with pytest.raises(ValueError):
        b(ember.ones(1))
    assert seen == [None]


def _backward_hook_record(mod):
    rec = {}

    def hook(m, gin, gout):
        rec["gin"] = [None if g is None else g.detach().numpy().copy() for g in gin]
        rec["gout"] = [None if g is None else g.detach().numpy().copy() for g in gout]

    def pre(m, gout):
        rec["pre"] = len(gout)
        return tuple(g * 2 for g in gout)

    mod.register_full_backward_hook(hook)
    mod.register_full_backward_pre_hook(pre)
    return rec


def test_full_backward_hooks_match_torch():
    tl, el = tnn.Linear(3, 2).double(), nn.Linear(3, 2).double()
    el.load_state_dict(ember_state_dict(tl))
    trec, erec = _backward_hook_record(tl), _backward_hook_record(el)
    x = rand(4, 3)
    tx, ex = x.clone().requires_grad_(), E(x, True)
    w = rand(4, 2, seed=1)
    (tl(tx) * w).sum().backward()
    (el(ex) * E(w)).sum().backward()
    assert erec["pre"] == trec["pre"] == 1
    for key in ("gin", "gout"):
        assert len(erec[key]) == len(trec[key])
        for a, b in zip(erec[key], trec[key]):
            np.testing.assert_allclose(a, b, rtol=1e-12)
    assert_close(ex.grad, tx.grad)  # the pre-hook doubled grad_output for both
    assert_close(el.weight.grad, tl.weight.grad)

    # No input requires grad: the hook still runs, with grad_input == (None,).
    tl2, el2 = tnn.Linear(3, 2).double(), nn.Linear(3, 2).double()
    el2.load_state_dict(ember_state_dict(tl2))
    trec, erec = _backward_hook_record(tl2), _backward_hook_record(el2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch notes that the hook fires at the outputs
        tl2(x).sum().backward()
    el2(E(x)).sum().backward()
    assert erec["gin"] == trec["gin"] == [None]
    np.testing.assert_allclose(erec["gout"][0], trec["gout"][0])

    # A hook may replace grad_input.
    el3 = nn.Linear(3, 2)
    el3.register_full_backward_hook(lambda m, gin, gout: (gin[0] * 0,))
    ex3 = ember.randn(2, 3, requires_grad=True)
    el3(ex3).sum().backward()
    assert float(ex3.grad.abs().sum().item()) == 0.0


def test_full_backward_hook_multiple_inputs_and_outputs():
    def make(lib):
        class Two(lib.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.Linear(3, 3)

            def forward(self, a, scale, b):
                h = self.lin(a) * b
                return h * scale, h.sum(-1), "tag"

        return Two()

    tm, em = make(tnn).double(), make(nn).double()
    em.load_state_dict(ember_state_dict(tm))
    recs = []
    for mod in (tm, em):
        rec = {}
        recs.append(rec)

        def hook(m, gin, gout, rec=rec):
            rec["gin"] = [None if g is None else N(g) for g in gin]
            rec["gout"] = [None if g is None else N(g) for g in gout]

        mod.register_full_backward_hook(hook)
    a, b = rand(2, 3), rand(2, 3, seed=1)
    ta, tb = a.clone().requires_grad_(), b.clone()  # b needs no gradient
    t1, t2, _ = tm(ta, 2.0, tb)
    (t1.sum() + (t2 * 3).sum()).backward()
    ea, eb = E(a, True), E(b)
    e1, e2, tag = em(ea, 2.0, eb)
    assert tag == "tag"
    (e1.sum() + (e2 * 3).sum()).backward()
    trec, erec = recs
    for key in ("gin", "gout"):
        assert [g is None for g in erec[key]] == [g is None for g in trec[key]], key
        for x, y in zip(erec[key], trec[key]):
            if y is not None:
                np.testing.assert_allclose(x, y, rtol=1e-12)
    assert_close(ea.grad, ta.grad)


def test_global_forward_hooks():
    from ember.nn.modules.module import register_module_forward_hook

    seen = []
    h = register_module_forward_hook(lambda m, a, o: seen.append(type(m).__name__))
    try:
        nn.Sequential(nn.ReLU())(ember.ones(1))
    finally:
        h.remove()
    nn.ReLU()(ember.ones(1))
    assert seen == ["ReLU", "Sequential"]


def test_state_dict_hooks():
    m = nn.Linear(2, 2)
    m.register_state_dict_post_hook(lambda mod, sd, prefix, local: sd.__setitem__(prefix + "extra", ember.ones(1)))
    assert "extra" in m.state_dict()
    seen = []
    m.register_load_state_dict_post_hook(lambda mod, keys: seen.append(list(keys.missing_keys)))
    m.load_state_dict({"weight": ember.zeros(2, 2)}, strict=False)
    assert seen == [["bias"]]


# ---- containers ------------------------------------------------------------------------------


def test_sequential():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    s = nn.Sequential(a, b, c)
    assert len(s) == 3 and s[0] is a and s[-1] is c and list(s) == [a, b, c]
    sub = s[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == [b, c] and list(sub._modules) == ["1", "2"]
    x = ember.randn(4, 2)
    assert np.allclose(N(s(x)), N(c(b(a(x)))))
    s.append(nn.Sigmoid())
    assert len(s) == 4 and isinstance(s[3], nn.Sigmoid)
    s.insert(0, nn.Identity())
    assert isinstance(s[0], nn.Identity) and s[1] is a
    del s[0]
    assert s[0] is a and list(s._modules) == ["0", "1", "2", "3"]
    s[3] = nn.Tanh()
    assert isinstance(s[3], nn.Tanh)
    assert s.pop(3).__class__ is nn.Tanh and len(s) == 3
    assert len(s + nn.Sequential(nn.ReLU())) == 4
    assert len(s * 2) == 6
    s.extend([nn.ReLU()])
    assert len(s) == 4
    named = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert list(named.state_dict()) == ["fc.weight", "fc.bias"] and named.fc is named[0]
    with pytest.raises(IndexError):
        s[10]


def test_module_list_and_dict():
    ml = nn.ModuleList([nn.Linear(1, 1), nn.ReLU()])
    ml.append(nn.Tanh())
    ml.extend([nn.Sigmoid()])
    ml += [nn.Identity()]
    ml.insert(1, nn.GELU())
    assert [type(m).__name__ for m in ml] == ["Linear", "GELU", "ReLU", "Tanh", "Sigmoid", "Identity"]
    assert isinstance(ml[1:3], nn.ModuleList) and len(ml[1:3]) == 2 and ml[-1] is ml[5]
    del ml[1]
    assert len(ml) == 5 and isinstance(ml[1], nn.ReLU) and list(ml._modules) == [str(i) for i in range(5)]
    ml[0] = nn.ELU()
    assert isinstance(ml[0], nn.ELU)
    assert len(list(ml.parameters())) == 0
    assert isinstance(ml.pop(0), nn.ELU)

    md = nn.ModuleDict({"b": nn.Linear(1, 2), "a": nn.ReLU()})
    assert list(md.keys()) == ["b", "a"] and "a" in md and len(md) == 2
    md["c"] = nn.Tanh()
    md.update([("d", nn.Identity())])
    assert list(md) == ["b", "a", "c", "d"]
    assert isinstance(md.pop("a"), nn.ReLU) and list(md.keys()) == ["b", "c", "d"]
    assert [k for k, _ in md.items()] == ["b", "c", "d"] and len(list(md.values())) == 3
    assert list(md.state_dict()) == ["b.weight", "b.bias"]
    md.clear()
    assert len(md) == 0


def test_parameter_list_and_dict():
    pl = nn.ParameterList([ember.zeros(2), nn.Parameter(ember.ones(3))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(pl) == 2
    pl.append(ember.zeros(1))
    pl.extend([ember.ones(2, 2)])
    assert len(pl) == 4 and list(pl.state_dict()) == ["0", "1", "2", "3"]
    assert len(list(pl.parameters())) == 4 and len(pl[1:3]) == 2
    pl[0] = ember.full([2], 5.0)
    assert float(pl[0].sum().item()) == 10.0
    with pytest.raises(RuntimeError):
        pl(ember.ones(1))

    pd = nn.ParameterDict({"w": ember.zeros(2)})
    pd["b"] = nn.Parameter(ember.ones(1))
    assert list(pd.keys()) == ["w", "b"] and isinstance(pd["w"], nn.Parameter)
    assert "b" in pd and len(pd) == 2 and list(pd.state_dict()) == ["w", "b"]
    pd.update({"z": ember.zeros(1), "a": ember.zeros(1)})  # plain dicts are merged in sorted order
    assert list(pd) == ["w", "b", "a", "z"]
    assert pd.pop("w").shape == (2,) and list(pd) == ["b", "a", "z"]
    assert pd.get("missing") is None and len(list(pd.values())) == 3
    assert list((pd | nn.ParameterDict({"q": ember.ones(1)})).keys()) == ["b", "a", "z", "q"]


# ---- layers: forward and gradient parity -------------------------------------------------------


def test_linear_and_bilinear():
    check_parity(tnn.Linear(5, 3), nn.Linear(5, 3), rand(4, 5))
    check_parity(tnn.Linear(5, 3, bias=False), nn.Linear(5, 3, bias=False), rand(2, 6, 5))
    check_parity(tnn.Linear(5, 3), nn.Linear(5, 3), rand(5))
    check_parity(tnn.Bilinear(3, 4, 2), nn.Bilinear(3, 4, 2), rand(5, 3), rand(5, 4, seed=1))
    check_parity(tnn.Bilinear(3, 4, 2, bias=False), nn.Bilinear(3, 4, 2, bias=False), rand(2, 5, 3),
                 rand(2, 5, 4, seed=1))
    check_parity(tnn.Identity(), nn.Identity(), rand(3))


@pytest.mark.parametrize("kwargs", [
    dict(kernel_size=3),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2)),
    dict(kernel_size=3, padding="same"),
    dict(kernel_size=4, padding="same", dilation=1),
    dict(kernel_size=(2, 3), padding="same", dilation=2),
    dict(kernel_size=3, padding="valid", bias=False),
    dict(kernel_size=3, groups=2, padding=1),
    dict(kernel_size=3, padding=1, padding_mode="reflect"),
    dict(kernel_size=3, padding=2, padding_mode="replicate"),
    dict(kernel_size=3, padding=(1, 2), padding_mode="circular"),
    dict(kernel_size=4, padding="same", padding_mode="reflect"),
])
def test_conv2d(kwargs):
    check_parity(tnn.Conv2d(4, 6, **kwargs), nn.Conv2d(4, 6, **kwargs), rand(2, 4, 7, 8))


def test_conv2d_unbatched_and_conv1d():
    check_parity(tnn.Conv2d(2, 3, 3, padding=1), nn.Conv2d(2, 3, 3, padding=1), rand(2, 5, 5))
    for kwargs in [dict(kernel_size=3), dict(kernel_size=3, stride=2, padding=1, dilation=2),
                   dict(kernel_size=4, padding="same"), dict(kernel_size=3, groups=2, padding=1, bias=False),
                   dict(kernel_size=3, padding=1, padding_mode="circular")]:
        check_parity(tnn.Conv1d(4, 6, **kwargs), nn.Conv1d(4, 6, **kwargs), rand(2, 4, 9))


@pytest.mark.parametrize("kwargs", [
    dict(kernel_size=3),
    dict(kernel_size=3, stride=2),
    dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 0), output_padding=(1, 2)),
    dict(kernel_size=3, stride=2, padding=2, dilation=2, groups=2, bias=False),
    dict(kernel_size=2, padding=1),
])
def test_conv_transpose2d(kwargs):
    check_parity(tnn.ConvTranspose2d(4, 6, **kwargs), nn.ConvTranspose2d(4, 6, **kwargs), rand(2, 4, 5, 6))


def test_conv_transpose2d_output_size():
    t, e = tnn.ConvTranspose2d(2, 3, 3, stride=2), nn.ConvTranspose2d(2, 3, 3, stride=2)
    x = rand(1, 2, 4, 4)
    t, e = t.double(), e.double()
    e.load_state_dict(ember_state_dict(t))
    assert_close(e(E(x), output_size=[10, 10]), t(x, output_size=[10, 10]))


def test_pooling():
    x = rand(2, 3, 9, 8)
    for kwargs in [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                   dict(kernel_size=(3, 2), stride=1, dilation=(2, 1)), dict(kernel_size=3, stride=2, ceil_mode=True)]:
        check_parity(tnn.MaxPool2d(**kwargs), nn.MaxPool2d(**kwargs), x)
    for kwargs in [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                   dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                   dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=2, divisor_override=3)]:
        check_parity(tnn.AvgPool2d(**kwargs), nn.AvgPool2d(**kwargs), x)
    for size in [1, (3, 4), (1, 2), (4, 3), (5, 5), (None, 3)]:
        check_parity(tnn.AdaptiveAvgPool2d(size), nn.AdaptiveAvgPool2d(size), x)
    for size in [1, (3, 4), (4, 5)]:
        check_parity(tnn.AdaptiveMaxPool2d(size), nn.AdaptiveMaxPool2d(size), x)
    check_parity(tnn.AdaptiveAvgPool2d(2), nn.AdaptiveAvgPool2d(2), rand(3, 6, 6))
    y = rand(2, 3, 10)
    check_parity(tnn.MaxPool1d(3, 2, 1), nn.MaxPool1d(3, 2, 1), y)
    check_parity(tnn.AvgPool1d(2), nn.AvgPool1d(2), y)
    check_parity(tnn.AdaptiveAvgPool1d(3), nn.AdaptiveAvgPool1d(3), y)
    check_parity(tnn.Upsample(scale_factor=2), nn.Upsample(scale_factor=2), x)
    check_parity(tnn.Upsample(size=(5, 11)), nn.Upsample(size=(5, 11)), x)


@pytest.mark.parametrize("momentum", [0.1, None, 0.5])
def test_batchnorm_training_running_stats(momentum):
    t, e = tnn.BatchNorm2d(3, momentum=momentum).double(), nn.BatchNorm2d(3, momentum=momentum).double()
    with torch.no_grad():
        t.weight.uniform_(0.5, 1.5)
        t.bias.uniform_(-0.5, 0.5)
    for step in range(3):
        check_parity(t, e, rand(4, 3, 5, 5, seed=step) * (step + 1) + step)
        t.zero_grad()
        e.zero_grad()
    assert int(e.num_batches_tracked.item()) == 3
    t.eval()
    e.eval()
    check_parity(t, e, rand(2, 3, 5, 5, seed=9))


def test_batchnorm_variants():
    check_parity(tnn.BatchNorm1d(4), nn.BatchNorm1d(4), rand(6, 4))
    check_parity(tnn.BatchNorm1d(4), nn.BatchNorm1d(4), rand(6, 4, 3))
    check_parity(tnn.BatchNorm1d(4, affine=False), nn.BatchNorm1d(4, affine=False), rand(6, 4))
    t, e = tnn.BatchNorm2d(3, track_running_stats=False), nn.BatchNorm2d(3, track_running_stats=False)
    assert list(e.state_dict()) == list(t.state_dict()) == ["weight", "bias"]
    check_parity(t, e, rand(2, 3, 4, 4))
    t.eval()
    e.eval()
    check_parity(t, e, rand(2, 3, 4, 4))  # no running stats: batch statistics even in eval
    check_parity(tnn.BatchNorm2d(3, bias=False), nn.BatchNorm2d(3, bias=False), rand(2, 3, 4, 4))
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(3)(ember.randn(2, 3))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm1d(3)(ember.randn(1, 3))


def test_normalization_layers():
    check_parity(tnn.LayerNorm(5), nn.LayerNorm(5), rand(3, 5))
    check_parity(tnn.LayerNorm([4, 5], eps=1e-3), nn.LayerNorm([4, 5], eps=1e-3), rand(2, 3, 4, 5))
    check_parity(tnn.LayerNorm(5, elementwise_affine=False), nn.LayerNorm(5, elementwise_affine=False), rand(3, 5))
    check_parity(tnn.LayerNorm(5, bias=False), nn.LayerNorm(5, bias=False), rand(3, 5))
    check_parity(tnn.GroupNorm(2, 6), nn.GroupNorm(2, 6), rand(3, 6, 4, 2))
    check_parity(tnn.GroupNorm(3, 6, affine=False), nn.GroupNorm(3, 6, affine=False), rand(3, 6, 5))
    check_parity(tnn.RMSNorm(5), nn.RMSNorm(5), rand(3, 5))
    check_parity(tnn.RMSNorm([2, 5], eps=1e-4), nn.RMSNorm([2, 5], eps=1e-4), rand(3, 2, 5))
    for t, e, x in [(tnn.LayerNorm(5), nn.LayerNorm(5), rand(3, 5)),
                    (tnn.GroupNorm(2, 6), nn.GroupNorm(2, 6), rand(3, 6, 4)),
                    (tnn.RMSNorm(5), nn.RMSNorm(5), rand(3, 5))]:
        with torch.no_grad():  # non-trivial affine parameters
            for p in t.parameters():
                p.normal_()
        check_parity(t, e, x)


def test_embedding():
    t, e = tnn.Embedding(10, 4), nn.Embedding(10, 4)
    idx = torch.tensor([[1, 2, 4, 5], [4, 3, 2, 9]])
    check_parity(t, e, idx)
    t, e = tnn.Embedding(10, 4, padding_idx=2), nn.Embedding(10, 4, padding_idx=2)
    assert float(e.weight[2].abs().sum().item()) == 0.0
    check_parity(t, e, idx)
    assert float(e.weight.grad[2].abs().sum().item()) == 0.0
    t, e = tnn.Embedding(10, 4, padding_idx=-1), nn.Embedding(10, 4, padding_idx=-1)
    assert e.padding_idx == 9
    check_parity(t, e, idx)
    t, e = tnn.Embedding(10, 4, scale_grad_by_freq=True), nn.Embedding(10, 4, scale_grad_by_freq=True)
    check_parity(t, e, idx)

    pretrained = ember.randn(5, 3)
    frozen = nn.Embedding.from_pretrained(pretrained)
    assert not frozen.weight.requires_grad and frozen.weight.data_ptr() == pretrained.data_ptr()
    assert np.allclose(N(frozen(ember.tensor([0, 4]))), N(pretrained)[[0, 4]])
    trainable = nn.Embedding.from_pretrained(pretrained, freeze=False, padding_idx=1)
    assert trainable.weight.requires_grad and trainable.padding_idx == 1


def test_embedding_max_norm():
    w = rand(6, 3) * 3
    t, e = tnn.Embedding(6, 3, max_norm=1.0).double(), nn.Embedding(6, 3, max_norm=1.0).double()
    with torch.no_grad():
        t.weight.copy_(w)
    e.load_state_dict(ember_state_dict(t))
    idx = torch.tensor([0, 2, 2, 5])
    assert_close(e(E(idx)), t(idx))
    assert_close(e.weight, t.weight)  # the used rows were renormalised in place


ACTIVATIONS = [
    ("ReLU", (), {}), ("ReLU6", (), {}), ("LeakyReLU", (0.2,), {}), ("ELU", (0.7,), {}), ("SELU", (), {}),
    ("GELU", (), {}), ("GELU", ("tanh",), {}), ("SiLU", (), {}), ("Mish", (), {}), ("Tanh", (), {}),
    ("Sigmoid", (), {}), ("Hardtanh", (-0.5, 0.8), {}), ("Hardswish", (), {}), ("Hardsigmoid", (), {}),
    ("Softplus", (), {}), ("Softplus", (2.0, 1.0), {}), ("LogSigmoid", (), {}), ("Softsign", (), {}),
    ("Tanhshrink", (), {}), ("Softmax", (1,), {}), ("Softmax", (-1,), {}), ("LogSoftmax", (1,), {}),
    ("Softmin", (0,), {}), ("GLU", (-1,), {}), ("PReLU", (), {}), ("PReLU", (3,), {}),
]


@pytest.mark.parametrize("name,args,kwargs", ACTIVATIONS, ids=[a[0] + str(a[1]) for a in ACTIVATIONS])
def test_activation(name, args, kwargs):
    x = rand(4, 3, 6) * 3
    check_parity(getattr(tnn, name)(*args, **kwargs), getattr(nn, name)(*args, **kwargs), x)


def test_inplace_activations():
    for name in ["ReLU", "LeakyReLU", "ELU", "SiLU", "Hardtanh", "ReLU6"]:
        x = ember.randn(5)
        expected = N(getattr(nn, name)()(x))
        out = getattr(nn, name)(inplace=True)(x)
        assert np.allclose(N(x), expected) and np.allclose(N(out), expected), name


def test_softmax_implicit_dim_warns():
    x = rand(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension"):
        out = nn.Softmax()(E(x))
    assert_close(out, TF.softmax(x, dim=1))


def test_flatten_unflatten():
    check_parity(tnn.Flatten(), nn.Flatten(), rand(2, 3, 4, 5))
    check_parity(tnn.Flatten(0, 2), nn.Flatten(0, 2), rand(2, 3, 4, 5))
    check_parity(tnn.Unflatten(1, (3, 4)), nn.Unflatten(1, (3, 4)), rand(2, 12, 5))
    check_parity(tnn.Unflatten(-1, (2, -1)), nn.Unflatten(-1, (2, -1)), rand(2, 12))


def test_dropout_train_eval():
    x = ember.ones(200, 100)
    d = nn.Dropout(0.3)
    y = N(d(x))
    zero_frac = float((y == 0).mean())
    assert 0.27 < zero_frac < 0.33
    assert np.allclose(y[y != 0], 1 / 0.7)
    d.eval()
    assert d(x) is x or np.array_equal(N(d(x)), N(x))
    assert np.array_equal(N(nn.Dropout(0.0)(x)), N(x))
    assert float(nn.Dropout(1.0)(x).abs().sum().item()) == 0.0
    with pytest.raises(ValueError, match="dropout probability"):
        nn.Dropout(1.5)
    d2 = nn.Dropout2d(0.5)
    y2 = N(d2(ember.ones(8, 50, 3, 3)))
    per_channel = y2.reshape(8, 50, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    assert 0.35 < float((per_channel[..., 0] == 0).mean()) < 0.65
    d2.eval()
    assert np.array_equal(N(d2(ember.ones(2, 3, 2, 2))), np.ones((2, 3, 2, 2), np.float32))
    y1 = N(nn.Dropout1d(0.5)(ember.ones(4, 40, 5)))
    assert np.all((y1 == 0).all(-1) | (y1 == 2).all(-1))
    # Gradients flow through the kept elements only, scaled like the values.
    xg = ember.ones(100, 50, requires_grad=True)
    out = F.dropout(xg, 0.5, training=True)
    out.sum().backward()
    assert np.array_equal(N(xg.grad), N(out.detach()))


MHA_CASES = [
    dict(ctor=dict(), call=dict()),
    dict(ctor=dict(batch_first=True), call=dict()),
    dict(ctor=dict(bias=False), call=dict(need_weights=False)),
    dict(ctor=dict(kdim=3, vdim=5), call=dict()),
    dict(ctor=dict(add_bias_kv=True), call=dict()),
    dict(ctor=dict(add_zero_attn=True), call=dict(average_attn_weights=False)),
    dict(ctor=dict(), call=dict(attn_mask="bool")),
    dict(ctor=dict(), call=dict(attn_mask="float", need_weights=False)),
    dict(ctor=dict(batch_first=True), call=dict(key_padding_mask=True)),
    dict(ctor=dict(batch_first=True), call=dict(key_padding_mask=True, attn_mask="bool", need_weights=False)),
    dict(ctor=dict(), call=dict(attn_mask="3d")),
    dict(ctor=dict(), call=dict(attn_mask="causal", is_causal=True, need_weights=False)),
    dict(ctor=dict(add_bias_kv=True, add_zero_attn=True), call=dict(key_padding_mask=True, attn_mask="float")),
]


@pytest.mark.parametrize("case", MHA_CASES, ids=[str(i) for i in range(len(MHA_CASES))])
def test_multihead_attention(case):
    E_, H, L, S, B = 8, 2, 4, 6, 3
    ctor = case["ctor"]
    t, e = tnn.MultiheadAttention(E_, H, **ctor), nn.MultiheadAttention(E_, H, **ctor)
    if t.in_proj_bias is not None:
        with torch.no_grad():  # torch initialises the biases to 0; make their gradients non-trivial
            t.in_proj_bias.normal_()
            t.out_proj.bias.normal_()
    bf = ctor.get("batch_first", False)
    kd, vd = ctor.get("kdim", E_), ctor.get("vdim", E_)
    q = rand(B, L, E_) if bf else rand(L, B, E_)
    k = rand(B, S, kd, seed=1) if bf else rand(S, B, kd, seed=1)
    v = rand(B, S, vd, seed=2) if bf else rand(S, B, vd, seed=2)
    call = dict(case["call"])
    kind = call.pop("attn_mask", None)
    gen = torch.Generator().manual_seed(5)
    if kind == "bool":
        mask = torch.rand(L, S, generator=gen) > 0.7
        mask[:, 0] = False
        call["attn_mask"] = mask
    elif kind == "float":
        call["attn_mask"] = torch.randn(L, S, generator=gen, dtype=torch.float64)
    elif kind == "3d":
        call["attn_mask"] = torch.randn(B * H, L, S, generator=gen, dtype=torch.float64)
    elif kind == "causal":
        call["attn_mask"] = torch.ones(L, S, dtype=torch.bool).triu(1)
    if call.pop("key_padding_mask", False):
        kpm = torch.zeros(B, S, dtype=torch.bool)
        kpm[0, -2:] = True
        kpm[2, 1] = True
        call["key_padding_mask"] = kpm
    tcall = dict(call)
    ecall = {key: (E(val) if isinstance(val, torch.Tensor) else val) for key, val in call.items()}

    # check_parity passes only positional inputs: close over the keyword arguments.
    class TW(tnn.Module):
        def __init__(self):
            super().__init__()
            self.m = t

        def forward(self, q, k, v):
            return self.m(q, k, v, **tcall)

    class EW(nn.Module):
        def __init__(self):
            super().__init__()
            self.m = e

        def forward(self, q, k, v):
            return self.m(q, k, v, **ecall)

    check_parity(TW(), EW(), q, k, v, rtol=1e-6, atol=1e-10)


def test_multihead_attention_self_attention_and_unbatched():
    t, e = tnn.MultiheadAttention(6, 3), nn.MultiheadAttention(6, 3)

    class TW(tnn.Module):
        def __init__(self):
            super().__init__()
            self.m = t

        def forward(self, x):
            return self.m(x, x, x)

    class EW(nn.Module):
        def __init__(self):
            super().__init__()
            self.m = e

        def forward(self, x):
            return self.m(x, x, x)

    check_parity(TW(), EW(), rand(5, 2, 6))
    check_parity(TW(), EW(), rand(5, 6))  # unbatched (L, E)
    t.eval()
    e.eval()
    with torch.no_grad():  # torch may take its fused fast path here; values still agree
        x = rand(2, 5, 6)
        tout = t(x, x, x)[0]
    assert_close(e(E(x), E(x), E(x))[0], tout)


def test_multihead_attention_dropout_runs():
    e = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = ember.randn(4, 2, 8)
    out, w = e(x, x, x)
    assert out.shape == (4, 2, 8) and w.shape == (2, 4, 4)
    e.eval()
    out1, _ = e(x, x, x)
    out2, _ = e(x, x, x)
    assert np.array_equal(N(out1), N(out2))


# ---- losses --------------------------------------------------------------------------------------


def _loss_parity(tloss, eloss, inp, target, rtol=1e-6, atol=1e-10):
    class TW(tnn.Module):
        def __init__(self):
            super().__init__()
            self.loss = tloss

        def forward(self, x):
            return self.loss(x, target)

    etarget = E(target)

    class EW(nn.Module):
        def __init__(self):
            super().__init__()
            self.loss = eloss

        def forward(self, x):
            return self.loss(x, etarget)

    check_parity(TW(), EW(), inp, rtol=rtol, atol=atol)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses(reduction):
    x, y = rand(4, 5), rand(4, 5, seed=1)
    _loss_parity(tnn.MSELoss(reduction=reduction), nn.MSELoss(reduction=reduction), x, y)
    _loss_parity(tnn.L1Loss(reduction=reduction), nn.L1Loss(reduction=reduction), x, y)
    _loss_parity(tnn.SmoothL1Loss(reduction=reduction), nn.SmoothL1Loss(reduction=reduction), x, y)
    _loss_parity(tnn.SmoothL1Loss(reduction=reduction, beta=0.3), nn.SmoothL1Loss(reduction=reduction, beta=0.3),
                 x, y)
    _loss_parity(tnn.HuberLoss(reduction=reduction, delta=0.5), nn.HuberLoss(reduction=reduction, delta=0.5), x, y)
    logp = TF.log_softmax(rand(4, 5), 1)
    tp = TF.softmax(rand(4, 5, seed=1), 1)
    red = "batchmean" if reduction == "mean" else reduction
    _loss_parity(tnn.KLDivLoss(reduction=red), nn.KLDivLoss(reduction=red), logp, tp)
    _loss_parity(tnn.KLDivLoss(reduction=red, log_target=True), nn.KLDivLoss(reduction=red, log_target=True), logp,
                 tp.log())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_classification_losses(reduction):
    logits = rand(6, 4)
    target = torch.tensor([0, 3, 1, 1, 2, 0])
    w = torch.tensor([0.5, 1.0, 2.0, 1.5], dtype=torch.float64)
    for kwargs in [dict(), dict(weight=w), dict(ignore_index=1), dict(label_smoothing=0.2),
                   dict(weight=w, label_smoothing=0.1, ignore_index=0)]:
        ekw = {k: (E(v) if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()}
        _loss_parity(tnn.CrossEntropyLoss(reduction=reduction, **kwargs),
                     nn.CrossEntropyLoss(reduction=reduction, **ekw), logits, target)
        if "label_smoothing" not in kwargs:
            _loss_parity(tnn.NLLLoss(reduction=reduction, **kwargs), nn.NLLLoss(reduction=reduction, **ekw),
                         TF.log_softmax(logits, 1), target)
    # K-dimensional targets and class-probability targets.
    _loss_parity(tnn.CrossEntropyLoss(reduction=reduction), nn.CrossEntropyLoss(reduction=reduction),
                 rand(2, 4, 3, 5), torch.randint(0, 4, (2, 3, 5), generator=torch.Generator().manual_seed(0)))
    probs = TF.softmax(rand(6, 4, seed=3), 1)
    _loss_parity(tnn.CrossEntropyLoss(reduction=reduction, label_smoothing=0.1),
                 nn.CrossEntropyLoss(reduction=reduction, label_smoothing=0.1), logits, probs)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_losses(reduction):
    p = torch.sigmoid(rand(4, 3))
    y = (rand(4, 3, seed=1) > 0).double()
    soft = torch.sigmoid(rand(4, 3, seed=2))
    w = torch.rand(4, 3, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
    _loss_parity(tnn.BCELoss(reduction=reduction), nn.BCELoss(reduction=reduction), p, y)
    _loss_parity(tnn.BCELoss(weight=w, reduction=reduction), nn.BCELoss(weight=E(w), reduction=reduction), p, soft)
    logits = rand(4, 3) * 4
    _loss_parity(tnn.BCEWithLogitsLoss(reduction=reduction), nn.BCEWithLogitsLoss(reduction=reduction), logits, soft)
    pw = torch.tensor([0.5, 2.0, 3.0], dtype=torch.float64)
    _loss_parity(tnn.BCEWithLogitsLoss(reduction=reduction, pos_weight=pw, weight=w[0]),
                 nn.BCEWithLogitsLoss(reduction=reduction, pos_weight=E(pw), weight=E(w[0])), logits, y)


def test_loss_buffers_and_legacy_args():
    t, e = tnn.CrossEntropyLoss(weight=torch.ones(3)), nn.CrossEntropyLoss(weight=ember.ones(3))
    assert list(e.state_dict()) == list(t.state_dict()) == ["weight"]
    assert list(nn.BCEWithLogitsLoss(pos_weight=ember.ones(2)).state_dict()) == ["pos_weight"]
    with pytest.warns(UserWarning):
        assert nn.MSELoss(size_average=False).reduction == "sum"
    with pytest.raises(ValueError, match="different to the input size"):
        F.binary_cross_entropy(ember.rand(3), ember.rand(3, 1))
    with pytest.warns(UserWarning, match="target size"):
        F.mse_loss(ember.rand(3, 1), ember.rand(3))


# ---- functional ---------------------------------------------------------------------------------


def _fparity(tfn, efn, *inputs, rtol=1e-6, atol=1e-10, **kwargs):
    """Compare a functional on float64 inputs (tensors in kwargs are converted too)."""

    ekw = {k: (E(v) if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()}

    class TW(tnn.Module):
        def forward(self, *xs):
            return tfn(*xs, **kwargs)

    class EW(nn.Module):
        def forward(self, *xs):
            return efn(*xs, **ekw)

    return check_parity(TW(), EW(), *inputs, rtol=rtol, atol=atol)


def test_sdpa():
    q, k, v = rand(2, 3, 4, 8), rand(2, 3, 6, 8, seed=1), rand(2, 3, 6, 5, seed=2)
    sdpa_t, sdpa_e = TF.scaled_dot_product_attention, F.scaled_dot_product_attention
    _fparity(sdpa_t, sdpa_e, q, k, v)
    _fparity(sdpa_t, sdpa_e, q, k, v, scale=0.3)
    bool_mask = torch.rand(4, 6, generator=torch.Generator().manual_seed(1)) > 0.5
    bool_mask[1] = False  # a fully masked row gives zeros, like torch's safe softmax
    _fparity(sdpa_t, sdpa_e, q, k, v, attn_mask=bool_mask)
    float_mask = rand(2, 1, 4, 6, seed=4)
    _fparity(sdpa_t, sdpa_e, q, k, v, attn_mask=float_mask)
    _fparity(sdpa_t, sdpa_e, q, k, v, is_causal=True)
    with pytest.raises(RuntimeError, match="should not be set when is_causal=True"):
        sdpa_e(E(q), E(k), E(v), attn_mask=E(float_mask), is_causal=True)
    _fparity(sdpa_t, sdpa_e, rand(2, 6, 4, 8), rand(2, 2, 6, 8, seed=1), rand(2, 2, 6, 8, seed=2),
             enable_gqa=True)
    _fparity(sdpa_t, sdpa_e, rand(5, 8), rand(7, 8, seed=1), rand(7, 3, seed=2))


def test_sdpa_dropout_statistics():
    q = ember.zeros(1, 1, 64, 8)
    v = ember.ones(1, 1, 64, 8)
    out = F.scaled_dot_product_attention(q, q, v, dropout_p=0.5)
    # Uniform attention, half dropped and the rest doubled: the rows average to about one.
    assert abs(float(out.mean().item()) - 1.0) < 0.15


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad(mode):
    x = rand(2, 3, 5, 6)
    for p in [(2, 1, 0, 3), (1, 1, 2, 2), (0, 4, 1, 0)]:
        _fparity(TF.pad, F.pad, x, pad=p, mode=mode)
    for p in [(1, 2), (3, 0)]:
        _fparity(TF.pad, F.pad, rand(2, 3, 5), pad=p, mode=mode)
    _fparity(TF.pad, F.pad, rand(2, 3, 4, 5, 6), pad=(1, 2, 0, 1, 2, 0), mode=mode)
    if mode == "constant":
        _fparity(TF.pad, F.pad, x, pad=(1, 2), value=-1.0)
        _fparity(TF.pad, F.pad, x, pad=(1, 2, 3, 0, 1, 1), value=2.5)
        _fparity(TF.pad, F.pad, x, pad=(-1, 2, 0, -2))
        _fparity(TF.pad, F.pad, rand(4), pad=(2, 3))
    if mode == "circular":
        _fparity(TF.pad, F.pad, x, pad=(-1, 2, 1, -2), mode=mode)


def test_functional_misc():
    x = rand(4, 5)
    _fparity(TF.normalize, F.normalize, x)
    _fparity(TF.normalize, F.normalize, x, p=1.0, dim=0)
    _fparity(TF.linear, F.linear, x, rand(3, 5, seed=1), rand(3, seed=2))
    _fparity(TF.layer_norm, F.layer_norm, x, (5,))
    _fparity(TF.group_norm, F.group_norm, rand(2, 6, 3), 3, rand(6, seed=1), rand(6, seed=2))
    _fparity(TF.rms_norm, F.rms_norm, x, (5,), rand(5, seed=1))
    _fparity(TF.gelu, F.gelu, x, approximate="tanh")
    _fparity(TF.relu, F.relu, x)
    _fparity(TF.silu, F.silu, x)
    _fparity(TF.softmax, F.softmax, x, dim=0)
    _fparity(TF.log_softmax, F.log_softmax, x, dim=-1)
    _fparity(TF.leaky_relu, F.leaky_relu, x, negative_slope=0.3)
    _fparity(TF.elu, F.elu, x * 30)  # large inputs: the unused branch must not poison the gradient
    _fparity(TF.softplus, F.softplus, x * 30)
    _fparity(TF.batch_norm, F.batch_norm, rand(4, 3, 2), running_mean=rand(3, seed=1),
             running_var=rand(3, seed=2).abs(), training=True)
    _fparity(TF.batch_norm, F.batch_norm, rand(4, 3, 2), running_mean=rand(3, seed=1),
             running_var=rand(3, seed=2).abs(), weight=rand(3, seed=3), bias=rand(3, seed=4))
    _fparity(TF.batch_norm, F.batch_norm, rand(4, 3, 2), running_mean=None, running_var=None, training=True)
    _fparity(TF.conv2d, F.conv2d, rand(1, 2, 5, 5), rand(3, 2, 3, 3, seed=1), stride=2, padding=1)
    _fparity(TF.conv_transpose2d, F.conv_transpose2d, rand(1, 4, 3, 3), rand(4, 3, 3, 3, seed=1), stride=2,
             groups=1)
    _fparity(TF.max_pool2d, F.max_pool2d, rand(1, 2, 6, 6), 2)
    _fparity(TF.avg_pool2d, F.avg_pool2d, rand(1, 2, 6, 6), 3, stride=1, padding=1)
    _fparity(TF.adaptive_avg_pool2d, F.adaptive_avg_pool2d, rand(1, 2, 7, 5), (3, 2))
    _fparity(TF.interpolate, F.interpolate, rand(1, 2, 3, 4), scale_factor=(2, 1.5))
    _fparity(TF.mse_loss, F.mse_loss, x, rand(4, 5, seed=1), weight=rand(4, 5, seed=2).abs())
    _fparity(TF.l1_loss, F.l1_loss, x, rand(4, 5, seed=1), reduction="sum")
    _fparity(TF.cross_entropy, F.cross_entropy, x, torch.tensor([0, 4, 2, 1]))
    _fparity(TF.nll_loss, F.nll_loss, x, torch.tensor([0, 4, 2, 1]), reduction="sum")
    _fparity(TF.embedding, F.embedding, torch.tensor([[0, 2], [3, 3]]), rand(4, 3), padding_idx=3)


def test_one_hot():
    idx = torch.tensor([[0, 3], [2, 1]])
    assert np.array_equal(N(F.one_hot(E(idx))), TF.one_hot(idx).numpy())
    assert np.array_equal(N(F.one_hot(E(idx), 6)), TF.one_hot(idx, 6).numpy())
    assert F.one_hot(E(idx)).dtype == ember.int64
    with pytest.raises(RuntimeError):
        F.one_hot(E(idx), 2)


def test_functional_dropout_and_errors():
    x = ember.ones(1000)
    assert F.dropout(x, 0.5, training=False) is x
    y = N(F.dropout(x, 0.5))
    assert 400 < (y == 0).sum() < 600
    x2 = ember.ones(100)
    F.dropout(x2, 0.5, inplace=True)
    assert 20 < (N(x2) == 0).sum() < 80
    with pytest.raises(ValueError):
        F.dropout(x, -0.1)
    with pytest.raises(ValueError, match="divisible by 2"):
        F.pad(x, (1,))
    with pytest.raises(RuntimeError):
        F.conv2d(ember.randn(1, 1, 4, 4), ember.randn(1, 1, 3, 3), stride=2, padding="same")


# ---- init -------------------------------------------------------------------------------------------


def test_calculate_gain_matches_torch():
    for nl in ["linear", "conv2d", "sigmoid", "tanh", "relu", "selu", "leaky_relu"]:
        assert init.calculate_gain(nl) == tnn.init.calculate_gain(nl)
    assert init.calculate_gain("leaky_relu", 0.2) == tnn.init.calculate_gain("leaky_relu", 0.2)
    with pytest.raises(ValueError):
        init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError):
        init.calculate_gain("swish")


def test_fan_computation():
    w = ember.empty(6, 4, 3, 5)
    assert init._calculate_fan_in_and_fan_out(w) == tnn.init._calculate_fan_in_and_fan_out(torch.empty(6, 4, 3, 5))
    with pytest.raises(ValueError):
        init._calculate_fan_in_and_fan_out(ember.empty(3))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(w, mode="fan_avg")


def _moments(t):
    a = N(t).astype(np.float64).ravel()
    return a.mean(), a.std(), a.min(), a.max()


def test_uniform_normal_constant_families():
    t = ember.empty(200, 100)
    mean, std, lo, hi = _moments(init.uniform_(t, -2.0, 3.0))
    assert -2.0 <= lo and hi <= 3.0 and abs(mean - 0.5) < 0.05 and abs(std - 5 / math.sqrt(12)) < 0.05
    mean, std, _, _ = _moments(init.normal_(t, 1.5, 0.5))
    assert abs(mean - 1.5) < 0.01 and abs(std - 0.5) < 0.01
    assert np.all(N(init.constant_(t, 0.25)) == 0.25)
    assert np.all(N(init.ones_(t)) == 1) and np.all(N(init.zeros_(t)) == 0)
    assert np.array_equal(N(init.eye_(ember.empty(3, 5))), np.eye(3, 5, dtype=np.float32))
    for shape, groups in [((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((4, 4, 3, 3, 3), 1)]:
        expected = tnn.init.dirac_(torch.empty(*shape), groups).numpy()
        assert np.array_equal(N(init.dirac_(ember.empty(*shape), groups)), expected)
    p = nn.Parameter(ember.empty(3, 3))
    init.normal_(p)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad  # filled without recording history


def test_xavier_kaiming():
    w = ember.empty(256, 128)
    fan_in, fan_out = 128, 256
    a = math.sqrt(6.0 / (fan_in + fan_out))
    _, std, lo, hi = _moments(init.xavier_uniform_(w))
    assert -a <= lo and hi <= a and abs(std - a / math.sqrt(3)) < 0.01 * a
    _, std, _, _ = _moments(init.xavier_normal_(w, gain=2.0))
    assert abs(std - 2.0 * math.sqrt(2.0 / (fan_in + fan_out))) < 0.02
    bound = math.sqrt(3.0) * math.sqrt(2.0) / math.sqrt(fan_in)
    _, std, lo, hi = _moments(init.kaiming_uniform_(w, nonlinearity="relu"))
    assert -bound <= lo and hi <= bound and hi > 0.95 * bound
    _, std, _, _ = _moments(init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"))
    assert abs(std - math.sqrt(2.0 / fan_out)) < 0.003
    conv = ember.empty(16, 8, 3, 3)
    _, _, lo, hi = _moments(init.kaiming_uniform_(conv, a=math.sqrt(5)))
    b = 1 / math.sqrt(8 * 9)  # kaiming_uniform_(a=sqrt(5)) == U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    assert -b <= lo and hi <= b and hi > 0.95 * b
    with pytest.warns(UserWarning, match="zero-element"):
        init.kaiming_uniform_(ember.empty(0, 3))


def test_trunc_normal_and_erfinv():
    x = torch.linspace(-0.999999, 0.999999, 2001, dtype=torch.float64)
    np.testing.assert_allclose(N(ember.erfinv(E(x))), torch.erfinv(x).numpy(), rtol=1e-12, atol=1e-12)
    t = ember.empty(100000)
    mean, std, lo, hi = _moments(init.trunc_normal_(t, mean=0.5, std=2.0, a=-1.0, b=3.0))
    ref = torch.distributions.Normal(0.5, 2.0)
    alpha, beta = (-1.0 - 0.5) / 2.0, (3.0 - 0.5) / 2.0
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    Z = float(ref.cdf(torch.tensor(3.0)) - ref.cdf(torch.tensor(-1.0)))
    exp_mean = 0.5 + 2.0 * (phi(alpha) - phi(beta)) / Z
    exp_var = 4.0 * (1 + (alpha * phi(alpha) - beta * phi(beta)) / Z - ((phi(alpha) - phi(beta)) / Z) ** 2)
    assert -1.0 <= lo and hi <= 3.0
    assert abs(mean - exp_mean) < 0.02 and abs(std - math.sqrt(exp_var)) < 0.02
    mean, std, lo, hi = _moments(init.trunc_normal_(ember.empty(50000, dtype=ember.float64), std=0.02))
    assert -2.0 <= lo and hi <= 2.0 and abs(std - 0.02) < 0.001  # far bounds: plain normal


@pytest.mark.parametrize("kwargs", [dict(std=0.02), dict(a=-1.0, b=1.0), dict(a=1.5, b=3.0),
                                    dict(std=5.0, a=-0.5, b=0.5), dict(mean=3.0, a=-2.0, b=2.0)])
def test_trunc_normal_draws_torchs_numbers(kwargs):
    # torch 2.13 samples by rejection (from the normal, or uniform proposals for narrow windows).
    ember.manual_seed(5)
    torch.manual_seed(5)
    mine = init.trunc_normal_(ember.empty(40, 7), **kwargs)
    theirs = torch.nn.init.trunc_normal_(torch.empty(40, 7), **kwargs)
    np.testing.assert_allclose(N(mine), theirs.numpy(), rtol=1e-5, atol=1e-7)


def test_orthogonal_and_sparse():
    for shape in [(6, 6), (4, 9), (9, 4), (3, 2, 2), (64, 3, 3, 3), (128, 128)]:
        w = init.orthogonal_(ember.empty(*shape), gain=2.0)
        m = N(w).reshape(shape[0], -1).astype(np.float64) / 2.0
        gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
        np.testing.assert_allclose(gram, np.eye(gram.shape[0]), atol=1e-5)
    s = init.sparse_(ember.empty(10, 6), sparsity=0.3)
    assert np.all((N(s) == 0).sum(0) >= 3)


def test_init_reproducibility_and_generator():
    ember.manual_seed(123)
    a = nn.Linear(8, 4)
    ember.manual_seed(123)
    b = nn.Linear(8, 4)
    assert np.array_equal(N(a.weight), N(b.weight)) and np.array_equal(N(a.bias), N(b.bias))
    c = nn.Linear(8, 4)
    assert not np.array_equal(N(a.weight), N(c.weight))
    g1, g2 = ember.Generator(), ember.Generator()
    g1.manual_seed(7)
    g2.manual_seed(7)
    for fn in [init.uniform_, init.normal_, init.xavier_uniform_, init.kaiming_normal_, init.trunc_normal_,
               init.orthogonal_]:
        x, y = fn(ember.empty(5, 4), generator=g1), fn(ember.empty(5, 4), generator=g2)
        assert np.array_equal(N(x), N(y)), fn.__name__


def test_default_layer_init_bounds():
    lin = nn.Linear(50, 30)
    b = 1 / math.sqrt(50)
    _, _, lo, hi = _moments(lin.weight)
    assert -b <= lo and hi <= b and hi > 0.9 * b
    _, _, lo, hi = _moments(lin.bias)
    assert -b <= lo and hi <= b
    conv = nn.Conv2d(4, 8, 3)
    b = 1 / math.sqrt(4 * 9)
    assert np.abs(N(conv.weight)).max() <= b and np.abs(N(conv.bias)).max() <= b
    emb = nn.Embedding(1000, 20)
    mean, std, _, _ = _moments(emb.weight)
    assert abs(mean) < 0.02 and abs(std - 1) < 0.02
    mha = nn.MultiheadAttention(8, 2)
    assert float(mha.in_proj_bias.abs().sum().item()) == 0.0 and float(mha.out_proj.bias.abs().sum().item()) == 0.0
    bn = nn.BatchNorm2d(3)
    assert np.all(N(bn.weight) == 1) and np.all(N(bn.bias) == 0)


# ---- nn.utils -----------------------------------------------------------------------------------------


def _grads_pair(seed=0):
    shapes = [(3, 4), (5,), (2, 2, 2)]
    tps, eps_ = [], []
    for i, s in enumerate(shapes):
        g = rand(*s, seed=seed + i) * (i + 1)
        tp = torch.zeros(s, dtype=torch.float64, requires_grad=True)
        tp.grad = g.clone()
        ep = nn.Parameter(ember.zeros(list(s), dtype=ember.float64))
        ep.grad = E(g)
        tps.append(tp)
        eps_.append(ep)
    return tps, eps_


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf, "inf"])
def test_clip_grad_norm(norm_type):
    tps, eps_ = _grads_pair()
    tn = tnn.utils.clip_grad_norm_(tps, 1.5, norm_type=norm_type)
    en = nn.utils.clip_grad_norm_(eps_, 1.5, norm_type=norm_type)
    assert_close(en, tn)
    for tp, ep in zip(tps, eps_):
        assert_close(ep.grad, tp.grad)
    tps, eps_ = _grads_pair()
    tn = tnn.utils.clip_grad_norm_(tps, 1e6, norm_type=norm_type)  # no clipping needed
    en = nn.utils.clip_grad_norm_(eps_, 1e6, norm_type=norm_type)
    for tp, ep in zip(tps, eps_):
        assert_close(ep.grad, tp.grad)


def test_clip_grad_norm_edge_cases():
    p = nn.Parameter(ember.ones(3))
    assert float(nn.utils.clip_grad_norm_([p], 1.0).item()) == 0.0  # no grads at all
    p.grad = ember.tensor([float("inf"), 1.0, 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    nn.utils.clip_grad_norm_(p, 1.0)  # allowed without the flag
    q = nn.Parameter(ember.ones(2))
    q.grad = ember.tensor([3.0, 4.0])
    assert abs(float(nn.utils.clip_grad_norm_(q, 1.0).item()) - 5.0) < 1e-6
    assert np.allclose(N(q.grad), [0.6, 0.8], atol=1e-5)


def test_clip_grad_value_and_vector_conversion():
    tps, eps_ = _grads_pair()
    tnn.utils.clip_grad_value_(tps, 0.7)
    nn.utils.clip_grad_value_(eps_, 0.7)
    for tp, ep in zip(tps, eps_):
        assert_close(ep.grad, tp.grad)
    m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    vec = nn.utils.parameters_to_vector(m.parameters())
    assert vec.shape == (3 * 2 + 2 + 2 + 1,)
    nn.utils.vector_to_parameters(ember.arange(11, dtype=ember.float32), m.parameters())
    assert np.array_equal(N(m[0].weight).ravel(), np.arange(6, dtype=np.float32))
    assert np.array_equal(N(m[1].bias), [10.0])
    assert isinstance(m[0].weight, nn.Parameter)
    with pytest.raises(TypeError):
        nn.utils.vector_to_parameters([1.0], m.parameters())


# ---- training ---------------------------------------------------------------------------------------------


def test_tiny_training_loop_loss_falls():
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.LayerNorm(16), nn.Linear(16, 3))
    x = ember.randn(64, 4)
    true_w = ember.randn(4, 3)
    y = (x @ true_w).argmax(-1)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _ in range(60):
        model.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        with ember.no_grad():
            for p in model.parameters():
                p -= 0.5 * p.grad
        losses.append(float(loss.item()))
    assert losses[-1] < 0.5 * losses[0]
    acc = float((model(x).argmax(-1) == y).float().mean().item())
    assert acc > 0.8


def test_conv_training_step_matches_torch():
    """Two SGD steps of a small CNN (conv, bn, pool, linear) give torch's weights."""
    tm = tnn.Sequential(tnn.Conv2d(1, 4, 3, padding=1), tnn.BatchNorm2d(4), tnn.ReLU(), tnn.MaxPool2d(2),
                        tnn.Flatten(), tnn.Dropout(0.0), tnn.Linear(4 * 3 * 3, 3)).double()
    em = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                       nn.Flatten(), nn.Dropout(0.0), nn.Linear(4 * 3 * 3, 3)).double()
    em.load_state_dict(ember_state_dict(tm))
    x = rand(5, 1, 6, 6)
    y = torch.tensor([0, 2, 1, 1, 0])
    for _ in range(2):
        for mod, inp, tgt, lib_f in ((tm, x, y, TF), (em, E(x), E(y), F)):
            mod.zero_grad()
            lib_f.cross_entropy(mod(inp), tgt).backward()
            with (torch.no_grad() if mod is tm else ember.no_grad()):
                for p in mod.parameters():
                    p -= 0.1 * p.grad
    for (k, tv), (k2, ev) in zip(tm.state_dict().items(), em.state_dict().items()):
        assert k == k2
        assert_close(ev, tv, rtol=1e-6, atol=1e-9, msg=k)


@pytest.mark.parametrize("kwargs", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                    dict(kernel_size=(3, 2), stride=1, dilation=2)])
def test_max_pool2d_return_indices_matches_torch(kwargs):
    x = torch.randn(2, 3, 9, 8, dtype=torch.float64)
    x[0, 0, 0, 0] = float("nan")  # NaN wins its window, as in torch
    out, idx = F.max_pool2d(E(x), return_indices=True, **kwargs)
    ref, ref_idx = torch.nn.functional.max_pool2d(x, return_indices=True, **kwargs)
    np.testing.assert_allclose(N(out), ref.numpy(), equal_nan=True)
    np.testing.assert_array_equal(N(idx), ref_idx.numpy())
    xe = E(x.nan_to_num()).requires_grad_()
    nn.MaxPool2d(return_indices=True, **kwargs)(xe)[0].sum().backward()
    xt = x.nan_to_num().requires_grad_()
    torch.nn.functional.max_pool2d(xt, **kwargs).sum().backward()
    np.testing.assert_allclose(N(xe.grad), xt.grad.numpy())
    small = E(x[:1, :1].nan_to_num()).requires_grad_()
    assert ember.autograd.gradcheck(lambda t: F.max_pool2d(t, return_indices=True, **kwargs)[0], (small,))
    assert ember.autograd.gradgradcheck(lambda t: F.max_pool2d(t, **kwargs), (small,))


def test_max_pool1d_return_indices_matches_torch():
    x = torch.randn(2, 3, 11, dtype=torch.float64)
    out, idx = F.max_pool1d(E(x), 3, 2, return_indices=True)
    ref, ref_idx = torch.nn.functional.max_pool1d(x, 3, 2, return_indices=True)
    np.testing.assert_allclose(N(out), ref.numpy())
    np.testing.assert_array_equal(N(idx), ref_idx.numpy())
