"""Parameters as one flat vector and back (torch.nn.utils.convert_parameters)."""

from ember import _C

Tensor = _C.Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


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
