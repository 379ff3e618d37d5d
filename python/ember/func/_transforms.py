"""torch.func's transforms on Ember's eager autograd.

grad, vjp and jacrev run the function once with fresh differentiable inputs
and ask the autograd engine for gradients. Each transform gives its inputs
new identities (a detached leaf, or an alias of an input that already
requires grad), so that nested transforms (grad of grad, jacfwd of jacrev)
differentiate only with respect to their own inputs, as torch.func's levels
do; an inner transform keeps its graph when an outer one is tracking its
inputs. jvp is the transpose of a vjp (two reverse passes, so it needs the
ops' double backward, which every differentiable Ember op has).

vmap runs the function once per slice of the mapped dimension and stacks the
results: the same values as torch's batching rules, at the cost of a Python
loop over the batch (torch uses the same loop for ops that lack a rule).
"""

import functools

import ember
from ember.utils._pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap"]


# ---- inputs and outputs ---------------------------------------------------------------------------


def _check_tensor(x):
    if not isinstance(x, ember.Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    return x


def _fresh(t):
    """t as a new differentiable input of this transform's level."""
    _check_tensor(t)
    return t.view_as(t) if t.requires_grad else t.detach().requires_grad_()


def _argnums_tuple(argnums, nargs):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    for n in nums:
        if not isinstance(n, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(n)}")
        if not -nargs <= n < nargs:
            raise RuntimeError(f"Got argnum={n}, but only {nargs} positional inputs")
    normalized = tuple(n % nargs for n in nums)
    if len(set(normalized)) != len(normalized):
        raise RuntimeError(f"argnums must be unique, got {argnums}")
    return normalized


def _prepare(args, argnums):
    """(args with fresh inputs at argnums, the fresh inputs' tree per argnum, whether an outer level tracks them)."""
    nums = _argnums_tuple(argnums, len(args))
    args = list(args)
    nested = False
    picked = []
    for n in nums:
        nested = nested or any(t.requires_grad for t in tree_flatten(args[n])[0] if isinstance(t, ember.Tensor))
        args[n] = tree_map(_fresh, args[n])
        picked.append(args[n])
    return args, picked, nested


def _grads(outputs, inputs, grad_outputs, create_graph, retain_graph=None):
    """Gradients of outputs w.r.t. each input; zeros (not None) where an input takes no part."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return [ember.zeros_like(x) for x in inputs]
    got = ember.autograd.grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=retain_graph,
                              create_graph=create_graph, allow_unused=True)
    return [ember.zeros_like(x) if g is None else g for g, x in zip(got, inputs)]


def _pushforward(outputs, inputs, tangents, create_graph=False):
    """J t for each output (None where no input reaches it), from the recorded graph: J^T u is linear in
    u, so differentiating <J^T u, t> with respect to u gives J t."""
    dummies = [ember.zeros_like(o).requires_grad_() for o in outputs]
    pulled = _grads(outputs, inputs, dummies, create_graph=True)
    used = [(p, t) for p, t in zip(pulled, tangents) if p.requires_grad]
    if not used:
        return [None] * len(outputs)
    return list(ember.autograd.grad([p for p, _ in used], dummies, [t for _, t in used], create_graph=create_graph,
                                    allow_unused=True))


def _detached(tree, keep):
    return tree if keep else tree_map(lambda t: t.detach() if isinstance(t, ember.Tensor) else t, tree)


def _split_aux(out, has_aux, api):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}(f)(*args): output of function f should be a tuple: (output, aux) if has_aux is True")
    return out


# ---- grad ---------------------------------------------------------------------------------------


def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning (gradient of func's scalar output w.r.t. the arguments at argnums, that output)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with ember.enable_grad():
            args, picked, nested = _prepare(args, argnums)
            out, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value")
            if not isinstance(out, ember.Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                                   f"with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            leaves, spec = tree_flatten(picked)
            grads = tree_unflatten(_grads([out], leaves, [ember.ones_like(out)], nested), spec)
        grads = grads[0] if not isinstance(argnums, tuple) else tuple(grads)
        value = (out, aux) if has_aux else out
        return _detached(grads, nested), _detached(value, nested)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function returning the gradient of func's scalar output w.r.t. the arguments at argnums
    ((gradient, aux) with has_aux)."""
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


# ---- vjp / jvp ------------------------------------------------------------------------------------


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) gives the gradient w.r.t. each primal."""
    with ember.enable_grad():
        args, picked, nested = _prepare(primals, tuple(range(len(primals))))
        out, aux = _split_aux(func(*args), has_aux, "vjp")
    out_leaves, out_spec = tree_flatten(out)
    for o in out_leaves:
        _check_tensor(o)
    in_leaves, in_spec = tree_flatten(tuple(picked))

    def vjp_fn(cotangents):
        ct_leaves, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function. cotangents: {ct_spec}, primal output: {out_spec}")
        for i, (o, c) in enumerate(zip(out_leaves, ct_leaves)):
            if tuple(o.shape) != tuple(c.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} and output[{i}] has "
                                   f"a shape of {o.shape}.")
        with ember.enable_grad():
            grads = _grads(out_leaves, in_leaves, ct_leaves, nested or any(c.requires_grad for c in ct_leaves),
                           retain_graph=True)
        return _detached(tree_unflatten(grads, in_spec), nested)

    result = (_detached(out, nested), vjp_fn)
    return result + (_detached(aux, nested),) if has_aux else result


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the derivative of func at primals in the direction of tangents[, aux])."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to call "
                           "f(*primals).")
    if not isinstance(tangents, tuple) or len(tangents) != len(primals):
        raise RuntimeError("jvp(f, primals, tangents): Expected tangents to be a tuple of the same length as primals")
    in_tangents, t_spec = tree_flatten(tangents)
    if t_spec != tree_flatten(primals)[1]:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {tree_flatten(primals)[1]} and tangents with structure {t_spec}")
    for p, t in zip(tree_flatten(primals)[0], in_tangents):
        if tuple(_check_tensor(p).shape) != tuple(_check_tensor(t).shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                               f"Tensor, this is not supported. Tensor is of size {list(p.shape)} while the given "
                               f"forward gradient is of size {list(t.shape)}.")
    with ember.enable_grad():
        args, picked, nested = _prepare(primals, tuple(range(len(primals))))
        out, aux = _split_aux(func(*args), has_aux, "jvp")
        out_leaves, out_spec = tree_flatten(out)
        in_leaves = tree_flatten(tuple(picked))[0]
        got = _pushforward([_check_tensor(o) for o in out_leaves], in_leaves, in_tangents, nested)
        pushed = [ember.zeros_like(o) if g is None else g for g, o in zip(got, out_leaves)]
    result = (_detached(out, nested), _detached(tree_unflatten(pushed, out_spec), nested))
    return result + (_detached(aux, nested),) if has_aux else result


# ---- Jacobians ---------------------------------------------------------------------------------


def _jacobian(func, argnums, has_aux, api):
    @functools.wraps(func)
    def wrapper(*args):
        with ember.enable_grad():
            args, picked, nested = _prepare(args, argnums)
            out, aux = _split_aux(func(*args), has_aux, api)
            out_leaves, out_spec = tree_flatten(out)
            in_leaves, in_spec = tree_flatten(picked)
            per_output = []
            for o in out_leaves:
                _check_tensor(o)
                rows = [[] for _ in in_leaves]
                flat = o.reshape(-1)
                for k in range(flat.numel()):
                    basis = ember.zeros_like(flat)
                    basis[k] = 1
                    for i, g in enumerate(_grads([flat], in_leaves, [basis], nested, retain_graph=True)):
                        rows[i].append(g)
                jacs = []
                for x, r in zip(in_leaves, rows):
                    stacked = ember.stack(r) if r else ember.zeros(0, *x.shape, dtype=x.dtype)
                    jacs.append(stacked.reshape(tuple(o.shape) + tuple(x.shape)))
                per_input = tree_unflatten(jacs, in_spec)  # [tree per argnum]
                per_output.append(per_input[0] if not isinstance(argnums, tuple) else tuple(per_input))
        result = _detached(tree_unflatten(per_output, out_spec), nested)
        return (result, _detached(aux, nested)) if has_aux else result

    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """A function returning the Jacobian of func w.r.t. the arguments at argnums (output dims first), row by row."""
    return _jacobian(func, argnums, has_aux, "jacrev")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of func w.r.t. the arguments at argnums, as jacrev (Ember computes both in reverse mode: the
    same values)."""
    return _jacobian(func, argnums, has_aux, "jacfwd")


def hessian(func, argnums=0):
    """The Hessian of func's scalar output w.r.t. the arguments at argnums."""
    return jacfwd(jacrev(func, argnums), argnums)


# ---- vmap ---------------------------------------------------------------------------------------


def _fn_name(func):
    return getattr(func, "__name__", repr(func))


def _broadcast_dims(in_dims, args, func):
    """One in_dim (int or None) per leaf of args."""
    if isinstance(in_dims, int):
        return [in_dims] * len(tree_flatten(args)[0])
    if not isinstance(in_dims, tuple):
        raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or "
                         f"a (potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(in_dims) != len(args):
        raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
                         f"the structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs "
                         f"has structure {tree_flatten(args)[1]}.")
    dims = []
    for d, a in zip(in_dims, args):
        n = len(tree_flatten(a)[0])
        if d is None or isinstance(d, int):
            dims += [d] * n
        else:
            d_leaves, d_spec = tree_flatten(d)
            if d_spec != tree_flatten(a)[1] and not (isinstance(d, (list, tuple, dict))
                                                      and len(d_leaves) == n):
                raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                                 "compatible with the structure of `inputs`.")
            dims += d_leaves
    return dims


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over a dimension of its inputs (in_dims, per argument; None: not mapped); the results are
    stacked along out_dims."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        leaves, spec = tree_flatten(args)
        dims = _broadcast_dims(in_dims, args, func)
        sizes = []
        for x, d in zip(leaves, dims):
            if d is None:
                continue
            if not isinstance(x, ember.Tensor):
                raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an "
                                 f"input but the input is of type {type(x)}. We cannot vmap over non-Tensor "
                                 "arguments, please use None as the respective in_dim")
            if not -x.dim() <= d < x.dim():
                raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                                 f"input, but that input is a Tensor of dimensionality {x.dim()} so expected in_dim "
                                 f"to satisfy -{x.dim()} <= in_dim < {x.dim()}.")
            sizes.append(x.shape[d])
        if not sizes:
            raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): at least one input must be "
                             "batched (have a non-None in_dim and be a Tensor)")
        if len(set(sizes)) > 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sizes} for the mapped dimension")
        batch = sizes[0]

        def sample(b, meta=False):
            picked = []
            for x, d in zip(leaves, dims):
                if d is None:
                    picked.append(x)
                elif meta:
                    shape = list(x.shape)
                    del shape[d]
                    picked.append(ember.empty(shape, dtype=x.dtype, device="meta"))
                else:
                    picked.append(x.select(d, b))
            return tree_unflatten(picked, spec)

        state = ember.get_rng_state() if randomness != "different" else None
        results = []
        for b in range(batch):
            if randomness == "same":
                ember.set_rng_state(state)
            results.append(func(*sample(b), **kwargs))
            if randomness == "error" and not ember.equal(ember.get_rng_state(), state):
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
        if batch == 0:  # no slice to run: the output's shape comes from a run on meta tensors
            probe = func(*sample(0, meta=True), **kwargs)
            return tree_map(lambda o: ember.empty((0,) + tuple(o.shape), dtype=o.dtype,
                                                  device=next(x.device for x in leaves if isinstance(x, ember.Tensor))),
                            probe)
        return _stack_outputs(results, out_dims, func)

    return wrapped


def _stack_outputs(results, out_dims, func):
    out_leaves, out_spec = tree_flatten(results[0])
    per_leaf = [[] for _ in out_leaves]
    for r in results:
        r_leaves, r_spec = tree_flatten(r)
        if r_spec != out_spec:
            raise ValueError(f"vmap({_fn_name(func)}, ...): `{_fn_name(func)}` returned outputs of different "
                             "structures for different slices")
        for i, o in enumerate(r_leaves):
            per_leaf[i].append(o)
    dims = [out_dims] * len(out_leaves) if isinstance(out_dims, (int, type(None))) else tree_flatten(out_dims)[0]
    if len(dims) != len(out_leaves):
        raise ValueError(f"vmap({_fn_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                         "with the structure of `outputs`.")
    stacked = []
    for outs, d in zip(per_leaf, dims):
        if d is None:
            stacked.append(outs[0])
            continue
        if not isinstance(outs[0], ember.Tensor):
            raise ValueError(f"vmap({_fn_name(func)}, ...): `{_fn_name(func)}` must only return Tensors, got type "
                             f"{type(outs[0])}. Did you mean to set out_dims= to None for output?")
        stacked.append(ember.stack(outs, dim=d))
    return tree_unflatten(stacked, out_spec)
