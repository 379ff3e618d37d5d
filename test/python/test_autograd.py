"""Autograd semantics, checked against PyTorch.

Every check that can runs the same code on the ``ember`` and the ``torch``
module (inputs go through NumPy), then compares values, gradients, hook call
orders and error messages. Error messages must match torch's word for word
once ``torch.`` is read as ``ember.`` (``torch.FloatTensor [3]`` is
``ember.FloatTensor [3]`` in Ember).

Ember never imports torch; only this test does, as an oracle.
"""

import gc
import sys
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

MODULES = [ember, torch]
RNG = np.random.default_rng(1234)


@pytest.fixture(autouse=True)
def clean_modes():
    """Each test starts with grad mode on and anomaly mode off, and a test
    that leaks a mode change has it undone (so one bug does not fail the rest)."""
    for m in MODULES:
        m.set_grad_enabled(True)
    ember.autograd.set_detect_anomaly(False)
    torch.autograd.set_detect_anomaly(False)
    yield
    for m in MODULES:
        m.set_grad_enabled(True)
    ember.autograd.set_detect_anomaly(False)
    torch.autograd.set_detect_anomaly(False)


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def arr(*shape, dtype=np.float32, low=None):
    """A random NumPy array (positive when ``low`` is given)."""
    a = RNG.standard_normal(shape)
    if low is not None:
        a = np.abs(a) + low
    return np.asarray(a, dtype=dtype)


def leaf(m, values, requires_grad=True, dtype=None):
    """A leaf tensor of module ``m`` holding ``values`` (a fresh copy)."""
    a = np.array(values, dtype=dtype if dtype is not None else np.asarray(values).dtype, copy=True)
    if a.dtype == np.float64 and dtype is None and not isinstance(values, np.ndarray):
        a = a.astype(np.float32)  # python lists of floats: float32 like m.tensor
    t = m.from_numpy(a)
    if requires_grad:
        t.requires_grad_()
    return t


def npy(t):
    return None if t is None else np.array(t.detach().numpy(), copy=True)


def assert_close(e, t, rtol=1e-5, atol=1e-6, what=""):
    """ember tensor ``e`` has torch tensor ``t``'s values, shape and dtype (None matches None)."""
    if t is None or e is None:
        assert e is None and t is None, f"{what}: ember {e!r} vs torch {t!r}"
        return
    assert tuple(e.shape) == tuple(t.shape), f"{what}: shape {tuple(e.shape)} vs {tuple(t.shape)}"
    assert str(e.dtype).rsplit(".", 1)[-1] == str(t.dtype).rsplit(".", 1)[-1], f"{what}: {e.dtype} vs {t.dtype}"
    np.testing.assert_allclose(npy(e), npy(t), rtol=rtol, atol=atol, err_msg=what)


def run_both(fn):
    """(fn(ember), fn(torch))."""
    return fn(ember), fn(torch)


def check_grads(fn, *arrays, grad_output=None, rtol=1e-5, atol=1e-6):
    """Runs ``out = fn(m, *leaves)`` and backward on both modules; compares
    the outputs and every leaf's .grad. Returns (ember leaves, torch leaves)."""
    results = {}
    for m in MODULES:
        leaves = [leaf(m, a) for a in arrays]
        out = fn(m, *leaves)
        if grad_output is None:
            out.backward()
        else:
            out.backward(m.from_numpy(np.array(grad_output, copy=True)))
        results[m] = (out, leaves)
    (eo, el), (to, tl) = results[ember], results[torch]
    assert_close(eo, to, rtol, atol, "output")
    for i, (e, t) in enumerate(zip(el, tl)):
        assert_close(e.grad, t.grad, rtol, atol, f"grad of input {i}")
    return el, tl


def node_name(node):
    """A graph node's name without torch's C++ namespace: torch names some
    nodes ``torch::autograd::AccumulateGrad`` / ``torch::autograd::CopySlices``,
    Ember ``AccumulateGrad`` / ``CopySlices``."""
    return None if node is None else node.name().replace("torch::autograd::", "")


def msg(m, exc):
    """An exception's message, with torch's module name written as ember's."""
    text = str(exc).replace("torch::autograd::", "")
    return text.replace("torch.", "ember.") if m is torch else text


def raises_both(fn, error=RuntimeError):
    """fn(m) raises ``error`` for both modules; returns (ember message, torch
    message with torch. read as ember.)."""
    out = []
    for m in MODULES:
        with pytest.raises(error) as info:
            fn(m)
        assert isinstance(info.value, error), f"{m.__name__}: {type(info.value).__name__}: {info.value}"
        out.append(msg(m, info.value))
    return tuple(out)


def assert_same_error(fn, error=RuntimeError):
    e, t = raises_both(fn, error)
    assert e == t
    return e


# --------------------------------------------------------------------------
# 1. basic backward
# --------------------------------------------------------------------------


class TestBasicBackward:
    def test_scalar_loss(self):
        check_grads(lambda m, x, y: (x * y + x.sin() * y.exp() - y / (x * x + 1)).sum(), arr(3, 4), arr(3, 4))

    def test_leaf_attributes(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            assert x.is_leaf and x.requires_grad and x.grad_fn is None and x.grad is None
            y = x * 2
            assert not y.is_leaf and y.requires_grad and y.grad_fn is not None
            c = leaf(m, [1.0, 2.0], requires_grad=False)
            assert c.is_leaf and not c.requires_grad
            z = c * 3
            assert z.is_leaf and not z.requires_grad and z.grad_fn is None
            assert (c + x).requires_grad

    def test_factory_requires_grad(self):
        for m in MODULES:
            for t in (m.ones(2, 3, requires_grad=True), m.zeros(2, requires_grad=True),
                      m.randn(3, requires_grad=True), m.tensor([1.0, 2.0], requires_grad=True),
                      m.full((2,), 3.0, requires_grad=True)):
                assert t.requires_grad and t.is_leaf and t.grad_fn is None

    def test_non_scalar_with_gradient(self):
        g = arr(3, 4)
        check_grads(lambda m, x: x.exp() * x, arr(3, 4), grad_output=g)

    def test_grad_fn_names(self):
        def names(m):
            x = leaf(m, arr(3))
            return [node_name(t.grad_fn) for t in (x * 2, x + x, x.sum(), x.exp(), x[1:], x.view(3, 1),
                                                   x.clone(), x ** 2, x.unsqueeze(0))]

        assert_equal_lists(*run_both(names))

    def test_next_functions(self):
        def structure(m):
            x = leaf(m, arr(3))
            c = leaf(m, arr(3), requires_grad=False)
            y = (x * c).sum()
            mul = y.grad_fn.next_functions[0][0]
            nf = mul.next_functions
            assert nf[0][0].variable is x
            return (node_name(y.grad_fn), [(node_name(f), n) for f, n in y.grad_fn.next_functions],
                    [(node_name(f), n) for f, n in nf])

        e, t = run_both(structure)
        assert e == t

    def test_accumulates_over_two_backward_calls(self):
        a = arr(5)
        res = {}
        for m in MODULES:
            x = leaf(m, a)
            (x * x).sum().backward()
            first = npy(x.grad)
            (x.sin()).sum().backward()
            res[m] = (first, x.grad)
        np.testing.assert_allclose(res[ember][0], res[torch][0], rtol=1e-6)
        assert_close(res[ember][1], res[torch][1])

    def test_grad_reset_to_none_and_set(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0, 3.0])
            (x * 2).sum().backward()
            x.grad = None
            (x * 3).sum().backward()
            np.testing.assert_allclose(npy(x.grad), [3, 3, 3])
            x.grad = m.ones(3)
            (x * 3).sum().backward()
            np.testing.assert_allclose(npy(x.grad), [4, 4, 4])

    def test_grad_set_wrong_shape_errors(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            x.grad = m.ones(2)

        assert_same_error(f)

    @pytest.mark.parametrize("shapes", [((3, 1), (4,)), ((2, 3, 4), (3, 1)), ((), (2, 3)), ((1, 5), (4, 1)),
                                        ((2, 1, 3), (2, 4, 1))])
    def test_broadcasting_grads_reduced_to_input_shape(self, shapes):
        a, b = arr(*shapes[0]), arr(*shapes[1])
        el, _ = check_grads(lambda m, x, y: (x * y + x - y).pow(2).sum(), a, b)
        assert tuple(el[0].grad.shape) == shapes[0] and tuple(el[1].grad.shape) == shapes[1]

    def test_expand_grad_reduced(self):
        check_grads(lambda m, x: (x.expand(3, 4) * x.expand(3, 4)).sum(), arr(3, 1))

    def test_mixed_dtypes(self):
        a32, b64 = arr(3), arr(3, dtype=np.float64)
        el, tl = check_grads(lambda m, x, y: (x * y + x.exp()).sum(), a32, b64)
        assert el[0].grad.dtype == ember.float32
        assert el[1].grad.dtype == ember.float64

    def test_mixed_dtype_chain_downcast(self):
        # float64 -> float32 cast in the middle: the float64 leaf gets float64 grads.
        el, _ = check_grads(lambda m, x: (x.float() * 3).sum(), arr(4, dtype=np.float64))
        assert el[0].grad.dtype == ember.float64

    def test_same_input_used_twice(self):
        check_grads(lambda m, x: (x * x + x * x.sin() + x).sum(), arr(4))

    def test_diamond_graph(self):
        def f(m, x):
            h = x * 2
            a = h.exp()
            b = h.sin()
            return (a * b + h).sum()

        check_grads(f, arr(5))

    def test_integer_tensors_cannot_require_grad(self):
        e = assert_same_error(lambda m: m.tensor([1, 2], requires_grad=True))
        assert "Only Tensors of floating point and complex dtype can require gradients" in e
        assert_same_error(lambda m: m.tensor([1, 2]).requires_grad_())
        assert_same_error(lambda m: setattr(m.tensor([1, 2]), "requires_grad", True))
        assert_same_error(lambda m: m.ones(2, dtype=m.int64, requires_grad=True))
        for m in MODULES:  # False is always fine
            t = m.tensor([1, 2]).requires_grad_(False)
            assert not t.requires_grad

    def test_integer_outputs_do_not_require_grad(self):
        for m in MODULES:
            x = leaf(m, [3.0, 1.0, 2.0])
            i = x.argmax()
            assert not i.requires_grad and i.grad_fn is None
            assert not (x > 1).requires_grad

    def test_implicit_grad_only_for_scalars(self):
        e = assert_same_error(lambda m: (leaf(m, [1.0, 2.0]) * 2).backward())
        assert e == "grad can be implicitly created only for scalar outputs"

    def test_implicit_grad_for_one_element_non_scalar(self):
        # a 1-element non-0-d output: torch allows an implicit grad for it
        for m in MODULES:
            x = leaf(m, [2.0])
            (x * 3).backward()
            np.testing.assert_allclose(npy(x.grad), [3.0])

    def test_does_not_require_grad(self):
        e = assert_same_error(lambda m: m.ones(3).sum().backward())
        assert e == "element 0 of tensors does not require grad and does not have a grad_fn"
        assert_same_error(lambda m: m.autograd.grad(m.ones(3).sum(), [leaf(m, [1.0])]))

    def test_wrong_gradient_shape(self):
        e = assert_same_error(lambda m: (leaf(m, [1.0, 2.0, 3.0]) * 2).backward(m.ones(2)))
        assert "Mismatch in shape" in e

    def test_autograd_backward_multiple_roots(self):
        g1, g2 = arr(3), arr(3)

        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            y1, y2 = x * x, x.exp()
            m.autograd.backward([y1, y2], [m.from_numpy(g1.copy()), m.from_numpy(g2.copy())])
            return x.grad

        assert_close(*run_both(f))

    def test_autograd_backward_scalar_root_without_grad_tensors(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            m.autograd.backward((x * x).sum())
            return x.grad

        assert_close(*run_both(f))

    def test_backward_on_leaf_itself(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            x.backward(m.ones(2) * 3)
            return x.grad

        assert_close(*run_both(f))

    def test_zero_dim_and_empty(self):
        check_grads(lambda m, x: x * x * 3, np.array(2.0, dtype=np.float32))
        check_grads(lambda m, x: (x * 2).sum(), np.zeros((0, 3), dtype=np.float32))


def assert_equal_lists(a, b):
    assert a == b


# --------------------------------------------------------------------------
# gradients through small graphs of several ops, vs torch (the gradients of
# each op alone are the operator database's: test_ops_grad.py)
# --------------------------------------------------------------------------

GRAPHS = {
    "add_sub_mul_div": (lambda m, x, y: (x + y) * (x - y) / (y * y + 1), [(3, 4), (3, 4)]),
    "pow_scalar": (lambda m, x: x.abs().pow(2.5), [(6,)]),
    "pow_tensor": (lambda m, x, y: x.abs().add(0.5).pow(y), [(5,), (5,)]),
    "exp_log": (lambda m, x: (x.exp() + 1).log(), [(6,)]),
    "trig": (lambda m, x: x.sin() * x.cos() + x.tanh(), [(6,)]),
    "sigmoid_relu": (lambda m, x: x.sigmoid() + x.relu(), [(6,)]),
    "sqrt_rsqrt": (lambda m, x: x.abs().add(0.1).sqrt() + x.abs().add(0.1).rsqrt(), [(6,)]),
    "neg_reciprocal": (lambda m, x: (-x).abs().add(0.5).reciprocal(), [(6,)]),
    "mm_t": (lambda m, x, y: x.mm(y.t()), [(3, 4), (2, 4)]),
    "sum_dim": (lambda m, x: x.sum(1) * x.sum(0, keepdim=True).sum(), [(3, 4)]),
    "mean": (lambda m, x: x.mean(0) + x.mean(), [(3, 4)]),
    "views": (lambda m, x: x.view(2, 6).t().reshape(3, 4)[1:, ::2].unsqueeze(0).squeeze(0).transpose(0, 1), [(3, 4)]),
    "permute_flatten": (lambda m, x: x.permute(2, 0, 1).flatten(), [(2, 3, 4)]),
    "select_narrow": (lambda m, x: x.select(0, 1) * x.narrow(1, 1, 2).sum(0).sum(), [(3, 4)]),
    "index_int": (lambda m, x: x[1] * x[:, 2].sum() + x[-1, -1], [(3, 4)]),
    "split_unbind": (lambda m, x: x.split(2)[1].sum(0) + x.unbind(0)[0], [(4, 3)]),
    "chunk": (lambda m, x: x.chunk(2, 1)[0] * 2, [(3, 4)]),
    "maximum_where": (lambda m, x, y: x.maximum(y) + x.where(x > 0, y), [(6,), (6,)]),
    "softmax": (lambda m, x: x.softmax(1) * x.log_softmax(1), [(3, 4)]),
    "cumsum_prod": (lambda m, x: x.cumsum(0) + x.prod(0), [(3, 4)]),
    "var_std": (lambda m, x: x.var(1) + x.std(0).sum(), [(3, 4)]),
    "masked_fill": (lambda m, x: x.masked_fill(x > 0, 0.0) * 2, [(3, 4)]),
    "expand_as": (lambda m, x, y: x.expand_as(y) * y, [(1, 4), (3, 4)]),
    "norm": (lambda m, x: x.norm() * x, [(5,)]),
    "type_conversion": (lambda m, x: x.double().float() * 2, [(5,)]),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_graph_grads_match_torch(name):
    fn, shapes = GRAPHS[name]
    arrays = [arr(*s) for s in shapes]

    def loss(m, *xs):
        out = fn(m, *xs)
        w = m.from_numpy(np.linspace(-1, 1, max(out.numel(), 1), dtype=np.float32).reshape(tuple(out.shape)).copy())
        return (out * w).sum()

    check_grads(loss, *arrays, rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------
# 2. retain_graph, create_graph, autograd.grad, inputs=
# --------------------------------------------------------------------------


class TestRetainGraph:
    def test_second_backward_without_retain_graph_errors(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = (x.exp() * x).sum()
            y.backward()
            y.backward()

        e = assert_same_error(f)
        assert e.startswith("Trying to backward through the graph a second time")

    def test_second_autograd_grad_without_retain_graph_errors(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = (x * x).sum()
            m.autograd.grad(y, x)
            m.autograd.grad(y, x)

        assert_same_error(f)

    def test_saved_tensors_freed_after_backward_partial_graph(self):
        # Freeing applies to the part of the graph that ran.
        def f(m):
            x = leaf(m, [1.0, 2.0])
            h = x.exp()
            y1 = (h * 2).sum()
            y2 = (h * h).sum()
            y1.backward()  # frees ExpBackward0's saved result
            y2.backward()

        assert_same_error(f)

    def test_retain_graph_allows_second_backward(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = (x.exp() * x).sum()
            y.backward(retain_graph=True)
            first = npy(x.grad)
            y.backward()
            return first, x.grad

        (e1, e2), (t1, t2) = run_both(f)
        np.testing.assert_allclose(e1, t1, rtol=1e-6)
        assert_close(e2, t2)
        np.testing.assert_allclose(npy(e2), 2 * e1, rtol=1e-6)

    def test_no_saved_tensors_second_backward_is_fine(self):
        # torch only complains when a freed saved tensor is needed.
        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = (x + 1).sum()
            y.backward()
            y.backward()
            return x.grad

        assert_close(*run_both(f))

    def test_saved_tensor_access_after_free(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = x.exp()
            y.sum().backward()
            return y.grad_fn.next_functions  # fine: no saved tensor accessed

        run_both(f)


class TestHigherOrder:
    def test_second_derivative_cube(self):
        def f(m):
            x = leaf(m, [1.0, -2.0, 3.0])
            y = (x ** 3).sum()
            (g,) = m.autograd.grad(y, x, create_graph=True)
            assert g.requires_grad and g.grad_fn is not None
            (g2,) = m.autograd.grad(g.sum(), x, create_graph=True)
            (g3,) = m.autograd.grad(g2.sum(), x)
            return g, g2, g3

        e, t = run_both(f)
        for a, b in zip(e, t):
            assert_close(a, b)
        np.testing.assert_allclose(npy(e[1]), [6.0, -12.0, 18.0])
        np.testing.assert_allclose(npy(e[2]), [6.0, 6.0, 6.0])

    def test_second_derivative_sin(self):
        a = arr(5)

        def f(m):
            x = leaf(m, a)
            (g,) = m.autograd.grad(x.sin().sum(), x, create_graph=True)
            (g2,) = m.autograd.grad(g.sum(), x)
            return g, g2

        e, t = run_both(f)
        assert_close(e[0], t[0])
        assert_close(e[1], t[1])
        np.testing.assert_allclose(npy(e[1]), -np.sin(a), rtol=1e-5, atol=1e-6)

    def test_create_graph_backward_then_backward_of_grad(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            (x ** 3).sum().backward(create_graph=True)
            g = x.grad
            assert g.requires_grad
            first = npy(g)
            g.sum().backward()
            return first, x.grad

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns about the reference cycle
            (e1, e2), (t1, t2) = run_both(f)
        np.testing.assert_allclose(e1, t1)
        assert_close(e2, t2)

    def test_mlp_gradient_penalty(self):
        xs, w1, b1, w2 = arr(4, 3), arr(3, 5), arr(5), arr(5, 1)

        def f(m):
            x, W1, B1, W2 = leaf(m, xs), leaf(m, w1), leaf(m, b1), leaf(m, w2)
            h = (x.matmul(W1) + B1).tanh()
            out = h.matmul(W2).sum()
            gx, gw1 = m.autograd.grad(out, [x, W1], create_graph=True)
            penalty = (gx * gx).sum() + (gw1 ** 2).sum()
            (out + penalty).backward()
            return gx, gw1, x.grad, W1.grad, B1.grad, W2.grad

        e, t = run_both(f)
        for i, (a, b) in enumerate(zip(e, t)):
            assert_close(a, b, rtol=1e-4, atol=1e-5, what=f"result {i}")

    def test_hessian_vector_product(self):
        a, v = arr(4), arr(4)

        def f(m):
            x = leaf(m, a)
            y = (x.exp() * x.sin()).sum() + (x.matmul(x)) ** 2
            (g,) = m.autograd.grad(y, x, create_graph=True)
            (hv,) = m.autograd.grad(g, x, grad_outputs=m.from_numpy(v.copy()))
            return hv

        assert_close(*run_both(f), rtol=1e-4, atol=1e-5)

    def test_without_create_graph_grad_does_not_require_grad(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            (g,) = m.autograd.grad((x ** 3).sum(), x)
            assert not g.requires_grad and g.grad_fn is None

    def test_double_backward_of_non_smooth_ops(self):
        a = arr(6)

        def f(m):
            x = leaf(m, a)
            y = (x.relu() * x.abs() * x.clamp(-0.3, 0.3) + x.sigmoid() * x.softmax(0)).sum()
            (g,) = m.autograd.grad(y, x, create_graph=True)
            (g2,) = m.autograd.grad((g * g).sum(), x)
            return g, g2

        e, t = run_both(f)
        assert_close(e[0], t[0], rtol=1e-4, atol=1e-5)
        assert_close(e[1], t[1], rtol=1e-4, atol=1e-5)


class TestAutogradGrad:
    def test_values_and_no_accumulation(self):
        a, b = arr(3), arr(3)

        def f(m):
            x, y = leaf(m, a), leaf(m, b)
            gx, gy = m.autograd.grad((x * y.exp()).sum(), [x, y])
            assert x.grad is None and y.grad is None
            return gx, gy

        e, t = run_both(f)
        assert_close(e[0], t[0])
        assert_close(e[1], t[1])

    def test_returns_tuple_for_single_input(self):
        for m in MODULES:
            x = leaf(m, [1.0])
            r = m.autograd.grad((x * 2).sum(), x)
            assert isinstance(r, tuple) and len(r) == 1

    def test_grad_outputs(self):
        g = arr(2, 3)

        def f(m):
            x = leaf(m, np.ones((2, 3), dtype=np.float32))
            return m.autograd.grad(x * x.exp(), x, grad_outputs=m.from_numpy(g.copy()))[0]

        assert_close(*run_both(f))

    def test_unused_input_errors(self):
        def f(m):
            x, y = leaf(m, [1.0]), leaf(m, [2.0])
            m.autograd.grad((x * 2).sum(), [x, y])

        # torch 2.13: "The differentiated Tensor at index 1 appears to not have been used in the graph. ..."
        # (older torch: "One of the differentiated Tensors appears ...")
        e = assert_same_error(f)
        assert "appears to not have been used in the graph" in e

    def test_allow_unused(self):
        for m in MODULES:
            x, y = leaf(m, [1.0]), leaf(m, [2.0])
            gx, gy = m.autograd.grad((x * 2).sum(), [x, y], allow_unused=True)
            assert gy is None
            np.testing.assert_allclose(npy(gx), [2.0])

    def test_materialize_grads(self):
        for m in MODULES:
            x, y = leaf(m, [1.0]), leaf(m, [2.0, 3.0])
            gx, gy = m.autograd.grad((x * 2).sum(), [x, y], materialize_grads=True)
            np.testing.assert_allclose(npy(gy), [0.0, 0.0])
            assert tuple(gy.shape) == (2,)

    def test_grad_wrt_non_leaf(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            h = x * x
            y = (h.exp()).sum()
            return m.autograd.grad(y, h)[0]

        assert_close(*run_both(f))

    def test_input_not_requiring_grad_errors(self):
        def f(m):
            x = leaf(m, [1.0])
            c = leaf(m, [1.0], requires_grad=False)
            m.autograd.grad((x * c).sum(), [c])

        assert_same_error(f)

    def test_retain_graph_defaults_to_create_graph(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            y = (x.exp()).sum()
            m.autograd.grad(y, x, create_graph=True)
            m.autograd.grad(y, x)  # graph was retained

    def test_grad_does_not_run_unneeded_hooks(self):
        # autograd.grad(y, h) must not accumulate into leaves nor call their hooks
        for m in MODULES:
            calls = []
            x = leaf(m, [1.0, 2.0])
            x.register_hook(lambda g: calls.append("x"))
            h = x * 2
            m.autograd.grad((h * h).sum(), h)
            assert calls == [] and x.grad is None


class TestBackwardInputs:
    def test_inputs_accumulates_only_into_inputs(self):
        def f(m):
            x, y = leaf(m, [1.0, 2.0]), leaf(m, [3.0, 4.0])
            (x * y).sum().backward(inputs=[x])
            return x.grad, y.grad

        (ex, ey), (tx, ty) = run_both(f)
        assert_close(ex, tx)
        assert ey is None and ty is None

    def test_inputs_single_tensor(self):
        for m in MODULES:
            x, y = leaf(m, [1.0, 2.0]), leaf(m, [3.0, 4.0])
            (x * y).sum().backward(inputs=y)
            assert x.grad is None
            np.testing.assert_allclose(npy(y.grad), [1.0, 2.0])

    def test_inputs_non_leaf(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            h = x * 2
            (h * h).sum().backward(inputs=[h])
            return h.grad, x.grad

        (eh, ex), (th, tx) = run_both(f)
        assert_close(eh, th)
        assert ex is None and tx is None

    def test_autograd_backward_inputs(self):
        for m in MODULES:
            x, y = leaf(m, [1.0, 2.0]), leaf(m, [3.0, 4.0])
            m.autograd.backward([(x * y).sum()], inputs=[y])
            assert x.grad is None and y.grad is not None

    def test_inputs_empty_list_errors(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            (x * 2).sum().backward(inputs=[])

        assert_same_error(f)


# --------------------------------------------------------------------------
# 3. hooks
# --------------------------------------------------------------------------


class TestTensorHooks:
    def test_leaf_hook_modifies_grad(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            seen = []
            x.register_hook(lambda g: seen.append(npy(g)) or g * 2)
            (x * x).sum().backward()
            return seen, x.grad

        (es, eg), (ts, tg) = run_both(f)
        assert len(es) == len(ts) == 1
        np.testing.assert_allclose(es[0], ts[0])
        assert_close(eg, tg)

    def test_non_leaf_hook_modifies_grad(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            h = x * x
            seen = []
            h.register_hook(lambda g: seen.append(npy(g)) or g * 3)
            (h.exp()).sum().backward()
            return seen, x.grad, h.grad

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # .grad of a non-leaf
            (es, eg, ehg), (ts, tg, thg) = run_both(f)
        assert len(es) == len(ts) == 1
        np.testing.assert_allclose(es[0], ts[0], rtol=1e-6)
        assert_close(eg, tg)
        assert ehg is None and thg is None

    def test_hook_called_once_with_summed_grad(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            h = x * 2
            seen_h, seen_x = [], []
            h.register_hook(lambda g: seen_h.append(npy(g)))
            x.register_hook(lambda g: seen_x.append(npy(g)))
            (h * h + h.exp() + x).sum().backward()
            return seen_h, seen_x

        (eh, ex), (th, tx) = run_both(f)
        assert len(eh) == len(th) == 1 and len(ex) == len(tx) == 1
        np.testing.assert_allclose(eh[0], th[0], rtol=1e-6)
        np.testing.assert_allclose(ex[0], tx[0], rtol=1e-6)

    def test_hooks_chain_in_registration_order(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            x.register_hook(lambda g: g + 1)
            x.register_hook(lambda g: g * 10)
            (x * 1).sum().backward()
            return x.grad

        e, t = run_both(f)
        assert_close(e, t)
        np.testing.assert_allclose(npy(e), [20.0, 20.0])

    def test_remove_handle(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            calls = []
            handle = x.register_hook(lambda g: calls.append(1) or g * 100)
            h = x * 2
            h2 = h.register_hook(lambda g: calls.append(2))
            handle.remove()
            h2.remove()
            h.sum().backward()
            assert calls == []
            np.testing.assert_allclose(npy(x.grad), [2.0, 2.0])

    def test_remove_handle_twice_is_fine(self):
        for m in MODULES:
            x = leaf(m, [1.0])
            handle = x.register_hook(lambda g: g)
            handle.remove()
            handle.remove()

    def test_hook_on_tensor_not_requiring_grad_errors(self):
        e = assert_same_error(lambda m: m.ones(2).register_hook(lambda g: g))
        assert e == "cannot register a hook on a tensor that doesn't require gradient"

    def test_hook_returning_wrong_shape_errors(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            h = x * 2
            h.register_hook(lambda g: m.ones(3))
            h.sum().backward()

        raises_both(f)

    def test_hook_registered_before_in_place(self):
        # A hook on a tensor that is then modified in place stays on the old version (torch semantics).
        def f(m):
            x = leaf(m, [1.0, 2.0])
            calls = []
            h = x * 2
            h.register_hook(lambda g: calls.append(npy(g)))
            h.mul_(3)
            h.sum().backward()
            return calls, x.grad

        (ec, eg), (tc, tg) = run_both(f)
        assert len(ec) == len(tc)
        for a, b in zip(ec, tc):
            np.testing.assert_allclose(a, b)
        assert_close(eg, tg)


class TestRetainGrad:
    def test_retain_grad_non_leaf(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            h = x.exp()
            assert not h.retains_grad
            h.retain_grad()
            assert h.retains_grad
            (h * h).sum().backward()
            return h.grad

        assert_close(*run_both(f))

    def test_retain_grad_accumulates(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            h = x * 2
            h.retain_grad()
            y = (h * h).sum()
            y.backward(retain_graph=True)
            y.backward()
            return h.grad

        assert_close(*run_both(f))

    def test_retain_grad_on_leaf_is_noop(self):
        for m in MODULES:
            x = leaf(m, [1.0])
            x.retain_grad()
            assert not x.retains_grad
            (x * 2).sum().backward()
            np.testing.assert_allclose(npy(x.grad), [2.0])

    def test_retain_grad_sees_hooked_grad(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            h = x * 2
            h.retain_grad()
            h.register_hook(lambda g: g * 5)  # registered after retain_grad
            h.sum().backward()
            return h.grad, x.grad

        (eh, ex), (th, tx) = run_both(f)
        assert_close(eh, th)
        assert_close(ex, tx)

    def test_non_leaf_grad_is_none_and_warns(self):
        for m in MODULES:
            x = leaf(m, [1.0])
            h = x * 2
            h.sum().backward()
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                assert h.grad is None
            assert any("non-leaf" in str(i.message) for i in w), m.__name__

    def test_retain_grad_on_tensor_not_requiring_grad_errors(self):
        assert_same_error(lambda m: m.ones(2).retain_grad())


class TestNodeHooks:
    def test_post_hook_sees_grad_inputs_and_outputs(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            h = x.exp()
            seen = []
            h.grad_fn.register_hook(lambda gi, go: seen.append(([npy(g) for g in gi], [npy(g) for g in go])))
            (h * h).sum().backward()
            return seen, x.grad

        (es, eg), (ts, tg) = run_both(f)
        assert len(es) == len(ts) == 1
        for a, b in zip(es[0][0] + es[0][1], ts[0][0] + ts[0][1]):
            np.testing.assert_allclose(a, b, rtol=1e-6)
        assert len(es[0][0]) == len(ts[0][0]) and len(es[0][1]) == len(ts[0][1])
        assert_close(eg, tg)

    def test_post_hook_grad_inputs_of_binary_op_with_constant(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            c = leaf(m, [3.0, 4.0], requires_grad=False)
            h = x * c
            seen = []
            h.grad_fn.register_hook(lambda gi, go: seen.append([None if g is None else npy(g) for g in gi]))
            h.sum().backward()
            return seen

        e, t = run_both(f)
        assert len(e[0]) == len(t[0])
        for a, b in zip(e[0], t[0]):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_allclose(a, b)

    def test_post_hook_replaces_grad_inputs(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            h = x.exp()
            h.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 7,))
            h.sum().backward()
            return x.grad

        e, t = run_both(f)
        assert_close(e, t)

    def test_prehook_replaces_grad_outputs(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            h = x.exp()
            seen = []

            def pre(go):
                seen.append(len(go))
                return (go[0] * 10,)

            h.grad_fn.register_prehook(pre)
            h.sum().backward()
            return seen, x.grad

        (es, eg), (ts, tg) = run_both(f)
        assert es == ts
        assert_close(eg, tg)

    def test_node_hook_remove(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            h = x.exp()
            calls = []
            a = h.grad_fn.register_hook(lambda gi, go: calls.append("post"))
            b = h.grad_fn.register_prehook(lambda go: calls.append("pre"))
            a.remove()
            b.remove()
            h.sum().backward()
            assert calls == []

    def test_accumulate_grad_node_hooks(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = (x * 3).sum()
            acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
            calls = []
            acc.register_prehook(lambda go: calls.append(("pre", [npy(g) for g in go])))
            acc.register_hook(lambda gi, go: calls.append(("post", len(gi), [npy(g) for g in go])))
            y.backward()
            return node_name(acc), calls

        (en, ec), (tn, tc) = run_both(f)
        assert en == tn == "AccumulateGrad"
        assert [c[0] for c in ec] == [c[0] for c in tc]

    def test_metadata_dict(self):
        x = leaf(ember, [1.0])
        y = x * 2
        y.grad_fn.metadata["tag"] = 5
        assert y.grad_fn.metadata["tag"] == 5
        assert isinstance(y.grad_fn.metadata, dict)
        g = y.grad_fn
        assert (y.grad_fn is g) or y.grad_fn.metadata.get("tag") == 5


class TestPostAccumulateGradHook:
    def test_called_after_accumulation(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            seen = []
            x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, npy(t.grad))))
            (x * 3).sum().backward()
            (x * 3).sum().backward()
            return seen

        e, t = run_both(f)
        assert len(e) == len(t) == 2
        for a, b in zip(e, t):
            assert a[0] and b[0]
            np.testing.assert_allclose(a[1], b[1])

    def test_return_value_ignored_and_can_zero_grad(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])

            def hook(t):
                t.grad = None  # e.g. an optimizer step in the hook

            x.register_post_accumulate_grad_hook(hook)
            (x * 3).sum().backward()
            assert x.grad is None

    def test_non_leaf_errors(self):
        e = assert_same_error(lambda m: (leaf(m, [1.0]) * 2).register_post_accumulate_grad_hook(lambda t: None))
        assert e == "post accumulate grad hooks cannot be registered on non-leaf tensors"

    def test_remove(self):
        for m in MODULES:
            x = leaf(m, [1.0])
            calls = []
            h = x.register_post_accumulate_grad_hook(lambda t: calls.append(1))
            h.remove()
            (x * 2).sum().backward()
            assert calls == []

    def test_not_called_by_autograd_grad(self):
        for m in MODULES:
            x = leaf(m, [1.0])
            calls = []
            x.register_post_accumulate_grad_hook(lambda t: calls.append(1))
            m.autograd.grad((x * 2).sum(), x)
            assert calls == []


def test_hook_order_matches_torch():
    def events(m):
        log = []
        x = leaf(m, [1.0, 2.0, 3.0])
        h = x * 2
        h.register_hook(lambda g: log.append("h_hook1"))
        h.retain_grad()
        h.register_hook(lambda g: log.append("h_hook2"))
        h.grad_fn.register_prehook(lambda go: log.append("h_prehook"))
        h.grad_fn.register_hook(lambda gi, go: log.append("h_posthook"))
        x.register_hook(lambda g: log.append("x_hook"))
        x.register_post_accumulate_grad_hook(lambda t: log.append("x_post_accumulate"))
        k = x.exp()
        k.register_hook(lambda g: log.append("k_hook"))
        y = (h * k).sum()
        y.register_hook(lambda g: log.append("y_hook"))
        y.grad_fn.register_prehook(lambda go: log.append("sum_prehook"))
        y.grad_fn.register_hook(lambda gi, go: log.append("sum_posthook"))
        y.backward()
        return log

    e, t = run_both(events)
    assert e == t


# --------------------------------------------------------------------------
# 4. grad modes
# --------------------------------------------------------------------------


class TestGradModes:
    def test_no_grad(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            with m.no_grad():
                assert not m.is_grad_enabled()
                y = x * 2
                v = x[0:1]
            assert m.is_grad_enabled()
            assert not y.requires_grad and y.grad_fn is None and y.is_leaf

    def test_no_grad_view_requires_grad_matches_torch(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            with m.no_grad():
                v = x[0:1]
                w = x.view(2)
            return v.requires_grad, w.requires_grad, v.grad_fn is None, v._is_view()

        assert run_both(f)[0] == run_both(f)[1]

    def test_enable_grad_inside_no_grad(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            with m.no_grad():
                with m.enable_grad():
                    assert m.is_grad_enabled()
                    y = x * 2
                z = x * 2
            assert y.requires_grad and not z.requires_grad

    def test_set_grad_enabled_function_and_context(self):
        for m in MODULES:
            x = leaf(m, [1.0])
            m.set_grad_enabled(False)
            try:
                assert not m.is_grad_enabled()
                assert not (x * 2).requires_grad
            finally:
                m.set_grad_enabled(True)
            assert m.is_grad_enabled()
            with m.set_grad_enabled(False):
                assert not (x * 2).requires_grad
                with m.set_grad_enabled(True):
                    assert (x * 2).requires_grad
                assert not m.is_grad_enabled()
            assert m.is_grad_enabled()

    def test_mode_restored_after_exception(self):
        for m in MODULES:
            with pytest.raises(ValueError):
                with m.no_grad():
                    raise ValueError
            assert m.is_grad_enabled()

    def test_decorators(self):
        for m in MODULES:
            @m.no_grad()
            def f(x):
                return x * 2

            @m.enable_grad()
            def g(x):
                return x * 2

            @m.set_grad_enabled(False)
            def h(x):
                return x * 2

            assert m.is_grad_enabled()  # set_grad_enabled(False) as a decorator does not leak
            x = leaf(m, [1.0])
            assert not f(x).requires_grad
            assert not h(x).requires_grad
            with m.no_grad():
                assert g(x).requires_grad
            assert f.__name__ == "f"

    def test_bare_decorators(self):
        # torch >= 2.0 accepts @torch.no_grad and @torch.inference_mode without parentheses
        for m in MODULES:
            @m.no_grad
            def f(x):
                return x * 2

            @m.inference_mode
            def g(x):
                return x * 2

            x = leaf(m, [1.0])
            assert not f(x).requires_grad, m.__name__
            assert g(x).is_inference(), m.__name__

    def test_generator_decorator(self):
        for m in MODULES:
            @m.no_grad()
            def gen():
                for _ in range(2):
                    yield m.is_grad_enabled()

            assert list(gen()) == [False, False]
            assert m.is_grad_enabled()

    def test_backward_inside_no_grad_still_works(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = (x * x).sum()
            with m.no_grad():
                y.backward()
            return x.grad

        assert_close(*run_both(f))

    def test_in_place_in_no_grad_on_leaf(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            v0 = x._version
            with m.no_grad():
                x.mul_(2)
                x[0] = 5.0
            assert x.requires_grad and x.is_leaf and x.grad_fn is None
            assert x._version == v0 + 2
            np.testing.assert_allclose(npy(x), [5.0, 4.0])


class TestInferenceMode:
    def test_outputs_are_inference_tensors(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            with m.inference_mode():
                assert m.is_inference_mode_enabled() if m is ember else torch.is_inference_mode_enabled()
                assert not m.is_grad_enabled()
                a = m.ones(3)
                y = x * 2
                v = a[1:]
            assert a.is_inference() and y.is_inference() and v.is_inference()
            assert not y.requires_grad and y.grad_fn is None
            assert not x.is_inference()
            assert m.is_grad_enabled()

    def test_inference_mode_false(self):
        for m in MODULES:
            x = leaf(m, [1.0])
            with m.inference_mode():
                with m.inference_mode(False):
                    y = x * 2
                    assert m.is_grad_enabled()
            assert not y.is_inference() and y.requires_grad

    def test_saved_for_backward_errors(self):
        def f(m):
            with m.inference_mode():
                a = m.ones(3)
            x = leaf(m, [1.0, 2.0, 3.0])
            (x * a).sum().backward()

        e = assert_same_error(f)
        assert e.startswith("Inference tensors cannot be saved for backward")

    def test_inference_tensor_ok_when_not_saved(self):
        def f(m):
            with m.inference_mode():
                a = m.ones(3)
            x = leaf(m, [1.0, 2.0, 3.0])
            (x + a).sum().backward()
            return x.grad

        assert_close(*run_both(f))

    def test_inplace_outside_mode_errors(self):
        def f(m):
            with m.inference_mode():
                a = m.ones(3)
            a.add_(1)

        e = assert_same_error(f)
        assert e.startswith("Inplace update to inference tensor outside InferenceMode is not allowed")

    def test_inplace_inside_mode_ok(self):
        for m in MODULES:
            with m.inference_mode():
                a = m.ones(3)
                a.add_(1)
            np.testing.assert_allclose(npy(a), [2, 2, 2])

    def test_clone_is_normal_tensor(self):
        for m in MODULES:
            with m.inference_mode():
                a = m.ones(3)
            b = a.clone()
            assert not b.is_inference()
            b.add_(1)
            x = leaf(m, [1.0, 2.0, 3.0])
            (x * b).sum().backward()
            np.testing.assert_allclose(npy(x.grad), [2, 2, 2])

    def test_decorator(self):
        for m in MODULES:
            @m.inference_mode()
            def f():
                return m.ones(2)

            assert f().is_inference()


# --------------------------------------------------------------------------
# 5. views and in-place
# --------------------------------------------------------------------------


class TestVersionCounter:
    def test_shared_by_views(self):
        for m in MODULES:
            a = m.zeros(4)
            v = a[1:3]
            w = v.view(2, 1)
            assert a._version == v._version == w._version == 0
            v.add_(1)
            assert a._version == v._version == w._version == 1
            a.mul_(2)
            assert a._version == v._version == w._version == 2
            a[0] = 3.0
            assert w._version == 3

    def test_out_of_place_does_not_bump(self):
        for m in MODULES:
            a = m.zeros(4)
            _ = a + 1
            _ = a.clone().add_(1)
            assert a._version == 0

    def test_new_tensors_start_at_version_zero(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            return [t._version for t in (x, x.clone(), x * 2, x.detach().clone(), m.zeros(2), x.contiguous(),
                                         x.float(), x.double(), m.ones(2).clone())]

        e, t = run_both(f)
        assert e == t

    def test_detach_shares_storage_and_version(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            d = x.detach()
            assert not d.requires_grad and d.is_leaf and d.grad_fn is None
            d.add_(1)
            np.testing.assert_allclose(npy(x), [2.0, 3.0])
            assert x._version == 1 == d._version

    def test_data_does_not_share_version(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            x.data.mul_(2)
            return x._version, npy(x).tolist(), x.data.requires_grad

        assert run_both(f)[0] == run_both(f)[1]

    def test_data_setter(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            x.data = m.ones(3)
            assert tuple(x.shape) == (3,) and x.requires_grad and x.is_leaf

    def test_detach_of_saved_modified_errors(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = x.exp()
            y.detach().zero_()
            y.sum().backward()

        e = assert_same_error(f)
        assert "is at version" in e

    def test_detach_in_place(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            h = x * 2
            r = h.detach_()
            assert r is h
            assert not h.requires_grad and h.grad_fn is None and h.is_leaf

    def test_detach_in_place_on_view_errors(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            h = (x * 2)[0:1]
            h.detach_()

        raises_both(f)


class TestModifiedSavedTensor:
    def test_saved_output_modified(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            y = x.sigmoid()
            y.mul_(2)
            y.sum().backward()

        e = assert_same_error(f)
        assert e.startswith("one of the variables needed for gradient computation has been modified by an "
                            "inplace operation")
        assert "is at version" in e and "ember.FloatTensor [3]" in e

    def test_saved_input_modified(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            h = x * 1
            z = h * h
            h.add_(1)
            z.sum().backward()

        e = assert_same_error(f)
        assert "is at version 1; expected version 0 instead" in e

    def test_saved_input_modified_through_view(self):
        def f(m):
            x = leaf(m, [[1.0, 2.0], [3.0, 4.0]])
            h = x.clone()
            z = h.sin()
            h[0].zero_()
            z.sum().backward()

        e = assert_same_error(f)
        assert "is at version" in e

    def test_modified_but_not_saved_is_fine(self):
        check_grads(lambda m, x: _add_then_inplace(m, x), arr(3))

    def test_input_saved_only_for_a_gradient_nobody_wants_may_change(self):
        # mul saves each factor only for the other's gradient (as torch): h
        # needs none here, so changing it afterwards is fine.
        check_grads(lambda m, x: _product_then_change_the_constant_factor(m, x), arr(3))

    def test_input_saved_for_a_wanted_gradient_may_not_change(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            c = m.ones(3) * 2
            z = c * x
            c.add_(1)
            z.sum().backward()

        assert "is at version 1; expected version 0 instead" in assert_same_error(f)

    @pytest.mark.parametrize("activation", ["ReLU", "LeakyReLU", "ELU", "SELU", "CELU", "Hardtanh", "ReLU6",
                                            "Hardsigmoid", "Hardswish", "SiLU", "Mish", "Threshold"])
    def test_batch_norm_then_in_place_activation(self, activation):
        # The DCGAN discriminator's pattern: BatchNorm2d, then LeakyReLU(inplace=True). BatchNorm keeps
        # its input, not its output, so the activation may overwrite the output.
        def f(m, x):
            args = (0.1, 20.0) if activation == "Threshold" else ()
            act = getattr(m.nn, activation)(*args, inplace=True)
            return act(m.nn.BatchNorm2d(2)(x * 1)).pow(2).sum()

        check_grads(f, arr(3, 2, 2, 2))

    def test_version_error_with_anomaly_hint(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            y = x.exp()
            y.add_(1)
            y.sum().backward()

        e, t = raises_both(f)
        assert e == t
        assert "Hint:" in e


def _product_then_change_the_constant_factor(m, x):
    h = m.ones(3) * 2
    z = h * x  # keeps h for x's gradient; x would be kept for h's, which nobody wants
    x_copy = x * 1
    w = x_copy * h
    x_copy.add_(1)  # kept by nobody: h needs no gradient
    return (z + w).sum()


def _add_then_inplace(m, x):
    h = x + 1  # AddBackward saves nothing
    h.mul_(3)
    return h.sum()


class TestLeafInPlace:
    def test_leaf_requires_grad_in_place_errors(self):
        e = assert_same_error(lambda m: leaf(m, [1.0, 2.0]).add_(1))
        assert e == "a leaf Variable that requires grad is being used in an in-place operation."
        assert_same_error(lambda m: leaf(m, [1.0, 2.0]).zero_())
        assert_same_error(lambda m: leaf(m, [1.0, 2.0]).copy_(m.ones(2)))
        assert_same_error(lambda m: leaf(m, [1.0, 2.0]).__setitem__(0, 1.0))

    def test_view_of_leaf_in_place_errors(self):
        e = assert_same_error(lambda m: leaf(m, [1.0, 2.0, 3.0])[0:2].mul_(2))
        assert e.startswith("a view of a leaf Variable that requires grad is being used in an in-place operation.")
        assert_same_error(lambda m: leaf(m, [[1.0, 2.0]]).view(2).zero_())

    def test_in_place_on_leaf_not_requiring_grad_then_requires_grad(self):
        check_grads(lambda m, x: _inplace_into_const(m, x), arr(3))


def _inplace_into_const(m, x):
    c = m.ones(3)
    c.mul_(x)  # c now requires grad, grad_fn MulBackward0
    assert c.requires_grad and not c.is_leaf
    return (c * c).sum()


class TestViewInPlace:
    def test_view_basics(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0, 4.0])
            v = x[1:3]
            w = v.view(2, 1)
            return (x._base is None, v._base is x, w._base is x, v._is_view(), x._is_view(), v.is_leaf,
                    v.requires_grad, x.detach()._is_view(), x.clone()._is_view())

        e, t = run_both(f)
        assert e == t

    def test_output_nr(self):
        def f(m):
            x = leaf(m, arr(3, 2))
            a, b, c = x.unbind()
            v, i = x.max(0)
            s = x.split(1)
            return [a.output_nr, b.output_nr, c.output_nr, v.output_nr, s[2].output_nr, x.output_nr]

        e, t = run_both(f)
        assert e == t

    def test_mul_into_slice_of_clone(self):
        def f(m, x):
            b = x.clone()
            b[1:3].mul_(2)
            assert node_name(b.grad_fn) == "CopySlices"
            return (b * b).sum()

        check_grads(f, arr(4))

    def test_in_place_view_uses_original_values(self):
        def f(m, x):
            b = x.clone()
            v = b[1:3]
            v.mul_(2)  # a scalar factor: saves nothing
            v.exp_()  # saves its result, which nothing modifies afterwards
            return (b * m.from_numpy(np.arange(1, 5, dtype=np.float32))).sum()

        check_grads(f, arr(4))

    def test_in_place_on_view_modifying_saved_result_errors(self):
        def f(m):
            x = leaf(m, arr(4))
            b = x.clone()
            v = b[1:3]
            v.exp_()  # saves its result, v
            v.mul_(v)  # ... which this modifies
            b.sum().backward()

        e, _ = raises_both(f)
        assert "is at version" in e

    def test_setitem_into_tensor_not_requiring_grad(self):
        def f(m, x):
            a = m.zeros(4)
            a[:2] = x
            assert a.requires_grad and not a.is_leaf
            assert node_name(a.grad_fn) == "CopySlices"
            return (a * m.from_numpy(np.array([1, 2, 3, 4], dtype=np.float32))).sum()

        check_grads(f, arr(2))

    def test_copy_into_slice(self):
        def f(m, x, y):
            a = m.zeros(3, 4)
            a[1].copy_(x)
            a[:, 2:].copy_(y)
            return (a.exp() * a).sum()

        check_grads(f, arr(4), arr(3, 2))

    def test_setitem_overwrites_grad_path(self):
        # Overwritten elements of x get no gradient.
        def f(m, x, y):
            b = x * 1
            b[0] = y.sum()
            b[2:] = 0.0
            return (b * b).sum()

        check_grads(f, arr(4), arr(2))

    def test_base_modified_then_view_used(self):
        def f(m, x):
            b = x.clone()
            v = b[0:2]
            b.mul_(3)
            return (v * v).sum()

        check_grads(f, arr(4))

    def test_view_modified_then_base_and_view_used(self):
        def f(m, x, y):
            b = x.clone()
            v = b.view(2, 2)[1]
            v.add_(y)
            return (v.sin()).sum() + (b * b).sum()

        check_grads(f, arr(4), arr(2))

    def test_view_of_view_in_place(self):
        def f(m, x, y):
            b = x.clone()
            b.view(3, 4).t()[1:3, 0].mul_(y)
            return (b * b).sum()

        check_grads(f, arr(12), arr(2))

    def test_view_grad_fn_after_in_place(self):
        def f(m):
            x = leaf(m, arr(4))
            b = x.clone()
            v = b[1:3]
            v0 = b._version
            v.mul_(2)
            return node_name(b.grad_fn), v.grad_fn is not None, v._version - v0, b._version - v0

        e, t = run_both(f)
        assert e[0] == t[0] == "CopySlices"
        assert e[1:] == t[1:]

    def test_multiple_in_place_on_same_view(self):
        def f(m, x, y):
            b = x.clone()
            v = b[::2]
            v.mul_(y)
            v.add_(y * y)
            v.div_(2)
            return (b.exp()).sum()

        check_grads(f, arr(6), arr(3))

    def test_views_created_in_no_grad_then_modified_errors(self):
        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0, 4.0])
            b = x.clone()
            with m.no_grad():
                v = b[:2]
            v.mul_(2)

        e = assert_same_error(f)
        assert e.startswith("A view was created in no_grad mode and is being modified inplace with grad mode enabled.")

    def test_views_created_in_no_grad_of_const_then_modified_with_grad_input(self):
        def f(m):
            b = m.zeros(4)
            y = leaf(m, [1.0, 2.0])
            with m.no_grad():
                v = b[:2]
            v.mul_(y)

        assert_same_error(f)

    def test_view_and_in_place_both_in_no_grad_ok(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0, 3.0, 4.0])
            with m.no_grad():
                x[:2].mul_(2)
            np.testing.assert_allclose(npy(x), [2.0, 4.0, 3.0, 4.0])
            (x * x).sum().backward()
            np.testing.assert_allclose(npy(x.grad), [4.0, 8.0, 6.0, 8.0])

    def test_multi_output_view_in_place_errors(self):
        def f(m):
            x = leaf(m, arr(4))
            b = x.clone()
            a, _ = b.split(2)
            a.mul_(2)

        raises_both(f)

    def test_unbind_view_in_place_errors(self):
        def f(m):
            x = leaf(m, arr(2, 3))
            b = x.clone()
            r0, r1 = b.unbind()
            r0.add_(1)

        raises_both(f)

    def test_in_place_on_detached_view_does_not_track(self):
        def f(m, x):
            b = x.clone()
            b.detach()[0:2].zero_()  # untracked write, no saved tensors involved
            return (b * 2).sum()

        check_grads(f, arr(4))

    def test_in_place_with_broadcast_input(self):
        def f(m, x, y):
            b = x * 1
            b.add_(y)  # y (4,) broadcast into (3, 4)
            b.mul_(y)
            return (b * b).sum()

        check_grads(f, arr(3, 4), arr(4))

    def test_in_place_result_is_self(self):
        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            b = x * 1
            r = b.mul_(2)
            assert r is b

    def test_in_place_promotes_requires_grad(self):
        def f(m, x):
            c = m.zeros(2, 2)
            c[0].add_(x)
            assert c.requires_grad
            return (c * c).sum()

        check_grads(f, arr(2))


# --------------------------------------------------------------------------
# 6. custom Function
# --------------------------------------------------------------------------


def fn_class(m, name, forward, backward, setup_context=None, **extra):
    attrs = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    if setup_context is not None:
        attrs["setup_context"] = staticmethod(setup_context)
    attrs.update(extra)
    return type(name, (m.autograd.Function,), attrs)


def saves_input(m, name):
    """A Function doubling its input that saves the input for backward."""
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2

    return fn_class(m, name, forward, backward)


def exp_fn(m):
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y

    return fn_class(m, "MyExp", forward, backward)


class TestCustomFunction:
    def test_save_for_backward(self):
        def f(m):
            x = leaf(m, [0.5, 1.0, -1.0])
            y = exp_fn(m).apply(x)
            assert y.requires_grad and y.grad_fn.name() == "MyExpBackward"
            (y * y).sum().backward()
            return y, x.grad

        (ey, eg), (ty, tg) = run_both(f)
        assert_close(ey, ty)
        assert_close(eg, tg)

    def test_saved_input_and_double_backward(self):
        def make(m):
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x * x

            return fn_class(m, "Cube", forward, backward)

        def f(m):
            x = leaf(m, [1.0, 2.0])
            (g,) = m.autograd.grad(make(m).apply(x).sum(), x, create_graph=True)
            (g2,) = m.autograd.grad(g.sum(), x)
            return g, g2

        e, t = run_both(f)
        assert_close(e[0], t[0])
        assert_close(e[1], t[1])

    def test_non_tensor_args(self):
        def make(m):
            def forward(ctx, x, k, name):
                ctx.k = k
                assert isinstance(name, str)
                return x * k

            def backward(ctx, g):
                return g * ctx.k, None, None

            return fn_class(m, "Scale", forward, backward)

        def f(m):
            x = leaf(m, [1.0, 2.0])
            make(m).apply(x, 3.0, "hi").sum().backward()
            return x.grad

        assert_close(*run_both(f))

    def test_multiple_outputs(self):
        def make(m, materialize=True):
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            def backward(ctx, g1, g2):
                ctx.seen = (g1 is None, g2 is None)
                total = 0
                if g1 is not None:
                    total = total + g1 * 2
                if g2 is not None:
                    total = total + g2 * 3
                return total

            return fn_class(m, "Two", forward, backward)

        def f(m):
            out = []
            x = leaf(m, [1.0, 2.0])
            a, b = make(m).apply(x)
            assert a.grad_fn is b.grad_fn or a.grad_fn.name() == b.grad_fn.name()
            out.append((a.output_nr, b.output_nr))
            (a * b).sum().backward()
            out.append(npy(x.grad))
            x2 = leaf(m, [1.0, 2.0])
            a2, b2 = make(m).apply(x2)
            a2.sum().backward()  # b2 gets a zero-filled grad
            out.append(npy(x2.grad))
            x3 = leaf(m, [1.0, 2.0])
            a3, b3 = make(m, materialize=False).apply(x3)
            b3.sum().backward()  # a3's grad is None
            out.append(npy(x3.grad))
            return out

        e, t = run_both(f)
        assert e[0] == t[0]
        for a, b in zip(e[1:], t[1:]):
            np.testing.assert_allclose(a, b)

    def test_materialize_false_sees_none(self):
        def make(m, store):
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x.clone(), x.clone()

            def backward(ctx, g1, g2):
                store.append((g1 is None, g2 is None))
                return g1 if g1 is not None else g2

            return fn_class(m, "MatFalse", forward, backward)

        def f(m):
            store = []
            x = leaf(m, [1.0])
            a, b = make(m, store).apply(x)
            b.sum().backward()
            return store

        e, t = run_both(f)
        assert e == t == [(True, False)]

    def test_non_tensor_outputs(self):
        def make(m):
            def forward(ctx, x):
                return x * 2, 7, "s"

            def backward(ctx, g, g_int, g_str):
                assert g_int is None and g_str is None
                return g * 2

            return fn_class(m, "Mixed", forward, backward)

        def f(m):
            x = leaf(m, [1.0, 2.0])
            y, k, s = make(m).apply(x)
            assert k == 7 and s == "s"
            y.sum().backward()
            return x.grad

        assert_close(*run_both(f))

    def test_mark_dirty(self):
        def make(m):
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            def backward(ctx, g):
                return g * 2

            return fn_class(m, "InplaceDouble", forward, backward)

        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            b = x.clone()
            v0 = b._version
            y = make(m).apply(b)
            assert y is b
            assert b.grad_fn.name() == "InplaceDoubleBackward"
            assert b._version > v0
            (y * y).sum().backward()
            return npy(y), x.grad

        (ey, eg), (ty, tg) = run_both(f)
        np.testing.assert_allclose(ey, ty)
        assert_close(eg, tg)

    def test_mark_dirty_on_leaf_errors(self):
        def make(m):
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            def backward(ctx, g):
                return g * 2

            return fn_class(m, "InplaceLeaf", forward, backward)

        assert_same_error(lambda m: make(m).apply(leaf(m, [1.0])))

    def test_mark_dirty_on_view(self):
        def make(m):
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            def backward(ctx, g):
                return g

            return fn_class(m, "AddOneInplace", forward, backward)

        def f(m, x):
            b = x.clone()
            make(m).apply(b[1:3])
            assert node_name(b.grad_fn) == "CopySlices"
            return (b * b).sum()

        check_grads(f, arr(4))

    def test_mark_non_differentiable(self):
        def make(m):
            def forward(ctx, x):
                y = x * 2
                mask = x > 0
                z = x * 3
                ctx.mark_non_differentiable(mask, z)
                return y, mask, z

            def backward(ctx, g, g_mask, g_z):
                return g * 2

            return fn_class(m, "NonDiff", forward, backward)

        def f(m):
            x = leaf(m, [1.0, -2.0])
            y, mask, z = make(m).apply(x)
            flags = (y.requires_grad, mask.requires_grad, z.requires_grad, z.grad_fn is None)
            y.sum().backward()
            return flags, x.grad

        (ef, eg), (tf, tg) = run_both(f)
        assert ef == tf
        assert_close(eg, tg)

    def test_return_input_unchanged(self):
        def make(m):
            def forward(ctx, x):
                return x

            def backward(ctx, g):
                return g * 5

            return fn_class(m, "Ident", forward, backward)

        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = make(m).apply(x)
            info = (y is x, y.requires_grad, y.is_leaf, y.grad_fn.name() if y.grad_fn is not None else None)
            y.sum().backward()
            return info, x.grad

        (ei, eg), (ti, tg) = run_both(f)
        assert ei == ti
        assert_close(eg, tg)

    def test_return_view_of_input(self):
        def make(m):
            def forward(ctx, x):
                return x.view(2, 2)

            def backward(ctx, g):
                return g.reshape(4) * 2

            return fn_class(m, "ViewFn", forward, backward)

        def f(m, x):
            b = x.clone()
            y = make(m).apply(b)
            return (y * y).sum()

        check_grads(f, arr(4))

    def test_wrong_number_of_grads_errors(self):
        def make(m):
            def forward(ctx, x):
                return x * 2

            def backward(ctx, g):
                return g, g

            return fn_class(m, "TooMany", forward, backward)

        e = assert_same_error(lambda m: make(m).apply(leaf(m, [1.0])).sum().backward())
        assert e == "function TooManyBackward returned an incorrect number of gradients (expected 1, got 2)"

    def test_too_few_grads_errors(self):
        def make(m):
            def forward(ctx, x, y):
                return x * y

            def backward(ctx, g):
                return g

            return fn_class(m, "TooFew", forward, backward)

        e = assert_same_error(lambda m: make(m).apply(leaf(m, [1.0]), leaf(m, [2.0])).sum().backward())
        assert e == "function TooFewBackward returned an incorrect number of gradients (expected 2, got 1)"

    def test_extra_none_grads_are_fine(self):
        def make(m):
            def forward(ctx, x):
                return x * 2

            def backward(ctx, g):
                return g * 2, None, None

            return fn_class(m, "ExtraNone", forward, backward)

        for m in MODULES:
            x = leaf(m, [1.0])
            make(m).apply(x).sum().backward()
            np.testing.assert_allclose(npy(x.grad), [2.0])

    def test_grad_for_non_tensor_input_errors(self):
        def make(m):
            def forward(ctx, x, k):
                return x * k

            def backward(ctx, g):
                return g, g

            return fn_class(m, "GradForInt", forward, backward)

        assert_same_error(lambda m: make(m).apply(leaf(m, [1.0]), 2).sum().backward())

    def test_wrong_grad_shape_errors(self):
        def make(m):
            def forward(ctx, x):
                return x * 2

            def backward(ctx, g):
                return m.ones(2)

            return fn_class(m, "BadShape", forward, backward)

        e = assert_same_error(lambda m: make(m).apply(leaf(m, [1.0, 2.0, 3.0])).sum().backward())
        assert "returned an invalid gradient at index 0" in e

    def test_grad_broadcastable_shape_is_reduced(self):
        # torch sums a gradient that broadcasts to the input into the input's shape? No: it errors
        # unless the shapes are expandable; compare either way.
        def make(m):
            def forward(ctx, x):
                return x * 2

            def backward(ctx, g):
                return g.unsqueeze(0).expand(2, 3)

            return fn_class(m, "Expandable", forward, backward)

        def f(m):
            x = leaf(m, [1.0, 2.0, 3.0])
            make(m).apply(x).sum().backward()
            return x.grad

        outcome = {}
        for m in MODULES:
            try:
                outcome[m] = ("ok", npy(f(m)).tolist())
            except RuntimeError as e:
                outcome[m] = ("error", msg(m, e))
        assert outcome[ember] == outcome[torch]

    def test_wrong_grad_dtype_is_cast(self):
        def make(m):
            def forward(ctx, x):
                return x * 2

            def backward(ctx, g):
                return (g * 2).double()

            return fn_class(m, "BadDtype", forward, backward)

        def f(m):
            x = leaf(m, [1.0, 2.0])
            make(m).apply(x).sum().backward()
            return x.grad

        assert_close(*run_both(f))

    def test_backward_returning_non_tensor_errors(self):
        def make(m):
            def forward(ctx, x):
                return x * 2

            def backward(ctx, g):
                return 3

            return fn_class(m, "RetInt", forward, backward)

        for m in MODULES:
            with pytest.raises((TypeError, RuntimeError)):
                make(m).apply(leaf(m, [1.0])).sum().backward()

    def test_exception_in_backward_propagates_type(self):
        def make(m):
            def forward(ctx, x):
                return x * 2

            def backward(ctx, g):
                raise ValueError("boom from backward")

            return fn_class(m, "Boom", forward, backward)

        for m in MODULES:
            with pytest.raises(ValueError, match="boom from backward"):
                make(m).apply(leaf(m, [1.0])).sum().backward()

    def test_once_differentiable(self):
        def make(m):
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 2

            @m.autograd.function.once_differentiable
            def backward(ctx, g):
                assert not m.is_grad_enabled()
                (x,) = ctx.saved_tensors
                return g * 2 * x

            return fn_class(m, "Once", forward, backward)

        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = make(m).apply(x)
            # the incoming gradient 2*y requires grad, so the result must too
            (g,) = m.autograd.grad((y * y).sum(), x, create_graph=True)
            info = (npy(g).tolist(), g.requires_grad)
            with pytest.raises(RuntimeError) as ei:
                g.sum().backward()
            return info, str(ei.value)

        e, t = run_both(f)
        assert e == t
        assert "once_differentiable" in e[1]

    def test_once_differentiable_exported(self):
        assert ember.autograd.once_differentiable is ember.autograd.function.once_differentiable

    def test_once_differentiable_plain_backward(self):
        def make(m):
            def forward(ctx, x):
                return x * 3

            @m.autograd.function.once_differentiable
            def backward(ctx, g):
                return g * 3

            return fn_class(m, "Once2", forward, backward)

        for m in MODULES:
            x = leaf(m, [1.0])
            make(m).apply(x).sum().backward()
            np.testing.assert_allclose(npy(x.grad), [3.0])

    def test_gradcheck_custom_function(self):
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y.sin()

        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y.sin(), g * x * y.cos()

        F = fn_class(ember, "XSinY", forward, backward)
        x = leaf(ember, arr(3, dtype=np.float64))
        y = leaf(ember, arr(3, dtype=np.float64))
        assert ember.autograd.gradcheck(F.apply, (x, y))
        assert ember.autograd.gradgradcheck(F.apply, (x, y))

    def test_setup_context_style(self):
        def make(m):
            def forward(x, k):
                return x.exp() * k

            def setup_context(ctx, inputs, output):
                x, k = inputs
                ctx.k = k
                ctx.save_for_backward(output)

            def backward(ctx, g):
                (out,) = ctx.saved_tensors
                return g * out, None

            return fn_class(m, "ExpK", forward, backward, setup_context=setup_context)

        def f(m):
            x = leaf(m, [0.1, 0.2])
            y = make(m).apply(x, 2.0)
            (y * y).sum().backward()
            return y, x.grad

        (ey, eg), (ty, tg) = run_both(f)
        assert_close(ey, ty)
        assert_close(eg, tg)

    def test_needs_input_grad(self):
        def make(m, store):
            def forward(ctx, a, b, k):
                store.append(("fwd", tuple(ctx.needs_input_grad)))
                return a * b * k

            def backward(ctx, g):
                store.append(("bwd", tuple(ctx.needs_input_grad)))
                a_grad = g if ctx.needs_input_grad[0] else None
                b_grad = g if ctx.needs_input_grad[1] else None
                return a_grad, b_grad, None

            return fn_class(m, "Needs", forward, backward)

        def f(m):
            store = []
            a = leaf(m, [1.0])
            b = leaf(m, [2.0], requires_grad=False)
            make(m, store).apply(a, b, 3.0).sum().backward()
            return store

        e, t = run_both(f)
        assert e == t

    def test_no_input_requires_grad(self):
        for m in MODULES:
            y = exp_fn(m).apply(m.ones(2))
            assert not y.requires_grad and y.grad_fn is None

    def test_apply_under_no_grad(self):
        for m in MODULES:
            x = leaf(m, [1.0])
            with m.no_grad():
                y = exp_fn(m).apply(x)
            assert not y.requires_grad and y.grad_fn is None

    def test_forward_runs_without_grad(self):
        for m in MODULES:
            seen = []

            def forward(ctx, x):
                seen.append(m.is_grad_enabled())
                h = x * 2
                seen.append(h.requires_grad)
                return h

            F = fn_class(m, "Fwd", forward, lambda ctx, g: g * 2)
            F.apply(leaf(m, [1.0]))
            assert seen == [False, False], m.__name__

    def test_saved_tensors_version_check(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            h = x * 1
            y = saves_input(m, "SavesInput").apply(h)
            h.add_(1)
            y.sum().backward()

        e = assert_same_error(f)
        assert "is at version 1" in e

    def test_saved_tensors_after_free_errors(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = saves_input(m, "SavesInput2").apply(x * 1).sum()
            y.backward()
            y.backward()

        assert_same_error(f)

    def test_save_non_tensor_errors(self):
        def make(m):
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2

            return fn_class(m, "SaveInt", forward, lambda ctx, g: g)

        raises_both(lambda m: make(m).apply(leaf(m, [1.0])), TypeError)

    def test_custom_function_in_bigger_graph(self):
        def f(m, x, w):
            h = x.matmul(w)
            y = exp_fn(m).apply(h.tanh())
            return (y * h).sum()

        check_grads(f, arr(3, 4), arr(4, 2), rtol=1e-4, atol=1e-5)

    def test_reentrant_backward(self):
        # a checkpoint-style backward that recomputes and differentiates a graph inside backward
        def make(m):
            def forward(ctx, x, w):
                ctx.save_for_backward(x, w)
                return (x.matmul(w)).tanh()

            def backward(ctx, g):
                x, w = ctx.saved_tensors
                with m.enable_grad():
                    xd, wd = x.detach().requires_grad_(), w.detach().requires_grad_()
                    out = (xd.matmul(wd)).tanh()
                    gx, gw = m.autograd.grad(out, [xd, wd], g)
                return gx, gw

            return fn_class(m, "Recompute", forward, backward)

        check_grads(lambda m, x, w: (make(m).apply(x, w) * 3).sum(), arr(3, 4), arr(4, 2), rtol=1e-4, atol=1e-5)

    def test_hooks_on_custom_function_output(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = exp_fn(m).apply(x)
            seen = []
            y.register_hook(lambda g: seen.append(npy(g)) or g * 2)
            y.retain_grad()
            (y * y).sum().backward()
            return seen, y.grad, x.grad

        (es, ey, ex), (ts, ty, tx) = run_both(f)
        np.testing.assert_allclose(es[0], ts[0], rtol=1e-6)
        assert_close(ey, ty)
        assert_close(ex, tx)

    def test_vjp_alias(self):
        def make(m):
            class VjpFn(m.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x * 4

                @staticmethod
                def vjp(ctx, g):
                    return g * 4

            return VjpFn

        for m in MODULES:
            x = leaf(m, [1.0])
            make(m).apply(x).sum().backward()
            np.testing.assert_allclose(npy(x.grad), [4.0])

    def test_ctx_saved_tensors_in_forward_context(self):
        # saved_tensors of a node that has run backward once (no retain) errors
        def make(m, holder):
            def forward(ctx, x):
                ctx.save_for_backward(x)
                holder.append(ctx)
                return x * 2

            def backward(ctx, g):
                return g * 2

            return fn_class(m, "Holder", forward, backward)

        def f(m):
            holder = []
            x = leaf(m, [1.0])
            make(m, holder).apply(x * 1).sum().backward()
            return holder[0].saved_tensors

        assert_same_error(f)


# --------------------------------------------------------------------------
# 7. anomaly mode
# --------------------------------------------------------------------------


def _nan_fn(m):
    def forward(ctx, x):
        return x * 2

    def backward(ctx, g):
        return g * float("nan")

    return fn_class(m, "MakesNan", forward, backward)


class TestAnomaly:
    def _run(self, m, body):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError) as info:
                with m.autograd.detect_anomaly():
                    body(m)
        return str(info.value), "\n".join(str(i.message) for i in w)

    def test_custom_function_nan(self):
        def body(m):
            x = leaf(m, [1.0, 2.0])
            y = _nan_fn(m).apply(x)  # FORWARD-LINE-MARKER-1
            y.sum().backward()

        e_msg, e_warn = self._run(ember, body)
        t_msg, t_warn = self._run(torch, body)
        assert e_msg == t_msg == "Function 'MakesNanBackward' returned nan values in its 0th output."
        # the forward call that made the node is reported (torch: in a warning; the brief: in the message)
        assert "FORWARD-LINE-MARKER-1" in e_msg + e_warn
        assert "FORWARD-LINE-MARKER-1" in t_warn

    def test_forward_traceback_in_message(self):
        def body(m):
            x = leaf(m, [1.0, 2.0])
            y = _nan_fn(m).apply(x)  # FORWARD-LINE-MARKER-2
            y.sum().backward()

        e_msg, _ = self._run(ember, body)
        assert "returned nan values" in e_msg
        assert "FORWARD-LINE-MARKER-2" in e_msg

    def test_sqrt_at_zero_nan(self):
        def body(m):
            x = leaf(m, [0.0, 1.0])
            y = (x.sqrt() * 0).sum()  # FORWARD-LINE-MARKER-3
            y.backward()

        e_msg, e_warn = self._run(ember, body)
        t_msg, _ = self._run(torch, body)
        assert e_msg == t_msg == "Function 'SqrtBackward0' returned nan values in its 0th output."
        assert "FORWARD-LINE-MARKER-3" in e_msg + e_warn

    def test_no_error_without_anomaly_mode(self):
        for m in MODULES:
            x = leaf(m, [0.0, 1.0])
            (x.sqrt() * 0).sum().backward()
            assert np.isnan(npy(x.grad)[0])

    def test_check_nan_false(self):
        for m in MODULES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with m.autograd.detect_anomaly(check_nan=False):
                    x = leaf(m, [0.0, 1.0])
                    (x.sqrt() * 0).sum().backward()
            assert np.isnan(npy(x.grad)[0])

    def test_set_detect_anomaly_and_flags(self):
        for m in MODULES:
            assert not m.is_anomaly_enabled() if m is torch else not m.autograd.is_anomaly_enabled()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with m.autograd.set_detect_anomaly(True):
                    assert m.is_anomaly_enabled() if m is torch else m.autograd.is_anomaly_enabled()
                    with m.autograd.set_detect_anomaly(False):
                        assert not (m.is_anomaly_enabled() if m is torch else m.autograd.is_anomaly_enabled())
            assert not (m.is_anomaly_enabled() if m is torch else m.autograd.is_anomaly_enabled())

    def test_anomaly_decorator(self):
        # torch 2.13's detect_anomaly is a context manager only; Ember's is also a decorator
        for m in [ember]:
            @m.autograd.detect_anomaly()
            def run():
                x = leaf(m, [1.0])
                _nan_fn(m).apply(x).sum().backward()

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(RuntimeError, match="returned nan values"):
                    run()

    def test_anomaly_mode_passes_correct_backward(self):
        def f(m):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with m.autograd.detect_anomaly():
                    x = leaf(m, [1.0, 2.0])
                    (x.exp() * x).sum().backward()
            return x.grad

        assert_close(*run_both(f))

    def test_anomaly_backward_error_reports_forward(self):
        # Errors other than NaN (here: a modified saved tensor) still raise with anomaly mode on.
        def body(m):
            x = leaf(m, [1.0, 2.0])
            y = x.exp()  # FORWARD-LINE-MARKER-4
            y.add_(1)
            y.sum().backward()

        e_msg, e_warn = self._run(ember, body)
        t_msg, t_warn = self._run(torch, body)
        assert "is at version" in e_msg
        assert "FORWARD-LINE-MARKER-4" in t_warn
        assert "FORWARD-LINE-MARKER-4" in e_msg + e_warn


# --------------------------------------------------------------------------
# 8. saved tensor hooks
# --------------------------------------------------------------------------


class TestSavedTensorsHooks:
    def _counts(self, m, body):
        packed, unpacked = [], []

        def pack(t):
            packed.append(tuple(t.shape))
            return t

        def unpack(t):
            unpacked.append(tuple(t.shape))
            return t

        x = leaf(m, [1.0, 2.0, 3.0])
        with m.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = body(m, x)
        n_packed = len(packed)
        y.backward()
        return n_packed, len(packed), len(unpacked), npy(x.grad)

    @pytest.mark.parametrize("which", ["mul_self", "chain", "matmul", "pow_exp", "custom"])
    def test_pack_unpack_counts(self, which):
        def body(m, x):
            if which == "mul_self":
                return (x * x).sum()
            if which == "chain":
                return ((x * x).sin().exp()).sum()
            if which == "matmul":
                return x.view(1, 3).matmul(x.view(3, 1)).sum()
            if which == "pow_exp":
                return (x.pow(2) + x.exp() + x.tanh()).sum()
            return exp_fn(m).apply(x).sum()

        e, t = self._counts(ember, body), self._counts(torch, body)
        assert e[:3] == t[:3]
        np.testing.assert_allclose(e[3], t[3], rtol=1e-6)

    def test_unpack_returns_modified_tensor(self):
        def f(m):
            x = leaf(m, [0.5, 1.0, 2.0])
            with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 0):
                y = x.sin().sum()  # saves x; backward sees zeros, cos(0) = 1
            y.backward()
            return x.grad

        e, t = run_both(f)
        assert_close(e, t)
        np.testing.assert_allclose(npy(e), [1.0, 1.0, 1.0])

    def test_pack_to_numpy_and_back(self):
        def f(m):
            x = leaf(m, [0.5, 1.0, 2.0])

            def pack(t):
                return npy(t)

            def unpack(a):
                return m.from_numpy(a)

            with m.autograd.graph.saved_tensors_hooks(pack, unpack):
                y = (x * x.exp()).sum()
            y.backward()
            return x.grad

        assert_close(*run_both(f))

    def test_hooks_only_inside_block(self):
        for m in MODULES:
            calls = []
            x = leaf(m, [1.0, 2.0])
            y0 = x.exp()  # saved outside: no hook
            with m.autograd.graph.saved_tensors_hooks(lambda t: calls.append("p") or t,
                                                      lambda t: calls.append("u") or t):
                pass
            y1 = x.sin()
            (y0 + y1).sum().backward()
            assert calls == [], m.__name__

    def test_nested_hooks_innermost_wins(self):
        def f(m):
            calls = []
            x = leaf(m, [1.0, 2.0])
            with m.autograd.graph.saved_tensors_hooks(lambda t: calls.append("outer") or t, lambda t: t):
                with m.autograd.graph.saved_tensors_hooks(lambda t: calls.append("inner") or t, lambda t: t):
                    y = x.sin()
                z = x.cos()
            (y + z).sum().backward()
            return calls

        e, t = run_both(f)
        assert e == t

    def test_unpack_called_each_backward_with_retain_graph(self):
        def f(m):
            calls = []
            x = leaf(m, [1.0, 2.0])
            with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: calls.append(1) or t):
                y = x.sin().sum()
            y.backward(retain_graph=True)
            y.backward()
            return len(calls)

        assert run_both(f)[0] == run_both(f)[1]

    def test_pack_hook_returning_input_keeps_version_check(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            h = x * 1
            with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                y = h.sin().sum()
            h.add_(1)
            y.backward()
            return x.grad

        outcome = {}
        for m in MODULES:
            try:
                outcome[m] = ("ok", npy(f(m)))
            except RuntimeError as e:
                outcome[m] = ("error", msg(m, e)[:60])
        assert outcome[ember][0] == outcome[torch][0]
        if outcome[torch][0] == "ok":  # cos within float32 rounding of torch's (its SLEEF and ours differ by an ulp)
            np.testing.assert_allclose(outcome[ember][1], outcome[torch][1], rtol=2e-7)
        else:
            assert outcome[ember] == outcome[torch]

    def test_pack_hook_under_no_grad_not_called(self):
        for m in MODULES:
            calls = []
            x = leaf(m, [1.0, 2.0])
            with m.autograd.graph.saved_tensors_hooks(lambda t: calls.append(1) or t, lambda t: t):
                with m.no_grad():
                    x.sin()
                m.ones(2).sin()  # nothing requires grad
            assert calls == [], m.__name__


# --------------------------------------------------------------------------
# 9. gradcheck / gradgradcheck
# --------------------------------------------------------------------------


def _gradcheck_error():
    return sys.modules["ember.autograd.gradcheck"].GradcheckError


class TestGradcheck:
    def test_passes_on_builtin_ops(self):
        x = leaf(ember, arr(3, dtype=np.float64))
        y = leaf(ember, arr(3, dtype=np.float64))
        assert ember.autograd.gradcheck(lambda a, b: (a * b).sin() + a.exp() / (b * b + 1), (x, y))
        assert ember.autograd.gradcheck(lambda a: a.matmul(a.t()).tanh(), (leaf(ember, arr(2, 3, dtype=np.float64)),))

    def test_gradgradcheck_passes(self):
        x = leaf(ember, arr(3, dtype=np.float64))
        assert ember.autograd.gradgradcheck(lambda a: a.tanh() * a ** 3, (x,))
        w = leaf(ember, arr(3, 2, dtype=np.float64))
        assert ember.autograd.gradgradcheck(lambda a, b: a.view(1, 3).matmul(b).sigmoid(), (x, w))

    def test_multiple_outputs(self):
        x = leaf(ember, arr(3, dtype=np.float64))
        assert ember.autograd.gradcheck(lambda a: (a.sin(), a * 2), (x,))

    def test_wrong_backward_raises(self):
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x  # should be 2 * x

        F = fn_class(ember, "WrongSquare", forward, backward)
        x = leaf(ember, arr(3, dtype=np.float64))
        with pytest.raises(RuntimeError) as info:
            ember.autograd.gradcheck(F.apply, (x,))
        assert type(info.value).__name__ == "GradcheckError"
        assert isinstance(info.value, _gradcheck_error())
        assert "Jacobian mismatch" in str(info.value)
        assert ember.autograd.gradcheck(F.apply, (x,), raise_exception=False) is False

    def test_torch_agrees_wrong_backward(self):
        def forward(ctx, x):
            return x ** 2

        def backward(ctx, g):
            return g * 0

        F = fn_class(torch, "WrongT", forward, backward)
        with pytest.raises(RuntimeError):
            torch.autograd.gradcheck(F.apply, (leaf(torch, arr(3, dtype=np.float64)),))
        G = fn_class(ember, "WrongE", forward, backward)
        with pytest.raises(RuntimeError):
            ember.autograd.gradcheck(G.apply, (leaf(ember, arr(3, dtype=np.float64)),))

    def test_gradgradcheck_detects_wrong_second_derivative(self):
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() ** 2  # right first derivative, not differentiable in x

        F = fn_class(ember, "CubeDetached", forward, backward)
        x = leaf(ember, arr(3, dtype=np.float64))
        assert ember.autograd.gradcheck(F.apply, (x,))
        with pytest.raises(RuntimeError) as info:
            ember.autograd.gradgradcheck(F.apply, (x,))
        assert isinstance(info.value, _gradcheck_error())

    def test_no_input_requires_grad(self):
        with pytest.raises(ValueError):
            ember.autograd.gradcheck(lambda a: a * 2, (ember.ones(2, dtype=ember.float64),))

    def test_leaves_inputs_unchanged(self):
        a = arr(4, dtype=np.float64)
        x = leaf(ember, a)
        ember.autograd.gradcheck(lambda t: t.exp(), (x,))
        np.testing.assert_array_equal(npy(x), a)
        assert x.grad is None


# --------------------------------------------------------------------------
# misc engine semantics
# --------------------------------------------------------------------------


class TestMisc:
    def test_requires_grad_false_on_non_leaf_errors(self):
        e = assert_same_error(lambda m: (leaf(m, [1.0]) * 2).requires_grad_(False))
        assert e.startswith("you can only change requires_grad flags of leaf variables.")

    def test_requires_grad_true_on_non_leaf(self):
        for m in MODULES:
            h = leaf(m, [1.0]) * 2
            h.requires_grad_(True)  # fine in torch
        # but the attribute setter refuses any change on a non-leaf in torch
        e = assert_same_error(lambda m: setattr(leaf(m, [1.0]) * 2, "requires_grad", True))
        assert e.startswith("you can only change requires_grad flags of leaf variables.")

    def test_graph_freed_when_output_dropped(self):
        # the graph holds saved tensors only while something references it
        import weakref

        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            h = x * 3
            ref = weakref.ref(h)
            y = h.exp()  # saves the result, not h
            z = y * h  # saves h
            del h
            gc.collect()
            alive = ref() is not None
            del z, y
            gc.collect()
            assert ref() is None, m.__name__
            assert alive or m is ember

    def test_backward_releases_graph_references(self):
        import weakref

        for m in MODULES:
            x = leaf(m, [1.0, 2.0])
            h = x * 3
            ref = weakref.ref(h)
            y = (h * h).sum()
            del h
            y.backward()
            gc.collect()
            assert ref() is None, m.__name__

    def test_grad_of_grad_accumulates_in_leaf_with_create_graph(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = (x ** 2).sum()
            m.autograd.backward(y, create_graph=True)
            g1 = npy(x.grad)
            return g1, x.grad.requires_grad

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (e1, er), (t1, tr) = run_both(f)
        np.testing.assert_allclose(e1, t1)
        assert er == tr

    def test_clone_and_contiguous_are_differentiable(self):
        check_grads(lambda m, x: (x.t().contiguous() * x.clone().t()).sum(), arr(3, 4))

    def test_detach_breaks_graph(self):
        check_grads(lambda m, x: (x * x.detach()).sum(), arr(3))

    def test_sequence_nr_increases(self):
        x = leaf(ember, [1.0])
        a = x * 2
        b = a * 2
        assert b.grad_fn._sequence_nr > a.grad_fn._sequence_nr

    def test_variable_alias(self):
        # Every tensor is a Variable; Variable(t) makes a new leaf (test_platform_api.py).
        assert isinstance(ember.ones(1), ember.autograd.Variable)

    def test_grad_fn_keeps_graph_alive(self):
        def f(m):
            x = leaf(m, [1.0, 2.0])
            y = (x.exp() * 2).sum()
            fn = y.grad_fn
            del y
            gc.collect()
            fn_out = fn(m.tensor(1.0))  # calling a node runs its backward
            return fn_out if isinstance(fn_out, tuple) else (fn_out,)

        e, t = run_both(f)
        assert len(e) == len(t)
