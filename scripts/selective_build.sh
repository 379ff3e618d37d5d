#!/usr/bin/env bash
# The selective build of a traced model, end to end:
#  1. examples/trace_models.py trains and traces its MLP (and two more models);
#  2. ember.jit.export_op_list writes the MLP's operator list (what its graph
#     calls, what those kernels call, what loading a program calls);
#  3. Ember is built twice as static libraries into ember_run_program (no
#     Python, no autograd): whole, and registering only that list
#     (-DEMBER_OP_ALLOWLIST); the linker drops the kernels nothing reaches;
#  4. both sizes are printed, the selective program runs the MLP and its
#     outputs must equal Python's, and it refuses the CNN by name.
#
#   bash scripts/selective_build.sh
#
# Not part of scripts/test.sh (two more builds of the library would take the
# suite past its time budget): CI runs it as its own job.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export CCACHE_BASEDIR="$root"
work=build-selective
bash scripts/install_deps.sh >/dev/null
bash scripts/build.sh >/dev/null  # the Python package, to trace with
mkdir -p $work/traced
PYTHONPATH="$root/python" python3 examples/trace_models.py $work/traced
PYTHONPATH="$root/python" python3 - "$work" <<'PY'
import sys, ember
work = sys.argv[1]
names = ember.jit.export_op_list(ember.jit.load(f"{work}/traced/mlp.ember"), f"{work}/mlp_ops.yaml")
print(f"the MLP needs {len(names)} operators: {', '.join(names)}")
io = ember.load(f"{work}/traced/mlp_io.ember")
ember.save({"x": io["input"]}, f"{work}/mlp_input.ember")
ember.save({"x": ember.load(f"{work}/traced/cnn_io.ember")["input"]}, f"{work}/cnn_input.ember")
PY

static=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DEMBER_BUILD_PYTHON=OFF -DEMBER_BUILD_TESTS=OFF
        -DEMBER_USE_CUDA=OFF "-DCMAKE_CXX_FLAGS=-ffunction-sections -fdata-sections")
cmake -S . -B $work/full "${static[@]}" -DEMBER_OP_ALLOWLIST= >/dev/null
cmake -S . -B $work/selective "${static[@]}" -DEMBER_OP_ALLOWLIST="$root/$work/mlp_ops.yaml" >/dev/null
echo "== building ember_run_program: all operators, then the MLP's"
cmake --build $work/full --target ember_run_program | tail -1
cmake --build $work/selective --target ember_run_program | tail -1

for kind in full selective; do
  strip -o $work/ember_run_program.$kind $work/$kind/ember_run_program
done
full=$(stat -c %s $work/ember_run_program.full)
selective=$(stat -c %s $work/ember_run_program.selective)
echo "ember_run_program (static, stripped; shared system libraries such as OpenBLAS and oneDNN not counted):"
echo "  all $(grep -c '^- func:' native_functions.yaml) operators: $((full / 1024)) KiB"
echo "  the MLP's $(grep -c '^- ' $work/mlp_ops.yaml) operators: $((selective / 1024)) KiB ($((100 * selective / full))% of it)"
[ "$selective" -lt "$full" ]

$work/ember_run_program.selective $work/traced/mlp.ember $work/mlp_input.ember $work/mlp_output.ember
PYTHONPATH="$root/python" python3 - "$work" <<'PY'
import sys, ember
work = sys.argv[1]
got = ember.load(f"{work}/mlp_output.ember")["output0"]
expected = ember.load(f"{work}/traced/mlp_io.ember")["output"]
assert ember.equal(got, expected), (got - expected).abs().max()
print("the selective build runs the MLP: outputs identical to Python's")
PY
if $work/ember_run_program.selective $work/traced/cnn.ember $work/cnn_input.ember $work/cnn_output.ember 2>$work/cnn.err; then
  echo "the selective build ran a model outside its list" >&2
  exit 1
fi
grep -q "which this build of Ember does not have" $work/cnn.err
echo "and refuses the CNN: $(cat $work/cnn.err)"
echo "selective build: OK"
