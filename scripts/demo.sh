#!/usr/bin/env bash
# Installs Ember with pip and runs the main demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
python3 -m pip install -q --disable-pip-version-check --no-build-isolation .
root=$(pwd)
cd /tmp && python3 "$root/examples/demo.py"
