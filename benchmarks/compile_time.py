"""How long a C++ file using Ember takes to compile: one that includes only the
tensor header (aten/ember.h) against one that includes the nn frontend
(api/nn.h) and defines a small model. The frontend's headers keep templates
out so that the second stays within twice the first.

    python3 benchmarks/compile_time.py [--build build] [--repeat 3]
"""

import argparse
import os
import pathlib
import resource
import shutil
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]

SOURCES = {
    "tensor header only": """
#include <aten/ember.h>
ember::Tensor f(const ember::Tensor& x) { return (x * 2).relu().sum(); }
""",
    "nn header + a two-layer model": """
#include <api/nn.h>
using namespace ember;
struct NetImpl : nn::Cloneable<NetImpl> {
  NetImpl() : Cloneable("Net") { reset(); }
  void reset() override {
    fc1 = register_module("fc1", nn::Linear(4, 8));
    fc2 = register_module("fc2", nn::Linear(8, 2));
  }
  Tensor forward(const Tensor& x) override { return fc2(fc1(x).relu()); }
  nn::Linear fc1 = nullptr, fc2 = nullptr;
};
EMBER_MODULE(Net);
Tensor f(const Tensor& x) { Net net; return net(x); }
""",
}


def _children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    compiler = os.environ.get("CXX") or shutil.which("g++") or "c++"
    includes = ["-I", str(ROOT), "-I", str(pathlib.Path(args.build) / "generated")]
    times = {}
    with tempfile.TemporaryDirectory() as work:
        for name, text in SOURCES.items():
            source = pathlib.Path(work) / "tu.cpp"
            source.write_text(text)
            best = float("inf")
            for _ in range(args.repeat):
                # The compiler's CPU time (user + system), not the wall clock: on
                # a shared machine the other load then leaves the ratio alone.
                start = _children_cpu_seconds()
                subprocess.run([compiler, "-std=c++17", "-O2", *includes, "-c", str(source), "-o",
                                str(pathlib.Path(work) / "tu.o")], check=True)
                best = min(best, _children_cpu_seconds() - start)
            times[name] = best
    base = times["tensor header only"]
    print(f"compiler: {compiler}")
    for name, seconds in times.items():
        print(f"  {name:32s} {seconds:6.2f} s CPU  ({seconds / base:.2f}x)")


if __name__ == "__main__":
    main()
