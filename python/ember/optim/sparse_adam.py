"""SparseAdam, as ``torch.optim.SparseAdam``: Adam for parameters whose
gradients are sparse (``nn.Embedding(sparse=True)``). Only the rows that a
step's gradient touches change: their moments, and the parameter there."""

import math

import ember

from .optimizer import _check_hyperparameters, _evaluate_closure, _get_value, _use_grad_for_differentiable, Optimizer

__all__ = ["SparseAdam", "sparse_adam"]


class SparseAdam(Optimizer):
    r"""Implements the lazy variant of Adam for sparse gradients.

    Args:
        params (iterable): iterable of dense parameters or dicts defining parameter groups
        lr (float, optional): learning rate (default: 1e-3)
        betas (Tuple[float, float], optional): decay rates of the moment averages (default: (0.9, 0.999))
        eps (float, optional): added to the denominator (default: 1e-8)
        maximize (bool, optional): maximize the objective instead of minimizing (default: False)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, ember.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < _get_value(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_hyperparameters(betas=betas)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        self._refuse(lambda p: p.is_sparse, "Sparse params at indices {}: SparseAdam requires dense parameter tensors")
        self._refuse(lambda p: p.is_complex(), "Complex params at indices {}: SparseAdam does not support complex "
                     "parameters")

    def _refuse(self, test, message):
        where = [[g, i] for g, group in enumerate(self.param_groups) for i, p in enumerate(group["params"]) if test(p)]
        if where:
            raise ValueError(message.format(where))

    @_use_grad_for_differentiable  # off: SparseAdam has no differentiable mode
    def step(self, closure=None):
        """Perform a single optimization step (``closure`` re-evaluates the model and returns the loss)."""
        loss = _evaluate_closure(closure)
        for group in self.param_groups:
            params, grads, states = [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                if not p.grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                state = self.state[p]
                if len(state) == 0:
                    # An int step as torch's SparseAdam keeps it (the dense optimizers keep a tensor).
                    state.update(step=0, exp_avg=ember.zeros_like(p), exp_avg_sq=ember.zeros_like(p))
                state["step"] += 1
                params.append(p)
                grads.append(p.grad)
                states.append(state)
            beta1, beta2 = group["betas"]
            sparse_adam(params, grads, states, lr=_get_value(group["lr"]), beta1=beta1, beta2=beta2,
                        eps=group["eps"], maximize=group.get("maximize", False))
        return loss


def sparse_adam(params, grads, states, *, lr, beta1, beta2, eps, maximize):
    r"""Functional API that performs the SparseAdam computation (see :class:`SparseAdam`)."""
    for param, grad, state in zip(params, grads, states):
        grad = grad.coalesce()  # each touched row once, its gradients summed
        if grad._nnz() == 0:
            continue
        rows = tuple(grad.indices())
        values = grad.values() if not maximize else grad.values().neg()
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        # Moving averages moved only at the touched rows: m += (1 - b1) * (g - m).
        old_avg = exp_avg[rows]
        new_avg = old_avg + (values - old_avg) * (1 - beta1)
        old_sq = exp_avg_sq[rows]
        new_sq = old_sq + (values * values - old_sq) * (1 - beta2)
        exp_avg[rows] = new_avg
        exp_avg_sq[rows] = new_sq
        step = state["step"]
        step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        param[rows] = param[rows] + (new_avg / new_sq.sqrt().add_(eps)) * -step_size
