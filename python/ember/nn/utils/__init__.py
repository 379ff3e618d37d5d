"""ember.nn.utils: gradient clipping and parameter/vector conversion."""

from ember import _C

from . import parametrizations, parametrize, rnn  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401

from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm  # noqa: F401

Tensor = _C.Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters", "weight_norm", "remove_weight_norm", "parametrize",
           "parametrizations", "rnn", "spectral_norm", "remove_spectral_norm"]


def parameters_to_vector(parameters):
    """Flattens and concatenates the parameters into one vector."""
    import ember

    return ember.cat([p.reshape([-1]) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Slices ``vec`` into the parameters (their ``.data`` becomes views of vec, as in torch)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
