"""Gradient clipping: clip_grad_norm_, clip_grad_value_ (mirrors torch.nn.utils.clip_grad)."""

import math

import ember
from ember import _C

Tensor = _C.Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _tensor_list(tensors):
    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of ``tensors`` (as if they were concatenated into one vector)."""
    tensors = [t for t in _tensor_list(tensors) if t is not None]
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return ember.tensor(0.0)
    with ember.no_grad():
        if norm_type == math.inf:
            norms = [t.detach().abs().max() for t in tensors]
        else:
            norms = [ember.norm(t.detach(), norm_type) for t in tensors]
        dtype = norms[0].dtype
        for n in norms[1:]:
            dtype = ember.promote_types(dtype, n.dtype)
        stacked = ember.stack([n.to(dtype) for n in norms])
        total_norm = stacked.max() if norm_type == math.inf else ember.norm(stacked, norm_type)
    if error_if_nonfinite and not math.isfinite(total_norm.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return total_norm


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients by max_norm / (total_norm + 1e-6) when that is below 1."""
    parameters = _tensor_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    with ember.no_grad():
        clip_coef = max_norm / (total_norm + 1e-6)
        clip_coef_clamped = clip_coef.clamp(max=1.0)
        for g in grads:
            g.mul_(clip_coef_clamped.to(g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    r"""Clips the gradients' total norm in place; returns the total norm (before clipping)."""
    parameters = _tensor_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    import warnings

    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    r"""Clamps every gradient to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    with ember.no_grad():
        for p in _tensor_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
