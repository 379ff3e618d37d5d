"""ember.ops: every registered operator, called through the dispatcher.

    ember.ops.aten.add.Tensor(x, y, alpha=2)   # one overload
    ember.ops.aten.transpose(x, 0, 1)          # the default ("" or only) overload
    ember.ops.myops.scale(x, 2.0)              # an operator a Library defined

Arguments are parsed against the operator's schema, so keyword arguments
and defaults work as they do for the generated bindings.
"""

from . import _C


def _call(op, call, args, kwargs):
    """The dispatcher call, or the __ember_function__ overrides of the arguments that have one."""
    from . import overrides

    if not overrides._disabled():
        relevant = overrides._relevant(args, kwargs)
        if relevant:
            return overrides.handle_ember_function(op, relevant, *args, **kwargs)
    return call(op._name, *args, **kwargs)


class OpOverload:
    def __init__(self, qualified_name):
        self._name = qualified_name

    @property
    def schema(self):
        return _C._schema(self._name)

    def __call__(self, *args, **kwargs):
        return _call(self, _C._call_op, args, kwargs)

    def __repr__(self):
        return f"<OpOverload {self._name}>"


class OpPacket(OpOverload):
    """`ns.name`: callable with the first overload that accepts the arguments; `.overload` picks one."""

    def __call__(self, *args, **kwargs):
        return _call(self, _C._call_op_packet, args, kwargs)

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        if overload == "default":  # the overload without a name, as in torch.ops
            _C._schema(self._name)
            return OpOverload(self._name)
        qualified = f"{self._name}.{overload}"
        _C._schema(qualified)  # raises if there is no such overload
        return OpOverload(qualified)

    def overloads(self):
        prefix = self._name + "."
        names = []
        for schema in _C._schemas():
            full = "::".join(self._name.split("::")[:1]) + "::" + schema.split("::", 1)[1].split("(")[0]
            if full == self._name:
                names.append("default")
            elif full.startswith(prefix):
                names.append(full[len(prefix):])
        return names


class Namespace:
    def __init__(self, name):
        self._ns = name

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        qualified = f"{self._ns}::{name}"
        if not _C._has_operator(qualified):
            raise AttributeError(f"'{self._ns}' has no operator '{name}'")
        return OpPacket(qualified)


class Ops:
    """ember.ops.<namespace>.<op>, and load_library for operators and backends built outside Ember."""

    def __init__(self):
        self.loaded_libraries = set()
        self._handles = []

    def __getattr__(self, ns):
        if ns.startswith("__") or ns in ("loaded_libraries", "_handles"):
            raise AttributeError(ns)
        namespace = Namespace(ns)
        setattr(self, ns, namespace)  # later lookups skip __getattr__
        return namespace

    def load_library(self, path):
        """Loads a shared library whose static initializers register
        operators, kernels or a whole backend (EMBER_LIBRARY /
        EMBER_LIBRARY_IMPL). Its symbols are global, so libraries loaded
        later can use them. Loading the same path again does nothing."""
        import ctypes
        import os

        path = os.path.realpath(path)
        if path in self.loaded_libraries:
            return
        self._handles.append(ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL))
        self.loaded_libraries.add(path)


ops = Ops()
