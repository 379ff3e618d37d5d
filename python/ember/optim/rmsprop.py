"""RMSprop, as ``torch.optim.RMSprop``: steps scaled by a running average of
squared gradients (optionally centered, optionally with momentum)."""

import ember

from .optimizer import _check_hyperparameters, _get_value, _PerParameterOptimizer

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(_PerParameterOptimizer):
    r"""Implements RMSprop.

    Args:
        params (iterable): iterable of parameters or dicts defining parameter groups
        lr (float, optional): learning rate (default: 1e-2)
        alpha (float, optional): smoothing constant of the squared-gradient average (default: 0.99)
        eps (float, optional): added to the denominator (default: 1e-8)
        weight_decay (float, optional): L2 penalty (default: 0)
        momentum (float, optional): momentum factor (default: 0)
        centered (bool, optional): divide by the estimated variance of the gradient rather than its second moment
        maximize (bool, optional): maximize the objective instead of minimizing (default: False)
        capturable, foreach, differentiable: accepted for torch compatibility.
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_hyperparameters(lr=lr, eps=eps, weight_decay=weight_decay, momentum=momentum, alpha=alpha)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _flag_defaults = {
        "momentum": 0, "centered": False, "foreach": None, "maximize": False, "differentiable": False,
        "capturable": False
    }

    def _new_state(self, param, group):
        state = {"square_avg": ember.zeros_like(param)}
        if group["momentum"] > 0:
            state["momentum_buffer"] = ember.zeros_like(param)
        if group["centered"]:
            state["grad_avg"] = ember.zeros_like(param)
        return state


def rmsprop(params, grads, states, *, lr, alpha, eps, weight_decay, momentum, centered, maximize, **_ignored):
    r"""Functional API that performs the RMSprop algorithm computation (see :class:`RMSprop`)."""
    lr = _get_value(lr)
    for param, grad, state in zip(params, grads, states):
        grad = grad if not maximize else grad.neg()
        state["step"] += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)


RMSprop._functional = staticmethod(rmsprop)
