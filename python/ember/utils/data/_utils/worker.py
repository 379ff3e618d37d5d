"""What runs in a DataLoader worker process: its identity (get_worker_info),
its seeds, and the loop that turns index lists into batches."""

import os
import queue
import random
import sys
import traceback

import ember

from .fetch import make_fetcher

# How long the main process waits for a worker to exit before killing it
# (seconds). An idle worker checks every WORKER_POLL_INTERVAL seconds whether
# it should stop: the shutdown event, or its parent gone. The event is what
# stops it when the None sent to it cannot arrive (its queue already closed,
# as when the garbage collector finalizes the queue before the iterator).
STATUS_CHECK_INTERVAL = 5.0
WORKER_POLL_INTERVAL = 0.5

_worker_info = None


class WorkerInfo:
    """id, num_workers, seed and dataset (this worker's copy) of the current worker."""

    __slots__ = ("id", "num_workers", "seed", "dataset")

    def __init__(self, id, num_workers, seed, dataset):
        self.id = id
        self.num_workers = num_workers
        self.seed = seed
        self.dataset = dataset

    def __setattr__(self, name, value):
        if hasattr(self, name):
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        object.__setattr__(self, name, value)

    def __repr__(self):
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in ("id", "num_workers", "seed"))
        return f"WorkerInfo({fields}, dataset={self.dataset!r})"


def get_worker_info():
    """In a DataLoader worker: its WorkerInfo. In the main process: None."""
    return _worker_info


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its traceback."""

    def __init__(self, exc_info, where):
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:  # KeyError shows its message's repr: keep it readable
            msg = KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # a type whose constructor takes other arguments
            raise RuntimeError(msg) from None
        raise exception


class KeyErrorMessage(str):
    def __repr__(self):
        return self


class ResumeIteration:
    """Sent to persistent workers at a new epoch: start the dataset's stream again."""


class IterableDatasetStopIteration:
    """Sent by a worker whose copy of an iterable dataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


def worker_seeds(base_seed, worker_id):
    """(seed for ember and `random`, seed state for NumPy) of a worker. The
    main process computes them, so that NumPy's random module is imported
    there: imported in a freshly forked worker, CPython 3.11's import lock
    bookkeeping could fail (KeyError in _ModuleLock.acquire) and the worker
    die before its first batch."""
    seed = (base_seed + worker_id) % 2**64
    try:
        import numpy
    except ImportError:
        return seed, None
    return seed, numpy.random.SeedSequence([worker_id, base_seed % 2**64]).generate_state(4)


def _seed_worker(seed, numpy_state):
    random.seed(seed)
    ember.manual_seed(seed)
    if numpy_state is not None:
        import numpy

        numpy.random.seed(numpy_state)


def worker_loop(is_iterable, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn, drop_last,
                seeds, init_fn, worker_id, num_workers):
    """Reads (task id, indices) from index_queue until it gets None, puts
    (task id, batch or ExceptionWrapper) on data_queue."""
    global _worker_info
    interrupted = False
    try:
        ember.set_num_threads(1)  # as torch: workers each get one thread; parallelism is across them
        seed, numpy_state = seeds  # worker_seeds(), made in the main process
        _seed_worker(seed, numpy_state)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = make_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_error = ExceptionWrapper(sys.exc_info(), f"in DataLoader worker process {worker_id}")
        parent = os.getppid()
        exhausted = False
        while True:
            try:
                task = index_queue.get(timeout=WORKER_POLL_INTERVAL)
            except queue.Empty:
                if done_event.is_set() or os.getppid() != parent:  # shut down, or nobody will read our batches
                    break
                continue
            if task is None:  # shut down
                break
            if isinstance(task, ResumeIteration):
                fetcher = make_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
                exhausted = False
                data_queue.put((task, None))
                continue
            if done_event.is_set() or exhausted:
                continue  # draining: the main process is shutting down or the stream ended
            task_id, index = task
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if not is_iterable:
                        raise
                    data = IterableDatasetStopIteration(worker_id)
                    exhausted = True
                except Exception:
                    data = ExceptionWrapper(sys.exc_info(), f"in DataLoader worker process {worker_id}")
            data_queue.put((task_id, data))
            del data, index, task
    except KeyboardInterrupt:  # the main process has it too, and shuts the workers down
        interrupted = True
    if interrupted or done_event.is_set():  # nobody may read what is still queued: do not wait to flush it
        data_queue.cancel_join_thread()
        data_queue.close()
