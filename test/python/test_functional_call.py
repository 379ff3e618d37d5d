"""ember.func.functional_call (and nn.utils.stateless's older spelling)
against torch: other parameters and buffers for one call, gradients to
them, the module left as it was, tied weights, strict checking."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Tanh(), lib.nn.Linear(4, 2))


def test_matches_torch_and_leaves_the_module_alone():
    results = []
    for lib in (ember, torch):
        m = model(lib)
        before = {k: v.clone() for k, v in m.state_dict().items()}
        fast = {name: (p * 0.5).detach().requires_grad_() for name, p in m.named_parameters()}
        fast["1.running_mean"] = lib.ones(4)
        x = lib.tensor(np.linspace(-1, 1, 15).reshape(5, 3), dtype=lib.float32)
        out = lib.func.functional_call(m.eval(), fast, (x,))
        out.sum().backward()
        assert all(lib.equal(v, before[k]) for k, v in m.state_dict().items())
        assert all(p.grad is None for p in m.parameters())
        results.append([out.detach().numpy()] + [fast[n].grad.numpy() for n in sorted(fast) if n != "1.running_mean"])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


def test_tied_weights_follow_their_alias():
    m = ember.nn.Sequential(ember.nn.Linear(2, 2, bias=False), ember.nn.Linear(2, 2, bias=False))
    m[1].weight = m[0].weight
    out = ember.func.functional_call(m, {"0.weight": ember.eye(2) * 2}, ember.ones(1, 2))
    assert out.tolist() == [[4.0, 4.0]]
    untied = ember.func.functional_call(m, {"0.weight": ember.eye(2) * 2}, ember.ones(1, 2), tie_weights=False)
    assert untied.tolist() != out.tolist()


def test_errors_match_torch():
    for lib in (ember, torch):
        m = lib.nn.Linear(2, 2)
        with pytest.raises(RuntimeError, match="Unexpected key\\(s\\): 'nope'.\n\tMissing key\\(s\\): 'bias'."):
            lib.func.functional_call(m, {"weight": lib.ones(2, 2), "nope": lib.ones(1)}, lib.ones(2), strict=True)
        with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
            lib.func.functional_call(m, ({"weight": lib.ones(2, 2)}, {"weight": lib.ones(2, 2)}), lib.ones(2))


def test_stateless_spelling_warns():
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        out = ember.nn.utils.stateless.functional_call(ember.nn.Linear(2, 1), {"weight": ember.ones(1, 2),
                                                                                  "bias": ember.zeros(1)},
                                                       (ember.ones(2),))
    assert out.tolist() == [2.0]
