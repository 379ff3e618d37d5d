"""Weight averaging, as torch.optim.swa_utils: AveragedModel keeps a running
average (SWA: equal weights; EMA: exponential decay) of a model's parameters,
SWALR anneals each group's learning rate to a constant SWA rate, and
update_bn recomputes BatchNorm statistics for the averaged weights.
"""

import copy
import itertools
import math

import ember

from ..autograd.grad_mode import no_grad

from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _format_param

__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
           "get_swa_multi_avg_fn", "update_bn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_avg_fn(decay=0.999):
    """avg_fn for an exponential moving average with weight ``decay`` on the past."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_ema_multi_avg_fn(decay=0.999):
    """multi_avg_fn for an exponential moving average: updates a list of
    averages (of one dtype) in place."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        for ema, current in zip(ema_param_list, current_param_list):
            if ema.is_floating_point() or ema.is_complex():
                ema.lerp_(current, 1 - decay)
            else:  # (integer buffers: rounded back)
                ema.copy_(ema * decay + current * (1 - decay))
    return ema_update


def get_swa_avg_fn():
    """avg_fn for the equal-weight average of every model seen so far."""
    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def get_swa_multi_avg_fn():
    """multi_avg_fn for the equal-weight average: updates a list of averages
    (of one dtype) in place."""
    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        weight = 1 / (int(num_averaged) + 1)
        for averaged, current in zip(averaged_param_list, current_param_list):
            if averaged.is_floating_point() or averaged.is_complex():
                averaged.lerp_(current, weight)
            else:
                averaged.copy_(averaged + (current - averaged) / (num_averaged + 1))
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and, with use_buffers, buffers)
    are the average of those passed to update_parameters; calling it runs
    the copy. The first update copies the model's values."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", ember.tensor(0, dtype=ember.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged(self, model):
        if self.use_buffers:
            return (itertools.chain(self.module.parameters(), self.module.buffers()),
                    itertools.chain(model.parameters(), model.buffers()))
        return self.parameters(), model.parameters()

    def update_parameters(self, model):
        mine, theirs = self._averaged(model)
        mine = [p.detach() for p in mine]
        theirs = [p.detach().to(m.device) for p, m in zip(theirs, mine)]
        if self.n_averaged == 0:
            for m, t in zip(mine, theirs):
                m.copy_(t)
        elif self.multi_avg_fn is not None:
            # One call per device and dtype, as torch groups them.
            groups = {}
            for m, t in zip(mine, theirs):
                groups.setdefault((m.device, m.dtype), ([], []))
                groups[(m.device, m.dtype)][0].append(m)
                groups[(m.device, m.dtype)][1].append(t)
            for (device, _), (group_mine, group_theirs) in groups.items():
                self.multi_avg_fn(group_mine, group_theirs, self.n_averaged.to(device))
        else:
            average = self.avg_fn or get_swa_avg_fn()
            for m, t in zip(mine, theirs):
                m.copy_(average(m, t, self.n_averaged.to(m.device)))
        if not self.use_buffers:
            # Buffers (BatchNorm statistics) follow the model; update_bn recomputes them.
            for b_mine, b_model in zip(self.module.buffers(), model.buffers()):
                b_mine.detach().copy_(b_model.detach().to(b_mine.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """One pass over ``loader`` in train mode with every BatchNorm's running
    statistics reset and cumulative (momentum None), then momenta restored."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's learning rate from its value to ``swa_lr`` over
    ``anneal_epochs`` steps ('cos' or 'linear'), then keeps it there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for rate, group in zip(_format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = rate
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _initial_lr(lr, swa_lr, alpha):
        # The rate the annealing started from, recovered from the current one.
        return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

    def _fraction(self, step):
        return max(0, min(1, step / max(1, self.anneal_epochs)))

    def get_lr(self):
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        previous = self.anneal_func(self._fraction(step - 1))
        alpha = self.anneal_func(self._fraction(step))
        return [group["swa_lr"] * alpha + self._initial_lr(group["lr"], group["swa_lr"], previous) * (1 - alpha)
                for group in self.optimizer.param_groups]
