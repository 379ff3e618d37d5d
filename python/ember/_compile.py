"""ember.compile: torch.compile's signature, running the model eagerly (as
torch.compile's "eager" backend): Ember has no graph compiler yet, so the
result is the model itself, with the same values and gradients."""

_BACKENDS = ("inductor", "eager", "aot_eager", "cudagraphs")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise RuntimeError(f"ember.compile: unknown backend {backend!r}; expected one of {', '.join(_BACKENDS)}")
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                  options=options, disable=disable)
    if not callable(model):
        raise TypeError(f"ember.compile: expected a callable (a Module or a function), got {type(model).__name__}")
    return model
