"""ember.version: what this build is, as ``torch.version``."""

from . import _C

__version__ = "0.1.0"
cuda = _C._cuda_version  # the CUDA toolkit Ember was compiled against, or None
hip = None
debug = False
