"""Ember's collectives and DistributedDataParallel vs torch.distributed, both on Gloo, 2 local ranks.

    python benchmarks/distributed.py [--quick] [--ranks 2]

Rows: all_reduce of float32 tensors from 1 MB to 256 MB (time per call and the bus bandwidth it reaches,
2 (n - 1) / n bytes per byte, as NCCL's tests count it), and a DistributedDataParallel training step of an
MLP (SGD, 8 MB of gradients). Each library runs in processes of its own, one after the other; ratios are
torch time / Ember time (> 1: Ember is faster).
"""

import argparse
import multiprocessing
import os
import socket
import statistics
import sys
import time

SOURCE_TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python")


def _free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _timed(fn, barrier, repeats):
    fn()
    samples = []
    for _ in range(repeats):
        barrier()
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _worker(lib_name, rank, world, port, sizes_mb, repeats, results):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world))
    if lib_name == "ember":
        sys.path.insert(0, os.path.abspath(SOURCE_TREE))
        import ember as lib
    else:
        import torch as lib
    lib.set_num_threads(1)
    dist = lib.distributed
    dist.init_process_group("gloo")
    rows = {}
    for mb in sizes_mb:
        t = lib.ones(mb * (1 << 20) // 4)
        rows[f"all_reduce {mb} MB"] = _timed(lambda: dist.all_reduce(t), dist.barrier, repeats)
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(512, 1024), lib.nn.ReLU(), lib.nn.Linear(1024, 1024), lib.nn.ReLU(),
                              lib.nn.Linear(1024, 10))
    ddp = lib.nn.parallel.DistributedDataParallel(model)
    opt = lib.optim.SGD(ddp.parameters(), lr=0.01)
    x, y = lib.randn(32, 512), lib.randint(0, 10, (32,))

    def step():
        opt.zero_grad()
        lib.nn.functional.cross_entropy(ddp(x), y).backward()
        opt.step()

    rows["DDP step, MLP 512-1024-1024-10 (8 MB of gradients), batch 32"] = _timed(step, dist.barrier, repeats)
    if rank == 0:
        results.update(rows)
    dist.destroy_process_group()


def measure(lib_name, world, sizes_mb, repeats):
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        results = manager.dict()
        port = _free_port()
        processes = [context.Process(target=_worker, args=(lib_name, r, world, port, sizes_mb, repeats, results))
                     for r in range(world)]
        for p in processes:
            p.start()
        for p in processes:
            p.join()
        if any(p.exitcode != 0 for p in processes):
            raise SystemExit(f"benchmarks/distributed.py: a {lib_name} rank failed")
        return dict(results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and repeats")
    parser.add_argument("--ranks", type=int, default=2)
    args = parser.parse_args()
    sizes = [1, 16] if args.quick else [1, 4, 16, 64, 256]
    repeats = 3 if args.quick else 7
    ember_rows = measure("ember", args.ranks, sizes, repeats)
    try:
        import torch  # noqa: F401
        torch_rows = measure("torch", args.ranks, sizes, repeats)
    except ImportError:
        torch_rows = {}
    print(f"{args.ranks} ranks on this machine, Gloo over loopback TCP, 1 thread per rank")
    print("| case | ember | torch | torch/ember | ember bus bandwidth |")
    print("|---|---|---|---|---|")
    for case, seconds in ember_rows.items():
        theirs = torch_rows.get(case)
        bandwidth = ""
        if case.startswith("all_reduce"):
            megabytes = int(case.split()[1])
            bandwidth = f"{2 * (args.ranks - 1) / args.ranks * megabytes / seconds / 1024:.2f} GB/s"
        print(f"| {case} | {seconds * 1e3:.2f} ms | {'' if theirs is None else f'{theirs * 1e3:.2f} ms'} | "
              f"{'' if theirs is None else f'{theirs / seconds:.2f}'} | {bandwidth} |")


if __name__ == "__main__":
    main()
