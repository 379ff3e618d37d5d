"""Giving convolution weights a memory format (torch.nn.utils.memory_format): channels_last weights
let channels_last inputs run without a layout change per call."""

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, conv_types):
    if isinstance(module, conv_types) and module.weight is not None:
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, conv_types)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Every Conv2d / ConvTranspose2d weight in ``module`` laid out in ``memory_format``; returns module."""
    from ember import nn

    return _convert(module, memory_format, (nn.Conv2d, nn.ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Every Conv3d / ConvTranspose3d weight in ``module`` laid out in ``memory_format``; returns module."""
    from ember import nn

    return _convert(module, memory_format, (nn.Conv3d, nn.ConvTranspose3d))
