"""NAdam, as ``torch.optim.NAdam``: Adam with Nesterov momentum and a
momentum schedule."""

import ember

from .optimizer import _check_hyperparameters, _get_scalar_dtype, _get_value, _PerParameterOptimizer

__all__ = ["NAdam", "nadam"]


class NAdam(_PerParameterOptimizer):
    r"""Implements the NAdam algorithm.

    Args:
        params (iterable): iterable of parameters or dicts defining parameter groups
        lr (float, optional): learning rate (default: 2e-3)
        betas (Tuple[float, float], optional): decay rates of the moments (default: (0.9, 0.999))
        eps (float, optional): added to the denominator (default: 1e-8)
        weight_decay (float, optional): weight decay (default: 0)
        momentum_decay (float, optional): momentum schedule's decay (default: 4e-3)
        decoupled_weight_decay (bool, optional): decay the weights directly, as AdamW (default: False)
        maximize (bool, optional): maximize the objective instead of minimizing (default: False)
        foreach, capturable, differentiable: accepted for torch compatibility.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, momentum_decay=momentum_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _flag_defaults = {
        "maximize": False, "foreach": None, "capturable": False, "differentiable": False,
        "decoupled_weight_decay": False
    }

    def _new_state(self, param, group):
        return {"mu_product": ember.ones((), dtype=_get_scalar_dtype()), "exp_avg": ember.zeros_like(param),
                "exp_avg_sq": ember.zeros_like(param)}


def nadam(params, grads, states, *, lr, beta1, beta2, eps, weight_decay, momentum_decay, decoupled_weight_decay,
          maximize, **_ignored):
    r"""Functional API that performs the NAdam algorithm computation (see :class:`NAdam`)."""
    lr = _get_value(lr)
    for param, grad, state in zip(params, grads, states):
        state["step"] += 1
        step = _get_value(state["step"])
        grad = grad if not maximize else grad.neg()
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        state["mu_product"] *= mu
        mu_product = _get_value(state["mu_product"])
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(1 - beta2 ** step).sqrt().add_(eps)
        param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
        param.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product * mu_next))


NAdam._functional = staticmethod(nadam)
