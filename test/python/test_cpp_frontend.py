"""The C++ frontend against the Python one on the same model: a state_dict
saved by Python runs in C++ (ember_cpp_tests' PythonParity test) with the
same outputs, trains there to the weights Python's training reaches, comes
back to Python, and a model made in C++ after manual_seed(0) holds the
weights Python's gets after the same seed."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = pathlib.Path(os.environ.get("EMBER_BUILD_DIR", ROOT / "build")) / "test" / "cpp" / "ember_cpp_tests"


class Net(nn.Module):
    """test/cpp/api/test_nn.cpp's NetImpl, written in Python."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Linear(4 * 2 * 2, 3)
        self.register_buffer("scale", ember.ones(1))

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


class Net2(nn.Module):
    """test_nn.cpp's Net2Impl: one of each of the other modules."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 4, 3, padding=1)
        self.gn = nn.GroupNorm(2, 4)
        self.bn = nn.BatchNorm1d(4)
        self.pool = nn.AdaptiveAvgPool2d((3, 2))
        self.blocks = nn.ModuleList([nn.Linear(6, 6), nn.Linear(6, 6)])
        self.bil = nn.Bilinear(6, 6, 3)

    def forward(self, x):
        h = F.relu(self.bn(self.gn(self.conv(x))))
        p = self.pool(h.unsqueeze(1)).flatten(1)
        for block in self.blocks:
            p = block(p).tanh()
        return self.bil(p, p)


def _assert_same_state(state, module):
    """state (a file's state_dict) holds exactly module's names and values."""
    assert list(state) == list(module.state_dict())
    for name, tensor in module.state_dict().items():
        assert ember.equal(state[name], tensor), name


def _adam_step(net, optimizer, x):
    optimizer.zero_grad()
    net(x).pow(2).mean().backward()
    optimizer.step()


def _train(net, x, y, steps=3):
    optimizer = ember.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(net(x), y, label_smoothing=0.1)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return ember.stack(losses), optimizer


@pytest.mark.skipif(not BINARY.exists(), reason="needs the C++ test binary of a source build")
def test_state_dict_crosses_python_cpp_python(tmp_path):
    ember.manual_seed(1)
    net = Net()
    x, y = ember.randn(6, 1, 4, 4), ember.randint(0, 3, (6,))
    ember.save(net.state_dict(), tmp_path / "python_weights.ember")
    ember.save({"x": x, "y": y}, tmp_path / "inputs.ember")
    net2, x2 = Net2(), ember.randn(5, 2, 6)
    ember.save(net2.state_dict(), tmp_path / "python_weights2.ember")
    ember.save({"x": x2}, tmp_path / "inputs2.ember")
    encoder = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True, activation="gelu")
    x4 = ember.randn(3, 5, 8)
    causal = ember.ones(5, 5, dtype=ember.bool).triu(1)
    padding = ember.zeros(3, 5, dtype=ember.bool)
    padding[1, 3:] = True
    ember.save(encoder.state_dict(), tmp_path / "python_weights4.ember")
    ember.save({"x": x4, "causal": causal, "padding": padding}, tmp_path / "inputs4.ember")
    x5 = ember.randn(2, 4, 5, 5)
    ember.save({"x": x5}, tmp_path / "inputs5.ember")
    q6, k6, v6 = ember.randn(2, 3, 8), ember.randn(2, 4, 6), ember.randn(2, 4, 5)
    pad6 = ember.tensor([[False, False, True, True], [False, False, False, False]])
    ember.save({"q": q6, "k": k6, "v": v6, "padding": pad6}, tmp_path / "inputs6.ember")
    net3 = Net2()
    adam3 = ember.optim.Adam(net3.parameters(), lr=0.01, betas=(0.8, 0.99))
    _adam_step(net3, adam3, x2)
    ember.save(net3.state_dict(), tmp_path / "python_weights3.ember")
    ember.save(adam3.state_dict(), tmp_path / "python_adam3.ember")

    done = subprocess.run([str(BINARY), "--gtest_filter=PythonParity.*", "--gtest_brief=1"],
                          env={**os.environ, "EMBER_PARITY_DIR": str(tmp_path)}, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    cpp = ember.load(tmp_path / "cpp_outputs.ember")

    net.eval()
    with ember.no_grad():
        np.testing.assert_allclose(cpp["eval_out"].numpy(), net(x).numpy(), rtol=1e-6, atol=1e-6)
    net.train()
    losses, python_sgd = _train(net, x, y)
    np.testing.assert_allclose(cpp["losses"].numpy(), losses.numpy(), rtol=1e-5, atol=1e-6)

    # C++'s trained weights load into the Python model and agree with Python's training.
    trained = Net()
    trained.load_state_dict(ember.load(tmp_path / "cpp_weights.ember"))
    for (name, ours), (_, theirs) in zip(net.state_dict().items(), trained.state_dict().items()):
        np.testing.assert_allclose(theirs.numpy(), ours.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)

    optimizers = [ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=0.1) for _ in range(2)]
    cosine = ember.optim.lr_scheduler.CosineAnnealingLR(optimizers[0], T_max=4, eta_min=0.001)
    step = ember.optim.lr_scheduler.StepLR(optimizers[1], step_size=2, gamma=0.5)
    lrs = []
    for _ in range(10):
        optimizers[0].step()
        optimizers[1].step()
        cosine.step()
        step.step()
        lrs += [cosine.get_last_lr()[0], step.get_last_lr()[0]]
    assert ember.load(tmp_path / "cpp_lrs.ember")["lrs"].tolist() == lrs

    cpp2 = ember.load(tmp_path / "cpp_outputs2.ember")
    net2.eval()
    with ember.no_grad():
        np.testing.assert_allclose(cpp2["eval_out"].numpy(), net2(x2).numpy(), rtol=1e-5, atol=1e-6)
    net2.train()
    adam = ember.optim.Adam(net2.parameters(), lr=0.01)
    losses2 = []
    for _ in range(3):
        adam.zero_grad()
        loss = net2(x2).pow(2).mean()
        loss.backward()
        adam.step()
        losses2.append(loss.item())
    np.testing.assert_allclose(cpp2["losses"].numpy(), losses2, rtol=1e-5)
    ember.manual_seed(0)
    seeded2 = Net2()
    _assert_same_state(ember.load(tmp_path / "cpp_seeded2.ember"), seeded2)

    # Optimizer state both ways: C++'s SGD momentum equals Python's after the same
    # training, and Python's Adam resumed in C++ takes Python's next step.
    sgd = ember.optim.SGD(trained.parameters(), lr=0.5)
    sgd.load_state_dict(ember.load(tmp_path / "cpp_sgd.ember"))
    assert sgd.param_groups[0]["lr"] == 0.05 and sgd.param_groups[0]["momentum"] == 0.9
    for p_cpp, p_py in zip(trained.parameters(), net.parameters()):
        np.testing.assert_allclose(sgd.state[p_cpp]["momentum_buffer"].numpy(),
                                   python_sgd.state[p_py]["momentum_buffer"].numpy(), rtol=1e-5, atol=1e-6)
    _adam_step(net3, adam3, x2)
    resumed = Net2()
    resumed.load_state_dict(ember.load(tmp_path / "cpp_weights3.ember"))
    for (name, ours3), (_, theirs3) in zip(net3.state_dict().items(), resumed.state_dict().items()):
        np.testing.assert_allclose(theirs3.numpy(), ours3.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)

    cpp4 = ember.load(tmp_path / "cpp_outputs4.ember")
    encoder.eval()
    with ember.no_grad():
        np.testing.assert_allclose(cpp4["encoded"].numpy(), encoder(x4, causal, padding).numpy(), rtol=1e-5,
                                   atol=1e-5)
        weights = encoder.self_attn(x4, x4, x4, key_padding_mask=padding, attn_mask=causal)[1]
        np.testing.assert_allclose(cpp4["attention"].numpy(), weights.numpy(), rtol=1e-5, atol=1e-6)
        per_head = encoder.self_attn(x4, x4 * 2, x4, average_attn_weights=False)[1]
        np.testing.assert_allclose(cpp4["per_head"].numpy(), per_head.numpy(), rtol=1e-5, atol=1e-6)
    ember.manual_seed(0)
    seeded4 = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True, activation="gelu")
    _assert_same_state(ember.load(tmp_path / "cpp_seeded4.ember"), seeded4)

    ember.manual_seed(0)
    up = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
    cpp5 = ember.load(tmp_path / "cpp_outputs5.ember")
    assert ember.equal(cpp5["weight"], up.weight.detach()) and ember.equal(cpp5["bias"], up.bias.detach())
    with ember.no_grad():
        np.testing.assert_allclose(cpp5["out"].numpy(), up(x5).numpy(), rtol=1e-6, atol=1e-6)
    assert repr(up) == ("ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), "
                        "output_padding=(1, 1), groups=2)")

    ember.manual_seed(0)
    seeded = Net()
    _assert_same_state(ember.load(tmp_path / "cpp_seeded.ember"), seeded)

    ember.manual_seed(0)
    cross = nn.MultiheadAttention(8, 2, kdim=6, vdim=5, add_bias_kv=True, add_zero_attn=True, batch_first=True)
    _assert_same_state(ember.load(tmp_path / "cpp_seeded6.ember"), cross.eval())
    cpp6 = ember.load(tmp_path / "cpp_outputs6.ember")
    with ember.no_grad():
        out6, weights6 = cross(q6, k6, v6, key_padding_mask=pad6)
    np.testing.assert_allclose(cpp6["out"].numpy(), out6.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cpp6["weights"].numpy(), weights6.numpy(), rtol=1e-5, atol=1e-6)
