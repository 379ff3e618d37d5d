"""Rprop, as ``torch.optim.Rprop``: per-element step sizes that grow while
the gradient keeps its sign and shrink when it flips; only signs move the
parameters."""

import ember

from .optimizer import _check_hyperparameters, _PerParameterOptimizer, _to_scalar

__all__ = ["Rprop", "rprop"]


class Rprop(_PerParameterOptimizer):
    r"""Implements the resilient backpropagation algorithm.

    Args:
        params (iterable): iterable of parameters or dicts defining parameter groups
        lr (float, optional): the initial step size (default: 1e-2)
        etas (Tuple[float, float], optional): (etaminus, etaplus), the factors that shrink and grow the
            step size (default: (0.5, 1.2))
        step_sizes (Tuple[float, float], optional): the smallest and largest step size (default: (1e-6, 50))
        maximize (bool, optional): maximize the objective instead of minimizing (default: False)
        foreach, differentiable, capturable: accepted for torch compatibility.
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check_hyperparameters(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    _flag_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def _new_state(self, param, group):
        return {"prev": ember.zeros_like(param),
                "step_size": ember.full_like(param.grad, float(_to_scalar(group["lr"])))}


def rprop(params, grads, states, *, etas, step_sizes, maximize, **_ignored):
    r"""Functional API that performs the Rprop computation (see :class:`Rprop`)."""
    etaminus, etaplus = etas
    smallest, largest = step_sizes
    for param, grad, state in zip(params, grads, states):
        grad = grad.neg() if maximize else grad
        state["step"] += 1
        prev, step_size = state["prev"], state["step_size"]
        sign = grad.mul(prev).sign()
        factor = ember.ones_like(sign).masked_fill_(sign > 0, etaplus).masked_fill_(sign < 0, etaminus)
        step_size.mul_(factor).clamp_(smallest, largest)
        # Where the sign flipped, this step does not move and the next one starts afresh.
        grad = grad.masked_fill(sign < 0, 0)
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)


Rprop._functional = staticmethod(rprop)
