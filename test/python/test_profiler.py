"""ember.profiler: operators and record_function ranges recorded with their
times, torch-style tables, Chrome traces, schedules, and the
autograd.profiler spelling."""

import json

import pytest

import ember


def model_and_input():
    ember.manual_seed(0)
    return ember.nn.Sequential(ember.nn.Linear(8, 16), ember.nn.ReLU(), ember.nn.Linear(16, 2)), ember.randn(4, 8)


def test_records_operators_and_ranges_with_times(tmp_path):
    model, x = model_and_input()
    with ember.profiler.profile(activities=[ember.profiler.ProfilerActivity.CPU]) as prof:
        with ember.profiler.record_function("forward"):
            for _ in range(3):
                model(x).sum().backward()
    averages = {a.key: a for a in prof.key_averages()}
    assert averages["forward"].count == 1
    assert averages["aten::linear"].count == 6 and averages["aten::relu"].count == 3
    assert all(a.cpu_time_total > 0 for a in averages.values())
    # The range contains the operators it marks.
    assert averages["forward"].cpu_time_total >= averages["aten::linear"].cpu_time_total
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=3)
    lines = table.splitlines()
    assert "# of Calls" in lines[1] and lines[3].startswith("forward") and len(lines) == 3 + 3 + 2
    trace = json.loads(open(prof.export_chrome_trace(str(tmp_path / "trace.json"))).read())["traceEvents"]
    assert len(trace) == len(prof.events()) and all(e["ph"] == "X" and e["dur"] >= 0 for e in trace)
    assert {e["cat"] for e in trace} == {"cpu_op", "user_annotation"}
    with pytest.raises(AttributeError, match="unknown column"):
        prof.key_averages().table(sort_by="nonsense")


def test_schedule_records_only_active_steps_and_saves_at_their_end(tmp_path):
    model, x = model_and_input()
    sched = ember.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    actions = [sched(i).name for i in range(6)]
    assert actions == ["NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE", "NONE", "NONE"]
    saved = []
    handler = ember.profiler.tensorboard_trace_handler(str(tmp_path / "tb"))
    with ember.profiler.profile(schedule=sched, on_trace_ready=lambda p: (saved.append(p.key_averages()),
                                                                          handler(p))) as prof:
        for _ in range(6):
            model(x)  # 2 linear calls per step
            prof.step()
    assert len(saved) == 1 and {a.key: a.count for a in saved[0]}["aten::linear"] == 4  # the 2 active steps
    assert len(list((tmp_path / "tb").iterdir())) == 1


def test_autograd_profiler_spelling():
    model, x = model_and_input()
    with ember.autograd.profiler.profile() as prof:
        with ember.autograd.profiler.record_function("step"):
            model(x)
    assert {a.key for a in prof.key_averages()} >= {"step", "aten::linear", "aten::relu"}
    assert "aten::linear" in prof.table(sort_by="self_cpu_time_total")
    with ember.profiler.profile(enabled=False) as off:
        model(x)
    assert len(off.events()) == 0
