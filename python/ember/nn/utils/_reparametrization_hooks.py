"""Shared by the hook-based reparametrizations (weight_norm, spectral_norm):
each is a forward pre-hook object with a ``name`` and a ``remove(module)``."""


def check_not_registered(module, hook_type, name, what):
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, hook_type) and hook.name == name:
            raise RuntimeError(f"Cannot register two {what} hooks on the same parameter {name}")


def remove_hook(module, hook_type, name, what):
    """Undoes the reparametrization of ``module.<name>`` done by a hook of ``hook_type``."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, hook_type) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")
