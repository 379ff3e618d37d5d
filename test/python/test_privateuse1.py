"""Naming the PrivateUse1 device type for an out-of-tree backend
(ember.utils.rename_privateuse1_backend): once per process, so each check
runs in a fresh interpreter."""

import os
import subprocess
import sys
import textwrap

PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")


def run(code):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_renamed_device_parses_prints_and_keeps_its_old_name():
    out = run("""
        import ember
        assert str(ember.device("privateuseone:1")) == "privateuseone:1"
        ember.utils.rename_privateuse1_backend("foo")
        ember.utils.rename_privateuse1_backend("foo")  # the same name again is fine
        print(ember.device("foo:0"), repr(ember.device("foo")), ember.device("privateuseone:1"))
        print(ember._C._get_privateuse1_backend_name())
        for bad in ("bar", ):
            try:
                ember.utils.rename_privateuse1_backend(bad)
            except RuntimeError as e:
                print(e)
        try:
            ember.device("gpu")
        except RuntimeError as e:
            print(e)
        try:
            ember.zeros(2, device="foo:0")
        except RuntimeError as e:
            print(e)
    """)
    assert out.splitlines() == [
        "foo:0 device(type='foo') foo:1",
        "foo",
        "rename_privateuse1_backend: the PrivateUse1 backend is already named 'foo'; it can be named once",
        "Expected one of cpu, cuda, meta, foo, lazy device type at start of device string: gpu",
        "Device foo:0 is not available: no foo backend is registered (Ember was built without it, or the backend's "
        "library is not loaded)",
    ]


def test_names_must_be_new_identifiers():
    out = run("""
        import ember
        for bad in ("cuda", "Foo", "", "a-b", "9x"):
            try:
                ember.utils.rename_privateuse1_backend(bad)
            except RuntimeError as e:
                print(str(e).split(";")[0] if "lower-case" in str(e) else e)
        ember.utils.rename_privateuse1_backend("my_npu2")
        print(ember.device("my_npu2"))
    """)
    assert out.splitlines() == [
        "rename_privateuse1_backend: 'cuda' is already the name of a device type",
        *["rename_privateuse1_backend: a backend name is lower-case letters, digits and '_', starting with a letter"]
        * 4,
        "my_npu2",
    ]


def test_generated_methods_and_device_module():
    out = run("""
        import types
        import ember
        try:
            ember.utils.generate_methods_for_privateuse1_backend()
        except RuntimeError as e:
            print(e)
        ember.utils.rename_privateuse1_backend("foo")
        ember.utils.generate_methods_for_privateuse1_backend()
        x = ember.ones(2)
        print(x.is_foo, ember.nn.utils.rnn.pack_sequence([x]).is_foo, hasattr(ember.nn.Linear(1, 1), "foo"))
        try:
            x.foo()
        except RuntimeError as e:
            print(e)
        module = types.ModuleType("ember.foo")
        module.is_available = lambda: False
        ember._register_device_module("foo", module)
        import ember.foo
        print(ember.foo.is_available())
        try:
            ember._register_device_module("foo", module)
        except RuntimeError as e:
            print(str(e).split(" with ")[0])
    """)
    assert out.splitlines() == [
        "generate_methods_for_privateuse1_backend: name the backend first with ember.utils.rename_privateuse1_backend",
        "False False True",
        "Device foo is not available: no foo backend is registered (Ember was built without it, or the backend's "
        "library is not loaded)",
        "False",
        "The runtime module of 'foo' has already been registered",
    ]
