#!/usr/bin/env bash
# The sanitizer run: builds Ember with AddressSanitizer and
# UndefinedBehaviorSanitizer (any finding stops the program) in build-asan/,
# then runs the C++ tests and the Python robustness, fuzz-smoke and
# file-format tests against that build.
#
#   bash scripts/sanitize.sh            # build and run everything
#   bash scripts/sanitize.sh PYTEST...  # build, then run these pytest args instead
#
# Not part of scripts/test.sh: the instrumented build and its slower tests
# would take the suite past its time budget. CI runs it as its own job.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export CCACHE_BASEDIR="$root"
build=build-asan
# UBSan's bool check is left out: like PyTorch, empty() and resize_() leave
# new memory uninitialized, and printing such a bool tensor reads bytes
# other than 0 and 1 (an indeterminate value, not a memory error).
flags="-fsanitize=address,undefined -fno-sanitize=bool -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"

bash scripts/install_deps.sh >/dev/null
# Configured on every run, so that a change of the flags above takes effect.
# CUDA stays out: the sanitizers instrument host code, and nvcc's output
# would only slow the build.
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_USE_CUDA=OFF \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DEMBER_PYTHON_MODULE_DIR="$root/$build/python-module" >/dev/null
cmake --build $build

# The Python package with the sanitized extension in place of the usual one.
pkg=$build/pkg
rm -rf $pkg && mkdir -p $pkg
cp -r python/ember $pkg/ember
rm -f $pkg/ember/_C*.so
cp $build/python-module/_C*.so $pkg/ember/

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "== C++ tests (ASan + UBSan)"
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 $build/test/cpp/ember_cpp_tests --gtest_brief=1
echo "== ember::deploy (ASan + UBSan): interpreters started, used and torn down in one process"
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 LSAN_OPTIONS=suppressions="$root/scripts/lsan_deploy.supp" \
  EMBER_DEPLOY_PYTHONPATH="$root/$pkg" $build/test/cpp/ember_deploy_tests --gtest_brief=1

echo "== Python robustness, fuzz smoke and file-format tests (ASan + UBSan)"
# Python itself is not instrumented: the runtimes are preloaded, and leaks
# are not reported (the interpreter keeps much alive at exit on purpose).
# Children forked by the tests report findings through their exit status,
# which the tests treat as a crash.
preload="$(g++ -print-file-name=libasan.so):$(g++ -print-file-name=libubsan.so)"
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(test/python/test_robustness.py test/python/test_fuzz_smoke.py test/python/test_file_fuzz.py)
# A huge request must fail as it does without the sanitizer ("not enough
# memory"), not stop the run: the allocator returns null above 3 GiB, the
# headroom test/fuzz/forked.py gives an unsanitized child (an 8 GiB fill
# under ASan outlasts the fuzzer's 20 s timeout).
LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=3072 \
  PYTHONPATH="$root/$pkg" \
  EMBER_SANITIZED=1 python3 -m pytest -q -p no:cacheprovider "${tests[@]}"
echo "sanitize: clean"
