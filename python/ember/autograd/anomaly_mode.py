"""Anomaly detection: remember where each op ran; report NaN gradients and
backward errors with the forward call that caused them."""

from .. import _C

_ag = _C._autograd


class detect_anomaly:
    """Context manager (and decorator) turning anomaly mode on for a block."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = _ag.is_anomaly_enabled()
        self.prev_check_nan = _ag.is_anomaly_check_nan_enabled()
        _ag.set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc):
        _ag.set_anomaly_enabled(self.prev, self.prev_check_nan)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Sets anomaly mode on or off, at once and for a ``with`` block."""

    def __init__(self, mode, check_nan=True):
        self.prev = _ag.is_anomaly_enabled()
        self.prev_check_nan = _ag.is_anomaly_check_nan_enabled()
        _ag.set_anomaly_enabled(bool(mode), check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _ag.set_anomaly_enabled(self.prev, self.prev_check_nan)


def is_anomaly_enabled():
    return _ag.is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    return _ag.is_anomaly_check_nan_enabled()
