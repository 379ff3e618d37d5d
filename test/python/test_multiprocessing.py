"""Tensors in shared memory and ember.multiprocessing: tensors sent to other
processes arrive over the same memory (a change there is seen here), views
keep sharing one storage, and no segment or descriptor outlives its users,
also when a DataLoader worker is killed or the loop is interrupted. The
main paths run under both sharing strategies."""

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time
from multiprocessing.reduction import ForkingPickler

import pytest

import ember
import ember.multiprocessing as mp
from ember.utils.data import DataLoader, Dataset


def shm_entries():
    return sorted(os.listdir("/dev/shm"))


def open_fds():
    """Open descriptors, once the iterators that a caught exception's
    traceback kept alive (with their queues' pipes) are collected."""
    gc.collect()
    out = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            out.add((fd, os.readlink(f"/proc/self/fd/{fd}")))
        except OSError:  # the listing's own descriptor, closed by now
            pass
    return out


def assert_nothing_left(before_shm, before_fds, wait=3.0):
    """No segment and no descriptor beyond those open before. Queue feeder
    threads close their pipe ends on their own schedule, so the descriptors
    get a few seconds to settle; one still open after that is a leak."""
    deadline = time.monotonic() + wait
    while open_fds() != before_fds and time.monotonic() < deadline:
        time.sleep(0.05)
    assert shm_entries() == before_shm
    assert open_fds() == before_fds


@pytest.fixture(params=["file_descriptor", "file_system"])
def strategy(request):
    mp.set_sharing_strategy(request.param)
    yield request.param
    mp.set_sharing_strategy("file_descriptor")


def test_share_memory_moves_the_storage_and_its_views():
    x = ember.arange(6.0).reshape(2, 3)
    view = x[1]
    assert not x.is_shared()
    assert x.share_memory_() is x and x.is_shared() and view.is_shared()
    view[0] = 30
    assert x.tolist() == [[0, 1, 2], [30, 4, 5]]
    assert x.share_memory_() is x  # already there: nothing moves
    with pytest.raises(RuntimeError, match="not resizable"):
        x.resize_(100)
    with pytest.raises(RuntimeError, match="only CPU storages"):
        ember.empty(2, device="meta").share_memory_()


def test_module_share_memory():
    model = ember.nn.Linear(3, 2)
    assert model.share_memory() is model and all(p.is_shared() for p in model.parameters())


def _add_one_to_each(queue, done):
    tensors = queue.get()
    for t in tensors:
        t.add_(1)
    done.put([ember._C._storage_id(t) for t in tensors])


def test_a_child_changes_what_the_parent_sees(strategy):
    x = ember.zeros(4)
    queue, done = mp.Queue(), mp.Queue()
    child = mp.Process(target=_add_one_to_each, args=(queue, done))
    child.start()
    queue.put([x, x[2:]])  # a view of the same storage, in the same message
    ids = done.get(timeout=30)
    child.join(timeout=30)
    assert child.exitcode == 0 and ids[0] == ids[1]  # the child rebuilt both over one storage
    assert x.tolist() == [1, 1, 2, 2] and x.is_shared()


def _fill(t, value):
    t.fill_(value)


def test_spawned_child_gets_the_same_memory(strategy):
    x = ember.zeros(3, dtype=ember.int64)
    child = mp.get_context("spawn").Process(target=_fill, args=(x, 7))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 0 and x.tolist() == [7, 7, 7]


def _square(t):
    return t * t


def test_pool_returns_tensors(strategy):
    with mp.Pool(2) as pool:
        results = pool.map(_square, [ember.full((2,), float(i)) for i in range(4)])
    assert [r.tolist() for r in results] == [[0, 0], [1, 1], [4, 4], [9, 9]]


def _requires_grad_of(queue, done):
    t = queue.get()
    done.put((t.requires_grad, t.is_leaf, type(t).__name__))


def test_requires_grad_and_parameters_cross_non_leaves_do_not():
    queue, done = mp.Queue(), mp.Queue()
    child = mp.Process(target=_requires_grad_of, args=(queue, done))
    child.start()
    queue.put(ember.nn.Parameter(ember.ones(2)))
    assert done.get(timeout=30) == (True, True, "Parameter")
    child.join(timeout=30)
    leaf = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor which requires_grad"):
        ForkingPickler.dumps(leaf * 2)


def test_sharing_strategies():
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    assert mp.get_sharing_strategy() == "file_descriptor"
    with pytest.raises(ValueError, match="sharing strategy 'file_sytem' is not supported"):
        mp.set_sharing_strategy("file_sytem")


def test_file_system_names_live_as_long_as_their_references():
    mp.set_sharing_strategy("file_system")
    try:
        x = ember.arange(4.0).share_memory_()
        name, _ = ember._C._share_filename(x)  # as the pickler: one reference for the copy in transit
        assert name.lstrip("/") in shm_entries()
        y = ember._C._tensor_from_shared_name(name, 16, ember.float32, [2], [1], 2)  # takes the transit one
        y.add_(10)
        assert x.tolist() == [0, 1, 12, 13]
        del x
        assert name.lstrip("/") in shm_entries()  # y still maps it
        del y
        assert name.lstrip("/") not in shm_entries()
    finally:
        mp.set_sharing_strategy("file_descriptor")


def test_bad_names_are_refused():
    with pytest.raises(RuntimeError, match="could not open shared memory /ember_fs_no_such"):
        ember._C._tensor_from_shared_name("/ember_fs_no_such", 4, ember.float32, [1], [1], 0)
    with pytest.raises(RuntimeError, match="is not a shared-memory name"):
        ember._C._tensor_from_shared_name("/../etc/passwd", 4, ember.float32, [1], [1], 0)


_KILLED_HOLDER = textwrap.dedent("""
    import os, signal, sys, time
    import ember
    import ember.multiprocessing as mp

    def send_then_die(queue):
        queue.put(ember.ones(1000))  # a reference in transit that nobody will take
        time.sleep(1)
        os.kill(os.getpid(), signal.SIGKILL)

    if __name__ == "__main__":
        mp.set_sharing_strategy("file_system")
        queue = mp.Queue()
        child = mp.Process(target=send_then_die, args=(queue,))
        child.start()
        child.join()
        print(sorted(n for n in os.listdir("/dev/shm") if n.startswith("ember_fs_")))
""")


def test_file_system_names_of_a_killed_holder_go_when_the_processes_end(tmp_path):
    script = tmp_path / "killed_holder.py"
    script.write_text(_KILLED_HOLDER)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ember.__file__)))
    env.pop("EMBER_SHM_MANAGER", None)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    left = eval(done.stdout.strip().splitlines()[-1])
    assert left, "the killed child's segment should outlive it while the script runs"
    deadline = time.monotonic() + 10
    while any(name in shm_entries() for name in left) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(name in shm_entries() for name in left)  # the manager unlinked them


def test_tampered_geometry_is_refused():
    x = ember.ones(4)
    fd, nbytes = ember._C._share_fd(x)
    with pytest.raises(RuntimeError, match=r"sizes \[5\] and strides \[1\] need 20 bytes, the storage has 16"):
        ember._C._tensor_from_shared_fd(fd, nbytes, ember.float32, [5], [1], 0)
    with pytest.raises(RuntimeError, match="the segment holds 16 bytes, fewer than the 64 expected"):
        ember._C._tensor_from_shared_fd(fd, 64, ember.float32, [4], [1], 0)


# ---- the DataLoader's batches ------------------------------------------------------------------


class Images(Dataset):
    def __init__(self, n, shape=(3, 8, 8)):
        self.n, self.shape = n, shape

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return ember.full(self.shape, float(i)), i


def test_worker_batches_arrive_in_shared_memory(strategy):
    for images, labels in DataLoader(Images(8), batch_size=4, num_workers=2):
        assert images.is_shared() and labels.is_shared()
        assert images[:, 0, 0, 0].tolist() == labels.float().tolist()


def test_no_segment_or_descriptor_left_after_many_batches(strategy):
    before_shm, before_fds = shm_entries(), open_fds()
    count = sum(1 for _ in DataLoader(Images(1000, (4,)), batch_size=1, num_workers=2))
    assert count == 1000
    assert_nothing_left(before_shm, before_fds)


class KillsAWorker(Dataset):
    def __len__(self):
        return 20

    def __getitem__(self, i):
        if i == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return ember.full((16,), float(i))


def test_no_segment_or_descriptor_left_after_a_worker_is_killed():
    before_shm, before_fds = shm_entries(), open_fds()
    with pytest.raises(RuntimeError, match="exited unexpectedly") as error:
        for _ in DataLoader(KillsAWorker(), batch_size=2, num_workers=2):
            pass
    del error
    assert_nothing_left(before_shm, before_fds)


def test_no_segment_or_descriptor_left_after_an_interrupt():
    before_shm, before_fds = shm_entries(), open_fds()
    loader = DataLoader(Images(100, (16,)), batch_size=2, num_workers=2)
    with pytest.raises(KeyboardInterrupt) as interrupt:
        for step, batch in enumerate(loader):
            if step == 3:
                os.kill(os.getpid(), signal.SIGINT)
    # What the script still holds: the batch in hand, and the traceback (whose
    # frames hold the iterator when the signal came while it waited).
    del batch, interrupt
    assert_nothing_left(before_shm, before_fds)


# ---- recycled batch segments -------------------------------------------------------------------


def _inode(t):
    fd, _ = ember._C._share_fd(t)
    ember._C._shared_decref(t)  # (no copy is really in transit)
    return os.fstat(fd).st_ino


def test_a_batch_segment_is_reused_only_once_everyone_let_go():
    first = ember._C._empty_shared([1000], ember.float32)
    first_inode = _inode(first)
    del first
    again = ember._C._empty_shared([1000], ember.float32)
    assert _inode(again) == first_inode  # released: recycled
    other = ember._C._empty_shared([1000], ember.float32)
    assert _inode(other) != first_inode  # `again` still holds it
    ember._C._share_fd(again)  # a copy in transit to another process
    del again
    third = ember._C._empty_shared([1000], ember.float32)
    assert _inode(third) != first_inode  # the receiver has not mapped it yet


def test_recycling_never_overwrites_a_batch_still_held():
    loader = DataLoader(Images(24), batch_size=4, num_workers=2, persistent_workers=True)
    held = []
    for epoch in range(3):
        for images, labels in loader:
            assert images.is_shared()
            assert ember.equal(images[:, 0, 0, 0], labels.float()), "a batch arrived with another batch's data"
            if epoch == 0:
                held.append((images, labels))  # kept alive while later epochs recycle other segments
    for images, labels in held:
        assert ember.equal(images, labels.float().reshape(-1, 1, 1, 1).expand(images.shape))


def _child_batch_inode(queue):
    queue.put(_inode(ember._C._empty_shared([777], ember.float32)))


def test_a_forked_child_does_not_reuse_its_parents_segments():
    import multiprocessing as mp

    first = ember._C._empty_shared([777], ember.float32)
    parents = _inode(first)
    del first  # free in this process's pool
    queue = mp.get_context("fork").Queue()
    child = mp.get_context("fork").Process(target=_child_batch_inode, args=(queue,))
    child.start()
    childs = queue.get(timeout=30)
    child.join(30)
    assert childs != parents
    assert _inode(ember._C._empty_shared([777], ember.float32)) == parents  # still ours to reuse
