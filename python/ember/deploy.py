"""Packages for ember::deploy: a model's code and weights in one file, which
a C++ program serves from many Python interpreters at once.

    ember.deploy.save_package("model.ember_package", model, modules=["mymodel"],
                              kwargs=dict(vocab_size=65, context=64))

writes a zip archive holding the source of the named modules (pure Python
modules or packages), the model's weights in Ember's file format, and how
to build it (``entry``, default the model's class, called with ``kwargs``).
In C++:

    ember::deploy::InterpreterManager manager(4);
    auto model = manager.load_package("model.ember_package").load_model();
    ember::IValue logits = model({tokens});   // on whichever interpreter is free

``load_package`` builds the same model in this interpreter (what each of
ember::deploy's interpreters does once).
"""

import importlib
import io
import json
import os
import sys

from . import _C  # noqa: F401  (ember itself is imported)

__all__ = ["save_package", "load_package"]

_MANIFEST = "__ember_package__.json"
_WEIGHTS = "__ember_package__/weights.ember"


def _module_files(name):
    """(path in the archive, file on disk) for a module or package's source."""
    module = importlib.import_module(name)
    path = getattr(module, "__file__", None)
    if path is None or not path.endswith(".py"):
        raise ValueError(f"save_package: module {name!r} is not pure Python source ({path}); packages hold source "
                         f"modules, and their interpreters import installed libraries (ember, numpy) as usual")
    parts = name.split(".")
    if os.path.basename(path) == "__init__.py":  # a package: all of its .py files
        root = os.path.dirname(path)
        for folder, _, files in os.walk(root):
            for f in sorted(files):
                if f.endswith(".py"):
                    rel = os.path.relpath(os.path.join(folder, f), root)
                    yield "/".join(parts + rel.split(os.sep)), os.path.join(folder, f)
    else:
        yield "/".join(parts[:-1] + [parts[-1] + ".py"]), path


def save_package(path, model, *, modules, entry=None, kwargs=None):
    """Writes ``model`` as a package: the source of ``modules``, its weights
    (``state_dict()``), and ``entry`` ("module:callable", default the
    model's class) that ``kwargs`` build it from."""
    from .serialization import save

    cls = type(model)
    entry = entry or f"{cls.__module__}:{cls.__qualname__}"
    module_name, _, attr = entry.partition(":")
    if not attr:
        raise ValueError(f"save_package: entry must be 'module:callable', got {entry!r}")
    if module_name not in modules and not any(module_name.startswith(m + ".") for m in modules):
        raise ValueError(f"save_package: the entry's module {module_name!r} is not among modules={list(modules)}")
    import zipfile

    weights = io.BytesIO()
    save(model.state_dict(), weights)
    # Stored, not compressed: zipimport reads them without zlib.
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(_MANIFEST, json.dumps({"entry": entry, "kwargs": kwargs or {}, "format": 1}))
        for name in modules:
            for arcname, source in _module_files(name):
                archive.write(source, arcname)
        archive.writestr(_WEIGHTS, weights.getvalue())


def load_package(path):
    """The model in the package at ``path``, built in this interpreter from
    the package's own code, with its weights, in eval mode."""
    import zipfile

    from .serialization import load

    path = os.path.abspath(path)
    try:
        with zipfile.ZipFile(path) as archive:
            missing = [n for n in (_MANIFEST, _WEIGHTS) if n not in archive.namelist()]
            if missing:
                raise ValueError(f"{path} is not an ember.deploy package (no {missing[0]})")
            manifest = json.loads(archive.read(_MANIFEST))
            weights = archive.read(_WEIGHTS)
    except zipfile.BadZipFile:
        raise ValueError(f"{path} is not an ember.deploy package (not a zip archive)") from None
    if path not in sys.path:
        sys.path.insert(0, path)  # its modules come from the archive (zipimport)
    module_name, _, attr = manifest["entry"].partition(":")
    factory = importlib.import_module(module_name)
    for part in attr.split("."):
        factory = getattr(factory, part)
    model = factory(**manifest["kwargs"])
    model.load_state_dict(load(io.BytesIO(weights)))
    return model.eval()


# ---- what ember::deploy calls in each interpreter ---------------------------

_models = {}


def _load_model(key, path):
    _models[key] = load_package(path)


def _call_model(key, *args, **kwargs):
    """Runs a loaded model for a request (gradients are not recorded)."""
    from .autograd.grad_mode import no_grad

    with no_grad():
        return _models[key](*args, **kwargs)


def _drop_model(key):
    _models.pop(key, None)
