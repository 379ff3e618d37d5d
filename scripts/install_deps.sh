#!/usr/bin/env bash
# Installs what building and testing Ember needs on a fresh Debian machine.
# Idempotent: packages already present are skipped quickly.
set -euo pipefail

apt_packages=(
  build-essential ninja-build ccache
  libfmt-dev libgtest-dev libgmock-dev libopenblas-dev libdnnl-dev libdlpack-dev
  libprotobuf-dev protobuf-compiler
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
  "scikit-build-core>=0.10" "pybind11>=2.12" "numpy>=1.26" pytest expecttest pyyaml
