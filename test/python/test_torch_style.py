"""Torch-style scripts (test/python/torch_style/) run unchanged with
``import ember as torch``, and give torch's results when torch runs them."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SCRIPTS = sorted((HERE / "torch_style").glob("*.py"))
PYTHON_DIR = HERE.parent.parent / "python"


def as_torch_script(text):
    """The same script with torch in place of ember."""
    text = re.sub(r"^import ember as torch$", "import torch", text, flags=re.M)
    text = re.sub(r"^from ember import ", "from torch import ", text, flags=re.M)
    return re.sub(r"^(from|import) ember\.", r"\1 torch.", text, flags=re.M)


def run(path, env_path):
    env = dict(os.environ, PYTHONPATH=env_path)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def numbers(output):
    return [float(x) for x in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", output)]


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_script_matches_torch(script, tmp_path):
    pytest.importorskip("torch")
    mine = run(script, str(PYTHON_DIR))
    torch_version = tmp_path / script.name
    torch_version.write_text(as_torch_script(script.read_text()))
    theirs = run(torch_version, "")
    assert mine.splitlines() and len(mine.splitlines()) == len(theirs.splitlines()), (mine, theirs)
    assert numbers(mine) == pytest.approx(numbers(theirs), rel=1e-4, abs=1e-4), (mine, theirs)
