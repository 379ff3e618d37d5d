"""A drop-in for Python's multiprocessing whose pickler sends tensors
through shared memory: a tensor put on a Queue, passed to a Process or
returned from a Pool arrives in the other process over the same memory, so
nothing is copied and a change made there is seen here.

Sharing strategy: "file_descriptor" (the only one so far): the storage
moves into an unnamed shared-memory segment and its descriptor travels over
a Unix socket; the segment disappears with its last user, even one killed
with SIGKILL.
"""

import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from .reductions import init_reductions

__all__ = list(multiprocessing.__all__) + ["get_sharing_strategy", "set_sharing_strategy",
                                           "get_all_sharing_strategies"]

_STRATEGIES = {"file_descriptor"}
_strategy = "file_descriptor"


def get_all_sharing_strategies():
    """The sharing strategies this system supports."""
    return set(_STRATEGIES)


def get_sharing_strategy():
    """The strategy used to share tensors between processes."""
    return _strategy


def set_sharing_strategy(new_strategy):
    """Chooses how tensors are shared between processes (one of get_all_sharing_strategies())."""
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise ValueError(f"sharing strategy {new_strategy!r} is not supported here; the supported ones are "
                         f"{sorted(_STRATEGIES)} (file_system is not implemented yet)")
    _strategy = new_strategy


init_reductions()
