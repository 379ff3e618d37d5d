"""nn.DataParallel, as torch's on a machine without an accelerator: the
wrapped module runs as it is (state_dict keys gain the "module." prefix,
as torch's do). Replicating over several GPUs comes with the CUDA and
distributed issues; until then a DataParallel asked to use devices says so."""

import ember

from ..modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.dim = dim
        if not ember.cuda.is_available():
            self.device_ids = []
            return
        raise NotImplementedError("nn.DataParallel: running replicas on GPUs is not supported by Ember yet; call the "
                                  "module directly (or use one device)")

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
