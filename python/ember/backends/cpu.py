"""The CPU backend."""


def get_cpu_capability():
    """The widest vector instruction set Ember's kernels use: "AVX512", "AVX2"
    or "DEFAULT", from the CPU's flags when the program runs, lowered by the
    environment variable EMBER_CPU_CAPABILITY ("avx2" or "default") where it
    is set (read once)."""
    from ember import _C

    return _C._get_cpu_capability()
