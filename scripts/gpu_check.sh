#!/usr/bin/env bash
# The CUDA checks, in one go, for a machine with an NVIDIA GPU: the C++ CUDA
# tests, the Python CUDA tests and the GPU benchmark table.
#
#   bash scripts/gpu_check.sh --pack   # on a CPU machine with the CUDA toolkit:
#                                      # build for the GPU machine, bundle into .gpu/
#   bash scripts/gpu_check.sh          # on the GPU machine: unpack .gpu/ (or build,
#                                      # where Ember's dependencies are installed) and run
#   bash scripts/gpu_check.sh --run 'CMD'  # the same setup, then CMD instead of the checks
#                                      # ($cuda_tests is the C++ test binary), for debugging
#
# The GPU machines lent to this project have nvcc, Python 3.12 and PyTorch but
# none of Ember's own dependencies and no network, so the build is made ahead
# (for their Python) and travels as one archive with the shared libraries it
# needs. Logs go to $OUT (the device tool's folder) or .gpu/out.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bundle=.gpu/bundle.tar.xz

if [ "${1:-}" = "--pack" ]; then
  set -e
  # The GPU machine runs Python 3.12: the extension is built for that.
  py=""
  for candidate in ${GPU_PYTHON:-} /root/.pyenv/versions/3.12*/bin/python python3.12; do
    if "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
      py=$candidate
      break
    fi
  done
  [ -n "$py" ] || { echo "gpu_check --pack: no Python 3.12 found (set GPU_PYTHON)" >&2; exit 1; }
  "$py" -m pip install -q --disable-pip-version-check pybind11 pyyaml
  cublas_include=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/nvidia/cu13/include
  if [ ! -f build-gpu/build.ninja ]; then
    cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_USE_CUDA=ON -DEMBER_BUILD_TESTS=ON \
      -DPython3_EXECUTABLE="$py" -DPython_EXECUTABLE="$py" -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCUBLAS_INCLUDE_DIR="$cublas_include"
  fi
  cmake --build build-gpu
  stage=$(mktemp -d)
  trap 'rm -rf "$stage"' EXIT
  mkdir -p "$stage/lib" "$stage/bin" "$stage/python"
  cp build-gpu/libember_*.so "$stage/lib/"
  cp build-gpu/test/cpp/ember_cuda_tests "$stage/bin/"
  cp python/ember/_C.cpython-312-*.so "$stage/python/"
  # Every library they load that a stock Linux may lack (not glibc or libstdc++).
  ldd "$stage"/lib/*.so "$stage"/bin/* | awk '/=> \//{print $3}' | sort -u |
    grep -v -E '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|libz|libember_[a-z0-9]+)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/lib/"; done
  mkdir -p .gpu
  tar -C "$stage" -cJf "$bundle" .
  ls -la "$bundle"
  exit 0
fi

out=${OUT:-$root/.gpu/out}
mkdir -p "$out"
status=0
run() {  # run NAME COMMAND...: logs to $out/NAME.log, remembers a failure
  local name=$1
  shift
  echo "== $name"
  "$@" 2>&1 | tee "$out/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "== $name: exit $rc"
  [ "$rc" -eq 0 ] || status=1
}

if [ -f "$bundle" ]; then
  prefix=$(mktemp -d)
  tar -C "$prefix" -xJf "$bundle"
  cp "$prefix"/python/_C.*.so python/ember/
  export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  cuda_tests="$prefix/bin/ember_cuda_tests"
else
  bash scripts/build.sh
  cuda_tests=build/test/cpp/ember_cuda_tests
fi
# cuBLAS from the nvidia-cublas wheel of the Python that runs the tests.
if [ -z "${EMBER_CUBLAS_LIBRARY:-}" ]; then
  EMBER_CUBLAS_LIBRARY=$(python3 -c "
import glob, sys
hits = [h for p in sys.path for h in glob.glob(p + '/nvidia/*/lib/libcublas.so.13')]
print(hits[0] if hits else '')")
  export EMBER_CUBLAS_LIBRARY
fi
export PYTHONPATH="$root/python" PYTHONUNBUFFERED=1
if [ "${1:-}" = "--run" ]; then
  shift
  eval "$@"
  exit $?
fi

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
echo "cuBLAS: ${EMBER_CUBLAS_LIBRARY:-not found}"
run cpp_cuda_tests "$cuda_tests"
run python_cuda_tests python3 -m pytest -q -rs test/python/test_cuda.py
run benchmark python3 benchmarks/run.py --device cuda --markdown
echo "gpu_check: $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
