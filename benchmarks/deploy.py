"""Serving the char transformer from several Python interpreters in one process
(ember::deploy) against one interpreter's threads, and against torch's eager model
called from Python threads.

    python benchmarks/deploy.py [--interpreters 1,2,4] [--rounds 16] [--markdown]

Each row serves the same 1x64-token requests (examples/deploy/export_char_model.py)
with n threads, intra-op threads at 1 so that requests run side by side:
  - ember::deploy: build/ember_deploy_serve, n interpreters (one GIL each);
  - Ember, one interpreter: n Python threads (kernels release the GIL, Python does not);
  - torch, one interpreter: the same architecture in torch, n Python threads.
Requests per second, and each row against torch's at the same n (> 1: faster).
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from models import char_transformer  # noqa: E402
from table import print_table  # noqa: E402


def python_threads(model, lib, tokens, threads, rounds):
    """Requests per second of `model` served by `threads` Python threads of this interpreter."""
    requests = [tokens[i] for i in range(tokens.shape[0])] * rounds
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not requests:
                    return
                t = requests.pop()
            with lib.no_grad():
                model(t)

    with lib.no_grad():  # warm
        model(tokens[0])
    workers = [threading.Thread(target=worker) for _ in range(threads)]
    start = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return tokens.shape[0] * rounds / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interpreters", default="1,2,4")
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--server", default=os.path.join(ROOT, "build", "ember_deploy_serve"))
    args = parser.parse_args()
    counts = [int(n) for n in args.interpreters.split(",")]

    import ember

    work = tempfile.mkdtemp(prefix="ember-deploy-bench-")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), EMBER_DEPLOY_PYTHONPATH=os.path.join(ROOT, "python"))
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "deploy", "export_char_model.py"), work],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    package, requests = os.path.join(work, "char_transformer.ember_package"), os.path.join(work, "requests.ember")
    out = subprocess.run([args.server, package, requests, "--interpreters", args.interpreters, "--rounds",
                          str(args.rounds), "--json"], check=True, env=env, capture_output=True, text=True).stdout
    deployed = {r["interpreters"]: r for r in map(json.loads, out.splitlines())}
    if any(r["mismatched"] for r in deployed.values()):
        sys.exit("ember::deploy's outputs differ from Python's")

    tokens = ember.load(requests)["tokens"]
    ember.set_num_threads(1)
    model = ember.deploy.load_package(package)
    single = {n: python_threads(model, ember, tokens, n, args.rounds) for n in counts}

    rival = {}
    try:
        import torch

        torch.set_num_threads(1)
        torch.manual_seed(0)
        tmodel = char_transformer(torch, vocab=model.head.out_features).eval()
        ttokens = torch.from_numpy(tokens.numpy())
        rival = {n: python_threads(tmodel, torch, ttokens, n, args.rounds) for n in counts}
    except ImportError:
        pass

    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; requests of 1x64 tokens, "
          f"{tokens.shape[0] * args.rounds} per row")
    header = ["threads", "ember::deploy req/s", "Ember 1 interpreter req/s", "torch req/s",
              "deploy vs torch", "1 interpreter vs torch"]
    rows = []
    for n in counts:
        t = rival.get(n)
        d, s = deployed[n]["requests_per_second"], single[n]
        rows.append([str(n), f"{d:.0f}", f"{s:.0f}", f"{t:.0f}" if t else "-", f"{d / t:.2f}" if t else "-",
                     f"{s / t:.2f}" if t else "-"])
    print_table(header, rows, args.markdown)


if __name__ == "__main__":
    main()
