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

# find_package(ember) from the wheel's bundled CMake package.
example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cpp")
with tempfile.TemporaryDirectory() as build:
    run = lambda *cmd: subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)  # noqa: E731
    run("cmake", "-S", example, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={ember.utils.cmake_prefix_path}")
    run("cmake", "--build", build)
    subprocess.run([os.path.join(build, "ember_example")], check=True)
print("installed package: OK", file=sys.stderr)
