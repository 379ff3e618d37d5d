"""Trains a small MLP on the out-of-tree "foo" backend (examples/backend)
and checks it against the same training on the CPU: same losses, same
weights, the CPU fallback warning once per operator it served.

    python examples/backend/train_mlp.py build-backend/libfoo_backend.so
"""
import ctypes
import sys
import warnings

import numpy as np

import ember

library = sys.argv[1]
ember.ops.load_library(library)
ember.utils.generate_methods_for_privateuse1_backend()
counters = ctypes.CDLL(library)
counters.foo_allocated_bytes.restype = counters.foo_allocations.restype = ctypes.c_int64


def train(device):
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 1)).to(device)
    optimizer = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = ember.linspace(-1, 1, 32).reshape(8, 4).to(device)
    y = x.sum(1, keepdim=True).sin()
    losses = []
    for _ in range(5):
        optimizer.zero_grad()
        loss = ember.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return model, losses


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    foo_model, foo_losses = train("foo")
    # out= through the fallback: the output is resized and written on the device.
    out = ember.empty(0, device="foo")
    ember.sin(ember.arange(3.0, device="foo"), out=out)
cpu_model, cpu_losses = train("cpu")


def copies():
    """copy_ between host and device is the core's: the backend only moves dense bytes."""
    x = ember.arange(12.0).reshape(3, 4)
    assert ember.equal(x.t().to("foo").cpu(), x.t())  # strided source
    assert ember.equal(x.to("foo", ember.float64).cpu(), x.double())  # dtype changed on the host
    assert ember.equal(x.to("foo").to(ember.int32).cpu(), x.int())  # ... and on the device
    dst = ember.zeros(4, 3, device="foo").t()  # strided destination on the device
    dst.copy_(x)
    assert ember.equal(dst.cpu(), x)
    host = ember.zeros(4, 3).t()  # strided destination on the host
    host.copy_(dst)
    assert ember.equal(host, x)
    assert ember.equal(ember.empty(2, 3, device="foo").copy_(ember.tensor(7.0)).cpu(), ember.full((2, 3), 7.0))
    z = ember.tensor([1 + 2j, 3 - 4j])
    assert ember.equal(z.conj().to("foo").cpu(), z.conj().resolve_conj())


copies()


def generators():
    """foo's generators come from the factory it registered; its random ops run through the fallback."""
    g = ember.Generator(device="foo")
    assert g.device == ember.device("foo:0")
    drawn = ember.randn(4, device="foo", generator=g.manual_seed(3))
    assert drawn.is_foo and ember.equal(drawn.cpu(), ember.randn(4, generator=ember.Generator().manual_seed(3)))
    ember.manual_seed(5)  # seeds every device's default generator
    assert ember._C._default_generator(ember.device("foo")).initial_seed() == 5


with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the random fills run through the fallback, which says so
    generators()


def written_lists():
    """An operator that writes a list of tensors, with only a CPU kernel: the fallback updates each on the device."""
    lib = ember.library.Library("foo_example", "DEF")
    lib.define("scale_all_(Tensor(a!)[] xs, float factor) -> ()")
    lib.impl("scale_all_", lambda xs, factor: [x.mul_(factor) for x in xs] and None, "CPU")
    xs = [ember.ones(2, device="foo"), ember.arange(3.0, device="foo")]
    ember.ops.foo_example.scale_all_(xs, 2.0)
    assert xs[0].is_foo and xs[0].cpu().tolist() == [2.0, 2.0] and xs[1].cpu().tolist() == [0.0, 2.0, 4.0]


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    written_lists()

assert foo_model[0].weight.is_foo and foo_model[0].weight.grad.device == ember.device("foo:0")
np.testing.assert_allclose(foo_losses, cpu_losses, rtol=1e-6)
for mine, theirs in zip(foo_model.parameters(), cpu_model.parameters()):
    np.testing.assert_allclose(mine.detach().cpu().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-7)
assert out.is_foo and out.shape == (3,)
np.testing.assert_allclose(out.cpu().numpy(), np.sin(np.arange(3.0)), rtol=1e-6)
fell_back = [str(w.message).split("'")[1] for w in caught if "fall back to run on the CPU" in str(w.message)]
assert len(fell_back) == len(set(fell_back)), "each operator warns once"
print("losses:", " ".join(f"{v:.6f}" for v in foo_losses))
print("ran on the CPU through the fallback:", ", ".join(sorted(fell_back)))
print(f"foo memory: {counters.foo_allocated_bytes()} bytes held, {counters.foo_allocations()} allocations made")
print(ember.ones(2, device="foo"))
