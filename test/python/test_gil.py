"""Ops run with the GIL released, as in torch: another Python thread makes
progress while one op runs (a DataLoader worker's thread hands batches over
that way), and Python callbacks that C++ holds (hooks, custom Function
backwards) are still called and dropped safely."""

import threading
import time

import ember


def test_other_threads_run_during_an_op():
    a = ember.randn(2400, 2400)
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    thread = threading.Thread(target=tick)
    thread.start()
    time.sleep(0.02)
    start = time.perf_counter()
    ember.mm(a, a)  # one op of tens of milliseconds: the ticks inside it ran while it did
    end = time.perf_counter()
    stop.set()
    thread.join()
    inside = [t for t in ticks if start + 0.005 < t < end - 0.005]
    assert end - start > 0.03 and len(inside) >= 3, (end - start, len(inside))


def test_hooks_dropped_inside_an_op_are_released_safely():
    for _ in range(50):
        x = ember.ones(3, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g * 3)
        y.grad_fn.register_hook(lambda gi, go: None)
        z = y.detach()
        z.add_(1)  # an op whose tensors' graphs (and hooks) may go away with the GIL released
        del y
        (x * 2).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_tiny_ops_keep_the_gil_and_threads_still_interleave():
    """Ops on a few thousand elements or fewer keep the GIL (python/src/fast_calls.cpp): threads running
    them concurrently all finish with right results, and a tiny op whose tensor owns NumPy memory (freed
    under the GIL it holds) does not deadlock."""
    import numpy as np

    errors = []

    def work(k):
        try:
            a, b = ember.full((8,), float(k)), ember.ones(8)
            for _ in range(2000):
                c = ember.add(a, b)
            assert c.tolist() == [k + 1.0] * 8
            for _ in range(200):
                ember.add(ember.from_numpy(np.full(4, k, dtype=np.float32)), b[:4])
        except Exception as e:  # noqa: BLE001  (reported below, from the main thread)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads) and not errors, errors
