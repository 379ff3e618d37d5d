#!/usr/bin/env bash
# Installs Ember with pip and runs the main demo: a quick tour of tensors,
# then a tiny transformer language model trained on examples/data/embers.txt
# (about 20 s on 2 cores; extra arguments go to the training script,
# e.g. --steps 200).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
python3 -m pip install -q --disable-pip-version-check --no-build-isolation .
root=$(pwd)
# Run from elsewhere so that `import ember` finds the installed package.
cd /tmp
python3 "$root/examples/demo.py"
python3 "$root/examples/char_transformer.py" "$@"
