"""ember.jit: traced programs, and the decorators and queries that eager code
and libraries use (``torch.jit.is_scripting()``, ``@torch.jit.ignore``, ...).

``trace`` records the operators a function or module calls on example
inputs into a graph (``traced.graph`` prints it); the traced program runs
through the dispatcher without Python, is saved with its weights by
``ember.jit.save`` and loaded by ``ember.jit.load`` here or by
``ember::jit::load`` in C++. ``script`` gives back what it was handed: Ember
has no TorchScript compiler, so a scripted function or module computes
exactly what it computes eagerly.
"""

import typing

import inspect
import os
import tempfile
import warnings

import ember
from ember import _C

__all__ = ["Final", "ScriptModule", "TracedModule", "TracerWarning", "export", "export_op_list", "ignore",
           "is_scripting", "is_tracing", "load", "optimize_for_inference", "save", "script", "trace", "unused"]

Final = typing.Final


def is_scripting():
    """False: Ember code always runs as Python."""
    return False


def is_tracing():
    """Whether ember.jit.trace is recording on this thread."""
    return _C._jit.is_tracing()


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``obj`` itself, run eagerly."""
    return obj


def _decorator(fn=None, **_options):
    # Usable both as @ignore and as @ignore(drop=True).
    if fn is None:
        return lambda f: f
    return fn


ignore = unused = export = _decorator


class TracerWarning(Warning):
    """Something the trace cannot follow: a tensor turned into a Python value."""


def _flatten(out, what="output"):
    """The tensors of a (nested) tuple or list, and how to put them back."""
    if isinstance(out, ember.Tensor):
        return [out], None
    if isinstance(out, (tuple, list)):
        flat, parts = [], []
        for item in out:
            tensors, structure = _flatten(item, what)
            flat += tensors
            parts.append((len(tensors), structure))
        return flat, (type(out), parts)
    raise TypeError(f"ember.jit.trace: a traced {what} must be a tensor or a (nested) tuple or list of tensors, "
                    f"not {type(out).__name__}")


def _unflatten(flat, structure):
    if structure is None:
        return flat[0]
    kind, parts = structure
    items, at = [], 0
    for count, inner in parts:
        items.append(_unflatten(flat[at:at + count], inner))
        at += count
    return kind(items)


def _input_names(fn, count):
    """Graph input names: the parameters of forward (or of the function)."""
    target = fn.forward if isinstance(fn, ember.nn.Module) else fn
    try:
        params = [p for p in inspect.signature(target).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params[:count]]
    return names + [f"input{i}" for i in range(len(names), count)]


class _Holder(ember.nn.Module):
    """A submodule of a TracedModule: holds tensors under their traced names,
    printed with the class name of the module it stands for."""

    def __init__(self, original_name="Module"):
        super().__init__()
        self._original_name = original_name

    def _get_name(self):
        return self._original_name

    def extra_repr(self):
        return f"original_name={self._original_name}"


class TracedModule(ember.nn.Module):
    """A traced program with the parameters and buffers of the module it came
    from, under the same names (so state_dict and load_state_dict carry over).
    Calling it runs the graph on the inputs and its current tensors."""

    def __init__(self, graph, state, num_inputs, structure=None, kinds=None, names=None):
        super().__init__()
        self._names = names or {}
        self._graph = graph
        self._num_inputs = num_inputs
        self._state_names = [name for name, _ in state]
        self._structure = structure
        self._slots = []  # per state tensor: (the submodule holding it, its name there)
        for name, tensor in state:
            *path, leaf = name.split(".")
            owner = self
            for depth, part in enumerate(path):
                if part not in owner._modules:
                    owner.add_module(part, _Holder(self._names.get(".".join(path[:depth + 1]), "Module")))
                owner = owner._modules[part]
            if (kinds or {}).get(name) == "buffer" or not isinstance(tensor, ember.nn.Parameter):
                owner.register_buffer(leaf, tensor)
            else:
                owner.register_parameter(leaf, tensor)
            self._slots.append((owner, leaf))

    @property
    def graph(self):
        """The program's graph (print it to read it)."""
        return self._graph

    @property
    def code(self):
        return str(self._graph)

    def _current_state(self):
        # Looked up by name at each call (a replaced parameter is seen), without walking the module tree.
        return [(name, owner._parameters[leaf] if leaf in owner._parameters else owner._buffers[leaf])
                for name, (owner, leaf) in zip(self._state_names, self._slots)]

    def _program(self):
        return _C._jit.Program(self._graph, self._current_state())

    def forward(self, *inputs):
        if len(inputs) != self._num_inputs:
            raise TypeError(f"forward() of this traced program takes {self._num_inputs} inputs but got {len(inputs)}")
        for i, x in enumerate(inputs):
            if not isinstance(x, ember.Tensor):
                raise TypeError(f"forward() of a traced program takes tensors; input {i} is {type(x).__name__}")
        outputs = self._program().run(list(inputs))
        if self._structure is None and len(outputs) != 1:
            return tuple(outputs)
        return _unflatten(outputs, self._structure)

    def save(self, f):
        save(self, f)

    def _get_name(self):
        return self._names.get("", type(self).__name__)

    def extra_repr(self):
        return f"original_name={self._get_name()}"


ScriptModule = TracedModule


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None, example_kwarg_inputs=None,
          _store_inputs=True):
    """Runs ``func`` (a module or function) on ``example_inputs`` and records
    the operators it calls into a program. A module's parameters and buffers
    become named inputs of the graph, taken from the traced module at each
    call. Python control flow is not recorded: the program holds the path
    these inputs took (a tensor turned into a Python value raises a
    TracerWarning)."""
    if example_kwarg_inputs is not None:
        raise NotImplementedError("ember.jit.trace: example_kwarg_inputs is not supported; pass example_inputs")
    if isinstance(example_inputs, ember.Tensor):
        example_inputs = (example_inputs,)
    if not isinstance(example_inputs, (tuple, list)) or not example_inputs:
        raise TypeError("ember.jit.trace: example_inputs must be a tensor or a non-empty tuple of tensors")
    for i, x in enumerate(example_inputs):
        if not isinstance(x, ember.Tensor):
            raise TypeError(f"ember.jit.trace: example input {i} is {type(x).__name__}, not a tensor")
    module = func if isinstance(func, ember.nn.Module) else None
    state, kinds = [], {}
    names = {"": getattr(func, "__name__", type(func).__name__)}
    if module is not None:
        names = {prefix: type(m).__name__ for prefix, m in module.named_modules()}
    if module is not None:
        for name, p in module.named_parameters():
            state.append((name, p))
        for name, b in module.named_buffers():
            state.append((name, b))
            kinds[name] = "buffer"
    tracer = _C._jit.Tracer()
    try:
        for name, x in zip(_input_names(func, len(example_inputs)), example_inputs):
            tracer.add_input(x, name)
        for name, tensor in state:
            tracer.add_input(tensor, name)
        flat, structure = _flatten(func(*example_inputs))
        for tensor in flat:
            tracer.add_output(tensor)
    finally:
        graph = tracer.finish()
    for message in dict.fromkeys(tracer.warnings):
        warnings.warn(message, TracerWarning, stacklevel=2)
    traced = TracedModule(graph, state, len(example_inputs), structure, kinds, names)
    if module is not None:
        traced.train(module.training)
    return traced


def optimize_for_inference(traced, other_methods=None):
    """Folds constants, merges repeated computations, drops dead code and
    fuses chains of float32 pointwise ops into single loops, in the traced
    program's graph, in place; returns the program. For inference: the
    fused loops have no derivative."""
    _C._jit.optimize(traced.graph)
    _C._jit.fuse_elementwise(traced.graph)
    return traced


def export_op_list(traced, path=None):
    """The operators a build must register to load and run the program,
    sorted ("aten::addmm", "aten::linear", ...): the ones its graph calls, the
    ones their kernels and decompositions call in turn, and the ones loading
    a program file and saving its outputs call, found by doing that once (the program runs on
    zeros of the shapes it was traced with). With ``path``, also writes them
    as the allow-list of a selective build (``-DEMBER_OP_ALLOWLIST=path``)."""
    program = traced._program()
    types = traced.graph.input_types()[:program.num_inputs()]
    inputs = [ember.zeros(sizes, dtype=dtype) for dtype, sizes in types]
    with tempfile.TemporaryDirectory() as scratch:
        file = os.path.join(scratch, "program.ember")
        program.save(file)
        with _C._OperatorLog(nested=True) as log, ember.no_grad():
            outputs = _C._jit.load(file).run(inputs)
            ember.save({f"output{i}": out for i, out in enumerate(outputs)}, os.path.join(scratch, "out.ember"))
    names = sorted(set(log.names))
    if path is not None:
        with open(path, "w") as f:
            f.write("# Operators a selective build registers (ember.jit.export_op_list).\n")
            f.writelines(f"- {name}\n" for name in names)
    return names


def save(m, f, _extra_files=None):
    """Writes the program and its current parameters and buffers to ``f``
    (a path) in Ember's file format."""
    if not isinstance(m, TracedModule):
        raise TypeError(f"ember.jit.save: expected a traced program (ember.jit.trace), got {type(m).__name__}")
    m._program().save(os.fspath(f))


def load(f, map_location=None, _extra_files=None):
    """A program saved by ember.jit.save (from Python) or ember::jit::save (C++)."""
    if map_location is not None and ember.device(map_location).type != "cpu":
        raise NotImplementedError("ember.jit.load: map_location other than the CPU is not supported yet")
    program = _C._jit.load(os.fspath(f))
    trainable = set(program.trainable())
    state = [(name, ember.nn.Parameter(t) if name in trainable else t) for name, t in program.named_parameters()]
    return TracedModule(program.graph, state, program.num_inputs(), None)
