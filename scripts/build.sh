#!/usr/bin/env bash
# Configures and builds the development tree in build/ (libraries, the
# extension in python/ember/, the C++ tests). Incremental and ccache-backed.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hits across checkouts in other folders (CI clones anew each run).
export CCACHE_BASEDIR="$(pwd)"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build
