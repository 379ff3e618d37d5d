"""ember.utils.data: datasets, samplers, collation and the DataLoader, in
the main process and with worker processes, checked against torch. The
random orders themselves (the same as torch's for the same seed) are
compared with torch in test_generator.py; here they are checked for their
properties."""

import collections
import os
import signal
import time

import numpy as np
import pytest

import ember
from ember.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset, DistributedSampler,
                              IterableDataset, RandomSampler, SequentialSampler, StackDataset, Subset,
                              SubsetRandomSampler, TensorDataset, WeightedRandomSampler, default_collate,
                              default_convert, get_worker_info, random_split)
from ember_testing import to_numpy, torch

Point = collections.namedtuple("Point", ["x", "y"])


def tree_to_python(value):
    """A batch as plain Python (tensors as (dtype name, shape, values)), to compare ember's with torch's."""
    if hasattr(value, "dtype") and hasattr(value, "shape") and type(value).__module__.split(".")[0] in ("ember", "torch"):
        array = to_numpy(value) if isinstance(value, ember.Tensor) else value.numpy()
        return ("tensor", str(value.dtype).rsplit(".", 1)[-1], tuple(value.shape), array.tolist())
    if isinstance(value, dict):
        return (type(value).__name__, {k: tree_to_python(v) for k, v in value.items()})
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (type(value).__name__, [tree_to_python(v) for v in value])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [tree_to_python(v) for v in value])
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.tolist())
    return value


def as_lib(value, lib):
    """A sample built for `lib`: tensors are made by lib.tensor."""
    if isinstance(value, TensorSpec):
        return lib.tensor(value.values, dtype=getattr(lib, value.dtype))
    if isinstance(value, dict):
        return type(value)({k: as_lib(v, lib) for k, v in value.items()})
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(as_lib(v, lib) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(as_lib(v, lib) for v in value)
    return value


class TensorSpec:
    def __init__(self, values, dtype="float32"):
        self.values, self.dtype = values, dtype


COLLATE_BATCHES = {
    "tensors": [TensorSpec([1.0, 2.0]), TensorSpec([3.0, 4.0])],
    "int_tensors": [TensorSpec([[1, 2]], "int64"), TensorSpec([[3, 4]], "int64")],
    "floats": [1.5, 2.5, -1.0],
    "ints": [1, 2, 3],
    "bools": [True, False],
    "strings": ["a", "bc"],
    "tuples": [(TensorSpec([1.0]), 2, "x"), (TensorSpec([3.0]), 4, "y")],
    "lists": [[1, 2.5], [3, 4.5]],
    "dicts": [{"a": TensorSpec([1.0]), "b": 1}, {"a": TensorSpec([2.0]), "b": 2}],
    "ordered_dicts": [collections.OrderedDict(b=1.0, a=2), collections.OrderedDict(b=3.0, a=4)],
    "nested": [{"p": Point(TensorSpec([1.0]), [1, 2])}, {"p": Point(TensorSpec([2.0]), [3, 4])}],
    "numpy_arrays": [np.arange(3, dtype=np.float32), np.arange(3, 6, dtype=np.float32)],
    "numpy_int_arrays": [np.arange(2), np.arange(2, 4)],
    "numpy_scalars": [np.float64(1.5), np.float64(2.5)],
    "numpy_int_scalars": [np.int32(1), np.int32(7)],
    "namedtuples": [Point(1, 2.0), Point(3, 4.0)],
}


@pytest.mark.parametrize("name", sorted(COLLATE_BATCHES))
def test_default_collate_like_torch(name):
    pytest.importorskip("torch")
    from torch.utils.data import default_collate as torch_collate

    batch = COLLATE_BATCHES[name]
    assert tree_to_python(default_collate(as_lib(batch, ember))) == tree_to_python(torch_collate(as_lib(batch, torch)))


@pytest.mark.parametrize("name", sorted(COLLATE_BATCHES))
def test_default_convert_like_torch(name):
    pytest.importorskip("torch")
    from torch.utils.data import default_convert as torch_convert

    sample = COLLATE_BATCHES[name][0]
    assert tree_to_python(default_convert(as_lib(sample, ember))) == tree_to_python(torch_convert(as_lib(sample, torch)))


def test_default_collate_errors():
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                                        "or lists; found <class 'object'>"):
        default_collate([object(), object()])
    with pytest.raises(TypeError, match="found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])


def test_collated_numpy_arrays_share_nothing_with_the_samples():
    arrays = [np.zeros(2, np.float32), np.ones(2, np.float32)]
    batch = default_collate(arrays)
    arrays[0][0] = 5
    assert batch[0, 0].item() == 0


# ---- datasets ------------------------------------------------------------------------------------


class Range(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i


class Stream(IterableDataset):
    """0..n-1, split between workers by get_worker_info()."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


def test_tensor_dataset():
    x, y = ember.arange(6.0).reshape(3, 2), ember.tensor([7, 8, 9])
    ds = TensorDataset(x, y)
    assert len(ds) == 3
    a, b = ds[1]
    assert a.tolist() == [2.0, 3.0] and b.item() == 8
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        TensorDataset(x, ember.ones(4))


def test_concat_chain_subset_stack():
    cat = ConcatDataset([Range(3), Range(2)])
    assert [cat[i] for i in range(len(cat))] == [0, 1, 2, 0, 1] and cat[-1] == 1 and cat.cumulative_sizes == [3, 5]
    assert [(Range(2) + Range(1))[i] for i in range(3)] == [0, 1, 0]
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Stream(2)])
    assert list(ChainDataset([Stream(2), Stream(3)])) == [0, 1, 0, 1, 2] and list(Stream(1) + Stream(1)) == [0, 0]
    sub = Subset(Range(10), [7, 2, 5])
    assert [sub[i] for i in range(3)] == [7, 2, 5] and sub.__getitems__([0, 2]) == [7, 5]
    assert StackDataset(Range(2), Range(2))[1] == (1, 1) and StackDataset(a=Range(2), b=Range(2))[0] == {"a": 0, "b": 0}


def test_random_split_lengths_and_fractions():
    parts = random_split(Range(10), [3, 7], generator=ember.Generator().manual_seed(1))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    again = random_split(Range(10), [3, 7], generator=ember.Generator().manual_seed(1))
    assert again[0].indices == parts[0].indices
    assert [len(p) for p in random_split(Range(10), [0.33, 0.33, 0.34])] == [4, 3, 3]  # torch's remainder rule
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(Range(10), [3, 3])


# ---- samplers ------------------------------------------------------------------------------------


def test_sequential_and_batch_samplers_like_torch():
    pytest.importorskip("torch")
    from torch.utils.data import BatchSampler as TB, SequentialSampler as TS

    for drop_last in (False, True):
        ours = BatchSampler(SequentialSampler(range(10)), 3, drop_last)
        theirs = TB(TS(range(10)), 3, drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_random_sampler_orders():
    g = ember.Generator().manual_seed(3)
    first = list(RandomSampler(range(20), generator=g))
    assert sorted(first) == list(range(20))
    assert list(RandomSampler(range(20), generator=ember.Generator().manual_seed(3))) == first  # seeded: reproducible
    assert list(RandomSampler(range(20), generator=g)) != first  # the next pass: another order
    drawn = list(RandomSampler(range(5), replacement=True, num_samples=70))
    assert len(drawn) == 70 and set(drawn) <= set(range(5))
    wrapped = list(RandomSampler(range(4), num_samples=10))
    assert len(wrapped) == 10 and sorted(wrapped[:4]) == [0, 1, 2, 3] and sorted(wrapped[4:8]) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean value"):
        RandomSampler(range(3), replacement=1)


def test_subset_and_weighted_samplers():
    assert sorted(SubsetRandomSampler([4, 8, 15])) == [4, 8, 15]
    drawn = list(WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 200, generator=ember.Generator().manual_seed(0)))
    counts = collections.Counter(drawn)
    assert set(counts) == {1, 3} and counts[3] > counts[1]
    assert sorted(WeightedRandomSampler([1, 1, 1], 3, replacement=False)) == [0, 1, 2]
    with pytest.raises(ValueError, match="weights should be a 1d sequence"):
        WeightedRandomSampler([[1.0]], 1)


def test_distributed_sampler_splits_like_torch():
    pytest.importorskip("torch")
    from torch.utils.data import DistributedSampler as TD

    for n, replicas, drop_last in [(10, 3, False), (10, 3, True), (2, 4, False)]:
        for rank in range(replicas):
            ours = DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
            theirs = TD(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
            assert list(ours) == list(theirs) and len(ours) == len(theirs)
    shards = [list(DistributedSampler(range(12), 3, r, seed=5)) for r in range(3)]
    assert sorted(sum(shards, [])) == list(range(12))  # shuffled the same way on every replica
    s = DistributedSampler(range(12), 3, 0)
    s.set_epoch(1)
    assert list(s) != shards[0]
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        DistributedSampler(range(4), 3, 3)


# ---- the DataLoader ------------------------------------------------------------------------------


class Samples(Dataset):
    """Dict samples with a tensor, a number and a string."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": ember.full((2,), float(i)), "i": i, "name": f"s{i}"}


@pytest.mark.parametrize("num_workers", [0, 2])
def test_dataloader_batches_in_order(num_workers):
    loader = DataLoader(Samples(10), batch_size=4, num_workers=num_workers)
    batches = list(loader)
    assert len(loader) == 3 and [b["i"].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0]["x"].shape == (4, 2) and batches[2]["name"] == ["s8", "s9"]


@pytest.mark.parametrize("num_workers", [0, 2])
def test_dataloader_shuffle_drop_last_and_generator(num_workers):
    def epoch(seed):
        loader = DataLoader(Range(10), batch_size=3, shuffle=True, drop_last=True, num_workers=num_workers,
                            generator=ember.Generator().manual_seed(seed))
        return [b.tolist() for b in loader]

    batches = epoch(7)
    assert len(batches) == 3 and all(len(b) == 3 for b in batches) and len(set(sum(batches, []))) == 9
    assert epoch(7) == batches


def test_num_workers_does_not_change_the_order():
    def order(num_workers):
        loader = DataLoader(Range(12), batch_size=4, shuffle=True, num_workers=num_workers,
                            generator=ember.Generator().manual_seed(11))
        return [b.tolist() for b in loader]

    assert order(0) == order(2)


def test_dataloader_without_batching_converts():
    loader = DataLoader(Range(3), batch_size=None)
    assert list(loader) == [0, 1, 2]
    arrays = DataLoader([np.ones(2), np.zeros(2)], batch_size=None)
    assert all(isinstance(b, ember.Tensor) for b in arrays)


@pytest.mark.filterwarnings("ignore:This DataLoader will create")
@pytest.mark.parametrize("num_workers", [0, 3])
def test_iterable_dataset_with_workers(num_workers):
    loader = DataLoader(Stream(10), batch_size=2, num_workers=num_workers)
    got = sorted(sum((b.tolist() for b in loader), []))
    assert got == list(range(10))


class WorkerIds(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        import random

        return (info.id, info.seed, ember.rand(()).item(), random.random(), np.random.rand())


def test_workers_seeds_and_info():
    rows = [tuple(r) for b in DataLoader(WorkerIds(), batch_size=1, num_workers=2,
                                        generator=ember.Generator().manual_seed(0)) for r in zip(*b)]
    by_worker = {}
    for worker, seed, *draws in rows:
        by_worker.setdefault(int(worker), set()).add(int(seed))
    assert set(by_worker) == {0, 1}
    (s0,), (s1,) = by_worker[0], by_worker[1]
    assert s1 == s0 + 1  # base seed + worker id, as torch
    first_draws = {int(r[0]): r[2:] for r in reversed(rows)}
    assert first_draws[0] != first_draws[1]  # ember, random and NumPy streams differ between workers
    assert get_worker_info() is None


def _record_worker(worker_id):
    os.environ["EMBER_TEST_WORKER"] = str(worker_id)


class EnvDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return int(os.environ.get("EMBER_TEST_WORKER", "-1"))


def test_worker_init_fn_runs_in_each_worker():
    seen = sum((b.tolist() for b in DataLoader(EnvDataset(), batch_size=1, num_workers=2, worker_init_fn=_record_worker)),
               [])
    assert sorted(set(seen)) == [0, 1]


class Failing(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise KeyError("bad key 3")
        return i


@pytest.mark.parametrize("num_workers", [0, 2])
def test_worker_exception_reraised_with_its_traceback(num_workers):
    with pytest.raises(KeyError) as info:
        list(DataLoader(Failing(), batch_size=2, num_workers=num_workers))
    if num_workers:
        message = str(info.value)
        assert "Caught KeyError in DataLoader worker process" in message and "bad key 3" in message
        assert "__getitem__" in message  # the worker's traceback


class Killer(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


def test_a_killed_worker_is_reported_not_waited_for():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(DataLoader(Killer(), batch_size=1, num_workers=2))
    assert time.monotonic() - start < 10


class Slow(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(1)
        return i


def test_timeout():
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.3 seconds"):
        list(DataLoader(Slow(), num_workers=1, timeout=0.3))


def test_persistent_workers_serve_several_epochs():
    loader = DataLoader(Stream(6), batch_size=2, num_workers=2, persistent_workers=True)
    first = sorted(sum((b.tolist() for b in loader), []))
    workers = [w.pid for w in loader._iterator._workers]
    second = sorted(sum((b.tolist() for b in loader), []))
    assert first == second == list(range(6)) and [w.pid for w in loader._iterator._workers] == workers
    map_loader = DataLoader(Range(5), batch_size=2, num_workers=2, persistent_workers=True)
    assert [b.tolist() for b in map_loader] == [b.tolist() for b in map_loader] == [[0, 1], [2, 3], [4]]


@pytest.mark.filterwarnings("ignore:This DataLoader will create")
def test_out_of_order_delivery_gives_every_batch():
    loader = DataLoader(Range(9), batch_size=2, num_workers=3, in_order=False)
    assert sorted(sum((b.tolist() for b in loader), [])) == list(range(9))


def test_spawned_workers():
    loader = DataLoader(Range(4), batch_size=2, num_workers=1, multiprocessing_context="spawn")
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3]]


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(num_workers=-1), ValueError, "num_workers option should be non-negative"),
    (dict(timeout=-1), ValueError, "timeout option should be non-negative"),
    (dict(prefetch_factor=2), ValueError, "prefetch_factor option could only be specified in multiprocessing"),
    (dict(persistent_workers=True), ValueError, "persistent_workers option needs num_workers > 0"),
    (dict(shuffle=True, sampler=SequentialSampler(range(4))), ValueError,
     "sampler option is mutually exclusive with shuffle"),
    (dict(batch_size=2, batch_sampler=[[0, 1]]), ValueError, "batch_sampler option is mutually exclusive"),
    (dict(batch_size=None, drop_last=True), ValueError, "batch_size=None option disables auto-batching"),
    (dict(multiprocessing_context="spawn"), ValueError, "multiprocessing_context can only be used with multi-process"),
    (dict(num_workers=1, multiprocessing_context="nope"), ValueError, "should specify a valid start method"),
])
def test_dataloader_argument_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        DataLoader(Range(4), **kwargs)


def test_too_many_workers_warns_like_torch():
    with pytest.warns(UserWarning, match=r"This DataLoader will create 64 worker processes in total. Our suggested max "
                                         r"number of worker in current system is \d+"):
        DataLoader(Range(4), num_workers=64)


def test_dataloader_refuses_shuffle_for_iterable_and_late_changes():
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        DataLoader(Stream(3), shuffle=True)
    loader = DataLoader(Range(4))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 3
    assert len(DataLoader(Stream(5), batch_size=2)) == 3 and len(DataLoader(Stream(5), batch_size=2,
                                                                            drop_last=True)) == 2


def test_import_paths_of_torch_scripts():
    import ember.utils.data._utils.collate as collate_module
    from ember.utils.data.dataloader import DataLoader as D
    from ember.utils.data.dataset import Dataset as DS
    from ember.utils.data.sampler import Sampler

    assert D is DataLoader and DS is Dataset and collate_module.default_collate is default_collate and Sampler
    assert ember.utils.data.DataLoader is DataLoader
