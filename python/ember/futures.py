"""ember.futures: Future, the result of an asynchronous operation (torch.futures' interface).

A Future completes once, with a value or an exception. ``then(callback)`` gives a new Future that
completes with ``callback(this_future)`` once this one has; ``wait()`` blocks until completion and
returns the value (or raises the exception). A Future made by ``Work.get_future()`` completes when
its communication does, which ``wait()`` (or the ``wait()`` of a Future chained from it) drives.
"""

import threading

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    def __init__(self, *, devices=None):
        self._condition = threading.Condition()
        self._done = False
        self._value = None
        self._exception = None
        self._callbacks = []

    def done(self):
        """Whether the value (or an exception) is set."""
        return self._done

    def _complete(self):
        """Hook for futures that finish on demand (a communication's): called before blocking."""

    def wait(self):
        """Blocks until the Future completes; its value, or its exception raised."""
        self._complete()
        with self._condition:
            while not self._done:
                self._condition.wait()
        if self._exception is not None:
            raise self._exception
        return self._value

    def value(self):
        """The value of a completed Future (its exception raised)."""
        if not self._done:
            raise RuntimeError("Future.value(): the Future has not completed yet; wait() for it first")
        if self._exception is not None:
            raise self._exception
        return self._value

    def _finish(self, value, exception):
        with self._condition:
            if self._done:
                raise RuntimeError("Future can only be marked completed once.")
            self._value, self._exception, self._done = value, exception, True
            callbacks, self._callbacks = self._callbacks, []
            self._condition.notify_all()
        for callback in callbacks:
            callback(self)

    def set_result(self, result):
        """Completes the Future with `result` and runs the callbacks waiting on it."""
        self._finish(result, None)

    def set_exception(self, result):
        """Completes the Future with the exception `result`: wait() and value() raise it."""
        if not isinstance(result, BaseException):
            raise TypeError(f"Future.set_exception(): expected an exception, got {type(result).__name__}")
        self._finish(None, result)

    def add_done_callback(self, callback):
        """Runs callback(self) when the Future completes (now, if it has)."""
        with self._condition:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback):
        """A new Future completed with callback(self) (or its exception) once this Future completes."""
        chained = _Dependent([self])

        def run(done):
            try:
                result = callback(done)
            except Exception as error:  # the chained Future carries it to whoever waits
                chained.set_exception(error)
            else:
                chained.set_result(result)

        self.add_done_callback(run)
        return chained


class _Dependent(Future):
    """A Future completed from others (then(), collect_all): waiting on it drives the ones it follows."""

    def __init__(self, sources):
        super().__init__()
        self._sources = sources

    def _complete(self):
        for source in self._sources:
            source._complete()


def collect_all(futures):
    """A Future completed with the list of `futures` once all of them have completed."""
    futures = list(futures)
    combined = _Dependent(futures)
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            combined.set_result(futures)

    if not futures:
        combined.set_result([])
    for f in futures:
        f.add_done_callback(one_done)
    return combined


def wait_all(futures):
    """Waits for every Future; their values in order (the first exception raised)."""
    return [f.wait() for f in futures]
