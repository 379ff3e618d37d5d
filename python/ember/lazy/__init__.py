"""The lazy device, in PyTorch/XLA's design.

Operations on tensors on the ``"lazy"`` device are recorded into a graph
(the graph IR that traced programs use) instead of running. The pending
graph runs when a value is needed (``.item()``, ``.cpu()``, printing) or at
:func:`mark_step`, which computes every live lazy tensor at once, as
``xm.mark_step()`` does. Graphs are compiled once per structure (ops,
shapes, dtypes; not data: numbers such as learning rates are inputs) and
then replayed from a cache, so a training loop compiles on its first steps
and then only runs.

Executors: ``"builtin"`` (Ember's CPU kernels with elementwise fusion) and
``"xla"`` (StableHLO compiled by XLA through jax/jaxlib), picked by
``EMBER_LAZY_EXECUTOR`` or :func:`set_executor`. :mod:`ember.lazy.metrics`
says what was compiled, cached, transferred and what fell back to eager CPU;
``EMBER_LAZY_DEBUG=1`` prints each compiled graph with the line that made
each node.

    >>> import ember
    >>> x = ember.ones(2, 2, device="lazy")
    >>> y = (x * 3).sum()
    >>> ember.lazy.mark_step()
    >>> y.item()
    12.0
"""

import os

from .. import _C
from . import metrics

__all__ = ["mark_step", "sync", "wait_device_ops", "set_executor", "get_executor", "executors", "pending_graph",
           "metrics"]

_lazy = _C._lazy


def mark_step():
    """Runs the pending graph so that every live lazy tensor holds its value,
    and starts a new graph (call it once per training step)."""
    _lazy.sync()


def sync():
    """The same as :func:`mark_step`."""
    _lazy.sync()


def wait_device_ops():
    """Waits for running graphs; they run synchronously here, so returns at once."""


def set_executor(name):
    """Chooses what runs lazy graphs: ``"builtin"`` or ``"xla"``."""
    if name == "xla":
        from . import _xla
        _xla.register()
    _lazy.set_executor(name)


def get_executor():
    """The name of the executor that runs lazy graphs."""
    return _lazy.current_executor()


def executors():
    """The executors that can run lazy graphs here."""
    names = list(_lazy.executor_names())
    if "xla" not in names:
        from . import _xla
        if _xla.available():
            names.append("xla")
    return sorted(names)


def pending_graph():
    """The text of what has been recorded since the last run."""
    return _lazy.pending_graph()


if os.environ.get("EMBER_LAZY_EXECUTOR") == "xla":
    from . import _xla as _xla_module
    _xla_module.register()
