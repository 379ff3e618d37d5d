"""ember.optim.swa_utils against torch.optim.swa_utils: the averaged
weights (SWA, EMA through avg_fn and multi_avg_fn, with and without
buffers), SWALR's learning rates step by step, and update_bn's statistics."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def build(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 1))


def batches(lib):
    rng = np.random.default_rng(1)
    return [(lib.tensor(rng.standard_normal((8, 3)), dtype=lib.float32),
             lib.tensor(rng.standard_normal((8, 1)), dtype=lib.float32)) for _ in range(6)]


def train(lib, averaging, use_buffers=False, anneal_strategy="cos"):
    swa = lib.optim.swa_utils
    model = build(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    kwargs = {"use_buffers": use_buffers}
    if averaging == "ema":
        kwargs["avg_fn"] = swa.get_ema_avg_fn(0.9)
    elif averaging == "ema_multi":
        kwargs["multi_avg_fn"] = swa.get_ema_multi_avg_fn(0.9)
    elif averaging == "swa_multi":
        kwargs["multi_avg_fn"] = swa.get_swa_multi_avg_fn()
    averaged = swa.AveragedModel(model, **kwargs)
    scheduler = swa.SWALR(opt, swa_lr=0.02, anneal_epochs=3, anneal_strategy=anneal_strategy)
    rates = []
    for x, y in batches(lib):
        opt.zero_grad()
        lib.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        averaged.update_parameters(model)
        scheduler.step()
        rates.append(scheduler.get_last_lr()[0])
    swa.update_bn([x for x, _ in batches(lib)], averaged)
    averaged.eval()
    out = averaged(batches(lib)[0][0])
    state = {k: v.detach().numpy() for k, v in averaged.state_dict().items()}
    return rates, out.detach().numpy(), state


@pytest.mark.parametrize("averaging", ["swa", "ema", "ema_multi", "swa_multi"])
@pytest.mark.parametrize("use_buffers", [False, True])
def test_averaged_model_and_schedule_match_torch(averaging, use_buffers):
    if averaging == "swa_multi" and use_buffers:
        pytest.skip("torch 2.13 fails here (addcdiv on BatchNorm's int64 num_batches_tracked); Ember averages it")
    strategy = "linear" if averaging == "ema" else "cos"
    mine = train(ember, averaging, use_buffers, strategy)
    theirs = train(torch, averaging, use_buffers, strategy)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-5, atol=1e-6)
    assert mine[2].keys() == theirs[2].keys()
    for key in mine[2]:
        np.testing.assert_allclose(mine[2][key], theirs[2][key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_errors_match_torch():
    for lib in (torch, ember):
        opt = lib.optim.SGD(lib.nn.Linear(1, 1).parameters(), lr=0.1)
        with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
            lib.optim.swa_utils.SWALR(opt, 0.01, anneal_strategy="exp")
        with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
            lib.optim.swa_utils.SWALR(opt, 0.01, anneal_epochs=-1)
