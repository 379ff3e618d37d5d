"""The CPU backend."""

import functools


@functools.lru_cache(maxsize=None)
def get_cpu_capability():
    """The widest vector instruction set Ember's kernels pick on this CPU:
    "AVX512", "AVX2" or "DEFAULT" (chosen when the program runs, from the
    same CPU flags the kernels' run-time dispatch reads)."""
    try:
        with open("/proc/cpuinfo") as info:
            flags = next((line.split(":", 1)[1].split() for line in info if line.startswith("flags")), [])
    except OSError:
        return "DEFAULT"
    if "avx512f" in flags:
        return "AVX512"
    return "AVX2" if "avx2" in flags else "DEFAULT"
