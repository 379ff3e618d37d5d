"""Adagrad, as ``torch.optim.Adagrad``: steps scaled by the root of the sum
of all squared gradients so far."""

import ember

from .optimizer import (
    _check_fused,
    _check_hyperparameters,
    _get_scalar_dtype,
    _get_value,
    _PerParameterOptimizer,
)

__all__ = ["Adagrad", "adagrad"]


class Adagrad(_PerParameterOptimizer):
    r"""Implements the Adagrad algorithm.

    Args:
        params (iterable): iterable of parameters or dicts defining parameter groups
        lr (float, optional): learning rate (default: 1e-2)
        lr_decay (float, optional): learning rate decay (default: 0)
        weight_decay (float, optional): L2 penalty (default: 0)
        initial_accumulator_value (float, optional): starting value of the sum of squares (default: 0)
        eps (float, optional): added to the denominator (default: 1e-10)
        maximize (bool, optional): maximize the objective instead of minimizing (default: False)
        foreach, differentiable, fused: accepted for torch compatibility.
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_hyperparameters(lr=lr, weight_decay=weight_decay, lr_decay=lr_decay,
                               initial_accumulator_value=initial_accumulator_value)
        _check_hyperparameters(eps=eps)  # checked after the others, as torch
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        _check_fused(self.defaults)
        # Unlike most optimizers, the state exists from the start, as in torch.
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p].update(step=ember.tensor(0.0, dtype=_get_scalar_dtype()), **self._new_state(p, group))

    _flag_defaults = {"foreach": None, "maximize": False, "differentiable": False, "fused": None}

    def _new_state(self, param, group):
        return {"sum": ember.full_like(param, group["initial_accumulator_value"])}


def adagrad(params, grads, states, *, lr, lr_decay, weight_decay, eps, maximize, **_ignored):
    r"""Functional API that performs the Adagrad algorithm computation (see :class:`Adagrad`)."""
    lr = _get_value(lr)
    for param, grad, state in zip(params, grads, states):
        state["step"] += 1
        step = state["step"].item()
        grad = grad if not maximize else grad.neg()
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        state["sum"].addcmul_(grad, grad, value=1)
        std = state["sum"].sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)


Adagrad._functional = staticmethod(adagrad)
