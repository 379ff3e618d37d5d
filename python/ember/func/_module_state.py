"""Helpers of torch.func for working with many copies of a model or with pure functions:
stack_module_state (ensembles run by vmap over functional_call), replace_all_batch_norm_modules_,
linearize and functionalize."""

import ember

from ._transforms import jvp


def stack_module_state(models):
    """(params, buffers): each parameter and buffer name mapped to the models' tensors stacked along a new
    first dimension; stacked parameters are new leaves that require grad as the originals do."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(named):
        tables = [dict(named(m)) for m in models]
        return {name: [table[name] for table in tables] for name in tables[0]}

    params = {name: ember.stack([t.detach() for t in group]).requires_grad_(any(t.requires_grad for t in group))
              for name, group in stacked(lambda m: m.named_parameters()).items()}
    buffers = {name: ember.stack(group) for name, group in stacked(lambda m: m.named_buffers()).items()}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """Makes every batch norm in ``root`` use the batch's statistics (no running stats), which vmap over
    models needs; returns ``root``."""
    from ember.nn.modules.batchnorm import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root


def linearize(func, *primals):
    """(func(*primals), jvp_fn) where jvp_fn(*tangents) is the Jacobian-vector product at primals."""
    output = func(*primals)

    def jvp_fn(*tangents):
        if len(tangents) != len(primals):
            raise RuntimeError(f"linearize: expected {len(primals)} tangents, got {len(tangents)}")
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


def functionalize(func, *, remove="mutations"):
    """``func`` itself: its mutations already take effect eagerly, which is what a functionalized
    program computes (torch uses the rewrite for tracing, which Ember does not do)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
                           "Valid options are:\n     remove='mutations'\n     remove='mutations_and_views'")
    return func
