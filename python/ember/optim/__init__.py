"""ember.optim: optimizers and learning-rate schedulers, mirroring torch.optim.

Pure Python on top of Ember's in-place tensor operators::

    opt = ember.optim.Adam([w, b], lr=1e-2)
    sched = ember.optim.lr_scheduler.StepLR(opt, step_size=10)
    for x, y in data:
        opt.zero_grad()
        loss = ((x.matmul(w) + b - y) ** 2).mean()
        loss.backward()
        opt.step()
        sched.step()
"""

from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .radam import RAdam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "LBFGS", "Muon", "NAdam", "Optimizer",
           "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam", "lr_scheduler"]
