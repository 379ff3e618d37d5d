"""Gradient checking: analytical gradients (from backward) against central
finite differences, and the same for second derivatives (gradgradcheck).

Complex numbers are checked as pairs of reals: each complex input element is
two columns (its real and imaginary part perturbed), each complex output
element two rows; backward's gradient of a real loss is dL/dx + i dL/dy
(torch's convention), and seeding a complex output with 1 or 1j gives the
rows of its real and imaginary part."""


from .. import _C
from .grad_mode import no_grad

_Tensor = _C.Tensor


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the gradients do not match."""


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,) if not isinstance(x, list) else tuple(x)


def _differentiable_outputs(outputs):
    return [o for o in outputs if isinstance(o, _Tensor) and o.requires_grad]


def _numpy(t):
    """The values of t as float64 reals, a complex element as (real, imag)."""
    import numpy as np  # imported on use: `import ember` does not load NumPy
    a = t.detach().resolve_conj().resolve_neg().numpy(force=True).reshape(-1)
    if np.iscomplexobj(a):
        return np.stack([a.real, a.imag], -1).astype(np.float64).reshape(-1)
    return a.astype(np.float64)


def _width(t):
    return 2 if t.is_complex() else 1


def _numerical_jacobians(func, inputs, wrt, outputs, eps, positions):
    """J[o][w]: d output o / d input wrt[w], shape (out.numel, in.numel)."""
    import numpy as np  # imported on use: `import ember` does not load NumPy
    jac = [[np.zeros((o.numel() * _width(o), inputs[w].numel() * _width(inputs[w]))) for w in wrt]
           for o in outputs]
    for col, w in enumerate(wrt):
        x = inputs[w].detach()  # shares memory: perturbing it perturbs the input
        steps = (eps, eps * 1j) if x.is_complex() else (eps,)
        for k in range(x.numel()):
            index = tuple(int(i) for i in np.unravel_index(k, tuple(x.shape)))
            original = x[index].item() if index else x.item()
            for part, step in enumerate(steps):
                _set(x, index, original + step)
                plus = [_numpy(o) for o in _outputs_of(func, inputs, positions)]
                _set(x, index, original - step)
                minus = [_numpy(o) for o in _outputs_of(func, inputs, positions)]
                _set(x, index, original)
                for r in range(len(outputs)):
                    jac[r][col][:, k * len(steps) + part] = (plus[r] - minus[r]) / (2 * eps)
    return jac


def _set(x, index, value):
    with no_grad():
        if index:
            x[index] = value
        else:
            x.fill_(value)


def _outputs_of(func, inputs, positions):
    results = _as_tuple(func(*inputs))
    return [results[i] for i in positions]


def _differentiable_positions(results):
    return [i for i, o in enumerate(results) if isinstance(o, _Tensor) and o.requires_grad]


def _analytical_jacobians(inputs, wrt, outputs):
    import numpy as np  # imported on use: `import ember` does not load NumPy
    from . import grad as autograd_grad

    jac = [[np.zeros((o.numel() * _width(o), inputs[w].numel() * _width(inputs[w]))) for w in wrt]
           for o in outputs]
    for r, out in enumerate(outputs):
        units = (1, 1j) if out.is_complex() else (1,)
        for m in range(out.numel()):
            for part, unit in enumerate(units):
                seed = _C.zeros(tuple(out.shape), dtype=out.dtype)  # contiguous, whatever out's layout
                seed.view(-1)[m] = unit
                grads = autograd_grad([out], [inputs[w] for w in wrt], [seed], retain_graph=True,
                                      allow_unused=True)
                for col, g in enumerate(grads):
                    if g is not None:
                        jac[r][col][m * len(units) + part, :] = _numpy(g)
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """True if backward's gradients of ``func`` at ``inputs`` match finite
    differences; otherwise raises GradcheckError (or returns False when
    ``raise_exception=False``). Use float64 inputs: eps and the tolerances
    assume double precision."""
    import numpy as np  # imported on use: `import ember` does not load NumPy
    inputs = _as_tuple(inputs)
    wrt = [i for i, t in enumerate(inputs) if isinstance(t, _Tensor) and t.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")

    def fail(message):
        if raise_exception:
            raise GradcheckError(message)
        return False

    results = _as_tuple(func(*inputs))
    positions = _differentiable_positions(results)
    outputs = [results[i] for i in positions]
    for i, o in enumerate(results):
        if isinstance(o, _Tensor) and o.is_floating_point() and not o.requires_grad:
            numerical = _numerical_jacobians(func, inputs, wrt, [o], eps, [i])
            if any(np.any(j != 0) for j in numerical[0]):
                return fail("Numerical gradient for function expected to be zero")
    if not outputs:
        return True

    numerical = _numerical_jacobians(func, inputs, wrt, outputs, eps, positions)
    # Perturbing the inputs bumped their versions: take a fresh graph.
    outputs = [_as_tuple(func(*inputs))[i] for i in positions]
    analytical = _analytical_jacobians(inputs, wrt, outputs)
    for r in range(len(outputs)):
        for col, w in enumerate(wrt):
            a, n = analytical[r][col], numerical[r][col]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                return fail(f"Jacobian mismatch for output {r} with respect to input {w},\n"
                            f"numerical:{n}\nanalytical:{a}\n")
    again = _analytical_jacobians(inputs, wrt, outputs)
    for r in range(len(outputs)):
        for col in range(len(wrt)):
            if np.max(np.abs(again[r][col] - analytical[r][col]), initial=0.0) > nondet_tol:
                return fail("Backward is not reentrant, i.e., running backward with same input and grad_output "
                            "multiple times gives different values, although analytical gradient matches numerical "
                            f"gradient.The tolerance for nondeterminism was {nondet_tol}.")
    if check_grad_dtypes:
        from . import grad as autograd_grad

        seeds = [_C.ones_like(o) for o in outputs]
        grads = autograd_grad(outputs, [inputs[w] for w in wrt], seeds, retain_graph=True, allow_unused=True)
        for g, w in zip(grads, wrt):
            if g is not None and (g.dtype != inputs[w].dtype or g.shape != inputs[w].shape):
                return fail("Gradient has dtype mismatch" if g.dtype != inputs[w].dtype else
                            "Gradient has shape mismatch")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the gradients themselves: checks second derivatives of
    ``func`` by differentiating its backward pass (built with create_graph)."""
    from . import grad as autograd_grad

    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    if grad_outputs is None:
        gen = _C.Generator()
        gen.manual_seed(0)
        grad_outputs = tuple(_C.randn(o.shape, generator=gen, dtype=o.dtype).requires_grad_() for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)
    wrt = [i for i, t in enumerate(inputs) if isinstance(t, _Tensor) and t.requires_grad]

    def first_derivatives(*all_inputs):
        ins, seeds = all_inputs[:n], all_inputs[n:]
        outs = _differentiable_outputs(_as_tuple(func(*ins)))
        grads = autograd_grad(outs, [ins[i] for i in wrt], list(seeds), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol)
