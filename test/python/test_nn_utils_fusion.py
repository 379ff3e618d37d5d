"""nn.utils fusion (conv/linear + eval-mode BatchNorm folded into one layer)
and skip_init, against torch and against the unfused layers."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def trained_bn(lib, bn):
    """Running statistics and affine parameters that are not the defaults."""
    with lib.no_grad():
        n = bn.num_features
        bn.running_mean.copy_(lib.tensor(np.linspace(-1, 1, n), dtype=lib.float32))
        bn.running_var.copy_(lib.tensor(np.linspace(0.5, 2, n), dtype=lib.float32))
        if bn.weight is not None:
            bn.weight.copy_(lib.tensor(np.linspace(0.8, 1.3, n), dtype=lib.float32))
            bn.bias.copy_(lib.tensor(np.linspace(-0.2, 0.3, n), dtype=lib.float32))
    return bn.eval()


@pytest.mark.parametrize("kind", ["conv2d", "conv_transpose2d", "conv1d_no_bias", "linear", "linear_no_affine"])
def test_fused_layer_matches_the_pair_and_torch(kind):
    outputs = []
    # torch 2.13's fuse_linear_bn_weights multiplies by a missing bn weight; Ember treats it as 1.
    for lib in (ember, torch) if kind != "linear_no_affine" else (ember,):
        lib.manual_seed(0)
        if kind == "conv2d":
            layer, bn, x = lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4), np.ones((2, 3, 5, 5))
        elif kind == "conv_transpose2d":
            layer, bn, x = lib.nn.ConvTranspose2d(3, 4, 2), lib.nn.BatchNorm2d(4), np.ones((2, 3, 4, 4))
        elif kind == "conv1d_no_bias":
            layer, bn, x = lib.nn.Conv1d(3, 4, 3, bias=False), lib.nn.BatchNorm1d(4), np.ones((2, 3, 6))
        else:
            layer, bn, x = lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4, affine=kind == "linear"), np.ones((2, 3))
        x = lib.tensor(np.linspace(-1, 1, x.size).reshape(x.shape), dtype=lib.float32)
        layer.eval()
        trained_bn(lib, bn)
        if kind.startswith("linear"):
            fused = lib.nn.utils.fuse_linear_bn_eval(layer, bn)
        else:
            fused = lib.nn.utils.fuse_conv_bn_eval(layer, bn, transpose=kind == "conv_transpose2d")
        with lib.no_grad():
            pair, one = bn(layer(x)), fused(x)
        np.testing.assert_allclose(one.numpy(), pair.numpy(), rtol=1e-5, atol=1e-5)
        assert isinstance(fused.weight, lib.nn.Parameter) and fused.bias is not None
        outputs.append(one.numpy())
    np.testing.assert_allclose(outputs[0], outputs[-1], rtol=1e-5, atol=1e-5)


def test_fusion_needs_eval_mode():
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        ember.nn.utils.fuse_conv_bn_eval(ember.nn.Conv2d(1, 1, 1), ember.nn.BatchNorm2d(1))


def test_skip_init_allocates_without_initializing():
    layer = ember.nn.utils.skip_init(ember.nn.Linear, 3, 4)
    assert type(layer) is ember.nn.Linear and layer.weight.device.type == "cpu" and tuple(layer.weight.shape) == (4, 3)
    with pytest.raises(RuntimeError, match="must support a 'device' arg"):
        ember.nn.utils.skip_init(ember.nn.Sequential)
