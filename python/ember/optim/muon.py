"""Muon, as ``torch.optim.Muon``: momentum SGD for matrices whose update is orthogonalized by a few
Newton-Schulz iterations (each singular value of the update pushed towards 1), with decoupled weight
decay. Only for 2-D parameters: the rest of a model goes to another optimizer (AdamW, usually)."""

import math

import ember

from .optimizer import (_evaluate_closure, _get_value, _options, _params_with_grad, _PerParameterOptimizer,
                        _use_grad_for_differentiable)

__all__ = ["Muon", "muon"]

_ADJUSTMENTS = (None, "original", "match_rms_adamw")


class Muon(_PerParameterOptimizer):
    r"""Implements Muon with torch's defaults and update rule.

    Args:
        params (iterable): 2-D parameters, or dicts defining parameter groups of them
        lr (float, optional): learning rate (default: 1e-3)
        weight_decay (float, optional): decoupled weight decay, scaled by lr (default: 0.1)
        momentum (float, optional): the momentum buffer's decay (default: 0.95)
        nesterov (bool, optional): use the Nesterov form of the momentum (default: True)
        ns_coefficients (Tuple[float, float, float], optional): the quintic Newton-Schulz coefficients
        eps (float, optional): floor of the norm the update is divided by first (default: 1e-7)
        ns_steps (int, optional): Newton-Schulz iterations (default: 5, at most 99)
        adjust_lr_fn (str, optional): "original" (lr * sqrt(max(1, rows / cols)), the default) or
            "match_rms_adamw" (lr * 0.2 * sqrt(max(rows, cols)), to reuse AdamW's lr and weight decay)
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5, adjust_lr_fn=None):
        if isinstance(lr, ember.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in _ADJUSTMENTS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                    "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.shape}")

    _flag_defaults = {}

    def _new_state(self, param, group):
        if param.is_complex():
            raise RuntimeError("Muon does not support complex parameters")
        if param.grad.is_sparse:
            raise RuntimeError("Muon does not support sparse gradients")
        return {"momentum_buffer": ember.zeros_like(param.grad)}

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step (``closure`` re-evaluates the model and returns the loss)."""
        loss = _evaluate_closure(closure)
        for group in self.param_groups:
            params = _params_with_grad(group)
            states = []
            for p in params:  # no step count: Muon's state is its momentum buffer alone, as torch's
                if not self.state[p]:
                    self.state[p].update(self._new_state(p, group))
                states.append(self.state[p])
            muon(params, [p.grad for p in params], states, **_options(group))
        return loss


def _orthogonalized(update, coefficients, steps, eps):
    """Newton-Schulz iterations X <- a X + (b XX^T + c (XX^T)^2) X from X = update / |update|_F, in
    bfloat16 as torch's (the iteration tolerates it, and it halves the matrix products' cost), on the
    wide orientation so XX^T is the smaller Gram matrix."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if update.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = update.shape[0] > update.shape[1]
    x = update.bfloat16()
    x = x.T if tall else x
    x = x / x.norm().clamp(min=eps)
    for _ in range(steps):
        gram = x @ x.T
        polynomial = ember.addmm(gram, gram, gram, beta=b, alpha=c)
        x = ember.addmm(x, polynomial, x, beta=a)
    return x.T if tall else x


def _adjusted_lr(lr, adjust_lr_fn, shape):
    rows, cols = shape[:2]
    if adjust_lr_fn in (None, "original"):
        return lr * math.sqrt(max(1, rows / cols))
    return lr * 0.2 * math.sqrt(max(rows, cols))


def muon(params, grads, states, *, lr, weight_decay, momentum, nesterov, ns_coefficients, eps, ns_steps,
         adjust_lr_fn, **_ignored):
    r"""Functional API that performs the Muon computation (see :class:`Muon`)."""
    lr = _get_value(lr)
    for param, grad, state in zip(params, grads, states):
        if grad.dim() != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        buffer = state["momentum_buffer"]
        buffer.lerp_(grad, 1 - momentum)
        update = grad.lerp(buffer, momentum) if nesterov else buffer
        update = _orthogonalized(update, ns_coefficients, ns_steps, eps)
        param.mul_(1 - lr * weight_decay)
        param.add_(update.to(param.dtype), alpha=-_adjusted_lr(lr, adjust_lr_fn, param.shape))


Muon._functional = staticmethod(muon)
