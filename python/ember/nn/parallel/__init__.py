"""nn.DataParallel, as torch's on a machine without an accelerator: the
wrapped module runs as it is (state_dict keys gain the "module." prefix,
as torch's do). Replicating over several GPUs comes with the CUDA and
distributed issues; until then a DataParallel asked to use devices says so."""

import ember

from ..modules.module import Module

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


class DistributedDataParallel(Module):
    """Needs a default process group (ember.distributed), as torch's does;
    Ember cannot create one yet, so constructing one raises torch's error."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, **kwargs):
        super().__init__()
        if process_group is None:
            ember.distributed._default_group(None)
        raise NotImplementedError("nn.parallel.DistributedDataParallel is not supported by Ember yet")
