"""Intel MKL: not used by Ember (its CPU GEMM is OpenBLAS)."""


def is_available():
    return False
