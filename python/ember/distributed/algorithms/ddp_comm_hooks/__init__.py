"""Communication hooks for DistributedDataParallel.register_comm_hook (torch's names)."""

from . import default_hooks  # noqa: F401
