"""Activation checkpointing: trade compute for memory by not keeping a
block's intermediate results for backward and recomputing them instead.

``checkpoint(fn, *args, use_reentrant=...)``:

* ``use_reentrant=True``: an autograd.Function runs ``fn`` without
  recording; its backward recomputes ``fn`` with grad enabled and runs a
  nested (reentrant) backward through the recomputed graph.
* ``use_reentrant=False``: ``fn`` runs normally under saved-tensor hooks
  that keep nothing; the first time backward unpacks one of its saved
  tensors, ``fn`` is rerun to regenerate them all. Works with
  ``autograd.grad`` and inputs that don't require grad.

With ``preserve_rng_state`` (the default) the recomputation draws the same
random numbers as the forward (e.g. dropout masks).
"""

import contextlib

import ember

from ..autograd import Function, enable_grad, no_grad
from ..autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential"]


@contextlib.contextmanager
def _rng_restored(state):
    """Runs the block from `state` and puts the generator back afterwards."""
    if state is None:
        yield
        return
    current = ember.get_rng_state()
    ember.set_rng_state(state)
    try:
        yield
    finally:
        ember.set_rng_state(current)


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng_state = ember.get_rng_state() if preserve_rng_state else None
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, ember.Tensor)]
        ctx.non_tensor_args = [None if isinstance(a, ember.Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_indices])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        args = list(ctx.non_tensor_args)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            detached = t.detach()
            detached.requires_grad_(t.requires_grad)
            args[i] = detached
        with _rng_restored(ctx.rng_state), enable_grad():
            outputs = ctx.run_function(*args)
        if isinstance(outputs, ember.Tensor):
            outputs = (outputs,)
        roots, seeds = [], []
        for out, g in zip(outputs, grads):
            if isinstance(out, ember.Tensor) and out.requires_grad and g is not None:
                roots.append(out)
                seeds.append(g)
        if not roots:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        ember.autograd.backward(roots, seeds)
        return (None, None) + tuple(a.grad if isinstance(a, ember.Tensor) else None for a in args)


def _checkpoint_without_reentrant(fn, preserve_rng_state, *args, **kwargs):
    rng_state = ember.get_rng_state() if preserve_rng_state else None
    recomputed = {}  # index in save order -> tensor from the rerun
    state = {"count": 0, "done": False}

    def recompute():
        order = {"count": 0}

        def pack_again(t):
            recomputed[order["count"]] = t.detach()
            order["count"] += 1
            return None

        with _rng_restored(rng_state), enable_grad(), saved_tensors_hooks(pack_again, lambda _: None):
            # Inputs cut off from their history: the rerun only has to
            # regenerate the saved values, not record a second graph into them.
            detached = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, ember.Tensor) else a
                        for a in args]
            fn(*detached, **kwargs)
        state["done"] = True

    def pack(t):
        index = state["count"]
        state["count"] += 1
        return index

    def unpack(index):
        if not state["done"]:
            recompute()
        if index not in recomputed:
            raise RuntimeError("torch.utils.checkpoint: the recomputed forward saved fewer tensors than the "
                               "original one; the checkpointed function must be deterministic in what it saves")
        return recomputed[index]

    with saved_tensors_hooks(pack, unpack):
        return fn(*args, **kwargs)


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """Runs ``function(*args)`` without keeping its intermediate results for
    backward; they are recomputed when needed."""
    if use_reentrant is None:
        use_reentrant = True
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, preserve_rng_state, *args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Splits a sequence of functions (or an nn.Sequential-like list) into
    ``segments`` checkpointed chunks; the last chunk runs normally."""
    functions = list(functions)
    size = max(len(functions) // segments, 1)

    def run(start, end):
        def forward(x):
            for f in functions[start:end]:
                x = f(x)
            return x
        return forward

    end = 0
    for start in range(0, size * (segments - 1), size):
        end = start + size
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, **kwargs)
    return run(end, len(functions))(input)
