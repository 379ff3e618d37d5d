"""ember.distributed.algorithms: what DistributedDataParallel can be given (communication hooks)."""

from . import ddp_comm_hooks  # noqa: F401
