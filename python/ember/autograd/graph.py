"""Graph-level tools: the Node type and saved-tensor hooks."""

from .. import _C

_ag = _C._autograd
Node = _ag.Node


class saved_tensors_hooks:
    """Inside the block, every tensor saved for backward goes through
    ``pack_hook(tensor) -> anything`` and comes back, when backward needs it,
    through ``unpack_hook(anything) -> tensor``."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _ag._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *exc):
        _ag._pop_saved_tensors_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Keeps saved tensors on the CPU (a copy for other devices)."""

    def __init__(self):
        def pack(t):
            return (t.device, t.to("cpu") if t.device.type != "cpu" else t)

        def unpack(packed):
            device, t = packed
            return t.to(device)

        super().__init__(pack, unpack)
