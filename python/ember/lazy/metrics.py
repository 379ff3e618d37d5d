"""What the lazy device did, for performance debugging (PyTorch/XLA's
``torch_xla.debug.metrics``): graphs compiled and found in the cache,
compile and run times, graph sizes, transfers between the CPU and the lazy
device, and each op that fell back to eager CPU (``Fallback::aten::...``).

    >>> import ember
    >>> ember.lazy.metrics.reset()
    >>> (ember.ones(3, device="lazy") + 1).sum().item()
    6.0
    >>> ember.lazy.metrics.counter_value("UncachedCompile")
    1
"""

from .. import _C

__all__ = ["report", "reset", "counter_names", "counter_value", "metric_names", "metric_data", "fallbacks"]

_lazy = _C._lazy


def report():
    """Every metric and counter as text, one block each (as torch_xla's metrics_report())."""
    return _lazy.metrics_report()


def reset():
    """Forgets every metric and counter (compiled graphs stay cached)."""
    _lazy.metrics_reset()


def counter_names():
    return sorted(_lazy.counters())


def counter_value(name):
    """A counter's value; None when it never counted."""
    return _lazy.counters().get(name)


def metric_names():
    return sorted(_lazy.samples())


def metric_data(name):
    """(number of samples, their total, their maximum, the last one); None when never measured."""
    return _lazy.samples().get(name)


def fallbacks():
    """{op name: times it ran eagerly on the CPU because the lazy device could not record it}."""
    prefix = "Fallback::"
    return {k[len(prefix):]: v for k, v in _lazy.counters().items() if k.startswith(prefix)}
