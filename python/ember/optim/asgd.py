"""ASGD, as ``torch.optim.ASGD``: SGD with a decaying step size and an
average of the iterates (kept in the state as ``ax``)."""

import ember

from .optimizer import _check_hyperparameters, _get_scalar_dtype, _get_value, _PerParameterOptimizer, _to_scalar

__all__ = ["ASGD", "asgd"]


class ASGD(_PerParameterOptimizer):
    r"""Implements averaged stochastic gradient descent (Polyak and Juditsky, 1992).

    Args:
        params (iterable): iterable of parameters or dicts defining parameter groups
        lr (float, optional): learning rate (default: 1e-2)
        lambd (float, optional): decay term (default: 1e-4)
        alpha (float, optional): power for the eta update (default: 0.75)
        t0 (float, optional): the step at which averaging starts (default: 1e6)
        weight_decay (float, optional): L2 penalty (default: 0)
        maximize (bool, optional): maximize the objective instead of minimizing (default: False)
        foreach, differentiable, capturable: accepted for torch compatibility.
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check_hyperparameters(lr=lr, weight_decay=weight_decay)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    _flag_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def _new_state(self, param, group):
        # eta and mu live in the scalar dtype (float32), as torch keeps them; the update reads them back.
        return {"eta": ember.tensor(float(_to_scalar(group["lr"])), dtype=_get_scalar_dtype()),
                "mu": ember.tensor(1.0, dtype=_get_scalar_dtype()), "ax": ember.zeros_like(param)}


def asgd(params, grads, states, *, lr, lambd, alpha, t0, weight_decay, maximize, **_ignored):
    r"""Functional API that performs the ASGD computation (see :class:`ASGD`)."""
    lr = _get_value(_to_scalar(lr))
    for param, grad, state in zip(params, grads, states):
        grad = grad.neg() if maximize else grad
        state["step"] += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        eta = _get_value(state["eta"])
        param.mul_(1 - lambd * eta)
        param.add_(grad, alpha=-eta)
        ax, mu = state["ax"], state["mu"]
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        step = _get_value(state["step"])
        # New values pass through the default dtype on their way in, as in torch.
        state["eta"].copy_(ember.tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(ember.tensor(1 / max(1, step - t0)))


ASGD._functional = staticmethod(asgd)
