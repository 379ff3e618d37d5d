"""ember.distributed.algorithms: what DistributedDataParallel can be given (communication hooks) and the
Join context for uneven inputs."""

from . import ddp_comm_hooks  # noqa: F401
from .join import Join, Joinable, JoinHook  # noqa: F401
