#!/usr/bin/env bash
# The full test suite: C++ tests, Python tests, and both install paths
# (cmake --install + find_package, and pip install of the wheel).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export CCACHE_BASEDIR="$root"  # ccache hits across checkouts in other folders

bash scripts/install_deps.sh
# PyTorch is only an oracle for the tests (Ember never imports it); they skip
# the comparisons where it cannot be installed.
python3 -c "import torch" 2>/dev/null || python3 -m pip install -q --disable-pip-version-check torch==2.13.0 \
  || echo "torch is not available: tests comparing against PyTorch will be skipped"

bash scripts/build.sh

echo "== C++ tests"
ctest --test-dir build --output-on-failure

echo "== Python tests"
PYTHONPATH="$root/python" python3 -m pytest -q test/python

echo "== Installed C++ package (cmake --install, find_package(ember))"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install build --prefix "$work/prefix" >/dev/null
cmake -S examples/cpp -B "$work/example" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/example" >/dev/null
# A file written by Python's ember.save, read by the C++ program.
PYTHONPATH="$root/python" python3 -c "
import collections, ember, sys
ember.save(collections.OrderedDict(weight=ember.ones(2, 3), bias=ember.arange(4.0)), sys.argv[1])" "$work/weights.ember"
"$work/example/ember_example" "$work/weights.ember" | tee "$work/example.out"
grep -q "weight: float32 of 6 elements, sum 6" "$work/example.out"
grep -q "bias: float32 of 4 elements, sum 6" "$work/example.out"

echo "== C++ frontend: training an MLP and a CNN (examples/cpp/train.cpp), weights read back in Python"
"$work/example/ember_train" "$work/cnn.ember" | tee "$work/train.out"
grep -q "training OK" "$work/train.out"
PYTHONPATH="$root/python" python3 -c "
import ember, sys
state = ember.load(sys.argv[1])
assert list(state)[:2] == ['0.weight', '0.bias'] and tuple(state['9.weight'].shape) == (2, 32), list(state)" "$work/cnn.ember"

echo "== Programs traced in Python run from C++ (examples/trace_models.py, examples/cpp/run_traced.cpp)"
PYTHONPATH="$root/python" python3 examples/trace_models.py "$work/traced"
"$work/example/ember_run_traced" "$work/traced" | tee "$work/traced.out"
grep -q "all programs match Python" "$work/traced.out"

echo "== Out-of-tree backend (examples/backend against the installed package)"
cmake -S examples/backend -B "$work/backend" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/backend" >/dev/null
PYTHONPATH="$root/python" python3 examples/backend/train_mlp.py "$work/backend/libfoo_backend.so" | tee "$work/backend.out"
grep -q "ran on the CPU through the fallback: aten::" "$work/backend.out"

echo "== ember::deploy: the char transformer served from several interpreters (examples/deploy against the installed package)"
if python3 -c "import sys, sysconfig; sys.exit(not sysconfig.get_config_var('Py_ENABLE_SHARED'))"; then
  cmake -S examples/deploy -B "$work/deploy" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
  cmake --build "$work/deploy" >/dev/null
  PYTHONPATH="$root/python" python3 examples/deploy/export_char_model.py "$work/deploy-model" --requests 8 >/dev/null
  EMBER_DEPLOY_PYTHONPATH="$root/python" "$work/deploy/ember_deploy_serve" "$work/deploy-model/char_transformer.ember_package" \
    "$work/deploy-model/requests.ember" --interpreters 1,3 --rounds 2 | tee "$work/deploy.out"
  grep -q "outputs match single-interpreter Python" "$work/deploy.out"
else
  echo "skipped: this Python has no shared libpython for ember::deploy to copy"
fi

echo "== Wheel (pip install .)"
python3 -m pip install -q --disable-pip-version-check --no-build-isolation .
(cd "$work" && python3 "$root/examples/smoke_installed.py")
