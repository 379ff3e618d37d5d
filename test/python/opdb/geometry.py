"""Geometry samples: calls whose results are checked for shape, dtype and
strides only, for the operators the value entries (pointwise.py,
structured.py) do not call: factories, random ops, views, in-place and out=
forms and backward kernels.

The keys are the overloads the samples reach (test_opdb.py checks that
with the operator log). Each sample is a function of a device; test_meta.py runs it on 'meta' and on
'cpu' and compares the results' geometry.
"""

import ember

# Overloads Python's ember.* functions do not choose (they wrap Python
# numbers as tensors, as torch does) are called by name.
aten = ember.ops.aten

def t(device, *shape, dtype=None):
    x = ember.zeros(*shape, dtype=dtype, device=device)
    return x


SAMPLES = {
    "empty": lambda d: ember.empty(2, 3, device=d),
    "empty.out": lambda d: ember.empty(2, 3, out=t(d, 0)),
    "empty_strided": lambda d: ember.empty_strided([2, 3], [1, 2], device=d),
    "zeros": lambda d: ember.zeros(2, 3, dtype=ember.int32, device=d),
    "zeros.out": lambda d: ember.zeros(4, out=t(d, 1)),
    "ones": lambda d: ember.ones(2, device=d),
    "ones.out": lambda d: ember.ones(2, 2, out=t(d, 1)),
    "full": lambda d: ember.full([2, 3], 7, device=d),
    "full.out": lambda d: ember.full([3], 1.5, out=t(d, 0)),
    "scalar_tensor": lambda d: ember.scalar_tensor(3.5, device=d),
    "empty_like": lambda d: ember.empty_like(t(d, 3, 4).t()),
    "zeros_like": lambda d: ember.zeros_like(t(d, 3, 4), dtype=ember.float64),
    "ones_like": lambda d: ember.ones_like(t(d, 2, 5)),
    "full_like": lambda d: ember.full_like(t(d, 2), 4),
    "arange": lambda d: ember.arange(5, device=d),
    "arange.start": lambda d: ember.arange(1.0, 4.0, 0.5, device=d),
    "arange.out": lambda d: ember.arange(5, out=t(d, 0, dtype=ember.int64)),
    "arange.start_out": lambda d: ember.arange(1, 9, 2, out=t(d, 0)),
    "linspace": lambda d: ember.linspace(0, 1, 7, device=d),
    "linspace.out": lambda d: ember.linspace(0, 1, 3, out=t(d, 0)),
    "eye": lambda d: ember.eye(3, device=d),
    "eye.m": lambda d: ember.eye(2, 4, device=d),
    "eye.out": lambda d: ember.eye(3, out=t(d, 0)),
    "eye.m_out": lambda d: ember.eye(3, 2, out=t(d, 0)),
    "rand": lambda d: ember.rand(2, 3, device=d),
    "rand.out": lambda d: ember.rand(4, out=t(d, 0)),
    "randn": lambda d: ember.randn(3, device=d, dtype=ember.float64),
    "randn.out": lambda d: ember.randn(2, 2, out=t(d, 0)),
    "randint": lambda d: ember.randint(5, (2, 3), device=d),
    "randint.low": lambda d: ember.randint(1, 5, (4,), device=d, dtype=ember.int16),
    "randint.out": lambda d: ember.randint(5, (3,), out=t(d, 0, dtype=ember.int64)),
    "randint.low_out": lambda d: ember.randint(2, 5, (3,), out=t(d, 0, dtype=ember.int64)),
    "new_empty": lambda d: t(d, 2).new_empty(3, 2),
    "new_zeros": lambda d: t(d, 2, 3).t().new_zeros((2, 2), dtype=ember.int16),
    "new_ones": lambda d: t(d, 1).new_ones(4),
    "new_full": lambda d: t(d, 2).new_full((2, 3), 1.5),
    "rand_like": lambda d: ember.rand_like(t(d, 2, 3)),
    "randn_like": lambda d: ember.randn_like(t(d, 2, 3)),
    "uniform_": lambda d: t(d, 2, 3).uniform_(-1, 1),
    "normal_": lambda d: t(d, 4).normal_(),
    "random_.from": lambda d: t(d, 3, dtype=ember.int64).random_(0, 10),
    "random_.to": lambda d: t(d, 3, dtype=ember.int64).random_(10),
    "random_": lambda d: t(d, 3, dtype=ember.int32).random_(),
    "exponential_": lambda d: t(d, 2, 2).exponential_(0.5),
    "frexp.Tensor_out": lambda d: ember.frexp(t(d, 2, 3), out=(t(d, 0), t(d, 0, dtype=ember.int32))),
    "geometric_": lambda d: t(d, 2, 2).geometric_(0.3),
    "log_normal_": lambda d: t(d, 3).log_normal_(0.5, 0.25),
    "cauchy_": lambda d: t(d, 2, 3).cauchy_(1, 2),
    "poisson": lambda d: ember.poisson(t(d, 2, 3).abs()),
    "_standard_gamma": lambda d: ember._standard_gamma(t(d, 2, 3).add(2.0)),
    "_standard_gamma_grad": lambda d: ember._standard_gamma_grad(t(d, 2, 1).add(2.0), t(d, 3).add(1.0)),
    "binomial": lambda d: ember.binomial(t(d, 3, 1).abs().mul(10).floor(), t(d, 4).abs().clamp(max=1)),
    "view": lambda d: t(d, 2, 6).view(3, -1),
    "view_as": lambda d: t(d, 6).view_as(t(d, 2, 3)),
    "reshape": lambda d: t(d, 2, 6).t().reshape(4, 3),
    "reshape_as": lambda d: t(d, 6).reshape_as(t(d, 3, 2)),
    "transpose.int": lambda d: ember.transpose(t(d, 2, 3, 4), 0, 2),
    "swapaxes": lambda d: ember.swapaxes(t(d, 2, 3), 0, 1),
    "t": lambda d: ember.t(t(d, 2, 5)),
    "permute": lambda d: ember.permute(t(d, 2, 3, 4), (2, 0, 1)),
    "expand": lambda d: t(d, 3, 1).expand(2, 3, 4),
    "expand_as": lambda d: t(d, 1, 4).expand_as(t(d, 3, 4)),
    "broadcast_to": lambda d: ember.broadcast_to(t(d, 3, 1), (2, 3, 4)),
    "broadcast_tensors": lambda d: ember.broadcast_tensors(t(d, 3, 1), t(d, 4)),
    "squeeze": lambda d: ember.squeeze(t(d, 1, 3, 1)),
    "squeeze.dim": lambda d: ember.squeeze(t(d, 1, 3, 1), 2),
    "unsqueeze": lambda d: ember.unsqueeze(t(d, 2, 3), 1),
    "flatten.using_ints": lambda d: ember.flatten(t(d, 2, 3, 4), 1),
    "as_strided": lambda d: ember.as_strided(t(d, 12), (3, 3), (1, 3), 1),
    "as_strided_": lambda d: t(d, 12).as_strided_((3, 3), (1, 3), 1),
    "select.int": lambda d: ember.select(t(d, 2, 3, 4), 1, -1),
    "slice.Tensor": lambda d: ember.slice(t(d, 10, 2), 0, 1, 8, 3),
    "narrow": lambda d: ember.narrow(t(d, 5, 4), 1, 1, 2),
    "unfold": lambda d: t(d, 7, 2).unfold(0, 3, 2),
    "alias": lambda d: ember.alias(t(d, 3, 2)),
    "detach": lambda d: ember.detach(t(d, 3)),
    "conj": lambda d: ember.conj(t(d, 2, dtype=ember.complex64)),
    "copy_": lambda d: t(d, 2, 3).copy_(t(d, 3, dtype=ember.int32)),
    "clone": lambda d: ember.clone(t(d, 3, 4).t()),
    "contiguous": lambda d: t(d, 3, 4).t().contiguous(),
    "resolve_conj": lambda d: ember.resolve_conj(ember.conj(t(d, 2, dtype=ember.complex128))),
    "resolve_neg": lambda d: ember.resolve_neg(t(d, 2)),
    "_neg_view": lambda d: aten._neg_view(t(d, 2, 3)),
    "lgamma_": lambda d: (t(d, 3) + 1).lgamma_(),
    "digamma_": lambda d: (t(d, 3) + 1).digamma_(),
    "i0_": lambda d: t(d, 3).i0_(),
    "polygamma_": lambda d: (t(d, 3) + 1).polygamma_(1),
    "igamma_": lambda d: (t(d, 3) + 1).igamma_(t(d, 3) + 2),
    "igammac_": lambda d: (t(d, 3) + 1).igammac_(t(d, 3) + 2),
    "complex.out": lambda d: ember.complex(t(d, 3), t(d, 1), out=t(d, 0, dtype=ember.complex64)),
    "polar.out": lambda d: ember.polar(t(d, 3), t(d, 3), out=t(d, 0, dtype=ember.complex64)),
    "view_as_real": lambda d: ember.view_as_real(t(d, 2, 3, dtype=ember.complex64)),
    "view_as_complex": lambda d: ember.view_as_complex(t(d, 3, 2)),
    "to.dtype": lambda d: aten.to.dtype(t(d, 2, 3), ember.float16),
    "to.device": lambda d: t(d, 2).to(d, ember.int8),
    "to.other": lambda d: aten.to.other(t(d, 2), t(d, 1, dtype=ember.float64)),
    "type_as": lambda d: t(d, 2).type_as(t(d, 1, dtype=ember.int32)),
    "fill_.Scalar": lambda d: t(d, 2, 2).fill_(3),
    "zero_": lambda d: t(d, 3).zero_(),
    "resize_": lambda d: t(d, 3).resize_(2, 5),
}


# Elementwise overloads the pointwise entries do not reach: a number
# shifted by a tensor, and the out= forms of aliases.
SAMPLES.update({
    "bitwise_left_shift.Scalar_Tensor": lambda d: ember.bitwise_left_shift(3, t(d, 2, 2, dtype=ember.int8)),
    "bitwise_right_shift.Scalar_Tensor": lambda d: ember.bitwise_right_shift(3, t(d, 2, 2, dtype=ember.int8)),
    "where.Scalar": lambda d: aten.where.Scalar(t(d, 3, dtype=ember.bool), 1.0, 0),
    "clip.out": lambda d: ember.clip(t(d, 3), -1, 1, out=t(d, 0)),
    "floor_divide.out": lambda d: ember.floor_divide(t(d, 3), t(d, 3), out=t(d, 0)),
    "true_divide.out": lambda d: ember.true_divide(t(d, 3), t(d, 3), out=t(d, 0)),
    "pow.Scalar_out": lambda d: ember.pow(2, t(d, 3), out=t(d, 0)),
})

SAMPLES.update({
    "sum.dim_IntList": lambda d: t(d, 2, 3, 4).sum((0, 2), keepdim=True),
    "sum.IntList_out": lambda d: ember.sum(t(d, 2, 3), 1, out=t(d, 0)),
    "mean.dim": lambda d: t(d, 2, 3).t().mean(1),
    "mean.out": lambda d: ember.mean(t(d, 2, 3), 0, out=t(d, 0)),
    "prod.dim_int": lambda d: t(d, 2, 3).prod(1, keepdim=True),
    "var.correction": lambda d: t(d, 3, 4).var(1, correction=0),
    "var.dim": lambda d: t(d, 3, 4).var(0, True, True),
    "std.correction": lambda d: t(d, 3, 4).std(1, correction=2),
    "std.dim": lambda d: t(d, 3, 4).std(1, False),
    "norm.ScalarOpt_dim": lambda d: ember.norm(t(d, 3, 4), 1, [1]),
    "norm.Scalar": lambda d: t(d, 3, 4).norm(),
    "all.dim": lambda d: t(d, 3, 2).all(1),
    "any.dim": lambda d: t(d, 3, 2).any(0, keepdim=True),
    "softmax.int": lambda d: t(d, 3, 4).softmax(0),
    "log_softmax.int": lambda d: t(d, 3, 4).log_softmax(-1),
    "nll_loss_forward": lambda d: ember.nll_loss_forward(t(d, 4, 3), ember.zeros(4, dtype=ember.int64, device=d), None, 1,
                                                         -100),
    "nll_loss_backward": lambda d: ember.nll_loss_backward(t(d), t(d, 4, 3, 2), ember.zeros(4, 2, dtype=ember.int64, device=d),
                                                           t(d, 3), 2, -100, t(d)),
    "_fused_elementwise": lambda d: ember._fused_elementwise([t(d, 2, 3), t(d, 3)], "mul(%0,%1);tanh($0)"),
    "_adam_step_": lambda d: ember._adam_step_(t(d, 3), t(d, 3), t(d, 3), t(d, 3).abs(), 2.0, 0.1, 0.9, 0.99, 0.01, 1e-8,
                                               False, True),
    "_safe_softmax": lambda d: ember._safe_softmax(t(d, 3, 4), 1),
    "_amp_foreach_non_finite_check_and_unscale_": lambda d: ember._amp_foreach_non_finite_check_and_unscale_(
        [t(d, 3), t(d, 2, 2)], t(d), ember.ones((), device=d)),
    "_amp_update_scale_": lambda d: ember._amp_update_scale_(ember.ones((), device=d), t(d, dtype=ember.int32), t(d),
                                                             2.0, 0.5, 2),
    "_softmax_backward_data": lambda d: ember._softmax_backward_data(t(d, 3, 4), t(d, 3, 4), 0, ember.float32),
    "_log_softmax_backward_data": lambda d: ember._log_softmax_backward_data(t(d, 3, 4), t(d, 3, 4), -1,
                                                                              ember.float64),
    "cumsum_": lambda d: t(d, 3, 4).cumsum_(0),
    "cumsum.out": lambda d: ember.cumsum(t(d, 3), 0, out=t(d, 0)),
    "addmm.out": lambda d: ember.addmm(t(d, 3), t(d, 2, 4), t(d, 4, 3), out=t(d, 0)),
    "addmm_": lambda d: t(d, 2, 3).addmm_(t(d, 2, 4), t(d, 4, 3)),
    "addmv_": lambda d: ember.addmv_(t(d, 2), t(d, 2, 4), t(d, 4), beta=0.5),
    "baddbmm_": lambda d: t(d, 2, 2, 3).baddbmm_(t(d, 2, 2, 4), t(d, 2, 4, 3), alpha=2),
    "mm.out": lambda d: ember.mm(t(d, 2, 4), t(d, 4, 3), out=t(d, 0)),
    "bmm.out": lambda d: ember.bmm(t(d, 5, 2, 4), t(d, 5, 4, 3), out=t(d, 0)),
})

SAMPLES.update({
    "cat.out": lambda d: ember.cat([t(d, 2, 3), t(d, 1, 3)], out=t(d, 0)),
    "split.Tensor": lambda d: t(d, 5, 2).split(2),
    "split.sizes": lambda d: t(d, 5, 2).split([2, 3]),
    "unbind.int": lambda d: t(d, 3, 2).unbind(1),
    "scatter.src": lambda d: t(d, 4, 3).scatter(1, ember.zeros(4, 1, dtype=ember.int64, device=d), t(d, 4, 1)),
    "scatter_.src": lambda d: t(d, 4, 3).scatter_(0, ember.zeros(1, 3, dtype=ember.int64, device=d), t(d, 1, 3)),
    "scatter.value": lambda d: t(d, 4, 3).scatter(1, ember.zeros(4, 1, dtype=ember.int64, device=d), 2.0),
    "scatter_.value": lambda d: t(d, 4, 3).scatter_(1, ember.zeros(4, 1, dtype=ember.int64, device=d), 2.0),
    "scatter_add_": lambda d: t(d, 4, 3).scatter_add_(0, ember.zeros(2, 3, dtype=ember.int64, device=d), t(d, 2, 3)),
    "masked_fill.Scalar": lambda d: t(d, 2, 3).masked_fill(t(d, 3, dtype=ember.bool), 1.0),
    "masked_fill_.Scalar": lambda d: t(d, 2, 3).masked_fill_(t(d, 3, dtype=ember.bool), 1.0),
    "masked_fill.Tensor": lambda d: t(d, 2, 3).masked_fill(t(d, 2, 3, dtype=ember.bool), ember.tensor(1.0)),
    "masked_fill_.Tensor": lambda d: t(d, 2, 3).masked_fill_(t(d, 2, 3, dtype=ember.bool), ember.tensor(1.0)),
})

SAMPLES.update({
    "movedim.int": lambda d: t(d, 2, 3, 4).movedim(0, -1),
    "moveaxis.int": lambda d: ember.moveaxis(t(d, 2, 3, 4), 0, -1),
    "swapdims": lambda d: t(d, 2, 3, 4).swapdims(0, 2),
    "batch_norm": lambda d: ember.batch_norm(t(d, 2, 3, 4), t(d, 3), t(d, 3), None, None, True, 0.1, 1e-5, False),
})

SAMPLES.update({
    "addcmul.out": lambda d: ember.addcmul(t(d, 3), t(d, 2, 1), t(d, 3), value=2, out=t(d, 0)),
    "addcmul": lambda d: ember.addcmul(t(d, 2, 3), t(d, 3), t(d, 2, 1, dtype=ember.float64)),
    "addcmul_": lambda d: t(d, 2, 3).addcmul_(t(d, 3), t(d, 2, 3)),
    "addcdiv.out": lambda d: ember.addcdiv(t(d, 3), t(d, 2, 1), t(d, 3), out=t(d, 0)),
    "addcdiv": lambda d: ember.addcdiv(t(d, 4, 1), t(d, 3), t(d, 4, 3), value=0.5),
    "addcdiv_": lambda d: t(d, 2, 3).addcdiv_(t(d, 3), t(d, 2, 3)),
    "lerp.Scalar_out": lambda d: ember.lerp(t(d, 3), t(d, 2, 3), 0.3, out=t(d, 0)),
    "lerp.Scalar": lambda d: ember.lerp(t(d, 2, 1), t(d, 3), 0.7),
    "lerp_.Scalar": lambda d: t(d, 2, 3).lerp_(t(d, 3), 0.5),
    "lerp.Tensor_out": lambda d: ember.lerp(t(d, 3), t(d, 2, 3), t(d, 3), out=t(d, 0)),
    "lerp.Tensor": lambda d: ember.lerp(t(d, 2, 1), t(d, 3), t(d, 2, 3)),
    "lerp_.Tensor": lambda d: t(d, 2, 3).lerp_(t(d, 3), t(d, 1)),
    "erfinv.out": lambda d: ember.erfinv(t(d, 3), out=t(d, 0)),
    "erfinv": lambda d: t(d, 2, 3, dtype=ember.int32).erfinv(),
    "erfinv_": lambda d: t(d, 2, 3).erfinv_(),
    "isnan": lambda d: t(d, 2, 3).isnan(),
    "isinf": lambda d: t(d, 2, 3, dtype=ember.int64).isinf(),
    "isfinite": lambda d: t(d, 3, 2).t().isfinite(),
    "isposinf": lambda d: t(d, 2, 3).isposinf(),
    "isneginf": lambda d: t(d, 2, 3).isneginf(),
    "tril": lambda d: t(d, 2, 3, 4).tril(1),
    "tril_": lambda d: t(d, 3, 4).tril_(-1),
    "tril.out": lambda d: ember.tril(t(d, 3, 4), out=t(d, 0)),
    "triu": lambda d: t(d, 4, 3).t().triu(),
    "triu_": lambda d: t(d, 3, 4).triu_(2),
    "triu.out": lambda d: ember.triu(t(d, 3, 4), 1, out=t(d, 0)),
    "flip": lambda d: t(d, 2, 3, 4).flip([0, 2]),
    "roll": lambda d: t(d, 2, 3).roll([1], [1]),
    "repeat": lambda d: t(d, 2, 3).repeat(2, 1, 3),
    "constant_pad_nd": lambda d: ember.constant_pad_nd(t(d, 2, 3), [1, 2, -1, 0], 1.0),
    "randperm": lambda d: ember.randperm(6, device=d),
    "randperm.out": lambda d: ember.randperm(4, out=t(d, 0, dtype=ember.int32)),
    "bernoulli": lambda d: ember.bernoulli(t(d, 2, 3)),
    "bernoulli.p": lambda d: ember.bernoulli(t(d, 2, 3), 0.5),
    "bernoulli_.float": lambda d: t(d, 2, 3).bernoulli_(0.25),
    "multinomial": lambda d: ember.multinomial(t(d, 2, 3).abs() + 0.1, 2),
    "multinomial.out": lambda d: ember.multinomial(t(d, 3).abs() + 0.1, 4, True, out=t(d, 0, dtype=ember.int64)),
    "native_batch_norm": lambda d: ember.native_batch_norm(t(d, 2, 3, 4), t(d, 3), None, None, None, True, 0.1, 1e-5),
    "native_batch_norm_backward": lambda d: ember.native_batch_norm_backward(
        t(d, 2, 3, 4), t(d, 2, 3, 4), t(d, 3), None, None, t(d, 3), t(d, 3), True, 1e-5, [True, True, False]),
    "_conv2d_backward": lambda d: ember._conv2d_backward(t(d, 2, 4, 3, 3), t(d, 2, 3, 5, 6), t(d, 4, 3, 3, 2), [2, 2],
                                                         [1, 0], [1, 1], 1, [True, True, True]),
    "native_layer_norm": lambda d: ember.native_layer_norm(t(d, 2, 3, 4), [4], t(d, 4), None, 1e-5),
    "native_layer_norm_backward": lambda d: ember.native_layer_norm_backward(
        t(d, 2, 3), t(d, 2, 3), [3], t(d, 2, 1), t(d, 2, 1), t(d, 3), t(d, 3), [True, True, False]),
    "native_dropout": lambda d: ember.native_dropout(t(d, 2, 3), 0.25, True),
    "native_dropout_backward": lambda d: ember.native_dropout_backward(
        t(d, 2, 3), ember.ones(2, 3, dtype=ember.bool, device=d), 2.0),
    "threshold_backward": lambda d: ember.threshold_backward(t(d, 2, 3), t(d, 3), 0.5),
    "threshold_backward.grad_input": lambda d: ember.threshold_backward(t(d, 2, 3), t(d, 2, 3), 0, out=t(d, 0)),
    "gelu_backward": lambda d: ember.gelu_backward(t(d, 2, 3), t(d, 2, 3), approximate="tanh"),
    "gelu_backward.grad_input": lambda d: ember.gelu_backward(t(d, 2, 3), t(d, 3), out=t(d, 0)),
    "elu_backward": lambda d: ember.elu_backward(t(d, 2, 3), 1.0, 1.0, 1.0, True, t(d, 3)),
    "elu_backward.grad_input": lambda d: ember.elu_backward(t(d, 2, 3), 0.5, 2.0, 1.0, False, t(d, 2, 3), out=t(d, 0)),
    "leaky_relu_backward": lambda d: ember.leaky_relu_backward(t(d, 3), t(d, 2, 3), 0.1, False),
    "leaky_relu_backward.grad_input": lambda d: ember.leaky_relu_backward(t(d, 2, 3), t(d, 2, 3), 0.1, True,
                                                                          out=t(d, 0)),
    "hardswish_backward": lambda d: ember.hardswish_backward(t(d, 2, 3), t(d, 3)),
    "hardswish_backward.out": lambda d: ember.hardswish_backward(t(d, 2, 3), t(d, 2, 3), out=t(d, 0)),
    "hardsigmoid_backward": lambda d: ember.hardsigmoid_backward(t(d, 2, 3), t(d, 2, 3)),
    "hardsigmoid_backward.grad_input": lambda d: ember.hardsigmoid_backward(t(d, 2, 3), t(d, 3), out=t(d, 0)),
    "hardtanh_backward": lambda d: ember.hardtanh_backward(t(d, 2, 3), t(d, 2, 3), -1.0, 1.0),
    "hardtanh_backward.grad_input": lambda d: ember.hardtanh_backward(t(d, 2, 3), t(d, 3), 0.0, 6.0, out=t(d, 0)),
    "softplus_backward": lambda d: ember.softplus_backward(t(d, 2, 3), t(d, 2, 3), 1.0, 20.0),
    "softplus_backward.grad_input": lambda d: ember.softplus_backward(t(d, 3), t(d, 2, 3), 2.0, 3.0, out=t(d, 0)),
    "max_pool2d_with_indices": lambda d: ember.max_pool2d_with_indices(t(d, 2, 3, 9, 8), [3, 3], [2, 2], [1, 1]),
    "max_pool2d_with_indices_backward": lambda d: ember.max_pool2d_with_indices_backward(
        t(d, 2, 3, 4, 4), t(d, 2, 3, 8, 8), [2, 2], [2, 2], [0, 0], [1, 1], False,
        ember.zeros(2, 3, 4, 4, dtype=ember.int64, device=d)),
})

def _rnn_params(d, gates, layers=1, directions=1, inputs=3, hidden=2):
    params = []
    for layer in range(layers):
        width = inputs if layer == 0 else hidden * directions
        for _ in range(directions):
            params += [t(d, gates * hidden, width), t(d, gates * hidden, hidden), t(d, gates * hidden),
                       t(d, gates * hidden)]
    return params


def _batch_sizes():
    return ember.tensor([2, 2, 1])


SAMPLES.update({
    "_fused_lstm_cell": lambda d: ember._fused_lstm_cell(t(d, 3, 8), t(d, 3, 8), t(d, 3, 2), t(d, 8), t(d, 8)),
    "_fused_lstm_cell_backward": lambda d: ember._fused_lstm_cell_backward(
        t(d, 3, 2), t(d, 3, 2), t(d, 3, 8), t(d, 3, 8), t(d, 3, 2), t(d, 3, 2), None, None),
    "_cross_entropy_rows": lambda d: ember._cross_entropy_rows(t(d, 3, 5), t(d, 3, dtype=ember.int64), 0),
    "_cross_entropy_rows_backward": lambda d: ember._cross_entropy_rows_backward(
        t(d), t(d, 3, 5), t(d, 3, dtype=ember.int64), t(d, 3), 1, -100),
    "_onednn_lstm_layer": lambda d: ember._onednn_lstm_layer(t(d, 4, 3, 5), t(d, 3, 2), t(d, 3, 2), t(d, 8, 5),
                                                             t(d, 8, 2), t(d, 8), t(d, 8), False, False),
    "_onednn_lstm_layer_backward": lambda d: ember._onednn_lstm_layer_backward(
        t(d, 4, 3, 5), t(d, 3, 2), t(d, 3, 2), t(d, 8, 5), t(d, 8, 2), None, None, True, t(d, 4, 3, 2), t(d, 3, 2),
        t(d, 3, 2), ember._onednn_lstm_layer(t(d, 4, 3, 5), t(d, 3, 2), t(d, 3, 2), t(d, 8, 5), t(d, 8, 2), None,
                                             None, True, True)[3], t(d, 4, 3, 2), None, None),
    "_scaled_dot_product_flash_attention_for_cpu": lambda d: ember._scaled_dot_product_flash_attention_for_cpu(
        t(d, 2, 3, 4, 5), t(d, 2, 3, 6, 5), t(d, 2, 3, 6, 7), is_causal=True),
    "_scaled_dot_product_flash_attention_for_cpu_backward":
        lambda d: ember._scaled_dot_product_flash_attention_for_cpu_backward(
            t(d, 2, 3, 4, 7), t(d, 2, 3, 4, 5), t(d, 2, 3, 6, 5), t(d, 2, 3, 6, 7), t(d, 2, 3, 4, 7), t(d, 2, 3, 4),
            0.0, False, attn_mask=t(d, 4, 6, dtype=ember.bool)),
    "_fused_gru_cell": lambda d: ember._fused_gru_cell(t(d, 3, 6), t(d, 3, 6), t(d, 3, 2)),
    "_fused_gru_cell_backward": lambda d: ember._fused_gru_cell_backward(
        t(d, 3, 2), t(d, 3, 6), t(d, 3, 6), t(d, 3, 2), t(d, 6), t(d, 6)),
    "_rnn_recurrence": lambda d: ember._rnn_recurrence(t(d, 4, 3, 8), t(d, 3, 2), t(d, 3, 2), t(d, 8, 2), None,
                                                       t(d, 8), None, 0, True),
    "_rnn_recurrence_backward": lambda d: ember._rnn_recurrence_backward(
        t(d, 4, 3, 2), t(d, 3, 2), t(d, 0), t(d, 4, 3, 6), t(d, 3, 2), None, t(d, 6, 2), t(d, 6), t(d, 6), None, 1,
        False, t(d, 4, 3, 2), t(d, 4, 3, 8)),
    "_rnn_recurrence_differentiable": lambda d: ember._rnn_recurrence_differentiable(
        t(d, 4, 3, 2), t(d, 3, 2), None, t(d, 2, 2), None, t(d, 2), None, 2, False),
    "lstm.input": lambda d: ember.lstm(t(d, 4, 2, 3), [t(d, 2, 2, 2), t(d, 2, 2, 2)], _rnn_params(d, 4, 2), True, 2,
                                       0.0, False, False, False),
    "lstm.data": lambda d: ember.lstm(t(d, 5, 3), _batch_sizes(), [t(d, 2, 2, 2), t(d, 2, 2, 2)],
                                      _rnn_params(d, 4, 1, 2), True, 1, 0.0, False, True),
    "gru.input": lambda d: ember.gru(t(d, 4, 2, 3), t(d, 2, 2, 2), _rnn_params(d, 3, 1, 2), True, 1, 0.0, False,
                                     True, False),
    "gru.data": lambda d: ember.gru(t(d, 5, 3), _batch_sizes(), t(d, 1, 2, 2), _rnn_params(d, 3), True, 1, 0.0,
                                    False, False),
    "rnn_tanh.input": lambda d: ember.rnn_tanh(t(d, 4, 2, 3), t(d, 1, 2, 2), _rnn_params(d, 1), True, 1, 0.0, False,
                                               False, False),
    "rnn_tanh.data": lambda d: ember.rnn_tanh(t(d, 5, 3), _batch_sizes(), t(d, 1, 2, 2), _rnn_params(d, 1), True, 1,
                                              0.0, False, False),
    "rnn_relu.input": lambda d: ember.rnn_relu(t(d, 4, 2, 3), t(d, 2, 2, 2), _rnn_params(d, 1, 2), True, 2, 0.0,
                                               False, False, False),
    "rnn_relu.data": lambda d: ember.rnn_relu(t(d, 5, 3), _batch_sizes(), t(d, 2, 2, 2), _rnn_params(d, 1, 1, 2), True,
                                              1, 0.0, False, True),
    "lstm_cell": lambda d: ember.lstm_cell(t(d, 3, 3), [t(d, 3, 2), t(d, 3, 2)], t(d, 8, 3), t(d, 8, 2)),
    "gru_cell": lambda d: ember.gru_cell(t(d, 3, 3), t(d, 3, 2), t(d, 6, 3), t(d, 6, 2), t(d, 6), t(d, 6)),
    "rnn_tanh_cell": lambda d: ember.rnn_tanh_cell(t(d, 3, 3), t(d, 3, 2), t(d, 2, 3), t(d, 2, 2)),
    "rnn_relu_cell": lambda d: ember.rnn_relu_cell(t(d, 3, 3), t(d, 3, 2), t(d, 2, 3), t(d, 2, 2), t(d, 2), t(d, 2)),
})

SAMPLES.update({
    "normal.Tensor_float": lambda d: ember.normal(t(d, 2, 3), 0.5),
    "normal.float_Tensor": lambda d: ember.normal(1.0, t(d, 3)),
    "normal.Tensor_Tensor": lambda d: ember.normal(t(d, 2, 1), t(d, 3)),
    "normal.float_float": lambda d: ember.normal(0.0, 2.0, (2, 3), device=d),
    "randint_like": lambda d: ember.randint_like(t(d, 2, 3), 5),
    "randint_like.low_dtype": lambda d: ember.randint_like(t(d, 2, 3), 1, 5, dtype=ember.int32),
    "index_add.out": lambda d: ember.index_add(t(d, 3, 2), 0, ember.tensor([0, 2], device=d), t(d, 2, 2),
                                               out=t(d, 0)),
    "index_add_": lambda d: t(d, 3, 2).index_add_(1, ember.tensor([1], device=d), t(d, 3, 1), alpha=2.0),
})

# The out= forms of the special functions (ember.special passes out= through).
_SPECIAL_UNARY = ("lgamma", "digamma", "i0", "special_i0e", "special_i1", "special_i1e", "special_erfcx",
                  "special_ndtr", "special_ndtri", "special_log_ndtr", "special_entr", "special_bessel_j0",
                  "special_bessel_j1", "special_bessel_y0", "special_bessel_y1", "special_modified_bessel_i0",
                  "special_modified_bessel_i1", "special_modified_bessel_k0", "special_modified_bessel_k1",
                  "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
                  "special_spherical_bessel_j0", "special_airy_ai")
_SPECIAL_BINARY = ("igamma", "igammac", "special_zeta", "special_xlog1py") + tuple(
    f"special_{p}" for p in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                             "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                             "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                             "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
                             "laguerre_polynomial_l", "legendre_polynomial_p"))
for _name in _SPECIAL_UNARY:
    SAMPLES[f"{_name}.out"] = lambda d, n=_name: getattr(aten, n).out(t(d, 2, 3) + 0.5, out=t(d, 0))
for _name in _SPECIAL_BINARY:
    SAMPLES[f"{_name}.out"] = lambda d, n=_name: getattr(aten, n).out(t(d, 2, 3) + 1.5, t(d, 3) + 2, out=t(d, 0))
SAMPLES["polygamma.out"] = lambda d: aten.polygamma.out(2, t(d, 3) + 0.5, out=t(d, 0))
