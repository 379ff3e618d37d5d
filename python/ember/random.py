"""ember.random: the default CPU generator's seeding and state (torch.random), and fork_rng,
which lets a block draw random numbers without changing what the code after it draws."""

import contextlib

from ._C import Generator, default_generator, initial_seed, manual_seed, seed

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state"]


def get_rng_state():
    """The default generator's state, as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
    """Restores the CPU generator's state (and that of the given accelerator devices) on exit."""
    if not enabled:
        yield
        return
    from . import get_device_module

    module = get_device_module(device_type)
    if devices is None:
        devices = list(range(module.device_count())) if hasattr(module, "device_count") else []
    devices = list(devices)
    cpu_state = get_rng_state()
    device_states = [module.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for device, state in zip(devices, device_states):
            module.set_rng_state(state, device)
