"""The training examples run end to end (shortened) and their loss falls."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")


def run_example(name, *args, tmp_path, env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    # The package under test: the one this pytest imports.
    import ember

    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(ember.__file__)), env.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, name), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    match = re.search(r"final loss ([0-9.]+) \(initial ([0-9.]+)\)", result.stdout)
    assert match, result.stdout
    final, initial = map(float, match.groups())
    return final, initial, result.stdout


def test_mlp_learns_spirals(tmp_path):
    final, initial, out = run_example("mlp.py", "--epochs", "30", "--samples", "400", tmp_path=tmp_path)
    assert final < 0.6 * initial
    accuracy = float(re.search(r"test accuracy ([0-9.]+)", out).group(1))
    assert accuracy > 0.75


def test_cnn_learns_shapes(tmp_path):
    final, initial, out = run_example("cnn.py", "--epochs", "3", "--samples", "1000", tmp_path=tmp_path)
    assert final < 0.5 * initial
    # Piped output: the progress bar logs plain lines, not carriage returns.
    assert "\r" not in out and "cnn [" in out


def test_char_transformer_learns_and_round_trips(tmp_path):
    final, initial, out = run_example(
        "char_transformer.py", "--steps", "60", "--sample-chars", "40", "--save", "lm.ember", tmp_path=tmp_path
    )
    assert final < 0.75 * initial
    assert (tmp_path / "lm.ember").exists()
    reloaded, trained = map(float, re.search(r"reloaded model's loss ([0-9.]+) \(trained ([0-9.]+)\)", out).groups())
    assert reloaded == pytest.approx(trained)
    assert "sample:\nThe smith" in out


def test_char_transformer_learns_under_autocast(tmp_path):
    final, initial, out = run_example(
        "char_transformer.py", "--steps", "60", "--sample-chars", "40", "--autocast", tmp_path=tmp_path
    )
    assert final < 0.75 * initial


def _has_jax():
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


LAZY_EXECUTORS = ["builtin", pytest.param("xla", marks=pytest.mark.skipif(not _has_jax(), reason="jax not installed"))]


# (arguments, relative tolerance of the losses): short runs of the two examples that take --device lazy.
LAZY_RUNS = {
    "mlp": (("mlp.py", "--epochs", "3", "--samples", "200"), 1e-4),
    "char_transformer": (("char_transformer.py", "--steps", "8", "--sample-chars", "10"), 1e-3),
}


@pytest.mark.parametrize("executor", LAZY_EXECUTORS)
@pytest.mark.parametrize("example", sorted(LAZY_RUNS))
def test_examples_on_the_lazy_device_reach_the_cpu_loss(tmp_path, example, executor):
    args, rel = LAZY_RUNS[example]
    cpu = run_example(*args, tmp_path=tmp_path)
    lazy = run_example(*args, "--device", "lazy", tmp_path=tmp_path, env_extra={"EMBER_LAZY_EXECUTOR": executor})
    assert lazy[:2] == pytest.approx(cpu[:2], rel=rel)
    accuracy = r"test accuracy ([0-9.]+)"
    assert re.findall(accuracy, lazy[2]) == re.findall(accuracy, cpu[2])
