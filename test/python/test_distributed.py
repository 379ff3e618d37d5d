"""ember.distributed: stores, every collective on 2 and 4 local processes (started by
python -m ember.distributed.run) against a single-process reference, and the faults a job must survive:
a rank that dies, one that stalls, a script that fails under the launcher."""

import datetime
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import ember
import ember.distributed as dist
from distributed_reference import DTYPES, OPS, reduce, values

HERE = os.path.dirname(os.path.abspath(__file__))
pytestmark = pytest.mark.skipif(not dist.is_available(), reason="Ember was built without Gloo")


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.dirname(ember.__path__[0]), HERE,
                                                      env.get("PYTHONPATH", "")] if p)
    env.pop("MASTER_ADDR", None)
    return env


def launch(nproc, script, *args, timeout=180):
    """Runs the launcher; past the timeout it is stopped, and stops its processes."""
    launcher = subprocess.Popen([sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", str(nproc),
                                 "--grace-period", "1", script, *args], env=_env(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = launcher.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        launcher.terminate()
        stdout, stderr = launcher.communicate()
        pytest.fail(f"the job did not finish in {timeout} s:\n{stderr[-4000:]}")
    return subprocess.CompletedProcess(launcher.args, launcher.returncode, stdout, stderr)


def as_numpy(t):
    if t.dtype == ember.bfloat16 or t.dtype == ember.float16:
        t = t.float()
    return t.numpy()


# ---- stores -------------------------------------------------------------------------------------------


def _exercise(store, other):
    """Store semantics through two handles of one store."""
    store.set("a", "1")
    assert other.get("a") == b"1"
    assert store.add("n", 2) == 2 and other.add("n", 3) == 5 and store.get("n") == b"5"
    assert store.check(["a", "n"]) and not store.check(["a", "missing"])
    assert store.compare_set("a", "1", "2") == b"2" and other.get("a") == b"2"
    assert store.compare_set("a", "1", "3") == b"2"  # expected value does not match: unchanged
    assert store.compare_set("fresh", "", "x") == b"x"
    threading.Timer(0.2, lambda: other.set("late", b"\x00\xff")).start()
    store.wait(["late"])
    assert store.get("late") == b"\x00\xff"
    assert store.delete_key("late") and not store.check(["late"])
    with pytest.raises(RuntimeError, match="timed out after 0.2 s waiting for key\\(s\\) 'never'"):
        store.wait(["never"], datetime.timedelta(seconds=0.2))
    store.set_timeout(datetime.timedelta(seconds=0.2))
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="'never'"):
        store.get("never")
    assert time.monotonic() - started < 5


def test_hash_store():
    store = dist.HashStore()
    _exercise(store, store)
    assert store.num_keys() == 3  # a, n, fresh


def test_file_store(tmp_path):
    path = str(tmp_path / "store")
    _exercise(dist.FileStore(path, 2), dist.FileStore(path, 2))


def test_tcp_store_and_prefix_store():
    master = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=datetime.timedelta(seconds=10))
    client = dist.TCPStore("127.0.0.1", master.port, timeout=datetime.timedelta(seconds=10))
    _exercise(master, client)
    prefixed = dist.PrefixStore("job", client)
    prefixed.set("k", "v")
    assert master.get("job/k") == b"v" and prefixed.get("k") == b"v"
    with pytest.raises(TypeError, match="str or bytes"):
        master.set("bad", 3)
    client.close()
    master.close()


def test_tcp_store_client_gives_up_when_no_master_listens():
    with pytest.raises(RuntimeError, match="could not connect to 127.0.0.1:1 within"):
        dist.TCPStore("127.0.0.1", 1, timeout=datetime.timedelta(seconds=0.3))


# ---- collectives against a single-process reference ----------------------------------------------------


def _expected(world):
    """What every rank of the collective worker should hold."""
    expected = {}
    for dtype in DTYPES:
        inputs = [values(dtype, r) for r in range(world)]
        for op in OPS[dtype]:
            expected[f"all_reduce/{dtype}/{op}"] = reduce(op, inputs, dtype)
        expected[f"reduce/{dtype}"] = (world - 1, reduce("SUM" if dtype != "bool" else "MAX", inputs, dtype))
        expected[f"broadcast/{dtype}"] = inputs[world - 1]
        expected[f"all_gather/{dtype}"] = np.stack(inputs)
        expected[f"all_gather_into_tensor/{dtype}"] = np.stack(inputs)
        expected[f"gather/{dtype}"] = (0, np.stack(inputs))
        expected[f"scatter/{dtype}"] = lambda r, dtype=dtype: values(dtype, 100 + r)
        expected[f"all_to_all_single/{dtype}"] = lambda r, dtype=dtype: np.concatenate(
            [values(dtype, 10 * s + r) for s in range(world)])
        if dtype != "bool":
            expected[f"reduce_scatter_tensor/{dtype}"] = lambda r, dtype=dtype: reduce(
                "SUM", [values(dtype, 10 * s + r) for s in range(world)], dtype)
    expected["ring"] = lambda r: np.full(4, float((r - 1) % world))
    expected["all_to_all_single_uneven"] = lambda r: np.concatenate(
        [np.full((r + 1, 2), float(10 * s + r)) for s in range(world)])
    expected["all_to_all_uneven"] = lambda r: np.concatenate([np.full(r + 1, float(10 * s + r)) for s in range(world)])
    expected["even_group"] = lambda r: np.array([float(sum(range(0, world, 2)))]) if r % 2 == 0 else None
    return expected


@pytest.mark.parametrize("world", [2, 4])
def test_every_collective_and_dtype_matches_a_single_process_reference(world, tmp_path):
    done = launch(world, os.path.join(HERE, "distributed_workers", "collectives.py"), str(tmp_path))
    assert done.returncode == 0, done.stderr[-4000:]
    expected = _expected(world)
    for rank in range(world):
        got = ember.load(str(tmp_path / f"rank{rank}.pt"))
        for key, want in expected.items():
            if isinstance(want, tuple):  # only the root holds it
                root, want = want
                if rank != root:
                    assert key not in got
                    continue
            if callable(want):
                want = want(rank)
                if want is None:
                    assert key not in got
                    continue
            dtype = key.split("/")[1] if "/" in key else None
            assert key in got, f"rank {rank} has no {key}"
            result = as_numpy(got[key])
            if dtype is not None:
                assert str(got[key].dtype) == f"ember.{dtype}", key
            np.testing.assert_allclose(result, np.asarray(want).reshape(result.shape), rtol=1e-6,
                                       err_msg=f"{key} on rank {rank} of {world}")


# ---- faults -------------------------------------------------------------------------------------------


def _start_ranks(world, body, port_file):
    """Processes running `body` with RANK/WORLD_SIZE/MASTER_* set, without the launcher (so that each
    one's own error can be observed)."""
    script = textwrap.dedent("""
        import datetime, os, sys, time
        import ember, ember.distributed as dist
        rank = int(os.environ["RANK"])
    """) + textwrap.dedent(body)
    port = str(_free_port())
    processes = []
    for rank in range(world):
        env = dict(_env(), RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
        processes.append(subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
    return processes


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def test_a_rank_that_dies_makes_the_others_raise_naming_the_collective():
    processes = _start_ranks(2, """
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
        dist.barrier()
        if rank == 1:
            os._exit(7)
        try:
            dist.all_reduce(ember.ones(1000))
        except dist.DistBackendError as error:
            print("caught:", error)
            sys.exit(0)
        sys.exit("no error")
    """, None)
    started = time.monotonic()
    out0, err0 = processes[0].communicate(timeout=60)
    processes[1].wait(timeout=60)
    assert processes[0].returncode == 0, err0
    assert "ember.distributed.all_reduce (rank 0 of 2)" in out0
    assert processes[1].returncode == 7
    assert time.monotonic() - started < 30


def test_a_stalled_rank_makes_the_others_time_out():
    processes = _start_ranks(2, """
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=2))
        if rank == 1:
            time.sleep(8)
            sys.exit(0)
        started = time.monotonic()
        try:
            dist.all_reduce(ember.ones(10))
        except RuntimeError as error:
            print(f"caught after {time.monotonic() - started:.1f} s:", type(error).__name__, error)
            sys.exit(0)
        sys.exit("no error")
    """, None)
    out0, err0 = processes[0].communicate(timeout=60)
    processes[1].kill()
    processes[1].wait()
    assert processes[0].returncode == 0, err0
    assert "DistBackendError" in out0 and "all_reduce (rank 0 of 2)" in out0, out0
    seconds = float(out0.split("caught after ")[1].split(" s")[0])
    assert seconds < 6, out0


def test_the_launcher_stops_every_rank_when_one_fails_and_shows_its_traceback(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text(textwrap.dedent("""
        import os, time
        import ember.distributed as dist
        dist.init_process_group("gloo")
        if dist.get_rank() == 1:
            raise ValueError("rank one cannot go on")
        time.sleep(120)  # would hang without the launcher stopping it
    """))
    started = time.monotonic()
    done = launch(2, str(script), timeout=60)
    assert done.returncode == 1
    assert "ValueError: rank one cannot go on" in done.stderr
    assert "rank 1 (local rank 1) failed with exit code 1" in done.stderr
    assert time.monotonic() - started < 40


def test_the_launcher_sets_torchruns_environment(tmp_path):
    script = tmp_path / "env.py"
    script.write_text("import os, sys\nopen(os.path.join(sys.argv[1], os.environ['RANK']), 'w').write(' '.join("
                      "os.environ[k] for k in ('RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'LOCAL_WORLD_SIZE', "
                      "'MASTER_ADDR')))\n")
    done = launch(3, str(script), str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert [(tmp_path / str(r)).read_text() for r in range(3)] == [f"{r} {r} 3 3 127.0.0.1" for r in range(3)]


# ---- argument errors ----------------------------------------------------------------------------------


def test_errors_in_a_single_process_group(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/rendezvous", rank=0, world_size=1)
    try:
        assert dist.is_initialized() and dist.get_rank() == 0 and dist.get_world_size() == 1
        x = ember.arange(6.0).reshape(2, 3)
        dist.all_reduce(x)
        np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3))
        with pytest.raises(ValueError, match="all_reduce \\(rank 0 of 1\\): Tensors must be contiguous"):
            dist.all_reduce(x.t())
        with pytest.raises(ValueError, match="ReduceOp.AVG is not defined for int64 tensors"):
            dist.all_reduce(ember.ones(2, dtype=ember.int64), op=dist.ReduceOp.AVG)
        with pytest.raises(ValueError, match="ReduceOp.BAND is not defined for float32 tensors"):
            dist.all_reduce(ember.ones(2), op=dist.ReduceOp.BAND)
        with pytest.raises(ValueError, match="PREMUL_SUM is not supported"):
            dist.all_reduce(ember.ones(2), op=dist.ReduceOp.PREMUL_SUM)
        with pytest.raises(ValueError, match="src rank 3 is not part of the group"):
            dist.broadcast(ember.ones(2), src=3)
        with pytest.raises(ValueError, match="a rank cannot send to itself"):
            dist.send(ember.ones(2), dst=0)
        with pytest.raises(ValueError, match="must be a list of world_size \\(1\\) tensors"):
            dist.all_gather([], ember.ones(2))
        with pytest.raises(TypeError, match="expected a Tensor"):
            dist.all_reduce([1.0])
        with pytest.raises(ValueError, match="trying to initialize the default process group twice"):
            dist.init_process_group("gloo", init_method=f"file://{tmp_path}/other", rank=0, world_size=1)
        with pytest.raises(RuntimeError, match="NCCL backend needs CUDA"):
            dist.new_group([0], backend="nccl")
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="rank 1 is not in \\[0, 1\\)"):
        dist.init_process_group("gloo", store=dist.HashStore(), rank=1, world_size=1)


# ---- DistributedDataParallel --------------------------------------------------------------------------


@pytest.mark.parametrize("world", [2, 3])
def test_distributed_data_parallel(world):
    """Full-batch equality for several bucket sizes, identical replicas, no_sync, unused parameters, state_dict
    keys (the checks assert inside each rank)."""
    done = launch(world, os.path.join(HERE, "distributed_workers", "ddp.py"))
    assert done.returncode == 0, done.stderr[-4000:]
    assert sorted(line for line in done.stdout.replace("passed", "passed\n").split("\n") if line) == [
        f"rank {r}: ddp checks passed" for r in range(world)]


def test_the_mlp_example_trains_the_same_model_on_two_ranks_as_on_one(tmp_path):
    example = os.path.join(HERE, "..", "..", "examples", "mlp.py")
    args = ["--epochs", "2", "--samples", "200", "--save"]
    single = subprocess.run([sys.executable, example, *args, str(tmp_path / "one.pt")], env=_env(),
                            capture_output=True, text=True, timeout=120)
    assert single.returncode == 0, single.stderr
    done = launch(2, example, *args, str(tmp_path / "two.pt"))
    assert done.returncode == 0, done.stderr[-4000:]
    one, two = ember.load(str(tmp_path / "one.pt")), ember.load(str(tmp_path / "two.pt"))
    assert sorted(one) == sorted(two)
    for key in one:
        np.testing.assert_allclose(two[key].numpy(), one[key].numpy(), rtol=1e-5, atol=1e-6, err_msg=key)


def test_distributed_sampler_takes_the_default_group(tmp_path):
    from ember.utils.data import DistributedSampler

    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(10))
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/rendezvous", rank=0, world_size=1)
    try:
        sampler = DistributedSampler(range(10), shuffle=False)
        assert sampler.num_replicas == 1 and sampler.rank == 0 and list(sampler) == list(range(10))
    finally:
        dist.destroy_process_group()


def test_debug_detail_names_mismatched_collectives():
    processes = _start_ranks(2, """
        os.environ["EMBER_DISTRIBUTED_DEBUG"] = "DETAIL"
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
        dist.all_reduce(ember.ones(3))  # matching calls pass
        try:
            if rank == 0:
                dist.all_reduce(ember.ones(4), op=dist.ReduceOp.MAX)
            else:
                dist.broadcast(ember.ones(2, 5, dtype=ember.int64), src=0)
        except RuntimeError as error:
            print(error)
            sys.exit(0)
        sys.exit("no error")
    """, None)
    for p in processes:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        assert ("the ranks' collectives do not match (detected by EMBER_DISTRIBUTED_DEBUG=DETAIL): rank 0 called "
                "all_reduce(float32 [4], MAX), rank 1 called broadcast(int64 [2, 5])") in out, out
