"""ember.profiler: where the time goes, as torch.profiler.

``profile`` records every operator called at the top level on this thread
(through the dispatcher's operator log: the calls that enter the dispatcher
from Python, with the time spent in each, the ops they run inside
included) and the ``record_function`` ranges the code marks. It prints
torch-style tables (``key_averages().table(...)``), exports Chrome traces
(chrome://tracing, Perfetto) and follows a ``schedule`` stepped by
``prof.step()``. CPU only; ``ProfilerActivity.CUDA`` is accepted and
records nothing extra.

    with ember.profiler.profile() as prof:
        with ember.profiler.record_function("forward"):
            model(x)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
"""

import contextlib
import enum
import json
import os
import threading
import time

from .. import _C

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule",
           "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1
    XPU = 2
    MTIA = 3
    PrivateUse1 = 4


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """Step number -> action: skip_first steps, then cycles of wait, warmup and
    active steps (the last active one saves), repeat times (0: forever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")

    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        period = wait + warmup + active
        if repeat > 0 and step // period >= repeat:
            return ProfilerAction.NONE
        phase = step % period
        if phase < wait:
            return ProfilerAction.NONE
        if phase < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if phase < period - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _always_record(step):
    return ProfilerAction.RECORD


class FunctionEvent:
    """One recorded call or range: name, start and duration (microseconds)."""

    def __init__(self, name, start_us, duration_us, kind="op"):
        self.name, self.key = name, name
        self.time_range_start, self.cpu_time_total = start_us, duration_us
        self.kind = kind

    def __repr__(self):
        return f"<FunctionEvent name={self.name} cpu_time_total={self.cpu_time_total:.3f}us>"


class FunctionEventAvg:
    """The events of one name together."""

    def __init__(self, key):
        self.key, self.count, self.cpu_time_total = key, 0, 0.0

    def add(self, event):
        self.count += 1
        self.cpu_time_total += event.cpu_time_total
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return f"<FunctionEventAvg key={self.key} count={self.count} cpu_time_total={self.cpu_time_total:.3f}us>"


def _format_us(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class EventList(list):
    _span_us = 0.0  # the recorded stretch of time, first start to last end

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55, header=None, top_level_events_only=False,
              **_ignored):
        rows = list(self)
        if sort_by is not None:
            key = {"cpu_time_total": "cpu_time_total", "self_cpu_time_total": "cpu_time_total",
                   "cpu_time": "cpu_time", "count": "count"}.get(sort_by.replace("cuda", "cpu"), None)
            if key is None:
                raise AttributeError(f"sort_by: unknown column '{sort_by}'")
            rows.sort(key=lambda r: getattr(r, key), reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        total = self._span_us or sum(r.cpu_time_total for r in self) or 1.0
        width = max([len("Name")] + [min(len(r.key), max_name_column_width) for r in rows])
        columns = ["Name".ljust(width), "CPU total %".rjust(12), "CPU total".rjust(12), "CPU time avg".rjust(13),
                   "# of Calls".rjust(11)]
        rule = "-" * (len("  ".join(columns)))
        lines = ([header] if header else []) + [rule, "  ".join(columns), rule]
        for r in rows:
            lines.append("  ".join([r.key[:width].ljust(width), f"{100 * r.cpu_time_total / total:.2f}%".rjust(12),
                                    _format_us(r.cpu_time_total).rjust(12), _format_us(r.cpu_time).rjust(13),
                                    str(r.count).rjust(11)]))
        lines += [rule, f"CPU time recorded: {_format_us(total)} (times include the calls made inside)"]
        return "\n".join(lines) + "\n"

    def total_average(self):
        avg = FunctionEventAvg("Total")
        for r in self:
            avg.count += r.count
            avg.cpu_time_total += r.cpu_time_total
        return avg


_active = threading.local()  # the profiles recording on this thread (record_function reports to them)


class record_function(contextlib.ContextDecorator):
    """Marks a named range of code in the profiles recording on this thread."""

    def __init__(self, name, args=None):
        self.name = name

    def __enter__(self):
        self._start = time.monotonic_ns()  # the clock the operator log uses (CLOCK_MONOTONIC)
        return self

    def __exit__(self, *exc):
        end = time.monotonic_ns()
        for prof in getattr(_active, "profiles", ()):
            prof._ranges.append((self.name, self._start, end - self._start))
        return False


class profile:
    """Records operators and record_function ranges while active (see the module's doc)."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 enabled=True, **_legacy):
        self.activities = set(activities or [ProfilerActivity.CPU])
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.enabled = enabled
        self.step_num = 0
        self._log = None
        self._events, self._ranges = [], []
        self._action = ProfilerAction.NONE

    # -- recording ------------------------------------------------------------------------
    def _open(self):
        if self._log is None:
            self._log = _C._OperatorLog()
            self._log.__enter__()
            _active.profiles = getattr(_active, "profiles", ()) + (self,)

    def _close(self):
        if self._log is None:
            return
        self._log.__exit__(None, None, None)
        for name, (start, duration) in zip(self._log.names, self._log.times_ns):
            self._events.append(FunctionEvent(name, start / 1e3, duration / 1e3))
        for name, start, duration in self._ranges:
            self._events.append(FunctionEvent(name, start / 1e3, duration / 1e3, kind="range"))
        self._ranges = []
        self._log = None
        _active.profiles = tuple(p for p in getattr(_active, "profiles", ()) if p is not self)

    def _apply(self, action):
        recording = action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if recording and self._action not in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._events = []
        if recording:
            self._open()
        self._action = action

    def start(self):
        if self.enabled:
            self._apply(self.schedule(self.step_num))

    def stop(self):
        if self.enabled:
            was = self._action
            self._close()
            if was in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE) and self.on_trace_ready:
                self.on_trace_ready(self)
            self._action = ProfilerAction.NONE

    def step(self):
        """Marks a training step: the schedule decides what the next one records."""
        if not self.enabled:
            return
        previous = self._action
        self.step_num += 1
        following = self.schedule(self.step_num)
        if previous == ProfilerAction.RECORD_AND_SAVE or (
                previous == ProfilerAction.RECORD and following not in (ProfilerAction.RECORD,
                                                                         ProfilerAction.RECORD_AND_SAVE)):
            self._close()
            if self.on_trace_ready:
                self.on_trace_ready(self)
        self._apply(following)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    # -- results --------------------------------------------------------------------------
    def events(self):
        return EventList(self._events)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        groups = {}
        for event in self._events:
            groups.setdefault(event.key, FunctionEventAvg(event.key)).add(event)
        averages = EventList(groups.values())
        if self._events:
            averages._span_us = (max(e.time_range_start + e.cpu_time_total for e in self._events)
                                 - min(e.time_range_start for e in self._events))
        return averages

    def export_chrome_trace(self, path):
        """The events as a Chrome trace (JSON), for chrome://tracing or Perfetto."""
        trace = {"traceEvents": [
            {"name": e.name, "ph": "X", "ts": e.time_range_start, "dur": e.cpu_time_total, "pid": os.getpid(),
             "tid": threading.get_ident() % 100000, "cat": "cpu_op" if e.kind == "op" else "user_annotation"}
            for e in self._events]}
        with open(path, "w") as f:
            json.dump(trace, f)
        return path


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An on_trace_ready that writes each trace as a Chrome trace into ``dir_name``."""
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{os.uname().nodename}_{os.getpid()}"
        prof.export_chrome_trace(os.path.join(dir_name, f"{name}.{time.time_ns()}.pt.trace.json"))
    return handler
