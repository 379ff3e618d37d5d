"""``python -m ember.distributed.run [options] script.py [args]``: starts the processes of a distributed
job on this machine, as torchrun does.

Each process gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR and MASTER_PORT
in its environment, so ``init_process_group()`` (env://) finds the others. If a process fails, the others
are stopped (SIGTERM, then SIGKILL after a grace period), the failure is reported with its rank and exit
code, and the launcher exits with that code; its traceback is on stderr as the process printed it.

Several machines: run the same command on each with ``--nnodes``, ``--node-rank`` and ``--master-addr``
/ ``--master-port`` naming node 0's reachable address.
"""

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import uuid

__all__ = ["main", "parse_args"]


def parse_args(args=None):
    parser = argparse.ArgumentParser(prog="python -m ember.distributed.run",
                                     description="Start the processes of a distributed Ember job (torchrun's "
                                                 "interface).")
    parser.add_argument("--nproc-per-node", "--nproc_per_node", default="1",
                        help="processes on this machine (a number, or 'cpu' for one per core)")
    parser.add_argument("--nnodes", default="1", help="number of machines (a number; ranges are not supported)")
    parser.add_argument("--node-rank", "--node_rank", type=int, default=0, help="this machine's index")
    parser.add_argument("--master-addr", "--master_addr", default="127.0.0.1", help="node 0's address")
    parser.add_argument("--master-port", "--master_port", type=int, default=None,
                        help="node 0's port (a free one is chosen on a single machine)")
    parser.add_argument("--standalone", action="store_true", help="a single machine with a free port (default)")
    parser.add_argument("--max-restarts", "--max_restarts", type=int, default=0,
                        help="accepted for torchrun compatibility; only 0 is supported")
    parser.add_argument("--grace-period", type=float, default=5.0,
                        help="seconds between SIGTERM and SIGKILL when stopping the other processes")
    parser.add_argument("-m", "--module", action="store_true", help="run the script argument as a module")
    parser.add_argument("--no-python", "--no_python", action="store_true",
                        help="run the script argument as a program, not with Python")
    parser.add_argument("training_script", help="the script (or module, or program) each process runs")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser.parse_args(args)


def _free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _commands(options):
    if options.no_python:
        return [options.training_script, *options.training_script_args]
    if options.module:
        return [sys.executable, "-u", "-m", options.training_script, *options.training_script_args]
    return [sys.executable, "-u", options.training_script, *options.training_script_args]


def _stop(processes, grace):
    for p in processes:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in processes:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main(args=None):
    options = parse_args(args)
    if options.max_restarts:
        raise SystemExit("ember.distributed.run: --max-restarts other than 0 is not supported")
    nproc = os.cpu_count() if options.nproc_per_node == "cpu" else int(options.nproc_per_node)
    nnodes = int(options.nnodes)
    if nproc < 1 or nnodes < 1 or not 0 <= options.node_rank < nnodes:
        raise SystemExit("ember.distributed.run: --nproc-per-node and --nnodes must be positive and --node-rank "
                         "in [0, nnodes)")
    if options.master_port is None:
        if nnodes > 1:
            raise SystemExit("ember.distributed.run: --master-port is needed with --nnodes > 1")
        options.master_port = _free_port()
    world_size = nproc * nnodes
    run_id = os.environ.get("TORCHELASTIC_RUN_ID", uuid.uuid4().hex[:12])
    processes = []

    def terminated(signum, frame):
        raise KeyboardInterrupt

    # Stopping the launcher stops the job: its processes never outlive it.
    signal.signal(signal.SIGTERM, terminated)
    try:
        for local_rank in range(nproc):
            rank = options.node_rank * nproc + local_rank
            env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(local_rank), WORLD_SIZE=str(world_size),
                       LOCAL_WORLD_SIZE=str(nproc), GROUP_RANK=str(options.node_rank), ROLE_RANK=str(rank),
                       ROLE_WORLD_SIZE=str(world_size), MASTER_ADDR=options.master_addr,
                       MASTER_PORT=str(options.master_port), TORCHELASTIC_RUN_ID=run_id,
                       OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
            processes.append(subprocess.Popen(_commands(options), env=env))
        while True:
            codes = [p.poll() for p in processes]
            failed = [(rank, code) for rank, code in enumerate(codes) if code not in (None, 0)]
            if failed:
                local_rank, code = failed[0]
                _stop(processes, options.grace_period)
                rank = options.node_rank * nproc + local_rank
                reason = f"signal {-code}" if code < 0 else f"exit code {code}"
                print(f"ember.distributed.run: rank {rank} (local rank {local_rank}) failed with {reason}; "
                      f"stopped the other processes", file=sys.stderr)
                return code if code > 0 else 128 - code
            if all(code == 0 for code in codes):
                return 0
            time.sleep(0.05)
    except KeyboardInterrupt:
        return 130
    finally:
        _stop(processes, options.grace_period)


if __name__ == "__main__":
    sys.exit(main())
