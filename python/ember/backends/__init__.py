"""ember.backends: what each backend is and its switches, as torch.backends.

Scripts set these flags (``cudnn.benchmark = True``,
``cuda.matmul.allow_tf32 = True``) and ask what is present
(``mps.is_available()``). Each flag keeps the value set and reports it; on
the CPU none of them changes a result, as in PyTorch's CPU build.
"""

from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp  # noqa: F401
