"""Adadelta, as ``torch.optim.Adadelta``: steps scaled by the ratio of
running averages of squared updates and squared gradients."""

import ember

from .optimizer import _check_hyperparameters, _get_value, _PerParameterOptimizer

__all__ = ["Adadelta", "adadelta"]


class Adadelta(_PerParameterOptimizer):
    r"""Implements the Adadelta algorithm.

    Args:
        params (iterable): iterable of parameters or dicts defining parameter groups
        lr (float, optional): scale of the delta before it is applied (default: 1.0)
        rho (float, optional): smoothing constant of the running averages (default: 0.9)
        eps (float, optional): added inside the square roots (default: 1e-6)
        weight_decay (float, optional): L2 penalty (default: 0)
        maximize (bool, optional): maximize the objective instead of minimizing (default: False)
        foreach, capturable, differentiable: accepted for torch compatibility.
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_hyperparameters(lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    _flag_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def _new_state(self, param, group):
        return {"square_avg": ember.zeros_like(param), "acc_delta": ember.zeros_like(param)}


def adadelta(params, grads, states, *, lr, rho, eps, weight_decay, maximize, **_ignored):
    r"""Functional API that performs the Adadelta algorithm computation (see :class:`Adadelta`)."""
    lr = _get_value(lr)
    for param, grad, state in zip(params, grads, states):
        state["step"] += 1
        grad = grad if not maximize else grad.neg()
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-lr)


Adadelta._functional = staticmethod(adadelta)
