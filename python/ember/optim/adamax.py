"""Adamax, as ``torch.optim.Adamax``: Adam with the infinity norm in place
of the second moment."""

import ember

from .optimizer import _check_hyperparameters, _get_value, _PerParameterOptimizer

__all__ = ["Adamax", "adamax"]


class Adamax(_PerParameterOptimizer):
    r"""Implements the Adamax algorithm (a variant of Adam based on the infinity norm).

    Args:
        params (iterable): iterable of parameters or dicts defining parameter groups
        lr (float, optional): learning rate (default: 2e-3)
        betas (Tuple[float, float], optional): decay rates of the first moment and of the infinity norm
        eps (float, optional): added to the infinity norm (default: 1e-8)
        weight_decay (float, optional): L2 penalty (default: 0)
        maximize (bool, optional): maximize the objective instead of minimizing (default: False)
        foreach, differentiable, capturable: accepted for torch compatibility.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    _flag_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def _new_state(self, param, group):
        return {"exp_avg": ember.zeros_like(param), "exp_inf": ember.zeros_like(param)}


def adamax(params, grads, states, *, lr, beta1, beta2, eps, weight_decay, maximize, **_ignored):
    r"""Functional API that performs the Adamax algorithm computation (see :class:`Adamax`)."""
    lr = _get_value(lr)
    for param, grad, state in zip(params, grads, states):
        state["step"] += 1
        grad = grad if not maximize else grad.neg()
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_inf.copy_(ember.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)))
        clr = lr / (1 - beta1 ** _get_value(state["step"]))
        param.addcdiv_(exp_avg, exp_inf, value=-clr)


Adamax._functional = staticmethod(adamax)
