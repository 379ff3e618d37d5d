"""Runs a function in a forked child, so that a crash, a hang or a runaway
allocation is reported instead of taking the caller down.

The child inherits everything already imported (Ember included), so a run
costs a fork, not an interpreter start.
"""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import signal
import time

# Memory a child may map beyond what it inherited. A larger allocation fails
# (as "cannot allocate" or MemoryError), a fine answer to a huge request;
# without the limit a runaway one would take the machine's memory instead.
ADDRESS_SPACE_HEADROOM = 3 << 30

# Under AddressSanitizer the address space cannot be limited (its shadow
# memory maps terabytes); scripts/sanitize.sh caps allocations through
# ASAN_OPTIONS instead.
SANITIZED = os.environ.get("EMBER_SANITIZED") == "1"


@dataclasses.dataclass
class Outcome:
    kind: str  # "ok", "error" (a Python exception), "crash" or "hang"
    error_type: str = ""
    message: str = ""

    @property
    def failed(self) -> bool:
        return self.kind in ("crash", "hang")

    def __str__(self) -> str:
        return " ".join(x for x in (self.kind + ":", self.error_type, self.message) if x)


def _address_space_in_use() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * resource.getpagesize()


def run_forked(fn, timeout: float = 20.0, headroom: int = ADDRESS_SPACE_HEADROOM) -> Outcome:
    """Calls fn() in a child; an exception it raises comes back as an "error" outcome.

    The child may map `headroom` bytes beyond what it inherited."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, then leave without running the parent's cleanup
        try:
            os.close(read_end)
            if not SANITIZED:
                limit = _address_space_in_use() + headroom
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            try:
                fn()
                result = {"kind": "ok"}
            except BaseException as e:  # noqa: BLE001 - every exception is an answer
                result = {"kind": "error", "error_type": type(e).__name__, "message": str(e)[:2000]}
            os.write(write_end, json.dumps(result).encode()[:60000])
        finally:
            os._exit(0)
    os.close(write_end)
    deadline = time.monotonic() + timeout
    pause = 0.0001
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read_end)
            return Outcome("hang", message=f"still running after {timeout:.0f} s")
        time.sleep(pause)
        pause = min(pause * 2, 0.01)
    with os.fdopen(read_end, "rb") as f:
        report = f.read()
    if os.WIFSIGNALED(status):
        return Outcome("crash", message=f"killed by {signal.Signals(os.WTERMSIG(status)).name}")
    if os.WEXITSTATUS(status) != 0 or not report:
        # A sanitizer's finding ends the child with status 1 and its report on stderr.
        return Outcome("crash", message=f"exit status {os.WEXITSTATUS(status)} without a result")
    return Outcome(**json.loads(report))
