"""Checks the pip-installed package (run from outside the source tree)."""
import os
import subprocess
import sys
import tempfile

import numpy as np

import ember

assert "site-packages" in ember.__file__ or "dist-packages" in ember.__file__, ember.__file__
t = ember.arange(6, dtype=ember.float64).view(2, 3)
np.testing.assert_array_equal(t.t().numpy(), np.arange(6.0).reshape(2, 3).T)
print(repr(t))

# find_package(ember) from the wheel's bundled CMake package: the C++ example,
# and the out-of-tree backend, loaded into the installed package and trained on.
examples = os.path.dirname(os.path.abspath(__file__))
run = lambda *cmd: subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)  # noqa: E731
with tempfile.TemporaryDirectory() as build:
    run("cmake", "-S", os.path.join(examples, "cpp"), "-B", build, "-G", "Ninja",
        f"-DCMAKE_PREFIX_PATH={ember.utils.cmake_prefix_path}")
    run("cmake", "--build", build)
    subprocess.run([os.path.join(build, "ember_example")], check=True)
with tempfile.TemporaryDirectory() as build:
    run("cmake", "-S", os.path.join(examples, "backend"), "-B", build, "-G", "Ninja",
        f"-DCMAKE_PREFIX_PATH={ember.utils.cmake_prefix_path}")
    run("cmake", "--build", build)
    subprocess.run([sys.executable, os.path.join(examples, "backend", "train_mlp.py"),
                    os.path.join(build, "libfoo_backend.so")], check=True)
print("installed package: OK", file=sys.stderr)
