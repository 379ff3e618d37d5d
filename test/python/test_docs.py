"""Docstrings of the generated operators: each Python function and method
starts with the signatures of its overloads (from the schema), and an entry's
`doc:` text in native_functions.yaml follows with an example, run here as a
doctest. Every operator that the examples/ call has one."""

import doctest
import glob
import os
import pydoc
import re

import pytest

import ember

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUNCTIONS = ember._C._generated_functions
METHODS = ember.Tensor._generated_methods


def _documented():
    """(qualified name, object) of every generated function and method with an example."""
    items = [(f"ember.{n}", getattr(ember._C, n)) for n in FUNCTIONS]
    items += [(f"ember.Tensor.{n}", getattr(ember.Tensor, n)) for n in METHODS]
    return [(name, obj) for name, obj in items if ">>>" in (obj.__doc__ or "")]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_function_starts_with_its_signatures(name):
    doc = getattr(ember._C, name).__doc__
    assert doc and doc.startswith(f"{name}("), doc
    assert "ember._C" not in doc  # no C++-flavoured pybind11 signatures


@pytest.mark.parametrize("name", METHODS)
def test_every_method_starts_with_its_signatures(name):
    doc = getattr(ember.Tensor, name).__doc__
    assert doc and doc.startswith(f"{name}("), doc


@pytest.mark.parametrize("name, obj", _documented(), ids=[n for n, _ in _documented()])
def test_examples_run(name, obj):
    parser = doctest.DocTestParser()
    test = parser.get_doctest(obj.__doc__, {"ember": ember}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    ember.manual_seed(0)
    runner.run(test)
    assert runner.failures == 0, f"{name}'s example printed something else (run with -s to see the doctest report)"


def _ops_the_examples_call():
    source = "".join(open(p).read() for p in glob.glob(os.path.join(ROOT, "examples", "*.py")))
    called = set(re.findall(r"\b(?:ember|F)\.(\w+)\(", source)) | set(re.findall(r"\.(\w+)\(", source))
    return sorted(called & (set(FUNCTIONS) | set(METHODS)))


@pytest.mark.parametrize("name", _ops_the_examples_call())
def test_ops_the_examples_call_are_documented(name):
    obj = getattr(ember, name, None) if name in FUNCTIONS else getattr(ember.Tensor, name)
    assert ">>>" in (obj.__doc__ or ""), f"add a doc: with an example to {name}'s entry in native_functions.yaml"


def test_help_shows_the_doc():
    text = pydoc.render_doc(ember.gelu, renderer=pydoc.plaintext)
    assert "gelu(Tensor input, *, str approximate='none', Tensor out=None) -> Tensor" in text
    assert "Gaussian error linear unit" in text and ">>> ember.gelu(" in text
    text = pydoc.render_doc(ember.Tensor.index_select, renderer=pydoc.plaintext)
    assert "index_select(int dim, Tensor index) -> Tensor" in text and ">>> x.index_select(0" in text
