"""ember.nn: neural-network layers, losses and utilities (mirrors ``torch.nn``).

    import ember.nn as nn
    import ember.nn.functional as F
"""

from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from . import functional, grad, init, utils  # noqa: F401
from . import modules  # noqa: F401
from . import attention, parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
