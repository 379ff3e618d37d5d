"""Variable._execution_engine.queue_callback: callbacks run when the backward
pass that queued them has finished, in order, as torch's do (torch is the
oracle for the order, reentrant passes included)."""

import pytest

import ember

torch = pytest.importorskip("torch")


def events_of(lib):
    """What runs, in order, in a backward through a reentrant checkpoint whose
    inner pass queues callbacks, and an outer hook that queues more."""
    from_engine = lib.autograd.Variable._execution_engine
    events = []
    x = lib.ones(3, requires_grad=True)
    w = lib.full((3,), 2.0, requires_grad=True)

    def inner_hook(grad):
        events.append("inner hook")
        from_engine.queue_callback(lambda: events.append("inner callback"))
        return grad

    def segment(a):
        a.register_hook(inner_hook) if a.requires_grad else None
        return (a * w).sin()

    h = x * 3
    out = lib.utils.checkpoint.checkpoint(segment, h, use_reentrant=True).sum()

    def outer_hook(grad):
        events.append("outer hook")

        def first():
            events.append("outer callback")
            from_engine.queue_callback(lambda: events.append("queued by a callback"))

        from_engine.queue_callback(first)
        return grad

    h.register_hook(outer_hook)
    out.backward()
    events.append("backward returned")
    return events


def test_callbacks_run_at_the_end_of_their_own_pass_in_torchs_order():
    import torch.utils.checkpoint  # noqa: F401

    expected = events_of(torch)
    assert "inner callback" in expected and "queued by a callback" in expected
    assert events_of(ember) == expected


def test_queue_callback_outside_backward_raises_as_torch():
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass"):
        torch.autograd.Variable._execution_engine.queue_callback(lambda: None)
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass"):
        ember.autograd.Variable._execution_engine.queue_callback(lambda: None)


def test_a_failed_backward_drops_its_callbacks():
    ran = []
    x = ember.ones(2, requires_grad=True)

    def hook(grad):
        ember.autograd.Variable._execution_engine.queue_callback(lambda: ran.append(1))
        raise ValueError("hook failed")

    y = x * 2
    y.register_hook(hook)
    with pytest.raises(ValueError, match="hook failed"):
        y.sum().backward()
    (x * 3).sum().backward()  # a later pass does not run the failed one's callbacks
    assert ran == []
