"""A dependency-free progress bar for the training examples.

On a terminal the bar redraws itself in place ('\\r'); when output goes to a
file or a pipe (CI logs, tests) it prints a plain line every few percent
instead, so logs stay readable.
"""
import sys
import time


class Progress:
    def __init__(self, total, desc="", width=30, stream=None):
        self.total = max(int(total), 1)
        self.desc = desc
        self.width = width
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty()
        self.count = 0
        self.start = time.perf_counter()
        self._last_logged_percent = -1

    def update(self, n=1, **metrics):
        """Advance by ``n`` steps and show ``metrics`` (e.g. loss=0.31) beside the bar."""
        self.count = min(self.count + n, self.total)
        percent = 100 * self.count // self.total
        if self.tty:
            self.stream.write("\r" + self._line(metrics))
            if self.count == self.total:
                self.stream.write("\n")
            self.stream.flush()
        elif percent // 10 > self._last_logged_percent // 10 or self.count == self.total:
            self._last_logged_percent = percent
            print(self._line(metrics), file=self.stream, flush=True)

    def log(self, message):
        """Print a line of its own without breaking the bar (which redraws on the next update)."""
        if self.tty and 0 < self.count < self.total:
            self.stream.write("\r\033[K")
        print(message, file=self.stream, flush=True)

    def _line(self, metrics):
        filled = self.width * self.count // self.total
        bar = "#" * filled + "-" * (self.width - filled)
        elapsed = time.perf_counter() - self.start
        rate = self.count / elapsed if elapsed > 0 else 0.0
        shown = " ".join(f"{k}={_format(v)}" for k, v in metrics.items())
        return f"{self.desc} [{bar}] {self.count}/{self.total} {elapsed:5.1f}s {rate:6.1f} it/s {shown}".rstrip()


def _format(value):
    return f"{value:.4f}" if isinstance(value, float) else str(value)
