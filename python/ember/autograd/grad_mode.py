"""no_grad, enable_grad, set_grad_enabled and inference_mode.

Each works as a context manager and as a decorator, as in PyTorch.
"""

import functools
import inspect

from .. import _C

_ag = _C._autograd


class _DecoratorContextManager:
    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def generator(*args, **kwargs):
                gen = fn(*args, **kwargs)
                try:
                    with self.clone():
                        item = next(gen)
                    while True:
                        try:
                            sent = yield item
                        except BaseException as e:  # forwarded into the generator
                            with self.clone():
                                item = gen.throw(e)
                        else:
                            with self.clone():
                                item = gen.send(sent)
                except StopIteration as stop:
                    return stop.value
            return generator

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class _BareDecoratable(_DecoratorContextManager):
    """Also usable as a bare decorator: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_BareDecoratable):
    """Operations inside do not record history: results have requires_grad=False."""

    def __enter__(self):
        self.prev = _ag.is_grad_enabled()
        _ag.set_grad_enabled(False)

    def __exit__(self, *exc):
        _ag.set_grad_enabled(self.prev)


class enable_grad(_BareDecoratable):
    """Turns recording back on inside a no_grad region."""

    def __enter__(self):
        self.prev = _ag.is_grad_enabled()
        _ag.set_grad_enabled(True)

    def __exit__(self, *exc):
        _ag.set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode on or off: at once when called, and for a ``with`` block."""

    def __init__(self, mode):
        self.prev = _ag.is_grad_enabled()
        self.mode = bool(mode)
        _ag.set_grad_enabled(self.mode)

    def __call__(self, fn):
        # As a decorator it must not change the mode where it is applied.
        _ag.set_grad_enabled(self.prev)
        return super().__call__(fn)

    def __enter__(self):
        _ag.set_grad_enabled(self.mode)

    def __exit__(self, *exc):
        _ag.set_grad_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """A stricter no_grad: tensors made inside are inference tensors, which
    autograd refuses to record or save later."""

    def __new__(cls, mode=True):
        if callable(mode):  # bare @inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self._guard = _ag._InferenceMode(self.mode)
        self._guard.__enter__()

    def __exit__(self, *exc):
        self._guard.__exit__(*exc)

    def clone(self):
        return self.__class__(self.mode)


def is_grad_enabled():
    return _ag.is_grad_enabled()


def is_inference_mode_enabled():
    return _ag.is_inference_mode_enabled()
