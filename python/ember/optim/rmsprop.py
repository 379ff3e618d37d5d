"""RMSprop, as ``torch.optim.RMSprop``: steps scaled by a running average of
squared gradients (optionally centered, optionally with momentum)."""

import ember

from .optimizer import Optimizer, _evaluate_closure, _get_scalar_dtype, _get_value, _params_with_grad, \
    _use_grad_for_differentiable

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
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
        if isinstance(lr, ember.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._set_group_defaults(momentum=0, centered=False, foreach=None, maximize=False, differentiable=False,
                                 capturable=False)

    def _init_group(self, group):
        params = _params_with_grad(group)
        states = []
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                state["step"] = ember.tensor(0.0, dtype=_get_scalar_dtype())
                state["square_avg"] = ember.zeros_like(p)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = ember.zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = ember.zeros_like(p)
            states.append(state)
        return params, states

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step (``closure`` re-evaluates the model and returns the loss)."""
        loss = _evaluate_closure(closure)
        for group in self.param_groups:
            params, states = self._init_group(group)
            rmsprop(params, [p.grad for p in params], states, lr=group["lr"], alpha=group["alpha"],
                    eps=group["eps"], weight_decay=group["weight_decay"], momentum=group["momentum"],
                    centered=group["centered"], maximize=group["maximize"])
        return loss


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
