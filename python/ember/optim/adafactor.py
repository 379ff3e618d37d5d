"""Adafactor, as ``torch.optim.Adafactor``: second moments kept as row and column statistics for
matrices (memory O(n + m) rather than O(nm)), a relative step size, and updates clipped by their RMS."""

import ember

from .optimizer import _get_value, _PerParameterOptimizer

__all__ = ["Adafactor", "adafactor"]


class Adafactor(_PerParameterOptimizer):
    r"""Implements Adafactor (Shazeer and Stern, 2018) with torch's defaults and update rule.

    Args:
        params (iterable): iterable of parameters or dicts defining parameter groups
        lr (float, optional): the cap on the relative step size min(lr, 1 / sqrt(step)) (default: 1e-2)
        beta2_decay (float, optional): the second-moment decay 1 - step ** beta2_decay (default: -0.8)
        eps (Tuple[float | None, float], optional): (epsilon1, floor of the second moment; None: the dtype's
            eps, epsilon2, floor of the parameter's RMS that scales the step) (default: (None, 1e-3))
        d (float, optional): clip updates whose RMS exceeds d (default: 1.0)
        weight_decay (float, optional): decoupled weight decay, scaled by lr (default: 0)
        foreach (bool, optional), maximize (bool, optional): as torch's.
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, ember.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    _flag_defaults = {"foreach": None, "maximize": False}

    def _new_state(self, param, group):
        if param.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        if param.grad.is_sparse:
            raise RuntimeError("Adafactor does not support sparse gradients")
        if param.dim() <= 1:
            return {"variance": ember.zeros_like(param)}
        # Factored along the last two dims: one statistic per row and one per column.
        return {"row_var": param.new_zeros(*param.shape[:-1], 1),
                "col_var": param.new_zeros(*param.shape[:-2], 1, param.shape[-1])}


def adafactor(params, grads, states, *, lr, beta2_decay, eps, d, weight_decay, maximize, **_ignored):
    r"""Functional API that performs the Adafactor computation (see :class:`Adafactor`)."""
    lr = _get_value(lr)
    eps1, eps2 = eps
    for param, grad, state in zip(params, grads, states):
        grad = grad.neg() if maximize else grad
        floor = ember.finfo(param.dtype).eps if eps1 is None else eps1
        state["step"] += 1
        step = _get_value(state["step"])
        new_weight = step ** beta2_decay  # how much of this step's squares enters the running averages
        relative_step = min(lr, step ** -0.5)
        step_size = max(eps2, param.norm(2).item() / param.numel() ** 0.5) * relative_step
        if weight_decay != 0:
            param.mul_(1 - lr * weight_decay)
        squares = grad * grad
        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(squares.mean(-1, keepdim=True), new_weight)
            col_var.lerp_(squares.mean(-2, keepdim=True), new_weight)
            # The rank-1 estimate of the second moments: row x column / their overall mean.
            estimate = (row_var @ col_var) / row_var.mean(-2, keepdim=True).clamp(min=floor)
        else:
            variance = state["variance"]
            variance.lerp_(squares, new_weight)
            estimate = variance.clone()
        update = estimate.clamp_(min=floor * floor).rsqrt_().mul_(grad)
        clip = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
        param.add_(update, alpha=-step_size / clip)


Adafactor._functional = staticmethod(adafactor)
