"""RAdam, as ``torch.optim.RAdam``: Adam with the variance of its adaptive
step rectified (plain momentum SGD while too few steps have been seen)."""

import ember

from .optimizer import _check_hyperparameters, _get_value, _PerParameterOptimizer

__all__ = ["RAdam", "radam"]


class RAdam(_PerParameterOptimizer):
    r"""Implements the RAdam algorithm.

    Args:
        params (iterable): iterable of parameters or dicts defining parameter groups
        lr (float, optional): learning rate (default: 1e-3)
        betas (Tuple[float, float], optional): decay rates of the moments (default: (0.9, 0.999))
        eps (float, optional): added to the denominator (default: 1e-8)
        weight_decay (float, optional): weight decay (default: 0)
        decoupled_weight_decay (bool, optional): decay the weights directly, as AdamW (default: False)
        maximize (bool, optional): maximize the objective instead of minimizing (default: False)
        foreach, capturable, differentiable: accepted for torch compatibility.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _flag_defaults = {
        "foreach": None, "maximize": False, "differentiable": False, "capturable": False,
        "decoupled_weight_decay": False
    }

    def _new_state(self, param, group):
        return {"exp_avg": ember.zeros_like(param), "exp_avg_sq": ember.zeros_like(param)}


def radam(params, grads, states, *, lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay, maximize,
          **_ignored):
    r"""Functional API that performs the RAdam algorithm computation (see :class:`RAdam`)."""
    lr = _get_value(lr)
    rho_inf = 2 / (1 - beta2) - 1
    for param, grad, state in zip(params, grads, states):
        state["step"] += 1
        step = _get_value(state["step"])
        grad = grad if not maximize else grad.neg()
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected_exp_avg = exp_avg / bias_correction1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(eps)
            param.add_(corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(corrected_exp_avg * lr, alpha=-1.0)


RAdam._functional = staticmethod(radam)
