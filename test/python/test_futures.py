"""ember.futures.Future against torch.futures.Future's behavior: completion, then() chains, errors,
callbacks, collect_all/wait_all."""

import threading

import pytest

import ember
from ember.futures import Future, collect_all, wait_all


def test_a_future_completes_once_with_a_value_and_runs_its_callbacks():
    fut = Future()
    assert not fut.done()
    with pytest.raises(RuntimeError, match="not completed"):
        fut.value()
    calls = []
    fut.add_done_callback(lambda f: calls.append(f.value()))
    fut.set_result(ember.tensor([1.0, 2.0]))
    assert fut.done() and calls and calls[0].tolist() == [1.0, 2.0]
    assert fut.wait().tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="only be marked completed once"):
        fut.set_result(1)
    late = []
    fut.add_done_callback(lambda f: late.append(True))  # runs at once on a completed Future
    assert late == [True]


def test_then_chains_values_and_carries_exceptions():
    fut = Future()
    doubled = fut.then(lambda f: f.value() * 2)
    failed = doubled.then(lambda f: 1 / 0)
    after_failure = failed.then(lambda f: f.value() + 1)
    fut.set_result(21)
    assert doubled.wait() == 42
    with pytest.raises(ZeroDivisionError):
        failed.wait()
    with pytest.raises(ZeroDivisionError):
        after_failure.wait()
    errored = Future()
    errored.set_exception(ValueError("bad"))
    with pytest.raises(ValueError, match="bad"):
        errored.value()
    with pytest.raises(TypeError):
        Future().set_exception("not an exception")


def test_wait_blocks_until_another_thread_completes_it_and_collect_all_gathers():
    futures = [Future() for _ in range(3)]
    both = collect_all(futures)
    threading.Timer(0.05, lambda: [f.set_result(i) for i, f in enumerate(futures)]).start()
    assert futures[2].wait() == 2
    assert [f.value() for f in both.wait()] == [0, 1, 2]
    assert wait_all(futures) == [0, 1, 2]
    assert collect_all([]).wait() == []
