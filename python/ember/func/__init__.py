"""ember.func, as torch.func: calling a module with other parameters and
buffers (functional_call) and the function transforms (grad, vmap, vjp,
jvp, jacrev, jacfwd, hessian; see _transforms.py for how they are built)."""

import contextlib

from ._module_state import functionalize, linearize, replace_all_batch_norm_modules_, stack_module_state
from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap

__all__ = ["functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap"]


def _merged(parameter_and_buffer_dicts):
    if isinstance(parameter_and_buffer_dicts, dict):
        return dict(parameter_and_buffer_dicts)
    merged, repeated = {}, []
    for d in parameter_and_buffer_dicts:
        for key, value in d.items():
            if key in merged:
                repeated.append(key)
            merged[key] = value
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
    return merged


def _tied_names(module):
    """name -> every name of the same tensor (tied weights), for parameters and buffers."""
    groups = {}
    for name, tensor in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        groups.setdefault(id(tensor), []).append(name)
    return {name: names for names in groups.values() for name in names}


def _owner(module, name):
    path, _, attr = name.rpartition(".")
    return (module.get_submodule(path) if path else module), attr


@contextlib.contextmanager
def _swapped(module, replacements):
    """Puts the replacement tensors where the module's parameters and buffers are, then puts them back."""
    saved = []
    try:
        for name, tensor in replacements.items():
            owner, attr = _owner(module, name)
            for table in (owner._parameters, owner._buffers):
                if attr in table:
                    saved.append((table, attr, table[attr]))
                    table[attr] = tensor
                    break
            else:
                saved.append((owner.__dict__, attr, owner.__dict__.get(attr, _MISSING)))
                owner.__dict__[attr] = tensor
        yield
    finally:
        for table, attr, old in reversed(saved):
            if old is _MISSING:
                del table[attr]
            else:
                table[attr] = old


_MISSING = object()


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with the given tensors in place of its parameters and buffers (by their
    state_dict names); the module itself is left as it was. Gradients flow to the given tensors."""
    replacements = _merged(parameter_and_buffer_dicts)
    if tie_weights:
        tied = _tied_names(module)
        for name in list(replacements):
            for alias in tied.get(name, ()):
                replacements.setdefault(alias, replacements[name])
    if strict:
        expected = set(_tied_names(module))
        unexpected = sorted(set(replacements) - expected)
        missing = sorted(expected - set(replacements))
        if unexpected or missing:
            lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
            if unexpected:
                lines.append("\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
            if missing:
                lines.append("\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError("\n".join(lines))
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, replacements):
        return module(*args, **(kwargs or {}))
