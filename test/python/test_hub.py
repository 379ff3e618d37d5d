"""ember.hub: checkpoints downloaded once (file:// URLs stand in for the
network), the hash in the file name checked, torch's own files read, and
local hubconf entrypoints."""

import hashlib
import os

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


@pytest.fixture
def hub_dir(tmp_path):
    ember.hub.set_dir(str(tmp_path / "hub"))
    yield tmp_path / "hub"
    ember.hub._hub_dir = None


def torch_checkpoint(folder, name):
    torch.manual_seed(0)
    state = torch.nn.Linear(3, 2).state_dict()
    path = folder / "tmp.pth"
    torch.save(state, path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    final = folder / name.format(hash=digest[:8])
    path.rename(final)
    return final, state


def test_downloads_once_checks_the_hash_and_reads_torchs_file(tmp_path, hub_dir):
    source, state = torch_checkpoint(tmp_path, "linear-{hash}.pth")
    loaded = ember.hub.load_state_dict_from_url(source.as_uri(), check_hash=True, progress=False)
    model = ember.nn.Linear(3, 2)
    model.load_state_dict(loaded)
    np.testing.assert_array_equal(model.weight.detach().numpy(), state["weight"].numpy())
    cached = hub_dir / "checkpoints" / source.name
    assert cached.exists()
    source.unlink()  # the cache answers now
    again = ember.hub.load_state_dict_from_url(source.as_uri(), progress=False)
    assert again.keys() == loaded.keys()
    assert ember.utils.model_zoo.load_url is ember.hub.load_state_dict_from_url


def test_a_wrong_hash_leaves_nothing_behind(tmp_path, hub_dir):
    source, _ = torch_checkpoint(tmp_path, "linear-{hash}.pth")
    wrong = tmp_path / "linear-00000000.pth"
    source.rename(wrong)
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "00000000"'):
        ember.hub.load_state_dict_from_url(wrong.as_uri(), check_hash=True, progress=False)
    assert os.listdir(hub_dir / "checkpoints") == []


def test_local_hubconf_entrypoints(tmp_path):
    (tmp_path / "hubconf.py").write_text(
        "import ember\n\n\ndef tiny(width=2):\n    \"\"\"A tiny model.\"\"\"\n    return ember.nn.Linear(width, 1)\n")
    assert "tiny" in ember.hub.list(str(tmp_path), source="local")
    assert ember.hub.help(str(tmp_path), "tiny", source="local") == "A tiny model."
    assert ember.hub.load(str(tmp_path), "tiny", width=5, source="local").in_features == 5
    with pytest.raises(RuntimeError, match="Cannot find callable missing in hubconf"):
        ember.hub.load(str(tmp_path), "missing", source="local")
    with pytest.raises(RuntimeError, match="fetching repositories \\(source='github'\\) is not supported by Ember"):
        ember.hub.load("pytorch/vision", "resnet18")
