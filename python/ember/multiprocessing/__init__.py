"""A drop-in for Python's multiprocessing whose pickler sends tensors
through shared memory: a tensor put on a Queue, passed to a Process or
returned from a Pool arrives in the other process over the same memory, so
nothing is copied and a change made there is seen here.

Sharing strategies, as torch's:
- "file_descriptor" (the default): the storage moves into an unnamed
  shared-memory segment and its descriptor travels over a Unix socket; the
  segment disappears with its last user, even one killed with SIGKILL.
- "file_system": the segment keeps a name in /dev/shm that the receiver
  opens, so no descriptor is held per tensor (for processes that receive
  more tensors than they may open files). A count in the segment unlinks
  the name with its last reference; a small manager process unlinks the
  names left by processes killed while holding references, once all the
  processes that used it are gone.
"""

import multiprocessing
import os
import socket
import subprocess
import sys
import uuid
from multiprocessing import *  # noqa: F401,F403

from ember import _C

from .reductions import init_reductions

__all__ = list(multiprocessing.__all__) + ["get_sharing_strategy", "set_sharing_strategy",
                                           "get_all_sharing_strategies"]

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = "file_descriptor"
_MANAGER_VARIABLE = "EMBER_SHM_MANAGER"
_STRATEGY_VARIABLE = "EMBER_SHARING_STRATEGY"


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
        raise ValueError(f"sharing strategy {new_strategy!r} is not supported; the supported ones are "
                         f"{sorted(_STRATEGIES)}")
    if new_strategy == "file_system":
        _ensure_manager()
    _C._set_sharing_strategy(new_strategy)
    _strategy = new_strategy
    # Spawned children (DataLoader workers, Pool processes) start with it too.
    os.environ[_STRATEGY_VARIABLE] = new_strategy


def _ensure_manager():
    """Starts the manager of named segments unless this process tree has one
    (a child finds its address in the environment)."""
    if os.environ.get(_MANAGER_VARIABLE):
        return
    address = f"ember-shm-{os.getpid()}-{uuid.uuid4().hex}"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind("\0" + address)
    listener.listen(64)
    try:
        script = os.path.join(os.path.dirname(__file__), "_shm_manager.py")  # run alone: no ember import
        subprocess.Popen([sys.executable, "-S", script, str(listener.fileno())], pass_fds=[listener.fileno()],
                         start_new_session=True, stdin=subprocess.DEVNULL)
        # Connected before anything is created: the manager lives at least as
        # long as this process (and the children that inherit the connection).
        _C._connect_shm_manager(address)
    finally:
        listener.close()
    os.environ[_MANAGER_VARIABLE] = address


init_reductions()
# A strategy set in a parent process (nothing to do, and nothing written, otherwise).
if os.environ.get(_STRATEGY_VARIABLE, _strategy) != _strategy and os.environ[_STRATEGY_VARIABLE] in _STRATEGIES:
    set_sharing_strategy(os.environ[_STRATEGY_VARIABLE])
