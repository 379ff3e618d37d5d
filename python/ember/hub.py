"""ember.hub: pretrained weights from URLs, as torch.hub.

``load_state_dict_from_url`` downloads a checkpoint once into
``get_dir()/checkpoints`` (``$EMBER_HOME/hub``, default ``~/.cache/ember/hub``),
optionally checks the SHA-256 prefix in its file name, and reads it with
``ember.load``, which also reads torch's own files and never runs code from
them. ``load`` runs a model entrypoint from a local checkout's hubconf.py
(``source='local'``); Ember does not fetch repositories from GitHub.
"""

import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.parse

import ember

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

_HASH_IN_NAME = re.compile(r"-([a-f0-9]*)\.")
_hub_dir = None


def get_dir():
    """Where downloads go: set_dir's folder, else $EMBER_HOME/hub, else ~/.cache/ember/hub."""
    if _hub_dir is not None:
        return _hub_dir
    home = os.environ.get("EMBER_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "ember")
    return os.path.join(os.path.expanduser(home), "hub")


def set_dir(d):
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Downloads ``url`` to ``dst`` through a temporary file in the same
    folder (so an interrupted download never leaves a partial ``dst``),
    checking that its SHA-256 starts with ``hash_prefix`` when given."""
    import urllib.request  # (imported here: it costs ~40 ms, too much for every `import ember`)

    dst = os.path.expanduser(dst)
    folder = os.path.dirname(os.path.abspath(dst))
    os.makedirs(folder, exist_ok=True)
    digest = hashlib.sha256()
    with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "ember.hub"})) as response, \
            tempfile.NamedTemporaryFile(delete=False, dir=folder) as tmp:
        try:
            total = response.headers.get("Content-Length")
            done = 0
            while True:
                block = response.read(1 << 20)
                if not block:
                    break
                tmp.write(block)
                digest.update(block)
                done += len(block)
                if progress and total:
                    sys.stderr.write(f"\r{100 * done // int(total)}% of {int(total)} bytes")
            if progress and total:
                sys.stderr.write("\n")
            tmp.close()
            if hash_prefix is not None and not digest.hexdigest().startswith(hash_prefix):
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest.hexdigest()}")')
            shutil.move(tmp.name, dst)
        finally:
            if os.path.exists(tmp.name):
                os.remove(tmp.name)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):
    """The object saved at ``url`` (a state_dict, usually), downloaded once and cached."""
    model_dir = model_dir or os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        if progress:
            sys.stderr.write(f'Downloading: "{url}" to {cached_file}\n')
        match = _HASH_IN_NAME.search(filename) if check_hash else None
        download_url_to_file(url, cached_file, match.group(1) if match else None, progress=progress)
    return ember.load(cached_file, map_location=map_location, weights_only=weights_only)


def _hubconf(repo_or_dir, source):
    if source != "local":
        raise RuntimeError(f"ember.hub: fetching repositories (source='{source}') is not supported by Ember; clone "
                           f"{repo_or_dir} and pass its folder with source='local'")
    path = os.path.join(repo_or_dir, "hubconf.py")
    if not os.path.exists(path):
        raise FileNotFoundError(f"ember.hub: no hubconf.py in {repo_or_dir}")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_or_dir)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_or_dir)
    return module


def _entrypoint(module, model):
    function = getattr(module, model, None)
    if function is None or not callable(function):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return function


def list(repo_or_dir, force_reload=False, skip_validation=False, trust_repo=None, verbose=True, source="github"):
    """The entrypoints (public callables) of a local checkout's hubconf.py."""
    module = _hubconf(repo_or_dir, source)
    return [name for name in dir(module) if callable(getattr(module, name)) and not name.startswith("_")]


def help(repo_or_dir, model, force_reload=False, skip_validation=False, trust_repo=None, source="github"):
    return _entrypoint(_hubconf(repo_or_dir, source), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo=None, force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """Calls ``model(*args, **kwargs)`` from a local checkout's hubconf.py."""
    return _entrypoint(_hubconf(repo_or_dir, source), model)(*args, **kwargs)
