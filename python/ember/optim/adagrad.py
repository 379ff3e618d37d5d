"""Adagrad, as ``torch.optim.Adagrad``: steps scaled by the root of the sum
of all squared gradients so far."""

import ember

from .optimizer import Optimizer, _check_fused, _evaluate_closure, _get_scalar_dtype, _get_value, \
    _params_with_grad, _use_grad_for_differentiable

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
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
        if isinstance(lr, ember.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        _check_fused(self.defaults)
        # Unlike most optimizers, the state exists from the start, as in torch.
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = ember.tensor(0.0, dtype=_get_scalar_dtype())
                state["sum"] = ember.full_like(p, group["initial_accumulator_value"])

    def __setstate__(self, state):
        super().__setstate__(state)
        self._set_group_defaults(foreach=None, maximize=False, differentiable=False, fused=None)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step (``closure`` re-evaluates the model and returns the loss)."""
        loss = _evaluate_closure(closure)
        for group in self.param_groups:
            params = _params_with_grad(group)
            adagrad(params, [p.grad for p in params], [self.state[p] for p in params], lr=group["lr"],
                    lr_decay=group["lr_decay"], weight_decay=group["weight_decay"], eps=group["eps"],
                    maximize=group["maximize"])
        return loss


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
