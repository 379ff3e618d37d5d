"""python -m test.fuzz --seconds N | --calls N --seed S [--out DIR]: fuzz the operator schemas.

Every call runs in a forked child. A crash, a hang or an internal error
(SystemError) is a failure: its reproducer is written to DIR as a Python
file, and the exit status is 1 if there was any.
"""

import argparse
import os
import sys
import time

from .forked import run_forked
from .schema_fuzz import CallGenerator, run_call

# Exceptions that mean Ember itself broke rather than refused the input.
BROKEN = {"SystemError"}


def fuzz(seed: int, calls: int | None = None, seconds: float | None = None, timeout: float = 20.0, log=None):
    """Runs calls until either limit; returns [(call, outcome)] of the failures."""
    generator = CallGenerator(seed)
    failures = []
    start = time.monotonic()
    while (calls is None or generator.count < calls) and (seconds is None or time.monotonic() - start < seconds):
        call = generator.next_call()
        outcome = run_forked(lambda: run_call(call), timeout=timeout)
        if outcome.failed or outcome.error_type in BROKEN:
            failures.append((call, outcome))
            if log:
                log(f"FAIL {call.op}: {outcome}\n{call.source}\n")
    return failures, generator.count


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m test.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=None, help="run this long (default 60 s)")
    parser.add_argument("--calls", type=int, default=None, help="or this many calls")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="fuzz-failures", help="folder for the reproducers")
    args = parser.parse_args(argv)
    import ember
    ember.set_num_threads(1)
    seconds = args.seconds if args.seconds is not None or args.calls is not None else 60.0
    failures, count = fuzz(args.seed, calls=args.calls, seconds=seconds, log=lambda m: print(m, file=sys.stderr))
    for i, (call, outcome) in enumerate(failures):
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, f"repro_seed{args.seed}_{i}_{call.op.replace('.', '_')}.py")
        with open(path, "w") as f:
            f.write(call.reproducer(outcome))
        print(f"reproducer: {path}")
    print(f"{count} calls, {len(failures)} failures (seed {args.seed})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
