"""ember.autograd.functional, as torch.autograd.functional: Jacobians,
Hessians and vector products of a function at given inputs (a tensor or a
tuple of tensors), on the same machinery as ember.func's transforms."""

import ember
from ember import func as _func
from ember.func._transforms import _detached

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x, what, fn_name):
    if isinstance(x, ember.Tensor):
        return (x,), False
    if isinstance(x, (tuple, list)) and all(isinstance(t, ember.Tensor) for t in x):
        return tuple(x), True
    raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but the value at "
                    f"index 0 has type {type(x)}.")


def _single_element(func, fn_name):
    """func giving (its one-element output as a 0-d tensor, the output as it was); torch's error for any other."""
    def scalar(*xs):
        out = func(*xs)
        if not isinstance(out, ember.Tensor) or out.numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single "
                               "element")
        return out.reshape(()), out
    return scalar


def _unpack(x, was_tuple):
    return x if was_tuple else x[0]


def _vectors(v, like, fn_name, what):
    """v as a tuple; None means ones, allowed only where `like` is one single-element tensor."""
    if v is None:
        if any(t.numel() != 1 for t in like):
            raise RuntimeError(f"The vector v can only be None if the {what} is a single Tensor with a single "
                               "element.")
        return tuple(ember.ones_like(t) for t in like)
    return _as_tuple(v, "v", fn_name)[0]


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product of func at inputs."""
    ins, in_tuple = _as_tuple(inputs, "inputs", "vjp")
    out, fn = _func.vjp(func, *ins)
    outs, out_tuple = _as_tuple(out, "outputs of the user-provided function", "vjp")
    vs = _vectors(v, outs, "vjp", "user-provided function's output")
    grads = fn(vs if out_tuple else vs[0])
    return _detached((out, _unpack(grads, in_tuple)), create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product of func at inputs."""
    ins, in_tuple = _as_tuple(inputs, "inputs", "jvp")
    vs = _vectors(v, ins, "jvp", "input to the user-provided function")
    out, pushed = _func.jvp(func, ins, vs)
    return _detached((out, pushed), create_graph)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs: one block per (output, input), output dims first."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has '
                         'more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to '
                         'use "reverse-mode".')
    ins, in_tuple = _as_tuple(inputs, "inputs", "jacobian")
    argnums = tuple(range(len(ins))) if in_tuple else 0
    jac = _func.jacrev(func, argnums)(*ins)
    return _detached(jac, create_graph)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of func's single-element output at inputs (blocks per pair of inputs for a tuple)."""
    ins, in_tuple = _as_tuple(inputs, "inputs", "hessian")
    argnums = tuple(range(len(ins))) if in_tuple else 0
    scalar = _single_element(func, "hessian")
    return _detached(_func.hessian(lambda *xs: scalar(*xs)[0], argnums)(*ins), create_graph)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a function with a single-element output."""
    ins, in_tuple = _as_tuple(inputs, "inputs", "vhp")
    vs, _ = _as_tuple(v, "v", "vhp") if v is not None else (tuple(ember.ones_like(t) for t in ins), in_tuple)
    # One run of func: its gradient is vjp's output, its value rides along as aux.
    gradient = _func.grad(_single_element(func, "vhp"), tuple(range(len(ins))), has_aux=True)
    _, fn, out = _func.vjp(gradient, *ins, has_aux=True)
    return out.detach(), _detached(_unpack(fn(tuple(vs)), in_tuple), create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a function with a single-element output (equal to vhp: H is symmetric)."""
    return vhp(func, inputs, v, create_graph, strict)
