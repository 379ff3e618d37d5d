"""DataLoader: batches from a dataset, in the main process or in worker
processes, with torch.utils.data.DataLoader's arguments and checks."""

import itertools
import multiprocessing
import os
import queue
import time
import warnings
import weakref

import ember.multiprocessing  # noqa: F401  (tensors travel between workers and here through shared memory)

from . import _utils
from ._utils.collate import default_collate, default_convert
from ._utils.worker import (STATUS_CHECK_INTERVAL, ExceptionWrapper, IterableDatasetStopIteration, ResumeIteration,
                            get_worker_info, worker_loop, worker_seeds)
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, random_seed

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

# How often the main process, waiting for a batch, checks that its workers live.
WORKER_CHECK_INTERVAL = 1.0


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: it only counts samples."""

    def __iter__(self):
        while True:
            yield None


def _suggested_max_workers():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


class DataLoader:
    """Iterates over batches of ``dataset``.

    Map-style datasets are visited in the sampler's order (``shuffle=True``:
    a RandomSampler drawing from ``generator``), iterable ones in their own.
    With ``num_workers > 0`` each batch is made in a worker process; worker
    errors are re-raised here with their traceback, a worker that dies is
    reported within a second or two, and ``timeout`` bounds each wait."""

    _FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        is_iterable = isinstance(dataset, IterableDataset)
        if is_iterable:
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.collate_fn = collate_fn or (default_collate if batch_sampler is not None else default_convert)
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self._is_iterable = is_iterable
        self._iterator = None
        self._initialized = True
        if pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.")
        self._check_worker_number_rationality()

    def __setattr__(self, name, value):
        if getattr(self, "_initialized", False) and name in self._FROZEN:
            raise ValueError(f"{name} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def multiprocessing_context(self):
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers == 0:
                raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                     f"{methods!r}, but got multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            elif not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(f"multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={context}")
        self._multiprocessing_context = context

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _check_worker_number_rationality(self):
        most = _suggested_max_workers()
        if self.num_workers > most:
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. Our suggested "
                          f"max number of worker in current system is {most}, which is smaller than what this "
                          f"DataLoader is going to create. Please be aware that excessive worker creation might get "
                          f"DataLoader running slow or even freeze, lower the worker number to avoid potential "
                          f"slowness/freeze if necessary.")

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = _MultiProcessingIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _SingleProcessIter(self) if self.num_workers == 0 else _MultiProcessingIter(self)

    def __len__(self):
        if self._is_iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)


class _BaseIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._is_iterable = loader._is_iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._collate_fn = loader.collate_fn
        self._num_yielded = 0
        self._sampler_iter = iter(loader._index_sampler)
        # Drawn with or without workers, as torch does, so that num_workers
        # does not change what the generator gives the sampler.
        self._base_seed = random_seed(loader.generator)

    def __iter__(self):
        return self

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        return data

    def __len__(self):
        return len(self._loader)


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._loader = loader
        self._fetcher = _utils.fetch.make_fetcher(self._is_iterable, self._dataset, self._auto_collation,
                                                  self._collate_fn, self._drop_last)

    def _next_data(self):
        return self._fetcher.fetch(self._next_index())


class _MultiProcessingIter(_BaseIter):
    """Workers each read index lists from their own queue and put batches on
    one shared queue; at most prefetch_factor * num_workers are in flight.
    Batches come out in the sampler's order (or as they arrive, with
    in_order=False)."""

    def __init__(self, loader):
        super().__init__(loader)
        # A persistent loader holds its iterator: a weak link back keeps that
        # from being a cycle, so dropping the loader shuts the workers down at
        # once rather than at some later garbage collection.
        self._loader = weakref.proxy(loader)
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._persistent = loader.persistent_workers
        self._in_order = loader.in_order
        self._shutdown = False
        context = loader.multiprocessing_context or multiprocessing
        base_seed = self._base_seed
        self._data_queue = context.Queue()
        self._done_event = context.Event()
        self._index_queues, self._workers = [], []
        for worker_id in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()  # at shutdown, what is still queued for a worker does not matter
            worker = context.Process(
                target=worker_loop, daemon=True,
                args=(self._is_iterable, self._dataset, index_queue, self._data_queue, self._done_event,
                      self._auto_collation, self._collate_fn, self._drop_last, worker_seeds(base_seed, worker_id),
                      loader.worker_init_fn,
                      worker_id, self._num_workers))
            worker.start()
            self._index_queues.append(index_queue)
            self._workers.append(worker)
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(loader._index_sampler)
        self._num_yielded = 0
        self._send_idx = 0  # the next task's id
        self._rcvd_idx = 0  # the next task to give out (in order)
        self._task_info = {}  # task id -> (worker id,) while pending, (worker id, data) once it arrived early
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # persistent workers: restart their streams, and wait until each has
            for index_queue in self._index_queues:
                index_queue.put(ResumeIteration())
            waiting = self._num_workers
            while waiting > 0:
                task_id, _ = self._get_data()
                if isinstance(task_id, ResumeIteration):
                    waiting -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        if self._tasks_outstanding >= self._prefetch_factor * self._num_workers:
            return
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_cycle)
            if self._workers_status[worker_id]:
                break
        else:
            return  # every worker's stream ended
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _try_get_data(self, timeout):
        try:
            return True, self._data_queue.get(timeout=timeout)
        except Exception as error:
            # Nothing came, or what came cannot be unpickled: a batch whose
            # shared memory was to be handed over by a worker that has died
            # since (ConnectionRefusedError). Either way a dead worker is the
            # news to report.
            dead = self._dead_workers(wait=0 if isinstance(error, queue.Empty) else 2.0)
            if dead:
                self._shutdown_workers()
                pids = ", ".join(str(w.pid) for w in dead)
                codes = ", ".join(str(w.exitcode) for w in dead)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly "
                                   f"(exit code(s) {codes})") from (None if isinstance(error, queue.Empty) else error)
            if isinstance(error, queue.Empty):
                return False, None
            raise

    def _dead_workers(self, wait):
        """The workers that have exited. A failed unpickling waits up to
        `wait` seconds for its cause: a worker killed while its batch was on
        the way can still look alive for a moment after its sockets close."""
        deadline = time.monotonic() + wait
        while True:
            dead = [w for i, w in enumerate(self._workers) if self._workers_status[i] and not w.is_alive()]
            if dead or time.monotonic() >= deadline:
                return dead
            time.sleep(0.02)

    def _get_data(self):
        waited = 0.0
        while True:
            step = WORKER_CHECK_INTERVAL if self._timeout <= 0 else min(WORKER_CHECK_INTERVAL, self._timeout - waited)
            ok, data = self._try_get_data(step)
            if ok:
                return data
            waited += step
            if 0 < self._timeout <= waited:
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _next_data(self):
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and (len(info) == 2 or self._workers_status[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)  # given out already, or its worker's stream ended
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                data = self._task_info.pop(self._rcvd_idx)[1]
                self._rcvd_idx += 1
                return self._process(data)
            task_id, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, IterableDatasetStopIteration):
                self._workers_status[data.worker_id] = False
                self._try_put_index()
                continue
            if task_id == self._rcvd_idx:
                del self._task_info[task_id]
                self._rcvd_idx += 1
                return self._process(data)
            if not self._in_order:
                del self._task_info[task_id]
                return self._process(data)
            self._task_info[task_id] += (data,)

    def _process(self, data):
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _shutdown_workers(self):
        if self._shutdown or not hasattr(self, "_workers"):
            return
        self._shutdown = True
        self._done_event.set()
        for index_queue in self._index_queues:
            try:
                index_queue.put(None)
            except (OSError, ValueError):
                pass
        for worker in self._workers:
            worker.join(timeout=STATUS_CHECK_INTERVAL)
            if worker.is_alive():
                worker.terminate()
                worker.join()
        for q in self._index_queues + [self._data_queue]:
            q.cancel_join_thread()
            q.close()

    def __del__(self):
        self._shutdown_workers()
