"""Adam, as ``torch.optim.Adam`` (single-tensor implementation)."""

import ember

from .optimizer import (
    Optimizer,
    _check_fused,
    _evaluate_closure,
    _get_scalar_dtype,
    _get_value,
    _lazy_states,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["Adam", "adam"]


class Adam(Optimizer):
    r"""Implements the Adam algorithm.

    Args:
        params (iterable): iterable of parameters or dicts defining parameter groups
        lr (float, optional): learning rate (default: 1e-3)
        betas (Tuple[float, float], optional): coefficients used for computing
            running averages of gradient and its square (default: (0.9, 0.999))
        eps (float, optional): term added to the denominator (default: 1e-8)
        weight_decay (float, optional): weight decay (L2 penalty) (default: 0)
        amsgrad (bool, optional): use the AMSGrad variant (default: False)
        maximize (bool, optional): maximize the objective (default: False)
        decoupled_weight_decay (bool, optional): AdamW-style weight decay (default: False)
        foreach, capturable, differentiable, fused: accepted for torch
            compatibility; Ember always runs the single-tensor implementation.
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ):
        if isinstance(lr, ember.Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, beta in enumerate(betas[:2]):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (
            (isinstance(betas[0], float) and isinstance(betas[1], float))
            or (isinstance(betas[0], ember.Tensor) and isinstance(betas[1], ember.Tensor))
        ):
            raise ValueError("betas must be either both floats or both Tensors")
        for i, beta in enumerate(betas[:2]):
            if isinstance(beta, ember.Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if beta.numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(_to_scalar, betas))

        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        _check_fused(self.defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._set_group_defaults(amsgrad=False, maximize=False, foreach=None, capturable=False, differentiable=False,
                                 decoupled_weight_decay=False, fused=None)
        for group in self.param_groups:
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], ember.Tensor):
                    step_val = float(p_state["step"])
                    p_state["step"] = ember.tensor(step_val, dtype=_get_scalar_dtype())

    def _init_group(self, group):
        """The group's params with a grad, and their state (created on first use)."""
        params, states = _lazy_states(self, group, lambda p: self._new_state(p, group))
        if group["differentiable"] and any(state["step"].requires_grad for state in states):
            raise RuntimeError("`requires_grad` is not supported for `step` in differentiable mode")
        return params, states

    @staticmethod
    def _new_state(param, group):
        # Moving averages of the gradient and of its square (and, for amsgrad, the latter's running max).
        state = {"exp_avg": ember.zeros_like(param), "exp_avg_sq": ember.zeros_like(param)}
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = ember.zeros_like(param)
        return state

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model
                and returns the loss.
        """
        loss = _evaluate_closure(closure)

        for group in self.param_groups:
            params, states = self._init_group(group)
            beta1, beta2 = group["betas"]

            adam(
                params,
                [p.grad for p in params],
                [s["exp_avg"] for s in states],
                [s["exp_avg_sq"] for s in states],
                [s["max_exp_avg_sq"] for s in states] if group["amsgrad"] else [],
                [s["step"] for s in states],
                amsgrad=group["amsgrad"],
                has_complex=any(p.is_complex() for p in params),
                beta1=beta1,
                beta2=beta2,
                lr=group["lr"],
                weight_decay=group["weight_decay"],
                eps=group["eps"],
                maximize=group["maximize"],
                decoupled_weight_decay=group["decoupled_weight_decay"],
            )

        return loss


def _fusable(param, *others):
    """Whether _adam_step_ takes these: dense float tensors of one dtype and shape."""
    return param.dtype in (ember.float32, ember.float64) and all(
        t.is_contiguous() and not t.is_conj() and t.dtype == param.dtype and t.shape == param.shape
        for t in (param, *others)
    )


def adam(
    params,
    grads,
    exp_avgs,
    exp_avg_sqs,
    max_exp_avg_sqs,
    state_steps,
    *,
    amsgrad,
    beta1,
    beta2,
    lr,
    weight_decay,
    eps,
    maximize,
    decoupled_weight_decay=False,
    has_complex=False,
    **_ignored,
):
    r"""Functional API that performs the Adam algorithm computation (see :class:`Adam`)."""
    if has_complex:
        raise NotImplementedError("ember.optim.Adam does not support complex parameters yet")
    lr = _get_value(lr)
    beta1 = _get_value(beta1)
    beta2 = _get_value(beta2)

    # One fused kernel call per parameter where it applies (no graph to build,
    # dense float tensors); the operator-by-operator update otherwise.
    fusable = not amsgrad and not ember.is_grad_enabled()
    for i, param in enumerate(params):
        if fusable and _fusable(param, grads[i], exp_avgs[i], exp_avg_sqs[i]):
            state_steps[i] += 1
            ember._adam_step_(param, grads[i], exp_avgs[i], exp_avg_sqs[i], float(_get_value(state_steps[i])), lr,
                              beta1, beta2, weight_decay, eps, maximize, decoupled_weight_decay)
            continue
        grad = grads[i] if not maximize else grads[i].neg()
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step_t = state_steps[i]

        # update step
        step_t += 1

        if weight_decay != 0:
            if decoupled_weight_decay:
                # Perform step weight decay
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)

        # Decay the first and second moment running average coefficient
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

        step = _get_value(step_t)

        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step

        step_size = lr / bias_correction1

        bias_correction2_sqrt = bias_correction2**0.5

        if amsgrad:
            # Maintains the maximum of all 2nd moment running avg. till now
            max_exp_avg_sqs[i].copy_(ember.maximum(max_exp_avg_sqs[i], exp_avg_sq))
            # Use the max. for normalizing running avg. of gradient
            denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)

        param.addcdiv_(exp_avg, denom, value=-step_size)
