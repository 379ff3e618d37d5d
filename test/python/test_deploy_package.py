"""ember.deploy packages: a model's source and weights in one archive, built
again from the archive alone (what each of ember::deploy's interpreters does;
the interpreters themselves are tested by test/cpp/deploy)."""

import os
import subprocess
import sys
import textwrap
import zipfile

import pytest

import ember

MODEL_SOURCE = textwrap.dedent('''
    import ember.nn as nn


    class Scorer(nn.Module):
        def __init__(self, inputs, hidden):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, 1))

        def forward(self, x):
            return self.net(x)
''')


@pytest.fixture
def model_module(tmp_path, monkeypatch):
    src = tmp_path / "src"
    (src / "scoring").mkdir(parents=True)
    (src / "scoring" / "__init__.py").write_text("from .model import Scorer\n")
    (src / "scoring" / "model.py").write_text(MODEL_SOURCE)
    monkeypatch.syspath_prepend(str(src))
    import scoring
    yield scoring
    for name in [m for m in sys.modules if m == "scoring" or m.startswith("scoring.")]:
        del sys.modules[name]


def test_a_package_holds_the_source_and_weights_and_builds_the_same_model(model_module, tmp_path):
    ember.manual_seed(0)
    model = model_module.Scorer(inputs=4, hidden=8)
    path = tmp_path / "scorer.ember_package"
    ember.deploy.save_package(path, model, modules=["scoring"], kwargs={"inputs": 4, "hidden": 8})
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == ["__ember_package__.json", "__ember_package__/weights.ember",
                                              "scoring/__init__.py", "scoring/model.py"]
    x = ember.randn(3, 4)
    with ember.no_grad():
        expected = model(x)
    # A fresh interpreter with only the package (the source folder is gone from its path).
    code = textwrap.dedent(f'''
        import ember, sys
        model = ember.deploy.load_package({str(path)!r})
        assert not model.training
        assert model.__class__.__module__ == "scoring.model", model.__class__.__module__
        assert sys.modules["scoring"].__file__.startswith({str(path)!r}), sys.modules["scoring"].__file__
        x = ember.load(sys.argv[1])
        with ember.no_grad():
            ember.save(model(x), sys.argv[2])
    ''')
    ember.save(x, tmp_path / "x.ember")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ember.__file__)))
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "x.ember"), str(tmp_path / "y.ember")], check=True,
                   env=env, cwd=tmp_path)
    assert ember.equal(ember.load(tmp_path / "y.ember"), expected)


def test_the_entry_must_be_packaged(model_module, tmp_path):
    with pytest.raises(ValueError, match="the entry's module 'scoring.model' is not among modules=\\['json'\\]"):
        ember.deploy.save_package(tmp_path / "p", model_module.Scorer(2, 2), modules=["json"])


def test_modules_must_be_python_source(model_module, tmp_path):
    with pytest.raises(ValueError, match="module 'math' is not pure Python source"):
        ember.deploy.save_package(tmp_path / "p", model_module.Scorer(2, 2), modules=["scoring", "math"])


def test_loading_a_file_that_is_not_a_package_says_so(tmp_path):
    path = tmp_path / "weights.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("x.txt", "hello")
    with pytest.raises(ValueError, match="is not an ember.deploy package \\(no __ember_package__.json\\)"):
        ember.deploy.load_package(path)
    (tmp_path / "plain.bin").write_bytes(b"\0" * 10)
    with pytest.raises(ValueError, match="is not an ember.deploy package \\(not a zip archive\\)"):
        ember.deploy.load_package(tmp_path / "plain.bin")
