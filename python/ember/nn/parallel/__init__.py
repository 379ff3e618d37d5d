"""nn.DataParallel, as torch's on a machine without an accelerator: the
wrapped module runs as it is (state_dict keys gain the "module." prefix,
as torch's do). Replicating over several GPUs comes with the CUDA issue;
until then a DataParallel asked to use devices says so.
DistributedDataParallel (one process per replica) is in distributed.py."""

import ember

from ..modules.module import Module
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]


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
